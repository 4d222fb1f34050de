// SPDX-License-Identifier: GPL-2.0
/*
 * libpmuctl's regions (user/regions.c) counting known code exactly, in the
 * emulated-PMU guests: a task-scope session with inheritance counts
 * instructions:u and branches:u; known_loop(n) (loop_asm.S) retires
 * 4 + 2n user instructions, n + 2 of them branches.  What a region adds
 * beyond its code (the end of enter after its last rdpmc, the start of
 * exit before its first) is the same for every n, so the sums of two
 * regions around known_loop(0) and known_loop(N), entered the same number
 * of times, differ by exactly 2N instructions and N branches a call:
 *
 *  - in the thread that programmed, with calls counted;
 *  - in four threads created after PROGRAM (inherited), each moved
 *    between the CPUs between calls, each with its own rows;
 *  - nested: an outer region holds its inner region's code and its own;
 *  - a thread created before PROGRAM is not counted: its entry is
 *    refused and counted as a misuse.
 *
 * The constant (what a region of known_loop(0) counts per call) is
 * printed, as the user instructions an enter and exit pair adds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "libpmuctl.h"
#include "pmu.h"

void known_loop(unsigned long n);

#define CALLS	5
#define N	1000UL

static struct pmuctl_event ev[2];
static const char *const names[2] = { "instructions:u", "branches:u" };

/*
 * The session and the set; SKIP where perf's NMI watchdog holds the
 * counters (the rig's "pmu-wd" guests): PERF_BUSY.
 */
#define PROGRAM(p, r) do {						\
	int __ret = program(p, r);					\
									\
	if (__ret == -EBUSY && perr.reason == PMUCTL_R_PERF_BUSY)	\
		SKIP(return, "perf holds the counters (PERF_BUSY: kernel.nmi_watchdog=1)"); \
	ASSERT_EQ(0, __ret) TH_LOG("%s", strerror(-__ret));		\
} while (0)

static struct pmuctl_error perr;

static int program(struct pmuctl **p, struct pmuctl_regions **r)
{
	int ret = pmuctl_open(NULL, 0, p);

	if (ret)
		return ret;
	memset(ev, 0, sizeof(ev));
	ev[0].config = 0x00c0 | EVTSEL_USR;
	ev[1].config = 0x00c4 | EVTSEL_USR;
	ret = pmuctl_program_task(*p, PMUCTL_PROGRAM_INHERIT, ev, 2, &perr);
	if (!ret)
		ret = pmuctl_start(*p);
	if (!ret)
		ret = pmuctl_regions_new(*p, ev, names, 16, 0, r);
	return ret;
}

/* CALLS times region @h around known_loop(@n), moving CPUs if @cpus > 1. */
static int run(struct pmuctl_regions *r, int h, unsigned long n, int cpus)
{
	for (int i = 0; i < CALLS; i++) {
		int ret;

		if (cpus > 1) {
			cpu_set_t one;

			CPU_ZERO(&one);
			CPU_SET(i % cpus, &one);
			sched_setaffinity(0, sizeof(one), &one);
		}
		ret = pmuctl_region_enter(r, h);
		if (ret)
			return ret;
		known_loop(n);
		ret = pmuctl_region_exit(r, h);
		if (ret)
			return ret;
	}
	return 0;
}

/* The row of region @h in thread @tid, or NULL. */
static int row_of(struct pmuctl_regions *r, int h, pid_t tid,
		  struct pmuctl_region_stats *st)
{
	for (unsigned int i = 0; !pmuctl_regions_stats(r, i, st); i++)
		if (st->handle == h && st->tid == tid)
			return 0;
	return -ENOENT;
}

static void expect_difference(struct __test_metadata *_metadata,
			      struct pmuctl_regions *r, int h0, int hn,
			      pid_t tid, const char *who)
{
	struct pmuctl_region_stats a, b;

	ASSERT_EQ(0, row_of(r, h0, tid, &a)) TH_LOG("%s: no row", who);
	ASSERT_EQ(0, row_of(r, hn, tid, &b)) TH_LOG("%s: no row", who);
	EXPECT_EQ((uint64_t)CALLS, a.calls);
	EXPECT_EQ((uint64_t)CALLS, b.calls);
	EXPECT_EQ(0U, a.open);
	EXPECT_EQ((uint64_t)CALLS * 2 * N, b.counts[0] - a.counts[0]) {
		TH_LOG("%s: instructions %llu and %llu for %d calls of known_loop(0) and (%lu)",
		       who, (unsigned long long)a.counts[0],
		       (unsigned long long)b.counts[0], CALLS, N);
	}
	EXPECT_EQ((uint64_t)CALLS * N, b.counts[1] - a.counts[1]) {
		TH_LOG("%s: branches %llu and %llu", who,
		       (unsigned long long)a.counts[1],
		       (unsigned long long)b.counts[1]);
	}
	/* The same code around the loop each call: sums are multiples. */
	EXPECT_EQ(0U, a.counts[0] % CALLS);
}

TEST(a_region_counts_its_code_exactly_in_the_programming_thread)
{
	struct pmuctl_regions *r;
	struct pmuctl_region_stats st;
	struct pmuctl *p;
	int h0, hn;

	PROGRAM(&p, &r);
	h0 = pmuctl_region_register(r, "loop0");
	hn = pmuctl_region_register(r, "loopN");
	ASSERT_EQ(0, run(r, h0, 0, 1));
	ASSERT_EQ(0, run(r, hn, N, 1));
	expect_difference(_metadata, r, h0, hn, gettid(), "main thread");
	ASSERT_EQ(0, row_of(r, h0, gettid(), &st));
	/* The thread that programmed holds the grant: nothing emulated. */
	EXPECT_EQ(0U, st.emulated_reads);
	ksft_print_msg("an enter and exit pair adds %llu user instructions and %llu branches to a region of known_loop(0) (its own 4 and 2, and the call)\n",
		       (unsigned long long)(st.counts[0] / CALLS),
		       (unsigned long long)(st.counts[1] / CALLS));
	for (unsigned int k = 0; k < PMUCTL_REGION_MISUSE_NR; k++)
		EXPECT_EQ(0U, pmuctl_regions_misuse(r, k));
	pmuctl_regions_free(r);
	pmuctl_close(p);
}

struct worker {
	struct pmuctl_regions *r;
	int h0, hn, cpus, ret;
	pid_t tid;
};

static void *work(void *arg)
{
	struct worker *w = arg;

	w->tid = gettid();
	w->ret = run(w->r, w->h0, 0, w->cpus);
	if (!w->ret)
		w->ret = run(w->r, w->hn, N, w->cpus);
	return NULL;
}

TEST(inherited_threads_count_exactly_across_migrations_each_its_own)
{
	struct worker w[4];
	pthread_t th[4];
	struct pmuctl_regions *r;
	struct pmuctl *p;
	int cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	char who[32];

	PROGRAM(&p, &r);
	for (int i = 0; i < 4; i++) {
		w[i] = (struct worker){ r, pmuctl_region_register(r, "loop0"),
					pmuctl_region_register(r, "loopN"),
					cpus, 0, 0 };
		ASSERT_EQ(0, pthread_create(&th[i], NULL, work, &w[i]));
	}
	for (int i = 0; i < 4; i++) {
		ASSERT_EQ(0, pthread_join(th[i], NULL));
		EXPECT_EQ(0, w[i].ret);
	}
	for (int i = 0; i < 4; i++) {
		snprintf(who, sizeof(who), "thread %d", i);
		expect_difference(_metadata, r, w[i].h0, w[i].hn, w[i].tid, who);
	}
	pmuctl_regions_free(r);
	pmuctl_close(p);
}

TEST(an_outer_region_holds_its_inner_region_and_its_own_code)
{
	struct pmuctl_regions *r;
	struct pmuctl_region_stats o, in;
	struct pmuctl *p;
	int outer, inner;

	PROGRAM(&p, &r);
	outer = pmuctl_region_register(r, "outer");
	inner = pmuctl_region_register(r, "inner");
	for (int i = 0; i < CALLS; i++) {
		ASSERT_EQ(0, pmuctl_region_enter(r, outer));
		known_loop(N);
		ASSERT_EQ(0, pmuctl_region_enter(r, inner));
		known_loop(N);
		ASSERT_EQ(0, pmuctl_region_exit(r, inner));
		ASSERT_EQ(0, pmuctl_region_exit(r, outer));
	}
	ASSERT_EQ(0, row_of(r, outer, gettid(), &o));
	ASSERT_EQ(0, row_of(r, inner, gettid(), &in));
	/* outer = its known_loop(N) + inner's span (at least inner's count) */
	EXPECT_LT(in.counts[0] + (uint64_t)CALLS * (4 + 2 * N), o.counts[0] + 1);
	EXPECT_LE((uint64_t)CALLS * (4 + 2 * N), in.counts[0]);
	EXPECT_EQ(0U, pmuctl_regions_misuse(r, PMUCTL_REGION_MISUSE_UNBALANCED));
	pmuctl_regions_free(r);
	pmuctl_close(p);
}

struct early {
	pthread_mutex_t m;
	pthread_cond_t cv;
	struct pmuctl_regions *r;
	int h, ret;
};

static void *early_thread(void *arg)
{
	struct early *e = arg;

	pthread_mutex_lock(&e->m);
	while (!e->r)
		pthread_cond_wait(&e->cv, &e->m);
	pthread_mutex_unlock(&e->m);
	e->ret = pmuctl_region_enter(e->r, e->h);
	return NULL;
}

TEST(a_thread_made_before_the_session_is_refused_and_counted)
{
	struct early e = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
			   NULL, 0, 0 };
	struct pmuctl_regions *r;
	struct pmuctl *p;
	pthread_t th;

	ASSERT_EQ(0, pthread_create(&th, NULL, early_thread, &e));
	PROGRAM(&p, &r);
	pthread_mutex_lock(&e.m);
	e.h = pmuctl_region_register(r, "solve");
	e.r = r;
	pthread_cond_signal(&e.cv);
	pthread_mutex_unlock(&e.m);
	ASSERT_EQ(0, pthread_join(th, NULL));
	EXPECT_EQ(-EPERM, e.ret);
	EXPECT_EQ(1U, pmuctl_regions_misuse(r, PMUCTL_REGION_MISUSE_UNCOUNTED_THREAD));
	pmuctl_regions_free(r);
	pmuctl_close(p);
}

PMU_TEST_MAIN(false, (void)0)
