#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian packages installed for real, on this machine, by make check
# (scripts/check.sh runs the two phases around the guests that boot the
# module DKMS built):
#
#   scripts/deb-check.sh install LOGDIR   TAP on stdout
#     make deb (mk/deb.mk: the four packages, lintian-clean), then dpkg -i
#     of all four: pmuctl-dkms's postinst builds the module with the real
#     dkms; "dkms status" must show it installed for every kernel that
#     scripts/kernels.sh lists (Debian's 6.1 and 6.12 here), the module
#     file must be that kernel's build (vermagic), the installed tool must
#     run and a program must build and run against the installed library
#     through pkg-config, and the man pages must be found by man.  Writes
#     LOGDIR/deb.ko, the module's path with %k for the kernel, for
#     "scripts/vm/run.sh -M" (check.sh's "pmu-wd" guests boot it).
#   scripts/deb-check.sh purge LOGDIR     TAP on stdout
#     dpkg --purge of the four; dkms must have forgotten pmuctl, and
#     nothing the packages or dkms wrote may be left: every path of the
#     packages' contents that did not exist before the install is gone,
#     the file lists of /etc, /lib/modules, /var/lib/dkms and /usr/src are
#     as they were before it (depmod's indexes aside: they must not name
#     pmuctl), and the loader's cache has no libpmuctl.
#
# Root only (it installs packages): as another user both phases SKIP, as
# they do without Debian's packaging tools (scripts/deps.sh deb).  Packages
# of pmuctl installed by someone else are left alone (SKIP); a leftover of
# an interrupted run of this script (its marker file,
# /var/lib/pmuctl-check/installed) is purged first.
set -uo pipefail

cd "$(dirname "$0")/.." || exit 1
. selftests/tap.sh

if [ $# -ne 2 ] || { [ "$1" != install ] && [ "$1" != purge ]; }; then
	echo "usage: $0 install|purge LOGDIR" >&2
	exit 2
fi
phase=$1 logs=$2
mkdir -p "$logs"
logs=$(cd "$logs" && pwd)
state=$logs/deb-state
marker=/var/lib/pmuctl-check/installed
# Purged in this order (the tool and -dev first, what they depend on last).
pkgs=(pmuctl libpmuctl-dev libpmuctl1 pmuctl-dkms)
version=$(sed -n 's/^VERSION := *//p' Makefile)
[ -n "$version" ] || bail "no 'VERSION := ...' line in Makefile"

# skip_all WHY: nothing here can run.
skip_all() {
	printf 'TAP version 13\n1..0 # SKIP %s\n' "$1"
	exit 4
}

# installed PKG: dpkg has it installed (or half-installed).
installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -qv ' not-installed$'
}

# snapshot: the names under the directories dkms and the packages' scripts
# write to (not /usr: the packages' own lists cover it).  Not depmod's
# indexes (/lib/modules/KVER/modules.*): dkms rewrites them for the kernel
# at install and at removal, and they may not have existed before (a
# kernel with headers but no modules here); that they no longer name
# pmuctl is checked instead.  Nor dkms's signing key, which its first build
# of any module makes (/var/lib/dkms/mok.key, mok.pub) and keeps for the
# modules it builds later: dkms's, not pmuctl's.
snapshot() {
	{
		find /etc /lib/modules /var/lib/dkms -xdev 2>/dev/null |
			grep -v -e '^/lib/modules/[^/]*/modules\.' \
				-e '^/var/lib/dkms/mok\.\(key\|pub\)$'
		find /usr/src -maxdepth 1 2>/dev/null
	} | LC_ALL=C sort
}

purge_all() {
	dpkg --purge "${pkgs[@]}"
}

# An install phase starts from nothing: whatever it skips, no state or
# module path of an earlier run is left for the purge or the guests.
[ "$phase" != install ] || rm -rf "$state" "$logs/deb.ko"
[ "$(id -u)" -eq 0 ] || skip_all "not root: make check installs the packages as root"

if [ "$phase" = install ]; then
	for c in dpkg-buildpackage dh dh_dkms dkms lintian; do
		command -v "$c" >/dev/null ||
			skip_all "no $c: scripts/deps.sh deb (Debian's packaging tools)"
	done
	mkdir -p "$state"
	if [ -e "$marker" ]; then
		echo "# a previous run left its packages installed: purging them first"
		purge_all >"$state/leftover.log" 2>&1
		rm -f "$marker"
	fi
	for p in "${pkgs[@]}"; do
		! installed "$p" ||
			skip_all "$p is installed and not by make check: left alone (dpkg --purge ${pkgs[*]} to test)"
	done

	# --- build ---------------------------------------------------------------
	debs=()
	if ! make -s --no-print-directory deb >"$logs/deb-build.log" 2>&1 </dev/null; then
		not_ok make_deb_builds_four_lintian_clean_packages \
			"make deb failed:" "$(tail -n 30 "$logs/deb-build.log")"
	else
		d=()
		for p in "${pkgs[@]}"; do
			f=$(compgen -G "build/deb/${p}_${version}_*.deb" | head -n 1)
			if [ -n "$f" ]; then debs+=("$f"); else d+=("no build/deb/${p}_${version}_*.deb"); fi
		done
		report "$([ ${#d[@]} -eq 0 ] && echo 1)" \
			make_deb_builds_four_lintian_clean_packages "${d[@]}"
	fi
	if [ ${#debs[@]} -ne ${#pkgs[@]} ]; then
		tap_end
		exit 1
	fi

	# --- install ---------------------------------------------------------------
	# What the packages hold, and which of those paths exist already
	# (/usr/bin, /usr/share/doc...): the purge must remove only the others.
	for f in "${debs[@]}"; do
		dpkg-deb --fsys-tarfile "$f" | tar -t | sed -e 's|^\./|/|' -e 's|/$||'
	done | grep -v '^/\?$' | LC_ALL=C sort -u >"$state/contents"
	while IFS= read -r p; do
		[ -e "$p" ] || [ -L "$p" ] || echo "$p"
	done <"$state/contents" >"$state/new"
	snapshot >"$state/before"
	mkdir -p "$(dirname "$marker")" && : >"$marker"
	t0=$(date +%s)
	if dpkg -i "${debs[@]}" >"$logs/deb-install.log" 2>&1 </dev/null; then
		ok dpkg_installs_the_packages
		echo "# dpkg -i of the four, DKMS builds included: $(($(date +%s) - t0)) s"
	else
		not_ok dpkg_installs_the_packages "$(tail -n 30 "$logs/deb-install.log")"
	fi

	# --- what DKMS built ------------------------------------------------------
	kernels=$(bash scripts/kernels.sh installed 2>/dev/null)
	[ -n "$kernels" ] || not_ok dkms_builds_for_every_kernel "no kernel headers: scripts/deps.sh kernel"
	pattern=''
	for k in $kernels; do
		st=$(dkms status -m pmuctl -v "$version" -k "$k" 2>&1)
		ko=$(modinfo -k "$k" -F filename pmuctl 2>/dev/null)
		vm=$(modinfo -F vermagic "$ko" 2>/dev/null | cut -d' ' -f1)
		d=()
		grep -q "^pmuctl/$version, $k, [^:]*: installed" <<<"$st" ||
			d+=("dkms status says:" "${st:-nothing}")
		[[ $ko == /lib/modules/$k/updates/dkms/pmuctl.ko* ]] ||
			d+=("modinfo -k $k finds ${ko:-no pmuctl}, not DKMS's /lib/modules/$k/updates/dkms/pmuctl.ko")
		[ "$vm" = "$k" ] || d+=("$ko has vermagic ${vm:-none}")
		if [ ${#d[@]} -eq 0 ]; then
			ok "dkms_built_and_installed_pmuctl_for_$k"
			pattern=${ko//$k/%k}
		else
			not_ok "dkms_built_and_installed_pmuctl_for_$k" "${d[@]}"
		fi
	done
	# run.sh -M tries the compressed names itself (6.1 keeps .ko, 6.12 .ko.xz).
	[ -z "$pattern" ] || echo "${pattern%.ko*}.ko" >"$logs/deb.ko"

	# --- the tool, the library, the man pages, as installed ----------------------
	out=$(/usr/bin/pmuctl check --pmu skl cycles 2>&1)
	report "$(grep -qx 'ok fixed1 0x3003c 0x0' <<<"$out" && echo 1)" installed_tool_runs \
		"/usr/bin/pmuctl check --pmu skl cycles:" "$out"
	cc=${CC:-gcc}
	probe_want=$(printf '%s\n' 'instruction_retired:u 0x100c0 0x0' 'EDGE_NO_CMASK knm ix86arch')
	# shellcheck disable=SC2046 # pkg-config prints a list of options
	if out=$("$cc" -o "$state/probe" selftests/install/probe.c \
			$(pkg-config --cflags --libs libpmuctl) 2>&1) &&
	   out=$("$state/probe" 2>&1) && [ "$out" = "$probe_want" ]; then
		ok program_builds_and_runs_against_the_installed_library
	else
		not_ok program_builds_and_runs_against_the_installed_library \
			"pkg-config: $(pkg-config --cflags --libs libpmuctl 2>&1)" "$out"
	fi
	m1=$(man -w 1 pmuctl 2>&1) m3=$(man -w 3 libpmuctl 2>&1)
	report "$([[ $m1 == /usr/share/man/man1/pmuctl.1* && $m3 == /usr/share/man/man3/libpmuctl.3* ]] && echo 1)" \
		man_finds_the_installed_pages "man -w 1 pmuctl: $m1" "man -w 3 libpmuctl: $m3"
	tap_end
	exit
fi

# --- purge -----------------------------------------------------------------------
[ -f "$state/before" ] || skip_all "nothing installed by the install phase"
if purge_all >"$logs/deb-purge.log" 2>&1 </dev/null; then
	ok dpkg_purges_the_packages
else
	not_ok dpkg_purges_the_packages "$(tail -n 30 "$logs/deb-purge.log")"
fi
rm -f "$marker"
rmdir "$(dirname "$marker")" 2>/dev/null
d=()
for p in "${pkgs[@]}"; do
	! installed "$p" || d+=("$p is still installed")
done
st=$(dkms status -m pmuctl 2>&1)
[ -z "$st" ] || d+=("dkms status -m pmuctl: $st")
report "$([ ${#d[@]} -eq 0 ] && echo 1)" dpkg_and_dkms_forget_pmuctl "${d[@]}"

left=$(while IFS= read -r p; do
	[ ! -e "$p" ] && [ ! -L "$p" ] || echo "$p"
done <"$state/new")
report "$([ -z "$left" ] && echo 1)" no_file_of_the_packages_is_left "left:" "$left"
diffs=$(diff "$state/before" <(snapshot))
report "$([ -z "$diffs" ] && echo 1)" etc_modules_dkms_and_usr_src_are_as_before \
	"diff before after:" "$diffs"
idx=$(grep -l pmuctl /lib/modules/*/modules.dep /lib/modules/*/modules.alias 2>/dev/null)
report "$([ -z "$idx" ] && echo 1)" module_indexes_do_not_name_pmuctl "$idx"
cache=$(ldconfig -p | grep libpmuctl)
report "$([ -z "$cache" ] && echo 1)" loader_cache_has_no_libpmuctl "$cache"
tap_end
