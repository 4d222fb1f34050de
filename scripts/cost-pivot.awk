# SPDX-License-Identifier: GPL-2.0
#
# make bench's plot data: the results' TSV lines ("OPERATION<TAB>TOOL<TAB>
# INSTRUCTIONS", scripts/bench-emit.awk) as one line per operation and one
# column per tool, "-" where a tool has none, for scripts/cost.gp.  The
# operations plotted: the reads, start, stop, reset and program rows, a
# context switch with 1 event (what counting adds) and a region pair with
# 4 events; the first line of an operation and tool wins.
BEGIN {
	FS = "\t"
	nt = split("pmuctl|rdpmc|perf mmap|libperf|perf|PAPI|LIKWID", tools, "|")
	split("pmuctl|bare rdpmc|perf mmap page|libperf (mmap page)|perf system call|PAPI 7.0|LIKWID 5.2", title, "|")
}
function rank(op) {
	if (op ~ /^read /) return 1
	if (op ~ /^(start|stop|reset)$/) return 2
	if (op ~ /^program/) return 3
	if (op == "context switch, 1 event (added)") return 4
	if (op == "region pair, 4 events") return 5
	return 0
}
rank($1) {
	if (!($1 in seen)) {
		seen[$1] = 1
		ops[++no] = $1
	}
	if (!(($1, $2) in v))
		v[$1, $2] = $3
}
END {
	printf "operation"
	for (t = 1; t <= nt; t++)
		printf "\t%s", title[t]
	print ""
	for (r = 1; r <= 5; r++)
		for (o = 1; o <= no; o++) {
			if (rank(ops[o]) != r)
				continue
			printf "%s", ops[o]
			for (t = 1; t <= nt; t++) {
				k = ops[o] SUBSEP tools[t]
				printf "\t%s", (((k in v) && v[k] > 0) ? v[k] : "-")
			}
			print ""
		}
}
