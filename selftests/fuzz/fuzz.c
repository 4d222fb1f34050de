// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctl's fuzzer of interleavings: a seeded, reproducible sequence of
 * steps that mixes what the device tests exercise one at a time (CPU-scope
 * groups, task-scope threads of root and of nobody, rdpmc grants, counters
 * others run, CPUs going off and on line, suspend, module parameters,
 * malformed ioctls), and after every step checks, from outside the module,
 * what any other thread could observe:
 *
 *   foreign   a counter the fuzzer runs "as someone else" (select with EN,
 *             its GLOBAL_CTRL bit, a count), preset while pmuctl held
 *             nothing on that CPU, is never written;
 *   leak      a task-scope thread that rdpmc ran for (CR4.PCE) left every
 *             counter of its CPU at 0, but its own, the foreign ones and
 *             (root only) the CPU-scope claims there;
 *   count     the register model counts nothing by itself: a count is what
 *             the fuzzer added to a loaded counter ("ticks"), so READ of a
 *             task-scope thread is exactly its ticks, and a CPU-scope READ
 *             is exactly its ticks since PROGRAM or RESET (at most that
 *             after its CPU went off line or suspended); on the emulated
 *             PMU a READ around a loop of known code (window.S) moves by
 *             exactly the loop's user-mode instructions;
 *   perf      (emulated PMU) a perf event that ran through such a window
 *             counted exactly the loop, one that did not run nothing;
 *   holdings  pmuctl/state lists exactly the CPU-scope claims the fuzzer
 *             holds, and nothing once every file is closed;
 *   info      each session's INFO names it the owner of exactly its
 *             claims, and its generation counts its PROGRAMs and RESETs;
 *   refusal   an ioctl that fails (a malformed one, a group the rules or a
 *             running counter refuse) leaves pmuctl/state and every
 *             register as they were;
 *   grant     a worker's forked child, and a worker that execed since its
 *             PROGRAM (a set-user-ID image too), cannot rdpmc.
 *
 * Kernel reports (lockdep, KASAN, UBSAN, KCSAN, kmemleak, hung tasks) are
 * the rig's to see on the console (scripts/vm/run.sh, console_clean).
 *
 * A step is a line of text ("op:a:b:c:d"), drawn from the seed; a failure
 * prints the seed, the step that failed and a replay shortened by removing
 * steps while the same invariant still fails, which "fuzz_test -r
 * 'STEP;STEP;...'" (or the kernel command line word
 * pmuctl_fuzz.replay=...; "@FILE" reads the steps from FILE) runs alone.
 * With -g (pmuctl_fuzz.guided=1) and KCOV, segments of the sequence that
 * reach new module PCs are kept and mutated into later ones (run_fuzz()).
 *
 * Needs the register-model build (its pmuctl/regs presets and reads the
 * registers), or the emulated PMU (run.sh -P: the registers through
 * /dev/cpu/N/msr, counts that count, perf beside), and two online CPUs;
 * SKIPs otherwise.  Runs for pmuctl_fuzz.secs=N seconds (kernel command
 * line; default 6), or -s.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/kcov.h>
#include <linux/perf_event.h>

#include "../device/lib.h"
#include "../hw/emulated.h"

#define MAX_SESS	3
#define MAX_WORK	4
#define MAX_EV		3
#define MAX_CPUS	8
#define MAX_FOREIGN	2
#define MAX_STEPS	20000
#define NOBODY		65534

#define EVTSEL_EN	(1ULL << 22)
#define EVTSEL_USR	(1ULL << 16)

/* ---- steps ------------------------------------------------------------ */

enum op {
	CS_PROGRAM,	/* a session, cpus bitmap, menu index x3 */
	CS_START, CS_STOP, CS_RESET, CS_READ, CS_RELEASE, CS_CLOSE,
	CS_TICK,	/* a session, event, cpu, amount */
	W_SPAWN,	/* a worker, nobody?, cpu */
	W_PROGRAM,	/* a worker, menu index x2, inherit? */
	W_START, W_STOP, W_READ, W_RUN, W_PROBE, W_RELEASE, W_EXIT, W_KILL,
	W_TICK,		/* a worker (root), amount */
	W_PIN,		/* a worker, cpu */
	W_SUSPEND,	/* a worker (root) suspends the machine */
	FOREIGN,	/* cpu, counter */
	HOTPLUG,	/* cpu: off line and back */
	SUSPEND,	/* the fuzzer itself */
	PARAM,		/* which, value */
	BAD_IOCTL,	/* a random number for the garbage */
	W_FORK,		/* a worker, tick amount: a child runs, ticks, probes, exits */
	W_EXEC,		/* a worker execs the fuzzer again, keeping its session */
	W_SUID_EXEC,	/* the same through a set-user-ID root copy */
	PERF_OPEN,	/* a slot, cpu (or the fuzzer's task), kind: emulated PMU */
	PERF_CLOSE,	/* a slot */
	PERF_TICK,	/* a slot, loop: the known workload under a perf event */
	NR_OPS
};

static const char *const op_name[NR_OPS] = {
	"cs_program", "cs_start", "cs_stop", "cs_reset", "cs_read", "cs_release",
	"cs_close", "cs_tick", "w_spawn", "w_program", "w_start", "w_stop",
	"w_read", "w_run", "w_probe", "w_release", "w_exit", "w_kill", "w_tick",
	"w_pin", "w_suspend", "foreign", "hotplug", "suspend", "param",
	"bad_ioctl", "w_fork", "w_exec", "w_suid_exec", "perf_open",
	"perf_close", "perf_tick",
};

/* Ops the draw leaves out (-x, pmuctl_fuzz.exclude=): to look past one finding. */
static bool excluded[NR_OPS];

struct step {
	int op;
	unsigned int a, b, c, d;
};

/* Events the steps draw from; some refused by the rules on purpose. */
static const struct {
	__u64 config;
	__u32 flags;
	bool valid;
} menu[] = {
	{ EV_INST | USR, 0, true },		/* fixed 0 where free */
	{ EV_CYCLES | USR, 0, true },		/* fixed 1 where free */
	{ EV_LLC_MISS | USR, GONLY, true },
	{ EV_BR | USR | OS, GONLY, true },
	{ EV_INST | USR, GONLY, true },
	{ EV_BR | USR | EDGE, GONLY, false },	/* edge without cmask */
	{ EV_BR | USR | (1ULL << 33), 0, false },	/* a reserved bit */
};
#define MENU_N	(sizeof(menu) / sizeof(menu[0]))

/* ---- what the fuzzer holds -------------------------------------------- */

struct sess {
	int fd;			/* -1: none */
	bool programmed, started;
	unsigned int n;
	__u64 cpus;
	__u32 counter[MAX_EV];
	__u64 config[MAX_EV];
	/* per CPU and event: ticks since PROGRAM/RESET, and whether exact */
	__u64 want[MAX_CPUS][MAX_EV];
	bool inexact[MAX_CPUS];
	/* emulated PMU: the last count READ saw (counts only go up) */
	__u64 last[MAX_CPUS][MAX_EV];
	/* INFO's generation: accepted PROGRAMs and RESETs; unknown after a failed RESET */
	__u64 gen;
	bool gen_unknown;
};

struct worker {
	pid_t pid;		/* 0: none */
	int to, from;
	bool nobody, open, programmed, started;
	bool inherit;		/* its group counts its children */
	bool execed;		/* it execed since its PROGRAM: no rdpmc grant */
	bool suid;		/* nobody, it execed a set-user-ID root image */
	unsigned int n;
	__u32 counter[MAX_EV];
	__u64 config[MAX_EV];
	__u64 ticks;		/* what it counted: READ must say so */
	__u64 last[MAX_EV];	/* emulated PMU: its last READ */
	int cpu;		/* the CPU it is pinned to */
};

struct foreign {
	bool on;
	bool blind;		/* pmuctl could not see it (programmed_blind()) */
	__u32 cpu, idx;
	__u64 sel, count;
};

static struct sess sess[MAX_SESS];
static struct worker work[MAX_WORK];
static struct foreign frn[MAX_FOREIGN];
static struct pmuctl_info info;
static unsigned int ncpu;
static bool can_suspend;
static char saved_delay[16];

/*
 * The module parameters "param" writes, the values it draws from (the
 * first is what a run starts with), and what they were before the fuzzer.
 * Every paranoid level: the workers of nobody count their own threads at
 * 2, 1, 0 and -1 (0 and -1 would let them count CPU-wide, which they do
 * not ask for; -1 lifts the per-user limits) and may not open at 3.
 */
static const struct {
	const char *name;
	unsigned int n;
	const char *val[5];
} params[] = {
	{ "paranoid", 5, { "2", "1", "3", "0", "-1" } },
	{ "rdpmc", 2, { "1", "0" } },
	{ "user_max_sessions", 4, { "16", "1", "2", "0" } },
	{ "user_max_counters", 4, { "4", "1", "2", "0" } },
};
#define NR_PARAMS	(sizeof(params) / sizeof(params[0]))
static char saved_param[NR_PARAMS][16];
/* pm_test's wait after a "core" suspend: 5 s by default, 0 here */
#define PM_DELAY	"/sys/module/suspend/parameters/pm_test_delay"

/* The first invariant that failed, and why. */
static char fail_what[32];
static char fail_why[512];

static void fail(const char *what, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void fail(const char *what, const char *fmt, ...)
{
	va_list ap;

	if (fail_what[0])
		return;
	snprintf(fail_what, sizeof(fail_what), "%s", what);
	va_start(ap, fmt);
	vsnprintf(fail_why, sizeof(fail_why), fmt, ap);
	va_end(ap);
}

/* ---- the PRNG (xorshift64*: the seed decides everything) ---------------- */

static __u64 rng;

static __u64 rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dULL;
}

static unsigned int below(unsigned int n)
{
	return n ? (unsigned int)(rnd() % n) : 0;
}

/* ---- coverage (KCOV): which of the module's PCs the steps reached ---------- */

/*
 * Where the kernel has CONFIG_KCOV and the module was built with
 * KCOV_INSTRUMENT := y (the rig's debug kernels: the kernel itself is not
 * instrumented), the fuzzer and each worker trace the PCs their own
 * syscalls reach (/sys/kernel/debug/kcov, KCOV_TRACE_PC; a worker opens its
 * own after fork, as tracing is per task) and add the module's to one set
 * shared by all of them: offsets from the module's base (/proc/modules), so
 * that a reload elsewhere counts the same PCs.  Code run in an interrupt
 * (another CPU's IPI) or a kernel thread is not seen.
 */
#define KCOV_PATH	"/sys/kernel/debug/kcov"
#define COVER_WORDS	(64UL << 10)
#define PCSET_ORDER	16

struct pcset {
	unsigned long nr;			/* distinct PCs in slot[] */
	unsigned int slot[1U << PCSET_ORDER];	/* offset + 1, or 0: free */
};

static struct pcset *pcs;		/* shared with the workers */
static unsigned long *cover;		/* this process's trace buffer */
static int kcov_fd = -1;
static unsigned long mod_base, mod_size;

/* The module's base and size from /proc/modules; 0 if it is not there. */
static int module_range(void)
{
	FILE *f = fopen("/proc/modules", "r");
	char name[64];
	unsigned long size, base;
	int ret = -1;

	if (!f)
		return -1;
	while (fscanf(f, "%63s %lu %*s %*s %*s %lx%*[^\n]", name, &size, &base) == 3) {
		if ((!strcmp(name, "pmuctl") || !strcmp(name, "pmuctl_regmodel")) && base) {
			mod_base = base;
			mod_size = size;
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

/* Trace this process's syscalls; quietly nothing where KCOV is absent. */
static void kcov_open(void)
{
	void *m;

	if (!pcs)
		return;
	kcov_fd = open(KCOV_PATH, O_RDWR | O_CLOEXEC);
	if (kcov_fd < 0)
		return;
	if (ioctl(kcov_fd, KCOV_INIT_TRACE, COVER_WORDS))
		goto fail;
	m = mmap(NULL, COVER_WORDS * sizeof(long), PROT_READ | PROT_WRITE,
		 MAP_SHARED, kcov_fd, 0);
	if (m == MAP_FAILED)
		goto fail;
	cover = m;
	if (ioctl(kcov_fd, KCOV_ENABLE, KCOV_TRACE_PC)) {
		munmap(cover, COVER_WORDS * sizeof(long));
		cover = NULL;
		goto fail;
	}
	return;
fail:
	close(kcov_fd);
	kcov_fd = -1;
}

/* Set up the shared set and trace the fuzzer itself: whether KCOV works. */
static bool kcov_init(void)
{
	void *m;

	if (access(KCOV_PATH, R_OK | W_OK) || module_range())
		return false;
	m = mmap(NULL, sizeof(*pcs), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return false;
	pcs = m;
	kcov_open();
	if (!cover) {
		munmap(pcs, sizeof(*pcs));
		pcs = NULL;
	}
	return cover;
}

/* In a new worker: the trace it inherited is its parent's; its own. */
static void kcov_child(void)
{
	if (!cover)
		return;
	munmap(cover, COVER_WORDS * sizeof(long));
	cover = NULL;
	close(kcov_fd);
	kcov_fd = -1;
	kcov_open();
}

static void kcov_begin(void)
{
	if (cover)
		__atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);
}

/* The module's PCs traced since kcov_begin() into the shared set. */
static void kcov_end(void)
{
	unsigned long n, i;

	if (!cover)
		return;
	n = __atomic_load_n(&cover[0], __ATOMIC_RELAXED);
	if (n >= COVER_WORDS)
		n = COVER_WORDS - 1;
	for (i = 1; i <= n; i++) {
		unsigned long pc = cover[i];
		unsigned int off, h, k;

		if (pc < mod_base || pc - mod_base >= mod_size)
			continue;
		off = (unsigned int)(pc - mod_base) + 1;
		h = (off * 2654435761U) >> (32 - PCSET_ORDER);
		for (k = 0; k < (1U << PCSET_ORDER); k++) {
			unsigned int *sl = &pcs->slot[(h + k) & ((1U << PCSET_ORDER) - 1)];
			unsigned int old = 0;

			if (__atomic_load_n(sl, __ATOMIC_RELAXED) == off)
				break;
			if (__atomic_compare_exchange_n(sl, &old, off, false,
							__ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
				__atomic_add_fetch(&pcs->nr, 1, __ATOMIC_RELAXED);
				break;
			}
			if (old == off)
				break;
		}
	}
	__atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);
}

static unsigned long kcov_pcs(void)
{
	return pcs ? __atomic_load_n(&pcs->nr, __ATOMIC_RELAXED) : 0;
}

/* ---- registers --------------------------------------------------------- */

static __u32 ctr_msr(__u32 counter)
{
	return counter & PMUCTL_COUNTER_FIXED ?
	       MSR_FIXED_CTR(counter & 0xffff) : MSR_PMC(counter);
}

static struct pregs rg;

/*
 * The emulated PMU (QEMU TCG with the rig's PMU, run.sh -P): no register
 * model, so the registers are read and preset through the kernel's
 * /dev/cpu/N/msr (msr.ko allow_writes=on, pmuctl_vm.msr=1), and counters
 * count by themselves: a count is checked over a window of known code
 * (window.S) instead of against ticks the fuzzer added.
 */
static bool emu;
static bool watchdog;	/* emulated PMU: the NMI watchdog (perf) runs */

static int msr_fd(__u32 cpu)
{
	char path[32];

	snprintf(path, sizeof(path), "/dev/cpu/%u/msr", cpu);
	return open(path, O_RDWR | O_CLOEXEC);
}

/*
 * A CPU's PMU registers the emulated-PMU mode reads and zeroes: every
 * select and counter, FIXED_CTR_CTRL, and last GLOBAL_CTRL (which
 * fz_zero_all() leaves alone).  Returns how many are in @msr.
 */
#define EMU_MSRS	(2 * 8 + PMUCTL_MAX_FIXED + 2)

static unsigned int emu_msrs(__u32 msr[EMU_MSRS])
{
	unsigned int i, n = 0;

	for (i = 0; i < info.caps.nr_gp; i++) {
		msr[n++] = MSR_EVTSEL(i);
		msr[n++] = MSR_PMC(i);
	}
	for (i = 0; i < PMUCTL_MAX_FIXED; i++)
		if (info.caps.fixed_mask & (1U << i))
			msr[n++] = MSR_FIXED_CTR(i);
	msr[n++] = MSR_FIXED_CTRL;
	msr[n++] = MSR_GLOBAL_CTRL;
	return n;
}

/* The PMU registers of every online CPU, as regs_read() gives the model's. */
static int emu_regs_read(struct pregs *r)
{
	__u32 msr[EMU_MSRS];
	unsigned int c, i, n = emu_msrs(msr);

	r->n = 0;
	for (c = 0; c < ncpu; c++) {
		int fd;

		if (!cpu_online(c))
			continue;
		fd = msr_fd(c);
		if (fd < 0)
			return -errno;
		for (i = 0; i < n && r->n < RG_MAX; i++) {
			__u64 v;

			if (pread(fd, &v, sizeof(v), msr[i]) != sizeof(v))
				continue;
			r->r[r->n].cpu = c;
			r->r[r->n].msr = msr[i];
			r->r[r->n].val = v;
			r->n++;
		}
		close(fd);
	}
	return 0;
}

static int fz_regs_read(struct pregs *r)
{
	return emu ? emu_regs_read(r) : regs_read(r);
}

static int fz_preset(__u32 cpu, __u32 msr, __u64 val)
{
	int fd, ret = 0;

	if (!emu)
		return regs_preset(cpu, msr, val);
	fd = msr_fd(cpu);
	if (fd < 0)
		return -errno;
	if (pwrite(fd, &val, sizeof(val), msr) != sizeof(val))
		ret = -EIO;
	close(fd);
	return ret;
}

/*
 * Every counter, select and FIXED_CTR_CTRL of every online CPU to 0, when
 * pmuctl and the fuzzer hold nothing; but for the NMI watchdog's counter,
 * which is perf's.
 */
static void fz_zero_all(void)
{
	__u32 msr[EMU_MSRS];
	unsigned int c, i, n;

	if (!emu) {
		regs_zero_all();
		return;
	}
	if (watchdog)
		return;
	n = emu_msrs(msr) - 1;		/* all but GLOBAL_CTRL */
	for (c = 0; c < ncpu; c++)
		for (i = 0; cpu_online(c) && i < n; i++)
			fz_preset(c, msr[i], 0);
}

/* Counter @ctr enabled in its select or FIXED_CTR_CTRL nibble in @r. */
static bool ctr_enabled(const struct pregs *r, __u32 cpu, __u32 ctr)
{
	__u64 v;

	if (ctr & PMUCTL_COUNTER_FIXED) {
		v = regs_get(r, cpu, MSR_FIXED_CTRL);
		return v != ~0ULL && (v >> (4 * (ctr & 0xffff))) & 3;
	}
	v = regs_get(r, cpu, MSR_EVTSEL(ctr));
	return v != ~0ULL && (v & EVTSEL_EN);
}

/* The known workload (window.S): two reads around a loop of n. */
struct fz_window {
	__u64 nr, a0, a1, a2, b1, b2, n;
	__s64 ret_a, ret_b;
};
void fz_window(struct fz_window *w);
/* User instructions from the first read's return to the second's syscall. */
#define FZ_WINDOW(n)	(9 + 2 * (__u64)(n))

/*
 * What a counter of pmuctl event @config moves by over a window of @n
 * (emulated PMU, scripts/vm/qemu/pmu-spec.md, Events); -1 where it counts
 * the kernel too.  Cycles are synthetic: one per instruction.  The menu's
 * LONGEST_LAT_CACHE.MISS counts nothing there.
 */
static long long emu_want(__u64 config, __u64 n)
{
	__u64 ev = config & 0xffff;

	if (ev == EV_LLC_MISS)
		return 0;
	if ((ev == EV_INST || ev == EV_CYCLES) && (config & USR) && !(config & OS))
		return (long long)FZ_WINDOW(n);
	return -1;
}

/*
 * More than a run retires: 2^36 events (TCG retires well under 10^9
 * instructions a second, a session counts seconds of them).  A count
 * above it jumped (a lost save, a 2^40 or 2^48 wrap).  Not checked for a
 * CPU-scope claim whose CPU went off line: pmuctl rewrites its control
 * there, not its count, which is what the counter holds (doc/module.md, "CPUs
 * offline"): on perfmon v6, where perf runs its events beside sessions
 * until pmuctl's exclusive event is back, perf's starting value.
 */
#define EMU_MAX_COUNT	(1ULL << 36)

/*
 * count, emulated PMU, a READ between windows (@who names the session or
 * worker and the event): no count above what a run retires, none below
 * the READ before (*@last, which it becomes), and 0 for an event that
 * counts nothing there.
 */
static void emu_read_check(const char *who, __u64 config, __u64 val, __u64 *last)
{
	if (val > EMU_MAX_COUNT)
		fail("count", "%s: READ %#llx, more than a run retires", who,
		     (unsigned long long)val);
	else if (val < *last)
		fail("count", "%s: READ %#llx, less than the %#llx READ saw before",
		     who, (unsigned long long)val, (unsigned long long)*last);
	else if (!emu_want(config, 1) && val)
		fail("count", "%s (config %#llx): READ %#llx of an event that counts nothing here",
		     who, (unsigned long long)config, (unsigned long long)val);
	*last = val;
}

/* The fuzzer runs on any CPU again (pin_cpu() pinned it for a window). */
static void unpin_self(void)
{
	cpu_set_t set;
	unsigned int c;

	CPU_ZERO(&set);
	for (c = 0; c < ncpu; c++)
		CPU_SET(c, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/*
 * perf events the fuzzer opens beside pmuctl (emulated PMU): user-mode
 * instructions on a generic counter (raw 0x01c0) or where perf puts them
 * (PERF_COUNT_HW_INSTRUCTIONS, fixed counter 0), or branches (raw 0x00c4),
 * counting one CPU or the fuzzer's own task, never pinned, so that perf
 * rotates them when pmuctl keeps counters.
 */
#define MAX_PERF	2
static const struct {
	const char *name;
	__u32 type;
	__u64 config;
} perf_kind[] = {
	{ "r01c0:u", PERF_TYPE_RAW, 0x01c0 },
	{ "instructions:u", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "r00c4:u", PERF_TYPE_RAW, 0x00c4 },
};
#define NR_PERF_KIND	(sizeof(perf_kind) / sizeof(perf_kind[0]))

static struct perfev {
	bool on;
	int fd;
	int cpu;		/* -1: the fuzzer's own task, any CPU */
	unsigned int kind;
} pev[MAX_PERF];
static unsigned int nr_perf_open, nr_perf_refused, nr_perf_win, nr_perf_whole,
		    nr_perf_none;

static bool perf_any(void)
{
	int i;

	for (i = 0; i < MAX_PERF; i++)
		if (pev[i].on)
			return true;
	return false;
}

static void perf_close_all(void)
{
	int i;

	for (i = 0; i < MAX_PERF; i++) {
		if (pev[i].on)
			close(pev[i].fd);
		pev[i].on = false;
	}
}


/* ---- workers: one process each, doing what the fuzzer says --------------- */

enum { WQ_PROGRAM, WQ_CTL, WQ_READ, WQ_RUN, WQ_PROBE, WQ_TICK, WQ_PIN,
       WQ_SUSPEND, WQ_EXIT, WQ_FORK, WQ_EXEC };

/*
 * The images a worker execs (W_EXEC, W_SUID_EXEC): copies of this program,
 * the second set-user-ID root, made at the start where the root file
 * system allows it.  The new image is a worker again ("--worker IN OUT FD"),
 * its session's file kept.
 */
#define EXEC_COPY	"/pmuctl-fuzz-exec"
#define SUID_COPY	"/pmuctl-fuzz-suid"
static bool have_exec, have_suid;
/* What the new ops did: the summary shows they are not idle. */
static unsigned int nr_fork, nr_fork_ticks, nr_exec, nr_suid, nr_probe, nr_granted;

struct wreq {
	int op;
	unsigned long cmd;
	unsigned int n, flags, cpu;
	__u64 amount;
	struct pmuctl_event ev[MAX_EV];
};

struct wrep {
	int ret, sig, cpu, open;
	int ticked;		/* WQ_FORK: the child's tick went in */
	__u32 reason;
	__u64 val[MAX_EV];
	__u64 va[MAX_EV];	/* WQ_TICK, emulated PMU: the first READ */
	struct pmuctl_event ev[MAX_EV];
};

/*
 * Add @amount to the counter @ctr of the CPU this runs on; 0 or -errno.
 * One step in the model (regs_add_here()): a read of pmuctl/regs and a
 * preset would lose the amount to a switch out in between (the module
 * saves the counter, the preset lands after), a "count" failure that no
 * replay repeats.
 */
static int tick_here(__u32 ctr, __u64 amount, int *cpu)
{
	int i, ret = -EAGAIN;

	for (i = 0; i < 10 && ret == -EAGAIN; i++) {
		*cpu = sched_getcpu();
		ret = regs_add_here(*cpu, ctr_msr(ctr), amount);
	}
	return ret;
}

/*
 * The emulated PMU's tick: session @fd's READ (of CPU @cpu in CPU scope;
 * task scope reads its threads, @cpu 0) around a loop of @n (window.S)
 * into @va and @vb; 0 or -errno.
 */
static int read_window(int fd, __u32 cpu, unsigned int nr, __u64 n,
		       __u64 *va, __u64 *vb)
{
	struct pmuctl_read ra = { .cpu = cpu, .nr_values = nr, .values = (uintptr_t)va };
	struct pmuctl_read rb = { .cpu = cpu, .nr_values = nr, .values = (uintptr_t)vb };
	struct fz_window w = {
		.nr = SYS_ioctl, .a0 = (__u64)fd, .a1 = PMUCTL_IOC_READ,
		.a2 = (uintptr_t)&ra, .b1 = PMUCTL_IOC_READ,
		.b2 = (uintptr_t)&rb, .n = n,
	};

	if (fd < 0)
		return -EBADF;
	fz_window(&w);
	return (int)(w.ret_a ? w.ret_a : w.ret_b);
}

/*
 * WQ_FORK's child: switched out and in once (counted if its parent's group
 * inherits), it adds @amount to its loaded counter if asked, then runs
 * rdpmc.  Its exit status: bit 0 rdpmc worked, bit 1 the tick went in,
 * bits 2-7 its CPU.
 */
static void fork_child(const struct wreq *q)
{
	int cpu = 0, code = 0;

	usleep(500);
	sched_yield();
	if (q->amount && !tick_here(q->cpu, q->amount, &cpu))
		code |= 2;
	if (rdpmc_granted(rdpmc_probe(q->cpu)))
		code |= 1;
	cpu = sched_getcpu();
	_exit(code | (cpu & 63) << 2);
}

/* WQ_EXEC: the new image (@path) is a worker with the same pipes and file. */
static int worker_exec(const char *path, int in, int out, int fd)
{
	char a[3][16];
	char *argv[] = { "fuzz_test", "--worker", a[0], a[1], a[2], NULL };

	snprintf(a[0], sizeof(a[0]), "%d", in);
	snprintf(a[1], sizeof(a[1]), "%d", out);
	snprintf(a[2], sizeof(a[2]), "%d", fd);
	fflush(stdout);
	execv(path, argv);
	return -errno;
}

static void worker_loop(int in, int out, int fd);

static void worker_main(int in, int out, bool nobody, int cpu)
{
	struct wrep r;

	kcov_child();		/* debugfs' kcov is root's: before setuid */
	if (nobody && (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY)))
		_exit(2);
	pin_cpu(cpu);
	/* ready: the fuzzer's files it inherited are closed */
	memset(&r, 0, sizeof(r));
	if (write_full(out, &r, sizeof(r)))
		_exit(2);
	worker_loop(in, out, -1);
}

static void worker_loop(int in, int out, int fd)
{
	struct wreq q;
	struct wrep r;

	while (!read_full(in, &q, sizeof(q))) {
		struct pmuctl_program p;
		struct pmuctl_read rd;
		unsigned int i;

		memset(&r, 0, sizeof(r));
		kcov_begin();
		switch (q.op) {
		case WQ_PROGRAM:
			if (fd < 0)
				fd = dev_open();
			if (fd < 0) {
				r.ret = fd;
				break;
			}
			memcpy(r.ev, q.ev, sizeof(r.ev));
			r.ret = dev_program_task(fd, r.ev, q.n, q.flags, &p);
			r.reason = p.err_reason;
			break;
		case WQ_CTL:
			r.ret = fd < 0 ? -EBADF : dev_ctl(fd, q.cmd);
			break;
		case WQ_READ:
			r.ret = fd < 0 ? -EBADF :
				dev_read_task(fd, 0, r.val, MAX_EV, &rd);
			break;
		case WQ_RUN:
			/* switched out and in a few times */
			for (i = 0; i < 3; i++) {
				usleep(500);
				sched_yield();
			}
			break;
		case WQ_PROBE:
			/* run once more after a switch, then rdpmc */
			usleep(500);
			r.sig = rdpmc_probe(q.cpu);
			break;
		case WQ_TICK:
			/*
			 * count: the loaded counter takes @amount events, or
			 * (flags, emulated PMU) a loop of @amount between
			 * two READs
			 */
			if (q.flags) {
				r.ret = read_window(fd, 0, q.n, q.amount, r.va, r.val);
				r.cpu = sched_getcpu();
			} else {
				r.ret = tick_here(q.cpu, q.amount, &r.cpu);
			}
			break;
		case WQ_FORK: {
			pid_t c;
			int st;

			fflush(stdout);
			c = fork();
			if (c < 0) {
				r.ret = -errno;
				break;
			}
			if (!c)
				fork_child(&q);
			if (waitpid(c, &st, 0) != c || !WIFEXITED(st)) {
				r.ret = -ECHILD;
				break;
			}
			r.sig = WEXITSTATUS(st) & 1 ? 0 : SIGSEGV;
			r.ticked = !!(WEXITSTATUS(st) & 2);
			r.cpu = WEXITSTATUS(st) >> 2;
			break;
		}
		case WQ_EXEC:
			/* only a failed exec answers here; the new image does */
			r.ret = worker_exec(q.flags ? SUID_COPY : EXEC_COPY, in, out, fd);
			break;
		case WQ_PIN:
			r.ret = pin_cpu(q.cpu);
			break;
		case WQ_SUSPEND:
			r.ret = write_str(PM_TEST, "core");
			if (!r.ret)
				r.ret = write_str(PM_STATE, "mem");
			write_str(PM_TEST, "none");
			break;
		case WQ_EXIT:
			_exit(0);
		}
		if (q.op != WQ_TICK && q.op != WQ_FORK)
			r.cpu = sched_getcpu();
		r.open = fd >= 0;
		kcov_end();
		if (write_full(out, &r, sizeof(r)))
			break;
	}
	_exit(0);
}

static int w_call(struct worker *w, const struct wreq *q, struct wrep *r)
{
	if (write_full(w->to, q, sizeof(*q)) || read_full(w->from, r, sizeof(*r)))
		return -EPIPE;
	return 0;
}

static void w_reap(struct worker *w, int sig)
{
	int st;

	if (!w->pid)
		return;
	if (sig)
		kill(w->pid, sig);
	close(w->to);
	close(w->from);
	waitpid(w->pid, &st, 0);
	memset(w, 0, sizeof(*w));
}

static int w_spawn(struct worker *w, bool nobody, int cpu)
{
	struct wrep r;
	int to[2], from[2], i;
	pid_t pid;

	if (pipe(to))
		return -errno;
	if (pipe(from)) {
		close(to[0]);
		close(to[1]);
		return -errno;
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		/*
		 * none of the fuzzer's sessions, perf events (a copy of the
		 * fd would keep an event the fuzzer closes running beside its
		 * foreign counters), nor other workers' pipes
		 */
		for (i = 0; i < MAX_SESS; i++)
			if (sess[i].fd >= 0)
				close(sess[i].fd);
		perf_close_all();
		for (i = 0; i < MAX_WORK; i++) {
			if (work[i].pid) {
				close(work[i].to);
				close(work[i].from);
			}
		}
		close(to[1]);
		close(from[0]);
		worker_main(to[0], from[1], nobody, cpu);
	}
	close(to[0]);
	close(from[1]);
	memset(w, 0, sizeof(*w));
	w->pid = pid;
	w->to = to[1];
	w->from = from[0];
	if (read_full(w->from, &r, sizeof(r))) {
		w_reap(w, SIGKILL);
		return -ECHILD;
	}
	w->nobody = nobody;
	w->cpu = cpu_online(cpu) ? cpu : -1;
	return 0;
}

/* ---- invariants ---------------------------------------------------------- */

static bool foreign_any(void)
{
	int i;

	for (i = 0; i < MAX_FOREIGN; i++)
		if (frn[i].on)
			return true;
	return false;
}

static bool is_foreign(__u32 cpu, __u32 counter)
{
	int i;

	for (i = 0; i < MAX_FOREIGN; i++) {
		if (!frn[i].on || frn[i].cpu != cpu || frn[i].idx != counter)
			continue;
		/* unprotected: foreign while its select is still the one preset */
		if (frn[i].blind)
			return regs_get(&rg, cpu, MSR_EVTSEL(counter)) == frn[i].sel;
		return true;
	}
	return false;
}

/* foreign: every foreign counter as the fuzzer preset it. */
static void check_foreign(void)
{
	int i;

	if (!foreign_any())
		return;
	if (fz_regs_read(&rg)) {
		fail("regs", "%s cannot be read", emu ? "/dev/cpu/N/msr" : "pmuctl/regs");
		return;
	}
	for (i = 0; i < MAX_FOREIGN; i++) {
		struct foreign *f = &frn[i];
		__u64 sel, cnt, g;

		if (!f->on || f->blind)
			continue;
		sel = regs_get(&rg, f->cpu, MSR_EVTSEL(f->idx));
		cnt = regs_get(&rg, f->cpu, MSR_PMC(f->idx));
		g = regs_get(&rg, f->cpu, MSR_GLOBAL_CTRL);
		if (sel != f->sel || cnt != f->count || !(g & (1ULL << f->idx)))
			fail("foreign",
			     "cpu %u counter %u run by someone else: EVTSEL %#llx (was %#llx), PMC %#llx (was %#llx), GLOBAL_CTRL %#llx (bit %u was set)",
			     f->cpu, f->idx, (unsigned long long)sel,
			     (unsigned long long)f->sel, (unsigned long long)cnt,
			     (unsigned long long)f->count, (unsigned long long)g,
			     f->idx);
	}
}

/* holdings: pmuctl/state's CPU-scope claims are the fuzzer's. */
static void check_holdings(void)
{
	static struct pstate st;
	unsigned int want = 0, i, c, k;

	if (state_read(&st)) {
		fail("state", "pmuctl/state cannot be read");
		return;
	}
	for (i = 0; i < MAX_SESS; i++) {
		struct sess *s = &sess[i];

		if (s->fd < 0 || !s->programmed)
			continue;
		for (c = 0; c < ncpu; c++) {
			if (!(s->cpus & (1ULL << c)))
				continue;
			for (k = 0; k < s->n; k++) {
				want++;
				if (!state_owner(&st, c, s->counter[k]))
					fail("holdings",
					     "session %u's counter %#x on cpu %u is not in pmuctl/state",
					     i, s->counter[k], c);
			}
		}
	}
	if (st.nown != want)
		fail("holdings", "pmuctl/state lists %u CPU-scope claims, the fuzzer holds %u",
		     st.nown, want);
}

/*
 * info: each CPU-scope session's INFO says it holds on each CPU exactly
 * the counters the fuzzer has it hold (pmuctl_holding.owner, its id),
 * and its generation counts the PROGRAMs and RESETs it accepted.
 */
static void check_info(void)
{
	static struct pmuctl_holding h[MAX_CPUS * 2];
	unsigned int i, c, k, e;
	int ret;

	for (i = 0; i < MAX_SESS && !fail_what[0]; i++) {
		struct sess *s = &sess[i];
		struct pmuctl_info in;

		if (s->fd < 0)
			continue;
		memset(&in, 0, sizeof(in));
		in.holdings = (uintptr_t)h;
		in.holding_size = sizeof(h[0]);
		in.holdings_size = sizeof(h);
		ret = dev_ioctl(s->fd, PMUCTL_IOC_INFO, &in);
		if (ret) {
			fail("info", "session %u: INFO: %s", i, strerror(-ret));
			return;
		}
		if (s->gen_unknown)
			s->gen = in.generation;
		s->gen_unknown = false;
		if (in.generation != s->gen)
			fail("info", "session %u: INFO's generation %llu, %llu PROGRAMs and RESETs accepted",
			     i, (unsigned long long)in.generation,
			     (unsigned long long)s->gen);
		for (c = 0; c < in.holdings_nr && c < ncpu; c++) {
			for (k = 0; k < PMUCTL_HOLDING_COUNTERS; k++) {
				bool mine = false;

				for (e = 0; s->programmed && e < s->n; e++) {
					__u32 ctr = s->counter[e];
					unsigned int idx = ctr & PMUCTL_COUNTER_FIXED ?
							   32 + (ctr & 0xffff) : ctr;

					mine |= (s->cpus & (1ULL << h[c].cpu)) && idx == k;
				}
				if (mine != (h[c].owner[k] == in.session))
					fail("info", "session %u (id %u): INFO says cpu %u counter index %u is held by %u",
					     i, in.session, h[c].cpu, k, h[c].owner[k]);
			}
		}
	}
}

/* leak: what worker @w, granted rdpmc on @cpu, could read there. */
static void check_leak(unsigned int wi, int cpu)
{
	static struct pstate st;
	struct worker *w = &work[wi];
	unsigned int i, k;

	if (fz_regs_read(&rg) || state_read(&st)) {
		fail("regs", "the registers or pmuctl/state cannot be read");
		return;
	}
	if (w->nobody && state_cpu_claims(&st, cpu))
		fail("leak", "worker %u (nobody) was granted rdpmc on cpu %d, where a CPU-scope session holds counters",
		     wi, cpu);
	for (i = 0; i < info.caps.nr_gp + (unsigned int)PMUCTL_MAX_FIXED; i++) {
		bool fixed = i >= info.caps.nr_gp;
		__u32 idx = fixed ? i - info.caps.nr_gp : i;
		__u32 ctr = fixed ? FIXED(idx) : idx;
		bool own = false;
		__u64 v;

		if (fixed && !(info.caps.fixed_mask & (1U << idx)))
			continue;
		for (k = 0; k < w->n; k++)
			own |= w->programmed && w->counter[k] == ctr;
		if (own || is_foreign(cpu, ctr) ||
		    (!w->nobody && state_owner(&st, cpu, ctr)))
			continue;
		/*
		 * A counter someone else runs (a perf event, the NMI
		 * watchdog): pmuctl leaves it running, and visible (pcpu.c,
		 * the scrub); what perf left in a counter it stopped is not.
		 */
		if (emu && ctr_enabled(&rg, cpu, ctr))
			continue;
		v = regs_get(&rg, cpu, ctr_msr(ctr));
		if (v && v != ~0ULL)
			fail("leak",
			     "worker %u (%s) ran granted rdpmc on cpu %d, where %s counter %u (msr %#x) held %#llx: not its count",
			     wi, w->nobody ? "nobody" : "root", cpu,
			     fixed ? "fixed" : "generic", idx, ctr_msr(ctr),
			     (unsigned long long)v);
	}
}

/* ---- the steps ------------------------------------------------------------ */

static int sess_open(struct sess *s)
{
	if (s->fd >= 0)
		return 0;
	memset(s, 0, sizeof(*s));
	s->fd = dev_open();
	return s->fd < 0 ? s->fd : 0;
}

static void sess_zero(struct sess *s)
{
	memset(s->want, 0, sizeof(s->want));
	memset(s->inexact, 0, sizeof(s->inexact));
	memset(s->last, 0, sizeof(s->last));
}

static bool no_workers(void);

/*
 * A PROGRAM accepted while CPUs of @cpus were off line: pmuctl could not
 * look at them (kmod/pool.c, check_free(); doc/module.md, "CPUs offline"), so
 * what others run there is not protected from the claim when they come
 * back.  The fuzzer stops checking those foreign counters.
 */
static void programmed_blind(__u64 cpus)
{
	unsigned int c;
	int i;

	for (c = 0; c < ncpu; c++) {
		if (!(cpus & (1ULL << c)) || cpu_online(c))
			continue;
		for (i = 0; i < MAX_FOREIGN; i++)
			if (frn[i].on && frn[i].cpu == c)
				frn[i].blind = true;
	}
}

/*
 * Emulated PMU: the registers the refusal invariant compares are the
 * selects, FIXED_CTR_CTRL and GLOBAL_CTRL (counters count by themselves),
 * and only where nothing else writes them: no worker, no perf event.
 */
static struct pregs emu_before;
static bool emu_before_ok;

static int fz_snap_take(struct snap *s)
{
	emu_before_ok = emu && no_workers() && !perf_any() && !watchdog &&
			!emu_regs_read(&emu_before);
	return snap_take(s);
}

static const char *emu_regs_diff(void)
{
	static struct pregs after;
	static char buf[160];
	unsigned int i;

	if (!emu_before_ok || emu_regs_read(&after))
		return NULL;
	for (i = 0; i < emu_before.n; i++) {
		__u32 m = emu_before.r[i].msr, c = emu_before.r[i].cpu;
		__u64 v = regs_get(&after, c, m);

		if ((m >= MSR_PMC(0) && m < MSR_PMC(8)) ||
		    (m >= MSR_FIXED_CTR(0) && m < MSR_FIXED_CTR(PMUCTL_MAX_FIXED)))
			continue;
		if (v == emu_before.r[i].val || v == ~0ULL)
			continue;
		snprintf(buf, sizeof(buf), "cpu %u msr %#x %#llx became %#llx", c, m,
			 (unsigned long long)emu_before.r[i].val,
			 (unsigned long long)v);
		return buf;
	}
	return NULL;
}

/*
 * A refused operation changed nothing: pmuctl/state, and the registers
 * where no worker lives (a worker's context switches load and unload its
 * pool's registers whatever the operation did).
 */
static void refused_unchanged(struct snap *before, const char *what)
{
	struct snap after;
	const char *d;

	d = emu_regs_diff();
	if (d)
		fail("refusal", "%s failed and changed %s", what, d);
	if (snap_take(&after)) {
		fail("refusal", "%s: no snapshot after", what);
		return;
	}
	if (!no_workers()) {
		free(before->regs);
		free(after.regs);
		before->regs = after.regs = NULL;
	}
	d = snap_diff(before, &after, true);
	if (d)
		fail("refusal", "%s failed and changed %s", what, d);
	snap_free(&after);
}

/*
 * After a suspend: the boot CPU's registers were lost (the model's own
 * syscore suspend), and every other CPU went off line and back, which
 * gives a claim's counters their found values.  No CPU-scope count is
 * exact until its next PROGRAM or RESET.
 */
static void after_suspend(void)
{
	int i;

	for (i = 0; i < MAX_SESS; i++)
		memset(sess[i].inexact, 1, sizeof(sess[i].inexact));
	/* the model lost them; the emulated PMU keeps them, as silicon */
	for (i = 0; i < MAX_FOREIGN && !emu; i++)
		if (frn[i].on && frn[i].cpu == 0)
			frn[i].on = false;
}

static bool no_workers(void)
{
	int i;

	for (i = 0; i < MAX_WORK; i++)
		if (work[i].pid)
			return false;
	return true;
}

static bool no_task_sessions(void)
{
	int i;

	for (i = 0; i < MAX_WORK; i++)
		if (work[i].pid && work[i].open)
			return false;
	return true;
}

/*
 * A window in which CPU-scope counters count something else too: a
 * retry, up to this many, before "count" fails.  On the emulated PMU a
 * window is a few microseconds with every worker asleep; only another
 * task's user mode (busybox's timeout, once a second on CPU 0) gets in.
 */
#define WINDOW_TRIES	3
static unsigned int nr_cs_win, nr_cs_retry, nr_w_win;

/*
 * count, emulated PMU, CPU scope: on CPU @c, session @s's READ of @c
 * around a loop of @n moves each counter by exactly what the loop retires
 * (emu_want(); another task's user mode may add, never take away), or
 * by nothing while the session is stopped.
 */
static void emu_cs_tick(struct sess *s, unsigned int c, __u64 n)
{
	__u64 va[MAX_EV], vb[MAX_EV];
	unsigned int k, tries;
	bool more = true;
	int ret;

	if (pin_cpu(c))
		return;
	nr_cs_win++;
	for (tries = 0; tries < WINDOW_TRIES && more && !fail_what[0]; tries++) {
		more = false;
		nr_cs_retry += tries > 0;
		ret = read_window(s->fd, c, s->n, n, va, vb);
		if (ret) {
			fail("ioctl", "cs_tick: READ of cpu %u: %s", c, strerror(-ret));
			break;
		}
		for (k = 0; k < s->n; k++) {
			long long want = s->started ? emu_want(s->config[k], n) : 0;
			__u64 d = vb[k] - va[k];

			if (vb[k] < va[k] ||
			    (!s->inexact[c] && vb[k] > EMU_MAX_COUNT) ||
			    (want >= 0 && d < (__u64)want) || (!s->started && d))
				fail("count",
				     "session %ld cpu %u event %u (counter %#x, config %#llx, %s): a window of %llu user instructions moved it from %#llx to %#llx, want %lld",
				     (long)(s - sess), c, k, s->counter[k],
				     (unsigned long long)s->config[k],
				     s->started ? "started" : "stopped",
				     (unsigned long long)FZ_WINDOW(n),
				     (unsigned long long)va[k],
				     (unsigned long long)vb[k], want);
			else if (want >= 0 && d > (__u64)want)
				more = true;
			s->last[c][k] = vb[k];
		}
	}
	if (more && !fail_what[0])
		fail("count", "session %ld cpu %u: %u windows of %llu user instructions each counted more",
		     (long)(s - sess), c, WINDOW_TRIES, (unsigned long long)FZ_WINDOW(n));
	unpin_self();
}

/*
 * count, emulated PMU, task scope: worker @w's READ around a loop of @n in
 * its own thread moves each counter by exactly what the loop retires, or
 * by nothing while it is stopped: wherever the worker ran before, whatever
 * ran beside it.
 */
static void emu_w_tick(struct worker *w, unsigned int wi, __u64 n)
{
	struct wreq q;
	struct wrep r;
	unsigned int k;

	memset(&q, 0, sizeof(q));
	q.op = WQ_TICK;
	q.flags = 1;
	q.n = w->n;
	q.amount = n;
	if (w_call(w, &q, &r))
		return;
	if (r.ret) {
		fail("ioctl", "worker %u: READ around its window: %s", wi, strerror(-r.ret));
		return;
	}
	nr_w_win++;
	for (k = 0; k < w->n; k++) {
		/* a set-user-ID image is not counted (doc/module.md, task scope) */
		long long want = w->started && !w->suid ?
				 emu_want(w->config[k], n) : 0;
		__u64 d = r.val[k] - r.va[k];

		if (r.val[k] < r.va[k] || r.val[k] > EMU_MAX_COUNT ||
		    (want >= 0 && d != (__u64)want))
			fail("count",
			     "worker %u (%s) on cpu %d: event %u (counter %#x, config %#llx, %s): a window of %llu user instructions moved it from %#llx to %#llx, want %lld",
			     wi, w->nobody ? "nobody" : "root", r.cpu, k,
			     w->counter[k], (unsigned long long)w->config[k],
			     w->suid ? "in a set-user-ID image" :
			     w->started ? "started" : "stopped",
			     (unsigned long long)FZ_WINDOW(n),
			     (unsigned long long)r.va[k],
			     (unsigned long long)r.val[k], want);
		w->last[k] = r.val[k];
	}
}

/*
 * perf, emulated PMU: a perf event that ran through the whole window (its
 * time running moved as its time enabled) counted exactly the loop's user
 * instructions (branches: the loop's jcc and jnz, and the syscall); one
 * that did not run counted nothing.  pmuctl may keep perf off counters,
 * never change what perf counts on its own.  A CPU's event may count
 * another task's user mode too: retried as emu_cs_tick().
 */
static void perf_tick(struct perfev *p, unsigned int pi, __u64 n)
{
	__u64 a[3], b[3], want = p->kind == 2 ? n + 2 : FZ_WINDOW(n);
	struct fz_window w = {
		.nr = SYS_read, .a0 = (__u64)p->fd, .a1 = (uintptr_t)a,
		.a2 = sizeof(a), .b1 = (uintptr_t)b, .b2 = sizeof(b), .n = n,
	};
	unsigned int tries, max = p->cpu >= 0 ? WINDOW_TRIES : 1;
	bool more = true;

	if (p->cpu >= 0 && (!cpu_online(p->cpu) || pin_cpu(p->cpu)))
		return;
	nr_perf_win++;
	for (tries = 0; tries < max && more && !fail_what[0]; tries++) {
		__u64 d, en, run;

		more = false;
		fz_window(&w);
		if (w.ret_a != sizeof(a) || w.ret_b != sizeof(b)) {
			fail("perf", "perf event %u (%s): read: %lld, %lld", pi,
			     perf_kind[p->kind].name, (long long)w.ret_a,
			     (long long)w.ret_b);
			break;
		}
		d = b[0] - a[0];
		en = b[1] - a[1];
		run = b[2] - a[2];
		if (!run) {
			nr_perf_none++;
			if (d)
				fail("perf", "perf event %u (%s on %s) did not run in the window and counted %llu",
				     pi, perf_kind[p->kind].name,
				     p->cpu < 0 ? "its task" : "a CPU",
				     (unsigned long long)d);
			break;
		}
		if (run != en)
			break;		/* perf rotated it in or out meanwhile */
		if (b[0] < a[0] || d < want || (d > want && max == 1))
			fail("perf", "perf event %u (%s on %s %d) ran through a window of %llu user instructions and counted %llu, want %llu",
			     pi, perf_kind[p->kind].name,
			     p->cpu < 0 ? "its task, cpu" : "cpu",
			     p->cpu < 0 ? sched_getcpu() : p->cpu,
			     (unsigned long long)FZ_WINDOW(n), (unsigned long long)d,
			     (unsigned long long)want);
		else if (d > want)
			more = true;
		else
			nr_perf_whole++;
	}
	if (more && !fail_what[0])
		fail("perf", "perf event %u (%s on cpu %d): %u windows each counted more than %llu",
		     pi, perf_kind[p->kind].name, p->cpu, WINDOW_TRIES,
		     (unsigned long long)want);
	if (p->cpu >= 0)
		unpin_self();
}

static void do_step(const struct step *t)
{
	struct sess *s = &sess[t->a % MAX_SESS];
	struct worker *w = &work[t->a % MAX_WORK];
	unsigned int wi = t->a % MAX_WORK, i;
	struct pmuctl_event ev[MAX_EV];
	struct pmuctl_program p;
	struct wreq q;
	struct wrep r;
	struct snap before;
	__u64 val[MAX_EV];
	int ret;

	memset(&q, 0, sizeof(q));
	switch (t->op) {
	case CS_PROGRAM: {
		__u64 cpus = t->b & ((1ULL << ncpu) - 1);
		unsigned int n = 1 + t->c % MAX_EV;

		if (!cpus || sess_open(s))
			break;
		for (i = 0; i < n; i++) {
			unsigned int m = (t->d >> (4 * i)) % MENU_N;

			ev[i] = ev_make(menu[m].config, 0, menu[m].flags);
		}
		if (fz_snap_take(&before))
			break;
		ret = dev_program(s->fd, ev, n, cpus, &p);
		if (ret) {
			refused_unchanged(&before, "cs_program");
		} else {
			s->programmed = true;
			s->started = false;
			s->n = n;
			s->cpus = cpus;
			programmed_blind(cpus);
			for (i = 0; i < n; i++) {
				s->counter[i] = ev[i].counter;
				s->config[i] = ev[i].config;
			}
			sess_zero(s);
			s->gen++;
		}
		snap_free(&before);
		break;
	}
	case CS_START:
	case CS_STOP:
	case CS_RESET:
		if (s->fd < 0)
			break;
		ret = dev_ctl(s->fd, t->op == CS_START ? PMUCTL_IOC_START :
				     t->op == CS_STOP ? PMUCTL_IOC_STOP : PMUCTL_IOC_RESET);
		if (ret && s->programmed)
			fail("ioctl", "%s of a programmed session: %s",
			     op_name[t->op], strerror(-ret));
		if (!ret && t->op != CS_RESET)
			s->started = t->op == CS_START;
		if (!ret && t->op == CS_RESET) {
			sess_zero(s);
			s->gen++;
		}
		if (ret && t->op == CS_RESET)
			s->gen_unknown = true;
		break;
	case CS_READ:
		if (s->fd < 0 || !s->programmed)
			break;
		for (i = 0; i < ncpu; i++) {
			unsigned int k;

			if (!(s->cpus & (1ULL << i)) || !cpu_online(i))
				continue;
			ret = dev_read(s->fd, i, val, s->n);
			if (ret) {
				fail("ioctl", "READ of cpu %u: %s", i, strerror(-ret));
				break;
			}
			for (k = 0; k < s->n && emu; k++) {
				char who[96];

				/* a CPU that went off line: its count is what was there */
				if (s->inexact[i]) {
					s->last[i][k] = val[k];
					continue;
				}
				snprintf(who, sizeof(who), "session %ld cpu %u event %u (counter %#x)",
					 (long)(s - sess), i, k, s->counter[k]);
				emu_read_check(who, s->config[k], val[k], &s->last[i][k]);
			}
			for (k = 0; k < s->n && !emu; k++) {
				bool ok = s->inexact[i] ? val[k] <= s->want[i][k] :
					  val[k] == s->want[i][k];

				if (!ok)
					fail("count",
					     "session %ld cpu %u event %u (counter %#x): READ %#llx, counted %s%#llx",
					     (long)(s - sess), i, k, s->counter[k],
					     (unsigned long long)val[k],
					     s->inexact[i] ? "at most " : "",
					     (unsigned long long)s->want[i][k]);
			}
		}
		break;
	case CS_RELEASE:
		if (s->fd < 0)
			break;
		ret = dev_ctl(s->fd, PMUCTL_IOC_RELEASE);
		if (ret && s->programmed)
			fail("ioctl", "RELEASE of a programmed session: %s", strerror(-ret));
		s->programmed = s->started = false;
		break;
	case CS_CLOSE:
		if (s->fd < 0)
			break;
		close(s->fd);
		s->fd = -1;
		s->programmed = s->started = false;
		break;
	case CS_TICK: {
		unsigned int k = t->b % MAX_EV, c = t->c % ncpu;
		__u64 v, amount = 1 + t->d % 1000;

		if (emu) {
			if (s->fd >= 0 && s->programmed && (s->cpus & (1ULL << c)) &&
			    cpu_online(c))
				emu_cs_tick(s, c, t->d % 1000);
			break;
		}
		if (s->fd < 0 || !s->started || k >= s->n ||
		    !(s->cpus & (1ULL << c)) || !cpu_online(c) || regs_read(&rg))
			break;
		v = regs_get(&rg, c, ctr_msr(s->counter[k]));
		if (v == ~0ULL || regs_preset(c, ctr_msr(s->counter[k]), v + amount))
			break;
		s->want[c][k] += amount;
		break;
	}
	case W_SPAWN:
		if (w->pid)
			break;
		w_spawn(w, t->b & 1, t->c % ncpu);
		break;
	case W_PROGRAM:
		/* a set-user-ID exec made it root: not the nobody it was */
		if (!w->pid || w->suid)
			break;
		q.op = WQ_PROGRAM;
		q.n = 1 + (t->b & 1);
		q.flags = t->c & 1 ? PMUCTL_PROGRAM_INHERIT : 0;
		for (i = 0; i < q.n; i++) {
			unsigned int m = (t->d >> (4 * i)) % MENU_N;

			q.ev[i] = ev_make(menu[m].config, 0, menu[m].flags);
		}
		if (fz_snap_take(&before))
			break;
		if (w_call(w, &q, &r)) {
			snap_free(&before);
			break;
		}
		if (r.ret) {
			refused_unchanged(&before, "w_program");
		} else {
			programmed_blind(~0ULL);	/* it may run anywhere */
			w->programmed = true;
			w->started = false;
			w->inherit = q.flags & PMUCTL_PROGRAM_INHERIT;
			w->execed = false;	/* PROGRAM grants the caller */
			w->n = q.n;
			w->ticks = 0;
			memset(w->last, 0, sizeof(w->last));
			for (i = 0; i < q.n; i++) {
				w->counter[i] = r.ev[i].counter;
				w->config[i] = r.ev[i].config;
			}
		}
		w->open = r.open;
		snap_free(&before);
		break;
	case W_START:
	case W_STOP:
	case W_RELEASE:
		if (!w->pid || !w->open)
			break;
		q.op = WQ_CTL;
		q.cmd = t->op == W_START ? PMUCTL_IOC_START :
			t->op == W_STOP ? PMUCTL_IOC_STOP : PMUCTL_IOC_RELEASE;
		if (w_call(w, &q, &r))
			break;
		if (r.ret && w->programmed)
			fail("ioctl", "worker %u: %s: %s", wi, op_name[t->op],
			     strerror(-r.ret));
		if (t->op == W_RELEASE)
			w->programmed = false;
		if (!r.ret && t->op != W_RELEASE)
			w->started = t->op == W_START;
		if (t->op == W_RELEASE)
			w->started = false;
		break;
	case W_READ:
		if (!w->pid || !w->programmed)
			break;
		q.op = WQ_READ;
		if (w_call(w, &q, &r))
			break;
		if (r.ret) {
			fail("ioctl", "worker %u: READ: %s", wi, strerror(-r.ret));
			break;
		}
		/* emulated PMU: counts only go up; an event that counts nothing */
		for (i = 0; i < w->n && emu; i++) {
			char who[96];

			snprintf(who, sizeof(who), "worker %u (%s) event %u (counter %#x)",
				 wi, w->nobody ? "nobody" : "root", i, w->counter[i]);
			emu_read_check(who, w->config[i], r.val[i], &w->last[i]);
		}
		/* its ticks went to its first event, none to the others */
		for (i = 0; i < w->n && !emu; i++) {
			__u64 want = i ? 0 : w->ticks;

			if (r.val[i] != want)
				fail("count", "worker %u (%s): READ of event %u %#llx, counted %#llx",
				     wi, w->nobody ? "nobody" : "root", i,
				     (unsigned long long)r.val[i],
				     (unsigned long long)want);
		}
		break;
	case W_RUN:
		if (!w->pid)
			break;
		q.op = WQ_RUN;
		w_call(w, &q, &r);
		break;
	case W_PROBE:
		if (!w->pid)
			break;
		q.op = WQ_PROBE;
		q.cpu = w->programmed ? w->counter[0] : 0;
		if (w_call(w, &q, &r))
			break;
		nr_probe++;
		nr_granted += rdpmc_granted(r.sig);
		if (rdpmc_granted(r.sig) && w->execed)
			fail("grant", "worker %u (%s) execed%s since its PROGRAM and can still rdpmc on cpu %d",
			     wi, w->nobody ? "nobody" : "root",
			     w->suid ? " a set-user-ID image" : "", r.cpu);
		else if (rdpmc_granted(r.sig))
			check_leak(wi, r.cpu);
		break;
	case W_FORK:
		if (!w->pid)
			break;
		q.op = WQ_FORK;
		q.cpu = w->programmed ? w->counter[0] : 0;
		/* a root child of a started, inheriting group counts too */
		if (!emu && !w->nobody && w->programmed && w->inherit && w->started &&
		    w->cpu >= 0)
			q.amount = 1 + t->b % 1000;
		if (w_call(w, &q, &r))
			break;
		if (r.ret) {
			fail("fork", "worker %u: fork: %s", wi, strerror(-r.ret));
			break;
		}
		nr_fork++;
		if (r.ticked) {
			w->ticks += q.amount;
			nr_fork_ticks++;
		}
		if (rdpmc_granted(r.sig))
			fail("grant", "worker %u (%s)'s child ran rdpmc on cpu %d: fork does not copy the grant",
			     wi, w->nobody ? "nobody" : "root", r.cpu);
		break;
	case W_EXEC:
	case W_SUID_EXEC:
		if (!w->pid || w->suid || !(t->op == W_EXEC ? have_exec : have_suid))
			break;
		q.op = WQ_EXEC;
		q.flags = t->op == W_SUID_EXEC;
		/* the answer comes from the new image, or from a failed exec */
		if (w_call(w, &q, &r)) {
			fail("exec", "worker %u: no answer from its new image", wi);
			break;
		}
		if (r.ret) {
			fail("exec", "worker %u: exec %s: %s", wi,
			     q.flags ? SUID_COPY : EXEC_COPY, strerror(-r.ret));
			break;
		}
		w->execed = true;
		w->suid = t->op == W_SUID_EXEC && w->nobody;
		nr_exec++;
		nr_suid += w->suid;
		break;
	case W_TICK:
		if (emu) {
			if (w->pid && w->programmed && w->open)
				emu_w_tick(w, wi, t->b % 1000);
			break;
		}
		if (!w->pid || w->nobody || !w->started || w->cpu < 0)
			break;
		q.op = WQ_TICK;
		q.cpu = w->counter[0];
		q.amount = 1 + t->b % 1000;
		if (w_call(w, &q, &r) || r.ret)
			break;
		w->ticks += q.amount;
		break;
	case W_PIN:
		if (!w->pid)
			break;
		q.op = WQ_PIN;
		q.cpu = t->b % ncpu;
		if (!w_call(w, &q, &r) && !r.ret)
			w->cpu = q.cpu;
		else
			w->cpu = -1;	/* an offline CPU: anywhere */
		break;
	case W_SUSPEND:
		if (!w->pid || w->nobody || !can_suspend)
			break;
		q.op = WQ_SUSPEND;
		if (w_call(w, &q, &r))
			break;
		/* the freezer may refuse (EAGAIN, EBUSY): nothing suspended */
		if (r.ret == -EAGAIN || r.ret == -EBUSY)
			break;
		if (r.ret)
			fail("suspend", "worker %u: echo mem > %s: %s", wi,
			     PM_STATE, strerror(-r.ret));
		after_suspend();
		break;
	case W_EXIT:
	case W_KILL:
		if (!w->pid)
			break;
		if (t->op == W_EXIT) {
			q.op = WQ_EXIT;
			write_full(w->to, &q, sizeof(q));
		}
		w_reap(w, t->op == W_KILL ? SIGKILL : 0);
		break;
	case FOREIGN: {
		struct foreign *f = &frn[t->a % MAX_FOREIGN];
		__u32 c = t->b % ncpu, idx = t->c % info.caps.nr_gp;
		static struct pstate st;
		__u64 g;

		/* Someone else starts a counter where pmuctl holds nothing. */
		/*
		 * Emulated PMU: someone else's counter also stops (its select
		 * and count to 0; the GLOBAL_CTRL bit stays, as pmuctl found
		 * it), so that perf's events get their turn.
		 */
		if (emu && f->on && !f->blind) {
			if (no_task_sessions() && !state_read(&st) &&
			    !state_cpu_claims(&st, f->cpu) &&
			    !fz_preset(f->cpu, MSR_EVTSEL(f->idx), 0) &&
			    !fz_preset(f->cpu, MSR_PMC(f->idx), 0))
				f->on = false;
			break;
		}
		/*
		 * Not beside perf's events (emulated PMU): perf rewrites
		 * selects and GLOBAL_CTRL as it pleases; that is not
		 * pmuctl's doing.
		 */
		if ((f->on && !f->blind) || is_foreign(c, idx) || !no_task_sessions() ||
		    perf_any() || !cpu_online(c) || state_read(&st) ||
		    state_cpu_claims(&st, c) || fz_regs_read(&rg))
			break;
		g = regs_get(&rg, c, MSR_GLOBAL_CTRL);
		f->blind = false;
		f->cpu = c;
		f->idx = idx;
		/* emulated PMU: an event that counts nothing, so the count stays */
		f->sel = EVTSEL_EN | EVTSEL_USR | (emu ? EV_LLC_MISS : EV_CYCLES);
		f->count = 0x1000 + t->d % 0x1000;
		if (fz_preset(c, MSR_PMC(idx), f->count) ||
		    fz_preset(c, MSR_EVTSEL(idx), f->sel) ||
		    fz_preset(c, MSR_GLOBAL_CTRL, g | (1ULL << idx)))
			break;
		f->on = true;
		break;
	}
	case HOTPLUG: {
		/* off line if on line, else back: steps may run in between */
		unsigned int c = 1 + t->a % (ncpu - 1);
		bool on = !cpu_online(c);

		/*
		 * Not with a foreign counter there: pmuctl does not look at
		 * an offline CPU, and a claim written there when it returns
		 * replaces what ran (doc/module.md, "CPUs offline").  That limit is
		 * documented, not a defect the fuzzer should report again
		 * and again (programmed_blind() for the cases left).
		 */
		for (i = 0; !on && i < MAX_FOREIGN; i++)
			if (frn[i].on && frn[i].cpu == c)
				on = true;
		if (on && cpu_online(c))
			break;

		ret = cpu_set_online(c, on);
		if (ret && on)
			fail("hotplug", "cpu %u does not come back: %s", c, strerror(-ret));
		if (ret)
			break;
		for (i = 0; i < MAX_SESS; i++)
			sess[i].inexact[c] = true;
		/* the workers pinned there lost their affinity: pin them again */
		for (i = 0; on && i < MAX_WORK; i++) {
			if (!work[i].pid || work[i].cpu != (int)c)
				continue;
			q.op = WQ_PIN;
			q.cpu = c;
			w_call(&work[i], &q, &r);
		}
		break;
	}
	case SUSPEND:
		if (!can_suspend)
			break;
		ret = write_str(PM_TEST, "core");
		if (!ret)
			ret = write_str(PM_STATE, "mem");
		write_str(PM_TEST, "none");
		if (ret == -EAGAIN || ret == -EBUSY)
			break;
		if (ret)
			fail("suspend", "echo mem > %s: %s", PM_STATE, strerror(-ret));
		after_suspend();
		break;
	case PARAM: {
		unsigned int k = t->a % NR_PARAMS;

		write_str(param_path(params[k].name), params[k].val[t->b % params[k].n]);
		break;
	}
	case BAD_IOCTL: {
		static __u8 junk[512];
		unsigned long cmd;
		__u32 x = t->a;
		void *arg;
		/* a fresh file, or (odd a) a session's, which must not notice */
		bool live = t->a & 1 && s->fd >= 0;
		int fd = live ? s->fd : dev_open();

		if (fd < 0)
			break;
		for (i = 0; i < sizeof(junk); i++)
			junk[i] = (__u8)(t->b * 131 + i * (t->c | 1));
		/* pmuctl's numbers with a wrong size, direction or number */
		cmd = _IOC(x & 3, PMUCTL_IOC_MAGIC, (x >> 2) % 12,
			   (t->d % 4) ? (t->d % 520) : sizeof(struct pmuctl_program));
		arg = t->c % 3 == 0 ? NULL : t->c % 3 == 1 ? (void *)0x1000 : junk;
		if (fz_snap_take(&before) == 0) {
			ret = ioctl(fd, cmd, arg) ? -errno : 0;
			if (ret)
				refused_unchanged(&before, "bad_ioctl");
			snap_free(&before);
		}
		/*
		 * A fresh file goes, with a PROGRAM that was accepted; a
		 * session that took the garbage (an INFO, say) is closed too:
		 * the fuzzer no longer knows what it holds.
		 */
		if (!live || !ret) {
			close(fd);
			if (live) {
				s->fd = -1;
				s->programmed = s->started = false;
			}
		}
		break;
	}
	case PERF_OPEN: {
		struct perfev *p = &pev[t->a % MAX_PERF];
		struct perf_event_attr pa;
		int cpu = (int)(t->b % (ncpu + 1));

		/* not beside a foreign counter (FOREIGN says why) */
		if (!emu || p->on || foreign_any())
			break;
		if (cpu == (int)ncpu)
			cpu = -1;		/* the fuzzer's own task */
		else if (!cpu_online(cpu))
			break;
		memset(&pa, 0, sizeof(pa));
		pa.size = sizeof(pa);
		p->kind = t->c % NR_PERF_KIND;
		pa.type = perf_kind[p->kind].type;
		pa.config = perf_kind[p->kind].config;
		pa.exclude_kernel = 1;
		pa.exclude_hv = 1;
		pa.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
				 PERF_FORMAT_TOTAL_TIME_RUNNING;
		p->fd = (int)syscall(SYS_perf_event_open, &pa, cpu < 0 ? 0 : -1,
				     cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (p->fd < 0) {
			if (!nr_perf_refused++)
				printf("# perf_event_open(%s, cpu %d) first refused: %s\n",
				       perf_kind[p->kind].name, cpu, strerror(errno));
			break;
		}
		p->cpu = cpu;
		p->on = true;
		nr_perf_open++;
		break;
	}
	case PERF_CLOSE: {
		struct perfev *p = &pev[t->a % MAX_PERF];

		if (p->on)
			close(p->fd);
		p->on = false;
		break;
	}
	case PERF_TICK: {
		struct perfev *p = &pev[t->a % MAX_PERF];

		if (p->on)
			perf_tick(p, t->a % MAX_PERF, t->b % 1000);
		break;
	}
	}
}

/* ---- drawing steps -------------------------------------------------------- */

static void draw(struct step *t)
{
	static const struct { int op; unsigned int weight; } w[] = {
		{ CS_PROGRAM, 8 }, { CS_START, 6 }, { CS_STOP, 3 }, { CS_RESET, 2 },
		{ CS_READ, 5 }, { CS_RELEASE, 3 }, { CS_CLOSE, 2 }, { CS_TICK, 6 },
		{ W_SPAWN, 5 }, { W_PROGRAM, 6 }, { W_START, 6 }, { W_STOP, 2 },
		{ W_READ, 5 }, { W_RUN, 5 }, { W_PROBE, 6 }, { W_RELEASE, 2 },
		{ W_EXIT, 1 }, { W_KILL, 1 }, { W_TICK, 6 }, { W_PIN, 3 },
		{ W_SUSPEND, 1 }, { FOREIGN, 2 }, { HOTPLUG, 2 }, { SUSPEND, 1 },
		{ PARAM, 1 }, { BAD_IOCTL, 3 }, { W_FORK, 4 }, { W_EXEC, 2 },
		{ W_SUID_EXEC, 2 }, { PERF_OPEN, 3 }, { PERF_CLOSE, 2 },
		{ PERF_TICK, 5 },
	};
	unsigned int total = 0, x, i;

	/* perf has no PMU in a register-model guest */
	for (i = 0; !emu && i < NR_OPS; i++)
		if (i == PERF_OPEN || i == PERF_CLOSE || i == PERF_TICK)
			excluded[i] = true;
	/* the NMI watchdog's perf event has a counter the fuzzer cannot see */
	if (watchdog)
		excluded[FOREIGN] = true;
	for (i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		total += excluded[w[i].op] ? 0 : w[i].weight;
	if (!total) {		/* everything left out: nothing is */
		memset(excluded, 0, sizeof(excluded));
		draw(t);
		return;
	}
	x = below(total);
	for (i = 0; excluded[w[i].op] || x >= w[i].weight; i++)
		x -= excluded[w[i].op] ? 0 : w[i].weight;
	t->op = w[i].op;
	t->a = below(16);
	t->b = (unsigned int)rnd();
	t->c = (unsigned int)rnd();
	t->d = (unsigned int)rnd();
}

static void step_str(const struct step *t, char *buf, size_t len)
{
	snprintf(buf, len, "%s:%u:%u:%u:%u", op_name[t->op], t->a, t->b, t->c, t->d);
}

static int step_parse(const char *s, struct step *t)
{
	char name[32];
	int i;

	if (sscanf(s, "%31[a-z_]:%u:%u:%u:%u", name, &t->a, &t->b, &t->c, &t->d) != 5)
		return -1;
	for (i = 0; i < NR_OPS; i++) {
		if (!strcmp(name, op_name[i])) {
			t->op = i;
			return 0;
		}
	}
	return -1;
}

/* Where the fuzzer held nothing: a replay may start there. */
#define MAX_QUIET	1024
static unsigned int quiet[MAX_QUIET], nquiet;

static bool is_quiet(void)
{
	unsigned int i;

	for (i = 0; i < MAX_SESS; i++)
		if (sess[i].fd >= 0)
			return false;
	if (foreign_any())
		return false;
	for (i = 1; i < ncpu; i++)
		if (!cpu_online(i))
			return false;
	return no_workers() && !perf_any();
}

/* ---- a run: from nothing held to nothing held ------------------------------- */

/* Every worker killed, every session's file closed. */
static void drop_all(void)
{
	int i;

	for (i = 0; i < MAX_WORK; i++)
		w_reap(&work[i], SIGKILL);
	perf_close_all();
	for (i = 0; i < MAX_SESS; i++) {
		if (sess[i].fd >= 0)
			close(sess[i].fd);
		memset(&sess[i], 0, sizeof(sess[i]));
		sess[i].fd = -1;
	}
}

static void env_reset(void)
{
	int i;

	drop_all();
	memset(frn, 0, sizeof(frn));
	for (i = 1; i < (int)ncpu; i++)
		cpu_set_online(i, true);
	for (i = 0; i < (int)NR_PARAMS; i++)
		write_str(param_path(params[i].name), params[i].val[0]);
	state_wait_clean(3000);
	fz_zero_all();
}

/* After the last step: close everything; nothing may stay held. */
static void check_end(void)
{
	drop_all();
	if (state_wait_clean(3000))
		fail("holdings", "pmuctl/state still lists claims 3 s after every file closed");
	check_foreign();
}

/* One step and the checks after it, the PCs they reach traced. */
static void step_checked(const struct step *t)
{
	kcov_begin();
	do_step(t);
	if (!fail_what[0])
		check_foreign();
	if (!fail_what[0])
		check_holdings();
	if (!fail_what[0])
		check_info();
	kcov_end();
}

/*
 * Run @n steps from a clean start; stop at the first that breaks an
 * invariant.  Return the number of steps run (the failing one included).
 */
static unsigned int run_steps(const struct step *st, unsigned int n, bool end)
{
	unsigned int i;

	fail_what[0] = 0;
	env_reset();
	for (i = 0; i < n && !fail_what[0]; i++)
		step_checked(&st[i]);
	if (!fail_what[0] && end)
		check_end();
	return i;
}

/* ---- the guided loop: keep the segments that reached new module PCs ------- */

/*
 * A small loop in syzkaller's manner (none of its code).  The run is one
 * sequence from a clean start, as unguided, so that state builds up
 * (sessions, workers, grants, CPUs off line) as deep as there; it is made
 * of segments of up to SEG_MAX steps.  A segment during which the steps
 * reached a module PC no earlier step reached joins the corpus; the next
 * segment is, one time in two, a corpus input mutated (a step redrawn,
 * inserted or removed, an argument redrawn, another input's tail spliced
 * on), else drawn afresh.  The seed no longer decides everything (what is
 * new depends on what ran before and on timing); the replay of a failure
 * does.  (Runs of up to 96 steps, each from a clean start, reached fewer
 * PCs in 60 s than the unguided sequence: 1,188 against 1,327.)
 */
#define SEG_MAX		32	/* steps in a segment */
#define MAX_CORPUS	256

struct input {
	unsigned int n;
	struct step st[SEG_MAX];
};

static struct input corpus[MAX_CORPUS];
static unsigned int ncorpus, nadded;

static unsigned int mutate(struct step *r)
{
	const struct input *in = &corpus[below(ncorpus)], *o;
	unsigned int n = in->n, k, i, m = 1 + below(4);
	struct step *t;

	memcpy(r, in->st, n * sizeof(*r));
	for (k = 0; k < m; k++) {
		switch (below(5)) {
		case 0:		/* a step drawn afresh in place of one */
			draw(&r[below(n)]);
			break;
		case 1:		/* a step inserted */
			if (n == SEG_MAX)
				break;
			i = below(n + 1);
			memmove(&r[i + 1], &r[i], (n - i) * sizeof(*r));
			draw(&r[i]);
			n++;
			break;
		case 2:		/* a step removed */
			if (n < 2)
				break;
			i = below(n);
			memmove(&r[i], &r[i + 1], (n - i - 1) * sizeof(*r));
			n--;
			break;
		case 3:		/* one argument redrawn */
			t = &r[below(n)];
			switch (below(4)) {
			case 0:
				t->a = below(16);
				break;
			case 1:
				t->b = (unsigned int)rnd();
				break;
			case 2:
				t->c = (unsigned int)rnd();
				break;
			default:
				t->d = (unsigned int)rnd();
			}
			break;
		default:	/* another input's tail spliced on */
			o = &corpus[below(ncorpus)];
			for (i = below(o->n); i < o->n && n < SEG_MAX; i++)
				r[n++] = o->st[i];
		}
	}
	return n;
}

static void corpus_add(const struct step *r, unsigned int n)
{
	struct input *in = &corpus[ncorpus < MAX_CORPUS ? ncorpus++ : below(MAX_CORPUS)];

	in->n = n;
	memcpy(in->st, r, n * sizeof(*r));
	nadded++;
}

static double elapsed(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return t1.tv_sec - t0->tv_sec + (t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Every 10 s of a long run: the PCs reached so far. */
static void kcov_progress(const struct timespec *t0, double secs, double *next)
{
	double el = elapsed(t0);

	if (!pcs || secs < 20 || el < *next)
		return;
	printf("# kcov: %.0f s, %lu module PCs, corpus %u\n", el, kcov_pcs(), ncorpus);
	*next += 10;
}

/*
 * MAX_STEPS steps run: check the end of this sequence and start another
 * from a clean start, so that a replay stays within what steps[] holds.
 * Return false if the end broke an invariant.
 */
static bool next_sequence(unsigned int *ran, unsigned long *total)
{
	check_end();
	if (fail_what[0])
		return false;
	*total += *ran;
	*ran = 0;
	nquiet = 0;
	env_reset();
	return true;
}

/*
 * The run, for @secs: one sequence from a clean start (a new one past
 * MAX_STEPS steps), drawn a step at a time, or with @guide in segments,
 * a corpus input mutated or fresh draws.  Its steps go to @steps (the
 * replay, should one fail).  Return their number; *@total: the steps run
 * in all, *@segs: the segments.
 */
static unsigned int run_fuzz(struct step *steps, double secs, bool guide,
			     unsigned long *total, unsigned int *segs)
{
	static struct step r[SEG_MAX];
	unsigned int seg = guide ? SEG_MAX : 1, n, i, ran = 0;
	struct timespec t0;
	double next = 10;
	unsigned long before;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	fail_what[0] = 0;
	env_reset();
	nquiet = 0;
	while (elapsed(&t0) < secs) {
		if (ran + seg > MAX_STEPS && !next_sequence(&ran, total))
			break;
		if (guide && ncorpus && below(2)) {
			n = mutate(r);
		} else {
			n = guide ? 4 + below(SEG_MAX - 3) : 1;
			for (i = 0; i < n; i++)
				draw(&r[i]);
		}
		before = kcov_pcs();
		for (i = 0; i < n && !fail_what[0]; i++) {
			if (is_quiet())
				quiet[nquiet++ % MAX_QUIET] = ran;
			steps[ran] = r[i];
			step_checked(&steps[ran++]);
		}
		(*segs)++;
		if (fail_what[0])
			break;
		if (guide && kcov_pcs() > before)
			corpus_add(r, n);
		kcov_progress(&t0, secs, &next);
	}
	if (!fail_what[0])
		check_end();
	*total += ran;
	return ran;
}

/* Whether @st[0..@n) still breaks invariant @what; *@ran: steps run. */
static bool still_fails(const struct step *st, unsigned int n,
			const char *what, unsigned int *ran)
{
	*ran = run_steps(st, n, true);
	return fail_what[0] && !strcmp(fail_what, what);
}

/*
 * Shorten a failing sequence while the same invariant still fails: first
 * to its last 8, 16, 32 ... steps from a clean start, else from the last
 * point where the fuzzer held nothing (no file, no worker, no foreign
 * counter, every CPU on line) on, then by removing chunks of
 * steps, halving the chunk when none can go (ddmin), until single steps
 * or @budget_s run out.
 */
static unsigned int minimize(struct step *st, unsigned int n,
			     const unsigned int *quiet, unsigned int nquiet,
			     int budget_s)
{
	static struct step cand[MAX_STEPS];
	time_t end = time(NULL) + budget_s;
	unsigned int chunk, i, k, m, ran;
	char what[32];

	snprintf(what, sizeof(what), "%s", fail_what);
	/* the last 8, 16, 32 ... steps alone: cheap, and often enough */
	for (k = 8; k < n && time(NULL) < end; k *= 2) {
		if (still_fails(st + n - k, k, what, &ran)) {
			memmove(st, st + n - k, ran * sizeof(*st));
			n = ran;
			nquiet = 0;	/* its points were in the steps cut */
			break;
		}
	}
	/* @quiet is a ring of the last MAX_QUIET such points */
	for (k = nquiet; k-- > 0 && k + MAX_QUIET >= nquiet && time(NULL) < end;) {
		unsigned int q = quiet[k % MAX_QUIET];

		if (q == 0 || q >= n)
			continue;
		if (still_fails(st + q, n - q, what, &ran)) {
			memmove(st, st + q, ran * sizeof(*st));
			n = ran;
			break;
		}
	}
	for (chunk = n / 2; chunk >= 1 && time(NULL) < end; chunk /= 2) {
		bool removed = true;

		while (removed && time(NULL) < end) {
			removed = false;
			for (i = 0; i < n && n > 1 && time(NULL) < end;) {
				unsigned int c = chunk < n - i ? chunk : n - i;

				m = 0;
				for (k = 0; k < n; k++)
					if (k < i || k >= i + c)
						cand[m++] = st[k];
				if (m && still_fails(cand, m, what, &ran)) {
					memcpy(st, cand, ran * sizeof(*st));
					n = ran;
					removed = true;
				} else {
					i += c;
				}
			}
		}
	}
	/* the shortened replay, run once more: its own failure message */
	run_steps(st, n, true);
	return n;
}

static unsigned int parse_cmdline(const char *key, char *out, size_t len)
{
	char *s = slurp("/proc/cmdline"), *p;
	size_t k = strlen(key), i = 0;

	if (!s)
		return 0;
	for (p = strtok(s, " \n"); p; p = strtok(NULL, " \n")) {
		if (!strncmp(p, key, k) && p[k] == '=') {
			snprintf(out, len, "%s", p + k + 1);
			i = 1;
		}
	}
	free(s);
	return i;
}

/* "op,op,...": those ops are never drawn. */
static void exclude_ops(const char *list)
{
	char *s = strdup(list), *p, *save = NULL;
	int i;

	for (p = strtok_r(s, ",", &save); p; p = strtok_r(NULL, ",", &save))
		for (i = 0; i < NR_OPS; i++)
			if (!strcmp(p, op_name[i]))
				excluded[i] = true;
	free(s);
}

/* This program copied to @path with @mode (a set-user-ID bit sticks?). */
static bool copy_self(const char *path, mode_t mode)
{
	char buf[65536];
	struct stat sb;
	ssize_t n;
	int in, out;
	bool ok = false;

	unlink(path);
	in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return false;
	out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
	if (out >= 0) {
		while ((n = read(in, buf, sizeof(buf))) > 0)
			if (write_full(out, buf, n))
				break;
		ok = !n && !fchown(out, 0, 0) && !fchmod(out, mode) &&
		     !fstat(out, &sb) && (sb.st_mode & 07777) == mode;
		close(out);
	}
	close(in);
	if (!ok)
		unlink(path);
	return ok;
}

/* A worker's new image after W_EXEC: "--worker IN OUT FD". */
static int exec_worker(char **argv)
{
	struct wrep r;
	int in = atoi(argv[2]), out = atoi(argv[3]), fd = atoi(argv[4]);

	memset(&r, 0, sizeof(r));
	r.open = fd >= 0;
	r.cpu = sched_getcpu();
	if (write_full(out, &r, sizeof(r)))
		return 2;
	worker_loop(in, out, fd);
	return 0;
}

static struct step steps[MAX_STEPS];
int main(int argc, char **argv)
{
	char arg[4096] = "", buf[96], what[32] = "", why1[512] = "";
	const char *why = dev_unusable(), *replay = NULL;
	unsigned long long seed = 0;
	unsigned long total = 0;
	unsigned int n = 0, ran, i, runs = 0;
	double secs = 6;
	bool guide = false, kcov;
	struct timespec t0;
	struct stat sb;
	int fd, ret = 0, c;

	if (argc == 5 && !strcmp(argv[1], "--worker"))
		return exec_worker(argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (parse_cmdline("pmuctl_fuzz.secs", arg, sizeof(arg)))
		secs = atof(arg);
	if (parse_cmdline("pmuctl_fuzz.seed", arg, sizeof(arg)))
		seed = strtoull(arg, NULL, 0);
	if (parse_cmdline("pmuctl_fuzz.replay", arg, sizeof(arg)))
		replay = strdup(arg);
	if (parse_cmdline("pmuctl_fuzz.exclude", arg, sizeof(arg)))
		exclude_ops(arg);
	if (parse_cmdline("pmuctl_fuzz.guided", arg, sizeof(arg)))
		guide = atoi(arg) != 0;
	while ((c = getopt(argc, argv, "gs:S:r:x:")) != -1) {
		if (c == 'g')
			guide = true;
		else if (c == 's')
			secs = atof(optarg);
		else if (c == 'S')
			seed = strtoull(optarg, NULL, 0);
		else if (c == 'r')
			replay = optarg;
		else if (c == 'x')
			exclude_ops(optarg);
	}
	printf("TAP version 13\n1..1\n");
	/* the register model, else the emulated PMU with the kernel's msr */
	emu = !why && !have_regs() && hw_cpu_is_emulated() &&
	      !access("/dev/cpu/0/msr", W_OK);
	if (!why && !have_regs() && !emu)
		why = "needs the register model (PMUCTL_REGMODEL=y: its regs file) or the emulated PMU with /dev/cpu/N/msr";
	if (!why && cpus_online() < 2)
		why = "needs 2 online CPUs";
	if (why) {
		printf("ok 1 # SKIP %s\n", why);
		return 0;
	}
	ncpu = cpus_online() > MAX_CPUS ? MAX_CPUS : cpus_online();
	fd = dev_open();
	if (fd < 0 || dev_info(fd, &info)) {
		printf("not ok 1 fuzz # INFO failed\n");
		return 1;
	}
	close(fd);
	if (info.caps.nr_gp > 8)
		info.caps.nr_gp = 8;
	can_suspend = !access(PM_TEST, W_OK) && (emu || regs_suspends() >= 0);
	if (emu) {
		char *wd = slurp("/proc/sys/kernel/nmi_watchdog");

		watchdog = wd && wd[0] == '1';
		free(wd);
	}
	{
		char *d = slurp(PM_DELAY);

		snprintf(saved_delay, sizeof(saved_delay), "%s", d ? d : "");
		free(d);
		if (saved_delay[0])
			write_str(PM_DELAY, "0");
	}
	if (!seed) {
		clock_gettime(CLOCK_REALTIME, &t0);
		seed = (unsigned long long)t0.tv_nsec ^ ((unsigned long long)t0.tv_sec << 20) ^
		       (unsigned long long)getpid() << 40;
	}
	rng = seed | 1;
	for (i = 0; i < NR_PARAMS; i++) {
		char *p = slurp(param_path(params[i].name));

		snprintf(saved_param[i], sizeof(saved_param[i]), "%s",
			 p ? p : params[i].val[0]);
		free(p);
	}
	if (stat(DEV_PATH, &sb))
		sb.st_mode = 0600;
	chmod(DEV_PATH, 0666);
	for (i = 0; i < MAX_SESS; i++)
		sess[i].fd = -1;
	kcov = kcov_init();
	have_exec = copy_self(EXEC_COPY, 0755);
	have_suid = copy_self(SUID_COPY, 04755);
	if (guide && !kcov) {
		printf("# guided: no KCOV here (%s, a module built with KCOV_INSTRUMENT): unguided\n",
		       KCOV_PATH);
		guide = false;
	}

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (replay) {
		/* "@FILE": the steps are in FILE (a kernel command line holds 2 KiB) */
		char *s = replay[0] == '@' ? slurp(replay + 1) : strdup(replay);
		char *p, *save = NULL;

		if (!s) {
			printf("not ok 1 fuzz # no replay in %s\n", replay + 1);
			return 1;
		}
		for (p = strtok_r(s, "; \t\n", &save); p && n < MAX_STEPS;
		     p = strtok_r(NULL, "; \t\n", &save)) {
			if (step_parse(p, &steps[n])) {
				printf("not ok 1 fuzz # a replay step I cannot read: %s\n", p);
				return 1;
			}
			n++;
		}
		ran = run_steps(steps, n, true);
		total = ran;
		printf("# replay of %u steps\n", n);
	} else {
		printf("# seed %#llx, %.0f s, %s, %u CPUs, %u generic counters, suspend %s, exec %s, set-user-ID exec %s, %s\n",
		       seed, secs, !emu ? "register model" : watchdog ?
		       "emulated PMU, NMI watchdog on (no foreign counters)" :
		       "emulated PMU", ncpu,
		       info.caps.nr_gp, can_suspend ? "yes" : "no",
		       have_exec ? "yes" : "no", have_suid ? "yes" : "no",
		       guide ? "guided by KCOV" : kcov ? "unguided, KCOV counting" :
		       "unguided");
		for (i = 0; i < NR_OPS; i++)
			if (excluded[i])
				printf("# never drawn: %s\n", op_name[i]);
		n = run_fuzz(steps, secs, guide, &total, &runs);
	}
	{
		double el = elapsed(&t0);

		printf("# %lu steps in %.1f s: %.1f steps/s\n", total, el,
		       total / (el > 0 ? el : 1));
	}
	printf("# rdpmc probes %u (granted %u), forks %u (a counted child ticked in %u), execs %u (a nobody worker's set-user-ID exec in %u)\n",
	       nr_probe, nr_granted, nr_fork, nr_fork_ticks, nr_exec, nr_suid);
	if (emu)
		printf("# windows of known code: CPU scope %u (%u tried again), task scope %u\n",
		       nr_cs_win, nr_cs_retry, nr_w_win);
	if (emu)
		printf("# perf events opened %u (refused %u), windows %u (counted through %u, not running in %u)\n",
		       nr_perf_open, nr_perf_refused, nr_perf_win, nr_perf_whole,
		       nr_perf_none);
	if (kcov)
		printf("# kcov: %lu module PCs reached\n", kcov_pcs());
	if (guide)
		printf("# guided: %u segments, corpus %u inputs (%u added)\n", runs, ncorpus, nadded);
	if (fail_what[0]) {
		unsigned int m;

		snprintf(what, sizeof(what), "%s", fail_what);
		snprintf(why1, sizeof(why1), "%s", fail_why);
		step_str(&steps[n ? n - 1 : 0], buf, sizeof(buf));
		printf("# seed %#llx: step %u (%s) broke \"%s\": %s\n", seed, n, buf,
		       what, why1);
		m = replay ? n : minimize(steps, n, quiet, nquiet, secs > 20 ? 240 : 30);
		printf("# replay (%u steps; %s): fuzz_test -r '", m,
		       fail_what[0] ? "fails alone" : "did NOT fail alone");
		for (i = 0; i < m; i++) {
			step_str(&steps[i], buf, sizeof(buf));
			printf("%s%s", i ? ";" : "", buf);
		}
		printf("'\n");
		if (fail_what[0]) {
			char *lg = slurp(DBG_LOG), *l, *save = NULL;

			printf("# the replay: \"%s\": %s\n", fail_what, fail_why);
			/* the register model's last writes, up to the failure */
			for (l = lg ? strtok_r(lg, "\n", &save) : NULL; l;
			     l = strtok_r(NULL, "\n", &save))
				printf("#   regmodel log: %s\n", l);
			free(lg);
		}
		ret = 1;
	}
	env_reset();
	for (i = 0; i < NR_PARAMS; i++)
		write_str(param_path(params[i].name), saved_param[i]);
	if (saved_delay[0])
		write_str(PM_DELAY, saved_delay);
	chmod(DEV_PATH, sb.st_mode & 07777);
	unlink(EXEC_COPY);
	unlink(SUID_COPY);
	if (ret)
		printf("not ok 1 fuzz: seed %#llx broke \"%s\": %s\n", seed, what, why1);
	else
		printf("ok 1 fuzz: %lu steps, every invariant held\n", total);
	return ret;
}
