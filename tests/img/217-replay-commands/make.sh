export E2FSPROGS_FAKE_TIME=${E2FSPROGS_FAKE_TIME:-1700000000}
mke2fs -q -F -t ext4 -b 1024 -U 6b33f3a4-0d5c-4f7e-9a51-1c0ffee00040 \
	-E hash_seed=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0 image 8M
python3 -c 'import sys; sys.stdout.buffer.write(bytes(range(256)) * 12)' > blocks
# transaction 1 logs 3000-3002, 2 revokes 3001, 3 logs 3010, 4 logs 3000 again
debugfs -w image -f - > debugfs-w.log 2>&1 <<'EOS'
jo -c
jw -b 3000,3001,3002 blocks
jc
jo -c
jw -r 3001
jw -b 3010 blocks
jc
jo -c
jw -b 3000 blocks
jc
EOS
