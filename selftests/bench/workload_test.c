// SPDX-License-Identifier: GPL-2.0
/*
 * The known-count workload (selftests/bench/workload.S) retires exactly
 * 2N + 8D + 23 user-mode instructions from exec to exit: checked here on
 * any host, without a PMU, by single-stepping it.  The child stops at its
 * exec (PTRACE_TRACEME), before its first instruction, at the ELF entry
 * point; each PTRACE_SINGLESTEP then executes one instruction, the last
 * one being the exit_group system call, after which the child is gone.
 * So the number of steps is the number of instructions it retired, the
 * same number an exact "instructions retired, user mode" counter gives
 * (scripts/vm/qemu/pmu-spec.md: the emulated PMU counts each instruction once; the
 * syscall instruction retires at CPL 3).
 *
 * The workload is $WORKLOAD, default build/vmbin/workload (check.sh runs
 * the tests from the top of the tree).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

static const char *workload(void)
{
	const char *w = getenv("WORKLOAD");

	return w && *w ? w : "build/vmbin/workload";
}

/* The formula of workload.S for the argument @arg (all digits). */
static long expected(const char *arg)
{
	return 2 * strtol(arg, NULL, 10) + 8 * (long)strlen(arg) + 23;
}

/* e_entry of @path, or 0. */
static unsigned long entry_point(const char *path)
{
	Elf64_Ehdr eh;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, &eh, sizeof(eh));
	close(fd);
	return n == (ssize_t)sizeof(eh) ? eh.e_entry : 0;
}

/*
 * Run the workload with @argv[1..] under ptrace, single-stepping.
 * *@steps: instructions executed; *@status: its wait status; *@rip: where
 * it stood at its exec stop.  Return: 0 or -errno.
 */
static int step_count(char *const *args, long *steps, int *status,
		      unsigned long *rip)
{
	struct user_regs_struct regs;
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execv(workload(), args);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st) || WSTOPSIG(st) != SIGTRAP) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -ECHILD;
	}
	if (ptrace(PTRACE_GETREGS, pid, NULL, &regs))
		return -errno;
	*rip = regs.rip;
	*steps = 0;
	for (;;) {
		if (ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL))
			return -errno;
		++*steps;
		if (waitpid(pid, &st, 0) != pid)
			return -errno;
		if (!WIFSTOPPED(st))
			break;
		if (WSTOPSIG(st) != SIGTRAP) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			return -EINTR;
		}
	}
	*status = st;
	return 0;
}

static const struct {
	const char *arg;
	int line;
} sizes[] = {
	{ "0", __LINE__ },
	{ "1", __LINE__ },
	{ "9", __LINE__ },
	{ "10", __LINE__ },
	{ "007", __LINE__ },
	{ "1000", __LINE__ },
	{ "2500", __LINE__ },
};

TEST(retires_2n_plus_8d_plus_23_from_its_entry_point)
{
	unsigned long entry = entry_point(workload());

	ASSERT_NE(0UL, entry) TH_LOG("cannot read the ELF header of %s", workload());
	for (unsigned int i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		char *args[] = { "workload", (char *)sizes[i].arg, NULL };
		unsigned long rip = 0;
		long steps = -1;
		int st = -1;

		ASSERT_EQ(0, step_count(args, &steps, &st, &rip))
			TH_LOG("line %d: cannot step %s %s", sizes[i].line,
			       workload(), sizes[i].arg);
		EXPECT_EQ(entry, rip) {
			TH_LOG("line %d: the exec stop is not at the entry point",
			       sizes[i].line);
		}
		EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) {
			TH_LOG("line %d: workload %s: wait status %#x", sizes[i].line,
			       sizes[i].arg, st);
		}
		EXPECT_EQ(expected(sizes[i].arg), steps) {
			TH_LOG("line %d: workload %s", sizes[i].line, sizes[i].arg);
		}
	}
}

TEST(refuses_bad_arguments_with_status_2)
{
	static char *bad[][4] = {
		{ "workload", NULL, NULL },
		{ "workload", "1", "2" },
		{ "workload", "", NULL },
		{ "workload", "x", NULL },
		{ "workload", "12a", NULL },
		{ "workload", "-1", NULL },
		{ "workload", "1234567890123456789", NULL },	/* 19 digits */
	};

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		pid_t pid = fork();
		int st = -1;

		ASSERT_LE(0, pid);
		if (pid == 0) {
			execv(workload(), bad[i]);
			_exit(127);
		}
		ASSERT_EQ(pid, waitpid(pid, &st, 0));
		EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 2) {
			TH_LOG("case %u: wait status %#x", i, st);
		}
	}
}

TEST_HARNESS_MAIN
