#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# TAP test of the read path's static budgets: the rules "make bench"
# prints, as a check.  Installed as build/tests/bench-readpath_test by
# mk/bench.mk and run from the repository root.
#
#  1. scripts/bench.sh --tap on build/bench/readpath.o (the header's read
#     functions compiled with the project's CFLAGS): each of its results is
#     a result here; a budget exceeded fails.
#  2. The counter itself, on copies with instructions injected
#     (build/bench/inject/, selftests/bench/readpath.c READPATH_INJECT_*):
#     N nops must count as N more other instructions in every read and
#     fail exactly the budgets that pushes over (at 3 and 21 other today,
#     1, 4, 5 and 9 nops sit on each side of both budgets and of libpfc's
#     37); a call, a jump, a syscall, a lock prefix or an extra rdpmc must
#     fail every read.
#
# BENCH_DIR overrides build/bench (the objects' directory).

dir=${BENCH_DIR:-build/bench}
bench=scripts/bench.sh

results=()

report() {	# report OK NAME [DIAGNOSTIC]
	local r="ok"

	[ "$1" = 1 ] || r="not ok"
	results+=("$r - $2${3:+ # $3}")
}

# bench OBJECT: sets out (bench.sh --tap output) and rc.
bench() {
	out=$(bash "$bench" --tap "$1" 2>&1)
	rc=$?
}

# reads TAP: "label|not |rdpmc|other|budget" per read result of bench.sh
# (status "not " or "", budget "" when none).
reads() {
	local re='^(not )?ok [0-9]+ - (pmuctl_read[^:]*): ([0-9]+) rdpmc'

	re+='( \+ [0-9]+ lfence)? \+ ([0-9]+) other \((budget ([0-9]+)|no budget)\).*'
	sed -nE "s/$re/\\2|\\1|\\3|\\5|\\7/p" <<<"$1"
}

# snapshot TAP: the 7-counter snapshot's instruction count.
snapshot() {
	sed -nE 's/^(not )?ok [0-9]+ - 7-counter snapshot: ([0-9]+) instructions.*/\2/p' <<<"$1"
}

# expect_nops N: the object with N nops injected counts N more other
# instructions in every read than the real one, and fails exactly the
# budgets that N more exceed; the snapshot likewise against libpfc's 37.
expect_nops() {
	local n=$1 label st other budget want over=0 bad=() got
	local -A inj_st inj_other

	while IFS='|' read -r label st _ other budget; do
		inj_st[$label]=$st
		inj_other[$label]=$other
	done < <(reads "$out")
	while IFS='|' read -r label _ _ other budget; do
		got=${inj_other[$label]:-none}
		if [ "$got" != $((other + n)) ]; then
			bad+=("$label: $got other, want $((other + n))")
			continue
		fi
		want=
		if [ -n "$budget" ] && [ $((other + n)) -gt "$budget" ]; then
			want="not "
			over=$((over + 1))
		fi
		[ "${inj_st[$label]}" = "$want" ] ||
			bad+=("$label: ${inj_st[$label]:-}ok with $got other, budget ${budget:-none}")
	done < <(reads "$real_out")
	got=$(snapshot "$out")
	want=$(( $(snapshot "$real_out") + n ))
	if [ "$got" != "$want" ]; then
		bad+=("snapshot: $got instructions, want $want")
	elif [ "$want" -ge 37 ] && ! grep -q '^not ok .* - 7-counter snapshot' <<<"$out"; then
		bad+=("snapshot: $got instructions passed against libpfc's 37")
	elif [ "$want" -lt 37 ] && grep -q '^not ok .* - 7-counter snapshot' <<<"$out"; then
		bad+=("snapshot: $got instructions failed against libpfc's 37")
	fi
	if [ "$want" -ge 37 ]; then
		over=$((over + 1))
	fi
	if [ ${#bad[@]} -eq 0 ] && { [ "$over" -eq 0 ] || [ "$rc" -eq 1 ]; }; then
		report 1 "nops$n: every read counts $n more; $over budget(s) now exceeded fail"
	else
		got=
		for want in "${bad[@]}"; do
			got+="${got:+; }$want"
		done
		report 0 "nops$n: every read counts $n more; exceeded budgets fail" \
			"${got:-bench.sh exit $rc}"
	fi
}

# expect_all_fail OBJNAME REASON: every read (not the snapshot) fails for
# REASON, and bench.sh exits 1.
expect_all_fail() {
	local name=$1 reason=$2 total bad

	total=$(grep -c ' - pmuctl_read' <<<"$out")
	bad=$(grep '^not ok .* - pmuctl_read' <<<"$out" | grep -c -F -- "$reason")
	if [ "$total" -gt 0 ] && [ "$bad" -eq "$total" ] && [ "$rc" -eq 1 ]; then
		report 1 "$name: all $total reads fail: $reason"
	else
		report 0 "$name: all reads fail: $reason" \
			"$bad of $total reads failed for it, bench.sh exit $rc"
	fi
}

# --- 1. the real read path ---------------------------------------------------

bench "$dir/readpath.o"
if [ "$rc" -eq 2 ] || ! grep -q '^1\.\.' <<<"$out"; then
	echo "TAP version 13"
	echo "1..0"
	echo "Bail out! $out"
	exit 1
fi
real_rc=$rc
real_out=$out
while IFS= read -r line; do
	case $line in
	"ok "* | "not ok "*)
		results+=("$(sed -E 's/^(not )?ok [0-9]+ /\1ok /' <<<"$line")")
		;;
	esac
done <<<"$out"

# --- 2. the counter catches what is injected ----------------------------------

# With today's counts (3 and 21 other) these cross each boundary: 1 nop
# breaks the one-counter budget, 4 keep 7 counters at 25, 5 break it,
# 9 reach libpfc's 37.
for n in 1 4 5 9; do
	bench "$dir/inject/readpath-nops$n.o"
	expect_nops "$n"
done

bench "$dir/inject/readpath-call.o"
expect_all_fail call "1 call"
bench "$dir/inject/readpath-jmp.o"
expect_all_fail jmp "1 jump/branch"
bench "$dir/inject/readpath-syscall.o"
expect_all_fail syscall "1 syscall/int"
bench "$dir/inject/readpath-lock.o"
expect_all_fail lock "1 lock prefix"
bench "$dir/inject/readpath-rdpmc.o"
expect_all_fail rdpmc "rdpmc, want"

# --- report ----------------------------------------------------------------------

echo "TAP version 13"
echo "1..${#results[@]}"
grep '^# ' <<<"$real_out"
n=0
failed=0
for r in "${results[@]}"; do
	n=$((n + 1))
	[[ $r == ok* ]] || failed=$((failed + 1))
	echo "${r/ok - /ok $n - }"
done
if [ "$failed" -ne 0 ] || [ "$real_rc" -ne 0 ]; then
	echo "# $failed of $n failed"
	exit 1
fi
exit 0
