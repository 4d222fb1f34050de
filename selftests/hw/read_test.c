// SPDX-License-Identifier: GPL-2.0
/*
 * The two read paths on silicon: rdpmc (libpmuctl's inline path) and
 * PMUCTL_IOC_READ (pmuctl_read_values()) read the same counters, and
 * deltas are right across a counter wrap.
 *
 * The wrap: on silicon nothing presets a counter (only the register
 * model's debugfs "regs" can, and the device selftests use it), so a wrap
 * takes 2^width events: about 12 minutes of REF_TSC for the 40-bit
 * counters of KNL/KNM, a day for Skylake's 48 bits.  The wrap test waits
 * for one only when asked (PMUCTL_HWTEST_WRAP=1) and when it takes under
 * WRAP_MAX_S; otherwise it SKIPs saying how long it would take.  On the
 * emulated PMU (hw.h) it runs by default: the test presets the counters
 * near the top through the msr driver and counts exact instructions
 * across the wrap.
 *
 * Each test SKIPs with its reason without a real PMU (hw.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "hw.h"

FIXTURE(read) {
	struct pmuctl *p;
};

FIXTURE_SETUP(read)
{
}

FIXTURE_TEARDOWN(read)
{
	pmuctl_close(self->p);
}

/* Fixed counters 0 and 1 and two generic counters, user and kernel. */
#define PROGRAM_FOUR(self, cpu) do {					\
	const struct pmuctl_info *__i;					\
									\
	HW_OPEN(&(self)->p);						\
	__i = pmuctl_get_info((self)->p);				\
	if ((__i->caps.fixed_mask & 3) != 3 || __i->caps.nr_gp < 2)	\
		SKIP(return, "needs fixed counters 0 and 1 and 2 generic counters"); \
	HW_PROGRAM((self)->p, -1, ev, 4, HW_NEED_RDPMC, &(cpu));	\
} while (0)

/*
 * Counters stopped after a run: rdpmc and READ must return the very same
 * raw values, none of them zero.
 */
TEST_F(read, rdpmc_equals_read_on_stopped_counters)
{
	struct pmuctl_event ev[4] = {
		hw_event(EV_INST | USR | OS, 0, 0),
		hw_event(EV_CYCLES | USR | OS, 0, 0),
		hw_event(EV_INST | USR | OS, 0, GONLY),
		hw_event(EV_CYCLES | USR | OS, 0, GONLY),
	};
	uint64_t r[4], v[4];
	int cpu;

	PROGRAM_FOUR(self, cpu);
	ASSERT_EQ(0, pmuctl_start(self->p));
	hw_spin_ns(1000000);
	ASSERT_EQ(0, pmuctl_stop(self->p));

	pmuctl_read_counters(pmuctl_get_counters(self->p), r, 4);
	ASSERT_EQ(4, pmuctl_read_values(self->p, cpu, v, 4));
	for (int i = 0; i < 4; i++) {
		EXPECT_NE(0ULL, r[i]) TH_LOG("event %d counted nothing", i);
		EXPECT_U64(r[i], v[i])
			TH_LOG("event %d (counter 0x%x): rdpmc 0x%llx, READ 0x%llx",
			       i, ev[i].counter, (unsigned long long)r[i],
			       (unsigned long long)v[i]);
	}
}

/*
 * Running counters of user and kernel mode: a READ between two rdpmc
 * returns, for every counter, a value strictly between theirs (the ioctl
 * retires instructions and takes cycles).  Deltas are taken modulo the
 * width, so this holds across a wrap too.
 */
TEST_F(read, read_lies_between_two_rdpmc_of_running_counters)
{
	struct pmuctl_event ev[4] = {
		hw_event(EV_INST | USR | OS, 0, 0),
		hw_event(EV_CYCLES | USR | OS, 0, 0),
		hw_event(EV_INST | USR | OS, 0, GONLY),
		hw_event(EV_CYCLES | USR | OS, 0, GONLY),
	};
	const struct pmuctl_counters *c;
	uint64_t a[4], v[4], b[4];
	int cpu;

	PROGRAM_FOUR(self, cpu);
	c = pmuctl_get_counters(self->p);
	ASSERT_EQ(0, pmuctl_start(self->p));
	hw_spin_ns(1000000);

	pmuctl_read_counters_serialized(c, a, 4);
	ASSERT_EQ(4, pmuctl_read_values(self->p, cpu, v, 4));
	pmuctl_read_counters_serialized(c, b, 4);
	for (int i = 0; i < 4; i++) {
		uint64_t to_read = pmuctl_delta(c, i, a[i], v[i]);
		uint64_t to_end = pmuctl_delta(c, i, a[i], b[i]);

		EXPECT_TRUE(to_read > 0 && to_read < to_end)
			TH_LOG("event %d: rdpmc 0x%llx, READ 0x%llx, rdpmc 0x%llx",
			       i, (unsigned long long)a[i],
			       (unsigned long long)v[i],
			       (unsigned long long)b[i]);
	}
}

/*
 * The read path's masks are 2^width - 1 with the widths CPUID reports,
 * and the raw values of both paths fit in them: nothing above the
 * counter's width, so deltas modulo the width are the counts.
 */
TEST_F(read, raw_values_fit_the_cpuid_widths)
{
	struct pmuctl_event ev[4] = {
		hw_event(EV_INST | USR | OS, 0, 0),
		hw_event(EV_CYCLES | USR | OS, 0, 0),
		hw_event(EV_INST | USR | OS, 0, GONLY),
		hw_event(EV_CYCLES | USR | OS, 0, GONLY),
	};
	const struct pmuctl_counters *c;
	const struct pmuctl_caps *caps;
	uint64_t r[4], v[4];
	int cpu;

	PROGRAM_FOUR(self, cpu);
	caps = &pmuctl_get_info(self->p)->caps;
	c = pmuctl_get_counters(self->p);
	ASSERT_EQ(0, pmuctl_start(self->p));
	hw_spin_ns(1000000);
	pmuctl_read_counters_serialized(c, r, 4);
	ASSERT_EQ(4, pmuctl_read_values(self->p, cpu, v, 4));

	for (int i = 0; i < 4; i++) {
		bool fixed = c->ecx[i] & PMUCTL_COUNTER_FIXED;
		unsigned int w = fixed ? caps->fixed_width : caps->gp_width;
		uint64_t mask = w >= 64 ? UINT64_MAX : (1ULL << w) - 1;

		EXPECT_U64(mask, c->mask[i]) TH_LOG("event %d: width %u", i, w);
		EXPECT_NE(0ULL, r[i]) TH_LOG("event %d counted nothing", i);
		EXPECT_U64(0, r[i] & ~mask)
			TH_LOG("event %d: rdpmc 0x%llx wider than %u bits", i,
			       (unsigned long long)r[i], w);
		EXPECT_U64(0, v[i] & ~mask)
			TH_LOG("event %d: READ 0x%llx wider than %u bits", i,
			       (unsigned long long)v[i], w);
	}
}

/* ---- the wrap on the emulated PMU ----------------------------------------- */

/* The presets: 2^width - PRESET_BELOW, a loop of more instructions than that. */
#define PRESET_BELOW	4096ULL
#define WRAP_ITERS	1000ULL		/* 10000 instructions */
#define WRAP_RUNS	3

/* Raw values of events 0 and 1 before and after hw_nop_loop(WRAP_ITERS). */
static void __attribute__((noinline, noclone))
wrap_window(const struct pmuctl_counters *c, uint64_t b[2], uint64_t a[2])
{
	pmuctl_read_counters_serialized(c, b, 2);
	hw_nop_loop(WRAP_ITERS);
	pmuctl_read_counters_serialized(c, a, 2);
}

/* The MSR of event @i's counter: IA32_FIXED_CTRx or the legacy IA32_PMCx. */
static uint32_t counter_msr(const struct pmuctl_counters *c, unsigned int i)
{
	uint32_t idx = c->ecx[i] & ~PMUCTL_COUNTER_FIXED;

	return c->ecx[i] & PMUCTL_COUNTER_FIXED ? MSR_IA32_FIXED_CTR0 + idx :
						   MSR_IA32_PMC0 + idx;
}

/*
 * The value whose write puts event @i's counter PRESET_BELOW under its
 * top (scripts/vm/qemu/pmu-spec.md): IA32_FIXED_CTRx takes it masked to the width; a
 * legacy IA32_PMCx write takes bits 31:0 sign-extended to the width, so
 * -PRESET_BELOW in 32 bits is 2^width - PRESET_BELOW there too (as on
 * silicon, FACTS 1).
 */
static uint64_t preset_value(const struct pmuctl_counters *c, unsigned int i)
{
	if (c->ecx[i] & PMUCTL_COUNTER_FIXED)
		return (0 - PRESET_BELOW) & c->mask[i];
	return (uint32_t)(0 - PRESET_BELOW);
}

/*
 * INST_RETIRED in user mode on fixed counter 0 and on a generic counter,
 * counting.  First the reference: the deltas of wrap_window() with no
 * preset, the smallest of WRAP_RUNS (another task's user instructions on
 * this CPU can only add).  Then WRAP_RUNS times: both counters preset to
 * 2^width - PRESET_BELOW through /dev/cpu/N/msr, and wrap_window() again,
 * whose WRAP_ITERS * 10 instructions carry both across the top.  The
 * emulation counts exactly, so for the smallest such window:
 *   - the raw value before is within PRESET_BELOW of the top (the
 *     preset, plus the few user instructions from the write to the read);
 *   - the raw value after is below it: the counter wrapped;
 *   - pmuctl_delta() over the wrap is exactly the reference delta.
 */
static void wrap_by_preset(struct __test_metadata *_metadata, struct pmuctl *p)
{
	struct pmuctl_event ev[2] = {
		hw_event(EV_INST | USR, 0, 0),
		hw_event(EV_INST | USR, 0, GONLY),
	};
	const struct pmuctl_info *info = pmuctl_get_info(p);
	const struct pmuctl_counters *c;
	uint64_t ref[2] = { UINT64_MAX, UINT64_MAX }, got[2] = { UINT64_MAX, UINT64_MAX };
	uint64_t raw_b[2] = { 0 }, raw_a[2] = { 0 }, b[2], a[2], d[2];
	char path[64];
	int cpu, ret;

	if (!(info->caps.fixed_mask & 1) || info->caps.nr_gp < 1)
		SKIP(return, "needs fixed counter 0 and a generic counter");
	HW_PROGRAM(p, -1, ev, 2, HW_NEED_RDPMC, &cpu);
	ASSERT_U64(FIXED(0), ev[0].counter);
	c = pmuctl_get_counters(p);
	snprintf(path, sizeof(path), "/dev/cpu/%d/msr", cpu);
	if (access(path, W_OK))
		SKIP(return, HW_EMULATED_NAME ": presets the counters through %s, which is missing (%s): modprobe msr allow_writes=on",
		     path, strerror(errno));
	ASSERT_EQ(0, pmuctl_start(p));

	for (int run = 0; run < WRAP_RUNS; run++) {
		wrap_window(c, b, a);
		pmuctl_deltas(c, b, a, d, 2);
		if (d[0] < ref[0])
			memcpy(ref, d, sizeof(ref));
	}
	for (int run = 0; run < WRAP_RUNS; run++) {
		for (unsigned int i = 0; i < 2; i++) {
			ret = hw_msr_write(cpu, counter_msr(c, i), preset_value(c, i));
			if (ret == -EPERM)
				SKIP(return, HW_EMULATED_NAME ": the msr driver refuses writes: modprobe msr allow_writes=on");
			ASSERT_EQ(0, ret)
				TH_LOG("write 0x%llx to MSR 0x%x of CPU %d: %s",
				       (unsigned long long)preset_value(c, i),
				       counter_msr(c, i), cpu, strerror(-ret));
		}
		wrap_window(c, b, a);
		pmuctl_deltas(c, b, a, d, 2);
		if (d[0] < got[0]) {
			memcpy(got, d, sizeof(got));
			memcpy(raw_b, b, sizeof(raw_b));
			memcpy(raw_a, a, sizeof(raw_a));
		}
	}

	for (unsigned int i = 0; i < 2; i++) {
		uint64_t top = c->mask[i] + 1;

		TH_LOG("event %u (MSR 0x%x, mask 0x%llx): 0x%llx -> 0x%llx, delta %llu; without a wrap %llu",
		       i, counter_msr(c, i), (unsigned long long)c->mask[i],
		       (unsigned long long)raw_b[i], (unsigned long long)raw_a[i],
		       (unsigned long long)got[i], (unsigned long long)ref[i]);
		EXPECT_TRUE(raw_b[i] >= top - PRESET_BELOW && raw_b[i] <= c->mask[i])
			TH_LOG("event %u: before the loop 0x%llx, want within %llu under the top 0x%llx",
			       i, (unsigned long long)raw_b[i], PRESET_BELOW,
			       (unsigned long long)top);
		EXPECT_TRUE(raw_a[i] < raw_b[i] && raw_a[i] < WRAP_ITERS * HW_NOP_LOOP_INSNS)
			TH_LOG("event %u: after the loop 0x%llx, want past the wrap",
			       i, (unsigned long long)raw_a[i]);
		EXPECT_U64(ref[i], got[i])
			TH_LOG("event %u: delta %llu across the wrap, %llu without",
			       i, (unsigned long long)got[i], (unsigned long long)ref[i]);
	}
	/* The reference itself: the loop, and no more than a read path. */
	EXPECT_TRUE(ref[0] >= WRAP_ITERS * HW_NOP_LOOP_INSNS &&
		    ref[0] <= WRAP_ITERS * HW_NOP_LOOP_INSNS + 64)
		TH_LOG("%llu instructions for a loop of %llu",
		       (unsigned long long)ref[0], WRAP_ITERS * HW_NOP_LOOP_INSNS);
}

/* How far @ratio is from 1. */
static double off(double ratio)
{
	return ratio > 1 ? ratio - 1 : 1 - ratio;
}

/* Longest wait for a wrap; the harness's timeout for the test is above it. */
#define WRAP_MAX_S	3000
#define WRAP_SLICE_NS	100000000ULL

/*
 * REF_TSC (fixed counter 2) spinning until it wraps: it ticks with the
 * TSC, so every 100 ms slice's delta, taken with pmuctl_delta(), must
 * match the TSC's ticks (within 2%) - the slice across the wrap, where the
 * raw value goes down, like all others.  On the emulated PMU: the preset
 * wrap of wrap_by_preset() instead.
 */
TEST_F_TIMEOUT(read, delta_is_right_across_a_counter_wrap, WRAP_MAX_S + 300)
{
	struct pmuctl_event ev = hw_event(EV_REF_TSC | USR | OS, 0, 0);
	const struct pmuctl_counters *c;
	const struct pmuctl_info *info;
	uint64_t v0, v1, t0, t1, wrap_delta = 0, wrap_ticks = 0;
	const char *env = getenv("PMUCTL_HWTEST_WRAP");
	double est_s, worst = 0;
	unsigned int w, slices = 0;
	bool wrapped = false;
	int cpu;

	HW_OPEN(&self->p);
	if (hw_emulated()) {
		wrap_by_preset(_metadata, self->p);
		return;
	}
	info = pmuctl_get_info(self->p);
	if (!(info->caps.fixed_mask & 4))
		SKIP(return, "this PMU has no fixed counter 2 (REF_TSC)");
	HW_PROGRAM(self->p, -1, &ev, 1, HW_NEED_RDPMC, &cpu);
	c = pmuctl_get_counters(self->p);
	w = info->caps.fixed_width;
	ASSERT_EQ(0, pmuctl_start(self->p));

	/* How fast it counts: the TSC's rate, measured. */
	t0 = hw_now_ns();
	v0 = hw_rdtsc();
	hw_spin_ns(WRAP_SLICE_NS);
	est_s = (w >= 64 ? 0x1p64 : (double)(1ULL << w)) /
		((double)(hw_rdtsc() - v0) * 1e9 / (double)(hw_now_ns() - t0));
	if (!env || strcmp(env, "1"))
		SKIP(return, "no counter preset on silicon: a %u-bit counter wraps after %.0f min here; PMUCTL_HWTEST_WRAP=1 waits for it",
		     w, est_s / 60);
	if (est_s > WRAP_MAX_S)
		SKIP(return, "a %u-bit counter wraps after %.1f h here, more than %d s",
		     w, est_s / 3600, WRAP_MAX_S);

	v0 = pmuctl_read_counter_serialized(c, 0);
	t0 = hw_rdtsc();
	while (slices < (unsigned int)(est_s * 1.2 * 1e9 / WRAP_SLICE_NS) + 20) {
		uint64_t d, ticks;
		double ratio;

		hw_spin_ns(WRAP_SLICE_NS);
		v1 = pmuctl_read_counter_serialized(c, 0);
		t1 = hw_rdtsc();
		d = pmuctl_delta(c, 0, v0, v1);
		ticks = t1 - t0;
		ratio = (double)d / (double)ticks;
		if (off(ratio) > worst)
			worst = off(ratio);
		if (v1 < v0) {
			wrapped = true;
			wrap_delta = d;
			wrap_ticks = ticks;
			TH_LOG("wrapped: 0x%llx -> 0x%llx, delta %llu over %llu TSC ticks",
			       (unsigned long long)v0, (unsigned long long)v1,
			       (unsigned long long)d, (unsigned long long)ticks);
		}
		v0 = v1;
		t0 = t1;
		slices++;
		if (wrapped)
			break;
	}
	ASSERT_TRUE(wrapped) TH_LOG("no wrap in %u slices of 100 ms", slices);
	EXPECT_TRUE(off((double)wrap_delta / (double)wrap_ticks) <= 0.02)
		TH_LOG("across the wrap: %llu REF_TSC for %llu TSC ticks",
		       (unsigned long long)wrap_delta,
		       (unsigned long long)wrap_ticks);
	EXPECT_TRUE(worst <= 0.02)
		TH_LOG("a slice was %.1f%% off the TSC", worst * 100);
}

TEST_HARNESS_MAIN
