#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The pmuctl tool end to end against pmuctl.ko, in the QEMU guests (busybox
# sh: POSIX only): info, check, stat, watch and their failures, against
# the register-model build, whose counters count nothing.  So the counts
# the tool prints are checked against what the test itself writes into the
# registers (debugfs pmuctl/regs) while the tool counts: a command that
# presets a counter during "pmuctl stat" must come out as exactly that
# count, and a preset during "pmuctl watch" in exactly one interval.
#
# Output formats are the tool's documented ones (pmuctl stat/watch/info
# --help).  The tool is $PMUCTL (default: pmuctl in PATH, which the rig
# installs from build/vmbin/pmuctl).  Without /dev/pmuctl (the host) the
# whole script is one SKIP.  The last test unloads the module and loads it
# again with the parameters /init gave it.

PMUCTL=${PMUCTL:-pmuctl}
DBG=/sys/kernel/debug/pmuctl
REGS=$DBG/regs

# Architectural events and MSRs [SDM vol. 3B; FACTS.md 1].
MSR_PMC0=0xc1
MSR_FIXED0=0x309
MSR_FIXED3=0x30c
MSR_PERF_METRICS=0x329
DEFAULTS="instructions cycles ref-cycles branches branch-misses"

echo "TAP version 13"
if [ ! -c /dev/pmuctl ]; then
	echo "1..0 # SKIP no /dev/pmuctl"
	exit 0
fi
if ! command -v "$PMUCTL" >/dev/null 2>&1; then
	echo "1..0"
	echo "Bail out! no '$PMUCTL' in PATH (the rig installs build/vmbin/pmuctl with -x)"
	exit 1
fi

TESTS="info_names_the_model_and_the_backend
info_shows_another_sessions_holdings
check_works_in_the_guest
stat_prints_counts_with_the_register_model_label
stat_counts_what_the_registers_advanced
stat_scales_topdown_metrics_by_slots
stat_exit_codes
stat_invalid_event_names_the_rule
stat_csv_parses
stat_json_parses
watch_prints_two_intervals_per_cpu
watch_counts_what_the_registers_advanced_in_one_interval
watch_json_parses
watch_openmetrics_file_holds_the_count_since_start
watch_rotates_passes_one_program_and_one_wave_per_slice
busy_counters_name_the_reason
no_device_says_how_to_load_the_module"

tmp=$(mktemp -d) || exit 1
bg_pid=
trap 'stop_bg; rm -rf "$tmp"' EXIT

n=0
failed=0
# shellcheck disable=SC2086 # one word per test
set -- $TESTS
echo "1..$#"

# ---- helpers ---------------------------------------------------------------

# run ARGS...: pmuctl ARGS, sets rc, $tmp/out, $tmp/err.
run() {
	last_cmd="pmuctl $*"
	"$PMUCTL" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
}

# run_env VAR=VALUE ARGS...: the same with VAR set for pmuctl only.
run_env() {
	last_cmd="$*"
	env "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
}

# fail WHY: note a failure of the current test, and once per command what
# that command did; diag prints it all after the test's "not ok".
fail() {
	echo "$1" >>"$tmp/why"
	why=1
	[ -n "$last_cmd" ] && [ "$last_cmd" != "$why_cmd" ] || return 0
	why_cmd=$last_cmd
	{
		echo "cmd: $last_cmd"
		echo "exit: $rc"
		sed 's/^/stdout: /' "$tmp/out" | head -n 40
		sed 's/^/stderr: /' "$tmp/err" | head -n 40
	} >>"$tmp/why"
}

diag() {
	sed 's/^/# /' "$tmp/why"
}

# expect_rc WANT
expect_rc() {
	[ "$rc" = "$1" ] || fail "exit status $rc, want $1"
}

# has FILE ERE: a line of FILE matches ERE.
has() {
	grep -Eq -- "$2" "$1" || fail "no line matching /$2/ in $(basename "$1")"
}

# Lines of FILE.
lines() {
	wc -l <"$1" | tr -d ' '
}

# The guest: its CPU count and the PMU model the module should pick.
ncpu=$(grep -c '^processor' /proc/cpuinfo)
last_cpu=$((ncpu - 1))
cpu_model=$(awk -F': *' '$1 ~ /^model[ \t]*$/ { print $2; exit }' /proc/cpuinfo)
case $cpu_model in	# family 6 [FACTS.md 1; kmod/core/model.c]
133) want_pmu=knm ;;
87) want_pmu=knl ;;
85 | 78 | 94 | 142 | 158 | 165 | 166) want_pmu=skl ;;
125 | 126 | 140 | 141 | 167) want_pmu=icl ;;
106 | 108) want_pmu=icx ;;
143 | 207) want_pmu=spr ;;
173 | 174) want_pmu=gnr ;;
*) want_pmu=arch ;;
esac
# All branches retired (0x00c4) by name: libpfm4's icl, icx and spr tables
# have no architectural alias for it.
case $want_pmu in
icl | icx | spr) br=br_inst_retired:all_branches ;;
*) br=branch_instructions_retired ;;
esac

# Generic counters of the PMU, from "generic counters: N x W bits".
nr_gp() {
	"$PMUCTL" info 2>/dev/null | sed -n 's/^generic counters: \([0-9]*\) x.*/\1/p'
}

# The holdings table of "pmuctl info" as "CPU STATE COLUMN=OWNER..." lines.
holdings() {
	"$PMUCTL" info 2>/dev/null | awk '
		/^ *cpu +state/ { for (i = 1; i <= NF; i++) col[i] = $i; on = 1; next }
		on && NF > 2 {
			line = $1 " " $2
			for (i = 3; i <= NF; i++) line = line " " col[i] "=" $i
			print line
		}'
}

# wait_held CPU: until a session holds a counter of CPU (5 s at most).
wait_held() {
	i=0
	while [ $i -lt 50 ]; do
		holdings | grep -Eq "^$1 .*=[0-9]" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# start_bg CMD...: a background session; stop_bg ends it.
start_bg() {
	"$@" >"$tmp/bg.out" 2>"$tmp/bg.err" </dev/null &
	bg_pid=$!
}

stop_bg() {
	if [ -n "$bg_pid" ]; then
		kill "$bg_pid" 2>/dev/null
		wait "$bg_pid" 2>/dev/null
		bg_pid=
	fi
}

# A flat JSON object: string, number, null, true or false values.
JSTR='"([^"\\]|\\.)*"'
JVAL="($JSTR|-?[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?|null|true|false)"
JSON_RE="^\\{$JSTR:$JVAL(,$JSTR:$JVAL)*\\}\$"

# json_flat FILE: every line is a flat JSON object.
json_flat() {
	bad=$(grep -Evc -- "$JSON_RE" "$1")
	[ "$bad" = 0 ] || fail "$bad line(s) of $(basename "$1") are not flat JSON objects"
}

# ---- the tests -------------------------------------------------------------

info_names_the_model_and_the_backend() {
	run info
	expect_rc 0
	has "$tmp/out" "^pmu: $want_pmu \\(Intel family 6 model "
	has "$tmp/out" '^backend: model \(the module.s test build: a register model stands in for the PMU and counts nothing\)$'
	has "$tmp/out" "^cpus: $ncpu\$"
	has "$tmp/out" '^rdpmc: session '
	has "$tmp/out" '^this session: [1-9][0-9]*$'
	has "$tmp/out" '^ *cpu +state +pmc0 .*fixed0 +fixed1 +fixed2'
	rows=$(grep -Ec '^ *[0-9]+ +online( +-)+$' "$tmp/out")
	[ "$rows" = "$ncpu" ] || fail "$rows free online CPU rows in the holdings, want $ncpu"
	[ ! -s "$tmp/err" ] || fail "stderr is not empty"
}

info_shows_another_sessions_holdings() {
	start_bg "$PMUCTL" stat -C 0 -e instruction_retired:u,$br:u -- sleep 5
	if ! wait_held 0; then
		fail "the background stat never held a counter of CPU 0"
		stop_bg
		return
	fi
	run info
	expect_rc 0
	me=$(sed -n 's/^this session: //p' "$tmp/out")
	holdings >"$tmp/h"
	row0=$(grep '^0 ' "$tmp/h")
	owner=$(echo "$row0" | sed -n 's/.* fixed0=\([0-9]*\).*/\1/p')
	[ -n "$owner" ] || fail "CPU 0: fixed0 is free while the other session holds it ($row0)"
	[ "$owner" != "$me" ] || fail "CPU 0: fixed0 names this session ($me), not the other one"
	echo "$row0" | grep -q " pmc0=$owner " ||
		fail "CPU 0: pmc0 is not the other session's ($row0)"
	for c in pmc1 fixed1 fixed2; do
		echo "$row0" | grep -Eq " $c=-( |\$)" || fail "CPU 0: $c is held ($row0)"
	done
	if [ "$ncpu" -gt 1 ]; then
		grep -Eq "^1 online( [a-z_0-9]+=-)+\$" "$tmp/h" ||
			fail "CPU 1 holds something: $(grep '^1 ' "$tmp/h")"
	fi
	stop_bg
	holdings | grep -q '=[0-9]' && fail "counters still held after the other session ended"
}

check_works_in_the_guest() {
	run check --pmu knm r500c4 r301b7:4000000001
	expect_rc 1
	[ "$(lines "$tmp/out")" = 2 ] || fail "want 2 lines"
	has "$tmp/out" '^error EDGE_NO_CMASK: '
	has "$tmp/out" '^ok pmc0 0x301b7 0x4000000001$'
	if [ -z "$why" ]; then
		run check --pmu "$want_pmu" instruction_retired:u
		expect_rc 0
		has "$tmp/out" '^ok fixed0 0x100c0 0x0$'
	fi
}

# Without -C the command's threads are counted (task scope), with -C a CPU.
stat_prints_counts_with_the_register_model_label() {
	run stat -- /bin/true
	expect_rc 0
	has "$tmp/err" "^ Performance counter stats for '/bin/true':\$"
	has "$tmp/err" '^ register model backend: the module.s test build counts nothing; the values are what READ returned$'
	for e in $DEFAULTS; do
		has "$tmp/err" "^ +[0-9]+  $e( |\$)"
	done
	has "$tmp/err" '^ +[0-9]+\.[0-9]{9} seconds time elapsed$'
	[ ! -s "$tmp/out" ] || fail "the report went to stdout, not stderr"
	run stat -C "$last_cpu" -- /bin/true
	expect_rc 0
	has "$tmp/err" "^ Performance counter stats for CPU $last_cpu, while '/bin/true' ran pinned there:\$"
}

# The command presets fixed0 and pmc0 of the counted CPU: after RESET they
# held 0, so the counts are the presets.
stat_counts_what_the_registers_advanced() {
	cmd="echo '$last_cpu $MSR_FIXED0 1000' >$REGS && echo '$last_cpu $MSR_PMC0 77' >$REGS"
	run stat -C "$last_cpu" -e instruction_retired:u,$br:u -- sh -c "$cmd"
	expect_rc 0
	has "$tmp/err" '^ +1000  instruction_retired:u *$'
	has "$tmp/err" "^ +77  $br:u *\$"
	has "$tmp/err" '^ register model backend: '
	run stat -x , -C "$last_cpu" -e instruction_retired:u,$br:u -- sh -c "$cmd"
	expect_rc 0
	has "$tmp/err" "^1000,,instruction_retired:u,$last_cpu,fixed0,,,,model\$"
	has "$tmp/err" "^77,,$br:u,$last_cpu,pmc0,,,,model\$"
}

# Topdown metrics where the PMU has PERF_METRICS (the icx and spr
# presets): the command presets fixed counter 3 (slots) and PERF_METRICS,
# and stat shows each metric as slots * its byte / 255, as perf does.
# Elsewhere a metric is refused, naming the rule.
stat_scales_topdown_metrics_by_slots() {
	if ! "$PMUCTL" info | grep -q '^features:.* perf_metrics'; then
		run stat -C "$last_cpu" -e r38000 -- /bin/true
		expect_rc 1
		has "$tmp/err" "^pmuctl stat: event 'r38000' refused: METRICS_UNAVAILABLE: "
		return
	fi
	cmd="echo '$last_cpu $MSR_FIXED3 1000' >$REGS && echo '$last_cpu $MSR_PERF_METRICS 0x33000080' >$REGS"
	run stat -C "$last_cpu" -e r30400,r38000,r38300 -- sh -c "$cmd"
	expect_rc 0
	has "$tmp/err" '^ +1000  r30400 *$'
	has "$tmp/err" '^ +501  r38000 *$'
	has "$tmp/err" '^ +200  r38300 *$'
	run stat -C "$last_cpu" -e r38000 -- /bin/true
	expect_rc 1
	has "$tmp/err" "^pmuctl stat: event 'r38000' refused: METRICS_NEED_SLOTS: "
}

stat_exit_codes() {
	run stat -- /bin/false
	expect_rc 0
	has "$tmp/err" "^ '/bin/false' exited with status 1\$"
	run stat -- sh -c 'kill -9 $$'
	expect_rc 0
	has "$tmp/err" "was killed by signal 9"
	run stat -- /nonexistent/command
	expect_rc 1
	has "$tmp/err" "^pmuctl stat: cannot run '/nonexistent/command': "
	run stat
	expect_rc 2
	has "$tmp/err" '^pmuctl stat: no command to run'
	run stat -C "$ncpu" -- /bin/true
	expect_rc 2
	run stat -r 0 -- /bin/true
	expect_rc 2
}

stat_invalid_event_names_the_rule() {
	# EDGE (bit 18) without a counter mask [SDM; doc/rules.md].
	run stat -e r5003c -- /bin/true
	expect_rc 1
	[ "$(lines "$tmp/err")" = 1 ] || fail "want one line on stderr"
	has "$tmp/err" "^pmuctl stat: event 'r5003c' refused: EDGE_NO_CMASK: "
	[ ! -s "$tmp/out" ] || fail "stdout is not empty"
	run stat -e instruction_retired:u,nosuch_event -- /bin/true
	expect_rc 1
	[ "$(lines "$tmp/err")" = 1 ] || fail "want one line on stderr"
	has "$tmp/err" "^pmuctl stat: unknown event 'nosuch_event' .*PMU $want_pmu.*'pmuctl list'"
}

# value,unit,event,cpu,counter,stddev%,metric-value,metric-unit,backend
# Where the PMU has PERF_METRICS (the icx and spr presets) the defaults
# come with TopdownL1: its events' lines and a line per metric (metric
# fields 7 and 8), Retiring among them; elsewhere the defaults alone.
has_perf_metrics() {
	"$PMUCTL" info | grep -q '^features:.* perf_metrics'
}

stat_csv_parses() {
	td=0
	has_perf_metrics && td=1
	run stat -x , -C "$last_cpu" -- /bin/true
	expect_rc 0
	awk -F, -v cpu="$last_cpu" -v events="$DEFAULTS" -v td="$td" '
		BEGIN { split(events, want, " "); for (i in want) isdef[want[i]] = 1 }
		NF != 9 { printf "line %d: %d fields, want 9\n", NR, NF; next }
		$3 == "Retiring" { ret = 1 }
		$7 != "" { next }	# a metric
		!($3 in isdef) && !td { printf "line %d: event \"%s\" is no default\n", NR, $3 }
		!($3 in isdef) { next }
		$3 != want[++k] { printf "line %d: event \"%s\", want %s\n", NR, $3, want[k] }
		$1 !~ /^[0-9]+$/ { printf "line %d: value \"%s\"\n", NR, $1 }
		$4 != cpu { printf "line %d: cpu %s, want %s\n", NR, $4, cpu }
		$5 !~ /^(fixed|pmc)[0-9]+$/ { printf "line %d: counter \"%s\"\n", NR, $5 }
		$9 != "model" { printf "line %d: backend \"%s\"\n", NR, $9 }
		END {
			if (k != 5) printf "%d default events, want 5\n", k
			if (td && !ret) print "PERF_METRICS: no TopdownL1 metric (Retiring)"
			if (!td && ret) print "no PERF_METRICS, yet a TopdownL1 metric"
		}
	' "$tmp/err" >"$tmp/bad"
	[ ! -s "$tmp/bad" ] || fail "$(cat "$tmp/bad")"
	# task scope: no CPU
	run stat -x , -- /bin/true
	expect_rc 0
	awk -F, -v events="$DEFAULTS" '
		BEGIN { split(events, want, " "); for (i in want) isdef[want[i]] = 1 }
		$3 in isdef { k++ }
		NF != 9 || $4 != "" { printf "task scope, line %d: %s\n", NR, $0 }
		END { if (k != 5) printf "task scope: %d default events, want 5\n", k }
	' "$tmp/err" >"$tmp/bad"
	[ ! -s "$tmp/bad" ] || fail "$(cat "$tmp/bad")"
}

stat_json_parses() {
	events=5 metrics=0 passes=''
	run stat --json -- /bin/false
	expect_rc 0
	if has_perf_metrics; then
		# TopdownL1's events, and its metrics' objects ("passes":[1,1]).
		events=$(grep -c '^{"type":"event",' "$tmp/err")
		metrics=$(grep -c '^{"type":"metric",' "$tmp/err")
		[ "$metrics" -ge 4 ] || fail "PERF_METRICS: want TopdownL1's metric objects"
		has "$tmp/err" '^\{"type":"metric","metric":"Retiring",'
		passes=',"passes":1'
	fi
	grep -v '^{"type":"metric",' "$tmp/err" >"$tmp/flat"
	json_flat "$tmp/flat"
	[ "$(grep -c '^{"type":"event",' "$tmp/err")" = "$events" ] || fail "want $events event objects"
	for e in $DEFAULTS; do
		has "$tmp/err" "^\\{\"type\":\"event\",\"event\":\"$e\",\"value\":[0-9]+,\"counter\":\"(fixed|pmc)[0-9]+\",\"cpu\":null,"
	done
	has "$tmp/err" "^\\{\"type\":\"summary\",\"scope\":\"task\",\"cpu\":null,\"command\":\"/bin/false\".*\"exit_status\":1,.*\"lost_threads\":0,\"launch\":\"exact\",\"failed_runs\":1,\"backend\":\"model\"$passes\\}\$"
	[ "$(grep -c '"backend":"model"' "$tmp/err")" = $((events + 1)) ] ||
		fail "want backend model in every event object and the summary"
}

watch_prints_two_intervals_per_cpu() {
	run watch -I 100 -n 2
	expect_rc 0
	has "$tmp/out" "^# pmuctl watch: CPUs 0-$last_cpu, every 100 ms, system-wide\$"
	has "$tmp/out" '^# register model backend: '
	grep -v '^#' "$tmp/out" >"$tmp/rows"
	awk -v ncpu="$ncpu" -v events="$DEFAULTS" '
		BEGIN { ne = split(events, want, " ") }
		NF != 4 || $3 !~ /^[0-9]+$/ { printf "row %d: \"%s\"\n", NR, $0; next }
		{
			if (!($1 in seen)) { seen[$1] = 1; times[++nt] = $1 }
			k = (NR - 1) % ne + 1
			if ($4 != want[k]) printf "row %d: event %s, want %s\n", NR, $4, want[k]
			if ($2 != int((NR - 1) / ne) % ncpu)
				printf "row %d: cpu %s out of order\n", NR, $2
		}
		END {
			if (NR != 2 * ncpu * ne) printf "%d rows, want %d\n", NR, 2 * ncpu * ne
			if (nt != 2) printf "%d interval times, want 2\n", nt
			else if (times[2] + 0 <= times[1] + 0) print "times do not increase"
		}
	' "$tmp/rows" >"$tmp/bad"
	[ ! -s "$tmp/bad" ] || fail "$(cat "$tmp/bad")"
}

# A preset of CPU 0's fixed0 while watch runs shows once, in one interval.
# The writer waits until watch holds the counter and has printed its first
# interval (so it has RESET and read the counters before), as the
# openmetrics test below does (half a second after the hold once came
# before watch's RESET on the debug kernel, in CI, and was counted 0).
watch_counts_what_the_registers_advanced_in_one_interval() {
	rm -f "$tmp/out"
	(wait_held 0 || exit 1
	 i=0
	 while [ ! -s "$tmp/out" ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	 done
	 [ -s "$tmp/out" ] && echo "0 $MSR_FIXED0 500" >$REGS) &
	writer=$!
	run watch -x , -e instruction_retired:u -I 300 -n 6
	wait $writer || fail "the writer never saw watch hold CPU 0's counter and print"
	expect_rc 0
	[ "$(lines "$tmp/out")" = $((6 * ncpu)) ] || fail "want 6 rows per CPU"
	# time,cpu,value,unit,event,counter,backend
	awk -F, '
		NF != 7 || $5 != "instruction_retired:u" || $6 != "fixed0" || $7 != "model" {
			printf "row %d: \"%s\"\n", NR, $0
		}
		{ sum[$2] += $3; if ($3 != 0) nz[$2]++ }
		END {
			if (sum[0] != 500 || nz[0] != 1)
				printf "CPU 0 counted %d in %d intervals, want 500 in 1\n", sum[0], nz[0]
			for (c in sum)
				if (c != 0 && sum[c] != 0) printf "CPU %s counted %d, want 0\n", c, sum[c]
		}
	' "$tmp/out" >"$tmp/bad"
	[ ! -s "$tmp/bad" ] || fail "$(cat "$tmp/bad")"
}

watch_json_parses() {
	run watch --json -C "$last_cpu" -I 100 -n 2
	expect_rc 0
	json_flat "$tmp/out"
	[ "$(lines "$tmp/out")" = 10 ] || fail "want 2 intervals x 5 events"
	bad=$(grep -Evc "^\\{\"time\":[0-9.]+,\"cpu\":$last_cpu,\"event\":\"[a-z-]+\",\"value\":[0-9]+,\"counter\":\"(fixed|pmc)[0-9]\",\"backend\":\"model\"\\}\$" "$tmp/out")
	[ "$bad" = 0 ] || fail "$bad object(s) without the documented keys"
}

# Ten generic events, more than the counters: ceil(10 / generic counters)
# passes take turns in every interval, each replacing the group with one
# PROGRAM ioctl and one wave (debugfs "stats", since before: program
# calls and waves 1 + 2 x passes for 2 intervals, one START, no RELEASE,
# which RELEASE + PROGRAM + START per slice would show); 9 CSV fields per
# row, the share of each between 0 and 100.
stats_of() {
	sed -n "s/^$1 calls \\([0-9]*\\) waves \\([0-9]*\\)\$/\\1 \\2/p" "$DBG/stats"
}

watch_rotates_passes_one_program_and_one_wave_per_slice() {
	ngp=$("$PMUCTL" info | sed -n 's/^generic counters: \([0-9]*\) x.*/\1/p')
	[ -n "$ngp" ] || { fail "pmuctl info shows no generic counters"; return; }
	passes=$(((10 + ngp - 1) / ngp))
	[ "$passes" -gt 1 ] || { fail "$ngp generic counters hold 10 events at once"; return; }
	p0=$(stats_of program) s0=$(stats_of start) r0=$(stats_of release)
	run watch -x , -e branches:u,branches:k,branch-misses:u,branch-misses:k,cache-references:u,cache-references:k,cache-misses:u,cache-misses:k,r10100c4,r10100c5 -I $((100 * passes)) -n 2
	p1=$(stats_of program) s1=$(stats_of start) r1=$(stats_of release)
	expect_rc 0
	awk -F, -v rows=$((2 * ncpu * 10)) '
		NF != 9 || $3 !~ /^[0-9]+$/ || $8 < 0 || $8 > 100 || $9 != "" {
			printf "row %d: \"%s\"\n", NR, $0
		}
		END { if (NR != rows) printf "%d rows, want %d\n", NR, rows }
	' "$tmp/out" >"$tmp/bad"
	[ ! -s "$tmp/bad" ] || fail "$(cat "$tmp/bad")"
	want=$((1 + 2 * passes))
	# shellcheck disable=SC2086 # "calls waves", twice
	set -- $p0 $p1
	if [ "$(($3 - $1))" != "$want" ] || [ "$(($4 - $2))" != "$want" ]; then
		fail "program: $(($3 - $1)) calls and $(($4 - $2)) waves, want $want and $want ($passes passes, 2 intervals)"
	fi
	# shellcheck disable=SC2086
	set -- $s0 $s1 $r0 $r1
	if [ "$(($3 - $1))" != 1 ] || [ "$(($7 - $5))" != 0 ]; then
		fail "start: $(($3 - $1)) calls, release: $(($7 - $5)) calls; want 1 and 0"
	fi
	note="$passes passes of $ngp generic counters, $want PROGRAMs and waves"
}

# --format openmetrics -o FILE on the real module: the preset shows in the
# file as CPU 0's count since counting started, every other CPU's 0; the
# file is whole (# EOF) and no FILE.tmp is left.  Python's parser reads it
# on the host (selftests/tool/watch_prom.sh); here the lines themselves.
watch_openmetrics_file_holds_the_count_since_start() {
	# The preset goes in once the file exists: watch writes it after its
	# first interval, so it has RESET and read by then (a fixed half
	# second after the hold once gave 0 on the debug kernel, in CI).
	rm -f "$tmp/pmuctl.prom"
	(i=0
	 while [ ! -e "$tmp/pmuctl.prom" ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	 done
	 [ -e "$tmp/pmuctl.prom" ] && echo "0 $MSR_FIXED0 500" >$REGS) &
	writer=$!
	run watch --format openmetrics -o "$tmp/pmuctl.prom" -e instruction_retired:u -I 300 -n 4
	wait $writer || fail "the writer never saw watch's first file"
	expect_rc 0
	[ -s "$tmp/out" ] && fail "stdout is not empty"
	[ -e "$tmp/pmuctl.prom.tmp" ] && fail "pmuctl.prom.tmp was left"
	cp "$tmp/pmuctl.prom" "$tmp/out"
	has "$tmp/out" '^# TYPE pmuctl_instruction_retired_u counter$'
	has "$tmp/out" '^pmuctl_instruction_retired_u_total[{]cpu="0",event="instruction_retired:u"[}] 500$'
	[ "$(tail -n 1 "$tmp/out")" = "# EOF" ] || fail "the last line is not # EOF"
	[ "$(grep -c '^pmuctl_instruction_retired_u_total[{]cpu="[0-9]*",event="instruction_retired:u"[}] [0-9]*$' "$tmp/out")" = "$ncpu" ] ||
		fail "want one sample per CPU"
	bad=$(grep -c '^pmuctl_instruction_retired_u_total[{]cpu="[1-9][0-9]*",.* [1-9][0-9]*$' "$tmp/out")
	[ "$bad" = 0 ] || fail "$bad other CPU(s) counted something"
}

# Another session holds every generic counter of CPU 0.
busy_counters_name_the_reason() {
	gp=$(nr_gp)
	if [ -z "$gp" ] || [ "$gp" -lt 1 ]; then
		fail "no generic counter count from pmuctl info"
		return
	fi
	list=r100c4
	i=1
	while [ $i -lt "$gp" ]; do
		list="$list,r100c4"
		i=$((i + 1))
	done
	start_bg "$PMUCTL" stat -C 0 -e "$list" -- sleep 5
	if ! wait_held 0; then
		fail "the background stat never held CPU 0's counters: $(cat "$tmp/bg.err")"
		stop_bg
		return
	fi
	run stat -C 0 -e r100c5 -- /bin/true
	expect_rc 1
	[ "$(lines "$tmp/err")" = 1 ] || fail "want one line on stderr"
	has "$tmp/err" "^pmuctl stat: event 'r100c5' refused: COUNTERS_BUSY: .*'pmuctl info' shows who holds what"
	run watch -C 0 -I 100 -n 1
	expect_rc 1
	has "$tmp/err" "^pmuctl watch: event '.*' refused: COUNTERS_BUSY: "
	stop_bg
}

# Unloaded: one line saying how to load it (on an Intel CPU with a PMU,
# faked through the tool's PMUCTL_CPUINFO hook: this guest CPU has none,
# which the tool names instead).  Then the module comes back as /init
# loaded it.
no_device_says_how_to_load_the_module() {
	params=
	# shellcheck disable=SC2013 # the command line is one line of words
	for w in $(cat /proc/cmdline); do
		case $w in
		pmuctl.*) params="$params ${w#pmuctl.}" ;;
		esac
	done
	# The rig's module: the register-model test build where it put one.
	ko=/pmuctl.ko mod=pmuctl
	[ -f /pmuctl_regmodel.ko ] && ko=/pmuctl_regmodel.ko mod=pmuctl_regmodel
	if ! rmmod "$mod"; then
		fail "rmmod $mod failed"
		return
	fi
	printf 'vendor_id\t: GenuineIntel\nflags\t\t: fpu tsc arch_perfmon\n' >"$tmp/cpuinfo"
	run_env "PMUCTL_CPUINFO=$tmp/cpuinfo" "$PMUCTL" info
	expect_rc 1
	[ "$(lines "$tmp/err")" = 1 ] || fail "want one line on stderr"
	has "$tmp/err" '^pmuctl info: /dev/pmuctl does not exist: the pmuctl module is not loaded; load it with .sudo modprobe pmuctl.'
	run_env "PMUCTL_CPUINFO=$tmp/cpuinfo" "$PMUCTL" stat -- /bin/true
	expect_rc 1
	has "$tmp/err" '^pmuctl stat: /dev/pmuctl does not exist: the pmuctl module is not loaded'
	run watch -n 1
	expect_rc 1
	[ "$(lines "$tmp/err")" = 1 ] || fail "want one line on stderr"
	if grep -q arch_perfmon /proc/cpuinfo; then
		has "$tmp/err" 'the pmuctl module is not loaded'
	else
		has "$tmp/err" '^pmuctl watch: /dev/pmuctl does not exist: no PMU that pmuctl drives: '
	fi
	# shellcheck disable=SC2086 # one word per parameter
	insmod "$ko" $params || fail "insmod $ko$params failed"
	[ -c /dev/pmuctl ] || fail "no /dev/pmuctl after insmod"
}

# ---- run them ---------------------------------------------------------------

for t in $TESTS; do
	n=$((n + 1))
	why=
	why_cmd=
	rc=
	last_cmd=
	: >"$tmp/why"
	: >"$tmp/out"
	: >"$tmp/err"
	note=
	$t
	stop_bg
	if [ -z "$why" ]; then
		echo "ok $n $t${note:+ # $note}"
	else
		failed=$((failed + 1))
		echo "not ok $n $t"
		diag
	fi
done
[ "$failed" = 0 ]
