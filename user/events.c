// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Intel's core event names: the lists of events/intel/, their models, and
 * the "EVENT.UMASK[:MODIFIER]..." strings perf and Intel's documents use.
 * The tables themselves are generated (scripts/events-c.awk).
 */
#include <cpuid.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "events.h"
#include "expr.h"

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * Each list, the model whose rules its events obey, and the CPUs Intel's
 * mapfile.csv (perfmon, same commit) gives it: family 6, these models,
 * steppings @step_lo..@step_hi.  The first list of a model is its own
 * (pmuctl_ilist_of() without a host match).  Knights Mill (0x85) has no
 * list: Intel's mapfile gives it Knights Landing's.
 */
static const struct {
	const char *list;
	uint32_t model;
	uint8_t cpus[6];
	uint8_t step_lo, step_hi;
} list_models[] = {
	{ "knl",     PMUCTL_MODEL_KNL,     { 0x57 }, 0, 15 },
	{ "knl",     PMUCTL_MODEL_KNM,     { 0x85 }, 0, 15 },
	{ "skl",     PMUCTL_MODEL_SKL,     { 0x4e, 0x5e, 0x8e, 0x9e, 0xa5, 0xa6 }, 0, 15 },
	{ "skx",     PMUCTL_MODEL_SKL,     { 0x55 }, 0, 4 },
	{ "clx",     PMUCTL_MODEL_SKL,     { 0x55 }, 5, 15 },
	{ "icl",     PMUCTL_MODEL_ICL,     { 0x7d, 0x7e }, 0, 15 },
	{ "icx",     PMUCTL_MODEL_ICX,     { 0x6a, 0x6c }, 0, 15 },
	{ "spr",     PMUCTL_MODEL_SPR,     { 0x8f }, 0, 15 },
	{ "emr",     PMUCTL_MODEL_SPR,     { 0xcf }, 0, 15 },
	{ "gnr",     PMUCTL_MODEL_GNR,     { 0xad, 0xae }, 0, 15 },
	{ "adl_glc", PMUCTL_MODEL_ADL_GLC, { 0x97, 0x9a, 0xb7, 0xba, 0xbf }, 0, 15 },
	{ "adl_grt", PMUCTL_MODEL_ADL_GRT, { 0x97, 0x9a, 0xb7, 0xba, 0xbf, 0xbe }, 0, 15 },
	{ "srf",     PMUCTL_MODEL_SRF,     { 0xaf }, 0, 15 },
	{ "grr",     PMUCTL_MODEL_SRF,     { 0xb6 }, 0, 15 },
	{ "lnl_lnc", PMUCTL_MODEL_LNL_LNC, { 0xbd }, 0, 15 },
	{ "arl_lnc", PMUCTL_MODEL_LNL_LNC, { 0xc5, 0xc6 }, 0, 15 },
	{ "lnl_skt", PMUCTL_MODEL_LNL_SKT, { 0xbd }, 0, 15 },
	{ "arl_skt", PMUCTL_MODEL_LNL_SKT, { 0xc5, 0xc6 }, 0, 15 },
};

const struct pmuctl_ilist *pmuctl_ilist_find(const char *name)
{
	for (unsigned int i = 0; name && i < pmuctl_nr_ilists; i++)
		if (!strcasecmp(pmuctl_ilists[i].name, name))
			return &pmuctl_ilists[i];
	return NULL;
}

uint32_t pmuctl_ilist_model(const struct pmuctl_ilist *l)
{
	for (size_t i = 0; i < NELEM(list_models); i++)
		if (!strcmp(list_models[i].list, l->name))
			return list_models[i].model;
	return PMUCTL_MODEL_NONE;
}

/* This CPU's family 6 model and stepping; false on another vendor/family. */
static bool host_cpu(unsigned int *model, unsigned int *stepping)
{
	unsigned int a, b, c, d, family;

	if (!__get_cpuid(0, &a, &b, &c, &d) ||
	    b != 0x756e6547 || d != 0x49656e69 || c != 0x6c65746e)	/* GenuineIntel */
		return false;
	if (!__get_cpuid(1, &a, &b, &c, &d))
		return false;
	family = (a >> 8) & 0xf;
	if (family != 6)
		return false;
	*model = ((a >> 4) & 0xf) | ((a >> 12) & 0xf0);
	*stepping = a & 0xf;
	return true;
}

const struct pmuctl_ilist *pmuctl_ilist_of(uint32_t model, bool host)
{
	unsigned int cpu, step;
	const char *own = NULL;

	if (host && host_cpu(&cpu, &step)) {
		for (size_t i = 0; i < NELEM(list_models); i++) {
			if (list_models[i].model != model ||
			    step < list_models[i].step_lo ||
			    step > list_models[i].step_hi)
				continue;
			for (size_t j = 0; j < NELEM(list_models[i].cpus); j++)
				if (list_models[i].cpus[j] &&
				    list_models[i].cpus[j] == cpu)
					return pmuctl_ilist_find(list_models[i].list);
		}
	}
	for (size_t i = 0; i < NELEM(list_models) && !own; i++)
		if (list_models[i].model == model)
			own = list_models[i].list;
	return pmuctl_ilist_find(own);
}

const struct pmuctl_ievent *pmuctl_ievent_find(const struct pmuctl_ilist *l,
						const char *name, size_t len)
{
	for (unsigned int i = 0; l && i < l->nr; i++) {
		const char *n = pmuctl_ievent_name(&l->ev[i]);

		if (!strncasecmp(n, name, len) && !n[len])
			return &l->ev[i];
	}
	return NULL;
}

/* The models before Ice Lake, where event 0 names no fixed counter. */
static bool arch_fixed_encodings(const struct pmuctl_ilist *l)
{
	uint32_t m = pmuctl_ilist_model(l);

	return m == PMUCTL_MODEL_KNL || m == PMUCTL_MODEL_KNM ||
	       m == PMUCTL_MODEL_SKL;
}

void pmuctl_ievent_encode(const struct pmuctl_ilist *l,
			  const struct pmuctl_ievent *e, struct pmuctl_event *ev)
{
	uint64_t c = e->code | (uint64_t)e->umask << 8;

	memset(ev, 0, sizeof(*ev));
	if (!e->code && arch_fixed_encodings(l)) {
		static const uint16_t arch[] = { 0x00c0, 0x003c, 0x0300 };

		if (e->umask >= 1 && e->umask <= NELEM(arch))
			c = arch[e->umask - 1];
	}
	c |= PMUCTL_CFG_USR | PMUCTL_CFG_OS;
	c |= (uint64_t)e->cmask << PMUCTL_CFG_CMASK_SHIFT;
	c |= (uint64_t)e->umask2 << PMUCTL_CFG_UMASK2_SHIFT;
	if (e->flags & PMUCTL_IEV_INV)
		c |= PMUCTL_CFG_INV;
	if (e->flags & PMUCTL_IEV_EDGE)
		c |= PMUCTL_CFG_EDGE;
	if (e->flags & PMUCTL_IEV_EQ)
		c |= PMUCTL_CFG_EQ;
	if (e->flags & PMUCTL_IEV_ANY)
		c |= PMUCTL_CFG_ANY;
	ev->config = c;
	ev->extra = pmuctl_ixvals[e->xval];
}

/* Decimal or 0x hex, at most @max; false if not a number or too large. */
static bool parse_num(const char *s, size_t len, uint64_t max, uint64_t *out)
{
	int base = 10;
	uint64_t v = 0;
	size_t i = 0;

	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i == len)
		return false;
	for (; i < len; i++) {
		const char *digits = "0123456789abcdef";
		const char *p = strchr(digits, s[i] | 0x20);
		uint64_t d;

		if (!s[i] || !p || (uint64_t)(p - digits) >= (uint64_t)base)
			return false;
		d = (uint64_t)(p - digits);
		if (d > max || v > (max - d) / (uint64_t)base)
			return false;
		v = v * (uint64_t)base + d;
	}
	*out = v;
	return true;
}

/* The modifiers and the extra MSR each names (0: any event). */
static const struct {
	const char *name;
	uint8_t msr;
} extra_mods[] = {
	{ "offcore_rsp", PMUCTL_IEV_MSR_RSP0 },
	{ "ldlat", PMUCTL_IEV_MSR_LDLAT },
	{ "frontend", PMUCTL_IEV_MSR_FRONTEND },
};

static bool same(const char *a, size_t alen, const char *b)
{
	return strlen(b) == alen && !strncasecmp(a, b, alen);
}

int pmuctl_intel_resolve(const struct pmuctl_ilist *l, const char *str,
			 struct pmuctl_event *ev, char *msg, size_t msglen)
{
	const char *colon = strchr(str, ':');
	size_t len = colon ? (size_t)(colon - str) : strlen(str);
	const struct pmuctl_ievent *e = pmuctl_ievent_find(l, str, len);
	uint64_t priv = 0;

	memset(ev, 0, sizeof(*ev));
	if (!e)
		return 1;
	pmuctl_ievent_encode(l, e, ev);
	for (const char *m = colon; m; m = strchr(m + 1, ':')) {
		const char *end = strchr(m + 1, ':');
		size_t mlen = end ? (size_t)(end - m - 1) : strlen(m + 1);
		const char *tok = m + 1, *eq = memchr(tok, '=', mlen);
		size_t klen = eq ? (size_t)(eq - tok) : mlen;
		const char *val = eq ? eq + 1 : NULL;
		size_t vlen = eq ? mlen - klen - 1 : 0;
		uint64_t v = 1, bit = 0;
		size_t x;

		if (!mlen) {
			pmuctl_say(msg, msglen, "empty modifier in '%s'", str);
			return -EINVAL;
		}
		if (!eq && strspn(tok, "ukUK") >= mlen) {
			for (size_t i = 0; i < mlen; i++)
				priv |= (tok[i] | 0x20) == 'u' ? PMUCTL_CFG_USR :
								  PMUCTL_CFG_OS;
			continue;
		}
		if (same(tok, klen, "e") || same(tok, klen, "edge"))
			bit = PMUCTL_CFG_EDGE;
		else if (same(tok, klen, "i") || same(tok, klen, "inv"))
			bit = PMUCTL_CFG_INV;
		else if (same(tok, klen, "eq"))
			bit = PMUCTL_CFG_EQ;
		if (bit) {
			if (val && (!parse_num(val, vlen, 1, &v))) {
				pmuctl_say(msg, msglen, "modifier '%.*s' of %.*s takes 0 or 1, not '%.*s'",
					(int)klen, tok, (int)len, str, (int)vlen, val);
				return -EINVAL;
			}
			ev->config = v ? ev->config | bit : ev->config & ~bit;
			continue;
		}
		if (same(tok, klen, "umask")) {
			if (!val || !parse_num(val, vlen, 255, &v)) {
				pmuctl_say(msg, msglen, "modifier 'umask' of %.*s takes a unit mask from 0 to 0xff",
					(int)len, str);
				return -EINVAL;
			}
			ev->config = (ev->config & ~PMUCTL_CFG_UMASK) | v << 8;
			continue;
		}
		if (same(tok, klen, "c") || same(tok, klen, "cmask")) {
			if (!val || !parse_num(val, vlen, 255, &v)) {
				pmuctl_say(msg, msglen, "modifier '%.*s' of %.*s takes a count from 0 to 255 (e.g. %.*s:cmask=1)",
					(int)klen, tok, (int)len, str, (int)len, str);
				return -EINVAL;
			}
			ev->config = (ev->config & ~PMUCTL_CFG_CMASK) |
				     v << PMUCTL_CFG_CMASK_SHIFT;
			continue;
		}
		for (x = 0; x < NELEM(extra_mods); x++)
			if (same(tok, klen, extra_mods[x].name))
				break;
		if (x < NELEM(extra_mods)) {
			bool rsp = e->msr == PMUCTL_IEV_MSR_RSP0 ||
				   e->msr == PMUCTL_IEV_MSR_RSP1;

			if (rsp ? extra_mods[x].msr != PMUCTL_IEV_MSR_RSP0 :
				  extra_mods[x].msr != e->msr) {
				pmuctl_say(msg, msglen, "%.*s has no %s: that modifier is for the events with %s",
					(int)len, str, extra_mods[x].name,
					extra_mods[x].msr == PMUCTL_IEV_MSR_RSP0 ?
					"an offcore response (OCR.*, OFFCORE_RESPONSE.*)" :
					extra_mods[x].msr == PMUCTL_IEV_MSR_LDLAT ?
					"a load latency threshold (MEM_TRANS_RETIRED.LOAD_LATENCY*)" :
					"a front-end filter (FRONTEND_RETIRED.*)");
				return -ENOENT;
			}
			if (!val || !parse_num(val, vlen, UINT64_MAX, &v)) {
				pmuctl_say(msg, msglen, "modifier '%s' of %.*s takes a value (decimal or 0x hex)",
					extra_mods[x].name, (int)len, str);
				return -EINVAL;
			}
			ev->extra = v;
			continue;
		}
		if (same(tok, klen, "p") || same(tok, klen, "pp") ||
		    same(tok, klen, "ppp")) {
			pmuctl_say(msg, msglen, "'%.*s' asks for precise sampling: pmuctl counts, it does not sample; drop ':%.*s'",
				(int)mlen, tok, (int)mlen, tok);
			return -ENOENT;
		}
		pmuctl_say(msg, msglen, "unknown modifier '%.*s' of %.*s: Intel's names take u, k, e, i, eq, c=N (cmask=N), umask=N%s",
			(int)mlen, tok, (int)len, str,
			e->msr == PMUCTL_IEV_MSR_RSP0 || e->msr == PMUCTL_IEV_MSR_RSP1 ?
			", offcore_rsp=V" : e->msr == PMUCTL_IEV_MSR_LDLAT ?
			", ldlat=N" : e->msr == PMUCTL_IEV_MSR_FRONTEND ?
			", frontend=V" : "");
		return -ENOENT;
	}
	if (priv)
		ev->config = (ev->config & ~(PMUCTL_CFG_USR | PMUCTL_CFG_OS)) | priv;
	if (msg && msglen)
		msg[0] = '\0';
	return 0;
}

static bool contains(const char *hay, const char *needle, size_t len)
{
	for (; *hay; hay++)
		if (!strncasecmp(hay, needle, len))
			return true;
	return false;
}

/* Edit distance of @a (@alen) and @b, case-insensitive, capped at @cap. */
static unsigned int distance(const char *a, size_t alen, const char *b,
			     unsigned int cap)
{
	unsigned int row[128], blen = (unsigned int)strlen(b);

	if (alen >= NELEM(row) || blen >= NELEM(row))
		return cap;
	for (unsigned int j = 0; j <= blen; j++)
		row[j] = j;
	for (size_t i = 1; i <= alen; i++) {
		unsigned int diag = row[0], best;

		row[0] = (unsigned int)i;
		best = row[0];
		for (unsigned int j = 1; j <= blen; j++) {
			unsigned int up = row[j], d;

			d = diag + ((a[i - 1] | 0x20) != (b[j - 1] | 0x20));
			if (up + 1 < d)
				d = up + 1;
			if (row[j - 1] + 1 < d)
				d = row[j - 1] + 1;
			diag = up;
			row[j] = d;
			if (d < best)
				best = d;
		}
		if (best >= cap)
			return cap;
	}
	return row[blen] < cap ? row[blen] : cap;
}

char *pmuctl_intel_suggest(const struct pmuctl_ilist *l, const char *name,
			   size_t len, char *buf, size_t buflen)
{
	const struct pmuctl_ievent *best[3] = { NULL };
	unsigned int dist[3], cap = (unsigned int)len / 3 + 2;
	size_t n = 0;
	bool close;

	if (buflen)
		buf[0] = '\0';
	/* the closest by edit distance, within a third of the length */
	for (unsigned int i = 0; l && i < l->nr; i++) {
		const struct pmuctl_ievent *e = &l->ev[i];
		unsigned int d = distance(name, len, pmuctl_ievent_name(e), cap);
		size_t at;

		if (d >= cap || (e->flags & PMUCTL_IEV_DEPRECATED))
			continue;
		for (at = n; at > 0 && dist[at - 1] > d; at--)
			;
		if (at == NELEM(best))
			continue;
		if (n < NELEM(best))
			n++;
		memmove(&best[at + 1], &best[at], (n - 1 - at) * sizeof(best[0]));
		memmove(&dist[at + 1], &dist[at], (n - 1 - at) * sizeof(dist[0]));
		best[at] = e;
		dist[at] = d;
	}
	close = n > 0;
	/* nothing close: the first names that contain it ("l3_miss") */
	for (unsigned int i = 0; l && !close && len >= 3 && i < l->nr &&
	     n < NELEM(best); i++) {
		const struct pmuctl_ievent *e = &l->ev[i];

		if (!(e->flags & PMUCTL_IEV_DEPRECATED) &&
		    contains(pmuctl_ievent_name(e), name, len))
			best[n++] = e;
	}
	for (size_t i = 0, off = 0; i < n && off < buflen; i++) {
		int w = snprintf(buf + off, buflen - off, "%s%s",
				 !i ? "" : i + 1 == n ? " or " : ", ",
				 pmuctl_ievent_name(best[i]));

		if (w < 0)
			break;
		off += (size_t)w;
	}
	return buf;
}
