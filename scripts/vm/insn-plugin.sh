#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build build/vm/insn-count.so, the TCG plugin scripts/vm/insn-count.c,
# against the qemu-plugin.h of Debian's QEMU source: the orig tarball
# scripts/vm/qemu.sh keeps in its cache (run first when it is missing,
# which builds the patched QEMU if that is not cached either).  The header
# is extracted into build/vm/qemu-plugin/ (ignored), never committed.
# Prints the plugin's path.
#
# usage: scripts/vm/insn-plugin.sh
# Exit 0 and the path; 1 and one line "insn-plugin.sh: WHY".
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
root=${PMUCTL_CACHE:-/var/cache/pmuctl}
out=$top/build/vm/insn-count.so
inc=$top/build/vm/qemu-plugin

die() {
	echo "insn-plugin.sh: $*" >&2
	exit 1
}

ver=$(dpkg-query -W -f '${source:Version}' qemu-system-x86 2>/dev/null) ||
	die "qemu-system-x86 is not installed (scripts/deps.sh vm)"
up=${ver#*:}
up=${up%-*}
tarball=$root/src/qemu_$up.orig.tar.xz
if [ ! -f "$tarball" ]; then
	bash "$here/qemu.sh" >/dev/null || die "scripts/vm/qemu.sh failed: no QEMU source"
	[ -f "$tarball" ] || die "no $tarball after scripts/vm/qemu.sh"
fi
if [ ! -f "$inc/qemu-plugin.h" ] || [ "$tarball" -nt "$inc/qemu-plugin.h" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	tar -xJf "$tarball" -C "$tmp" --wildcards '*/include/qemu/qemu-plugin.h' ||
		die "no include/qemu/qemu-plugin.h in $tarball"
	mkdir -p "$inc"
	install -m 0644 "$tmp"/*/include/qemu/qemu-plugin.h "$inc/qemu-plugin.h"
fi
if [ ! -f "$out" ] || [ "$here/insn-count.c" -nt "$out" ] || [ "$inc/qemu-plugin.h" -nt "$out" ]; then
	# glib's headers are not needed: the plugin API is plain C.
	${CC:-gcc} -shared -fPIC -O2 -Wall -Wextra -Werror -I"$inc" \
		-o "$out.tmp" "$here/insn-count.c" || die "cannot compile insn-count.c"
	mv "$out.tmp" "$out"
fi
echo "$out"
