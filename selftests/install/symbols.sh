#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# TAP test: libpmuctl's exported names.  The functions user/libpmuctl.h
# declares, the names user/libpmuctl.map exports and the dynamic symbols of
# build/lib/libpmuctl.so must be the same set, each symbol carrying the
# version of the map node that lists it; the soname is libpmuctl.so.1; the
# header's static inline read path is not exported; every global symbol of
# the static archive is in pmuctl's namespace.  Needs the library built
# ("make tests"); LIBPMUCTL_H, LIBPMUCTL_MAP, LIBPMUCTL_SO and LIBPMUCTL_A
# name other files (to check this test fails on a broken map).

cd "$(dirname "$0")/../.." || exit 1
. selftests/tap.sh

hdr=${LIBPMUCTL_H:-user/libpmuctl.h}
map=${LIBPMUCTL_MAP:-user/libpmuctl.map}
so=${LIBPMUCTL_SO:-build/lib/libpmuctl.so.1.0.0}
ar=${LIBPMUCTL_A:-build/lib/libpmuctl.a}
cc=${CC:-gcc}

for f in "$hdr" "$map" "$so" "$ar"; do
	[ -f "$f" ] || bail "no $f: build the library first (make tests)"
done

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# The header's functions, as the compiler sees them: -aux-info writes one
# prototype per function with where it comes from, "NC" for a declaration
# (extern: the library's) and "NF" for a definition (static inline).
printf '#include "%s"\n' "$(basename "$hdr")" >"$tmp/h.c"
if ! "$cc" -std=gnu11 -Iuapi -I"$(dirname "$hdr")" -fsyntax-only \
		-aux-info "$tmp/aux" "$tmp/h.c" 2>"$tmp/cc.err"; then
	bail "$hdr does not compile alone: $(head -n 3 "$tmp/cc.err")"
fi
hname=$(basename "$hdr")
# "/* user/libpmuctl.h:123:NC */ extern int pmuctl_open (...);" -> pmuctl_open
aux_names() {	# aux_names NC|NF
	awk -v h="$hname" -v kind="$1" '
		$2 ~ ("(^|/)" h ":[0-9]+:" kind "$") {
			line = $0
			sub(/ \(.*/, "", line)		# cut at the parameter list
			n = split(line, w, /[ *]+/)
			print w[n]
		}' "$tmp/aux" | LC_ALL=C sort -u
}
aux_names NC >"$tmp/extern"
aux_names NF >"$tmp/inline"
[ -s "$tmp/extern" ] || bail "found no function declared in $hdr"

# The map's global names, each with its node: "pmuctl_open LIBPMUCTL_1.0".
awk '
	{ sub(/\/\*.*\*\//, "") }
	/^[ \t]*[A-Za-z_][A-Za-z0-9_.]*[ \t]*\{/ { node = $1; sub(/\{.*/, "", node); scope = ""; next }
	/global:/ { scope = "global"; sub(/.*global:/, "") }
	/local:/ { scope = "local"; sub(/.*local:/, "") }
	/\}/ { node = "" }
	node != "" && scope == "global" {
		gsub(/[ \t;]+/, " ")
		for (i = 1; i <= NF; i++)
			print $i, node
	}' "$map" | LC_ALL=C sort -u >"$tmp/map_ver"
cut -d' ' -f1 "$tmp/map_ver" | LC_ALL=C sort -u >"$tmp/map"
[ -s "$tmp/map" ] || bail "found no global name in $map"

# The .so's defined dynamic symbols, "name version" ("A" lines are the
# version nodes themselves).
nm -D --defined-only "$so" | awk '
	$2 == "A" { next }
	{
		name = $3; ver = "(none)"
		if (index(name, "@@")) { ver = substr(name, index(name, "@@") + 2); name = substr(name, 1, index(name, "@@") - 1) }
		else if (index(name, "@")) { ver = "hidden:" substr(name, index(name, "@") + 1); name = substr(name, 1, index(name, "@") - 1) }
		print name, ver
	}' | LC_ALL=C sort -u >"$tmp/so_ver"
cut -d' ' -f1 "$tmp/so_ver" | LC_ALL=C sort -u >"$tmp/so"

# set_check NAME WANT_FILE HAVE_FILE MESSAGE: every line of WANT is in HAVE;
# MESSAGE is printed per missing name, with NAME substituted for %s.
set_check() {
	local name=$1 want=$2 have=$3 msg=$4 missing

	missing=$(LC_ALL=C comm -23 "$want" "$have")
	if [ -z "$missing" ]; then
		ok "$name"
		return
	fi
	# shellcheck disable=SC2059,SC2086 # the message is the format, one per name
	not_ok "$name" "$(printf "$msg\n" $missing)"
}

set_check header_functions_are_in_the_map "$tmp/extern" "$tmp/map" \
	"%s is declared in $hdr but not exported by $map: add it to a new version node"
set_check map_names_are_declared_in_the_header "$tmp/map" "$tmp/extern" \
	"%s is in $map but not declared in $hdr: declare it or remove it from the map"
set_check so_exports_only_map_names "$tmp/so" "$tmp/map" \
	"$so exports %s, which $map does not list: make it static or list it"
set_check so_exports_every_map_name "$tmp/map" "$tmp/so" \
	"$map lists %s but $so does not define it: implement it in user/"

# Each exported symbol carries, as its default version, the node that lists it.
bad=$(LC_ALL=C join "$tmp/so_ver" "$tmp/map_ver" | awk '$2 != $3 {
	print $1 " has version " $2 " in the .so, the map lists it in " $3 }')
if [ -z "$bad" ]; then
	ok exports_carry_their_map_version
else
	not_ok exports_carry_their_map_version "$bad"
fi
# Version 1 of the library: node LIBPMUCTL_1.0, then one node per minor
# version that added names (LIBPMUCTL_1.1: task scope); the header's
# LIBPMUCTL_VERSION_MINOR names the newest.
minor=$(sed -n 's/^#define LIBPMUCTL_VERSION_MINOR[ \t]*\([0-9]*\).*/\1/p' "$hdr")
if grep -q 'LIBPMUCTL_1\.0$' "$tmp/map_ver" &&
   ! awk -v m="${minor:-0}" '$2 !~ /^LIBPMUCTL_1\.[0-9]+$/ || substr($2, 13) + 0 > m' \
	"$tmp/map_ver" | grep -q . &&
   grep -q "LIBPMUCTL_1\.${minor:-0}\$" "$tmp/map_ver"; then
	ok every_export_is_in_a_LIBPMUCTL_1_node
else
	not_ok every_export_is_in_a_LIBPMUCTL_1_node \
		"$map: version 1.${minor:-?} of the library exports its names in nodes LIBPMUCTL_1.0 .. LIBPMUCTL_1.${minor:-?}, the last one used:" \
		"$(cat "$tmp/map_ver")"
fi

inl=$(LC_ALL=C comm -12 "$tmp/inline" <(LC_ALL=C sort -u "$tmp/map" "$tmp/so"))
if [ -s "$tmp/inline" ] && [ -z "$inl" ]; then
	ok inline_read_path_is_not_exported
else
	not_ok inline_read_path_is_not_exported \
		"found $(wc -l <"$tmp/inline") static inline functions in $hdr" \
		"exported although static inline in the header: ${inl:-none}"
fi

soname=$(readelf -d "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [ "$soname" = libpmuctl.so.1 ]; then
	ok soname_is_libpmuctl.so.1
else
	not_ok soname_is_libpmuctl.so.1 "$so has soname '${soname:-none}'"
fi

# A static link shares the program's namespace: every global symbol the
# archive defines starts with pmuctl_ (the inline helpers' __pmuctl too).
foreign=$(nm -g --defined-only "$ar" | awk 'NF == 3 && $3 !~ /^_*pmuctl_/ { print $3 }')
if [ -z "$foreign" ]; then
	ok archive_defines_only_pmuctl_names
else
	not_ok archive_defines_only_pmuctl_names \
		"$ar defines globals outside the pmuctl_ namespace (make them static):" \
		"$foreign"
fi

tap_end
