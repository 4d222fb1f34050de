#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# "make run", the main job: count a small workload with pmuctl.
#
# On a host that can (GenuineIntel with arch_perfmon in /proc/cpuinfo,
# root or password-less sudo, kernel headers for the running kernel, module
# loading enabled): build pmuctl.ko (the default build: the CPU's own PMU),
# insmod it unless a pmuctl module is loaded already, run "pmuctl stat" on a
# small built-in workload and "pmuctl info", and rmmod what it loaded.
#
# Anywhere else: say why, then boot one QEMU guest with an emulated PMU
# (scripts/vm/run.sh -P: the patched QEMU that scripts/vm/qemu.sh builds
# once and caches, -cpu Skylake-Server,pmu=on with the rig's Core i7-7800X
# properties, nmi_watchdog=0, the newest target kernel, pmuctl.ko's
# default build on its MSR backend) and show the main job there with real
# counts: "pmuctl stat -e instructions:u,cycles:u -- workload N", then a
# table of the user-mode instructions of the known-count workload
# (selftests/bench/workload.S) as its formula gives them, as pmuctl counts
# them and as perf counts them (perf-count: perf_event_open with
# enable_on_exec), under a banner: the emulation counts instructions
# exactly and makes cycles up (one per instruction); a count on silicon is
# proved only by selftests/hw on real hardware.  Its files go to
# build/run-logs/ (label "run"), apart from "make check"'s build/logs/;
# the rig's scratch is build/vm/, as for "make check", so do not run both
# at once in one tree.
#
# usage: scripts/run.sh [host|vm]     (default: host when it can, else vm)
# Environment:
#   QEMU               the patched QEMU for the guest (default: the path
#                      scripts/vm/qemu.sh prints, building it the first
#                      time, about 5 minutes)
#   PMUCTL_RUN_DRY=1   print the host path's commands instead of running
#                      them, and the reason for the choice (for tests)
#   PMUCTL_CPUINFO     read this file instead of /proc/cpuinfo (for tests)
#   PMUCTL_RUN_ROOT=0|1  pretend not to be / to be able to act as root
#   PMUCTL_RUN_KVER    the kernel to build for instead of uname -r (tests)
# Exit status: 0 when the session ran (in the guest: and pmuctl's count
# equalled the formula's and perf's), 1 when it did not, 2 usage.
set -uo pipefail

cd "$(dirname "$0")/.." || exit 1
# shellcheck source=scripts/host.sh
. scripts/host.sh
top=$PWD
make=${MAKE:-make}
dry=${PMUCTL_RUN_DRY:-0}
cpuinfo=${PMUCTL_CPUINFO:-/proc/cpuinfo}
kver=${PMUCTL_RUN_KVER:-$(uname -r)}
# A few million instructions, in any POSIX shell, under a second on silicon.
workload="i=0; while [ \$i -lt 100000 ]; do i=\$((i + 1)); done"
# The guest's workload size: 2N + 8D + 23 = 2000079 user-mode instructions.
guest_n=1000000

mode=${1:-auto}
case $mode in
auto | host | vm) ;;
*)
	echo "usage: scripts/run.sh [host|vm]" >&2
	exit 2
	;;
esac

say() {
	echo "run: $*"
}

# do_cmd CMD...: run it (or print it when dry).
do_cmd() {
	if [ "$dry" = 1 ]; then
		echo "dry: $*"
		return 0
	fi
	"$@"
}

# --- can this host count on silicon? --------------------------------------------

sudo=
can_root() {
	case ${PMUCTL_RUN_ROOT:-} in
	0) return 1 ;;
	1) return 0 ;;
	esac
	if [ "$(id -u)" -eq 0 ]; then
		return 0
	fi
	if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
		sudo=sudo
		return 0
	fi
	return 1
}

# Prints why the host path cannot run, or nothing when it can.
why_not_host() {
	local why
	why=$(cpu_pmu_why "$cpuinfo")
	if [ -n "$why" ]; then
		echo "$why"
	elif [ -d /sys/module/pmuctl ]; then
		: # a pmuctl module is loaded: use it
	elif [ -z "$have_root" ]; then
		echo "loading pmuctl.ko needs root: run 'sudo make run' (or set up password-less sudo)"
	elif [ "$(cat /proc/sys/kernel/modules_disabled 2>/dev/null || echo 0)" != 0 ]; then
		echo "module loading is disabled on this host (kernel.modules_disabled=1)"
	elif [ ! -d "/lib/modules/$kver/build" ]; then
		echo "no headers for the running kernel $kver to build pmuctl.ko: install linux-headers-$kver"
	fi
}

# --- the host path ------------------------------------------------------------------

loaded=
unload() {
	if [ -n "$loaded" ]; then
		say "rmmod pmuctl (this run loaded it)"
		do_cmd $sudo rmmod pmuctl || say "rmmod pmuctl failed: unload it with 'sudo rmmod pmuctl'"
		loaded=
	fi
}

run_host() {
	local kdir=build/run/kmod pmuctl=build/bin/pmuctl rc=0

	do_cmd bash scripts/deps.sh gcc make libc6-dev libpfm4-dev || return 1
	do_cmd "$make" -s "$pmuctl" || return 1
	if [ -d /sys/module/pmuctl ]; then
		say "a pmuctl module is loaded already: using it"
	else
		say "building pmuctl.ko for $kver (the default build: the CPU's PMU)"
		do_cmd rm -rf "$kdir"
		do_cmd mkdir -p "$kdir"
		do_cmd cp -r Kbuild kmod uapi "$kdir/"
		do_cmd make -s -C "/lib/modules/$kver/build" M="$top/$kdir" modules || return 1
		say "loading $kdir/pmuctl.ko (insmod; rmmod at the end)"
		do_cmd $sudo insmod "$kdir/pmuctl.ko" || {
			say "insmod failed: see 'sudo dmesg | tail' (Secure Boot lockdown refuses unsigned modules; 'scripts/run.sh vm' shows the guest instead)"
			return 1
		}
		loaded=1
		trap unload EXIT
	fi
	if [ "$(cat /proc/sys/kernel/nmi_watchdog 2>/dev/null || echo 0)" != 0 ]; then
		say "note: the NMI watchdog holds a counter through perf; if pmuctl says PERF_BUSY, free it with 'sudo sysctl kernel.nmi_watchdog=0'"
	fi
	echo
	echo "\$ $pmuctl stat -- sh -c '$workload'"
	do_cmd $sudo "$pmuctl" stat -- sh -c "$workload" || rc=1
	echo "\$ $pmuctl info"
	do_cmd $sudo "$pmuctl" info || rc=1
	unload
	return $rc
}

# --- the guest path -----------------------------------------------------------------

# The demo the guest runs (busybox sh): the main job, transcribed, and the
# three counts of the workload side by side.
write_demo() {
	cat >"$1" <<EOF
#!/bin/sh
# make run's demo in the emulated-PMU guest (scripts/run.sh writes it).
N=$guest_n
failed=0
run() {
	printf '\$'
	for a in "\$@"; do
		case \$a in
		*" "*) printf " '%s'" "\$a" ;;
		*) printf ' %s' "\$a" ;;
		esac
	done
	echo
	"\$@" 2>&1
	rc=\$?
	[ \$rc = 0 ] || { echo "(exit status \$rc)"; failed=1; }
	echo
}
echo "1..1"
run pmuctl info
run pmuctl stat -e instructions:u,cycles:u -- workload \$N
# workload.S: 2N + 8D + 23 user-mode instructions from exec to exit.
expected=\$((2 * N + 8 * \${#N} + 23))
pmuctl=\$(pmuctl stat -x, -e instructions:u -- workload \$N 2>&1 |
	awk -F, '\$3 == "instructions:u" { print \$1 }')
perf=\$(perf-count -- workload \$N 2>&1)
echo "User-mode instructions retired by 'workload \$N', from its exec to its exit:"
printf '  %-52s %12s\n' "expected (workload.S: 2N + 8D + 23)" "\$expected" \\
	"pmuctl stat -e instructions:u -- workload \$N" "\${pmuctl:-?}" \\
	"perf (perf_event_open, enable_on_exec, user mode)" "\${perf:-?}"
if [ "\$pmuctl" = "\$expected" ] && [ "\$perf" = "\$expected" ]; then
	echo "pmuctl and perf both count exactly the expected number."
else
	echo "MISMATCH: pmuctl and perf should both count exactly the expected number."
	failed=1
fi
[ \$failed = 0 ] && echo "ok 1 demo" || echo "not ok 1 demo"
EOF
	chmod +x "$1"
}

run_vm() {
	local logs=build/run-logs tests=build/run/tests k id tap rc qemu=${QEMU:-} groups
	local bar='=========================================================================='

	if [ "$dry" = 1 ]; then
		echo "dry: boot one guest"
		return 0
	fi
	# qemu: the patched QEMU's build dependencies.
	groups="gcc make libc6-dev libpfm4-dev kernel vm qemu"
	# shellcheck disable=SC2086 # one word per group
	bash scripts/deps.sh $groups || return 1
	k=$(scripts/kernels.sh installed | sort -V | tail -n 1)
	if [ -z "$k" ]; then
		say "no target kernel headers installed (scripts/kernels.sh installed): 'make check' installs them"
		return 1
	fi
	mkdir -p "$logs"
	if [ -z "$qemu" ]; then
		say "the patched QEMU (scripts/vm/qemu.sh: built once from Debian's source, about 5 minutes, then cached)"
		if ! qemu=$(bash scripts/vm/qemu.sh 2>"$logs/qemu.log"); then
			say "no patched QEMU: $(tail -n 1 "$logs/qemu.log")"
			say "the guest needs its emulated PMU (see $logs/qemu.log)"
			return 1
		fi
	fi
	"$make" -s build/vmbin/pmuctl build/vmbin/workload build/vmbin/perf-count || return 1
	rm -rf "$tests" && mkdir -p "$tests"
	write_demo "$tests/demo"
	say "booting Debian's $k under QEMU TCG as Skylake-Server with an emulated PMU and pmuctl.ko's default build (under a minute once the kernel image is cached)"
	QEMU=$qemu bash scripts/vm/run.sh -P -k "$k" -c Skylake-Server -t "$tests" \
		-x build/vmbin/pmuctl -x build/vmbin/workload -x build/vmbin/perf-count \
		-o "$logs" -l run -T 90 -H 150 >"$logs/rig.log" 2>&1 </dev/null
	rc=$?
	id=$(sed -n 's/^vm: \(vm-[^:]*\.run\): .*/\1/p' "$logs/rig.log" | head -n 1)
	tap=$logs/$id-demo.tap
	echo
	echo "$bar"
	echo " THE GUEST'S TRANSCRIPT.  Its PMU is emulated in QEMU TCG (pmuctl's patch"
	echo " to QEMU): instructions retired are exact, cycles are synthetic (one per"
	echo " instruction).  A count on silicon is proved only by selftests/hw on real"
	echo " hardware ('make hwtest')."
	echo "$bar"
	if [ -n "$id" ] && [ -s "$tap" ]; then
		grep -Ev '^(1\.\.1|(not )?ok 1 demo|# check\.sh: exit=.*)$' "$tap"
	else
		echo "(no transcript: see $logs/rig.log)"
	fi
	echo "$bar"
	echo " (emulated PMU in QEMU TCG, not silicon; files: $logs/)"
	if [ $rc -ne 0 ]; then
		say "the guest run failed: see $logs/rig.log and $logs/$id-guest.tap"
		return 1
	fi
}

# --- choose ---------------------------------------------------------------------------

have_root=
can_root && have_root=1
why=$(why_not_host)
case $mode in
host)
	if [ -n "$why" ]; then
		say "$why"
		exit 1
	fi
	run_host
	;;
vm)
	say "the QEMU guest, as asked"
	run_vm
	;;
auto)
	if [ -z "$why" ]; then
		say "this host has an Intel PMU: counting on it"
		run_host
	else
		say "$why"
		say "instead: the same job in a QEMU guest with an emulated PMU"
		run_vm
	fi
	;;
esac
