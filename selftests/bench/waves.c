// SPDX-License-Identifier: GPL-2.0
/*
 * The guest half of "make bench": what each libpmuctl operation costs,
 * counted rather than timed (QEMU TCG times nothing worth reading), on one
 * CPU and on every online CPU:
 *
 *  - system calls: a child makes the library calls while this process
 *    traces it (ptrace, PTRACE_SYSCALL) and counts every system call it
 *    enters between two markers, write(-1, NULL, code), which the child
 *    makes before and after each call and which are not counted;
 *  - pmuctl.ko ioctls and cross-CPU call waves: around each call the child
 *    reads the module's debugfs "stats", one line per operation, "OP calls
 *    N waves M" (OP: info program start stop reset read release close;
 *    counts since load, all sessions), and keeps the differences.  Nothing
 *    else uses the device meanwhile: the rig runs one program at a time.
 *
 * The rules (each a test), for one CPU and for every online CPU:
 *  - PROGRAM is one wave whatever the number of CPUs, the rdpmc grant
 *    included, and pmuctl_program() is that one ioctl and one system call
 *    (issue 5: "program = 1 ioctl and 1 wave for any number of target
 *    CPUs");
 *  - pmuctl_start(), _stop(), _reset() and _release() are one system call,
 *    one ioctl of their own (libpmuctl.h: "on every CPU of the group, in
 *    one ioctl each") and one wave (kmod/wave.c: "every operation is one
 *    wave whatever the number of CPUs");
 *  - pmuctl_read_values() of a named CPU is one system call and one READ,
 *    at most one wave.
 * Each operation is measured once after a warm-up round (the library
 * installs its rdpmc emulation at the first PROGRAM of a process).  After
 * the results, the table of every operation follows as TAP comments
 * ("# cost: ..."), which scripts/bench-guest.sh prints.
 *
 * Needs /dev/pmuctl (one SKIP without it, as on the host) and at least two
 * online CPUs for the all-CPU rules (a SKIP with one).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "libpmuctl.h"
#include "../device/lib.h"

#define DBG_STATS	DBG_DIR "/stats"

/* The lines of debugfs "stats", in the module's order (kmod/ioctl.c). */
enum stat { ST_INFO, ST_PROGRAM, ST_START, ST_STOP, ST_RESET, ST_READ,
	    ST_RELEASE, ST_CLOSE, ST_NR };
static const char *const stat_names[ST_NR] = {
	"info", "program", "start", "stop", "reset", "read", "release", "close",
};

/* What is measured, in this order; ONE_ and ALL_ name the group's CPUs. */
enum op {
	OP_OPEN,
	OP_ONE_PROGRAM, OP_ONE_START, OP_ONE_STOP, OP_ONE_RESET, OP_ONE_READ,
	OP_ONE_READ_ANY, OP_ONE_RELEASE,
	OP_ALL_PROGRAM, OP_ALL_START, OP_ALL_STOP, OP_ALL_RESET, OP_ALL_READ,
	OP_ALL_READ_REMOTE, OP_ALL_RELEASE,
	OP_CLOSE, OP_NR
};

static const char *const op_names[OP_NR] = {
	[OP_OPEN] = "pmuctl_open()",
	[OP_ONE_PROGRAM] = "pmuctl_program(), 1 CPU",
	[OP_ONE_START] = "pmuctl_start(), 1 CPU",
	[OP_ONE_STOP] = "pmuctl_stop(), 1 CPU",
	[OP_ONE_RESET] = "pmuctl_reset(), 1 CPU",
	[OP_ONE_READ] = "pmuctl_read_values(cpu), 1 CPU",
	[OP_ONE_READ_ANY] = "pmuctl_read_values(-1), 1 CPU",
	[OP_ONE_RELEASE] = "pmuctl_release(), 1 CPU",
	[OP_ALL_PROGRAM] = "pmuctl_program(), all CPUs",
	[OP_ALL_START] = "pmuctl_start(), all CPUs",
	[OP_ALL_STOP] = "pmuctl_stop(), all CPUs",
	[OP_ALL_RESET] = "pmuctl_reset(), all CPUs",
	[OP_ALL_READ] = "pmuctl_read_values(own CPU), all",
	[OP_ALL_READ_REMOTE] = "pmuctl_read_values(other CPU), all",
	[OP_ALL_RELEASE] = "pmuctl_release(), all CPUs",
	[OP_CLOSE] = "pmuctl_close()",
};

#define SYS_MAX		16
#define MARK_END	(1UL << 16)	/* marker code: op | MARK_END at the end */

/**
 * struct cost - one operation
 * @ret:	what the library call returned.
 * @calls:	per stats line, the calls it added.
 * @waves:	per stats line, the waves it added.
 * @nsys:	system calls the call made (all of them, even past SYS_MAX).
 * @sys:	the first SYS_MAX: number, and for an ioctl its command in @arg.
 */
struct cost {
	long ret;
	long calls[ST_NR], waves[ST_NR];
	unsigned int nsys;
	long sys[SYS_MAX];
	unsigned long arg[SYS_MAX];
};

/**
 * struct run - everything measured, shared between the child and the tracer
 * @err:	why the child could not run the operations ("" if it did).
 * @traced:	the tracer saw the child stop for it: @nsys is meaningful.
 * @stats:	the stats file was readable: @calls and @waves are.
 * @nev, @ncpus, @cpu, @remote: the group's events, the online CPUs, the
 *		CPU the child ran on and the one it read from afar.
 * @rdpmc:	pmuctl_info.rdpmc after the all-CPU PROGRAM: whether its wave
 *		carried the rdpmc grant.
 */
struct run {
	char err[240];
	char trace_err[160];
	bool traced, stats;
	unsigned int nev, ncpus, cpu, remote, rdpmc;
	struct cost op[OP_NR];
};

static struct run *R;

/* The first 7 of compare.c's group: 3 fixed-counter events, 4 generic. */
static const uint64_t configs[] = {
	0x00c0, 0x003c, 0x0300, 0x00c4, 0x00c5, 0x4f2e, 0x412e,
};

/* ---- the child ----------------------------------------------------------- */

static int stats_read(long *calls, long *waves)
{
	char *s = slurp(DBG_STATS), *line, *save = NULL;
	unsigned int seen = 0;

	if (!s)
		return -errno;
	for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[16];
		long c, w;

		if (sscanf(line, "%15s calls %ld waves %ld", name, &c, &w) != 3)
			continue;
		for (unsigned int i = 0; i < ST_NR; i++)
			if (!strcmp(name, stat_names[i])) {
				calls[i] = c;
				waves[i] = w;
				seen |= 1U << i;
			}
	}
	free(s);
	return seen == (1U << ST_NR) - 1 ? 0 : -EPROTO;
}

static void mark(unsigned long code)
{
	syscall(SYS_write, -1L, NULL, code);
}

/* The op's stats before: kept in its cost until op_end() subtracts. */
static void op_begin(enum op op)
{
	struct cost *c = &R->op[op];

	if (stats_read(c->calls, c->waves))
		R->stats = false;
	mark(op);
}

static void op_end(enum op op, long ret)
{
	struct cost *c = &R->op[op];
	long calls[ST_NR], waves[ST_NR];

	mark(op | MARK_END);
	c->ret = ret;
	if (stats_read(calls, waves)) {
		R->stats = false;
		return;
	}
	for (unsigned int i = 0; i < ST_NR; i++) {
		c->calls[i] = calls[i] - c->calls[i];
		c->waves[i] = waves[i] - c->waves[i];
	}
}

#define MEASURE(op, call) do {		\
	long ret_;			\
					\
	op_begin(op);			\
	ret_ = (call);			\
	op_end(op, ret_);		\
} while (0)

static void child_fail(const char *what, int ret, const struct pmuctl_error *err)
{
	char msg[160];

	pmuctl_strerror(ret, err, msg, sizeof(msg));
	snprintf(R->err, sizeof(R->err), "%s: %s", what, msg);
}

static void child(void)
{
	struct pmuctl_event tmpl[PMUCTL_MAX_EVENTS], ev[PMUCTL_MAX_EVENTS];
	const struct pmuctl_info *info;
	uint64_t vals[PMUCTL_MAX_EVENTS];
	struct pmuctl_error err;
	cpu_set_t all, one;
	struct pmuctl *p;
	unsigned int n;
	int ret;

	if (sched_getaffinity(0, sizeof(all), &all)) {
		snprintf(R->err, sizeof(R->err), "sched_getaffinity: %s", strerror(errno));
		return;
	}
	R->ncpus = CPU_COUNT(&all);
	for (R->cpu = 0; !CPU_ISSET(R->cpu, &all); R->cpu++)
		;
	for (R->remote = R->cpu + 1; R->remote < CPU_SETSIZE &&
	     !CPU_ISSET(R->remote, &all); R->remote++)
		;
	ret = pin_cpu(R->cpu);
	if (ret) {
		snprintf(R->err, sizeof(R->err), "pin to CPU %u: %s", R->cpu,
			 strerror(-ret));
		return;
	}
	CPU_ZERO(&one);
	CPU_SET(R->cpu, &one);

	/* Stop for the tracer; without one, go on untraced. */
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
		snprintf(R->trace_err, sizeof(R->trace_err),
			 "PTRACE_TRACEME: %s", strerror(errno));
	else
		raise(SIGSTOP);

	R->stats = debugfs_ready() && !access(DBG_STATS, R_OK);

	MEASURE(OP_OPEN, ret = pmuctl_open(NULL, 0, &p));
	if (ret) {
		child_fail("pmuctl_open", ret, NULL);
		return;
	}
	info = pmuctl_get_info(p);
	n = (info->caps.nr_fixed < 3 ? info->caps.nr_fixed : 3) + info->caps.nr_gp;
	R->nev = n < 7 ? n : 7;
	memset(tmpl, 0, sizeof(tmpl));
	for (unsigned int i = 0; i < R->nev; i++)
		tmpl[i].config = configs[i] | PMUCTL_CFG_USR;

	/* Warm-up: the first PROGRAM of a process installs the emulation. */
	memcpy(ev, tmpl, sizeof(ev));
	ret = pmuctl_program(p, ev, R->nev, &one, sizeof(one), &err);
	if (ret) {
		child_fail("warm-up program", ret, &err);
		pmuctl_close(p);
		return;
	}
	pmuctl_start(p);
	pmuctl_stop(p);
	pmuctl_reset(p);
	pmuctl_read_values(p, R->cpu, vals, PMUCTL_MAX_EVENTS);
	pmuctl_release(p);

	memcpy(ev, tmpl, sizeof(ev));
	MEASURE(OP_ONE_PROGRAM, ret = pmuctl_program(p, ev, R->nev, &one,
						     sizeof(one), &err));
	if (ret) {
		child_fail("program on 1 CPU", ret, &err);
		pmuctl_close(p);
		return;
	}
	MEASURE(OP_ONE_START, pmuctl_start(p));
	MEASURE(OP_ONE_STOP, pmuctl_stop(p));
	MEASURE(OP_ONE_RESET, pmuctl_reset(p));
	MEASURE(OP_ONE_READ, pmuctl_read_values(p, R->cpu, vals, PMUCTL_MAX_EVENTS));
	MEASURE(OP_ONE_READ_ANY, pmuctl_read_values(p, -1, vals, PMUCTL_MAX_EVENTS));
	MEASURE(OP_ONE_RELEASE, pmuctl_release(p));

	memcpy(ev, tmpl, sizeof(ev));
	MEASURE(OP_ALL_PROGRAM, ret = pmuctl_program(p, ev, R->nev, &all,
						     sizeof(all), &err));
	if (ret) {
		child_fail("program on all CPUs", ret, &err);
		pmuctl_close(p);
		return;
	}
	R->rdpmc = pmuctl_get_info(p)->rdpmc;
	MEASURE(OP_ALL_START, pmuctl_start(p));
	MEASURE(OP_ALL_STOP, pmuctl_stop(p));
	MEASURE(OP_ALL_RESET, pmuctl_reset(p));
	MEASURE(OP_ALL_READ, pmuctl_read_values(p, R->cpu, vals, PMUCTL_MAX_EVENTS));
	if (R->remote < CPU_SETSIZE)
		MEASURE(OP_ALL_READ_REMOTE, pmuctl_read_values(p, R->remote, vals,
							       PMUCTL_MAX_EVENTS));
	MEASURE(OP_ALL_RELEASE, pmuctl_release(p));
	MEASURE(OP_CLOSE, (pmuctl_close(p), 0));
}

/* ---- the tracer ----------------------------------------------------------- */

/* Count the child's system calls between its markers, until it exits. */
static void trace(pid_t pid)
{
	struct __ptrace_syscall_info si;
	int st, cur = -1, sig;

	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st)) {
		if (!R->trace_err[0])
			snprintf(R->trace_err, sizeof(R->trace_err),
				 "the child did not stop for the tracer");
		return;
	}
	if (ptrace(PTRACE_SETOPTIONS, pid, NULL,
		   PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL)) {
		snprintf(R->trace_err, sizeof(R->trace_err),
			 "PTRACE_SETOPTIONS: %s", strerror(errno));
		ptrace(PTRACE_DETACH, pid, NULL, NULL);
		waitpid(pid, &st, 0);
		return;
	}
	R->traced = true;
	sig = 0;
	for (;;) {
		if (ptrace(PTRACE_SYSCALL, pid, NULL, (void *)(long)sig))
			break;
		if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st))
			break;		/* exited, or killed */
		sig = 0;
		if (WSTOPSIG(st) != (SIGTRAP | 0x80)) {
			sig = WSTOPSIG(st);	/* a signal: deliver it */
			continue;
		}
		if (ptrace(PTRACE_GET_SYSCALL_INFO, pid, (void *)sizeof(si), &si) <= 0 ||
		    si.op != PTRACE_SYSCALL_INFO_ENTRY)
			continue;
		if (si.entry.nr == SYS_write && si.entry.args[0] == ~0ULL &&
		    si.entry.args[1] == 0) {
			unsigned long code = si.entry.args[2];

			cur = code & MARK_END || (code & ~MARK_END) >= OP_NR ?
			      -1 : (int)code;
			continue;
		}
		if (cur >= 0) {
			struct cost *c = &R->op[cur];

			if (c->nsys < SYS_MAX) {
				c->sys[c->nsys] = (long)si.entry.nr;
				c->arg[c->nsys] = si.entry.args[1];
			}
			c->nsys++;
		}
	}
	/* Reap it. */
	while (waitpid(pid, &st, 0) == pid && !WIFEXITED(st) && !WIFSIGNALED(st))
		;
}

static void measure(void)
{
	pid_t pid;

	R = mmap(NULL, sizeof(*R), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (R == MAP_FAILED) {
		R = NULL;
		return;
	}
	memset(R, 0, sizeof(*R));
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(R->err, sizeof(R->err), "fork: %s", strerror(errno));
		return;
	}
	if (!pid) {
		child();
		_exit(0);
	}
	trace(pid);
}

/* ---- the table ------------------------------------------------------------ */

static long ioctls(const struct cost *c)
{
	long n = 0;

	for (unsigned int i = 0; i < ST_CLOSE; i++)
		n += c->calls[i];
	return n;
}

static long waves(const struct cost *c)
{
	long n = 0;

	for (unsigned int i = 0; i < ST_NR; i++)
		n += c->waves[i];
	return n;
}

/* "ioctl(PROGRAM) ioctl(INFO)": the system calls an operation made. */
static void sys_list(const struct cost *c, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = 0;
	for (unsigned int i = 0; i < c->nsys && i < SYS_MAX && o < len; i++) {
		unsigned long a = c->arg[i];
		const char *name = NULL;
		char tmp[24];

		switch (c->sys[i]) {
		case SYS_ioctl:
			if (_IOC_TYPE(a) == PMUCTL_IOC_MAGIC && _IOC_NR(a) < ST_CLOSE) {
				snprintf(tmp, sizeof(tmp), "ioctl(%s)",
					 stat_names[_IOC_NR(a)]);
				name = tmp;
			} else {
				name = "ioctl(?)";
			}
			break;
		case SYS_openat: name = "openat"; break;
		case SYS_close: name = "close"; break;
		case SYS_getcpu: name = "getcpu"; break;
		case SYS_rt_sigaction: name = "rt_sigaction"; break;
		case SYS_sched_getaffinity: name = "sched_getaffinity"; break;
		case SYS_sched_setaffinity: name = "sched_setaffinity"; break;
		case SYS_sched_yield: name = "sched_yield"; break;
		case SYS_brk: name = "brk"; break;
		case SYS_mmap: name = "mmap"; break;
		case SYS_munmap: name = "munmap"; break;
		default:
			snprintf(tmp, sizeof(tmp), "syscall %ld", c->sys[i]);
			name = tmp;
		}
		o += snprintf(buf + o, len - o, "%s%s", o ? " " : "", name);
	}
	if (c->nsys > SYS_MAX && o < len)
		snprintf(buf + o, len - o, " ...");
}

static void table(void)
{
	if (!R)
		return;
	printf("# cost: %u events, %u online CPUs, the child on CPU %u; rdpmc %s at PROGRAM%s\n",
	       R->nev, R->ncpus, R->cpu,
	       R->rdpmc == PMUCTL_RDPMC_SESSION ? "granted" : "not granted",
	       R->traced ? "" : "; system calls not counted");
	if (R->err[0])
		printf("# cost: %s\n", R->err);
	if (R->trace_err[0])
		printf("# cost: tracer: %s\n", R->trace_err);
	printf("# cost: %-36s %8s %6s %6s  %s\n", "operation", "syscalls",
	       "ioctls", "waves", "module stats (calls/waves); system calls");
	for (unsigned int o = 0; o < OP_NR; o++) {
		const struct cost *c = &R->op[o];
		char st[120] = "", sys[160], nsys[12], nio[12], nw[12];
		size_t k = 0;

		if (o == OP_ALL_READ_REMOTE && R->remote >= CPU_SETSIZE)
			continue;
		for (unsigned int i = 0; i < ST_NR && k < sizeof(st); i++)
			if (c->calls[i] || c->waves[i])
				k += snprintf(st + k, sizeof(st) - k, "%s%s %ld/%ld",
					      k ? ", " : "", stat_names[i],
					      c->calls[i], c->waves[i]);
		sys_list(c, sys, sizeof(sys));
		snprintf(nsys, sizeof(nsys), R->traced ? "%u" : "-", c->nsys);
		snprintf(nio, sizeof(nio), R->stats ? "%ld" : "-", ioctls(c));
		snprintf(nw, sizeof(nw), R->stats ? "%ld" : "-", waves(c));
		printf("# cost: %-36s %8s %6s %6s  %s%s%s%s\n", op_names[o], nsys,
		       nio, nw, R->stats ? st : "", R->stats && R->traced ? "; " : "",
		       sys, c->ret < 0 ? " (failed)" : "");
	}
	fflush(stdout);
}

/* ---- the rules -------------------------------------------------------- */

/* In a test body: the measurement ran; else fail with why. */
#define NEED_RUN() do {							\
	ASSERT_TRUE(R != NULL) TH_LOG("no shared memory for the results"); \
	ASSERT_TRUE(!R->err[0]) TH_LOG("%s", R->err);			\
} while (0)

/* The module's counts: its debugfs "stats" file. */
#define NEED_STATS() do {						\
	NEED_RUN();							\
	ASSERT_TRUE(R->stats)						\
		TH_LOG("no readable %s: this pmuctl.ko does not count its operations", \
		       DBG_STATS);					\
} while (0)

#define NEED_TRACE() do {						\
	if (!R->traced)							\
		SKIP(return, "system calls not counted: %s", R->trace_err); \
} while (0)

#define NEED_CPUS() do {						\
	if (R->ncpus < 2)						\
		SKIP(return, "one online CPU: all CPUs is one CPU");	\
} while (0)

/*
 * @op succeeded with one ioctl of @stat (and no other when @alone) and
 * @want_waves waves (at most that many unless @exact).
 */
static void check_module(struct __test_metadata *_metadata, enum op op,
			 enum stat stat, bool alone, long want_waves, bool exact)
{
	const struct cost *c = &R->op[op];

	EXPECT_LE(0, c->ret) TH_LOG("%s returned %ld", op_names[op], c->ret);
	EXPECT_EQ(1, c->calls[stat]) TH_LOG("%s: %ld %s ioctls", op_names[op],
					     c->calls[stat], stat_names[stat]);
	if (alone) {
		EXPECT_EQ(1, ioctls(c)) TH_LOG("%s: %ld ioctls in all",
					       op_names[op], ioctls(c));
	}
	if (exact) {
		EXPECT_EQ(want_waves, waves(c)) TH_LOG("%s: %ld waves",
						       op_names[op], waves(c));
	} else {
		EXPECT_GE(want_waves, waves(c)) TH_LOG("%s: %ld waves",
						       op_names[op], waves(c));
	}
}

static void check_syscalls(struct __test_metadata *_metadata, enum op op)
{
	const struct cost *c = &R->op[op];
	char sys[160];

	sys_list(c, sys, sizeof(sys));
	EXPECT_LE(0, c->ret) TH_LOG("%s returned %ld", op_names[op], c->ret);
	EXPECT_EQ(1U, c->nsys) TH_LOG("%s made %u system calls: %s",
				     op_names[op], c->nsys, sys);
}

/* The module: one PROGRAM, one wave (the rdpmc grant rides in it). */
TEST(program_on_one_cpu_is_one_wave)
{
	NEED_STATS();
	check_module(_metadata, OP_ONE_PROGRAM, ST_PROGRAM, false, 1, true);
}

TEST(program_on_all_cpus_is_one_wave)
{
	NEED_STATS();
	NEED_CPUS();
	check_module(_metadata, OP_ALL_PROGRAM, ST_PROGRAM, false, 1, true);
}

/* The library: pmuctl_program() is that one ioctl and nothing else. */
TEST(pmuctl_program_is_one_ioctl_one_syscall)
{
	NEED_STATS();
	check_module(_metadata, OP_ONE_PROGRAM, ST_PROGRAM, true, 1, true);
	if (R->ncpus > 1)
		check_module(_metadata, OP_ALL_PROGRAM, ST_PROGRAM, true, 1, true);
	if (R->traced) {
		check_syscalls(_metadata, OP_ONE_PROGRAM);
		check_syscalls(_metadata, OP_ALL_PROGRAM);
	}
}

TEST(start_stop_reset_release_one_ioctl_one_wave_each)
{
	static const struct { enum op op; enum stat st; } t[] = {
		{ OP_ONE_START, ST_START }, { OP_ONE_STOP, ST_STOP },
		{ OP_ONE_RESET, ST_RESET }, { OP_ONE_RELEASE, ST_RELEASE },
		{ OP_ALL_START, ST_START }, { OP_ALL_STOP, ST_STOP },
		{ OP_ALL_RESET, ST_RESET }, { OP_ALL_RELEASE, ST_RELEASE },
	};

	NEED_STATS();
	NEED_CPUS();
	for (unsigned int i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		check_module(_metadata, t[i].op, t[i].st, true, 1, true);
}

TEST(start_stop_reset_release_one_syscall_each)
{
	static const enum op t[] = {
		OP_ONE_START, OP_ONE_STOP, OP_ONE_RESET, OP_ONE_RELEASE,
		OP_ALL_START, OP_ALL_STOP, OP_ALL_RESET, OP_ALL_RELEASE,
	};

	NEED_RUN();
	NEED_TRACE();
	for (unsigned int i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		check_syscalls(_metadata, t[i]);
}

TEST(read_of_a_named_cpu_is_one_ioctl_at_most_one_wave)
{
	NEED_STATS();
	check_module(_metadata, OP_ONE_READ, ST_READ, true, 1, false);
	check_module(_metadata, OP_ALL_READ, ST_READ, true, 1, false);
	if (R->ncpus > 1)
		check_module(_metadata, OP_ALL_READ_REMOTE, ST_READ, true, 1, false);
}

TEST(read_of_a_named_cpu_is_one_syscall)
{
	NEED_RUN();
	NEED_TRACE();
	check_syscalls(_metadata, OP_ONE_READ);
	check_syscalls(_metadata, OP_ALL_READ);
	if (R->ncpus > 1)
		check_syscalls(_metadata, OP_ALL_READ_REMOTE);
}

/* Registration order of the tests, as TEST_HARNESS_MAIN sets it up. */
static void __attribute__((constructor)) __constructor_order_last(void)
{
	if (!__constructor_order)
		__constructor_order = _CONSTRUCTOR_ORDER_BACKWARD;
}

int main(int argc, char **argv)
{
	const char *why = dev_unusable();

	if (why) {
		ksft_print_header();
		ksft_exit_skip("%s\n", why);
	}
	measure();
	/* After the harness's results: it ends the process with exit(). */
	atexit(table);
	return test_harness_run(argc, argv);
}
