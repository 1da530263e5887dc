#!/usr/bin/env python3
"""Compare extkit-debugfs with e2fsprogs debugfs on the e2fsprogs corpus.

oracle-sweep.py [--inodes N] [--min-images N] [--min-inodes N] [--min-maps N] IMAGE_FILE...

For each image that both tools open: `stat <1>..<N>` field by field (mode,
owner, size, links, blockcount, flags, file ACL, generation, times) and
`blocks` of regular files and directories (a different list is accepted
only when our `blocks` fails with an error: we stop at a corrupt map).  extkit decodes as the kernel
does, which differs from debugfs 1.47.0 in three documented ways, accepted
here only in their exact form:
  - i_blocks_hi counts only with huge_file (ext4_inode_blocks)
  - i_file_acl_high counts only with 64bit (ext4_iget)
  - i_size_high counts for regular files, or everything with largedir
    (ext4_isize); debugfs adds it for directories too
Fewer than --min-images images opened by both tools, or fewer than
--min-inodes inodes or --min-maps block lists compared, fail: a comparison of nothing proves nothing.
Exit 0 no other difference, 1 otherwise.  Environment: EK_DEBUGFS, TMPDIR.
"""
import argparse
import bz2
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from e2oracle import parse_e2_stat

ap = argparse.ArgumentParser()
ap.add_argument("--inodes", type=int, default=64)
ap.add_argument("--min-images", type=int, default=1)
ap.add_argument("--min-inodes", type=int, default=1)
ap.add_argument("--min-maps", type=int, default=1)
ap.add_argument("images", nargs="+")
args = ap.parse_args()
EK = os.environ["EK_DEBUGFS"]
ENV = dict(os.environ, LC_ALL="C", TZ="GMT0", PAGER="__none__", DEBUGFS_PAGER="__none__")
work = tempfile.mkdtemp(prefix="ek-oracle.", dir=os.environ.get("TMPDIR"))
diffs = []
compared = 0
compared_maps = 0
reported = 0
nimg = 0


def run(argv):
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV, timeout=60)
    except subprocess.TimeoutExpired:
        return None, "timeout"
    return p.stdout.decode("utf-8", "surrogateescape"), p.stderr.decode("utf-8", "replace")


def split_e2(text, cmd):
    """debugfs -f output -> {request argument: text}"""
    parts = re.split(r"^debugfs: %s (\S+)\n" % cmd, text, flags=re.M)
    return {parts[k]: parts[k + 1] for k in range(1, len(parts) - 1, 2)}


try:
    for src in args.images:
        name = os.path.basename(os.path.dirname(src))
        img = os.path.join(work, "img")
        op = gzip.open if src.endswith(".gz") else bz2.open
        try:
            with op(src, "rb") as f, open(img, "wb") as out:
                shutil.copyfileobj(f, out)
        except (OSError, EOFError) as e:
            print("%s: cannot unpack: %s (skipped)" % (name, e))
            continue
        cf = os.path.join(work, "cmds")
        with open(cf, "w") as f:
            f.write("".join("stat <%d>\n" % i for i in range(1, args.inodes + 1)))
        e2, _ = run(["debugfs", "-f", cf, img])
        ek, _ = run([EK, "--json", "-f", cf, img])
        try:
            ours = {r["result"]["inode"]: r["result"] for r in json.loads(ek)
                    if r.get("result") and "inode" in r["result"]}
        except (TypeError, ValueError):
            continue    # we do not open it (the sweep checks the error is clean)
        feats = ""
        stats, _ = run([EK, "-R", "stats -h", img])
        m = re.search(r"^Filesystem features:\s*(.*)$", stats or "", re.M)
        feats = m.group(1).split() if m else []
        nimg += 1
        blk_inos = []
        for arg, text in split_e2(e2 or "", "stat").items():
            o = parse_e2_stat(text)
            i = int(arg.strip("<>"))
            r = ours.get(i)
            if not o or not r:
                continue
            compared += 1
            d = []
            for k in ("uid", "gid", "links", "flags", "generation"):
                if r.get(k) != o[k]:
                    d.append("%s %r vs %r" % (k, r.get(k), o[k]))
            if r["blockcount"] != o["blockcount"] and not (
                    "huge_file" not in feats and r["blockcount"] == o["blockcount"] & 0xffffffff):
                d.append("blockcount %r vs %r" % (r["blockcount"], o["blockcount"]))
            acl = r["file_acl"] or 0	# null: no xattr block
            if acl != o["file_acl"] and not (
                    "64bit" not in feats and acl == o["file_acl"] & 0xffffffff):
                d.append("file_acl %r vs %r" % (r["file_acl"], o["file_acl"]))
            if r["size"] != o["size"] and not (
                    "large_dir" not in feats and o["type"] != "regular" and
                    r["size"] == o["size"] & 0xffffffff):
                d.append("size %r vs %r" % (r["size"], o["size"]))
            if r["mode"] & 0o7777 != o["perm"]:
                d.append("mode %o vs %o" % (r["mode"] & 0o7777, o["perm"]))
            for k in ("ctime", "atime", "mtime", "crtime"):
                if k in o and r.get(k) and (r[k]["sec"], r[k]["nsec"]) != o[k]:
                    d.append("%s %r vs %r" % (k, (r[k]["sec"], r[k]["nsec"]), o[k]))
            if d:
                diffs.append("%s: stat <%d>: %s" % (name, i, "; ".join(d)))
            if o["type"] in ("regular", "directory") and o["links"] and not (o["flags"] & 0x10000000):
                blk_inos.append(i)
        if not blk_inos:
            continue
        with open(cf, "w") as f:
            f.write("".join("blocks <%d>\n" % i for i in blk_inos))
        e2, _ = run(["debugfs", "-f", cf, img])
        ek, _ = run([EK, "-f", cf, img])
        a = split_e2(e2 or "", "blocks")
        parts = re.split(r"^extkit-debugfs: blocks (\S+)\n", ek or "", flags=re.M)
        b = {parts[k]: parts[k + 1] for k in range(1, len(parts) - 1, 2)}
        for arg in a:
            if arg in b:
                compared_maps += 1
            if arg in b and a[arg].split() != b[arg].split():
                # a map found corrupt may differ (our walk stops there, or goes
                # on past a bad checksum; debugfs lists what it can) as long
                # as we report the corruption
                p = subprocess.run([EK, "-R", "blocks " + arg, img], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, env=ENV, timeout=60)
                if p.returncode == 1 and p.stderr.strip():
                    reported += 1
                    continue
                diffs.append("%s: blocks %s: ours %s..., debugfs %s..."
                             % (name, arg, b[arg].split()[:5], a[arg].split()[:5]))
finally:
    shutil.rmtree(work, ignore_errors=True)

for d in diffs:
    print("DIFF:", d)
nmaps = compared_maps
print("oracle: %d of %d images, %d inodes, %d block maps compared, %d block maps reported corrupt, "
      "%d differences" % (nimg, len(args.images), compared, nmaps, reported, len(diffs)))
low = []
if nimg < args.min_images:
    low.append("%d images compared, fewer than --min-images %d" % (nimg, args.min_images))
if compared < args.min_inodes:
    low.append("%d inodes compared, fewer than --min-inodes %d" % (compared, args.min_inodes))
if nmaps < args.min_maps:
    low.append("%d block maps compared, fewer than --min-maps %d" % (nmaps, args.min_maps))
for l in low:
    print("FAIL:", l)
sys.exit(1 if diffs or low else 0)
