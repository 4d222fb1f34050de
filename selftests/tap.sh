# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# TAP helpers for the selftests' shell scripts (sourced, not run: it is
# not executable, so scripts/check.sh does not run it on its own).
#
#   ok NAME                  a passed test
#   not_ok NAME DIAG...      a failed test, each DIAG a "# " line under it
#   report OK NAME DIAG...   ok when OK is 1, else not_ok
#   skip NAME WHY            a skipped test
#   bail WHY                 nothing can be tested: print the plan and stop
#   check NAME CMD...        ok when CMD succeeds, else not ok with its output
#   tap_end                  print the results; exit 1 if any failed
#
# Results are printed at the end, after the plan, so
# the output of the commands under test cannot be mistaken for TAP lines.

tap_results=()
tap_failed=0

ok() {
	tap_results+=("ok $((${#tap_results[@]} + 1)) - $1")
}

not_ok() {
	local line="not ok $((${#tap_results[@]} + 1)) - $1" d

	shift
	for d in "$@"; do
		while IFS= read -r l; do
			line+=$'\n'"# $l"
		done <<<"$d"
	done
	tap_results+=("$line")
	tap_failed=$((tap_failed + 1))
}

report() {
	local pass=$1

	shift
	if [ "$pass" = 1 ]; then
		ok "$1"
	else
		not_ok "$@"
	fi
}

skip() {
	tap_results+=("ok $((${#tap_results[@]} + 1)) - $1 # SKIP $2")
}

bail() {
	echo "TAP version 13"
	echo "1..0"
	echo "Bail out! $*"
	exit 1
}

# check NAME CMD...: run CMD, its stdout and stderr become the diagnostic.
check() {
	local name=$1 out

	shift
	if out=$("$@" 2>&1); then
		ok "$name"
	else
		not_ok "$name" "command: $*" "$out"
	fi
}

tap_end() {
	echo "TAP version 13"
	echo "1..${#tap_results[@]}"
	printf '%s\n' "${tap_results[@]}"
	echo "# $((${#tap_results[@]} - tap_failed)) passed, $tap_failed failed"
	[ "$tap_failed" = 0 ]
}
