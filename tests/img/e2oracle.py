"""Parse e2fsprogs debugfs output (the oracle) for the image tests."""
import re

TIME_RE = re.compile(r"^\s*(\w+): 0x([0-9a-f]+)(?::([0-9a-f]+))? --")


def parse_e2_stat(text):
    st = {}
    m = re.search(r"Inode: (\d+)\s+Type: (\S+(?: special)?)\s+Mode:\s+(\d+)\s+Flags: (0x[0-9a-f]+)", text)
    if not m:
        return None
    st["inode"] = int(m.group(1))
    st["type"] = m.group(2)
    st["perm"] = int(m.group(3), 8)
    st["flags"] = int(m.group(4), 16)
    m = re.search(r"User:\s+(-?\d+)\s+Group:\s+(-?\d+)(?:\s+Project:\s+(\d+))?\s+Size: (\d+)", text)
    if not m:
        return None
    # debugfs prints 32-bit ids with %d
    st["uid"], st["gid"] = int(m.group(1)) & 0xffffffff, int(m.group(2)) & 0xffffffff
    st["project"] = int(m.group(3) or 0)
    st["size"] = int(m.group(4))
    m = re.search(r"File ACL: (\d+)", text)
    if not m:
        return None
    st["file_acl"] = int(m.group(1))
    m = re.search(r"Links: (\d+)\s+Blockcount: (\d+)", text)
    if not m:
        return None
    st["links"], st["blockcount"] = int(m.group(1)), int(m.group(2))
    m = re.search(r"Generation: (\d+)", text)
    if not m:
        return None
    st["generation"] = int(m.group(1))
    for line in text.split("\n"):
        m = TIME_RE.match(line)
        if m:
            lo = int(m.group(2), 16)
            if lo >= 1 << 31:
                lo -= 1 << 32
            sec, nsec = lo, 0
            if m.group(3) is not None:
                extra = int(m.group(3), 16)
                sec += (extra & 3) << 32
                nsec = extra >> 2
            st[m.group(1)] = (sec, nsec)
        m = re.search(r"Device major/minor number: (\d+):(\d+) \(hex ([0-9a-f]+):([0-9a-f]+)\)", line)
        if m:
            st["rdev"] = (int(m.group(1)), int(m.group(2)))
        m = re.match(r"Fast link dest: \"(.*)\"$", line)
        if m:
            st["fastlink"] = m.group(1)
    return st
