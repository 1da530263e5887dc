# a whole disk with an MBR partition holding ext4 at 1 MiB, one with a GPT,
# and an image whose superblock checksum is wrong
truncate -s 40M mbr.img
printf 'label: dos\nstart=2048, type=83\n' | sfdisk -q mbr.img
mke2fs -q -F -t ext4 -E offset=1048576 mbr.img 30M
truncate -s 40M gpt.img
printf 'label: gpt\nstart=2048, size=4096\nstart=8192\n' | sfdisk -q gpt.img
mke2fs -q -F -t ext4 -U 6b33f3a4-0d5c-4f7e-9a51-1c0ffee00010 -E hash_seed=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0 csum.img 8M
# flip a byte of s_checksum (0x3FC of the superblock at 1024)
printf '\377' | dd of=csum.img bs=1 seek=$((1024 + 0x3FC)) conv=notrunc 2>/dev/null
truncate -s 1M zero.img
