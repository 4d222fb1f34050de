#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# TAP test of scripts/kmod-layers.sh, the check that pmuctl.ko's files
# call only lower layers (make check runs it on the module's objects in
# scripts/kbuild-check.sh): on small objects built here with the layer
# table of kmod/regs.h, a call down passes, and a call up, a call across
# one layer and an include of a higher layer's header each fail it.
set -euo pipefail

cd "$(dirname "$0")/../.." || exit 1
. selftests/tap.sh

cc=${CC:-gcc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# tree NAME FILE:BODY...: a fake module tree in $tmp/NAME: kmod/regs.h
# (the real one, for its layer table) and kmod/FILE.c holding BODY for
# each argument, compiled to kmod/FILE.o; prints the tree's path.
tree() {
	local d=$tmp/$1 f
	shift
	mkdir -p "$d/kmod/core"
	cp kmod/regs.h "$d/kmod/"
	for f in "$@"; do
		printf '%s\n' "${f#*:}" >"$d/kmod/${f%%:*}.c"
		"$cc" -c -o "$d/kmod/${f%%:*}.o" "$d/kmod/${f%%:*}.c"
	done
	echo "$d"
}

layers() {	# DIR: the script's TAP
	KMOD_SRC=$1/kmod bash scripts/kmod-layers.sh "$1" 2>&1 || true
}

down=$(tree down \
	'param:int param_fn(void) { return 1; }' \
	'grant:int param_fn(void); int grant_fn(void) { return param_fn(); }')
out=$(layers "$down")
report "$(grep -q '^ok 1 kmod_call_layers' <<<"$out" && echo 1)" \
	"a call down passes" "$out"
report "$(grep -q '^# edge: grant -> param (param_fn)' <<<"$out" && echo 1)" \
	"the call is reported as an edge" "$out"

up=$(tree up \
	'param:int grant_fn(void); int param_fn(void) { return grant_fn(); }' \
	'grant:int grant_fn(void) { return 2; }')
out=$(layers "$up")
report "$(grep -q '^not ok 1 kmod_call_layers' <<<"$out" &&
	grep -q '^# param calls grant (grant_fn): not a lower layer' <<<"$out" && echo 1)" \
	"a call up fails, naming both files and the symbol" "$out"

# grant.c and state.c share a line of the table, one layer: a call between
# them fails as a call up does (two files of one layer could call each
# other in a circle).
across=$(tree across \
	'task:int task_fn(void) { return 3; }' \
	'session:int task_fn(void); int session_fn(void) { return task_fn(); }' \
	'grant:int state_fn(void); int grant_fn(void) { return state_fn(); }' \
	'state:int state_fn(void) { return 4; }')
out=$(layers "$across")
report "$(grep -q '^# grant calls state (state_fn): not a lower layer' <<<"$out" &&
	! grep -q '^# session calls task' <<<"$out" && echo 1)" \
	"a call between two files of one layer fails; a call down beside it does not" "$out"

inc=$(tree include 'param:int param_fn(void) { return 1; }')
printf '#include "pmuctl.h"\n' >>"$inc/kmod/param.c"
out=$(layers "$inc")
report "$(grep -q '^not ok 2 kmod_include_layers' <<<"$out" &&
	grep -q '^# param.c includes pmuctl.h' <<<"$out" && echo 1)" \
	"an include of a higher layer's header fails" "$out"

stray=$(tree stray 'nowhere:int nowhere_fn(void) { return 5; }')
out=$(layers "$stray")
report "$(grep -q '^# nowhere: not in the layer table' <<<"$out" &&
	grep -q '^not ok 1' <<<"$out" && echo 1)" \
	"an object missing from the table fails" "$out"

tap_end
