// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctl.ko going away and coming back:
 *
 *  - the default build (the CPU's own MSRs, no register model) refuses to
 *    load where CPUID.0AH reports no architectural perfmon, as in a QEMU
 *    TCG guest: finit_module() fails with ENODEV and the kernel log gets
 *    exactly one pmuctl line, "pmuctl: not loading: ...";
 *  - 50 times: rmmod, insmod with the parameters the rig used (the
 *    pmuctl.* words of /proc/cmdline, as scripts/vm/init reads them), then
 *    one session opened, programmed, started, read and closed, and pmuctl
 *    at rest again (state and regs, as in stress_test).
 *
 * The rig puts the register-model build at /pmuctl.ko and the default
 * build at /pmuctl-msr.ko.  Every test leaves /pmuctl.ko loaded, so the
 * programs that run after this one still find /dev/pmuctl.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"
#include "load.h"
#include "kselftest_harness.h"

#define NR_CYCLES	50
#define MODULE_KO	"/pmuctl.ko"
#define MODULE_MSR_KO	"/pmuctl-msr.ko"
#define NOT_LOADING	"pmuctl: not loading: "

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* "PARAM=VALUE ..." from the pmuctl.PARAM=VALUE words of the command line. */
static void rig_params(char *buf, size_t len)
{
	char *cmdline = slurp("/proc/cmdline"), *w, *save = NULL;

	*buf = 0;
	if (!cmdline)
		return;
	for (w = strtok_r(cmdline, " \t\n", &save); w;
	     w = strtok_r(NULL, " \t\n", &save)) {
		if (strncmp(w, "pmuctl.", 7))
			continue;
		if (*buf)
			strncat(buf, " ", len - strlen(buf) - 1);
		strncat(buf, w + 7, len - strlen(buf) - 1);
	}
	free(cmdline);
}

static bool loaded(void)
{
	return !access("/sys/module/pmuctl", F_OK);
}

static int mod_load(const char *path, const char *params)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, params, 0) ? -errno : 0;
	close(fd);
	return ret;
}

static int mod_unload(void)
{
	return syscall(SYS_delete_module, "pmuctl", O_NONBLOCK) ? -errno : 0;
}

/* /dev/kmsg from now on. */
static int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/* Messages since kmsg_open() that contain @needle; the first in @first. */
static unsigned int kmsg_count(int fd, const char *needle, char *first,
			       size_t len)
{
	char rec[1024], *msg, *end;
	unsigned int n = 0;
	ssize_t r;

	*first = 0;
	for (;;) {
		r = read(fd, rec, sizeof(rec) - 1);
		if (r < 0 && errno == EPIPE)
			continue;	/* overwritten records: go on */
		if (r <= 0)
			break;
		rec[r] = 0;
		msg = strchr(rec, ';');
		if (!msg)
			continue;
		msg++;
		end = strchrnul(msg, '\n');
		*end = 0;
		if (!strstr(msg, needle))
			continue;
		if (!n++)
			snprintf(first, len, "%s", msg);
	}
	return n;
}

/* One session's life on the freshly loaded module. */
static const char *one_session(__u64 *rs)
{
	static char msg[160];
	struct pmuctl_event ev[PMUCTL_MAX_EVENTS];
	struct pmuctl_program p = { 0 };
	struct load_env env;
	__u64 val[PMUCTL_MAX_EVENTS], cpus;
	__u32 n;
	int fd, ret;
	const char *why;

	fd = dev_open();
	if (fd < 0) {
		snprintf(msg, sizeof(msg), "open: %s", strerror(-fd));
		return msg;
	}
	ret = load_env_init(&env, fd);
	if (!ret) {
		n = load_group(&env, rs, ev);
		cpus = load_cpus(&env, rs);
		ret = dev_program(fd, ev, n, cpus, &p);
		if (!ret)
			ret = dev_ctl(fd, PMUCTL_IOC_START);
		if (!ret)
			ret = dev_read(fd, __builtin_ctzll(cpus), val, n);
		if (!ret)
			ret = dev_ctl(fd, PMUCTL_IOC_STOP);
	}
	close(fd);
	if (ret) {
		snprintf(msg, sizeof(msg), "session: %s (reason %u)", strerror(-ret),
			 p.err_reason);
		return msg;
	}
	why = load_unclean(&env, 1000);
	if (why)
		snprintf(msg, sizeof(msg), "after close: %s", why);
	return why ? msg : NULL;
}

FIXTURE(reload) {
	char params[512];
};

FIXTURE_SETUP(reload)
{
	rig_params(self->params, sizeof(self->params));
}

/* Whatever happened, later programs find the rig's module loaded. */
FIXTURE_TEARDOWN(reload)
{
	if (!loaded() && mod_load(MODULE_KO, self->params))
		ksft_print_msg("could not load %s %s again\n", MODULE_KO,
			       self->params);
}

TEST_F(reload, default_build_refuses_a_cpu_without_pmu)
{
	char line[256];
	struct ucpu c;
	int kmsg, ret;
	unsigned int n;

	if (access(MODULE_MSR_KO, R_OK))
		SKIP(return, "no %s (scripts/vm/run.sh puts the default build there)",
		     MODULE_MSR_KO);
	ucpu_read(&c);
	if (c.leafa_eax & 0xff)
		SKIP(return, "CPUID.0AH reports perfmon v%u: this CPU has a PMU",
		     c.leafa_eax & 0xff);
	ASSERT_EQ(0, mod_unload());
	kmsg = kmsg_open();
	ASSERT_LE(0, kmsg);
	ret = mod_load(MODULE_MSR_KO, "");
	EXPECT_EQ(-ENODEV, ret) TH_LOG("finit_module(%s): %s", MODULE_MSR_KO,
				       strerror(-ret));
	EXPECT_FALSE(loaded());
	n = kmsg_count(kmsg, "pmuctl", line, sizeof(line));
	close(kmsg);
	ksft_print_msg("%s refused with %s; kernel log: \"%s\"\n", MODULE_MSR_KO,
		       strerror(-ret), line);
	EXPECT_EQ(1U, n) TH_LOG("want exactly one pmuctl line in the kernel log");
	EXPECT_EQ(0, strncmp(line, NOT_LOADING, strlen(NOT_LOADING)))
		TH_LOG("want \"%s...\"", NOT_LOADING);
	ret = mod_load(MODULE_KO, self->params);
	ASSERT_EQ(0, ret) TH_LOG("insmod %s %s: %s", MODULE_KO, self->params,
				 strerror(-ret));
}

/* An open session pins the module (fops.owner): rmmod waits for nobody. */
TEST_F(reload, unload_refused_while_a_session_is_open)
{
	struct pmuctl_event ev = ev_make(EV_INST | USR, 0, 0);
	struct pmuctl_program p;
	struct load_env env;
	__u64 val;
	const char *why;
	int fd;

	fd = dev_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, load_env_init(&env, fd));
	ASSERT_EQ(0, dev_program(fd, &ev, 1, 1, &p));
	EXPECT_EQ(-EWOULDBLOCK, mod_unload());
	EXPECT_TRUE(loaded());
	EXPECT_EQ(0, dev_read(fd, 0, &val, 1));
	close(fd);
	why = load_unclean(&env, 1000);
	EXPECT_TRUE(why == NULL) TH_LOG("after close: %s", why);
}

TEST_F_TIMEOUT(reload, reloads_with_a_session_each, 300)
{
	char *caps_before, *caps_after;
	__u64 rs = load_seed();
	const char *why;
	unsigned int i;
	double t = now();
	int ret;

	ASSERT_TRUE(loaded());
	ASSERT_TRUE(debugfs_ready());
	caps_before = slurp(PARAM_DIR "/regmodel_caps");
	ksft_print_msg("%u cycles of rmmod, insmod %s %s, a session; seed %#llx\n",
		       NR_CYCLES, MODULE_KO,
		       *self->params ? self->params : "(no parameters)", load_seed());
	for (i = 0; i < NR_CYCLES; i++) {
		ret = mod_unload();
		ASSERT_EQ(0, ret) TH_LOG("cycle %u: rmmod pmuctl: %s", i, strerror(-ret));
		ASSERT_FALSE(loaded());
		ret = mod_load(MODULE_KO, self->params);
		ASSERT_EQ(0, ret) TH_LOG("cycle %u: insmod %s %s: %s", i, MODULE_KO,
					 self->params, strerror(-ret));
		why = one_session(&rs);
		ASSERT_TRUE(why == NULL) TH_LOG("cycle %u: %s", i, why);
	}
	/* The rig's parameters came back with the module. */
	caps_after = slurp(PARAM_DIR "/regmodel_caps");
	if (caps_before || caps_after)
		EXPECT_STREQ(caps_before ?: "(none)", caps_after ?: "(none)");
	free(caps_before);
	free(caps_after);
	ksft_print_msg("%u reload cycles in %.1f s\n", i, now() - t);
}

DEVICE_TEST_MAIN
