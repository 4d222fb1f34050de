// SPDX-License-Identifier: GPL-2.0
/*
 * The LIKWID MarkerAPI drop-in (user/likwid.c, libpmuctl-likwid) on any
 * host, against the made-up module of fake_dev.h: a program's markers, as
 * LIKWID documents them, on the session "pmuctl stat --regions" hands
 * over ($PMUCTL_REGIONS), every value read chosen by the test (the
 * counters are numbers no PMU has: each read faults into the emulation,
 * which the fake answers).  (SKIP where such an rdpmc does not fault.)
 *
 *  - markers before LIKWID_MARKER_INIT, and without a hand-over, do
 *    nothing: GET gives 0 events, 0 calls;
 *  - START/STOP add the counts; GET gives the calling thread's counts and
 *    calls, as many events as asked for, time 0; RESET zeroes them;
 *  - a STOP without START is refused (negative) and counted as a misuse;
 *  - LIKWID_MARKER_CLOSE stops the markers; the results stay.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>

#include "fake_dev.h"

#define LIKWID_PERFMON
#include "likwid/likwid-marker.h"

static void set_values(uint64_t a)
{
	fake.values[0] = a;
	fake.values[1] = 2 * a;
	fake.values[2] = 3 * a;
}

TEST(markers_count_through_the_hand_over_as_likwid_documents_them)
{
	struct pmuctl_regions *r;
	uint64_t calls, counts[3];
	double ev[8], t = -1;
	int n = 8, c = -1, fd;
	char env[128];

	fake_reset(PMUCTL_RDPMC_NONE, PMUCTL_BACKEND_MSR, 48, 48);
	fake_unreal_counters();

	/* Before INIT: off. */
	EXPECT_EQ(0, LIKWID_MARKER_START("a"));
	EXPECT_EQ(0, LIKWID_MARKER_STOP("a"));
	LIKWID_MARKER_GET("a", &n, ev, &t, &c);
	EXPECT_EQ(0, n);
	EXPECT_EQ(0, c);

	fd = open("/dev/null", O_RDWR);
	ASSERT_LE(0, fd);
	snprintf(env, sizeof(env), "fd=%d ev=%x/300c0,%x/3003c,%x/300c4", fd,
		 fake.counters[0], fake.counters[1], fake.counters[2]);
	setenv("PMUCTL_REGIONS", env, 1);
	setenv("PMUCTL_REGIONS_EVENTS", "instructions,cycles,branches", 1);
	LIKWID_MARKER_INIT;
	LIKWID_MARKER_THREADINIT;
	ASSERT_EQ(0, pmuctl_regions_env(&r));
	EXPECT_EQ(0, LIKWID_MARKER_REGISTER("a"));

	fake.nr_read = 0;
	set_values(10);
	EXPECT_EQ(0, LIKWID_MARKER_START("a"));
	if (!fake.nr_read)
		SKIP(return, "rdpmc of a counter no PMU has did not fault: the emulation is never reached");
	set_values(17);
	EXPECT_EQ(0, LIKWID_MARKER_STOP("a"));
	set_values(20);
	EXPECT_EQ(0, LIKWID_MARKER_START("a"));
	set_values(21);
	EXPECT_EQ(0, LIKWID_MARKER_STOP("a"));

	n = 8;
	LIKWID_MARKER_GET("a", &n, ev, &t, &c);
	EXPECT_EQ(3, n);
	EXPECT_EQ(2, c);
	EXPECT_EQ(0.0, t);
	EXPECT_EQ(8.0, ev[0]);
	EXPECT_EQ(16.0, ev[1]);
	EXPECT_EQ(24.0, ev[2]);
	/* Room for two: two given. */
	n = 2;
	ev[2] = -1;
	LIKWID_MARKER_GET("a", &n, ev, &t, &c);
	EXPECT_EQ(2, n);
	EXPECT_EQ(-1.0, ev[2]);

	/* A region never entered: 0 calls. */
	n = 8;
	LIKWID_MARKER_GET("never", &n, ev, &t, &c);
	EXPECT_EQ(0, c);

	/* STOP without START: refused and counted. */
	EXPECT_GT(0, LIKWID_MARKER_STOP("b"));
	EXPECT_EQ(1U, pmuctl_regions_misuse(r, PMUCTL_REGION_MISUSE_EXIT_WITHOUT_ENTER));

	EXPECT_EQ(0, LIKWID_MARKER_RESET("a"));
	n = 8;
	LIKWID_MARKER_GET("a", &n, ev, &t, &c);
	EXPECT_EQ(0, c);
	EXPECT_EQ(0.0, ev[0]);

	/* CLOSE: the markers stop, what was counted stays. */
	set_values(30);
	EXPECT_EQ(0, LIKWID_MARKER_START("a"));
	set_values(31);
	EXPECT_EQ(0, LIKWID_MARKER_STOP("a"));
	LIKWID_MARKER_CLOSE;
	set_values(40);
	EXPECT_EQ(0, LIKWID_MARKER_START("a"));
	set_values(50);
	EXPECT_EQ(0, LIKWID_MARKER_STOP("a"));
	ASSERT_EQ(0, pmuctl_region_get(r, 0, &calls, counts, 3));
	EXPECT_EQ(1U, calls);
	EXPECT_EQ(1U, counts[0]);
	LIKWID_MARKER_SWITCH;
}

TEST_HARNESS_MAIN
