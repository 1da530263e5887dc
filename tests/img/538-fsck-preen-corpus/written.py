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
"""
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


def main():
    orig, img = sys.argv[1], sys.argv[2]
    bs, cls = layout(orig)
    words = []
    with open(orig, 'rb') as a, open(img, 'rb') as b:
        blk = 0
        while True:
            x, y = a.read(bs), b.read(bs)
            if not x and not y:
                break
            if x != y:
                words.append('%s:%d' % (cls.get(blk, 'other'), blk))
            blk += 1
    print(' '.join(words))


main()
