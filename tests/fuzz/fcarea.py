#!/usr/bin/env python3
# fcarea.py - synthetic ext4 fast-commit areas, laid out as the kernel's
# writer does (records from offset 0, a PAD to the block end when a record
# does not fit, a TAIL whose value runs to the block end and whose crc32c,
# seed 0, covers the records since the previous tail).
#   python3 fcarea.py DIR   writes the fuzz_fc seeds (6 parameter bytes, then
#                           the area) into DIR
# Image tests import it to write areas into journals.
import os, struct, sys

def crc32c(crc, data):
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc

class Area:
    def __init__(self, bs):
        self.bs, self.blocks, self.cur, self.crc = bs, [], bytearray(), 0

    def rec(self, tag, val):
        r = struct.pack("<HH", tag, len(val)) + val
        if len(r) > self.bs - 4 - len(self.cur):	# as ext4_fc_reserve_space()
            self.pad_block()
        self.rec_raw(r)

    def pad_block(self):
        n = self.bs - 4 - len(self.cur)
        self.rec_raw(struct.pack("<HH", 7, n) + bytes(n))
        self.flush()

    def rec_raw(self, r):
        self.cur += r
        self.crc = crc32c(self.crc, r)

    def flush(self):
        self.blocks.append(bytes(self.cur) + bytes(self.bs - len(self.cur)))
        self.cur = bytearray()

    def image(self, nblocks):
        """the area: the blocks written, then zero blocks up to @nblocks"""
        return b"".join(self.blocks + [bytes(self.bs)] * (nblocks - len(self.blocks)))

    def tail(self, tid, bad=False):
        if 12 > self.bs - 4 - len(self.cur):
            self.pad_block()
        n = self.bs - len(self.cur) - 4
        hdr = struct.pack("<HHI", 8, n, tid)
        self.cur += hdr
        self.crc = crc32c(self.crc, hdr)
        self.cur += struct.pack("<I", self.crc ^ (1 if bad else 0))
        self.crc = 0
        self.flush()

def head(a, tid, feat=0): a.rec(9, struct.pack("<II", feat, tid))
def add_range(a, ino, lblk, ee_len, pblk):
    a.rec(1, struct.pack("<IIHHI", ino, lblk, ee_len, pblk >> 32, pblk & 0xffffffff))
def del_range(a, ino, lblk, n): a.rec(2, struct.pack("<III", ino, lblk, n))
def dentry(a, tag, parent, ino, name): a.rec(tag, struct.pack("<II", parent, ino) + name)
def inode(a, ino, n, size):
    raw = bytearray(n)
    struct.pack_into("<HHI", raw, 0, 0o100644, 0, size)
    struct.pack_into("<H", raw, 0x1A, 1)
    if n > 128:
        struct.pack_into("<H", raw, 0x80, n - 128)
    a.rec(6, struct.pack("<I", ino) + bytes(raw))

def jsb_csum(sb):
    """jbd2 superblock checksum (v2/v3): crc32c(~0) with s_checksum zeroed"""
    return crc32c(0xffffffff, bytes(sb[:0xfc]) + bytes(4) + bytes(sb[0x100:1024]))

def seed(path, bs, isz_sel, tid, a, nblocks):
    with open(path, "wb") as f:
        f.write(bytes([{1024: 0, 2048: 1, 4096: 2, 8192: 3}[bs], isz_sel]) + struct.pack("<I", tid))
        f.write(a.image(nblocks))

def write_seeds(out):
    os.makedirs(out, exist_ok=True)

    a = Area(1024)	# every tag, three fast commits, the last one of an older transaction
    head(a, 7)
    add_range(a, 12, 0, 2, 300)
    add_range(a, 12, 2, 32768 + 3, 0x100000200)
    del_range(a, 13, 5, 10)
    dentry(a, 3, 2, 14, b"new-file")
    dentry(a, 4, 2, 14, b"hard-link")
    dentry(a, 5, 11, 15, b"gone")
    inode(a, 14, 160, 5000)
    a.tail(7)
    inode(a, 12, 256, 8192)
    a.tail(7)
    inode(a, 13, 160, 1)
    a.tail(5)
    seed(os.path.join(out, "valid-1k.fc"), 1024, 1, 7, a, 5)

    a = Area(4096)	# the kernel's usual shape: 4k blocks, 160-byte inodes
    head(a, 381)
    add_range(a, 626, 0, 2, 42077)
    inode(a, 626, 160, 5000)
    a.tail(381)
    inode(a, 472, 160, 317)
    a.tail(381)
    seed(os.path.join(out, "valid-4k.fc"), 4096, 1, 381, a, 3)
    seed(os.path.join(out, "stale-4k.fc"), 4096, 1, 382, a, 3)

    a = Area(1024)	# the first tail fails its crc
    head(a, 9)
    dentry(a, 3, 2, 20, b"x" * 255)
    a.tail(9, bad=True)
    seed(os.path.join(out, "badcrc.fc"), 1024, 1, 9, a, 2)

    a = Area(1024)	# fast commits up to the last block of the area
    head(a, 3)
    for i in range(4):
        del_range(a, 12 + i, i, 1)
        a.tail(3)
    seed(os.path.join(out, "full.fc"), 1024, 0, 3, a, 4)

if __name__ == "__main__":
    write_seeds(sys.argv[1])
