/* SPDX-License-Identifier: GPL-2.0 */
/*
 * workload N: a program of known size, for "pmuctl stat" and perf to
 * count.  Static, no libc, no dynamic loader, no vDSO call: from the
 * kernel's jump to _start to its exit_group system call, every user-mode
 * instruction it retires is one of those below, so the count of
 * instructions retired in user mode from exec to exit is exactly
 *
 *	2 * N + 8 * D + 23
 *
 * where N is the number given and D the number of characters of the
 * argument (its decimal digits, leading zeros included).  Derivation, in
 * the order they run (the counts in the comments, for N > 0 and N = 0
 * alike):
 *	_start .. xor          7   (mov cmp jne mov cmpb je xor: argc is 2,
 *	                            argv[1] is not empty, n = 0)
 *	.Ldigit, per digit     8 x D   (movzbl sub cmp ja imul add inc jmp)
 *	.Ldigit, at the NUL    4   (movzbl sub cmp ja, taken)
 *	.Lend .. jz            9   (cmpb jne: the NUL ended it; mov sub cmp
 *	                            ja: D <= 18; mov test jz)
 *	.Lloop                 2 x N  (dec jnz; none when N = 0: jz skips it)
 *	.Lexit                 3   (mov xor syscall: the syscall instruction
 *	                            retires at CPL 3, a user instruction)
 * 7 + 8D + 4 + 9 + 2N + 3 = 2N + 8D + 23.  E.g. N = 1000000 (D = 7):
 * 2000079; N = 10000000 (D = 8): 20000087.  selftests/bench/workload_test.c
 * checks the formula on any host by single-stepping the program (ptrace),
 * which counts the same instructions with no PMU at all.
 *
 * A bad argument (none or two, empty, anything but 0-9, more than 18
 * digits) exits with status 2 without looping; the count is then not the
 * formula's.  Exit status 0 otherwise.
 */
#define SYS_exit_group	231	/* arch/x86/entry/syscalls/syscall_64.tbl */

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
	mov	%rax, %rcx
	test	%rcx, %rcx
	jz	.Lexit
.Lloop:
	dec	%rcx
	jnz	.Lloop
.Lexit:
	mov	$SYS_exit_group, %eax
	xor	%edi, %edi
	syscall
.Lusage:
	mov	$SYS_exit_group, %eax
	mov	$2, %edi
	syscall
	.size	_start, . - _start

	.section .note.GNU-stack, "", @progbits
