#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build and cache the patched QEMU the rig's guests run on: Debian's own
# QEMU source (the version of the installed qemu-system-x86) with
# scripts/vm/qemu/*.patch applied (the emulated Intel PMU; its contract is
# scripts/vm/qemu/pmu-spec.md), built for x86_64-softmmu only.  Prints the
# binary's absolute path on stdout; everything else goes to stderr.
#
# usage: scripts/vm/qemu.sh
#
# The cache is ${PMUCTL_CACHE:-/var/cache/pmuctl}:
#   qemu-VERSION-KEY/bin/qemu-system-x86_64    the binary
#   qemu-VERSION-KEY/BUILDINFO                 what went in, how long it took
#   log/qemu-VERSION-KEY.log                   the last build's output
#   src/qemu_VERSION*                          Debian's source package
# VERSION is the source version (1:7.2+dfsg-7+deb12u18 -> 1_7.2_dfsg-7_deb12u18);
# KEY is the first 12 hex digits of a sha256 over each patch (name and
# contents, in name order) and the recipe below.  A hit runs no apt and
# takes well under a second; a miss downloads the source once (apt-get
# source, adding the deb-src entries if apt has none), applies the patches
# with patch -p1 in name order, configures and builds in a temporary folder
# of the cache root, and renames the result into place only once the binary
# runs.  flock keeps two runs from building at once: the second waits and
# then finds the first one's build.
#
# The binary looks for its firmware in /usr/local/share/qemu, which does not
# exist: run it with -L /usr/share/seabios -L /usr/share/qemu
# -L /usr/lib/ipxe/qemu, which Debian's qemu-system-x86 package provides
# (scripts/vm/run.sh does).
#
# Exit status: 0 and the path; or non-zero and, last on stderr, one line
# "qemu.sh: WHY".  No patch in scripts/vm/qemu/ is an error: an unpatched
# build would be Debian's stock QEMU under another name.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
patchdir=$here/qemu
root=${PMUCTL_CACHE:-/var/cache/pmuctl}
srcpkg=qemu
binpkg=qemu-system-x86
target=qemu-system-x86_64
# The recipe: anything here that changes the binary must change this text,
# which is part of the cache key.  /usr/bin comes first in PATH: a pyenv
# python3 shim elsewhere in PATH would otherwise run configure's Python.
sys_path=/usr/bin:/bin:/usr/sbin:/sbin
configure_args=(--target-list=x86_64-softmmu --disable-docs --disable-werror
	--meson=/usr/bin/meson)
recipe="recipe 1; PATH=$sys_path:...; configure ${configure_args[*]}; ninja $target"

die() {
	echo "qemu.sh: $*" >&2
	exit 1
}

if [ $# -ne 0 ]; then
	sed -n 's/^# usage: /usage: /p' "$0" >&2
	exit 2
fi

say() {
	echo "qemu.sh: $*" >&2
}

# --- the key: source version, patches, recipe ----------------------------------

if ! ver=$(dpkg-query -W -f='${source:Version}' "$binpkg" 2>/dev/null) ||
   [ -z "$ver" ]; then
	die "$binpkg is not installed, so there is no QEMU version to build (scripts/deps.sh vm)"
fi
patches=()
if [ -d "$patchdir" ]; then
	while IFS= read -r p; do
		patches+=("$p")
	done < <(find "$patchdir" -maxdepth 1 -type f -name '*.patch' | LC_ALL=C sort)
fi
if [ ${#patches[@]} -eq 0 ]; then
	die "no *.patch in ${patchdir#"$(cd "$here/../.." && pwd)"/}: nothing to build (the rig never runs Debian's stock QEMU in its place)"
fi
key=$(
	for p in "${patches[@]}"; do
		printf 'patch %s %s\n' "$(basename "$p")" "$(sha256sum <"$p" | cut -d' ' -f1)"
	done
	printf '%s\n' "$recipe"
)
key=$(printf '%s\n' "$key" | sha256sum | cut -c1-12)
name=qemu-${ver//[^A-Za-z0-9._-]/_}-$key
bin=$root/$name/bin/$target

if [ -x "$bin" ]; then
	echo "$bin"
	exit 0
fi

# --- a miss: build under the lock -----------------------------------------------

if ! mkdir -p "$root" 2>/dev/null || [ ! -w "$root" ]; then
	die "cannot write the cache $root: run as root or set PMUCTL_CACHE"
fi
root=$(cd "$root" && pwd)
bin=$root/$name/bin/$target
exec 9>>"$root/.lock"
if ! flock -n 9; then
	say "another qemu.sh is building in $root; waiting for it"
	flock 9
fi
if [ -x "$bin" ]; then
	echo "$bin"
	exit 0
fi

mkdir -p "$root/log" "$root/src"
# A build killed before its trap ran left its folder; none runs now.
rm -rf "$root"/.build-*
log=$root/log/$name.log
: >"$log"
tmp=$(mktemp -d "$root/.build-XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# fail WHAT: the reason, with the log's last lines before it.
fail() {
	tail -n 15 "$log" | sed 's/^/  | /' >&2
	die "$1 (log: $log)"
}

# The deb-src entries for Debian's archive and its security archive, with the
# URIs and keys of the deb entries in debian.sources.
src_list=/etc/apt/sources.list.d/pmuctl-src.sources
deb_src_entries() {
	local codename=bookworm sources=/etc/apt/sources.list.d/debian.sources
	local main_uri=http://deb.debian.org/debian sec_uri=http://deb.debian.org/debian-security
	local main_key=/usr/share/keyrings/debian-archive-keyring.gpg sec_key
	# shellcheck disable=SC1091 # the system's, not ours
	[ -r /etc/os-release ] && codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
	if [ -r "$sources" ]; then
		eval "$(awk -v c="$codename" '
			function flush() {
				if (types ~ /(^| )deb( |$)/) {
					if (suites ~ "(^| )" c "-security( |$)") { su = uris; sk = key }
					else if (suites ~ "(^| )" c "( |$)") { mu = uris; mk = key }
				}
				types = suites = uris = key = ""
			}
			/^[ \t]*$/ { flush(); next }
			/^Types:/ { sub(/^Types:[ \t]*/, ""); types = $0 }
			/^Suites:/ { sub(/^Suites:[ \t]*/, ""); suites = $0 }
			/^URIs:/ { sub(/^URIs:[ \t]*/, ""); uris = $0 }
			/^Signed-By:/ { sub(/^Signed-By:[ \t]*/, ""); key = $0 }
			END {
				flush()
				if (mu != "") printf "main_uri=\047%s\047\nmain_key=\047%s\047\n", mu, mk
				if (su != "") printf "sec_uri=\047%s\047\nsec_key=\047%s\047\n", su, sk
			}' "$sources")"
	fi
	printf 'Types: deb-src\nURIs: %s\nSuites: %s %s-updates\nComponents: main\nSigned-By: %s\n' \
		"$main_uri" "$codename" "$codename" "$main_key"
	printf '\nTypes: deb-src\nURIs: %s\nSuites: %s-security\nComponents: main\nSigned-By: %s\n' \
		"$sec_uri" "$codename" "${sec_key:-$main_key}"
}

has_source() {
	# grep reads it all: an early exit would SIGPIPE apt-cache (pipefail).
	apt-cache showsrc "$srcpkg" 2>/dev/null | grep -x "Version: $ver" >/dev/null
}

# The source package, downloaded once into src/ and unpacked per build.
dsc=$root/src/${srcpkg}_${ver#*:}.dsc
if [ ! -f "$dsc" ]; then
	want=$(deb_src_entries)
	changed=false
	if [ "$(cat "$src_list" 2>/dev/null)" != "$want" ]; then
		[ "$(id -u)" -eq 0 ] ||
			die "apt has no deb-src entries ($src_list): run once as root"
		say "writing $src_list (deb-src for Debian's archive and security archive)"
		printf '%s\n' "$want" >"$src_list"
		changed=true
	fi
	if $changed || ! has_source; then
		[ "$(id -u)" -eq 0 ] || die "apt knows no source for $srcpkg $ver: run apt-get update as root"
		say "apt-get update"
		DEBIAN_FRONTEND=noninteractive apt-get update -q >>"$log" 2>&1 ||
			fail "apt-get update failed"
	fi
	has_source ||
		die "apt offers no source for $srcpkg $ver (is a newer $binpkg out? apt-get install --only-upgrade $binpkg)"
	say "apt-get source --download-only $srcpkg=$ver"
	dl=$tmp/download
	mkdir -p "$dl"
	# apt drops privileges to _apt for downloads; it needs to write there.
	chown _apt "$dl" 2>/dev/null || true
	(cd "$dl" && apt-get source -q --download-only "$srcpkg=$ver") >>"$log" 2>&1 ||
		fail "apt-get source $srcpkg=$ver failed"
	[ -f "$dl/$(basename "$dsc")" ] || fail "apt-get source left no $(basename "$dsc")"
	mv "$dl"/* "$root/src/"
fi

export PATH=$sys_path:$PATH
t0=$(date +%s)
src=$tmp/src
say "building $name: dpkg-source -x, ${#patches[@]} patch(es), configure, ninja -j$(nproc) $target (about 5 min on 2 cores; log: $log)"
dpkg-source -x "$dsc" "$src" >>"$log" 2>&1 || fail "dpkg-source -x $(basename "$dsc") failed"
for p in "${patches[@]}"; do
	echo "== patch -p1 < $p" >>"$log"
	patch -d "$src" -p1 --batch --forward -i "$p" >>"$log" 2>&1 ||
		fail "$(basename "$p") does not apply to $srcpkg $ver"
done
t1=$(date +%s)
mkdir "$src/build"
(cd "$src/build" && ../configure "${configure_args[@]}") >>"$log" 2>&1 ||
	fail "configure failed"
t2=$(date +%s)
(cd "$src/build" && ninja -j"$(nproc)" "$target") >>"$log" 2>&1 ||
	fail "ninja $target failed"
t3=$(date +%s)

out=$tmp/out
mkdir -p "$out/bin"
cp "$src/build/$target" "$out/bin/"
"$out/bin/$target" -version >>"$log" 2>&1 || fail "the new $target does not run"
{
	echo "source: $srcpkg $ver (Debian)"
	for p in "${patches[@]}"; do
		echo "patch: $(basename "$p") $(sha256sum <"$p" | cut -d' ' -f1)"
	done
	echo "$recipe"
	echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(nproc) CPU(s):" \
	     "unpack+patch $((t1 - t0)) s, configure $((t2 - t1)) s, ninja $((t3 - t2)) s"
} >"$out/BUILDINFO"
rm -rf "${root:?}/$name"
mv "$out" "$root/$name"
say "built $name in $((t3 - t0)) s (configure $((t2 - t1)) s, ninja $((t3 - t2)) s)"
echo "$bin"
