// SPDX-License-Identifier: GPL-2.0
/*
 * Differential test of the pmuctl core against libpfm4.
 *
 * For each PMU libpfm4 and pmuctl share (knm, knl, skl, icl, icx, spr),
 * every event and every umask of libpfm4's table is combined with the
 * modifiers (u, k, c=1, e with and without c, i, t, intx, intxcp, ldlat,
 * fe_thres where the PMU has them), and for OFFCORE_RESPONSE_x with
 * request/response pairs, ANY_RESPONSE plus a supplier or snoop, and
 * OUTSTANDING alone and with requests and responses.  Where libpfm4's
 * offcore umasks are whole values (request and response in one, as on
 * Ice Lake and Sapphire Rapids), the offcore fields are probed bit by bit
 * with raw umasks instead (offcore_raw_combos()).  Each string goes to
 * libpfm4 directly, to libpmuctl's resolver (pmuctl_event_resolve(), which
 * every pmuctl command uses; user/pfm.c is its libpfm4 bridge) and to the
 * core:
 *
 *  1. what libpfm4 encodes, the resolver must give back bit for bit (less
 *     EN and INT, and with the corrections of bridge_want()), and the core
 *     must accept, with the extra value in the MSR libpfm4 implies, and
 *     place alone on an empty CPU; where libpfm4 composes a value no CPU
 *     counts (Skylake's snoop without a supplier, bridge_refuses()), the
 *     resolver must refuse it, saying libpfm4 added ANY_RESPONSE;
 *  2. what libpfm4 refuses for a rule the core also owns, the core must
 *     refuse, given the bridge's literal composition, with that rule's
 *     reason;
 *  3. every case where the two disagree on purpose is in disagreements[]
 *     with the reason, and every entry there must still occur;
 *  4. 'pmuctl check' (build/bin/pmuctl, or $PMUCTL), given every string
 *     of a PMU at once, must print for each the encoding the resolver gave
 *     ("ok COUNTER CONFIG EXTRA") or the same refusal: the resolver's
 *     message, or the core's reason for the resolver's encoding
 *     (check_matches_library; the *_4gp variants repeat the strings of
 *     knm, knl with other caps and are not run through check again).
 *
 * Runs anywhere: libpfm4 is forced to each PMU, the caps stand in for
 * CPUID as the module's register model has them.
 */
#define _GNU_SOURCE		/* FNM_CASEFOLD */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <perfmon/pfmlib.h>

#include "kselftest_harness.h"

#include "core.h"
#include "diff.h"
#include "libpmuctl.h"
#include "pfm.h"

#define SEL_INT_EN	(PMUCTL_CFG_INT | PMUCTL_CFG_EN)

/* KNL/KNM and Skylake offcore fields (FACTS.md 2), to sort libpfm4's umasks. */
#define OFC_REQUEST		0xffffULL
#define OFC_ANY_RESPONSE	(1ULL << 16)
#define OFC_SUPPLIER		0x7ffe0000ULL		/* bits 17..30 */
#define OFC_SNOOP		0x3f80000000ULL		/* bits 31..37 */

/* ------------------------------------------------------------------ */
/* Combinations                                                        */
/* ------------------------------------------------------------------ */

/* What the core must say when libpfm4 refuses a combination. */
#define NOT_OWNED	0xffffffffU	/* libpfm4's own rule: not compared */

struct combo {
	const char *pmu;
	const char *event;	/* libpfm4's event name */
	char str[256];		/* "EVENT[:attr...]", no PMU prefix */
	u32 expect;		/* PMUCTL_R_* if libpfm4 refuses, or NOT_OWNED */
	char twin[256];		/* @str without t where expect is ANY_NOT_ALLOWED, or "" */
	bool check;		/* also through 'pmuctl check' (rule 4) */
};

/* What each side made of one combination. */
struct verdict {
	u32 expect;		/* what the core must say if libpfm4 refuses (twin_expect()) */
	bool pfm_ok;		/* libpfm4 accepted */
	int pfm_err;
	uint64_t pfm_config, pfm_extra;
	int pfm_count;
	int bridge;		/* pmuctl_event_resolve() return */
	uint64_t config, extra;	/* from the resolver */
	bool want_refused;	/* the resolver must refuse it (bridge_refuses()) */
	char msg[512];		/* as 'pmuctl check' keeps it */
	int core;		/* pmuctl_event_classify() return */
	u32 reason;
	struct pmuctl_class cls;
	u32 want_msr;		/* the MSR libpfm4 implies, 0 none */
	u32 got_msr;		/* the MSR the core chose, 0 none */
	int sched;		/* place_alone(), if core == 0 */
	u32 sched_reason;
};

enum dir {
	LIBPFM_ACCEPTS,		/* libpfm4 encodes it, the core refuses */
	LIBPFM_REFUSES,		/* libpfm4 refuses, the core says otherwise */
};

/*
 * Disagreements on purpose.  @pmus is a space-separated list; @glob
 * matches combo.str (case-insensitive fnmatch); @pred, if set, must also
 * hold; @reason is what the core says (PMUCTL_R_NONE: it accepts).
 */
struct disagreement {
	const char *pmus;
	enum dir dir;
	u32 reason;
	const char *glob;
	bool (*pred)(const struct combo *c, const struct verdict *v);
	const char *why;
	int line;
};

/* Event select 0: a pseudo encoding, fixed counters only [Linux 6.12]. */
static unsigned int pseudo_umask(const struct verdict *v)
{
	return (v->pfm_config & 0xff) ? 0 : (v->pfm_config >> 8) & 0xff;
}

/*
 * A fixed counter's pseudo encoding (Intel's event 0 umask N+1 for fixed
 * counter N) with edge, invert or a threshold.
 */
static bool icl_pseudo_eic(const struct combo *c, const struct verdict *v)
{
	unsigned int um = pseudo_umask(v);

	(void)c;
	return um >= 0x02 && um <= 0x04 &&
	       (v->pfm_config & (PMUCTL_CFG_EDGE | PMUCTL_CFG_INV | PMUCTL_CFG_CMASK));
}

/* A raw OFFCORE_RSP value (hex umask) with request bit 14. */
static bool raw_bit14(const struct combo *c, const struct verdict *v)
{
	return strstr(c->str, ":0x") && (v->pfm_extra & (1ULL << 14));
}

static bool raw_umask(const struct combo *c, const struct verdict *v)
{
	(void)v;
	return strstr(c->str, ":0x");
}

#define RAW_OFC_WHY(what)						\
	"a raw OFFCORE_RSP value with " what ": libpfm4 passes hex umasks below bit 38 unchecked; the core keeps Skylake's offcore rules (FACTS 2), which every OCR value of Intel's ICL (71), ICX (90) and SPR (71) lists satisfies (MSRValue of each icelake_core.json, icelakex_core.json, sapphirerapids_core.json event with MSRIndex 0x1a6/0x1a7)"

static const struct disagreement disagreements[] = {
	/* AnyThread on Knights Landing/Mill */
	{ "knl knm", LIBPFM_ACCEPTS, PMUCTL_R_ANY_NOT_ALLOWED, "*:t:c=1", NULL,
	  "libpfm4 takes t with c on the fixed-counter events; with c (or e, i) they need a generic counter, and pmuctl allows AnyThread on the KNL/KNM fixed counters only (the man page: t is for fixed counters)",
	  __LINE__ },
	{ "knl knm", LIBPFM_REFUSES, PMUCTL_R_NONE, "INST_RETIRED*:t*", NULL,
	  "libpfm4 has t on INSTRUCTION_RETIRED but not on INST_RETIRED:ANY_P, the same encoding 0x00c0; pmuctl judges the encoding: fixed counter 0 counts it with AnyThread",
	  __LINE__ },
	{ "knl knm", LIBPFM_REFUSES, PMUCTL_R_NONE, "CPU_CLK_UNHALTED*:t*", NULL,
	  "libpfm4 has t on UNHALTED_CORE_CYCLES but not on CPU_CLK_UNHALTED:THREAD_P, the same encoding 0x003c; fixed counter 1 counts it with AnyThread",
	  __LINE__ },
	/* OFFCORE_RSP_0 valid bits on Knights Landing/Mill */
	{ "knl knm", LIBPFM_ACCEPTS, PMUCTL_R_EXTRA_MASK, "OFFCORE_RESPONSE_0*:*STREAMING_STORES*", NULL,
	  "MSR_OFFCORE_RSP_0 has no bits 11 and 14 (Linux valid mask 0x799ffbb6e7, FACTS 2), yet libpfm4 offers the RSP_1-only streaming-store requests on OFFCORE_RESPONSE_0",
	  __LINE__ },
	{ "knl knm", LIBPFM_ACCEPTS, PMUCTL_R_EXTRA_MASK, "OFFCORE_RESPONSE_0*:*PARTIAL_WRITES*", NULL,
	  "MSR_OFFCORE_RSP_0 has no bit 8 (Linux valid mask 0x799ffbb6e7, FACTS 2), yet libpfm4 offers the RSP_1-only PARTIAL_WRITES on OFFCORE_RESPONSE_0",
	  __LINE__ },
	/* Skylake */
	{ "skl icl icx spr", LIBPFM_ACCEPTS, PMUCTL_R_RESERVED_BITS, "*:intx*", NULL,
	  "intx, intxcp set PERFEVTSEL bits 32, 33 (IN_TX, IN_TXCP); pmuctl_event.config bits 32..63 are reserved in ABI v1",
	  __LINE__ },
	/*
	 * libpfm4's Skylake ANY_REQUEST (0x18007) with a supplier, and a snoop
	 * without a supplier given the default ANY_RESPONSE, were mixes the
	 * core refused (OFFCORE_ANY_RESPONSE_MIXED): the resolver corrects the
	 * first and refuses the second (bridge_want_extra(), bridge_refuses()).
	 */
	{ "skl", LIBPFM_REFUSES, PMUCTL_R_NONE, "FRONTEND_RETIRED*:*t*", NULL,
	  "libpfm4 has no t on FRONTEND_RETIRED; Skylake (perfmon v4) has AnyThread on every generic counter [SDM] and pmuctl allows it",
	  __LINE__ },
	/* Ice Lake, Ice Lake-SP, Sapphire Rapids */
	{ "icl icx spr", LIBPFM_ACCEPTS, PMUCTL_R_ANY_NOT_ALLOWED, "UNHALTED_REFERENCE_CYCLES:t*", NULL,
	  "libpfm4 gives t to UNHALTED_REFERENCE_CYCLES (fixed counter 2) on these perfmon v5 PMUs, whose CPUID.0AH:EDX[15] deprecates AnyThread (Core i7-1065G7: EDX 0x8604); Linux 6.12 drops the any format there (intel_pmu_init, anythread_deprecated) and pmuctl allows AnyThread on no counter of them",
	  __LINE__ },
	/*
	 * libpfm4 4.13 writes the TOPDOWN umasks of event 0xa4 with event
	 * select 0; the bridge writes 0xa4 (bridge_want()), so they agree.
	 */
	{ "icl icx spr", LIBPFM_ACCEPTS, PMUCTL_R_NO_ELIGIBLE_COUNTER, "*", icl_pseudo_eic,
	  "libpfm4 gives e, i and c to events it encodes as a fixed counter's pseudo encoding (CPU_CLK_UNHALTED:REF_TSC 0x0300, TOPDOWN:SLOTS 0x0400; spr's CPU_CLK_UNHALTED:THREAD 0x0200): a fixed counter has no edge, invert or threshold (IA32_FIXED_CTR_CTRL: OS, USR, AnyThread, PMI [SDM]) and event select 0 counts nothing on a generic counter",
	  __LINE__ },
	{ "spr", LIBPFM_ACCEPTS, PMUCTL_R_EXTRA_UNEXPECTED, "EXE*", NULL,
	  "libpfm4 flags EXE (0x02b7, EXE.AMX_BUSY) INTEL_X86_NHM_OFFCORE and emits its umask 0x2 as a second code; on Sapphire Rapids event 0xb7 selects no extra MSR (Linux 6.12 intel_glc_extra_regs: 0x012a, 0x012b, 0x01c6, 0x01cd; Intel's EXE.AMX_BUSY has no MSRIndex)",
	  __LINE__ },
	{ "icl icx", LIBPFM_ACCEPTS, PMUCTL_R_EXTRA_MASK, "*", raw_bit14,
	  "OFFCORE_RSP bit 14 is reserved on Ice Lake (Linux 6.12 intel_icl_extra_regs valid mask 0x3fffffbfff; no OCR value in Intel's ICL and ICX lists sets it), yet libpfm4 passes it in a hex umask",
	  __LINE__ },
	{ "icl icx spr", LIBPFM_ACCEPTS, PMUCTL_R_OFFCORE_NO_REQUEST, "*", raw_umask,
	  RAW_OFC_WHY("no request bit"), __LINE__ },
	{ "icl icx spr", LIBPFM_ACCEPTS, PMUCTL_R_OFFCORE_NO_RESPONSE, "*", raw_umask,
	  RAW_OFC_WHY("no response bit"), __LINE__ },
	{ "icl icx spr", LIBPFM_ACCEPTS, PMUCTL_R_OFFCORE_ANY_RESPONSE_MIXED, "*", raw_umask,
	  RAW_OFC_WHY("ANY_RESPONSE and a supplier or snoop bit"), __LINE__ },
};

/*
 * The PMUs, one row each: the variants, their number and the totals follow
 * from this table.  The caps stand in for CPUID (FACTS 1):
 *
 *   X(variant, libpfm4 PMU = pmuctl model name, display model,
 *     perfmon version, generic counters, counter width (generic and
 *     fixed), fixed-counter bitmap, architectural events enumerated
 *     (CPUID.0AH:EAX[31:24]), PMUCTL_CAP_* flags)
 *
 * knm, knl: libpfm_intel_knm(3) says 4 generic counters, CPUID says 2; the
 * rules must not change with either.  icl, icx, spr: perfmon v5, 8 generic
 * and fixed counters 0-3 of 48 bits, 8 architectural events (TOPDOWN.SLOTS
 * included), AnyThread deprecated (CPUID.0AH:EDX[15]), full-width writes:
 * the Core i7-1065G7's leaf 0AH 08300805 00000000 0000000f 00008604
 * (libcpuid tests/intel/core_10th_gen/ice-lake-i7.test, caps_test.c);
 * Ice Lake-SP (0x6a) and Sapphire Rapids (0x8f) report the same leaf 0AH
 * [Linux 6.12 intel_pmu_init(): one v5 path for icl, icx, spr].
 */
#define CAPS_V3		PMUCTL_CAP_ANY_THREAD
#define CAPS_V5		(PMUCTL_CAP_ANY_DEPRECATED | PMUCTL_CAP_FULL_WIDTH_WRITE)

#define PFM_PMUS(X)							\
	X(knm,     "knm", 0x85, 3, 2, 40, 0x7, 7, CAPS_V3)		\
	X(knm_4gp, "knm", 0x85, 3, 4, 40, 0x7, 7, CAPS_V3)		\
	X(knl,     "knl", 0x57, 3, 2, 40, 0x7, 7, CAPS_V3)		\
	X(knl_4gp, "knl", 0x57, 3, 4, 40, 0x7, 7, CAPS_V3)		\
	X(skl,     "skl", 0x55, 4, 4, 48, 0x7, 7, CAPS_V3)		\
	X(icl,     "icl", 0x7e, 5, 8, 48, 0xf, 8, CAPS_V5)		\
	X(icx,     "icx", 0x6a, 5, 8, 48, 0xf, 8, CAPS_V5)		\
	X(spr,     "spr", 0x8f, 5, 8, 48, 0xf, 8, CAPS_V5)

#define PMU_INDEX(v, ...)	PMU_##v,
enum { PFM_PMUS(PMU_INDEX) NR_VARIANTS };

/* Where each PMU's combinations come from, and the caps to judge them. */
FIXTURE(pfm_diff) {
	const struct pmuctl_model *m;
	struct pmuctl_caps caps;
};

FIXTURE_VARIANT(pfm_diff) {
	int index;		/* into totals */
	const char *pmu;	/* libpfm4 PMU = pmuctl model name */
	u8 model;
	u8 version;
	u8 nr_gp;
	u8 width;		/* generic and fixed */
	u8 fixed_mask;
	u8 nr_arch;		/* CPUID.0AH:EAX[31:24] */
	u32 flags;		/* PMUCTL_CAP_* */
};

#define PMU_VARIANT(v, name, mod, ver, gp, w, fixed, arch, fl)		\
	FIXTURE_VARIANT_ADD(pfm_diff, v) {				\
		.index = PMU_##v, .pmu = name, .model = mod, .version = ver, \
		.nr_gp = gp, .width = w, .fixed_mask = fixed,		\
		.nr_arch = arch, .flags = fl,				\
	};
PFM_PMUS(PMU_VARIANT)

/* Counts survive the harness's fork per test: a shared page. */
struct totals {
	unsigned long accepted[NR_VARIANTS];	/* libpfm4 encodings compared */
	unsigned long refused[NR_VARIANTS];	/* libpfm4 refusals checked */
	unsigned long not_owned[NR_VARIANTS];	/* refusals for libpfm4-only rules */
	unsigned long checked[NR_VARIANTS];	/* strings pmuctl check agreed on */
	bool ran[NR_VARIANTS];
};

static struct totals *totals;

static void __attribute__((constructor)) totals_map(void)
{
	totals = shared_page(sizeof(*totals));
}

FIXTURE_SETUP(pfm_diff)
{
	int ret = pmuctl_pfm_init(variant->pmu);

	ASSERT_EQ(0, ret) TH_LOG("pmuctl_pfm_init(%s): %s", variant->pmu, strerror(-ret));
	self->m = pmuctl_model_by_name(variant->pmu);
	ASSERT_NE(NULL, self->m);
	self->caps = (struct pmuctl_caps){
		.family = 6, .model = variant->model, .version = variant->version,
		.nr_gp = variant->nr_gp, .gp_width = variant->width,
		/* the highest fixed counter present + 1 */
		.nr_fixed = 32 - __builtin_clz(variant->fixed_mask),
		.fixed_width = variant->width, .fixed_mask = variant->fixed_mask,
		/* the events at and past CPUID.0AH:EAX[31:24] are absent */
		.events_unavailable = ~((1U << variant->nr_arch) - 1),
		.flags = variant->flags,
	};
	ASSERT_NE(NULL, totals);
}

FIXTURE_TEARDOWN(pfm_diff)
{
}

/* ------------------------------------------------------------------ */
/* Running one combination                                             */
/* ------------------------------------------------------------------ */

/*
 * The MSR libpfm4's encoding implies for its extra value, by the event
 * select and umask it encoded (not by its event name: libpfm4 4.13's
 * Sapphire Rapids OFFCORE_RESPONSE_1 encodes 0x012a, OCR's code, although
 * its table says 0x012b).  FACTS 2; Linux 6.12 intel/core.c extra_regs:
 * intel_knl_extra_regs, intel_skl_extra_regs, intel_icl_extra_regs,
 * intel_glc_extra_regs (Sapphire Rapids).
 */
static const struct {
	u32 code;		/* umask << 8 | event */
	u32 msr;
} pfm_xmsr[] = {
	{ 0x01b7, 0x1a6 },	/* OFFCORE_RESPONSE_0: KNL, SKL, ICL */
	{ 0x02b7, 0x1a7 },	/* OFFCORE_RESPONSE_1: KNL/KNM */
	{ 0x01bb, 0x1a7 },	/* OFFCORE_RESPONSE_1: SKL, ICL */
	{ 0x012a, 0x1a6 },	/* OCR, OFFCORE_RESPONSE_0: SPR */
	{ 0x012b, 0x1a7 },	/* OFFCORE_RESPONSE_1: SPR */
	{ 0x01c6, 0x3f7 },	/* FRONTEND_RETIRED: MSR_PEBS_FRONTEND */
	{ 0x01cd, 0x3f6 },	/* MEM_TRANS_RETIRED.LOAD_LATENCY: PEBS_LD_LAT */
};

static u32 pfm_msr(uint64_t config, int count)
{
	size_t i;

	if (count < 2)
		return 0;
	for (i = 0; i < PMUCTL_NELEM(pfm_xmsr); i++)
		if (pfm_xmsr[i].code == (config & 0xffff))
			return pfm_xmsr[i].msr;
	return 0xffffffff;	/* an extra value pmuctl does not know */
}

static int pfm_raw(const char *pmu, const char *str, uint64_t *config, uint64_t *extra,
		   int *count)
{
	char qual[300];
	uint64_t codes[8] = { 0 };
	pfm_pmu_encode_arg_t arg = { .codes = codes, .count = 8, .size = sizeof(arg) };
	int ret;

	snprintf(qual, sizeof(qual), "%s::%s", pmu, str);
	ret = pfm_get_os_event_encoding(qual, PFM_PLM0 | PFM_PLM3, PFM_OS_NONE, &arg);
	if (ret != PFM_SUCCESS)
		return ret;
	*config = codes[0];
	*extra = arg.count > 1 ? codes[1] : 0;
	*count = arg.count;
	return 0;
}

/* Schedule the event alone on an empty CPU: it must stay as classified. */
static int place_alone(const struct pmuctl_model *m, const struct pmuctl_caps *caps,
		       struct verdict *v)
{
	struct pmuctl_event ev = { .config = v->config, .extra = v->extra };
	struct pmuctl_place place;
	struct pmuctl_view view;
	u32 index = 0;
	int ret;

	pmuctl_view_init(&view);
	ret = pmuctl_group_schedule(m, caps, 0, &view, &ev, 1, &place,
				    &v->sched_reason, &index);
	if (ret)
		return ret;
	if (place.config != v->config || place.extra != v->extra ||
	    place.xreg != v->cls.xreg || !(v->cls.counters & (1ULL << place.idx)))
		return -EDOM;
	return 0;
}

/*
 * libpfm4 refused t on an event that lacks it: AnyThread's rule comes
 * after the counter rules in the core's order, so where the string
 * without t (its twin) already breaks one of those, the core must name
 * that one.  The twin is a combination of its own, compared with libpfm4
 * (and listed where the core refuses what libpfm4 encodes).
 */
static u32 twin_expect(const struct pmuctl_model *m, const struct pmuctl_caps *caps,
		       const struct combo *c)
{
	struct pmuctl_class cls;
	uint64_t config, extra;
	char msg[160];
	u32 reason;

	if (c->expect != PMUCTL_R_ANY_NOT_ALLOWED || !c->twin[0] ||
	    pmuctl_pfm_encode(c->twin, &config, &extra, msg, sizeof(msg)) < 0 ||
	    !pmuctl_event_classify(m, caps, 0, config, extra, 0, &cls, &reason))
		return c->expect;
	switch (reason) {
	case PMUCTL_R_EDGE_NO_CMASK:
	case PMUCTL_R_EVENT_UNAVAILABLE:
	case PMUCTL_R_NOT_ARCHITECTURAL:
	case PMUCTL_R_NO_ELIGIBLE_COUNTER:
		return reason;
	}
	return c->expect;
}

static uint64_t bridge_want(const struct combo *c, uint64_t pfm_config);
static bool bridge_refuses(const struct combo *c, uint64_t pfm_config,
			   uint64_t pfm_extra);

/* The modifiers of enum modbit's names, by their name before any '='. */
static bool is_modifier(const char *attr, size_t len);

/*
 * libpfm4's encoding of @c->str without its modifiers: what the resolver
 * starts from when libpfm4 refuses the whole string.
 */
static bool pfm_umasks(const struct combo *c, uint64_t *config, uint64_t *extra)
{
	char base[256];
	const char *p = c->str;
	size_t off = 0;
	int n;

	while (*p && off < sizeof(base) - 1) {
		size_t len = strcspn(p + 1, ":") + 1;

		/* the event name, then each umask (not a modifier) */
		if (p == c->str || !is_modifier(p + 1, len - 1)) {
			n = snprintf(base + off, sizeof(base) - off, "%.*s", (int)len, p);
			off += (size_t)n;
		}
		p += len;
	}
	return !pfm_raw(c->pmu, base, config, extra, &n);
}

static void judge(const struct pmuctl_model *m, const struct pmuctl_caps *caps,
		  const struct combo *c, struct verdict *v)
{
	struct pmuctl_event ev;
	uint64_t ucfg, uextra;

	memset(v, 0, sizeof(*v));
	v->pfm_err = pfm_raw(c->pmu, c->str, &v->pfm_config, &v->pfm_extra,
			     &v->pfm_count);
	v->pfm_ok = !v->pfm_err;
	v->expect = v->pfm_ok ? NOT_OWNED : twin_expect(m, caps, c);
	if (v->pfm_ok)
		v->want_refused = bridge_refuses(c, v->pfm_config, v->pfm_extra);
	else
		v->want_refused = pfm_umasks(c, &ucfg, &uextra) &&
				  bridge_refuses(c, ucfg, uextra);
	/* the library's resolver, which every pmuctl command calls */
	v->bridge = pmuctl_event_resolve(m->id, c->str, &ev, v->msg, sizeof(v->msg));
	v->config = ev.config;
	v->extra = ev.extra;
	if (v->bridge < 0)
		return;
	v->core = pmuctl_event_classify(m, caps, 0, v->config, v->extra, 0,
					&v->cls, &v->reason);
	if (v->core)
		return;
	/* the MSR of what the bridge must program (bridge_want()) */
	v->want_msr = pfm_msr(bridge_want(c, v->pfm_config), v->pfm_count);
	v->got_msr = v->cls.xreg >= 0 ? m->xregs[v->cls.xreg].msr : 0;
	v->sched = place_alone(m, caps, v);
}

/* Is @e about @pmu? */
static bool for_pmu(const struct disagreement *e, const char *pmu)
{
	size_t n = strlen(pmu);
	const char *p;

	for (p = e->pmus; (p = strstr(p, pmu)); p += n)
		if ((p == e->pmus || p[-1] == ' ') && (!p[n] || p[n] == ' '))
			return true;
	return false;
}

/* The table entry that explains a disagreement, or NULL. */
static const struct disagreement *listed(const struct combo *c,
					 const struct verdict *v)
{
	enum dir d = v->pfm_ok ? LIBPFM_ACCEPTS : LIBPFM_REFUSES;
	u32 got = v->core ? v->reason : PMUCTL_R_NONE;
	size_t i;

	for (i = 0; i < PMUCTL_NELEM(disagreements); i++) {
		const struct disagreement *e = &disagreements[i];

		if (!for_pmu(e, c->pmu))
			continue;
		if (e->dir != d || e->reason != got)
			continue;
		if (fnmatch(e->glob, c->str, FNM_CASEFOLD))
			continue;
		if (e->pred && !e->pred(c, v))
			continue;
		return e;
	}
	return NULL;
}

/* Does the core's verdict differ from what libpfm4 implies? */
static bool differs(const struct combo *c, const struct verdict *v)
{
	(void)c;
	if (v->pfm_ok)
		return v->core != 0;
	if (v->expect == NOT_OWNED)
		return false;
	return (v->core ? v->reason : PMUCTL_R_NONE) != v->expect;
}

/* ------------------------------------------------------------------ */
/* Enumerating libpfm4's tables                                        */
/* ------------------------------------------------------------------ */

struct umask {
	char name[64];
	u64 code;
};

struct event {
	char name[64];
	u64 code;
	struct umask um[64];
	int nr_um;
	bool has[16];		/* by enum modbit */
};

enum modbit { M_U, M_K, M_E, M_I, M_C, M_T, M_INTX, M_INTXCP, M_LDLAT,
	      M_FE_THRES, M_NR };

static const char *const modname[M_NR] = {
	"u", "k", "e", "i", "c", "t", "intx", "intxcp", "ldlat", "fe_thres",
};

static bool is_modifier(const char *attr, size_t len)
{
	size_t n = strcspn(attr, "=");
	int k;

	if (n > len)
		n = len;
	for (k = 0; k < M_NR; k++)
		if (strlen(modname[k]) == n && !strncasecmp(attr, modname[k], n))
			return true;
	return false;
}

/* The modifier suffixes every event/umask gets, and what they need. */
static const struct suffix {
	const char *s;
	unsigned int uses;	/* 1 << enum modbit */
	const char *twin;	/* @s without t (twin_expect()) */
} suffixes[] = {
	{ "", 0, NULL },
	{ ":u", 1 << M_U, NULL },
	{ ":k", 1 << M_K, NULL },
	{ ":c=1", 1 << M_C, NULL },
	{ ":e:c=1", 1 << M_E | 1 << M_C, NULL },
	{ ":e", 1 << M_E, NULL },
	{ ":i", 1 << M_I, NULL },
	{ ":i:c=1", 1 << M_I | 1 << M_C, NULL },
	{ ":t", 1 << M_T, "" },
	{ ":t:u", 1 << M_T | 1 << M_U, ":u" },
	{ ":t:c=1", 1 << M_T | 1 << M_C, ":c=1" },
	{ ":intx", 1 << M_INTX, NULL },
	{ ":intxcp", 1 << M_INTXCP, NULL },
	{ ":ldlat=3", 1 << M_LDLAT, NULL },
	{ ":ldlat=65535", 1 << M_LDLAT, NULL },
	{ ":fe_thres=1", 1 << M_FE_THRES, NULL },
	{ ":fe_thres=4095", 1 << M_FE_THRES, NULL },
};

typedef void (*visit_fn)(void *ctx, const struct combo *c);

static int pmu_id(const char *name)
{
	pfm_pmu_info_t pi;
	int p;

	for (p = 0; p < PFM_PMU_MAX; p++) {
		memset(&pi, 0, sizeof(pi));
		pi.size = sizeof(pi);
		if (pfm_get_pmu_info(p, &pi) == PFM_SUCCESS && pi.name &&
		    !strcmp(pi.name, name))
			return p;
	}
	return -1;
}

static bool event_load(int idx, int pmu, struct event *e)
{
	pfm_event_info_t ei = { .size = sizeof(ei) };
	int a, k;

	if (pfm_get_event_info(idx, PFM_OS_NONE, &ei) != PFM_SUCCESS ||
	    (int)ei.pmu != pmu)
		return false;
	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", ei.name);
	e->code = ei.code;
	for (a = 0; a < ei.nattrs; a++) {
		pfm_event_attr_info_t ai = { .size = sizeof(ai) };

		if (pfm_get_event_attr_info(idx, a, PFM_OS_NONE, &ai) != PFM_SUCCESS)
			continue;
		if (ai.type == PFM_ATTR_UMASK && e->nr_um < (int)PMUCTL_NELEM(e->um)) {
			snprintf(e->um[e->nr_um].name, sizeof(e->um[0].name), "%s", ai.name);
			e->um[e->nr_um++].code = ai.code;
			continue;
		}
		for (k = 0; k < M_NR; k++)
			if (!strcmp(ai.name, modname[k]))
				e->has[k] = true;
	}
	return true;
}

static bool pfm_accepts(const char *pmu, const char *str)
{
	uint64_t c, x;
	int n;

	return !pfm_raw(pmu, str, &c, &x, &n);
}

/* Events whose libpfm4 umask codes are extra-MSR values, not umask bits. */
static bool is_offcore(const char *event)
{
	return !strncasecmp(event, "OFFCORE_RESPONSE_", 17) || !strcasecmp(event, "OCR");
}

static bool is_xevent(const char *event)
{
	return is_offcore(event) || !strcasecmp(event, "FRONTEND_RETIRED");
}

/*
 * What the core must say when libpfm4 refuses "base" + @sfx although it
 * accepts "base": the first broken rule in the core's documented order.
 */
static u32 suffix_expect(const struct event *e, const struct umask *um,
			 const struct suffix *sfx)
{
	bool edge = sfx->uses & 1 << M_E, cmask = sfx->uses & 1 << M_C;
	/*
	 * A umask that sets CMASK itself (code bits 16..23 = PERFEVTSEL
	 * 24..31); the umask codes of is_xevent()s are MSR values instead.
	 */
	bool um_cmask = um && !is_xevent(e->name) && ((um->code >> 16) & 0xff);
	bool missing_eic = false;
	int k;

	for (k = M_E; k <= M_C; k++)
		if ((sfx->uses & 1 << k) && !e->has[k])
			missing_eic = true;
	if (edge && !cmask && !um_cmask)
		return PMUCTL_R_EDGE_NO_CMASK;
	/* only UNHALTED_REFERENCE_CYCLES lacks e/i/c: fixed counter 2 only */
	if (missing_eic)
		return PMUCTL_R_NO_ELIGIBLE_COUNTER;
	if ((sfx->uses & 1 << M_T) && !e->has[M_T])
		return PMUCTL_R_ANY_NOT_ALLOWED;
	return NOT_OWNED;
}

static void emit(visit_fn fn, void *ctx, struct combo *c, u32 expect,
		 const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void emit(visit_fn fn, void *ctx, struct combo *c, u32 expect,
		 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->str, sizeof(c->str), fmt, ap);
	va_end(ap);
	c->expect = expect;
	fn(ctx, c);
}

/* An OFFCORE_RESPONSE_x umask by its bits (FACTS.md 2). */
enum ofc_kind { OK_OTHER, OK_REQ, OK_RESP, OK_ANY_RESP, OK_OUTSTANDING };

static enum ofc_kind ofc_kind(const struct umask *u)
{
	if (!strcasecmp(u->name, "ANY_RESPONSE"))
		return OK_ANY_RESP;
	if (!strcasecmp(u->name, "OUTSTANDING"))
		return OK_OUTSTANDING;
	if ((u->code & OFC_REQUEST) && !(u->code >> 17))
		return OK_REQ;
	if (!(u->code & (OFC_REQUEST | OFC_ANY_RESPONSE)) && u->code)
		return OK_RESP;
	return OK_OTHER;
}

static void offcore_combos(const struct event *e,
			   bool pmu_outstanding, visit_fn fn, void *ctx,
			   struct combo *c)
{
	const struct umask *req0 = NULL;
	bool own_outstanding = false, has_snoop_only = false;
	int i, j, k;

	for (i = 0; i < e->nr_um; i++) {
		if (ofc_kind(&e->um[i]) == OK_REQ && !req0)
			req0 = &e->um[i];
		if (ofc_kind(&e->um[i]) == OK_OUTSTANDING)
			own_outstanding = true;
		if (ofc_kind(&e->um[i]) == OK_RESP && !(e->um[i].code & OFC_SUPPLIER))
			has_snoop_only = true;
	}
	if (!req0)
		return;

	for (i = 0; i < e->nr_um; i++) {
		const struct umask *a = &e->um[i];

		if (ofc_kind(a) != OK_REQ)
			continue;
		/* request + each response, request + ANY_RESPONSE */
		for (j = 0; j < e->nr_um; j++) {
			const struct umask *b = &e->um[j];

			if (ofc_kind(b) == OK_RESP || ofc_kind(b) == OK_ANY_RESP)
				emit(fn, ctx, c, NOT_OWNED, "%s:%s:%s", e->name, a->name, b->name);
		}
		/* request + OUTSTANDING */
		if (own_outstanding)
			emit(fn, ctx, c, NOT_OWNED, "%s:%s:OUTSTANDING", e->name, a->name);
		else if (pmu_outstanding)
			emit(fn, ctx, c, PMUCTL_R_OUTSTANDING_ON_RSP1,
			     "%s:%s:OUTSTANDING", e->name, a->name);
	}
	if (!own_outstanding && pmu_outstanding)
		emit(fn, ctx, c, PMUCTL_R_OUTSTANDING_ON_RSP1, "%s:OUTSTANDING", e->name);

	for (j = 0; j < e->nr_um; j++) {
		const struct umask *b = &e->um[j];

		if (ofc_kind(b) != OK_RESP && ofc_kind(b) != OK_ANY_RESP)
			continue;
		/* ANY_RESPONSE with a supplier or snoop */
		if (ofc_kind(b) == OK_RESP)
			emit(fn, ctx, c, PMUCTL_R_OFFCORE_ANY_RESPONSE_MIXED,
			     "%s:%s:ANY_RESPONSE:%s", e->name, req0->name, b->name);
		/* OUTSTANDING with any response */
		if (own_outstanding)
			emit(fn, ctx, c, PMUCTL_R_OUTSTANDING_WITH_RESPONSE,
			     "%s:%s:OUTSTANDING:%s", e->name, req0->name, b->name);
		else if (pmu_outstanding)
			emit(fn, ctx, c, PMUCTL_R_OUTSTANDING_ON_RSP1,
			     "%s:%s:OUTSTANDING:%s", e->name, req0->name, b->name);
	}

	/* supplier + snoop, where the PMU has them apart (Skylake) */
	if (!has_snoop_only)
		return;
	for (j = 0; j < e->nr_um; j++) {
		if (ofc_kind(&e->um[j]) != OK_RESP || !(e->um[j].code & OFC_SUPPLIER))
			continue;
		for (k = 0; k < e->nr_um; k++) {
			if (ofc_kind(&e->um[k]) != OK_RESP || (e->um[k].code & OFC_SUPPLIER))
				continue;
			emit(fn, ctx, c, NOT_OWNED, "%s:%s:%s:%s", e->name, req0->name,
			     e->um[j].name, e->um[k].name);
		}
	}
}

/*
 * Ice Lake and Sapphire Rapids: libpfm4's offcore umasks are whole values
 * (OCR.<request>_<response>, request and response bits in one, none
 * combinable with another), so the pairs above do not arise.  Its raw
 * umasks (a hex value instead of a name, PFMLIB_PMU_FL_RAW_UMASK) go to
 * the MSR as given; with them the fields are probed bit by bit:
 *  - each bit 0..15 as a request, with ANY_RESPONSE (bit 16);
 *  - each bit 17 up as a response, with the table's lowest request bit
 *    (DEMAND_DATA_RD, bit 0);
 *  - the rules: no bit at all, a request alone, ANY_RESPONSE alone, the
 *    first supplier/snoop value of the table alone, and with ANY_RESPONSE.
 * Values libpfm4 refuses (raw umasks wider than 38 bits) are left out: the
 * bridge composes names, not numbers.
 */
#define OFC_RAW_BITS	64

static void offcore_raw_combos(const struct event *e, visit_fn fn, void *ctx,
			       struct combo *c)
{
	uint64_t req = 0, resp = 0, v[OFC_RAW_BITS + 8];
	int i, n = 0;

	for (i = 0; i < e->nr_um; i++) {
		uint64_t code = e->um[i].code;

		/* a response-only umask: pairs, not whole values */
		if (!(code & OFC_REQUEST))
			return;
		req |= code & OFC_REQUEST;
		if (!resp && (code >> 17))
			resp = code & ~(OFC_REQUEST | OFC_ANY_RESPONSE);
	}
	if (!req || !resp)
		return;
	req &= -req;		/* the lowest request bit of the table */
	for (i = 0; i < OFC_RAW_BITS; i++) {
		if (i == 16)
			continue;
		v[n++] = (1ULL << i) | (i < 16 ? OFC_ANY_RESPONSE : req);
	}
	v[n++] = 0;
	v[n++] = req;
	v[n++] = OFC_ANY_RESPONSE;
	v[n++] = resp;
	v[n++] = req | OFC_ANY_RESPONSE | resp;
	for (i = 0; i < n; i++) {
		char str[96];

		snprintf(str, sizeof(str), "%s:0x%" PRIx64, e->name, v[i]);
		if (pfm_accepts(c->pmu, str))
			emit(fn, ctx, c, NOT_OWNED, "%s", str);
	}
}

/* Every combination of one PMU, in a fixed order. */
static int each_combo(const char *pmu, visit_fn fn, void *ctx)
{
	static struct event e;
	pfm_pmu_info_t pi = { .size = sizeof(pi) };
	unsigned int pmu_mods = 0;
	bool pmu_outstanding = false;
	struct combo c = { .pmu = pmu };
	int p = pmu_id(pmu), idx, i, s, k, events = 0;

	if (p < 0 || pfm_get_pmu_info(p, &pi) != PFM_SUCCESS)
		return -1;

	/* The PMU's modifiers, and whether any offcore event has OUTSTANDING. */
	for (idx = pi.first_event; idx >= 0; idx = pfm_get_event_next(idx)) {
		if (!event_load(idx, p, &e))
			break;
		for (k = 0; k < M_NR; k++)
			if (e.has[k])
				pmu_mods |= 1U << k;
		for (i = 0; i < e.nr_um; i++)
			if (!strcasecmp(e.um[i].name, "OUTSTANDING"))
				pmu_outstanding = true;
	}

	for (idx = pi.first_event; idx >= 0; idx = pfm_get_event_next(idx)) {
		if (!event_load(idx, p, &e))
			break;
		events++;
		c.event = e.name;
		for (i = -1; i < e.nr_um; i++) {
			const struct umask *um = i < 0 ? NULL : &e.um[i];
			char base[128];

			snprintf(base, sizeof(base), "%s%s%s", e.name, um ? ":" : "",
				 um ? um->name : "");
			/* every event and umask through check; the modifiers on the event */
			c.check = true;
			/* a base libpfm4 refuses (no default umask) gets no modifiers */
			if (!pfm_accepts(pmu, base)) {
				emit(fn, ctx, &c, NOT_OWNED, "%s", base);
				continue;
			}
			for (s = 0; s < (int)PMUCTL_NELEM(suffixes); s++) {
				const struct suffix *sfx = &suffixes[s];

				/* only modifiers the PMU has; ldlat/fe_thres where the event has them */
				if ((sfx->uses & ~pmu_mods) ||
				    ((sfx->uses & (1 << M_LDLAT | 1 << M_FE_THRES)) &&
				     !(sfx->uses & 1 << M_LDLAT ? e.has[M_LDLAT] : e.has[M_FE_THRES])))
					continue;
				if (sfx->twin)
					snprintf(c.twin, sizeof(c.twin), "%s%s", base, sfx->twin);
				c.check = !*sfx->s || !um;
				emit(fn, ctx, &c, *sfx->s ? suffix_expect(&e, um, sfx) : NOT_OWNED,
				     "%s%s", base, sfx->s);
				c.twin[0] = '\0';
			}
		}
		if (is_offcore(e.name)) {
			c.check = true;
			offcore_combos(&e, pmu_outstanding, fn, ctx, &c);
			offcore_raw_combos(&e, fn, ctx, &c);
		}
	}
	return events;
}

/* ------------------------------------------------------------------ */
/* The tests                                                           */
/* ------------------------------------------------------------------ */

/* The strings for 'pmuctl check', and the line each must get. */
struct check_line {
	char *str;
	char want[600];		/* "ok CONFIG EXTRA" (the counter is not compared) or "error ..." */
};

struct run {
	struct __test_metadata *_metadata;
	const struct pmuctl_model *m;
	const struct pmuctl_caps *caps;
	unsigned long compared, refused, not_owned, listed, failed;
	unsigned long resolver_refused;	/* bridge_refuses() cases */
	unsigned long check_compared;	/* lines of pmuctl check compared */
	unsigned long hits[PMUCTL_NELEM(disagreements)];
	bool check;			/* collect check_lines */
	struct check_line *lines;
	size_t nr_lines, max_lines;
};

static void describe(const struct combo *c, const struct verdict *v, char *buf,
		     size_t len)
{
	int n;

	if (v->pfm_ok)
		n = snprintf(buf, len, "%s::%s: libpfm4 config %#" PRIx64 " extra %#"
			     PRIx64 " (%d codes)", c->pmu, c->str, v->pfm_config,
			     v->pfm_extra, v->pfm_count);
	else
		n = snprintf(buf, len, "%s::%s: libpfm4 refuses (%s)", c->pmu,
			     c->str, pfm_strerror(v->pfm_err));
	if (n > 0 && (size_t)n < len)
		snprintf(buf + n, len - n, "; bridge %d config %#" PRIx64 " extra %#"
			 PRIx64 "; core %d reason %u", v->bridge, v->config,
			 v->extra, v->core, v->reason);
}

/* Log the first few failures in full, count the rest (-DMAX_LOGGED=n: more). */
#ifndef MAX_LOGGED
#define MAX_LOGGED	20
#endif

#define fail(r, fmt, ...) do {						\
	struct __test_metadata *_metadata = (r)->_metadata;		\
	if (++(r)->failed <= MAX_LOGGED)					\
		TH_LOG(fmt, ##__VA_ARGS__);				\
} while (0)

/* Rule 1: every libpfm4 encoding is accepted, in the right MSR, placeable. */
/*
 * What the bridge must give for a string libpfm4 encodes: libpfm4's value,
 * but with event 0x2b for spr's OFFCORE_RESPONSE_1 (libpfm4 writes RSP_0's
 * 0x2a), and event 0xa4 for the TOPDOWN umasks libpfm4 4.13 writes with
 * event select 0 on icl, icx and spr (user/pfm.c topdown_fix(); Intel's
 * icelake_core.json and sapphirerapids_core.json: 0x02a4 BACKEND_BOUND,
 * 0x04a4 BAD_SPEC, 0x08a4 BR_MISPREDICT, 0x10a4 MEMORY_BOUND).
 */
static uint64_t bridge_want(const struct combo *c, uint64_t pfm_config)
{
	static const char *const a4[] = {
		":BACKEND_BOUND_SLOTS", ":BAD_SPEC_SLOTS", ":BR_MISPREDICT_SLOTS",
		":MEMORY_BOUND_SLOTS",
	};
	uint64_t want = pfm_config & ~SEL_INT_EN;

	/* spr's OFFCORE_RESPONSE_1 encodes 0x012a: the bridge writes 0x2b */
	if (!strcmp(c->pmu, "spr") && !strcasecmp(c->event, "OFFCORE_RESPONSE_1") &&
	    (want & 0xff) == 0x2a)
		return (want & ~0xffULL) | 0x2b;
	if (strcmp(c->pmu, "icl") && strcmp(c->pmu, "icx") && strcmp(c->pmu, "spr"))
		return want;
	if (strcasecmp(c->event, "TOPDOWN") || (want & 0xff))
		return want;
	for (size_t i = 0; i < sizeof(a4) / sizeof(a4[0]); i++) {
		const char *p = strcasestr(c->str, a4[i]);
		size_t n = strlen(a4[i]);

		if (p && (!p[n] || p[n] == ':'))
			return want | 0xa4;
	}
	return want;
}

/* Does the string name ANY_RESPONSE itself? */
static bool names_any_response(const struct combo *c)
{
	const char *p = c->str;

	while ((p = strcasestr(p, ":ANY_RESPONSE"))) {
		p += strlen(":ANY_RESPONSE");
		if (!*p || *p == ':')
			return true;
	}
	return false;
}

/* Skylake's OFFCORE_RESPONSE_0/1, by libpfm4's event select. */
static bool skl_offcore(const struct combo *c, uint64_t pfm_config)
{
	return !strcmp(c->pmu, "skl") &&
	       ((pfm_config & 0xff) == 0xb7 || (pfm_config & 0xff) == 0xbb);
}

/*
 * The extra value the resolver must give for libpfm4's: on skl, libpfm4's
 * ANY_REQUEST 0x18007 carries ANY_RESPONSE (bit 16), which next to a
 * supplier the resolver clears (user/pfm.c skl_any_request_fix(); Intel's
 * skylakex_core.json OFFCORE_RESPONSE.ALL_REQUESTS.* MSRValues end in
 * 0x8007, libpfm4's own uequiv is DMND_DATA_RD:DMND_RFO:DMND_CODE_RD:OTHER)
 * unless the string names ANY_RESPONSE.
 */
static uint64_t bridge_want_extra(const struct combo *c, uint64_t pfm_config,
				  uint64_t pfm_extra)
{
	if (skl_offcore(c, pfm_config) && (pfm_extra & OFC_ANY_RESPONSE) &&
	    (pfm_extra & OFC_SUPPLIER) && !names_any_response(c))
		return pfm_extra & ~OFC_ANY_RESPONSE;
	return pfm_extra;
}

/*
 * On skl, a snoop without a supplier, to which libpfm4 gave ANY_RESPONSE
 * (its default response, or ANY_REQUEST's bit 16) the string does not
 * name: a mix no Skylake counts, which the resolver refuses.
 */
static bool bridge_refuses(const struct combo *c, uint64_t pfm_config,
			   uint64_t pfm_extra)
{
	return skl_offcore(c, pfm_config) && (pfm_extra & OFC_ANY_RESPONSE) &&
	       (pfm_extra & OFC_SNOOP) && !(pfm_extra & OFC_SUPPLIER) &&
	       !names_any_response(c);
}

/* The resolver refused what it must, saying libpfm4 added ANY_RESPONSE. */
static bool refused_as_wanted(struct run *r, const struct combo *c,
			      const struct verdict *v)
{
	char d[512];

	if (!v->want_refused)
		return false;
	r->resolver_refused++;
	if (v->bridge != -EINVAL || !strstr(v->msg, "libpfm4 added ANY_RESPONSE")) {
		describe(c, v, d, sizeof(d));
		fail(r, "resolver does not refuse libpfm4's snoop without a supplier: %s (%s)",
		     d, v->msg);
	}
	return true;
}

/*
 * Rule 4: the line 'pmuctl check' must print for @c, from the resolver's
 * result and the core's verdict on its encoding (tool_check.c's
 * check_print(); the core's rules on check's default caps, which are the
 * variant's).  The counter is not compared: that is the scheduler's.
 */
static void check_add(struct run *r, const struct combo *c, const struct verdict *v)
{
	struct check_line *l;

	if (!r->check || !c->check)
		return;
	if (r->nr_lines == r->max_lines) {
		size_t max = r->max_lines ? 2 * r->max_lines : 4096;
		struct check_line *more = realloc(r->lines, max * sizeof(*more));

		if (!more) {
			fail(r, "out of memory for check's lines");
			r->check = false;
			return;
		}
		r->lines = more;
		r->max_lines = max;
	}
	l = &r->lines[r->nr_lines++];
	l->str = strdup(c->str);
	if (v->bridge < 0 && !v->msg[0])
		snprintf(l->want, sizeof(l->want), "error %s: %s: %s",
			 v->bridge == -ENOENT ? "UNKNOWN_EVENT" : "LIBPFM4", c->str,
			 strerror(-v->bridge));
	else if (v->bridge < 0)
		snprintf(l->want, sizeof(l->want), "error %s: %s",
			 v->bridge == -ENOENT ? "UNKNOWN_EVENT" : "LIBPFM4", v->msg);
	else if (v->core && v->reason == PMUCTL_R_NONE)
		snprintf(l->want, sizeof(l->want),
			 "error INTERNAL: the core refused the event without a reason: %s",
			 strerror(-v->core));
	else if (v->core || (v->sched && v->sched != -EDOM))
		snprintf(l->want, sizeof(l->want), "error %s: %s",
			 pmuctl_reason_name(v->core ? v->reason : v->sched_reason),
			 pmuctl_reason_text(v->core ? v->reason : v->sched_reason));
	else if (v->bridge == PMUCTL_PARSE_LITERAL)
		snprintf(l->want, sizeof(l->want), "error LIBPFM4: %s", v->msg);
	else
		snprintf(l->want, sizeof(l->want), "ok 0x%llx 0x%llx",
			 (unsigned long long)v->config, (unsigned long long)v->extra);
}

/* 'pmuctl check' strings of a run at a time: well below ARG_MAX. */
#define CHECK_CHUNK	2000

/* Run 'pmuctl check --pmu @pmu' on every collected string, compare its lines. */
static void check_run(struct run *r, const char *pmu)
{
	const char *bin = getenv("PMUCTL") ? getenv("PMUCTL") : "build/bin/pmuctl";
	size_t done = 0, i;

	if (access(bin, X_OK)) {
		fail(r, "no executable pmuctl at '%s' (make tests builds it; PMUCTL names another)",
		     bin);
		return;
	}
	while (done < r->nr_lines) {
		size_t n = r->nr_lines - done < CHECK_CHUNK ? r->nr_lines - done : CHECK_CHUNK;
		const char **argv = calloc(n + 5, sizeof(*argv));
		int out = memfd_create("check.out", 0), err = memfd_create("check.err", 0);
		char *line = NULL, msg[200] = "";
		size_t cap = 0;
		int status = 0;
		FILE *f;
		pid_t pid;

		if (!argv || out < 0 || err < 0) {
			fail(r, "cannot run pmuctl check: %s", strerror(errno));
			return;
		}
		argv[0] = bin;
		argv[1] = "check";
		argv[2] = "--pmu";
		argv[3] = pmu;
		for (i = 0; i < n; i++)
			argv[4 + i] = r->lines[done + i].str;
		fflush(NULL);
		pid = fork();
		if (pid == 0) {
			dup2(out, STDOUT_FILENO);
			dup2(err, STDERR_FILENO);
			execv(bin, (char *const *)argv);
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status) > 1) {
			if (pread(err, msg, sizeof(msg) - 1, 0) < 0)
				msg[0] = '\0';
			fail(r, "pmuctl check --pmu %s (%zu events) failed: status %#x: %s",
			     pmu, n, status, msg);
		}
		free(argv);
		close(err);
		lseek(out, 0, SEEK_SET);
		f = fdopen(out, "r");
		for (i = 0; i < n; i++) {
			struct check_line *l = &r->lines[done + i];
			ssize_t len = f ? getline(&line, &cap, f) : -1;
			char *got = line;

			if (len <= 0) {
				fail(r, "pmuctl check --pmu %s: no line for '%s' (want '%s')",
				     pmu, l->str, l->want);
				continue;
			}
			if (line[len - 1] == '\n')
				line[len - 1] = '\0';
			/* "ok COUNTER CONFIG EXTRA": the counter is the scheduler's */
			if (!strncmp(line, "ok ", 3)) {
				got = strchr(line + 3, ' ');
				got = got ? got - 2 : line;
				memcpy(got, "ok", 2);
			}
			r->check_compared++;
			if (strcmp(got, l->want))
				fail(r, "pmuctl check --pmu %s '%s': '%s', the library says '%s'",
				     pmu, l->str, line, l->want);
		}
		free(line);
		if (f)
			fclose(f);
		else
			close(out);
		done += n;
	}
}


static void visit_accepts(void *ctx, const struct combo *c)
{
	struct run *r = ctx;
	struct verdict v;
	char d[512];

	judge(r->m, r->caps, c, &v);
	check_add(r, c, &v);
	if (!v.pfm_ok)
		return;
	r->compared++;
	if (refused_as_wanted(r, c, &v))
		return;
	describe(c, &v, d, sizeof(d));
	if (v.bridge != 0 || v.config != bridge_want(c, v.pfm_config) ||
	    v.extra != bridge_want_extra(c, v.pfm_config, v.pfm_extra)) {
		fail(r, "resolver differs from libpfm4: %s (%s)", d, v.msg);
		return;
	}
	if (v.core) {
		if (listed(c, &v))
			r->listed++;
		else
			fail(r, "core refuses a libpfm4 encoding: %s", d);
		return;
	}
	if (v.want_msr != 0 && v.want_msr != v.got_msr)
		fail(r, "extra value in MSR %#x, libpfm4 implies %#x: %s",
		     v.got_msr, v.want_msr, d);
	if (v.sched)
		fail(r, "alone on an empty CPU: schedule %d reason %u: %s",
		     v.sched, v.sched_reason, d);
}

/* Rule 2: what libpfm4 refuses for a rule of the core, the core refuses. */
static void visit_rejects(void *ctx, const struct combo *c)
{
	struct run *r = ctx;
	struct verdict v;
	char d[512];

	judge(r->m, r->caps, c, &v);
	if (v.pfm_ok || refused_as_wanted(r, c, &v))
		return;
	describe(c, &v, d, sizeof(d));
	if (v.bridge != PMUCTL_PARSE_LITERAL) {
		fail(r, "resolver does not compose a refused string: %s (%s)", d, v.msg);
		return;
	}
	if (v.expect == NOT_OWNED) {
		r->not_owned++;
		return;
	}
	r->refused++;
	if (!differs(c, &v))
		return;
	if (listed(c, &v))
		r->listed++;
	else
		fail(r, "core reason %u, libpfm4's refusal means %u: %s",
		     v.core ? v.reason : PMUCTL_R_NONE, v.expect, d);
}

/* Rule 3: count which entries of disagreements[] occur. */
static void visit_listed(void *ctx, const struct combo *c)
{
	struct run *r = ctx;
	const struct disagreement *e;
	struct verdict v;

	judge(r->m, r->caps, c, &v);
	if (v.bridge < 0 || !differs(c, &v))
		return;
	e = listed(c, &v);
	if (e)
		r->hits[e - disagreements]++;
}

TEST_F(pfm_diff, accepts_every_libpfm4_encoding)
{
	struct run r = { ._metadata = _metadata, .m = self->m, .caps = &self->caps,
			 /* the *_4gp variants' strings are knm's and knl's */
			 .check = variant->index != PMU_knm_4gp &&
				  variant->index != PMU_knl_4gp };
	bool checked = r.check;
	int events = each_combo(variant->pmu, visit_accepts, &r);

	ASSERT_LT(0, events);
	if (r.check)
		check_run(&r, variant->pmu);
	EXPECT_LT(0UL, r.compared);
	EXPECT_EQ(0UL, r.failed);
	if (checked)
		EXPECT_EQ(r.nr_lines, r.check_compared);
	totals->accepted[variant->index] = r.compared;
	totals->checked[variant->index] = r.check_compared;
	totals->ran[variant->index] = true;
	say("%s (%u generic counters): %d events, %lu libpfm4 encodings compared, %lu refused by the resolver as they must, %lu listed disagreements, %lu lines of pmuctl check compared, %lu failures\n",
	    variant->pmu, variant->nr_gp, events, r.compared, r.resolver_refused,
	    r.listed, r.check_compared, r.failed);
	for (size_t i = 0; i < r.nr_lines; i++)
		free(r.lines[i].str);
	free(r.lines);
}

TEST_F(pfm_diff, rejects_what_libpfm4_rejects)
{
	struct run r = { ._metadata = _metadata, .m = self->m, .caps = &self->caps };
	int events = each_combo(variant->pmu, visit_rejects, &r);

	ASSERT_LT(0, events);
	EXPECT_LT(0UL, r.refused);
	EXPECT_EQ(0UL, r.failed);
	totals->refused[variant->index] = r.refused;
	totals->not_owned[variant->index] = r.not_owned;
	say("%s (%u generic counters): %lu libpfm4 refusals checked against the core's reason, %lu refused for libpfm4-only rules, %lu refused by the resolver as they must, %lu listed disagreements, %lu failures\n",
	    variant->pmu, variant->nr_gp, r.refused, r.not_owned, r.resolver_refused,
	    r.listed, r.failed);
}

TEST_F(pfm_diff, disagreements_are_listed)
{
	struct run r = { ._metadata = _metadata, .m = self->m, .caps = &self->caps };
	size_t i;

	ASSERT_LT(0, each_combo(variant->pmu, visit_listed, &r));
	for (i = 0; i < PMUCTL_NELEM(disagreements); i++) {
		const struct disagreement *e = &disagreements[i];

		if (!for_pmu(e, variant->pmu))
			continue;
		say("%s: line %d: %lu cases: %s\n", variant->pmu, e->line,
		    r.hits[i], e->why);
		EXPECT_LT(0UL, r.hits[i])
			TH_LOG("stale disagreement at line %d (%s)", e->line, e->glob);
	}
}

/* The grand total, after every variant ran (fixtures run in order). */
FIXTURE(pfm_total) {
	int unused;
};

FIXTURE_SETUP(pfm_total)
{
}

FIXTURE_TEARDOWN(pfm_total)
{
}

TEST_F(pfm_total, compared_every_pmu)
{
	unsigned long acc = 0, ref = 0, own = 0, chk = 0;
	int i;

	ASSERT_NE(NULL, totals);
	for (i = 0; i < NR_VARIANTS; i++) {
		EXPECT_TRUE(totals->ran[i]) TH_LOG("variant %d did not run", i);
		acc += totals->accepted[i];
		ref += totals->refused[i];
		own += totals->not_owned[i];
		chk += totals->checked[i];
	}
	say("total: %lu libpfm4 encodings compared, %lu libpfm4 refusals checked, %lu refusals for libpfm4-only rules, %lu strings through pmuctl check\n",
	    acc, ref, own, chk);
}

TEST_HARNESS_MAIN
