#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/insn-table.awk, the table make bench prints from the TCG
# plugin's lines (scripts/vm/insn-count.c), on made-up lines, any host:
#
#   per_pair_counts_are_the_least_windows_difference  user = (least
#       window with pairs - least without) / 10,000, kernel the same from
#       the batches / 100, per label, in the order the labels came;
#   plugin_equal_to_the_pmu_passes  the handle rows equal to the PMU's:
#       exit 0, "equal";
#   plugin_not_equal_to_the_pmu_fails  one handle row off by 0.1: exit 1,
#       "DIFFERENT" (the rule that keeps a wrong plugin's rows out);
#   no_pmu_row_fails    a handle row the PMU has no count for: exit 1;
#   no_window_fails     no label at all: exit 1.

here=$(cd "$(dirname "$0")" && pwd)
awkf=$here/../../scripts/insn-table.awk
emitf=$here/../../scripts/bench-emit.awk
# shellcheck source=selftests/tap.sh
. "$here/../../selftests/tap.sh"

# Label 17: the handle pair with 1 event, 93 user, 0 kernel a pair (the
# loops without pairs cost 30008 and 2 user); label 145: LIKWID with 1
# event and 3 counters.  Windows out of order and with a noisy maximum,
# as the plugin may print them.
lines() {
	cat <<'LINES'
label 17 handle 1
label 145 LIKWID-5 1 3
stop 17 0 30008 12
stop 17 0 30010 0
stop 17 2 960008 0
stop 17 2 960008 4000
stop 17 1 302 0
stop 17 3 9602 0
stop 17 3 9602 77
stop 145 0 30008 0
stop 145 2 65830008 165477000
stop 145 2 65830009 165476999
stop 145 1 302 0
stop 145 3 658302 1654770
LINES
}

# verdict STATUS NAME: ok when STATUS is 0, else not ok with the output
verdict() {
	report $(($1 == 0)) "$2" "$(cat /tmp/insn_table.$$)"
}

lines | awk -v pmu="1=93.0 4=126.0" -f "$emitf" -f "$awkf" >/tmp/insn_table.$$ 2>&1
rc=$?
grep -Eq '^  handle +1 +1 +93\.0 +0\.0 +1\.00$' /tmp/insn_table.$$ &&
	grep -Eq '^  LIKWID-5 +1 +3 +6580\.0 +16547\.7 +70\.75$' /tmp/insn_table.$$ &&
	[ "$(grep -En '^  (handle|LIKWID-5) ' /tmp/insn_table.$$ | cut -d: -f1 | tr '\n' ' ')" = "2 3 " ]
verdict $? per_pair_counts_are_the_least_windows_difference
[ $rc = 0 ] && grep -q 'with 1 event(s) as the PMU did: 93.0, PMU 93.0: equal' /tmp/insn_table.$$
verdict $? plugin_equal_to_the_pmu_passes

lines | awk -v pmu="1=93.1" -f "$emitf" -f "$awkf" >/tmp/insn_table.$$ 2>&1
rc=$?
[ $rc = 1 ] && grep -q 'PMU 93.1: DIFFERENT' /tmp/insn_table.$$
verdict $? plugin_not_equal_to_the_pmu_fails

lines | awk -v pmu="4=126.0" -f "$emitf" -f "$awkf" >/tmp/insn_table.$$ 2>&1
rc=$?
[ $rc = 1 ] && grep -q 'PMU none: DIFFERENT' /tmp/insn_table.$$
verdict $? no_pmu_row_fails

: | awk -v pmu="1=93.0" -f "$emitf" -f "$awkf" >/tmp/insn_table.$$ 2>&1
verdict $(( $? == 1 ? 0 : 1 )) no_window_fails
rm -f /tmp/insn_table.$$
tap_end
