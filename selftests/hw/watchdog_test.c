// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctl next to perf on silicon (FACTS 3): the NMI watchdog is a perf
 * event, and perf reserves every generic counter while it has one, so
 * with kernel.nmi_watchdog=1 PROGRAM must fail with EBUSY and
 * PMUCTL_R_PERF_BUSY, whose text names the fix; with
 * kernel.nmi_watchdog=0 counting works.
 *
 * The tests change kernel.nmi_watchdog only when run as root with
 * PMUCTL_HWTEST_TOGGLE_WATCHDOG=1, and put the old value back in the
 * fixture's teardown (which runs after a failed ASSERT too); otherwise a
 * test that needs the other setting SKIPs saying how to get it.  On the
 * emulated PMU (hw.h), whose guests are test machines booted for the
 * run, toggling is the default (=0 turns it off), so both tests run in
 * every such guest, with the watchdog on at boot or off.
 *
 * Each test SKIPs with its reason without a real PMU (hw.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "hw.h"

#define NMI_WATCHDOG	"/proc/sys/kernel/nmi_watchdog"
#define TOGGLE_ENV	"PMUCTL_HWTEST_TOGGLE_WATCHDOG"
/* kernel/watchdog_perf.c (watchdog_hld.c in 6.1) once the perf detector works. */
#define PERF_WATCHDOG_MSG	"NMI watchdog: Enabled"

FIXTURE(watchdog) {
	struct pmuctl *p;
	int restore;		/* the value to write back, or -1 */
};

FIXTURE_SETUP(watchdog)
{
	self->restore = -1;
}

FIXTURE_TEARDOWN(watchdog)
{
	pmuctl_close(self->p);
	if (self->restore >= 0)
		hw_write_str(NMI_WATCHDOG, self->restore ? "1" : "0");
}

static bool may_toggle(void)
{
	const char *env = getenv(TOGGLE_ENV);

	if (geteuid() != 0)
		return false;
	if (env && *env)
		return !strcmp(env, "1");
	return hw_emulated();
}

/* kernel.nmi_watchdog now: 0, 1, or -errno (no lockup detector). */
static int watchdog_get(void)
{
	uint64_t v;
	int ret = hw_read_u64(NMI_WATCHDOG, &v);

	return ret ? ret : (int)!!v;
}

/* Set kernel.nmi_watchdog to @want, remembering the old value. */
#define WATCHDOG_SET(self, want, now) do {				\
	ASSERT_EQ(0, hw_write_str(NMI_WATCHDOG, (want) ? "1" : "0"));	\
	(self)->restore = (now);					\
	ASSERT_EQ((want), watchdog_get());				\
} while (0)

/*
 * kernel.nmi_watchdog=1 (set for the test if it was 0 and toggling is
 * allowed): PROGRAM of one generic counter fails with EBUSY and
 * PERF_BUSY, and the library's message names kernel.nmi_watchdog.  A
 * success is a failure only where the kernel log shows the perf NMI
 * watchdog at work; elsewhere perf holds nothing and the test SKIPs.
 */
TEST_F(watchdog, program_refused_with_perf_busy_while_the_nmi_watchdog_runs)
{
	struct pmuctl_event ev = hw_event(EV_CYCLES | USR, 0, GONLY);
	struct pmuctl_error err;
	char msg[256];
	int now, ret;

	HW_OPEN(&self->p);
	now = watchdog_get();
	if (now < 0)
		SKIP(return, "no %s: this kernel has no lockup detector", NMI_WATCHDOG);
	if (now == 0) {
		if (!may_toggle())
			SKIP(return, "kernel.nmi_watchdog=0: nothing holds the counters; as root, %s=1 sets it to 1 for this test",
			     TOGGLE_ENV);
		WATCHDOG_SET(self, 1, now);
	}

	ret = pmuctl_program_cpu(self->p, -1, &ev, 1, &err);
	if (ret >= 0) {
		if (hw_kmsg_has(PERF_WATCHDOG_MSG)) {
			EXPECT_EQ(-EBUSY, ret)
				TH_LOG("the perf NMI watchdog runs ('%s' in the kernel log) yet PROGRAM got counter 0x%x",
				       PERF_WATCHDOG_MSG, ev.counter);
			return;
		}
		SKIP(return, "kernel.nmi_watchdog=1 but no perf NMI watchdog ('%s' not in the kernel log): perf holds no counter",
		     PERF_WATCHDOG_MSG);
	}
	EXPECT_EQ(-EBUSY, ret);
	EXPECT_EQ((uint32_t)PMUCTL_R_PERF_BUSY, err.reason)
		TH_LOG("refused with %s", pmuctl_reason_name(err.reason));
	pmuctl_strerror(ret, &err, msg, sizeof(msg));
	TH_LOG("%s", msg);
	EXPECT_NE(NULL, strstr(msg, "kernel.nmi_watchdog=0"))
		TH_LOG("the message does not say what to do: %s", msg);
}

#define LOOP_N		100000ULL

/*
 * kernel.nmi_watchdog=0 (set for the test if it was 1 and toggling is
 * allowed): PROGRAM succeeds, and a known loop is counted, read through
 * PMUCTL_IOC_READ (no rdpmc needed): at least its N * 10 instructions,
 * at most 1% more (the library's start and stop in user mode).
 */
TEST_F(watchdog, counting_works_with_nmi_watchdog_0)
{
	struct pmuctl_event ev[2] = {
		hw_event(EV_INST | USR, 0, GONLY),
		hw_event(EV_CYCLES | USR, 0, GONLY),
	};
	const uint64_t want = LOOP_N * HW_NOP_LOOP_INSNS;
	struct pmuctl_error err;
	char msg[256];
	uint64_t v[2];
	int now, ret;

	HW_OPEN(&self->p);
	if (pmuctl_get_info(self->p)->caps.nr_gp < 2)
		SKIP(return, "needs 2 generic counters");
	now = watchdog_get();
	if (now == 1) {
		if (!may_toggle())
			SKIP(return, "kernel.nmi_watchdog=1 holds the counters: sysctl kernel.nmi_watchdog=0 first, or as root %s=1",
			     TOGGLE_ENV);
		WATCHDOG_SET(self, 0, now);
	}

	ret = pmuctl_program_cpu(self->p, -1, ev, 2, &err);
	if (ret == -EBUSY && err.reason == PMUCTL_R_PERF_BUSY)
		SKIP(return, "kernel.nmi_watchdog=0 yet perf holds the counters: another perf user?");
	ASSERT_LE(0, ret) TH_LOG("%s", pmuctl_strerror(ret, &err, msg, sizeof(msg)));
	ASSERT_EQ(0, pmuctl_start(self->p));
	hw_nop_loop(LOOP_N);
	ASSERT_EQ(0, pmuctl_stop(self->p));
	ASSERT_EQ(2, pmuctl_read_values(self->p, -1, v, 2));

	EXPECT_TRUE(v[0] >= want && v[0] <= want + want / 100)
		TH_LOG("%llu instructions for a loop of %llu",
		       (unsigned long long)v[0], (unsigned long long)want);
	EXPECT_NE(0ULL, v[1]);
}

TEST_HARNESS_MAIN
