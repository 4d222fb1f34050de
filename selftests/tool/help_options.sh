#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# TAP test: each pmuctl command's --help tells the truth about its parser.
# For info, list, stat, watch and check, the options the parser takes
# (the long names of the command's "struct option opts[]" and the letters
# of its getopt_long() string in user/tool_COMMAND.c) and the options
# "pmuctl COMMAND --help" shows (its synopsis, from "usage:" to the first
# blank line, and its option lines, "  -x, --name ..." or "      --name")
# must agree:
#   COMMAND_help_lists_every_option     every option the parser takes is
#       on an option line, its short and long forms together;
#   COMMAND_help_lists_no_other_option  every option an option line shows
#       is the parser's;
#   COMMAND_synopsis_shows_every_option every option but --help is in the
#       synopsis, by either form.
# And every command "pmuctl --help" lists answers its own --help (exit 0).
# Env: PMUCTL (default build/bin/pmuctl).
set -euo pipefail

cd "$(dirname "$0")/../.." || exit 1
. selftests/tap.sh

PMUCTL=${PMUCTL:-build/bin/pmuctl}
[ -x "$PMUCTL" ] || bail "no executable pmuctl at '$PMUCTL': make tests, or set PMUCTL"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cmds=$("$PMUCTL" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }')
[ -n "$cmds" ] || bail "pmuctl --help lists no command"

bad=
for c in $cmds; do
	"$PMUCTL" "$c" --help >/dev/null 2>&1 || bad="$bad $c"
done
if [ -z "$bad" ]; then ok every_listed_command_has_help; else not_ok every_listed_command_has_help "no help:$bad"; fi

for c in $cmds; do
	src=user/tool_$c.c
	[ -f "$src" ] || continue	# help: pmuctl.c's own
	# The parser: "LONG SHORT" per entry of opts[] (SHORT the letter its
	# val is when a printable one the getopt string has too, else "-").
	shorts=$(sed -n 's/.*getopt_long(argc, argv, "\([^"]*\)".*/\1/p' "$src" | tr -d '+:')
	awk '/static const struct option opts\[\] = \{/ { on = 1; next } on && /\};/ { exit }
	     on && /\{ "/ { n = split($0, f, ","); l = f[1]; v = f[4]
			    gsub(/[ \t{"]/, "", l); gsub(/[ \t}'\'']/, "", v)
			    print l, v }' "$src" |
	while read -r long val; do
		if [ ${#val} = 1 ] && [[ $shorts == *"$val"* ]]; then
			echo "$long $val"
		else
			echo "$long -"
		fi
	done | LC_ALL=C sort >"$tmp/parser"
	[ -s "$tmp/parser" ] || { not_ok "${c}_parser_found" "no opts[] in $src"; continue; }

	"$PMUCTL" "$c" --help >"$tmp/help"
	# Option lines: "  -x, --name" or "      --name" (or "  -x" alone).
	sed -n 's/^  \(-[A-Za-z]\), \(--[a-z][a-z-]*\).*/\2 \1/p; s/^      \(--[a-z][a-z-]*\).*/\1 -/p' "$tmp/help" |
		sed 's/^--//; s/ -\([A-Za-z]\)$/ \1/' | LC_ALL=C sort -u >"$tmp/lines"
	missing=$(LC_ALL=C comm -23 "$tmp/parser" "$tmp/lines" | tr '\n' ';')
	extra=$(LC_ALL=C comm -13 "$tmp/parser" "$tmp/lines" | tr '\n' ';')
	if [ -z "$missing" ]; then
		ok "${c}_help_lists_every_option"
	else
		not_ok "${c}_help_lists_every_option" "the parser takes, no option line shows (long short): $missing"
	fi
	if [ -z "$extra" ]; then
		ok "${c}_help_lists_no_other_option"
	else
		not_ok "${c}_help_lists_no_other_option" "an option line shows, the parser does not take: $extra"
	fi
	awk '/^usage:/ { on = 1 } on && /^$/ { exit } on' "$tmp/help" >"$tmp/synopsis"
	bad=
	while read -r long short; do
		[ "$long" = help ] && continue
		grep -q -- "--$long\b" "$tmp/synopsis" ||
			{ [ "$short" != - ] && grep -q -- "-$short\b" "$tmp/synopsis"; } ||
			bad="$bad --$long"
	done <"$tmp/parser"
	if [ -z "$bad" ]; then
		ok "${c}_synopsis_shows_every_option"
	else
		not_ok "${c}_synopsis_shows_every_option" "not in '$c --help''s usage lines:$bad" "$(cat "$tmp/synopsis")"
	fi
done
tap_end
