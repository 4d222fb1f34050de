#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A perfmon v6 PMU (the rig's "PerfmonV6" guests: scripts/vm/run.sh -P -c
# PerfmonV6, the emulated PMU with pmu-version=6, whose every counter
# also answers at 0x1900+, scripts/vm/qemu/pmu-spec.md), where Linux 6.11+
# addresses perf's counters at 0x1900+, outside the NMI reservation, and
# 6.1 at the legacy MSRs.  pmuctl keeps perf off its counters on both: by
# the reservation on 6.1, by an exclusive pinned perf event of its own on
# fixed counter 2 of every online CPU (the "sentinel",
# doc/perfmon-v6-coexistence.md) on 6.11+:
#
#   info_says_perfmon_v6     pmuctl info: "perfmon: version 6", and on
#                            6.11+ fixed counter 2 withheld (mask 0xb,
#                            feature fixed2_withheld), on 6.1 not;
#   perf_counts_exactly      perf (perf-count, user mode, enable_on_exec)
#                            counts the known-count workload exactly:
#                            perf's own counters work through whichever
#                            addresses this kernel uses;
#   pmuctl_counts_exactly    pmuctl stat counts it exactly too (task
#                            scope: CPU scope would count the other tasks
#                            on that CPU, stat_exact_test.sh), and
#                            with its default events (ref-cycles only
#                            where fixed counter 2 is not withheld);
#   perf_is_kept_off_while_pmuctl_holds
#                            perf-count run under a pmuctl session: 6.1
#                            refuses its event (EBUSY, the reservation),
#                            6.11+ opens it and never schedules it (0);
#   perf_counts_again_after_pmuctl
#                            after the session, perf counts exactly again
#                            (the sentinels were given back);
#   perf_kept_off_a_cpu_that_returns
#                            under a session, CPU 1 goes off and on line,
#                            then perf-count pinned there is kept off as
#                            before (6.11+: the sentinel was put on again);
#   watchdog_refuses_pmuctl  with kernel.nmi_watchdog=1 (perf's pinned
#                            cycles event on every CPU) pmuctl stat is
#                            refused with PERF_BUSY, and counts again once
#                            the watchdog is off;
#   generic_counters_count   the guest has 10 generic counters as Lion
#                            Cove (leaf 0AH says 8, leaf 23H 10).  On 6.1
#                            pmuctl info shows 10, ten branches events in
#                            one group (generic counters only) each count
#                            the workload's branches exactly, which
#                            counters 8 and 9 do only through their
#                            0x1900+ addresses (the legacy ranges stop at
#                            8), and an eleventh takes a second pass
#                            (--no-passes refuses it: "2 passes").  On
#                            6.11+ perf drives leaf 0AH's 8 on this part
#                            (not hybrid) and rewrites GLOBAL_CTRL without
#                            8 and 9 at each of its enables
#                            (selftests/pmu/perf_v6_test.c): pmuctl info
#                            shows 8 and gp_perf_limited, 8 count, a ninth
#                            takes a second pass;
#   umask2_and_eq            leaf 23H enumerates UMASK2 and EQ (features
#                            umask2, eq): branches with EQ and cmask 1 is
#                            programmed (the emulation would fault a
#                            reserved bit: HW_FAULT) and counts 0, as the
#                            emulation's events with a cmask do, beside
#                            instructions counting exactly; an event with
#                            a second unit mask is refused by the generic
#                            model (NOT_ARCHITECTURAL: this guest's model
#                            has no table; reload_test programs one);
#   perf_cpu_event_refuses_pmuctl
#                            while perf holds a pinned CPU-wide event on
#                            CPU 0, disabled (perf-count -C 0: as "perf
#                            stat -a --delay" before it enables its
#                            events), pmuctl stat -C 0 is refused with
#                            PERF_BUSY: on 6.11+ such an event, enabled
#                            later, would be scheduled ahead of pmuctl's
#                            sentinel; on 6.1 it holds the reservation.
#                            Without it, the same count is exact.
#
# busybox sh (POSIX); the tool is $PMUCTL (default pmuctl in PATH),
# workload and perf-count are in PATH (the rig's -x).  One SKIP without
# /dev/pmuctl, without the emulated PMU, or outside the PerfmonV6 guests.
. "$(dirname "$0")/stat_lib.sh"
stat_begin workload perf-count
# The rig's PerfmonV6 guests are family 6 model 153 (scripts/vm/run.sh).
if ! grep -q '^model[[:space:]]*: 153$' /proc/cpuinfo; then
	echo "1..0 # SKIP not the rig's PerfmonV6 guest (family 6 model 153)"
	exit 0
fi
echo "1..10"
N=1000000
want=$(expected "$N")
# Linux 6.11 and later address a v6 PMU at 0x1900+ (commit 149fd4712bcd).
kv=$(uname -r)
major=${kv%%.*}
minor=${kv#*.}
minor=${minor%%[!0-9]*}
v6=false
if [ "$major" -gt 6 ] || { [ "$major" = 6 ] && [ "$minor" -ge 11 ]; }; then
	v6=true
fi

run "$PMUCTL" info
grep -qx 'perfmon: version 6' "$tmp/out" || { fail "want 'perfmon: version 6'"; show; }
if $v6; then
	grep -q '^fixed counters: 4 x 48 bits (mask 0xb)$' "$tmp/out" &&
		grep -q '^features:.* fixed2_withheld' "$tmp/out" ||
		{ fail "Linux $kv: want fixed counter 2 withheld (mask 0xb, fixed2_withheld)"; show; }
else
	grep -q '^fixed counters: 4 x 48 bits (mask 0xf)$' "$tmp/out" &&
		! grep -q 'fixed2_withheld' "$tmp/out" ||
		{ fail "Linux $kv: want all four fixed counters (mask 0xf)"; show; }
fi
result info_says_perfmon_v6

run perf-count -- workload "$N"
[ "$rc" = 0 ] && [ "$(cat "$tmp/out")" = "$want" ] || { fail "want $want"; show; }
result perf_counts_exactly

run "$PMUCTL" stat -x, -e instructions:u -- workload "$N"
[ "$rc" = 0 ] && [ "$(csv_value instructions:u)" = "$want" ] || { fail "Linux $kv: want $want"; show; }
run "$PMUCTL" stat -x, -- workload "$N"
if [ "$rc" != 0 ]; then
	fail "Linux $kv: pmuctl stat with its default events failed"
	show
elif $v6 && grep -q ',ref-cycles,' "$tmp/err"; then
	fail "Linux $kv: ref-cycles among the defaults, on the withheld fixed counter 2"
	show
elif ! $v6 && ! grep -q ',ref-cycles,' "$tmp/err"; then
	fail "Linux $kv: want ref-cycles among the defaults"
	show
fi
result pmuctl_counts_exactly

# kept_off WHAT: perf-count's last run (in $tmp/pc.out, .err, .rc, removed
# before each run, so that a run that did not happen fails) was kept off
# the PMU: on 6.11+ opened and never scheduled (count 0), on 6.1 refused
# (EBUSY).
kept_off() {
	if $v6; then
		[ "$(cat "$tmp/pc.rc")" = 0 ] && [ "$(cat "$tmp/pc.out")" = 0 ] ||
			fail "$1: want perf's event opened and never scheduled (0), got rc $(cat "$tmp/pc.rc"): $(cat "$tmp/pc.out" "$tmp/pc.err")"
	else
		[ "$(cat "$tmp/pc.rc")" = 1 ] && grep -q 'busy' "$tmp/pc.err" ||
			fail "$1: want perf_event_open refused (EBUSY), got rc $(cat "$tmp/pc.rc"): $(cat "$tmp/pc.out" "$tmp/pc.err")"
	fi
}
export tmp N
rm -f "$tmp"/pc.*
run "$PMUCTL" stat -x, -C 0 -e instructions:u -- sh -c \
	'perf-count -- workload "$N" >"$tmp/pc.out" 2>"$tmp/pc.err"; echo $? >"$tmp/pc.rc"'
[ "$rc" = 0 ] || { fail "pmuctl stat: rc $rc"; show; }
kept_off "under pmuctl stat"
result perf_is_kept_off_while_pmuctl_holds

run perf-count -- workload "$N"
[ "$rc" = 0 ] && [ "$(cat "$tmp/out")" = "$want" ] || { fail "want $want"; show; }
result perf_counts_again_after_pmuctl

online=/sys/devices/system/cpu/cpu1/online
if [ ! -w "$online" ]; then
	echo "ok $((n += 1)) - perf_kept_off_a_cpu_that_returns # SKIP no CPU 1 to take off line"
else
	rm -f "$tmp"/pc.*
	run "$PMUCTL" stat -x, -C 0 -e instructions:u -- sh -c \
		'echo 0 >'"$online"' && echo 1 >'"$online"' &&
		 taskset -c 1 perf-count -- workload "$N" >"$tmp/pc.out" 2>"$tmp/pc.err"; echo $? >"$tmp/pc.rc"'
	[ "$rc" = 0 ] || { fail "pmuctl stat around the hotplug: rc $rc"; show; }
	[ "$(cat "$online")" = 1 ] || { echo 1 >"$online"; fail "CPU 1 did not come back"; }
	kept_off "on CPU 1 after it came back"
	result perf_kept_off_a_cpu_that_returns
fi

wd=/proc/sys/kernel/nmi_watchdog
if ! echo 1 2>/dev/null >"$wd" || [ "$(cat "$wd")" != 1 ]; then
	echo "ok $((n += 1)) - watchdog_refuses_pmuctl # SKIP kernel.nmi_watchdog cannot be turned on here"
else
	run "$PMUCTL" stat -x, -e instructions:u -- workload "$N"
	if [ "$rc" = 0 ] || ! grep -q PERF_BUSY "$tmp/err"; then
		fail "with the NMI watchdog on: want a PERF_BUSY refusal"
		show
	fi
	echo 0 >"$wd"
	run "$PMUCTL" stat -x, -e instructions:u -- workload "$N"
	[ "$rc" = 0 ] && [ "$(csv_value instructions:u)" = "$want" ] || { fail "watchdog off again: want $want"; show; }
	result watchdog_refuses_pmuctl
fi

# The workload's user-mode branches (workload.S, with the emulation's
# branch rule, pmu-spec.md): jne je; per digit ja jmp; ja at the NUL;
# jne ja jz; N x jnz; syscall: N + 2D + 7.
branches=$((N + 2 * ${#N} + 7))
run "$PMUCTL" info
ngp=10
if $v6; then
	ngp=8
	grep -q '^features:.* gp_perf_limited' "$tmp/out" ||
		{ fail "Linux $kv: want the feature gp_perf_limited"; show; }
elif grep -q 'gp_perf_limited' "$tmp/out"; then
	fail "Linux $kv: gp_perf_limited where perf uses the legacy addresses"
	show
fi
grep -qx "generic counters: $ngp x 48 bits" "$tmp/out" ||
	{ fail "Linux $kv: want $ngp generic counters"; show; }
ev=branches:u
i=1
while [ "$i" -lt "$ngp" ]; do ev="$ev,branches:u"; i=$((i + 1)); done
run "$PMUCTL" stat -x, -e "$ev" -- workload "$N"
got=$(awk -F, '$3 == "branches:u" { print $1 }' "$tmp/err" | sort | uniq -c |
	awk '{ print $1 "x" $2 }')
[ "$rc" = 0 ] && [ "$got" = "${ngp}x$branches" ] ||
	{ fail "want $ngp counts of $branches, got '$got' (rc $rc)"; show; }
run "$PMUCTL" stat -x, --no-passes -e "$ev,branches:u" -- workload "$N"
[ "$rc" = 1 ] && grep -q "^pmuctl stat: the $((ngp + 1)) events need 2 passes" "$tmp/err" ||
	{ fail "$((ngp + 1)) branches events, --no-passes: want the refusal naming 2 passes"; show; }
run "$PMUCTL" stat -x, -e "$ev,branches:u" -- workload "$N"
got=$(awk -F, '$3 == "branches:u" { print $1 }' "$tmp/err" | sort | uniq -c |
	awk '{ print $1 "x" $2 }')
[ "$rc" = 0 ] && [ "$got" = "$((ngp + 1))x$branches" ] ||
	{ fail "$((ngp + 1)) branches events: want 2 passes, $((ngp + 1)) counts of $branches, got '$got' (rc $rc)"; show; }
result generic_counters_count

run "$PMUCTL" info
grep -q '^features:.* umask2 eq' "$tmp/out" ||
	{ fail "want the features umask2 and eq"; show; }
# Raw configs, user mode (bit 16): branches with eq and cmask 1 (bits 36,
# 24), and with umask2 1 (bit 40).
eq=r10010100c4
u2=r100000100c4
run "$PMUCTL" stat -x, -e "instructions:u,$eq" -- workload "$N"
[ "$rc" = 0 ] && [ "$(csv_value instructions:u)" = "$want" ] &&
	[ "$(csv_value "$eq")" = 0 ] ||
	{ fail "want instructions $want, the eq event 0"; show; }
run "$PMUCTL" stat -x, -e "$u2" -- workload "$N"
[ "$rc" != 0 ] && grep -q NOT_ARCHITECTURAL "$tmp/err" ||
	{ fail "umask2 on the generic model: want NOT_ARCHITECTURAL"; show; }
result umask2_and_eq

run perf-count -C 0 -- "$PMUCTL" stat -x, -C 0 -e instructions:u -- workload "$N"
if [ "$rc" = 0 ] || ! grep -q PERF_BUSY "$tmp/err"; then
	fail "under perf's disabled CPU-wide event on CPU 0: want a PERF_BUSY refusal"
	show
fi
run "$PMUCTL" stat -x, -e instructions:u -- workload "$N"
[ "$rc" = 0 ] && [ "$(csv_value instructions:u)" = "$want" ] ||
	{ fail "perf's event closed: want $want"; show; }
result perf_cpu_event_refuses_pmuctl
[ "$failed" = 0 ]
