/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The known-count code of task_asm.S, for the task-scope tests
 * (task_test.c) and the context-switch benchmark
 * (selftests/bench/taskswitch.c): the structs it reads and writes and the
 * exact number of user-mode instructions each piece retires (derived in
 * task_asm.S).
 */
#ifndef PMUCTL_SELFTESTS_PMU_TASK_H
#define PMUCTL_SELFTESTS_PMU_TASK_H

#include <stddef.h>
#include <stdint.h>

#define TR_RDPMC	1U	/* rdpmc A and B around each loop */
#define TR_RDTSCP	2U	/* rdtscp (IA32_TSC_AUX: the CPU) around each loop */

/* What rdpmc and rdtscp saw around one round's loop. */
struct tr_rec {
	uint64_t a, b;			/* rdpmc A, B (TR_RDPMC) */
	uint64_t cpu_a, cpu_b;		/* TSC_AUX before, after (TR_RDTSCP) */
};

struct task_rounds {
	uint64_t fd;			/*   0: session (or perf event) fd */
	uint64_t start_req;		/*   8: ioctl that starts counting */
	uint64_t stop_req;		/*  16: ioctl that stops it */
	uint64_t ctl;			/*  24: their argument */
	uint64_t in_fd;			/*  32: read 1 byte before each round */
	uint64_t out_fd;		/*  40: write 1 byte after it */
	uint64_t n;			/*  48: loop iterations per round */
	uint64_t rounds;		/*  56: >= 1 */
	uint32_t ecx;			/*  64: rdpmc index */
	uint32_t flags;			/*  68: TR_* */
	uint64_t rec;			/*  72: struct tr_rec[rounds] */
	int64_t start_ret;		/*  80: out */
	int64_t stop_ret;		/*  88: out */
	int64_t err;			/*  96: out: a failed read/write, or 0 */
	uint64_t done;			/* 104: out: rounds completed */
	char buf[8];			/* 112 */
};
_Static_assert(offsetof(struct task_rounds, ecx) == 64, "task_asm.S");
_Static_assert(offsetof(struct task_rounds, rec) == 72, "task_asm.S");
_Static_assert(offsetof(struct task_rounds, buf) == 112, "task_asm.S");

void task_rounds(struct task_rounds *t);

/* One round's user instructions, read to write included. */
#define TR_ROUND(n, flags)	(29 + 2 * (uint64_t)(n) +		\
				 ((flags) & TR_RDPMC ? 10 : 0) +	\
				 ((flags) & TR_RDTSCP ? 4 : 0))
/* From the start ioctl's return to the stop ioctl's syscall, included. */
#define TR_TOTAL(rounds, n, flags) (7 + (uint64_t)(rounds) * TR_ROUND(n, flags))
/* rdpmc B - A of a counter counting this thread's user mode. */
#define TR_DELTA(n, flags)	(14 + 2 * (uint64_t)(n) + ((flags) & TR_RDTSCP ? 4 : 0))

struct task_kid {
	uint64_t stack;			/*  0: its stack's top (threads) */
	uint64_t n1;			/*  8: first loop */
	int64_t ready_fd;		/* 16: write 1 byte after it (-1: EBADF) */
	int64_t gate_fd;		/* 24: then read 1 byte (-1: EBADF) */
	uint64_t n2;			/* 32: second loop */
	uint64_t path;			/* 40: execve(path, argv, envp), or 0 */
	uint64_t argv;			/* 48 */
	uint64_t envp;			/* 56 */
	uint64_t exit_nr;		/* 64: SYS_exit or SYS_exit_group */
	uint32_t tid;			/* 72: set at clone, cleared at exit */
	uint32_t pad;
	char buf[8];			/* 80 */
};
_Static_assert(sizeof(struct task_kid) == 88, "task_asm.S");
_Static_assert(offsetof(struct task_kid, tid) == 72, "task_asm.S");

struct task_inh {
	uint64_t fd;			/*  0: the session */
	uint64_t start_req;		/*  8 */
	uint64_t ctl;			/* 16 */
	uint64_t program_req;		/* 24 */
	uint64_t prog;			/* 32: struct pmuctl_program * */
	uint64_t nthreads;		/* 40 */
	uint64_t kids;			/* 48: struct task_kid[nthreads] */
	int64_t start_ret;		/* 56: out */
	int64_t fork_ret;		/* 64: out */
	int64_t program_ret;		/* 72: out */
	uint64_t forked;		/* 80: struct task_kid * of the fork */
	uint64_t n;			/* 88: T's own loop */
};
_Static_assert(offsetof(struct task_inh, n) == 88, "task_asm.S");

/* A raw thread T running the inheritance scenario; returns its tid or -errno. */
long task_spawn(struct task_inh *a, void *stack_top, uint32_t *tid);

/* T's user instructions from the start ioctl's return to its exit. */
#define TI_T_COUNT(nthreads, n)	(17 + 12 * (uint64_t)(nthreads) + 2 * (uint64_t)(n))
/* A kid's, from its first instruction to its exit or execve (included). */
#define TI_KID_COUNT(n1, n2, exec) (24 + 2 * (uint64_t)(n1) + 2 * (uint64_t)(n2) + \
				    ((exec) ? 1 : 0))
/* A kid's up to its read(gate) included: where it waits. */
#define TI_KID_AT_GATE(n1)	(15 + 2 * (uint64_t)(n1))
/* ... up to its write(ready) included. */
#define TI_KID_AT_READY(n1)	(10 + 2 * (uint64_t)(n1))

/* Reads in_fd, loops, writes out_fd, rounds times, then exit_group(0). */
void task_pingpong(long in_fd, long out_fd, long rounds, long n)
	__attribute__((noreturn));

/* From the first read's return to the exit_group's syscall, included. */
#define TP_TOTAL(rounds, n)	((uint64_t)(rounds) * (19 + 2 * (uint64_t)(n)) - 2)

/*
 * selftests/bench/workload.S run as "workload N": 2N + 8D + 23 user
 * instructions from exec to exit, D the digits of N.
 */
static inline uint64_t task_workload_count(uint64_t n)
{
	uint64_t d = 0, m = n;

	do {
		d++;
		m /= 10;
	} while (m);
	return 2 * n + 8 * d + 23;
}

#endif /* PMUCTL_SELFTESTS_PMU_TASK_H */
