// SPDX-License-Identifier: GPL-2.0
/*
 * CPUs going off and on line under /dev/pmuctl sessions (kmod/power.c: the
 * claims stay with an offline CPU, whose registers pmuctl took are given
 * back as found; a CPU coming online is written from its shadow):
 *
 *  - sessions hold groups on CPUs 1..3 while each goes off and on line
 *    again and again: the claims in pmuctl/state never change, READ of the
 *    offline CPU is ENODEV, its control registers read 0 while it is away
 *    and, when it is back, hold what the sessions want now (START, STOP
 *    and RESET may have happened meanwhile);
 *  - a group programmed while one of its CPUs is offline reaches that CPU
 *    when it comes back; a group released meanwhile leaves nothing there;
 *  - a CPU that was offline during RESET or PROGRAM comes back with the
 *    group's counters at zero, not with the counts it had;
 *  - suspend to RAM (pm_test "core": the syscore suspend and resume run,
 *    the machine does not sleep) loses the boot CPU's PMU registers in the
 *    register model, as on silicon, and pmuctl writes them back;
 *  - CPUs 1..3 go off and on line during stress_test's load of 8 workers.
 *
 * Needs 4 CPUs (scripts/vm/run.sh -s 4; check.sh boots such guests with
 * -l hotplug and this program alone) and the register model for regs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"
#include "load.h"
#include "kselftest_harness.h"

#define NR_CPUS_NEEDED	4
#define NR_CYCLES	24	/* off/on line cycles of the first test */
#define NR_WORKERS	8
#define NR_ROUNDS	1000	/* sessions per worker, at least */
#define NR_LOAD_CYCLES	60	/* off/on line cycles under the load, at least */

#define EVTSEL_EN	(1ULL << 22)
#define FIXED_OS	0x1
#define FIXED_USR	0x2
#define FIXED_ANY	0x4

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Why this guest cannot run the tests, or NULL. */
static const char *unfit(void)
{
	return hotplug_unfit(NR_CPUS_NEEDED);
}

/* The control registers of one CPU, as pmuctl/regs shows them. */
struct ctl_regs {
	__u64 evtsel[PMUCTL_MAX_GP];
	__u64 fixed_ctrl, global_ctrl;
	__u64 x[PMUCTL_XREG_MAX];
};

static int xreg_of(const struct pmuctl_model *m, __u32 msr)
{
	unsigned int i;

	for (i = 0; i < m->nr_xregs; i++)
		if (m->xregs[i].msr == msr)
			return i;
	return -1;
}

/* Add what a group wants on a CPU it holds, running or stopped. */
static void want_group(struct ctl_regs *w, const struct load_env *env,
		       const struct pmuctl_event *ev, __u32 n, bool run)
{
	__u32 i;

	for (i = 0; i < n; i++) {
		__u64 cfg = ev[i].config_used;
		__u32 c = ev[i].counter;
		int x = xreg_of(env->model, ev[i].extra_msr);

		if (c & PMUCTL_COUNTER_FIXED) {
			__u64 nib = (cfg & PMUCTL_CFG_OS ? FIXED_OS : 0) |
				    (cfg & PMUCTL_CFG_USR ? FIXED_USR : 0) |
				    (cfg & PMUCTL_CFG_ANY ? FIXED_ANY : 0);

			c &= ~PMUCTL_COUNTER_FIXED;
			if (run) {
				w->fixed_ctrl |= nib << 4 * c;
				w->global_ctrl |= 1ULL << (32 + c);
			}
		} else {
			w->evtsel[c] = cfg | (run ? EVTSEL_EN : 0);
			if (run)
				w->global_ctrl |= 1ULL << c;
		}
		if (ev[i].extra_msr && x >= 0)
			w->x[x] = ev[i].extra;
	}
}

static void have_cpu(struct ctl_regs *h, const struct load_env *env,
		     const struct pregs *rg, __u32 cpu)
{
	unsigned int i;

	memset(h, 0, sizeof(*h));
	for (i = 0; i < env->info.caps.nr_gp; i++)
		h->evtsel[i] = regs_get(rg, cpu, MSR_EVTSEL(i));
	h->fixed_ctrl = regs_get(rg, cpu, MSR_FIXED_CTRL);
	h->global_ctrl = regs_get(rg, cpu, MSR_GLOBAL_CTRL);
	for (i = 0; i < env->model->nr_xregs; i++)
		h->x[i] = regs_get(rg, cpu, env->model->xregs[i].msr);
}

/* NULL if @cpu's control registers are @w, else the first difference. */
static const char *regs_differ(const struct load_env *env, __u32 cpu,
			       const struct ctl_regs *w)
{
	static struct pregs rg;
	static char msg[160];
	struct ctl_regs h;
	unsigned int i;

	if (regs_read(&rg))
		return "cannot read pmuctl/regs";
	have_cpu(&h, env, &rg, cpu);
#define DIFF(name, msr, a, b) do {					\
	if ((a) != (b)) {						\
		snprintf(msg, sizeof(msg), "cpu %u %s (msr %#x) is %#llx, want %#llx", \
			 cpu, name, msr, (unsigned long long)(a),	\
			 (unsigned long long)(b));			\
		return msg;						\
	}								\
} while (0)
	for (i = 0; i < env->info.caps.nr_gp; i++)
		DIFF("EVTSEL", MSR_EVTSEL(i), h.evtsel[i], w->evtsel[i]);
	DIFF("FIXED_CTR_CTRL", MSR_FIXED_CTRL, h.fixed_ctrl, w->fixed_ctrl);
	DIFF("GLOBAL_CTRL", MSR_GLOBAL_CTRL, h.global_ctrl, w->global_ctrl);
	for (i = 0; i < env->model->nr_xregs; i++)
		DIFF("extra MSR", env->model->xregs[i].msr, h.x[i], w->x[i]);
#undef DIFF
	return NULL;
}

/* One session and the group it holds. */
struct sess {
	int fd;
	__u64 cpus;
	__u32 n;
	bool run;
	struct pmuctl_event ev[4];
};

static int sess_program(struct sess *s, __u64 cpus)
{
	struct pmuctl_program p;

	s->cpus = cpus;
	s->run = false;
	return dev_program(s->fd, s->ev, s->n, cpus, &p);
}

/* What every CPU should show: the groups of the sessions holding it. */
static void want_cpu(struct ctl_regs *w, const struct load_env *env,
		     struct sess *s, unsigned int ns, __u32 cpu, bool online)
{
	unsigned int i;

	memset(w, 0, sizeof(*w));
	for (i = 0; online && i < ns; i++)
		if (s[i].n && s[i].cpus & 1ULL << cpu)
			want_group(w, env, s[i].ev, s[i].n, s[i].run);
}

static const char *all_differ(const struct load_env *env, struct sess *s,
			      unsigned int ns, __u64 offline)
{
	struct ctl_regs w;
	const char *d;
	__u32 cpu;

	for (cpu = 0; cpu < NR_CPUS_NEEDED; cpu++) {
		want_cpu(&w, env, s, ns, cpu, !(offline & 1ULL << cpu));
		d = regs_differ(env, cpu, &w);
		if (d)
			return d;
	}
	return NULL;
}

/* The state text without its "waves" line, which every operation moves. */
static char *claims(void)
{
	char *s = slurp(DBG_STATE), *w, *e;

	if (s && (w = strstr(s, "waves "))) {
		e = strchrnul(w, '\n');
		memmove(w, *e ? e + 1 : e, strlen(e) + 1);
	}
	return s;
}

FIXTURE(hotplug) {
	struct load_env env;
	struct sess s[2];
};

FIXTURE_SETUP(hotplug)
{
	const char *why;
	int fd;

	memset(self->s, 0, sizeof(self->s));
	self->s[0].fd = self->s[1].fd = -1;
	if (unfit())
		return;		/* each test body SKIPs */
	fd = dev_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, load_env_init(&self->env, fd));
	close(fd);
	why = load_unclean(&self->env, 1000);
	ASSERT_TRUE(why == NULL) TH_LOG("not at rest before the test: %s", why);
}

FIXTURE_TEARDOWN(hotplug)
{
	int c;

	for (c = 1; c < NR_CPUS_NEEDED; c++)
		cpu_set_online(c, true);
	if (self->s[0].fd >= 0)
		close(self->s[0].fd);
	if (self->s[1].fd >= 0)
		close(self->s[1].fd);
}

/*
 * Session 0: INST_RETIRED.ANY (fixed 0), LLC misses and the first extra
 * MSR's event on CPUs 1-3; session 1: CPU_CLK_UNHALTED.THREAD (fixed 1)
 * on CPUs 1-2.  Valid on every model the rig emulates.
 */
static void two_sessions(struct __test_metadata *_metadata,
			 FIXTURE_DATA(hotplug) *self)
{
	const struct pmuctl_model *m = self->env.model;
	struct sess *a = &self->s[0], *b = &self->s[1];

	a->fd = dev_open();
	b->fd = dev_open();
	ASSERT_LE(0, a->fd);
	ASSERT_LE(0, b->fd);
	a->ev[0] = ev_make(EV_INST | USR, 0, 0);
	a->ev[1] = ev_make(EV_LLC_MISS | USR | OS, 0, GONLY);
	a->n = 2;
	if (m->nr_xregs)
		a->ev[a->n++] = ev_make(m->xregs[0].code | USR, REQ0 | ANYRSP, GONLY);
	b->ev[0] = ev_make(EV_CYCLES | USR | OS, 0, 0);
	b->n = 1;
}

TEST_F_TIMEOUT(hotplug, claims_survive_and_registers_return, 120)
{
	struct sess *a = &self->s[0], *b = &self->s[1];
	__u64 val[PMUCTL_MAX_EVENTS];
	const char *why = unfit();
	unsigned int k;
	double t = now();
	char *before, *after;

	if (why)
		SKIP(return, "%s", why);
	two_sessions(_metadata, self);
	ASSERT_EQ(0, sess_program(a, 0xe));
	ASSERT_EQ(0, sess_program(b, 0x6));
	ASSERT_EQ(0, dev_ctl(a->fd, PMUCTL_IOC_START));
	a->run = true;
	ASSERT_EQ(0, dev_ctl(b->fd, PMUCTL_IOC_START));
	b->run = true;
	why = all_differ(&self->env, self->s, 2, 0);
	ASSERT_TRUE(why == NULL) TH_LOG("after START: %s", why);
	before = claims();
	ASSERT_NE(NULL, before);

	for (k = 0; k < NR_CYCLES; k++) {
		__u32 c = 1 + k % 3, other = c == 1 ? 2 : 1;
		int ret;

		ASSERT_EQ(0, cpu_set_online(c, false)) TH_LOG("cpu%u offline", c);
		after = claims();
		EXPECT_STREQ(before, after) TH_LOG("cycle %u, cpu%u offline", k, c);
		free(after);
		EXPECT_EQ(-ENODEV, dev_read(a->fd, c, val, PMUCTL_MAX_EVENTS))
			TH_LOG("cycle %u: READ of offline cpu%u", k, c);
		if (b->cpus & 1ULL << c)
			EXPECT_EQ(-ENODEV, dev_read(b->fd, c, val, PMUCTL_MAX_EVENTS));
		EXPECT_EQ(0, dev_read(a->fd, other, val, PMUCTL_MAX_EVENTS));
		why = all_differ(&self->env, self->s, 2, 1ULL << c);
		EXPECT_TRUE(why == NULL) TH_LOG("cycle %u, cpu%u offline: %s", k, c, why);

		/* The sessions go on while the CPU is away. */
		switch (k % 4) {
		case 1:
			ret = dev_ctl(a->fd, a->run ? PMUCTL_IOC_STOP : PMUCTL_IOC_START);
			EXPECT_EQ(0, ret);
			a->run = !a->run;
			break;
		case 2:
			EXPECT_EQ(0, dev_ctl(b->fd, PMUCTL_IOC_RESET));
			break;
		case 3:
			ret = dev_ctl(b->fd, b->run ? PMUCTL_IOC_STOP : PMUCTL_IOC_START);
			EXPECT_EQ(0, ret);
			b->run = !b->run;
			break;
		}
		why = all_differ(&self->env, self->s, 2, 1ULL << c);
		EXPECT_TRUE(why == NULL) TH_LOG("cycle %u, cpu%u offline, after op %u: %s",
						k, c, k % 4, why);

		ASSERT_EQ(0, cpu_set_online(c, true)) TH_LOG("cpu%u online", c);
		after = claims();
		EXPECT_STREQ(before, after) TH_LOG("cycle %u, cpu%u back", k, c);
		free(after);
		EXPECT_EQ(0, dev_read(a->fd, c, val, PMUCTL_MAX_EVENTS));
		why = all_differ(&self->env, self->s, 2, 0);
		EXPECT_TRUE(why == NULL) TH_LOG("cycle %u, cpu%u back: %s", k, c, why);
		if (_metadata->passed == 0)
			break;
	}
	free(before);
	ksft_print_msg("%u off/on line cycles of cpus 1-3 under 2 sessions in %.1f s\n",
		       k, now() - t);
	close(a->fd);
	close(b->fd);
	a->fd = b->fd = -1;
	why = load_unclean(&self->env, 1000);
	EXPECT_TRUE(why == NULL) TH_LOG("after closing: %s", why);
}

TEST_F(hotplug, offline_cpu_gets_the_group_when_it_returns)
{
	struct sess *a = &self->s[0], *b = &self->s[1];
	__u64 val[PMUCTL_MAX_EVENTS];
	const char *why = unfit();

	if (why)
		SKIP(return, "%s", why);
	two_sessions(_metadata, self);

	/* Programmed and started while cpu3 is away: written when it is back. */
	ASSERT_EQ(0, cpu_set_online(3, false));
	ASSERT_EQ(0, sess_program(a, 0xe));
	ASSERT_EQ(0, dev_ctl(a->fd, PMUCTL_IOC_START));
	a->run = true;
	EXPECT_EQ(-ENODEV, dev_read(a->fd, 3, val, PMUCTL_MAX_EVENTS));
	why = all_differ(&self->env, self->s, 2, 1ULL << 3);
	EXPECT_TRUE(why == NULL) TH_LOG("cpu3 offline: %s", why);
	ASSERT_EQ(0, cpu_set_online(3, true));
	why = all_differ(&self->env, self->s, 2, 0);
	EXPECT_TRUE(why == NULL) TH_LOG("cpu3 back: %s", why);

	/* Released while cpu2 is away: nothing is written when it is back. */
	ASSERT_EQ(0, sess_program(b, 0x4));
	ASSERT_EQ(0, cpu_set_online(2, false));
	ASSERT_EQ(0, dev_ctl(a->fd, PMUCTL_IOC_RELEASE));
	a->n = 0;
	ASSERT_EQ(0, dev_ctl(b->fd, PMUCTL_IOC_RELEASE));
	b->n = 0;
	why = load_unclean(&self->env, 0);
	EXPECT_TRUE(why == NULL) TH_LOG("released with cpu2 offline: %s", why);
	ASSERT_EQ(0, cpu_set_online(2, true));
	why = load_unclean(&self->env, 0);
	EXPECT_TRUE(why == NULL) TH_LOG("cpu2 back: %s", why);
}

TEST_F_TIMEOUT(hotplug, cpus_go_off_and_on_line_under_load, 300)
{
	struct load_stats *st, sum;
	pid_t pids[NR_WORKERS];
	int status[NR_WORKERS];
	const char *why = unfit();
	unsigned int k, i, failed = 0, alive = NR_WORKERS;
	__u64 rs = load_seed();
	double t = now();

	if (why)
		SKIP(return, "%s", why);
	st = load_stats_alloc(NR_WORKERS);
	ASSERT_NE(NULL, st);
	/* Groups on any CPU, online or not; READ of an offline one is ENODEV. */
	self->env.cpus = (1ULL << NR_CPUS_NEEDED) - 1;
	self->env.offline_ok = true;
	ksft_print_msg("%u workers x %u+ sessions on cpus 0-3 during %u+ off/on line cycles, seed %#llx (PMUCTL_SEED=%#llx repeats it)\n",
		       NR_WORKERS, NR_ROUNDS, NR_LOAD_CYCLES, load_seed(), load_seed());
	for (i = 0; i < NR_WORKERS; i++)
		st[i].more = true;
	ASSERT_EQ(0, load_spawn(&self->env, NR_WORKERS, NR_ROUNDS, load_seed(),
				st, pids));
	for (k = 0; alive; k++) {
		__u32 c = 1 + k % 3;

		EXPECT_EQ(0, cpu_set_online(c, false)) TH_LOG("cpu%u offline", c);
		usleep(load_rand(&rs) % 10000);
		EXPECT_EQ(0, cpu_set_online(c, true)) TH_LOG("cpu%u online", c);
		/* Hotplug stops every wave: let the workers run meanwhile. */
		usleep(load_rand(&rs) % 20000);
		for (i = 0; k + 1 == NR_LOAD_CYCLES && i < NR_WORKERS; i++)
			__atomic_store_n(&st[i].more, false, __ATOMIC_RELAXED);
		for (i = 0; i < NR_WORKERS; i++) {
			if (pids[i] && waitpid(pids[i], &status[i], WNOHANG) == pids[i]) {
				failed += !WIFEXITED(status[i]) || WEXITSTATUS(status[i]);
				pids[i] = 0;
				alive--;
			}
		}
	}
	load_stats_sum(st, NR_WORKERS, &sum);
	ksft_print_msg("%u off/on line cycles; %lu sessions, %lu groups programmed, %lu refused busy, %lu reads (%lu ENODEV), in %.1f s\n",
		       k, sum.opens, sum.programs, sum.busy, sum.reads,
		       sum.enodev, now() - t);
	EXPECT_EQ(0, sum.bad) TH_LOG("%d unexpected answers; %s", sum.bad, sum.msg);
	EXPECT_EQ(0U, failed);
	EXPECT_LE((unsigned int)NR_LOAD_CYCLES, k);
	why = load_unclean(&self->env, 1000);
	EXPECT_TRUE(why == NULL) TH_LOG("after the load: %s", why);
	load_stats_free(st, NR_WORKERS);
}

/* The counter register of a placed event. */
static __u32 counter_reg(const struct pmuctl_event *ev)
{
	__u32 c = ev->counter & ~PMUCTL_COUNTER_FIXED;

	return ev->counter & PMUCTL_COUNTER_FIXED ? MSR_FIXED_CTR(c) : MSR_PMC(c);
}

/* Counts in the group's counters on @cpu, as if it had been counting. */
static int preset_counts(const struct sess *s, __u32 cpu)
{
	__u32 k;
	int err = 0;

	for (k = 0; !err && k < s->n; k++)
		err = regs_preset(cpu, counter_reg(&s->ev[k]), 0x1234 + k);
	return err;
}

/* NULL if the group's counters on @cpu read 0 (regs and READ), else why. */
static const char *counts_not_zero(const struct sess *s, __u32 cpu)
{
	static struct pregs rg;
	static char msg[128];
	__u64 val[PMUCTL_MAX_EVENTS];
	__u32 k;
	int ret;

	if (regs_read(&rg))
		return "cannot read pmuctl/regs";
	for (k = 0; k < s->n; k++) {
		if (regs_get(&rg, cpu, counter_reg(&s->ev[k]))) {
			snprintf(msg, sizeof(msg), "cpu %u msr %#x is %#llx", cpu,
				 counter_reg(&s->ev[k]),
				 (unsigned long long)regs_get(&rg, cpu, counter_reg(&s->ev[k])));
			return msg;
		}
	}
	ret = dev_read(s->fd, cpu, val, PMUCTL_MAX_EVENTS);
	if (ret) {
		snprintf(msg, sizeof(msg), "READ cpu %u: %s", cpu, strerror(-ret));
		return msg;
	}
	for (k = 0; k < s->n; k++) {
		if (val[k]) {
			snprintf(msg, sizeof(msg), "READ cpu %u event %u: %#llx", cpu,
				 k, (unsigned long long)val[k]);
			return msg;
		}
	}
	return NULL;
}

TEST_F(hotplug, cpu_offline_during_reset_or_program_comes_back_zeroed)
{
	struct sess *a = &self->s[0];
	const char *why = unfit();
	__u32 k;

	if (why)
		SKIP(return, "%s", why);
	two_sessions(_metadata, self);

	/* RESET while cpu3 is away. */
	ASSERT_EQ(0, sess_program(a, 0xe));
	ASSERT_EQ(0, dev_ctl(a->fd, PMUCTL_IOC_START));
	a->run = true;
	ASSERT_EQ(0, preset_counts(a, 3));
	ASSERT_EQ(0, preset_counts(a, 2));
	ASSERT_EQ(0, cpu_set_online(3, false));
	ASSERT_EQ(0, dev_ctl(a->fd, PMUCTL_IOC_RESET));
	why = counts_not_zero(a, 2);
	EXPECT_TRUE(why == NULL) TH_LOG("RESET, online cpu2: %s", why);
	ASSERT_EQ(0, cpu_set_online(3, true));
	why = counts_not_zero(a, 3);
	EXPECT_TRUE(why == NULL) TH_LOG("RESET with cpu3 offline, cpu3 back: %s", why);
	why = all_differ(&self->env, self->s, 2, 0);
	EXPECT_TRUE(why == NULL) TH_LOG("cpu3 back: %s", why);

	/* Released and programmed again while cpu3 is away. */
	ASSERT_EQ(0, preset_counts(a, 3));
	ASSERT_EQ(0, cpu_set_online(3, false));
	ASSERT_EQ(0, dev_ctl(a->fd, PMUCTL_IOC_RELEASE));
	for (k = 0; k < a->n; k++)
		a->ev[k] = ev_make(a->ev[k].config, a->ev[k].extra, a->ev[k].flags);
	ASSERT_EQ(0, sess_program(a, 0xe));
	ASSERT_EQ(0, cpu_set_online(3, true));
	why = counts_not_zero(a, 3);
	EXPECT_TRUE(why == NULL) TH_LOG("PROGRAM with cpu3 offline, cpu3 back: %s", why);
	why = all_differ(&self->env, self->s, 2, 0);
	EXPECT_TRUE(why == NULL) TH_LOG("cpu3 back: %s", why);
}

TEST_F_TIMEOUT(hotplug, suspend_to_ram_rewrites_the_boot_cpu, 120)
{
	struct sess *a = &self->s[0], *b = &self->s[1];
	const char *why = unfit();
	long n0;
	int ret;

	if (why)
		SKIP(return, "%s", why);
	if (access(PM_TEST, W_OK))
		SKIP(return, "no %s (CONFIG_PM_DEBUG)", PM_TEST);
	n0 = regs_suspends();
	ASSERT_LE(0, n0) TH_LOG("no %s: the register model of this build", DBG_SUSPENDS);
	two_sessions(_metadata, self);
	ASSERT_EQ(0, sess_program(a, 0xf));
	ASSERT_EQ(0, sess_program(b, 0x3));
	ASSERT_EQ(0, dev_ctl(a->fd, PMUCTL_IOC_START));
	a->run = true;
	why = all_differ(&self->env, self->s, 2, 0);
	ASSERT_TRUE(why == NULL) TH_LOG("before suspend: %s", why);

	ASSERT_EQ(0, write_str(PM_TEST, "core"));
	ret = write_str(PM_STATE, "mem");
	write_str(PM_TEST, "none");
	ASSERT_EQ(0, ret) TH_LOG("echo mem > %s: %s", PM_STATE, strerror(-ret));
	/* The model lost the boot CPU's registers once. */
	EXPECT_EQ(n0 + 1, regs_suspends());
	why = all_differ(&self->env, self->s, 2, 0);
	EXPECT_TRUE(why == NULL) TH_LOG("after suspend: %s", why);

	/* And the sessions go on. */
	ASSERT_EQ(0, dev_ctl(b->fd, PMUCTL_IOC_START));
	b->run = true;
	why = all_differ(&self->env, self->s, 2, 0);
	EXPECT_TRUE(why == NULL) TH_LOG("after suspend and START: %s", why);
}

DEVICE_TEST_MAIN
