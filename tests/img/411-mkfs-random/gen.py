#!/usr/bin/env python3
# gen.py SEED COUNT: COUNT random mke2fs command lines, one per line:
#   SIZE<TAB>OPTIONS
# drawn from the options extkit-mkfs and mke2fs 1.47 share, and from
# features another branch added (drawn less often, so that a seed gives
# the sets it gave before the merge).
# The same SEED gives the same lines.
import random
import sys

seed, count = int(sys.argv[1]), int(sys.argv[2])
rnd = random.Random(seed)
# options added later draw from their own stream, so a seed still gives
# the sets it gave before them, each with the new options appended
rnd2 = random.Random(seed * 7919 + 411)

FEATURES = ["has_journal", "^has_journal", "flex_bg", "^flex_bg", "metadata_csum",
            "^metadata_csum", "64bit", "^64bit", "extent", "^extent", "^huge_file",
            "^dir_nlink", "^extra_isize", "inline_data", "bigalloc", "uninit_bg",
            "^resize_inode", "metadata_csum_seed", "orphan_file", "fast_commit",
            "^dir_index", "^ext_attr", "^filetype", "large_dir", "^large_file",
            "sparse_super", "resize_inode", "huge_file", "dir_nlink", "extra_isize",
            # added by another branch (h-mkfeat): drawn less often, as before
            "meta_bg", "mmp", "quota", "project", "casefold", "encrypt", "ea_inode",
            "verity", "sparse_super2", "^sparse_super", "stable_inodes"]
OTHER_BRANCH = set(FEATURES[FEATURES.index("meta_bg"):])
SIZES_K = [300, 600, 1024, 2047, 2048, 3000, 3072, 4096, 8192, 10000, 16384, 32768,
           50000, 65536, 100000, 131072, 200000, 262144, 400000, 524287]


def case():
    o = ["-t", rnd.choice(["ext2", "ext3", "ext4", "ext4", "ext4"])]
    size = rnd.choice(SIZES_K)
    if rnd.random() < 0.4:
        size += rnd.randrange(0, 2000)
    bs = None
    if rnd.random() < 0.5:
        bs = rnd.choice([1024, 2048, 4096, 4096])
        o += ["-b", str(bs)]
    if rnd.random() < 0.25:
        o += ["-T", rnd.choice(["small", "floppy", "news", "largefile", "largefile4",
                                "big", "huge", "default", "small,news"])]
    feats = [f for f in FEATURES
             if rnd.random() < (0.012 if f in OTHER_BRANCH else 0.045)]
    if feats:
        o += ["-O", ",".join(feats)]
    if "bigalloc" in feats and rnd.random() < 0.5:
        o += ["-C", str((bs or 4096) * rnd.choice([2, 4, 16, 32]))]
    if rnd.random() < 0.2:
        o += ["-I", rnd.choice(["128", "256", "512", "1024"])]
    if rnd.random() < 0.15:
        o += ["-i", rnd.choice(["2048", "4096", "8192", "16384", "65536"])]
    if rnd.random() < 0.12:
        o += ["-N", str(rnd.choice([16, 100, 1000, 5000, 20000, 100000]))]
    if rnd.random() < 0.15:
        o += ["-m", rnd.choice(["0", "1", "2.5", "10", "50"])]
    if rnd.random() < 0.12:
        top = (bs or 1024) * 8
        o += ["-g", str(rnd.randrange(256, top + 1, 8))]
    if rnd.random() < 0.1:
        o += ["-G", rnd.choice(["1", "2", "4", "32", "128"])]
    if rnd.random() < 0.12:
        o += ["-J", "size=%d" % rnd.choice([1, 2, 4, 8, 16, 64])]
    elif rnd.random() < 0.05:
        o += ["-j"]
    if rnd.random() < 0.1:
        o += ["-e", rnd.choice(["continue", "remount-ro", "panic"])]
    if rnd.random() < 0.1:
        o += ["-L", rnd.choice(["root", "a-longer-label16", "x"])]
    ext = []
    for opt, p in (("stride=%d" % rnd.choice([1, 4, 13, 64, 300]), 0.12),
                   ("stripe_width=%d" % rnd.choice([4, 26, 128]), 0.08),
                   ("resize=%d" % rnd.choice([100000, 1000000, 4000000, 100000000]), 0.1),
                   ("test_fs", 0.05), ("lazy_itable_init=0", 0.1),
                   ("lazy_journal_init=1", 0.08), ("nodiscard", 0.12),
                   ("desc_size=%d" % rnd.choice([64, 128, 256, 1024]), 0.06),
                   ("root_owner=%d:%d" % (rnd.randrange(70000), rnd.randrange(70000)), 0.06),
                   ("assume_storage_prezeroed=1", 0.05),
                   ("orphan_file_size=%d" % rnd.choice([8, 32, 100]), 0.04),
                   ("num_backup_sb=%d" % rnd.choice([0, 1, 2]), 0.01)):
        if rnd.random() < p:
            ext.append(opt)
    if ext:
        o += ["-E", ",".join(ext)]
    # mke2fs's -J location=, fast_commit_size=, v1_superblock, the old -K, -s
    if rnd2.random() < 0.1:
        o += ["-J", "location=%s" % rnd2.choice(["0", "1000", "5000", "20000", "100000",
                                                 "10M", "1G", "0x4000"])]
    if rnd2.random() < 0.05:
        o += ["-J", "fast_commit_size=%d" % rnd2.choice([4, 64, 256, 1024, 4096])]
    if rnd2.random() < 0.04:
        o += ["-J", "v1_superblock"]
    if rnd2.random() < 0.03:
        o += ["-K"]
    if rnd2.random() < 0.03:
        o += ["-s", rnd2.choice(["0", "1"])]
    return "%dk\t%s" % (size, " ".join(o))


for _ in range(count):
    print(case())
