// SPDX-License-Identifier: GPL-2.0
/*
 * The timed part of "make bench": libpmuctl side by side with perf
 * (perf_event_open) and, when built with it, PAPI, in one run on one pinned
 * CPU.  A benchmark, never a test: once its arguments are understood it
 * exits 0, whatever it could or could not time.
 *
 * Timing: every sample is one operation between two TSC reads,
 *	lfence; rdtsc; lfence   <operation>   rdtscp; lfence
 * so the operation neither starts before the first read nor is still
 * running at the second.  Each row takes many samples after a warm-up
 * (100,000 for reads, start, stop and reset by default) and reports the
 * median with the 1st and 99th percentiles.  The same pair with nothing between
 * is timed first; its minimum is subtracted from every sample (and
 * printed).  The unit is the TSC tick ("cycles" below): the reference
 * clock, not the core clock, on the invariant TSC of every CPU pmuctl
 * targets.  Ratios do not depend on the unit.
 *
 * The group is 7 events on the 3 fixed counters and 4 generic ones,
 * counting user mode on both sides: INST_RETIRED.ANY, CPU_CLK_UNHALTED
 * .THREAD and .REF_TSC, BR_INST_RETIRED.ALL_BRANCHES, BR_MISP_RETIRED
 * .ALL_BRANCHES, LONGEST_LAT_CACHE.REFERENCE and .MISS, which are perf's
 * generic hardware events of the same names on Intel.  A PMU with fewer
 * generic counters (KNL/KNM report 2) gets a group of 3 + that many.
 *
 * What is compared (pmuctl first):
 *   read 1       pmuctl_read_counter() inline      bare rdpmc of the same counter
 *                                                  perf mmap self-monitoring loop
 *                                                  libperf's perf_evsel__read()
 *                                                  read() of a perf event
 *                                                  PAPI_read() of 1 event (and, with
 *                                                  -r, with perf's rdpmc off)
 *   read 4, read group (N)                         4 or N perf mmap loops
 *                pmuctl_read_counters(c, v, 4 or N)  4 or N perf_evsel__read()
 *                                                  read() of a PERF_FORMAT_GROUP group
 *                                                  of 4 or N
 *                                                  PAPI_read() of 4 or N (-r: again)
 *                pmuctl's READ ioctl of N          (what a thread without the
 *                                                  rdpmc grant reads)
 *                (the 4 are the group's first 4 events; a group of 4 or
 *                fewer has no separate row of 4)
 *   start, stop, reset   pmuctl_start/_stop/_reset()   PERF_EVENT_IOC_ENABLE/_DISABLE/
 *                                                  _RESET with PERF_IOC_FLAG_GROUP,
 *                                                  PAPI_start()/PAPI_stop() of N
 *   program      pmuctl_program() + pmuctl_start() of the group on this CPU,
 *                then on every CPU (one PROGRAM for all), against
 *                perf_event_open() of the group per CPU (pid -1) + ENABLE;
 *                release and close are not timed.
 * The perf mmap loop is the one linux/perf_event.h documents (pc->lock,
 * pc->index, pc->offset, pc->pmc_width, rdpmc), without the time scaling
 * a multiplexed event needs: the group is never multiplexed here, so that
 * is perf's fastest correct read.  libperf's perf_evsel__read() (built
 * with -O2 from Debian's kernel source by scripts/libperf.sh when make
 * bench links it in) takes its mmap path there too: the same loop plus
 * the enabled and running times, behind a call and its checks.  PAPI
 * (Debian's 7.0) reads with rdpmc where perf's user page allows it and
 * with read() of each event where it does not (perf's
 * /sys/bus/event_source/devices/cpu/rdpmc 0); -r measures that mode too.
 *
 * Targets (issue 5): one counter within 5 cycles of a bare rdpmc; the group
 * read at least 3x faster than N perf mmap loops and 10x faster than a perf
 * group read(); program + start on one CPU at least 10x faster than perf's
 * open + enable.  Other rows are for information.
 *
 * A row runs only when both sides can.  pmuctl: /dev/pmuctl with the MSR
 * backend (the register model counts nothing and stock QEMU has no
 * rdpmc), and for reads the rdpmc grant (PMUCTL_COUNTERS_RDPMC).  perf:
 * hardware events, and for mmap reads cap_user_rdpmc; CPU-wide events
 * need CAP_PERFMON or perf_event_paranoid <= 0.  Every other row prints
 * "skipped: <why>".  pmuctl and perf never hold counters at the same time
 * (pmuctl reserves them from perf), so each side is timed in its own phase.
 *
 * On QEMU TCG's emulated PMU (scripts/vm/qemu/pmu-spec.md: CPUID 0x40000000 says
 * "TCGTCGTCGTCG" and CPUID.0AH a version >= 2) a timing would measure
 * QEMU's translated code and helpers, not silicon: compare times nothing
 * there and says so in one line, so that no TCG number is quoted; -i
 * counts the same operations instead (make bench's plugin guest).
 *
 * usage: compare [-c CPU] [-n SAMPLES] [-i] [-r] [-t FILE]
 *   -c CPU      the CPU to pin to (default: the one it starts on)
 *   -n SAMPLES  samples per read, start, stop and reset row (default
 *               100000; program rows take at most 10000 on one CPU, 1000
 *               on all)
 *   -i          count, not time: each sample is a window of the TCG plugin
 *               scripts/vm/insn-count.c (markers of insn_marks.h in place
 *               of the TSC reads, the sample's row as the plugin's label),
 *               which counts the instructions the whole guest executes in
 *               it, user and kernel, and its SYSCALL, RDMSR, WRMSR and
 *               RDPMC instructions.  Prints "insn-row LABEL ROW" for every
 *               row that ran and "insn-cmp" lines with the comparisons;
 *               scripts/insn-ops.awk makes the table from them and the
 *               plugin's lines (make bench's plugin guest,
 *               scripts/bench-guest.sh).  Without the plugin the markers
 *               are NOPs and nothing is measured.
 *   -r          PAPI's two reads again with perf's rdpmc off: writes 0 to
 *               /sys/bus/event_source/devices/cpu/rdpmc (root) for a
 *               second PAPI_library_init() and restores the old value
 *               (a system-wide switch: only where nothing else relies on
 *               perf's rdpmc meanwhile, as in make bench's guest).
 *   -t FILE     write the timed rows to FILE too, a line each
 *               ("timed-cmp OP|PMUCTL|P1|MEDIAN|P99|AGAINST|P1|MEDIAN|P99"
 *               after "timed-machine VENDOR family F model M"), which
 *               scripts/bench-timed.awk puts in build/bench/results.json;
 *               nothing when nothing was timed.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "libpmuctl.h"
#include "../hw/emulated.h"
#include "insn_marks.h"

#if defined(BENCH_PAPI) && __has_include(<papi.h>)
#include <papi.h>
#define HAVE_PAPI 1
#else
#define HAVE_PAPI 0
#endif

/* libperf, built from Debian's kernel source (scripts/libperf.sh). */
#if defined(BENCH_LIBPERF) && __has_include(<perf/evsel.h>)
#include <perf/core.h>
#include <perf/evsel.h>
#include <perf/threadmap.h>
#define HAVE_LIBPERF 1
#else
#define HAVE_LIBPERF 0
#endif

#define GROUP_MAX	7
#define WARM_READ	1000
#define WARM_CTL	100
#define WARM_PROG	10
#define PROG1_SAMPLES	10000
#define PROGALL_SAMPLES	1000
#define MIN(a, b)	((a) < (b) ? (a) : (b))

static const struct bench_event {
	const char *name;
	uint64_t config;	/* PERFEVTSEL image, USR added at use */
	uint64_t perf;		/* PERF_COUNT_HW_*: the same event on Intel */
	const char *papi;	/* libpfm4's name for the perf event */
} events[GROUP_MAX] = {
	{ "INST_RETIRED.ANY", 0x00c0, PERF_COUNT_HW_INSTRUCTIONS,
	  "perf::PERF_COUNT_HW_INSTRUCTIONS" },
	{ "CPU_CLK_UNHALTED.THREAD", 0x003c, PERF_COUNT_HW_CPU_CYCLES,
	  "perf::PERF_COUNT_HW_CPU_CYCLES" },
	{ "CPU_CLK_UNHALTED.REF_TSC", 0x0300, PERF_COUNT_HW_REF_CPU_CYCLES,
	  "perf::PERF_COUNT_HW_REF_CPU_CYCLES" },
	{ "BR_INST_RETIRED.ALL_BRANCHES", 0x00c4,
	  PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
	  "perf::PERF_COUNT_HW_BRANCH_INSTRUCTIONS" },
	{ "BR_MISP_RETIRED.ALL_BRANCHES", 0x00c5, PERF_COUNT_HW_BRANCH_MISSES,
	  "perf::PERF_COUNT_HW_BRANCH_MISSES" },
	{ "LONGEST_LAT_CACHE.REFERENCE", 0x4f2e, PERF_COUNT_HW_CACHE_REFERENCES,
	  "perf::PERF_COUNT_HW_CACHE_REFERENCES" },
	{ "LONGEST_LAT_CACHE.MISS", 0x412e, PERF_COUNT_HW_CACHE_MISSES,
	  "perf::PERF_COUNT_HW_CACHE_MISSES" },
};

/* Keeps results alive without putting anything in the timed region. */
static volatile uint64_t sink;

/* ---- the clock ------------------------------------------------------------ */

static inline __attribute__((always_inline)) uint64_t tsc_begin(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("lfence\n\trdtsc\n\tlfence"
			     : "=a"(lo), "=d"(hi) :: "memory");
	return (uint64_t)hi << 32 | lo;
}

static inline __attribute__((always_inline)) uint64_t tsc_end(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdtscp\n\tlfence"
			     : "=a"(lo), "=d"(hi) :: "rcx", "memory");
	return (uint64_t)hi << 32 | lo;
}

/**
 * struct sample - one side of a row
 * @v:		the samples, overhead already subtracted once finished.
 * @n:		how many were taken.
 * @why:	empty when timed, else why not (the row prints it).
 * @min, @med:	after sample_finish().
 */
struct sample {
	uint64_t *v;
	unsigned int n;
	char why[200];
	uint64_t min, med, p1, p99;
};

static uint64_t overhead;	/* minimum of the empty pair */
static bool tcg;		/* QEMU TCG's emulated PMU: timings, no claims */
static bool imode;		/* -i: plugin windows, not TSC reads */
static const struct sample *sample0;	/* the first; labels are indexes */

/*
 * A sample's bounds: the TSC reads, or with -i the plugin's window,
 * labelled with the sample's row (its index in struct results).
 */
#define T_BEGIN(s) ({								uint64_t t_ = 0;																if (imode) {									marks_label((unsigned int)((s) - sample0));				MARK(MARK_START, 0);						} else {									t_ = tsc_begin();						}									t_;								})

#define T_END() ({								uint64_t t_ = 0;																if (imode)									MARK(MARK_STOP, 0);						else										t_ = tsc_end();							t_;								})

static bool sample_ok(const struct sample *s)
{
	return s->n && !s->why[0];
}

static void sample_skip(struct sample *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void sample_skip(struct sample *s, const char *fmt, ...)
{
	va_list ap;

	if (s->why[0])
		return;		/* the first reason is the one to fix */
	va_start(ap, fmt);
	vsnprintf(s->why, sizeof(s->why), fmt, ap);
	va_end(ap);
	s->n = 0;
}

static int sample_alloc(struct sample *s, unsigned int n)
{
	s->v = calloc(n, sizeof(*s->v));
	s->n = n;
	return s->v ? 0 : -ENOMEM;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void sample_finish(struct sample *s, bool subtract)
{
	if (!sample_ok(s))
		return;
	for (unsigned int i = 0; subtract && i < s->n; i++)
		s->v[i] = s->v[i] > overhead ? s->v[i] - overhead : 0;
	qsort(s->v, s->n, sizeof(*s->v), cmp_u64);
	s->min = s->v[0];
	s->med = s->v[s->n / 2];
	s->p1 = s->v[s->n / 100];
	s->p99 = s->v[s->n - 1 - s->n / 100];
}

/*
 * MEASURE(s, warm, setup, op, after): @warm + s->n rounds of @setup
 * (untimed), @op (timed), @after (untimed; may "break" to stop, having
 * called sample_skip()).  The first @warm rounds are not kept.  Nothing
 * for a side already skipped.
 */
#define MEASURE(s, warm, setup, op, after) do {				\
	for (unsigned int i_ = 0; sample_ok(s) && i_ < (warm) + (s)->n; i_++) { \
		uint64_t t0_, t1_;					\
									\
		setup;							\
		t0_ = T_BEGIN(s);					\
		op;							\
		t1_ = T_END();						\
		if (i_ >= (warm))					\
			(s)->v[i_ - (warm)] = t1_ - t0_;		\
		after;							\
	}								\
} while (0)

/* ---- perf ----------------------------------------------------------------- */

static int perf_open(uint64_t config, pid_t pid, int cpu, int group_fd,
		     uint64_t read_format)
{
	struct perf_event_attr a;
	long fd;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_HARDWARE;
	a.size = sizeof(a);
	a.config = config;
	a.disabled = group_fd < 0;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.read_format = read_format;
	fd = syscall(SYS_perf_event_open, &a, pid, cpu, group_fd,
		     PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}

static void fds_close(int *fd, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		if (fd[i] >= 0) {
			close(fd[i]);
			fd[i] = -1;
		}
}

/* A group of the first @n events on (@pid, @cpu), leader disabled. */
static int perf_group_open(int *fd, unsigned int n, pid_t pid, int cpu,
			   uint64_t read_format)
{
	for (unsigned int i = 0; i < n; i++) {
		fd[i] = perf_open(events[i].perf, pid, cpu, i ? fd[0] : -1,
				  read_format);
		if (fd[i] < 0) {
			int ret = fd[i];

			fds_close(fd, i);
			return ret;
		}
	}
	return 0;
}

static int perf_group_ioctl(int leader, unsigned long cmd)
{
	return ioctl(leader, cmd, PERF_IOC_FLAG_GROUP) ? -errno : 0;
}

#define barrier()	__asm__ __volatile__("" ::: "memory")

/*
 * The self-monitoring read of linux/perf_event.h: retry while the kernel
 * updated the page (pc->lock changed); rdpmc(index - 1) sign-extended from
 * pmc_width bits plus the offset the kernel keeps.
 */
static inline __attribute__((always_inline)) uint64_t
perf_mmap_read(const volatile struct perf_event_mmap_page *pc)
{
	uint64_t count;
	uint32_t seq, idx, width;

	do {
		seq = pc->lock;
		barrier();
		idx = pc->index;
		count = pc->offset;
		if (pc->cap_user_rdpmc && idx) {
			width = pc->pmc_width;
			count += (uint64_t)((int64_t)(pmuctl_rdpmc(idx - 1) <<
						      (64 - width)) >>
					    (64 - width));
		}
		barrier();
	} while (pc->lock != seq);
	return count;
}

static void pages_unmap(void **pg, unsigned int n)
{
	long psz = sysconf(_SC_PAGESIZE);

	for (unsigned int i = 0; i < n; i++)
		if (pg[i]) {
			munmap(pg[i], psz);
			pg[i] = NULL;
		}
}

/* Map each event's user page; "" or why the mmap loop cannot read them. */
static const char *pages_map(const int *fd, void **pg, unsigned int n)
{
	static char why[160];
	long psz = sysconf(_SC_PAGESIZE);

	for (unsigned int i = 0; i < n; i++) {
		const volatile struct perf_event_mmap_page *pc;
		void *p = mmap(NULL, psz, PROT_READ, MAP_SHARED, fd[i], 0);

		if (p == MAP_FAILED) {
			snprintf(why, sizeof(why), "perf: mmap of event %u: %s",
				 i, strerror(errno));
			pages_unmap(pg, i);
			return why;
		}
		pg[i] = p;
		pc = p;
		if (!pc->cap_user_rdpmc) {
			pages_unmap(pg, i + 1);
			return "perf: the mmap page says cap_user_rdpmc=0 (is /sys/bus/event_source/devices/cpu/rdpmc 0?)";
		}
		if (!pc->index) {
			pages_unmap(pg, i + 1);
			snprintf(why, sizeof(why),
				 "perf: event %u (%s) is not on a counter (NMI watchdog? sysctl kernel.nmi_watchdog=0)",
				 i, events[i].name);
			return why;
		}
	}
	return "";
}

/* ---- what is measured ------------------------------------------------------ */

struct results {
	unsigned int n;		/* events in the group */
	unsigned int ncpus;	/* CPUs for "all CPUs" */
	struct sample empty;
	struct sample bare, pm_read1, pm_readn, pm_ioctln, pm_start, pm_stop,
		      pm_reset, pm_prog1, pm_progall;
	struct sample pf_mmap1, pf_read1, pf_mmapn, pf_groupn, pf_start,
		      pf_stop, pf_reset, pf_prog1, pf_progall;
	struct sample papi1, papin, papi_start, papi_stop, papi1_sys, papin_sys;
	struct sample lp1, lpn;
	/* 4 of the group's counters (the first 4 events) */
	struct sample pm_read4, pf_mmap4, pf_group4, lp4, papi4, papi4_sys;
};

#define READ_MID	4	/* the middle read row: 4 counters */

/*
 * Every sample of a struct results, @empty first: nothing else follows it
 * in the struct, so the samples are one run of struct sample, indexed as
 * the plugin's labels are (sample0).
 */
#define NR_SAMPLES							\
	((sizeof(struct results) - offsetof(struct results, empty)) /	\
	 sizeof(struct sample))
_Static_assert((sizeof(struct results) - offsetof(struct results, empty)) %
	       sizeof(struct sample) == 0,
	       "struct results: only samples after empty");

static struct sample *sample_all(struct results *r)
{
	return &r->empty;
}

/* pmuctl_read_counters() with a constant count, as the header asks. */
#define PM_READ_N(N)							\
static void pm_read_##N(const struct pmuctl_counters *c, struct sample *s) \
{									\
	uint64_t v[N];							\
									\
	MEASURE(s, WARM_READ, , pmuctl_read_counters(c, v, N),		\
		sink ^= v[N - 1]);					\
}

/* N perf mmap loops, unrolled the same way. */
#define PF_MMAP_N(N)							\
static void pf_mmap_##N(void *const *pg, struct sample *s)		\
{									\
	uint64_t v[N];							\
									\
	MEASURE(s, WARM_READ, ,						\
		_Pragma("GCC unroll 8")					\
		for (unsigned int k = 0; k < N; k++)			\
			v[k] = perf_mmap_read(pg[k]),			\
		sink ^= v[N - 1]);					\
}

PM_READ_N(3) PM_READ_N(4) PM_READ_N(5) PM_READ_N(6) PM_READ_N(7)
PF_MMAP_N(3) PF_MMAP_N(4) PF_MMAP_N(5) PF_MMAP_N(6) PF_MMAP_N(7)

static void (*const pm_read_n[GROUP_MAX + 1])(const struct pmuctl_counters *,
					      struct sample *) = {
	[3] = pm_read_3, [4] = pm_read_4, [5] = pm_read_5, [6] = pm_read_6,
	[7] = pm_read_7,
};

static void (*const pf_mmap_n[GROUP_MAX + 1])(void *const *, struct sample *) = {
	[3] = pf_mmap_3, [4] = pf_mmap_4, [5] = pf_mmap_5, [6] = pf_mmap_6,
	[7] = pf_mmap_7,
};

static void group_events(struct pmuctl_event *ev, unsigned int n)
{
	memset(ev, 0, n * sizeof(*ev));
	for (unsigned int i = 0; i < n; i++)
		ev[i].config = events[i].config | PMUCTL_CFG_USR;
}

/* Why pmuctl cannot be timed at all, or NULL; *p open on success. */
static const char *pm_probe(struct pmuctl **p)
{
	static char why[200];
	const struct pmuctl_info *info;
	int ret = pmuctl_open(NULL, 0, p);

	if (ret) {
		snprintf(why, sizeof(why), "pmuctl: cannot open %s: %s%s",
			 PMUCTL_DEVICE_PATH, strerror(-ret),
			 ret == -ENOENT ? " (load pmuctl.ko)" :
			 ret == -EACCES || ret == -EPERM ?
			 " (run as root, or load pmuctl.ko with paranoid=0)" : "");
		return why;
	}
	info = pmuctl_get_info(*p);
	if (info->backend != PMUCTL_BACKEND_MSR) {
		pmuctl_close(*p);
		*p = NULL;
		return "pmuctl: the module runs on the test register model (no real counts, no rdpmc)";
	}
	return NULL;
}

/* What a user does to count: program the group, then start it. */
static int pm_program_start(struct pmuctl *p, struct pmuctl_event *ev,
			    unsigned int n, const cpu_set_t *set,
			    struct pmuctl_error *err)
{
	int ret = pmuctl_program(p, ev, n, set, sizeof(*set), err);

	return ret ? ret : pmuctl_start(p);
}

/* pmuctl's side; @p from pm_probe(), or NULL and @why. */
static void pm_phase(struct results *r, struct pmuctl *p, int cpu,
		     const cpu_set_t *all, const char *why)
{
	struct pmuctl_event tmpl[GROUP_MAX], ev[GROUP_MAX];
	const struct pmuctl_counters *c;
	struct pmuctl_error err;
	cpu_set_t one;
	char msg[200];
	int ret = 0;

	struct sample *all_s[] = {
		&r->bare, &r->pm_read1, &r->pm_readn, &r->pm_ioctln,
		&r->pm_start, &r->pm_stop, &r->pm_reset, &r->pm_prog1,
		&r->pm_progall, &r->pm_read4,
	};

	if (why) {
		for (unsigned int i = 0; i < sizeof(all_s) / sizeof(all_s[0]); i++)
			sample_skip(all_s[i], "%s", why);
		return;
	}

	group_events(tmpl, r->n);
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	memcpy(ev, tmpl, sizeof(ev));
	ret = pmuctl_program(p, ev, r->n, &one, sizeof(one), &err);
	if (!ret)
		ret = pmuctl_start(p);
	if (ret) {
		pmuctl_strerror(ret, &err, msg, sizeof(msg));
		for (unsigned int i = 0; i < sizeof(all_s) / sizeof(all_s[0]); i++)
			sample_skip(all_s[i], "pmuctl: program of %u events on CPU %d: %s",
				    r->n, cpu, msg);
		pmuctl_close(p);
		return;
	}
	c = pmuctl_get_counters(p);

	if (!(c->flags & PMUCTL_COUNTERS_RDPMC)) {
		const char *w = "pmuctl: rdpmc not granted (is /sys/module/pmuctl/parameters/rdpmc 0?)";

		sample_skip(&r->bare, "%s", w);
		sample_skip(&r->pm_read1, "%s", w);
		sample_skip(&r->pm_readn, "%s", w);
		sample_skip(&r->pm_read4, "%s", w);
	} else {
		uint32_t ecx = c->ecx[0];

		MEASURE(&r->bare, WARM_READ, uint64_t v, v = pmuctl_rdpmc(ecx),
			sink ^= v);
		MEASURE(&r->pm_read1, WARM_READ, uint64_t v,
			v = pmuctl_read_counter(c, 0), sink ^= v);
		pm_read_n[r->n](c, &r->pm_readn);
		if (sample_ok(&r->pm_read4))
			pm_read_n[READ_MID](c, &r->pm_read4);
	}
	/* what a thread without the grant reads: the module's READ */
	MEASURE(&r->pm_ioctln, WARM_READ, uint64_t v[GROUP_MAX]; int e,
		e = pmuctl_read_values(p, cpu, v, r->n),
		if (e < 0) {
			sample_skip(&r->pm_ioctln, "pmuctl: READ: %s", strerror(-e));
			break;
		}
		sink ^= v[0]);

	/* start, stop, reset of the running group, in turn. */
	for (unsigned int i = 0; i < WARM_CTL + r->pm_start.n; i++) {
		uint64_t t[6];
		int e[3];

		t[0] = T_BEGIN(&r->pm_stop);
		e[0] = pmuctl_stop(p);
		t[1] = T_END();
		t[2] = T_BEGIN(&r->pm_reset);
		e[1] = pmuctl_reset(p);
		t[3] = T_END();
		t[4] = T_BEGIN(&r->pm_start);
		e[2] = pmuctl_start(p);
		t[5] = T_END();
		if (e[0] || e[1] || e[2]) {
			ret = e[0] ? e[0] : e[1] ? e[1] : e[2];
			sample_skip(&r->pm_stop, "pmuctl: stop/reset/start: %s",
				    strerror(-ret));
			sample_skip(&r->pm_reset, "%s", r->pm_stop.why);
			sample_skip(&r->pm_start, "%s", r->pm_stop.why);
			break;
		}
		if (i >= WARM_CTL) {
			r->pm_stop.v[i - WARM_CTL] = t[1] - t[0];
			r->pm_reset.v[i - WARM_CTL] = t[3] - t[2];
			r->pm_start.v[i - WARM_CTL] = t[5] - t[4];
		}
	}
	pmuctl_release(p);

	/* program + start, then release (not timed): this CPU, every CPU. */
	MEASURE(&r->pm_prog1, WARM_PROG, memcpy(ev, tmpl, sizeof(ev)),
		ret = pm_program_start(p, ev, r->n, &one, &err),
		if (ret) {
			pmuctl_strerror(ret, &err, msg, sizeof(msg));
			sample_skip(&r->pm_prog1, "pmuctl: program on CPU %d: %s",
				    cpu, msg);
			break;
		}
		pmuctl_release(p));
	MEASURE(&r->pm_progall, WARM_PROG, memcpy(ev, tmpl, sizeof(ev)),
		ret = pm_program_start(p, ev, r->n, all, &err),
		if (ret) {
			pmuctl_strerror(ret, &err, msg, sizeof(msg));
			sample_skip(&r->pm_progall, "pmuctl: program on %u CPUs: %s",
				    r->ncpus, msg);
			break;
		}
		pmuctl_release(p));
	pmuctl_close(p);
}

/* Why perf cannot be timed at all, or NULL. */
static const char *pf_probe(void)
{
	static char why[200];
	int fd = perf_open(PERF_COUNT_HW_INSTRUCTIONS, 0, -1, -1, 0);

	if (fd < 0) {
		snprintf(why, sizeof(why),
			 "perf: perf_event_open(PERF_TYPE_HARDWARE): %s%s",
			 strerror(-fd), fd == -ENOENT || fd == -EOPNOTSUPP ?
			 " (no hardware PMU)" : " (see /proc/sys/kernel/perf_event_paranoid)");
		return why;
	}
	close(fd);
	return NULL;
}

/* perf_event_open() of the group on every CPU of @set, + ENABLE each. */
static int pf_open_cpus(int *fd, unsigned int n, const cpu_set_t *set)
{
	unsigned int k = 0;
	int ret = 0;

	for (int cpu = 0; cpu < CPU_SETSIZE && !ret; cpu++) {
		if (!CPU_ISSET(cpu, set))
			continue;
		ret = perf_group_open(fd + k * n, n, -1, cpu, 0);
		if (!ret) {
			ret = perf_group_ioctl(fd[k * n], PERF_EVENT_IOC_ENABLE);
			k++;
		}
	}
	return ret;
}

/*
 * The running group of @n events on @fd: @n perf mmap loops into @mm, one
 * PERF_FORMAT_GROUP read() into @grp.
 */
static void pf_group_reads(const int *fd, unsigned int n, struct sample *mm,
			   struct sample *grp)
{
	struct { uint64_t nr, v[GROUP_MAX]; } buf;
	ssize_t want = (ssize_t)(sizeof(uint64_t) * (1 + n));
	void *pg[GROUP_MAX] = { NULL };
	const char *mwhy;

	mwhy = pages_map(fd, pg, n);
	if (*mwhy) {
		sample_skip(mm, "%s", mwhy);
	} else {
		pf_mmap_n[n](pg, mm);
		pages_unmap(pg, n);
	}
	MEASURE(grp, WARM_READ, ssize_t got,
		got = read(fd[0], &buf, sizeof(buf)),
		if (got != want || buf.nr != n) {
			sample_skip(grp, "perf: group read(): %s",
				    got < 0 ? strerror(errno) : "unexpected size");
			break;
		}
		sink ^= buf.v[0]);
}

static void pf_phase(struct results *r, int cpu, const cpu_set_t *all,
		     const char *why)
{
	int fd[GROUP_MAX], one_fd = -1, *cfd;
	void *pg[GROUP_MAX] = { NULL };
	const char *mwhy;
	cpu_set_t one;
	int ret;

	struct sample *all_s[] = {
		&r->pf_mmap1, &r->pf_read1, &r->pf_mmapn, &r->pf_groupn,
		&r->pf_start, &r->pf_stop, &r->pf_reset, &r->pf_prog1,
		&r->pf_progall, &r->pf_mmap4, &r->pf_group4,
	};

	if (!why)
		why = pf_probe();
	if (why) {
		for (unsigned int i = 0; i < sizeof(all_s) / sizeof(all_s[0]); i++)
			sample_skip(all_s[i], "%s", why);
		return;
	}

	/* One event alone: its mmap loop and read(). */
	one_fd = perf_open(events[0].perf, 0, -1, -1, 0);
	if (one_fd < 0 || perf_group_ioctl(one_fd, PERF_EVENT_IOC_ENABLE)) {
		sample_skip(&r->pf_mmap1, "perf: event %s: %s", events[0].name,
			    strerror(one_fd < 0 ? -one_fd : errno));
		sample_skip(&r->pf_read1, "%s", r->pf_mmap1.why);
	} else {
		mwhy = pages_map(&one_fd, pg, 1);
		if (*mwhy) {
			sample_skip(&r->pf_mmap1, "%s", mwhy);
		} else {
			MEASURE(&r->pf_mmap1, WARM_READ, uint64_t v,
				v = perf_mmap_read(pg[0]), sink ^= v);
			pages_unmap(pg, 1);
		}
		MEASURE(&r->pf_read1, WARM_READ, uint64_t v,
			ret = read(one_fd, &v, sizeof(v)),
			if (ret != sizeof(v)) {
				sample_skip(&r->pf_read1, "perf: read(): %s",
					    ret < 0 ? strerror(errno) : "short read");
				break;
			}
			sink ^= v);
	}
	if (one_fd >= 0)
		close(one_fd);

	/* The group: N mmap loops, one group read(), enable/disable/reset. */
	ret = perf_group_open(fd, r->n, 0, -1, PERF_FORMAT_GROUP);
	if (!ret)
		ret = perf_group_ioctl(fd[0], PERF_EVENT_IOC_ENABLE);
	if (ret) {
		const char *w = "perf: the group of events";

		sample_skip(&r->pf_mmapn, "%s: %s", w, strerror(-ret));
		sample_skip(&r->pf_groupn, "%s: %s", w, strerror(-ret));
		sample_skip(&r->pf_mmap4, "%s: %s", w, strerror(-ret));
		sample_skip(&r->pf_group4, "%s: %s", w, strerror(-ret));
		sample_skip(&r->pf_start, "%s: %s", w, strerror(-ret));
		sample_skip(&r->pf_stop, "%s: %s", w, strerror(-ret));
		sample_skip(&r->pf_reset, "%s: %s", w, strerror(-ret));
	} else {
		pf_group_reads(fd, r->n, &r->pf_mmapn, &r->pf_groupn);
		for (unsigned int i = 0; i < WARM_CTL + r->pf_start.n; i++) {
			uint64_t t[6];
			int e[3];

			t[0] = T_BEGIN(&r->pf_stop);
			e[0] = perf_group_ioctl(fd[0], PERF_EVENT_IOC_DISABLE);
			t[1] = T_END();
			t[2] = T_BEGIN(&r->pf_reset);
			e[1] = perf_group_ioctl(fd[0], PERF_EVENT_IOC_RESET);
			t[3] = T_END();
			t[4] = T_BEGIN(&r->pf_start);
			e[2] = perf_group_ioctl(fd[0], PERF_EVENT_IOC_ENABLE);
			t[5] = T_END();
			if (e[0] || e[1] || e[2]) {
				ret = e[0] ? e[0] : e[1] ? e[1] : e[2];
				sample_skip(&r->pf_stop, "perf: disable/reset/enable: %s",
					    strerror(-ret));
				sample_skip(&r->pf_reset, "%s", r->pf_stop.why);
				sample_skip(&r->pf_start, "%s", r->pf_stop.why);
				break;
			}
			if (i >= WARM_CTL) {
				r->pf_stop.v[i - WARM_CTL] = t[1] - t[0];
				r->pf_reset.v[i - WARM_CTL] = t[3] - t[2];
				r->pf_start.v[i - WARM_CTL] = t[5] - t[4];
			}
		}
		fds_close(fd, r->n);
	}

	/* A group of the first 4: the middle read row. */
	if (sample_ok(&r->pf_group4)) {
		ret = perf_group_open(fd, READ_MID, 0, -1, PERF_FORMAT_GROUP);
		if (!ret)
			ret = perf_group_ioctl(fd[0], PERF_EVENT_IOC_ENABLE);
		if (ret) {
			sample_skip(&r->pf_mmap4, "perf: a group of %u events: %s",
				    READ_MID, strerror(-ret));
			sample_skip(&r->pf_group4, "%s", r->pf_mmap4.why);
		} else {
			pf_group_reads(fd, READ_MID, &r->pf_mmap4, &r->pf_group4);
			fds_close(fd, READ_MID);
		}
	}

	/* Open + enable the group CPU-wide: this CPU, then every CPU. */
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	cfd = malloc(sizeof(*cfd) * r->n * r->ncpus);
	if (!cfd) {
		sample_skip(&r->pf_prog1, "out of memory");
		sample_skip(&r->pf_progall, "out of memory");
		return;
	}
	for (unsigned int i = 0; i < r->n * r->ncpus; i++)
		cfd[i] = -1;
	MEASURE(&r->pf_prog1, WARM_PROG, ,
		ret = pf_open_cpus(cfd, r->n, &one),
		fds_close(cfd, r->n);
		if (ret) {
			sample_skip(&r->pf_prog1, "perf: CPU-wide group on CPU %d: %s%s",
				    cpu, strerror(-ret), ret == -EACCES ?
				    " (needs CAP_PERFMON or perf_event_paranoid <= 0)" : "");
			break;
		});
	MEASURE(&r->pf_progall, WARM_PROG, ,
		ret = pf_open_cpus(cfd, r->n, all),
		fds_close(cfd, r->n * r->ncpus);
		if (ret) {
			sample_skip(&r->pf_progall, "perf: CPU-wide groups on %u CPUs: %s%s",
				    r->ncpus, strerror(-ret), ret == -EACCES ?
				    " (needs CAP_PERFMON or perf_event_paranoid <= 0)" : "");
			break;
		});
	free(cfd);
}

/* Every PAPI row skipped, saying @why. */
static void papi_skip(struct results *r, const char *why)
{
	sample_skip(&r->papi1, "%s", why);
	sample_skip(&r->papin, "%s", why);
	sample_skip(&r->papi_start, "%s", why);
	sample_skip(&r->papi_stop, "%s", why);
	sample_skip(&r->papi1_sys, "%s", why);
	sample_skip(&r->papin_sys, "%s", why);
	sample_skip(&r->papi4, "%s", why);
	sample_skip(&r->papi4_sys, "%s", why);
}

/* -r: PAPI's reads again with perf's rdpmc off (root). */
static bool rflag;
/* -t FILE: the timed rows for make bench's results (scripts/bench-timed.awk) */
static FILE *tfile;
static char machine[96];
#define PERF_RDPMC	"/sys/bus/event_source/devices/cpu/rdpmc"

#if HAVE_PAPI
/* An event set of the first @n events, started: 0, or *why set. */
static int papi_set(unsigned int n, int *es, char *why, size_t len)
{
	int ret;

	*es = PAPI_NULL;
	ret = PAPI_create_eventset(es);
	for (unsigned int i = 0; ret == PAPI_OK && i < n; i++) {
		ret = PAPI_add_named_event(*es, events[i].papi);
		if (ret != PAPI_OK)
			snprintf(why, len, "PAPI: cannot add %s: %s",
				 events[i].papi, PAPI_strerror(ret));
	}
	if (ret == PAPI_OK) {
		ret = PAPI_start(*es);
		if (ret != PAPI_OK)
			snprintf(why, len, "PAPI_start: %s", PAPI_strerror(ret));
	} else if (!why[0]) {
		snprintf(why, len, "PAPI_create_eventset: %s", PAPI_strerror(ret));
	}
	if (ret != PAPI_OK && *es != PAPI_NULL) {
		PAPI_cleanup_eventset(*es);
		PAPI_destroy_eventset(es);
	}
	return ret == PAPI_OK ? 0 : -1;
}

static void papi_end(int *es)
{
	long long v[GROUP_MAX];

	PAPI_stop(*es, v);
	PAPI_cleanup_eventset(*es);
	PAPI_destroy_eventset(es);
}

/* PAPI_stop() and PAPI_start() of the running event set @es, in turn. */
static void papi_ctl(struct results *r, int es)
{
	long long v[GROUP_MAX];

	for (unsigned int i = 0; i < WARM_CTL + r->papi_start.n; i++) {
		uint64_t t[4];
		int e[2];

		t[0] = T_BEGIN(&r->papi_stop);
		e[0] = PAPI_stop(es, v);
		t[1] = T_END();
		t[2] = T_BEGIN(&r->papi_start);
		e[1] = PAPI_start(es);
		t[3] = T_END();
		if (e[0] != PAPI_OK || e[1] != PAPI_OK) {
			sample_skip(&r->papi_stop, "PAPI_stop/PAPI_start: %s",
				    PAPI_strerror(e[0] != PAPI_OK ? e[0] : e[1]));
			sample_skip(&r->papi_start, "%s", r->papi_stop.why);
			break;
		}
		if (i >= WARM_CTL) {
			r->papi_stop.v[i - WARM_CTL] = t[1] - t[0];
			r->papi_start.v[i - WARM_CTL] = t[3] - t[2];
		}
	}
}

/* PAPI_read() of an event set of the first @n events into @s: 0 or -1. */
static int papi_reads(unsigned int n, struct sample *s, int *es)
{
	char w[200] = "";
	long long v[GROUP_MAX];
	int ret;

	if (papi_set(n, es, w, sizeof(w))) {
		sample_skip(s, "%s", w);
		return -1;
	}
	MEASURE(s, WARM_READ, , ret = PAPI_read(*es, v),
		if (ret != PAPI_OK) {
			sample_skip(s, "PAPI_read: %s", PAPI_strerror(ret));
			break;
		}
		sink ^= (uint64_t)v[0]);
	return 0;
}

/*
 * PAPI_read() of 1, 4 and all the group's events into @s1, @s4 and @sn,
 * in the mode PAPI's perf_event component chose at PAPI_library_init();
 * with @ctl, PAPI_stop() and PAPI_start() of the group too.  "" or why
 * PAPI could not start.
 */
static const char *papi_pass(struct results *r, struct sample *s1,
			     struct sample *s4, struct sample *sn, bool ctl,
			     bool *rdpmc)
{
	static char w[200];
	const PAPI_component_info_t *ci;
	int es, ret;

	w[0] = 0;
	ret = PAPI_library_init(PAPI_VER_CURRENT);
	if (ret != PAPI_VER_CURRENT) {
		snprintf(w, sizeof(w), "PAPI_library_init: %s",
			 ret > 0 ? "version mismatch" : PAPI_strerror(ret));
		return w;
	}
	ci = PAPI_get_component_info(0);
	*rdpmc = ci && ci->fast_counter_read;
	if (!papi_reads(1, s1, &es))
		papi_end(&es);
	if (sample_ok(s4) && !papi_reads(READ_MID, s4, &es))
		papi_end(&es);
	if (papi_reads(r->n, sn, &es)) {
		if (ctl) {
			sample_skip(&r->papi_start, "%s", sn->why);
			sample_skip(&r->papi_stop, "%s", sn->why);
		}
	} else {
		if (ctl)
			papi_ctl(r, es);
		papi_end(&es);
	}
	PAPI_shutdown();
	return "";
}

/* Write @val to perf's rdpmc switch; 0 or -errno. */
static int perf_rdpmc_set(const char *val)
{
	int fd = open(PERF_RDPMC, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * PAPI as it comes (Debian's 7.0 reads with rdpmc where perf's user page
 * allows it), then, with -r, as it reads where perf's rdpmc is off
 * (read() of each event's file descriptor): PAPI decides at
 * PAPI_library_init(), from a test event's user page, so the switch is
 * set before a second init and restored after.
 */
static void papi_phase(struct results *r, const char *why)
{
	char old[8] = "";
	const char *w;
	bool rdpmc;
	ssize_t got;
	int fd, ret;

	if (why) {
		papi_skip(r, why);
		return;
	}
	w = papi_pass(r, &r->papi1, &r->papi4, &r->papin, true, &rdpmc);
	if (*w) {
		papi_skip(r, w);
		return;
	}
	printf("PAPI %d.%d.%d: its perf_event component reads with %s\n",
	       PAPI_VERSION_MAJOR(PAPI_VERSION), PAPI_VERSION_MINOR(PAPI_VERSION),
	       PAPI_VERSION_REVISION(PAPI_VERSION),
	       rdpmc ? "rdpmc (fast_counter_read)" : "read()");
	if (!rflag) {
		sample_skip(&r->papi1_sys, "PAPI with perf's rdpmc off: not asked (-r)");
		sample_skip(&r->papin_sys, "%s", r->papi1_sys.why);
		sample_skip(&r->papi4_sys, "%s", r->papi1_sys.why);
		return;
	}
	fd = open(PERF_RDPMC, O_RDONLY | O_CLOEXEC);
	got = fd < 0 ? -1 : read(fd, old, sizeof(old) - 1);
	if (fd >= 0)
		close(fd);
	ret = got > 0 ? perf_rdpmc_set("0") : -ENOENT;
	if (ret) {
		sample_skip(&r->papi1_sys, "PAPI with perf's rdpmc off: cannot write 0 to %s: %s",
			    PERF_RDPMC, strerror(-ret));
		sample_skip(&r->papin_sys, "%s", r->papi1_sys.why);
		sample_skip(&r->papi4_sys, "%s", r->papi1_sys.why);
		return;
	}
	old[got] = 0;
	w = papi_pass(r, &r->papi1_sys, &r->papi4_sys, &r->papin_sys, false,
		      &rdpmc);
	ret = perf_rdpmc_set(old);
	if (ret)
		fprintf(stderr, "compare: cannot restore %s to %s: %s\n",
			PERF_RDPMC, old, strerror(-ret));
	if (*w || rdpmc) {
		sample_skip(&r->papi1_sys, "PAPI with perf's rdpmc off: %s",
			    *w ? w : "PAPI still reads with rdpmc");
		sample_skip(&r->papin_sys, "%s", r->papi1_sys.why);
		sample_skip(&r->papi4_sys, "%s", r->papi1_sys.why);
	}
}
#else
static void papi_phase(struct results *r, const char *why)
{
	if (!why)
		why = "PAPI: not built in (install libpapi-dev and rebuild)";
	papi_skip(r, why);
}
#endif

#if HAVE_LIBPERF
/* N perf_evsel__read() calls, one per event, unrolled as the mmap loops. */
#define LP_READ_N(N)							\
static void lp_read_##N(struct perf_evsel *const *ev, struct sample *s) \
{									\
	struct perf_counts_values c[N];					\
	int e_ = 0;							\
									\
	MEASURE(s, WARM_READ, ,						\
		_Pragma("GCC unroll 8")					\
		for (unsigned int k = 0; k < N; k++)			\
			e_ |= perf_evsel__read(ev[k], 0, 0, &c[k]),	\
		if (e_) {						\
			sample_skip(s, "libperf: perf_evsel__read failed"); \
			break;						\
		}							\
		sink ^= c[N - 1].val);					\
}

LP_READ_N(1) LP_READ_N(3) LP_READ_N(4) LP_READ_N(5) LP_READ_N(6) LP_READ_N(7)

static void (*const lp_read_n[GROUP_MAX + 1])(struct perf_evsel *const *,
					      struct sample *) = {
	[1] = lp_read_1, [3] = lp_read_3, [4] = lp_read_4, [5] = lp_read_5,
	[6] = lp_read_6, [7] = lp_read_7,
};

static int lp_quiet(enum libperf_print_level level, const char *fmt,
		    va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

static void lp_close(struct perf_evsel **ev, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		if (!ev[i])
			continue;
		perf_evsel__munmap(ev[i]);
		perf_evsel__close(ev[i]);
		perf_evsel__delete(ev[i]);
		ev[i] = NULL;
	}
}

/*
 * The first @n events as libperf's evsels counting this thread, each
 * mmapped and enabled, as libperf's own self-monitoring test does: "" or
 * why not.  Each user page must allow the rdpmc read, or
 * perf_evsel__read() would fall back to read() and the row would not be
 * the one it names.
 */
static const char *lp_open(struct perf_evsel **ev, unsigned int n,
			   struct perf_thread_map *th)
{
	static char why[200];

	for (unsigned int i = 0; i < n; i++) {
		struct perf_event_attr a = {
			.type = PERF_TYPE_HARDWARE,
			.size = sizeof(a),
			.config = events[i].perf,
			.exclude_kernel = 1,
			.exclude_hv = 1,
		};
		const volatile struct perf_event_mmap_page *pc;
		int ret;

		ev[i] = perf_evsel__new(&a);
		if (!ev[i]) {
			lp_close(ev, i);
			return "libperf: perf_evsel__new: out of memory";
		}
		ret = perf_evsel__open(ev[i], NULL, th);
		if (!ret)
			ret = perf_evsel__mmap(ev[i], 0);
		if (!ret)
			ret = perf_evsel__enable(ev[i]);
		if (ret) {
			snprintf(why, sizeof(why), "libperf: event %s: %s",
				 events[i].name, strerror(ret < 0 ? -ret : ret));
			lp_close(ev, i + 1);
			return why;
		}
		pc = perf_evsel__mmap_base(ev[i], 0, 0);
		if (!pc || !pc->cap_user_rdpmc || !pc->index) {
			snprintf(why, sizeof(why),
				 "libperf: event %s: its user page allows no rdpmc read",
				 events[i].name);
			lp_close(ev, i + 1);
			return why;
		}
	}
	return "";
}

/* libperf's perf_evsel__read() of 1 event and of each of the group's. */
static void lp_phase(struct results *r, const char *why)
{
	struct perf_evsel *ev[GROUP_MAX] = { NULL };
	struct perf_thread_map *th;

	if (!why)
		why = pf_probe();
	if (why) {
		sample_skip(&r->lp1, "%s", why);
		sample_skip(&r->lpn, "%s", why);
		sample_skip(&r->lp4, "%s", why);
		return;
	}
	libperf_init(lp_quiet);
	th = perf_thread_map__new_dummy();
	if (!th) {
		sample_skip(&r->lp1, "libperf: out of memory");
		sample_skip(&r->lpn, "%s", r->lp1.why);
		sample_skip(&r->lp4, "%s", r->lp1.why);
		return;
	}
	perf_thread_map__set_pid(th, 0, 0);
	why = lp_open(ev, 1, th);
	if (*why) {
		sample_skip(&r->lp1, "%s", why);
	} else {
		lp_read_n[1](ev, &r->lp1);
		lp_close(ev, 1);
	}
	why = lp_open(ev, r->n, th);
	if (*why) {
		sample_skip(&r->lpn, "%s", why);
		sample_skip(&r->lp4, "%s", why);
	} else {
		lp_read_n[r->n](ev, &r->lpn);
		if (sample_ok(&r->lp4))
			lp_read_n[READ_MID](ev, &r->lp4);
		lp_close(ev, r->n);
	}
	perf_thread_map__put(th);
}
#else
static void lp_phase(struct results *r, const char *why)
{
	if (!why)
		why = "libperf: not built in (make bench builds it from Debian's kernel source)";
	sample_skip(&r->lp1, "%s", why);
	sample_skip(&r->lpn, "%s", why);
	sample_skip(&r->lp4, "%s", why);
}
#endif

/* ---- the table --------------------------------------------------------- */

enum target { T_INFO, T_DIFF, T_RATIO };

struct row {
	const char *op;
	const char *pm_what;
	const struct sample *pm;
	const char *other_what;
	const struct sample *other;
	enum target target;
	unsigned int goal;
};

/* Distinct reasons for skipped rows, printed once under the table. */
static const char *reasons[32];
static unsigned int nr_reasons;

static unsigned int reason_id(const char *why)
{
	unsigned int i;

	for (i = 0; i < nr_reasons; i++)
		if (!strcmp(reasons[i], why))
			return i + 1;
	if (nr_reasons == sizeof(reasons) / sizeof(reasons[0]))
		return 0;
	reasons[nr_reasons++] = why;
	return nr_reasons;
}

static unsigned int row_print(const struct row *w)
{
	char pm[32], ot[32], ratio[24], goal[24];
	const char *verdict = "info";
	bool met = true;

	if (w->target == T_DIFF)
		snprintf(goal, sizeof(goal), "<= +%u", w->goal);
	else if (w->target == T_RATIO)
		snprintf(goal, sizeof(goal), ">= %ux", w->goal);
	else
		snprintf(goal, sizeof(goal), "-");

	if (!sample_ok(w->pm) || !sample_ok(w->other)) {
		char refs[24] = "";

		if (w->pm->why[0])
			snprintf(refs, sizeof(refs), " [%u]", reason_id(w->pm->why));
		if (w->other->why[0] && strcmp(w->other->why, w->pm->why))
			snprintf(refs + strlen(refs), sizeof(refs) - strlen(refs),
				 " [%u]", reason_id(w->other->why));
		printf("%-18s %-22s %20s %-28s %20s %8s %7s skipped%s\n", w->op,
		       w->pm_what, "-", w->other_what, "-", "-", goal, refs);
		return 0;
	}
	snprintf(pm, sizeof(pm), "%llu/%llu/%llu", (unsigned long long)w->pm->p1,
		 (unsigned long long)w->pm->med, (unsigned long long)w->pm->p99);
	snprintf(ot, sizeof(ot), "%llu/%llu/%llu", (unsigned long long)w->other->p1,
		 (unsigned long long)w->other->med, (unsigned long long)w->other->p99);
	switch (w->target) {
	case T_DIFF:
		snprintf(ratio, sizeof(ratio), "%+lld",
			 (long long)w->pm->med - (long long)w->other->med);
		met = (long long)w->pm->med - (long long)w->other->med <=
		      (long long)w->goal;
		verdict = met ? "ok" : "MISSED";
		break;
	case T_RATIO:
	case T_INFO:
		if (w->pm->med)
			snprintf(ratio, sizeof(ratio), "%.1fx",
				 (double)w->other->med / (double)w->pm->med);
		else
			snprintf(ratio, sizeof(ratio), "inf");
		if (w->target == T_RATIO) {
			met = w->other->med >= (uint64_t)w->goal * w->pm->med;
			verdict = met ? "ok" : "MISSED";
		}
		break;
	}
	printf("%-18s %-22s %20s %-28s %20s %8s %7s %s\n", w->op, w->pm_what, pm,
	       w->other_what, ot, ratio, goal, verdict);
	return 1;
}

/*
 * -i: the labels of the comparisons, for scripts/insn-ops.awk: "insn-row
 * LABEL empty" (the windows with nothing in them), "insn-cmp OP|PMUCTL|
 * LABEL|AGAINST|LABEL" per comparison both sides of which ran, and
 * "insn-skip OP|AGAINST|WHY" for the others.
 */
static void print_insn(const struct results *r, const struct row *rows,
		       unsigned int nr)
{
	printf("insn-row %u empty\n", (unsigned int)(&r->empty - sample0));
	for (unsigned int i = 0; i < nr; i++) {
		const struct row *w = &rows[i];

		if (!sample_ok(w->pm) || !sample_ok(w->other)) {
			printf("insn-skip %s|%s|%s\n", w->op, w->other_what,
			       w->pm->why[0] ? w->pm->why : w->other->why);
			continue;
		}
		printf("insn-cmp %s|%s|%u|%s|%u\n", w->op, w->pm_what,
		       (unsigned int)(w->pm - sample0), w->other_what,
		       (unsigned int)(w->other - sample0));
	}
}

/* -t: every timed comparison as a line of scripts/bench-timed.awk. */
static void timed_write(FILE *f, const struct row *rows, unsigned int nr)
{
	fprintf(f, "timed-machine %s\n", machine);
	for (unsigned int i = 0; i < nr; i++) {
		const struct row *w = &rows[i];

		if (!sample_ok(w->pm) || !sample_ok(w->other))
			continue;
		fprintf(f, "timed-cmp %s|%s|%llu|%llu|%llu|%s|%llu|%llu|%llu\n",
			w->op, w->pm_what, (unsigned long long)w->pm->p1,
			(unsigned long long)w->pm->med,
			(unsigned long long)w->pm->p99, w->other_what,
			(unsigned long long)w->other->p1,
			(unsigned long long)w->other->med,
			(unsigned long long)w->other->p99);
	}
	fflush(f);
}

/* The comparisons, one line each; how many were timed. */
static void print_table(const struct results *r)
{
	char op_n[32], pm_n[40], mmap_n[40], grp_n[40], papi_n[40], ioc_n[40];
	char lp_n[40], papis_n[48];
	char mid_op[16], mid_pm[40], mid_mmap[40], mid_lp[40], mid_grp[40],
	     mid_papi[40], mid_papis[48];
	char all_op[40], all_pf[48];
	unsigned int run = 0;

	snprintf(op_n, sizeof(op_n), "read %u (group)", r->n);
	snprintf(pm_n, sizeof(pm_n), "read_counters(c,v,%u)", r->n);
	snprintf(mmap_n, sizeof(mmap_n), "%u perf mmap loops", r->n);
	snprintf(grp_n, sizeof(grp_n), "perf group read() of %u", r->n);
	snprintf(papi_n, sizeof(papi_n), "PAPI_read() of %u", r->n);
	snprintf(ioc_n, sizeof(ioc_n), "pmuctl READ ioctl of %u", r->n);
	snprintf(lp_n, sizeof(lp_n), "%u libperf evsel__read", r->n);
	snprintf(papis_n, sizeof(papis_n), "PAPI_read() of %u, no rdpmc", r->n);
	snprintf(mid_op, sizeof(mid_op), "read %u", READ_MID);
	snprintf(mid_pm, sizeof(mid_pm), "read_counters(c,v,%u)", READ_MID);
	snprintf(mid_mmap, sizeof(mid_mmap), "%u perf mmap loops", READ_MID);
	snprintf(mid_lp, sizeof(mid_lp), "%u libperf evsel__read", READ_MID);
	snprintf(mid_grp, sizeof(mid_grp), "perf group read() of %u", READ_MID);
	snprintf(mid_papi, sizeof(mid_papi), "PAPI_read() of %u", READ_MID);
	snprintf(mid_papis, sizeof(mid_papis), "PAPI_read() of %u, no rdpmc",
		 READ_MID);
	snprintf(all_op, sizeof(all_op), "program %u, %u CPUs", r->n, r->ncpus);
	snprintf(all_pf, sizeof(all_pf), "%u open+%u ENABLE", r->n * r->ncpus,
		 r->ncpus);
	const struct row rows[] = {
		{ "read 1", "read_counter(c,0)", &r->pm_read1,
		  "bare rdpmc", &r->bare, T_DIFF, 5 },
		{ "read 1", "read_counter(c,0)", &r->pm_read1,
		  "perf mmap loop", &r->pf_mmap1, T_INFO, 0 },
		{ "read 1", "read_counter(c,0)", &r->pm_read1,
		  "libperf evsel__read", &r->lp1, T_INFO, 0 },
		{ "read 1", "read_counter(c,0)", &r->pm_read1,
		  "perf read()", &r->pf_read1, T_INFO, 0 },
		{ "read 1", "read_counter(c,0)", &r->pm_read1,
		  "PAPI_read() of 1", &r->papi1, T_INFO, 0 },
		{ "read 1", "read_counter(c,0)", &r->pm_read1,
		  "PAPI_read() of 1, no rdpmc", &r->papi1_sys, T_INFO, 0 },
		{ mid_op, mid_pm, &r->pm_read4, mid_mmap, &r->pf_mmap4, T_INFO, 0 },
		{ mid_op, mid_pm, &r->pm_read4, mid_lp, &r->lp4, T_INFO, 0 },
		{ mid_op, mid_pm, &r->pm_read4, mid_grp, &r->pf_group4, T_INFO, 0 },
		{ mid_op, mid_pm, &r->pm_read4, mid_papi, &r->papi4, T_INFO, 0 },
		{ mid_op, mid_pm, &r->pm_read4, mid_papis, &r->papi4_sys, T_INFO, 0 },
		{ op_n, pm_n, &r->pm_readn, mmap_n, &r->pf_mmapn, T_RATIO, 3 },
		{ op_n, pm_n, &r->pm_readn, lp_n, &r->lpn, T_INFO, 0 },
		{ op_n, pm_n, &r->pm_readn, grp_n, &r->pf_groupn, T_RATIO, 10 },
		{ op_n, pm_n, &r->pm_readn, papi_n, &r->papin, T_INFO, 0 },
		{ op_n, pm_n, &r->pm_readn, papis_n, &r->papin_sys, T_INFO, 0 },
		{ op_n, pm_n, &r->pm_readn, ioc_n, &r->pm_ioctln, T_INFO, 0 },
		{ "start", "pmuctl_start()", &r->pm_start,
		  "IOC_ENABLE (group)", &r->pf_start, T_INFO, 0 },
		{ "start", "pmuctl_start()", &r->pm_start,
		  "PAPI_start()", &r->papi_start, T_INFO, 0 },
		{ "stop", "pmuctl_stop()", &r->pm_stop,
		  "IOC_DISABLE (group)", &r->pf_stop, T_INFO, 0 },
		{ "stop", "pmuctl_stop()", &r->pm_stop,
		  "PAPI_stop()", &r->papi_stop, T_INFO, 0 },
		{ "reset", "pmuctl_reset()", &r->pm_reset,
		  "IOC_RESET (group)", &r->pf_reset, T_INFO, 0 },
		{ "program, 1 CPU", "program+start", &r->pm_prog1,
		  "open+ENABLE (CPU-wide)", &r->pf_prog1, T_RATIO, 10 },
		{ all_op, "program+start", &r->pm_progall, all_pf, &r->pf_progall, T_INFO, 0 },
	};

	if (imode) {
		print_insn(r, rows, sizeof(rows) / sizeof(rows[0]));
		return;
	}
	printf("\n%-18s %-22s %20s %-28s %20s %8s %7s %s\n", "operation", "pmuctl",
	       "p1/median/p99", "against", "p1/median/p99", "ratio", "target", "verdict");
	for (unsigned int i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		run += row_print(&rows[i]);
	if (tfile)
		timed_write(tfile, rows, sizeof(rows) / sizeof(rows[0]));
	for (unsigned int i = 0; i < nr_reasons; i++)
		printf("%s[%u] %s\n", i ? "" : "\nskipped because:\n", i + 1,
		       reasons[i]);
	printf("\n%u of %zu comparisons timed", run, sizeof(rows) / sizeof(rows[0]));
	if (!run)
		printf("; the timed part is skipped: no usable PMU on both sides here (see the reasons above)");
	printf("\n");
}

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-c CPU] [-n SAMPLES] [-i] [-r] [-t FILE]\n"
		"  -c CPU      pin to this CPU (default: the one it starts on)\n"
		"  -n SAMPLES  samples per row, 100..10000000 (default 100000)\n"
		"  -i          windows of the TCG plugin scripts/vm/insn-count.c, not timings\n"
		"  -r          PAPI's reads again with perf's rdpmc off (root; "
		PERF_RDPMC " set to 0 meanwhile, then restored)\n"
		"  -t FILE     the timed rows also to FILE, for make bench's results\n",
		prog);
	exit(2);
}

static long number(const char *prog, const char *opt, const char *s,
		   long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "%s: %s '%s' is not a number in %ld..%ld\n",
			prog, opt, s, lo, hi);
		usage(prog);
	}
	return v;
}

int main(int argc, char **argv)
{
	unsigned int eax, ebx, ecx, edx, nsamp = 100000, gp = 0, fixed = 0;
	unsigned int family = 0, model = 0;
	char vendor[13] = "unknown";
	const char *pm_why = NULL, *pf_why = NULL, *papi_why = NULL;
	struct pmuctl *pm = NULL;
	struct results r;
	cpu_set_t all, one;
	bool invariant, can_time;
	int cpu = -1, opt;

	while ((opt = getopt(argc, argv, "c:n:irt:h")) != -1) {
		switch (opt) {
		case 't':
			tfile = fopen(optarg, "we");
			if (!tfile) {
				fprintf(stderr, "%s: -t %s: %s\n", argv[0], optarg,
					strerror(errno));
				return 2;
			}
			break;
		case 'r':
			rflag = true;
			break;
		case 'i':
			imode = true;
			break;
		case 'c':
			cpu = (int)number(argv[0], "-c", optarg, 0, CPU_SETSIZE - 1);
			break;
		case 'n':
			nsamp = (unsigned int)number(argv[0], "-n", optarg, 100, 10000000);
			break;
		default:
			usage(argv[0]);
		}
	}
	if (optind != argc)
		usage(argv[0]);

	/* Every CPU this process may use: the "all CPUs" of both sides. */
	if (sched_getaffinity(0, sizeof(all), &all)) {
		fprintf(stderr, "%s: sched_getaffinity: %s\n", argv[0], strerror(errno));
		return 1;
	}
	if (cpu < 0)
		cpu = sched_getcpu();
	if (cpu < 0 || !CPU_ISSET(cpu, &all)) {
		fprintf(stderr, "%s: -c %d: this process may not run on CPU %d (see taskset -p %d)\n",
			argv[0], cpu, cpu, (int)getpid());
		return 2;
	}
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one)) {
		fprintf(stderr, "%s: cannot pin to CPU %d: %s\n", argv[0], cpu,
			strerror(errno));
		return 1;
	}

	memset(&r, 0, sizeof(r));
	sample0 = &r.empty;
	r.ncpus = (unsigned int)CPU_COUNT(&all);

	/* The clock: rdtscp ends each sample; an invariant TSC ticks evenly. */
	invariant = __get_cpuid(0x80000007, &eax, &ebx, &ecx, &edx) &&
		    (edx & (1U << 8));
	can_time = __get_cpuid(0x80000001, &eax, &ebx, &ecx, &edx) &&
		   (edx & (1U << 27));
	if (!can_time)
		pm_why = pf_why = papi_why = "no rdtscp on this CPU: nothing can be timed";

	/* The PMU as CPUID describes it [FACTS 1]: the group's size. */
	if (__get_cpuid(0, &eax, &ebx, &ecx, &edx)) {
		memcpy(vendor, &ebx, 4);
		memcpy(vendor + 4, &edx, 4);
		memcpy(vendor + 8, &ecx, 4);
	}
	if (__get_cpuid(1, &eax, &ebx, &ecx, &edx)) {
		family = (eax >> 8) & 0xf;
		model = (eax >> 4) & 0xf;
		if (family == 6 || family == 15)
			model |= (eax >> 12) & 0xf0;
		if (family == 15)
			family += (eax >> 20) & 0xff;
	}
	if (__get_cpuid_max(0, NULL) >= 0xa) {
		__cpuid(0xa, eax, ebx, ecx, edx);
		gp = (eax >> 8) & 0xff;
		fixed = edx & 0x1f;
	}
	tcg = hw_cpu_is_emulated();
	/* The module's view wins: the counters it will hand out. */
	if (!pm_why)
		pm_why = pm_probe(&pm);
	if (pm) {
		gp = pmuctl_get_info(pm)->caps.nr_gp;
		fixed = pmuctl_get_info(pm)->caps.nr_fixed;
	}
	r.n = (fixed < 3 ? fixed : 3) + (gp < 4 ? gp : 4);
	if (r.n < 3)
		r.n = GROUP_MAX;	/* no PMU: name the full group */

	if (imode) {
		printf("instructions per operation, counted by the TCG plugin (-i)\n");
	} else if (tcg) {
		printf("timed rows: not measured under QEMU TCG, where they would time QEMU's translated code, not silicon; compare -i counts the same operations (make bench)\n");
		return 0;
	}
	snprintf(machine, sizeof(machine),
		 "%s family %u model %#x, %u generic and %u fixed counters",
		 vendor, family, model, gp, fixed);
	printf("pmuctl vs perf%s, timed side by side on CPU %d: %s family %u model %#x, %u generic and %u fixed counters (%s)\n",
	       HAVE_PAPI ? " and PAPI" : "", cpu, vendor, family, model, gp,
	       fixed, pm ? "pmuctl.ko" : "CPUID.0AH");
	printf("group: %u events, user mode:", r.n);
	for (unsigned int i = 0; i < r.n; i++)
		printf(" %s", events[i].name);
	if (!imode)
		printf("\nunit: TSC cycles%s; %u samples per row after %u warm-up (program rows: at most %u on one CPU, %u on all); 1st percentile/median/99th percentile, the ratio and targets on the medians\n",
		       invariant ? " (invariant TSC)" : " (TSC not invariant: ratios only)",
		       nsamp, WARM_READ, PROG1_SAMPLES, PROGALL_SAMPLES);

	for (unsigned int i = 0; i < NR_SAMPLES; i++) {
		struct sample *sp = &sample_all(&r)[i];
		unsigned int n = nsamp;

		if (sp == &r.pm_prog1 || sp == &r.pf_prog1)
			n = MIN(nsamp, PROG1_SAMPLES);
		else if (sp == &r.pm_progall || sp == &r.pf_progall)
			n = MIN(nsamp, PROGALL_SAMPLES);
		if (!sample_alloc(sp, n))
			continue;
		fprintf(stderr, "%s: out of memory for %u samples (see -n)\n",
			argv[0], nsamp);
		return 1;
	}

	if (r.n <= READ_MID) {
		struct sample *mid[] = { &r.pm_read4, &r.pf_mmap4, &r.pf_group4,
					 &r.lp4, &r.papi4, &r.papi4_sys };

		for (unsigned int i = 0; i < sizeof(mid) / sizeof(mid[0]); i++)
			sample_skip(mid[i], "the group has %u events: its read is the %u-counter row",
				    r.n, READ_MID);
	}
	if (can_time || imode) {
		MEASURE(&r.empty, WARM_READ, , , );
		sample_finish(&r.empty, false);
		overhead = r.empty.min;
		printf("timer: empty lfence;rdtsc;lfence .. rdtscp;lfence pair: min %llu, median %llu; the min is subtracted from every sample\n",
		       (unsigned long long)r.empty.min,
		       (unsigned long long)r.empty.med);
	}
	fflush(stdout);

	/* One side at a time: pmuctl's counters are reserved from perf. */
	pm_phase(&r, pm, cpu, &all, pm_why);
	pf_phase(&r, cpu, &all, pf_why);
	lp_phase(&r, pf_why);
	papi_phase(&r, papi_why);

	/* every sample but the empty window's, finished above */
	for (unsigned int i = 1; i < NR_SAMPLES; i++)
		sample_finish(&sample_all(&r)[i], true);

	print_table(&r);
	return 0;
}
