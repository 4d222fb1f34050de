// SPDX-License-Identifier: GPL-2.0
/*
 * regions-cost API N (papi-cost N): what one enter and exit pair of a
 * region costs, in instructions retired, user and kernel, in the
 * emulated-PMU guest of "make bench" (scripts/bench-guest.sh).
 *
 * The region's session is a task-scope group of N events (1..8) on the
 * calling thread, which holds its rdpmc grant; a second session, CPU
 * scope on CPU 0 where the thread is pinned, counts instructions retired
 * in user mode and in kernel mode on two generic counters, read with
 * rdpmc around a loop of 10,000 pairs and around the same loop without
 * them.  The difference over 10,000 is the pair's cost, with the loads of
 * its arguments.  User counts are exact under TCG (the same each run);
 * kernel counts are the least of 200 runs of 100 pairs (a timer
 * interrupt lands in some), scaled.  API:
 *   handle     pmuctl_region_enter()/_exit() with a handle
 *   name       pmuctl_region_enter_name()/_exit_name()
 *   likwid     LIKWID_MARKER_START/STOP (pmuctl-likwid), the session
 *              handed over in $PMUCTL_REGIONS as "pmuctl stat --regions"
 *              does
 *   likwid-off the same without LIKWID_MARKER_INIT: markers off
 *   papi       PAPI_hl_region_begin/end (pmuctl-papi-hl: papi-cost, whose
 *              library programs the task session itself from $PAPI_EVENTS
 *              when the program starts; the caller sets it to N events)
 *   papi-off   the same after PAPI_hl_stop()
 * Built with COST_PAPI_NATIVE (papi7-cost, linked with Debian's static
 * libpapi): PAPI's own PAPI_hl_region_begin/end on its perf_event
 * component, PAPI_EVENTS set by the caller; printed as "PAPI-7".  Its
 * perf events keep pmuctl off the counters (PERF_BUSY), so that build
 * counts with two perf events of the thread instead, read with read(2);
 * the difference of the two loops is the same measure.
 * Prints "regions-cost API N USER KERNEL" (instructions per pair, one
 * decimal) and exits 0; 1 with a message.
 *
 * regions-cost -p API N measures with the TCG plugin instead
 * (scripts/vm/insn-count.c, markers of insn_marks.h; no measuring group):
 * make bench's plugin guest runs it beside Debian's LIKWID
 * (likwid_cost.c), so that the plugin's count of a pmuctl pair can be
 * checked against the PMU's.  Prints "insn-label LABEL API N"; the host
 * reads the counts from the plugin's lines.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "libpmuctl.h"
#include "insn_marks.h"
#if defined(COST_PAPI_NATIVE)
#include <papi.h>		/* PAPI's own (libpapi-dev) */
#define COST_PAPI
#elif defined(COST_PAPI)
#include "papi-hl/papi.h"
#else
#define LIKWID_PERFMON
#include "likwid/likwid-marker.h"
#endif

#define PAIRS	10000L
#define RUNS	5

/* Events 0..7 of a region's group: on the fixed counters and six more. */
static const uint64_t configs[8] = {
	0x00c0, 0x003c, 0x00c4, 0x00c5, 0x0300, 0x013c, 0x412e, 0x4f2e,
};


static __attribute__((noinline)) void loop_none(long n)
{
	for (long i = 0; i < n; i++)
		__asm__ __volatile__("" ::: "memory");
}

#ifdef COST_PAPI
static __attribute__((noinline)) void loop_api(long n)
{
	for (long i = 0; i < n; i++) {
		PAPI_hl_region_begin("solve");
		PAPI_hl_region_end("solve");
	}
}
#else
static struct pmuctl_regions *set;
static int handle;
static int api;		/* 0 handle, 1 name, 2 likwid */

static __attribute__((noinline)) void loop_api(long n)
{
	if (api == 0) {
		for (long i = 0; i < n; i++) {
			pmuctl_region_enter(set, handle);
			pmuctl_region_exit(set, handle);
		}
	} else if (api == 1) {
		for (long i = 0; i < n; i++) {
			pmuctl_region_enter_name(set, "solve");
			pmuctl_region_exit_name(set, "solve");
		}
	} else {
		for (long i = 0; i < n; i++) {
			LIKWID_MARKER_START("solve");
			LIKWID_MARKER_STOP("solve");
		}
	}
}
#endif

static int fail(const char *what, int ret, const struct pmuctl_error *err)
{
	char buf[512];

	fprintf(stderr, "regions-cost: %s: %s\n", what,
		pmuctl_strerror(ret, err, buf, sizeof(buf)));
	return 1;
}

/*
 * User: @fn(PAIRS) (the same count every run under TCG; the least of
 * RUNS).  Kernel: the least over BATCHES runs of @fn(BATCH), short
 * enough that most see no timer interrupt: what the pairs themselves
 * cost in the kernel, scaled to PAIRS.
 */
#define BATCH	100L
#define BATCHES	200

/*
 * The measuring counts now: instructions retired in user and kernel mode
 * on this CPU.  pmuctl's CPU-scope group, read with rdpmc; for PAPI's
 * own, whose perf events keep pmuctl off the counters (PERF_BUSY), two
 * perf events of this thread, read with read(2): the same counts, exact
 * under TCG, and what reading them costs is the same in both loops.
 */
static const struct pmuctl_counters *meas_c;
static int meas_fd[2] = { -1, -1 };

static void meas_read(uint64_t *v)
{
	if (meas_c) {
		pmuctl_read_counters(meas_c, v, 2);
		return;
	}
	for (int i = 0; i < 2; i++)
		if (read(meas_fd[i], &v[i], sizeof(v[i])) != sizeof(v[i]))
			v[i] = 0;
}

static uint64_t meas_delta(int i, uint64_t a, uint64_t b)
{
	return meas_c ? pmuctl_delta(meas_c, (unsigned int)i, a, b) : b - a;
}

#ifdef COST_PAPI_NATIVE
static int meas_perf(void)
{
	for (int i = 0; i < 2; i++) {
		struct perf_event_attr a;

		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_HARDWARE;
		a.config = PERF_COUNT_HW_INSTRUCTIONS;
		a.exclude_kernel = i == 0;
		a.exclude_user = i == 1;
		a.exclude_hv = 1;
		meas_fd[i] = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
		if (meas_fd[i] < 0)
			return -errno;
	}
	return 0;
}
#endif

static void measure(void (*fn)(long), uint64_t *user, uint64_t *kernel)
{
	uint64_t a[2], b[2];

	*user = *kernel = UINT64_MAX;
	for (int run = 0; run < RUNS; run++) {
		meas_read(a);
		fn(PAIRS);
		meas_read(b);
		if (meas_delta(0, a[0], b[0]) < *user)
			*user = meas_delta(0, a[0], b[0]);
	}
	for (int run = 0; run < BATCHES; run++) {
		meas_read(a);
		fn(BATCH);
		meas_read(b);
		if (meas_delta(1, a[1], b[1]) * (PAIRS / BATCH) < *kernel)
			*kernel = meas_delta(1, a[1], b[1]) * (PAIRS / BATCH);
	}
}

int main(int argc, char **argv)
{
	struct pmuctl_event ev[8], mev[2];
	struct pmuctl_error err;
	struct pmuctl *m;
	uint64_t u0, k0, u1, k1;
	unsigned int n;
	int ret, cpu;
	const char *name;
#ifdef COST_PAPI
	bool off;

	if (argc != 3 || (strcmp(argv[1], "papi") && strcmp(argv[1], "papi-off"))) {
		fprintf(stderr, "usage: papi-cost papi|papi-off N (with PAPI_EVENTS of N events)\n");
		return 2;
	}
	off = !strcmp(argv[1], "papi-off");
#else
	struct pmuctl *p;
	bool off = false, plugin = false;

	if (argc == 4 && !strcmp(argv[1], "-p")) {
		plugin = true;
		argc--;
		argv++;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: regions-cost [-p] handle|name|likwid|likwid-off N\n");
		return 2;
	}
	if (!strcmp(argv[1], "handle"))
		api = 0;
	else if (!strcmp(argv[1], "name"))
		api = 1;
	else if (!strcmp(argv[1], "likwid") || !strcmp(argv[1], "likwid-off"))
		api = 2, off = !strcmp(argv[1], "likwid-off");
	else
		return fprintf(stderr, "regions-cost: unknown API '%s'\n", argv[1]), 2;
#endif
	name = argv[1];
#ifdef COST_PAPI_NATIVE
	name = off ? "PAPI-7-off" : "PAPI-7";
#endif
	n = (unsigned int)atoi(argv[2]);
	if (n < 1 || n > 8)
		return fprintf(stderr, "regions-cost: N is 1..8\n"), 2;
	memset(&err, 0, sizeof(err));

	/* Pinned to CPU 0, where the measuring group counts. */
	ret = pmuctl_open(NULL, 0, &m);
	if (ret)
		return fail("open", ret, NULL);
	memset(mev, 0, sizeof(mev));
	mev[0].config = 0x00c0 | PMUCTL_CFG_USR;
	mev[1].config = 0x00c0 | PMUCTL_CFG_OS;
	/* Generic counters: the fixed ones are the region group's. */
	mev[0].flags = PMUCTL_EVENT_GENERIC_ONLY;
	mev[1].flags = PMUCTL_EVENT_GENERIC_ONLY;

#ifndef COST_PAPI
	memset(ev, 0, sizeof(ev));
	for (unsigned int i = 0; i < n; i++)
		ev[i].config = configs[i] | PMUCTL_CFG_USR;
	ret = pmuctl_open(NULL, 0, &p);
	if (ret)
		return fail("open", ret, NULL);
	ret = pmuctl_program_task(p, 0, ev, n, &err);
	if (ret)
		return fail("PROGRAM (task)", ret, &err);
	ret = pmuctl_start(p);
	if (ret)
		return fail("START (task)", ret, NULL);
	if (api == 2) {
		/* The hand-over "pmuctl stat --regions" makes. */
		const struct pmuctl_counters *c = pmuctl_get_counters(p);
		char env[512];
		int len = snprintf(env, sizeof(env), "fd=%d ev=", pmuctl_fd(p));

		for (unsigned int i = 0; i < n; i++)
			len += snprintf(env + len, sizeof(env) - (size_t)len, "%s%x/%llx",
					i ? "," : "", c->ecx[i],
					(unsigned long long)ev[i].config);
		setenv("PMUCTL_REGIONS", env, 1);
		if (!off)
			LIKWID_MARKER_INIT;
		LIKWID_MARKER_REGISTER("solve");
	} else {
		ret = pmuctl_regions_new(p, ev, NULL, 16, 0, &set);
		if (ret)
			return fail("pmuctl_regions_new", ret, NULL);
		handle = pmuctl_region_register(set, "solve");
	}
#else
	(void)configs;
	(void)ev;
	/*
	 * PAPI's own sets its events up at its first call, before pmuctl
	 * holds the measuring counters (perf could not have them then).
	 */
	loop_api(1);
	if (off)
		PAPI_hl_stop();
#endif
#ifndef COST_PAPI
	if (plugin) {
		unsigned int label = 0x10 * (unsigned int)(api + 1 + off) + n;

		loop_api(100);
		marks_label(label);
		marks_measure(loop_none, loop_api, PAIRS, RUNS, BATCH, BATCHES);
		printf("insn-label %u %s %u\n", label, name, n);
		return 0;
	}
#endif
#ifdef COST_PAPI_NATIVE
	(void)cpu;
	(void)mev;
	(void)m;
	ret = meas_perf();
	if (ret)
		return fail("perf_event_open", ret, NULL);
#else
	cpu = pmuctl_program_cpu(m, 0, mev, 2, &err);
	if (cpu < 0)
		return fail("PROGRAM (CPU 0)", cpu, &err);
	ret = pmuctl_start(m);
	if (ret)
		return fail("START (CPU 0)", ret, NULL);
	if (!(pmuctl_get_counters(m)->flags & PMUCTL_COUNTERS_RDPMC))
		return fprintf(stderr, "regions-cost: no rdpmc for the measuring group\n"), 1;
	meas_c = pmuctl_get_counters(m);
#endif

	/* The first pair of a thread makes its block: not measured. */
	loop_api(100);
	measure(loop_none, &u0, &k0);
	measure(loop_api, &u1, &k1);
	printf("regions-cost %s %u %.1f %.1f\n", name, n,
	       ((double)u1 - (double)u0) / PAIRS, ((double)k1 - (double)k0) / PAIRS);
	return 0;
}
