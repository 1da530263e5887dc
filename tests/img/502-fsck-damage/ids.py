#!/usr/bin/env python3
"""ids.py CHECKS: 502's extkit-fsck -fn --json runs against what each
expects, one process for all.  Each line of CHECKS (fields split by \\037):
  clean WHAT RUN            fails "WHAT: IDS EXIT" unless RUN.json has no
                            finding and exit 0
  case HOW RUN WANT CODE RC the sorted finding IDs ("-" for none) and exit
                            of RUN.json must be "WANT CODE", else a FAIL
                            line and RUN.err's first 3 lines; then e2fsck
                            -fn (exit RC, output RUN.e2): where CODE ends in
                            '*' it must find nothing (exit 0), else where
                            CODE is 4 it must not exit under 4; where WANT
                            has quota_usage_wrong or quota_entry_missing,
                            the (type, id) pairs of our quota findings and
                            of e2fsck's "[QUOTA WARNING] ... ID n" lines
                            (typed by the "Update quota info for quota type
                            N" line after them) must agree; "HOW: WANT"
                            printed when all hold
IDS EXIT is "" when RUN.json is not JSON.  Exit: the number of FAILs.
"""
import json
import re
import sys

TYPES = {"user": 0, "group": 1, "project": 2}


def load(run):
    try:
        with open(run + ".json") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def ids(doc):
    try:
        return "%s %s" % (" ".join(sorted(set(f["id"] for f in doc.get("findings", [])))) or "-",
                          doc.get("summary", {}).get("exit_code", "error"))
    except (AttributeError, KeyError, TypeError):
        return ""       # not the JSON expected


def quota_ids(doc):
    out = []
    for f in (doc or {}).get("findings", []):
        m = re.match(r"(user|group|project) quota ID (\d+)", f["message"])
        if m and f["id"] in ("quota_usage_wrong", "quota_entry_missing"):
            out.append("%d %s" % (TYPES[m.group(1)], m.group(2)))
    return sorted(out)


def e2_quota_ids(run):
    out, pending = [], []
    with open(run + ".e2", errors="replace") as f:
        for line in f:
            m = re.search(r"QUOTA WARNING\].* ID (\d+)", line)
            if m:
                pending.append(m.group(1))
            m = re.match(r"Update quota info for quota type (\d)", line)
            if m:
                out += ["%s %s" % (m.group(1), i) for i in pending]
                pending = []
    return sorted(out)


def main():
    fails = 0
    with open(sys.argv[1]) as f:
        rows = [line.rstrip("\n").split("\x1f") for line in f]
    for row in rows:
        doc = load(row[2])
        got = ids(doc)
        if row[0] == "clean":
            if got != "- 0":
                print("FAIL: %s: %s" % (row[1], got))
                fails += 1
            continue
        how, run, want, code, rc = row[1:]
        e2miss = code.endswith("*")
        code = code.rstrip("*")
        rc = int(rc)
        e2 = 4 if rc & 4 else rc
        msg = None
        if got != "%s %s" % (want, code):
            msg = "%s: got [%s], expected [%s %s]" % (how, got, want, code)
        elif e2miss and e2 != 0:
            msg = "%s: e2fsck -fn finds it now: drop the '*'" % how
        elif not e2miss and code == "4" and e2 < 4:
            msg = "%s: e2fsck -fn finds nothing" % how
        elif set(want.split()) & {"quota_usage_wrong", "quota_entry_missing"}:
            ours, theirs = quota_ids(doc), e2_quota_ids(run)
            if ours != theirs:
                msg = "%s: quota ids [%s], e2fsck's [%s]" % (
                    how, "".join(x + " " for x in ours), "".join(x + " " for x in theirs))
        if msg is None:
            print("%s: %s" % (how, want))
            continue
        print("FAIL: " + msg)
        fails += 1
        if msg.startswith(how + ": got ["):
            with open(run + ".err", errors="replace") as f:
                for line in f.readlines()[:3]:
                    print(line.rstrip("\n"))
    sys.exit(min(fails, 100))


main()
