/* SPDX-License-Identifier: GPL-2.0 */
/*
 * workload-threads N: four threads of known size, for "pmuctl stat" (task
 * scope, inherited by threads created after exec) and perf to count.
 * Static, no libc, as selftests/bench/workload.S: the main thread parses
 * N as workload does, creates three threads with clone(2) (CLONE_VM,
 * CLONE_THREAD and friends; each gets its own stack, none is pinned), and
 * then every one of the four runs the loop of N iterations and ends with
 * exit(2) (its thread only).  The process ends when the last one does,
 * so its waiter sees it once all four have exited.  User-mode
 * instructions retired from exec to the last exit:
 *
 *	main thread	2N + 8D + 67
 *	each clone	2N + 8
 *	in all		8N + 8D + 91
 *
 * where D is the number of characters of the argument (its digits).
 * Derivation (the counts in the comments; N = 0 alike):
 *	main: _start .. xor	7    (as workload.S)
 *	      .Ldigit		8 x D, and 4 at the NUL
 *	      .Lend .. ja	6    (cmpb jne mov sub cmp ja)
 *	      mov mov		2    (N into r12, 3 into r13)
 *	      .Lspawn		14 x 3 (mov mov mov shl add xor xor xor
 *				     syscall test jz js dec jnz)
 *	      .Lwork		3    (mov test jz)
 *	      .Lloop		2 x N (dec jnz)
 *	      .Lexit		3    (mov xor syscall)
 *	      7 + 8D + 4 + 6 + 2 + 42 + 3 + 2N + 3 = 2N + 8D + 67;
 *	clone: it starts after the clone syscall (which retired in the main
 *	      thread) with RAX 0: test jz (2), .Lwork (3), .Lloop (2N),
 *	      .Lexit (3) = 2N + 8.
 * A bad argument exits the process with status 2 (exit_group) before
 * any clone; a failed clone with status 3.  perf's own count of the
 * command (perf-count, inherit) checks the formula in the emulated-PMU
 * guests (selftests/tool/stat_task_test.sh).
 */
#define SYS_clone	56	/* arch/x86/entry/syscalls/syscall_64.tbl */
#define SYS_exit	60
#define SYS_exit_group	231
/* CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
 * CLONE_SYSVSEM (include/uapi/linux/sched.h) */
#define THREAD_FLAGS	0x50f00
#define STACK_SIZE	4096

	.text
	.globl	_start
	.type	_start, @function
_start:
	mov	(%rsp), %rcx		/* argc */
	cmp	$2, %rcx
	jne	.Lusage
	mov	16(%rsp), %rsi		/* argv[1] */
	cmpb	$0, (%rsi)
	je	.Lusage			/* empty */
	xor	%eax, %eax		/* n = 0 */
.Ldigit:
	movzbl	(%rsi), %edx
	sub	$'0', %edx
	cmp	$9, %edx		/* unsigned: below '0' wraps high */
	ja	.Lend
	imul	$10, %rax, %rax
	add	%rdx, %rax
	inc	%rsi
	jmp	.Ldigit
.Lend:
	cmpb	$0, (%rsi)		/* stopped at the NUL, not at a non-digit */
	jne	.Lusage
	mov	%rsi, %rdx
	sub	16(%rsp), %rdx		/* D */
	cmp	$18, %rdx		/* 10^18 - 1 < 2^63: no wrap */
	ja	.Lusage
	mov	%rax, %r12		/* N: clone copies it to every thread */
	mov	$3, %r13		/* threads left to create */
.Lspawn:
	mov	$SYS_clone, %eax
	mov	$THREAD_FLAGS, %edi
	mov	%r13, %rsi		/* the stack: the top of stacks[r13 - 1] */
	shl	$12, %rsi		/* STACK_SIZE */
	add	$stacks, %rsi
	xor	%edx, %edx		/* parent_tid */
	xor	%r10d, %r10d		/* child_tid */
	xor	%r8d, %r8d		/* tls */
	syscall
	test	%rax, %rax
	jz	.Lwork			/* the new thread */
	js	.Lclone_failed
	dec	%r13
	jnz	.Lspawn
.Lwork:
	mov	%r12, %rcx
	test	%rcx, %rcx
	jz	.Lexit
.Lloop:
	dec	%rcx
	jnz	.Lloop
.Lexit:
	mov	$SYS_exit, %eax		/* this thread only */
	xor	%edi, %edi
	syscall
.Lusage:
	mov	$SYS_exit_group, %eax
	mov	$2, %edi
	syscall
.Lclone_failed:
	mov	$SYS_exit_group, %eax
	mov	$3, %edi
	syscall
	.size	_start, . - _start

	.bss
	.balign	STACK_SIZE
stacks:
	.skip	3 * STACK_SIZE

	.section .note.GNU-stack, "", @progbits
