#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# "pmuctl stat" and "pmuctl watch" with real counts, on the emulated PMU
# (QEMU TCG with pmuctl's patch, scripts/vm/qemu/), where user-mode
# instructions retired are exact: the tool must print exactly what a
# known workload retires.  The workload is selftests/bench/workload.S (no
# libc; its formula is checked on any host by bench-workload_test):
# "workload N" retires exactly 2 N + 8 D + 23 user-mode instructions, D
# being the digits of N.
#
# pmuctl stat counts the CPU, not the command: where it cannot hold the
# command at its exec (selftests/tool/stat_exact_test.sh checks that it
# does), its count also holds the tool's own user-mode instructions on
# that CPU before the exec, a constant.  So the check is exact on a
# difference: two sizes of the same number of digits differ by exactly
# 2 (N2 - N1).  The constant itself must be small.  Another
# task's user-mode instructions on the CPU (a busybox timeout waking up)
# can only add, so each size is counted RUNS times and the smallest count
# kept.
#
# Busybox sh (POSIX), run as root in the emulated-PMU guests with the
# tool, workload and perf-count in PATH (the rig installs build/vmbin/).  Elsewhere
# the whole script is one SKIP saying why: no /dev/pmuctl (the host), the
# register model (no counts), silicon (interrupts add instructions to
# user-mode counts there: no exact count of a whole command), or perf
# holding the counters (kernel.nmi_watchdog=1).

PMUCTL=${PMUCTL:-pmuctl}
WORKLOAD=${WORKLOAD:-workload}
EMULATED="emulated PMU (QEMU TCG, scripts/vm/qemu/)"

N1=1000000
N2=3000000		# as many digits as N1
NW=25000000		# the workload pmuctl watch sees: 50 M instructions
RUNS=3
# The tool's own instructions on the counted CPU: tens (FACTS 7 saw 63).
OVERHEAD_MAX=4096

echo "TAP version 13"

skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

bail() {
	echo "1..0"
	echo "Bail out! $*"
	exit 1
}

[ -c /dev/pmuctl ] || skip_all "pmuctl.ko not loaded (no /dev/pmuctl)"
command -v "$PMUCTL" >/dev/null 2>&1 ||
	bail "no '$PMUCTL' in PATH (the rig installs build/vmbin/pmuctl)"
info=$("$PMUCTL" info 2>&1) || bail "pmuctl info failed: $info"
case $info in
*"backend: model"*) skip_all "register model: no real counts (PMUCTL_BACKEND_MODEL)" ;;
esac
kl=$(command -v "$WORKLOAD") ||
	bail "no '$WORKLOAD' in PATH (the rig installs build/vmbin/workload)"
command -v perf-count >/dev/null 2>&1 ||
	bail "no 'perf-count' in PATH (the rig installs build/vmbin/perf-count)"
perf-count --emulated >/dev/null ||
	skip_all "not the $EMULATED: on silicon interrupts add instructions to user-mode counts, so a whole command has no exact count"
[ "$(cat /proc/sys/kernel/nmi_watchdog 2>/dev/null)" != 1 ] ||
	skip_all "kernel.nmi_watchdog=1: perf holds the counters"

tmp=$(mktemp -d) || bail "mktemp failed"
wpid=
trap '[ -z "$wpid" ] || kill "$wpid" 2>/dev/null; rm -rf "$tmp"' EXIT

ncpu=$(grep -c '^processor' /proc/cpuinfo)
cpu=$((ncpu - 1))

echo "1..3"
n=0
failed=0

# result NAME: ok, or not ok with the lines of $tmp/why.
result() {
	n=$((n + 1))
	if [ -s "$tmp/why" ]; then
		echo "not ok $n $1"
		sed 's/^/# /' "$tmp/why"
		failed=$((failed + 1))
	else
		echo "ok $n $1"
	fi
	[ ! -s "$tmp/note" ] || sed 's/^/# /' "$tmp/note"
	: >"$tmp/why"
	: >"$tmp/note"
}
: >"$tmp/why"
: >"$tmp/note"

fail() {
	echo "$*" >>"$tmp/why"
}

note() {
	echo "$*" >>"$tmp/note"
}

# known N: the user-mode instructions of "workload N" (workload.S).
known() {
	echo $((2 * $1 + 8 * ${#1} + 23))
}

# stat_count N: the smallest instructions:u count of RUNS "pmuctl stat"
# runs of workload N on $cpu, or nothing (and a failure) when a run
# failed or printed no count.
stat_count() {
	best=
	r=0
	while [ $r -lt $RUNS ]; do
		r=$((r + 1))
		if ! "$PMUCTL" stat -j -o "$tmp/stat" -C "$cpu" -e instructions:u \
			-- "$kl" "$1" >"$tmp/stat.out" 2>"$tmp/stat.err" </dev/null; then
			fail "pmuctl stat -C $cpu -e instructions:u -- $kl $1 failed:"
			sed 's/^/  /' "$tmp/stat.err" >>"$tmp/why"
			return
		fi
		v=$(sed -n 's/^{"type":"event",.*"value":\([0-9][0-9]*\),.*/\1/p' "$tmp/stat")
		if [ -z "$v" ] ||
		   ! grep -q '^{"type":"summary",.*"exit_status":0,.*"backend":"msr"}$' "$tmp/stat"; then
			fail "pmuctl stat -j printed no count, or not of a successful run on the msr backend:"
			sed 's/^/  /' "$tmp/stat" >>"$tmp/why"
			return
		fi
		note "workload $1: $v"
		if [ -z "$best" ] || [ "$v" -lt "$best" ]; then
			best=$v
		fi
	done
	echo "$best" >"$tmp/best"
}

# ---- the tests -------------------------------------------------------------

c1='' c2=''
rm -f "$tmp/best"
stat_count "$N1"
[ ! -f "$tmp/best" ] || c1=$(cat "$tmp/best")
rm -f "$tmp/best"
stat_count "$N2"
[ ! -f "$tmp/best" ] || c2=$(cat "$tmp/best")

# The difference of the two sizes: exactly the extra iterations' instructions.
if [ -n "$c1" ] && [ -n "$c2" ]; then
	want=$(($(known "$N2") - $(known "$N1")))
	got=$((c2 - c1))
	[ "$got" = "$want" ] ||
		fail "workload $N2 counted $c2, workload $N1 $c1: $got more, want exactly $want"
fi
result stat_counts_the_difference_of_two_workloads_exactly

# Each count: the workload's instructions plus the tool's small constant.
if [ -n "$c1" ] && [ -n "$c2" ]; then
	o1=$((c1 - $(known "$N1")))
	o2=$((c2 - $(known "$N2")))
	note "pmuctl's own user-mode instructions on CPU $cpu: $o1 and $o2"
	if [ "$o1" -lt 0 ] || [ "$o1" -gt $OVERHEAD_MAX ] ||
	   [ "$o2" -lt 0 ] || [ "$o2" -gt $OVERHEAD_MAX ]; then
		fail "counts minus the workloads' $(known "$N1") and $(known "$N2"): $o1 and $o2, want 0..$OVERHEAD_MAX"
	fi
else
	fail "no counts (see the test above)"
fi
result stat_counts_a_workload_plus_a_small_constant

# wait_lines N: until $tmp/watch holds N lines (10 s at most).
wait_lines() {
	i=0
	while [ "$(wc -l <"$tmp/watch")" -lt "$1" ]; do
		[ $i -lt 100 ] || return 1
		sleep 0.1
		i=$((i + 1))
	done
}

# pmuctl watch on $cpu while workload NW runs there: every interval
# has a count, and together they hold at least the workload (it ran
# between the first interval's end and the last one's start) and not
# much more (the others' user-mode instructions on the CPU meanwhile).
# The background command opens its output itself, maybe after wait_lines
# reads it: the file must exist (empty) before.
: >"$tmp/watch"
"$PMUCTL" watch -j -C "$cpu" -e instructions:u -I 100 >>"$tmp/watch" \
	2>"$tmp/watch.err" </dev/null &
wpid=$!
if ! wait_lines 1; then
	fail "pmuctl watch printed no interval in 10 s:"
	sed 's/^/  /' "$tmp/watch.err" >>"$tmp/why"
else
	taskset -c "$cpu" "$kl" "$NW" || fail "taskset -c $cpu $kl $NW failed"
	wait_lines $(($(wc -l <"$tmp/watch") + 2)) ||
		fail "pmuctl watch stopped printing intervals"
fi
kill -TERM "$wpid" 2>/dev/null
wait "$wpid"
rc=$?
wpid=
[ "$rc" = 0 ] || fail "pmuctl watch exited $rc after SIGTERM, want 0"
lines=$(wc -l <"$tmp/watch")
good=$(grep -c "^{\"time\":[0-9.]*,\"cpu\":$cpu,\"event\":\"instructions:u\",\"value\":[0-9][0-9]*,\"counter\":\"fixed0\",\"backend\":\"msr\"}\$" "$tmp/watch")
[ "$good" = "$lines" ] ||
	fail "$((lines - good)) of $lines lines are not CPU $cpu's instructions:u count on fixed0"
sum=0
nonzero=0
sed -n 's/.*"value":\([0-9][0-9]*\),.*/\1/p' "$tmp/watch" >"$tmp/values"
while read -r v; do
	sum=$((sum + v))
	[ "$v" = 0 ] || nonzero=$((nonzero + 1))
done <"$tmp/values"
lo=$(known "$NW")
hi=$((lo + lo / 10))
note "pmuctl watch: $lines intervals, $nonzero non-zero, $sum instructions for workload's $lo"
if [ "$sum" -lt "$lo" ] || [ "$sum" -gt "$hi" ]; then
	fail "the intervals sum to $sum, want $lo..$hi"
	sed 's/^/  /' "$tmp/watch" | head -n 40 >>"$tmp/why"
fi
result watch_counts_a_workload_in_its_intervals

[ "$failed" = 0 ]
