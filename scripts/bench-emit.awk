# SPDX-License-Identifier: GPL-2.0
#
# emit(): one row of make bench's results, loaded with -f before the
# table scripts (scripts/insn-ops.awk, insn-switch.awk, insn-table.awk and
# bench-guest.sh's region table).  With -v json=FILE, appends the row to
# FILE as one JSON object a line (bench-guest.sh wraps them into
# build/bench/results.json); with -v tsv=FILE, "OPERATION<TAB>TOOL<TAB>
# INSTRUCTIONS" for the plot (scripts/cost.gp).  -v guest=TEXT and
# -v measure=plugin|pmu describe where and how the counts were taken.
# A count that was not measured is -1, written null.
function jstr(s) {
	gsub(/\\/, "\\\\", s)
	gsub(/"/, "\\\"", s)
	return "\"" s "\""
}
function jnum(v) {
	return v < 0 ? "null" : sprintf("%.1f", v) + 0
}
function emit(op, tool, what, counters, u, k, sys, mr, mw) {
	if (json != "")
		printf "{\"operation\": %s, \"tool\": %s, \"what\": %s, \"counters\": %s, \"user\": %s, \"kernel\": %s, \"syscalls\": %s, \"msr_reads\": %s, \"msr_writes\": %s, \"measured_by\": %s, \"guest\": %s}\n",
		       jstr(op), jstr(tool), jstr(what), jnum(counters), jnum(u), jnum(k),
		       jnum(sys), jnum(mr), jnum(mw), jstr(measure), jstr(guest) >> json
	if (tsv != "")
		printf "%s\t%s\t%.1f\n", op, tool, u + (k > 0 ? k : 0) >> tsv
}
