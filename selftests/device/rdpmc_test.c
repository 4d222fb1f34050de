// SPDX-License-Identifier: GPL-2.0
/*
 * The rdpmc grant: PROGRAM makes CR4.PCE follow the programming process's
 * mm (perf's perf_rdpmc_allowed), RELEASE and close take it back.
 *
 * Observed through signals [FACTS 3-4]: under QEMU TCG an rdpmc from user
 * space raises SIGSEGV when CR4.PCE is clear (not granted) and SIGILL when
 * it is set (granted; TCG has no rdpmc).  CR4.PCE is recomputed only at a
 * switch to another mm, so the tests pin the test process and a partner
 * process to one CPU and ping-pong through pipes to force real switches:
 * the partner, never granted, sees SIGSEGV on every round, the test
 * process SIGILL, proving both the switches and the re-evaluation.
 *
 * The grant belongs to the mm that programmed: a forked child holding the
 * inherited session fd does not get it, and a process sharing the mm
 * (CLONE_VM) loses it when the programming process is killed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib.h"
#include "kselftest_harness.h"

#define ROUNDS	200
#define NPEERS	2

FIXTURE(rdpmc) {
	int fd;
	struct pmuctl_info info;
	struct peer peer[NPEERS];
};

FIXTURE_SETUP(rdpmc)
{
	self->fd = dev_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, dev_info(self->fd, &self->info));
}

FIXTURE_TEARDOWN(rdpmc)
{
	peer_kill_all(self->peer, NPEERS);
	if (self->fd >= 0)
		close(self->fd);
}

/* At the top of each body: grants must exist and not be global. */
#define NEED_GRANTS() do {						\
	char *__p = slurp("/sys/bus/event_source/devices/cpu/rdpmc");	\
	bool __always = __p && __p[0] == '2';				\
									\
	free(__p);							\
	if (self->info.rdpmc != PMUCTL_RDPMC_SESSION)			\
		SKIP(return, "pmuctl grants no rdpmc (INFO rdpmc %u)",	\
		     self->info.rdpmc);					\
	if (__always)							\
		SKIP(return, "rdpmc=2: every process may rdpmc");	\
} while (0)

#define EXPECT_GRANTED(sig, what) do {					\
	int __s = (sig);						\
									\
	EXPECT_TRUE(rdpmc_granted(__s)) {				\
		TH_LOG("%s: rdpmc raised signal %d, want SIGILL (granted)", \
		       what, __s);					\
	}								\
} while (0)

#define EXPECT_DENIED(sig, what) do {					\
	int __s = (sig);						\
									\
	EXPECT_EQ(SIGSEGV, __s) {					\
		TH_LOG("%s: rdpmc ended with signal %d, want SIGSEGV (not granted)", \
		       what, __s);					\
	}								\
} while (0)

static int program_one(int fd, __u64 cpus, struct pmuctl_event *ev)
{
	struct pmuctl_program p;

	*ev = ev_make(EV_INST | USR, 0, 0);
	return dev_program(fd, ev, 1, cpus, &p);
}

static int peer_op(struct peer *p, __u32 op, int cpu, struct peer_rep *rp)
{
	struct peer_req rq = { .op = op, .cpu = cpu };
	int err = peer_call(p, &rq, rp);

	return err ? err : rp->ret;
}

/*
 * @rounds round trips with a peer pinned to the caller's CPU; returns how
 * many times the caller was granted, and the peer's count in *peer_granted.
 */
static int pingpong(struct peer *p, int rounds, int *peer_granted)
{
	struct peer_req rq = { .op = PEER_PINGPONG, .rounds = rounds };
	struct peer_rep rp;
	int i, granted = 0;

	if (peer_call(p, &rq, &rp))
		return -1;
	for (i = 0; i < rounds; i++) {
		granted += rdpmc_granted(rdpmc_probe(0));
		if (peer_pingpong_round(p))
			return -1;
	}
	if (peer_reply(p, &rp))
		return -1;
	*peer_granted = rp.ngranted;
	return granted;
}

TEST_F(rdpmc, no_grant_before_program)
{
	struct pmuctl_event ev = ev_make(EV_CYCLES | USR | EDGE, 0, 0);
	struct pmuctl_program p;

	NEED_GRANTS();
	EXPECT_DENIED(rdpmc_probe(0), "open session, nothing programmed");
	EXPECT_DENIED(rdpmc_probe(FIXED(0)), "fixed counter index");
	/* A refused PROGRAM grants nothing either. */
	ASSERT_EQ(-EINVAL, dev_program(self->fd, &ev, 1, 1, &p));
	EXPECT_DENIED(rdpmc_probe(0), "after a refused PROGRAM");
}

/*
 * The module parameter rdpmc=0 means never: INFO tells the library to read
 * with READ, PROGRAM grants nothing, and READ works.
 */
TEST_F(rdpmc, policy_never_grants_nothing_and_info_says_read)
{
	const char *param = PARAM_DIR "/rdpmc";
	struct pmuctl_info info;
	struct pmuctl_event ev;
	__u64 val = ~0ULL;

	NEED_GRANTS();
	ASSERT_EQ(0, pin_cpu(0));
	ASSERT_EQ(0, write_str(param, "0"));
	ASSERT_EQ(0, dev_info(self->fd, &info));
	EXPECT_EQ((__u32)PMUCTL_RDPMC_NONE, info.rdpmc);
	ASSERT_EQ(0, program_one(self->fd, 1, &ev));
	EXPECT_DENIED(rdpmc_probe(ev.counter), "PROGRAM under rdpmc=0");
	EXPECT_EQ(0, dev_read(self->fd, 0, &val, 1));
	if (self->info.backend == PMUCTL_BACKEND_MODEL)
		EXPECT_U64(0, val);
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));

	/* Back to the default: the same PROGRAM grants. */
	ASSERT_EQ(0, write_str(param, "1"));
	ASSERT_EQ(0, dev_info(self->fd, &info));
	EXPECT_EQ((__u32)PMUCTL_RDPMC_SESSION, info.rdpmc);
	ASSERT_EQ(0, program_one(self->fd, 1, &ev));
	EXPECT_GRANTED(rdpmc_probe(ev.counter), "PROGRAM under the default policy");
}

TEST_F(rdpmc, program_grants_rdpmc_to_the_programming_process)
{
	struct pmuctl_event ev;

	NEED_GRANTS();
	ASSERT_EQ(0, pin_cpu(0));
	ASSERT_EQ(0, program_one(self->fd, 1, &ev));
	EXPECT_GRANTED(rdpmc_probe(ev.counter), "after PROGRAM");
	EXPECT_GRANTED(rdpmc_probe(0), "after PROGRAM, PMC0");
	/* START/STOP do not touch the grant. */
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_START));
	EXPECT_GRANTED(rdpmc_probe(ev.counter), "after START");
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_STOP));
	EXPECT_GRANTED(rdpmc_probe(ev.counter), "after STOP");
}

TEST_F(rdpmc, grant_survives_forced_mm_switches)
{
	struct pmuctl_event ev;
	struct peer_rep rp;
	int mine, theirs = -1;

	NEED_GRANTS();
	ASSERT_EQ(0, pin_cpu(0));
	/* The partner's mm is copied before PROGRAM: it holds no grant. */
	ASSERT_EQ(0, peer_spawn(&self->peer[0], -1));
	ASSERT_EQ(0, peer_op(&self->peer[0], PEER_PIN, 0, &rp));
	ASSERT_EQ(0, program_one(self->fd, 1, &ev));
	EXPECT_GRANTED(rdpmc_probe(0), "after PROGRAM");
	mine = pingpong(&self->peer[0], ROUNDS, &theirs);
	EXPECT_EQ(ROUNDS, mine) TH_LOG("granted in %d of %d rounds", mine, ROUNDS);
	EXPECT_EQ(0, theirs) TH_LOG("the partner was granted in %d rounds", theirs);
	EXPECT_GRANTED(rdpmc_probe(0), "after the ping-pong");
}

TEST_F(rdpmc, grant_follows_the_process_to_another_cpu)
{
	struct pmuctl_event ev;
	struct peer_rep rp;
	int mine, theirs = -1;

	NEED_GRANTS();
	if (cpus_online() < 2)
		SKIP(return, "needs 2 online CPUs");
	ASSERT_EQ(0, pin_cpu(0));
	ASSERT_EQ(0, peer_spawn(&self->peer[0], -1));
	ASSERT_EQ(0, peer_op(&self->peer[0], PEER_PIN, 1, &rp));
	/* Counters on CPU 0 only: the grant is the mm's, not the CPU's. */
	ASSERT_EQ(0, program_one(self->fd, 1, &ev));
	EXPECT_GRANTED(rdpmc_probe(0), "on CPU 0");
	ASSERT_EQ(0, pin_cpu(1));
	EXPECT_GRANTED(rdpmc_probe(0), "moved to CPU 1");
	mine = pingpong(&self->peer[0], ROUNDS / 4, &theirs);
	EXPECT_EQ(ROUNDS / 4, mine);
	EXPECT_EQ(0, theirs);
	ASSERT_EQ(0, pin_cpu(0));
	EXPECT_GRANTED(rdpmc_probe(0), "back on CPU 0");
}

/*
 * What a forked child gets (uapi/linux/pmuctl.h, PMUCTL_IOC_PROGRAM): the
 * grant belongs to an address space.  A child forked before PROGRAM has
 * its own and is never granted, although it holds the session's fd.
 */
TEST_F(rdpmc, child_forked_before_program_is_not_granted)
{
	struct pmuctl_event ev;
	struct peer_rep rp;
	int mine, theirs = -1;

	NEED_GRANTS();
	ASSERT_EQ(0, pin_cpu(0));
	ASSERT_EQ(0, peer_spawn(&self->peer[0], self->fd));
	ASSERT_EQ(0, peer_op(&self->peer[0], PEER_PIN, 0, &rp));
	ASSERT_EQ(0, program_one(self->fd, 1, &ev));
	EXPECT_GRANTED(rdpmc_probe(0), "the programming process");
	ASSERT_EQ(0, peer_op(&self->peer[0], PEER_RDPMC, 0, &rp));
	EXPECT_DENIED(rp.sig, "child forked before PROGRAM, holding the fd");
	mine = pingpong(&self->peer[0], ROUNDS / 4, &theirs);
	EXPECT_EQ(ROUNDS / 4, mine);
	EXPECT_EQ(0, theirs) TH_LOG("the child was granted in %d of %d rounds",
				    theirs, ROUNDS / 4);
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
	EXPECT_DENIED(rdpmc_probe(0), "the parent after RELEASE");
}

/*
 * A child forked while the grant is held gets a copy of the address space
 * and, with it, the permission: the kernel copies mm->context at fork
 * (dup_mm), as it does for perf's grants.  It keeps it until it execs; it
 * does not own the counters, and the parent's RELEASE still revokes the
 * parent's grant.
 */
TEST_F(rdpmc, child_forked_after_program_inherits_the_permission_with_its_mm)
{
	struct pmuctl_event ev;
	struct peer_rep rp;
	int mine, theirs = -1;

	NEED_GRANTS();
	ASSERT_EQ(0, pin_cpu(0));
	ASSERT_EQ(0, program_one(self->fd, 1, &ev));
	ASSERT_EQ(0, peer_spawn(&self->peer[0], self->fd));
	ASSERT_EQ(0, peer_op(&self->peer[0], PEER_PIN, 0, &rp));
	ASSERT_EQ(0, peer_op(&self->peer[0], PEER_RDPMC, 0, &rp));
	EXPECT_GRANTED(rp.sig, "child forked after PROGRAM");
	mine = pingpong(&self->peer[0], ROUNDS / 4, &theirs);
	EXPECT_EQ(ROUNDS / 4, mine);
	EXPECT_EQ(ROUNDS / 4, theirs);
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
	EXPECT_DENIED(rdpmc_probe(0), "the parent after RELEASE");
	ASSERT_EQ(0, peer_op(&self->peer[0], PEER_RDPMC, 0, &rp));
	EXPECT_GRANTED(rp.sig, "the child keeps its copy until exec");
}

TEST_F(rdpmc, another_process_programming_grants_only_itself)
{
	struct pmuctl_event ev;
	struct peer_rep rp;

	NEED_GRANTS();
	ASSERT_EQ(0, pin_cpu(0));
	ASSERT_EQ(0, peer_spawn(&self->peer[0], -1));
	ASSERT_EQ(0, peer_op(&self->peer[0], PEER_PIN, 0, &rp));
	ev = ev_make(EV_INST | USR, 0, 0);
	ASSERT_EQ(0, peer_program(&self->peer[0], &ev, 1, 1, &rp));
	ASSERT_EQ(0, peer_op(&self->peer[0], PEER_RDPMC, 0, &rp));
	EXPECT_GRANTED(rp.sig, "the peer that programmed");
	EXPECT_DENIED(rdpmc_probe(0), "the test process");
	/* SIGKILL of the peer: its session is gone, the test still has none. */
	peer_end(&self->peer[0], SIGKILL);
	EXPECT_DENIED(rdpmc_probe(0), "the test process after the peer died");
}

static void revoke_grant(struct __test_metadata *_metadata,
		   FIXTURE_DATA(rdpmc) *self, bool by_close)
{
	struct pmuctl_event ev;
	struct peer_rep rp;
	int mine, theirs = -1;

	ASSERT_EQ(0, pin_cpu(0));
	ASSERT_EQ(0, peer_spawn(&self->peer[0], -1));
	ASSERT_EQ(0, peer_op(&self->peer[0], PEER_PIN, 0, &rp));
	ASSERT_EQ(0, program_one(self->fd, 1, &ev));
	EXPECT_GRANTED(rdpmc_probe(0), "after PROGRAM");
	if (by_close) {
		ASSERT_EQ(0, close(self->fd));
		self->fd = -1;
	} else {
		ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
	}
	EXPECT_DENIED(rdpmc_probe(0), by_close ? "after close" : "after RELEASE");
	/* Not set again by the next switch to this mm. */
	mine = pingpong(&self->peer[0], ROUNDS / 4, &theirs);
	EXPECT_EQ(0, mine) TH_LOG("granted in %d rounds after the revoke", mine);
	EXPECT_EQ(0, theirs);
	EXPECT_DENIED(rdpmc_probe(0), "after the ping-pong");
	if (by_close)
		return;
	/* Grants are counted: PROGRAM again grants again, RELEASE revokes. */
	ASSERT_EQ(0, program_one(self->fd, 1, &ev));
	EXPECT_GRANTED(rdpmc_probe(0), "after the second PROGRAM");
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
	EXPECT_DENIED(rdpmc_probe(0), "after the second RELEASE");
}

TEST_F(rdpmc, release_revokes_the_grant)
{
	NEED_GRANTS();
	revoke_grant(_metadata, self, false);
}

TEST_F(rdpmc, close_revokes_the_grant)
{
	NEED_GRANTS();
	revoke_grant(_metadata, self, true);
}

TEST_F(rdpmc, two_sessions_of_one_process_hold_the_grant_until_both_release)
{
	struct pmuctl_event ev;
	int fd2 = dev_open();

	NEED_GRANTS();
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, pin_cpu(0));
	ASSERT_EQ(0, program_one(self->fd, 1, &ev));
	ev = ev_make(EV_CYCLES | USR, 0, 0);
	{
		struct pmuctl_program p;

		ASSERT_EQ(0, dev_program(fd2, &ev, 1, 1, &p));
	}
	EXPECT_GRANTED(rdpmc_probe(0), "two sessions");
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
	EXPECT_GRANTED(rdpmc_probe(0), "one session left");
	ASSERT_EQ(0, close(fd2));
	EXPECT_DENIED(rdpmc_probe(0), "none left");
}

/* A process sharing the test's mm (CLONE_VM) that programs, then waits. */
struct vm_child {
	int pipe_w;
	int ret;
	char stack[64 * 1024] __attribute__((aligned(16)));
};

static int vm_child_fn(void *arg)
{
	struct vm_child *c = arg;
	struct pmuctl_event ev = ev_make(EV_INST | USR, 0, 0);
	struct pmuctl_program p;
	int fd = dev_open();
	char b = 1;

	c->ret = fd < 0 ? fd : dev_program(fd, &ev, 1, 1, &p);
	syscall(SYS_write, c->pipe_w, &b, 1);
	for (;;)
		pause();
	return 0;
}

TEST_F(rdpmc, sigkill_of_the_programming_process_revokes_its_mm_grant)
{
	struct vm_child *c;
	int pfd[2], status;
	pid_t pid;
	char b;

	NEED_GRANTS();
	ASSERT_EQ(0, pin_cpu(0));
	c = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, c);
	ASSERT_EQ(0, pipe(pfd));
	c->pipe_w = pfd[1];
	c->ret = -1;
	EXPECT_DENIED(rdpmc_probe(0), "before the sibling programs");
	pid = clone(vm_child_fn, c->stack + sizeof(c->stack), CLONE_VM | SIGCHLD, c);
	ASSERT_LT(0, pid);
	ASSERT_EQ(1, read(pfd[0], &b, 1));
	ASSERT_EQ(0, c->ret);
	/* The same mm: the sibling's grant is this process's too. */
	EXPECT_GRANTED(rdpmc_probe(0), "sharing the programming process's mm");
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_DENIED(rdpmc_probe(0), "after the programming process was killed");
	if (debugfs_ready()) {
		EXPECT_EQ(0, state_wait_clean(0));
	}
}

DEVICE_TEST_MAIN
