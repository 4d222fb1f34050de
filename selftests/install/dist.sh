#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# TAP test of the packaging files (dist/, user/libpmuctl.pc.in) against
# what they describe: the udev rule names the module's misc device, the
# modprobe.d example sets nothing, the generated dkms.conf and
# libpmuctl.pc carry the top Makefile's VERSION, dkms.conf builds the
# module Kbuild names, with kbuild, into DKMS's build directory.  Needs
# build/dist/dkms.conf and build/lib/libpmuctl.pc ("make tests").
# (install.sh checks the example's options against the built module.)

cd "$(dirname "$0")/../.." || exit 1
. selftests/tap.sh

rules=dist/60-pmuctl.rules
conf=dist/pmuctl.conf
dkms=build/dist/dkms.conf
pc=build/lib/libpmuctl.pc

for f in "$rules" "$conf" "$dkms" "$pc" Makefile Kbuild kmod/main.c; do
	[ -f "$f" ] || bail "no $f (generated ones: make tests)"
done
version=$(sed -n 's/^VERSION := *//p' Makefile)
[ -n "$version" ] || bail "no 'VERSION := ...' line in Makefile"

# The misc device's name in kmod/main.c: /dev/NAME.
devname=$(awk '/struct miscdevice/ { on = 1 } on && /\.name *=/ { gsub(/.*= *"|".*/, ""); print; exit }' \
	kmod/main.c)
rule=$(grep -v '^[[:space:]]*#' "$rules" | grep .)
d=()
[ -n "$devname" ] || d+=("no '.name = \"...\"' in kmod/main.c's struct miscdevice")
[ "$(printf '%s\n' "$rule" | wc -l)" = 1 ] || d+=("$rules: want one rule, found:" "$rule")
grep -qF "KERNEL==\"$devname\"" <<<"$rule" || d+=("$rules does not match KERNEL==\"$devname\", the module's device")
grep -qF 'GROUP="pmu"' <<<"$rule" || d+=("$rules does not set GROUP=\"pmu\"")
grep -qF 'MODE="0660"' <<<"$rule" || d+=("$rules does not set MODE=\"0660\"")
if [ ${#d[@]} = 0 ]; then
	ok udev_rule_gives_the_device_to_group_pmu
else
	not_ok udev_rule_gives_the_device_to_group_pmu "${d[@]}"
fi

# An example, installed as documentation: every setting commented out.
active=$(grep -nv '^[[:space:]]*\(#.*\)\?$' "$conf")
examples=$(grep -c '^#options pmuctl ' "$conf")
if [ -z "$active" ] && [ "$examples" -gt 0 ]; then
	ok modprobe_example_sets_nothing
else
	not_ok modprobe_example_sets_nothing \
		"$conf must only show settings, as '#options pmuctl NAME=VALUE' lines ($examples found)" \
		"${active:+active lines: $active}"
fi

# dkms.conf is a bash fragment DKMS sources with these variables set.
# shellcheck disable=SC2016 # expanded by the inner bash
vars=$(kernel_source_dir=/KSRC dkms_tree=/DKMS bash -c '
	. "$1" || exit 1
	printf "%s\n" "name=$PACKAGE_NAME" "version=$PACKAGE_VERSION" \
		"module=${BUILT_MODULE_NAME[0]}" "dest=${DEST_MODULE_LOCATION[0]}" \
		"auto=$AUTOINSTALL" "make=${MAKE[0]}" "clean=$CLEAN"' bash "$dkms" 2>&1)
# The module DKMS builds: Kbuild's obj-m without PMUCTL_REGMODEL (the
# register-model test build has its own name, in the ifeq branch).
obj=$(sed -n '/^else$/,/^endif$/s/^obj-m *:= *\([a-z0-9_]*\)\.o$/\1/p' Kbuild)
want=(
	"name=pmuctl"
	"version=$version"
	"module=$obj"
	"dest=/extra"
	"auto=yes"
	"make=make -C /KSRC M=/DKMS/pmuctl/$version/build modules"
	"clean=true"
)
d=()
[ -n "$obj" ] || d+=("no 'obj-m := NAME.o' line in Kbuild")
for w in "${want[@]}"; do
	grep -qxF -- "$w" <<<"$vars" || d+=("want $w")
done
if [ ${#d[@]} = 0 ]; then
	ok dkms_conf_builds_the_kbuild_module
else
	not_ok dkms_conf_builds_the_kbuild_module "${d[@]}" "$dkms gives:" "$vars"
fi

d=()
pcv=$(PKG_CONFIG_PATH=build/lib PKG_CONFIG_LIBDIR=build/lib pkg-config --modversion libpmuctl 2>&1)
[ "$pcv" = "$version" ] || d+=("pkg-config --modversion says '$pcv', Makefile VERSION is $version")
priv=$(PKG_CONFIG_LIBDIR=build/lib pkg-config --static --libs libpmuctl 2>&1)
grep -qw -- -lpfm <<<"$priv" || d+=("pkg-config --static --libs lacks -lpfm: '$priv'")
shared=$(PKG_CONFIG_LIBDIR=build/lib pkg-config --libs libpmuctl 2>&1)
grep -qw -- -lpfm <<<"$shared" && d+=("pkg-config --libs has -lpfm, which only static links need: '$shared'")
if [ ${#d[@]} = 0 ]; then
	ok pc_has_the_version_and_lpfm_for_static_links
else
	not_ok pc_has_the_version_and_lpfm_for_static_links "${d[@]}"
fi

tap_end
