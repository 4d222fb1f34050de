// SPDX-License-Identifier: GPL-2.0
/*
 * How "pmuctl stat" starts the command it counts: pinned to the counted
 * CPU and, where it can, held at its exec so that counting starts at its
 * first instruction, as perf stat's enable_on_exec does.
 *
 * The exact launch:
 *   1. fork; the child restores the caller's signal mask and SIGINT and
 *      SIGQUIT dispositions, pins itself to the CPU and waits on a pipe;
 *   2. the parent attaches to it, PTRACE_SEIZE with PTRACE_O_TRACEEXEC
 *      (and PTRACE_O_EXITKILL: a pmuctl that dies here takes the held
 *      command with it), and lets it go on;
 *   3. the child execs; the kernel stops it at the end of the exec
 *      (PTRACE_EVENT_EXEC), in the kernel, before the new program's first
 *      instruction;
 *   4. the parent calls start() (RESET, READ the baseline, START) and
 *      detaches (PTRACE_DETACH, no signal): the command runs untraced from
 *      its first instruction on.
 * None of the child's own instructions before its exec (the return from
 * the pipe read, execvp's PATH search) are counted.  With PTRACE_SEIZE the
 * exec stop is an event, not the legacy SIGTRAP, so nothing is left
 * pending for the command and a blocked SIGTRAP cannot hide the stop.
 *
 * The plain launch (the only one before): start() first, then
 * the child execs.  The count then includes the child's last instructions
 * before its exec, on the counted CPU: 62 user-mode instructions in the
 * emulated-PMU guest for a command given by its path, more when execvp()
 * tries several directories of $PATH first.  It is used
 *   - where the attach is refused: pmuctl itself traced with its children
 *     (strace -f), kernel.yama.ptrace_scope 2 without CAP_SYS_PTRACE
 *     or 3, a seccomp filter or an LSM that denies ptrace, or a pmuctl
 *     given file capabilities without CAP_SYS_PTRACE (its exec made it
 *     not dumpable, and its child inherits that): tool_launch() says so
 *     in l->trace_err, and the caller tells the user once;
 *   - for set-user-ID, set-group-ID and file-capability executables
 *     (tool_launch_privileged()): an exec under ptrace gives them no
 *     privileges unless the tracer has CAP_SYS_PTRACE, so holding them
 *     would change what they do;
 *   - for one run, when a stop signal (^Z) reaches the child before its
 *     exec: the child is detached with that signal, to stop exactly as it
 *     would have untraced, and start() is called then.  Other signals
 *     that come before the exec are passed on (PTRACE_CONT with the
 *     signal): the child dies of them as it would have, or goes on.
 * Either way the command's signals and exit status are its own: it is
 * pmuctl's child, detached before it runs, and waited for by the caller.
 *
 * The task launch (tool_launch_task(), "pmuctl stat" without -C): no
 * pinning, no ptrace, no start().  The child restores the signals, calls
 * program() (PROGRAM of the session it shares with pmuctl, task scope
 * with INHERIT and ENABLE_ON_EXEC), writes its outcome and the caller's
 * result bytes on the error pipe, and execs unless it was refused.  The
 * kernel starts counting at that exec: the command is counted from its
 * first instruction, and nothing of pmuctl's is.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "tool.h"

/* What the child reports on the error pipe when it cannot exec. */
struct launch_err {
	int step;		/* LAUNCH_STEP_* */
	int err;		/* errno */
};

enum { LAUNCH_STEP_AFFINITY = 1, LAUNCH_STEP_EXEC, LAUNCH_STEP_PROGRAM };

/* The child: the caller's signals, the CPU, the go-ahead, the command. */
static void __attribute__((noreturn))
launch_child(const struct tool_launch *l, int go, int errfd)
{
	struct launch_err e = { 0, 0 };
	char c;

	sigaction(SIGINT, l->sigint, NULL);
	sigaction(SIGQUIT, l->sigquit, NULL);
	sigprocmask(SIG_SETMASK, l->mask, NULL);
	if (sched_setaffinity(0, l->setsize, l->cpuset)) {
		e = (struct launch_err){ LAUNCH_STEP_AFFINITY, errno };
	} else {
		/* EOF: the parent gave up on us; run nothing. */
		if (read(go, &c, 1) != 1)
			_exit(127);
		execvp(l->argv[0], l->argv);
		e = (struct launch_err){ LAUNCH_STEP_EXEC, errno };
	}
	/* The parent says why; the child only hands it the errno. */
	if (write(errfd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

/* Reap the child after a failure of ours: SIGKILL, wait. */
static void launch_kill(struct tool_launch *l)
{
	kill(l->pid, SIGKILL);
	while (waitpid(l->pid, NULL, 0) < 0 && errno == EINTR)
		;
	l->pid = -1;
}

static int launch_start(struct tool_launch *l)
{
	int ret = l->start(l->arg);

	if (ret) {
		l->failed = "start";
		return ret;
	}
	l->started = true;
	return 0;
}

/* Let the child exec: one byte on the go pipe. */
static int launch_go(int go)
{
	ssize_t n;

	do {
		n = write(go, "g", 1);
	} while (n < 0 && errno == EINTR);
	/* EPIPE: the child is gone already; waiting for it tells how. */
	return n == 1 || errno == EPIPE ? 0 : -errno;
}

/*
 * Wait for the held child's exec stop, then start counting and detach.
 * Return: 0 (running, or ended before its exec: l->ended), or -errno.
 */
static int launch_held(struct tool_launch *l)
{
	int st, sig, ret;

	for (;;) {
		if (waitpid(l->pid, &st, 0) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (!WIFSTOPPED(st)) {
			/* Gone before its exec: an exec error, or SIGKILL. */
			l->ended = true;
			l->status = st;
			return 0;
		}
		if (st >> 8 == (SIGTRAP | PTRACE_EVENT_EXEC << 8)) {
			ret = launch_start(l);
			if (ret)
				return ret;
			/* ESRCH: killed meanwhile (SIGKILL); the wait reports it. */
			ptrace(PTRACE_DETACH, l->pid, NULL, NULL);
			l->how = TOOL_LAUNCH_EXACT;
			return 0;
		}
		/*
		 * A signal before the exec (the only other stop: no other event
		 * is asked for, and no group stop comes without a stop signal
		 * delivered first).  Any but a stop signal goes on to the child
		 * as it would untraced (it dies of it, or ignores it and execs).
		 * A stop signal (^Z) must stop it untraced: detach with it, and
		 * count from here, as the plain launch does.
		 */
		sig = st >> 16 ? 0 : WSTOPSIG(st);
		if (sig && sig != SIGSTOP && sig != SIGTSTP && sig != SIGTTIN &&
		    sig != SIGTTOU) {
			if (ptrace(PTRACE_CONT, l->pid, NULL, (void *)(long)sig) &&
			    errno != ESRCH)
				return -errno;
			continue;
		}
		ret = launch_start(l);
		if (ret)
			return ret;
		ptrace(PTRACE_DETACH, l->pid, NULL, (void *)(long)sig);
		l->how = TOOL_LAUNCH_PLAIN;
		return 0;
	}
}

int tool_launch(struct tool_launch *l)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_pipe;
	int go[2], errp[2], ret = 0;

	l->pid = -1;
	l->how = TOOL_LAUNCH_PLAIN;
	l->started = l->ended = false;
	l->status = 0;
	l->trace_err = 0;
	l->failed = NULL;
	l->errfd = -1;
	if (pipe2(go, O_CLOEXEC))
		goto fail_pipe;
	if (pipe2(errp, O_CLOEXEC)) {
		ret = -errno;
		close(go[0]);
		close(go[1]);
		l->failed = "pipe";
		return ret;
	}
	l->pid = fork();
	if (l->pid == 0) {
		close(go[1]);
		close(errp[0]);
		launch_child(l, go[0], errp[1]);
	}
	close(go[0]);
	close(errp[1]);
	if (l->pid < 0) {
		ret = -errno;
		l->failed = "fork";
		close(go[1]);
		close(errp[0]);
		return ret;
	}
	l->errfd = errp[0];
	/* The go byte to a child that died meanwhile must not kill pmuctl. */
	sigaction(SIGPIPE, &ign, &old_pipe);

	if (!l->plain &&
	    ptrace(PTRACE_SEIZE, l->pid, NULL,
		   (void *)(long)(PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL)) == 0) {
		ret = launch_go(go[1]);
		close(go[1]);
		if (!ret)
			ret = launch_held(l);
		if (ret && !l->failed)
			l->failed = "ptrace";
	} else {
		int err = l->plain ? 0 : errno;

		/* A child that died already cannot be attached to either. */
		if (err && waitpid(l->pid, &l->status, WNOHANG) == l->pid) {
			l->ended = true;
			close(go[1]);
		} else {
			l->trace_err = err;
			ret = launch_start(l);
			if (!ret) {
				ret = launch_go(go[1]);
				if (ret)
					l->failed = "the go-ahead pipe";
			}
			close(go[1]);
		}
	}
	sigaction(SIGPIPE, &old_pipe, NULL);
	if (ret && l->pid > 0)
		launch_kill(l);
	return ret;

fail_pipe:
	l->failed = "pipe";
	return -errno;
}

/* write(2) all of @buf: 0 or -errno. */
static int write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* read(2) all of @buf: 0, -EPIPE at an early end, or -errno. */
static int read_full(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPIPE;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * The task-mode child: the caller's signals, PROGRAM, its result to the
 * parent, the command.  The session's descriptor is close-on-exec: the
 * command does not inherit it, and the parent's keeps the session.
 */
static void __attribute__((noreturn))
launch_child_task(const struct tool_launch *l, int errfd)
{
	struct launch_err e = { LAUNCH_STEP_PROGRAM, 0 };

	sigaction(SIGINT, l->sigint, NULL);
	sigaction(SIGQUIT, l->sigquit, NULL);
	sigprocmask(SIG_SETMASK, l->mask, NULL);
	e.err = -l->program(l->arg);
	if (write_full(errfd, &e, sizeof(e)) ||
	    write_full(errfd, l->result, l->result_size) || e.err)
		_exit(127);
	execvp(l->argv[0], l->argv);
	e = (struct launch_err){ LAUNCH_STEP_EXEC, errno };
	if (write(errfd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

int tool_launch_task(struct tool_launch *l)
{
	struct launch_err e;
	int errp[2], ret;

	l->pid = -1;
	l->how = TOOL_LAUNCH_EXACT;
	l->started = l->ended = false;
	l->status = 0;
	l->trace_err = 0;
	l->failed = NULL;
	l->errfd = -1;
	if (pipe2(errp, O_CLOEXEC)) {
		l->failed = "pipe";
		return -errno;
	}
	l->pid = fork();
	if (l->pid == 0) {
		close(errp[0]);
		launch_child_task(l, errp[1]);
	}
	close(errp[1]);
	if (l->pid < 0) {
		ret = -errno;
		l->failed = "fork";
		close(errp[0]);
		return ret;
	}
	ret = read_full(errp[0], &e, sizeof(e));
	if (!ret)
		ret = read_full(errp[0], l->result, l->result_size);
	if (ret == -EPIPE) {
		/* Gone before it said (SIGKILL): it ran nothing. */
		close(errp[0]);
		while (waitpid(l->pid, &l->status, 0) < 0 && errno == EINTR)
			;
		l->ended = true;
		return 0;
	}
	if (!ret && e.err) {
		ret = -e.err;
		l->failed = "program";
	} else if (ret) {
		l->failed = "the child's pipe";
	}
	if (ret) {
		close(errp[0]);
		launch_kill(l);
		return ret;
	}
	l->errfd = errp[0];
	l->started = true;
	return 0;
}

int tool_launch_end(struct tool_launch *l)
{
	struct launch_err e;
	ssize_t n;
	int ret = 0;

	if (l->errfd < 0)
		return 0;
	do {
		n = read(l->errfd, &e, sizeof(e));
	} while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(e)) {
		l->failed = e.step == LAUNCH_STEP_AFFINITY ? "sched_setaffinity" : "exec";
		ret = -e.err;
	}
	close(l->errfd);
	l->errfd = -1;
	return ret;
}

/*
 * The file execvp() would run for @cmd, into @path: @cmd itself when it
 * holds a '/', else the first executable regular file named @cmd in a
 * directory of $PATH (glibc's default "/bin:/usr/bin" when unset; an
 * empty entry is the current directory).  Return: 0 or -ENOENT.
 */
static int launch_resolve(const char *cmd, char *path, size_t len)
{
	const char *dirs = getenv("PATH");
	struct stat st;

	if (strchr(cmd, '/')) {
		if ((size_t)snprintf(path, len, "%s", cmd) >= len)
			return -ENAMETOOLONG;
		return 0;
	}
	if (!dirs)
		dirs = "/bin:/usr/bin";
	while (*cmd) {
		const char *end = strchrnul(dirs, ':');
		int n = (int)(end - dirs);

		if ((size_t)snprintf(path, len, "%.*s%s%s", n, dirs, n ? "/" : "",
				     cmd) < len &&
		    !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK))
			return 0;
		if (!*end)
			break;
		dirs = end + 1;
	}
	return -ENOENT;
}

int tool_launch_privileged(const char *cmd, char *path, size_t len)
{
	struct stat st;

	if (launch_resolve(cmd, path, len) || stat(path, &st))
		return 0;
	if (st.st_mode & S_ISUID)
		return TOOL_LAUNCH_SETUID;
	/* Set-group-ID without group execute is a locking mark, not set-ID. */
	if ((st.st_mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP))
		return TOOL_LAUNCH_SETGID;
	if (getxattr(path, "security.capability", NULL, 0) >= 0)
		return TOOL_LAUNCH_FCAPS;
	return 0;
}
