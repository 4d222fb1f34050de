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
# With VARIANT, a second kernel: scripts/vm/dkernel-VARIANT.config applied
# over that result in a second pass (merge_config.sh -m, olddefconfig), a
# line of it winning over dkernel.config's line for the same symbol; its
# own cache folder (dkernel-VARIANT-VERSION-KEY) and release
# (-pmuctl-VARIANT).  There is one, "rt" (dkernel-rt.config): PREEMPT_RT
# with lockdep and DEBUG_ATOMIC_SLEEP, no KASAN, KFENCE, UBSAN, kmemleak or
# gcov; scripts/vm/run.sh -E boots it.  A second pass because PREEMPT_RT
# needs EXPERT, and allnoconfig with EXPERT on would turn off every
# feature EXPERT merely hides (futex, epoll, timers ...).
#
# usage: scripts/vm/dkernel.sh [VARIANT]
#
# The cache is ${PMUCTL_CACHE:-/var/cache/pmuctl}, as for scripts/vm/qemu.sh:
#   dkernel-VERSION-KEY/linux/      the built tree (sources, .config,
#                                   bzImage, vmlinux, Module.symvers)
#   dkernel-VERSION-KEY/BUILDINFO   what went in, how long it took
#   log/dkernel-VERSION-KEY.log     the last build's output
# (dkernel-VARIANT-VERSION-KEY for a VARIANT).  VERSION is
# linux-source-6.12's package version (6.12.117-1~deb12u1 ->
# 6.12.117-1_deb12u1); KEY is the first 12 hex digits of a sha256 over
# dkernel.config, this script and the compiler's version, and the
# VARIANT's name and fragment if one is given.  A hit takes well under a
# second.  A miss unpacks /usr/src/linux-source-6.12.tar.xz in a
# temporary folder of the cache root, configures, runs
# "make bzImage modules_prepare" (no "make modules": the config's modules,
# KVM's, are only there to select PREEMPT_NOTIFIERS), takes vmlinux's symbol
# table as Module.symvers (what "make modules" would write with no module
# exporting anything we use), and renames the folder into place once
# bzImage exists.  The tree is built in place (no O=), so it still works
# after the rename.  flock keeps two runs from building at once, whatever
# their variants (one lock: two kernel builds at once would only share the
# same cores).
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

variant=${1:-}
if [ $# -gt 1 ] || [[ -n $variant && ! $variant =~ ^[a-z0-9]+$ ]]; then
	sed -n 's/^# usage: /usage: /p' "$0" >&2
	exit 2
fi
vfragment=
if [ -n "$variant" ]; then
	vfragment=$here/dkernel-$variant.config
	localversion=-pmuctl-$variant
	[ -f "$vfragment" ] || die "no variant $variant: no $vfragment"
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
	[ -z "$variant" ] ||
		printf 'variant %s %s\n' "$variant" "$(sha256sum <"$vfragment" | cut -d' ' -f1)"
)
key=$(printf '%s\n' "$key" | sha256sum | cut -c1-12)
name=dkernel-${variant:+$variant-}${ver//[^A-Za-z0-9._-]/_}-$key
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
say "building $name: unpack, allnoconfig + ${fragment##*/}${vfragment:+, then ${vfragment##*/}}, make -j$jobs bzImage modules_prepare (about 10 min on 2 idle cores; log: $log)"
tar -xf "$tarball" -C "$tmp" >>"$log" 2>&1 || fail "cannot unpack $tarball"
src=$tmp/$srcpkg
[ -f "$src/Makefile" ] || fail "$tarball has no $srcpkg/Makefile"
t1=$(date +%s)

# The config: allnoconfig, the fragment, LOCALVERSION; olddefconfig fills in
# the rest.  A VARIANT's fragment then goes over that .config
# (merge_config.sh -m) and olddefconfig again, which keeps every value the
# first pass set unless the fragment changes it.  Every line of the
# fragments must hold in the result, a VARIANT's line replacing
# dkernel.config's for the same symbol; "# CONFIG_X is not set" also holds
# where CONFIG_X is absent (kconfig leaves out a symbol whose dependencies
# are off: KASAN_GENERIC without KASAN).
frag=$tmp/fragment.config
{
	cat "$fragment"
	echo "CONFIG_LOCALVERSION=\"$localversion\""
	echo "# CONFIG_LOCALVERSION_AUTO is not set"
} >"$frag"
(cd "$src" && ./scripts/kconfig/merge_config.sh -n .config "$frag") >>"$log" 2>&1 ||
	fail "merge_config.sh failed"
(cd "$src" && make olddefconfig) >>"$log" 2>&1 || fail "make olddefconfig failed"
want=$frag
if [ -n "$variant" ]; then
	(cd "$src" && ./scripts/kconfig/merge_config.sh -m .config "$vfragment") >>"$log" 2>&1 ||
		fail "merge_config.sh -m ${vfragment##*/} failed"
	(cd "$src" && make olddefconfig) >>"$log" 2>&1 ||
		fail "make olddefconfig (${vfragment##*/}) failed"
	want=$tmp/want.config
	# The variant's symbols, then dkernel.config's lines for the others.
	awk 'function sym(l) {
		if (match(l, /^CONFIG_[A-Za-z0-9_]+=/)) return substr(l, 1, RLENGTH - 1)
		if (match(l, /^# CONFIG_[A-Za-z0-9_]+ is not set$/)) return substr(l, 3, RLENGTH - 13)
		return ""
	     }
	     NR == FNR { if ((s = sym($0)) != "") { v[s] = 1; print } next }
	     (s = sym($0)) != "" && !(s in v)' "$vfragment" "$frag" >"$want"
fi
missing=$(grep -E '^CONFIG_|^# CONFIG_.* is not set$' "$want" | while IFS= read -r l; do
	grep -qxF "$l" "$src/.config" && continue
	if [[ $l =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set$ ]] &&
	   ! grep -q "^${BASH_REMATCH[1]}=" "$src/.config"; then
		continue
	fi
	echo "$l"
done)
if [ -n "$missing" ]; then
	echo "not in the final .config:" >>"$log"
	echo "$missing" >>"$log"
	fail "the config lost $(echo "$missing" | wc -l) line(s) of ${fragment##*/}${vfragment:+ + ${vfragment##*/}}: $(echo "$missing" | head -n 3 | tr '\n' ' ')"
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
	[ -z "$variant" ] ||
		echo "variant: $variant, ${vfragment##*/} $(sha256sum <"$vfragment" | cut -d' ' -f1)"
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
