#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build and cache the rig's debug kernel: Debian's linux-source-6.12 with
# a small config for the rig's guests (scripts/vm/dkernel.config merged
# over allnoconfig) that turns on lockdep (PROVE_LOCKING), DEBUG_ATOMIC_SLEEP,
# generic KASAN, KFENCE, UBSAN, kmemleak, DEBUG_OBJECTS and GCOV_KERNEL.
# Prints the kernel tree's absolute path on stdout; everything else goes to
# stderr.  scripts/vm/run.sh -D boots TREE/arch/x86/boot/bzImage and builds
# pmuctl.ko with "make -C TREE M=...", its release in
# TREE/include/config/kernel.release.
#
# usage: scripts/vm/dkernel.sh
#
# The cache is ${PMUCTL_CACHE:-/var/cache/pmuctl}, as for scripts/vm/qemu.sh:
#   dkernel-VERSION-KEY/linux/      the built tree (sources, .config,
#                                   bzImage, vmlinux, Module.symvers)
#   dkernel-VERSION-KEY/BUILDINFO   what went in, how long it took
#   log/dkernel-VERSION-KEY.log     the last build's output
# VERSION is linux-source-6.12's package version (6.12.117-1~deb12u1 ->
# 6.12.117-1_deb12u1); KEY is the first 12 hex digits of a sha256 over
# dkernel.config, this script and the compiler's version.  A hit takes well
# under a second.  A miss unpacks /usr/src/linux-source-6.12.tar.xz in a
# temporary folder of the cache root, configures, runs
# "make bzImage modules_prepare" (no "make modules": the config's modules,
# KVM's, are only there to select PREEMPT_NOTIFIERS), takes vmlinux's symbol
# table as Module.symvers (what "make modules" would write with no module
# exporting anything we use), and renames the folder into place once
# bzImage exists.  The tree is built in place (no O=), so it still works
# after the rename.  flock keeps two runs from building at once.
#
# Exit status: 0 and the path; or non-zero and, last on stderr, one line
# "dkernel.sh: WHY".
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
fragment=$here/dkernel.config
root=${PMUCTL_CACHE:-/var/cache/pmuctl}
srcpkg=linux-source-6.12
tarball=/usr/src/$srcpkg.tar.xz
localversion=-pmuctl-debug
sys_path=/usr/bin:/bin:/usr/sbin:/sbin

die() {
	echo "dkernel.sh: $*" >&2
	exit 1
}

say() {
	echo "dkernel.sh: $*" >&2
}

if [ $# -ne 0 ]; then
	sed -n 's/^# usage: /usage: /p' "$0" >&2
	exit 2
fi

# --- the key: source version, fragment, recipe, compiler -----------------------

if ! ver=$(dpkg-query -W -f='${Version}' "$srcpkg" 2>/dev/null) || [ -z "$ver" ] ||
   [ ! -f "$tarball" ]; then
	die "$srcpkg is not installed ($tarball): apt-get install $srcpkg (scripts/deps.sh vm)"
fi
[ -f "$fragment" ] || die "no $fragment"
cc_ver=$(PATH=$sys_path gcc --version 2>/dev/null | head -n 1) || die "no gcc"
key=$(
	printf 'fragment %s\n' "$(sha256sum <"$fragment" | cut -d' ' -f1)"
	printf 'recipe %s\n' "$(sha256sum <"$0" | cut -d' ' -f1)"
	printf 'cc %s\n' "$cc_ver"
)
key=$(printf '%s\n' "$key" | sha256sum | cut -c1-12)
name=dkernel-${ver//[^A-Za-z0-9._-]/_}-$key
tree=$root/$name/linux

if [ -f "$tree/arch/x86/boot/bzImage" ] && [ -f "$tree/Module.symvers" ]; then
	echo "$tree"
	exit 0
fi

# --- a miss: build under the lock -----------------------------------------------

if ! mkdir -p "$root" 2>/dev/null || [ ! -w "$root" ]; then
	die "cannot write the cache $root: run as root or set PMUCTL_CACHE"
fi
root=$(cd "$root" && pwd)
tree=$root/$name/linux
exec 9>>"$root/.dkernel.lock"
if ! flock -n 9; then
	say "another dkernel.sh is building in $root; waiting for it"
	flock 9
fi
if [ -f "$tree/arch/x86/boot/bzImage" ] && [ -f "$tree/Module.symvers" ]; then
	echo "$tree"
	exit 0
fi

mkdir -p "$root/log"
# A build killed before its trap ran left its folder; none runs now.
rm -rf "$root"/.dkernel-*
log=$root/log/$name.log
: >"$log"
tmp=$(mktemp -d "$root/.dkernel-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

fail() {
	tail -n 15 "$log" | sed 's/^/  | /' >&2
	die "$1 (log: $log)"
}

export PATH=$sys_path:$PATH
t0=$(date +%s)
jobs=$(nproc)
say "building $name: unpack, allnoconfig + ${fragment##*/}, make -j$jobs bzImage modules_prepare (about 10 min on 2 idle cores; log: $log)"
tar -xf "$tarball" -C "$tmp" >>"$log" 2>&1 || fail "cannot unpack $tarball"
src=$tmp/$srcpkg
[ -f "$src/Makefile" ] || fail "$tarball has no $srcpkg/Makefile"
t1=$(date +%s)

# The config: allnoconfig, the fragment, LOCALVERSION; olddefconfig fills in
# the rest.  Every line of the fragment must hold in the result.
frag=$tmp/fragment.config
{
	cat "$fragment"
	echo "CONFIG_LOCALVERSION=\"$localversion\""
	echo "# CONFIG_LOCALVERSION_AUTO is not set"
} >"$frag"
(cd "$src" && ./scripts/kconfig/merge_config.sh -n .config "$frag") >>"$log" 2>&1 ||
	fail "merge_config.sh failed"
(cd "$src" && make olddefconfig) >>"$log" 2>&1 || fail "make olddefconfig failed"
missing=$(grep -E '^CONFIG_|^# CONFIG_.* is not set$' "$frag" | while IFS= read -r l; do
	grep -qxF "$l" "$src/.config" || echo "$l"
done)
if [ -n "$missing" ]; then
	echo "not in the final .config:" >>"$log"
	echo "$missing" >>"$log"
	fail "the config lost $(echo "$missing" | wc -l) line(s) of ${fragment##*/}: $(echo "$missing" | head -n 3 | tr '\n' ' ')"
fi
t2=$(date +%s)

(cd "$src" && make -j"$jobs" bzImage modules_prepare) >>"$log" 2>&1 ||
	fail "make bzImage modules_prepare failed"
[ -f "$src/arch/x86/boot/bzImage" ] && [ -f "$src/vmlinux.symvers" ] ||
	fail "the build left no bzImage or vmlinux.symvers"
cp "$src/vmlinux.symvers" "$src/Module.symvers"
t3=$(date +%s)

release=$(cat "$src/include/config/kernel.release")
{
	echo "source: $srcpkg $ver (Debian, $tarball)"
	echo "fragment: ${fragment##*/} $(sha256sum <"$fragment" | cut -d' ' -f1)"
	echo "compiler: $cc_ver"
	echo "release: $release"
	echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $jobs CPU(s):" \
	     "unpack $((t1 - t0)) s, config $((t2 - t1)) s, make $((t3 - t2)) s"
} >"$tmp/BUILDINFO"
mkdir "$tmp/out"
mv "$src" "$tmp/out/linux"
mv "$tmp/BUILDINFO" "$tmp/out/"
rm -rf "${root:?}/$name"
mv "$tmp/out" "$root/$name"
say "built $name ($release) in $((t3 - t0)) s (unpack $((t1 - t0)) s, config $((t2 - t1)) s, make $((t3 - t2)) s)"
echo "$tree"
