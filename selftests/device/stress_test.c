// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/pmuctl under load.  Each test ends with pmuctl at rest: pmuctl/state
 * shows "programmed 0", "perf_reserved 0", no counter owner and no extra
 * MSR reference; pmuctl/regs (the register model, which starts at 0) shows
 * every EVTSEL, FIXED_CTR_CTRL, GLOBAL_CTRL and extra MSR at 0 again.
 *
 *  - 8 processes x 1000 sessions of open, PROGRAM of a random valid group
 *    on random CPUs, START, READ of each CPU, RESET, STOP, RELEASE, close;
 *  - 100000 random ioctls on one session: random command numbers (the
 *    valid ones, pmuctl's magic with wrong sizes and directions, anything
 *    else), random sizes and flags, and pointers that are NULL, unmapped,
 *    kernel addresses, read-only, or run off the end of a mapping;
 *  - a PROGRAM whose copy back faults while a second user of the session
 *    releases and reprograms it (userfaultfd holds the window open): the
 *    undo must not take the second user's group;
 *  - SIGKILL of workers at random points of their sessions, some sessions
 *    shared with a forked reader.
 *
 * Everything random follows one seed, printed; PMUCTL_SEED=N repeats a run.
 * The kernel must survive it all: the rig checks the console afterwards.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/userfaultfd.h>

#include "lib.h"
#include "load.h"
#include "kselftest_harness.h"

#define NR_WORKERS	8
#define NR_ROUNDS	1000	/* sessions per worker */
#define NR_IOCTLS	100000
#define NR_KILLS	200

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

FIXTURE(stress) {
	struct load_env env;
	unsigned long long seed;
};

FIXTURE_SETUP(stress)
{
	const char *why;
	int fd;

	ASSERT_TRUE(debugfs_ready()) TH_LOG("no %s", DBG_STATE);
	fd = dev_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, load_env_init(&self->env, fd));
	close(fd);
	self->seed = load_seed();
	why = load_unclean(&self->env, 1000);
	ASSERT_TRUE(why == NULL) TH_LOG("not at rest before the test: %s", why);
}

FIXTURE_TEARDOWN(stress)
{
}

/*
 * 600 s: 4 to 7 s in a guest of its own, 55 s under KASAN and lockdep,
 * and over 300 s there when the host's other core builds and installs
 * the packages beside it (the harness's timeout, not a failed check).
 */
TEST_F_TIMEOUT(stress, workers_with_random_groups_leave_nothing_behind, 600)
{
	struct load_stats *st = load_stats_alloc(NR_WORKERS), sum;
	pid_t pids[NR_WORKERS];
	const char *why;
	unsigned int failed;
	double t = now();

	ASSERT_NE(NULL, st);
	self->env.pin = true;
	ksft_print_msg("%u workers x %u sessions, seed %#llx (PMUCTL_SEED=%#llx repeats it)\n",
		       NR_WORKERS, NR_ROUNDS, self->seed, self->seed);
	ASSERT_EQ(0, load_spawn(&self->env, NR_WORKERS, NR_ROUNDS, self->seed,
				st, pids));
	failed = load_wait(pids, NR_WORKERS);
	load_stats_sum(st, NR_WORKERS, &sum);
	ksft_print_msg("%lu sessions, %lu groups programmed, %lu refused busy, %lu reads, in %.1f s\n",
		       sum.opens, sum.programs, sum.busy, sum.reads, now() - t);
	EXPECT_EQ(0, sum.bad) TH_LOG("%d unexpected answers; %s", sum.bad, sum.msg);
	EXPECT_EQ(0U, failed);
	EXPECT_EQ((unsigned long)NR_WORKERS * NR_ROUNDS, sum.opens);
	EXPECT_LT(0UL, sum.programs);
	why = load_unclean(&self->env, 1000);
	EXPECT_TRUE(why == NULL) TH_LOG("after the load: %s", why);
	load_stats_free(st, NR_WORKERS);
}

/* ---- random ioctls -------------------------------------------------------- */

static const unsigned long valid_cmds[] = {
	PMUCTL_IOC_INFO, PMUCTL_IOC_PROGRAM, PMUCTL_IOC_START, PMUCTL_IOC_STOP,
	PMUCTL_IOC_RESET, PMUCTL_IOC_READ, PMUCTL_IOC_RELEASE, PMUCTL_IOC_RDPMC,
	PMUCTL_IOC_THREADS,
};
#define NR_VALID (sizeof(valid_cmds) / sizeof(valid_cmds[0]))

/* Addresses no user copy may touch. */
static const __u64 kernel_ptrs[] = {
	0xffffffff81000000ULL,	/* kernel text */
	0xffff888000000000ULL,	/* the direct map */
	0xffffffffff600000ULL,	/* vsyscall page */
	0x8000000000000000ULL,	/* non-canonical */
	0xfffffffffffffff8ULL,	/* wraps around */
	0x00007ffffffff000ULL,	/* the last user page */
};

struct fuzz {
	struct load_env *env;
	__u64 rs;
	long page;
	char *rw;		/* 2 pages read-write, then a PROT_NONE page */
	char *ro;		/* a valid group, read-only */
	__u32 ro_n;
	__u64 unmapped;
	/* what came back */
	unsigned long exact, notty, ok, programmed, err[256];
};

/* Where the parts of a command live inside f->rw. */
#define OFF_EVENTS	512
#define OFF_CPUS	2560
#define OFF_VALUES	4096

static __u64 rnd(struct fuzz *f)
{
	return load_rand(&f->rs);
}

/* A user pointer for @size bytes: mostly good, often not. */
static __u64 rand_ptr(struct fuzz *f, __u64 good, size_t size)
{
	switch (rnd(f) % 12) {
	case 0:
		return 0;
	case 1:
		return f->unmapped;
	case 2:
		return kernel_ptrs[rnd(f) % (sizeof(kernel_ptrs) / sizeof(kernel_ptrs[0]))];
	case 3:
		return (uintptr_t)f->ro;
	case 4:	/* runs into the PROT_NONE page, never starts before f->rw */
		if (size > (size_t)f->page)
			size = f->page;
		return (uintptr_t)(f->rw + 2 * f->page - (size > 1 ? size / 2 : 1));
	case 5:
		return rnd(f);
	default:
		return good;
	}
}

static __u32 rand_size(struct fuzz *f, __u32 good)
{
	static const __u32 sizes[] = { 0, 4, 8, 16, 64, 1016, 1024, 1032, 4096 };

	switch (rnd(f) % 3) {
	case 0:
		return sizes[rnd(f) % (sizeof(sizes) / sizeof(sizes[0]))];
	case 1:
		return rnd(f);
	default:
		return good;
	}
}

/* Flip a random bit or store a random word somewhere in @p. */
static void scribble(struct fuzz *f, void *p, size_t len)
{
	__u64 r = rnd(f);

	if (r & 1)
		((__u8 *)p)[(r >> 1) % len] ^= 1 << (r >> 20) % 8;
	else if (len >= 8)
		memcpy((__u8 *)p + (r >> 1) % (len - 7), &r, sizeof(r));
}

/* The command's struct in f->rw: valid, then broken 0..2 times. */
static void fill_arg(struct fuzz *f, unsigned int nr)
{
	unsigned int breaks = rnd(f) % 3, i;
	char *a = f->rw;

	memset(a, 0, 256);
	memset(a + OFF_EVENTS, 0, PMUCTL_MAX_EVENTS * sizeof(struct pmuctl_event));
	memset(a + OFF_CPUS, 0, PMUCTL_MAX_CPU_BITMAP + 16);
	if (rnd(f) % 8 == 0) {
		for (i = 0; i < 256; i++)
			a[i] = rnd(f);
		return;
	}
	switch (nr) {
	case 1: {
		struct pmuctl_program *p = (void *)a;
		struct pmuctl_event *ev = (void *)(a + OFF_EVENTS);
		__u64 *cpus = (void *)(a + OFF_CPUS);

		p->nr_events = load_group(f->env, &f->rs, ev);
		p->events = (uintptr_t)ev;
		*cpus = load_cpus(f->env, &f->rs);
		p->cpus = (uintptr_t)cpus;
		p->cpus_size = 8;
		for (i = 0; i < breaks; i++) {
			switch (rnd(f) % 8) {
			case 0:
				scribble(f, p, sizeof(*p));
				break;
			case 1:
				p->nr_events = rnd(f) % 40;
				break;
			case 2:
				p->events = rand_ptr(f, p->events, p->nr_events * sizeof(*ev));
				break;
			case 3:
				p->cpus = rand_ptr(f, p->cpus, 8);
				break;
			case 4:
				p->cpus_size = rand_size(f, 8);
				break;
			case 5:
				scribble(f, ev, PMUCTL_MAX_EVENTS * sizeof(*ev));
				break;
			case 6:
				cpus[rnd(f) % (PMUCTL_MAX_CPU_BITMAP / 8 + 2)] = rnd(f);
				break;
			case 7:	/* PROGRAM works, the copy back faults */
				p->events = (uintptr_t)f->ro;
				p->nr_events = f->ro_n;
				break;
			}
		}
		break;
	}
	case 5: {
		struct pmuctl_read *r = (void *)a;

		r->cpu = __builtin_ctzll(load_cpus(f->env, &f->rs));
		r->nr_values = PMUCTL_MAX_EVENTS;
		r->values = (uintptr_t)(a + OFF_VALUES);
		for (i = 0; i < breaks; i++) {
			switch (rnd(f) % 4) {
			case 0:
				scribble(f, r, sizeof(*r));
				break;
			case 1:
				r->cpu = rnd(f) % 2 ? rnd(f) % 70 : rnd(f);
				break;
			case 2:
				r->nr_values = rnd(f) % 40;
				break;
			case 3:
				r->values = rand_ptr(f, r->values, 8 * r->nr_values);
				break;
			}
		}
		break;
	}
	case 0: {
		struct pmuctl_info *info = (void *)a;
		__u32 hs = sizeof(struct pmuctl_holding);

		if (rnd(f) % 2) {
			info->holdings = (uintptr_t)(a + OFF_VALUES);
			info->holdings_size = hs * (1 + rnd(f) % 8);
		}
		for (i = 0; i < breaks; i++) {
			switch (rnd(f) % 4) {
			case 0:
				scribble(f, info, sizeof(*info));
				break;
			case 1:
				info->holdings = rand_ptr(f, info->holdings,
							  info->holdings_size);
				break;
			case 2:
				info->holdings_size = rnd(f) % 2 ? hs * (rnd(f) % 20) :
							rand_size(f, hs);
				break;
			case 3:
				info->holdings = rand_ptr(f, (uintptr_t)(a + OFF_VALUES), hs);
				info->holdings_size = 1024 * hs;
				break;
			}
		}
		break;
	}
	default:	/* the pmuctl_ctl commands */
		for (i = 0; i < breaks; i++)
			scribble(f, a, sizeof(struct pmuctl_ctl));
		break;
	}
}

/*
 * Command numbers the VFS answers before the driver (fs/ioctl.c
 * do_vfs_ioctl: FIOCLEX.. 'T', FIGETBSZ 0, FIFREEZE 'X', FS_IOC_* 'f' and
 * 0x15, FICLONE 0x94) are left out: they are not pmuctl's, and FIFREEZE or
 * FS_IOC_SETFLAGS would act on the guest's /dev itself.
 */
static bool vfs_cmd(unsigned long cmd)
{
	switch (_IOC_TYPE(cmd)) {
	case 0x00: case 0x15: case 'T': case 'X': case 'f': case 0x94:
		return true;
	}
	return false;
}

static unsigned long rand_cmd(struct fuzz *f)
{
	unsigned long cmd;
	__u64 r = rnd(f);

	switch (r % 10) {
	case 0: case 1: case 2: case 3:
		return valid_cmds[(r >> 8) % NR_VALID];
	case 4: case 5: case 6:	/* pmuctl's magic, any number, size, direction */
		cmd = valid_cmds[(r >> 8) % NR_VALID];
		return _IOC((r >> 16) % 4, PMUCTL_IOC_MAGIC,
			    (r >> 20) % 2 ? _IOC_NR(cmd) : (r >> 24) % 16,
			    (r >> 28) % 2 ? _IOC_SIZE(cmd) + 8 * ((r >> 29) % 5) - 16 :
					    (r >> 32) % (1 << _IOC_SIZEBITS));
	default:
		do
			cmd = (__u32)rnd(f);
		while (vfs_cmd(cmd));
		return cmd;
	}
}

static bool is_valid_cmd(unsigned long cmd)
{
	unsigned int i;

	for (i = 0; i < NR_VALID; i++)
		if (cmd == valid_cmds[i])
			return true;
	return false;
}

TEST_F_TIMEOUT(stress, random_ioctls_are_refused_or_served, 300)
{
	static struct pstate ps;
	struct fuzz f = { .env = &self->env, .rs = self->seed };
	bool held = false;
	const char *why;
	unsigned int i;
	double t = now();
	char *m;
	int fd, ret;

	ksft_print_msg("%u random ioctls, seed %#llx (PMUCTL_SEED=%#llx repeats it)\n",
		       NR_IOCTLS, self->seed, self->seed);
	f.page = sysconf(_SC_PAGESIZE);
	m = mmap(NULL, 5 * f.page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, m);
	f.rw = m;
	ASSERT_EQ(0, mprotect(m + 2 * f.page, f.page, PROT_NONE));
	f.ro = m + 3 * f.page;
	f.ro_n = load_group(&self->env, &f.rs, (struct pmuctl_event *)f.ro);
	ASSERT_EQ(0, mprotect(f.ro, f.page, PROT_READ));
	f.unmapped = (uintptr_t)(m + 4 * f.page);
	ASSERT_EQ(0, munmap(m + 4 * f.page, f.page));

	fd = dev_open();
	ASSERT_LE(0, fd);
	for (i = 0; i < NR_IOCTLS; i++) {
		unsigned long cmd = rand_cmd(&f);
		__u64 arg = (uintptr_t)f.rw;

		fill_arg(&f, _IOC_NR(cmd) % 8);
		if (rnd(&f) % 4 == 0)
			arg = rand_ptr(&f, arg, _IOC_SIZE(cmd));
		ret = ioctl(fd, cmd, (unsigned long)arg) ? -errno : 0;
		if (!is_valid_cmd(cmd)) {
			f.notty++;
			ASSERT_EQ(-ENOTTY, ret)
				TH_LOG("ioctl %u: cmd %#lx arg %#llx: not pmuctl's, want ENOTTY",
				       i, cmd, (unsigned long long)arg);
			continue;
		}
		f.exact++;
		f.err[-ret & 0xff]++;
		switch (ret) {
		case 0:
		case -EINVAL:
		case -EFAULT:
		case -EBUSY:
		case -ENOENT:
		case -E2BIG:
			break;
		default:
			ASSERT_EQ(0, ret) TH_LOG("ioctl %u: cmd %#lx arg %#llx: %s",
						 i, cmd, (unsigned long long)arg,
						 strerror(-ret));
		}
		if (!arg)
			ASSERT_EQ(-EFAULT, ret) TH_LOG("ioctl %u: cmd %#lx, NULL", i, cmd);
		if (!ret && cmd == PMUCTL_IOC_PROGRAM) {
			held = true;
			f.programmed++;
		}
		if (!ret && cmd == PMUCTL_IOC_RELEASE)
			held = false;
		/* The only session: the module counts a group iff it holds one. */
		if (i % 500 == 0 || (!ret && cmd == PMUCTL_IOC_PROGRAM)) {
			ASSERT_EQ(0, state_read(&ps));
			ASSERT_EQ((unsigned int)held, ps.programmed)
				TH_LOG("ioctl %u: cmd %#lx arg %#llx returned %d",
				       i, cmd, (unsigned long long)arg, ret);
		}
	}
	close(fd);
	ksft_print_msg("%lu pmuctl commands (%lu served, %lu EINVAL, %lu EFAULT, %lu EBUSY, %lu ENOENT, %lu E2BIG; %lu groups programmed), %lu others ENOTTY, in %.1f s\n",
		       f.exact, f.err[0], f.err[EINVAL], f.err[EFAULT], f.err[EBUSY],
		       f.err[ENOENT], f.err[E2BIG], f.programmed, f.notty, now() - t);
	EXPECT_LT(0UL, f.programmed);
	why = load_unclean(&self->env, 1000);
	EXPECT_TRUE(why == NULL) TH_LOG("after the ioctls: %s", why);
	munmap(m, 4 * f.page);
}

/* ---- a PROGRAM whose copy back faults, racing a second user of the session -- */

/*
 * A session may be shared by threads or by processes that inherited its
 * file.  PROGRAM commits the group, drops pmuctl_lock, then copies the
 * placement out; when that copy faults it takes the lock again and
 * releases "the session's group" (kmod/ioctl.c program_run).  If another
 * user of the session released that group and programmed its own in the
 * meantime, the undo releases the other user's group, whose PROGRAM
 * returned 0: its START then fails with ENOENT and pmuctl/state shows no
 * group.  The window is opened deterministically with userfaultfd: the
 * events array is write-protected, so the copy back sleeps until the
 * fault is served; it is served by making the page read-only, so the
 * copy fails.
 */
struct copyback {
	int fd;
	struct pmuctl_event *ev;
	int ret;
};

static void *program_thread(void *arg)
{
	struct copyback *cb = arg;
	struct pmuctl_program p;

	cb->ret = dev_program(cb->fd, cb->ev, 1, 1, &p);
	return NULL;
}

TEST_F(stress, program_efault_undo_spares_a_concurrent_group)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { 0 };
	struct uffdio_writeprotect wp = { 0 };
	struct pmuctl_event theirs = ev_make(EV_CYCLES | USR, 0, 0);
	struct copyback cb = { .ret = 1 };
	struct pmuctl_program p;
	static struct pstate ps;
	struct uffd_msg msg;
	struct pollfd pfd;
	pthread_t th;
	long page = sysconf(_SC_PAGESIZE);
	int uffd, ret;

	uffd = syscall(SYS_userfaultfd, O_CLOEXEC);
	if (uffd < 0)
		SKIP(return, "no userfaultfd: %s", strerror(errno));
	if (ioctl(uffd, UFFDIO_API, &api) ||
	    !(api.features & UFFD_FEATURE_PAGEFAULT_FLAG_WP)) {
		close(uffd);
		SKIP(return, "userfaultfd without write-protect faults");
	}
	cb.ev = mmap(NULL, page, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, cb.ev);
	cb.ev[0] = ev_make(EV_INST | USR, 0, 0);
	reg.range.start = (uintptr_t)cb.ev;
	reg.range.len = page;
	reg.mode = UFFDIO_REGISTER_MODE_WP;
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_REGISTER, &reg));
	wp.range = reg.range;
	wp.mode = UFFDIO_WRITEPROTECT_MODE_WP;
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_WRITEPROTECT, &wp));
	cb.fd = dev_open();
	ASSERT_LE(0, cb.fd);

	/* The first user: PROGRAM, stopped in the copy back. */
	ASSERT_EQ(0, pthread_create(&th, NULL, program_thread, &cb));
	pfd.fd = uffd;
	pfd.events = POLLIN;
	ret = poll(&pfd, 1, 10000);
	EXPECT_EQ(1, ret) TH_LOG("PROGRAM never wrote its events back");
	if (ret == 1) {
		ASSERT_EQ((ssize_t)sizeof(msg), read(uffd, &msg, sizeof(msg)));
		/* The second user: RELEASE the group, PROGRAM its own. */
		EXPECT_EQ(0, dev_ctl(cb.fd, PMUCTL_IOC_RELEASE));
		ASSERT_EQ(0, dev_program(cb.fd, &theirs, 1, 1, &p));
		/* The copy back fails. */
		ASSERT_EQ(0, mprotect(cb.ev, page, PROT_READ));
	}
	close(uffd);	/* wakes the faulting copy */
	pthread_join(th, NULL);
	EXPECT_EQ(-EFAULT, cb.ret);

	/* The second user's PROGRAM returned 0: its group must still be there. */
	ASSERT_EQ(0, state_read(&ps));
	EXPECT_EQ(1U, ps.programmed)
		TH_LOG("the failed PROGRAM's undo released the group a concurrent PROGRAM had just placed");
	EXPECT_EQ(0, dev_ctl(cb.fd, PMUCTL_IOC_START));
	close(cb.fd);
	munmap(cb.ev, page);
	EXPECT_TRUE(load_unclean(&self->env, 1000) == NULL);
}

/* ---- SIGKILL mid-sequence ------------------------------------------------- */

TEST_F_TIMEOUT(stress, sigkill_mid_session_releases_everything, 600)
{
	struct load_stats *st = load_stats_alloc(NR_WORKERS), sum;
	pid_t pids[NR_WORKERS], pid;
	unsigned int k, held = 0, failed = 0;
	__u64 rs = self->seed;
	const char *why;
	double t = now();
	int status;

	ASSERT_NE(NULL, st);
	/* Orphaned readers of shared sessions come back here to be reaped. */
	ASSERT_EQ(0, prctl(PR_SET_CHILD_SUBREAPER, 1));
	self->env.pin = true;
	self->env.share = true;
	ksft_print_msg("%u workers, %u SIGKILLs, seed %#llx (PMUCTL_SEED=%#llx repeats it)\n",
		       NR_WORKERS, NR_KILLS, self->seed, self->seed);
	ASSERT_EQ(0, load_spawn(&self->env, NR_WORKERS, 0, self->seed, st, pids));
	for (k = 0; k < NR_KILLS; k++) {
		unsigned int i = load_rand(&rs) % NR_WORKERS;

		usleep(load_rand(&rs) % 20000);
		held += st[i].holding;
		kill(pids[i], SIGKILL);
		while (waitpid(pids[i], &status, 0) < 0 && errno == EINTR)
			;
		failed += !WIFSIGNALED(status);
		st[i].kills++;
		st[i].holding = false;
		ASSERT_EQ(0, load_spawn(&self->env, 1, 0, self->seed + 1000 + k,
					&st[i], &pids[i]));
	}
	for (k = 0; k < NR_WORKERS; k++)
		kill(pids[k], SIGKILL);
	while ((pid = wait(&status)) > 0 || errno == EINTR)
		;
	load_stats_sum(st, NR_WORKERS, &sum);
	ksft_print_msg("%lu kills (%u of a worker holding a group), %lu sessions, %lu groups programmed, %lu refused busy, %lu reads, in %.1f s\n",
		       sum.kills, held, sum.opens, sum.programs, sum.busy,
		       sum.reads, now() - t);
	EXPECT_EQ(0, sum.bad) TH_LOG("%d unexpected answers; %s", sum.bad, sum.msg);
	EXPECT_EQ(0U, failed) TH_LOG("workers that ended before the kill");
	EXPECT_LT(0U, held);
	why = load_unclean(&self->env, 2000);
	EXPECT_TRUE(why == NULL) TH_LOG("after the kills: %s", why);
	load_stats_free(st, NR_WORKERS);
}

DEVICE_TEST_MAIN
