#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Soak the emulated PMU ("make soak"): boot the counting guests many times
# and count the kernel oopses.  One green run proves little: a prototype of
# the emulation showed one guest "Oops: int3" in about 32 boots.  Each boot
# is a whole scripts/vm/run.sh -P guest: boot, the workload's programs,
# power off; the boots go round-robin over the target kernels (both) and
# the CPU models (KnightsMill, Skylake-Server), two at a time.
#
# usage: scripts/vm/soak.sh
# Environment:
#   SOAK_BOOTS   boots in all (default 100)
#   SOAK_TESTS   the workload: every executable in this folder (default
#                build/vmtests-pmu; "make soak" builds it)
#   SOAK_QEMU    patched (default): the patched QEMU (scripts/vm/qemu.sh,
#                or QEMU=...) with the rig's pmu=on models;
#                stock: Debian's /usr/bin/qemu-system-x86_64 and the same
#                guests without the pmu=on properties, as a control (there
#                pmuctl.ko, the default build, refuses to load)
#   SOAK_JOBS    guests at once (default 2)
#   SOAK_TIMEOUT per-program timeout in the guest, seconds (default 60)
#   SOAK_ACCEL   QEMU -accel (default: run.sh's, tcg,thread=single, as
#                make check runs the guests); "tcg" for multi-threaded
#                TCG, whose stale translations of patched kernel text
#                this counts (doc/emulated-pmu.md)
#
# The workload may call the static tools in build/vmbin/ (the guests' /bin).
#
# Writes build/soak/: run.sh's files for every boot (vm-KV-CPU.soak.NNN.console
# and its TAP), run.log, and oopses.txt: each console with a match of
# run.sh's bad_re (Oops, BUG:, WARNING:, Call Trace, ... as its
# console_clean test reports them) and the lines that matched.  Prints the
# counts per kernel and model, the matched lines, and last
#   N boots, M oopses
# (M: boots whose console matched).  Exit status non-zero if M > 0 or a
# boot did not run to its end (a hang can hide an oops); the workload's own
# failures are counted but do not change it.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
boots=${SOAK_BOOTS:-100}
tests=${SOAK_TESTS:-$top/build/vmtests-pmu}
mode=${SOAK_QEMU:-patched}
jobs=${SOAK_JOBS:-2}
timeout=${SOAK_TIMEOUT:-60}
out=$top/build/soak

die() {
	echo "soak: $*" >&2
	exit 2
}

[[ $boots =~ ^[1-9][0-9]*$ ]] || die "SOAK_BOOTS=$boots: want a number >= 1"
[ -d "$tests" ] || die "SOAK_TESTS=$tests: no such folder"
# -N: every boot counts, none is booted again after a known flaw.
args=(-N -R "$boots" -j "$jobs" -T "$timeout" -t "$tests" -o "$out" -l soak)
[ -z "${SOAK_ACCEL:-}" ] || args+=(-A "$SOAK_ACCEL")
# The static tools the programs call (build/vmbin/, as scripts/check.sh).
for b in "$top"/build/vmbin/*; do
	[ -f "$b" ] && [ -x "$b" ] && args+=(-x "$b")
done
case $mode in
patched)
	args+=(-P)
	what="the patched QEMU${QEMU:+ ($QEMU)}, pmu=on"
	;;
stock)
	# run.sh -P's guest without the -cpu pmu=on properties, which stock
	# QEMU does not know: the default build, no watchdog, /msr.ko.
	export QEMU=/usr/bin/qemu-system-x86_64
	args+=(-b '' -a 'nmi_watchdog=0 pmuctl_vm.msr=1')
	what="Debian's stock QEMU (control: no pmu=on)"
	;;
*) die "SOAK_QEMU=$mode: want patched or stock" ;;
esac

rm -rf "$out"
mkdir -p "$out"
n_tests=$(find "$tests" -mindepth 1 -maxdepth 1 -type f -perm -u+x | wc -l)
echo "soak: $boots boots on $what, -accel ${SOAK_ACCEL:-tcg,thread=single}, $jobs at a time, $n_tests program(s) from ${tests#"$top"/} each"
start=$(date +%s)
# run.sh's verdict is read from its files below; its progress shows here.
bash "$here/run.sh" "${args[@]}" </dev/null >"$out/run.log" 2>&1 &
run_pid=$!
tail -n +1 -f --pid="$run_pid" "$out/run.log" | grep --line-buffered -E '^(vm|qemu\.sh): ' || true
wait "$run_pid" || true
echo "soak: run.sh took $(($(date +%s) - start)) s (log: ${out#"$top"/}/run.log)"

# Per boot, from its guest TAP: console_clean (the oops verdict, with the
# matched lines as comments), ran_to_end, and the workload's failures.
declare -A n_boots n_oops n_unfinished n_testfail
total=0 oopses=0 unfinished=0
: >"$out/oopses.txt"
for tap in "$out"/vm-*.soak.*-guest.tap; do
	[ -f "$tap" ] || continue
	id=$(basename "$tap" -guest.tap)
	key=${id#vm-}
	key=${key%.soak.*}
	total=$((total + 1))
	n_boots[$key]=$((${n_boots[$key]:-0} + 1))
	# No console: the guest never ran (run.sh's placeholder verdicts).
	if [ -s "$out/$id.console" ] && grep -q '^not ok [0-9]* console_clean' "$tap"; then
		oopses=$((oopses + 1))
		n_oops[$key]=$((${n_oops[$key]:-0} + 1))
		{
			echo "$id.console:"
			awk '/^not ok [0-9]+ console_clean/ { on = 1; next }
			     /^(not )?ok / { on = 0 }
			     on && /^# / && !/matching line\(s\) in/ { print "  " substr($0, 3) }' "$tap"
		} >>"$out/oopses.txt"
	fi
	if grep -q '^not ok [0-9]* ran_to_end' "$tap"; then
		unfinished=$((unfinished + 1))
		n_unfinished[$key]=$((${n_unfinished[$key]:-0} + 1))
	fi
	f=0
	for t in "$out/$id"-*.tap; do
		[ "$t" = "$tap" ] || ! grep -q '^not ok' "$t" || f=$((f + 1))
	done
	n_testfail[$key]=$((${n_testfail[$key]:-0} + f))
done

echo "soak: per kernel and model: boots, oopses, boots that did not run to end, failed workload programs"
for key in $(printf '%s\n' "${!n_boots[@]}" | LC_ALL=C sort -V); do
	printf 'soak:   %-28s %4d boots %4d oopses %4d unfinished %4d failed programs\n' \
		"$key" "${n_boots[$key]}" "${n_oops[$key]:-0}" "${n_unfinished[$key]:-0}" \
		"${n_testfail[$key]:-0}"
done
if [ -s "$out/oopses.txt" ]; then
	echo "soak: matched lines (${out#"$top"/}/oopses.txt):"
	sed 's/^/soak:   /' "$out/oopses.txt"
fi
[ "$unfinished" -eq 0 ] ||
	echo "soak: $unfinished boot(s) did not run to their end (see their -guest.tap in ${out#"$top"/})"
[ "$total" -eq "$boots" ] ||
	echo "soak: run.sh judged $total of $boots boots (see ${out#"$top"/}/run.log)"
echo "$total boots, $oopses oopses"
[ "$oopses" -eq 0 ] && [ "$unfinished" -eq 0 ] && [ "$total" -eq "$boots" ]
