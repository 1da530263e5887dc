#!/usr/bin/env python3
"""Compare an rdump -p restore and extkit-debugfs answers with the oracle.

Called by matrix.sh.  Three sources of truth:
  tree    the gen-tree.sh source tree given to mke2fs -d (contents, links)
  oracle  e2fsprogs debugfs on the image: what mke2fs actually stored
          (mke2fs -d drops nanoseconds, 128-byte inodes cannot hold them or
          times outside 1901..2038, ACLs are stored in the ext4 format)
  ours    the rdump -p restore and extkit-debugfs answers
Differences tree/oracle are printed ("tree/oracle: ..."); differences ours/oracle and
content differences ours/tree fail the test.  Exit 0 pass, 1 fail.
"""
import argparse
import filecmp
import json
import os
import re
import stat
import subprocess
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--config", required=True)
ap.add_argument("--tree", required=True)
ap.add_argument("--out", required=True)
ap.add_argument("--image", required=True)
ap.add_argument("--ek", required=True)
ap.add_argument("--tmp", required=True)
ap.add_argument("--sample", type=int, default=200)
args = ap.parse_args()

failures = []
notes = []
MAXREPORT = 25


def fail(msg):
    failures.append(msg)


def note(msg):
    notes.append(msg)


ENV = dict(os.environ, LC_ALL="C", TZ="GMT0", PAGER="__none__",
           DEBUGFS_PAGER="__none__")
SAN = re.compile(r"ERROR: AddressSanitizer|runtime error:|LeakSanitizer")


def run_batch(tool, cmds, json_out=False, tag="batch"):
    """Run requests with -f; return a list of per-request stdout texts
    (or the parsed JSON array with json_out)."""
    cf = os.path.join(args.tmp, "%s.cmds" % tag)
    with open(cf, "w", encoding="utf-8", errors="surrogateescape") as f:
        for c in cmds:
            f.write(c + "\n")
    argv = [tool] + (["--json"] if json_out else []) + ["-f", cf, args.image]
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=ENV, timeout=600)
    err = p.stderr.decode("utf-8", "replace")
    if tool == args.ek:
        if p.returncode >= 128 or p.returncode < 0:
            fail("%s: extkit-debugfs killed by signal (rc %d)" % (tag, p.returncode))
        if SAN.search(err):
            fail("%s: sanitizer report:\n%s" % (tag, err[:3000]))
    out = p.stdout.decode("utf-8", "surrogateescape")
    if json_out:
        try:
            return json.loads(out), err, p.returncode
        except ValueError as e:
            fail("%s: invalid JSON from extkit-debugfs: %s" % (tag, e))
            return [], err, p.returncode
    prefix = "debugfs: " if tool == "debugfs" else "extkit-debugfs: "
    res = []
    cur = None
    for line in out.split("\n"):
        if line.startswith(prefix) and len(res) < len(cmds) and \
                line[len(prefix):] == cmds[len(res)]:
            cur = []
            res.append(cur)
            continue
        if cur is not None:
            cur.append(line)
    res = ["\n".join(r) for r in res]
    if len(res) != len(cmds):
        fail("%s: %s answered %d of %d requests" % (tag, tool, len(res), len(cmds)))
        res += [""] * (len(cmds) - len(res))
    return res, err, p.returncode


# ---------------------------------------------------------------- the tree
def walk(root):
    """relative paths of everything under root (root itself is '')"""
    paths = [""]
    for d, dirs, files in os.walk(root):
        dirs.sort()
        rel = os.path.relpath(d, root)
        rel = "" if rel == "." else rel
        for n in sorted(dirs + files):
            paths.append(os.path.join(rel, n) if rel else n)
    return paths


tree_paths = walk(args.tree)


def lx(path):
    try:
        names = os.listxattr(path, follow_symlinks=False)
    except OSError:
        return {}
    return {n: os.getxattr(path, n, follow_symlinks=False) for n in names}


# -------------------------------------------- path -> inode from the oracle
def ls_p_parse(text):
    ents = []
    for line in text.split("\n"):
        if not line.startswith("/"):
            continue
        parts = line.split("/")
        # /ino/mode/uid/gid/name/size/
        if len(parts) < 7:
            continue
        # e2fsprogs ls always lists the unused entry that spans a block
        # (inode 0); extkit shows those only with -d: compare used entries
        if int(parts[1]) == 0:
            continue
        # debugfs prints 32-bit ids with %d
        ents.append((int(parts[1]), int(parts[2], 8), int(parts[3]) & 0xffffffff,
                     int(parts[4]) & 0xffffffff, parts[5], parts[6]))
    return ents


ino_of = {"": 2}
dir_inos = {"": 2}
ls_oracle = {}
frontier = [""]
while frontier:
    cmds = ["ls -p <%d>" % dir_inos[d] for d in frontier]
    outs, _, _ = run_batch("debugfs", cmds, tag="ls-oracle")
    nxt = []
    for d, text in zip(frontier, outs):
        ents = ls_p_parse(text)
        ls_oracle[d] = ents
        for ino, mode, uid, gid, name, size in ents:
            if name in (".", "..") or ino == 0:
                continue
            p = os.path.join(d, name) if d else name
            ino_of[p] = ino
            if stat.S_ISDIR(mode):
                dir_inos[p] = ino
                nxt.append(p)
    frontier = nxt

# our ls -p of every directory must equal the oracle's
dirs = sorted(dir_inos)
outs, _, _ = run_batch(args.ek, ["ls -p <%d>" % dir_inos[d] for d in dirs], tag="ls-ours")
for d, text in zip(dirs, outs):
    mine = ls_p_parse(text)
    if mine != ls_oracle[d]:
        a, b = set(mine), set(ls_oracle[d])
        fail("ls -p %r: ours differs from debugfs (only ours: %s; only debugfs: %s; order same: %s)"
             % (d or "/", sorted(a - b)[:3], sorted(b - a)[:3], a == b))

for p in tree_paths:
    if p not in ino_of:
        fail("%r: in the tree but not in the image (debugfs ls)" % p)
tree_set = set(tree_paths)
for p in ino_of:
    if p not in tree_set and p != "lost+found":
        fail("%r: in the image but not in the tree" % p)

# ---------------------------------------------------- oracle stat of all
from e2oracle import parse_e2_stat  # noqa: E402


all_inos = sorted(set(ino_of.values()))
outs, _, _ = run_batch("debugfs", ["stat <%d>" % i for i in all_inos], tag="stat-oracle")
ostat = {}
for i, text in zip(all_inos, outs):
    st = parse_e2_stat(text)
    if st is None:
        fail("debugfs stat <%d> unparsable: %r" % (i, text[:200]))
        continue
    ostat[i] = st

# -------------------------------------------------- oracle xattr names
XA_RE = re.compile(r"^  (\S+) \((\d+)\)")


def parse_ea_list(text):
    r = {}
    for line in text.split("\n"):
        m = XA_RE.match(line)
        if m:
            r[m.group(1)] = int(m.group(2))
    return r


ea_inos = [i for i in all_inos if i in ostat]
outs, _, _ = run_batch("debugfs", ["ea_list <%d>" % i for i in ea_inos], tag="ea-oracle")
oea = {i: parse_ea_list(t) for i, t in zip(ea_inos, outs)}

# ------------------------------------------------- restore vs oracle/tree
TYPES = {"regular": stat.S_IFREG, "directory": stat.S_IFDIR, "symlink": stat.S_IFLNK,
         "FIFO": stat.S_IFIFO, "character special": stat.S_IFCHR, "block special": stat.S_IFBLK,
         "socket": stat.S_IFSOCK}

src_groups = {}
dst_groups = {}
content = []
nsec_dropped = []
for p in tree_paths:
    s_path = os.path.join(args.tree, p)
    d_path = os.path.join(args.out, p)
    ino = ino_of.get(p)
    if ino is None or ino not in ostat:
        continue
    o = ostat[ino]
    s = os.lstat(s_path)
    try:
        d = os.lstat(d_path)
    except OSError as e:
        fail("%r: not restored: %s" % (p, e))
        continue
    what = p or "/"
    ot = TYPES.get(o["type"])
    if ot is None:
        fail("%r: oracle type %r unknown" % (p, o["type"]))
        continue
    if stat.S_IFMT(s.st_mode) != ot:
        note("%r: mke2fs stored type %s for source mode %o" % (p, o["type"], s.st_mode))
    if stat.S_IFMT(d.st_mode) != ot:
        fail("%r: restored type %o, image has %s" % (what, stat.S_IFMT(d.st_mode), o["type"]))
        continue
    if not stat.S_ISLNK(d.st_mode):
        if stat.S_IMODE(d.st_mode) != o["perm"]:
            fail("%r: restored mode %04o, image has %04o" % (what, stat.S_IMODE(d.st_mode), o["perm"]))
        if stat.S_IMODE(s.st_mode) != o["perm"]:
            note("%r: mke2fs stored mode %04o for %04o" % (p, o["perm"], stat.S_IMODE(s.st_mode)))
    if (d.st_uid, d.st_gid) != (o["uid"], o["gid"]):
        fail("%r: restored owner %d:%d, image has %d:%d" % (what, d.st_uid, d.st_gid, o["uid"], o["gid"]))
    if (s.st_uid, s.st_gid) != (o["uid"], o["gid"]):
        note("%r: mke2fs stored owner %d:%d for %d:%d" % (p, o["uid"], o["gid"], s.st_uid, s.st_gid))
    # times: what the image holds, to the nanosecond
    for k, attr in (("mtime", "st_mtime_ns"), ("atime", "st_atime_ns")):
        if k not in o:
            continue
        want = o[k][0] * 10**9 + o[k][1]
        got = getattr(d, attr)
        if got != want:
            fail("%r: restored %s %d.%09d, image has %d.%09d"
                 % (what, k, got // 10**9, got % 10**9, o[k][0], o[k][1]))
        if k == "mtime" and getattr(s, attr) != want and p and \
                getattr(s, attr) // 10**9 == o[k][0] and o[k][1] == 0:
            nsec_dropped.append(p)
        elif k == "mtime" and getattr(s, attr) != want and p:
            note("%r: image has mtime %d.%09d, source %d.%09d"
                 % (p, o[k][0], o[k][1], s.st_mtime_ns // 10**9, s.st_mtime_ns % 10**9))
    if stat.S_ISREG(d.st_mode):
        # contents are compared after all times: reading updates atime
        content.append((p, s_path, d_path, s, d))
        if d.st_size != o["size"]:
            fail("%r: restored size %d, image has %d" % (p, d.st_size, o["size"]))
        elif s.st_size != d.st_size:
            # mke2fs 1.47.0 -O inline_data cuts a sparse file's trailing hole
            note("%r: mke2fs stored size %d for %d" % (p, d.st_size, s.st_size))
    elif stat.S_ISLNK(d.st_mode):
        if os.readlink(d_path) != os.readlink(s_path):
            fail("%r: restored symlink -> %r, source -> %r" % (p, os.readlink(d_path), os.readlink(s_path)))
    elif stat.S_ISCHR(d.st_mode) or stat.S_ISBLK(d.st_mode):
        if d.st_rdev != s.st_rdev:
            fail("%r: restored device %d:%d, source %d:%d" % (p, os.major(d.st_rdev), os.minor(d.st_rdev),
                                                              os.major(s.st_rdev), os.minor(s.st_rdev)))
    if not stat.S_ISDIR(d.st_mode):
        src_groups.setdefault(s.st_ino, []).append(p)
        dst_groups.setdefault(d.st_ino, []).append(p)
        if d.st_nlink != o["links"]:
            fail("%r: restored link count %d, image has %d" % (p, d.st_nlink, o["links"]))
    # xattrs: the restore holds what the image holds (minus system.data);
    # values equal the source's
    want = set(oea.get(ino, {})) - {"system.data"}
    dx = lx(d_path)
    sx = lx(s_path)
    if set(dx) != want:
        fail("%r: restored xattrs %s, image has %s" % (what, sorted(dx), sorted(want)))
    if set(sx) != want:
        note("%r: mke2fs stored xattrs %s for %s" % (p, sorted(want), sorted(sx)))
    for n in set(dx) & set(sx):
        if dx[n] != sx[n]:
            fail("%r: restored xattr %s = %r, source %r" % (what, n, dx[n][:64], sx[n][:64]))
    if "system.posix_acl_access" in sx or "system.posix_acl_default" in sx:
        ga = subprocess.run(["getfacl", "-p", "-n", "--omit-header", s_path], stdout=subprocess.PIPE).stdout
        gb = subprocess.run(["getfacl", "-p", "-n", "--omit-header", d_path], stdout=subprocess.PIPE).stdout
        if ga != gb:
            fail("%r: getfacl differs:\n%s\nvs source\n%s" % (p, gb.decode(), ga.decode()))

def same_prefix(a, b, n):
    """the first n bytes of files a and b are equal (and b has n bytes)"""
    with open(a, "rb") as fa, open(b, "rb") as fb:
        while n > 0:
            x, y = fa.read(min(n, 1 << 20)), fb.read(min(n, 1 << 20))
            if x != y or not x:
                return False
            n -= len(x)
    return True


for p, s_path, d_path, s, d in content:
    if s.st_size == d.st_size:
        ok = filecmp.cmp(s_path, d_path, shallow=False)
    else:
        ok = same_prefix(s_path, d_path, min(s.st_size, d.st_size))
    if not ok:
        fail("%r: restored content differs from the source" % p)
if nsec_dropped:
    note("mke2fs -d stored mtime without nanoseconds for %d paths (e.g. %r)"
         % (len(nsec_dropped), nsec_dropped[0]))

sg = sorted(sorted(v) for v in src_groups.values())
dg = sorted(sorted(v) for v in dst_groups.values())
if sg != dg:
    a = [g for g in sg if len(g) > 1]
    b = [g for g in dg if len(g) > 1]
    fail("hard-link groups differ: source %s, restored %s" % (a[:5], b[:5]))

# ----------------------------------------- our answers vs oracle, sampled
by_ino = {}
for p, i in ino_of.items():
    by_ino.setdefault(i, []).append(p)
small = sorted(i for i, ps in by_ino.items() if not all(x.startswith("big/") for x in ps))
bigs = sorted(set(by_ino) - set(small))
room = max(0, args.sample - len(small))
step = max(1, len(bigs) // room) if room else 0
sample = (small + (bigs[::step][:room] if step else []))[:max(args.sample, 1)]

js, err, rc = run_batch(args.ek, ["stat <%d>" % i for i in sample], json_out=True, tag="stat-ours")
if rc != 0:
    fail("extkit-debugfs --json stat exited %d: %s" % (rc, err.strip()[:500]))
ours = {}
for ent in js:
    r = ent.get("result") or {}
    if "inode" in r:
        ours[r["inode"]] = r
nstat = 0
JTYPES = {"regular": "regular", "directory": "directory", "symlink": "symlink",
          "fifo": "FIFO", "chardev": "character special", "blockdev": "block special", "socket": "socket"}
for i in sample:
    o = ostat.get(i)
    r = ours.get(i)
    if o is None:
        continue
    if r is None:
        fail("stat <%d>: no JSON result" % i)
        continue
    nstat += 1
    diffs = []
    for k in ("uid", "gid", "size", "links", "blockcount", "flags", "file_acl", "generation", "project"):
        # JSON says null where there is no xattr block; libext2fs says 0
        if k in r and (r[k] if r[k] is not None or k != "file_acl" else 0) != o[k]:
            diffs.append("%s %r vs %r" % (k, r[k], o[k]))
    if stat.S_IMODE(r["mode"]) != o["perm"] or stat.S_IFMT(r["mode"]) != TYPES[o["type"]]:
        diffs.append("mode %o vs %s %04o" % (r["mode"], o["type"], o["perm"]))
    for k in ("ctime", "atime", "mtime", "crtime"):
        if k in o:
            t = r.get(k)
            if not t or (t["sec"], t["nsec"]) != o[k]:
                diffs.append("%s %r vs %r" % (k, t and (t["sec"], t["nsec"]), o[k]))
    if diffs:
        fail("stat <%d> (%s): %s" % (i, by_ino[i][0], "; ".join(diffs)))


def nums(text):
    return [int(x) for x in text.split()]


# e2fsprogs `blocks` reads i_block of fast symlinks and device inodes as
# block numbers (garbage); compare inodes that map blocks
blk_sample = [i for i in sample if i in ostat and
              (ostat[i]["type"] in ("regular", "directory") or
               (ostat[i]["type"] == "symlink" and "fastlink" not in ostat[i]))]
blk_cmds = ["blocks <%d>" % i for i in blk_sample]
ob, _, _ = run_batch("debugfs", blk_cmds, tag="blocks-oracle")
mb, _, _ = run_batch(args.ek, blk_cmds, tag="blocks-ours")
blocks_of = {}
for i, a, b in zip(blk_sample, ob, mb):
    try:
        na, nb = nums(a), nums(b)
    except ValueError:
        fail("blocks <%d>: unparsable: ours %r, debugfs %r" % (i, b[:100], a[:100]))
        continue
    blocks_of[i] = na
    if na != nb:
        if sorted(na) == sorted(nb):
            fail("blocks <%d> (%s): same blocks, different order" % (i, by_ino[i][0]))
        else:
            fail("blocks <%d> (%s): ours %d blocks %s..., debugfs %d blocks %s..."
                 % (i, by_ino[i][0], len(nb), nb[:6], len(na), na[:6]))

# bmap: every logical block of the first 64 and a stride over the rest
bm = []
for i in sample:
    o = ostat.get(i)
    if not o or o["type"] not in ("regular", "directory") or o["size"] == 0:
        continue
    # e2fsprogs: "No block for an inode with inline data"; extkit: 0 (a hole)
    if o["flags"] & 0x10000000:
        continue
    nblk = (o["size"] + 1023) // 1024
    for lb in list(range(min(nblk, 64))) + list(range(64, nblk + 8, 97)):
        bm.append("bmap <%d> %d" % (i, lb))
ob, _, _ = run_batch("debugfs", bm, tag="bmap-oracle")
mb, _, _ = run_batch(args.ek, bm, tag="bmap-ours")
nbad = 0
for c, a, b in zip(bm, ob, mb):
    if a.strip() != b.strip():
        nbad += 1
        if nbad <= 5:
            fail("%s: ours %r, debugfs %r" % (c, b.strip()[:80], a.strip()[:80]))
if nbad > 5:
    fail("bmap: %d more differences" % (nbad - 5))

# icheck: first, middle and last block of each sampled inode, plus
# mapping metadata (extent index / indirect blocks) and a few others
want_blocks = set([0, 1, 2, 3])
for i, bl in blocks_of.items():
    if bl:
        want_blocks.update([bl[0], bl[len(bl) // 2], bl[-1]])
for i, r in ours.items():
    for b in r.get("blocks", []):
        if b.get("kind") not in (None, "data"):
            want_blocks.add(b.get("physical", 0))
    if r.get("file_acl"):
        want_blocks.add(r["file_acl"])
wb = sorted(want_blocks)
ic = ["icheck " + " ".join(str(b) for b in wb[k:k + 50]) for k in range(0, len(wb), 50)]


def parse_pairs(text):
    r = {}
    for line in text.split("\n"):
        m = re.match(r"^(\d+)\t(.*)$", line)
        if m:
            r.setdefault(int(m.group(1)), set()).add(m.group(2).strip())
    return r


oi, _, _ = run_batch("debugfs", ic, tag="icheck-oracle")
mi, _, _ = run_batch(args.ek, ic, tag="icheck-ours")
po, pm = {}, {}
for a, b in zip(oi, mi):
    po.update(parse_pairs(a))
    pm.update(parse_pairs(b))
for b in wb:
    if po.get(b) != pm.get(b):
        fail("icheck %d: ours %s, debugfs %s" % (b, pm.get(b), po.get(b)))

# ncheck: path sets per inode ('//name' from debugfs for entries in /)
nc = ["ncheck " + " ".join(str(i) for i in sample[k:k + 40]) for k in range(0, len(sample), 40)]
on, _, _ = run_batch("debugfs", nc, tag="ncheck-oracle")
mn, _, _ = run_batch(args.ek, nc, tag="ncheck-ours")


def norm(path):
    return re.sub(r"^//", "/", path)


po, pm = {}, {}
for a, b in zip(on, mn):
    for k, v in parse_pairs(a).items():
        po[k] = {norm(x) for x in v}
    for k, v in parse_pairs(b).items():
        pm[k] = {norm(x) for x in v}
for i in sample:
    if po.get(i) != pm.get(i):
        fail("ncheck %d: ours %s, debugfs %s" % (i, sorted(pm.get(i) or [])[:4], sorted(po.get(i) or [])[:4]))
    elif i in po and i != 2:
        exp = {"/" + p for p in by_ino[i]}
        if po[i] != exp:
            note("ncheck %d: debugfs %s, tree %s" % (i, sorted(po[i])[:3], sorted(exp)[:3]))

# ea_list: names and sizes
ea_cmds = ["ea_list <%d>" % i for i in sample]
me, _, _ = run_batch(args.ek, ea_cmds, tag="ea-ours")
for i, b in zip(sample, me):
    got = parse_ea_list(b)
    if got != oea.get(i, {}):
        fail("ea_list <%d> (%s): ours %s, debugfs %s" % (i, by_ino[i][0], got, oea.get(i)))

# ---------------------------------------------------------------- report
# tree/oracle differences are facts about mke2fs -d, not checks left out:
# not "note:" lines (run-img.sh lists those)
for n in notes[:10]:
    print("tree/oracle:", n)
if len(notes) > 10:
    print("tree/oracle: ... %d more" % (len(notes) - 10))
for f in failures[:MAXREPORT]:
    print("FAIL:", f)
if len(failures) > MAXREPORT:
    print("FAIL: ... %d more failures" % (len(failures) - MAXREPORT))
print("%s: %d paths, %d inodes sampled, %d failures" % (args.config, len(tree_paths), len(sample), len(failures)))
# floors: a comparison of nothing proves nothing (today, with 10,000 or
# 2,000 entries in big/: 200 stat, about 190 block lists, 380-420 bmap
# requests, 33 icheck blocks with inline_data and over 100 without)
low = 0
for what, got, least in (("paths in the tree", len(tree_paths), 1000), ("inodes stat compared", nstat, 180),
                         ("block lists compared", len(blk_sample), 150), ("bmap requests compared", len(bm), 250),
                         ("icheck blocks compared", len(wb), 25)):
    print("floor: %s: %d (at least %d)" % (what, got, least))
    if got < least:
        print("FAIL: %s: %d, fewer than %d: too little was tested" % (what, got, least))
        low += 1
sys.exit(1 if failures or low else 0)
