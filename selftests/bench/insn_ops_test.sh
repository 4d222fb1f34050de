#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/insn-ops.awk, the table of operations make bench prints from
# compare -i's lines and the TCG plugin's (scripts/vm/insn-count.c), on
# made-up lines, any host:
#
#   counts_are_least_less_the_empty_window  each count the least over
#       its samples less the empty window's least, per column;
#   ratio_is_against_over_pmuctl    (user + kernel) of the other side over
#       pmuctl's;
#   targets_hold_and_miss           a group read 5x below the mmap loops:
#       "ok"; a program 4x below perf's: "MISSED"; neither fails the run;
#   a_row_without_samples_fails     a compared label the plugin never
#       printed: exit 1;
#   no_empty_window_fails           no plugin lines: exit 1;
#   rows_go_to_the_results_file     -v json=FILE: one JSON object per
#       side of each comparison (pmuctl's once), the counts as in the
#       table; -v tsv=FILE: operation, tool, user + kernel;
#   tools_are_named_by_what_they_read   libperf's perf_evsel__read rows
#       are "libperf" (not perf's mmap loop or system call), pmuctl's
#       READ ioctl "pmuctl READ", PAPI's in either mode "PAPI".

here=$(cd "$(dirname "$0")" && pwd)
awkf=$here/../../scripts/insn-ops.awk
emitf=$here/../../scripts/bench-emit.awk
# shellcheck source=selftests/tap.sh
. "$here/../../selftests/tap.sh"

# Label 0: the empty window (2 user); 1: pmuctl's group read (30 user:
# 28 net); 2: perf's mmap loops (142: 140 net); 3 and 4: program+start
# (1000 user, 9000 kernel, 2 syscalls, 1 RDMSR, 3 WRMSR) and perf's open
# (4000 and 36000, 8 syscalls).
lines() {
	cat <<'LINES'
insn-row 0 empty
insn-cmp read 7 (group)|read_counters(c,v,7)|1|7 perf mmap loops|2
insn-cmp program, 1 CPU|program+start|3|open+ENABLE (CPU-wide)|4
insn-skip read 1|PAPI_read() of 1|PAPI: not built in
stop 0 0 2 0 0 0 0 0
stop 0 0 3 5 0 0 0 0
stop 1 0 30 0 0 0 0 7
stop 1 0 31 12 0 0 0 7
stop 2 0 142 0 0 0 0 7
stop 3 0 1002 9000 2 1 3 0
stop 3 0 1002 9100 3 1 4 0
stop 4 0 4002 36000 8 0 2 0
LINES
}

# verdict STATUS NAME: ok when STATUS is 0, else not ok with the output
verdict() {
	report $(($1 == 0)) "$2" "$(cat /tmp/insn_ops.$$)"
}

lines | awk -f "$emitf" -f "$awkf" >/tmp/insn_ops.$$ 2>&1
rc=$?
grep -Eq '^  read 7 \(group\) +read_counters\(c,v,7\) +28 +0 +0 +0/0 +7 perf mmap loops +140 +0 +0 +0/0 +5\.0x$' /tmp/insn_ops.$$ &&
	grep -Eq '^  program, 1 CPU +program\+start +1000 +9000 +2 +1/3 +open\+ENABLE \(CPU-wide\) +4000 +36000 +8 +0/2 +4\.0x$' /tmp/insn_ops.$$ &&
	grep -q '^  skipped: read 1 against PAPI_read() of 1: PAPI: not built in$' /tmp/insn_ops.$$
verdict $? counts_are_least_less_the_empty_window
grep -q ' 5\.0x$' /tmp/insn_ops.$$ && grep -q ' 4\.0x$' /tmp/insn_ops.$$
verdict $? ratio_is_against_over_pmuctl
[ $rc = 0 ] &&
	grep -q 'target: read 7 (group) at least 3x fewer instructions than 7 perf mmap loops (5.0x): ok' /tmp/insn_ops.$$ &&
	grep -q 'target: program, 1 CPU: program+start in 2 system calls, whatever the CPUs (2): ok' /tmp/insn_ops.$$ &&
	grep -q "target: program, 1 CPU at least 10x fewer instructions than perf's open+ENABLE (CPU-wide) (4.0x): MISSED" /tmp/insn_ops.$$
verdict $? targets_hold_and_miss

lines | grep -v '^stop 4 ' | awk -f "$emitf" -f "$awkf" >/tmp/insn_ops.$$ 2>&1
verdict $(( $? == 1 ? 0 : 1 )) a_row_without_samples_fails

lines | grep -v '^stop ' | awk -f "$emitf" -f "$awkf" >/tmp/insn_ops.$$ 2>&1
rc=$?
[ $rc = 1 ] && grep -q 'no empty window' /tmp/insn_ops.$$
verdict $? no_empty_window_fails
rm -f /tmp/insn_ops.$$.json /tmp/insn_ops.$$.tsv
lines | awk -v json=/tmp/insn_ops.$$.json -v tsv=/tmp/insn_ops.$$.tsv -v group=7 \
	-v guest=G -v measure=plugin -f "$emitf" -f "$awkf" >/tmp/insn_ops.$$ 2>&1
[ "$(wc -l </tmp/insn_ops.$$.json)" = 4 ] &&
	grep -qx '{"operation": "program, 1 CPU", "tool": "pmuctl", "what": "program+start", "counters": 7, "user": 1000, "kernel": 9000, "syscalls": 2, "msr_reads": 1, "msr_writes": 3, "measured_by": "plugin", "guest": "G"}' /tmp/insn_ops.$$.json &&
	grep -qx '{"operation": "read 7 (group)", "tool": "perf mmap", "what": "7 perf mmap loops", "counters": 7, "user": 140, "kernel": 0, "syscalls": 0, "msr_reads": 0, "msr_writes": 0, "measured_by": "plugin", "guest": "G"}' /tmp/insn_ops.$$.json &&
	grep -qx "$(printf 'program, 1 CPU\tperf\t40000.0')" /tmp/insn_ops.$$.tsv
verdict $? rows_go_to_the_results_file
rm -f /tmp/insn_ops.$$.json
{
	printf '%s\n' 'insn-row 0 empty' \
		'insn-cmp read 7 (group)|read_counters(c,v,7)|1|7 libperf evsel__read|5' \
		'insn-cmp read 7 (group)|read_counters(c,v,7)|1|pmuctl READ ioctl of 7|6' \
		'insn-cmp read 7 (group)|read_counters(c,v,7)|1|PAPI_read() of 7, no rdpmc|7'
	printf 'stop %s 0 %s 0 0 0 0 0\n' 0 2 1 30 5 200 6 80 7 700
} | awk -v json=/tmp/insn_ops.$$.json -v guest=G -v measure=plugin \
	-f "$emitf" -f "$awkf" >/tmp/insn_ops.$$ 2>&1
[ "$(grep -c . /tmp/insn_ops.$$.json)" = 4 ] &&
	grep -q '"tool": "libperf", "what": "7 libperf evsel__read", "counters": 7, "user": 198,' /tmp/insn_ops.$$.json &&
	grep -q '"tool": "pmuctl READ", "what": "pmuctl READ ioctl of 7"' /tmp/insn_ops.$$.json &&
	grep -q '"tool": "PAPI", "what": "PAPI_read() of 7, no rdpmc", "counters": 7, "user": 698,' /tmp/insn_ops.$$.json
verdict $? tools_are_named_by_what_they_read
rm -f /tmp/insn_ops.$$ /tmp/insn_ops.$$.json /tmp/insn_ops.$$.tsv
tap_end
