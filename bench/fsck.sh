#!/bin/sh
# bench/fsck.sh [-w WORKDIR] [-r]: extkit-fsck -fn against e2fsck -fn, side
# by side in one run, on the same image:
#   files   300,000 small files in 300 directories (made once with
#           extkit-mkfs -d from a generated tree, cached in WORKDIR)
#   empty   a 1 TiB sparse image, ext4 defaults, a few files
# Both tools must call both images clean.  Prints the best wall-clock
# seconds of 3 runs, the ratio extkit/e2fsprogs (lower is better), the aim
# (issue: <= 0.5x), and peak RSS.  The images live on tmpfs (/dev/shm) when
# it has room, so the disk is not what is measured.
# Exit 77 when it cannot run here.  Never part of `make check`.
set -eu
work=/var/tmp/extkit-bench
rebuild=0
while getopts w:rh opt; do
	case $opt in
	w) work=$OPTARG ;;
	r) rebuild=1 ;;
	h) sed -n '2,/^set -eu/p' "$0" | sed 's/^# \{0,1\}//;/^set -eu/d'; exit 0 ;;
	*) exit 2 ;;
	esac
done
top=$(cd "$(dirname "$0")/.." && pwd)
fsck="$top/fsck/extkit-fsck"
mkfs="$top/mkfs/extkit-mkfs"
recipe=1
nfiles=300000

skip() { echo "SKIP: $*"; exit 77; }
for t in mke2fs e2fsck python3 /usr/bin/time; do
	command -v "$t" >/dev/null 2>&1 || skip "$t is not installed"
done
[ -x "$fsck" ] && [ -x "$mkfs" ] || make -C "$top" >/dev/null
export LC_ALL=C E2FSCK_CONFIG=/dev/null SOURCE_DATE_EPOCH=1700000000
mkdir -p "$work"
fast=$(mktemp -d /dev/shm/extkit-fsck.XXXXXX 2>/dev/null || mktemp -d "$work/fsck.XXXXXX")
trap 'rm -rf "$fast"' EXIT

# --- the images -------------------------------------------------------------
tree=$work/fsck-tree
if [ $rebuild = 1 ] || [ "$(cat "$tree.recipe" 2>/dev/null)" != "$recipe" ]; then
	echo "generating $nfiles small files in $tree..."
	rm -rf "$tree" "$tree.recipe"
	python3 - "$tree" "$nfiles" <<'PY'
import os, random, sys
root, n = sys.argv[1], int(sys.argv[2])
rnd = random.Random(1)
for d in range(300):
    os.makedirs(os.path.join(root, "d%03d" % d))
for i in range(n):
    with open(os.path.join(root, "d%03d" % (i % 300), "f%06d" % i), "wb") as f:
        f.write(b"x" * rnd.randint(100, 9000))
PY
	echo "$recipe" > "$tree.recipe"
fi
"$mkfs" -q -t ext4 -N $((nfiles + 1000)) -d "$tree" "$fast/files.img" 4G
mke2fs -q -F -t ext4 "$fast/empty.img" 1T
debugfs -w -R "mkdir a" "$fast/empty.img" > /dev/null 2>&1

# --- the runs -----------------------------------------------------------------
best() {	# command...: best wall seconds of 3 runs and the peak RSS (KiB), "s kb"
	b= k=
	for i in 1 2 3; do
		/usr/bin/time -f '%e %M' -o "$fast/t" "$@" > /dev/null 2>&1 || {
			echo "FAIL: $* exited $?" >&2; exit 1; }
		read -r s m < "$fast/t"
		if [ -z "$b" ] || [ "$(echo "$s < $b" | bc)" = 1 ]; then b=$s; fi
		k=$m
	done
	echo "$b $k"
}
command -v bc >/dev/null 2>&1 || skip "bc is not installed"
printf '%-7s %10s %10s %7s %5s %12s %12s\n' image extkit e2fsck ratio aim "extkit RSS" "e2fsck RSS"
for img in files empty; do
	set -- $(best "$fsck" -fn "$fast/$img.img"); ek=$1 ekm=$2
	set -- $(best e2fsck -fn "$fast/$img.img"); e2=$1 e2m=$2
	ratio=$(echo "scale=2; $ek / $e2" | bc)
	printf '%-7s %9ss %9ss %6sx %5s %9s KiB %9s KiB\n' "$img" "$ek" "$e2" "$ratio" "0.5x" "$ekm" "$e2m"
done
