// SPDX-License-Identifier: GPL-2.0
/*
 * The passes of pmuctl check -M and stat -M (user/tool_metrics.c) against
 * an exhaustive search, for metric sets small enough to search: Intel's
 * TopdownL1 and TopdownL2 and the common metrics, on a model with few
 * counters (Skylake's 4 generic ones, Knights Landing's 2) and on those
 * with PERF_METRICS and 8.  The search tries every way to put the metrics
 * in passes, each metric's events in one pass, each pass accepted by the
 * core's scheduler on an idle CPU (pmuctl_group_schedule(), the module's
 * own): the fewest passes it finds must be what tool_mset_build() says,
 * and each of tool_mset_build()'s passes must itself schedule, every
 * event of every computable metric in the pass that metric names.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "core.h"
#include "metrics.h"
#include "tool.h"

#define MAXU	(2 * TOOL_MSET_EVENTS)
#define SEARCH_BUDGET	2000000ULL	/* nodes: the cases below need far fewer */

/*
 * What the search places: a metric whose events schedule together (all
 * of them in one pass), or one event of a metric whose events cannot be
 * counted at once at all (tool_metrics.c then splits it, event by event,
 * and the metric says it mixes passes).
 */
struct unit {
	unsigned int ev[PMUCTL_MAX_EVENTS + 1];
	unsigned int n;
};

struct search {
	const struct tool_mset *ms;
	struct unit u[MAXU];
	unsigned int nu;
	unsigned int bin[MAXU];		/* the pass of each unit, as tried */
	unsigned int best;
	unsigned long long tried;
};

/* Do the events of the units in pass @b (units 0 to @upto) schedule? */
static bool bin_fits(const struct search *s, unsigned int b, unsigned int upto)
{
	struct pmuctl_event ev[PMUCTL_MAX_EVENTS];
	struct pmuctl_place place[PMUCTL_MAX_EVENTS];
	bool in[TOOL_MSET_EVENTS] = { false };
	struct pmuctl_view view;
	u32 reason = PMUCTL_R_NONE, index;
	unsigned int n = 0;

	for (unsigned int i = 0; i <= upto; i++)
		if (s->bin[i] == b)
			for (unsigned int j = 0; j < s->u[i].n; j++)
				in[s->u[i].ev[j]] = true;
	for (unsigned int e = 0; e < s->ms->nev; e++) {
		if (!in[e])
			continue;
		if (n == PMUCTL_MAX_EVENTS)
			return false;
		ev[n++] = s->ms->ev[e].ev;
	}
	pmuctl_view_init(&view);
	return !pmuctl_group_schedule(s->ms->model, s->ms->caps, 0, &view, ev, n,
				      place, &reason, &index);
}

static int unit_cmp(const void *a, const void *b)
{
	const struct unit *x = a, *y = b;

	return (int)y->n - (int)x->n;
}

/* Does @u alone schedule? */
static bool unit_fits(const struct tool_mset *ms, const struct unit *u)
{
	static struct search one;

	memset(&one, 0, sizeof(one));
	one.ms = ms;
	one.u[0] = *u;
	one.nu = 1;
	return bin_fits(&one, 0, 0);
}

/* Unit @i into each pass used so far, or a new one (fewer than best). */
static void search(struct search *s, unsigned int i, unsigned int used)
{
	if (++s->tried > SEARCH_BUDGET || used >= s->best)
		return;
	if (i == s->nu) {
		s->best = used;
		return;
	}
	for (unsigned int b = 0; b <= used && b < s->best; b++) {
		s->bin[i] = b;
		if (bin_fits(s, b, i))
			search(s, i + 1, b == used ? used + 1 : used);
	}
}

/*
 * The events of metric @k as pmuctl_metric_events() gives them (with
 * TOPDOWN.SLOTS where it reads PERF_METRICS), as indexes of ms->ev.
 */
static unsigned int metric_events(const struct tool_mset *ms, unsigned int k,
				  unsigned int *idx)
{
	struct pmuctl_event ev[256];
	char why[160];
	int nev = pmuctl_metric_events(ms->il, ms->m[k], ev, why, sizeof(why));
	unsigned int n = 0;

	for (int i = 0; i < nev; i++)
		for (unsigned int e = 0; e < ms->nev; e++)
			if (ms->ev[e].ev.config == ev[i].config &&
			    ms->ev[e].ev.extra == ev[i].extra) {
				idx[n++] = e;
				break;
			}
	return n;
}

/* Is event @e in pass @p? */
static bool in_pass(const struct tool_mset *ms, unsigned int p, unsigned int e)
{
	for (unsigned int i = 0; i < ms->npass[p]; i++)
		if (ms->pass[p][i] == e)
			return true;
	return false;
}

static const struct {
	const char *pmu, *spec;
} cases[] = {
	{ "skl", "TopdownL1" },
	{ "skx", "TopdownL2" },
	{ "clx", "TopdownL1,IPC,L1MPKI,L2MPKI" },
	{ "icx", "TopdownL1" },
	{ "icx", "TopdownL2" },
	{ "spr", "TopdownL2" },
	{ "spr", "IPC,CPI,L1MPKI,L2MPKI,L3MPKI" },
	{ "knl", "IPC,CPI" },
};

TEST(first_fit_passes_are_the_fewest_the_scheduler_allows)
{
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const struct tool_pmu *pmu = tool_pmu_find(cases[c].pmu);
		const struct pmuctl_model *model;
		unsigned int idx[PMUCTL_MAX_EVENTS + 1], split = 0;
		struct pmuctl_caps caps;
		struct tool_mset *ms = NULL;
		struct search *s = calloc(1, sizeof(*s));

		ASSERT_NE(NULL, s);
		ASSERT_NE(NULL, pmu) TH_LOG("--pmu %s", cases[c].pmu);
		model = pmuctl_model_by_id(pmu->model_id);
		ASSERT_NE(NULL, model);
		ASSERT_EQ(0, tool_pmu_caps(pmu, &caps));
		ASSERT_EQ(0, tool_mset_build("test", model, &caps, pmu->ilist, pmu->name,
					     cases[c].spec, &ms))
			TH_LOG("%s on %s", cases[c].spec, pmu->name);
		s->ms = ms;
		for (unsigned int k = 0; k < ms->nm; k++) {
			const struct tool_mstate *st = &ms->st[k];
			unsigned int n;

			if (st->why[0])
				continue;
			n = metric_events(ms, k, idx);
			ASSERT_LT(0U, n);
			ASSERT_GE((unsigned int)PMUCTL_MAX_EVENTS + 1, n);
			memcpy(s->u[s->nu].ev, idx, n * sizeof(idx[0]));
			s->u[s->nu].n = n;
			if (unit_fits(ms, &s->u[s->nu])) {
				/* counted together, in the pass the metric names */
				EXPECT_EQ(st->first, st->last)
					TH_LOG("%s: %s mixes passes, yet its events schedule together",
					       cases[c].spec, pmuctl_metric_name(ms->m[k]));
				for (unsigned int j = 0; j < n; j++) {
					EXPECT_TRUE(in_pass(ms, st->first, idx[j]))
						TH_LOG("%s: %s's event %s", cases[c].spec,
						       pmuctl_metric_name(ms->m[k]),
						       ms->ev[idx[j]].name);
				}
				s->nu++;
				continue;
			}
			/* they cannot be counted at once: one unit per event */
			EXPECT_NE(st->first, st->last) TH_LOG("%s: %s", cases[c].spec,
							      pmuctl_metric_name(ms->m[k]));
			split++;
			for (unsigned int j = 0; j < n && s->nu < MAXU; j++) {
				bool dup = false;

				for (unsigned int i = 0; i < s->nu; i++)
					dup |= s->u[i].n == 1 && s->u[i].ev[0] == idx[j];
				if (dup)
					continue;
				s->u[s->nu].ev[0] = idx[j];
				s->u[s->nu++].n = 1;
			}
		}
		/* each pass, as built, schedules */
		for (unsigned int p = 0; p < ms->passes; p++) {
			struct unit u = { .n = ms->npass[p] };

			memcpy(u.ev, ms->pass[p], ms->npass[p] * sizeof(u.ev[0]));
			EXPECT_TRUE(unit_fits(ms, &u))
				TH_LOG("%s on %s: pass %u does not schedule", cases[c].spec,
				       pmu->name, p + 1);
		}
		/* the largest units first: the search fails sooner */
		qsort(s->u, s->nu, sizeof(s->u[0]), unit_cmp);
		s->best = TOOL_MSET_PASSES + 1;
		search(s, 0, 0);
		TH_LOG("%s on %s: %u metrics (%u split), %u events, %u passes; the search's fewest %u (%llu nodes)",
			       cases[c].spec, pmu->name, ms->nm, split, ms->nev,
			       ms->passes, s->best, s->tried);
		EXPECT_GE(SEARCH_BUDGET, s->tried) TH_LOG("%s on %s: the search did not end",
							  cases[c].spec, pmu->name);
		EXPECT_EQ(s->best, ms->passes) TH_LOG("%s on %s", cases[c].spec, pmu->name);
		EXPECT_LE(1U, ms->passes);
		tool_mset_free(ms);
		free(s);
	}
}

TEST_HARNESS_MAIN
