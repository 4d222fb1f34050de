// SPDX-License-Identifier: GPL-2.0
/*
 * Sessions next to each other: several processes, each with its own
 * /dev/pmuctl session, on CPU 0.
 *
 *  - their groups get disjoint counters, and one more than the PMU has is
 *    refused with COUNTERS_BUSY;
 *  - an OFFCORE_RSP value identical to one held is shared (refcount 2);
 *    another value moves to the other OFFCORE_RSP register with its event
 *    code rewritten (KNL/KNM umask 0x01 <-> 0x02, SKL event 0xb7 <-> 0xbb);
 *    when neither can take it: OFFCORE_BOTH_BUSY, or RSP0_BUSY/RSP1_BUSY
 *    when the value fits only its own register;
 *  - perf's counters are reserved while any group is held;
 *  - a session that exits without RELEASE, or is killed with SIGKILL,
 *    leaves no counter and no extra MSR reference behind.
 *
 * Observed through pmuctl/state (and pmuctl/regs where the register model
 * is loaded).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib.h"
#include "kselftest_harness.h"

#define NPEERS	9	/* 8 generic counters and one more */
#define CPU0	1ULL

FIXTURE(sessions) {
	struct pmuctl_info info;
	struct peer peer[NPEERS];
	bool knx, skl;
	bool ofc;		/* OFFCORE_RSP_0/1: KNL, KNM, SKL, ICX, SPR */
	bool pebs;		/* PEBS_FRONTEND, PEBS_LD_LAT: SKL, ICX, SPR */
	__u64 rsp0c, rsp1c;	/* the model's RSP_0 and RSP_1 event selects */
};

FIXTURE_SETUP(sessions)
{
	int fd = dev_open();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, dev_info(fd, &self->info));
	close(fd);
	self->knx = self->info.pmu_model == PMUCTL_MODEL_KNM ||
		    self->info.pmu_model == PMUCTL_MODEL_KNL;
	self->skl = self->info.pmu_model == PMUCTL_MODEL_SKL;
	self->pebs = self->skl || self->info.pmu_model == PMUCTL_MODEL_ICX ||
		     self->info.pmu_model == PMUCTL_MODEL_SPR;
	self->ofc = self->knx || self->pebs;
	self->rsp0c = model_rsp0(self->info.pmu_model);
	self->rsp1c = model_rsp1(self->info.pmu_model);
	if (debugfs_ready()) {
		ASSERT_EQ(0, state_wait_clean(1000));
	}
}

FIXTURE_TEARDOWN(sessions)
{
	peer_kill_all(self->peer, NPEERS);
}

#define NEED_STATE() do {						\
	if (!debugfs_ready())						\
		SKIP(return, "no %s", DBG_STATE);			\
} while (0)

#define NEED_OFFCORE() do {						\
	NEED_STATE();							\
	if (!self->ofc)							\
		SKIP(return, "no OFFCORE_RSP registers on model %u",	\
		     self->info.pmu_model);				\
} while (0)

/* A peer with a session of its own. */
#define SPAWN(i) ASSERT_EQ(0, peer_spawn(&self->peer[i], -1))

/* The model's OFFCORE_RESPONSE_0 event with value @v (in a test body). */
#define rsp0(v)	ev_make(self->rsp0c | USR, (v), 0)

TEST_F(sessions, two_processes_get_disjoint_counters)
{
	struct pmuctl_event ev = ev_make(EV_LLC_REF | USR, 0, 0);
	struct peer_rep rp[NPEERS];
	struct pstate st;
	__u32 i, n = self->info.caps.nr_gp, owner[NPEERS];

	NEED_STATE();
	ASSERT_GE(NPEERS - 1, (int)n);
	for (i = 0; i < n; i++) {
		SPAWN(i);
		ASSERT_EQ(0, peer_program(&self->peer[i], &ev, 1, CPU0, &rp[i]));
		EXPECT_U64(i, rp[i].ev[0].counter);
	}
	ASSERT_EQ(0, state_read(&st));
	for (i = 0; i < n; i++) {
		__u32 j;

		owner[i] = state_owner(&st, 0, i);
		EXPECT_NE(0U, owner[i]) TH_LOG("PMC%u", i);
		for (j = 0; j < i; j++) {
			EXPECT_NE(owner[j], owner[i]) TH_LOG("PMC%u and PMC%u", j, i);
		}
	}
	EXPECT_EQ(n, st.programmed);
	/* Every generic counter is held: one more is refused, nothing changes. */
	SPAWN(n);
	EXPECT_EQ(-EBUSY, peer_program(&self->peer[n], &ev, 1, CPU0, &rp[n]));
	EXPECT_U64(PMUCTL_R_COUNTERS_BUSY, rp[n].prog.err_reason);
	EXPECT_U64(0, rp[n].prog.err_index);
	/* A fixed-counter event still fits. */
	ev = ev_make(EV_INST | USR, 0, 0);
	EXPECT_EQ(0, peer_program(&self->peer[n], &ev, 1, CPU0, &rp[n]));
	EXPECT_U64(FIXED(0), rp[n].ev[0].counter);
	/* After one peer leaves, its counter is the one given out. */
	peer_end(&self->peer[0], 0);
	SPAWN(0);
	ev = ev_make(EV_LLC_REF | USR, 0, 0);
	EXPECT_EQ(0, peer_program(&self->peer[0], &ev, 1, CPU0, &rp[0]));
	EXPECT_U64(0, rp[0].ev[0].counter);
}

TEST_F(sessions, shares_identical_offcore_value)
{
	struct pmuctl_event ev = rsp0(REQ0 | ANYRSP);
	struct peer_rep a, b;
	struct pstate st;
	__u64 v;

	NEED_OFFCORE();
	SPAWN(0);
	SPAWN(1);
	ASSERT_EQ(0, peer_program(&self->peer[0], &ev, 1, CPU0, &a));
	ASSERT_EQ(0, peer_program(&self->peer[1], &ev, 1, CPU0, &b));
	EXPECT_U64(self->rsp0c | USR, b.ev[0].config_used);
	EXPECT_U64(MSR_RSP0, b.ev[0].extra_msr);
	EXPECT_NE(a.ev[0].counter, b.ev[0].counter);
	ASSERT_EQ(0, state_read(&st));
	EXPECT_EQ(2U, state_xref(&st, 0, MSR_RSP0, &v));
	EXPECT_U64(REQ0 | ANYRSP, v);
	EXPECT_EQ(0U, state_xref(&st, 0, MSR_RSP1, NULL));
	if (have_regs()) {
		static struct pregs rg;

		ASSERT_EQ(0, regs_read(&rg));
		EXPECT_U64(REQ0 | ANYRSP, regs_get(&rg, 0, MSR_RSP0));
	}
	/* One leaves: the other keeps the value. */
	ASSERT_EQ(0, peer_call(&self->peer[0], &(struct peer_req){
		.op = PEER_CTL, .cmd = PMUCTL_IOC_RELEASE }, &a));
	EXPECT_EQ(0, a.ret);
	ASSERT_EQ(0, state_read(&st));
	EXPECT_EQ(1U, state_xref(&st, 0, MSR_RSP0, &v));
	EXPECT_U64(REQ0 | ANYRSP, v);
	if (have_regs()) {
		static struct pregs rg;

		ASSERT_EQ(0, regs_read(&rg));
		EXPECT_U64(REQ0 | ANYRSP, regs_get(&rg, 0, MSR_RSP0));
	}
	/* The last one leaves: the slot is free and the MSR back to 0. */
	peer_end(&self->peer[1], 0);
	ASSERT_EQ(0, state_wait_clean(1000));
	if (have_regs()) {
		static struct pregs rg;

		ASSERT_EQ(0, regs_read(&rg));
		EXPECT_U64(0, regs_get(&rg, 0, MSR_RSP0));
	}
}

TEST_F(sessions, moves_other_value_to_rsp1_with_event_rewritten)
{
	struct pmuctl_event e1 = rsp0(REQ0 | ANYRSP), e2 = rsp0(REQ1 | ANYRSP);
	struct peer_rep a, b;
	struct pstate st;
	__u64 v;

	NEED_OFFCORE();
	SPAWN(0);
	SPAWN(1);
	ASSERT_EQ(0, peer_program(&self->peer[0], &e1, 1, CPU0, &a));
	EXPECT_U64(MSR_RSP0, a.ev[0].extra_msr);
	ASSERT_EQ(0, peer_program(&self->peer[1], &e2, 1, CPU0, &b));
	/*
	 * KNL/KNM: umask 0x01 -> 0x02; SKL, ICX: event 0xb7 -> 0xbb [FACTS 2];
	 * SPR: OCR 0x2a -> 0x2b [LNX 6.12 intel_glc_extra_regs].
	 */
	EXPECT_U64(self->rsp1c | USR, b.ev[0].config_used);
	if (self->knx) {
		EXPECT_U64(0x02b7 | USR, b.ev[0].config_used);
	} else if (self->info.pmu_model == PMUCTL_MODEL_SPR) {
		EXPECT_U64(0x012b | USR, b.ev[0].config_used);
	} else {
		EXPECT_U64(0x01bb | USR, b.ev[0].config_used);
	}
	EXPECT_U64(MSR_RSP1, b.ev[0].extra_msr);
	EXPECT_U64(self->rsp0c | USR, b.ev[0].config);
	ASSERT_EQ(0, state_read(&st));
	EXPECT_EQ(1U, state_xref(&st, 0, MSR_RSP0, &v));
	EXPECT_U64(REQ0 | ANYRSP, v);
	EXPECT_EQ(1U, state_xref(&st, 0, MSR_RSP1, &v));
	EXPECT_U64(REQ1 | ANYRSP, v);
	if (have_regs()) {
		static struct pregs rg;

		ASSERT_EQ(0, regs_read(&rg));
		EXPECT_U64(REQ0 | ANYRSP, regs_get(&rg, 0, MSR_RSP0));
		EXPECT_U64(REQ1 | ANYRSP, regs_get(&rg, 0, MSR_RSP1));
		EXPECT_U64(b.ev[0].config_used,
			   regs_get(&rg, 0, MSR_EVTSEL(b.ev[0].counter)));
	}
	/* A third value identical to the moved one shares RSP_1. */
	if (self->info.caps.nr_gp < 3)
		return;		/* no generic counter left for it */
	SPAWN(2);
	ASSERT_EQ(0, peer_program(&self->peer[2], &e2, 1, CPU0, &b));
	EXPECT_U64(MSR_RSP1, b.ev[0].extra_msr);
	ASSERT_EQ(0, state_read(&st));
	EXPECT_EQ(2U, state_xref(&st, 0, MSR_RSP1, NULL));
}

TEST_F(sessions, refuses_offcore_when_both_registers_busy)
{
	struct pmuctl_event e[3] = { rsp0(REQ0 | ANYRSP), rsp0(REQ1 | ANYRSP),
				     rsp0(REQ2 | ANYRSP) };
	struct peer_rep rp;
	struct snap before = { 0 };
	unsigned int i;

	NEED_OFFCORE();
	for (i = 0; i < 2; i++) {
		SPAWN(i);
		ASSERT_EQ(0, peer_program(&self->peer[i], &e[i], 1, CPU0, &rp));
	}
	SPAWN(2);
	ASSERT_EQ(0, snap_take(&before));
	EXPECT_EQ(-EBUSY, peer_program(&self->peer[2], &e[2], 1, CPU0, &rp));
	EXPECT_U64(PMUCTL_R_OFFCORE_BOTH_BUSY, rp.prog.err_reason);
	EXPECT_U64(0, rp.prog.err_index);
	EXPECT_UNCHANGED(&before, false);
	snap_free(&before);
	/* Given as OFFCORE_RESPONSE_1, the same: both are held. */
	e[2] = ev_make(self->rsp1c | USR, REQ2 | ANYRSP, 0);
	EXPECT_EQ(-EBUSY, peer_program(&self->peer[2], &e[2], 1, CPU0, &rp));
	EXPECT_U64(PMUCTL_R_OFFCORE_BOTH_BUSY, rp.prog.err_reason);
	/* Either held value is still shared, given a free counter. */
	if (self->info.caps.nr_gp < 3)
		return;
	e[2] = rsp0(REQ1 | ANYRSP);
	EXPECT_EQ(0, peer_program(&self->peer[2], &e[2], 1, CPU0, &rp));
	EXPECT_U64(MSR_RSP1, rp.ev[0].extra_msr);
}

TEST_F(sessions, refuses_value_that_fits_only_its_busy_register)
{
	struct pmuctl_event a, c;
	struct peer_rep rp;

	NEED_OFFCORE();
	if (!self->knx)
		SKIP(return, "model %u's two OFFCORE_RSP masks are equal: every value fits both",
		     self->info.pmu_model);
	SPAWN(0);
	SPAWN(1);
	/* OUTSTANDING exists in RSP_0 only. */
	a = rsp0(REQ0 | ANYRSP);
	ASSERT_EQ(0, peer_program(&self->peer[0], &a, 1, CPU0, &rp));
	c = rsp0(REQ1 | OUTST);
	EXPECT_EQ(-EBUSY, peer_program(&self->peer[1], &c, 1, CPU0, &rp));
	EXPECT_U64(PMUCTL_R_OFFCORE_RSP0_BUSY, rp.prog.err_reason);
	peer_end(&self->peer[0], 0);
	ASSERT_EQ(0, state_wait_clean(1000));
	/* PARTIAL_WRITES exists in RSP_1 only. */
	SPAWN(0);
	a = ev_make(KNM_RSP1 | USR, REQ0 | PWR | ANYRSP, 0);
	ASSERT_EQ(0, peer_program(&self->peer[0], &a, 1, CPU0, &rp));
	EXPECT_U64(MSR_RSP1, rp.ev[0].extra_msr);
	c = ev_make(KNM_RSP1 | USR, REQ1 | PWR | ANYRSP, 0);
	EXPECT_EQ(-EBUSY, peer_program(&self->peer[1], &c, 1, CPU0, &rp));
	EXPECT_U64(PMUCTL_R_OFFCORE_RSP1_BUSY, rp.prog.err_reason);
	/* An RSP_1 value that fits RSP_0 moves there instead. */
	c = ev_make(KNM_RSP1 | USR, REQ1 | ANYRSP, 0);
	EXPECT_EQ(0, peer_program(&self->peer[1], &c, 1, CPU0, &rp));
	EXPECT_U64(MSR_RSP0, rp.ev[0].extra_msr);
	EXPECT_U64(KNM_RSP0 | USR, rp.ev[0].config_used);
}

TEST_F(sessions, refuses_other_frontend_and_ldlat_values)
{
	struct pmuctl_event a[2] = { ev_make(SKL_FE | USR, 0x11, 0),
				     ev_make(SKL_LDLAT | USR, 0x3, 0) };
	struct pmuctl_event c;
	struct peer_rep rp;

	NEED_STATE();
	if (!self->pebs)
		SKIP(return, "no PEBS_FRONTEND and PEBS_LD_LAT on model %u",
		     self->info.pmu_model);
	SPAWN(0);
	SPAWN(1);
	ASSERT_EQ(0, peer_program(&self->peer[0], a, 2, CPU0, &rp));
	c = ev_make(SKL_FE | USR, 0x12, 0);
	EXPECT_EQ(-EBUSY, peer_program(&self->peer[1], &c, 1, CPU0, &rp));
	EXPECT_U64(PMUCTL_R_FRONTEND_BUSY, rp.prog.err_reason);
	c = ev_make(SKL_LDLAT | USR, 0x4, 0);
	EXPECT_EQ(-EBUSY, peer_program(&self->peer[1], &c, 1, CPU0, &rp));
	EXPECT_U64(PMUCTL_R_LDLAT_BUSY, rp.prog.err_reason);
	c = ev_make(SKL_LDLAT | USR, 0x3, 0);
	EXPECT_EQ(0, peer_program(&self->peer[1], &c, 1, CPU0, &rp));
}

TEST_F(sessions, busy_registers_are_free_again_after_release)
{
	struct pmuctl_event e[3] = { rsp0(REQ0 | ANYRSP), rsp0(REQ1 | ANYRSP),
				     rsp0(REQ2 | ANYRSP) };
	struct peer_rep rp;
	struct pstate st;
	__u64 v;

	NEED_OFFCORE();
	SPAWN(0);
	SPAWN(1);
	SPAWN(2);
	ASSERT_EQ(0, peer_program(&self->peer[0], &e[0], 1, CPU0, &rp));
	ASSERT_EQ(0, peer_program(&self->peer[1], &e[1], 1, CPU0, &rp));
	ASSERT_EQ(-EBUSY, peer_program(&self->peer[2], &e[2], 1, CPU0, &rp));
	/* RSP_0's holder releases: the third value gets RSP_0, unmoved. */
	ASSERT_EQ(0, peer_call(&self->peer[0], &(struct peer_req){
		.op = PEER_CTL, .cmd = PMUCTL_IOC_RELEASE }, &rp));
	ASSERT_EQ(0, rp.ret);
	ASSERT_EQ(0, state_read(&st));
	EXPECT_EQ(0U, state_xref(&st, 0, MSR_RSP0, NULL));
	EXPECT_EQ(0, peer_program(&self->peer[2], &e[2], 1, CPU0, &rp));
	EXPECT_U64(MSR_RSP0, rp.ev[0].extra_msr);
	EXPECT_U64(self->rsp0c | USR, rp.ev[0].config_used);
	ASSERT_EQ(0, state_read(&st));
	EXPECT_EQ(1U, state_xref(&st, 0, MSR_RSP0, &v));
	EXPECT_U64(REQ2 | ANYRSP, v);
	peer_end(&self->peer[1], 0);
	peer_end(&self->peer[2], 0);
	EXPECT_EQ(0, state_wait_clean(1000));
}

TEST_F(sessions, perf_is_reserved_while_any_group_is_held)
{
	struct pmuctl_event ev = ev_make(EV_INST | USR, 0, 0);
	struct peer_rep rp;
	struct pstate st;
	int fd;

	NEED_STATE();
	ASSERT_EQ(0, state_read(&st));
	EXPECT_EQ(0U, st.perf_reserved);
	/* An open session without a group reserves nothing. */
	fd = dev_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, state_read(&st));
	EXPECT_EQ(0U, st.perf_reserved);
	SPAWN(0);
	SPAWN(1);
	ASSERT_EQ(0, peer_program(&self->peer[0], &ev, 1, CPU0, &rp));
	ASSERT_EQ(0, state_read(&st));
	EXPECT_EQ(1U, st.perf_reserved);
	EXPECT_EQ(1U, st.programmed);
	ev = ev_make(EV_CYCLES | USR, 0, 0);
	ASSERT_EQ(0, peer_program(&self->peer[1], &ev, 1, CPU0, &rp));
	ASSERT_EQ(0, state_read(&st));
	EXPECT_EQ(1U, st.perf_reserved);
	EXPECT_EQ(2U, st.programmed);
	ASSERT_EQ(0, peer_call(&self->peer[0], &(struct peer_req){
		.op = PEER_CTL, .cmd = PMUCTL_IOC_RELEASE }, &rp));
	ASSERT_EQ(0, state_read(&st));
	EXPECT_EQ(1U, st.perf_reserved);
	EXPECT_EQ(1U, st.programmed);
	peer_end(&self->peer[1], SIGKILL);
	ASSERT_EQ(0, state_read(&st));
	EXPECT_EQ(0U, st.perf_reserved);
	EXPECT_EQ(0U, st.programmed);
	/* A refused PROGRAM leaves it unreserved. */
	ev = ev_make(EV_CYCLES | USR | EDGE, 0, 0);
	EXPECT_EQ(-EINVAL, peer_program(&self->peer[0], &ev, 1, CPU0, &rp));
	ASSERT_EQ(0, state_read(&st));
	EXPECT_EQ(0U, st.perf_reserved);
	close(fd);
}

/* A peer holding counters and an extra MSR on both CPUs, ended by @sig. */
static void leaves_nothing(struct __test_metadata *_metadata,
			   FIXTURE_DATA(sessions) *self, int sig)
{
	struct pmuctl_event ev[3] = { ev_make(EV_LLC_REF | USR, 0, 0),
				      ev_make(EV_INST | USR, 0, 0),
				      ev_make(EV_CYCLES | USR, 0, 0) };
	__u64 cpus = self->info.nr_cpus > 1 ? 3 : 1;
	struct peer_rep rp;
	struct pstate st;
	int status;
	__u32 n = 3;

	if (self->ofc) {
		ev[2] = rsp0(REQ0 | ANYRSP);
	}
	SPAWN(0);
	ASSERT_EQ(0, peer_program(&self->peer[0], ev, n, cpus, &rp));
	ASSERT_EQ(0, peer_call(&self->peer[0], &(struct peer_req){
		.op = PEER_CTL, .cmd = PMUCTL_IOC_START }, &rp));
	ASSERT_EQ(0, state_read(&st));
	EXPECT_LT(2U, st.nown);
	EXPECT_EQ(1U, st.perf_reserved);
	status = peer_end(&self->peer[0], sig);
	if (sig) {
		EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig);
	} else {
		EXPECT_TRUE(WIFEXITED(status));
	}
	/* Reaped: the file's release has run (exit_files before exit_notify). */
	ASSERT_EQ(0, state_read(&st));
	EXPECT_EQ(0U, st.programmed);
	EXPECT_EQ(0U, st.nown) TH_LOG("counters still held");
	EXPECT_EQ(0U, st.nx) TH_LOG("extra MSR references still held");
	EXPECT_EQ(0U, st.perf_reserved);
	if (have_regs()) {
		static struct pregs rg;
		unsigned int i;

		ASSERT_EQ(0, regs_read(&rg));
		for (i = 0; i < rg.n; i++) {
			EXPECT_U64(0, rg.r[i].val) {
				TH_LOG("cpu %u msr %#x", rg.r[i].cpu, rg.r[i].msr);
			}
		}
	}
	/* Everything it held can be had again. */
	SPAWN(1);
	EXPECT_EQ(0, peer_program(&self->peer[1], ev, n, cpus, &rp));
}

TEST_F(sessions, exit_without_release_leaves_nothing_held)
{
	NEED_STATE();
	leaves_nothing(_metadata, self, 0);
}

TEST_F(sessions, sigkill_leaves_nothing_held)
{
	NEED_STATE();
	leaves_nothing(_metadata, self, SIGKILL);
}

TEST_F(sessions, inherited_fd_is_the_same_session)
{
	struct pmuctl_event ev = ev_make(EV_INST | USR, 0, 0);
	struct pmuctl_program p;
	struct peer_rep rp;
	struct pstate st;
	int fd = dev_open();

	NEED_STATE();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, dev_program(fd, &ev, 1, CPU0, &p));
	ASSERT_EQ(0, peer_spawn(&self->peer[0], fd));
	/* The child holds the same file: the same session, already programmed. */
	ev = ev_make(EV_CYCLES | USR, 0, 0);
	EXPECT_EQ(-EBUSY, peer_program(&self->peer[0], &ev, 1, CPU0, &rp));
	EXPECT_U64(PMUCTL_R_ALREADY_PROGRAMMED, rp.prog.err_reason);
	/* Closing one copy releases nothing; the last close does. */
	close(fd);
	ASSERT_EQ(0, state_read(&st));
	EXPECT_EQ(1U, st.programmed);
	EXPECT_NE(0U, state_owner(&st, 0, FIXED(0)));
	peer_end(&self->peer[0], SIGKILL);
	EXPECT_EQ(0, state_wait_clean(0));
}

DEVICE_TEST_MAIN
