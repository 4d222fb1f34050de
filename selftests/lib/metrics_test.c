// SPDX-License-Identifier: GPL-2.0
/*
 * Intel's metrics in libpmuctl (user/metrics.c), against the committed
 * lists they are generated from (events/intel/LIST.metrics, read here at
 * run time):
 *
 *  - the library has every metric of every list, in order, with its
 *    formula and threshold as the file has them (without the blanks no
 *    token needs: the build packs them, scripts/mpack.c), each of which
 *    compiles;
 *  - each metric is either computable on the list's model, every event
 *    resolving to an encoding, or unavailable with a reason of a known
 *    kind (uncore, PEBS retire latency, SMT sums, the TSC as an event,
 *    the system's topology);
 *  - TopdownL1 and TopdownL2 are Intel's TmaL1 and TmaL2;
 *  - evaluation: IPC and Frontend_Bound from counts, exactly; division by
 *    zero and a missing count reported.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "libpmuctl.h"
#include "metrics.h"

FIXTURE(metrics) {
	const struct pmuctl_mlist *ml;
	const struct pmuctl_ilist *il;
};

FIXTURE_VARIANT(metrics) {
	const char *list;
	bool tma;		/* Intel gives TmaL1 and TmaL2 */
	const char *ipc;	/* the IPC metric's name */
	const char *dir;	/* where its file is: intel, or pmuctl (our own) */
};

FIXTURE_VARIANT_ADD(metrics, skl) { "skl", true, "Info_Thread_IPC", "intel" };
FIXTURE_VARIANT_ADD(metrics, skx) { "skx", true, "Info_Thread_IPC", "intel" };
FIXTURE_VARIANT_ADD(metrics, clx) { "clx", true, "Info_Thread_IPC", "intel" };
FIXTURE_VARIANT_ADD(metrics, icl) { "icl", true, "Info_Thread_IPC", "intel" };
FIXTURE_VARIANT_ADD(metrics, icx) { "icx", true, "Info_Thread_IPC", "intel" };
FIXTURE_VARIANT_ADD(metrics, spr) { "spr", true, "Info_Thread_IPC", "intel" };
FIXTURE_VARIANT_ADD(metrics, emr) { "emr", true, "Info_Thread_IPC", "intel" };
FIXTURE_VARIANT_ADD(metrics, gnr) { "gnr", true, "Info_Thread_IPC", "intel" };
FIXTURE_VARIANT_ADD(metrics, srf) { "srf", false, "Info_Core_IPC", "intel" };
FIXTURE_VARIANT_ADD(metrics, grr) { "grr", false, "Info_Core_IPC", "intel" };
FIXTURE_VARIANT_ADD(metrics, adl_glc) { "adl_glc", true, "Info_Thread_IPC", "intel" };
FIXTURE_VARIANT_ADD(metrics, lnl_lnc) { "lnl_lnc", true, "Info_Thread_IPC", "intel" };
FIXTURE_VARIANT_ADD(metrics, arl_lnc) { "arl_lnc", true, "Info_Thread_IPC", "intel" };
/* pmuctl's own, where Intel gives none */
FIXTURE_VARIANT_ADD(metrics, knl) { "knl", false, "Info_Thread_IPC", "pmuctl" };
FIXTURE_VARIANT_ADD(metrics, adl_grt) { "adl_grt", false, "Info_Core_IPC", "pmuctl" };
FIXTURE_VARIANT_ADD(metrics, lnl_skt) { "lnl_skt", false, "Info_Core_IPC", "pmuctl" };
FIXTURE_VARIANT_ADD(metrics, arl_skt) { "arl_skt", false, "Info_Core_IPC", "pmuctl" };

FIXTURE_SETUP(metrics)
{
	self->ml = pmuctl_mlist_find(variant->list);
	self->il = pmuctl_ilist_find(variant->list);
	ASSERT_NE(NULL, self->ml) TH_LOG("no metrics for %s", variant->list);
	ASSERT_NE(NULL, self->il) TH_LOG("no events for %s", variant->list);
}

FIXTURE_TEARDOWN(metrics)
{
}

static bool word(char c)
{
	return c == '_' || c == '.' || (c >= '0' && c <= '9') ||
	       (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* @f without the blanks no token needs, as the build strips it, in place. */
static char *strip(char *f)
{
	size_t o = 0;

	for (size_t i = 0; f[i]; i++) {
		if (f[i] == ' ') {
			size_t j = i;

			while (f[j] == ' ')
				j++;
			if (o && f[j] && word(f[o - 1]) && word(f[j]))
				f[o++] = ' ';
			i = j - 1;
			continue;
		}
		f[o++] = f[i];
	}
	f[o] = '\0';
	return f;
}

/*
 * The "metric NAME" lines of the committed file, in order, and each
 * formula and threshold as the library unpacks it.
 */
TEST_F(metrics, the_library_has_every_metric_of_the_file)
{
	char path[128], *line = NULL;
	size_t cap = 0;
	unsigned int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "events/%s/%s.metrics", variant->dir,
		 variant->list);
	f = fopen(path, "r");
	ASSERT_NE(NULL, f) TH_LOG("%s", path);
	while (getline(&line, &cap, f) > 0) {
		bool formula = !strncmp(line, "formula ", 8);
		char *text;

		line[strcspn(line, "\n")] = '\0';
		if (formula || !strncmp(line, "threshold ", 10)) {
			ASSERT_LT(0U, n);
			text = pmuctl_metric_text(&self->ml->m[n - 1], !formula);
			ASSERT_NE(NULL, text);
			EXPECT_STREQ(strip(line + (formula ? 8 : 10)), text)
				TH_LOG("%s %s", variant->list,
				       pmuctl_metric_name(&self->ml->m[n - 1]));
			free(text);
			continue;
		}
		if (strncmp(line, "metric ", 7))
			continue;
		ASSERT_LT(n, self->ml->nr) TH_LOG("%s: the library has %u metrics",
						 variant->list, self->ml->nr);
		EXPECT_STREQ(line + 7, pmuctl_metric_name(&self->ml->m[n]));
		n++;
	}
	free(line);
	fclose(f);
	EXPECT_EQ(n, self->ml->nr);
	EXPECT_LT(strcmp(variant->dir, "intel") ? 1U : 100U, n);
}

TEST_F(metrics, every_formula_and_threshold_compiles)
{
	unsigned int thresholds = 0;

	for (unsigned int i = 0; i < self->ml->nr; i++) {
		const struct pmuctl_imetric *m = &self->ml->m[i];
		struct pmuctl_expr *e;
		char msg[256];

		EXPECT_EQ(0, pmuctl_metric_compile(m, false, &e, msg, sizeof(msg)))
			TH_LOG("%s %s: %s", variant->list, pmuctl_metric_name(m), msg);
		pmuctl_expr_free(e);
		if (!m->threshold)
			continue;
		thresholds++;
		EXPECT_EQ(0, pmuctl_metric_compile(m, true, &e, msg, sizeof(msg)))
			TH_LOG("%s %s threshold: %s", variant->list,
			       pmuctl_metric_name(m), msg);
		pmuctl_expr_free(e);
	}
	if (!strcmp(variant->dir, "intel"))
		EXPECT_LT(20U, thresholds);
}

TEST_F(metrics, each_metric_is_computable_or_says_why_not)
{
	static const char *const kinds[] = {
		"needs uncore events (",
		"needs PEBS retire latency, a sampling feature (",
		"needs counts summed over the core's SMT threads (",
		"needs the time-stamp counter as a counted event (TSC)",
		"needs the system's ",
	};
	unsigned int ok = 0;

	for (unsigned int i = 0; i < self->ml->nr; i++) {
		const struct pmuctl_imetric *m = &self->ml->m[i];
		char why[256];
		const char *r = pmuctl_metric_unavailable(self->il, m, why, sizeof(why));
		bool known = false;

		if (!r) {
			ok++;
			for (unsigned int e = 0; e < m->nevents; e++) {
				struct pmuctl_event ev;
				char msg[256];

				EXPECT_EQ(0, pmuctl_metric_event(self->il, m, e, &ev, msg,
								 sizeof(msg)))
					TH_LOG("%s %s: %s", variant->list,
					       pmuctl_metric_name(m), msg);
				EXPECT_NE(0ULL, ev.config & (PMUCTL_CFG_USR | PMUCTL_CFG_OS));
			}
			continue;
		}
		for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
			known |= !strncmp(r, kinds[k], strlen(kinds[k]));
		EXPECT_TRUE(known) TH_LOG("%s %s: %s", variant->list,
					  pmuctl_metric_name(m), r);
	}
	TH_LOG("%s: %u of %u metrics computable", variant->list, ok, self->ml->nr);
	EXPECT_LT(self->ml->nr / 2, ok);
	/* the short names */
	EXPECT_EQ(pmuctl_metric_find(self->ml, variant->ipc, strlen(variant->ipc)),
		  pmuctl_metric_find(self->ml, "ipc", 3));
	EXPECT_NE(NULL, pmuctl_metric_find(self->ml, "CPI", 3));
	EXPECT_EQ(NULL, pmuctl_metric_unavailable(self->il,
		pmuctl_metric_find(self->ml, variant->ipc, strlen(variant->ipc)),
		NULL, 0));
}

TEST_F(metrics, topdown_groups_are_intels_tma_levels)
{
	unsigned int l1 = 0, l2 = 0, tma1 = 0;

	for (unsigned int i = 0; i < self->ml->nr; i++) {
		const struct pmuctl_imetric *m = &self->ml->m[i];

		l1 += pmuctl_metric_in_group(self->ml, m, "TopdownL1", 9);
		l2 += pmuctl_metric_in_group(self->ml, m, "topdownl2", 9);
		tma1 += pmuctl_metric_in_group(self->ml, m, "TmaL1", 5);
		EXPECT_FALSE(pmuctl_metric_in_group(self->ml, m, "TopdownL3", 9));
		EXPECT_FALSE(pmuctl_metric_in_group(self->ml, m, "Tma", 3));
	}
	if (variant->tma) {
		EXPECT_EQ(tma1, l1);
		EXPECT_LE(6U, l1);
		EXPECT_EQ(8U, l2);
		ASSERT_NE(NULL, pmuctl_metric_find(self->ml, "frontend_bound", 14));
		EXPECT_TRUE(pmuctl_metric_in_group(self->ml, pmuctl_metric_find(self->ml,
			"Frontend_Bound", 14), "TopdownL1", 9));
	} else if (!strcmp(variant->dir, "intel")) {
		/* the Atom lists: the TMA tree's level 1 and 2 nodes */
		EXPECT_EQ(0U, tma1);
		EXPECT_EQ(4U, l1);
		EXPECT_EQ(6U, l2);
		EXPECT_TRUE(pmuctl_metric_in_group(self->ml, pmuctl_metric_find(self->ml,
			"Retiring", 8), "TopdownL1", 9));
	} else {
		EXPECT_EQ(0U, l1);
	}
}

/* Set count @value for every event of @m named @name. */
static void set(const struct pmuctl_imetric *m, double *c, const char *name,
		double value)
{
	for (unsigned int i = 0; i < m->nevents; i++)
		if (!strcmp(pmuctl_metric_var(m, i, NULL), name))
			c[i] = value;
}

TEST_F(metrics, evaluation_is_exact_and_says_what_is_wrong)
{
	const struct pmuctl_imetric *m = pmuctl_metric_find(self->ml, variant->ipc,
							     strlen(variant->ipc));
	struct pmuctl_metric_env env = { .duration_s = 1, .threads_per_core = 2 };
	double c[256] = { 0 }, v = -1;
	bool have[256];
	char msg[256];

	ASSERT_NE(NULL, m);
	set(m, c, "INST_RETIRED.ANY", 3000000);
	set(m, c, "CPU_CLK_UNHALTED.THREAD", 1000000);
	set(m, c, "CPU_CLK_UNHALTED.CORE", 1000000);
	ASSERT_EQ(0, pmuctl_metric_eval(m, c, NULL, &env, &v, msg, sizeof(msg)))
		TH_LOG("%s", msg);
	EXPECT_EQ(3.0, v);
	set(m, c, "CPU_CLK_UNHALTED.THREAD", 0);
	set(m, c, "CPU_CLK_UNHALTED.CORE", 0);
	EXPECT_EQ(-EDOM, pmuctl_metric_eval(m, c, NULL, &env, &v, msg, sizeof(msg)));
	EXPECT_NE(NULL, strstr(msg, "division by zero")) TH_LOG("%s", msg);
	for (unsigned int i = 0; i < m->nevents; i++)
		have[i] = strcmp(pmuctl_metric_var(m, i, NULL), "INST_RETIRED.ANY");
	EXPECT_EQ(-ENODATA, pmuctl_metric_eval(m, c, have, &env, &v, msg, sizeof(msg)));
	EXPECT_NE(NULL, strstr(msg, "no value for")) TH_LOG("%s", msg);

	/* TMA level 1 from PERF_METRICS, where the model has it */
	m = pmuctl_metric_find(self->ml, "Retiring", 8);
	if (!variant->tma || !m ||
	    strcmp(pmuctl_metric_var(m, 0, NULL), "PERF_METRICS.RETIRING"))
		return;
	memset(c, 0, sizeof(c));
	set(m, c, "PERF_METRICS.RETIRING", 400);
	set(m, c, "PERF_METRICS.FRONTEND_BOUND", 300);
	set(m, c, "PERF_METRICS.BAD_SPECULATION", 100);
	set(m, c, "PERF_METRICS.BACKEND_BOUND", 200);
	ASSERT_EQ(0, pmuctl_metric_eval(m, c, NULL, &env, &v, msg, sizeof(msg)))
		TH_LOG("%s", msg);
	EXPECT_EQ(40.0, v);
}

/* The library's calls (libpmuctl.h), as a program uses them. */
TEST(the_library_calls)
{
	struct pmuctl_metrics *m;
	struct pmuctl_event ev[64];
	const char *names[64];
	uint64_t counts[64] = { 0 };
	unsigned int n, slots = 64;
	char msg[256];
	double v;

	ASSERT_EQ(0, pmuctl_metrics_resolve(PMUCTL_MODEL_SPR, "spr", "IPC,TopdownL1",
					    &m, msg, sizeof(msg))) TH_LOG("%s", msg);
	/* IPC first, then the group in its list's order, each once */
	ASSERT_EQ(9U, pmuctl_metrics_count(m));
	EXPECT_STREQ("Info_Thread_IPC", pmuctl_metrics_name(m, 0));
	EXPECT_STREQ("Frontend_Bound", pmuctl_metrics_name(m, 1));
	EXPECT_STREQ("percent", pmuctl_metrics_unit(m, 1));
	EXPECT_STREQ("", pmuctl_metrics_unit(m, 0));
	EXPECT_EQ(NULL, pmuctl_metrics_unavailable(m, 1));
	EXPECT_EQ(NULL, pmuctl_metrics_name(m, 9));
	for (unsigned int i = 0; i < 9; i++)
		if (!strcmp(pmuctl_metrics_name(m, i), "Info_Thread_Slots_Utilization"))
			EXPECT_NE(NULL, strstr(pmuctl_metrics_unavailable(m, i), "SMT"));
	n = pmuctl_metrics_events(m, ev, names, 64);
	ASSERT_LE(n, 64U);
	ASSERT_EQ(n, pmuctl_metrics_events(m, NULL, NULL, 0));
	for (unsigned int i = 0; i < n; i++) {
		if (!strcmp(names[i], "INST_RETIRED.ANY"))
			counts[i] = 3000;
		if (!strcmp(names[i], "CPU_CLK_UNHALTED.THREAD"))
			counts[i] = 1000;
		if (!strcmp(names[i], "PERF_METRICS.RETIRING")) {
			EXPECT_EQ(0x8000ULL | PMUCTL_CFG_USR | PMUCTL_CFG_OS, ev[i].config);
			counts[i] = 250;
		}
		if (!strcmp(names[i], "PERF_METRICS.BACKEND_BOUND"))
			counts[i] = 750;
		if (!strncmp(names[i], "TOPDOWN.SLOTS", 13))
			slots = i;
	}
	EXPECT_GT(64U, slots);
	ASSERT_EQ(0, pmuctl_metrics_eval(m, 0, counts, 1.0, &v, msg, sizeof(msg)))
		TH_LOG("%s", msg);
	EXPECT_EQ(3.0, v);
	/* Retiring: 250 of 250 + 750 (frontend and bad speculation 0) */
	for (unsigned int i = 0; i < 9; i++) {
		if (strcmp(pmuctl_metrics_name(m, i), "Retiring"))
			continue;
		ASSERT_EQ(0, pmuctl_metrics_eval(m, i, counts, 1.0, &v, msg, sizeof(msg)))
			TH_LOG("%s", msg);
		EXPECT_EQ(25.0, v);
	}
	memset(counts, 0, sizeof(counts));
	EXPECT_EQ(-EDOM, pmuctl_metrics_eval(m, 0, counts, 1.0, &v, msg, sizeof(msg)));
	EXPECT_EQ(-EINVAL, pmuctl_metrics_eval(m, 9, counts, 1.0, &v, msg, sizeof(msg)));
	pmuctl_metrics_free(m);

	EXPECT_EQ(-ENOENT, pmuctl_metrics_resolve(PMUCTL_MODEL_SPR, "emr", "IPC,NoSuch",
						  &m, msg, sizeof(msg)));
	EXPECT_STREQ("'NoSuch' is no metric or group of the emr list", msg);
	EXPECT_EQ(NULL, m);
	EXPECT_EQ(-ENODEV, pmuctl_metrics_resolve(PMUCTL_MODEL_SPR, "gnr", "IPC",
						  &m, msg, sizeof(msg)));
	EXPECT_EQ(-ENODEV, pmuctl_metrics_resolve(PMUCTL_MODEL_ARCH, NULL, "IPC",
						  &m, msg, sizeof(msg)));
	ASSERT_EQ(0, pmuctl_metrics_resolve(PMUCTL_MODEL_KNM, NULL, "IPC", &m, msg,
					    sizeof(msg))) TH_LOG("%s", msg);
	EXPECT_STREQ("Info_Thread_IPC", pmuctl_metrics_name(m, 0));
	pmuctl_metrics_free(m);
}

TEST_HARNESS_MAIN
