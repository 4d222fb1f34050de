# SPDX-License-Identifier: GPL-2.0
#
# make bench's picture: instructions per operation (user + kernel), one
# cluster per operation, one bar per tool, log scale.
# usage: gnuplot -c scripts/cost.gp DATA.tsv OUT.png "TITLE"
# DATA.tsv: a header "operation<TAB>TOOL..." and one line per operation,
# "-" where a tool has no row (scripts/bench-guest.sh writes it from the
# results' TSV lines).
set terminal pngcairo size 1600,800 noenhanced font ",11"
set output ARG2
set title ARG3
set datafile separator "\t"
set datafile missing "-"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set logscale y
set yrange [1:*]
set grid ytics
set ylabel "instructions per operation (user + kernel), log scale"
set xtics rotate by -25 nomirror
set key top left
ncol = 8
plot for [i=2:ncol] ARG1 using i:xtic(1) title columnheader(i)
