: no image
