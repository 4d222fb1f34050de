#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# What a region pair costs, held to bounds, in the emulated-PMU guests
# where instructions retired are exact: regions-cost and papi-cost
# (selftests/bench/regions_cost.c, the programs "make bench" prints the
# table with), 2 events (on every model's fixed counters, beside the two
# generic ones that measure).
#
#   handle_pair_makes_no_system_call   the handle pair: 0 kernel
#                                      instructions;
#   handle_pair_stays_under_its_bound  at most 110 user instructions (93
#                                      at 1 event, 104 at 2 measured when
#                                      written: a bound against growth);
#   markers_off_cost_a_few_instructions  the LIKWID and PAPI drop-ins
#                                      without a session: at most 16 user
#                                      instructions a pair (call, load,
#                                      test, branch, return each side), 0
#                                      kernel.
#
# busybox sh (POSIX).  One SKIP without /dev/pmuctl, without the emulated
# PMU, with the register-model build, or where perf holds the counters
# (PERF_BUSY: the rig's "pmu-wd" guests).

echo "TAP version 13"
# First: make check runs it on the host too, where it skips.
if [ ! -c /dev/pmuctl ]; then
	echo "1..0 # SKIP no /dev/pmuctl"
	exit 0
fi
for p in regions-cost papi-cost perf-count pmuctl; do
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
if ! pmuctl info 2>/dev/null | grep -q '^backend: msr'; then
	echo "1..0 # SKIP pmuctl.ko is not the default build (backend msr): nothing is counted"
	exit 0
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
regions-cost handle 2 >"$tmp/handle" 2>&1
if grep -q PERF_BUSY "$tmp/handle"; then
	echo "1..0 # SKIP perf holds the counters (PERF_BUSY: kernel.nmi_watchdog=1)"
	exit 0
fi
regions-cost likwid-off 2 >"$tmp/likwid" 2>&1
PAPI_EVENTS=instructions:u,cycles:u papi-cost papi-off 2 >"$tmp/papi" 2>&1
echo "1..3"

# row FILE: "USER KERNEL" of its "regions-cost API N USER KERNEL" line.
row() {
	sed -n 's/^regions-cost [^ ]* [0-9]* \([0-9.]*\) \([0-9.]*\)$/\1 \2/p' "$1"
}
# check NAME FILE MAXUSER: ok when the row's user count is at most MAXUSER
# and its kernel count is 0.
n=0 failed=0
check() {
	n=$((n + 1))
	set -- "$1" "$2" "$3" $(row "$2")
	if [ $# = 5 ] && awk -v u="$4" -v k="$5" -v m="$3" 'BEGIN { exit !(u <= m && k == 0) }'; then
		echo "ok $n - $1 # $4 user, $5 kernel instructions a pair"
	else
		echo "not ok $n - $1"
		echo "# want at most $3 user and 0 kernel instructions a pair; got:"
		sed 's/^/# /' "$2"
		failed=$((failed + 1))
	fi
}
check handle_pair_makes_no_system_call "$tmp/handle" 1000000
check handle_pair_stays_under_its_bound "$tmp/handle" 110
cat "$tmp/likwid" "$tmp/papi" >"$tmp/off"
n=$((n + 1))
lu=$(row "$tmp/likwid") pu=$(row "$tmp/papi")
if [ -n "$lu" ] && [ -n "$pu" ] &&
	echo "$lu $pu" | awk '{ exit !($1 <= 16 && $2 == 0 && $3 <= 16 && $4 == 0) }'; then
	echo "ok $n - markers_off_cost_a_few_instructions # LIKWID $lu, PAPI $pu (user, kernel)"
else
	echo "not ok $n - markers_off_cost_a_few_instructions"
	echo "# want at most 16 user and 0 kernel instructions a pair; got:"
	sed 's/^/# /' "$tmp/off"
	failed=$((failed + 1))
fi
[ "$failed" = 0 ]
