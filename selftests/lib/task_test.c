// SPDX-License-Identifier: GPL-2.0
/*
 * libpmuctl's task-scope calls on any host, without the module: this
 * program defines ioctl(2) itself, which the static libpmuctl.a linked
 * into it calls in place of libc's, and answers the pmuctl ioctls on
 * /dev/null descriptors as a module would (INFO from a made-up
 * struct pmuctl_info, PROGRAM placing the events, READ with values of
 * our choosing); every other ioctl goes to the kernel.  So what the
 * library sends and how it reads the answers is checked exactly:
 *
 *  - pmuctl_replace(): PMUCTL_PROGRAM_REPLACE with the group's own CPU
 *    bitmap, the new group described for the read path; a refusal's
 *    rule passed on and the old description kept; without a CPU-scope
 *    group, the module's answer;
 *  - pmuctl_program_task(): PMUCTL_PROGRAM_TASK added to the caller's
 *    flags, no CPU bitmap; unknown flags refused with -EINVAL and
 *    PMUCTL_R_BAD_FLAGS before any ioctl; a refusal's rule passed on;
 *  - struct pmuctl_counters: PMUCTL_COUNTERS_TASK, masks of task_bits
 *    (32 without full-width writes), never wider than the counter, and
 *    the counter's width for CPU scope on the same PMU; RDPMC for either
 *    grant on the PMU backend, EMULATED elsewhere;
 *  - pmuctl_read_values() on a task-scope group: CPU 0 sent, -1 and 0
 *    taken, any other CPU -EINVAL; pmuctl_read_task(): flags 0, CPU 0,
 *    nr_threads and nr_lost given back, -EINVAL on a CPU-scope group;
 *  - pmuctl_read_threads(): PMUCTL_IOC_THREADS with flags 0, the caller's
 *    nr_values and buffer size (clamped to the field's 32 bits), the
 *    entries read back with pmuctl_thread_at()'s stride, nr_total and
 *    nr_dropped given back, a buffer too small or absent; nr_values out
 *    of range or below the group, and a CPU-scope group, refused -EINVAL
 *    without an ioctl; the module's errno passed on;
 *  - the rdpmc emulation: an rdpmc of a task-scope counter is answered by
 *    READ with PMUCTL_READ_THREAD and CPU 0; a session that does not
 *    count the thread (ESRCH) passes it on to the next one, and with no
 *    other the fault is the process's (it dies of it).  The counters are
 *    numbers no PMU has, so rdpmc faults even where this host lets user
 *    space execute it (SKIP if it does not).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "libpmuctl.h"

#include "fake_dev.h"

static void three_events(struct pmuctl_event *ev)
{
	memset(ev, 0, 3 * sizeof(*ev));
	ev[0].config = 0x4300c0;	/* what the fake is given does not matter */
	ev[1].config = 0x41003c;
	ev[2].config = 0x4100c4;
}

TEST(program_task_adds_the_task_flag_and_no_cpus)
{
	struct pmuctl_event ev[3];
	struct pmuctl_error err;
	struct pmuctl *p;
	const unsigned int both = PMUCTL_PROGRAM_INHERIT |
				  PMUCTL_PROGRAM_ENABLE_ON_EXEC;

	fake_reset(PMUCTL_RDPMC_SESSION, PMUCTL_BACKEND_MSR, 48, 48);
	p = fake_open(_metadata, PMUCTL_OPEN_NO_EMULATION);
	three_events(ev);
	ASSERT_EQ(0, pmuctl_program_task(p, both, ev, 3, &err));
	EXPECT_EQ(1U, fake.nr_program);
	EXPECT_EQ(PMUCTL_PROGRAM_TASK | both, fake.prog.flags);
	EXPECT_EQ(3U, fake.prog.nr_events);
	EXPECT_EQ(0U, fake.prog.cpus);
	EXPECT_EQ(0U, fake.prog.cpus_size);
	EXPECT_EQ((uint32_t)PMUCTL_R_NONE, err.reason);
	EXPECT_EQ(0, pmuctl_release(p));

	/* no flag: the calling thread alone; TASK given too is the same */
	ASSERT_EQ(0, pmuctl_program_task(p, 0, ev, 3, NULL));
	EXPECT_EQ(PMUCTL_PROGRAM_TASK, fake.prog.flags);
	EXPECT_EQ(0, pmuctl_release(p));
	ASSERT_EQ(0, pmuctl_program_task(p, PMUCTL_PROGRAM_TASK, ev, 3, NULL));
	EXPECT_EQ(PMUCTL_PROGRAM_TASK, fake.prog.flags);
	pmuctl_close(p);
}

TEST(program_task_refuses_unknown_flags_without_an_ioctl)
{
	/* 1U << 3 is PMUCTL_PROGRAM_REPLACE: CPU scope only. */
	static const unsigned int bad[] = { 1U << 3, 1U << 4, 1U << 31,
					    PMUCTL_PROGRAM_INHERIT | 1U << 8 };
	struct pmuctl_event ev[3];
	struct pmuctl_error err;
	struct pmuctl *p;

	fake_reset(PMUCTL_RDPMC_SESSION, PMUCTL_BACKEND_MSR, 48, 48);
	p = fake_open(_metadata, PMUCTL_OPEN_NO_EMULATION);
	three_events(ev);
	for (unsigned int i = 0; i < ARRAY_SIZE(bad); i++) {
		memset(&err, 0xff, sizeof(err));
		EXPECT_EQ(-EINVAL, pmuctl_program_task(p, bad[i], ev, 3, &err));
		EXPECT_EQ((uint32_t)PMUCTL_R_BAD_FLAGS, err.reason);
		EXPECT_EQ(UINT32_MAX, err.index);
		EXPECT_EQ(0U, err.reserved);
	}
	EXPECT_EQ(0U, fake.nr_program);
	EXPECT_EQ(0U, pmuctl_get_counters(p)->nr);
	pmuctl_close(p);
}

TEST(program_task_passes_the_rule_on)
{
	struct pmuctl_event ev[3];
	struct pmuctl_error err;
	struct pmuctl *p;
	char line[256];

	fake_reset(PMUCTL_RDPMC_SESSION, PMUCTL_BACKEND_MSR, 48, 48);
	fake.program_errno = EBUSY;
	fake.program_reason = PMUCTL_R_TASK_BUSY;
	p = fake_open(_metadata, 0);
	three_events(ev);
	EXPECT_EQ(-EBUSY, pmuctl_program_task(p, PMUCTL_PROGRAM_INHERIT, ev, 3,
					      &err));
	EXPECT_EQ((uint32_t)PMUCTL_R_TASK_BUSY, err.reason);
	EXPECT_EQ(1U, err.index);
	EXPECT_EQ(UINT32_MAX, err.cpu);
	EXPECT_EQ(0U, pmuctl_get_counters(p)->nr);
	EXPECT_EQ(0U, pmuctl_get_counters(p)->flags);
	pmuctl_strerror(-EBUSY, &err, line, sizeof(line));
	EXPECT_EQ(0, strncmp(line, "event 1: TASK_BUSY: ", 20)) {
		TH_LOG("strerror: %s", line);
	}
	pmuctl_close(p);
}

/* Program task scope on the fake as set up; check masks and flags. */
static void check_task(struct __test_metadata *_metadata, uint64_t want_mask,
		       uint32_t want_flags)
{
	struct pmuctl_event ev[3];
	const struct pmuctl_counters *c;
	struct pmuctl *p;

	p = fake_open(_metadata, 0);
	three_events(ev);
	ASSERT_EQ(0, pmuctl_program_task(p, 0, ev, 3, NULL));
	c = pmuctl_get_counters(p);
	EXPECT_EQ(3U, c->nr);
	for (unsigned int i = 0; i < 3; i++) {
		EXPECT_EQ(fake.counters[i], c->ecx[i]);
		EXPECT_EQ(want_mask, c->mask[i]) {
			TH_LOG("event %u: mask %#llx, want %#llx", i,
			       (unsigned long long)c->mask[i],
			       (unsigned long long)want_mask);
		}
	}
	EXPECT_EQ(want_flags, c->flags);
	pmuctl_close(p);
}

TEST(task_masks_follow_task_bits)
{
	/* no full-width writes: 32 bits, on 48- and 40-bit counters */
	fake_reset(PMUCTL_RDPMC_SESSION, PMUCTL_BACKEND_MSR, 48, 32);
	check_task(_metadata, 0xffffffffULL,
		   PMUCTL_COUNTERS_TASK | PMUCTL_COUNTERS_RDPMC);
	fake_reset(PMUCTL_RDPMC_SESSION, PMUCTL_BACKEND_MSR, 40, 32);
	check_task(_metadata, 0xffffffffULL,
		   PMUCTL_COUNTERS_TASK | PMUCTL_COUNTERS_RDPMC);
	/* full-width writes: the counters' width */
	fake_reset(PMUCTL_RDPMC_SESSION, PMUCTL_BACKEND_MSR, 48, 48);
	check_task(_metadata, (1ULL << 48) - 1,
		   PMUCTL_COUNTERS_TASK | PMUCTL_COUNTERS_RDPMC);
	/* never wider than the counter */
	fake_reset(PMUCTL_RDPMC_SESSION, PMUCTL_BACKEND_MSR, 40, 48);
	check_task(_metadata, (1ULL << 40) - 1,
		   PMUCTL_COUNTERS_TASK | PMUCTL_COUNTERS_RDPMC);
}

TEST(cpu_scope_masks_stay_the_counter_width)
{
	struct pmuctl_event ev[3];
	const struct pmuctl_counters *c;
	struct pmuctl *p;

	fake_reset(PMUCTL_RDPMC_SESSION, PMUCTL_BACKEND_MSR, 48, 32);
	p = fake_open(_metadata, 0);
	three_events(ev);
	ASSERT_EQ(0, pmuctl_program(p, ev, 3, NULL, 0, NULL));
	c = pmuctl_get_counters(p);
	EXPECT_EQ(0U, fake.prog.flags);
	EXPECT_NE(0U, fake.prog.cpus_size);
	for (unsigned int i = 0; i < 3; i++)
		EXPECT_EQ((1ULL << 48) - 1, c->mask[i]);
	EXPECT_EQ(PMUCTL_COUNTERS_RDPMC, c->flags);
	pmuctl_close(p);
}

TEST(task_rdpmc_flag_follows_either_grant_on_the_pmu)
{
	const uint32_t task = PMUCTL_COUNTERS_TASK;

	/* the unprivileged grant is for task scope */
	fake_reset(PMUCTL_RDPMC_TASK, PMUCTL_BACKEND_MSR, 48, 48);
	check_task(_metadata, (1ULL << 48) - 1, task | PMUCTL_COUNTERS_RDPMC);
	/* no grant: emulated */
	fake_reset(PMUCTL_RDPMC_NONE, PMUCTL_BACKEND_MSR, 48, 48);
	check_task(_metadata, (1ULL << 48) - 1, task | PMUCTL_COUNTERS_EMULATED);
	/* the register model counts nothing rdpmc could show: emulated */
	fake_reset(PMUCTL_RDPMC_SESSION, PMUCTL_BACKEND_MODEL, 48, 48);
	check_task(_metadata, (1ULL << 48) - 1, task | PMUCTL_COUNTERS_EMULATED);
}

TEST(cpu_scope_is_not_given_the_task_grant)
{
	struct pmuctl_event ev[3];
	struct pmuctl *p;

	fake_reset(PMUCTL_RDPMC_TASK, PMUCTL_BACKEND_MSR, 48, 48);
	p = fake_open(_metadata, 0);
	three_events(ev);
	ASSERT_EQ(0, pmuctl_program(p, ev, 3, NULL, 0, NULL));
	EXPECT_EQ(PMUCTL_COUNTERS_EMULATED, pmuctl_get_counters(p)->flags);
	pmuctl_close(p);
}

TEST(replace_sends_the_groups_cpus_and_describes_the_new_group)
{
	size_t size = CPU_ALLOC_SIZE(128);
	struct pmuctl_event ev[3];
	struct pmuctl_error err;
	cpu_set_t *set = CPU_ALLOC(128);
	const struct pmuctl_counters *c;
	uint64_t bits[2];
	struct pmuctl *p;

	ASSERT_TRUE(set != NULL);
	fake_reset(PMUCTL_RDPMC_SESSION, PMUCTL_BACKEND_MSR, 48, 48);
	p = fake_open(_metadata, PMUCTL_OPEN_NO_EMULATION);
	three_events(ev);
	CPU_ZERO_S(size, set);
	CPU_SET_S(0, size, set);
	CPU_SET_S(66, size, set);
	ASSERT_EQ(0, pmuctl_program(p, ev, 3, set, size, &err));

	fake.counters[0] = 3;
	fake.counters[1] = PMUCTL_COUNTER_FIXED | 1;
	ASSERT_EQ(0, pmuctl_replace(p, ev, 2, &err));
	EXPECT_EQ(2U, fake.nr_program);
	EXPECT_EQ(PMUCTL_PROGRAM_REPLACE, fake.prog.flags);
	EXPECT_EQ(2U, fake.prog.nr_events);
	ASSERT_EQ(16U, fake.prog.cpus_size);
	memcpy(bits, (void *)(uintptr_t)fake.prog.cpus, sizeof(bits));
	EXPECT_EQ(1ULL, bits[0]);
	EXPECT_EQ(1ULL << 2, bits[1]);
	c = pmuctl_get_counters(p);
	EXPECT_EQ(2U, c->nr);
	EXPECT_EQ(3U, c->ecx[0]);
	EXPECT_EQ(PMUCTL_COUNTER_FIXED | 1, c->ecx[1]);
	EXPECT_EQ((1ULL << 48) - 1, c->mask[1]);

	/* Refused: the rule passed on, the group as it was. */
	fake.program_errno = EBUSY;
	fake.program_reason = PMUCTL_R_COUNTERS_BUSY;
	EXPECT_EQ(-EBUSY, pmuctl_replace(p, ev, 3, &err));
	EXPECT_EQ((uint32_t)PMUCTL_R_COUNTERS_BUSY, err.reason);
	EXPECT_EQ(2U, c->nr);
	EXPECT_EQ(3U, c->ecx[0]);

	/* No group: the module says so; the bitmap sent is one empty word. */
	fake.program_errno = ENOENT;
	fake.program_reason = PMUCTL_R_NOT_PROGRAMMED;
	ASSERT_EQ(0, pmuctl_release(p));
	EXPECT_EQ(-ENOENT, pmuctl_replace(p, ev, 3, &err));
	EXPECT_EQ((uint32_t)PMUCTL_R_NOT_PROGRAMMED, err.reason);
	EXPECT_EQ(8U, fake.prog.cpus_size);
	EXPECT_EQ(0U, c->nr);
	pmuctl_close(p);
	CPU_FREE(set);
}

TEST(read_values_of_task_scope_reads_cpu_0)
{
	uint64_t v[3], gen = 0;
	struct pmuctl_event ev[3];
	struct pmuctl *p;

	fake_reset(PMUCTL_RDPMC_SESSION, PMUCTL_BACKEND_MSR, 48, 32);
	fake.values[0] = 1ULL << 40;	/* totals are 64 bits: not masked */
	fake.values[1] = 2;
	fake.values[2] = 3;
	p = fake_open(_metadata, PMUCTL_OPEN_NO_EMULATION);
	three_events(ev);
	ASSERT_EQ(0, pmuctl_program_task(p, 0, ev, 3, NULL));
	fake.nr_read = 0;
	EXPECT_EQ(3, pmuctl_read_values_gen(p, -1, v, 3, &gen));
	EXPECT_EQ(0U, fake.read.cpu);
	EXPECT_EQ(0U, fake.read.flags);
	EXPECT_EQ(3U, fake.read.nr_values);
	EXPECT_EQ(1ULL << 40, v[0]);
	EXPECT_EQ(3U, v[2]);
	EXPECT_EQ(7U, gen);
	EXPECT_EQ(3, pmuctl_read_values(p, 0, v, 3));
	EXPECT_EQ(0U, fake.read.cpu);
	EXPECT_EQ(2U, fake.nr_read);
	/* no other CPU: the group has none */
	EXPECT_EQ(-EINVAL, pmuctl_read_values(p, 1, v, 3));
	EXPECT_EQ(-EINVAL, pmuctl_read_values(p, -2, v, 3));
	EXPECT_EQ(2U, fake.nr_read);
	pmuctl_close(p);
}

TEST(read_task_gives_threads_and_lost)
{
	uint64_t v[3] = { 0, 0, 0 };
	uint32_t threads = 99, lost = 99;
	struct pmuctl_event ev[3];
	struct pmuctl *p, *q;

	fake_reset(PMUCTL_RDPMC_SESSION, PMUCTL_BACKEND_MSR, 48, 48);
	fake.values[0] = 0x123456789abULL;
	fake.values[2] = 5;
	fake.nr_threads = 4;
	fake.nr_lost = 2;
	/* a handle that programmed nothing (the tool's parent): it reads */
	p = fake_open(_metadata, PMUCTL_OPEN_NO_EMULATION);
	EXPECT_EQ(0, pmuctl_read_task(p, v, 3, &threads, &lost));
	EXPECT_EQ(0U, fake.read.flags);
	EXPECT_EQ(0U, fake.read.cpu);
	EXPECT_EQ(3U, fake.read.nr_values);
	EXPECT_EQ(0x123456789abULL, v[0]);
	EXPECT_EQ(5U, v[2]);
	EXPECT_EQ(4U, threads);
	EXPECT_EQ(2U, lost);
	/* NULL pointers are fine */
	EXPECT_EQ(0, pmuctl_read_task(p, v, 3, NULL, NULL));

	/* a handle holding a CPU-scope group: not its totals */
	q = fake_open(_metadata, PMUCTL_OPEN_NO_EMULATION);
	three_events(ev);
	ASSERT_EQ(0, pmuctl_program(q, ev, 3, NULL, 0, NULL));
	fake.nr_read = 0;
	EXPECT_EQ(-EINVAL, pmuctl_read_task(q, v, 3, &threads, &lost));
	EXPECT_EQ(0U, fake.nr_read);
	pmuctl_close(q);
	pmuctl_close(p);
}

/* Three threads of two processes, one gone, as the module lists them. */
static void fake_threads(void)
{
	fake.nr_entries = 3;
	fake.entry[0].tid = 100;
	fake.entry[0].tgid = 100;
	fake.entry[0].v[0] = 1ULL << 40;	/* 64 bits, never masked */
	fake.entry[0].v[1] = 11;
	fake.entry[0].v[2] = 12;
	fake.entry[1].tid = 205;
	fake.entry[1].tgid = 200;
	fake.entry[1].v[0] = 21;
	fake.entry[1].v[2] = 23;
	fake.entry[2].tid = 101;
	fake.entry[2].tgid = 100;
	fake.entry[2].flags = PMUCTL_THREAD_EXITED;
	fake.entry[2].v[0] = 31;
	fake.entry[2].v[1] = 32;
	fake.entry[2].v[2] = 33;
	fake.nr_dropped = 2;
}

TEST(read_threads_sends_the_buffer_and_steps_through_it)
{
	/* room for 4 entries of 5 values: the stride is 16 + 40 bytes */
	uint64_t buf[4 * PMUCTL_THREAD_SIZE(5) / 8];
	uint32_t total = 99, dropped = 99;
	struct pmuctl_thread *t;
	struct pmuctl *p;

	ASSERT_EQ(56U, PMUCTL_THREAD_SIZE(5));
	fake_reset(PMUCTL_RDPMC_SESSION, PMUCTL_BACKEND_MSR, 48, 48);
	fake_threads();
	memset(buf, 0xa5, sizeof(buf));
	/* a handle that programmed nothing (the tool's parent) asks */
	p = fake_open(_metadata, PMUCTL_OPEN_NO_EMULATION);
	ASSERT_EQ(3, pmuctl_read_threads(p, (void *)buf, sizeof(buf), 5,
					 &total, &dropped));
	EXPECT_EQ(1U, fake.nr_threads_ioc);
	EXPECT_EQ(0U, fake.threads.flags);
	EXPECT_EQ(5U, fake.threads.nr_values);
	EXPECT_EQ((uint64_t)(uintptr_t)buf, fake.threads.entries);
	EXPECT_EQ(sizeof(buf), fake.threads.entries_size);
	EXPECT_EQ(0U, fake.threads.reserved[0]);
	EXPECT_EQ(0U, fake.threads.reserved[1]);
	EXPECT_EQ(3U, total);
	EXPECT_EQ(2U, dropped);
	for (unsigned int i = 0; i < 3; i++) {
		t = pmuctl_thread_at((void *)buf, 5, i);
		EXPECT_EQ((char *)buf + i * 56, (char *)t);
		EXPECT_EQ(fake.entry[i].tid, t->tid);
		EXPECT_EQ(fake.entry[i].tgid, t->tgid);
		EXPECT_EQ(fake.entry[i].flags, t->flags);
		for (unsigned int k = 0; k < 3; k++)
			EXPECT_EQ(fake.entry[i].v[k], t->values[k]);
		EXPECT_EQ(0U, t->values[3]);
		EXPECT_EQ(0U, t->values[4]);
	}
	/* the fourth entry is untouched */
	EXPECT_EQ(0xa5a5a5a5U, pmuctl_thread_at((void *)buf, 5, 3)->tid);
	/* NULL pointers are fine */
	EXPECT_EQ(3, pmuctl_read_threads(p, (void *)buf, sizeof(buf), 5,
					 NULL, NULL));
	pmuctl_close(p);
}

TEST(read_threads_with_a_small_buffer_or_none)
{
	uint64_t buf[PMUCTL_THREAD_SIZE(3) / 8 + 1];	/* one entry and a bit */
	uint32_t total = 99, dropped = 99;
	struct pmuctl *p;

	fake_reset(PMUCTL_RDPMC_SESSION, PMUCTL_BACKEND_MSR, 48, 48);
	fake_threads();
	p = fake_open(_metadata, PMUCTL_OPEN_NO_EMULATION);
	EXPECT_EQ(1, pmuctl_read_threads(p, (void *)buf, sizeof(buf), 3,
					 &total, &dropped));
	EXPECT_EQ(3U, total);
	EXPECT_EQ(100U, pmuctl_thread_at((void *)buf, 3, 0)->tid);
	/* the count alone */
	total = 99;
	EXPECT_EQ(0, pmuctl_read_threads(p, NULL, 0, 3, &total, NULL));
	EXPECT_EQ(0U, fake.threads.entries);
	EXPECT_EQ(0U, fake.threads.entries_size);
	EXPECT_EQ(3U, total);
	/* more than the field holds: what it holds (the module fills what fits) */
	if (sizeof(size_t) > 4) {
		fake.nr_entries = 0;
		EXPECT_EQ(0, pmuctl_read_threads(p, (void *)buf,
						 (size_t)UINT32_MAX + 4096, 3,
						 &total, NULL));
		EXPECT_EQ(UINT32_MAX, fake.threads.entries_size);
	}
	pmuctl_close(p);
}

TEST(read_threads_refusals)
{
	uint64_t buf[64];
	struct pmuctl_event ev[3];
	struct pmuctl *p, *q;

	fake_reset(PMUCTL_RDPMC_SESSION, PMUCTL_BACKEND_MSR, 48, 48);
	fake_threads();
	p = fake_open(_metadata, PMUCTL_OPEN_NO_EMULATION);
	/* nr_values out of range: no ioctl */
	EXPECT_EQ(-EINVAL, pmuctl_read_threads(p, (void *)buf, sizeof(buf), 0,
					       NULL, NULL));
	EXPECT_EQ(-EINVAL, pmuctl_read_threads(p, (void *)buf, sizeof(buf),
					       PMUCTL_MAX_EVENTS + 1, NULL, NULL));
	EXPECT_EQ(0U, fake.nr_threads_ioc);
	/* this handle's task-scope group of 3: fewer values refused, 3 taken */
	three_events(ev);
	ASSERT_EQ(0, pmuctl_program_task(p, 0, ev, 3, NULL));
	EXPECT_EQ(-EINVAL, pmuctl_read_threads(p, (void *)buf, sizeof(buf), 2,
					       NULL, NULL));
	EXPECT_EQ(0U, fake.nr_threads_ioc);
	EXPECT_EQ(3, pmuctl_read_threads(p, (void *)buf, sizeof(buf), 3,
					 NULL, NULL));
	EXPECT_EQ(1U, fake.nr_threads_ioc);
	/* the module's refusals passed on */
	fake.threads_errno = ENOENT;
	EXPECT_EQ(-ENOENT, pmuctl_read_threads(p, (void *)buf, sizeof(buf), 3,
					       NULL, NULL));
	fake.threads_errno = ENOTTY;
	EXPECT_EQ(-ENOTTY, pmuctl_read_threads(p, (void *)buf, sizeof(buf), 3,
					       NULL, NULL));
	fake.threads_errno = 0;

	/* a handle holding a CPU-scope group: no threads, no ioctl */
	q = fake_open(_metadata, PMUCTL_OPEN_NO_EMULATION);
	three_events(ev);
	ASSERT_EQ(0, pmuctl_program(q, ev, 3, NULL, 0, NULL));
	fake.nr_threads_ioc = 0;
	EXPECT_EQ(-EINVAL, pmuctl_read_threads(q, (void *)buf, sizeof(buf), 3,
					       NULL, NULL));
	EXPECT_EQ(0U, fake.nr_threads_ioc);
	pmuctl_close(q);
	pmuctl_close(p);
}

/* rdpmc, through the library's inline read path. */
static uint64_t read_ecx(const struct pmuctl_counters *c, unsigned int i)
{
	uint64_t v = pmuctl_read_counter(c, i);

	/* The handler wrote the fake's counts: no value cached across it. */
	__asm__ __volatile__("" ::: "memory");
	return v;
}

TEST(emulation_reads_the_thread_for_task_scope)
{
	struct pmuctl_event ev[3];
	const struct pmuctl_counters *c;
	struct pmuctl *p;
	uint64_t v;

	fake_reset(PMUCTL_RDPMC_NONE, PMUCTL_BACKEND_MSR, 48, 32);
	fake.values[1] = 0xfedcba98ULL;
	fake_unreal_counters();
	p = fake_open(_metadata, 0);
	three_events(ev);
	ASSERT_EQ(0, pmuctl_program_task(p, 0, ev, 3, NULL));
	c = pmuctl_get_counters(p);
	ASSERT_EQ(PMUCTL_COUNTERS_TASK | PMUCTL_COUNTERS_EMULATED, c->flags);
	fake.nr_read = 0;
	v = read_ecx(c, 1);
	if (!fake.nr_read) {
		pmuctl_close(p);
		SKIP(return, "rdpmc of a counter no PMU has did not fault: the emulation is never reached");
	}
	EXPECT_EQ(1U, fake.nr_read);
	EXPECT_EQ(PMUCTL_READ_THREAD, fake.read.flags);
	EXPECT_EQ(0U, fake.read.cpu);
	EXPECT_EQ(0xfedcba98ULL, v);
	pmuctl_close(p);
}

TEST(emulation_passes_a_thread_it_does_not_count_on)
{
	struct pmuctl_event ev[3];
	struct pmuctl *a, *b;
	uint64_t v;
	int slot_b, st;
	pid_t pid;

	fake_reset(PMUCTL_RDPMC_NONE, PMUCTL_BACKEND_MSR, 48, 32);
	fake.values[0] = 1000;
	fake_unreal_counters();
	a = fake_open(_metadata, 0);
	b = fake_open(_metadata, 0);
	three_events(ev);
	ASSERT_EQ(0, pmuctl_program_task(a, 0, ev, 3, NULL));
	three_events(ev);
	ASSERT_EQ(0, pmuctl_program_task(b, 0, ev, 3, NULL));
	/* a's session does not count this thread; b's does (same counter) */
	fake.read_errno[0] = ESRCH;
	slot_b = 1;
	fake.nr_read = 0;
	v = read_ecx(pmuctl_get_counters(a), 0);
	if (!fake.nr_read) {
		pmuctl_close(b);
		pmuctl_close(a);
		SKIP(return, "rdpmc of a counter no PMU has did not fault: the emulation is never reached");
	}
	EXPECT_EQ(2U, fake.nr_read);
	EXPECT_EQ(1000 + (uint64_t)slot_b, v);

	/* neither counts it: the fault is the process's own */
	fake.read_errno[1] = ESRCH;
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		read_ecx(pmuctl_get_counters(a), 0);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFSIGNALED(st) &&
		    (WTERMSIG(st) == SIGSEGV || WTERMSIG(st) == SIGILL)) {
		TH_LOG("wait status %#x: want death by SIGSEGV or SIGILL", st);
	}
	pmuctl_close(b);
	pmuctl_close(a);
}

/*
 * A pmuctl_open() that succeeds forgets the failure of the one before:
 * pmuctl_strerror() no longer explains that value as an open's failure
 * (selftests/lib/open_test.c tests the explanations).
 */
TEST(open_success_forgets_the_failure_before)
{
	char buf[512];
	struct pmuctl *p;

	fake_reset(PMUCTL_RDPMC_SESSION, PMUCTL_BACKEND_MSR, 48, 48);
	ASSERT_EQ(-ENOENT, pmuctl_open("/nonexistent/pmuctl", 0, &p));
	EXPECT_NE(NULL, strstr(pmuctl_strerror(-ENOENT, NULL, buf, sizeof(buf)),
			       "/nonexistent/pmuctl does not exist"));
	p = fake_open(_metadata, PMUCTL_OPEN_NO_EMULATION);
	EXPECT_STREQ(strerror(ENOENT), pmuctl_strerror(-ENOENT, NULL, buf, sizeof(buf)));
	pmuctl_close(p);
}

TEST_HARNESS_MAIN
