# SPDX-License-Identifier: GPL-2.0
#
# emit(): one row of make bench's results, loaded with -f before the
# table scripts (scripts/insn-ops.awk, insn-switch.awk, insn-table.awk,
# bench-timed.awk and bench-guest.sh's region table).  With -v json=FILE, appends the row to
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
# emit_timed(): a timed row (cycles: TSC ticks per operation, 1st
# percentile, median, 99th) on -v machine=TEXT, -v kernel=TEXT, to -v
# json=FILE only: the picture is of counted rows.
function emit_timed(op, tool, what, counters, p1, med, p99) {
	if (json != "")
		printf "{\"operation\": %s, \"tool\": %s, \"what\": %s, \"counters\": %s, \"cycles_p1\": %s, \"cycles_median\": %s, \"cycles_p99\": %s, \"measured_by\": \"tsc\", \"machine\": %s, \"kernel\": %s}\n",
		       jstr(op), jstr(tool), jstr(what), jnum(counters), jnum(p1),
		       jnum(med), jnum(p99), jstr(machine), jstr(kernel) >> json
}
# tool_of(): the tool a compared row's "against" names.
function tool_of(what) {
	if (what ~ /libperf/)
		return "libperf"
	if (what ~ /^pmuctl READ/)
		return "pmuctl READ"
	if (what ~ /PAPI/)
		return "PAPI"
	if (what ~ /bare rdpmc/)
		return "rdpmc"
	if (what ~ /mmap/)
		return "perf mmap"
	return "perf"
}
