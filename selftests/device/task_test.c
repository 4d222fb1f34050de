// SPDX-License-Identifier: GPL-2.0
/*
 * Task scope (uapi/linux/pmuctl.h, "Task scope" at struct pmuctl_program)
 * in the register-model guests, where nothing counts by itself: the rules
 * of the ABI, the sharing of counters between task-scope and CPU-scope
 * sessions, what the module writes at a monitored thread's context
 * switches (pmuctl/log of the register model: OFFCORE_RSP_0 values,
 * event selects, counter values at their full or legacy width), the
 * rdpmc grant and its isolation (what any counter index on the granted
 * thread's CPU holds, a CPU-scope release while the CPU was offline
 * included), the unprivileged policy and the inheritance bookkeeping
 * (READ.nr_threads, nr_lost, task_max_threads, io_uring's io-wq workers,
 * which create_io_thread() makes, and what a released session still
 * holds: the pid cache, /sys/kernel/slab/pid).
 *
 * Counts are simulated by presetting a counter register through
 * pmuctl/regs from the monitored thread itself, on its own CPU, while it
 * runs: the module must then carry that value through sched_out and
 * sched_in exactly as it would carry a real count.
 *
 * Threads are driven one step at a time (struct tw): each blocks on a pipe
 * between steps, so every step starts with a real switch-in.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/io_uring.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"
#include "kselftest_harness.h"

#define NTW		4
#define ROUNDS		20

#define P_PARANOID	param_path("paranoid")
#define P_RDPMC		param_path("rdpmc")
#define P_MAXTHREADS	param_path("task_max_threads")

/* ---- one-step threads ----------------------------------------------------- */

struct tw;
typedef int (*tw_fn)(struct tw *w);

struct tw {
	pthread_t t;
	bool alive;
	int req[2], rep[2];
	int cpu;			/* pinned there; -1: not pinned */
	int fd;				/* its own session, -1 none */
	__u32 flags, n;			/* PROGRAM: task flags and events */
	struct pmuctl_event ev[PMUCTL_MAX_GP];
	struct pmuctl_program p;
	struct pmuctl_read r;
	__u64 val[PMUCTL_MAX_EVENTS];
	__u32 msr;			/* tw_preset, tw_check_restore */
	__u64 arg;			/* the value; tw_probe: the ECX */
	__u64 want;			/* tw_check_restore: the value written */
	bool fw;			/* full-width writes (IA32_A_PMCx) */
	__u32 other;			/* tw_check_isolation: another group's counter */
	int sig;			/* tw_probe */
	unsigned long seen;		/* log writes seen at the last check */
	char msg[256];
};

static void *tw_main(void *arg)
{
	struct tw *w = arg;
	tw_fn fn;
	int ret = 0;

	if (w->cpu >= 0)
		ret = pin_cpu(w->cpu);
	for (;;) {
		if (write(w->rep[1], &ret, sizeof(ret)) != sizeof(ret))
			break;
		if (read(w->req[0], &fn, sizeof(fn)) != sizeof(fn) || !fn)
			break;
		ret = fn(w);
	}
	return NULL;
}

/* Start @w pinned to @cpu (-1: anywhere); 0 or -errno. Keeps w->ev, n, flags. */
static int tw_spawn(struct tw *w, int cpu)
{
	int ret;

	w->cpu = cpu;
	w->fd = -1;
	w->msg[0] = 0;
	if (pipe(w->req))
		return -errno;
	if (pipe(w->rep)) {
		close(w->req[0]);
		close(w->req[1]);
		return -errno;
	}
	ret = pthread_create(&w->t, NULL, tw_main, w);
	if (ret)
		return -ret;
	w->alive = true;
	if (read(w->rep[0], &ret, sizeof(ret)) != sizeof(ret))
		return -EPIPE;
	return ret;
}

/* Run @fn in @w; its result. */
static int tw_call(struct tw *w, tw_fn fn)
{
	int ret;

	if (write(w->req[1], &fn, sizeof(fn)) != sizeof(fn) ||
	    read(w->rep[0], &ret, sizeof(ret)) != sizeof(ret))
		return -EPIPE;
	return ret;
}

static void tw_end(struct tw *w)
{
	tw_fn none = NULL;

	if (!w->alive)
		return;
	if (write(w->req[1], &none, sizeof(none)) == sizeof(none))
		pthread_join(w->t, NULL);
	close(w->req[0]);
	close(w->req[1]);
	close(w->rep[0]);
	close(w->rep[1]);
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	w->alive = false;
}

static int tw_open(struct tw *w)
{
	w->fd = dev_open();
	return w->fd < 0 ? w->fd : 0;
}

static int tw_program(struct tw *w)
{
	return dev_program_task(w->fd, w->ev, w->n, w->flags, &w->p);
}

/* open, PROGRAM, START */
static int tw_setup(struct tw *w)
{
	int ret = tw_open(w);

	if (!ret)
		ret = tw_program(w);
	if (!ret)
		ret = dev_ctl(w->fd, PMUCTL_IOC_START);
	return ret;
}

static int tw_release(struct tw *w)
{
	return dev_ctl(w->fd, PMUCTL_IOC_RELEASE);
}

static int tw_read_thread(struct tw *w)
{
	return dev_read_task(w->fd, PMUCTL_READ_THREAD, w->val,
			     PMUCTL_MAX_EVENTS, &w->r);
}

static int tw_rdpmc_ioctl(struct tw *w)
{
	return dev_ctl(w->fd, PMUCTL_IOC_RDPMC);
}

static int tw_probe(struct tw *w)
{
	w->sig = rdpmc_probe(w->arg);
	return 0;
}

/* A "count": w->arg into w->msr of the CPU the thread runs on, now. */
static int tw_preset(struct tw *w)
{
	return regs_preset(sched_getcpu(), w->msr, w->arg);
}

/* ---- the fixture ---------------------------------------------------------- */

static char *param_get(const char *path)
{
	char *s = slurp(path), *nl;

	if (s && (nl = strchr(s, '\n')))
		*nl = 0;
	return s;
}

FIXTURE(task) {
	int fd;
	struct pmuctl_info info;
	struct snap before;
	struct tw tw[NTW];
	mode_t mode;
	char *paranoid, *rdpmc, *max_threads;
	bool cpu1_offline;		/* a test took CPU 1 offline */
};

FIXTURE_SETUP(task)
{
	struct stat st;

	self->fd = dev_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, dev_info(self->fd, &self->info));
	ASSERT_TRUE(debugfs_ready()) TH_LOG("no %s", DBG_STATE);
	ASSERT_EQ(0, stat(DEV_PATH, &st));
	self->mode = st.st_mode & 07777;
	self->paranoid = param_get(P_PARANOID);
	self->rdpmc = param_get(P_RDPMC);
	self->max_threads = param_get(P_MAXTHREADS);
}

FIXTURE_TEARDOWN(task)
{
	unsigned int i;

	for (i = 0; i < NTW; i++)
		tw_end(&self->tw[i]);
	if (self->cpu1_offline)
		cpu_set_online(1, true);
	snap_free(&self->before);
	if (self->fd >= 0)
		close(self->fd);
	if (self->paranoid)
		write_str(P_PARANOID, self->paranoid);
	if (self->rdpmc)
		write_str(P_RDPMC, self->rdpmc);
	if (self->max_threads)
		write_str(P_MAXTHREADS, self->max_threads);
	free(self->paranoid);
	free(self->rdpmc);
	free(self->max_threads);
	chmod(DEV_PATH, self->mode);
}

#define SNAP() do {							\
	snap_free(&self->before);					\
	ASSERT_EQ(0, snap_take(&self->before));				\
} while (0)

#define NEED_REGS() do {						\
	if (!have_regs() || access(DBG_LOG, R_OK))			\
		SKIP(return, "needs the register model (PMUCTL_REGMODEL=y: pmuctl/regs, pmuctl/log)"); \
} while (0)

/* rdpmc grants must exist and not be global (as rdpmc_test). */
#define NEED_GRANTS() do {						\
	char *__p = slurp("/sys/bus/event_source/devices/cpu/rdpmc");	\
	bool __always = __p && __p[0] == '2';				\
									\
	free(__p);							\
	if (self->info.rdpmc != PMUCTL_RDPMC_SESSION)			\
		SKIP(return, "pmuctl grants no rdpmc (INFO rdpmc %u)",	\
		     self->info.rdpmc);					\
	if (__always)							\
		SKIP(return, "rdpmc=2: every process may rdpmc");	\
} while (0)

/* The CPU the switch tests pin their threads to: not the test's own. */
static int switch_cpu(void)
{
	return cpus_online() > 1 ? 1 : 0;
}

/*
 * When tw_call() has its reply, the thread that sent it may still be on
 * its CPU, on its way to block for the next request: its sched_out (which
 * stops its counters) has not run yet.  Run on that CPU once ourselves,
 * then go back: every thread pinned there and blocked has been switched
 * out.  0 or -errno.
 */
static int switched_out(int cpu)
{
	cpu_set_t old;
	int ret;

	if (sched_getaffinity(0, sizeof(old), &old))
		return -errno;
	ret = pin_cpu(cpu);
	if (sched_setaffinity(0, sizeof(old), &old) && !ret)
		ret = -errno;
	return ret;
}

/* Generic-counter events, all different, as abi_test draws them. */
static struct pmuctl_event gp_ev(unsigned int i, __u64 mode)
{
	static const __u64 cfg[] = { EV_LLC_REF, EV_LLC_MISS, EV_BR, EV_BR_MISS };

	return ev_make(cfg[i % 4] | mode | CMASK(i / 4), 0, GONLY);
}

static bool full_width(const struct pmuctl_info *info)
{
	return info->caps.flags & PMUCTL_CAP_FULL_WIDTH_WRITE;
}

static __u64 gp_mask(const struct pmuctl_info *info)
{
	return info->caps.gp_width >= 64 ? ~0ULL :
	       (1ULL << info->caps.gp_width) - 1;
}

static __u64 bits_mask(__u32 bits)
{
	return bits >= 64 ? ~0ULL : (1ULL << bits) - 1;
}

/* What a generic counter keeps of a write of @v through its legacy MSR. */
static __u64 legacy_kept(const struct pmuctl_info *info, __u64 v)
{
	return (__u64)(__s64)(__s32)(__u32)v & gp_mask(info);
}

/* Index of a counter (rdpmc ECX) in struct pmuctl_holding.owner[]. */
static unsigned int own_idx(__u32 ecx)
{
	return ecx & PMUCTL_COUNTER_FIXED ? PMUCTL_IDX_FIXED + (ecx & 0xffff) : ecx;
}

/* PROGRAM with every field given. */
static int program_raw(int fd, __u32 flags, struct pmuctl_event *ev, __u32 n,
		       const __u64 *cpus, __u32 cpus_size,
		       struct pmuctl_program *p)
{
	memset(p, 0, sizeof(*p));
	p->flags = flags;
	p->nr_events = n;
	p->events = (uintptr_t)ev;
	p->cpus = (uintptr_t)cpus;
	p->cpus_size = cpus_size;
	return dev_ioctl(fd, PMUCTL_IOC_PROGRAM, p);
}

/* INFO with one holding entry per possible CPU into @h (n entries). */
static int info_holdings(int fd, struct pmuctl_holding *h, unsigned int n,
			 struct pmuctl_info *in)
{
	memset(in, 0, sizeof(*in));
	in->holdings = (uintptr_t)h;
	in->holding_size = sizeof(*h);
	in->holdings_size = n * sizeof(*h);
	return dev_ioctl(fd, PMUCTL_IOC_INFO, in);
}

/* READ totals of a task-scope session. */
static int read_totals(int fd, __u64 *val, struct pmuctl_read *r)
{
	return dev_read_task(fd, 0, val, PMUCTL_MAX_EVENTS, r);
}

/* Poll READ until nr_threads is @want (up to @ms); the last nr_threads. */
static __u32 wait_nr_threads(int fd, __u32 want, unsigned int ms)
{
	__u64 val[PMUCTL_MAX_EVENTS];
	struct pmuctl_read r;
	unsigned int t;

	for (t = 0;; t += 10) {
		if (read_totals(fd, val, &r))
			return 0xffffffffU;
		if (r.nr_threads == want || t >= ms)
			return r.nr_threads;
		usleep(10000);
	}
}

/* ---- the ABI ---------------------------------------------------------------- */

TEST_F(task, info_reports_program_flags_and_task_bits)
{
	const struct pmuctl_info *in = &self->info;
	__u32 want = in->caps.gp_width;

	/* The narrowest counter with full-width writes, else 32. */
	if (in->caps.fixed_mask && in->caps.fixed_width < want)
		want = in->caps.fixed_width;
	if (!full_width(in))
		want = 32;

	EXPECT_EQ((__u32)PMUCTL_PROGRAM_FLAGS_ALL, in->program_flags);
	EXPECT_EQ(want, in->task_bits) {
		TH_LOG("caps.flags %#x gp_width %u", in->caps.flags, in->caps.gp_width);
	}
	EXPECT_U64(0, in->reserved[0]);
}

TEST_F(task, program_task_refuses_a_cpu_bitmap)
{
	struct pmuctl_event ev = ev_make(EV_INST | USR, 0, 0);
	struct pmuctl_program p;
	__u64 bm = 1;

	SNAP();
	EXPECT_EQ(-EINVAL, program_raw(self->fd, PMUCTL_PROGRAM_TASK, &ev, 1,
				       &bm, sizeof(bm), &p));
	EXPECT_EQ((__u32)PMUCTL_R_BAD_CPU, p.err_reason);
	EXPECT_EQ(-EINVAL, program_raw(self->fd, PMUCTL_PROGRAM_TASK, &ev, 1,
				       NULL, sizeof(bm), &p));
	EXPECT_EQ((__u32)PMUCTL_R_BAD_CPU, p.err_reason);
	EXPECT_EQ(-EINVAL, program_raw(self->fd, PMUCTL_PROGRAM_TASK, &ev, 1,
				       &bm, 0, &p));
	EXPECT_EQ((__u32)PMUCTL_R_BAD_CPU, p.err_reason);
	EXPECT_UNCHANGED(&self->before, false);
	/* Without a bitmap it is valid. */
	EXPECT_EQ(0, program_raw(self->fd, PMUCTL_PROGRAM_TASK, &ev, 1, NULL, 0, &p));
}

TEST_F(task, inherit_and_enable_on_exec_need_task_and_unknown_flags_are_refused)
{
	static const __u32 need_task[] = {
		PMUCTL_PROGRAM_INHERIT, PMUCTL_PROGRAM_ENABLE_ON_EXEC,
		PMUCTL_PROGRAM_INHERIT | PMUCTL_PROGRAM_ENABLE_ON_EXEC,
	};
	struct pmuctl_event ev = ev_make(EV_INST | USR, 0, 0);
	struct pmuctl_program p;
	__u64 bm = 1;
	unsigned int i, b;

	SNAP();
	for (i = 0; i < ARRAY_SIZE(need_task); i++) {
		EXPECT_EQ(-EINVAL, program_raw(self->fd, need_task[i], &ev, 1,
					       &bm, sizeof(bm), &p));
		EXPECT_EQ((__u32)PMUCTL_R_BAD_FLAGS, p.err_reason) TH_LOG("flags %#x", need_task[i]);
	}
	for (b = 0; b < 32; b++) {
		if (PMUCTL_PROGRAM_FLAGS_ALL & (1U << b))
			continue;
		EXPECT_EQ(-EINVAL, program_raw(self->fd, PMUCTL_PROGRAM_TASK | 1U << b,
					       &ev, 1, NULL, 0, &p));
		EXPECT_EQ((__u32)PMUCTL_R_BAD_FLAGS, p.err_reason) TH_LOG("task, bit %u", b);
		EXPECT_EQ(-EINVAL, program_raw(self->fd, 1U << b, &ev, 1, &bm,
					       sizeof(bm), &p));
		EXPECT_EQ((__u32)PMUCTL_R_BAD_FLAGS, p.err_reason) TH_LOG("cpu, bit %u", b);
	}
	/* REPLACE is CPU scope's (a known bit, refused with TASK). */
	EXPECT_EQ(-EINVAL, program_raw(self->fd, PMUCTL_PROGRAM_TASK |
				       PMUCTL_PROGRAM_REPLACE, &ev, 1, NULL, 0, &p));
	EXPECT_EQ((__u32)PMUCTL_R_BAD_FLAGS, p.err_reason);
	EXPECT_UNCHANGED(&self->before, false);
	EXPECT_EQ(0, program_raw(self->fd, PMUCTL_PROGRAM_TASK |
				 PMUCTL_PROGRAM_INHERIT |
				 PMUCTL_PROGRAM_ENABLE_ON_EXEC, &ev, 1, NULL, 0, &p));
}

TEST_F(task, rdpmc_ioctl_other_cpus_and_uncounted_threads_are_refused)
{
	struct pmuctl_event ev = ev_make(EV_INST | USR, 0, 0);
	__u64 val[PMUCTL_MAX_EVENTS];
	struct pmuctl_program p;
	struct pmuctl_read r;
	struct tw *before = &self->tw[0], *after = &self->tw[1];

	ASSERT_EQ(0, tw_spawn(before, -1));
	ASSERT_EQ(0, dev_program_task(self->fd, &ev, 1, 0, &p));
	ASSERT_EQ(0, tw_spawn(after, -1));
	/* The programming thread may ask again (it holds the grant). */
	if (self->info.rdpmc != PMUCTL_RDPMC_NONE)
		EXPECT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RDPMC));
	memset(&r, 0, sizeof(r));
	r.cpu = 1;
	r.nr_values = PMUCTL_MAX_EVENTS;
	r.values = (uintptr_t)val;
	EXPECT_EQ(-EINVAL, dev_ioctl(self->fd, PMUCTL_IOC_READ, &r));
	EXPECT_EQ(0, read_totals(self->fd, val, &r));
	EXPECT_EQ(1U, r.nr_threads);
	EXPECT_EQ(0U, r.nr_lost);
	EXPECT_U64(1, r.generation);
	/* The programming thread is counted: READ_THREAD works there. */
	EXPECT_EQ(0, dev_read_task(self->fd, PMUCTL_READ_THREAD, val,
				   PMUCTL_MAX_EVENTS, &r));
	/* Threads made before and after PROGRAM (no INHERIT) are not. */
	before->fd = self->fd;
	after->fd = self->fd;
	EXPECT_EQ(-ESRCH, tw_call(before, tw_read_thread));
	EXPECT_EQ(-ESRCH, tw_call(after, tw_read_thread));
	/* Nor are they granted rdpmc: the session does not count them. */
	if (self->info.rdpmc != PMUCTL_RDPMC_NONE) {
		EXPECT_EQ(-EPERM, tw_call(before, tw_rdpmc_ioctl));
		EXPECT_EQ(-EPERM, tw_call(after, tw_rdpmc_ioctl));
	}
	before->fd = after->fd = -1;
	/* Totals are read from any thread. */
	EXPECT_EQ(0, read_totals(self->fd, val, &r));
}

TEST_F(task, second_task_session_of_a_thread_is_task_busy_until_release)
{
	struct pmuctl_event ev = ev_make(EV_INST | USR, 0, 0);
	struct pmuctl_program p;
	int fd2 = dev_open(), fd3;

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, dev_program_task(self->fd, &ev, 1, 0, &p));
	SNAP();
	EXPECT_EQ(-EBUSY, dev_program_task(fd2, &ev, 1, 0, &p));
	EXPECT_EQ((__u32)PMUCTL_R_TASK_BUSY, p.err_reason);
	EXPECT_EQ(-EBUSY, dev_program_task(fd2, &ev, 1, PMUCTL_PROGRAM_INHERIT, &p));
	EXPECT_EQ((__u32)PMUCTL_R_TASK_BUSY, p.err_reason);
	EXPECT_UNCHANGED(&self->before, false);
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
	EXPECT_EQ(0, dev_program_task(fd2, &ev, 1, 0, &p));
	/* close ends it too. */
	fd3 = dev_open();
	ASSERT_LE(0, fd3);
	EXPECT_EQ(-EBUSY, dev_program_task(fd3, &ev, 1, 0, &p));
	EXPECT_EQ((__u32)PMUCTL_R_TASK_BUSY, p.err_reason);
	close(fd2);
	EXPECT_EQ(0, dev_program_task(fd3, &ev, 1, 0, &p));
	close(fd3);
}

/* ---- sharing with CPU-scope sessions ------------------------------------------ */

TEST_F(task, task_counters_are_owner_task_everywhere_and_refused_to_cpu_scope)
{
	unsigned int n = cpus_possible(), c, k, i;
	struct tw *a = &self->tw[0];
	struct pmuctl_event cev[PMUCTL_MAX_GP], rsp;
	struct pmuctl_holding *h = calloc(n, sizeof(*h));
	struct pmuctl_program p;
	struct pmuctl_info in;
	int fds[2] = { self->fd, -1 };
	__u32 ngp = self->info.caps.nr_gp;
	__u64 last = 1ULL << (n - 1);

	ASSERT_NE(NULL, h);
	ASSERT_LE(ngp, (__u32)PMUCTL_MAX_GP);
	a->ev[0] = gp_ev(0, USR);
	a->ev[1] = ev_make(model_rsp0(self->info.pmu_model) | USR, REQ0 | ANYRSP, 0);
	a->n = 2;
	/*
	 * Pinned, and programmed but not started: its switch-ins then write
	 * nothing new while the registers are compared below (a running or
	 * migrating thread would change its counters or load them on a CPU
	 * it had not run on).
	 */
	ASSERT_EQ(0, tw_spawn(a, 0));
	ASSERT_EQ(0, tw_call(a, tw_open));
	ASSERT_EQ(0, tw_call(a, tw_program)) TH_LOG("reason %u", a->p.err_reason);
	EXPECT_U64(MSR_RSP0, a->ev[1].extra_msr);

	/* Seen from another session and from its own. */
	fds[1] = a->fd;
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, info_holdings(fds[i], h, n, &in));
		ASSERT_EQ(n, in.holdings_nr);
		for (c = 0; c < n; c++) {
			for (k = 0; k < PMUCTL_HOLDING_COUNTERS; k++) {
				bool task = k == own_idx(a->ev[0].counter) ||
					    k == own_idx(a->ev[1].counter);

				EXPECT_EQ(task ? PMUCTL_OWNER_TASK : 0U, h[c].owner[k]) {
					TH_LOG("session %u: cpu %u counter index %u", i, c, k);
				}
			}
		}
	}

	/* All generic counters, on CPU 0 or on the last CPU: refused. */
	for (i = 0; i < ngp; i++)
		cev[i] = gp_ev(i, USR);
	SNAP();
	EXPECT_EQ(-EBUSY, dev_program(self->fd, cev, ngp, 1, &p));
	EXPECT_EQ((__u32)PMUCTL_R_COUNTERS_BUSY, p.err_reason);
	EXPECT_EQ(-EBUSY, dev_program(self->fd, cev, ngp, last, &p));
	EXPECT_EQ((__u32)PMUCTL_R_COUNTERS_BUSY, p.err_reason);
	EXPECT_UNCHANGED(&self->before, false);

	/* Its OFFCORE_RSP_0 is not shared with a CPU-scope event either. */
	rsp = ev_make(model_rsp0(self->info.pmu_model) | USR, REQ0 | ANYRSP, 0);
	if (!dev_program(self->fd, &rsp, 1, 1, &p)) {
		EXPECT_NE((__u32)MSR_RSP0, rsp.extra_msr);
		EXPECT_NE(own_idx(a->ev[0].counter), own_idx(rsp.counter));
		EXPECT_NE(own_idx(a->ev[1].counter), own_idx(rsp.counter));
		ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
	}

	/* Released: CPU scope gets them all. */
	ASSERT_EQ(0, tw_call(a, tw_release));
	for (i = 0; i < ngp; i++)
		cev[i] = gp_ev(i, USR);
	EXPECT_EQ(0, dev_program(self->fd, cev, ngp, 1 | last, &p));
	free(h);
}

TEST_F(task, cpu_scope_counters_are_kept_from_task_sessions)
{
	unsigned int n = cpus_possible(), i;
	struct tw *a = &self->tw[0];
	struct pmuctl_event cev[PMUCTL_MAX_GP], one = gp_ev(0, USR);
	struct pmuctl_program p;
	__u32 ngp = self->info.caps.nr_gp;
	__u64 last = 1ULL << (n - 1);

	ASSERT_LE(2U, ngp);
	ASSERT_EQ(0, tw_spawn(a, -1));
	ASSERT_EQ(0, tw_call(a, tw_open));
	/* A CPU-scope counter on the last CPU only. */
	ASSERT_EQ(0, dev_program(self->fd, &one, 1, last, &p));
	a->ev[0] = gp_ev(0, USR);
	a->n = 1;
	ASSERT_EQ(0, tw_call(a, tw_program)) TH_LOG("reason %u", a->p.err_reason);
	EXPECT_NE(one.counter, a->ev[0].counter);
	ASSERT_EQ(0, tw_call(a, tw_release));
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));

	/* Every generic counter on CPU 0: none left anywhere for task scope. */
	for (i = 0; i < ngp; i++)
		cev[i] = gp_ev(i, USR);
	ASSERT_EQ(0, dev_program(self->fd, cev, ngp, 1, &p));
	a->ev[0] = gp_ev(0, USR);
	SNAP();
	EXPECT_EQ(-EBUSY, tw_call(a, tw_program));
	EXPECT_EQ((__u32)PMUCTL_R_COUNTERS_BUSY, a->p.err_reason);
	EXPECT_EQ(NO_CPU, a->p.err_cpu);
	EXPECT_EQ(0U, a->p.err_index);
	EXPECT_UNCHANGED(&self->before, false);
	/* A fixed counter is still free. */
	a->ev[0] = ev_make(EV_INST | USR, 0, 0);
	EXPECT_EQ(0, tw_call(a, tw_program)) TH_LOG("reason %u", a->p.err_reason);
}

TEST_F(task, task_sessions_of_two_threads_share_counters)
{
	struct tw *a = &self->tw[0], *b = &self->tw[1];
	struct pmuctl_event one = gp_ev(0, USR);
	struct pmuctl_program p;
	__u32 ngp = self->info.caps.nr_gp, i;

	ASSERT_LE(ngp, (__u32)PMUCTL_MAX_GP);
	for (i = 0; i < ngp; i++)
		a->ev[i] = b->ev[i] = gp_ev(i, USR);
	a->n = b->n = ngp;
	ASSERT_EQ(0, tw_spawn(a, -1));
	ASSERT_EQ(0, tw_spawn(b, -1));
	ASSERT_EQ(0, tw_call(a, tw_setup)) TH_LOG("reason %u", a->p.err_reason);
	/* Every generic counter is A's: B gets them too, at the same indices. */
	ASSERT_EQ(0, tw_call(b, tw_setup)) TH_LOG("reason %u", b->p.err_reason);
	for (i = 0; i < ngp; i++) {
		EXPECT_EQ(a->ev[i].counter, b->ev[i].counter) TH_LOG("event %u", i);
		EXPECT_GT(ngp, a->ev[i].counter);
	}
	/* CPU scope finds none. */
	EXPECT_EQ(-EBUSY, dev_program(self->fd, &one, 1, 1, &p));
	EXPECT_EQ((__u32)PMUCTL_R_COUNTERS_BUSY, p.err_reason);
	ASSERT_EQ(0, tw_call(a, tw_release));
	EXPECT_EQ(-EBUSY, dev_program(self->fd, &one, 1, 1, &p));
	ASSERT_EQ(0, tw_call(b, tw_release));
	EXPECT_EQ(0, dev_program(self->fd, &one, 1, 1, &p));
}

/* ---- context switches in the register model --------------------------------- */

/*
 * At each switch-in (this step's start): the last OFFCORE_RSP_0 write on
 * this CPU is this thread's value, written after its previous check, and
 * the last write of its event select has EN and its config.
 */
static int tw_check_switch_in(struct tw *w)
{
	static __thread struct plog lg;
	__u32 cpu = sched_getcpu(), sel = MSR_EVTSEL(w->ev[0].counter);
	unsigned long first;
	int i, j;

	if (log_read(&lg))
		return snprintf(w->msg, sizeof(w->msg), "no %s", DBG_LOG), -1;
	first = lg.writes - lg.n;
	i = log_last(&lg, cpu, MSR_RSP0);
	j = log_last(&lg, cpu, sel);
	if (i < 0 || first + i < w->seen)
		return snprintf(w->msg, sizeof(w->msg),
				"no OFFCORE_RSP_0 write on cpu %u since the last switch-in (writes %lu)",
				cpu, lg.writes), -1;
	if (lg.w[i].val != w->ev[0].extra || lg.w[i].err)
		return snprintf(w->msg, sizeof(w->msg),
				"cpu %u: last OFFCORE_RSP_0 write %#llx err %d, want %#llx",
				cpu, (unsigned long long)lg.w[i].val, lg.w[i].err,
				(unsigned long long)w->ev[0].extra), -1;
	if (j < 0 || first + j < w->seen)
		return snprintf(w->msg, sizeof(w->msg),
				"no write of %#x on cpu %u since the last switch-in",
				sel, cpu), -1;
	if (lg.w[j].val != (w->ev[0].config_used | EN))
		return snprintf(w->msg, sizeof(w->msg),
				"cpu %u: last %#x write %#llx, want %#llx", cpu, sel,
				(unsigned long long)lg.w[j].val,
				(unsigned long long)(w->ev[0].config_used | EN)), -1;
	w->seen = lg.writes;
	return 0;
}

TEST_F(task, offcore_values_and_event_selects_switch_with_their_threads)
{
	struct tw *a = &self->tw[0], *b = &self->tw[1];
	struct pregs rg;
	int cpu = switch_cpu(), r;
	unsigned int c, k;
	__u64 bits;

	NEED_REGS();
	a->ev[0] = ev_make(model_rsp0(self->info.pmu_model) | USR, REQ0 | ANYRSP, 0);
	b->ev[0] = ev_make(model_rsp0(self->info.pmu_model) | USR | OS, REQ1 | ANYRSP, 0);
	a->n = b->n = 1;
	ASSERT_EQ(0, tw_spawn(a, cpu));
	ASSERT_EQ(0, tw_spawn(b, cpu));
	ASSERT_EQ(0, tw_call(a, tw_setup)) TH_LOG("reason %u", a->p.err_reason);
	ASSERT_EQ(0, tw_call(b, tw_setup)) TH_LOG("reason %u", b->p.err_reason);
	/* Both on OFFCORE_RSP_0, with different values. */
	ASSERT_U64(MSR_RSP0, a->ev[0].extra_msr);
	ASSERT_U64(MSR_RSP0, b->ev[0].extra_msr);
	ASSERT_GT(self->info.caps.nr_gp, a->ev[0].counter);
	ASSERT_GT(self->info.caps.nr_gp, b->ev[0].counter);
	for (r = 0; r < ROUNDS; r++) {
		ASSERT_EQ(0, tw_call(a, tw_check_switch_in)) TH_LOG("A, round %d: %s", r, a->msg);
		ASSERT_EQ(0, tw_call(b, tw_check_switch_in)) TH_LOG("B, round %d: %s", r, b->msg);
	}
	/* Both switched out: their counters do not count on that CPU. */
	ASSERT_EQ(0, switched_out(cpu));
	ASSERT_EQ(0, regs_read(&rg));
	for (k = 0; k < 2; k++) {
		__u32 idx = (k ? b : a)->ev[0].counter;
		bool en = regs_get(&rg, cpu, MSR_EVTSEL(idx)) & EN;
		bool gl = regs_get(&rg, cpu, MSR_GLOBAL_CTRL) & (1ULL << idx);

		EXPECT_FALSE(en && gl) TH_LOG("counter %u enabled on cpu %d with no monitored thread there", idx, cpu);
	}
	ASSERT_EQ(0, tw_call(a, tw_release));
	ASSERT_EQ(0, tw_call(b, tw_release));
	ASSERT_EQ(0, regs_read(&rg));
	bits = (1ULL << a->ev[0].counter) | (1ULL << b->ev[0].counter);
	for (c = 0; c < cpus_possible(); c++) {
		EXPECT_U64(0, regs_get(&rg, c, MSR_EVTSEL(a->ev[0].counter)) & EN) TH_LOG("cpu %u", c);
		EXPECT_U64(0, regs_get(&rg, c, MSR_EVTSEL(b->ev[0].counter)) & EN) TH_LOG("cpu %u", c);
		EXPECT_U64(0, regs_get(&rg, c, MSR_GLOBAL_CTRL) & bits) TH_LOG("cpu %u", c);
	}
	tw_end(a);
	tw_end(b);
	EXPECT_EQ(0, state_wait_clean(2000));
}

/*
 * After a switch-in: the last write of the counter on this CPU went to
 * w->msr, without a fault, with w->want; the other address (A_PMC or
 * PMC) was not written at all; the register holds w->want.
 */
static int tw_check_restore(struct tw *w)
{
	static __thread struct plog lg;
	static __thread struct pregs rg;
	__u32 cpu = sched_getcpu(), idx = w->ev[0].counter;
	__u32 other = w->fw ? MSR_PMC(idx) : MSR_A_PMC(idx);
	unsigned long first;
	int i;

	if (log_read(&lg) || regs_read(&rg))
		return snprintf(w->msg, sizeof(w->msg), "no log or regs"), -1;
	first = lg.writes - lg.n;
	i = log_last(&lg, cpu, w->msr);
	if (i < 0 || first + i < w->seen)
		return snprintf(w->msg, sizeof(w->msg),
				"no write of %#x on cpu %u at the switch-in", w->msr, cpu), -1;
	if (lg.w[i].val != w->want || lg.w[i].err)
		return snprintf(w->msg, sizeof(w->msg),
				"cpu %u: %#x written %#llx err %d, want %#llx", cpu,
				w->msr, (unsigned long long)lg.w[i].val, lg.w[i].err,
				(unsigned long long)w->want), -1;
	i = log_last(&lg, cpu, other);
	if (i >= 0 && first + i >= w->seen)
		return snprintf(w->msg, sizeof(w->msg),
				"cpu %u: %#x written too (%#llx err %d)", cpu, other,
				(unsigned long long)lg.w[i].val, lg.w[i].err), -1;
	if (regs_get(&rg, cpu, MSR_PMC(idx)) != w->want)
		return snprintf(w->msg, sizeof(w->msg), "cpu %u: PMC%u holds %#llx", cpu,
				idx, (unsigned long long)regs_get(&rg, cpu, MSR_PMC(idx))), -1;
	w->seen = lg.writes;
	return 0;
}

static int tw_mark(struct tw *w)
{
	static __thread struct plog lg;

	if (log_read(&lg))
		return -1;
	w->seen = lg.writes;
	return 0;
}

TEST_F(task, counts_survive_switches_at_the_full_or_legacy_width)
{
	const struct pmuctl_info *in = &self->info;
	struct tw *t = &self->tw[0];
	__u64 val[PMUCTL_MAX_EVENTS], bm = bits_mask(in->task_bits);
	struct pmuctl_read r;
	int cpu = switch_cpu();
	__u32 idx;
	__u64 k1, k2;

	NEED_REGS();
	t->fw = full_width(in);
	t->ev[0] = gp_ev(0, USR);
	t->n = 1;
	ASSERT_EQ(0, tw_spawn(t, cpu));
	ASSERT_EQ(0, tw_call(t, tw_setup)) TH_LOG("reason %u", t->p.err_reason);
	idx = t->ev[0].counter;
	ASSERT_GT(in->caps.nr_gp, idx);
	t->msr = t->fw ? MSR_A_PMC(idx) : MSR_PMC(idx);
	/*
	 * The thread "counts" k1 events: above 32 bits with full-width
	 * writes; through the legacy MSR only a sign-extended 32-bit value
	 * can be set, 0x80000000 becomes 2^width - 2^31.
	 */
	t->arg = t->fw ? 0x123456789abcULL & gp_mask(in) : 0x80000000ULL;
	k1 = t->fw ? t->arg : legacy_kept(in, t->arg);
	ASSERT_EQ(0, tw_call(t, tw_preset));
	ASSERT_EQ(0, tw_call(t, tw_read_thread));
	EXPECT_U64(k1 & bm, t->val[0] & bm);
	/* Switched out: the totals are the saved count, whatever the register holds. */
	ASSERT_EQ(0, switched_out(cpu));
	ASSERT_EQ(0, dev_read_task(t->fd, 0, val, PMUCTL_MAX_EVENTS, &r));
	EXPECT_U64(k1, val[0]);
	EXPECT_EQ(1U, r.nr_threads);
	ASSERT_EQ(0, regs_preset(cpu, MSR_PMC(idx), 0x5a5a));
	ASSERT_EQ(0, dev_read_task(t->fd, 0, val, PMUCTL_MAX_EVENTS, &r));
	EXPECT_U64(k1, val[0]);

	/* Switched in: the saved count is written back, at the right address. */
	ASSERT_EQ(0, tw_call(t, tw_mark));
	/* A switch-out (the thread may not have blocked yet) and in. */
	ASSERT_EQ(0, switched_out(cpu));
	ASSERT_EQ(0, tw_call(t, tw_read_thread));
	t->want = t->fw ? k1 : legacy_kept(in, k1);
	ASSERT_EQ(0, tw_call(t, tw_check_restore)) TH_LOG("%s", t->msg);
	ASSERT_EQ(0, tw_call(t, tw_read_thread));
	EXPECT_U64(k1 & bm, t->val[0] & bm);

	/* 0x10 more events. */
	t->arg = t->fw ? k1 + 0x10 : 0x80000010ULL;
	k2 = k1 + 0x10;
	ASSERT_EQ(0, tw_call(t, tw_preset));
	ASSERT_EQ(0, dev_read_task(t->fd, 0, val, PMUCTL_MAX_EVENTS, &r));
	EXPECT_U64(k2, val[0]);
	EXPECT_LE(k1, val[0]);
	ASSERT_EQ(0, tw_call(t, tw_read_thread));
	EXPECT_U64(val[0] & bm, t->val[0] & bm);
	ASSERT_EQ(0, tw_call(t, tw_release));
}

/* In a monitored thread: the other group's counter reads 0, its own its count. */
static int tw_check_isolation(struct tw *w)
{
	static __thread struct pregs rg;
	__u32 cpu = sched_getcpu();
	__u64 other, mine;

	if (regs_read(&rg))
		return snprintf(w->msg, sizeof(w->msg), "no regs"), -1;
	other = regs_get(&rg, cpu, MSR_PMC(w->other));
	mine = regs_get(&rg, cpu, MSR_PMC(w->ev[0].counter));
	w->sig = rdpmc_probe(w->other);
	if (other)
		return snprintf(w->msg, sizeof(w->msg),
				"cpu %u: the other group's PMC%u holds %#llx",
				cpu, w->other, (unsigned long long)other), -1;
	if (mine != w->arg)
		return snprintf(w->msg, sizeof(w->msg), "cpu %u: own PMC%u holds %#llx",
				cpu, w->ev[0].counter, (unsigned long long)mine), -1;
	return 0;
}

TEST_F(task, rdpmc_shows_other_task_sessions_counters_as_zero)
{
	struct tw *a = &self->tw[0], *b = &self->tw[1], *c = &self->tw[2];
	int cpu = switch_cpu();
	__u32 ngp = self->info.caps.nr_gp, i;

	NEED_REGS();
	NEED_GRANTS();
	ASSERT_LE(2U, ngp);
	/* B holds every generic counter, A one of them. */
	for (i = 0; i < ngp; i++)
		b->ev[i] = gp_ev(i, USR);
	b->n = ngp;
	a->ev[0] = gp_ev(0, USR);
	a->n = 1;
	ASSERT_EQ(0, tw_spawn(a, cpu));
	ASSERT_EQ(0, tw_spawn(b, cpu));
	ASSERT_EQ(0, tw_call(b, tw_setup)) TH_LOG("reason %u", b->p.err_reason);
	ASSERT_EQ(0, tw_call(a, tw_setup)) TH_LOG("reason %u", a->p.err_reason);
	a->other = b->ev[0].counter == a->ev[0].counter ? b->ev[1].counter :
							    b->ev[0].counter;
	/* Each "counts" in its own counters. */
	a->arg = 0x123;
	a->msr = MSR_PMC(a->ev[0].counter);
	ASSERT_EQ(0, tw_call(a, tw_preset));
	b->arg = 0x777;
	for (i = 0; i < ngp; i++) {
		b->msr = MSR_PMC(b->ev[i].counter);
		ASSERT_EQ(0, tw_call(b, tw_preset));
	}
	/* B switched out, A in: B's counter reads 0, A's its count. */
	ASSERT_EQ(0, tw_call(a, tw_check_isolation)) TH_LOG("%s", a->msg);
	EXPECT_TRUE(rdpmc_granted(a->sig)) TH_LOG("rdpmc in A: signal %d", a->sig);
	/* A thread without a session, on that CPU after them: no rdpmc. */
	ASSERT_EQ(0, tw_spawn(c, cpu));
	c->arg = 0;
	ASSERT_EQ(0, tw_call(c, tw_probe));
	EXPECT_EQ(SIGSEGV, c->sig);
	EXPECT_EQ(SIGSEGV, rdpmc_probe(0)) TH_LOG("the test's own thread");
	/* Still granted in A after that. */
	ASSERT_EQ(0, tw_call(a, tw_probe));
	EXPECT_TRUE(rdpmc_granted(a->sig)) TH_LOG("rdpmc in A: signal %d", a->sig);
}

/* ---- unprivileged sessions ------------------------------------------------- */

#define NSLOT 8

struct box {
	int err[NSLOT];
	__u32 reason[NSLOT];
	int sig[NSLOT];
	__u32 counter;
	struct pmuctl_info info;
};

static struct box *box;

/* Run @fn in a child, as nobody when @drop; 0 if it ran to its end. */
static int as_child(bool drop, void (*fn)(void *), void *arg)
{
	memset(box, 0, sizeof(*box));
	return child_run(drop, fn, arg);
}

static void slot_program(int fd, unsigned int s, __u64 config, bool task)
{
	struct pmuctl_event ev = ev_make(config, 0, 0);
	struct pmuctl_program p;

	box->err[s] = task ? dev_program_task(fd, &ev, 1, 0, &p) :
			     dev_program(fd, &ev, 1, 1, &p);
	box->reason[s] = p.err_reason;
	if (!box->err[s])
		dev_ctl(fd, PMUCTL_IOC_RELEASE);
}

/*
 * err[0] open, err[1] INFO; task scope: err[2] user mode, err[3] kernel
 * mode, err[4] AnyThread; err[5] CPU scope, user mode.
 */
static void child_levels(void *arg)
{
	int fd = dev_open();

	(void)arg;
	box->err[0] = fd < 0 ? fd : 0;
	if (fd < 0)
		return;
	box->err[1] = dev_info(fd, &box->info);
	slot_program(fd, 2, USR | EV_INST, true);
	slot_program(fd, 3, USR | OS | EV_INST, true);
	/* INST_RETIRED.ANY may use AnyThread on fixed 0 on every model here. */
	slot_program(fd, 4, USR | ANY | EV_INST, true);
	slot_program(fd, 5, USR | EV_INST, false);
	close(fd);
}

#define EXPECT_SLOT(s, e, r) do {					\
	EXPECT_EQ(e, box->err[s]) TH_LOG("slot %d: reason %u", s, box->reason[s]); \
	if (e)								\
		EXPECT_EQ((__u32)(r), box->reason[s]) TH_LOG("slot %d", s); \
} while (0)

/*
 * A slot whose event asks for AnyThread, where privilege allows it: taken
 * where the model has AnyThread, refused by the model's rule where CPUID
 * deprecates it (Ice Lake and later), to root too.
 */
#define EXPECT_SLOT_ANY(i) do {						\
	if (box->info.caps.flags & PMUCTL_CAP_ANY_THREAD)		\
		EXPECT_SLOT(i, 0, 0);					\
	else								\
		EXPECT_SLOT(i, -EINVAL, PMUCTL_R_ANY_NOT_ALLOWED);	\
} while (0)

TEST_F(task, unprivileged_task_scope_follows_the_paranoid_levels)
{
	ASSERT_NE(NULL, box);
	ASSERT_EQ(0, access(P_PARANOID, W_OK));
	ASSERT_EQ(0, chmod(DEV_PATH, 0666));
	ASSERT_EQ(0, write_str(P_RDPMC, "1"));

	ASSERT_EQ(0, write_str(P_PARANOID, "2"));
	ASSERT_EQ(0, as_child(true, child_levels, NULL));
	ASSERT_EQ(0, box->err[0]);
	EXPECT_EQ(0, box->err[1]);
	EXPECT_EQ((__u32)PMUCTL_SESSION_UNPRIV, box->info.session_flags);
	EXPECT_EQ((__u32)PMUCTL_RDPMC_TASK, box->info.rdpmc);
	EXPECT_SLOT(2, 0, 0);
	EXPECT_SLOT(3, -EACCES, PMUCTL_R_UNPRIV_KERNEL_MODE);
	EXPECT_SLOT(4, -EACCES, PMUCTL_R_UNPRIV_ANY_THREAD);
	EXPECT_SLOT(5, -EACCES, PMUCTL_R_UNPRIV_CPU_SCOPE);
	EXPECT_EQ(0, state_wait_clean(2000));

	ASSERT_EQ(0, write_str(P_PARANOID, "1"));
	ASSERT_EQ(0, as_child(true, child_levels, NULL));
	ASSERT_EQ(0, box->err[0]);
	EXPECT_SLOT(2, 0, 0);
	EXPECT_SLOT(3, 0, 0);
	EXPECT_SLOT(4, -EACCES, PMUCTL_R_UNPRIV_ANY_THREAD);
	EXPECT_SLOT(5, -EACCES, PMUCTL_R_UNPRIV_CPU_SCOPE);

	ASSERT_EQ(0, write_str(P_PARANOID, "0"));
	ASSERT_EQ(0, as_child(true, child_levels, NULL));
	ASSERT_EQ(0, box->err[0]);
	EXPECT_SLOT(3, 0, 0);
	EXPECT_SLOT_ANY(4);
	EXPECT_SLOT(5, 0, 0);

	ASSERT_EQ(0, write_str(P_PARANOID, "3"));
	ASSERT_EQ(0, as_child(true, child_levels, NULL));
	EXPECT_EQ(-EPERM, box->err[0]);

	/* rdpmc=0: no rdpmc for anyone, unprivileged task scope included. */
	ASSERT_EQ(0, write_str(P_PARANOID, "2"));
	ASSERT_EQ(0, write_str(P_RDPMC, "0"));
	ASSERT_EQ(0, as_child(true, child_levels, NULL));
	ASSERT_EQ(0, box->err[0]);
	EXPECT_EQ((__u32)PMUCTL_RDPMC_NONE, box->info.rdpmc);
	EXPECT_SLOT(2, 0, 0);
	/* Root's sessions are privileged at every level. */
	ASSERT_EQ(0, as_child(false, child_levels, NULL));
	EXPECT_EQ(0U, box->info.session_flags);
	EXPECT_SLOT(3, 0, 0);
	EXPECT_SLOT_ANY(4);
	EXPECT_EQ(0, state_wait_clean(2000));
}

/*
 * Task scope, then rdpmc on CPU 0 (no CPU-scope session: sig[0]), on
 * CPU 1 (the test's CPU-scope session holds a counter there: sig[1]),
 * on CPU 0 again (sig[2]); sig[3]: before PROGRAM.
 */
static void child_grant(void *arg)
{
	struct pmuctl_event ev = ev_make(USR | EV_BR, 0, GONLY);
	struct pmuctl_program p;
	int fd = dev_open();

	(void)arg;
	box->err[0] = fd < 0 ? fd : 0;
	if (fd < 0)
		return;
	box->err[1] = dev_info(fd, &box->info);
	box->err[2] = pin_cpu(0);
	box->sig[3] = rdpmc_probe(0);
	box->err[3] = dev_program_task(fd, &ev, 1, 0, &p);
	box->reason[3] = p.err_reason;
	box->sig[0] = rdpmc_probe(ev.counter);
	box->err[4] = pin_cpu(1);
	box->sig[1] = rdpmc_probe(ev.counter);
	box->err[5] = pin_cpu(0);
	box->sig[2] = rdpmc_probe(ev.counter);
	close(fd);
}

TEST_F(task, unprivileged_rdpmc_only_where_no_cpu_scope_session_holds_counters)
{
	struct pmuctl_event cev = ev_make(USR | EV_CYCLES, 0, 0);
	struct pmuctl_program p;

	ASSERT_NE(NULL, box);
	NEED_GRANTS();
	if (cpus_online() < 2)
		SKIP(return, "needs 2 online CPUs");
	ASSERT_EQ(0, chmod(DEV_PATH, 0666));
	ASSERT_EQ(0, write_str(P_RDPMC, "1"));
	ASSERT_EQ(0, write_str(P_PARANOID, "2"));
	/* Root's CPU-scope session holds fixed 1 on CPU 1. */
	ASSERT_EQ(0, dev_program(self->fd, &cev, 1, 2, &p));

	ASSERT_EQ(0, as_child(true, child_grant, NULL));
	ASSERT_EQ(0, box->err[0]);
	EXPECT_EQ((__u32)PMUCTL_RDPMC_TASK, box->info.rdpmc);
	ASSERT_EQ(0, box->err[2]);
	ASSERT_EQ(0, box->err[3]) TH_LOG("reason %u", box->reason[3]);
	ASSERT_EQ(0, box->err[4]);
	ASSERT_EQ(0, box->err[5]);
	EXPECT_EQ(SIGSEGV, box->sig[3]) TH_LOG("before PROGRAM");
	EXPECT_TRUE(rdpmc_granted(box->sig[0])) TH_LOG("CPU 0: signal %d", box->sig[0]);
	EXPECT_EQ(SIGSEGV, box->sig[1]) TH_LOG("CPU 1, with a CPU-scope session there");
	EXPECT_TRUE(rdpmc_granted(box->sig[2])) TH_LOG("CPU 0 again: signal %d", box->sig[2]);

	/* A privileged task session keeps rdpmc on CPU 1 too. */
	ASSERT_EQ(0, as_child(false, child_grant, NULL));
	ASSERT_EQ(0, box->err[3]);
	EXPECT_TRUE(rdpmc_granted(box->sig[0])) TH_LOG("root, CPU 0: signal %d", box->sig[0]);
	EXPECT_TRUE(rdpmc_granted(box->sig[1])) TH_LOG("root, CPU 1: signal %d", box->sig[1]);

	/* Released: nothing on CPU 1 keeps the unprivileged thread out. */
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
	ASSERT_EQ(0, as_child(true, child_grant, NULL));
	ASSERT_EQ(0, box->err[3]);
	EXPECT_TRUE(rdpmc_granted(box->sig[1])) TH_LOG("CPU 1, free: signal %d", box->sig[1]);
}

/*
 * A task-scope thread of nobody on CPU 1 (err[0] pin, err[1] open,
 * err[2] PROGRAM, err[3] START): it sleeps, so that it is switched in
 * again with its grant, probes rdpmc of its counter (sig[0]), tells the
 * test through ready[1] and waits for go[0] to close.
 */
struct stale_child {
	int ready[2], go[2];
};

static void child_granted_on_cpu1(void *arg)
{
	struct stale_child *c = arg;
	struct pmuctl_event ev = ev_make(USR | EV_BR, 0, GONLY);
	struct pmuctl_program p;
	char b = 'r';
	int fd;

	close(c->ready[0]);
	close(c->go[1]);
	box->err[0] = pin_cpu(1);
	fd = dev_open();
	box->err[1] = fd < 0 ? fd : 0;
	if (fd >= 0) {
		box->err[2] = dev_program_task(fd, &ev, 1, 0, &p);
		box->reason[2] = p.err_reason;
		box->counter = ev.counter;
	}
	if (fd >= 0 && !box->err[2])
		box->err[3] = dev_ctl(fd, PMUCTL_IOC_START);
	usleep(20000);
	box->sig[0] = box->err[2] ? SIGSEGV : rdpmc_probe(box->counter);
	if (write(c->ready[1], &b, 1) != 1)
		return;
	while (read(c->go[0], &b, 1) > 0)
		;
	if (fd >= 0)
		close(fd);
}

/*
 * Before a thread runs with the CR4.PCE pmuctl sets, every counter it can
 * address holds 0 or its own count.  Root's CPU-scope group holds every
 * counter of CPU 1 with "counts" in them (preset through pmuctl/regs) when
 * CPU 1 goes offline; root RELEASEs while it is away, and CPU 1 comes back
 * holding nothing.  A task-scope thread of nobody, granted rdpmc there,
 * runs on CPU 1; then every counter register of CPU 1 but its own must
 * read 0 (rdpmc would return what the register holds: the register model
 * keeps a CPU's registers across offline and online, as INIT keeps them
 * on silicon [SDM vol. 3A, Table 9-1]).
 */
TEST_F(task, granted_thread_finds_zero_in_counters_a_release_left_on_its_offline_cpu)
{
	struct pmuctl_event ev[PMUCTL_MAX_GP + PMUCTL_MAX_FIXED];
	static const __u64 fixed_cfg[] = { EV_INST, EV_CYCLES, EV_REF };
	const struct pmuctl_info *in = &self->info;
	static struct pregs rg;
	struct stale_child c;
	struct pmuctl_program p;
	__u32 ngp = in->caps.nr_gp, n = 0, i, msr, own;
	__u64 want, got;
	const char *why;
	int status;
	pid_t pid;
	char b;

	NEED_REGS();
	NEED_GRANTS();
	ASSERT_NE(NULL, box);
	why = hotplug_unfit(2);
	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, state_wait_clean(2000));
	ASSERT_EQ(0, regs_zero_all());
	ASSERT_EQ(0, pin_cpu(0));
	/* Root holds every generic and fixed counter of CPU 1, running. */
	for (i = 0; i < ngp && i < PMUCTL_MAX_GP; i++)
		ev[n++] = gp_ev(i, USR);
	for (i = 0; i < ARRAY_SIZE(fixed_cfg); i++)
		if (in->caps.fixed_mask & (1U << i))
			ev[n++] = ev_make(fixed_cfg[i] | USR, 0, 0);
	ASSERT_EQ(0, dev_program(self->fd, ev, n, 2, &p)) TH_LOG("reason %u", p.err_reason);
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_START));
	/* Their "counts". */
	for (i = 0; i < n; i++) {
		msr = ev[i].counter & PMUCTL_COUNTER_FIXED ?
		      MSR_FIXED_CTR(ev[i].counter & 0xffff) : MSR_PMC(ev[i].counter);
		ASSERT_EQ(0, regs_preset(1, msr, 0x1000 + i));
	}
	ASSERT_EQ(0, regs_read(&rg));
	for (i = 0; i < n; i++) {
		msr = ev[i].counter & PMUCTL_COUNTER_FIXED ?
		      MSR_FIXED_CTR(ev[i].counter & 0xffff) : MSR_PMC(ev[i].counter);
		ASSERT_U64(0x1000 + i, regs_get(&rg, 1, msr)) TH_LOG("msr %#x", msr);
	}

	/* CPU 1 away, root's group released, CPU 1 back: it holds nothing. */
	ASSERT_EQ(0, cpu_set_online(1, false));
	self->cpu1_offline = true;
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
	ASSERT_EQ(0, cpu_set_online(1, true));
	self->cpu1_offline = false;
	ASSERT_EQ(0, state_wait_clean(2000));

	/* nobody's task-scope thread, granted rdpmc, runs on CPU 1. */
	ASSERT_EQ(0, chmod(DEV_PATH, 0666));
	ASSERT_EQ(0, write_str(P_RDPMC, "1"));
	ASSERT_EQ(0, write_str(P_PARANOID, "2"));
	memset(box, 0, sizeof(*box));
	ASSERT_EQ(0, pipe(c.ready));
	ASSERT_EQ(0, pipe(c.go));
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(2);
		child_granted_on_cpu1(&c);
		_exit(0);
	}
	close(c.ready[1]);
	close(c.go[0]);
	EXPECT_EQ(1, read(c.ready[0], &b, 1));
	/* Switched out now, blocked on go: its CPU's registers as it left them. */
	EXPECT_EQ(0, regs_read(&rg));
	close(c.go[1]);
	close(c.ready[0]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) TH_LOG("status %#x", status);
	ASSERT_EQ(0, box->err[0]);
	ASSERT_EQ(0, box->err[1]);
	ASSERT_EQ(0, box->err[2]) TH_LOG("PROGRAM_TASK: reason %u", box->reason[2]);
	ASSERT_EQ(0, box->err[3]);
	/* The uapi grants it rdpmc: no CPU-scope session holds CPU 1. */
	ASSERT_TRUE(rdpmc_granted(box->sig[0])) TH_LOG("rdpmc: signal %d", box->sig[0]);
	own = box->counter;
	for (i = 0; i < ngp + PMUCTL_MAX_FIXED; i++) {
		bool fixed = i >= ngp;
		__u32 idx = fixed ? i - ngp : i;

		if (fixed && !(in->caps.fixed_mask & (1U << idx)))
			continue;
		if ((fixed ? FIXED(idx) : idx) == own)
			continue;
		msr = fixed ? MSR_FIXED_CTR(idx) : MSR_PMC(idx);
		got = regs_get(&rg, 1, msr);
		want = 0;
		if (got == ~0ULL)
			continue;	/* the model has no such register */
		EXPECT_U64(want, got) {
			TH_LOG("cpu 1 %s counter %u (msr %#x), the granted thread's is %#x: it reads root's released count",
			       fixed ? "fixed" : "generic", idx, msr, own);
		}
	}
	EXPECT_EQ(0, state_wait_clean(2000));
	EXPECT_EQ(0, regs_zero_all());
}

/* ---- inheritance ------------------------------------------------------------ */

struct gate {
	int go[2];		/* closed by the test: everyone exits */
	int up[2];		/* one byte per thread or child that started */
};

static int gate_init(struct gate *g)
{
	if (pipe(g->go))
		return -errno;
	if (pipe(g->up))
		return -errno;
	return 0;
}

static void gate_wait(struct gate *g)
{
	char c = 'u';

	if (write(g->up[1], &c, 1) != 1)
		return;
	while (read(g->go[0], &c, 1) > 0)
		;
}

static void *gate_thread(void *arg)
{
	gate_wait(arg);
	return NULL;
}

/* Wait for @n starters. */
static int gate_up(struct gate *g, unsigned int n)
{
	char c;

	while (n--)
		if (read(g->up[0], &c, 1) != 1)
			return -1;
	return 0;
}

static void gate_close(struct gate *g)
{
	if (g->go[1] >= 0)
		close(g->go[1]);
	g->go[1] = -1;
}

static pid_t gate_fork(struct gate *g)
{
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (!pid) {
		close(g->go[1]);
		gate_wait(g);
		_exit(0);
	}
	return pid;
}

static int tw_program_own(struct tw *w)
{
	int ret = tw_open(w);

	return ret ? ret : tw_program(w);
}

/*
 * With INHERIT, a thread the programming thread creates afterwards is
 * counted and gets rdpmc when it asks; one created before is neither.
 */
TEST_F(task, inherited_threads_of_the_process_get_rdpmc_when_they_ask)
{
	struct pmuctl_event ev = ev_make(EV_INST | USR, 0, 0);
	struct tw *before = &self->tw[0], *after = &self->tw[1];
	struct pmuctl_program p;

	if (self->info.rdpmc == PMUCTL_RDPMC_NONE)
		SKIP(return, "the module grants no rdpmc (parameter rdpmc=0)");
	ASSERT_EQ(0, tw_spawn(before, -1));
	ASSERT_EQ(0, dev_program_task(self->fd, &ev, 1, PMUCTL_PROGRAM_INHERIT, &p));
	ASSERT_EQ(0, tw_spawn(after, -1));
	before->fd = after->fd = self->fd;
	before->arg = after->arg = ev.counter;

	/* Counted, not granted yet: rdpmc faults until it asks. */
	EXPECT_EQ(0, tw_call(after, tw_read_thread));
	EXPECT_EQ(0, tw_call(after, tw_probe));
	EXPECT_FALSE(rdpmc_granted(after->sig));
	EXPECT_EQ(0, tw_call(after, tw_rdpmc_ioctl));
	EXPECT_EQ(0, tw_call(after, tw_probe));
	EXPECT_TRUE(rdpmc_granted(after->sig)) TH_LOG("signal %d", after->sig);
	/* Asking again is fine. */
	EXPECT_EQ(0, tw_call(after, tw_rdpmc_ioctl));

	EXPECT_EQ(-ESRCH, tw_call(before, tw_read_thread));
	EXPECT_EQ(-EPERM, tw_call(before, tw_rdpmc_ioctl));
	EXPECT_EQ(0, tw_call(before, tw_probe));
	EXPECT_FALSE(rdpmc_granted(before->sig));

	/* RELEASE ends the grant of the inherited thread too. */
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
	EXPECT_EQ(0, tw_call(after, tw_probe));
	EXPECT_FALSE(rdpmc_granted(after->sig));
	before->fd = after->fd = -1;
}

/* Set in the exec'd image of a_counted_process_gets_rdpmc_after_its_exec. */
#define EXEC_GRANT_ENV	"PMUCTL_TASK_TEST_EXEC_GRANT"

/*
 * In that image: "FD,ECX" in the variable.  Exit bits: 1 rdpmc ran
 * before the image asked, 2 the session does not count it (READ_THREAD),
 * 4 RDPMC refused, 8 rdpmc still faults after it.
 */
static void __attribute__((constructor)) exec_grant_probe(void)
{
	const char *env = getenv(EXEC_GRANT_ENV);
	__u64 v[PMUCTL_MAX_EVENTS];
	struct pmuctl_read r;
	unsigned int ecx;
	int fd, bits = 0;

	if (!env)
		return;
	if (sscanf(env, "%d,%u", &fd, &ecx) != 2)
		_exit(100);
	if (rdpmc_granted(rdpmc_probe(ecx)))
		bits |= 1;
	if (dev_read_task(fd, PMUCTL_READ_THREAD, v, PMUCTL_MAX_EVENTS, &r))
		bits |= 2;
	if (dev_ctl(fd, PMUCTL_IOC_RDPMC))
		bits |= 4;
	else if (!rdpmc_granted(rdpmc_probe(ecx)))
		bits |= 8;
	_exit(bits);
}

/*
 * A process the session counts (forked after PROGRAM with INHERIT, then
 * exec'ing a dumpable image, as "pmuctl stat --regions" runs its command)
 * gets rdpmc for its threads when they ask, as the programming process's
 * threads do: the grant follows the counted threads, not the address
 * space that programmed.
 */
TEST_F(task, a_counted_process_gets_rdpmc_after_its_exec)
{
	struct pmuctl_event ev = ev_make(EV_INST | USR, 0, 0);
	struct pmuctl_program p;
	int status;
	pid_t pid;

	if (self->info.rdpmc == PMUCTL_RDPMC_NONE)
		SKIP(return, "the module grants no rdpmc (parameter rdpmc=0)");
	ASSERT_EQ(0, dev_program_task(self->fd, &ev, 1, PMUCTL_PROGRAM_INHERIT, &p));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		char *argv[] = { "task_test", NULL };
		char env[64];

		snprintf(env, sizeof(env), "%d,%u", self->fd, ev.counter);
		if (fcntl(self->fd, F_SETFD, 0) || setenv(EXEC_GRANT_ENV, env, 1))
			_exit(101);
		execv("/proc/self/exe", argv);
		_exit(102);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status)) TH_LOG("status %#x", status);
	EXPECT_EQ(0, WEXITSTATUS(status)) {
		TH_LOG("exit %d: 1 rdpmc before asking, 2 not counted, 4 RDPMC refused, 8 rdpmc faults after RDPMC, 100+ setup",
		       WEXITSTATUS(status));
	}
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
}

TEST_F(task, inherit_counts_threads_and_children_until_they_exit)
{
	struct pmuctl_event ev = ev_make(EV_INST | USR, 0, 0);
	struct tw *w = &self->tw[0];
	struct pmuctl_program p;
	struct pmuctl_read r;
	__u64 val[PMUCTL_MAX_EVENTS];
	pthread_t t[4];
	struct gate g;
	int i, status, ex[2];
	pid_t pid;

	ASSERT_EQ(0, dev_program_task(self->fd, &ev, 1, PMUCTL_PROGRAM_INHERIT, &p));
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_START));
	EXPECT_EQ(1U, wait_nr_threads(self->fd, 1, 0));
	ASSERT_EQ(0, gate_init(&g));
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, gate_thread, &g));
	pid = gate_fork(&g);
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, gate_up(&g, 5));
	EXPECT_EQ(6U, wait_nr_threads(self->fd, 6, 2000));
	ASSERT_EQ(0, read_totals(self->fd, val, &r));
	EXPECT_EQ(0U, r.nr_lost);

	/* An inherited thread is the session's target: TASK_BUSY for its own. */
	w->ev[0] = ev;
	w->n = 1;
	ASSERT_EQ(0, tw_spawn(w, -1));
	EXPECT_EQ(7U, wait_nr_threads(self->fd, 7, 2000));
	EXPECT_EQ(-EBUSY, tw_call(w, tw_program_own));
	EXPECT_EQ((__u32)PMUCTL_R_TASK_BUSY, w->p.err_reason);
	tw_end(w);

	gate_close(&g);
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(1U, wait_nr_threads(self->fd, 1, 2000));

	/* kill -9 of a counted child. */
	ASSERT_EQ(0, gate_init(&g));
	pid = gate_fork(&g);
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, gate_up(&g, 1));
	EXPECT_EQ(2U, wait_nr_threads(self->fd, 2, 2000));
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(1U, wait_nr_threads(self->fd, 1, 2000));
	gate_close(&g);

	/* A child that execs (not set-user-ID) stays counted. */
	ASSERT_EQ(0, access("/bin/sleep", X_OK));
	ASSERT_EQ(0, pipe2(ex, O_CLOEXEC));
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		execl("/bin/sleep", "sleep", "30", (char *)NULL);
		_exit(127);
	}
	close(ex[1]);
	/* EOF: the exec closed the other end. */
	while (read(ex[0], &i, sizeof(i)) > 0)
		;
	close(ex[0]);
	usleep(100000);
	EXPECT_EQ(2U, wait_nr_threads(self->fd, 2, 2000));
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status)) TH_LOG("the exec failed: status %#x", status);
	EXPECT_EQ(1U, wait_nr_threads(self->fd, 1, 2000));
	ASSERT_EQ(0, read_totals(self->fd, val, &r));
	EXPECT_EQ(0U, r.nr_lost);
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
	EXPECT_EQ(0, state_wait_clean(2000));
}

TEST_F(task, task_max_threads_bounds_the_counted_threads)
{
	struct pmuctl_event ev = ev_make(EV_INST | USR, 0, 0);
	struct pmuctl_program p;
	struct pmuctl_read r;
	__u64 val[PMUCTL_MAX_EVENTS];
	pthread_t t[4];
	struct gate g;
	int i, status;
	pid_t pid;

	ASSERT_EQ(0, access(P_MAXTHREADS, W_OK)) {
		TH_LOG("no writable %s", P_MAXTHREADS);
	}
	ASSERT_NE(NULL, self->max_threads);
	EXPECT_STREQ("4096", self->max_threads);
	ASSERT_EQ(0, write_str(P_MAXTHREADS, "3"));
	ASSERT_EQ(0, dev_program_task(self->fd, &ev, 1, PMUCTL_PROGRAM_INHERIT, &p));
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_START));
	ASSERT_EQ(0, gate_init(&g));
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, gate_thread, &g));
	pid = gate_fork(&g);
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, gate_up(&g, 5));
	ASSERT_EQ(0, read_totals(self->fd, val, &r));
	EXPECT_EQ(3U, r.nr_threads);
	EXPECT_EQ(3U, r.nr_lost);
	gate_close(&g);
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(1U, wait_nr_threads(self->fd, 1, 2000));
	ASSERT_EQ(0, read_totals(self->fd, val, &r));
	EXPECT_EQ(3U, r.nr_lost);
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
	EXPECT_EQ(0, state_wait_clean(2000));
}

/* ---- io_uring's io-wq workers (create_io_thread()) ------------------------ */

/*
 * A ring of one entry, set up with raw system calls (no liburing): its
 * fd, and the SQ/CQ rings and SQE array mapped.
 */
struct uring {
	int fd;
	struct io_uring_params p;
	void *sq, *cq;
	size_t sq_len, cq_len;
	struct io_uring_sqe *sqes;
	size_t sqes_len;
};

static void uring_close(struct uring *u)
{
	if (u->sqes && u->sqes != MAP_FAILED)
		munmap(u->sqes, u->sqes_len);
	if (u->cq && u->cq != MAP_FAILED && u->cq != u->sq)
		munmap(u->cq, u->cq_len);
	if (u->sq && u->sq != MAP_FAILED)
		munmap(u->sq, u->sq_len);
	if (u->fd >= 0)
		close(u->fd);
	memset(u, 0, sizeof(*u));
	u->fd = -1;
}

/* io_uring_setup(2) with @flags (IORING_SETUP_*) and the three mappings; 0 or -errno. */
static int uring_open(struct uring *u, __u32 flags)
{
	memset(u, 0, sizeof(*u));
	u->p.flags = flags;
	u->p.sq_thread_idle = 1000;	/* SQPOLL: ms before its thread sleeps */
	u->fd = syscall(__NR_io_uring_setup, 1, &u->p);
	if (u->fd < 0) {
		u->fd = -1;
		return -errno;
	}
	u->sq_len = u->p.sq_off.array + u->p.sq_entries * sizeof(__u32);
	u->cq_len = u->p.cq_off.cqes +
		    u->p.cq_entries * sizeof(struct io_uring_cqe);
	if (u->p.features & IORING_FEAT_SINGLE_MMAP)
		u->sq_len = u->cq_len = u->sq_len > u->cq_len ? u->sq_len : u->cq_len;
	u->sq = mmap(NULL, u->sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		     u->fd, IORING_OFF_SQ_RING);
	if (u->sq == MAP_FAILED)
		goto fail;
	u->cq = u->p.features & IORING_FEAT_SINGLE_MMAP ? u->sq :
		mmap(NULL, u->cq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		     u->fd, IORING_OFF_CQ_RING);
	if (u->cq == MAP_FAILED)
		goto fail;
	u->sqes_len = u->p.sq_entries * sizeof(struct io_uring_sqe);
	u->sqes = mmap(NULL, u->sqes_len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, u->fd, IORING_OFF_SQES);
	if (u->sqes == MAP_FAILED)
		goto fail;
	return 0;
fail:
	{
		int err = -errno;

		uring_close(u);
		return err;
	}
}

#define URING_AT(base, off)	((__u32 *)((char *)(base) + (off)))

/*
 * One IORING_OP_NOP with IOSQE_ASYNC: io_uring hands it to io-wq, which
 * has no worker yet and makes one with create_io_thread() in the
 * submitting thread (io_wq_enqueue(), io_wq_create_worker(),
 * create_io_worker()).  Waits for its completion; its result or -errno.
 */
static int uring_nop_async(struct uring *u)
{
	__u32 *sq_tail = URING_AT(u->sq, u->p.sq_off.tail);
	__u32 sq_mask = *URING_AT(u->sq, u->p.sq_off.ring_mask);
	__u32 *array = URING_AT(u->sq, u->p.sq_off.array);
	__u32 *cq_head = URING_AT(u->cq, u->p.cq_off.head);
	__u32 *cq_tail = URING_AT(u->cq, u->p.cq_off.tail);
	__u32 cq_mask = *URING_AT(u->cq, u->p.cq_off.ring_mask);
	struct io_uring_cqe *cqes = (void *)((char *)u->cq + u->p.cq_off.cqes);
	__u32 tail = *sq_tail, head;
	struct io_uring_sqe *sqe = &u->sqes[tail & sq_mask];
	int ret;

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_NOP;
	sqe->flags = IOSQE_ASYNC;
	sqe->user_data = 0x1234;
	array[tail & sq_mask] = tail & sq_mask;
	__atomic_store_n(sq_tail, tail + 1, __ATOMIC_RELEASE);
	ret = syscall(__NR_io_uring_enter, u->fd, 1, 1, IORING_ENTER_GETEVENTS,
		      NULL, 0);
	if (ret < 0)
		return -errno;
	if (ret != 1)
		return -EIO;
	head = *cq_head;
	if (head == __atomic_load_n(cq_tail, __ATOMIC_ACQUIRE))
		return -ENODATA;
	ret = cqes[head & cq_mask].user_data == 0x1234 ? cqes[head & cq_mask].res : -EPROTO;
	__atomic_store_n(cq_head, head + 1, __ATOMIC_RELEASE);
	return ret;
}

/* The tid of a thread of this process named @prefix..., or 0 (up to @ms). */
static pid_t thread_named(const char *prefix, unsigned int ms)
{
	unsigned int t;

	for (t = 0;; t += 10) {
		DIR *d = opendir("/proc/self/task");
		struct dirent *e;
		pid_t found = 0;

		while (d && !found && (e = readdir(d))) {
			char path[300], *comm;

			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
			comm = slurp(path);
			if (comm && !strncmp(comm, prefix, strlen(prefix)))
				found = atoi(e->d_name);
			free(comm);
		}
		if (d)
			closedir(d);
		if (found || t >= ms)
			return found;
		usleep(10000);
	}
}

/* PMUCTL_IOC_THREADS lists @tid among the threads counted now. */
static bool thread_counted(int fd, pid_t tid, __u32 *nr_entries)
{
	enum { N = 16, STRIDE = sizeof(struct pmuctl_thread) + sizeof(__u64) };
	static __u64 buf[N * STRIDE / sizeof(__u64)];
	struct pmuctl_threads th;
	__u32 i;

	memset(&th, 0, sizeof(th));
	th.nr_values = 1;
	th.entries = (uintptr_t)buf;
	th.entries_size = sizeof(buf);
	*nr_entries = 0;
	if (dev_ioctl(fd, PMUCTL_IOC_THREADS, &th))
		return false;
	*nr_entries = th.nr_entries;
	for (i = 0; i < th.nr_entries && i < N; i++) {
		const struct pmuctl_thread *e = (const void *)((char *)buf + i * STRIDE);

		if ((pid_t)e->tid == tid && !(e->flags & PMUCTL_THREAD_EXITED))
			return true;
	}
	return false;
}

/* Why io_uring cannot be tested here (SKIP), or NULL. */
static const char *uring_unusable(struct __test_metadata *_metadata)
{
	char *dis = slurp("/proc/sys/kernel/io_uring_disabled");
	struct uring u;
	int ret;

	/* kernel.io_uring_disabled: 6.6+; 1 still lets root (CAP_SYS_ADMIN) in. */
	if (dis)
		dis[strcspn(dis, "\n")] = 0;
	TH_LOG("kernel.io_uring_disabled: %s", dis ? dis : "(none: before 6.6)");
	free(dis);
	ret = uring_open(&u, 0);
	uring_close(&u);
	if (ret == -ENOSYS)
		return "no io_uring in this kernel (CONFIG_IO_URING off)";
	if (ret == -EPERM)
		return "io_uring_setup refused (kernel.io_uring_disabled)";
	if (ret)
		return "io_uring_setup failed";
	return NULL;
}

/*
 * The thread of this process named @prefix... (it must appear within
 * 2 s) is accounted for by the INHERIT session on @fd: counted (listed by
 * PMUCTL_IOC_THREADS, READ.nr_threads @want) or in READ.nr_lost.
 */
static void io_thread_accounted(struct __test_metadata *_metadata, int fd,
				const char *prefix, __u32 want)
{
	__u64 val[PMUCTL_MAX_EVENTS];
	struct pmuctl_read r;
	__u32 nr_entries;
	bool listed;
	pid_t tid;

	tid = thread_named(prefix, 2000);
	ASSERT_NE(0, tid) TH_LOG("no %s thread in /proc/self/task", prefix);
	ASSERT_EQ(0, read_totals(fd, val, &r));
	listed = thread_counted(fd, tid, &nr_entries);
	TH_LOG("%s thread %d: nr_threads %u, nr_lost %u, in THREADS: %s (%u entries)",
	       prefix, (int)tid, r.nr_threads, r.nr_lost, listed ? "yes" : "no", nr_entries);
	EXPECT_TRUE((listed && r.nr_threads == want) || r.nr_lost >= 1)
		TH_LOG("the %s thread is neither counted nor in nr_lost", prefix);
}

/*
 * io_uring's io-wq workers ("iou-wrk-TID") are threads of the process,
 * created by the submitting thread with create_io_thread(), which calls
 * copy_process() but not trace_sched_process_fork (LNX 6.1, 6.12
 * kernel/fork.c: only kernel_clone() fires it).  An INHERIT session of
 * the submitting thread must account for such a thread: count it (it is
 * in PMUCTL_IOC_THREADS and READ.nr_threads) or say it is not counted
 * (READ.nr_lost), never neither.
 */
TEST_F(task, inherit_counts_or_reports_io_uring_workers)
{
	struct pmuctl_event ev = ev_make(EV_INST | USR | OS, 0, 0);
	struct pmuctl_program p;
	const char *why = uring_unusable(_metadata);
	struct uring u;

	if (why)
		SKIP(return, "%s", why);
	/* A worker left by an earlier ring of this thread would not be new. */
	ASSERT_EQ(0, thread_named("iou-wrk-", 0));
	ASSERT_EQ(0, dev_program_task(self->fd, &ev, 1, PMUCTL_PROGRAM_INHERIT, &p));
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_START));
	EXPECT_EQ(1U, wait_nr_threads(self->fd, 1, 0));
	ASSERT_EQ(0, uring_open(&u, 0));
	EXPECT_EQ(0, uring_nop_async(&u));
	io_thread_accounted(_metadata, self->fd, "iou-wrk-", 2);
	uring_close(&u);
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
	EXPECT_EQ(0, state_wait_clean(2000));
}

/*
 * The same for the SQPOLL thread ("iou-sqp-PID"), which io_uring_setup
 * creates with create_io_thread() in the calling thread
 * (io_sq_offload_create()).
 */
TEST_F(task, inherit_counts_or_reports_io_uring_sqpoll_threads)
{
	struct pmuctl_event ev = ev_make(EV_INST | USR | OS, 0, 0);
	struct pmuctl_program p;
	const char *why = uring_unusable(_metadata);
	struct uring u;
	int ret;

	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, thread_named("iou-sqp-", 0));
	ASSERT_EQ(0, dev_program_task(self->fd, &ev, 1, PMUCTL_PROGRAM_INHERIT, &p));
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_START));
	EXPECT_EQ(1U, wait_nr_threads(self->fd, 1, 0));
	ret = uring_open(&u, IORING_SETUP_SQPOLL);
	ASSERT_EQ(0, ret) TH_LOG("io_uring_setup(SQPOLL): %s", strerror(-ret));
	io_thread_accounted(_metadata, self->fd, "iou-sqp-", 2);
	uring_close(&u);
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
	EXPECT_EQ(0, state_wait_clean(2000));
}

static int tw_own_session(struct tw *w)
{
	int ret;

	if (w->fd >= 0)
		close(w->fd);
	ret = tw_program_own(w);
	if (!ret)
		ret = tw_release(w);
	return ret;
}

TEST_F(task, release_and_close_end_the_counting_of_inherited_threads)
{
	struct pmuctl_event ev = ev_make(EV_INST | USR, 0, 0);
	struct tw *a = &self->tw[0], *b = &self->tw[1];
	struct pmuctl_program p;
	int rep[2], ret = -1, status, fd2;
	pid_t pid;
	char c;

	ASSERT_EQ(0, dev_program_task(self->fd, &ev, 1, PMUCTL_PROGRAM_INHERIT, &p));
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_START));
	a->ev[0] = b->ev[0] = ev;
	a->n = b->n = 1;
	ASSERT_EQ(0, tw_spawn(a, -1));
	ASSERT_EQ(0, tw_spawn(b, -1));
	ASSERT_EQ(0, pipe(rep));
	EXPECT_EQ(3U, wait_nr_threads(self->fd, 3, 2000));
	/* A child, counted, holding the file: it runs on after the RELEASE. */
	do {
		int go[2];

		ASSERT_EQ(0, pipe(go));
		fflush(stdout);
		fflush(stderr);
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			struct pmuctl_event e = ev;
			int fd;

			close(go[1]);
			if (read(go[0], &c, 1) != 1)
				_exit(1);
			fd = dev_open();
			ret = fd < 0 ? fd : dev_program_task(fd, &e, 1, 0, &p);
			if (write(rep[1], &ret, sizeof(ret)) != sizeof(ret))
				_exit(1);
			_exit(0);
		}
		close(go[0]);
		EXPECT_EQ(4U, wait_nr_threads(self->fd, 4, 2000));
		ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
		/* Nothing held, though the child still holds the file. */
		EXPECT_EQ(0, state_wait_clean(2000));
		c = 'g';
		ASSERT_EQ(1, write(go[1], &c, 1));
		close(go[1]);
		ASSERT_EQ((ssize_t)sizeof(ret), read(rep[0], &ret, sizeof(ret)));
		EXPECT_EQ(0, ret) TH_LOG("the child's own task session after RELEASE");
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
	} while (0);
	/* The threads are free: rdpmc gone, their own sessions allowed. */
	a->arg = 0;
	ASSERT_EQ(0, tw_call(a, tw_probe));
	EXPECT_EQ(SIGSEGV, a->sig) TH_LOG("rdpmc in a thread of a released session");
	EXPECT_EQ(0, tw_call(a, tw_own_session)) TH_LOG("reason %u", a->p.err_reason);
	EXPECT_EQ(0, tw_call(b, tw_own_session)) TH_LOG("reason %u", b->p.err_reason);
	tw_end(a);
	tw_end(b);

	/* close: the same with a second session, threads only. */
	fd2 = dev_open();
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, dev_program_task(fd2, &ev, 1, PMUCTL_PROGRAM_INHERIT, &p));
	ASSERT_EQ(0, tw_spawn(a, -1));
	EXPECT_EQ(2U, wait_nr_threads(fd2, 2, 2000));
	close(fd2);
	EXPECT_EQ(0, state_wait_clean(2000));
	EXPECT_EQ(0, tw_call(a, tw_own_session)) TH_LOG("reason %u", a->p.err_reason);
	tw_end(a);
	close(rep[0]);
	close(rep[1]);
	EXPECT_EQ(0, state_wait_clean(2000));
}

/*
 * What a RELEASEd session keeps: nothing can read its threads' records
 * (PMUCTL_IOC_THREADS) after RELEASE, so none may outlive it, whatever
 * thread it counted lives on.  Each record of an exited thread holds its
 * struct pid (pid and tgid: one object for a process), so the pid cache
 * (/sys/kernel/slab/pid, which Debian's kernels may merge with another
 * cache of that size: the difference is what counts) shows them.
 */
#define LEAK_CHILDREN	150
#define PID_SLAB	"/sys/kernel/slab/pid"

/* Objects in use in the pid cache, per-CPU slabs flushed first; -1 if unknown. */
static long pid_objects(void)
{
	char *s;
	long n;

	write_str(PID_SLAB "/shrink", "1");
	s = slurp(PID_SLAB "/objects");
	if (!s)
		return -1;
	n = strtol(s, NULL, 10);
	free(s);
	return n;
}

/* pid_objects() once it is at most @limit, or after @ms; the last reading. */
static long pid_objects_within(long limit, unsigned int ms)
{
	unsigned int t;
	long n;

	for (t = 0;; t += 50) {
		n = pid_objects();
		if (n <= limit || t >= ms)
			return n;
		usleep(50000);
	}
}

/* 150 forks take about 9 s in the debug guest (KASAN, lockdep). */
TEST_F_TIMEOUT(task, release_frees_exited_threads_records_while_an_inherited_thread_lives, 240)
{
	struct pmuctl_event ev = ev_make(EV_INST | USR, 0, 0);
	struct pmuctl_program p;
	long base, held, after, end;
	char target[256] = "";
	struct timespec t0, t1;
	int i, status;
	pid_t sleeper, pid;
	struct gate g;
	ssize_t len;

	if (access(PID_SLAB "/objects", R_OK) || access(PID_SLAB "/shrink", W_OK))
		SKIP(return, "no %s/objects and shrink (SLUB sysfs, CONFIG_SLUB_DEBUG)", PID_SLAB);
	len = readlink(PID_SLAB, target, sizeof(target) - 1);
	if (len > 0)
		target[len] = 0;
	ASSERT_EQ(0, dev_program_task(self->fd, &ev, 1, PMUCTL_PROGRAM_INHERIT, &p));
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_START));
	/* A child counted by inheritance that sleeps through the RELEASE. */
	ASSERT_EQ(0, gate_init(&g));
	sleeper = gate_fork(&g);
	ASSERT_LT(0, sleeper);
	ASSERT_EQ(0, gate_up(&g, 1));
	EXPECT_EQ(2U, wait_nr_threads(self->fd, 2, 2000));
	usleep(100000);
	base = pid_objects();
	ASSERT_LE(0, base);

	/* Children that exit and are reaped: each leaves a record. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < LEAK_CHILDREN; i++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid)
			_exit(0);
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	EXPECT_EQ(2U, wait_nr_threads(self->fd, 2, 2000));
	/* Their pids' own references go after an RCU grace period. */
	usleep(300000);
	held = pid_objects();
	/* The observation sees the records: else this test proves nothing. */
	ASSERT_LE(base + LEAK_CHILDREN / 2, held) {
		TH_LOG("pid cache %s: %ld objects before %d exited children, %ld with their records",
		       target, base, LEAK_CHILDREN, held);
	}

	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
	after = pid_objects_within(base + LEAK_CHILDREN / 4, 3000);
	/* The inherited child still lives, counted no more. */
	EXPECT_EQ(0, waitpid(sleeper, &status, WNOHANG));
	gate_close(&g);
	ASSERT_EQ(sleeper, waitpid(sleeper, &status, 0));
	end = pid_objects_within(base + LEAK_CHILDREN / 4, 3000);
	ksft_print_msg("pid cache%s%s: %ld objects before, %ld with %d records (forked and reaped in %.1f s), %ld after RELEASE (child alive), %ld once it exited\n",
		       *target ? " -> " : "", target, base, held, LEAK_CHILDREN,
		       t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9, after, end);
	EXPECT_GT(base + LEAK_CHILDREN / 4, after) {
		TH_LOG("%ld struct pid still held after RELEASE, %ld freed only when the last counted thread exited",
		       after - base, after - end);
	}
	EXPECT_EQ(0, state_wait_clean(2000));
}

static void __attribute__((constructor)) box_alloc(void)
{
	box = mmap(NULL, sizeof(*box), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (box == MAP_FAILED)
		box = NULL;
}

DEVICE_TEST_MAIN
