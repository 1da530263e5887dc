# unpack.sh — sourced by tests that read the corpus's compressed images.
#   unpack SRC DEST   SRC (.gz, .bz2, or not compressed) written to DEST as
#                     a sparse file (zero blocks left as holes); fails,
#                     leaving no DEST, when SRC cannot be read.
# A kernel crash image is 384 MiB when decompressed and a dozen tests read
# each one: run-img.sh gives the run a cache ($EK_UNPACK_CACHE), where the
# first test to unpack SRC leaves a sparse copy and the others copy that.
unpack_raw() {	# SRC DEST: decompress, sparse
	rm -f "$2" "$2.err"
	{ case $1 in
	  *.gz) gzip -dc "$1" ;;
	  *.bz2) bzip2 -dc "$1" ;;
	  *) cat "$1" ;;
	  esac || : > "$2.err"; } | cp --sparse=always /dev/stdin "$2"
	if [ -e "$2.err" ]; then
		rm -f "$2" "$2.err"
		return 1
	fi
}
unpack() {	# SRC DEST
	if [ -z "${EK_UNPACK_CACHE:-}" ] || ! mkdir -p "$EK_UNPACK_CACHE" 2>/dev/null; then
		unpack_raw "$1" "$2"
		return
	fi
	set -- "$1" "$2" "$EK_UNPACK_CACHE/$(stat -L -c '%n %s %Y' "$1" 2>/dev/null | sha256sum | cut -c1-32)"
	if [ ! -f "$3" ]; then
		unpack_raw "$1" "$3.$$" || return 1
		mv -f "$3.$$" "$3"
	fi
	cp --sparse=always "$3" "$2"
}
