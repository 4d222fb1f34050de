#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch Debian's kernel image for one version without installing it.
#
# usage: scripts/vm/kernel.sh VER OUTDIR
#   VER is a version as scripts/kernels.sh prints it (6.1.0-56-amd64,
#   6.12.117+deb12-amd64).  Writes OUTDIR/vmlinuz-VER and prints its path,
#   and writes OUTDIR/msr-VER.ko: the kernel's own msr.ko (/dev/cpu/N/msr),
#   decompressed here if the package ships it as msr.ko.xz or .zst.
#
# The .deb is kept in $VM_CACHE (default build/vm/cache) and only
# ./boot/vmlinuz-VER and .../lib/modules/VER/kernel/arch/x86/kernel/msr.ko*
# are taken out of it; a second run downloads nothing.
# The signed package (linux-image-VER) and the unsigned one
# (linux-image-VER-unsigned) both carry the same vmlinuz, so whichever apt
# can download first is used.  The module must be built against the headers
# of the same VER, so a missing image is an error, never a substitute.
set -euo pipefail

ver=${1:?usage: kernel.sh VER OUTDIR}
out=${2:?usage: kernel.sh VER OUTDIR}
top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${VM_CACHE:-$top/build/vm/cache}
img=$out/vmlinuz-$ver
msr=$out/msr-$ver.ko

if [ -s "$img" ] && [ -s "$msr" ]; then
	echo "$img"
	exit 0
fi
mkdir -p "$cache" "$out"
cache=$(cd "$cache" && pwd)

member=./boot/vmlinuz-$ver
deb=
for pkg in "linux-image-$ver" "linux-image-$ver-unsigned"; do
	# A cached .deb from an earlier run (any revision) is used as is.
	for f in "$cache/${pkg}_"*_amd64.deb; do
		[ -f "$f" ] && deb=$f
	done
	if [ -z "$deb" ]; then
		echo "kernel.sh: apt-get download $pkg" >&2
		# apt drops privileges to _apt for downloads; it needs to write here.
		chmod 0777 "$cache" 2>/dev/null || true
		(cd "$cache" && apt-get download -q "$pkg" >&2) || continue
		for f in "$cache/${pkg}_"*_amd64.deb; do
			[ -f "$f" ] && deb=$f
		done
	fi
	[ -n "$deb" ] || continue
	# awk reads the whole listing: an early exit would SIGPIPE dpkg-deb.
	if dpkg-deb -c "$deb" | awk -v m="$member" '$NF == m { f = 1 } END { exit !f }'; then
		break
	fi
	echo "kernel.sh: $deb has no $member" >&2
	deb=
done

if [ -z "$deb" ]; then
	echo "kernel.sh: cannot download Debian's image for $ver" \
	     "(linux-image-$ver or linux-image-$ver-unsigned)." >&2
	echo "kernel.sh: the module is built against /lib/modules/$ver/build and" \
	     "must boot that same kernel; run apt-get update, or install the" \
	     "headers of a version whose image apt still offers." >&2
	exit 1
fi

# msr.ko's path in the package: ./lib/modules/... (or ./usr/lib/modules/...
# where /usr is merged), possibly compressed.
msr_member=$(dpkg-deb -c "$deb" | awk -v v="$ver" '
	{ p = $NF; sub(/^\.\/(usr\/)?lib\/modules\//, "", p) }
	p == v "/kernel/arch/x86/kernel/msr.ko" || p == v "/kernel/arch/x86/kernel/msr.ko.xz" ||
	p == v "/kernel/arch/x86/kernel/msr.ko.zst" { m = $NF }
	END { print m }')
if [ -z "$msr_member" ]; then
	echo "kernel.sh: $deb has no msr.ko for $ver (is CONFIG_X86_MSR built in?)" >&2
	exit 1
fi

tmp=$(mktemp -d "$out/.vmlinuz.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" "$member" "$msr_member"
case $msr_member in
*.xz) xz -dc "$tmp/$msr_member" >"$tmp/msr.ko" ;;
*.zst) zstd -qdc "$tmp/$msr_member" >"$tmp/msr.ko" ;;
*) mv "$tmp/$msr_member" "$tmp/msr.ko" ;;
esac
mv "$tmp/msr.ko" "$msr"
mv "$tmp/boot/vmlinuz-$ver" "$img"
echo "$img"
