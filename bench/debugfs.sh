#!/bin/sh
# bench/debugfs.sh [NFILES]: extkit-debugfs against e2fsprogs debugfs on one
# image of NFILES (default 200000) small files, side by side in one run:
# `rdump / DIR` and `ncheck` of 1,000 inodes.  Prints the best wall-clock
# seconds of 3 runs each (cold page cache when we may drop it), the ratio
# extkit/e2fsprogs (lower is better) and peak RSS.  rdump writes to tmpfs
# (/dev/shm) when there is one, so the host filesystem's file creation does
# not drown the difference.  Never part of `make check`: timings are not
# assertions.
set -eu
n=${1:-200000}
top=$(cd "$(dirname "$0")/.." && pwd)
ek="$top/debugfs/extkit-debugfs"
work=$(mktemp -d "${TMPDIR:-/tmp}/extkit-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
[ -x "$ek" ] || make -C "$top" >/dev/null

echo "generating $n files..."
python3 - "$work/tree" "$n" <<'PY'
import os, sys, random
root, n = sys.argv[1], int(sys.argv[2])
random.seed(1)
per_dir = 500
for i in range(n):
    d = os.path.join(root, "d%03d" % (i // per_dir // 100), "e%03d" % (i // per_dir % 100))
    if i % per_dir == 0:
        os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%06d" % i), "wb") as f:
        f.write(os.urandom(random.choice((100, 900, 3000, 9000))))
PY
size=$(du -sk "$work/tree" | cut -f1)
mke2fs -q -F -t ext4 -N $((n + n / 4 + 1000)) -d "$work/tree" "$work/img" $((size * 2 + 262144))k
rm -rf "$work/tree"
inos=$(seq 20 $(( (n - 20) / 1000 )) $n | head -1000 | tr '\n' ' ')

out=$work
[ -d /dev/shm ] && [ -w /dev/shm ] && out=$(mktemp -d /dev/shm/extkit-bench.XXXXXX)
trap 'rm -rf "$work" "$out"' EXIT

measure() {	# command...: prints "seconds rss_kb", the best of 3 runs
	best=
	for run in 1 2 3; do
		rm -rf "$out/out1" "$out/out2"
		mkdir -p "$out/out1" "$out/out2"
		sync
		echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || true
		/usr/bin/time -f '%e %M' -o "$work/time" "$@" >/dev/null 2>"$work/err" || {
			echo "failed: $*" >&2
			tail -3 "$work/err" >&2
		}
		if [ -z "$best" ] || awk -v a="$(cut -d' ' -f1 "$work/time")" -v b="${best% *}" 'BEGIN { exit !(a < b) }'; then
			best=$(cat "$work/time")
		fi
	done
	echo "$best"
}

row() {	# name ek_cmd e2_cmd
	a=$(measure "$ek" -R "$(echo "$2" | sed "s|OUT|$out/out1|")" "$work/img")
	b=$(measure debugfs -R "$(echo "$3" | sed "s|OUT|$out/out2|")" "$work/img")
	set -- "$1" $a $b
	printf '%-22s %8s %8s %7s %10s %10s\n' "$1" "$2" "$4" \
		"$(echo "$2 $4" | awk '{ printf "%.2f", ($2 > 0 ? $1 / $2 : 0) }')" "$3" "$5"
}

printf '%-22s %8s %8s %7s %10s %10s\n' "operation ($n files)" "extkit" "e2fs" "ratio" "rss_ek_kB" "rss_e2_kB"
row "rdump /" "rdump / OUT" "rdump / OUT"
row "ncheck 1000 inodes" "ncheck $inos" "ncheck $inos"
