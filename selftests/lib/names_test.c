// SPDX-License-Identifier: GPL-2.0
/*
 * libpmuctl's names, on any host: the reason codes (pmuctl_reason_name(),
 * pmuctl_reason_text()), pmuctl_strerror(), and the model names
 * (pmuctl_model_name(), pmuctl_pfm_pmu_name()).
 *
 * Expected strings come from the header contracts (user/libpmuctl.h) and
 * the uapi enum (uapi/linux/pmuctl.h), never from the library.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "kselftest_harness.h"

#include "libpmuctl.h"

/*
 * Every code of enum pmuctl_reason with its identifier: the name must be
 * the identifier without PMUCTL_R_.  A code appended to the enum without
 * an entry here fails reason_table_covers_the_enum.
 */
#define R(x)	{ PMUCTL_R_##x, #x }

static const struct {
	uint32_t code;
	const char *name;
} reasons[] = {
	R(NONE), R(BAD_FLAGS), R(RESERVED_FIELD), R(OUTPUT_NOT_ZERO),
	R(TOO_MANY_EVENTS), R(RESERVED_BITS), R(KERNEL_BITS), R(PIN_CONTROL),
	R(NO_PRIV_LEVEL), R(EDGE_NO_CMASK), R(ANY_NOT_ALLOWED),
	R(EVENT_UNAVAILABLE), R(NO_ELIGIBLE_COUNTER), R(EXTRA_UNEXPECTED),
	R(EXTRA_MASK), R(OFFCORE_NO_REQUEST), R(OFFCORE_NO_RESPONSE),
	R(OFFCORE_ANY_RESPONSE_MIXED), R(OUTSTANDING_ON_RSP1),
	R(OUTSTANDING_WITH_RESPONSE), R(UNPRIV_KERNEL_MODE),
	R(UNPRIV_ANY_THREAD), R(COUNTERS_BUSY), R(OFFCORE_RSP0_BUSY),
	R(OFFCORE_RSP1_BUSY), R(OFFCORE_BOTH_BUSY), R(FRONTEND_BUSY),
	R(LDLAT_BUSY), R(LATENCY_REQUEST_MISMATCH), R(LATENCY_NO_ANY_RESPONSE),
	R(NOT_INTEL), R(NO_ARCH_PERFMON), R(PERF_BUSY), R(BAD_CPU),
	R(CPU_NOT_ALLOWED), R(HW_FAULT), R(ALREADY_PROGRAMMED),
	R(UNPRIV_CPU_SCOPE), R(USER_LIMIT), R(PERF_UNMANAGED),
	R(COUNTER_IN_USE), R(HYBRID_CPU), R(NOT_ARCHITECTURAL), R(TASK_BUSY),
	R(EXTRA_UNSUPPORTED), R(CPU_TYPE), R(METRICS_UNAVAILABLE),
	R(METRICS_NEED_SLOTS), R(UMASK2_UNAVAILABLE), R(EQ_UNAVAILABLE),
	R(NOT_PROGRAMMED), R(REPLACE_SCOPE),
};

#define NR_REASONS	(sizeof(reasons) / sizeof(reasons[0]))

TEST(reason_table_covers_the_enum)
{
	bool seen[PMUCTL_R_NR] = { false };

	ASSERT_EQ((size_t)PMUCTL_R_NR, NR_REASONS)
		TH_LOG("enum pmuctl_reason has %u codes, this test knows %zu: add the new ones to reasons[]",
		       (unsigned int)PMUCTL_R_NR, NR_REASONS);
	for (size_t i = 0; i < NR_REASONS; i++) {
		ASSERT_LT(reasons[i].code, (uint32_t)PMUCTL_R_NR);
		seen[reasons[i].code] = true;
	}
	for (unsigned int r = 0; r < PMUCTL_R_NR; r++) {
		EXPECT_TRUE(seen[r]) TH_LOG("code %u missing from reasons[]", r);
	}
}

TEST(reason_name_is_the_enum_identifier)
{
	for (size_t i = 0; i < NR_REASONS; i++) {
		const char *name = pmuctl_reason_name(reasons[i].code);

		ASSERT_NE(NULL, name);
		EXPECT_STREQ(reasons[i].name, name)
			TH_LOG("code %u", reasons[i].code);
	}
}

TEST(reason_names_are_distinct)
{
	for (unsigned int a = 0; a < PMUCTL_R_NR; a++) {
		for (unsigned int b = a + 1; b < PMUCTL_R_NR; b++) {
			EXPECT_STRNE(pmuctl_reason_name(a), pmuctl_reason_name(b))
				TH_LOG("codes %u and %u", a, b);
		}
	}
}

/* One sentence naming the rule, without a trailing period (the header). */
TEST(reason_text_is_one_sentence_without_period)
{
	for (unsigned int r = 0; r < PMUCTL_R_NR; r++) {
		const char *t = pmuctl_reason_text(r);
		size_t n;

		ASSERT_NE(NULL, t) TH_LOG("code %u", r);
		n = strlen(t);
		EXPECT_GT(n, (size_t)0) TH_LOG("code %u: empty text", r);
		if (n) {
			EXPECT_NE('.', t[n - 1]) TH_LOG("code %u: \"%s\"", r, t);
		}
		EXPECT_EQ(NULL, strchr(t, '\n')) TH_LOG("code %u: \"%s\"", r, t);
	}
}

TEST(reason_texts_are_distinct)
{
	for (unsigned int a = 0; a < PMUCTL_R_NR; a++) {
		for (unsigned int b = a + 1; b < PMUCTL_R_NR; b++) {
			EXPECT_STRNE(pmuctl_reason_text(a), pmuctl_reason_text(b))
				TH_LOG("codes %u and %u", a, b);
		}
	}
}

/* A newer module's code: "UNKNOWN" and "unknown reason N". */
TEST(unknown_reason)
{
	const uint32_t codes[] = { PMUCTL_R_NR, PMUCTL_R_NR + 1, 1000, UINT32_MAX };
	char want[64];

	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		snprintf(want, sizeof(want), "unknown reason %u", codes[i]);
		EXPECT_STREQ("UNKNOWN", pmuctl_reason_name(codes[i]));
		EXPECT_STREQ(want, pmuctl_reason_text(codes[i]));
	}
}

/* ---- pmuctl_strerror() ---- */

TEST(strerror_without_error_struct_is_strerror)
{
	char buf[128];

	EXPECT_EQ((char *)buf, pmuctl_strerror(-EBUSY, NULL, buf, sizeof(buf)));
	EXPECT_STREQ(strerror(EBUSY), buf);
	pmuctl_strerror(-ENOENT, NULL, buf, sizeof(buf));
	EXPECT_STREQ(strerror(ENOENT), buf);
}

TEST(strerror_with_reason_none_is_strerror)
{
	const struct pmuctl_error err = {
		.reason = PMUCTL_R_NONE, .index = 2, .cpu = 1,
	};
	char buf[128];

	pmuctl_strerror(-EIO, &err, buf, sizeof(buf));
	EXPECT_STREQ(strerror(EIO), buf);
}

/* "event 2: EDGE_NO_CMASK: <reason text> (CPU 1)" */
TEST(strerror_names_event_rule_and_cpu)
{
	const struct pmuctl_error err = {
		.reason = PMUCTL_R_EDGE_NO_CMASK, .index = 2, .cpu = 1,
	};
	char buf[512], want[512];

	snprintf(want, sizeof(want), "event 2: EDGE_NO_CMASK: %s (CPU 1)",
		 pmuctl_reason_text(PMUCTL_R_EDGE_NO_CMASK));
	EXPECT_EQ((char *)buf, pmuctl_strerror(-EINVAL, &err, buf, sizeof(buf)));
	EXPECT_STREQ(want, buf);
}

/* UINT32_MAX: no event, no CPU; each part is left out on its own. */
TEST(strerror_leaves_out_absent_event_and_cpu)
{
	struct pmuctl_error err = {
		.reason = PMUCTL_R_PERF_BUSY, .index = UINT32_MAX, .cpu = UINT32_MAX,
	};
	const char *text = pmuctl_reason_text(PMUCTL_R_PERF_BUSY);
	char buf[512], want[512];

	snprintf(want, sizeof(want), "PERF_BUSY: %s", text);
	pmuctl_strerror(-EBUSY, &err, buf, sizeof(buf));
	EXPECT_STREQ(want, buf);

	err.cpu = 3;
	snprintf(want, sizeof(want), "PERF_BUSY: %s (CPU 3)", text);
	pmuctl_strerror(-EBUSY, &err, buf, sizeof(buf));
	EXPECT_STREQ(want, buf);

	err.cpu = UINT32_MAX;
	err.index = 0;
	snprintf(want, sizeof(want), "event 0: PERF_BUSY: %s", text);
	pmuctl_strerror(-EBUSY, &err, buf, sizeof(buf));
	EXPECT_STREQ(want, buf);
}

/* A reason this library does not know still gives a line. */
TEST(strerror_with_unknown_reason)
{
	const struct pmuctl_error err = {
		.reason = 1000, .index = 1, .cpu = UINT32_MAX,
	};
	char buf[256];

	pmuctl_strerror(-EINVAL, &err, buf, sizeof(buf));
	EXPECT_STREQ("event 1: UNKNOWN: unknown reason 1000", buf);
}

/* Truncated to fit, always NUL-terminated; a zero length writes nothing. */
TEST(strerror_truncates)
{
	const struct pmuctl_error err = {
		.reason = PMUCTL_R_EDGE_NO_CMASK, .index = 2, .cpu = 1,
	};
	char buf[16];

	memset(buf, 'x', sizeof(buf));
	pmuctl_strerror(-EINVAL, &err, buf, 10);
	EXPECT_STREQ("event 2: ", buf);
	EXPECT_EQ('x', buf[10]);

	memset(buf, 'x', sizeof(buf));
	pmuctl_strerror(-EINVAL, &err, buf, 12);
	EXPECT_STREQ("event 2: ED", buf);
	EXPECT_EQ('x', buf[12]);

	memset(buf, 'x', sizeof(buf));
	pmuctl_strerror(-ENOENT, NULL, buf, 4);
	EXPECT_EQ(0, strncmp(strerror(ENOENT), buf, 3));
	EXPECT_EQ('\0', buf[3]);

	memset(buf, 'x', sizeof(buf));
	EXPECT_EQ((char *)buf, pmuctl_strerror(-EINVAL, &err, buf, 0));
	EXPECT_EQ('x', buf[0]);
}

/* ---- model names ---- */

/* The header's pairs: short name, libpfm4 PMU. */
static const struct {
	uint32_t model;
	const char *name;
	const char *pfm;
} models[] = {
	{ PMUCTL_MODEL_NONE, "none", NULL },
	{ PMUCTL_MODEL_ARCH, "arch", "ix86arch" },
	{ PMUCTL_MODEL_KNL, "knl", "knl" },
	{ PMUCTL_MODEL_KNM, "knm", "knm" },
	{ PMUCTL_MODEL_SKL, "skl", "skl" },
	{ PMUCTL_MODEL_ICL, "icl", "icl" },
	{ PMUCTL_MODEL_ICX, "icx", "icx" },
	{ PMUCTL_MODEL_SPR, "spr", "spr" },
	/* libpfm4 4.13 has no table of their own: the architectural one */
	{ PMUCTL_MODEL_GNR, "gnr", "ix86arch" },
	{ PMUCTL_MODEL_ADL_GLC, "adl_glc", "ix86arch" },
	{ PMUCTL_MODEL_ADL_GRT, "adl_grt", "ix86arch" },
	{ PMUCTL_MODEL_SRF, "srf", "ix86arch" },
	{ PMUCTL_MODEL_LNL_LNC, "lnl_lnc", "ix86arch" },
	{ PMUCTL_MODEL_LNL_SKT, "lnl_skt", "ix86arch" },
};

TEST(model_names)
{
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		EXPECT_STREQ(models[i].name, pmuctl_model_name(models[i].model));
		if (models[i].pfm) {
			EXPECT_STREQ(models[i].pfm, pmuctl_pfm_pmu_name(models[i].model));
		} else {
			EXPECT_EQ(NULL, pmuctl_pfm_pmu_name(models[i].model));
		}
	}
}

/* An unknown model (a newer module) reads as none, with no libpfm4 PMU. */
TEST(unknown_model)
{
	/* past the last model the header names */
	const uint32_t codes[] = { PMUCTL_MODEL_LNL_SKT + 1, 100, UINT32_MAX };

	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		EXPECT_STREQ("none", pmuctl_model_name(codes[i]));
		EXPECT_EQ(NULL, pmuctl_pfm_pmu_name(codes[i]));
	}
}

/*
 * Each model's libpfm4 PMU names events on this host, whatever its CPU:
 * INSTRUCTION_RETIRED is 0x00c0 in each of these tables [libpfm4 4.13
 * lib/events/intel_x86_arch_events.h:37, intel_knl_events.h:899,
 * intel_skl_events.h:2370].  One model per process: libpfm4 4.13 cannot
 * switch PMUs freely (see parse_test.c).
 */
FIXTURE(model) {
};

FIXTURE_VARIANT(model) {
	uint32_t model;
};

FIXTURE_VARIANT_ADD(model, arch) { .model = PMUCTL_MODEL_ARCH };
FIXTURE_VARIANT_ADD(model, knl) { .model = PMUCTL_MODEL_KNL };
FIXTURE_VARIANT_ADD(model, knm) { .model = PMUCTL_MODEL_KNM };
FIXTURE_VARIANT_ADD(model, skl) { .model = PMUCTL_MODEL_SKL };
FIXTURE_VARIANT_ADD(model, icl) { .model = PMUCTL_MODEL_ICL };
FIXTURE_VARIANT_ADD(model, icx) { .model = PMUCTL_MODEL_ICX };
FIXTURE_VARIANT_ADD(model, spr) { .model = PMUCTL_MODEL_SPR };
FIXTURE_VARIANT_ADD(model, gnr) { .model = PMUCTL_MODEL_GNR };

FIXTURE_SETUP(model)
{
}

FIXTURE_TEARDOWN(model)
{
}

TEST_F(model, pfm_pmu_names_events_on_any_host)
{
	const char *pmu = pmuctl_pfm_pmu_name(variant->model);
	struct pmuctl_event ev;
	char msg[256];

	ASSERT_NE(NULL, pmu);
	EXPECT_EQ(0, pmuctl_event_parse(pmu, "instruction_retired:u", &ev, msg,
					sizeof(msg))) TH_LOG("%s: %s", pmu, msg);
	EXPECT_EQ(0x100c0ULL, ev.config) TH_LOG("%s", pmu);
}

TEST_HARNESS_MAIN
