#!/usr/bin/env bash
# Kernel-side checks, as TAP: pmuctl.ko, default and register-model
# (PMUCTL_REGMODEL=y PMUCTL_RIG=1: pmuctl_regmodel.ko) builds, compiles
# for each target Debian kernel with W=1 and C=1 (sparse) and prints no
# warning, the kernel sources pass checkpatch.pl --strict with no error,
# warning or check, and (scripts/kmod-layers.sh, on each kernel's
# register-model objects, which are all of them) every kmod file calls
# only lower layers and includes only their headers.
#   kbuild-check.sh KSRC OUTDIR
# KSRC holds the files scripts/ksrc.sh extracts; OUTDIR is scratch space.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
ksrc=${1:?usage: kbuild-check.sh KSRC OUTDIR}
out=${2:?usage: kbuild-check.sh KSRC OUTDIR}
mkdir -p "$out" && out=$(cd "$out" && pwd)
mapfile -t kernels < <("$top/scripts/kernels.sh" installed)
ksources=$(cd "$top" && ls kmod/*.[ch] kmod/core/*.[ch] uapi/linux/*.h 2>/dev/null)

echo "TAP version 13"
echo "1..9"
n=0
layers=()
for want in '^6\.1\.' '^6\.12\.'; do
	ver=$(printf '%s\n' "${kernels[@]}" | grep -E "$want" | head -n 1)
	for variant in default regmodel; do
		n=$((n + 1))
		name="kbuild_${ver:-${want//[^0-9]/_}}_$variant"
		if [ -z "$ver" ]; then
			echo "not ok $n $name: no headers installed (run scripts/deps.sh kernel)"
			continue
		fi
		dir=$out/$ver-$variant
		rm -rf "$dir" && mkdir -p "$dir"
		(cd "$top" && cp -r Kbuild kmod uapi "$dir/")
		flag=
		ko=pmuctl.ko
		[ "$variant" = regmodel ] && flag="PMUCTL_REGMODEL=y PMUCTL_RIG=1" ko=pmuctl_regmodel.ko
		log=$dir/build.log
		# shellcheck disable=SC2086
		make -j"$(nproc)" -C "/lib/modules/$ver/build" M="$dir" W=1 C=1 \
			$flag modules >"$log" 2>&1
		rc=$?
		warn=$(grep -E 'warning:|error:' "$log")
		if [ $rc -eq 0 ] && [ -z "$warn" ] && [ -f "$dir/$ko" ]; then
			echo "ok $n $name: $ko, W=1 C=1, no warnings"
			[ "$variant" = regmodel ] && layers+=("$ver:$dir")
		else
			echo "not ok $n $name: W=1 C=1 build failed or warned"
			sed 's/^/# /' "$log" | tail -n 40
		fi
	done
done

n=$((n + 1))
# shellcheck disable=SC2086
cp_out=$(cd "$top" && perl "$ksrc/scripts/checkpatch.pl" --strict --no-tree \
	--terse --show-types -f $ksources 2>&1)
errs=$(printf '%s\n' "$cp_out" | grep -cE ': (ERROR|WARNING):')
checks=$(printf '%s\n' "$cp_out" | grep -E ': CHECK:' | grep -vc 'CHECK:BIT_MACRO')
bits=$(printf '%s\n' "$cp_out" | grep -c 'CHECK:BIT_MACRO')
if [ "$errs" -eq 0 ] && [ "$checks" -eq 0 ]; then
	echo "ok $n checkpatch_strict: no errors, warnings or checks ($bits BIT_MACRO checks: uapi headers cannot use BIT())"
else
	echo "not ok $n checkpatch_strict: $errs errors/warnings, $checks checks"
	printf '%s\n' "$cp_out" | grep -E ': (ERROR|WARNING|CHECK):' |
		grep -v 'CHECK:BIT_MACRO' | sed 's/^/# /'
fi

# The layers, from each kernel's register-model objects.
for want in '^6\.1\.' '^6\.12\.'; do
	got='' ver=''
	for l in "${layers[@]}"; do
		if [[ ${l%%:*} =~ $want ]]; then
			ver=${l%%:*} got=${l#*:}
		fi
	done
	res=''
	[ -z "$got" ] || res=$(bash "$top/scripts/kmod-layers.sh" "$got")
	printf '%s\n' "$res" | grep -E '^# ' | grep -v '^# edge:'
	for t in call include; do
		n=$((n + 1))
		line=$(printf '%s\n' "$res" | grep -E "^(not )?ok [0-9]+ kmod_${t}_layers: ")
		if [ -z "$line" ]; then
			echo "not ok $n kmod_${t}_layers_${want//[^0-9]/_}: no register-model build to read"
		elif [[ $line == ok* ]]; then
			echo "ok $n kmod_${t}_layers_$ver: ${line#*: }"
		else
			echo "not ok $n kmod_${t}_layers_$ver: ${line#*: }"
		fi
	done
done
