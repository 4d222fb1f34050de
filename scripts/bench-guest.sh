#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest half of "make bench": what each libpmuctl operation costs in
# system calls, pmuctl.ko ioctls and cross-CPU call waves, counted (not
# timed) in ONE QEMU guest: the newest target kernel, -cpu KnightsMill,
# -smp 4 on one TCG thread, the register-model pmuctl.ko, and
# build/vmtests/waves_test (selftests/bench/waves.c) as its only program.
# Prints the guest's table, then the rules waves_test checks, e.g.
# "program on all CPUs = 1 ioctl and 1 wave".
#
# usage: scripts/bench-guest.sh [-k KVER] [-o LOGDIR]
#   -k KVER    the guest's kernel (default: the newest that
#              scripts/kernels.sh lists as installed)
#   -o LOGDIR  where the rig writes its files (default build/bench-logs)
# Exit 0 when the guest ran and every rule held, 1 when not, 2 on usage
# errors.  Takes 1-3 minutes.
#
# The rig keeps its scratch in build/vm/ of this tree: do not run this
# while "make check" or "make vmcheck" boots guests from the same tree.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
cd "$top" || exit 2

kver='' logs=build/bench-logs
while getopts k:o:h opt; do
	case $opt in
	k) kver=$OPTARG ;;
	o) logs=$OPTARG ;;
	*)
		sed -n '/^# usage:/,/^# Exit 0/s/^# \{0,1\}//p' "$0" >&2
		exit 2
		;;
	esac
done
shift $((OPTIND - 1))
if [ $# -ne 0 ]; then
	echo "bench-guest.sh: unexpected argument '$1' (see -h)" >&2
	exit 2
fi

if [ -z "$kver" ]; then
	kver=$("$top/scripts/kernels.sh" installed | sort -V | tail -n 1)
	if [ -z "$kver" ]; then
		echo "bench-guest.sh: no target kernel headers in /usr/src: run 'bash scripts/deps.sh kernel' (or pass -k)" >&2
		exit 1
	fi
fi

prog=build/vmtests/waves_test
if ! ${MAKE:-make} -s "$prog"; then
	echo "bench-guest.sh: cannot build $prog (see above)" >&2
	exit 1
fi

# A test folder holding only this program.
tdir=build/bench-guest
rm -rf "$tdir"
mkdir -p "$tdir" "$logs"
cp "$prog" "$tdir/"
rm -f "$logs"/vm-*.bench*

echo "bench-guest: booting $kver, -cpu KnightsMill -smp 4 (TCG), pmuctl.ko on its register model"
bash scripts/vm/run.sh -t "$tdir" -o "$logs" -l bench -k "$kver" \
	-c KnightsMill -s 4 -A tcg,thread=single -T 120 </dev/null \
	>"$logs/rig.log" 2>&1
rc=$?
sed -n 's/^vm: /  rig: /p' "$logs/rig.log"

tap=$(ls "$logs"/vm-*-KnightsMill.bench-waves_test.tap 2>/dev/null | head -n 1)
guest=$(ls "$logs"/vm-*-KnightsMill.bench-guest.tap 2>/dev/null | head -n 1)
if [ -z "$tap" ] || ! grep -q '^# cost:' "$tap"; then
	echo "bench-guest: the guest printed no table; see $logs/rig.log${guest:+, $guest}${tap:+ and $tap}"
	[ -z "$guest" ] || grep -A2 '^not ok' "$guest" | sed 's/^/  /'
	[ -z "$tap" ] || sed 's/^/  /' "$tap" | tail -n 20
	exit 1
fi

echo
echo "system calls, pmuctl.ko ioctls and cross-CPU call waves per operation"
echo "(syscalls: all the call made, traced; ioctls and waves: the deltas of"
echo " debugfs pmuctl/stats around it, as 'op calls/waves')"
sed -n 's/^# cost: /  /p' "$tap"
echo
echo "rules (selftests/bench/waves.c):"
# Results, and the harness's explanations of failures.
grep -E '^(not )?ok |^# .*:[0-9]+:[a-z_]+:|^1\.\.0' "$tap" |
	sed -E 's/^# [^:]*:[0-9]+:[a-z_]+:/      /; s/^/  /'
if grep -q '^not ok' "$guest"; then
	echo "the guest itself failed:"
	grep -A3 '^not ok' "$guest" | sed 's/^/  /'
fi
if [ "$rc" -eq 0 ]; then
	echo "bench-guest: every rule holds"
else
	echo "bench-guest: a rule or the guest failed (files in $logs)"
	rc=1
fi
exit "$rc"
