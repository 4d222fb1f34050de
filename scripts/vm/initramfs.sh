#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the rig's initramfs: a gzip'd newc cpio holding busybox-static
# (/bin/busybox and one symlink per applet), /bin/vm-exit (built here from
# scripts/vm/vm-exit.c), /init (scripts/vm/init), the given modules at
# /NAME.ko, the given test programs in /tests/ (run in name order) and the
# given extra programs in /bin/ (tools the tests call, e.g. pmuctl), and
# with -K Debian's kmod as /usr/bin/kmod with /usr/sbin/depmod and
# /usr/sbin/modprobe linked to it, as Debian installs them.
#
# usage: scripts/vm/initramfs.sh -o OUT.cpio.gz [-m MODULE.ko]... [-t PROG]...
#                                [-x PROG]... [-K]
#
# Test programs must run without a libc: static ELF binaries or busybox sh
# scripts.  An extra program (-x) may be dynamic: it brings its loader and
# libraries (ldd) at their own paths (make bench's LIKWID program, linked
# with Debian's liblikwid).  So does kmod (-K), 8 MB that make the guest boot about
# 1.5 s later under TCG, so only the guests that run the autoload test
# carry it (scripts/vm/run.sh -K).  It is there for the autoload test
# (selftests/device/autoload_test.sh): its libkmod is what udev's kmod
# builtin matches a modalias with.  busybox's modprobe cannot stand in: it
# cuts the name it probes to 63 characters (MODULE_NAME_LEN) before it
# matches aliases, and a CPU modalias lists every feature (hundreds).
# /dev/console comes from the kernel's built-in initramfs, which the cpio
# is unpacked over.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
busybox=${BUSYBOX:-/bin/busybox}
kmod=${KMOD:-/usr/bin/kmod}
vmexit=$top/build/vm/vm-exit

usage() {
	echo "usage: initramfs.sh -o OUT.cpio.gz [-m MODULE.ko]... [-t PROG]... [-x PROG]... [-K]" >&2
	exit 2
}

out='' mods=() tests=() bins=() with_kmod=false
while getopts o:m:t:x:K opt; do
	case $opt in
	o) out=$OPTARG ;;
	m) mods+=("$OPTARG") ;;
	t) tests+=("$OPTARG") ;;
	x) bins+=("$OPTARG") ;;
	K) with_kmod=true ;;
	*) usage ;;
	esac
done
if [ -z "$out" ] || [ $OPTIND -le $# ]; then
	usage
fi

if ! "$busybox" --list >/dev/null 2>&1 ||
   readelf -l "$busybox" 2>/dev/null | grep -q INTERP; then
	echo "initramfs.sh: $busybox is not a static busybox (apt-get install busybox-static)" >&2
	exit 1
fi

if $with_kmod && [ ! -x "$kmod" ]; then
	echo "initramfs.sh: no $kmod (apt-get install kmod)" >&2
	exit 1
fi

if [ ! -x "$vmexit" ] || [ "$here/vm-exit.c" -nt "$vmexit" ]; then
	mkdir -p "$(dirname "$vmexit")"
	${CC:-gcc} -static -O2 -Wall -Wextra -Werror -o "$vmexit" "$here/vm-exit.c"
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,dev,proc,sys,tmp,tests}
install -m 0755 "$busybox" "$stage/bin/busybox"
for a in $("$busybox" --list); do
	[ "$a" = busybox ] || ln -s busybox "$stage/bin/$a"
done
install -m 0755 "$vmexit" "$stage/bin/vm-exit"
# with_libs PROG: its loader and libraries, ldd's "=> PATH"s and the
# loader's path, at their own paths.
with_libs() {
	local l

	for l in $(ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
		mkdir -p "$stage$(dirname "$l")"
		install -m 0755 "$(readlink -f "$l")" "$stage$l"
	done
}
if $with_kmod; then
	mkdir -p "$stage/usr/bin" "$stage/usr/sbin"
	install -m 0755 "$kmod" "$stage/usr/bin/kmod"
	ln -s ../bin/kmod "$stage/usr/sbin/depmod"
	ln -s ../bin/kmod "$stage/usr/sbin/modprobe"
	with_libs "$kmod"
fi
install -m 0755 "$here/init" "$stage/init"
for m in "${mods[@]}"; do
	install -m 0644 "$m" "$stage/$(basename "$m")"
done
# static_prog PROG: refuse a program the guest cannot run (it has no libc).
static_prog() {
	if readelf -l "$1" 2>/dev/null | grep -q INTERP; then
		echo "initramfs.sh: $1 is dynamically linked; the guest has no libc" >&2
		exit 1
	fi
}
for t in "${tests[@]}"; do
	static_prog "$t"
	install -m 0755 "$t" "$stage/tests/$(basename "$t")"
done
for t in "${bins[@]}"; do
	if readelf -l "$t" 2>/dev/null | grep -q INTERP; then
		with_libs "$t"
	fi
	install -m 0755 "$t" "$stage/bin/$(basename "$t")"
done

mkdir -p "$(dirname "$out")"
(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort |
	cpio --quiet -o -H newc -R 0:0 | gzip -1) >"$out.tmp"
mv "$out.tmp" "$out"
