// SPDX-License-Identifier: GPL-2.0
/*
 * Task scope under load (uapi/linux/pmuctl.h, "Task scope"): 8 worker
 * processes run 1000 rounds each of task-scope PROGRAM, START, READ
 * (totals and PMUCTL_READ_THREAD), sometimes STOP, RESET, an inherited
 * thread that reads and exits (or outlives the group), then RELEASE or
 * close, while a thread in each worker moves the worker's main thread
 * between CPUs with sched_setaffinity() and the test takes CPUs 1..3 off
 * and on line.  Every answer must be 0 (task-scope groups share their
 * counters: nothing is ever busy), every total 0 (nothing counts in the
 * register model and nobody presets a counter, so a non-zero value is a
 * count that leaked from somewhere), and at the end pmuctl is at rest:
 * no session, no claim, no control register left non-zero.
 *
 * A task-scope count also survives suspend to RAM (pm_test "core": the
 * syscore suspend and resume run, the machine does not sleep; the register
 * model loses the boot CPU's PMU registers there, as silicon does) when the
 * counted thread is the one that writes /sys/power/state, on the boot CPU:
 * its READ afterwards is the count it had, not a wrapped difference of
 * 2^width.
 *
 * Needs 4 CPUs and the register model, as hotplug_test: it runs in the
 * same -smp 4 guests (build/vmtests-hotplug/).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"
#include "load.h"
#include "kselftest_harness.h"

#define NR_CPUS_NEEDED	4
#define NR_WORKERS	8
#define NR_ROUNDS	1000	/* rounds per worker, at least */
#define NR_LOAD_CYCLES	40	/* off/on line cycles under the load, at least */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Why this guest cannot run the tests, or NULL. */
static const char *unfit(void)
{
	return hotplug_unfit(NR_CPUS_NEEDED);
}

/* What one worker did, in shared memory (load_stats_alloc). */
struct tstats {
	unsigned long rounds, reads, threads, moves, closes;
};

struct worker {
	const struct load_env *env;
	struct load_stats *st;
	struct tstats *ts;
	__u64 rs;
	pid_t tid;		/* the worker's main thread */
	volatile int stop;	/* the mover stops */
	int fd;
	__u32 n;
	struct pmuctl_event ev[PMUCTL_MAX_EVENTS];
};

#define BAD(w, ...) do {						\
	if (!(w)->st->bad++)						\
		snprintf((w)->st->msg, sizeof((w)->st->msg), __VA_ARGS__); \
} while (0)

/* Move the worker's main thread to a random CPU, again and again. */
static void *mover(void *arg)
{
	struct worker *w = arg;
	__u64 rs = w->rs ^ 0x6d6f7665ULL;
	cpu_set_t set;

	while (!__atomic_load_n(&w->stop, __ATOMIC_RELAXED)) {
		CPU_ZERO(&set);
		CPU_SET(load_rand(&rs) % NR_CPUS_NEEDED, &set);
		/* EINVAL: that CPU is offline now. */
		if (!sched_setaffinity(w->tid, sizeof(set), &set))
			w->ts->moves++;
		usleep(load_rand(&rs) % 2000);
	}
	return NULL;
}

/* An inherited thread: it is counted, so READ_THREAD works in it. */
static void *reader(void *arg)
{
	struct worker *w = arg;
	__u64 val[PMUCTL_MAX_EVENTS];
	struct pmuctl_read r;
	int ret = dev_read_task(w->fd, PMUCTL_READ_THREAD, val, PMUCTL_MAX_EVENTS, &r);

	return (void *)(long)ret;
}

static void round_once(struct worker *w)
{
	__u64 val[PMUCTL_MAX_EVENTS];
	struct pmuctl_program p;
	struct pmuctl_read r;
	bool inherit = load_rand(&w->rs) % 4 == 0;
	pthread_t t;
	bool thr = false;
	__u32 i;
	int ret;

	if (w->fd < 0) {
		w->fd = dev_open();
		if (w->fd < 0) {
			BAD(w, "open: %s", strerror(-w->fd));
			return;
		}
		w->st->opens++;
	}
	/* A group the core places on an empty PMU: task scope shares, never busy. */
	w->n = load_group(w->env, &w->rs, w->ev);
	ret = dev_program_task(w->fd, w->ev, w->n,
			       inherit ? PMUCTL_PROGRAM_INHERIT : 0, &p);
	if (ret) {
		BAD(w, "PROGRAM of %u events: %s, reason %u index %u",
		    w->n, strerror(-ret), p.err_reason, p.err_index);
		return;
	}
	w->st->programs++;
	ret = dev_ctl(w->fd, PMUCTL_IOC_START);
	if (ret)
		BAD(w, "START: %s", strerror(-ret));
	for (i = 0; i < 2000; i++)
		__asm__ volatile("" ::: "memory");
	if (inherit && !pthread_create(&t, NULL, reader, w)) {
		thr = true;
		w->ts->threads++;
	}
	ret = dev_read_task(w->fd, 0, val, PMUCTL_MAX_EVENTS, &r);
	w->st->reads++;
	w->ts->reads++;
	if (ret)
		BAD(w, "READ: %s", strerror(-ret));
	for (i = 0; !ret && i < w->n; i++)
		if (val[i])
			BAD(w, "READ: event %u total %#llx in a model that counts nothing",
			    i, (unsigned long long)val[i]);
	if (!ret && (r.nr_threads < 1 || r.nr_threads > 2 || r.nr_lost))
		BAD(w, "READ: nr_threads %u nr_lost %u", r.nr_threads, r.nr_lost);
	ret = dev_read_task(w->fd, PMUCTL_READ_THREAD, val, PMUCTL_MAX_EVENTS, &r);
	if (ret)
		BAD(w, "READ_THREAD: %s", strerror(-ret));
	for (i = 0; !ret && i < w->n; i++)
		if (val[i])
			BAD(w, "READ_THREAD: event %u %#llx", i, (unsigned long long)val[i]);
	switch (load_rand(&w->rs) % 4) {
	case 0:
		ret = dev_ctl(w->fd, PMUCTL_IOC_STOP);
		if (ret)
			BAD(w, "STOP: %s", strerror(-ret));
		break;
	case 1:
		ret = dev_ctl(w->fd, PMUCTL_IOC_RESET);
		if (ret)
			BAD(w, "RESET: %s", strerror(-ret));
		break;
	}
	/* Half the inherited threads outlive the group. */
	if (thr && load_rand(&w->rs) % 2) {
		void *res;

		pthread_join(t, &res);
		thr = false;
		if (res)
			BAD(w, "READ_THREAD in an inherited thread, group held: %s",
			    strerror(-(int)(long)res));
	}
	if (load_rand(&w->rs) % 8 == 0) {
		close(w->fd);
		w->fd = -1;
		w->ts->closes++;
	} else {
		ret = dev_ctl(w->fd, PMUCTL_IOC_RELEASE);
		if (ret)
			BAD(w, "RELEASE: %s", strerror(-ret));
	}
	if (thr) {
		void *res;

		pthread_join(t, &res);
		/*
		 * It may have read after the RELEASE (ENOENT: no group, or
		 * ESRCH) or the close (EBADF).
		 */
		if (res && (long)res != -ESRCH && (long)res != -ENOENT &&
		    (long)res != -EBADF)
			BAD(w, "READ_THREAD in an inherited thread, group released: %s",
			    strerror(-(int)(long)res));
	}
	w->ts->rounds++;
}

static void worker_main(const struct load_env *env, struct load_stats *st,
			struct tstats *ts, __u64 seed)
{
	struct worker w = { .env = env, .st = st, .ts = ts, .rs = seed, .fd = -1 };
	pthread_t mt;
	unsigned int k;

	w.tid = syscall(SYS_gettid);
	if (pthread_create(&mt, NULL, mover, &w)) {
		BAD(&w, "no mover thread");
		_exit(1);
	}
	for (k = 0; k < NR_ROUNDS || __atomic_load_n(&st->more, __ATOMIC_RELAXED); k++)
		round_once(&w);
	__atomic_store_n(&w.stop, 1, __ATOMIC_RELAXED);
	pthread_join(mt, NULL);
	if (w.fd >= 0)
		close(w.fd);
	_exit(st->bad ? 1 : 0);
}

FIXTURE(task_hotplug) {
	struct load_env env;
};

FIXTURE_SETUP(task_hotplug)
{
	const char *why;
	int fd;

	if (unfit())
		return;
	fd = dev_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, load_env_init(&self->env, fd));
	close(fd);
	why = load_unclean(&self->env, 1000);
	ASSERT_TRUE(why == NULL) TH_LOG("not at rest before the test: %s", why);
}

FIXTURE_TEARDOWN(task_hotplug)
{
	int c;

	for (c = 1; c < NR_CPUS_NEEDED; c++)
		cpu_set_online(c, true);
}

TEST_F_TIMEOUT(task_hotplug, task_sessions_under_migration_and_hotplug, 400)
{
	struct load_stats *st, sum;
	struct tstats *ts;
	pid_t pids[NR_WORKERS];
	int status;
	const char *why = unfit();
	unsigned int k, i, failed = 0, alive = NR_WORKERS;
	unsigned long rounds = 0, moves = 0, threads = 0, closes = 0;
	__u64 rs = load_seed();
	struct pmuctl_holding h[NR_CPUS_NEEDED];
	struct pmuctl_info in;
	double t = now();
	int fd;

	if (why)
		SKIP(return, "%s", why);
	st = load_stats_alloc(NR_WORKERS);
	ASSERT_NE(NULL, st);
	ts = (struct tstats *)load_stats_alloc(NR_WORKERS);
	ASSERT_NE(NULL, ts);
	ASSERT_LE(sizeof(*ts), sizeof(*st));
	ksft_print_msg("%u workers x %u+ task-scope rounds, migrated, during %u+ off/on line cycles of cpus 1-3, seed %#llx\n",
		       NR_WORKERS, NR_ROUNDS, NR_LOAD_CYCLES, load_seed());
	for (i = 0; i < NR_WORKERS; i++) {
		st[i].more = true;
		fflush(stdout);
		fflush(stderr);
		pids[i] = fork();
		ASSERT_LE(0, pids[i]);
		if (!pids[i])
			worker_main(&self->env, &st[i], &ts[i], load_seed() + i);
	}
	for (k = 0; alive; k++) {
		__u32 c = 1 + k % 3;

		EXPECT_EQ(0, cpu_set_online(c, false)) TH_LOG("cpu%u offline", c);
		usleep(load_rand(&rs) % 10000);
		EXPECT_EQ(0, cpu_set_online(c, true)) TH_LOG("cpu%u online", c);
		usleep(load_rand(&rs) % 20000);
		for (i = 0; k + 1 == NR_LOAD_CYCLES && i < NR_WORKERS; i++)
			__atomic_store_n(&st[i].more, false, __ATOMIC_RELAXED);
		for (i = 0; i < NR_WORKERS; i++) {
			if (pids[i] && waitpid(pids[i], &status, WNOHANG) == pids[i]) {
				failed += !WIFEXITED(status) || WEXITSTATUS(status);
				pids[i] = 0;
				alive--;
			}
		}
	}
	load_stats_sum(st, NR_WORKERS, &sum);
	for (i = 0; i < NR_WORKERS; i++) {
		rounds += ts[i].rounds;
		moves += ts[i].moves;
		threads += ts[i].threads;
		closes += ts[i].closes;
	}
	ksft_print_msg("%u off/on line cycles; %lu rounds (%lu groups, %lu inherited threads, %lu closes), %lu migrations, in %.1f s\n",
		       k, rounds, sum.programs, threads, closes, moves, now() - t);
	EXPECT_EQ(0, sum.bad) TH_LOG("%d unexpected answers; %s", sum.bad, sum.msg);
	EXPECT_EQ(0U, failed);
	EXPECT_LE((unsigned int)NR_LOAD_CYCLES, k);
	EXPECT_LE((unsigned long)NR_WORKERS * NR_ROUNDS, rounds);
	EXPECT_LT(0UL, moves);
	why = load_unclean(&self->env, 2000);
	EXPECT_TRUE(why == NULL) TH_LOG("after the load: %s", why);
	/* No counter left to task scope on any CPU. */
	fd = dev_open();
	ASSERT_LE(0, fd);
	memset(&in, 0, sizeof(in));
	in.holdings = (uintptr_t)h;
	in.holding_size = sizeof(h[0]);
	in.holdings_size = sizeof(h);
	ASSERT_EQ(0, dev_ioctl(fd, PMUCTL_IOC_INFO, &in));
	for (i = 0; i < in.holdings_nr; i++)
		for (k = 0; k < PMUCTL_HOLDING_COUNTERS; k++)
			EXPECT_EQ(0U, h[i].owner[k]) TH_LOG("cpu %u counter index %u", i, k);
	close(fd);
	load_stats_free(st, NR_WORKERS);
	load_stats_free((struct load_stats *)ts, NR_WORKERS);
}

/* Context switches of the calling thread: it blocks, then yields. */
static void switch_a_few_times(void)
{
	int i;

	for (i = 0; i < 5; i++) {
		usleep(1000);
		sched_yield();
	}
}

#define SUSPEND_COUNT	1000	/* events the thread "counted" before suspend */

TEST_F_TIMEOUT(task_hotplug, suspending_thread_keeps_its_task_count, 120)
{
	struct pmuctl_event ev = ev_make(EV_LLC_MISS | USR, 0, GONLY);
	__u64 val[PMUCTL_MAX_EVENTS];
	struct pmuctl_program p;
	struct pmuctl_read r;
	const char *why = unfit();
	__u64 bm;
	long n0;
	int fd, ret;

	if (why)
		SKIP(return, "%s", why);
	if (access(PM_TEST, W_OK))
		SKIP(return, "no %s (CONFIG_PM_DEBUG)", PM_TEST);
	n0 = regs_suspends();
	ASSERT_LE(0, n0) TH_LOG("no %s: the register model of this build", DBG_SUSPENDS);
	bm = self->env.info.task_bits >= 64 ? ~0ULL : (1ULL << self->env.info.task_bits) - 1;
	/* This thread is counted, on the boot CPU, which suspend keeps. */
	ASSERT_EQ(0, pin_cpu(0));
	fd = dev_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, dev_program_task(fd, &ev, 1, 0, &p)) {
		TH_LOG("reason %u index %u", p.err_reason, p.err_index);
	}
	ASSERT_GT(self->env.info.caps.nr_gp, ev.counter);
	ASSERT_EQ(0, dev_ctl(fd, PMUCTL_IOC_START));
	/*
	 * It counts SUSPEND_COUNT events: its counter, loaded on CPU 0 while
	 * it runs, takes them; its next switch-out takes them in.
	 */
	ASSERT_EQ(0, regs_preset(0, MSR_PMC(ev.counter), SUSPEND_COUNT));
	switch_a_few_times();
	ASSERT_EQ(0, dev_read_task(fd, 0, val, PMUCTL_MAX_EVENTS, &r));
	ASSERT_U64(SUSPEND_COUNT, val[0]) TH_LOG("before suspend: READ");
	ASSERT_EQ(0, dev_read_task(fd, PMUCTL_READ_THREAD, val, PMUCTL_MAX_EVENTS, &r));
	ASSERT_U64(SUSPEND_COUNT, val[0] & bm) TH_LOG("before suspend: READ_THREAD");

	ASSERT_EQ(0, write_str(PM_TEST, "core"));
	ret = write_str(PM_STATE, "mem");
	write_str(PM_TEST, "none");
	ASSERT_EQ(0, ret) TH_LOG("echo mem > %s: %s", PM_STATE, strerror(-ret));
	/* The model lost the boot CPU's registers once. */
	EXPECT_EQ(n0 + 1, regs_suspends());

	/* Switched out and in again: no count lost, no jump. */
	switch_a_few_times();
	ASSERT_EQ(0, dev_read_task(fd, 0, val, PMUCTL_MAX_EVENTS, &r));
	EXPECT_LE((__u64)SUSPEND_COUNT, val[0]) TH_LOG("after suspend: READ %#llx",
						     (unsigned long long)val[0]);
	EXPECT_GT(1ULL << 32, val[0]) TH_LOG("after suspend: READ %#llx, count %#x before",
					     (unsigned long long)val[0], SUSPEND_COUNT);
	/* Its counter, as rdpmc reads it, holds its count again. */
	ASSERT_EQ(0, dev_read_task(fd, PMUCTL_READ_THREAD, val, PMUCTL_MAX_EVENTS, &r));
	EXPECT_U64(SUSPEND_COUNT, val[0] & bm) {
		TH_LOG("after suspend: READ_THREAD %#llx (task_bits %u)",
		       (unsigned long long)val[0], self->env.info.task_bits);
	}
	close(fd);
}

DEVICE_TEST_MAIN
