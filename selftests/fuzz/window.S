/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fuzzer's known workload on the emulated PMU (fuzz.c, FZ_WINDOW()):
 * two raw system calls that read a count (pmuctl's READ, a perf event's
 * read()) around a loop of n, with nothing else in user mode between
 * them, so that a counter of this thread's (or this CPU's) user-mode
 * instructions moves by exactly
 *	9 + 2n
 * from the first read to the second: every instruction after the first
 * syscall returns up to the second syscall, which retires at CPL 3 and is
 * counted (selftests/pmu/task_asm.S; scripts/vm/qemu/pmu-spec.md,
 * Events).  The loop "mov n, %rcx; test; jz; 1: dec; jnz 1b" retires
 * 3 + 2n for any n.
 *
 * struct fz_window (fuzz.c):
 *	0 nr, 8 a0, 16 a1 (first), 24 a2 (first), 32 a1 (second),
 *	40 a2 (second), 48 n, 56 ret (first), 64 ret (second)
 */
	.text

/* void fz_window(struct fz_window *w) */
	.globl	fz_window
	.type	fz_window, @function
	.p2align 4
fz_window:
	push	%rbx
	mov	%rdi, %rbx
	mov	0(%rbx), %rax
	mov	8(%rbx), %rdi
	mov	16(%rbx), %rsi
	mov	24(%rbx), %rdx
	syscall				/* the first read: counted up to here */
	mov	%rax, 56(%rbx)		/* 1 */
	mov	48(%rbx), %rcx		/* 2 */
	test	%rcx, %rcx		/* 3 */
	jz	2f			/* 4 */
1:	dec	%rcx
	jnz	1b			/* 2n */
2:	mov	0(%rbx), %rax		/* 5 */
	mov	8(%rbx), %rdi		/* 6 */
	mov	32(%rbx), %rsi		/* 7 */
	mov	40(%rbx), %rdx		/* 8 */
	syscall				/* 9: the second read */
	mov	%rax, 64(%rbx)
	pop	%rbx
	ret
	.size	fz_window, .-fz_window

	.section .note.GNU-stack, "", @progbits
