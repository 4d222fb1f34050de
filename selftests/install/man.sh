#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# TAP test of the man pages (user/man/): each renders without a warning
# from man or groff and within 80 columns; every function of
# user/libpmuctl.h, exported or static inline, has a page or a .so link to
# the page whose NAME line lists it, and no page is left for a function
# that is gone; libpmuctl(3)'s example compiles; pmuctl(1) has a section
# per subcommand of the tool's --help, with every option its --help lists. Every
# SYNOPSIS declares its functions with the header's types (compiled after
# it); pmuctl_model_name(3) lists exactly the models the library names
# (needs build/lib/libpmuctl.a).
# Needs man-db and groff, and the tool (env PMUCTL, default
# build/bin/pmuctl, built by "make tests").

cd "$(dirname "$0")/../.." || exit 1
. selftests/tap.sh

PMUCTL=${PMUCTL:-build/bin/pmuctl}
hdr=user/libpmuctl.h
mandir=user/man
cc=${CC:-gcc}

command -v man >/dev/null || bail "no man: install man-db (scripts/deps.sh man-db)"
command -v groff >/dev/null || bail "no groff: install groff-base (scripts/deps.sh groff-base)"
[ -d "$mandir/man3" ] || bail "no $mandir/man3"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# render PAGE [WIDTH]: plain text of PAGE (relative to $mandir, where the
# .so requests resolve), warnings in $tmp/warn.
render() {
	(cd "$mandir" && LC_ALL=C MANWIDTH=${2:-80} MAN_KEEP_FORMATTING='' \
		man --warnings -l "$1" 2>"$tmp/warn" | col -bx)
}

# The target of a .so link, or the page itself.
resolve() {
	local first

	first=$(head -n 1 "$mandir/$1")
	case $first in
	'.so '*) echo "${first#.so }" ;;
	*) echo "$1" ;;
	esac
}

pages=$(cd "$mandir" && find man1 man3 -type f -name '*.[13]' | LC_ALL=C sort)
[ -n "$pages" ] || bail "no man pages in $mandir"

# --- every page renders cleanly -------------------------------------------

for page in $pages; do
	target=$(resolve "$page")
	if [ "$target" != "$page" ]; then
		# A link: one line, to a page that exists and is no link itself.
		if [ "$(wc -l <"$mandir/$page")" != 1 ] || [ ! -f "$mandir/$target" ] ||
		   [ "$(resolve "$target")" != "$target" ]; then
			not_ok "link_${page}" "$mandir/$page: '.so $target' must be its only line, to a page that is no link"
		else
			ok "link_${page}"
		fi
		continue
	fi
	d=()
	render "$page" >"$tmp/out"
	cp "$tmp/out" "$tmp/render.${page//\//_}"
	[ -s "$tmp/warn" ] && d+=("man --warnings:" "$(cat "$tmp/warn")")
	[ -s "$tmp/out" ] || d+=("man rendered nothing")
	(cd "$mandir" && groff -man -ww -z "$page") >"$tmp/gwarn" 2>&1
	[ -s "$tmp/gwarn" ] && d+=("groff -man -ww -z:" "$(cat "$tmp/gwarn")")
	wide=$(awk 'length($0) > 80 { printf "%d columns: %s\n", length($0), $0 }' "$tmp/out")
	[ -n "$wide" ] && d+=("lines wider than 80 columns at MANWIDTH=80:" "$wide")
	if [ ${#d[@]} = 0 ]; then
		ok "renders_${page}"
	else
		not_ok "renders_${page}" "${d[@]}"
	fi
done

# --- every function has its page --------------------------------------------

printf '#include "libpmuctl.h"\n' >"$tmp/h.c"
"$cc" -std=gnu11 -Iuapi -Iuser -fsyntax-only -aux-info "$tmp/aux" "$tmp/h.c" ||
	bail "$hdr does not compile"
awk '$2 ~ /(^|\/)libpmuctl\.h:[0-9]+:N[CF]$/ {
	line = $0; sub(/ \(.*/, "", line); n = split(line, w, /[ *]+/); print w[n]
}' "$tmp/aux" | LC_ALL=C sort -u >"$tmp/functions"
[ -s "$tmp/functions" ] || bail "found no function in $hdr"

# The names a page's NAME section lists, before its " \- ".
names_of() {
	awk '/^\.SH NAME/ { on = 1; next } /^\.SH/ { on = 0 } on' "$mandir/$1" |
		sed 's/ \\-.*//' | tr ' ,' '\n' | grep .
}

d=()
while read -r fn; do
	page=man3/$fn.3
	if [ ! -f "$mandir/$page" ]; then
		d+=("$fn (declared in $hdr) has no page: write $mandir/$page or make it '.so man3/OTHER.3'")
		continue
	fi
	target=$(resolve "$page")
	[ -f "$mandir/$target" ] || continue	# reported above
	names_of "$target" | grep -qx "$fn" ||
		d+=("$mandir/$target, the page of $fn, does not list $fn in its NAME section")
done <"$tmp/functions"
if [ ${#d[@]} = 0 ]; then
	ok every_function_has_a_page
else
	not_ok every_function_has_a_page "${d[@]}"
fi

d=()
for page in $pages; do
	case $page in man3/*) ;; *) continue ;; esac
	fn=$(basename "$page" .3)
	[ "$fn" = libpmuctl ] && continue
	grep -qx "$fn" "$tmp/functions" ||
		d+=("$mandir/$page: no function $fn in $hdr: remove the page or rename it")
done
if [ ${#d[@]} = 0 ]; then
	ok no_page_without_a_function
else
	not_ok no_page_without_a_function "${d[@]}"
fi

# --- every synopsis is the header's prototype --------------------------------

# Each page's SYNOPSIS as rendered above (no-fill: its lines are the
# page's own, joined here), its declarations of pmuctl_ functions put in a C file after
# the header: the compiler refuses one whose types differ from the
# header's ("conflicting types").  Every function of the header must be
# declared in some synopsis.
printf '#include <stdio.h>\n#include "libpmuctl.h"\n' >"$tmp/syn.c"
for page in $pages; do
	case $page in man3/*) ;; *) continue ;; esac
	[ "$(resolve "$page")" = "$page" ] || continue
	awk '/^SYNOPSIS/ { on = 1; next } /^[A-Z]/ { on = 0 } on' "$tmp/render.${page//\//_}" |
		grep -v '^ *#include' | tr '\n' ' ' | tr ';' '\n' |
		sed -n 's/^ *\(\(static \{1,\}inline \{1,\}\)\{0,1\}[A-Za-z_][A-Za-z0-9_ *]*[ *]pmuctl_[a-z0-9_]* *(.*)\) *$/\1;/p' |
		sed 's/  */ /g' | while IFS= read -r decl; do
			printf '#line 1 "%s"\n%s\n' "$page" "$decl"
		done >>"$tmp/syn.c"
done
grep -o 'pmuctl_[a-z0-9_]* *(' "$tmp/syn.c" | tr -d ' (' | LC_ALL=C sort -u >"$tmp/declared"
missing=$(LC_ALL=C comm -23 "$tmp/functions" "$tmp/declared" | tr '\n' ' ')
d=()
if ! "$cc" -std=gnu11 -Iuapi -Iuser -fsyntax-only "$tmp/syn.c" >"$tmp/syn.log" 2>&1; then
	d+=("a SYNOPSIS declares a function otherwise than $hdr:" "$(grep -E 'error|note' "$tmp/syn.log" | head -n 20)")
fi
[ -z "$missing" ] || d+=("in no page's SYNOPSIS: $missing")
if [ ${#d[@]} = 0 ]; then
	ok synopses_are_the_headers_prototypes
else
	not_ok synopses_are_the_headers_prototypes "${d[@]}"
fi

# --- pmuctl_model_name(3) lists the library's models -------------------------

# Every PMUCTL_MODEL_* of the uapi header, named by the library's one table
# (pmuctl_model_name()), is a ".TP / .B NAME" entry of the page, and the
# page has no other.
{
	printf '#include <stdio.h>\n#include "libpmuctl.h"\nint main(void) {\n'
	sed -n 's/^#define \(PMUCTL_MODEL_[A-Z_0-9]*\)[ \t].*/\tputs(pmuctl_model_name(\1));/p' uapi/linux/pmuctl.h
	printf '\treturn 0;\n}\n'
} >"$tmp/models.c"
d=()
if "$cc" -std=gnu11 -Iuapi -Iuser -o "$tmp/models" "$tmp/models.c" \
	build/lib/libpmuctl.a -lpfm -lm >"$tmp/models.log" 2>&1; then
	"$tmp/models" | LC_ALL=C sort -u >"$tmp/models.lib"
	awk '/^\.SH DESCRIPTION/ { on = 1 } /^\.SH RETURN/ { on = 0 }
	     on && prev == ".TP" && /^\.B / { print $2 } { prev = $0 }' \
		"$mandir/man3/pmuctl_model_name.3" | LC_ALL=C sort -u >"$tmp/models.page"
	cmp -s "$tmp/models.lib" "$tmp/models.page" ||
		d+=("the library names: $(tr '\n' ' ' <"$tmp/models.lib")" \
		    "pmuctl_model_name(3) lists: $(tr '\n' ' ' <"$tmp/models.page")")
else
	d+=("cannot build the models' list:" "$(cat "$tmp/models.log")")
fi
if [ ${#d[@]} = 0 ]; then
	ok model_name_page_lists_every_model
else
	not_ok model_name_page_lists_every_model "${d[@]}"
fi

# --- libpmuctl(3)'s example compiles ----------------------------------------

# The roff escapes the example uses become C again; any other escape is
# reported (this extraction would mangle it).
awk '/^\.SH EXAMPLES/ { ex = 1 } ex && /^\.EE/ { exit } ex && on { print } ex && /^\.EX/ { on = 1 }' \
	"$mandir/man3/libpmuctl.3" >"$tmp/example.roff"
if grep -n '\\[^e-]' "$tmp/example.roff" >"$tmp/esc"; then
	not_ok libpmuctl_example_compiles \
		"man3/libpmuctl.3 EXAMPLES uses escapes this test does not undo:" "$(cat "$tmp/esc")"
elif [ ! -s "$tmp/example.roff" ]; then
	not_ok libpmuctl_example_compiles "man3/libpmuctl.3 has no .EX block under EXAMPLES"
else
	sed -e 's/\\-/-/g' -e 's/\\e/\\/g' "$tmp/example.roff" >"$tmp/example.c"
	check libpmuctl_example_compiles "$cc" -std=gnu11 -Wall -Wextra -Werror \
		-Iuapi -Iuser -c -o "$tmp/example.o" "$tmp/example.c"
fi

# --- pmuctl(1) follows the tool ----------------------------------------------

if [ ! -x "$PMUCTL" ]; then
	not_ok pmuctl_1_covers_the_tool "no executable $PMUCTL: build it (make tests) or set PMUCTL"
elif [ ! -f "$mandir/man1/pmuctl.1" ]; then
	not_ok pmuctl_1_covers_the_tool "no $mandir/man1/pmuctl.1"
else
	render man1/pmuctl.1 1000 >"$tmp/pmuctl.txt"
	"$PMUCTL" --help >"$tmp/main_help" 2>&1
	cmds=$(awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }' \
		"$tmp/main_help")
	[ -n "$cmds" ] || not_ok pmuctl_1_covers_the_tool "found no command in '$PMUCTL --help':" \
		"$(cat "$tmp/main_help")"
	for c in $cmds; do
		# The subsection: from its "pmuctl CMD" heading to the next heading.
		awk -v c="$c" '
			/^   [^ ]/ || /^[^ ]/ { on = ($0 ~ ("^   pmuctl " c "( |$)")) }
			on' "$tmp/pmuctl.txt" >"$tmp/sec"
		if [ ! -s "$tmp/sec" ]; then
			not_ok "pmuctl_1_documents_${c}" \
				"$mandir/man1/pmuctl.1 has no subsection 'pmuctl $c' (.SS \"pmuctl $c ...\")"
			continue
		fi
		d=()
		"$PMUCTL" "$c" --help >"$tmp/help" 2>&1
		for o in $(grep -E '^  +-' "$tmp/help" | grep -oE -- '(^|[ ,])--?[a-zA-Z][a-zA-Z-]*' |
			   tr -d ' ,' | LC_ALL=C sort -u); do
			grep -qE -- "(^|[^a-zA-Z-])$o([^a-zA-Z-]|$)" "$tmp/sec" ||
				d+=("option $o of 'pmuctl $c --help' is not in pmuctl(1)'s 'pmuctl $c' subsection")
		done
		if [ ${#d[@]} = 0 ]; then
			ok "pmuctl_1_documents_${c}"
		else
			not_ok "pmuctl_1_documents_${c}" "${d[@]}"
		fi
	done
	d=()
	for s in 'EXIT STATUS' ENVIRONMENT FILES; do
		grep -qx "$s" "$tmp/pmuctl.txt" || d+=("no section $s")
	done
	for w in PMUCTL_DEVICE /dev/pmuctl 'register model'; do
		grep -qF -- "$w" "$tmp/pmuctl.txt" || d+=("'$w' is not mentioned")
	done
	if [ ${#d[@]} = 0 ]; then
		ok pmuctl_1_has_exit_status_environment_files
	else
		not_ok pmuctl_1_has_exit_status_environment_files "${d[@]}"
	fi
fi

tap_end
