#!/bin/sh
# bench/fsck.sh [-w WORKDIR] [-r]: extkit-fsck against e2fsck, side by side
# in one run, on the same image:
#   files   300,000 small files in 300 directories (made once with
#           extkit-mkfs -d from a generated tree, cached in WORKDIR)
#   empty   a 1 TiB sparse image, ext4 defaults, a few files
# -fn on both images; then -fy (repair) on the files image clean, and on a
# copy of it with damage injected by debugfs -w (wrong link counts, dtimes
# and sizes on 200 inodes, free counts, bitmap bits): each -fy run gets a
# fresh copy, and each tool's result must be clean to e2fsck -fn.  Prints the best wall-clock
# seconds of 5 runs, the ratio extkit/e2fsprogs (lower is better), the aim
# (issue: <= 0.5x), and the median peak RSS.  The images live on tmpfs (/dev/shm) when
# it has room, so the disk is not what is measured; a last line runs -fy on
# the files image in WORKDIR, on the disk, where a repair's flushes cost
# what they cost a user.
# Exit 77 when it cannot run here.  Never part of `make check`.
set -eu
. "$(dirname "$0")/lib.sh"
bench_options "$@"
fsck="$top/fsck/extkit-fsck"
mkfs="$top/mkfs/extkit-mkfs"
recipe=1
nfiles=300000

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
# each command runs $runs times: its best wall time, and the median of
# $runs more runs' peak RSS
# (a tool's peak moves by some 200 KiB from run to run here)
runs=5
median() { printf '%s\n' "$@" | sort -n | sed -n "$((($# + 1) / 2))p"; }
# secs command...: the wall seconds of one run, to the millisecond (time(1)'s
# %e has hundredths), spawned straight from python3 as nothing else adds to
# it; exits as the command.  Its peak RSS is another run's, under time(1)
# (a child's peak starts at its parent's size: time(1) is smaller than
# either tool, python3 is not)
secs() {
	python3 -c '
import subprocess, sys, time
t = time.perf_counter()
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print("%.3f" % (time.perf_counter() - t))
sys.exit(r.returncode)' "$@"
}
# (time(1) writes "Command exited with non-zero status 1" first)
peak() { /usr/bin/time -f '%M' -o "$fast/t" "$@" > /dev/null 2>&1 || :; tail -n 1 "$fast/t"; }
best() {	# command...: best wall seconds of $runs runs and the median peak RSS (KiB), "s kb"
	b= k=
	for i in $(seq $runs); do
		s=$(secs "$@") || { echo "FAIL: $* exited $?" >&2; exit 1; }
		if [ -z "$b" ] || [ "$(echo "$s < $b" | bc)" = 1 ]; then b=$s; fi
		k="$k $(peak "$@")"
	done
	echo "$b $(median $k)"
}
# the same, each run on a fresh copy of image $1 (the copy is not timed),
# made in $run (tmpfs; the disk for the "disk" lines, synced first)
run=$fast
best_fresh() {
	src=$1; shift
	b= k=
	for i in $(seq $runs); do
		cp --sparse=always "$src" "$run/run.img"
		[ "$run" = "$fast" ] || sync
		rc=0
		s=$(secs "$@" "$run/run.img") || rc=$?
		[ $rc -le 1 ] || { echo "FAIL: $* exited $rc" >&2; exit 1; }
		e2fsck -fn "$run/run.img" > /dev/null 2>&1 || { echo "FAIL: $* left errors" >&2; exit 1; }
		if [ -z "$b" ] || [ "$(echo "$s < $b" | bc)" = 1 ]; then b=$s; fi
		cp --sparse=always "$src" "$run/run.img"
		[ "$run" = "$fast" ] || sync
		k="$k $(peak "$@" "$run/run.img")"
	done
	rm -f "$run/run.img"
	echo "$b $(median $k)"
}
command -v bc >/dev/null 2>&1 || skip "bc is not installed"
printf '%-7s %10s %10s %7s %5s %12s %12s\n' image extkit e2fsck ratio aim "extkit RSS" "e2fsck RSS"
for img in files empty; do
	set -- $(best "$fsck" -fn "$fast/$img.img"); ek=$1 ekm=$2
	set -- $(best e2fsck -fn "$fast/$img.img"); e2=$1 e2m=$2
	ratio=$(echo "scale=2; $ek / $e2" | bc)
	printf '%-7s %9ss %9ss %6sx %5s %9s KiB %9s KiB\n' "$img" "$ek" "$e2" "$ratio" "0.5x" "$ekm" "$e2m"
done

# --- repair (-fy) ---------------------------------------------------------------
cp --sparse=always "$fast/files.img" "$fast/damaged.img"
python3 - "$fast/damaged.img" > "$fast/damage.cmds" <<'PY'
import random, sys
rnd = random.Random(2)
for ino in rnd.sample(range(20, 300000), 200):
    what = rnd.choice(["links_count 7", "dtime 12345", "size 1"])
    print("sif <%d> %s" % (ino, what))
for g in range(0, 30, 3):
    print("set_bg %d free_blocks_count 1" % g)
    print("set_bg %d free_inodes_count 1" % g)
    print("set_bg %d checksum calc" % g)
for ino in rnd.sample(range(20, 300000), 50):
    print("freei <%d>" % ino)
PY
debugfs -w -f "$fast/damage.cmds" "$fast/damaged.img" > /dev/null 2>&1
for img in files damaged; do
	set -- $(best_fresh "$fast/$img.img" "$fsck" -fy); ek=$1 ekm=$2
	set -- $(best_fresh "$fast/$img.img" e2fsck -fy); e2=$1 e2m=$2
	ratio=$(echo "scale=2; $ek / $e2" | bc)
	printf '%-7s %9ss %9ss %6sx %5s %9s KiB %9s KiB\n' "-fy $img" "$ek" "$e2" "$ratio" "0.5x" "$ekm" "$e2m"
done
# the same on the disk ($work), where each flush of a commit costs a write
# to the device, which tmpfs does not show
run=$work
set -- $(best_fresh "$fast/files.img" "$fsck" -fy); ek=$1 ekm=$2
set -- $(best_fresh "$fast/files.img" e2fsck -fy); e2=$1 e2m=$2
ratio=$(echo "scale=2; $ek / $e2" | bc)
printf '%-7s %9ss %9ss %6sx %5s %9s KiB %9s KiB\n' "-fy files (disk)" "$ek" "$e2" "$ratio" "0.5x" "$ekm" "$e2m"
