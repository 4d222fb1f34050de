# SPDX-License-Identifier: GPL-2.0
#
# make bench's table of region pairs counted by the PMU in the Ice Lake
# guest (scripts/bench-guest.sh): regions-cost's "API N USER KERNEL"
# lines (selftests/bench/regions_cost.c), with each row's user
# instructions against the handle form's with as many events and the
# target for the handle pair with 4 events.  Loaded after
# scripts/bench-emit.awk: every row goes to make bench's results too.
{
	api[NR] = $1; n[NR] = $2; u[NR] = $3; k[NR] = $4
	if ($1 == "handle")
		h[$2] = $3
}
END {
	printf "  %-11s %6s %6s %7s %9s\n", "API", "events", "user", "kernel", "vs handle"
	for (i = 1; i <= NR; i++) {
		printf "  %-11s %6s %6s %7s %9.2f\n", api[i], n[i], u[i], k[i], u[i] / h[n[i]]
		tool = "pmuctl-" api[i]
		if (api[i] == "handle")
			tool = "pmuctl"
		else if (api[i] ~ /^PAPI-7/)
			tool = "PAPI"
		emit("region pair, " n[i] " event" (n[i] > 1 ? "s" : ""), tool, api[i], n[i],
		     u[i], k[i], -1, -1, -1)
	}
	printf "  target: the handle pair with 4 events in at most 60 user and 0 kernel instructions: %s (%s, %s)\n",
	       (h[4] <= 60 ? "met" : "not met"), h[4], "see doc/regions.md"
}
