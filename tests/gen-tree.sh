#!/bin/sh
# gen-tree.sh DIR [entries]
#
# Build a deterministic source tree for image tests (run as root: it uses
# chown, mknod and trusted./security. xattrs).  DIR must not exist or be empty.
# `entries` is the number of names in the big directory big/ (default 10000;
# the sanitizer run uses fewer).  Same arguments give the same tree: contents
# come from a seeded generator and every timestamp is pinned.
#
# What is in it:
#   empty, small files (1..5000 bytes), a sparse file with holes, multi-extent
#   large files (data chunks separated by holes, a few MB in all), hard links
#   (same dir and across dirs), a fast symlink (<60 bytes) and a block symlink,
#   fifo, char and block devices, a unix socket (if python3 can bind one),
#   user./trusted./security. xattrs (small, and one large enough to need an
#   xattr block), a POSIX access ACL and a default ACL, odd owners and modes
#   (setuid, setgid, sticky, 0000), timestamps with nanoseconds, nested dirs,
#   and a big directory (hash-indexed once written by mke2fs -d).
set -eu

dir=${1:?usage: gen-tree.sh DIR [entries]}
entries=${2:-10000}

mkdir -p "$dir"
cd "$dir"
if [ -n "$(ls -A .)" ]; then
	echo "gen-tree.sh: '$dir' is not empty" >&2
	exit 1
fi

# deterministic bytes: gen SEED SIZE > file
gen() {
	python3 -c '
import sys, random
r = random.Random(int(sys.argv[1]))
n = int(sys.argv[2])
sys.stdout.buffer.write(bytes(r.getrandbits(8) for _ in range(n)) if n < 65536
                        else r.randbytes(n))
' "$1" "$2"
}

# data chunk at a byte offset of a file, leaving everything between chunks a hole
chunk() { # file seed offset_kib size_kib
	gen "$2" $(($4 * 1024)) | dd of="$1" bs=1024 seek="$3" conv=notrunc status=none
}

: > empty
printf 'hello, world\n' > small
gen 1 1 > one-byte
gen 2 4095 > almost-4k
gen 3 4096 > exactly-4k
gen 4 5000 > five-k
printf 'line with no newline' > no-newline

# sparse: holes at the start, the middle and the end
truncate -s 2M sparse
chunk sparse 10 64 8
chunk sparse 11 1024 4
truncate -s 3M sparse

# multi-extent: many chunks separated by holes (one extent each at least)
i=0
: > multi
while [ $i -lt 24 ]; do
	chunk multi $((100 + i)) $((i * 160)) 96
	i=$((i + 1))
done
# a dense file of 2 MiB followed by a tail
gen 200 2097152 > dense
gen 201 777 >> dense

# nested directories
mkdir -p a/b/c/d/e
printf 'deep\n' > a/b/c/d/e/deep.txt
gen 300 3000 > a/b/file
mkdir -p "dir with spaces" 'quote"dir' 'utf8-é-ü'
printf 'x\n' > "dir with spaces/file name"
printf 'y\n' > 'quote"dir/it'"'"'s'
printf 'z\n' > 'utf8-é-ü/naïve'

# hard links: same directory, across directories, and a 3-way link
gen 400 1234 > linked
ln linked linked-again
ln linked a/b/c/linked-deep
gen 401 100 > three
ln three a/three-2
ln three "dir with spaces/three-3"

# symlinks: fast (<60 bytes), block (long target), dangling, to a directory
ln -s small fastlink
ln -s "$(printf 'long/%.0s' $(seq 1 40))target" slowlink
ln -s does/not/exist dangling
ln -s a/b dirlink
ln -s "$(printf 'x%.0s' $(seq 1 59))" link59
ln -s "$(printf 'y%.0s' $(seq 1 60))" link60

# special files
mkdir dev
mkfifo dev/fifo
mknod dev/null-ish c 1 3
mknod dev/loop-ish b 7 0
mknod dev/bigdev c 259 70000
python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
' dev/sock 2>/dev/null || true

# xattrs
mkdir xattr
printf 'x\n' > xattr/user
setfattr -n user.color -v red xattr/user
setfattr -n user.empty xattr/user
setfattr -n user.bin -v 0x00ff10ab xattr/user
printf 'x\n' > xattr/trusted
setfattr -n trusted.overlay.opaque -v y xattr/trusted
setfattr -n security.test -v sec-value xattr/trusted
printf 'x\n' > xattr/big
setfattr -n user.big -v "$(printf 'v%.0s' $(seq 1 500))" xattr/big
setfattr -n user.big2 -v "$(printf 'w%.0s' $(seq 1 200))" xattr/big
mkdir xattr/dir
setfattr -n user.on-dir -v yes xattr/dir
ln -s small xattr/link

# ACLs
mkdir acl
printf 'x\n' > acl/file
setfacl -m u:1234:rw,g:5678:r,m:rw acl/file
mkdir acl/dir
setfacl -m u:1234:rwx acl/dir
setfacl -d -m u:1234:rx,g::r acl/dir

# odd owners and modes
mkdir perms
for m in 4755 2755 1777 0000 0600 0444 6711 0777; do
	printf '%s\n' "$m" > perms/m$m
	chmod "$m" perms/m$m
done
mkdir perms/sticky-dir
chmod 1777 perms/sticky-dir
chown 1234:5678 perms/m4755 perms/m0600
chown 65534:65534 perms/m0444
chown 4000000000:3000000000 perms/m0777
chown -h 1234:5678 fastlink
mkdir perms/owned-dir
chown 1234:5678 perms/owned-dir
chmod 0750 perms/owned-dir

# the big directory: empty files with names of varying length
mkdir big
python3 -c '
import os, sys
n = int(sys.argv[1])
for i in range(n):
    name = "entry-%05d-%s" % (i, "n" * (i % 37))
    open(os.path.join("big", name), "w").close()
' "$entries"
printf 'last\n' > big/zz-not-empty

# timestamps, with nanoseconds, last (after every change above)
printf 'future\n' > future
printf 'past\n' > past
python3 -c '
import os
paths = []
for root, dirs, files in os.walk("."):
    for n in dirs + files:
        paths.append(os.path.join(root, n))
paths.sort()
t = 1700000000
for p in paths:
    t += 1
    ns = t * 10**9 + 123456789
    os.utime(p, ns=(ns, ns), follow_symlinks=False)
special = {
    "./small": 1600000000 * 10**9 + 1,
    "./dense": 1500000000 * 10**9 + 999999999,
    "./one-byte": 500000000,
    "./future": (2**32 + 5) * 10**9 + 42,
    "./past": -100000 * 10**9,
    ".": 1700000000 * 10**9,
}
for p, ns in special.items():
    os.utime(p, ns=(ns, ns), follow_symlinks=False)
'
