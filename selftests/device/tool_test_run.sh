#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# TAP test of "make run"'s choice (scripts/run.sh), on any host: count on
# this host's PMU only on GenuineIntel with arch_perfmon, as root, with
# headers for the kernel; otherwise say why and boot the guest.  The host
# path is checked as the commands it would run (PMUCTL_RUN_DRY=1), with
# /proc/cpuinfo, root and the kernel version faked through the script's
# test hooks; the guest path itself runs in "make run" (about a minute).

cd "$(dirname "$0")/../.." || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

printf 'vendor_id\t: AuthenticAMD\nflags\t\t: fpu tsc\n' >"$tmp/amd"
printf 'vendor_id\t: GenuineIntel\nflags\t\t: fpu tsc hypervisor\n' >"$tmp/nopmu"
printf 'vendor_id\t: GenuineIntel\nflags\t\t: fpu tsc arch_perfmon pebs\n' >"$tmp/intel"
headers_kver=$(scripts/kernels.sh installed 2>/dev/null | head -n 1)

echo "TAP version 13"
if [ -d /sys/module/pmuctl ]; then
	echo "1..0 # SKIP a pmuctl module is loaded on this host: run.sh would use it"
	exit 0
fi
echo "1..7"
n=0 failed=0

# plan NAME WANT_RC CPUINFO ROOT KVER [ARGS]: run.sh dry; sets $tmp/out.
plan() {
	name=$1
	PMUCTL_RUN_DRY=1 PMUCTL_CPUINFO=$tmp/$3 PMUCTL_RUN_ROOT=$4 \
		PMUCTL_RUN_KVER=$5 bash scripts/run.sh "${@:6}" >"$tmp/out" 2>&1 </dev/null
	rc=$?
	why=()
	[ "$rc" = "$2" ] || why+=("exit $rc, want $2")
}

# expect_lines ERE...: the output holds lines matching each ERE, in order.
expect_lines() {
	local line i=0
	local -a want=("$@")

	while IFS= read -r line; do
		[ $i -lt ${#want[@]} ] || break
		[[ $line =~ ${want[$i]} ]] && i=$((i + 1))
	done <"$tmp/out"
	[ $i = ${#want[@]} ] || why+=("no line matching /${want[$i]}/ (in this order)")
}

report() {
	n=$((n + 1))
	if [ ${#why[@]} = 0 ]; then
		echo "ok $n $name"
		return
	fi
	failed=$((failed + 1))
	echo "not ok $n $name"
	printf '# %s\n' "${why[@]}"
	sed 's/^/# output: /' "$tmp/out"
}

plan not_intel_boots_the_guest 0 amd 1 "$headers_kver"
expect_lines '^run: no Intel PMU here: the CPU is AuthenticAMD ' \
	'^run: instead: the same job in a QEMU guest with an emulated PMU$' \
	'^dry: boot one guest$'
report

plan intel_without_a_pmu_boots_the_guest 0 nopmu 1 "$headers_kver"
expect_lines '^run: no PMU here: the CPU shows no arch_perfmon flag ' '^dry: boot one guest$'
report

plan not_root_boots_the_guest 0 intel 0 "$headers_kver"
expect_lines "^run: loading pmuctl.ko needs root: run 'sudo make run'" '^dry: boot one guest$'
report

plan no_headers_boots_the_guest 0 intel 1 0.0.0-none
expect_lines '^run: no headers for the running kernel 0.0.0-none to build pmuctl.ko: install linux-headers-0.0.0-none$' \
	'^dry: boot one guest$'
report

if [ -z "$headers_kver" ]; then
	n=$((n + 1))
	echo "ok $n intel_host_builds_loads_counts_and_unloads # SKIP no kernel headers in /usr/src"
else
	plan intel_host_builds_loads_counts_and_unloads 0 intel 1 "$headers_kver"
	k=$headers_kver
	expect_lines '^run: this host has an Intel PMU: counting on it$' \
		'^dry: .*make -s build/bin/pmuctl$' \
		"^run: building pmuctl.ko for $k \\(the default build" \
		"^dry: make -s -C /lib/modules/$k/build M=.*/build/run/kmod modules$" \
		'^run: loading build/run/kmod/pmuctl.ko \(insmod; rmmod at the end\)$' \
		'^dry: insmod build/run/kmod/pmuctl.ko$' \
		"^dry: build/bin/pmuctl stat -- sh -c i=0; while " \
		'^dry: build/bin/pmuctl info$' \
		'^run: rmmod pmuctl \(this run loaded it\)$' \
		'^dry: rmmod pmuctl$'
	grep -q 'boot one guest' "$tmp/out" && why+=("booted the guest too")
	grep -q 'PMUCTL_REGMODEL' "$tmp/out" && why+=("built the register model for silicon")
	report
fi

plan host_forced_where_it_cannot_fails 1 amd 1 "$headers_kver" host
expect_lines '^run: no Intel PMU here: '
grep -q 'boot one guest' "$tmp/out" && why+=("booted the guest although host was asked")
report

plan bad_mode_is_a_usage_error 2 intel 1 "$headers_kver" bogus
expect_lines '^usage: scripts/run.sh \[host\|vm\]$'
report

[ "$failed" = 0 ]
