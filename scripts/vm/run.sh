#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The QEMU rig: build the module for each target Debian kernel, boot that
# very kernel under TCG once per CPU model with the module and the static
# test programs in an initramfs, and turn what the guest printed into TAP
# files in LOGDIR (default build/logs), which scripts/tap-summary.sh counts.
# The initramfs holds two builds: the -b variables' module, which /init
# loads (by default the register model, /pmuctl_regmodel.ko: Kbuild gives
# the test build its own name and builds it only with PMUCTL_RIG=1, which
# this script passes to every build; without PMUCTL_REGMODEL, /pmuctl.ko),
# and /pmuctl-msr.ko (the same variables without PMUCTL_REGMODEL: the
# default build, which a guest without a PMU must refuse;
# selftests/device/reload_test tries it), and the kernel's own /msr.ko,
# which /init loads in -P guests.
#
# -P boots emulated-PMU guests instead: QEMU patched to count
# (scripts/vm/qemu.sh, scripts/vm/qemu/*.patch) with -cpu CPU,pmu=on and
# the model's pmu-* properties, and /pmuctl.ko the default build, which
# drives the emulated counters through its MSR backend.  Per guest:
#
#   vm-KV-CPU.console        the guest's console (ttyS0), \r stripped
#   vm-KV-CPU.marks          /init's @@...@@ markers (scripts/vm/init), which
#                            the verdicts below read: from ttyS1, then the console
#   vm-KV-CPU-guest.tap      the rig's own tests of the guest:
#       cpu_model      /proc/cpuinfo shows the family/model QEMU should emulate
#                      and -smp N CPUs
#       module_loaded  insmod of the module succeeded (-P: and insmod /msr.ko)
#       ran_to_end     /init reached @@DONE@@ and QEMU exited through
#                      isa-debug-exit with status 1 (vm-exit 0)
#       console_clean  no Oops, WARNING:, BUG:, Call Trace, lockup, panic,
#                      KASAN/UBSAN report or stall in the console
#       perf_driver    (-P only) the kernel found the PMU ("Performance
#                      Events: ... Intel PMU driver.", no "Broken PMU", "PMU
#                      not available" or "unsupported" complaint) and pmuctl
#                      loaded with its MSR backend ("pmuctl: ..., msr backend")
#       module_unloaded  (-D, -E only) rmmod of the module succeeded after
#                      the tests (@@RMMOD ok@@)
#       kmemleak_clean (-D only: the kernels with DEBUG_KMEMLEAK) after the
#                      rmmod, "scan" twice: no unreferenced object (the
#                      report: vm-KV-CPU.kmemleak)
#       gcov_data      (-D only: the kernels with GCOV_KERNEL) the guest sent
#                      the module's .gcda files and each decoded next to its
#                      build's .gcno (in LOGDIR/gcov/ID/); a "# coverage"
#                      line for this guest
#   vm-KV-CPU-TEST.tap       each test program's output (ttyS1), plus the
#                            "# check.sh: exit=N" trailer tap-summary reads
#
# KV is the kernel's major.minor (6.1, 6.12), or its full version if two
# targets share one; 6.12-debug with -D, 6.12-rt with -E.  Every file is
# written as "not ok" before anything runs, so a rig that cannot build,
# boot or finish fails visibly.
#
# usage: scripts/vm/run.sh [options]
#   -k KVER      target kernel, repeatable (default: scripts/kernels.sh installed)
#   -c CPU       QEMU CPU model, repeatable (default: KnightsMill Skylake-Server);
#                ",check=off" is appended
#   -s N         guest CPUs, -smp N (default 2)
#   -m MB        guest memory (default 512)
#   -p PARAMS    module parameters for every guest ("regmodel_caps=knm x=1");
#   -p CPU:PARAMS  ... for that CPU model's guests only (overrides -p PARAMS)
#   -a ARGS      more kernel command line
#   -b VARS      kbuild variables (default "PMUCTL_REGMODEL=y"; with -P,
#                none: the default build)
#   -A ACCEL     QEMU -accel (default: tcg,thread=single, all guest CPUs in
#                one host thread, -P or not).  Multi-threaded TCG ("tcg",
#                QEMU 7.2) can run a stale translation of kernel text a
#                jump-label patch changed (doc/emulated-pmu.md), and every
#                load and unload of pmuctl.ko patches __schedule() (the
#                preempt-notifier static key), as perf's own keys do when
#                the tests open and close events: measured 2026-12-04,
#                guests reloading pmuctl.ko 300 times died of it in 5 of 5
#                boots (6.1 and 6.12: stale int3s, livelocks) after 12 to
#                155 reloads (4 boots of 40 reloads passed); with one
#                thread 4 boots of 300 reloads passed.  "-A tcg" still
#                runs the CPUs truly at once, for a soak that accepts the
#                flaw.
#   -S DIR       module sources, copied whole (default: the repo's Kbuild,
#                kmod/ and uapi/)
#   -M KO        with -P: boot a module built elsewhere, nothing built here:
#                KO with %k replaced by each KVER (e.g. the module DKMS
#                installed, "/lib/modules/%k/updates/dkms/pmuctl.ko"), or
#                KO.xz, .zst or .gz unpacked, is both /pmuctl.ko and
#                /pmuctl-msr.ko; its vermagic must be the KVER's
#   -t DIR       test programs: every executable file in DIR (default
#                build/vmtests); static ELF or busybox sh scripts
#   -x PROG      an extra program for the guest's /bin (the tests call it
#                by name), repeatable; a dynamic one brings its loader and
#                libraries at their own paths (scripts/vm/initramfs.sh)
#   -Q ARGS      more QEMU arguments, split at blanks (e.g. a TCG plugin:
#                "-plugin build/vm/insn-count.so,out=FILE" with -s 1)
#   -K           carry Debian's kmod (/usr/sbin/depmod, /usr/sbin/modprobe
#                and their libraries) for the autoload test
#                (selftests/device/autoload_test.sh, a SKIP without it);
#                about 1.5 s more boot per guest (scripts/vm/initramfs.sh)
#   -D           the debug kernel (scripts/vm/dkernel.sh, built once and
#                cached; the KVER is "6.12-debug"), in place of -k: lockdep,
#                KASAN, KFENCE, UBSAN, kmemleak, DEBUG_OBJECTS, KCOV for
#                the module; the module is built against its tree with
#                PMUCTL_GCOV=y and PMUCTL_KCOV=y added to -b;
#                "pmuctl_vm.debug=1" on the command line (/init unloads the
#                module, scans for leaks and sends the gcov data); msr is
#                built in.  The rig's tests module_unloaded, kmemleak_clean
#                and gcov_data
#   -E           the PREEMPT_RT debug kernel (scripts/vm/dkernel.sh rt,
#                built once and cached; the KVER is "6.12-rt"), in place of
#                -k or -D: spinlock_t sleeps, lockdep, DEBUG_ATOMIC_SLEEP,
#                DEBUG_PREEMPT, DEBUG_OBJECTS, KCSAN, KCOV for the module;
#                no KASAN, KFENCE, UBSAN, kmemleak or gcov
#                (scripts/vm/dkernel-rt.config).  As -D otherwise
#                ("pmuctl_vm.debug=1", msr built in, PMUCTL_KCOV, no
#                PMUCTL_GCOV); of -D's rig tests only module_unloaded.  A
#                sleeping lock or allocation where preemption is off ("BUG:
#                sleeping function called from invalid context", "BUG:
#                scheduling while atomic"), a spinlock_t under a
#                raw_spinlock_t (lockdep's "BUG: Invalid wait context") or
#                a data race with a pmuctl frame in either of KCSAN's
#                stacks fails console_clean; KCSAN's reports of the
#                kernel's own races are listed apart ("# kcsan:"), not
#                judged
#   -P           emulated-PMU guests: -cpu CPU,check=off,pmu=on,PROPS where
#                PROPS are the rig's model (pmu_props below: KnightsMill*
#                as KNL/KNM, v3, 2 generic counters x 40 bits, 3 fixed x 40,
#                both OFFCORE_RSP; Skylake-Server* as a Core i7-7800X, v4,
#                4 x 48, 3 x 48, full-width writes, OFFCORE_RSP, LD_LAT,
#                FRONTEND; any other CPU: the patch's defaults); /pmuctl.ko
#                is the default build (-b);
#                "nmi_watchdog=0 pmuctl_vm.msr=1" on the command line (/init
#                loads /msr.ko allow_writes=on); the rig's 5th test,
#                perf_driver.  Needs the patched QEMU: QEMU below
#   -g N         with -P: N generic counters (pmu-gp=N in place of the
#                model's), e.g. -c KnightsMill -P -g 4 -l pmu-knm4
#   -W           with -P: leave the NMI watchdog on (no nmi_watchdog=0; it
#                then holds a counter through perf, as on a stock machine)
#   -l LABEL     name the files vm-KV-CPU.LABEL* (a second set of guests)
#   -R N         N boots in all, round-robin over the KVER x CPU guests
#                (scripts/vm/soak.sh); the files are vm-KV-CPU.LABEL.NNN*,
#                NNN the boot's number, zero-padded to N's width
#   -N           boot each guest once, even when it dies of a known flaw
#                that is not pmuctl's: QEMU TCG's "Oops: int3" race, a
#                livelock, Linux 6.1's push_work double queue (by default
#                such a guest is booted again, at most three boots, and its
#                TAP says so); make soak uses it to count every oops
#   -j N         guests booted at once (default 2)
#   -T SECS      per-test timeout inside the guest (default 60)
#   -H SECS      per-guest timeout on the host (default 60 + tests x (T + 10))
#   -o LOGDIR    where the files above go (default build/logs)
# Environment:
#   QEMU         the emulator; default: for -P, the patched build that
#                scripts/vm/qemu.sh prints (building it on the first run,
#                about 5 min), otherwise Debian's qemu-system-x86_64.  It
#                runs with -L for Debian's firmware folders either way
#   QEMU_ERROR   set: boot nothing and fail every guest with this reason
#                (scripts/check.sh, when the patched QEMU did not build)
#   DKERNEL      -D: the debug kernel's tree (default: what
#                scripts/vm/dkernel.sh prints, building it on the first
#                run, about 10 min)
#   DKERNEL_ERROR  -D, set: fail every guest with this reason
#                (scripts/check.sh, when the debug kernel did not build)
#   DKERNEL_RT, DKERNEL_RT_ERROR  the same for -E
# Exit status 0 iff every file it wrote counts no failure.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
qemu=${QEMU:-}

kernels=() cpus=() smp=2 mem=512 params_all='' extra='' kbuild_vars="PMUCTL_REGMODEL=y"
kbuild_set=false pmu=false dkernel=false dvariant='' gp='' watchdog=false boots='' no_reboot=''
accel=''
src='' prebuilt='' testdir=$top/build/vmtests label='' bins=() qemu_more=() kmod_arg=() jobs=2 test_timeout=60 host_timeout=''
logs=$top/build/logs
declare -A params_cpu

usage() {
	sed -n '/^# usage:/,/^# Exit status/s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

while getopts k:c:s:m:p:a:b:A:S:M:t:x:Q:KDEPg:WNl:R:j:T:H:o:h opt; do
	case $opt in
	k) kernels+=("$OPTARG") ;;
	c) cpus+=("$OPTARG") ;;
	s) smp=$OPTARG ;;
	m) mem=$OPTARG ;;
	p)
		if [[ $OPTARG =~ ^([A-Za-z0-9-]+):(.*)$ ]]; then
			params_cpu[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
		else
			params_all=$OPTARG
		fi
		;;
	a) extra=$OPTARG ;;
	b) kbuild_vars=$OPTARG kbuild_set=true ;;
	A) accel=$OPTARG ;;
	S) src=$OPTARG ;;
	M) prebuilt=$OPTARG ;;
	t) testdir=$OPTARG ;;
	x) bins+=("$OPTARG") ;;
	Q) read -r -a qemu_more <<<"$OPTARG" ;;
	K) kmod_arg=(-K) ;;
	D)
		$dkernel && [ -n "$dvariant" ] && { echo "run.sh: -D or -E, not both" >&2; usage; }
		dkernel=true ;;
	E)
		$dkernel && [ -z "$dvariant" ] && { echo "run.sh: -D or -E, not both" >&2; usage; }
		dkernel=true dvariant=rt ;;
	P) pmu=true ;;
	g) gp=$OPTARG ;;
	W) watchdog=true ;;
	N) no_reboot=1 ;;
	l) label=.$OPTARG ;;
	R) boots=$OPTARG ;;
	j) jobs=$OPTARG ;;
	T) test_timeout=$OPTARG ;;
	H) host_timeout=$OPTARG ;;
	o) logs=$OPTARG ;;
	*) usage ;;
	esac
done
# Single-threaded TCG unless -A says otherwise (-A above).
[ -n "$accel" ] || accel=tcg,thread=single
[ $OPTIND -gt $# ] || usage
if ! $pmu && { [ -n "$gp" ] || $watchdog; }; then
	echo "run.sh: -g and -W only go with -P (emulated-PMU guests)" >&2
	usage
fi
if [ -n "$prebuilt" ] && { ! $pmu || $dkernel || [ -n "$src" ] || $kbuild_set; }; then
	echo "run.sh: -M goes with -P, and not with -D, -E, -S or -b (it builds nothing)" >&2
	usage
fi
[ -z "$gp" ] || [[ $gp =~ ^[1-8]$ ]] || { echo "run.sh: -g N: 1 to 8 generic counters" >&2; usage; }
[ -z "$boots" ] || [[ $boots =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: -R N: N >= 1 boots" >&2; usage; }
# The emulated-PMU guests count with the CPU's own MSRs: the default build.
$pmu && ! $kbuild_set && kbuild_vars=
# dkernel_has SYMBOL: whether the debug kernel of -D or -E has
# CONFIG_SYMBOL=y, as its fragments say (scripts/vm/dkernel.config, then
# -E's dkernel-rt.config, the last line for SYMBOL winning; dkernel.sh
# verifies each line in the kernel it builds).
dkernel_has() {
	local f=("$here/dkernel.config")
	[ -z "$dvariant" ] || f+=("$here/dkernel-$dvariant.config")
	grep -hE "^(CONFIG_$1=|# CONFIG_$1 is not set\$)" "${f[@]}" | tail -n 1 |
		grep -qx "CONFIG_$1=y"
}
dk_kmemleak=false dk_gcov=false
if $dkernel; then
	[ ${#kernels[@]} -eq 0 ] || { echo "run.sh: -D and -E boot a debug kernel: no -k" >&2; usage; }
	kernels=("6.12-${dvariant:-debug}")
	! dkernel_has DEBUG_KMEMLEAK || dk_kmemleak=true
	! dkernel_has GCOV_KERNEL || dk_gcov=true
	! $dk_gcov || kbuild_vars="${kbuild_vars:+$kbuild_vars }PMUCTL_GCOV=y"
	! dkernel_has KCOV || kbuild_vars="${kbuild_vars:+$kbuild_vars }PMUCTL_KCOV=y"
fi
[ ${#kernels[@]} -gt 0 ] || mapfile -t kernels < <("$top/scripts/kernels.sh" installed)
[ ${#cpus[@]} -gt 0 ] || cpus=(KnightsMill Skylake-Server)

mkdir -p "$logs" "$top/build/vm"
logs=$(cd "$logs" && pwd)
work=$top/build/vm

# The family/model QEMU's CPU models report (target/i386/cpu.c).
expected_model() {
	case ${1%%,*} in
	KnightsMill*) echo "6 133" ;;		# 0x85
	Skylake-Server* | Cascadelake-Server*) echo "6 85" ;;	# 0x55
	Skylake-Client*) echo "6 94" ;;		# 0x5e
	Icelake-Server*) echo "6 106" ;;	# 0x6a (qemu_cpu below)
	SapphireRapids*) echo "6 143" ;;	# 0x8f (qemu_cpu below)
	PerfmonV6*) echo "6 153" ;;		# 0x99 (qemu_cpu below)
	esac
}

# The QEMU -cpu model for the rig's CPU name (the name stays in the files'
# names and -p CPU:).  Debian's QEMU 7.2 gives Icelake-Server model 134
# (0x86, which Linux takes for Tremont-D, Snow Ridge), so the rig sets the
# Xeon Ice Lake-SP's 106 (0x6a) and stepping 6 (InstLatx64's
# GenuineIntel00606A6 dumps).  QEMU 7.2 has no SapphireRapids (8.0 added
# it): there the rig runs Icelake-Server as family 6 model 143 (0x8f)
# stepping 8 (GenuineIntel00806F8).  The feature flags matter little
# under TCG, which drops AVX-512, AMX and TSX anyway (check=off); the
# kernel's perf and pmuctl's caps choose their PMU by family/model and
# CPUID leaf 0AH (pmu_props).  An explicit model= in CPU wins.
qemu_cpu() {
	local base=${1%%,*} rest='' set=''
	[[ $1 == *,* ]] && rest=,${1#*,}
	case $base in
	Icelake-Server*) set=',model=106,stepping=6' ;;
	SapphireRapids*)
		$have_spr || base=Icelake-Server
		set=',model=143,stepping=8' ;;
	PerfmonV6*)
		# No part: Icelake-Server as family 6 model 153 (0x99), which
		# neither Linux (6.1, 6.12) nor pmuctl knows, so both take
		# their architectural default, with pmu_props' perfmon v6.
		base=Icelake-Server
		set=',model=153,stepping=0' ;;
	esac
	[[ $rest == *,model=* ]] && set=''
	echo "$base$set$rest"
}

# -P: the emulated PMU's -cpu properties for the rig's models (the
# contract of scripts/vm/qemu/*.patch; CPUID.0AH in the comments).  Other
# models get the patch's defaults (v4, 4 x 48 bits, 3 fixed x 48).
# Icelake-Server and SapphireRapids: CPUID.0AH of a Xeon Ice Lake-SP
# (InstLatx64, GenuineIntel/GenuineIntel00606A6_ICX_04_CPUID.txt) and of
# a Sapphire Rapids (GenuineIntel00806F8_SapphireRapids_05_CPUID.txt):
# both EAX 0x08300805 EBX 0 ECX 0xf EDX 0x8604 (v5, 8 generic x 48 bits,
# 8 architectural events, fixed counters 0-3 x 48 bits, AnyThread
# deprecated); full-width writes and PERF_METRICS (PERF_CAPABILITIES bits
# 13 and 15; LBR and PEBS stay off), 4 topdown metrics on Ice Lake, 8 on
# Sapphire Rapids (Golden Cove), with the emulation's synthetic shares; the
# OFFCORE_RSP, LD_LAT and FRONTEND masks of Linux 6.12
# (arch/x86/events/intel/core.c intel_icl_extra_regs, intel_glc_extra_regs).
pmu_props() {
	local p=''
	case ${1%%,*} in
	KnightsMill*)	# KNL/KNM as selftests/core/caps_test.c: EAX 0x07280203 EDX 0x503
		p='pmu-version=3,pmu-gp=2,pmu-gp-width=40,pmu-fixed=3,pmu-fixed-width=40'
		p+=',pmu-offcore-mask0=0x799ffbb6e7,pmu-offcore-mask1=0x399ffbffe7' ;;
	Skylake-Server*)	# Core i7-7800X: EAX 0x07300404 EBX 0 EDX 0x603
		p='pmu-version=4,pmu-gp=4,pmu-gp-width=48,pmu-fixed=3,pmu-fixed-width=48'
		p+=',pmu-perf-caps=0x2000'
		p+=',pmu-offcore-mask0=0x3fffff8fff,pmu-offcore-mask1=0x3fffff8fff'
		p+=',pmu-ldlat-mask=0xffff,pmu-frontend-mask=0x7fff17' ;;
	Icelake-Server* | SapphireRapids*)	# EAX 0x08300805 ECX 0xf EDX 0x8604
		p='pmu-version=5,pmu-gp=8,pmu-gp-width=48,pmu-events-len=8'
		p+=',pmu-fixed=4,pmu-fixed-width=48,pmu-fixed-bitmap=0xf'
		p+=',pmu-anythread-deprecated=on,pmu-perf-caps=0xa000'
		p+=',pmu-ldlat-mask=0xffff'
		case ${1%%,*} in
		Icelake-Server*)
			p+=',pmu-offcore-mask0=0x3fffffbfff,pmu-offcore-mask1=0x3fffffbfff'
			p+=',pmu-frontend-mask=0x7fff17' ;;
		*)
			p+=',pmu-offcore-mask0=0x3fffffffff,pmu-offcore-mask1=0x3fffffffff'
			p+=',pmu-frontend-mask=0x7fff1f,pmu-metrics=8' ;;
		esac ;;
	PerfmonV6*)	# v6: counters at 0x1900+, leaf 23H (pmu-spec.md); else as SPR
		# 10 generic counters as Lion Cove (leaf 0AH 8, 23H 10: the
		# two past the legacy 8 only at 0x1900+), UMASK2 and EQ.
		p='pmu-version=6,pmu-gp=10,pmu-gp-width=48,pmu-events-len=8'
		p+=',pmu-fixed=4,pmu-fixed-width=48,pmu-fixed-bitmap=0xf'
		p+=',pmu-anythread-deprecated=on,pmu-perf-caps=0x2000'
		p+=',pmu-umask2=on,pmu-eq=on' ;;
	esac
	if [[ -n $gp && ,$p, == *,pmu-gp=* ]]; then
		p=$(sed -E "s/(^|,)pmu-gp=[0-9]+/\1pmu-gp=$gp/" <<<"$p")
	elif [ -n "$gp" ]; then
		p=${p:+$p,}pmu-gp=$gp
	fi
	echo "pmu=on${p:+,$p}"
}

# The -cpu argument for CPU.
cpu_arg() {
	if $pmu; then
		echo "$(qemu_cpu "$1"),check=off,$(pmu_props "$1")"
	else
		echo "$(qemu_cpu "$1"),check=off"
	fi
}

# What in a guest's console fails console_clean (bad_re, user_fault_re,
# pmu_bad_re, kcsan_reports): scripts/vm/console.sh.
# shellcheck source=scripts/vm/console.sh
. "$here/console.sh"

# --- the plan: guests and test programs ---------------------------------------

kshort() {
	local k=$1 s n=0 o
	$dkernel && { echo "$k"; return; }
	s=$(echo "$k" | cut -d. -f1,2 | sed 's/-.*//')
	for o in "${kernels[@]}"; do
		[ "$(echo "$o" | cut -d. -f1,2 | sed 's/-.*//')" = "$s" ] && n=$((n + 1))
	done
	[ $n -eq 1 ] && echo "$s" || echo "$k"
}

tests=()
if [ -d "$testdir" ]; then
	while IFS= read -r t; do
		[ -f "$t" ] && [ -x "$t" ] && tests+=("$t")
	done < <(find "$testdir" -mindepth 1 -maxdepth 1 | LC_ALL=C sort)
fi
[ -n "$host_timeout" ] || host_timeout=$((60 + ${#tests[@]} * (test_timeout + 10)))

guests=()	# "KVER CPU ID"
for k in "${kernels[@]}"; do
	for c in "${cpus[@]}"; do
		guests+=("$k $c vm-$(kshort "$k")-${c//[,=]/_}$label")
	done
done
if [ -n "$boots" ]; then
	# -R: the same guests over and over, each boot its own ID.
	once=("${guests[@]}") guests=()
	for ((i = 0; i < boots; i++)); do
		guests+=("${once[i % ${#once[@]}]}.$(printf '%0*d' ${#boots} $((i + 1)))")
	done
fi

rig_tests=(cpu_model module_loaded ran_to_end console_clean)
! $pmu || rig_tests+=(perf_driver)
! $dkernel || rig_tests+=(module_unloaded)
! $dk_kmemleak || rig_tests+=(kmemleak_clean)
! $dk_gcov || rig_tests+=(gcov_data)

# rm_taps ID: the TAP files a run of guest ID writes, and only those: a
# glob on ID would take those of a label that ID's is a prefix of ("debug"
# and "debug-pmu", which check.sh runs side by side).
rm_taps() {
	local id=$1 t
	rm -f "$logs/$id-guest.tap"
	for t in "${tests[@]}"; do
		rm -f "$logs/$id-$(basename "$t").tap"
	done
}

# write_failed ID REASON: the guest's files as "not ok", REASON on each.
write_failed() {
	local id=$1 reason=$2 t n i=0
	rm -f "$logs/$id.console" "$logs/$id.marks"
	rm_taps "$id"
	{
		echo "TAP version 13"
		echo "1..${#rig_tests[@]}"
		for n in "${rig_tests[@]}"; do
			i=$((i + 1))
			echo "not ok $i $n"
			echo "# $reason"
		done
	} >"$logs/$id-guest.tap"
	for t in "${tests[@]}"; do
		n=$(basename "$t")
		printf '1..1\nnot ok 1 %s did not run\n# %s\n' "$n" "$reason" \
			>"$logs/$id-$n.tap"
	done
}

for g in "${guests[@]}"; do
	read -r k c id <<<"$g"
	write_failed "$id" "the rig stopped before this guest ran (see its output)"
done

rig_err=
dtree=
# -D: DKERNEL and DKERNEL_ERROR; -E: DKERNEL_RT and DKERNEL_RT_ERROR.
dk_env=DKERNEL${dvariant:+_${dvariant^^}}
dk_env_error=${dk_env}_ERROR
if [ -n "${QEMU_ERROR:-}" ]; then
	rig_err=$QEMU_ERROR
elif $dkernel && [ -n "${!dk_env_error:-}" ]; then
	rig_err=${!dk_env_error}
elif $dkernel && [ -n "${!dk_env:-}" ]; then
	dtree=${!dk_env}
elif $dkernel; then
	# The debug kernel, built once and cached; its progress shows on stderr.
	dk_out=$(mktemp) dk_err=$(mktemp)
	# shellcheck disable=SC2086 # no word, or the variant's name
	"$here/dkernel.sh" $dvariant 2>&1 >"$dk_out" | tee "$dk_err" >&2
	if [ "${PIPESTATUS[0]}" -eq 0 ]; then
		dtree=$(cat "$dk_out")
	else
		rig_err="no debug kernel: $(tail -n 1 "$dk_err")"
	fi
	rm -f "$dk_out" "$dk_err"
fi
if [ -z "$rig_err" ] && $dkernel &&
   { [ ! -f "$dtree/arch/x86/boot/bzImage" ] || [ ! -f "$dtree/include/config/kernel.release" ]; }; then
	rig_err="no debug kernel: $dtree has no arch/x86/boot/bzImage or kernel.release"
fi
if [ -n "$rig_err" ]; then
	:
elif [ -n "$qemu" ]; then
	:
elif [ -z "$qemu" ] && ! $pmu; then
	qemu='qemu-system-x86_64'
elif [ -z "$qemu" ]; then
	# The patched QEMU, built once and cached; its progress shows on stderr.
	qemu_out=$(mktemp) qemu_err=$(mktemp)
	"$here/qemu.sh" 2>&1 >"$qemu_out" | tee "$qemu_err" >&2
	if [ "${PIPESTATUS[0]}" -eq 0 ]; then
		qemu=$(cat "$qemu_out")
	else
		rig_err="no patched QEMU: $(tail -n 1 "$qemu_err")"
	fi
	rm -f "$qemu_out" "$qemu_err"
fi
if [ -n "$rig_err" ]; then
	:
elif ! command -v "$qemu" >/dev/null; then
	rig_err="$qemu not found (scripts/deps.sh vm installs qemu-system-x86)"
elif ! command -v busybox >/dev/null; then
	rig_err="busybox not found (scripts/deps.sh vm installs busybox-static)"
fi
# Whether this QEMU has its own SapphireRapids model (qemu_cpu).
have_spr=false
if [ -z "$rig_err" ] && "$qemu" -cpu help 2>/dev/null | grep -qE '^x86 +SapphireRapids '; then
	have_spr=true
fi
if [ -n "$rig_err" ]; then
	echo "vm: $rig_err" >&2
	for g in "${guests[@]}"; do
		read -r k c id <<<"$g"
		write_failed "$id" "rig: $rig_err"
	done
	exit 1
fi

# --- per kernel: the image, the module, the initramfs -------------------------

# stale_int3 CONSOLE: the first "Oops: int3" line when the "Code:" dump
# after it shows a byte other than 0xcc (int3) just before RIP (the byte in
# <>): the CPU trapped on an int3 that was no longer there.
stale_int3() {
	awk '/\] Oops: int3: / && !o { o = $0; next }
	     o && /\] Code: / {
		for (i = 2; i <= NF; i++)
			if ($i ~ /^</) {
				if ($(i - 1) != "cc")
					print o
				exit
			}
		exit
	     }' "$1" | grep .
}

# push_work_bug CONSOLE KVER: the BUG line when the guest died of Linux
# 6.1's balance_push() double queue: a CPU going offline queues its per-CPU
# push_work on its stopper a second time before the stopper ran the first
# ("list_add corruption" in cpu_stop_queue_work() called from
# balance_push()).  cpu_stop_queue_work() wakes the stopper through a
# wake_q, and a wake_q entry another CPU holds (a concurrent
# sched_setaffinity()'s stop_one_cpu()) delays that wakeup, so the pushed
# task runs and schedules again.  Upstream's "sched/core: Fix migrate_swap()
# vs. hotplug" wakes stoppers directly (Debian's 6.12 changelog lists it;
# 6.12.117's kernel/stop_machine.c calls wake_up_process()); 6.1.192's
# kernel/stop_machine.c still uses the wake_q.  task_hotplug_test's
# migrations during hotplug hit it on busy hosts (doc/emulated-pmu.md).
push_work_bug() {
	[[ $2 == 6.1.* ]] || return 1
	awk '/\] list_add corruption\./ { l = 1 }
	     l && /\] kernel BUG at lib\/list_debug\.c/ { b = $0 }
	     b && /\]  cpu_stop_queue_work\+/ { c = 1 }
	     c && /\]  balance_push\+/ { print b; exit }' "$1" | grep .
}

# The module a build in DIR made: the test build's own name first.
built_ko() {
	local f
	for f in "$1/pmuctl_regmodel.ko" "$1/pmuctl.ko"; do
		[ -f "$f" ] && { echo "$f"; return 0; }
	done
	return 1
}

# build KDIR DIR VARS LOG: the module sources copied into DIR, built there
# against the kernel tree KDIR.  Each build is kept in $work/modcache/KEY,
# KEY the hash of the sources, VARS and the kernel tree (its path, release
# and Module.symvers), and a build with the same KEY (another set of
# guests: check.sh boots eleven sets, most with the same two or three
# builds) is copied from there instead of made again.  Not gcov builds
# (-D): their .gcno files name the folder they were built in.  The 16
# newest stay.
build() {
	local kdir=$1 s=$2 vars=$3 log=$4 key c t
	mkdir -p "$s"
	if [ -n "$src" ]; then
		cp -r "$src/." "$s/"
	else
		(cd "$top" && cp -r Kbuild kmod uapi "$s/")
	fi
	key=$({
		echo "$vars"
		readlink -f "$kdir"
		cat "$kdir/include/config/kernel.release" 2>/dev/null
		sha256sum "$kdir/Module.symvers" 2>/dev/null | cut -d' ' -f1
		(cd "$s" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
	} | sha256sum | cut -c1-24)
	c=$work/modcache/$key
	if [[ $vars != *PMUCTL_GCOV=y* ]] && [ -d "$c" ] && cp -a "$c/." "$s/" &&
	   built_ko "$s" >/dev/null; then
		echo "run.sh: the build of $c, copied" >"$log"
		touch "$c"
		return 0
	fi
	# shellcheck disable=SC2086 # one word per variable
	make -C "$kdir" M="$s" PMUCTL_RIG=1 $vars modules \
		>"$log" 2>&1 && built_ko "$s" >/dev/null || return 1
	[[ $vars != *PMUCTL_GCOV=y* ]] || return 0
	# Into place whole or not at all: guests of another label may build
	# the same KEY at the same time.
	mkdir -p "$work/modcache"
	t=$(mktemp -d "$work/modcache/.new.XXXXXX") || return 0
	if cp -a "$s/." "$t/" && mv -T "$t" "$c" 2>/dev/null; then
		# shellcheck disable=SC2012 # the names are hex keys
		ls -1dt "$work"/modcache/*/ | tail -n +17 | xargs -r rm -rf
	else
		rm -rf "$t"
	fi
	return 0
}

# unpack_ko KO OUT: the module file KO, or else KO.xz, KO.zst or KO.gz
# (as the kernel's CONFIG_MODULE_COMPRESS_* has kmod install them),
# unpacked, as OUT.
unpack_ko() {
	local f=$1 x
	for x in .xz .zst .gz; do
		[ ! -e "$f" ] && [ -e "$1$x" ] && f=$1$x
	done
	mkdir -p "$(dirname "$2")"
	case $f in
	*.xz) xz -dc -- "$f" >"$2" ;;
	*.zst) zstd -qdc -- "$f" >"$2" ;;
	*.gz) gzip -dc -- "$f" >"$2" ;;
	*) cp -- "$f" "$2" ;;
	esac
}

# The scratch folder of kernel KVER for this run: build/vm/KVER, or
# build/vm/KVER@LABEL with -l, so that runs with other labels (check.sh
# runs some side by side) never share one.
kdir_of() {
	echo "$work/$1${label:+@${label#.}}"
}

# prepare KVER: writes DIR/{vmlinuz,pmuctl-msr.ko,msr.ko,initrd.cpio.gz}
# and builds the module in DIR/src (DIR: kdir_of KVER), or writes
# DIR/error with the reason.
prepare() {
	local k=$1 d s img ko v dep w vars=() msr_vars=() kdir rel=$1 msr=()
	d=$(kdir_of "$1")
	rm -rf "$d" && mkdir -p "$d"
	if $dkernel; then
		# Its own tree; msr is built in (/init sets allow_writes).
		img=$dtree/arch/x86/boot/bzImage kdir=$dtree
		rel=$(cat "$dtree/include/config/kernel.release")
	elif ! img=$("$here/kernel.sh" "$k" "$work/kernels" 2>"$d/kernel.log"); then
		echo "no kernel image: $(tail -n 2 "$d/kernel.log" | head -n 1)" >"$d/error"
		return
	else
		kdir=/lib/modules/$k/build
		cp "$work/kernels/msr-$k.ko" "$d/msr.ko"
		msr=(-m "$d/msr.ko")
	fi
	s=$d/src
	if [ -n "$prebuilt" ]; then
		if ! unpack_ko "${prebuilt//%k/$k}" "$s/pmuctl.ko" 2>"$d/build.log"; then
			echo "no module ${prebuilt//%k/$k}: $(head -n 1 "$d/build.log")" >"$d/error"
			return
		fi
		cp "$s/pmuctl.ko" "$d/pmuctl-msr.ko"
	elif ! build "$kdir" "$s" "$kbuild_vars" "$d/build.log"; then
		echo "module build failed for $k: see ${d#"$top"/}/build.log" >"$d/error"
		return
	fi
	for w in $kbuild_vars; do
		vars+=("$w")
		[[ $w == PMUCTL_REGMODEL=* ]] || msr_vars+=("$w")
	done
	if [ -n "$prebuilt" ]; then
		:	# /pmuctl-msr.ko is the same module (above)
	elif [ ${#msr_vars[@]} -eq ${#vars[@]} ]; then
		# /pmuctl.ko is the default build already (-P).
		cp "$(built_ko "$s")" "$d/pmuctl-msr.ko"
	elif build "$kdir" "$d/src-msr" "${msr_vars[*]}" "$d/build-msr.log"; then
		cp "$(built_ko "$d/src-msr")" "$d/pmuctl-msr.ko"
	else
		echo "default module build failed for $k: see ${d#"$top"/}/build-msr.log" >"$d/error"
		return
	fi
	ko=$(built_ko "$s")
	v=$(modinfo -F vermagic "$ko" | cut -d' ' -f1)
	dep=$(modinfo -F depends "$ko")
	if [ "$v" != "$rel" ]; then
		echo "${ko##*/} has vermagic $v, not $rel" >"$d/error"
		return
	fi
	if [ -n "$dep" ]; then
		echo "${ko##*/} depends on modules ($dep) the initramfs does not carry" >"$d/error"
		return
	fi
	local targs=()
	for t in "${tests[@]}"; do
		targs+=(-t "$t")
	done
	for t in "${bins[@]}"; do
		targs+=(-x "$t")
	done
	if ! "$here/initramfs.sh" -o "$d/initrd.cpio.gz" -m "$ko" \
		-m "$d/pmuctl-msr.ko" "${msr[@]}" "${targs[@]}" "${kmod_arg[@]}" \
		>"$d/initramfs.log" 2>&1; then
		echo "initramfs: $(tail -n 1 "$d/initramfs.log")" >"$d/error"
		return
	fi
	ln -sf "$img" "$d/vmlinuz"
}

t0=$(date +%s)
for k in "${kernels[@]}"; do
	prepare "$k" &
done
wait
for k in "${kernels[@]}"; do
	if [ -f "$(kdir_of "$k")/error" ]; then
		echo "vm: $k: $(cat "$(kdir_of "$k")/error")"
	else
		echo "vm: $k: image, module and initramfs ready"
	fi
done
echo "vm: prepared in $(($(date +%s) - t0)) s; ${#tests[@]} test program(s) from ${testdir#"$top"/}; $qemu"

# --- per guest: boot, then judge ----------------------------------------------

# perf_driver N CONSOLE: rig test N of a -P guest.
perf_driver() {
	local i=$1 con=$2 perf bad pm st=
	perf=$(grep -m1 -E 'Performance Events: .*Intel PMU driver\.' "$con")
	bad=$(grep -E "$pmu_bad_re" "$con")
	pm=$(grep -m1 -E 'pmuctl: .* PMU v[0-9]+: .* backend$' "$con")
	[ -n "$perf" ] || st="no 'Performance Events: ... Intel PMU driver.' line"
	[ -z "$bad" ] || st="${st:+$st; }perf complained about the PMU"
	case $pm in
	*", msr backend") ;;
	"") st="${st:+$st; }no 'pmuctl: ... PMU v...: ..., msr backend' line" ;;
	*) st="${st:+$st; }pmuctl did not load with its MSR backend" ;;
	esac
	if [ -z "$st" ]; then
		echo "ok $i perf_driver"
	else
		echo "not ok $i perf_driver"
		echo "# $st"
	fi
	{
		grep -m1 -E 'Performance Events:' "$con"
		echo "$bad"
		echo "$pm"
	} | awk 'NF && !seen[$0]++ { print "# " $0 }'
}

# gcov_collect D TTYS1 DEST: the .gcda files the guest sent (base64 between
# @@GCDA-BEGIN PATH@@ and @@GCDA-END@@), decoded into DEST at their path
# under D (src/kmod/main.gcda), each with its build's .gcno, and D in
# DEST/PREFIX (scripts/vm/coverage.sh reads them).  Prints what went wrong,
# nothing if all went well; at least one file must have come.
gcov_collect() {
	local d=$1 tty=$2 dest=$3 list n p rel bad=
	rm -rf "$dest" && mkdir -p "$dest/.b64"
	tr -d '\r' <"$tty" | awk -v dir="$dest/.b64" '
		/^@@GCDA-BEGIN .*@@$/ {
			p = substr($0, 14, length($0) - 15); n++
			f = dir "/" n; print p > (f ".path"); close(f ".path"); on = 1; next
		}
		/^@@GCDA-END@@$/ { on = 0; close(f); next }
		on { print > f }'
	list=$(find "$dest/.b64" -name '*.path' | LC_ALL=C sort)
	[ -n "$list" ] || bad="the guest sent no .gcda"
	for n in $list; do
		p=$(cat "$n")
		rel=${p#/sys/kernel/debug/gcov"$d"/}
		if [ "$rel" = "$p" ] || [[ $rel == */../* ]]; then
			bad="${bad:+$bad; }$p is not under $d"
			continue
		fi
		mkdir -p "$dest/$(dirname "$rel")"
		if ! base64 -d <"${n%.path}" >"$dest/$rel" 2>/dev/null || [ ! -s "$dest/$rel" ]; then
			bad="${bad:+$bad; }$rel does not decode"
		elif ! cp "$d/${rel%.gcda}.gcno" "$dest/${rel%.gcda}.gcno" 2>/dev/null; then
			bad="${bad:+$bad; }no ${rel%.gcda}.gcno in $d"
		fi
	done
	rm -rf "$dest/.b64"
	echo "$d" >"$dest/PREFIX"
	echo "$bad"
}

# debug_tests N ID MARKS D: the -D and -E rig tests, numbered from
# N + 1 (kmemleak_clean and gcov_data where the kernel has kmemleak and
# gcov); D is the folder the module was built in.
debug_tests() {
	local i=$1 id=$2 marks=$3 d=$4 st n cov
	if grep -qx '@@RMMOD ok@@' "$marks"; then
		echo "ok $((i += 1)) module_unloaded"
	else
		echo "not ok $((i += 1)) module_unloaded"
		st=$(grep -m1 '^@@RMMOD ' "$marks")
		echo "# ${st:-no @@RMMOD@@ line: /init did not get there}"
	fi
	$dk_kmemleak || { debug_gcov "$i" "$id" "$marks" "$d"; return; }
	n=$(sed -n 's/^@@KMEMLEAK suspects=\(.*\)@@$/\1/p' "$marks" | head -n 1)
	if [ "$n" = 0 ]; then
		echo "ok $((i += 1)) kmemleak_clean"
	else
		echo "not ok $((i += 1)) kmemleak_clean"
		if [ -z "$n" ]; then
			echo "# no @@KMEMLEAK@@ line: /init did not get there"
		elif ! [[ $n =~ ^[0-9]+$ ]]; then
			echo "# kmemleak gave no count: $n"
		else
			echo "# kmemleak: $n suspect(s) after the tests (${id}.kmemleak):"
			head -n 40 "$logs/$id.kmemleak" | sed 's/^/# /'
		fi
	fi
	debug_gcov "$i" "$id" "$marks" "$d"
}

# debug_gcov N ID MARKS D: the rig test gcov_data, numbered N + 1, where
# the kernel has gcov.
debug_gcov() {
	local i=$1 id=$2 marks=$3 d=$4 st n cov
	$dk_gcov || return 0
	st=$(gcov_collect "$d" "$work/$id.ttyS1" "$logs/gcov/$id")
	n=$(sed -n 's/^@@GCOV files=\(.*\)@@$/\1/p' "$marks" | head -n 1)
	[ -n "$n" ] || st="no @@GCOV@@ line: /init did not get there${st:+; $st}"
	if [ -z "$st" ]; then
		echo "ok $((i += 1)) gcov_data $n file(s)"
	else
		echo "not ok $((i += 1)) gcov_data"
		echo "# $st"
	fi
	# This guest's share; scripts/check.sh reports the union of all.
	cov=$(bash "$here/coverage.sh" "$logs/gcov/$id" 2>&1) || true
	sed 's/^\([^#]\)/# \1/; s/^# coverage/# coverage (this guest)/' <<<"$cov"
}

# guest KVER CPU ID
guest() {
	local k=$1 cpu=$2 id=$3 d params p cmdline start rc secs cpuarg
	local raw=$work/$id.ttyS0 out=$work/$id.ttyS1 con=$logs/$id.console
	d=$(kdir_of "$1")
	if [ -f "$d/error" ]; then
		write_failed "$id" "rig: $(cat "$d/error")"
		return
	fi
	params=$params_all
	[ -n "${params_cpu[${cpu%%,*}]+set}" ] && params=${params_cpu[${cpu%%,*}]}
	cmdline="console=ttyS0 panic=-1 oops=panic softlockup_panic=1"
	cmdline+=" hung_task_panic=1 hung_task_timeout_secs=30"
	# TCG's timer can look dead to the boot-time IO-APIC check on a busy
	# host ("IO-APIC + timer doesn't work!" panic); skip that check.
	cmdline+=" no_timer_check"
	cmdline+=" pmuctl_vm.timeout=$test_timeout"
	if $pmu; then
		# The watchdog is perf: it would hold a counter (and fixed counter 1).
		$watchdog || cmdline+=" nmi_watchdog=0"
		cmdline+=" pmuctl_vm.msr=1"
	fi
	$dkernel && cmdline+=" pmuctl_vm.debug=1"
	for p in $params; do
		cmdline+=" pmuctl.$p"
	done
	[ -z "$extra" ] || cmdline+=" $extra"

	cpuarg=$(cpu_arg "$cpu")
	local boot again='' flaw='' bug qpid last now quiet_since hung stall_s=$((test_timeout + 60))
	rm -f "$logs/$id.console.first"
	for boot in 1 2 3; do
		rm -f "$raw" "$out"
		start=$(date +%s)
		# -L: Debian's firmware (qemu-system-x86's dependencies), which
		# a QEMU built by qemu.sh would look for under /usr/local.
		timeout -k 5 "$host_timeout" "$qemu" -accel "$accel" -cpu "$cpuarg" \
			-L /usr/share/seabios -L /usr/share/qemu -L /usr/lib/ipxe/qemu \
			-smp "$smp" -m "${mem}M" -nodefaults -nographic -no-reboot \
			-device isa-debug-exit,iobase=0xf4,iosize=4 \
			-serial "file:$raw" -serial "file:$out" \
			-kernel "$d/vmlinuz" -initrd "$d/initrd.cpio.gz" \
			-append "$cmdline" ${qemu_more[@]+"${qemu_more[@]}"} \
			</dev/null >"$work/$id.qemu.log" 2>&1 &
		qpid=$!
		# A guest that prints nothing on either port for stall_s seconds
		# (the in-guest test timeout, after which /init reports the test
		# killed, plus a minute) is livelocked: a QEMU TCG flaw with
		# guest time frozen, so the kernel's own lockup and hung-task
		# panics never fire (doc/emulated-pmu.md; seen once in a
		# -P guest, a vCPU spinning for 36 min during autoload_test's
		# module reloads).  It is stopped instead of waiting for the
		# host timeout, and booted again below.
		last=-1 quiet_since=$start hung=''
		while kill -0 "$qpid" 2>/dev/null; do
			sleep 1
			now=$(($(stat -c %s "$raw" 2>/dev/null || echo 0) + $(stat -c %s "$out" 2>/dev/null || echo 0)))
			if [ "$now" != "$last" ]; then
				last=$now quiet_since=$(date +%s)
			elif [ $(($(date +%s) - quiet_since)) -ge "$stall_s" ]; then
				hung=1
				pkill -TERM -P "$qpid" 2>/dev/null
				sleep 2
				pkill -KILL -P "$qpid" 2>/dev/null
				break
			fi
		done
		wait "$qpid"
		rc=$?
		secs=$(($(date +%s) - start))
		touch "$raw" "$out"
		tr -d '\r' <"$raw" >"$con"
		if [ -n "$hung" ]; then
			echo "@@VM-RIG@@ no output for $stall_s s: QEMU stopped" >>"$con"
		fi
		# QEMU 7.2's TCG can run a stale translation of kernel text that
		# a jump-label patch changed (text_poke_bp's int3, executed after
		# the patch completed): "Oops: int3" while the kernel boots, with
		# or without pmu=on and on Debian's stock QEMU too
		# (doc/emulated-pmu.md).  Before /init nothing of pmuctl or its tests
		# has run, so such a guest is booted once more, and its TAP says
		# so; the first console is kept.  make soak (-N) counts every
		# boot instead.
		#
		# After /init the same race shows where the tests toggle a static
		# key (every load and unload of pmuctl.ko: preempt_notifier_inc()
		# and _dec() patch __schedule()).  There it is told from a real
		# int3 by the oops' own code dump: the byte before RIP is no
		# longer 0xcc, so the CPU ran code the patch had already replaced,
		# which text_poke_bp()'s final sync rules out on silicon.  Such a
		# guest is booted once more too.
		# A guest stopped as livelocked is booted once more as well,
		# and so is one that died of 6.1's own push_work double queue
		# (push_work_bug), a kernel flaw fixed upstream, not pmuctl's.
		# At most three boots: one flaw, then another.
		if [ "$boot" = 3 ] || [ -n "$no_reboot" ]; then
			break
		fi
		if [ -n "$hung" ]; then
			again="no output for $stall_s s (a livelock)"
			flaw="a QEMU TCG flaw"
		elif bug=$(push_work_bug "$con" "$k"); then
			again="$bug, list_add corruption of push_work in balance_push()"
			flaw="Linux 6.1's balance_push() push_work double queue, fixed upstream by 'sched/core: Fix migrate_swap() vs. hotplug'"
		elif ! grep -q '\] Oops: int3: ' "$con"; then
			break
		elif ! grep -q '^@@VM-INIT@@' "$con"; then
			again="$(grep -m1 '\] Oops: int3: ' "$con") before /init"
			flaw="a QEMU TCG flaw: its text-patching race"
		elif bug=$(stale_int3 "$con"); then
			again="$bug, the code dump shows no int3 at RIP-1"
			flaw="a QEMU TCG flaw: its text-patching race"
		else
			break
		fi
		mv "$con" "$logs/$id.console.first"
		echo "vm: $id: $again ($flaw): booting it again"
	done

	# /init's markers, which the verdicts below read (console.sh).
	local marks=$logs/$id.marks
	guest_marks "$out" "$con" >"$marks"

	# -D: kmemleak's report, from ttyS1.
	rm -f "$logs/$id.kmemleak"
	if $dk_kmemleak; then
		tr -d '\r' <"$out" | awk '/^@@KMEMLEAK-BEGIN@@$/ { on = 1; next }
			/^@@KMEMLEAK-END@@$/ { on = 0 } on' >"$logs/$id.kmemleak"
	fi

	# Each test's TAP, from ttyS1.
	local t n st why
	rm_taps "$id"
	for t in "${tests[@]}"; do
		n=$(basename "$t")
		tr -d '\r' <"$out" | awk -v n="$n" -v id="$id" -v to="$test_timeout" '
			$0 == "@@TAP-BEGIN " n "@@" { on = 1; began = 1; next }
			on && index($0, "@@TAP-END " n " rc=") == 1 {
				on = 0; ended = 1
				split($0, f, /[ =@]+/)	# "", TAP-END, n, rc, R, secs, S
				rc = f[5]; secs = f[7]
				if ((rc == 143 || rc == 137) && secs >= to)
					print "# vm: " n " timed out after " secs " s and was killed"
				else if (rc > 128)
					print "# vm: " n " was killed by signal " rc - 128
				print "# check.sh: exit=" rc
				next
			}
			on { print }
			END {
				if (!began) {
					print "1..1"
					print "not ok 1 " n " did not run: the guest stopped before it (see " id ".console)"
				} else if (!ended) {
					print "Bail out! the guest stopped while " n " ran (see " id ".console)"
				}
			}' >"$logs/$id-$n.tap"
	done

	# The guest's own tests.
	local cpuline fam model ncpu exp
	{
		echo "TAP version 13"
		echo "1..${#rig_tests[@]}"
		echo "# $k, -accel $accel -cpu $cpuarg -smp $smp, ${secs} s, qemu exit $rc"
		[ -z "$again" ] ||
			echo "# booted $boot times: the boot before died with '$again' ($flaw; $id.console.first)"
		echo "# qemu: $qemu"
		echo "# kernel command line: $cmdline"

		cpuline=$(grep -m1 '^@@CPU ' "$marks")
		fam=$(sed -n 's/.* family=\([0-9]*\).*/\1/p' <<<"$cpuline")
		model=$(sed -n 's/.* model=\([0-9]*\).*/\1/p' <<<"$cpuline")
		ncpu=$(sed -n 's/.* cpus=\([0-9]*\).*/\1/p' <<<"$cpuline")
		exp=$(expected_model "$cpu")
		if [ -z "$cpuline" ]; then
			echo "not ok 1 cpu_model"
			echo "# no @@CPU@@ line: /init did not run"
		elif [ "$ncpu" != "$smp" ]; then
			echo "not ok 1 cpu_model"
			echo "# want $smp CPUs online, guest says: ${cpuline//@/}"
		elif [ -z "$exp" ]; then
			echo "ok 1 cpu_model # SKIP no expected model for $cpu (${cpuline//@/})"
		elif [ "$fam $model" = "$exp" ]; then
			echo "ok 1 cpu_model family $fam model $(printf '%#x' "$model"), $ncpu CPUs"
		else
			echo "not ok 1 cpu_model"
			echo "# want family/model $exp, guest says: ${cpuline//@/}"
		fi

		st=
		grep -qx '@@MODULE loaded@@' "$marks" || st="insmod of the module failed"
		if $pmu && ! grep -qx '@@MSR loaded@@' "$marks"; then
			st="${st:+$st; }insmod /msr.ko allow_writes=on failed"
		fi
		if [ -z "$st" ]; then
			echo "ok 2 module_loaded"
		else
			echo "not ok 2 module_loaded"
			echo "# $st"
			grep -E '^@@MODULE|^@@MSR|insmod|pmuctl|msr' "$con" | grep -vi 'command line' |
				tail -n 10 | sed 's/^/# /'
		fi

		st=
		grep -qx '@@DONE@@' "$marks" || st="/init did not reach @@DONE@@"
		if [ -n "$hung" ]; then
			st="${st:+$st; }no output for $stall_s s (livelocked): QEMU was stopped"
		else
			case $rc in
			1) ;;
			124 | 137) st="${st:+$st; }killed by the host after $host_timeout s" ;;
			0)
				st="${st:+$st; }QEMU exited 0: the guest rebooted or panicked (panic=-1)"
				# the panic's own words, so that a CI log's tail says why
				why=$(grep -m1 -o 'Kernel panic - not syncing: .*' "$con" | cut -c1-160)
				[ -z "$why" ] || st+=": $why"
				;;
			*) st="${st:+$st; }QEMU exited $rc, want 1 (vm-exit 0)" ;;
			esac
		fi
		if [ -z "$st" ]; then
			echo "ok 3 ran_to_end"
		else
			echo "not ok 3 ran_to_end"
			echo "# $st"
			grep -E '^@@TEST ' "$marks" | tail -n 1 | sed 's/^/# last test started: /'
			sed 's/^/# qemu: /' "$work/$id.qemu.log" | tail -n 5
		fi

		# KCSAN's reports of races between two kernel paths with no
		# pmuctl frame in either stack are the kernel's own: listed, not
		# judged.  The rest of the console is matched as always.
		local bad own
		own=$(kcsan_reports "$con" own | sed -n 's/.*\(BUG: KCSAN: .*\)/\1/p')
		bad=$(kcsan_reports "$con" rest | grep -Ev "$user_fault_re" | grep -E "$bad_re")
		if [ -z "$bad" ]; then
			echo "ok 4 console_clean"
		else
			echo "not ok 4 console_clean"
			# the first line on the diagnostic's first line: the
			# one tap-summary.sh shows as the reason
			echo "# $(grep -c . <<<"$bad") matching line(s) in $id.console, first: $(head -n 1 <<<"$bad" | cut -c1-160)"
			head -n 30 <<<"$bad" | sed 's/^/# /'
		fi

		local i=4
		$pmu && perf_driver $((i += 1)) "$con"
		$dkernel && debug_tests "$i" "$id" "$marks" "$d"
		# last: a diagnostic before a result reads as that result's reason
		if [ -n "$own" ]; then
			echo "# kcsan: $(grep -c . <<<"$own") report(s) of the kernel's own races (no pmuctl frame), not judged:"
			sort <<<"$own" | uniq -c | head -n 20 | sed 's/^ */# kcsan:   /'
		fi
	} >"$logs/$id-guest.tap"
	echo "vm: $id: ${secs} s, qemu exit $rc"
}

t1=$(date +%s)
for g in "${guests[@]}"; do
	read -r k c id <<<"$g"
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
		wait -n
	done
	guest "$k" "$c" "$id" &
done
wait
echo "vm: ${#guests[@]} guest(s) in $(($(date +%s) - t1)) s, $jobs at a time"

# --- summary of what this run wrote --------------------------------------------

sum=$(mktemp -d)
trap 'rm -rf "$sum"' EXIT
for g in "${guests[@]}"; do
	read -r k c id <<<"$g"
	ln -s "$logs/$id"-*.tap "$sum/"
done
bash "$top/scripts/tap-summary.sh" "$sum"
