#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# TAP test of plain "make" as a newcomer runs it: a fresh "git clone" of
# this tree's HEAD (committed work only: uncommitted changes are not in
# it), no build/ksrc (no kselftest harness), KSRC, KDIR and the make
# variables of a calling make unset, then "make -j2":
#  - it exits 0 and leaves build/bin/pmuctl (which runs) and the library,
#    shared (with its soname and development links) and static;
#  - it built no test: no build/tests/, build/vmtests/;
#  - pmuctl.ko: with the running kernel's build tree
#    (/lib/modules/$(uname -r)/build) it is built in build/kmod/, else one
#    line says it is skipped and why, and there is none;
#  - the other way round too, by "make module KDIR=...": a missing KDIR
#    is skipped saying so; an installed kernel's tree (scripts/kernels.sh)
#    (the newest) builds build/kmod/pmuctl.ko for it, with CC=no-such-cc on
#    the command line, which must not reach kbuild (mk/module.mk).
# About 6 s on 2 cores (the module build is 3 of them).
set -euo pipefail

cd "$(dirname "$0")/../.." || exit 1
. selftests/tap.sh

command -v git >/dev/null || bail "no git: scripts/deps.sh git"
if ! out=$(git rev-parse --verify HEAD 2>&1); then
	skip make_on_a_fresh_clone "not a git checkout with a commit, nothing to clone: $out"
	tap_end
	exit 0
fi
make=${MAKE:-make}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Without what a calling make (make check) or the user's shell passes on.
mk() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u KSRC -u KDIR -u CFLAGS \
		"$make" --no-print-directory "$@" </dev/null
}

clone=$tmp/pmuctl
if ! out=$(git clone -q --no-hardlinks . "$clone" 2>&1); then
	not_ok fresh_clone "git clone . failed:" "$out"
	tap_end
	exit 1
fi
echo "# cloned $(git -C "$clone" log --oneline -1)"

kver=$(uname -r)
run_kdir=/lib/modules/$kver/build
if (cd "$clone" && mk -j2) >"$tmp/make.log" 2>&1; then
	ok make_exits_0_on_a_fresh_clone
else
	not_ok make_exits_0_on_a_fresh_clone "make -j2 in a fresh clone failed:" \
		"$(tail -n 30 "$tmp/make.log")"
fi

d=()
for f in build/bin/pmuctl build/lib/libpmuctl.so.1.0.0 build/lib/libpmuctl.a; do
	[ -f "$clone/$f" ] && [ ! -L "$clone/$f" ] || d+=("no file $f")
done
for l in build/lib/libpmuctl.so.1 build/lib/libpmuctl.so; do
	[ "$(readlink "$clone/$l" 2>/dev/null)" = libpmuctl.so.1.0.0 ] ||
		d+=("$l is not a link to libpmuctl.so.1.0.0")
done
if [ -x "$clone/build/bin/pmuctl" ] &&
   ! out=$("$clone/build/bin/pmuctl" --help 2>&1); then
	d+=("build/bin/pmuctl --help failed: $out")
fi
report "$([ ${#d[@]} = 0 ] && echo 1)" make_leaves_the_tool_and_the_library "${d[@]}"

d=()
for t in build/tests build/vmtests build/vmtests-pmu build/ksrc; do
	[ ! -e "$clone/$t" ] || d+=("make made $t")
done
report "$([ ${#d[@]} = 0 ] && echo 1)" make_builds_no_test "${d[@]}"

# module_line LOG: pmuctl.ko's line of a make's output.
module_line() {
	grep '^pmuctl\.ko: ' "$1" || true
}

# built KDIR LOG NAME: make built pmuctl.ko for KDIR's kernel and said so.
built() {
	local line rel vm

	line=$(module_line "$2")
	rel=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' "$1/include/generated/utsrelease.h")
	vm=$(modinfo -F vermagic "$clone/build/kmod/pmuctl.ko" 2>/dev/null || true)
	if [ "$line" = "pmuctl.ko: build/kmod/pmuctl.ko for kernel $rel" ] &&
	   [ "${vm%% *}" = "$rel" ]; then
		ok "$3"
	else
		not_ok "$3" "want 'pmuctl.ko: build/kmod/pmuctl.ko for kernel $rel'," \
			"a module whose vermagic starts with $rel" "line: $line" \
			"vermagic: $vm" "$(tail -n 20 "$2")"
	fi
}

# skipped KDIR LOG NAME: make said pmuctl.ko is skipped for KDIR and made none.
skipped() {
	local line

	line=$(module_line "$2")
	if [[ $line == "pmuctl.ko: skipped: no kernel build tree at $1 "* ]] &&
	   [ ! -e "$clone/build/kmod/pmuctl.ko" ]; then
		ok "$3"
	else
		not_ok "$3" "want one line 'pmuctl.ko: skipped: no kernel build tree at $1 (...)' and no build/kmod/pmuctl.ko" \
			"line: $line" "build/kmod: $(find "$clone/build/kmod" -maxdepth 1 2>&1 | tr "\n" " ")"
	fi
}

if [ -d "$run_kdir" ]; then
	built "$run_kdir" "$tmp/make.log" make_builds_pmuctl_ko_for_the_running_kernel
else
	skipped "$run_kdir" "$tmp/make.log" make_skips_pmuctl_ko_without_headers_saying_so
fi

# The other path, with KDIR.
rm -rf "$clone/build/kmod"
if [ -d "$run_kdir" ]; then
	(cd "$clone" && mk module KDIR="$tmp/no-kernel") >"$tmp/module.log" 2>&1 || true
	skipped "$tmp/no-kernel" "$tmp/module.log" module_skipped_without_kdir_saying_so
else
	other=
	# The newest: 6.12's build takes 3 s here, 6.1's 7.
	for k in $(bash scripts/kernels.sh installed 2>/dev/null | sort -rV); do
		[ -d "/lib/modules/$k/build" ] && other=/lib/modules/$k/build && break
	done
	if [ -z "$other" ]; then
		skip module_builds_for_kdir "no kernel build tree in /lib/modules (scripts/deps.sh kernel)"
	else
		(cd "$clone" && mk -j2 module KDIR="$other" CC=no-such-cc) \
			>"$tmp/module.log" 2>&1 || true
		built "$other" "$tmp/module.log" module_builds_for_kdir_with_kernels_compiler
	fi
fi

tap_end
