// SPDX-License-Identifier: GPL-2.0
/*
 * What task scope costs at a context switch ("make bench"; a benchmark,
 * never a test: it prints rows and judges none).
 *
 * Two threads pinned to one CPU hand a byte back and forth through two
 * pipes: every round trip is two context switches, each from one of them
 * to the other.
 *
 * Default: the time per round trip (CLOCK_MONOTONIC over ROUNDS round
 * trips after a warm-up), without counting, with one task-scope pmuctl
 * session on each thread (PMUCTL_PROGRAM_TASK, raw ioctls on /dev/pmuctl,
 * started), and with perf counting each thread (perf_event_open on each
 * thread's tid, enabled), 1 event and a group of 3 (instructions, cycles,
 * reference cycles, user mode) on each side.  pmuctl reserves perf's
 * counters while it holds a group, so the rows run one after the other.
 * In the QEMU rig (CPUID says QEMU TCG's "TCGTCGTCGTCG") it times
 * nothing, and says so in one line: a timing there measures QEMU's
 * translated code, not silicon (-i counts instead).
 *
 * -m: MSR writes per context switch of a monitored thread, in a guest of
 * the register-model build (pmuctl_regmodel.ko, whose debugfs "log"
 * counts every MSR write the module makes, on every CPU: its first line
 * "writes N"): N before and after ROUNDS round trips, divided by the
 * context switches the two threads made in between (their RUSAGE_THREAD
 * voluntary and involuntary switches: each is one switch-out of a
 * monitored thread and one switch-in of the other).  The model does not
 * log MSR reads (kmod/regmodel.c: rm_read() keeps no log), so reads are
 * not counted: writes only.  The row without sessions is the control.
 *
 * -i: counted, not timed, by the TCG plugin scripts/vm/insn-count.c
 * (markers of insn_marks.h): thread 0 opens a window of the plugin
 * around the round trips, labelled with the row, three runs a row.  The
 * plugin counts what the whole guest executes in it, user and kernel,
 * and its SYSCALL, RDMSR, WRMSR and RDPMC instructions: with the row
 * without counting, what counting adds per context switch, MSR reads
 * included (the register model logs writes only).  Prints "insn-ts LABEL
 * ROUNDS ROW" per row; scripts/insn-switch.awk makes the table from them
 * and the plugin's lines (make bench's plugin guest).
 *
 * usage: taskswitch [-m | -i] [-n ROUNDS] [-c CPU]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include <linux/pmuctl.h>
#include "../hw/emulated.h"
#include "insn_marks.h"

#define DEV		"/dev/pmuctl"
#define DBG		"/sys/kernel/debug"
#define LOG		DBG "/pmuctl/log"
#define WARMUP		200
#define MAX_EV		3

enum { M_NONE, M_PMUCTL, M_PERF };

struct side {
	int cpu, mode, nev, in, out;
	long rounds;
	pthread_barrier_t *bar;
	pid_t tid;
	int fd[MAX_EV];			/* session in fd[0], or perf events */
	char err[160];
	uint64_t ns;			/* thread 0: the timed round trips */
	uint64_t switches;		/* its context switches in them */
	long long w0, w1;		/* thread 0, -m: the model's writes around them */
};

static bool msr_mode;
static int insn_label = -1;	/* -i: the row's label, thread 0 marks */
static long long log_writes(void);

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static uint64_t switches(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return 0;
	return (uint64_t)ru.ru_nvcsw + (uint64_t)ru.ru_nivcsw;
}

/* INST_RETIRED.ANY, CPU_CLK_UNHALTED.THREAD, .REF_TSC, user mode. */
static const uint64_t configs[MAX_EV] = { 0x00c0, 0x003c, 0x0300 };
static const uint64_t perf_configs[MAX_EV] = {
	PERF_COUNT_HW_INSTRUCTIONS, PERF_COUNT_HW_CPU_CYCLES,
	PERF_COUNT_HW_REF_CPU_CYCLES,
};

static int session(struct side *s)
{
	struct pmuctl_event ev[MAX_EV];
	struct pmuctl_program p;
	struct pmuctl_ctl c;

	s->fd[0] = open(DEV, O_RDWR | O_CLOEXEC);
	if (s->fd[0] < 0) {
		snprintf(s->err, sizeof(s->err), "open %s: %s", DEV, strerror(errno));
		return -1;
	}
	memset(ev, 0, sizeof(ev));
	for (int i = 0; i < s->nev; i++)
		ev[i].config = configs[i] | PMUCTL_CFG_USR;
	memset(&p, 0, sizeof(p));
	p.flags = PMUCTL_PROGRAM_TASK;
	p.nr_events = s->nev;
	p.events = (uintptr_t)ev;
	if (ioctl(s->fd[0], PMUCTL_IOC_PROGRAM, &p)) {
		snprintf(s->err, sizeof(s->err), "PROGRAM TASK: %s, reason %u",
			 strerror(errno), p.err_reason);
		return -1;
	}
	memset(&c, 0, sizeof(c));
	if (ioctl(s->fd[0], PMUCTL_IOC_START, &c)) {
		snprintf(s->err, sizeof(s->err), "START: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static void *side_main(void *arg)
{
	struct side *s = arg;
	cpu_set_t set;
	uint64_t t0 = 0, s0 = 0;
	char b = 'x';

	CPU_ZERO(&set);
	CPU_SET(s->cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		snprintf(s->err, sizeof(s->err), "pin to CPU %d: %s", s->cpu, strerror(errno));
	s->tid = gettid();
	if (!s->err[0] && s->mode == M_PMUCTL)
		session(s);
	pthread_barrier_wait(s->bar);
	pthread_barrier_wait(s->bar);	/* perf's events are open and enabled */
	/* Both run their rounds whatever failed: the other one waits for them. */
	for (long r = 0; r < WARMUP + s->rounds; r++) {
		if (r == WARMUP) {
			if (msr_mode && s->out > s->in)
				s->w0 = log_writes();
			if (insn_label >= 0 && s->out > s->in) {
				marks_label((unsigned int)insn_label);
				MARK(MARK_START, 0);
			}
			t0 = now_ns();
			s0 = switches();
		}
		if (s->out > s->in) {		/* thread 0 sends first */
			if (write(s->out, &b, 1) != 1 || read(s->in, &b, 1) != 1)
				break;
		} else {
			if (read(s->in, &b, 1) != 1 || write(s->out, &b, 1) != 1)
				break;
		}
	}
	if (insn_label >= 0 && s->out > s->in)
		MARK(MARK_STOP, 0);
	s->ns = now_ns() - t0;
	s->switches = switches() - s0;
	if (msr_mode && s->out > s->in)
		s->w1 = log_writes();
	return NULL;
}

static int perf_open(pid_t tid, int i, int group)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = perf_configs[i];
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return syscall(SYS_perf_event_open, &a, tid, -1, group, PERF_FLAG_FD_CLOEXEC);
}

/* One run of the two threads; the sides' err says what failed.  0 or -1. */
static int run(struct side s[2], int cpu, int mode, int nev, long rounds)
{
	pthread_barrier_t bar;
	pthread_t th[2];
	int p[2][2], ret = 0;

	memset(s, 0, 2 * sizeof(*s));
	if (pipe2(p[0], O_CLOEXEC) || pipe2(p[1], O_CLOEXEC)) {
		snprintf(s[0].err, sizeof(s[0].err), "pipe: %s", strerror(errno));
		return -1;
	}
	pthread_barrier_init(&bar, NULL, 3);
	for (int i = 0; i < 2; i++) {
		s[i].cpu = cpu;
		s[i].mode = mode;
		s[i].nev = nev;
		s[i].rounds = rounds;
		s[i].bar = &bar;
		for (int e = 0; e < MAX_EV; e++)
			s[i].fd[e] = -1;
	}
	/* Thread 0 writes p[1] and reads p[0] (out > in tells it apart). */
	s[0].in = p[0][0];
	s[0].out = p[1][1];
	s[1].in = p[1][0];
	s[1].out = p[0][1];
	if (s[0].out < s[0].in || s[1].out > s[1].in) {
		snprintf(s[0].err, sizeof(s[0].err), "pipe descriptors out of order");
		ret = -1;
		goto out;
	}
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, side_main, &s[i]);
	pthread_barrier_wait(&bar);
	for (int i = 0; mode == M_PERF && i < 2; i++)
		for (int e = 0; e < nev; e++) {
			s[i].fd[e] = perf_open(s[i].tid, e, e ? s[i].fd[0] : -1);
			if (s[i].fd[e] < 0 && !s[i].err[0])
				snprintf(s[i].err, sizeof(s[i].err), "perf_event_open: %s",
					 strerror(errno));
		}
	pthread_barrier_wait(&bar);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
out:
	pthread_barrier_destroy(&bar);
	for (int i = 0; i < 2; i++) {
		for (int e = 0; e < MAX_EV; e++)
			if (s[i].fd[e] >= 0)
				close(s[i].fd[e]);
		close(p[i][0]);
		close(p[i][1]);
		if (s[i].err[0])
			ret = -1;
	}
	return ret;
}

static const char *side_err(struct side s[2])
{
	return s[0].err[0] ? s[0].err : s[1].err;
}

/* The rows of the timed and the counted tables, in that order. */
static const struct { const char *what; int mode, nev; } rows[] = {
	{ "no counting", M_NONE, 1 },
	{ "pmuctl: a task session per thread, 1 event", M_PMUCTL, 1 },
	{ "pmuctl: a task session per thread, 3 events", M_PMUCTL, 3 },
	{ "perf: per-thread counting, 1 event", M_PERF, 1 },
	{ "perf: per-thread counting, group of 3", M_PERF, 3 },
};

static void timed(int cpu, long rounds)
{
	struct side s[2];

	if (hw_cpu_is_emulated()) {
		printf("timed rows: not measured under QEMU TCG, where they would time QEMU's translated code, not silicon; taskswitch -i counts the same round trips (make bench)\n");
		return;
	}
	printf("pipe ping-pong, 2 threads on CPU %d, %ld round trips (2 context switches each) after %d of warm-up\n",
	       cpu, rounds, WARMUP);
	printf("%-46s %14s %12s\n", "row", "ns/round trip", "switches");
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		if (run(s, cpu, rows[i].mode, rows[i].nev, rounds)) {
			printf("%-46s skipped: %s\n", rows[i].what, side_err(s));
			continue;
		}
		printf("%-46s %14llu %12llu\n", rows[i].what,
		       (unsigned long long)(s[0].ns / rounds),
		       (unsigned long long)(s[0].switches + s[1].switches));
	}
}

/* The register model's count of MSR writes ("writes N"), or -1. */
static long long log_writes(void)
{
	long long n = -1;
	FILE *f = fopen(LOG, "r");

	if (!f)
		return -1;
	if (fscanf(f, "writes %lld", &n) != 1)
		n = -1;
	fclose(f);
	return n;
}

static void msr_writes(int cpu, long rounds)
{
	static const struct { const char *what; int mode, nev; } mrows[] = {
		{ "no sessions (control)", M_NONE, 1 },
		{ "a task session per thread, 1 event", M_PMUCTL, 1 },
		{ "a task session per thread, 3 events", M_PMUCTL, 3 },
	};
	struct side s[2];

	/* In the rig's guests only (they are QEMU TCG), never on a host. */
	if (access(LOG, R_OK) && hw_cpu_is_emulated())
		mount("debugfs", DBG, "debugfs", 0, NULL);
	printf("MSR writes per context switch between two monitored threads on CPU %d,\n"
	       "%ld round trips; register model (debugfs pmuctl/log); reads are not logged\n"
	       "by the model, so only writes are counted\n", cpu, rounds);
	if (log_writes() < 0) {
		printf("skipped: no %s: not the register-model build (pmuctl_regmodel.ko)\n", LOG);
		return;
	}
	printf("%-40s %12s %12s %16s\n", "row", "MSR writes", "switches", "writes/switch");
	for (size_t i = 0; i < sizeof(mrows) / sizeof(mrows[0]); i++) {
		long long w0, w1;
		uint64_t sw;

		/* Thread 0 reads the log around the rounds, not PROGRAM or close. */
		if (run(s, cpu, mrows[i].mode, mrows[i].nev, rounds)) {
			printf("%-40s skipped: %s\n", mrows[i].what, side_err(s));
			continue;
		}
		w0 = s[0].w0;
		w1 = s[0].w1;
		sw = s[0].switches + s[1].switches;
		printf("%-40s %12lld %12llu %16.2f\n", mrows[i].what, w1 - w0,
		       (unsigned long long)sw, sw ? (double)(w1 - w0) / sw : 0.0);
	}
}

/* -i: three plugin windows a row; "insn-ts LABEL ROUNDS ROW" for the host. */
static void counted(int cpu, long rounds)
{
	struct side s[2];

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		bool ok = true;

		insn_label = 101 + (int)i;	/* apart from compare -i's */
		for (int k = 0; k < 3 && ok; k++)
			ok = !run(s, cpu, rows[i].mode, rows[i].nev, rounds);
		if (ok)
			printf("insn-ts %d %ld %s\n", insn_label, rounds, rows[i].what);
		else
			printf("insn-ts-skip %s: %s\n", rows[i].what, side_err(s));
	}
	insn_label = -1;
}

int main(int argc, char **argv)
{
	long rounds = 0;
	int cpu = 0, opt;
	bool msr = false, insn = false;

	while ((opt = getopt(argc, argv, "min:c:")) != -1) {
		switch (opt) {
		case 'm':
			msr = true;
			break;
		case 'i':
			insn = true;
			break;
		case 'n':
			rounds = strtol(optarg, NULL, 0);
			break;
		case 'c':
			cpu = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-m | -i] [-n ROUNDS] [-c CPU]\n", argv[0]);
			return 2;
		}
	}
	if (msr && insn) {
		fprintf(stderr, "%s: -m or -i, not both\n", argv[0]);
		return 2;
	}
	if (rounds <= 0)
		rounds = msr || insn ? 2000 : 20000;
	msr_mode = msr;
	if (msr)
		msr_writes(cpu, rounds);
	else if (insn)
		counted(cpu, rounds);
	else
		timed(cpu, rounds);
	return 0;
}
