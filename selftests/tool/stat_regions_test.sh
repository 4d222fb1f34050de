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
#                                     is unmeasured, exits 0;
#   likwid_csv_is_exact_per_thread    the same for likwid-demo
#                                     (likwid_demo.c, LIKWID's MarkerAPI
#                                     through pmuctl-likwid), and its
#                                     LIKWID_MARKER_GET gives its main
#                                     thread's calls and counts;
#   papi_csv_is_exact_per_thread      the same for papi-demo (papi_demo.c,
#                                     PAPI's high-level API through
#                                     pmuctl-papi-hl);
#   papi_events_count_without_pmuctl  papi-demo alone with $PAPI_EVENTS:
#                                     its own session, its JSON report in
#                                     $PAPI_OUTPUT_DIRECTORY/papi_hl_output,
#                                     exact the same way;
#   likwid_markers_are_off_without_pmuctl  likwid-demo alone: 0 calls.
#
# busybox sh (POSIX).  The tool is $PMUCTL (default pmuctl in PATH);
# regions-demo, likwid-demo, papi-demo and perf-count are in PATH (the rig's -x).  One SKIP without
# /dev/pmuctl, without the emulated PMU, or with the register-model build.

. "$(dirname "$0")/stat_lib.sh"
N=1000
THREADS=3

stat_begin regions-demo likwid-demo papi-demo perf-count

# perf's NMI watchdog (the rig's "pmu-wd" guests) holds the counters.
run "$PMUCTL" stat --regions -e instructions:u -- regions-demo 1 0
if grep -q PERF_BUSY "$tmp/err"; then
	echo "1..0 # SKIP perf holds the counters (PERF_BUSY: kernel.nmi_watchdog=1)"
	exit 0
fi
: >"$tmp/why"
echo "1..8"

# check_csv FILE: FILE holds regions' CSV (region,thread,calls,
# emulated_reads,open,instructions:u,branches:u,...) of a program run
# with N and THREADS: one row per region and thread, exact differences,
# every read an rdpmc (the module grants it to the command's threads),
# no misuse.  What is wrong goes to $tmp/why.
check_csv() {
	awk -F, -v n=$N -v threads=$THREADS '
		$1 == "loop0" || $1 == "loopN" {
			rows[$1]++
			if ($3 != 5) printf "%s thread %s: %s calls, want 5\n", $1, $2, $3
			if ($5 != 0) printf "%s thread %s: open %s\n", $1, $2, $5
			if ($4 != 0) printf "%s thread %s: %s reads through the emulation, want 0 (each thread asks for rdpmc)\n", $1, $2, $4
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
	' "$1" >>"$tmp/why"
}

run "$PMUCTL" stat --regions -x, -e instructions:u,branches:u -- regions-demo $N $THREADS
[ "$rc" = 0 ] || fail "exit $rc"
check_csv "$tmp/err"
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

run "$PMUCTL" stat --regions -x, -e instructions:u,branches:u -- likwid-demo $N $THREADS
[ "$rc" = 0 ] || fail "exit $rc"
check_csv "$tmp/err"
# LIKWID_MARKER_GET in the main thread: its loopN row, which is the
# first (the main thread runs its regions before it makes the threads),
# and the time 0.
get=$(grep '^likwid-demo: loopN:' "$tmp/out")
row=$(grep '^loopN,' "$tmp/err" | head -n 1 | cut -d, -f6,7 | sed 's/,/, /')
[ "$get" = "likwid-demo: loopN: 5 calls, 2 events, time 0, $row" ] ||
	fail "LIKWID_MARKER_GET said '$get', want 'likwid-demo: loopN: 5 calls, 2 events, time 0, $row'"
[ -s "$tmp/why" ] && show
result likwid_csv_is_exact_per_thread

run "$PMUCTL" stat --regions -x, -e instructions:u,branches:u -- papi-demo $N $THREADS
[ "$rc" = 0 ] || fail "exit $rc"
check_csv "$tmp/err"
[ -s "$tmp/why" ] && show
result papi_csv_is_exact_per_thread

mkdir "$tmp/papi"
run env PAPI_EVENTS=instructions:u,branches:u PAPI_OUTPUT_DIRECTORY="$tmp/papi" \
	papi-demo $N $THREADS
[ "$rc" = 0 ] || fail "exit $rc"
set -- "$tmp"/papi/papi_hl_output/pmuctl_*.json
if [ -f "$1" ]; then
	# The JSON rows as CSV: region,thread,calls,emulated_reads,open,ins,br
	sed -n -e 's/^{"type":"region","region":"\([^"]*\)","thread":\([0-9]*\),"calls":\([0-9]*\),"emulated_reads":\([0-9]*\),"open":\([0-9]*\),"counts":{"instructions:u":\([0-9]*\),"branches:u":\([0-9]*\)}.*$/\1,\2,\3,\4,\5,\6,\7/p' \
		-e 's/^{"type":"misuse","bad_region":\([0-9]*\),"exit_without_enter":\([0-9]*\),"unbalanced":\([0-9]*\),"uncounted_thread":\([0-9]*\),"too_deep":\([0-9]*\),"no_memory":\([0-9]*\)}$/# misuse bad_region=\1 exit_without_enter=\2 unbalanced=\3 uncounted_thread=\4 too_deep=\5 no_memory=\6/p' \
		"$1" >"$tmp/papi.csv"
	check_csv "$tmp/papi.csv"
else
	fail "no papi_hl_output/pmuctl_PID.json in \$PAPI_OUTPUT_DIRECTORY"
fi
[ -s "$tmp/why" ] && show
result papi_events_count_without_pmuctl

run likwid-demo 10 1
[ "$rc" = 0 ] || fail "exit $rc"
grep -qx 'likwid-demo: loopN: 0 calls, 0 events, time 0' "$tmp/out" || fail "markers on without pmuctl"
[ -s "$tmp/why" ] && show
result likwid_markers_are_off_without_pmuctl
[ "$failed" = 0 ]
