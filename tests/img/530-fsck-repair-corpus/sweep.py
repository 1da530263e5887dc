#!/usr/bin/env python3
"""sweep.py FSCK CORPUS WORKDIR JOBS: extkit-fsck -fy over every f_ image of
e2fsprogs' suite, against e2fsck -fy on a second copy.  One tab-separated
line per image on stdout:
  name  ours1  e2fn  ours2  kept_ours  kept_e2  note  e2_ino  our_ino  both_ino
ours1: our -fy's exit; e2fn: e2fsck -fn's exit after it; ours2: what a
second -fy found (its error findings, warnings being what e2fsck -n
leaves too; its exit when past 3); kept_*: the regular files e2fsprogs'
debugfs rdump reads back whole from the image each tool repaired (e2fsck
-fy run until clean, at most 3 times; e2fsck's count is cached across runs:
see e2fsck_kept); note: 'sanitizer' or 'crash' when
our run printed a sanitizer report or exited past 8; *_ino: the inodes
e2fsck -fy's findings name in the image's expect.1, those our -fy's
findings name, and those both name (501's overlap.py reads them).
Both tools' first -fy get the -E options e2fsprogs' harness gave e2fsck
on that image (f_unshare_blocks_*: -E unshare_blocks); the runs after it
are plain, as the harness's second run."""
import gzip, hashlib, json, os, re, shutil, subprocess, sys, threading
from concurrent.futures import ThreadPoolExecutor

FSCK, CORPUS, WORK, JOBS = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '501-fsck-corpus'))
from overlap import e2fsck_inodes, our_inodes  # noqa: E402
CACHE = os.environ.get('EK_ORACLE_CACHE') or os.path.join(os.environ.get('TMPDIR', '/tmp'),
                                                            'ek-oracle-cache')
E2FSCK_VERSION = subprocess.run(['e2fsck', '-V'], stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT).stdout
SAN = re.compile(rb'AddressSanitizer|runtime error:|LeakSanitizer')


def harness_extended():
    """per test, the -E options e2fsprogs' harness gave e2fsck (MANIFEST.tsv's
    harness column, FSCK_OPT): both tools get them"""
    opts = {}
    try:
        with open(os.path.join(CORPUS, 'MANIFEST.tsv')) as f:
            for line in f:
                cols = line.rstrip('\n').split('\t')
                if len(cols) > 10:
                    m = re.search(r'FSCK_OPT=([^;\]]*)', cols[10])
                    e = re.findall(r'-E\s+(\S+)', m.group(1)) if m else []
                    if e:
                        opts[cols[0]] = ['-E', ','.join(e)]
    except OSError:
        pass
    return opts


EXTENDED = harness_extended()


def run(cmd, timeout=120):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired:
        return 124, b'timeout'


# rdump writes holes as zeros: a 4 TiB sparse file (f_big_sparse after
# repair) would fill the disk.  Each file it writes stops at 64 MiB (the
# write fails, SIGXFSZ ignored; the file is there), and its log at 64 KiB:
# debugfs, still failing a write per block, then dies of SIGPIPE (what it
# had not dumped yet is not counted, alike for both tools' images)
CAPPED = ['sh', '-c', 'trap "" XFSZ; prlimit --fsize=67108864 "$@" 2>&1 | head -c 65536', 'sh']


def kept(img, tmp):
    """regular files rdump writes whole (its read errors name the rest)"""
    out = os.path.join(tmp, 'dump')
    shutil.rmtree(out, ignore_errors=True)
    os.mkdir(out)
    rc, log = run(CAPPED + ['debugfs', '-R', 'rdump / ' + out, img], 60)
    files = sum(1 for d, _, fs in os.walk(out) for f in fs
                if os.path.isfile(os.path.join(d, f)) and not os.path.islink(os.path.join(d, f)))
    bad = len(re.findall(rb'while reading|while dumping|short read', log))
    shutil.rmtree(out, ignore_errors=True)
    return max(files - bad, 0)


def e2fsck_kept(name, img, tmp, jt):
    """kept() of the image e2fsck -fy repaired (run until clean, at most 3
    times).  It depends only on the image and e2fsck, so it is kept in
    EK_ORACLE_CACHE (default $TMPDIR/ek-oracle-cache) under the image's
    hash and e2fsck's version: the sanitizer round reuses the plain one's."""
    h = hashlib.sha256(E2FSCK_VERSION + ' '.join(EXTENDED.get(name, [])).encode())
    for part in ('image.gz', 'journal.gz'):
        if os.path.isfile(os.path.join(CORPUS, name, part)):
            with open(os.path.join(CORPUS, name, part), 'rb') as f:
                h.update(f.read())
    key = h.hexdigest()
    cache = os.path.join(CACHE, 'e2fsck-fy-kept-capped-' + key)
    try:
        with open(cache) as f:
            return int(f.read())
    except (OSError, ValueError):
        pass
    for _ in range(3):
        r, _ = run(['e2fsck', '-fy'] + EXTENDED.get(name, []) + jt + [img])
        if r < 4 and run(['e2fsck', '-fn'] + jt + [img])[0] == 0:
            break
    n = kept(img, tmp)
    os.makedirs(CACHE, exist_ok=True)
    # a name of its own: two images of the same bytes may be counted at once
    part = '%s.new.%d.%d' % (cache, os.getpid(), threading.get_ident())
    with open(part, 'w') as f:
        f.write(str(n))
    os.replace(part, cache)
    return n


def one(name):
    tmp = os.path.join(WORK, name)
    os.makedirs(tmp, exist_ok=True)
    ours, theirs = os.path.join(tmp, 'ours'), os.path.join(tmp, 'e2')
    with gzip.open(os.path.join(CORPUS, name, 'image.gz')) as src, open(ours, 'wb') as dst:
        shutil.copyfileobj(src, dst)
    shutil.copyfile(ours, theirs)
    # an external journal beside the image (f_ext_journal): given to both
    # tools with -j, as e2fsprogs' test gives it (each its own copy)
    jo, jt = [], []
    if os.path.isfile(os.path.join(CORPUS, name, 'journal.gz')):
        with gzip.open(os.path.join(CORPUS, name, 'journal.gz')) as src, \
                open(os.path.join(tmp, 'ours.jnl'), 'wb') as dst:
            shutil.copyfileobj(src, dst)
        shutil.copyfile(os.path.join(tmp, 'ours.jnl'), os.path.join(tmp, 'e2.jnl'))
        jo, jt = ['-j', os.path.join(tmp, 'ours.jnl')], ['-j', os.path.join(tmp, 'e2.jnl')]
    note = '-'
    try:
        p = subprocess.run([FSCK, '-fy', '--json'] + EXTENDED.get(name, []) + jo + [ours],
                           stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=120)
        k1, doc, log = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        k1, doc, log = 124, b'', b''
    if SAN.search(log):
        note = 'sanitizer'
    elif k1 > 8:
        note = 'crash'
    try:
        mine = our_inodes(json.loads(doc))
    except ValueError:
        mine = set()
    # the inodes named are compared only where e2fsck's run is on record
    # (f_badcluster, f_yesall: a bespoke expect, not e2fsck -fy's expect.1)
    expect = os.path.join(CORPUS, name, 'expect.1')
    if os.path.exists(expect):
        theirs_ino = e2fsck_inodes(open(expect, errors='replace').read())
    else:
        theirs_ino = mine = set()
    e, _ = run(['e2fsck', '-fn'] + jo + [ours])
    k2, log2 = run([FSCK, '-fy', '--json'] + jo + [ours])
    if SAN.search(log2):
        note = 'sanitizer'
    # what it found: exit 1 alone can be the check marking the state valid
    # (after a run that left errors), as e2fsck's second run does
    try:
        if k2 < 4:
            text = log2.decode('utf-8', 'replace')
            doc2, _ = json.JSONDecoder().raw_decode(text[text.index('{'):])
            k2 = sum(1 for f in doc2.get('findings', []) if f.get('severity') == 'error')
    except ValueError:
        pass
    line = '\t'.join(map(str, (name, k1, e, k2, kept(ours, tmp), e2fsck_kept(name, theirs, tmp, jt), note,
                                len(theirs_ino), len(mine), len(theirs_ino & mine))))
    shutil.rmtree(tmp, ignore_errors=True)
    return line


names = sorted(n for n in os.listdir(CORPUS)
               if n.startswith('f_') and os.path.isfile(os.path.join(CORPUS, n, 'image.gz')))
with ThreadPoolExecutor(JOBS) as pool:
    for line in pool.map(one, names):
        print(line, flush=True)
