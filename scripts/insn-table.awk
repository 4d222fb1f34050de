# SPDX-License-Identifier: GPL-2.0
#
# make bench's table of region pairs counted by the TCG plugin
# (scripts/bench-guest.sh).  Input: "label LABEL API N [NEV]" lines (what
# the guest programs printed: regions-cost -p, likwid5-cost), then the
# plugin's "stop LABEL ARG USER KERNEL" lines (scripts/vm/insn-count.c;
# ARG 0/1: loops without pairs, long/batch; 2/3: with pairs).  Per label:
# user = (least ARG 2 - least ARG 0) / 10,000 pairs, kernel = (least ARG 3
# - least ARG 1) / 100 pairs.  -v pmu="N=USER ...": the handle pair's
# user instructions the PMU counted (the Ice Lake guest); each handle row
# must equal it, or the exit status is 1.  Loaded after
# scripts/bench-emit.awk: each row goes to make bench's results too.
$1 == "label" {
	name[$2] = $3
	n[$2] = $4
	nev[$2] = $5 == "" ? $4 : $5
	order[++nl] = $2
	next
}
$1 == "stop" {
	k = $2 SUBSEP $3
	if (!(k in u) || $4 < u[k])
		u[k] = $4
	if (!(k in kk) || $5 < kk[k])
		kk[k] = $5
}
END {
	np = split(pmu, pairs, " ")
	for (i = 1; i <= np; i++) {
		split(pairs[i], f, "=")
		want[f[1]] = f[2]
	}
	for (i = 1; i <= nl; i++) {
		l = order[i]
		user[l] = (u[l, 2] - u[l, 0]) / 10000
		kern[l] = (kk[l, 3] - kk[l, 1]) / 100
		if (name[l] == "handle")
			h[n[l]] = user[l]
	}
	printf "  %-11s %6s %8s %8s %8s %9s\n", "API", "events", "counters", "user", "kernel", "vs handle"
	for (i = 1; i <= nl; i++) {
		l = order[i]
		hn = n[l] in h ? n[l] : 4
		printf "  %-11s %6s %8s %8.1f %8.1f %9.2f\n", name[l], n[l], nev[l],
		       user[l], kern[l], user[l] / h[hn]
		what = "LIKWID_MARKER_START/STOP (LIKWID 5.2)"
		if (name[l] == "handle")
			what = "pmuctl_region_enter/exit"
		else if (name[l] == "likwid")
			what = "LIKWID_MARKER_START/STOP (pmuctl-likwid)"
		tool = "LIKWID"
		if (name[l] == "handle")
			tool = "pmuctl"
		else if (name[l] == "likwid")
			tool = "pmuctl-likwid"
		emit("region pair, " n[l] " event" (n[l] > 1 ? "s" : ""), tool, what, nev[l],
		     user[l], kern[l], -1, -1, -1)
	}
	bad = nl == 0
	for (i = 1; i <= nl; i++) {
		l = order[i]
		if (name[l] != "handle")
			continue
		x = n[l]
		ok = (x in want) && sprintf("%.1f", h[x]) == sprintf("%.1f", want[x])
		printf "  check: the plugin counts the handle pair with %s event(s) as the PMU did: %.1f, PMU %s: %s\n",
		       x, h[x], (x in want) ? want[x] : "none", ok ? "equal" : "DIFFERENT"
		if (!ok)
			bad = 1
	}
	print "  (LIKWID reads its 3 fixed counters in every event set: \"counters\".  7 events, not"
	print "   8: a Goldmont has 4 generic counters.  vs handle: user instructions against"
	print "   pmuctl's handle pair with as many events, or 4 where it has no row)"
	exit bad
}
