#!/usr/bin/env python3
"""Writes that must survive a crash, and the check after replay (404-mkfs-journal).

  crash.py write MNT FLAG BIG WANT   on the mounted filesystem MNT: files
      fsync'ed (sizes 0 to BIG KiB; renames, an unlink, appends), then
      writes never synced, then EXT4_IOC_SHUTDOWN with FLAG (1 LOGFLUSH,
      2 NOLOGFLUSH).  WANT gets what must be there after replay (JSON).
  crash.py check MNT WANT            MNT (a replayed copy, mounted) holds
      WANT: each file with its contents, each removed name gone.
Exit 0 ok, 1 a difference (printed), 2 usage.
"""
import fcntl
import hashlib
import json
import os
import random
import struct
import sys

EXT4_IOC_SHUTDOWN = 0x8004587D		# _IOR('X', 125, __u32)


def fsync_path(p):
    fd = os.open(p, os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)


def write(mnt, flag, big_kib, want_path):
    r = random.Random(404)
    want, gone = {}, []

    def put(rel, data, sync=True):
        p = os.path.join(mnt, rel)
        with open(p, "wb") as f:
            f.write(data)
            if sync:
                f.flush()
                os.fsync(f.fileno())
        return data

    os.makedirs(os.path.join(mnt, "sync/sub"))
    fsync_path(os.path.join(mnt, "sync"))
    fsync_path(mnt)
    sizes = [0, 1, 4095, 4096, 4097, 70000] + [big_kib * 1024 - i for i in range(0, 12 * 4096, 4096)]
    for i, n in enumerate(sizes):
        rel = "sync/%s/f%03d" % ("sub" if i % 3 == 0 else ".", i)
        want[os.path.normpath(rel)] = put(rel, r.randbytes(n))
    fsync_path(os.path.join(mnt, "sync/sub"))
    # append to a synced file, sync again
    with open(os.path.join(mnt, "sync/f001"), "ab") as f:
        more = r.randbytes(9000)
        f.write(more)
        f.flush()
        os.fsync(f.fileno())
    want["sync/f001"] += more
    # rename over a synced file (write, fsync, rename, fsync the directory)
    put("sync/f002.tmp", b"")
    want["sync/f002"] = put("sync/f002.tmp", r.randbytes(5000))
    os.rename(os.path.join(mnt, "sync/f002.tmp"), os.path.join(mnt, "sync/f002"))
    fsync_path(os.path.join(mnt, "sync"))
    # an unlink made durable
    os.unlink(os.path.join(mnt, "sync/f004"))
    del want["sync/f004"]
    gone.append("sync/f004")
    fsync_path(os.path.join(mnt, "sync"))
    # many small files in one directory, each fsync'ed
    os.makedirs(os.path.join(mnt, "sync/many"))
    fsync_path(os.path.join(mnt, "sync"))
    for i in range(150):
        want["sync/many/n%04d" % i] = put("sync/many/n%04d" % i, b"%d\n" % i * (i % 7))
    # never synced: whatever replay leaves, fsck must be clean
    os.makedirs(os.path.join(mnt, "nosync"))
    for i in range(40):
        put("nosync/x%03d" % i, r.randbytes(r.randrange(1, 30000)), sync=False)
    # the crash
    fd = os.open(mnt, os.O_RDONLY)
    fcntl.ioctl(fd, EXT4_IOC_SHUTDOWN, struct.pack("I", flag))
    os.close(fd)
    json.dump({"files": {k: hashlib.sha256(v).hexdigest() for k, v in want.items()},
               "sizes": {k: len(v) for k, v in want.items()}, "gone": gone},
              open(want_path, "w"), indent=0, sort_keys=True)
    return 0


def check(mnt, want_path):
    w = json.load(open(want_path))
    bad = 0
    for rel, digest in sorted(w["files"].items()):
        p = os.path.join(mnt, rel)
        try:
            data = open(p, "rb").read()
        except OSError as e:
            print("%s: %s" % (rel, e.strerror))
            bad += 1
            continue
        if hashlib.sha256(data).hexdigest() != digest:
            print("%s: %d bytes, want %d with other contents" % (rel, len(data), w["sizes"][rel]))
            bad += 1
    for rel in w["gone"]:
        if os.path.lexists(os.path.join(mnt, rel)):
            print("%s: unlinked and synced, but there" % rel)
            bad += 1
    return 1 if bad else 0


def main(a):
    if len(a) == 6 and a[1] == "write":
        return write(a[2], int(a[3]), int(a[4]), a[5])
    if len(a) == 4 and a[1] == "check":
        return check(a[2], a[3])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
