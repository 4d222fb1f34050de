#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest half of "make bench", in ONE QEMU guest with an emulated PMU
# (scripts/vm/run.sh -P: the patched QEMU, -cpu Skylake-Server,pmu=on with
# the rig's Core i7-7800X properties, nmi_watchdog=0, pmuctl.ko's default
# build on its MSR backend; the newest target kernel, -smp 4 on one TCG
# thread), running two programs:
#  - build/vmtests/waves_test (selftests/bench/waves.c): what each
#    libpmuctl operation costs in system calls, pmuctl.ko ioctls and
#    cross-CPU call waves, counted (not timed); prints the table, then the
#    rules waves_test checks, e.g. "program on all CPUs = 1 ioctl and 1
#    wave";
#  - build/bench/vm/compare and build/bench/vm/taskswitch
#    (selftests/bench/compare.c, taskswitch.c, static), the timed rows for
#    silicon: under TCG each must say in one line that it times nothing
#    and exit 0 (a timing there would time QEMU's translated code, and
#    somebody would quote it); the counted tables below measure the same
#    operations.
# Then ONE emulated-PMU guest of -cpu Icelake-Server (8 generic counters)
# runs build/bench/vm/regions-cost and papi-cost
# (selftests/bench/regions_cost.c): instructions retired, user and
# kernel, per region enter+exit pair with 1, 4 and 8 events, for the
# handle and name forms, the LIKWID and PAPI drop-ins, and the drop-ins
# with their markers off (no session), counted by a CPU-scope group around
# a loop of 10,000 pairs; and PAPI's own high-level regions (Debian's
# libpapi 7, build/bench/vm/papi7-cost, static, on its perf_event
# component), counted by two perf events of the thread instead (PAPI's
# perf events keep pmuctl off the counters).
# Then ONE emulated-PMU guest of -cpu Denverton (Goldmont), -smp 1, with
# the TCG plugin scripts/vm/insn-count.c counting every instruction, user
# and kernel apart, between markers the programs execute: Debian's own
# LIKWID (build/bench/vm/likwid5-cost, selftests/bench/likwid_cost.c:
# LIKWID_MARKER_START/STOP in direct MSR mode with 1, 4 and 7 events)
# cannot be measured by a pmuctl group, as it programs the counters
# itself.  regions-cost -p measures pmuctl's handle pair and LIKWID
# drop-in there too, and the handle pair's user count must equal the one
# the PMU measured in the Ice Lake guest: the plugin checked against the
# counters.  LIKWID 5.2 runs on no other model QEMU offers (it wants the
# uncore PCI devices of server parts or the memory-controller BAR of
# client ones, which QEMU has not); the guest gets a bash (busybox sh)
# and likwid-accessD at /bin for LIKWID's start-up, which looks for the
# daemon with bash even in direct mode.
# Then an emulated-PMU guest of -cpu Skylake-Server per target kernel
# (the newest first) and one of -cpu Icelake-Server (the newest kernel),
# -smp 2 on one TCG thread, the plugin counting the whole guest, runs
# "compare-papi -i -r" (compare.c with Debian's static libpapi and
# libperf built from Debian's kernel source): every operation of the
# timed table, counted instead (instructions user and kernel, system
# calls, RDMSR/WRMSR), pmuctl beside perf, libperf and PAPI 7.0 (PAPI
# again with perf's rdpmc off), with the targets
# (scripts/insn-ops.awk); and "taskswitch -i": a context switch of
# threads counted by pmuctl's task scope, by perf, and of uncounted ones,
# counted the same way, MSR reads included (scripts/insn-switch.awk).
# Then ONE register-model guest (pmuctl_regmodel.ko, Skylake-Server, -smp
# 2) runs "taskswitch -m": MSR writes per context switch of a monitored
# thread, from the model's debugfs log (writes only: the model logs no
# reads).
#
# usage: scripts/bench-guest.sh [-k KVER] [-o LOGDIR]
#   -k KVER    the guests' kernel (default: the newest that
#              scripts/kernels.sh lists as installed, and every other
#              one for the operations' guest)
#   -o LOGDIR  where the rig writes its files (default build/bench-logs)
# Environment: QEMU, the patched QEMU (default: the path scripts/vm/qemu.sh
# prints, building it the first time, about 5 minutes); BENCH_TIMED, the
# file of timed rows make bench's compare -t wrote on this machine (rows
# of the results when it holds any: scripts/bench-timed.awk).
# Exit 0 when every guest ran, every rule held, every counted table
# printed and nothing was timed under TCG, 1 when not, 2 on usage
# errors.  Takes 3-4 minutes.
#
# The rig keeps its scratch in build/vm/ of this tree: do not run this
# while "make check" or "make vmcheck" boots guests from the same tree.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
cd "$top" || exit 2

kver='' logs=build/bench-logs
while getopts k:o:h opt; do
	case $opt in
	k) kver=$OPTARG ;;
	o) logs=$OPTARG ;;
	*)
		sed -n '/^# usage:/,/^# Exit 0/s/^# \{0,1\}//p' "$0" >&2
		exit 2
		;;
	esac
done
shift $((OPTIND - 1))
if [ $# -ne 0 ]; then
	echo "bench-guest.sh: unexpected argument '$1' (see -h)" >&2
	exit 2
fi

# okvers: the other target kernels, for the operations' guest; none with -k.
okvers=''
if [ -z "$kver" ]; then
	kver=$("$top/scripts/kernels.sh" installed | sort -V | tail -n 1)
	if [ -z "$kver" ]; then
		echo "bench-guest.sh: no target kernel headers in /usr/src: run 'bash scripts/deps.sh kernel' (or pass -k)" >&2
		exit 1
	fi
	okvers=$("$top/scripts/kernels.sh" installed | sort -V | grep -vxF "$kver")
fi

waves=build/vmtests/waves_test compare=build/bench/vm/compare
tswitch=build/bench/vm/taskswitch
rcost=build/bench/vm/regions-cost pcost=build/bench/vm/papi-cost
p7cost=build/bench/vm/papi7-cost lcost=build/bench/vm/likwid5-cost
cpapi=build/bench/vm/compare-papi
if ! ${MAKE:-make} -s "$waves" "$compare" "$tswitch" "$rcost" "$pcost" "$p7cost" "$lcost" "$cpapi"; then
	echo "bench-guest.sh: cannot build $waves, $compare, $tswitch, $rcost, $pcost, $p7cost, $lcost and $cpapi (see above)" >&2
	exit 1
fi
if ! plugin=$(bash scripts/vm/insn-plugin.sh); then
	echo "bench-guest.sh: cannot build the TCG plugin (see above)" >&2
	exit 1
fi
mkdir -p "$logs"
qemu=${QEMU:-}
if [ -z "$qemu" ] && ! qemu=$(bash scripts/vm/qemu.sh 2>"$logs/qemu.log"); then
	echo "bench-guest: no patched QEMU for the emulated PMU: $(tail -n 1 "$logs/qemu.log") (see $logs/qemu.log)"
	exit 1
fi

# The test folder: waves_test, and TAP wrappers that run compare and
# taskswitch (which must time nothing here) and hand their output back as
# comments.
tdir=build/bench-guest
rm -rf "$tdir"
mkdir -p "$tdir"
cp "$waves" "$tdir/"
cat >"$tdir/compare" <<'EOF'
#!/bin/sh
# make bench's timed programs in the emulated-PMU guest (scripts/bench-guest.sh):
# under TCG each must exit 0 having timed nothing, in one line saying so.
echo "TAP version 13"
echo "1..2"
n=0
for p in compare taskswitch; do
	n=$((n + 1))
	$p >/tmp/$p.out 2>&1
	rc=$?
	sed 's/^/# /' /tmp/$p.out
	if [ $rc = 0 ] && [ "$(wc -l </tmp/$p.out)" = 1 ] &&
	   grep -q '^timed rows: not measured under QEMU TCG' /tmp/$p.out; then
		echo "ok $n $p"
	else
		echo "not ok $n $p # exit $rc"
	fi
done
EOF
chmod +x "$tdir/compare"
# The register-model guest's folder: taskswitch -m.
rdir=build/bench-guest-rm
rm -rf "$rdir"
mkdir -p "$rdir"
cat >"$rdir/taskswitch-msr" <<'EOF'
#!/bin/sh
# make bench's MSR writes per context switch, register model (scripts/bench-guest.sh).
echo "TAP version 13"
echo "1..1"
/bin/taskswitch -m >/tmp/taskswitch.out 2>&1
rc=$?
sed 's/^/# /' /tmp/taskswitch.out
if [ $rc = 0 ] && grep -q 'writes/switch' /tmp/taskswitch.out; then
	echo "ok 1 taskswitch-msr"
else
	echo "not ok 1 taskswitch-msr # exit $rc"
fi
EOF
chmod +x "$rdir/taskswitch-msr"
# The regions guest's folder: every API at 1, 4 and 8 events.
gdir=build/bench-guest-regions
rm -rf "$gdir"
mkdir -p "$gdir"
cat >"$gdir/regions-cost" <<'EOF'
#!/bin/sh
# make bench's region pairs (scripts/bench-guest.sh): one row per API and N.
echo "TAP version 13"
echo "1..1"
ev=instructions:u,cycles:u,branches:u,branch-misses:u,instructions:u,cycles:u,branches:u,branch-misses:u
p7=PAPI_TOT_INS,PAPI_TOT_CYC,PAPI_BR_INS,PAPI_BR_MSP,PAPI_REF_CYC,PAPI_BR_CN,PAPI_BR_TKN,PAPI_BR_NTK
bad=0
for n in 1 4 8; do
	for api in handle name likwid likwid-off; do
		/bin/regions-cost $api $n >>/tmp/rc.out 2>&1 || bad=1
	done
	for api in papi papi-off; do
		PAPI_EVENTS=$(echo "$ev" | cut -d, -f1-$n) /bin/papi-cost $api $n \
			>>/tmp/rc.out 2>&1 || bad=1
	done
	# PAPI's own, on perf: its presets.  It refuses every event at
	# Debian's perf_event_paranoid 3, root or not: 1, as PAPI's users
	# set it.  Its report (in /tmp/papi_hl_output) says it counted.
	echo 1 >/proc/sys/kernel/perf_event_paranoid
	rm -rf /tmp/papi_hl_output
	(cd /tmp && PAPI_EVENTS=$(echo "$p7" | cut -d, -f1-$n) /bin/papi7-cost papi $n) \
		>>/tmp/rc.out 2>&1 || bad=1
	if ! ls /tmp/papi_hl_output/rank_*.json >/dev/null 2>&1; then
		echo "papi7-cost: PAPI wrote no report: its regions did not count" >>/tmp/rc.out
		bad=1
	fi
done
sed 's/^/# /' /tmp/rc.out
if [ $bad = 0 ] && [ "$(grep -c '^regions-cost ' /tmp/rc.out)" = 21 ]; then
	echo "ok 1 regions-cost"
else
	echo "not ok 1 regions-cost"
fi
EOF
chmod +x "$gdir/regions-cost"
# The plugin guest's folder: pmuctl's pairs and LIKWID's own.
idir=build/bench-guest-plugin ibin=build/bench-guest-plugin-bin
rm -rf "$idir" "$ibin"
mkdir -p "$idir" "$ibin"
cat >"$idir/insn-cost" <<'EOF'
#!/bin/sh
# make bench's pairs counted by the TCG plugin (scripts/bench-guest.sh).
echo "TAP version 13"
echo "1..1"
bad=0
for n in 1 4; do
	for api in handle likwid; do
		/bin/regions-cost -p $api $n >>/tmp/ic.out 2>&1 || bad=1
	done
done
for n in 1 4 7; do
	/bin/likwid5-cost $n >>/tmp/ic.out 2>&1 || bad=1
done
sed 's/^/# /' /tmp/ic.out
if [ $bad = 0 ] && [ "$(grep -c '^insn-label ' /tmp/ic.out)" = 7 ]; then
	echo "ok 1 insn-cost"
else
	echo "not ok 1 insn-cost"
fi
EOF
chmod +x "$idir/insn-cost"
# LIKWID's start-up runs "bash --noprofile -c 'which likwid-accessD'".
cat >"$ibin/bash" <<'EOF'
#!/bin/sh
# bash for LIKWID's start-up (scripts/bench-guest.sh)
exec /bin/sh "$@"
EOF
chmod +x "$ibin/bash"
# The counted operations' folder: compare -i.
odir=build/bench-guest-ops
rm -rf "$odir"
mkdir -p "$odir"
cat >"$odir/ops-cost" <<'EOF'
#!/bin/sh
# make bench's operations counted by the TCG plugin (scripts/bench-guest.sh).
echo "TAP version 13"
echo "1..1"
# PAPI refuses every event at Debian's perf_event_paranoid 3, root too.
echo 1 >/proc/sys/kernel/perf_event_paranoid
compare-papi -i -r -n 1000 >/tmp/ops.out 2>&1
rc=$?
taskswitch -i -c 0 >>/tmp/ops.out 2>&1 || rc=1
sed 's/^/# /' /tmp/ops.out
if [ $rc = 0 ] && grep -q '^insn-cmp ' /tmp/ops.out && grep -q '^insn-ts ' /tmp/ops.out; then
	echo "ok 1 ops-cost"
else
	echo "not ok 1 ops-cost # exit $rc"
fi
EOF
chmod +x "$odir/ops-cost"
rm -f "$logs"/vm-*.bench*
# The results: every counted row as a JSON object a line, and the plot's
# lines; build/bench/results.json and build/bench/cost.png at the end.
rows=$logs/results.rows plot=$logs/cost.tsv
rm -f "$rows" "$plot"

echo "bench-guest: booting $kver, -cpu Skylake-Server with the emulated PMU, -smp 4 (TCG), pmuctl.ko's default build"
QEMU=$qemu bash scripts/vm/run.sh -P -t "$tdir" -x "$compare" -x "$tswitch" -o "$logs" -l bench \
	-k "$kver" -c Skylake-Server -s 4 -A tcg,thread=single -T 300 </dev/null \
	>"$logs/rig.log" 2>&1
rc=$?
sed -n 's/^vm: /  rig: /p' "$logs/rig.log"

tap=$(ls "$logs"/vm-*-Skylake-Server.bench-waves_test.tap 2>/dev/null | head -n 1)
ctap=$(ls "$logs"/vm-*-Skylake-Server.bench-compare.tap 2>/dev/null | head -n 1)
guest=$(ls "$logs"/vm-*-Skylake-Server.bench-guest.tap 2>/dev/null | head -n 1)
if [ -z "$tap" ] || ! grep -q '^# cost:' "$tap"; then
	echo "bench-guest: the guest printed no table; see $logs/rig.log${guest:+, $guest}${tap:+ and $tap}"
	[ -z "$guest" ] || grep -A2 '^not ok' "$guest" | sed 's/^/  /'
	[ -z "$tap" ] || sed 's/^/  /' "$tap" | tail -n 20
	exit 1
fi

echo
echo "system calls, pmuctl.ko ioctls and cross-CPU call waves per operation"
echo "(syscalls: all the call made, traced; ioctls and waves: the deltas of"
echo " debugfs pmuctl/stats around it, as 'op calls/waves')"
sed -n 's/^# cost: /  /p' "$tap"
echo
echo "rules (selftests/bench/waves.c):"
# Results, and the harness's explanations of failures.
grep -E '^(not )?ok |^# .*:[0-9]+:[a-z_]+:|^1\.\.0' "$tap" |
	sed -E 's/^# [^:]*:[0-9]+:[a-z_]+:/      /; s/^/  /'

echo
if [ -n "$ctap" ] && grep -q '^ok 1 compare' "$ctap" && grep -q '^ok 2 taskswitch' "$ctap"; then
	echo "timed rows (compare, taskswitch): not measured under QEMU TCG, where they would time"
	echo "  QEMU's translated code; both programs ran and timed nothing.  The counted tables"
	echo "  below measure the same operations; a machine with a PMU prints the timed ones."
else
	echo "timed rows: compare or taskswitch timed something under TCG or failed; see $logs/rig.log${ctap:+ and $ctap}"
	[ -z "$ctap" ] || grep -v '^ok\|^TAP\|^1\.\.' "$ctap" | tail -n 6 | sed 's/^/  /'
	rc=1
fi

echo
echo "bench-guest: booting $kver, -cpu Icelake-Server with the emulated PMU, -smp 2: region pairs"
QEMU=$qemu bash scripts/vm/run.sh -P -t "$gdir" -x "$rcost" -x "$pcost" -x "$p7cost" -o "$logs" -l bench-regions \
	-k "$kver" -c Icelake-Server -s 2 -T 300 </dev/null >"$logs/rig-regions.log" 2>&1 || rc=1
sed -n 's/^vm: /  rig: /p' "$logs/rig-regions.log"
gtap=$(ls "$logs"/vm-*-Icelake-Server.bench-regions-regions-cost.tap 2>/dev/null | head -n 1)
if [ -n "$gtap" ] && grep -q '^ok 1 regions-cost' "$gtap"; then
	echo "region enter+exit pairs: instructions retired per pair (exact under TCG; kernel: the"
	echo "least of 200 runs of 100 pairs), and user instructions against the handle form's"
	sed -n 's/^# regions-cost //p' "$gtap" |
		awk -v json="$rows" -v tsv="$plot" -v measure=pmu -v guest="Icelake-Server, 2 CPUs" \
			-f scripts/bench-emit.awk -f scripts/regions-table.awk
	echo "  (PAPI-7: Debian's libpapi 7.0 on perf, measured with perf.  LIKWID's own: below)"
else
	echo "region pairs: regions-cost printed no rows; see $logs/rig-regions.log${gtap:+ and $gtap}"
	rc=1
fi

echo
echo "bench-guest: booting $kver, -cpu Denverton with the emulated PMU, -smp 1, the TCG plugin counting: LIKWID's own"
rm -f "$logs/insn-count.out"
QEMU=$qemu bash scripts/vm/run.sh -P -t "$idir" -x "$rcost" -x "$lcost" -x "$ibin/bash" \
	-x /usr/sbin/likwid-accessD -o "$logs" -l bench-plugin -k "$kver" -c Denverton -s 1 -T 500 \
	-Q "-plugin $plugin,out=$top/$logs/insn-count.out" </dev/null >"$logs/rig-plugin.log" 2>&1 || rc=1
sed -n 's/^vm: /  rig: /p' "$logs/rig-plugin.log"
itap=$(ls "$logs"/vm-*-Denverton.bench-plugin-insn-cost.tap 2>/dev/null | head -n 1)
if [ -n "$itap" ] && grep -q '^ok 1 insn-cost' "$itap" && [ -s "$logs/insn-count.out" ]; then
	echo "region enter+exit pairs counted by the TCG plugin (every instruction executed, user"
	echo "and kernel; user: the least of 5 loops of 10,000 pairs; kernel: the least of 200"
	echo "loops of 100, scaled), on a Goldmont: LIKWID's own in direct MSR mode beside pmuctl's"
	# The labels the programs printed, then the plugin's window lines;
	# the PMU's handle rows of the Ice Lake guest, to check the plugin.
	pmu=$(sed -n 's/^# regions-cost handle \([0-9]*\) \([0-9.]*\) .*/\1=\2/p' "${gtap:-/dev/null}" | tr '\n' ' ')
	{ sed -n 's/^# insn-label /label /p' "$itap"; cat "$logs/insn-count.out"; } |
	awk -v pmu="$pmu" -v json="$rows" -v tsv="$plot" -v measure=plugin \
		-v guest="Denverton (Goldmont), 1 CPU" -f scripts/bench-emit.awk -f scripts/insn-table.awk ||
		{ echo "  the plugin and the PMU disagree: the plugin's rows are not trusted"; rc=1; }
else
	echo "LIKWID's own: the plugin guest printed no rows; see $logs/rig-plugin.log${itap:+ and $itap}"
	[ -z "$itap" ] || grep -v '^ok\|^TAP\|^1\.\.' "$itap" | tail -n 8 | sed 's/^/  /'
	rc=1
fi

# ops_guest KVER CPU N PLOT: the operations counted by the plugin in a
# guest of KVER on -cpu CPU (label bench-ops-N), its rows to the results
# and to PLOT.
ops_guest() {
	local k=$1 cpu=$2 n=$3 plotf=$4 otap out=$logs/insn-ops-$3.out guest group

	guest="$cpu, 2 CPUs on one TCG thread, Linux $k"
	echo
	echo "bench-guest: booting $k, -cpu $cpu with the emulated PMU, -smp 2 on one TCG thread, the TCG plugin counting: each operation"
	rm -f "$out"
	QEMU=$qemu bash scripts/vm/run.sh -P -t "$odir" -x "$cpapi" -x "$tswitch" -o "$logs" -l "bench-ops-$n" \
		-k "$k" -c "$cpu" -s 2 -A tcg,thread=single -T 500 \
		-Q "-plugin $plugin,out=$top/$out" </dev/null >"$logs/rig-ops-$n.log" 2>&1 || rc=1
	sed -n 's/^vm: /  rig: /p' "$logs/rig-ops-$n.log"
	otap=$(ls "$logs"/vm-*-"$cpu".bench-ops-"$n"-ops-cost.tap 2>/dev/null | head -n 1)
	if [ -z "$otap" ] || ! grep -q '^ok 1 ops-cost' "$otap" || [ ! -s "$out" ]; then
		echo "operations: the plugin guest printed no rows; see $logs/rig-ops-$n.log${otap:+ and $otap}"
		[ -z "$otap" ] || grep -v '^ok\|^TAP\|^1\.\.' "$otap" | tail -n 8 | sed 's/^/  /'
		rc=1
		return
	fi
	echo "pmuctl against perf and PAPI, each operation counted by the TCG plugin (selftests/bench/compare.c -i), $cpu, Linux $k"
	group=$(sed -n 's/^# group: \([0-9]*\) events.*/\1/p' "$otap")
	{ sed -n 's/^# \(insn-[a-z]* \)/\1/p' "$otap"; cat "$out"; } |
		awk -v json="$rows" -v tsv="$plotf" -v measure=plugin -v group="$group" \
			-v guest="$guest" -f scripts/bench-emit.awk -f scripts/insn-ops.awk || rc=1
	echo
	echo "context switches of counted threads, counted by the TCG plugin (selftests/bench/taskswitch.c -i:"
	echo "2 threads on CPU 0, a pipe ping-pong of 2000 round trips), $cpu, Linux $k"
	{ sed -n 's/^# \(insn-ts[a-z-]* \)/\1/p' "$otap"; cat "$out"; } |
		awk -v json="$rows" -v tsv="$plotf" -v measure=plugin -v guest="$guest" \
			-f scripts/bench-emit.awk -f scripts/insn-switch.awk || rc=1
}
# The newest kernel's Skylake rows are the picture's; every other target
# kernel's, and an Ice Lake server's (where perf's x86 PMU driver takes
# its other paths: fixed counter 3 and PERF_METRICS, perfmon v5), go to
# the results only.
ops_guest "$kver" Skylake-Server 1 "$plot"
n=1
for k in $okvers; do
	n=$((n + 1))
	ops_guest "$k" Skylake-Server "$n" /dev/null
done
ops_guest "$kver" Icelake-Server $((n + 1)) /dev/null

echo
echo "bench-guest: booting $kver, -cpu Skylake-Server, the register model (pmuctl_regmodel.ko), -smp 2"
QEMU=$qemu bash scripts/vm/run.sh -t "$rdir" -x "$tswitch" -o "$logs" -l bench-rm \
	-k "$kver" -c Skylake-Server -s 2 -T 300 </dev/null >"$logs/rig-rm.log" 2>&1 || rc=1
sed -n 's/^vm: /  rig: /p' "$logs/rig-rm.log"
mtap=$(ls "$logs"/vm-*-Skylake-Server.bench-rm-taskswitch-msr.tap 2>/dev/null | head -n 1)
if [ -n "$mtap" ] && grep -q 'writes/switch' "$mtap"; then
	sed -n '/^# check\.sh:/d; /^# /s/^# \{0,1\}/  /p' "$mtap"
else
	echo "  MSR writes per switch: none printed; see $logs/rig-rm.log${mtap:+ and $mtap}"
	rc=1
fi
# The timed rows of this make bench's compare (a machine with a PMU:
# compare -t), to the results too.
if [ -n "${BENCH_TIMED:-}" ] && grep -q '^timed-cmp ' "$BENCH_TIMED" 2>/dev/null; then
	awk -v json="$rows" -v kernel="$(uname -r)" -f scripts/bench-emit.awk \
		-f scripts/bench-timed.awk "$BENCH_TIMED" || rc=1
fi
# One results file and a picture of it.
mkdir -p build/bench
if [ -s "$rows" ]; then
	{
		printf '{\n  "generated": "%s",\n  "kernel": "%s",\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$kver"
		printf '  "qemu": "%s",\n' "$("$qemu" --version | head -n 1)"
		if grep -q '"measured_by": "tsc"' "$rows"; then
			printf '  "how": "instructions per operation in QEMU TCG guests with the emulated PMU, and cycles (TSC) per operation on this machine'"'"'s PMU (doc/cost.md)",\n'
		else
			printf '  "how": "instructions per operation in QEMU TCG guests with the emulated PMU (doc/cost.md); no timings",\n'
		fi
		printf '  "rows": [\n'
		sed '$!s/$/,/; s/^/    /' "$rows"
		printf '  ]\n}\n'
	} >build/bench/results.json
	echo
	echo "results: build/bench/results.json ($(wc -l <"$rows") rows)"
	if command -v gnuplot >/dev/null; then
		awk -f scripts/cost-pivot.awk "$plot" >"$logs/cost.dat"
		if gnuplot -c scripts/cost.gp "$logs/cost.dat" build/bench/cost.png \
			"pmuctl, perf, PAPI and LIKWID: instructions per operation (QEMU TCG, Linux $kver, $(date -u +%Y-%m-%d))" \
			2>"$logs/gnuplot.log"; then
			echo "picture: build/bench/cost.png"
		else
			echo "picture: gnuplot failed: $(tail -n 1 "$logs/gnuplot.log")"
			rc=1
		fi
	else
		echo "picture: no gnuplot (scripts/deps.sh bench installs gnuplot-nox)"
		rc=1
	fi
else
	echo "results: no row was counted"
	rc=1
fi
if [ -n "$guest" ] && grep -q '^not ok' "$guest"; then
	echo "the guest itself failed:"
	grep -A3 '^not ok' "$guest" | sed 's/^/  /'
fi
if [ "$rc" -eq 0 ]; then
	echo "bench-guest: every rule holds; every counted table printed; nothing timed under TCG"
else
	echo "bench-guest: a rule, compare or the guest failed (files in $logs)"
	rc=1
fi
exit "$rc"
