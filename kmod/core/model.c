// SPDX-License-Identifier: GPL-2.0
/*
 * Per-model PMU data: only what CPUID cannot tell.  Adding an Intel model
 * means adding a table here and its test vectors, nothing else.
 *
 * Sources:
 *  [LNX]  Linux 6.1 arch/x86/events/intel/core.c (intel_*_event_constraints,
 *         intel_*_extra_regs, intel_pmu_init)
 *  [PFM]  libpfm4 4.13 intel_knl_events.h / intel_skl_events.h and
 *         libpfm_intel_knm(3)
 *  [SDM]  Intel SDM vol. 3B ch. 20 and vol. 4 (MSR addresses)
 */
#include "core.h"

#define MSR_OFFCORE_RSP_0	0x1a6
#define MSR_OFFCORE_RSP_1	0x1a7
#define MSR_PEBS_LD_LAT		0x3f6
#define MSR_PEBS_FRONTEND	0x3f7

#define GP_ALL			0xffffffffU

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
 * Policy, disputed bits 3, 4, 33, 34: Intel's published KNL event list uses
 * bit 4 (ANY_READ 0x32f7), Linux's valid masks and libpfm4 exclude 3, 4, 33
 * and 34.  pmuctl keeps Linux's masks unchanged: a value with any of them
 * is refused with PMUCTL_R_EXTRA_MASK, so pmuctl never writes a bit the
 * kernel's own driver would refuse on the same hardware.
 */
static const struct pmuctl_xreg knl_xregs[] = {
	{ .code = 0x01b7, .msr = MSR_OFFCORE_RSP_0, .valid = 0x799ffbb6e7ULL,
	  .kind = PMUCTL_XK_RSP0, .alt = 1 },	/* OFFCORE_RESPONSE_0 */
	{ .code = 0x02b7, .msr = MSR_OFFCORE_RSP_1, .valid = 0x399ffbffe7ULL,
	  .kind = PMUCTL_XK_RSP1, .alt = 0 },	/* OFFCORE_RESPONSE_1 */
};

/*
 * KNL/KNM offcore fields [PFM: intel_knl_events.h]: request bits 0..15
 * (the valid masks leave out 3 and 4), ANY_RESPONSE bit 16, supplier and
 * snoop bits 17..37, OUTSTANDING bit 38.
 *
 * Policy, OUTSTANDING placement: libpfm4's description of OUTSTANDING says
 * to program it on PMC0 only; pmuctl enforces that as a constraint, so an
 * average-latency measurement cannot silently land on a counter that does
 * not support it.
 *
 * Policy, AnyThread: libpfm_intel_knm(3) allows the t modifier only on the
 * fixed-counter events and says that on unhalted_reference_cycles it "may
 * be ignored or rejected".  pmuctl allows AnyThread on fixed counters 0 and
 * 1 only: a silently ignored AnyThread would give a count off by the number
 * of threads, so fixed counter 2 refuses it.
 */
#define KNL_MODEL(_name, _id) {						\
	.name = _name, .id = _id,					\
	.any_gp = false, .any_fixed = 0x3,				\
	.xregs = knl_xregs, .nr_xregs = PMUCTL_NELEM(knl_xregs),	\
	.ofc_request = 0xffffULL,					\
	.ofc_response = 0x3ffffe0000ULL,				\
	.ofc_any_response = 1ULL << 16,					\
	.ofc_outstanding = 1ULL << 38,					\
	.outstanding_gp = 0x1,						\
}

static const struct pmuctl_model model_knl = KNL_MODEL("knl", PMUCTL_MODEL_KNL);
static const struct pmuctl_model model_knm = KNL_MODEL("knm", PMUCTL_MODEL_KNM);

/* Skylake generic-counter constraints [LNX: intel_skl_event_constraints]. */
static const struct pmuctl_constraint skl_cons[] = {
	{ 0x01c0, 0xffff, 0x2 },	/* INST_RETIRED.PREC_DIST */
	/* when HT is off, these can only run on the bottom 4 counters */
	{ 0x00d0, 0x00ff, 0xf },	/* MEM_INST_RETIRED.* */
	{ 0x00d1, 0x00ff, 0xf },	/* MEM_LOAD_RETIRED.* */
	{ 0x00d2, 0x00ff, 0xf },	/* MEM_LOAD_L3_HIT_RETIRED.* */
	{ 0x00cd, 0x00ff, 0xf },	/* MEM_TRANS_RETIRED.* */
	{ 0x00c6, 0x00ff, 0xf },	/* FRONTEND_RETIRED.* */
};

/*
 * Skylake extra registers [LNX: intel_skl_extra_regs]: RSP_0 is 0x01b7,
 * RSP_1 is 0x01bb, both with valid mask 0x3fffff8fff; FRONTEND_RETIRED
 * 0x01c6 selects MSR_PEBS_FRONTEND (mask 0x7fff17, the #GPing bits of its
 * low byte left out); MEM_TRANS_RETIRED.LOAD_LATENCY 0x01cd selects
 * MSR_PEBS_LD_LAT_THRESHOLD (mask 0xffff).
 */
static const struct pmuctl_xreg skl_xregs[] = {
	{ .code = 0x01b7, .msr = MSR_OFFCORE_RSP_0, .valid = 0x3fffff8fffULL,
	  .kind = PMUCTL_XK_RSP0, .alt = 1 },	/* OFFCORE_RESPONSE_0 */
	{ .code = 0x01bb, .msr = MSR_OFFCORE_RSP_1, .valid = 0x3fffff8fffULL,
	  .kind = PMUCTL_XK_RSP1, .alt = 0 },	/* OFFCORE_RESPONSE_1 */
	{ .code = 0x01c6, .msr = MSR_PEBS_FRONTEND, .valid = 0x7fff17ULL,
	  .kind = PMUCTL_XK_FRONTEND, .alt = -1 }, /* FRONTEND_RETIRED */
	{ .code = 0x01cd, .msr = MSR_PEBS_LD_LAT, .valid = 0xffffULL,
	  .kind = PMUCTL_XK_LDLAT, .alt = -1 },	/* MEM_TRANS_RETIRED.LOAD_LATENCY */
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
 * Any other Intel CPU with architectural perfmon v2 or later: the
 * architectural events only, no extra registers, no constraints beyond
 * the fixed counters; AnyThread wherever CPUID says it exists.
 */
static const struct pmuctl_model model_arch = {
	.name = "arch", .id = PMUCTL_MODEL_ARCH,
	.any_gp = true, .any_fixed = 0xffff,
};

const struct pmuctl_model *const pmuctl_models[] = {
	&model_arch, &model_knl, &model_knm, &model_skl,
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
 * @name:	"knl", "knm", "skl" or "arch"
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
