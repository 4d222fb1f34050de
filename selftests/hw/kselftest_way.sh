#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The hardware tests the kselftest way (TAP 13), run by "make check" from
# the repository root:
#   1 make -C selftests install INSTALL_PATH=DIR installs the runner, the
#     programs in DIR/hw/ and a kselftest-list.txt naming every
#     selftests/hw/*_test.c as hw:NAME
#   2 DIR/run_kselftest.sh, from a copy of DIR elsewhere, runs each
#     program and reports it ("ok N selftests: hw: NAME")
#   3 run_kselftest.sh -t hw:NAME runs that one only
#   4 make -C selftests run_tests prints a TAP plan and one result per
#     program
#   5 make hwtest ends with tap-summary's count line, no failure, and
#     exits 0; on a host without /dev/pmuctl, nothing passed either: every
#     test is a SKIP
# Install needs rsync (the kselftest lib.mk copies with it): tests 1-3
# SKIP without it.
set -uo pipefail

cd "$(dirname "$0")/../.." || exit 1
make=${MAKE:-make}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

names=()
for f in selftests/hw/*_test.c; do
	n=${f##*/}
	names+=("${n%.c}")
done

echo "TAP version 13"
echo "1..5"

n=0
ok() { n=$((n + 1)); echo "ok $n $1"; }
notok() { n=$((n + 1)); echo "not ok $n $1"; }
skip() { n=$((n + 1)); echo "ok $n $1 # SKIP $2"; }
# check NAME COND-STATUS: ok if the status is 0, else not ok and the log.
check() {
	if [ "$2" -eq 0 ]; then
		ok "$1"
	else
		notok "$1"
		sed 's/^/# /' "$tmp/log"
	fi
}

if ! command -v rsync >/dev/null; then
	for t in install_lists_every_program run_kselftest_runs_every_program \
		 run_kselftest_runs_one_program; do
		skip "$t" "no rsync: scripts/deps.sh rsync"
	done
else
	inst=$tmp/inst
	rc=0
	"$make" -s --no-print-directory -C selftests install \
		INSTALL_PATH="$inst" >"$tmp/log" 2>&1 || rc=1
	for name in "${names[@]}"; do
		grep -qx "hw:$name" "$inst/kselftest-list.txt" 2>>"$tmp/log" ||
			{ echo "hw:$name not listed" >>"$tmp/log"; rc=1; }
		[ -x "$inst/hw/$name" ] ||
			{ echo "$inst/hw/$name missing" >>"$tmp/log"; rc=1; }
	done
	check install_lists_every_program "$rc"

	# A copy elsewhere: the installed tree stands alone.
	cp -a "$inst" "$tmp/moved"
	rc=0
	"$tmp/moved/run_kselftest.sh" >"$tmp/log" 2>&1 || rc=1
	for name in "${names[@]}"; do
		grep -q "^ok [0-9]* selftests: hw: $name\$" "$tmp/log" || rc=1
	done
	grep -q '^not ok' "$tmp/log" && rc=1
	check run_kselftest_runs_every_program "$rc"

	rc=0
	"$tmp/moved/run_kselftest.sh" -t "hw:${names[0]}" >"$tmp/log" 2>&1 || rc=1
	[ "$(grep -c '^ok [0-9]* selftests: hw: ' "$tmp/log")" -eq 1 ] || rc=1
	grep -q "^ok 1 selftests: hw: ${names[0]}\$" "$tmp/log" || rc=1
	check run_kselftest_runs_one_program "$rc"
fi

rc=0
"$make" -s --no-print-directory -C selftests run_tests >"$tmp/log" 2>&1 || rc=1
grep -qx "1..${#names[@]}" "$tmp/log" || rc=1
[ "$(grep -c '^ok [0-9]* selftests: .*hw: ' "$tmp/log")" -eq "${#names[@]}" ] || rc=1
check run_tests_prints_one_result_per_program "$rc"

rc=0
"$make" -s --no-print-directory hwtest >"$tmp/log" 2>&1 || rc=1
last=$(tail -n 1 "$tmp/log")
[[ $last =~ ^[0-9]+\ passed,\ 0\ failed,\ [0-9]+\ skipped$ ]] || rc=1
if [ ! -e /dev/pmuctl ] && [[ ! $last =~ ^0\ passed ]]; then
	echo "# without /dev/pmuctl something passed: $last" >>"$tmp/log"
	rc=1
fi
check hwtest_counts_no_failure "$rc"
