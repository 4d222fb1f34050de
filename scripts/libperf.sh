#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build libperf (the kernel's tools/lib/perf, with the tools/lib/api it
# links) from Debian's linux-source-6.1 tarball, for make bench's counted
# row of perf_evsel__read(): Debian packages no libperf.  Only the tools
# tree's parts the two libraries need are extracted, into OUTDIR; both are
# built with -O2 (the kernel's Makefile gives them no optimisation of its
# own), as a distribution's package would be.
#
# usage: scripts/libperf.sh [OUTDIR]     (default: build/libperf)
#   then: -I OUTDIR/tools/lib/perf/include
#         OUTDIR/tools/lib/perf/libperf.a OUTDIR/tools/lib/api/libapi.a
#
# A stamp file records the tarball and the flags, so a second call
# returns at once.
set -euo pipefail

outdir=${1:-build/libperf}
series=6.1
cflags=-O2

parts=(tools/lib/perf tools/lib/api tools/lib/'*.c' tools/include
       tools/arch/x86/include tools/build tools/scripts)

# shellcheck source=scripts/host.sh
. "$(dirname "$0")/host.sh"
tarball=$(linux_source_tarball "$series" libperf) || exit 1
top=$(basename "$tarball" .tar.xz)

stamp="$outdir/.libperf-stamp"
want="$tarball $(stat -c '%s %Y' "$tarball") $cflags ${parts[*]}"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] &&
   [ -s "$outdir/tools/lib/perf/libperf.a" ] && [ -s "$outdir/tools/lib/api/libapi.a" ]; then
	exit 0
fi

rm -rf "$outdir"
mkdir -p "$outdir"
members=()
for p in "${parts[@]}"; do
	case $p in
	*'*'*) members+=("$top/$p") ;;
	*) members+=("$top/$p/*") ;;
	esac
done
if ! tar -xJf "$tarball" -C "$outdir" --strip-components=1 --wildcards "${members[@]}"; then
	echo "libperf: extracting tools/lib/perf from $tarball failed" >&2
	exit 1
fi
for lib in api perf; do
	if ! make -s -C "$outdir/tools/lib/$lib" EXTRA_CFLAGS="$cflags" "lib$lib.a" \
		>"$outdir/lib$lib.log" 2>&1; then
		echo "libperf: building lib$lib.a failed; see $outdir/lib$lib.log" >&2
		tail -n 20 "$outdir/lib$lib.log" >&2
		exit 1
	fi
done
echo "$want" >"$stamp"
echo "libperf: built libperf.a and libapi.a ($cflags) from $tarball into $outdir"
