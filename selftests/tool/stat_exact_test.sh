#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# "pmuctl stat -C CPU" (CPU scope: the command pinned to the counted CPU,
# held at its exec by ptrace) counts its command from the command's first
# instruction, as perf stat does with enable_on_exec (task scope, the
# default, is selftests/tool/stat_task_test.sh): checked where counts are exact,
# in a QEMU guest whose patched QEMU emulates the PMU (scripts/vm/qemu/pmu-spec.md:
# instructions retired exact per privilege level, cycles = instructions;
# the rig's emulated-PMU guests, scripts/vm/run.sh -P, with the default
# build of pmuctl.ko).  The command is the known-count workload
# (selftests/bench/workload.S, build/vmbin/workload): 2N + 8D + 23
# user-mode instructions from exec to exit, D the digits of N, a formula
# bench-workload_test checks on any host by single-stepping.
#
#   perf_counts_N          perf (perf-count: enable_on_exec, user mode)
#                          counts it exactly: the emulation and the formula
#                          agree, so the next test measures pmuctl alone;
#   stat_counts_N          pmuctl stat -x, -e instructions:u,cycles:u gives
#                          exactly the formula for both (cycles are
#                          synthetic: one per instruction), in one of
#                          TRIES runs, none below it (another task on the
#                          CPU counts too);
#   stat_repeats_exactly   -r 3: the mean is exact, the spread 0.00 (in
#                          one of TRIES, none below);
#   stat_json_says_exact   the JSON summary says "launch":"exact" and
#                          stderr holds the report only (the value: in
#                          one of TRIES, none below);
#   stat_setuid_is_plain   a set-user-ID copy of the workload is launched
#                          the plain way: one note on stderr, the table's
#                          "counted from before the exec" line,
#                          "launch":"plain", and a count above the formula
#                          (the excess, pmuctl's launch, is printed);
#   stat_keeps_exit_status the command's exit status (workload x: 2) is
#                          reported as before, pmuctl's own is 0.
#
# busybox sh (POSIX).  The tool is $PMUCTL (default pmuctl in PATH);
# workload and perf-count are in PATH too (the rig's -x).  One SKIP
# without /dev/pmuctl (the host), without the emulated PMU (silicon: an
# interrupt adds instructions to a user-mode count there, so exact
# equality is not promised; selftests/hw checks silicon), or with the
# register-model build (it counts nothing).

. "$(dirname "$0")/stat_lib.sh"
SIZES="1000000 10000000"
# The CPU counted: the highest, as pmuctl stat chose before task scope.
CPU=$(($(grep -c '^processor' /proc/cpuinfo) - 1))

stat_begin workload perf-count

plan=$((2 * $(echo $SIZES | wc -w) + 4))
echo "1..$plan"

for N in $SIZES; do
	want=$(expected "$N")
	run perf-count -- workload "$N"
	got=$(cat "$tmp/out")
	if [ "$rc" != 0 ] || [ "$got" != "$want" ]; then
		fail "perf counted $got user-mode instructions of 'workload $N', want $want"
		show
	fi
	result "perf_counts_$N"
done

# perf's own NMI watchdog (kernel.nmi_watchdog=1, the rig's "pmu-wd"
# guests) holds the counters: pmuctl is refused with PERF_BUSY, as it must
# be (selftests/hw/watchdog_test proves that); the pmuctl tests then SKIP.
if "$PMUCTL" stat -C $CPU -e instructions:u -- workload 1 2>&1 >/dev/null |
	grep -q PERF_BUSY; then
	for t in $(for N in $SIZES; do echo "stat_counts_$N"; done) \
		stat_repeats_exactly stat_json_says_exact stat_setuid_is_plain \
		stat_keeps_exit_status; do
		n=$((n + 1))
		echo "ok $n - $t # SKIP perf holds the counters (PERF_BUSY: kernel.nmi_watchdog=1)"
	done
	exit 0
fi

# pmuctl stat counts the CPU, not the command: another task that runs on
# that CPU while the command does is counted too (in the guests, busybox's
# timeout polling once a second: +216 and +440 seen in about 1 run in 20).
# So a count may be tried TRIES times: one must be exact, and none may be
# below the formula (that would be no other task's doing).
TRIES=3
for N in $SIZES; do
	want=$(expected "$N")
	seen=
	try=0
	while [ $try -lt $TRIES ]; do
		try=$((try + 1))
		run "$PMUCTL" stat -C $CPU -x, -e instructions:u,cycles:u -- workload "$N"
		ins=$(csv_value instructions:u)
		cyc=$(csv_value cycles:u)
		seen="$seen $ins/$cyc"
		[ "$rc" = 0 ] && [ "$ins" = "$want" ] && [ "$cyc" = "$want" ] && break
		[ "$rc" = 0 ] && [ "${ins:-0}" -gt "$want" ] 2>/dev/null &&
			[ "${cyc:-0}" -gt "$want" ] 2>/dev/null || break
	done
	if [ "$rc" != 0 ] || [ "$ins" != "$want" ] || [ "$cyc" != "$want" ]; then
		fail "pmuctl stat counted instructions:u/cycles:u$seen of 'workload $N' ($try tries), want $want for both"
		show
	fi
	result "stat_counts_$N"
done

N=1000
want=$(expected $N)
# As above: up to TRIES, one exact, none below.
seen=
try=0
while [ $try -lt $TRIES ]; do
	try=$((try + 1))
	run "$PMUCTL" stat -C $CPU -r 3 -x, -e instructions:u -- workload $N
	line=$(grep ',instructions:u,' "$tmp/err")
	seen="$seen '$line'"
	case $line in
	"$want,,instructions:u,"*",0.00,"*) break ;;
	esac
	mean=${line%%,*}
	mean=${mean%%.*}
	[ "$rc" = 0 ] && [ "${mean:-0}" -gt "$want" ] 2>/dev/null || break
done
case $line in
"$want,,instructions:u,"*",0.00,"*) ;;
*)
	fail "3 runs of 'workload $N', $try tries:$seen; want the mean $want and spread 0.00"
	show
	;;
esac
result stat_repeats_exactly

try=0
while [ $try -lt $TRIES ]; do
	try=$((try + 1))
	run "$PMUCTL" stat -C $CPU --json -e instructions:u -- workload $N
	grep -q "\"value\":$want," "$tmp/err" && break
	value=$(sed -n 's/.*"value":\([0-9]*\),.*/\1/p' "$tmp/err" | head -n 1)
	[ "$rc" = 0 ] && [ "${value:-0}" -gt "$want" ] 2>/dev/null || break
done
if [ "$rc" != 0 ] || ! grep -q '"launch":"exact"' "$tmp/err" ||
   ! grep -q "\"value\":$want," "$tmp/err" || grep -q '^pmuctl stat: note:' "$tmp/err"; then
	fail "want \"launch\":\"exact\", the value $want and no note ($try tries)"
	show
fi
result stat_json_says_exact

# /tmp is the guest's tmpfs (scripts/vm/init mounts it without nosuid).
cp "$(command -v workload)" "$tmp/suid-workload" && chmod 4755 "$tmp/suid-workload"
run "$PMUCTL" stat -C $CPU --json -e instructions:u -- "$tmp/suid-workload" $N
notes=$(grep -c "^pmuctl stat: note: $tmp/suid-workload is set-user-ID: " "$tmp/err")
got=$(sed -n 's/.*"event":"instructions:u","value":\([0-9]*\),.*/\1/p' "$tmp/err")
if [ "$rc" != 0 ] || [ "$notes" != 1 ] || ! grep -q '"launch":"plain"' "$tmp/err" ||
   [ -z "$got" ] || [ "$got" -le "$want" ]; then
	fail "want one note, \"launch\":\"plain\" and more than $want instructions"
	show
else
	run "$PMUCTL" stat -C $CPU -e instructions:u -- "$tmp/suid-workload" $N
	grep -q '^ counted from before the exec (plain launch): ' "$tmp/err" ||
		{ fail "no 'counted from before the exec' line in the table"; show; }
fi
result stat_setuid_is_plain
echo "# the plain launch (set-user-ID workload $N): $got instructions:u, $((got - want)) more than the exact $want"

run "$PMUCTL" stat -C $CPU -e instructions:u -- workload x
if [ "$rc" != 0 ] || ! grep -q "^ 'workload x' exited with status 2\$" "$tmp/err"; then
	fail "want pmuctl's exit 0 and \" 'workload x' exited with status 2\""
	show
fi
result stat_keeps_exit_status

[ "$failed" = 0 ]
