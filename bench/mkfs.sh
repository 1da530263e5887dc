#!/bin/sh
# bench/mkfs.sh [-w WORKDIR] [-r]: extkit-mkfs against mke2fs, side by side
# in one run, with the same options (-F -q, the same -U, -E hash_seed= and
# E2FSPROGS_FAKE_TIME), each on a freshly truncated image file:
#   empty   a 1 TiB sparse image, ext4 defaults (both layouts must agree:
#           dumpe2fs prints the same but for the lifetime writes and the
#           superblock checksum)
#   share   -d of a /usr/share-like tree (tens of thousands of entries, one
#           directory of about 18,000: a copy of /usr/share when it is that
#           big, else a generated tree of that shape)
#   small   -d of 300,000 small files (100 to 9,000 bytes) in 300 directories
# Both -d images must pass e2fsck -fn.  Prints the best wall-clock seconds of
# 3 runs, the ratio extkit/e2fsprogs (lower is better), and peak RSS.
#
# The source trees are made once and cached in WORKDIR (default
# /var/tmp/extkit-bench); -r makes them again.  They are read once before
# the timed runs, so both tools read them from the page cache.  The images
# live on tmpfs (/dev/shm) when it has room (else in WORKDIR).
# Exit 77 when it cannot run here (no mke2fs, e2fsck, python3 or time).
# Never part of `make check`: timings are not assertions.
set -eu
. "$(dirname "$0")/lib.sh"
bench_options "$@"
ek="$top/mkfs/extkit-mkfs"
# the version of the recipe below: cached trees made by another are remade
recipe=1
nsmall=300000

for t in mke2fs e2fsck dumpe2fs python3 /usr/bin/time; do
	command -v "$t" >/dev/null 2>&1 || skip "$t is not installed"
done
[ -x "$ek" ] || make -C "$top" >/dev/null
export LC_ALL=C E2FSCK_CONFIG=/dev/null E2FSPROGS_FAKE_TIME=1700000000
unset SOURCE_DATE_EPOCH MKE2FS_CONFIG
uuid=6f1c2b3a-0000-4000-8000-0000000000b1
seed=6f1c2b3a-0000-4000-8000-0000000000b2
mkdir -p "$work"

fast=
cleanup() {
	[ -n "$fast" ] && rm -rf "$fast"
	rm -f "$work/err" "$work/time"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- the source trees, cached ---------------------------------------------

# the largest number of names in one directory under $1
widest() {
	python3 - "$1" <<'PY'
import os, sys
print(max((len(d) + len(f) for _, d, f in os.walk(sys.argv[1])), default=0))
PY
}

make_share() {
	rm -rf "$work/share" "$work/share.recipe" "$work/share.tmp"
	n=$(find /usr/share 2>/dev/null | wc -l)
	if [ "$n" -ge 50000 ] && [ "$(widest /usr/share)" -ge 18000 ]; then
		echo "copying /usr/share ($n entries) to $work/share..."
		cp -a /usr/share "$work/share.tmp"
	else
		echo "generating a /usr/share-like tree in $work/share..."
		python3 - "$work/share.tmp" <<'PY'
import os, random, sys
# about 65,000 entries and 900 MB in 4,400 directories, most files small,
# a few large; man1/ holds 18,000 names (pages and symlinks to them)
root = sys.argv[1]
r = random.Random(1)
def blob(n):
	return r.randbytes(n)
def size():
	x = r.lognormvariate(8, 1.8)
	return int(min(x, 40 << 20))
made = 0
dirs = [root]
os.makedirs(root)
while len(dirs) < 4400:
	parent = r.choice(dirs[-200:] if r.random() < 0.7 else dirs)
	d = os.path.join(parent, "d%04d" % len(dirs))
	os.mkdir(d)
	dirs.append(d)
for i in range(42000):
	d = r.choice(dirs)
	with open(os.path.join(d, "f%05d.%s" % (i, r.choice(("txt", "png", "mo", "py", "gz")))), "wb") as f:
		f.write(blob(size()))
man = os.path.join(root, "man", "man1")
os.makedirs(man)
for i in range(18000):
	name = os.path.join(man, "cmd%05d.1.gz" % i)
	if i % 5 == 4:
		os.symlink("cmd%05d.1.gz" % (i - 1), name)
	else:
		with open(name, "wb") as f:
			f.write(blob(r.randint(300, 6000)))
PY
	fi
	mv "$work/share.tmp" "$work/share"
	echo "$recipe" > "$work/share.recipe"
}

make_small() {
	echo "generating $nsmall small files in $work/small..."
	rm -rf "$work/small" "$work/small.recipe" "$work/small.tmp"
	python3 - "$work/small.tmp" "$nsmall" <<'PY'
import os, random, sys
root, n = sys.argv[1], int(sys.argv[2])
r = random.Random(2)
per_dir = 1000
for i in range(n):
	d = os.path.join(root, "d%03d" % (i // per_dir))
	if i % per_dir == 0:
		os.makedirs(d)
	with open(os.path.join(d, "f%06d" % i), "wb") as f:
		f.write(r.randbytes(r.choice((100, 900, 3000, 9000))))
PY
	mv "$work/small.tmp" "$work/small"
	echo "$recipe" > "$work/small.recipe"
}

tree() {	# name: make it unless cached
	if [ "$rebuild" = 1 ] || [ ! -d "$work/$1" ] ||
	   [ "$(cat "$work/$1.recipe" 2>/dev/null)" != "$recipe" ]; then
		"make_$1"
	fi
}

tree share
tree small

# --- timing ---------------------------------------------------------------

measure() {	# image size command...: "seconds rss_kb" of the fastest of 3 runs
	img=$1 size=$2
	shift 2
	best=
	for run in 1 2 3; do
		rm -f "$img"
		truncate -s "$size" "$img"
		t0=$(date +%s%N)
		/usr/bin/time -f '%M' -o "$work/time" "$@" "$img" >/dev/null 2>"$work/err" </dev/null || {
			echo "failed: $* $img" >&2
			tail -3 "$work/err" >&2
			exit 1
		}
		t=$(date +%s%N)
		t=$(echo "$t0 $t $(tail -1 "$work/time")" | awk '{ printf "%.3f %d", ($2 - $1) / 1e9, $3 }')
		if [ -z "$best" ] || awk -v a="${t%% *}" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then
			best=$t
		fi
	done
	echo "$best"
}

row() {	# name ek_result e2_result
	set -- "$1" $2 $3
	printf '%-28s %8s %8s %6s %10s %10s\n' "$1" "$2" "$4" \
		"$(echo "$2 $4" | awk '{ printf "%.2f", ($2 > 0 ? $1 / $2 : 0) }')" "$3" "$5"
}

# the images: tmpfs when the larger -d image fits twice with room to spare
kb() { du -sk "$1" | cut -f1; }
share_kb=$(kb "$work/share")
small_kb=$(kb "$work/small")
share_size=$((share_kb * 3 / 2 + 262144))k
small_size=$((small_kb * 3 / 2 + 262144))k
need=$(( (share_kb > small_kb ? share_kb : small_kb) * 3 ))
if [ -d /dev/shm ] && [ "$(df -Pk /dev/shm | awk 'NR == 2 { print $4 }')" -gt $((need + 1048576)) ]; then
	fast=$(mktemp -d /dev/shm/extkit-bench.XXXXXX)
	echo "images: on tmpfs, in $fast"
else
	fast=$(mktemp -d "$work/images.XXXXXX")
	echo "images: in $fast (/dev/shm has no room for $((need / 1024)) MiB)"
fi

echo "reading the source trees into the page cache..."
for t in share small; do
	tar -cf - -C "$work" "$t" | cat >/dev/null
done
set -- $(find "$work/share" | wc -l) $(widest "$work/share")
echo "share: $1 entries, $((share_kb / 1024)) MiB, widest directory $2 names"
echo "small: $nsmall files, $((small_kb / 1024)) MiB in $((nsmall / 1000)) directories"

opts="-F -q -U $uuid -E hash_seed=$seed"
echo "seconds: wall clock, the best of 3 runs; rss: peak resident set"
printf '%-28s %8s %8s %6s %10s %10s\n' "operation" "extkit" "mke2fs" "ratio" "rss_ek_kB" "rss_e2_kB"

ek_r=$(measure "$fast/ek.img" 1T "$ek" $opts)
e2_r=$(measure "$fast/e2.img" 1T mke2fs -t ext4 $opts)
# the same layout: dumpe2fs agrees but for what each tool counts as written
dumpe2fs "$fast/ek.img" >"$work/ek.dump" 2>/dev/null
dumpe2fs "$fast/e2.img" >"$work/e2.dump" 2>/dev/null
diffs=$(diff "$work/ek.dump" "$work/e2.dump" | grep '^[<>]' |
	grep -cv 'Lifetime writes:\|^. Checksum: ' || true)
rm -f "$work/ek.dump" "$work/e2.dump"
[ "$diffs" -eq 0 ] || { echo "empty: dumpe2fs differs in $diffs lines" >&2; exit 1; }
row "empty 1 TiB" "$ek_r" "$e2_r"
rm -f "$fast/ek.img" "$fast/e2.img"

for t in share small; do
	eval size=\$${t}_size
	inodes=$(( $(find "$work/$t" | wc -l) * 5 / 4 + 1000 ))
	ek_r=$(measure "$fast/ek.img" "$size" "$ek" $opts -N "$inodes" -d "$work/$t")
	e2_r=$(measure "$fast/e2.img" "$size" mke2fs -t ext4 $opts -N "$inodes" -d "$work/$t")
	for i in ek e2; do
		e2fsck -fn "$fast/$i.img" >"$work/err" 2>&1 ||
			{ echo "$t: the $i image does not pass e2fsck -fn" >&2; tail -5 "$work/err" >&2; exit 1; }
	done
	rm -f "$fast/ek.img" "$fast/e2.img"
	case $t in
	share) row "-d share ($share_size)" "$ek_r" "$e2_r" ;;
	small) row "-d $nsmall files ($small_size)" "$ek_r" "$e2_r" ;;
	esac
done
echo "empty: both layouts agree (dumpe2fs); -d: both images pass e2fsck -fn"
