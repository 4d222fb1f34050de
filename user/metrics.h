/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Intel's metrics (library-internal, shared with the tool and the tests;
 * not exported by the .so): the lists of events/intel/LIST.metrics as
 * tables (scripts/metrics-c.awk), which of them pmuctl can compute and
 * why not, their events as pmuctl encodes them, and their evaluation.
 */
#ifndef PMUCTL_METRICS_H
#define PMUCTL_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/pmuctl.h>

#include "events.h"
#include "expr.h"

/* One value a formula reads: indexes into pmuctl_mvnames, pmuctl_mvaliases. */
struct pmuctl_mvar {
	uint16_t name;
	uint16_t alias;
};

/* One metric: offsets into pmuctl_mpool, its values pmuctl_mvars[vars...]. */
struct pmuctl_imetric {
	uint32_t name;
	uint32_t formula;	/* blanks no token needs left out, packed */
	uint32_t threshold;	/* 0 (""): none; packed too */
	uint32_t attrs;		/* "groups|category|unit|parent", each maybe "" */
	uint32_t vars;
	uint8_t nevents;	/* the first values: events */
	uint8_t nconsts;	/* then constants */
	uint8_t ntmetrics;	/* then the metrics the threshold reads */
	uint8_t level;
};

struct pmuctl_mlist {
	const char *name;	/* "spr": events/intel/spr.metrics */
	const char *source;
	const char *commit;
	const struct pmuctl_imetric *m;
	unsigned int nr;
};

extern const char pmuctl_mpool[];
extern const struct pmuctl_mvar pmuctl_mvars[];
extern const uint32_t pmuctl_mvnames[];
extern const uint32_t pmuctl_mvaliases[];
extern const struct pmuctl_mlist pmuctl_mlists[];
extern const unsigned int pmuctl_nr_mlists;

static inline const char *pmuctl_metric_name(const struct pmuctl_imetric *m)
{
	return pmuctl_mpool + m->name;
}

/* Value @i of @m: its name (event, constant or metric) and its alias. */
static inline const char *pmuctl_metric_var(const struct pmuctl_imetric *m,
					    unsigned int i, const char **alias)
{
	const struct pmuctl_mvar *v = &pmuctl_mvars[m->vars + i];

	if (alias)
		*alias = pmuctl_mpool + pmuctl_mvaliases[v->alias];
	return pmuctl_mpool + pmuctl_mvnames[v->name];
}

/*
 * The metrics of an event list ("spr"): Intel's, or pmuctl's own
 * (events/pmuctl/) for knl, adl_grt, lnl_skt and arl_skt, which Intel
 * gives none; NULL for none.
 */
const struct pmuctl_mlist *pmuctl_mlist_find(const char *list);

/*
 * The metric named @name (case-insensitive) of @ml, NULL if none.  Short
 * names stand for the list's own: IPC (Info_Thread_IPC, or Info_Core_IPC
 * on the Atom cores), CPI (Info_Thread_CPI, Info_Core_CPI, cpi), CoreIPC,
 * L1MPKI, L2MPKI, L3MPKI (Info_Memory_*).
 */
const struct pmuctl_imetric *pmuctl_metric_find(const struct pmuctl_mlist *ml,
						 const char *name, size_t len);

/*
 * The metrics @spec ("NAME|GROUP[,...]") names in @ml, into @out (room
 * for @max), each once, in the order @spec names them (a group's in the
 * list's order).  Return: how many; -EINVAL for an empty name; -ENOENT
 * for a name that is no metric or group (@bad gets it); -E2BIG.
 */
int pmuctl_metric_select(const struct pmuctl_mlist *ml, const char *spec,
			 const struct pmuctl_imetric **out, unsigned int max,
			 char *bad, size_t badlen);

/* Threads per core, as sysfs gives CPU 0's siblings; 0 when unknown. */
unsigned int pmuctl_host_threads_per_core(void);

/*
 * Attribute @which (0 groups, 1 category, 2 unit, 3 parent) of @m into
 * @buf: "" where Intel gives none.
 */
const char *pmuctl_metric_attr(const struct pmuctl_imetric *m, int which,
			       char *buf, size_t len);

/*
 * Is @m, of @ml, in group @group (case-insensitive)?  perf's names
 * TopdownL1 and TopdownL2 are Intel's TmaL1 and TmaL2, and in a list
 * without those groups (Sierra Forest's, Grand Ridge's) the TMA tree's
 * nodes of that level (category TMA, not Info_*).
 */
bool pmuctl_metric_in_group(const struct pmuctl_mlist *ml,
			    const struct pmuctl_imetric *m, const char *group,
			    size_t len);

/*
 * Why pmuctl cannot compute @m on the model of event list @l, in @why
 * ("needs uncore events (UNC_CHA_TOR_INSERTS.IA_MISS)"); NULL when it
 * can: every event is a core event of @l (or a PERF_METRICS metric where
 * @l's model has them) with modifiers pmuctl takes, every constant one
 * pmuctl_metric_env gives.
 */
const char *pmuctl_metric_unavailable(const struct pmuctl_ilist *l,
				      const struct pmuctl_imetric *m,
				      char *why, size_t len);

/*
 * Event @i of @m (i < nevents) as pmuctl programs it on @l's model: Intel's
 * modifiers (c1, e1, i1, eq1, uN, SUP, USER, ocr_msr_val=V) translated.
 * Return: 0; a failure of the resolver, @msg says why.
 */
int pmuctl_metric_event(const struct pmuctl_ilist *l, const struct pmuctl_imetric *m,
			unsigned int i, struct pmuctl_event *ev, char *msg,
			size_t msglen);

/*
 * The events @m reads on @l's model, as pmuctl_metric_event() gives them:
 * @ev[i] for event i, then TOPDOWN.SLOTS where @m reads PERF_METRICS
 * without it (PERF_METRICS divides fixed counter 3's slots).  @ev has room
 * for 256.  Return: how many, m->nevents or one more; -ENOENT when pmuctl
 * cannot compute @m, @why saying why (pmuctl_metric_unavailable(), or an
 * event that does not resolve).
 */
int pmuctl_metric_events(const struct pmuctl_ilist *l,
			 const struct pmuctl_imetric *m, struct pmuctl_event *ev,
			 char *why, size_t len);

/* What the formulas' constants stand for, from the caller. */
struct pmuctl_metric_env {
	double duration_s;		/* DURATIONTIMEINSECONDS, and in ms */
	double tsc_hz;			/* SYSTEM_TSC_FREQ, 0: unknown */
	unsigned int threads_per_core;	/* THREADS_PER_CORE; HYPERTHREADING_ON is > 1 */
};

/*
 * @m's formula (@threshold: its threshold) as text, blanks that no token
 * needs left out: malloc()ed, NULL without memory.  The table holds it
 * packed (scripts/mpack.c).
 */
char *pmuctl_metric_text(const struct pmuctl_imetric *m, bool threshold);

/*
 * This host's TSC frequency from CPUID leaf 15H, 0 where the leaf does not
 * give it whole (SYSTEM_TSC_FREQ is then unknown).
 */
double pmuctl_host_tsc_hz(void);

/*
 * Compile @m's formula (@threshold: its threshold) with its aliases as
 * names.  Return: as pmuctl_expr_parse().
 */
int pmuctl_metric_compile(const struct pmuctl_imetric *m, bool threshold,
			  struct pmuctl_expr **out, char *msg, size_t msglen);

/*
 * Evaluate @m from its events' counts (@counts[i] for event i, in slots
 * for PERF_METRICS ones; @have[i] false: not counted) and @env.
 * Return: as pmuctl_expr_eval(); -ENODATA too for a constant @env lacks.
 */
int pmuctl_metric_eval(const struct pmuctl_imetric *m, const double *counts,
		       const bool *have, const struct pmuctl_metric_env *env,
		       double *value, char *msg, size_t msglen);

#endif /* PMUCTL_METRICS_H */
