# SPDX-License-Identifier: GPL-2.0
#
# make bench's table of context switches counted by the TCG plugin
# (scripts/bench-guest.sh): taskswitch -i's "insn-ts LABEL ROUNDS ROW"
# and "insn-ts-skip ROW: WHY" lines (selftests/bench/taskswitch.c), then
# the plugin's "stop LABEL ARG USER KERNEL SYSCALL RDMSR WRMSR RDPMC"
# lines (scripts/vm/insn-count.c), one per run of a row.  Per row, each
# count's least over its runs, per context switch (2 a round trip), and
# what counting adds to the row without counting ("no counting").  Then the
# target: with 1 event in task scope, counting adds at most 3 MSR writes
# and 1 MSR read per switch, to the hundredth as printed (the whole
# guest is counted: its timer's MSR writes too), "ok" or "MISSED".  Exit 1 when the
# row without counting or a listed row has no window.  Loaded after
# scripts/bench-emit.awk: each row goes to make bench's results too, as
# "context switch" with what counting adds per switch (the row without
# counting as is).
/^insn-ts / {
	n++
	lab[n] = $2
	rounds[n] = $3
	name[n] = $4
	for (i = 5; i <= NF; i++)
		name[n] = name[n] " " $i
	next
}
/^insn-ts-skip / {
	sub(/^insn-ts-skip /, "")
	skip[++ns] = $0
	next
}
$1 == "stop" {
	for (i = 4; i <= 9; i++) {
		k = $2 SUBSEP i
		if (!(k in m) || $i + 0 < m[k])
			m[k] = $i + 0
	}
	seen[$2] = 1
}
function per(j, i) {
	return m[lab[j], i] / (2 * rounds[j])
}
END {
	base = 0
	for (j = 1; j <= n; j++)
		if (name[j] == "no counting")
			base = j
	if (!base || !(lab[base] in seen)) {
		print "  no window of the row without counting: is the plugin loaded?"
		exit 1
	}
	printf "  %-46s %8s %8s %5s %6s %6s   %8s %6s %6s\n", "per context switch", "user",
	       "kernel", "sys", "rdmsr", "wrmsr", "+kernel", "+rdmsr", "+wrmsr"
	for (j = 1; j <= n; j++) {
		if (!(lab[j] in seen)) {
			bad = 1
			printf "  %-46s no window\n", name[j]
			continue
		}
		printf "  %-46s %8.1f %8.1f %5.2f %6.2f %6.2f   %8.1f %6.2f %6.2f\n", name[j],
		       per(j, 4), per(j, 5), per(j, 6), per(j, 7), per(j, 8),
		       per(j, 5) - per(base, 5), per(j, 7) - per(base, 7), per(j, 8) - per(base, 8)
		tool = name[j] ~ /^pmuctl/ ? "pmuctl" : name[j] ~ /^perf/ ? "perf" : "none"
		c = name[j] ~ /3 events|group of 3/ ? 3 : j == base ? 0 : 1
		if (j == base)
			emit("context switch", tool, name[j], c, per(j, 4), per(j, 5),
			     per(j, 6), per(j, 7), per(j, 8))
		else
			emit("context switch, " c " event" (c > 1 ? "s" : "") " (added)", tool, name[j], c,
			     per(j, 4) - per(base, 4), per(j, 5) - per(base, 5),
			     per(j, 6) - per(base, 6), per(j, 7) - per(base, 7),
			     per(j, 8) - per(base, 8))
		if (name[j] ~ /^pmuctl: .*, 1 event$/) {
			# judged as printed, to the hundredth: the whole guest
			# is counted, and its timer writes an MSR now and then
			r = sprintf("%.2f", per(j, 7) - per(base, 7)) + 0
			w = sprintf("%.2f", per(j, 8) - per(base, 8)) + 0
			printf "  target: a switch of a thread counting 1 event in task scope adds at most 3 MSR writes and 1 MSR read (%.2f and %.2f): %s\n",
			       w, r, (w <= 3 && r <= 1) ? "ok" : "MISSED"
		}
	}
	for (i = 1; i <= ns; i++)
		printf "  skipped: %s\n", skip[i]
	print "  (the whole guest's instructions, system calls and MSR accesses over the round"
	print "   trips, per context switch; the least of 3 runs; +: added to the row without"
	print "   counting)"
	exit bad
}
