#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# "make hwreport": on a machine whose Intel PMU pmuctl.ko drives, run the
# hardware selftests ("make hwtest") and the timed rows of "make bench"
# (compare, taskswitch), and write one text file to attach to an issue:
# the CPU (/proc/cpuinfo's model name; family, model, stepping and the
# CPUID leaves 0AH, 1AH and 23H of each kind of CPU, scripts/hw/
# cpuid-leaves.c), the kernel and its PMU settings (NMI watchdog,
# perf_event_paranoid, perf's rdpmc), pmuctl's release and the module's
# parameters and "pmuctl info", every hardware test's result line and the
# summary, and the timed tables.  doc/hardware-tests.md says what to send.
#
# Anywhere else it writes nothing and prints one line, "hwreport:
# skipped: WHY", exit 0: not an Intel CPU, no PMU (arch_perfmon), pmuctl.ko
# not loaded, or loaded as its test build (the register model).
#
# usage: scripts/hwreport.sh [FILE]     (default: build/hwreport.txt)
# Environment:
#   PMUCTL_CPUINFO     read this file instead of /proc/cpuinfo (tests)
#   PMUCTL_DEVICE      the device (default /dev/pmuctl)
#   HWREPORT_FORCE=1   write the report even where it would skip, the
#                      reason at its top (tests; nothing in it is then a
#                      measurement of silicon)
#   HWREPORT_COMPARE   the timed table's program (default
#                      build/bench/vm/compare-papi: PAPI and libperf in,
#                      whose build installs make bench's packages)
# Builds what it runs (make) only once it knows it will report; skipping
# builds nothing.  Exit 0 when it reported or skipped, 1 when a program
# could not be built.
set -uo pipefail

cd "$(dirname "$0")/.." || exit 1
# shellcheck source=scripts/host.sh
. scripts/host.sh
out=${1:-build/hwreport.txt}
cpuinfo=${PMUCTL_CPUINFO:-/proc/cpuinfo}
dev=${PMUCTL_DEVICE:-/dev/pmuctl}
pmuctl=build/bin/pmuctl
make=${MAKE:-make}
compare=${HWREPORT_COMPARE:-build/bench/vm/compare-papi}

# mk TARGET...: build them quietly, or say which failed.
mk() {
	if ! "$make" -s --no-print-directory "$@" >"${TMPDIR:-/tmp}/hwreport-make.$$" 2>&1; then
		echo "hwreport: cannot build $*:" >&2
		tail -n 20 "${TMPDIR:-/tmp}/hwreport-make.$$" >&2
		rm -f "${TMPDIR:-/tmp}/hwreport-make.$$"
		exit 1
	fi
	rm -f "${TMPDIR:-/tmp}/hwreport-make.$$"
}

# Why this machine cannot report on silicon, or nothing.
why_not() {
	local why
	why=$(cpu_pmu_why "$cpuinfo")
	if [ -n "$why" ]; then
		echo "$why"
	elif [ ! -e "$dev" ]; then
		echo "pmuctl.ko is not loaded ($dev does not exist): build it with 'make' and load it ('sudo insmod build/kmod/pmuctl.ko', or install pmuctl-dkms and 'sudo modprobe pmuctl')"
	elif mk "$pmuctl" && PMUCTL_DEVICE=$dev "$pmuctl" info 2>/dev/null | grep -q '^backend: model'; then
		echo "pmuctl.ko is its test build here (backend: model, a register model that counts nothing); load the default build"
	fi
}

why=$(why_not)
if [ -n "$why" ] && [ "${HWREPORT_FORCE:-0}" != 1 ]; then
	echo "hwreport: skipped: $why"
	exit 0
fi

mk "$pmuctl" build/hwtest/cpuid-leaves "$compare" build/bench/vm/taskswitch
mkdir -p "$(dirname "$out")"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# section TITLE: a heading line.
section() {
	printf '\n== %s\n' "$1"
}

# The CPUID leaves of each kind of CPU (a hybrid part's P- and E-cores
# differ), grouped: "cpus LIST" then the lines they share.
cpuid_by_kind() {
	local cpu f
	for f in /sys/devices/system/cpu/cpu[0-9]*; do
		cpu=${f##*cpu}
		[ "$(cat "$f/online" 2>/dev/null || echo 1)" = 1 ] || continue
		if command -v taskset >/dev/null; then
			taskset -c "$cpu" build/hwtest/cpuid-leaves >"$tmp/cpuid.$cpu" 2>&1 || continue
		else
			build/hwtest/cpuid-leaves >"$tmp/cpuid.$cpu" 2>&1
		fi
	done
	for f in "$tmp"/cpuid.*; do
		printf '%s %s\n' "$(md5sum <"$f" | cut -c1-32)" "${f##*.}"
	done | sort -k1,1 -k2n | awk '
		$1 != last { if (last != "") print last, cpus; last = $1; cpus = $2; next }
		{ cpus = cpus "," $2 }
		END { if (last != "") print last, cpus }' |
	while read -r _ cpus; do
		echo "cpus $cpus:"
		sed 's/^/  /' "$tmp/cpuid.${cpus%%,*}"
	done
}

# kv FILE: "FILE: CONTENT" or "FILE: (absent)".
kv() {
	printf '%s: %s\n' "$1" "$(cat "$1" 2>/dev/null || echo '(absent)')"
}

{
	echo "pmuctl hardware report"
	echo "generated: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	[ -z "$why" ] || echo "NOT A SILICON REPORT (HWREPORT_FORCE): $why"
	echo "release: $("$pmuctl" --version)"
	git log -1 --format='commit: %H (%cd)' --date=short 2>/dev/null

	section "CPU"
	awk -F': *' '/^(model name|vendor_id|cpu family|model|stepping|microcode)[[:space:]]*:/ && !seen[$1]++ { print $1 ": " $2 }' "$cpuinfo"
	echo "online: $(cat /sys/devices/system/cpu/online 2>/dev/null)"
	grep -m1 '^flags' "$cpuinfo" | tr ' ' '\n' |
		grep -Ex 'arch_perfmon|pdcm|hypervisor|constant_tsc|nonstop_tsc|rdtscp|hybrid_cpu' | tr '\n' ' '
	echo
	section "CPUID (leaves 0, 1, 0AH, 1AH, 23H per kind of CPU)"
	cpuid_by_kind

	section "kernel"
	uname -srvm
	kv /proc/cmdline
	kv /proc/sys/kernel/nmi_watchdog
	kv /proc/sys/kernel/perf_event_paranoid
	kv /sys/bus/event_source/devices/cpu/rdpmc
	for f in /sys/bus/event_source/devices/cpu/caps/* /sys/bus/event_source/devices/cpu_core/caps/*; do
		[ -e "$f" ] && kv "$f"
	done

	section "module"
	for f in /sys/module/pmuctl/srcversion /sys/module/pmuctl/parameters/*; do
		[ -e "$f" ] && kv "$f"
	done
	PMUCTL_DEVICE=$dev "$pmuctl" info 2>&1
} >"$tmp/report"

# The hardware selftests through the kselftest runner (make hwtest).
{
	section "hardware selftests (make hwtest)"
	"$make" -s --no-print-directory hwtest >"$tmp/hwtest.out" 2>&1
	echo "make hwtest: exit $?"
	# Every test's result line (nested TAP: "# ok 1 ..." per test), named
	# from the harness's RUN line where the line has no name (a SKIP),
	# and the summaries.
	awk '/^# #  RUN / { name = $4; next }
	     /^# (ok|not ok) [0-9]+ #/ && name != "" {
		sub(/ [0-9]+ /, "& " name " ")
		sub(/  /, " ")
		name = ""
	     }
	     /^(# )*(ok|not ok) |^# selftests: |Totals:|^[0-9]+ passed/' "$tmp/hwtest.out"
} >>"$tmp/report"

# The timed rows (make bench's compare and taskswitch), as they print.
{
	section "timed rows (compare: pmuctl, perf, libperf, PAPI; TSC cycles)"
	"$compare" 2>&1
	echo "compare: exit $?"
	section "timed rows (taskswitch: a counted thread's context switch)"
	build/bench/vm/taskswitch 2>&1
	echo "taskswitch: exit $?"
} >>"$tmp/report"

cp "$tmp/report" "$out"
echo "hwreport: wrote $out ($(grep -c . "$out") lines); attach it to an issue (doc/hardware-tests.md)"
