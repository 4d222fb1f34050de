// SPDX-License-Identifier: GPL-2.0
/*
 * Offcore response on silicon (KNL/KNM, Skylake, Ice Lake server,
 * Sapphire Rapids): both OFFCORE_RSP MSRs count, a value shared by two
 * sessions counts once for both, an event moved from RSP_0 to RSP_1
 * counts like the original, and the KNL/KNM
 * average-latency pair gives a latency a memory access can have.
 *
 * Offcore requests are those that leave the core: L2 misses.  The
 * buffers are far larger than any L2 of these parts (1 MiB per KNL/KNM
 * tile and per Skylake-SP core, 256 KiB on client Skylake), so a pass
 * over them misses L2 on nearly every line.  Events are named as libpfm4
 * names them for the session's PMU (pmuctl_pfm_pmu_name()).
 *
 * Each test SKIPs with its reason without a real PMU (hw.h), or on a
 * model without the MSRs it needs.  The emulated PMU (hw.h) holds the
 * OFFCORE_RSP values but counts nothing with them, nor memory traffic at
 * all: there every test SKIPs, saying so.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "hw.h"

/*
 * Demand data reads, any response: on both MSRs, by name.  libpfm4's icx
 * and spr tables spell request and response as one umask (Intel's OCR
 * names): offcore_response_0 is 0x01b7 on Ice Lake, 0x012a on Sapphire
 * Rapids.
 */
#define DATA_RSP0	(ocr_names ? "offcore_response_0:demand_data_rd_any_response:u" : \
			 "offcore_response_0:dmnd_data_rd:any_response:u")
#define DATA_RSP1	(ocr_names ? "offcore_response_1:demand_data_rd_any_response:u" : \
			 "offcore_response_1:dmnd_data_rd:any_response:u")
/* Demand code reads: another value for RSP_0, which the loops barely cause. */
#define CODE_RSP0	(ocr_names ? "offcore_response_0:demand_code_rd_any_response:u" : \
			 "offcore_response_0:dmnd_code_rd:any_response:u")
/* The KNL/KNM average-latency pair (libpfm4 knm man page, OUTSTANDING). */
#define LAT_OUTSTANDING	"offcore_response_0:dmnd_data_rd:outstanding:u"
#define LAT_RESPONSES	"offcore_response_1:dmnd_data_rd:any_response:u"

#define STREAM_SIZE	(64UL << 20)
#define CHASE_SIZE	(16UL << 20)
#define CHASE_STEPS	(CHASE_SIZE / HW_LINE)
#define DRAM_SIZE	(64UL << 20)
#define L2_SIZE		(256UL << 10)
#define LAT_STEPS	200000ULL
#define MOVE_ROUNDS	3

FIXTURE(offcore) {
	struct pmuctl *p, *q;
	void *buf;
	size_t size;
	void *buf2;
	size_t size2;
};

FIXTURE_SETUP(offcore)
{
}

FIXTURE_TEARDOWN(offcore)
{
	pmuctl_close(self->q);
	pmuctl_close(self->p);
	hw_buf_free(self->buf, self->size);
	hw_buf_free(self->buf2, self->size2);
}

/* The session's model has libpfm4's OCR-style names (set by REQUIRE_OFFCORE). */
static bool ocr_names;

static bool has_offcore(uint32_t model)
{
	ocr_names = model == PMUCTL_MODEL_ICL || model == PMUCTL_MODEL_ICX ||
		    model == PMUCTL_MODEL_SPR;
	return model == PMUCTL_MODEL_KNL || model == PMUCTL_MODEL_KNM ||
	       model == PMUCTL_MODEL_SKL || ocr_names;
}

/* OFFCORE_RSP MSRs pmuctl drives, but no libpfm4 4.13 table to name them. */
static bool offcore_unnamed(uint32_t model)
{
	return model == PMUCTL_MODEL_GNR || model == PMUCTL_MODEL_ADL_GLC ||
	       model == PMUCTL_MODEL_ADL_GRT || model == PMUCTL_MODEL_SRF ||
	       model == PMUCTL_MODEL_LNL_LNC || model == PMUCTL_MODEL_LNL_SKT;
}

/* Offcore responses count nothing on the emulated PMU. */
#define SKIP_IF_EMULATED_OFFCORE()					\
	HW_SKIP_IF_EMULATED("offcore response events count 0 there (OFFCORE_RSP_0/1 hold their values, nothing counts them)")

#define REQUIRE_OFFCORE(p) do {						\
	uint32_t __m = pmuctl_get_info(p)->pmu_model;			\
									\
	SKIP_IF_EMULATED_OFFCORE();					\
	if (offcore_unnamed(__m))					\
		SKIP(return, "libpfm4 4.13 has no %s table to name its offcore events", \
		     pmuctl_model_name(__m));				\
	if (!has_offcore(__m))						\
		SKIP(return, "the %s model has no OFFCORE_RSP MSRs pmuctl drives", \
		     pmuctl_model_name(__m));				\
} while (0)

#define ALLOC(self, field, sz) do {					\
	(self)->field = hw_buf_alloc(sz);				\
	ASSERT_NE(NULL, (self)->field) TH_LOG("no %lu MiB buffer", (sz) >> 20); \
} while (0)

/* Within 1% (or 16 events): two counters of one event over one window. */
static bool alike(uint64_t a, uint64_t b)
{
	uint64_t d = a > b ? a - b : b - a;
	uint64_t big = a > b ? a : b;

	return d <= big / 100 + 16;
}

/*
 * DMND_DATA_RD:ANY_RESPONSE on RSP_0 and, as an event of its own, on
 * RSP_1: the same requests through both MSRs, so over one memory stream
 * both count, and count alike (the two reads are one rdpmc apart).
 */
TEST_F(offcore, rsp0_and_rsp1_count_a_memory_stream_alike)
{
	struct pmuctl_event ev[2];
	const struct pmuctl_counters *c;
	uint64_t b[2], a[2], d[2];
	int cpu;

	HW_OPEN(&self->p);
	REQUIRE_OFFCORE(self->p);
	HW_NAMED(self->p, DATA_RSP0, &ev[0]);
	HW_NAMED(self->p, DATA_RSP1, &ev[1]);
	HW_PROGRAM(self->p, -1, ev, 2, HW_NEED_RDPMC, &cpu);
	ASSERT_EQ(MSR_OFFCORE_RSP0, ev[0].extra_msr);
	ASSERT_EQ(MSR_OFFCORE_RSP1, ev[1].extra_msr);
	self->size = STREAM_SIZE;
	ALLOC(self, buf, self->size);
	c = pmuctl_get_counters(self->p);
	ASSERT_EQ(0, pmuctl_start(self->p));

	pmuctl_read_counters_serialized(c, b, 2);
	hw_stream(self->buf, self->size);
	pmuctl_read_counters_serialized(c, a, 2);
	pmuctl_deltas(c, b, a, d, 2);

	TH_LOG("%lu MiB stream, %lu lines: RSP_0 %llu, RSP_1 %llu",
	       self->size >> 20, self->size / HW_LINE,
	       (unsigned long long)d[0], (unsigned long long)d[1]);
	EXPECT_NE(0ULL, d[0]);
	EXPECT_NE(0ULL, d[1]);
	EXPECT_TRUE(alike(d[0], d[1]))
		TH_LOG("RSP_0 counted %llu, RSP_1 %llu for the same requests",
		       (unsigned long long)d[0], (unsigned long long)d[1]);
}

/* The holding of @msr on @cpu, as INFO reports it: its refcount, or -1. */
static int xreg_refcount(struct pmuctl *p, int cpu, uint32_t msr)
{
	unsigned int nr = pmuctl_get_info(p)->nr_cpus;
	struct pmuctl_holding *h = calloc(nr, sizeof(*h));
	int got, ret = -1;

	if (!h)
		return -1;
	got = pmuctl_get_holdings(p, h, nr);
	for (int i = 0; i < got; i++) {
		if (h[i].cpu != (uint32_t)cpu)
			continue;
		for (int x = 0; x < PMUCTL_HOLDING_XREGS; x++)
			if (h[i].xreg[x].msr == msr)
				ret = h[i].xreg[x].refcount;
	}
	free(h);
	return ret;
}

/*
 * Two sessions ask for the same RSP_0 value on one CPU: they share the
 * MSR (refcount 2), each on a counter of its own, and over one memory
 * stream both read the same count.
 */
TEST_F(offcore, two_sessions_sharing_one_offcore_value_read_the_same_counts)
{
	struct pmuctl_event ev_p, ev_q;
	const struct pmuctl_counters *cp, *cq;
	uint64_t bp, bq, ap, aq, dp, dq;
	int cpu, cpu_q;

	HW_OPEN(&self->p);
	REQUIRE_OFFCORE(self->p);
	HW_OPEN(&self->q);
	HW_NAMED(self->p, DATA_RSP0, &ev_p);
	ev_q = ev_p;
	HW_PROGRAM(self->p, -1, &ev_p, 1, HW_NEED_RDPMC, &cpu);
	HW_PROGRAM(self->q, cpu, &ev_q, 1, HW_NEED_RDPMC, &cpu_q);
	ASSERT_EQ(MSR_OFFCORE_RSP0, ev_p.extra_msr);
	ASSERT_EQ(MSR_OFFCORE_RSP0, ev_q.extra_msr);
	ASSERT_NE(ev_p.counter, ev_q.counter);
	EXPECT_EQ(2, xreg_refcount(self->p, cpu, MSR_OFFCORE_RSP0));
	self->size = STREAM_SIZE;
	ALLOC(self, buf, self->size);
	cp = pmuctl_get_counters(self->p);
	cq = pmuctl_get_counters(self->q);
	ASSERT_EQ(0, pmuctl_start(self->p));
	ASSERT_EQ(0, pmuctl_start(self->q));

	bp = pmuctl_read_counter_serialized(cp, 0);
	bq = pmuctl_read_counter_serialized(cq, 0);
	hw_stream(self->buf, self->size);
	ap = pmuctl_read_counter_serialized(cp, 0);
	aq = pmuctl_read_counter_serialized(cq, 0);
	dp = pmuctl_delta(cp, 0, bp, ap);
	dq = pmuctl_delta(cq, 0, bq, aq);

	TH_LOG("session 1: %llu, session 2: %llu", (unsigned long long)dp,
	       (unsigned long long)dq);
	EXPECT_NE(0ULL, dp);
	EXPECT_TRUE(alike(dp, dq))
		TH_LOG("sessions sharing RSP_0 read %llu and %llu",
		       (unsigned long long)dp, (unsigned long long)dq);
}

/* Demand data reads (event 0 of @p) over one pass of the chase from @start. */
static uint64_t chase_count(struct pmuctl *p, void *start)
{
	const struct pmuctl_counters *c = pmuctl_get_counters(p);
	uint64_t b, a;

	b = pmuctl_read_counter_serialized(c, 0);
	hw_chase(start, CHASE_STEPS);
	a = pmuctl_read_counter_serialized(c, 0);
	return pmuctl_delta(c, 0, b, a);
}

/*
 * An RSP_0 event whose MSR holds another session's value moves to RSP_1
 * (config rewritten, extra MSR 0x1a7) and must count what it counts on
 * RSP_0.  The two cannot run at once (an identical value is shared, never
 * moved), so the original and the moved event take turns over the same
 * random chase: every step a demand read that misses L2 (at least half
 * of CHASE_STEPS: the L2 holds a sixteenth of the buffer at most), the
 * same count each pass (medians of MOVE_ROUNDS within 10%).  The other
 * value, demand code reads, counts next to nothing here: a move that
 * counted it instead would be far off.
 */
TEST_F(offcore, moved_event_counts_like_the_original)
{
	uint64_t orig[MOVE_ROUNDS], moved[MOVE_ROUNDS], mo, mm;
	struct pmuctl_event data, code, ev;
	void *start;
	int cpu;

	HW_OPEN(&self->p);
	REQUIRE_OFFCORE(self->p);
	HW_OPEN(&self->q);
	HW_NAMED(self->p, DATA_RSP0, &data);
	HW_NAMED(self->p, CODE_RSP0, &code);
	self->size = CHASE_SIZE;
	ALLOC(self, buf, self->size);
	start = hw_chase_build(self->buf, self->size);
	ASSERT_NE(NULL, start);
	cpu = -1;

	for (int r = 0; r < MOVE_ROUNDS; r++) {
		/* The original: the data event alone, on RSP_0. */
		ev = data;
		HW_PROGRAM(self->q, cpu, &ev, 1, HW_NEED_RDPMC, &cpu);
		ASSERT_EQ(MSR_OFFCORE_RSP0, ev.extra_msr);
		ASSERT_EQ(0, pmuctl_start(self->q));
		orig[r] = chase_count(self->q, start);
		ASSERT_EQ(0, pmuctl_release(self->q));

		/* Moved: the other session holds RSP_0 with the code value. */
		ev = code;
		HW_PROGRAM(self->p, cpu, &ev, 1, HW_NEED_RDPMC, &cpu);
		ASSERT_EQ(MSR_OFFCORE_RSP0, ev.extra_msr);
		ev = data;
		HW_PROGRAM(self->q, cpu, &ev, 1, HW_NEED_RDPMC, &cpu);
		ASSERT_EQ(MSR_OFFCORE_RSP1, ev.extra_msr);
		ASSERT_NE(ev.config, ev.config_used);
		ASSERT_EQ(0, pmuctl_start(self->p));
		ASSERT_EQ(0, pmuctl_start(self->q));
		moved[r] = chase_count(self->q, start);
		ASSERT_EQ(0, pmuctl_release(self->q));
		ASSERT_EQ(0, pmuctl_release(self->p));
		TH_LOG("round %d: original %llu, moved %llu (config 0x%llx -> 0x%llx)",
		       r, (unsigned long long)orig[r],
		       (unsigned long long)moved[r],
		       (unsigned long long)data.config,
		       (unsigned long long)ev.config_used);
	}
	mo = hw_median(orig, MOVE_ROUNDS);
	mm = hw_median(moved, MOVE_ROUNDS);
	EXPECT_TRUE(mo >= CHASE_STEPS / 2)
		TH_LOG("original counted %llu for %lu L2-missing steps",
		       (unsigned long long)mo, CHASE_STEPS);
	EXPECT_TRUE(mm + mo / 10 >= mo && mm <= mo + mo / 10)
		TH_LOG("moved event counted %llu, the original %llu (medians)",
		       (unsigned long long)mm, (unsigned long long)mo);
}

/* Deltas of events 0..2 of @p over @steps of the chase from @start. */
static void chase_measure(struct pmuctl *p, void *start, uint64_t steps,
			  uint64_t d[3])
{
	const struct pmuctl_counters *c = pmuctl_get_counters(p);
	uint64_t b[3], a[3];

	pmuctl_read_counters_serialized(c, b, 3);
	hw_chase(start, steps);
	pmuctl_read_counters_serialized(c, a, 3);
	pmuctl_deltas(c, b, a, d, 3);
}

/*
 * KNL/KNM average latency (libpfm4 knm man page): OUTSTANDING on RSP_0
 * adds, every cycle, the demand data reads in flight; RSP_1 with the same
 * requests and ANY_RESPONSE counts them once; the ratio is their average
 * latency in core cycles.  Over a random chase through 64 MiB (memory:
 * DDR, or MCDRAM in cache mode) every step is one such read, alone in
 * flight, so:
 *   - RSP_1 counts at least half the steps (the L2 holds 1/64 of them);
 *   - the latency is at most the cycles of a step (+10%: the request
 *     cannot outlast the step that waits for it);
 *   - it is above the cycles of a step of a chase that stays in L2
 *     (256 KiB): no memory access is as fast as an L2 hit.  That chase
 *     sends (nearly) nothing offcore, so its step time stands for its
 *     latency.
 */
TEST_F(offcore, average_latency_of_a_memory_chase_is_plausible_and_above_l2)
{
	struct pmuctl_event ev[3];
	uint64_t dram[3], l2[3];
	double lat, dram_step, l2_step;
	uint32_t model;
	void *s_dram, *s_l2;
	int cpu;

	HW_OPEN(&self->p);
	SKIP_IF_EMULATED_OFFCORE();
	model = pmuctl_get_info(self->p)->pmu_model;
	if (model != PMUCTL_MODEL_KNL && model != PMUCTL_MODEL_KNM)
		SKIP(return, "OUTSTANDING (offcore bit 38) exists on KNL/KNM only, not on %s",
		     pmuctl_model_name(model));
	HW_NAMED(self->p, LAT_OUTSTANDING, &ev[0]);
	HW_NAMED(self->p, LAT_RESPONSES, &ev[1]);
	ev[2] = hw_event(EV_CYCLES | USR, 0, 0);
	HW_PROGRAM(self->p, -1, ev, 3, HW_NEED_RDPMC, &cpu);
	self->size = DRAM_SIZE;
	ALLOC(self, buf, self->size);
	self->size2 = L2_SIZE;
	ALLOC(self, buf2, self->size2);
	s_dram = hw_chase_build(self->buf, self->size);
	s_l2 = hw_chase_build(self->buf2, self->size2);
	ASSERT_NE(NULL, s_dram);
	ASSERT_NE(NULL, s_l2);
	ASSERT_EQ(0, pmuctl_start(self->p));

	chase_measure(self->p, s_dram, LAT_STEPS, dram);
	/* Two laps of the small chase first: then it is all in L2. */
	s_l2 = hw_chase(s_l2, 2 * L2_SIZE / HW_LINE);
	chase_measure(self->p, s_l2, LAT_STEPS, l2);

	ASSERT_NE(0ULL, dram[1]);
	lat = (double)dram[0] / (double)dram[1];
	dram_step = (double)dram[2] / LAT_STEPS;
	l2_step = (double)l2[2] / LAT_STEPS;
	TH_LOG("memory chase: outstanding %llu / responses %llu = %.1f cycles, %.1f cycles per step",
	       (unsigned long long)dram[0], (unsigned long long)dram[1], lat,
	       dram_step);
	TH_LOG("L2 chase: %.1f cycles per step, %llu offcore responses",
	       l2_step, (unsigned long long)l2[1]);
	EXPECT_TRUE(dram[1] >= LAT_STEPS / 2)
		TH_LOG("%llu responses for %llu L2-missing steps",
		       (unsigned long long)dram[1], LAT_STEPS);
	EXPECT_TRUE(lat <= dram_step * 1.1)
		TH_LOG("latency %.1f cycles exceeds the %.1f cycles of a step",
		       lat, dram_step);
	EXPECT_TRUE(lat > l2_step)
		TH_LOG("latency %.1f cycles not above an L2 hit's %.1f", lat,
		       l2_step);
}

TEST_HARNESS_MAIN
