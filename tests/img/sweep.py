#!/usr/bin/env python3
"""Robustness sweep of extkit-debugfs over corrupt and unusual images.

sweep.py [--inodes N] [--timeout S] [--rdump] [--min-opened N] [--unpack-cache] IMAGE_FILE...

Each IMAGE_FILE (.gz, .bz2, .xz or raw) is unpacked to a sparse scratch file
(with --unpack-cache, .gz and .bz2 ones by unpack.sh: a copy of the run's
decompressed image, as the other tests reading the same image get),
then extkit-debugfs runs, each call under a timeout:
  stats; ls -l of every directory reached from / (breadth first, via our own
  ls -p, at most 400 directories); stat <1>..<min(inodes_count, N)>;
  frag -r -v /; rdump / (with --rdump) into a scratch dir (under /dev/shm
  when it is a tmpfs that takes user xattrs and ACLs as a disk does: files
  made there cost a tenth of the CPU, no journal or inode allocator).
A call passes when it exits 0 or 1, before the timeout, with no sanitizer
report and with stderr made of one-line messages ("word: text").
An image counts as opened when `stats` exits 0; fewer than --min-opened
opened images fail the sweep (a tool that refuses everything must not pass).
Prints one line per failing call and a summary; exit 0 all passed, 1 not.
Environment: EK_DEBUGFS, TMPDIR, EK_UNPACK_CACHE (unpack.sh's).
"""
import argparse
import bz2
import gzip
import lzma
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ap = argparse.ArgumentParser()
ap.add_argument("--inodes", type=int, default=2000)
ap.add_argument("--timeout", type=int, default=20)
ap.add_argument("--rdump", action="store_true")
ap.add_argument("--min-opened", type=int, default=1,
                help="fail when fewer images open (stats exits 0)")
ap.add_argument("--label-depth", type=int, default=1,
                help="path components of the image path shown in messages")
ap.add_argument("--unpack-cache", action="store_true",
                help="unpack .gz and .bz2 images with unpack.sh (EK_UNPACK_CACHE)")
ap.add_argument("images", nargs="+")
args = ap.parse_args()

EK = os.environ["EK_DEBUGFS"]
ENV = dict(os.environ, LC_ALL="C", TZ="GMT0")
SAN = re.compile(r"ERROR: AddressSanitizer|runtime error:|LeakSanitizer|"
                 r"ERROR: UndefinedBehaviorSanitizer|SUMMARY: \w+Sanitizer")
# a message line: "prog: ...", "cmd: ...", "usage: ...", "warning: ..."
MSG = re.compile(r"^[A-Za-z_][\w.+-]*: \S")
failures = []
slow = []
calls = 0
last_rc = None


def label(path):
    parts = os.path.normpath(path).split(os.sep)
    return os.sep.join(parts[-1 - args.label_depth:])


UNPACK_SH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "unpack.sh")


def unpack(src, dst):
    if args.unpack_cache and src.endswith((".gz", ".bz2")):
        if subprocess.run(["sh", "-c", '. "$1" && unpack "$2" "$3"', "sh", UNPACK_SH, src, dst],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode:
            raise OSError("unpack.sh failed")
        return
    opener = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}.get(
        os.path.splitext(src)[1], open)
    with opener(src, "rb") as f, open(dst, "wb") as out:
        while True:
            buf = f.read(1 << 16)
            if not buf:
                break
            if buf.count(0) == len(buf):
                out.seek(len(buf), 1)   # keep holes
            else:
                out.write(buf)
        out.truncate()


# rdump of a hostile image must not fill the disk: files stop at 64 MiB
# (EFBIG, reported by the tool as an error) instead of SIGXFSZ: prlimit sets
# the limit, and SIGXFSZ, ignored here, stays ignored in the tool (no
# preexec_fn: it would make each call a full fork of this process, ~20 ms
# of CPU, where a call without one is a vfork)
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
LIMIT_FILES = ["prlimit", "--fsize=%d" % (64 << 20), "--"]


def run(img, what, argv, cmds=None):
    """run one extkit-debugfs call; returns stdout text or None"""
    global calls, last_rc
    calls += 1
    last_rc = None
    tmp = None
    if cmds is not None:
        tmp = img + ".cmds"
        with open(tmp, "w") as f:
            f.write("\n".join(cmds) + "\n")
        argv = ["-f", tmp] + argv
    t0 = time.time()
    rdump = what.startswith("rdump")
    limit = args.timeout * (3 if rdump else 1)
    try:
        # only rdump writes files: the others need no limit
        p = subprocess.run((LIMIT_FILES if rdump else []) + [EK] + argv, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, env=ENV, timeout=limit,
                           restore_signals=not rdump)
    except subprocess.TimeoutExpired:
        failures.append("%s: %s: timeout after %ds" % (label(cur), what, limit))
        return None
    finally:
        slow.append((time.time() - t0, label(cur), what))
    last_rc = p.returncode
    err = p.stderr.decode("utf-8", "replace")
    why = []
    if rdump and err.startswith("prlimit:"):
        # the limit could not be set: the tool did not run
        failures.append("%s: %s: %s" % (label(cur), what, err.strip()[:200]))
        return None
    if p.returncode < 0 or p.returncode >= 128:
        why.append("killed by signal / exit %d" % p.returncode)
    elif p.returncode not in (0, 1):
        why.append("exit %d" % p.returncode)
    if SAN.search(err):
        m = SAN.search(err)
        why.append("sanitizer: " + err[max(0, m.start() - 200):m.start() + 800].replace("\n", " | "))
    else:
        bad = [l for l in err.split("\n") if l and (not MSG.match(l) or len(l) > 400)]
        if bad:
            why.append("%d stderr lines not one-line messages, first: %r" % (len(bad), bad[0][:200]))
    if why:
        failures.append("%s: %s: %s (%.1fs)" % (label(cur), what, "; ".join(why), time.time() - t0))
    return p.stdout.decode("utf-8", "surrogateescape")


def rdump_parent():
    """/dev/shm if it holds what rdump -p sets (owner, times, user xattrs,
    an ACL) and has room (4 GiB free: a kernel image holds ~136 MiB, and
    other tests run beside this one), else None (the scratch dir)"""
    try:
        st = os.statvfs("/dev/shm")
        if st.f_bavail * st.f_frsize < (4 << 30):
            return None
        d = tempfile.mkdtemp(prefix="ek-sweep-probe.", dir="/dev/shm")
    except OSError:
        return None
    try:
        f = os.path.join(d, "f")
        open(f, "w").close()
        os.setxattr(f, "user.probe", b"x")
        # version 2; user::rw- group::r-- other::r--
        os.setxattr(f, "system.posix_acl_access",
                    bytes.fromhex("02000000" "01000600ffffffff" "04000400ffffffff" "20000400ffffffff"))
        return "/dev/shm"
    except OSError:
        return None
    finally:
        shutil.rmtree(d, ignore_errors=True)


opened = 0
work = tempfile.mkdtemp(prefix="ek-sweep.", dir=os.environ.get("TMPDIR"))
rdump_work = tempfile.mkdtemp(prefix="ek-sweep-rdump.", dir=rdump_parent() or work)
cur = ""
try:
    for src in args.images:
        cur = src
        img = os.path.join(work, "img")
        try:
            unpack(src, img)
        except (OSError, EOFError, lzma.LZMAError) as e:
            print("%s: cannot unpack: %s (skipped)" % (label(src), e))
            continue
        out = run(img, "stats", ["-R", "stats", img])
        if last_rc == 0:
            opened += 1
        m = re.search(r"^Inode count:\s+(\d+)", out or "", re.M)
        ninodes = int(m.group(1)) if m else 64
        # directories breadth first by inode, with our own ls -p
        seen = {2}
        frontier = [2]
        ndirs = 0
        while frontier and ndirs < 400:
            frontier = frontier[:400 - ndirs]
            ndirs += len(frontier)
            out = run(img, "ls -l/-p (%d dirs)" % len(frontier), [img],
                      ["ls -l <%d>" % i for i in frontier] + ["ls -p <%d>" % i for i in frontier])
            nxt = []
            for line in (out or "").split("\n"):
                parts = line.split("/")
                if len(parts) >= 7 and line.startswith("/") and parts[1].isdigit():
                    ino = int(parts[1])
                    try:
                        mode = int(parts[2], 8)
                    except ValueError:
                        continue
                    if (mode & 0o170000) == 0o040000 and ino not in seen and ino > 0:
                        seen.add(ino)
                        nxt.append(ino)
            frontier = nxt
        n = max(1, min(ninodes, args.inodes))
        run(img, "stat <1>..<%d>" % n, [img], ["stat <%d>" % i for i in range(1, n + 1)])
        run(img, "frag -r -v /", ["-R", "frag -r -v /", img])
        if args.rdump:
            od = os.path.join(rdump_work, "rdump")
            os.mkdir(od)
            run(img, "rdump -p / OUT", ["-R", "rdump -p / " + od, img])
            shutil.rmtree(od, ignore_errors=True)
        os.unlink(img)
finally:
    shutil.rmtree(rdump_work, ignore_errors=True)
    shutil.rmtree(work, ignore_errors=True)

for t, l, w in sorted(slow, reverse=True)[:5]:
    print("slowest: %.1fs %s: %s" % (t, l, w))
for f in failures:
    print("FAIL:", f)
if opened < args.min_opened:
    print("FAIL: %d images opened (stats exit 0), fewer than --min-opened %d"
          % (opened, args.min_opened))
    failures.append("floor")
print("sweep: %d images, %d opened (at least %d), %d calls, %d failures"
      % (len(args.images), opened, args.min_opened, calls, len(failures)))
sys.exit(1 if failures else 0)
