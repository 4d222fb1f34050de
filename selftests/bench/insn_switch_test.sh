#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/insn-switch.awk, make bench's table of context switches counted
# by the TCG plugin, on made-up lines, any host:
#
#   per_switch_least_of_runs   each count the least over a row's runs,
#       over 2 switches a round trip; "+" columns less the row without
#       counting;
#   three_writes_one_read_holds  1 event adding 3 writes and 1 read a
#       switch: "ok";
#   four_writes_misses         4 writes a switch: "MISSED";
#   judged_to_the_hundredth    one stray write over 2000 switches (a
#       timer's) still "ok" at 3.00; 3.05 a switch "MISSED";
#   no_uncounted_row_fails     no window of the row without counting:
#       exit 1.

here=$(cd "$(dirname "$0")" && pwd)
awkf=$here/../../scripts/insn-switch.awk
emitf=$here/../../scripts/bench-emit.awk
# shellcheck source=selftests/tap.sh
. "$here/../../selftests/tap.sh"

# 10 round trips (20 switches).  No counting: 1000 user, 20000 kernel,
# 40 syscalls, 0 MSR accesses; pmuctl 1 event: 24000 kernel, 20 RDMSR
# and WRMSR writes as given.
lines() {
	cat <<LINES
insn-ts 101 10 no counting
insn-ts 102 10 pmuctl: a task session per thread, 1 event
insn-ts-skip perf: per-thread counting, 1 event: perf_event_open: ENOENT
stop 101 0 1000 20000 40 0 0 0
stop 101 0 1000 20500 40 0 2 0
stop 102 0 1000 24000 40 20 $1 0
stop 102 0 1010 24010 40 21 $1 0
LINES
}

# verdict STATUS NAME: ok when STATUS is 0, else not ok with the output
verdict() {
	report $(($1 == 0)) "$2" "$(cat /tmp/insn_switch.$$)"
}

lines 60 | awk -f "$emitf" -f "$awkf" >/tmp/insn_switch.$$ 2>&1
rc=$?
[ $rc = 0 ] &&
	grep -Eq '^  no counting +50\.0 +1000\.0 +2\.00 +0\.00 +0\.00 +0\.0 +0\.00 +0\.00$' /tmp/insn_switch.$$ &&
	grep -Eq '^  pmuctl: a task session per thread, 1 event +50\.0 +1200\.0 +2\.00 +1\.00 +3\.00 +200\.0 +1\.00 +3\.00$' /tmp/insn_switch.$$ &&
	grep -q '^  skipped: perf: per-thread counting, 1 event: perf_event_open: ENOENT$' /tmp/insn_switch.$$
verdict $? per_switch_least_of_runs
grep -q 'adds at most 3 MSR writes and 1 MSR read (3.00 and 1.00): ok' /tmp/insn_switch.$$
verdict $? three_writes_one_read_holds

lines 80 | awk -f "$emitf" -f "$awkf" >/tmp/insn_switch.$$ 2>&1
grep -q 'adds at most 3 MSR writes and 1 MSR read (4.00 and 1.00): MISSED' /tmp/insn_switch.$$
verdict $? four_writes_misses

# 1000 round trips: 6001 and 6100 writes, 2000 reads.
stray() {
	printf '%s\n' "insn-ts 101 1000 no counting" \
		"insn-ts 102 1000 pmuctl: a task session per thread, 1 event" \
		"stop 101 0 1000 20000 4000 0 0 0" "stop 102 0 1000 24000 4000 2000 $1 0"
}
stray 6001 | awk -f "$emitf" -f "$awkf" >/tmp/insn_switch.$$ 2>&1 &&
	grep -q '(3.00 and 1.00): ok' /tmp/insn_switch.$$ &&
	stray 6100 | awk -f "$emitf" -f "$awkf" >/tmp/insn_switch.$$ 2>&1 &&
	grep -q '(3.05 and 1.00): MISSED' /tmp/insn_switch.$$
verdict $? judged_to_the_hundredth

lines 60 | grep -v '^stop 101 ' | awk -f "$emitf" -f "$awkf" >/tmp/insn_switch.$$ 2>&1
verdict $(( $? == 1 ? 0 : 1 )) no_uncounted_row_fails
rm -f /tmp/insn_switch.$$
tap_end
