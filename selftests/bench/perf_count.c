// SPDX-License-Identifier: GPL-2.0
/*
 * perf-count: what perf counts for a command, for "make run" and the
 * guest tests to print next to "pmuctl stat".  Static, for the QEMU guests
 * (which have no perf tool and no libc).
 *
 * usage: perf-count [-k] -- COMMAND [ARGS]...
 *   Forks; the child waits on a pipe while the parent opens one event on
 *   it, PERF_COUNT_HW_INSTRUCTIONS with exclude_kernel (user mode; -k:
 *   kernel mode instead), exclude_hv, disabled, enable_on_exec and
 *   inherit, as "perf stat -e instructions:u" does; then the child execs
 *   COMMAND.  The event starts counting at that exec, so the count is
 *   COMMAND's (and its children's) from its first instruction to its end.
 *   Prints the count, a plain integer, on stdout.  Exit 0; 1 when the
 *   event cannot be opened or COMMAND cannot run or does not exit 0 (the
 *   count is printed all the same when there is one).
 * usage: perf-count -C CPU -- COMMAND [ARGS]...
 *   Opens a CPU-wide event on CPU (PERF_COUNT_HW_INSTRUCTIONS, user mode,
 *   pinned and disabled: it exists on CPU's core PMU and never counts, as
 *   "perf stat -a --delay" leaves its events before it enables them), runs
 *   COMMAND while the event is held, then closes it.  Exit status:
 *   COMMAND's; 1 when the event cannot be opened.
 * usage: perf-count --emulated
 *   Exit 0 iff this CPU is QEMU TCG with the emulated PMU (scripts/vm/qemu/pmu-spec.md:
 *   CPUID 0x40000000 EBX,ECX,EDX = "TCGTCGTCGTCG" and CPUID.0AH:EAX[7:0]
 *   >= 2), where user-mode instruction counts are exact; 1 otherwise.
 *   Prints which on stdout.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../hw/emulated.h"

static int usage(void)
{
	fprintf(stderr, "usage: perf-count [-k] -- COMMAND [ARGS]...\n"
		"       perf-count -C CPU -- COMMAND [ARGS]...\n"
		"       perf-count --emulated\n");
	return 2;
}

/* In the child: run @argv, or say why not. */
static void __attribute__((noreturn)) run_command(char **argv)
{
	execvp(argv[0], argv);
	fprintf(stderr, "perf-count: cannot run '%s': %s\n", argv[0],
		strerror(errno));
	_exit(127);
}

/* Instructions in user mode (@kernel: kernel mode), created disabled. */
static void instructions_attr(struct perf_event_attr *attr, bool kernel)
{
	memset(attr, 0, sizeof(*attr));
	attr->type = PERF_TYPE_HARDWARE;
	attr->size = sizeof(*attr);
	attr->config = PERF_COUNT_HW_INSTRUCTIONS;
	attr->disabled = 1;
	attr->exclude_kernel = !kernel;
	attr->exclude_user = kernel;
	attr->exclude_hv = 1;
}

/* -C CPU: hold a disabled pinned CPU-wide event while @argv runs. */
static int hold_cpu_event(int cpu, char **argv)
{
	struct perf_event_attr attr;
	int st = 0;
	pid_t pid;
	long fd;

	instructions_attr(&attr, false);
	attr.pinned = 1;
	fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "perf-count: perf_event_open(instructions, cpu %d): %s\n",
			cpu, strerror(errno));
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("perf-count: fork");
		return 1;
	}
	if (pid == 0)
		run_command(argv);
	if (waitpid(pid, &st, 0) != pid) {
		perror("perf-count: waitpid");
		return 1;
	}
	close((int)fd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

int main(int argc, char **argv)
{
	struct perf_event_attr attr;
	int go[2], i = 1, st = 0;
	bool kernel = false;
	uint64_t count;
	long fd;
	pid_t pid;
	char c = 0;

	if (argc == 2 && !strcmp(argv[1], "--emulated")) {
		bool e = hw_cpu_is_emulated();

		printf("%s\n", e ? "emulated PMU (QEMU TCG)" : "not QEMU TCG's emulated PMU");
		return e ? 0 : 1;
	}
	if (argc >= 5 && !strcmp(argv[1], "-C") && !strcmp(argv[3], "--")) {
		char *end;
		long cpu = strtol(argv[2], &end, 10);

		if (*end || end == argv[2] || cpu < 0)
			return usage();
		return hold_cpu_event((int)cpu, argv + 4);
	}
	if (i < argc && !strcmp(argv[i], "-k")) {
		kernel = true;
		i++;
	}
	if (i < argc && !strcmp(argv[i], "--"))
		i++;
	if (i >= argc)
		return usage();

	if (pipe2(go, O_CLOEXEC)) {
		perror("perf-count: pipe");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("perf-count: fork");
		return 1;
	}
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);	/* the parent gave up */
		run_command(argv + i);
	}
	close(go[0]);

	instructions_attr(&attr, kernel);
	attr.enable_on_exec = 1;
	attr.inherit = 1;
	fd = syscall(SYS_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "perf-count: perf_event_open(instructions): %s\n",
			strerror(errno));
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return 1;
	}
	if (write(go[1], "g", 1) != 1) {
		perror("perf-count: write");
		return 1;
	}
	close(go[1]);
	if (waitpid(pid, &st, 0) != pid) {
		perror("perf-count: waitpid");
		return 1;
	}
	if (read((int)fd, &count, sizeof(count)) != (ssize_t)sizeof(count)) {
		perror("perf-count: read");
		return 1;
	}
	printf("%llu\n", (unsigned long long)count);
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "perf-count: '%s' ended with wait status %#x\n",
			argv[i], st);
		return 1;
	}
	return 0;
}
