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

Entries that are not one countable event, and what becomes of them:

  placeholder  a pair of codes or umasks with MSRIndex 0 and MSRValue 0:
            the generic OFFCORE_RESPONSE of SKL, SKX and KNL, which
            names the event selects and leaves the mask bits "in a
            dedicated MSR" (SKL, SKX) or "specified by
            MSR_OFFCORE_RESPx" (KNL) to the user.  Without a value it
            counts nothing, so the entry is left out, and the header
            says how many were: "N events (M placeholders left out)", N
            the lines written (just "N events" where none was).
  one MSR   a pair of codes or umasks with one MSRIndex (KNL's *.OUTSTANDING
            events, 0x1a6 only: the OUTSTANDING bit 38 exists in
            OFFCORE_RSP_0 alone; its PARTIAL_WRITES and *STREAMING_STORES
            events, 0x1a7 only: request bits 8, 11 and 14 exist in
            OFFCORE_RSP_1 alone).  Only the encoding that goes with the
            listed MSR is written, as a single code and umask: the
            list's own two-MSR entries name the pair in one order
            (0x1a6,0x1a7), and the code or umask at the listed MSR's
            place in that order is the one kept.  A list whose pairs
            disagree on the order, or an MSR outside the pair, is an
            error.

Any other shape (two codes and two umasks, a pair with neither MSRs nor
a placeholder's zeros, a blank in a name) is an error, not a guess.
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


def placeholder(ev):
    """A pair of codes or umasks with MSRIndex and MSRValue zero."""
    pair = "," in str(ev["EventCode"]) or "," in str(ev["UMask"])
    return (pair and msr(ev)[0] == "-" and
            int(str(ev.get("MSRValue", "0")).strip(), 16) == 0)


def msr_order(events):
    """The MSR pair as the list's two-MSR entries name it, or None."""
    pairs = {msr(ev)[0] for ev in events if "," in msr(ev)[0]}
    if len(pairs) > 1:
        raise ValueError("MSR pairs in more than one order: %s"
                         % " ".join(sorted(pairs)))
    return pairs.pop().split(",") if pairs else None


def line(ev, order):
    name = ev["EventName"]
    if re.search(r"\s", name):
        raise ValueError("event name with blanks: %r" % name)
    m, mv = msr(ev)
    codes = hexlist(ev["EventCode"])
    umasks = hexlist(ev["UMask"])
    ncodes, numasks = len(codes.split(",")), len(umasks.split(","))
    if ncodes > 1 and numasks > 1:
        raise ValueError("%s: %s codes, %s umasks" % (name, codes, umasks))
    if max(ncodes, numasks) == 2 and m != "-" and "," not in m:
        # One MSR for a pair: keep the encoding that goes with it.
        if not order or m not in order:
            raise ValueError("%s: MSR %s for a pair, the list's pair is %s"
                             % (name, m, order))
        i = order.index(m)
        if ncodes > 1:
            codes = codes.split(",")[i]
        else:
            umasks = umasks.split(",")[i]
        ncodes = numasks = 1
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
    order = msr_order(events)
    lines = [line(ev, order) for ev in events if not placeholder(ev)]
    left = len(events) - len(lines)
    note = ""
    if left:
        note = " (%d placeholder%s left out)" % (left, "" if left == 1 else "s")
    out.write("# generated by scripts/intel-events.py; %d events%s\n"
              % (len(lines), note))
    out.write("# " + FIELDS + "\n")
    for l in lines:
        out.write(l + "\n")


if __name__ == "__main__":
    main()
