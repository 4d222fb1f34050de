#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn one of Intel's core event lists (github.com/intel/perfmon,
<MODEL>/events/<name>_core.json) into a pmuctl vector file: the facts the
differential test selftests/core/intel_diff.c compares the core against,
one event per line, no descriptions.

    scripts/intel-events.py --git PERFMON_GIT_DIR [--rev REV] PATH > FILE
    scripts/intel-events.py --source PATH --commit SHA JSON_FILE > FILE

With --git the JSON is read with "git show REV:PATH" and the header names
REV's commit and the commit that last changed PATH.  Only Python's
standard library is used; CI never runs this script, it reads the
committed output.

Each event line has thirteen whitespace-separated fields:

  name event umask umask2 cmask inv edge eq any counters msr msrvalue deprecated

  name      EventName
  event     EventCode, hex; two codes (OCR's RSP_0 and RSP_1 events on
            the big cores) are joined by a comma, as are their MSRs in
            "msr"
  umask     UMask, hex; the Atom lists (Gracemont, Crestmont) select
            RSP_0 and RSP_1 by umask instead, two umasks joined by a
            comma under one event code.  At most one of event and umask
            is a pair, and then msr is a pair too: the first MSR goes
            with the first code or umask.
  umask2    UMaskExt, hex (perfmon v6's second unit mask, config bits
            47:40); 0x0 where the list has no such field
  cmask     CounterMask, decimal
  inv edge  Invert, EdgeDetect (0/1)
  eq        Equal (0/1; 0 where the list has no such field)
  any       AnyThread (0/1; 0 where the list has no such field)
  counters  the "Counter" field: generic counters as Intel numbers them,
            comma-separated; "Fixed counter N" becomes fN
  msr       MSRIndex, hex, or "-" where it is zero or absent
  msrvalue  MSRValue, hex, or "-" where msr is "-"
  deprecated  Deprecated (0/1)
"""
import argparse
import json
import re
import subprocess
import sys

FIELDS = "name event umask umask2 cmask inv edge eq any counters msr msrvalue deprecated"


def hexlist(s):
    """'0xB7, 0xBB' -> '0xb7,0xbb'; '0x00' -> '0x0'."""
    return ",".join("%#x" % int(x.strip(), 16) for x in str(s).split(","))


def flag(ev, key):
    v = str(ev.get(key, "0")).strip()
    if v not in ("0", "1"):
        raise ValueError("%s: %s is %r" % (ev["EventName"], key, v))
    return v


def counters(ev):
    c = ev["Counter"].strip()
    m = re.fullmatch(r"Fixed counter (\d+)", c)
    if m:
        return "f" + m.group(1)
    parts = [p.strip() for p in c.split(",")]
    for p in parts:
        if not p.isdigit():
            raise ValueError("%s: Counter %r" % (ev["EventName"], c))
    return ",".join(parts)


def msr(ev):
    idx = str(ev.get("MSRIndex", "0")).strip()
    if not idx or all(int(x.strip(), 16) == 0 for x in idx.split(",")):
        return "-", "-"
    return hexlist(idx), "%#x" % int(str(ev["MSRValue"]).strip(), 16)


def line(ev):
    name = ev["EventName"]
    if re.search(r"\s", name):
        raise ValueError("event name with blanks: %r" % name)
    m, mv = msr(ev)
    codes = hexlist(ev["EventCode"])
    umasks = hexlist(ev["UMask"])
    ncodes, numasks = len(codes.split(",")), len(umasks.split(","))
    if ncodes > 1 and numasks > 1:
        raise ValueError("%s: %s codes, %s umasks" % (name, codes, umasks))
    if (max(ncodes, numasks) > 1) != (len(m.split(",")) > 1):
        raise ValueError("%s: %s codes, %s umasks, MSRs %s"
                         % (name, codes, umasks, m))
    return " ".join([
        name, codes, umasks, "%#x" % int(str(ev.get("UMaskExt", "0")), 16),
        str(int(ev.get("CounterMask", "0"))),
        flag(ev, "Invert"), flag(ev, "EdgeDetect"), flag(ev, "Equal"),
        flag(ev, "AnyThread"),
        counters(ev), m, mv, flag(ev, "Deprecated"),
    ])


def git(gitdir, *args):
    return subprocess.run(["git", "--git-dir", gitdir] + list(args),
                          check=True, capture_output=True, text=True).stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("path", help="PATH in the perfmon tree, or a JSON file")
    ap.add_argument("--git", help="perfmon git directory to read PATH from")
    ap.add_argument("--rev", default="HEAD")
    ap.add_argument("--source", help="PATH to name in the header (no --git)")
    ap.add_argument("--commit", help="perfmon commit to name (no --git)")
    a = ap.parse_args()

    if a.git:
        text = git(a.git, "show", "%s:%s" % (a.rev, a.path))
        commit = git(a.git, "rev-parse", a.rev).strip()
        changed = git(a.git, "log", "-1", "--format=%H", a.rev, "--",
                      a.path).strip()
        source = a.path
    else:
        with open(a.path, encoding="utf-8") as f:
            text = f.read()
        commit, changed = a.commit or "unknown", None
        source = a.source or a.path
    doc = json.loads(text)
    hdr = doc["Header"]
    events = doc["Events"]

    out = sys.stdout
    out.write("# pmuctl vectors: facts from Intel's core event list, "
              "github.com/intel/perfmon\n")
    out.write("# source: %s version %s (%s)\n"
              % (source, hdr.get("Version", "?"), hdr.get("DatePublished", "?")))
    out.write("# perfmon commit %s%s\n" % (commit, "" if not changed else
              ", file last changed in %s" % changed))
    out.write("# generated by scripts/intel-events.py; %d events\n" % len(events))
    out.write("# " + FIELDS + "\n")
    for ev in events:
        out.write(line(ev) + "\n")


if __name__ == "__main__":
    main()
