#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# "make deb" (mk/deb.mk): pmuctl's four Debian packages, built with
# Debian's own tools and checked by lintian.
#
# usage: scripts/deb.sh VERSION PATH...
#   VERSION  the Makefile's VERSION: the packages' version (native)
#   PATH...  what the build needs (files and directories of this tree)
#
# Assembles build/deb/pmuctl-VERSION/ from the tracked files under PATH
# ("git ls-files"; every file under PATH when this is not a git checkout)
# with dist/debian/ as debian/: debian/changelog from changelog.in (the
# version from VERSION, the date of HEAD's commit), and
# debian/libpmuctl1.symbols from the library's version script
# (user/libpmuctl.map).  Then "dpkg-buildpackage -b -us -uc" there leaves
# the .deb files, the .buildinfo and the .changes in build/deb/, and
# "lintian" on the .changes must report no error (its output is
# build/deb/lintian.log); on an error the .changes is removed and this
# exits 1.
#
# Up to date: when build/deb/pmuctl_VERSION.inputs (written when lintian
# passed) lists the same inputs and none is newer, nothing is rebuilt.
# DEB_FORCE=1 rebuilds anyway.
set -euo pipefail

cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: $0 VERSION PATH..." >&2; exit 2; }
version=$1
shift
paths=("$@")

out=build/deb
src=$out/pmuctl-$version
stamp=$out/pmuctl_$version.inputs

# The minimum package version of each version node of the map, for the
# symbols file: every node up to LIBPMUCTL_1.2 was in the first package,
# 0.1.0.  A node added later gets its first version here, e.g.
# "LIBPMUCTL_1.3=0.2.0", so that the symbols keep it after later bumps.
symbols_since=0.1.0
node_since=""

for t in dpkg-buildpackage dh dh_dkms lintian; do
	if ! command -v "$t" >/dev/null; then
		echo "deb: no $t: bash scripts/deps.sh deb (as root)" >&2
		exit 1
	fi
done

# The inputs: tracked files under PATH, or every file there outside git.
inputs() {
	local f

	if git ls-files --error-unmatch Makefile >/dev/null 2>&1; then
		git ls-files -z -- "${paths[@]}"
	else
		find "${paths[@]}" -type f -print0
	fi | while IFS= read -r -d '' f; do
		# A tracked file deleted in the work tree is not an input.
		[ ! -e "$f" ] || printf '%s\n' "$f"
	done | LC_ALL=C sort
}

mkdir -p "$out"
inputs >"$stamp.new"
if [ -z "${DEB_FORCE:-}" ] && [ -f "$stamp" ] && cmp -s "$stamp" "$stamp.new" &&
   ls "$out/pmuctl_${version}_"*.changes >/dev/null 2>&1; then
	newer=
	while IFS= read -r f; do
		if [ "$f" -nt "$stamp" ]; then
			newer=$f
			break
		fi
	done <"$stamp.new"
	if [ -z "$newer" ]; then
		rm -f "$stamp.new"
		echo "deb: $out/*.deb up to date (newer than every input; DEB_FORCE=1 rebuilds)"
		exit 0
	fi
fi
# The stamp's time is the inputs' time: a file edited during the build
# makes the next run build again.
touch "$stamp.new"
rm -f "$stamp"

rm -rf "$src"
rm -f "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo "$out"/lintian.log
mkdir -p "$src"
tr '\n' '\0' <"$stamp.new" | tar --null -T - -cf - | tar -xf - -C "$src"
cp -a "$src/dist/debian" "$src/debian"

if git ls-files --error-unmatch Makefile >/dev/null 2>&1; then
	when=$(git log -1 --format=%ct)
	from="commit $(git describe --always --dirty)"
else
	when=$(stat -c %Y Makefile)
	from="a tree outside git"
fi
sed -e "s|@VERSION@|$version|g" -e "s|@SOURCE@|$from|g" \
    -e "s|@DATE@|$(LC_ALL=C date -u -R -d "@$when")|g" \
    dist/debian/changelog.in >"$src/debian/changelog"
rm -f "$src/debian/changelog.in"

# The symbols file: for each library of libpmuctl1 (libpmuctl, the
# LIKWID and PAPI drop-ins), each name of each version node of its map,
# and the node itself, as dpkg-gensymbols lists them.
# map_symbols SONAME MAP
map_symbols() {
	echo "$1 libpmuctl1 #MINVER#"
	echo "* Build-Depends-Package: libpmuctl-dev"
	awk -v def="$symbols_since" -v since="$node_since" '
			BEGIN {
				n = split(since, a, " ")
				for (i = 1; i <= n; i++) {
					split(a[i], kv, "=")
					ver[kv[1]] = kv[2]
				}
			}
			/^[A-Za-z0-9_.]+[ \t]*\{/ {
				node = $1
				v = (node in ver) ? ver[node] : def
				print " " node "@" node " " v
				next
			}
			/^}/ { node = ""; glob = 0; next }
			node != "" && /global:/ { glob = 1; next }
			node != "" && /local:/ { glob = 0; next }
			node != "" && glob && /^[ \t]*[A-Za-z_][A-Za-z0-9_]*;/ {
				s = $1
				sub(/;.*/, "", s)
				print " " s "@" node " " v
			}' "$2" | LC_ALL=C sort
}
{
	map_symbols libpmuctl.so.1 user/libpmuctl.map
	map_symbols libpmuctl-likwid.so.1 user/likwid.map
	map_symbols libpmuctl-papi-hl.so.1 user/papi_hl.map
} >"$src/debian/libpmuctl1.symbols"

# Without the make variables of a calling make (make -j, make check).
# -nc: the tree is new, "debian/rules clean" would have nothing to do.
# Root or not: Rules-Requires-Root: no, so neither root nor fakeroot.
echo "deb: dpkg-buildpackage -b in $src (log: $out/build.log)"
if ! (cd "$src" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		DEB_BUILD_OPTIONS="nocheck ${DEB_BUILD_OPTIONS:-}" \
		dpkg-buildpackage -b -us -uc -nc -jauto) >"$out/build.log" 2>&1 </dev/null; then
	tail -n 40 "$out/build.log" >&2
	echo "deb: dpkg-buildpackage failed: $out/build.log" >&2
	exit 1
fi
changes=$(ls "$out/pmuctl_${version}_"*.changes)
ls "$out"/*.deb

echo "deb: lintian $changes"
rc=0
lintian --fail-on error --tag-display-limit 0 "$changes" >"$out/lintian.log" 2>&1 || rc=$?
cat "$out/lintian.log"
if [ "$rc" != 0 ]; then
	rm -f "$changes"
	echo "deb: lintian failed (exit $rc): $out/lintian.log" >&2
	exit 1
fi
mv -f "$stamp.new" "$stamp"
echo "deb: $(grep -c '^W: ' "$out/lintian.log" || true) lintian warnings, no error"
