#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# "pmuctl stat -- CMD" without -C counts CMD's threads and the processes
# it starts, wherever they run (task scope: the child programs the shared
# session with PMUCTL_PROGRAM_TASK | INHERIT | ENABLE_ON_EXEC before its
# exec), and exactly CMD: checked where counts are exact, in the
# emulated-PMU guests (scripts/vm/run.sh -P; QEMU's PMU counts
# instructions retired exactly per privilege level, cycles = instructions).
# Known counts: workload N (selftests/bench/workload.S) retires 2N + 8D +
# 23 user-mode instructions, workload-threads N (selftests/tool/threads.S,
# 4 threads, 3 of them created after exec, none pinned) 8N + 8D + 91.
#
#   perf_counts_threads      perf (perf-count: enable_on_exec, inherit,
#                            user mode) counts workload-threads exactly:
#                            the formula holds, so the next tests measure
#                            pmuctl alone;
#   task_counts_workload     -x, -e instructions:u,cycles:u of workload N:
#                            exactly the formula for both, first try (task
#                            scope counts nothing but the command: no
#                            retries as for CPU scope), cpu field empty;
#   task_counts_4_threads    workload-threads N: exactly the sum of the
#                            four threads, nothing lost, no note;
#   task_table_and_json      the table's headline "Performance counter
#                            stats for 'CMD':" and the JSON summary's
#                            "scope":"task", "cpu":null, "lost_threads":0;
#   task_repeats_exactly     -r 3 of workload-threads: the mean exact,
#                            the spread 0.00;
#   task_refusal_names_the_rule  an invalid event (EDGE without CMASK):
#                            the child's refusal reaches pmuctl, which
#                            prints the rule and the event and exits 1,
#                            and the command does not run;
#   task_keeps_exit_status   the command's exit status (2) is reported,
#                            pmuctl's own is 0;
#   cpu_scope_with_C         -C CPU still counts the CPU (the CPU
#                            headline) and the workload's exact count;
#   metric_ipc_is_exact      -M IPC, Intel's IPC metric of the guest's
#                            model (Info_Thread_IPC) of workload N: its
#                            events counted alike (cycles = instructions)
#                            and the metric 1.00, in the CSV's metric
#                            fields (SKIP where the model has no Intel
#                            metrics list);
#   more_events_than_counters  twelve instructions:u events, more than
#                            the PMU counts at once (fixed counter 0 and
#                            the generic ones): as many passes as the
#                            counters need (the table says how many), each
#                            count exact; --no-passes refuses them before
#                            the command runs;
#   metrics_passes           -M TopdownL2 on a 4-counter Skylake needs
#                            several passes: the table says how many and
#                            that COMMAND ran once per pass; --no-passes
#                            refuses it before the command runs (SKIP on
#                            other models);
#   topdown_l1_is_exact_in_task_scope  --all-user -M TopdownL1 of
#                            workload N on the models whose emulated PMU
#                            has PERF_METRICS (Ice Lake, Sapphire Rapids):
#                            each metric event's slots are exactly what the
#                            emulation's synthetic shares give for the
#                            thread's instructions and branches
#                            (scripts/vm/qemu/pmu-spec.md, "Topdown
#                            metrics"; branches:u counted in a run of its
#                            own), and each level-1 metric is Intel's
#                            formula over them (SKIP elsewhere);
#   topdown_l1_sums_threads_across_switches  the same for workload-threads
#                            (4 threads, inherited, unpinned) while a
#                            second task-scope session counts workload N
#                            beside it: 5 threads on the guest's CPUs, so
#                            each is preempted by the other session's and
#                            migrates, its PERF_METRICS saved and written
#                            back each time; the session's sums equal the
#                            threads' expected shares weighted by their
#                            slots (instructions and branches per thread
#                            from a --per-thread run), the other session's
#                            as in the previous test;
#   default_adds_topdown_l1  no -e: the default events, and where the PMU
#                            has PERF_METRICS the TopdownL1 metrics beside
#                            them in one run (perf stat's default); on the
#                            others no metric line.
#
# busybox sh (POSIX).  The tool is $PMUCTL (default pmuctl in PATH);
# workload, workload-threads and perf-count are in PATH (the rig's -x).
# One SKIP without /dev/pmuctl, without the emulated PMU, with the
# register-model build, or with a module without task scope.

. "$(dirname "$0")/stat_lib.sh"
N=1000000

stat_begin workload workload-threads perf-count

# The known count of workload-threads (expected, csv_value: stat_lib.sh).
expected_threads() {
	echo $((8 * $1 + 8 * ${#1} + 91))
}

# A module without task scope: pmuctl stat says so and counts a CPU.
run "$PMUCTL" stat -e instructions:u -- workload 1
if grep -q 'cannot count tasks' "$tmp/err"; then
	echo "1..0 # SKIP this pmuctl.ko has no task scope (pmuctl stat counted a CPU)"
	exit 0
fi
if grep -q PERF_BUSY "$tmp/err"; then
	echo "1..0 # SKIP perf holds the counters (PERF_BUSY: kernel.nmi_watchdog=1)"
	exit 0
fi
echo "1..14"

want=$(expected_threads $N)
run perf-count -- workload-threads $N
got=$(cat "$tmp/out")
if [ "$rc" != 0 ] || [ "$got" != "$want" ]; then
	fail "perf counted $got user-mode instructions of 'workload-threads $N', want $want"
	show
fi
result perf_counts_threads

want=$(expected $N)
run "$PMUCTL" stat -x, -e instructions:u,cycles:u -- workload $N
ins=$(csv_value instructions:u)
cyc=$(csv_value cycles:u)
cpu=$(awk -F, '$3 == "instructions:u" { print "[" $4 "]"; exit }' "$tmp/err")
if [ "$rc" != 0 ] || [ "$ins" != "$want" ] || [ "$cyc" != "$want" ] || [ "$cpu" != "[]" ]; then
	fail "instructions:u/cycles:u $ins/$cyc of 'workload $N', want $want for both, and an empty cpu field (got $cpu)"
	show
fi
result task_counts_workload

want=$(expected_threads $N)
run "$PMUCTL" stat -x, -e instructions:u -- workload-threads $N
ins=$(csv_value instructions:u)
if [ "$rc" != 0 ] || [ "$ins" != "$want" ] || grep -q 'note:' "$tmp/err"; then
	fail "instructions:u $ins of 'workload-threads $N' (4 threads), want $want and no note"
	show
fi
result task_counts_4_threads

run "$PMUCTL" stat -e instructions:u -- workload-threads $N
grep -q "^ Performance counter stats for 'workload-threads $N':\$" "$tmp/err" ||
	fail "no headline \" Performance counter stats for 'workload-threads $N':\""
grep -Eq "^ +$want  instructions:u\$" "$tmp/err" || fail "no line '$want  instructions:u'"
[ -s "$tmp/why" ] && show
run "$PMUCTL" stat --json -e instructions:u -- workload-threads $N
grep -q "^{\"type\":\"event\",\"event\":\"instructions:u\",\"value\":$want,\"counter\":\"[a-z]*[0-9]*\",\"cpu\":null," "$tmp/err" ||
	fail "no event object with the value $want and \"cpu\":null"
grep -q '^{"type":"summary","scope":"task","cpu":null,"command":"workload-threads '$N'",.*"exit_status":0,"signal":null,"lost_threads":0,"launch":"exact","failed_runs":0,"backend":"msr"}$' "$tmp/err" ||
	fail "no summary with \"scope\":\"task\", \"cpu\":null, \"lost_threads\":0"
[ -s "$tmp/why" ] && show
result task_table_and_json

run "$PMUCTL" stat -r 3 -x, -e instructions:u -- workload-threads $N
line=$(grep ',instructions:u,' "$tmp/err")
case $line in
"$want,,instructions:u,,"*",0.00,"*) ;;
*)
	fail "3 runs of 'workload-threads $N': '$line'; want the mean $want and spread 0.00"
	show
	;;
esac
result task_repeats_exactly

# EDGE (bit 18) without a counter mask [SDM; doc/rules.md]; the
# command would create $tmp/ran.
run "$PMUCTL" stat -e r5003c -- sh -c "touch $tmp/ran"
if [ "$rc" != 1 ] || [ "$(wc -l <"$tmp/err")" != 1 ] ||
   ! grep -q "^pmuctl stat: event 'r5003c' refused: EDGE_NO_CMASK: " "$tmp/err" ||
   [ -e "$tmp/ran" ]; then
	fail "want exit 1, one line naming EDGE_NO_CMASK and the event, and the command not run"
	show
fi
result task_refusal_names_the_rule

run "$PMUCTL" stat -e instructions:u -- workload x
if [ "$rc" != 0 ] || ! grep -q "^ 'workload x' exited with status 2\$" "$tmp/err"; then
	fail "want pmuctl's exit 0 and \" 'workload x' exited with status 2\""
	show
fi
result task_keeps_exit_status

# CPU scope as before: the highest CPU; another task there may add to the
# count, so up to 3 tries, one exact, none below.
cpu=$(($(grep -c '^processor' /proc/cpuinfo) - 1))
want=$(expected $N)
try=0
while [ $try -lt 3 ]; do
	try=$((try + 1))
	run "$PMUCTL" stat -C $cpu -x, -e instructions:u -- workload $N
	ins=$(csv_value instructions:u)
	[ "$rc" = 0 ] && [ "$ins" = "$want" ] && break
	[ "$rc" = 0 ] && [ "${ins:-0}" -gt "$want" ] 2>/dev/null || break
done
run "$PMUCTL" stat -C $cpu -e instructions:u -- workload $N
if [ "$ins" != "$want" ] ||
   ! grep -q "^ Performance counter stats for CPU $cpu, while 'workload $N' ran pinned there:\$" "$tmp/err"; then
	fail "-C $cpu: instructions:u $ins ($try tries), want $want, and the CPU headline"
	show
fi
result cpu_scope_with_C

# More events than counters: passes.  instructions:u goes on fixed counter
# 0 or any generic counter: ngp + 1 a pass.
ngp=$("$PMUCTL" info | sed -n 's/^generic counters: \([0-9]*\) x .*/\1/p')
ev=instructions:u
i=1
while [ $i -lt 12 ]; do ev="$ev,instructions:u"; i=$((i + 1)); done
passes=$(((12 + ngp) / (ngp + 1)))
want=$(expected $N)
run "$PMUCTL" stat -x, -e "$ev" -- workload $N
got=$(awk -F, '$3 == "instructions:u" { print $1 }' "$tmp/err" | sort | uniq -c |
	awk '{ print $1 "x" $2 }')
if [ "$rc" != 0 ] || [ "$got" != "12x$want" ]; then
	fail "12 instructions:u ($ngp generic counters): want 12 counts of $want, got '$got'"
	show
fi
run "$PMUCTL" stat -e "$ev" -- workload $N
grep -q "^ $passes passes: COMMAND ran once per pass (1 run each)\$" "$tmp/err" ||
	{ fail "want ' $passes passes: COMMAND ran once per pass (1 run each)'"; show; }
run "$PMUCTL" stat --no-passes -e "$ev" -- sh -c "touch $tmp/ran"
if [ "$rc" != 1 ] || [ -e "$tmp/ran" ] ||
   ! grep -q "^pmuctl stat: the 12 events need $passes passes" "$tmp/err"; then
	fail "--no-passes: want exit 1, the line naming $passes passes, and the command not run"
	show
fi
result more_events_than_counters

# Intel's metrics (-M): the IPC metric of this model's list, exactly 1.
list=$("$PMUCTL" list --metrics 2>/dev/null | sed -n 's/^# metrics: \([a-z_]*\): .*/\1/p')
ipc=Info_Thread_IPC
case $list in srf | grr) ipc=Info_Core_IPC ;; esac
if [ -z "$list" ]; then
	echo "ok 10 - metric_ipc_is_exact # SKIP Intel gives no metrics for this model"
	n=$((n + 1))
else
	run "$PMUCTL" stat -x, -M IPC -- workload $N
	ins=$(csv_value INST_RETIRED.ANY)
	cyc=$(csv_value CPU_CLK_UNHALTED.THREAD)
	[ -n "$cyc" ] || cyc=$(csv_value CPU_CLK_UNHALTED.CORE)
	metric=$(awk -F, -v m=$ipc '$3 == m { print $7; exit }' "$tmp/err")
	if [ "$rc" != 0 ] || [ -z "$ins" ] || [ "$ins" != "$cyc" ] ||
	   [ "$ins" -lt "$(expected $N)" ] || [ "$metric" != "1.00" ]; then
		fail "-M $ipc of 'workload $N' ($list): instructions $ins, cycles $cyc (want equal, >= $(expected $N)), metric '$metric' (want 1.00)"
		show
	fi
	result metric_ipc_is_exact
fi

# Several passes: TopdownL2 on Skylake (4 generic counters, no PERF_METRICS).
if [ "$list" != skx ] && [ "$list" != skl ] && [ "$list" != clx ]; then
	echo "ok 11 - metrics_passes # SKIP not a Skylake list ($list)"
	n=$((n + 1))
else
	run "$PMUCTL" stat -M TopdownL2 -- workload $N
	passes=$(sed -n 's/^ \([0-9]*\) passes: COMMAND ran once per pass (1 run each)$/\1/p' "$tmp/err")
	if [ "$rc" != 0 ] || [ "${passes:-0}" -lt 2 ] || ! grep -q '^ *[-0-9.]*  Memory_Bound ' "$tmp/err"; then
		fail "-M TopdownL2: want exit 0, a line ' N passes: COMMAND ran once per pass (1 run each)' with N > 1 and a Memory_Bound line"
		show
	fi
	run "$PMUCTL" stat --no-passes -M TopdownL2 -- sh -c "touch $tmp/ran"
	if [ "$rc" != 1 ] || [ -e "$tmp/ran" ] ||
	   ! grep -q "^pmuctl stat: the metrics 'TopdownL2' need $passes passes (COMMAND run once per pass) and --no-passes allows one" "$tmp/err"; then
		fail "--no-passes -M TopdownL2: want exit 1, the line naming $passes passes, and the command not run"
		show
	fi
	result metrics_passes
fi

# The emulation's PERF_METRICS for @n instructions, @b of them branches,
# with 4 slots each (pmu-spec.md): "RET BS FE BE", each byte the metric's
# share in 255ths of the slots, rounded to the nearest.
td_bytes() {
	awk -v n="$1" -v b="$2" 'BEGIN {
		o = n - b; s = 4 * n; q = 1020
		split((2 * o + b) " " (2 * b) " " (o + b) " " o, u, " ")
		for (i = 1; i <= 4; i++)
			printf "%s%d", (i > 1 ? " " : ""), int((u[i] * q + 2 * s) / (4 * s))
		printf "\n"
	}'
}

# Check $tmp/err, the CSV of 'stat -x, --all-user -M TopdownL1', against
# slots $1 and bytes $2..$5 (RET BS FE BE).
td_check() {
	awk -F, -v slots="$1" -v br="$2" -v bb="$3" -v bf="$4" -v be="$5" '
	function want(b) { return int(slots * b / 255) }
	{ v[$3] = $1; m[$3] = $7 }
	END {
		split("RETIRING BAD_SPECULATION FRONTEND_BOUND BACKEND_BOUND", name, " ")
		split(br " " bb " " bf " " be, byte, " ")
		if (v["TOPDOWN.SLOTS:perf_metrics"] != slots)
			printf "TOPDOWN.SLOTS %s, want %s\n", v["TOPDOWN.SLOTS:perf_metrics"], slots
		for (i = 1; i <= 4; i++)
			if (v["PERF_METRICS." name[i]] != want(byte[i]))
				printf "PERF_METRICS.%s %s, want %d (byte %d of %d slots)\n",
				       name[i], v["PERF_METRICS." name[i]], want(byte[i]), byte[i], slots
		a = v["PERF_METRICS.RETIRING"]; b = v["PERF_METRICS.FRONTEND_BOUND"]
		c = v["PERF_METRICS.BAD_SPECULATION"]; d = v["PERF_METRICS.BACKEND_BOUND"]
		if (a + b + c + d == 0) { print "no topdown counts"; exit }
		w = sprintf("%.2f", 100 * (a / (b + c + a + d)))
		if (m["Retiring"] != w) printf "Retiring %s, want %s\n", m["Retiring"], w
		w = sprintf("%.2f", 100 * (b / (b + c + a + d)))
		if (m["Frontend_Bound"] != w) printf "Frontend_Bound %s, want %s\n", m["Frontend_Bound"], w
		w = sprintf("%.2f", 100 * (d / (b + c + a + d)))
		if (m["Backend_Bound"] != w) printf "Backend_Bound %s, want %s\n", m["Backend_Bound"], w
	}' "$tmp/err"
}

# PERF_METRICS in the emulation: the Ice Lake and Sapphire Rapids guests.
if [ "$list" != icx ] && [ "$list" != spr ]; then
	echo "ok 12 - topdown_l1_is_exact_in_task_scope # SKIP no PERF_METRICS in this guest ($list)"
	echo "ok 13 - topdown_l1_sums_threads_across_switches # SKIP no PERF_METRICS in this guest ($list)"
	n=$((n + 2))
else
	run "$PMUCTL" stat -x, -e branches:u -- workload $N
	br=$(csv_value branches:u)
	run "$PMUCTL" stat -x, --all-user -M TopdownL1 -- workload $N
	ins=$(csv_value INST_RETIRED.ANY)
	if [ "$rc" != 0 ] || [ -z "$br" ] || [ "$ins" != "$(expected $N)" ]; then
		fail "--all-user -M TopdownL1 of 'workload $N': exit $rc, INST_RETIRED.ANY '$ins' (want $(expected $N)), branches:u '$br'"
		show
	else
		# shellcheck disable=SC2046 # the four bytes
		td_check $((4 * ins)) $(td_bytes "$ins" "$br") >>"$tmp/why"
		[ -s "$tmp/why" ] && show
	fi
	result topdown_l1_is_exact_in_task_scope

	# Instructions and branches of each thread of workload-threads.
	run "$PMUCTL" stat --json --per-thread -e instructions:u,branches:u -- workload-threads $N
	awk '{ s = $0
	       while (match(s, /"values":\[[0-9,]*\]/)) {
		       print substr(s, RSTART + 10, RLENGTH - 11)
		       s = substr(s, RSTART + RLENGTH) } }' "$tmp/err" | tr , ' ' >"$tmp/threads"
	total=0 ok=true
	: >"$tmp/wsum"
	while read -r ti tb; do
		total=$((total + ti))
		# shellcheck disable=SC2046
		set -- $(td_bytes "$ti" "$tb")
		echo "$((4 * ti)) $1 $2 $3 $4" >>"$tmp/wsum"
	done <"$tmp/threads"
	[ "$(wc -l <"$tmp/threads")" = 4 ] || ok=false
	# The session's bytes: the threads' bytes weighted by their slots.
	bytes=$(awk '{ s += $1; for (i = 2; i <= 5; i++) u[i] += $1 * $i }
		END { for (i = 2; i <= 5; i++) printf "%s%d", (i > 2 ? " " : ""), int((u[i] + s / 2) / s); printf "\n" }' "$tmp/wsum")
	if ! $ok || [ "$total" != "$(expected_threads $N)" ]; then
		fail "--per-thread of workload-threads: want 4 threads summing to $(expected_threads $N) instructions"
		show
	else
		"$PMUCTL" stat -x, --all-user -M TopdownL1 -- workload $N >"$tmp/other.out" 2>"$tmp/other.err" &
		other=$!
		run "$PMUCTL" stat -x, --all-user -M TopdownL1 -- workload-threads $N
		wait $other
		orc=$?
		ins=$(csv_value INST_RETIRED.ANY)
		if [ "$rc" != 0 ] || [ "$ins" != "$total" ]; then
			fail "-M TopdownL1 of workload-threads: exit $rc, INST_RETIRED.ANY '$ins' (want $total)"
			show
		else
			# shellcheck disable=SC2086
			td_check $((4 * total)) $bytes >>"$tmp/why"
			[ -s "$tmp/why" ] && show
		fi
		cp "$tmp/other.err" "$tmp/err"
		ins=$(csv_value INST_RETIRED.ANY)
		if [ "$orc" != 0 ] || [ "$ins" != "$(expected $N)" ]; then
			fail "the other session (workload $N): exit $orc, INST_RETIRED.ANY '$ins'"
		else
			# shellcheck disable=SC2046
			td_check $((4 * ins)) $(td_bytes "$ins" "$br") >>"$tmp/why"
		fi
		[ -s "$tmp/why" ] && sed 's/^/other: /' "$tmp/other.err" >>"$tmp/why"
	fi
	result topdown_l1_sums_threads_across_switches
fi

run "$PMUCTL" stat -x, -- workload $N
has_metrics=false
"$PMUCTL" info 2>/dev/null | grep -q '^features:.* perf_metrics' && has_metrics=true
ins=$(csv_value instructions)
ret=$(awk -F, '$3 == "Retiring" { print $7; exit }' "$tmp/err")
if [ "$rc" != 0 ] || [ -z "$ins" ] || [ "$ins" -lt "$(expected $N)" ]; then
	fail "default events of 'workload $N': exit $rc, instructions '$ins'"
	show
elif $has_metrics && { [ -z "$ret" ] || grep -q passes "$tmp/err"; }; then
	fail "PERF_METRICS ($list): want the TopdownL1 metrics (a Retiring value) in the one run, got '$ret'"
	show
elif ! $has_metrics && [ -n "$ret" ]; then
	fail "no PERF_METRICS ($list): want no metric, got Retiring '$ret'"
	show
fi
result default_adds_topdown_l1

[ "$failed" = 0 ]
