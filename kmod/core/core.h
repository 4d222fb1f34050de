/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctl core: the rules of the Intel core PMU as pure functions over plain
 * data.  No allocation, no locks, no printing, no hardware access: the same
 * objects link into pmuctl.ko and into the user-space tests and tool.
 *
 * Every function returns 0 or a negative errno; where a user request is
 * refused, *reason receives a PMUCTL_R_* code naming the rule and, for
 * groups, *index the event that broke it.
 */
#ifndef PMUCTL_CORE_H
#define PMUCTL_CORE_H

#include "core_types.h"

/* The ABI's sizes, pinned for the kernel and for every user of the core. */
static_assert(sizeof(struct pmuctl_event) == 56, "pmuctl_event size");
static_assert(sizeof(struct pmuctl_caps) == 48, "pmuctl_caps size");
static_assert(sizeof(struct pmuctl_info) == 144, "pmuctl_info size");
static_assert(sizeof(struct pmuctl_program) == 72, "pmuctl_program size");
static_assert(sizeof(struct pmuctl_ctl) == 24, "pmuctl_ctl size");
static_assert(sizeof(struct pmuctl_holding) == 352, "pmuctl_holding size");
static_assert(sizeof(struct pmuctl_holding) == PMUCTL_HOLDING_SIZE_VER1, "holding v1");
static_assert(offsetof(struct pmuctl_holding, pmu_model) == PMUCTL_HOLDING_SIZE_VER0,
	      "holding v0 is a prefix of v1");
static_assert(sizeof(struct pmuctl_read) == 48, "pmuctl_read size");
static_assert(sizeof(struct pmuctl_thread) == 16, "pmuctl_thread size");
static_assert(sizeof(struct pmuctl_threads) == 56, "pmuctl_threads size");

/*
 * Counter index space, as in Linux (INTEL_PMC_IDX_FIXED): generic counter i
 * is index i, fixed counter i is index PMUCTL_IDX_FIXED + i.  One u64 mask
 * describes any set of counters.
 */
#define PMUCTL_MAX_GP		32
#define PMUCTL_MAX_FIXED	16
#define PMUCTL_IDX_FIXED	32
#define PMUCTL_IDX_MAX		(PMUCTL_IDX_FIXED + PMUCTL_MAX_FIXED)
/*
 * Topdown metric i has index PMUCTL_IDX_METRIC + i (Linux's
 * INTEL_PMC_IDX_METRIC_BASE): not a counter but a byte of PERF_METRICS,
 * held with it; the counters are below PMUCTL_IDX_MAX, every index below
 * PMUCTL_IDX_ALL.
 */
#define PMUCTL_IDX_METRIC	PMUCTL_IDX_MAX
#define PMUCTL_MAX_METRICS	8
#define PMUCTL_IDX_ALL		(PMUCTL_IDX_METRIC + PMUCTL_MAX_METRICS)
#define PMUCTL_METRIC_MASK	(((1ULL << PMUCTL_MAX_METRICS) - 1) << PMUCTL_IDX_METRIC)
#define PMUCTL_SLOTS_CODE	0x0400	/* TOPDOWN.SLOTS, fixed counter 3 */
#define PMUCTL_XREG_MAX		4	/* extra MSRs a model may have */

/*
 * What the legacy MSR ranges can address [SDM vol. 4; Linux 6.12
 * msr-index.h]: IA32_PERFEVTSEL0-7 0x186-0x18d and IA32_PMC0-7 0xc1-0xc8
 * (past them lie IA32_PERF_STATUS 0x198, IA32_PERF_CTL 0x199,
 * IA32_CLOCK_MODULATION 0x19a, IA32_MISC_ENABLE 0x1a0 and
 * MSR_PLATFORM_INFO 0xce), IA32_FIXED_CTR0-3 0x309-0x30c (Linux 6.12 names
 * no core-PMU register at 0x30d and up, only NetBurst's MSR_P4_IQ_PERFCTR1-5).
 * pmuctl_caps_decode() clamps the counters of a PMU before v6 to these;
 * perfmon v6 addresses every counter at 0x1900 and up (kmod/msr.c), where
 * the index space is the limit (PMUCTL_MAX_GP, PMUCTL_MAX_FIXED).
 */
#define PMUCTL_LEGACY_GP	8
#define PMUCTL_LEGACY_FIXED	4

/* INFO reports every counter index and every extra MSR. */
static_assert(PMUCTL_HOLDING_COUNTERS == PMUCTL_IDX_MAX, "holding counters");
static_assert(PMUCTL_HOLDING_XREGS == PMUCTL_XREG_MAX, "holding xregs");

/* Raw CPUID (and PERF_CAPABILITIES) values, as read on one CPU. */
struct pmuctl_cpuid {
	u32 max_leaf;		/* CPUID.0:EAX */
	u32 vendor[3];		/* CPUID.0:EBX, EDX, ECX */
	u32 leaf1_eax;		/* family, model, stepping */
	u32 leaf1_ecx;		/* bit 15: PDCM, PERF_CAPABILITIES exists */
	u32 leafa_eax;
	u32 leafa_ebx;
	u32 leafa_ecx;
	u32 leafa_edx;
	u32 leaf7_edx;		/* CPUID.(7,0):EDX, 0 when max_leaf < 7 */
	u64 perf_capabilities;	/* only looked at when PDCM is set */
	/* The leaves of hybrid CPUs and of the perfmon extension; 0 when absent. */
	u32 leaf7_1_eax;	/* CPUID.(7,1):EAX: bit 8, leaf 23H exists */
	u32 leaf1a_eax;		/* CPUID.1AH:EAX: core type, native model id */
	u32 leaf23_eax;		/* CPUID.(23H,0):EAX: bit 1, sub-leaf 1 valid */
	u32 leaf23_ebx;		/* CPUID.(23H,0):EBX: bit 0 UMASK2, bit 1 EQ */
	u32 leaf23_1_eax;	/* CPUID.(23H,1):EAX: generic counter bitmap */
	u32 leaf23_1_ebx;	/* CPUID.(23H,1):EBX: fixed counter bitmap */
};

int pmuctl_caps_decode(const struct pmuctl_cpuid *id, struct pmuctl_caps *caps,
		       u32 *reason);

/* Kinds of extra MSR. */
enum pmuctl_xkind {
	PMUCTL_XK_RSP0,		/* MSR_OFFCORE_RSP_0 */
	PMUCTL_XK_RSP1,		/* MSR_OFFCORE_RSP_1 */
	PMUCTL_XK_FRONTEND,	/* MSR_PEBS_FRONTEND */
	PMUCTL_XK_LDLAT,	/* MSR_PEBS_LD_LAT_THRESHOLD */
};

/* An extra MSR and the event (event | umask << 8) that selects it. */
struct pmuctl_xreg {
	u16 code;
	u16 msr;
	u64 valid;		/* bits that may be written */
	u8 kind;		/* enum pmuctl_xkind */
	s8 alt;			/* index of the other OFFCORE_RSP register, -1 none */
};

/*
 * Generic counters an event may use (Linux's INTEL_EVENT_CONSTRAINT,
 * INTEL_UEVENT_CONSTRAINT and INTEL_EVENT_CONSTRAINT_RANGE).  As in Linux
 * (x86_get_event_constraints), the first entry that matches decides; an
 * event no entry matches may use every generic counter.
 */
struct pmuctl_constraint {
	u16 code;		/* event, or event | umask << 8; a range's first event */
	u16 match;		/* 0x00ff: event select only, 0xffff: with umask */
	u32 gp;			/* allowed generic counters */
	u16 last;		/* a range's last event select (match 0x00ff), 0: no range */
};

/*
 * An event encoding a fixed counter counts (Linux's FIXED_EVENT_CONSTRAINT):
 * @code is event | umask << 8, matched without edge, invert or cmask.  An
 * encoding with event select 0 is a pseudo encoding, fixed only.
 */
struct pmuctl_fixed_event {
	u16 code;
	u8 idx;			/* fixed counter number */
};

/*
 * A second event that selects an extra MSR (Linux lists several
 * INTEL_UEVENT_EXTRA_REG entries for one MSR_PEBS_FRONTEND from Golden
 * Cove on): it shares register @xreg's slot, with its own valid bits.
 */
struct pmuctl_xsel {
	u16 code;		/* event | umask << 8 */
	u8 xreg;		/* index into model->xregs */
	u64 valid;		/* bits that may be written with this event */
};

/* What CPUID cannot tell about a PMU. */
struct pmuctl_model {
	const char *name;	/* libpfm4's PMU name */
	u32 id;			/* PMUCTL_MODEL_* */
	bool any_gp;		/* AnyThread allowed on generic counters */
	u32 any_fixed;		/* fixed counters that may use AnyThread */
	const struct pmuctl_constraint *cons;
	u32 nr_cons;
	const struct pmuctl_xreg *xregs;
	u32 nr_xregs;
	const struct pmuctl_xsel *xsels;	/* more selectors of xregs */
	u32 nr_xsels;
	const struct pmuctl_fixed_event *fixed;	/* NULL: the architectural three */
	u32 nr_fixed;
	const u16 *unsupported;	/* codes selecting an extra MSR pmuctl does not own */
	u32 nr_unsupported;
	u64 ofc_request;	/* offcore request bits */
	u64 ofc_response;	/* supplier and snoop bits, ANY_RESPONSE excluded */
	u64 ofc_any_response;	/* the ANY_RESPONSE bit */
	u64 ofc_outstanding;	/* the OUTSTANDING bit, 0 if none */
	bool arch_only;		/* architectural and fixed-counter events only */
	u8 nr_metrics;		/* topdown metrics of PERF_METRICS, 0 none */
};

const struct pmuctl_model *pmuctl_model_match(u32 family, u32 model);
const struct pmuctl_model *pmuctl_model_for(const struct pmuctl_caps *caps);
const struct pmuctl_model *pmuctl_model_by_id(u32 id);
const struct pmuctl_model *pmuctl_model_by_name(const char *name);
extern const struct pmuctl_model *const pmuctl_models[];
extern const u32 pmuctl_nr_models;

/* Policy of the session asking. */
#define PMUCTL_POLICY_UNPRIV	(1U << 0)	/* user mode only, no AnyThread */
#define PMUCTL_POLICY_NO_PMC3	(1U << 1)	/* PMC3 withheld (TSX force abort) */
#define PMUCTL_POLICY_NO_ANY	(1U << 2)	/* no AnyThread (unprivileged, paranoid 1) */
#define PMUCTL_POLICY_NO_METRICS (1U << 3)	/* no topdown metric (task scope) */

/* What validation learns about one event. */
struct pmuctl_class {
	u64 counters;		/* counter indexes that can count it */
	s8 xreg;		/* index into model->xregs, -1 none */
	bool outstanding;	/* offcore OUTSTANDING (average latency) mode */
};

int pmuctl_event_abi_check(const struct pmuctl_event *ev, u32 *reason);
int pmuctl_event_classify(const struct pmuctl_model *m,
			  const struct pmuctl_caps *caps, u32 policy,
			  u64 config, u64 extra, u32 flags,
			  struct pmuctl_class *cls, u32 *reason);

/* Per-CPU accounting: who holds which counter, what each extra MSR holds. */
struct pmuctl_xslot {
	u64 value;
	u32 refcount;
};

struct pmuctl_cpu_state {
	u64 held;			/* the indexes whose owner is not 0 */
	u32 owner[PMUCTL_IDX_ALL];	/* session id, 0 = free */
	u8 xref[PMUCTL_IDX_ALL];	/* 1 + extra MSR the counter's event holds, 0 none */
	struct pmuctl_xslot x[PMUCTL_XREG_MAX];
};

/*
 * What a group must fit next to: the union of one or more CPUs' states,
 * so that one placement can be claimed on every target CPU.
 */
enum { PMUCTL_XV_FREE, PMUCTL_XV_HELD, PMUCTL_XV_CONFLICT };

struct pmuctl_view {
	u64 busy;			/* counter indexes held */
	u64 xvalue[PMUCTL_XREG_MAX];
	u8 xstate[PMUCTL_XREG_MAX];	/* PMUCTL_XV_* */
};

u64 pmuctl_cpu_held(const struct pmuctl_cpu_state *st);
void pmuctl_view_init(struct pmuctl_view *v);
void pmuctl_view_add(struct pmuctl_view *v, const struct pmuctl_cpu_state *st);

/* Where one event of a group goes. */
struct pmuctl_place {
	u64 config;		/* as programmed, after any OFFCORE_RSP move */
	u64 extra;
	u8 idx;			/* counter index */
	s8 xreg;		/* index into model->xregs, -1 none */
};

int pmuctl_group_schedule(const struct pmuctl_model *m,
			  const struct pmuctl_caps *caps, u32 policy,
			  const struct pmuctl_view *v,
			  const struct pmuctl_event *ev, u32 n,
			  struct pmuctl_place *place, u32 *reason, u32 *index);

int pmuctl_cpu_claim(struct pmuctl_cpu_state *st, u32 owner,
		     const struct pmuctl_place *place, u32 n);
int pmuctl_cpu_release(struct pmuctl_cpu_state *st, u32 owner,
		       const struct pmuctl_place *place, u32 n);

/* rdpmc ECX value of a counter index, and back. */
static inline u32 pmuctl_idx_to_counter(u32 idx)
{
	if (idx >= PMUCTL_IDX_METRIC)
		return PMUCTL_COUNTER_METRICS;
	if (idx >= PMUCTL_IDX_FIXED)
		return PMUCTL_COUNTER_FIXED | (idx - PMUCTL_IDX_FIXED);
	return idx;
}

#endif /* PMUCTL_CORE_H */
