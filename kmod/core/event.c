// SPDX-License-Identifier: GPL-2.0
/*
 * Validation of one event: the ABI fields of struct pmuctl_event, the
 * PERFEVTSEL image, and the value of its extra MSR.  Each rule has its own
 * reason code; the order of the checks decides which one a request that
 * breaks several rules gets, and is part of the documented behaviour.
 */
#include "core.h"

#define CFG_CODE	(PMUCTL_CFG_EVENT | PMUCTL_CFG_UMASK)
#define CFG_USER	(CFG_CODE | PMUCTL_CFG_USR | PMUCTL_CFG_OS |	\
			 PMUCTL_CFG_EDGE | PMUCTL_CFG_ANY |		\
			 PMUCTL_CFG_INV | PMUCTL_CFG_CMASK |		\
			 PMUCTL_CFG_EQ | PMUCTL_CFG_UMASK2)
#define CFG_KERNEL	(PMUCTL_CFG_EN | PMUCTL_CFG_INT)
/*
 * What a fixed counter cannot do: FIXED_CTR_CTRL has only OS, USR, ANY
 * (and PMI); an event with a second unit mask is another event.
 */
#define CFG_NOT_FIXED	(PMUCTL_CFG_EDGE | PMUCTL_CFG_INV | PMUCTL_CFG_CMASK | \
			 PMUCTL_CFG_EQ | PMUCTL_CFG_UMASK2)

/*
 * The architectural fixed-counter events [SDM table "Association of Fixed-
 * Function Performance Counters with Architectural Performance Events";
 * LNX: FIXED_EVENT_CONSTRAINT].  0x0300 is Linux's pseudo encoding for
 * CPU_CLK_UNHALTED.REF_TSC: event select 0 counts nothing on a generic
 * counter, so it is fixed-only.
 */
static const struct pmuctl_fixed_event fixed_arch[] = {
	{ 0x00c0, 0 },		/* INST_RETIRED.ANY */
	{ 0x003c, 1 },		/* CPU_CLK_UNHALTED.THREAD */
	{ 0x0300, 2 },		/* CPU_CLK_UNHALTED.REF_TSC */
};

/* The model's fixed-counter encodings, or the architectural three. */
static const struct pmuctl_fixed_event *fixed_events(const struct pmuctl_model *m,
						     u32 *n)
{
	if (m->fixed) {
		*n = m->nr_fixed;
		return m->fixed;
	}
	*n = PMUCTL_NELEM(fixed_arch);
	return fixed_arch;
}

/*
 * Architectural events by CPUID.0AH:EBX bit [SDM table "UMask and Event
 * Select Encodings for Pre-Defined Architectural Performance Events"].
 */
static const u16 arch_code[] = {
	[PMUCTL_ARCH_CORE_CYCLES] = 0x003c,
	[PMUCTL_ARCH_INST_RETIRED] = 0x00c0,
	[PMUCTL_ARCH_REF_CYCLES] = 0x013c,
	[PMUCTL_ARCH_LLC_REFERENCES] = 0x4f2e,
	[PMUCTL_ARCH_LLC_MISSES] = 0x412e,
	[PMUCTL_ARCH_BRANCHES] = 0x00c4,
	[PMUCTL_ARCH_BRANCH_MISSES] = 0x00c5,
	[PMUCTL_ARCH_TOPDOWN_SLOTS] = 0x01a4,
};

static int refuse(u32 *reason, u32 why)
{
	*reason = why;
	return -EINVAL;
}

/**
 * pmuctl_event_abi_check() - the ABI rules of one struct pmuctl_event
 * @ev:		as copied in from user space
 * @reason:	PMUCTL_R_* on failure
 *
 * Return: 0, or -EINVAL for unknown flags, non-zero reserved fields or
 * non-zero output fields.
 */
int pmuctl_event_abi_check(const struct pmuctl_event *ev, u32 *reason)
{
	*reason = PMUCTL_R_NONE;
	if (ev->flags & ~PMUCTL_EVENT_FLAGS_ALL)
		return refuse(reason, PMUCTL_R_BAD_FLAGS);
	if (ev->reserved0 || ev->reserved[0] || ev->reserved[1])
		return refuse(reason, PMUCTL_R_RESERVED_FIELD);
	if (ev->counter || ev->config_used || ev->extra_msr)
		return refuse(reason, PMUCTL_R_OUTPUT_NOT_ZERO);
	return 0;
}

/* Is @code an architectural event or a fixed-counter encoding? */
static bool architectural(u32 code)
{
	u32 i;

	for (i = 0; i < PMUCTL_NELEM(arch_code); i++)
		if (code == arch_code[i])
			return true;
	for (i = 0; i < PMUCTL_NELEM(fixed_arch); i++)
		if (code == fixed_arch[i].code)
			return true;
	return false;
}

/* Does constraint @c match event code @code? */
static bool cons_match(const struct pmuctl_constraint *c, u32 code)
{
	u32 sel = code & c->match;

	if (c->last)
		return sel >= c->code && sel <= c->last;
	return sel == c->code;
}

/*
 * A topdown metric pseudo event [LNX: is_metric_event(), INTEL_TD_METRIC_*]:
 * event select 0, umask 0x80 + metric; its metric number, or -1.
 */
static int metric_of(u32 code)
{
	u32 umask = code >> 8;

	if ((code & PMUCTL_CFG_EVENT) || umask < 0x80 ||
	    umask >= 0x80 + PMUCTL_MAX_METRICS)
		return -1;
	return umask - 0x80;
}

/*
 * Counters that can count @config before AnyThread and offcore rules.
 * *@why says why there are none when it is not simply the configuration:
 * PMUCTL_R_EVENT_UNAVAILABLE or PMUCTL_R_NOT_ARCHITECTURAL.
 */
static u64 eligible(const struct pmuctl_model *m,
		    const struct pmuctl_caps *caps, u64 config, u32 flags,
		    u32 *why)
{
	u32 nfe;
	const struct pmuctl_fixed_event *fe = fixed_events(m, &nfe);
	u32 code = config & CFG_CODE, i;
	u64 gp = (1ULL << caps->nr_gp) - 1, fixed = 0;
	int metric = metric_of(code);

	*why = PMUCTL_R_NO_ELIGIBLE_COUNTER;
	/* A byte of PERF_METRICS: no filter of its own, nothing else counts it. */
	if (metric >= 0) {
		if (!(caps->flags & PMUCTL_CAP_PERF_METRICS) ||
		    (u32)metric >= m->nr_metrics) {
			*why = PMUCTL_R_METRICS_UNAVAILABLE;
			return 0;
		}
		if ((config & CFG_NOT_FIXED) || (flags & PMUCTL_EVENT_GENERIC_ONLY))
			return 0;
		return 1ULL << (PMUCTL_IDX_METRIC + metric);
	}
	for (i = 0; i < nfe; i++)
		if (code == fe[i].code && !(config & CFG_NOT_FIXED) &&
		    (caps->fixed_mask & (1U << fe[i].idx)))
			fixed |= 1ULL << (PMUCTL_IDX_FIXED + fe[i].idx);
	if (flags & PMUCTL_EVENT_GENERIC_ONLY)
		fixed = 0;

	if (!(config & PMUCTL_CFG_EVENT))
		gp = 0;
	for (i = 0; i < PMUCTL_NELEM(arch_code); i++) {
		if (code == arch_code[i] && (caps->events_unavailable & (1U << i))) {
			if (gp)
				*why = PMUCTL_R_EVENT_UNAVAILABLE;
			gp = 0;
		}
	}
	/*
	 * Without a model table, nothing but what the SDM defines for all
	 * (with no second unit mask: that would be another event).
	 */
	if (m->arch_only && gp &&
	    (!architectural(code) || (config & PMUCTL_CFG_UMASK2))) {
		*why = PMUCTL_R_NOT_ARCHITECTURAL;
		gp = 0;
	}
	/* The first matching constraint decides, as in Linux. */
	for (i = 0; i < m->nr_cons; i++) {
		if (cons_match(&m->cons[i], code)) {
			gp &= m->cons[i].gp;
			break;
		}
	}
	return gp | fixed;
}

/*
 * The extra MSR @config selects, as an index into m->xregs, or -1; *@valid
 * receives the bits that event may write there.
 */
static int xreg_find(const struct pmuctl_model *m, u64 config, u64 *valid)
{
	u32 i;

	for (i = 0; i < m->nr_xregs; i++) {
		if (m->xregs[i].code == (config & CFG_CODE)) {
			*valid = m->xregs[i].valid;
			return i;
		}
	}
	for (i = 0; i < m->nr_xsels; i++) {
		if (m->xsels[i].code == (config & CFG_CODE)) {
			*valid = m->xsels[i].valid & m->xregs[m->xsels[i].xreg].valid;
			return m->xsels[i].xreg;
		}
	}
	return -1;
}

/* The rules of OFFCORE_RSP values [PFM: libpfm_intel_knm(3); FACTS 2]. */
static int offcore_check(const struct pmuctl_model *m,
			 const struct pmuctl_xreg *x, u64 extra,
			 struct pmuctl_class *cls, u32 *reason)
{
	u64 response = extra & (m->ofc_response | m->ofc_any_response);

	if (m->ofc_outstanding && (extra & m->ofc_outstanding) &&
	    x->kind == PMUCTL_XK_RSP1)
		return refuse(reason, PMUCTL_R_OUTSTANDING_ON_RSP1);
	if (extra & ~x->valid)
		return refuse(reason, PMUCTL_R_EXTRA_MASK);
	if (!(extra & m->ofc_request))
		return refuse(reason, PMUCTL_R_OFFCORE_NO_REQUEST);

	if (m->ofc_outstanding && (extra & m->ofc_outstanding)) {
		if (response)
			return refuse(reason, PMUCTL_R_OUTSTANDING_WITH_RESPONSE);
		cls->outstanding = true;
		return 0;
	}
	if (!response)
		return refuse(reason, PMUCTL_R_OFFCORE_NO_RESPONSE);
	if ((extra & m->ofc_any_response) && (extra & m->ofc_response))
		return refuse(reason, PMUCTL_R_OFFCORE_ANY_RESPONSE_MIXED);
	return 0;
}

/**
 * pmuctl_event_classify() - validate one event and say where it may go
 * @m:		the PMU model
 * @caps:	the PMU's capabilities
 * @policy:	PMUCTL_POLICY_* of the session asking
 * @config:	PERFEVTSEL image without EN and INT
 * @extra:	value for the event's extra MSR, 0 if it has none
 * @flags:	PMUCTL_EVENT_*
 * @cls:	filled on success
 * @reason:	PMUCTL_R_* on failure
 *
 * The checks run in this order, the first broken rule is reported:
 * KERNEL_BITS, PIN_CONTROL, RESERVED_BITS, UMASK2_UNAVAILABLE,
 * EQ_UNAVAILABLE, NO_PRIV_LEVEL, UNPRIV_KERNEL_MODE,
 * UNPRIV_ANY_THREAD, EDGE_NO_CMASK, EVENT_UNAVAILABLE or (generic model)
 * NOT_ARCHITECTURAL or (a topdown metric) METRICS_UNAVAILABLE,
 * NO_ELIGIBLE_COUNTER, METRICS_UNAVAILABLE (task scope), ANY_NOT_ALLOWED,
 * EXTRA_UNSUPPORTED, then the extra value: EXTRA_UNEXPECTED, or for
 * OFFCORE_RSP: OUTSTANDING_ON_RSP1, EXTRA_MASK, OFFCORE_NO_REQUEST,
 * OUTSTANDING_WITH_RESPONSE, OFFCORE_NO_RESPONSE,
 * OFFCORE_ANY_RESPONSE_MIXED; for other extra MSRs: EXTRA_MASK.
 *
 * Return: 0, or -EINVAL with *reason set.
 */
int pmuctl_event_classify(const struct pmuctl_model *m,
			  const struct pmuctl_caps *caps, u32 policy,
			  u64 config, u64 extra, u32 flags,
			  struct pmuctl_class *cls, u32 *reason)
{
	u64 valid;
	u32 why, i;
	int x;

	*cls = (struct pmuctl_class){ .xreg = -1 };
	*reason = PMUCTL_R_NONE;

	if (flags & ~PMUCTL_EVENT_FLAGS_ALL)
		return refuse(reason, PMUCTL_R_BAD_FLAGS);
	if (config & CFG_KERNEL)
		return refuse(reason, PMUCTL_R_KERNEL_BITS);
	if (config & PMUCTL_CFG_PC)
		return refuse(reason, PMUCTL_R_PIN_CONTROL);
	if (config & ~CFG_USER)
		return refuse(reason, PMUCTL_R_RESERVED_BITS);
	if ((config & PMUCTL_CFG_UMASK2) && !(caps->flags & PMUCTL_CAP_UMASK2))
		return refuse(reason, PMUCTL_R_UMASK2_UNAVAILABLE);
	if ((config & PMUCTL_CFG_EQ) && !(caps->flags & PMUCTL_CAP_EQ))
		return refuse(reason, PMUCTL_R_EQ_UNAVAILABLE);
	if (!(config & (PMUCTL_CFG_USR | PMUCTL_CFG_OS)))
		return refuse(reason, PMUCTL_R_NO_PRIV_LEVEL);
	if ((policy & PMUCTL_POLICY_UNPRIV) && (config & PMUCTL_CFG_OS))
		return refuse(reason, PMUCTL_R_UNPRIV_KERNEL_MODE);
	if ((policy & (PMUCTL_POLICY_UNPRIV | PMUCTL_POLICY_NO_ANY)) &&
	    (config & PMUCTL_CFG_ANY))
		return refuse(reason, PMUCTL_R_UNPRIV_ANY_THREAD);
	if ((config & PMUCTL_CFG_EDGE) && !(config & PMUCTL_CFG_CMASK))
		return refuse(reason, PMUCTL_R_EDGE_NO_CMASK);

	cls->counters = eligible(m, caps, config, flags, &why);
	if (policy & PMUCTL_POLICY_NO_PMC3)
		cls->counters &= ~(1ULL << 3);
	if (!cls->counters)
		return refuse(reason, why);
	if ((policy & PMUCTL_POLICY_NO_METRICS) &&
	    (cls->counters & PMUCTL_METRIC_MASK))
		return refuse(reason, PMUCTL_R_METRICS_UNAVAILABLE);

	if (config & PMUCTL_CFG_ANY) {
		u64 ok = 0;

		if (caps->flags & PMUCTL_CAP_ANY_THREAD) {
			ok = (u64)m->any_fixed << PMUCTL_IDX_FIXED;
			if (m->any_gp)
				ok |= (1ULL << PMUCTL_IDX_FIXED) - 1;
		}
		if (!(cls->counters & ok))
			return refuse(reason, PMUCTL_R_ANY_NOT_ALLOWED);
		cls->counters &= ok;
	}

	for (i = 0; i < m->nr_unsupported; i++)
		if ((config & CFG_CODE) == m->unsupported[i])
			return refuse(reason, PMUCTL_R_EXTRA_UNSUPPORTED);
	x = xreg_find(m, config, &valid);
	if (x < 0)
		return extra ? refuse(reason, PMUCTL_R_EXTRA_UNEXPECTED) : 0;
	cls->xreg = x;

	if (m->xregs[x].kind == PMUCTL_XK_RSP0 ||
	    m->xregs[x].kind == PMUCTL_XK_RSP1) {
		int ret = offcore_check(m, &m->xregs[x], extra, cls, reason);

		if (!ret && !cls->counters)
			return refuse(reason, PMUCTL_R_NO_ELIGIBLE_COUNTER);
		return ret;
	}
	if (extra & ~valid)
		return refuse(reason, PMUCTL_R_EXTRA_MASK);
	return 0;
}
