// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctl beside perf's running PMU driver on a perfmon v6 PMU under
 * Linux 6.11+ (the rig's PerfmonV6 guests: scripts/vm/run.sh -P -c
 * PerfmonV6), where perf addresses its counters at 0x1900+, outside the
 * NMI reservation, and pmuctl keeps perf's events off the PMU with an
 * exclusive pinned perf event of its own on fixed counter 2 of every
 * online CPU, the "sentinel" (doc/perfmon-v6-coexistence.md).
 *
 * The sentinel keeps perf's events off, not perf's driver: it raises
 * perf's active_events, so intel_pmu_handle_irq() runs at every NMI, and
 * perf_pmu_disable()/enable() still run on that CPU whenever a task that
 * owns a perf event switches in or out, a CPU-wide event is installed
 * (ctx_resched()), or a waiting flexible event arms the 4 ms rotation
 * timer.  Each disable writes IA32_PERF_GLOBAL_CTRL 0, each enable writes
 * perf's intel_ctrl: every counter perf knows (leaf 0AH: generic 0-7,
 * fixed 0-3 here), none it does not (generic 8 and 9, which only leaf
 * 23H enumerates) [LNX 6.12 arch/x86/events/intel/core.c
 * __intel_pmu_disable_all(), __intel_pmu_enable_all(),
 * intel_pmu_check_counters_mask()].  FIXED_CTR_CTRL is written from
 * perf's cache (cpuc->fixed_ctrl_val: the sentinel's nibble only) when
 * that cache changed since perf last wrote it.  What pmuctl's counts must
 * survive, observed from outside: known-count code (task_asm.S, the
 * emulated PMU's exact user-mode instructions; cycles are instructions
 * there, scripts/vm/qemu/pmu-spec.md), the registers through
 * /dev/cpu/1/msr, what rdpmc shows.
 *
 *   cpu_scope_counts_exactly_beside_a_task_without_perf
 *       control: two processes ping-pong on CPU 1 (task_pingpong()); a
 *       CPU-scope group there (instructions:u on fixed 0, cycles:u on
 *       fixed 1, instructions:u on every generic counter) counts
 *       exactly their user instructions;
 *   cpu_scope_counts_exactly_beside_a_perf_task_switching
 *       the same while one of them owns a perf event (perf_event_open on
 *       itself; never scheduled: the sentinel is exclusive), so that perf
 *       disables and enables the PMU at each of its switches: every
 *       counter still exact (perf's windows lie in kernel mode);
 *   task_scope_counts_exactly_beside_a_perf_task_switching
 *       a thread's task-scope group (the same events) counts its own
 *       task_rounds() exactly while it ping-pongs with such a process;
 *   task_scope_counts_exactly_beside_a_waiting_perf_cpu_event
 *       ... and while a CPU-wide flexible perf event, opened on its CPU
 *       after the PROGRAM, waits there (perf's rotation timer disables
 *       and enables the PMU every 4 ms while the thread runs);
 *   switched_out_task_counters_do_not_count_beside_perf
 *       while a task-scope thread is switched out, the counters it left
 *       do not count another process's work (stopped in GLOBAL_CTRL
 *       alone, with EN left in their selects, perf's next enable would
 *       restart them): the perf-owning process reads them through
 *       /dev/cpu/1/msr around a loop of its own;
 *   rdpmc_shows_no_other_activity_beside_perf
 *       a thread granted rdpmc by a task-scope session of its own reads 0
 *       from the other session's counters after that perf-owning process
 *       ran on its CPU (uapi: "rdpmc in a monitored thread reads 0 for
 *       other task-scope sessions' counters");
 *   perf_rdpmc_reads_no_task_scope_count
 *       a process that maps its perf event has perf's rdpmc grant
 *       (CR4.PCE whenever it runs): it reads 0 from the counters a
 *       switched-out task-scope thread left;
 *   cpu_scope_fixed_counters_survive_perf_cpu_events
 *       root opens a CPU-wide perf event on CPU 1 (pinned, then
 *       flexible: ctx_resched() schedules the sentinel out and in, the
 *       flexible one waits on the rotation timer) and closes it, while a
 *       CPU-scope group counts there on fixed counters 0 and 1: their
 *       FIXED_CTR_CTRL nibbles stay, the counts stay exact;
 *   cpu_scope_fixed_counters_survive_cpu_hotplug
 *       CPU 1 goes off and on line under the group (perf drops and pmuctl
 *       puts back the sentinel, whose first schedule writes perf's
 *       FIXED_CTR_CTRL cache): after a RESET the nibbles are set and the
 *       counts exact.
 *
 * Raw ioctls on /dev/pmuctl (the uapi header).  One SKIP, decided in
 * main(), without the emulated PMU or /dev/cpu/N/msr, where the PMU is
 * not perfmon v6, under Linux before 6.11 (perf uses the legacy addresses
 * and the NMI reservation: no perf event can exist while pmuctl holds
 * the counters), with fewer than 2 CPUs, or without pmuctl.ko's MSR
 * build; a test SKIPs when perf holds the PMU (kernel.nmi_watchdog=1).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include <linux/pmuctl.h>
#include "pmu.h"
#include "task.h"

#define DEV		"/dev/pmuctl"
#define CPU		1		/* where everything runs; the test itself on 0 */
#define MAXEV		16
#define ROUNDS		64
#define LOOP_N		1000
#define PERF_LOOP_N	100000		/* the perf-owning process's loop */
#define LONG_N		5000000		/* a loop spanning many 4 ms ticks */

/* perfmon v6 counter addresses [SDM vol. 3B; kmod/msr.c V6_*]. */
#define MSR_V6_GP_CTR(i)	(0x1900U + 4 * (i))
#define MSR_V6_FX_CTR(i)	(0x1980U + 4 * (i))

/* ---- the device -------------------------------------------------------------- */

static int dev_open(void)
{
	int fd = open(DEV, O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static int dev_ioctl(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) ? -errno : 0;
}

static int ctl(int fd, unsigned long req)
{
	struct pmuctl_ctl c;

	memset(&c, 0, sizeof(c));
	return dev_ioctl(fd, req, &c);
}

/* PROGRAM: task scope (@cpu < 0) or CPU scope on @cpu; *reason on failure. */
static int program(int fd, int cpu, struct pmuctl_event *ev, uint32_t n,
		   uint32_t *reason)
{
	uint64_t cpus = 1ULL << (cpu < 0 ? 0 : cpu);
	struct pmuctl_program p;
	int ret;

	memset(&p, 0, sizeof(p));
	p.flags = cpu < 0 ? PMUCTL_PROGRAM_TASK : 0;
	p.nr_events = n;
	p.events = (uintptr_t)ev;
	if (cpu >= 0) {
		p.cpus = (uintptr_t)&cpus;
		p.cpus_size = sizeof(cpus);
	}
	ret = dev_ioctl(fd, PMUCTL_IOC_PROGRAM, &p);
	*reason = ret ? p.err_reason : 0;
	return ret;
}

/* READ: CPU scope on @cpu, or (task scope) the totals with cpu 0. */
static int sess_read(int fd, uint32_t cpu, uint64_t *v, uint32_t n)
{
	struct pmuctl_read r;

	memset(&r, 0, sizeof(r));
	r.cpu = cpu;
	r.nr_values = n;
	r.values = (uintptr_t)v;
	return dev_ioctl(fd, PMUCTL_IOC_READ, &r);
}

static struct pmuctl_event ev_make(uint64_t config, uint32_t flags)
{
	struct pmuctl_event e;

	memset(&e, 0, sizeof(e));
	e.config = config;
	e.flags = flags;
	return e;
}

/*
 * The group of the exactness tests: instructions:u (fixed 0), cycles:u
 * (fixed 1; = instructions in the emulation) and instructions:u on each
 * of the @nr_gp generic counters.  Returns the number of events.
 */
static uint32_t group_all(struct pmuctl_event *ev, uint32_t nr_gp)
{
	uint32_t n = 0, i;

	ev[n++] = ev_make(EV_INST_RETIRED | PMUCTL_CFG_USR, 0);
	ev[n++] = ev_make(EV_CORE_CYCLES | PMUCTL_CFG_USR, 0);
	for (i = 0; i < nr_gp && n < MAXEV; i++)
		ev[n++] = ev_make(EV_INST_RETIRED | PMUCTL_CFG_USR,
				  PMUCTL_EVENT_GENERIC_ONLY);
	return n;
}

/* "fixed 0", "generic 8": a counter's name for the logs. */
static const char *ctr_name(uint32_t ecx)
{
	static char buf[4][24];
	static unsigned int k;
	char *b = buf[k++ % 4];

	snprintf(b, sizeof(buf[0]), "%s %u",
		 ecx & RDPMC_FIXED ? "fixed" : "generic", ecx & 0xffff);
	return b;
}

static uint32_t ctr_msr(uint32_t ecx)
{
	return ecx & RDPMC_FIXED ? MSR_V6_FX_CTR(ecx & 0xffff) :
				   MSR_V6_GP_CTR(ecx);
}

/* ---- processes ---------------------------------------------------------------- */

/* A perf event on the calling process, enabled: its context exists. */
static int perf_open_self(void)
{
	struct perf_event_attr a;

	pmu_perf_attr(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return pmu_perf_open(&a, 0, -1, -1);
}

/* A CPU-wide perf event on @cpu (root), pinned or flexible. */
static int perf_open_cpu(int cpu, bool pinned)
{
	struct perf_event_attr a;

	pmu_perf_attr(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	a.pinned = pinned;
	return pmu_perf_open(&a, -1, cpu, -1);
}

/*
 * Fork a process pinned to @cpu that (with @perf) opens a perf event on
 * itself, then runs task_pingpong(in, out, rounds, n).  Its pid, or
 * -errno.  A child that cannot pin or open exits 2 or 3 at once.
 */
static pid_t pp_spawn(int cpu, int in, int out, long rounds, long n, bool perf)
{
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid)
		return pid;
	if (pmu_pin(cpu))
		_exit(2);
	if (perf && perf_open_self() < 0)
		_exit(3);
	task_pingpong(in, out, rounds, n);
}

/*
 * Wait (up to 2 s) until @pid sleeps in read(@fd, ...): /proc/PID/syscall
 * "0 0xFD ...".  True once it does.
 */
static bool blocked_in_read(pid_t pid, int fd)
{
	char path[64], want[32], buf[128];
	int i;

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	snprintf(want, sizeof(want), "0 0x%x ", fd);
	for (i = 0; i < 200; i++) {
		if (!hw_read_line(path, buf, sizeof(buf)) &&
		    !strncmp(buf, want, strlen(want)))
			return true;
		usleep(10000);
	}
	return false;
}

/*
 * One CPU-scope window: two ping-pong processes on CPU 1 (the second
 * owning a perf event with @perf), both blocked in their first read when
 * the group starts, both gone when it stops.  0 and the values, or a
 * negative step that failed.
 */
static int cpu_pingpong(int fd, bool perf, uint64_t *v, uint32_t n)
{
	int a[2], b[2], ret = 0, st;
	pid_t pa, pb;

	if (pipe(a) || pipe(b))
		return -1;
	pa = pp_spawn(CPU, a[0], b[1], ROUNDS, LOOP_N, false);
	pb = pp_spawn(CPU, b[0], a[1], ROUNDS, LOOP_N, perf);
	if (pa < 0 || pb < 0 || !blocked_in_read(pa, a[0]) ||
	    !blocked_in_read(pb, b[0]))
		ret = -2;
	if (!ret && (ctl(fd, PMUCTL_IOC_RESET) || ctl(fd, PMUCTL_IOC_START)))
		ret = -3;
	if (!ret && write(a[1], "k", 1) != 1)
		ret = -4;
	if (ret) {
		if (pa > 0)
			kill(pa, SIGKILL);
		if (pb > 0)
			kill(pb, SIGKILL);
	}
	if (pa > 0 && (waitpid(pa, &st, 0) != pa || pmu_child_status(st)) && !ret)
		ret = -5;
	if (pb > 0 && (waitpid(pb, &st, 0) != pb || pmu_child_status(st)) && !ret)
		ret = -6;
	if (!ret && (ctl(fd, PMUCTL_IOC_STOP) || sess_read(fd, CPU, v, n)))
		ret = -7;
	close(a[0]);
	close(a[1]);
	close(b[0]);
	close(b[1]);
	return ret;
}

/* Window @t missed @want: each counter's difference, on one line. */
static void window_missed(struct __test_metadata *_metadata, int t,
			  const uint64_t *v, uint32_t n, uint64_t want)
{
	char buf[16 * MAXEV + 1];
	int len = 0;
	uint32_t i;

	for (i = 0; i < n && len < (int)sizeof(buf); i++)
		len += snprintf(buf + len, sizeof(buf) - len, " %+" PRId64,
				(int64_t)(v[i] - want));
	TH_LOG("window %d missed; each counter's difference:%s", t + 1, buf);
}

/* ---- one-step helpers: a thread or a process doing what it is told ---------- */

enum step_op { OP_QUIT, OP_PROGRAM, OP_LOOP, OP_RDPMC, OP_MEASURE, OP_PERF_MMAP };

struct step_req {
	uint32_t op;
	uint32_t n;			/* counters */
	uint32_t ecx[MAXEV];		/* OP_RDPMC, OP_MEASURE: counters to read */
	struct pmuctl_event ev[MAXEV];	/* OP_PROGRAM */
};

struct step_rep {
	int ret;
	int sig;			/* OP_RDPMC: the signal rdpmc raised, or 0 */
	uint32_t reason;
	struct pmuctl_event ev[MAXEV];	/* OP_PROGRAM: placed */
	uint64_t v[MAXEV];		/* OP_RDPMC: values; OP_MEASURE: deltas */
};

struct stepper {
	int req[2], rep[2];
	int cpu;
	int fd;				/* its session (threads) */
	int msr;			/* /dev/cpu/CPU/msr (the process) */
	int perf;			/* the process: its perf event on itself */
	pthread_t t;
	pid_t pid;
};

static __thread sigjmp_buf step_jmp;

static void step_fault(int sig)
{
	siglongjmp(step_jmp, sig);
}

/* rdpmc of @n counters into @v; 0, or the signal it raised (no CR4.PCE). */
static int step_rdpmc(const uint32_t *ecx, uint32_t n, uint64_t *v)
{
	volatile uint32_t i = 0;
	int sig;

	signal(SIGSEGV, step_fault);
	signal(SIGILL, step_fault);
	sig = sigsetjmp(step_jmp, 1);
	if (!sig)
		for (; i < n; i++)
			v[i] = pmu_rdpmc(ecx[i]);
	signal(SIGSEGV, SIG_DFL);
	signal(SIGILL, SIG_DFL);
	return sig;
}

static void step_do(struct stepper *s, const struct step_req *q, struct step_rep *r)
{
	uint64_t before[MAXEV], after;
	uint32_t i;
	void *page;

	memset(r, 0, sizeof(*r));
	switch (q->op) {
	case OP_PROGRAM:
		memcpy(r->ev, q->ev, sizeof(r->ev));
		r->ret = program(s->fd, -1, r->ev, q->n, &r->reason);
		if (!r->ret)
			r->ret = ctl(s->fd, PMUCTL_IOC_START);
		break;
	case OP_LOOP:
		pmu_loop(LOOP_N);
		break;
	case OP_RDPMC:
		r->sig = step_rdpmc(q->ecx, q->n, r->v);
		break;
	case OP_PERF_MMAP:
		/*
		 * perf's own rdpmc grant: mapping the event's first page
		 * raises mm->context.perf_rdpmc_allowed (x86_pmu_event_mapped(),
		 * even for an event that never gets on), so CR4.PCE is set
		 * whenever this process runs.
		 */
		page = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED,
			    s->perf, 0);
		r->ret = page == MAP_FAILED ? -errno : 0;
		break;
	case OP_MEASURE:
		/* The counters, a loop of this process's own, the counters. */
		for (i = 0; i < q->n && !r->ret; i++)
			r->ret = pmu_msr_read(s->msr, ctr_msr(q->ecx[i]), &before[i]);
		pmu_loop(PERF_LOOP_N);
		for (i = 0; i < q->n && !r->ret; i++) {
			r->ret = pmu_msr_read(s->msr, ctr_msr(q->ecx[i]), &after);
			r->v[i] = (after - before[i]) & pmu_width_mask(48);
		}
		break;
	}
}

static void step_loop(struct stepper *s)
{
	struct step_req q;
	struct step_rep r;

	while (read(s->req[0], &q, sizeof(q)) == sizeof(q) && q.op != OP_QUIT) {
		step_do(s, &q, &r);
		if (write(s->rep[1], &r, sizeof(r)) != sizeof(r))
			break;
	}
}

static void *step_thread(void *arg)
{
	struct stepper *s = arg;

	pmu_pin(s->cpu);
	step_loop(s);
	return NULL;
}

static int step_pipes(struct stepper *s, int cpu)
{
	memset(s, 0, sizeof(*s));
	s->cpu = cpu;
	s->fd = s->msr = s->perf = -1;
	if (pipe(s->req))
		return -errno;
	if (pipe(s->rep))
		return -errno;
	return 0;
}

/* A thread pinned to @cpu with a session of its own. */
static int step_start_thread(struct stepper *s, int cpu)
{
	int ret = step_pipes(s, cpu);

	if (ret)
		return ret;
	s->fd = dev_open();
	if (s->fd < 0)
		return s->fd;
	return -pthread_create(&s->t, NULL, step_thread, s);
}

/* A process pinned to @cpu, owning a perf event, reading @cpu's MSRs. */
static int step_start_process(struct stepper *s, int cpu)
{
	int ret = step_pipes(s, cpu);

	if (ret)
		return ret;
	fflush(stdout);
	fflush(stderr);
	s->pid = fork();
	if (s->pid < 0)
		return -errno;
	if (!s->pid) {
		s->perf = perf_open_self();
		if (pmu_pin(cpu) || s->perf < 0)
			_exit(2);
		s->msr = pmu_msr_open(cpu);
		if (s->msr < 0)
			_exit(3);
		step_loop(s);
		_exit(0);
	}
	return 0;
}

static int step(struct stepper *s, const struct step_req *q, struct step_rep *r)
{
	if (write(s->req[1], q, sizeof(*q)) != sizeof(*q) ||
	    read(s->rep[0], r, sizeof(*r)) != sizeof(*r))
		return -EPIPE;
	return r->ret;
}

static void step_end(struct stepper *s)
{
	struct step_req q = { .op = OP_QUIT };
	int st;

	if (write(s->req[1], &q, sizeof(q)) == sizeof(q)) {
		if (s->pid > 0)
			waitpid(s->pid, &st, 0);
		else if (s->t)
			pthread_join(s->t, NULL);
	}
	if (s->fd >= 0)
		close(s->fd);
	close(s->req[0]);
	close(s->req[1]);
	close(s->rep[0]);
	close(s->rep[1]);
}

/* ---- the fixture --------------------------------------------------------------- */

FIXTURE(v6) {
	int fd;
	struct pmuctl_info info;
	uint32_t nr_gp;
	bool ready;
};

#define READY() do {							\
	if (!self->ready)						\
		return;							\
} while (0)

FIXTURE_SETUP(v6)
{
	struct pmuctl_event ev = ev_make(EV_INST_RETIRED | PMUCTL_CFG_USR, 0);
	uint32_t reason;
	int ret;

	/*
	 * The test itself runs on CPU 0: a CPU-scope window on CPU 1 counts
	 * every user instruction there, the test's own between START and
	 * STOP too if it ran there.
	 */
	ASSERT_EQ(0, pmu_pin(0));
	self->fd = dev_open();
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", DEV, strerror(-self->fd));
	memset(&self->info, 0, sizeof(self->info));
	ASSERT_EQ(0, dev_ioctl(self->fd, PMUCTL_IOC_INFO, &self->info));
	self->nr_gp = self->info.caps.nr_gp;
	/* perf's watchdog holds the PMU: every PROGRAM is PERF_BUSY. */
	ret = program(self->fd, CPU, &ev, 1, &reason);
	if (ret == -EBUSY && reason == PMUCTL_R_PERF_BUSY)
		SKIP(return, "perf holds the PMU (kernel.nmi_watchdog=%d): PERF_BUSY",
		     pmu_watchdog_on());
	ASSERT_EQ(0, ret) TH_LOG("PROGRAM: %s, reason %u", strerror(-ret), reason);
	ASSERT_EQ(0, ctl(self->fd, PMUCTL_IOC_RELEASE));
	self->ready = true;
}

FIXTURE_TEARDOWN(v6)
{
	if (self->fd >= 0)
		close(self->fd);
}

/*
 * A CPU-scope window of cpu_pingpong() until instructions:u (fixed 0)
 * reads the known count: another user task may run on CPU 1 meanwhile
 * (pmu.h, PMU_WINDOW_TRIES; each window that missed is logged).  Then
 * every counter must read it too.
 */
static void cpu_scope_exact(struct __test_metadata *_metadata, int fd,
			    uint32_t nr_gp, bool perf)
{
	struct pmuctl_event ev[MAXEV];
	uint64_t v[MAXEV], want = 2 * TP_TOTAL(ROUNDS, LOOP_N);
	uint32_t n = group_all(ev, nr_gp), reason, i;
	int ret, t;

	ret = program(fd, CPU, ev, n, &reason);
	ASSERT_EQ(0, ret) TH_LOG("PROGRAM %u events on CPU %d: %s, reason %u",
				 n, CPU, strerror(-ret), reason);
	for (t = 0; t < PMU_WINDOW_TRIES; t++) {
		ret = cpu_pingpong(fd, perf, v, n);
		ASSERT_EQ(0, ret) TH_LOG("the ping-pong failed at step %d", -ret);
		if (v[0] == want)
			break;
		window_missed(_metadata, t, v, n, want);
	}
	TH_LOG("%d window(s); want %" PRIu64 " each", t + 1, want);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(want, v[i]) TH_LOG("%s (%s): %" PRIu64 " (%+" PRId64 ")",
					     ctr_name(ev[i].counter),
					     i == 1 ? "cycles:u" : "instructions:u",
					     v[i], (int64_t)(v[i] - want));
	}
	EXPECT_EQ(0, ctl(fd, PMUCTL_IOC_RELEASE));
}

TEST_F(v6, cpu_scope_counts_exactly_beside_a_task_without_perf)
{
	READY();
	cpu_scope_exact(_metadata, self->fd, self->nr_gp, false);
}

TEST_F(v6, cpu_scope_counts_exactly_beside_a_perf_task_switching)
{
	READY();
	cpu_scope_exact(_metadata, self->fd, self->nr_gp, true);
}

/* ---- task scope ------------------------------------------------------------------ */

struct tthread {
	int fd;
	struct pmuctl_event ev[MAXEV];
	uint32_t n, reason;
	int in_fd, out_fd;
	uint64_t loop_n, rounds;
	pthread_barrier_t *bar;		/* NULL, or met twice after PROGRAM */
	int prog_ret;
	struct task_rounds tr;
	uint64_t total[MAXEV];
	int read_ret;
};

/* T: program its own group, then task_rounds() with START and STOP. */
static void *tthread_main(void *arg)
{
	static struct pmuctl_ctl c;
	struct tthread *t = arg;

	pmu_pin(CPU);
	t->prog_ret = program(t->fd, -1, t->ev, t->n, &t->reason);
	if (t->bar) {
		pthread_barrier_wait(t->bar);
		pthread_barrier_wait(t->bar);
	}
	memset(&t->tr, 0, sizeof(t->tr));
	t->tr.fd = t->prog_ret ? (uint64_t)-1 : (uint64_t)t->fd;
	t->tr.start_req = PMUCTL_IOC_START;
	t->tr.stop_req = PMUCTL_IOC_STOP;
	t->tr.ctl = (uintptr_t)&c;
	t->tr.in_fd = t->in_fd;
	t->tr.out_fd = t->out_fd;
	t->tr.n = t->loop_n;
	t->tr.rounds = t->rounds;
	/* Whatever failed, the rounds run: the partner waits for them. */
	task_rounds(&t->tr);
	if (!t->prog_ret)
		t->read_ret = sess_read(t->fd, 0, t->total, t->n);
	return NULL;
}

/* T's rounds done and counted exactly: TR_TOTAL() on every counter. */
static void tthread_exact(struct __test_metadata *_metadata, const struct tthread *t)
{
	uint64_t want = TR_TOTAL(t->rounds, t->loop_n, 0);
	uint32_t i;

	ASSERT_EQ(0, t->prog_ret) TH_LOG("PROGRAM TASK: reason %u", t->reason);
	EXPECT_EQ(0, t->tr.start_ret);
	EXPECT_EQ(0, t->tr.stop_ret);
	EXPECT_EQ(0, t->tr.err);
	EXPECT_EQ(t->rounds, t->tr.done);
	ASSERT_EQ(0, t->read_ret);
	TH_LOG("want %" PRIu64 " each", want);
	for (i = 0; i < t->n; i++) {
		EXPECT_EQ(want, t->total[i]) TH_LOG("%s: %" PRIu64 " (%+" PRId64 ")",
						    ctr_name(t->ev[i].counter), t->total[i],
						    (int64_t)(t->total[i] - want));
	}
}

TEST_F(v6, task_scope_counts_exactly_beside_a_perf_task_switching)
{
	struct tthread t;
	int a[2], b[2], st;
	pthread_t th;
	pid_t p;

	READY();
	memset(&t, 0, sizeof(t));
	t.fd = self->fd;
	t.n = group_all(t.ev, self->nr_gp);
	t.loop_n = LOOP_N;
	t.rounds = ROUNDS;
	ASSERT_EQ(0, pipe(a));
	ASSERT_EQ(0, pipe(b));
	/* P: owns a perf event; answers T's every write. */
	p = pp_spawn(CPU, b[0], a[1], ROUNDS, 0, true);
	ASSERT_LT(0, p);
	t.in_fd = a[0];
	t.out_fd = b[1];
	ASSERT_EQ(0, pthread_create(&th, NULL, tthread_main, &t));
	ASSERT_EQ(1, write(a[1], "k", 1));	/* T's first read */
	pthread_join(th, NULL);
	ASSERT_EQ(p, waitpid(p, &st, 0));
	EXPECT_EQ(0, pmu_child_status(st)) TH_LOG("the perf-owning process: status %#x", st);
	tthread_exact(_metadata, &t);
	EXPECT_EQ(0, ctl(self->fd, PMUCTL_IOC_RELEASE));
	close(a[0]);
	close(a[1]);
	close(b[0]);
	close(b[1]);
}

/*
 * A CPU-wide flexible perf event opened on CPU 1 after T's PROGRAM (no
 * refusal then) never gets on, and perf's rotation timer disables and
 * enables the PMU every 4 ms (perf_rotate_context()) while T runs a long
 * loop there: T's count stays exact on every counter.
 */
TEST_F(v6, task_scope_counts_exactly_beside_a_waiting_perf_cpu_event)
{
	pthread_barrier_t bar;
	struct tthread t;
	pthread_t th;
	int a[2], pfd;

	READY();
	memset(&t, 0, sizeof(t));
	t.fd = self->fd;
	t.n = group_all(t.ev, self->nr_gp);
	t.loop_n = LONG_N;
	t.rounds = 1;
	ASSERT_EQ(0, pipe(a));
	ASSERT_EQ(1, write(a[1], "k", 1));	/* one round on a pipe of its own */
	t.in_fd = a[0];
	t.out_fd = a[1];
	ASSERT_EQ(0, pthread_barrier_init(&bar, NULL, 2));
	t.bar = &bar;
	ASSERT_EQ(0, pthread_create(&th, NULL, tthread_main, &t));
	pthread_barrier_wait(&bar);		/* T programmed */
	pfd = perf_open_cpu(CPU, false);
	pthread_barrier_wait(&bar);
	pthread_join(th, NULL);
	ASSERT_LE(0, pfd) TH_LOG("a flexible CPU-wide perf event on CPU %d: %s",
				 CPU, strerror(-pfd));
	close(pfd);
	tthread_exact(_metadata, &t);
	EXPECT_EQ(0, ctl(self->fd, PMUCTL_IOC_RELEASE));
	pthread_barrier_destroy(&bar);
	close(a[0]);
	close(a[1]);
}

/*
 * T (a thread of this process, on CPU 1) holds a task-scope group of
 * every counter, started, and has run; P (another process, owning a perf
 * event) runs on CPU 1 while T sleeps.  *q gets T's counters.
 */
static void t_and_p(struct __test_metadata *_metadata, struct stepper *t,
		    struct stepper *p, uint32_t nr_gp, struct step_req *q)
{
	struct step_req pq;
	struct step_rep r;
	uint32_t i;
	int ret;

	ASSERT_EQ(0, step_start_thread(t, CPU));
	ASSERT_EQ(0, step_start_process(p, CPU));
	memset(&pq, 0, sizeof(pq));
	pq.op = OP_PROGRAM;
	pq.n = group_all(pq.ev, nr_gp);
	ret = step(t, &pq, &r);
	ASSERT_EQ(0, ret) TH_LOG("T's PROGRAM: %s, reason %u", strerror(-ret), r.reason);
	memset(q, 0, sizeof(*q));
	q->n = pq.n;
	for (i = 0; i < pq.n; i++)
		q->ecx[i] = r.ev[i].counter;
	pq.op = OP_LOOP;
	ASSERT_EQ(0, step(t, &pq, &r));
}

TEST_F(v6, switched_out_task_counters_do_not_count_beside_perf)
{
	struct stepper t, p;
	struct step_req q;
	struct step_rep r;
	uint32_t i;
	int k, ret;

	READY();
	t_and_p(_metadata, &t, &p, self->nr_gp, &q);
	/* Twice, T running in between: its switch-in loads its counts again. */
	for (k = 0; k < 2; k++) {
		q.op = OP_MEASURE;
		ret = step(&p, &q, &r);
		ASSERT_EQ(0, ret) TH_LOG("P's MSR reads: %s", strerror(-ret));
		TH_LOG("T switched out, P ran a loop of %u: its counters moved by", PERF_LOOP_N);
		for (i = 0; i < q.n; i++) {
			EXPECT_EQ(0ULL, r.v[i]) TH_LOG("  %s (MSR %#x): %" PRIu64,
						       ctr_name(q.ecx[i]), ctr_msr(q.ecx[i]),
						       r.v[i]);
		}
		q.op = OP_LOOP;
		ASSERT_EQ(0, step(&t, &q, &r));
	}
	step_end(&p);
	step_end(&t);
}

TEST_F(v6, rdpmc_shows_no_other_activity_beside_perf)
{
	struct stepper t, p, g;
	struct step_req q, gq;
	struct step_rep r;
	uint32_t i, k;
	int ret;

	READY();
	t_and_p(_metadata, &t, &p, self->nr_gp, &q);
	/* G: a group of its own on generic counter 0; rdpmc is its programmer's. */
	ASSERT_EQ(0, step_start_thread(&g, CPU));
	memset(&gq, 0, sizeof(gq));
	gq.op = OP_PROGRAM;
	gq.n = 1;
	gq.ev[0] = ev_make(EV_INST_RETIRED | PMUCTL_CFG_USR, PMUCTL_EVENT_GENERIC_ONLY);
	ret = step(&g, &gq, &r);
	ASSERT_EQ(0, ret) TH_LOG("G's PROGRAM: %s, reason %u", strerror(-ret), r.reason);
	/* G reads T's counters but the one it holds too. */
	memset(&gq, 0, sizeof(gq));
	gq.op = OP_RDPMC;
	for (i = 0; i < q.n; i++)
		if (q.ecx[i] != r.ev[0].counter)
			gq.ecx[gq.n++] = q.ecx[i];
	for (k = 0; k < 2; k++) {
		/* k = 0: right after T; k = 1: after P ran a loop there. */
		if (k) {
			q.op = OP_MEASURE;
			ASSERT_EQ(0, step(&p, &q, &r));
		}
		ASSERT_EQ(0, step(&g, &gq, &r));
		TH_LOG("G's rdpmc %s:", k ? "after P ran on CPU 1" : "after T ran on CPU 1");
		for (i = 0; i < gq.n; i++) {
			EXPECT_EQ(0ULL, r.v[i]) TH_LOG("  %s: %" PRIu64,
						       ctr_name(gq.ecx[i]), r.v[i]);
		}
	}
	step_end(&g);
	step_end(&p);
	step_end(&t);
}

/*
 * perf grants rdpmc to a process that maps one of its events (here one
 * that never gets on): that process must not read a task-scope thread's
 * count either, from the counters the thread left when it was switched
 * out.  A fault (no CR4.PCE) reads nothing too.
 */
TEST_F(v6, perf_rdpmc_reads_no_task_scope_count)
{
	struct stepper t, p;
	struct step_req q;
	struct step_rep r;
	uint32_t i;
	int ret;

	READY();
	t_and_p(_metadata, &t, &p, self->nr_gp, &q);
	memset(&r, 0, sizeof(r));
	q.op = OP_PERF_MMAP;
	ret = step(&p, &q, &r);
	ASSERT_EQ(0, ret) TH_LOG("mmap of P's perf event: %s", strerror(-ret));
	q.op = OP_RDPMC;
	ASSERT_EQ(0, step(&p, &q, &r));
	TH_LOG("P's rdpmc of T's counters, T switched out: %s",
	       r.sig ? strsignal(r.sig) : "ran");
	for (i = 0; i < q.n && !r.sig; i++) {
		EXPECT_EQ(0ULL, r.v[i]) TH_LOG("  %s: %" PRIu64, ctr_name(q.ecx[i]), r.v[i]);
	}
	step_end(&p);
	step_end(&t);
}

/* ---- FIXED_CTR_CTRL --------------------------------------------------------------- */

/*
 * The CPU-scope group of the FIXED_CTR_CTRL tests: instructions:u on
 * fixed 0, cycles:u on fixed 1, instructions:u on generic 0 (a control:
 * no FIXED_CTR_CTRL nibble).  Their nibbles: USR only.
 */
#define FIXED01_USR	(FIXED_NIBBLE(0, FIXED_USR) | FIXED_NIBBLE(1, FIXED_USR))
#define FIXED01_MASK	(FIXED_NIBBLE(0, 0xf) | FIXED_NIBBLE(1, 0xf))

static void fixed_group(struct __test_metadata *_metadata, int fd,
			struct pmuctl_event *ev)
{
	uint32_t reason;
	int ret;

	ev[0] = ev_make(EV_INST_RETIRED | PMUCTL_CFG_USR, 0);
	ev[1] = ev_make(EV_CORE_CYCLES | PMUCTL_CFG_USR, 0);
	ev[2] = ev_make(EV_INST_RETIRED | PMUCTL_CFG_USR, PMUCTL_EVENT_GENERIC_ONLY);
	ret = program(fd, CPU, ev, 3, &reason);
	ASSERT_EQ(0, ret) TH_LOG("PROGRAM: %s, reason %u", strerror(-ret), reason);
	ASSERT_EQ(RDPMC_FIXED | 0, ev[0].counter);
	ASSERT_EQ(RDPMC_FIXED | 1, ev[1].counter);
	ASSERT_EQ(0, ctl(fd, PMUCTL_IOC_START));
}

/* FIXED_CTR_CTRL of CPU 1, logged as @when; its nibbles 0 and 1. */
static uint64_t fixed_ctrl(struct __test_metadata *_metadata, int msr,
			   const char *when)
{
	uint64_t f = 0, g = 0;

	EXPECT_EQ(0, pmu_msr_read(msr, MSR_FIXED_CTR_CTRL, &f));
	EXPECT_EQ(0, pmu_msr_read(msr, MSR_GLOBAL_CTRL, &g));
	TH_LOG("%s: FIXED_CTR_CTRL %#" PRIx64 ", GLOBAL_CTRL %#" PRIx64, when, f, g);
	return f & FIXED01_MASK;
}

/* The ping-pong counted exactly by the fixed group (after its RESET). */
static void fixed_counts_exact(struct __test_metadata *_metadata, int fd,
			       const char *when)
{
	static const char *const name[3] = {
		"fixed 0 instructions:u", "fixed 1 cycles:u", "generic 0 instructions:u",
	};
	uint64_t v[MAXEV], want = 2 * TP_TOTAL(ROUNDS, LOOP_N);
	unsigned int i;
	int ret, t;

	for (t = 0; t < PMU_WINDOW_TRIES; t++) {
		ret = cpu_pingpong(fd, false, v, 3);
		ASSERT_EQ(0, ret) TH_LOG("the ping-pong failed at step %d", -ret);
		if (v[2] == want)
			break;
		window_missed(_metadata, t, v, 3, want);
	}
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(want, v[i]) TH_LOG("%s: %s: %" PRIu64 ", want %" PRIu64,
					     when, name[i], v[i], want);
	}
	/* cpu_pingpong() stopped the group: running again, nibbles set. */
	ASSERT_EQ(0, ctl(fd, PMUCTL_IOC_START));
}

TEST_F(v6, cpu_scope_fixed_counters_survive_perf_cpu_events)
{
	struct pmuctl_event ev[3];
	int msr, pfd, k;

	READY();
	msr = pmu_msr_open(CPU);
	ASSERT_LE(0, msr);
	fixed_group(_metadata, self->fd, ev);
	EXPECT_EQ(FIXED01_USR, fixed_ctrl(_metadata, msr, "programmed"));
	for (k = 0; k < 2; k++) {
		const char *kind = k ? "flexible" : "pinned";
		char when[64];

		pfd = perf_open_cpu(CPU, !k);
		ASSERT_LE(0, pfd) TH_LOG("a %s CPU-wide perf event on CPU %d: %s",
					 kind, CPU, strerror(-pfd));
		/* A flexible one waits: the rotation timer runs every 4 ms. */
		usleep(50000);
		snprintf(when, sizeof(when), "%s perf event open", kind);
		EXPECT_EQ(FIXED01_USR, fixed_ctrl(_metadata, msr, when));
		fixed_counts_exact(_metadata, self->fd, when);
		close(pfd);
		usleep(10000);
		snprintf(when, sizeof(when), "%s perf event closed", kind);
		EXPECT_EQ(FIXED01_USR, fixed_ctrl(_metadata, msr, when));
		fixed_counts_exact(_metadata, self->fd, when);
	}
	EXPECT_EQ(0, ctl(self->fd, PMUCTL_IOC_RELEASE));
	close(msr);
}

TEST_F(v6, cpu_scope_fixed_counters_survive_cpu_hotplug)
{
	static const char online[] = "/sys/devices/system/cpu/cpu1/online";
	struct pmuctl_event ev[3];
	int msr;

	READY();
	if (access(online, W_OK))
		SKIP(return, "CPU %d cannot go off line (%s)", CPU, online);
	fixed_group(_metadata, self->fd, ev);
	ASSERT_EQ(0, hw_write_str(online, "0"));
	ASSERT_EQ(0, hw_write_str(online, "1"));
	msr = pmu_msr_open(CPU);
	ASSERT_LE(0, msr);
	EXPECT_EQ(FIXED01_USR, fixed_ctrl(_metadata, msr, "CPU 1 back"));
	fixed_counts_exact(_metadata, self->fd, "CPU 1 back");
	EXPECT_EQ(FIXED01_USR, fixed_ctrl(_metadata, msr, "counted"));
	EXPECT_EQ(0, ctl(self->fd, PMUCTL_IOC_RELEASE));
	close(msr);
}

/* ---- main ---------------------------------------------------------------------- */

/* Why this machine cannot run these tests, or NULL. */
static const char *unfit(void)
{
	static char why[256];
	const char *absent = pmu_emulation_absent(true);
	struct pmu_caps c;
	struct utsname u;
	unsigned int maj = 0, min = 0;

	if (absent)
		return absent;
	pmu_caps_read(&c);
	if (c.version < 6) {
		snprintf(why, sizeof(why),
			 "perfmon version %u: not v6 (the rig's PerfmonV6 guests)", c.version);
		return why;
	}
	if (uname(&u) || sscanf(u.release, "%u.%u", &maj, &min) != 2 ||
	    maj < 6 || (maj == 6 && min < 11)) {
		snprintf(why, sizeof(why),
			 "Linux %s: before 6.11 perf addresses a v6 PMU at the legacy MSRs and the NMI reservation refuses its events while pmuctl holds the counters: no sentinel, no perf event beside pmuctl",
			 u.release);
		return why;
	}
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2 || access("/dev/cpu/1/msr", F_OK))
		return "needs CPU 1 and /dev/cpu/1/msr";
	if (access(DEV, F_OK))
		return "no " DEV ": pmuctl.ko (default build) not loaded";
	return NULL;
}

int main(int argc, char **argv)
{
	const char *why = unfit();

	if (why) {
		ksft_print_header();
		ksft_exit_skip("%s\n", why);
	}
	return test_harness_run(argc, argv);
}
