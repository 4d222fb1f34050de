// SPDX-License-Identifier: GPL-2.0
/*
 * Metrics for check -M and stat -M: the metrics a spec names, their events
 * resolved and judged by the core, and the passes that count them.
 *
 * Passes: each metric in turn, its events (with TOPDOWN.SLOTS where it
 * reads PERF_METRICS, which divides fixed counter 3's slots) go into the
 * first pass that can count them all at once with the events already
 * there, else into a new pass: a metric's events are counted together.
 * Only a metric whose events cannot be counted together on an idle CPU is
 * split, event by event, and then says that its value mixes passes.  The
 * core's scheduler (pmuctl_group_schedule(), the module's) decides what
 * fits.  First fit can take more passes than needed (TopdownL2 on
 * Skylake: 5 where 4 do); where the metrics are few, a search over every
 * way to put them in passes (largest first, bounded) then finds the
 * fewest, and the passes are made again from what it found.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "tool.h"

/* Can these events be counted at once on an idle CPU? */
static bool fits(const struct tool_mset *ms, const unsigned int *idx,
		 unsigned int n)
{
	struct pmuctl_event ev[PMUCTL_MAX_EVENTS];
	struct pmuctl_place place[PMUCTL_MAX_EVENTS];
	struct pmuctl_view view;
	u32 reason = PMUCTL_R_NONE, index;

	if (n > PMUCTL_MAX_EVENTS)
		return false;
	for (unsigned int i = 0; i < n; i++)
		ev[i] = ms->ev[idx[i]].ev;
	pmuctl_view_init(&view);
	return !pmuctl_group_schedule(ms->model, ms->caps, 0, &view, ev, n, place,
				      &reason, &index);
}

/* The index of event @e in ms->ev, added if new; -1 when full. */
static int add_event(struct tool_mset *ms, const char *name,
		     const struct pmuctl_event *e)
{
	for (unsigned int i = 0; i < ms->nev; i++)
		if (ms->ev[i].ev.config == e->config && ms->ev[i].ev.extra == e->extra)
			return (int)i;
	if (ms->nev == TOOL_MSET_EVENTS)
		return -1;
	snprintf(ms->ev[ms->nev].name, sizeof(ms->ev[0].name), "%s", name);
	ms->ev[ms->nev].ev = *e;
	return (int)ms->nev++;
}

/* Add @add (n) to pass @p if the union fits; true if it did. */
static bool try_pass(struct tool_mset *ms, unsigned int p, const unsigned int *add,
		     unsigned int n)
{
	unsigned int u[PMUCTL_MAX_EVENTS], nu = ms->npass[p];

	memcpy(u, ms->pass[p], nu * sizeof(u[0]));
	for (unsigned int i = 0; i < n; i++) {
		bool in = false;

		for (unsigned int j = 0; j < nu; j++)
			in |= u[j] == add[i];
		if (in)
			continue;
		if (nu == PMUCTL_MAX_EVENTS)
			return false;
		u[nu++] = add[i];
	}
	if (!fits(ms, u, nu))
		return false;
	memcpy(ms->pass[p], u, nu * sizeof(u[0]));
	ms->npass[p] = nu;
	return true;
}

/* Put @idx (n) in the first pass that takes them all, or a new one. */
static int place(struct tool_mset *ms, const unsigned int *idx, unsigned int n)
{
	for (unsigned int p = 0; p < ms->passes; p++)
		if (try_pass(ms, p, idx, n))
			return (int)p;
	if (ms->passes == TOOL_MSET_PASSES)
		return -1;
	ms->npass[ms->passes] = 0;
	if (!try_pass(ms, ms->passes, idx, n))
		return -1;
	return (int)ms->passes++;
}

/* Select the metrics @spec names ("NAME|GROUP[,...]"); 0 or a usage error. */
static int select_metrics(const char *cmd, struct tool_mset *ms, const char *spec,
			  const char *pmu)
{
	char bad[96];
	int n = pmuctl_metric_select(ms->ml, spec, ms->m, TOOL_MSET_METRICS, bad,
				     sizeof(bad));

	if (n == -EINVAL)
		return tool_usage_error(cmd, "an empty name in the metric list '%s': NAME|GROUP[,...]",
					spec);
	if (n == -E2BIG)
		return tool_usage_error(cmd, "more than %d metrics", TOOL_MSET_METRICS);
	if (n < 0)
		return tool_usage_error(cmd, "'%s' is no metric or group of the %s list: 'pmuctl list --metrics --pmu %s' lists them",
					bad, ms->ml->name, pmu);
	ms->nm = (unsigned int)n;
	return 0;
}

/* Metric @k: its events resolved, judged by the core and placed. */
static void one_metric(struct tool_mset *ms, unsigned int k)
{
	const struct pmuctl_imetric *m = ms->m[k];
	struct tool_mstate *st = &ms->st[k];
	unsigned int idx[PMUCTL_MAX_EVENTS + 1], n = 0;
	struct pmuctl_event ev[256];
	int nev, p;

	nev = pmuctl_metric_events(ms->il, m, ev, st->why, sizeof(st->why));
	for (int i = 0; i < nev; i++) {
		const char *ename = i < m->nevents ?
				    pmuctl_metric_var(m, (unsigned int)i, NULL) : "TOPDOWN.SLOTS";
		struct pmuctl_class cls;
		u32 reason = PMUCTL_R_NONE;
		int e;

		if (pmuctl_event_classify(ms->model, ms->caps, 0, ev[i].config,
					  ev[i].extra, 0, &cls, &reason)) {
			snprintf(st->why, sizeof(st->why), "event %s: %s: %s", ename,
				 pmuctl_reason_name(reason), pmuctl_reason_text(reason));
			return;
		}
		e = add_event(ms, ename, &ev[i]);
		if (e < 0 || (i < m->nevents && n == PMUCTL_MAX_EVENTS)) {
			snprintf(st->why, sizeof(st->why), "more events than pmuctl counts at once (%d)",
				 PMUCTL_MAX_EVENTS);
			return;
		}
		if (i < m->nevents)
			st->evidx[i] = (unsigned int)e;
		idx[n++] = (unsigned int)e;
	}
	if (nev < 0)
		return;
	st->nev = n;
	memcpy(st->idx, idx, n * sizeof(idx[0]));
	p = n ? place(ms, idx, n) : 0;
	if (p >= 0) {
		st->first = st->last = (unsigned int)p;
		return;
	}
	/* its events cannot be counted together: each where it fits */
	for (unsigned int i = 0; i < n; i++) {
		p = place(ms, &idx[i], 1);
		if (p < 0) {
			snprintf(st->why, sizeof(st->why), "its events fit in no pass (more than %d passes)",
				 TOOL_MSET_PASSES);
			return;
		}
		if (!i || (unsigned int)p < st->first)
			st->first = (unsigned int)p;
		if ((unsigned int)p > st->last)
			st->last = (unsigned int)p;
	}
}

/*
 * The search: units (a metric whose events are counted together, or one
 * event of a metric split across passes) into bins, each bin's events
 * schedulable together, fewer bins than the best so far.
 */
#define SEARCH_UNITS	24
#define SEARCH_NODES	200000

struct unit {
	const unsigned int *ev;
	unsigned int n;
};

struct search {
	struct tool_mset *ms;
	struct unit u[SEARCH_UNITS];
	unsigned int nu;
	unsigned int bin[SEARCH_UNITS], best_bin[SEARCH_UNITS];
	unsigned int best;
	unsigned long nodes;
};

/* The events of the units in bin @b among units 0 to @upto, into @idx. */
static unsigned int bin_events(const struct search *s, unsigned int b,
			       unsigned int upto, unsigned int *idx)
{
	bool in[TOOL_MSET_EVENTS] = { false };
	unsigned int n = 0;

	for (unsigned int i = 0; i <= upto; i++)
		if (s->bin[i] == b)
			for (unsigned int j = 0; j < s->u[i].n; j++)
				in[s->u[i].ev[j]] = true;
	for (unsigned int e = 0; e < s->ms->nev; e++)
		if (in[e] && n < PMUCTL_MAX_EVENTS + 1)
			idx[n++] = e;
	return n;
}

static void search(struct search *s, unsigned int i, unsigned int used)
{
	unsigned int idx[PMUCTL_MAX_EVENTS + 1];

	if (++s->nodes > SEARCH_NODES || used >= s->best)
		return;
	if (i == s->nu) {
		s->best = used;
		memcpy(s->best_bin, s->bin, sizeof(s->bin));
		return;
	}
	for (unsigned int b = 0; b <= used; b++) {
		if (b == used && used + 1 >= s->best)
			break;		/* a new pass would not do better */
		s->bin[i] = b;
		if (fits(s->ms, idx, bin_events(s, b, i, idx)))
			search(s, i + 1, b == used ? used + 1 : used);
	}
}

static int unit_cmp(const void *a, const void *b)
{
	const struct unit *x = a, *y = b;

	return (int)y->n - (int)x->n;
}

/* Fewer passes than first fit's, where the search finds them. */
static void fewest_passes(struct tool_mset *ms)
{
	struct search *s = calloc(1, sizeof(*s));

	if (!s)
		return;
	s->ms = ms;
	for (unsigned int k = 0; k < ms->nm; k++) {
		struct tool_mstate *st = &ms->st[k];

		if (st->why[0] || !st->nev)
			continue;
		if (st->first == st->last) {
			if (s->nu == SEARCH_UNITS)
				goto out;
			s->u[s->nu].ev = st->idx;
			s->u[s->nu++].n = st->nev;
			continue;
		}
		for (unsigned int j = 0; j < st->nev; j++) {
			bool dup = false;

			for (unsigned int i = 0; i < s->nu; i++)
				dup |= s->u[i].n == 1 && s->u[i].ev[0] == st->idx[j];
			if (dup)
				continue;
			if (s->nu == SEARCH_UNITS)
				goto out;
			s->u[s->nu].ev = &st->idx[j];
			s->u[s->nu++].n = 1;
		}
	}
	qsort(s->u, s->nu, sizeof(s->u[0]), unit_cmp);
	s->best = ms->passes;
	search(s, 0, 0);
	if (s->best >= ms->passes || s->nodes > SEARCH_NODES)
		goto out;
	/* the passes again, from the search's bins */
	memcpy(s->bin, s->best_bin, sizeof(s->bin));
	for (unsigned int b = 0; b < s->best; b++)
		ms->npass[b] = bin_events(s, b, s->nu - 1, ms->pass[b]);
	ms->passes = s->best;
	for (unsigned int k = 0; k < ms->nm; k++) {
		struct tool_mstate *st = &ms->st[k];
		bool whole = st->first == st->last, seen = false;

		if (st->why[0] || !st->nev)
			continue;
		for (unsigned int i = 0; i < s->nu; i++) {
			unsigned int b = s->bin[i];
			bool mine = s->u[i].ev == st->idx;

			/* a whole metric is its own unit; a split one, its events' */
			for (unsigned int e = 0; !whole && !mine && e < st->nev; e++)
				mine = s->u[i].n == 1 && s->u[i].ev[0] == st->idx[e];
			if (!mine)
				continue;
			if (!seen || b < st->first)
				st->first = b;
			if (!seen || b > st->last)
				st->last = b;
			seen = true;
		}
	}
out:
	free(s);
}

int tool_mset_build(const char *cmd, const struct pmuctl_model *model,
		    const struct pmuctl_caps *caps, const char *list,
		    const char *pmu, const char *spec, struct tool_mset **out)
{
	struct tool_mset *ms = calloc(1, sizeof(*ms));
	int ret;

	*out = NULL;
	if (!ms)
		return tool_fail(cmd, "%s", strerror(ENOMEM));
	ms->model = model;
	ms->caps = caps;
	ms->il = pmuctl_ilist_find(list);
	ms->ml = pmuctl_mlist_find(list);
	if (!ms->il || !ms->ml) {
		free(ms);
		return tool_usage_error(cmd, "no metrics for pmu %s: arch, any other Intel core, has no event list",
					pmu);
	}
	ret = select_metrics(cmd, ms, spec, pmu);
	if (ret) {
		free(ms);
		return ret;
	}
	for (unsigned int k = 0; k < ms->nm; k++)
		one_metric(ms, k);
	fewest_passes(ms);
	*out = ms;
	return 0;
}

int tool_mset_events(const struct pmuctl_model *model,
		     const struct pmuctl_caps *caps, const struct pmuctl_event *ev,
		     const char *const *names, unsigned int n,
		     struct tool_mset **out)
{
	struct tool_mset *ms;

	*out = NULL;
	if (n > TOOL_MSET_EVENTS)
		return -E2BIG;
	ms = calloc(1, sizeof(*ms));
	if (!ms)
		return -ENOMEM;
	ms->model = model;
	ms->caps = caps;
	for (unsigned int i = 0; i < n; i++) {
		snprintf(ms->ev[i].name, sizeof(ms->ev[0].name), "%s", names[i]);
		ms->ev[i].ev = ev[i];
	}
	ms->nev = n;
	/* each event alone, in order, into the first pass that takes it */
	for (unsigned int i = 0; i < n; i++) {
		if (place(ms, &i, 1) < 0) {
			ms->passes = 0;	/* it fits no pass: the module will say why */
			break;
		}
	}
	*out = ms;
	return 0;
}

int tool_mset_add(struct tool_mset *ms, const struct pmuctl_event *ev,
		  const char *const *names, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		int e = add_event(ms, names[i], &ev[i]);
		unsigned int u = (unsigned int)e;

		if (e < 0 || place(ms, &u, 1) < 0)
			return -E2BIG;
	}
	return 0;
}

void tool_mset_free(struct tool_mset *ms)
{
	free(ms);
}
