#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# TAP test of scripts/tap-summary.sh, the counter behind make check's last
# line: the counts of passed, failed and skipped results across files, the
# rules that count a missing result or a bad exit status as a failure, and
# the "failed:" lines above the totals that name each failed result and
# why, where the tail of a CI log shows them.
set -euo pipefail

cd "$(dirname "$0")/../.." || exit 1
. selftests/tap.sh

d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT

# A kselftest-harness program with two failures and one skip; the second
# failure's assertion (with its TH_LOG) came before later diagnostics.
cat >"$d/harness.tap" <<'T'
TAP version 13
1..4
# Starting 3 tests from 1 test cases.
#  RUN           g.first ...
#            OK  g.first
ok 1 g.first
#  RUN           g.second ...
# t.c:12:second:Expected 1 (1) == x (0)
# second: Test terminated by assertion
#          FAIL  g.second
not ok 2 g.second
ok 3 g.third # SKIP no device
#  RUN           g.fourth ...
# t.c:20:fourth:Expected 0 (0) == r (1)
# t.c:21:fourth:RESET did not wait
# t.c:30:fourth:THREADS: done in 0.024 s
#          FAIL  g.fourth
not ok 4 g.fourth
# check.sh: exit=1
T
# A selftests/tap.sh script: the reason follows the result.
cat >"$d/shell.tap" <<'T'
TAP version 13
1..2
ok 1 - a
not ok 2 - b
# want 3, got 4
# check.sh: exit=1
T
# Two failures in a row, each with its diagnostics after it (the VM rig's
# guest TAP): the second one's reason is its own, not the first one's tail.
cat >"$d/rig.tap" <<'T'
TAP version 13
1..2
not ok 1 ran_to_end
# QEMU exited 0: the guest panicked
# last test started: @@TEST t@@
not ok 2 console_clean
# 1 matching line(s), first: Kernel panic - not syncing: hung_task
T
# Two results of a plan of 3 and no "not ok": counted by the plan rule.
printf 'TAP version 13\n1..3\nok 1 x\nok 2 y\n# check.sh: exit=0\n' >"$d/short.tap"
printf 'TAP version 13\n1..1\nok 1 z\n# check.sh: exit=0\n' >"$d/pass.tap"

rc=0
out=$(bash scripts/tap-summary.sh "$d") || rc=$?

report "$([ "$(tail -n 1 <<<"$out")" = "5 passed, 6 failed, 1 skipped" ] && echo 1)" \
	totals_are_the_last_line "$out"
report "$([ "$rc" -ne 0 ] && echo 1)" exit_status_is_non_zero_on_failure "rc=$rc"
short_counted() {
	grep -qx 'short: 2 passed, 1 failed, 0 skipped' <<<"$out" &&
		grep -q '^  short: depth 0: 1 result(s) missing from plan 1..3' <<<"$out"
}
report "$(short_counted && echo 1)" missing_results_count_as_failed "$out"
# The reasons: the harness's first failed assertion before the result
# with its TH_LOG (not its FAIL marker, nor a later diagnostic), the shell
# test's diagnostic after it, and a pointer to the notes where no "not ok"
# line exists.
want=$(cat <<'W'
failed: harness: not ok 2 g.second <- t.c:12:second:Expected 1 (1) == x (0)
failed: harness: not ok 4 g.fourth <- t.c:20:fourth:Expected 0 (0) == r (1) / t.c:21:fourth:RESET did not wait
failed: rig: not ok 1 ran_to_end <- QEMU exited 0: the guest panicked
failed: rig: not ok 2 console_clean <- 1 matching line(s), first: Kernel panic - not syncing: hung_task
failed: shell: not ok 2 - b <- want 3, got 4
failed: short: (no "not ok" line: see its notes above)
5 passed, 6 failed, 1 skipped
W
)
report "$([ "$(tail -n 7 <<<"$out")" = "$want" ] && echo 1)" \
	failures_are_named_with_their_reason_above_the_totals \
	"got:" "$(tail -n 7 <<<"$out")"

rm "$d"/harness.tap "$d"/rig.tap "$d"/shell.tap "$d"/short.tap
rc=0
out=$(bash scripts/tap-summary.sh "$d") || rc=$?
report "$([ "$rc" -eq 0 ] && [ "$out" = $'pass: 1 passed, 0 failed, 0 skipped\n1 passed, 0 failed, 0 skipped' ] && echo 1)" \
	no_failed_lines_when_all_pass "$out"
tap_end
