// SPDX-License-Identifier: GPL-2.0
/*
 * Sessions without CAP_PERFMON (uapi/linux/pmuctl.h, "Who may use the
 * device"): the module parameter "paranoid" mirrors
 * kernel.perf_event_paranoid (3: no open; 2, 1: open and INFO, no CPU-wide
 * PROGRAM; 0, -1: CPU-wide counting as perf allows it), unprivileged
 * sessions never get rdpmc and read their own counters with READ, INFO
 * hides other sessions' ids and extra values from them, and one user is
 * limited in sessions (user_max_sessions, EMFILE) and in counters per CPU
 * (user_max_counters, EDQUOT, PMUCTL_R_USER_LIMIT); none of the limits
 * at paranoid -1.
 *
 * The guests run as root: each rule is checked by a child that drops to
 * uid/gid 65534 (losing every capability) and writes what it saw into
 * memory shared with the test.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "lib.h"

#define P_PARANOID	param_path("paranoid")
#define P_SESSIONS	param_path("user_max_sessions")
#define P_COUNTERS	param_path("user_max_counters")
#define NSLOT		8

/* What a child saw, in memory shared with the test. */
struct box {
	int err[NSLOT];			/* 0 or -errno of each step */
	__u32 reason[NSLOT];
	__u32 index[NSLOT];
	__u32 cpu[NSLOT];
	int sig;			/* rdpmc_probe() */
	__u32 counter;
	__u64 generation;
	struct pmuctl_info info;
	struct pmuctl_holding h[4];
	__u32 nh;
};

static struct box *box;

/* Run @fn in a child, as nobody when @drop; 0 if it ran to its end. */
static int as_child(bool drop, void (*fn)(void *), void *arg)
{
	memset(box, 0, sizeof(*box));
	return child_run(drop, fn, arg);
}

static int program_ev(int fd, struct pmuctl_event *ev, __u32 n, __u64 cpus,
		      unsigned int slot)
{
	struct pmuctl_program p;
	int ret = dev_program(fd, ev, n, cpus, &p);

	box->err[slot] = ret;
	box->reason[slot] = p.err_reason;
	box->index[slot] = p.err_index;
	box->cpu[slot] = p.err_cpu;
	return ret;
}

#define USR_CYCLES	(USR | EV_CYCLES)

/* open, INFO, PROGRAM one event: err[0] open, err[1] INFO, err[2] PROGRAM. */
struct one {
	__u64 config;
	__u64 cpus;
	int pin;		/* pin the child first, -1 no */
};

static void child_one(void *arg)
{
	const struct one *o = arg;
	struct pmuctl_event ev = ev_make(o->config, 0, 0);
	int fd;

	if (o->pin >= 0)
		pin_cpu(o->pin);
	fd = dev_open();
	box->err[0] = fd < 0 ? fd : 0;
	if (fd < 0)
		return;
	box->err[1] = dev_info(fd, &box->info);
	program_ev(fd, &ev, 1, o->cpus, 2);
	box->counter = ev.counter;
}

FIXTURE(unpriv) {
	bool present;
	mode_t mode;
	char *paranoid, *sessions, *counters;
};

static char *param_get(const char *path)
{
	char *s = slurp(path), *nl;

	if (s && (nl = strchr(s, '\n')))
		*nl = 0;
	return s;
}

FIXTURE_SETUP(unpriv)
{
	struct stat st;

	self->present = !stat(DEV_PATH, &st);
	if (!self->present)
		return;
	self->mode = st.st_mode & 07777;
	/* main() found the device usable (root): the policy must be there. */
	ASSERT_EQ(0, access(P_PARANOID, W_OK)) {
		TH_LOG("no %s: a module without the paranoid policy", P_PARANOID);
	}
	self->paranoid = param_get(P_PARANOID);
	self->sessions = param_get(P_SESSIONS);
	self->counters = param_get(P_COUNTERS);
	box = mmap(NULL, sizeof(*box), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, box);
	/* The device node is root's 0600: let "nobody" reach the module. */
	ASSERT_EQ(0, chmod(DEV_PATH, 0666));
}

FIXTURE_TEARDOWN(unpriv)
{
	if (!self->present)
		return;
	if (self->paranoid)
		write_str(P_PARANOID, self->paranoid);
	if (self->sessions)
		write_str(P_SESSIONS, self->sessions);
	if (self->counters)
		write_str(P_COUNTERS, self->counters);
	free(self->paranoid);
	free(self->sessions);
	free(self->counters);
	chmod(DEV_PATH, self->mode);
	if (box && box != MAP_FAILED)
		munmap(box, sizeof(*box));
	box = NULL;
}

#define REQUIRE_DEVICE()						\
	do {								\
		if (!self->present)					\
			SKIP(return, "no " DEV_PATH);			\
	} while (0)

#define NEED_TWO_CPUS()							\
	do {								\
		if (cpus_online() < 2)					\
			SKIP(return, "needs two CPUs");			\
	} while (0)

TEST_F(unpriv, paranoid_defaults_to_3_which_refuses_unprivileged_open)
{
	struct one o = { USR_CYCLES, 1, -1 };

	REQUIRE_DEVICE();
	/* The rig loads the module without parameters. */
	ASSERT_NE(NULL, self->paranoid);
	EXPECT_STREQ("3", self->paranoid);
	ASSERT_EQ(0, as_child(true, child_one, &o));
	EXPECT_EQ(-EPERM, box->err[0]);
	/* Root still opens, privileged. */
	ASSERT_EQ(0, as_child(false, child_one, &o));
	EXPECT_EQ(0, box->err[0]);
	EXPECT_EQ(0U, box->info.session_flags);
	EXPECT_EQ(3, box->info.paranoid);
	EXPECT_EQ(0, box->err[2]);
}

TEST_F(unpriv, paranoid_rejects_levels_outside_minus_1_to_3)
{
	static const char *const bad[] = { "4", "-2", "100", "x", "1x" };
	unsigned int i;
	char *now;

	REQUIRE_DEVICE();
	ASSERT_EQ(0, write_str(P_PARANOID, "1"));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(-EINVAL, write_str(P_PARANOID, bad[i])) {
			TH_LOG("paranoid=\"%s\"", bad[i]);
		}
	}
	now = param_get(P_PARANOID);
	ASSERT_NE(NULL, now);
	EXPECT_STREQ("1", now);
	free(now);
	EXPECT_EQ(0, write_str(P_PARANOID, "-1"));
}

TEST_F(unpriv, paranoid_2_and_1_admit_open_and_info_but_no_cpu_wide_program)
{
	static const char *const levels[] = { "2", "1" };
	struct one o = { USR_CYCLES, 1, 0 };
	struct snap before = { 0 };
	unsigned int i;

	REQUIRE_DEVICE();
	for (i = 0; i < ARRAY_SIZE(levels); i++) {
		ASSERT_EQ(0, write_str(P_PARANOID, levels[i]));
		ASSERT_EQ(0, snap_take(&before));
		ASSERT_EQ(0, as_child(true, child_one, &o));
		EXPECT_EQ(0, box->err[0]) TH_LOG("paranoid %s", levels[i]);
		EXPECT_EQ(0, box->err[1]);
		EXPECT_EQ(PMUCTL_SESSION_UNPRIV, box->info.session_flags);
		EXPECT_EQ(atoi(levels[i]), box->info.paranoid);
		/* rdpmc for task scope only: never for a CPU-scope group. */
		EXPECT_EQ((__u32)PMUCTL_RDPMC_TASK, box->info.rdpmc);
		EXPECT_EQ(-EACCES, box->err[2]) TH_LOG("paranoid %s", levels[i]);
		EXPECT_EQ((__u32)PMUCTL_R_UNPRIV_CPU_SCOPE, box->reason[2]);
		EXPECT_EQ(NO_CPU, box->cpu[2]);
		EXPECT_UNCHANGED(&before, false);
		snap_free(&before);
		/* Root is privileged at every level. */
		ASSERT_EQ(0, as_child(false, child_one, &o));
		EXPECT_EQ(0U, box->info.session_flags);
		EXPECT_EQ(0, box->err[2]);
	}
}

TEST_F(unpriv, paranoid_0_and_minus_1_allow_cpu_wide_kernel_mode_and_anythread)
{
	static const char *const levels[] = { "0", "-1" };
	struct one os = { USR_CYCLES | OS, 1, -1 };
	/*
	 * INST_RETIRED.ANY may use AnyThread on fixed counter 0 on every
	 * model with AnyThread; where CPUID deprecates it (Ice Lake and
	 * later) the model refuses it to everyone, root included.
	 */
	struct one any = { USR | ANY | EV_INST, 1, -1 };
	unsigned int i;

	REQUIRE_DEVICE();
	for (i = 0; i < ARRAY_SIZE(levels); i++) {
		ASSERT_EQ(0, write_str(P_PARANOID, levels[i]));
		ASSERT_EQ(0, as_child(true, child_one, &os));
		EXPECT_EQ(PMUCTL_SESSION_UNPRIV, box->info.session_flags);
		EXPECT_EQ(0, box->err[2]) {
			TH_LOG("paranoid %s: reason %u", levels[i], box->reason[2]);
		}
		ASSERT_EQ(0, as_child(true, child_one, &any));
		if (box->info.caps.flags & PMUCTL_CAP_ANY_THREAD) {
			EXPECT_EQ(0, box->err[2]) {
				TH_LOG("paranoid %s: reason %u", levels[i], box->reason[2]);
			}
		} else {
			EXPECT_EQ(-EINVAL, box->err[2]);
			EXPECT_EQ((__u32)PMUCTL_R_ANY_NOT_ALLOWED, box->reason[2]) {
				TH_LOG("paranoid %s: AnyThread deprecated", levels[i]);
			}
			ASSERT_EQ(0, as_child(false, child_one, &any));
			EXPECT_EQ((__u32)PMUCTL_R_ANY_NOT_ALLOWED, box->reason[2]);
		}
	}
}

TEST_F(unpriv, cpus_outside_the_callers_affinity_are_not_refused)
{
	/* Pinned to CPU 0, it counts CPU 1: affinity guards nothing. */
	struct one o = { USR_CYCLES, 2, 0 };

	REQUIRE_DEVICE();
	NEED_TWO_CPUS();
	ASSERT_EQ(0, write_str(P_PARANOID, "0"));
	ASSERT_EQ(0, as_child(true, child_one, &o));
	EXPECT_EQ(0, box->err[2]) TH_LOG("reason %u", box->reason[2]);
}

/* Program on CPU 0 while running there, probe rdpmc, READ. */
static void child_rdpmc(void *arg)
{
	struct pmuctl_event ev = ev_make(USR_CYCLES, 0, 0);
	struct pmuctl_read r;
	__u64 val[2];
	int fd;

	(void)arg;
	if (pin_cpu(0))
		return;
	fd = dev_open();
	box->err[0] = fd < 0 ? fd : 0;
	if (fd < 0)
		return;
	box->err[1] = dev_info(fd, &box->info);
	if (program_ev(fd, &ev, 1, 1, 2))
		return;
	box->counter = ev.counter;
	box->sig = rdpmc_probe(ev.counter);
	memset(&r, 0, sizeof(r));
	r.nr_values = 2;
	r.values = (uintptr_t)val;
	box->err[3] = dev_ioctl(fd, PMUCTL_IOC_READ, &r);
	box->generation = r.generation;
}

TEST_F(unpriv, unprivileged_sessions_get_no_rdpmc_and_read_with_read)
{
	REQUIRE_DEVICE();
	ASSERT_EQ(0, write_str(P_PARANOID, "0"));
	ASSERT_EQ(0, as_child(true, child_rdpmc, NULL));
	EXPECT_EQ(0, box->err[2]);
	/* rdpmc for task scope only: this CPU-scope group faults. */
	EXPECT_EQ((__u32)PMUCTL_RDPMC_TASK, box->info.rdpmc);
	EXPECT_EQ(SIGSEGV, box->sig) TH_LOG("rdpmc(%#x) ended with %d", box->counter, box->sig);
	EXPECT_EQ(0, box->err[3]);
	EXPECT_U64(1, box->generation);

	/* The control: root, same steps, granted where the module grants. */
	ASSERT_EQ(0, as_child(false, child_rdpmc, NULL));
	EXPECT_EQ(0, box->err[2]);
	if (box->info.rdpmc == PMUCTL_RDPMC_SESSION) {
		EXPECT_TRUE(rdpmc_granted(box->sig)) TH_LOG("signal %d", box->sig);
	}
}

/* Open sessions until one fails (at most NSLOT); err[i] of each open. */
static void child_opens(void *arg)
{
	int fd[NSLOT], i, n = *(int *)arg;

	for (i = 0; i < n && i < NSLOT; i++) {
		fd[i] = dev_open();
		box->err[i] = fd[i] < 0 ? fd[i] : 0;
	}
	/* One closed: the next open fits again. */
	if (n > 1 && fd[0] >= 0) {
		close(fd[0]);
		fd[0] = dev_open();
		box->err[NSLOT - 1] = fd[0] < 0 ? fd[0] : 0;
	}
}

TEST_F(unpriv, user_max_sessions_limits_one_users_open_sessions)
{
	int n = 3;

	REQUIRE_DEVICE();
	ASSERT_EQ(0, write_str(P_SESSIONS, "2"));
	ASSERT_EQ(0, write_str(P_PARANOID, "2"));
	ASSERT_EQ(0, as_child(true, child_opens, &n));
	EXPECT_EQ(0, box->err[0]);
	EXPECT_EQ(0, box->err[1]);
	EXPECT_EQ(-EMFILE, box->err[2]);
	EXPECT_EQ(0, box->err[NSLOT - 1]);
	/* Privileged users are not limited. */
	ASSERT_EQ(0, as_child(false, child_opens, &n));
	EXPECT_EQ(0, box->err[2]);
	/* Nor is anyone at paranoid -1, as perf ignores its limits there. */
	ASSERT_EQ(0, write_str(P_PARANOID, "-1"));
	ASSERT_EQ(0, as_child(true, child_opens, &n));
	EXPECT_EQ(0, box->err[2]);
	/* 0: no limit. */
	ASSERT_EQ(0, write_str(P_PARANOID, "0"));
	ASSERT_EQ(0, write_str(P_SESSIONS, "0"));
	ASSERT_EQ(0, as_child(true, child_opens, &n));
	EXPECT_EQ(0, box->err[2]);
}

/*
 * user_max_counters 2: session A takes 2 counters on CPU 0; session B may
 * not add one there (slot 1), may on CPU 1 (slot 2); a 3-event group is
 * over the limit alone (slot 3, session C, CPU 1).
 */
static void child_counters(void *arg)
{
	struct pmuctl_event a[2] = { ev_make(USR | EV_INST, 0, 0),
				     ev_make(USR_CYCLES, 0, 0) };
	struct pmuctl_event b = ev_make(USR | EV_REF, 0, 0);
	struct pmuctl_event c[3] = { ev_make(USR | EV_INST, 0, 0),
				     ev_make(USR_CYCLES, 0, 0),
				     ev_make(USR | EV_REF, 0, 0) };
	bool two = *(bool *)arg;
	int fa = dev_open(), fb = dev_open(), fc = dev_open();

	if (fa < 0 || fb < 0 || fc < 0) {
		box->err[7] = -EBADF;
		return;
	}
	program_ev(fa, a, 2, 1, 0);
	program_ev(fb, &b, 1, 1, 1);
	if (two) {
		program_ev(fb, &b, 1, 2, 2);
		program_ev(fc, c, 3, 2, 3);
	}
	/* A released: B fits on CPU 0 again. */
	dev_ctl(fa, PMUCTL_IOC_RELEASE);
	dev_ctl(fb, PMUCTL_IOC_RELEASE);
	program_ev(fb, &b, 1, 1, 4);
}

/* Only a 3-event group on CPU 0, refused at user_max_counters 2 (slot 0). */
static void child_three(void *arg)
{
	struct pmuctl_event c[3] = { ev_make(USR | EV_INST, 0, 0),
				     ev_make(USR_CYCLES, 0, 0),
				     ev_make(USR | EV_REF, 0, 0) };
	int fd = dev_open();

	(void)arg;
	box->err[7] = fd < 0 ? fd : 0;
	if (fd >= 0)
		program_ev(fd, c, 3, 1, 0);
}

TEST_F(unpriv, user_max_counters_limits_one_users_counters_per_cpu)
{
	bool two = cpus_online() >= 2;
	struct snap before = { 0 };

	REQUIRE_DEVICE();
	ASSERT_EQ(0, write_str(P_COUNTERS, "2"));
	ASSERT_EQ(0, write_str(P_PARANOID, "0"));
	ASSERT_EQ(0, as_child(true, child_counters, &two));
	EXPECT_EQ(0, box->err[7]);
	EXPECT_EQ(0, box->err[0]);
	EXPECT_EQ(-EDQUOT, box->err[1]);
	EXPECT_EQ((__u32)PMUCTL_R_USER_LIMIT, box->reason[1]);
	EXPECT_EQ(0U, box->cpu[1]);
	if (two) {
		EXPECT_EQ(0, box->err[2]);
		EXPECT_EQ(-EDQUOT, box->err[3]);
		EXPECT_EQ((__u32)PMUCTL_R_USER_LIMIT, box->reason[3]);
		EXPECT_EQ(1U, box->cpu[3]);
	}
	EXPECT_EQ(0, box->err[4]);
	ASSERT_EQ(0, state_wait_clean(2000));

	/* A refusal changes nothing. */
	ASSERT_EQ(0, snap_take(&before));
	ASSERT_EQ(0, as_child(true, child_three, NULL));
	EXPECT_EQ(-EDQUOT, box->err[0]);
	EXPECT_EQ((__u32)PMUCTL_R_USER_LIMIT, box->reason[0]);
	EXPECT_EQ(0U, box->cpu[0]);
	EXPECT_UNCHANGED(&before, false);
	snap_free(&before);

	/* Root, and everyone at paranoid -1, are not limited. */
	ASSERT_EQ(0, as_child(false, child_counters, &two));
	EXPECT_EQ(0, box->err[0]);
	EXPECT_EQ(0, box->err[1]);
	ASSERT_EQ(0, write_str(P_PARANOID, "-1"));
	ASSERT_EQ(0, as_child(true, child_counters, &two));
	EXPECT_EQ(0, box->err[0]);
	EXPECT_EQ(0, box->err[1]);
}

/*
 * Program one event on CPU 0 (slot 0), then read the holdings of CPU 0
 * into box->h[0].  With @share, the event shares the test's OFFCORE_RSP_0
 * value.
 */
static void child_holdings(void *arg)
{
	bool share = *(bool *)arg;
	struct pmuctl_event ev = ev_make(USR_CYCLES, 0, 0);
	struct pmuctl_info in;
	int fd = dev_open();

	if (fd < 0) {
		box->err[7] = fd;
		return;
	}
	box->err[1] = dev_info(fd, &box->info);
	if (share)
		ev = ev_make(USR | model_rsp0(box->info.pmu_model), 0x10001, 0);
	if (program_ev(fd, &ev, 1, 1, 0))
		return;
	box->counter = ev.counter;
	memset(&in, 0, sizeof(in));
	in.holdings = (uintptr_t)box->h;
	in.holding_size = sizeof(box->h[0]);
	in.holdings_size = sizeof(box->h[0]);
	box->err[2] = dev_ioctl(fd, PMUCTL_IOC_INFO, &in);
	box->nh = in.holdings_nr;
}

/* Index of a counter (rdpmc ECX) in struct pmuctl_holding.owner[]. */
static unsigned int own_idx(__u32 ecx)
{
	return ecx & PMUCTL_COUNTER_FIXED ? PMUCTL_IDX_FIXED + (ecx & 0xffff) : ecx;
}

TEST_F(unpriv, info_shows_unprivileged_sessions_only_their_own_ids_and_values)
{
	struct pmuctl_event ev[2];
	struct pmuctl_holding h;
	struct pmuctl_program p;
	struct pmuctl_info in;
	bool share = false;
	int fd;

	REQUIRE_DEVICE();
	ASSERT_EQ(0, write_str(P_PARANOID, "0"));
	/* The test's own session holds an offcore event and fixed 0 on CPU 0. */
	fd = dev_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, dev_info(fd, &in));
	ev[0] = ev_make(USR | model_rsp0(in.pmu_model), 0x10001, 0);
	ev[1] = ev_make(USR | EV_INST, 0, 0);
	ASSERT_EQ(0, dev_program(fd, ev, 2, 1, &p));

	ASSERT_EQ(0, as_child(true, child_holdings, &share));
	ASSERT_EQ(0, box->err[0]) TH_LOG("reason %u", box->reason[0]);
	ASSERT_EQ(0, box->err[2]);
	ASSERT_EQ(1U, box->nh);
	EXPECT_EQ(box->info.session, box->h[0].owner[own_idx(box->counter)]);
	EXPECT_EQ(PMUCTL_OWNER_OTHER, box->h[0].owner[own_idx(ev[0].counter)]);
	EXPECT_EQ(PMUCTL_OWNER_OTHER, box->h[0].owner[own_idx(ev[1].counter)]);
	EXPECT_EQ(0U, box->h[0].owner[PMUCTL_IDX_FIXED + 2]);
	EXPECT_U64(MSR_RSP0, box->h[0].xreg[0].msr);
	EXPECT_EQ(1U, box->h[0].xreg[0].refcount);
	EXPECT_U64(0, box->h[0].xreg[0].value);
	EXPECT_EQ(PMUCTL_HOLDING_XREG_HIDDEN, box->h[0].xreg[0].flags);

	/* Sharing the value, the child knows it: shown. */
	share = true;
	ASSERT_EQ(0, as_child(true, child_holdings, &share));
	ASSERT_EQ(0, box->err[0]) TH_LOG("reason %u", box->reason[0]);
	ASSERT_EQ(0, box->err[2]);
	EXPECT_EQ(2U, box->h[0].xreg[0].refcount);
	EXPECT_U64(0x10001, box->h[0].xreg[0].value);
	EXPECT_EQ(0U, box->h[0].xreg[0].flags);

	/* Privileged sessions see every id and value. */
	memset(&in, 0, sizeof(in));
	in.holdings = (uintptr_t)&h;
	in.holding_size = sizeof(h);
	in.holdings_size = sizeof(h);
	ASSERT_EQ(0, dev_ioctl(fd, PMUCTL_IOC_INFO, &in));
	EXPECT_EQ(in.session, h.owner[own_idx(ev[0].counter)]);
	EXPECT_U64(0x10001, h.xreg[0].value);
	EXPECT_EQ(0U, h.xreg[0].flags);
	close(fd);
}

DEVICE_TEST_MAIN
