export E2FSPROGS_FAKE_TIME=${E2FSPROGS_FAKE_TIME:-1700000000}
mke2fs -q -F -t ext4 -b 1024 -O fast_commit -J size=2 -U 6b33f3a4-0d5c-4f7e-9a51-1c0ffee00311 \
	-E hash_seed=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e311 image 8M
mke2fs -q -F -t ext4 -b 1024 -J size=2 -U 6b33f3a4-0d5c-4f7e-9a51-1c0ffee00312 plain 8M
python3 -c 'import sys; sys.stdout.buffer.write(bytes(range(256)) * 4)' > blocks
# one full transaction (tid 1): fast commits must then carry tid 2
debugfs -w image -f - > debugfs-w.log 2>&1 <<'EOS'
jo -c
jw -b 3000 blocks
jc
EOS
# the kernel sets the journal's fast_commit feature at mount; mke2fs sized
# the journal for 16 fast-commit blocks: the area is journal blocks 2049..2063
jsb=$(debugfs -R "bmap <8> 0" image 2>/dev/null)
fc0=$(debugfs -R "bmap <8> 2049" image 2>/dev/null)
fc14=$(debugfs -R "bmap <8> 2063" image 2>/dev/null)
[ $((fc14 - fc0)) -eq 14 ]
python3 - "$SRC/../../fuzz" "$jsb" "$fc0" <<'PY'
import shutil, struct, sys
sys.path.insert(0, sys.argv[1])
from fcarea import Area, head, add_range, del_range, dentry, inode, jsb_csum
jsb, fc0 = int(sys.argv[2]), int(sys.argv[3])
BS, NBLK = 1024, 15

def make(name, area, start=None):
    shutil.copyfile("image", name)
    with open(name, "r+b") as f:
        f.seek(jsb * BS)
        sb = bytearray(f.read(1024))
        struct.pack_into(">I", sb, 0x28, struct.unpack_from(">I", sb, 0x28)[0] | 0x20)
        struct.pack_into(">I", sb, 0x54, 16)
        if start is not None:
            struct.pack_into(">I", sb, 0x1C, start)
        struct.pack_into(">I", sb, 0xFC, jsb_csum(sb))
        f.seek(jsb * BS)
        f.write(sb)
        if area:
            f.seek(fc0 * BS)
            f.write(area.image(NBLK))

a = Area(BS)	# two good fast commits, then one whose tail fails its crc
head(a, 2)
dentry(a, 3, 2, 12, b"new-file")
inode(a, 12, 160, 5000)
add_range(a, 12, 0, 2, 3000)
a.tail(2)
del_range(a, 12, 1, 1)
dentry(a, 4, 2, 12, 'café "q"'.encode())
dentry(a, 5, 11, 13, b"\xff\xferaw")
add_range(a, 12, 5, 32768 + 3, 0x100000200)
a.tail(2)
inode(a, 12, 256, 7000)
a.tail(2, bad=True)
make("valid", a)

a = Area(BS)	# the first tail fails
head(a, 2)
inode(a, 12, 160, 1)
a.tail(2, bad=True)
make("badcrc", a)

a = Area(BS)	# left by transaction 1
head(a, 1)
inode(a, 12, 160, 1)
a.tail(1)
make("stale", a)

a = Area(BS)
head(a, 2, feat=1)
a.tail(2)
make("unsupp", a)

a = Area(BS)	# an unknown tag before any tail
head(a, 2)
a.rec(0x42, b"1234")
a.tail(2)
make("corrupt", a)

make("empty", None)
make("clean", a, start=0)
PY
