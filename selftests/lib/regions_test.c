// SPDX-License-Identifier: GPL-2.0
/*
 * libpmuctl's regions (user/regions.c) on any host, against the made-up
 * module of fake_dev.h.  The group's counters are numbers no PMU has, so
 * every rdpmc of the read path faults and the library's emulation answers
 * it with a READ, which the fake answers with fake.values: the test sets
 * the values each enter and exit reads, so every sum is known exactly.
 * (SKIP where such an rdpmc does not fault.)
 *
 *  - sums and calls per region; nesting and recursion; IPC;
 *  - per thread: each thread its own row, its own grant asked once;
 *  - every misuse refused or repaired as the header says, counted by
 *    kind; the debug mode aborts naming the region;
 *  - a thread a task-scope session does not count (RDPMC EPERM);
 *  - the name API, pmuctl_region_get(), reset, fork, five sets in one
 *    thread, the reports.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "fake_dev.h"

/* instructions, cycles (both user and kernel), branches */
static void three_events(struct pmuctl_event *ev)
{
	memset(ev, 0, 3 * sizeof(*ev));
	ev[0].config = 0x300c0;
	ev[1].config = 0x3003c;
	ev[2].config = 0x300c4;
}

static const char *const names[3] = { "instructions", "cycles", "branches" };

static void set_values(uint64_t a, uint64_t b, uint64_t c)
{
	fake.values[0] = a;
	fake.values[1] = b;
	fake.values[2] = c;
}

/* A CPU-scope group on the fake, read through the emulation, and a set. */
static struct pmuctl *setup(struct __test_metadata *_metadata,
			    struct pmuctl_regions **r, bool task)
{
	struct pmuctl_event ev[3];
	struct pmuctl *p;

	fake_reset(PMUCTL_RDPMC_NONE, PMUCTL_BACKEND_MSR, 48, 48);
	fake_unreal_counters();
	p = fake_open(_metadata, 0);
	three_events(ev);
	if (task) {
		ASSERT_EQ(0, pmuctl_program_task(p, PMUCTL_PROGRAM_INHERIT, ev, 3, NULL));
	} else {
		ASSERT_EQ(0, pmuctl_program(p, ev, 3, NULL, 0, NULL));
	}
	ASSERT_EQ(0, pmuctl_regions_new(p, ev, names, 8, 0, r));
	return p;
}

/* One enter and exit of @h, reading @a0.. then @a1.. (all three events). */
static int pair(struct pmuctl_regions *r, int h, uint64_t a0, uint64_t a1)
{
	int ret;

	set_values(a0, 2 * a0, 3 * a0);
	ret = pmuctl_region_enter(r, h);
	if (ret)
		return ret;
	set_values(a1, 2 * a1, 3 * a1);
	return pmuctl_region_exit(r, h);
}

#define NEED_EMULATION() do {						\
	if (!fake.nr_read) {						\
		pmuctl_regions_free(r);					\
		pmuctl_close(p);					\
		SKIP(return, "rdpmc of a counter no PMU has did not fault: the emulation is never reached"); \
	}								\
} while (0)

static void expect_row(struct __test_metadata *_metadata,
		       struct pmuctl_regions *r, unsigned int row,
		       const char *region, uint64_t calls, uint64_t s0)
{
	struct pmuctl_region_stats st;

	ASSERT_EQ(0, pmuctl_regions_stats(r, row, &st));
	EXPECT_STREQ(region, st.region);
	EXPECT_EQ(calls, st.calls);
	ASSERT_EQ(3U, st.nr);
	EXPECT_EQ(s0, st.counts[0]);
	EXPECT_EQ(2 * s0, st.counts[1]);
	EXPECT_EQ(3 * s0, st.counts[2]);
}

TEST(new_refuses_bad_arguments_and_a_session_without_a_group)
{
	struct pmuctl_regions *r = (void *)1;
	struct pmuctl *p;

	fake_reset(PMUCTL_RDPMC_NONE, PMUCTL_BACKEND_MSR, 48, 48);
	p = fake_open(_metadata, 0);
	EXPECT_EQ(-ENOENT, pmuctl_regions_new(p, NULL, NULL, 8, 0, &r));
	EXPECT_EQ(NULL, r);
	EXPECT_EQ(-EINVAL, pmuctl_regions_new(p, NULL, NULL, 8, 1, &r));
	EXPECT_EQ(-EINVAL, pmuctl_regions_new(p, NULL, NULL, 0, 0, &r));
	EXPECT_EQ(-EINVAL, pmuctl_regions_new(p, NULL, NULL, PMUCTL_REGIONS_MAX + 1, 0, &r));
	pmuctl_close(p);
}

TEST(register_gives_one_handle_per_name)
{
	struct pmuctl_regions *r;
	struct pmuctl *p = setup(_metadata, &r, false);
	char name[16];

	EXPECT_EQ(0, pmuctl_region_register(r, "solve"));
	EXPECT_EQ(1, pmuctl_region_register(r, "setup"));
	EXPECT_EQ(0, pmuctl_region_register(r, "solve"));
	EXPECT_EQ(-EINVAL, pmuctl_region_register(r, ""));
	EXPECT_EQ(-EINVAL, pmuctl_region_register(r, NULL));
	for (int i = 2; i < 8; i++) {
		snprintf(name, sizeof(name), "r%d", i);
		EXPECT_EQ(i, pmuctl_region_register(r, name));
	}
	EXPECT_EQ(-ENOSPC, pmuctl_region_register(r, "one too many"));
	pmuctl_regions_free(r);
	pmuctl_close(p);
}

TEST(exit_adds_the_counts_since_entry_and_counts_a_call)
{
	struct pmuctl_regions *r;
	struct pmuctl *p = setup(_metadata, &r, false);
	int solve = pmuctl_region_register(r, "solve");
	struct pmuctl_region_stats st;

	fake.nr_read = 0;
	ASSERT_EQ(0, pair(r, solve, 100, 110));
	NEED_EMULATION();
	/* One READ per rdpmc: 3 at entry, 3 at exit. */
	EXPECT_EQ(6U, fake.nr_read);
	ASSERT_EQ(0, pair(r, solve, 1000, 1005));
	expect_row(_metadata, r, 0, "solve", 2, 15);
	/* 48-bit counters: a delta across the wrap is right. */
	ASSERT_EQ(0, pair(r, solve, (1ULL << 48) - 4, 6));
	expect_row(_metadata, r, 0, "solve", 3, 25);
	ASSERT_EQ(0, pmuctl_regions_stats(r, 0, &st));
	EXPECT_EQ(0U, st.open);
	EXPECT_EQ(gettid(), st.tid);
	/* no RDPMC grant here (PMUCTL_RDPMC_NONE): every read emulated */
	EXPECT_EQ(6U, st.emulated_reads);
	EXPECT_EQ(-ENOENT, pmuctl_regions_stats(r, 1, &st));
	pmuctl_regions_free(r);
	pmuctl_close(p);
}

TEST(nested_regions_count_their_own_spans_and_recursion_the_outermost)
{
	struct pmuctl_regions *r;
	struct pmuctl *p = setup(_metadata, &r, false);
	int outer = pmuctl_region_register(r, "outer");
	int inner = pmuctl_region_register(r, "inner");

	fake.nr_read = 0;
	set_values(10, 20, 30);
	ASSERT_EQ(0, pmuctl_region_enter(r, outer));
	NEED_EMULATION();
	set_values(15, 30, 45);
	ASSERT_EQ(0, pmuctl_region_enter(r, inner));
	/* recursion: inner again, counted from its outermost entry */
	set_values(16, 32, 48);
	ASSERT_EQ(0, pmuctl_region_enter(r, inner));
	set_values(17, 34, 51);
	ASSERT_EQ(0, pmuctl_region_exit(r, inner));
	set_values(18, 36, 54);
	ASSERT_EQ(0, pmuctl_region_exit(r, inner));
	set_values(40, 80, 120);
	ASSERT_EQ(0, pmuctl_region_exit(r, outer));
	expect_row(_metadata, r, 0, "outer", 1, 30);
	expect_row(_metadata, r, 1, "inner", 2, 3);
	EXPECT_EQ(0U, pmuctl_regions_misuse(r, PMUCTL_REGION_MISUSE_UNBALANCED));
	pmuctl_regions_free(r);
	pmuctl_close(p);
}

TEST(misuses_are_refused_or_repaired_and_counted)
{
	struct pmuctl_regions *r;
	struct pmuctl *p = setup(_metadata, &r, false);
	int a = pmuctl_region_register(r, "a");
	int b = pmuctl_region_register(r, "b");
	unsigned int k;

	fake.nr_read = 0;
	EXPECT_EQ(-EINVAL, pmuctl_region_enter(r, 7));
	EXPECT_EQ(-EINVAL, pmuctl_region_enter(r, -1));
	EXPECT_EQ(-EINVAL, pmuctl_region_exit(r, 5));
	EXPECT_EQ(3U, pmuctl_regions_misuse(r, PMUCTL_REGION_MISUSE_BAD_REGION));
	EXPECT_EQ(-ENOENT, pmuctl_region_exit(r, a));
	EXPECT_EQ(1U, pmuctl_regions_misuse(r, PMUCTL_REGION_MISUSE_EXIT_WITHOUT_ENTER));
	NEED_EMULATION();

	/* a, b, exit a: a closes with its counts, b stays open */
	set_values(100, 200, 300);
	ASSERT_EQ(0, pmuctl_region_enter(r, a));
	ASSERT_EQ(0, pmuctl_region_enter(r, b));
	set_values(107, 214, 321);
	EXPECT_EQ(-EPROTO, pmuctl_region_exit(r, a));
	EXPECT_EQ(1U, pmuctl_regions_misuse(r, PMUCTL_REGION_MISUSE_UNBALANCED));
	expect_row(_metadata, r, 0, "a", 1, 7);
	set_values(109, 218, 327);
	EXPECT_EQ(0, pmuctl_region_exit(r, b));
	expect_row(_metadata, r, 1, "b", 1, 9);
	/* a is closed: its exit again is one without entry */
	EXPECT_EQ(-ENOENT, pmuctl_region_exit(r, a));
	EXPECT_EQ(2U, pmuctl_regions_misuse(r, PMUCTL_REGION_MISUSE_EXIT_WITHOUT_ENTER));

	/* 32 open at once, the 33rd refused */
	for (k = 0; k < 32; k++)
		ASSERT_EQ(0, pmuctl_region_enter(r, a));
	EXPECT_EQ(-ERANGE, pmuctl_region_enter(r, b));
	EXPECT_EQ(1U, pmuctl_regions_misuse(r, PMUCTL_REGION_MISUSE_TOO_DEEP));
	for (k = 0; k < 32; k++)
		ASSERT_EQ(0, pmuctl_region_exit(r, a));
	EXPECT_EQ(0U, pmuctl_regions_misuse(r, PMUCTL_REGION_MISUSE_UNCOUNTED_THREAD));
	EXPECT_EQ(0U, pmuctl_regions_misuse(r, PMUCTL_REGION_MISUSE_NO_MEMORY));
	EXPECT_STREQ("exit_without_enter",
		     pmuctl_region_misuse_name(PMUCTL_REGION_MISUSE_EXIT_WITHOUT_ENTER));
	EXPECT_EQ(NULL, pmuctl_region_misuse_name(PMUCTL_REGION_MISUSE_NR));
	pmuctl_regions_free(r);
	pmuctl_close(p);
}

/* The child's stderr, after it died. */
static int run_child(void (*fn)(void *), void *arg, char *err, size_t len,
		     int *status)
{
	int fds[2];
	ssize_t n;
	pid_t pid;

	if (pipe(fds))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		dup2(fds[1], 2);
		close(fds[0]);
		fn(arg);
		_exit(0);
	}
	close(fds[1]);
	n = read(fds[0], err, len - 1);
	err[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	waitpid(pid, status, 0);
	return 0;
}

static void debug_exit_without_entry(void *arg)
{
	struct pmuctl_regions *r;
	struct pmuctl_event ev[3];
	struct pmuctl *p = arg;

	(void)p;
	setenv("PMUCTL_REGIONS_DEBUG", "1", 1);
	three_events(ev);
	if (pmuctl_regions_new(arg, ev, names, 4, 0, &r))
		_exit(3);
	pmuctl_region_register(r, "solver loop");
	pmuctl_region_exit(r, 0);
	_exit(4);
}

TEST(debug_mode_aborts_at_the_first_misuse_naming_the_region)
{
	struct pmuctl_regions *r;
	struct pmuctl *p = setup(_metadata, &r, false);
	char err[512];
	int st = 0;

	ASSERT_EQ(0, run_child(debug_exit_without_entry, p, err, sizeof(err), &st));
	EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT) TH_LOG("status %#x", st);
	EXPECT_TRUE(strstr(err, "region misuse exit_without_enter: region 'solver loop'") != NULL)
		TH_LOG("stderr: %s", err);
	/* without the variable: counted, not fatal */
	EXPECT_EQ(-ENOENT, pmuctl_region_exit(r, pmuctl_region_register(r, "x")));
	pmuctl_regions_free(r);
	pmuctl_close(p);
}

TEST(a_thread_the_task_session_does_not_count_is_refused_once)
{
	struct pmuctl_regions *r;
	struct pmuctl *p = setup(_metadata, &r, true);
	int h = pmuctl_region_register(r, "solve");
	struct pmuctl_region_stats st;

	/* the grant refused, and the thread's own READ: not counted */
	fake.rdpmc_errno = EPERM;
	fake.read_errno[0] = ESRCH;
	fake.nr_read = 0;
	EXPECT_EQ(-EPERM, pmuctl_region_enter(r, h));
	EXPECT_EQ(-EPERM, pmuctl_region_exit(r, h));
	EXPECT_EQ(1U, pmuctl_regions_misuse(r, PMUCTL_REGION_MISUSE_UNCOUNTED_THREAD));
	EXPECT_EQ(0U, pmuctl_regions_misuse(r, PMUCTL_REGION_MISUSE_EXIT_WITHOUT_ENTER));
	/* one READ_THREAD asked, no counter read, no row */
	EXPECT_EQ(1U, fake.nr_read);
	EXPECT_EQ(PMUCTL_READ_THREAD, fake.read.flags);
	EXPECT_EQ(1U, fake.nr_rdpmc);
	EXPECT_EQ(-ENOENT, pmuctl_regions_stats(r, 0, &st));
	pmuctl_regions_free(r);
	pmuctl_close(p);
}

/*
 * The grant refused to a thread the session counts (a program that
 * exec'd after its PROGRAM: the grant follows the address space): the
 * thread is counted, every read emulated.
 */
TEST(a_counted_thread_without_a_grant_reads_through_the_emulation)
{
	struct pmuctl_regions *r;
	struct pmuctl *p = setup(_metadata, &r, true);
	int h = pmuctl_region_register(r, "solve");
	struct pmuctl_region_stats st;

	fake.rdpmc_errno = EPERM;
	fake.nr_read = 0;
	ASSERT_EQ(0, pair(r, h, 100, 150));
	NEED_EMULATION();
	EXPECT_EQ(0U, pmuctl_regions_misuse(r, PMUCTL_REGION_MISUSE_UNCOUNTED_THREAD));
	expect_row(_metadata, r, 0, "solve", 1, 50);
	ASSERT_EQ(0, pmuctl_regions_stats(r, 0, &st));
	EXPECT_EQ(2U, st.emulated_reads);
	pmuctl_regions_free(r);
	pmuctl_close(p);
}

struct worker {
	struct pmuctl_regions *r;
	int h;
	uint64_t a0, a1;
	int ret;
	pid_t tid;
};

static void *work(void *arg)
{
	struct worker *w = arg;

	w->tid = gettid();
	w->ret = pair(w->r, w->h, w->a0, w->a1);
	if (!w->ret)
		w->ret = pair(w->r, w->h, w->a0, w->a1);
	return NULL;
}

TEST(each_thread_has_its_row_and_asks_for_its_grant_once)
{
	struct pmuctl_regions *r;
	struct pmuctl *p = setup(_metadata, &r, true);
	int h = pmuctl_region_register(r, "solve");
	struct worker w[2] = {
		{ r, h, 100, 103, 0, 0 },
		{ r, h, 500, 550, 0, 0 },
	};
	struct pmuctl_region_stats st;
	uint64_t calls, counts[3];
	pthread_t th;

	fake.nr_read = 0;
	fake.nr_rdpmc = 0;
	/* one after the other: the fake's values are the test's */
	for (int i = 0; i < 2; i++) {
		ASSERT_EQ(0, pthread_create(&th, NULL, work, &w[i]));
		ASSERT_EQ(0, pthread_join(th, NULL));
		EXPECT_EQ(0, w[i].ret);
	}
	NEED_EMULATION();
	EXPECT_EQ(2U, fake.nr_rdpmc);
	expect_row(_metadata, r, 0, "solve", 2, 6);
	expect_row(_metadata, r, 1, "solve", 2, 100);
	ASSERT_EQ(0, pmuctl_regions_stats(r, 0, &st));
	EXPECT_EQ(w[0].tid, st.tid);
	ASSERT_EQ(0, pmuctl_regions_stats(r, 1, &st));
	EXPECT_EQ(w[1].tid, st.tid);
	/* this thread never entered: zeros, and no grant asked */
	ASSERT_EQ(0, pmuctl_region_get(r, h, &calls, counts, 3));
	EXPECT_EQ(0U, calls);
	EXPECT_EQ(0U, counts[0]);
	EXPECT_EQ(2U, fake.nr_rdpmc);
	ASSERT_EQ(0, pair(r, h, 1, 2));
	ASSERT_EQ(0, pmuctl_region_get(r, h, &calls, counts, 3));
	EXPECT_EQ(1U, calls);
	EXPECT_EQ(2U, counts[1]);
	EXPECT_EQ(-EINVAL, pmuctl_region_get(r, h, &calls, counts, 4));
	pmuctl_regions_free(r);
	pmuctl_close(p);
}

TEST(names_register_on_first_use_and_reset_zeroes)
{
	struct pmuctl_regions *r;
	struct pmuctl *p = setup(_metadata, &r, false);

	fake.nr_read = 0;
	set_values(1, 2, 3);
	ASSERT_EQ(0, pmuctl_region_enter_name(r, "io"));
	NEED_EMULATION();
	set_values(5, 10, 15);
	ASSERT_EQ(0, pmuctl_region_exit_name(r, "io"));
	EXPECT_EQ(0, pmuctl_region_register(r, "io"));
	expect_row(_metadata, r, 0, "io", 1, 4);
	EXPECT_EQ(-ENOENT, pmuctl_region_exit_name(r, "never entered"));
	EXPECT_EQ(-EINVAL, pmuctl_region_enter_name(r, ""));
	EXPECT_EQ(1U, pmuctl_regions_misuse(r, PMUCTL_REGION_MISUSE_BAD_REGION));
	ASSERT_EQ(0, pmuctl_regions_reset(r));
	EXPECT_EQ(0U, pmuctl_regions_misuse(r, PMUCTL_REGION_MISUSE_BAD_REGION));
	EXPECT_EQ(0U, pmuctl_regions_misuse(r, PMUCTL_REGION_MISUSE_EXIT_WITHOUT_ENTER));
	/* rows stay, zeroed: a thread that entered keeps its row */
	expect_row(_metadata, r, 0, "io", 0, 0);
	pmuctl_regions_free(r);
	pmuctl_close(p);
}

/*
 * The name forms find a name again by its address: a buffer that holds
 * another name the next time finds that name's region, not the last one.
 */
TEST(a_reused_name_buffer_finds_the_region_it_names_now)
{
	struct pmuctl_regions *r;
	struct pmuctl *p = setup(_metadata, &r, false);
	char buf[16];

	fake.nr_read = 0;
	strcpy(buf, "first");
	set_values(1, 2, 3);
	ASSERT_EQ(0, pmuctl_region_enter_name(r, buf));
	NEED_EMULATION();
	set_values(2, 4, 6);
	ASSERT_EQ(0, pmuctl_region_exit_name(r, buf));
	strcpy(buf, "second");
	set_values(10, 20, 30);
	ASSERT_EQ(0, pmuctl_region_enter_name(r, buf));
	set_values(17, 34, 51);
	ASSERT_EQ(0, pmuctl_region_exit_name(r, buf));
	expect_row(_metadata, r, 0, "first", 1, 1);
	expect_row(_metadata, r, 1, "second", 1, 7);
	EXPECT_EQ(3U, pmuctl_regions_nr_events(r));
	for (unsigned int k = 0; k < PMUCTL_REGION_MISUSE_NR; k++)
		EXPECT_EQ(0U, pmuctl_regions_misuse(r, k));
	pmuctl_regions_free(r);
	pmuctl_close(p);
}

/* pmuctl_region_reset(): this thread's one region, nothing else. */
TEST(region_reset_zeroes_one_region_of_the_calling_thread)
{
	struct pmuctl_regions *r;
	struct pmuctl *p = setup(_metadata, &r, false);
	int a = pmuctl_region_register(r, "a");
	int b = pmuctl_region_register(r, "b");
	uint64_t calls, counts[3];

	fake.nr_read = 0;
	ASSERT_EQ(0, pair(r, a, 1, 3));
	NEED_EMULATION();
	ASSERT_EQ(0, pair(r, b, 1, 4));
	set_values(10, 20, 30);
	ASSERT_EQ(0, pmuctl_region_enter(r, a));
	ASSERT_EQ(0, pmuctl_region_reset(r, a));
	/* open across the reset: it counts from its entry */
	set_values(15, 30, 45);
	ASSERT_EQ(0, pmuctl_region_exit(r, a));
	ASSERT_EQ(0, pmuctl_region_get(r, a, &calls, counts, 3));
	EXPECT_EQ(1U, calls);
	EXPECT_EQ(5U, counts[0]);
	EXPECT_EQ(15U, counts[2]);
	ASSERT_EQ(0, pmuctl_region_get(r, b, &calls, counts, 3));
	EXPECT_EQ(1U, calls);
	EXPECT_EQ(3U, counts[0]);
	EXPECT_EQ(-EINVAL, pmuctl_region_reset(r, 2));
	EXPECT_EQ(-EINVAL, pmuctl_region_reset(r, -1));
	pmuctl_regions_free(r);
	pmuctl_close(p);
}

TEST(a_forked_child_counts_from_zero_and_the_parent_keeps_its_own)
{
	struct pmuctl_regions *r;
	struct pmuctl *p = setup(_metadata, &r, false);
	int h = pmuctl_region_register(r, "solve");
	struct pmuctl_region_stats st;
	int status;
	pid_t pid;

	fake.nr_read = 0;
	ASSERT_EQ(0, pair(r, h, 10, 20));
	NEED_EMULATION();
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		/* no row until the child enters; then only its own counts */
		if (!pmuctl_regions_stats(r, 0, &st))
			_exit(10);
		if (pair(r, h, 100, 101) || pmuctl_regions_stats(r, 0, &st) ||
		    st.calls != 1 || st.counts[0] != 1 || st.tid != gettid())
			_exit(11);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) TH_LOG("status %#x", status);
	expect_row(_metadata, r, 0, "solve", 1, 10);
	pmuctl_regions_free(r);
	pmuctl_close(p);
}

/* More sets than a thread keeps at hand: each still one row, its own sums. */
TEST(a_thread_using_five_sets_keeps_one_row_in_each)
{
	struct pmuctl_regions *r, *set[5];
	struct pmuctl *p = setup(_metadata, &r, false);
	struct pmuctl_region_stats st;
	struct pmuctl_event ev[3];
	uint64_t calls, counts[3];

	three_events(ev);
	for (int i = 0; i < 5; i++) {
		ASSERT_EQ(0, pmuctl_regions_new(p, ev, names, 2, 0, &set[i]));
		ASSERT_EQ(0, pmuctl_region_register(set[i], "solve"));
	}
	fake.nr_read = 0;
	for (int round = 0; round < 3; round++)
		for (int i = 0; i < 5; i++)
			ASSERT_EQ(0, pair(set[i], 0, 10, 10 + (uint64_t)i + 1));
	NEED_EMULATION();
	for (int i = 0; i < 5; i++) {
		expect_row(_metadata, set[i], 0, "solve", 3, 3 * ((uint64_t)i + 1));
		EXPECT_EQ(-ENOENT, pmuctl_regions_stats(set[i], 1, &st));
		ASSERT_EQ(0, pmuctl_region_get(set[i], 0, &calls, counts, 3));
		EXPECT_EQ(3U, calls);
		EXPECT_EQ(3 * ((uint64_t)i + 1), counts[0]);
		pmuctl_regions_free(set[i]);
	}
	pmuctl_regions_free(r);
	pmuctl_close(p);
}

static char *report(struct pmuctl_regions *r, unsigned int format, const char *sep)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (pmuctl_regions_write(r, f, format, sep)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

TEST(reports_hold_every_row_the_ipc_and_the_misuses)
{
	struct pmuctl_regions *r;
	struct pmuctl *p = setup(_metadata, &r, false);
	int a = pmuctl_region_register(r, "solve, \"fast\"");
	char want[1024], *got;
	pid_t tid = gettid();

	fake.nr_read = 0;
	ASSERT_EQ(0, pair(r, a, 10, 20));
	NEED_EMULATION();
	pmuctl_region_exit(r, a);	/* one misuse */
	/* instructions 10, cycles 20: IPC 0.5 */
	got = report(r, PMUCTL_REGIONS_JSON, NULL);
	ASSERT_TRUE(got != NULL);
	snprintf(want, sizeof(want),
		 "{\"type\":\"region\",\"region\":\"solve, \\\"fast\\\"\",\"thread\":%d,\"calls\":1,\"emulated_reads\":2,\"open\":0,\"counts\":{\"instructions\":10,\"cycles\":20,\"branches\":30},\"metrics\":{\"IPC\":0.5}}\n"
		 "{\"type\":\"misuse\",\"bad_region\":0,\"exit_without_enter\":1,\"unbalanced\":0,\"uncounted_thread\":0,\"too_deep\":0,\"no_memory\":0}\n",
		 (int)tid);
	EXPECT_STREQ(want, got);
	free(got);
	got = report(r, PMUCTL_REGIONS_CSV, NULL);
	ASSERT_TRUE(got != NULL);
	snprintf(want, sizeof(want),
		 "region,thread,calls,emulated_reads,open,instructions,cycles,branches,IPC\n"
		 "\"solve, \"\"fast\"\"\",%d,1,2,0,10,20,30,0.50\n"
		 "# misuse bad_region=0 exit_without_enter=1 unbalanced=0 uncounted_thread=0 too_deep=0 no_memory=0\n",
		 (int)tid);
	EXPECT_STREQ(want, got);
	free(got);
	got = report(r, PMUCTL_REGIONS_CSV, ";");
	ASSERT_TRUE(got != NULL);
	EXPECT_TRUE(strstr(got, "\nsolve, \"\"fast\"\";") == NULL);
	EXPECT_TRUE(strstr(got, "\n\"solve, \"\"fast\"\"\";") != NULL) TH_LOG("%s", got);
	free(got);
	EXPECT_EQ(-EINVAL, pmuctl_regions_write(r, stdout, 2, NULL));
	pmuctl_regions_free(r);
	pmuctl_close(p);
}

TEST_HARNESS_MAIN
