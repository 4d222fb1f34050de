// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctl list: the events of one PMU: Intel's names from the model's list
 * (events/intel/, with encodings and counters, no descriptions), then
 * libpfm4's with their umasks, modifiers and descriptions.  The PMU is
 * the one the module drives when the device is there (its names are the
 * ones stat and watch resolve), else --pmu, else the one libpfm4 detects
 * on this host.
 * --names prints only the names, one a line, for scripts and the shell
 * completion (dist/pmuctl.bash); --pmus the PMUs --pmu takes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <string.h>
#include <strings.h>

#include <perfmon/pfmlib.h>

#include "events.h"
#include "metrics.h"
#include "pfm.h"
#include "tool.h"

void list_usage(FILE *f)
{
	fprintf(f, "usage: pmuctl list [--pmu PMU] [--names] [PATTERN]\n"
	      "       pmuctl list --metrics [--pmu PMU] [--names] [PATTERN|GROUP]\n"
	      "       pmuctl list --pmus\n"
	      "\n"
	      "List the events of a PMU: Intel's names from its event list, with\n"
	      "encodings and counters, then libpfm4's with umasks, modifiers and\n"
	      "descriptions.  The PMU is, in this order: --pmu; the model of the\n"
	      "pmuctl module when the device can be opened; the core PMU libpfm4\n"
	      "detects on this host.\n"
	      "\n"
	      "  -p, --pmu PMU   %s\n"
	      "                  (libpfm4 4.13 has no table for gnr, adl_*, srf,\n"
	      "                  grr, lnl_*, arl_*: Intel's names and the\n"
	      "                  architectural events there)\n"
	      "      --names     only the names stat, watch and check take, one a\n"
	      "                  line: perf's generic names that resolve on the\n"
	      "                  PMU (instructions, cycles...), Intel's names, then\n"
	      "                  each libpfm4 EVENT and EVENT:UMASK\n"
	      "      --metrics   Intel's metrics of the PMU instead: per metric a\n"
	      "                  line 'NAME  GROUPS  UNIT', and 'unavailable:\n"
	      "                  REASON' where pmuctl cannot compute it (uncore\n"
	      "                  events, PEBS retire latency...); PATTERN also\n"
	      "                  selects a group (TopdownL1, TopdownL2, Intel's\n"
	      "                  TmaL1...); stat and check take them with -M;\n"
	      "                  with --names: the groups and short names -M\n"
	      "                  takes (TopdownL1, IPC...), then the metrics\n"
	      "      --pmus      only the PMUs --pmu takes, one a line\n"
	      "  -h, --help      show this help\n"
	      "\n"
	      "PATTERN selects events by name, case-insensitively: a glob when it\n"
	      "has *, ? or [ (matching the whole name), else a substring.\n"
	      "\n"
	      "Output: a first line '# pmu: NAME (libpfm4 PFMNAME): SOURCE'; Intel's\n"
	      "list, '# intel: LIST: JSON FILE, perfmon COMMIT', then per event\n"
	      "'NAME  rCONFIG[:EXTRA]  COUNTERS[  deprecated]': the raw event that\n"
	      "is the name (user and kernel mode; stat, watch and check take it as\n"
	      "it is) and the counters Intel lists (pmc0-3, fixed0); then, after\n"
	      "'# libpfm4: PFMNAME', libpfm4's events, each a line\n"
	      "'EVENT (CODE): DESCRIPTION', its umasks indented as\n"
	      "'  :UMASK  DESCRIPTION' ('[default]' marks libpfm4's default umasks)\n"
	      "and '  modifiers: ...' (N: takes a value, e.g. c=1).  Event strings\n"
	      "for stat and watch are Intel's NAME[:MODIFIER...] or libpfm4's\n"
	      "EVENT[:UMASK...][:MODIFIER...].\n"
	      "\n"
	      "Exit status: 0 some event listed, 1 none matched or no PMU, 2 usage.\n",
	      tool_pmu_names());
}

static bool pmu_info(int pmu, pfm_pmu_info_t *pi)
{
	memset(pi, 0, sizeof(*pi));
	pi->size = sizeof(*pi);
	return pfm_get_pmu_info(pmu, pi) == PFM_SUCCESS && pi->name;
}

/*
 * The libpfm4 index of the present core PMU named @name, or with @name
 * NULL the first present core PMU (after pmuctl_pfm_init(NULL) that is the
 * host's: nothing was forced before in this process).
 */
static int pmu_index(const char *name, pfm_pmu_info_t *pi)
{
	for (int p = 0; p < PFM_PMU_MAX; p++) {
		if (!pmu_info(p, pi) || !pi->is_present || pi->type != PFM_PMU_TYPE_CORE)
			continue;
		if (!name || !strcasecmp(pi->name, name))
			return p;
	}
	return -1;
}

static bool matches(const char *pattern, const char *name)
{
	if (!pattern)
		return true;
	if (strpbrk(pattern, "*?["))
		return !fnmatch(pattern, name, FNM_CASEFOLD);
	return strcasestr(name, pattern) != NULL;
}

/*
 * perf's generic hardware event names (perf list hw): --names prints the
 * ones the library's resolver takes on the PMU, as stat and watch do.
 */
static const char *const perf_names[] = {
	"cycles", "cpu-cycles", "instructions", "cache-references",
	"cache-misses", "branches", "branch-instructions", "branch-misses",
	"bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend",
	"ref-cycles",
};

static bool resolves(const char *pfm, const char *name)
{
	struct pmuctl_event ev;

	return !pmuctl_event_parse(pfm, name, &ev, NULL, 0);
}

static bool attr_info(int ev, int a, pfm_event_attr_info_t *ai)
{
	memset(ai, 0, sizeof(*ai));
	ai->size = sizeof(*ai);
	return pfm_get_event_attr_info(ev, a, PFM_OS_NONE, ai) == PFM_SUCCESS &&
	       ai->name;
}

static void print_event(const pfm_event_info_t *ei)
{
	pfm_event_attr_info_t ai;
	int width = 0, nmods = 0;

	printf("%s (%#llx): %s\n", ei->name, (unsigned long long)ei->code,
	       ei->desc ? ei->desc : "");
	for (int a = 0; a < ei->nattrs; a++)
		if (attr_info(ei->idx, a, &ai) && ai.type == PFM_ATTR_UMASK &&
		    (int)strlen(ai.name) > width)
			width = (int)strlen(ai.name);
	for (int a = 0; a < ei->nattrs; a++) {
		if (!attr_info(ei->idx, a, &ai) || ai.type != PFM_ATTR_UMASK)
			continue;
		printf("  :%-*s  %s%s\n", width, ai.name, ai.desc ? ai.desc : "",
		       ai.is_dfl ? " [default]" : "");
	}
	for (int a = 0; a < ei->nattrs; a++) {
		if (!attr_info(ei->idx, a, &ai) ||
		    (ai.type != PFM_ATTR_MOD_BOOL && ai.type != PFM_ATTR_MOD_INTEGER))
			continue;
		printf("%s %s%s", nmods++ ? "" : "  modifiers:", ai.name,
		       ai.type == PFM_ATTR_MOD_INTEGER ? "=N" : "");
	}
	if (nmods)
		printf("\n");
}

/* "pmc0-3", "pmc0,2,5", "fixed1": the counters Intel lists for @e. */
static void intel_counters(const struct pmuctl_ievent *e, char *buf, size_t len)
{
	size_t off = 0;

	if (e->fixed) {
		snprintf(buf, len, "fixed%u", e->fixed - 1U);
		return;
	}
	buf[0] = '\0';
	for (unsigned int i = 0; i < 16 && off < len; i++) {
		unsigned int j = i;

		if (!(e->gp & (1U << i)))
			continue;
		while (j + 1 < 16 && (e->gp & (1U << (j + 1))))
			j++;
		off += (size_t)snprintf(buf + off, len - off, "%s%u", off ? "," : "pmc", i);
		if (j > i + 1 && off < len)
			off += (size_t)snprintf(buf + off, len - off, "-%u", j);
		else
			j = i;
		i = j;
	}
}

/*
 * Intel's events of @l that match @pattern: counted when @print is false,
 * printed (names only with @names) when true.  Returns how many match.
 */
static int intel_list(const struct pmuctl_ilist *l, const char *pattern,
		      bool names, bool print)
{
	int n = 0, width = 0;

	for (unsigned int i = 0; l && i < l->nr; i++) {
		const char *name = pmuctl_ievent_name(&l->ev[i]);

		if (matches(pattern, name) && (int)strlen(name) > width)
			width = (int)strlen(name);
	}
	for (unsigned int i = 0; l && i < l->nr; i++) {
		const struct pmuctl_ievent *e = &l->ev[i];
		const char *name = pmuctl_ievent_name(e);
		struct pmuctl_event ev;
		char raw[48], ctrs[48];

		if (!matches(pattern, name))
			continue;
		n++;
		if (!print)
			continue;
		if (n == 1 && !names)
			printf("# intel: %s: %s, perfmon %.7s\n", l->name, l->source,
			       l->commit);
		if (names) {
			printf("%s\n", name);
			continue;
		}
		pmuctl_ievent_encode(l, e, &ev);
		if (e->msr)
			snprintf(raw, sizeof(raw), "r%llx:%llx",
				 (unsigned long long)ev.config,
				 (unsigned long long)ev.extra);
		else
			snprintf(raw, sizeof(raw), "r%llx",
				 (unsigned long long)ev.config);
		intel_counters(e, ctrs, sizeof(ctrs));
		printf("%-*s  %-22s  %s%s\n", width, name, raw, ctrs,
		       e->flags & PMUCTL_IEV_DEPRECATED ? "  deprecated" : "");
	}
	return n;
}

/*
 * --metrics: Intel's metrics of @ml whose name matches @pattern or that
 * are in the group @pattern names; counted, or printed when @print.
 */
static int metric_list(const struct pmuctl_mlist *ml, const struct pmuctl_ilist *il,
		       const char *pattern, bool names, bool print)
{
	int n = 0, width = 0;

	/* --names: then the groups and short names -M takes that match */
	static const char *const more[] = {
		"TopdownL1", "TopdownL2", "IPC", "CPI", "CoreIPC", "L1MPKI",
		"L2MPKI", "L3MPKI",
	};

	for (size_t k = 0; names && k < ARRAY_SIZE(more); k++) {
		bool in = false;

		if (!matches(pattern, more[k]))
			continue;
		for (unsigned int i = 0; i < ml->nr && !in; i++)
			in = pmuctl_metric_in_group(ml, &ml->m[i], more[k], strlen(more[k]));
		if (!in && !pmuctl_metric_find(ml, more[k], strlen(more[k])))
			continue;
		n++;
		if (print)
			printf("%s\n", more[k]);
	}
	for (int pass = 0; pass < 2; pass++) {
		for (unsigned int i = 0; i < ml->nr; i++) {
			const struct pmuctl_imetric *m = &ml->m[i];
			const char *name = pmuctl_metric_name(m), *why;
			char groups[160], unit[48], buf[256];

			if (!matches(pattern, name) &&
			    !(pattern && pmuctl_metric_in_group(ml, m, pattern, strlen(pattern))))
				continue;
			if (!pass) {
				if ((int)strlen(name) > width)
					width = (int)strlen(name);
				continue;
			}
			n++;
			if (!print)
				continue;
			if (n == 1 && !names && strcmp(ml->commit, "-"))
				printf("# metrics: %s: %s, perfmon %.7s\n", ml->name,
				       ml->source, ml->commit);
			else if (n == 1 && !names)
				printf("# metrics: %s: pmuctl's own, Intel publishes none for this core: %s\n",
				       ml->name, ml->source);
			if (names) {
				printf("%s\n", name);
				continue;
			}
			pmuctl_metric_attr(m, 0, groups, sizeof(groups));
			pmuctl_metric_attr(m, 2, unit, sizeof(unit));
			why = pmuctl_metric_unavailable(il, m, buf, sizeof(buf));
			printf("%-*s  %s  %s%s%s\n", width, name, groups[0] ? groups : "-",
			       unit[0] ? unit : "-", why ? "  unavailable: " : "",
			       why ? why : "");
		}
	}
	return n;
}

/* --names: EVENT, then EVENT:UMASK for each umask. */
static void print_names(const pfm_event_info_t *ei)
{
	pfm_event_attr_info_t ai;

	printf("%s\n", ei->name);
	for (int a = 0; a < ei->nattrs; a++)
		if (attr_info(ei->idx, a, &ai) && ai.type == PFM_ATTR_UMASK)
			printf("%s:%s\n", ei->name, ai.name);
}

int cmd_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pmu",   required_argument, NULL, 'p' },
		{ "names", no_argument,       NULL, 'N' },
		{ "pmus",  no_argument,       NULL, 'P' },
		{ "metrics", no_argument,     NULL, 'M' },
		{ "help",  no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct tool_pmu *named = NULL;
	const struct pmuctl_ilist *ilist = NULL;
	const char *pattern = NULL, *pfm = NULL, *name;
	char source[160];
	pfm_pmu_info_t pi;
	pfm_event_info_t ei;
	struct pmuctl *p;
	int opt, ret, idx, shown = 0;
	bool names = false, pmus = false, metrics = false;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":p:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			named = tool_pmu_find(optarg);
			if (!named)
				return tool_usage_error("list", "unknown pmu '%s' (%s)",
							optarg, tool_pmu_names());
			break;
		case 'N':
			names = true;
			break;
		case 'P':
			pmus = true;
			break;
		case 'M':
			metrics = true;
			break;
		case 'h':
			list_usage(stdout);
			return 0;
		case ':':
			return tool_usage_error("list", "option '%s' needs a value",
						argv[optind - 1]);
		default:
			return tool_usage_error("list", "unknown option '%s'",
						argv[optind - 1]);
		}
	}
	if (optind < argc)
		pattern = argv[optind++];
	if (optind < argc)
		return tool_usage_error("list", "unexpected argument '%s': give one PATTERN",
					argv[optind]);
	if (pmus) {
		if (named || names || pattern)
			return tool_usage_error("list", "--pmus takes no --pmu, --names or PATTERN");
		for (unsigned int i = 0; i < tool_nr_pmus; i++)
			printf("%s\n", tool_pmus[i].name);
		return 0;
	}

	ret = named ? 0 : tool_open_quiet(&p);
	if (named) {
		pfm = named->pfm;
		name = named->name;
		ilist = pmuctl_ilist_find(named->ilist);
		snprintf(source, sizeof(source), "--pmu");
	} else if (!ret) {
		uint32_t model = pmuctl_get_info(p)->pmu_model;

		pfm = pmuctl_pfm_pmu_name(model);
		name = pmuctl_model_name(model);
		ilist = pmuctl_ilist_find(pmuctl_event_list(model));
		snprintf(source, sizeof(source), "the pmuctl module's model");
		pmuctl_close(p);
	} else {
		name = NULL;
		snprintf(source, sizeof(source), "this host's CPU (%s: %s)",
			 tool_device_path(), strerror(-ret));
	}

	if (metrics) {
		const struct pmuctl_mlist *ml = pmuctl_mlist_find(ilist ? ilist->name : NULL);

		if (!ml)
			return tool_fail("list", "no metrics for PMU %s: arch, any other Intel core, has no event list",
					 name ? name : "(this host)");
		if (!metric_list(ml, ilist, pattern, names, false))
			return tool_fail("list", "no metric of %s matches '%s': try a group (TopdownL1, TopdownL2) or a shorter pattern",
					 ml->name, pattern ? pattern : "");
		if (!names)
			printf("# pmu: %s: %s\n", name ? name : ml->name, source);
		metric_list(ml, ilist, pattern, names, true);
		return 0;
	}
	ret = pmuctl_pfm_init(pfm);
	idx = ret ? -1 : pmu_index(pfm, &pi);
	if (idx < 0) {
		if (pfm)
			return tool_fail("list", "libpfm4 has no usable PMU '%s' (%s): update libpfm4 (4.13 or later knows knl, knm, skl)",
					 pfm, strerror(ret ? -ret : ENODEV));
		return tool_fail("list", "cannot tell which PMU's events to list: %s is not usable and libpfm4 knows no core PMU of this CPU; name one with --pmu knm|knl|skl|arch",
				 tool_device_path());
	}
	/* Pass 0 counts, pass 1 prints: no match leaves stdout empty. */
	for (int pass = 0; pass < 2; pass++) {
		if (pass && !shown)
			return tool_fail("list", "no event of PMU %s matches '%s': try a shorter pattern, or none",
					 pi.name, pattern ? pattern : "");
		if (pass && !names)
			printf("# pmu: %s (libpfm4 %s): %s\n", name ? name : pi.name,
			       pi.name, source);
		for (size_t i = 0; names && i < ARRAY_SIZE(perf_names); i++) {
			if (!matches(pattern, perf_names[i]) ||
			    !resolves(pfm, perf_names[i]))
				continue;
			if (pass)
				printf("%s\n", perf_names[i]);
			else
				shown++;
		}
		shown += intel_list(ilist, pattern, names, pass);
		if (pass && !names && ilist)
			printf("# libpfm4: %s\n", pi.name);
		for (int i = pi.first_event; i >= 0; i = pfm_get_event_next(i)) {
			memset(&ei, 0, sizeof(ei));
			ei.size = sizeof(ei);
			if (pfm_get_event_info(i, PFM_OS_NONE, &ei) != PFM_SUCCESS)
				continue;
			if ((int)ei.pmu != idx)
				break;
			if (!matches(pattern, ei.name))
				continue;
			if (pass && names)
				print_names(&ei);
			else if (pass)
				print_event(&ei);
			else
				shown++;
		}
	}
	return 0;
}
