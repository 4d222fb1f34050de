// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctl check: validate events offline against a model's rules with the
 * same core (kmod/core) the module runs, on caps that stand in for CPUID.
 * Exit status follows grep: 0 every event is valid, 1 some event is not,
 * 2 usage error or trouble.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "metrics.h"
#include "pfm.h"
#include "tool.h"

#define EXIT_INVALID	1

/* --caps overrides; -1 = keep the PMU's default. */
struct caps_override {
	int gp;
	int fixed;
	int version;
	int width;
	int any_depr;		/* CPUID.0AH:EDX[15] */
};

struct caps_key {
	const char *key;
	int min;
	int max;
	size_t off;
};

static const struct caps_key caps_keys[] = {
	{ "gp",      1, PMUCTL_MAX_GP,    offsetof(struct caps_override, gp) },
	{ "fixed",   0, PMUCTL_MAX_FIXED, offsetof(struct caps_override, fixed) },
	{ "version", 2, 255,              offsetof(struct caps_override, version) },
	{ "width",   1, 64,               offsetof(struct caps_override, width) },
	{ "anythread-deprecated", 0, 1,   offsetof(struct caps_override, any_depr) },
};

/* Strict decimal in [min, max]. */
static int parse_dec(const char *s, int min, int max, int *out)
{
	long v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (*s - '0');
		if (v > max)
			return -ERANGE;
	}
	if (v < min)
		return -ERANGE;
	*out = (int)v;
	return 0;
}

/*
 * Parse "key=N[,key=N]..." into @ov.  On error, @err says what was wrong.
 * @list is modified.
 */
static int caps_parse(char *list, struct caps_override *ov,
		      char *err, size_t errlen)
{
	char *save = NULL;

	if (!*list) {
		snprintf(err, errlen, "empty --caps list: expected KEY=N[,KEY=N]...");
		return -EINVAL;
	}
	for (char *item = strtok_r(list, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		const struct caps_key *k = NULL;
		char *eq = strchr(item, '=');
		int ret;

		if (!eq) {
			snprintf(err, errlen, "bad --caps item '%s': expected KEY=N", item);
			return -EINVAL;
		}
		*eq = '\0';
		for (size_t i = 0; i < PMUCTL_NELEM(caps_keys); i++)
			if (!strcmp(caps_keys[i].key, item))
				k = &caps_keys[i];
		if (!k) {
			snprintf(err, errlen,
				 "unknown --caps key '%s' (gp, fixed, version, width, anythread-deprecated)",
				 item);
			return -EINVAL;
		}
		ret = parse_dec(eq + 1, k->min, k->max,
				(int *)((char *)ov + k->off));
		if (ret) {
			snprintf(err, errlen,
				 "bad --caps value %s=%s: a decimal number from %d to %d",
				 k->key, eq + 1, k->min, k->max);
			return ret;
		}
	}
	return 0;
}

/*
 * The caps the module would decode from a CPU reporting @p's CPUID with
 * the @ov overrides: the raw leaves are built and go through the core's
 * own pmuctl_caps_decode(), so its rules (the legacy clamp of the counter
 * counts, AnyThread by version and EDX[15]) apply here as in the module.
 * Every architectural event is enumerated (CPUID.0AH:EAX[31:24] = 8).
 * Return: 0, or the decoder's error.
 */
static int caps_build(const struct tool_pmu *p, const struct caps_override *ov,
		      struct pmuctl_caps *caps)
{
	static const u32 intel[3] = { 0x756e6547, 0x49656e69, 0x6c65746e };
	u32 version = ov->version >= 0 ? ov->version : p->version;
	u32 gp = ov->gp >= 0 ? ov->gp : p->nr_gp;
	u32 fixed = ov->fixed >= 0 ? ov->fixed : p->nr_fixed;
	u32 width = ov->width >= 0 ? ov->width : p->width;
	struct pmuctl_cpuid id = {
		.max_leaf = 0xa,
		/* family 6: the model's high nibble is the extended model */
		.leaf1_eax = (p->model & 0xfU) << 4 | (u32)p->family << 8 |
			     (p->model >> 4) << 16,
		.leafa_eax = version | gp << 8 | width << 16 | 8U << 24,
		.leafa_ecx = ov->fixed >= 0 ? 0 : p->fixed_bitmap,
		.leafa_edx = fixed | width << 5 |
			     ((ov->any_depr >= 0 ? ov->any_depr : p->any_depr) ? 1U << 15 : 0),
	};
	const struct pmuctl_model *m = pmuctl_model_by_id(p->model_id);
	u32 reason;
	int ret;

	memcpy(id.vendor, intel, sizeof(intel));
	/*
	 * Perfmon v6 parts enumerate UMASK2 and EQ (CPUID.(23H,0):EBX, leaf
	 * 23H enumerated by CPUID.(7,1):EAX[8]): every v6 part's dump does.
	 */
	if (version >= 6) {
		id.max_leaf = 0x23;
		id.leaf7_1_eax = 1U << 8;
		id.leaf23_ebx = 0x3;
	}
	/*
	 * The models with topdown metrics are parts that have PERF_METRICS
	 * (IA32_PERF_CAPABILITIES[15], reached through CPUID.1:ECX[15]).
	 */
	if (m && m->nr_metrics) {
		id.leaf1_ecx |= 1U << 15;
		id.perf_capabilities |= 1ULL << 15;
	}
	ret = pmuctl_caps_decode(&id, caps, &reason);
	if (ret)
		return ret;
	if (caps->flags & PMUCTL_CAP_GP_CLAMPED)
		fprintf(stderr,
			"pmuctl check: gp=%u clamped to %u: the legacy MSR range holds %u generic counters\n",
			gp, caps->nr_gp, PMUCTL_LEGACY_GP);
	if (caps->flags & PMUCTL_CAP_FIXED_CLAMPED)
		fprintf(stderr,
			"pmuctl check: fixed=%u clamped to %u: the legacy MSR range holds %u fixed counters\n",
			fixed, caps->nr_fixed, PMUCTL_LEGACY_FIXED);
	return 0;
}

int tool_pmu_caps(const struct tool_pmu *p, struct pmuctl_caps *caps)
{
	const struct caps_override none = { -1, -1, -1, -1, -1 };

	return caps_build(p, &none, caps);
}

/* How one event of a check ends. */
enum ev_state {
	EV_OK,
	EV_UNKNOWN,	/* libpfm4 knows no such name: msg */
	EV_LIBPFM4,	/* libpfm4 refused or failed: msg */
	EV_REASON,	/* the core refused it: reason */
	EV_ERRNO,	/* the core failed without a reason: err */
	EV_GROUP,	/* fine alone, but its group failed at event culprit */
};

struct check_ev {
	const char *arg;
	uint64_t config;	/* as given, before any OFFCORE_RSP move */
	uint64_t extra;
	bool pfm_refused;	/* libpfm4 refused; config/extra are literal */
	enum ev_state state;
	u32 reason;
	int err;
	u32 culprit;
	struct pmuctl_place place;
	char msg[512];
};

struct check_ctx {
	const struct tool_pmu *pmu;
	const struct pmuctl_model *model;
	struct pmuctl_caps caps;
	bool group;
};

static void ev_refuse(struct check_ev *ev, int ret, u32 reason)
{
	if (reason != PMUCTL_R_NONE) {
		ev->state = EV_REASON;
		ev->reason = reason;
	} else {
		ev->state = EV_ERRNO;
		ev->err = ret;
	}
}

/*
 * Turn ev->arg into config/extra with the library's resolver, the one
 * stat and watch use.  Returns 0 when the event goes on to the core or its
 * line is already decided (ev->state), -errno on trouble.
 */
static int check_resolve(struct check_ctx *c, struct check_ev *ev)
{
	struct pmuctl_event pe;
	uint64_t config, extra;
	int ret;

	ev->msg[0] = '\0';
	ret = pmuctl_event_resolve_list(c->pmu->model_id, c->pmu->ilist,
					ev->arg, &pe, ev->msg, sizeof(ev->msg));
	ev->config = pe.config;
	ev->extra = pe.extra;
	switch (ret) {
	case 0:
		break;
	case PMUCTL_PARSE_LITERAL:
		ev->pfm_refused = true;
		break;
	case -EINVAL:
		/* a raw event with a bad number: the command line is wrong */
		if (pmuctl_raw_event(ev->arg, &config, &extra) < 0) {
			tool_usage_error("check", "%s", ev->msg);
			return ret;
		}
		/* fall through */
	case -ENOENT:		/* no such event, umask or modifier */
	case -EOVERFLOW:	/* an encoding pmuctl cannot take */
		if (!ev->msg[0])
			snprintf(ev->msg, sizeof(ev->msg), "%s: %s",
				 ev->arg, strerror(-ret));
		ev->state = ret == -ENOENT ? EV_UNKNOWN : EV_LIBPFM4;
		break;
	default:
		fprintf(stderr, "pmuctl check: cannot resolve '%s' (libpfm4 PMU '%s'): %s\n",
			ev->arg, c->pmu->pfm, ev->msg[0] ? ev->msg : strerror(-ret));
		return ret < 0 ? ret : -EIO;
	}
	return 0;
}

/* The core's verdict on one event alone; libpfm4's refusal comes after it. */
static void check_classify(const struct check_ctx *c, struct check_ev *ev)
{
	struct pmuctl_class cls;
	u32 reason = PMUCTL_R_NONE;
	int ret;

	ret = pmuctl_event_classify(c->model, &c->caps, 0, ev->config,
				    ev->extra, 0, &cls, &reason);
	if (ret)
		ev_refuse(ev, ret, reason);
}

/*
 * Schedule @n events as one group on an idle CPU.  On refusal the event the
 * core names gets the reason, the others EV_GROUP; when the core names no
 * event (index out of range), every event gets the reason.
 */
static int check_schedule(const struct check_ctx *c, struct check_ev *evs,
			  u32 n)
{
	struct pmuctl_event *ev = calloc(n, sizeof(*ev));
	struct pmuctl_place *place = calloc(n, sizeof(*place));
	struct pmuctl_view view;
	u32 reason = PMUCTL_R_NONE, index = n;
	int ret = -ENOMEM;

	if (!ev || !place)
		goto out;
	for (u32 i = 0; i < n; i++) {
		ev[i].config = evs[i].config;
		ev[i].extra = evs[i].extra;
	}
	pmuctl_view_init(&view);
	ret = pmuctl_group_schedule(c->model, &c->caps, 0, &view, ev, n, place,
				    &reason, &index);
	for (u32 i = 0; i < n; i++) {
		if (!ret) {
			evs[i].place = place[i];
		} else if (index >= n || i == index) {
			ev_refuse(&evs[i], ret, reason);
		} else {
			evs[i].state = EV_GROUP;
			evs[i].culprit = index;
		}
	}
	ret = 0;
out:
	free(ev);
	free(place);
	return ret;
}

static bool ev_failed(const struct check_ev *ev)
{
	return ev->state != EV_OK || ev->pfm_refused;
}

static void check_print(const struct check_ev *ev)
{
	u32 idx = ev->place.idx;

	switch (ev->state) {
	case EV_OK:
		if (ev->pfm_refused)
			printf("error LIBPFM4: %s\n", ev->msg);
		else if (idx >= PMUCTL_IDX_METRIC)
			printf("ok metric%u 0x%llx 0x%llx\n",
			       idx - PMUCTL_IDX_METRIC,
			       (unsigned long long)ev->place.config,
			       (unsigned long long)ev->place.extra);
		else if (idx >= PMUCTL_IDX_FIXED)
			printf("ok fixed%u 0x%llx 0x%llx\n",
			       idx - PMUCTL_IDX_FIXED,
			       (unsigned long long)ev->place.config,
			       (unsigned long long)ev->place.extra);
		else
			printf("ok pmc%u 0x%llx 0x%llx\n", idx,
			       (unsigned long long)ev->place.config,
			       (unsigned long long)ev->place.extra);
		break;
	case EV_UNKNOWN:
		printf("error UNKNOWN_EVENT: %s\n", ev->msg);
		break;
	case EV_LIBPFM4:
		printf("error LIBPFM4: %s\n", ev->msg);
		break;
	case EV_REASON:
		printf("error %s: %s\n", pmuctl_reason_name(ev->reason),
		       pmuctl_reason_text(ev->reason));
		break;
	case EV_ERRNO:
		printf("error INTERNAL: the core refused the event without a reason: %s\n",
		       strerror(-ev->err));
		break;
	case EV_GROUP:
		printf("error GROUP: not scheduled, event %u failed\n",
		       ev->culprit + 1);
		break;
	}
}

/* Check every event; returns the exit status. */
static int check_events(struct check_ctx *c, struct check_ev *evs, u32 n)
{
	u32 first_bad = n;
	int status = 0;
	int ret;

	for (u32 i = 0; i < n; i++) {
		ret = check_resolve(c, &evs[i]);
		if (ret)
			return EXIT_USAGE;
		if (evs[i].state == EV_OK)
			check_classify(c, &evs[i]);
		if (c->group) {
			if (ev_failed(&evs[i]) && first_bad == n)
				first_bad = i;
			continue;
		}
		if (evs[i].state == EV_OK) {
			ret = check_schedule(c, &evs[i], 1);
			if (ret)
				goto trouble;
		}
	}

	if (c->group) {
		if (first_bad < n) {
			for (u32 i = 0; i < n; i++) {
				if (!ev_failed(&evs[i])) {
					evs[i].state = EV_GROUP;
					evs[i].culprit = first_bad;
				}
			}
		} else {
			ret = check_schedule(c, evs, n);
			if (ret)
				goto trouble;
		}
	}

	for (u32 i = 0; i < n; i++) {
		check_print(&evs[i]);
		if (ev_failed(&evs[i]))
			status = EXIT_INVALID;
	}
	return status;

trouble:
	fprintf(stderr, "pmuctl check: %s\n", strerror(-ret));
	return EXIT_USAGE;
}

/* check -M SPEC on one PMU: returns the exit status. */
static int check_metrics(struct check_ctx *c, const char *spec)
{
	struct tool_mset *ms;
	int ret;

	ret = tool_mset_build("check", c->model, &c->caps, c->pmu->ilist,
			      c->pmu->name, spec, &ms);
	if (ret)
		return ret;
	for (unsigned int i = 0; i < ms->nm; i++) {
		const struct tool_mstate *st = &ms->st[i];
		const char *name = pmuctl_metric_name(ms->m[i]);

		if (st->why[0])
			printf("metric %s: unavailable: %s\n", name, st->why);
		else if (st->first == st->last)
			printf("metric %s: ok, pass %u\n", name, st->first + 1);
		else
			printf("metric %s: ok, passes %u-%u: its %u events do not fit one pass, its value mixes passes\n",
			       name, st->first + 1, st->last + 1, st->nev);
		if (st->why[0])
			ret = EXIT_INVALID;
	}
	for (unsigned int p = 0; p < ms->passes; p++) {
		printf("pass %u:", p + 1);
		for (unsigned int i = 0; i < ms->npass[p]; i++)
			printf(" %s", ms->ev[ms->pass[p][i]].name);
		printf("\n");
	}
	printf("passes %u\n", ms->passes);
	tool_mset_free(ms);
	return ret;
}

void check_usage(FILE *f)
{
	fputs("usage: pmuctl check --pmu PMU[,PMU...] [--caps LIST] [--group] EVENT...\n"
	      "       pmuctl check --pmu PMU[,PMU...] [--caps LIST] -M METRIC,...\n"
	      "\n"
	      "Check events offline against the rules the pmuctl module enforces on\n"
	      "PMU, and tell which counter each would get on an idle CPU.\n"
	      "\n"
	      "  -p, --pmu PMU     knm, knl, skl, icl, icx, spr, gnr, adl_glc,\n"
	      "                    adl_grt, srf, lnl_lnc, lnl_skt or arch (any\n"
	      "                    other Intel core: architectural events only);\n"
	      "                    skx, clx (skl), emr (spr), grr (srf), arl_lnc,\n"
	      "                    arl_skt (lnl_*) with their own Intel lists;\n"
	      "                    several, comma-separated: a '# pmu NAME' line\n"
	      "                    before each one's lines, the worst status\n"
	      "  -c, --caps LIST   override what CPUID would say, as KEY=N[,KEY=N]...:\n"
	      "                    gp (1..32) and fixed (0..16) counters, perfmon\n"
	      "                    version (2..255), counter width (1..64),\n"
	      "                    anythread-deprecated (0 or 1: CPUID.0AH:EDX[15],\n"
	      "                    looked at from version 5 on); before version 6,\n"
	      "                    counters past the legacy MSR range (8 generic,\n"
	      "                    4 fixed) are clamped as the module clamps them\n"
	      "  -g, --group       schedule the events together as one group\n"
	      "                    (without it, each event is checked alone)\n"
	      "  -M, --metrics LIST  in place of events: Intel's metrics of the\n"
	      "                    PMU by name or group, comma-separated\n"
	      "                    (TopdownL1, IPC; 'pmuctl list --metrics'): a\n"
	      "                    line 'metric NAME: ok, pass N' or 'metric NAME:\n"
	      "                    unavailable: WHY' each, then 'pass N: EVENT...'\n"
	      "                    and 'passes N', the passes 'pmuctl stat -M'\n"
	      "                    would take on an idle CPU\n"
	      "  -h, --help        show this help\n"
	      "\n"
	      "Defaults (the register model's for knm, knl and skl; the real parts'\n"
	      "CPUID for the others):\n"
	      "  knm   family 6 model 0x85, version 3, gp=2, fixed=3, width=40\n"
	      "  knl   family 6 model 0x57, version 3, gp=2, fixed=3, width=40\n"
	      "  skl   family 6 model 0x55, version 4, gp=4, fixed=3, width=48\n"
	      "  icl   family 6 model 0x7e, version 5, gp=8, fixed=4, width=48,\n"
	      "        anythread-deprecated=1 (Ice Lake client, Tiger Lake,\n"
	      "        Rocket Lake)\n"
	      "  icx   family 6 model 0x6a, as icl (Ice Lake server)\n"
	      "  spr   family 6 model 0x8f, as icl (Sapphire and Emerald Rapids)\n"
	      "  gnr   family 6 model 0xad, as icl (Granite Rapids)\n"
	      "  adl_glc  family 6 model 0x97, as icl (Alder/Raptor Lake's\n"
	      "        P-core)\n"
	      "  adl_grt  family 6 model 0xbe, version 5, gp=6, fixed=3,\n"
	      "        width=48, anythread-deprecated=1 (Gracemont: Alder\n"
	      "        Lake-N; Alder/Raptor Lake's E-core)\n"
	      "  srf   family 6 model 0xaf, as adl_grt with gp=8 (Crestmont:\n"
	      "        Sierra Forest, Grand Ridge)\n"
	      "  lnl_lnc  family 6 model 0xbd, version 6, gp=10, fixed=4,\n"
	      "        width=48, anythread-deprecated=1, umask2 and eq (Lion\n"
	      "        Cove: Lunar Lake's and Arrow Lake-S's P-core)\n"
	      "  lnl_skt  as lnl_lnc with gp=8 and fixed counters 0-2, 4-6\n"
	      "        (Skymont: their E-core)\n"
	      "  arch  family 6 model 0,    version 2, gp=4, fixed=3, width=48\n"
	      "libpfm4 4.13 has no table for gnr, adl_glc, adl_grt, srf, lnl_lnc\n"
	      "or lnl_skt: their events are Intel's names (built into the\n"
	      "library), raw events, the architectural and perf's names\n"
	      "\n"
	      "EVENT is resolved as stat and watch resolve it: perf's generic name\n"
	      "(cycles, instructions, ref-cycles, branches, branch-misses,\n"
	      "bus-cycles, cache-references, cache-misses; :u, :k), Intel's name\n"
	      "from the PMU's list, e.g. mem_load_retired.l3_miss:u (modifiers u,\n"
	      "k, e, i, c=N; offcore_rsp=V, ldlat=N, frontend=V; 'pmuctl list'),\n"
	      "a libpfm4 event string, e.g.\n"
	      "offcore_response_0:dmnd_data_rd:any_response, or a raw event\n"
	      "r<config>[:<extra>] in hex: config is the IA32_PERFEVTSELx image\n"
	      "without EN and INT (set u/k yourself: 0x10000 user, 0x20000 kernel),\n"
	      "extra the value of the event's extra MSR (OFFCORE_RSP_x, ...).\n"
	      "\n"
	      "Output: one line per event, in order, either\n"
	      "  ok COUNTER CONFIG EXTRA     COUNTER is pmcN or fixedN; CONFIG and EXTRA\n"
	      "                              as programmed (an offcore event may move\n"
	      "                              to the other OFFCORE_RSP register)\n"
	      "  error REASON: TEXT          the rule the event breaks; UNKNOWN_EVENT and\n"
	      "                              LIBPFM4 come from resolving the name, GROUP\n"
	      "                              names the event (counted from 1) that sank\n"
	      "                              the group\n"
	      "\n"
	      "Exit status: 0 every event is valid, 1 some event is not, 2 usage error\n"
	      "or trouble.\n", f);
}

int cmd_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pmu",   required_argument, NULL, 'p' },
		{ "caps",  required_argument, NULL, 'c' },
		{ "group", no_argument,       NULL, 'g' },
		{ "metrics", required_argument, NULL, 'M' },
		{ "help",  no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct caps_override ov = { -1, -1, -1, -1, -1 };
	const struct tool_pmu *list[32];
	struct check_ctx c = { 0 };
	struct check_ev *evs;
	const char *pmus = NULL, *mspec = NULL;
	size_t npmus = 0;
	char err[160];
	int opt, status = 0;
	u32 n;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":p:c:gM:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			pmus = optarg;
			break;
		case 'c':
			if (caps_parse(optarg, &ov, err, sizeof(err)))
				return tool_usage_error("check", "%s", err);
			break;
		case 'g':
			c.group = true;
			break;
		case 'M':
			mspec = optarg;
			break;
		case 'h':
			check_usage(stdout);
			return 0;
		case ':':
			return tool_usage_error("check", "option '%s' needs a value",
						 argv[optind - 1]);
		default:
			return tool_usage_error("check", "unknown option '%s'",
						 argv[optind - 1]);
		}
	}
	if (!pmus)
		return tool_usage_error("check", "missing --pmu");
	if (mspec && (optind < argc || c.group))
		return tool_usage_error("check", "-M takes no EVENT and no --group: a metric's events are its own");
	if (!mspec && optind >= argc)
		return tool_usage_error("check", "no events to check");
	/* every PMU of the list is known before any is checked */
	for (const char *s = pmus; ; s += strcspn(s, ",") + 1) {
		size_t len = strcspn(s, ",");
		char one[32];

		snprintf(one, sizeof(one), "%.*s", (int)len, s);
		if (!len || len >= sizeof(one) || !tool_pmu_find(one))
			return tool_usage_error("check", "unknown pmu '%.*s' (%s; several: --pmu srf,lnl_lnc)",
						 (int)len, s, tool_pmu_names());
		if (++npmus > PMUCTL_NELEM(list))
			return tool_usage_error("check", "more than %zu PMUs in --pmu",
						 PMUCTL_NELEM(list));
		list[npmus - 1] = tool_pmu_find(one);
		if (!s[len])
			break;
	}

	n = (u32)(argc - optind);
	evs = calloc(n ? n : 1, sizeof(*evs));
	if (!evs) {
		fprintf(stderr, "pmuctl check: %s\n", strerror(ENOMEM));
		return EXIT_USAGE;
	}
	for (size_t p = 0; p < npmus; p++) {
		int st;

		c.pmu = list[p];
		c.model = pmuctl_model_by_id(c.pmu->model_id);
		if (!c.model) {
			fprintf(stderr, "pmuctl check: the core has no model for pmu %s\n",
				c.pmu->name);
			status = EXIT_USAGE;
			break;
		}
		if (caps_build(c.pmu, &ov, &c.caps)) {
			fprintf(stderr, "pmuctl check: these caps describe no PMU the module drives\n");
			status = EXIT_USAGE;
			break;
		}
		memset(evs, 0, n * sizeof(*evs));
		for (u32 i = 0; i < n; i++)
			evs[i].arg = argv[optind + i];
		if (npmus > 1)
			printf("# pmu %s\n", c.pmu->name);
		fflush(stdout);
		st = mspec ? check_metrics(&c, mspec) : check_events(&c, evs, n);
		if (st > status)
			status = st;
		if (st == EXIT_USAGE)
			break;
	}
	free(evs);
	return status;
}
