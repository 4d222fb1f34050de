// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctl_delta() and pmuctl_deltas() with raw values injected by hand: the
 * wrap-safe subtraction of the inline read path, for the 40-bit counters
 * of Knights Landing/Mill and the 48-bit ones of Skylake (FACTS.md 1:
 * deltas mask with 2^width - 1).  The struct pmuctl_counters is built
 * here as a PROGRAM would leave it; no device, no PMU.
 */
#include <stdint.h>
#include <string.h>

#include "kselftest_harness.h"

#include "libpmuctl.h"

#define M40	((1ULL << 40) - 1)
#define M48	((1ULL << 48) - 1)

/* A group of @n events whose counters are all @mask wide. */
static struct pmuctl_counters group(unsigned int n, uint64_t mask)
{
	struct pmuctl_counters c;

	memset(&c, 0, sizeof(c));
	for (unsigned int i = 0; i < n; i++) {
		c.ecx[i] = i;
		c.mask[i] = mask;
	}
	c.nr = n;
	return c;
}

struct dvec {
	int line;
	uint64_t mask;
	uint64_t before;
	uint64_t after;
	uint64_t delta;
};

#define D(...)	{ .line = __LINE__, __VA_ARGS__ }

static const struct dvec dvecs[] = {
	/* no wrap */
	D(.mask = M40, .before = 100, .after = 250, .delta = 150),
	D(.mask = M48, .before = 100, .after = 250, .delta = 150),
	D(.mask = M40, .before = 0, .after = M40, .delta = M40),
	D(.mask = M48, .before = 0, .after = M48, .delta = M48),
	D(.mask = M48, .before = 1ULL << 40, .after = (1ULL << 40) + 7, .delta = 7),
	/* equal values: nothing counted (not a full wrap) */
	D(.mask = M40, .before = 12345, .after = 12345, .delta = 0),
	D(.mask = M48, .before = M48, .after = M48, .delta = 0),
	/* across the top: 5 events to the wrap, 3 after it */
	D(.mask = M40, .before = (1ULL << 40) - 5, .after = 3, .delta = 8),
	D(.mask = M48, .before = (1ULL << 48) - 5, .after = 3, .delta = 8),
	D(.mask = M40, .before = M40, .after = 0, .delta = 1),
	D(.mask = M48, .before = M48, .after = 0, .delta = 1),
	/* one short of a full turn */
	D(.mask = M40, .before = 1, .after = 0, .delta = M40),
	D(.mask = M48, .before = 1, .after = 0, .delta = M48),
	/* the width matters: a 40-bit wrap read as 48 bits is wrong by 2^48 - 2^40 */
	D(.mask = M48, .before = (1ULL << 40) - 5, .after = 3,
	  .delta = (1ULL << 48) - (1ULL << 40) + 8),
	/* a full 64-bit mask is plain subtraction */
	D(.mask = UINT64_MAX, .before = UINT64_MAX - 1, .after = 2, .delta = 4),
};

#define NR_DVECS	(sizeof(dvecs) / sizeof(dvecs[0]))

TEST(delta_masks_to_the_counter_width)
{
	for (size_t i = 0; i < NR_DVECS; i++) {
		const struct dvec *v = &dvecs[i];
		struct pmuctl_counters c = group(3, v->mask);

		/* the event's own mask: put the vector on event 2 */
		c.mask[0] = c.mask[1] = 0xff;
		EXPECT_EQ(v->delta, pmuctl_delta(&c, 2, v->before, v->after))
			TH_LOG("line %d", v->line);
	}
}

/*
 * All vectors at once, one per event, each with its own width: what a
 * group of fixed and generic counters of different widths needs.
 */
TEST(deltas_use_each_events_mask)
{
	struct pmuctl_counters c;
	uint64_t before[PMUCTL_MAX_EVENTS], after[PMUCTL_MAX_EVENTS];
	uint64_t out[PMUCTL_MAX_EVENTS + 1];

	ASSERT_LE(NR_DVECS, (size_t)PMUCTL_MAX_EVENTS);
	memset(&c, 0, sizeof(c));
	for (size_t i = 0; i < NR_DVECS; i++) {
		c.ecx[i] = (uint32_t)i;
		c.mask[i] = dvecs[i].mask;
		before[i] = dvecs[i].before;
		after[i] = dvecs[i].after;
	}
	c.nr = NR_DVECS;
	out[NR_DVECS] = 0x5a5a5a5a5a5a5a5aULL;
	pmuctl_deltas(&c, before, after, out, NR_DVECS);
	for (size_t i = 0; i < NR_DVECS; i++) {
		EXPECT_EQ(dvecs[i].delta, out[i]) TH_LOG("line %d", dvecs[i].line);
	}
	/* exactly @n written */
	EXPECT_EQ(0x5a5a5a5a5a5a5a5aULL, out[NR_DVECS]);
}

/*
 * A 7-counter snapshot (3 fixed + 4 generic, as on Skylake: 48 bits each;
 * on KNM: 40), the values read by the inline path simulated: before near
 * the top of each counter, after past the wrap.
 */
TEST(deltas_of_a_snapshot_across_the_wrap)
{
	static const uint64_t masks[] = { M48, M40 };

	for (size_t m = 0; m < sizeof(masks) / sizeof(masks[0]); m++) {
		struct pmuctl_counters c = group(7, masks[m]);
		uint64_t before[7], after[7], out[7];

		for (unsigned int i = 0; i < 7; i++) {
			before[i] = masks[m] - i;		/* i + 1 to the wrap */
			after[i] = 10 * i;			/* then 10 i more */
		}
		pmuctl_deltas(&c, before, after, out, 7);
		for (unsigned int i = 0; i < 7; i++) {
			EXPECT_EQ((uint64_t)(i + 1 + 10 * i), out[i])
				TH_LOG("mask %#llx, event %u",
				       (unsigned long long)masks[m], i);
		}
	}
}

/* n = 0 writes nothing. */
TEST(deltas_of_nothing)
{
	struct pmuctl_counters c = group(1, M40);
	uint64_t before = 1, after = 2, out = 77;

	pmuctl_deltas(&c, &before, &after, &out, 0);
	EXPECT_EQ(77ULL, out);
}

/*
 * Topdown metrics as perf scales them (Linux 6.12
 * icl_get_metrics_event_value(): slots * byte / 0xff): byte i of
 * PERF_METRICS is metric i's share in 255ths.
 */
TEST(topdown_slots_scale_each_byte_of_perf_metrics)
{
	const uint64_t metrics = 0x11000000008033ffULL;

	EXPECT_EQ(1000ULL, pmuctl_topdown_slots(1000, metrics, 0));	/* 0xff: all */
	EXPECT_EQ(200ULL, pmuctl_topdown_slots(1000, metrics, 1));	/* 0x33 */
	EXPECT_EQ(501ULL, pmuctl_topdown_slots(1000, metrics, 2));	/* 0x80: 128000/255 */
	EXPECT_EQ(0ULL, pmuctl_topdown_slots(1000, metrics, 3));
	EXPECT_EQ(66ULL, pmuctl_topdown_slots(1000, metrics, 7));	/* 0x11 */
	EXPECT_EQ(0ULL, pmuctl_topdown_slots(1000, metrics, 8));	/* no such byte */
	/* the largest slots count, the largest share: no overflow */
	EXPECT_EQ((1ULL << 48) - 1,
		  pmuctl_topdown_slots((1ULL << 48) - 1, 0xff, 0));
	/* bits past the counter's 48 are not slots */
	EXPECT_EQ(1000ULL, pmuctl_topdown_slots(1000 | 1ULL << 50, metrics, 0));
}

TEST_HARNESS_MAIN
