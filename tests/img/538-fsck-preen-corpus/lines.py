#!/usr/bin/env python3
"""lines.py IMAGE TEXT JSON PROBLEMS_DEF: extkit-fsck -p's text output
(TEXT, the run on IMAGE) against the findings its --json run on a second
copy lists (JSON), in e2fsck -p's shape.  Prints one FAIL line per
breach:
  - a line that is not "IMAGE: ..." (e2fsck -p names the device on every
    line; "Restarting ..." and a fix's "  (not fixed...)" note excepted);
  - a line for a finding whose problem is EK_PREEN_NOMSG in problems.def
    (e2fsck -p fixes those without a word: the pass-5 bitmap differences
    and free counts), or no line for one that is not;
  - a last line that is not e2fsck's summary ("N/M files (P% non-contiguous),
    A/B blocks").
The last line of its output: "lines: N checked, M NOMSG findings silent".

lines.py --batch LIST PROBLEMS_DEF: the same for each line "NAME<tab>IMAGE
<tab>TEXT<tab>JSON" of LIST, in one process; its FAIL lines name NAME
instead of IMAGE, its last line sums the others.
"""
import json
import re
import sys


def load_nomsg(pdef):
    nomsg = set()
    with open(pdef) as f:
        for line in f:
            m = re.match(r'EK_PROBLEM\((\w+),.*EK_PREEN_NOMSG', line)
            if m:
                nomsg.add(m.group(1).lower())
    return nomsg


def check(image, text_path, json_path, nomsg, label):
    """prints the FAIL lines (naming label); returns (lines, silent), or
    None when the --json output is unreadable"""
    with open(text_path, errors='replace') as f:
        lines = [l.rstrip('\n') for l in f if l.strip()]
    try:
        with open(json_path) as f:
            doc = json.loads(f.read())
    except (OSError, ValueError) as e:
        print('FAIL: %s: --json output unreadable: %s' % (label, e))
        return None
    fails = []
    prefix = image + ': '
    for l in lines:
        if not l.startswith(prefix) and not l.startswith('Restarting ') and \
           not l.startswith('  (not fixed'):
            fails.append('a line not in e2fsck -p\'s shape: %r' % l)
    silent = 0
    for fd in doc.get('findings', []):
        msg = fd.get('message') or ''
        shown = any(msg in l for l in lines)
        loud = [g for g in doc['findings'] if g.get('message') == msg and g['id'] not in nomsg]
        if fd['id'] in nomsg:
            silent += 1
            if shown and not loud:
                fails.append('%s (EK_PREEN_NOMSG, e2fsck -p prints nothing) printed: %s'
                             % (fd['id'], msg))
        elif not shown:
            fails.append('%s has no line: %s' % (fd['id'], msg))
    summary = re.compile(re.escape(prefix) +
                         r'\d+/\d+ files \(\d+\.\d% non-contiguous\), \d+/\d+ blocks$')
    if not lines or not summary.match(lines[-1]):
        fails.append('the last line is not the summary: %r' % (lines[-1] if lines else ''))
    for x in fails:
        print('FAIL: %s: %s' % (label, x))
    return len(lines), silent


if sys.argv[1] == '--batch':
    nomsg = load_nomsg(sys.argv[3])
    nlines = nsilent = 0
    with open(sys.argv[2]) as f:
        for row in f:
            name, image, text_path, json_path = row.rstrip('\n').split('\t')
            try:
                r = check(image, text_path, json_path, nomsg, name)
            except Exception as e:  # noqa: BLE001 (named, and the rows after it still run)
                print('FAIL: %s: lines.py: %s' % (name, e))
                continue
            if r:
                nlines, nsilent = nlines + r[0], nsilent + r[1]
    print('lines: %d checked, %d NOMSG findings silent' % (nlines, nsilent))
else:
    image, text_path, json_path, pdef = sys.argv[1:5]
    r = check(image, text_path, json_path, load_nomsg(pdef), image)
    if r:
        print('lines: %d checked, %d NOMSG findings silent' % r)
