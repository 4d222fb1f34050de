# SPDX-License-Identifier: GPL-2.0
#
# make bench's table of operations counted by the TCG plugin
# (scripts/bench-guest.sh): pmuctl against perf, per operation, in
# instructions the whole guest executed (user, kernel), system calls and
# MSR accesses (RDMSR/WRMSR) per operation.  Input: compare -i's lines
# (selftests/bench/compare.c: "insn-row LABEL empty", "insn-cmp
# OP|PMUCTL|LABEL|AGAINST|LABEL", "insn-skip OP|AGAINST|WHY"), then the
# plugin's "stop LABEL ARG USER KERNEL SYSCALL RDMSR WRMSR RDPMC" lines
# (scripts/vm/insn-count.c), one per sample.  Per label every count is its
# least over the samples, less the empty window's (the markers' own).
# Then the targets README.md and doc/cost.md claim, each printed "ok" or "MISSED" (a
# benchmark reports them; make bench does not fail on one); the exit
# status is 1 when the input has no empty window or a compared row has no
# sample.  Loaded after scripts/bench-emit.awk: -v json=, tsv=, guest=,
# measure= write each row to make bench's results too; -v group=N, the
# group's events (compare's "group: N events"), for the rows that are not
# reads.
BEGIN { FS = "|" }
/^insn-row / {
	split($0, f, " ")
	empty = f[2]
	next
}
/^insn-cmp / {
	sub(/^insn-cmp /, "")
	nc++
	op[nc] = $1; pw[nc] = $2; pl[nc] = $3; ow[nc] = $4; ol[nc] = $5
	next
}
/^insn-skip / {
	sub(/^insn-skip /, "")
	skip[++ns] = $1 " against " $2 ": " $3
	next
}
/^stop / {
	split($0, f, " ")
	for (i = 4; i <= 9; i++) {
		k = f[2] SUBSEP i
		if (!(k in m) || f[i] + 0 < m[k])
			m[k] = f[i] + 0
	}
	seen[f[2]] = 1
}
function get(l, i) {
	return m[l, i] - (empty != "" ? m[empty, i] : 0)
}
function cell(l) {
	if (!(l in seen))
		return sprintf("%8s %8s %4s %7s", "-", "-", "-", "-")
	return sprintf("%8d %8d %4d %3d/%-3d", get(l, 4), get(l, 5), get(l, 6),
		       get(l, 7), get(l, 8))
}
function total(l) {
	return get(l, 4) + get(l, 5)
}
function row(o, tool, what, l,    c) {
	c = o ~ /^read [0-9]/ ? substr(o, 6) + 0 : (group != "" ? group + 0 : -1)
	emit(o, tool, what, c, get(l, 4), get(l, 5), get(l, 6), get(l, 7), get(l, 8))
}
# A target: what it says, and whether it holds.
function target(what, holds) {
	printf "  target: %s: %s\n", what, holds ? "ok" : "MISSED"
}
END {
	if (empty == "" || !(empty in seen)) {
		print "  no empty window: is the plugin loaded? (no counts)"
		exit 1
	}
	printf "  %-18s %-22s %8s %8s %4s %7s   %-28s %8s %8s %4s %7s %7s\n",
	       "operation", "pmuctl", "user", "kernel", "sys", "msr r/w",
	       "against", "user", "kernel", "sys", "msr r/w", "ratio"
	for (i = 1; i <= nc; i++) {
		if (!(pl[i] in seen) || !(ol[i] in seen))
			bad = 1
		r = total(pl[i]) ? sprintf("%.1fx", total(ol[i]) / total(pl[i])) : "inf"
		printf "  %-18s %-22s %s   %-28s %s %7s\n", op[i], pw[i], cell(pl[i]),
		       ow[i], cell(ol[i]), r
		if ((pl[i] in seen) && !((op[i], pl[i]) in emitted)) {
			row(op[i], "pmuctl", pw[i], pl[i])
			emitted[op[i], pl[i]] = 1
		}
		if (ol[i] in seen)
			row(op[i], tool_of(ow[i]), ow[i], ol[i])
	}
	for (i = 1; i <= ns; i++)
		printf "  skipped: %s\n", skip[i]
	print "  (per operation; user and kernel: instructions the whole guest executed;"
	print "   sys: SYSCALL instructions; msr: RDMSR/WRMSR; ratio: against's user+kernel"
	print "   over pmuctl's; each the least over the samples, less an empty window's)"
	for (i = 1; i <= nc; i++) {
		p = pl[i]; o = ol[i]
		if (op[i] == "read 1" && ow[i] == "bare rdpmc")
			target("a 1-counter read: no more instructions than a bare rdpmc in the same window, none in the kernel (" \
			       get(p, 4) " and " get(o, 4) ", " get(p, 5) ")",
			       get(p, 4) <= get(o, 4) && get(p, 5) == 0)
		if (op[i] ~ /^read [0-9]+ \(group\)/ && ow[i] ~ /perf mmap loops/)
			target(op[i] " at least 3x fewer instructions than " ow[i] " (" \
			       sprintf("%.1fx", total(o) / total(p)) ")", total(o) >= 3 * total(p))
		if (op[i] ~ /^read [0-9]+ \(group\)/ && ow[i] ~ /perf group read/)
			target(op[i] " at least 10x fewer instructions than " ow[i] " (" \
			       sprintf("%.1fx", total(o) / total(p)) ")", total(o) >= 10 * total(p))
		if (op[i] ~ /^program/) {
			target(op[i] ": program+start in 2 system calls, whatever the CPUs (" \
			       get(p, 6) ")", get(p, 6) == 2)
			target(op[i] " at least 10x fewer instructions than perf's " ow[i] " (" \
			       sprintf("%.1fx", total(o) / total(p)) ")", total(o) >= 10 * total(p))
		}
	}
	exit bad
}
