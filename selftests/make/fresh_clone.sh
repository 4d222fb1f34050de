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
#  - it built build/kmod/pmuctl.ko for the kernel whose build tree it
#    had, and said so: the running kernel's (/lib/modules/$(uname -r)/build)
#    when it is there, else, so that the build is tested on this host too,
#    the newest installed kernel's (scripts/kernels.sh) by KDIR=;
#  - LD=no-such-ld on that make's command line did not reach kbuild
#    (mk/module.mk: kbuild builds with the kernel's tools; our build does
#    not use LD);
#  - without a kernel build tree (the running kernel's when it has none,
#    else KDIR=a missing directory), make says in one line that pmuctl.ko
#    is skipped and why, makes none, and exits 0.
# About 5 s on 2 idle cores: the module builds beside the tool (3 s each).
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
kdir_args=()
if [ -d "$run_kdir" ]; then
	kdir=$run_kdir
else
	# The newest: 6.12's module builds in 3 s here, 6.1's in 7.
	kdir=
	for k in $(bash scripts/kernels.sh installed 2>/dev/null | sort -rV); do
		[ -d "/lib/modules/$k/build" ] && kdir=/lib/modules/$k/build && break
	done
	[ -z "$kdir" ] || kdir_args=(KDIR="$kdir")
fi
if (cd "$clone" && mk -j2 "${kdir_args[@]}" LD=no-such-ld) >"$tmp/make.log" 2>&1; then
	ok make_exits_0_on_a_fresh_clone
else
	not_ok make_exits_0_on_a_fresh_clone "make -j2 ${kdir_args[*]} LD=no-such-ld in a fresh clone failed:" \
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

if [ -z "$kdir" ]; then
	skip make_builds_pmuctl_ko "no kernel build tree in /lib/modules (scripts/deps.sh kernel)"
else
	line=$(module_line "$tmp/make.log")
	rel=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' "$kdir/include/generated/utsrelease.h")
	vm=$(modinfo -F vermagic "$clone/build/kmod/pmuctl.ko" 2>/dev/null || true)
	if [ "$line" = "pmuctl.ko: build/kmod/pmuctl.ko for kernel $rel" ] &&
	   [ "${vm%% *}" = "$rel" ]; then
		ok "make_builds_pmuctl_ko_for_$rel"
	else
		not_ok "make_builds_pmuctl_ko_for_$rel" \
			"want 'pmuctl.ko: build/kmod/pmuctl.ko for kernel $rel'," \
			"and a module whose vermagic starts with $rel" "line: $line" \
			"vermagic: $vm" "$(tail -n 20 "$tmp/make.log")"
	fi
fi

# No kernel build tree: make again (all else is up to date).
rm -rf "$clone/build/kmod"
if [ -d "$run_kdir" ]; then
	none=$tmp/no-kernel
	kdir_args=(KDIR="$none")
else
	none=$run_kdir
	kdir_args=()
fi
if (cd "$clone" && mk "${kdir_args[@]}") >"$tmp/make2.log" 2>&1; then
	rc=0
else
	rc=$?
fi
line=$(module_line "$tmp/make2.log")
if [ "$rc" = 0 ] && [[ $line == "pmuctl.ko: skipped: no kernel build tree at $none "* ]] &&
   [ ! -e "$clone/build/kmod/pmuctl.ko" ]; then
	ok make_skips_pmuctl_ko_without_kernel_tree_saying_so
else
	not_ok make_skips_pmuctl_ko_without_kernel_tree_saying_so \
		"want exit 0, one line 'pmuctl.ko: skipped: no kernel build tree at $none (...)', no build/kmod/pmuctl.ko" \
		"exit $rc, line: $line" "$(tail -n 20 "$tmp/make2.log")"
fi

tap_end
