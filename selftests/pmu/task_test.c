// SPDX-License-Identifier: GPL-2.0
/*
 * Task scope (PMUCTL_PROGRAM_TASK, uapi/linux/pmuctl.h "Task scope") on
 * the emulated PMU, where user-mode instructions retired are exact
 * (scripts/vm/qemu/pmu-spec.md): every count below is compared exactly
 * with the known count of the code the counted threads ran.
 *
 * The counted code is task_asm.S (formulas in task.h): between the system
 * call that starts a thread's counters and the one that stops them (or the
 * thread's exit) it runs only assembly with raw system calls, so its user
 * instructions are known to the instruction, whatever ran on the CPU in
 * between: the other thread of a ping-pong, the migration thread, the
 * kernel.  Counts of a task-scope group are the thread's own: they must be
 * exactly the formula's, across context switches, migrations, thread and
 * process creation, exec and exit.  perf's per-thread counting of the
 * same code (perf_event_open on the thread's tid) is the oracle where it
 * applies; pmuctl reserves perf's counters while it holds a group, so the
 * two count the same workload one after the other.
 *
 * What rdpmc shows a granted thread beyond its own counters is checked
 * too: after another user's perf events counted on its CPU, every other
 * counter index must read 0.
 *
 * Raw ioctls on /dev/pmuctl (the uapi header), no libpmuctl.  Tests SKIP
 * without /dev/pmuctl, with its register-model build, or when perf holds
 * the counters (kernel.nmi_watchdog=1).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/futex.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <setjmp.h>

#include "kselftest_harness.h"
#include <linux/pmuctl.h>
#include "pmu.h"
#include "task.h"

#define DEV		"/dev/pmuctl"
#define WORKLOAD	"/bin/workload"	/* selftests/bench/workload.S, a VMBIN */
#define WORKLOAD_N	1000000ULL
#define WORKLOAD_ARG	"1000000"
#define MAX_ROUNDS	64
#define STACK_SIZE	(64 * 1024)
#define EV_USR(cfg)	((cfg) | PMUCTL_CFG_USR)

/* ---- the device ------------------------------------------------------------ */

static int dev_open(void)
{
	int fd = open(DEV, O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static int dev_info(int fd, struct pmuctl_info *in)
{
	memset(in, 0, sizeof(*in));
	return ioctl(fd, PMUCTL_IOC_INFO, in) ? -errno : 0;
}

static void ev_inst(struct pmuctl_event *ev, bool generic)
{
	memset(ev, 0, sizeof(*ev));
	ev->config = EV_USR(EV_INST_RETIRED);
	ev->flags = generic ? PMUCTL_EVENT_GENERIC_ONLY : 0;
}

static int prog_task(int fd, uint32_t flags, struct pmuctl_event *ev,
		     uint32_t n, uint32_t *reason)
{
	struct pmuctl_program p;
	int ret;

	memset(&p, 0, sizeof(p));
	p.flags = flags;
	p.nr_events = n;
	p.events = (uintptr_t)ev;
	ret = ioctl(fd, PMUCTL_IOC_PROGRAM, &p) ? -errno : 0;
	if (reason)
		*reason = ret ? p.err_reason : 0;
	return ret;
}

static int ctl(int fd, unsigned long req)
{
	struct pmuctl_ctl c;

	memset(&c, 0, sizeof(c));
	return ioctl(fd, req, &c) ? -errno : 0;
}

/* READ (flags 0: the session's totals; PMUCTL_READ_THREAD). */
static int sess_read(int fd, uint32_t flags, uint64_t *v, uint32_t n,
		     struct pmuctl_read *r)
{
	memset(r, 0, sizeof(*r));
	r->flags = flags;
	r->nr_values = n;
	r->values = (uintptr_t)v;
	return ioctl(fd, PMUCTL_IOC_READ, r) ? -errno : 0;
}

static uint64_t mask_bits(unsigned int bits)
{
	return bits >= 64 ? ~0ULL : (1ULL << bits) - 1;
}

/* ---- the fixture ------------------------------------------------------------ */

FIXTURE(task) {
	struct pmuctl_info info;
	struct pmu_caps c;
	uint64_t mask;			/* 2^task_bits - 1 */
	int ncpus;
	struct pmu_knob paranoid, rdpmc;	/* put back by the teardown */
	mode_t dev_mode;
	bool dev_chmod;
	bool ready;			/* the setup neither skipped nor failed */
};

/* A SKIP in the setup does not stop the harness from running the test. */
#define READY() do {							\
	if (!self->ready)						\
		return;							\
} while (0)

/* The reason a PROGRAM cannot count here, to SKIP on; NULL: it can. */
static const char *prog_skip(int ret, uint32_t reason)
{
	static char why[128];

	if (ret == -EBUSY && reason == PMUCTL_R_PERF_BUSY) {
		snprintf(why, sizeof(why),
			 "kernel.nmi_watchdog=%d: perf holds the counters (PERF_BUSY)",
			 pmu_watchdog_on());
		return why;
	}
	return NULL;
}

FIXTURE_SETUP(task)
{
	struct pmuctl_event ev;
	uint32_t reason;
	int fd, ret;

	pmu_caps_read(&self->c);
	self->ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	fd = dev_open();
	if (fd == -ENOENT)
		SKIP(return, "no %s: pmuctl.ko (default build) not loaded", DEV);
	ASSERT_LE(0, fd) TH_LOG("open %s: %s", DEV, strerror(-fd));
	ret = dev_info(fd, &self->info);
	ASSERT_EQ(0, ret) TH_LOG("INFO: %s", strerror(-ret));
	if (self->info.backend != PMUCTL_BACKEND_MSR) {
		close(fd);
		SKIP(return, "pmuctl.ko is its register-model build: no real counts");
	}
	ASSERT_EQ(PMUCTL_PROGRAM_FLAGS_ALL, self->info.program_flags & PMUCTL_PROGRAM_FLAGS_ALL)
		TH_LOG("INFO program_flags %#x: no task scope", self->info.program_flags);
	self->mask = mask_bits(self->info.task_bits);
	/* perf's watchdog would refuse every PROGRAM: say so once. */
	ev_inst(&ev, false);
	ret = prog_task(fd, PMUCTL_PROGRAM_TASK, &ev, 1, &reason);
	close(fd);
	if (prog_skip(ret, reason))
		SKIP(return, "%s", prog_skip(ret, reason));
	ASSERT_EQ(0, ret) TH_LOG("PROGRAM TASK: %s, reason %u", strerror(-ret), reason);
	self->ready = true;
}

FIXTURE_TEARDOWN(task)
{
	pmu_knob_restore(&self->paranoid);
	pmu_knob_restore(&self->rdpmc);
	if (self->dev_chmod)
		chmod(DEV, self->dev_mode);
}

/* ---- workers: threads running task_rounds() -------------------------------- */

enum { W_NONE, W_PMUCTL, W_PERF };

struct worker {
	/* in */
	int cpu;			/* pin here, -1: not */
	int mode;			/* W_* */
	uint32_t nev;
	struct pmuctl_event ev[2];
	uint32_t flags;			/* TR_* */
	int read_idx;			/* rdpmc ECX: ev[read_idx].counter ... */
	uint32_t read_ecx;		/* ... or this, when read_idx < 0 */
	int in_fd, out_fd;
	uint64_t n, rounds;
	uint64_t pre_n;			/* first, one round of this on a pipe of its own */
	pthread_barrier_t *bar;
	/* out */
	pid_t tid;
	int fd;				/* session or perf event (main opens perf) */
	int prog_ret;
	uint32_t prog_reason;
	struct task_rounds tr, pre;
	struct tr_rec rec[MAX_ROUNDS];
	uint64_t after[2];		/* rdpmc of each event after the stop */
	uint64_t total[2], thr[2];	/* READ, READ_THREAD */
	struct pmuctl_read rd, rdt;
	int read_ret, readt_ret;
	uint64_t perf_count;
	atomic_int done;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	static struct pmuctl_ctl c;

	if (w->cpu >= 0)
		pmu_pin(w->cpu);
	w->tid = gettid();
	w->prog_ret = -EINVAL;
	memset(&w->tr, 0, sizeof(w->tr));
	w->tr.fd = -1;
	if (w->mode == W_PMUCTL) {
		w->fd = dev_open();
		w->prog_ret = w->fd < 0 ? w->fd :
			prog_task(w->fd, PMUCTL_PROGRAM_TASK, w->ev, w->nev, &w->prog_reason);
		if (!w->prog_ret) {
			w->tr.fd = w->fd;
			w->tr.start_req = PMUCTL_IOC_START;
			w->tr.stop_req = PMUCTL_IOC_STOP;
			w->tr.ctl = (uintptr_t)&c;
		}
	}
	pthread_barrier_wait(w->bar);
	pthread_barrier_wait(w->bar);	/* main opened perf's events */
	if (w->mode == W_PERF && w->fd >= 0) {
		w->prog_ret = 0;
		w->tr.fd = w->fd;
		w->tr.start_req = PERF_EVENT_IOC_ENABLE;
		w->tr.stop_req = PERF_EVENT_IOC_DISABLE;
	}
	w->tr.in_fd = w->in_fd;
	w->tr.out_fd = w->out_fd;
	w->tr.n = w->n;
	w->tr.rounds = w->rounds;
	w->tr.ecx = w->read_idx >= 0 ? w->ev[w->read_idx].counter : w->read_ecx;
	/* rdpmc only where this thread is granted it: its session counts. */
	w->tr.flags = w->mode == W_PMUCTL && !w->prog_ret ? w->flags : w->flags & ~TR_RDPMC;
	w->tr.rec = (uintptr_t)w->rec;
	if (w->pre_n) {
		int p[2];

		w->pre = w->tr;
		w->pre.n = w->pre_n;
		w->pre.rounds = 1;
		w->pre.flags = 0;
		if (!pipe(p) && write(p[1], "p", 1) == 1) {
			w->pre.in_fd = p[0];
			w->pre.out_fd = p[1];
			task_rounds(&w->pre);
			close(p[0]);
			close(p[1]);
		} else {
			w->pre.err = -errno;
		}
	}
	/* Whatever failed, the rounds run: the partner waits for them. */
	task_rounds(&w->tr);
	if (w->mode == W_PMUCTL && !w->prog_ret) {
		for (uint32_t i = 0; i < w->nev; i++)
			w->after[i] = pmu_rdpmc(w->ev[i].counter);
		w->readt_ret = sess_read(w->fd, PMUCTL_READ_THREAD, w->thr, w->nev, &w->rdt);
		w->read_ret = sess_read(w->fd, 0, w->total, w->nev, &w->rd);
	}
	if (w->mode == W_PERF && w->fd >= 0 &&
	    read(w->fd, &w->perf_count, sizeof(w->perf_count)) != sizeof(w->perf_count))
		w->perf_count = ~0ULL;
	atomic_store(&w->done, 1);
	return NULL;
}

static int perf_open_tid(pid_t tid)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/*
 * Run @nw workers (1 or 2).  Two alternate through two pipes (worker 0
 * reads the token first); one reads and writes a pipe of its own.  W_PERF
 * workers get a perf event on their tid from here.  @during runs in this
 * thread while they count (the migration test), may be NULL.
 */
static void run_workers(struct __test_metadata *_metadata, struct worker *w,
			int nw, void (*during)(struct worker *w, void *arg),
			void *arg)
{
	pthread_barrier_t bar;
	pthread_t th[2];
	int p[2][2];

	ASSERT_EQ(0, pipe2(p[0], O_CLOEXEC));
	ASSERT_EQ(0, pipe2(p[1], O_CLOEXEC));
	ASSERT_EQ(0, pthread_barrier_init(&bar, NULL, nw + 1));
	for (int i = 0; i < nw; i++) {
		w[i].bar = &bar;
		w[i].fd = -1;
		w[i].in_fd = p[i][0];
		w[i].out_fd = p[nw == 2 ? !i : i][1];
		ASSERT_EQ(0, pthread_create(&th[i], NULL, worker_main, &w[i]));
	}
	pthread_barrier_wait(&bar);
	for (int i = 0; i < nw; i++)
		if (w[i].mode == W_PERF)
			w[i].fd = perf_open_tid(w[i].tid);
	pthread_barrier_wait(&bar);
	ASSERT_EQ(1, write(p[0][1], "t", 1));	/* worker 0 goes first */
	if (during)
		during(w, arg);
	for (int i = 0; i < nw; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&bar);
	for (int i = 0; i < 2; i++) {
		close(p[i][0]);
		close(p[i][1]);
	}
}

static void workers_close(struct worker *w, int nw)
{
	for (int i = 0; i < nw; i++)
		if (w[i].fd >= 0)
			close(w[i].fd);
}

/* A worker's setup and rounds went through (else SKIP or fail). */
#define WORKER_RAN(w) do {						\
	if (prog_skip((w)->prog_ret, (w)->prog_reason))			\
		SKIP(return, "%s", prog_skip((w)->prog_ret, (w)->prog_reason)); \
	ASSERT_EQ(0, (w)->prog_ret) TH_LOG("worker %d: setup: %s, reason %u", \
		(w)->tid, strerror(-(w)->prog_ret), (w)->prog_reason);	\
	ASSERT_EQ(0, (w)->tr.start_ret) TH_LOG("start: %s", strerror(-(w)->tr.start_ret)); \
	ASSERT_EQ(0, (w)->tr.stop_ret) TH_LOG("stop: %s", strerror(-(w)->tr.stop_ret)); \
	ASSERT_EQ(0, (w)->tr.err) TH_LOG("pipe: %s", strerror(-(w)->tr.err)); \
	ASSERT_EQ((w)->rounds, (w)->tr.done);				\
} while (0)

/* The session's READ totals: each event exactly @want; one thread, no loss. */
static void expect_totals(struct __test_metadata *_metadata, struct worker *w,
			  uint64_t want, const char *what)
{
	ASSERT_EQ(0, w->read_ret) TH_LOG("%s: READ: %s", what, strerror(-w->read_ret));
	for (uint32_t i = 0; i < w->nev; i++) {
		TH_LOG("%s: event %u on %#x: READ %llu, known %llu (%+lld)", what, i,
		       w->ev[i].counter, (unsigned long long)w->total[i],
		       (unsigned long long)want, (long long)(w->total[i] - want));
		EXPECT_EQ(want, w->total[i]) TH_LOG("%s: event %u", what, i);
	}
	EXPECT_EQ(1U, w->rd.nr_threads);
	EXPECT_EQ(0U, w->rd.nr_lost);
}

/*
 * READ_THREAD is what rdpmc shows: after the stop both read the frozen
 * counters, so they agree to the bit, and agree with READ's 64-bit total
 * on the low task_bits.
 */
static void expect_thread_view(struct __test_metadata *_metadata,
			       FIXTURE_DATA(task) *self, struct worker *w,
			       const char *what)
{
	ASSERT_EQ(0, w->readt_ret) TH_LOG("%s: READ_THREAD: %s", what, strerror(-w->readt_ret));
	for (uint32_t i = 0; i < w->nev; i++) {
		TH_LOG("%s: event %u on %#x: rdpmc %#llx, READ_THREAD %#llx, READ %#llx (task_bits %u)",
		       what, i, w->ev[i].counter, (unsigned long long)w->after[i],
		       (unsigned long long)w->thr[i], (unsigned long long)w->total[i],
		       self->info.task_bits);
		EXPECT_EQ(w->after[i], w->thr[i]) TH_LOG("%s: event %u", what, i);
		EXPECT_EQ(w->total[i] & self->mask, w->after[i] & self->mask)
			TH_LOG("%s: event %u", what, i);
	}
}

/* Every round's rdpmc B - A (masked to task_bits) is exactly TR_DELTA. */
static void expect_deltas(struct __test_metadata *_metadata,
			  FIXTURE_DATA(task) *self, struct worker *w,
			  const char *what)
{
	uint64_t want = TR_DELTA(w->n, w->tr.flags);
	unsigned int bad = 0;

	for (uint64_t r = 0; r < w->rounds; r++) {
		uint64_t d = (w->rec[r].b - w->rec[r].a) & self->mask;

		if (d != want && bad++ < 4)
			TH_LOG("%s: round %llu: rdpmc %#llx -> %#llx = %llu, known %llu",
			       what, (unsigned long long)r, (unsigned long long)w->rec[r].a,
			       (unsigned long long)w->rec[r].b, (unsigned long long)d,
			       (unsigned long long)want);
	}
	TH_LOG("%s: %llu rounds, rdpmc deltas of %llu each: %u wrong", what,
	       (unsigned long long)w->rounds, (unsigned long long)want, bad);
	EXPECT_EQ(0U, bad);
}

/* ---- 1. two threads on one CPU ------------------------------------------------ */

#define PP_ROUNDS	40
#define PP_N		20000ULL

static void pingpong_setup(struct worker w[2], int mode, uint32_t flags)
{
	memset(w, 0, 2 * sizeof(*w));
	for (int i = 0; i < 2; i++) {
		w[i].cpu = 0;
		w[i].mode = mode;
		w[i].nev = 1;
		ev_inst(&w[i].ev[0], false);
		w[i].flags = flags;
		w[i].read_idx = 0;
		/* Different loops, so that a count taken from the other thread shows. */
		w[i].n = PP_N + 1000 * i;
		w[i].rounds = PP_ROUNDS;
	}
}

/*
 * Two threads pinned to CPU 0 hand a token back and forth through pipes,
 * PP_ROUNDS rounds each, each running its own loop per round: every round
 * switches from one to the other.  perf first (perf_event_open on each
 * thread's tid, user mode, enabled and disabled by the thread itself
 * around its rounds), then pmuctl (a task-scope session per thread,
 * INST_RETIRED user mode, START and STOP by the thread): each session's
 * READ total is exactly its own thread's known count, TR_TOTAL, and
 * equals perf's count of the same code.
 */
TEST_F(task, two_threads_on_one_cpu_count_their_own_work_exactly_like_perf)
{
	struct worker w[2];
	uint64_t perf[2];

	READY();
	pingpong_setup(w, W_PERF, 0);
	run_workers(_metadata, w, 2, NULL, NULL);
	for (int i = 0; i < 2; i++) {
		uint64_t want = TR_TOTAL(PP_ROUNDS, w[i].n, 0);

		ASSERT_LE(0, w[i].fd) TH_LOG("perf_event_open(tid %d): %s", w[i].tid,
					     strerror(-w[i].fd));
		WORKER_RAN(&w[i]);
		perf[i] = w[i].perf_count;
		TH_LOG("perf, thread %d: %llu, known %llu", i, (unsigned long long)perf[i],
		       (unsigned long long)want);
		EXPECT_EQ(want, perf[i]);
	}
	workers_close(w, 2);

	pingpong_setup(w, W_PMUCTL, 0);
	run_workers(_metadata, w, 2, NULL, NULL);
	for (int i = 0; i < 2; i++) {
		WORKER_RAN(&w[i]);
		expect_totals(_metadata, &w[i], TR_TOTAL(PP_ROUNDS, w[i].n, 0), "pmuctl");
		expect_thread_view(_metadata, self, &w[i], "pmuctl");
		EXPECT_EQ(perf[i], w[i].total[0]) TH_LOG("thread %d: pmuctl against perf", i);
	}
	workers_close(w, 2);
}

/*
 * The same ping-pong with rdpmc around every loop: each delta is exactly
 * the code between the two rdpmc, although the other thread ran on the
 * CPU just before each one; READ is exact, READ_THREAD and rdpmc agree.
 */
TEST_F(task, rdpmc_deltas_are_exact_across_switches)
{
	struct worker w[2];

	READY();
	pingpong_setup(w, W_PMUCTL, TR_RDPMC);
	run_workers(_metadata, w, 2, NULL, NULL);
	for (int i = 0; i < 2; i++) {
		WORKER_RAN(&w[i]);
		expect_totals(_metadata, &w[i], TR_TOTAL(PP_ROUNDS, w[i].n, TR_RDPMC), "pmuctl");
		expect_deltas(_metadata, self, &w[i], "pmuctl");
		expect_thread_view(_metadata, self, &w[i], "pmuctl");
	}
	workers_close(w, 2);
}

/* ---- 3. another session's counter reads 0 ---------------------------------- */

/*
 * Thread A counts with one event, thread B with two (the second on a
 * generic counter A's group does not use); they alternate on CPU 0.  A
 * reads B's counter with rdpmc around each of its loops, right after B
 * ran there: 0 both times (pmuctl zeroes other task groups' counters at
 * A's switch-in).  B reads the same counter around its own loops: its own
 * exact deltas (the control: the counter is B's and counts).
 */
TEST_F(task, rdpmc_reads_zero_for_another_task_sessions_counter)
{
	struct worker w[2];
	uint32_t other;
	unsigned int nonzero = 0;

	READY();
	pingpong_setup(w, W_PMUCTL, TR_RDPMC);
	w[1].nev = 2;
	ev_inst(&w[1].ev[1], true);
	w[1].read_idx = 1;
	/* A reads B's generic counter, ... */
	w[0].read_idx = -1;
	{
		/*
		 * ... which this thread learns first: the placement of a
		 * group is deterministic (checked below against B's own).
		 */
		struct pmuctl_event ev[2];
		int fd = dev_open();

		ASSERT_LE(0, fd);
		ev_inst(&ev[0], false);
		ev_inst(&ev[1], true);
		ASSERT_EQ(0, prog_task(fd, PMUCTL_PROGRAM_TASK, ev, 2, NULL));
		other = ev[1].counter;
		ev_inst(&ev[0], false);
		ASSERT_EQ(0, ctl(fd, PMUCTL_IOC_RELEASE));
		ASSERT_EQ(0, prog_task(fd, PMUCTL_PROGRAM_TASK, ev, 1, NULL));
		TH_LOG("B's generic counter %#x, A's counter %#x", other, ev[0].counter);
		ASSERT_NE(ev[0].counter, other);
		ASSERT_GT(RDPMC_FIXED, other);
		close(fd);
	}
	w[0].read_ecx = other;
	run_workers(_metadata, w, 2, NULL, NULL);
	for (int i = 0; i < 2; i++)
		WORKER_RAN(&w[i]);
	ASSERT_EQ(other, w[1].ev[1].counter);
	ASSERT_NE(other, w[0].ev[0].counter);
	for (uint64_t r = 0; r < PP_ROUNDS; r++)
		if ((w[0].rec[r].a || w[0].rec[r].b) && nonzero++ < 4)
			TH_LOG("A, round %llu: rdpmc(%#x) %#llx, %#llx after B ran",
			       (unsigned long long)r, other, (unsigned long long)w[0].rec[r].a,
			       (unsigned long long)w[0].rec[r].b);
	TH_LOG("A read B's counter %#x as 0 in %llu of %d rounds", other,
	       (unsigned long long)(PP_ROUNDS - nonzero), PP_ROUNDS);
	EXPECT_EQ(0U, nonzero);
	/* The control: the same counter in B counts B, exactly. */
	expect_deltas(_metadata, self, &w[1], "B on its generic counter");
	EXPECT_NE(0ULL, w[1].rec[PP_ROUNDS - 1].b);
	expect_totals(_metadata, &w[0], TR_TOTAL(PP_ROUNDS, w[0].n, TR_RDPMC), "A");
	expect_totals(_metadata, &w[1], TR_TOTAL(PP_ROUNDS, w[1].n, TR_RDPMC), "B");
	workers_close(w, 2);
}

/*
 * Topdown metrics in task scope, where the PMU has PERF_METRICS: B counts
 * TOPDOWN.SLOTS and the retiring metric and reads PERF_METRICS (rdpmc ECX
 * bit 29) around its loops, A counts instructions and reads PERF_METRICS
 * right after B ran on CPU 0: 0 every round (the register is B's and goes
 * with B: A's switch-in finds it zeroed), while B's own reads see its
 * shares, and B's slots are exactly the rig's slots per instruction
 * times its rounds' instructions.
 */
TEST_F(task, rdpmc_of_perf_metrics_reads_zero_after_another_sessions_thread)
{
	struct worker w[2];
	unsigned int nonzero = 0;

	READY();
	if (!(self->info.caps.flags & PMUCTL_CAP_PERF_METRICS))
		SKIP(return, "no PERF_METRICS on this PMU");
	pingpong_setup(w, W_PMUCTL, TR_RDPMC);
	w[1].nev = 2;
	memset(&w[1].ev[0], 0, sizeof(w[1].ev[0]));
	w[1].ev[0].config = EV_USR(0x0400);		/* TOPDOWN.SLOTS */
	memset(&w[1].ev[1], 0, sizeof(w[1].ev[1]));
	w[1].ev[1].config = EV_USR(0x8000);		/* retiring */
	w[1].read_idx = 1;
	w[0].read_idx = -1;
	w[0].read_ecx = PMUCTL_COUNTER_METRICS;
	run_workers(_metadata, w, 2, NULL, NULL);
	for (int i = 0; i < 2; i++)
		WORKER_RAN(&w[i]);
	ASSERT_EQ((uint32_t)PMUCTL_COUNTER_METRICS, w[1].ev[1].counter);
	ASSERT_EQ((uint32_t)(PMUCTL_COUNTER_FIXED | 3), w[1].ev[0].counter);
	for (uint64_t r = 0; r < PP_ROUNDS; r++)
		if ((w[0].rec[r].a || w[0].rec[r].b) && nonzero++ < 4)
			TH_LOG("A, round %llu: PERF_METRICS %#llx, %#llx after B ran",
			       (unsigned long long)r, (unsigned long long)w[0].rec[r].a,
			       (unsigned long long)w[0].rec[r].b);
	TH_LOG("A read PERF_METRICS as 0 in %llu of %d rounds; B's last %#llx",
	       (unsigned long long)(PP_ROUNDS - nonzero), PP_ROUNDS,
	       (unsigned long long)w[1].rec[PP_ROUNDS - 1].b);
	EXPECT_EQ(0U, nonzero);
	/* The control: B's own reads see its shares. */
	EXPECT_NE(0ULL, w[1].rec[PP_ROUNDS - 1].b);
	ASSERT_EQ(0, w[1].read_ret);
	if (self->c.rig && self->c.rig->slots_per_cycle)
		EXPECT_EQ(self->c.rig->slots_per_cycle *
			  TR_TOTAL(PP_ROUNDS, w[1].n, TR_RDPMC), w[1].total[0]);
	expect_totals(_metadata, &w[0], TR_TOTAL(PP_ROUNDS, w[0].n, TR_RDPMC), "A");
	workers_close(w, 2);
}

/* ---- 1b. what else rdpmc shows ----------------------------------------------- */

#define LEFT_CPU	1
#define P_PARANOID	"/sys/module/pmuctl/parameters/paranoid"
#define P_RDPMC		"/sys/module/pmuctl/parameters/rdpmc"
#define NOBODY		65534
#define MAX_IDX		40	/* rdpmc indexes: generic (up to 32 on v6) and fixed */

/* What nobody's task-scope thread read, in memory shared with the test. */
struct left_box {
	int err[4];			/* pin, open, PROGRAM, START */
	uint32_t reason;
	uint32_t own;			/* its counter (rdpmc ECX) */
	int sig;			/* an rdpmc that faulted: its signal */
	uint32_t fault_ecx;
	uint32_t n;
	uint32_t ecx[MAX_IDX];
	uint64_t val[MAX_IDX];
};

static sigjmp_buf left_env;

static void left_fault(int sig)
{
	siglongjmp(left_env, sig);
}

/* rdpmc(@ecx) into *@v: 0, or the signal it raised. */
static int __attribute__((noinline)) left_rdpmc(uint32_t ecx, uint64_t *v)
{
	int sig = sigsetjmp(left_env, 1);

	if (!sig)
		*v = pmu_rdpmc(ecx);
	return sig;
}

/*
 * As nobody, on LEFT_CPU: PROGRAM TASK one event (rdpmc granted), START,
 * sleep (switched out and in again with the grant), then rdpmc every
 * counter index CPUID gives: generic 0..nr_gp-1, fixed 0x40000000 | i.
 */
static void left_child(struct left_box *b, const struct pmu_caps *c)
{
	struct pmuctl_event ev;
	uint32_t i;
	int fd, sig;

	if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
		_exit(2);
	b->err[0] = pmu_pin(LEFT_CPU);
	fd = dev_open();
	b->err[1] = fd < 0 ? fd : 0;
	if (fd < 0)
		return;
	ev_inst(&ev, false);
	b->err[2] = prog_task(fd, PMUCTL_PROGRAM_TASK, &ev, 1, &b->reason);
	if (b->err[2])
		return;
	b->own = ev.counter;
	b->err[3] = ctl(fd, PMUCTL_IOC_START);
	usleep(20000);
	signal(SIGSEGV, left_fault);
	signal(SIGILL, left_fault);
	for (i = 0; i < c->nr_gp + 32; i++) {
		uint32_t ecx = i < c->nr_gp ? i : RDPMC_FIXED | (i - c->nr_gp);

		if (i >= c->nr_gp && !(c->fixed_mask & (1U << (i - c->nr_gp))))
			continue;
		if (b->n >= MAX_IDX)
			break;
		sig = left_rdpmc(ecx, &b->val[b->n]);
		if (sig) {
			b->sig = sig;
			b->fault_ecx = ecx;
			break;
		}
		b->ecx[b->n++] = ecx;
	}
	close(fd);
}

/* perf_event_open of a counting event of root on LEFT_CPU, in @group (-1: leader). */
static int perf_open_cpu(uint32_t type, uint64_t config, int group)
{
	struct perf_event_attr a;

	pmu_perf_attr(&a, type, config);
	a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
			PERF_FORMAT_TOTAL_TIME_RUNNING;
	return pmu_perf_open(&a, -1, LEFT_CPU, group);
}

/*
 * Before a thread runs with the CR4.PCE pmuctl sets, every counter it can
 * address holds 0 or its own count.  Root's perf group fills every counter
 * of CPU 1 (cycles, instructions and ref-cycles on the fixed counters, one
 * BR_INST_RETIRED.ALL_BRANCHES per generic counter), counts, and is closed:
 * perf leaves its counts in the registers (it zeroes a counter it used
 * only before an mm it grants rdpmc runs, perf_clear_dirty_counters()).
 * Then a task-scope thread of nobody, granted rdpmc, runs on CPU 1 and
 * reads every index: all but its own read 0, its own a small count of it.
 */
TEST_F(task, rdpmc_reads_zero_in_every_counter_another_users_perf_events_left)
{
	static const uint64_t fixed_ev[] = {
		PERF_COUNT_HW_INSTRUCTIONS, PERF_COUNT_HW_CPU_CYCLES,
		PERF_COUNT_HW_REF_CPU_CYCLES,
	};
	struct { uint64_t nr, enabled, running, v[MAX_IDX]; } rd;
	int fds[MAX_IDX], nfd = 0, msr, i, status;
	struct left_box *b;
	struct stat st;
	uint64_t v;
	pid_t pid;

	READY();
	if (self->ncpus <= LEFT_CPU)
		SKIP(return, "needs CPU %d", LEFT_CPU);
	ASSERT_GE(MAX_IDX, (int)(self->c.nr_gp + 3));

	/* Root's group: every counter of CPU 1, counting this loop. */
	for (i = 0; i < (int)ARRAY_SIZE(fixed_ev); i++) {
		if (!(self->c.fixed_mask & (1U << i)))
			continue;
		fds[nfd] = perf_open_cpu(PERF_TYPE_HARDWARE, fixed_ev[i],
					 nfd ? fds[0] : -1);
		ASSERT_LE(0, fds[nfd]) TH_LOG("perf_event_open %d: %s", nfd, strerror(-fds[nfd]));
		nfd++;
	}
	for (i = 0; i < (int)self->c.nr_gp; i++) {
		fds[nfd] = perf_open_cpu(PERF_TYPE_RAW, EV_BRANCHES, nfd ? fds[0] : -1);
		ASSERT_LE(0, fds[nfd]) TH_LOG("perf_event_open %d: %s", nfd, strerror(-fds[nfd]));
		nfd++;
	}
	ASSERT_EQ(0, pmu_pin(LEFT_CPU));
	pmu_loop(100000);
	ASSERT_LT(0, read(fds[0], &rd, sizeof(rd)));
	ASSERT_EQ((uint64_t)nfd, rd.nr);
	/* The whole group counted (scheduled as one): every counter used. */
	ASSERT_LT(0ULL, rd.running);
	ASSERT_EQ(rd.enabled, rd.running);
	for (i = 0; i < nfd; i++)
		ASSERT_LT(0ULL, rd.v[i]) TH_LOG("perf event %d counted nothing", i);
	for (i = nfd - 1; i >= 0; i--)
		close(fds[i]);
	ASSERT_EQ(0, pmu_pin(0));
	/* What perf left, where msr.ko lets us look (a log, not the check). */
	msr = pmu_msr_open(LEFT_CPU);
	if (msr >= 0) {
		for (i = 0; i < (int)self->c.nr_gp; i++)
			if (!pmu_msr_read(msr, MSR_PMC(i), &v))
				TH_LOG("perf closed: cpu %d PMC%d %#llx", LEFT_CPU, i,
				       (unsigned long long)v);
		for (i = 0; i < 4; i++)
			if ((self->c.fixed_mask & (1U << i)) &&
			    !pmu_msr_read(msr, MSR_FIXED_CTR(i), &v))
				TH_LOG("perf closed: cpu %d FIXED_CTR%d %#llx", LEFT_CPU, i,
				       (unsigned long long)v);
		close(msr);
	}

	/* nobody's task-scope thread, granted rdpmc, on CPU 1. */
	ASSERT_EQ(0, pmu_knob_set(&self->paranoid, P_PARANOID, "2"));
	ASSERT_EQ(0, pmu_knob_set(&self->rdpmc, P_RDPMC, "1"));
	ASSERT_EQ(0, stat(DEV, &st));
	self->dev_mode = st.st_mode & 07777;
	ASSERT_EQ(0, chmod(DEV, 0666));
	self->dev_chmod = true;
	b = mmap(NULL, sizeof(*b), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, b);
	memset(b, 0, sizeof(*b));
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		left_child(b, &self->c);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, pmu_child_status(status)) TH_LOG("child status %#x", status);
	ASSERT_EQ(0, b->err[0]);
	ASSERT_EQ(0, b->err[1]) TH_LOG("open as nobody: %s", strerror(-b->err[1]));
	ASSERT_EQ(0, b->err[2]) TH_LOG("PROGRAM TASK as nobody: %s, reason %u",
				       strerror(-b->err[2]), b->reason);
	ASSERT_EQ(0, b->err[3]);
	/* The uapi grants it rdpmc (no CPU-scope session holds CPU 1). */
	ASSERT_EQ(0, b->sig) TH_LOG("rdpmc(%#x) raised signal %d", b->fault_ecx, b->sig);
	ASSERT_EQ(self->c.nr_gp + __builtin_popcount(self->c.fixed_mask), b->n);
	for (i = 0; i < (int)b->n; i++) {
		if (b->ecx[i] == b->own) {
			/* Its own: what it ran since START, far from perf's values. */
			EXPECT_GT(10000000ULL, b->val[i]) TH_LOG("own counter %#x", b->own);
			continue;
		}
		EXPECT_EQ(0ULL, b->val[i]) {
			TH_LOG("cpu %d: rdpmc(%#x) = %#llx, left by root's perf events (the thread's own is %#x)",
			       LEFT_CPU, b->ecx[i], (unsigned long long)b->val[i], b->own);
		}
	}
	munmap(b, sizeof(*b));
}

/* ---- 2. migration ------------------------------------------------------------- */

#define MIG_ROUNDS	40
#define MIG_N		400000ULL

struct mig {
	unsigned int moves;
};

/* Move worker 0 between CPUs 0 and 1 until it is done. */
static void migrate(struct worker *w, void *arg)
{
	struct mig *m = arg;
	cpu_set_t set;
	int cpu = 0;

	while (!atomic_load(&w[0].done)) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (!sched_setaffinity(w[0].tid, sizeof(set), &set))
			m->moves++;
		cpu = !cpu;
		usleep(1000);
	}
}

/*
 * One thread counts its own loops (rdpmc and rdtscp around each) while
 * this thread moves it between CPU 0 and CPU 1 with sched_setaffinity()
 * every millisecond: rounds whose two rdtscp name different CPUs were
 * migrated in the middle of the loop (at least 3 must be); every delta
 * and the READ total are exact.
 */
TEST_F(task, a_thread_moved_between_cpus_mid_loop_counts_exactly)
{
	struct worker w[1];
	struct mig m = { 0 };
	uint32_t r[4];
	unsigned int migrated = 0;

	READY();
	if (self->ncpus < 2)
		SKIP(return, "one CPU online: nothing to migrate to");
	hw_cpuid(0x80000001, 0, r);
	if (!(r[3] & (1U << 27)))
		SKIP(return, "no RDTSCP (CPUID 0x80000001 EDX[27]): cannot see the CPU mid-loop");
	memset(w, 0, sizeof(w));
	w[0].cpu = -1;
	w[0].mode = W_PMUCTL;
	w[0].nev = 2;
	ev_inst(&w[0].ev[0], false);
	ev_inst(&w[0].ev[1], true);
	w[0].flags = TR_RDPMC | TR_RDTSCP;
	w[0].read_idx = 1;		/* the generic counter */
	w[0].n = MIG_N;
	w[0].rounds = MIG_ROUNDS;
	run_workers(_metadata, w, 1, migrate, &m);
	WORKER_RAN(&w[0]);
	for (int i = 0; i < MIG_ROUNDS; i++)
		if ((w[0].rec[i].cpu_a & 0xfff) != (w[0].rec[i].cpu_b & 0xfff))
			migrated++;
	TH_LOG("%u moves; %u of %d loops began on one CPU and ended on another",
	       m.moves, migrated, MIG_ROUNDS);
	expect_totals(_metadata, &w[0], TR_TOTAL(MIG_ROUNDS, MIG_N, w[0].flags), "migrated");
	expect_deltas(_metadata, self, &w[0], "migrated");
	expect_thread_view(_metadata, self, &w[0], "migrated");
	EXPECT_LE(3U, migrated) TH_LOG("too few loops migrated to prove anything");
	workers_close(w, 1);
}

/* ---- 6. reduced width ----------------------------------------------------------- */

/*
 * task_bits: the counters' width with full-width writes (Skylake-Server's
 * PERF_CAPABILITIES[13]), 32 without (KnightsMill), where a generic
 * counter is given back through its legacy address.  A thread's generic
 * counter first counts one long loop past 2^31 (WIDE_PRE_N), then
 * alternates with an uncounted thread on CPU 0, so that every switch-in
 * writes back a count with bit 31 set: rdpmc deltas masked to task_bits
 * are exact, rdpmc after the stop equals READ_THREAD, and READ's 64-bit
 * total modulo 2^task_bits; with task_bits 32 rdpmc shows bit 31
 * sign-extended, with full width the count.
 */
#define WIDE_PRE_N	((1ULL << 30) + 10000000ULL)

TEST_F(task, generic_counter_width_is_task_bits_and_rdpmc_agrees_with_read)
{
	struct worker w[2];
	uint64_t v[1], want, sext;
	struct pmuctl_read rd;
	bool fw = self->info.caps.flags & PMUCTL_CAP_FULL_WIDTH_WRITE;

	READY();
	TH_LOG("%s: full-width writes %s, task_bits %u, generic width %u",
	       self->c.rig ? self->c.rig->name : "?", fw ? "yes" : "no",
	       self->info.task_bits, self->c.gp_width);
	EXPECT_EQ(fw ? self->c.gp_width : 32U, self->info.task_bits);
	if (self->c.rig)
		EXPECT_EQ(!!(self->c.rig->perf_caps & (1ULL << 13)), fw);

	pingpong_setup(w, W_PMUCTL, TR_RDPMC);
	ev_inst(&w[0].ev[0], true);
	w[0].pre_n = WIDE_PRE_N;
	w[1].mode = W_NONE;
	run_workers(_metadata, w, 2, NULL, NULL);
	WORKER_RAN(&w[0]);
	ASSERT_EQ(0, w[0].pre.err);
	ASSERT_EQ(0, w[0].pre.start_ret);
	ASSERT_EQ(1ULL, w[0].pre.done);
	ASSERT_GT(RDPMC_FIXED, w[0].ev[0].counter);
	want = TR_TOTAL(1, WIDE_PRE_N, 0) + TR_TOTAL(PP_ROUNDS, w[0].n, TR_RDPMC);
	expect_totals(_metadata, &w[0], want, "generic past 2^31");
	expect_deltas(_metadata, self, &w[0], "generic past 2^31");
	expect_thread_view(_metadata, self, &w[0], "generic past 2^31");
	/*
	 * Past 2^31, a legacy write leaves bits 39:32 set (bit 31 extended):
	 * rdpmc shows exactly that where task_bits is 32, the count itself
	 * at full width.
	 */
	sext = (uint64_t)(int64_t)(int32_t)(uint32_t)want & pmu_width_mask(self->c.gp_width);
	EXPECT_EQ(self->info.task_bits == 32 ? sext : want, w[0].after[0])
		TH_LOG("rdpmc %#llx, count %#llx", (unsigned long long)w[0].after[0],
		       (unsigned long long)want);

	/* The negative: a thread the session does not count. */
	EXPECT_EQ(-ESRCH, sess_read(w[0].fd, PMUCTL_READ_THREAD, v, 1, &rd));
	workers_close(w, 2);
}

/* ---- nothing before START -------------------------------------------------------- */

/*
 * A task-scope group starts stopped: after PROGRAM, a known loop counts
 * nothing until START, also on a CPU where perf counted just before (perf
 * leaves IA32_PERF_GLOBAL_CTRL with every counter's bit set when its
 * last event goes: the enable bits of pmuctl's event selects must not be
 * all that stops them).  Then START .. pmu_loop .. STOP counts the loop.
 */
TEST_F(task, a_group_counts_nothing_before_start_even_after_perf_counted)
{
	struct pmuctl_event ev[2];
	struct pmuctl_read r;
	uint64_t v[2], t[2];
	int fd, pfd;

	READY();
	ASSERT_EQ(0, pmu_pin(0));
	pfd = perf_open_tid(0);
	ASSERT_LE(0, pfd) TH_LOG("perf_event_open: %s", strerror(-pfd));
	ASSERT_EQ(0, ioctl(pfd, PERF_EVENT_IOC_ENABLE, 0));
	pmu_loop(1000);
	close(pfd);

	fd = dev_open();
	ASSERT_LE(0, fd);
	ev_inst(&ev[0], false);
	ev_inst(&ev[1], true);
	ASSERT_EQ(0, prog_task(fd, PMUCTL_PROGRAM_TASK, ev, 2, NULL));
	pmu_loop(100000);
	ASSERT_EQ(0, sess_read(fd, 0, v, 2, &r));
	ASSERT_EQ(0, sess_read(fd, PMUCTL_READ_THREAD, t, 2, &r));
	TH_LOG("before START: READ %llu, %llu; READ_THREAD %llu, %llu",
	       (unsigned long long)v[0], (unsigned long long)v[1],
	       (unsigned long long)t[0], (unsigned long long)t[1]);
	EXPECT_EQ(0ULL, v[0]);
	EXPECT_EQ(0ULL, v[1]);
	EXPECT_EQ(0ULL, t[0]);
	EXPECT_EQ(0ULL, t[1]);
	ASSERT_EQ(0, ctl(fd, PMUCTL_IOC_START));
	pmu_loop(100000);
	ASSERT_EQ(0, ctl(fd, PMUCTL_IOC_STOP));
	ASSERT_EQ(0, sess_read(fd, 0, v, 2, &r));
	EXPECT_LE(PMU_LOOP_INSNS(100000), v[0]);
	EXPECT_EQ(v[0], v[1]);
	close(fd);
}

/* ---- the one-target rule --------------------------------------------------------- */

/*
 * A thread is the target of one task-scope session at most: a second
 * PROGRAM TASK from it is EBUSY, TASK_BUSY; once the first is released,
 * it goes through.
 */
TEST_F(task, a_thread_is_counted_by_one_task_session_at_most)
{
	struct pmuctl_event ev;
	uint32_t reason;
	int a = dev_open(), b = dev_open();

	READY();
	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	ev_inst(&ev, false);
	ASSERT_EQ(0, prog_task(a, PMUCTL_PROGRAM_TASK, &ev, 1, NULL));
	EXPECT_EQ(-EBUSY, prog_task(b, PMUCTL_PROGRAM_TASK, &ev, 1, &reason));
	EXPECT_EQ((uint32_t)PMUCTL_R_TASK_BUSY, reason);
	ASSERT_EQ(0, ctl(a, PMUCTL_IOC_RELEASE));
	EXPECT_EQ(0, prog_task(b, PMUCTL_PROGRAM_TASK, &ev, 1, &reason)) TH_LOG("reason %u", reason);
	close(a);
	close(b);
}

/* ---- 4. inheritance ------------------------------------------------------------- */

#define INH_THREADS	4
#define INH_T_N		30000ULL

static void *stack_top(void)
{
	char *s = mmap(NULL, STACK_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);

	return s == MAP_FAILED ? NULL : s + STACK_SIZE;
}

/* Wait until the kernel clears *tid (the thread ended): 0 or -ETIMEDOUT. */
static int wait_tid(volatile uint32_t *tid, int seconds)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };

	for (int i = 0; i < seconds * 10; i++) {
		uint32_t t = *tid;

		if (!t)
			return 0;
		syscall(SYS_futex, tid, FUTEX_WAIT, t, &ts, NULL, 0);
	}
	return *tid ? -ETIMEDOUT : 0;
}

/* /proc/.../stat's state letter of a thread or process ('?' if gone). */
static char proc_state(const char *path)
{
	char buf[512], *p;
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return '?';
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] && p[2] ? p[2] : '?';
}

/* Wait until each of @n tasks sleeps ('S'): 0 or -ETIMEDOUT. */
static int wait_sleeping(char (*paths)[64], int n)
{
	for (int t = 0; t < 1000; t++) {
		int s = 0;

		for (int i = 0; i < n; i++)
			s += proc_state(paths[i]) == 'S';
		if (s == n)
			return 0;
		usleep(10000);
	}
	return -ETIMEDOUT;
}

struct inh_run {
	struct task_inh a;
	struct task_kid kid[INH_THREADS], fk;
	struct pmuctl_program prog;
	struct pmuctl_event ev;
	struct pmuctl_ctl c;
	uint32_t ttid;
	int fd, ready[2], gate[2];
	char *argv[3];
	char *envp[1];
};

static void inh_init(struct inh_run *x, int fd)
{
	memset(x, 0, sizeof(*x));
	x->fd = fd;
	ev_inst(&x->ev, false);
	x->prog.flags = PMUCTL_PROGRAM_TASK | PMUCTL_PROGRAM_INHERIT;
	x->prog.nr_events = 1;
	x->prog.events = (uintptr_t)&x->ev;
	x->a.fd = fd;
	x->a.start_req = PMUCTL_IOC_START;
	x->a.ctl = (uintptr_t)&x->c;
	x->a.program_req = PMUCTL_IOC_PROGRAM;
	x->a.prog = (uintptr_t)&x->prog;
	x->a.nthreads = INH_THREADS;
	x->a.kids = (uintptr_t)x->kid;
	x->a.forked = (uintptr_t)&x->fk;
	x->a.n = INH_T_N;
	x->argv[0] = "workload";
	x->argv[1] = WORKLOAD_ARG;
	for (int i = 0; i < INH_THREADS; i++) {
		x->kid[i].n1 = 10000 + 1111 * i;
		x->kid[i].n2 = 100 + 7 * i;
		x->kid[i].ready_fd = -1;
		x->kid[i].gate_fd = -1;
		x->kid[i].exit_nr = SYS_exit;
	}
	x->fk.n1 = 20000;
	x->fk.n2 = 300;
	x->fk.ready_fd = -1;
	x->fk.gate_fd = -1;
	x->fk.exit_nr = SYS_exit_group;
}

/* The full count of a kid that ran to its end. */
static uint64_t kid_count(const struct task_kid *k)
{
	return TI_KID_COUNT(k->n1, k->n2, k->path) +
	       (k->path ? task_workload_count(WORKLOAD_N) : 0);
}

/*
 * PROGRAM TASK|INHERIT and START from a thread T, which then creates 4
 * threads and forks a child and exits; each of them runs known loops.
 * Threads 0 and 1 exit at once; threads 2 and 3 and the child write a
 * byte to "ready" and wait at a "gate" pipe.  Then, with T, 0 and 1 gone
 * and the 3 others asleep at the gate: READ says nr_threads 3 and a total
 * of exactly what T, 0 and 1 ran plus what the 3 ran up to the gate
 * (>= what had exited, <= the final total).  Through the gate, the child
 * execs workload (selftests/bench/workload.S), the threads exit: the
 * final total is exactly the sum of all known counts, workload's
 * 2N + 8D + 23 included, nr_threads 0, nr_lost 0.
 */
TEST_F(task, inherit_counts_threads_and_a_forked_exec_exactly)
{
	struct inh_run x;
	uint64_t exited, at_gate, final_want, v[1], v2[1];
	struct pmuctl_read mid, fin;
	char paths[3][64];
	int fd, status;
	pid_t pid;
	long t;

	READY();
	if (access(WORKLOAD, X_OK))
		SKIP(return, "no %s (build/vmbin/workload, the rig's -x): cannot exec a known count",
		     WORKLOAD);
	fd = dev_open();
	ASSERT_LE(0, fd);
	inh_init(&x, fd);
	ASSERT_EQ(0, pipe2(x.ready, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(x.gate, O_CLOEXEC));
	for (int i = 0; i < INH_THREADS; i++) {
		x.kid[i].stack = (uintptr_t)stack_top();
		ASSERT_NE(0ULL, x.kid[i].stack);
		if (i >= 2) {
			x.kid[i].ready_fd = x.ready[1];
			x.kid[i].gate_fd = x.gate[0];
		}
	}
	x.fk.ready_fd = x.ready[1];
	x.fk.gate_fd = x.gate[0];
	x.fk.path = (uintptr_t)WORKLOAD;
	x.fk.argv = (uintptr_t)x.argv;
	x.fk.envp = (uintptr_t)x.envp;

	t = task_spawn(&x.a, stack_top(), &x.ttid);
	ASSERT_LT(0, t) TH_LOG("clone: %s", strerror(-t));
	ASSERT_EQ(0, wait_tid(&x.ttid, 30)) TH_LOG("T did not end");
	if (x.a.program_ret) {
		/* Let the others go before saying why. */
		for (int i = 0; i < 3; i++)
			ASSERT_EQ(1, write(x.gate[1], "g", 1));
		if (x.a.fork_ret > 0)
			waitpid(x.a.fork_ret, &status, 0);
		for (int i = 0; i < INH_THREADS; i++)
			wait_tid(&x.kid[i].tid, 30);
		if (prog_skip(x.a.program_ret, x.prog.err_reason))
			SKIP(return, "%s", prog_skip(x.a.program_ret, x.prog.err_reason));
		ASSERT_EQ(0, x.a.program_ret) TH_LOG("PROGRAM TASK|INHERIT: %s, reason %u",
						     strerror(-x.a.program_ret), x.prog.err_reason);
	}
	ASSERT_EQ(0, x.a.start_ret);
	pid = x.a.fork_ret;
	ASSERT_LT(0, pid) TH_LOG("fork: %s", strerror(-pid));
	/* Threads 0 and 1 may be gone already: their tid words are 0 then. */
	ASSERT_NE(0U, x.kid[2].tid);
	ASSERT_NE(0U, x.kid[3].tid);
	ASSERT_EQ(0, wait_tid(&x.kid[0].tid, 30));
	ASSERT_EQ(0, wait_tid(&x.kid[1].tid, 30));
	for (int i = 0; i < 3; i++) {
		char b;

		ASSERT_EQ(1, read(x.ready[0], &b, 1));
	}
	snprintf(paths[0], sizeof(paths[0]), "/proc/self/task/%u/stat", x.kid[2].tid);
	snprintf(paths[1], sizeof(paths[1]), "/proc/self/task/%u/stat", x.kid[3].tid);
	snprintf(paths[2], sizeof(paths[2]), "/proc/%d/stat", pid);
	ASSERT_EQ(0, wait_sleeping(paths, 3)) TH_LOG("the three never slept at the gate");

	exited = TI_T_COUNT(INH_THREADS, INH_T_N) + kid_count(&x.kid[0]) +
		 kid_count(&x.kid[1]);
	at_gate = TI_KID_AT_GATE(x.kid[2].n1) + TI_KID_AT_GATE(x.kid[3].n1) +
		  TI_KID_AT_GATE(x.fk.n1);
	ASSERT_EQ(0, sess_read(fd, 0, v, 1, &mid));
	TH_LOG("while 3 wait: READ %llu, nr_threads %u, nr_lost %u; exited %llu + at the gate %llu = %llu",
	       (unsigned long long)v[0], mid.nr_threads, mid.nr_lost,
	       (unsigned long long)exited, (unsigned long long)at_gate,
	       (unsigned long long)(exited + at_gate));
	EXPECT_EQ(3U, mid.nr_threads);
	EXPECT_LE(exited, v[0]);
	EXPECT_EQ(exited + at_gate, v[0]);

	for (int i = 0; i < 3; i++)
		ASSERT_EQ(1, write(x.gate[1], "g", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, pmu_child_status(status)) TH_LOG("the child's workload: status %#x", status);
	ASSERT_EQ(0, wait_tid(&x.kid[2].tid, 30));
	ASSERT_EQ(0, wait_tid(&x.kid[3].tid, 30));

	final_want = exited;
	for (int i = 2; i < INH_THREADS; i++)
		final_want += kid_count(&x.kid[i]);
	final_want += kid_count(&x.fk);
	ASSERT_EQ(0, sess_read(fd, 0, v2, 1, &fin));
	TH_LOG("all gone: READ %llu, known %llu (%+lld; the exec'd workload %llu), nr_threads %u, nr_lost %u",
	       (unsigned long long)v2[0], (unsigned long long)final_want,
	       (long long)(v2[0] - final_want),
	       (unsigned long long)task_workload_count(WORKLOAD_N), fin.nr_threads,
	       fin.nr_lost);
	EXPECT_EQ(final_want, v2[0]);
	EXPECT_LE(v[0], v2[0]);
	EXPECT_EQ(0U, fin.nr_threads);
	EXPECT_EQ(0U, fin.nr_lost);
	EXPECT_EQ(0U, mid.nr_lost);
	close(fd);
	for (int i = 0; i < 2; i++) {
		close(x.ready[i]);
		close(x.gate[i]);
	}
}

/*
 * kill -9 of a counted process mid-loop: an INHERIT session's forked
 * child is killed in a long loop, after it wrote "ready"; the session's
 * total then holds exactly what T and its two threads ran, plus at least
 * the child's count up to "ready" and at most its whole run; nothing is
 * counted any more (nr_threads 0, a second READ the same).  Meanwhile
 * another thread's own session, running its rounds on the same CPUs, is
 * exact.
 */
TEST_F(task, kill9_of_a_counted_process_leaves_the_other_counts_exact)
{
	struct inh_run x;
	struct worker w[1];
	pthread_barrier_t bar;
	pthread_t th;
	uint64_t others, v[1], v2[1], lo, hi;
	struct pmuctl_read r1, r2;
	int fd, status, p[2];
	pid_t pid;
	long t;
	char b;

	READY();
	/* The bystander: its own session, rounds through a pipe of its own. */
	memset(w, 0, sizeof(w));
	w[0].cpu = -1;
	w[0].mode = W_PMUCTL;
	w[0].nev = 1;
	ev_inst(&w[0].ev[0], false);
	w[0].n = 200000;
	w[0].rounds = 30;
	w[0].read_idx = 0;
	w[0].fd = -1;
	ASSERT_EQ(0, pipe2(p, O_CLOEXEC));
	w[0].in_fd = p[0];
	w[0].out_fd = p[1];
	ASSERT_EQ(0, pthread_barrier_init(&bar, NULL, 2));
	w[0].bar = &bar;
	ASSERT_EQ(0, pthread_create(&th, NULL, worker_main, &w[0]));
	pthread_barrier_wait(&bar);
	pthread_barrier_wait(&bar);
	ASSERT_EQ(1, write(p[1], "t", 1));

	fd = dev_open();
	ASSERT_LE(0, fd);
	inh_init(&x, fd);
	x.a.nthreads = 2;
	ASSERT_EQ(0, pipe2(x.ready, O_CLOEXEC));
	for (int i = 0; i < 2; i++) {
		x.kid[i].stack = (uintptr_t)stack_top();
		ASSERT_NE(0ULL, x.kid[i].stack);
	}
	x.fk.ready_fd = x.ready[1];
	x.fk.n2 = 1ULL << 40;		/* hours: it is killed in there */
	t = task_spawn(&x.a, stack_top(), &x.ttid);
	ASSERT_LT(0, t) TH_LOG("clone: %s", strerror(-t));
	ASSERT_EQ(0, wait_tid(&x.ttid, 30));
	pid = x.a.fork_ret;
	if (x.a.program_ret || pid <= 0) {
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
		}
		pthread_join(th, NULL);
		if (prog_skip(x.a.program_ret, x.prog.err_reason))
			SKIP(return, "%s", prog_skip(x.a.program_ret, x.prog.err_reason));
		ASSERT_EQ(0, x.a.program_ret) TH_LOG("reason %u", x.prog.err_reason);
		ASSERT_LT(0, pid);
	}
	ASSERT_EQ(0, wait_tid(&x.kid[0].tid, 30));
	ASSERT_EQ(0, wait_tid(&x.kid[1].tid, 30));
	ASSERT_EQ(1, read(x.ready[0], &b, 1));
	usleep(50000);
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(SIGKILL, pmu_child_status(status));
	pthread_join(th, NULL);

	others = TI_T_COUNT(2, INH_T_N) + kid_count(&x.kid[0]) + kid_count(&x.kid[1]);
	lo = others + TI_KID_AT_READY(x.fk.n1);
	hi = others + TI_KID_COUNT(x.fk.n1, x.fk.n2, 0);
	ASSERT_EQ(0, sess_read(fd, 0, v, 1, &r1));
	usleep(20000);
	ASSERT_EQ(0, sess_read(fd, 0, v2, 1, &r2));
	TH_LOG("after kill -9: READ %llu (the killed child's share %lld, at least %llu), nr_threads %u, nr_lost %u",
	       (unsigned long long)v[0], (long long)(v[0] - others),
	       (unsigned long long)TI_KID_AT_READY(x.fk.n1), r1.nr_threads, r1.nr_lost);
	EXPECT_LE(lo, v[0]);
	EXPECT_GE(hi, v[0]);
	EXPECT_EQ(v[0], v2[0]);
	EXPECT_EQ(0U, r1.nr_threads);
	EXPECT_EQ(0U, r1.nr_lost);

	WORKER_RAN(&w[0]);
	expect_totals(_metadata, &w[0], TR_TOTAL(w[0].rounds, w[0].n, 0), "the bystander");
	workers_close(w, 1);
	pthread_barrier_destroy(&bar);
	close(fd);
	close(p[0]);
	close(p[1]);
	close(x.ready[0]);
	close(x.ready[1]);
}

/* ---- 5. enable on exec ---------------------------------------------------------- */

enum { EOE_EXEC, EOE_NO_EXEC, START_EXEC };

/*
 * Fork a child that programs the shared session file (TASK|INHERIT, with
 * or without ENABLE_ON_EXEC, START where asked) and execs workload or
 * runs a loop; returns the child's status (pmu_child_status()).
 */
static int eoe_child(int fd, int how)
{
	struct pmuctl_event ev;
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		uint32_t fl = PMUCTL_PROGRAM_TASK | PMUCTL_PROGRAM_INHERIT;

		if (how != START_EXEC)
			fl |= PMUCTL_PROGRAM_ENABLE_ON_EXEC;
		ev_inst(&ev, false);
		if (prog_task(fd, fl, &ev, 1, NULL))
			_exit(3);
		if (how == START_EXEC && ctl(fd, PMUCTL_IOC_START))
			_exit(4);
		if (how == EOE_NO_EXEC) {
			pmu_loop(100000);
			_exit(0);
		}
		execl(WORKLOAD, "workload", WORKLOAD_ARG, (char *)NULL);
		_exit(5);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * A child programs TASK|INHERIT|ENABLE_ON_EXEC on a session file it
 * shares with the parent, then execs workload N: the parent's READ is
 * exactly 2N + 8D + 23, nothing of the child before the exec.  The
 * negatives: the same child that does not exec counts nothing (its loop
 * included); one that STARTs before the exec, without ENABLE_ON_EXEC,
 * counts more than the workload (the rest of its ioctl and execl).
 */
TEST_F(task, enable_on_exec_counts_the_exec_d_program_alone)
{
	const uint64_t want = task_workload_count(WORKLOAD_N);
	struct pmuctl_read r;
	uint64_t v[1];
	int fd, st;

	READY();
	if (access(WORKLOAD, X_OK))
		SKIP(return, "no %s (build/vmbin/workload, the rig's -x): cannot exec a known count",
		     WORKLOAD);
	fd = dev_open();
	ASSERT_LE(0, fd);
	st = eoe_child(fd, EOE_EXEC);
	ASSERT_EQ(0, st) TH_LOG("child: status %d (3: PROGRAM, 5: exec)", st);
	ASSERT_EQ(0, sess_read(fd, 0, v, 1, &r));
	TH_LOG("ENABLE_ON_EXEC: READ %llu, workload %s: %llu (%+lld); nr_threads %u",
	       (unsigned long long)v[0], WORKLOAD_ARG, (unsigned long long)want,
	       (long long)(v[0] - want), r.nr_threads);
	EXPECT_EQ(want, v[0]);
	EXPECT_EQ(0U, r.nr_threads);
	EXPECT_EQ(0U, r.nr_lost);
	close(fd);

	fd = dev_open();
	ASSERT_LE(0, fd);
	st = eoe_child(fd, EOE_NO_EXEC);
	ASSERT_EQ(0, st) TH_LOG("child: status %d", st);
	ASSERT_EQ(0, sess_read(fd, 0, v, 1, &r));
	TH_LOG("ENABLE_ON_EXEC without an exec: READ %llu", (unsigned long long)v[0]);
	EXPECT_EQ(0ULL, v[0]);
	close(fd);

	fd = dev_open();
	ASSERT_LE(0, fd);
	st = eoe_child(fd, START_EXEC);
	ASSERT_EQ(0, st) TH_LOG("child: status %d (4: START)", st);
	ASSERT_EQ(0, sess_read(fd, 0, v, 1, &r));
	TH_LOG("START before the exec: READ %llu, workload %llu (+%lld)",
	       (unsigned long long)v[0], (unsigned long long)want, (long long)(v[0] - want));
	EXPECT_LT(want, v[0]);
	close(fd);
}

PMU_TEST_MAIN(false, (void)0)
