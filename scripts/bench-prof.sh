#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Where one operation of make bench's counted table spends its kernel
# instructions ("make bench-prof ROW=..."): an emulated-PMU guest of
# -cpu Skylake-Server (-smp 2 on one TCG thread, the newest target kernel)
# runs build/bench/vm/compare -i, as make bench's operations guest does,
# with the TCG plugin scripts/vm/insn-count.c profiling the kernel in the
# windows of one row (its prof=LABEL); the guest then prints its kernel's
# and modules' text symbols, and scripts/insn-prof.sh sums the profile
# per function: the instructions per window of each, pmuctl.ko's marked
# "[pmuctl]", the most first.
#
# usage: scripts/bench-prof.sh [-k KVER] [-n TOP] [-o LOGDIR] ROW
#   ROW   a label of compare's rows, as "insn-row LABEL" and the third
#         field of "insn-cmp" lines name them; "list" boots the guest
#         without a profile and prints them
# Exit 0 and the profile; 1 and the reason.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
cd "$top" || exit 2

kver='' ntop=40 logs=build/bench-prof
while getopts k:n:o:h opt; do
	case $opt in
	k) kver=$OPTARG ;;
	n) ntop=$OPTARG ;;
	o) logs=$OPTARG ;;
	*)
		sed -n '/^# usage:/,/^# Exit 0/s/^# \{0,1\}//p' "$0" >&2
		exit 2
		;;
	esac
done
shift $((OPTIND - 1))
row=${1:-}
if [ $# -ne 1 ] || ! [[ $row =~ ^([0-9]+|list)$ ]]; then
	echo "bench-prof.sh: want one ROW, a number or 'list' (see -h)" >&2
	exit 2
fi
if [ -z "$kver" ]; then
	kver=$("$top/scripts/kernels.sh" installed | sort -V | tail -n 1)
	[ -n "$kver" ] || { echo "bench-prof.sh: no target kernel headers in /usr/src: run 'bash scripts/deps.sh kernel' (or pass -k)" >&2; exit 1; }
fi

compare=build/bench/vm/compare
${MAKE:-make} -s "$compare" || { echo "bench-prof.sh: cannot build $compare" >&2; exit 1; }
plugin=$(bash scripts/vm/insn-plugin.sh) || { echo "bench-prof.sh: cannot build the TCG plugin" >&2; exit 1; }
mkdir -p "$logs"
logs=$(cd "$logs" && pwd)	# the plugin's out= is opened by QEMU: absolute
qemu=${QEMU:-}
if [ -z "$qemu" ] && ! qemu=$(bash scripts/vm/qemu.sh 2>"$logs/qemu.log"); then
	echo "bench-prof.sh: no patched QEMU for the emulated PMU: $(tail -n 1 "$logs/qemu.log")" >&2
	exit 1
fi

tdir=$logs/tests
rm -rf "$tdir"
mkdir -p "$tdir"
cat >"$tdir/prof" <<'EOF'
#!/bin/sh
# compare's counted rows, then the kernel's and the modules' text symbols.
echo "TAP version 13"
echo "1..1"
compare -i -n 200 >/tmp/prof.out 2>&1
rc=$?
grep '^insn-' /tmp/prof.out | sed 's/^/# /'
grep ' [tT] ' /proc/kallsyms | sed 's/^/# ksym /'
if [ $rc = 0 ]; then
	echo "ok 1 prof"
else
	echo "not ok 1 prof # compare exit $rc"
	tail -n 5 /tmp/prof.out | sed 's/^/# /'
fi
EOF
chmod +x "$tdir/prof"

out=$logs/insn-prof.out
rm -f "$out"
pluginargs="$plugin,out=$out"
[ "$row" = list ] || pluginargs+=",prof=$row"
what=", profiling row $row"
[ "$row" != list ] || what=''
echo "bench-prof: booting $kver, -cpu Skylake-Server with the emulated PMU, -smp 2 on one TCG thread$what"
QEMU=$qemu bash scripts/vm/run.sh -P -t "$tdir" -x "$compare" -o "$logs" -l prof \
	-k "$kver" -c Skylake-Server -s 2 -A tcg,thread=single -T 500 \
	-Q "-plugin $pluginargs" </dev/null >"$logs/rig.log" 2>&1
tap=''
for f in "$logs"/vm-*-Skylake-Server.prof-prof.tap; do
	[ -f "$f" ] && tap=$f
done
if [ -z "$tap" ] || ! grep -q '^ok 1 prof' "$tap"; then
	echo "bench-prof: the guest did not run compare; see $logs/rig.log${tap:+ and $tap}" >&2
	exit 1
fi
if [ "$row" = list ]; then
	echo "rows (LABEL: operation, tool)"
	{
		sed -n 's/^# insn-row \([0-9]*\) \(.*\)/\1|\2/p' "$tap"
		sed -n 's/^# insn-cmp \(.*\)/\1/p' "$tap" |
			awk -F'|' '{ print $3 "|" $1 ", pmuctl " $2; print $5 "|" $1 ", " $4 }'
	} | sort -t'|' -k1,1n -u | awk -F'|' '{ printf "  %3s: %s\n", $1, $2 }'
	exit 0
fi

# The windows of the row: the plugin's "stop LABEL ..." lines.
windows=$(awk -v r="$row" '$1 == "stop" && $2 == r' "$out" | wc -l)
if [ "$windows" = 0 ]; then
	echo "bench-prof: no window labelled $row (bench-prof.sh list)" >&2
	exit 1
fi
sed -n 's/^# ksym //p' "$tap" >"$logs/kallsyms"
name=$(sed -n 's/^# insn-cmp \(.*\)/\1/p' "$tap" |
	awk -F'|' -v r="$row" '$3 == r { print "pmuctl: " $1 ", " $2; exit } $5 == r { print $4; exit }')
awk -v r="$row" -v name="${name:-?}" '$1 == "stop" && $2 == r { u += $4; k += $5; n++ }
	END { printf "row %s (%s): %d windows; per window %.0f user, %.0f kernel instructions\n", r, name, n, u / n, k / n }' "$out"
# Every function once; the first TOP of them shown, all of them summed.
bash scripts/insn-prof.sh -n 1000000 -w "$windows" "$out" "$logs/kallsyms" >"$logs/profile.txt" || exit 1
echo "kernel instructions per window, by function (the plugin's blocks; [pmuctl]: pmuctl.ko)"
grep -v ' total$' "$logs/profile.txt" | head -n "$ntop"
grep ' total$' "$logs/profile.txt"
awk '/ total$/ { next } /\[pmuctl\]$/ { p += $1; next } { o += $1 }
	END { printf "pmuctl.ko %.0f, the rest of the kernel %.0f\n", p, o }' "$logs/profile.txt"
