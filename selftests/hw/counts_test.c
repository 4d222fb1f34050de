// SPDX-License-Identifier: GPL-2.0
/*
 * Counts on silicon: code whose event counts are known, measured through
 * libpmuctl's inline rdpmc path on the CPU the test is pinned to.
 *
 * Counters count per CPU, not per thread: whatever else runs on the CPU
 * during a window is counted too, and an interrupt can add one user-mode
 * instruction to the interrupted program's count (Weaver and McKee,
 * "Non-Determinism and Overcount on Modern Hardware Performance Counter
 * Implementations", ISPASS 2013).  So each measurement is repeated and the
 * smallest count is kept: the one window nothing disturbed.
 *
 * On the emulated PMU (hw.h) instructions retired are exact, with no
 * interrupt overcount: there the slack silicon needs is zero.  Its cycles
 * are synthetic, it has no SMT and CMASK, INV and EDGE count 0, so the
 * tests of those SKIP there, saying so.
 *
 * Each test SKIPs with its reason without a real PMU (hw.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "hw.h"

/*
 * The known loop: N iterations of HW_NOP_LOOP_INSNS instructions.  Between
 * the two reads the read path itself retires a few instructions (per
 * counter: load ECX, rdpmc, two stores; then lfence, the loop counter's
 * move): about 15 for two counters at -O2.  READ_PATH_MAX bounds them with
 * room for another compiler's choices; the difference of two loop sizes
 * cancels them and must be exact.
 */
#define N_SHORT		1000ULL
#define N_LONG		101000ULL
#define RUNS		11
#define READ_PATH_MAX	64
/*
 * Where rdpmc samples next to the fences around it, one interrupt's
 * overcount: silicon's slack.  The emulated PMU counts every instruction
 * exactly where it retires and adds none for interrupts: none there.
 */
#define EXACT_SLACK	2

static uint64_t exact_slack(void)
{
	return hw_emulated() ? 0 : EXACT_SLACK;
}

FIXTURE(hw) {
	struct pmuctl *p;
};

FIXTURE_SETUP(hw)
{
}

FIXTURE_TEARDOWN(hw)
{
	pmuctl_close(self->p);
}

/* Deltas of the first two events over hw_nop_loop(@iters). */
static void __attribute__((noinline, noclone))
measure_nops2(const struct pmuctl_counters *c, uint64_t iters, uint64_t d[2])
{
	uint64_t b[2], a[2];

	pmuctl_read_counters_serialized(c, b, 2);
	hw_nop_loop(iters);
	pmuctl_read_counters_serialized(c, a, 2);
	pmuctl_deltas(c, b, a, d, 2);
}

/* Deltas of the first four events over hw_nop_loop(@iters). */
static void __attribute__((noinline, noclone))
measure_nops4(const struct pmuctl_counters *c, uint64_t iters, uint64_t d[4])
{
	uint64_t b[4], a[4];

	pmuctl_read_counters_serialized(c, b, 4);
	hw_nop_loop(iters);
	pmuctl_read_counters_serialized(c, a, 4);
	pmuctl_deltas(c, b, a, d, 4);
}

/* Deltas of the first three events over hw_branch_loop(@iters). */
static void __attribute__((noinline, noclone))
measure_branches3(const struct pmuctl_counters *c, uint64_t iters, uint64_t d[3])
{
	uint64_t b[3], a[3];

	pmuctl_read_counters_serialized(c, b, 3);
	hw_branch_loop(iters);
	pmuctl_read_counters_serialized(c, a, 3);
	pmuctl_deltas(c, b, a, d, 3);
}

/*
 * INST_RETIRED in user mode on fixed counter 0 (event 0) and on a generic
 * counter (event 1) over both loop sizes, RUNS times each, interleaved.
 * For each size: the smallest fixed count, and the generic count of that
 * same window.
 */
struct inst {
	uint64_t fixed[2], generic[2];
};

static void inst_measure(const struct pmuctl_counters *c, struct inst *r)
{
	const uint64_t n[2] = { N_SHORT, N_LONG };

	for (int s = 0; s < 2; s++)
		r->fixed[s] = UINT64_MAX;
	for (int run = 0; run < RUNS; run++) {
		for (int s = 0; s < 2; s++) {
			uint64_t d[2];

			measure_nops2(c, n[s], d);
			if (d[0] < r->fixed[s]) {
				r->fixed[s] = d[0];
				r->generic[s] = d[1];
			}
		}
	}
}

#define REQUIRE_FIXED(info, i) do {					\
	if (!((info)->caps.fixed_mask & (1U << (i))))			\
		SKIP(return, "this PMU has no fixed counter %d", (i));	\
} while (0)

#define REQUIRE_GP(info, n) do {					\
	if ((info)->caps.nr_gp < (n))					\
		SKIP(return, "this PMU has %u generic counters, the test needs %u", \
		     (info)->caps.nr_gp, (n));				\
} while (0)

#define REQUIRE_ARCH_EVENT(info, bit, name) do {			\
	if ((info)->caps.events_unavailable & (1U << (bit)))		\
		SKIP(return, "CPUID.0AH:EBX marks %s unavailable", (name)); \
} while (0)

/* Program INST_RETIRED user mode on fixed counter 0 and on a generic one. */
#define INST_PROGRAM(self, info) do {					\
	struct pmuctl_event ev[2] = {					\
		hw_event(EV_INST | USR, 0, 0),				\
		hw_event(EV_INST | USR, 0, GONLY),			\
	};								\
	int cpu;							\
									\
	HW_OPEN(&self->p);						\
	info = pmuctl_get_info(self->p);				\
	REQUIRE_FIXED(info, 0);						\
	REQUIRE_ARCH_EVENT(info, PMUCTL_ARCH_INST_RETIRED, "INST_RETIRED"); \
	HW_PROGRAM(self->p, -1, ev, 2, HW_NEED_RDPMC, &cpu);		\
	ASSERT_U64(FIXED(0), ev[0].counter);				\
	ASSERT_EQ(0, pmuctl_start(self->p));				\
} while (0)

/*
 * The loop's instructions, N * 10, plus at most the read path's own:
 * exact up to READ_PATH_MAX; the difference of the two sizes exact up to
 * exact_slack() (none on the emulated PMU).  On fixed counter 0 and on
 * generic 0x00c0 alike.
 */
TEST_F(hw, inst_retired_counts_a_known_loop_exactly)
{
	const struct pmuctl_info *info;
	const uint64_t n[2] = { N_SHORT, N_LONG };
	const uint64_t k = HW_NOP_LOOP_INSNS;
	const uint64_t slack = exact_slack();
	struct inst r;
	uint64_t want, got;

	INST_PROGRAM(self, info);
	inst_measure(pmuctl_get_counters(self->p), &r);

	for (int s = 0; s < 2; s++) {
		uint64_t lo = n[s] * k, hi = n[s] * k + READ_PATH_MAX;

		EXPECT_TRUE(r.fixed[s] >= lo && r.fixed[s] <= hi)
			TH_LOG("fixed 0: %llu instructions for %llu, want %llu..%llu",
			       (unsigned long long)r.fixed[s],
			       (unsigned long long)n[s], (unsigned long long)lo,
			       (unsigned long long)hi);
		EXPECT_TRUE(r.generic[s] >= lo && r.generic[s] <= hi)
			TH_LOG("generic: %llu instructions for %llu, want %llu..%llu",
			       (unsigned long long)r.generic[s],
			       (unsigned long long)n[s], (unsigned long long)lo,
			       (unsigned long long)hi);
	}
	want = (N_LONG - N_SHORT) * k;
	got = r.fixed[1] - r.fixed[0];
	EXPECT_TRUE(got + slack >= want && got <= want + slack)
		TH_LOG("fixed 0: %llu more instructions for %llu more iterations, want %llu +-%llu",
		       (unsigned long long)got,
		       (unsigned long long)(N_LONG - N_SHORT),
		       (unsigned long long)want, (unsigned long long)slack);
	got = r.generic[1] - r.generic[0];
	EXPECT_TRUE(got + slack >= want && got <= want + slack)
		TH_LOG("generic: %llu more instructions for %llu more iterations, want %llu +-%llu",
		       (unsigned long long)got,
		       (unsigned long long)(N_LONG - N_SHORT),
		       (unsigned long long)want, (unsigned long long)slack);
	TH_LOG("fixed 0: %llu and %llu, generic: %llu and %llu for %llu and %llu iterations",
	       (unsigned long long)r.fixed[0], (unsigned long long)r.fixed[1],
	       (unsigned long long)r.generic[0], (unsigned long long)r.generic[1],
	       N_SHORT, N_LONG);
}

/*
 * Fixed counter 0 and generic 0x00c0 over the same window: both reads
 * read them in the same order, so their windows hold the same
 * instructions and the counts must agree up to exact_slack() (exactly on
 * the emulated PMU, where rdpmc counts every instruction before it).
 */
TEST_F(hw, fixed_and_generic_inst_retired_agree)
{
	const struct pmuctl_info *info;
	const uint64_t slack = exact_slack();
	struct inst r;

	INST_PROGRAM(self, info);
	inst_measure(pmuctl_get_counters(self->p), &r);

	/* The premise: the loop was counted at all. */
	ASSERT_TRUE(r.fixed[1] >= N_LONG * HW_NOP_LOOP_INSNS)
		TH_LOG("fixed 0 counted %llu for a loop of %llu",
		       (unsigned long long)r.fixed[1],
		       N_LONG * HW_NOP_LOOP_INSNS);
	for (int s = 0; s < 2; s++) {
		uint64_t f = r.fixed[s], g = r.generic[s];

		EXPECT_TRUE(f <= g + slack && g <= f + slack)
			TH_LOG("fixed 0 counted %llu, generic %llu in one window, want +-%llu",
			       (unsigned long long)f, (unsigned long long)g,
			       (unsigned long long)slack);
	}
}

/* ---- cycles against the TSC ---------------------------------------------- */

/* scaling_driver reports cpuinfo_max_freq as the real maximum (turbo). */
static bool driver_reports_turbo(int cpu)
{
	char path[128], drv[64];

	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_driver", cpu);
	if (hw_read_line(path, drv, sizeof(drv)))
		return false;
	/* acpi-cpufreq shows turbo as base + 1 MHz: no maximum there. */
	return !strcmp(drv, "intel_pstate") || !strcmp(drv, "intel_cpufreq");
}

/*
 * The frequency range the CPU may run at, in Hz, 0 where unknown: the
 * lowest from cpufreq's cpuinfo_min_freq; the highest from CPUID.16H:EBX
 * (maximum frequency in MHz, Skylake and later), else from cpufreq when
 * its driver knows turbo.
 */
static void freq_range(int cpu, double *lo, double *hi, const char **src)
{
	char path[128];
	uint32_t r[4];
	uint64_t khz;

	*lo = *hi = 0;
	*src = "nothing";
	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/cpufreq/cpuinfo_min_freq", cpu);
	if (!hw_read_u64(path, &khz))
		*lo = khz * 1e3;
	hw_cpuid(0, 0, r);
	if (r[0] >= 0x16) {
		hw_cpuid(0x16, 0, r);
		if (r[1] & 0xffff) {
			*hi = (r[1] & 0xffff) * 1e6;
			*src = "CPUID.16H";
		}
	}
	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/cpufreq/cpuinfo_max_freq", cpu);
	if (!*hi && driver_reports_turbo(cpu) && !hw_read_u64(path, &khz)) {
		*hi = khz * 1e3;
		*src = "cpufreq";
	}
}

/* How long the cycles test spins: long enough that the reads are noise. */
#define SPIN_NS		100000000ULL

/*
 * A CPU spinning for 100 ms: REF_TSC ticks at the TSC's rate while the
 * core is not halted (SDM vol. 3B, fixed counter 2), and a spinning CPU
 * is never halted, so REF_TSC / TSC is 1 (0.95..1.01: a moment of
 * another task blocking, the reads' own skew).  Core cycles / REF_TSC is
 * the core's frequency over the TSC's: the frequency it gives must lie in
 * the CPU's range (cpufreq's minimum, CPUID.16H's or cpufreq's maximum),
 * with 5% for rounding of the published figures.  The emulated PMU's
 * cycles and REF_TSC are instructions retired, whatever the time: SKIP.
 */
TEST_F(hw, cycles_and_ref_tsc_keep_pace_with_the_tsc)
{
	struct pmuctl_event ev[2] = {
		hw_event(EV_CYCLES | USR | OS, 0, 0),
		hw_event(EV_REF_TSC | USR | OS, 0, 0),
	};
	const struct pmuctl_info *info;
	const struct pmuctl_counters *c;
	uint64_t b[2], a[2], d[2], t0, t1, tsc0, tsc1;
	double tsc_hz, ref_per_tsc, hz, lo, hi;
	const char *src;
	int cpu;

	HW_OPEN(&self->p);
	HW_SKIP_IF_EMULATED("core cycles and REF_TSC are synthetic (= instructions retired), not checked against the TSC");
	info = pmuctl_get_info(self->p);
	REQUIRE_FIXED(info, 1);
	REQUIRE_FIXED(info, 2);
	HW_PROGRAM(self->p, -1, ev, 2, HW_NEED_RDPMC, &cpu);
	c = pmuctl_get_counters(self->p);
	ASSERT_EQ(0, pmuctl_start(self->p));

	t0 = hw_now_ns();
	tsc0 = hw_rdtsc();
	pmuctl_read_counters_serialized(c, b, 2);
	hw_spin_ns(SPIN_NS);
	pmuctl_read_counters_serialized(c, a, 2);
	tsc1 = hw_rdtsc();
	t1 = hw_now_ns();
	pmuctl_deltas(c, b, a, d, 2);

	ASSERT_TRUE(d[0] > 0 && d[1] > 0)
		TH_LOG("cycles %llu, REF_TSC %llu", (unsigned long long)d[0],
		       (unsigned long long)d[1]);
	tsc_hz = (double)(tsc1 - tsc0) * 1e9 / (double)(t1 - t0);
	ref_per_tsc = (double)d[1] / (double)(tsc1 - tsc0);
	hz = (double)d[0] / (double)d[1] * tsc_hz;
	freq_range(cpu, &lo, &hi, &src);
	TH_LOG("TSC %.0f MHz, REF_TSC/TSC %.4f, core %.0f MHz (range %.0f..%.0f MHz from cpufreq and %s)",
	       tsc_hz / 1e6, ref_per_tsc, hz / 1e6, lo / 1e6, hi / 1e6, src);

	EXPECT_TRUE(ref_per_tsc >= 0.95 && ref_per_tsc <= 1.01)
		TH_LOG("REF_TSC counted %.4f per TSC tick, want 0.95..1.01",
		       ref_per_tsc);
	/* Braces: EXPECT_*() TH_LOG() is two statements in the harness. */
	if (lo) {
		EXPECT_TRUE(hz >= lo * 0.95)
			TH_LOG("core cycles give %.0f MHz, below the minimum %.0f MHz",
			       hz / 1e6, lo / 1e6);
	}
	if (hi) {
		EXPECT_TRUE(hz <= hi * 1.05)
			TH_LOG("core cycles give %.0f MHz, above the maximum %.0f MHz",
			       hz / 1e6, hi / 1e6);
	}
	if (!lo || !hi)
		TH_LOG("frequency range partly unknown here: only the known bounds are checked");
}

/* ---- edge, cmask and invert ---------------------------------------------- */

/*
 * hw_branch_loop(N) retires exactly N branches, each in a cycle of its own
 * (hw.h).  With CMASK = c the counter adds one per cycle whose event count
 * is >= c, with INV one per cycle whose count is < c, and with EDGE one per
 * transition of that condition from false to true (SDM vol. 3B,
 * IA32_PERFEVTSELx).  So for BR_INST_RETIRED.ALL_BRANCHES:
 *   cmask 1          N: the cycles that retire a branch
 *   cmask 2          0: no cycle retires two
 *   edge, cmask 1    N: each such cycle starts a run of one
 *   inv, cmask 1     the other cycles: core cycles - N
 *   edge, inv, cmask 1   N: each branch cycle is followed by one without
 *   plain (none of them) N: every branch
 * Each window also counts the plain branches (must be N) and core cycles.
 * The emulated PMU counts 0 for any event with CMASK, INV or EDGE, so
 * only the plain variant runs there, and only where it implements the
 * branch event (its contract: exact, or 0 when not implemented).
 */
enum expect {
	EXP_N,			/* N, up to EXACT_SLACK more */
	EXP_ZERO,		/* 0, up to EXACT_SLACK */
	EXP_CYCLES_LESS_N,	/* cycles - branches, within 0.5% of cycles */
	EXP_N_EDGE,		/* N, one less at the window's end */
};

FIXTURE(cmask) {
	struct pmuctl *p;
};

FIXTURE_VARIANT(cmask) {
	uint64_t bits;
	enum expect expect;
};

FIXTURE_VARIANT_ADD(cmask, plain_counts_every_branch) {
	.bits = 0, .expect = EXP_N,
};

FIXTURE_VARIANT_ADD(cmask, cmask1_counts_cycles_with_a_branch) {
	.bits = CMASK(1), .expect = EXP_N,
};

FIXTURE_VARIANT_ADD(cmask, cmask2_counts_no_cycle) {
	.bits = CMASK(2), .expect = EXP_ZERO,
};

FIXTURE_VARIANT_ADD(cmask, edge_counts_one_rising_edge_per_branch) {
	.bits = EDGE | CMASK(1), .expect = EXP_N,
};

FIXTURE_VARIANT_ADD(cmask, inv_counts_the_cycles_without_a_branch) {
	.bits = INV | CMASK(1), .expect = EXP_CYCLES_LESS_N,
};

FIXTURE_VARIANT_ADD(cmask, edge_inv_counts_one_falling_edge_per_branch) {
	.bits = EDGE | INV | CMASK(1), .expect = EXP_N_EDGE,
};

FIXTURE_SETUP(cmask)
{
}

FIXTURE_TEARDOWN(cmask)
{
	pmuctl_close(self->p);
}

#define BRANCH_N	20000ULL
#define BRANCH_RUNS	5

TEST_F(cmask, branch_loop_gives_the_known_count)
{
	struct pmuctl_event ev[3] = {
		hw_event(EV_BRANCHES | USR | variant->bits, 0, GONLY),
		hw_event(EV_BRANCHES | USR, 0, GONLY),
		hw_event(EV_CYCLES | USR, 0, 0),
	};
	const struct pmuctl_info *info;
	const uint64_t slack = exact_slack();
	uint64_t best[3] = { 0, 0, UINT64_MAX };
	uint64_t v, br, cyc;
	int cpu;

	HW_OPEN(&self->p);
	if (variant->bits & (PMUCTL_CFG_CMASK | INV | EDGE))
		HW_SKIP_IF_EMULATED("events with CMASK, INV or EDGE count 0 there, not per cycle");
	info = pmuctl_get_info(self->p);
	REQUIRE_GP(info, 2);
	REQUIRE_FIXED(info, 1);
	REQUIRE_ARCH_EVENT(info, PMUCTL_ARCH_BRANCHES, "BR_INST_RETIRED.ALL_BRANCHES");
	HW_PROGRAM(self->p, -1, ev, 3, HW_NEED_RDPMC, &cpu);
	ASSERT_EQ(0, pmuctl_start(self->p));

	/* The window with the fewest cycles is the one nothing disturbed. */
	for (int run = 0; run < BRANCH_RUNS; run++) {
		uint64_t d[3];

		measure_branches3(pmuctl_get_counters(self->p), BRANCH_N, d);
		if (d[2] < best[2])
			memcpy(best, d, sizeof(best));
	}
	v = best[0];
	br = best[1];
	cyc = best[2];
	TH_LOG("config 0x%llx: %llu; branches %llu; cycles %llu; N %llu",
	       (unsigned long long)ev[0].config, (unsigned long long)v,
	       (unsigned long long)br, (unsigned long long)cyc, BRANCH_N);

	if (!br && !v)
		HW_SKIP_IF_EMULATED("BR_INST_RETIRED.ALL_BRANCHES is not implemented (counts 0)");
	/* The premise: the loop retires N branches and nothing else does. */
	ASSERT_TRUE(br >= BRANCH_N && br <= BRANCH_N + slack)
		TH_LOG("plain branches %llu, want %llu", (unsigned long long)br,
		       BRANCH_N);
	switch (variant->expect) {
	case EXP_N:
		EXPECT_TRUE(v >= BRANCH_N && v <= BRANCH_N + slack)
			TH_LOG("%llu, want %llu", (unsigned long long)v, BRANCH_N);
		break;
	case EXP_ZERO:
		EXPECT_TRUE(v <= slack)
			TH_LOG("%llu, want 0", (unsigned long long)v);
		break;
	case EXP_CYCLES_LESS_N:
		EXPECT_TRUE(v + br <= cyc + cyc / 200 && v + br + cyc / 200 >= cyc)
			TH_LOG("%llu + %llu branch cycles, want the %llu cycles +-0.5%%",
			       (unsigned long long)v, (unsigned long long)br,
			       (unsigned long long)cyc);
		break;
	case EXP_N_EDGE:
		EXPECT_TRUE(v + 1 >= BRANCH_N && v <= BRANCH_N + slack)
			TH_LOG("%llu, want %llu (-1..+%llu)", (unsigned long long)v,
			       BRANCH_N, (unsigned long long)slack);
		break;
	}
}

/* ---- AnyThread --------------------------------------------------------------- */

#define ANY_N		100000ULL
#define ANY_RUNS	5

/* AnyThread exists here (perfmon v3+, not deprecated), or SKIP. */
#define REQUIRE_ANY_THREAD(info) do {					\
	if ((info)->caps.flags & PMUCTL_CAP_ANY_DEPRECATED)		\
		SKIP(return, "AnyThread is deprecated on this CPU (CPUID.0AH:EDX[15])"); \
	if (!((info)->caps.flags & PMUCTL_CAP_ANY_THREAD))		\
		SKIP(return, "perfmon version %u has no AnyThread (v3 and later)", \
		     (info)->caps.version);				\
} while (0)

/*
 * INST_RETIRED and core cycles with AnyThread on fixed counters 0 and 1
 * (on KNL/KNM the only counters that take it) against the same events of
 * this thread alone on generic counters, over one window: AnyThread adds
 * the other threads of the core, so it counts at least as much.  Slack:
 * exact_slack() instructions; 1% of the cycles, for the reads' skew.  On
 * the emulated PMU each vCPU is a core of its own: AnyThread counts this
 * thread alone, and must count all of it.
 */
TEST_F(hw, anythread_fixed_counters_count_at_least_the_own_thread)
{
	struct pmuctl_event ev[4] = {
		hw_event(EV_INST | USR | ANY, 0, 0),
		hw_event(EV_CYCLES | USR | ANY, 0, 0),
		hw_event(EV_INST | USR, 0, GONLY),
		hw_event(EV_CYCLES | USR, 0, GONLY),
	};
	const struct pmuctl_info *info;
	int cpu;

	HW_OPEN(&self->p);
	info = pmuctl_get_info(self->p);
	REQUIRE_ANY_THREAD(info);
	REQUIRE_FIXED(info, 0);
	REQUIRE_FIXED(info, 1);
	REQUIRE_GP(info, 2);
	HW_PROGRAM(self->p, -1, ev, 4, HW_NEED_RDPMC, &cpu);
	ASSERT_U64(FIXED(0), ev[0].counter);
	ASSERT_U64(FIXED(1), ev[1].counter);
	ASSERT_EQ(0, pmuctl_start(self->p));

	for (int run = 0; run < ANY_RUNS; run++) {
		uint64_t d[4];

		measure_nops4(pmuctl_get_counters(self->p), ANY_N, d);
		EXPECT_TRUE(d[0] + exact_slack() >= d[2])
			TH_LOG("AnyThread instructions %llu < own %llu",
			       (unsigned long long)d[0], (unsigned long long)d[2]);
		EXPECT_TRUE(d[1] + d[3] / 100 >= d[3])
			TH_LOG("AnyThread cycles %llu < own %llu",
			       (unsigned long long)d[1], (unsigned long long)d[3]);
		EXPECT_TRUE(d[2] >= ANY_N * HW_NOP_LOOP_INSNS)
			TH_LOG("own instructions %llu < the loop's %llu",
			       (unsigned long long)d[2],
			       ANY_N * HW_NOP_LOOP_INSNS);
		/* The premise of the cycles comparison: cycles were counted. */
		EXPECT_NE(0ULL, d[3]) TH_LOG("own cycles counted nothing");
	}
}

/* The sibling thread: spin on @cpu until told to stop. */
struct spinner {
	int cpu;
	atomic_int running;
	atomic_int stop;
};

static void *spin(void *arg)
{
	struct spinner *s = arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(s->cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		atomic_store(&s->running, -1);
		return NULL;
	}
	atomic_store(&s->running, 1);
	while (!atomic_load_explicit(&s->stop, memory_order_relaxed))
		hw_nop_loop(1000);
	return NULL;
}

#define SIBLING_N	1000000ULL

/*
 * With a thread spinning on an SMT sibling of the CPU, AnyThread
 * INST_RETIRED on fixed counter 0 counts that thread too: more than this
 * thread's own count by at least a tenth of it (the sibling runs the same
 * loop through the whole window, sharing the core at no less than a tenth
 * of our rate).  The best of ANY_RUNS windows, in case the sibling was
 * preempted in one.
 */
TEST_F(hw, anythread_counts_the_smt_sibling_too)
{
	struct pmuctl_event ev[2] = {
		hw_event(EV_INST | USR | ANY, 0, 0),
		hw_event(EV_INST | USR, 0, GONLY),
	};
	const struct pmuctl_info *info;
	struct spinner s = { .cpu = -1 };
	int64_t best_extra = INT64_MIN;
	uint64_t best_any = 0, best_own = 0;
	pthread_t th;
	int cpu;

	HW_OPEN(&self->p);
	HW_SKIP_IF_EMULATED("each vCPU counts alone (no SMT): AnyThread has no sibling thread to add");
	info = pmuctl_get_info(self->p);
	REQUIRE_ANY_THREAD(info);
	REQUIRE_FIXED(info, 0);
	cpu = sched_getcpu();
	ASSERT_LE(0, cpu);
	s.cpu = hw_smt_sibling(cpu);
	if (s.cpu < 0)
		SKIP(return, "CPU %d has no online SMT sibling (Hyper-Threading off?)",
		     cpu);
	ASSERT_EQ(0, pthread_create(&th, NULL, spin, &s));
	while (!atomic_load(&s.running))
		hw_nop_loop(1000);
	ASSERT_EQ(1, atomic_load(&s.running))
		TH_LOG("could not pin a thread to CPU %d", s.cpu);

	HW_PROGRAM(self->p, cpu, ev, 2, HW_NEED_RDPMC, &cpu);
	ASSERT_U64(FIXED(0), ev[0].counter);
	ASSERT_EQ(0, pmuctl_start(self->p));
	for (int run = 0; run < ANY_RUNS; run++) {
		uint64_t d[2];

		measure_nops2(pmuctl_get_counters(self->p), SIBLING_N, d);
		if ((int64_t)(d[0] - d[1]) > best_extra) {
			best_extra = (int64_t)(d[0] - d[1]);
			best_any = d[0];
			best_own = d[1];
		}
	}
	atomic_store(&s.stop, 1);
	pthread_join(th, NULL);

	TH_LOG("CPU %d, sibling %d: AnyThread %llu, own %llu instructions",
	       cpu, s.cpu, (unsigned long long)best_any,
	       (unsigned long long)best_own);
	EXPECT_TRUE(best_any >= best_own + best_own / 10)
		TH_LOG("AnyThread counted %llu, own thread %llu: the sibling's loop is missing",
		       (unsigned long long)best_any,
		       (unsigned long long)best_own);
}

TEST_HARNESS_MAIN
