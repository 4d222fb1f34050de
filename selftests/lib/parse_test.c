// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctl_event_parse() and pmuctl_events_parse() on any host: raw
 * "r<config>[:<extra>]" strings, and libpfm4 names with libpfm4 forced to
 * each PMU pmuctl drives (knm, knl, skl, ix86arch), whatever this host is.
 *
 * Expected encodings are read off libpfm4 4.13's tables, cited per block
 * as [file:line] under lib/events/ of its source, and the PERFEVTSEL
 * layout (FACTS.md 1): USR bit 16, OS 17, EDGE 18, INV 23, CMASK 24..31;
 * EN (22) and INT (20), which libpfm4 always sets, must be gone.
 *
 * libpfm4 4.13 cannot switch PMUs freely within one process
 * (switching_pmus): the other tests use one PMU each, and the harness runs
 * each test in its own process.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "kselftest_harness.h"

#include "libpmuctl.h"

#define USR		PMUCTL_CFG_USR
#define OS		PMUCTL_CFG_OS
#define EDGE		PMUCTL_CFG_EDGE
#define INV		PMUCTL_CFG_INV
#define CMASK(n)	((uint64_t)(n) << PMUCTL_CFG_CMASK_SHIFT)
#define BIT(n)		(1ULL << (n))
#define LITERAL		PMUCTL_PARSE_LITERAL

/* The PMUs a vector applies to. */
#define KNM	(1U << 0)
#define KNL	(1U << 1)
#define SKL	(1U << 2)
#define ARCH	(1U << 3)
#define KNX	(KNM | KNL)
#define ALL	(KNM | KNL | SKL | ARCH)

/* KNL/KNM offcore fields [intel_knl_events.h:394-578; FACTS 2]. */
#define K_DMND_DATA_RD	BIT(0)
#define K_DMND_RFO	BIT(1)
#define K_PF_L2_RFO	BIT(5)
#define K_PF_L2_CODE_RD	BIT(6)
#define K_ANY_REQUEST	BIT(15)
#define ANY_RESPONSE	BIT(16)		/* KNL/KNM and Skylake */
#define K_DDR_NEAR	(BIT(31) | BIT(23))
#define K_MCDRAM_FAR	(BIT(32) | BIT(22))
#define K_OUTSTANDING	BIT(38)

/* Skylake offcore fields [intel_skl_events.h:1442-1780]. */
#define S_DMND_DATA_RD	BIT(0)
#define S_ANY_REQUEST	0x8007ULL	/* its uequiv: DMND_DATA_RD:DMND_RFO:DMND_CODE_RD:OTHER */
#define S_L3_HITM	BIT(18)
#define S_L3_MISS	BIT(26)		/* the PFM_PMU_INTEL_SKL entry */
#define S_SNP_NONE	BIT(31)
#define S_SNP_ANY	(0x7fULL << 31)

/*
 * One string.  @ret: the expected return; for 0 and LITERAL also the
 * event's config and extra.  @msg: a substring the message must hold
 * (NULL: any; a failure or LITERAL always needs a message, 0 none).
 */
struct vec {
	int line;
	unsigned int pmus;
	const char *str;
	int ret;
	uint64_t config;
	uint64_t extra;
	const char *msg;
};

#define V(...)	{ .line = __LINE__, __VA_ARGS__ }

static const struct vec vecs[] = {
	/* ---- privilege: neither u nor k counts at both, as perf does ---- */
	/* INSTRUCTION_RETIRED 0x00c0 [intel_x86_arch_events.h:37,
	 * intel_knl_events.h:899, intel_skl_events.h:2370] */
	V(.pmus = ALL, .str = "instruction_retired", .config = 0x00c0 | USR | OS),
	V(.pmus = ALL, .str = "instruction_retired:u", .config = 0x00c0 | USR),
	V(.pmus = ALL, .str = "instruction_retired:k", .config = 0x00c0 | OS),
	V(.pmus = ALL, .str = "instruction_retired:u:k", .config = 0x00c0 | USR | OS),
	V(.pmus = ALL, .str = "INSTRUCTION_RETIRED:U", .config = 0x00c0 | USR),
	V(.pmus = ALL, .str = "instruction_retired.u", .config = 0x00c0 | USR),
	/* UNHALTED_CORE_CYCLES 0x003c [arch:32, knl:886, skl:2357] */
	V(.pmus = ALL, .str = "unhalted_core_cycles:u", .config = 0x003c | USR),
	/* UNHALTED_REFERENCE_CYCLES: 0x013c architecturally [arch:42], the
	 * fixed-counter pseudo encoding 0x0300 on KNL/KNM and Skylake
	 * [knl:896, skl:2367] */
	V(.pmus = ARCH, .str = "unhalted_reference_cycles:k", .config = 0x013c | OS),
	V(.pmus = KNX | SKL, .str = "unhalted_reference_cycles:k", .config = 0x0300 | OS),
	/* LLC_MISSES 0x412e [arch:51, knl:925] */
	V(.pmus = KNX | ARCH, .str = "llc_misses:u", .config = 0x412e | USR),
	/* INST_RETIRED:ANY_P umask 0 [knl:70, skl:511] */
	V(.pmus = KNX | SKL, .str = "inst_retired:any_p:u", .config = 0x00c0 | USR),

	/* ---- modifiers ---- */
	V(.pmus = ALL, .str = "instruction_retired:u:c=2:i",
	  .config = 0x00c0 | USR | INV | CMASK(2)),
	V(.pmus = ALL, .str = "instruction_retired:u:e:c=1",
	  .config = 0x00c0 | USR | EDGE | CMASK(1)),
	/* a umask code carrying INV and CMASK 1 [skl:1377-1379] */
	V(.pmus = SKL, .str = "uops_issued:stall_cycles:u",
	  .config = 0x010e | USR | INV | CMASK(1)),

	/* ---- offcore values, Knights Landing/Mill ---- */
	/* OFFCORE_RESPONSE_0 0x01b7, _1 0x02b7 [knl:1130-1148] */
	V(.pmus = KNX, .str = "offcore_response_0:dmnd_data_rd:ddr_near",
	  .config = 0x01b7 | USR | OS, .extra = K_DMND_DATA_RD | K_DDR_NEAR),
	V(.pmus = KNX, .str = "offcore_response_0:dmnd_data_rd:ddr_near:u",
	  .config = 0x01b7 | USR, .extra = K_DMND_DATA_RD | K_DDR_NEAR),
	V(.pmus = KNX, .str = "offcore_response_1:dmnd_rfo:any_response:u",
	  .config = 0x02b7 | USR, .extra = K_DMND_RFO | ANY_RESPONSE),
	V(.pmus = KNX, .str = "offcore_response_0:pf_l2_rfo:pf_l2_code_rd:mcdram_far",
	  .config = 0x01b7 | USR | OS,
	  .extra = K_PF_L2_RFO | K_PF_L2_CODE_RD | K_MCDRAM_FAR),
	V(.pmus = KNX, .str = "offcore_response_0:dmnd_data_rd:outstanding",
	  .config = 0x01b7 | USR | OS, .extra = K_DMND_DATA_RD | K_OUTSTANDING),
	/* defaults: ANY_REQUEST, ANY_RESPONSE [knl:466, 501: INTEL_X86_DFL] */
	V(.pmus = KNX, .str = "offcore_response_0",
	  .config = 0x01b7 | USR | OS, .extra = K_ANY_REQUEST | ANY_RESPONSE),

	/* ---- offcore values, Skylake ---- */
	/* OFFCORE_RESPONSE_0 0x01b7, _1 0x01bb [skl:3147-3165] */
	V(.pmus = SKL, .str = "offcore_response_0:dmnd_data_rd:l3_hitm:snp_any",
	  .config = 0x01b7 | USR | OS, .extra = S_DMND_DATA_RD | S_L3_HITM | S_SNP_ANY),
	V(.pmus = SKL, .str = "offcore_response_1:dmnd_data_rd:any_response",
	  .config = 0x01bb | USR | OS, .extra = S_DMND_DATA_RD | ANY_RESPONSE),
	/* default response ANY_RESPONSE [skl:1607]; a supplier without a
	 * snoop gets SNP_ANY [skl:1775, INTEL_X86_DFL] */
	V(.pmus = SKL, .str = "offcore_response_0:dmnd_data_rd:u",
	  .config = 0x01b7 | USR, .extra = S_DMND_DATA_RD | ANY_RESPONSE),
	V(.pmus = SKL, .str = "offcore_response_0:dmnd_data_rd:l3_hitm",
	  .config = 0x01b7 | USR | OS, .extra = S_DMND_DATA_RD | S_L3_HITM | S_SNP_ANY),

	/*
	 * ---- Skylake ANY_REQUEST ----
	 * libpfm4's ucode is 0x1800700 [skl:1525-1531], i.e. 0x18007 with
	 * bit 16 (ANY_RESPONSE), although its uequiv is 0x8007; as the
	 * default request next to a supplier it must read 0x8007.
	 */
	V(.pmus = SKL, .str = "offcore_response_0:l3_hitm",
	  .config = 0x01b7 | USR | OS, .extra = S_ANY_REQUEST | S_L3_HITM | S_SNP_ANY),
	V(.pmus = SKL, .str = "offcore_response_0:l3_miss",
	  .config = 0x01b7 | USR | OS, .extra = S_ANY_REQUEST | S_L3_MISS | S_SNP_ANY),
	V(.pmus = SKL, .str = "offcore_response_1:l3_miss:snp_any:u",
	  .config = 0x01bb | USR, .extra = S_ANY_REQUEST | S_L3_MISS | S_SNP_ANY),
	V(.pmus = SKL, .str = "offcore_response_0:any_request:l3_hitm:snp_any",
	  .config = 0x01b7 | USR | OS, .extra = S_ANY_REQUEST | S_L3_HITM | S_SNP_ANY),
	/* alone, bit 16 is the default ANY_RESPONSE and stays */
	V(.pmus = SKL, .str = "offcore_response_0",
	  .config = 0x01b7 | USR | OS, .extra = S_ANY_REQUEST | ANY_RESPONSE),
	V(.pmus = SKL, .str = "offcore_response_0:any_request",
	  .config = 0x01b7 | USR | OS, .extra = S_ANY_REQUEST | ANY_RESPONSE),
	V(.pmus = SKL, .str = "offcore_response_0:any_request:any_response",
	  .config = 0x01b7 | USR | OS, .extra = S_ANY_REQUEST | ANY_RESPONSE),
	/* named any_response stays, even where it is a mix libpfm4 refuses
	 * (ANY_RESPONSE is INTEL_X86_EXCL_GRP_GT [skl:1610]): composed
	 * literally, the core will say OFFCORE_ANY_RESPONSE_MIXED */
	V(.pmus = SKL, .str = "offcore_response_0:any_request:any_response:l3_hitm",
	  .ret = LITERAL, .config = 0x01b7 | USR | OS,
	  .extra = S_ANY_REQUEST | ANY_RESPONSE | S_L3_HITM, .msg = "libpfm4"),

	/*
	 * A snoop without a supplier: libpfm4 adds its default ANY_RESPONSE
	 * [skl:1607], a mix no Skylake counts; the message says libpfm4 added
	 * it and what to write.  Also where libpfm4 refuses the modifier
	 * (e without c) and pmuctl composes the string.
	 */
	V(.pmus = SKL, .str = "offcore_response_0:dmnd_data_rd:snp_none",
	  .ret = -EINVAL, .msg = "libpfm4 added ANY_RESPONSE"),
	V(.pmus = SKL, .str = "offcore_response_1:snp_hitm:u", .ret = -EINVAL,
	  .msg = "write 'offcore_response_1:snp_hitm:u:l3_hit'"),
	V(.pmus = SKL, .str = "offcore_response_0:snp_none:e", .ret = -EINVAL,
	  .msg = "libpfm4 added ANY_RESPONSE"),
	/* ... the suggestion is valid; named any_response stays (a mix) */
	V(.pmus = SKL, .str = "offcore_response_0:dmnd_data_rd:snp_none:l3_hit",
	  .config = 0x01b7 | USR | OS,
	  .extra = S_DMND_DATA_RD | BIT(18) | BIT(19) | BIT(20) | S_SNP_NONE),
	V(.pmus = SKL, .str = "offcore_response_0:dmnd_data_rd:any_response:snp_none",
	  .ret = LITERAL, .config = 0x01b7 | USR | OS,
	  .extra = S_DMND_DATA_RD | ANY_RESPONSE | S_SNP_NONE, .msg = "libpfm4"),

	/*
	 * ---- perf's generic names (Linux 6.12 intel_perfmon_event_map) ----
	 * before libpfm4's; on ix86arch, which stands for every model without
	 * a libpfm4 table, ref-cycles is 0x0300 (pmuctl_event_resolve()
	 * knows gnr & co.: selftests/lib/resolve_test.c)
	 */
	V(.pmus = ALL, .str = "cycles", .config = 0x003c | USR | OS),
	V(.pmus = ALL, .str = "cpu-cycles:u", .config = 0x003c | USR),
	V(.pmus = ALL, .str = "instructions:k", .config = 0x00c0 | OS),
	V(.pmus = ALL, .str = "ref-cycles", .config = 0x0300 | USR | OS),
	V(.pmus = ALL, .str = "branches:u:k", .config = 0x00c4 | USR | OS),
	V(.pmus = ALL, .str = "branch-instructions", .config = 0x00c4 | USR | OS),
	V(.pmus = ALL, .str = "branch-misses:u", .config = 0x00c5 | USR),
	V(.pmus = ALL, .str = "bus-cycles", .config = 0x013c | USR | OS),
	V(.pmus = ALL, .str = "cache-references", .config = 0x4f2e | USR | OS),
	V(.pmus = ALL, .str = "cache-misses:k", .config = 0x412e | OS),
	V(.pmus = ALL, .str = "cycles:c=1", .ret = -ENOENT, .msg = "u and k only"),
	V(.pmus = ALL, .str = "cycles:t", .ret = -ENOENT, .msg = "u and k only"),
	/* exact names: perf's are lower case */
	V(.pmus = ALL, .str = "CYCLES", .ret = -ENOENT, .msg = "CYCLES"),

	/* ---- strings libpfm4 refuses: composed literally (pfm.h) ---- */
	/* OUTSTANDING is a umask of OFFCORE_RESPONSE_0 only [knl:572] */
	V(.pmus = KNX, .str = "offcore_response_1:dmnd_data_rd:outstanding",
	  .ret = LITERAL, .config = 0x02b7 | USR | OS,
	  .extra = K_DMND_DATA_RD | K_OUTSTANDING, .msg = "libpfm4"),
	/* ANY_RESPONSE with a supplier [knl:501, INTEL_X86_EXCL_GRP_GT] */
	V(.pmus = KNX, .str = "offcore_response_0:dmnd_data_rd:any_response:ddr_near",
	  .ret = LITERAL, .config = 0x01b7 | USR | OS,
	  .extra = K_DMND_DATA_RD | ANY_RESPONSE | K_DDR_NEAR, .msg = "libpfm4"),

	/* ---- unknown names ---- */
	V(.pmus = ALL, .str = "no_such_event", .ret = -ENOENT, .msg = "no_such_event"),
	V(.pmus = ALL, .str = "instruction_retired:no_such_umask", .ret = -ENOENT,
	  .msg = "no_such_umask"),
	V(.pmus = SKL, .str = "llc_misses", .ret = -ENOENT, .msg = "llc_misses"),
	/* a "pmu::" prefix must name the PMU in use (pfm.h) */
	V(.pmus = KNM, .str = "knm::instruction_retired:u:k", .config = 0x00c0 | USR | OS),
	V(.pmus = SKL, .str = "knm::instruction_retired", .ret = -EINVAL, .msg = "knm"),
};

#define NR_VECS	(sizeof(vecs) / sizeof(vecs[0]))

FIXTURE(names) {
};

FIXTURE_VARIANT(names) {
	const char *pmu;
	unsigned int bit;
};

FIXTURE_VARIANT_ADD(names, knm) { .pmu = "knm", .bit = KNM };
FIXTURE_VARIANT_ADD(names, knl) { .pmu = "knl", .bit = KNL };
FIXTURE_VARIANT_ADD(names, skl) { .pmu = "skl", .bit = SKL };
FIXTURE_VARIANT_ADD(names, ix86arch) { .pmu = "ix86arch", .bit = ARCH };

FIXTURE_SETUP(names)
{
}

FIXTURE_TEARDOWN(names)
{
}

/* Only the fields the parser sets may be non-zero. */
static bool only_config_extra(const struct pmuctl_event *ev)
{
	return !ev->flags && !ev->counter && !ev->config_used &&
	       !ev->extra_msr && !ev->reserved0 && !ev->reserved[0] &&
	       !ev->reserved[1];
}

/* Every vector of the variant's PMU, each line a name on that PMU. */
TEST_F(names, encode_on_a_forced_pmu)
{
	unsigned int ran = 0;

	for (size_t i = 0; i < NR_VECS; i++) {
		const struct vec *v = &vecs[i];
		struct pmuctl_event ev;
		char msg[512];
		int ret;

		if (!(v->pmus & variant->bit))
			continue;
		ran++;
		memset(&ev, 0xa5, sizeof(ev));
		memset(msg, 'x', sizeof(msg));
		ret = pmuctl_event_parse(variant->pmu, v->str, &ev, msg, sizeof(msg));
		EXPECT_EQ(v->ret, ret)
			TH_LOG("line %d: %s: \"%s\": %s", v->line, variant->pmu, v->str, msg);
		if (ret != v->ret)
			continue;
		if (ret >= 0) {
			EXPECT_EQ(v->config, ev.config)
				TH_LOG("line %d: %s: \"%s\"", v->line, variant->pmu, v->str);
			EXPECT_EQ(v->extra, ev.extra)
				TH_LOG("line %d: %s: \"%s\"", v->line, variant->pmu, v->str);
			EXPECT_EQ(0ULL, ev.config & (PMUCTL_CFG_EN | PMUCTL_CFG_INT))
				TH_LOG("line %d: EN/INT left in", v->line);
			EXPECT_TRUE(only_config_extra(&ev)) TH_LOG("line %d", v->line);
		}
		if (ret == 0) {
			EXPECT_STREQ("", msg) TH_LOG("line %d", v->line);
		} else {
			EXPECT_NE('\0', msg[0]) TH_LOG("line %d: no message", v->line);
			EXPECT_NE(NULL, memchr(msg, '\0', sizeof(msg)))
				TH_LOG("line %d: message not terminated", v->line);
		}
		if (v->msg) {
			EXPECT_NE(NULL, strstr(msg, v->msg))
				TH_LOG("line %d: \"%s\" lacks \"%s\"", v->line, msg, v->msg);
		}
	}
	EXPECT_GT(ran, 0U);
	TH_LOG("%u vectors on %s", ran, variant->pmu);
}

/* The message may be NULL, or of any size, and is never overrun. */
TEST_F(names, message_optional_and_bounded)
{
	struct pmuctl_event ev;
	char msg[8];

	EXPECT_EQ(0, pmuctl_event_parse(variant->pmu, "instruction_retired:u",
					&ev, NULL, 0));
	EXPECT_EQ(-ENOENT, pmuctl_event_parse(variant->pmu, "no_such_event",
					      &ev, NULL, 0));
	memset(msg, 'x', sizeof(msg));
	EXPECT_EQ(-ENOENT, pmuctl_event_parse(variant->pmu, "no_such_event",
					      &ev, msg, 4));
	EXPECT_EQ('\0', msg[3]);
	EXPECT_EQ('x', msg[4]);
}

/* ---- raw syntax: no libpfm4 involved ---- */

static const struct vec raw[] = {
	V(.str = "r5300c0", .config = 0x5300c0),
	V(.str = "r1b7:10001", .config = 0x1b7, .extra = 0x10001),
	V(.str = "r301b7:4000000001", .config = 0x301b7, .extra = 0x4000000001ULL),
	V(.str = "r0", .config = 0),
	V(.str = "rABCdef", .config = 0xabcdef),
	V(.str = "rffffffffffffffff:ffffffffffffffff", .config = UINT64_MAX,
	  .extra = UINT64_MAX),
	/* raw is literal: EN and INT are the module's to refuse, not removed */
	V(.str = "r7300c0", .config = 0x7300c0),
	/* malformed: one message naming the string and the syntax */
	V(.str = "r12g4", .ret = -EINVAL, .msg = "r<config>[:<extra>]"),
	V(.str = "r0x5300c0", .ret = -EINVAL, .msg = "r0x5300c0"),
	V(.str = "r5300c0:", .ret = -EINVAL, .msg = "r<config>[:<extra>]"),
	V(.str = "r1b7:10001:1", .ret = -EINVAL, .msg = "r<config>[:<extra>]"),
	V(.str = "r1b7:zz", .ret = -EINVAL, .msg = "r<config>[:<extra>]"),
	V(.str = "r10000000000000000", .ret = -EINVAL, .msg = "64 bits"),
	V(.str = "r1:10000000000000000", .ret = -EINVAL, .msg = "64 bits"),
	V(.str = "", .ret = -EINVAL, .msg = "empty"),
};

#define NR_RAW	(sizeof(raw) / sizeof(raw[0]))

/* Raw strings never reach libpfm4: a PMU it lacks does not matter. */
TEST(raw_syntax)
{
	for (size_t i = 0; i < NR_RAW; i++) {
		const struct vec *v = &raw[i];
		struct pmuctl_event ev;
		char msg[512];
		int ret;

		memset(&ev, 0xa5, sizeof(ev));
		ret = pmuctl_event_parse("no_such_pmu", v->str, &ev, msg, sizeof(msg));
		EXPECT_EQ(v->ret, ret) TH_LOG("line %d: \"%s\": %s", v->line, v->str, msg);
		if (ret != v->ret)
			continue;
		if (!ret) {
			EXPECT_EQ(v->config, ev.config) TH_LOG("line %d", v->line);
			EXPECT_EQ(v->extra, ev.extra) TH_LOG("line %d", v->line);
			EXPECT_TRUE(only_config_extra(&ev)) TH_LOG("line %d", v->line);
			EXPECT_STREQ("", msg) TH_LOG("line %d", v->line);
		} else {
			EXPECT_NE('\0', msg[0]) TH_LOG("line %d: no message", v->line);
		}
		if (v->msg) {
			EXPECT_NE(NULL, strstr(msg, v->msg))
				TH_LOG("line %d: \"%s\" lacks \"%s\"", v->line, msg, v->msg);
		}
	}
}

/* A PMU libpfm4 does not have: -ENODEV, with a message naming it. */
TEST(names_on_unknown_pmu)
{
	struct pmuctl_event ev;
	char msg[256];

	EXPECT_EQ(-ENODEV, pmuctl_event_parse("no_such_pmu", "instruction_retired",
					      &ev, msg, sizeof(msg)));
	EXPECT_NE(NULL, strstr(msg, "no_such_pmu")) TH_LOG("\"%s\"", msg);
}

/*
 * One process, several PMUs: libpfm4 4.13 frees the tables of ix86arch
 * (and of the host's PMUs) at pfm_terminate() yet keeps them active;
 * pmuctl switches freely among PMUs with static tables, and after
 * ix86arch once more, then refuses (-EBUSY) rather than free them again.
 */
TEST(switching_pmus)
{
	static const char *const seq[] = { "knl", "knm", "skl", "knl", "skl",
					   "ix86arch", "knm" };
	struct pmuctl_event ev;
	char msg[256];

	for (size_t i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
		EXPECT_EQ(0, pmuctl_event_parse(seq[i], "instruction_retired:u",
						&ev, msg, sizeof(msg)))
			TH_LOG("step %zu, %s: %s", i, seq[i], msg);
		EXPECT_EQ(0x00c0 | USR, ev.config) TH_LOG("step %zu", i);
	}
	EXPECT_EQ(-EBUSY, pmuctl_event_parse("knl", "instruction_retired:u",
					     &ev, msg, sizeof(msg)));
	EXPECT_NE(NULL, strstr(msg, "one process per PMU")) TH_LOG("\"%s\"", msg);
	/* the PMU in use still works */
	EXPECT_EQ(0, pmuctl_event_parse("knm", "offcore_response_0:dmnd_data_rd:outstanding",
					&ev, msg, sizeof(msg))) TH_LOG("%s", msg);
	EXPECT_EQ(K_DMND_DATA_RD | K_OUTSTANDING, ev.extra);
}

/* ---- lists ---- */

TEST(list_of_names_and_raw)
{
	struct pmuctl_event ev[4];
	unsigned int bad = 99;
	char msg[256];

	memset(ev, 0xa5, sizeof(ev));
	ASSERT_EQ(3, pmuctl_events_parse("knm",
			"instruction_retired:u,r1b7:10001,offcore_response_0:dmnd_data_rd:ddr_near",
			ev, 4, &bad, msg, sizeof(msg))) TH_LOG("%s", msg);
	EXPECT_STREQ("", msg);
	EXPECT_EQ(0x00c0 | USR, ev[0].config);
	EXPECT_EQ(0ULL, ev[0].extra);
	EXPECT_EQ(0x1b7ULL, ev[1].config);
	EXPECT_EQ(0x10001ULL, ev[1].extra);
	EXPECT_EQ(0x01b7 | USR | OS, ev[2].config);
	EXPECT_EQ(K_DMND_DATA_RD | K_DDR_NEAR, ev[2].extra);
	for (int i = 0; i < 3; i++) {
		EXPECT_TRUE(only_config_extra(&ev[i])) TH_LOG("event %d", i);
	}

	/* bad may be NULL; one event is a list */
	EXPECT_EQ(1, pmuctl_events_parse("knm", "r5300c0", ev, 1, NULL, NULL, 0));
	EXPECT_EQ(0x5300c0ULL, ev[0].config);
}

/* A string libpfm4 refuses is kept, composed literally (not a failure). */
TEST(list_keeps_literal_events)
{
	struct pmuctl_event ev[2];
	unsigned int bad = 99;
	char msg[256];

	ASSERT_EQ(2, pmuctl_events_parse("knm",
			"offcore_response_0:dmnd_data_rd:outstanding,offcore_response_1:dmnd_data_rd:outstanding",
			ev, 2, &bad, msg, sizeof(msg))) TH_LOG("%s", msg);
	EXPECT_EQ(0x01b7 | USR | OS, ev[0].config);
	EXPECT_EQ(K_DMND_DATA_RD | K_OUTSTANDING, ev[0].extra);
	EXPECT_EQ(0x02b7 | USR | OS, ev[1].config);
	EXPECT_EQ(K_DMND_DATA_RD | K_OUTSTANDING, ev[1].extra);
}

/* Empty entries anywhere: -EINVAL naming the entry by its index. */
TEST(list_empty_entries)
{
	static const struct {
		const char *list;
		unsigned int bad;
	} cases[] = {
		{ "", 0 }, { ",", 0 }, { ",r1", 0 }, { "r1,", 1 },
		{ "r1,,r2", 1 }, { "r1,r2,", 2 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pmuctl_event ev[4];
		unsigned int bad = 99;
		char msg[256];

		EXPECT_EQ(-EINVAL, pmuctl_events_parse("knm", cases[i].list, ev, 4,
						       &bad, msg, sizeof(msg)))
			TH_LOG("\"%s\"", cases[i].list);
		EXPECT_EQ(cases[i].bad, bad) TH_LOG("\"%s\"", cases[i].list);
		EXPECT_NE(NULL, strstr(msg, "empty")) TH_LOG("\"%s\": \"%s\"",
							      cases[i].list, msg);
	}
}

/* More events than room: -E2BIG at the first that does not fit. */
TEST(list_too_many)
{
	struct pmuctl_event ev[PMUCTL_MAX_EVENTS];
	char list[PMUCTL_MAX_EVENTS * 8 + 8] = "";
	unsigned int bad = 99;
	char msg[256];

	EXPECT_EQ(-E2BIG, pmuctl_events_parse("knm", "r1,r2,r3", ev, 2, &bad,
					      msg, sizeof(msg)));
	EXPECT_EQ(2U, bad);
	EXPECT_NE('\0', msg[0]);

	/* PMUCTL_MAX_EVENTS fit, one more does not */
	for (int i = 0; i < PMUCTL_MAX_EVENTS; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%sr%x",
			 i ? "," : "", 0x100 + i);
	EXPECT_EQ(PMUCTL_MAX_EVENTS, pmuctl_events_parse("knm", list, ev,
							 PMUCTL_MAX_EVENTS, &bad,
							 msg, sizeof(msg)));
	EXPECT_EQ(0x100 + PMUCTL_MAX_EVENTS - 1, (int)ev[PMUCTL_MAX_EVENTS - 1].config);
	strcat(list, ",r1");
	EXPECT_EQ(-E2BIG, pmuctl_events_parse("knm", list, ev, PMUCTL_MAX_EVENTS,
					      &bad, msg, sizeof(msg)));
	EXPECT_EQ((unsigned int)PMUCTL_MAX_EVENTS, bad);
}

/* A failing event: its error, its index, its message. */
TEST(list_reports_the_failing_event)
{
	struct pmuctl_event ev[4];
	unsigned int bad = 99;
	char msg[256];

	EXPECT_EQ(-ENOENT, pmuctl_events_parse("knm",
			"instruction_retired:u,no_such_event,r1", ev, 4, &bad,
			msg, sizeof(msg)));
	EXPECT_EQ(1U, bad);
	EXPECT_NE(NULL, strstr(msg, "no_such_event")) TH_LOG("\"%s\"", msg);

	EXPECT_EQ(-EINVAL, pmuctl_events_parse("knm", "r1,r2,r0x3", ev, 4, &bad,
					       msg, sizeof(msg)));
	EXPECT_EQ(2U, bad);
	EXPECT_NE(NULL, strstr(msg, "r0x3")) TH_LOG("\"%s\"", msg);
}

TEST_HARNESS_MAIN
