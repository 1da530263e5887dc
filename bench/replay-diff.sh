#!/bin/sh
# bench/replay-diff.sh [-w WORKDIR] [-r]: does `extkit-replay diff` cost what
# the transactions touched, not the filesystem?  A 16 GiB ext4 holding
# 300,000 files in 2,000 directories is made once (root, loop devices;
# about a minute) and cached in WORKDIR (default /var/tmp/extkit-bench);
# -r makes it again.  Two crash images are made from it by the running
# kernel (EXT4_IOC_SHUTDOWN after fsyncs):
#   small  three transactions: a chmod, a create with data, a rename
#   wide   one transaction: 2,000 chmods, one file in each of 1,000 directories
#          (spread over more groups than the group search takes, so the
#          paths come from one walk of the tree)
# For each transaction: `diff` with the page cache dropped and warm, against
# `show` of the same transaction (its owners take one pass over every
# inode).  Prints wall-clock seconds and peak RSS.
# Exit 77 when it cannot run here (not root, no loop devices).
# Never part of `make check`: timings are not assertions.
set -eu
. "$(dirname "$0")/lib.sh"
bench_options "$@"
R=$top/replay/extkit-replay
[ -x "$R" ] || { echo "build first: make" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "bench/replay-diff.sh: needs root (loop mounts)" >&2; exit 77; }
mkdir -p "$work/diff-m"
cd "$work"
m=$work/diff-m
trap 'umount "$m" 2>/dev/null || true' EXIT

if [ $rebuild = 1 ] || [ ! -f diff-base.img ]; then
	rm -f diff-base.img
	truncate -s 16G diff-base.img
	mke2fs -q -F -t ext4 -E lazy_itable_init=0,lazy_journal_init=0 diff-base.img
	mount -o loop,noatime diff-base.img "$m" || { echo "loop mount failed" >&2; exit 77; }
	python3 - "$m" <<'PY'
import os, sys
m = sys.argv[1]
for d in range(2000):
    p = "%s/dir%04d" % (m, d)
    os.mkdir(p)
    for f in range(150):
        with open("%s/f%05d" % (p, f), "w") as fh:
            fh.write("z" * (100 + f * 37))
PY
	umount "$m"
fi

# crash NAME PYTHON: a copy of the base, the workload, a shutdown, the image
crash() {
	cp --sparse=always diff-base.img "diff-$1.img"
	mount -o loop,noatime,commit=600 "diff-$1.img" "$m"
	python3 - "$m" "$1" <<'PY'
import fcntl, os, struct, sys
m, what = sys.argv[1], sys.argv[2]
def fsync(p):
    fd = os.open(m + p, os.O_RDONLY); os.fsync(fd); os.close(fd)
if what == "small":
    os.chmod(m + "/dir1500/f00077", 0o600); fsync("/dir1500/f00077")
    open(m + "/dir0700/new", "w").write("n" * 20000); fsync("/dir0700/new"); fsync("/dir0700")
    os.rename(m + "/dir0300/f00001", m + "/dir1999/renamed"); fsync("/dir1999"); fsync("/dir0300")
else:
    for d in range(0, 2000, 2):
        os.chmod("%s/dir%04d/f%05d" % (m, d, d % 150), 0o640)
        os.chmod("%s/dir%04d/f%05d" % (m, d, (d + 7) % 150), 0o640)
    fsync("/dir0000/f00000")
fd = os.open(m, os.O_RDONLY)
fcntl.ioctl(fd, 0x8004587d, struct.pack("I", 2))   # EXT4_IOC_SHUTDOWN, NOLOGFLUSH
os.close(fd)
PY
	cp --sparse=always "diff-$1.img" "diff-$1.crash"
	umount "$m"
}

timeit() {	# LABEL COMMAND...: wall seconds and peak RSS
	label=$1
	shift
	/usr/bin/time -f "%e %M" "$@" > /dev/null 2> t.err || { echo "$label: failed: $(tail -1 t.err)"; return; }
	set -- $(tail -1 t.err)
	printf '  %-28s %6ss %7s KiB\n' "$label" "$1" "$2"
}

for w in small wide; do
	crash $w
	echo "$w: $("$R" list "diff-$w.crash" | awk 'NR > 1 { n++; b += $4 } END { print n " transactions, " b " logged blocks" }')"
	for t in $("$R" list --json "diff-$w.crash" | python3 -c 'import json, sys; print(" ".join(str(x["tid"]) for x in json.load(sys.stdin)["transactions"]))'); do
		echo " transaction $t: $("$R" diff --json "diff-$w.crash" "$t" | python3 -c '
import json, sys
d = json.load(sys.stdin)
s = {}
for f in d["files"]:
    s[f["path_source"]] = s.get(f["path_source"], 0) + 1
print("%d home blocks, %d files (paths: %s)" % (d["home_blocks"], len(d["files"]), s))')"
		sync
		echo 3 > /proc/sys/vm/drop_caches
		timeit "diff $t (cold cache)" "$R" diff "diff-$w.crash" "$t"
		timeit "diff $t (warm)" "$R" diff "diff-$w.crash" "$t"
		sync
		echo 3 > /proc/sys/vm/drop_caches
		timeit "show $t (cold cache)" "$R" show "diff-$w.crash" "$t"
		timeit "show $t (warm)" "$R" show "diff-$w.crash" "$t"
	done
	rm -f "diff-$w.img" "diff-$w.crash"
done
rm -f t.err
