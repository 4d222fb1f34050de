#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/bench-timed.awk, make bench's timed rows (compare -t on a
# machine with a PMU) into its results file, on made-up lines, any host:
#
#   each_side_is_a_row_with_its_cycles  a comparison's two sides as JSON
#       rows (pmuctl's once per operation and label), cycles p1, median
#       and p99, the machine and kernel, measured_by "tsc", counters from
#       the operation;
#   malformed_lines_fail               a line without its nine fields or
#       with a word for a number: exit 1, named;
#   no_timed_row_fails                 only the machine line: exit 1.

here=$(cd "$(dirname "$0")" && pwd)
awkf=$here/../../scripts/bench-timed.awk
emitf=$here/../../scripts/bench-emit.awk
# shellcheck source=selftests/tap.sh
. "$here/../../selftests/tap.sh"

out=/tmp/bench_timed.$$
lines() {
	cat <<'LINES'
timed-machine GenuineIntel family 6 model 0x55, 4 generic and 3 fixed counters
timed-cmp read 1|read_counter(c,0)|30|32|40|bare rdpmc|29|31|38
timed-cmp read 1|read_counter(c,0)|30|32|40|libperf evsel__read|90|95|130
timed-cmp read 7 (group)|read_counters(c,v,7)|150|160|200|perf group read() of 7|1800|1900|2500
LINES
}

# verdict STATUS NAME: ok when STATUS is 0, else not ok with the output
verdict() {
	report $(($1 == 0)) "$2" "$(cat $out $out.json 2>/dev/null)"
}

rm -f $out.json
lines | awk -v json=$out.json -v kernel=K -f "$emitf" -f "$awkf" >$out 2>&1
rc=$?
[ $rc = 0 ] && [ "$(grep -c . $out.json)" = 5 ] &&
	[ "$(grep -c '"what": "read_counter(c,0)"' $out.json)" = 1 ] &&
	grep -qx '{"operation": "read 1", "tool": "libperf", "what": "libperf evsel__read", "counters": 1, "cycles_p1": 90, "cycles_median": 95, "cycles_p99": 130, "measured_by": "tsc", "machine": "GenuineIntel family 6 model 0x55, 4 generic and 3 fixed counters", "kernel": "K"}' $out.json &&
	grep -qx '{"operation": "read 7 (group)", "tool": "pmuctl", "what": "read_counters(c,v,7)", "counters": 7, "cycles_p1": 150, "cycles_median": 160, "cycles_p99": 200, "measured_by": "tsc", "machine": "GenuineIntel family 6 model 0x55, 4 generic and 3 fixed counters", "kernel": "K"}' $out.json &&
	grep -q '"tool": "perf", "what": "perf group read() of 7", "counters": 7, "cycles_p1": 1800, "cycles_median": 1900, "cycles_p99": 2500,' $out.json &&
	grep -q '"tool": "rdpmc", "what": "bare rdpmc"' $out.json
verdict $? each_side_is_a_row_with_its_cycles

{ lines; echo 'timed-cmp start|pmuctl_start()|1|2|3|perf|4|5'; echo 'timed-cmp stop|pmuctl_stop()|1|x|3|perf|4|5|6'; } |
	awk -f "$emitf" -f "$awkf" >$out 2>&1
rc=$?
[ $rc = 1 ] && grep -q '^bench-timed: malformed line: start|' $out &&
	grep -q '^bench-timed: not a number: x$' $out
verdict $? malformed_lines_fail

lines | head -n 1 | awk -f "$emitf" -f "$awkf" >$out 2>&1
rc=$?
[ $rc = 1 ] && grep -q 'no timed row' $out
verdict $? no_timed_row_fails
rm -f $out $out.json
tap_end
