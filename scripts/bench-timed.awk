# SPDX-License-Identifier: GPL-2.0
#
# make bench's timed rows into its results file: compare -t FILE's lines
# (selftests/bench/compare.c, on a machine with a PMU), "timed-machine
# TEXT" and one "timed-cmp OP|PMUCTL|P1|MEDIAN|P99|AGAINST|P1|MEDIAN|P99"
# per timed comparison, each side a row through emit_timed()
# (scripts/bench-emit.awk, loaded first; -v json=FILE, -v kernel=TEXT),
# pmuctl's once per operation and label.  Exit status 1 when a line is
# malformed or no row was timed.
BEGIN { FS = "|" }
/^timed-machine / {
	machine = substr($0, 15)
	next
}
/^timed-cmp / {
	sub(/^timed-cmp /, "")
	if (NF != 9) {
		printf "bench-timed: malformed line: %s\n", $0
		bad = 1
		next
	}
	for (i = 3; i <= 9; i++)
		if (i != 6 && $i !~ /^[0-9]+$/) {
			printf "bench-timed: not a number: %s\n", $i
			bad = 1
			next
		}
	c = $1 ~ /^read [0-9]/ ? substr($1, 6) + 0 : (group != "" ? group + 0 : -1)
	if (!(($1, $2) in done)) {
		emit_timed($1, "pmuctl", $2, c, $3, $4, $5)
		done[$1, $2] = 1
	}
	emit_timed($1, tool_of($6), $6, c, $7, $8, $9)
	n++
	next
}
END {
	if (!n)
		print "bench-timed: no timed row"
	exit bad || !n
}
