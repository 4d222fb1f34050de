#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# TAP test of "make hwreport" (scripts/hwreport.sh) on a machine without a
# PMU that pmuctl drives: it skips with the reason in one line, exit 0,
# writes no report and builds nothing (MAKE=false) for a CPU that is not
# Intel, an Intel CPU without arch_perfmon and a missing device (made-up
# /proc/cpuinfo files, PMUCTL_DEVICE); forced (HWREPORT_FORCE=1, the host
# compare for the timed table), it writes every section: the release, the
# CPU and its CPUID leaves, the kernel, the module, each hardware test's
# result line by name, and the timed tables, marked as no silicon report.
set -euo pipefail

cd "$(dirname "$0")/../.." || exit 1
. selftests/tap.sh

make=${MAKE:-make}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cpuinfo() {	# cpuinfo VENDOR FLAGS: a one-CPU /proc/cpuinfo
	printf 'processor\t: 0\nvendor_id\t: %s\ncpu family\t: 6\nmodel\t\t: 85\nmodel name\t: made up\nstepping\t: 4\nflags\t\t: fpu %s\n\n' "$1" "$2" >"$tmp/cpuinfo"
}

# skip NAME WANT: hwreport.sh skips saying WANT (a prefix), exit 0, no
# file, and never calls make.
skip() {
	local out rc=0
	rm -f "$tmp/report.txt"
	out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL MAKE=false PMUCTL_CPUINFO="$tmp/cpuinfo" \
		PMUCTL_DEVICE="$tmp/no-such-device" bash scripts/hwreport.sh "$tmp/report.txt" 2>&1) || rc=$?
	if [ "$rc" = 0 ] && [ "$(grep -c . <<<"$out")" = 1 ] &&
	   [[ $out == "hwreport: skipped: $2"* ]] && [ ! -e "$tmp/report.txt" ]; then
		ok "$1"
	else
		not_ok "$1" "exit $rc, report $( [ -e "$tmp/report.txt" ] && echo written || echo none): $out"
	fi
}

cpuinfo AuthenticAMD "arch_perfmon constant_tsc"
skip skips_where_the_cpu_is_not_intel "no Intel PMU here: the CPU is AuthenticAMD"
cpuinfo GenuineIntel "constant_tsc hypervisor"
skip skips_without_arch_perfmon "no PMU here: the CPU shows no arch_perfmon flag"
cpuinfo GenuineIntel "arch_perfmon constant_tsc"
skip skips_without_the_module "pmuctl.ko is not loaded ($tmp/no-such-device does not exist)"

# Forced: every section, from this machine (nothing in it is silicon).
rc=0
out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL HWREPORT_FORCE=1 \
	HWREPORT_COMPARE=build/bench/compare MAKE="$make" \
	bash scripts/hwreport.sh "$tmp/report.txt" 2>&1) || rc=$?
r=$tmp/report.txt
missing=
for want in '^NOT A SILICON REPORT \(HWREPORT_FORCE\): ' '^release: pmuctl [0-9]+\.[0-9]+\.[0-9]+ \(libpmuctl interface 1\.[0-9]+, module ABI [0-9]+\)$' \
	'^== CPU$' '^== CPUID ' '^cpus [0-9,]+:$' '^  leaf 0x00000001\.0 eax=0x[0-9a-f]{8} ebx=0x00' \
	'^== kernel$' '^/proc/sys/kernel/perf_event_paranoid: ' '^== module$' \
	'^== hardware selftests \(make hwtest\)$' '^make hwtest: exit 0$' \
	'^# ok [0-9]+ hw\.inst_retired_counts_a_known_loop_exactly # SKIP ' \
	'^# ok [0-9]+ [a-z_]+\.[a-z_.]+ # SKIP ' '^# selftests: .*read_test$' \
	'^== timed rows \(compare' '^compare: exit 0$' '^== timed rows \(taskswitch' '^taskswitch: exit 0$'; do
	[ -f "$r" ] && grep -Eq "$want" "$r" || missing="$missing [$want]"
done
if [ "$rc" = 0 ] && [ -z "$missing" ] && [[ $out == "hwreport: wrote $r ("* ]]; then
	ok forced_report_has_every_section
else
	not_ok forced_report_has_every_section "exit $rc: $out; missing:$missing"
fi
tap_end
