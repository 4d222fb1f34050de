/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Known-count code of the task-scope tests (task_test.c), of the perfmon
 * v6 tests (perf_v6_test.c: task_pingpong) and of the
 * context-switch benchmark (selftests/bench/taskswitch.c): everything a
 * counted thread runs in user mode between the system call that starts
 * its counters and the one that stops them (or its exit) is here, with
 * raw system calls, so its user-mode instruction count is exact.  The
 * layouts of the structs are in task.h (offsets checked there); the counts
 * below are derived instruction by instruction and turned into formulas in
 * task.h.  The emulated PMU counts a "syscall" instruction as a user
 * instruction (it retires at CPL 3, selftests/bench/workload.S), and
 * nothing the kernel runs (sysret included) in user mode.  A loop
 *	mov N, %rcx; test %rcx, %rcx; jz 2f; 1: dec %rcx; jnz 1b; 2:
 * retires 3 + 2N instructions for any N >= 0.
 */
#define SYS_read	0
#define SYS_write	1
#define SYS_ioctl	16
#define SYS_clone	56
#define SYS_fork	57
#define SYS_execve	59
#define SYS_exit	60
#define SYS_exit_group	231

/* CLONE_VM|FS|FILES|SIGHAND|THREAD|SYSVSEM|PARENT_SETTID|CHILD_CLEARTID */
#define THREAD_FLAGS	0x350f00

	.text

/*
 * void task_rounds(struct task_rounds *t)
 *
 * ioctl(fd, start_req, ctl) (not counted: the counters start inside it),
 * then "rounds" times: read(in_fd, buf, 1); [rdpmc A]; [rdtscp]; the loop
 * of n; [rdtscp]; [rdpmc B]; write(out_fd, buf, 1); then ioctl(fd,
 * stop_req, ctl) (its syscall instruction counted).  [..]: flags
 * TR_RDPMC (1), TR_RDTSCP (2).  A failing read or write ends the rounds
 * (err), the stop ioctl still runs.  Counted user instructions: task.h,
 * TR_TOTAL(); B - A: TR_DELTA().
 */
	.globl	task_rounds
	.type	task_rounds, @function
	.p2align 4
task_rounds:
	push	%rbx
	push	%r12
	push	%r13
	push	%r14
	push	%r15
	mov	%rdi, %r12
	mov	56(%r12), %r13		/* rounds */
	mov	72(%r12), %r14		/* records */
	movq	$0, 96(%r12)
	movq	$0, 104(%r12)
	mov	0(%r12), %rdi
	mov	8(%r12), %rsi
	mov	24(%r12), %rdx
	mov	$SYS_ioctl, %eax
	syscall				/* start: counting begins after it */
	mov	%rax, 80(%r12)		/* 1 */
.Lround:				/* per round: 29 + 2n (+10 rdpmc, +4 rdtscp) */
	mov	32(%r12), %rdi		/* read(in_fd, buf, 1): 7 */
	lea	112(%r12), %rsi
	mov	$1, %edx
	xor	%eax, %eax
	syscall
	cmp	$1, %rax
	jne	.Lfail
	testl	$1, 68(%r12)		/* 2 (+5) */
	jz	1f
	mov	64(%r12), %ecx
	rdpmc				/* A */
	shl	$32, %rdx
	or	%rdx, %rax
	mov	%rax, 0(%r14)
1:	testl	$2, 68(%r12)		/* 2 (+2) */
	jz	2f
	rdtscp
	mov	%rcx, 16(%r14)
2:	mov	48(%r12), %rcx		/* 3 + 2n */
	test	%rcx, %rcx
	jz	4f
3:	dec	%rcx
	jnz	3b
4:	testl	$2, 68(%r12)		/* 2 (+2) */
	jz	5f
	rdtscp
	mov	%rcx, 24(%r14)
5:	testl	$1, 68(%r12)		/* 2 (+5) */
	jz	6f
	mov	64(%r12), %ecx
	rdpmc				/* B */
	shl	$32, %rdx
	or	%rdx, %rax
	mov	%rax, 8(%r14)
6:	add	$32, %r14		/* 1 */
	mov	40(%r12), %rdi		/* write(out_fd, buf, 1): 7 */
	lea	112(%r12), %rsi
	mov	$1, %edx
	mov	$SYS_write, %eax
	syscall
	cmp	$1, %rax
	jne	.Lfail
	incq	104(%r12)		/* 3 */
	dec	%r13
	jnz	.Lround
	jmp	.Lstop			/* 1 */
.Lfail:
	mov	%rax, 96(%r12)
.Lstop:
	mov	0(%r12), %rdi		/* 5 */
	mov	16(%r12), %rsi
	mov	24(%r12), %rdx
	mov	$SYS_ioctl, %eax
	syscall				/* stop: counted */
	mov	%rax, 88(%r12)
	pop	%r15
	pop	%r14
	pop	%r13
	pop	%r12
	pop	%rbx
	ret
	.size	task_rounds, . - task_rounds

/*
 * pid_t task_spawn(struct task_inh *a, void *stack_top, uint32_t *tid)
 *
 * A raw thread (THREAD_FLAGS, no TLS of its own: it never touches libc)
 * that runs task_inherit(a) and ends with exit(0); *tid is set by the
 * kernel and cleared (futex wake) when it ends.  Returns the thread's id
 * or -errno.
 */
	.globl	task_spawn
	.type	task_spawn, @function
	.p2align 4
task_spawn:
	push	%r12
	mov	%rdi, %r12
	mov	$THREAD_FLAGS, %edi
	/* %rsi: the stack */
	mov	%rdx, %r10		/* ctid */
	/* %rdx: ptid, the same word */
	xor	%r8d, %r8d
	mov	$SYS_clone, %eax
	syscall
	test	%rax, %rax
	jz	.Lspawned
	pop	%r12
	ret
.Lspawned:
	mov	%r12, %rdi
	jmp	task_inherit
	.size	task_spawn, . - task_spawn

/*
 * task_inherit(struct task_inh *a): the body of the spawned thread T.
 * ioctl(fd, program_req, prog) and ioctl(fd, start_req, ctl) (neither
 * counted), then T creates nthreads raw threads and forks one process,
 * each a "kid" (struct task_kid), runs its own loop of n and exits; its
 * user instructions: TI_T_COUNT(nthreads, n).  Each kid, from its first
 * instruction after clone/fork returns: its loop of n1, write(ready_fd,
 * buf, 1), read(gate_fd, buf, 1), its loop of n2, then execve(path, argv,
 * envp) if path is set, and exit_nr(0): TI_KID_COUNT(n1, n2, exec), plus
 * the exec'd image's own count.  Any failing system call leaves the count
 * the same (an fd of -1 is EBADF at once: no ready byte, no wait).
 */
	.globl	task_inherit
	.type	task_inherit, @function
	.p2align 4
task_inherit:
	mov	%rdi, %r12
	mov	0(%r12), %rdi
	mov	24(%r12), %rsi
	mov	32(%r12), %rdx
	mov	$SYS_ioctl, %eax
	syscall				/* program */
	mov	%rax, 72(%r12)
	mov	0(%r12), %rdi
	mov	8(%r12), %rsi
	mov	16(%r12), %rdx
	mov	$SYS_ioctl, %eax
	syscall				/* start: counting begins after it */
	mov	%rax, 56(%r12)		/* 5 */
	mov	40(%r12), %r13		/* nthreads */
	mov	48(%r12), %r15		/* kids */
	test	%r13, %r13
	jz	.Lfork
.Lclone:				/* 12 per thread */
	mov	$THREAD_FLAGS, %edi
	mov	0(%r15), %rsi		/* its stack */
	lea	72(%r15), %rdx		/* ptid */
	lea	72(%r15), %r10		/* ctid */
	xor	%r8d, %r8d
	mov	$SYS_clone, %eax
	syscall
	test	%rax, %rax		/* a kid's first instruction */
	jz	.Lkid
	add	$88, %r15
	dec	%r13
	jnz	.Lclone
.Lfork:					/* 6 */
	mov	80(%r12), %r15		/* the forked kid */
	mov	$SYS_fork, %eax
	syscall
	test	%rax, %rax		/* the forked kid's first instruction */
	jz	.Lkid
	mov	%rax, 64(%r12)
	mov	88(%r12), %rcx		/* 3 + 2n */
	test	%rcx, %rcx
	jz	2f
1:	dec	%rcx
	jnz	1b
2:	xor	%edi, %edi		/* 3 */
	mov	$SYS_exit, %eax
	syscall
	ud2
.Lkid:					/* after test, jz: */
	mov	8(%r15), %rcx		/* 3 + 2 n1 */
	test	%rcx, %rcx
	jz	2f
1:	dec	%rcx
	jnz	1b
2:	mov	16(%r15), %rdi		/* write(ready_fd, buf, 1): 5 */
	lea	80(%r15), %rsi
	mov	$1, %edx
	mov	$SYS_write, %eax
	syscall
	mov	24(%r15), %rdi		/* read(gate_fd, buf, 1): 5 */
	lea	80(%r15), %rsi
	mov	$1, %edx
	xor	%eax, %eax
	syscall
	mov	32(%r15), %rcx		/* 3 + 2 n2 */
	test	%rcx, %rcx
	jz	4f
3:	dec	%rcx
	jnz	3b
4:	mov	40(%r15), %rdi		/* 3 */
	test	%rdi, %rdi
	jz	5f
	mov	48(%r15), %rsi		/* 4 */
	mov	56(%r15), %rdx
	mov	$SYS_execve, %eax
	syscall
5:	mov	64(%r15), %rax		/* 3 */
	xor	%edi, %edi
	syscall
	ud2
	.size	task_inherit, . - task_inherit

/*
 * task_pingpong(long in_fd, long out_fd, long rounds, long n): never
 * returns.  "rounds" (>= 1) times: read(in_fd, buf, 1); the loop of n;
 * write(out_fd, buf, 1); then exit_group(0).  A failing read or write
 * ends it at once (exit_group).  For the CPU-scope tests, whose counters
 * count every user instruction on the CPU: a process blocked in its first
 * read has nothing left to run but this, so from that read's return to
 * the exit_group's syscall it retires TP_TOTAL(rounds, n) user
 * instructions (task.h), whatever ran in between.
 */
	.globl	task_pingpong
	.type	task_pingpong, @function
	.p2align 4
task_pingpong:
	mov	%rdi, %r12		/* in_fd */
	mov	%rsi, %r13		/* out_fd */
	mov	%rdx, %r14		/* rounds */
	mov	%rcx, %r15		/* n */
	sub	$8, %rsp		/* buf */
.Lpp_round:				/* per round: 19 + 2n, less 5 for the first read */
	mov	%r12, %rdi		/* read(in_fd, buf, 1): 5 */
	mov	%rsp, %rsi
	mov	$1, %edx
	xor	%eax, %eax
	syscall				/* the first: where the process waits */
	cmp	$1, %rax		/* 2 */
	jne	.Lpp_exit
	mov	%r15, %rcx		/* 3 + 2n */
	test	%rcx, %rcx
	jz	2f
1:	dec	%rcx
	jnz	1b
2:	mov	%r13, %rdi		/* write(out_fd, buf, 1): 5 */
	mov	%rsp, %rsi
	mov	$1, %edx
	mov	$SYS_write, %eax
	syscall
	cmp	$1, %rax		/* 2 */
	jne	.Lpp_exit
	dec	%r14			/* 2 */
	jnz	.Lpp_round
.Lpp_exit:
	mov	$SYS_exit_group, %eax	/* 3 */
	xor	%edi, %edi
	syscall
	ud2
	.size	task_pingpong, . - task_pingpong

	.section .note.GNU-stack, "", @progbits
