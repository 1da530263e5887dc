#!/usr/bin/env python3
"""stats -h against dumpe2fs -h, line by line.

compare.py CORPUS_DIR ('' for none)

Images: mke2fs-made ones covering ext2/ext3/ext4, 1 KiB and 4 KiB blocks,
64bit or not, metadata_csum or not, bigalloc, meta_bg, and one with many
superblock fields set (RAID geometry, mount options, check interval, error
records, quota, casefold, MMP, sparse_super2, orphan file, encryption);
then every image.gz/.bz2 of CORPUS_DIR/e2fsprogs/*/ that dumpe2fs -h reads
(but external journal devices, which extkit-debugfs does not open).
The only filter: the blanks after a label's colon are made one space
(dumpe2fs has a tab in 'Inode size:' and 'Journal device:'), and blank
lines are dropped.  Every other difference, a missing line above all, fails.
"""
import bz2
import glob
import gzip
import os
import re
import subprocess
import sys

EK = os.environ["EK_DEBUGFS"]
T = os.environ.get("T", ".")
ENV = dict(os.environ, LC_ALL="C", TZ="GMT0", E2FSPROGS_FAKE_TIME="1700000000")
corpus = sys.argv[1] if len(sys.argv) > 1 else ""


def sh(cmd):
    return subprocess.run(cmd, shell=True, env=ENV, capture_output=True, text=True,
                          errors="replace")


def norm(text):
    out = []
    for line in text.splitlines():
        if not line.strip():
            continue
        out.append(re.sub(r"^([^:]*:)[ \t]+", r"\1 ", line.rstrip()))
    return out


MADE = [
    ("ext2-1k", "mke2fs -q -F -t ext2 -b 1024 {img} 8M"),
    ("ext3", "mke2fs -q -F -t ext3 {img} 16M"),
    ("ext4", "mke2fs -q -F -t ext4 {img} 32M"),
    ("ext4-no64-nocsum", "mke2fs -q -F -t ext4 -O ^64bit,^metadata_csum {img} 32M"),
    ("ext4-bigalloc", "mke2fs -q -F -t ext4 -O bigalloc -C 16384 {img} 64M"),
    ("ext4-meta_bg", "mke2fs -q -F -t ext4 -O meta_bg,^resize_inode {img} 64M"),
    ("ext4-many", "mke2fs -q -F -t ext4 -L lbl -M /mnt/x "
     "-O orphan_file,mmp,quota,project,casefold,sparse_super2,encrypt,metadata_csum_seed "
     "-E stride=16,stripe_width=32,test_fs,num_backup_sb=2 {img} 64M && "
     "tune2fs -i 3d -e remount-ro -r 100 -u 1234 -g 4567 -C 3 -c 20 "
     "-o journal_data,nobarrier,discard,block_validity -E mount_opts=nodelalloc {img} && "
     "debugfs -w -f - {img} <<'X'\n"
     "ssv error_count 3\nssv first_error_time 20230101\nssv first_error_func ext4_foo\n"
     "ssv first_error_ino 12\nssv first_error_block 99\nssv first_error_line 7\n"
     "ssv last_error_time 20230202\nssv last_error_func ext4_bar\nssv last_error_line 8\n"
     "ssv kbytes_written 123456789\nssv snapshot_inum 7\nssv snapshot_id 2\n"
     "ssv snapshot_list 9\nssv state 3\nssv last_orphan 11\nssv mtime 20230303\n"
     "ssv raid_stride 4\nX"),
    ("ext4-no-flags", "mke2fs -q -F -t ext4 {img} 16M && debugfs -w -R 'ssv flags 0' {img}"),
]

images = []
for name, cmd in MADE:
    img = os.path.join(T, name + ".img")
    r = sh(cmd.format(img=img))
    if r.returncode:
        print("FAIL: could not make %s: %s" % (name, r.stderr.strip()[:300]))
        sys.exit(1)
    images.append((name, img))

if corpus:
    for src in sorted(glob.glob(os.path.join(corpus, "e2fsprogs/*/image.gz")) +
                      glob.glob(os.path.join(corpus, "e2fsprogs/*/image.bz2"))):
        name = os.path.basename(os.path.dirname(src))
        img = os.path.join(T, "corpus.img")
        opener = gzip.open if src.endswith(".gz") else bz2.open
        with opener(src, "rb") as f, open(img + "." + name, "wb") as out:
            out.write(f.read())
        images.append((name, img + "." + name))

failed = compared = skipped = 0
for name, img in images:
    d = sh("dumpe2fs -h '%s'" % img)
    if d.returncode:
        skipped += 1		# dumpe2fs cannot read it either
        continue
    if re.search(r"^Filesystem features:.*\bjournal_dev\b", d.stdout, re.M):
        skipped += 1		# an external journal device: not a filesystem to open
        continue
    e = sh("'%s' -n -R 'stats -h' '%s'" % (EK, img))
    want, got = norm(d.stdout), norm(e.stdout)
    compared += 1
    if re.search(r"Sanitizer|runtime error:", e.stderr) or e.returncode not in (0, 1):
        failed += 1
        print("FAIL %s: exit %d\n%s" % (name, e.returncode, e.stderr[-2000:]))
        continue
    if want != got:
        failed += 1
        gs = set(got)
        missing = [l for l in want if l not in gs]
        ws = set(want)
        extra = [l for l in got if l not in ws]
        print("FAIL %s: %d dumpe2fs lines missing or different, %d extra" %
              (name, len(missing), len(extra)))
        for l in missing[:8]:
            print("   - " + l)
        for l in extra[:8]:
            print("   + " + l)
        if not missing and not extra:
            print("   (same lines in another order)")
    if img.startswith(os.path.join(T, "corpus.img")):
        os.unlink(img)
print("stats -h vs dumpe2fs -h: %d images compared, %d differ, %d skipped "
      "(unreadable by dumpe2fs, or a journal device)" %
      (compared, failed, skipped))
sys.exit(1 if failed else 0)
