#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Line coverage of pmuctl.ko's sources from the gcov data the debug-kernel
# guests sent (scripts/vm/run.sh -D writes LOGDIR/gcov/ID/: each .gcda next
# to the .gcno of the build it came from, and PREFIX, the host folder the
# builds ran in).  Every DIR is read with the host's gcov (the gcc that
# built the module) in JSON form; a line is executable if any build
# instrumented it and covered if any guest ran it: the union over guests
# and over the module's builds (the register model's and the MSR build
# differ by what PMUCTL_REGMODEL compiles in).
#
# usage: scripts/vm/coverage.sh [-o FILE] DIR...
#   Prints two TAP diagnostics, for kmod/*.c and for kmod/core/*.c:
#     # coverage kmod/*.c: NN.N% (X of Y lines)
#   and with -o writes FILE: per source file its figure and each line not
#   covered, with its text from the repository.
# Exit status 0 if every DIR held gcov data that gcov could read, else 1
# (with the reason on stderr).  Coverage is reported, never judged.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=
while getopts o: opt; do
	case $opt in
	o) out=$OPTARG ;;
	*) sed -n 's/^# usage: /usage: /p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { sed -n 's/^# usage: /usage: /p' "$0" >&2; exit 2; }

# /usr/bin first: gcov must be the system gcc's, python3 the system's.
export PATH=/usr/bin:/bin:$PATH
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rc=0 n=0
for dir in "$@"; do
	if [ ! -f "$dir/PREFIX" ]; then
		echo "coverage.sh: $dir has no PREFIX: not a run.sh -D gcov folder" >&2
		rc=1
		continue
	fi
	prefix=$(cat "$dir/PREFIX")
	dir=$(cd "$dir" && pwd)
	found=0
	while IFS= read -r f; do
		found=1 n=$((n + 1))
		# gcov -t writes nothing but stdout; run it where it may.
		if ! (cd "$tmp" && gcov -j -t -o "$(dirname "$f")" "$f") \
			>"$tmp/$n.json" 2>"$tmp/$n.err"; then
			echo "coverage.sh: gcov cannot read $f: $(tail -n 1 "$tmp/$n.err")" >&2
			rm -f "$tmp/$n.json"
			rc=1
			continue
		fi
		echo "$prefix" >"$tmp/$n.prefix"
	done < <(find "$dir" -name '*.gcda' | LC_ALL=C sort)
	if [ "$found" = 0 ]; then
		echo "coverage.sh: no .gcda in $dir" >&2
		rc=1
	fi
done

python3 - "$tmp" "$top" "$out" <<'EOF' || rc=1
import json, os, re, sys

tmp, top, out = sys.argv[1:4]
execd, covered = {}, {}
for name in sorted(os.listdir(tmp)):
    if not name.endswith('.json'):
        continue
    prefix = open(os.path.join(tmp, name[:-5] + '.prefix')).read().strip()
    for text in open(os.path.join(tmp, name)):
        text = text.strip()
        if not text:
            continue
        d = json.loads(text)
        cwd = d.get('current_working_directory', '')
        for f in d.get('files', []):
            p = os.path.normpath(os.path.join(cwd, f['file']))
            rel = None
            for b in ('src', 'src-msr'):
                base = os.path.join(prefix, b) + '/'
                if p.startswith(base):
                    rel = p[len(base):]
            if rel is None or not re.fullmatch(r'kmod/(core/)?[^/]+\.c', rel):
                continue
            e = execd.setdefault(rel, set())
            c = covered.setdefault(rel, set())
            for ln in f.get('lines', []):
                e.add(ln['line_number'])
                if ln['count'] > 0:
                    c.add(ln['line_number'])

def ranges(nums):
    r, nums = [], sorted(nums)
    for x in nums:
        if r and x == r[-1][1] + 1:
            r[-1][1] = x
        else:
            r.append([x, x])
    return ', '.join(str(a) if a == b else '%d-%d' % (a, b) for a, b in r)

def pct(c, e):
    return 100.0 * c / e if e else 0.0

groups = (('kmod/*.c', r'kmod/[^/]+\.c'), ('kmod/core/*.c', r'kmod/core/[^/]+\.c'))
lines = []
for label, rx in groups:
    fs = [f for f in execd if re.fullmatch(rx, f)]
    e = sum(len(execd[f]) for f in fs)
    c = sum(len(covered[f]) for f in fs)
    lines.append('# coverage %s: %.1f%% (%d of %d lines)' % (label, pct(c, e), c, e))
print('\n'.join(lines))
if not execd:
    print('coverage.sh: the gcov data named no kmod/ source', file=sys.stderr)
    sys.exit(1)
if out:
    with open(out, 'w') as o:
        o.write('pmuctl.ko line coverage (gcov), union over the debug-kernel guests\n')
        o.write('\n'.join(l[2:] for l in lines) + '\n\n')
        for f in sorted(execd):
            e, c = execd[f], covered[f]
            o.write('%-24s %5.1f%% (%d of %d lines)\n' % (f, pct(len(c), len(e)), len(c), len(e)))
        allsrc = sorted(
            os.path.join(dp, fn)[len(top) + 1:]
            for dp, _, fns in os.walk(os.path.join(top, 'kmod'))
            for fn in fns if fn.endswith('.c'))
        nodata = [f for f in allsrc if f not in execd]
        if nodata:
            o.write("\nno gcov data (not in the module's builds): %s\n" % ' '.join(nodata))
        for f in sorted(execd):
            miss = execd[f] - covered[f]
            if not miss:
                continue
            o.write('\n== %s: not covered: %s\n' % (f, ranges(miss)))
            try:
                src = open(os.path.join(top, f)).read().split('\n')
            except OSError:
                src = []
            for ln in sorted(miss):
                t = src[ln - 1] if ln <= len(src) else ''
                o.write('%s:%d: %s\n' % (f, ln, t.rstrip()))
EOF
exit $rc
