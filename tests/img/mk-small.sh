# mk-small.sh — sourced by golden tests' make.sh: builds $T/image, a small
# deterministic ext4 (or $MK_TYPE with $MK_OPTS) image written with e2fsprogs
# debugfs -w.  E2FSPROGS_FAKE_TIME is set by run-img.sh.
: "${MK_TYPE:=ext4}"
: "${MK_OPTS:=}"
: "${MK_SIZE:=8M}"
export E2FSPROGS_FAKE_TIME=${E2FSPROGS_FAKE_TIME:-1700000000}

printf 'hello, world\n' > hello.src
# 40 KiB data, 24 KiB hole, 8 KiB data, 100 KiB hole, 3 KiB data
python3 -c '
import random, sys
r = random.Random(7)
with open("multi.src", "wb") as f:
    for off, n in ((0, 40960), (65536, 8192), (176128, 3072)):
        f.seek(off)
        f.write(r.randbytes(n))
'
yes 'a line of text' | head -c 5000 > text.src

# shellcheck disable=SC2086
mke2fs -q -F -t "$MK_TYPE" $MK_OPTS -N 128 \
	-U 6b33f3a4-0d5c-4f7e-9a51-1c0ffee00010 \
	-E hash_seed=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0 \
	image "$MK_SIZE"

debugfs -w image -f - >debugfs-w.log 2>&1 <<'EOF'
write hello.src hello
write multi.src multi
write text.src text
mkdir d
mkdir d/sub
write /dev/null d/empty
symlink d/fast ../hello
symlink d/slow /a/long/target/path/that/does/not/fit/into/the/inode/block/array/at/all
cd d
mknod fifo p
mknod chr c 1 3
mknod blk b 7 0
cd /
ln text d/text-link
sif text links_count 2
sif hello uid 1234
sif hello gid 5678
sif hello mode 0104755
sif hello mtime 20231114221320
sif hello mtime_extra 0x1d6f3454
ea_set hello user.color red
ea_set hello trusted.note "x y z"
sif d/fast uid 42
EOF
rm -f hello.src multi.src text.src
