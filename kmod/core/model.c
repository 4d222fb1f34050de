// SPDX-License-Identifier: GPL-2.0
/*
 * Per-model PMU data: only what CPUID cannot tell.  Adding an Intel model
 * means adding a table here and its test vectors, nothing else.
 *
 * Sources:
 *  [LNX]  Linux 6.1 and 6.12 arch/x86/events/intel/core.c
 *         (intel_*_event_constraints, intel_*_extra_regs, intel_pmu_init,
 *         intel_pmu_enable_fixed); the KNL, SKL and ICL tables are the same
 *         in both.  Golden Cove's follow 6.12, which added REF_TSC_P on
 *         fixed counter 2 and the 0x40ad/0x04c2 FRONTEND selectors to
 *         6.1's intel_spr_*; Granite Rapids is 6.12's only
 *  [PFM]  libpfm4 4.13 intel_knl_events.h / intel_skl_events.h /
 *         intel_icl_events.h / intel_spr_events.h and libpfm_intel_knm(3)
 *  [INT]  Intel's event lists, github.com/intel/perfmon:
 *         KNL/events/knightslanding_core.json (V16) and
 *         knightslanding_matrix.json; SKL/events/skylake_core.json (V59);
 *         SKX/events/skylakex_core.json (V1.37); ICL, ICX, SPR and GNR
 *         as named at their tables
 *  [SDM]  Intel SDM vol. 3B ch. 20 and vol. 4 (MSR addresses)
 */
#include "core.h"

#define MSR_OFFCORE_RSP_0	0x1a6
#define MSR_OFFCORE_RSP_1	0x1a7
#define MSR_PEBS_LD_LAT		0x3f6
#define MSR_PEBS_FRONTEND	0x3f7

/*
 * An extra MSR by kind, as Linux's INTEL_UEVENT_EXTRA_REG: the event that
 * selects it and its valid bits.  A model lists RSP_0 first and RSP_1
 * second, each the other's alternative (intel_fixup_er()).
 */
#define XREG(_code, _msr, _valid, _kind, _alt)				\
	{ .code = _code, .msr = _msr, .valid = _valid, .kind = _kind, .alt = _alt }
#define XREG_RSP0(_code, _valid)					\
	XREG(_code, MSR_OFFCORE_RSP_0, _valid, PMUCTL_XK_RSP0, 1)
#define XREG_RSP1(_code, _valid)					\
	XREG(_code, MSR_OFFCORE_RSP_1, _valid, PMUCTL_XK_RSP1, 0)
#define XREG_FE(_code, _valid)						\
	XREG(_code, MSR_PEBS_FRONTEND, _valid, PMUCTL_XK_FRONTEND, -1)
#define XREG_LDLAT(_code, _valid)					\
	XREG(_code, MSR_PEBS_LD_LAT, _valid, PMUCTL_XK_LDLAT, -1)

/* Linux's INTEL_EVENT_CONSTRAINT, _UEVENT_ and _EVENT_CONSTRAINT_RANGE. */
#define EVENT_CONS(_ev, _gp)	{ .code = _ev, .match = 0x00ff, .gp = _gp }
#define UEVENT_CONS(_code, _gp)	{ .code = _code, .match = 0xffff, .gp = _gp }
#define RANGE_CONS(_first, _last, _gp)	\
	{ .code = _first, .match = 0x00ff, .gp = _gp, .last = _last }

/*
 * Knights Landing and Knights Mill share one core PMU [LNX: one case in
 * intel_pmu_init; PFM: one event table].
 *
 * Generic-counter constraints: none beyond the fixed-counter events, which
 * the core handles for every model [LNX: intel_slm_event_constraints].
 *
 * Offcore [LNX: intel_knl_extra_regs]: RSP_0 is event 0xb7 umask 0x01,
 * RSP_1 event 0xb7 umask 0x02.  Only RSP_0 has bit 38 (OUTSTANDING); only
 * RSP_1 has bits 8, 11, 14 (PARTIAL_WRITES, FULL_STREAMING_STORES,
 * PARTIAL_STREAMING_STORES).
 *
 * Policy, disputed request bits: Linux's valid masks and libpfm4 leave
 * out bits 3, 4, 33 and 34.  Of these, Intel's KNL core event list [INT]
 * uses only bit 4, in its ANY_DATA_RD 0x3091, ANY_READ 0x32f7 and ANY_PF_L2
 * 0x70 compositions, while Intel's own offcore matrix of the same release
 * composes them without it (0x3081, 0x32e7, 0x60); bit 3 appears only in
 * one malformed value (ANY_REQUEST.L2_MISS 0x18001981f8, ANY_REQUEST with
 * the L2_MISS response unshifted) and bits 33 and 34 nowhere.  pmuctl
 * keeps Linux's masks unchanged: a value with any of them is refused with
 * PMUCTL_R_EXTRA_MASK, so pmuctl never writes a bit the kernel's own
 * driver would refuse on the same hardware; the matrix's compositions are
 * the ones to use.
 */
static const struct pmuctl_xreg knl_xregs[] = {
	XREG_RSP0(0x01b7, 0x799ffbb6e7ULL),	/* OFFCORE_RESPONSE_0 */
	XREG_RSP1(0x02b7, 0x399ffbffe7ULL),	/* OFFCORE_RESPONSE_1 */
};

/*
 * KNL/KNM offcore fields [PFM: intel_knl_events.h; INT: the matrix]:
 * request bits 0..15 (the valid masks leave out 3 and 4), ANY_RESPONSE bit
 * 16, supplier and snoop bits 17..37, OUTSTANDING bit 38.  DDR_FAR is bits
 * 24|32 (the matrix's 0x010100 << 16, and every *.DDR_FAR value of the core
 * list, e.g. 0x0101000001); libpfm4 4.13's table says 31|24, which is
 * wrong (its DDR_NEAR is 31|23).  The core checks fields, not names, so
 * both values pass; 24|32 is the one that counts far DDR.
 *
 * OUTSTANDING is a register rule, not a counter constraint: only RSP_0 has
 * the bit (Linux's masks; the matrix gives it register "0"), so it is
 * refused on RSP_1 (PMUCTL_R_OUTSTANDING_ON_RSP1) and never moved there.
 * Intel's list gives counters "0,1" for every *.OUTSTANDING event; the
 * "programmed on PMC0" wording in Intel's and libpfm4's descriptions names
 * the OFFCORE_RSP_0 register, as the RSP_1-only request bits say "PMC1".
 * Any generic counter may count it, so two events sharing one OUTSTANDING
 * value can be scheduled together.
 *
 * AnyThread: on fixed counters only (libpfm_intel_knm(3) gives the t
 * modifier to the fixed-counter events only), all three of them.  The man
 * page's "may be ignored or rejected" is about unhalted_reference_cycles
 * programmed on a generic counter; libpfm4 gives t to it (4.13 encodes
 * knm::unhalted_reference_cycles:t as 0x710300), and Linux sets the
 * AnyThread bit of any fixed counter from perfmon v3
 * [LNX: intel_pmu_enable_fixed].
 *
 * Edge detect: Intel's list encodes PAGE_WALKS.D_SIDE_WALKS (0x0105),
 * I_SIDE_WALKS (0x0205) and WALKS (0x0305) as EdgeDetect 1 with
 * CounterMask 0, which pmuctl refuses for every event
 * (PMUCTL_R_EDGE_NO_CMASK: the SDM defines edge detection on the CMASK
 * comparison).  The equivalent encoding is e with c=1, which counts the
 * starts of page walks; libpfm4 encodes PAGE_WALKS:D_SIDE_WALKS so
 * (0x1550105 with EN and INT).
 */
#define KNL_MODEL(_name, _id) {						\
	.name = _name, .id = _id,					\
	.any_gp = false, .any_fixed = 0x7,				\
	.xregs = knl_xregs, .nr_xregs = PMUCTL_NELEM(knl_xregs),	\
	.ofc_request = 0xffffULL,					\
	.ofc_response = 0x3ffffe0000ULL,				\
	.ofc_any_response = 1ULL << 16,					\
	.ofc_outstanding = 1ULL << 38,					\
}

static const struct pmuctl_model model_knl = KNL_MODEL("knl", PMUCTL_MODEL_KNL);
static const struct pmuctl_model model_knm = KNL_MODEL("knm", PMUCTL_MODEL_KNM);

/*
 * Skylake generic-counter constraints.  The first six entries are Linux's
 * intel_skl_event_constraints, unchanged from 6.1 to 6.12 (its comment:
 * "when HT is off, these can only run on the bottom 4 counters").  With
 * HT on the PMU has 4 generic counters and the 0xf constraints change
 * nothing.
 *
 * Intel's lists [INT] restrict more events to counters 0-3 with HT off
 * (CounterHTOff "0,1,2,3" where others have 0-7), which Linux leaves out;
 * pmuctl adds them, each matched as Intel lists it: every umask of
 * OFFCORE_RESPONSE 0xb7/0xbb (Skylake's RSP_0 and RSP_1 events) and of
 * MEM_LOAD_L3_MISS_RETIRED 0xd3, one umask of the others (their other
 * umasks run on 0-7).  0xd3 is in SKX's list only; the client parts have
 * no event 0xd3, so constraining it there changes nothing that counts.
 */
static const struct pmuctl_constraint skl_cons[] = {
	UEVENT_CONS(0x01c0, 0x2),	/* INST_RETIRED.PREC_DIST */
	/* when HT is off, these can only run on the bottom 4 counters [LNX] */
	EVENT_CONS(0xd0, 0xf),		/* MEM_INST_RETIRED.* */
	EVENT_CONS(0xd1, 0xf),		/* MEM_LOAD_RETIRED.* */
	EVENT_CONS(0xd2, 0xf),		/* MEM_LOAD_L3_HIT_RETIRED.* */
	EVENT_CONS(0xcd, 0xf),		/* MEM_TRANS_RETIRED.* */
	EVENT_CONS(0xc6, 0xf),		/* FRONTEND_RETIRED.* */
	/* ... and these too [INT], not in Linux's table */
	EVENT_CONS(0xb7, 0xf),		/* OFFCORE_RESPONSE (RSP_0) */
	EVENT_CONS(0xbb, 0xf),		/* OFFCORE_RESPONSE (RSP_1) */
	UEVENT_CONS(0x04c4, 0xf),	/* BR_INST_RETIRED.ALL_BRANCHES_PEBS */
	UEVENT_CONS(0x04c5, 0xf),	/* BR_MISP_RETIRED.ALL_BRANCHES_PEBS */
	UEVENT_CONS(0x04d4, 0xf),	/* MEM_LOAD_MISC_RETIRED.UC */
	UEVENT_CONS(0x14a3, 0xf),	/* CYCLE_ACTIVITY.STALLS_MEM_ANY */
	EVENT_CONS(0xd3, 0xf),		/* MEM_LOAD_L3_MISS_RETIRED.* (SKX) */
};

/*
 * Skylake extra registers [LNX: intel_skl_extra_regs]: RSP_0 is 0x01b7,
 * RSP_1 is 0x01bb, both with valid mask 0x3fffff8fff; FRONTEND_RETIRED
 * 0x01c6 selects MSR_PEBS_FRONTEND (mask 0x7fff17, the #GPing bits of its
 * low byte left out); MEM_TRANS_RETIRED.LOAD_LATENCY 0x01cd selects
 * MSR_PEBS_LD_LAT_THRESHOLD (mask 0xffff).
 */
static const struct pmuctl_xreg skl_xregs[] = {
	XREG_RSP0(0x01b7, 0x3fffff8fffULL),	/* OFFCORE_RESPONSE_0 */
	XREG_RSP1(0x01bb, 0x3fffff8fffULL),	/* OFFCORE_RESPONSE_1 */
	XREG_FE(0x01c6, 0x7fff17ULL),		/* FRONTEND_RETIRED */
	XREG_LDLAT(0x01cd, 0xffffULL),		/* MEM_TRANS_RETIRED.LOAD_LATENCY */
};

/*
 * Skylake offcore fields [PFM: intel_skl_events.h]: request bits 0..15,
 * ANY_RESPONSE bit 16, supplier and snoop bits 17..37, no OUTSTANDING.
 * AnyThread: v4, any counter [SDM].
 */
static const struct pmuctl_model model_skl = {
	.name = "skl", .id = PMUCTL_MODEL_SKL,
	.any_gp = true, .any_fixed = 0x7,
	.cons = skl_cons, .nr_cons = PMUCTL_NELEM(skl_cons),
	.xregs = skl_xregs, .nr_xregs = PMUCTL_NELEM(skl_xregs),
	.ofc_request = 0xffffULL,
	.ofc_response = 0x3ffffe0000ULL,
	.ofc_any_response = 1ULL << 16,
};

/*
 * Ice Lake and the cores that share its PMU (Sunny Cove: Ice Lake client
 * and server; Willow Cove: Tiger Lake; Cypress Cove: Rocket Lake)
 * [LNX 6.12: the INTEL_ICELAKE_X ... INTEL_ROCKETLAKE case of
 * intel_pmu_init, intel_icl_event_constraints, intel_icl_extra_regs;
 * PFM: intel_icl_events.h serves icl and icx; INT: ICL/events/
 * icelake_core.json, ICX/events/icelakex_core.json].
 *
 * Fixed counters: INST_RETIRED.ANY and both PREC_DIST encodings (the old
 * 0x01c0, also on any generic counter, and the pseudo encoding 0x0100,
 * fixed only) on fixed counter 0, core cycles on 1, REF_TSC (pseudo 0x0300)
 * on 2, TOPDOWN.SLOTS (pseudo 0x0400) on 3.  Intel's lists write every
 * fixed counter N as event 0 umask N+1 (INST_RETIRED.ANY 0x0100,
 * CPU_CLK_UNHALTED.THREAD 0x0200, REF_TSC 0x0300, SLOTS 0x0400); Linux has
 * all but 0x0200, which pmuctl takes too: an event select of 0 counts
 * nothing on a generic counter, so it can mean only fixed counter 1
 * (perf's jevents maps the name to 0x003c instead).  Linux's topdown metric
 * pseudo events (event 0, umask 0x80 and up) read PERF_METRICS, which no
 * table here maps: they have no counter (PMUCTL_R_NO_ELIGIBLE_COUNTER).
 */
static const struct pmuctl_fixed_event icl_fixed[] = {
	{ 0x00c0, 0 },		/* INST_RETIRED.ANY */
	{ 0x01c0, 0 },		/* old INST_RETIRED.PREC_DIST */
	{ 0x0100, 0 },		/* INST_RETIRED.PREC_DIST */
	{ 0x003c, 1 },		/* CPU_CLK_UNHALTED.CORE */
	{ 0x0200, 1 },		/* CPU_CLK_UNHALTED.THREAD, as Intel writes it */
	{ 0x0300, 2 },		/* CPU_CLK_UNHALTED.REF_TSC */
	{ 0x0400, 3 },		/* TOPDOWN.SLOTS */
};

/*
 * Generic-counter constraints, Linux 6.12's intel_icl_event_constraints
 * in its order (the first match decides): ranges of event selects limited
 * to counters 0-3, and three CYCLE_ACTIVITY umasks that may use all eight
 * ahead of the 0xa3 rule that limits the others.
 */
static const struct pmuctl_constraint icl_cons[] = {
	RANGE_CONS(0x03, 0x0a, 0xf),
	RANGE_CONS(0x1f, 0x28, 0xf),
	EVENT_CONS(0x32, 0xf),		/* SW_PREFETCH_ACCESS.* */
	RANGE_CONS(0x48, 0x56, 0xf),
	RANGE_CONS(0x60, 0x8b, 0xf),
	UEVENT_CONS(0x04a3, 0xff),	/* CYCLE_ACTIVITY.STALLS_TOTAL */
	UEVENT_CONS(0x10a3, 0xff),	/* CYCLE_ACTIVITY.CYCLES_MEM_ANY */
	UEVENT_CONS(0x14a3, 0xff),	/* CYCLE_ACTIVITY.STALLS_MEM_ANY */
	EVENT_CONS(0xa3, 0xf),		/* CYCLE_ACTIVITY.* */
	RANGE_CONS(0xa8, 0xb0, 0xf),
	RANGE_CONS(0xb7, 0xbd, 0xf),	/* OFFCORE_RESPONSE 0xb7/0xbb among them */
	RANGE_CONS(0xd0, 0xe6, 0xf),
	EVENT_CONS(0xef, 0xf),
	RANGE_CONS(0xf0, 0xf4, 0xf),
};

/*
 * Ice Lake extra registers [LNX: intel_icl_extra_regs]: as Skylake's, with
 * OFFCORE_RSP valid mask 0x3fffffbfff (request bit 14 left out).
 */
static const struct pmuctl_xreg icl_xregs[] = {
	XREG_RSP0(0x01b7, 0x3fffffbfffULL),	/* OFFCORE_RESPONSE_0 */
	XREG_RSP1(0x01bb, 0x3fffffbfffULL),	/* OFFCORE_RESPONSE_1 */
	XREG_FE(0x01c6, 0x7fff17ULL),		/* FRONTEND_RETIRED */
	XREG_LDLAT(0x01cd, 0xffffULL),		/* MEM_TRANS_RETIRED.LOAD_LATENCY */
};

/*
 * AnyThread is deprecated from Ice Lake on (perfmon v5, CPUID.0AH:EDX[15];
 * Linux refuses "any" when anythread_deprecated is set).  The table
 * refuses it on every counter, so a hypervisor that reports an older
 * perfmon version for these cores gets no AnyThread bit written either.
 * Offcore fields as Skylake's [PFM: intel_icl_events.h; INT]: request
 * bits 0..15, ANY_RESPONSE bit 16, supplier and snoop bits 17..37.
 * PERF_METRICS holds 4 topdown metrics [LNX: num_topdown_events = 4 for
 * Ice Lake; 8 from Golden Cove on, intel_pmu_init_glc()].
 */
#define ICL_MODEL(_name, _id) {						\
	.name = _name, .id = _id,					\
	.any_gp = false, .any_fixed = 0,				\
	.cons = icl_cons, .nr_cons = PMUCTL_NELEM(icl_cons),		\
	.xregs = icl_xregs, .nr_xregs = PMUCTL_NELEM(icl_xregs),	\
	.fixed = icl_fixed, .nr_fixed = PMUCTL_NELEM(icl_fixed),	\
	.ofc_request = 0xffffULL,					\
	.ofc_response = 0x3ffffe0000ULL,				\
	.ofc_any_response = 1ULL << 16,					\
	.nr_metrics = 4,						\
}

static const struct pmuctl_model model_icl = ICL_MODEL("icl", PMUCTL_MODEL_ICL);
static const struct pmuctl_model model_icx = ICL_MODEL("icx", PMUCTL_MODEL_ICX);

/*
 * Golden Cove and Raptor Cove (Sapphire Rapids, Emerald Rapids) and
 * Redwood Cove (Granite Rapids) [LNX 6.12: intel_pmu_init_glc,
 * intel_glc_event_constraints, intel_glc_extra_regs (SPR, EMR),
 * intel_rwc_extra_regs (GNR); PFM: intel_spr_events.h (spr; libpfm4 4.13
 * has no Granite Rapids table); INT: SPR/events/sapphirerapids_core.json,
 * GNR/events/graniterapids_core.json].
 *
 * Fixed counters as Ice Lake's without the old 0x01c0 PREC_DIST, and with
 * CPU_CLK_UNHALTED.REF_TSC_P (0x013c) on fixed counter 2 besides the
 * generic counters.
 */
static const struct pmuctl_fixed_event glc_fixed[] = {
	{ 0x00c0, 0 },		/* INST_RETIRED.ANY */
	{ 0x0100, 0 },		/* INST_RETIRED.PREC_DIST */
	{ 0x003c, 1 },		/* CPU_CLK_UNHALTED.CORE */
	{ 0x0200, 1 },		/* CPU_CLK_UNHALTED.THREAD, as Intel writes it */
	{ 0x0300, 2 },		/* CPU_CLK_UNHALTED.REF_TSC */
	{ 0x013c, 2 },		/* CPU_CLK_UNHALTED.REF_TSC_P */
	{ 0x0400, 3 },		/* TOPDOWN.SLOTS */
};

/*
 * Linux 6.12's intel_glc_event_constraints in its order: "Generally event
 * codes < 0x90 are restricted to counters 0-3", 0x2e and 0x3c excepted;
 * three umasks of 0xa3 on counters 0-3; two of 0xa4, 0xcd umask 2 and 0xce
 * on counter 0 alone; the rest of 0x90-0xfe on any counter.  Intel's lists
 * [INT: SPR V1.39, EMR V1.24, GNR V1.20; selftests/core/intel_diff.c]
 * restrict more, which pmuctl applies as it does Skylake's: three more
 * CYCLE_ACTIVITY.STALLS_* umasks to counters 0-3, and the load-latency
 * event 0x01cd to counters 1-7 (Linux has that only for PEBS).
 */
static const struct pmuctl_constraint glc_cons[] = {
	EVENT_CONS(0x2e, 0xff),		/* LONGEST_LAT_CACHE.* */
	EVENT_CONS(0x3c, 0xff),		/* CPU_CLK_UNHALTED.* */
	RANGE_CONS(0x01, 0x8f, 0xf),
	UEVENT_CONS(0x01a3, 0xf),	/* CYCLE_ACTIVITY.CYCLES_L2_MISS */
	UEVENT_CONS(0x02a3, 0xf),	/* CYCLE_ACTIVITY.CYCLES_L3_MISS */
	UEVENT_CONS(0x08a3, 0xf),	/* CYCLE_ACTIVITY.CYCLES_L1D_MISS */
	/* ... and these three too [INT], not in Linux's table */
	UEVENT_CONS(0x05a3, 0xf),	/* CYCLE_ACTIVITY.STALLS_L2_MISS */
	UEVENT_CONS(0x06a3, 0xf),	/* CYCLE_ACTIVITY.STALLS_L3_MISS */
	UEVENT_CONS(0x0ca3, 0xf),	/* CYCLE_ACTIVITY.STALLS_L1D_MISS */
	UEVENT_CONS(0x04a4, 0x1),	/* TOPDOWN.BAD_SPEC_SLOTS */
	UEVENT_CONS(0x08a4, 0x1),	/* TOPDOWN.BR_MISPREDICT_SLOTS */
	UEVENT_CONS(0x02cd, 0x1),	/* MEM_TRANS_RETIRED.STORE_SAMPLE */
	/* counters 1-7 [INT; LNX: intel_glc_pebs_event_constraints only] */
	UEVENT_CONS(0x01cd, 0xfe),	/* MEM_TRANS_RETIRED.LOAD_LATENCY_GT_* */
	EVENT_CONS(0xce, 0x1),		/* AMX_OPS_RETIRED.* */
	RANGE_CONS(0xd0, 0xdf, 0xf),
	RANGE_CONS(0x90, 0xfe, 0xff),
};

/*
 * Golden Cove's extra registers [LNX: intel_glc_extra_regs]: the OCR
 * events 0x2a/0x2b umask 1 select OFFCORE_RSP_0/1 (valid mask
 * 0x3fffffffff); FRONTEND_RETIRED 0x01c6 selects MSR_PEBS_FRONTEND (mask
 * 0x7fff1f), and so do 0x40ad (bits 0-2) and 0x04c2 (bit 3), which share
 * its one value.
 */
static const struct pmuctl_xreg glc_xregs[] = {
	XREG_RSP0(0x012a, 0x3fffffffffULL),	/* OCR (RSP_0) */
	XREG_RSP1(0x012b, 0x3fffffffffULL),	/* OCR (RSP_1) */
	XREG_FE(0x01c6, 0x7fff1fULL),		/* FRONTEND_RETIRED */
	XREG_LDLAT(0x01cd, 0xffffULL),		/* MEM_TRANS_RETIRED.LOAD_LATENCY */
};

static const struct pmuctl_xsel glc_xsels[] = {
	{ .code = 0x40ad, .xreg = 2, .valid = 0x7 },	/* INT_MISC.* with FE */
	{ .code = 0x04c2, .xreg = 2, .valid = 0x8 },	/* UOPS_RETIRED.* with FE */
};

/*
 * Redwood Cove's [LNX: intel_rwc_extra_regs]: as Golden Cove's, but
 * FRONTEND_RETIRED's latency form is umask 3 (0x03c6, mask 0x7fff1f) and
 * umask 2 (0x02c6) takes bits 0 and 3 only.
 */
static const struct pmuctl_xreg rwc_xregs[] = {
	XREG_RSP0(0x012a, 0x3fffffffffULL),	/* OCR (RSP_0) */
	XREG_RSP1(0x012b, 0x3fffffffffULL),	/* OCR (RSP_1) */
	XREG_FE(0x03c6, 0x7fff1fULL),		/* FRONTEND_RETIRED */
	XREG_LDLAT(0x01cd, 0xffffULL),		/* MEM_TRANS_RETIRED.LOAD_LATENCY */
};

static const struct pmuctl_xsel rwc_xsels[] = {
	{ .code = 0x02c6, .xreg = 2, .valid = 0x9 },	/* FRONTEND_RETIRED, umask 2 */
	{ .code = 0x40ad, .xreg = 2, .valid = 0x7 },	/* INT_MISC.* with FE */
	{ .code = 0x04c2, .xreg = 2, .valid = 0x8 },	/* UOPS_RETIRED.* with FE */
};

/* AnyThread and the offcore fields as Ice Lake's [PFM: intel_spr_events.h]. */
#define GLC_COMMON							\
	.any_gp = false, .any_fixed = 0,				\
	.cons = glc_cons, .nr_cons = PMUCTL_NELEM(glc_cons),		\
	.fixed = glc_fixed, .nr_fixed = PMUCTL_NELEM(glc_fixed),	\
	.ofc_request = 0xffffULL,					\
	.ofc_response = 0x3ffffe0000ULL,				\
	.ofc_any_response = 1ULL << 16,					\
	.nr_metrics = 8

static const struct pmuctl_model model_spr = {
	.name = "spr", .id = PMUCTL_MODEL_SPR,
	.xregs = glc_xregs, .nr_xregs = PMUCTL_NELEM(glc_xregs),
	.xsels = glc_xsels, .nr_xsels = PMUCTL_NELEM(glc_xsels),
	GLC_COMMON,
};

static const struct pmuctl_model model_gnr = {
	.name = "gnr", .id = PMUCTL_MODEL_GNR,
	.xregs = rwc_xregs, .nr_xregs = PMUCTL_NELEM(rwc_xregs),
	.xsels = rwc_xsels, .nr_xsels = PMUCTL_NELEM(rwc_xsels),
	GLC_COMMON,
};

/*
 * Alder Lake and Raptor Lake's Golden/Raptor Cove (Linux's cpu_core PMU of
 * the INTEL_ALDERLAKE ... INTEL_RAPTORLAKE_S case: intel_pmu_init_glc()
 * and intel_glc_extra_regs): Sapphire Rapids' tables.  It serves the
 * P-cores of the hybrid parts (pmuctl_model_for()), the parts that have
 * only these cores (i5-12400, Xeon E-2400, E-cores fused off and the
 * hybrid bit clear) and `pmuctl check --pmu adl_glc` [INT:
 * ADL/events/alderlake_goldencove_core.json V1.40, which agrees with
 * Sapphire Rapids' list on every constraint above].
 */
static const struct pmuctl_model model_adl_glc = {
	.name = "adl_glc", .id = PMUCTL_MODEL_ADL_GLC,
	.xregs = glc_xregs, .nr_xregs = PMUCTL_NELEM(glc_xregs),
	.xsels = glc_xsels, .nr_xsels = PMUCTL_NELEM(glc_xsels),
	GLC_COMMON,
};

/*
 * Gracemont (Alder Lake-N, Alder/Raptor Lake's E-core) and Crestmont
 * (Sierra Forest, Grand Ridge; Meteor Lake's E-core) [LNX 6.12:
 * intel_pmu_init_grt, intel_grt_event_constraints, intel_grt_extra_regs,
 * intel_cmt_extra_regs; INT: ADL/events/alderlake_gracemont_core.json
 * V1.40, SRF/events/sierraforest_core.json V1.18,
 * GRR/events/grandridge_core.json V1.13; libpfm4 4.13 has no table].
 *
 * Fixed counters 0-2 only: the architectural encodings, REF_TSC_P 0x013c
 * on fixed counter 2 too, and Intel's event-0 encodings 0x0100, 0x0200,
 * 0x0300 (as on the big cores).  No generic-counter constraint in Linux;
 * Intel's lists keep the load-latency event MEM_UOPS_RETIRED 0x05d0 on
 * counters 0 and 1, which pmuctl applies.
 */
static const struct pmuctl_fixed_event grt_fixed[] = {
	{ 0x00c0, 0 },		/* INST_RETIRED.ANY */
	{ 0x0100, 0 },		/* INST_RETIRED.ANY, as Intel writes it */
	{ 0x003c, 1 },		/* CPU_CLK_UNHALTED.CORE */
	{ 0x0200, 1 },		/* CPU_CLK_UNHALTED.THREAD, as Intel writes it */
	{ 0x0300, 2 },		/* CPU_CLK_UNHALTED.REF_TSC */
	{ 0x013c, 2 },		/* CPU_CLK_UNHALTED.REF_TSC_P */
};

static const struct pmuctl_constraint grt_cons[] = {
	UEVENT_CONS(0x05d0, 0x3),	/* MEM_UOPS_RETIRED.LOAD_LATENCY_GT_* [INT] */
};

/*
 * Gracemont's extra registers [LNX: intel_grt_extra_regs]: OCR 0xb7 umask
 * 1 and umask 2 select OFFCORE_RSP_0/1 (mask 0x3fffffffff), the
 * load-latency event 0x05d0 MSR_PEBS_LD_LAT_THRESHOLD.  Intel's list also
 * writes request bits 46 and 47 (OCR.PARTIAL_STREAMING_WR 0x400000010000,
 * OCR.FULL_STREAMING_WR 0x800000010000), which Linux's mask refuses:
 * pmuctl keeps Linux's mask (EXTRA_MASK), as for KNL's bit 4.
 */
static const struct pmuctl_xreg grt_xregs[] = {
	XREG_RSP0(0x01b7, 0x3fffffffffULL),	/* OCR (RSP_0) */
	XREG_RSP1(0x02b7, 0x3fffffffffULL),	/* OCR (RSP_1) */
	XREG_LDLAT(0x05d0, 0xffffULL),		/* MEM_UOPS_RETIRED.LOAD_LATENCY */
};

/*
 * Crestmont's [LNX: intel_cmt_extra_regs]: RSP_0 mask 0x800ff3ffffffffff,
 * RSP_1 0xff3ffffffffff.  No public event list writes a bit above 37 (the
 * SRF and GRR lists' values OR to 0x3fbffd0fff) and no source names bits
 * 40-41, 44-51 or RSP_0's bit 63 (as Silvermont's and KNL's RSP_0-only bit
 * 38 was OUTSTANDING, it may be one): pmuctl takes bits 0-37 only, the
 * fields it can check, and refuses the rest (EXTRA_MASK) until a source
 * defines them.  Linux's 0x0127/0x0227 select MSR_SNOOP_RSP_0/1 (0x1328,
 * 0x1329), which pmuctl does not arbitrate: those encodings are refused
 * (PMUCTL_R_EXTRA_UNSUPPORTED).
 */
static const struct pmuctl_xreg cmt_xregs[] = {
	XREG_RSP0(0x01b7, 0x3fffffffffULL),	/* OCR (RSP_0) */
	XREG_RSP1(0x02b7, 0x3fffffffffULL),	/* OCR (RSP_1) */
	XREG_LDLAT(0x05d0, 0xffffULL),		/* MEM_UOPS_RETIRED.LOAD_LATENCY */
};

static const u16 cmt_unsupported[] = {
	0x0127,		/* SNOOP_RSP_0 */
	0x0227,		/* SNOOP_RSP_1 */
};

/* Offcore fields as the big cores' [INT]; no AnyThread (perfmon v5). */
#define GRT_COMMON							\
	.any_gp = false, .any_fixed = 0,				\
	.cons = grt_cons, .nr_cons = PMUCTL_NELEM(grt_cons),		\
	.fixed = grt_fixed, .nr_fixed = PMUCTL_NELEM(grt_fixed),	\
	.ofc_request = 0xffffULL,					\
	.ofc_response = 0x3ffffe0000ULL,				\
	.ofc_any_response = 1ULL << 16

static const struct pmuctl_model model_adl_grt = {
	.name = "adl_grt", .id = PMUCTL_MODEL_ADL_GRT,
	.xregs = grt_xregs, .nr_xregs = PMUCTL_NELEM(grt_xregs),
	GRT_COMMON,
};

static const struct pmuctl_model model_srf = {
	.name = "srf", .id = PMUCTL_MODEL_SRF,
	.xregs = cmt_xregs, .nr_xregs = PMUCTL_NELEM(cmt_xregs),
	.unsupported = cmt_unsupported,
	.nr_unsupported = PMUCTL_NELEM(cmt_unsupported),
	GRT_COMMON,
};

/*
 * Lion Cove, the P-core of Lunar Lake and Arrow Lake-S (perfmon v6: 10
 * generic counters in leaf 23H, UMASK2 and EQ) [LNX 6.12: the
 * INTEL_LUNARLAKE_M / INTEL_ARROWLAKE case of intel_pmu_init(),
 * intel_pmu_init_lnc(): intel_pmu_init_glc() with
 * intel_lnc_event_constraints and intel_lnc_extra_regs; INT:
 * LNL/events/lunarlake_lioncove_core.json V1.26,
 * ARL/events/arrowlake_lioncove_core.json V1.20; libpfm4 4.13 has no
 * table].  Fixed counters and topdown metrics as Golden Cove's (8).
 *
 * Linux 6.12's constraints in its order.  Unlike Golden Cove's they have
 * no catch-all range: an event no entry names may use all 10 counters.
 */
static const struct pmuctl_constraint lnc_cons[] = {
	EVENT_CONS(0x20, 0xf),		/* OFFCORE_REQUESTS_OUTSTANDING.* */
	UEVENT_CONS(0x012a, 0xf),	/* OCR (RSP_0) */
	UEVENT_CONS(0x012b, 0xf),	/* OCR (RSP_1) */
	UEVENT_CONS(0x0148, 0x4),	/* L1D_PEND_MISS.PENDING */
	UEVENT_CONS(0x0175, 0x4),	/* INST_DECODED.DECODERS */
	EVENT_CONS(0x2e, 0x3ff),	/* LONGEST_LAT_CACHE.* */
	EVENT_CONS(0x3c, 0x3ff),	/* CPU_CLK_UNHALTED.* */
	UEVENT_CONS(0x08a3, 0x4),	/* CYCLE_ACTIVITY.CYCLES_L1D_MISS */
	UEVENT_CONS(0x0ca3, 0x4),	/* CYCLE_ACTIVITY.STALLS_L1D_MISS */
	UEVENT_CONS(0x04a4, 0x1),	/* TOPDOWN.BAD_SPEC_SLOTS */
	UEVENT_CONS(0x08a4, 0x1),	/* TOPDOWN.BR_MISPREDICT_SLOTS */
	UEVENT_CONS(0x10a4, 0x8),	/* TOPDOWN.MEMORY_BOUND_SLOTS */
	UEVENT_CONS(0x01b1, 0x8),	/* UOPS_EXECUTED.THREAD */
	UEVENT_CONS(0x01cd, 0x3fc),	/* MEM_TRANS_RETIRED.LOAD_LATENCY_GT_* */
	UEVENT_CONS(0x02cd, 0x3),	/* MEM_TRANS_RETIRED.STORE_SAMPLE */
	UEVENT_CONS(0x87d0, 0x3ff),	/* MEM_INST_RETIRED.ALL_LOADS */
	RANGE_CONS(0xd0, 0xdf, 0xf),
	UEVENT_CONS(0x00e0, 0xf),	/* (Linux's 0x00e0, umask 0) */
};

/*
 * Lion Cove's extra registers [LNX: intel_lnc_extra_regs]: OCR 0x012a /
 * 0x012b select OFFCORE_RSP_0/1 with 44 valid bits (0xfffffffffff), the
 * load-latency event 0x01cd MSR_PEBS_LD_LAT_THRESHOLD, and four events
 * MSR_PEBS_FRONTEND: FRONTEND_RETIRED 0x03c6 (mask 0x7fff1f) and 0x02c6
 * (bits 0 and 3), INT_MISC 0x40ad (bits 0-3), UOPS_RETIRED 0x04c2 (bit 3).
 */
static const struct pmuctl_xreg lnc_xregs[] = {
	XREG_RSP0(0x012a, 0xfffffffffffULL),	/* OCR (RSP_0) */
	XREG_RSP1(0x012b, 0xfffffffffffULL),	/* OCR (RSP_1) */
	XREG_FE(0x03c6, 0x7fff1fULL),		/* FRONTEND_RETIRED */
	XREG_LDLAT(0x01cd, 0xffffULL),		/* MEM_TRANS_RETIRED.LOAD_LATENCY */
};

static const struct pmuctl_xsel lnc_xsels[] = {
	{ .code = 0x02c6, .xreg = 2, .valid = 0x9 },	/* FRONTEND_RETIRED, umask 2 */
	{ .code = 0x40ad, .xreg = 2, .valid = 0xf },	/* INT_MISC.* with FE */
	{ .code = 0x04c2, .xreg = 2, .valid = 0x8 },	/* UOPS_RETIRED.* with FE */
};

static const struct pmuctl_model model_lnl_lnc = {
	.name = "lnl_lnc", .id = PMUCTL_MODEL_LNL_LNC,
	.any_gp = false, .any_fixed = 0,
	.cons = lnc_cons, .nr_cons = PMUCTL_NELEM(lnc_cons),
	.fixed = glc_fixed, .nr_fixed = PMUCTL_NELEM(glc_fixed),
	.xregs = lnc_xregs, .nr_xregs = PMUCTL_NELEM(lnc_xregs),
	.xsels = lnc_xsels, .nr_xsels = PMUCTL_NELEM(lnc_xsels),
	.ofc_request = 0xffffULL,
	.ofc_response = 0xffffffe0000ULL,	/* bits 17-43 [INT: bit 43 in L3_MISS] */
	.ofc_any_response = 1ULL << 16,
	.nr_metrics = 8,
};

/*
 * Skymont, the E-core of Lunar Lake and Arrow Lake-S (perfmon v6: 8
 * generic counters, fixed counters 0-2 and 4-6) [LNX 6.12:
 * intel_pmu_init_skt(): intel_pmu_init_grt() with
 * intel_skt_event_constraints and intel_cmt_extra_regs (Crestmont's,
 * pmuctl's cmt_xregs); INT: LNL/events/lunarlake_skymont_core.json V1.26,
 * ARL/events/arrowlake_skymont_core.json V1.20].  Fixed counters 4-6
 * count TOPDOWN_BAD_SPECULATION.ALL, TOPDOWN_FE_BOUND.ALL and
 * TOPDOWN_RETIRING.ALL: Linux places their generic encodings 0x0073,
 * 0x019c and 0x02c2 there too; Intel writes them event 0 umask 5, 6, 7.
 */
static const struct pmuctl_fixed_event skt_fixed[] = {
	{ 0x00c0, 0 },		/* INST_RETIRED.ANY */
	{ 0x0100, 0 },		/* INST_RETIRED.ANY, as Intel writes it */
	{ 0x003c, 1 },		/* CPU_CLK_UNHALTED.CORE */
	{ 0x0200, 1 },		/* CPU_CLK_UNHALTED.THREAD, as Intel writes it */
	{ 0x0300, 2 },		/* CPU_CLK_UNHALTED.REF_TSC */
	{ 0x013c, 2 },		/* CPU_CLK_UNHALTED.REF_TSC_P */
	{ 0x0073, 4 },		/* TOPDOWN_BAD_SPECULATION.ALL */
	{ 0x0500, 4 },		/* ... as Intel writes it */
	{ 0x019c, 5 },		/* TOPDOWN_FE_BOUND.ALL */
	{ 0x0600, 5 },		/* ... as Intel writes it */
	{ 0x02c2, 6 },		/* TOPDOWN_RETIRING.ALL */
	{ 0x0700, 6 },		/* ... as Intel writes it */
};

/*
 * Skymont's extra registers: Crestmont's [LNX 6.12: intel_cmt_extra_regs,
 * RSP_0 0x800ff3ffffffffff, RSP_1 0xff3ffffffffff], whose bits past 37
 * Intel's Skymont lists do write [INT: LNL V1.26, ARL V1.20]: request
 * bits 44-51 (OCR.ALL_REQUESTS.ANY_RESPONSE 0xff0000001dfff;
 * OCR.PARTIAL_STREAMING_WR and FULL_STREAMING_WR 46 and 47) and bit 40
 * among the suppliers (OCR.*.L3_MISS 0x13fbfc0000x, MEMSIDE_CACHE
 * 0x11f8000000x).  pmuctl takes Linux's masks but for RSP_0's bit 63,
 * which no list writes and no source names (Crestmont's note above), and
 * counts bits 17-41 as the response (38, 39, 41: Linux's mask, no list).
 * Crestmont's table (srf) keeps bits 0-37: its lists write nothing past.
 */
static const struct pmuctl_xreg skt_xregs[] = {
	XREG_RSP0(0x01b7, 0xff3ffffffffffULL),	/* OCR (RSP_0) */
	XREG_RSP1(0x02b7, 0xff3ffffffffffULL),	/* OCR (RSP_1) */
	XREG_LDLAT(0x05d0, 0xffffULL),		/* MEM_UOPS_RETIRED.LOAD_LATENCY */
};

/*
 * No generic-counter constraint in Linux (intel_skt_event_constraints has
 * the fixed counters only); Intel's lists keep MEM_UOPS_RETIRED 0x05d0 on
 * counters 0 and 1, as Gracemont's, which pmuctl applies (grt_cons).
 */
static const struct pmuctl_model model_lnl_skt = {
	.name = "lnl_skt", .id = PMUCTL_MODEL_LNL_SKT,
	.any_gp = false, .any_fixed = 0,
	.cons = grt_cons, .nr_cons = PMUCTL_NELEM(grt_cons),
	.fixed = skt_fixed, .nr_fixed = PMUCTL_NELEM(skt_fixed),
	.xregs = skt_xregs, .nr_xregs = PMUCTL_NELEM(skt_xregs),
	.unsupported = cmt_unsupported,
	.nr_unsupported = PMUCTL_NELEM(cmt_unsupported),
	.ofc_request = 0xffffULL | 0xffULL << 44,
	.ofc_response = 0x3fffffe0000ULL,
	.ofc_any_response = 1ULL << 16,
};

/*
 * Any other Intel CPU with architectural perfmon v2 or later: the
 * architectural events only (CPUID.0AH:EBX, as enumerated) and the
 * fixed-counter encodings, no extra registers, no constraints beyond the
 * fixed counters; AnyThread wherever CPUID says it exists.  Every other
 * event code is refused (PMUCTL_R_NOT_ARCHITECTURAL): without the model's
 * table pmuctl knows neither its counter constraints nor whether it
 * selects an extra MSR (OFFCORE_RSP, PEBS_LD_LAT, PEBS_FRONTEND) that
 * pmuctl would not arbitrate.
 */
static const struct pmuctl_model model_arch = {
	.name = "arch", .id = PMUCTL_MODEL_ARCH,
	.any_gp = true, .any_fixed = 0xffff,
	.arch_only = true,
};

const struct pmuctl_model *const pmuctl_models[] = {
	&model_arch, &model_knl, &model_knm, &model_skl,
	&model_icl, &model_icx, &model_spr, &model_gnr,
	&model_adl_glc, &model_adl_grt, &model_srf,
	&model_lnl_lnc, &model_lnl_skt,
};

const u32 pmuctl_nr_models = PMUCTL_NELEM(pmuctl_models);

/* Family 6 model numbers [LNX: arch/x86/include/asm/intel-family.h]. */
static const struct {
	u8 model;
	const struct pmuctl_model *pmu;
} fam6[] = {
	{ 0x57, &model_knl },	/* XEON_PHI_KNL */
	{ 0x85, &model_knm },	/* XEON_PHI_KNM */
	{ 0x4e, &model_skl },	/* SKYLAKE_L */
	{ 0x5e, &model_skl },	/* SKYLAKE */
	{ 0x55, &model_skl },	/* SKYLAKE_X, also Cascade and Cooper Lake */
	{ 0x8e, &model_skl },	/* KABYLAKE_L, also Coffee/Whiskey/Amber Lake */
	{ 0x9e, &model_skl },	/* KABYLAKE, also Coffee Lake */
	{ 0xa5, &model_skl },	/* COMETLAKE */
	{ 0xa6, &model_skl },	/* COMETLAKE_L */
	{ 0x7d, &model_icl },	/* ICELAKE */
	{ 0x7e, &model_icl },	/* ICELAKE_L */
	{ 0x8c, &model_icl },	/* TIGERLAKE_L */
	{ 0x8d, &model_icl },	/* TIGERLAKE */
	{ 0xa7, &model_icl },	/* ROCKETLAKE */
	{ 0x6a, &model_icx },	/* ICELAKE_X */
	{ 0x6c, &model_icx },	/* ICELAKE_D */
	{ 0x8f, &model_spr },	/* SAPPHIRERAPIDS_X */
	{ 0xcf, &model_spr },	/* EMERALDRAPIDS_X */
	{ 0xad, &model_gnr },	/* GRANITERAPIDS_X */
	{ 0xae, &model_gnr },	/* GRANITERAPIDS_D */
	/*
	 * Hybrid families without the hybrid bit (one core type); the
	 * hybrid parts are matched per core type by pmuctl_model_for().
	 */
	{ 0x97, &model_adl_glc },	/* ALDERLAKE */
	{ 0x9a, &model_adl_glc },	/* ALDERLAKE_L */
	{ 0xb7, &model_adl_glc },	/* RAPTORLAKE */
	{ 0xba, &model_adl_glc },	/* RAPTORLAKE_P */
	{ 0xbf, &model_adl_glc },	/* RAPTORLAKE_S */
	{ 0xbe, &model_adl_grt },	/* ATOM_GRACEMONT (Alder Lake-N) */
	{ 0xaf, &model_srf },		/* ATOM_CRESTMONT_X (Sierra Forest) */
	{ 0xb6, &model_srf },		/* ATOM_CRESTMONT (Grand Ridge) */
};

/**
 * pmuctl_model_match() - the model table for a CPU
 * @family:	display family
 * @model:	display model
 *
 * Return: the model's table; the generic architectural model for every
 * Intel CPU not listed.
 */
const struct pmuctl_model *pmuctl_model_match(u32 family, u32 model)
{
	u32 i;

	for (i = 0; family == 6 && i < PMUCTL_NELEM(fam6); i++)
		if (fam6[i].model == model)
			return fam6[i].pmu;
	return &model_arch;
}

/*
 * Hybrid parts: the model of each core type [LNX 6.12 intel_pmu_init()].
 * Alder and Raptor Lake: Golden/Raptor Cove (intel_pmu_init_glc(),
 * intel_glc_extra_regs) and Gracemont (intel_pmu_init_grt(),
 * intel_grt_extra_regs).  Meteor Lake and Arrow Lake-U (Meteor Lake
 * silicon): Redwood Cove (intel_pmu_init_glc(), intel_rwc_extra_regs:
 * Granite Rapids' tables) and Crestmont (intel_pmu_init_grt(),
 * intel_cmt_extra_regs: Sierra Forest's).  Lunar Lake and Arrow Lake-S
 * (the INTEL_LUNARLAKE_M / INTEL_ARROWLAKE case): Lion Cove
 * (intel_pmu_init_lnc()) and Skymont (intel_pmu_init_skt()).  Arrow
 * Lake-H/HX, whose third type (Crestmont LP-E) Linux 6.12 does not know,
 * Panther Lake (Cougar Cove, Darkmont) and any other hybrid part: the
 * generic model on every type, until their tables are written.
 */
static const struct {
	u8 model;
	u8 core_type;		/* CPUID.1AH:EAX[31:24] */
	const struct pmuctl_model *pmu;
} hybrid[] = {
	{ 0x97, 0x40, &model_adl_glc }, { 0x97, 0x20, &model_adl_grt },	/* ALDERLAKE */
	{ 0x9a, 0x40, &model_adl_glc }, { 0x9a, 0x20, &model_adl_grt },	/* ALDERLAKE_L */
	{ 0xb7, 0x40, &model_adl_glc }, { 0xb7, 0x20, &model_adl_grt },	/* RAPTORLAKE */
	{ 0xba, 0x40, &model_adl_glc }, { 0xba, 0x20, &model_adl_grt },	/* RAPTORLAKE_P */
	{ 0xbf, 0x40, &model_adl_glc }, { 0xbf, 0x20, &model_adl_grt },	/* RAPTORLAKE_S */
	{ 0xaa, 0x40, &model_gnr }, { 0xaa, 0x20, &model_srf },		/* METEORLAKE */
	{ 0xac, 0x40, &model_gnr }, { 0xac, 0x20, &model_srf },		/* METEORLAKE_L */
	{ 0xb5, 0x40, &model_gnr }, { 0xb5, 0x20, &model_srf },		/* ARROWLAKE_U */
	{ 0xbd, 0x40, &model_lnl_lnc }, { 0xbd, 0x20, &model_lnl_skt },	/* LUNARLAKE_M */
	{ 0xc6, 0x40, &model_lnl_lnc }, { 0xc6, 0x20, &model_lnl_skt },	/* ARROWLAKE */
};

/**
 * pmuctl_model_for() - the model table for a CPU's decoded caps
 * @caps:	from pmuctl_caps_decode() on that CPU
 *
 * Return: pmuctl_model_match() of its family and model, or on a hybrid
 * CPU (PMUCTL_CAP_HYBRID) the model of its core type; the generic
 * architectural model where there is none.
 */
const struct pmuctl_model *pmuctl_model_for(const struct pmuctl_caps *caps)
{
	u32 i;

	if (!(caps->flags & PMUCTL_CAP_HYBRID))
		return pmuctl_model_match(caps->family, caps->model);
	for (i = 0; caps->family == 6 && i < PMUCTL_NELEM(hybrid); i++)
		if (hybrid[i].model == caps->model &&
		    hybrid[i].core_type == caps->core_type)
			return hybrid[i].pmu;
	return &model_arch;
}

/**
 * pmuctl_model_by_id() - a model by its PMUCTL_MODEL_* number
 * @id:		the number
 *
 * Return: the model, or NULL if there is none.
 */
const struct pmuctl_model *pmuctl_model_by_id(u32 id)
{
	u32 i;

	for (i = 0; i < pmuctl_nr_models; i++)
		if (pmuctl_models[i]->id == id)
			return pmuctl_models[i];
	return NULL;
}

static bool streq(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

/**
 * pmuctl_model_by_name() - a model by its libpfm4 PMU name
 * @name:	"knl", "knm", "skl", "icl", "icx", "spr", "gnr", "adl_glc",
 *		"adl_grt", "srf", "lnl_lnc", "lnl_skt" or "arch"
 *
 * Return: the model, or NULL if there is none.
 */
const struct pmuctl_model *pmuctl_model_by_name(const char *name)
{
	u32 i;

	for (i = 0; i < pmuctl_nr_models; i++)
		if (streq(pmuctl_models[i]->name, name))
			return pmuctl_models[i];
	return NULL;
}
