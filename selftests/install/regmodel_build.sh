#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# TAP test: the register-model test build cannot be produced by accident
# (Kbuild).  PMUCTL_REGMODEL=y without PMUCTL_RIG=1, from the environment
# (as a DKMS build would inherit it) or the make command line, stops the
# build with a message that says why and builds no module; with the rig's
# PMUCTL_RIG=1 it builds pmuctl_regmodel.ko (module name pmuctl_regmodel,
# the regmodel_* parameters) and no pmuctl.ko; without PMUCTL_REGMODEL the
# build is pmuctl.ko, module name pmuctl, with no regmodel_* parameter.
# Builds for the first installed target kernel (scripts/kernels.sh).

cd "$(dirname "$0")/../.." || exit 1
. selftests/tap.sh

kv=$(scripts/kernels.sh installed 2>/dev/null | head -n 1)
[ -n "$kv" ] && [ -d "/lib/modules/$kv/build" ] ||
	bail "no kernel headers installed (scripts/deps.sh kernel)"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# kbuild DIR ENV... -- MAKEVARS...: the sources copied into DIR, built there
# with ENV in the environment; the exit status of make, its output in
# DIR/build.log.
kbuild() {
	local d=$1 envs=() vars=()
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		envs+=("$1")
		shift
	done
	[ $# -gt 0 ] && shift
	vars=("$@")
	mkdir -p "$d" && cp -r Kbuild kmod uapi "$d/"
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u PMUCTL_REGMODEL -u PMUCTL_RIG \
		"${envs[@]}" make -j"$(nproc)" -C "/lib/modules/$kv/build" M="$d" "${vars[@]}" \
		modules >"$d/build.log" 2>&1 </dev/null
}

# The .modinfo of a module, one KEY=VALUE a line.
modinfo_of() {
	objcopy -O binary --only-section=.modinfo "$1" "$1.modinfo" 2>/dev/null &&
		tr '\0' '\n' <"$1.modinfo"
}

want_msg='only the test rig builds it'

# refused NAME DIR: the build failed, said why, and left no module.
refused() {
	local name=$1 d=$2 rc=$3 kos
	kos=$(find "$d" -maxdepth 1 -name '*.ko')
	if [ "$rc" -ne 0 ] && grep -q "$want_msg" "$d/build.log" && [ -z "$kos" ]; then
		ok "$name"
	else
		not_ok "$name" "make exit $rc; modules: ${kos:-none}" \
			"want the message \"...$want_msg...\"; got:" \
			"$(grep -v '^make' "$d/build.log" | tail -n 5)"
	fi
}

kbuild "$tmp/env" PMUCTL_REGMODEL=y --
refused regmodel_from_the_environment_is_refused_without_the_rig "$tmp/env" $?

kbuild "$tmp/cmdline" -- PMUCTL_REGMODEL=y
refused regmodel_on_the_command_line_is_refused_without_the_rig "$tmp/cmdline" $?

kbuild "$tmp/rig" -- PMUCTL_REGMODEL=y PMUCTL_RIG=1
rc=$?
info=$(modinfo_of "$tmp/rig/pmuctl_regmodel.ko")
if [ $rc -eq 0 ] && grep -qx 'name=pmuctl_regmodel' <<<"$info" &&
   grep -q '^parmtype=regmodel_caps:' <<<"$info" && [ ! -e "$tmp/rig/pmuctl.ko" ]; then
	ok rig_builds_pmuctl_regmodel_ko_and_no_pmuctl_ko
else
	not_ok rig_builds_pmuctl_regmodel_ko_and_no_pmuctl_ko "make exit $rc" \
		"$(ls "$tmp/rig"/*.ko 2>&1)" "$(grep -E '^(name|parmtype)=' <<<"$info")" \
		"$(tail -n 10 "$tmp/rig/build.log")"
fi

kbuild "$tmp/default" PMUCTL_RIG=1 --
rc=$?
info=$(modinfo_of "$tmp/default/pmuctl.ko")
if [ $rc -eq 0 ] && grep -qx 'name=pmuctl' <<<"$info" &&
   ! grep -q '^parmtype=regmodel_' <<<"$info" &&
   [ ! -e "$tmp/default/pmuctl_regmodel.ko" ]; then
	ok default_build_is_pmuctl_ko_without_the_model
else
	not_ok default_build_is_pmuctl_ko_without_the_model "make exit $rc" \
		"$(ls "$tmp/default"/*.ko 2>&1)" "$(grep -E '^(name|parmtype)=' <<<"$info")" \
		"$(tail -n 10 "$tmp/default/build.log")"
fi

tap_end
