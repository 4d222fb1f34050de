#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# "pmuctl watch" where counts are exact: the emulated-PMU guests (QEMU's
# TCG with the patched PMU, scripts/vm/qemu/pmu-spec.md: instructions
# retired exact per privilege level, cycles and reference cycles =
# instructions).  A busy workload runs on every CPU meanwhile.
#
#   watch_ipc_is_exactly_one      -M IPC: every CPU's IPC row in every
#                                 interval is 1.00 (the synthetic cycles),
#                                 or not computed where a CPU retired
#                                 nothing; at least one 1.00;
#   watch_passes_count_each_slice_exactly
#                                 more generic events than counters:
#                                 fillers take the first pass's generic
#                                 counters, and six user-mode encodings
#                                 of instructions (instructions:u,
#                                 cycles:u, INST_RETIRED.ANY_P 0x00c0 and
#                                 0x01c0, core and reference cycles
#                                 0x003c and 0x013c) spread over two
#                                 passes as the counters allow: within
#                                 each pass (JSON "pass"), on each CPU and
#                                 in each interval, their counts are
#                                 equal (one slice, the counters replaced
#                                 zeroed and started at once) and, on
#                                 some CPU, not 0.
#
# busybox sh (POSIX).  The tool is $PMUCTL (default pmuctl in PATH);
# workload is in PATH too (the rig's -x).  One SKIP without /dev/pmuctl,
# without the emulated PMU, or with the register-model build.

. "$(dirname "$0")/stat_lib.sh"
NCPU=$(grep -c '^processor' /proc/cpuinfo)

stat_begin workload perf-count
echo "1..2"

# busy: a long workload per CPU in the background, killed at exit.
pids=
trap 'kill $pids 2>/dev/null; rm -rf "$tmp"' EXIT
c=0
while [ $c -lt "$NCPU" ]; do
	taskset -c $c workload 1000000000 >/dev/null 2>&1 &
	pids="$pids $!"
	c=$((c + 1))
done

if "$PMUCTL" watch -n 1 -I 100 -e instructions:u 2>&1 >/dev/null | grep -q PERF_BUSY; then
	echo "ok 1 - watch_ipc_is_exactly_one # SKIP perf holds the counters (PERF_BUSY)"
	echo "ok 2 - watch_passes_count_each_slice_exactly # SKIP perf holds the counters (PERF_BUSY)"
	exit 0
fi

run "$PMUCTL" watch -x , -M IPC -I 300 -n 2
[ "$rc" = 0 ] || fail "exit $rc"
# time,cpu,value,unit,METRIC,,backend: the metric rows have no counter.
awk -F, '
	$6 != "" { next }
	$3 == "1.00" { one++; next }
	$3 == "<not computed>" { next }
	{ printf "IPC row \"%s\": want 1.00\n", $0 }
	END { if (!one) print "no IPC row of 1.00" }
' "$tmp/out" >>"$tmp/why"
[ -s "$tmp/why" ] && show
result watch_ipc_is_exactly_one

ngp=$("$PMUCTL" info | sed -n 's/^generic counters: \([0-9]*\) x.*/\1/p')
fill=
k=0
for e in r100c4 r200c4 r300c4 r100c5 r200c5 r300c5 r14f2e r24f2e; do
	[ $k -lt "${ngp:-0}" ] || break
	fill="$fill$e,"
	k=$((k + 1))
done
if [ "${ngp:-0}" -lt 4 ] || [ $k -lt "$ngp" ]; then
	echo "ok 2 - watch_passes_count_each_slice_exactly # SKIP $ngp generic counters: wants 4 to 8"
	exit $((failed > 0))
fi
run "$PMUCTL" watch --json -e "${fill}instructions:u,cycles:u,r100c0,r101c0,r1003c,r1013c" -I 400 -n 2
[ "$rc" = 0 ] || fail "exit $rc"
# {"time":T,"cpu":C,"event":"E","value":V,"counter":"X","backend":"msr","pass":P,"share":S}
awk '
	function field(k,   m) {
		if (!match($0, "\"" k "\":\"?[^,\"}]*")) return ""
		m = substr($0, RSTART, RLENGTH); sub(/^"[a-z]*":"?/, "", m); return m
	}
	{
		e = field("event")
		if (e !~ /^(instructions:u|cycles:u|r100c0|r101c0|r1003c|r1013c)$/) next
		k = field("time") " cpu " field("cpu") " pass " field("pass")
		v = field("value")
		if (!(k in val)) { val[k] = v; if (v > 0) nz[field("pass")] = 1 }
		else if (val[k] != v) printf "%s: %s %s, want %s as the others of its pass\n", k, e, v, val[k]
		seen[field("pass")] = 1
	}
	END {
		for (p in seen) { np++; if (!(p in nz)) printf "pass %s counted 0 on every CPU\n", p }
		if (np < 2) printf "the events took %d pass(es), want 2\n", np
	}
' "$tmp/out" >>"$tmp/why"
[ -s "$tmp/why" ] && show
result watch_passes_count_each_slice_exactly
[ "$failed" = 0 ]
