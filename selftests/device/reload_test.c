// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctl.ko going away and coming back:
 *
 *  - the default build (the CPU's own MSRs, no register model) refuses to
 *    load where CPUID.0AH reports no architectural perfmon, as in a QEMU
 *    TCG guest: finit_module() fails with ENODEV and the kernel log gets
 *    exactly one pmuctl line, "pmuctl: not loading: ...";
 *  - the register model presenting other CPUs (regmodel_caps): a hybrid
 *    CPU is refused at load with one "not loading: hybrid CPU" line; a
 *    perfmon v6 PMU loads, and PROGRAM is refused with PERF_UNMANAGED on
 *    kernels where perf's v6 counters cannot be reserved (6.11+); a
 *    Skylake with TSX force abort gets MSR_TSX_FORCE_ABORT[0] set before
 *    PMC3 is written and cleared when PMC3 is released (its other bits
 *    kept), or with allow_tsx_force_abort=0 never uses PMC3;
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
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"
#include "load.h"
#include "kselftest_harness.h"

#define NR_CYCLES	50
#define MODULE_KO	"/pmuctl.ko"
#define MODULE_MSR_KO	"/pmuctl-msr.ko"
#define NOT_LOADING	"pmuctl: not loading: "
#define MSR_TFA		0x10f	/* MSR_TSX_FORCE_ABORT */

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
	bool variant;		/* loaded with other parameters than the rig's */
	int fd;			/* a session of the variant, or -1 */
};

FIXTURE_SETUP(reload)
{
	rig_params(self->params, sizeof(self->params));
	self->fd = -1;
}

/* Whatever happened, later programs find the rig's module loaded. */
FIXTURE_TEARDOWN(reload)
{
	if (self->fd >= 0)
		close(self->fd);
	if (self->variant && loaded() && mod_unload())
		ksft_print_msg("could not unload the variant module\n");
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

/* rmmod, then insmod the rig's module with the rig's parameters and @more. */
static int load_variant(FIXTURE_DATA(reload) *self, const char *more)
{
	char params[768];
	int ret = mod_unload();

	if (ret)
		return ret;
	self->variant = true;
	snprintf(params, sizeof(params), "%s %s", self->params, more);
	return mod_load(MODULE_KO, params);
}

/* Is this kernel 6.11 or later (perf addresses a v6 PMU at 0x1900+)? */
static bool kernel_6_11_or_later(void)
{
	struct utsname u;
	unsigned int major = 0, minor = 0;

	uname(&u);
	sscanf(u.release, "%u.%u", &major, &minor);
	return major > 6 || (major == 6 && minor >= 11);
}

TEST_F(reload, hybrid_cpu_refused_at_load)
{
	char line[256];
	int kmsg, ret;
	unsigned int n;

	if (access("/sys/module/pmuctl/parameters/regmodel_caps", F_OK))
		SKIP(return, "needs the register-model build");
	kmsg = kmsg_open();
	ASSERT_LE(0, kmsg);
	ret = load_variant(self, "regmodel_caps=hybrid");
	EXPECT_EQ(-ENODEV, ret) TH_LOG("insmod regmodel_caps=hybrid: %s",
				       strerror(-ret));
	EXPECT_FALSE(loaded());
	n = kmsg_count(kmsg, "pmuctl", line, sizeof(line));
	close(kmsg);
	ksft_print_msg("kernel log: \"%s\"\n", line);
	EXPECT_EQ(1U, n);
	EXPECT_EQ(0, strcmp(line, NOT_LOADING
			    "hybrid CPU: its core types have different PMUs, not supported yet"));
}

TEST_F(reload, perfmon_v6_program_refused_where_perf_is_unreserved)
{
	struct pmuctl_event ev = ev_make(EV_BR | USR, 0, GONLY);
	struct pmuctl_program p;
	struct load_env env;
	struct snap before = { 0 };
	bool refuse = kernel_6_11_or_later();
	int fd, ret;

	if (access("/sys/module/pmuctl/parameters/regmodel_caps", F_OK))
		SKIP(return, "needs the register-model build");
	ret = load_variant(self, "regmodel_caps=skl-v6");
	ASSERT_EQ(0, ret) TH_LOG("insmod regmodel_caps=skl-v6: %s", strerror(-ret));
	fd = self->fd = dev_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, load_env_init(&env, fd));
	EXPECT_EQ(6, env.info.caps.version);
	ASSERT_EQ(0, snap_take(&before));
	ret = dev_program(fd, &ev, 1, 1, &p);
	ksft_print_msg("perfmon v6, kernel %s 6.11: PROGRAM %s, reason %u\n",
		       refuse ? ">=" : "<", strerror(-ret), p.err_reason);
	if (refuse) {
		EXPECT_EQ(-EOPNOTSUPP, ret);
		EXPECT_U64(PMUCTL_R_PERF_UNMANAGED, p.err_reason);
		EXPECT_UNCHANGED(&before, true);
	} else {
		EXPECT_EQ(0, ret);
	}
	snap_free(&before);
	close(fd);
	self->fd = -1;
	EXPECT_EQ(0, state_wait_clean(1000));
	EXPECT_EQ(0, mod_unload());
}

/* The writes of pmuctl/log since @from that hit @msr on @cpu: index of the first. */
static int log_first(const char *log, unsigned long from, __u32 cpu, __u32 msr,
		     unsigned long long *val)
{
	const char *l = log;
	unsigned long total = 0, i = 0, first;
	unsigned int c, m;
	unsigned long long v;
	int e;

	if (sscanf(l, "writes %lu", &total) != 1)
		return -1;
	/* The log keeps the last writes; line i is write total - lines + i. */
	l = strchr(l, '\n');
	for (first = 0; l && *++l; l = strchr(l, '\n'))
		first++;
	first = total - first;
	for (l = strchr(log, '\n'); l && *++l; l = strchr(l, '\n'), i++) {
		if (sscanf(l, "cpu %u msr %x %llx err %d", &c, &m, &v, &e) != 4)
			continue;
		if (first + i >= from && c == cpu && m == msr) {
			*val = v;
			return (int)(first + i - from);
		}
	}
	return -1;
}

static unsigned long log_writes(void)
{
	char *log = slurp(DBG_DIR "/log");
	unsigned long n = 0;

	if (log)
		sscanf(log, "writes %lu", &n);
	free(log);
	return n;
}

TEST_F(reload, tsx_force_abort_set_while_pmc3_is_held)
{
	struct pmuctl_event ev[4];
	struct pmuctl_program p;
	struct load_env env;
	struct pregs rg;
	unsigned long long v = 0;
	unsigned long from;
	char *log;
	int fd, ret, tfa, sel3, i;

	if (access("/sys/module/pmuctl/parameters/regmodel_caps", F_OK))
		SKIP(return, "needs the register-model build");
	ret = load_variant(self, "regmodel_caps=skl-tfa");
	ASSERT_EQ(0, ret) TH_LOG("insmod regmodel_caps=skl-tfa: %s", strerror(-ret));
	fd = self->fd = dev_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, load_env_init(&env, fd));
	EXPECT_TRUE(!!(env.info.caps.flags & PMUCTL_CAP_TSX_FORCE_ABORT));
	EXPECT_FALSE(!!(env.info.caps.flags & PMUCTL_CAP_PMC3_WITHHELD));
	/* The kernel's TSX code owns bit 1 (TSX_CPUID_CLEAR): kept. */
	ASSERT_EQ(0, regs_preset(0, MSR_TFA, 0x2));

	/* Three generic counters: PMC3 stays free and the MSR untouched. */
	for (i = 0; i < 4; i++)
		ev[i] = ev_make(EV_BR | USR, 0, GONLY);
	from = log_writes();
	ASSERT_EQ(0, dev_program(fd, ev, 3, 1, &p));
	log = slurp(DBG_DIR "/log");
	ASSERT_NE(NULL, log);
	EXPECT_GT(0, log_first(log, from, 0, MSR_TFA, &v)) TH_LOG("%s", log);
	free(log);
	ASSERT_EQ(0, dev_ctl(fd, PMUCTL_IOC_RELEASE));

	/* Four: the bit is set before PERFEVTSEL3 is written. */
	for (i = 0; i < 4; i++)
		ev[i] = ev_make(EV_BR | USR, 0, GONLY);
	from = log_writes();
	ASSERT_EQ(0, dev_program(fd, ev, 4, 1, &p));
	ASSERT_EQ(0, regs_read(&rg));
	EXPECT_U64(0x3, regs_get(&rg, 0, MSR_TFA));
	log = slurp(DBG_DIR "/log");
	ASSERT_NE(NULL, log);
	tfa = log_first(log, from, 0, MSR_TFA, &v);
	sel3 = log_first(log, from, 0, MSR_EVTSEL(3), &v);
	EXPECT_LE(0, tfa) TH_LOG("%s", log);
	EXPECT_LT(tfa, sel3) TH_LOG("%s", log);
	free(log);
	ASSERT_EQ(0, dev_ctl(fd, PMUCTL_IOC_START));
	ASSERT_EQ(0, regs_read(&rg));
	EXPECT_U64(0x3, regs_get(&rg, 0, MSR_TFA));

	/* Released: the bit goes, bit 1 stays. */
	ASSERT_EQ(0, dev_ctl(fd, PMUCTL_IOC_RELEASE));
	ASSERT_EQ(0, regs_read(&rg));
	EXPECT_U64(0x2, regs_get(&rg, 0, MSR_TFA));
	close(fd);
	self->fd = -1;
	EXPECT_EQ(0, state_wait_clean(1000));
	EXPECT_EQ(0, mod_unload());
}

TEST_F(reload, tsx_force_abort_refused_withholds_pmc3)
{
	struct pmuctl_event ev[4];
	struct pmuctl_program p;
	struct load_env env;
	struct pregs rg;
	int fd, ret, i;

	if (access("/sys/module/pmuctl/parameters/regmodel_caps", F_OK))
		SKIP(return, "needs the register-model build");
	ret = load_variant(self,
			   "regmodel_caps=skl-tfa allow_tsx_force_abort=0");
	ASSERT_EQ(0, ret) TH_LOG("insmod: %s", strerror(-ret));
	fd = self->fd = dev_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, load_env_init(&env, fd));
	EXPECT_TRUE(!!(env.info.caps.flags & PMUCTL_CAP_TSX_FORCE_ABORT));
	EXPECT_TRUE(!!(env.info.caps.flags & PMUCTL_CAP_PMC3_WITHHELD));
	EXPECT_EQ(4, env.info.caps.nr_gp);
	for (i = 0; i < 4; i++)
		ev[i] = ev_make(EV_BR | USR, 0, GONLY);
	EXPECT_EQ(-EBUSY, dev_program(fd, ev, 4, 1, &p));
	EXPECT_U64(PMUCTL_R_COUNTERS_BUSY, p.err_reason);
	for (i = 0; i < 4; i++)
		ev[i] = ev_make(EV_BR | USR, 0, GONLY);
	ASSERT_EQ(0, dev_program(fd, ev, 3, 1, &p));
	for (i = 0; i < 3; i++)
		EXPECT_NE(3U, ev[i].counter);
	ASSERT_EQ(0, regs_read(&rg));
	EXPECT_U64(0, regs_get(&rg, 0, MSR_TFA));
	close(fd);
	self->fd = -1;
	EXPECT_EQ(0, state_wait_clean(1000));
	EXPECT_EQ(0, mod_unload());
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
