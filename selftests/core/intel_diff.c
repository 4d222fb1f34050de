// SPDX-License-Identifier: GPL-2.0
/*
 * Differential test of the pmuctl core against Intel's published core
 * event lists (github.com/intel/perfmon), so that every entry of the
 * knl, skl, icl, icx, spr, gnr, adl_glc, adl_grt, srf, lnl_lnc and
 * lnl_skt tables is checked against Intel as well as Linux.
 *
 * The vectors are events/intel/<list>.events, facts extracted by
 * scripts/intel-events.py (each file's header names the JSON, its version
 * and the perfmon commit); they are built into this program, nothing is
 * fetched or read at run time.  Lists and models: knl <- KNL, skl <- SKL,
 * SKX and CLX, icl <- ICL, icx <- ICX, spr <- SPR and EMR, gnr <- GNR,
 * adl_glc <- ADL's Golden Cove list, adl_grt <- ADL's Gracemont list,
 * srf <- SRF and GRR (Crestmont), lnl_lnc <- LNL's and ARL's Lion Cove
 * lists, lnl_skt <- their Skymont lists (perfmon v6: 10 generic counters
 * on Lion Cove, fixed 0-2 and 4-6 on Skymont, UMASK2 and EQ enumerated).
 *
 * Every Intel event, each of its encodings (OCR events give one for
 * OFFCORE_RSP_0 and one for RSP_1: two event codes on the big cores, two
 * umasks of 0xb7 on KNL and the Atom cores), is encoded as Intel lists it
 * (event, umask, umask2, cmask, inv, edge, eq, any, user and kernel mode,
 * MSRValue as the extra value where it has an MSRIndex) and given to
 * pmuctl_event_classify() and, alone on an empty CPU, to
 * pmuctl_group_schedule(), with the caps of the real part: from Ice Lake
 * on perfmon v5, 48-bit counters, AnyThread deprecated, full-width
 * writes; 8 generic counters and fixed counters 0-3 on the big cores, 6
 * generic and fixed 0-2 on Gracemont, 8 generic and fixed 0-2 on
 * Crestmont; before Ice Lake perfmon v4 with 4 generic counters of 48
 * bits on Skylake (HT on), v3 with 2 of 40 bits on KNL, fixed 0-2 and
 * AnyThread on both.  On skl and knl, whose uapi has no event 0 umask
 * N+1, Intel's INST_RETIRED.ANY and CPU_CLK_UNHALTED.THREAD are first
 * translated to the architectural encodings, as the library does
 * (translate_fixed()).  Compared:
 *
 *  (a) the core accepts what Intel lists;
 *  (b) the counters the core allows are Intel's "Counter" list (generic
 *      counters by number, fixed counters as "Fixed counter N"; for a
 *      translated event, the fixed counters only, and it must be placed
 *      on Intel's);
 *  (c) the extra MSR the core picks is Intel's MSRIndex (0: none);
 *
 * and the event, if accepted, must be placed alone on an empty CPU on
 * one of the counters the core allowed, in the MSR it picked.  Every
 * difference is either a core bug (the test fails) or in disagreements[]
 * with its reason and sources, and every entry there must still occur.
 */
#define _GNU_SOURCE		/* FNM_CASEFOLD */
#include <fnmatch.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "core.h"
#include "diff.h"

/* ------------------------------------------------------------------ */
/* The vectors, built in                                              */
/* ------------------------------------------------------------------ */

#ifndef INTEL_DIR
#define INTEL_DIR "events/intel"
#endif

/* One vector file as a NUL-terminated string in .rodata. */
#define VECTORS(sym, file)						\
	__asm__(".pushsection .rodata\n"				\
		".balign 8\n"						\
		#sym ":\n"						\
		".incbin \"" INTEL_DIR "/" file "\"\n"			\
		".byte 0\n"						\
		".popsection\n");					\
	extern const char sym[]

VECTORS(vec_icl, "icl.events");
VECTORS(vec_icx, "icx.events");
VECTORS(vec_spr, "spr.events");
VECTORS(vec_emr, "emr.events");
VECTORS(vec_gnr, "gnr.events");
VECTORS(vec_adl_glc, "adl_glc.events");
VECTORS(vec_adl_grt, "adl_grt.events");
VECTORS(vec_srf, "srf.events");
VECTORS(vec_grr, "grr.events");
VECTORS(vec_lnl_lnc, "lnl_lnc.events");
VECTORS(vec_lnl_skt, "lnl_skt.events");
VECTORS(vec_arl_lnc, "arl_lnc.events");
VECTORS(vec_arl_skt, "arl_skt.events");
VECTORS(vec_skl, "skl.events");
VECTORS(vec_skx, "skx.events");
VECTORS(vec_clx, "clx.events");
VECTORS(vec_knl, "knl.events");

#define MAX_EVENTS	2400	/* clx: 2344 */
#define NAME_MAX_LEN	96

/* One line of a vector file (scripts/intel-events.py documents the fields). */
struct ievent {
	char name[NAME_MAX_LEN];
	u32 code[2];		/* event select per encoding; [1]: OCR's RSP_1 */
	u32 umask[2];		/* umask per encoding (Atom OCR: 1, 2) */
	u32 umask2;		/* UMaskExt: config bits 47:40 (perfmon v6) */
	u32 ncodes;		/* encodings: 1, or 2 for OCR */
	u32 cmask;
	bool inv, edge, eq, any;
	u64 counters;		/* Intel's Counter list as counter indexes */
	u32 msr[2];		/* MSRIndex per code, 0: none */
	u64 msrvalue;
	bool deprecated;
	u16 listed_as;		/* Intel's event | umask << 8 where translated, 0 none */
	int line;
};

struct ilist {
	struct ievent ev[MAX_EVENTS];
	int n;
	int declared;		/* the header's "N events" */
	char err[160];
};

static bool parse_hexlist(const char *s, u32 *v, u32 max, u32 *n)
{
	char *end;

	*n = 0;
	for (;;) {
		unsigned long x = strtoul(s, &end, 16);

		if (end == s || *n == max || x > 0xffffffffUL)
			return false;
		v[(*n)++] = x;
		if (!*end)
			return true;
		if (*end != ',')
			return false;
		s = end + 1;
	}
}

static bool parse_flag(const char *s, bool *b)
{
	if (strcmp(s, "0") && strcmp(s, "1"))
		return false;
	*b = *s == '1';
	return true;
}

/* "0,1,2,3" or "f2" -> counter index mask. */
static bool parse_counters(const char *s, u64 *mask)
{
	char *end;

	*mask = 0;
	if (*s == 'f') {
		unsigned long i = strtoul(s + 1, &end, 10);

		if (end == s + 1 || *end || i >= PMUCTL_MAX_FIXED)
			return false;
		*mask = 1ULL << (PMUCTL_IDX_FIXED + i);
		return true;
	}
	for (;;) {
		unsigned long i = strtoul(s, &end, 10);

		if (end == s || i >= PMUCTL_MAX_GP)
			return false;
		*mask |= 1ULL << i;
		if (!*end)
			return true;
		if (*end != ',')
			return false;
		s = end + 1;
	}
}

/*
 * Fields: 0 name, 1 event, 2 umask, 3 umask2, 4 cmask, 5 inv, 6 edge,
 * 7 eq, 8 any, 9 counters, 10 msr, 11 msrvalue, 12 deprecated.
 */
static bool parse_line(char *l, struct ievent *e)
{
	char *f[13], *save = NULL, *end;
	u32 nu, nmsr, u;
	int i;

	for (i = 0; i < 13; i++) {
		f[i] = strtok_r(i ? NULL : l, " \t", &save);
		if (!f[i])
			return false;
	}
	if (strtok_r(NULL, " \t", &save) || strlen(f[0]) >= NAME_MAX_LEN)
		return false;
	memset(e, 0, sizeof(*e));
	strcpy(e->name, f[0]);
	/* Two encodings: a pair of codes or a pair of umasks, not both. */
	if (!parse_hexlist(f[1], e->code, 2, &e->ncodes) ||
	    !parse_hexlist(f[2], e->umask, 2, &nu) ||
	    (e->ncodes > 1 && nu > 1))
		return false;
	if (nu > 1)
		e->code[1] = e->code[0];
	else
		e->umask[1] = e->umask[0];
	if (nu > e->ncodes)
		e->ncodes = nu;
	if (!parse_hexlist(f[3], &e->umask2, 1, &u) || e->umask2 > 0xff)
		return false;
	e->cmask = strtoul(f[4], &end, 10);
	if (*end || end == f[4])
		return false;
	if (!parse_flag(f[5], &e->inv) || !parse_flag(f[6], &e->edge) ||
	    !parse_flag(f[7], &e->eq) || !parse_flag(f[8], &e->any) ||
	    !parse_counters(f[9], &e->counters) ||
	    !parse_flag(f[12], &e->deprecated))
		return false;
	for (u = 0; u < e->ncodes; u++)
		if (e->code[u] > 0xff || e->umask[u] > 0xff)
			return false;
	if (e->cmask > 0xff)
		return false;
	if (!strcmp(f[10], "-"))
		return !strcmp(f[11], "-") && e->ncodes == 1;
	if (!parse_hexlist(f[10], e->msr, 2, &nmsr) || nmsr != e->ncodes)
		return false;
	e->msrvalue = strtoull(f[11], &end, 16);
	return !*end && end != f[11];
}

static bool parse_list(const char *text, struct ilist *L)
{
	const char *p = text;
	char buf[512];
	int lineno = 0;

	L->n = 0;
	L->declared = -1;
	while (*p) {
		size_t len = strcspn(p, "\n");
		const char *q;

		lineno++;
		if (len >= sizeof(buf)) {
			snprintf(L->err, sizeof(L->err), "line %d too long", lineno);
			return false;
		}
		memcpy(buf, p, len);
		buf[len] = 0;
		p += len + (p[len] == '\n');
		if (buf[0] == '#') {
			q = strstr(buf, "; ");
			if (!strncmp(buf, "# generated by", 14) && q)
				L->declared = atoi(q + 2);
			continue;
		}
		if (!buf[0])
			continue;
		if (L->n == MAX_EVENTS || !parse_line(buf, &L->ev[L->n])) {
			snprintf(L->err, sizeof(L->err), "line %d malformed", lineno);
			return false;
		}
		L->ev[L->n++].line = lineno;
	}
	if (L->n != L->declared) {
		snprintf(L->err, sizeof(L->err), "%d events, header says %d",
			 L->n, L->declared);
		return false;
	}
	return true;
}

/*
 * Intel's lists write fixed counter N as event 0 umask N+1, which the uapi
 * takes from Ice Lake on only (struct pmuctl_event: "From Ice Lake on ...
 * event 0 with umask N+1 names fixed counter N").  For the older models
 * (skl, knl) the library translates them into the architectural encodings
 * [SDM table 'Association of Fixed-Function Performance Counters with
 * Architectural Performance Events'; uapi/linux/pmuctl.h], and so does this
 * test: INST_RETIRED.ANY 0x0100 -> 0x00c0, CPU_CLK_UNHALTED.THREAD (and
 * THREAD_ANY) 0x0200 -> 0x003c; REF_TSC's 0x0300 is Linux's pseudo encoding
 * already and stays.  A translated event is compared on its fixed counter:
 * the core must allow Intel's fixed counter and no other, and place the
 * event alone on an empty CPU there (judge()).  The generic counters the
 * architectural encoding also has are those of Intel's INST_RETIRED.ANY_P
 * and CPU_CLK_UNHALTED.THREAD_P, the same encodings, compared there.
 */
static const struct {
	u16 intel, arch;	/* event | umask << 8 */
} arch_fixed[] = {
	{ 0x0100, 0x00c0 },	/* INST_RETIRED.ANY */
	{ 0x0200, 0x003c },	/* CPU_CLK_UNHALTED.THREAD */
};

static void translate_fixed(struct ilist *L)
{
	size_t k;
	int i;

	for (i = 0; i < L->n; i++) {
		struct ievent *e = &L->ev[i];
		u32 code = e->code[0] | e->umask[0] << 8;

		for (k = 0; k < PMUCTL_NELEM(arch_fixed); k++) {
			if (e->ncodes != 1 || code != arch_fixed[k].intel)
				continue;
			e->listed_as = code;
			e->code[0] = e->code[1] = arch_fixed[k].arch & 0xff;
			e->umask[0] = e->umask[1] = arch_fixed[k].arch >> 8;
		}
	}
}

/* ------------------------------------------------------------------ */
/* Judging one encoding                                               */
/* ------------------------------------------------------------------ */

#define FIXED(i)	(1ULL << (PMUCTL_IDX_FIXED + (i)))
#define PMC(i)		(1ULL << (i))
#define GP(n)		((1ULL << (n)) - 1)
#define ALL_GP		GP(PMUCTL_IDX_FIXED)

enum kind {
	D_REFUSED,		/* Intel lists it, the core refuses: @reason */
	D_COUNTERS,		/* the core allows @core, Intel lists @intel */
	D_MSR,			/* the core picks MSR @core, Intel lists @intel */
	D_NR,
};

static const char *const kind_name[D_NR] = { "refused", "counters", "msr" };

struct verdict {
	const struct ievent *e;
	u32 ci;			/* which of e->code */
	u64 config, extra;
	int core;
	u32 reason;
	struct pmuctl_class cls;
	u32 core_msr, intel_msr;
	int sched;
	u32 sched_reason;
	struct pmuctl_place place;
	bool differs[D_NR];
};

static u64 encode(const struct ievent *e, u32 ci)
{
	return e->code[ci] | (u64)e->umask[ci] << 8 | PMUCTL_CFG_USR | PMUCTL_CFG_OS |
	       (e->edge ? PMUCTL_CFG_EDGE : 0) | (e->inv ? PMUCTL_CFG_INV : 0) |
	       (e->any ? PMUCTL_CFG_ANY : 0) | (u64)e->cmask << 24 |
	       (e->eq ? PMUCTL_CFG_EQ : 0) | (u64)e->umask2 << PMUCTL_CFG_UMASK2_SHIFT;
}

static void judge(const struct pmuctl_model *m, const struct pmuctl_caps *caps,
		  const struct ievent *e, u32 ci, struct verdict *v)
{
	struct pmuctl_event ev = { 0 };
	struct pmuctl_view view;
	u32 index;

	memset(v, 0, sizeof(*v));
	v->e = e;
	v->ci = ci;
	v->config = encode(e, ci);
	v->extra = e->msr[ci] ? e->msrvalue : 0;
	v->intel_msr = e->msr[ci];
	v->core = pmuctl_event_classify(m, caps, 0, v->config, v->extra, 0,
					&v->cls, &v->reason);
	if (v->core) {
		v->differs[D_REFUSED] = true;
		return;
	}
	v->core_msr = v->cls.xreg >= 0 ? m->xregs[v->cls.xreg].msr : 0;
	/* Translated (translate_fixed()): its fixed counter only. */
	if (e->listed_as)
		v->differs[D_COUNTERS] = (v->cls.counters & ~ALL_GP) != e->counters;
	else
		v->differs[D_COUNTERS] = v->cls.counters != e->counters;
	v->differs[D_MSR] = v->core_msr != v->intel_msr;

	ev.config = v->config;
	ev.extra = v->extra;
	pmuctl_view_init(&view);
	v->sched = pmuctl_group_schedule(m, caps, 0, &view, &ev, 1, &v->place,
					 &v->sched_reason, &index);
	if (!v->sched && (v->place.config != v->config ||
			  v->place.extra != v->extra ||
			  v->place.xreg != v->cls.xreg ||
			  !(v->cls.counters & (1ULL << v->place.idx)) ||
			  (e->listed_as && !(e->counters & (1ULL << v->place.idx)))))
		v->sched = -EDOM;
}

/* ------------------------------------------------------------------ */
/* Disagreements on purpose                                           */
/* ------------------------------------------------------------------ */

/*
 * @lists: space-separated vector names (icl icx spr emr gnr adl_glc
 * adl_grt srf grr lnl_lnc lnl_skt arl_lnc arl_skt skl skx clx knl);
 * @glob matches Intel's event name (fnmatch, case-insensitive); @code, if
 * not 0, must be the event code tried (OCR on the big cores: RSP_0's or
 * RSP_1's); for D_REFUSED @reason is the core's, for D_COUNTERS and D_MSR
 * @core and @intel are the two sides, exactly.
 */
struct disagreement {
	const char *lists;
	enum kind kind;
	const char *glob;
	u32 code;
	u32 reason;
	u64 core, intel;
	const char *why;
	int line;
};

#define REFUSED(_l, _glob, _reason, _why)				\
	{ .lists = _l, .kind = D_REFUSED, .glob = _glob,		\
	  .reason = _reason, .why = _why, .line = __LINE__ }
#define COUNTERS(_l, _glob, _code, _core, _intel, _why)			\
	{ .lists = _l, .kind = D_COUNTERS, .glob = _glob, .code = _code, \
	  .core = _core, .intel = _intel, .why = _why, .line = __LINE__ }
#define MSR(_l, _glob, _code, _core, _intel, _why)			\
	{ .lists = _l, .kind = D_MSR, .glob = _glob, .code = _code,	\
	  .core = _core, .intel = _intel, .why = _why, .line = __LINE__ }

static const struct disagreement disagreements[] = {
	/* Fixed counters: Intel's pseudo encodings and Linux's */
	COUNTERS("icl icx spr emr gnr adl_glc", "INST_RETIRED.ANY_P", 0xc0, GP(8) | FIXED(0), GP(8),
		 "the architectural encoding 0x00c0 also counts on fixed counter 0 [SDM table 'Association of Fixed-Function Performance Counters with Architectural Performance Events'; Linux 6.12 FIXED_EVENT_CONSTRAINT(0x00c0, 0), extended to every generic counter by intel_pmu_check_event_constraints]; Intel lists fixed counter 0 under INST_RETIRED.ANY only"),
	COUNTERS("icl icx spr emr gnr adl_glc", "CPU_CLK_UNHALTED.THREAD_P", 0x3c,
		 GP(8) | FIXED(1), GP(8),
		 "0x003c also counts on fixed counter 1 [SDM, as above; Linux 6.12 FIXED_EVENT_CONSTRAINT(0x003c, 1)]; Intel lists fixed counter 1 under CPU_CLK_UNHALTED.THREAD only"),
	COUNTERS("spr emr gnr adl_glc", "CPU_CLK_UNHALTED.REF_TSC_P", 0x3c, GP(8) | FIXED(2), GP(8),
		 "from Golden Cove on 0x013c also counts on fixed counter 2 [Linux 6.12 intel_glc_event_constraints FIXED_EVENT_CONSTRAINT(0x013c, 2), 'CPU_CLK_UNHALTED.REF_TSC_P']; Intel lists fixed counter 2 under CPU_CLK_UNHALTED.REF_TSC (0x0300) only. Ice Lake's table has no such entry, and there both sides say 0-7"),
	/*
	 * The same three on Gracemont (6 generic counters) and Crestmont (8):
	 * Intel lists the generic encodings under CORE_P/THREAD_P (0x003c),
	 * REF_TSC_P and the deprecated REF (0x013c) and ANY_P (0x00c0) on the
	 * generic counters only.
	 */
	COUNTERS("adl_grt", "INST_RETIRED.ANY_P", 0xc0, GP(6) | FIXED(0), GP(6),
		 "0x00c0 also counts on fixed counter 0 [SDM, as above; Linux 6.12 intel_grt_event_constraints FIXED_EVENT_CONSTRAINT(0x00c0, 0)]; Intel lists fixed counter 0 under INST_RETIRED.ANY (0x0100) only"),
	COUNTERS("srf grr", "INST_RETIRED.ANY_P", 0xc0, GP(8) | FIXED(0), GP(8),
		 "as on Gracemont [Linux 6.12: Crestmont's intel_pmu_init_grt() takes intel_grt_event_constraints]"),
	COUNTERS("adl_grt", "CPU_CLK_UNHALTED.*_P", 0x3c, GP(6) | FIXED(1), GP(6),
		 "0x003c (CORE_P, THREAD_P) also counts on fixed counter 1 [SDM; Linux 6.12 intel_grt_event_constraints FIXED_EVENT_CONSTRAINT(0x003c, 1)]; Intel lists fixed counter 1 under CPU_CLK_UNHALTED.CORE and .THREAD (0x0200) only"),
	COUNTERS("srf grr", "CPU_CLK_UNHALTED.*_P", 0x3c, GP(8) | FIXED(1), GP(8),
		 "as on Gracemont"),
	COUNTERS("adl_grt", "CPU_CLK_UNHALTED.REF*", 0x3c, GP(6) | FIXED(2), GP(6),
		 "0x013c (REF_TSC_P, and REF, deprecated) also counts on fixed counter 2 [Linux 6.12 intel_grt_event_constraints FIXED_EVENT_CONSTRAINT(0x013c, 2)]; Intel lists fixed counter 2 under CPU_CLK_UNHALTED.REF_TSC (0x0300) only"),
	COUNTERS("srf grr", "CPU_CLK_UNHALTED.REF*", 0x3c, GP(8) | FIXED(2), GP(8),
		 "as on Gracemont"),

	/*
	 * Perfmon v6 (Lunar Lake, Arrow Lake-S): the same on Lion Cove (10
	 * generic counters) and Skymont (8), whose fixed counters 4-6 count
	 * the topdown events 0x0073, 0x019c and 0x02c2 too [Linux 6.12
	 * intel_lnc_event_constraints, intel_skt_event_constraints].
	 */
	COUNTERS("lnl_lnc arl_lnc", "INST_RETIRED.ANY_P", 0xc0, GP(10) | FIXED(0), GP(10),
		 "as on Golden Cove [Linux 6.12 intel_lnc_event_constraints FIXED_EVENT_CONSTRAINT(0x00c0, 0)]"),
	COUNTERS("lnl_lnc arl_lnc", "CPU_CLK_UNHALTED.*_P", 0x3c, GP(10) | FIXED(1), GP(10),
		 "as on Golden Cove [Linux 6.12 intel_lnc_event_constraints FIXED_EVENT_CONSTRAINT(0x003c, 1)]"),
	COUNTERS("lnl_lnc arl_lnc", "CPU_CLK_UNHALTED.REF_TSC_P", 0x3c, GP(10) | FIXED(2), GP(10),
		 "as on Golden Cove [Linux 6.12 intel_lnc_event_constraints FIXED_EVENT_CONSTRAINT(0x013c, 2)]"),
	COUNTERS("lnl_skt arl_skt", "INST_RETIRED.ANY_P", 0xc0, GP(8) | FIXED(0), GP(8),
		 "as on Gracemont [Linux 6.12 intel_skt_event_constraints FIXED_EVENT_CONSTRAINT(0x00c0, 0)]"),
	COUNTERS("lnl_skt arl_skt", "CPU_CLK_UNHALTED.*_P", 0x3c, GP(8) | FIXED(1), GP(8),
		 "as on Gracemont [Linux 6.12 intel_skt_event_constraints FIXED_EVENT_CONSTRAINT(0x003c, 1)]"),
	COUNTERS("lnl_skt arl_skt", "CPU_CLK_UNHALTED.REF*", 0x3c, GP(8) | FIXED(2), GP(8),
		 "as on Gracemont [Linux 6.12 intel_skt_event_constraints FIXED_EVENT_CONSTRAINT(0x013c, 2)]"),
	COUNTERS("lnl_skt arl_skt", "TOPDOWN_BAD_SPECULATION.ALL_P", 0x73, GP(8) | FIXED(4), GP(8),
		 "0x0073 also counts on fixed counter 4 [Linux 6.12 intel_skt_event_constraints FIXED_EVENT_CONSTRAINT(0x0073, 4)]; Intel lists fixed counter 4 under TOPDOWN_BAD_SPECULATION.ALL (0x0500) only"),
	COUNTERS("lnl_skt arl_skt", "TOPDOWN_FE_BOUND.ALL_P", 0x9c, GP(8) | FIXED(5), GP(8),
		 "0x019c also counts on fixed counter 5 [Linux 6.12 FIXED_EVENT_CONSTRAINT(0x019c, 5)]; Intel lists fixed counter 5 under TOPDOWN_FE_BOUND.ALL (0x0600) only"),
	COUNTERS("lnl_skt arl_skt", "TOPDOWN_RETIRING.ALL_P", 0xc2, GP(8) | FIXED(6), GP(8),
		 "0x02c2 also counts on fixed counter 6 [Linux 6.12 FIXED_EVENT_CONSTRAINT(0x02c2, 6)]; Intel lists fixed counter 6 under TOPDOWN_RETIRING.ALL (0x0700) only"),
	COUNTERS("lnl_lnc arl_lnc", "OCR.*", 0, GP(4), GP(10),
		 "Linux 6.12 intel_lnc_event_constraints keeps OCR 0x012a and 0x012b on counters 0-3 (INTEL_UEVENT_CONSTRAINT(0x012a, 0xf), (0x012b, 0xf)); Intel lists 0-9 [INT: LNL lunarlake_lioncove_core.json V1.26, ARL arrowlake_lioncove_core.json V1.20]. pmuctl keeps Linux's narrower set: an event placed on 0-3 counts wherever Intel's list would have it"),

	/*
	 * Before Ice Lake: Skylake, Skylake-SP and Cascade Lake (skl; 4
	 * generic counters with HT on) and Knights Landing (knl; 2).  The
	 * architectural encodings of the *_P events count on fixed counters
	 * 0 and 1 too; Intel lists the fixed counters under its event 0
	 * umask 1 and 2 names, which translate_fixed() turns into these same
	 * encodings and which agree on their fixed counter.
	 */
	COUNTERS("skl skx clx", "INST_RETIRED.ANY_P", 0xc0, GP(4) | FIXED(0), GP(4),
		 "0x00c0 also counts on fixed counter 0 [SDM, as above; Linux 6.12 intel_skl_event_constraints FIXED_EVENT_CONSTRAINT(0x00c0, 0)]; Intel lists fixed counter 0 under INST_RETIRED.ANY (its 0x0100) only"),
	COUNTERS("skl skx clx", "CPU_CLK_UNHALTED.THREAD_P*", 0x3c, GP(4) | FIXED(1), GP(4),
		 "0x003c, THREAD_P and with AnyThread THREAD_P_ANY, also counts on fixed counter 1 [SDM; Linux 6.12 intel_skl_event_constraints FIXED_EVENT_CONSTRAINT(0x003c, 1); from perfmon v3 on FIXED_CTR_CTRL has an AnyThread bit per counter, which Linux's intel_pmu_enable_fixed() sets]; Intel lists fixed counter 1 under CPU_CLK_UNHALTED.THREAD and THREAD_ANY (its 0x0200) only"),
	COUNTERS("knl", "INST_RETIRED.ANY_P", 0xc0, GP(2) | FIXED(0), GP(2),
		 "0x00c0 also counts on fixed counter 0 [SDM; Linux 6.12: KNL takes intel_slm_event_constraints, FIXED_EVENT_CONSTRAINT(0x00c0, 0)]; Intel lists fixed counter 0 under INST_RETIRED.ANY (its 0x0100) only"),
	COUNTERS("knl", "INST_RETIRED.ANY_PS", 0xc0, GP(2) | FIXED(0), GP(1),
		 "INST_RETIRED.ANY_PS is 0x00c0 under its PEBS name, which Intel lists on counter 0 alone [INT: KNL/events/knightslanding_core.json V16]: on KNL every PEBS event samples on counter 0 [Linux 6.12: KNL's pebs_constraints are intel_slm_pebs_event_constraints, INTEL_ALL_EVENT_CONSTRAINT(0, 0x1)], a rule for sampling. For counting Linux leaves 0x00c0 on both generic counters and fixed counter 0 (intel_slm_event_constraints), and pmuctl counts, it programs no PEBS (nothing in kmod/ writes IA32_PEBS_ENABLE)"),
	COUNTERS("knl", "CPU_CLK_UNHALTED.THREAD_P", 0x3c, GP(2) | FIXED(1), GP(2),
		 "0x003c also counts on fixed counter 1 [SDM; Linux 6.12 intel_slm_event_constraints FIXED_EVENT_CONSTRAINT(0x003c, 1)]; Intel lists fixed counter 1 under CPU_CLK_UNHALTED.THREAD (its 0x0200) only"),
	COUNTERS("skl skx clx", "INST_RETIRED.TOTAL_CYCLES_PS", 0xc0, PMC(1), GP(4) & ~PMC(1),
		 "Intel lists INST_RETIRED.PREC_DIST (0x01c0) on counter 1 and INST_RETIRED.TOTAL_CYCLES_PS (0x01c0 with inv and cmask 10) on counters 0, 2 and 3 [INT: SKL/events/skylake_core.json V59, SKX skylakex_core.json V1.37, CLX cascadelakex_core.json V1.25]. Linux 6.12's INTEL_UEVENT_CONSTRAINT(0x1c0, 0x2) in intel_skl_event_constraints matches event and umask only, so it puts both on counter 1, and Linux itself uses 0x01c0 with inv and cmask 16 on counter 1 for cycles:ppp (intel_skl_pebs_event_constraints INTEL_FLAGS_UEVENT_CONSTRAINT(0x108001c0, 0x2)). pmuctl's constraints match event and umask as Linux's do (struct pmuctl_constraint) and follow Linux: TOTAL_CYCLES_PS counts on counter 1 alone, which Intel's list does not name"),

	/* Offcore: Intel writes bits Linux's mask refuses */
	REFUSED("adl_grt", "OCR.*_STREAMING_WR.*", PMUCTL_R_EXTRA_MASK,
		"Gracemont's OCR.PARTIAL_STREAMING_WR.ANY_RESPONSE and OCR.FULL_STREAMING_WR.ANY_RESPONSE write request bits 46 and 47 (MSRValue 0x400000010000, 0x800000010000) [INT: ADL/events/alderlake_gracemont_core.json V1.40]; Linux 6.12 intel_grt_extra_regs takes 0x3fffffffff for OFFCORE_RSP_0/1 and pmuctl keeps Linux's mask (kmod/core/model.c, grt_xregs), on both RSP_0 (0x01b7) and RSP_1 (0x02b7)"),
	/*
	 * Knights Landing's request bit 4, which Linux's masks and libpfm4
	 * leave out and Intel's own offcore matrix does not compose (FACTS 2;
	 * kmod/core/model.c, knl_xregs): every ANY_DATA_RD (0x3091), ANY_READ
	 * (0x32f7) and ANY_PF_L2 (0x70) event of Intel's list, on RSP_0
	 * (0x01b7) and RSP_1 (0x02b7), their *.OUTSTANDING ones on RSP_0.
	 */
	REFUSED("knl", "OFFCORE_RESPONSE.ANY_DATA_RD.*", PMUCTL_R_EXTRA_MASK,
		"request bit 4 in ANY_DATA_RD 0x3091 [INT: KNL/events/knightslanding_core.json V16]; knightslanding_matrix.json composes ANY_DATA_RD as 0x3081; Linux 6.12 intel_knl_extra_regs masks 0x799ffbb6e7 (RSP_0) and 0x399ffbffe7 (RSP_1) leave bit 4 out, and pmuctl keeps Linux's masks"),
	REFUSED("knl", "OFFCORE_RESPONSE.ANY_READ.*", PMUCTL_R_EXTRA_MASK,
		"request bit 4 in ANY_READ 0x32f7 [INT: V16]; the matrix composes 0x32e7; Linux's masks leave bit 4 out, as above"),
	REFUSED("knl", "OFFCORE_RESPONSE.ANY_PF_L2.*", PMUCTL_R_EXTRA_MASK,
		"request bit 4 in ANY_PF_L2 0x70 [INT: V16]; the matrix composes 0x60; Linux's masks leave bit 4 out, as above"),
	REFUSED("knl", "OFFCORE_RESPONSE.ANY_REQUEST.L2_MISS", PMUCTL_R_EXTRA_MASK,
		"MSRValue 0x18001981f8 writes request bits 3 and 4, which both of Linux 6.12's KNL masks leave out; the only value of Intel's list with bit 3, ANY_REQUEST with the L2_MISS response unshifted (kmod/core/model.c, knl_xregs; FACTS 2) [INT: V16]"),
	REFUSED("knl", "OFFCORE_RESPONSE.FULL_STREAMING_STORES.ANY_RESPONSE", PMUCTL_R_EXTRA_MASK,
		"Intel lists request bit 11 (FULL_STREAMING_STORES, 0x10800) on MSRs 0x1a6 and 0x1a7 [INT: V16], while its STREAMING_STORES (bits 11 and 14) and PARTIAL_STREAMING_STORES (bit 14) name 0x1a7 alone; only OFFCORE_RSP_1 has bits 8, 11 and 14 [Linux 6.12 intel_knl_extra_regs: RSP_0 mask 0x799ffbb6e7 lacks bit 11, RSP_1's 0x399ffbffe7 has it; FACTS 2]. The RSP_0 encoding (0x01b7) is refused, the RSP_1 one (0x02b7) agrees"),

	/* Edge detect without a counter mask */
	REFUSED("knl", "PAGE_WALKS.*", PMUCTL_R_EDGE_NO_CMASK,
		"Intel encodes PAGE_WALKS.D_SIDE_WALKS (0x0105), I_SIDE_WALKS (0x0205) and WALKS (0x0305) with EdgeDetect 1 and CounterMask 0 [INT: V16]; the SDM defines edge detection on the CMASK comparison and pmuctl refuses edge without cmask for every event; e with c=1 counts the walks' starts, as libpfm4 encodes PAGE_WALKS:D_SIDE_WALKS (0x1550105) (kmod/core/model.c, KNL's comment)"),
};

static bool for_list(const char *lists, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = lists; (p = strstr(p, name)); p += n)
		if ((p == lists || p[-1] == ' ') && (!p[n] || p[n] == ' '))
			return true;
	return false;
}

/* The entry that explains difference @k of @v in list @list, or NULL. */
static const struct disagreement *listed(const char *list, const struct verdict *v,
					 enum kind k,
					 const struct disagreement *tab, size_t ntab)
{
	size_t i;

	for (i = 0; i < ntab; i++) {
		const struct disagreement *d = &tab[i];

		if (d->kind != k || !for_list(d->lists, list) ||
		    fnmatch(d->glob, v->e->name, FNM_CASEFOLD) ||
		    (d->code && d->code != v->e->code[v->ci]))
			continue;
		if (k == D_REFUSED && d->reason != v->reason)
			continue;
		if (k == D_COUNTERS && (d->core != v->cls.counters ||
					d->intel != v->e->counters))
			continue;
		if (k == D_MSR && (d->core != v->core_msr || d->intel != v->intel_msr))
			continue;
		return d;
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Fixture                                                            */
/* ------------------------------------------------------------------ */

FIXTURE(intel_diff) {
	const struct pmuctl_model *m;
	struct pmuctl_caps caps;
	struct ilist *L;
};

FIXTURE_VARIANT(intel_diff) {
	int index;		/* into totals */
	const char *list;	/* vector name */
	const char *const *text;
	const char *pmu;	/* pmuctl model */
	u8 model;		/* display model, family 6 */
	u8 nr_gp, nr_fixed;	/* the part's counters (FIXTURE_SETUP) */
	u8 version;		/* 0: 5 */
	u32 fixed_mask;		/* 0: fixed counters 0 to nr_fixed - 1 */
	u8 width;		/* counter width, 0: 48 */
	u8 nr_arch;		/* architectural events enumerated, 0: 8 */
	bool arch_fixed;	/* translate_fixed(): before Ice Lake */
};

#define NR_VARIANTS	17

static const char *const text_icl = vec_icl, *const text_icx = vec_icx,
	*const text_spr = vec_spr, *const text_emr = vec_emr,
	*const text_gnr = vec_gnr, *const text_adl_glc = vec_adl_glc,
	*const text_adl_grt = vec_adl_grt, *const text_srf = vec_srf,
	*const text_grr = vec_grr, *const text_lnl_lnc = vec_lnl_lnc,
	*const text_lnl_skt = vec_lnl_skt, *const text_arl_lnc = vec_arl_lnc,
	*const text_arl_skt = vec_arl_skt, *const text_skl = vec_skl,
	*const text_skx = vec_skx, *const text_clx = vec_clx,
	*const text_knl = vec_knl;

FIXTURE_VARIANT_ADD(intel_diff, icl) {
	.index = 0, .list = "icl", .text = &text_icl, .pmu = "icl", .model = 0x7e,
	.nr_gp = 8, .nr_fixed = 4,
};

FIXTURE_VARIANT_ADD(intel_diff, icx) {
	.index = 1, .list = "icx", .text = &text_icx, .pmu = "icx", .model = 0x6a,
	.nr_gp = 8, .nr_fixed = 4,
};

FIXTURE_VARIANT_ADD(intel_diff, spr) {
	.index = 2, .list = "spr", .text = &text_spr, .pmu = "spr", .model = 0x8f,
	.nr_gp = 8, .nr_fixed = 4,
};

FIXTURE_VARIANT_ADD(intel_diff, emr) {
	.index = 3, .list = "emr", .text = &text_emr, .pmu = "spr", .model = 0xcf,
	.nr_gp = 8, .nr_fixed = 4,
};

FIXTURE_VARIANT_ADD(intel_diff, gnr) {
	.index = 4, .list = "gnr", .text = &text_gnr, .pmu = "gnr", .model = 0xad,
	.nr_gp = 8, .nr_fixed = 4,
};

/* Alder Lake's P-core: its cpu_core PMU, as an i5-12400 (0x97) has it. */
FIXTURE_VARIANT_ADD(intel_diff, adl_glc) {
	.index = 5, .list = "adl_glc", .text = &text_adl_glc, .pmu = "adl_glc",
	.model = 0x97, .nr_gp = 8, .nr_fixed = 4,
};

/* Gracemont as Alder Lake-N (0xbe) has it. */
FIXTURE_VARIANT_ADD(intel_diff, adl_grt) {
	.index = 6, .list = "adl_grt", .text = &text_adl_grt, .pmu = "adl_grt",
	.model = 0xbe, .nr_gp = 6, .nr_fixed = 3,
};

/* Crestmont: Sierra Forest (0xaf) and Grand Ridge (0xb6). */
FIXTURE_VARIANT_ADD(intel_diff, srf) {
	.index = 7, .list = "srf", .text = &text_srf, .pmu = "srf", .model = 0xaf,
	.nr_gp = 8, .nr_fixed = 3,
};

FIXTURE_VARIANT_ADD(intel_diff, grr) {
	.index = 8, .list = "grr", .text = &text_grr, .pmu = "srf", .model = 0xb6,
	.nr_gp = 8, .nr_fixed = 3,
};

/*
 * Perfmon v6, Lunar Lake (0xbd) and Arrow Lake-S (0xc6): Lion Cove with
 * 10 generic counters and fixed 0-3, Skymont with 8 and fixed 0-2, 4-6
 * (leaf 23H of the dumps in selftests/core/caps_test.c; both enumerate
 * UMASK2 and EQ).
 */
FIXTURE_VARIANT_ADD(intel_diff, lnl_lnc) {
	.index = 9, .list = "lnl_lnc", .text = &text_lnl_lnc, .pmu = "lnl_lnc",
	.model = 0xbd, .nr_gp = 10, .nr_fixed = 4, .version = 6,
};

FIXTURE_VARIANT_ADD(intel_diff, lnl_skt) {
	.index = 10, .list = "lnl_skt", .text = &text_lnl_skt, .pmu = "lnl_skt",
	.model = 0xbd, .nr_gp = 8, .nr_fixed = 7, .version = 6, .fixed_mask = 0x77,
};

FIXTURE_VARIANT_ADD(intel_diff, arl_lnc) {
	.index = 11, .list = "arl_lnc", .text = &text_arl_lnc, .pmu = "lnl_lnc",
	.model = 0xc6, .nr_gp = 10, .nr_fixed = 4, .version = 6,
};

FIXTURE_VARIANT_ADD(intel_diff, arl_skt) {
	.index = 12, .list = "arl_skt", .text = &text_arl_skt, .pmu = "lnl_skt",
	.model = 0xc6, .nr_gp = 8, .nr_fixed = 7, .version = 6, .fixed_mask = 0x77,
};

/*
 * Before Ice Lake: perfmon v4 on Skylake client (0x5e), Skylake-SP (0x55)
 * and Cascade Lake (0x55 too), 4 generic counters per thread with HT on
 * (Intel's "Counter" lists 0-3; "CounterHTOff", 0-7, is the HT-off part,
 * not compared here), 3 fixed, 48 bits, 7 architectural events, as
 * pmuctl_caps_decode() reads the Core i7-7800X dump of caps_test.c
 * (CPUID.0AH 0x07300404 0 0 0x603).  Knights Landing (0x57): perfmon v3,
 * 2 generic and 3 fixed counters of 40 bits (caps_test.c's Xeon Phi 7210,
 * leaf 0AH synthetic; FACTS 1).
 */
FIXTURE_VARIANT_ADD(intel_diff, skl) {
	.index = 13, .list = "skl", .text = &text_skl, .pmu = "skl", .model = 0x5e,
	.nr_gp = 4, .nr_fixed = 3, .version = 4, .nr_arch = 7, .arch_fixed = true,
};

FIXTURE_VARIANT_ADD(intel_diff, skx) {
	.index = 14, .list = "skx", .text = &text_skx, .pmu = "skl", .model = 0x55,
	.nr_gp = 4, .nr_fixed = 3, .version = 4, .nr_arch = 7, .arch_fixed = true,
};

FIXTURE_VARIANT_ADD(intel_diff, clx) {
	.index = 15, .list = "clx", .text = &text_clx, .pmu = "skl", .model = 0x55,
	.nr_gp = 4, .nr_fixed = 3, .version = 4, .nr_arch = 7, .arch_fixed = true,
};

FIXTURE_VARIANT_ADD(intel_diff, knl) {
	.index = 16, .list = "knl", .text = &text_knl, .pmu = "knl", .model = 0x57,
	.nr_gp = 2, .nr_fixed = 3, .version = 3, .width = 40, .nr_arch = 7,
	.arch_fixed = true,
};

/* Counts survive the harness's fork per test: a shared page. */
struct totals {
	unsigned long encodings[NR_VARIANTS], agree[NR_VARIANTS];
	bool ran[NR_VARIANTS];
};

static struct totals *totals;

static void __attribute__((constructor)) totals_map(void)
{
	totals = shared_page(sizeof(*totals));
}

/*
 * The real parts' PMU [SDM vol. 3B 20.2.5; CPUID.0AH on Ice Lake, Sapphire
 * and Granite Rapids: EAX 0x08300805 (v5, 8 counters of 48 bits, 8
 * architectural events), EBX 0, ECX 0xf, EDX 0x8604 (fixed counters 0-3
 * of 48 bits, AnyThread deprecated); PERF_CAPABILITIES[13] full-width
 * writes].  The Atom cores: perfmon v5 with 48-bit counters, 6 generic
 * counters on Gracemont, 8 on Crestmont, fixed counters 0-2 [Intel's
 * lists above name no "Fixed counter 3" and no generic counter past 5
 * (Gracemont) or 7 (Crestmont); LNX 6.12 intel_pmu_init_grt, whose
 * callers leave fixed counter 3 and the topdown metrics to the big core].
 * Perfmon v3 and v4 (skl, knl) have AnyThread, with no EDX[15] to
 * deprecate it [SDM 20.2.3, 20.2.4]; their PERF_CAPABILITIES, which
 * nothing compared here reads, is left 0, as in caps_test.c's dumps.
 */
FIXTURE_SETUP(intel_diff)
{
	u8 version = variant->version ? variant->version : 5;
	u8 width = variant->width ? variant->width : 48;
	u8 nr_arch = variant->nr_arch ? variant->nr_arch : 8;

	self->m = pmuctl_model_by_name(variant->pmu);
	ASSERT_NE(NULL, self->m);
	self->caps = (struct pmuctl_caps){
		.family = 6, .model = variant->model, .version = version,
		.nr_gp = variant->nr_gp, .gp_width = width,
		.nr_fixed = variant->nr_fixed, .fixed_width = width,
		.fixed_mask = variant->fixed_mask ? variant->fixed_mask :
			      (1U << variant->nr_fixed) - 1,
		.events_unavailable = ~((1U << nr_arch) - 1),
		.flags = PMUCTL_CAP_ANY_DEPRECATED | PMUCTL_CAP_FULL_WIDTH_WRITE,
		.perf_capabilities = 1ULL << 13,
	};
	if (version < 5) {
		self->caps.flags = PMUCTL_CAP_ANY_THREAD;
		self->caps.perf_capabilities = 0;
	}
	if (version >= 6)
		self->caps.flags |= PMUCTL_CAP_UMASK2 | PMUCTL_CAP_EQ;
	self->L = malloc(sizeof(*self->L));
	ASSERT_NE(NULL, self->L);
	ASSERT_TRUE(parse_list(*variant->text, self->L))
		TH_LOG("%s.events: %s", variant->list, self->L->err);
	if (variant->arch_fixed)
		translate_fixed(self->L);
	ASSERT_NE(NULL, totals);
}

FIXTURE_TEARDOWN(intel_diff)
{
	free(self->L);
}

/* ------------------------------------------------------------------ */
/* The tests                                                          */
/* ------------------------------------------------------------------ */

static void describe(const struct verdict *v, char *buf, size_t len)
{
	const struct ievent *e = v->e;
	char as[32] = "";

	if (e->listed_as)
		snprintf(as, sizeof(as), " (Intel's %#06x)", e->listed_as);
	snprintf(buf, len, "%s (line %d): event %#x umask %#x%s umask2 %#x cmask %u inv %d edge %d eq %d any %d%s;"
		 " Intel: counters %#llx MSR %#x value %#llx"
		 "; core: ret %d reason %u counters %#llx MSR %#x; schedule %d reason %u idx %u",
		 e->name, e->line, e->code[v->ci], e->umask[v->ci], as, e->umask2, e->cmask,
		 e->inv, e->edge, e->eq, e->any, e->deprecated ? " (deprecated)" : "",
		 (unsigned long long)e->counters, v->intel_msr,
		 (unsigned long long)v->extra, v->core, v->reason,
		 (unsigned long long)v->cls.counters, v->core_msr, v->sched, v->sched_reason,
		 v->place.idx);
}

/* Log the first few failures in full, count the rest. */
#define MAX_LOGGED	40

struct run {
	struct __test_metadata *_metadata;
	unsigned long encodings, agree, deprecated, failed;
	unsigned long outcome[D_NR];		/* listed differences by kind */
	unsigned long reasons[PMUCTL_R_NR];	/* listed refusals by reason */
	unsigned long hits[PMUCTL_NELEM(disagreements) + 1];
};

#define fail(r, fmt, ...) do {						\
	struct __test_metadata *_metadata = (r)->_metadata;		\
	if (++(r)->failed <= MAX_LOGGED && _metadata)			\
		TH_LOG(fmt, ##__VA_ARGS__);				\
} while (0)

/* Every encoding of one list, judged; each difference listed or a failure. */
static void compare_list(struct run *r, const char *list, const struct pmuctl_model *m,
			 const struct pmuctl_caps *caps, const struct ilist *L,
			 const struct disagreement *tab, size_t ntab)
{
	struct verdict v;
	char d[640];
	int i;
	u32 ci;
	int k;

	for (i = 0; i < L->n; i++) {
		const struct ievent *e = &L->ev[i];

		for (ci = 0; ci < e->ncodes; ci++) {
			bool any = false;

			judge(m, caps, e, ci, &v);
			describe(&v, d, sizeof(d));
			r->encodings++;
			r->deprecated += e->deprecated;
			if (!v.core && v.sched) {
				fail(r, "%s: accepted but not placed alone on an empty CPU%s: %s",
				     list, e->listed_as ? " on Intel's fixed counter" : "", d);
				continue;
			}
			for (k = 0; k < D_NR; k++) {
				const struct disagreement *x;

				if (!v.differs[k])
					continue;
				any = true;
				x = listed(list, &v, k, tab, ntab);
				if (!x) {
					fail(r, "%s: unlisted %s difference: %s",
					     list, kind_name[k], d);
					continue;
				}
				r->outcome[k]++;
				if (k == D_REFUSED)
					r->reasons[v.reason]++;
				r->hits[x - tab]++;
			}
			r->agree += !any;
		}
	}
}

TEST_F(intel_diff, every_intel_event)
{
	struct run r = { ._metadata = _metadata };
	char reasons[256] = "";
	size_t len = 0;
	u32 i;

	compare_list(&r, variant->list, self->m, &self->caps, self->L,
		     disagreements, PMUCTL_NELEM(disagreements));
	EXPECT_LT(0UL, r.agree);
	EXPECT_EQ(0UL, r.failed);
	for (i = 0; i < PMUCTL_R_NR; i++)
		if (r.reasons[i] && len < sizeof(reasons))
			len += snprintf(reasons + len, sizeof(reasons) - len,
					" %lu reason %u;", r.reasons[i], i);
	totals->encodings[variant->index] = r.encodings;
	totals->agree[variant->index] = r.agree;
	totals->ran[variant->index] = true;
	say("%s (model %s): %d Intel events, %lu encodings (%lu of deprecated events): %lu agree, %lu refused (listed;%s), %lu listed counter differences, %lu listed MSR differences, %lu failures\n",
	    variant->list, variant->pmu, self->L->n, r.encodings, r.deprecated,
	    r.agree, r.outcome[D_REFUSED], reasons, r.outcome[D_COUNTERS],
	    r.outcome[D_MSR], r.failed);
}

TEST_F(intel_diff, disagreements_still_occur)
{
	struct run r = { ._metadata = NULL };	/* every_intel_event logs failures */
	size_t i;

	compare_list(&r, variant->list, self->m, &self->caps, self->L,
		     disagreements, PMUCTL_NELEM(disagreements));
	for (i = 0; i < PMUCTL_NELEM(disagreements); i++) {
		const struct disagreement *x = &disagreements[i];

		if (!for_list(x->lists, variant->list))
			continue;
		say("%s: line %d: %lu %s: %s\n", variant->list, x->line, r.hits[i],
		    kind_name[x->kind], x->glob);
		EXPECT_LT(0UL, r.hits[i])
			TH_LOG("stale disagreement at line %d (%s, %s)", x->line,
			       kind_name[x->kind], x->glob);
	}
}

/*
 * The comparison itself: an Intel entry changed in each compared field
 * must show up as an unlisted difference, and an entry that matches
 * nothing must be reported stale.
 */
TEST_F(intel_diff, detects_planted_differences)
{
	static const struct disagreement bogus[] = {
		COUNTERS("icl icx spr emr gnr adl_glc adl_grt srf grr lnl_lnc lnl_skt arl_lnc arl_skt skl skx clx knl",
			 "NO_SUCH_EVENT.*",
			 0, GP(8), GP(4),
			 "never matches"),
	};
	struct run r = { ._metadata = _metadata };
	struct ilist *P = malloc(sizeof(*P));
	struct verdict v;
	int i, plain = -1, xmsr = -1;

	ASSERT_NE(NULL, P);
	/* Events the core and Intel agree on: one without an extra MSR, one with. */
	for (i = 0; i < self->L->n; i++) {
		const struct ievent *e = &self->L->ev[i];

		judge(self->m, &self->caps, e, 0, &v);
		if (v.core || v.sched || v.differs[D_COUNTERS] || v.differs[D_MSR] ||
		    e->ncodes != 1 || e->cmask || (e->counters >> PMUCTL_IDX_FIXED))
			continue;
		if (!e->msr[0] && plain < 0)
			plain = i;
		if (e->msr[0] && xmsr < 0)
			xmsr = i;
	}
	ASSERT_LE(0, plain);
	ASSERT_LE(0, xmsr);
	P->n = 4;
	P->ev[0] = self->L->ev[plain];
	P->ev[0].counters ^= 1ULL << 7;		/* (b): a counter more or less */
	P->ev[1] = self->L->ev[xmsr];
	P->ev[1].msr[0] ^= 0x1;			/* (c): another MSR */
	P->ev[2] = self->L->ev[plain];
	P->ev[2].edge = true;			/* (a): e without c, refused */
	P->ev[3] = self->L->ev[plain];		/* unchanged */

	judge(self->m, &self->caps, &P->ev[0], 0, &v);
	EXPECT_TRUE(!v.core && v.differs[D_COUNTERS] && !v.differs[D_MSR]);
	judge(self->m, &self->caps, &P->ev[1], 0, &v);
	EXPECT_TRUE(!v.core && !v.differs[D_COUNTERS] && v.differs[D_MSR]);
	judge(self->m, &self->caps, &P->ev[2], 0, &v);
	EXPECT_TRUE(v.core && v.reason == PMUCTL_R_EDGE_NO_CMASK);
	judge(self->m, &self->caps, &P->ev[3], 0, &v);
	EXPECT_TRUE(!v.core && !v.differs[D_COUNTERS] && !v.differs[D_MSR]);

	/* Only the unchanged one passes; the bogus entry explains nothing. */
	for (i = 0; i < P->n; i++) {
		struct ilist *one = malloc(sizeof(*one));
		unsigned long before = r.failed;

		ASSERT_NE(NULL, one);
		one->n = 1;
		one->ev[0] = P->ev[i];
		r._metadata = NULL;
		compare_list(&r, variant->list, self->m, &self->caps, one, bogus, 1);
		EXPECT_EQ(i == 3 ? before : before + 1, r.failed)
			TH_LOG("planted difference %d", i);
		free(one);
	}
	EXPECT_EQ(1UL, r.agree);
	EXPECT_EQ(0UL, r.hits[0]);	/* stale: disagreements_still_occur would fail */

	/* A translated fixed-counter event is held to Intel's fixed counter. */
	for (i = 0; variant->arch_fixed && i < self->L->n; i++) {
		if (!self->L->ev[i].listed_as)
			continue;
		P->n = 1;
		P->ev[0] = self->L->ev[i];
		P->ev[0].counters = FIXED(2);	/* neither INST_RETIRED.ANY's nor THREAD's */
		r.failed = 0;
		compare_list(&r, variant->list, self->m, &self->caps, P, bogus, 1);
		EXPECT_EQ(1UL, r.failed) TH_LOG("%s", P->ev[0].name);
	}
	free(P);
}

/* The parser refuses what the script never writes. */
TEST(parser_refuses_malformed_lines)
{
	static const char *const bad[] = {
		"A.B 0x3c 0x0 0x0 0 0 0 0 0 0,1 - - 0 extra",
		"A.B 0x3c 0x0 0x0 0 0 0 0 0 0,1 - -",
		"A.B 0x13c 0x0 0x0 0 0 0 0 0 0,1 - - 0",
		"A.B 0x3c 0x0 0x0 0 2 0 0 0 0,1 - - 0",
		"A.B 0x3c 0x0 0x0 0 0 0 0 0 0,x - - 0",
		"A.B 0x3c 0x0 0x0 0 0 0 0 0 g1 - - 0",
		"A.B 0x2a,0x2b 0x1 0x0 0 0 0 0 0 0,1 0x1a6 0x1 0",
		"A.B 0x2a,0x2b 0x1 0x0 0 0 0 0 0 0,1 - - 0",
		"A.B 0x2a 0x1 0x0 0 0 0 0 0 0,1 - 0x1 0",
		"A.B 0xb7 0x1,0x2 0x0 0 0 0 0 0 0,1 - - 0",
		"A.B 0xb7 0x1,0x2 0x0 0 0 0 0 0 0,1 0x1a6 0x1 0",
		"A.B 0x2a,0x2b 0x1,0x2 0x0 0 0 0 0 0 0,1 0x1a6,0x1a7 0x1 0",
		"A.B 0xb7 0x1,0x102 0x0 0 0 0 0 0 0,1 0x1a6,0x1a7 0x1 0",
		"A.B 0xc4 0x1 0x100 0 0 0 0 0 0,1 - - 0",	/* umask2 of 9 bits */
		"A.B 0xc4 0x1 0x1,0x2 0 0 0 0 0 0,1 - - 0",	/* two umask2s */
		"A.B 0xc4 0x1 0x0 1 0 0 2 0 0,1 - - 0",	/* eq 2 */
	};
	char buf[128];
	struct ievent e;
	size_t i;

	strcpy(buf, "A.B 0x2a,0x2b 0x1 0x0 0 0 0 0 0 0,1,2,3 0x1a6,0x1a7 0x10001 0");
	ASSERT_TRUE(parse_line(buf, &e));
	EXPECT_EQ(2U, e.ncodes);
	EXPECT_EQ(0x2bU, e.code[1]);
	EXPECT_EQ(0x1a7U, e.msr[1]);
	EXPECT_EQ(0x10001ULL, e.msrvalue);
	EXPECT_EQ(GP(4), e.counters);
	/* The Atom cores' OCR: one code, two umasks, one MSR each. */
	strcpy(buf, "A.B 0xb7 0x1,0x2 0x0 0 0 0 0 0 0,1,2,3,4,5 0x1a6,0x1a7 0x10001 0");
	ASSERT_TRUE(parse_line(buf, &e));
	EXPECT_EQ(2U, e.ncodes);
	EXPECT_EQ(0xb7U, e.code[1]);
	EXPECT_EQ(0x2U, e.umask[1]);
	EXPECT_EQ(0x1a7U, e.msr[1]);
	EXPECT_EQ(GP(6), e.counters);
	EXPECT_EQ(0x02b7ULL | PMUCTL_CFG_USR | PMUCTL_CFG_OS, encode(&e, 1));
	/* Perfmon v6's umask2 and eq reach the config. */
	strcpy(buf, "A.B 0xc4 0x11 0x1 1 0 0 1 0 0,1,2,3,4,5,6,7,8,9 - - 0");
	ASSERT_TRUE(parse_line(buf, &e));
	EXPECT_EQ(GP(10), e.counters);
	EXPECT_EQ(0x11c4ULL | PMUCTL_CFG_USR | PMUCTL_CFG_OS | PMUCTL_CFG_EQ |
		  (1ULL << 24) | (1ULL << PMUCTL_CFG_UMASK2_SHIFT), encode(&e, 0));
	strcpy(buf, "A.B 0x0 0x3 0x0 0 0 0 0 0 f2 - - 1");
	ASSERT_TRUE(parse_line(buf, &e));
	EXPECT_EQ(FIXED(2), e.counters);
	EXPECT_TRUE(e.deprecated);
	for (i = 0; i < PMUCTL_NELEM(bad); i++) {
		strcpy(buf, bad[i]);
		EXPECT_FALSE(parse_line(buf, &e)) TH_LOG("accepted: %s", bad[i]);
	}
}

/* The grand total, after every variant ran (fixtures run in order). */
FIXTURE(intel_total) {
	int unused;
};

FIXTURE_SETUP(intel_total)
{
}

FIXTURE_TEARDOWN(intel_total)
{
}

TEST_F(intel_total, compared_every_list)
{
	unsigned long enc = 0, agree = 0;
	int i;

	ASSERT_NE(NULL, totals);
	for (i = 0; i < NR_VARIANTS; i++) {
		EXPECT_TRUE(totals->ran[i]) TH_LOG("variant %d did not run", i);
		enc += totals->encodings[i];
		agree += totals->agree[i];
	}
	say("total: %lu Intel encodings compared, %lu agree in every field\n", enc, agree);
}

TEST_HARNESS_MAIN
