#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# TAP test of "pmuctl watch --format prometheus|openmetrics [-o FILE]", the
# real tool on any host: a made-up module (build/testlib/fake_module.so,
# selftests/tool/fake_module.c, by LD_PRELOAD on PMUCTL_DEVICE=/dev/null)
# answers its ioctls with counters that wrap at 48 bits and count known
# amounts per interval, and checks at every fsync that the file is
# replaced by a rename of a new file, never rewritten in place.  What the
# tool writes is read back by Debian's python3-prometheus-client
# (selftests/tool/prom_parse.py); without it those tests SKIP.
#
# Env: PMUCTL (default build/bin/pmuctl), FAKE_MODULE (default
# build/testlib/fake_module.so), PYTHON3 (default /usr/bin/python3).
set -euo pipefail

PMUCTL=${PMUCTL:-build/bin/pmuctl}
FAKE_MODULE=${FAKE_MODULE:-build/testlib/fake_module.so}
PYTHON3=${PYTHON3:-/usr/bin/python3}
here=$(cd "$(dirname "$0")" && pwd)

# shellcheck source=selftests/tap.sh
. "$here/../tap.sh"

[ -x "$PMUCTL" ] || bail "no executable pmuctl at '$PMUCTL': make tests, or set PMUCTL"
[ -f "$FAKE_MODULE" ] || bail "no $FAKE_MODULE: make tests builds it"
PMUCTL=$(cd "$(dirname "$PMUCTL")" && pwd)/$(basename "$PMUCTL")
FAKE_MODULE=$(cd "$(dirname "$FAKE_MODULE")" && pwd)/$(basename "$FAKE_MODULE")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

parser=1
"$PYTHON3" -c 'import prometheus_client.openmetrics.parser' 2>/dev/null || parser=0
no_parser="no python3-prometheus-client for $PYTHON3 (scripts/deps.sh core installs it)"

# fake ARGS...: pmuctl ARGS on the made-up module with 4 CPUs, CPU 2
# offline; sets rc, $tmp/out, $tmp/err.
fake() {
	rc=0
	LD_PRELOAD=$FAKE_MODULE PMUCTL_DEVICE=/dev/null FAKE_NR_CPUS=4 \
		FAKE_OFFLINE=2 FAKE_LOG=$tmp/log FAKE_TARGET=$tmp/pmuctl.prom \
		"$PMUCTL" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null || rc=$?
}

# parsed FMT FILE: the parser's canonical view of FILE in $tmp/parsed.
parsed() {
	"$PYTHON3" "$here/prom_parse.py" "$1" "$2" >"$tmp/parsed" 2>&1
}

# want N: what the parser must read after N intervals: CPUs 0 and 1 (2 is
# offline, 3 not watched), each event i counting 100 * (cpu + 1) + i per
# interval, the three events each a family (the last: pmuctl_ and the
# name with ':' made '_').
want() {
	local n=$1 e i c name ev

	i=0
	for ev in inst_retired:any_p r1c4 inst_retired:any_p:u; do
		name=pmuctl_${ev//:/_}
		echo "counter $name"
		for c in 0 1; do
			e=$((n * (100 * (c + 1) + i)))
			echo "  ${name}_total {\"cpu\": \"$c\", \"event\": \"$ev\"} $e"
		done
		i=$((i + 1))
	done
}

diag() {
	echo "exit: $rc"
	sed 's/^/stdout: /' "$tmp/out" | head -n 40
	sed 's/^/stderr: /' "$tmp/err"
	[ ! -f "$tmp/parsed" ] || sed 's/^/parsed: /' "$tmp/parsed"
	[ ! -f "$tmp/log" ] || sed 's/^/fake: /' "$tmp/log"
	[ ! -f "$tmp/pmuctl.prom" ] || sed 's/^/file: /' "$tmp/pmuctl.prom"
}

# finish NAME OK: report with the diagnostic on failure.
finish() {
	local d=()

	mapfile -t d < <(diag)
	report "$2" "$1" "${d[@]}"
}

EVENTS=inst_retired:any_p,r1c4,inst_retired:any_p:u

# --- to a file, for node_exporter's textfile collector ---------------------

rm -f "$tmp/log"
fake watch -C 0-2 -e "$EVENTS" -I 10 -n 4 --format openmetrics -o "$tmp/pmuctl.prom"
ok=1
[ "$rc" = 0 ] || ok=0
[ -s "$tmp/out" ] && ok=0
[ -s "$tmp/err" ] && ok=0
finish openmetrics_file_written_quietly "$ok"

if [ "$parser" = 1 ]; then
	ok=1
	parsed openmetrics "$tmp/pmuctl.prom" || ok=0
	[ "$(cat "$tmp/parsed")" = "$(want 4)" ] || ok=0
	finish openmetrics_file_parses_with_counts_since_start_across_wraps "$ok"
else
	skip openmetrics_file_parses_with_counts_since_start_across_wraps "$no_parser"
fi

# Four intervals, four files, each renamed over the one before (the fake
# checks it at each fsync), nothing left behind.
ok=1
[ "$(grep -c '^fsync ok$' "$tmp/log")" = 4 ] || ok=0
grep -q BAD "$tmp/log" && ok=0
[ -e "$tmp/pmuctl.prom.tmp" ] && ok=0
[ "$(tail -n 1 "$tmp/pmuctl.prom")" = "# EOF" ] || ok=0
finish file_replaced_atomically_at_every_interval "$ok"

rm -f "$tmp/log" "$tmp/pmuctl.prom"
fake watch -C 0-2 -e "$EVENTS" -I 10 -n 2 --format prometheus -o "$tmp/pmuctl.prom"
ok=1
[ "$rc" = 0 ] || ok=0
[ "$(grep -c '^fsync ok$' "$tmp/log")" = 2 ] || ok=0
grep -q BAD "$tmp/log" && ok=0
# node_exporter's parser wants the family named as its samples are.
grep -qx '# TYPE pmuctl_r1c4_total counter' "$tmp/pmuctl.prom" || ok=0
grep -q '^# EOF' "$tmp/pmuctl.prom" && ok=0
if [ "$parser" = 1 ]; then
	parsed prometheus "$tmp/pmuctl.prom" || ok=0
	[ "$(cat "$tmp/parsed")" = "$(want 2)" ] || ok=0
fi
finish prometheus_text_file_parses "$ok"

# --- to stdout --------------------------------------------------------------

rm -f "$tmp/pmuctl.prom"
fake watch -C 0-2 -e "$EVENTS" -I 10 -n 1 --format openmetrics
ok=1
[ "$rc" = 0 ] || ok=0
[ -e "$tmp/pmuctl.prom" ] && ok=0
if [ "$parser" = 1 ]; then
	parsed openmetrics "$tmp/out" || ok=0
	[ "$(cat "$tmp/parsed")" = "$(want 1)" ] || ok=0
else
	[ "$(tail -n 1 "$tmp/out")" = "# EOF" ] || ok=0
fi
finish openmetrics_to_stdout "$ok"

# --- failures ---------------------------------------------------------------

fake watch -n 1 --format openmetrics -o "$tmp/no-such-dir/pmuctl.prom"
ok=1
[ "$rc" = 1 ] || ok=0
[ "$(cat "$tmp/err")" = "pmuctl watch: cannot replace $tmp/no-such-dir/pmuctl.prom: No such file or directory" ] || ok=0
finish unwritable_output_fails "$ok"

usage() {	# usage NAME MESSAGE ARGS...: exit 2 with MESSAGE first
	local name=$1 msg=$2 ok=1

	shift 2
	fake watch "$@"
	[ "$rc" = 2 ] || ok=0
	[ -s "$tmp/out" ] && ok=0
	[ "$(head -n 1 "$tmp/err")" = "pmuctl watch: $msg" ] || ok=0
	finish "$name" "$ok"
}
usage unknown_format "unknown format 'prom': prometheus or openmetrics" --format prom
usage output_needs_a_format "-o writes the --format outputs only: add --format prometheus or openmetrics" -o "$tmp/x.prom"
usage format_excludes_json "-x, --json and --format exclude each other: pick one output format" --format openmetrics --json
usage format_excludes_csv "-x, --json and --format exclude each other: pick one output format" -x , --format prometheus

fake watch --help
ok=1
grep -q -- '--format FMT' "$tmp/out" || ok=0
grep -q -- '-o, --output FILE' "$tmp/out" || ok=0
finish help_documents_format_and_output "$ok"

tap_end
