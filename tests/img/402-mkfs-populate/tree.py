#!/usr/bin/env python3
"""Source tree and comparisons for 402-mkfs-populate.

  tree.py build DIR            make the source tree (root: owners, devices,
                               trusted./security. xattrs too)
  tree.py manifest DIR OUT     what extkit-mkfs -d should copy, as JSON
  tree.py kernel MANIFEST MNT [--bs N] [--i128] [--epoch S] [--whole]
                               compare a kernel mount of the image: contents,
                               data/hole maps, modes, owners, times with ns,
                               link counts, hard-link groups, symlink
                               targets, devices, xattrs (ACLs included)
  tree.py rdump MANIFEST OUT [--i128] [--epoch S] [--skip DIR] [--inline] [--whole]
                               compare an e2fsprogs `rdump` of the image:
                               contents, types, permission bits, owners,
                               mtime seconds and symlink targets (rdump skips
                               specials, setuid/setgid/sticky, symlink owners;
                               --inline: files under 4 KiB not compared, as
                               debugfs 1.47.0 pads inline data)
  tree.py bmap MANIFEST IMAGE PATH BS
                               the file PATH read block by block through
                               e2fsprogs debugfs `bmap` (for a file too big
                               to rdump): data where the source has data,
                               holes where it has holes
Exit 0 same, 1 different (each difference on a line), 2 usage.

Times: the source's atimes are set in the future on everything mkfs reads
(files with data, directories, symlinks), so relatime never moves them
between the manifest and mkfs's lstat.
"""
import hashlib
import json
import os
import socket
import stat
import subprocess
import sys
import time

CHUNK = 4096
MIB = 1 << 20


def data_map(fd, size):
    """[(start, end)] byte runs holding data, by SEEK_DATA/SEEK_HOLE"""
    runs, pos = [], 0
    while pos < size:
        try:
            d = os.lseek(fd, pos, os.SEEK_DATA)
        except OSError:
            break
        h = min(os.lseek(fd, d, os.SEEK_HOLE), size)
        if h <= d:
            break
        runs.append([d, h])
        pos = h
    return runs


def nonzero_map(fd, size, runs):
    """the data runs without their 1 KiB blocks of zeros, which mkfs -d
    (as mke2fs -d) leaves as holes: rounded out to a larger block size,
    the blocks of that size that hold a byte other than zero"""
    out = []
    for start, end in runs:
        pos = start - start % 1024
        while pos < end:
            buf = os.pread(fd, min(MIB, end - pos), pos)
            if not buf:
                break
            for i in range(0, len(buf), 1024):
                if buf[i:i + 1024].count(0) == len(buf[i:i + 1024]):
                    continue
                s, t = pos + i, min(size, pos + i + 1024)
                if out and out[-1][1] >= s:
                    out[-1][1] = t
                else:
                    out.append([s, t])
            pos += len(buf)
    return out


def digest(fd, size, runs):
    """sha256 of the contents, blind to how zeros are stored: only the
    non-zero 4 KiB chunks (with their offsets) and the size count"""
    h = hashlib.sha256(b"%d;" % size)
    zero = bytes(CHUNK)
    done = 0	# whole chunks, each once, wherever the runs start and end
    for start, end in runs:
        pos = max(start - start % CHUNK, done)
        end = min(size, end + (-end) % CHUNK)
        while pos < end:
            n = min(MIB, end - pos)
            buf = os.pread(fd, n, pos)
            for i in range(0, len(buf), CHUNK):
                c = buf[i:i + CHUNK]
                if c != zero[:len(c)]:
                    h.update(b"%d:" % (pos + i))
                    h.update(c)
            if not buf:
                break
            pos += len(buf)
        done = max(done, pos)
    return h.hexdigest()


def xattrs(path):
    try:
        names = os.listxattr(path, follow_symlinks=False)
    except OSError:
        return {}
    return {n: os.getxattr(path, n, follow_symlinks=False).hex() for n in sorted(names)}


def scan(top, skip_top=(), with_xattrs=True):
    """{relative path: attributes} of everything under top (top excluded)"""
    out = {}

    def walk(rel):
        d = os.path.join(top, rel) if rel else top
        for name in sorted(os.listdir(d)):
            r = os.path.join(rel, name) if rel else name
            if not rel and name in skip_top:
                continue
            p = os.path.join(top, r)
            st = os.lstat(p)
            e = {
                "type": stat.S_IFMT(st.st_mode), "mode": stat.S_IMODE(st.st_mode),
                "uid": st.st_uid, "gid": st.st_gid, "nlink": st.st_nlink,
                "atime": st.st_atime_ns, "mtime": st.st_mtime_ns, "ctime": st.st_ctime_ns,
                "key": "%d:%d" % (st.st_dev, st.st_ino),
            }
            if stat.S_ISREG(st.st_mode):
                e["size"] = st.st_size
                fd = os.open(p, os.O_RDONLY | os.O_NOFOLLOW)
                try:
                    e["alloc"] = data_map(fd, st.st_size)
                    e["digest"] = digest(fd, st.st_size, e["alloc"])
                    e["map"] = nonzero_map(fd, st.st_size, e["alloc"])
                finally:
                    os.close(fd)
            elif stat.S_ISLNK(st.st_mode):
                e["target"] = os.fsencode(os.readlink(p)).hex()
            elif stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
                e["rdev"] = [os.major(st.st_rdev), os.minor(st.st_rdev)]
            if with_xattrs:
                e["xattrs"] = xattrs(p)
            out[r] = e
            if stat.S_ISDIR(st.st_mode):
                walk(r)

    walk("")
    if with_xattrs:
        out["."] = {"type": stat.S_IFDIR, "xattrs": xattrs(top)}	# the root: xattrs only
    return out


def expected_links(m):
    """names per source inode, and 2 + subdirectories for directories"""
    names = {}
    for r, e in m.items():
        if e["type"] != stat.S_IFDIR:
            names.setdefault(e["key"], []).append(r)
    subdirs = {}
    for r, e in m.items():
        if e["type"] == stat.S_IFDIR:
            d = os.path.dirname(r)
            subdirs[d] = subdirs.get(d, 0) + 1
    for r, e in m.items():
        if e["type"] == stat.S_IFDIR:
            e["want_nlink"] = 2 + subdirs.get(r, 0)
        else:
            e["want_nlink"] = len(names[e["key"]])
    return names


# ---- building the source tree ------------------------------------------------------------------

def build(top):
    root = os.geteuid() == 0
    os.makedirs(top)
    os.chdir(top)
    rnd = __import__("random").Random(402)
    now = int(time.time())
    future = now + 86400 * 3		# atimes of what mkfs reads (see the header)
    read_by_mkfs = []

    def put(path, data, mode=None):
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        if mode is not None:
            os.chmod(path, mode)
        if data:
            read_by_mkfs.append(path)

    def at(path, off, data):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
        os.pwrite(fd, data, off)
        os.close(fd)

    # regular files
    put("f/empty", b"")
    put("f/small", b"hello, world\n")
    put("f/one-byte", b"x")
    put("f/exactly-4k", rnd.randbytes(4096))
    put("f/random-5m", rnd.randbytes(5 * MIB + 123))	# ext3 4 KiB: past DIND's start
    put("f/random-1m", rnd.randbytes(MIB))
    # sparse: holes at the start, in the middle and at the end, an unaligned island
    put("f/sparse", b"")
    at("f/sparse", 256 * 1024, rnd.randbytes(8192))
    at("f/sparse", MIB + 10000, rnd.randbytes(100))
    at("f/sparse", 2 * MIB, rnd.randbytes(3 * 4096))
    os.truncate("f/sparse", 3 * MIB + 17)
    read_by_mkfs.append("f/sparse")
    # data at the very end, no hole there; a hole-only file
    put("f/sparse-tail", b"")
    at("f/sparse-tail", 5 * MIB - 5, b"tail!")
    read_by_mkfs.append("f/sparse-tail")
    put("f/all-hole", b"")
    os.truncate("f/all-hole", 7 * MIB + 1)
    # blocks of zeros written as data: holes in the image (as mke2fs -d);
    # zeros between data
    put("f/zeros", bytes(64 * 1024))
    put("f/zeros-mixed", rnd.randbytes(4096) + bytes(5 * 4096) + rnd.randbytes(100))
    # over 4 GiB, sparse, a few data blocks near the end (TIND on ext3 4 KiB)
    huge = 4608 * MIB + 100
    put("huge/big-sparse", b"")
    at("huge/big-sparse", 4096 * MIB, rnd.randbytes(4096))
    at("huge/big-sparse", 4608 * MIB - 3 * 4096, rnd.randbytes(2 * 4096))
    at("huge/big-sparse", huge - 100, rnd.randbytes(100))
    read_by_mkfs.append("huge/big-sparse")

    # nested directories; a lost+found that is not at the top is copied
    put("d/a/b/c/d/e/deep", b"deep\n")
    put("d/a/b/file", rnd.randbytes(3000))
    os.makedirs("d/a/empty-dir")
    put("d/lost+found/kept", b"not the top lost+found\n")
    put("d/odd names/with space", b"s\n")
    put("d/odd names/utf8-\u00e9\u00fc", b"u\n")
    put("d/odd names/new\nline", b"n\n")
    put(os.fsdecode(b"d/odd names/latin1-\xe9"), b"l\n")
    # the source's lost+found at the top is left out
    put("lost+found/dropped", b"left out\n")

    # an htree directory, and 255-byte names
    os.makedirs("big")
    for i in range(3000):
        name = "big/entry-%05d-%s" % (i, "n" * (i % 41))
        if i % 500 == 0:
            put(name, b"%d\n" % i)
        else:
            open(name, "wb").close()
    os.makedirs("long")
    for i in range(24):
        put("long/" + "%03d" % i + "L" * 252, b"%d\n" % i if i % 2 else b"")
    os.makedirs("long/" + "D" * 255)
    put("long/" + "D" * 255 + "/" + "E" * 255, b"deep long\n")
    os.symlink("x" * 200, "long/" + "S" * 255)

    # symlinks: fast (< 60 bytes), 59/60 at the edge, long, very long, dangling, to a dir
    os.makedirs("sym")
    os.symlink("../f/small", "sym/fast")
    os.symlink("y" * 59, "sym/len59")
    os.symlink("z" * 60, "sym/len60")
    os.symlink("/".join(["long-component"] * 12), "sym/long")
    os.symlink("w" * 1000, "sym/len1000")		# fits a 1 KiB block
    os.symlink("does/not/exist", "sym/dangling")
    os.symlink("../d/a", "sym/to-dir")

    # hard links: same directory, across directories, three names, a symlink, a fifo
    os.makedirs("hl/sub")
    put("hl/two", rnd.randbytes(1234))
    os.link("hl/two", "hl/two-again")
    put("hl/three", rnd.randbytes(77))
    os.link("hl/three", "hl/sub/three-2")
    os.link("hl/three", "d/a/three-3")
    os.symlink("a-hard-linked-symlink", "hl/sym")
    os.link("hl/sym", "hl/sub/sym-2", follow_symlinks=False)
    os.mkfifo("hl/fifo")
    os.link("hl/fifo", "hl/sub/fifo-2")
    put("hl/empty", b"")
    os.link("hl/empty", "hl/sub/empty-2")

    # special files
    os.makedirs("dev")
    os.mkfifo("dev/fifo")
    s = socket.socket(socket.AF_UNIX)
    s.bind("dev/sock")
    s.close()
    if root:
        os.mknod("dev/null", stat.S_IFCHR | 0o666, os.makedev(1, 3))
        os.mknod("dev/loop0", stat.S_IFBLK | 0o660, os.makedev(7, 0))
        os.mknod("dev/big-minor", stat.S_IFCHR | 0o600, os.makedev(259, 70000))
        os.mknod("dev/big-major", stat.S_IFBLK | 0o600, os.makedev(300, 5))
        os.mknod("dev/max", stat.S_IFCHR | 0o600, os.makedev(4095, 1048575))

    # modes and owners
    os.makedirs("perm")
    for m in (0o4755, 0o2755, 0o6711, 0o1755, 0o0600, 0o0444, 0o0777) + ((0,) if root else ()):
        p = "perm/m%04o" % m
        put(p, b"%o\n" % m)
        os.chmod(p, m)
    os.makedirs("perm/sticky-dir")
    os.chmod("perm/sticky-dir", 0o1777)
    os.makedirs("perm/setgid-dir")
    os.chmod("perm/setgid-dir", 0o2750)
    os.makedirs("perm/ro-dir")
    put("perm/ro-dir/f", b"ro\n")
    if root:
        os.chown("perm/m0600", 1234, 5678)
        os.chown("perm/m0444", 65534, 65534)
        os.chown("perm/m0777", 4000000000, 3000000000)	# needs the _high halves
        os.chown("perm/setgid-dir", 1234, 5678)
        os.chown("sym/fast", 1234, 5678, follow_symlinks=False)
        os.chown("dev/fifo", 42, 43)
        # chown clears setuid/setgid: set the modes again
        os.chown("perm/m4755", 1000, 1000)
        os.chmod("perm/m4755", 0o4755)
    os.chmod("perm/ro-dir", 0o555)

    # xattrs: in the inode, spilling into a block, empty, binary, on dirs
    os.makedirs("xa/dir")
    put("xa/small", b"x\n")
    os.setxattr("xa/small", "user.color", b"red")
    os.setxattr("xa/small", "user.empty", b"")
    os.setxattr("xa/small", "user.bin", bytes([0, 255, 16, 171]))
    put("xa/big", b"x\n")
    os.setxattr("xa/big", "user.small", b"s")
    os.setxattr("xa/big", "user.big", b"v" * 400)
    put("xa/many", b"")
    for i in range(20):
        os.setxattr("xa/many", "user.attr-%02d" % i, b"%02d" % i * 10)
    put("xa/same-as-many", b"")
    for i in range(20):
        os.setxattr("xa/same-as-many", "user.attr-%02d" % i, b"%02d" % i * 10)
    put("xa/max-in-block", b"")
    os.setxattr("xa/max-in-block", "user.m", b"M" * 900)	# fits a 1 KiB block
    os.setxattr("xa/dir", "user.on-dir", b"yes")
    if root:
        put("xa/trusted", b"t\n")
        os.setxattr("xa/trusted", "trusted.overlay.opaque", b"y")
        os.setxattr("xa/trusted", "security.test", b"sec-value")
        os.setxattr("sym/fast", "trusted.on-symlink", b"l", follow_symlinks=False)
        os.setxattr("dev/fifo", "trusted.on-fifo", b"f")
        if os.path.exists("dev/null"):
            os.setxattr("dev/null", "trusted.on-dev", b"d")

    # POSIX ACLs (setfacl: named users and groups, a default ACL on a directory)
    os.makedirs("acl/dir/sub")
    put("acl/file", b"acl\n")
    subprocess.run(["setfacl", "-m", "u:1234:rw,g:5678:r,u:42:r,m:rw", "acl/file"], check=True)
    subprocess.run(["setfacl", "-m", "u:1234:rwx", "acl/dir"], check=True)
    subprocess.run(["setfacl", "-d", "-m", "u:1234:rx,g:5678:r,g::r", "acl/dir"], check=True)
    put("acl/dir/inherits", b"i\n")		# takes the default ACL

    # times with nanoseconds, last; mtimes before 1970, after 2038 and after 2106
    special = {
        "f/small": 1600000000 * 10**9 + 1,
        "f/one-byte": 500000000,
        "f/exactly-4k": -100000 * 10**9 + 999999999,
        "f/empty": (2**31 + 7) * 10**9 + 5,
        "f/zeros": (2**32 + 5) * 10**9 + 42,
        "d/a/b/file": 1800000000 * 10**9 + 999999999,
    }
    paths = []
    for rootdir, dirs, files in os.walk("."):
        for n in dirs + files:
            paths.append(os.path.join(rootdir, n)[2:])
    paths.sort()
    read = {os.lstat(p).st_ino for p in read_by_mkfs}	# by inode: hard links too
    for i, p in enumerate(paths):
        mt = special.get(p, (1700000000 + i) * 10**9 + (i * 7919) % 10**9)
        st = os.lstat(p)
        if st.st_ino in read or stat.S_ISDIR(st.st_mode) or stat.S_ISLNK(st.st_mode):
            # past mtime too: relatime moves an atime that is not after it
            at_ = (max(future, mt // 10**9) + 1 + i) * 10**9 + (i * 104729) % 10**9
        else:
            at_ = (1650000000 + i) * 10**9 + (i * 13) % 10**9
        os.utime(p, ns=(at_, mt), follow_symlinks=False)
    # the root's xattrs are copied (its mode, owner and times are mkfs's)
    os.setxattr(".", "user.on-root", b"root")
    subprocess.run(["setfacl", "-m", "u:1234:rwx", "-m", "d:u:1234:rx", "."], check=True)
    os.utime(".", ns=(future * 10**9, 1700000000 * 10**9))


# ---- comparing ---------------------------------------------------------------------------------

class Diff:
    def __init__(self):
        self.n = 0

    def __call__(self, msg):
        self.n += 1
        if self.n <= 40:
            print(msg)


WHOLE = False	# --whole: the image keeps whole seconds (mkfs's default, as mke2fs -d)


def want_time(ns, i128, epoch):
    sec, nsec = divmod(ns, 10**9)
    if WHOLE:
        nsec = 0
    if epoch is not None and sec >= epoch:
        sec, nsec = epoch, 0
    if i128:
        sec, nsec = max(-2**31, min(2**31 - 1, sec)), 0
    return sec * 10**9 + nsec


def show(r):
    return repr(r)[1:-1] if "\n" in r else r


def cmp_common(m, got, diff, fields):
    for r, e in m.items():
        g = got.get(r)
        if g is None:
            diff("%s: missing" % show(r))
            continue
        if g["type"] != e["type"]:
            diff("%s: type %o, want %o" % (show(r), g["type"], e["type"]))
            continue
        for f in fields:
            if f in e and g.get(f) != e[f]:
                diff("%s: %s %s, want %s" % (show(r), f, g.get(f), e[f]))


def kernel(man, mnt, bs, i128, epoch, inline=False):
    m = json.load(open(man))
    got = scan(mnt, skip_top=("lost+found",))
    diff = Diff()
    if got.pop(".")["xattrs"] != m.pop(".")["xattrs"]:
        diff("the root's xattrs differ")
    names = expected_links(m)
    for r in sorted(set(got) - set(m)):
        diff("%s: in the image, not in the source" % show(r))
    cmp_common(m, got, diff, ("mode", "uid", "gid", "size", "digest", "target", "rdev",
                              "xattrs"))
    for r, e in m.items():
        g = got.get(r)
        if not g or g["type"] != e["type"]:
            continue
        for f in ("atime", "mtime", "ctime"):
            w = want_time(e[f], i128, epoch)
            if g[f] != w:
                diff("%s: %s %d.%09d, want %d.%09d" % (show(r), f, *divmod(g[f], 10**9),
                                                       *divmod(w, 10**9)))
        if g["nlink"] != e["want_nlink"]:
            diff("%s: %d links, want %d" % (show(r), g["nlink"], e["want_nlink"]))
        if "map" in e:
            def blocks(runs):	# runs in image blocks, to EOF
                w = []
                for s, t in runs:
                    s, t = s - s % bs, min(e["size"], t + (-t) % bs)
                    if w and w[-1][1] >= s:
                        w[-1][1] = max(w[-1][1], t)
                    else:
                        w.append([s, t])
                return w
            # what the image allocates: the source's blocks that are not zeros
            w, gm = blocks(e["map"]), blocks(g["alloc"])
            # inline_data: a file started inline, as mke2fs -d makes it, and its
            # inline bytes moved to block 0 at the first write: zeros there
            if inline and gm and gm[0][0] == 0 and (not w or w[0][0] > 0):
                if gm[0][1] > bs:
                    gm[0][0] = bs
                else:
                    del gm[0]
            if gm != w:
                diff("%s: data map %s, want %s" % (show(r), gm[:6], w[:6]))
    # hard-link groups: the same names share an inode, and only they do
    for key, rs in names.items():
        keys = {got[r]["key"] for r in rs if r in got}
        if len(keys) > 1:
            diff("%s: hard links to one source inode are %d inodes" % (show(rs[0]), len(keys)))
    seen = {}
    for r, g in got.items():
        if g["type"] != stat.S_IFDIR and r in m:
            seen.setdefault(g["key"], set()).add(m[r]["key"])
    for k, srcs in seen.items():
        if len(srcs) > 1:
            diff("image inode %s holds %d source inodes" % (k, len(srcs)))
    return diff.n


def rdump(man, out, i128, epoch, skip, inline):
    m = json.load(open(man))
    del m["."]
    m = {r: e for r, e in m.items()
         if e["type"] in (stat.S_IFREG, stat.S_IFDIR, stat.S_IFLNK)
         and r.split("/")[0] not in skip}
    got = scan(out, skip_top=("lost+found",) + tuple(skip), with_xattrs=False)
    diff = Diff()
    for r in sorted(set(got) - set(m)):
        diff("%s: in the dump, not in the source" % show(r))
    if inline:	# debugfs 1.47.0 pads inline data: contents of small files not compared
        for e in m.values():
            if e.get("size", 4096) < 4096:
                del e["size"], e["digest"]
    cmp_common(m, got, diff, ("size", "digest", "target"))
    for r, e in m.items():
        g = got.get(r)
        if not g or g["type"] != e["type"] or e["type"] == stat.S_IFLNK:
            continue	# rdump leaves a symlink's owner alone
        # rdump's chmod() keeps the permission bits only (no setuid, setgid, sticky)
        if g["mode"] != e["mode"] & 0o777:
            diff("%s: mode %o, want %o" % (show(r), g["mode"], e["mode"] & 0o777))
        if (g["uid"], g["gid"]) != (e["uid"], e["gid"]):
            diff("%s: owner %d:%d, want %d:%d" % (show(r), g["uid"], g["gid"], e["uid"], e["gid"]))
        w = want_time(e["mtime"], i128, epoch) // 10**9
        if 0 <= w < 2**31 and g["mtime"] // 10**9 != w:	# rdump's utime(): 32 bits
            diff("%s: mtime %d, want %d" % (show(r), g["mtime"] // 10**9, w))
    return diff.n


def bmap(man, image, path, bs, inline=False):
    e = json.load(open(man))[path]
    src = os.path.join(os.path.dirname(os.path.abspath(man)), "src", path)
    nblocks = (e["size"] + bs - 1) // bs
    data = set()
    for s, t in e["map"]:
        data.update(range(s // bs, (t + bs - 1) // bs))
    holes = {0, nblocks // 2, nblocks - 1 - len(data), min(data) - 1, max(data) + 1}
    holes = {b for b in holes if 0 <= b < nblocks and b not in data}
    if inline:	# started inline, as mke2fs -d: block 0 took the inline bytes (zeros)
        holes.discard(0)
    want = sorted(data | holes)
    cmds = ["stat \"/%s\"" % path] + ["bmap \"/%s\" %d" % (path, b) for b in want]
    p = subprocess.run(["debugfs", "-f", "-", image], input="\n".join(cmds).encode(),
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)
    lines = p.stdout.decode().splitlines()
    diff = Diff()
    sizes = [ln for ln in lines if "Size: " in ln]
    if not sizes or ("Size: %d" % e["size"]) not in sizes[0]:
        diff("%s: debugfs stat: %s, want size %d" % (path, sizes[:1], e["size"]))
    phys = [int(ln) for ln in lines if ln.strip().isdigit()]
    if len(phys) != len(want):
        diff("%s: %d bmap answers for %d blocks" % (path, len(phys), len(want)))
        return diff.n
    with open(image, "rb") as img, open(src, "rb") as f:
        for lblk, pblk in zip(want, phys):
            if lblk in holes:
                if pblk:
                    diff("%s: block %d is a hole in the source, mapped to %d" % (path, lblk, pblk))
                continue
            if not pblk:
                diff("%s: block %d holds data in the source, a hole in the image" % (path, lblk))
                continue
            n = min(bs, e["size"] - lblk * bs)
            if os.pread(img.fileno(), n, pblk * bs) != os.pread(f.fileno(), n, lblk * bs):
                diff("%s: block %d (at %d) differs" % (path, lblk, pblk))
    return diff.n


def main(argv):
    global WHOLE
    opts = {"--bs": 4096, "--i128": False, "--inline": False, "--epoch": None, "--skip": []}
    args = []
    it = iter(argv[1:])
    for a in it:
        if a == "--whole":
            WHOLE = True
        elif a in ("--i128", "--inline"):
            opts[a] = True
        elif a == "--skip":
            opts[a].append(next(it))
        elif a in opts:
            opts[a] = int(next(it))
        else:
            args.append(a)
    if not args:
        return 2
    cmd, rest = args[0], args[1:]
    if cmd == "build" and len(rest) == 1:
        build(rest[0])
        return 0
    if cmd == "manifest" and len(rest) == 2:
        m = scan(rest[0], skip_top=("lost+found",))
        json.dump(m, open(rest[1], "w"), indent=0, sort_keys=True)
        return 0
    if cmd == "kernel" and len(rest) == 2:
        return 1 if kernel(rest[0], rest[1], opts["--bs"], opts["--i128"], opts["--epoch"],
                           opts["--inline"]) else 0
    if cmd == "rdump" and len(rest) == 2:
        return 1 if rdump(rest[0], rest[1], opts["--i128"], opts["--epoch"], opts["--skip"],
                           opts["--inline"]) else 0
    if cmd == "bmap" and len(rest) == 4:
        return 1 if bmap(rest[0], rest[1], rest[2], int(rest[3]), opts["--inline"]) else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
