#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages the build and tests need, only if missing.
#
# usage: scripts/deps.sh [--check] [GROUP|PACKAGE]...
#   With no argument, installs the "core" group. A word that names a group
#   below expands to its packages; any other word is taken as a package name.
#   "all" is the union of every group.
#   --check: install nothing; when packages are missing, print one line
#   naming them and the command that installs them, and exit 2 (the
#   Makefile's check before "make" compiles anything); exit 0 when all are
#   present or when this is not a Debian system (no dpkg-query: the
#   compiler speaks there).  DPKG_QUERY names the program (a test's fake).
#
# Idempotent: when everything is present it touches nothing and does not
# need root.
set -euo pipefail

# Package groups. To add a group, add a variable here and list it in PKG_GROUPS.
# shellcheck disable=SC2034 # read through ${!var} in expand()
# man-db (with groff-base, bsdextrautils): selftests/install/man.sh renders the man pages.
# python3-prometheus-client (200 KB, brings python3): the Prometheus text and
# OpenMetrics parsers that read back "pmuctl watch --format"
# (selftests/tool/prom_test.c, watch_prom.sh); Debian's prometheus package
# would bring promtool, but it is 96 MB and a server that starts on install.
GROUP_core="gcc make libc6-dev pkg-config xz-utils libpfm4-dev linux-source-6.1 sparse man-db rsync python3-prometheus-client"
# What "make" itself needs for the library and the tool (a part of core).
# shellcheck disable=SC2034
GROUP_build="gcc make libc6-dev libpfm4-dev"
# The kernel headers are looked up in apt: the newest 6.1 and 6.12 builds
# (scripts/kernels.sh), with dwarves for 6.12's BTF step.
# shellcheck disable=SC2034
GROUP_kernel="@kernel dwarves sparse"
# The QEMU rig (scripts/vm/): TCG guests booting Debian's own kernels from an
# initramfs of busybox-static; cpio packs it, static glibc links its helpers.
# kmod: its depmod and modprobe (with their libraries) go into the initramfs
# for the autoload test (scripts/vm/initramfs.sh says why not busybox's).
# shellcheck disable=SC2034
GROUP_vm="qemu-system-x86 busybox-static kmod cpio gzip xz-utils libc6-dev gcc"
# The patched QEMU the rig's guests run on (scripts/vm/qemu.sh): Debian's
# source of the installed qemu-system-x86 (dpkg-dev unpacks it, and brings
# patch) built for x86_64-softmmu; the firmware stays qemu-system-x86's.
# shellcheck disable=SC2034
GROUP_qemu="meson ninja-build libglib2.0-dev libpixman-1-dev libslirp-dev libfdt-dev zlib1g-dev bison flex dpkg-dev gcc make pkg-config"
# The rig's debug kernel (scripts/vm/dkernel.sh): Debian's 6.12 source,
# what its build needs (objtool links libelf), and python3 for the gcov
# JSON that scripts/vm/coverage.sh reads.
# shellcheck disable=SC2034
GROUP_dkernel="linux-source-6.12 gcc make bc bison flex libelf-dev libssl-dev xz-utils python3"
# "make deb" (scripts/deb.sh, dist/debian/): dpkg-buildpackage (dpkg-dev)
# with debhelper (compat 13, dh) and dh-dkms's dh_dkms for pmuctl-dkms's
# maintainer scripts; dkms, which those scripts run when the package is
# installed; lintian checks the packages.
# shellcheck disable=SC2034
GROUP_deb="dpkg-dev debhelper dh-dkms dkms lintian"
# "make bench": PAPI's own library (libpapi-dev: its static libpapi.a and
# papi.pc) and LIKWID's (likwid: liblikwid and its likwid-marker.h), whose
# regions are counted beside pmuctl's drop-ins
# (selftests/bench/regions_cost.c, likwid_cost.c); gnuplot-nox draws
# build/bench/cost.png.  Not for make check.
# shellcheck disable=SC2034
GROUP_bench="libpapi-dev likwid gnuplot-nox"
PKG_GROUPS="core build kernel vm qemu dkernel deb bench"

apt_updated=false
apt_update() {
	$apt_updated && return
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >&2
	apt_updated=true
}

kernel_headers() {
	local v
	v=$("$(dirname "$0")/kernels.sh" available)
	if [ "$(printf '%s\n' "$v" | grep -c .)" -lt 2 ] && [ "$(id -u)" -eq 0 ]; then
		apt_update
		v=$("$(dirname "$0")/kernels.sh" available)
	fi
	for v in $v; do
		echo "linux-headers-$v"
	done
}

expand() {
	local word=$1 g var
	if [ "$word" = all ]; then
		for g in $PKG_GROUPS; do
			expand "$g"
		done
		return
	fi
	var="GROUP_$word"
	if [[ $word =~ ^[A-Za-z0-9_]+$ ]] && [ -n "${!var+set}" ]; then
		echo "${!var}"
	else
		echo "$word"
	fi
}

check=false
if [ "${1:-}" = --check ]; then
	check=true
	shift
fi
dpkg_query=${DPKG_QUERY:-dpkg-query}
if $check && ! command -v "$dpkg_query" >/dev/null 2>&1; then
	exit 0
fi
[ $# -gt 0 ] || set -- core

pkgs=()
add_pkg() {
	# keep the first occurrence only
	case " ${pkgs[*]-} " in *" $1 "*) ;; *) pkgs+=("$1") ;; esac
}

for arg in "$@"; do
	for p in $(expand "$arg"); do
		if [ "$p" != @kernel ]; then
			add_pkg "$p"
			continue
		fi
		hdrs=$(kernel_headers)
		if [ -z "$hdrs" ]; then
			echo "deps: no linux-headers-6.1/6.12 in apt's lists; run apt-get update" >&2
			exit 1
		fi
		for h in $hdrs; do
			add_pkg "$h"
		done
	done
done

missing=()
for p in "${pkgs[@]}"; do
	status=$("$dpkg_query" -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$status" = "install ok installed" ] || missing+=("$p")
done

if $check; then
	[ ${#missing[@]} -eq 0 ] && exit 0
	echo "missing Debian package(s) ${missing[*]}: install with 'sudo scripts/deps.sh core' (what make needs) or 'sudo make deps' (everything)"
	exit 2
fi

if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#pkgs[@]} packages present"
	exit 0
fi

echo "deps: installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: must be root to install; run as root:" >&2
	echo "  apt-get update && apt-get install -y --no-install-recommends ${missing[*]}" >&2
	exit 1
fi

apt_update
apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
