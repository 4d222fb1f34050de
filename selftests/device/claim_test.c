// SPDX-License-Identifier: GPL-2.0
/*
 * Counters someone else runs.  Before PROGRAM claims a counter on a CPU,
 * pmuctl looks at it as perf's check_hw_exists() does: EN in its
 * PERFEVTSELx, or OS/USR in its FIXED_CTR_CTRL nibble, means firmware, a
 * hypervisor or another driver counts with it, and nothing may be written:
 *
 *  - PROGRAM on a set of CPUs where one CPU runs a counter the group would
 *    take is EBUSY with err_reason COUNTER_IN_USE, err_cpu that CPU and
 *    err_index the event; state and regs are as before on every CPU, the
 *    foreign counter keeps running;
 *  - the same group on the other CPUs alone is accepted;
 *  - a running counter the group does not take is left alone, through
 *    PROGRAM and RELEASE;
 *  - task scope (PMUCTL_PROGRAM_TASK) refuses the same way: its thread may
 *    run on any CPU, so a counter the group would take running on any
 *    online CPU is EBUSY, COUNTER_IN_USE, with the err_index and err_cpu
 *    a CPU-scope PROGRAM of the same group on every online CPU gets, and
 *    nothing changes;
 *  - the foreign counters' select, FIXED_CTR_CTRL nibble and GLOBAL_CTRL
 *    enable bit stay as they were through PROGRAM, START, STOP, the
 *    counted thread's context switches and RELEASE of a CPU-scope or a
 *    task-scope group;
 *  - with only task-scope groups held, a CPU going offline and coming back
 *    keeps them too (and the extra MSRs), even after an earlier CPU-scope
 *    session there saw other values.
 *
 * Needs the register-model build of pmuctl.ko (its regs file presets the
 * foreign values); SKIPs without it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib.h"
#include "kselftest_harness.h"

/* A counter somebody else programmed and enabled. */
#define FOREIGN_EVTSEL	(EV_BR | USR | OS | EN)
#define FIXED_NIBBLE_USR(i)	(0x2ULL << (4 * (i)))

FIXTURE(claim) {
	int fd;
	struct pmuctl_info info;
	bool online_changed;	/* CPU 1 was taken offline */
};

FIXTURE_SETUP(claim)
{
	self->fd = dev_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, dev_info(self->fd, &self->info));
	if (self->info.backend != PMUCTL_BACKEND_MODEL || !have_regs())
		SKIP(return, "needs the register-model pmuctl.ko (%s)", DBG_REGS);
	if (self->info.nr_cpus < 2 || cpus_online() < 2)
		SKIP(return, "needs 2 online CPUs");
	ASSERT_EQ(0, state_wait_clean(1000));
	ASSERT_EQ(0, regs_zero_all());
}

FIXTURE_TEARDOWN(claim)
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

/* PROGRAM @ev on CPUs 0 and 1 with CPU 1 running @msr = @val: refused. */
static void refused_on_cpu1(struct __test_metadata *_metadata,
			    FIXTURE_DATA(claim) *self, struct pmuctl_event *ev,
			    __u32 n, __u32 bad, __u32 msr, __u64 val)
{
	struct pmuctl_program p;
	struct snap before = { 0 };
	struct pregs rg;
	struct pstate st;

	ASSERT_EQ(0, regs_preset(1, msr, val));
	ASSERT_EQ(0, snap_take(&before));
	EXPECT_EQ(-EBUSY, dev_program(self->fd, ev, n, 0x3, &p));
	EXPECT_U64(PMUCTL_R_COUNTER_IN_USE, p.err_reason);
	EXPECT_U64(1, p.err_cpu);
	EXPECT_U64(bad, p.err_index);
	EXPECT_UNCHANGED(&before, true);
	snap_free(&before);
	ASSERT_EQ(0, state_read(&st));
	EXPECT_EQ(0U, st.programmed);
	EXPECT_EQ(0U, st.perf_reserved);
	ASSERT_EQ(0, regs_read(&rg));
	EXPECT_U64(val, regs_get(&rg, 1, msr));

	/* CPU 0 alone holds nothing foreign: the same group fits there. */
	EXPECT_EQ(0, dev_program(self->fd, ev, n, 0x1, &p));
	EXPECT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
	ASSERT_EQ(0, regs_read(&rg));
	EXPECT_U64(val, regs_get(&rg, 1, msr));
}

TEST_F(claim, running_generic_counter_refuses_its_cpu)
{
	struct pmuctl_event ev[2] = {
		ev_make(EV_INST | USR, 0, 0),
		ev_make(EV_LLC_MISS | USR, 0, GONLY),
	};

	/* The generic event goes to PMC0, the first free counter. */
	refused_on_cpu1(_metadata, self, ev, 2, 1, MSR_EVTSEL(0),
			FOREIGN_EVTSEL);
}

TEST_F(claim, running_fixed_counter_refuses_its_cpu)
{
	struct pmuctl_event ev[2] = {
		ev_make(EV_LLC_MISS | USR, 0, GONLY),
		ev_make(EV_REF | USR, 0, 0),	/* fixed counter 2 only */
	};

	refused_on_cpu1(_metadata, self, ev, 2, 1, MSR_FIXED_CTRL,
			FIXED_NIBBLE_USR(2));
}

/* Enabled only in GLOBAL_CTRL, or programmed but not enabled: not running. */
TEST_F(claim, programmed_but_disabled_counters_are_free)
{
	struct pmuctl_event ev = ev_make(EV_LLC_MISS | USR, 0, GONLY);
	struct pmuctl_program p;

	ASSERT_EQ(0, regs_preset(1, MSR_EVTSEL(0), EV_BR | USR | OS));
	ASSERT_EQ(0, regs_preset(1, MSR_GLOBAL_CTRL, 0x1));
	EXPECT_EQ(0, dev_program(self->fd, &ev, 1, 0x3, &p));
	EXPECT_U64(0, ev.counter);
	EXPECT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
}

TEST_F(claim, running_counters_the_group_does_not_take_stay_running)
{
	struct pmuctl_event ev = ev_make(EV_LLC_MISS | USR, 0, GONLY);
	struct pmuctl_program p;
	struct pregs rg;

	ASSERT_EQ(0, regs_preset(1, MSR_EVTSEL(1), FOREIGN_EVTSEL));
	ASSERT_EQ(0, regs_preset(1, MSR_FIXED_CTRL, FIXED_NIBBLE_USR(1)));
	ASSERT_EQ(0, dev_program(self->fd, &ev, 1, 0x3, &p));
	EXPECT_U64(0, ev.counter);
	ASSERT_EQ(0, regs_read(&rg));
	EXPECT_U64(FOREIGN_EVTSEL, regs_get(&rg, 1, MSR_EVTSEL(1)));
	EXPECT_U64(FIXED_NIBBLE_USR(1), regs_get(&rg, 1, MSR_FIXED_CTRL));
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
	ASSERT_EQ(0, regs_read(&rg));
	EXPECT_U64(FOREIGN_EVTSEL, regs_get(&rg, 1, MSR_EVTSEL(1)));
	EXPECT_U64(FIXED_NIBBLE_USR(1), regs_get(&rg, 1, MSR_FIXED_CTRL));
}

/* ---- task scope, and the registers around pmuctl's own ------------------ */

/* One foreign register: the bits of @mask that must stay @val. */
struct foreign {
	__u32 cpu, msr;
	__u64 val, mask;
};

static int foreign_preset(const struct foreign *f, unsigned int n)
{
	unsigned int i;
	int err = 0;

	for (i = 0; !err && i < n; i++)
		err = regs_preset(f[i].cpu, f[i].msr, f[i].val);
	return err;
}

/* Every foreign register still holds its bits; @step names the moment. */
static void expect_foreign(struct __test_metadata *_metadata,
			   const struct foreign *f, unsigned int n,
			   const char *step)
{
	static struct pregs rg;
	unsigned int i;

	ASSERT_EQ(0, regs_read(&rg));
	for (i = 0; i < n; i++) {
		__u64 got = regs_get(&rg, f[i].cpu, f[i].msr);

		EXPECT_U64(f[i].val & f[i].mask, got & f[i].mask) {
			TH_LOG("%s: cpu %u msr %#x is %#llx, preset %#llx (bits %#llx)",
			       step, f[i].cpu, f[i].msr, (unsigned long long)got,
			       (unsigned long long)f[i].val,
			       (unsigned long long)f[i].mask);
		}
	}
}

/* No session holds a counter or an extra MSR on any CPU (INFO holdings). */
static void expect_holdings_free(struct __test_metadata *_metadata, int fd,
				 const char *step)
{
	unsigned int n = cpus_possible(), c, k;
	struct pmuctl_holding *h = calloc(n, sizeof(*h));
	struct pmuctl_info in;

	ASSERT_NE(NULL, h);
	memset(&in, 0, sizeof(in));
	in.holdings = (uintptr_t)h;
	in.holding_size = sizeof(*h);
	in.holdings_size = n * sizeof(*h);
	ASSERT_EQ(0, dev_ioctl(fd, PMUCTL_IOC_INFO, &in));
	ASSERT_EQ(n, in.holdings_nr);
	for (c = 0; c < n; c++) {
		for (k = 0; k < PMUCTL_HOLDING_COUNTERS; k++) {
			EXPECT_EQ(0U, h[c].owner[k]) {
				TH_LOG("%s: cpu %u counter index %u owner %#x", step,
				       c, k, h[c].owner[k]);
			}
		}
		for (k = 0; k < PMUCTL_HOLDING_XREGS; k++) {
			EXPECT_EQ(0U, h[c].xreg[k].refcount) {
				TH_LOG("%s: cpu %u extra MSR %#x", step, c, h[c].xreg[k].msr);
			}
		}
	}
	free(h);
}

/* Every online CPU, as a one-word bitmap (the rig's CPUs are 0..n-1). */
static __u64 online_cpus(void)
{
	unsigned int n = cpus_online();

	return n >= 64 ? ~0ULL : (1ULL << n) - 1;
}

/*
 * The thread may run on any CPU: a counter the task-scope group would
 * take, running on any one online CPU (the caller's or another), refuses
 * it as CPU-scope PROGRAM of the group on every online CPU is refused:
 * EBUSY, COUNTER_IN_USE, that event, that CPU; and nothing changes.
 */
TEST_F(claim, task_scope_program_refuses_a_counter_running_on_any_cpu)
{
	/* INST_RETIRED.ANY goes to fixed counter 0, the LLC misses to PMC0. */
	const struct pmuctl_event group[2] = {
		ev_make(EV_INST | USR, 0, 0),
		ev_make(EV_LLC_MISS | USR, 0, GONLY),
	};
	static const struct {
		const char *what;
		__u32 msr;
		__u64 val;
		__u32 bad;	/* the event that would take it */
	} running[] = {
		{ "PMC0 (EVTSEL0 EN)", MSR_EVTSEL(0), FOREIGN_EVTSEL, 1 },
		{ "fixed counter 0 (OS|USR nibble)", MSR_FIXED_CTRL, 0x3, 0 },
	};
	unsigned int ncpu = cpus_online(), c, r;
	struct pmuctl_event ev[2];
	struct pmuctl_program cp, tp;
	struct snap before = { 0 };
	int cret, tret;

	/* The counted thread runs on CPU 0; the counter runs here or elsewhere. */
	ASSERT_EQ(0, pin_cpu(0));
	for (r = 0; r < ARRAY_SIZE(running); r++) {
		for (c = 0; c < ncpu; c++) {
			ASSERT_EQ(0, regs_zero_all());
			ASSERT_EQ(0, regs_preset(c, running[r].msr, running[r].val));
			ASSERT_EQ(0, snap_take(&before));

			/* CPU scope, the reference. */
			memcpy(ev, group, sizeof(ev));
			cret = dev_program(self->fd, ev, 2, online_cpus(), &cp);
			EXPECT_EQ(-EBUSY, cret) TH_LOG("CPU scope, %s running on cpu %u",
						       running[r].what, c);
			EXPECT_U64(PMUCTL_R_COUNTER_IN_USE, cp.err_reason);
			EXPECT_U64(running[r].bad, cp.err_index);
			EXPECT_U64(c, cp.err_cpu);
			if (!cret)
				ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
			EXPECT_UNCHANGED(&before, true);

			/* Task scope: the same answer, nothing changed. */
			memcpy(ev, group, sizeof(ev));
			tret = dev_program_task(self->fd, ev, 2, 0, &tp);
			EXPECT_EQ(cret, tret) {
				TH_LOG("task scope, %s running on cpu %u: PROGRAM %s (CPU scope: %s)",
				       running[r].what, c, strerror(-tret), strerror(-cret));
			}
			EXPECT_U64(cp.err_reason, tp.err_reason) {
				TH_LOG("task scope, %s running on cpu %u: err_reason", running[r].what, c);
			}
			EXPECT_U64(cp.err_index, tp.err_index) {
				TH_LOG("task scope, %s running on cpu %u: err_index", running[r].what, c);
			}
			EXPECT_U64(cp.err_cpu, tp.err_cpu) {
				TH_LOG("task scope, %s running on cpu %u: err_cpu", running[r].what, c);
			}
			EXPECT_UNCHANGED(&before, true);
			expect_holdings_free(_metadata, self->fd, running[r].what);
			if (!tret)
				ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
			snap_free(&before);
		}
	}
}

/*
 * A task-scope PROGRAM refused for a counter running on CPU 0 leaves no
 * trace that a later CPU-scope PROGRAM reads: the same group on CPU 0 is
 * refused the same way, and the running counter keeps its select, count
 * and enable bit.  (The pool's check once left what it found in the
 * per-CPU field the CPU-scope wave reads as "refused by the wave before,
 * nothing written here": the next wave skipped its own check on CPU 0 and
 * claimed the running counter.  Found by selftests/fuzz.)
 */
TEST_F(claim, refused_task_program_leaves_nothing_for_the_next_cpu_scope_program)
{
	const struct pmuctl_event group = ev_make(EV_LLC_MISS | USR, 0, GONLY);
	struct pmuctl_event ev;
	struct pmuctl_program p;
	struct snap before = { 0 };
	struct pregs rg;
	int ret;

	ASSERT_EQ(0, pin_cpu(0));
	ASSERT_EQ(0, regs_preset(0, MSR_PMC(0), 0x1234));
	ASSERT_EQ(0, regs_preset(0, MSR_EVTSEL(0), FOREIGN_EVTSEL));
	ASSERT_EQ(0, regs_preset(0, MSR_GLOBAL_CTRL, 1));

	ev = group;
	EXPECT_EQ(-EBUSY, dev_program_task(self->fd, &ev, 1, 0, &p));
	EXPECT_U64(PMUCTL_R_COUNTER_IN_USE, p.err_reason);
	EXPECT_U64(0, p.err_cpu);

	ASSERT_EQ(0, snap_take(&before));
	ev = group;
	ret = dev_program(self->fd, &ev, 1, 0x1, &p);
	EXPECT_EQ(-EBUSY, ret) TH_LOG("CPU-scope PROGRAM on cpu 0 after the task-scope refusal: counter %#x",
				      ev.counter);
	EXPECT_U64(PMUCTL_R_COUNTER_IN_USE, p.err_reason);
	EXPECT_U64(0, p.err_cpu);
	if (!ret) {
		/* START writes what the claim took: the running counter's select */
		EXPECT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_START));
		EXPECT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
	}
	EXPECT_UNCHANGED(&before, true);
	snap_free(&before);
	ASSERT_EQ(0, regs_read(&rg));
	EXPECT_U64(FOREIGN_EVTSEL, regs_get(&rg, 0, MSR_EVTSEL(0)));
	EXPECT_U64(0x1234, regs_get(&rg, 0, MSR_PMC(0)));
	EXPECT_U64(1, regs_get(&rg, 0, MSR_GLOBAL_CTRL) & 1);
}

/* A foreign counter on CPU 0: CPU_CLK_UNHALTED.THREAD on PMC1, enabled in GLOBAL_CTRL. */
static const struct foreign on_cpu0_pmc1[] = {
	{ 0, MSR_EVTSEL(1), EV_CYCLES | USR | OS | EN, ~0ULL },
	{ 0, MSR_GLOBAL_CTRL, 1ULL << 1, 1ULL << 1 },
};

TEST_F(claim, cpu_scope_group_leaves_foreign_global_ctrl_bits_and_selects)
{
	struct pmuctl_event ev = ev_make(EV_LLC_MISS | USR, 0, GONLY);
	struct pmuctl_program p;
	static const struct {
		const char *step;
		unsigned long cmd;
	} steps[] = {
		{ "START", PMUCTL_IOC_START },
		{ "STOP", PMUCTL_IOC_STOP },
		{ "RESET", PMUCTL_IOC_RESET },
		{ "START again", PMUCTL_IOC_START },
		{ "RELEASE", PMUCTL_IOC_RELEASE },
	};
	unsigned int i;

	ASSERT_EQ(0, foreign_preset(on_cpu0_pmc1, ARRAY_SIZE(on_cpu0_pmc1)));
	ASSERT_EQ(0, dev_program(self->fd, &ev, 1, 0x1, &p)) {
		TH_LOG("reason %u index %u cpu %u", p.err_reason, p.err_index, p.err_cpu);
	}
	ASSERT_U64(0, ev.counter);
	expect_foreign(_metadata, on_cpu0_pmc1, ARRAY_SIZE(on_cpu0_pmc1), "PROGRAM");
	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		ASSERT_EQ(0, dev_ctl(self->fd, steps[i].cmd)) TH_LOG("%s", steps[i].step);
		expect_foreign(_metadata, on_cpu0_pmc1, ARRAY_SIZE(on_cpu0_pmc1),
			       steps[i].step);
	}
}

/* Context switches of the calling thread: it blocks, then yields. */
static void switch_a_few_times(void)
{
	int i;

	for (i = 0; i < 5; i++) {
		usleep(1000);
		sched_yield();
	}
}

TEST_F(claim, task_scope_group_leaves_foreign_global_ctrl_bits_and_selects)
{
	struct pmuctl_event ev = ev_make(EV_LLC_MISS | USR, 0, GONLY);
	struct pmuctl_program p;
	static const struct {
		const char *step;
		unsigned long cmd;	/* 0: context switches */
	} steps[] = {
		{ "START", PMUCTL_IOC_START },
		{ "context switches, running", 0 },
		{ "STOP", PMUCTL_IOC_STOP },
		{ "context switches, stopped", 0 },
		{ "START again", PMUCTL_IOC_START },
		{ "context switches, running again", 0 },
		{ "RELEASE", PMUCTL_IOC_RELEASE },
		{ "context switches, released", 0 },
	};
	unsigned int i;

	/* The counted thread is this one, on CPU 0 where the foreign counter runs. */
	ASSERT_EQ(0, pin_cpu(0));
	/*
	 * pmuctl's last CPU-scope session on CPU 0 came and went before the
	 * foreign counter started: what it found there then is no state to
	 * write back now.
	 */
	ASSERT_EQ(0, dev_program(self->fd, &ev, 1, 0x1, &p));
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_START));
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));

	ASSERT_EQ(0, foreign_preset(on_cpu0_pmc1, ARRAY_SIZE(on_cpu0_pmc1)));
	ev = ev_make(EV_LLC_MISS | USR, 0, GONLY);
	ASSERT_EQ(0, dev_program_task(self->fd, &ev, 1, 0, &p)) {
		TH_LOG("reason %u index %u cpu %u", p.err_reason, p.err_index, p.err_cpu);
	}
	ASSERT_U64(0, ev.counter);
	expect_foreign(_metadata, on_cpu0_pmc1, ARRAY_SIZE(on_cpu0_pmc1), "PROGRAM");
	switch_a_few_times();
	expect_foreign(_metadata, on_cpu0_pmc1, ARRAY_SIZE(on_cpu0_pmc1),
		       "context switches, programmed");
	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		if (steps[i].cmd) {
			ASSERT_EQ(0, dev_ctl(self->fd, steps[i].cmd)) TH_LOG("%s", steps[i].step);
		} else {
			switch_a_few_times();
		}
		expect_foreign(_metadata, on_cpu0_pmc1, ARRAY_SIZE(on_cpu0_pmc1),
			       steps[i].step);
	}
}

TEST_F(claim, cpu_offline_with_only_task_groups_leaves_foreign_registers)
{
	/* The task-scope group: fixed counter 0 and PMC0. */
	struct pmuctl_event ev[2] = {
		ev_make(EV_INST | USR, 0, 0),
		ev_make(EV_LLC_MISS | USR, 0, GONLY),
	};
	struct pmuctl_event cev = ev_make(EV_LLC_MISS | USR, 0, GONLY);
	__u32 last = self->info.caps.nr_gp - 1;
	struct foreign old[4], now[4];
	struct pmuctl_program p;
	unsigned int n = 0;
	struct pregs rg;
	bool rsp0;
	int err;

	if (access("/sys/devices/system/cpu/cpu1/online", W_OK))
		SKIP(return, "cpu1 cannot go offline");
	ASSERT_LT(0U, last);
	ASSERT_EQ(0, regs_read(&rg));
	rsp0 = regs_get(&rg, 1, MSR_RSP0) != ~0ULL;
	/*
	 * What CPU 1 holds when a first, CPU-scope session comes and goes
	 * there (nothing running but PMC0's), then what somebody else runs
	 * there afterwards: another generic counter, fixed counter 2, their
	 * GLOBAL_CTRL bits, an OFFCORE_RSP_0 value.
	 */
	old[n] = (struct foreign){ 1, MSR_EVTSEL(last), EV_BR | USR, ~0ULL };
	now[n++] = (struct foreign){ 1, MSR_EVTSEL(last), EV_BR_MISS | USR | OS | EN, ~0ULL };
	old[n] = (struct foreign){ 1, MSR_FIXED_CTRL, 0, ~0ULL };
	now[n++] = (struct foreign){ 1, MSR_FIXED_CTRL, 0x3ULL << 8, 0xfULL << 8 };
	old[n] = (struct foreign){ 1, MSR_GLOBAL_CTRL, 1ULL << last, ~0ULL };
	now[n++] = (struct foreign){ 1, MSR_GLOBAL_CTRL, (1ULL << last) | (1ULL << 34),
				     (1ULL << last) | (1ULL << 34) };
	if (rsp0) {
		old[n] = (struct foreign){ 1, MSR_RSP0, REQ0 | ANYRSP, ~0ULL };
		now[n++] = (struct foreign){ 1, MSR_RSP0, REQ1 | ANYRSP, ~0ULL };
	}

	ASSERT_EQ(0, foreign_preset(old, n));
	ASSERT_EQ(0, dev_program(self->fd, &cev, 1, 0x2, &p));
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_START));
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
	expect_foreign(_metadata, old, n, "first CPU-scope session released");
	ASSERT_EQ(0, foreign_preset(now, n));

	/* This thread counts, on CPU 0: CPU 1 runs only the foreign counters. */
	ASSERT_EQ(0, pin_cpu(0));
	ASSERT_EQ(0, dev_program_task(self->fd, ev, 2, 0, &p)) {
		TH_LOG("reason %u index %u cpu %u", p.err_reason, p.err_index, p.err_cpu);
	}
	ASSERT_U64(FIXED(0), ev[0].counter);
	ASSERT_U64(0, ev[1].counter);
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_START));
	switch_a_few_times();
	expect_foreign(_metadata, now, n, "task group counting on cpu 0");

	err = cpu_set_online(1, false);
	if (err)
		SKIP(return, "cannot offline cpu1: %s", strerror(-err));
	self->online_changed = true;
	expect_foreign(_metadata, now, n, "cpu 1 offline");
	ASSERT_EQ(0, cpu_set_online(1, true));
	self->online_changed = false;
	switch_a_few_times();
	expect_foreign(_metadata, now, n, "cpu 1 back online");
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
	expect_foreign(_metadata, now, n, "task group released");
}

DEVICE_TEST_MAIN
