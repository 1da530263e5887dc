#!/usr/bin/env python3
"""sparsecmp.py [-l|-s] A B: cmp(1) for sparse image files.

Compares only the byte ranges that hold data in A or in B (SEEK_DATA and
SEEK_HOLE; a hole reads as zeros), so two sparse 1 GiB images with a few MiB
of metadata compare in milliseconds where cmp reads the whole GiB twice.
  -l  print every differing byte as cmp -l does: 1-based offset, then the
      two bytes in octal (the default)
  -s  print nothing
Files of different sizes differ ("EOF on X" on stderr, as cmp, after the
bytes of the common length).  Exit 0 same, 1 different, 2 trouble.
"""
import errno
import os
import sys

CHUNK = 1 << 20


def data_ranges(fd, size):
    """the [start, end) ranges of @fd that hold data (all of it when the
    file system cannot say)"""
    out = []
    off = 0
    try:
        while off < size:
            try:
                start = os.lseek(fd, off, os.SEEK_DATA)
            except OSError as e:
                if e.errno != errno.ENXIO:
                    raise       # the whole file is read (below)
                break           # only a hole is left
            end = min(os.lseek(fd, start, os.SEEK_HOLE), size)
            out.append((start, end))
            off = end
    except (AttributeError, OSError):
        return [(0, size)]
    return out


def merged(a, b):
    """the union of two sorted range lists"""
    out = []
    for start, end in sorted(a + b):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def main():
    args = sys.argv[1:]
    quiet = False
    if args and args[0] in ("-l", "-s"):
        quiet = args.pop(0) == "-s"
    if len(args) != 2:
        sys.stderr.write("usage: sparsecmp.py [-l|-s] A B\n")
        return 2
    try:
        fa = os.open(args[0], os.O_RDONLY)
        fb = os.open(args[1], os.O_RDONLY)
    except OSError as e:
        sys.stderr.write("sparsecmp.py: %s\n" % e)
        return 2
    sa, sb = os.fstat(fa).st_size, os.fstat(fb).st_size
    common = min(sa, sb)
    differ = False
    out = sys.stdout
    for start, end in merged(data_ranges(fa, common), data_ranges(fb, common)):
        off = start
        while off < end:
            n = min(CHUNK, end - off)
            x = os.pread(fa, n, off)
            y = os.pread(fb, n, off)
            if x != y:
                differ = True
                if quiet:
                    return 1
                for i in range(n):
                    if x[i] != y[i]:
                        out.write("%d %o %o\n" % (off + i + 1, x[i], y[i]))
            off += n
    if sa != sb:
        if not quiet:
            out.flush()
            sys.stderr.write("cmp: EOF on %s\n" % args[0 if sa < sb else 1])
        return 1
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
