#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# TAP test of "make install" and "make uninstall" (mk/install.mk), into
# staging directories (DESTDIR), as a packager runs them:
#  - PREFIX=/usr installs exactly the expected files, with their modes,
#    links and contents;
#  - a program compiled with "pkg-config --cflags --libs libpmuctl" against
#    the staged tree links and runs with the shared library, and with
#    --static as a static program (selftests/install/probe.c and the
#    example of libpmuctl(3)); the installed header also compiles as C++;
#  - the staged DKMS tree builds pmuctl.ko the way DKMS does (dkms.conf's
#    MAKE in a copy of it) for each kernel whose headers are installed,
#    and the modprobe.d example documents every parameter of that module;
#  - uninstall leaves no file; LIBDIR and the default PREFIX are honoured.
# Runs make in this tree (it builds what install needs).

cd "$(dirname "$0")/../.." || exit 1
. selftests/tap.sh

make=${MAKE:-make}
cc=${CC:-gcc}
cxx=${CXX:-g++}
version=$(sed -n 's/^VERSION := *//p' Makefile)
[ -n "$version" ] || bail "no 'VERSION := ...' line in Makefile"
command -v pkg-config >/dev/null || bail "no pkg-config: scripts/deps.sh pkg-config"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# mk ARGS...: run make quietly, its output in $tmp/make.log.
mk() {
	"$make" -s --no-print-directory "$@" >"$tmp/make.log" 2>&1
}

# The files under a staged tree, relative to it, links included.
tree() {
	(cd "$1" && find . \( -type f -o -type l \) | sed 's|^\./||' | LC_ALL=C sort)
}

# --- install with PREFIX=/usr ------------------------------------------------

root=$tmp/root
if ! mk install DESTDIR="$root" PREFIX=/usr; then
	not_ok install_prefix_usr "make install DESTDIR=$root PREFIX=/usr failed:" \
		"$(tail -n 30 "$tmp/make.log")"
	tap_end
	exit 1
fi
ok install_prefix_usr

src=usr/src/pmuctl-$version
# What install must write, from the tree's own lists (user/man, the module
# sources Kbuild builds), and the fixed rest.
{
	printf '%s\n' usr/bin/pmuctl usr/include/libpmuctl.h \
		usr/include/linux/pmuctl.h usr/lib/libpmuctl.a usr/lib/libpmuctl.so \
		usr/lib/libpmuctl.so.1 usr/lib/libpmuctl.so.1.0.0 \
		usr/lib/pkgconfig/libpmuctl.pc usr/lib/udev/rules.d/60-pmuctl.rules \
		usr/include/pmuctl-likwid/likwid-marker.h usr/include/pmuctl-likwid/likwid.h \
		usr/include/pmuctl-papi-hl/papi.h \
		usr/lib/pkgconfig/pmuctl-likwid.pc usr/lib/pkgconfig/pmuctl-papi-hl.pc \
		usr/share/doc/pmuctl/pmuctl.conf usr/share/bash-completion/completions/pmuctl \
		usr/share/doc/pmuctl/pmuctl.default usr/lib/systemd/system/pmuctl-exporter.service \
		"$src/Kbuild" "$src/dkms.conf" \
		"$src/uapi/linux/pmuctl.h"
	for l in likwid papi-hl; do
		printf '%s\n' "usr/lib/libpmuctl-$l.a" "usr/lib/libpmuctl-$l.so" \
			"usr/lib/libpmuctl-$l.so.1" "usr/lib/libpmuctl-$l.so.1.0.0"
	done
	(cd user/man && find man1 man3 -type f) | sed 's|^|usr/share/man/|'
	find kmod -type f -name '*.[ch]' | sed "s|^|$src/|"
} | LC_ALL=C sort >"$tmp/expected"
tree "$root" >"$tmp/installed"
if cmp -s "$tmp/expected" "$tmp/installed"; then
	ok install_writes_the_expected_files
else
	not_ok install_writes_the_expected_files \
		"missing: $(LC_ALL=C comm -23 "$tmp/expected" "$tmp/installed" | tr '\n' ' ')" \
		"unexpected: $(LC_ALL=C comm -13 "$tmp/expected" "$tmp/installed" | tr '\n' ' ')"
fi

# Modes, links, and the copies equal to their sources.
d=()
while read -r f; do
	p=$root/$f
	case $f in
	usr/lib/libpmuctl*.so | usr/lib/libpmuctl*.so.1)
		t=${f#usr/lib/}
		t=${t%.so*}.so.1.0.0
		[ -L "$p" ] && [ "$(readlink "$p")" = "$t" ] ||
			d+=("$f: want a link to $t, is $(ls -l "$p")")
		continue ;;
	usr/bin/pmuctl | usr/lib/libpmuctl*.so.1.0.0) want=755 ;;
	*) want=644 ;;
	esac
	if [ ! -f "$p" ] || [ -L "$p" ]; then
		d+=("$f: not a regular file")
		continue
	fi
	mode=$(stat -c %a "$p")
	[ "$mode" = "$want" ] || d+=("$f: mode $mode, want $want")
done <"$tmp/installed"
for pair in user/libpmuctl.h:usr/include/libpmuctl.h \
	    uapi/linux/pmuctl.h:usr/include/linux/pmuctl.h \
	    dist/60-pmuctl.rules:usr/lib/udev/rules.d/60-pmuctl.rules \
	    dist/pmuctl.conf:usr/share/doc/pmuctl/pmuctl.conf \
	    dist/pmuctl.default:usr/share/doc/pmuctl/pmuctl.default \
	    dist/pmuctl.bash:usr/share/bash-completion/completions/pmuctl \
	    build/bin/pmuctl:usr/bin/pmuctl build/lib/libpmuctl.a:usr/lib/libpmuctl.a \
	    build/lib/libpmuctl.so.1.0.0:usr/lib/libpmuctl.so.1.0.0 \
	    build/dist/dkms.conf:$src/dkms.conf Kbuild:$src/Kbuild \
	    user/likwid/likwid-marker.h:usr/include/pmuctl-likwid/likwid-marker.h \
	    user/papi-hl/papi.h:usr/include/pmuctl-papi-hl/papi.h \
	    build/lib/libpmuctl-likwid.so.1.0.0:usr/lib/libpmuctl-likwid.so.1.0.0 \
	    build/lib/libpmuctl-papi-hl.a:usr/lib/libpmuctl-papi-hl.a; do
	cmp -s "${pair%%:*}" "$root/${pair#*:}" || d+=("${pair#*:} differs from ${pair%%:*}")
done
if [ ${#d[@]} = 0 ]; then
	ok installed_files_have_their_modes_links_and_contents
else
	not_ok installed_files_have_their_modes_links_and_contents "${d[@]}"
fi

# --- programs built against the staged tree ----------------------------------

export PKG_CONFIG_SYSROOT_DIR=$root PKG_CONFIG_LIBDIR=$root/usr/lib/pkgconfig
pcv=$(pkg-config --modversion libpmuctl 2>&1)
if grep -qx "prefix=/usr" "$root/usr/lib/pkgconfig/libpmuctl.pc" &&
   [ "$pcv" = "$version" ]; then
	ok pc_file_has_prefix_and_version
else
	not_ok pc_file_has_prefix_and_version "pkg-config --modversion: $pcv (want $version)" \
		"$(cat "$root/usr/lib/pkgconfig/libpmuctl.pc")"
fi

# probe.c's output, from its comment; the example's, with no device: the
# library's explanation (pmuctl_strerror() after pmuctl_open()), on a
# made-up Intel CPU with a PMU ($PMUCTL_CPUINFO).
printf '%s\n' 'instruction_retired:u 0x100c0 0x0' 'EDGE_NO_CMASK knm ix86arch' \
	>"$tmp/probe.want"
printf 'processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: fpu arch_perfmon\n' >"$tmp/cpuinfo"
if [ -e /sys/module/pmuctl ]; then
	echo "pmuctl_open: $tmp/no-device does not exist although the pmuctl module is loaded: fix or unset PMUCTL_DEVICE"
else
	echo "pmuctl_open: $tmp/no-device does not exist: the pmuctl module is not loaded; load it with 'sudo modprobe pmuctl' (or 'sudo insmod pmuctl.ko' in the build tree), or fix PMUCTL_DEVICE"
fi >"$tmp/example.want"
awk '/^\.SH EXAMPLES/ { ex = 1 } ex && /^\.EE/ { exit } ex && on { print } ex && /^\.EX/ { on = 1 }' \
	user/man/man3/libpmuctl.3 | sed -e 's/\\-/-/g' -e 's/\\e/\\/g' >"$tmp/example.c"
cp selftests/install/probe.c "$tmp/probe.c"

# build_run NAME PROG LINK [PC [CFLAG]]: compile $tmp/PROG.c with LINK
# ("shared" or "static") and pkg-config's flags of PC (default libpmuctl)
# and CFLAG, and run it with no device; its stdout and stderr must be
# $tmp/PROG.want.
build_run() {
	local name=$1 prog=$2 link=$3 pc=${4:-libpmuctl} bin=$tmp/$2-$3 flags out
	local -a extra=()

	[ -z "${5:-}" ] || extra=("$5")
	if [ "$link" = static ]; then
		flags=$(pkg-config --static --cflags --libs "$pc") || {
			not_ok "$name" "pkg-config --static $pc failed"; return; }
		extra+=(-static)
	else
		flags=$(pkg-config --cflags --libs "$pc") || {
			not_ok "$name" "pkg-config $pc failed"; return; }
		# A drop-in needs libpmuctl.so.1, which ld looks for in the
		# system's folders: here it is in the staged tree.
		extra+=(-Wl,-rpath-link,"$root/usr/lib")
	fi
	# shellcheck disable=SC2086 # flags is a list of words
	if ! out=$("$cc" "${extra[@]}" -std=gnu11 -Wall -Wextra -Werror -o "$bin" \
			"$tmp/$prog.c" $flags 2>&1); then
		not_ok "$name" "$cc ${extra[*]} $prog.c $flags:" "$(head -n 20 <<<"$out")"
		return
	fi
	if [ "$link" = static ]; then
		if readelf -d "$bin" 2>/dev/null | grep -q NEEDED; then
			not_ok "$name" "$bin needs shared libraries:" "$(readelf -d "$bin" | grep NEEDED)"
			return
		fi
	else
		# The loader takes libpmuctl.so.1 from the staged tree.
		out=$(LD_LIBRARY_PATH=$root/usr/lib ldd "$bin" 2>&1)
		if ! grep -q "libpmuctl\.so\.1 => $root/usr/lib/libpmuctl\.so\.1 " <<<"$out"; then
			not_ok "$name" "ldd does not resolve libpmuctl.so.1 to $root/usr/lib:" "$out"
			return
		fi
	fi
	out=$(PMUCTL_DEVICE=$tmp/no-device PMUCTL_CPUINFO=$tmp/cpuinfo \
		LD_LIBRARY_PATH=$root/usr/lib "$bin" 2>&1)
	if [ "$out" = "$(cat "$tmp/$prog.want")" ]; then
		ok "$name"
	else
		not_ok "$name" "want:" "$(cat "$tmp/$prog.want")" "got:" "$out"
	fi
}

build_run probe_links_shared_and_runs probe shared
build_run probe_links_static_and_runs probe static
build_run libpmuctl_3_example_links_shared_and_runs example shared
build_run libpmuctl_3_example_links_static_and_runs example static

# The drop-ins: an unmodified LIKWID-instrumented program and a PAPI
# high-level one, built with pmuctl-likwid's and pmuctl-papi-hl's flags as
# their users build them; run without pmuctl they run unchanged.
cat >"$tmp/likwid.c" <<'EOF'
#include <stdio.h>
#include <likwid-marker.h>

int main(void)
{
	double ev[4], t = -1;
	int n = 4, c = -1;

	LIKWID_MARKER_INIT;
	LIKWID_MARKER_THREADINIT;
	LIKWID_MARKER_REGISTER("solve");
	LIKWID_MARKER_START("solve");
	LIKWID_MARKER_STOP("solve");
	LIKWID_MARKER_GET("solve", &n, ev, &t, &c);
	printf("solve: %d events, %d calls, time %g\n", n, c, t);
	LIKWID_MARKER_CLOSE;
	return 0;
}
EOF
echo "solve: 0 events, 0 calls, time 0" >"$tmp/likwid.want"
cat >"$tmp/papi.c" <<'EOF'
#include <stdio.h>
#include "papi.h"

int main(void)
{
	int b = PAPI_hl_region_begin("solve");
	int r = PAPI_hl_read("solve");
	int e = PAPI_hl_region_end("solve");

	printf("%d %d %d %d\n", b, r, e, PAPI_hl_stop());
	return b != PAPI_OK;
}
EOF
echo "0 0 0 0" >"$tmp/papi.want"
build_run likwid_program_links_shared_and_runs likwid shared pmuctl-likwid -DLIKWID_PERFMON
build_run likwid_program_links_static_and_runs likwid static pmuctl-likwid -DLIKWID_PERFMON
build_run papi_hl_program_links_shared_and_runs papi shared pmuctl-papi-hl
build_run papi_hl_program_links_static_and_runs papi static pmuctl-papi-hl

if command -v "$cxx" >/dev/null; then
	printf '#include <libpmuctl.h>\nint main() { return pmuctl_get_counters(0) == 0; }\n' \
		>"$tmp/cxx.cc"
	# shellcheck disable=SC2046 # a list of words
	check installed_header_compiles_as_cxx "$cxx" -Wall -Wextra -Werror -c \
		-o "$tmp/cxx.o" "$tmp/cxx.cc" $(pkg-config --cflags libpmuctl)
else
	skip installed_header_compiles_as_cxx "no C++ compiler $cxx"
fi
unset PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_LIBDIR

# --- the DKMS tree builds the module -----------------------------------------

# As DKMS does: copy the source tree to $dkms_tree/NAME/VERSION/build and
# run dkms.conf's MAKE[0] there (dkms itself is not needed).
kernels=$(bash scripts/kernels.sh installed 2>/dev/null)
[ -n "$kernels" ] || not_ok dkms_tree_builds_pmuctl_ko \
	"no kernel headers in /usr/src: scripts/deps.sh kernel"
params=
for kv in $kernels; do
	ksrc=/lib/modules/$kv/build
	[ -d "$ksrc" ] || ksrc=/usr/src/linux-headers-$kv
	dk=$tmp/dkms-$kv
	mkdir -p "$dk/pmuctl/$version"
	cp -a "$root/$src" "$dk/pmuctl/$version/build"
	# shellcheck disable=SC2016 # expanded by the inner bash
	# (Without the make variables of a make this test may run under.)
	if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL kernel_source_dir="$ksrc" \
			dkms_tree="$dk" bash -c \
			'. "$1" && cd "$dkms_tree/$PACKAGE_NAME/$PACKAGE_VERSION/build" &&
			 echo "${MAKE[0]}" && ${MAKE[0]}' \
			bash "$dk/pmuctl/$version/build/dkms.conf" \
			>"$tmp/kbuild.log" 2>&1 </dev/null; then
		not_ok "dkms_tree_builds_pmuctl_ko_$kv" "$(tail -n 30 "$tmp/kbuild.log")"
		continue
	fi
	ko=$dk/pmuctl/$version/build/pmuctl.ko
	# Into a file of our own, not /dev/stdout: this test must not depend
	# on /dev/stdout being the symlink it should be (it once was a plain
	# file here, and objcopy's output went there instead of the pipe).
	rm -f "$tmp/modinfo"
	objcopy -O binary --only-section=.modinfo "$ko" "$tmp/modinfo" 2>/dev/null
	info=$(tr '\0' '\n' <"$tmp/modinfo" 2>/dev/null)
	if grep -qx "vermagic=$kv .*" <<<"$info"; then
		ok "dkms_tree_builds_pmuctl_ko_$kv"
	else
		not_ok "dkms_tree_builds_pmuctl_ko_$kv" "no $ko for $kv:" "$info" \
			"$(tail -n 10 "$tmp/kbuild.log")"
	fi
	params=$(sed -n 's/^parmtype=\([^:]*\):.*/\1/p' <<<"$info" | LC_ALL=C sort -u)
done

# The modprobe.d example shows every parameter of the module DKMS builds
# (the production build: no regmodel_* test parameters), and no other.
if [ -n "$params" ]; then
	shown=$(sed -n 's/^#options pmuctl \([a-z_0-9]*\)=.*/\1/p' dist/pmuctl.conf | LC_ALL=C sort -u)
	if [ "$shown" = "$params" ]; then
		ok modprobe_example_shows_every_module_parameter
	else
		not_ok modprobe_example_shows_every_module_parameter \
			"the module's parameters: $(tr '\n' ' ' <<<"$params")" \
			"dist/pmuctl.conf shows: $(tr '\n' ' ' <<<"$shown")"
	fi
fi

# --- uninstall ----------------------------------------------------------------

# left_over DIR PATH...: after uninstall DIR holds no file, and of each
# PATH (under DIR) nothing is left; d[] gets what is wrong.
left_over() {
	local dir=$1 p

	shift
	[ -z "$(tree "$dir")" ] || d+=("files left in $dir: $(tree "$dir" | tr '\n' ' ')")
	for p in "$@"; do
		[ ! -e "$dir/$p" ] || d+=("left: $p")
	done
}

d=()
if mk uninstall DESTDIR="$root" PREFIX=/usr; then
	left_over "$root" usr/share/doc/pmuctl "$src"
else
	d+=("make uninstall failed:" "$(tail -n 20 "$tmp/make.log")")
fi
if [ ${#d[@]} = 0 ]; then
	ok uninstall_removes_every_file
else
	not_ok uninstall_removes_every_file "${d[@]}"
fi

# --- LIBDIR, then the default PREFIX (last: build/lib/libpmuctl.pc is
# left as a plain "make" writes it) --------------------------------------------

# want FILE...: each file exists; d[] gets the missing ones.
want() {
	local f

	for f in "$@"; do
		[ -f "$f" ] || d+=("not installed: $f")
	done
}

d=()
r2=$tmp/libdir
ml=usr/lib/x86_64-linux-gnu
if mk install DESTDIR="$r2" PREFIX=/usr LIBDIR=/$ml; then
	want "$r2/$ml/libpmuctl.so.1.0.0" "$r2/$ml/libpmuctl.a" \
	     "$r2/$ml/pkgconfig/libpmuctl.pc"
	[ ! -e "$r2/usr/lib/libpmuctl.so.1.0.0" ] || d+=("the library is in usr/lib too")
	# shellcheck disable=SC2016 # ${prefix} is pkg-config's
	grep -qx 'libdir=${prefix}/lib/x86_64-linux-gnu' "$r2/$ml/pkgconfig/libpmuctl.pc" ||
		d+=("libpmuctl.pc: want libdir=\${prefix}/lib/x86_64-linux-gnu:" \
		    "$(cat "$r2/$ml/pkgconfig/libpmuctl.pc")")
	if mk uninstall DESTDIR="$r2" PREFIX=/usr LIBDIR=/$ml; then
		left_over "$r2"
	else
		d+=("make uninstall LIBDIR=/$ml failed:" "$(tail -n 20 "$tmp/make.log")")
	fi
else
	d+=("make install LIBDIR=/$ml failed:" "$(tail -n 20 "$tmp/make.log")")
fi
if [ ${#d[@]} = 0 ]; then
	ok libdir_is_honoured
else
	not_ok libdir_is_honoured "${d[@]}"
fi

d=()
r3=$tmp/default
if mk install DESTDIR="$r3"; then
	want "$r3/usr/local/bin/pmuctl" "$r3/usr/local/lib/libpmuctl.so.1.0.0" \
	     "$r3/usr/local/include/libpmuctl.h" "$r3/usr/local/share/man/man3/libpmuctl.3" \
	     "$r3/usr/local/share/doc/pmuctl/pmuctl.conf" \
	     "$r3/usr/local/lib/udev/rules.d/60-pmuctl.rules" "$r3/$src/dkms.conf" \
	     "$r3/usr/local/share/bash-completion/completions/pmuctl" \
	     "$r3/usr/local/lib/systemd/system/pmuctl-exporter.service"
	grep -qx 'ExecStart=/usr/local/bin/pmuctl watch .*' \
		"$r3/usr/local/lib/systemd/system/pmuctl-exporter.service" 2>/dev/null ||
		d+=("pmuctl-exporter.service does not run /usr/local/bin/pmuctl")
	grep -qx 'prefix=/usr/local' "$r3/usr/local/lib/pkgconfig/libpmuctl.pc" 2>/dev/null ||
		d+=("usr/local/lib/pkgconfig/libpmuctl.pc does not say prefix=/usr/local")
	if mk uninstall DESTDIR="$r3"; then
		left_over "$r3"
	else
		d+=("make uninstall failed:" "$(tail -n 20 "$tmp/make.log")")
	fi
else
	d+=("make install failed:" "$(tail -n 20 "$tmp/make.log")")
fi
if [ ${#d[@]} = 0 ]; then
	ok default_prefix_is_usr_local
else
	not_ok default_prefix_is_usr_local "${d[@]}"
fi

tap_end
