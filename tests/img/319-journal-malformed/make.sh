# e2fsprogs' journal writer (debugfs jo/jw/jc): transaction 1 logs 3000-3002
# (journal blocks 1-5), 2 revokes 3001 (6-7), 3 logs 3010 (8-10), 4 logs 3000
# again (11-13); "plain" has no journal checksums, "csum" has v3 ones
export E2FSPROGS_FAKE_TIME=${E2FSPROGS_FAKE_TIME:-1700000000}
python3 -c 'import sys; sys.stdout.buffer.write(bytes(range(256)) * 12)' > blocks
for kind in plain csum; do
	mke2fs -q -F -t ext4 -b 1024 -U 6b33f3a4-0d5c-4f7e-9a51-1c0ffee00318 \
		-E hash_seed=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e318 $kind 8M
	c=; [ $kind = csum ] && c=-c
	debugfs -w $kind -f - > /dev/null 2>&1 <<EOS
jo $c
jw -b 3000,3001,3002 blocks
jc
jo $c
jw -r 3001
jw -b 3010 blocks
jc
jo $c
jw -b 3000 blocks
jc
EOS
done
mke2fs -q -F -t ext4 -b 1024 -U 6b33f3a4-0d5c-4f7e-9a51-1c0ffee00319 clean 8M
# journal block N of an image, as a byte offset
jbyte() { echo $(( $(debugfs -R "bmap <8> $2" $1 2>/dev/null) * 1024 )); }
# the revoke block (journal block 6) counting 65535 bytes: past the block
cp plain bad-rcount
printf '\000\000\377\377' | dd of=bad-rcount bs=1 seek=$(( $(jbyte plain 6) + 12 )) conv=notrunc 2>/dev/null
# transaction 3's descriptor (journal block 8) with one flipped byte in its
# unused space: its checksum fails, and transaction 3's commit is not older
cp csum bad-desc-csum
printf '\125' | dd of=bad-desc-csum bs=1 seek=$(( $(jbyte csum 8) + 1000 )) conv=notrunc 2>/dev/null
# the same descriptor overwritten with 0xff after its header
cp csum bad-desc
python3 -c '
import sys
f = open("bad-desc", "r+b"); f.seek(int(sys.argv[1]) + 12); f.write(b"\xff" * 1012)' $(jbyte csum 8)
# needs recovery, but the log's first block lost its magic: no transaction
cp plain empty-log
printf '\000\000\000\000' | dd of=empty-log bs=1 seek=$(jbyte plain 1) conv=notrunc 2>/dev/null
