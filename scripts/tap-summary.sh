#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Count the results in every LOGDIR/*.tap file (TAP 13 from kselftest-harness
# programs and shell tests) and print one line per file, then the totals as
# the very last line:
#
#   NAME: P passed, F failed, S skipped
#   ...
#   P passed, F failed, S skipped
#
# Between the two, "failed: NAME: not ok ... <- WHY" for each failed result
# (12 at most), WHY being the line before it that says why, so that the
# tail of a long log names what failed.
#
# usage: scripts/tap-summary.sh LOGDIR      exit 0 iff nothing failed
#
# Counting rules:
# - "ok N ..." passes, "not ok N ..." fails; "# SKIP" after either is a skip
#   (not a pass), "ok N # XFAIL" is a pass. "1..0 # SKIP why" is one skip.
# - Nested results count too: lines indented by 4 spaces (TAP 14 subtests) or
#   prefixed by "# " (the kselftest runner's nesting). The top-level line that
#   follows a nested block is that block's summary and is not counted again;
#   a "not ok" summary over a block with no failure counts as one failure.
# - Results missing from a "1..N" plan (the producer crashed or stopped)
#   count as failed; so does a file with no result at all, a "Bail out!"
#   with no other failure, and a "# check.sh: exit=N" trailer (written by
#   scripts/check.sh) with N other than 0 or 4 (KSFT_SKIP) when the TAP shows
#   no failure.
set -euo pipefail

if [ $# -ne 1 ] || [ ! -d "$1" ]; then
	echo "usage: $0 LOGDIR" >&2
	exit 2
fi
logdir=$1

# Prints "P F S" on the first line, then notes, for one TAP file.
count_file() {
	awk '
	function reset(d) { plan[d] = -1; cnt[d] = 0; fbase[d] = failed; open[d] = 0 }

	# Close the block at depth d; return 1 if it holds any failure.
	function close_block(d,    miss) {
		if (plan[d] >= 0 && cnt[d] < plan[d]) {
			miss = plan[d] - cnt[d]
			failed += miss
			note("depth " d ": " miss " result(s) missing from plan 1.." plan[d])
		}
		open[d] = 0
		return failed > fbase[d]
	}

	# Close every block deeper than d. If the current line is a result at
	# depth d, it summarizes the block at d + 1; deeper blocks never got a
	# summary, which counts as a failed result of their parent.
	function close_deeper(d, is_result, notok,    k, had) {
		summarized = 0
		for (k = top; k > d; k--) {
			if (!open[k])
				continue
			had = close_block(k)
			if (k == d + 1 && is_result) {
				summarized = 1
				if (notok && !had) {
					failed++
					note("depth " d ": \"not ok\" over a nested block with no failure")
				}
			} else {
				if (!had) {
					failed++
					note("depth " k ": nested block ended without a summary")
				}
				cnt[k - 1]++
				open[k - 1] = 1
			}
		}
		if (top > d)
			top = d
	}

	function note(s) { notes = notes "\n" s }

	BEGIN {
		passed = failed = skipped = 0
		top = 0; reset(0); seen = 0; bail = 0; exitcode = -1; notes = ""
	}

	/^# check\.sh: exit=[0-9]+/ {
		s = $0; sub(/^# check\.sh: exit=/, "", s); sub(/[^0-9].*$/, "", s)
		exitcode = s + 0
		next
	}

	{
		line = $0
		sub(/\r$/, "", line)
		d = 0; hashed = 0
		for (;;) {
			if (substr(line, 1, 2) == "# ") {
				line = substr(line, 3); d++; hashed = 1
			} else if (substr(line, 1, 4) == "    ") {
				line = substr(line, 5); d++
			} else if (substr(line, 1, 1) == "\t") {
				line = substr(line, 2); d++
			} else {
				break
			}
		}

		if (line ~ /^(not )?ok( |$)/) {
			if (hashed && line !~ /^(not )?ok [0-9]+/)
				next	# a comment that happens to start with "ok"
			notok = (line ~ /^not /)
			for (k = top + 1; k <= d; k++)
				reset(k)
			close_deeper(d, 1, notok)
			top = d; open[d] = 1; cnt[d]++; seen = 1
			if (summarized)
				next
			if (line ~ /#[ \t]*[Ss][Kk][Ii][Pp]/)
				skipped++
			else if (notok)
				failed++
			else
				passed++
			next
		}
		if (line ~ /^1\.\.[0-9]+/) {
			for (k = top + 1; k <= d; k++)
				reset(k)
			close_deeper(d, 0, 0)
			if (plan[d] >= 0) {
				# a second plan at this depth: a new stream
				close_block(d)
				reset(d)
			}
			n = line; sub(/^1\.\./, "", n); sub(/[^0-9].*$/, "", n)
			plan[d] = n + 0
			if (plan[d] == 0 && line ~ /#[ \t]*[Ss][Kk][Ii][Pp]/)
				skipped++
			top = d; open[d] = 1; seen = 1
			next
		}
		if (line ~ /^TAP version/) {
			close_deeper(d, 0, 0)
			if (open[d]) {
				close_block(d)
				if (d > 0) {
					cnt[d - 1]++
					if (failed == fbase[d]) {
						failed++
						note("depth " d ": stream ended without a summary")
					}
				}
			}
			reset(d); top = d
			next
		}
		if (line ~ /^Bail out!/) {
			bail = 1
			note("bailed out: " line)
			next
		}
	}

	END {
		close_deeper(0, 0, 0)
		close_block(0)
		if (!seen) {
			failed++
			note("no TAP plan or result")
		}
		if (bail && failed == 0)
			failed++
		if (exitcode > 0 && exitcode != 4 && failed == 0) {
			failed++
			note("exit status " exitcode " with no failed result")
		}
		printf "%d %d %d%s\n", passed, failed, skipped, notes
	}
	' "$1"
}

shopt -s nullglob
files=("$logdir"/*.tap)
shopt -u nullglob

# failures FILE: one line per "not ok" of FILE: the result, then the line
# that says why: the kselftest harness's first failed assertion
# ("file.c:N:test:Expected ...") and the line after it (its TH_LOG), else
# the last line before the result,
# or else the diagnostic right after it (selftests/tap.sh puts it there);
# the harness's own FAIL markers are not reasons, nor are the diagnostics
# that follow a "not ok" (they are its own, not the next result's).
failures() {
	awk '
	function flush(extra) {
		if (pending != "")
			print pending (extra != "" ? " <- " extra : "")
		pending = ""
	}
	{
		hashed = ($0 ~ /^# /)
		line = $0
		while (line ~ /^(# |    |\t)/)
			sub(/^(# |    |\t)/, "", line)
		sub(/^[ \t]+/, "", line)
		reason = line != "" && line !~ /^(ok |RUN |FAIL |TAP version|1\.\.)/ &&
			 line !~ /Test (failed at step|terminated by)/
		if (pending != "") {
			flush(hashed && reason ? substr(line, 1, 240) : "")
		}
		if (line ~ /^not ok/) {
			if (expect != "")
				why = substr(expect (expect_log != "" ? " / " expect_log : ""), 1, 240)
			if (why != "")
				print line " <- " why
			else
				pending = line
			why = expect = expect_log = ""
			after = 1
		} else if (line ~ /^(ok |RUN )/) {
			why = expect = expect_log = ""
			after = 0
		} else if (reason && !after) {
			why = substr(line, 1, 240)
			# the first failed assertion and the TH_LOG right after it
			if (expect != "" && !expect_seen_log) {
				expect_log = line
				expect_seen_log = 1
			}
			if (expect == "" && line ~ /:[0-9]+:[^:]*:Expected /) {
				expect = line
				expect_seen_log = 0
			}
		}
	}
	END { flush("") }
	' "$1"
}

tp=0 tf=0 ts=0 failed_files=()
if [ ${#files[@]} -eq 0 ]; then
	echo "tap-summary: no *.tap files in $logdir"
	tf=1
fi
for f in "${files[@]}"; do
	name=$(basename "$f" .tap)
	out=$(count_file "$f")
	read -r p fl s <<<"${out%%$'\n'*}"
	echo "$name: $p passed, $fl failed, $s skipped"
	# notes: why something counted as failed beyond a "not ok" line
	while IFS= read -r n; do
		echo "  $name: $n"
	done < <(tail -n +2 <<<"$out")
	tp=$((tp + p)) tf=$((tf + fl)) ts=$((ts + s))
	[ "$fl" -eq 0 ] || failed_files+=("$f")
done
# The failures last, just above the totals, where a log's tail shows them.
nf=0
for f in "${failed_files[@]}"; do
	lines=$(failures "$f")
	# a failure counted by a rule (a short plan, an exit status) has no
	# "not ok" line: its note is above
	[ -n "$lines" ] || lines="(no \"not ok\" line: see its notes above)"
	while IFS= read -r l; do
		nf=$((nf + 1))
		[ "$nf" -gt 12 ] || echo "failed: $(basename "$f" .tap): $l"
	done <<<"$lines"
done
[ "$nf" -le 12 ] || echo "failed: ... and $((nf - 12)) more, in the lines above"

echo "$tp passed, $tf failed, $ts skipped"
[ "$tf" -eq 0 ]
