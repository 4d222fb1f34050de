#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/insn-prof.sh, the TCG plugin's kernel profile per function
# (make bench-prof), on made-up lines, any host:
#
#   blocks_go_to_the_symbol_at_or_below  a block at a symbol's address and
#       one inside it count for that symbol, one past the next symbol's
#       address for the next; module symbols keep "[module]"; most first,
#       with percentages and the total;
#   below_every_symbol_is_unknown        a block below the lowest text
#       symbol is "?"; data symbols (d, D, b) are not functions;
#   per_window                           -w 4 divides every count by 4;
#   top_limits_the_lines                 -n 1 prints one function and
#       the whole total;
#   no_profile_fails                     no "prof" line: exit 1, saying so.

here=$(cd "$(dirname "$0")" && pwd)
prof=$here/../../scripts/insn-prof.sh
# shellcheck source=selftests/tap.sh
. "$here/../../selftests/tap.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/syms" <<'SYMS'
ffffffff81000000 T _stext
ffffffff81000100 T do_syscall_64
ffffffff81000180 t helper
ffffffff810001c0 D some_data
ffffffffc0001000 t pmuctl_event_classify	[pmuctl]
ffffffffc0001200 T pmuctl_ioctl	[pmuctl]
SYMS
cat >"$tmp/prof" <<'PROF'
stop 8 0 10 100 2 0 0 0
prof ffffffff81000100 40
prof ffffffff81000120 20
prof ffffffff81000180 8
prof ffffffff810001c8 4
prof ffffffffc0001000 100
prof ffffffffc00011ff 8
prof ffffffffc0001200 12
prof ffffffff80ffff00 8
end 10 100
PROF

bash "$prof" "$tmp/prof" "$tmp/syms" >"$tmp/out" 2>&1
rc=$?
[ $rc = 0 ] &&
	grep -Eq '^ +108\.0 +54\.0%  pmuctl_event_classify \[pmuctl\]$' "$tmp/out" &&
	grep -Eq '^ +60\.0 +30\.0%  do_syscall_64$' "$tmp/out" &&
	grep -Eq '^ +12\.0 +6\.0%  pmuctl_ioctl \[pmuctl\]$' "$tmp/out" &&
	[ "$(head -n 1 "$tmp/out" | awk '{ print $3 }')" = pmuctl_event_classify ] &&
	grep -Eq '^ +200\.0 total$' "$tmp/out"
report $(($? == 0)) blocks_go_to_the_symbol_at_or_below "exit $rc" "$(cat "$tmp/out")"

# helper (at 0x180) takes 8 and, some_data being data, the block at 0x1c8.
grep -Eq '^ +12\.0 +6\.0%  helper$' "$tmp/out" &&
	grep -Eq '^ +8\.0 +4\.0%  \?$' "$tmp/out" &&
	! grep -q some_data "$tmp/out"
report $(($? == 0)) below_every_symbol_is_unknown "$(cat "$tmp/out")"

bash "$prof" -w 4 "$tmp/prof" "$tmp/syms" >"$tmp/out" 2>&1
grep -Eq '^ +27\.0 +54\.0%  pmuctl_event_classify \[pmuctl\]$' "$tmp/out" &&
	grep -Eq '^ +50\.0 total$' "$tmp/out"
report $(($? == 0)) per_window "$(cat "$tmp/out")"

bash "$prof" -n 1 "$tmp/prof" "$tmp/syms" >"$tmp/out" 2>&1
[ "$(wc -l <"$tmp/out")" = 2 ] && grep -Eq '^ +200\.0 total$' "$tmp/out"
report $(($? == 0)) top_limits_the_lines "$(cat "$tmp/out")"

grep -v '^prof ' "$tmp/prof" >"$tmp/noprof"
bash "$prof" "$tmp/noprof" "$tmp/syms" >"$tmp/out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q 'no profile lines' "$tmp/out"
report $(($? == 0)) no_profile_fails "exit $rc" "$(cat "$tmp/out")"

tap_end
