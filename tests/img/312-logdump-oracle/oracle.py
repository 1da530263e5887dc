# oracle.py KERNEL_CORPUS EXTKIT_DEBUGFS TMPDIR -- see ./script for what is compared.
import collections, gzip, json, os, random, re, subprocess, sys

kdir, ours_bin, tmp = sys.argv[1:4]


class Mismatch(Exception):
    pass


def e2(img, req, jnl):
    """e2fsprogs' debugfs request on @img; stdout"""
    if jnl:
        req += " -f " + jnl
    r = subprocess.run(["debugfs", "-c", "-R", req, img], capture_output=True, text=True, timeout=300)
    return r.stdout


def ours(img, req, jnl):
    """our logdump request as JSON"""
    if jnl:
        req += " -f " + jnl
    r = subprocess.run([ours_bin, "--json", "-R", req, img], capture_output=True, text=True,
                       timeout=300)
    if r.returncode != 0 or re.search(r"AddressSanitizer|runtime error:", r.stderr):
        raise Mismatch("'%s': exit %d: %s" % (req, r.returncode, r.stderr.strip()[:300]))
    return json.loads(r.stdout)


# ---- e2fsprogs' text ------------------------------------------------------------

def e2_all(text):
    """logdump -a: header blocks {(tid, jblk, type)}, tags {(tid, jblk, home)},
    revoke records {(tid, jblk, home)}, the end block"""
    heads, tags, revs, end = set(), set(), set(), None
    tid = rblk = None
    for line in text.splitlines():
        m = re.match(r"Found expected sequence (\d+), type (\d+) .* at block (\d+)", line)
        if m:
            tid, typ, blk = map(int, m.groups())
            heads.add((tid, blk, typ))
            rblk = blk if typ == 5 else None
            continue
        m = re.match(r"\s+FS block (\d+) logged at journal block (\d+)", line)
        if m:
            tags.add((tid, int(m.group(2)), int(m.group(1))))
            continue
        m = re.match(r"\s+Revoke FS block (\d+)$", line)
        if m:
            revs.add((tid, rblk, int(m.group(1))))
            continue
        m = re.match(r"(?:No magic number|Found sequence \d+ \(not \d+\)) at block (\d+)", line)
        if m:
            end = int(m.group(1))
    return heads, tags, revs, end


def e2_block(text):
    """logdump -b N [-c]: tags {(tid, jblk, home)}, revoke records, the bitmap bit
    per (tid, jblk), and the hex dump per (tid, jblk) when -c"""
    tags, revs, bits, dumps = set(), set(), {}, {}
    cur = None
    for line in text.splitlines():
        m = re.match(r"\s+FS block (\d+) logged at sequence (\d+), journal block (\d+)", line)
        if m:
            home, tid, jblk = map(int, m.groups())
            tags.add((tid, jblk, home))
            cur = (tid, jblk)
            dumps[cur] = bytearray()
            continue
        m = re.match(r"\s+Revoke FS block (\d+) at block (\d+), sequence (\d+)", line)
        if m:
            home, jblk, tid = map(int, m.groups())
            revs.add((tid, jblk, home))
            cur = None
            continue
        m = re.match(r"\s+\(block bitmap for block \d+: block is (SET|CLEAR)\)", line)
        if m and cur:
            bits[cur] = m.group(1) == "SET"
            continue
        m = re.match(r"\s+([0-9a-f]{4}):  ((?:[0-9a-f]{8} ){4})", line)
        if m and cur:
            # words printed as host-order ints (little-endian here)
            for w in m.group(2).split():
                dumps[cur] += int(w, 16).to_bytes(4, "little")
    return tags, revs, bits, dumps


# ---- ours ---------------------------------------------------------------------------

def our_sets(doc):
    heads, tags, revs = set(), set(), set()
    names = {"descriptor": 1, "commit": 2, "revoke": 5}
    for r in doc["records"]:
        if r["type"] == "data":
            tags.add((r["tid"], r["journal_block"], r["home"]))
            continue
        if r["type"] in names:
            heads.add((r["tid"], r["journal_block"], names[r["type"]]))
        for h in r.get("revoked", []):
            revs.add((r["tid"], r["journal_block"], h))
    return heads, tags, revs


allowed = [0]	# differences the fast-commit wrap exception let through


def compare(what, mine, theirs, allow_mine, allow_theirs, bad):
    """sets must be equal, except our extras that allow_mine accepts and
    theirs that allow_theirs accepts"""
    extra = sorted(x for x in mine - theirs if not allow_mine(x))
    missing = sorted(x for x in theirs - mine if not allow_theirs(x))
    allowed[0] += len(mine - theirs) - len(extra) + len(theirs - mine) - len(missing)
    if extra:
        bad.append("%s: %d not in e2fsprogs' output, e.g. %s" % (what, len(extra), extra[:3]))
    if missing:
        bad.append("%s: %d of e2fsprogs' missing, e.g. %s" % (what, len(missing), missing[:3]))
    return len(mine & theirs)


def gunzip_sparse(src, dst):
    """decompress @src to @dst as a sparse file: ../unpack.sh, which
    decompresses each image once a run for all the tests that read it"""
    unpack_sh = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "unpack.sh")
    subprocess.run(["sh", "-c", '. "$1" && unpack "$2" "$3"', "sh", unpack_sh, src, dst], check=True)


def check_image(name, d, bad):
    img = os.path.join(tmp, name + ".img")
    gunzip_sparse(os.path.join(d, "crash.img.gz"), img)
    jnl = None
    if os.path.exists(os.path.join(d, "crash-journal.img.gz")):
        jnl = os.path.join(tmp, name + ".journal")
        gunzip_sparse(os.path.join(d, "crash-journal.img.gz"), jnl)
    summary = json.load(open(os.path.join(d, "summary.json")))
    kernel_ref = summary.get("verify", {}).get("expect") == "kernel"
    try:
        return check(img, jnl, kernel_ref, bad)
    finally:
        os.unlink(img)
        if jnl:
            os.unlink(jnl)


def check(img, jnl, kernel_ref, bad):
    global nrec
    allowed[0] = 0
    doc = ours(img, "logdump -a", jnl)
    start, last = doc["journal"]["start"], doc["journal"]["last"]
    # fast-commit journals: e2fsprogs cannot see what lies past our wrap
    wrapped = (lambda x: kernel_ref and x[1] < start)
    in_fc = (lambda x: kernel_ref and x[1] >= last)

    heads, tags, revs = our_sets(doc)
    eh, et, er, eend = e2_all(e2(img, "logdump -a", jnl))
    n = compare("-a header blocks", heads, eh, wrapped, in_fc, bad)
    n += compare("-a tags", tags, et, wrapped, in_fc, bad)
    n += compare("-a revoke records", revs, er, wrapped, in_fc, bad)
    if not kernel_ref and eend != doc["end"]["journal_block"]:
        bad.append("end of log: ours %d, e2fsprogs %s" % (doc["end"]["journal_block"], eend))
    if not tags:
        bad.append("no logged block at all")
        return "nothing logged"

    # -b: a sample of blocks
    rnd = random.Random(1234)
    count = collections.Counter(h for _, _, h in tags)
    sample = [h for h, _ in count.most_common(3)]
    sample += sorted(set(h for _, _, h in revs))[:2]
    sample += rnd.sample(sorted(count), min(3, len(count)))
    never = max(count) + 1
    while never in count:
        never += 1
    sample.append(never)
    nb = 0
    for blk in dict.fromkeys(sample):
        mine = ours(img, "logdump -b %d" % blk, jnl)
        _, mt, mr = our_sets(mine)
        et, er, ebits, _ = e2_block(e2(img, "logdump -b %d" % blk, jnl))
        nb += compare("-b %d records" % blk, mt, et, wrapped, in_fc, bad)
        compare("-b %d revoke records" % blk, mr, er, wrapped, in_fc, bad)
        mbits = {(r["tid"], r["journal_block"]): r["bitmap_bit_set"]
                 for r in mine["records"] if "bitmap_bit_set" in r}
        for k in set(mbits) & set(ebits):
            if mbits[k] != ebits[k]:
                bad.append("-b %d: bitmap bit in tid %d block %d: ours %s" % (blk, k[0], k[1], mbits[k]))
        if blk == never and any(h == blk for _, _, h in mt | mr):
            bad.append("-b %d: records for a block never logged" % blk)

    # -i: inodes whose table block is logged
    stats = subprocess.run(["dumpe2fs", "-h", img], capture_output=True, text=True).stdout
    m = re.search(r"^Inode count:\s+(\d+)", stats, re.M)
    icount = int(m.group(1))
    isize = int(re.search(r"^Inode size:\s+(\d+)", stats, re.M).group(1))
    cands = [2] + rnd.sample(range(1, icount + 1), min(400, icount))
    cmdf = os.path.join(tmp, "imap.cmd")
    with open(cmdf, "w") as f:
        for i in cands:
            f.write("imap <%d>\n" % i)
    out = subprocess.run(["debugfs", "-c", "-f", cmdf, img], capture_output=True, text=True).stdout
    loc = {}
    for m in re.finditer(r"Inode (\d+) is part of block group (\d+)\s+located at block (\d+), "
                         r"offset (0x[0-9a-f]+)", out):
        loc[int(m.group(1))] = (int(m.group(2)), int(m.group(3)), int(m.group(4), 16))
    logged = set(count)
    chosen = [i for i in dict.fromkeys(cands) if i in loc and loc[i][1] in logged][:3]
    if not chosen:
        bad.append("no sampled inode has its table block logged")
    ni = 0
    for ino in chosen:
        group, blk, off = loc[ino]
        mine = ours(img, "logdump -c -i <%d>" % ino, jnl)
        i = mine["inode"]
        if (i["group"], i["block"], i["offset"]) != (group, blk, off):
            bad.append("-i %d: at %s, imap says %s" % (ino, (i["group"], i["block"], i["offset"]),
                                                      (group, blk, off)))
            continue
        _, mt, _ = our_sets(mine)
        et, _, _, dumps = e2_block(e2(img, "logdump -c -b %d" % blk, jnl))
        et = set(x for x in et if x[2] == blk)
        ni += compare("-i %d records" % ino, mt, et, wrapped, in_fc, bad)
        for r in mine["records"]:
            k = (r["tid"], r["journal_block"])
            if k not in dumps:
                continue
            raw = bytes.fromhex(r["logged_inode"]["raw_hex"])
            want = bytes(dumps[k][off:off + isize])
            skip = 4 if r["escaped"] and off == 0 else 0	# e2fsprogs dumps it escaped
            if len(raw) != isize or raw[skip:] != want[skip:]:
                bad.append("-i %d: tid %d journal block %d: logged inode differs from e2fsprogs' dump"
                           % (ino, k[0], k[1]))
            mode = int.from_bytes(raw[0:2], "little")
            if r["logged_inode"]["mode"] != mode:
                bad.append("-i %d: mode %o, bytes say %o" % (ino, r["logged_inode"]["mode"], mode))
    nrec += n + nb + ni
    return "%d header/tag/revoke records, %d -b records (%d blocks), %d -i records (inodes %s)%s" % (
        n, nb, len(dict.fromkeys(sample)), ni, chosen,
        "; %d of ours past the wrap e2fsprogs misses" % allowed[0] if kernel_ref else "")


fails = checked = nrec = 0
for name in sorted(os.listdir(kdir)):
    d = os.path.join(kdir, name)
    if not os.path.exists(os.path.join(d, "crash.img.gz")):
        continue
    bad = []
    try:
        what = check_image(name, d, bad)
    except (Mismatch, subprocess.TimeoutExpired, ValueError, KeyError) as e:
        bad.append(str(e))
        what = None
    checked += 1
    if bad:
        fails += 1
        print("FAIL: %s: %s" % (name, "; ".join(bad[:6])))
    else:
        print("%s: %s" % (name, what))
# floors a little below today's counts (13 images, 87358 records in all)
low = 0
for what, got, least in (("images checked", checked, 12), ("records matched", nrec, 80000)):
    print("floor: %s: %d (at least %d)" % (what, got, least))
    if got < least:
        print("FAIL: %s: %d, fewer than %d: too little was tested" % (what, got, least))
        low += 1
sys.exit(1 if fails or low else 0)
