export E2FSPROGS_FAKE_TIME=${E2FSPROGS_FAKE_TIME:-1700000000}
mke2fs -q -F -t ext4 -b 1024 -U 6b33f3a4-0d5c-4f7e-9a51-1c0ffee00218 \
	-E hash_seed=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e218 image 8M
# eight blocks, each one 16-byte line repeated (short hex dumps), and one
# starting with the jbd2 magic (the writer logs it escaped)
python3 - <<'PY'
line = lambda i: ("logdump block %d" % i).encode()[:15] + b"\n"
open("blocks", "wb").write(b"".join(line(i) * 64 for i in range(8)))
open("magic", "wb").write(bytes.fromhex("c03b3998") + (line(9) * 64)[4:])
PY
# inode 12 (in inode table block 100 at offset 768): two copies of its
# table block, before and after its size changes; group 0's block bitmap
# (block 66) with block 3000's bit clear, then set
debugfs -w -R "write blocks f" image
dd if=image of=it1 bs=1024 skip=100 count=1 2>/dev/null
debugfs -w -R "sif <12> size 5000" image
dd if=image of=it2 bs=1024 skip=100 count=1 2>/dev/null
dd if=image of=bm1 bs=1024 skip=66 count=1 2>/dev/null
python3 -c '
b = bytearray(open("bm1", "rb").read()); b[2999 // 8] |= 1 << (2999 % 8)
open("bm2", "wb").write(b)'
cat it1 bm1 > t1
head -c 1024 blocks > b0
cat b0 it2 magic > t2
# an older log, replayed (it stays in the ring past the new one's end) ...
debugfs -w image -f - <<'EOS'
jo -c
jw -b 3000,3001,3002,3003,3004,3005,3006,3007 blocks
jw -b 3010 blocks
jw -b 3011,3012 blocks
jw -r 3001
jw -b 3013 blocks
jc
EOS
debugfs -w -R jr image
cp image replayed
# ... then the live log: four committed transactions and a torn one
debugfs -w image -f - <<'EOS'
jo -c
jw -b 100,66 t1
jw -b 3000,100,3020 t2
jw -b 66 bm2
jw -r 3000
jw -c -b 3030 blocks
jc
EOS
# an external journal device: the filesystem names it, it lists the filesystem
mke2fs -q -F -O journal_dev -b 1024 -U 6b33f3a4-0d5c-4f7e-9a51-1c0ffee0021a jdev 2M
mke2fs -q -F -t ext4 -O ^has_journal -b 1024 -U 6b33f3a4-0d5c-4f7e-9a51-1c0ffee0021b ext 8M
debugfs -w -f - ext <<'EOS'
feature has_journal
ssv journal_uuid 6b33f3a4-0d5c-4f7e-9a51-1c0ffee0021a
EOS
python3 - <<'PY'
import uuid
with open("jdev", "r+b") as f:	# journal superblock in block 2: s_nr_users, s_users[0]
	f.seek(2048 + 0x40); f.write((1).to_bytes(4, "big"))
	f.seek(2048 + 0x100); f.write(uuid.UUID("6b33f3a4-0d5c-4f7e-9a51-1c0ffee0021b").bytes)
PY
debugfs -w ext -f - <<'EOS'
jo -c -f jdev
jw -b 3000,3001 blocks
jw -r 3001
jc
EOS
# a journal with a fast-commit area, and no journal at all
mke2fs -q -F -t ext4 -O fast_commit -b 1024 -U 6b33f3a4-0d5c-4f7e-9a51-1c0ffee0021c fc 8M
# mke2fs leaves the jbd2 fast-commit feature to the first mount: set it (this
# journal superblock has no checksum) so the last 16 blocks become the area
python3 - $(debugfs -R "bmap <8> 0" fc) <<'PY'
import sys
with open("fc", "r+b") as f:
	f.seek(int(sys.argv[1]) * 1024 + 0x28); f.write((0x20).to_bytes(4, "big"))
PY
mke2fs -q -F -t ext2 -b 1024 -U 6b33f3a4-0d5c-4f7e-9a51-1c0ffee0021d nojournal 2M
