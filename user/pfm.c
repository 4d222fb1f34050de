// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * pmuctl's bridge to libpfm4 for event names (see pfm.h for the contract).
 *
 * libpfm4 4.13 facts this file relies on, observed with PFM_OS_NONE:
 *  - pfm_get_os_event_encoding() gives codes[0] = the PERFEVTSEL image with
 *    EN (bit 22) and INT (bit 20) always set, and for OFFCORE_RESPONSE_x,
 *    FRONTEND_RETIRED and MEM_TRANS_RETIRED:LOAD_LATENCY codes[1] = the
 *    extra MSR value (count 2), and so for OCR (Ice Lake on); bare
 *    MEM_TRANS_RETIRED gives count 1.
 *  - pfm_get_event_attr_info() reports a umask's code as the PERFEVTSEL
 *    bits shifted right by 8 (umask in bits 0..7, edge 10, inv 15, cmask
 *    16..23); for OFFCORE_RESPONSE_x and FRONTEND_RETIRED it is the value
 *    OR-ed into the extra MSR.
 *  - LIBPFM_FORCE_PMU is read by every pfm_initialize(); an unknown name
 *    is ignored silently; a PMU once forced stays active after
 *    pfm_terminate().  Hence the check after init and the "pmu::" prefix.
 *  - With a dfl_plm of 0, a string without u/k gets neither USR nor OS.
 *  - On icl, icx and spr its TOPDOWN umasks other than SLOTS and SLOTS_P
 *    come out with event select 0 (BACKEND_BOUND_SLOTS 0x0200,
 *    BR_MISPREDICT_SLOTS 0x0800, spr's BAD_SPEC_SLOTS 0x0400 and
 *    MEMORY_BOUND_SLOTS 0x1000), where Intel's lists give event 0xa4
 *    (icelake_core.json, sapphirerapids_core.json: 0x02a4, 0x04a4,
 *    0x08a4, 0x10a4).  Event select 0 with those umasks names a fixed
 *    counter's pseudo encoding (0x0200, 0x0400) or nothing: the bridge
 *    writes event 0xa4 (topdown_fix()).
 *  - On spr, OFFCORE_RESPONSE_1 comes out as 0x012a, OFFCORE_RSP_0's event
 *    (as OCR), though its table entry names 0x12b: the bridge writes 0x2b
 *    (rsp1_fix()), so the name selects the register it names.
 *  - On skl, ANY_REQUEST's code is 0x18007: bit 16 is ANY_RESPONSE, which
 *    its own uequiv and Intel's event lists do not include (ANY_REQUEST
 *    is 0x8007).  Next to a supplier (bits 17..30) that makes every such
 *    encoding one the module refuses (OFFCORE_ANY_RESPONSE_MIXED), so the
 *    bit goes when a supplier is there and the string does not name
 *    any_response (skl_any_request_fix()).
 *  - On skl, a snoop umask (bits 31..37) without a supplier gets the
 *    default ANY_RESPONSE (bit 16): a mix no Skylake counts, which the
 *    user did not write; the bridge refuses it saying so and what to
 *    write (skl_snoop_only()).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <perfmon/pfmlib.h>

#include "expr.h"		/* pmuctl_say() */
#include "pfm.h"

/* PERFEVTSEL fields (FACTS.md 1; uapi PMUCTL_CFG_* for the same bits). */
#define SEL_EVENT	0x00000000000000ffULL
#define SEL_UMASK	0x000000000000ff00ULL
#define SEL_USR		(1ULL << 16)
#define SEL_OS		(1ULL << 17)
#define SEL_EDGE	(1ULL << 18)
#define SEL_INT		(1ULL << 20)
#define SEL_ANY		(1ULL << 21)
#define SEL_EN		(1ULL << 22)
#define SEL_INV		(1ULL << 23)
#define SEL_CMASK	0x00000000ff000000ULL
#define SEL_IN_TX	(1ULL << 32)
#define SEL_IN_TXCP	(1ULL << 33)
#define SEL_FROM_UMASK	(SEL_UMASK | SEL_EDGE | SEL_INV | SEL_CMASK)

/* MSR_PEBS_FRONTEND bits 8..19: the IDQ bubble latency threshold [SDM]. */
#define FE_THRES_SHIFT	8
#define FE_THRES_MASK	(0xfffULL << FE_THRES_SHIFT)

#define PMU_NAME_CHARS	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
#define MAX_STRING	512
#define MAX_ATTRS	64

/* The modifiers pmuctl can compose by itself, and their field limits. */
enum mod { MOD_K, MOD_U, MOD_E, MOD_I, MOD_C, MOD_T, MOD_INTX, MOD_INTXCP,
	   MOD_LDLAT, MOD_FE_THRES, MOD_NR };

static const struct {
	const char *name;
	uint64_t max;
} mods[MOD_NR] = {
	[MOD_K] = { "k", 1 },
	[MOD_U] = { "u", 1 },
	[MOD_E] = { "e", 1 },
	[MOD_I] = { "i", 1 },
	[MOD_C] = { "c", 0xff },
	[MOD_T] = { "t", 1 },
	[MOD_INTX] = { "intx", 1 },
	[MOD_INTXCP] = { "intxcp", 1 },
	[MOD_LDLAT] = { "ldlat", 0xffff },
	[MOD_FE_THRES] = { "fe_thres", 0xfff },
};

static struct {
	bool ready;
	int pmu;			/* pfm_pmu_t of the selected PMU */
	char name[64];			/* its libpfm4 name */
	int host;			/* core PMU detected without forcing, -1 none */
	bool host_known;
	unsigned int mods;		/* enum mod bits the PMU has */
	bool forced;			/* a PMU was forced once */
	bool tables_built;		/* an init may have built event tables */
	bool tables_freed;		/* a terminate freed them: no more */
	bool built[PFM_PMU_MAX];	/* the PMUs whose tables those were */
} st = { .pmu = -1, .host = -1 };

static int pfm_errno(int ret)
{
	switch (ret) {
	case PFM_SUCCESS:
		return 0;
	case PFM_ERR_NOMEM:
		return -ENOMEM;
	case PFM_ERR_NOTFOUND:
		return -ENOENT;
	case PFM_ERR_NOTSUPP:
		return -EOPNOTSUPP;
	default:
		return -EINVAL;
	}
}

static bool pmu_info(int pmu, pfm_pmu_info_t *pi)
{
	memset(pi, 0, sizeof(*pi));
	/* its table is freed memory (pfm_reinit()): libpfm4 would read it */
	if (st.tables_freed && pmu >= 0 && pmu < PFM_PMU_MAX && st.built[pmu])
		return false;
	pi->size = sizeof(*pi);
	return pfm_get_pmu_info(pmu, pi) == PFM_SUCCESS && pi->name;
}

/*
 * pfm_initialize() with LIBPFM_FORCE_PMU = @force for this call only.
 *
 * libpfm4 4.13's pfm_terminate() frees the event table that some PMUs
 * build at init (ix86arch, and PMUs found without forcing, such as the
 * host's amd64 or ix86arch) yet leaves those PMUs active, and forcing
 * another PMU does not rebuild the table: the next pfm_terminate() frees
 * it again.  So after an init that may have built such tables one more
 * terminate is safe, and then no other: -EBUSY rather than a double free.
 */
static int pfm_reinit(const char *force)
{
	const char *env = getenv("LIBPFM_FORCE_PMU");
	char *saved;
	int ret;

	if (st.tables_freed)
		return -EBUSY;
	saved = env ? strdup(env) : NULL;
	if (env && !saved)
		return -ENOMEM;
	pfm_terminate();
	if (st.tables_built)
		st.tables_freed = true;
	if (force && setenv("LIBPFM_FORCE_PMU", force, 1)) {
		free(saved);
		return -errno;
	}
	ret = pfm_initialize();
	if (force && !strcasecmp(force, "ix86arch")) {
		st.tables_built = true;
		st.built[PFM_PMU_INTEL_X86_ARCH] = true;
	} else if (!force) {
		/* the PMUs libpfm4 found here (none was forced before) */
		pfm_pmu_info_t pi;
		int p;

		st.tables_built = true;
		for (p = 0; p < PFM_PMU_MAX; p++)
			if (pmu_info(p, &pi) && pi.is_present)
				st.built[p] = true;
	}
	if (force) {
		if (saved)
			setenv("LIBPFM_FORCE_PMU", saved, 1);
		else
			unsetenv("LIBPFM_FORCE_PMU");
	}
	free(saved);
	return pfm_errno(ret);
}

/*
 * The first core PMU libpfm4 found on its own, right after an unforced
 * pfm_initialize().  Only before any PMU was forced: a forced PMU stays
 * active after pfm_terminate() and would look like the host's.
 */
static void host_detect(void)
{
	pfm_pmu_info_t pi;
	int p;

	st.host = -1;
	for (p = 0; p < PFM_PMU_MAX && st.host < 0; p++)
		if (pmu_info(p, &pi) && pi.is_present &&
		    pi.type == PFM_PMU_TYPE_CORE)
			st.host = p;
	st.host_known = true;
}

/* One ':'/'.'-separated attribute of the event string. */
struct attr {
	char *name;
	char *value;		/* after '=', NULL if none */
	int mod;		/* enum mod, or -1 for a umask */
	uint64_t code;		/* a umask's libpfm4 code */
	bool own;		/* the event itself has it (not a sibling, not only the PMU) */
};

static bool event_info(int idx, pfm_event_info_t *ei)
{
	memset(ei, 0, sizeof(*ei));
	ei->size = sizeof(*ei);
	return pfm_get_event_info(idx, PFM_OS_NONE, ei) == PFM_SUCCESS;
}

/* Look @name up among the attributes of event @idx; type PFM_ATTR_*. */
static bool attr_find(int idx, int nattrs, const char *name, int type,
		      uint64_t *code)
{
	pfm_event_attr_info_t ai;
	int a;

	for (a = 0; a < nattrs; a++) {
		memset(&ai, 0, sizeof(ai));
		ai.size = sizeof(ai);
		if (pfm_get_event_attr_info(idx, a, PFM_OS_NONE, &ai) != PFM_SUCCESS)
			continue;
		if ((int)ai.type == type && ai.name && !strcasecmp(ai.name, name)) {
			*code = ai.code;
			return true;
		}
	}
	return false;
}

static int pmu_first_event(void)
{
	pfm_pmu_info_t pi;

	return pmu_info(st.pmu, &pi) ? pi.first_event : -1;
}

/* A umask of another event of the PMU with the same event select. */
static bool sibling_umask(const pfm_event_info_t *ev, const char *name,
			  uint64_t *code)
{
	pfm_event_info_t ei;
	int i;

	for (i = pmu_first_event(); i >= 0; i = pfm_get_event_next(i)) {
		if (!event_info(i, &ei) || (int)ei.pmu != st.pmu)
			break;
		if (i == ev->idx || (ei.code & SEL_EVENT) != (ev->code & SEL_EVENT))
			continue;
		if (attr_find(i, ei.nattrs, name, PFM_ATTR_UMASK, code))
			return true;
	}
	return false;
}

/* The modifiers of enum mod that some event of the selected PMU has. */
static unsigned int pmu_modifiers(void)
{
	pfm_event_attr_info_t ai;
	pfm_event_info_t ei;
	unsigned int set = 0;
	int i, a, m;

	for (i = pmu_first_event(); i >= 0; i = pfm_get_event_next(i)) {
		if (!event_info(i, &ei) || (int)ei.pmu != st.pmu)
			break;
		for (a = 0; a < ei.nattrs; a++) {
			memset(&ai, 0, sizeof(ai));
			ai.size = sizeof(ai);
			if (pfm_get_event_attr_info(i, a, PFM_OS_NONE, &ai) != PFM_SUCCESS ||
			    (ai.type != PFM_ATTR_MOD_BOOL && ai.type != PFM_ATTR_MOD_INTEGER))
				continue;
			for (m = 0; m < MOD_NR; m++)
				if (!strcasecmp(ai.name, mods[m].name))
					set |= 1U << m;
		}
	}
	return set;
}

int pmuctl_pfm_init(const char *pmu)
{
	pfm_pmu_info_t pi;
	int ret, p, found = -1;

	if (pmu) {
		size_t n = strlen(pmu);

		if (!n || n >= sizeof(st.name) ||
		    strspn(pmu, PMU_NAME_CHARS) != n)
			return -EINVAL;
	}
	/* already selected: nothing to redo (and after pfm_reinit() refused
	 * another PMU, this one stays usable) */
	if (st.ready && pmu && !strcasecmp(pmu, st.name))
		return 0;
	/* the host's PMU is found by libpfm4 itself, and only before any
	 * PMU was forced (host_detect()) */
	if ((!pmu && st.forced && !st.host_known) || st.tables_freed)
		return -EBUSY;
	st.ready = false;
	ret = pfm_reinit(pmu);
	if (ret)
		return ret;
	if (pmu)
		st.forced = true;
	else if (!st.host_known)
		host_detect();

	if (!pmu) {
		found = st.host;
		if (found < 0)
			return -ENODEV;
	} else {
		for (p = 0; p < PFM_PMU_MAX && found < 0; p++)
			if (pmu_info(p, &pi) && !strcasecmp(pi.name, pmu))
				found = p;
		if (found < 0)
			return -ENOENT;
	}
	if (!pmu_info(found, &pi) || !pi.is_present ||
	    pi.type != PFM_PMU_TYPE_CORE)
		return -ENODEV;
	st.pmu = found;
	snprintf(st.name, sizeof(st.name), "%s", pi.name);
	st.mods = pmu_modifiers();
	st.ready = true;
	return 0;
}

const char *pmuctl_pfm_name(void)
{
	return st.ready ? st.name : NULL;
}

/* libpfm4's encoding of @str: 0, or a libpfm4 error (PFM_ERR_*). */
static int pfm_encode(const char *str, uint64_t *config, uint64_t *extra,
		      int *count)
{
	uint64_t codes[8] = { 0 };
	pfm_pmu_encode_arg_t arg;
	int ret;

	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	arg.codes = codes;
	arg.count = (int)(sizeof(codes) / sizeof(codes[0]));
	ret = pfm_get_os_event_encoding(str, PFM_PLM0 | PFM_PLM3, PFM_OS_NONE, &arg);
	if (ret != PFM_SUCCESS)
		return ret;
	*config = codes[0] & ~(SEL_EN | SEL_INT);
	*extra = arg.count > 1 ? codes[1] : 0;
	*count = arg.count;
	return 0;
}

/* Events whose umask codes are extra-MSR values in libpfm4's tables. */
static bool umask_is_extra(const char *event)
{
	return !strncasecmp(event, "OFFCORE_RESPONSE", 16) || !strcasecmp(event, "OCR") ||
	       !strcasecmp(event, "FRONTEND_RETIRED");
}

static int parse_value(const struct attr *a, uint64_t *v, char *msg, size_t len)
{
	char *end;

	if (!a->value) {
		if (mods[a->mod].max != 1) {
			pmuctl_say(msg, len, "modifier '%s' needs a value", a->name);
			return -EINVAL;
		}
		*v = 1;
		return 0;
	}
	errno = 0;
	*v = strtoull(a->value, &end, 0);
	if (errno || !*a->value || *end || *a->value == '-' || *v > mods[a->mod].max) {
		pmuctl_say(msg, len, "modifier '%s': value '%s' is not in [0:%llu]",
		    a->name, a->value, (unsigned long long)mods[a->mod].max);
		return -EINVAL;
	}
	return 0;
}

/* Modifiers that libpfm4 folds into the extra value. */
static bool is_xmod(int mod)
{
	return mod == MOD_LDLAT || mod == MOD_FE_THRES;
}

/* libpfm4's encoding of the event with its umasks only (and @xmods). */
static bool stage(const pfm_event_info_t *ev, const struct attr *at, int n,
		  bool xmods, uint64_t *cfg, uint64_t *x)
{
	char base[MAX_STRING];
	size_t off;
	int i, count;

	off = (size_t)snprintf(base, sizeof(base), "%s::%s", st.name, ev->name);
	for (i = 0; i < n && off < sizeof(base); i++)
		if (at[i].mod < 0 || (xmods && at[i].own && is_xmod(at[i].mod)))
			off += (size_t)snprintf(base + off, sizeof(base) - off,
						":%s%s%s", at[i].name,
						at[i].value ? "=" : "",
						at[i].value ? at[i].value : "");
	return off < sizeof(base) && !pfm_encode(base, cfg, x, &count) &&
	       count <= 2;
}

/*
 * libpfm4 refused @qual: compose it literally (pfm.h).  @ev is the event,
 * @at the parsed attributes, which all exist.
 */
static int compose(const pfm_event_info_t *ev, struct attr *at, int n,
		   uint64_t *config, uint64_t *extra, char *msg, size_t len)
{
	uint64_t cfg = 0, x = 0, v, priv = 0;
	bool all_own = true, priv_given = false, staged, xmods_done;
	int i, ret;

	/*
	 * The umasks as libpfm4 encodes them without the other modifiers: first
	 * with the event's own ldlat/fe_thres, which libpfm4 folds into the
	 * extra value, then without them; literally if libpfm4 refuses both.
	 */
	for (i = 0; i < n; i++)
		if (at[i].mod < 0 && !at[i].own)
			all_own = false;
	xmods_done = all_own && stage(ev, at, n, true, &cfg, &x);
	staged = xmods_done || (all_own && stage(ev, at, n, false, &cfg, &x));
	if (!staged) {
		cfg = (ev->code & (SEL_EVENT | SEL_FROM_UMASK)) | SEL_USR | SEL_OS;
		x = 0;
		for (i = 0; i < n; i++) {
			if (at[i].mod >= 0)
				continue;
			if (umask_is_extra(ev->name))
				x |= at[i].code;
			else
				cfg |= (at[i].code << 8) & SEL_FROM_UMASK;
		}
	}
	for (i = 0; i < n; i++) {
		if (!is_xmod(at[i].mod) || (xmods_done && at[i].own))
			continue;
		ret = parse_value(&at[i], &v, msg, len);
		if (ret)
			return ret;
		if (at[i].mod == MOD_LDLAT)
			x = v;
		else
			x = (x & ~FE_THRES_MASK) | v << FE_THRES_SHIFT;
	}

	for (i = 0; i < n; i++) {
		uint64_t bit = 0;

		if (at[i].mod < 0 || is_xmod(at[i].mod))
			continue;
		ret = parse_value(&at[i], &v, msg, len);
		if (ret)
			return ret;
		switch (at[i].mod) {
		case MOD_U:
			priv = v ? priv | SEL_USR : priv & ~SEL_USR;
			priv_given = true;
			continue;
		case MOD_K:
			priv = v ? priv | SEL_OS : priv & ~SEL_OS;
			priv_given = true;
			continue;
		case MOD_C:
			cfg = (cfg & ~SEL_CMASK) | v << 24;
			continue;
		case MOD_E:
			bit = SEL_EDGE;
			break;
		case MOD_I:
			bit = SEL_INV;
			break;
		case MOD_T:
			bit = SEL_ANY;
			break;
		case MOD_INTX:
			bit = SEL_IN_TX;
			break;
		case MOD_INTXCP:
			bit = SEL_IN_TXCP;
			break;
		}
		cfg = v ? cfg | bit : cfg & ~bit;
	}
	if (priv_given)
		cfg = (cfg & ~(SEL_USR | SEL_OS)) | priv;
	*config = cfg;
	*extra = x;
	return PMUCTL_PFM_REFUSED;
}

bool pmuctl_pfm_has_attr(const char *str, const char *attr)
{
	size_t n = strlen(attr);
	const char *s;

	for (s = strpbrk(str, ":."); s; s = strpbrk(s + 1, ":.")) {
		if (!strncasecmp(s + 1, attr, n) &&
		    (!s[n + 1] || s[n + 1] == ':' || s[n + 1] == '.'))
			return true;
	}
	return false;
}

/*
 * libpfm4 4.13's TOPDOWN umasks that belong to event 0xa4 on Ice Lake and
 * Sapphire Rapids (the header comment): given one of them by name with
 * event select 0, write event 0xa4.
 */
static void topdown_fix(const char *event, uint64_t *config)
{
	static const char *const in_a4[] = {
		"backend_bound_slots", "bad_spec_slots", "br_mispredict_slots",
		"memory_bound_slots",
	};
	size_t n = strcspn(event, ":.");

	if ((strcasecmp(st.name, "icl") && strcasecmp(st.name, "icx") &&
	     strcasecmp(st.name, "spr")) ||
	    n != strlen("topdown") || strncasecmp(event, "topdown", n) ||
	    (*config & SEL_EVENT))
		return;
	for (size_t i = 0; i < sizeof(in_a4) / sizeof(in_a4[0]); i++) {
		if (pmuctl_pfm_has_attr(event, in_a4[i])) {
			*config |= 0xa4;
			return;
		}
	}
}

/* libpfm4 4.13's spr OFFCORE_RESPONSE_1 (the header comment). */
static void rsp1_fix(const char *event, uint64_t *config)
{
	size_t n = strcspn(event, ":.");

	if (strcasecmp(st.name, "spr") || n != strlen("offcore_response_1") ||
	    strncasecmp(event, "offcore_response_1", n) ||
	    (*config & SEL_EVENT) != 0x2a)
		return;
	*config = (*config & ~SEL_EVENT) | 0x2b;
}

/*
 * Skylake's OFFCORE_RSP_x fields (FACTS.md 2): request bits 0..15,
 * ANY_RESPONSE bit 16, suppliers 17..30, snoops 31..37.
 */
#define SKL_ANY_RESPONSE	(1ULL << 16)
#define SKL_SUPPLIER		0x7ffe0000ULL
#define SKL_SNOOP		0x3f80000000ULL

/* Skylake's OFFCORE_RESPONSE_0/1 (event 0xb7, 0xbb), by the encoding. */
static bool skl_offcore(uint64_t config)
{
	return !strcasecmp(st.name, "skl") &&
	       ((config & SEL_EVENT) == 0xb7 || (config & SEL_EVENT) == 0xbb);
}

/*
 * libpfm4 4.13's Skylake ANY_REQUEST (the header comment): bit 16 next to
 * a supplier goes, unless the string asks for any_response.  Alone, or
 * with snoops only, bit 16 is also libpfm4's default ANY_RESPONSE and
 * stays (skl_snoop_only() says what to do about the snoops).
 */
static void skl_any_request_fix(const char *event, uint64_t config,
				uint64_t *extra)
{
	if (skl_offcore(config) && (*extra & SKL_ANY_RESPONSE) &&
	    (*extra & SKL_SUPPLIER) && !pmuctl_pfm_has_attr(event, "any_response"))
		*extra &= ~SKL_ANY_RESPONSE;
}

/* libpfm4's encodings pmuctl corrects, in one place. */
static void pfm_fixes(const char *event, uint64_t *config, uint64_t *extra)
{
	topdown_fix(event, config);
	rsp1_fix(event, config);
	skl_any_request_fix(event, *config, extra);
}

/*
 * What libpfm4 composes and no Skylake counts (the header comment): a
 * snoop umask without a supplier gets libpfm4's default ANY_RESPONSE,
 * and ANY_RESPONSE with a snoop bit is a mix (the core's
 * OFFCORE_ANY_RESPONSE_MIXED) that the user did not write.  Return:
 * -EINVAL with @msg saying so and what to write, else 0.
 */
static int skl_snoop_only(const char *event, uint64_t config, uint64_t extra,
			  char *msg, size_t len)
{
	if (!skl_offcore(config) || !(extra & SKL_ANY_RESPONSE) ||
	    !(extra & SKL_SNOOP) || (extra & SKL_SUPPLIER) ||
	    pmuctl_pfm_has_attr(event, "any_response"))
		return 0;
	pmuctl_say(msg, len, "libpfm4 added ANY_RESPONSE, its default response, to a snoop without a supplier: a mix Skylake does not count (OFFCORE_ANY_RESPONSE_MIXED); a snoop qualifies a supplier: write '%s:l3_hit' (or l3_miss, supplier_none, ...), or drop the snoop for any response",
	    event);
	return -EINVAL;
}

int pmuctl_pfm_encode(const char *event, uint64_t *config, uint64_t *extra,
		      char *msg, size_t msglen)
{
	char buf[MAX_STRING], qual[MAX_STRING + 80], evname[MAX_STRING + 80];
	struct attr at[MAX_ATTRS] = { 0 };
	pfm_event_info_t ev;
	char *s, *p, *colon;
	int ret, n = 0, i, idx, count;
	bool more;
	uint64_t c, x;

	*config = 0;
	*extra = 0;
	pmuctl_say(msg, msglen, "%s", "");
	if (!st.ready) {
		pmuctl_say(msg, msglen, "no libpfm4 PMU selected (pmuctl_pfm_init)");
		return -ENODEV;
	}
	if (!event || strlen(event) >= sizeof(buf)) {
		pmuctl_say(msg, msglen, "event string missing or too long");
		return -EINVAL;
	}
	strcpy(buf, event);
	s = buf;
	p = strstr(s, "::");
	if (p) {
		*p = '\0';
		if (strcasecmp(s, st.name)) {
			pmuctl_say(msg, msglen, "event of PMU '%s', but '%s' is selected",
			    s, st.name);
			return -EINVAL;
		}
		s = p + 2;
	}
	snprintf(qual, sizeof(qual), "%s::%s", st.name, s);

	ret = pfm_encode(qual, &c, &x, &count);
	if (!ret) {
		if (count > 2) {
			pmuctl_say(msg, msglen, "libpfm4 gives %d codes for '%s'", count, event);
			return -EOVERFLOW;
		}
		pfm_fixes(s, &c, &x);
		ret = skl_snoop_only(event, c, x, msg, msglen);
		if (ret)
			return ret;
		*config = c;
		*extra = x;
		return 0;
	}
	if (ret == PFM_ERR_NOMEM) {
		pmuctl_say(msg, msglen, "libpfm4: %s", pfm_strerror(ret));
		return -ENOMEM;
	}

	/* Refused or unknown: find out which, naming the culprit. */
	colon = s + strcspn(s, ":.");
	snprintf(evname, sizeof(evname), "%s::%.*s", st.name, (int)(colon - s), s);
	idx = pfm_find_event(evname);
	if (idx < 0 || !event_info(idx, &ev)) {
		pmuctl_say(msg, msglen, "unknown event '%.*s' for PMU %s", (int)(colon - s),
		    s, st.name);
		return -ENOENT;
	}
	more = *colon != '\0';
	p = more ? colon + 1 : colon;
	while (more) {
		char *name = p;

		p += strcspn(p, ":.");
		more = *p != '\0';
		*p = '\0';
		if (more)
			p++;
		if (n == MAX_ATTRS) {
			pmuctl_say(msg, msglen, "more than %d attributes", MAX_ATTRS);
			return -EINVAL;
		}
		at[n] = (struct attr){ .name = name, .mod = -1 };
		at[n].value = strchr(name, '=');
		if (at[n].value)
			*at[n].value++ = '\0';
		if (!*name) {
			pmuctl_say(msg, msglen, "empty attribute name in '%s'", event);
			return -EINVAL;
		}
		if (!at[n].value &&
		    attr_find(idx, ev.nattrs, name, PFM_ATTR_UMASK, &at[n].code)) {
			at[n].own = true;
		} else if (!at[n].value && sibling_umask(&ev, name, &at[n].code)) {
			at[n].own = false;
		} else {
			for (i = 0; i < MOD_NR; i++)
				if (!strcasecmp(name, mods[i].name))
					break;
			if (i == MOD_NR || !(st.mods & (1U << i))) {
				pmuctl_say(msg, msglen, "'%s' is not a umask or modifier of %s::%s",
				    name, st.name, ev.name);
				return -ENOENT;
			}
			at[n].mod = i;
			at[n].own = attr_find(idx, ev.nattrs, name, PFM_ATTR_MOD_BOOL, &c) ||
				    attr_find(idx, ev.nattrs, name, PFM_ATTR_MOD_INTEGER, &c);
		}
		n++;
	}

	i = compose(&ev, at, n, config, extra, msg, msglen);
	if (i == PMUCTL_PFM_REFUSED) {
		/* buf is cut up by now: the caller's string, past "pmu::" */
		pfm_fixes(event + (s - buf), config, extra);
		if (skl_snoop_only(event, *config, *extra, msg, msglen)) {
			*config = 0;
			*extra = 0;
			return -EINVAL;
		}
		pmuctl_say(msg, msglen, "libpfm4: %s", pfm_strerror(ret));
	}
	return i;
}
