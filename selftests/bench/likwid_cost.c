// SPDX-License-Identifier: GPL-2.0
/*
 * likwid5-cost N: what one LIKWID_MARKER_START/STOP pair of Debian's own
 * LIKWID (5.2, liblikwid, direct MSR access) costs with N events (1..7),
 * in instructions executed, user and kernel, in make bench's plugin guest
 * (scripts/bench-guest.sh: one CPU, the TCG plugin
 * scripts/vm/insn-count.c counting).  LIKWID programs the counters
 * itself, through /dev/cpu/0/msr, so a pmuctl group could not measure
 * it: the markers of insn_marks.h delimit loops of pairs and of nothing,
 * and the host computes the difference from the plugin's lines.
 *
 * The guest's CPU is a Goldmont (-cpu Denverton): LIKWID 5.2 gives up
 * (or crashes) on the server and client models QEMU offers, for want of
 * their uncore PCI devices or memory-controller BAR; on Goldmont it needs
 * neither.  Goldmont has 3 fixed and 4 generic counters: N is at most 7.
 * LIKWID reads its three fixed counters in every event set, asked for or
 * not, so it reads max(N, 3) counters; printed as NEV.
 *
 * The program sets up LIKWID's Marker API as likwid-perfctr -m would
 * (LIKWID_MODE 0, LIKWID_THREADS 0, LIKWID_EVENTS, LIKWID_FILEPATH in the
 * environment; the program is pinned to CPU 0), runs the windows, and
 * checks with LIKWID_MARKER_GET that LIKWID counted every call of the
 * region with the counters it should (its markers ran, not the "Running
 * without Marker API" no-ops).  Prints "insn-label LABEL LIKWID-5 N NEV"
 * and exits 0; 1 with a message.  Linked with Debian's liblikwid
 * (dynamic; the guest carries its libraries), built by make bench only.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIKWID_PERFMON
#include <likwid-marker.h>	/* LIKWID's own (Debian's likwid) */

#include "insn_marks.h"

/*
 * As regions_cost.c's (scripts/insn-table.awk divides by 10,000 and 100),
 * fewer windows: a LIKWID pair executes some 25,000 instructions, and
 * its user count differs by at most a few instructions in 10,000 pairs
 * from one long window to the next (the least is taken).
 */
#define PAIRS	10000L
#define RUNS	2
#define BATCH	100L
#define BATCHES	50
#define WARMUP	100L
#define LABEL	0x90		/* + N: LIKWID-5 */

/* Goldmont's fixed counters, then its generic ones, in LIKWID's names. */
static const char *const events[7] = {
	"INSTR_RETIRED_ANY:FIXC0", "CPU_CLK_UNHALTED_CORE:FIXC1",
	"CPU_CLK_UNHALTED_REF:FIXC2", "BR_INST_RETIRED_ALL_BRANCHES:PMC0",
	"BR_MISP_RETIRED_ALL_BRANCHES:PMC1", "UOPS_ISSUED_ANY:PMC2",
	"LONGEST_LAT_CACHE_MISS:PMC3",
};

static __attribute__((noinline)) void loop_none(long n)
{
	for (long i = 0; i < n; i++)
		__asm__ __volatile__("" ::: "memory");
}

static __attribute__((noinline)) void loop_api(long n)
{
	for (long i = 0; i < n; i++) {
		LIKWID_MARKER_START("solve");
		LIKWID_MARKER_STOP("solve");
	}
}

int main(int argc, char **argv)
{
	char list[512] = "";
	double counts[16], time = 0;
	int nev = 16, calls = 0;
	unsigned int n, want;
	cpu_set_t cpus;

	if (argc != 2 || (n = (unsigned int)atoi(argv[1])) < 1 || n > 7) {
		fprintf(stderr, "usage: likwid5-cost N (1..7 events)\n");
		return 2;
	}
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus)) {
		perror("likwid5-cost: sched_setaffinity");
		return 1;
	}
	for (unsigned int i = 0; i < n; i++) {
		strcat(list, i ? "," : "");
		strcat(list, events[i]);
	}
	setenv("LIKWID_MODE", "0", 1);		/* direct: /dev/cpu/N/msr */
	setenv("LIKWID_THREADS", "0", 1);
	setenv("LIKWID_EVENTS", list, 1);
	setenv("LIKWID_FILEPATH", "/tmp/likwid-cost.out", 1);
	setenv("LIKWID_FORCE", "1", 1);
	/*
	 * Direct access needs no access daemon, but LIKWID looks for one
	 * first (with bash, which the guest lacks) and exits without it
	 * unless told that there is none.
	 */
	setenv("LIKWID_NO_ACCESS", "1", 1);

	LIKWID_MARKER_INIT;
	LIKWID_MARKER_THREADINIT;
	LIKWID_MARKER_REGISTER("solve");
	loop_api(WARMUP);
	marks_label(LABEL + n);
	marks_measure(loop_none, loop_api, PAIRS, RUNS, BATCH, BATCHES);
	LIKWID_MARKER_GET("solve", &nev, counts, &time, &calls);
	want = n < 3 ? 3 : n;
	if (calls != WARMUP + RUNS * PAIRS + BATCHES * BATCH || nev != (int)want) {
		fprintf(stderr, "likwid5-cost: LIKWID counted %d calls with %d counters, want %ld with %u: its Marker API did not run as set up (see above)\n",
			calls, nev, WARMUP + RUNS * PAIRS + BATCHES * BATCH, want);
		return 1;
	}
	LIKWID_MARKER_CLOSE;
	printf("insn-label %u LIKWID-5 %u %d\n", LABEL + n, n, nev);
	return 0;
}
