#!/usr/bin/env python3
"""written.py ORIG IMG: the blocks IMG differs in from ORIG (the same
filesystem before and after a run), as "class:block" words on one line,
ascending.  The class says what ORIG holds there, from e2fsprogs'
dumpe2fs and debugfs on ORIG:
  sb      the primary superblock's block
  bitmap  a group's block or inode bitmap
  desc    a block of the primary group descriptors
  itable  an inode table block
  journal a block of the internal journal (our repairs are logged there)
  other   anything else (directory, extent, xattr, data blocks...)

written.py --batch LIST: the same for each line "OUT<tab>ORIG<tab>IMG<tab>
LAYOUT" of LIST, in one process: the words go to the file OUT (an empty
line when ORIG's layout cannot be read, as the single run prints nothing);
ORIG's layout, e2fsprogs' answer on an unchanged ORIG, is read from the
file LAYOUT, or found and then saved there (538 keeps it in the oracle
cache).
"""
import json
import os
import re
import subprocess
import sys


def run(cmd):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                          universal_newlines=True).stdout


def layout(img):
    out = run(['dumpe2fs', img])
    bs = int(re.search(r'^Block size:\s+(\d+)', out, re.M).group(1))
    cls = {}
    for m in re.finditer(r'(?:Block|Inode) bitmap at (\d+)', out):
        cls[int(m.group(1))] = 'bitmap'
    for m in re.finditer(r'Inode table at (\d+)-(\d+)', out):
        for b in range(int(m.group(1)), int(m.group(2)) + 1):
            cls.setdefault(b, 'itable')
    m = re.search(r'^Group 0:.*?\n(?:(?!^Group).*\n)*?\s+Primary superblock at (\d+), '
                  r'Group descriptors at (\d+)-(\d+)', out, re.M)
    if m:
        for b in range(int(m.group(2)), int(m.group(3)) + 1):
            cls.setdefault(b, 'desc')
    cls[1024 // bs] = 'sb'
    jino = re.search(r'^Journal inode:\s+(\d+)', out, re.M)
    if jino:
        for tok in run(['debugfs', '-R', 'blocks <%s>' % jino.group(1), img]).split():
            if tok.isdigit():
                cls.setdefault(int(tok), 'journal')
    return bs, cls


def written(orig, img, bs, cls):
    """the words; a chunk of 256 blocks that is equal is skipped whole"""
    words = []
    chunk = bs * 256
    with open(orig, 'rb') as a, open(img, 'rb') as b:
        blk = 0
        while True:
            x, y = a.read(chunk), b.read(chunk)
            if not x and not y:
                break
            if x != y:
                for i in range(0, max(len(x), len(y)), bs):
                    if x[i:i + bs] != y[i:i + bs]:
                        words.append('%s:%d' % (cls.get(blk + i // bs, 'other'), blk + i // bs))
            blk += 256
    return ' '.join(words)


def cached_layout(orig, path):
    try:
        with open(path) as f:
            bs, cls = json.load(f)
        return bs, {int(k): v for k, v in cls.items()}
    except (OSError, ValueError):
        pass
    bs, cls = layout(orig)
    part = '%s.new.%d' % (path, os.getpid())
    with open(part, 'w') as f:
        json.dump([bs, cls], f)
    os.replace(part, path)
    return bs, cls


def batch(listing):
    with open(listing) as f:
        todo = [line.rstrip('\n').split('\t') for line in f if line.strip()]
    for out, orig, img, lay in todo:
        try:
            words = written(orig, img, *cached_layout(orig, lay))
        except Exception as e:  # noqa: BLE001 (one image's failure, named)
            print('written.py: %s: %s' % (img, e), file=sys.stderr)
            words = 'ERROR'
        with open(out, 'w') as f:
            f.write(words + '\n')


def main():
    if sys.argv[1] == '--batch':
        batch(sys.argv[2])
        return
    orig, img = sys.argv[1], sys.argv[2]
    print(written(orig, img, *layout(orig)))


main()
