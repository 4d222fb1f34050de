// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Intel's metrics: lookup, which of them pmuctl computes (and why not),
 * their events as pmuctl encodes them, and their evaluation.  The tables
 * are generated (scripts/metrics-c.awk).
 */
#include <cpuid.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "libpmuctl.h"
#include "metrics.h"

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

const struct pmuctl_mlist *pmuctl_mlist_find(const char *list)
{
	for (unsigned int i = 0; list && i < pmuctl_nr_mlists; i++)
		if (!strcasecmp(pmuctl_mlists[i].name, list))
			return &pmuctl_mlists[i];
	return NULL;
}

static const struct pmuctl_imetric *find(const struct pmuctl_mlist *ml,
					 const char *name, size_t len)
{
	for (unsigned int i = 0; ml && i < ml->nr; i++) {
		const char *n = pmuctl_metric_name(&ml->m[i]);

		if (!strncasecmp(n, name, len) && !n[len])
			return &ml->m[i];
	}
	return NULL;
}

/*
 * perf's and everyone's short names for the common metrics, and the
 * names Intel's lists give them: the first a list has.
 */
static const struct {
	const char *alias;
	const char *names[3];
} aliases_of[] = {
	{ "IPC", { "Info_Thread_IPC", "Info_Core_IPC" } },
	{ "CPI", { "Info_Thread_CPI", "Info_Core_CPI", "cpi" } },
	{ "CoreIPC", { "Info_Core_CoreIPC", "Info_Core_IPC" } },
	{ "L1MPKI", { "Info_Memory_L1MPKI" } },
	{ "L2MPKI", { "Info_Memory_L2MPKI" } },
	{ "L3MPKI", { "Info_Memory_L3MPKI" } },
};

const struct pmuctl_imetric *pmuctl_metric_find(const struct pmuctl_mlist *ml,
						 const char *name, size_t len)
{
	const struct pmuctl_imetric *m = find(ml, name, len);

	for (size_t a = 0; !m && a < NELEM(aliases_of); a++) {
		if (strlen(aliases_of[a].alias) != len ||
		    strncasecmp(aliases_of[a].alias, name, len))
			continue;
		for (size_t i = 0; !m && i < NELEM(aliases_of[a].names) &&
		     aliases_of[a].names[i]; i++)
			m = find(ml, aliases_of[a].names[i],
				 strlen(aliases_of[a].names[i]));
	}
	return m;
}

const char *pmuctl_metric_attr(const struct pmuctl_imetric *m, int which,
			       char *buf, size_t len)
{
	const char *s = pmuctl_mpool + m->attrs;

	for (; which > 0 && s; which--) {
		s = strchr(s, '|');
		if (s)
			s++;
	}
	snprintf(buf, len, "%.*s", s ? (int)strcspn(s, "|") : 0, s ? s : "");
	return buf;
}

static bool in_group(const struct pmuctl_imetric *m, const char *group,
		     size_t len)
{
	const char *s = pmuctl_mpool + m->attrs;
	size_t end = strcspn(s, "|");

	while (end) {
		size_t g = strcspn(s, ";|");

		if (g == len && !strncasecmp(s, group, len))
			return true;
		if (s[g] != ';')
			break;
		end -= g + 1;
		s += g + 1;
	}
	return false;
}

bool pmuctl_metric_in_group(const struct pmuctl_mlist *ml,
			    const struct pmuctl_imetric *m, const char *group,
			    size_t len)
{
	char tma[6] = "TmaL1", cat[16];
	bool groups = false;

	if (len != 9 || strncasecmp(group, "TopdownL", 8))
		return in_group(m, group, len);
	/* perf's names of Intel's TmaL1 and TmaL2 */
	if (group[8] != '1' && group[8] != '2')
		return false;
	tma[4] = group[8];
	for (unsigned int i = 0; ml && i < ml->nr && !groups; i++)
		groups = in_group(&ml->m[i], "TmaL1", 5);
	if (groups)
		return in_group(m, tma, 5);
	/* lists without them (the Atom cores'): the TMA tree's level */
	return m->level == (unsigned int)(group[8] - '0') &&
	       !strcmp(pmuctl_metric_attr(m, 1, cat, sizeof(cat)), "TMA") &&
	       strncmp(pmuctl_metric_name(m), "Info_", 5);
}

int pmuctl_metric_select(const struct pmuctl_mlist *ml, const char *spec,
			 const struct pmuctl_imetric **out, unsigned int max,
			 char *bad, size_t badlen)
{
	unsigned int n = 0;

	for (const char *s = spec; ; s += strcspn(s, ",") + 1) {
		size_t len = strcspn(s, ",");
		const struct pmuctl_imetric *one = pmuctl_metric_find(ml, s, len);
		unsigned int found = 0;

		if (!len)
			return -EINVAL;
		for (unsigned int i = 0; i < ml->nr; i++) {
			const struct pmuctl_imetric *m = &ml->m[i];
			bool dup = false;

			if (m != one && !pmuctl_metric_in_group(ml, m, s, len))
				continue;
			found++;
			for (unsigned int j = 0; j < n; j++)
				dup |= out[j] == m;
			if (dup)
				continue;
			if (n == max)
				return -E2BIG;
			out[n++] = m;
		}
		if (!found) {
			pmuctl_say(bad, badlen, "%.*s", (int)len, s);
			return -ENOENT;
		}
		if (!s[len])
			return (int)n;
	}
}

/* Linux's topdown pseudo events, in the order of IA32_PERF_METRICS' bytes. */
static const char *const perf_metrics[] = {
	"RETIRING", "BAD_SPECULATION", "FRONTEND_BOUND", "BACKEND_BOUND",
	"HEAVY_OPERATIONS", "BRANCH_MISPREDICTS", "FETCH_LATENCY",
	"MEMORY_BOUND",
};

/* How many PERF_METRICS metrics the model of @l has (kmod/core/model.c). */
static unsigned int nr_perf_metrics(const struct pmuctl_ilist *l)
{
	switch (pmuctl_ilist_model(l)) {
	case PMUCTL_MODEL_ICL:
	case PMUCTL_MODEL_ICX:
		return 4;
	case PMUCTL_MODEL_SPR:
	case PMUCTL_MODEL_GNR:
	case PMUCTL_MODEL_ADL_GLC:
	case PMUCTL_MODEL_LNL_LNC:
		return 8;
	default:
		return 0;
	}
}

/* PERF_METRICS.NAME: its index, or -1. */
static int perf_metric(const char *name, size_t len)
{
	if (len < 13 || strncasecmp(name, "PERF_METRICS.", 13))
		return -1;
	for (size_t i = 0; i < NELEM(perf_metrics); i++)
		if (strlen(perf_metrics[i]) == len - 13 &&
		    !strncasecmp(name + 13, perf_metrics[i], len - 13))
			return (int)i;
	return -1;
}

/* The constants a caller's pmuctl_metric_env gives, and the literal ones. */
static bool const_known(const char *name)
{
	static const char *const known[] = {
		"DURATIONTIMEINSECONDS", "DURATIONTIMEINMILLISECONDS",
		"SYSTEM_TSC_FREQ", "HYPERTHREADING_ON", "THREADS_PER_CORE",
	};
	char *end;

	strtod(name, &end);
	if (end != name && !*end)
		return true;
	for (size_t i = 0; i < NELEM(known); i++)
		if (!strcmp(name, known[i]))
			return true;
	return false;
}

/*
 * Intel's modifier @mod (@len) of a metric's event in the resolver's
 * syntax, appended to @out; false for one pmuctl cannot take (@why set).
 */
static bool translate_mod(const char *mod, size_t len, char *out, size_t outlen,
			  const char **why)
{
	size_t at = strlen(out);
	const char *put = NULL;
	char tmp[48];

	*why = NULL;
	if (len == 12 && !strncmp(mod, "perf_metrics", 12))
		return true;	/* TOPDOWN.SLOTS as the metrics' divisor: itself */
	if (len == 3 && !strncasecmp(mod, "SUP", 3)) {
		put = "k";
	} else if (len == 4 && !strncasecmp(mod, "USER", 4)) {
		put = "u";
	} else if (len >= 2 && (mod[0] == 'c' || mod[0] == 'e' || mod[0] == 'i' ||
				mod[0] == 'u') && mod[1] >= '0' && mod[1] <= '9') {
		const char *key = mod[0] == 'c' ? "cmask" : mod[0] == 'e' ? "edge" :
				  mod[0] == 'i' ? "inv" : NULL;

		if (mod[0] == 'u' && len > 3 && mod[1] == '0' && mod[2] == 'x')
			snprintf(tmp, sizeof(tmp), "umask=%.*s", (int)(len - 1), mod + 1);
		else if (key)
			snprintf(tmp, sizeof(tmp), "%s=%.*s", key, (int)(len - 1), mod + 1);
		else
			goto unknown;
		put = tmp;
	} else if (len == 3 && !strncmp(mod, "eq1", 3)) {
		put = "eq=1";
	} else if (len > 12 && !strncmp(mod, "ocr_msr_val=", 12)) {
		snprintf(tmp, sizeof(tmp), "offcore_rsp=%.*s", (int)(len - 12), mod + 12);
		put = tmp;
	} else if (len == 14 && !strncmp(mod, "retire_latency", 14)) {
		*why = "needs PEBS retire latency, a sampling feature";
		return false;
	} else if (len == 7 && !strncmp(mod, "percore", 7)) {
		*why = "needs counts summed over the core's SMT threads";
		return false;
	} else {
		goto unknown;
	}
	snprintf(out + at, outlen - at, ":%s", put);
	return true;
unknown:
	*why = "has a modifier pmuctl does not take";
	return false;
}

/*
 * Event @name of a metric (Intel's "NAME[:MOD]...") as a resolver string
 * in @out; NULL, or why it cannot be.
 */
static const char *event_string(const char *name, char *out, size_t outlen)
{
	size_t len = strcspn(name, ":");
	const char *why = NULL;

	snprintf(out, outlen, "%.*s", (int)len, name);
	for (const char *m = name + len; *m == ':'; m += 1 + strcspn(m + 1, ":"))
		if (!translate_mod(m + 1, strcspn(m + 1, ":"), out, outlen, &why))
			return why;
	return NULL;
}

const char *pmuctl_metric_unavailable(const struct pmuctl_ilist *l,
				      const struct pmuctl_imetric *m,
				      char *why, size_t len)
{
	for (unsigned int i = 0; i < m->nevents; i++) {
		const char *name = pmuctl_metric_var(m, i, NULL), *reason;
		size_t n = strcspn(name, ":");
		char str[160];
		int pm = perf_metric(name, n);

		if (!strncmp(name, "UNC_", 4) || !strncmp(name, "FREERUN_", 8)) {
			pmuctl_say(why, len, "needs uncore events (%.*s)", (int)n, name);
			return why;
		}
		if (n == 3 && !strncmp(name, "TSC", 3)) {
			pmuctl_say(why, len, "needs the time-stamp counter as a counted event (TSC)");
			return why;
		}
		reason = event_string(name, str, sizeof(str));
		if (reason) {
			pmuctl_say(why, len, "%s (%s)", reason, name);
			return why;
		}
		if (pm >= 0 ? (unsigned int)pm >= nr_perf_metrics(l) :
			      !pmuctl_ievent_find(l, name, n)) {
			pmuctl_say(why, len, "needs %.*s, which %s does not count", (int)n,
			    name, pm >= 0 ? "this model's PERF_METRICS" :
			    "Intel's event list of the model");
			return why;
		}
	}
	for (unsigned int i = m->nevents; i < m->nevents + m->nconsts; i++) {
		const char *name = pmuctl_metric_var(m, i, NULL);

		if (!const_known(name)) {
			pmuctl_say(why, len, "needs the system's %s", name);
			return why;
		}
	}
	return NULL;
}

int pmuctl_metric_event(const struct pmuctl_ilist *l, const struct pmuctl_imetric *m,
			unsigned int i, struct pmuctl_event *ev, char *msg,
			size_t msglen)
{
	const char *name = pmuctl_metric_var(m, i, NULL), *why;
	size_t n = strcspn(name, ":");
	char str[160];
	int pm = perf_metric(name, n), ret;

	memset(ev, 0, sizeof(*ev));
	if (i >= m->nevents) {
		pmuctl_say(msg, msglen, "value %u of %s is no event", i, pmuctl_metric_name(m));
		return -EINVAL;
	}
	if (pm >= 0 && (unsigned int)pm < nr_perf_metrics(l)) {
		ev->config = 0x8000 + ((uint64_t)pm << 8) + PMUCTL_CFG_USR + PMUCTL_CFG_OS;
		return 0;
	}
	why = event_string(name, str, sizeof(str));
	if (why) {
		pmuctl_say(msg, msglen, "%s: %s", name, why);
		return -ENOENT;
	}
	ret = pmuctl_intel_resolve(l, str, ev, msg, msglen);
	if (ret == 1) {
		pmuctl_say(msg, msglen, "%s is not in Intel's %s list", name, l->name);
		return -ENOENT;
	}
	return ret;
}

int pmuctl_metric_events(const struct pmuctl_ilist *l,
			 const struct pmuctl_imetric *m, struct pmuctl_event *ev,
			 char *why, size_t len)
{
	bool metrics = false, slots = false;
	unsigned int n = m->nevents;

	if (pmuctl_metric_unavailable(l, m, why, len))
		return -ENOENT;
	for (unsigned int i = 0; i < n; i++) {
		if (pmuctl_metric_event(l, m, i, &ev[i], why, len))
			return -ENOENT;
		metrics |= !(ev[i].config & PMUCTL_CFG_EVENT) &&
			   ((ev[i].config & PMUCTL_CFG_UMASK) >> 8) >= 0x80;
		slots |= (ev[i].config & 0xffff) == 0x0400;
	}
	/* PERF_METRICS divides the slots of fixed counter 3: they come along */
	if (metrics && !slots) {
		memset(&ev[n], 0, sizeof(ev[n]));
		ev[n++].config = 0x0400 | PMUCTL_CFG_USR | PMUCTL_CFG_OS;
	}
	return (int)n;
}

/* The aliases of @m, the names its formula and threshold read. */
static unsigned int aliases(const struct pmuctl_imetric *m, const char **names)
{
	unsigned int n = m->nevents + m->nconsts + m->ntmetrics;

	for (unsigned int i = 0; i < n; i++)
		pmuctl_metric_var(m, i, &names[i]);
	return n;
}

/*
 * A formula as scripts/mpack.c packed it: ASCII, and 0x01 and three bytes
 * (0x80 | offset >> 7, 0x80 | offset & 0x7f, 0x80 | length - 6) for a copy
 * of what came @offset bytes before.  Returns it unpacked (malloc()ed),
 * NULL without memory or for a reference out of bounds.
 */
static char *unpack(const char *packed)
{
	const unsigned char *p = (const unsigned char *)packed;
	size_t n = 0, at = 0;
	char *out;

	for (size_t i = 0; p[i];) {
		if (p[i] != 1) {
			n++;
			i++;
			continue;
		}
		if (!p[i + 1] || !p[i + 2] || !p[i + 3])
			return NULL;
		n += (p[i + 3] & 0x7f) + 6U;
		i += 4;
	}
	out = malloc(n + 1);
	if (!out)
		return NULL;
	for (size_t i = 0; p[i];) {
		size_t off, len;

		if (p[i] != 1) {
			out[at++] = (char)p[i++];
			continue;
		}
		off = (size_t)(p[i + 1] & 0x7f) << 7 | (p[i + 2] & 0x7f);
		len = (p[i + 3] & 0x7fU) + 6;
		if (!off || off > at) {
			free(out);
			return NULL;
		}
		for (size_t k = 0; k < len; k++, at++)	/* may overlap itself */
			out[at] = out[at - off];
		i += 4;
	}
	out[at] = '\0';
	return out;
}

char *pmuctl_metric_text(const struct pmuctl_imetric *m, bool threshold)
{
	return unpack(pmuctl_mpool + (threshold ? m->threshold : m->formula));
}

int pmuctl_metric_compile(const struct pmuctl_imetric *m, bool threshold,
			  struct pmuctl_expr **out, char *msg, size_t msglen)
{
	const char *names[3 * 256];
	unsigned int n = aliases(m, names);
	char *text;
	int ret;

	*out = NULL;
	if (threshold && !m->threshold) {
		pmuctl_say(msg, msglen, "%s has no threshold", pmuctl_metric_name(m));
		return -ENOENT;
	}
	text = pmuctl_metric_text(m, threshold);
	if (!text) {
		pmuctl_say(msg, msglen, "%s", "out of memory");
		return -ENOMEM;
	}
	ret = pmuctl_expr_parse(text, names, n, out, msg, msglen);
	free(text);
	return ret;
}

int pmuctl_metric_eval(const struct pmuctl_imetric *m, const double *counts,
		       const bool *have, const struct pmuctl_metric_env *env,
		       double *value, char *msg, size_t msglen)
{
	unsigned int n = m->nevents + m->nconsts + m->ntmetrics;
	double v[3 * 256];
	bool got[3 * 256];
	struct pmuctl_expr *e;
	int ret;

	*value = 0;
	for (unsigned int i = 0; i < n; i++) {
		const char *name = pmuctl_metric_var(m, i, NULL);
		char *end;

		v[i] = 0;
		got[i] = false;
		if (i < m->nevents) {
			v[i] = counts[i];
			got[i] = !have || have[i];
			continue;
		}
		if (i >= m->nevents + m->nconsts)
			continue;	/* the threshold's metrics */
		v[i] = strtod(name, &end);
		got[i] = end != name && !*end;
		if (got[i] || !env)
			continue;
		if (!strcmp(name, "DURATIONTIMEINSECONDS")) {
			v[i] = env->duration_s;
			got[i] = env->duration_s > 0;
		} else if (!strcmp(name, "DURATIONTIMEINMILLISECONDS")) {
			v[i] = env->duration_s * 1000;
			got[i] = env->duration_s > 0;
		} else if (!strcmp(name, "SYSTEM_TSC_FREQ")) {
			v[i] = env->tsc_hz;
			got[i] = env->tsc_hz > 0;
		} else if (!strcmp(name, "HYPERTHREADING_ON")) {
			v[i] = env->threads_per_core > 1;
			got[i] = env->threads_per_core > 0;
		} else if (!strcmp(name, "THREADS_PER_CORE")) {
			v[i] = env->threads_per_core;
			got[i] = env->threads_per_core > 0;
		}
	}
	ret = pmuctl_metric_compile(m, false, &e, msg, msglen);
	if (ret)
		return ret;
	ret = pmuctl_expr_eval(e, v, got, value, msg, msglen);
	pmuctl_expr_free(e);
	return ret;
}

/* ------------------------------------------------------------------ */
/* The library's calls (libpmuctl.h)                                  */
/* ------------------------------------------------------------------ */

#define LIB_MAX_METRICS	4096
#define LIB_MAX_EVENTS	2048

struct pmuctl_metrics {
	const struct pmuctl_ilist *il;
	const struct pmuctl_mlist *ml;
	unsigned int nm;
	const struct pmuctl_imetric **m;
	char (*why)[256];
	char (*unit)[48];
	unsigned int *first;		/* metric i's events: idx[first[i]...] */
	unsigned int *idx;
	unsigned int nidx;
	unsigned int nev;
	struct pmuctl_event *ev;
	char (*names)[96];
	unsigned int threads_per_core;
	double tsc_hz;
};

void pmuctl_metrics_free(struct pmuctl_metrics *m)
{
	if (!m)
		return;
	free(m->m);
	free(m->why);
	free(m->unit);
	free(m->first);
	free(m->idx);
	free(m->ev);
	free(m->names);
	free(m);
}

/*
 * The TSC's frequency where CPUID leaf 15H gives all three of its terms
 * (SDM vol. 3B 19.7.3: crystal Hz x EBX / EAX); 0 where it does not (no
 * leaf 15H, or no crystal frequency in ECX, as in most VMs): unknown, not
 * guessed from the base frequency.
 */
double pmuctl_host_tsc_hz(void)
{
	unsigned int a, b, c, d;

	if (__get_cpuid_max(0, NULL) < 0x15)
		return 0;
	__cpuid(0x15, a, b, c, d);
	(void)d;
	return a && b && c ? (double)c * b / a : 0;
}

unsigned int pmuctl_host_threads_per_core(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list", "re");
	unsigned int n = 0, lo, hi;
	char buf[256], *t, *save = NULL;

	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	for (t = strtok_r(buf, ",\n", &save); t; t = strtok_r(NULL, ",\n", &save)) {
		if (sscanf(t, "%u-%u", &lo, &hi) == 2 && hi >= lo)
			n += hi - lo + 1;
		else if (sscanf(t, "%u", &lo) == 1)
			n++;
	}
	return n;
}

/* Event @e of a metric into the union: its index, or -1 when full. */
static int union_event(struct pmuctl_metrics *ms, const char *name,
		       const struct pmuctl_event *e)
{
	for (unsigned int i = 0; i < ms->nev; i++)
		if (ms->ev[i].config == e->config && ms->ev[i].extra == e->extra)
			return (int)i;
	if (ms->nev == LIB_MAX_EVENTS)
		return -1;
	ms->ev[ms->nev] = *e;
	snprintf(ms->names[ms->nev], sizeof(ms->names[0]), "%s", name);
	return (int)ms->nev++;
}

/* Metric @k's events into the union (its why set when it cannot be). */
static void lib_metric(struct pmuctl_metrics *ms, unsigned int k)
{
	const struct pmuctl_imetric *m = ms->m[k];
	struct pmuctl_event ev[256];
	int n;

	ms->first[k] = ms->nidx;
	n = pmuctl_metric_events(ms->il, m, ev, ms->why[k], sizeof(ms->why[0]));
	for (int i = 0; i < n; i++) {
		int e = union_event(ms, i < m->nevents ? pmuctl_metric_var(m, (unsigned int)i, NULL) :
				    "TOPDOWN.SLOTS", &ev[i]);

		if (e < 0) {
			snprintf(ms->why[k], sizeof(ms->why[0]), "more than %d events in all",
				 LIB_MAX_EVENTS);
			return;
		}
		if (i < m->nevents)
			ms->idx[ms->nidx++] = (unsigned int)e;
	}
}

int pmuctl_metrics_resolve(uint32_t model, const char *list, const char *spec,
			   struct pmuctl_metrics **out, char *msg, size_t msglen)
{
	const struct pmuctl_ilist *own = pmuctl_ilist_of(model, false);
	struct pmuctl_metrics *ms;
	unsigned int total = 0;
	char bad[96];
	int ret;

	*out = NULL;
	pmuctl_say(msg, msglen, "%s", "");
	ms = calloc(1, sizeof(*ms));
	if (!ms)
		return -ENOMEM;
	ms->il = list ? pmuctl_ilist_find(list) : pmuctl_ilist_of(model, true);
	ms->ml = ms->il ? pmuctl_mlist_find(ms->il->name) : NULL;
	if (!own || !ms->il || !ms->ml ||
	    pmuctl_ilist_model(ms->il) != pmuctl_ilist_model(own)) {
		pmuctl_say(msg, msglen, "no metrics for model %s%s%s",
		    own ? own->name : "without an event list", list ? " in list " : "",
		    list ? list : "");
		pmuctl_metrics_free(ms);
		return -ENODEV;
	}
	ms->m = calloc(LIB_MAX_METRICS, sizeof(*ms->m));
	ms->ev = calloc(LIB_MAX_EVENTS, sizeof(*ms->ev));
	ms->names = calloc(LIB_MAX_EVENTS, sizeof(*ms->names));
	if (!ms->m || !ms->ev || !ms->names) {
		pmuctl_metrics_free(ms);
		return -ENOMEM;
	}
	ret = pmuctl_metric_select(ms->ml, spec ? spec : "", ms->m, LIB_MAX_METRICS,
				   bad, sizeof(bad));
	if (ret < 0) {
		if (ret == -E2BIG)
			pmuctl_say(msg, msglen, "more than %d metrics", LIB_MAX_METRICS);
		else if (ret == -EINVAL)
			pmuctl_say(msg, msglen, "an empty name in the metric list '%s'", spec);
		else
			pmuctl_say(msg, msglen, "'%s' is no metric or group of the %s list",
				   bad, ms->ml->name);
		pmuctl_metrics_free(ms);
		return ret == -EINVAL ? -ENOENT : ret;
	}
	ms->nm = (unsigned int)ret;
	for (unsigned int k = 0; k < ms->nm; k++)
		total += ms->m[k]->nevents;
	ms->why = calloc(ms->nm, sizeof(*ms->why));
	ms->unit = calloc(ms->nm, sizeof(*ms->unit));
	ms->first = calloc(ms->nm + 1, sizeof(*ms->first));
	ms->idx = calloc(total + 1, sizeof(*ms->idx));
	if (!ms->why || !ms->unit || !ms->first || !ms->idx) {
		pmuctl_metrics_free(ms);
		return -ENOMEM;
	}
	for (unsigned int k = 0; k < ms->nm; k++) {
		lib_metric(ms, k);
		pmuctl_metric_attr(ms->m[k], 2, ms->unit[k], sizeof(ms->unit[0]));
	}
	ms->first[ms->nm] = ms->nidx;
	ms->threads_per_core = pmuctl_host_threads_per_core();
	ms->tsc_hz = pmuctl_host_tsc_hz();
	*out = ms;
	return 0;
}

unsigned int pmuctl_metrics_count(const struct pmuctl_metrics *m)
{
	return m ? m->nm : 0;
}

const char *pmuctl_metrics_name(const struct pmuctl_metrics *m, unsigned int i)
{
	return m && i < m->nm ? pmuctl_metric_name(m->m[i]) : NULL;
}

const char *pmuctl_metrics_unit(const struct pmuctl_metrics *m, unsigned int i)
{
	return m && i < m->nm ? m->unit[i] : NULL;
}

const char *pmuctl_metrics_unavailable(const struct pmuctl_metrics *m,
				       unsigned int i)
{
	return m && i < m->nm && m->why[i][0] ? m->why[i] : NULL;
}

unsigned int pmuctl_metrics_events(const struct pmuctl_metrics *m,
				   struct pmuctl_event *ev, const char **names,
				   unsigned int max)
{
	for (unsigned int i = 0; m && i < m->nev && i < max; i++) {
		if (ev)
			ev[i] = m->ev[i];
		if (names)
			names[i] = m->names[i];
	}
	return m ? m->nev : 0;
}

int pmuctl_metrics_eval(const struct pmuctl_metrics *m, unsigned int i,
			const uint64_t *counts, double duration_s, double *value,
			char *msg, size_t msglen)
{
	struct pmuctl_metric_env env = { .duration_s = duration_s };
	const struct pmuctl_imetric *im;
	double c[256];

	*value = 0;
	if (!m || i >= m->nm) {
		pmuctl_say(msg, msglen, "no metric %u", i);
		return -EINVAL;
	}
	im = m->m[i];
	if (m->why[i][0]) {
		pmuctl_say(msg, msglen, "%s: %s", pmuctl_metric_name(im), m->why[i]);
		return -ENOENT;
	}
	env.threads_per_core = m->threads_per_core;
	env.tsc_hz = m->tsc_hz;
	for (unsigned int j = 0; j < im->nevents; j++)
		c[j] = (double)counts[m->idx[m->first[i] + j]];
	return pmuctl_metric_eval(im, c, NULL, &env, value, msg, msglen);
}
