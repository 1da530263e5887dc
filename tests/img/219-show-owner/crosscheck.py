#!/usr/bin/env python3
"""crosscheck.py REPLAY IMAGE TID COPY [--sample N]

Check what `extkit-replay --json show IMAGE TID` says the home blocks are
against e2fsprogs looking at COPY, the image replayed up to TID:

  superblock, descriptors, reserved GDT, bitmaps, inode tables
                            dumpe2fs's per-group layout
  data, directory, journal  debugfs bmap <inode> <logical block> is the block,
                            stat says the inode's type
  tree and xattr blocks     debugfs icheck names the inode
  free / unknown            debugfs testb, and icheck finds no inode

Prints one line per kind (how many agree) and one line per disagreement;
exits 1 on any disagreement or when nothing was checked.  --sample N keeps
every k-th block so that at most N are checked.
"""
import json
import re
import subprocess
import sys


def run(*args, stdin=None):
    p = subprocess.run(args, input=stdin, capture_output=True, text=True)
    return p.stdout


def debugfs_batch(image, cmds):
    """outputs of each command, in order"""
    out = run('debugfs', '-f', '-', image, stdin=''.join(c + '\n' for c in cmds))
    parts = re.split(r'^debugfs: ', out, flags=re.M)[1:]
    res = []
    for p in parts:
        res.append(p.split('\n', 1)[1] if '\n' in p else '')
    if len(res) != len(cmds):
        sys.exit('debugfs gave %d answers to %d commands' % (len(res), len(cmds)))
    return res


def layout(image):
    """block -> (kind, group, extra) from dumpe2fs; and the header fields"""
    text = run('dumpe2fs', image)
    hdr = {}
    for line in text.splitlines():
        m = re.match(r'^([A-Za-z ]+):\s+(.*)$', line)
        if m:
            hdr.setdefault(m.group(1), m.group(2))
    meta = {}
    group = None

    def rng(s):
        a, _, b = s.partition('-')
        return range(int(a), int(b or a) + 1)

    for line in text.splitlines():
        m = re.match(r'^Group (\d+):', line)
        if m:
            group = int(m.group(1))
            continue
        if group is None:
            continue
        for m in re.finditer(r'(Primary|Backup) superblock at (\d+)', line):
            meta[int(m.group(2))] = ('superblock', group, m.group(1) == 'Backup', None)
        for m in re.finditer(r'Group descriptors? at ([\d-]+)', line):
            for i, b in enumerate(rng(m.group(1))):
                meta[b] = ('group_descriptors', group, None, i)
        for m in re.finditer(r'Reserved GDT blocks at ([\d-]+)', line):
            for b in rng(m.group(1)):
                meta[b] = ('reserved_gdt', group, None, None)
        for m in re.finditer(r'Block bitmap at (\d+)', line):
            meta[int(m.group(1))] = ('block_bitmap', group, None, None)
        for m in re.finditer(r'Inode bitmap at (\d+)', line):
            meta[int(m.group(1))] = ('inode_bitmap', group, None, None)
        for m in re.finditer(r'Inode table at ([\d-]+)', line):
            for i, b in enumerate(rng(m.group(1))):
                meta[b] = ('inode_table', group, None, i)
    return hdr, meta


def main():
    args = sys.argv[1:]
    sample = 0
    if '--sample' in args:
        i = args.index('--sample')
        sample = int(args[i + 1])
        del args[i:i + 2]
    replay, image, tid, copy = args
    show = json.loads(run(replay, '--json', 'show', image, tid))
    blocks = [(b['home'], b['owner']) for b in show['blocks'] if b['owner']]
    seen = set()
    blocks = [x for x in blocks if not (x[0] in seen or seen.add(x[0]))]
    if sample and len(blocks) > sample:
        step = (len(blocks) + sample - 1) // sample
        blocks = blocks[::step]
    hdr, meta = layout(copy)
    bs = int(hdr['Block size'])
    nblocks = int(hdr['Block count'])
    ipg = int(hdr['Inodes per group'])
    isz = int(hdr.get('Inode size', '128').split()[0])
    dsz = int(hdr.get('Group descriptor size', '32'))
    jino = int(hdr.get('Journal inode', '0'))

    homes = [h for h, _ in blocks if h < nblocks]
    owner = {}
    if homes:
        ic = debugfs_batch(copy, ['icheck ' + ' '.join(map(str, homes))])[0]
        for line in ic.splitlines()[1:]:
            b, _, ino = line.partition('\t')
            owner[int(b)] = None if ino.startswith('<') else int(ino)
    cmds = []
    for h, o in blocks:
        if h < nblocks:
            cmds.append('testb %d' % h)
        if o['kind'] in ('data', 'directory', 'journal'):
            cmds.append('bmap <%d> %d' % (o['inode'], o['logical_block']))
            cmds.append('stat <%d>' % o['inode'])
    answers = iter(debugfs_batch(copy, cmds))

    agree = {}
    bad = []
    for h, o in blocks:
        k = o['kind']
        why = None
        used = None
        if h < nblocks:
            used = 'marked in use' in next(answers)
        m = meta.get(h)
        if k in ('superblock', 'group_descriptors', 'reserved_gdt', 'block_bitmap',
                 'inode_bitmap', 'inode_table'):
            if not m or m[0] != k or m[1] != o['group']:
                why = 'dumpe2fs: %s' % (m,)
            elif k == 'superblock' and m[2] != o['backup']:
                why = 'dumpe2fs: backup %s' % m[2]
            elif k == 'group_descriptors' and o['first_group'] != m[3] * (bs // dsz):
                why = 'dumpe2fs: descriptor block %d of its copy' % m[3]
            elif k == 'inode_table' and o['first_inode'] != o['group'] * ipg + m[3] * (bs // isz) + 1:
                why = 'dumpe2fs: block %d of the table' % m[3]
        elif k in ('data', 'directory', 'journal'):
            pblk = next(answers).strip()
            st = next(answers)
            if pblk != str(h):
                why = 'bmap <%d> %d is %s' % (o['inode'], o['logical_block'], pblk)
            elif k == 'directory' and 'Type: directory' not in st:
                why = 'inode %d is not a directory' % o['inode']
            elif k == 'data' and 'Type: directory' in st:
                why = 'inode %d is a directory' % o['inode']
            elif k == 'journal' and o['inode'] != jino:
                why = 'journal inode is %d' % jino
            elif owner.get(h) not in (o['inode'], None):
                why = 'icheck: inode %s' % owner.get(h)
        elif k in ('extent_leaf', 'extent_index', 'indirect', 'xattr'):
            want = o['first_inode'] if k == 'xattr' else o['inode']
            if owner.get(h) != want:
                why = 'icheck: inode %s' % owner.get(h)
        elif k == 'free':
            if used or owner.get(h) or m:
                why = 'testb in use %s, icheck %s, dumpe2fs %s' % (used, owner.get(h), m)
        elif k == 'unknown':
            if not used or owner.get(h) or m:
                why = 'testb in use %s, icheck %s, dumpe2fs %s' % (used, owner.get(h), m)
        elif k == 'outside':
            if h < nblocks:
                why = 'inside (%d blocks)' % nblocks
        elif k == 'boot':
            if not (h == 0 and bs == 1024):
                why = 'not block 0 of 1 KiB blocks'
        else:
            why = 'kind not checked'
        if why:
            bad.append('block %d: %s: %s' % (h, k, why))
        else:
            agree[k] = agree.get(k, 0) + 1
    for k in sorted(agree):
        print('  %-18s %4d agree' % (k, agree[k]))
    for line in bad:
        print('  DISAGREE ' + line)
    if bad or not agree:
        sys.exit(1)


main()
