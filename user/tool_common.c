// SPDX-License-Identifier: GPL-2.0
/*
 * What the pmuctl subcommands share: opening the device and saying in one
 * line why it failed, CPU lists, the default events, programming a group
 * and naming counters.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tool.h"

/*
 * The PMUs `pmuctl check --pmu` and `pmuctl list --pmu` know, with the
 * CPUID the module would decode on such a part (selftests/core/caps_test.c
 * cites the dumps of today's cores: perfmon v5, 8 generic and 4 fixed
 * counters of 48 bits, AnyThread deprecated; Alder Lake-N's Gracemont 6
 * and fixed 0-2).  Libpfm4 4.13 has no Granite Rapids, Alder Lake or
 * Sierra Forest table: those name their events with the architectural
 * table, besides raw events.  Sierra Forest's counts are an assumption
 * (no public CPUID dump): Crestmont's 8 generic counters and fixed 0-2, as
 * Meteor Lake's E-cores report in leaf 23H.  Lunar Lake's (and Arrow
 * Lake-S's) core types, perfmon v6, as their leaf 23H reports them: Lion
 * Cove 10 generic counters and fixed 0-3, Skymont 8 and fixed 0-2, 4-6
 * (leaf 0AH's ECX bitmap stands in for leaf 23H's here), both with UMASK2
 * and EQ; libpfm4 4.13 has no table for either.
 */
const struct tool_pmu tool_pmus[] = {
	{ "knm",  "knm",      PMUCTL_MODEL_KNM,  6, 0x85, 3, 2, 3, 40, 0, 0, "knl" },
	{ "knl",  "knl",      PMUCTL_MODEL_KNL,  6, 0x57, 3, 2, 3, 40, 0, 0, "knl" },
	{ "skl",  "skl",      PMUCTL_MODEL_SKL,  6, 0x55, 4, 4, 3, 48, 0, 0, "skl" },
	{ "skx",  "skl",      PMUCTL_MODEL_SKL,  6, 0x55, 4, 4, 3, 48, 0, 0, "skx" },
	{ "clx",  "skl",      PMUCTL_MODEL_SKL,  6, 0x55, 4, 4, 3, 48, 0, 0, "clx" },
	{ "icl",  "icl",      PMUCTL_MODEL_ICL,  6, 0x7e, 5, 8, 4, 48, 1, 0, "icl" },
	{ "icx",  "icx",      PMUCTL_MODEL_ICX,  6, 0x6a, 5, 8, 4, 48, 1, 0, "icx" },
	{ "spr",  "spr",      PMUCTL_MODEL_SPR,  6, 0x8f, 5, 8, 4, 48, 1, 0, "spr" },
	{ "emr",  "spr",      PMUCTL_MODEL_SPR,  6, 0xcf, 5, 8, 4, 48, 1, 0, "emr" },
	{ "gnr",  "ix86arch", PMUCTL_MODEL_GNR,  6, 0xad, 5, 8, 4, 48, 1, 0, "gnr" },
	{ "adl_glc", "ix86arch", PMUCTL_MODEL_ADL_GLC, 6, 0x97, 5, 8, 4, 48, 1, 0, "adl_glc" },
	{ "adl_grt", "ix86arch", PMUCTL_MODEL_ADL_GRT, 6, 0xbe, 5, 6, 3, 48, 1, 0, "adl_grt" },
	{ "srf",  "ix86arch", PMUCTL_MODEL_SRF,  6, 0xaf, 5, 8, 3, 48, 1, 0, "srf" },
	{ "grr",  "ix86arch", PMUCTL_MODEL_SRF,  6, 0xb6, 5, 8, 3, 48, 1, 0, "grr" },
	{ "lnl_lnc", "ix86arch", PMUCTL_MODEL_LNL_LNC, 6, 0xbd, 6, 10, 4, 48, 1, 0, "lnl_lnc" },
	{ "lnl_skt", "ix86arch", PMUCTL_MODEL_LNL_SKT, 6, 0xbd, 6, 8, 3, 48, 1, 0x70, "lnl_skt" },
	{ "arl_lnc", "ix86arch", PMUCTL_MODEL_LNL_LNC, 6, 0xc6, 6, 10, 4, 48, 1, 0, "arl_lnc" },
	{ "arl_skt", "ix86arch", PMUCTL_MODEL_LNL_SKT, 6, 0xc6, 6, 8, 3, 48, 1, 0x70, "arl_skt" },
	{ "arch", "ix86arch", PMUCTL_MODEL_ARCH, 6, 0x00, 2, 4, 3, 48, 0, 0, NULL },
};
const unsigned int tool_nr_pmus = ARRAY_SIZE(tool_pmus);

const struct tool_pmu *tool_pmu_find(const char *name)
{
	for (unsigned int i = 0; i < tool_nr_pmus; i++)
		if (!strcmp(tool_pmus[i].name, name))
			return &tool_pmus[i];
	return NULL;
}

const char *tool_pmu_names(void)
{
	static char names[256];

	if (!names[0])
		for (unsigned int i = 0, off = 0; i < tool_nr_pmus; i++)
			off += (unsigned int)snprintf(names + off, sizeof(names) - off,
						      "%s%s", i ? ", " : "",
						      tool_pmus[i].name);
	return names;
}

int tool_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "pmuctl %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\ntry 'pmuctl %s --help'\n", cmd);
	return EXIT_USAGE;
}

int tool_fail(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "pmuctl %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_FAIL;
}

const char *tool_device_path(void)
{
	const char *path = getenv("PMUCTL_DEVICE");

	return path && *path ? path : PMUCTL_DEVICE_PATH;
}

/*
 * The library says why an open failed and what to do (user/open_error.c:
 * module not loaded, no PMU, permissions, paranoid, not the device), so
 * the tool and every program on libpmuctl say the same.
 */
void tool_open_explain(const char *cmd, int ret)
{
	char why[1024];

	tool_fail(cmd, "%s", pmuctl_strerror(ret, NULL, why, sizeof(why)));
}

int tool_open_quiet(struct pmuctl **out)
{
	/* The tool reads with PMUCTL_IOC_READ: no rdpmc, no emulation. */
	return pmuctl_open(NULL, PMUCTL_OPEN_NO_EMULATION, out);
}

int tool_open(const char *cmd, struct pmuctl **out)
{
	int ret = tool_open_quiet(out);

	if (ret)
		tool_open_explain(cmd, ret);
	return ret;
}

int tool_parse_uint(const char *s, unsigned long long min,
		    unsigned long long max, unsigned long long *out)
{
	unsigned long long v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		if (v > (max - (unsigned long long)(*s - '0')) / 10)
			return -ERANGE;
		v = v * 10 + (unsigned long long)(*s - '0');
	}
	if (v < min)
		return -ERANGE;
	*out = v;
	return 0;
}

/* One CPU number of a list: decimal digits up to @end. */
static int cpu_number(const char *s, const char *end, unsigned int *cpu)
{
	char num[16];
	unsigned long long v;
	size_t n = (size_t)(end - s);
	int ret;

	if (!n || n >= sizeof(num))
		return n ? -ERANGE : -EINVAL;
	memcpy(num, s, n);
	num[n] = '\0';
	ret = tool_parse_uint(num, 0, TOOL_MAX_CPUS - 1, &v);
	if (ret)
		return ret;
	*cpu = (unsigned int)v;
	return 0;
}

int tool_cpulist_parse(const char *s, cpu_set_t *set, size_t setsize,
		       char *err, size_t errlen)
{
	const char *p = s;

	CPU_ZERO_S(setsize, set);
	if (!*s) {
		snprintf(err, errlen, "empty CPU list: expected e.g. 0-3,6");
		return -EINVAL;
	}
	for (;;) {
		const char *comma = strchr(p, ',');
		const char *end = comma ? comma : p + strlen(p);
		const char *dash = memchr(p, '-', (size_t)(end - p));
		unsigned int lo, hi;
		int ret;

		ret = cpu_number(p, dash ? dash : end, &lo);
		if (!ret)
			ret = dash ? cpu_number(dash + 1, end, &hi) : 0;
		if (!dash)
			hi = lo;
		if (!ret && hi < lo)
			ret = -EINVAL;
		if (!ret && hi >= setsize * 8)
			ret = -ERANGE;
		if (ret) {
			snprintf(err, errlen, "bad CPU list '%s' at '%.*s': %s",
				 s, (int)(end - p), p, ret == -ERANGE ?
				 "CPU number too large" :
				 "expected N or N-M (N <= M), comma-separated, e.g. 0-3,6");
			return ret;
		}
		for (unsigned int c = lo; c <= hi; c++)
			CPU_SET_S(c, setsize, set);
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

char *tool_cpulist_format(const cpu_set_t *set, size_t setsize, char *buf,
			  size_t len)
{
	unsigned int max = (unsigned int)(setsize * 8);
	size_t used = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (unsigned int c = 0; c < max; c++) {
		unsigned int hi = c;
		int n;

		if (!CPU_ISSET_S(c, setsize, set))
			continue;
		while (hi + 1 < max && CPU_ISSET_S(hi + 1, setsize, set))
			hi++;
		if (hi == c)
			n = snprintf(buf + used, len - used, "%s%u", used ? "," : "", c);
		else
			n = snprintf(buf + used, len - used, "%s%u-%u",
				     used ? "," : "", c, hi);
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += (size_t)n;
		c = hi;
	}
	if (!used)
		snprintf(buf, len, "none");
	return buf;
}

cpu_set_t *tool_cpuset_alloc(size_t *setsize)
{
	cpu_set_t *set = CPU_ALLOC(TOOL_MAX_CPUS);

	*setsize = CPU_ALLOC_SIZE(TOOL_MAX_CPUS);
	if (set)
		CPU_ZERO_S(*setsize, set);
	return set;
}

int tool_affinity(cpu_set_t *set, size_t setsize)
{
	return sched_getaffinity(0, setsize, set) ? -errno : 0;
}

/*
 * The default events: the three fixed-counter events and two
 * architectural events every perfmon v2+ CPU enumerates (SDM vol. 3B
 * "Pre-defined Architectural Performance Events"; FACTS.md 1), all at
 * user and kernel level as perf counts by default.
 */
static const struct {
	const char *name;
	uint64_t code;		/* event select and umask */
	int arch;		/* CPUID.0AH:EBX bit, -1: none */
	int fixed;		/* the fixed counter that counts it, -1: none */
	bool fixed_only;	/* REF_TSC's pseudo encoding 0x0300 */
} default_events[] = {
	{ "instructions",  0x00c0, PMUCTL_ARCH_INST_RETIRED,  0, false },
	{ "cycles",        0x003c, PMUCTL_ARCH_CORE_CYCLES,   1, false },
	{ "ref-cycles",    0x0300, -1,                        2, true },
	{ "branches",      0x00c4, PMUCTL_ARCH_BRANCHES,     -1, false },
	{ "branch-misses", 0x00c5, PMUCTL_ARCH_BRANCH_MISSES, -1, false },
};

/*
 * Each default event that this PMU can count, on its fixed counter when
 * the CPU has it, else on a generic counter while one is left: CPUID's
 * events_unavailable keeps an architectural event off the generic
 * counters, as the module's rules do (EVENT_UNAVAILABLE).
 */
static void events_default(const struct pmuctl_caps *caps, struct tool_events *e)
{
	unsigned int gp_left = caps->nr_gp;

	for (size_t i = 0; i < ARRAY_SIZE(default_events); i++) {
		int fx = default_events[i].fixed, arch = default_events[i].arch;
		bool on_fixed = fx >= 0 && (caps->fixed_mask & (1U << fx));
		bool gp_ok = !default_events[i].fixed_only && arch >= 0 &&
			     !(caps->events_unavailable & (1U << arch));

		if (!on_fixed && !(gp_ok && gp_left))
			continue;
		if (!on_fixed)
			gp_left--;
		memset(&e->ev[e->nr], 0, sizeof(e->ev[e->nr]));
		e->ev[e->nr].config = default_events[i].code | PMUCTL_CFG_USR |
				      PMUCTL_CFG_OS;
		snprintf(e->owned[e->nr], sizeof(e->owned[e->nr]), "%s",
			 default_events[i].name);
		e->name[e->nr] = e->owned[e->nr];
		e->nr++;
	}
}

int tool_events_syntax(const char *cmd, const char *list)
{
	unsigned int n = 1;

	if (!*list || list[0] == ',' || list[strlen(list) - 1] == ',' ||
	    strstr(list, ",,"))
		return tool_usage_error(cmd, "empty event in the -e list '%s'", list);
	for (const char *c = list; (c = strchr(c, ',')); c++)
		n++;
	if (n > PMUCTL_MAX_EVENTS)
		return tool_usage_error(cmd, "%u events in -e, at most %d count at once: split them over several runs",
					n, PMUCTL_MAX_EVENTS);
	return 0;
}

int tool_events_get(const char *cmd, const struct pmuctl_info *info,
		    const char *list, struct tool_events *e)
{
	const char *pmu = pmuctl_pfm_pmu_name(info->pmu_model);
	char *copy, *save = NULL;
	char msg[512];

	memset(e, 0, sizeof(*e));
	if (!list) {
		events_default(&info->caps, e);
		e->defaults = true;
		if (!e->nr)
			return tool_fail(cmd, "this PMU offers none of the default events: name events with -e (see 'pmuctl list')");
		return 0;
	}
	if (tool_events_syntax(cmd, list))
		return EXIT_USAGE;
	/* Kept for the names: the reports say each event as it was typed. */
	copy = strdup(list);
	if (!copy)
		return tool_fail(cmd, "%s", strerror(ENOMEM));
	for (char *s = strtok_r(copy, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
		int ret;

		/* the library's resolver, as check's (perf's names too) */
		ret = pmuctl_event_resolve(info->pmu_model, s, &e->ev[e->nr],
					   msg, sizeof(msg));
		if (ret == PMUCTL_PARSE_LITERAL) {
			fprintf(stderr, "pmuctl %s: note: libpfm4 refused '%s' (%s); counting pmuctl's literal encoding, which the module judges\n",
				cmd, s, msg);
		} else if (ret == -ENOENT) {
			/* libpfm4's message, unless it only repeats this one. */
			return tool_fail(cmd, "unknown event '%s' on PMU %s: %s; 'pmuctl list' shows the names",
					 s, pmu ? pmu : "(this host)",
					 msg[0] && strncmp(msg, "unknown event '", 15) ?
					 msg : "no event of that name");
		} else if (ret < 0) {
			return tool_fail(cmd, "event '%s': %s", s,
					 msg[0] ? msg : strerror(-ret));
		}
		e->name[e->nr++] = s;
	}
	/* copy stays allocated: e->name points into it until exit. */
	return 0;
}

static bool reason_is_busy(uint32_t r)
{
	switch (r) {
	case PMUCTL_R_COUNTERS_BUSY:
	case PMUCTL_R_OFFCORE_RSP0_BUSY:
	case PMUCTL_R_OFFCORE_RSP1_BUSY:
	case PMUCTL_R_OFFCORE_BOTH_BUSY:
	case PMUCTL_R_FRONTEND_BUSY:
	case PMUCTL_R_LDLAT_BUSY:
		return true;
	default:
		return false;
	}
}

void tool_events_user_only(struct tool_events *e)
{
	if (e->user_only)
		return;
	e->user_only = true;
	for (unsigned int i = 0; i < e->nr; i++) {
		e->ev[i].config &= ~PMUCTL_CFG_OS;
		e->ev[i].counter = 0;
		e->ev[i].config_used = 0;
		e->ev[i].extra_msr = 0;
		strncat(e->owned[i], ":u",
			sizeof(e->owned[i]) - strlen(e->owned[i]) - 1);
	}
}

/* PROGRAM, task scope when @task, else on @cpus. */
static int program_once(struct pmuctl *p, struct tool_events *e, bool task,
			unsigned int task_flags, const cpu_set_t *cpus,
			size_t setsize, struct pmuctl_error *err)
{
	if (task)
		return pmuctl_program_task(p, task_flags, e->ev, e->nr, err);
	return pmuctl_program(p, e->ev, e->nr, cpus, setsize, err);
}

int tool_program_quiet(struct pmuctl *p, struct tool_events *e, bool task,
		       unsigned int task_flags, const cpu_set_t *cpus,
		       size_t setsize, struct pmuctl_error *err)
{
	int ret;

	ret = program_once(p, e, task, task_flags, cpus, setsize, err);
	if (ret && e->defaults && !e->user_only &&
	    err->reason == PMUCTL_R_UNPRIV_KERNEL_MODE) {
		/* An unprivileged session: count the defaults in user mode. */
		tool_events_user_only(e);
		ret = program_once(p, e, task, task_flags, cpus, setsize, err);
	}
	return ret;
}

/*
 * Does reason @r blame one event of the group?  The event rules are
 * numbered below the CPU's and the device's (PMUCTL_R_NOT_INTEL on), but
 * for the ones added since: the generic model's, the unsupported extra
 * MSR's and the topdown metrics'.
 */
static bool reason_names_event(uint32_t r)
{
	switch (r) {
	case PMUCTL_R_NONE:
		return false;
	case PMUCTL_R_NOT_ARCHITECTURAL:
	case PMUCTL_R_EXTRA_UNSUPPORTED:
	case PMUCTL_R_METRICS_UNAVAILABLE:
	case PMUCTL_R_METRICS_NEED_SLOTS:
	case PMUCTL_R_UMASK2_UNAVAILABLE:
	case PMUCTL_R_EQ_UNAVAILABLE:
		return true;
	}
	return r < PMUCTL_R_NOT_INTEL;
}

int tool_program_explain(const char *cmd, int ret, const struct pmuctl_error *e_err,
			 const struct tool_events *e)
{
	struct pmuctl_error err = *e_err;
	char line[512];

	/* Refusals of the CPU or the device name no event, whatever index says. */
	if (reason_names_event(err.reason) &&
	    err.index < e->nr) {
		struct pmuctl_error noidx = err;

		/* The event by the name the user typed, not by its index. */
		noidx.index = UINT32_MAX;
		pmuctl_strerror(ret, &noidx, line, sizeof(line));
		return tool_fail(cmd, "event '%s' refused: %s%s", e->name[err.index],
				 line, reason_is_busy(err.reason) ?
				 " ('pmuctl info' shows who holds what)" : "");
	}
	err.index = UINT32_MAX;
	pmuctl_strerror(ret, &err, line, sizeof(line));
	return tool_fail(cmd, "cannot program the events: %s%s", line,
			 reason_is_busy(err.reason) ?
			 " ('pmuctl info' shows who holds what)" : "");
}

int tool_program(const char *cmd, struct pmuctl *p, struct tool_events *e,
		 const cpu_set_t *cpus, size_t setsize)
{
	struct pmuctl_error err;
	int ret;

	ret = tool_program_quiet(p, e, false, 0, cpus, setsize, &err);
	return ret ? tool_program_explain(cmd, ret, &err, e) : 0;
}

uint64_t tool_event_delta(const struct pmuctl_counters *c,
			  const struct tool_events *e, unsigned int i,
			  const uint64_t *prev, const uint64_t *v)
{
	unsigned int metric = ((e->ev[i].config >> 8) & 0xff) - 0x80;
	uint64_t a, b;

	if (c->ecx[i] != PMUCTL_COUNTER_METRICS)
		return pmuctl_delta(c, i, prev[i], v[i]);
	for (unsigned int j = 0; j < c->nr; j++) {
		if (c->ecx[j] != (PMUCTL_COUNTER_FIXED | 3))
			continue;
		a = pmuctl_topdown_slots(prev[j], prev[i], metric);
		b = pmuctl_topdown_slots(v[j], v[i], metric);
		/* 8-bit shares: a metric's slots may seem to shrink by a little. */
		return b > a ? b - a : 0;
	}
	return 0;	/* the module placed no metric without its slots */
}

const char *tool_counter_name(uint32_t counter, char *buf, size_t len)
{
	if (counter == PMUCTL_COUNTER_NONE)
		snprintf(buf, len, "none");
	else if (counter == PMUCTL_COUNTER_METRICS)
		snprintf(buf, len, "metrics");
	else if (counter & PMUCTL_COUNTER_FIXED)
		snprintf(buf, len, "fixed%u", counter & ~PMUCTL_COUNTER_FIXED);
	else
		snprintf(buf, len, "pmc%u", counter);
	return buf;
}

const char *tool_backend_name(uint32_t backend)
{
	switch (backend) {
	case PMUCTL_BACKEND_MSR:
		return "msr";
	case PMUCTL_BACKEND_MODEL:
		return "model";
	default:
		return "unknown";
	}
}

void tool_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}
