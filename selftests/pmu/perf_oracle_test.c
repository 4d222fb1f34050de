// SPDX-License-Identifier: GPL-2.0
/*
 * perf as the oracle: on the emulated PMU (scripts/vm/qemu/pmu-spec.md), the kernel's own
 * perf driver, perf's mmap self-monitoring and pmuctl (through libpmuctl)
 * count the same known code, user mode, exactly alike; perf and pmuctl
 * exclude each other; the emulated PMI drives perf's sampling.
 *
 * The known code is pmu_loop(n) (pmu.c, in assembly): "xor %eax,%eax;
 * mov %rdi,%rcx; 1: dec %rcx; jnz 1b; ret" retires 2n + 3 instructions,
 * plus the call.  Each way of counting adds its own constant (the ioctl
 * or rdpmc path around the window: user instructions of glibc's wrappers,
 * the library's read path), the same for every n because the code path
 * is the same, so the tests compare the difference of two sizes:
 *
 *	count(N2) - count(N1) = 2 * (N2 - N1)	exactly
 *
 * which the emulation promises (instructions retired are exact; kernel
 * work, interrupts and page faults add nothing to user-mode counts).
 * The constants themselves are logged.
 *
 * Everything runs pinned to CPU 0.  Tests that need pmuctl SKIP without
 * /dev/pmuctl or with its register-model build; a test that needs the
 * other kernel.nmi_watchdog setting SKIPs naming it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "libpmuctl.h"
#include "pmu.h"

#define CPU		0
#define N1		100000ULL
#define N2		1100000ULL
#define KNOWN_DIFF	(PMU_LOOP_INSNS(N2) - PMU_LOOP_INSNS(N1))	/* 2,000,000 */
#define REPEATS		3
#define PMUCTL_RDPMC_PARAM	"/sys/module/pmuctl/parameters/rdpmc"	/* pmuctl's grants */
/* The ioctl or read path around a window: well under this (logged). */
#define MAX_PATH_INSNS	2000

#define MAX_SAMPLE_RATE		"/proc/sys/kernel/perf_event_max_sample_rate"
#define CPU_TIME_MAX_PERCENT	"/proc/sys/kernel/perf_cpu_time_max_percent"

FIXTURE(oracle) {
	struct pmu_caps c;
	struct pmu_knob rdpmc, rate, percent, pmuctl_rdpmc;
	int fd[3];
	void *ring;
	size_t ring_len;
	struct pmuctl *p;
};

FIXTURE_SETUP(oracle)
{
	pmu_caps_read(&self->c);
	for (int i = 0; i < 3; i++)
		self->fd[i] = -1;
	ASSERT_EQ(0, pmu_pin(CPU));
}

static void perf_close_all(FIXTURE_DATA(oracle) *self)
{
	if (self->ring)
		munmap(self->ring, self->ring_len);
	self->ring = NULL;
	for (int i = 0; i < 3; i++) {
		if (self->fd[i] >= 0)
			close(self->fd[i]);
		self->fd[i] = -1;
	}
}

FIXTURE_TEARDOWN(oracle)
{
	perf_close_all(self);
	pmuctl_close(self->p);
	pmu_knob_restore(&self->percent);	/* before the rate: see sampling */
	pmu_knob_restore(&self->rate);
	pmu_knob_restore(&self->rdpmc);
	pmu_knob_restore(&self->pmuctl_rdpmc);
}

/* ---- perf ---------------------------------------------------------------------- */

/* User-mode instructions (or kernel-mode with @kernel), this thread on CPU. */
static int perf_insns(bool user, bool kernel, bool disabled, int group_fd,
		      uint64_t read_format, uint64_t period)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.disabled = disabled;
	a.exclude_user = !user;
	a.exclude_kernel = !kernel;
	a.exclude_hv = 1;
	a.read_format = read_format;
	if (period) {
		a.sample_period = period;
		a.sample_type = PERF_SAMPLE_IP;
	}
	fd = syscall(SYS_perf_event_open, &a, 0, CPU, group_fd,
		     PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* Raw INST_RETIRED.ANY_P (0x00c0), user mode, sampling every @period. */
static int perf_raw_inst_sampling(uint64_t period)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_RAW;
	a.config = EV_INST_RETIRED;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.sample_period = period;
	a.sample_type = PERF_SAMPLE_IP;
	fd = syscall(SYS_perf_event_open, &a, 0, CPU, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* ENABLE, pmu_loop(n), DISABLE, read: the same path for every n. */
static uint64_t __attribute__((noinline)) perf_window(int fd, uint64_t n)
{
	uint64_t v = 0;

	ioctl(fd, PERF_EVENT_IOC_RESET, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	pmu_loop(n);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &v, sizeof(v)) != sizeof(v))
		return 0;
	return v;
}

/*
 * Count pmu_loop(N1) and pmu_loop(N2) REPEATS times each through @fd:
 * every repeat gives the same count, the difference is exactly
 * KNOWN_DIFF, the path adds a small constant.  Returns the difference.
 */
static uint64_t perf_expect_exact(struct __test_metadata *_metadata, int fd,
				  const char *what)
{
	uint64_t c1[REPEATS], c2[REPEATS];

	for (int r = 0; r < REPEATS; r++) {
		c1[r] = perf_window(fd, N1);
		c2[r] = perf_window(fd, N2);
	}
	TH_LOG("%s: pmu_loop(%llu) %llu, pmu_loop(%llu) %llu: difference %llu (known %llu), path %lld",
	       what, N1, (unsigned long long)c1[0], N2, (unsigned long long)c2[0],
	       (unsigned long long)(c2[0] - c1[0]), (unsigned long long)KNOWN_DIFF,
	       (long long)(c1[0] - PMU_LOOP_INSNS(N1)));
	for (int r = 1; r < REPEATS; r++) {
		EXPECT_EQ(c1[0], c1[r]) TH_LOG("%s: repeat %d of N1", what, r);
		EXPECT_EQ(c2[0], c2[r]) TH_LOG("%s: repeat %d of N2", what, r);
	}
	EXPECT_EQ(KNOWN_DIFF, c2[0] - c1[0]);
	EXPECT_LE(PMU_LOOP_INSNS(N1), c1[0]);
	EXPECT_GT(PMU_LOOP_INSNS(N1) + MAX_PATH_INSNS, c1[0]);
	return c2[0] - c1[0];
}

/*
 * (a) perf_event_open(PERF_TYPE_HARDWARE, INSTRUCTIONS, exclude_kernel,
 * exclude_hv), this thread on CPU 0, enabled and disabled by ioctl around
 * the loop: the difference of two sizes is exactly 2 * (N2 - N1).
 */
TEST_F(oracle, perf_counts_user_instructions_of_a_known_loop_exactly)
{
	self->fd[0] = perf_insns(true, false, true, -1, 0, 0);
	ASSERT_LE(0, self->fd[0]) TH_LOG("perf_event_open: %s", strerror(-self->fd[0]));
	perf_expect_exact(_metadata, self->fd[0], "perf instructions:u");
}

/*
 * (b) A group of three led by user-mode instructions (the siblings
 * enabled, so the whole group starts and stops at the same write of
 * IA32_PERF_GLOBAL_CTRL): kernel-mode instructions over 1000 getppid()
 * are > 0 (> 1 per syscall), user+kernel >= user, and user+kernel is
 * exactly user plus kernel: the emulation splits every instruction by CPL.
 */
TEST_F(oracle, perf_counts_kernel_work_and_user_plus_kernel_is_the_sum)
{
	struct { uint64_t nr, v[3]; } g = { 0 };
	const int calls = 1000;

	self->fd[0] = perf_insns(true, false, true, -1, PERF_FORMAT_GROUP, 0);
	ASSERT_LE(0, self->fd[0]) TH_LOG("user: %s", strerror(-self->fd[0]));
	self->fd[1] = perf_insns(false, true, false, self->fd[0], PERF_FORMAT_GROUP, 0);
	ASSERT_LE(0, self->fd[1]) TH_LOG("kernel: %s", strerror(-self->fd[1]));
	self->fd[2] = perf_insns(true, true, false, self->fd[0], PERF_FORMAT_GROUP, 0);
	ASSERT_LE(0, self->fd[2]) TH_LOG("user+kernel: %s", strerror(-self->fd[2]));

	ASSERT_EQ(0, ioctl(self->fd[0], PERF_EVENT_IOC_ENABLE, 0));
	for (int i = 0; i < calls; i++)
		syscall(SYS_getppid);
	ASSERT_EQ(0, ioctl(self->fd[0], PERF_EVENT_IOC_DISABLE, 0));
	ASSERT_EQ((ssize_t)sizeof(g), read(self->fd[0], &g, sizeof(g)));
	ASSERT_EQ(3ULL, g.nr);
	TH_LOG("%d x getppid: user %llu, kernel %llu (%llu per call), user+kernel %llu (sum %+lld)",
	       calls, (unsigned long long)g.v[0], (unsigned long long)g.v[1],
	       (unsigned long long)g.v[1] / calls, (unsigned long long)g.v[2],
	       (long long)(g.v[2] - g.v[0] - g.v[1]));
	EXPECT_LT((uint64_t)calls, g.v[1]);
	EXPECT_LE(g.v[0], g.v[2]);
	EXPECT_EQ(g.v[0] + g.v[1], g.v[2]);
}

/* ---- perf's mmap self-monitoring ----------------------------------------------------- */

/*
 * The perf_event_mmap_page seqlock loop (include/uapi/linux/perf_event.h):
 * offset plus the counter read with rdpmc(index - 1), sign-extended from
 * pmc_width.  *@retries counts the times the loop had to go round again.
 */
static inline __attribute__((always_inline)) uint64_t
mmap_read(volatile struct perf_event_mmap_page *pc, unsigned int *retries)
{
	uint32_t seq, idx;
	uint64_t count;

	for (;;) {
		seq = pc->lock;
		__asm__ __volatile__("" ::: "memory");
		idx = pc->index;
		count = pc->offset;
		if (pc->cap_user_rdpmc && idx) {
			unsigned int width = pc->pmc_width;
			int64_t pmc = (int64_t)(pmu_rdpmc(idx - 1) << (64 - width));

			count += (uint64_t)(pmc >> (64 - width));
		}
		__asm__ __volatile__("" ::: "memory");
		if (pc->lock == seq)
			break;
		(*retries)++;
	}
	return count;
}

static uint64_t __attribute__((noinline))
mmap_window(volatile struct perf_event_mmap_page *pc, uint64_t n,
	    unsigned int *retries)
{
	uint64_t a = mmap_read(pc, retries);

	pmu_loop(n);
	return mmap_read(pc, retries) - a;
}

/* The smallest of REPEATS windows with no seqlock retry (0: none had). */
static uint64_t mmap_count(volatile struct perf_event_mmap_page *pc, uint64_t n)
{
	uint64_t best = 0;

	for (int r = 0; r < 2 * REPEATS; r++) {
		unsigned int retries = 0;
		uint64_t d = mmap_window(pc, n, &retries);

		if (!retries && (!best || d < best))
			best = d;
	}
	return best;
}

/*
 * (c) perf's own self-monitoring: with the sysfs rdpmc file at 1 (perf's
 * default) an mmapped event grants rdpmc to this mm (cap_user_rdpmc),
 * index is its counter + 1, pmc_width the CPUID width; the seqlock loop
 * around the known loop counts exactly 2 * (N2 - N1) more for N2.
 */
TEST_F(oracle, perf_mmap_rdpmc_self_monitoring_counts_the_loop_exactly)
{
	long page = sysconf(_SC_PAGESIZE);
	volatile struct perf_event_mmap_page *pc;
	uint64_t c1, c2;

	ASSERT_EQ(0, pmu_knob_set(&self->rdpmc, RDPMC_SYSFS, "1"));
	self->fd[0] = perf_insns(true, false, false, -1, 0, 0);
	ASSERT_LE(0, self->fd[0]) TH_LOG("perf_event_open: %s", strerror(-self->fd[0]));
	self->ring = mmap(NULL, page, PROT_READ, MAP_SHARED, self->fd[0], 0);
	ASSERT_NE(MAP_FAILED, self->ring);
	self->ring_len = page;
	pc = self->ring;

	/* perf_mmap() has published the page (perf_event_update_userpage()). */
	TH_LOG("cap_user_rdpmc %u index %#x pmc_width %u offset %lld",
	       pc->cap_user_rdpmc, pc->index, pc->pmc_width, (long long)pc->offset);
	ASSERT_EQ(1U, (unsigned int)pc->cap_user_rdpmc);
	ASSERT_NE(0U, pc->index);
	EXPECT_EQ(RDPMC_FIXED | 0, pc->index - 1) TH_LOG("instructions not on fixed counter 0");
	EXPECT_EQ(pc->index - 1 >= RDPMC_FIXED ? self->c.fixed_width : self->c.gp_width,
		  pc->pmc_width);

	c1 = mmap_count(pc, N1);
	c2 = mmap_count(pc, N2);
	ASSERT_NE(0ULL, c1) TH_LOG("every window needed a seqlock retry");
	ASSERT_NE(0ULL, c2) TH_LOG("every window needed a seqlock retry");
	TH_LOG("mmap rdpmc: pmu_loop(%llu) %llu, pmu_loop(%llu) %llu: difference %llu (known %llu), read path %lld",
	       N1, (unsigned long long)c1, N2, (unsigned long long)c2,
	       (unsigned long long)(c2 - c1), (unsigned long long)KNOWN_DIFF,
	       (long long)(c1 - PMU_LOOP_INSNS(N1)));
	EXPECT_EQ(KNOWN_DIFF, c2 - c1);
	EXPECT_LE(PMU_LOOP_INSNS(N1), c1);
	EXPECT_GT(PMU_LOOP_INSNS(N1) + MAX_PATH_INSNS, c1);
}

/* ---- pmuctl ----------------------------------------------------------------------- */

/*
 * Open a pmuctl session for counting, or say why this test cannot:
 * no /dev/pmuctl, or the register-model build (no real counts).
 */
#define PMUCTL_OPEN(self, flags) do {					\
	int __r = pmuctl_open(NULL, (flags), &(self)->p);		\
									\
	if (__r == -ENOENT)						\
		SKIP(return, "no %s: pmuctl.ko (default build) not loaded", \
		     PMUCTL_DEVICE_PATH);				\
	ASSERT_EQ(0, __r) TH_LOG("pmuctl_open: %s", strerror(-__r));	\
	if (pmuctl_get_info((self)->p)->backend != PMUCTL_BACKEND_MSR)	\
		SKIP(return, "pmuctl.ko is its register-model build: no real counts"); \
} while (0)

/* Instructions :u on the fixed counter and on a generic counter. */
static void pmuctl_events(struct pmuctl_event ev[2])
{
	memset(ev, 0, 2 * sizeof(*ev));
	ev[0].config = EV_INST_RETIRED | PMUCTL_CFG_USR;
	ev[1].config = EV_INST_RETIRED | PMUCTL_CFG_USR;
	ev[1].flags = PMUCTL_EVENT_GENERIC_ONLY;
}

/* Program @ev on CPU 0 or SKIP when perf holds the counters. */
#define PMUCTL_PROGRAM(self, ev, n) do {				\
	struct pmuctl_error __e;					\
	char __buf[256];						\
	int __r = pmuctl_program_cpu((self)->p, CPU, (ev), (n), &__e);	\
									\
	if (__r == -EBUSY && __e.reason == PMUCTL_R_PERF_BUSY)		\
		SKIP(return, "kernel.nmi_watchdog=%d: perf holds the counters (PERF_BUSY)", \
		     pmu_watchdog_on());				\
	ASSERT_EQ(CPU, __r) TH_LOG("pmuctl_program_cpu: %s",		\
				   pmuctl_strerror(__r, &__e, __buf, sizeof(__buf))); \
} while (0)

/* Read both counters with the inline rdpmc path around pmu_loop(n). */
static void __attribute__((noinline))
pmuctl_window(const struct pmuctl_counters *c, uint64_t n, uint64_t *a,
	      uint64_t *b)
{
	pmuctl_read_counters(c, a, 2);
	pmu_loop(n);
	pmuctl_read_counters(c, b, 2);
}

/*
 * pmuctl_window() in which this thread was not switched out (pmuctl counts
 * the CPU: another task's instructions would count too): true if even the
 * last of PMU_WINDOW_TRIES was.
 */
static bool pmuctl_window_alone(const struct pmuctl_counters *c, uint64_t n,
				uint64_t *a, uint64_t *b)
{
	for (unsigned int t = 0; t < PMU_WINDOW_TRIES; t++) {
		uint64_t s0 = pmu_switches();

		pmuctl_window(c, n, a, b);
		if (pmu_switches() == s0)
			return false;
	}
	return true;
}

/*
 * Both counters over pmu_loop(N1) and pmu_loop(N2), REPEATS times: each
 * repeat the same, the difference exactly KNOWN_DIFF.  Returns counter
 * 0's difference.
 */
static uint64_t pmuctl_expect_exact(struct __test_metadata *_metadata,
				    const struct pmuctl_counters *c,
				    const char *what)
{
	uint64_t d1[REPEATS][2], d2[REPEATS][2];

	for (int r = 0; r < REPEATS; r++) {
		uint64_t a[2], b[2];

		EXPECT_FALSE(pmuctl_window_alone(c, N1, a, b))
			TH_LOG("%s: switched out in %d windows in a row", what, PMU_WINDOW_TRIES);
		for (int i = 0; i < 2; i++)
			d1[r][i] = pmuctl_delta(c, i, a[i], b[i]);
		EXPECT_FALSE(pmuctl_window_alone(c, N2, a, b))
			TH_LOG("%s: switched out in %d windows in a row", what, PMU_WINDOW_TRIES);
		for (int i = 0; i < 2; i++)
			d2[r][i] = pmuctl_delta(c, i, a[i], b[i]);
	}
	for (int i = 0; i < 2; i++) {
		TH_LOG("%s, counter %#x: pmu_loop(%llu) %llu, pmu_loop(%llu) %llu: difference %llu (known %llu), read path %lld",
		       what, c->ecx[i], N1, (unsigned long long)d1[0][i], N2,
		       (unsigned long long)d2[0][i],
		       (unsigned long long)(d2[0][i] - d1[0][i]),
		       (unsigned long long)KNOWN_DIFF,
		       (long long)(d1[0][i] - PMU_LOOP_INSNS(N1)));
		for (int r = 1; r < REPEATS; r++) {
			EXPECT_EQ(d1[0][i], d1[r][i]) TH_LOG("counter %d, repeat %d of N1", i, r);
			EXPECT_EQ(d2[0][i], d2[r][i]) TH_LOG("counter %d, repeat %d of N2", i, r);
		}
		EXPECT_EQ(KNOWN_DIFF, d2[0][i] - d1[0][i]) TH_LOG("counter %d", i);
		EXPECT_LE(PMU_LOOP_INSNS(N1), d1[0][i]);
		EXPECT_GT(PMU_LOOP_INSNS(N1) + MAX_PATH_INSNS, d1[0][i]);
	}
	return d2[0][0] - d1[0][0];
}

/*
 * (d) pmuctl, bare rdpmc (PMUCTL_OPEN_NO_EMULATION: a faulting rdpmc
 * would kill the test, not be emulated): instructions :u on fixed counter
 * 0 and on a generic counter count the known loop exactly, and agree with
 * perf's count of the same loop, measured first.
 */
TEST_F(oracle, pmuctl_rdpmc_counts_the_loop_exactly_like_perf)
{
	struct pmuctl_event ev[2];
	const struct pmuctl_counters *c;
	uint64_t perf_diff, pmuctl_diff;

	ASSERT_EQ(0, pmu_knob_set(&self->rdpmc, RDPMC_SYSFS, "1"));
	self->fd[0] = perf_insns(true, false, true, -1, 0, 0);
	ASSERT_LE(0, self->fd[0]) TH_LOG("perf_event_open: %s", strerror(-self->fd[0]));
	perf_diff = perf_expect_exact(_metadata, self->fd[0], "perf instructions:u");
	perf_close_all(self);

	PMUCTL_OPEN(self, PMUCTL_OPEN_NO_EMULATION);
	ASSERT_EQ((uint32_t)PMUCTL_RDPMC_SESSION, pmuctl_get_info(self->p)->rdpmc);
	pmuctl_events(ev);
	PMUCTL_PROGRAM(self, ev, 2);
	c = pmuctl_get_counters(self->p);
	TH_LOG("pmuctl placed instructions:u on %#x and %#x, flags %#x",
	       ev[0].counter, ev[1].counter, c->flags);
	EXPECT_EQ(RDPMC_FIXED | 0, ev[0].counter);
	EXPECT_LT(ev[1].counter, self->c.nr_gp);
	ASSERT_TRUE(!!(c->flags & PMUCTL_COUNTERS_RDPMC)) TH_LOG("flags %#x: no bare rdpmc", c->flags);
	EXPECT_FALSE(!!(c->flags & PMUCTL_COUNTERS_EMULATED));
	EXPECT_EQ(pmu_width_mask(self->c.fixed_width), c->mask[0]);
	EXPECT_EQ(pmu_width_mask(self->c.gp_width), c->mask[1]);
	ASSERT_EQ(0, pmuctl_start(self->p));

	pmuctl_diff = pmuctl_expect_exact(_metadata, c, "pmuctl rdpmc");
	EXPECT_EQ(perf_diff, pmuctl_diff);
	EXPECT_EQ(KNOWN_DIFF, pmuctl_diff);
}

/*
 * (e) Exclusion, pmuctl's side: while a pmuctl group is held, perf cannot
 * create a hardware event: perf reserves every generic counter (and event
 * select) when its first hardware event is created
 * (x86_reserve_hardware() -> reserve_pmc_hardware()), pmuctl holds those
 * reservations, so perf_event_open() fails with EBUSY.  After RELEASE perf
 * counts again, exactly.
 */
TEST_F(oracle, perf_event_open_is_refused_while_pmuctl_holds_the_counters)
{
	struct pmuctl_event ev[2];
	int fd;

	if (pmu_watchdog_on())
		SKIP(return, "kernel.nmi_watchdog=1: perf holds the counters, pmuctl cannot take them (the watchdog side is tested below)");
	PMUCTL_OPEN(self, PMUCTL_OPEN_NO_EMULATION);
	pmuctl_events(ev);
	PMUCTL_PROGRAM(self, ev, 2);
	fd = perf_insns(true, false, true, -1, 0, 0);
	if (fd >= 0)
		close(fd);
	EXPECT_EQ(-EBUSY, fd) TH_LOG("perf_event_open while pmuctl holds PMC%u: %s",
				     ev[1].counter, fd >= 0 ? "succeeded" : strerror(-fd));
	ASSERT_EQ(0, pmuctl_release(self->p));

	self->fd[0] = perf_insns(true, false, true, -1, 0, 0);
	ASSERT_LE(0, self->fd[0]) TH_LOG("perf_event_open after RELEASE: %s",
					 strerror(-self->fd[0]));
	perf_expect_exact(_metadata, self->fd[0], "perf after pmuctl's RELEASE");
}

/*
 * (e) Exclusion, perf's side: with kernel.nmi_watchdog=1 perf's watchdog
 * event holds the counters' reservation, and PROGRAM fails with EBUSY and
 * PMUCTL_R_PERF_BUSY.
 */
TEST_F(oracle, pmuctl_program_is_refused_with_perf_busy_under_the_nmi_watchdog)
{
	struct pmuctl_event ev[2];
	struct pmuctl_error err;
	int ret;

	if (!pmu_watchdog_on())
		SKIP(return, "kernel.nmi_watchdog=0: no perf watchdog here (the guest booted with the watchdog on tests this)");
	if (!hw_kmsg_has(PERF_WATCHDOG_MSG))
		SKIP(return, "kernel.nmi_watchdog=1 but no perf watchdog event in the kernel log (\"%s\")",
		     PERF_WATCHDOG_MSG);
	PMUCTL_OPEN(self, PMUCTL_OPEN_NO_EMULATION);
	pmuctl_events(ev);
	ret = pmuctl_program_cpu(self->p, CPU, ev, 2, &err);
	EXPECT_EQ(-EBUSY, ret);
	EXPECT_EQ((uint32_t)PMUCTL_R_PERF_BUSY, err.reason) TH_LOG("reason %s",
							 pmuctl_reason_name(err.reason));
	EXPECT_EQ(0U, pmuctl_get_counters(self->p)->nr);
}

/* ---- the PMI -------------------------------------------------------------------------- */

#define SAMPLE_PERIOD	100000ULL
/* pmu_loop(n) plus its call: 2n + 4 = 10,000,000 user instructions. */
#define SAMPLE_LOOP_N	4999998ULL
#define SAMPLE_WORK	(PMU_LOOP_INSNS(SAMPLE_LOOP_N) + 1)
#define RING_PAGES	16

/*
 * Throttling: perf lowers kernel.perf_event_max_sample_rate when its
 * interrupt handler takes long (it does under TCG) and drops samples past
 * max_sample_rate / HZ per tick.  For this test the rate is set to 100000
 * and the dynamic lowering off (kernel.perf_cpu_time_max_percent=0); both
 * are put back in the teardown, the percentage first (while it is 0 the
 * rate cannot be written).
 */
static int sampling_unthrottle(FIXTURE_DATA(oracle) *self)
{
	char pct[16];
	int ret = hw_read_line(CPU_TIME_MAX_PERCENT, pct, sizeof(pct));

	if (ret)
		return ret;
	if (!strcmp(pct, "0") || !strcmp(pct, "100"))
		return 0;	/* dynamic lowering already off; the rate is read-only */
	ret = pmu_knob_set(&self->rate, MAX_SAMPLE_RATE, "100000");
	return ret ? ret : pmu_knob_set(&self->percent, CPU_TIME_MAX_PERCENT, "0");
}

/*
 * The emulated PMI, through perf sampling: user-mode instructions with
 * sample_period 100000 over pmu_loop() retiring 10,000,000 user
 * instructions.  perf arms the counter at -period; each overflow raises
 * the PMI (the local APIC's LVTPC, NMI), perf writes a PERF_RECORD_SAMPLE
 * and re-arms at -(period - overshoot), so the k-th PMI comes after k
 * periods of counted instructions wherever the skid (at most one
 * translation block) let the previous one land.  Samples are therefore
 * exactly floor(count / period) with count the event's total, = 100 here
 * (count is 10,000,000 plus the few instructions of the ioctl path, far
 * less than a period; the last overflow lies inside the loop, more than a
 * translation block before the DISABLE): the bound is 100 +- 0, and
 * [99, 101] is checked as well so that a failure says "off by a skid" or
 * "PMIs lost".  Every sample's IP lies in pmu_loop (a PMI taken at the end
 * of a translation block of the loop: its head or its ret), and perf
 * reports no throttling or lost records.
 *
 * @generic: the sampling event is raw 0x00c0 on a generic counter (INT in
 * its PERFEVTSEL), a pinned counting event holding fixed counter 0;
 * otherwise PERF_COUNT_HW_INSTRUCTIONS on fixed counter 0 (the PMI bit of
 * its FIXED_CTR_CTRL nibble).
 */
static void sampling_check(struct __test_metadata *_metadata,
			   FIXTURE_DATA(oracle) *self, bool generic)
{
	long page = sysconf(_SC_PAGESIZE);
	volatile struct perf_event_mmap_page *pc;
	uint64_t count = 0, head, samples = 0, in_loop = 0, other = 0;
	uint64_t throttled = 0, lost = 0;
	uint32_t index;
	const char *data;
	int ret;

	ret = sampling_unthrottle(self);
	ASSERT_EQ(0, ret) TH_LOG("perf sample-rate knobs: %s", strerror(-ret));
	if (generic) {
		struct perf_event_attr a;

		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_HARDWARE;
		a.config = PERF_COUNT_HW_INSTRUCTIONS;
		a.pinned = 1;
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		self->fd[1] = syscall(SYS_perf_event_open, &a, 0, CPU, -1,
				      PERF_FLAG_FD_CLOEXEC);
		ASSERT_LE(0, self->fd[1]) TH_LOG("pinned instructions: %s", strerror(errno));
		self->fd[0] = perf_raw_inst_sampling(SAMPLE_PERIOD);
	} else {
		self->fd[0] = perf_insns(true, false, true, -1, 0, SAMPLE_PERIOD);
	}
	ASSERT_LE(0, self->fd[0]) TH_LOG("perf_event_open: %s", strerror(-self->fd[0]));
	self->ring_len = (1 + RING_PAGES) * page;
	self->ring = mmap(NULL, self->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED,
			  self->fd[0], 0);
	ASSERT_NE(MAP_FAILED, self->ring);
	pc = self->ring;

	ASSERT_EQ(0, ioctl(self->fd[0], PERF_EVENT_IOC_ENABLE, 0));
	pmu_loop(SAMPLE_LOOP_N);
	index = pc->index;	/* published by x86_pmu_start() */
	ASSERT_EQ(0, ioctl(self->fd[0], PERF_EVENT_IOC_DISABLE, 0));
	ASSERT_EQ((ssize_t)sizeof(count), read(self->fd[0], &count, sizeof(count)));
	if (index) {
		TH_LOG("sampling on counter %#x", index - 1);
		if (generic) {
			EXPECT_GT(RDPMC_FIXED, index - 1);
		} else {
			EXPECT_EQ(RDPMC_FIXED | 0, index - 1);
		}
	}

	head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	ASSERT_GT((uint64_t)RING_PAGES * page, head) TH_LOG("the ring wrapped");
	data = (const char *)self->ring + page;
	for (uint64_t off = 0; off < head;) {
		const struct perf_event_header *h = (const void *)(data + off);

		ASSERT_LE(sizeof(*h), h->size);
		switch (h->type) {
		case PERF_RECORD_SAMPLE: {
			uint64_t ip = *(const uint64_t *)(h + 1);

			samples++;
			if (ip >= (uintptr_t)pmu_loop && ip < (uintptr_t)pmu_loop_end)
				in_loop++;
			else if (other++ < 3)
				TH_LOG("sample IP %#llx outside pmu_loop [%p, %p)",
				       (unsigned long long)ip, (void *)pmu_loop,
				       (void *)pmu_loop_end);
			break;
		}
		case PERF_RECORD_THROTTLE:
		case PERF_RECORD_UNTHROTTLE:
			throttled++;
			break;
		case PERF_RECORD_LOST:
			lost++;
			break;
		}
		off += h->size;
	}
	TH_LOG("%llu user instructions counted (work %llu), %llu samples (%llu in pmu_loop), %llu throttle and %llu lost records",
	       (unsigned long long)count, (unsigned long long)SAMPLE_WORK,
	       (unsigned long long)samples, (unsigned long long)in_loop,
	       (unsigned long long)throttled, (unsigned long long)lost);
	EXPECT_LE(SAMPLE_WORK, count);
	EXPECT_GT(SAMPLE_WORK + MAX_PATH_INSNS, count);
	EXPECT_EQ(0ULL, throttled);
	EXPECT_EQ(0ULL, lost);
	EXPECT_EQ(count / SAMPLE_PERIOD, samples);
	EXPECT_LE(99ULL, samples);
	EXPECT_GE(101ULL, samples);
	EXPECT_EQ(samples, in_loop);
}

/* (f) One PMI per period from fixed counter 0 (perf's instructions). */
TEST_F(oracle, perf_sampling_takes_one_pmi_per_period)
{
	sampling_check(_metadata, self, false);
}

/* (f) One PMI per period from a generic counter (raw 0x00c0). */
TEST_F(oracle, perf_sampling_on_a_generic_counter_takes_one_pmi_per_period)
{
	sampling_check(_metadata, self, true);
}

/* ---- the library's READ emulation ------------------------------------------------------ */

/*
 * (g) Where rdpmc is not granted (pmuctl's module parameter rdpmc and the
 * kernel's sysfs rdpmc file both 0 when the session opens: INFO then
 * reports PMUCTL_RDPMC_NONE), the library reads through its SIGSEGV handler and
 * PMUCTL_IOC_READ: counters flags say EMULATED, not RDPMC, and the inline
 * read path still counts the known loop exactly (the handler's user
 * instructions are the same in every window, so they cancel).
 */
TEST_F(oracle, pmuctl_read_emulation_counts_the_loop_exactly_without_rdpmc)
{
	struct pmuctl_event ev[2];
	const struct pmuctl_counters *c;

	ASSERT_EQ(0, pmu_knob_set(&self->rdpmc, RDPMC_SYSFS, "0"));
	ASSERT_EQ(0, pmu_knob_set(&self->pmuctl_rdpmc, PMUCTL_RDPMC_PARAM, "0"));
	PMUCTL_OPEN(self, 0);
	EXPECT_EQ((uint32_t)PMUCTL_RDPMC_NONE, pmuctl_get_info(self->p)->rdpmc);
	pmuctl_events(ev);
	PMUCTL_PROGRAM(self, ev, 2);
	c = pmuctl_get_counters(self->p);
	EXPECT_FALSE(!!(c->flags & PMUCTL_COUNTERS_RDPMC)) TH_LOG("flags %#x", c->flags);
	EXPECT_TRUE(!!(c->flags & PMUCTL_COUNTERS_EMULATED)) TH_LOG("flags %#x", c->flags);
	ASSERT_EQ(0, pmuctl_start(self->p));
	EXPECT_EQ(KNOWN_DIFF, pmuctl_expect_exact(_metadata, c, "pmuctl READ emulation"));
}

/* perf counts instructions on fixed counter 0 and on a PMC, then lets them go. */
static void perf_use_and_release(struct __test_metadata *_metadata,
				 FIXTURE_DATA(oracle) *self)
{
	self->fd[0] = perf_insns(true, false, true, -1, 0, 0);
	ASSERT_LE(0, self->fd[0]);
	self->fd[1] = perf_insns(true, false, true, -1, 0, 0);
	ASSERT_LE(0, self->fd[1]);
	ASSERT_EQ(0, ioctl(self->fd[0], PERF_EVENT_IOC_ENABLE, 0));
	ASSERT_EQ(0, ioctl(self->fd[1], PERF_EVENT_IOC_ENABLE, 0));
	pmu_loop(1000);
	perf_close_all(self);
}

/* A child run and reaped on this CPU: switches to its mm and back. */
static void switch_mm_twice(struct __test_metadata *_metadata)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	ASSERT_LT(0, pid);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
}

/*
 * Program both counters, then @rounds times: read, pmu_loop(n), switch
 * away and back, read: each delta must hold at least the loop.
 */
static void pmuctl_across_switches(struct __test_metadata *_metadata,
				   FIXTURE_DATA(oracle) *self, int rounds,
				   const char *what)
{
	const uint64_t n = 1000000;
	struct pmuctl_event ev[2];
	const struct pmuctl_counters *c;

	pmuctl_events(ev);
	PMUCTL_PROGRAM(self, ev, 2);
	c = pmuctl_get_counters(self->p);
	ASSERT_TRUE(!!(c->flags & PMUCTL_COUNTERS_RDPMC));
	ASSERT_EQ(0, pmuctl_start(self->p));
	for (int round = 0; round < rounds; round++) {
		uint64_t a[2], b[2];

		pmuctl_read_counters(c, a, 2);
		pmu_loop(n);
		switch_mm_twice(_metadata);
		pmuctl_read_counters(c, b, 2);
		for (int i = 0; i < 2; i++) {
			uint64_t d = pmuctl_delta(c, i, a[i], b[i]);

			TH_LOG("%s, round %d, counter %#x: %#llx -> %#llx: %llu (the loop alone %llu)",
			       what, round, c->ecx[i], (unsigned long long)a[i],
			       (unsigned long long)b[i], (unsigned long long)d,
			       (unsigned long long)PMU_LOOP_INSNS(n));
			EXPECT_LE(PMU_LOOP_INSNS(n), d)
				TH_LOG("%s, round %d: counter %#x was reset", what,
				       round, c->ecx[i]);
			EXPECT_GT(PMU_LOOP_INSNS(n) + 1000000, d);
		}
	}
	ASSERT_EQ(0, pmuctl_release(self->p));
}

/*
 * pmuctl's counters survive perf's dirty-counter scrub: at a switch to an
 * mm allowed rdpmc, perf_clear_dirty_counters() writes 0 to every counter
 * perf used and gave back and does not hold now, once per use (FACTS 6).
 *
 * The control first: perf uses fixed counter 0 and a PMC and releases
 * them, a switch with the sysfs rdpmc file at 2 runs the scrub before
 * pmuctl programs, and pmuctl's counters then count across switches.  The
 * test: perf uses and releases the same counters, pmuctl programs them at
 * once, and the first switch to this mm (granted rdpmc by pmuctl) must
 * not reset them either: pmuctl's grant is a preempt notifier of the
 * programming thread (kmod/grant.c), not the mm's perf_rdpmc_allowed
 * count, which opted this mm into the scrub (issue 10, item 2; the first
 * build failed here).
 */
TEST_F(oracle, pmuctl_counts_survive_a_switch_after_perf_used_the_counters)
{
	if (pmu_watchdog_on())
		SKIP(return, "kernel.nmi_watchdog=1: perf holds the counters (PERF_BUSY)");
	PMUCTL_OPEN(self, PMUCTL_OPEN_NO_EMULATION);
	perf_use_and_release(_metadata, self);
	ASSERT_EQ(0, pmu_knob_set(&self->rdpmc, RDPMC_SYSFS, "2"));
	switch_mm_twice(_metadata);
	ASSERT_EQ(0, pmu_knob_set(&self->rdpmc, RDPMC_SYSFS, "1"));
	pmuctl_across_switches(_metadata, self, 2, "control (perf's dirty bits scrubbed before PROGRAM)");

	perf_use_and_release(_metadata, self);
	pmuctl_across_switches(_metadata, self, 2, "right after perf released the counters");
}

PMU_TEST_MAIN(false, (void)0)
