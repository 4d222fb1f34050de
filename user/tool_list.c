// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctl list: the events of one PMU with their umasks, modifiers and
 * descriptions, straight from libpfm4's tables.  The PMU is the one the
 * module drives when the device is there (its names are the ones stat and
 * watch resolve), else --pmu, else the one libpfm4 detects on this host.
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

#include "pfm.h"
#include "tool.h"

void list_usage(FILE *f)
{
	fputs("usage: pmuctl list [--pmu PMU] [--names] [PATTERN]\n"
	      "       pmuctl list --pmus\n"
	      "\n"
	      "List the events of a PMU with their umasks, modifiers and descriptions\n"
	      "(libpfm4).  The PMU is, in this order: --pmu; the model of the pmuctl\n"
	      "module when the device can be opened; the core PMU libpfm4 detects on\n"
	      "this host.\n"
	      "\n"
	      "  -p, --pmu PMU   knm, knl, skl, icl, icx, spr, gnr, adl_glc,\n"
	      "                  adl_grt, srf or arch (libpfm4 4.13 has no table\n"
	      "                  for gnr, adl_glc, adl_grt, srf: architectural\n"
	      "                  events only)\n"
	      "      --names     only the names stat, watch and check take, one a\n"
	      "                  line: perf's generic names that resolve on the\n"
	      "                  PMU (instructions, cycles...), then each event\n"
	      "                  and each EVENT:UMASK\n"
	      "      --pmus      only the PMUs --pmu takes, one a line\n"
	      "  -h, --help      show this help\n"
	      "\n"
	      "PATTERN selects events by name, case-insensitively: a glob when it\n"
	      "has *, ? or [ (matching the whole name), else a substring.\n"
	      "\n"
	      "Output: a first line '# pmu: NAME (libpfm4 PFMNAME): SOURCE', then per\n"
	      "event a line 'EVENT (CODE): DESCRIPTION', its umasks indented as\n"
	      "'  :UMASK  DESCRIPTION' ('[default]' marks libpfm4's default umasks)\n"
	      "and '  modifiers: ...' (N: takes a value, e.g. c=1).  Event strings\n"
	      "for stat and watch are EVENT[:UMASK...][:MODIFIER...].\n"
	      "\n"
	      "Exit status: 0 some event listed, 1 none matched or no PMU, 2 usage.\n", f);
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
		{ "help",  no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct tool_pmu *named = NULL;
	const char *pattern = NULL, *pfm = NULL, *name;
	char source[160];
	pfm_pmu_info_t pi;
	pfm_event_info_t ei;
	struct pmuctl *p;
	int opt, ret, idx, shown = 0;
	bool names = false, pmus = false;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":p:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			named = tool_pmu_find(optarg);
			if (!named)
				return tool_usage_error("list", "unknown pmu '%s' (knm, knl, skl, icl, icx, spr, gnr, adl_glc, adl_grt, srf, arch)",
							optarg);
			break;
		case 'N':
			names = true;
			break;
		case 'P':
			pmus = true;
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
		snprintf(source, sizeof(source), "--pmu");
	} else if (!ret) {
		uint32_t model = pmuctl_get_info(p)->pmu_model;

		pfm = pmuctl_pfm_pmu_name(model);
		name = pmuctl_model_name(model);
		snprintf(source, sizeof(source), "the pmuctl module's model");
		pmuctl_close(p);
	} else {
		name = NULL;
		snprintf(source, sizeof(source), "this host's CPU (%s: %s)",
			 tool_device_path(), strerror(-ret));
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
