/* SPDX-License-Identifier: GPL-2.0 */
/*
 * void known_loop(unsigned long n): retires 4 + 2n instructions in user
 * mode (mov, test, jz, n x (dec, jnz), ret), of which n + 2 are branches
 * (jz, the n jnz, ret) as event 0x00c4 counts them (pmu-spec.md), for
 * any n >= 0.  Its caller's call adds one instruction and one branch.
 */
	.text
	.globl	known_loop
	.type	known_loop, @function
known_loop:
	mov	%rdi, %rcx
	test	%rcx, %rcx
	jz	2f
1:	dec	%rcx
	jnz	1b
2:	ret
	.size	known_loop, . - known_loop

	.section .note.GNU-stack, "", @progbits
