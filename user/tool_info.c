// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctl info: what the module reports through PMUCTL_IOC_INFO, as
 * "key: value" lines, then who holds which counters and extra MSRs on
 * each CPU as a table.  Output format: see info_usage().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

void info_usage(FILE *f)
{
	fputs("usage: pmuctl info\n"
	      "\n"
	      "Show the PMU the pmuctl module drives and who holds its counters.\n"
	      "\n"
	      "Output: 'key: value' lines (device, backend, pmu, perfmon, generic\n"
	      "counters, fixed counters, features, perf_capabilities, unavailable\n"
	      "architectural events, rdpmc, max events per group, event flags,\n"
	      "commands, cpus, paranoid, this session (its id), privilege,\n"
	      "generation), a blank line, then the holdings table: one row per\n"
	      "possible CPU with its state (online/offline), the session holding\n"
	      "each counter (pmcN, fixedN; '-' free; '*' another session, as an\n"
	      "unprivileged session sees it) and each extra MSR of the model as\n"
	      "VALUE/USERS (the value programmed and how many events share it;\n"
	      "'hidden' another session's value, as an unprivileged session sees it;\n"
	      "'-' free).  'backend: model' means the module is its test build: the\n"
	      "register model counts nothing.\n"
	      "\n"
	      "  -h, --help   show this help\n"
	      "\n"
	      "Exit status: 0 success, 1 failure (no device, no PMU, ...), 2 usage.\n", f);
}

static const char *const arch_event_names[] = {
	[PMUCTL_ARCH_CORE_CYCLES] = "core_cycles",
	[PMUCTL_ARCH_INST_RETIRED] = "inst_retired",
	[PMUCTL_ARCH_REF_CYCLES] = "ref_cycles",
	[PMUCTL_ARCH_LLC_REFERENCES] = "llc_references",
	[PMUCTL_ARCH_LLC_MISSES] = "llc_misses",
	[PMUCTL_ARCH_BRANCHES] = "branches",
	[PMUCTL_ARCH_BRANCH_MISSES] = "branch_misses",
	[PMUCTL_ARCH_TOPDOWN_SLOTS] = "topdown_slots",
};

static const struct {
	uint32_t bit;
	const char *name;
} cap_flags[] = {
	{ PMUCTL_CAP_ANY_THREAD, "any_thread" },
	{ PMUCTL_CAP_ANY_DEPRECATED, "any_deprecated" },
	{ PMUCTL_CAP_FULL_WIDTH_WRITE, "full_width_write" },
	{ PMUCTL_CAP_GP_CLAMPED, "gp_clamped" },
	{ PMUCTL_CAP_FIXED_CLAMPED, "fixed_clamped" },
	{ PMUCTL_CAP_HYBRID, "hybrid" },
	{ PMUCTL_CAP_PERF_METRICS, "perf_metrics" },
	{ PMUCTL_CAP_PMC3_WITHHELD, "pmc3_withheld" },
	{ PMUCTL_CAP_FIXED2_WITHHELD, "fixed2_withheld" },
	{ PMUCTL_CAP_UMASK2, "umask2" },
	{ PMUCTL_CAP_EQ, "eq" },
	{ PMUCTL_CAP_GP_PERF_LIMITED, "gp_perf_limited" },
};

/* ioctl numbers of uapi/linux/pmuctl.h, for pmuctl_info.commands. */
static const char *const command_names[] = {
	"info", "program", "start", "stop", "reset", "read", "release",
};

/* The extra MSRs a model may have (FACTS.md 1, 2). */
static const char *xreg_name(uint32_t msr, char *buf, size_t len)
{
	switch (msr) {
	case 0x1a6:
		return "offcore_rsp_0";
	case 0x1a7:
		return "offcore_rsp_1";
	case 0x3f6:
		return "pebs_ld_lat";
	case 0x3f7:
		return "pebs_frontend";
	default:
		snprintf(buf, len, "msr_%#x", msr);
		return buf;
	}
}

static void print_flags(const char *key, uint32_t v, const char *const *names,
			const uint32_t *bits, size_t n)
{
	bool any = false;

	printf("%s:", key);
	for (size_t i = 0; i < n; i++) {
		if (v & bits[i]) {
			printf(" %s", names[i]);
			v &= ~bits[i];
			any = true;
		}
	}
	for (unsigned int b = 0; b < 32; b++) {
		if (v & (1U << b)) {
			printf(" bit%u", b);
			any = true;
		}
	}
	printf("%s\n", any ? "" : " none");
}

/* What the module's paranoid level means for users without CAP_PERFMON. */
static const char *paranoid_text(int level)
{
	if (level >= 3)
		return "only CAP_PERFMON may open the device";
	if (level >= 1)
		return "users without CAP_PERFMON may open, but not count CPU-wide";
	if (level == 0)
		return "users without CAP_PERFMON may count CPU-wide, within user_max_sessions and user_max_counters";
	return "users without CAP_PERFMON may count CPU-wide, with no per-user limits";
}

static void print_info(const struct pmuctl_info *info)
{
	const struct pmuctl_caps *c = &info->caps;
	const char *names[16];
	uint32_t bits[16];
	size_t n;

	printf("device: %s (ABI %u)\n", tool_device_path(), info->abi_version);
	if (info->backend == PMUCTL_BACKEND_MODEL)
		printf("backend: model (the module's test build: a register model stands in for the PMU and counts nothing)\n");
	else if (info->backend == PMUCTL_BACKEND_MSR)
		printf("backend: msr (the CPU's PMU)\n");
	else
		printf("backend: unknown %u (a newer module: do not trust its counts)\n",
		       info->backend);
	printf("pmu: %s (Intel family %u model %#x stepping %u; libpfm4 PMU %s)\n",
	       pmuctl_model_name(info->pmu_model), c->family, c->model,
	       c->stepping, pmuctl_pfm_pmu_name(info->pmu_model) ?: "none");
	printf("perfmon: version %u\n", c->version);
	printf("generic counters: %u x %u bits\n", c->nr_gp, c->gp_width);
	printf("fixed counters: %u x %u bits (mask 0x%x)\n", c->nr_fixed,
	       c->fixed_width, c->fixed_mask);

	for (n = 0; n < ARRAY_SIZE(cap_flags); n++) {
		names[n] = cap_flags[n].name;
		bits[n] = cap_flags[n].bit;
	}
	print_flags("features", c->flags, names, bits, n);
	printf("perf_capabilities: 0x%llx\n",
	       (unsigned long long)c->perf_capabilities);

	/* Bits past the 8 defined events only say the vector is shorter. */
	for (n = 0; n < 8; n++) {
		names[n] = arch_event_names[n];
		bits[n] = 1U << n;
	}
	print_flags("unavailable architectural events", c->events_unavailable & 0xff,
		    names, bits, n);

	if (info->rdpmc == PMUCTL_RDPMC_SESSION)
		printf("rdpmc: session (granted to a session's process while it holds counters)\n");
	else if (info->rdpmc == PMUCTL_RDPMC_NONE && (info->session_flags & PMUCTL_SESSION_UNPRIV))
		printf("rdpmc: none (never for unprivileged sessions: read with PMUCTL_IOC_READ; libpmuctl emulates rdpmc)\n");
	else if (info->rdpmc == PMUCTL_RDPMC_NONE)
		printf("rdpmc: none (not granted: read with PMUCTL_IOC_READ; libpmuctl emulates rdpmc)\n");
	else
		printf("rdpmc: unknown %u\n", info->rdpmc);
	printf("max events per group: %u\n", info->max_events);
	names[0] = "generic_only";
	bits[0] = PMUCTL_EVENT_GENERIC_ONLY;
	print_flags("event flags", info->event_flags, names, bits, 1);

	printf("commands:");
	for (unsigned int b = 0; b < 64; b++) {
		if (!(info->commands & (1ULL << b)))
			continue;
		if (b < ARRAY_SIZE(command_names))
			printf(" %s", command_names[b]);
		else
			printf(" cmd%u", b);
	}
	printf("\n");
	printf("cpus: %u\n", info->nr_cpus);
	printf("paranoid: %d (%s)\n", info->paranoid, paranoid_text(info->paranoid));
	printf("this session: %u\n", info->session);
	printf("privilege: %s\n", info->session_flags & PMUCTL_SESSION_UNPRIV ?
	       "unprivileged (no rdpmc; other sessions show as '*', their extra values as 'hidden')" :
	       "privileged (CAP_PERFMON or CAP_SYS_ADMIN)");
	printf("generation: %llu\n", (unsigned long long)info->generation);
}

/* A counter's holder: its session id, '*' another's (unprivileged view), '-' free. */
static void owner_cell(uint32_t owner, char *cell, size_t len)
{
	if (owner == PMUCTL_OWNER_OTHER)
		snprintf(cell, len, "*");
	else if (owner)
		snprintf(cell, len, "%u", owner);
	else
		snprintf(cell, len, "-");
}

/* An extra MSR held: VALUE/USERS, or hidden/USERS (another session's value). */
static void xreg_cell(const struct pmuctl_holding *h, unsigned int x,
		      char *cell, size_t len)
{
	if (h->xreg[x].flags & PMUCTL_HOLDING_XREG_HIDDEN)
		snprintf(cell, len, "hidden/%u", h->xreg[x].refcount);
	else
		snprintf(cell, len, "%#llx/%u",
			 (unsigned long long)h->xreg[x].value, h->xreg[x].refcount);
}

/* The caps of a holding entry's CPU: its own, or INFO's from a module without them. */
static const struct pmuctl_caps *row_caps(const struct pmuctl_info *info,
					  const struct pmuctl_holding *h)
{
	return h->pmu_model ? &h->caps : &info->caps;
}

/*
 * Hybrid CPUs: one line per core type, with its PMU and its CPUs, and the
 * CPUs whose type is not known yet.
 */
static void print_types(const struct pmuctl_info *info,
			const struct pmuctl_holding *h, unsigned int nr)
{
	bool *done;

	if (!(info->caps.flags & PMUCTL_CAP_HYBRID))
		return;
	done = calloc(nr ? nr : 1, sizeof(*done));
	if (!done)
		return;
	printf("\ncore types: each has its own PMU; a group is placed on CPUs of one type\n");
	for (unsigned int r = 0; r < nr; r++) {
		const struct pmuctl_caps *c = &h[r].caps;
		const char *sep = "";

		if (done[r])
			continue;
		if (!h[r].pmu_model)
			printf("  not known yet (not online since the module loaded): cpus");
		else
			printf("  %s (core type %#x, native model %#x): %s, %u generic x %u bits, fixed mask 0x%x: cpus",
			       c->core_type == 0x40 ? "Core" : c->core_type == 0x20 ? "Atom" : "other",
			       c->core_type, c->native_model,
			       pmuctl_model_name(h[r].pmu_model), c->nr_gp,
			       c->gp_width, c->fixed_mask);
		for (unsigned int k = r; k < nr; k++) {
			if (done[k] || h[k].pmu_model != h[r].pmu_model ||
			    memcmp(&h[k].caps, &h[r].caps, sizeof(h[k].caps)))
				continue;
			done[k] = true;
			printf("%s %u", sep, h[k].cpu);
			sep = ",";
		}
		printf("\n");
	}
	free(done);
}

/* The table's columns: counter indexes, then extra MSRs. */
struct holding_cols {
	unsigned int col[PMUCTL_HOLDING_COUNTERS], nr_cols;
	uint32_t xmsr[2 * PMUCTL_HOLDING_XREGS];
	unsigned int nr_x;
};

/*
 * Row @h's cell in column @k: the counter's holder, or the extra MSR's
 * VALUE/USERS ('-' free); blank where the CPU's PMU has no such counter
 * or MSR (hybrid CPUs: the core types differ).
 */
static void holding_cell(const struct pmuctl_info *info,
			 const struct pmuctl_holding *h,
			 const struct holding_cols *t, unsigned int k,
			 char *cell, size_t len)
{
	const struct pmuctl_caps *c = row_caps(info, h);

	cell[0] = 0;
	if (k < t->nr_cols) {
		unsigned int idx = t->col[k];

		if (idx < 32 ? idx < c->nr_gp : !!(c->fixed_mask & (1U << (idx - 32))))
			owner_cell(h->owner[idx], cell, len);
		return;
	}
	for (unsigned int x = 0; x < PMUCTL_HOLDING_XREGS && h->xreg[x].msr; x++) {
		if (h->xreg[x].msr != t->xmsr[k - t->nr_cols])
			continue;
		if (h->xreg[x].refcount)
			xreg_cell(h, x, cell, len);
		else
			snprintf(cell, len, "-");
		return;
	}
}

/* One table cell per counter and extra MSR some CPU has, then the rows. */
static void print_holdings(const struct pmuctl_info *info,
			   const struct pmuctl_holding *h, unsigned int nr)
{
	char head[PMUCTL_HOLDING_COUNTERS + 2 * PMUCTL_HOLDING_XREGS][24];
	unsigned int width[PMUCTL_HOLDING_COUNTERS + 2 * PMUCTL_HOLDING_XREGS];
	unsigned int nr_gp = info->caps.nr_gp;
	uint32_t fixed = info->caps.fixed_mask;
	struct holding_cols t = { .nr_cols = 0 };
	char cell[40], buf[24];

	for (unsigned int r = 0; r < nr; r++) {
		const struct pmuctl_caps *c = row_caps(info, &h[r]);

		if (c->nr_gp > nr_gp)
			nr_gp = c->nr_gp;
		fixed |= c->fixed_mask;
		for (unsigned int x = 0; x < PMUCTL_HOLDING_XREGS && h[r].xreg[x].msr; x++) {
			unsigned int k = 0;

			while (k < t.nr_x && t.xmsr[k] != h[r].xreg[x].msr)
				k++;
			if (k == t.nr_x && t.nr_x < ARRAY_SIZE(t.xmsr))
				t.xmsr[t.nr_x++] = h[r].xreg[x].msr;
		}
	}
	for (unsigned int i = 0; i < nr_gp && i < 32; i++) {
		t.col[t.nr_cols] = i;
		snprintf(head[t.nr_cols++], sizeof(head[0]), "pmc%u", i);
	}
	for (unsigned int i = 0; i < 16; i++) {
		if (!(fixed & (1U << i)))
			continue;
		t.col[t.nr_cols] = 32 + i;
		snprintf(head[t.nr_cols++], sizeof(head[0]), "fixed%u", i);
	}
	for (unsigned int x = 0; x < t.nr_x; x++)
		snprintf(head[t.nr_cols + x], sizeof(head[0]), "%s",
			 xreg_name(t.xmsr[x], buf, sizeof(buf)));

	for (unsigned int k = 0; k < t.nr_cols + t.nr_x; k++) {
		width[k] = (unsigned int)strlen(head[k]);
		for (unsigned int r = 0; r < nr; r++) {
			holding_cell(info, &h[r], &t, k, cell, sizeof(cell));
			if (strlen(cell) > width[k])
				width[k] = (unsigned int)strlen(cell);
		}
	}

	printf("\nholdings: session ids per counter ('*' another session), VALUE/USERS per extra MSR, '-' free%s\n",
	       info->caps.flags & PMUCTL_CAP_HYBRID ? ", blank: not on that CPU's core type" : "");
	printf("%4s  %-7s", "cpu", "state");
	for (unsigned int k = 0; k < t.nr_cols + t.nr_x; k++)
		printf("  %*s", (int)width[k], head[k]);
	printf("\n");
	for (unsigned int r = 0; r < nr; r++) {
		printf("%4u  %-7s", h[r].cpu,
		       h[r].flags & PMUCTL_HOLDING_ONLINE ? "online" : "offline");
		for (unsigned int k = 0; k < t.nr_cols + t.nr_x; k++) {
			holding_cell(info, &h[r], &t, k, cell, sizeof(cell));
			printf("  %*s", (int)width[k], cell);
		}
		printf("\n");
	}
}

int cmd_info(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct pmuctl_info *info;
	struct pmuctl_holding *h;
	struct pmuctl *p;
	int opt, ret;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			info_usage(stdout);
			return 0;
		default:
			return tool_usage_error("info", "unknown option '%s'",
						argv[optind - 1]);
		}
	}
	if (optind < argc)
		return tool_usage_error("info", "unexpected argument '%s'",
					argv[optind]);

	if (tool_open("info", &p))
		return EXIT_FAIL;
	info = pmuctl_get_info(p);
	h = calloc(info->nr_cpus ? info->nr_cpus : 1, sizeof(*h));
	if (!h) {
		pmuctl_close(p);
		return tool_fail("info", "%s", strerror(ENOMEM));
	}
	ret = pmuctl_get_holdings(p, h, info->nr_cpus);
	if (ret < 0) {
		free(h);
		pmuctl_close(p);
		return tool_fail("info", "cannot read the holdings: %s",
				 strerror(-ret));
	}
	print_info(info);
	print_types(info, h, (unsigned int)ret);
	print_holdings(info, h, (unsigned int)ret);
	free(h);
	pmuctl_close(p);
	return 0;
}
