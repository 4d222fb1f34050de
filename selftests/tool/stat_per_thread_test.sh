#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# "pmuctl stat --per-thread -- CMD" (task scope): each thread's own counts
# (PMUCTL_IOC_THREADS through pmuctl_read_threads()), checked where counts
# are exact, in the emulated-PMU guests (scripts/vm/run.sh -P; QEMU's PMU
# counts instructions retired exactly per privilege level, cycles =
# instructions).  workload-threads N (selftests/tool/threads.S: the main
# thread and 3 clone()d after exec, none pinned) retires in user mode
#	main thread	2N + 8D + 67
#	each clone	2N + 8
#	in all		8N + 8D + 91	(D: the digits of N)
# perf stat --per-thread cannot follow threads created after it starts,
# so perf checks the sum (perf-count: enable_on_exec, inherit), as
# stat_task_test.sh does, and the rows are checked against the formula.
#
#   perf_counts_threads        perf counts the formula's sum exactly;
#   per_thread_table           -e instructions:u,cycles:u: a header
#                              "TID PID instructions:u cycles:u", four
#                              rows of one process sorted by TID, the
#                              main thread's (TID = PID) 2N + 8D + 67
#                              and three 2N + 8, in both columns; the
#                              row 'total' 8N + 8D + 91; no note, no
#                              "(still running)", no event lines;
#   per_thread_csv             -x,: a line per thread and event with
#                              tid,pid last and the exact count, then
#                              the totals' lines with tid,pid empty;
#   per_thread_json            the summary's "threads": four objects
#                              with the exact values, "running":false,
#                              "dropped_threads":0;
#   per_thread_processes       sh starting two workload-threads: every
#                              clone of both (six rows) 2N + 8 exactly,
#                              at least three processes, the rows of
#                              each event adding up to the total;
#   per_thread_dropped         task_max_threads=3 (the module parameter,
#                              restored after): sh running workload 4
#                              times, one after the other: 3 rows (the
#                              module keeps 3 exited threads), the rest
#                              dropped: the note on stderr, the line under
#                              the table, "dropped_threads" >= 1, and the
#                              total above the rows' sum (the dropped
#                              threads' counts are only there);
#   per_thread_refuses_C       --per-thread with -C: exit 2, one line
#                              naming both options, nothing run;
#   per_thread_refuses_repeat  --per-thread with -r 2: likewise.
#
# busybox sh (POSIX).  The tool is $PMUCTL (default pmuctl in PATH);
# workload-threads and perf-count are in PATH (the rig's -x).  One SKIP
# without /dev/pmuctl, without the emulated PMU, with the register-model
# build, or with a module without task scope.

. "$(dirname "$0")/stat_lib.sh"
N=1000000

stat_begin workload workload-threads perf-count

main_count=$((2 * N + 8 * ${#N} + 67))
clone_count=$((2 * N + 8))
sum_count=$((8 * N + 8 * ${#N} + 91))

run "$PMUCTL" stat --per-thread -e instructions:u -- workload-threads 1
if grep -q 'cannot count tasks' "$tmp/err"; then
	echo "1..0 # SKIP this pmuctl.ko has no task scope"
	exit 0
fi
if grep -q PERF_BUSY "$tmp/err"; then
	echo "1..0 # SKIP perf holds the counters (PERF_BUSY: kernel.nmi_watchdog=1)"
	exit 0
fi
echo "1..8"

run perf-count -- workload-threads $N
got=$(cat "$tmp/out")
if [ "$rc" != 0 ] || [ "$got" != "$sum_count" ]; then
	fail "perf counted $got user-mode instructions of 'workload-threads $N', want $sum_count"
	show
fi
result perf_counts_threads

# The table: rows between the header and 'total'.
run "$PMUCTL" stat --per-thread -e instructions:u,cycles:u -- workload-threads $N
if [ "$rc" != 0 ]; then
	fail "exit $rc, want 0"
fi
grep -Eq '^ +TID +PID +instructions:u +cycles:u$' "$tmp/err" ||
	fail "no header 'TID PID instructions:u cycles:u'"
awk '/^ +TID +PID/ { on = 1; next } /^ +total / { on = 0 } on && NF' \
	"$tmp/err" >"$tmp/rows"
if [ "$(wc -l <"$tmp/rows")" != 4 ]; then
	fail "$(wc -l <"$tmp/rows") thread rows, want 4"
fi
# Sorted by TID, one PID, the main thread's TID is the PID.
awk 'NR > 1 && $1 + 0 <= prev { print "rows not sorted by TID: " prev " then " $1 }
     { prev = $1 + 0 }' "$tmp/rows" >>"$tmp/why"
[ "$(awk '{ print $2 }' "$tmp/rows" | sort -u | wc -l)" = 1 ] ||
	fail "the rows have several PIDs, want the one process"
awk -v m="$main_count" -v c="$clone_count" '
	NF != 4 { print "row with " NF " fields, want TID PID and 2 values: " $0; next }
	$1 == $2 { mains++; want = m }
	$1 != $2 { want = c }
	$3 != want || $4 != want {
		print "thread " $1 " of " $2 ": " $3 " instructions:u, " $4 " cycles:u, want " want " for both"
	}
	END { if (mains != 1) print mains + 0 " rows with TID = PID, want 1 (the main thread)" }
' "$tmp/rows" >>"$tmp/why"
grep -Eq "^ +total +$sum_count +$sum_count\$" "$tmp/err" ||
	fail "no row 'total $sum_count $sum_count'"
grep -Eq 'note:|still running|more threads' "$tmp/err" &&
	fail "a note, a thread still running or dropped threads, want none"
grep -Eq '^ +[0-9]+  instructions:u$' "$tmp/err" &&
	fail "an event line beside the table"
[ -s "$tmp/why" ] && show
result per_thread_table

# CSV: value,unit,event,cpu,counter,stddev%,metric-value,metric-unit,backend,tid,pid
run "$PMUCTL" stat --per-thread -x, -e instructions:u -- workload-threads $N
awk -F, -v m="$main_count" -v c="$clone_count" -v s="$sum_count" '
	$3 != "instructions:u" { next }
	NF != 11 { print "line with " NF " fields, want 11: " $0; next }
	$10 == "" && $11 == "" { totals++; if ($1 != s) print "total " $1 ", want " s; next }
	{
		rows++
		want = $10 == $11 ? m : c
		mains += $10 == $11
		if ($1 != want) print "thread " $10 " of " $11 ": " $1 ", want " want
		if ($4 != "") print "cpu field " $4 ", want empty"
	}
	END {
		if (rows != 4) print rows + 0 " thread lines, want 4"
		if (mains != 1) print mains + 0 " main-thread lines, want 1"
		if (totals != 1) print totals + 0 " total lines, want 1"
	}' "$tmp/err" >>"$tmp/why"
[ "$rc" = 0 ] || fail "exit $rc, want 0"
[ -s "$tmp/why" ] && show
result per_thread_csv

# JSON: the summary's threads, one per line after the split.
run "$PMUCTL" stat --per-thread --json -e instructions:u -- workload-threads $N
summary=$(grep '^{"type":"summary"' "$tmp/err")
case $summary in
*'"lost_threads":0,'*'"dropped_threads":0,"threads":[{'*'}]}') ;;
*) fail "summary without \"lost_threads\":0, \"dropped_threads\":0 and a \"threads\" array at its end" ;;
esac
echo "$summary" | sed 's/.*"threads":\[//; s/\]}$//' |
	awk '{ gsub(/\},\{/, "}\n{"); print }' >"$tmp/threads"
awk -v m="$main_count" -v c="$clone_count" '
	{
		if (!match($0, /^\{"tid":[0-9]+,"pid":[0-9]+,"running":false,"values":\[[0-9]+\]\}$/)) {
			print "thread object " $0 ": want tid, pid, running false, one value"
			next
		}
		gsub(/[^0-9,]/, "")
		split($0, f, ",")
		want = f[1] == f[2] ? m : c
		if (f[4] != want) print "thread " f[1] ": " f[4] ", want " want
		rows++
	}
	END { if (rows != 4) print rows + 0 " thread objects, want 4" }' "$tmp/threads" >>"$tmp/why"
grep -q "^{\"type\":\"event\",\"event\":\"instructions:u\",\"value\":$sum_count," "$tmp/err" ||
	fail "no event object with the total $sum_count"
[ "$rc" = 0 ] || fail "exit $rc, want 0"
[ -s "$tmp/why" ] && show
result per_thread_json

# Two processes of four threads under sh: the clones' rows are exact
# whatever sh ran before each exec; the rows add up to the total.
run "$PMUCTL" stat --per-thread -x, -e instructions:u,cycles:u -- \
	sh -c "workload-threads $N & workload-threads $N; wait"
awk -F, -v c="$clone_count" '
	NF != 11 { next }
	$10 == "" { total[$3] = $1; next }
	{ sum[$3] += $1; pids[$11] = 1 }
	$3 == "instructions:u" && $1 == c { clones++ }
	END {
		if (clones != 6) print clones + 0 " threads with " c " instructions:u, want 6 (3 clones x 2)"
		np = 0
		for (p in pids) np++
		if (np < 3) print np " processes, want 3 at least (sh, 2 x workload-threads)"
		for (e in total)
			if (sum[e] != total[e]) print e ": the rows add up to " sum[e] ", the total is " total[e]
		if (!("instructions:u" in total) || !("cycles:u" in total))
			print "no total line for each event"
	}' "$tmp/err" >>"$tmp/why"
[ "$rc" = 0 ] || fail "exit $rc, want 0"
[ -s "$tmp/why" ] && show
result per_thread_processes

# Threads beyond task_max_threads exited: kept in the totals only.
param=/sys/module/pmuctl/parameters/task_max_threads
if [ ! -w "$param" ]; then
	echo "ok $((n + 1)) - per_thread_dropped # SKIP cannot write $param"
	n=$((n + 1))
else
	old_max=$(cat "$param")
	trap 'echo "$old_max" >"$param"; rm -rf "$tmp"' EXIT
	echo 3 >"$param"
	run "$PMUCTL" stat --per-thread -e instructions:u -- \
		sh -c "workload 1; workload 1; workload 1; workload 1"
	run_rc=$rc
	cp "$tmp/err" "$tmp/table"
	run "$PMUCTL" stat --per-thread --json -e instructions:u -- \
		sh -c "workload 1; workload 1; workload 1; workload 1"
	echo "$old_max" >"$param"
	rows=$(awk '/^ +TID +PID/ { on = 1; next } /^ +total / { on = 0 } on && NF' "$tmp/table" | wc -l)
	[ "$rows" = 3 ] || fail "$rows thread rows, want 3 (task_max_threads=3 exited threads kept)"
	grep -q "^pmuctl stat: note: [0-9]* threads of 'sh -c .*' have no counts of their own" "$tmp/table" ||
		fail "no note on stderr about the threads without counts of their own"
	grep -Eq '^ [0-9]+ more threads have no counts of their own' "$tmp/table" ||
		fail "no line under the table about the threads without counts"
	awk '/^ +TID +PID/ { on = 1; next }
	     on && $1 == "total" { total = $2; on = 0; next }
	     on && NF { sum += $3 }
	     END { if (!(total > sum)) print "total " total ", the rows add up to " sum ": want the total above (the dropped threads)" }' \
		"$tmp/table" >>"$tmp/why"
	grep -Eq '"dropped_threads":[1-9][0-9]*,' "$tmp/err" ||
		fail "JSON summary without \"dropped_threads\" of 1 or more"
	if [ "$run_rc" != 0 ] || [ "$rc" != 0 ]; then
		fail "exit $run_rc and $rc, want 0"
	fi
	if [ -s "$tmp/why" ]; then
		sed 's/^/table: /' "$tmp/table" >>"$tmp/why"
		show
	fi
	result per_thread_dropped
fi

# The refusals, before anything runs (the command would create a file).
cpu=$(($(grep -c '^processor' /proc/cpuinfo) - 1))
run "$PMUCTL" stat --per-thread -C $cpu -e instructions:u -- sh -c "touch $tmp/ran"
if [ "$rc" != 2 ] || [ -e "$tmp/ran" ] ||
   ! grep -q "^pmuctl stat: --per-thread and -C exclude each other: " "$tmp/err"; then
	fail "want exit 2, the line 'pmuctl stat: --per-thread and -C exclude each other: ...' and the command not run"
	show
fi
result per_thread_refuses_C

run "$PMUCTL" stat -r 2 --per-thread -e instructions:u -- sh -c "touch $tmp/ran"
if [ "$rc" != 2 ] || [ -e "$tmp/ran" ] ||
   ! grep -q "^pmuctl stat: --per-thread and -r 2 exclude each other: " "$tmp/err"; then
	fail "want exit 2, the line 'pmuctl stat: --per-thread and -r 2 exclude each other: ...' and the command not run"
	show
fi
result per_thread_refuses_repeat

[ "$failed" = 0 ]
