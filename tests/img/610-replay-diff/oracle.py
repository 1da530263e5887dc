#!/usr/bin/env python3
# oracle.py BEFORE AFTER DIFF.json: the kernel's view against extkit-replay
# diff's.  BEFORE and AFTER are kernel mounts (ro,noload) of the image as it
# is and as `apply --upto T --output` leaves it; DIFF.json is `diff --json
# IMAGE T START-1` (nothing replayed -> up to T).  Every path whose lstat
# (inode, mode, owner, size, links, times) or xattrs differ, or that is on
# one side only, must be named by the diff: as a record's path, a name
# added or removed, or under a directory the diff renames, or by its inode
# (another name of a hard-linked file).  Every path the diff names must
# differ, but the names a record keeps when only a name of its inode came or
# went, or when its inode reads alike on both sides (written home early).
# Prints one line of counts; exit 1 on a mismatch, with examples.
import json, os, sys

def listing(root):
    out = {}
    for dp, dns, fns in os.walk(root):
        for n in dns + fns:
            p = os.path.join(dp, n)
            try:
                st = os.lstat(p)
            except OSError as e:
                out[p[len(root):]] = ("error", e.errno)
                continue
            try:
                xa = sorted((k, os.getxattr(p, k, follow_symlinks=False))
                            for k in os.listxattr(p, follow_symlinks=False))
            except OSError:
                xa = None
            out[p[len(root):]] = (st.st_ino, st.st_mode, st.st_uid, st.st_gid, st.st_size,
                                  st.st_nlink, st.st_mtime_ns, st.st_ctime_ns,
                                  st.st_atime_ns, repr(xa))
    st = os.lstat(root)
    out["/"] = (st.st_ino, st.st_mode, st.st_uid, st.st_gid, st.st_size, st.st_nlink,
                st.st_mtime_ns, st.st_ctime_ns, st.st_atime_ns, "")
    return out

a, b = listing(sys.argv[1]), listing(sys.argv[2])
d = json.load(open(sys.argv[3]))
oracle = set(p for p in set(a) | set(b) if a.get(p) != b.get(p))
mentioned, kept, moved_dirs = set(), set(), []
for f in d["files"]:
    if f["reserved"]:
        continue
    names = [p for k in ("names_added", "names_removed") for p in f[k] if p]
    mentioned.update(names)
    main = [f[k] for k in ("path", "old_path", "new_path") if f[k]]
    if f["change"] in ("linked", "unlinked") or f["inode_same_bytes"]:
        kept.update(p for p in main if p not in names)
    mentioned.update(main)
    # what lies under a directory created, deleted, moved or reused came or went with it
    was_dir = f["type"] == "dir" or (f["fields"] and "mode" in f["fields"] and
                                     f["fields"]["mode"]["old"] & 0o170000 == 0o040000)
    if was_dir and f["change"] != "changed":
        moved_dirs += [p + "/" for p in (f["old_path"], f["new_path"]) if p and p != "/"]
inos = set(f["inode"] for f in d["files"])

def covered(p):
    if p in mentioned or any(p.startswith(m) for m in moved_dirs):
        return True
    return any(v and v[0] != "error" and v[0] in inos for v in (a.get(p), b.get(p)))

missing = sorted(p for p in oracle if not covered(p))
extra = sorted(mentioned - oracle - kept)
print("%d paths differ under the kernel, the diff names %d (%d records); missing %d, extra %d"
      % (len(oracle), len(mentioned), len(d["files"]), len(missing), len(extra)))
for p in missing[:3]:
    print("  missing %s: %s -> %s" % (p, str(a.get(p))[:120], str(b.get(p))[:120]))
for p in extra[:3]:
    print("  extra %s: %s -> %s" % (p, str(a.get(p))[:120], str(b.get(p))[:120]))
sys.exit(1 if missing or extra else 0)
