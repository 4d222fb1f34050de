// SPDX-License-Identifier: GPL-2.0
/*
 * How "pmuctl stat" starts its command (user/tool_launch.c), on any host,
 * without the device: start() stands in for RESET/READ/START and looks at
 * the child from outside at the moment counting would begin.
 *
 *  - exact launch: at start() the child has exec'd (/proc/PID/exe is the
 *    command), is stopped, stands at the command's ELF entry point (its
 *    first instruction not run: the registers say so) and is pinned to
 *    the CPU asked for; afterwards it runs untraced to its own end;
 *  - exit status, death by a signal and SIGINT's disposition are the
 *    command's own, as with a plain fork and exec;
 *  - an exec error is reported as the errno of the exec, start() never
 *    called;
 *  - plain launch (asked for, or ptrace refused by a seccomp filter): at
 *    start() the child has not exec'd yet; the refusal's errno is kept;
 *  - set-user-ID, set-group-ID (with group execute) executables are
 *    recognised, found through $PATH as execvp() finds them;
 *  - task mode (tool_launch_task()): program() runs in the child before
 *    its exec, untraced and with the caller's affinity, and its result
 *    comes back to the parent; a refusal ends the child before the
 *    command runs and reaches the parent as "program" with the result;
 *    exit status, SIGINT and exec errors are the command's as above.
 *
 * The command is the known-count workload $WORKLOAD (default
 * build/vmbin/workload, selftests/bench/workload.S) or sh.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "tool.h"

static const char *workload(void)
{
	const char *w = getenv("WORKLOAD");

	return w && *w ? w : "build/vmbin/workload";
}

/* What start() saw. */
struct seen {
	int calls;
	pid_t pid;
	char exe[PATH_MAX];
	char state;
	unsigned long rip;
	bool rip_ok;
	bool pinned;
	int cpu;
};

static struct seen seen;

/* The child's /proc/PID/stat state letter. */
static char proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return '?';
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return '?';
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

/* start(): @arg is the launch, whose pid is set before start() runs. */
static int look(void *arg)
{
	pid_t launched = ((const struct tool_launch *)arg)->pid;
	struct user_regs_struct regs;
	cpu_set_t set;
	char path[64];
	ssize_t n;

	seen.calls++;
	seen.pid = launched;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)launched);
	n = readlink(path, seen.exe, sizeof(seen.exe) - 1);
	seen.exe[n > 0 ? n : 0] = '\0';
	seen.state = proc_state(launched);
	seen.rip_ok = !ptrace(PTRACE_GETREGS, launched, NULL, &regs);
	seen.rip = seen.rip_ok ? regs.rip : 0;
	seen.pinned = !sched_getaffinity(launched, sizeof(set), &set) &&
		      CPU_COUNT(&set) == 1 && CPU_ISSET(seen.cpu, &set);
	return 0;
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

struct run {
	struct tool_launch l;
	cpu_set_t cpus;
	sigset_t mask;
	struct sigaction dfl;
	int ret;		/* tool_launch() */
	int end;		/* tool_launch_end() */
	int status;
};

/* Launch @argv pinned to the CPU this runs on, wait, end. */
static void launch(struct run *r, char *const *argv, bool plain)
{
	memset(r, 0, sizeof(*r));
	memset(&seen, 0, sizeof(seen));
	seen.cpu = sched_getcpu();
	CPU_ZERO(&r->cpus);
	CPU_SET(seen.cpu, &r->cpus);
	sigemptyset(&r->mask);
	r->dfl.sa_handler = SIG_DFL;
	r->l.argv = argv;
	r->l.cpuset = &r->cpus;
	r->l.setsize = sizeof(r->cpus);
	r->l.mask = &r->mask;
	r->l.sigint = &r->dfl;
	r->l.sigquit = &r->dfl;
	r->l.plain = plain;
	r->l.start = look;
	r->l.arg = &r->l;
	r->ret = tool_launch(&r->l);
	r->status = -1;
	if (!r->ret && r->l.ended)
		r->status = r->l.status;
	else if (!r->ret)
		while (waitpid(r->l.pid, &r->status, 0) < 0 && errno == EINTR)
			;
	r->end = tool_launch_end(&r->l);
}

TEST(exact_launch_starts_counting_at_the_first_instruction)
{
	char *argv[] = { (char *)workload(), "1000", NULL };
	char real[PATH_MAX];
	struct run r;

	ASSERT_NE(NULL, realpath(workload(), real))
		TH_LOG("no workload at %s: build it (make build/vmbin/workload)", workload());
	launch(&r, argv, false);
	ASSERT_EQ(0, r.ret) TH_LOG("tool_launch: %s: %s", r.l.failed, strerror(-r.ret));
	EXPECT_EQ((int)TOOL_LAUNCH_EXACT, (int)r.l.how);
	EXPECT_EQ(0, r.l.trace_err);
	EXPECT_TRUE(r.l.started);
	EXPECT_EQ(1, seen.calls);
	/* Exec'd, stopped (traced), at the entry point, pinned. */
	EXPECT_STREQ(real, seen.exe);
	EXPECT_EQ('t', seen.state);
	EXPECT_TRUE(seen.rip_ok);
	EXPECT_EQ(entry_point(workload()), seen.rip);
	EXPECT_TRUE(seen.pinned);
	/* Then it ran to its own end, untraced. */
	EXPECT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0) {
		TH_LOG("wait status %#x", r.status);
	}
	EXPECT_EQ(0, r.end);
}

TEST(exit_status_is_the_commands)
{
	char *argv[] = { "sh", "-c", "exit 7", NULL };
	struct run r;

	launch(&r, argv, false);
	ASSERT_EQ(0, r.ret);
	EXPECT_EQ((int)TOOL_LAUNCH_EXACT, (int)r.l.how);
	EXPECT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 7) {
		TH_LOG("wait status %#x", r.status);
	}
	EXPECT_EQ(0, r.end);
}

TEST(death_by_a_signal_is_the_commands)
{
	char *argv[] = { "sh", "-c", "kill -USR1 $$; exit 0", NULL };
	struct run r;

	launch(&r, argv, false);
	ASSERT_EQ(0, r.ret);
	EXPECT_TRUE(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGUSR1) {
		TH_LOG("wait status %#x", r.status);
	}
	EXPECT_EQ(0, r.end);
}

/* pmuctl ignores SIGINT while the command runs; the command must not. */
TEST(sigint_is_restored_for_the_command)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	char *argv[] = { "sh", "-c", "kill -INT $$; exit 0", NULL };
	struct run r;

	sigaction(SIGINT, &ign, &old);
	launch(&r, argv, false);
	sigaction(SIGINT, &old, NULL);
	ASSERT_EQ(0, r.ret);
	EXPECT_TRUE(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGINT) {
		TH_LOG("wait status %#x", r.status);
	}
}

TEST(exec_error_is_the_execs_errno)
{
	char *missing[] = { "pmuctl-no-such-command", NULL };
	char *dir[] = { "/", NULL };
	struct run r;

	launch(&r, missing, false);
	ASSERT_EQ(0, r.ret);
	EXPECT_EQ(-ENOENT, r.end);
	ASSERT_NE(NULL, r.l.failed);
	EXPECT_STREQ("exec", r.l.failed);
	EXPECT_FALSE(r.l.started);
	EXPECT_EQ(0, seen.calls);

	launch(&r, dir, false);
	ASSERT_EQ(0, r.ret);
	EXPECT_EQ(-EACCES, r.end);
	EXPECT_EQ(0, seen.calls);
}

TEST(plain_launch_starts_counting_before_the_exec)
{
	char *argv[] = { (char *)workload(), "10", NULL };
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	struct run r;

	ASSERT_LT(0, n);
	self[n] = '\0';
	launch(&r, argv, true);
	ASSERT_EQ(0, r.ret);
	EXPECT_EQ((int)TOOL_LAUNCH_PLAIN, (int)r.l.how);
	EXPECT_EQ(0, r.l.trace_err);
	EXPECT_EQ(1, seen.calls);
	EXPECT_STREQ(self, seen.exe);	/* not exec'd yet */
	EXPECT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
	EXPECT_EQ(0, r.end);
}

/* A seccomp filter that fails ptrace() with EPERM, as a container's may. */
static int forbid_ptrace(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_ptrace, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) ? -errno : 0;
}

TEST(refused_ptrace_falls_back_to_the_plain_launch)
{
	char *argv[] = { (char *)workload(), "10", NULL };
	struct run r;

	/* The harness runs each test in its own process: the filter dies with it. */
	ASSERT_EQ(0, forbid_ptrace());
	launch(&r, argv, false);
	ASSERT_EQ(0, r.ret) TH_LOG("tool_launch: %s: %s", r.l.failed, strerror(-r.ret));
	EXPECT_EQ((int)TOOL_LAUNCH_PLAIN, (int)r.l.how);
	EXPECT_EQ(EPERM, r.l.trace_err);
	EXPECT_EQ(1, seen.calls);
	EXPECT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
	EXPECT_EQ(0, r.end);
}

TEST(privileged_executables_are_recognised)
{
	static const struct {
		mode_t mode;
		int want;
		int line;
	} modes[] = {
		{ 0755, 0, __LINE__ },
		{ 04755, TOOL_LAUNCH_SETUID, __LINE__ },
		{ 02755, TOOL_LAUNCH_SETGID, __LINE__ },
		{ 02745, 0, __LINE__ },		/* no group execute: a lock mark */
		{ 06755, TOOL_LAUNCH_SETUID, __LINE__ },
	};
	char dir[] = "/tmp/pmuctl-launch-XXXXXX", file[PATH_MAX], path[PATH_MAX];
	char *old_path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	char cmd[64];
	int in, out;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/cmd", dir);
	in = open(workload(), O_RDONLY | O_CLOEXEC);
	out = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0755);
	ASSERT_LE(0, in);
	ASSERT_LE(0, out);
	for (;;) {
		ssize_t n = read(in, cmd, sizeof(cmd));

		if (n <= 0)
			break;
		ASSERT_EQ(n, write(out, cmd, (size_t)n));
	}
	close(in);
	close(out);

	for (unsigned int i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		ASSERT_EQ(0, chmod(file, modes[i].mode));
		EXPECT_EQ(modes[i].want, tool_launch_privileged(file, path, sizeof(path))) {
			TH_LOG("line %d: mode %o", modes[i].line, modes[i].mode);
		}
		/* By name, through $PATH, as execvp() finds it. */
		setenv("PATH", dir, 1);
		EXPECT_EQ(modes[i].want, tool_launch_privileged("cmd", path, sizeof(path))) {
			TH_LOG("line %d: mode %o via PATH", modes[i].line, modes[i].mode);
		}
		EXPECT_STREQ(file, path);
		if (old_path)
			setenv("PATH", old_path, 1);
		else
			unsetenv("PATH");
	}
	/* Not found: nothing to say; the exec will. */
	EXPECT_EQ(0, tool_launch_privileged("pmuctl-no-such-command", path, sizeof(path)));
	unlink(file);
	rmdir(dir);
	free(old_path);
}

/* Task mode: what the child's program() saw, sent back as the result. */
struct task_seen {
	pid_t pid;
	char exe[PATH_MAX];
	int tracer;
	int nr_cpus;
	uint32_t reason;
};

struct task_run {
	struct tool_launch l;
	sigset_t mask;
	struct sigaction dfl;
	struct task_seen res;
	int program_ret;	/* what program() returns */
	int ret, end, status;
};

/* TracerPid of /proc/self/status, or -1. */
static int tracer_pid(void)
{
	char line[256];
	int pid = -1;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "TracerPid: %d", &pid) == 1)
			break;
	fclose(f);
	return pid;
}

/* program(), in the child: look at ourselves, answer as told. */
static int task_program(void *arg)
{
	struct task_run *r = arg;
	cpu_set_t set;
	ssize_t n;

	r->res.pid = getpid();
	n = readlink("/proc/self/exe", r->res.exe, sizeof(r->res.exe) - 1);
	r->res.exe[n > 0 ? n : 0] = '\0';
	r->res.tracer = tracer_pid();
	r->res.nr_cpus = sched_getaffinity(0, sizeof(set), &set) ? -1 : CPU_COUNT(&set);
	r->res.reason = r->program_ret ? PMUCTL_R_UNPRIV_KERNEL_MODE : 0;
	return r->program_ret;
}

static void launch_task(struct task_run *r, char *const *argv, int program_ret)
{
	memset(r, 0, sizeof(*r));
	sigemptyset(&r->mask);
	r->dfl.sa_handler = SIG_DFL;
	r->program_ret = program_ret;
	r->l.argv = argv;
	r->l.mask = &r->mask;
	r->l.sigint = &r->dfl;
	r->l.sigquit = &r->dfl;
	r->l.program = task_program;
	r->l.arg = r;
	r->l.result = &r->res;
	r->l.result_size = sizeof(r->res);
	r->ret = tool_launch_task(&r->l);
	r->status = -1;
	if (!r->ret && r->l.ended)
		r->status = r->l.status;
	else if (!r->ret)
		while (waitpid(r->l.pid, &r->status, 0) < 0 && errno == EINTR)
			;
	r->end = tool_launch_end(&r->l);
}

static int self_cpus(void)
{
	cpu_set_t set;

	return sched_getaffinity(0, sizeof(set), &set) ? -1 : CPU_COUNT(&set);
}

TEST(task_launch_programs_in_the_child_before_its_exec)
{
	char *argv[] = { (char *)workload(), "1000", NULL };
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	struct task_run r;

	ASSERT_LT(0, n);
	self[n] = '\0';
	ASSERT_EQ(0, access(workload(), X_OK))
		TH_LOG("no workload at %s: build it (make build/vmbin/workload)", workload());
	launch_task(&r, argv, 0);
	ASSERT_EQ(0, r.ret) TH_LOG("tool_launch_task: %s: %s", r.l.failed, strerror(-r.ret));
	EXPECT_TRUE(r.l.started);
	EXPECT_FALSE(r.l.ended);
	EXPECT_EQ((int)TOOL_LAUNCH_EXACT, (int)r.l.how);
	/* program() ran in the child, before its exec, untraced, unpinned */
	EXPECT_EQ(r.l.pid, r.res.pid);
	EXPECT_NE(getpid(), r.res.pid);
	EXPECT_STREQ(self, r.res.exe);
	EXPECT_EQ(0, r.res.tracer);
	EXPECT_EQ(self_cpus(), r.res.nr_cpus);
	/* then the command ran to its own end */
	EXPECT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0) {
		TH_LOG("wait status %#x", r.status);
	}
	EXPECT_EQ(0, r.end);
}

TEST(task_program_refusal_reaches_the_parent_and_nothing_runs)
{
	char dir[] = "/tmp/pmuctl-launch-XXXXXX", file[PATH_MAX], cmd[PATH_MAX + 16];
	char *argv[] = { "sh", "-c", cmd, NULL };
	struct task_run r;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/ran", dir);
	snprintf(cmd, sizeof(cmd), "touch %s", file);
	launch_task(&r, argv, -EACCES);
	EXPECT_EQ(-EACCES, r.ret);
	ASSERT_NE(NULL, r.l.failed);
	EXPECT_STREQ("program", r.l.failed);
	EXPECT_FALSE(r.l.started);
	/* the child's result came back with the refusal */
	EXPECT_EQ((uint32_t)PMUCTL_R_UNPRIV_KERNEL_MODE, r.res.reason);
	EXPECT_NE(0, r.res.pid);
	/* the command never ran, and the child is reaped */
	EXPECT_NE(0, access(file, F_OK));
	EXPECT_EQ(-1, waitpid(r.res.pid, NULL, WNOHANG));
	EXPECT_EQ(ECHILD, errno);
	unlink(file);
	rmdir(dir);
}

TEST(task_exit_status_signals_and_exec_errors_are_the_commands)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	char *exit7[] = { "sh", "-c", "exit 7", NULL };
	char *intr[] = { "sh", "-c", "kill -INT $$; exit 0", NULL };
	char *missing[] = { "pmuctl-no-such-command", NULL };
	struct task_run r;

	launch_task(&r, exit7, 0);
	ASSERT_EQ(0, r.ret);
	EXPECT_TRUE(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 7) {
		TH_LOG("wait status %#x", r.status);
	}
	EXPECT_EQ(0, r.end);

	/* pmuctl ignores SIGINT while the command runs; the command must not */
	sigaction(SIGINT, &ign, &old);
	launch_task(&r, intr, 0);
	sigaction(SIGINT, &old, NULL);
	ASSERT_EQ(0, r.ret);
	EXPECT_TRUE(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGINT) {
		TH_LOG("wait status %#x", r.status);
	}

	launch_task(&r, missing, 0);
	ASSERT_EQ(0, r.ret);
	EXPECT_TRUE(r.l.started);
	EXPECT_EQ(-ENOENT, r.end);
	ASSERT_NE(NULL, r.l.failed);
	EXPECT_STREQ("exec", r.l.failed);
}

TEST_HARNESS_MAIN
