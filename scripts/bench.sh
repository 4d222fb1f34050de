#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Static cost of libpmuctl's inline read path: disassemble the out-of-line
# copies in OBJECT (selftests/bench/readpath.c compiled with the project's
# CFLAGS) and count, per function, its rdpmc, lfence and other
# instructions.  The wrapper's own ret is not counted, nor an endbr64.
#
# usage: scripts/bench.sh [--tap] OBJECT
#   default: a table, one line per function, then the 7-counter snapshot
#            against libpfc's; "make bench" prints it.
#   --tap:   the same checks as TAP 13, one result per budgeted function
#            (the test build/tests/bench-readpath_test).
# Exit 0 when every budget holds, 1 when one does not, 2 on usage errors or
# an object that lacks a wrapper.
#
# The budgets are the issue's:
#  - one counter: 1 rdpmc and at most 3 other instructions;
#  - 7 counters (3 fixed + 4 generic): 7 rdpmc and at most 25 other;
#  - every read: no call, no jump or branch, no syscall, no lock prefix
#    (so no seqlock retry loop), exactly n rdpmc;
#  - a _serialized form: the same budget plus exactly 2 lfence;
#  - a start/end pair of 7-counter snapshots leaves in an instruction count
#    about one snapshot's instructions (those after a counter's rdpmc in
#    the first, those up to its rdpmc in the second): fewer than libpfc's
#    37 (FACTS.md 5).
# Counts of 2..6 counters and the informational rows have no budget.
set -euo pipefail

LIBPFC_BIAS=37

tap=0
if [ "${1:-}" = --tap ]; then
	tap=1
	shift
fi
if [ $# -ne 1 ]; then
	echo "usage: $0 [--tap] OBJECT (build/bench/readpath.o: make bench builds it)" >&2
	exit 2
fi
obj=$1
if [ ! -f "$obj" ]; then
	echo "bench.sh: no object '$obj': run 'make bench' (or make $obj) first" >&2
	exit 2
fi
for tool in objdump nm readelf; do
	if ! command -v "$tool" >/dev/null; then
		echo "bench.sh: '$tool' not found: install binutils (scripts/deps.sh core)" >&2
		exit 2
	fi
done

# Rows: symbol, what it reads (for the table), rdpmc, lfence, budget of
# other instructions ("-": none), kind (read: every structural rule; info:
# counted and shown, never a failure).
rows=(
	"readpath_counter pmuctl_read_counter(c,0) 1 0 3 read"
	"readpath_counter_serialized pmuctl_read_counter_serialized(c,0) 1 2 3 read"
)
for n in 1 2 3 4 5 6 7; do
	case $n in
	1) b=3 ;;
	7) b=25 ;;
	*) b=- ;;
	esac
	rows+=("readpath_counters_$n pmuctl_read_counters(c,v,$n) $n 0 $b read")
done
for n in 1 2 3 4 5 6 7; do
	case $n in
	1) b=3 ;;
	7) b=25 ;;
	*) b=- ;;
	esac
	rows+=("readpath_counters_serialized_$n pmuctl_read_counters_serialized(c,v,$n) $n 2 $b read")
done
rows+=(
	"readpath_counter_at pmuctl_read_counter(c,i) 1 0 - info"
	"readpath_counters_7_deltas read_counters(7)+deltas(7) 7 0 - info"
)

dis=$(objdump -d --no-show-raw-insn "$obj")
syms=$(nm -S --defined-only "$obj")
producer=$(readelf --debug-dump=info "$obj" 2>/dev/null |
	   sed -n 's/.*DW_AT_producer *: *\(([^)]*): *\)\{0,1\}//p' | head -n 1)

# count SYMBOL: "rdpmc lfence other call branch syscall lock" for the
# instructions inside the symbol's size (not the padding after it).
count() {
	local sym=$1 size

	size=$(awk -v s="$sym" '$4 == s && ($3 == "T" || $3 == "t") { print $2 }' <<<"$syms")
	if [ -z "$size" ]; then
		return 1
	fi
	awk -v sym="$sym" -v size=$((16#$size)) '
	function hex(s,    v, i) {	# POSIX awk has no strtonum
		v = 0
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	/^[0-9a-f]+ <.*>:$/ {
		name = $2; sub(/^</, "", name); sub(/>:$/, "", name)
		infn = (name == sym)
		if (infn)
			start = hex($1)
		next
	}
	infn && /^ *[0-9a-f]+:\t/ {
		split($0, f, "\t")
		a = f[1]; sub(/:$/, "", a); gsub(/ /, "", a)
		if (hex(a) - start >= size)
			next
		ins[++n] = f[2]
	}
	END {
		rdpmc = lfence = other = call = branch = sys = lock = 0
		for (i = 1; i <= n; i++) {
			nw = split(ins[i], w, " ")
			m = w[1]; k = 1
			# prefixes: lock is counted on its own; the others are
			# part of the one instruction they prefix
			while (m ~ /^(lock|notrack|bnd|rep[a-z]*|data16|[c-gs]s)$/ && k < nw) {
				if (m == "lock")
					lock++
				m = w[++k]
			}
			if (m == "endbr64" || m == "endbr32")
				continue
			if (i == n && m ~ /^ret/)
				continue		# the wrapper'"'"'s own return
			if (m == "rdpmc")
				rdpmc++
			else if (m == "lfence")
				lfence++
			else if (m ~ /^call/)
				call++
			else if (m ~ /^(j|loop|ret)/)
				branch++
			else if (m ~ /^(syscall|sysenter|int|int3|into)$/)
				sys++
			else
				other++
		}
		print rdpmc, lfence, other, call, branch, sys, lock
	}' <<<"$dis"
}

fail=0
results=()
info=()
snapshot_total=
if [ "$tap" = 0 ]; then
	echo "libpmuctl read path: static instruction counts"
	echo "object:   $obj"
	echo "compiler: ${producer:-unknown (no debug info)}"
	echo
	printf '%-44s %5s %6s %5s %6s  %s\n' "read" rdpmc lfence other budget verdict
fi

for row in "${rows[@]}"; do
	read -r sym label want_rdpmc want_lfence budget kind <<<"$row"
	if ! c=$(count "$sym"); then
		echo "bench.sh: no function '$sym' in $obj: rebuild it from selftests/bench/readpath.c" >&2
		exit 2
	fi
	read -r rdpmc lfence other call branch sys lock <<<"$c"
	why=()
	[ "$rdpmc" -eq "$want_rdpmc" ] || why+=("$rdpmc rdpmc, want $want_rdpmc")
	if [ "$kind" = read ]; then
		[ "$lfence" -eq "$want_lfence" ] || why+=("$lfence lfence, want $want_lfence")
		[ "$call" -eq 0 ] || why+=("$call call")
		[ "$branch" -eq 0 ] || why+=("$branch jump/branch")
		[ "$sys" -eq 0 ] || why+=("$sys syscall/int")
		[ "$lock" -eq 0 ] || why+=("$lock lock prefix")
	fi
	if [ "$budget" != - ] && [ "$other" -gt "$budget" ]; then
		why+=("$other other instructions > $budget")
	fi
	reasons=
	for w in "${why[@]}"; do
		reasons+="${reasons:+; }$w"
	done
	ser=
	[ "$want_lfence" -eq 0 ] || ser=" + $lfence lfence"
	limit="budget $budget"
	[ "$budget" != - ] || limit="no budget"
	if [ "$kind" = info ]; then
		verdict=info
		[ "$branch" -eq 0 ] || verdict="info: $branch branch (a loop: static count)"
		[ -z "$reasons" ] || verdict="info: $reasons"
	elif [ -z "$reasons" ]; then
		verdict=ok
	else
		verdict="FAIL: $reasons"
		fail=1
	fi
	if [ "$sym" = readpath_counters_7 ]; then
		snapshot_total=$((rdpmc + other))
	fi

	if [ "$tap" = 0 ]; then
		printf '%-44s %5s %6s %5s %6s  %s\n' "$label" "$rdpmc" "$lfence" \
			"$other" "$budget" "$verdict"
	elif [ "$kind" = info ]; then
		info+=("$label: $rdpmc rdpmc, $lfence lfence, $other other ($verdict)")
	else
		# "-": no budget, only the rules of every read
		r="ok - $label: $rdpmc rdpmc$ser + $other other ($limit)"
		r+=", no call/branch/syscall/lock"
		[ -z "$reasons" ] || r="not $r # $reasons"
		results+=("$r")
	fi
done

# The snapshot against libpfc.
snap_why=
if [ "$snapshot_total" -ge "$LIBPFC_BIAS" ]; then
	snap_why="$snapshot_total >= libpfc's $LIBPFC_BIAS"
	fail=1
fi
if [ "$tap" = 0 ]; then
	echo
	echo "7-counter snapshot (3 fixed + 4 generic): $snapshot_total instructions in all;"
	echo "  a start/end pair biases each instruction count by about that many."
	echo "  libpfc's 7-counter start/end snapshot: $LIBPFC_BIAS instructions of bias (FACTS.md 5)."
	printf '%-44s %5s %6s %5s %6s  %s\n' "snapshot of 7 vs libpfc" - - \
		"$snapshot_total" "<$LIBPFC_BIAS" "${snap_why:+FAIL: }${snap_why:-ok}"
	echo
	if [ "$fail" = 0 ]; then
		echo "static budgets: all hold"
	else
		echo "static budgets: EXCEEDED (see FAIL above)"
	fi
else
	r="ok - 7-counter snapshot: $snapshot_total instructions < libpfc's $LIBPFC_BIAS"
	[ -z "$snap_why" ] || r="not $r # $snap_why"
	results+=("$r")
	echo "TAP version 13"
	echo "1..${#results[@]}"
	echo "# object $obj, compiler: ${producer:-unknown}"
	i=0
	for r in "${results[@]}"; do
		i=$((i + 1))
		echo "${r/ok - /ok $i - }"
	done
	for r in "${info[@]}"; do
		echo "# info: $r"
	done
fi
exit "$fail"
