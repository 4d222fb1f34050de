#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# TAP test of "pmuctl watch" with more events than the PMU counts at once
# and with -M, the real tool on any host: the made-up module of
# selftests/tool/fake_module.c (LD_PRELOAD, PMUCTL_DEVICE=/dev/null), a
# Skylake PMU with 4 generic counters that zeroes them at each
# replacement (PMUCTL_PROGRAM_REPLACE) and logs it.  Six generic events
# take 2 passes: each interval is 2 slices, one replacement after each,
# every count is its slice's (100 * (cpu + 1) + its index in the pass),
# printed with its share of the interval, and scaled only with --scale.
#
# Env: PMUCTL (default build/bin/pmuctl), FAKE_MODULE (default
# build/testlib/fake_module.so).
set -euo pipefail

PMUCTL=${PMUCTL:-build/bin/pmuctl}
FAKE_MODULE=${FAKE_MODULE:-build/testlib/fake_module.so}
here=$(cd "$(dirname "$0")" && pwd)

# shellcheck source=selftests/tap.sh
. "$here/../tap.sh"

[ -x "$PMUCTL" ] || bail "no executable pmuctl at '$PMUCTL': make tests, or set PMUCTL"
[ -f "$FAKE_MODULE" ] || bail "no $FAKE_MODULE: make tests builds it"
PMUCTL=$(cd "$(dirname "$PMUCTL")" && pwd)/$(basename "$PMUCTL")
FAKE_MODULE=$(cd "$(dirname "$FAKE_MODULE")" && pwd)/$(basename "$FAKE_MODULE")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Six MEM_LOAD_RETIRED events: generic counters only, 4 of them at once.
EVENTS=mem_load_retired.l1_hit,mem_load_retired.l2_hit,mem_load_retired.l3_hit,mem_load_retired.l1_miss,mem_load_retired.l2_miss,mem_load_retired.l3_miss

# fake ARGS...: pmuctl ARGS on the made-up module with 2 CPUs; sets rc,
# $tmp/out, $tmp/err; the replacements in $tmp/log.
fake() {
	rc=0
	rm -f "$tmp/log"
	LD_PRELOAD=$FAKE_MODULE PMUCTL_DEVICE=/dev/null FAKE_NR_CPUS=2 \
		FAKE_LOG=$tmp/log "$PMUCTL" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null || rc=$?
}

# CSV: 3 intervals x 2 CPUs x 6 events, 9 fields; the events of pass 1
# (the first four) count 100 * (cpu + 1) + 0..3, those of pass 2 + 0..1;
# every share between 25 and 75 % and the two passes' at most 100 %.
fake watch -x , -e "$EVENTS" -I 60 -n 3
ok=1
[ "$rc" = 0 ] || ok=0
awk -F, '
	NF != 9 { printf "row %d: %d fields: %s\n", NR, NF, $0; next }
	{
		k = (NR - 1) % 6; i = k < 4 ? k : k - 4
		want = 100 * ($2 + 1) + i
		if ($3 != want) printf "row %d: value %s, want %d\n", NR, $3, want
		if ($8 < 25 || $8 > 75) printf "row %d: share %s%%\n", NR, $8
		if ($9 != "") printf "row %d: scaled without --scale\n", NR
		if (k == 0) s1 = $8
		if (k == 4 && s1 + $8 > 100.01) printf "row %d: shares %s + %s\n", NR, s1, $8
	}
	END { if (NR != 36) printf "%d rows, want 36\n", NR }
' "$tmp/out" >"$tmp/bad"
[ -s "$tmp/bad" ] && { ok=0; cat "$tmp/bad" >>"$tmp/err"; }
report "$ok" passes_count_each_event_in_its_slice_with_its_share "$(cat "$tmp/err" "$tmp/out" 2>/dev/null | head -n 30)"

# One replacement per slice: 2 per interval, alternating 2 and 4 events.
ok=1
[ "$(grep -c '^replace ' "$tmp/log")" = 6 ] || ok=0
[ "$(tr '\n' ' ' <"$tmp/log")" = "replace 2 replace 4 replace 2 replace 4 replace 2 replace 4 " ] || ok=0
[ "$ok" = 1 ] || cat "$tmp/log" >>"$tmp/err"
report "$ok" passes_replace_the_group_once_per_slice "$(cat "$tmp/err" "$tmp/out" 2>/dev/null | head -n 30)"

# --scale: the estimate is the count divided by its share, marked '~'
# in the table.
fake watch -e "$EVENTS" -I 60 -n 1 --scale
ok=1
[ "$rc" = 0 ] || ok=0
grep -q '^# 6 events in 2 passes, each counted 30 ms of every interval' "$tmp/out" || ok=0
awk '
	/^#/ { next }
	{
		v = substr($3, 2); share = $5; gsub(/[(%)]/, "", share)
		if (substr($3, 1, 1) != "~") { printf "no ~: %s\n", $0; next }
		k = (n++) % 6; i = k < 4 ? k : k - 4
		want = (100 * ($2 + 1) + i) * 100 / share
		if (v < want - 1 || v > want + 1) printf "%s: want ~%d\n", $0, want
	}
	END { if (n != 12) printf "%d rows, want 12\n", n }
' "$tmp/out" >"$tmp/bad"
[ -s "$tmp/bad" ] && { ok=0; cat "$tmp/bad" >>"$tmp/err"; }
report "$ok" scale_divides_each_count_by_its_share "$(cat "$tmp/err" "$tmp/out" 2>/dev/null | head -n 30)"

# -M IPC (Intel's Info_Thread_IPC): the metric row of each CPU is its
# events' ratio in the interval.
fake watch --json -M IPC -I 50 -n 1
ok=1
[ "$rc" = 0 ] || ok=0
python3 - "$tmp/out" >"$tmp/bad" <<'PY' || ok=0
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
for cpu in (0, 1):
    ev = {r["event"].lower(): r["value"] for r in rows if r.get("cpu") == cpu and "event" in r}
    m = [r for r in rows if r.get("cpu") == cpu and r.get("metric", "").endswith("IPC")]
    inst = [v for k, v in ev.items() if k.startswith("inst_retired.any")]
    cyc = [v for k, v in ev.items() if k.startswith("cpu_clk_unhalted.thread")]
    if len(m) != 1 or len(inst) != 1 or len(cyc) != 1:
        print("cpu %d: rows %s" % (cpu, rows)); sys.exit(1)
    want = round(inst[0] / cyc[0], 2)
    if abs(m[0]["value"] - want) > 1e-9 or m[0]["error"] is not None:
        print("cpu %d: IPC %s, want %s" % (cpu, m[0], want)); sys.exit(1)
PY
[ "$ok" = 1 ] || cat "$tmp/bad" >>"$tmp/err"
report "$ok" metrics_are_their_events_ratio_per_interval "$(cat "$tmp/err" "$tmp/out" 2>/dev/null | head -n 30)"

# Refused, before anything counts: slices under 10 ms, --format with
# passes or with -M.
ok=1
fake watch -e "$EVENTS" -I 10 -n 1
[ "$rc" = 2 ] || ok=0
[ "$(head -n 1 "$tmp/err")" = "pmuctl watch: the events need 2 passes, and -I 10 gives each less than 10 ms: use -I 20 or more" ] || ok=0
[ ! -s "$tmp/log" ] || ok=0
fake watch -e "$EVENTS" -n 1 --format prometheus
[ "$rc" = 2 ] || ok=0
grep -q "^pmuctl watch: the events need 2 passes, and --format's counters must be exact" "$tmp/err" || ok=0
report "$ok" too_short_slices_and_format_with_passes_are_refused "$(cat "$tmp/err" "$tmp/out" 2>/dev/null | head -n 30)"

ok=1
fake watch -M IPC -n 1 --format openmetrics
[ "$rc" = 2 ] || ok=0
[ "$(head -n 1 "$tmp/err")" = "pmuctl watch: --format exposes counters, and -M metrics are not: drop -M, or use -x or --json" ] || ok=0
report "$ok" format_with_metrics_is_refused "$(cat "$tmp/err" "$tmp/out" 2>/dev/null | head -n 30)"

tap_end
