#!/usr/bin/env python3
"""fscmp.py A B: fscmp.sh's comparison in one process (see fscmp.sh).

Byte differences between two ext images, read where either holds data
(../sparsecmp.py's ranges: a hole reads as zeros), outside s_kbytes_written
(superblock offset 376, 8 bytes) and the superblock checksum (1020..1023)
of every superblock copy (the primary at 1024, and the first KiB of every
group's first block), and, with mmp, the MMP block's time, device name and
checksum.  Prints the first 12 as "block N +0xOFF: A B" (the bytes in
octal, as cmp -l), then "N bytes differ"; exit 1 if any.  Files of
different sizes: "cmp: EOF on X" on stderr, the common length compared.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from sparsecmp import CHUNK, data_ranges, merged  # noqa: E402


def main():
    a, b = sys.argv[1:3]
    with open(a, "rb") as f:
        f.seek(1024)
        s = f.read(1024)
    bs = 1024 << struct.unpack_from("<I", s, 0x18)[0]
    first = struct.unpack_from("<I", s, 0x14)[0]
    bpg = struct.unpack_from("<I", s, 0x20)[0]
    mmp = struct.unpack_from("<Q", s, 0x168)[0] if struct.unpack_from("<I", s, 0x60)[0] & 0x100 else -1

    def ignored(off):
        """a byte mke2fs takes from the clock or the I/O it did"""
        if 1024 <= off < 2048:
            rel = off - 1024
        else:
            blk, r = divmod(off, bs)
            rel = r if blk >= first and (blk - first) % bpg == 0 and r < 1024 else -1
        if rel >= 0 and (376 <= rel < 384 or rel >= 1020):
            return True
        if off // bs == mmp:
            r = off % bs
            return 8 <= r < 16 or 80 <= r < 112 or 1020 <= r < 1024
        return False

    fa, fb = os.open(a, os.O_RDONLY), os.open(b, os.O_RDONLY)
    sa, sb = os.fstat(fa).st_size, os.fstat(fb).st_size
    common = min(sa, sb)
    n = 0
    bufa, bufb = bytearray(CHUNK), bytearray(CHUNK)
    for start, end in merged(data_ranges(fa, common), data_ranges(fb, common)):
        off = start
        while off < end:
            m = min(CHUNK, end - off)
            os.preadv(fa, [memoryview(bufa)[:m]], off)
            os.preadv(fb, [memoryview(bufb)[:m]], off)
            x, y = (bufa, bufb) if m == CHUNK else (bufa[:m], bufb[:m])
            if x != y:
                for p in range(0, m, 4096):	# most pieces are equal
                    if x[p:p + 4096] == y[p:p + 4096]:
                        continue
                    for i in range(p, min(p + 4096, m)):
                        if x[i] != y[i] and not ignored(off + i):
                            n += 1
                            if n <= 12:
                                print("block %d +0x%x: %o %o" % ((off + i) // bs, (off + i) % bs, x[i], y[i]))
            off += m
    if sa != sb:
        sys.stdout.flush()
        sys.stderr.write("cmp: EOF on %s\n" % (a if sa < sb else b))
    if n:
        print("%d bytes differ" % n)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
