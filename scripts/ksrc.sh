#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Extract the few kernel-tree files the project uses (kselftest harness,
# lib.mk and runner, checkpatch) from Debian's linux-source-6.1 tarball;
# none is packaged alone.
#
# usage: scripts/ksrc.sh [OUTDIR]        (default: build/ksrc)
#
# A stamp file records what was extracted from which tarball, so a second
# call returns at once.
set -euo pipefail

outdir=${1:-build/ksrc}
series=6.1

files=(
	tools/testing/selftests/kselftest_harness.h
	tools/testing/selftests/kselftest.h
	tools/testing/selftests/lib.mk
	tools/testing/selftests/kselftest/runner.sh
	tools/testing/selftests/kselftest/prefix.pl
	tools/testing/selftests/run_kselftest.sh
	scripts/checkpatch.pl
	scripts/spelling.txt
	scripts/const_structs.checkpatch
)

# shellcheck source=scripts/host.sh
. "$(dirname "$0")/host.sh"
tarball=$(linux_source_tarball "$series" ksrc) || exit 1
top=$(basename "$tarball" .tar.xz)

stamp="$outdir/.ksrc-stamp"
want="$tarball $(stat -c '%s %Y' "$tarball") ${files[*]}"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
	exit 0
fi

# The tarball's first entry is its top directory; refuse to strip anything else.
first=$(tar -tJf "$tarball" 2>/dev/null | head -n 1 || true)
if [ "${first%/}" != "$top" ]; then
	echo "ksrc: $tarball: top directory is '$first', expected '$top/'" >&2
	exit 1
fi

mkdir -p "$outdir"
rm -f "$stamp"
members=("${files[@]/#/$top/}")
# --occurrence=1: stop reading once every named member has been found.
if ! tar -xJf "$tarball" -C "$outdir" --strip-components=1 --occurrence=1 \
	"${members[@]}"; then
	echo "ksrc: extracting from $tarball failed" >&2
	exit 1
fi
for f in "${files[@]}"; do
	if [ ! -s "$outdir/$f" ]; then
		echo "ksrc: $f missing after extraction from $tarball" >&2
		exit 1
	fi
done
echo "$want" >"$stamp"
echo "ksrc: extracted ${#files[@]} files from $tarball into $outdir"
