// SPDX-License-Identifier: GPL-2.0
/*
 * The emulated PMU itself (scripts/vm/qemu/pmu-spec.md): the registers, their #GP rules,
 * rdpmc, and the exact counts, each test named for the rule it proves.
 *
 * The tests program the counters of CPU 0 directly, with MSR writes
 * through /dev/cpu/0/msr (msr.ko, allow_writes=on; EIO from pread/pwrite
 * means the access raised #GP), the thread pinned to CPU 0, and read them
 * with rdpmc (the sysfs rdpmc file set to 2 for each test) and with MSR
 * reads.  Every register a test writes is read first and written back
 * after it (the fixture's teardown, which also runs after a failed
 * ASSERT); no counter is ever given the INT bit: perf's NMI handler must
 * never see an overflow it does not own.
 *
 * The exact counts come from windows of known code in assembly:
 *
 *	mov 0(w), %ecx
 *	A: rdpmc
 *	mov %eax, 8(w)		1
 *	mov %edx, 12(w)		2
 *	BODY			the body's instructions
 *	mov 0(w), %ecx		3
 *	B: rdpmc
 *
 * k = BODY + 3 instructions lie strictly between A and B, so a counter
 * counting user mode reads B - A = k + 1 = BODY + 4 (the contract's rule
 * "A: rdpmc; k instructions; B: rdpmc gives B - A = k + 1").
 *
 * Tests that program counters need perf to hold none: with
 * kernel.nmi_watchdog=1 perf's watchdog owns a fixed counter and
 * IA32_PERF_GLOBAL_CTRL, and those tests SKIP saying so.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>

#include "kselftest_harness.h"
#include "pmu.h"

#define CPU		0	/* the CPU whose PMU the tests program */
#define RUNS		5	/* repetitions of an exact window */
#define MIN_RUNS	20	/* repetitions where interrupts may add kernel work */
#define MAX_SAVED	64
#define PAGE		4096UL

/* ---- the windows ----------------------------------------------------------- */

/* Shared with the assembly: the offsets below are part of it. */
struct win {
	uint64_t ecx;		/*  0: rdpmc's ECX at A and B */
	uint64_t a;		/*  8: A */
	uint64_t b;		/* 16: B */
	uint64_t arg[4];	/* 24, 32, 40, 48: the body's arguments */
	uint64_t ret;		/* 56 */
};
_Static_assert(offsetof(struct win, a) == 8, "asm offsets");
_Static_assert(offsetof(struct win, arg) == 24, "asm offsets");
_Static_assert(offsetof(struct win, ret) == 56, "asm offsets");

/* k - BODY: the window's own instructions between A and B (see the top). */
#define WIN_OWN		3
/* B - A for a body of @body instructions, counting user mode. */
#define WIN_DELTA(body)	((uint64_t)(body) + WIN_OWN + 1)

#define WINDOW(w, body)							\
	__asm__ __volatile__("mov 0(%0), %%ecx\n\t"			\
			     "rdpmc\n\t"				\
			     "mov %%eax, 8(%0)\n\t"			\
			     "mov %%edx, 12(%0)\n\t"			\
			     body					\
			     "mov 0(%0), %%ecx\n\t"			\
			     "rdpmc\n\t"				\
			     "mov %%eax, 16(%0)\n\t"			\
			     "mov %%edx, 20(%0)\n\t"			\
			     : : "r"(w)					\
			     : "rax", "rcx", "rdx", "rsi", "rdi", "r8",	\
			       "r9", "r10", "r11", "cc", "memory")

/* K nops: BODY = K. */
#define DEFINE_NOPS(K)							\
	static void __attribute__((noinline)) win_nops_##K(struct win *w) \
	{								\
		WINDOW(w, ".rept " #K "\n\tnop\n\t.endr\n\t");		\
	}
DEFINE_NOPS(0)
DEFINE_NOPS(1)
DEFINE_NOPS(2)
DEFINE_NOPS(10)
DEFINE_NOPS(100)
DEFINE_NOPS(1000)

static const struct nops {
	void (*fn)(struct win *w);
	uint64_t k;
} nops[] = {
	{ win_nops_0, 0 }, { win_nops_1, 1 }, { win_nops_2, 2 },
	{ win_nops_10, 10 }, { win_nops_100, 100 }, { win_nops_1000, 1000 },
};
#define NR_NOPS		(sizeof(nops) / sizeof(nops[0]))

/* dec/jnz loop of n = arg[0] >= 1 iterations: BODY = 1 + 2n, n branches. */
static void __attribute__((noinline)) win_loop(struct win *w)
{
	WINDOW(w, "mov 24(%0), %%r10\n"
		  "1:\n\t"
		  "dec %%r10\n\t"
		  "jnz 1b\n\t");
}
#define LOOP_BODY(n)	(1 + 2 * (uint64_t)(n))

/*
 * n = arg[0] >= 1 iterations of a REP MOVSB of arg[3] bytes from arg[1] to
 * arg[2]: BODY = 1 + 6n (the REP counts once).
 */
static void __attribute__((noinline)) win_rep_loop(struct win *w)
{
	WINDOW(w, "mov 24(%0), %%r10\n"
		  "1:\n\t"
		  "mov 32(%0), %%rsi\n\t"
		  "mov 40(%0), %%rdi\n\t"
		  "mov 48(%0), %%rcx\n\t"
		  "rep movsb\n\t"
		  "dec %%r10\n\t"
		  "jnz 1b\n\t");
}
#define REP_LOOP_BODY(n)	(1 + 6 * (uint64_t)(n))

/* One REP MOVSB of arg[3] bytes from arg[1] to arg[2]: BODY = 4. */
static void __attribute__((noinline)) win_rep_once(struct win *w)
{
	WINDOW(w, "mov 32(%0), %%rsi\n\t"
		  "mov 40(%0), %%rdi\n\t"
		  "mov 48(%0), %%rcx\n\t"
		  "rep movsb\n\t");
}
#define REP_ONCE_BODY	4

/* Write one byte to each of n = arg[0] pages from arg[1]: BODY = 2 + 4n. */
static void __attribute__((noinline)) win_touch(struct win *w)
{
	WINDOW(w, "mov 24(%0), %%r10\n\t"
		  "mov 32(%0), %%rsi\n"
		  "1:\n\t"
		  "movb $1, (%%rsi)\n\t"
		  "add $4096, %%rsi\n\t"
		  "dec %%r10\n\t"
		  "jnz 1b\n\t");
}
#define TOUCH_BODY(n)	(2 + 4 * (uint64_t)(n))

/* getpid(): BODY = 2 user instructions (mov, syscall) and kernel work. */
_Static_assert(SYS_getpid == 39, "x86-64 getpid");
static void __attribute__((noinline)) win_syscall(struct win *w)
{
	WINDOW(w, "mov $39, %%eax\n\t"
		  "syscall\n\t");
}
#define SYSCALL_BODY	2

/*
 * Faults and traps: the signal handler below (4 instructions) and its
 * restorer (2) run in user mode between A and B, so they are part of the
 * body: SKIP_INSNS.  The faulting instruction itself must not count
 * (contract: "a faulting instruction ... is not counted"); int3 is a trap,
 * which completes before #BP is raised, so it counts.
 */
#define SKIP_INSNS	6
static void __attribute__((noinline)) win_ud2(struct win *w)
{
	WINDOW(w, "ud2\n\t");			/* #UD: 0 + SKIP_INSNS */
}
static void __attribute__((noinline)) win_hlt(struct win *w)
{
	WINDOW(w, "hlt\n\t");			/* #GP at CPL 3: 0 + SKIP_INSNS */
}
static void __attribute__((noinline)) win_bad_rdpmc(struct win *w)
{
	WINDOW(w, "mov 24(%0), %%ecx\n\t"	/* 1 */
		  "rdpmc\n\t");			/* #GP: 0 + SKIP_INSNS */
}
static void __attribute__((noinline)) win_int3(struct win *w)
{
	WINDOW(w, "int3\n\t");			/* trap: 1 + SKIP_INSNS */
}

/*
 * The handler: count the hit, step over pmu_skip_len bytes (the faulting
 * instruction; 0 after a trap), return to the restorer, which calls
 * rt_sigreturn.  4 + 2 instructions, no C: the compiler adds nothing.
 * 168 is offsetof(ucontext_t, uc_mcontext.gregs[REG_RIP]).
 */
_Static_assert(offsetof(ucontext_t, uc_mcontext.gregs) + REG_RIP * 8 == 168,
	       "the handler's RIP offset");
uint64_t pmu_skip_len, pmu_skip_hits;
void pmu_skip_handler(int sig, siginfo_t *si, void *uc);
void pmu_skip_restorer(void);
__asm__(".pushsection .text\n"
	".type pmu_skip_handler, @function\n"
	"pmu_skip_handler:\n\t"
	"incq pmu_skip_hits(%rip)\n\t"
	"mov pmu_skip_len(%rip), %rax\n\t"
	"add %rax, 168(%rdx)\n\t"
	"ret\n"
	".size pmu_skip_handler, .-pmu_skip_handler\n"
	".type pmu_skip_restorer, @function\n"
	"pmu_skip_restorer:\n\t"
	"mov $15, %eax\n\t"			/* rt_sigreturn */
	"syscall\n"
	".size pmu_skip_restorer, .-pmu_skip_restorer\n"
	".popsection");

/* The kernel's struct sigaction: the restorer is ours, not libc's. */
struct ksigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	uint64_t mask;
};
#define KSA_RESTORER	0x04000000UL

static int skip_handler_set(int sig, struct ksigaction *old)
{
	struct ksigaction ka = {
		.handler = (void *)pmu_skip_handler,
		.flags = SA_SIGINFO | KSA_RESTORER,
		.restorer = (void *)pmu_skip_restorer,
	};

	return syscall(SYS_rt_sigaction, sig, &ka, old, 8) ? -errno : 0;
}

static void skip_handler_restore(int sig, const struct ksigaction *old)
{
	syscall(SYS_rt_sigaction, sig, old, NULL, 8);
}

/*
 * A counter enabled from inside the window: pwrite64(arg[0], arg[1], 8,
 * arg[2]) by a bare syscall (the GLOBAL_CTRL write that starts the
 * counter), then A and B around 100 instructions.  The user instructions
 * the counter sees before A are the 2 after the syscall and A itself, so
 * A = preset + 3 and B = A + 101.
 */
static void __attribute__((noinline)) win_enable_100(struct win *w)
{
	__asm__ __volatile__("mov 24(%0), %%rdi\n\t"
			     "mov 32(%0), %%rsi\n\t"
			     "mov $8, %%edx\n\t"
			     "mov 40(%0), %%r10\n\t"
			     "mov $18, %%eax\n\t"	/* pwrite64 */
			     "syscall\n\t"
			     "mov %%rax, 56(%0)\n\t"	/* 1 */
			     "mov 0(%0), %%ecx\n\t"	/* 2 */
			     "rdpmc\n\t"		/* 3: A */
			     "mov %%eax, 8(%0)\n\t"	/* 1 */
			     "mov %%edx, 12(%0)\n\t"	/* 2 */
			     ".rept 97\n\tnop\n\t.endr\n\t"	/* 99 */
			     "mov 0(%0), %%ecx\n\t"	/* 100 */
			     "rdpmc\n\t"		/* B */
			     "mov %%eax, 16(%0)\n\t"
			     "mov %%edx, 20(%0)\n\t"
			     : : "r"(w)
			     : "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9",
			       "r10", "r11", "cc", "memory");
}
_Static_assert(SYS_pwrite64 == 18, "x86-64 pwrite64");
#define ENABLE_BEFORE_A	3
#define ENABLE_A_TO_B	101

/* ---- the fixture ------------------------------------------------------------ */

FIXTURE(emu) {
	int msr;			/* /dev/cpu/CPU/msr */
	int msr_other;			/* another CPU's, or -1 */
	struct pmu_caps c;
	struct pmu_knob rdpmc;
	uint64_t status0;		/* IA32_PERF_GLOBAL_STATUS at setup */
	unsigned int nsaved;
	struct { int fd; uint32_t msr; uint64_t val; } saved[MAX_SAVED];
};

/*
 * With rdpmc=2 every switch to another mm runs perf_clear_dirty_counters(),
 * which zeroes the counters perf used and gave back, once (FACTS 6).  A
 * child run and reaped on this CPU makes that happen now, before a test
 * presets a counter, not in the middle of it.
 */
static void settle(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

FIXTURE_SETUP(emu)
{
	pmu_caps_read(&self->c);
	self->msr = -1;
	self->msr_other = -1;
	ASSERT_EQ(0, pmu_pin(CPU));
	self->msr = pmu_msr_open(CPU);
	ASSERT_LE(0, self->msr) TH_LOG("/dev/cpu/%d/msr: %s", CPU, strerror(-self->msr));
	if (pmu_msr_read(self->msr, MSR_GLOBAL_STATUS, &self->status0))
		self->status0 = 0;
	ASSERT_EQ(0, pmu_knob_set(&self->rdpmc, RDPMC_SYSFS, "2"));
	settle();
}

FIXTURE_TEARDOWN(emu)
{
	uint64_t st, ctrl_old = 0, counters;
	bool ctrl_saved = false;

	/* The other CPU's registers first: the same order, see below. */
	for (unsigned int i = 0; i < self->nsaved; i++)
		if (self->saved[i].fd == self->msr_other &&
		    self->saved[i].msr == MSR_GLOBAL_CTRL)
			pmu_msr_write(self->msr_other, MSR_GLOBAL_CTRL, 0);
	for (unsigned int i = self->nsaved; i-- > 0;)
		if (self->saved[i].fd == self->msr_other)
			pmu_msr_write(self->msr_other, self->saved[i].msr,
				      self->saved[i].val);
	if (self->msr_other >= 0)
		close(self->msr_other);
	if (self->msr >= 0) {
		/* Stop first, then every register back as found, GLOBAL_CTRL last. */
		for (unsigned int i = 0; i < self->nsaved; i++)
			if (self->saved[i].fd == self->msr &&
			    self->saved[i].msr == MSR_GLOBAL_CTRL) {
				ctrl_saved = true;
				ctrl_old = self->saved[i].val;
				pmu_msr_write(self->msr, MSR_GLOBAL_CTRL, 0);
			}
		for (unsigned int i = self->nsaved; i-- > 0;)
			if (self->saved[i].fd == self->msr &&
			    self->saved[i].msr != MSR_GLOBAL_CTRL)
				pmu_msr_write(self->msr, self->saved[i].msr,
					      self->saved[i].val);
		if (ctrl_saved)
			pmu_msr_write(self->msr, MSR_GLOBAL_CTRL, ctrl_old);
		/* Overflow bits the test caused: cleared. */
		counters = ((1ULL << self->c.nr_gp) - 1) |
			   ((uint64_t)self->c.fixed_mask << 32);
		if (!pmu_msr_read(self->msr, MSR_GLOBAL_STATUS, &st) &&
		    (st & ~self->status0 & counters))
			pmu_msr_write(self->msr, MSR_GLOBAL_OVF_CTRL,
				      st & ~self->status0 & counters);
		close(self->msr);
	}
	pmu_knob_restore(&self->rdpmc);
}

/* Tests that program counters: perf must hold none. */
#define NEED_IDLE_PERF() do {						\
	if (pmu_watchdog_on())						\
		SKIP(return, "kernel.nmi_watchdog=1: perf's watchdog holds a counter and IA32_PERF_GLOBAL_CTRL; this test programs them directly"); \
} while (0)

/*
 * Write an MSR through @fd (a CPU's msr device), remembering its old value
 * for the teardown the first time.  GLOBAL_STATUS and GLOBAL_OVF_CTRL are
 * never restored (read-only, and write-1-to-clear).  0 or -errno.
 */
static int wr_fd(FIXTURE_DATA(emu) *self, int fd, uint32_t msr, uint64_t v)
{
	bool known = msr == MSR_GLOBAL_STATUS || msr == MSR_GLOBAL_OVF_CTRL;
	uint64_t old;

	for (unsigned int i = 0; i < self->nsaved && !known; i++)
		known = self->saved[i].fd == fd && self->saved[i].msr == msr;
	if (!known && self->nsaved < MAX_SAVED && !pmu_msr_read(fd, msr, &old)) {
		self->saved[self->nsaved].fd = fd;
		self->saved[self->nsaved].msr = msr;
		self->saved[self->nsaved].val = old;
		self->nsaved++;
	}
	return pmu_msr_write(fd, msr, v);
}

static int wr(FIXTURE_DATA(emu) *self, uint32_t msr, uint64_t v)
{
	return wr_fd(self, self->msr, msr, v);
}

static uint64_t rd(struct __test_metadata *_metadata, FIXTURE_DATA(emu) *self,
		   uint32_t msr)
{
	uint64_t v = 0;
	int ret = pmu_msr_read(self->msr, msr, &v);

	EXPECT_EQ(0, ret) TH_LOG("rdmsr %#x: %s", msr, strerror(-ret));
	return v;
}

#define WR(msr, v) do {							\
	int __r = wr(self, (msr), (v));					\
									\
	ASSERT_EQ(0, __r) TH_LOG("wrmsr %#x <- %#llx: %s", (msr),	\
				 (unsigned long long)(v), strerror(-__r)); \
} while (0)

/* ---- counters ------------------------------------------------------------------ */

/* A counter and its control: EVTSEL without EN, or the fixed nibble. */
struct ctr {
	const char *name;
	bool fixed;
	unsigned int idx;
	uint64_t cfg;
};

static uint32_t ctr_ecx(const struct ctr *k)
{
	return k->fixed ? RDPMC_FIXED | k->idx : k->idx;
}

static uint64_t ctr_bit(const struct ctr *k)
{
	return k->fixed ? 1ULL << (32 + k->idx) : 1ULL << k->idx;
}

static uint64_t ctr_mask(FIXTURE_DATA(emu) *self, const struct ctr *k)
{
	return pmu_width_mask(k->fixed ? self->c.fixed_width : self->c.gp_width);
}

/*
 * Stop everything, preset @k's counter to @preset (a generic counter by
 * its legacy address: @preset must be what bits 31:0 sign-extend to),
 * write its control (with EN unless !@en) and, if @global, its
 * GLOBAL_CTRL bit: the counter runs from that write on.
 */
static void ctr_arm(struct __test_metadata *_metadata, FIXTURE_DATA(emu) *self,
		    const struct ctr *k, uint64_t preset, bool en, bool global)
{
	uint64_t mask = ctr_mask(self, k);

	WR(MSR_GLOBAL_CTRL, 0);
	if (k->fixed) {
		WR(MSR_FIXED_CTR(k->idx), preset);
		WR(MSR_FIXED_CTR_CTRL, en ? FIXED_NIBBLE(k->idx, k->cfg) : 0);
	} else {
		ASSERT_EQ(preset, (uint64_t)(int64_t)(int32_t)preset & mask)
			TH_LOG("preset %#llx is not a sign-extended 32-bit value",
			       (unsigned long long)preset);
		WR(MSR_PMC(k->idx), preset & 0xffffffffULL);
		WR(MSR_EVTSEL(k->idx), k->cfg | (en ? EVTSEL_EN : 0));
	}
	if (global)
		WR(MSR_GLOBAL_CTRL, ctr_bit(k));
}

static void ctr_disarm(struct __test_metadata *_metadata,
		       FIXTURE_DATA(emu) *self, const struct ctr *k)
{
	WR(MSR_GLOBAL_CTRL, 0);
	if (k->fixed)
		WR(MSR_FIXED_CTR_CTRL, 0);
	else
		WR(MSR_EVTSEL(k->idx), 0);
}

static uint64_t ctr_read_msr(struct __test_metadata *_metadata,
			     FIXTURE_DATA(emu) *self, const struct ctr *k)
{
	return rd(_metadata, self, k->fixed ? MSR_FIXED_CTR(k->idx)
					    : MSR_PMC(k->idx));
}

/*
 * One window over @k (armed); B - A within the counter's width.  A window
 * in which this thread was switched out counted another task too: it is
 * run again, up to PMU_WINDOW_TRIES times (pmu_switches()); *@switched
 * says whether even the last one was.
 */
static uint64_t windows_run;	/* windows executed, retries included */

static uint64_t window_once(FIXTURE_DATA(emu) *self, const struct ctr *k,
			    void (*fn)(struct win *), struct win *w,
			    bool *switched)
{
	uint64_t d = 0;

	for (unsigned int t = 0; t < PMU_WINDOW_TRIES; t++) {
		uint64_t s0 = pmu_switches();

		w->ecx = ctr_ecx(k);
		fn(w);
		windows_run++;
		d = (w->b - w->a) & ctr_mask(self, k);
		*switched = pmu_switches() != s0;
		if (!*switched)
			break;
	}
	return d;
}

static uint64_t window(FIXTURE_DATA(emu) *self, const struct ctr *k,
		       void (*fn)(struct win *), struct win *w)
{
	bool switched;

	return window_once(self, k, fn, w, &switched);
}

/*
 * Arm @k from 0, run @fn @runs times: each B - A must be @want.
 */
static void expect_exact(struct __test_metadata *_metadata,
			 FIXTURE_DATA(emu) *self, const struct ctr *k,
			 void (*fn)(struct win *), struct win *w, uint64_t want,
			 unsigned int runs, const char *what)
{
	ctr_arm(_metadata, self, k, 0, true, true);
	for (unsigned int r = 0; r < runs; r++) {
		bool switched;
		uint64_t d = window_once(self, k, fn, w, &switched);

		EXPECT_FALSE(switched) TH_LOG("%s, %s: switched out in %d windows in a row",
					      k->name, what, PMU_WINDOW_TRIES);
		EXPECT_EQ(want, d) TH_LOG("%s, %s, run %u: B - A = %llu, want %llu (A %#llx B %#llx)",
					  k->name, what, r, (unsigned long long)d,
					  (unsigned long long)want,
					  (unsigned long long)w->a,
					  (unsigned long long)w->b);
	}
	/* Stopped, the counter reads the same through rdmsr and rdpmc, past B. */
	WR(MSR_GLOBAL_CTRL, 0);
	{
		uint64_t m = ctr_read_msr(_metadata, self, k);

		EXPECT_EQ(m, pmu_rdpmc(ctr_ecx(k))) TH_LOG("%s: rdmsr vs rdpmc", k->name);
		EXPECT_LE(w->b, m) TH_LOG("%s: rdmsr %#llx below the last B %#llx", k->name,
					  (unsigned long long)m, (unsigned long long)w->b);
	}
	ctr_disarm(_metadata, self, k);
}

/* The counters that count user-mode instructions exactly (contract: Events). */
#define USR_INST(self_)							\
	{ "fixed 0 USR", true, 0, FIXED_USR },				\
	{ "PMC0 0x00c0 USR", false, 0, EV_INST_RETIRED | EVTSEL_USR },	\
	{ "PMC0 0x01c0 USR", false, 0, EV_INST_RETIRED_01 | EVTSEL_USR }, \
	{ "last PMC 0x00c0 USR", false, (self_)->c.nr_gp - 1,		\
	  EV_INST_RETIRED | EVTSEL_USR }

/* ---- CPUID ---------------------------------------------------------------------- */

/*
 * CPUID.0AH is what the rig configures for the model (scripts/vm/qemu/pmu-spec.md: the
 * rig's models): KnightsMill (6/0x85) v3, 2 or 4 x 40-bit generic, 3 x
 * 40-bit fixed, no PERF_CAPABILITIES; Skylake-Server (6/0x55) v4, 4 x 48,
 * 3 x 48, PDCM and IA32_PERF_CAPABILITIES = 0x2000 (full-width writes);
 * Icelake-Server (6/0x6a) and SapphireRapids (6/0x8f) v5, 8 x 48, fixed
 * counters 0-3 x 48 in ECX's bitmap, AnyThread deprecated, 0xa000
 * (full-width writes and PERF_METRICS, bit 15).  Read-only: runs with the
 * watchdog on too.
 */
TEST_F(emu, cpuid_0ah_is_what_the_rig_configures_for_the_model)
{
	const struct pmu_rig_model *m = self->c.rig;
	uint64_t caps = 0;
	int ret;

	if (!m)
		SKIP(return, "family %u model %#x is not one of the rig's models",
		     self->c.family, self->c.model);
	TH_LOG("%s: CPUID.0AH EAX %#x EBX %#x ECX %#x EDX %#x, PDCM %d",
	       m->name, self->c.eax, self->c.ebx, self->c.ecx, self->c.edx,
	       self->c.pdcm);
	EXPECT_TRUE(self->c.eax == m->leafa_eax[0] || self->c.eax == m->leafa_eax[1])
		TH_LOG("EAX %#x, want %#x or %#x", self->c.eax,
		       m->leafa_eax[0], m->leafa_eax[1]);
	EXPECT_EQ(m->leafa_ebx, self->c.ebx);
	EXPECT_EQ(m->leafa_ecx, self->c.ecx);
	EXPECT_EQ(m->leafa_edx, self->c.edx);
	/* PDCM is how software knows it may read IA32_PERF_CAPABILITIES. */
	EXPECT_EQ(m->perf_caps != 0, self->c.pdcm);
	ret = pmu_msr_read(self->msr, MSR_PERF_CAPABILITIES, &caps);
	if (m->perf_caps) {
		EXPECT_EQ(0, ret);
		EXPECT_EQ(m->perf_caps, caps);
	} else {
		EXPECT_EQ(-EIO, ret) TH_LOG("IA32_PERF_CAPABILITIES read %#llx, want #GP",
					    (unsigned long long)caps);
	}
}

/* ---- exact counts --------------------------------------------------------------- */

/*
 * A: rdpmc; k instructions; B: rdpmc gives B - A = k + 1, counting user
 * mode, for k = 3 + K nops, on fixed counter 0 and generic 0x00c0/0x01c0.
 */
TEST_F(emu, usr_instructions_between_two_rdpmc_give_k_plus_1)
{
	const struct ctr ks[] = { USR_INST(self) };
	struct win w = { 0 };

	NEED_IDLE_PERF();
	for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++)
		for (size_t n = 0; n < NR_NOPS; n++) {
			char what[32];

			snprintf(what, sizeof(what), "%llu nops",
				 (unsigned long long)nops[n].k);
			expect_exact(_metadata, self, &ks[i], nops[n].fn, &w,
				     WIN_DELTA(nops[n].k), RUNS, what);
		}
}

/*
 * A dec/jnz loop whose body holds a REP MOVSB of 4096 bytes: the REP
 * counts once however many bytes it moves and however often an interrupt
 * splits it (1024 iterations move 4 MiB: timer ticks land inside).
 */
TEST_F(emu, rep_movsb_counts_once)
{
	const struct ctr ks[] = { USR_INST(self) };
	const uint64_t iters[] = { 1, 16, 1024 };
	char *buf = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	struct win w = { 0 };

	NEED_IDLE_PERF();
	ASSERT_NE(MAP_FAILED, buf);
	memset(buf, 0x5a, 2 * PAGE);
	w.arg[1] = (uintptr_t)buf;
	w.arg[2] = (uintptr_t)buf + PAGE;
	w.arg[3] = PAGE;
	for (size_t i = 0; i < 2; i++)	/* fixed 0, PMC0 0x00c0 */
		for (size_t n = 0; n < sizeof(iters) / sizeof(iters[0]); n++) {
			char what[48];

			w.arg[0] = iters[n];
			snprintf(what, sizeof(what), "%llu x rep movsb 4096",
				 (unsigned long long)iters[n]);
			expect_exact(_metadata, self, &ks[i], win_rep_loop, &w,
				     WIN_DELTA(REP_LOOP_BODY(iters[n])), 3, what);
		}
	/* RCX = 0: the REP moves nothing and still retires, once. */
	w.arg[3] = 0;
	for (size_t i = 0; i < 2; i++)
		expect_exact(_metadata, self, &ks[i], win_rep_once, &w,
			     WIN_DELTA(REP_ONCE_BODY), 3, "rep movsb, rcx 0");
	munmap(buf, 2 * PAGE);
}

/*
 * OS alone counts CPL 0: nothing over user code.  Interrupts are kernel
 * work and may land in a window, so the minimum over MIN_RUNS runs is 0.
 * Over a getpid() it counts the kernel's instructions: every run > 0.
 */
TEST_F(emu, os_only_counts_nothing_in_user_code_and_the_kernel_in_a_syscall)
{
	const struct ctr ks[] = {
		{ "fixed 0 OS", true, 0, FIXED_OS },
		{ "PMC0 0x00c0 OS", false, 0, EV_INST_RETIRED | EVTSEL_OS },
	};
	struct win w = { 0 };

	NEED_IDLE_PERF();
	for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		uint64_t min = ~0ULL, max = 0, kmin = ~0ULL;

		ctr_arm(_metadata, self, &ks[i], 0, true, true);
		for (unsigned int r = 0; r < MIN_RUNS; r++) {
			uint64_t d = window(self, &ks[i], win_nops_1000, &w);

			min = d < min ? d : min;
			max = d > max ? d : max;
			d = window(self, &ks[i], win_syscall, &w);
			kmin = d < kmin ? d : kmin;
		}
		ctr_disarm(_metadata, self, &ks[i]);
		TH_LOG("%s: 1000 nops: min %llu max %llu; getpid: min %llu",
		       ks[i].name, (unsigned long long)min,
		       (unsigned long long)max, (unsigned long long)kmin);
		EXPECT_EQ(0ULL, min);
		EXPECT_LT(0ULL, kmin);
	}
}

/*
 * USR alone counts the user half of a syscall exactly (mov, syscall);
 * OS+USR counts at least that, plus the kernel's; over user code alone its
 * minimum is exactly the user count.
 */
TEST_F(emu, os_and_usr_count_at_least_usr)
{
	const struct ctr usr = { "PMC0 0x00c0 USR", false, 0,
				 EV_INST_RETIRED | EVTSEL_USR };
	const struct ctr both[] = {
		{ "fixed 0 OS+USR", true, 0, FIXED_OS | FIXED_USR },
		{ "PMC0 0x00c0 OS+USR", false, 0,
		  EV_INST_RETIRED | EVTSEL_OS | EVTSEL_USR },
	};
	struct win w = { 0 };

	NEED_IDLE_PERF();
	expect_exact(_metadata, self, &usr, win_syscall, &w,
		     WIN_DELTA(SYSCALL_BODY), MIN_RUNS, "getpid");
	for (size_t i = 0; i < sizeof(both) / sizeof(both[0]); i++) {
		uint64_t min = ~0ULL, smin = ~0ULL;

		ctr_arm(_metadata, self, &both[i], 0, true, true);
		for (unsigned int r = 0; r < MIN_RUNS; r++) {
			uint64_t d = window(self, &both[i], win_nops_100, &w);

			EXPECT_LE(WIN_DELTA(100), d);
			min = d < min ? d : min;
			d = window(self, &both[i], win_syscall, &w);
			EXPECT_LT(WIN_DELTA(SYSCALL_BODY), d);
			smin = d < smin ? d : smin;
		}
		ctr_disarm(_metadata, self, &both[i]);
		TH_LOG("%s: 100 nops: min %llu (user %llu); getpid: min %llu (user %llu)",
		       both[i].name, (unsigned long long)min,
		       (unsigned long long)WIN_DELTA(100),
		       (unsigned long long)smin,
		       (unsigned long long)WIN_DELTA(SYSCALL_BODY));
		EXPECT_EQ(WIN_DELTA(100), min);
	}
}

/* Arm @k as given, run user code and a syscall: the counter stays at @preset. */
static void expect_frozen(struct __test_metadata *_metadata,
			  FIXTURE_DATA(emu) *self, const struct ctr *k,
			  bool en, bool global, const char *what)
{
	const uint64_t preset = 12345;
	struct win w = { 0 };

	ctr_arm(_metadata, self, k, preset, en, global);
	for (unsigned int r = 0; r < RUNS; r++) {
		uint64_t d = window(self, k, win_nops_100, &w);

		EXPECT_EQ(0ULL, d) TH_LOG("%s, %s: 100 nops counted %llu", k->name,
				       what, (unsigned long long)d);
		EXPECT_EQ(preset, w.b) TH_LOG("%s, %s: rdpmc %#llx", k->name,
					      what, (unsigned long long)w.b);
		d = window(self, k, win_syscall, &w);
		EXPECT_EQ(0ULL, d) TH_LOG("%s, %s: getpid counted %llu", k->name,
				       what, (unsigned long long)d);
	}
	EXPECT_EQ(preset, ctr_read_msr(_metadata, self, k));
	ctr_disarm(_metadata, self, k);
}

/* Neither USR nor OS (EN and GLOBAL_CTRL set): nothing counts. */
TEST_F(emu, neither_usr_nor_os_counts_nothing)
{
	const struct ctr ks[] = {
		{ "fixed 0 nibble 0", true, 0, 0 },
		{ "PMC0 0x00c0 EN", false, 0, EV_INST_RETIRED },
	};

	NEED_IDLE_PERF();
	for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++)
		expect_frozen(_metadata, self, &ks[i], true, true, "no USR/OS");
}

/* USR+OS with EN clear (GLOBAL_CTRL bit set): nothing counts. */
TEST_F(emu, en_clear_counts_nothing)
{
	const struct ctr k = { "PMC0 0x00c0 USR+OS", false, 0,
			       EV_INST_RETIRED | EVTSEL_USR | EVTSEL_OS };

	NEED_IDLE_PERF();
	expect_frozen(_metadata, self, &k, false, true, "EN clear");
}

/* USR+OS, EN set, the counter's GLOBAL_CTRL bit clear: nothing counts. */
TEST_F(emu, global_ctrl_bit_clear_counts_nothing)
{
	const struct ctr ks[] = {
		{ "fixed 0 OS+USR", true, 0, FIXED_OS | FIXED_USR },
		{ "PMC0 0x00c0 USR+OS", false, 0,
		  EV_INST_RETIRED | EVTSEL_USR | EVTSEL_OS },
	};

	NEED_IDLE_PERF();
	for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++)
		expect_frozen(_metadata, self, &ks[i], true, false,
			      "GLOBAL_CTRL bit clear");
}

static long minflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

/*
 * Instructions that take a page fault count once: the faulting attempt
 * not, the re-execution after the fault yes.  n stores, each to a fresh
 * page; and one REP MOVSB into 4 fresh pages, which faults in the middle
 * and resumes.  The minor-fault count proves the faults happened.
 */
TEST_F(emu, page_faulting_instructions_count_once)
{
	const struct ctr ks[] = { USR_INST(self) };
	const uint64_t n = 64, rep_pages = 4;
	struct win w = { 0 };
	char *src = mmap(NULL, rep_pages * PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	NEED_IDLE_PERF();
	ASSERT_NE(MAP_FAILED, src);
	memset(src, 0x5a, rep_pages * PAGE);
	for (size_t i = 0; i < 2; i++) {	/* fixed 0, PMC0 0x00c0 */
		ctr_arm(_metadata, self, &ks[i], 0, true, true);
		for (unsigned int r = 0; r < 3; r++) {
			char *fresh = mmap(NULL, n * PAGE, PROT_READ | PROT_WRITE,
					   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			long f0;
			uint64_t d;

			ASSERT_NE(MAP_FAILED, fresh);
			w.arg[0] = n;
			w.arg[1] = (uintptr_t)fresh;
			f0 = minflt();
			d = window(self, &ks[i], win_touch, &w);
			EXPECT_LE(f0 + (long)n, minflt());
			EXPECT_EQ(WIN_DELTA(TOUCH_BODY(n)), d)
				TH_LOG("%s: %llu stores to fresh pages", ks[i].name,
				       (unsigned long long)n);
			munmap(fresh, n * PAGE);

			fresh = mmap(NULL, rep_pages * PAGE, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			ASSERT_NE(MAP_FAILED, fresh);
			w.arg[1] = (uintptr_t)src;
			w.arg[2] = (uintptr_t)fresh;
			w.arg[3] = rep_pages * PAGE;
			f0 = minflt();
			d = window(self, &ks[i], win_rep_once, &w);
			EXPECT_LE(f0 + (long)rep_pages, minflt());
			EXPECT_EQ(WIN_DELTA(REP_ONCE_BODY), d)
				TH_LOG("%s: rep movsb into %llu fresh pages",
				       ks[i].name, (unsigned long long)rep_pages);
			EXPECT_EQ(0, memcmp(src, fresh, rep_pages * PAGE));
			munmap(fresh, rep_pages * PAGE);
		}
		ctr_disarm(_metadata, self, &ks[i]);
	}
	munmap(src, rep_pages * PAGE);
}

/*
 * An instruction that faults and is skipped by the handler never
 * completes: not counted, whether the fault is raised when QEMU translates
 * it (ud2 #UD, hlt #GP at CPL 3) or when it runs (rdpmc of a counter that
 * does not exist, #GP).  The handler and its restorer (SKIP_INSNS) are
 * user code and count.
 */
TEST_F(emu, faulting_instructions_are_not_counted)
{
	const struct ctr ks[] = { USR_INST(self) };
	const struct {
		const char *what;
		void (*fn)(struct win *w);
		int sig;
		uint64_t len, body;
	} f[] = {
		{ "ud2", win_ud2, SIGILL, 2, 0 + SKIP_INSNS },
		{ "hlt", win_hlt, SIGSEGV, 1, 0 + SKIP_INSNS },
		{ "rdpmc of PMC nr_gp", win_bad_rdpmc, SIGSEGV, 2, 1 + SKIP_INSNS },
	};
	struct ksigaction old;
	struct win w = { 0 };

	NEED_IDLE_PERF();
	w.arg[0] = self->c.nr_gp;	/* the bad rdpmc's ECX */
	for (size_t j = 0; j < sizeof(f) / sizeof(f[0]); j++) {
		ASSERT_EQ(0, skip_handler_set(f[j].sig, &old));
		pmu_skip_len = f[j].len;
		pmu_skip_hits = 0;
		windows_run = 0;
		for (size_t i = 0; i < 2; i++)	/* fixed 0, PMC0 0x00c0 */
			expect_exact(_metadata, self, &ks[i], f[j].fn, &w,
				     WIN_DELTA(f[j].body), RUNS, f[j].what);
		skip_handler_restore(f[j].sig, &old);
		/* Once per window (a window run again runs it again). */
		EXPECT_EQ(windows_run, pmu_skip_hits) TH_LOG("%s: handler ran %llu times in %llu windows",
							     f[j].what,
							     (unsigned long long)pmu_skip_hits,
							     (unsigned long long)windows_run);
		EXPECT_LE(2ULL * RUNS, windows_run);
	}
}

/* int3 is a trap: it completes, then #BP is raised; it counts. */
TEST_F(emu, int3_trap_is_counted)
{
	const struct ctr ks[] = { USR_INST(self) };
	struct ksigaction old;
	struct win w = { 0 };

	NEED_IDLE_PERF();
	ASSERT_EQ(0, skip_handler_set(SIGTRAP, &old));
	pmu_skip_len = 0;
	pmu_skip_hits = 0;
	windows_run = 0;
	for (size_t i = 0; i < 2; i++)
		expect_exact(_metadata, self, &ks[i], win_int3, &w,
			     WIN_DELTA(1 + SKIP_INSNS), RUNS, "int3");
	skip_handler_restore(SIGTRAP, &old);
	EXPECT_EQ(windows_run, pmu_skip_hits);
	EXPECT_LE(2ULL * RUNS, windows_run);
}

/*
 * Core cycles (fixed 1, 0x003c) and reference cycles (fixed 2, 0x013c)
 * are synthetic: equal to instructions retired (1 IPC).
 */
TEST_F(emu, cycles_and_ref_cycles_equal_instructions)
{
	const struct ctr ks[] = {
		{ "fixed 1 USR", true, 1, FIXED_USR },
		{ "fixed 2 USR", true, 2, FIXED_USR },
		{ "PMC0 0x003c USR", false, 0, EV_CORE_CYCLES | EVTSEL_USR },
		{ "PMC0 0x013c USR", false, 0, EV_REF_CYCLES | EVTSEL_USR },
	};
	struct win w = { 0 };

	NEED_IDLE_PERF();
	ASSERT_LE(3U, self->c.nr_fixed);
	w.arg[0] = 1000;
	for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		expect_exact(_metadata, self, &ks[i], win_nops_100, &w,
			     WIN_DELTA(100), RUNS, "100 nops");
		expect_exact(_metadata, self, &ks[i], win_loop, &w,
			     WIN_DELTA(LOOP_BODY(1000)), RUNS, "1000 x dec/jnz");
	}
}

/*
 * TOPDOWN.SLOTS is synthetic (pmu-spec.md): pmu-slots-per-cycle (the rig
 * leaves it at 4) slots per synthetic cycle, i.e. per instruction, on fixed
 * counter 3 and, where CPUID.0AH enumerates architectural event 7, on a
 * generic counter as 0x01a4.  Where event 7 is not enumerated (the v2-v4
 * models), 0x01a4 counts nothing.
 */
TEST_F(emu, topdown_slots_are_slots_per_cycle_times_instructions)
{
	const struct pmu_rig_model *m = self->c.rig;
	struct ctr ks[2];
	const struct ctr none = { "PMC0 0x01a4 USR (event 7 not enumerated)", false,
				  0, EV_TOPDOWN_SLOTS | EVTSEL_USR };
	unsigned int nk = 0, spc;
	struct win w = { 0 };

	NEED_IDLE_PERF();
	w.arg[0] = 1000;
	if (!self->c.arch_slots) {
		/* The negative: an event the model does not enumerate. */
		ctr_arm(_metadata, self, &none, 0, true, true);
		EXPECT_EQ(0ULL, window(self, &none, win_loop, &w));
		ctr_disarm(_metadata, self, &none);
	}
	if (!m || !m->slots_per_cycle)
		SKIP(return, "%s has no TOPDOWN.SLOTS", m ? m->name : "this model");
	spc = m->slots_per_cycle;
	ASSERT_NE(0U, self->c.fixed_mask & (1U << 3));
	ASSERT_TRUE(self->c.arch_slots);
	ks[nk++] = (struct ctr){ "fixed 3 USR", true, 3, FIXED_USR };
	ks[nk++] = (struct ctr){ "PMC0 0x01a4 USR", false, 0,
				 EV_TOPDOWN_SLOTS | EVTSEL_USR };
	for (unsigned int i = 0; i < nk; i++) {
		expect_exact(_metadata, self, &ks[i], win_nops_100, &w,
			     spc * WIN_DELTA(100), RUNS, "100 nops");
		expect_exact(_metadata, self, &ks[i], win_loop, &w,
			     spc * WIN_DELTA(LOOP_BODY(1000)), RUNS, "1000 x dec/jnz");
	}
}

/*
 * IA32_PERF_METRICS where PERF_CAPABILITIES[15] says it exists (the Ice
 * Lake and Sapphire Rapids models): its bytes divide the slots fixed
 * counter 3 counted while GLOBAL_CTRL bit 48 was set, by the synthetic rule
 * over the exact instruction and branch counts, which PMC0 (0x00c0) and
 * PMC1 (0x00c4) count beside it (pmu_metrics_expect()); rdpmc ECX 1 << 29
 * reads the same; a pair written back (fixed counter 3, then PERF_METRICS,
 * as a context switch restores it) reads back as written and goes on
 * counting from it; writing 0 to fixed counter 3 clears the shares.
 */
static void metrics_run(struct __test_metadata *_metadata,
			FIXTURE_DATA(emu) *self, void (*fn)(struct win *),
			struct win *w, uint64_t *n, uint64_t *b, uint64_t *s)
{
	const uint64_t on = 3ULL | 1ULL << 35 | 1ULL << 48;

	WR(MSR_GLOBAL_CTRL, 0);
	WR(MSR_PMC(0), 0);
	WR(MSR_PMC(1), 0);
	WR(MSR_EVTSEL(0), EV_INST_RETIRED | EVTSEL_USR | EVTSEL_EN);
	WR(MSR_EVTSEL(1), EV_BRANCHES | EVTSEL_USR | EVTSEL_EN);
	WR(MSR_FIXED_CTR_CTRL, FIXED_NIBBLE(3, FIXED_USR));
	WR(MSR_GLOBAL_CTRL, on);
	w->ecx = RDPMC_FIXED | 3;
	fn(w);
	WR(MSR_GLOBAL_CTRL, 0);
	*n = rd(_metadata, self, MSR_PMC(0));
	*b = rd(_metadata, self, MSR_PMC(1));
	*s = rd(_metadata, self, MSR_FIXED_CTR(3));
}

TEST_F(emu, perf_metrics_divide_the_slots_by_the_synthetic_rule)
{
	const struct pmu_rig_model *m = self->c.rig;
	uint64_t n, b, s, raw, want, n2, b2, s2, written;
	struct win w = { 0 };

	if (!m || !m->nr_metrics)
		SKIP(return, "%s has no PERF_METRICS (the reserved-bits test checks its #GP)",
		     m ? m->name : "this model");
	NEED_IDLE_PERF();
	WR(MSR_GLOBAL_CTRL, 0);
	WR(MSR_FIXED_CTR(3), 0);
	WR(MSR_PERF_METRICS, 0);
	w.arg[0] = 1000;
	metrics_run(_metadata, self, win_loop, &w, &n, &b, &s);
	raw = rd(_metadata, self, MSR_PERF_METRICS);
	want = pmu_metrics_expect(m, 0, 0, n, b);
	TH_LOG("%s: %llu instructions, %llu branches, %llu slots: PERF_METRICS %#llx",
	       m->name, (unsigned long long)n, (unsigned long long)b,
	       (unsigned long long)s, (unsigned long long)raw);
	EXPECT_LT(0ULL, b);
	EXPECT_LT(b, n);
	EXPECT_EQ(m->slots_per_cycle * n, s);
	EXPECT_EQ(want, raw);
	EXPECT_EQ(raw, pmu_rdpmc(RDPMC_METRICS));
	/* Another mix gives other shares: the rule is not a constant. */
	EXPECT_NE(pmu_metrics_expect(m, 0, 0, n, 0), raw);

	/* Written back, as a context switch restores it, and counting on. */
	written = raw ^ 0x0102;
	WR(MSR_FIXED_CTR(3), s);
	WR(MSR_PERF_METRICS, written);
	EXPECT_EQ(written, rd(_metadata, self, MSR_PERF_METRICS));
	EXPECT_EQ(s, rd(_metadata, self, MSR_FIXED_CTR(3)));
	metrics_run(_metadata, self, win_nops_100, &w, &n2, &b2, &s2);
	EXPECT_EQ(s + m->slots_per_cycle * n2, s2);
	EXPECT_EQ(pmu_metrics_expect(m, s, written, n2, b2),
		  rd(_metadata, self, MSR_PERF_METRICS));

	/* Fixed counter 3 written 0 clears the shares; they stay cleared. */
	WR(MSR_FIXED_CTR(3), 0);
	EXPECT_EQ(0ULL, rd(_metadata, self, MSR_PERF_METRICS));
	WR(MSR_FIXED_CTR(3), 1000);
	EXPECT_EQ(0ULL, rd(_metadata, self, MSR_PERF_METRICS));

	WR(MSR_FIXED_CTR(3), 0);
	WR(MSR_FIXED_CTR_CTRL, 0);
	WR(MSR_EVTSEL(0), 0);
	WR(MSR_EVTSEL(1), 0);
}

/*
 * BR_INST_RETIRED.ALL_BRANCHES (0x00c4) counts branch instructions exactly
 * where the emulation implements it, else 0: a loop of n dec/jnz retires
 * n branches, 100 nops none.
 */
TEST_F(emu, branches_count_exactly_or_not_at_all)
{
	const struct ctr k = { "PMC0 0x00c4 USR", false, 0,
			       EV_BRANCHES | EVTSEL_USR };
	const uint64_t n = 1000;
	struct win w = { 0 };
	uint64_t d;

	NEED_IDLE_PERF();
	w.arg[0] = n;
	ctr_arm(_metadata, self, &k, 0, true, true);
	d = window(self, &k, win_loop, &w);
	TH_LOG("0x00c4 over %llu dec/jnz: %llu (%s)", (unsigned long long)n,
	       (unsigned long long)d, d ? "implemented" : "not implemented");
	for (unsigned int r = 0; r < RUNS; r++) {
		uint64_t e = window(self, &k, win_loop, &w);

		EXPECT_TRUE(e == n || (e == 0 && d == 0))
			TH_LOG("run %u: %llu branches, want %llu (or always 0)", r,
			       (unsigned long long)e, (unsigned long long)n);
		e = window(self, &k, win_nops_100, &w);
		EXPECT_EQ(0ULL, e);
	}
	ctr_disarm(_metadata, self, &k);
}

/* Every other event, and any event with CMASK, INV or EDGE, counts 0. */
TEST_F(emu, other_events_and_cmask_inv_edge_count_nothing)
{
	const uint64_t both = EVTSEL_USR | EVTSEL_OS;
	const struct ctr ks[] = {
		{ "0x412e LLC misses", false, 0, EV_LLC_MISSES | both },
		{ "0x00c5 branch misses", false, 0, EV_BRANCH_MISSES | both },
		{ "0x00c0 cmask 1", false, 0, EV_INST_RETIRED | both | EVTSEL_CMASK(1) },
		{ "0x00c0 inv cmask 1", false, 0,
		  EV_INST_RETIRED | both | EVTSEL_INV | EVTSEL_CMASK(1) },
		{ "0x00c0 edge cmask 1", false, 0,
		  EV_INST_RETIRED | both | EVTSEL_EDGE | EVTSEL_CMASK(1) },
		{ "0x003c cmask 1", false, 0, EV_CORE_CYCLES | both | EVTSEL_CMASK(1) },
	};
	struct win w = { 0 };

	NEED_IDLE_PERF();
	w.arg[0] = 1000;
	for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		ctr_arm(_metadata, self, &ks[i], 0, true, true);
		for (unsigned int r = 0; r < RUNS; r++) {
			EXPECT_EQ(0ULL, window(self, &ks[i], win_loop, &w)) TH_LOG("%s", ks[i].name);
			EXPECT_EQ(0ULL, window(self, &ks[i], win_syscall, &w)) TH_LOG("%s", ks[i].name);
		}
		EXPECT_EQ(0ULL, ctr_read_msr(_metadata, self, &ks[i])) TH_LOG("%s", ks[i].name);
		ctr_disarm(_metadata, self, &ks[i]);
	}
}

/*
 * Counting is per vCPU: the same event programmed on another CPU's fixed
 * counter 0 (through that CPU's msr device) does not see a loop run here,
 * which this CPU's counter counts exactly.  The other CPU runs no user
 * code meanwhile (everything here is pinned to CPU 0), so its count stays
 * far below the loop's.
 */
TEST_F(emu, counting_is_per_vcpu)
{
	const struct ctr k = { "fixed 0 USR", true, 0, FIXED_USR };
	const uint64_t n = 1000000;
	uint64_t here, there0 = 0, there1 = 0;
	struct win w = { 0 };
	int other = CPU + 1;
	int ret;

	NEED_IDLE_PERF();
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "one CPU online");
	self->msr_other = pmu_msr_open(other);
	ASSERT_LE(0, self->msr_other) TH_LOG("/dev/cpu/%d/msr", other);
	ASSERT_EQ(0, wr_fd(self, self->msr_other, MSR_GLOBAL_CTRL, 0));
	ASSERT_EQ(0, wr_fd(self, self->msr_other, MSR_FIXED_CTR(0), 0));
	ASSERT_EQ(0, wr_fd(self, self->msr_other, MSR_FIXED_CTR_CTRL,
			   FIXED_NIBBLE(0, FIXED_USR)));
	ASSERT_EQ(0, wr_fd(self, self->msr_other, MSR_GLOBAL_CTRL, ctr_bit(&k)));
	ret = pmu_msr_read(self->msr_other, MSR_FIXED_CTR(0), &there0);
	ASSERT_EQ(0, ret);

	w.arg[0] = n;
	ctr_arm(_metadata, self, &k, 0, true, true);
	here = window(self, &k, win_loop, &w);
	ctr_disarm(_metadata, self, &k);

	ASSERT_EQ(0, pmu_msr_read(self->msr_other, MSR_FIXED_CTR(0), &there1));
	ASSERT_EQ(0, wr_fd(self, self->msr_other, MSR_GLOBAL_CTRL, 0));
	TH_LOG("a loop of %llu instructions: CPU %d counted %llu, CPU %d %llu",
	       (unsigned long long)WIN_DELTA(LOOP_BODY(n)), CPU,
	       (unsigned long long)here, other, (unsigned long long)(there1 - there0));
	EXPECT_EQ(WIN_DELTA(LOOP_BODY(n)), here);
	EXPECT_GT(LOOP_BODY(n) / 2, there1 - there0);
}

/*
 * INIT leaves the MSRs unchanged (SDM vol. 3A, 9.1; KVM's vPMU keeps them
 * too), and Linux brings a CPU back on line with INIT-SIPI-SIPI: a count
 * and a select left on a CPU that went off line are still there when it
 * returns, so the rig shows what a driver that forgets them would leave
 * behind (pmu-spec.md).  Neither counts meanwhile: the select has no EN and
 * fixed counter 1's nibble is 0 (perf holds nothing on the CPU).
 */
TEST_F(emu, pmu_registers_survive_init_as_a_cpu_goes_off_and_on_line)
{
	static const char online[] = "/sys/devices/system/cpu/cpu1/online";
	const struct { uint32_t msr; uint64_t val; } set[] = {
		{ MSR_EVTSEL(0), EVTSEL_USR | 0xc0 },
		{ MSR_PMC(0), 0x12345678 },
		{ MSR_FIXED_CTR(1), 0x2468ace },
	};
	uint64_t old[ARRAY_SIZE(set)], v;
	struct pmu_knob k = { 0 };
	unsigned int i;
	int fd, ret;

	NEED_IDLE_PERF();
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2 || access(online, W_OK))
		SKIP(return, "CPU 1 cannot go off line (%s)", online);
	fd = pmu_msr_open(1);
	ASSERT_LE(0, fd) TH_LOG("/dev/cpu/1/msr");
	for (i = 0; i < ARRAY_SIZE(set); i++) {
		ASSERT_EQ(0, pmu_msr_read(fd, set[i].msr, &old[i]));
		ASSERT_EQ(0, pmu_msr_write(fd, set[i].msr, set[i].val));
	}
	close(fd);
	ret = pmu_knob_set(&k, online, "0");
	EXPECT_EQ(0, ret) TH_LOG("CPU 1 off line: %s", strerror(-ret));
	ret = pmu_knob_restore(&k);
	ASSERT_EQ(0, ret) TH_LOG("CPU 1 back on line: %s", strerror(-ret));
	fd = pmu_msr_open(1);
	ASSERT_LE(0, fd) TH_LOG("/dev/cpu/1/msr after it came back");
	for (i = 0; i < ARRAY_SIZE(set); i++) {
		v = ~0ULL;
		EXPECT_EQ(0, pmu_msr_read(fd, set[i].msr, &v));
		EXPECT_EQ(set[i].val, v) {
			TH_LOG("MSR %#x: %#llx before CPU 1 went off line, %#llx after INIT brought it back",
			       set[i].msr, (unsigned long long)set[i].val,
			       (unsigned long long)v);
		}
		pmu_msr_write(fd, set[i].msr, old[i]);
	}
	close(fd);
}

/* ---- widths ---------------------------------------------------------------------- */

/*
 * A write to IA32_PMCx takes bits 31:0 sign-extended to the width:
 * 0x80000000 reads back 0xffff80000000 at 48 bits, 0xff80000000 at 40,
 * through rdmsr and rdpmc alike.
 */
TEST_F(emu, legacy_pmc_write_sign_extends_bit_31_to_the_width)
{
	const uint64_t mask = pmu_width_mask(self->c.gp_width);
	const struct { uint64_t w, want; } v[] = {
		{ 0x80000000ULL, mask & ~0x7fffffffULL },
		{ 0xfffffff6ULL, mask - 9 },
		{ 0x7fffffffULL, 0x7fffffffULL },
		{ 0x123456789ULL, 0x23456789ULL },	/* bits 63:32 ignored */
		{ 0, 0 },
	};

	NEED_IDLE_PERF();
	WR(MSR_GLOBAL_CTRL, 0);
	for (unsigned int i = 0; i < self->c.nr_gp; i++) {
		WR(MSR_EVTSEL(i), 0);
		for (size_t j = 0; j < sizeof(v) / sizeof(v[0]); j++) {
			WR(MSR_PMC(i), v[j].w);
			EXPECT_EQ(v[j].want, rd(_metadata, self, MSR_PMC(i)))
				TH_LOG("PMC%u <- %#llx (width %u)", i,
				       (unsigned long long)v[j].w, self->c.gp_width);
			EXPECT_EQ(v[j].want, pmu_rdpmc(i));
		}
	}
	if (self->c.gp_width == 48)
		EXPECT_EQ(0xffff80000000ULL, mask & ~0x7fffffffULL);
	if (self->c.gp_width == 40)
		EXPECT_EQ(0xff80000000ULL, mask & ~0x7fffffffULL);
}

/*
 * IA32_A_PMCx exists only with IA32_PERF_CAPABILITIES bit 13: it takes the
 * full width (2^w - 1 reads back, through IA32_PMCx and rdpmc too), and a
 * bit at or above the width is #GP.  Without bit 13 (KnightsMill) it is
 * absent: #GP on read and write.
 */
TEST_F(emu, full_width_writes_follow_perf_capabilities_bit_13)
{
	const uint64_t mask = pmu_width_mask(self->c.gp_width);
	uint64_t caps = 0, v;

	NEED_IDLE_PERF();
	if (!self->c.pdcm || pmu_msr_read(self->msr, MSR_PERF_CAPABILITIES, &caps))
		caps = 0;
	WR(MSR_GLOBAL_CTRL, 0);
	if (!(caps & (1ULL << 13))) {
		TH_LOG("no full-width writes (PERF_CAPABILITIES %#llx)",
		       (unsigned long long)caps);
		EXPECT_EQ(-EIO, pmu_msr_read(self->msr, MSR_A_PMC(0), &v));
		EXPECT_EQ(-EIO, wr(self, MSR_A_PMC(0), 1));
		return;
	}
	for (unsigned int i = 0; i < self->c.nr_gp; i++) {
		WR(MSR_EVTSEL(i), 0);
		WR(MSR_A_PMC(i), mask);
		EXPECT_EQ(mask, rd(_metadata, self, MSR_A_PMC(i)));
		EXPECT_EQ(mask, rd(_metadata, self, MSR_PMC(i)));
		EXPECT_EQ(mask, pmu_rdpmc(i));
		EXPECT_EQ(-EIO, wr(self, MSR_A_PMC(i), mask + 1))
			TH_LOG("A_PMC%u <- bit %u", i, self->c.gp_width);
		EXPECT_EQ(-EIO, wr(self, MSR_A_PMC(i), 1ULL << 63));
		EXPECT_EQ(mask, rd(_metadata, self, MSR_A_PMC(i)));
		WR(MSR_A_PMC(i), 0x123456789aULL);
		EXPECT_EQ(0x123456789aULL, pmu_rdpmc(i));
	}
	/*
	 * The one after the last is absent; with 8 generic counters it lies
	 * past the legacy ranges' 8, outside the PMU (pmu-spec.md).
	 */
	if (self->c.nr_gp < 8) {
		EXPECT_EQ(-EIO, pmu_msr_read(self->msr, MSR_A_PMC(self->c.nr_gp), &v));
		EXPECT_EQ(-EIO, wr(self, MSR_A_PMC(self->c.nr_gp), 0));
	} else {
		TH_LOG("8 generic counters: no absent A_PMCx in the PMU's range");
	}
}

/* A write to IA32_FIXED_CTRx is masked to the width. */
TEST_F(emu, fixed_counter_write_is_masked_to_the_width)
{
	const uint64_t mask = pmu_width_mask(self->c.fixed_width);

	NEED_IDLE_PERF();
	WR(MSR_GLOBAL_CTRL, 0);
	WR(MSR_FIXED_CTR_CTRL, 0);
	for (unsigned int i = 0; i < self->c.nr_fixed; i++) {
		WR(MSR_FIXED_CTR(i), ~0ULL);
		EXPECT_EQ(mask, rd(_metadata, self, MSR_FIXED_CTR(i)));
		EXPECT_EQ(mask, pmu_rdpmc(RDPMC_FIXED | i));
		WR(MSR_FIXED_CTR(i), mask + 1);
		EXPECT_EQ(0ULL, rd(_metadata, self, MSR_FIXED_CTR(i)));
		WR(MSR_FIXED_CTR(i), 0x123456789aULL);
		EXPECT_EQ(0x123456789aULL, pmu_rdpmc(RDPMC_FIXED | i));
	}
}

/*
 * Preset to 2^w - 10 and enabled by a bare pwrite64 of GLOBAL_CTRL, the
 * counter reads A = 2^w - 7 (the mov, mov and rdpmc after the syscall),
 * then B = (A + 101) mod 2^w = 94 after the 100 instructions of the
 * window: it wrapped, and GLOBAL_STATUS has its bit.  The same run from
 * 2^w - 1000 does not wrap and leaves the bit clear.  A write of the bit
 * to GLOBAL_OVF_CTRL clears it.
 */
TEST_F(emu, counter_wraps_at_the_width_and_sets_its_global_status_bit)
{
	const struct ctr ks[] = {
		{ "PMC0 0x00c0 USR", false, 0, EV_INST_RETIRED | EVTSEL_USR },
		{ "fixed 0 USR", true, 0, FIXED_USR },
		{ "last PMC 0x00c0 USR", false, self->c.nr_gp - 1,
		  EV_INST_RETIRED | EVTSEL_USR },
	};
	struct win w = { 0 };
	uint64_t go;

	NEED_IDLE_PERF();
	for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		const struct ctr *k = &ks[i];
		uint64_t mask = ctr_mask(self, k), bit = ctr_bit(k);
		const uint64_t back[] = { 10, 1000 };

		for (size_t j = 0; j < 2; j++) {
			uint64_t preset = mask + 1 - back[j];
			uint64_t a = preset + ENABLE_BEFORE_A;
			uint64_t b = (a + ENABLE_A_TO_B) & mask;
			bool wraps = b < a;

			ctr_arm(_metadata, self, k, preset, true, false);
			WR(MSR_GLOBAL_OVF_CTRL, bit);
			EXPECT_EQ(0ULL, rd(_metadata, self, MSR_GLOBAL_STATUS) & bit);
			go = bit;
			w.ecx = ctr_ecx(k);
			w.arg[0] = self->msr;
			w.arg[1] = (uintptr_t)&go;
			w.arg[2] = MSR_GLOBAL_CTRL;
			win_enable_100(&w);
			EXPECT_EQ(8, (int64_t)w.ret);
			EXPECT_EQ(a, w.a) TH_LOG("%s from 2^%u - %llu: A %#llx, want %#llx",
						 k->name, self->c.gp_width,
						 (unsigned long long)back[j],
						 (unsigned long long)w.a,
						 (unsigned long long)a);
			EXPECT_EQ(b, w.b) TH_LOG("%s from 2^w - %llu: B %#llx, want %#llx",
						 k->name, (unsigned long long)back[j],
						 (unsigned long long)w.b,
						 (unsigned long long)b);
			WR(MSR_GLOBAL_CTRL, 0);
			EXPECT_EQ(wraps ? bit : 0,
				  rd(_metadata, self, MSR_GLOBAL_STATUS) & bit)
				TH_LOG("%s from 2^w - %llu: GLOBAL_STATUS %#llx",
				       k->name, (unsigned long long)back[j],
				       (unsigned long long)rd(_metadata, self, MSR_GLOBAL_STATUS));
			WR(MSR_GLOBAL_OVF_CTRL, bit);
			EXPECT_EQ(0ULL, rd(_metadata, self, MSR_GLOBAL_STATUS) & bit);
			ctr_disarm(_metadata, self, k);
		}
	}
}

/* ---- the register rules ---------------------------------------------------------- */

struct gp_case {
	const char *what;
	uint32_t msr;
	uint64_t val;
	bool read;		/* a read, else a write of @val */
	int line;
};
#define GP_W(what_, msr_, val_) \
	(struct gp_case){ .what = what_, .msr = msr_, .val = val_, .line = __LINE__ }
#define GP_R(what_, msr_) \
	(struct gp_case){ .what = what_, .msr = msr_, .read = true, .line = __LINE__ }

/* One past the highest fixed counter present (0: none). */
static unsigned int fixed_end(const struct pmu_caps *c)
{
	return c->fixed_mask ? 32 - __builtin_clz(c->fixed_mask) : 0;
}

/* Lowest bit outside @mask. */
static uint64_t bit_outside(uint64_t mask)
{
	return ~mask & -~mask;
}

/*
 * Reserved bits and absent registers raise #GP (EIO through msr.ko), and a
 * refused write changes nothing.
 */
TEST_F(emu, reserved_bits_and_absent_registers_raise_gp)
{
	const struct pmu_rig_model *m = self->c.rig;
	const unsigned int gp = self->c.nr_gp;
	const unsigned int fx = fixed_end(&self->c);
	struct gp_case t[56];
	unsigned int n = 0;

	NEED_IDLE_PERF();
	t[n++] = GP_W("PERFEVTSEL0 bit 32", MSR_EVTSEL(0), 1ULL << 32);
	t[n++] = GP_W("PERFEVTSEL0 bit 63", MSR_EVTSEL(0), 1ULL << 63);
	/* EQ and UMASK2 exist only where leaf 23H says so (v6, patch 0006) */
	t[n++] = GP_W("PERFEVTSEL0 bit 36 (EQ)", MSR_EVTSEL(0), 1ULL << 36);
	t[n++] = GP_W("PERFEVTSEL0 bit 40 (UMASK2)", MSR_EVTSEL(0), 1ULL << 40);
	/* With 8 the next lies past the legacy ranges, outside the PMU. */
	if (gp < 8) {
		t[n++] = GP_W("PERFEVTSEL[nr_gp] write", MSR_EVTSEL(gp), 0);
		t[n++] = GP_R("PERFEVTSEL[nr_gp] read", MSR_EVTSEL(gp));
		t[n++] = GP_W("PMC[nr_gp] write", MSR_PMC(gp), 0);
		t[n++] = GP_R("PMC[nr_gp] read", MSR_PMC(gp));
	}
	if (!(self->c.fixed_mask & (1U << 3))) {
		t[n++] = GP_W("FIXED_CTR3 write", MSR_FIXED_CTR(3), 0);
		t[n++] = GP_R("FIXED_CTR3 read", MSR_FIXED_CTR(3));
	}
	if (!self->c.any_thread) {
		/* AnyThread absent (v2) or deprecated (v5 EDX[15]): reserved. */
		t[n++] = GP_W("PERFEVTSEL0 AnyThread (bit 21)", MSR_EVTSEL(0),
			      EVTSEL_ANY);
		t[n++] = GP_W("FIXED_CTR_CTRL AnyThread of fixed counter 0",
			      MSR_FIXED_CTR_CTRL, FIXED_ANY);
	}
	if (!m || !m->nr_metrics) {
		t[n++] = GP_W("GLOBAL_CTRL bit 48 (PERF_METRICS absent)",
			      MSR_GLOBAL_CTRL, 1ULL << 48);
		if (self->c.version >= 5) {
			t[n++] = GP_R("PERF_METRICS read (absent)", MSR_PERF_METRICS);
			t[n++] = GP_W("PERF_METRICS write (absent)", MSR_PERF_METRICS, 0);
		}
	} else if (m->nr_metrics < 8) {
		t[n++] = GP_W("PERF_METRICS byte past the metrics",
			      MSR_PERF_METRICS, 1ULL << (8 * m->nr_metrics));
	}
	t[n++] = GP_W("FIXED_CTR_CTRL bit past the fixed counters",
		      MSR_FIXED_CTR_CTRL, 1ULL << (4 * fx));
	t[n++] = GP_W("FIXED_CTR_CTRL bit 63", MSR_FIXED_CTR_CTRL, 1ULL << 63);
	t[n++] = GP_W("GLOBAL_CTRL bit nr_gp", MSR_GLOBAL_CTRL, 1ULL << gp);
	t[n++] = GP_W("GLOBAL_CTRL bit 32 + nr_fixed", MSR_GLOBAL_CTRL,
		      1ULL << (32 + fx));
	t[n++] = GP_W("GLOBAL_CTRL bit 63", MSR_GLOBAL_CTRL, 1ULL << 63);
	t[n++] = GP_W("GLOBAL_STATUS write 0", MSR_GLOBAL_STATUS, 0);
	t[n++] = GP_W("GLOBAL_STATUS write bit 0", MSR_GLOBAL_STATUS, 1);
	t[n++] = GP_W("GLOBAL_OVF_CTRL bit 32 + nr_fixed", MSR_GLOBAL_OVF_CTRL,
		      1ULL << (32 + fx));
	t[n++] = GP_W("GLOBAL_OVF_CTRL bit 40", MSR_GLOBAL_OVF_CTRL, 1ULL << 40);
	t[n++] = GP_W("PERF_CAPABILITIES write", MSR_PERF_CAPABILITIES,
		      m ? m->perf_caps : 0);
	if (m) {
		const uint32_t aux[] = { MSR_OFFCORE_RSP0, MSR_OFFCORE_RSP1,
					 MSR_PEBS_LD_LAT, MSR_PEBS_FRONTEND };
		const uint64_t mask[] = { m->rsp_mask[0], m->rsp_mask[1],
					  m->ldlat_mask, m->frontend_mask };
		static const char *const name[] = {
			"OFFCORE_RSP_0", "OFFCORE_RSP_1", "PEBS_LD_LAT", "PEBS_FRONTEND"
		};

		for (size_t i = 0; i < 4; i++) {
			if (mask[i]) {
				t[n++] = GP_W(name[i], aux[i], bit_outside(mask[i]));
				t[n++] = GP_W(name[i], aux[i], 1ULL << 63);
			} else {
				t[n++] = GP_R(name[i], aux[i]);
				t[n++] = GP_W(name[i], aux[i], 0);
			}
		}
		if (!m->perf_caps) {
			t[n++] = GP_R("PERF_CAPABILITIES read (absent)",
				      MSR_PERF_CAPABILITIES);
			t[n++] = GP_R("A_PMC0 read (absent)", MSR_A_PMC(0));
		}
	}
	ASSERT_GE(sizeof(t) / sizeof(t[0]), n);

	for (unsigned int i = 0; i < n; i++) {
		uint64_t before = 0, after = 0, v = 0;
		bool readable = !pmu_msr_read(self->msr, t[i].msr, &before);
		int ret;

		if (t[i].read) {
			ret = pmu_msr_read(self->msr, t[i].msr, &v);
			EXPECT_EQ(-EIO, ret) TH_LOG("line %d: rdmsr %#x (%s): %s, value %#llx, want #GP",
						    t[i].line, t[i].msr, t[i].what,
						    ret ? strerror(-ret) : "no fault",
						    (unsigned long long)v);
			continue;
		}
		ret = wr(self, t[i].msr, t[i].val);
		EXPECT_EQ(-EIO, ret) TH_LOG("line %d: wrmsr %#x <- %#llx (%s): %s, want #GP",
					    t[i].line, t[i].msr,
					    (unsigned long long)t[i].val, t[i].what,
					    ret ? strerror(-ret) : "no fault");
		if (readable && t[i].msr != MSR_GLOBAL_STATUS) {
			EXPECT_EQ(0, pmu_msr_read(self->msr, t[i].msr, &after));
			EXPECT_EQ(before, after) TH_LOG("line %d: %s changed %#llx -> %#llx",
							t[i].line, t[i].what,
							(unsigned long long)before,
							(unsigned long long)after);
		}
	}
}

/*
 * What the rules allow is taken and reads back: AnyThread (v3+) in
 * PERFEVTSEL, every nibble bit of the fixed counters, every counter bit of
 * GLOBAL_CTRL, GLOBAL_OVF_CTRL's counter bits, 55 and 58-63, and the
 * auxiliary registers' masks.  Nothing counts meanwhile: EN and the
 * enables are never set together.
 */
TEST_F(emu, valid_values_are_taken_and_read_back)
{
	const struct pmu_rig_model *m = self->c.rig;
	const uint64_t counters = ((1ULL << self->c.nr_gp) - 1) |
				  ((uint64_t)self->c.fixed_mask << 32);
	const uint64_t evtsel = EV_INST_RETIRED | EVTSEL_USR | EVTSEL_OS |
				(self->c.any_thread ? EVTSEL_ANY : 0) |
				EVTSEL_INV | EVTSEL_CMASK(0xff);
	uint64_t nibbles = 0;

	/* Each present counter's nibble; AnyThread only where it exists. */
	for (unsigned int i = 0; i < 32; i++)
		if (self->c.fixed_mask & (1U << i))
			nibbles |= FIXED_NIBBLE(i, self->c.any_thread ? 0xf : 0xb);
	NEED_IDLE_PERF();
	WR(MSR_GLOBAL_CTRL, 0);
	for (unsigned int i = 0; i < self->c.nr_gp; i++)
		WR(MSR_EVTSEL(i), 0);
	WR(MSR_EVTSEL(0), evtsel);
	EXPECT_EQ(evtsel, rd(_metadata, self, MSR_EVTSEL(0)));
	WR(MSR_EVTSEL(0), 0);
	/* Every enable and PMI bit, but GLOBAL_CTRL is 0: nothing counts or interrupts. */
	WR(MSR_FIXED_CTR_CTRL, nibbles & ~0x8888888888888888ULL);
	EXPECT_EQ(nibbles & ~0x8888888888888888ULL,
		  rd(_metadata, self, MSR_FIXED_CTR_CTRL));
	WR(MSR_FIXED_CTR_CTRL, 0);
	WR(MSR_GLOBAL_CTRL, counters);
	EXPECT_EQ(counters, rd(_metadata, self, MSR_GLOBAL_CTRL));
	WR(MSR_GLOBAL_CTRL, 0);
	WR(MSR_GLOBAL_OVF_CTRL, counters | 1ULL << 55 | 0xfcULL << 56);
	EXPECT_EQ(0ULL, rd(_metadata, self, MSR_GLOBAL_STATUS) & counters);
	if (!m)
		return;
	{
		const uint32_t aux[] = { MSR_OFFCORE_RSP0, MSR_OFFCORE_RSP1,
					 MSR_PEBS_LD_LAT, MSR_PEBS_FRONTEND };
		const uint64_t mask[] = { m->rsp_mask[0], m->rsp_mask[1],
					  m->ldlat_mask, m->frontend_mask };

		for (size_t i = 0; i < 4; i++) {
			if (!mask[i])
				continue;
			WR(aux[i], mask[i]);
			EXPECT_EQ(mask[i], rd(_metadata, self, aux[i]))
				TH_LOG("MSR %#x", aux[i]);
			WR(aux[i], mask[i] & 0x5555555555555555ULL);
			EXPECT_EQ(mask[i] & 0x5555555555555555ULL,
				  rd(_metadata, self, aux[i]));
			WR(aux[i], 0);
			EXPECT_EQ(0ULL, rd(_metadata, self, aux[i]));
		}
	}
}

/* ---- rdpmc ------------------------------------------------------------------------ */

/* rdpmc(@ecx) in a child on CPU: 0 if it ran, else the signal that killed it. */
static int rdpmc_in_child(uint32_t ecx)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		pmu_rdpmc(ecx);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return pmu_child_status(status);
}

/*
 * rdpmc raises #GP (SIGSEGV) for a counter that does not exist (PMC
 * nr_gp, fixed counter 3 where absent, the fixed counter past the last)
 * and for any ECX bit but 30 and the index (bit 31, the old "fast
 * read"); bit 29 alone reads PERF_METRICS where the model has it, else
 * faults too; the counters that exist read.
 * Read-only: runs with the watchdog on too.
 */
TEST_F(emu, rdpmc_raises_gp_for_a_bad_ecx)
{
	const struct { uint32_t ecx; int sig; } p[] = {
		{ 0, 0 },
		{ self->c.nr_gp - 1, 0 },
		{ RDPMC_FIXED | 0, 0 },
		{ RDPMC_FIXED | (self->c.nr_fixed - 1), 0 },
		{ self->c.nr_gp, SIGSEGV },
		{ 31, SIGSEGV },
		{ RDPMC_FIXED | 3, self->c.fixed_mask & (1U << 3) ? 0 : SIGSEGV },
		{ RDPMC_FIXED | fixed_end(&self->c), SIGSEGV },
		{ 1U << 31, SIGSEGV },
		{ 1U << 31 | RDPMC_FIXED, SIGSEGV },
		{ RDPMC_METRICS, self->c.rig && self->c.rig->nr_metrics ? 0 : SIGSEGV },
		{ RDPMC_METRICS | 1, SIGSEGV },
		{ 1U << 16, SIGSEGV },
	};

	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
		int got = rdpmc_in_child(p[i].ecx);

		EXPECT_EQ(p[i].sig, got) TH_LOG("rdpmc ECX %#x: %s, want %s", p[i].ecx,
						got ? strsignal(got) : "ran",
						p[i].sig ? strsignal(p[i].sig) : "ran");
	}
}

/*
 * The sysfs rdpmc file decides CR4.PCE for a process without a perf mmap:
 * 0 (never) and 1 (perf's default: only mms with a perf mmap) make rdpmc
 * #GP (SIGSEGV), 2 (always) lets it run.  Each probe is a new process, so
 * the switch to its mm re-evaluates CR4.PCE.
 */
TEST_F(emu, rdpmc_follows_the_sysfs_rdpmc_file)
{
	const struct { const char *val; int sig; } p[] = {
		{ "0", SIGSEGV }, { "1", SIGSEGV }, { "2", 0 },
		{ "0", SIGSEGV }, { "2", 0 },
	};

	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
		int got;

		ASSERT_EQ(0, pmu_knob_set(&self->rdpmc, RDPMC_SYSFS, p[i].val));
		got = rdpmc_in_child(0);
		EXPECT_EQ(p[i].sig, got) TH_LOG("rdpmc=%s: %s, want %s", p[i].val,
						got ? strsignal(got) : "ran",
						p[i].sig ? strsignal(p[i].sig) : "ran");
	}
}

/*
 * After every #GP above, QEMU and the guest are alive and the counters
 * still count exactly.
 */
TEST_F(emu, still_counts_exactly_after_the_faults)
{
	const struct ctr ks[] = { USR_INST(self) };
	struct win w = { 0 };

	NEED_IDLE_PERF();
	for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++)
		expect_exact(_metadata, self, &ks[i], win_nops_100, &w,
			     WIN_DELTA(100), RUNS, "100 nops");
}

/* ---- the end ------------------------------------------------------------------------- */

/*
 * The control registers of CPU 0 as main() found them, before any test:
 * the last test compares.  (Counters are not compared: with rdpmc=2 the
 * first switch to another mm zeroes those perf used before, FACTS 6.)
 */
#define MAX_FOUND	24
static struct found {
	uint32_t msr;
	int ret;
	uint64_t val;
} found[MAX_FOUND];
static unsigned int nfound;

static void found_add(uint32_t msr)
{
	if (nfound < MAX_FOUND)
		found[nfound++].msr = msr;
}

static void found_snapshot(void)
{
	struct pmu_caps c;
	int fd;

	pmu_caps_read(&c);
	for (unsigned int i = 0; i < c.nr_gp && i < 8; i++)
		found_add(MSR_EVTSEL(i));
	found_add(MSR_FIXED_CTR_CTRL);
	found_add(MSR_GLOBAL_CTRL);
	found_add(MSR_GLOBAL_STATUS);
	found_add(MSR_OFFCORE_RSP0);
	found_add(MSR_OFFCORE_RSP1);
	found_add(MSR_PEBS_LD_LAT);
	found_add(MSR_PEBS_FRONTEND);
	if (pmu_pin(CPU))
		return;
	fd = pmu_msr_open(CPU);
	for (unsigned int i = 0; i < nfound; i++)
		found[i].ret = fd < 0 ? fd : pmu_msr_read(fd, found[i].msr, &found[i].val);
	if (fd >= 0)
		close(fd);
}

/* Every control register, GLOBAL_STATUS included, is as main() found it. */
TEST_F(emu, control_registers_are_left_as_found)
{
	NEED_IDLE_PERF();
	ASSERT_LT(0U, nfound);
	for (unsigned int i = 0; i < nfound; i++) {
		uint64_t v = 0;
		int ret = pmu_msr_read(self->msr, found[i].msr, &v);

		EXPECT_EQ(found[i].ret, ret) TH_LOG("MSR %#x", found[i].msr);
		if (!ret && !found[i].ret)
			EXPECT_EQ(found[i].val, v) TH_LOG("MSR %#x: found %#llx, left %#llx",
							  found[i].msr,
							  (unsigned long long)found[i].val,
							  (unsigned long long)v);
	}
}

/* The harness's main, preceded by the one SKIP for a machine without the emulation. */
PMU_TEST_MAIN(true, found_snapshot())
