#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A perfmon v6 PMU (the rig's "PerfmonV6" guests: scripts/vm/run.sh -P -c
# PerfmonV6, the emulated PMU with pmu-version=6, whose every counter
# also answers at 0x1900+, scripts/vm/qemu/pmu-spec.md), where Linux 6.11+
# addresses perf's counters at 0x1900+ and 6.1 at the legacy MSRs:
#
#   info_says_perfmon_v6     pmuctl info: "perfmon: version 6";
#   perf_counts_exactly      perf (perf-count, user mode, enable_on_exec)
#                            counts the known-count workload exactly:
#                            perf's own counters work through whichever
#                            addresses this kernel uses;
#   pmuctl_where_perf_is_managed
#                            6.1 (perf at the legacy MSRs, which the NMI
#                            reservation manages): pmuctl stat counts the
#                            workload exactly; 6.11+ (perf at 0x1900+,
#                            which it does not): pmuctl refuses with
#                            PERF_UNMANAGED, as uapi/linux/pmuctl.h
#                            says, until
#                            doc/perfmon-v6-coexistence.md is built.
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
echo "1..3"
N=1000000
want=$(expected "$N")
CPU=$(($(grep -c '^processor' /proc/cpuinfo) - 1))
run "$PMUCTL" info
grep -qx 'perfmon: version 6' "$tmp/out" || { fail "want 'perfmon: version 6'"; show; }
result info_says_perfmon_v6

run perf-count -- workload "$N"
[ "$rc" = 0 ] && [ "$(cat "$tmp/out")" = "$want" ] || { fail "want $want"; show; }
result perf_counts_exactly

# Linux 6.11 and later address a v6 PMU at 0x1900+ (commit 149fd4712bcd).
kv=$(uname -r)
major=${kv%%.*}
minor=${kv#*.}
minor=${minor%%[!0-9]*}
run "$PMUCTL" stat -x, -C "$CPU" -e instructions:u -- workload "$N"
if [ "$major" -gt 6 ] || { [ "$major" = 6 ] && [ "$minor" -ge 11 ]; }; then
	if [ "$rc" = 0 ] || ! grep -q PERF_UNMANAGED "$tmp/err"; then
		fail "Linux $kv puts perf at 0x1900+: want a PERF_UNMANAGED refusal"
		show
	fi
else
	[ "$rc" = 0 ] && [ "$(csv_value instructions:u)" = "$want" ] || { fail "Linux $kv: want $want"; show; }
fi
result pmuctl_where_perf_is_managed
[ "$failed" = 0 ]
