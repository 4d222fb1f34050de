#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# pmuctl.ko's files call down, never up: each object's undefined symbols
# (nm -u) are matched against the other objects' definitions (nm -g
# --defined-only), and every call must go from a file to one in a lower
# layer (or into the kernel).  The layers are the table in kmod/regs.h's
# header comment, top to bottom (files on one line share a layer and may
# not call each other either, so no two files can call each other in a
# circle).  Each kmod/*.c may include only the kmod headers of its layer
# and below (regs.h, regmodel.h, hw.h, pcpu.h, pmuctl.h and task.h are
# those of param.c, regmodel_caps.c, type.c, pcpu.c, grant.c and mon.c).
#
#   kmod-layers.sh DIR     DIR: a built module tree (kbuild M=DIR), whose
#                          kmod/*.o and kmod/core/*.o are read
# KMOD_SRC (default: the repository's kmod/) is where regs.h and the *.c
# files are read (selftests/make/kmod_layers.sh points it elsewhere).
#
# Prints TAP (two results) and, as diagnostics, every call edge between
# files; exit status 0 iff both pass.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:?usage: kmod-layers.sh DIR}
src=${KMOD_SRC:-$top/kmod}
regs=$src/regs.h

# The table: lines " *   a.c  b.c   words" between "The layers of kmod/" and
# the first empty comment line; first line is the top layer.
mapfile -t table < <(awk '
	/The layers of kmod\// { on = 1; next }
	on && /^ \*$/ { if (seen) exit; next }
	on && /^ \*   [a-z]/ { seen = 1; sub(/^ \*   /, ""); print }
' "$regs")

declare -A rank
n=${#table[@]}
for ((i = 0; i < n; i++)); do
	r=$((n - i))
	for w in ${table[$i]}; do
		case $w in
		*.c) rank[${w%.c}]=$r ;;
		core/) rank[core]=$r ;;
		*) break ;;
		esac
	done
done

echo "TAP version 13"
echo "1..2"
if [ "$n" -lt 5 ]; then
	echo "not ok 1 kmod_call_layers: no layer table in $regs"
	echo "not ok 2 kmod_include_layers: no layer table"
	exit 1
fi

name_of() {	# kmod/core/caps.o -> core, kmod/wave.o -> wave
	local f=${1#"$dir"/}
	case $f in
	kmod/core/*) echo core ;;
	*) f=${f#kmod/}; echo "${f%.o}" ;;
	esac
}

declare -A def
objs=()
for o in "$dir"/kmod/*.o "$dir"/kmod/core/*.o; do
	case $o in *.mod.o) continue ;; esac
	[ -f "$o" ] || continue
	objs+=("$o")
	u=$(name_of "$o")
	while read -r _ _ sym; do
		def[$sym]=$u
	done < <(nm -g --defined-only "$o")
done

bad=0 edges=''
declare -A seen_edge
for o in "${objs[@]}"; do
	u=$(name_of "$o")
	if [ -z "${rank[$u]:-}" ]; then
		echo "# $u: not in the layer table of kmod/regs.h"
		bad=$((bad + 1))
		continue
	fi
	while read -r _ sym; do
		d=${def[$sym]:-}
		[ -n "$d" ] && [ "$d" != "$u" ] || continue
		[ -n "${seen_edge[$u:$d]:-}" ] && continue
		seen_edge[$u:$d]=1
		edges+="$u -> $d ($sym)"$'\n'
		if [ "${rank[$d]:-0}" -ge "${rank[$u]}" ]; then
			echo "# $u calls $d ($sym): not a lower layer"
			bad=$((bad + 1))
		fi
	done < <(nm -u "$o")
done
printf '%s' "$edges" | sort | sed 's/^/# edge: /'
if [ ${#objs[@]} -eq 0 ]; then
	echo "not ok 1 kmod_call_layers: no objects in $dir/kmod"
elif [ "$bad" -eq 0 ]; then
	echo "ok 1 kmod_call_layers: ${#objs[@]} objects, $(printf '%s' "$edges" | grep -c .) edges between files, each to a lower layer"
else
	echo "not ok 1 kmod_call_layers: $bad call(s) up or across a layer"
fi

# Headers: the layer of the file each belongs to.
declare -A hdr=([regs.h]=param [regmodel.h]=regmodel_caps [hw.h]=type [pcpu.h]=pcpu
	[pmuctl.h]=grant [task.h]=mon)
ibad=0
for c in "$src"/*.c; do
	u=$(basename "$c" .c)
	while read -r h; do
		owner=${hdr[$h]:-}
		[ -n "$owner" ] || continue
		if [ "${rank[$owner]}" -gt "${rank[$u]:-0}" ]; then
			echo "# $u.c includes $h, the header of a higher layer ($owner.c)"
			ibad=$((ibad + 1))
		fi
	done < <(sed -n 's/^#include "\(.*\)"$/\1/p' "$c")
done
if [ "$ibad" -eq 0 ]; then
	echo "ok 2 kmod_include_layers: every kmod/*.c includes headers of its layer or below"
else
	echo "not ok 2 kmod_include_layers: $ibad include(s) of a higher layer's header"
fi
[ "$bad" -eq 0 ] && [ "$ibad" -eq 0 ] && [ ${#objs[@]} -gt 0 ]
