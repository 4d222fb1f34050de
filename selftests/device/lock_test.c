// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctl_lock and what may happen under it (issue 10, item 1):
 *
 *  - the driver takes no path lookup, so a FIFO where the kernel's sysfs
 *    rdpmc file lives (the first build opened it under pmuctl_lock and
 *    cpus_read_lock(): a FIFO blocked the open forever) changes nothing:
 *    PROGRAM returns at once.  The FIFO goes into a private mount
 *    namespace of the child that programs, bind-mounted over the file
 *    where the guest has one (the emulated-PMU guests), else in a tmpfs
 *    mounted over /sys/bus/event_source/devices (the register-model guests
 *    have no perf "cpu" PMU, hence no file to mount over);
 *  - a command waiting for pmuctl_lock dies at SIGKILL at once, instead of
 *    waiting for the holder (mutex_lock_killable): every ioctl, within
 *    KILL_SECS while the holder keeps it HOLD_MS (doc/module.md: "Every ioctl
 *    waits for pmuctl's lock killably").  The register model's debugfs
 *    hold_lock holds the lock for as long as the test says; the test
 *    starts the waiter once the holder sleeps there (/proc/PID/wchan) and
 *    kills it once it sleeps in ioctl(2) ('D' in /proc/PID/stat).
 *
 * Each blocking step runs in a child with a deadline, so a regression
 * fails the test instead of hanging it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"
#include "kselftest_harness.h"

#define RDPMC_DIR	"/sys/bus/event_source/devices/cpu"
#define RDPMC_FILE	RDPMC_DIR "/rdpmc"
#define EVS_DIR		"/sys/bus/event_source/devices"
#define SCRATCH		"/pmuctl-lock-test"
#define DBG_HOLD	DBG_DIR "/hold_lock"
/*
 * How long the holder holds the lock, and how soon after SIGKILL a waiter
 * must be gone: well inside the hold, so that only a killable wait passes,
 * and loose enough for the exit of a process in a busy KASAN guest.
 */
#define HOLD_MS		10000
#define HOLD_STR	"10000"
#define KILL_SECS	2.0

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Wait for @pid up to @secs; 1 if it ended (status in *st), 0 if not. */
static int wait_for(pid_t pid, double secs, int *st)
{
	double end = now() + secs;

	do {
		pid_t r = waitpid(pid, st, WNOHANG);

		if (r == pid)
			return 1;
		if (r < 0)
			return -errno;
		usleep(10000);
	} while (now() < end);
	return 0;
}

/* /proc/@pid/@name's first line into @buf, without the newline; 0 or -1. */
static int proc_line(pid_t pid, const char *name, char *buf, size_t len)
{
	char path[64], *s;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, name);
	s = slurp(path);
	if (!s)
		return -1;
	snprintf(buf, len, "%.*s", (int)strcspn(s, "\n"), s);
	free(s);
	return 0;
}

/* @pid's state letter from /proc/PID/stat, or 0. */
static char proc_state(pid_t pid)
{
	char buf[512], *p;

	if (proc_line(pid, "stat", buf, sizeof(buf)))
		return 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

/*
 * Wait up to @secs until the holder sleeps in the register model's
 * hold_lock write, pmuctl_lock taken (its wchan); a fixed delay was not
 * enough in a busy debug guest.  1 when it does, 0 if not.
 */
static int holder_holds(pid_t pid, double secs)
{
	double end = now() + secs;
	char buf[128];

	do {
		if (!proc_line(pid, "wchan", buf, sizeof(buf)) &&
		    !strcmp(buf, "rm_hold_write"))
			return 1;
		usleep(10000);
	} while (now() < end);
	return 0;
}

/*
 * Wait up to @secs until @pid sleeps in ioctl(2) unkillable by anything
 * but a fatal signal ('D': TASK_KILLABLE): it waits for pmuctl_lock.
 * 1 when it does, 0 if not (it still runs towards it, or it returned).
 */
static int waits_in_ioctl(pid_t pid, double secs)
{
	double end = now() + secs;
	char buf[256];

	do {
		if (proc_state(pid) == 'D' &&
		    !proc_line(pid, "syscall", buf, sizeof(buf)) &&
		    !strncmp(buf, "16 ", 3))
			return 1;
		usleep(10000);
	} while (now() < end);
	return 0;
}

/* In a private mount namespace: a FIFO where sysfs rdpmc is.  0 or a step. */
static int fifo_over_sysfs_rdpmc(void)
{
	struct stat st;

	if (unshare(CLONE_NEWNS))
		return 1;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return 2;
	if (!stat(RDPMC_FILE, &st)) {
		/* The file exists: bind a FIFO over it. */
		if (mkdir(SCRATCH, 0700) && errno != EEXIST)
			return 3;
		if (mount("tmpfs", SCRATCH, "tmpfs", 0, NULL))
			return 4;
		if (mkfifo(SCRATCH "/rdpmc", 0600))
			return 5;
		if (mount(SCRATCH "/rdpmc", RDPMC_FILE, NULL, MS_BIND, NULL))
			return 6;
	} else {
		/* No perf cpu PMU: a tmpfs where its folder would be. */
		if (mount("tmpfs", EVS_DIR, "tmpfs", 0, NULL))
			return 7;
		if (mkdir(RDPMC_DIR, 0755) || mkfifo(RDPMC_FILE, 0600))
			return 8;
	}
	if (stat(RDPMC_FILE, &st) || !S_ISFIFO(st.st_mode))
		return 9;
	return 0;
}

FIXTURE(lock) {
	int fd;
};

FIXTURE_SETUP(lock)
{
	self->fd = dev_open();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(lock)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(lock, program_returns_with_a_fifo_at_the_sysfs_rdpmc_path)
{
	int st = 0, r;
	pid_t pid;
	double t0;

	fflush(stdout);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct pmuctl_event ev = ev_make(EV_INST | USR, 0, 0);
		struct pmuctl_program p;
		int step = fifo_over_sysfs_rdpmc(), fd;

		if (step)
			_exit(100 + step);
		fd = dev_open();
		if (fd < 0)
			_exit(99);
		switch (dev_program(fd, &ev, 1, 1, &p)) {
		case 0:
			_exit(0);
		case -EBUSY:	/* it returned: perf (the NMI watchdog) holds the counters */
			_exit(p.err_reason == PMUCTL_R_PERF_BUSY ? 97 : 98);
		default:
			_exit(98);
		}
	}
	t0 = now();
	r = wait_for(pid, 5, &st);
	if (r == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	EXPECT_EQ(1, r) TH_LOG("PROGRAM still blocked after 5 s with a FIFO at %s",
			       RDPMC_FILE);
	if (r == 1) {
		EXPECT_TRUE(WIFEXITED(st)) TH_LOG("status %#x", st);
		if (WEXITSTATUS(st) == 97) {
			TH_LOG("PROGRAM returned PERF_BUSY: perf holds the counters");
			st = 0;
		}
		EXPECT_EQ(0, WEXITSTATUS(st)) {
			TH_LOG("exit %d: 98 PROGRAM failed, 99 open, 100+N setup step N",
			       WEXITSTATUS(st));
		}
		TH_LOG("PROGRAM returned after %.3f s", now() - t0);
	}
	/* Every session still works afterwards. */
	{
		struct pmuctl_info info;

		EXPECT_EQ(0, dev_info(self->fd, &info));
	}
}

TEST_F(lock, command_waiting_for_the_lock_dies_at_sigkill)
{
	struct pmuctl_info info;
	pid_t holder, waiter;
	int st, r;
	double t0;

	if (!debugfs_ready() || access(DBG_HOLD, W_OK))
		SKIP(return, "no %s (register-model build)", DBG_HOLD);
	fflush(stdout);
	holder = fork();
	ASSERT_LE(0, holder);
	if (!holder)
		_exit(write_str(DBG_HOLD, "8000") ? 1 : 0);
	EXPECT_EQ(1, holder_holds(holder, 5)) TH_LOG("the holder did not take the lock in 5 s");
	waiter = fork();
	ASSERT_LE(0, waiter);
	if (!waiter)	/* START takes the lock, then finds no group */
		_exit(dev_ctl(self->fd, PMUCTL_IOC_START) == -ENOENT ? 0 : 1);
	/* The waiter must be blocked: the lock is really held. */
	EXPECT_EQ(1, waits_in_ioctl(waiter, 5)) TH_LOG("START did not wait for the lock");
	EXPECT_EQ(0, wait_for(waiter, 0, &st)) TH_LOG("START did not wait for the lock");
	t0 = now();
	kill(waiter, SIGKILL);
	r = wait_for(waiter, 3, &st);
	EXPECT_EQ(1, r) TH_LOG("the waiter outlived SIGKILL by 3 s: mutex_lock is not killable");
	if (r == 1) {
		EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
		TH_LOG("the waiter died %.3f s after SIGKILL", now() - t0);
	}
	kill(holder, SIGKILL);
	EXPECT_EQ(1, wait_for(holder, 10, &st));
	if (r == 0)
		waitpid(waiter, &st, 0);
	EXPECT_EQ(0, dev_info(self->fd, &info));
}

/* Every command, with arguments that get it as far as pmuctl_lock. */
struct lock_cmd {
	const char *name;
	unsigned long cmd;
};

static const struct lock_cmd lock_cmds[] = {
	{ "INFO", PMUCTL_IOC_INFO },
	{ "PROGRAM", PMUCTL_IOC_PROGRAM },
	{ "START", PMUCTL_IOC_START },
	{ "STOP", PMUCTL_IOC_STOP },
	{ "RESET", PMUCTL_IOC_RESET },
	{ "READ", PMUCTL_IOC_READ },
	{ "RELEASE", PMUCTL_IOC_RELEASE },
	{ "RDPMC", PMUCTL_IOC_RDPMC },
	{ "THREADS", PMUCTL_IOC_THREADS },
};

/* In the waiter: the command on the session @fd; it never returns. */
static void lock_cmd_run(int fd, unsigned long cmd)
{
	struct pmuctl_event ev = ev_make(EV_INST | USR, 0, 0);
	struct pmuctl_program p;
	struct pmuctl_info info;
	struct pmuctl_threads th;
	__u64 val[PMUCTL_MAX_EVENTS];
	int ret;

	switch (cmd) {
	case PMUCTL_IOC_INFO:
		_exit(dev_info(fd, &info) ? 1 : 0);
	case PMUCTL_IOC_PROGRAM:
		_exit(dev_program(fd, &ev, 1, 1, &p) ? 1 : 0);
	case PMUCTL_IOC_READ:
		_exit(dev_read(fd, 0, val, PMUCTL_MAX_EVENTS) == -ENOENT ? 0 : 1);
	case PMUCTL_IOC_THREADS:
		memset(&th, 0, sizeof(th));
		th.nr_values = 1;
		_exit(dev_ioctl(fd, cmd, &th) == -ENOENT ? 0 : 1);
	}
	/* START, STOP, RESET, RELEASE, RDPMC: no group, ENOENT (RELEASE: 0). */
	ret = dev_ctl(fd, cmd);
	_exit(!ret || ret == -ENOENT ? 0 : 1);
}

TEST_F_TIMEOUT(lock, every_ioctl_waiting_for_the_lock_dies_at_sigkill, 90)
{
	struct pmuctl_info info;
	unsigned int i;

	if (!debugfs_ready() || access(DBG_HOLD, W_OK))
		SKIP(return, "no %s (register-model build)", DBG_HOLD);
	ASSERT_EQ(0, dev_info(self->fd, &info));
	for (i = 0; i < ARRAY_SIZE(lock_cmds); i++) {
		const struct lock_cmd *c = &lock_cmds[i];
		pid_t holder, waiter;
		int st, r;
		double t0;

		/* Without rdpmc grants RDPMC answers before taking the lock. */
		if (c->cmd == PMUCTL_IOC_RDPMC && info.rdpmc == PMUCTL_RDPMC_NONE) {
			TH_LOG("RDPMC: pmuctl grants no rdpmc here, not tested");
			continue;
		}
		fflush(stdout);
		holder = fork();
		ASSERT_LE(0, holder);
		if (!holder)
			_exit(write_str(DBG_HOLD, HOLD_STR) ? 1 : 0);
		EXPECT_EQ(1, holder_holds(holder, 5)) {
			TH_LOG("%s: the holder did not take the lock in 5 s", c->name);
		}
		waiter = fork();
		ASSERT_LE(0, waiter);
		if (!waiter)
			lock_cmd_run(self->fd, c->cmd);
		/* The waiter must be blocked: the lock is really held. */
		EXPECT_EQ(1, waits_in_ioctl(waiter, 5)) {
			TH_LOG("%s did not wait for the lock", c->name);
		}
		EXPECT_EQ(0, wait_for(waiter, 0, &st)) {
			TH_LOG("%s did not wait for the lock (status %#x)", c->name, st);
		}
		t0 = now();
		kill(waiter, SIGKILL);
		r = wait_for(waiter, KILL_SECS, &st);
		EXPECT_EQ(1, r) {
			TH_LOG("%s: the waiter outlived SIGKILL by %.1f s, the lock held %d s more: it waits for pmuctl_lock unkillably",
			       c->name, KILL_SECS, HOLD_MS / 1000);
		}
		if (r == 1) {
			EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) {
				TH_LOG("%s: status %#x", c->name, st);
			}
			TH_LOG("%s: the waiter died %.3f s after SIGKILL", c->name, now() - t0);
		}
		/* Late, or still there a second later while the lock is held? */
		if (r == 0) {
			r = wait_for(waiter, 1, &st);
			TH_LOG("%s: the waiter is %s %.3f s after SIGKILL, the lock still held",
			       c->name, r ? "dead" : "still alive", now() - t0);
		}
		kill(holder, SIGKILL);
		EXPECT_EQ(1, wait_for(holder, 10, &st)) TH_LOG("%s: the holder", c->name);
		if (r == 0) {
			waitpid(waiter, &st, 0);
			TH_LOG("%s: the waiter died %.3f s after SIGKILL, once the lock was free",
			       c->name, now() - t0);
		}
		/* A PROGRAM that got through: the session holds nothing after. */
		dev_ctl(self->fd, PMUCTL_IOC_RELEASE);
	}
	EXPECT_EQ(0, dev_info(self->fd, &info));
}

DEVICE_TEST_MAIN
