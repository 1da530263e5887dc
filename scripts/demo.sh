#!/bin/sh
# make demo: build a sample tree, make an image of it with extkit-mkfs -d,
# and inspect it with extkit-debugfs; then write a journal that needs
# recovery (e2fsprogs' debugfs writes it) and inspect and replay it with
# extkit-replay.  All in a temp directory.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
dbg="$top/debugfs/extkit-debugfs"
mk="$top/mkfs/extkit-mkfs"
work=$(mktemp -d "${TMPDIR:-/tmp}/extkit-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/tree/docs" "$work/tree/bin"
printf 'hello, extkit\n' > "$work/tree/README"
seq 1 50000 > "$work/tree/docs/numbers.txt"
dd if=/dev/zero of="$work/tree/bin/sparse" bs=1k seek=4096 count=1 2>/dev/null
ln -s ../README "$work/tree/bin/readme-link"
ln "$work/tree/README" "$work/tree/docs/README.hardlink"
# SOURCE_DATE_EPOCH: the same image on every run (times clamped to it, the
# UUID and hash seed derived from it and the options)
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1700000000}
export E2FSPROGS_FAKE_TIME=$SOURCE_DATE_EPOCH
echo "\$ SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH extkit-mkfs -L demo -d tree demo.img 16M"
"$mk" -L demo -d "$work/tree" "$work/demo.img" 16M
echo

run() {
	echo "\$ extkit-debugfs -R '$1' demo.img"
	"$dbg" -R "$1" "$work/demo.img"
	echo
}
run "stats -h"
run "ls -l /"
run "stat /docs/numbers.txt"
run "frag -r /"
echo "\$ extkit-debugfs --json -R 'stat /README' demo.img"
"$dbg" --json -R "stat /README" "$work/demo.img"

# A journal that needs recovery, written with e2fsprogs' own journal writer
# (debugfs jo/jw/jc): three transactions, one revoking a block of another.
"$mk" -q -b 1024 -U 6f1c2b3a-0000-4000-8000-000000000003 "$work/crash.img" 8M
head -c 3072 /dev/urandom > "$work/blocks"
debugfs -w "$work/crash.img" -f - > /dev/null 2>&1 <<EOS
jo -c
jw -b 3000,3001,3002 $work/blocks
jc
jo -c
jw -r 3001
jw -b 3010 $work/blocks
jc
jo -c
jw -b 3020 $work/blocks
jc
EOS
rp="$top/replay/extkit-replay"
for req in "info" "list" "show crash.img 2" "apply --dry-run"; do
	set -- $req
	cmd=$1; shift
	echo "\$ extkit-replay $cmd crash.img $*" | sed 's/crash.img crash.img/crash.img/'
	if [ "$cmd" = show ]; then "$rp" show "$work/crash.img" 2; else "$rp" $cmd $* "$work/crash.img"; fi
	echo
done
echo "\$ extkit-replay apply --journal-only --output fixed.img crash.img"
"$rp" apply --journal-only --output "$work/fixed.img" "$work/crash.img"
echo "\$ e2fsck -fn fixed.img"
e2fsck -fn "$work/fixed.img" > /dev/null 2>&1 && echo "fixed.img is clean"
