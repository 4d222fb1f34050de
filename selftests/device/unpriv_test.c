// SPDX-License-Identifier: GPL-2.0
/*
 * Sessions without CAP_PERFMON: refused unless the administrator opts in
 * (module parameter "unprivileged"), and then user mode only, no
 * AnyThread, only on CPUs the caller may run on.  Each rule is checked by
 * a child that drops to uid/gid 65534 (losing every capability).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "lib.h"

#define PARAM		PARAM_DIR "/unprivileged"
#define NOBODY		65534

/* What a child reports back: errno of open, ret/errno and reason of PROGRAM. */
struct outcome {
	int open_err;
	int prog_err;
	__u32 reason;
};

static int program_one(int fd, __u64 config, int cpu, __u32 *reason)
{
	struct pmuctl_event ev = ev_make(config, 0, 0);
	struct pmuctl_program p;
	int ret = dev_program(fd, &ev, 1, 1ULL << cpu, &p);

	*reason = p.err_reason;
	return ret;
}

/*
 * In a child: optionally drop privileges and pin to @pin_cpu (-1: no),
 * open the device and program @config on @cpu.
 */
static struct outcome as_child(bool drop, int pin_cpu, __u64 config, int cpu)
{
	struct outcome o = { 0 };
	int pipefd[2], status;
	pid_t pid;

	if (pipe(pipefd))
		return (struct outcome){ .open_err = -errno };
	pid = fork();
	if (pid == 0) {
		int fd;

		close(pipefd[0]);
		if (pin_cpu >= 0) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(pin_cpu, &set);
			sched_setaffinity(0, sizeof(set), &set);
		}
		if (drop && (setgid(NOBODY) || setuid(NOBODY)))
			_exit(2);
		fd = open(DEV_PATH, O_RDWR);
		if (fd < 0)
			o.open_err = -errno;
		else
			o.prog_err = program_one(fd, config, cpu, &o.reason);
		if (write(pipefd[1], &o, sizeof(o)) != sizeof(o))
			_exit(3);
		_exit(0);
	}
	close(pipefd[1]);
	if (pid < 0 || read(pipefd[0], &o, sizeof(o)) != sizeof(o))
		o.open_err = -EPIPE;
	close(pipefd[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	return o;
}

FIXTURE(unpriv) {
	bool present;
	mode_t mode;
};

FIXTURE_SETUP(unpriv)
{
	struct stat st;

	/* The device node is root's 0600: let "nobody" reach the module. */
	self->present = !stat(DEV_PATH, &st) && !access(PARAM, W_OK);
	if (!self->present)
		return;
	self->mode = st.st_mode & 07777;
	ASSERT_EQ(0, chmod(DEV_PATH, 0666));
}

FIXTURE_TEARDOWN(unpriv)
{
	if (!self->present)
		return;
	write_str(PARAM, "0");
	chmod(DEV_PATH, self->mode);
}

#define REQUIRE_DEVICE()						\
	do {								\
		if (!self->present)					\
			SKIP(return, "no write access to " PARAM); \
	} while (0)

#define USR_CYCLES	(PMUCTL_CFG_USR | 0x003c)

TEST_F(unpriv, refuses_unprivileged_open_by_default)
{
	struct outcome o;

	REQUIRE_DEVICE();
	ASSERT_EQ(0, write_str(PARAM, "0"));
	o = as_child(true, -1, USR_CYCLES, 0);
	EXPECT_EQ(-EPERM, o.open_err);
}

TEST_F(unpriv, admits_unprivileged_user_mode_when_opted_in)
{
	struct outcome o;

	REQUIRE_DEVICE();
	ASSERT_EQ(0, write_str(PARAM, "1"));
	o = as_child(true, -1, USR_CYCLES, 0);
	EXPECT_EQ(0, o.open_err);
	EXPECT_EQ(0, o.prog_err);
}

TEST_F(unpriv, rejects_unprivileged_kernel_mode)
{
	struct outcome o;

	REQUIRE_DEVICE();
	ASSERT_EQ(0, write_str(PARAM, "1"));
	o = as_child(true, -1, USR_CYCLES | PMUCTL_CFG_OS, 0);
	EXPECT_EQ(0, o.open_err);
	EXPECT_EQ(-EINVAL, o.prog_err);
	EXPECT_EQ((__u32)PMUCTL_R_UNPRIV_KERNEL_MODE, o.reason);
}

TEST_F(unpriv, rejects_unprivileged_any_thread)
{
	struct outcome o;

	REQUIRE_DEVICE();
	ASSERT_EQ(0, write_str(PARAM, "1"));
	/* INST_RETIRED.ANY may use AnyThread on fixed counter 0 on every model here. */
	o = as_child(true, -1, PMUCTL_CFG_USR | PMUCTL_CFG_ANY | 0x00c0, 0);
	EXPECT_EQ(-EINVAL, o.prog_err);
	EXPECT_EQ((__u32)PMUCTL_R_UNPRIV_ANY_THREAD, o.reason);
}

TEST_F(unpriv, rejects_unprivileged_cpu_outside_affinity)
{
	struct outcome o;

	REQUIRE_DEVICE();
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs two CPUs");
	ASSERT_EQ(0, write_str(PARAM, "1"));
	o = as_child(true, 0, USR_CYCLES, 1);
	EXPECT_EQ(-EPERM, o.prog_err);
	EXPECT_EQ((__u32)PMUCTL_R_CPU_NOT_ALLOWED, o.reason);
	o = as_child(true, 0, USR_CYCLES, 0);
	EXPECT_EQ(0, o.prog_err);
}

TEST_F(unpriv, privileged_session_may_count_any_cpu_in_kernel_mode)
{
	struct outcome o;

	REQUIRE_DEVICE();
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs two CPUs");
	o = as_child(false, 0, USR_CYCLES | PMUCTL_CFG_OS, 1);
	EXPECT_EQ(0, o.open_err);
	EXPECT_EQ(0, o.prog_err);
}

DEVICE_TEST_MAIN
