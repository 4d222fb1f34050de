// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctl.ko going away and coming back:
 *
 *  - the default build (the CPU's own MSRs, no register model) refuses to
 *    load where CPUID.0AH reports no architectural perfmon, as in a QEMU
 *    TCG guest: finit_module() fails with ENODEV and the kernel log gets
 *    exactly one pmuctl line, "pmuctl: not loading: ...";
 *  - the register-model build refuses to load when the model drops
 *    writes (regmodel_drop_writes=1, as a hypervisor without a virtual PMU
 *    may): the probe flips bits of a counter and reads them back;
 *  - with more generic counters reported than the legacy ranges hold
 *    (regmodel_caps=wide: 32), INFO says 8 and GP_CLAMPED, and no register
 *    past IA32_PERFEVTSEL7 / IA32_PMC7 (MISC_ENABLE is EVTSEL "26" there)
 *    is ever written;
 *  - reboot and kexec: the reboot notifier (run through the test build's
 *    debugfs "reboot", as kernel_restart_prepare() would) puts every CPU's
 *    PMU back as pmuctl found it, sessions' counters running or not, and
 *    after it every operation fails with ESHUTDOWN and writes nothing;
 *  - the register model presenting other CPUs (regmodel_caps): a hybrid
 *    CPU is refused at load with one "not loading: hybrid CPU" line; a
 *    perfmon v6 PMU loads and programs, and on kernels where perf's v6
 *    counters cannot be reserved (6.11+) fixed counter 2, which perf's
 *    sentinel takes there, is withheld: an event only it can count is
 *    refused (the register-model guests have no perf PMU, so no sentinel
 *    runs: the emulated-PMU guests test it, perfmon_v6_test.sh); a
 *    Skylake with TSX force abort gets MSR_TSX_FORCE_ABORT[0] set before
 *    PMC3 is written and cleared when PMC3 is released (its other bits
 *    kept), or with allow_tsx_force_abort=0 never uses PMC3;
 *  - a thread granted rdpmc that lives on after another thread closed the
 *    session keeps the module loaded: rmmod fails with EWOULDBLOCK (it
 *    does not wait) until the thread exits;
 *  - pmuctl/state exists only with the per-CPU state it shows: a reader
 *    looping on it while the module's init stalls and then fails (the
 *    register model's test hooks regmodel_init_stall_ms and
 *    regmodel_init_fail, in its init, which runs before the per-CPU state
 *    is allocated) finds no file or an empty one, and the kernel logs no
 *    Oops, BUG or KASAN report;
 *  - 50 times: rmmod, insmod with the parameters the rig used (the
 *    pmuctl.* words of /proc/cmdline, as scripts/vm/init reads them), then
 *    one session opened, programmed, started, read and closed, and pmuctl
 *    at rest again (state and regs, as in stress_test).
 *
 * The rig puts the register-model build, module pmuctl_regmodel, at
 * /pmuctl_regmodel.ko (a -P guest: the default build at /pmuctl.ko) and the
 * default build at /pmuctl-msr.ko.  Every test leaves the rig's module
 * loaded, so the programs that run after this one still find /dev/pmuctl.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"
#include "load.h"
#include "kselftest_harness.h"

#define NR_CYCLES	50
#define REGMODEL_KO	"/pmuctl_regmodel.ko"
#define MODULE_KO	(regmodel_rig() ? REGMODEL_KO : "/pmuctl.ko")
#define MODULE_NAME	(regmodel_rig() ? "pmuctl_regmodel" : "pmuctl")
#define MODULE_MSR_KO	"/pmuctl-msr.ko"
#define NOT_LOADING	"pmuctl: not loading: "
#define RM_NOT_LOADING	"pmuctl_regmodel: not loading: "
#define MSR_TFA		0x10f	/* MSR_TSX_FORCE_ABORT */

/* The rig loaded the register-model test build (scripts/vm/init). */
static bool regmodel_rig(void)
{
	return !access(REGMODEL_KO, R_OK);
}

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
	char path[64];

	snprintf(path, sizeof(path), "/sys/module/%s", MODULE_NAME);
	return !access(path, F_OK);
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
	return syscall(SYS_delete_module, MODULE_NAME, O_NONBLOCK) ? -errno : 0;
}

/* /dev/kmsg from now on. */
static int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/* Messages since kmsg_open() that contain any of @needles; the first in @first. */
static unsigned int kmsg_count_any(int fd, const char *const *needles,
				   unsigned int nn, char *first, size_t len)
{
	char rec[1024], *msg, *end;
	unsigned int n = 0, i;
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
		for (i = 0; i < nn && !strstr(msg, needles[i]); i++)
			;
		if (i < nn && !n++)
			snprintf(first, len, "%s", msg);
	}
	return n;
}

/* Messages since kmsg_open() that contain @needle; the first in @first. */
static unsigned int kmsg_count(int fd, const char *needle, char *first,
			       size_t len)
{
	return kmsg_count_any(fd, &needle, 1, first, len);
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
	int fd;		/* a session the teardown closes */
	bool reload;	/* loaded with other parameters: reload */
};

FIXTURE_SETUP(reload)
{
	rig_params(self->params, sizeof(self->params));
	self->fd = -1;
	self->reload = false;
}

/* Whatever happened, later programs find the rig's module loaded. */
FIXTURE_TEARDOWN(reload)
{
	if (self->fd >= 0)
		close(self->fd);
	/* A test that took cpu1 offline and stopped half way. */
	if (cpus_possible() > 1)
		cpu_set_online(1, true);
	if (self->reload && loaded()) {
		state_wait_clean(1000);
		mod_unload();
	}
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
	EXPECT_NE(0, access("/sys/module/pmuctl", F_OK));
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

/* A thread that programs a session (and so holds its rdpmc grant), then waits. */
struct granted {
	int fd, ret;
	int ready[2];		/* it programmed */
	int go[2];		/* it may exit */
};

static void *granted_run(void *arg)
{
	struct granted *g = arg;
	struct pmuctl_event ev = ev_make(EV_INST | USR, 0, 0);
	struct pmuctl_program p;
	char c = 0;

	g->ret = dev_program(g->fd, &ev, 1, 1, &p);
	if (write(g->ready[1], &c, 1) != 1 || read(g->go[0], &c, 1) < 0)
		g->ret = -EIO;
	return NULL;
}

/*
 * A thread granted rdpmc keeps a preempt notifier, and with it a module
 * reference, until it next calls pmuctl or exits, even once another
 * thread closed the session: rmmod does not wait for it, it fails with
 * EWOULDBLOCK (delete_module() never waits), and works once the thread
 * exited.
 */
TEST_F(reload, unload_refused_while_a_granted_thread_lives_on)
{
	struct granted g = { .fd = dev_open() };
	pthread_t t;
	char c = 0;
	int i, ret;

	ASSERT_LE(0, g.fd);
	ASSERT_EQ(0, pipe(g.ready));
	ASSERT_EQ(0, pipe(g.go));
	ASSERT_EQ(0, pthread_create(&t, NULL, granted_run, &g));
	ASSERT_EQ(1, read(g.ready[0], &c, 1));
	ASSERT_EQ(0, g.ret) TH_LOG("PROGRAM in the thread: %s", strerror(-g.ret));
	/* The session goes; the thread's grant is revoked, its notifier stays. */
	close(g.fd);
	self->reload = true;
	EXPECT_EQ(-EWOULDBLOCK, mod_unload());
	EXPECT_TRUE(loaded());
	ASSERT_EQ(1, write(g.go[1], &c, 1));
	ASSERT_EQ(0, pthread_join(t, NULL));
	/*
	 * pthread_join() returns at the thread's clear_child_tid, in do_exit()
	 * before the exit tracepoint that drops the notifier: the thread is
	 * gone a moment later.
	 */
	ret = mod_unload();
	for (i = 0; ret == -EWOULDBLOCK && i < 200; i++) {
		usleep(10000);
		ret = mod_unload();
	}
	EXPECT_EQ(0, ret) TH_LOG("rmmod once the thread exited: %s", strerror(-ret));
	EXPECT_FALSE(loaded());
	close(g.ready[0]);
	close(g.ready[1]);
	close(g.go[0]);
	close(g.go[1]);
}

/* The rig's parameters without @name=..., then @add. */
static void params_with(char *out, size_t len, const char *params,
			const char *name, const char *add)
{
	char *copy = strdup(params), *w, *save = NULL;

	*out = 0;
	for (w = copy ? strtok_r(copy, " ", &save) : NULL; w;
	     w = strtok_r(NULL, " ", &save)) {
		if (!strncmp(w, name, strlen(name)) && w[strlen(name)] == '=')
			continue;
		strncat(out, w, len - strlen(out) - 1);
		strncat(out, " ", len - strlen(out) - 1);
	}
	strncat(out, add, len - strlen(out) - 1);
	free(copy);
}

TEST_F(reload, refuses_a_pmu_that_drops_writes)
{
	char params[600], line[256];
	unsigned int n;
	int kmsg, ret;

	ASSERT_TRUE(loaded());
	if (access(PARAM_DIR "/regmodel_caps", F_OK))
		SKIP(return, "needs the register-model build");
	params_with(params, sizeof(params), self->params, "regmodel_drop_writes",
		    "regmodel_drop_writes=1");
	ASSERT_EQ(0, mod_unload());
	self->reload = true;
	kmsg = kmsg_open();
	ASSERT_LE(0, kmsg);
	ret = mod_load(MODULE_KO, params);
	EXPECT_EQ(-ENODEV, ret) TH_LOG("insmod %s %s: %s", MODULE_KO, params,
				       strerror(-ret));
	EXPECT_FALSE(loaded());
	n = kmsg_count(kmsg, "pmuctl", line, sizeof(line));
	close(kmsg);
	ksft_print_msg("%s %s: %s; kernel log: \"%s\"\n", MODULE_KO, params,
		       strerror(-ret), line);
	EXPECT_EQ(1U, n) TH_LOG("want exactly one pmuctl line in the kernel log");
	EXPECT_EQ(0, strncmp(line, RM_NOT_LOADING, strlen(RM_NOT_LOADING)))
		TH_LOG("want \"%s...\"", RM_NOT_LOADING);
	if (loaded())
		ASSERT_EQ(0, mod_unload());
	ret = mod_load(MODULE_KO, self->params);
	ASSERT_EQ(0, ret) TH_LOG("insmod %s %s: %s", MODULE_KO, self->params,
				 strerror(-ret));
	self->reload = false;
}

#define NR_LEGACY_GP	8

TEST_F(reload, never_addresses_past_the_legacy_8_counters)
{
	static struct pregs rg;
	struct pmuctl_event ev[NR_LEGACY_GP + 1];
	struct pmuctl_program p;
	struct pmuctl_info info;
	char params[600];
	unsigned int i, cpu;
	__u64 all = 0;
	int ret;

	ASSERT_TRUE(loaded());
	if (access(PARAM_DIR "/regmodel_caps", F_OK))
		SKIP(return, "needs the register-model build");
	params_with(params, sizeof(params), self->params, "regmodel_caps",
		    "regmodel_caps=wide");
	ASSERT_EQ(0, mod_unload());
	self->reload = true;
	ret = mod_load(MODULE_KO, params);
	ASSERT_EQ(0, ret) TH_LOG("insmod %s %s: %s", MODULE_KO, params, strerror(-ret));
	ASSERT_TRUE(debugfs_ready());
	self->fd = dev_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, dev_info(self->fd, &info));
	EXPECT_U64(NR_LEGACY_GP, info.caps.nr_gp);
	EXPECT_TRUE((info.caps.flags & PMUCTL_CAP_GP_CLAMPED) != 0);
	for (cpu = 0; cpu < info.nr_cpus && cpu < 64; cpu++)
		all |= 1ULL << cpu;

	/* A ninth generic counter does not exist. */
	for (i = 0; i <= NR_LEGACY_GP; i++)
		ev[i] = ev_make(EV_BR | USR, 0, GONLY);
	ret = dev_program(self->fd, ev, NR_LEGACY_GP + 1, all, &p);
	EXPECT_NE(0, ret);
	if (!ret)
		ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
	for (i = 0; i < NR_LEGACY_GP; i++)
		ev[i] = ev_make(EV_BR | USR, 0, GONLY);
	ASSERT_EQ(0, dev_program(self->fd, ev, NR_LEGACY_GP, all, &p));
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_START));
	ASSERT_EQ(0, regs_read(&rg));
	for (cpu = 0; cpu < info.nr_cpus && cpu < 64; cpu++) {
		for (i = 0; i < 32; i++) {
			__u64 want = i < NR_LEGACY_GP ? (EV_BR | USR | EN) : 0;

			EXPECT_U64(want, regs_get(&rg, cpu, MSR_EVTSEL(i)))
				TH_LOG("cpu %u msr %#x", cpu, MSR_EVTSEL(i));
		}
		EXPECT_U64(0xffULL, regs_get(&rg, cpu, MSR_GLOBAL_CTRL));
	}
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
	close(self->fd);
	self->fd = -1;
	ASSERT_EQ(0, state_wait_clean(1000));
	ASSERT_EQ(0, mod_unload());
	ret = mod_load(MODULE_KO, self->params);
	ASSERT_EQ(0, ret) TH_LOG("insmod %s %s: %s", MODULE_KO, self->params,
				 strerror(-ret));
	self->reload = false;
}

#define DBG_REBOOT	DBG_DIR "/reboot"

TEST_F(reload, reboot_stops_every_counter_and_writes_nothing_after)
{
	static struct pregs before, rg;
	struct pmuctl_event ev[2];
	struct pmuctl_program p;
	struct pmuctl_info info;
	unsigned int i, cpu;
	__u64 all = 0;
	int fd2;

	ASSERT_TRUE(loaded());
	ASSERT_TRUE(debugfs_ready());
	if (!have_regs())
		SKIP(return, "needs the register-model build");
	ASSERT_EQ(0, access(DBG_REBOOT, W_OK)) TH_LOG("no %s", DBG_REBOOT);
	self->fd = dev_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, dev_info(self->fd, &info));
	for (cpu = 0; cpu < info.nr_cpus && cpu < 64; cpu++)
		all |= 1ULL << cpu;
	/* What another agent left: pmuctl must give it back. */
	ASSERT_EQ(0, regs_zero_all());
	ASSERT_EQ(0, regs_preset(0, MSR_EVTSEL(1), EV_BR | USR));
	ASSERT_EQ(0, regs_read(&before));
	ev[0] = ev_make(EV_INST | USR, 0, 0);
	ev[1] = ev_make(EV_LLC_MISS | USR | OS, 0, GONLY);
	ASSERT_EQ(0, dev_program(self->fd, ev, 2, all, &p));
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_START));
	fd2 = dev_open();
	ASSERT_LE(0, fd2);
	ev[0] = ev_make(EV_CYCLES | USR, 0, 0);
	ASSERT_EQ(0, dev_program(fd2, ev, 1, 1, &p));

	self->reload = true;
	ASSERT_EQ(0, write_str(DBG_REBOOT, "1"));
	ASSERT_EQ(0, regs_read(&rg));
	ASSERT_EQ(before.n, rg.n);
	for (i = 0; i < rg.n; i++) {
		EXPECT_U64(before.r[i].val, rg.r[i].val)
			TH_LOG("cpu %u msr %#x", rg.r[i].cpu, rg.r[i].msr);
	}
	/* Nothing is written after: START, RESET, PROGRAM fail. */
	EXPECT_EQ(-ESHUTDOWN, dev_ctl(self->fd, PMUCTL_IOC_START));
	EXPECT_EQ(-ESHUTDOWN, dev_ctl(fd2, PMUCTL_IOC_RESET));
	ASSERT_EQ(0, regs_read(&rg));
	for (i = 0; i < rg.n; i++)
		EXPECT_U64(before.r[i].val, rg.r[i].val);
	EXPECT_EQ(0, dev_ctl(fd2, PMUCTL_IOC_RELEASE));
	close(fd2);
	EXPECT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
	ev[0] = ev_make(EV_INST | USR, 0, 0);
	EXPECT_EQ(-ESHUTDOWN, dev_program(self->fd, ev, 1, all, &p));
	close(self->fd);
	self->fd = -1;
	EXPECT_EQ(0, state_wait_clean(1000));
	ASSERT_EQ(0, regs_zero_all());
}

/* rmmod, then insmod the rig's module with regmodel_caps=@caps and @more. */
static int load_variant(FIXTURE_DATA(reload) *self, const char *caps,
			const char *more)
{
	char params[600], add[160];
	int ret = mod_unload();

	if (ret)
		return ret;
	self->reload = true;
	snprintf(add, sizeof(add), "regmodel_caps=%s %s", caps, more);
	params_with(params, sizeof(params), self->params, "regmodel_caps", add);
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

/* A hybrid CPU whose leaf 1AH names no type, on no Alder Lake: refused. */
TEST_F(reload, hybrid_cpu_without_core_type_refused_at_load)
{
	char line[256];
	int kmsg, ret;
	unsigned int n;

	if (access(PARAM_DIR "/regmodel_caps", F_OK))
		SKIP(return, "needs the register-model build");
	kmsg = kmsg_open();
	ASSERT_LE(0, kmsg);
	ret = load_variant(self, "hybrid", "");
	EXPECT_EQ(-ENODEV, ret) TH_LOG("insmod regmodel_caps=hybrid: %s",
				       strerror(-ret));
	EXPECT_FALSE(loaded());
	n = kmsg_count(kmsg, "pmuctl", line, sizeof(line));
	close(kmsg);
	ksft_print_msg("kernel log: \"%s\"\n", line);
	EXPECT_EQ(1U, n);
	EXPECT_EQ(0, strcmp(line, RM_NOT_LOADING
			    "hybrid CPU whose core type cannot be told (CPUID leaf 1AH empty)"));
}

/* Every CPU's holding entry, the caps and model fields included. */
static int holdings_v1(int fd, struct pmuctl_info *in, struct pmuctl_holding *h,
		       unsigned int n)
{
	memset(in, 0, sizeof(*in));
	memset(h, 0xa5, n * sizeof(*h));
	in->holdings = (__u64)(uintptr_t)h;
	in->holding_size = sizeof(*h);
	in->holdings_size = n * sizeof(*h);
	return dev_ioctl(fd, PMUCTL_IOC_INFO, in);
}

struct hyb_type {
	__u32 model;
	__u8 nr_gp, core_type;
	__u32 fixed_mask, native;
};

/*
 * The register model's hybrid presets (kmod/regmodel.c): even CPUs are
 * the Core type, odd ones the Atom type, behind one leaf 0AH of what both
 * share.  Each CPU's holding entry says its own PMU; INFO the first
 * type's, flagged hybrid.
 */
static void expect_types(struct __test_metadata *_metadata, int fd,
			 const struct hyb_type *want)
{
	struct pmuctl_holding h[8];
	struct pmuctl_info in;
	unsigned int cpu, n;

	ASSERT_EQ(0, holdings_v1(fd, &in, h, 8));
	ASSERT_EQ((__u32)PMUCTL_HOLDING_SIZE_VER1, in.holding_size);
	EXPECT_TRUE(!!(in.caps.flags & PMUCTL_CAP_HYBRID));
	EXPECT_EQ(want[0].model, in.pmu_model);
	EXPECT_EQ(want[0].nr_gp, in.caps.nr_gp);
	n = in.holdings_nr;
	for (cpu = 0; cpu < n; cpu++) {
		const struct hyb_type *w = &want[cpu & 1];

		ksft_print_msg("cpu %u: model %u, core type %#x native %#x, %u generic, fixed %#x\n",
			       cpu, h[cpu].pmu_model, h[cpu].caps.core_type,
			       h[cpu].caps.native_model, h[cpu].caps.nr_gp,
			       h[cpu].caps.fixed_mask);
		if (!(h[cpu].flags & PMUCTL_HOLDING_ONLINE))
			continue;
		EXPECT_EQ(w->model, h[cpu].pmu_model) TH_LOG("cpu %u", cpu);
		EXPECT_EQ(w->nr_gp, h[cpu].caps.nr_gp) TH_LOG("cpu %u", cpu);
		EXPECT_EQ(w->fixed_mask, h[cpu].caps.fixed_mask) TH_LOG("cpu %u", cpu);
		EXPECT_EQ(w->core_type, h[cpu].caps.core_type) TH_LOG("cpu %u", cpu);
		EXPECT_EQ(w->native, h[cpu].caps.native_model) TH_LOG("cpu %u", cpu);
		EXPECT_TRUE(!!(h[cpu].caps.flags & PMUCTL_CAP_HYBRID));
	}
}

/* `pmuctl info` names each type and its CPUs (the rig's 2 CPUs). */
static void __attribute__((noinline))
expect_info_types(struct __test_metadata *_metadata)
{
	static const char *const want[] = {
		"core types: each has its own PMU",
		"  Core (core type 0x40, native model 0x1): adl_glc, 8 generic x 48 bits, fixed mask 0xf: cpus 0\n",
		"  Atom (core type 0x20, native model 0x1): adl_grt, 6 generic x 48 bits, fixed mask 0x7: cpus 1\n",
		"hybrid",
	};
	char out[8192];
	size_t len;
	unsigned int i;
	FILE *f;

	if (cpus_possible() != 2) {
		ksft_print_msg("pmuctl info not checked: %u possible CPUs, the text expects 2\n",
			       cpus_possible());
		return;
	}
	f = popen("pmuctl info 2>&1", "r");
	ASSERT_TRUE(f != NULL);
	len = fread(out, 1, sizeof(out) - 1, f);
	out[len] = 0;
	pclose(f);
	if (strstr(out, "not found")) {
		ksft_print_msg("pmuctl info not checked: no pmuctl in PATH\n");
		return;
	}
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		bool found = strstr(out, want[i]) != NULL;

		if (!found)
			ksft_print_msg("want \"%s\" in:\n%s\n", want[i], out);
		EXPECT_TRUE(found);
	}
}

static const char *hybrid_unfit(void)
{
	if (access(PARAM_DIR "/regmodel_caps", F_OK))
		return "needs the register-model build";
	if (cpus_online() < 2)
		return "needs CPUs 0 and 1 online (one of each core type)";
	return NULL;
}

/*
 * Alder Lake (6/0x97): Golden Cove's 8 generic counters and fixed 0-3 by
 * Linux's rule, Gracemont's 6 and fixed 0-2 as leaf 0AH says; a group is
 * placed with its CPUs' PMU, on CPUs of one type only; task scope is
 * refused while there are two types; a refusal changes nothing.
 */
TEST_F(reload, hybrid_alder_lake_places_per_core_type)
{
	static const struct hyb_type want[2] = {
		{ PMUCTL_MODEL_ADL_GLC, 8, 0x40, 0xf, 1 },
		{ PMUCTL_MODEL_ADL_GRT, 6, 0x20, 0x7, 1 },
	};
	struct pmuctl_event ev[8], slots;
	struct pmuctl_program p;
	struct snap before = { 0 };
	const char *why = hybrid_unfit();
	struct pregs rg;
	unsigned int i;
	int fd, ret;

	if (why)
		SKIP(return, "%s", why);
	ret = load_variant(self, "adl", "");
	ASSERT_EQ(0, ret) TH_LOG("insmod regmodel_caps=adl: %s", strerror(-ret));
	fd = self->fd = dev_open();
	ASSERT_LE(0, fd);
	expect_types(_metadata, fd, want);

	for (i = 0; i < 8; i++)
		ev[i] = ev_make(EV_BR | USR, 0, GONLY);
	/* CPUs of two types: refused, nothing changes */
	ASSERT_EQ(0, snap_take(&before));
	ret = dev_program(fd, ev, 1, 0x3, &p);
	EXPECT_EQ(-EINVAL, ret);
	EXPECT_EQ((__u32)PMUCTL_R_CPU_TYPE, p.err_reason);
	EXPECT_EQ(1U, p.err_cpu);
	EXPECT_UNCHANGED(&before, false);
	/* the Atom type has 6 generic counters: 7 events do not fit */
	ret = dev_program(fd, ev, 7, 0x2, &p);
	EXPECT_EQ(-EBUSY, ret);
	EXPECT_EQ((__u32)PMUCTL_R_COUNTERS_BUSY, p.err_reason);
	EXPECT_UNCHANGED(&before, false);
	/* TOPDOWN.SLOTS, fixed counter 3: the Core type only */
	slots = ev_make(0x0400 | USR, 0, 0);
	ret = dev_program(fd, &slots, 1, 0x2, &p);
	EXPECT_EQ(-EINVAL, ret);
	EXPECT_EQ((__u32)PMUCTL_R_NO_ELIGIBLE_COUNTER, p.err_reason);
	EXPECT_UNCHANGED(&before, false);
	snap_free(&before);
	/* task scope: a thread would move between the types */
	ret = dev_program_task(fd, ev, 1, 0, &p);
	EXPECT_EQ(-EINVAL, ret);
	EXPECT_EQ((__u32)PMUCTL_R_CPU_TYPE, p.err_reason);

	/* 8 generic counters on the Core type, PMC7 written on CPU 0 */
	ret = dev_program(fd, ev, 8, 0x1, &p);
	ASSERT_EQ(0, ret) TH_LOG("reason %u index %u", p.err_reason, p.err_index);
	EXPECT_EQ(7U, ev[7].counter);
	ASSERT_EQ(0, regs_read(&rg));
	EXPECT_EQ((__u64)(EV_BR | USR), regs_get(&rg, 0, MSR_EVTSEL(7)) & 0xffffffff);
	/* the Atom CPU has no PMC7, and was not touched */
	EXPECT_EQ(~0ULL, regs_get(&rg, 1, MSR_EVTSEL(7)));
	EXPECT_EQ(0ULL, regs_get(&rg, 1, MSR_EVTSEL(0)));
	EXPECT_EQ(0, dev_ctl(fd, PMUCTL_IOC_RELEASE));
	ret = dev_program(fd, &slots, 1, 0x1, &p);
	EXPECT_EQ(0, ret) TH_LOG("reason %u", p.err_reason);
	EXPECT_EQ((__u32)(PMUCTL_COUNTER_FIXED | 3), slots.counter);
	EXPECT_EQ(0, dev_ctl(fd, PMUCTL_IOC_RELEASE));
	close(fd);
	self->fd = -1;
	EXPECT_EQ(0, state_wait_clean(1000));
	expect_info_types(_metadata);
}

/*
 * A hybrid CPU offline at load has no known type: its holding entry says
 * none, a group naming it is refused (CPU_TYPE, err_cpu it), task scope
 * too; once it comes online it is typed on itself and takes a group.
 */
TEST_F(reload, hybrid_cpu_offline_at_load_is_typed_when_it_comes_online)
{
	struct pmuctl_holding h[8];
	struct pmuctl_info in;
	struct pmuctl_event ev = ev_make(EV_BR | USR, 0, GONLY);
	struct pmuctl_program p;
	const char *why = hybrid_unfit();
	int fd, ret;

	if (why)
		SKIP(return, "%s", why);
	if (cpu_set_online(1, false))
		SKIP(return, "cpu1 cannot go offline here");
	ret = load_variant(self, "adl", "");
	if (ret)
		cpu_set_online(1, true);
	ASSERT_EQ(0, ret) TH_LOG("insmod regmodel_caps=adl: %s", strerror(-ret));
	fd = self->fd = dev_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, holdings_v1(fd, &in, h, 8));
	EXPECT_EQ((__u32)PMUCTL_MODEL_ADL_GLC, h[0].pmu_model);
	EXPECT_EQ((__u32)PMUCTL_MODEL_NONE, h[1].pmu_model);
	EXPECT_EQ(0U, h[1].caps.nr_gp);
	ret = dev_program(fd, &ev, 1, 0x2, &p);
	EXPECT_EQ(-EINVAL, ret);
	EXPECT_EQ((__u32)PMUCTL_R_CPU_TYPE, p.err_reason);
	EXPECT_EQ(1U, p.err_cpu);
	/* one type known, one CPU not known: a thread could run there */
	ret = dev_program_task(fd, &ev, 1, 0, &p);
	EXPECT_EQ(-EINVAL, ret);
	EXPECT_EQ((__u32)PMUCTL_R_CPU_TYPE, p.err_reason);

	ASSERT_EQ(0, cpu_set_online(1, true));
	ASSERT_EQ(0, holdings_v1(fd, &in, h, 8));
	EXPECT_EQ((__u32)PMUCTL_MODEL_ADL_GRT, h[1].pmu_model);
	EXPECT_EQ(6U, h[1].caps.nr_gp);
	ret = dev_program(fd, &ev, 1, 0x2, &p);
	EXPECT_EQ(0, ret) TH_LOG("reason %u", p.err_reason);
	close(fd);
	self->fd = -1;
	EXPECT_EQ(0, state_wait_clean(1000));
}

/*
 * Meteor Lake (6/0xaa): both types' counters from leaf 23H (Redwood Cove
 * 8 generic and fixed 0-3, Crestmont 8 and fixed 0-2); their models are
 * Granite Rapids' and Sierra Forest's tables: the Crestmont CPU refuses
 * 0x0127 (MSR_SNOOP_RSP_0, not arbitrated), the Redwood Cove CPU, whose
 * table has no such rule, takes it.
 */
TEST_F(reload, hybrid_meteor_lake_types_from_leaf_23h)
{
	static const struct hyb_type want[2] = {
		{ PMUCTL_MODEL_GNR, 8, 0x40, 0xf, 2 },
		{ PMUCTL_MODEL_SRF, 8, 0x20, 0x7, 2 },
	};
	struct pmuctl_event ev;
	struct pmuctl_program p;
	const char *why = hybrid_unfit();
	int fd, ret;

	if (why)
		SKIP(return, "%s", why);
	ret = load_variant(self, "mtl", "");
	ASSERT_EQ(0, ret) TH_LOG("insmod regmodel_caps=mtl: %s", strerror(-ret));
	fd = self->fd = dev_open();
	ASSERT_LE(0, fd);
	expect_types(_metadata, fd, want);
	ev = ev_make(0x0127 | USR, 0, 0);
	ret = dev_program(fd, &ev, 1, 0x2, &p);
	EXPECT_EQ(-EINVAL, ret);
	EXPECT_EQ((__u32)PMUCTL_R_EXTRA_UNSUPPORTED, p.err_reason);
	ret = dev_program(fd, &ev, 1, 0x1, &p);
	EXPECT_EQ(0, ret) TH_LOG("reason %u", p.err_reason);
	EXPECT_EQ(0, dev_ctl(fd, PMUCTL_IOC_RELEASE));
	close(fd);
	self->fd = -1;
	EXPECT_EQ(0, state_wait_clean(1000));
}

/*
 * Topdown metrics on the register model's Ice Lake-SP (PERF_CAPABILITIES
 * bit 15): TOPDOWN.SLOTS on fixed counter 3 and two metrics read
 * PERF_METRICS (rdpmc ECX bit 29); START enables GLOBAL_CTRL bit 48 with
 * fixed counter 3, STOP clears it; RESET and RELEASE zero fixed counter 3
 * and PERF_METRICS together; a metric without slots is refused and
 * changes nothing.
 */
TEST_F(reload, perf_metrics_follow_slots)
{
	struct pmuctl_event ev[3] = {
		ev_make(0x0400 | USR | OS, 0, 0),	/* slots */
		ev_make(0x8000 | USR | OS, 0, 0),	/* retiring */
		ev_make(0x8300 | USR | OS, 0, 0),	/* backend bound */
	};
	struct pmuctl_program p;
	struct pmuctl_info in;
	struct snap before = { 0 };
	struct pregs rg;
	__u64 val[3];
	int fd, ret;

	if (access(PARAM_DIR "/regmodel_caps", F_OK))
		SKIP(return, "needs the register-model build");
	ret = load_variant(self, "icx", "");
	ASSERT_EQ(0, ret) TH_LOG("insmod regmodel_caps=icx: %s", strerror(-ret));
	fd = self->fd = dev_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, dev_info(fd, &in));
	EXPECT_TRUE(!!(in.caps.flags & PMUCTL_CAP_PERF_METRICS));

	/* refusals first: nothing changes */
	ASSERT_EQ(0, snap_take(&before));
	ret = dev_program(fd, &ev[1], 2, 0x1, &p);
	EXPECT_EQ(-EINVAL, ret);
	EXPECT_EQ((__u32)PMUCTL_R_METRICS_NEED_SLOTS, p.err_reason);
	EXPECT_EQ(0U, p.err_index);
	EXPECT_UNCHANGED(&before, false);
	snap_free(&before);

	ASSERT_EQ(0, regs_preset(0, MSR_PERF_METRICS, 0x0102030405060708ULL));
	ret = dev_program(fd, ev, 3, 0x1, &p);
	ASSERT_EQ(0, ret) TH_LOG("reason %u index %u", p.err_reason, p.err_index);
	EXPECT_EQ((__u32)(PMUCTL_COUNTER_FIXED | 3), ev[0].counter);
	EXPECT_EQ((__u32)PMUCTL_COUNTER_METRICS, ev[1].counter);
	EXPECT_EQ((__u32)PMUCTL_COUNTER_METRICS, ev[2].counter);
	/* programmed stopped and zeroed, PERF_METRICS with fixed counter 3 */
	ASSERT_EQ(0, regs_read(&rg));
	EXPECT_EQ(0ULL, regs_get(&rg, 0, MSR_PERF_METRICS));
	EXPECT_EQ(0ULL, regs_get(&rg, 0, MSR_GLOBAL_CTRL) & (1ULL << 48));
	EXPECT_EQ(0, dev_ctl(fd, PMUCTL_IOC_START));
	ASSERT_EQ(0, regs_read(&rg));
	EXPECT_EQ((1ULL << 48) | (1ULL << 35),
		  regs_get(&rg, 0, MSR_GLOBAL_CTRL) & ((1ULL << 48) | (1ULL << 35)));
	EXPECT_EQ(0x3000ULL, regs_get(&rg, 0, MSR_FIXED_CTRL) & 0xf000);
	/* the raw register, for each metric */
	ASSERT_EQ(0, regs_preset(0, MSR_FIXED_CTR(3), 1000));
	ASSERT_EQ(0, regs_preset(0, MSR_PERF_METRICS, 0x00000000ff00ff00ULL));
	ASSERT_EQ(0, dev_read(fd, 0, val, 3));
	EXPECT_EQ(1000ULL, val[0]);
	EXPECT_EQ(0xff00ff00ULL, val[1]);
	EXPECT_EQ(0xff00ff00ULL, val[2]);
	/* RESET: both zero, still running */
	EXPECT_EQ(0, dev_ctl(fd, PMUCTL_IOC_RESET));
	ASSERT_EQ(0, regs_read(&rg));
	EXPECT_EQ(0ULL, regs_get(&rg, 0, MSR_FIXED_CTR(3)));
	EXPECT_EQ(0ULL, regs_get(&rg, 0, MSR_PERF_METRICS));
	EXPECT_EQ(1ULL << 48, regs_get(&rg, 0, MSR_GLOBAL_CTRL) & (1ULL << 48));
	EXPECT_EQ(0, dev_ctl(fd, PMUCTL_IOC_STOP));
	ASSERT_EQ(0, regs_read(&rg));
	EXPECT_EQ(0ULL, regs_get(&rg, 0, MSR_GLOBAL_CTRL) & ((1ULL << 48) | (1ULL << 35)));
	ASSERT_EQ(0, regs_preset(0, MSR_PERF_METRICS, 0x55));
	EXPECT_EQ(0, dev_ctl(fd, PMUCTL_IOC_RELEASE));
	ASSERT_EQ(0, regs_read(&rg));
	EXPECT_EQ(0ULL, regs_get(&rg, 0, MSR_PERF_METRICS));
	close(fd);
	self->fd = -1;
	EXPECT_EQ(0, state_wait_clean(1000));
}

TEST_F(reload, perfmon_v6_withholds_fixed_2_where_perf_is_unreserved)
{
	struct pmuctl_event ev = ev_make(EV_BR | USR, 0, GONLY);
	struct pmuctl_event ref = ev_make(EV_REF | USR, 0, 0);	/* fixed 2 only */
	struct pmuctl_program p;
	struct load_env env;
	struct snap before = { 0 };
	bool refuse = kernel_6_11_or_later();
	int fd, ret, i;

	if (access(PARAM_DIR "/regmodel_caps", F_OK))
		SKIP(return, "needs the register-model build");
	ret = load_variant(self, "skl-v6", "");
	ASSERT_EQ(0, ret) TH_LOG("insmod regmodel_caps=skl-v6: %s", strerror(-ret));
	fd = self->fd = dev_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, load_env_init(&env, fd));
	EXPECT_EQ(6, env.info.caps.version);
	EXPECT_EQ(refuse ? 0x3U : 0x7U, env.info.caps.fixed_mask);	/* skl: 3 fixed */
	EXPECT_EQ(refuse, !!(env.info.caps.flags & PMUCTL_CAP_FIXED2_WITHHELD));
	ASSERT_EQ(0, snap_take(&before));
	/* CPU scope, then task scope: the same counter withheld from both. */
	for (i = 0; i < 2; i++) {
		ret = i ? dev_program_task(fd, &ref, 1, 0, &p) :
			  dev_program(fd, &ref, 1, 1, &p);
		ksft_print_msg("perfmon v6, kernel %s 6.11: %s PROGRAM on fixed 2 %s, reason %u\n",
			       refuse ? ">=" : "<", i ? "task" : "CPU",
			       strerror(-ret), p.err_reason);
		if (refuse) {
			EXPECT_EQ(-EINVAL, ret);
			EXPECT_U64(PMUCTL_R_NO_ELIGIBLE_COUNTER, p.err_reason);
			EXPECT_UNCHANGED(&before, true);
		} else {
			EXPECT_EQ(0, ret);
			EXPECT_EQ(0, dev_ctl(fd, PMUCTL_IOC_RELEASE));
		}
	}
	ret = dev_program(fd, &ev, 1, 1, &p);
	EXPECT_EQ(0, ret) TH_LOG("PROGRAM on a generic counter: %s, reason %u",
				 strerror(-ret), p.err_reason);
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

/* As log_first(), the last such write since @from. */
static int log_last_since(const char *log, unsigned long from, __u32 cpu, __u32 msr,
		    unsigned long long *val)
{
	unsigned long long v;
	int at = -1, k;

	for (unsigned long f = from; (k = log_first(log, f, cpu, msr, &v)) >= 0;
	     f += (unsigned long)k + 1) {
		at = (int)(f - from) + k;
		*val = v;
	}
	return at;
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

/*
 * Task scope switches PERF_METRICS with its thread, as Linux does
 * (kmod/pool.c): the thread's switch-in writes fixed counter 3, then
 * PERF_METRICS, the pair its switch-out kept (here: what the test preset
 * while it ran); START enables GLOBAL_CTRL bit 48 with fixed counter 3;
 * the session's READ adds threads up as slots and gives the register of
 * the sums, with the bytes of the group's metrics only; RESET writes both
 * 0, fixed counter 3 first.
 */
TEST_F(reload, perf_metrics_are_switched_with_their_thread)
{
	struct pmuctl_event ev[3] = {
		ev_make(0x0400 | USR | OS, 0, 0),	/* slots */
		ev_make(0x8000 | USR | OS, 0, 0),	/* retiring */
		ev_make(0x8300 | USR | OS, 0, 0),	/* backend bound */
	};
	unsigned long long v = 0;
	struct pmuctl_program p;
	struct pmuctl_read r;
	unsigned long from;
	struct pregs rg;
	cpu_set_t one;
	__u64 val[3];
	char *log;
	int fd, ret, a, b;

	if (access(PARAM_DIR "/regmodel_caps", F_OK))
		SKIP(return, "needs the register-model build");
	ret = load_variant(self, "icx", "");
	ASSERT_EQ(0, ret) TH_LOG("insmod regmodel_caps=icx: %s", strerror(-ret));
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
	fd = self->fd = dev_open();
	ASSERT_LE(0, fd);
	ret = dev_program_task(fd, ev, 3, 0, &p);
	ASSERT_EQ(0, ret) TH_LOG("reason %u index %u", p.err_reason, p.err_index);
	EXPECT_EQ((__u32)(PMUCTL_COUNTER_FIXED | 3), ev[0].counter);
	EXPECT_EQ((__u32)PMUCTL_COUNTER_METRICS, ev[1].counter);
	EXPECT_EQ((__u32)PMUCTL_COUNTER_METRICS, ev[2].counter);
	EXPECT_EQ(0, dev_ctl(fd, PMUCTL_IOC_START));
	ASSERT_EQ(0, regs_read(&rg));
	EXPECT_EQ((1ULL << 48) | (1ULL << 35),
		  regs_get(&rg, 0, MSR_GLOBAL_CTRL) & ((1ULL << 48) | (1ULL << 35)));

	/* What the thread counted so far, then a switch out and back in. */
	ASSERT_EQ(0, regs_preset(0, MSR_FIXED_CTR(3), 1000));
	ASSERT_EQ(0, regs_preset(0, MSR_PERF_METRICS, 0xff00ff00ULL));
	from = log_writes();
	usleep(20000);
	log = slurp(DBG_DIR "/log");
	ASSERT_NE(NULL, log);
	a = log_first(log, from, 0, MSR_FIXED_CTR(3), &v);
	EXPECT_LE(0, a) TH_LOG("no write of fixed counter 3 at the switch-in");
	EXPECT_EQ(1000ULL, v);
	b = log_first(log, from, 0, MSR_PERF_METRICS, &v);
	EXPECT_LT(a, b) TH_LOG("PERF_METRICS (write %d) must follow fixed counter 3 (%d)",
			       b, a);
	EXPECT_EQ(0xff00ff00ULL, v);
	free(log);

	/* The session's sum: the group's bytes of the slots-weighted shares. */
	ASSERT_EQ(0, dev_read_task(fd, 0, val, 3, &r));
	EXPECT_EQ(1000ULL, val[0]);
	EXPECT_EQ(0xff000000ULL, val[1]);
	EXPECT_EQ(0xff000000ULL, val[2]);

	/* A switch-in may come first: RESET's writes are the last ones. */
	from = log_writes();
	EXPECT_EQ(0, dev_ctl(fd, PMUCTL_IOC_RESET));
	log = slurp(DBG_DIR "/log");
	ASSERT_NE(NULL, log);
	a = log_last_since(log, from, 0, MSR_FIXED_CTR(3), &v);
	EXPECT_EQ(0ULL, v);
	b = log_last_since(log, from, 0, MSR_PERF_METRICS, &v);
	EXPECT_LT(a, b);
	EXPECT_LE(0, a);
	EXPECT_EQ(0ULL, v);
	free(log);
	ASSERT_EQ(0, dev_read_task(fd, 0, val, 3, &r));
	EXPECT_EQ(0ULL, val[1]);
	EXPECT_EQ(0, dev_ctl(fd, PMUCTL_IOC_RELEASE));
	close(fd);
	self->fd = -1;
	EXPECT_EQ(0, state_wait_clean(1000));
}

/*
 * Lunar Lake (6/0xbd, perfmon v6): Lion Cove's 10 generic counters and
 * Skymont's fixed counters 0-2 and 4-6 from leaf 23H, their models
 * lnl_lnc and lnl_skt.  Skymont's TOPDOWN_BAD_SPECULATION.ALL (Intel's
 * 0x0500) goes on fixed counter 4, which exists only at its v6 address
 * (IA32_PMC_FX4_CTR 0x1990: the register model faults 0x30d); Lion Cove
 * takes ten branches events and a umask2 event.  On Linux 6.11+ fixed
 * counter 2 is withheld on both types (perf's sentinel's place).
 */
#define MSR_V6_CTR(i)	(0x1900 + 4 * (i))
#define MSR_V6_CFG_A(i)	(0x1901 + 4 * (i))
#define MSR_V6_FX_CTR(i)	(0x1980 + 4 * (i))
#define FIXED_USR_NIBBLE	0x2ULL

TEST_F(reload, hybrid_lunar_lake_v6_counters_past_the_legacy_ranges)
{
	bool w2 = kernel_6_11_or_later();
	const struct hyb_type want[2] = {
		{ PMUCTL_MODEL_LNL_LNC, 10, 0x40, w2 ? 0xb : 0xf, 3 },
		{ PMUCTL_MODEL_LNL_SKT, 8, 0x20, w2 ? 0x73 : 0x77, 3 },
	};
	struct pmuctl_event ev[10], td;
	struct pmuctl_program p;
	const char *why = hybrid_unfit();
	unsigned long long v = 0;
	unsigned long from;
	struct pregs rg;
	char *log;
	int fd, ret, i;

	if (why)
		SKIP(return, "%s", why);
	ret = load_variant(self, "lnl", "");
	ASSERT_EQ(0, ret) TH_LOG("insmod regmodel_caps=lnl: %s", strerror(-ret));
	fd = self->fd = dev_open();
	ASSERT_LE(0, fd);
	expect_types(_metadata, fd, want);

	/* Skymont: fixed counter 4 at 0x1990 */
	td = ev_make(0x0500 | USR, 0, 0);
	from = log_writes();
	ret = dev_program(fd, &td, 1, 0x2, &p);
	ASSERT_EQ(0, ret) TH_LOG("reason %u", p.err_reason);
	EXPECT_EQ((__u32)(PMUCTL_COUNTER_FIXED | 4), td.counter);
	EXPECT_EQ(0, dev_ctl(fd, PMUCTL_IOC_START));
	ASSERT_EQ(0, regs_read(&rg));
	EXPECT_U64(FIXED_USR_NIBBLE << 16, regs_get(&rg, 1, MSR_FIXED_CTRL) & (0xfULL << 16));
	EXPECT_U64(1ULL << 36, regs_get(&rg, 1, MSR_GLOBAL_CTRL) & (1ULL << 36));
	log = slurp(DBG_DIR "/log");
	ASSERT_NE(NULL, log);
	EXPECT_LE(0, log_first(log, from, 1, MSR_V6_FX_CTR(4), &v));
	EXPECT_EQ(-1, log_first(log, from, 1, MSR_FIXED_CTR(4), &v));
	free(log);
	EXPECT_EQ(0, dev_ctl(fd, PMUCTL_IOC_RELEASE));

	/* Lion Cove: ten generic counters, and a umask2 event (its table's) */
	for (i = 0; i < 10; i++)
		ev[i] = ev_make(EV_BR | USR, 0, GONLY);
	ev[9] = ev_make(0x01c4 | USR | (1ULL << PMUCTL_CFG_UMASK2_SHIFT), 0, GONLY);
	ret = dev_program(fd, ev, 10, 0x1, &p);
	ASSERT_EQ(0, ret) TH_LOG("reason %u index %u", p.err_reason, p.err_index);
	EXPECT_EQ(0, dev_ctl(fd, PMUCTL_IOC_START));
	ASSERT_EQ(0, regs_read(&rg));
	EXPECT_U64(0x01c4 | USR | PMUCTL_CFG_EN | (1ULL << PMUCTL_CFG_UMASK2_SHIFT),
		   regs_get(&rg, 0, MSR_V6_CFG_A(ev[9].counter)));
	EXPECT_U64(0x3ff, regs_get(&rg, 0, MSR_GLOBAL_CTRL) & 0x3ff);
	EXPECT_EQ(0, dev_ctl(fd, PMUCTL_IOC_RELEASE));
	close(fd);
	self->fd = -1;
	EXPECT_EQ(0, state_wait_clean(1000));
}

/*
 * Perfmon v6 [SDM vol. 3B, "Performance Monitoring Version 6"]: generic
 * counter i at 0x1900 + 4i, its event select at 0x1901 + 4i.  The v6x
 * preset has 10 generic counters (leaf 0AH 8, leaf 23H 10, as Lion Cove)
 * whose legacy ranges stop at 8, and enumerates UMASK2 and EQ: all ten are
 * offered, programmed at their v6 addresses (a legacy address past 8
 * faults, HW_FAULT), an event with UMASK2 and EQ reaches its select
 * intact, and the release clears them.  skl-v6 (no leaf 23H) refuses
 * UMASK2 and EQ with their own reasons and changes nothing.
 */

TEST_F(reload, perfmon_v6_addresses_counters_past_the_legacy_8)
{
	const __u64 u2eq = PMUCTL_CFG_EQ | (5ULL << PMUCTL_CFG_UMASK2_SHIFT) |
			   (1ULL << PMUCTL_CFG_CMASK_SHIFT);
	struct pmuctl_event ev[11];
	struct pmuctl_program p;
	struct load_env env;
	struct snap before = { 0 };
	struct pregs rg;
	unsigned long long v = 0;
	unsigned long from;
	char *log;
	int fd, ret, i;

	if (access(PARAM_DIR "/regmodel_caps", F_OK))
		SKIP(return, "needs the register-model build");
	ret = load_variant(self, "v6x", "");
	ASSERT_EQ(0, ret) TH_LOG("insmod regmodel_caps=v6x: %s", strerror(-ret));
	fd = self->fd = dev_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, load_env_init(&env, fd));
	EXPECT_EQ(6, env.info.caps.version);
	EXPECT_EQ(10, env.info.caps.nr_gp);
	EXPECT_EQ(0U, env.info.caps.flags & PMUCTL_CAP_GP_CLAMPED);
	EXPECT_EQ(PMUCTL_CAP_UMASK2 | PMUCTL_CAP_EQ,
		  env.info.caps.flags & (PMUCTL_CAP_UMASK2 | PMUCTL_CAP_EQ));

	for (i = 0; i < 11; i++)
		ev[i] = ev_make(EV_BR | USR, 0, GONLY);
	ev[9] = ev_make(EV_BR | USR | u2eq, 0, GONLY);
	/* eleven do not fit, and change nothing */
	ASSERT_EQ(0, snap_take(&before));
	ret = dev_program(fd, ev, 11, 1, &p);
	EXPECT_EQ(-EBUSY, ret);
	EXPECT_EQ((__u32)PMUCTL_R_COUNTERS_BUSY, p.err_reason);
	EXPECT_UNCHANGED(&before, false);
	snap_free(&before);

	from = log_writes();
	ret = dev_program(fd, ev, 10, 1, &p);
	ASSERT_EQ(0, ret) TH_LOG("PROGRAM of 10: %s, reason %u index %u",
				 strerror(-ret), p.err_reason, p.err_index);
	for (i = 0; i < 10; i++)
		EXPECT_EQ((__u32)i, ev[i].counter) TH_LOG("event %d", i);
	ASSERT_EQ(0, regs_read(&rg));	/* programmed, not started */
	EXPECT_U64(EV_BR | USR | u2eq, regs_get(&rg, 0, MSR_V6_CFG_A(9)));
	EXPECT_U64(0, regs_get(&rg, 0, MSR_GLOBAL_CTRL) & 0x3ff);
	EXPECT_EQ(0, dev_ctl(fd, PMUCTL_IOC_START));
	ASSERT_EQ(0, regs_read(&rg));
	EXPECT_U64(EV_BR | USR | PMUCTL_CFG_EN, regs_get(&rg, 0, MSR_EVTSEL(0)));
	EXPECT_U64(EV_BR | USR | PMUCTL_CFG_EN, regs_get(&rg, 0, MSR_V6_CFG_A(8)));
	EXPECT_U64(EV_BR | USR | u2eq | PMUCTL_CFG_EN, regs_get(&rg, 0, MSR_V6_CFG_A(9)));
	EXPECT_U64(0x3ff, regs_get(&rg, 0, MSR_GLOBAL_CTRL) & 0x3ff);
	/* as Linux 6.11+: every counter at its v6 address, none past 8 legacy */
	log = slurp(DBG_DIR "/log");
	ASSERT_NE(NULL, log);
	EXPECT_LE(0, log_first(log, from, 0, MSR_V6_CFG_A(0), &v));
	EXPECT_LE(0, log_first(log, from, 0, MSR_V6_CFG_A(9), &v));
	EXPECT_LE(0, log_first(log, from, 0, MSR_V6_CTR(9), &v));
	EXPECT_EQ(-1, log_first(log, from, 0, MSR_EVTSEL(0), &v));
	EXPECT_EQ(-1, log_first(log, from, 0, MSR_EVTSEL(8), &v));
	EXPECT_EQ(-1, log_first(log, from, 0, MSR_PMC(8), &v));
	free(log);
	EXPECT_EQ(0, dev_ctl(fd, PMUCTL_IOC_RELEASE));
	ASSERT_EQ(0, regs_read(&rg));
	EXPECT_U64(0, regs_get(&rg, 0, MSR_V6_CFG_A(8)));
	EXPECT_U64(0, regs_get(&rg, 0, MSR_V6_CFG_A(9)));
	close(fd);
	self->fd = -1;
	EXPECT_EQ(0, state_wait_clean(1000));

	/* without leaf 23H: refused by name, nothing changed */
	ret = load_variant(self, "skl-v6", "");
	ASSERT_EQ(0, ret) TH_LOG("insmod regmodel_caps=skl-v6: %s", strerror(-ret));
	fd = self->fd = dev_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, snap_take(&before));
	ev[0] = ev_make(EV_BR | USR | (1ULL << PMUCTL_CFG_UMASK2_SHIFT), 0, 0);
	ret = dev_program(fd, ev, 1, 1, &p);
	EXPECT_EQ(-EINVAL, ret);
	EXPECT_EQ((__u32)PMUCTL_R_UMASK2_UNAVAILABLE, p.err_reason);
	ev[0] = ev_make(EV_BR | USR | PMUCTL_CFG_EQ | (1ULL << PMUCTL_CFG_CMASK_SHIFT), 0, 0);
	ret = dev_program(fd, ev, 1, 1, &p);
	EXPECT_EQ(-EINVAL, ret);
	EXPECT_EQ((__u32)PMUCTL_R_EQ_UNAVAILABLE, p.err_reason);
	EXPECT_UNCHANGED(&before, true);
	snap_free(&before);
	close(fd);
	self->fd = -1;
	EXPECT_EQ(0, state_wait_clean(1000));
	EXPECT_EQ(0, mod_unload());
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

	if (access(PARAM_DIR "/regmodel_caps", F_OK))
		SKIP(return, "needs the register-model build");
	ret = load_variant(self, "skl-tfa", "");
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

	if (access(PARAM_DIR "/regmodel_caps", F_OK))
		SKIP(return, "needs the register-model build");
	ret = load_variant(self, "skl-tfa", "allow_tsx_force_abort=0");
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

/* ---- debugfs state across a failed init --------------------------------------- */

#define NR_FAILED_INITS	5
#define INIT_STALL_MS	200
#define INIT_WAIT_S	20	/* a finit_module() past this is stuck */

/* What the reader of pmuctl/state saw, in memory shared with the test. */
struct state_reader {
	volatile int stop;
	volatile unsigned long tries;	/* open() attempts */
	unsigned long opened, nonempty, enoent, other;
	int other_errno;
	char first[160];		/* the first non-empty read */
};


/* Open, read and close pmuctl/state until told to stop. */
static void state_reader_run(struct state_reader *r)
{
	char buf[4096];
	ssize_t n;
	int fd;

	while (!r->stop) {
		r->tries++;
		fd = open(DBG_STATE, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			if (errno == ENOENT) {
				r->enoent++;
			} else {
				r->other++;
				r->other_errno = errno;
			}
			continue;
		}
		r->opened++;
		n = read(fd, buf, sizeof(buf) - 1);
		if (n > 0 && !r->nonempty++)
			memcpy(r->first, buf, (size_t)n < sizeof(r->first) - 1 ?
			       (size_t)n : sizeof(r->first) - 1);
		close(fd);
	}
}

/* finit_module() in a child, waited for at most INIT_WAIT_S: 0, -errno, or -ETIME. */
static int mod_load_bounded(const char *path, const char *params)
{
	double end = now() + INIT_WAIT_S;
	int status;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid)
		_exit(-mod_load(path, params) & 0xff);
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (now() > end)
			return -ETIME;	/* left behind: it cannot be killed */
		usleep(10000);
	}
	if (!WIFEXITED(status))
		return -ECHILD;
	return -WEXITSTATUS(status);
}

/*
 * pmuctl/state shows the per-CPU state: it must not be there before that
 * state exists nor after it is freed.  The register model's init runs in
 * between (after debugfs, before pmuctl_hw_init()); its test hooks make it
 * stall, then fail, so that the module's init unwinds.  A reader loops on
 * the file all along; each failed init must leave it nothing to read, and
 * the kernel must log no Oops, BUG or KASAN report.
 */
TEST_F(reload, debugfs_state_absent_while_init_runs_and_after_it_fails)
{
	static const char *const bad[] = {
		"BUG:", "Oops", "KASAN", "general protection fault", "WARNING:",
	};
	struct state_reader *r;
	char params[600], line[160], first[256];
	unsigned long before, during_min = ~0UL;
	unsigned int i, nbad = 0;
	int kmsg, ret, status;
	pid_t reader;

	if (access(PARAM_DIR "/regmodel_caps", F_OK))
		SKIP(return, "needs the register-model build");
	ASSERT_EQ(0, access(PARAM_DIR "/regmodel_init_fail", F_OK)) {
		TH_LOG("the register-model build has no regmodel_init_fail hook (kmod/regmodel.c)");
	}
	ASSERT_TRUE(debugfs_ready());
	r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, r);
	memset(r, 0, sizeof(*r));
	snprintf(line, sizeof(line), "regmodel_init_stall_ms=%d regmodel_init_fail=1",
		 INIT_STALL_MS);
	params_with(params, sizeof(params), self->params, "regmodel_init_stall_ms", line);

	ASSERT_EQ(0, mod_unload());
	kmsg = kmsg_open();
	ASSERT_LE(0, kmsg);
	fflush(stdout);
	fflush(stderr);
	reader = fork();
	ASSERT_LE(0, reader);
	if (!reader) {
		state_reader_run(r);
		_exit(0);
	}
	ksft_print_msg("reader of %s started; %d inits of %s %s\n", DBG_STATE,
		       NR_FAILED_INITS, MODULE_KO, params);
	for (i = 0; i < NR_FAILED_INITS; i++) {
		before = r->tries;
		ret = mod_load_bounded(MODULE_KO, params);
		if (r->tries - before < during_min)
			during_min = r->tries - before;
		if (ret == -ETIME) {
			/* Stuck for good (a reader that died inside the file): no reload. */
			kill(reader, SIGKILL);
			ASSERT_NE(-ETIME, ret) {
				TH_LOG("init %u: finit_module() still blocked after %d s", i,
				       INIT_WAIT_S);
			}
		}
		if (!ret)
			mod_unload();
		ASSERT_EQ(-ECANCELED, ret) {
			TH_LOG("init %u: insmod %s %s: %s (want the hook's ECANCELED)", i,
			       MODULE_KO, params, strerror(-ret));
		}
		ASSERT_FALSE(loaded());
	}
	r->stop = 1;
	ASSERT_EQ(reader, waitpid(reader, &status, 0));
	ksft_print_msg("reader: %lu opens tried, %lu opened, %lu read non-empty, %lu ENOENT, %lu other%s%s; at least %lu tries during each init\n",
		       r->tries, r->opened, r->nonempty, r->enoent, r->other,
		       r->other ? ", last: " : "",
		       r->other ? strerror(r->other_errno) : "", during_min);
	nbad = kmsg_count_any(kmsg, bad, ARRAY_SIZE(bad), first, sizeof(first));
	close(kmsg);

	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) {
		TH_LOG("the reader of %s ended with wait status %#x", DBG_STATE, status);
	}
	/* The reader raced every stall: the check below means something. */
	EXPECT_LT(0UL, during_min);
	EXPECT_EQ(0UL, r->nonempty) {
		TH_LOG("%s read while no module was loaded, first: \"%.120s\"",
		       DBG_STATE, r->first);
	}
	EXPECT_EQ(0U, nbad) TH_LOG("kernel log: \"%s\"", first);
	munmap(r, sizeof(*r));
	ret = mod_load(MODULE_KO, self->params);
	ASSERT_EQ(0, ret) TH_LOG("insmod %s %s: %s", MODULE_KO, self->params,
				 strerror(-ret));
	ASSERT_TRUE(debugfs_ready());
}

DEVICE_TEST_MAIN
