#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# TAP test of the front page and doc/:
#   readme_is_short                 README.md has at most 250 lines;
#   readme_links_resolve            every doc/... link of README.md names a
#                                   file that exists;
#   every_doc_file_is_linked        every doc/*.md is linked from README.md;
#   doc_files_say_whom_they_are_for each doc/*.md opens with its title and
#                                   a paragraph starting "For ";
#   readme_library_example_builds   README.md's C example, put in a main(),
#                                   compiles and links against this tree's
#                                   libpmuctl (needs "make tests").
set -euo pipefail

cd "$(dirname "$0")/../.." || exit 1
. selftests/tap.sh

cc=${CC:-gcc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

n=$(wc -l <README.md)
if [ "$n" -le 250 ]; then ok readme_is_short; else not_ok readme_is_short "README.md has $n lines"; fi

bad=
for f in $(grep -o '(doc/[A-Za-z0-9_.-]*)' README.md | tr -d '()' | sort -u); do
	[ -f "$f" ] || bad="$bad $f"
done
if [ -z "$bad" ]; then ok readme_links_resolve; else not_ok readme_links_resolve "missing:$bad"; fi

bad=
for f in doc/*.md; do
	grep -q "($f)" README.md || bad="$bad $f"
done
if [ -z "$bad" ]; then ok every_doc_file_is_linked; else not_ok every_doc_file_is_linked "not linked from README.md:$bad"; fi

bad=
for f in doc/*.md; do
	{ head -n 1 "$f" | grep -q '^# ' && sed -n 3p "$f" | grep -q '^For '; } || bad="$bad $f"
done
if [ -z "$bad" ]; then ok doc_files_say_whom_they_are_for; else not_ok doc_files_say_whom_they_are_for "no '# Title', blank line, 'For ...':$bad"; fi

# The first ```c block of README.md, in a function.
{
	echo '#include <stdio.h>'
	awk '/^```c$/ { on = 1; next } on && /^```$/ { exit } on && /^#include/ { print }' README.md
	echo 'int main(void) {'
	awk '/^```c$/ { on = 1; next } on && /^```$/ { exit } on && !/^#include/ { print }' README.md
	echo 'return 0; }'
} >"$tmp/example.c"
if [ ! -f build/lib/libpmuctl.a ]; then
	skip readme_library_example_builds "no build/lib/libpmuctl.a: make tests"
elif grep -q pmuctl_open "$tmp/example.c" &&
     "$cc" -Wall -Wextra -Werror -std=gnu11 -Iuser -Iuapi -o "$tmp/example" "$tmp/example.c" \
	build/lib/libpmuctl.a -lpfm -lm >"$tmp/cc.log" 2>&1; then
	ok readme_library_example_builds
else
	not_ok readme_library_example_builds "$(cat "$tmp/cc.log")" "$(cat -n "$tmp/example.c")"
fi
tap_end
