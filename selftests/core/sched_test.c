// SPDX-License-Identifier: GPL-2.0
/*
 * Hardware-free tests of group placement and per-CPU accounting:
 * pmuctl_group_schedule(), pmuctl_view_init/add(), pmuctl_cpu_claim() and
 * pmuctl_cpu_release().
 *
 * 1. An exhaustive oracle written here, independent of sched.c: it tries
 *    every assignment of every event to a free counter it may use and,
 *    for events with an extra MSR, every register choice (home, or the
 *    other OFFCORE_RSP register when the value fits its mask).  For every
 *    subset of up to 8 events of a 12-event pool, on three PMUs and eight
 *    pre-held views, the scheduler must succeed exactly when the oracle
 *    does, and its placement must pass an independent check.  Then a
 *    seeded random run.
 *    Where Linux's one-pass greedy (FACTS 2) places the extra registers,
 *    the scheduler must choose the greedy's placement (sched.c contract).
 * 2. Arbitration sequences: share, move to the other register, busy,
 *    release, refcounts, several CPUs, latency pairs.
 *
 * Latency pairs (sched.c contract): next to an OUTSTANDING event, every
 * event whose final register is RSP_1 is its partner and must carry the
 * same request bits and ANY_RESPONSE, whether it was given as
 * OFFCORE_RESPONSE_1 or moved there from OFFCORE_RESPONSE_0 by arbitration:
 * the pair is what the two MSRs hold, not how it was spelled.
 * OUTSTANDING is a register rule (RSP_0 only), not a counter constraint:
 * it may use any generic counter.
 *
 * The rules of the oracle come from FACTS.md section 2 (Linux 6.1
 * __intel_shared_reg_get_constraints / intel_alt_er / intel_fixup_er,
 * libpfm_intel_knm(3)); the register facts are restated here and checked
 * against the model tables.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "kselftest_harness.h"

#define USR	PMUCTL_CFG_USR
#define OS	PMUCTL_CFG_OS
#define ANY	PMUCTL_CFG_ANY
#define EN	PMUCTL_CFG_EN
#define BIT(n)	(1ULL << (n))
#define CODE	0xffffULL
#define GONLY	PMUCTL_EVENT_GENERIC_ONLY

#define F0	BIT(PMUCTL_IDX_FIXED + 0)
#define F1	BIT(PMUCTL_IDX_FIXED + 1)
#define F2	BIT(PMUCTL_IDX_FIXED + 2)
#define GP_ALL	0xffffffffU

/* Offcore fields [FACTS 2]. */
#define REQ0	BIT(0)
#define REQ1	BIT(1)
#define REQ2	BIT(2)
#define PWR	BIT(8)		/* KNL: RSP_1 only */
#define ANYRSP	BIT(16)
#define DDRNEAR	(BIT(31) | BIT(23))
#define OUTST	BIT(38)		/* KNL: RSP_0 only */
#define OFC_REQUEST 0xffffULL	/* request bits 0..15, both models */

#define MAXN	16

static const struct pmuctl_caps caps_knm2 = {
	.family = 6, .model = 0x85, .version = 3, .nr_gp = 2, .gp_width = 40,
	.nr_fixed = 3, .fixed_width = 40, .fixed_mask = 0x7,
	.events_unavailable = 0xffffff80, .flags = PMUCTL_CAP_ANY_THREAD,
};
static const struct pmuctl_caps caps_knm4 = {	/* the KNM man page's 4 counters */
	.family = 6, .model = 0x85, .version = 3, .nr_gp = 4, .gp_width = 40,
	.nr_fixed = 3, .fixed_width = 40, .fixed_mask = 0x7,
	.events_unavailable = 0xffffff80, .flags = PMUCTL_CAP_ANY_THREAD,
};
static const struct pmuctl_caps caps_knl2 = {
	.family = 6, .model = 0x57, .version = 3, .nr_gp = 2, .gp_width = 40,
	.nr_fixed = 3, .fixed_width = 40, .fixed_mask = 0x7,
	.events_unavailable = 0xffffff80, .flags = PMUCTL_CAP_ANY_THREAD,
};
static const struct pmuctl_caps caps_skl4 = {
	.family = 6, .model = 0x55, .version = 4, .nr_gp = 4, .gp_width = 48,
	.nr_fixed = 3, .fixed_width = 48, .fixed_mask = 0x7,
	.events_unavailable = 0xffffff80, .flags = PMUCTL_CAP_ANY_THREAD,
};

/* ------------------------------------------------------------------ */
/* The oracle's own description of the PMUs                           */

struct regspec {
	u16 code;
	u16 msr;
	u64 valid;
	int alt;		/* the other OFFCORE_RSP register, -1 none */
	bool rsp1;
	u32 busy_reason;	/* when this register alone is in the way */
};

/* KNL/KNM [FACTS 2; Linux intel_knl_extra_regs]. */
static const struct regspec knx_regs[] = {
	{ 0x01b7, 0x1a6, 0x799ffbb6e7ULL, 1, false, PMUCTL_R_OFFCORE_RSP0_BUSY },
	{ 0x02b7, 0x1a7, 0x399ffbffe7ULL, 0, true, PMUCTL_R_OFFCORE_RSP1_BUSY },
};

/* Skylake [FACTS 2; Linux intel_skl_extra_regs]. */
static const struct regspec skl_regs[] = {
	{ 0x01b7, 0x1a6, 0x3fffff8fffULL, 1, false, PMUCTL_R_OFFCORE_RSP0_BUSY },
	{ 0x01bb, 0x1a7, 0x3fffff8fffULL, 0, true, PMUCTL_R_OFFCORE_RSP1_BUSY },
	{ 0x01c6, 0x3f7, 0x7fff17ULL, -1, false, PMUCTL_R_FRONTEND_BUSY },
	{ 0x01cd, 0x3f6, 0xffffULL, -1, false, PMUCTL_R_LDLAT_BUSY },
};

/*
 * Sapphire Rapids [Linux 6.12 intel_glc_extra_regs]: OCR 0x2a/0x2b; the
 * FRONTEND register is also selected by 0x40ad (valid bits 0-2).
 */
static const struct regspec spr_regs[] = {
	{ 0x012a, 0x1a6, 0x3fffffffffULL, 1, false, PMUCTL_R_OFFCORE_RSP0_BUSY },
	{ 0x012b, 0x1a7, 0x3fffffffffULL, 0, true, PMUCTL_R_OFFCORE_RSP1_BUSY },
	{ 0x01c6, 0x3f7, 0x7fff1fULL, -1, false, PMUCTL_R_FRONTEND_BUSY },
	{ 0x01cd, 0x3f6, 0xffffULL, -1, false, PMUCTL_R_LDLAT_BUSY },
};

/* Lion Cove [Linux 6.12 intel_lnc_extra_regs]: OCR with 44 bits, FRONTEND by 0x03c6. */
static const struct regspec lnc_regs[] = {
	{ 0x012a, 0x1a6, 0xfffffffffffULL, 1, false, PMUCTL_R_OFFCORE_RSP0_BUSY },
	{ 0x012b, 0x1a7, 0xfffffffffffULL, 0, true, PMUCTL_R_OFFCORE_RSP1_BUSY },
	{ 0x03c6, 0x3f7, 0x7fff1fULL, -1, false, PMUCTL_R_FRONTEND_BUSY },
	{ 0x01cd, 0x3f6, 0xffffULL, -1, false, PMUCTL_R_LDLAT_BUSY },
};

/* Lion Cove as Lunar Lake reports it: v6, 10 generic, fixed 0-3, UMASK2, EQ. */
static const struct pmuctl_caps caps_lnc10 = {
	.family = 6, .model = 0xbd, .version = 6, .nr_gp = 10, .gp_width = 48,
	.nr_fixed = 4, .fixed_width = 48, .fixed_mask = 0xf,
	.events_unavailable = 0xffffff00,
	.flags = PMUCTL_CAP_ANY_DEPRECATED | PMUCTL_CAP_FULL_WIDTH_WRITE |
		 PMUCTL_CAP_HYBRID | PMUCTL_CAP_UMASK2 | PMUCTL_CAP_EQ,
	.core_type = 0x40,
};

/* 8 generic counters and fixed counters 0-3, as the part reports them. */
static const struct pmuctl_caps caps_spr8 = {
	.family = 6, .model = 0x8f, .version = 5, .nr_gp = 8, .gp_width = 48,
	.nr_fixed = 4, .fixed_width = 48, .fixed_mask = 0xf,
	.events_unavailable = 0xffffff00,
	.flags = PMUCTL_CAP_ANY_DEPRECATED | PMUCTL_CAP_FULL_WIDTH_WRITE,
};

/* One event of a pool and where the rules say it may go. */
struct pev {
	const char *name;
	u64 config;
	u64 extra;
	u32 flags;
	u32 gp;			/* allowed generic counters, before the caps */
	u64 fixed;		/* allowed fixed counter indexes */
	int home;		/* extra register selected by the code, -1 none */
	bool out;		/* OUTSTANDING (average latency) mode */
};

/* Values shared by the pools. */
#define A_VAL	(REQ0 | ANYRSP)		/* fits both RSP registers */
#define OUT_VAL	(REQ0 | OUTST)		/* KNL: RSP_0 only, any generic counter */
#define OUT2	(REQ1 | OUTST)
#define C1_VAL	(PWR | ANYRSP)		/* KNL: RSP_1 only */
#define D_VAL	(REQ2 | DDRNEAR)	/* fits both; on RSP_1 next to OUTSTANDING, a bad partner */
#define B_VAL	(REQ1 | ANYRSP)
#define C_VAL	(REQ2 | ANYRSP)

static const struct pev knx_pool[] = {
	{ "inst", 0x00c0 | USR, 0, 0, GP_ALL, F0, -1, false },
	{ "cycles", 0x003c | USR, 0, 0, GP_ALL, F1, -1, false },
	{ "ref", 0x0300 | USR, 0, 0, 0, F2, -1, false },
	{ "inst_any", 0x00c0 | USR | ANY, 0, 0, 0, F0, -1, false },
	{ "cycles_any", 0x003c | USR | ANY, 0, 0, 0, F1, -1, false },
	{ "outstanding", 0x01b7 | USR, OUT_VAL, 0, GP_ALL, 0, 0, true },
	{ "rsp0_a", 0x01b7 | USR, A_VAL, 0, GP_ALL, 0, 0, false },
	{ "outstanding2", 0x01b7 | USR, OUT2, 0, GP_ALL, 0, 0, true },
	{ "rsp1_only", 0x02b7 | USR, C1_VAL, 0, GP_ALL, 0, 1, false },
	{ "rsp1_a", 0x02b7 | USR, A_VAL, 0, GP_ALL, 0, 1, false },
	{ "rsp1_d", 0x02b7 | USR, D_VAL, 0, GP_ALL, 0, 1, false },
	{ "inst_generic", 0x00c0 | USR, 0, GONLY, GP_ALL, 0, -1, false },
};

static const struct pev skl_pool[] = {
	{ "inst", 0x00c0 | USR, 0, 0, GP_ALL, F0, -1, false },
	{ "cycles_any", 0x003c | USR | ANY, 0, 0, GP_ALL, F1, -1, false },
	{ "ref", 0x0300 | USR, 0, 0, 0, F2, -1, false },
	{ "prec_dist", 0x01c0 | USR, 0, 0, 0x2, 0, -1, false },
	{ "mem_loads", 0x81d0 | USR, 0, 0, 0xf, 0, -1, false },
	{ "rsp0_a", 0x01b7 | USR, A_VAL, 0, GP_ALL, 0, 0, false },
	{ "rsp1_b", 0x01bb | USR, B_VAL, 0, GP_ALL, 0, 1, false },
	{ "rsp0_c", 0x01b7 | USR, C_VAL, 0, GP_ALL, 0, 0, false },
	{ "fe_11", 0x01c6 | USR, 0x11, 0, 0xf, 0, 2, false },
	{ "fe_12", 0x01c6 | USR, 0x12, 0, 0xf, 0, 2, false },
	{ "ldlat_3", 0x01cd | USR, 3, 0, 0xf, 0, 3, false },
	{ "inst_generic", 0x00c0 | USR, 0, GONLY, GP_ALL, 0, -1, false },
};

#define F3	BIT(PMUCTL_IDX_FIXED + 3)

/*
 * Golden Cove's constraints [Linux 6.12 intel_glc_event_constraints]:
 * codes below 0x90 on counters 0-3, TOPDOWN.BAD_SPEC_SLOTS (0x04a4) and
 * BR_MISPREDICT_SLOTS (0x08a4) on counter 0, pseudo encodings fixed only,
 * REF_TSC_P on fixed counter 2 too.  Eight events compete for counter 0
 * or 0-3 while the fixed counters take four.
 */
static const struct pev spr_pool[] = {
	{ "inst", 0x00c0 | USR, 0, 0, GP_ALL, F0, -1, false },
	{ "slots", 0x0400 | USR, 0, 0, 0, F3, -1, false },
	{ "prec_dist", 0x0100 | USR, 0, 0, 0, F0, -1, false },
	{ "ref_tsc_p", 0x013c | USR, 0, 0, GP_ALL, F2, -1, false },
	{ "ref", 0x0300 | USR, 0, 0, 0, F2, -1, false },
	{ "bad_spec", 0x04a4 | USR, 0, 0, 0x1, 0, -1, false },
	{ "br_misp_slots", 0x08a4 | USR, 0, 0, 0x1, 0, -1, false },
	{ "l2_rqsts", 0x0124 | USR, 0, 0, 0xf, 0, -1, false },
	{ "ocr0_a", 0x012a | USR, A_VAL, 0, 0xf, 0, 0, false },
	{ "ocr1_b", 0x012b | USR, B_VAL, 0, 0xf, 0, 1, false },
	{ "fe_11", 0x01c6 | USR, 0x11, 0, GP_ALL, 0, 2, false },
	{ "int_misc_fe", 0x40ad | USR, 0x1, 0, GP_ALL, 0, 2, false },
};

/*
 * Lion Cove [Linux 6.12 intel_lnc_event_constraints, intel_lnc_extra_regs]:
 * 10 generic counters (perfmon v6), L1D_PEND_MISS.PENDING (0x0148) on
 * counter 2 alone, UOPS_EXECUTED.THREAD (0x01b1) and
 * TOPDOWN.MEMORY_BOUND_SLOTS (0x10a4) on counter 3 alone, the load-latency
 * event on counters 2-9 and the store sample on 0-1, OCR on 0-3; an event
 * no entry names (BR_INST_RETIRED.COND_TAKEN with umask2 1) on all 10.
 */
static const struct pev lnc_pool[] = {
	{ "inst", 0x00c0 | USR, 0, 0, GP_ALL, F0, -1, false },
	{ "slots", 0x0400 | USR, 0, 0, 0, F3, -1, false },
	{ "ref_tsc_p", 0x013c | USR, 0, 0, GP_ALL, F2, -1, false },
	{ "l1d_pend", 0x0148 | USR, 0, 0, 0x4, 0, -1, false },
	{ "uops_exec", 0x01b1 | USR, 0, 0, 0x8, 0, -1, false },
	{ "mem_bound", 0x10a4 | USR, 0, 0, 0x8, 0, -1, false },
	{ "bad_spec", 0x04a4 | USR, 0, 0, 0x1, 0, -1, false },
	{ "ldlat_3", 0x01cd | USR, 3, 0, 0x3fc, 0, 3, false },
	{ "store_sample", 0x02cd | USR, 0, 0, 0x3, 0, -1, false },
	{ "ocr0_a", 0x012a | USR, A_VAL, 0, 0xf, 0, 0, false },
	{ "ocr1_b", 0x012b | USR, B_VAL, 0, 0xf, 0, 1, false },
	{ "fe_11", 0x03c6 | USR, 0x11, 0, GP_ALL, 0, 2, false },
	{ "cond_taken_u2", 0x01c4 | USR | (1ULL << PMUCTL_CFG_UMASK2_SHIFT), 0, 0,
	  GP_ALL, 0, -1, false },
	{ "cycles_eq", 0x003c | USR | PMUCTL_CFG_EQ | (2ULL << PMUCTL_CFG_CMASK_SHIFT),
	  0, 0, GP_ALL, 0, -1, false },
};

/* What other sessions hold: counters and extra registers. */
struct view_spec {
	const char *name;
	u64 busy;
	u8 xstate[PMUCTL_XREG_MAX];
	u64 xvalue[PMUCTL_XREG_MAX];
};

#define X_VAL_KNX (BIT(5) | ANYRSP)
#define Y_VAL_KNX (BIT(6) | ANYRSP)
#define X_VAL_SKL (BIT(3) | ANYRSP)
#define Y_VAL_SKL (BIT(4) | ANYRSP)
#define HELD	PMUCTL_XV_HELD
#define CONFL	PMUCTL_XV_CONFLICT

static const struct view_spec knx_views[] = {
	{ .name = "free" },
	{ .name = "pmc0_held", .busy = BIT(0) },
	{ .name = "fixed0_held", .busy = F0 },
	{ .name = "rsp0_other", .xstate = { HELD }, .xvalue = { X_VAL_KNX } },
	{ .name = "both_rsp_other", .xstate = { HELD, HELD }, .xvalue = { X_VAL_KNX, Y_VAL_KNX } },
	{ .name = "rsp0_shareable", .xstate = { HELD }, .xvalue = { A_VAL } },
	{ .name = "pmc1_fixed1_rsp1_shareable", .busy = BIT(1) | F1,
	  .xstate = { 0, HELD }, .xvalue = { 0, A_VAL } },
	{ .name = "fixed2_rsp0_out_rsp1_conflict", .busy = F2,
	  .xstate = { HELD, CONFL }, .xvalue = { OUT_VAL, 0 } },
};

static const struct view_spec skl_views[] = {
	{ .name = "free" },
	{ .name = "pmc0_held", .busy = BIT(0) },
	{ .name = "fixed0_held", .busy = F0 },
	{ .name = "rsp0_other", .xstate = { HELD }, .xvalue = { X_VAL_SKL } },
	{ .name = "both_rsp_other", .xstate = { HELD, HELD }, .xvalue = { X_VAL_SKL, Y_VAL_SKL } },
	{ .name = "rsp0_shareable", .xstate = { HELD }, .xvalue = { A_VAL } },
	{ .name = "pmc1_fixed1_rsp1_fe_shareable", .busy = BIT(1) | F1,
	  .xstate = { 0, HELD, HELD }, .xvalue = { 0, A_VAL, 0x11 } },
	{ .name = "fixed2_conflicts_ldlat_held", .busy = F2,
	  .xstate = { 0, CONFL, CONFL, HELD }, .xvalue = { 0, 0, 0, 5 } },
};

struct family {
	const char *model;
	const struct pev *pool;
	u32 npool;
	const struct regspec *regs;
	u32 nregs;
	const struct view_spec *views;
};

static const struct family fam_knx = {
	"knm", knx_pool, PMUCTL_NELEM(knx_pool), knx_regs, PMUCTL_NELEM(knx_regs), knx_views,
};
static const struct family fam_skl = {
	"skl", skl_pool, PMUCTL_NELEM(skl_pool), skl_regs, PMUCTL_NELEM(skl_regs), skl_views,
};
static const struct family fam_spr = {
	"spr", spr_pool, PMUCTL_NELEM(spr_pool), spr_regs, PMUCTL_NELEM(spr_regs), skl_views,
};
static const struct family fam_lnc = {
	"lnl_lnc", lnc_pool, PMUCTL_NELEM(lnc_pool), lnc_regs, PMUCTL_NELEM(lnc_regs),
	skl_views,
};

static u64 gp_mask(const struct pmuctl_caps *c)
{
	return (1ULL << c->nr_gp) - 1;
}

static u64 allowed(const struct pev *e, const struct pmuctl_caps *c)
{
	return (e->gp & gp_mask(c)) | e->fixed;
}

static bool fits(const struct regspec *r, u64 v)
{
	return !(v & ~r->valid);
}

static void make_view(struct pmuctl_view *v, const struct view_spec *s)
{
	memset(v, 0, sizeof(*v));
	v->busy = s->busy;
	memcpy(v->xstate, s->xstate, sizeof(v->xstate));
	memcpy(v->xvalue, s->xvalue, sizeof(v->xvalue));
}

/* ------------------------------------------------------------------ */
/* The oracle                                                         */

enum { O_COUNTERS = 1, O_REGS = 2, O_LATENCY = 4, O_ALL = 7 };

struct oracle {
	const struct family *f;
	const struct pmuctl_caps *caps;
	const struct pmuctl_view *v;
	const struct pev *ev[MAXN];
	u32 n;
	u32 what;		/* O_* rules to honour */
	bool rused[PMUCTL_XREG_MAX];
	u64 rval[PMUCTL_XREG_MAX];
	int reg_of[MAXN];
	u64 nodes;
};

static bool latency_ok(const struct oracle *o)
{
	u64 req = 0;
	bool have = false;
	u32 i;

	for (i = 0; i < o->n && !have; i++) {
		if (o->ev[i]->out) {
			req = o->ev[i]->extra & OFC_REQUEST;
			have = true;
		}
	}
	if (!have)
		return true;
	for (i = 0; i < o->n; i++) {
		u64 x = o->ev[i]->extra;

		/* the register chosen, not the one the code names */
		if (o->reg_of[i] < 0 || !o->f->regs[o->reg_of[i]].rsp1)
			continue;
		if ((x & OFC_REQUEST) != req || !(x & ANYRSP))
			return false;
	}
	return true;
}

static bool reg_free_for(const struct oracle *o, int r, u64 val)
{
	if (!fits(&o->f->regs[r], val))
		return false;
	if (o->rused[r])
		return o->rval[r] == val;
	if (o->v->xstate[r] == PMUCTL_XV_CONFLICT)
		return false;
	if (o->v->xstate[r] == PMUCTL_XV_HELD)
		return o->v->xvalue[r] == val;
	return true;
}

static bool rec(struct oracle *o, u32 i, u64 used)
{
	const struct pev *e;
	int choice[2], nc = 0, k;
	u64 cand = 0;

	o->nodes++;
	if (i == o->n)
		return !(o->what & O_LATENCY) || latency_ok(o);
	e = o->ev[i];
	if (o->what & O_COUNTERS) {
		u64 avail = ~o->v->busy & ~used;
		u64 free_all = (gp_mask(o->caps) | ((u64)o->caps->fixed_mask << PMUCTL_IDX_FIXED)) &
			       avail;

		/* pigeonhole: exact, and keeps the search small */
		if ((u32)__builtin_popcountll(free_all) < o->n - i)
			return false;
		cand = allowed(e, o->caps) & avail;
		if (!cand)
			return false;
	}
	if (e->home < 0 || !(o->what & O_REGS)) {
		choice[nc++] = -1;
	} else {
		choice[nc++] = e->home;
		if (o->f->regs[e->home].alt >= 0)
			choice[nc++] = o->f->regs[e->home].alt;
	}
	for (k = 0; k < nc; k++) {
		int r = choice[k];
		bool was = false;

		if (r >= 0) {
			if (!reg_free_for(o, r, e->extra))
				continue;
			was = o->rused[r];
			o->rused[r] = true;
			o->rval[r] = e->extra;
		}
		o->reg_of[i] = r;
		if (!(o->what & O_COUNTERS)) {
			if (rec(o, i + 1, used))
				return true;
		} else {
			u64 c = cand;

			while (c) {
				u64 bit = c & -c;

				c &= c - 1;
				if (rec(o, i + 1, used | bit))
					return true;
			}
		}
		if (r >= 0)
			o->rused[r] = was;
	}
	return false;
}

static bool oracle_run(const struct family *f, const struct pmuctl_caps *caps,
		       const struct pmuctl_view *v, const struct pev *const *ev,
		       u32 n, u32 what, u64 *nodes)
{
	struct oracle o;
	bool ok;

	memset(&o, 0, sizeof(o));
	o.f = f;
	o.caps = caps;
	o.v = v;
	o.n = n;
	o.what = what;
	memcpy(o.ev, ev, n * sizeof(ev[0]));
	ok = rec(&o, 0, 0);
	if (nodes)
		*nodes += o.nodes;
	return ok;
}

/* ------------------------------------------------------------------ */
/* Independent check of a placement                                   */

/*
 * Linux's one-pass arbitration (__intel_shared_reg_get_constraints with
 * intel_alt_er): each event in order takes its home register if free or
 * holding its value, else the other OFFCORE_RSP register if the value fits
 * and that one is free or holds it; else the group fails.
 */
static bool greedy(const struct family *f, const struct pmuctl_view *v,
		   const struct pev *const *ev, u32 n, int *reg)
{
	bool rused[PMUCTL_XREG_MAX] = { false };
	u64 rval[PMUCTL_XREG_MAX] = { 0 };
	u32 i;

	for (i = 0; i < n; i++) {
		int c[2] = { ev[i]->home, -1 }, k;

		reg[i] = -1;
		if (ev[i]->home < 0)
			continue;
		c[1] = f->regs[ev[i]->home].alt;
		for (k = 0; k < 2 && reg[i] < 0; k++) {
			int r = c[k];
			bool ok;

			if (r < 0 || !fits(&f->regs[r], ev[i]->extra))
				continue;
			if (rused[r])
				ok = rval[r] == ev[i]->extra;
			else
				ok = v->xstate[r] == PMUCTL_XV_FREE ||
				     (v->xstate[r] == PMUCTL_XV_HELD &&
				      v->xvalue[r] == ev[i]->extra);
			if (ok) {
				reg[i] = r;
				rused[r] = true;
				rval[r] = ev[i]->extra;
			}
		}
		if (reg[i] < 0)
			return false;
	}
	return true;
}

static bool placement_valid(struct __test_metadata *_metadata,
			    const struct family *f, const struct pmuctl_caps *caps,
			    const struct pmuctl_view *v, const struct pev *const *ev,
			    u32 n, const struct pmuctl_place *p, const char *what)
{
	bool rused[PMUCTL_XREG_MAX] = { false };
	u64 rval[PMUCTL_XREG_MAX] = { 0 };
	int greedy_reg[MAXN];
	u64 used = 0, req = 0;
	bool have_out = false;
	u32 i;

#define CHECK(cond, fmt, ...) do {					\
		if (!(cond)) {						\
			TH_LOG("%s: event %u (%s): " fmt, what, i,	\
			       ev[i]->name, ##__VA_ARGS__);		\
			return false;					\
		}							\
	} while (0)

	for (i = 0; i < n; i++) {
		const struct pev *e = ev[i];
		u64 bit = BIT(p[i].idx);

		CHECK(p[i].idx < PMUCTL_IDX_MAX, "index %u", p[i].idx);
		CHECK(allowed(e, caps) & bit, "counter %u not allowed", p[i].idx);
		CHECK(!(v->busy & bit), "counter %u is held", p[i].idx);
		CHECK(!(used & bit), "counter %u placed twice", p[i].idx);
		used |= bit;
		CHECK(p[i].extra == e->extra, "extra changed to %#llx",
		      (unsigned long long)p[i].extra);
		if (e->home < 0) {
			CHECK(p[i].xreg == -1, "xreg %d for a plain event", p[i].xreg);
			CHECK(p[i].config == e->config, "config changed");
			continue;
		}
		int r = p[i].xreg;

		CHECK(r == e->home || (r >= 0 && r == f->regs[e->home].alt),
		      "xreg %d, home %d", r, e->home);
		CHECK(fits(&f->regs[r], e->extra), "value outside xreg %d", r);
		/* at home as given; moved, with the other register's code */
		CHECK(p[i].config == (r == e->home ? e->config :
				      (e->config & ~CODE) | f->regs[r].code),
		      "config %#llx on xreg %d", (unsigned long long)p[i].config, r);
		if (rused[r])
			CHECK(rval[r] == e->extra, "xreg %d holds two values", r);
		CHECK(v->xstate[r] != PMUCTL_XV_CONFLICT, "xreg %d in conflict", r);
		CHECK(v->xstate[r] != PMUCTL_XV_HELD || v->xvalue[r] == e->extra,
		      "xreg %d held with another value", r);
		rused[r] = true;
		rval[r] = e->extra;
		if (e->out && !have_out) {
			have_out = true;
			req = e->extra & OFC_REQUEST;
		}
	}
	/* latency pair: the events placed on RSP_1, however spelled */
	for (i = 0; i < n && have_out; i++) {
		if (p[i].xreg < 0 || !f->regs[p[i].xreg].rsp1)
			continue;
		CHECK((ev[i]->extra & OFC_REQUEST) == req, "latency request mismatch");
		CHECK(ev[i]->extra & ANYRSP, "latency partner without ANY_RESPONSE");
	}
	/* where Linux's greedy succeeds, its register choice is the one made */
	if (greedy(f, v, ev, n, greedy_reg)) {
		for (i = 0; i < n; i++)
			CHECK(p[i].xreg == greedy_reg[i], "xreg %d, Linux's greedy takes %d",
			      p[i].xreg, greedy_reg[i]);
	}
#undef CHECK
	return true;
}

/* ------------------------------------------------------------------ */
/* One group through the scheduler and the oracle                     */

struct stats {
	u32 groups, placed, refused, busy_counters, busy_xreg, latency;
	u64 nodes;
};

static void build_events(const struct pev *const *ev, u32 n, struct pmuctl_event *out)
{
	u32 i;

	memset(out, 0, n * sizeof(*out));
	for (i = 0; i < n; i++) {
		out[i].config = ev[i]->config;
		out[i].extra = ev[i]->extra;
		out[i].flags = ev[i]->flags;
	}
}

static void names(const struct pev *const *ev, u32 n, char *buf, size_t len)
{
	size_t off = 0;
	u32 i;

	buf[0] = 0;
	for (i = 0; i < n && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? "," : "", ev[i]->name);
}

enum { CHECK_AGREE = 1, CHECK_VALID = 2, CHECK_PURE = 4, CHECK_BLAME = 8 };

/* Returns false on the first disagreement (already logged). */
static bool check_group(struct __test_metadata *_metadata, const struct pmuctl_model *m,
			const struct family *f, const struct pmuctl_caps *caps,
			const struct pmuctl_view *v, const char *vname,
			const struct pev *const *ev, u32 n, u32 checks,
			struct stats *st)
{
	struct pmuctl_event in[MAXN], in_copy[MAXN];
	struct pmuctl_place p[MAXN], p2[MAXN];
	struct pmuctl_view v_copy = *v;
	u32 reason = 0xdead, index = 0xdead, reason2 = 0, index2 = 0;
	char buf[512];
	bool want;
	int ret, ret2;

	build_events(ev, n, in);
	memcpy(in_copy, in, n * sizeof(in[0]));
	memset(p, 0xcc, sizeof(p));
	ret = pmuctl_group_schedule(m, caps, 0, v, in, n, p, &reason, &index);
	st->groups++;

	if (checks & CHECK_PURE) {
		memset(p2, 0x33, sizeof(p2));
		ret2 = pmuctl_group_schedule(m, caps, 0, v, in, n, p2, &reason2, &index2);
		if (memcmp(in, in_copy, n * sizeof(in[0])) || memcmp(v, &v_copy, sizeof(*v))) {
			names(ev, n, buf, sizeof(buf));
			TH_LOG("view %s group {%s}: inputs modified", vname, buf);
			return false;
		}
		if (ret != ret2 || reason != reason2 || index != index2 ||
		    (!ret && memcmp(p, p2, n * sizeof(p[0])))) {
			names(ev, n, buf, sizeof(buf));
			TH_LOG("view %s group {%s}: two calls differ (ret %d/%d)",
			       vname, buf, ret, ret2);
			return false;
		}
	}

	if (!ret) {
		st->placed++;
		if (reason != PMUCTL_R_NONE) {
			TH_LOG("view %s: success with reason %u", vname, reason);
			return false;
		}
	} else {
		st->refused++;
	}

	if (checks & CHECK_AGREE) {
		want = oracle_run(f, caps, v, ev, n, O_ALL, &st->nodes);
		if (want != !ret) {
			names(ev, n, buf, sizeof(buf));
			TH_LOG("view %s group {%s}: scheduler ret %d reason %u index %u, oracle %s",
			       vname, buf, ret, reason, index,
			       want ? "finds a placement" : "finds none");
			return false;
		}
		if (ret && ret != -EBUSY && ret != -EINVAL) {
			TH_LOG("view %s: ret %d", vname, ret);
			return false;
		}
	}
	if ((checks & CHECK_VALID) && !ret) {
		names(ev, n, buf, sizeof(buf));
		char what[600];

		snprintf(what, sizeof(what), "view %s group {%s}", vname, buf);
		if (!placement_valid(_metadata, f, caps, v, ev, n, p, what))
			return false;
	}
	if ((checks & CHECK_BLAME) && ret) {
		names(ev, n, buf, sizeof(buf));
		if (index >= n) {
			TH_LOG("view %s group {%s}: index %u of %u", vname, buf, index, n);
			return false;
		}
		switch (reason) {
		case PMUCTL_R_COUNTERS_BUSY:
			st->busy_counters++;
			/* counters come last: registers and latency are fine */
			if (!oracle_run(f, caps, v, ev, n, O_REGS | O_LATENCY, &st->nodes) ||
			    /* events 0..index cannot all get counters ... */
			    oracle_run(f, caps, v, ev, index + 1, O_COUNTERS, &st->nodes) ||
			    /* ... and 0..index-1 can */
			    !oracle_run(f, caps, v, ev, index, O_COUNTERS, &st->nodes)) {
				TH_LOG("view %s group {%s}: COUNTERS_BUSY blames event %u",
				       vname, buf, index);
				return false;
			}
			break;
		case PMUCTL_R_OFFCORE_RSP0_BUSY:
		case PMUCTL_R_OFFCORE_RSP1_BUSY:
		case PMUCTL_R_OFFCORE_BOTH_BUSY:
		case PMUCTL_R_FRONTEND_BUSY:
		case PMUCTL_R_LDLAT_BUSY: {
			const struct pev *e = ev[index];
			u32 want_reason;

			st->busy_xreg++;
			if (oracle_run(f, caps, v, ev, n, O_REGS, &st->nodes) || e->home < 0) {
				TH_LOG("view %s group {%s}: %u blames event %u", vname, buf,
				       reason, index);
				return false;
			}
			/* the reason names the register(s) the value could use */
			want_reason = f->regs[e->home].busy_reason;
			if (f->regs[e->home].alt >= 0 &&
			    fits(&f->regs[f->regs[e->home].alt], e->extra))
				want_reason = PMUCTL_R_OFFCORE_BOTH_BUSY;
			if (reason != want_reason) {
				TH_LOG("view %s group {%s}: reason %u for event %u, expected %u",
				       vname, buf, reason, index, want_reason);
				return false;
			}
			break;
		}
		case PMUCTL_R_LATENCY_REQUEST_MISMATCH:
		case PMUCTL_R_LATENCY_NO_ANY_RESPONSE: {
			const struct pev *e = ev[index];
			u64 req = 0;
			u32 i;

			st->latency++;
			for (i = 0; i < n; i++)
				if (ev[i]->out) {
					req = ev[i]->extra & OFC_REQUEST;
					break;
				}
			if (ret != -EINVAL || e->home < 0 ||
			    !oracle_run(f, caps, v, ev, n, O_REGS, &st->nodes) ||
			    oracle_run(f, caps, v, ev, n, O_REGS | O_LATENCY, &st->nodes) ||
			    (reason == PMUCTL_R_LATENCY_REQUEST_MISMATCH) !=
			    ((e->extra & OFC_REQUEST) != req)) {
				TH_LOG("view %s group {%s}: latency reason %u event %u",
				       vname, buf, reason, index);
				return false;
			}
			break;
		}
		default:
			TH_LOG("view %s group {%s}: unexpected reason %u", vname, buf, reason);
			return false;
		}
	}
	return true;
}

/* ------------------------------------------------------------------ */
/* Oracle over every subset of up to 8 pool events                    */

FIXTURE(oracle) {
	const struct pmuctl_model *m;
	struct pmuctl_view v;
};

FIXTURE_VARIANT(oracle) {
	const struct pmuctl_caps *caps;
	const struct family *f;
	u32 view;
};

#define ORACLE_VARIANT(c, fam, vi, vname)				\
	FIXTURE_VARIANT_ADD(oracle, c##_##vname) {			\
		.caps = &caps_##c, .f = &fam_##fam, .view = vi,		\
	}

ORACLE_VARIANT(knm2, knx, 0, free);
ORACLE_VARIANT(knm2, knx, 1, pmc0_held);
ORACLE_VARIANT(knm2, knx, 2, fixed0_held);
ORACLE_VARIANT(knm2, knx, 3, rsp0_other);
ORACLE_VARIANT(knm2, knx, 4, both_rsp_other);
ORACLE_VARIANT(knm2, knx, 5, rsp0_shareable);
ORACLE_VARIANT(knm2, knx, 6, pmc1_fixed1_rsp1_shareable);
ORACLE_VARIANT(knm2, knx, 7, fixed2_rsp0_out_rsp1_conflict);
ORACLE_VARIANT(knm4, knx, 0, free);
ORACLE_VARIANT(knm4, knx, 1, pmc0_held);
ORACLE_VARIANT(knm4, knx, 2, fixed0_held);
ORACLE_VARIANT(knm4, knx, 3, rsp0_other);
ORACLE_VARIANT(knm4, knx, 4, both_rsp_other);
ORACLE_VARIANT(knm4, knx, 5, rsp0_shareable);
ORACLE_VARIANT(knm4, knx, 6, pmc1_fixed1_rsp1_shareable);
ORACLE_VARIANT(knm4, knx, 7, fixed2_rsp0_out_rsp1_conflict);
ORACLE_VARIANT(skl4, skl, 0, free);
ORACLE_VARIANT(skl4, skl, 1, pmc0_held);
ORACLE_VARIANT(skl4, skl, 2, fixed0_held);
ORACLE_VARIANT(skl4, skl, 3, rsp0_other);
ORACLE_VARIANT(skl4, skl, 4, both_rsp_other);
ORACLE_VARIANT(skl4, skl, 5, rsp0_shareable);
ORACLE_VARIANT(skl4, skl, 6, pmc1_fixed1_rsp1_fe_shareable);
ORACLE_VARIANT(skl4, skl, 7, fixed2_conflicts_ldlat_held);
ORACLE_VARIANT(spr8, spr, 0, free);
ORACLE_VARIANT(spr8, spr, 1, pmc0_held);
ORACLE_VARIANT(spr8, spr, 2, fixed0_held);
ORACLE_VARIANT(spr8, spr, 3, rsp0_other);
ORACLE_VARIANT(spr8, spr, 4, both_rsp_other);
ORACLE_VARIANT(spr8, spr, 5, rsp0_shareable);
ORACLE_VARIANT(spr8, spr, 6, pmc1_fixed1_rsp1_fe_shareable);
ORACLE_VARIANT(spr8, spr, 7, fixed2_conflicts_ldlat_held);
ORACLE_VARIANT(lnc10, lnc, 0, free);
ORACLE_VARIANT(lnc10, lnc, 1, pmc0_held);
ORACLE_VARIANT(lnc10, lnc, 2, fixed0_held);
ORACLE_VARIANT(lnc10, lnc, 3, rsp0_other);
ORACLE_VARIANT(lnc10, lnc, 4, both_rsp_other);
ORACLE_VARIANT(lnc10, lnc, 5, rsp0_shareable);
ORACLE_VARIANT(lnc10, lnc, 6, pmc1_fixed1_rsp1_fe_shareable);
ORACLE_VARIANT(lnc10, lnc, 7, fixed2_conflicts_ldlat_held);

FIXTURE_SETUP(oracle)
{
	self->m = pmuctl_model_by_name(variant->f->model);
	make_view(&self->v, &variant->f->views[variant->view]);
}

FIXTURE_TEARDOWN(oracle)
{
}

static void run_subsets(struct __test_metadata *_metadata,
			const FIXTURE_VARIANT(oracle) *variant,
			const struct pmuctl_model *m, const struct pmuctl_view *v,
			u32 checks)
{
	const struct family *f = variant->f;
	const char *vname = f->views[variant->view].name;
	struct stats st = { 0 };
	u32 mask;

	ASSERT_NE(NULL, m);
	ASSERT_GE(16U, f->npool);
	for (mask = 1; mask < (1U << f->npool); mask++) {
		const struct pev *ev[MAXN];
		u32 n = 0, i;

		if (__builtin_popcount(mask) > 8)
			continue;
		for (i = 0; i < f->npool; i++)
			if (mask & (1U << i))
				ev[n++] = &f->pool[i];
		if (!check_group(_metadata, m, f, variant->caps, v, vname, ev, n, checks, &st)) {
			EXPECT_TRUE(false) TH_LOG("subset %#x", mask);
			break;
		}
	}
	TH_LOG("%s/%s: %u groups, %u placed, %u refused (counters %u, xreg %u, latency %u)",
	       m->name, vname, st.groups, st.placed, st.refused, st.busy_counters,
	       st.busy_xreg, st.latency);
	TH_LOG("%s/%s: %llu oracle nodes", m->name, vname, (unsigned long long)st.nodes);
	EXPECT_LT(0U, st.groups);
}

TEST_F(oracle, places_iff_an_assignment_exists)
{
	run_subsets(_metadata, variant, self->m, &self->v, CHECK_AGREE);
}

TEST_F(oracle, returns_a_valid_placement)
{
	run_subsets(_metadata, variant, self->m, &self->v, CHECK_VALID);
}

TEST_F(oracle, same_input_same_placement_inputs_untouched)
{
	run_subsets(_metadata, variant, self->m, &self->v, CHECK_PURE);
}

TEST_F(oracle, refusal_names_the_rule_and_event)
{
	run_subsets(_metadata, variant, self->m, &self->v, CHECK_BLAME);
}

/* The pool's hand-written eligibility is what classify says. */
TEST(pool_spec_matches_classify_and_model_tables)
{
	static const struct { const struct family *f; const struct pmuctl_caps *c; } fc[] = {
		{ &fam_knx, &caps_knm2 }, { &fam_knx, &caps_knm4 }, { &fam_knx, &caps_knl2 },
		{ &fam_skl, &caps_skl4 }, { &fam_lnc, &caps_lnc10 },
	};
	u32 k, i, n = 0;

	for (k = 0; k < PMUCTL_NELEM(fc); k++) {
		const struct family *f = fc[k].f;
		/* the hybrid Lunar Lake's by its core type */
		const struct pmuctl_model *m = pmuctl_model_for(fc[k].c);

		ASSERT_NE(NULL, m);
		ASSERT_EQ(f->nregs, m->nr_xregs) TH_LOG("%s", m->name);
		for (i = 0; i < f->nregs; i++) {
			EXPECT_EQ(f->regs[i].code, m->xregs[i].code) TH_LOG("%s %u", m->name, i);
			EXPECT_EQ(f->regs[i].msr, m->xregs[i].msr) TH_LOG("%s %u", m->name, i);
			EXPECT_EQ(f->regs[i].valid, m->xregs[i].valid) TH_LOG("%s %u", m->name, i);
			EXPECT_EQ(f->regs[i].alt, (int)m->xregs[i].alt) TH_LOG("%s %u", m->name, i);
		}
		for (i = 0; i < f->npool; i++) {
			const struct pev *e = &f->pool[i];
			struct pmuctl_class cls;
			u32 reason;
			int ret;

			n++;
			ret = pmuctl_event_classify(m, fc[k].c, 0, e->config, e->extra,
						    e->flags, &cls, &reason);
			ASSERT_EQ(0, ret) TH_LOG("%s %s: reason %u", m->name, e->name, reason);
			EXPECT_EQ(allowed(e, fc[k].c), cls.counters) TH_LOG("%s %s", m->name, e->name);
			EXPECT_EQ(e->home, (int)cls.xreg) TH_LOG("%s %s", m->name, e->name);
			EXPECT_EQ(e->out, cls.outstanding) TH_LOG("%s %s", m->name, e->name);
		}
	}
	TH_LOG("%u pool events checked", n);
}

/* ------------------------------------------------------------------ */
/* Seeded random groups and views                                     */

#define RANDOM_SEED	0x5eed2024U
#define RANDOM_GROUPS	10000

static u32 rng_state;

static u32 rnd(void)
{
	/* xorshift32 */
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return rng_state;
}

FIXTURE(random) {
	const struct pmuctl_model *m;
};

FIXTURE_VARIANT(random) {
	const struct pmuctl_caps *caps;
	const struct family *f;
	u32 seed;
};

FIXTURE_VARIANT_ADD(random, knm2) { .caps = &caps_knm2, .f = &fam_knx, .seed = RANDOM_SEED };
FIXTURE_VARIANT_ADD(random, knm4) { .caps = &caps_knm4, .f = &fam_knx, .seed = RANDOM_SEED + 1 };
FIXTURE_VARIANT_ADD(random, skl4) { .caps = &caps_skl4, .f = &fam_skl, .seed = RANDOM_SEED + 2 };

FIXTURE_SETUP(random)
{
	self->m = pmuctl_model_by_name(variant->f->model);
}

FIXTURE_TEARDOWN(random)
{
}

TEST_F(random, agrees_with_oracle_on_random_groups_and_views)
{
	const struct family *f = variant->f;
	u64 values[MAXN + 2];
	struct stats st = { 0 };
	u32 nvalues = 0, g, i;

	ASSERT_NE(NULL, self->m);
	for (i = 0; i < f->npool; i++)
		if (f->pool[i].home >= 0)
			values[nvalues++] = f->pool[i].extra;
	values[nvalues++] = f == &fam_skl ? X_VAL_SKL : X_VAL_KNX;
	values[nvalues++] = f == &fam_skl ? Y_VAL_SKL : Y_VAL_KNX;

	rng_state = variant->seed;
	TH_LOG("%s: seed %#x, %u groups", self->m->name, variant->seed, RANDOM_GROUPS);
	for (g = 0; g < RANDOM_GROUPS; g++) {
		const struct pev *ev[MAXN];
		struct pmuctl_view v;
		u64 present = gp_mask(variant->caps) |
			      ((u64)variant->caps->fixed_mask << PMUCTL_IDX_FIXED);
		u32 n = 1 + rnd() % 9;
		char name[64];

		memset(&v, 0, sizeof(v));
		for (i = 0; i < PMUCTL_IDX_MAX; i++)
			if ((present & BIT(i)) && rnd() % 5 == 0)
				v.busy |= BIT(i);
		for (i = 0; i < f->nregs; i++) {
			u32 r = rnd() % 16;

			if (r < 10)
				continue;
			if (r == 15) {
				v.xstate[i] = PMUCTL_XV_CONFLICT;
				continue;
			}
			v.xstate[i] = PMUCTL_XV_HELD;
			v.xvalue[i] = values[rnd() % nvalues];
		}
		for (i = 0; i < n; i++)
			ev[i] = &f->pool[rnd() % f->npool];
		snprintf(name, sizeof(name), "random #%u", g);
		if (!check_group(_metadata, self->m, f, variant->caps, &v, name, ev, n,
				 CHECK_AGREE | CHECK_VALID | CHECK_PURE | CHECK_BLAME, &st)) {
			EXPECT_TRUE(false) TH_LOG("seed %#x group %u", variant->seed, g);
			break;
		}
	}
	TH_LOG("%s: %u groups, %u placed, %u refused (counters %u, xreg %u, latency %u)",
	       self->m->name, st.groups, st.placed, st.refused, st.busy_counters,
	       st.busy_xreg, st.latency);
}

/* The mask of @st's indexes that have an owner, from owner[] itself. */
static u64 owners_mask(const struct pmuctl_cpu_state *st)
{
	u64 m = 0;
	u32 i;

	for (i = 0; i < PMUCTL_IDX_ALL; i++)
		if (st->owner[i])
			m |= 1ULL << i;
	return m;
}

/*
 * pmuctl_cpu_held() answers from a mask claim and release keep beside
 * owner[] (every wave and START asks): after any sequence of claims and
 * releases, failed ones included, it is what owner[] says.
 */
TEST(held_mask_follows_claims_and_releases)
{
	struct pmuctl_place held_by[4][3];
	u32 nheld[4] = { 0 };
	struct pmuctl_cpu_state st;
	u32 step, ok = 0, failed = 0;

	memset(&st, 0, sizeof(st));
	rng_state = RANDOM_SEED + 7;
	for (step = 0; step < 4000; step++) {
		u32 owner = 1 + rnd() % 4, n, i;

		if (nheld[owner - 1] && rnd() % 2) {
			/* Now and then a release by one who holds nothing: refused. */
			if (rnd() % 8 == 0) {
				ASSERT_EQ(-EINVAL, pmuctl_cpu_release(&st, 5, held_by[owner - 1],
								      nheld[owner - 1]));
				failed++;
			}
			ASSERT_EQ(0, pmuctl_cpu_release(&st, owner, held_by[owner - 1],
							nheld[owner - 1]));
			nheld[owner - 1] = 0;
		} else if (!nheld[owner - 1]) {
			n = 1 + rnd() % 3;
			for (i = 0; i < n; i++)
				held_by[owner - 1][i] = (struct pmuctl_place){
					.idx = rnd() % PMUCTL_IDX_ALL, .xreg = -1,
				};
			if (pmuctl_cpu_claim(&st, owner, held_by[owner - 1], n)) {
				failed++;	/* taken, or an index twice */
			} else {
				nheld[owner - 1] = n;
				ok++;
			}
		}
		ASSERT_EQ(owners_mask(&st), pmuctl_cpu_held(&st)) {
			TH_LOG("step %u owner %u", step, owner);
		}
	}
	TH_LOG("%u claims, %u refused claims and releases", ok, failed);
	EXPECT_GT(ok, 100U);
	EXPECT_GT(failed, 100U);
}

/* ------------------------------------------------------------------ */
/* Arbitration sequences                                              */

FIXTURE(arb) {
	const struct pmuctl_model *m;
	struct pmuctl_cpu_state st;
};

FIXTURE_VARIANT(arb) {
	u32 id;
	const struct pmuctl_caps *caps;
	u16 rsp0, rsp1;		/* event codes selecting each register */
	u64 a, b, c;		/* three values that fit both registers */
};

FIXTURE_VARIANT_ADD(arb, knl) {
	.id = PMUCTL_MODEL_KNL, .caps = &caps_knl2, .rsp0 = 0x01b7, .rsp1 = 0x02b7,
	.a = A_VAL, .b = B_VAL, .c = D_VAL,
};
FIXTURE_VARIANT_ADD(arb, knm) {
	.id = PMUCTL_MODEL_KNM, .caps = &caps_knm4, .rsp0 = 0x01b7, .rsp1 = 0x02b7,
	.a = A_VAL, .b = B_VAL, .c = D_VAL,
};
FIXTURE_VARIANT_ADD(arb, skl) {
	.id = PMUCTL_MODEL_SKL, .caps = &caps_skl4, .rsp0 = 0x01b7, .rsp1 = 0x01bb,
	.a = A_VAL, .b = B_VAL, .c = C_VAL,
};

FIXTURE_SETUP(arb)
{
	self->m = pmuctl_model_by_id(variant->id);
	memset(&self->st, 0, sizeof(self->st));
}

FIXTURE_TEARDOWN(arb)
{
}

static struct pmuctl_event evt(u64 config, u64 extra)
{
	struct pmuctl_event e;

	memset(&e, 0, sizeof(e));
	e.config = config;
	e.extra = extra;
	return e;
}

/* Schedule a group next to what *st holds (NULL: nothing). */
static int sched_on(const struct pmuctl_model *m, const struct pmuctl_caps *caps,
		    const struct pmuctl_cpu_state *st, const struct pmuctl_event *ev,
		    u32 n, struct pmuctl_place *p, u32 *reason, u32 *index)
{
	struct pmuctl_view v;

	pmuctl_view_init(&v);
	if (st)
		pmuctl_view_add(&v, st);
	*reason = 0xdead;
	*index = 0xdead;
	return pmuctl_group_schedule(m, caps, 0, &v, ev, n, p, reason, index);
}

/* Schedule one offcore event and claim it for owner; returns its place. */
static struct pmuctl_place take(struct __test_metadata *_metadata,
				const struct pmuctl_model *m, const struct pmuctl_caps *caps,
				struct pmuctl_cpu_state *st, u32 owner, u16 code, u64 extra)
{
	struct pmuctl_event e = evt(code | USR, extra);
	struct pmuctl_place p;
	u32 reason, index;

	memset(&p, 0, sizeof(p));
	EXPECT_EQ(0, sched_on(m, caps, st, &e, 1, &p, &reason, &index)) {
		TH_LOG("owner %u code %#x extra %#llx: reason %u", owner, code,
		       (unsigned long long)extra, reason);
	}
	EXPECT_EQ(0, pmuctl_cpu_claim(st, owner, &p, 1));
	return p;
}

static u64 code_of(u64 config)
{
	return config & CODE;
}

TEST_F(arb, shares_identical_offcore_value)
{
	struct pmuctl_place p1, p2;

	ASSERT_NE(NULL, self->m);
	p1 = take(_metadata, self->m, variant->caps, &self->st, 1, variant->rsp0, variant->a);
	p2 = take(_metadata, self->m, variant->caps, &self->st, 2, variant->rsp0, variant->a);
	EXPECT_EQ(0, p1.xreg);
	EXPECT_EQ(0, p2.xreg);
	EXPECT_EQ((u64)variant->rsp0, code_of(p2.config));
	EXPECT_NE(p1.idx, p2.idx);
	EXPECT_EQ(variant->a, self->st.x[0].value);
	EXPECT_EQ(2U, self->st.x[0].refcount);
	EXPECT_EQ(0U, self->st.x[1].refcount);
	EXPECT_EQ(1U, self->st.owner[p1.idx]);
	EXPECT_EQ(2U, self->st.owner[p2.idx]);
}

/* One group, one home, one value: one register, two references. */
TEST_F(arb, group_shares_one_register_for_identical_values)
{
	struct pmuctl_event e[2] = {
		evt(variant->rsp0 | USR, variant->a), evt(variant->rsp0 | OS, variant->a),
	};
	struct pmuctl_place p[2];
	u32 reason, index;

	ASSERT_EQ(0, sched_on(self->m, variant->caps, &self->st, e, 2, p, &reason, &index));
	EXPECT_EQ(0, p[0].xreg);
	EXPECT_EQ(0, p[1].xreg);
	ASSERT_EQ(0, pmuctl_cpu_claim(&self->st, 7, p, 2));
	EXPECT_EQ(2U, self->st.x[0].refcount);
	EXPECT_EQ(0U, self->st.x[1].refcount);
	ASSERT_EQ(0, pmuctl_cpu_release(&self->st, 7, p, 2));
	EXPECT_EQ(0U, self->st.x[0].refcount);
	EXPECT_EQ(0ULL, self->st.x[0].value);
}

/*
 * One value asked through both codes: as Linux's greedy does, each event
 * takes its own (free) home register.
 */
TEST_F(arb, same_value_through_both_codes_takes_each_home)
{
	struct pmuctl_event e[2] = {
		evt(variant->rsp0 | USR, variant->a), evt(variant->rsp1 | USR, variant->a),
	};
	struct pmuctl_place p[2];
	u32 reason, index;

	ASSERT_EQ(0, sched_on(self->m, variant->caps, &self->st, e, 2, p, &reason, &index));
	EXPECT_EQ(0, p[0].xreg);
	EXPECT_EQ(1, p[1].xreg);
	EXPECT_EQ((u64)variant->rsp0, code_of(p[0].config));
	EXPECT_EQ((u64)variant->rsp1, code_of(p[1].config));
	/* with RSP_1 holding another value, the second shares RSP_0 */
	self->st.x[1].value = variant->b;
	self->st.x[1].refcount = 1;
	ASSERT_EQ(0, sched_on(self->m, variant->caps, &self->st, e, 2, p, &reason, &index));
	EXPECT_EQ(0, p[0].xreg);
	EXPECT_EQ(0, p[1].xreg);
	EXPECT_EQ((u64)variant->rsp0, code_of(p[1].config));	/* rewritten */
}

TEST_F(arb, moves_rsp0_to_rsp1_with_code_rewrite)
{
	struct pmuctl_place p1, p2;

	p1 = take(_metadata, self->m, variant->caps, &self->st, 1, variant->rsp0, variant->a);
	p2 = take(_metadata, self->m, variant->caps, &self->st, 2, variant->rsp0, variant->b);
	EXPECT_EQ(0, p1.xreg);
	EXPECT_EQ(1, p2.xreg);
	EXPECT_EQ((u64)variant->rsp1, code_of(p2.config)) {
		TH_LOG("config %#llx", (unsigned long long)p2.config);
	}
	EXPECT_EQ((u64)(USR), p2.config & ~CODE);	/* only the code changes */
	EXPECT_EQ(variant->b, p2.extra);
	EXPECT_EQ(variant->a, self->st.x[0].value);
	EXPECT_EQ(1U, self->st.x[0].refcount);
	EXPECT_EQ(variant->b, self->st.x[1].value);
	EXPECT_EQ(1U, self->st.x[1].refcount);
}

TEST_F(arb, moves_rsp1_to_rsp0_with_code_rewrite)
{
	struct pmuctl_place p1, p2;

	p1 = take(_metadata, self->m, variant->caps, &self->st, 1, variant->rsp1, variant->a);
	p2 = take(_metadata, self->m, variant->caps, &self->st, 2, variant->rsp1, variant->b);
	EXPECT_EQ(1, p1.xreg);
	EXPECT_EQ((u64)variant->rsp1, code_of(p1.config));
	EXPECT_EQ(0, p2.xreg);
	EXPECT_EQ((u64)variant->rsp0, code_of(p2.config));
	EXPECT_EQ(variant->a, self->st.x[1].value);
	EXPECT_EQ(variant->b, self->st.x[0].value);
}

TEST_F(arb, reports_both_busy_when_value_fits_both)
{
	struct pmuctl_event e = evt(variant->rsp0 | USR, variant->c);
	struct pmuctl_cpu_state before;
	struct pmuctl_place p, q;
	u32 reason, index;

	take(_metadata, self->m, variant->caps, &self->st, 1, variant->rsp0, variant->a);
	take(_metadata, self->m, variant->caps, &self->st, 2, variant->rsp0, variant->b);
	before = self->st;
	EXPECT_EQ(-EBUSY, sched_on(self->m, variant->caps, &self->st, &e, 1, &p,
				   &reason, &index));
	EXPECT_EQ((u32)PMUCTL_R_OFFCORE_BOTH_BUSY, reason);
	EXPECT_EQ(0U, index);
	e = evt(variant->rsp1 | USR, variant->c);
	EXPECT_EQ(-EBUSY, sched_on(self->m, variant->caps, &self->st, &e, 1, &p,
				   &reason, &index));
	EXPECT_EQ((u32)PMUCTL_R_OFFCORE_BOTH_BUSY, reason);
	EXPECT_EQ(0, memcmp(&before, &self->st, sizeof(before)));
	/*
	 * Either held value is still shareable, from either code (counted on
	 * counters left free: with 2 generic counters both are taken here).
	 */
	memset(before.owner, 0, sizeof(before.owner));
	before.held = 0;
	e = evt(variant->rsp1 | USR, variant->a);
	EXPECT_EQ(0, sched_on(self->m, variant->caps, &before, &e, 1, &q, &reason, &index));
	EXPECT_EQ(0, q.xreg);
	e = evt(variant->rsp0 | USR, variant->b);
	EXPECT_EQ(0, sched_on(self->m, variant->caps, &before, &e, 1, &q, &reason, &index));
	EXPECT_EQ(1, q.xreg);
}

TEST_F(arb, release_returns_slot_to_free)
{
	struct pmuctl_cpu_state empty;
	struct pmuctl_place p1, p2;

	memset(&empty, 0, sizeof(empty));
	p1 = take(_metadata, self->m, variant->caps, &self->st, 1, variant->rsp0, variant->a);
	ASSERT_EQ(0, pmuctl_cpu_release(&self->st, 1, &p1, 1));
	EXPECT_EQ(0ULL, self->st.x[0].value);
	EXPECT_EQ(0U, self->st.x[0].refcount);
	EXPECT_EQ(0U, self->st.owner[p1.idx]);
	EXPECT_EQ(0, memcmp(&empty, &self->st, sizeof(empty)));
	/* another value now takes RSP_0 again, unmoved */
	p2 = take(_metadata, self->m, variant->caps, &self->st, 2, variant->rsp0, variant->b);
	EXPECT_EQ(0, p2.xreg);
	EXPECT_EQ((u64)variant->rsp0, code_of(p2.config));
}

TEST_F(arb, shared_slot_survives_one_release)
{
	struct pmuctl_place p1, p2;
	struct pmuctl_event e = evt(variant->rsp0 | USR, variant->b);
	struct pmuctl_place q;
	u32 reason, index;

	p1 = take(_metadata, self->m, variant->caps, &self->st, 1, variant->rsp0, variant->a);
	p2 = take(_metadata, self->m, variant->caps, &self->st, 2, variant->rsp0, variant->a);
	ASSERT_EQ(0, pmuctl_cpu_release(&self->st, 1, &p1, 1));
	EXPECT_EQ(1U, self->st.x[0].refcount);
	EXPECT_EQ(variant->a, self->st.x[0].value);
	EXPECT_EQ(2U, self->st.owner[p2.idx]);
	/* still held: another value moves */
	ASSERT_EQ(0, sched_on(self->m, variant->caps, &self->st, &e, 1, &q, &reason, &index));
	EXPECT_EQ(1, q.xreg);
	ASSERT_EQ(0, pmuctl_cpu_release(&self->st, 2, &p2, 1));
	EXPECT_EQ(0U, self->st.x[0].refcount);
	EXPECT_EQ(0ULL, self->st.x[0].value);
}

TEST_F(arb, release_twice_fails_and_changes_nothing)
{
	struct pmuctl_cpu_state before;
	struct pmuctl_place p1, p2;

	p1 = take(_metadata, self->m, variant->caps, &self->st, 1, variant->rsp0, variant->a);
	p2 = take(_metadata, self->m, variant->caps, &self->st, 2, variant->rsp0, variant->a);
	ASSERT_EQ(0, pmuctl_cpu_release(&self->st, 1, &p1, 1));
	before = self->st;
	EXPECT_EQ(-EINVAL, pmuctl_cpu_release(&self->st, 1, &p1, 1));
	EXPECT_EQ(0, memcmp(&before, &self->st, sizeof(before)));
	EXPECT_EQ(1U, self->st.x[0].refcount);
	ASSERT_EQ(0, pmuctl_cpu_release(&self->st, 2, &p2, 1));
	before = self->st;
	EXPECT_EQ(-EINVAL, pmuctl_cpu_release(&self->st, 2, &p2, 1));
	EXPECT_EQ(0, memcmp(&before, &self->st, sizeof(before)));
	EXPECT_EQ(0U, self->st.x[0].refcount);
}

TEST_F(arb, release_by_wrong_owner_fails_and_changes_nothing)
{
	struct pmuctl_cpu_state before;
	struct pmuctl_place p1;

	p1 = take(_metadata, self->m, variant->caps, &self->st, 1, variant->rsp0, variant->a);
	before = self->st;
	EXPECT_EQ(-EINVAL, pmuctl_cpu_release(&self->st, 2, &p1, 1));
	EXPECT_EQ(0, memcmp(&before, &self->st, sizeof(before)));
	EXPECT_EQ(-EINVAL, pmuctl_cpu_release(&self->st, 0, &p1, 1));
	EXPECT_EQ(0, memcmp(&before, &self->st, sizeof(before)));
	EXPECT_EQ(1U, self->st.x[0].refcount);
}

/* More references released than held: refused, nothing goes below zero. */
TEST_F(arb, release_never_takes_refcount_below_zero)
{
	struct pmuctl_event e[2] = { evt(variant->rsp0 | USR, variant->a), evt(0x00c4 | USR, 0) };
	struct pmuctl_cpu_state before;
	struct pmuctl_place p[2], bad[2];
	u32 reason, index;

	ASSERT_EQ(0, sched_on(self->m, variant->caps, &self->st, e, 2, p, &reason, &index));
	ASSERT_EQ(0, pmuctl_cpu_claim(&self->st, 3, p, 2));
	before = self->st;
	bad[0] = p[0];
	bad[1] = p[1];
	bad[1].xreg = p[0].xreg;	/* a second reference the owner never took */
	bad[1].extra = p[0].extra;
	EXPECT_EQ(-EINVAL, pmuctl_cpu_release(&self->st, 3, bad, 2));
	EXPECT_EQ(0, memcmp(&before, &self->st, sizeof(before)));
	/* a value the register does not hold */
	bad[0].extra ^= REQ2;
	EXPECT_EQ(-EINVAL, pmuctl_cpu_release(&self->st, 3, bad, 1));
	EXPECT_EQ(0, memcmp(&before, &self->st, sizeof(before)));
	/* a register nobody holds */
	bad[0] = p[0];
	bad[0].xreg = 1;
	EXPECT_EQ(-EINVAL, pmuctl_cpu_release(&self->st, 3, bad, 1));
	EXPECT_EQ(0, memcmp(&before, &self->st, sizeof(before)));
	ASSERT_EQ(0, pmuctl_cpu_release(&self->st, 3, p, 2));
	EXPECT_EQ(0U, self->st.x[0].refcount);
}

/*
 * A release naming a register its owner does not hold must fail and change
 * nothing ("-EINVAL when @owner does not hold what @place names"), even
 * when another session holds that register with that value.
 */
TEST_F(arb, release_refuses_register_held_only_by_another_session)
{
	struct pmuctl_cpu_state before;
	struct pmuctl_place p1, p2, forged;

	p1 = take(_metadata, self->m, variant->caps, &self->st, 1, variant->rsp0, variant->a);
	p2 = take(_metadata, self->m, variant->caps, &self->st, 2, variant->rsp0, variant->b);
	ASSERT_EQ(0, p1.xreg);
	ASSERT_EQ(1, p2.xreg);
	/* owner 2 names its own counter but owner 1's register and value */
	forged = p2;
	forged.xreg = p1.xreg;
	forged.extra = p1.extra;
	before = self->st;
	EXPECT_EQ(-EINVAL, pmuctl_cpu_release(&self->st, 2, &forged, 1)) {
		TH_LOG("owner 2 released owner 1's RSP_0 reference: RSP_0 refcount %u",
		       self->st.x[0].refcount);
		TH_LOG("RSP_0 value %#llx, RSP_1 refcount %u (never released)",
		       (unsigned long long)self->st.x[0].value, self->st.x[1].refcount);
	}
	EXPECT_EQ(0, memcmp(&before, &self->st, sizeof(before)));
}

TEST_F(arb, conflicting_claim_changes_nothing)
{
	struct pmuctl_cpu_state before;
	struct pmuctl_place p1, q[2];

	p1 = take(_metadata, self->m, variant->caps, &self->st, 1, variant->rsp0, variant->a);
	before = self->st;

	/* the counter is held */
	q[0] = (struct pmuctl_place){ .config = 0x00c4 | USR, .idx = p1.idx, .xreg = -1 };
	EXPECT_EQ(-EBUSY, pmuctl_cpu_claim(&self->st, 2, q, 1));
	EXPECT_EQ(0, memcmp(&before, &self->st, sizeof(before)));
	/* the register holds another value; the first event alone would fit */
	q[0] = (struct pmuctl_place){ .config = 0x00c4 | USR, .idx = p1.idx ^ 1, .xreg = -1 };
	q[1] = (struct pmuctl_place){ .config = variant->rsp0 | USR, .extra = variant->b,
				      .idx = PMUCTL_IDX_FIXED, .xreg = 0 };
	EXPECT_EQ(-EBUSY, pmuctl_cpu_claim(&self->st, 2, q, 2));
	EXPECT_EQ(0, memcmp(&before, &self->st, sizeof(before)));
	/* same register, two values in one claim */
	q[1].xreg = 1;
	q[0].xreg = 1;
	q[0].extra = variant->c;
	EXPECT_EQ(-EINVAL, pmuctl_cpu_claim(&self->st, 2, q, 2));
	EXPECT_EQ(0, memcmp(&before, &self->st, sizeof(before)));
	/* one counter twice */
	q[0] = (struct pmuctl_place){ .idx = 3, .xreg = -1 };
	q[1] = (struct pmuctl_place){ .idx = 3, .xreg = -1 };
	EXPECT_EQ(-EINVAL, pmuctl_cpu_claim(&self->st, 2, q, 2));
	EXPECT_EQ(0, memcmp(&before, &self->st, sizeof(before)));
	/* out-of-range counter index and register */
	q[0] = (struct pmuctl_place){ .idx = PMUCTL_IDX_ALL, .xreg = -1 };
	EXPECT_EQ(-EINVAL, pmuctl_cpu_claim(&self->st, 2, q, 1));
	q[0] = (struct pmuctl_place){ .idx = 3, .xreg = PMUCTL_XREG_MAX };
	EXPECT_EQ(-EINVAL, pmuctl_cpu_claim(&self->st, 2, q, 1));
	/* owner 0 means free */
	q[0] = (struct pmuctl_place){ .idx = 3, .xreg = -1 };
	EXPECT_EQ(-EINVAL, pmuctl_cpu_claim(&self->st, 0, q, 1));
	EXPECT_EQ(0, memcmp(&before, &self->st, sizeof(before)));
}

/* Two CPUs holding different values: nobody can share that register. */
TEST_F(arb, multi_cpu_view_blocks_sharing_different_values)
{
	struct pmuctl_cpu_state cpu0, cpu1;
	struct pmuctl_event e = evt(variant->rsp0 | USR, variant->a);
	struct pmuctl_place p;
	struct pmuctl_view v;
	u32 reason, index, i;
	u64 held = 0;

	memset(&cpu0, 0, sizeof(cpu0));
	memset(&cpu1, 0, sizeof(cpu1));
	take(_metadata, self->m, variant->caps, &cpu0, 1, variant->rsp0, variant->a);
	take(_metadata, self->m, variant->caps, &cpu1, 2, 0x00c0, 0);	/* fixed 0 on cpu1 */
	take(_metadata, self->m, variant->caps, &cpu1, 2, variant->rsp0, variant->b);

	pmuctl_view_init(&v);
	pmuctl_view_add(&v, &cpu0);
	pmuctl_view_add(&v, &cpu1);
	EXPECT_EQ(PMUCTL_XV_CONFLICT, v.xstate[0]);
	EXPECT_EQ(PMUCTL_XV_FREE, v.xstate[1]);
	/* counters held on either CPU are busy */
	for (i = 0; i < PMUCTL_IDX_MAX; i++)
		if (cpu0.owner[i] || cpu1.owner[i])
			held |= BIT(i);
	EXPECT_EQ(BIT(0) | BIT(PMUCTL_IDX_FIXED), held);
	EXPECT_EQ(held, v.busy);
	/* A is held on cpu0 but not shareable across the view: it moves */
	ASSERT_EQ(0, pmuctl_group_schedule(self->m, variant->caps, 0, &v, &e, 1, &p,
					   &reason, &index));
	EXPECT_EQ(1, p.xreg);
	EXPECT_EQ((u64)variant->rsp1, code_of(p.config));
	EXPECT_FALSE(!!(v.busy & BIT(p.idx)));
	/* the placement can be claimed on both CPUs */
	EXPECT_EQ(0, pmuctl_cpu_claim(&cpu0, 3, &p, 1));
	EXPECT_EQ(0, pmuctl_cpu_claim(&cpu1, 3, &p, 1));

	/* now RSP_1 holds A on both and C is refused everywhere */
	pmuctl_view_init(&v);
	pmuctl_view_add(&v, &cpu0);
	pmuctl_view_add(&v, &cpu1);
	EXPECT_EQ(PMUCTL_XV_HELD, v.xstate[1]);
	EXPECT_EQ(variant->a, v.xvalue[1]);
	e = evt(variant->rsp0 | USR, variant->c);
	EXPECT_EQ(-EBUSY, pmuctl_group_schedule(self->m, variant->caps, 0, &v, &e, 1, &p,
						&reason, &index));
	EXPECT_EQ((u32)PMUCTL_R_OFFCORE_BOTH_BUSY, reason);
}

TEST_F(arb, multi_cpu_view_shares_a_value_held_everywhere)
{
	struct pmuctl_cpu_state cpu0, cpu1;
	struct pmuctl_event e = evt(variant->rsp0 | USR, variant->a);
	struct pmuctl_place p;
	struct pmuctl_view v;
	u32 reason, index;

	memset(&cpu0, 0, sizeof(cpu0));
	memset(&cpu1, 0, sizeof(cpu1));
	take(_metadata, self->m, variant->caps, &cpu0, 1, variant->rsp0, variant->a);
	take(_metadata, self->m, variant->caps, &cpu1, 2, variant->rsp1, variant->a);
	/* different homes on each CPU: RSP_0 on one, RSP_1 on the other */
	EXPECT_EQ(1U, cpu0.x[0].refcount);
	EXPECT_EQ(1U, cpu1.x[1].refcount);
	memset(&cpu1, 0, sizeof(cpu1));
	take(_metadata, self->m, variant->caps, &cpu1, 2, variant->rsp0, variant->a);
	pmuctl_view_init(&v);
	pmuctl_view_add(&v, &cpu0);
	pmuctl_view_add(&v, &cpu1);
	EXPECT_EQ(PMUCTL_XV_HELD, v.xstate[0]);
	ASSERT_EQ(0, pmuctl_group_schedule(self->m, variant->caps, 0, &v, &e, 1, &p,
					   &reason, &index));
	EXPECT_EQ(0, p.xreg);	/* shares RSP_0 on both CPUs */
	EXPECT_EQ(0, pmuctl_cpu_claim(&cpu0, 3, &p, 1));
	EXPECT_EQ(0, pmuctl_cpu_claim(&cpu1, 3, &p, 1));
	EXPECT_EQ(2U, cpu0.x[0].refcount);
	EXPECT_EQ(2U, cpu1.x[0].refcount);
}

TEST_F(arb, view_ignores_unreferenced_registers)
{
	struct pmuctl_view v;

	self->st.x[0].value = variant->a;	/* stale value, refcount 0 */
	self->st.x[1].refcount = 1;
	self->st.x[1].value = variant->b;
	memset(&v, 0x77, sizeof(v));
	pmuctl_view_init(&v);
	EXPECT_EQ(0ULL, v.busy);
	EXPECT_EQ(PMUCTL_XV_FREE, v.xstate[0]);
	pmuctl_view_add(&v, &self->st);
	EXPECT_EQ(PMUCTL_XV_FREE, v.xstate[0]);
	EXPECT_EQ(PMUCTL_XV_HELD, v.xstate[1]);
	EXPECT_EQ(variant->b, v.xvalue[1]);
	/* the same CPU again: same value, still held */
	pmuctl_view_add(&v, &self->st);
	EXPECT_EQ(PMUCTL_XV_HELD, v.xstate[1]);
}

/* ---- KNL/KNM only: values that fit one register, latency pairs ---- */

FIXTURE(knx) {
	const struct pmuctl_model *m;
	struct pmuctl_cpu_state st;
};

FIXTURE_VARIANT(knx) {
	u32 id;
	const struct pmuctl_caps *caps;
};

FIXTURE_VARIANT_ADD(knx, knl) { .id = PMUCTL_MODEL_KNL, .caps = &caps_knl2 };
FIXTURE_VARIANT_ADD(knx, knm) { .id = PMUCTL_MODEL_KNM, .caps = &caps_knm4 };

FIXTURE_SETUP(knx)
{
	self->m = pmuctl_model_by_id(variant->id);
	memset(&self->st, 0, sizeof(self->st));
}

FIXTURE_TEARDOWN(knx)
{
}

TEST_F(knx, reports_rsp0_busy_when_value_fits_only_rsp0)
{
	struct pmuctl_event e = evt(0x01b7 | USR, OUT2);
	struct pmuctl_place p;
	u32 reason, index;

	take(_metadata, self->m, variant->caps, &self->st, 1, 0x01b7, A_VAL);
	EXPECT_EQ(-EBUSY, sched_on(self->m, variant->caps, &self->st, &e, 1, &p,
				   &reason, &index));
	EXPECT_EQ((u32)PMUCTL_R_OFFCORE_RSP0_BUSY, reason);
	EXPECT_EQ(0U, index);
}

TEST_F(knx, reports_rsp1_busy_when_value_fits_only_rsp1)
{
	struct pmuctl_event e = evt(0x02b7 | USR, C1_VAL);
	struct pmuctl_place p;
	u32 reason, index;

	take(_metadata, self->m, variant->caps, &self->st, 1, 0x02b7, A_VAL);
	EXPECT_EQ(-EBUSY, sched_on(self->m, variant->caps, &self->st, &e, 1, &p,
				   &reason, &index));
	EXPECT_EQ((u32)PMUCTL_R_OFFCORE_RSP1_BUSY, reason);
	/* with RSP_1 free it takes RSP_1, wherever RSP_0 stands */
	memset(&self->st, 0, sizeof(self->st));
	take(_metadata, self->m, variant->caps, &self->st, 1, 0x01b7, A_VAL);
	ASSERT_EQ(0, sched_on(self->m, variant->caps, &self->st, &e, 1, &p, &reason, &index));
	EXPECT_EQ(1, p.xreg);
}

TEST_F(knx, moves_only_values_that_fit_the_other_register)
{
	struct pmuctl_event e = evt(0x01b7 | USR, OUT_VAL);
	struct pmuctl_place p;
	u32 reason, index;

	/* RSP_1 free but OUTSTANDING does not exist there */
	take(_metadata, self->m, variant->caps, &self->st, 1, 0x01b7, A_VAL);
	EXPECT_EQ(-EBUSY, sched_on(self->m, variant->caps, &self->st, &e, 1, &p,
				   &reason, &index));
	EXPECT_EQ((u32)PMUCTL_R_OFFCORE_RSP0_BUSY, reason);
}

TEST_F(knx, accepts_latency_pair)
{
	struct pmuctl_event e[2] = {
		evt(0x01b7 | USR, REQ0 | REQ1 | OUTST), evt(0x02b7 | USR, REQ0 | REQ1 | ANYRSP),
	};
	struct pmuctl_place p[2];
	u32 reason, index;

	ASSERT_EQ(0, sched_on(self->m, variant->caps, NULL, e, 2, p, &reason, &index));
	EXPECT_EQ(0, p[0].xreg);
	EXPECT_EQ(1, p[1].xreg);
	EXPECT_GT(PMUCTL_IDX_FIXED, p[0].idx);
	EXPECT_GT(PMUCTL_IDX_FIXED, p[1].idx);
	EXPECT_NE(p[0].idx, p[1].idx);
	ASSERT_EQ(0, pmuctl_cpu_claim(&self->st, 1, p, 2));
	EXPECT_EQ(REQ0 | REQ1 | OUTST, self->st.x[0].value);
	EXPECT_EQ(REQ0 | REQ1 | ANYRSP, self->st.x[1].value);
}

/*
 * An OFFCORE_RESPONSE_0 event that arbitration moves to RSP_1 next to
 * OUTSTANDING programs the same MSR as one given as OFFCORE_RESPONSE_1: it
 * is the latency partner and is checked as one.
 */
TEST_F(knx, moved_rsp0_event_is_a_latency_partner)
{
	struct pmuctl_event e[2] = {
		evt(0x01b7 | USR, REQ1 | DDRNEAR), evt(0x01b7 | USR, REQ0 | OUTST),
	};
	struct pmuctl_place p[2];
	u32 reason, index;

	EXPECT_EQ(-EINVAL, sched_on(self->m, variant->caps, NULL, e, 2, p, &reason, &index));
	EXPECT_EQ((u32)PMUCTL_R_LATENCY_REQUEST_MISMATCH, reason);
	EXPECT_EQ(0U, index);
	/* the same requests, without ANY_RESPONSE */
	e[0] = evt(0x01b7 | USR, REQ0 | DDRNEAR);
	EXPECT_EQ(-EINVAL, sched_on(self->m, variant->caps, NULL, e, 2, p, &reason, &index));
	EXPECT_EQ((u32)PMUCTL_R_LATENCY_NO_ANY_RESPONSE, reason);
	EXPECT_EQ(0U, index);
}

/*
 * Issue 10's pair: r301b7:4000000001 with r302b7:80800002 (RSP_1 spelled)
 * or r301b7:80800002 (moved to RSP_1) program the same two MSRs with the
 * same values, so they get the same verdict: a request mismatch (DMND_RFO
 * against DMND_DATA_RD).  With DMND_DATA_RD and ANY_RESPONSE, both
 * spellings are the valid pair, placed alike.
 */
TEST_F(knx, latency_pair_verdict_does_not_depend_on_spelling)
{
	static const u16 second[] = { 0x02b7, 0x01b7 };
	struct pmuctl_place p[2], first_p[2];
	u32 reason, index, k;

	for (k = 0; k < PMUCTL_NELEM(second); k++) {
		struct pmuctl_event e[2] = {
			evt(0x01b7 | USR | OS, 0x4000000001ULL),
			evt(second[k] | USR | OS, 0x80800002ULL),
		};

		EXPECT_EQ(-EINVAL, sched_on(self->m, variant->caps, NULL, e, 2, p,
					    &reason, &index)) TH_LOG("code %#x", second[k]);
		EXPECT_EQ((u32)PMUCTL_R_LATENCY_REQUEST_MISMATCH, reason)
			TH_LOG("code %#x", second[k]);
		EXPECT_EQ(1U, index) TH_LOG("code %#x", second[k]);

		e[1] = evt(second[k] | USR | OS, REQ0 | ANYRSP);
		ASSERT_EQ(0, sched_on(self->m, variant->caps, NULL, e, 2, p, &reason, &index)) {
			TH_LOG("code %#x: reason %u index %u", second[k], reason, index);
		}
		EXPECT_EQ(0, p[0].xreg);
		EXPECT_EQ(1, p[1].xreg);
		EXPECT_EQ(0x02b7ULL, code_of(p[1].config)) TH_LOG("code %#x", second[k]);
		if (!k)
			memcpy(first_p, p, sizeof(p));
		else
			EXPECT_EQ(0, memcmp(first_p, p, sizeof(p)));
	}
}

TEST_F(knx, rejects_latency_request_mismatch)
{
	struct pmuctl_event e[3] = {
		evt(0x00c4 | USR, 0), evt(0x01b7 | USR, REQ0 | OUTST),
		evt(0x02b7 | USR, REQ1 | ANYRSP),
	};
	struct pmuctl_place p[3];
	u32 reason, index;

	EXPECT_EQ(-EINVAL, sched_on(self->m, variant->caps, NULL, e, 3, p, &reason, &index));
	EXPECT_EQ((u32)PMUCTL_R_LATENCY_REQUEST_MISMATCH, reason);
	EXPECT_EQ(2U, index);
	/* a superset of the requests is a mismatch too */
	e[2] = evt(0x02b7 | USR, REQ0 | REQ1 | ANYRSP);
	EXPECT_EQ(-EINVAL, sched_on(self->m, variant->caps, NULL, e, 3, p, &reason, &index));
	EXPECT_EQ((u32)PMUCTL_R_LATENCY_REQUEST_MISMATCH, reason);
}

TEST_F(knx, rejects_latency_partner_without_any_response)
{
	struct pmuctl_event e[2] = {
		evt(0x02b7 | USR, REQ0 | DDRNEAR), evt(0x01b7 | USR, REQ0 | OUTST),
	};
	struct pmuctl_place p[2];
	u32 reason, index;

	EXPECT_EQ(-EINVAL, sched_on(self->m, variant->caps, NULL, e, 2, p, &reason, &index));
	EXPECT_EQ((u32)PMUCTL_R_LATENCY_NO_ANY_RESPONSE, reason);
	EXPECT_EQ(0U, index);
}

/* Without OUTSTANDING in the group, RSP_1 is unconstrained. */
TEST_F(knx, checks_latency_only_with_outstanding_in_group)
{
	struct pmuctl_event e[2] = {
		evt(0x01b7 | USR, REQ0 | ANYRSP), evt(0x02b7 | USR, REQ1 | DDRNEAR),
	};
	struct pmuctl_place p[2];
	u32 reason, index;

	EXPECT_EQ(0, sched_on(self->m, variant->caps, NULL, e, 2, p, &reason, &index));
	/* OUTSTANDING held by another session does not constrain this group */
	take(_metadata, self->m, variant->caps, &self->st, 1, 0x01b7, REQ0 | OUTST);
	e[0] = evt(0x02b7 | USR, REQ1 | DDRNEAR);
	EXPECT_EQ(0, sched_on(self->m, variant->caps, &self->st, e, 1, p, &reason, &index));
	EXPECT_EQ(1, p[0].xreg);
}

/*
 * OUTSTANDING is an OFFCORE_RSP_0 rule, not a PMC0 constraint (Intel's KNL
 * list: counters "0,1"): with PMC0 taken it counts on another counter.
 */
TEST_F(knx, outstanding_takes_any_free_generic_counter)
{
	struct pmuctl_event e = evt(0x01b7 | USR, REQ0 | OUTST);
	struct pmuctl_place p;
	u32 reason, index;

	take(_metadata, self->m, variant->caps, &self->st, 1, 0x00c4, 0);
	ASSERT_EQ(1U, self->st.owner[0]);	/* the first generic counter */
	ASSERT_EQ(0, sched_on(self->m, variant->caps, &self->st, &e, 1, &p,
			      &reason, &index)) TH_LOG("reason %u", reason);
	EXPECT_EQ(1, p.idx);
	EXPECT_EQ(0, p.xreg);
}

/* Two events sharing one OUTSTANDING value share RSP_0 and get two counters. */
TEST_F(knx, two_events_sharing_one_outstanding_value_schedule_together)
{
	struct pmuctl_event e[3] = {
		evt(0x01b7 | USR, REQ0 | OUTST), evt(0x01b7 | OS, REQ0 | OUTST),
		evt(0x02b7 | USR, REQ0 | ANYRSP),
	};
	struct pmuctl_place p[3];
	u32 reason, index;

	ASSERT_EQ(0, sched_on(self->m, variant->caps, NULL, e, 2, p, &reason, &index)) {
		TH_LOG("reason %u index %u", reason, index);
	}
	EXPECT_EQ(0, p[0].xreg);
	EXPECT_EQ(0, p[1].xreg);
	EXPECT_NE(p[0].idx, p[1].idx);
	ASSERT_EQ(0, pmuctl_cpu_claim(&self->st, 1, p, 2));
	EXPECT_EQ(2U, self->st.x[0].refcount);
	EXPECT_EQ(REQ0 | OUTST, self->st.x[0].value);
	ASSERT_EQ(0, pmuctl_cpu_release(&self->st, 1, p, 2));
	/* with the latency partner: three generic counters where there are */
	if (variant->caps->nr_gp >= 3) {
		ASSERT_EQ(0, sched_on(self->m, variant->caps, NULL, e, 3, p, &reason,
				      &index)) TH_LOG("reason %u index %u", reason, index);
		EXPECT_EQ(1, p[2].xreg);
	}
}

/* ---- Skylake's own registers ---- */

TEST(skl_reports_frontend_busy_and_shares_frontend)
{
	const struct pmuctl_model *m = pmuctl_model_by_name("skl");
	struct pmuctl_cpu_state st;
	struct pmuctl_event e = evt(0x01c6 | USR, 0x12);
	struct pmuctl_place p;
	u32 reason, index;

	memset(&st, 0, sizeof(st));
	take(_metadata, m, &caps_skl4, &st, 1, 0x01c6, 0x11);
	EXPECT_EQ(0x11ULL, st.x[2].value);
	EXPECT_EQ(-EBUSY, sched_on(m, &caps_skl4, &st, &e, 1, &p, &reason, &index));
	EXPECT_EQ((u32)PMUCTL_R_FRONTEND_BUSY, reason);
	e.extra = 0x11;
	ASSERT_EQ(0, sched_on(m, &caps_skl4, &st, &e, 1, &p, &reason, &index));
	EXPECT_EQ(2, p.xreg);
	EXPECT_GT(4, p.idx);	/* PMC0-3 */
}

TEST(skl_reports_ldlat_busy_and_shares_ldlat)
{
	const struct pmuctl_model *m = pmuctl_model_by_name("skl");
	struct pmuctl_cpu_state st;
	struct pmuctl_event e = evt(0x01cd | USR, 4);
	struct pmuctl_place p;
	u32 reason, index;

	memset(&st, 0, sizeof(st));
	take(_metadata, m, &caps_skl4, &st, 1, 0x01cd, 3);
	EXPECT_EQ(-EBUSY, sched_on(m, &caps_skl4, &st, &e, 1, &p, &reason, &index));
	EXPECT_EQ((u32)PMUCTL_R_LDLAT_BUSY, reason);
	e.extra = 3;
	ASSERT_EQ(0, sched_on(m, &caps_skl4, &st, &e, 1, &p, &reason, &index));
	EXPECT_EQ(3, p.xreg);
	EXPECT_EQ(1U, st.x[3].refcount);	/* scheduling claims nothing */
}

/* ---- group-level rules ---- */

TEST(rejects_more_than_max_events)
{
	const struct pmuctl_model *m = pmuctl_model_by_name("skl");
	struct pmuctl_event e[PMUCTL_MAX_EVENTS + 1];
	struct pmuctl_place p[PMUCTL_MAX_EVENTS + 1];
	u32 i, reason, index;

	for (i = 0; i < PMUCTL_MAX_EVENTS + 1; i++)
		e[i] = evt(0x00c4 | USR, 0);
	EXPECT_EQ(-E2BIG, sched_on(m, &caps_skl4, NULL, e, PMUCTL_MAX_EVENTS + 1, p,
				   &reason, &index));
	EXPECT_EQ((u32)PMUCTL_R_TOO_MANY_EVENTS, reason);
	EXPECT_EQ((u32)PMUCTL_MAX_EVENTS, index);
	/* even with an invalid event in it: the size is checked first */
	e[0] = evt(0x00c4 | USR | EN, 0);
	EXPECT_EQ(-E2BIG, sched_on(m, &caps_skl4, NULL, e, ~0U, p, &reason, &index));
	EXPECT_EQ((u32)PMUCTL_R_TOO_MANY_EVENTS, reason);
	/* PMUCTL_MAX_EVENTS itself is not too many (just too many for 4 counters) */
	e[0] = evt(0x00c4 | USR, 0);
	EXPECT_EQ(-EBUSY, sched_on(m, &caps_skl4, NULL, e, PMUCTL_MAX_EVENTS, p,
				   &reason, &index));
	EXPECT_EQ((u32)PMUCTL_R_COUNTERS_BUSY, reason);
	EXPECT_EQ(4U, index);
}

TEST(accepts_empty_group)
{
	const struct pmuctl_model *m = pmuctl_model_by_name("knm");
	u32 reason, index;

	EXPECT_EQ(0, sched_on(m, &caps_knm2, NULL, NULL, 0, NULL, &reason, &index));
	EXPECT_EQ((u32)PMUCTL_R_NONE, reason);
}

TEST(reports_invalid_event_with_its_index)
{
	const struct pmuctl_model *m = pmuctl_model_by_name("knm");
	struct pmuctl_event e[3] = {
		evt(0x00c0 | USR, 0), evt(0x003c | USR, 0), evt(0x00c4 | USR | EN, 0),
	};
	struct pmuctl_place p[3];
	u32 reason, index;

	EXPECT_EQ(-EINVAL, sched_on(m, &caps_knm2, NULL, e, 3, p, &reason, &index));
	EXPECT_EQ((u32)PMUCTL_R_KERNEL_BITS, reason);
	EXPECT_EQ(2U, index);
	e[2] = evt(0x00c4 | USR, 0);
	e[1].counter = 1;
	EXPECT_EQ(-EINVAL, sched_on(m, &caps_knm2, NULL, e, 3, p, &reason, &index));
	EXPECT_EQ((u32)PMUCTL_R_OUTPUT_NOT_ZERO, reason);
	EXPECT_EQ(1U, index);
	e[1].counter = 0;
	e[0].reserved[1] = 1;
	EXPECT_EQ(-EINVAL, sched_on(m, &caps_knm2, NULL, e, 3, p, &reason, &index));
	EXPECT_EQ((u32)PMUCTL_R_RESERVED_FIELD, reason);
	EXPECT_EQ(0U, index);
	e[0].reserved[1] = 0;
	e[1].flags = 1U << 5;
	EXPECT_EQ(-EINVAL, sched_on(m, &caps_knm2, NULL, e, 3, p, &reason, &index));
	EXPECT_EQ((u32)PMUCTL_R_BAD_FLAGS, reason);
	EXPECT_EQ(1U, index);
	e[1].flags = 0;
	e[1].extra = 5;
	EXPECT_EQ(-EINVAL, sched_on(m, &caps_knm2, NULL, e, 3, p, &reason, &index));
	EXPECT_EQ((u32)PMUCTL_R_EXTRA_UNEXPECTED, reason);
	EXPECT_EQ(1U, index);
}

TEST(names_first_event_without_a_counter)
{
	const struct pmuctl_model *m = pmuctl_model_by_name("knm");
	struct pmuctl_event e[4] = {
		evt(0x00c4 | USR, 0), evt(0x00c0 | USR, 0), evt(0x00c5 | USR, 0),
		evt(0x412e | USR, 0),
	};
	struct pmuctl_place p[4];
	u32 reason, index;

	/* 2 generic counters; 0x00c0 goes to fixed counter 0 */
	EXPECT_EQ(-EBUSY, sched_on(m, &caps_knm2, NULL, e, 4, p, &reason, &index));
	EXPECT_EQ((u32)PMUCTL_R_COUNTERS_BUSY, reason);
	EXPECT_EQ(3U, index);
	ASSERT_EQ(0, sched_on(m, &caps_knm2, NULL, e, 3, p, &reason, &index));
	EXPECT_EQ(PMUCTL_IDX_FIXED + 0, p[1].idx);
}

/* Fixed counters are used first, keeping generic counters free. */
TEST(prefers_fixed_counters)
{
	const struct pmuctl_model *m = pmuctl_model_by_name("skl");
	struct pmuctl_event e[3] = {
		evt(0x00c0 | USR, 0), evt(0x003c | USR, 0), evt(0x00c0 | USR, 0),
	};
	struct pmuctl_place p[3];
	u32 reason, index;

	ASSERT_EQ(0, sched_on(m, &caps_skl4, NULL, e, 3, p, &reason, &index));
	EXPECT_EQ(PMUCTL_IDX_FIXED + 0, p[0].idx);
	EXPECT_EQ(PMUCTL_IDX_FIXED + 1, p[1].idx);
	EXPECT_GT(4, p[2].idx);
	EXPECT_EQ(PMUCTL_COUNTER_FIXED | 1, pmuctl_idx_to_counter(p[1].idx));
	EXPECT_EQ((u32)p[2].idx, pmuctl_idx_to_counter(p[2].idx));
}

/*
 * Topdown metrics (PERF_METRICS, Linux 6.12's metric events 0x8000 +
 * 0x100 * i): each needs TOPDOWN.SLOTS 0x0400 in its group at the same
 * levels, anywhere in it; a metric is a byte of PERF_METRICS, held with
 * fixed counter 3 by one session; task scope (POLICY_NO_METRICS) has none.
 */
TEST(metrics_ride_on_slots)
{
	const struct pmuctl_model *m = pmuctl_model_by_name("spr");
	struct pmuctl_caps caps = caps_spr8;
	struct pmuctl_event e[4] = {
		evt(0x8000 | USR, 0), evt(0x0400 | USR, 0), evt(0x8700 | USR, 0),
		evt(0x00c4 | USR, 0),
	};
	struct pmuctl_cpu_state st;
	struct pmuctl_place p[4];
	struct pmuctl_view v;
	u32 reason, index;

	/* no PERF_CAPABILITIES[15]: no metric */
	EXPECT_EQ(-EINVAL, sched_on(m, &caps, NULL, e, 3, p, &reason, &index));
	EXPECT_EQ((u32)PMUCTL_R_METRICS_UNAVAILABLE, reason);
	EXPECT_EQ(0U, index);
	caps.flags |= PMUCTL_CAP_PERF_METRICS;
	ASSERT_EQ(0, sched_on(m, &caps, NULL, e, 4, p, &reason, &index));
	EXPECT_EQ(PMUCTL_IDX_METRIC + 0, p[0].idx);
	EXPECT_EQ(PMUCTL_IDX_FIXED + 3, p[1].idx);
	EXPECT_EQ(PMUCTL_IDX_METRIC + 7, p[2].idx);
	EXPECT_GT(PMUCTL_IDX_FIXED, p[3].idx);
	EXPECT_EQ(PMUCTL_COUNTER_METRICS, pmuctl_idx_to_counter(p[0].idx));
	EXPECT_EQ(PMUCTL_COUNTER_METRICS, pmuctl_idx_to_counter(p[2].idx));
	/* without the slots event, or at other levels: refused, naming the metric */
	EXPECT_EQ(-EINVAL, sched_on(m, &caps, NULL, &e[2], 2, p, &reason, &index));
	EXPECT_EQ((u32)PMUCTL_R_METRICS_NEED_SLOTS, reason);
	EXPECT_EQ(0U, index);
	e[1].config |= OS;
	EXPECT_EQ(-EINVAL, sched_on(m, &caps, NULL, e, 4, p, &reason, &index));
	EXPECT_EQ((u32)PMUCTL_R_METRICS_NEED_SLOTS, reason);
	EXPECT_EQ(0U, index);
	e[0].config |= OS;
	e[2].config |= OS;
	ASSERT_EQ(0, sched_on(m, &caps, NULL, e, 3, p, &reason, &index));
	/* SLOTS_P 0x01a4 on a generic counter divides nothing */
	e[1].config = 0x01a4 | USR | OS;
	EXPECT_EQ(-EINVAL, sched_on(m, &caps, NULL, e, 3, p, &reason, &index));
	EXPECT_EQ((u32)PMUCTL_R_METRICS_NEED_SLOTS, reason);
	e[1].config = 0x0400 | USR | OS;
	/* one metric twice: one byte, one event */
	e[2].config = 0x8000 | USR | OS;
	EXPECT_EQ(-EBUSY, sched_on(m, &caps, NULL, e, 3, p, &reason, &index));
	EXPECT_EQ((u32)PMUCTL_R_COUNTERS_BUSY, reason);
	EXPECT_EQ(2U, index);
	e[2].config = 0x8700 | USR | OS;
	/* held by a session: slots and the metrics with it */
	ASSERT_EQ(0, sched_on(m, &caps, NULL, e, 3, p, &reason, &index));
	memset(&st, 0, sizeof(st));
	ASSERT_EQ(0, pmuctl_cpu_claim(&st, 1, p, 3));
	EXPECT_EQ(BIT(PMUCTL_IDX_FIXED + 3) | BIT(PMUCTL_IDX_METRIC) |
		  BIT(PMUCTL_IDX_METRIC + 7), pmuctl_cpu_held(&st));
	EXPECT_EQ(-EBUSY, sched_on(m, &caps, &st, e, 3, p, &reason, &index));
	EXPECT_EQ((u32)PMUCTL_R_COUNTERS_BUSY, reason);
	ASSERT_EQ(0, sched_on(m, &caps, NULL, e, 3, p, &reason, &index));
	EXPECT_EQ(0, pmuctl_cpu_release(&st, 1, p, 3));
	EXPECT_EQ(0ULL, pmuctl_cpu_held(&st));
	/* task scope: no metric */
	pmuctl_view_init(&v);
	EXPECT_EQ(-EINVAL, pmuctl_group_schedule(m, &caps, PMUCTL_POLICY_NO_METRICS,
						 &v, e, 3, p, &reason, &index));
	EXPECT_EQ((u32)PMUCTL_R_METRICS_UNAVAILABLE, reason);
	EXPECT_EQ(0U, index);
	/* Ice Lake has 4 metrics: 0x8700 is not one */
	m = pmuctl_model_by_name("icx");
	EXPECT_EQ(-EINVAL, sched_on(m, &caps, NULL, e, 3, p, &reason, &index));
	EXPECT_EQ((u32)PMUCTL_R_METRICS_UNAVAILABLE, reason);
	EXPECT_EQ(2U, index);
	e[2].config = 0x8300 | USR | OS;
	ASSERT_EQ(0, sched_on(m, &caps, NULL, e, 3, p, &reason, &index));
	EXPECT_EQ(PMUCTL_IDX_METRIC + 3, p[2].idx);
}

TEST_HARNESS_MAIN
