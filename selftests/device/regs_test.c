// SPDX-License-Identifier: GPL-2.0
/*
 * The PMU registers each command leaves behind, read back from the test
 * register model (pmuctl/regs) on every CPU:
 *
 *   PROGRAM  EVTSELi = config_used without EN, counters zeroed, the fixed
 *            counters' FIXED_CTR_CTRL nibbles 0, their GLOBAL_CTRL bits
 *            clear, the extra MSR holds the event's value;
 *   START    EN (bit 22) in EVTSELi, fixed nibble OS bit 0 | USR bit 1 |
 *            AnyThread bit 2, GLOBAL_CTRL generic i -> bit i, fixed i ->
 *            bit 32 + i;
 *   STOP     all of that cleared again, the counts kept;
 *   RESET    counts zeroed, running or not;
 *   RELEASE  everything back to 0, or to the value found before PROGRAM;
 *   REPLACE  (PROGRAM with PMUCTL_PROGRAM_REPLACE) as RELEASE then
 *            PROGRAM (then START if the group was running), in one wave;
 *            refused, nothing changed;
 *
 * on every CPU of the bitmap and on no other.  The replies (counter =
 * rdpmc index, config_used, extra_msr) and READ of each CPU are checked
 * against the same tables.
 *
 * Needs the register-model build of pmuctl.ko; SKIPs without it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib.h"
#include "kselftest_harness.h"

#define M_KNX	((1U << PMUCTL_MODEL_KNL) | (1U << PMUCTL_MODEL_KNM))
#define M_SKL	(1U << PMUCTL_MODEL_SKL)
#define M_ICX	(1U << PMUCTL_MODEL_ICX)
#define M_SPR	(1U << PMUCTL_MODEL_SPR)
#define EV_TD_SLOTS	0x0400	/* TOPDOWN.SLOTS: fixed counter 3 only [LNX] */

#define FIXED_OS	0x1
#define FIXED_USR	0x2
#define FIXED_ANY	0x4

struct gev {
	__u64 config, extra;
	__u32 flags;
	/* the replies expected */
	__u32 counter;
	__u64 config_used;
	__u32 extra_msr;
};

static const struct group {
	int line;
	__u32 models;
	__u32 n;
	struct gev ev[8];
} groups[] = {
	{ __LINE__, M_KNX, 5, {
		{ EV_LLC_MISS | USR | OS, 0, 0, 0, EV_LLC_MISS | USR | OS, 0 },
		{ EV_INST | USR, 0, 0, FIXED(0), EV_INST | USR, 0 },
		{ EV_CYCLES | OS | ANY, 0, 0, FIXED(1), EV_CYCLES | OS | ANY, 0 },
		{ EV_REF | USR | OS, 0, 0, FIXED(2), EV_REF | USR | OS, 0 },
		{ KNM_RSP0 | USR, REQ0 | ANYRSP, 0, 1, KNM_RSP0 | USR, MSR_RSP0 },
	} },
	/*
	 * OUTSTANDING is an OFFCORE_RSP_0 rule, not a PMC0 constraint (model.c):
	 * the average-latency pair takes the counters in order.
	 */
	{ __LINE__, M_KNX, 3, {
		{ KNM_RSP1 | USR | OS, REQ0 | ANYRSP, 0, 0, KNM_RSP1 | USR | OS, MSR_RSP1 },
		{ KNM_RSP0 | USR | OS, REQ0 | OUTST, 0, 1, KNM_RSP0 | USR | OS, MSR_RSP0 },
		{ EV_INST | OS, 0, 0, FIXED(0), EV_INST | OS, 0 },
	} },
	{ __LINE__, M_KNX, 2, {
		{ EV_INST | USR | INV | CMASK(3), 0, GONLY, 0, EV_INST | USR | INV | CMASK(3), 0 },
		{ EV_CYCLES | USR | EDGE | CMASK(1), 0, 0, 1, EV_CYCLES | USR | EDGE | CMASK(1), 0 },
	} },
	{ __LINE__, M_SKL, 7, {
		{ EV_LLC_MISS | USR | OS, 0, 0, 0, EV_LLC_MISS | USR | OS, 0 },
		{ EV_INST | USR, 0, 0, FIXED(0), EV_INST | USR, 0 },
		{ EV_CYCLES | OS | ANY, 0, 0, FIXED(1), EV_CYCLES | OS | ANY, 0 },
		{ EV_REF | USR | OS | ANY, 0, 0, FIXED(2), EV_REF | USR | OS | ANY, 0 },
		{ SKL_RSP0 | USR, REQ0 | ANYRSP, 0, 1, SKL_RSP0 | USR, MSR_RSP0 },
		{ SKL_FE | USR, 0x11, 0, 2, SKL_FE | USR, MSR_FRONTEND },
		{ EV_BR | USR | INV | CMASK(1) | ANY, 0, 0, 3, EV_BR | USR | INV | CMASK(1) | ANY, 0 },
	} },
	/* INST_RETIRED.PREC_DIST runs on PMC1 only [LNX]: PMC1's holder moves. */
	{ __LINE__, M_SKL, 4, {
		{ EV_LLC_REF | USR, 0, 0, 0, EV_LLC_REF | USR, 0 },
		{ EV_LLC_MISS | USR, 0, 0, 2, EV_LLC_MISS | USR, 0 },
		{ 0x01c0 | USR, 0, 0, 1, 0x01c0 | USR, 0 },
		{ SKL_LDLAT | USR, 0x3, 0, 3, SKL_LDLAT | USR, MSR_LDLAT },
	} },
	{ __LINE__, M_SKL, 2, {
		{ SKL_RSP1 | OS, REQ1 | ANYRSP, 0, 0, SKL_RSP1 | OS, MSR_RSP1 },
		{ EV_CYCLES | USR, 0, GONLY, 1, EV_CYCLES | USR, 0 },
	} },
	/*
	 * Ice Lake server: four fixed counters (TOPDOWN.SLOTS on 3), no
	 * AnyThread; OFFCORE_RESPONSE 0xb7 on counters 0-3 only [LNX:
	 * intel_icl_event_constraints].  Events take the lowest free counter
	 * their masks allow, in order (kmod/core/sched.c place_counters()).
	 */
	{ __LINE__, M_ICX, 8, {
		{ EV_LLC_MISS | USR | OS, 0, 0, 0, EV_LLC_MISS | USR | OS, 0 },
		{ EV_INST | USR, 0, 0, FIXED(0), EV_INST | USR, 0 },
		{ EV_CYCLES | OS, 0, 0, FIXED(1), EV_CYCLES | OS, 0 },
		{ EV_REF | USR | OS, 0, 0, FIXED(2), EV_REF | USR | OS, 0 },
		{ EV_TD_SLOTS | USR, 0, 0, FIXED(3), EV_TD_SLOTS | USR, 0 },
		{ SKL_RSP0 | USR, REQ0 | ANYRSP, 0, 1, SKL_RSP0 | USR, MSR_RSP0 },
		{ SKL_FE | USR, 0x11, 0, 2, SKL_FE | USR, MSR_FRONTEND },
		{ EV_BR | USR | INV | CMASK(1), 0, 0, 3, EV_BR | USR | INV | CMASK(1), 0 },
	} },
	{ __LINE__, M_ICX, 3, {
		{ SKL_RSP1 | OS, REQ1 | ANYRSP, 0, 0, SKL_RSP1 | OS, MSR_RSP1 },
		{ EV_CYCLES | USR, 0, GONLY, 1, EV_CYCLES | USR, 0 },
		{ SKL_LDLAT | USR, 0x3, 0, 2, SKL_LDLAT | USR, MSR_LDLAT },
	} },
	/*
	 * Sapphire Rapids: the OCR events 0x2a/0x2b (counters 0-3) select
	 * OFFCORE_RSP_0/1; MEM_TRANS_RETIRED.STORE_SAMPLE (0x02cd) runs on
	 * PMC0 alone [LNX: intel_glc_event_constraints], so PMC0's holder
	 * moves to the next free counter (an augmenting path).
	 */
	{ __LINE__, M_SPR, 8, {
		{ EV_LLC_MISS | USR | OS, 0, 0, 0, EV_LLC_MISS | USR | OS, 0 },
		{ EV_INST | USR, 0, 0, FIXED(0), EV_INST | USR, 0 },
		{ EV_CYCLES | OS, 0, 0, FIXED(1), EV_CYCLES | OS, 0 },
		{ EV_REF | USR | OS, 0, 0, FIXED(2), EV_REF | USR | OS, 0 },
		{ EV_TD_SLOTS | USR, 0, 0, FIXED(3), EV_TD_SLOTS | USR, 0 },
		{ SPR_RSP0 | USR, REQ0 | ANYRSP, 0, 1, SPR_RSP0 | USR, MSR_RSP0 },
		{ SKL_FE | USR, 0x11, 0, 2, SKL_FE | USR, MSR_FRONTEND },
		{ EV_BR | USR | INV | CMASK(1), 0, 0, 3, EV_BR | USR | INV | CMASK(1), 0 },
	} },
	{ __LINE__, M_SPR, 3, {
		{ EV_LLC_REF | USR, 0, 0, 1, EV_LLC_REF | USR, 0 },
		{ 0x02cd | USR, 0, 0, 0, 0x02cd | USR, 0 },
		{ SPR_RSP1 | OS, REQ1 | ANYRSP, 0, 2, SPR_RSP1 | OS, MSR_RSP1 },
	} },
};

FIXTURE(regs) {
	int fd;
	struct pmuctl_info info;
	__u64 all;		/* every CPU, as a one-word bitmap */
	bool online_changed;
};

FIXTURE_SETUP(regs)
{
	unsigned int i;

	self->fd = dev_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, dev_info(self->fd, &self->info));
	for (i = 0; i < self->info.nr_cpus && i < 64; i++)
		self->all |= 1ULL << i;
	/* Start from a clean model: no session, every register 0. */
	if (have_regs()) {
		ASSERT_EQ(0, state_wait_clean(1000));
		ASSERT_EQ(0, regs_zero_all());
	}
}

FIXTURE_TEARDOWN(regs)
{
	if (self->fd >= 0)
		close(self->fd);
	if (self->online_changed)
		cpu_set_online(1, true);
	if (have_regs()) {
		state_wait_clean(1000);
		regs_zero_all();
	}
}

/* At the top of each body: the register model must be there. */
#define NEED_REGS() do {						\
	if (self->info.backend != PMUCTL_BACKEND_MODEL || !have_regs())	\
		SKIP(return, "needs the register-model pmuctl.ko (%s)", DBG_REGS); \
} while (0)

static __u32 counter_msr(__u32 counter)
{
	if (counter & PMUCTL_COUNTER_FIXED)
		return MSR_FIXED_CTR(counter & ~PMUCTL_COUNTER_FIXED);
	return MSR_PMC(counter);
}

static __u64 nibble(__u64 config)
{
	return (config & OS ? FIXED_OS : 0) | (config & USR ? FIXED_USR : 0) |
	       (config & ANY ? FIXED_ANY : 0);
}

/* The extra MSRs of the model (kmod/core/model.c). */
static unsigned int model_xregs(__u32 model, __u32 *msr)
{
	msr[0] = MSR_RSP0;
	msr[1] = MSR_RSP1;
	msr[2] = MSR_FRONTEND;
	msr[3] = MSR_LDLAT;
	return model == PMUCTL_MODEL_SKL ? 4 : 2;
}

/*
 * Every pmuctl register of @cpu is what @n events placed as @ev (with
 * their replies filled in) imply, running or not.  Counters: @cnt[i], or 0.
 */
static void check_cpu(struct __test_metadata *_metadata,
		      const struct pmuctl_info *info, const struct pregs *rg,
		      __u32 cpu, const struct pmuctl_event *ev, __u32 n,
		      bool running, const __u64 *cnt, int line)
{
	__u64 evtsel[32] = { 0 }, fixed_ctrl = 0, global = 0, want;
	__u64 pmc[32] = { 0 }, fctr[16] = { 0 }, xval[4] = { 0 };
	__u32 xmsr[4], nx = model_xregs(info->pmu_model, xmsr), i, k;

	for (i = 0; i < n; i++) {
		__u32 c = ev[i].counter;

		if (c & PMUCTL_COUNTER_FIXED) {
			c &= ~PMUCTL_COUNTER_FIXED;
			if (running)
				fixed_ctrl |= nibble(ev[i].config_used) << (4 * c);
			global |= running ? 1ULL << (32 + c) : 0;
			fctr[c] = cnt ? cnt[i] : 0;
		} else {
			evtsel[c] = ev[i].config_used | (running ? EN : 0);
			global |= running ? 1ULL << c : 0;
			pmc[c] = cnt ? cnt[i] : 0;
		}
		for (k = 0; k < nx; k++)
			if (ev[i].extra_msr == xmsr[k])
				xval[k] = ev[i].extra;
	}
	for (i = 0; i < info->caps.nr_gp; i++) {
		want = evtsel[i];
		EXPECT_U64(want, regs_get(rg, cpu, MSR_EVTSEL(i))) {
			TH_LOG("line %d cpu %u EVTSEL%u", line, cpu, i);
		}
		EXPECT_U64(pmc[i], regs_get(rg, cpu, MSR_PMC(i))) {
			TH_LOG("line %d cpu %u PMC%u", line, cpu, i);
		}
	}
	for (i = 0; i < info->caps.nr_fixed; i++) {
		EXPECT_U64(fctr[i], regs_get(rg, cpu, MSR_FIXED_CTR(i))) {
			TH_LOG("line %d cpu %u FIXED_CTR%u", line, cpu, i);
		}
	}
	EXPECT_U64(fixed_ctrl, regs_get(rg, cpu, MSR_FIXED_CTRL)) {
		TH_LOG("line %d cpu %u FIXED_CTR_CTRL", line, cpu);
	}
	EXPECT_U64(global, regs_get(rg, cpu, MSR_GLOBAL_CTRL)) {
		TH_LOG("line %d cpu %u GLOBAL_CTRL", line, cpu);
	}
	for (k = 0; k < nx; k++) {
		EXPECT_U64(xval[k], regs_get(rg, cpu, xmsr[k])) {
			TH_LOG("line %d cpu %u MSR %#x", line, cpu, xmsr[k]);
		}
	}
}

static void check_all(struct __test_metadata *_metadata,
		      const struct pmuctl_info *info, __u64 cpus,
		      const struct pmuctl_event *ev, __u32 n, bool running,
		      int line)
{
	static struct pregs rg;
	__u32 cpu;

	ASSERT_EQ(0, regs_read(&rg));
	for (cpu = 0; cpu < info->nr_cpus && cpu < 64; cpu++)
		check_cpu(_metadata, info, &rg, cpu, ev,
			  cpus & (1ULL << cpu) ? n : 0, running, NULL, line);
}

static void load(const struct group *g, struct pmuctl_event *ev)
{
	__u32 i;

	for (i = 0; i < g->n; i++)
		ev[i] = ev_make(g->ev[i].config, g->ev[i].extra, g->ev[i].flags);
}

/* Extra MSR slots a group takes on one CPU. */
static __u32 group_xregs(const struct group *g)
{
	__u32 seen[4] = { 0 }, n = 0, i, k;

	for (i = 0; i < g->n; i++) {
		bool dup = false;

		if (!g->ev[i].extra_msr)
			continue;
		for (k = 0; k < n; k++)
			dup |= seen[k] == g->ev[i].extra_msr;
		if (!dup)
			seen[n++] = g->ev[i].extra_msr;
	}
	return n;
}

static bool group_applies(const struct group *g, const struct pmuctl_info *info)
{
	return g->models & (1U << info->pmu_model);
}

/*
 * The model's "add" (the fuzzer's tick): N more events in a counter of the
 * writer's own CPU, in one step; naming another CPU changes nothing.
 */
TEST_F(regs, model_add_counts_only_on_the_writers_cpu)
{
	struct pregs rg;
	int c;

	NEED_REGS();
	ASSERT_EQ(0, pin_cpu(1));
	ASSERT_EQ(0, regs_preset(0, MSR_PMC(0), 5));
	ASSERT_EQ(0, regs_preset(1, MSR_PMC(0), 5));
	EXPECT_EQ(0, regs_add_here(1, MSR_PMC(0), 7));
	EXPECT_EQ(-EAGAIN, regs_add_here(0, MSR_PMC(0), 100));
	ASSERT_EQ(0, regs_read(&rg));
	EXPECT_U64(12, regs_get(&rg, 1, MSR_PMC(0)));
	EXPECT_U64(5, regs_get(&rg, 0, MSR_PMC(0)));
	/* more than the counter holds faults, as a write of it would */
	EXPECT_EQ(-EIO, regs_add_here(1, MSR_FIXED_CTR(0), 1ULL << 60));
	for (c = 0; c < 2; c++)
		EXPECT_EQ(0, regs_preset(c, MSR_PMC(0), 0));
}

TEST_F(regs, program_replies_counter_config_used_and_extra_msr)
{
	struct pmuctl_event ev[8];
	struct pmuctl_program p;
	unsigned int i, k, ran = 0;

	NEED_REGS();
	for (i = 0; i < ARRAY_SIZE(groups); i++) {
		const struct group *g = &groups[i];

		if (!group_applies(g, &self->info))
			continue;
		ran++;
		load(g, ev);
		ASSERT_EQ(0, dev_program(self->fd, ev, g->n, self->all, &p)) {
			TH_LOG("line %d: reason %u index %u", g->line,
			       p.err_reason, p.err_index);
		}
		for (k = 0; k < g->n; k++) {
			EXPECT_U64(g->ev[k].counter, ev[k].counter) {
				TH_LOG("line %d event %u", g->line, k);
			}
			EXPECT_U64(g->ev[k].config_used, ev[k].config_used) {
				TH_LOG("line %d event %u", g->line, k);
			}
			EXPECT_U64(g->ev[k].extra_msr, ev[k].extra_msr) {
				TH_LOG("line %d event %u", g->line, k);
			}
			/* Inputs come back as they went in. */
			EXPECT_U64(g->ev[k].config, ev[k].config);
			EXPECT_U64(g->ev[k].extra, ev[k].extra);
		}
		ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
	}
	EXPECT_LT(0U, ran);
}

TEST_F(regs, program_writes_stopped_zeroed_counters_on_every_cpu)
{
	struct pmuctl_event ev[8];
	struct pmuctl_program p;
	unsigned int i, k, cpu;

	NEED_REGS();
	for (i = 0; i < ARRAY_SIZE(groups); i++) {
		const struct group *g = &groups[i];

		if (!group_applies(g, &self->info))
			continue;
		/* Leftover counts that PROGRAM must zero. */
		for (cpu = 0; cpu < self->info.nr_cpus; cpu++) {
			for (k = 0; k < g->n; k++) {
				ASSERT_EQ(0, regs_preset(cpu, counter_msr(g->ev[k].counter),
							 0x1000 + k + cpu));
			}
		}
		load(g, ev);
		ASSERT_EQ(0, dev_program(self->fd, ev, g->n, self->all, &p));
		check_all(_metadata, &self->info, self->all, ev, g->n, false, g->line);
		ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
		check_all(_metadata, &self->info, self->all, ev, 0, false, g->line);
	}
}

TEST_F(regs, start_sets_enable_fixed_nibbles_and_global_ctrl)
{
	struct pmuctl_event ev[8];
	struct pmuctl_program p;
	unsigned int i;

	NEED_REGS();
	for (i = 0; i < ARRAY_SIZE(groups); i++) {
		const struct group *g = &groups[i];

		if (!group_applies(g, &self->info))
			continue;
		load(g, ev);
		ASSERT_EQ(0, dev_program(self->fd, ev, g->n, self->all, &p));
		ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_START));
		check_all(_metadata, &self->info, self->all, ev, g->n, true, g->line);
		/* START while running changes nothing. */
		ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_START));
		check_all(_metadata, &self->info, self->all, ev, g->n, true, g->line);
		ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
		check_all(_metadata, &self->info, self->all, ev, 0, false, g->line);
	}
}

/* Preset distinct counts on each CPU; returns them in @cnt[cpu][event]. */
static void preset_counts(struct __test_metadata *_metadata,
			  const struct pmuctl_info *info,
			  const struct pmuctl_event *ev, __u32 n,
			  __u64 cnt[][8])
{
	__u32 cpu, k;

	for (cpu = 0; cpu < info->nr_cpus && cpu < 2; cpu++) {
		for (k = 0; k < n; k++) {
			__u32 c = ev[k].counter;
			__u64 v = 0x10000ULL * (cpu + 1) + 0x100 * k + 7;
			__u32 msr = counter_msr(c);

			/* Full width where the PMU allows it. */
			if (c & PMUCTL_COUNTER_FIXED) {
				v |= 1ULL << (info->caps.fixed_width - 1);
			} else if (info->caps.flags & PMUCTL_CAP_FULL_WIDTH_WRITE) {
				v |= 1ULL << (info->caps.gp_width - 1);
				msr = MSR_A_PMC(c);
			}
			ASSERT_EQ(0, regs_preset(cpu, msr, v));
			cnt[cpu][k] = v;
		}
	}
}

static void expect_read(struct __test_metadata *_metadata, int fd,
			__u32 cpu, __u32 n, const __u64 *want, int line)
{
	__u64 val[8];
	__u32 k;

	ASSERT_EQ(0, dev_read(fd, cpu, val, n));
	for (k = 0; k < n; k++) {
		EXPECT_U64(want ? want[k] : 0, val[k]) {
			TH_LOG("line %d cpu %u event %u", line, cpu, k);
		}
	}
}

TEST_F(regs, read_returns_each_cpus_own_counts_in_event_order)
{
	struct pmuctl_event ev[8];
	struct pmuctl_program p;
	__u64 cnt[2][8];
	unsigned int i, cpu;

	NEED_REGS();
	for (i = 0; i < ARRAY_SIZE(groups); i++) {
		const struct group *g = &groups[i];

		if (!group_applies(g, &self->info))
			continue;
		load(g, ev);
		ASSERT_EQ(0, dev_program(self->fd, ev, g->n, self->all, &p));
		for (cpu = 0; cpu < self->info.nr_cpus; cpu++)
			expect_read(_metadata, self->fd, cpu, g->n, NULL, g->line);
		preset_counts(_metadata, &self->info, ev, g->n, cnt);
		for (cpu = 0; cpu < self->info.nr_cpus && cpu < 2; cpu++)
			expect_read(_metadata, self->fd, cpu, g->n, cnt[cpu], g->line);
		ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
	}
}

TEST_F(regs, stop_clears_enable_and_keeps_counts)
{
	static struct pregs rg;
	struct pmuctl_event ev[8];
	struct pmuctl_program p;
	__u64 cnt[2][8];
	unsigned int i, cpu;

	NEED_REGS();
	for (i = 0; i < ARRAY_SIZE(groups); i++) {
		const struct group *g = &groups[i];

		if (!group_applies(g, &self->info))
			continue;
		load(g, ev);
		ASSERT_EQ(0, dev_program(self->fd, ev, g->n, self->all, &p));
		ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_START));
		preset_counts(_metadata, &self->info, ev, g->n, cnt);
		ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_STOP));
		ASSERT_EQ(0, regs_read(&rg));
		for (cpu = 0; cpu < self->info.nr_cpus && cpu < 2; cpu++) {
			check_cpu(_metadata, &self->info, &rg, cpu, ev, g->n,
				  false, cnt[cpu], g->line);
			expect_read(_metadata, self->fd, cpu, g->n, cnt[cpu], g->line);
		}
		/* START again: running, counts still kept. */
		ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_START));
		ASSERT_EQ(0, regs_read(&rg));
		for (cpu = 0; cpu < self->info.nr_cpus && cpu < 2; cpu++)
			check_cpu(_metadata, &self->info, &rg, cpu, ev, g->n,
				  true, cnt[cpu], g->line);
		ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
	}
}

TEST_F(regs, reset_zeroes_counts_running_or_stopped)
{
	static struct pregs rg;
	struct pmuctl_event ev[8];
	struct pmuctl_program p;
	__u64 cnt[2][8];
	unsigned int i, cpu, running;

	NEED_REGS();
	for (i = 0; i < ARRAY_SIZE(groups); i++) {
		const struct group *g = &groups[i];

		if (!group_applies(g, &self->info))
			continue;
		load(g, ev);
		ASSERT_EQ(0, dev_program(self->fd, ev, g->n, self->all, &p));
		for (running = 0; running < 2; running++) {
			ASSERT_EQ(0, dev_ctl(self->fd, running ? PMUCTL_IOC_START :
							     PMUCTL_IOC_STOP));
			preset_counts(_metadata, &self->info, ev, g->n, cnt);
			for (cpu = 0; cpu < self->info.nr_cpus && cpu < 2; cpu++)
				expect_read(_metadata, self->fd, cpu, g->n, cnt[cpu], g->line);
			ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RESET));
			ASSERT_EQ(0, regs_read(&rg));
			for (cpu = 0; cpu < self->info.nr_cpus && cpu < 2; cpu++) {
				check_cpu(_metadata, &self->info, &rg, cpu, ev, g->n,
					  running, NULL, g->line);
				expect_read(_metadata, self->fd, cpu, g->n, NULL, g->line);
			}
		}
		ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
	}
}

TEST_F(regs, release_zeroes_counters_and_restores_what_it_found)
{
	static struct pregs rg;
	struct pmuctl_event ev = ev_make(EV_LLC_REF | USR, 0, 0);
	struct pmuctl_program p;
	__u32 last = self->info.caps.nr_gp - 1, cpu;
	/* Another agent's setup, on registers the group does not use. */
	const __u64 f_evtsel = EN | USR | OS | EV_BR_MISS;
	const __u64 f_fixed = 0x3ULL << 8;			/* fixed 2: OS|USR */
	const __u64 f_global = (1ULL << last) | (1ULL << 34);
	const __u64 f_rsp1 = REQ0 | ANYRSP;

	NEED_REGS();
	ASSERT_LT(0U, last);
	for (cpu = 0; cpu < self->info.nr_cpus; cpu++) {
		ASSERT_EQ(0, regs_preset(cpu, MSR_EVTSEL(last), f_evtsel));
		ASSERT_EQ(0, regs_preset(cpu, MSR_FIXED_CTRL, f_fixed));
		ASSERT_EQ(0, regs_preset(cpu, MSR_GLOBAL_CTRL, f_global));
		ASSERT_EQ(0, regs_preset(cpu, MSR_RSP1, f_rsp1));
		ASSERT_EQ(0, regs_preset(cpu, MSR_PMC(0), 0x4242));
	}
	ASSERT_EQ(0, dev_program(self->fd, &ev, 1, self->all, &p));
	ASSERT_U64(0, ev.counter);
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_START));
	ASSERT_EQ(0, regs_preset(0, MSR_PMC(0), 0x777));
	ASSERT_EQ(0, regs_read(&rg));
	for (cpu = 0; cpu < self->info.nr_cpus; cpu++) {
		/* pmuctl's counter runs; the other registers are left alone. */
		EXPECT_U64(EV_LLC_REF | USR | EN, regs_get(&rg, cpu, MSR_EVTSEL(0)));
		EXPECT_U64(1, regs_get(&rg, cpu, MSR_GLOBAL_CTRL) & 1);
		EXPECT_U64(f_evtsel, regs_get(&rg, cpu, MSR_EVTSEL(last)));
		EXPECT_U64(f_fixed, regs_get(&rg, cpu, MSR_FIXED_CTRL));
		EXPECT_U64(f_rsp1, regs_get(&rg, cpu, MSR_RSP1));
	}
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
	ASSERT_EQ(0, regs_read(&rg));
	for (cpu = 0; cpu < self->info.nr_cpus; cpu++) {
		EXPECT_U64(0, regs_get(&rg, cpu, MSR_EVTSEL(0))) TH_LOG("cpu %u", cpu);
		EXPECT_U64(0, regs_get(&rg, cpu, MSR_PMC(0))) TH_LOG("cpu %u", cpu);
		EXPECT_U64(f_evtsel, regs_get(&rg, cpu, MSR_EVTSEL(last))) TH_LOG("cpu %u", cpu);
		EXPECT_U64(f_fixed, regs_get(&rg, cpu, MSR_FIXED_CTRL)) TH_LOG("cpu %u", cpu);
		EXPECT_U64(f_global, regs_get(&rg, cpu, MSR_GLOBAL_CTRL)) TH_LOG("cpu %u", cpu);
		EXPECT_U64(f_rsp1, regs_get(&rg, cpu, MSR_RSP1)) TH_LOG("cpu %u", cpu);
		EXPECT_U64(0, regs_get(&rg, cpu, MSR_RSP0)) TH_LOG("cpu %u", cpu);
	}
}

/* The applicable groups after @g, wrapping round to @g itself last. */
static const struct group *next_group(const struct group *g,
				      const struct pmuctl_info *info)
{
	size_t i = (size_t)(g - groups);

	do {
		i = (i + 1) % ARRAY_SIZE(groups);
	} while (!group_applies(&groups[i], info));
	return &groups[i];
}

/*
 * Every applicable group replaced by the next one (and, where the model
 * has one group, by itself: the same counters, which must count as free),
 * stopped and running: the registers are the new group's alone, zeroed,
 * running as the old one was; the replies are the new group's; one wave.
 */
TEST_F(regs, replace_swaps_the_group_in_one_wave_keeping_it_running)
{
	struct pmuctl_event ev[8];
	struct pmuctl_program p;
	struct pstate st;
	__u64 cnt[2][8];
	unsigned long waves;
	unsigned int i, k, cpu, running, ran = 0;

	NEED_REGS();
	for (i = 0; i < ARRAY_SIZE(groups); i++) {
		const struct group *a = &groups[i], *b;

		if (!group_applies(a, &self->info))
			continue;
		b = next_group(a, &self->info);
		for (running = 0; running < 2; running++) {
			load(a, ev);
			ASSERT_EQ(0, dev_program(self->fd, ev, a->n, self->all, &p));
			if (running) {
				ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_START));
			}
			preset_counts(_metadata, &self->info, ev, a->n, cnt);
			ASSERT_EQ(0, state_read(&st));
			waves = st.waves;

			load(b, ev);
			ASSERT_EQ(0, dev_replace(self->fd, ev, b->n, self->all, &p)) {
				TH_LOG("line %d by line %d: reason %u index %u",
				       a->line, b->line, p.err_reason, p.err_index);
			}
			ran++;
			ASSERT_EQ(0, state_read(&st));
			EXPECT_EQ(waves + 1, st.waves) {
				TH_LOG("line %d by line %d", a->line, b->line);
			}
			EXPECT_EQ(1U, st.programmed);
			for (k = 0; k < b->n; k++) {
				EXPECT_U64(b->ev[k].counter, ev[k].counter) {
					TH_LOG("line %d event %u", b->line, k);
				}
				EXPECT_U64(b->ev[k].config_used, ev[k].config_used);
				EXPECT_U64(b->ev[k].extra_msr, ev[k].extra_msr);
			}
			check_all(_metadata, &self->info, self->all, ev, b->n,
				  running, b->line);
			for (cpu = 0; cpu < self->info.nr_cpus; cpu++)
				expect_read(_metadata, self->fd, cpu, b->n, NULL, b->line);
			/* STOP and START act on the new group. */
			ASSERT_EQ(0, dev_ctl(self->fd, running ? PMUCTL_IOC_STOP :
								 PMUCTL_IOC_START));
			check_all(_metadata, &self->info, self->all, ev, b->n,
				  !running, b->line);
			ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
			check_all(_metadata, &self->info, self->all, ev, 0, false, b->line);
		}
	}
	EXPECT_LT(0U, ran);
}

/*
 * A replacement refused, for each reason it can have, leaves the old
 * group counting with its counts: every register and the module's state
 * as they were.
 */
TEST_F(regs, refused_replace_leaves_the_group_counting_with_its_counts)
{
	const struct group *a = NULL, *b;
	struct pmuctl_event ev[8], bad[2], two[2], hog[32];
	struct pmuctl_program p;
	struct snap before;
	__u64 cnt[2][8];
	__u32 k, ngp = self->info.caps.nr_gp;
	int fd2, fd3, tfd;

	NEED_REGS();
	ASSERT_EQ(0, pin_cpu(0));
	for (k = 0; k < ARRAY_SIZE(groups) && !a; k++)
		if (group_applies(&groups[k], &self->info))
			a = &groups[k];
	ASSERT_TRUE(a != NULL);
	b = next_group(a, &self->info);
	load(a, ev);
	ASSERT_EQ(0, dev_program(self->fd, ev, a->n, self->all, &p));
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_START));
	preset_counts(_metadata, &self->info, ev, a->n, cnt);
	ASSERT_EQ(0, snap_take(&before));

	/* A rule of one event: EDGE without CMASK, the second event. */
	bad[0] = ev_make(EV_BR | USR, 0, 0);
	bad[1] = ev_make(EV_BR_MISS | USR | EDGE, 0, 0);
	EXPECT_EQ(-EINVAL, dev_replace(self->fd, bad, 2, self->all, &p));
	EXPECT_EQ((__u32)PMUCTL_R_EDGE_NO_CMASK, p.err_reason);
	EXPECT_EQ(1U, p.err_index);
	EXPECT_UNCHANGED(&before, false);

	/* Other CPUs than the group's. */
	if (self->all != 1) {
		load(b, ev);
		EXPECT_EQ(-EINVAL, dev_replace(self->fd, ev, b->n, 1, &p));
		EXPECT_EQ((__u32)PMUCTL_R_REPLACE_SCOPE, p.err_reason);
		EXPECT_UNCHANGED(&before, false);
	}

	/* With TASK: a flag PROGRAM does not take. */
	load(b, ev);
	memset(&p, 0, sizeof(p));
	p.flags = PMUCTL_PROGRAM_TASK | PMUCTL_PROGRAM_REPLACE;
	p.nr_events = b->n;
	p.events = (uintptr_t)ev;
	EXPECT_EQ(-EINVAL, dev_ioctl(self->fd, PMUCTL_IOC_PROGRAM, &p));
	EXPECT_EQ((__u32)PMUCTL_R_BAD_FLAGS, p.err_reason);
	EXPECT_UNCHANGED(&before, false);

	/* A write that faults, on each CPU: rolled back, counts included. */
	for (k = 0; k < self->info.nr_cpus && k < 2; k++) {
		load(b, ev);
		ASSERT_EQ(0, fail_next_write(k));
		EXPECT_EQ(-EIO, dev_replace(self->fd, ev, b->n, self->all, &p));
		EXPECT_EQ((__u32)PMUCTL_R_HW_FAULT, p.err_reason);
		EXPECT_EQ(k, p.err_cpu);
		EXPECT_UNCHANGED(&before, true);
	}
	for (k = 0; k < self->info.nr_cpus && k < 2; k++)
		expect_read(_metadata, self->fd, k, a->n, cnt[k], a->line);

	/*
	 * Counters another session holds.  With one generic counter free
	 * besides the group's own, a group of two takes both (the group's
	 * own counts as free); with none free, it is refused and the group
	 * keeps its own.
	 */
	snap_free(&before);
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
	ASSERT_EQ(0, regs_zero_all());
	two[0] = ev_make(EV_LLC_REF | USR, 0, GONLY);
	two[1] = ev_make(EV_LLC_MISS | USR, 0, GONLY);
	ASSERT_EQ(0, dev_program(self->fd, two, 1, self->all, &p));
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_START));
	fd2 = dev_open();
	fd3 = dev_open();
	ASSERT_LE(0, fd2);
	ASSERT_LE(0, fd3);
	for (k = 0; k < ngp; k++)
		hog[k] = ev_make(EV_BR | USR, 0, GONLY);
	if (ngp > 2) {
		ASSERT_EQ(0, dev_program(fd2, hog, ngp - 2, self->all, &p));
	}
	EXPECT_EQ(0, dev_replace(self->fd, two, 2, self->all, &p));
	ASSERT_EQ(0, dev_replace(self->fd, two, 1, self->all, &p));
	ASSERT_EQ(0, dev_program(fd3, hog, 1, self->all, &p));
	ASSERT_EQ(0, snap_take(&before));
	EXPECT_EQ(-EBUSY, dev_replace(self->fd, two, 2, self->all, &p));
	EXPECT_EQ((__u32)PMUCTL_R_COUNTERS_BUSY, p.err_reason);
	EXPECT_EQ(1U, p.err_index);
	EXPECT_UNCHANGED(&before, false);
	snap_free(&before);
	close(fd3);
	close(fd2);

	/* A task-scope group is not replaced. */
	tfd = dev_open();
	ASSERT_LE(0, tfd);
	two[0] = ev_make(EV_LLC_MISS | USR, 0, GONLY);
	ASSERT_EQ(0, dev_program_task(tfd, two, 1, 0, &p));
	EXPECT_EQ(-EINVAL, dev_replace(tfd, two, 1, self->all, &p));
	EXPECT_EQ((__u32)PMUCTL_R_REPLACE_SCOPE, p.err_reason);
	close(tfd);
}

TEST_F(regs, cpus_outside_the_bitmap_are_untouched)
{
	static struct pregs before, now;
	struct pmuctl_event ev[8];
	struct pmuctl_program p;
	static const unsigned long cmds[] = {
		PMUCTL_IOC_START, PMUCTL_IOC_RESET, PMUCTL_IOC_STOP,
		PMUCTL_IOC_RESET, PMUCTL_IOC_START, PMUCTL_IOC_RELEASE,
	};
	unsigned int i, c, r;
	struct pstate st;
	__u64 val[8];

	NEED_REGS();
	if (self->info.nr_cpus < 2)
		SKIP(return, "needs 2 CPUs");
	/*
	 * The programming thread, granted rdpmc, runs on CPU 1: a CPU where
	 * a granted thread runs has its leftover counts zeroed first
	 * (rdpmc_test), which this test is not about.
	 */
	ASSERT_EQ(0, pin_cpu(1));
	/* CPU 0 holds some foreign state; the session runs on CPU 1 only. */
	ASSERT_EQ(0, regs_preset(0, MSR_EVTSEL(0), EV_BR | USR));
	ASSERT_EQ(0, regs_preset(0, MSR_PMC(0), 0x55));
	ASSERT_EQ(0, regs_preset(0, MSR_FIXED_CTR(0), 0x66));
	ASSERT_EQ(0, regs_read(&before));
	for (i = 0; i < ARRAY_SIZE(groups); i++) {
		const struct group *g = &groups[i];

		if (!group_applies(g, &self->info))
			continue;
		load(g, ev);
		ASSERT_EQ(0, dev_program(self->fd, ev, g->n, 2, &p));
		ASSERT_EQ(0, state_read(&st));
		EXPECT_EQ(0U, state_cpu_claims(&st, 0)) TH_LOG("line %d", g->line);
		EXPECT_EQ(g->n + group_xregs(g), state_cpu_claims(&st, 1)) {
			TH_LOG("line %d", g->line);
		}
		/* The session's CPU reads, the other one is not the session's. */
		EXPECT_EQ(0, dev_read(self->fd, 1, val, g->n));
		EXPECT_EQ(-EINVAL, dev_read(self->fd, 0, val, g->n));
		for (c = 0; c < ARRAY_SIZE(cmds); c++) {
			if (c) {
				ASSERT_EQ(0, dev_ctl(self->fd, cmds[c - 1]));
			}
			ASSERT_EQ(0, regs_read(&now));
			for (r = 0; r < before.n; r++) {
				if (before.r[r].cpu != 0)
					continue;
				EXPECT_U64(before.r[r].val,
					   regs_get(&now, 0, before.r[r].msr)) {
					TH_LOG("line %d step %u cpu 0 msr %#x", g->line,
					       c, before.r[r].msr);
				}
			}
		}
		ASSERT_EQ(0, dev_ctl(self->fd, cmds[ARRAY_SIZE(cmds) - 1]));
		ASSERT_EQ(0, regs_read(&now));
		for (r = 0; r < before.n; r++) {
			EXPECT_U64(before.r[r].val,
				   regs_get(&now, before.r[r].cpu, before.r[r].msr)) {
				TH_LOG("after RELEASE, line %d cpu %u msr %#x", g->line,
				       before.r[r].cpu, before.r[r].msr);
			}
		}
	}
}

TEST_F(regs, offline_cpu_reads_enodev_and_is_programmed_when_back)
{
	static struct pregs rg;
	struct pmuctl_event ev[8];
	struct pmuctl_program p;
	const struct group *g = NULL;
	__u64 val[8];
	unsigned int i;
	int err;

	NEED_REGS();
	if (self->info.nr_cpus < 2 || access("/sys/devices/system/cpu/cpu1/online", W_OK))
		SKIP(return, "needs a CPU 1 that can go offline");
	for (i = 0; i < ARRAY_SIZE(groups) && !g; i++)
		if (group_applies(&groups[i], &self->info))
			g = &groups[i];
	ASSERT_TRUE(g != NULL);
	ASSERT_EQ(0, pin_cpu(0));
	err = cpu_set_online(1, false);
	if (err)
		SKIP(return, "cannot offline CPU 1: %s", strerror(-err));
	self->online_changed = true;

	/* PROGRAM with CPU 1 offline: written when it comes back. */
	load(g, ev);
	ASSERT_EQ(0, dev_program(self->fd, ev, g->n, 3, &p));
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_START));
	EXPECT_EQ(-ENODEV, dev_read(self->fd, 1, val, g->n));
	EXPECT_EQ(0, dev_read(self->fd, 0, val, g->n));
	ASSERT_EQ(0, regs_read(&rg));
	check_cpu(_metadata, &self->info, &rg, 0, ev, g->n, true, NULL, g->line);
	check_cpu(_metadata, &self->info, &rg, 1, ev, 0, false, NULL, g->line);

	ASSERT_EQ(0, cpu_set_online(1, true));
	self->online_changed = false;
	EXPECT_EQ(0, dev_read(self->fd, 1, val, g->n));
	ASSERT_EQ(0, regs_read(&rg));
	check_cpu(_metadata, &self->info, &rg, 1, ev, g->n, true, NULL, g->line);

	/* Going offline again stops pmuctl's counters there. */
	ASSERT_EQ(0, cpu_set_online(1, false));
	self->online_changed = true;
	ASSERT_EQ(0, regs_read(&rg));
	check_cpu(_metadata, &self->info, &rg, 1, ev, 0, false, NULL, g->line);
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
	ASSERT_EQ(0, cpu_set_online(1, true));
	self->online_changed = false;
	ASSERT_EQ(0, regs_read(&rg));
	check_cpu(_metadata, &self->info, &rg, 0, ev, 0, false, NULL, g->line);
	check_cpu(_metadata, &self->info, &rg, 1, ev, 0, false, NULL, g->line);
}

DEVICE_TEST_MAIN
