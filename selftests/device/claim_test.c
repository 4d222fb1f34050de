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
 *    PROGRAM and RELEASE.
 *
 * Needs the register-model build of pmuctl.ko (its regs file presets the
 * foreign values); SKIPs without it.
 */
#define _GNU_SOURCE
#include <errno.h>
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

DEVICE_TEST_MAIN
