#!/usr/bin/env python3
"""treecmp.py A B: compare two mounted trees entry by entry, without
following symlinks: names, types, sizes, modes, owners, link counts, inode
numbers, block counts, device numbers, the three times (ns), xattr names
and values, symlink targets and file contents; and the statfs counts.  Prints the first
differences and one summary line with the counts; exit 0 when equal, 1
when not.  An entry that cannot be read on one side is a difference
(its errno is shown)."""
import hashlib, os, stat, sys


def describe(root, rel):
    p = os.path.join(root, rel) if rel else root
    d = {}
    try:
        st = os.lstat(p)
    except OSError as e:
        return {"error": "lstat: " + e.strerror}
    for k in ("st_mode", "st_uid", "st_gid", "st_nlink", "st_ino", "st_size", "st_blocks",
              "st_atime_ns", "st_mtime_ns", "st_ctime_ns"):
        d[k] = getattr(st, k)
    if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
        d["rdev"] = st.st_rdev
    try:
        names = sorted(os.listxattr(p, follow_symlinks=False))
        d["xattrs"] = {n: os.getxattr(p, n, follow_symlinks=False).hex() for n in names}
    except OSError as e:
        d["xattrs"] = "error: " + e.strerror
    if stat.S_ISLNK(st.st_mode):
        try:
            d["target"] = os.readlink(p)
        except OSError as e:
            d["target"] = "error: " + e.strerror
    elif stat.S_ISREG(st.st_mode):
        h = hashlib.sha256()
        try:
            with open(p, "rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    h.update(chunk)
            d["sha256"] = h.hexdigest()
        except OSError as e:
            d["sha256"] = "error: " + e.strerror
    elif stat.S_ISDIR(st.st_mode):
        try:
            d["entries"] = sorted(os.listdir(p))
        except OSError as e:
            d["entries"] = "error: " + e.strerror
    return d


def walk(root):
    out = {}
    todo = [""]
    while todo:
        rel = todo.pop()
        d = describe(root, rel)
        out[rel] = d
        if isinstance(d.get("entries"), list):
            todo.extend(os.path.join(rel, n) for n in d["entries"])
    return out


def main():
    a, b = walk(sys.argv[1]), walk(sys.argv[2])
    diffs = []
    for rel in sorted(set(a) | set(b)):
        da, db = a.get(rel), b.get(rel)
        if da is None or db is None:
            diffs.append("%s: only in %s" % (rel or ".", sys.argv[1] if db is None else sys.argv[2]))
            continue
        for k in sorted(set(da) | set(db)):
            if da.get(k) != db.get(k):
                va, vb = str(da.get(k)), str(db.get(k))
                diffs.append("%s: %s %s != %s" % (rel or ".", k, va[:120], vb[:120]))
    # statfs: what the orphan step frees shows here; the kernel takes the
    # metadata overhead off f_blocks and its reserve off f_bavail, so not those
    sa, sb = os.statvfs(sys.argv[1]), os.statvfs(sys.argv[2])
    for k in ("f_bsize", "f_bfree", "f_files", "f_ffree", "f_namemax"):
        if getattr(sa, k) != getattr(sb, k):
            diffs.append("statfs: %s %d != %d" % (k, getattr(sa, k), getattr(sb, k)))
    files = sum(1 for d in a.values() if "sha256" in d)
    data = sum(os.lstat(os.path.join(sys.argv[1], r)).st_size for r, d in a.items() if "sha256" in d)
    nx = sum(len(d["xattrs"]) for d in a.values() if isinstance(d.get("xattrs"), dict))
    links = sum(1 for d in a.values() if "target" in d)
    for line in diffs[:15]:
        print("  " + line)
    print("%d entries (%d files, %d bytes; %d symlinks; %d xattrs) %s" %
          (len(a), files, data, links, nx, "equal" if not diffs else "differ: %d differences" % len(diffs)))
    return 1 if diffs else 0


sys.exit(main())
