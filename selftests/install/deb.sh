#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# TAP test of "make deb" (mk/deb.mk, scripts/deb.sh, dist/debian/), from
# outside the packages, installing nothing:
#  - make deb succeeds and leaves the four packages and the .changes in
#    build/deb/, each of version VERSION (the Makefile's);
#  - each package holds exactly its files (dpkg-deb -c), the lists taken
#    from the tree as install.sh takes them (user/man, the module sources
#    Kbuild builds), links included, and the DKMS tree is the sources and
#    dkms.conf of this VERSION;
#  - the Depends, Recommends and Architecture lines (dpkg-deb -f);
#  - pmuctl-dkms's postinst runs DKMS's common.postinst (dkms add, build,
#    install) for pmuctl/VERSION and its prerm "dkms remove" (dpkg-deb -I);
#  - pmuctl's postinst neither enables nor starts pmuctl-exporter.service,
#    and /etc/default/pmuctl is a conffile;
#  - libpmuctl1's shlibs and symbols control files: the symbols are
#    exactly what the packaged libraries (libpmuctl and the LIKWID and
#    PAPI drop-ins) export (nm -D), each in its node;
#  - lintian's output (build/deb/lintian.log) has no error;
#  - debian/copyright gives each tracked file the licence its
#    SPDX-License-Identifier line says.
# make deb rebuilds nothing when the packages are newer than every input
# (scripts/deb.sh), so after a first "make deb" this takes about 1 s; a
# build is about 15 s on 2 idle cores.
set -euo pipefail

cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=selftests/tap.sh
. selftests/tap.sh

make=${MAKE:-make}
version=$(sed -n 's/^VERSION := *//p' Makefile)
[ -n "$version" ] || bail "no 'VERSION := ...' line in Makefile"

missing=
for t in dpkg-buildpackage dpkg-deb dh dh_dkms lintian nm; do
	command -v "$t" >/dev/null || missing+=" $t"
done
if [ -n "$missing" ]; then
	skip make_deb "no$missing: bash scripts/deps.sh deb (as root)"
	tap_end
	exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

out=build/deb
if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "$make" -s --no-print-directory deb \
		>"$tmp/make.log" 2>&1 </dev/null; then
	not_ok make_deb "make deb failed:" "$(tail -n 30 "$tmp/make.log")"
	tap_end
	exit 1
fi
ok make_deb
echo "# $(grep '^deb: ' "$tmp/make.log" | tail -n 1)"

arch=$(dpkg --print-architecture)
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null)
declare -A deb=(
	[pmuctl-dkms]=$out/pmuctl-dkms_${version}_all.deb
	[libpmuctl1]=$out/libpmuctl1_${version}_$arch.deb
	[libpmuctl-dev]=$out/libpmuctl-dev_${version}_$arch.deb
	[pmuctl]=$out/pmuctl_${version}_$arch.deb
)
changes=$out/pmuctl_${version}_$arch.changes
d=()
for p in pmuctl-dkms libpmuctl1 libpmuctl-dev pmuctl; do
	[ -f "${deb[$p]}" ] || d+=("no ${deb[$p]}")
done
[ -f "$changes" ] || d+=("no $changes")
if [ ${#d[@]} = 0 ]; then
	ok four_packages_and_changes
else
	not_ok four_packages_and_changes "${d[@]}" \
		"build/deb holds: $(find "$out" -maxdepth 1 -type f -printf '%f ')"
	tap_end
	exit 1
fi

# --- the files of each package --------------------------------------------------

src=usr/src/pmuctl-$version
doc() {
	printf 'usr/share/doc/%s/%s\n' "$1" changelog.gz "$1" copyright
}
{
	printf '%s\n' "$src/Kbuild" "$src/dkms.conf" "$src/uapi/linux/pmuctl.h"
	find kmod -type f -name '*.[ch]' | sed "s|^|$src/|"
	doc pmuctl-dkms
} | LC_ALL=C sort >"$tmp/want.pmuctl-dkms"
{
	for l in libpmuctl libpmuctl-likwid libpmuctl-papi-hl; do
		printf '%s\n' "usr/lib/$ma/$l.so.1" "usr/lib/$ma/$l.so.1.0.0"
	done
	doc libpmuctl1
} | LC_ALL=C sort >"$tmp/want.libpmuctl1"
{
	printf '%s\n' usr/include/libpmuctl.h usr/include/linux/pmuctl.h \
		"usr/lib/$ma/libpmuctl.so" "usr/lib/$ma/libpmuctl.a" \
		"usr/lib/$ma/pkgconfig/libpmuctl.pc" \
		usr/include/pmuctl-likwid/likwid-marker.h usr/include/pmuctl-likwid/likwid.h \
		usr/include/pmuctl-papi-hl/papi.h
	for l in libpmuctl-likwid libpmuctl-papi-hl; do
		printf '%s\n' "usr/lib/$ma/$l.so" "usr/lib/$ma/$l.a" \
			"usr/lib/$ma/pkgconfig/${l#lib}.pc"
	done
	(cd user/man && find man3 -type f) | sed 's|^\(.*\)$|usr/share/man/\1.gz|'
	doc libpmuctl-dev
} | LC_ALL=C sort >"$tmp/want.libpmuctl-dev"
{
	printf '%s\n' usr/bin/pmuctl usr/lib/udev/rules.d/60-pmuctl.rules \
		usr/share/bash-completion/completions/pmuctl \
		usr/share/doc/pmuctl/examples/pmuctl.conf \
		usr/share/doc/pmuctl/README.Debian \
		lib/systemd/system/pmuctl-exporter.service etc/default/pmuctl
	(cd user/man && find man1 -type f) | sed 's|^\(.*\)$|usr/share/man/\1.gz|'
	doc pmuctl
} | LC_ALL=C sort >"$tmp/want.pmuctl"

for p in pmuctl-dkms libpmuctl1 libpmuctl-dev pmuctl; do
	# Files and links, not directories: "./usr/bin/pmuctl" -> usr/bin/pmuctl.
	dpkg-deb -c "${deb[$p]}" | awk '$1 !~ /^d/ { print $6 }' | sed 's|^\./||' |
		LC_ALL=C sort >"$tmp/has.$p"
	if cmp -s "$tmp/want.$p" "$tmp/has.$p"; then
		ok "${p}_holds_exactly_its_files"
	else
		not_ok "${p}_holds_exactly_its_files" \
			"missing: $(LC_ALL=C comm -23 "$tmp/want.$p" "$tmp/has.$p" | tr '\n' ' ')" \
			"unexpected: $(LC_ALL=C comm -13 "$tmp/want.$p" "$tmp/has.$p" | tr '\n' ' ')"
	fi
	dpkg-deb -x "${deb[$p]}" "$tmp/root"
done

# Links, and contents equal to the tree's.
r=$tmp/root
d=()
for l in libpmuctl libpmuctl-likwid libpmuctl-papi-hl; do
	for k in "usr/lib/$ma/$l.so.1" "usr/lib/$ma/$l.so"; do
		[ -L "$r/$k" ] && [ "$(readlink "$r/$k")" = "$l.so.1.0.0" ] ||
			d+=("$k: want a link to $l.so.1.0.0")
	done
done
while IFS= read -r f; do
	case $f in
	"$src/dkms.conf") continue ;;
	"$src"/*) cmp -s "${f#"$src"/}" "$r/$f" || d+=("$f differs from ${f#"$src"/}") ;;
	esac
done <"$tmp/want.pmuctl-dkms"
sed "s|@VERSION@|$version|g" dist/dkms.conf.in | cmp -s - "$r/$src/dkms.conf" ||
	d+=("$src/dkms.conf is not dist/dkms.conf.in for $version")
for pair in user/libpmuctl.h:usr/include/libpmuctl.h \
	    uapi/linux/pmuctl.h:usr/include/linux/pmuctl.h \
	    dist/60-pmuctl.rules:usr/lib/udev/rules.d/60-pmuctl.rules \
	    dist/pmuctl.conf:usr/share/doc/pmuctl/examples/pmuctl.conf \
	    dist/pmuctl.default:etc/default/pmuctl \
	    dist/pmuctl.bash:usr/share/bash-completion/completions/pmuctl; do
	cmp -s "${pair%%:*}" "$r/${pair#*:}" || d+=("${pair#*:} differs from ${pair%%:*}")
done
grep -qx "libdir=\${prefix}/lib/$ma" "$r/usr/lib/$ma/pkgconfig/libpmuctl.pc" ||
	d+=("libpmuctl.pc: want libdir=\${prefix}/lib/$ma")
if [ ${#d[@]} = 0 ]; then
	ok packaged_files_have_their_links_and_contents
else
	not_ok packaged_files_have_their_links_and_contents "${d[@]}"
fi

# --- control fields ---------------------------------------------------------------

# field PACKAGE FIELD: the field's value.
field() {
	dpkg-deb -f "${deb[$1]}" "$2"
}
d=()
for p in pmuctl-dkms libpmuctl1 libpmuctl-dev pmuctl; do
	[ "$(field "$p" Version)" = "$version" ] ||
		d+=("$p: Version $(field "$p" Version), want $version")
done
[ "$(field pmuctl-dkms Architecture)" = all ] || d+=("pmuctl-dkms: not Architecture: all")
# want PACKAGE FIELD REGEX: one comma-separated item of the field matches.
want() {
	tr ',' '\n' <<<"$(field "$1" "$2")" | sed 's/^ *//' | grep -qE "^($3)$" ||
		d+=("$1: $2 has no '$3': $(field "$1" "$2")")
}
want pmuctl-dkms Depends 'dkms( \(>= [0-9.]+\))?'
want libpmuctl1 Depends 'libpfm4( \(.*\))?'
want libpmuctl-dev Depends "libpmuctl1 \(= ${version//./\\.}\)"
want libpmuctl-dev Depends 'libpfm4-dev'
want pmuctl Depends 'libpfm4( \(.*\))?'
want pmuctl Recommends pmuctl-dkms
if [ ${#d[@]} = 0 ]; then
	ok control_fields
else
	not_ok control_fields "${d[@]}"
fi

# --- maintainer scripts and library control files ----------------------------------

# ctl PACKAGE FILE: a control file of the package; nothing if it has none.
ctl() {
	dpkg-deb -I "${deb[$1]}" "$2" 2>/dev/null || true
}
d=()
post=$(ctl pmuctl-dkms postinst)
grep -qx 'DKMS_NAME=pmuctl' <<<"$post" && grep -qx "DKMS_VERSION=$version" <<<"$post" &&
	grep -q '/usr/lib/dkms/common.postinst' <<<"$post" ||
	d+=("postinst does not run common.postinst for pmuctl/$version:" "$post")
pre=$(ctl pmuctl-dkms prerm)
# shellcheck disable=SC2016 # the script's own words
grep -qx "DKMS_VERSION=$version" <<<"$pre" &&
	grep -q 'dkms remove -m $DKMS_NAME -v $DKMS_VERSION --all' <<<"$pre" ||
	d+=("prerm does not dkms remove pmuctl/$version:" "$pre")
if [ ${#d[@]} = 0 ]; then
	ok pmuctl_dkms_postinst_adds_and_prerm_removes
else
	not_ok pmuctl_dkms_postinst_adds_and_prerm_removes "${d[@]}"
fi

# pmuctl-exporter.service: never enabled or started by the package
# (dh_installsystemd --no-enable --no-start); its settings a conffile.
d=()
post=$(ctl pmuctl postinst)
grep -q "pmuctl-exporter.service" <<<"$post" ||
	d+=("postinst does not mention pmuctl-exporter.service (dh_installsystemd did not see it):" "$post")
# dh_installsystemd --no-enable: enable only where the administrator had
# it enabled before (debian-installed), never on a first installation;
# --no-start: no deb-systemd-invoke.
grep -q "if deb-systemd-helper debian-installed 'pmuctl-exporter.service'; then" <<<"$post" ||
	d+=("postinst may enable pmuctl-exporter.service on installation:" "$post")
! grep -Eq "deb-systemd-invoke|systemctl (enable|start)" <<<"$post" ||
	d+=("postinst starts a unit:" "$post")
grep -qx /etc/default/pmuctl <<<"$(ctl pmuctl conffiles)" ||
	d+=("/etc/default/pmuctl is not a conffile: $(ctl pmuctl conffiles)")
if [ ${#d[@]} = 0 ]; then
	ok pmuctl_exporter_ships_disabled_with_its_settings_a_conffile
else
	not_ok pmuctl_exporter_ships_disabled_with_its_settings_a_conffile "${d[@]}"
fi

d=()
shlibs=$(ctl libpmuctl1 shlibs)
grep -qE '^libpmuctl 1 libpmuctl1 \(>= [0-9.]+\)$' <<<"$shlibs" ||
	d+=("shlibs: want 'libpmuctl 1 libpmuctl1 (>= VERSION)', is: $shlibs")
ctl libpmuctl1 symbols >"$tmp/symbols.file"
[ -s "$tmp/symbols.file" ] || d+=("libpmuctl1 has no symbols file")
for l in libpmuctl libpmuctl-likwid libpmuctl-papi-hl; do
	grep -qx "$l.so.1 libpmuctl1 #MINVER#" "$tmp/symbols.file" ||
		d+=("symbols: no line '$l.so.1 libpmuctl1 #MINVER#'")
done
awk '/^ / { print $1 }' "$tmp/symbols.file" | LC_ALL=C sort >"$tmp/symbols"
# What the packaged libraries export, as dpkg-gensymbols names it: NAME@NODE
# (nm prints NAME@@NODE), and each node NODE@NODE (nm: NODE alone).
for l in libpmuctl libpmuctl-likwid libpmuctl-papi-hl; do
	nm -D --defined-only "$r/usr/lib/$ma/$l.so.1.0.0"
done | awk '{ n = $3; if (n ~ /@@/) sub(/@@/, "@", n); else n = n "@" n; print n }' |
	LC_ALL=C sort >"$tmp/exports"
if ! cmp -s "$tmp/symbols" "$tmp/exports"; then
	d+=("in the symbols file only: $(LC_ALL=C comm -23 "$tmp/symbols" "$tmp/exports" | tr '\n' ' ')"
	    "exported only: $(LC_ALL=C comm -13 "$tmp/symbols" "$tmp/exports" | tr '\n' ' ')")
fi
grep -q '@LIBPMUCTL_1\.0$' "$tmp/symbols" || d+=("no symbol of node LIBPMUCTL_1.0")
if [ ${#d[@]} = 0 ]; then
	ok libpmuctl1_shlibs_and_symbols
else
	not_ok libpmuctl1_shlibs_and_symbols "${d[@]}"
fi

# --- lintian ------------------------------------------------------------------------

if [ ! -f "$out/lintian.log" ]; then
	not_ok lintian_no_error "no $out/lintian.log"
elif grep -q '^E: ' "$out/lintian.log"; then
	not_ok lintian_no_error "$(grep '^E: ' "$out/lintian.log")"
else
	ok lintian_no_error
	grep '^W: ' "$out/lintian.log" | sed 's/^/# /' || true
fi

# --- debian/copyright against the SPDX lines -----------------------------------------

# Each Files: stanza's patterns and License, in order; the last stanza
# whose pattern matches a file is its licence (copyright-format 1.0).
awk '/^Files:/ { f = substr($0, 8); infiles = 1; next }
     infiles && /^ / { f = f $0; next }
     { infiles = 0 }
     /^License:/ && f != "" { print substr($0, 10) "\t" f; f = "" }' \
	dist/debian/copyright >"$tmp/stanzas"
d=()
if git ls-files --error-unmatch Makefile >/dev/null 2>&1; then
	while IFS= read -r f; do
		spdx=$(grep -m1 -o 'SPDX-License-Identifier: .*' "$f" 2>/dev/null |
			sed -e 's/^SPDX-License-Identifier: //' -e 's| *\*/.*||' -e 's/ *$//') || continue
		[ -n "$spdx" ] || continue
		lic=
		while IFS=$'\t' read -r l p; do
			read -r -a pats <<<"$p"
			for pat in "${pats[@]}"; do
				# shellcheck disable=SC2053 # a glob
				[[ $f == $pat ]] && lic=$l
			done
		done <"$tmp/stanzas"
		[ "$lic" = "$spdx" ] || d+=("$f: SPDX $spdx, debian/copyright ${lic:-nothing}")
	done < <(git ls-files)
	if [ ${#d[@]} = 0 ]; then
		ok copyright_matches_spdx_lines
	else
		not_ok copyright_matches_spdx_lines "${d[@]}"
	fi
else
	skip copyright_matches_spdx_lines "not a git checkout: no list of tracked files"
fi

tap_end
