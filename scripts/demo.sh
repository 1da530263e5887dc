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
# That writer stores the commit time with a 32-bit store into the 64-bit
# h_commit_sec, so its commits read as times centuries ahead (extkit shows
# them as impossible).  Put each time where the kernel keeps it and seal
# the commit block's checksum again, so the demo journal has real times.
python3 - "$work/crash.img" $(for b in $(seq 0 16); do "$dbg" -R "bmap <8> $b" "$work/crash.img"; done) <<'EOPY'
import struct, sys
def crc32c(crc, data):		# Castagnoli, no final inversion (as jbd2 seeds it)
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 & -(crc & 1))
    return crc
img, blocks = sys.argv[1], [int(b) for b in sys.argv[2:]]
bs = 1024
with open(img, "r+b") as f:
    f.seek(blocks[0] * bs)
    jsb = f.read(bs)
    seed = crc32c(0xFFFFFFFF, jsb[0x30:0x40])
    v23 = struct.unpack(">I", jsb[0x28:0x2C])[0] & 0x18
    for pblk in blocks[1:]:
        f.seek(pblk * bs)
        blk = bytearray(f.read(bs))
        magic, btype = struct.unpack(">II", blk[0:8])
        sec = struct.unpack(">Q", blk[0x30:0x38])[0]
        if magic != 0xC03B3998 or btype != 2 or sec & 0xFFFFFFFF or not sec:
            continue
        blk[0x30:0x38] = struct.pack(">Q", sec >> 32)
        if v23:
            blk[0x10:0x14] = bytes(4)
            blk[0x10:0x14] = struct.pack(">I", crc32c(seed, blk))
        f.seek(pblk * bs)
        f.write(blk)
EOPY
rp="$top/replay/extkit-replay"
for req in "info" "list" "history" "show crash.img 2" "apply --dry-run"; do
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

# extkit-fsck: the crash image checked as its recovery would leave it
# (nothing written), then a copy with damage made by e2fsprogs' debugfs
fs="$top/fsck/extkit-fsck"
echo
echo "\$ extkit-fsck -fn crash.img"
"$fs" -fn "$work/crash.img" || true
cp "$work/demo.img" "$work/damaged.img"
debugfs -w -R "sif /README links_count 3" "$work/damaged.img" > /dev/null 2>&1
debugfs -w -R "unlink /docs/numbers.txt" "$work/damaged.img" > /dev/null 2>&1
echo
echo "\$ debugfs -w -R 'sif /README links_count 3' damaged.img; debugfs -w -R 'unlink /docs/numbers.txt' damaged.img"
echo "\$ extkit-fsck -fn damaged.img"
rc=0; "$fs" -fn "$work/damaged.img" || rc=$?
echo "(exit $rc: errors left uncorrected)"
echo "\$ extkit-fsck -fn --json damaged.img | jq '.findings[] | {id, inode}'"
"$fs" -fn --json "$work/damaged.img" | python3 -c '
import json, sys
for f in json.load(sys.stdin)["findings"]:
    print(json.dumps({"id": f["id"], "inode": f["inode"]}))'
