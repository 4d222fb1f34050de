// SPDX-License-Identifier: GPL-2.0
/*
 * One event-name resolver (issue 13): pmuctl_event_resolve(), which stat
 * and watch call, against 'pmuctl check' (build/bin/pmuctl, or $PMUCTL)
 * on every model pmuctl drives, whatever this host is.
 *
 *  - perf's generic names, with and without u and k, must be the
 *    encodings Linux 6.12 gives them on that model
 *    (arch/x86/events/intel/core.c: intel_perfmon_event_map, and
 *    intel_pmu_ref_cycles_ext() on the Golden Cove and Gracemont lines);
 *  - for each string, check must print the library's encoding ("ok COUNTER
 *    CONFIG EXTRA") or the library's refusal ("error UNKNOWN_EVENT: MSG"
 *    for -ENOENT, "error LIBPFM4: MSG" else), line for line.
 *
 * The libpfm4 names of every event and umask of knm, knl, skl, icl, icx
 * and spr go through both in selftests/core/pfm_diff.c.
 */
#define _GNU_SOURCE		/* memfd_create */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "libpmuctl.h"

#define UK	(PMUCTL_CFG_USR | PMUCTL_CFG_OS)

/* perf's generic names and Linux 6.12's encodings for them on Intel. */
static const struct {
	const char *name;
	uint64_t code;
} generic[] = {
	{ "cycles", 0x003c },
	{ "cpu-cycles", 0x003c },
	{ "instructions", 0x00c0 },
	{ "cache-references", 0x4f2e },
	{ "cache-misses", 0x412e },
	{ "branches", 0x00c4 },
	{ "branch-instructions", 0x00c4 },
	{ "branch-misses", 0x00c5 },
	{ "bus-cycles", 0x013c },
	{ "ref-cycles", 0x0300 },	/* 0x013c where ref_013c */
};

static const struct {
	const char *sfx;
	uint64_t priv;
} privs[] = {
	{ "", UK },
	{ ":u", PMUCTL_CFG_USR },
	{ ":k", PMUCTL_CFG_OS },
	{ ":u:k", UK },
	{ ":k:u", UK },
};

/* Strings whose library result is compared with check's, not predicted. */
static const char *const others[] = {
	"cycles:c=1", "instructions:e", "CYCLES", "ref_cycles", "r3003c", "r300c0",
	"unhalted_core_cycles:u", "instruction_retired", "branch_instructions_retired:k",
	"no_such_event", "unhalted_core_cycles:zz", "offcore_response_0:l3_miss",
	"offcore_response_0:dmnd_data_rd:snp_none", "topdown:backend_bound_slots",
	"offcore_response_1:demand_data_rd_any_response", "ocr:demand_data_rd_l3_miss",
};

FIXTURE(resolve) {
	char **strs;
	char (*want)[600];
	unsigned int n;
};

FIXTURE_VARIANT(resolve) {
	uint32_t model;
	const char *name;	/* pmuctl check --pmu */
	bool ref_013c;		/* intel_pmu_ref_cycles_ext() */
};

FIXTURE_VARIANT_ADD(resolve, knm) { PMUCTL_MODEL_KNM, "knm", false };
FIXTURE_VARIANT_ADD(resolve, knl) { PMUCTL_MODEL_KNL, "knl", false };
FIXTURE_VARIANT_ADD(resolve, skl) { PMUCTL_MODEL_SKL, "skl", false };
FIXTURE_VARIANT_ADD(resolve, icl) { PMUCTL_MODEL_ICL, "icl", false };
FIXTURE_VARIANT_ADD(resolve, icx) { PMUCTL_MODEL_ICX, "icx", false };
FIXTURE_VARIANT_ADD(resolve, spr) { PMUCTL_MODEL_SPR, "spr", true };
FIXTURE_VARIANT_ADD(resolve, gnr) { PMUCTL_MODEL_GNR, "gnr", true };
FIXTURE_VARIANT_ADD(resolve, adl_glc) { PMUCTL_MODEL_ADL_GLC, "adl_glc", true };
FIXTURE_VARIANT_ADD(resolve, adl_grt) { PMUCTL_MODEL_ADL_GRT, "adl_grt", true };
FIXTURE_VARIANT_ADD(resolve, srf) { PMUCTL_MODEL_SRF, "srf", true };
FIXTURE_VARIANT_ADD(resolve, lnl_lnc) { PMUCTL_MODEL_LNL_LNC, "lnl_lnc", true };
FIXTURE_VARIANT_ADD(resolve, lnl_skt) { PMUCTL_MODEL_LNL_SKT, "lnl_skt", true };
FIXTURE_VARIANT_ADD(resolve, arch) { PMUCTL_MODEL_ARCH, "arch", false };

#define MAX_STRS	(PMUCTL_NELEM_G * PMUCTL_NELEM_P + PMUCTL_NELEM_O)
#define PMUCTL_NELEM_G	(sizeof(generic) / sizeof(generic[0]))
#define PMUCTL_NELEM_P	(sizeof(privs) / sizeof(privs[0]))
#define PMUCTL_NELEM_O	(sizeof(others) / sizeof(others[0]))

FIXTURE_SETUP(resolve)
{
	self->strs = calloc(MAX_STRS, sizeof(*self->strs));
	self->want = calloc(MAX_STRS, sizeof(*self->want));
	ASSERT_NE(NULL, self->strs);
	ASSERT_NE(NULL, self->want);
	self->n = 0;
}

FIXTURE_TEARDOWN(resolve)
{
	for (unsigned int i = 0; i < self->n; i++)
		free(self->strs[i]);
	free(self->strs);
	free(self->want);
}

/* The library's verdict on @str, as check's line would say it (no counter). */
static int library_line(uint32_t model, const char *str, char *want, size_t len,
			struct pmuctl_event *ev)
{
	char msg[512];
	int ret = pmuctl_event_resolve(model, str, ev, msg, sizeof(msg));

	if (ret == 0)
		snprintf(want, len, "ok 0x%llx 0x%llx", (unsigned long long)ev->config,
			 (unsigned long long)ev->extra);
	else if (ret == PMUCTL_PARSE_LITERAL || ret == -EINVAL || ret == -EOVERFLOW)
		snprintf(want, len, "error LIBPFM4: %s", msg);
	else if (ret == -ENOENT)
		snprintf(want, len, "error UNKNOWN_EVENT: %s", msg);
	else
		snprintf(want, len, "trouble %d: %s", ret, msg);
	return ret;
}

/* Run check on every string at once; its lines, counters left out. */
static void check_lines(struct __test_metadata *_metadata,
			FIXTURE_DATA(resolve) *self, const char *pmu)
{
	const char *bin = getenv("PMUCTL") ? getenv("PMUCTL") : "build/bin/pmuctl";
	const char **argv = calloc(self->n + 5, sizeof(*argv));
	int out = memfd_create("check.out", 0), status;
	char *line = NULL;
	size_t cap = 0;
	pid_t pid;
	FILE *f;

	ASSERT_NE(NULL, argv);
	ASSERT_LE(0, out);
	ASSERT_EQ(0, access(bin, X_OK))
		TH_LOG("no executable pmuctl at '%s' (make tests builds it; PMUCTL names another)", bin);
	argv[0] = bin;
	argv[1] = "check";
	argv[2] = "--pmu";
	argv[3] = pmu;
	for (unsigned int i = 0; i < self->n; i++)
		argv[4 + i] = self->strs[i];
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		dup2(out, STDOUT_FILENO);
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) <= 1)
		TH_LOG("pmuctl check --pmu %s: status %#x", pmu, status);
	free(argv);
	lseek(out, 0, SEEK_SET);
	f = fdopen(out, "r");
	ASSERT_NE(NULL, f);
	for (unsigned int i = 0; i < self->n; i++) {
		ssize_t len = getline(&line, &cap, f);
		char *got = line;

		ASSERT_LT(0, len) TH_LOG("%s: no line for '%s'", pmu, self->strs[i]);
		if (line[len - 1] == '\n')
			line[len - 1] = '\0';
		if (!strncmp(line, "ok ", 3) && strchr(line + 3, ' ')) {
			got = strchr(line + 3, ' ') - 2;
			memcpy(got, "ok", 2);
		}
		EXPECT_STREQ(self->want[i], got)
			TH_LOG("%s '%s': check says '%s'", pmu, self->strs[i], line);
	}
	EXPECT_EQ(-1, getline(&line, &cap, f)) TH_LOG("check printed more lines");
	free(line);
	fclose(f);
}

static void add(FIXTURE_DATA(resolve) *self, const char *str)
{
	self->strs[self->n] = strdup(str);
	self->n++;
}

TEST_F(resolve, library_and_check_agree)
{
	struct pmuctl_event ev;
	char str[64];
	int ret;

	/* perf's names: Linux's encodings on this model */
	for (size_t g = 0; g < PMUCTL_NELEM_G; g++) {
		uint64_t code = generic[g].code;

		if (!strcmp(generic[g].name, "ref-cycles") && variant->ref_013c)
			code = 0x013c;
		for (size_t p = 0; p < PMUCTL_NELEM_P; p++) {
			snprintf(str, sizeof(str), "%s%s", generic[g].name, privs[p].sfx);
			ret = library_line(variant->model, str, self->want[self->n],
					   sizeof(self->want[0]), &ev);
			EXPECT_EQ(0, ret) TH_LOG("%s: '%s': %s", variant->name, str,
						 self->want[self->n]);
			EXPECT_EQ(code | privs[p].priv, ev.config)
				TH_LOG("%s: '%s'", variant->name, str);
			EXPECT_EQ(0ULL, ev.extra);
			add(self, str);
		}
	}
	/* the rest: whatever the library says, check says */
	for (size_t o = 0; o < PMUCTL_NELEM_O; o++) {
		ret = library_line(variant->model, others[o], self->want[self->n],
				   sizeof(self->want[0]), &ev);
		EXPECT_NE(0, strncmp(self->want[self->n], "trouble", 7))
			TH_LOG("%s: '%s': %s", variant->name, others[o], self->want[self->n]);
		add(self, others[o]);
	}
	check_lines(_metadata, self, variant->name);
}

TEST_HARNESS_MAIN
