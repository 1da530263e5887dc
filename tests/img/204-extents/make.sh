. "$SRC/../mk-small.sh"
