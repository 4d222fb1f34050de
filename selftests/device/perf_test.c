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
#include <sys/ioctl.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "core.h"

#define DEV		"/dev/pmuctl"
#define HOLD		"/sys/kernel/debug/pmuctl/perf_hold"
#define STATE		"/sys/kernel/debug/pmuctl/state"
#define REGS		"/sys/kernel/debug/pmuctl/regs"

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* The whole file, NUL-terminated, into a static buffer. */
static const char *slurp(const char *path)
{
	static char buf[1 << 16];
	ssize_t n, len = 0;
	int fd = open(path, O_RDONLY);

	buf[0] = 0;
	if (fd < 0)
		return buf;
	while (len < (ssize_t)sizeof(buf) - 1 &&
	       (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	buf[len] = 0;
	close(fd);
	return buf;
}

static int program_cycles(int fd, __u32 *reason)
{
	struct pmuctl_event ev = { .config = PMUCTL_CFG_USR | 0x003c,
				   .flags = PMUCTL_EVENT_GENERIC_ONLY };
	__u64 cpus = 1;
	struct pmuctl_program p = {
		.nr_events = 1,
		.events = (__u64)(uintptr_t)&ev,
		.cpus = (__u64)(uintptr_t)&cpus,
		.cpus_size = sizeof(cpus),
	};
	int ret = ioctl(fd, PMUCTL_IOC_PROGRAM, &p);

	*reason = p.err_reason;
	return ret ? -errno : 0;
}

static int release(int fd)
{
	struct pmuctl_ctl c = { 0 };

	return ioctl(fd, PMUCTL_IOC_RELEASE, &c) ? -errno : 0;
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
	self->fd = open(DEV, O_RDWR);
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
			SKIP(return, "no " DEV " or no " HOLD " (register-model build)"); \
	} while (0)

TEST_F(perf, program_refused_with_perf_busy_while_perf_holds_a_counter)
{
	char state[4096], regs[1 << 15];
	__u32 reason = 0;

	REQUIRE_DEVICE();
	ASSERT_EQ(0, write_str(HOLD, "1"));
	snprintf(state, sizeof(state), "%s", slurp(STATE));
	snprintf(regs, sizeof(regs), "%s", slurp(REGS));

	EXPECT_EQ(-EBUSY, program_cycles(self->fd, &reason));
	EXPECT_EQ((__u32)PMUCTL_R_PERF_BUSY, reason);
	/* Nothing changed: no claim, no reservation, no register written. */
	EXPECT_STREQ(state, slurp(STATE));
	EXPECT_STREQ(regs, slurp(REGS));
	EXPECT_NE(NULL, strstr(slurp(STATE), "perf_reserved 0"));
	EXPECT_TRUE(kmsg_has("kernel.nmi_watchdog"))
		TH_LOG("no rate-limited hint naming kernel.nmi_watchdog in dmesg");

	/* perf lets go: the same request succeeds. */
	ASSERT_EQ(0, write_str(HOLD, "0"));
	EXPECT_EQ(0, program_cycles(self->fd, &reason));
	EXPECT_EQ(0, release(self->fd));
}

TEST_F(perf, perf_cannot_take_counters_while_a_group_is_held)
{
	__u32 reason = 0;

	REQUIRE_DEVICE();
	ASSERT_EQ(0, program_cycles(self->fd, &reason));
	EXPECT_NE(NULL, strstr(slurp(STATE), "perf_reserved 1"));
	EXPECT_EQ(-EBUSY, write_str(HOLD, "1"));
	ASSERT_EQ(0, release(self->fd));
	/* Released: perf may reserve again, and pmuctl holds nothing. */
	EXPECT_NE(NULL, strstr(slurp(STATE), "perf_reserved 0"));
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

TEST_HARNESS_MAIN
