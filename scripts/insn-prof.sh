#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The TCG plugin's kernel profile (scripts/vm/insn-count.c, prof=LABEL)
# per function: the functions that ran in the profiled windows, the most
# instructions first.
#
# usage: scripts/insn-prof.sh [-n TOP] [-w WINDOWS] PLUGIN_OUT SYMBOLS...
#   PLUGIN_OUT  the plugin's file: its "prof VADDR INSNS" lines are read
#   SYMBOLS     "ADDR TYPE NAME [MODULE]" files, as /proc/kallsyms and
#               System.map write them; text symbols only (t, T, w, W)
#   -n TOP      print the first TOP functions (default 40)
#   -w WINDOWS  divide every count by WINDOWS (per window)
# A block goes to the symbol at or below its address ("?" below every
# symbol).  Prints "INSNS PERCENT FUNCTION [MODULE]" lines, then the total.
set -euo pipefail

top=40 windows=1
while getopts n:w: opt; do
	case $opt in
	n) top=$OPTARG ;;
	w) windows=$OPTARG ;;
	*) sed -n 's/^# \{0,1\}usage: /usage: /p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || { echo "usage: $0 [-n TOP] [-w WINDOWS] PLUGIN_OUT SYMBOLS..." >&2; exit 2; }
prof=$1
shift

# Symbols and blocks as one list sorted by address (16 hex digits,
# lower case, so that text order is address order); at equal addresses
# the symbol ("0") before the block ("1").
awk 'function pad(a) { a = tolower(a); while (length(a) < 16) a = "0" a; return a }
	FILENAME == prof && $1 == "prof" && NF == 3 { print pad($2) " 1 " $3; next }
	FILENAME != prof && $2 ~ /^[tTwW]$/ && $1 ~ /^[0-9a-fA-F]+$/ {
		name = $3; if (NF >= 4) name = name " " $4
		print pad($1) " 0 " name
	}' prof="$prof" "$prof" "$@" | LC_ALL=C sort -k1,1 -k2,2 |
	awk -v top="$top" -v w="$windows" '
	$2 == "0" { name = substr($0, index($0, " 0 ") + 3); next }
	$2 == "1" { f = (name == "" ? "?" : name); n[f] += $3; total += $3 }
	END {
		if (!total) { print "insn-prof: no profile lines (prof VADDR INSNS)" > "/dev/stderr"; exit 1 }
		for (f in n) printf "%.1f %.1f%% %s\n", n[f] / w, 100 * n[f] / total, f
		printf "TOTAL %.1f\n", total / w
	}' | LC_ALL=C sort -k1,1gr | awk -v top="$top" '
	$1 == "TOTAL" { t = $2; next }
	shown < top+0 { printf "%10s %6s  %s\n", $1, $2, substr($0, length($1 " " $2 " ") + 1); shown++ }
	END { printf "%10s total\n", t }'
