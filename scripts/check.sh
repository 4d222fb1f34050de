#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The driver behind "make check": install what is missing, fetch the kernel
# files the tests use, build the tests, run them all, count the results.
#
# - Build steps are results too: build/logs/build.tap gets "ok" or "not ok"
#   per step, so a broken build shows in the count and the run goes on.
# - Every executable in build/tests/ and every executable selftests/**/*.sh
#   runs from the repository root with stdin from /dev/null and a timeout
#   (TEST_TIMEOUT, default 300 s); its stdout and stderr go to
#   build/logs/NAME.tap and to the terminal, followed by a
#   "# check.sh: exit=N" trailer that scripts/tap-summary.sh reads.
# - Then the QEMU rig (scripts/vm/run.sh, "make vmcheck") boots the module in
#   Debian's 6.1 and 6.12 kernels under TCG and writes build/logs/vm-*.tap;
#   VM_ARGS passes options to it.  Every register-model guest runs the
#   fuzzer of interleavings for 6 s among its tests (build/vmtests/fuzz_test,
#   doc/fuzzing.md), and so do the hotplug and the emulated-PMU guests
#   (copies in build/vmtests-hotplug/, build/vmtests-pmu/, build/vmtests-v6/).  A second set of guests, -smp 4 and
#   labelled "hotplug" ("make vmcheck-hotplug"), runs build/vmtests-hotplug/
#   alone: the CPU hotplug tests, which need more CPUs than the others; one
#   TCG thread per guest (4 busy vCPU threads each on a small host spend
#   their time waiting for each other's IPIs).
# - Every guest runs on the patched QEMU (build step "qemu":
#   scripts/vm/qemu.sh builds it once from Debian's source and
#   scripts/vm/qemu/*.patch and caches it), never on Debian's stock binary:
#   if it does not build, every guest fails saying why.  The register-model
#   guests run it without pmu=on, where it behaves as stock.  The
#   emulated-PMU guests (run.sh -P, "make vmcheck-pmu") run
#   build/vmtests-pmu/: "pmu" (KnightsMill and Skylake-Server, NMI
#   watchdog off), "pmu-wd" (Skylake-Server, watchdog on) and "pmu-knm4"
#   (KnightsMill with 4 generic counters).
# - Ice Lake server and Sapphire Rapids (perfmon v5): "icx", the
#   register-model guests with build/vmtests/, and "pmu-icx", the emulated
#   PMU with build/vmtests-pmu/, each Icelake-Server and SapphireRapids on
#   the newest target kernel only (the timings are below, at "vm icx").
# - The debug kernel (build step "dkernel": scripts/vm/dkernel.sh builds
#   Debian's linux-source-6.12 with lockdep, KASAN, KFENCE, UBSAN, kmemleak,
#   DEBUG_OBJECTS, gcov and KCOV once per machine and caches it) boots two
#   Skylake-Server guests ("make vmcheck-debug"): "debug", the register
#   model with build/vmtests/, and "debug-pmu", the emulated PMU (-P) with
#   build/vmtests-pmu/.  Any checker's report fails them (console_clean,
#   kmemleak_clean); if the kernel does not build, both fail saying why.
#   Their gcov data gives build/logs/coverage.txt and the "# coverage"
#   lines of build/logs/coverage.tap (reported, not judged).
# - The PREEMPT_RT debug kernel (build step "dkernel-rt": scripts/vm/dkernel.sh
#   rt, the same kernel with PREEMPT_RT, lockdep, DEBUG_ATOMIC_SLEEP and
#   KCSAN, no KASAN, KFENCE, UBSAN, kmemleak or gcov, cached beside the
#   first) boots one Skylake-Server guest ("make vmcheck-rt"): "debug-rt",
#   the register model with build/vmtests/ (run.sh -E), where spinlock_t
#   sleeps: a sleeping lock or allocation in a context that cannot sleep,
#   or a data race with a pmuctl frame (KCSAN), fails console_clean; if the
#   kernel does not build, the guest fails saying why.
# - The Debian packages (scripts/deb-check.sh, as root, beside the debug
#   guest): built, linted, installed with dpkg, the module built by the
#   real dkms for 6.1 and 6.12; the "pmu-wd" guests boot that very module
#   (run.sh -M); then purged, and nothing may be left.
# - The last line printed is tap-summary's "P passed, F failed, S skipped";
#   the exit status is non-zero if anything failed.
set -uo pipefail

cd "$(dirname "$0")/.." || exit 1

ksrc=${KSRC:-build/ksrc}
timeout_s=${TEST_TIMEOUT:-300}
make=${MAKE:-make}
logs=build/logs

mkdir -p "$logs" build/tests
rm -f "$logs"/*.tap "$logs"/*.log "$logs/qemu.path" "$logs/dkernel.path" \
	"$logs/dkernel-rt.path" "$logs"/*.kmemleak "$logs/coverage.txt"
rm -rf "$logs/gcov"
# run.sh takes its emulator and debug kernels from these; only the "qemu",
# "dkernel" and "dkernel-rt" steps set them.
unset QEMU QEMU_ERROR DKERNEL DKERNEL_ERROR DKERNEL_RT DKERNEL_RT_ERROR

# --- wall time per step ---------------------------------------------------

# took NAME T0: NAME took the seconds since T0 ($SECONDS); printed as a
# table before the summary, so that a slow step shows in every CI tail.
# Sets that run beside the debug guest write here too (one short append).
timings=$logs/timings.txt
: >"$timings"
took() {
	printf '%s\t%s\n' "$1" "$((SECONDS - $2))" >>"$timings"
}

# --- build steps -----------------------------------------------------------

steps=(deps ksrc tests vmtests qemu dkernel dkernel-rt)
build_tap=$logs/build.tap
{ echo "TAP version 13"; echo "1..${#steps[@]}"; } >"$build_tap"

# step N NAME CMD...: run one build step, record it in build.tap.
step() {
	local n=$1 name=$2 rc t0=$SECONDS
	shift 2
	echo "== $name: $*"
	"$@" </dev/null 2>&1 | tee "$logs/$name.log"
	rc=${PIPESTATUS[0]}
	took "build: $name" "$t0"
	if [ "$rc" -eq 0 ]; then
		echo "ok $n $name" >>"$build_tap"
	else
		echo "not ok $n $name # exit=$rc, see $logs/$name.log" >>"$build_tap"
		echo "== $name: FAILED (exit $rc)"
	fi
}

# qemu_build: the patched QEMU's path into $logs/qemu.path.
qemu_build() {
	local p
	p=$(bash scripts/vm/qemu.sh) || return
	echo "$p" >"$logs/qemu.path"
	echo "qemu: $p"
}

# dkernel_build [VARIANT]: the debug kernel's tree into $logs/dkernel.path,
# or VARIANT's into $logs/dkernel-VARIANT.path.
dkernel_build() {
	local p name=dkernel${1:+-$1}
	p=$(bash scripts/vm/dkernel.sh "$@") || return
	echo "$p" >"$logs/$name.path"
	echo "$name: $p"
}

step 1 deps bash scripts/deps.sh core kernel vm qemu dkernel deb
step 2 ksrc bash scripts/ksrc.sh "$ksrc"
step 3 tests "$make" -s tests KSRC="$ksrc"
step 4 vmtests "$make" -s vmtests KSRC="$ksrc"
step 5 qemu qemu_build
step 6 dkernel dkernel_build
# The PREEMPT_RT debug kernel (dkernel.sh rt), after the first: one lock,
# and two builds at once would share the same two cores anyway.  Measured
# here 2026-12-02 (2 cores, other sessions' builds and guests beside it,
# load average 5 to 10): 32 min 39 s wall (unpack 29 s, config 98 s, make
# 1831 s) with 1118 s of CPU (57% of the machine); it compiles 1031 files
# to the first debug kernel's 1047 (no KASAN, UBSAN, KFENCE, kmemleak or
# gcov), whose make took 1380 s under the same load.  A hit takes 0.5 s.
step 7 dkernel-rt dkernel_build rt

# --- tests -------------------------------------------------------------------

# coverage_tap DIR...: the debug guests' gcov data (run.sh -D) as one TAP
# result, which fails only if there was no data to read; the figures are
# diagnostics, and build/logs/coverage.txt has the lines not covered.
coverage_tap() {
	local cov rc
	cov=$(bash scripts/vm/coverage.sh -o "$logs/coverage.txt" "$@" 2>&1)
	rc=$?
	printf 'TAP version 13\n1..1\n'
	if [ "$rc" -eq 0 ]; then
		echo "ok 1 coverage_report"
	else
		echo "not ok 1 coverage_report"
	fi
	sed 's/^\([^#]\)/# \1/' <<<"$cov"
	[ "$rc" -ne 0 ] || echo "# per file and the lines not covered: $logs/coverage.txt"
}

# run NAME CMD...: run one test program, TAP to build/logs/NAME.tap.
run() {
	local name=$1 tap=$logs/$1.tap rc
	shift
	echo "== $name"
	timeout --kill-after=10 "$timeout_s" "$@" </dev/null 2>&1 | tee "$tap"
	rc=${PIPESTATUS[0]}
	case $rc in
	124) echo "# check.sh: $name timed out after $timeout_s s" | tee -a "$tap" ;;
	137) echo "# check.sh: $name killed by SIGKILL" | tee -a "$tap" ;;
	esac
	echo "# check.sh: exit=$rc" | tee -a "$tap"
}

# pfm_diff spends half a minute inside libpfm4 (every event of seven
# PMUs, one CPU): it runs beside the other host tests, the kbuild check and
# the shell tests, its output held back and shown when they are done.
bg_pid='' bg_out=$logs/pfm_diff.out
t0=$SECONDS
for t in build/tests/*; do
	if [ ! -f "$t" ] || [ ! -x "$t" ]; then
		continue
	fi
	if [ "$(basename "$t")" = pfm_diff ]; then
		run pfm_diff "$t" >"$bg_out" 2>&1 &
		bg_pid=$!
		continue
	fi
	run "$(basename "$t")" "$t"
done
took "host: build/tests programs" "$t0"

# The kernel side: the objects of Kbuild for each target kernel, W=1 C=1,
# and checkpatch --strict.
t0=$SECONDS
run kbuild bash scripts/kbuild-check.sh "$ksrc" build/kbuild
took "host: kbuild W=1 C=1, checkpatch" "$t0"

t0=$SECONDS
if [ -d selftests ]; then
	while IFS= read -r t; do
		name=${t#selftests/}
		run "${name//\//-}" "$t"
	done < <(find selftests -type f -name '*.sh' -perm -u+x | LC_ALL=C sort)
fi
took "host: selftests scripts" "$t0"

if [ -n "$bg_pid" ]; then
	t0=$SECONDS
	wait "$bg_pid"
	took "host: pfm_diff (beside, waited for)" "$t0"
	cat "$bg_out"
	rm -f "$bg_out"
fi

# The module inside Debian's own kernels under QEMU (TCG).  run.sh writes
# every guest's files as failures before it starts, so a rig that cannot
# run shows up in the count; vm.tap covers run.sh not running at all.
echo "== vm"
rm -f "$logs"/vm-*.console "$logs"/vm-*.marks
if [ -s "$logs/qemu.path" ]; then
	QEMU=$(cat "$logs/qemu.path")
	export QEMU
else
	why=$(grep '^qemu.sh: ' "$logs/qemu.log" | tail -n 1)
	QEMU_ERROR="the patched QEMU did not build (${why:-see $logs/qemu.log})"
	export QEMU_ERROR
fi
# The static programs the guest tests call (build/vmbin/, built by "make
# vmtests": the pmuctl tool) go into the guests' /bin.  One that failed to
# build is left out, and the test that calls it fails saying so.
vmbins=()
for b in build/vmbin/*; do
	[ -f "$b" ] && [ -x "$b" ] && vmbins+=(-x "$b")
done
t0=$SECONDS
# shellcheck disable=SC2086 # VM_ARGS is a list of options
# -T 180: the stress test takes 30-65 s per guest on a busy 2-core host.
# -K: Debian's kmod for the autoload test, here and in "pmu" only (it slows
# every boot by about 1.5 s; the other sets' autoload_test is a SKIP).
bash scripts/vm/run.sh ${VM_ARGS:-} -T 180 -K "${vmbins[@]}" </dev/null 2>&1 |
	tee "$logs/vm.log"
took "vm: register model" "$t0"
t0=$SECONDS
echo "== vm knm4"
# KNM with the 4 generic counters its man page describes (real parts report 2).
# shellcheck disable=SC2086 # VM_ARGS is a list of options
bash scripts/vm/run.sh ${VM_ARGS:-} -T 180 -c KnightsMill -p regmodel_caps=knm4 \
	-l knm4 "${vmbins[@]}" </dev/null 2>&1 | tee "$logs/vm-knm4.log"
took "vm: knm4" "$t0"
t0=$SECONDS
echo "== vm hotplug"
# -T 180: task_hotplug_test takes 11 s here, 43 s on a host with three
# busy loops beside it, and past the default 60 s under a heavier load.
# shellcheck disable=SC2086 # VM_ARGS is a list of options
bash scripts/vm/run.sh ${VM_ARGS:-} -T 180 -s 4 -A tcg,thread=single -l hotplug \
	-t build/vmtests-hotplug \
	</dev/null 2>&1 | tee "$logs/vm-hotplug.log"
took "vm: hotplug" "$t0"
# The emulated PMU: real counts through pmuctl's MSR backend, next to perf.
t0=$SECONDS
echo "== vm pmu"
# shellcheck disable=SC2086 # VM_ARGS is a list of options
bash scripts/vm/run.sh ${VM_ARGS:-} -T 180 -P -K -l pmu -t build/vmtests-pmu \
	"${vmbins[@]}" </dev/null 2>&1 | tee "$logs/vm-pmu.log"
took "vm: pmu" "$t0"
# Ice Lake server and Sapphire Rapids (perfmon v5: 8 generic counters,
# fixed counter 3, AnyThread deprecated; scripts/vm/run.sh qemu_cpu and
# pmu_props), the newest kernel only.  Measured here 2026-11-24 (2 cores,
# warm): with other sessions' load at 1.6-2, the register-model set 50 s
# (10 s to prepare, 39 s for its two guests at once) and the emulated-PMU
# set 24 s (5 + 19); at load 3.5, 68 s (10 + 57) and 38 s (5 + 33), when
# the existing "pmu" set took 64 s.  So make check gains 1 min 14 s to
# 1 min 46 s (9 min 33 s warm before, README): under its 12 min.  Both
# kernels would add a round of two guests to each set (about 1 to 1.5
# min more).  6.1 with these models passes too when asked for:
#   bash scripts/vm/run.sh -c Icelake-Server -c SapphireRapids -l icx
#   bash scripts/vm/run.sh -P -c Icelake-Server -c SapphireRapids -l pmu-icx -t build/vmtests-pmu
newest_kernel=$(bash scripts/kernels.sh installed | sort -V | tail -n 1)
t0=$SECONDS
echo "== vm icx"
# shellcheck disable=SC2086 # VM_ARGS is a list of options
bash scripts/vm/run.sh ${VM_ARGS:-} -T 180 ${newest_kernel:+-k "$newest_kernel"} \
	-c Icelake-Server -c SapphireRapids -l icx "${vmbins[@]}" \
	</dev/null 2>&1 | tee "$logs/vm-icx.log"
took "vm: icx" "$t0"
t0=$SECONDS
echo "== vm pmu-icx"
# shellcheck disable=SC2086 # VM_ARGS is a list of options
bash scripts/vm/run.sh ${VM_ARGS:-} -T 180 -P ${newest_kernel:+-k "$newest_kernel"} \
	-c Icelake-Server -c SapphireRapids -l pmu-icx -t build/vmtests-pmu \
	"${vmbins[@]}" </dev/null 2>&1 | tee "$logs/vm-pmu-icx.log"
took "vm: pmu-icx" "$t0"
# Perfmon v6 (the emulated PMU's pmu-version=6, whose counters also
# answer at 0x1900+; scripts/vm/qemu/pmu-spec.md): 6.12's perf uses those
# addresses (its driver's checks read them: the rig's perf_driver test),
# 6.1's the legacy ones; build/vmtests-v6/ checks perf's counts and
# pmuctl's answer on each (selftests/tool/perfmon_v6_test.sh).
t0=$SECONDS
echo "== vm pmu-v6"
# shellcheck disable=SC2086 # VM_ARGS is a list of options
bash scripts/vm/run.sh ${VM_ARGS:-} -T 180 -P -c PerfmonV6 -l pmu-v6 \
	-t build/vmtests-v6 "${vmbins[@]}" </dev/null 2>&1 | tee "$logs/vm-pmu-v6.log"
took "vm: pmu-v6" "$t0"
# The debug kernel: lockdep, KASAN, KFENCE, UBSAN, kmemleak; gcov.
if [ -s "$logs/dkernel.path" ]; then
	DKERNEL=$(cat "$logs/dkernel.path")
	export DKERNEL
else
	why=$(grep '^dkernel.sh: ' "$logs/dkernel.log" | tail -n 1)
	DKERNEL_ERROR="the debug kernel did not build (${why:-see $logs/dkernel.log})"
	export DKERNEL_ERROR
fi
# The PREEMPT_RT debug kernel: lockdep, DEBUG_ATOMIC_SLEEP, spinlock_t sleeps.
if [ -s "$logs/dkernel-rt.path" ]; then
	DKERNEL_RT=$(cat "$logs/dkernel-rt.path")
	export DKERNEL_RT
else
	why=$(grep '^dkernel.sh: ' "$logs/dkernel-rt.log" | tail -n 1)
	DKERNEL_RT_ERROR="the PREEMPT_RT debug kernel did not build (${why:-see $logs/dkernel-rt.log})"
	export DKERNEL_RT_ERROR
fi
# vm_set LABEL RUN_ARGS...: the set labelled LABEL, its output held in
# vm-LABEL.log and printed whole once it is done (for sets that run beside
# another).
vm_set() {
	local label=$1 t0=$SECONDS
	shift
	echo "== vm $label"
	# shellcheck disable=SC2086 # VM_ARGS is a list of options
	bash scripts/vm/run.sh ${VM_ARGS:-} "$@" -l "$label" "${vmbins[@]}" \
		</dev/null >"$logs/vm-$label.log" 2>&1
	took "vm: $label${beside_label:-}" "$t0"
	cat "$logs/vm-$label.log"
}
# The debug kernel's register-model guest is one guest in one host thread
# (tcg,thread=single) for about 2 min: the sets below run beside it, one
# after the other, on the core it leaves (run.sh keeps each label's
# scratch apart).  -T 1200 for the debug kernel: the stress test takes
# 100 s under KASAN and lockdep, and its first test alone has taken over
# 300 s while the packages build beside it on a 2-core host.  pmu-wd: the
# NMI watchdog on, perf holds a counter as on a stock machine;
# debug-pmu-v6: the perfmon v6 test (perf kept off by pmuctl's sentinel
# events, hotplug and the watchdog included) under the checkers; pmu-knm4:
# KNM with 4 generic counters, the emulated twin of regmodel_caps=knm4.
# First beside it, the Debian packages installed for real
# (scripts/deb-check.sh: make deb, dpkg -i, the module DKMS builds for
# each kernel); pmu-wd then boots the module DKMS built (run.sh -M), where
# the install left one (as root, with the packaging tools).  Purged after
# the guests.
beside() {
	local wd_module=() beside_label=" (beside the debug guests)" t0=$SECONDS

	run deb-install bash scripts/deb-check.sh install "$logs"
	took "deb: make deb, install$beside_label" "$t0"
	[ ! -s "$logs/deb.ko" ] || wd_module=(-M "$(cat "$logs/deb.ko")")
	vm_set debug-pmu -T 600 -D -P -c Skylake-Server -t build/vmtests-pmu
	vm_set debug-pmu-v6 -T 600 -D -P -c PerfmonV6 -t build/vmtests-v6
	vm_set pmu-wd -T 180 -P -W -c Skylake-Server -t build/vmtests-pmu "${wd_module[@]}"
	vm_set pmu-knm4 -T 180 -P -c KnightsMill -g 4 -t build/vmtests-pmu
}
beside >"$logs/vm-beside.out" 2>&1 &
beside_pid=$!
vm_set debug -T 1200 -D -c Skylake-Server
# Then the PREEMPT_RT debug kernel's register-model guest, on the same
# core (one host thread too), while the sets beside go on: measured here
# 2026-12-02, 147 s at load average 3 to 4.5 (43 s to prepare, the
# module's build against its tree included, 96 s for the guest), 246 s
# at 6 to 8 (60 + 166 s), and 86 s at 2.7 with the module's build in
# build/vm/modcache (6 + 76 s).
vm_set debug-rt -T 1200 -E -c Skylake-Server
wait "$beside_pid"
cat "$logs/vm-beside.out"
t0=$SECONDS
run deb-purge bash scripts/deb-check.sh purge "$logs"
took "deb: purge" "$t0"
t0=$SECONDS
echo "== coverage"
coverage_tap "$logs/gcov/vm-6.12-debug-Skylake-Server.debug" \
	"$logs/gcov/vm-6.12-debug-Skylake-Server.debug-pmu" \
	"$logs/gcov/vm-6.12-debug-PerfmonV6.debug-pmu-v6" | tee "$logs/coverage.tap"
took "coverage report" "$t0"

if ! ls "$logs"/vm-*-guest.tap >/dev/null 2>&1; then
	printf '1..1\nnot ok 1 vm_rig wrote no guest TAP: see %s\n' "$logs/vm.log" >"$logs/vm.tap"
fi
# Every labelled set must have left its guests' TAP: a set whose results
# went missing fails here instead of shrinking the count unseen.
for l in knm4 hotplug pmu pmu-wd icx pmu-icx pmu-v6 pmu-knm4 debug debug-pmu debug-pmu-v6 debug-rt; do
	if ! ls "$logs"/vm-*."$l"-guest.tap >/dev/null 2>&1; then
		printf '1..1\nnot ok 1 vm_set_%s wrote no guest TAP: see %s\n' \
			"$l" "$logs/vm-$l.log" >"$logs/vm-set-$l.tap"
	fi
done

# --- summary -----------------------------------------------------------------

echo "== wall time per step (seconds; sets marked beside ran alongside the debug guests)"
awk -F '\t' '{ printf "  %-60s %6d\n", $1, $2 }' "$timings"
printf '  %-60s %6d\n' "make check, in all" "$SECONDS"
echo "== summary"
bash scripts/tap-summary.sh "$logs"
