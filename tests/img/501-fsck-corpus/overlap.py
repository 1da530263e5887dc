#!/usr/bin/env python3
"""overlap.py E2FSCK_OUTPUT OURS_JSON: the inodes each checker names.
overlap.py --pairs LIST: the same for each line "NAME<tab>E2FSCK_OUTPUT<tab>
OURS_JSON" of LIST, each answer on a line after NAME (one process for all).

Prints "E O BOTH" (how many inodes e2fsck -fn's findings name, how many
extkit-fsck -fn --json's findings name, how many both name) and then the
inodes only one names.  e2fsck's: "inode N", "inode #N", "inode (N)" and
the directory of an "Entry '...' in PATH (N)"; ours: each finding's inode
and directory, and the inodes its message names (pass 1B's other owners).
Bitmap differences are left out on both sides: they list ranges of inode
numbers, not findings about inodes.
"""
import json
import re
import sys

INODE = re.compile(r'[Ii]node #?\(?(\d+)')
# e2fsck names a directory by its path and number: "in /etc (12)",
# "should be / (2)", "is ??? (13)"; block numbers in parentheses follow no path
PATH_INODE = re.compile(r'(?:^|\s)(?:/\S*|\?\?\?) \((\d+)\)')


def e2fsck_inodes(text):
    found = set()
    for line in text.splitlines():
        if 'bitmap differences' in line or line.startswith(('Pass ', 'e2fsck ')):
            continue
        found.update(int(m.group(1)) for m in INODE.finditer(line))
        m = re.search(r"Entry '.*' in .* \((\d+)\)", line)
        if m:
            found.add(int(m.group(1)))
        found.update(int(m.group(1)) for m in PATH_INODE.finditer(line))
    return found


def our_inodes(doc):
    found = set()
    for f in doc.get('findings', []):
        for key in ('inode', 'directory'):
            if f.get(key):
                found.add(int(f[key]))
        if 'bitmap differences' not in f.get('message', ''):
            found.update(int(m.group(1)) for m in INODE.finditer(f.get('message', '')))
    # the orphan inodes recovery releases (e2fsck: "Clearing orphaned inode")
    for o in (doc.get('journal') or {}).get('orphans', []):
        found.add(int(o['inode']))
    return found


def overlap(e2_path, json_path):
    e2 = e2fsck_inodes(open(e2_path, errors='replace').read())
    try:
        ours = our_inodes(json.load(open(json_path)))
    except ValueError:
        ours = set()
    return ' '.join(map(str, (len(e2), len(ours), len(e2 & ours),
                              'e2fsck-only:', ' '.join(map(str, sorted(e2 - ours))) or '-',
                              'ours-only:', ' '.join(map(str, sorted(ours - e2))) or '-')))


if __name__ == '__main__':
    if sys.argv[1] == '--pairs':
        with open(sys.argv[2]) as f:
            for line in f:
                name, e2_path, json_path = line.rstrip('\n').split('\t')
                print(name, overlap(e2_path, json_path))
    else:
        print(overlap(sys.argv[1], sys.argv[2]))
