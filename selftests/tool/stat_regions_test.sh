#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# "pmuctl stat --regions" where counts are exact: the emulated-PMU guests
# (scripts/vm/qemu/pmu-spec.md).  The command is regions-demo
# (selftests/tool/regions_demo.c): its main thread and THREADS threads
# each run region loop0 around known_loop(0) and loopN around
# known_loop(N) 5 times, so in every thread loopN's sums exceed loop0's by
# exactly 10N user instructions and 5N branches.
#
#   regions_csv_is_exact_per_thread   -x,: a row per region and thread
#                                     (1 + THREADS threads), 5 calls each,
#                                     the differences exact, no misuse;
#   regions_table_has_each_region     the table: a block per region with
#                                     its threads' rows;
#   regions_json_parses               --json: an object per row, then the
#                                     misuse object;
#   a_program_without_pmuctl_runs     regions-demo alone: it runs, says it
#                                     is unmeasured, exits 0.
#
# busybox sh (POSIX).  The tool is $PMUCTL (default pmuctl in PATH);
# regions-demo and perf-count are in PATH (the rig's -x).  One SKIP without
# /dev/pmuctl, without the emulated PMU, or with the register-model build.

. "$(dirname "$0")/stat_lib.sh"
N=1000
THREADS=3

stat_begin regions-demo perf-count

# perf's NMI watchdog (the rig's "pmu-wd" guests) holds the counters.
run "$PMUCTL" stat --regions -e instructions:u -- regions-demo 1 0
if grep -q PERF_BUSY "$tmp/err"; then
	echo "1..0 # SKIP perf holds the counters (PERF_BUSY: kernel.nmi_watchdog=1)"
	exit 0
fi
: >"$tmp/why"
echo "1..4"

run "$PMUCTL" stat --regions -x, -e instructions:u,branches:u -- regions-demo $N $THREADS
[ "$rc" = 0 ] || fail "exit $rc"
# region,thread,calls,emulated_reads,open,instructions:u,branches:u,IPC
awk -F, -v n=$N -v threads=$THREADS '
	$1 == "loop0" || $1 == "loopN" {
		rows[$1]++
		if ($3 != 5) printf "%s thread %s: %s calls, want 5\n", $1, $2, $3
		if ($5 != 0) printf "%s thread %s: open %s\n", $1, $2, $5
		ins[$1 "," $2] = $6; br[$1 "," $2] = $7; tids[$2] = 1
	}
	/^# misuse/ {
		if ($0 !~ /^# misuse bad_region=0 exit_without_enter=0 unbalanced=0 uncounted_thread=0 too_deep=0 no_memory=0$/)
			printf "misuses: %s\n", $0
		misuse = 1
	}
	END {
		if (rows["loop0"] != threads + 1 || rows["loopN"] != threads + 1)
			printf "rows: loop0 %d, loopN %d, want %d each\n", rows["loop0"], rows["loopN"], threads + 1
		for (t in tids) {
			if (ins["loopN," t] - ins["loop0," t] != 10 * n)
				printf "thread %s: instructions:u loopN %s - loop0 %s, want %d\n", t, ins["loopN," t], ins["loop0," t], 10 * n
			if (br["loopN," t] - br["loop0," t] != 5 * n)
				printf "thread %s: branches:u loopN %s - loop0 %s, want %d\n", t, br["loopN," t], br["loop0," t], 5 * n
		}
		if (!misuse) print "no misuse line"
	}
' "$tmp/err" >>"$tmp/why"
[ -s "$tmp/why" ] && show
result regions_csv_is_exact_per_thread

run "$PMUCTL" stat --regions -e instructions:u -- regions-demo 10 1
[ "$rc" = 0 ] || fail "exit $rc"
grep -q "^ Region 'loop0'\$" "$tmp/err" || fail "no block of region loop0"
grep -q "^ Region 'loopN'\$" "$tmp/err" || fail "no block of region loopN"
[ "$(grep -c '^ *[0-9][0-9]*  *5  ' "$tmp/err")" = 4 ] || fail "want 4 rows of 5 calls (2 regions x 2 threads)"
[ -s "$tmp/why" ] && show
result regions_table_has_each_region

run "$PMUCTL" stat --regions --json -e instructions:u -- regions-demo 10 0
[ "$rc" = 0 ] || fail "exit $rc"
[ "$(grep -c '^{"type":"region","region":"loop[0N]","thread":[0-9]*,"calls":5,"emulated_reads":[0-9]*,"open":0,"counts":{"instructions:u":[0-9]*},"metrics":{}}$' "$tmp/err")" = 2 ] ||
	fail "want 2 region objects"
grep -q '^{"type":"misuse","bad_region":0,' "$tmp/err" || fail "no misuse object"
[ -s "$tmp/why" ] && show
result regions_json_parses

run regions-demo 10 2
[ "$rc" = 0 ] || fail "exit $rc"
grep -q '^regions-demo: no pmuctl session: running unmeasured$' "$tmp/out" || fail "no note of running unmeasured"
[ -s "$tmp/why" ] && show
result a_program_without_pmuctl_runs
[ "$failed" = 0 ]
