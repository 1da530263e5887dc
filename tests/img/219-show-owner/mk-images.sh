# mk-images.sh - sourced by script: the two images whose owners are known.
#
# image (ext4, 1 KiB blocks, 4 groups, flex_bg, resize_inode) made with
# mke2fs -d from a tree with small and multi-block files, a sparse file of
# six extents (its map needs a leaf block), a directory of several blocks
# and a file with an xattr too big for the inode (an xattr block).  Its
# journal, written with debugfs jo/jw/jc, holds
#   transaction 1: a block of every kind, each logged with its own
#                  content, and two free blocks (NEW and 30000)
#   transaction 2: what writing one more file changed (made on a copy,
#                  the blocks that differ): superblock, descriptors,
#                  bitmaps, an inode table block, the root directory and
#                  the new file's data block NEW, free until transaction 2
# image3 (ext3, no extents) has a 300-block file: single, double indirect.
# badsb (ext3) logs a superblock of zeros: the replayed image cannot be
# opened, so no owner can be named.
export E2FSPROGS_FAKE_TIME=${E2FSPROGS_FAKE_TIME:-1700000000}
mkdir -p src/dir src3
printf 'hello\n' > src/small
python3 - <<'EOF'
with open('src/file', 'wb') as f:
    f.write(bytes(range(256)) * 40)
with open('src/sparse', 'wb') as f:
    for i in range(6):
        f.seek(i * 32768)
        f.write(b'x' * 1024)
for i in range(60):
    with open('src/dir/entry-with-a-long-name-%03d' % i, 'w') as f:
        f.write(str(i))
with open('src3/big', 'wb') as f:
    f.write(b'3' * 300 * 1024)
EOF
touch -d @1700000000 src/* src/dir/* src src3/*
mke2fs -q -F -t ext4 -b 1024 -U 6b33f3a4-0d5c-4f7e-9a51-1c0ffee00219 \
	-E hash_seed=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e219 -d src image 32M
mke2fs -q -F -t ext3 -b 1024 -U 6b33f3a4-0d5c-4f7e-9a51-1c0ffee00319 \
	-E hash_seed=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e319 -d src3 image3 8M
head -c 700 /dev/zero | tr '\0' 'B' > v.block
debugfs -w image -f - > /dev/null 2>&1 <<EOF
write /dev/null attrs
ea_set -f v.block attrs user.big
EOF

q() { debugfs -R "$2" "$1" 2>/dev/null; }
# dumpe2fs: the first block of "$2 at N" in group $3
layout() { dumpe2fs "$1" 2>/dev/null | sed -n "/^Group $3:/,/^Group/s/.*$2 at \([0-9]*\).*/\1/p" | head -n 1; }
blocks() { for b in $(echo "$2" | tr ',' ' '); do dd if="$1" bs=1024 skip="$b" count=1 2>/dev/null; done; }

RSV=$(layout image 'Reserved GDT blocks' 0)
RSV1=$(layout image 'Reserved GDT blocks' 1)
BB0=$(layout image 'Block bitmap' 0)
IB1=$(layout image 'Inode bitmap' 1)
IT0=$(layout image 'Inode table' 0)
IT1=$(layout image 'Inode table' 1)
DIR1=$(q image 'bmap dir 1')
FILE3=$(q image 'bmap file 3')
SPARSE64=$(q image 'bmap sparse 64')
LEAF=$(q image 'stat sparse' | sed -n 's/.*(ETB0):\([0-9]*\).*/\1/p')
XATTR=$(q image 'stat attrs' | sed -n 's/.*File ACL: \([0-9]*\).*/\1/p')
JBLK=$(q image 'bmap <8> 4000')
LOSTF=$(q image 'bmap lost+found 0')

# the copy with one more file: the blocks that differ are transaction 2
cp image after
printf 'new file data\n' > v.new
debugfs -w after -R "write v.new new" > /dev/null 2>&1
T2=$(cmp -l image after | awk '{ b = int(($1 - 1) / 1024); if (b != last) printf "%s%d", n++ ? "," : "", b; last = b }')
NEW=$(q after 'bmap new 0')

T1=0,1,2,$RSV,8193,8194,$RSV1,$BB0,$IB1,$IT0,$IT1,$DIR1,$FILE3,$LEAF,$SPARSE64,$XATTR,$JBLK,$LOSTF,$NEW,30000
blocks image "$T1" > v.t1
blocks after "$T2" > v.t2
debugfs -w image -f - > debugfs-w.log 2>&1 <<EOF
jo -c
jw -b $T1 v.t1
jc
jo
jw -b $T2 v.t2
jc
EOF

# image3: the big file's first data block, its indirect blocks
IND=$(q image3 'stat big' | grep -o '(IND):[0-9]*' | head -n 1 | cut -d: -f2)
DIND=$(q image3 'stat big' | grep -o '(DIND):[0-9]*' | cut -d: -f2)
BIG0=$(q image3 'bmap big 0')
BIG299=$(q image3 'bmap big 299')
IND2=$(dd if=image3 bs=1024 skip="$DIND" count=1 2>/dev/null | od -An -tu4 -N4 | tr -d ' ')
T3=$BIG0,$IND,$DIND,$IND2,$BIG299
blocks image3 "$T3" > v.t3
debugfs -w image3 -f - >> debugfs-w.log 2>&1 <<EOF
jo
jw -b $T3 v.t3
jc
EOF

mke2fs -q -F -t ext3 -b 1024 -U 6b33f3a4-0d5c-4f7e-9a51-1c0ffee00419 badsb 4M
head -c 1024 /dev/zero > v.zero
debugfs -w badsb -f - >> debugfs-w.log 2>&1 <<EOF
jo
jw -b 1 v.zero
jc
EOF
rm -rf v.* src src3
