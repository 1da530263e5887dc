#!/bin/sh
# bench/freefrag.sh [SIZE]: peak RSS and wall time of `extkit-debugfs -R
# freefrag` against e2freefrag on a sparse image of SIZE (default 8T) made
# by mke2fs (about 1.2 GiB of real disk at 8 TiB).  freefrag reads one
# group's bitmap at a time, so its peak RSS stays near the group
# descriptors' size (8 TiB: about 10 MB, where caching every bitmap took
# 273 MB).  Never part of `make check`: measurements are not assertions.
set -eu
size=${1:-8T}
top=$(cd "$(dirname "$0")/.." && pwd)
ek="$top/debugfs/extkit-debugfs"
[ -x "$ek" ] || make -C "$top" >/dev/null
work=$(mktemp -d "${TMPDIR:-/tmp}/extkit-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
truncate -s "$size" "$work/img"
mke2fs -q -F -t ext4 -E lazy_itable_init=1,nodiscard "$work/img"
for tool in "$ek -R freefrag" e2freefrag; do
	/usr/bin/time -f '%e s %M kB' -o "$work/t" $tool "$work/img" >/dev/null
	printf '%-34s %s\n' "${tool##*/}" "$(cat "$work/t")"
done
