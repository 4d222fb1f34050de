// SPDX-License-Identifier: GPL-2.0
/*
 * Living next to perf (FACTS 3): pmuctl reserves every generic counter from
 * perf while any group is held, and refuses PROGRAM with PERF_BUSY, a
 * kernel.nmi_watchdog hint in dmesg and nothing changed while perf holds
 * one.  The register-model build's debugfs file perf_hold takes a real
 * reserve_perfctr_nmi() reservation the way perf (or the NMI watchdog) does.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "lib.h"

#define HOLD		DBG_DIR "/perf_hold"

/* Cycles on a generic counter of CPU 0; 0 or -errno, *reason on refusal. */
static int program_cycles(int fd, __u32 *reason)
{
	struct pmuctl_event ev = ev_make(USR | 0x003c, 0, GONLY);
	struct pmuctl_program p;
	int ret = dev_program(fd, &ev, 1, 1, &p);

	*reason = p.err_reason;
	return ret;
}

/* Does @path contain @needle now? */
static bool file_has(const char *path, const char *needle)
{
	char *text = slurp(path);
	bool found = text && strstr(text, needle);

	free(text);
	return found;
}

/* Does the kernel log (all of it, from the start) contain @needle? */
static bool kmsg_has(const char *needle)
{
	char rec[2048];
	bool found = false;
	ssize_t n;
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);

	if (fd < 0)
		return false;
	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records */
		if (n <= 0)
			break;
		rec[n] = 0;
		if (strstr(rec, needle))
			found = true;
	}
	close(fd);
	return found;
}

FIXTURE(perf) {
	int fd;
};

FIXTURE_SETUP(perf)
{
	self->fd = dev_open();
}

FIXTURE_TEARDOWN(perf)
{
	write_str(HOLD, "0");
	if (self->fd >= 0)
		close(self->fd);
}

#define REQUIRE_DEVICE()						\
	do {								\
		if (self->fd < 0 || access(HOLD, W_OK))			\
			SKIP(return, "no " HOLD " (register-model build)"); \
	} while (0)

TEST_F(perf, program_refused_with_perf_busy_while_perf_holds_a_counter)
{
	struct snap before, after;
	__u32 reason = 0;

	REQUIRE_DEVICE();
	ASSERT_EQ(0, write_str(HOLD, "1"));
	ASSERT_EQ(0, snap_take(&before));

	EXPECT_EQ(-EBUSY, program_cycles(self->fd, &reason));
	EXPECT_EQ((__u32)PMUCTL_R_PERF_BUSY, reason);
	/* Nothing changed: no claim, no reservation, no register written. */
	ASSERT_EQ(0, snap_take(&after));
	EXPECT_EQ(NULL, snap_diff(&before, &after, false));
	snap_free(&before);
	snap_free(&after);
	EXPECT_TRUE(file_has(DBG_STATE, "perf_reserved 0"));
	EXPECT_TRUE(kmsg_has("kernel.nmi_watchdog"))
		TH_LOG("no rate-limited hint naming kernel.nmi_watchdog in dmesg");

	/* perf lets go: the same request succeeds. */
	ASSERT_EQ(0, write_str(HOLD, "0"));
	EXPECT_EQ(0, program_cycles(self->fd, &reason));
	EXPECT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
}

TEST_F(perf, perf_cannot_take_counters_while_a_group_is_held)
{
	__u32 reason = 0;

	REQUIRE_DEVICE();
	ASSERT_EQ(0, program_cycles(self->fd, &reason));
	EXPECT_TRUE(file_has(DBG_STATE, "perf_reserved 1"));
	EXPECT_EQ(-EBUSY, write_str(HOLD, "1"));
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
	/* Released: perf may reserve again, and pmuctl holds nothing. */
	EXPECT_TRUE(file_has(DBG_STATE, "perf_reserved 0"));
	EXPECT_EQ(0, write_str(HOLD, "1"));
	EXPECT_EQ(0, write_str(HOLD, "0"));
}

TEST_F(perf, close_gives_the_counters_back_to_perf)
{
	__u32 reason = 0;

	REQUIRE_DEVICE();
	ASSERT_EQ(0, program_cycles(self->fd, &reason));
	EXPECT_EQ(-EBUSY, write_str(HOLD, "1"));
	close(self->fd);
	self->fd = -1;
	EXPECT_EQ(0, write_str(HOLD, "1"));
}

DEVICE_TEST_MAIN
