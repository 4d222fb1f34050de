#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# TAP test of "make help": it lists every target a user can call, one line
# each, and nothing else.  The targets are taken from make's own database
# of this Makefile and mk/*.mk ("make -pq"): every name in .PHONY, and
# every rule whose target is a plain word (no "/" or "."), less FORCE (a
# prerequisite that makes generated files be looked at, not a target to
# call).  A target without its "#:" line above the rule fails here.
set -euo pipefail

cd "$(dirname "$0")/../.." || exit 1
. selftests/tap.sh

make=${MAKE:-make}
mk() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "$make" --no-print-directory "$@" </dev/null
}

# -q with the special target .DEFAULT: read everything, run nothing.
db=$(mk -pq .DEFAULT 2>/dev/null || true)
[ -n "$db" ] || bail "make -pq printed no database"
targets=$(awk '
	/^\.PHONY: / { for (i = 2; i <= NF; i++) print $i; next }
	/^# Not a target/ { skip = 1; next }
	/^[A-Za-z0-9_-]+:/ && !skip { t = $0; sub(/:.*/, "", t); print t }
	{ skip = 0 }' <<<"$db" | grep -vx FORCE | LC_ALL=C sort -u)
[ -n "$targets" ] || bail "no target in make's database"
echo "# targets: $(tr '\n' ' ' <<<"$targets")"

if ! help=$(mk -s help 2>&1); then
	not_ok make_help_runs "$help"
	tap_end
	exit 1
fi
ok make_help_runs

# Lines "  TARGET  TEXT" after the first.
listed=$(sed -n '2,$p' <<<"$help" | awk '{ print $1 }' | LC_ALL=C sort)
missing=$(LC_ALL=C comm -23 <(echo "$targets") <(echo "$listed"))
extra=$(LC_ALL=C comm -13 <(echo "$targets") <(echo "$listed"))
if [ -z "$missing" ] && [ -z "$extra" ]; then
	ok make_help_lists_every_target
else
	not_ok make_help_lists_every_target \
		"no help line (add '#: WHAT IT DOES' right above the rule): $(tr '\n' ' ' <<<"$missing")" \
		"listed but no target: $(tr '\n' ' ' <<<"$extra")"
fi

dup=$(uniq -d <<<"$listed")
bad=$(sed -n '2,$p' <<<"$help" | awk 'NF < 2 || length > 80 || !/^  [^ ]/')
if [ -z "$dup" ] && [ -z "$bad" ]; then
	ok make_help_one_line_each
else
	not_ok make_help_one_line_each "listed twice: $dup" \
		"not '  TARGET  TEXT' within 80 columns:" "$bad"
fi

tap_end
