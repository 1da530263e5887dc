#!/usr/bin/env python3
"""imgcmp.py [-c] [-k] [--skip LO-HI]... [--skip-blocks BS LIST] [--after N] A B

cmp(1) of two image files that reads only what holds data in A or B
(SEEK_DATA/SEEK_HOLE: a hole reads as zeros), where `cmp` reads every hole
of a sparse 128 MiB image, and `cmp -l | awk | wc -l` prints a line per
byte (millions where a journal was replayed).  Offsets are cmp -l's:
1-based.
  (no -c)   exit 0 when A and B are equal (sizes too), 1 when not: cmp -s
  -c        print how many bytes of the common length differ outside the
            skipped ones: `cmp -l A B | awk '!(skipped)' | wc -l`
  -k        with -c: then the KiB offsets (int((off - 1) / 1024)) of the
            first five such bytes' runs, as `awk '{print int(...)}' | uniq`
  --skip LO-HI          bytes LO..HI (1-based, inclusive) are not counted
  --skip-blocks BS LIST the blocks of BS bytes in LIST (numbers separated by
                        blanks) are not counted
  --after N             only bytes past offset N (1-based) are counted
Exit 2 on trouble.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from sparsecmp import CHUNK, data_ranges, merged  # noqa: E402


def main():
    args = sys.argv[1:]
    count = kib = False
    skips, bs, sblocks, after = [], 0, set(), 0
    try:
        while args and args[0].startswith("-"):
            a = args.pop(0)
            if a == "-c":
                count = True
            elif a == "-k":
                kib = True
            elif a == "--skip":
                lo, hi = args.pop(0).split("-")
                skips.append((int(lo) - 1, int(hi)))	# 0-based [lo, hi)
            elif a == "--skip-blocks":
                bs = int(args.pop(0))
                sblocks = set(int(b) for b in args.pop(0).split())
            elif a == "--after":
                after = int(args.pop(0))	# 0-based: counted from here
            else:
                raise ValueError(a)
        fa, fb = (os.open(p, os.O_RDONLY) for p in args)
    except (ValueError, IndexError, OSError) as e:
        sys.stderr.write("imgcmp.py: %s\n" % (e or "usage: see the header"))
        return 2
    sa, sb = os.fstat(fa).st_size, os.fstat(fb).st_size
    common = min(sa, sb)
    if not count and sa != sb:
        return 1

    def counted(lo, hi):
        """[lo, hi) pieces of a range that are counted"""
        cut = [(max(lo, s), min(hi, e)) for s, e in skips + [(0, after)] if s < hi and e > lo]
        if bs and sblocks:
            cut += [(max(lo, b * bs), min(hi, (b + 1) * bs))
                    for b in range(lo // bs, (hi - 1) // bs + 1) if b in sblocks]
        out, pos = [], lo
        for s, e in sorted(cut):
            if s > pos:
                out.append((pos, s))
            pos = max(pos, e)
        if pos < hi:
            out.append((pos, hi))
        return out

    n, kibs = 0, []
    bufa, bufb = bytearray(CHUNK), bytearray(CHUNK)	# read into, not allocated per read
    for start, end in merged(data_ranges(fa, common), data_ranges(fb, common)):
        off = start
        while off < end:
            m = min(CHUNK, end - off)
            if os.preadv(fa, [memoryview(bufa)[:m]], off) != m or \
                    os.preadv(fb, [memoryview(bufb)[:m]], off) != m:
                sys.stderr.write("imgcmp.py: short read at %d\n" % off)
                return 2
            x, y = (bufa, bufb) if m == CHUNK else (bufa[:m], bufb[:m])
            if x != y:
                if not count:
                    return 1
                xb, yb = bytes(x), bytes(y)
                for s, e in counted(off, off + m):
                    for p in range(s, e, 4096):	# most pieces are equal
                        q = min(e, p + 4096)
                        xs, ys = xb[p - off:q - off], yb[p - off:q - off]
                        if xs == ys:
                            continue
                        # the differing bytes are the non-zero ones of xs ^ ys
                        z = (int.from_bytes(xs, "little") ^
                             int.from_bytes(ys, "little")).to_bytes(q - p, "little")
                        n += len(z) - z.count(0)
                        while kib and len(kibs) < 5:
                            i = len(z) - len(z.lstrip(b"\0"))	# the first non-zero
                            if i == len(z):
                                break
                            k = (p + i) // 1024
                            if not kibs or kibs[-1] != k:
                                kibs.append(k)
                            z, p = z[(k + 1) * 1024 - p:], (k + 1) * 1024
            off += m
    if count:
        print(n)
        if kib:
            print(" ".join(str(k) for k in kibs))
    return 0


if __name__ == "__main__":
    rc = main()
    # a comparison that could not run, where the caller reads only a count:
    # noted in $IMGCMP_ERRORS, which the test checks at its end
    if rc == 2 and os.environ.get("IMGCMP_ERRORS"):
        with open(os.environ["IMGCMP_ERRORS"], "a") as f:
            f.write("imgcmp.py %s: could not compare\n" % " ".join(sys.argv[1:]))
    sys.exit(rc)
