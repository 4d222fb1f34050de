/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the hardware selftests (selftests/hw/): the tests that prove,
 * on a machine with a real Intel PMU and pmuctl.ko loaded, that pmuctl
 * counts truly.  Everywhere else every test is a SKIP with its reason,
 * decided at the top of the test body (the 6.1 harness runs the body even
 * after a SKIP in FIXTURE_SETUP):
 *
 *   no /dev/pmuctl             "pmuctl.ko not loaded"
 *   PMUCTL_BACKEND_MODEL       "register model: no real counts"
 *   perf holds the counters    PMUCTL_R_PERF_BUSY's text (nmi_watchdog)
 *   rdpmc not granted          the exact tests read with rdpmc
 *   the CPU lacks a feature    named by the test (no fixed counter 2, no
 *                              AnyThread, no OFFCORE_RSP MSRs, ...)
 *
 * On the emulated PMU (QEMU under TCG with pmuctl's patch, hw_emulated())
 * pmuctl.ko drives real registers through its MSR backend, so the tests
 * run: instructions retired are exact there, and a test whose semantics
 * the emulation provides must pass, exactly where silicon needs slack.
 * What it does not provide (real cycles, SMT, offcore traffic, CMASK,
 * INV and EDGE, which count 0) makes a test SKIP with
 * HW_SKIP_IF_EMULATED(), naming the emulation and what it lacks.
 *
 * Everything goes through libpmuctl: sessions with pmuctl_open(), groups
 * placed with pmuctl_program_cpu() (the thread pinned to the CPU it
 * reads), counters read by the library's inline rdpmc path
 * (pmuctl_read_counters_serialized()) and by PMUCTL_IOC_READ
 * (pmuctl_read_values()); offcore events by their libpfm4 names.
 *
 * The macros at the end expand inside kselftest_harness.h test bodies:
 * include the harness first.
 */
#ifndef PMUCTL_SELFTESTS_HW_H
#define PMUCTL_SELFTESTS_HW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libpmuctl.h"

/* PERFEVTSEL fields, short names for tables (uapi/linux/pmuctl.h). */
#define USR		PMUCTL_CFG_USR
#define OS		PMUCTL_CFG_OS
#define EDGE		PMUCTL_CFG_EDGE
#define ANY		PMUCTL_CFG_ANY
#define INV		PMUCTL_CFG_INV
#define CMASK(n)	((uint64_t)(n) << PMUCTL_CFG_CMASK_SHIFT)
#define GONLY		PMUCTL_EVENT_GENERIC_ONLY
#define FIXED(i)	(PMUCTL_COUNTER_FIXED | (i))

/* Architectural events (SDM vol. 3B, Table 20-1; FACTS 1). */
#define EV_INST		0x00c0	/* INST_RETIRED.ANY: fixed counter 0 */
#define EV_CYCLES	0x003c	/* CPU_CLK_UNHALTED.THREAD: fixed counter 1 */
#define EV_REF_TSC	0x0300	/* CPU_CLK_UNHALTED.REF_TSC: fixed counter 2 only */
#define EV_BRANCHES	0x00c4	/* BR_INST_RETIRED.ALL_BRANCHES */

#define MSR_OFFCORE_RSP0	0x1a6U
#define MSR_OFFCORE_RSP1	0x1a7U
/* FACTS 1: legacy generic counters (low 32 bits written, sign-extended), fixed. */
#define MSR_IA32_PMC0		0xc1U
#define MSR_IA32_FIXED_CTR0	0x309U

/* hw_open(), hw_program(): the test cannot run here; *why says why. */
#define HW_SKIP		1

/* hw_program() flags */
#define HW_NEED_RDPMC	(1U << 0)	/* skip unless rdpmc runs on the PMU */

/*
 * Open a session for a hardware test: 0; HW_SKIP when there is no device,
 * no permission or no real PMU behind it (the register model); -errno for
 * a failure that is one (a module of another ABI version, ...).  @why gets
 * one line either way.
 */
int hw_open(struct pmuctl **p, char *why, size_t len);

/*
 * Pin the calling thread to @cpu (-1: where it runs now) and program @ev
 * there: 0 with *@cpu_out set; HW_SKIP when perf holds the counters
 * (PERF_BUSY: the NMI watchdog) or, with HW_NEED_RDPMC, when the module
 * did not grant rdpmc on the PMU; -errno with the rule in @why.
 */
int hw_program(struct pmuctl *p, int cpu, struct pmuctl_event *ev,
	       unsigned int nr, unsigned int flags, int *cpu_out,
	       char *why, size_t len);

struct pmuctl_event hw_event(uint64_t config, uint64_t extra, uint32_t flags);

/*
 * An event by its libpfm4 name, resolved by the PMU of the session's model
 * (pmuctl_pfm_pmu_name()): 0, or -errno with libpfm4's message in @why.
 */
int hw_event_named(const struct pmuctl *p, const char *name,
		   struct pmuctl_event *ev, char *why, size_t len);

/* ---- the emulated PMU ------------------------------------------------- */

/*
 * The emulated PMU: QEMU under TCG with pmuctl's patch (scripts/vm/qemu/),
 * told by its CPUID (emulated.h), checked once.  Its contract: instructions
 * retired are exact (fixed counter 0, 0x00c0), user and kernel mode apart,
 * with no interrupt overcount; core cycles and REF_TSC are synthetic (equal
 * to instructions); branches (0x00c4) exact if implemented, else 0; any
 * event with CMASK, INV or EDGE and every other event count 0; each vCPU
 * counts alone (no SMT); the OFFCORE_RSP MSRs hold values, nothing counts
 * them.
 */
bool hw_emulated(void);

/* How a SKIP names it. */
#define HW_EMULATED_NAME	"emulated PMU (QEMU TCG, scripts/vm/qemu/)"

/*
 * Write @val to MSR @msr of @cpu through the msr driver (/dev/cpu/N/msr,
 * msr.ko loaded with allow_writes=on): 0, or -errno (-ENOENT: no such
 * device, the driver is not loaded).
 */
int hw_msr_write(int cpu, uint32_t msr, uint64_t val);

/* ---- time ------------------------------------------------------------- */

static inline uint64_t hw_rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("lfence\n\trdtsc\n\tlfence"
			     : "=a"(lo), "=d"(hi) :: "memory");
	return (uint64_t)hi << 32 | lo;
}

uint64_t hw_now_ns(void);		/* CLOCK_MONOTONIC_RAW */

/* Spin (never sleep: a halted CPU counts no cycles) for @ns. */
void hw_spin_ns(uint64_t ns);

/* ---- known-count code --------------------------------------------------- */

/*
 * hw_nop_loop(): @iters iterations of HW_NOP_LOOP_INSNS instructions
 * (8 nop, dec, jnz), nothing else.
 * hw_branch_loop(): @iters iterations of 4 dependent imul, dec and jnz:
 * exactly one branch per iteration, and iterations at least four imul
 * latencies apart, so no two of its branches retire in the same cycle.
 * Both are inline asm, so the compiler adds nothing to the counts.
 */
#define HW_NOP_LOOP_INSNS	10

static inline __attribute__((always_inline)) void hw_nop_loop(uint64_t iters)
{
	__asm__ __volatile__("1:\n\t"
			     ".rept 8\n\tnop\n\t.endr\n\t"
			     "dec %0\n\t"
			     "jnz 1b"
			     : "+r"(iters) :: "cc", "memory");
}

static inline __attribute__((always_inline)) void hw_branch_loop(uint64_t iters)
{
	uint64_t x = 3;

	__asm__ __volatile__("1:\n\t"
			     "imul %1, %1\n\t"
			     "imul %1, %1\n\t"
			     "imul %1, %1\n\t"
			     "imul %1, %1\n\t"
			     "dec %0\n\t"
			     "jnz 1b"
			     : "+r"(iters), "+r"(x) :: "cc", "memory");
}

/* ---- memory --------------------------------------------------------------- */

#define HW_LINE		64

/* @size bytes, 2 MiB aligned, transparent huge pages asked for, touched. */
void *hw_buf_alloc(size_t size);
void hw_buf_free(void *buf, size_t size);

/* Read one word of every line of @buf in address order: a memory stream. */
uint64_t hw_stream(const void *buf, size_t size);

/*
 * Link the lines of @buf into one cycle in a random order (Sattolo's
 * algorithm, fixed seed): each step of hw_chase() loads the next line's
 * address from the current one, so the loads cannot overlap and no
 * prefetcher can guess them.  Returns the first node.
 */
void *hw_chase_build(void *buf, size_t size);
void *hw_chase(void *node, uint64_t steps);

/* ---- the machine ----------------------------------------------------------- */

void hw_cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4]);
/* Another online CPU of @cpu's core (an SMT sibling), or -1. */
int hw_smt_sibling(int cpu);
/* A file holding one unsigned number: 0 or -errno. */
int hw_read_u64(const char *path, uint64_t *v);
/* The first line of a file, newline removed: 0 or -errno. */
int hw_read_line(const char *path, char *buf, size_t len);
int hw_write_str(const char *path, const char *s);	/* 0 or -errno */
/* Does the kernel log (what is left of it) contain @needle? */
bool hw_kmsg_has(const char *needle);

/* ---- statistics --------------------------------------------------------------- */

uint64_t hw_median(uint64_t *v, unsigned int n);	/* sorts @v */

/* ---- in test bodies -------------------------------------------------------------- */

/* Open *@pp or SKIP with the reason. */
#define HW_OPEN(pp) do {						\
	char __why[256];						\
	int __r = hw_open((pp), __why, sizeof(__why));			\
									\
	if (__r == HW_SKIP)						\
		SKIP(return, "%s", __why);				\
	ASSERT_EQ(0, __r) TH_LOG("%s", __why);				\
} while (0)

/* Program @n events of @ev on @cpu (-1: here), set @cpu_out, or SKIP. */
#define HW_PROGRAM(p, cpu, ev, n, flags, cpu_out) do {		\
	char __why[256];						\
	int __r = hw_program((p), (cpu), (ev), (n), (flags), (cpu_out), \
			     __why, sizeof(__why));			\
									\
	if (__r == HW_SKIP)						\
		SKIP(return, "%s", __why);				\
	ASSERT_EQ(0, __r) TH_LOG("%s", __why);				\
} while (0)

/* *@ev = the event named @name for @p's PMU, or fail. */
#define HW_NAMED(p, name, ev) do {					\
	char __why[256];						\
	int __r = hw_event_named((p), (name), (ev), __why, sizeof(__why)); \
									\
	ASSERT_EQ(0, __r) TH_LOG("%s: %s", (name), __why);		\
} while (0)

/* SKIP, naming the emulation, when the PMU is the emulated one. */
#define HW_SKIP_IF_EMULATED(fmt, ...) do {				\
	if (hw_emulated())						\
		SKIP(return, HW_EMULATED_NAME ": " fmt, ##__VA_ARGS__);	\
} while (0)

#define EXPECT_U64(want, got)	EXPECT_EQ((uint64_t)(want), (uint64_t)(got))
#define ASSERT_U64(want, got)	ASSERT_EQ((uint64_t)(want), (uint64_t)(got))

#endif /* PMUCTL_SELFTESTS_HW_H */
