#!/bin/sh
# bench/debugfs.sh [NFILES]: extkit-debugfs against e2fsprogs debugfs on one
# image of NFILES (default 200000) small files, side by side in one run:
# `rdump / DIR` and `ncheck` of 1,000 inodes.  Prints wall-clock seconds,
# the ratio extkit/e2fsprogs (lower is better) and peak RSS.  Never part of
# `make check`: timings are not assertions.
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

measure() {	# label command...: prints "seconds rss_kb"
	sync
	echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || true
	/usr/bin/time -f '%e %M' -o "$work/time" "$@" >/dev/null 2>"$work/err" || {
		echo "failed: $*" >&2
		tail -3 "$work/err" >&2
	}
	cat "$work/time"
}

row() {	# name ek_cmd e2_cmd
	rm -rf "$work/out1" "$work/out2"
	mkdir -p "$work/out1" "$work/out2"
	a=$(measure "$ek" -R "$(echo "$2" | sed "s|OUT|$work/out1|")" "$work/img")
	b=$(measure debugfs -R "$(echo "$3" | sed "s|OUT|$work/out2|")" "$work/img")
	set -- "$1" $a $b
	printf '%-22s %8s %8s %7s %10s %10s\n' "$1" "$2" "$4" \
		"$(echo "$2 $4" | awk '{ printf "%.2f", ($2 > 0 ? $1 / $2 : 0) }')" "$3" "$5"
}

printf '%-22s %8s %8s %7s %10s %10s\n' "operation ($n files)" "extkit" "e2fs" "ratio" "rss_ek_kB" "rss_e2_kB"
row "rdump /" "rdump / OUT" "rdump / OUT"
row "ncheck 1000 inodes" "ncheck $inos" "ncheck $inos"
