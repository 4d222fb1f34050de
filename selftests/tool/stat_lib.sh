# SPDX-License-Identifier: GPL-2.0
#
# What the "pmuctl stat" guest tests (selftests/tool/stat_*_test.sh) share,
# sourced by them from this folder, and put in their place by the build
# for the guests (mk/tool_tests.mk: one file per test there).  Not a test:
# not executable.  busybox sh (POSIX).
#
# stat_begin PROG...: print the TAP header; then one SKIP (exit 0)
# without /dev/pmuctl, without QEMU TCG's emulated PMU or with the
# register-model build, or a bail-out (exit 1) when $PMUCTL or a PROG is
# not in PATH (the rig installs build/vmbin/* with -x).  Sets tmp (removed
# at exit), n and failed.
# result NAME: "ok" or "not ok" with the diagnostics fail() and show()
# collected; run CMD...: CMD's stdout, stderr and status into $tmp/out,
# $tmp/err and rc, its words into last.
# expected N: the known count of "workload N"; csv_value EVENT: EVENT's
# value in the CSV (-x,) that the last run wrote to $tmp/err.

PMUCTL=${PMUCTL:-pmuctl}

stat_begin() {
	echo "TAP version 13"
	if [ ! -c /dev/pmuctl ]; then
		echo "1..0 # SKIP no /dev/pmuctl"
		exit 0
	fi
	for p in "$PMUCTL" "$@"; do
		if ! command -v "$p" >/dev/null 2>&1; then
			echo "1..0"
			echo "Bail out! no '$p' in PATH (the rig installs build/vmbin/* with -x)"
			exit 1
		fi
	done
	if ! perf-count --emulated >/dev/null; then
		echo "1..0 # SKIP not QEMU TCG's emulated PMU: counts are exact only there"
		exit 0
	fi
	if ! "$PMUCTL" info 2>/dev/null | grep -q '^backend: msr'; then
		echo "1..0 # SKIP pmuctl.ko is not the default build (backend msr): nothing is counted"
		exit 0
	fi
	tmp=$(mktemp -d) || exit 1
	trap 'rm -rf "$tmp"' EXIT
	n=0
	failed=0
	: >"$tmp/why"
}

result() {
	n=$((n + 1))
	if [ -s "$tmp/why" ]; then
		echo "not ok $n - $1"
		sed 's/^/# /' "$tmp/why"
		failed=$((failed + 1))
	else
		echo "ok $n - $1"
	fi
	: >"$tmp/why"
}

fail() {
	echo "$*" >>"$tmp/why"
}

# show: what the last command printed, into the diagnostics.
show() {
	{
		echo "cmd: $last"
		echo "exit: $rc"
		sed 's/^/stdout: /' "$tmp/out"
		sed 's/^/stderr: /' "$tmp/err"
	} >>"$tmp/why"
}

run() {
	last="$*"
	"$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
}

# expected N: the workload's user-mode instructions (workload.S).
expected() {
	echo $((2 * $1 + 8 * ${#1} + 23))
}

# csv_value EVENT: the value of EVENT in pmuctl's CSV on $tmp/err.
csv_value() {
	awk -F, -v e="$1" '$3 == e { print $1; exit }' "$tmp/err"
}
