#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The module unloaded and loaded again many times on a counting PMU, in the
# emulated-PMU guests (busybox sh: POSIX only): its probe of the counters
# through the MSR backend, perf's reservations taken and given back, the
# per-CPU state set up and freed, each time on a PMU that counts.  Every
# load and unload also patches kernel text (the preempt-notifier static
# key in __schedule()), the load under which QEMU 7.2's multi-threaded TCG
# runs stale translations (doc/emulated-pmu.md: why the guests run one
# host thread).
#
#   reloads_keep_loading      RELOADS times: rmmod, then insmod with /init's
#                             parameters; each must succeed, bring
#                             /dev/pmuctl back and print the load line
#                             ("pmuctl: ... msr backend")
#   counts_after_the_reloads  the last load counts: pmuctl stat of a
#                             command counts its instructions (non-zero);
#                             with the NMI watchdog on (perf holds the
#                             counters) it refuses with PERF_BUSY
#
# RELOADS in the environment sets the count: by default 40, and 10 under
# the debug kernels (pmuctl_vm.debug=1: KASAN and kmemleak make each
# reload slower).  Outside the rig's emulated-PMU guests (no /pmuctl.ko
# loaded as pmuctl, or no arch_perfmon) the whole script is a SKIP.

set -u

case " $(cat /proc/cmdline 2>/dev/null) " in
*" pmuctl_vm.debug=1 "*) RELOADS=${RELOADS:-10} ;;
*) RELOADS=${RELOADS:-40} ;;
esac

echo "TAP version 13"
if ! grep -qw arch_perfmon /proc/cpuinfo 2>/dev/null || [ ! -f /pmuctl.ko ] ||
	! grep -q '^pmuctl ' /proc/modules 2>/dev/null; then
	echo "1..0 # SKIP not an emulated-PMU guest of the rig (arch_perfmon, /pmuctl.ko loaded as pmuctl)"
	exit 0
fi
echo "1..2"

params=
# shellcheck disable=SC2013 # the command line is one line of words
for w in $(cat /proc/cmdline); do
	case $w in
	pmuctl.*) params="$params ${w#pmuctl.}" ;;
	esac
done

failed=0
result() {
	if [ -z "$2" ]; then
		echo "ok $1"
	else
		failed=$((failed + 1))
		echo "not ok $1"
		echo "# $2"
	fi
}

loads() {
	dmesg | grep -c 'pmuctl: .* msr backend'
}

why=
before=$(loads)
i=0
while [ "$i" -lt "$RELOADS" ]; do
	i=$((i + 1))
	if ! out=$(rmmod pmuctl 2>&1); then
		why="reload $i: rmmod pmuctl failed: $out"
		break
	fi
	if [ -e /dev/pmuctl ]; then
		why="reload $i: /dev/pmuctl still there after rmmod"
		break
	fi
	# shellcheck disable=SC2086 # one word per parameter
	if ! out=$(insmod /pmuctl.ko $params 2>&1); then
		why="reload $i: insmod /pmuctl.ko$params failed: $out"
		break
	fi
	if [ ! -c /dev/pmuctl ]; then
		why="reload $i: no /dev/pmuctl after insmod"
		break
	fi
done
if [ -z "$why" ] && [ "$(loads)" -ne $((before + RELOADS)) ]; then
	why="$(($(loads) - before)) load lines in dmesg for $RELOADS loads"
fi
result "1 reloads_keep_loading ($RELOADS)" "$why"

why=
if ! grep -q '^pmuctl ' /proc/modules; then
	why="pmuctl is not loaded"
elif [ "$(cat /proc/sys/kernel/nmi_watchdog 2>/dev/null)" = 1 ]; then
	# The watchdog's perf event holds the counters (run.sh -W): the
	# reloaded module must refuse, saying so.
	if out=$(pmuctl stat -x, -e instructions -- true 2>&1); then
		why="pmuctl stat counted while the NMI watchdog holds the PMU: $out"
	elif ! echo "$out" | grep -q 'PERF_BUSY'; then
		why="pmuctl stat failed, but not with PERF_BUSY (the NMI watchdog holds the PMU): $out"
	fi
elif ! out=$(pmuctl stat -x, -e instructions -- true 2>&1); then
	why="pmuctl stat failed: $out"
else
	count=$(echo "$out" | awk -F, '$3 == "instructions" { print $1; exit }')
	case $count in
	'' | *[!0-9]* | 0) why="no instructions counted: $out" ;;
	esac
fi
result "2 counts_after_the_reloads" "$why"

[ "$failed" = 0 ]
