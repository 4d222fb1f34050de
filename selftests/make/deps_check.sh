#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# TAP test of "make" on a machine without what it compiles with: before
# any compiler runs, one line names the missing Debian packages and the
# command that installs them, and make exits 2 (the Makefile asks
# scripts/deps.sh --check build).  A fake dpkg-query (DPKG_QUERY) says
# which packages are installed; make -n runs nothing.
set -euo pipefail

cd "$(dirname "$0")/../.." || exit 1
. selftests/tap.sh

make=${MAKE:-make}
fake=$(mktemp -d)
trap 'rm -rf "$fake"' EXIT
# dpkg-query -W -f=FORMAT PACKAGE: installed unless named in FAKE_MISSING.
cat >"$fake/dpkg-query" <<'FAKE'
#!/bin/sh
for p; do :; done
case " $FAKE_MISSING " in *" $p "*) echo "dpkg-query: no packages found matching $p" >&2; exit 1 ;; esac
printf 'install ok installed'
FAKE
chmod +x "$fake/dpkg-query"

# mk MISSING GOAL...: make -n GOAL... with MISSING not installed; output
# in $out, status in $rc.
mk() {
	local missing=$1
	shift
	rc=0
	out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL DPKG_QUERY="$fake/dpkg-query" \
		FAKE_MISSING="$missing" "$make" --no-print-directory -n "$@" 2>&1 </dev/null) || rc=$?
}

for goal in "" tests install; do
	name=missing_libpfm_is_named_before_compiling${goal:+_$goal}
	mk "libpfm4-dev linux-source-6.1" $goal
	if [ "$rc" = 2 ] && [ "$(grep -c . <<<"$out")" = 1 ] &&
	   grep -q "missing Debian package(s) libpfm4-dev: install with 'sudo scripts/deps.sh core'" <<<"$out" &&
	   ! grep -Eq '(^| )(gcc|cc) ' <<<"$out"; then
		ok "$name"
	else
		not_ok "$name" "exit $rc: $out"
	fi
done

mk "gcc libc6-dev"
if [ "$rc" = 2 ] && grep -q 'package(s) gcc libc6-dev:' <<<"$out"; then
	ok every_missing_package_is_named
else
	not_ok every_missing_package_is_named "exit $rc: $out"
fi

mk ""
if [ "$rc" = 0 ] && ! grep -q 'missing Debian' <<<"$out"; then
	ok nothing_missing_builds
else
	not_ok nothing_missing_builds "exit $rc: $out"
fi

mk libpfm4-dev help
if [ "$rc" = 0 ] && grep -q "make TARGET" <<<"$out"; then
	ok help_needs_no_package
else
	not_ok help_needs_no_package "exit $rc: $out"
fi

rc=0
out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL DPKG_QUERY=/nonexistent/dpkg-query \
	"$make" --no-print-directory -n 2>&1 </dev/null) || rc=$?
if [ "$rc" = 0 ] && ! grep -q 'missing Debian' <<<"$out"; then
	ok without_dpkg_query_nothing_is_checked
else
	not_ok without_dpkg_query_nothing_is_checked "exit $rc: $out"
fi
tap_end
