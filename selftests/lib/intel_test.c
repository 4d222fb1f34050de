// SPDX-License-Identifier: GPL-2.0
/*
 * Intel's event names in libpmuctl, against the committed lists they are
 * generated from (events/intel/LIST.events, read here at run time and
 * encoded by this test on its own, not by the library's tables):
 *
 *  - every event of every list resolves by Intel's name, in upper and in
 *    lower case, to Intel's encoding through pmuctl_event_resolve_list(),
 *    and 'pmuctl check --pmu LIST' resolves every name alike: "ok" with
 *    the same config and extra, or the core's refusal (a rule, never
 *    UNKNOWN_EVENT or LIBPFM4);
 *  - the names the table leaves out (Cascade Lake's
 *    "OFFCORE_RESPONSE:request=...:response=...") each have an OCR.* twin
 *    with the same encoding;
 *  - modifiers, their refusals, and the suggestions for an unknown name;
 *  - a name libpfm4 spells EVENT:UMASK and Intel EVENT.UMASK gives the
 *    same encoding both ways on the models libpfm4 4.13 has.
 */
#define _GNU_SOURCE		/* memfd_create */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "libpmuctl.h"

#define UK	(PMUCTL_CFG_USR | PMUCTL_CFG_OS)
#define MAX_EV	3000

struct iev {
	char name[96];
	uint64_t config;	/* Intel's encoding, USR and OS set */
	uint64_t extra;
	bool has_extra;
};

/* Fields: name event umask umask2 cmask inv edge eq any counters msr msrvalue deprecated. */
static int read_list(const char *list, bool arch_fixed, struct iev *ev,
		     int max, char (*left_out)[96], uint64_t (*lo_key)[2],
		     int *nleft)
{
	char path[128], line[512];
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "events/intel/%s.events", list);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	*nleft = 0;
	while (fgets(line, sizeof(line), f)) {
		char name[96], code[32], umask[32], counters[64], msr[32], val[32];
		unsigned int umask2, cmask, inv, edge, eq, any, depr;
		uint64_t c, e;

		if (line[0] == '#')
			continue;
		if (sscanf(line, "%95s %31s %31s %x %u %u %u %u %u %63s %31s %31s %u",
			   name, code, umask, &umask2, &cmask, &inv, &edge, &eq,
			   &any, counters, msr, val, &depr) != 13)
			continue;
		c = strtoull(code, NULL, 16) | strtoull(umask, NULL, 16) << 8;
		if (arch_fixed && c >= 0x100 && c <= 0x300 && !(c & 0xff)) {
			static const uint64_t arch[] = { 0x00c0, 0x003c, 0x0300 };

			c = arch[(c >> 8) - 1];
		}
		c |= UK | (uint64_t)cmask << 24 | (uint64_t)umask2 << 40;
		c |= (inv ? PMUCTL_CFG_INV : 0) | (edge ? PMUCTL_CFG_EDGE : 0) |
		     (eq ? PMUCTL_CFG_EQ : 0) | (any ? PMUCTL_CFG_ANY : 0);
		e = strcmp(msr, "-") ? strtoull(val, NULL, 16) : 0;
		if (strchr(name, ':')) {
			snprintf(left_out[*nleft], 96, "%s", name);
			lo_key[*nleft][0] = c;
			lo_key[*nleft][1] = e;
			(*nleft)++;
			continue;
		}
		if (n == max)
			break;
		snprintf(ev[n].name, sizeof(ev[n].name), "%s", name);
		ev[n].config = c;
		ev[n].extra = e;
		ev[n].has_extra = strcmp(msr, "-");
		n++;
	}
	fclose(f);
	return n;
}

FIXTURE(intel) {
	struct iev *ev;
	char (*left)[96];
	uint64_t (*lkey)[2];
	int n, nleft;
};

FIXTURE_VARIANT(intel) {
	const char *list;	/* events/intel/LIST.events and check --pmu LIST */
	uint32_t model;
	bool arch_fixed;	/* fixed-counter events as 0x00c0, 0x003c, 0x0300 */
	const char *pfm;	/* libpfm4 PMU of the model, NULL: none in 4.13 */
};

FIXTURE_VARIANT_ADD(intel, knl) { "knl", PMUCTL_MODEL_KNL, true, "knl" };
FIXTURE_VARIANT_ADD(intel, skl) { "skl", PMUCTL_MODEL_SKL, true, "skl" };
FIXTURE_VARIANT_ADD(intel, skx) { "skx", PMUCTL_MODEL_SKL, true, "skl" };
FIXTURE_VARIANT_ADD(intel, clx) { "clx", PMUCTL_MODEL_SKL, true, "skl" };
FIXTURE_VARIANT_ADD(intel, icl) { "icl", PMUCTL_MODEL_ICL, false, "icl" };
FIXTURE_VARIANT_ADD(intel, icx) { "icx", PMUCTL_MODEL_ICX, false, "icx" };
FIXTURE_VARIANT_ADD(intel, spr) { "spr", PMUCTL_MODEL_SPR, false, "spr" };
FIXTURE_VARIANT_ADD(intel, emr) { "emr", PMUCTL_MODEL_SPR, false, "spr" };
FIXTURE_VARIANT_ADD(intel, gnr) { "gnr", PMUCTL_MODEL_GNR, false, NULL };
FIXTURE_VARIANT_ADD(intel, adl_glc) { "adl_glc", PMUCTL_MODEL_ADL_GLC, false, NULL };
FIXTURE_VARIANT_ADD(intel, adl_grt) { "adl_grt", PMUCTL_MODEL_ADL_GRT, false, NULL };
FIXTURE_VARIANT_ADD(intel, srf) { "srf", PMUCTL_MODEL_SRF, false, NULL };
FIXTURE_VARIANT_ADD(intel, grr) { "grr", PMUCTL_MODEL_SRF, false, NULL };
FIXTURE_VARIANT_ADD(intel, lnl_lnc) { "lnl_lnc", PMUCTL_MODEL_LNL_LNC, false, NULL };
FIXTURE_VARIANT_ADD(intel, lnl_skt) { "lnl_skt", PMUCTL_MODEL_LNL_SKT, false, NULL };
FIXTURE_VARIANT_ADD(intel, arl_lnc) { "arl_lnc", PMUCTL_MODEL_LNL_LNC, false, NULL };
FIXTURE_VARIANT_ADD(intel, arl_skt) { "arl_skt", PMUCTL_MODEL_LNL_SKT, false, NULL };

FIXTURE_SETUP(intel)
{
	self->ev = calloc(MAX_EV, sizeof(*self->ev));
	self->left = calloc(MAX_EV, sizeof(*self->left));
	self->lkey = calloc(MAX_EV, sizeof(*self->lkey));
	ASSERT_NE(NULL, self->ev);
	ASSERT_NE(NULL, self->left);
	ASSERT_NE(NULL, self->lkey);
	self->n = read_list(variant->list, variant->arch_fixed, self->ev, MAX_EV,
			    self->left, self->lkey, &self->nleft);
	ASSERT_LT(100, self->n) TH_LOG("events/intel/%s.events: %s", variant->list,
				       self->n < 0 ? strerror(-self->n) : "too few events");
	ASSERT_GT(MAX_EV, self->n);
}

FIXTURE_TEARDOWN(intel)
{
	free(self->ev);
	free(self->left);
	free(self->lkey);
}

static int resolve(const FIXTURE_VARIANT(intel) *variant, const char *str,
		   struct pmuctl_event *ev, char *msg, size_t len)
{
	return pmuctl_event_resolve_list(variant->model, variant->list, str, ev,
					 msg, len);
}

TEST_F(intel, every_name_resolves_to_intels_encoding)
{
	struct pmuctl_event ev;
	char msg[512], lower[96];
	int ret;

	for (int i = 0; i < self->n; i++) {
		const struct iev *e = &self->ev[i];

		ret = resolve(variant, e->name, &ev, msg, sizeof(msg));
		EXPECT_EQ(0, ret) TH_LOG("%s %s: %s", variant->list, e->name, msg);
		EXPECT_EQ(e->config, ev.config)
			TH_LOG("%s %s: 0x%llx, Intel 0x%llx", variant->list, e->name,
			       (unsigned long long)ev.config,
			       (unsigned long long)e->config);
		EXPECT_EQ(e->extra, ev.extra) TH_LOG("%s %s", variant->list, e->name);
		for (size_t k = 0; k <= strlen(e->name); k++)
			lower[k] = (char)tolower((unsigned char)e->name[k]);
		ret = resolve(variant, lower, &ev, msg, sizeof(msg));
		EXPECT_EQ(0, ret) TH_LOG("%s %s: %s", variant->list, lower, msg);
		EXPECT_EQ(e->config, ev.config) TH_LOG("%s %s", variant->list, lower);
	}
}

TEST_F(intel, names_left_out_have_an_ocr_twin)
{
	for (int i = 0; i < self->nleft; i++) {
		bool twin = false;

		for (int j = 0; j < self->n && !twin; j++)
			twin = self->ev[j].config == self->lkey[i][0] &&
			       self->ev[j].extra == self->lkey[i][1] &&
			       !strncmp(self->ev[j].name, "OCR.", 4);
		EXPECT_TRUE(twin) TH_LOG("%s: %s has no OCR.* twin", variant->list,
					 self->left[i]);
	}
	if (!strcmp(variant->list, "clx")) {
		EXPECT_LT(1000, self->nleft);
	} else {
		EXPECT_EQ(0, self->nleft);
	}
}

/* 'pmuctl check --pmu LIST' on every name at once, line for line. */
TEST_F(intel, check_resolves_every_name_alike)
{
	const char *bin = getenv("PMUCTL") ? getenv("PMUCTL") : "build/bin/pmuctl";
	const char **argv = calloc((size_t)self->n + 5, sizeof(*argv));
	int out = memfd_create("check.out", 0), status, ok = 0;
	char *line = NULL;
	size_t cap = 0;
	pid_t pid;
	FILE *f;

	ASSERT_NE(NULL, argv);
	ASSERT_LE(0, out);
	ASSERT_EQ(0, access(bin, X_OK)) TH_LOG("no pmuctl at '%s'", bin);
	argv[0] = bin;
	argv[1] = "check";
	argv[2] = "--pmu";
	argv[3] = variant->list;
	for (int i = 0; i < self->n; i++)
		argv[4 + i] = self->ev[i].name;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		dup2(out, STDOUT_FILENO);
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) <= 1)
		TH_LOG("check --pmu %s: status %#x", variant->list, status);
	free(argv);
	lseek(out, 0, SEEK_SET);
	f = fdopen(out, "r");
	ASSERT_NE(NULL, f);
	for (int i = 0; i < self->n; i++) {
		unsigned long long config, extra;
		char ctr[16];
		ssize_t len = getline(&line, &cap, f);

		ASSERT_LT(0, len) TH_LOG("%s: no line for %s", variant->list,
					 self->ev[i].name);
		if (sscanf(line, "ok %15s 0x%llx 0x%llx", ctr, &config, &extra) == 3) {
			ok++;
			EXPECT_EQ(self->ev[i].config, config)
				TH_LOG("%s %s: check %s", variant->list,
				       self->ev[i].name, line);
			EXPECT_EQ(self->ev[i].extra, extra)
				TH_LOG("%s %s: check %s", variant->list,
				       self->ev[i].name, line);
			continue;
		}
		/* refused by a rule of the core: the name itself resolved */
		EXPECT_TRUE(!strncmp(line, "error ", 6) &&
			    strncmp(line, "error UNKNOWN_EVENT", 19) &&
			    strncmp(line, "error LIBPFM4", 13))
			TH_LOG("%s %s: check %s", variant->list, self->ev[i].name, line);
	}
	EXPECT_EQ(-1, getline(&line, &cap, f)) TH_LOG("check printed more lines");
	/* the core takes most of Intel's events (intel_diff judges each) */
	EXPECT_LT(self->n * 3 / 4, ok) TH_LOG("%s: %d of %d ok", variant->list,
					      ok, self->n);
	free(line);
	fclose(f);
}

/* The first event of the list with an extra MSR value of @kind's prefix. */
static const struct iev *first_named(FIXTURE_DATA(intel) *self, const char *prefix,
				     bool extra)
{
	for (int i = 0; i < self->n; i++)
		if (!strncasecmp(self->ev[i].name, prefix, strlen(prefix)) &&
		    self->ev[i].has_extra == extra)
			return &self->ev[i];
	return NULL;
}

TEST_F(intel, modifiers)
{
	const struct iev *e = first_named(self, "BR_MISP_RETIRED.", false);
	struct pmuctl_event ev;
	char s[160], msg[512];
	uint64_t base;

	ASSERT_NE(NULL, e) TH_LOG("%s: no BR_MISP_RETIRED.*", variant->list);
	base = e->config;
	snprintf(s, sizeof(s), "%s:u", e->name);
	ASSERT_EQ(0, resolve(variant, s, &ev, msg, sizeof(msg))) TH_LOG("%s", msg);
	EXPECT_EQ((base & ~UK) | PMUCTL_CFG_USR, ev.config);
	snprintf(s, sizeof(s), "%s:k", e->name);
	ASSERT_EQ(0, resolve(variant, s, &ev, msg, sizeof(msg)));
	EXPECT_EQ((base & ~UK) | PMUCTL_CFG_OS, ev.config);
	snprintf(s, sizeof(s), "%s:uk", e->name);
	ASSERT_EQ(0, resolve(variant, s, &ev, msg, sizeof(msg)));
	EXPECT_EQ(base, ev.config);
	snprintf(s, sizeof(s), "%s:c=3:e:i", e->name);
	ASSERT_EQ(0, resolve(variant, s, &ev, msg, sizeof(msg))) TH_LOG("%s", msg);
	EXPECT_EQ((base & ~PMUCTL_CFG_CMASK) | 3ULL << 24 | PMUCTL_CFG_EDGE |
		  PMUCTL_CFG_INV, ev.config);
	snprintf(s, sizeof(s), "%s:cmask=0x10:u:edge=1:inv=0", e->name);
	ASSERT_EQ(0, resolve(variant, s, &ev, msg, sizeof(msg))) TH_LOG("%s", msg);
	EXPECT_EQ((base & ~(PMUCTL_CFG_CMASK | UK | PMUCTL_CFG_INV)) | 16ULL << 24 |
		  PMUCTL_CFG_EDGE | PMUCTL_CFG_USR, ev.config);

	/* refused, each with a line that names the fault */
	snprintf(s, sizeof(s), "%s:c=256", e->name);
	EXPECT_EQ(-EINVAL, resolve(variant, s, &ev, msg, sizeof(msg)));
	EXPECT_NE(NULL, strstr(msg, "from 0 to 255")) TH_LOG("%s", msg);
	snprintf(s, sizeof(s), "%s:zz", e->name);
	EXPECT_EQ(-ENOENT, resolve(variant, s, &ev, msg, sizeof(msg)));
	EXPECT_NE(NULL, strstr(msg, "unknown modifier 'zz'")) TH_LOG("%s", msg);
	snprintf(s, sizeof(s), "%s:pp", e->name);
	EXPECT_EQ(-ENOENT, resolve(variant, s, &ev, msg, sizeof(msg)));
	EXPECT_NE(NULL, strstr(msg, "does not sample")) TH_LOG("%s", msg);
	snprintf(s, sizeof(s), "%s:offcore_rsp=0x10001", e->name);
	EXPECT_EQ(-ENOENT, resolve(variant, s, &ev, msg, sizeof(msg)));
	EXPECT_NE(NULL, strstr(msg, "has no offcore_rsp")) TH_LOG("%s", msg);
	snprintf(s, sizeof(s), "%s:e=2", e->name);
	EXPECT_EQ(-EINVAL, resolve(variant, s, &ev, msg, sizeof(msg)));
	snprintf(s, sizeof(s), "%s::u", e->name);
	EXPECT_EQ(-EINVAL, resolve(variant, s, &ev, msg, sizeof(msg)));

	/* the offcore response replaces the list's value */
	e = first_named(self, "OCR.", true);
	if (!e)
		e = first_named(self, "OFFCORE_RESPONSE.", true);
	ASSERT_NE(NULL, e) TH_LOG("%s: no offcore event", variant->list);
	snprintf(s, sizeof(s), "%s:offcore_rsp=0x10001:u", e->name);
	ASSERT_EQ(0, resolve(variant, s, &ev, msg, sizeof(msg))) TH_LOG("%s", msg);
	EXPECT_EQ(0x10001ULL, ev.extra);
	EXPECT_EQ((e->config & ~UK) | PMUCTL_CFG_USR, ev.config);
	snprintf(s, sizeof(s), "%s:ldlat=4", e->name);
	EXPECT_EQ(-ENOENT, resolve(variant, s, &ev, msg, sizeof(msg)));
}

TEST_F(intel, an_unknown_name_gets_the_closest_names)
{
	const struct iev *e = first_named(self, "BR_MISP_RETIRED.", false);
	struct pmuctl_event ev;
	char s[160], msg[512];

	ASSERT_NE(NULL, e);
	/* one letter dropped: the name itself comes first */
	snprintf(s, sizeof(s), "%.*s", (int)strlen(e->name) - 1, e->name);
	if (!first_named(self, s, false) || strcasecmp(first_named(self, s, false)->name, s)) {
		EXPECT_EQ(-ENOENT, resolve(variant, s, &ev, msg, sizeof(msg)));
		EXPECT_NE(NULL, strstr(msg, "did you mean ")) TH_LOG("%s", msg);
		EXPECT_NE(NULL, strstr(msg, "not in Intel's")) TH_LOG("%s", msg);
	}
	EXPECT_EQ(-ENOENT, resolve(variant, "no_such_event.at_all", &ev, msg, sizeof(msg)));
	EXPECT_EQ(NULL, strstr(msg, "did you mean")) TH_LOG("%s", msg);
	EXPECT_EQ(0ULL, ev.config);
}

/*
 * Where libpfm4 4.13 and Intel's list encode one name differently.  The
 * rule (libpmuctl.h, pmuctl_event_resolve()): Intel's spelling
 * EVENT.UMASK is Intel's encoding, libpfm4's EVENT:UMASK libpfm4's.  Each
 * entry must still occur.
 */
static const struct {
	const char *lists;	/* comma-separated */
	const char *name;	/* Intel's */
	const char *why;
} disagree[] = {
	{ "knl", "PAGE_WALKS.D_SIDE_WALKS", "Intel: edge with cmask 0, which the module refuses (EDGE_NO_CMASK); libpfm4 adds c=1" },
	{ "knl", "PAGE_WALKS.I_SIDE_WALKS", "as D_SIDE_WALKS" },
	{ "knl", "PAGE_WALKS.WALKS", "as D_SIDE_WALKS" },
	{ "skl,skx,clx", "UOPS_RETIRED.STALL_CYCLES", "Intel: retire slots (umask 0x02), libpfm4: uops (0x01)" },
	{ "skl,skx,clx", "UOPS_RETIRED.TOTAL_CYCLES", "as STALL_CYCLES, and cmask 16 (Intel) against 10 (libpfm4)" },
	{ "icl,icx", "MEM_LOAD_MISC_RETIRED.UC", "libpfm4 4.13: event 0xc4, Intel 0xd4" },
	{ "spr,emr", "INST_RETIRED.ANY", "Intel: fixed counter 0 (0x0100); libpfm4: 0x01c0 on any counter" },
	{ "spr,emr", "ARITH.IDIV_ACTIVE", "Intel counts cycles (cmask 1), libpfm4 has no cmask" },
	{ "spr,emr", "ARITH.INT_DIVIDER_ACTIVE", "as IDIV_ACTIVE" },
	{ "spr,emr", "EXE.AMX_BUSY", "libpfm4 4.13 gives event 0xb7 an extra value (2) as if it were OFFCORE_RESPONSE" },
	{ "spr,emr", "MEM_TRANS_RETIRED.STORE_SAMPLE", "libpfm4 4.13: umask 0x03, Intel 0x02" },
};

static int disagreement(const char *list, const char *name)
{
	for (size_t i = 0; i < sizeof(disagree) / sizeof(disagree[0]); i++) {
		const char *l = disagree[i].lists;
		size_t len = strlen(list);

		if (strcasecmp(disagree[i].name, name))
			continue;
		for (; *l; l += strcspn(l, ",") + !!l[strcspn(l, ",")])
			if (!strncmp(l, list, len) && (l[len] == ',' || !l[len]))
				return (int)i;
	}
	return -1;
}

/*
 * libpfm4's EVENT:UMASK and Intel's EVENT.UMASK of the same event: the
 * same encoding, for every event of the list with one umask name that
 * libpfm4 has too, but for disagree[].
 */
TEST_F(intel, libpfm4_and_intel_spell_one_event_alike)
{
	bool seen[sizeof(disagree) / sizeof(disagree[0])] = { false };
	struct pmuctl_event a, b;
	char s[160], msg[512];
	int both = 0, differ = 0;

	if (!variant->pfm)
		SKIP(return, "libpfm4 4.13 has no %s table", variant->list);
	for (int i = 0; i < self->n; i++) {
		const char *dot = strchr(self->ev[i].name, '.');

		if (!dot || strchr(dot + 1, '.') || self->ev[i].has_extra)
			continue;
		snprintf(s, sizeof(s), "%.*s:%s", (int)(dot - self->ev[i].name),
			 self->ev[i].name, dot + 1);
		if (resolve(variant, s, &a, msg, sizeof(msg)))
			continue;	/* libpfm4 has no such umask */
		ASSERT_EQ(0, resolve(variant, self->ev[i].name, &b, msg, sizeof(msg)));
		both++;
		if (a.config != b.config || a.extra != b.extra) {
			int d = disagreement(variant->list, self->ev[i].name);

			if (d >= 0) {
				seen[d] = true;
				continue;
			}
			differ++;
			TH_LOG("%s: libpfm4 %s 0x%llx:%llx, Intel %s 0x%llx:%llx",
			       variant->list, s, (unsigned long long)a.config,
			       (unsigned long long)a.extra, self->ev[i].name,
			       (unsigned long long)b.config, (unsigned long long)b.extra);
		}
	}
	TH_LOG("%s: %d names both spell, %d encoded differently", variant->list,
	       both, differ);
	EXPECT_LT(50, both);
	EXPECT_EQ(0, differ);
	for (size_t d = 0; d < sizeof(disagree) / sizeof(disagree[0]); d++) {
		for (int i = 0; i < self->n && !seen[d]; i++)
			if (disagreement(variant->list, self->ev[i].name) == (int)d)
				EXPECT_TRUE(seen[d]) TH_LOG("%s %s: no longer differs (%s): drop it from disagree[]",
							    variant->list, disagree[d].name,
							    disagree[d].why);
	}
}

TEST_HARNESS_MAIN
