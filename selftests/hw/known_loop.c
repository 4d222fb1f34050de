// SPDX-License-Identifier: GPL-2.0
/*
 * known_loop: a workload with a known count of user-mode instructions,
 * for tests of "pmuctl stat" and "pmuctl watch" (tool_counts_test.sh).
 *
 *   known_loop N    retire exactly 10 N + 10 D + 15 instructions in
 *                   user mode, D being the number of decimal digits of N
 *                   (1 <= N, D <= 18), and exit 0
 *   known_loop -e   exit 0 on the emulated PMU (emulated.h), 1 elsewhere
 *
 * No libc: a C library's start-up runs code whose length depends on the
 * environment and on where the kernel put the stack.  _start is written
 * in assembly, so the count does not depend on the compiler either:
 *
 *   entry                 7   mov, cmp, jne, mov, cmpb, je, xor
 *   per digit            10   movzbl, test, jz, sub, cmp, ja, imul, add,
 *                             inc, jmp
 *   end of digits         5   movzbl, test, jz, test, jz
 *   per iteration        10   8 nop, dec, jnz
 *   exit                  3   mov, xor, syscall
 *
 * 10 N + 10 D + 15, the syscall that ends it included; the kernel's work
 * (exec, page faults, exit) is not user mode.  Build: static, -nostdlib.
 */
#include "emulated.h"

/* known_loop -e: 0 on the emulated PMU; called from _start. */
int known_loop_emulated(void);

int __attribute__((used)) known_loop_emulated(void)
{
	return hw_cpu_is_emulated() ? 0 : 1;
}

__asm__(
	".text\n"
	".globl _start\n"
	"_start:\n"
	"	mov (%rsp), %rcx\n"		/* argc */
	"	cmp $2, %rcx\n"
	"	jne .Lusage\n"
	"	mov 16(%rsp), %rsi\n"		/* argv[1] */
	"	cmpb $'-', (%rsi)\n"
	"	je .Lflag\n"
	"	xor %eax, %eax\n"		/* N */
	"1:	movzbl (%rsi), %ecx\n"
	"	test %ecx, %ecx\n"
	"	jz 2f\n"
	"	sub $'0', %ecx\n"
	"	cmp $9, %ecx\n"
	"	ja .Lusage\n"
	"	imul $10, %rax, %rax\n"
	"	add %rcx, %rax\n"
	"	inc %rsi\n"
	"	jmp 1b\n"
	"2:	test %rax, %rax\n"
	"	jz .Lusage\n"
	"3:\n"
	"	.rept 8\n"
	"	nop\n"
	"	.endr\n"
	"	dec %rax\n"
	"	jnz 3b\n"
	"	mov $60, %eax\n"		/* exit(0) */
	"	xor %edi, %edi\n"
	"	syscall\n"
	/* -e, exactly: whether the PMU is the emulated one. */
	".Lflag:\n"
	"	cmpb $'e', 1(%rsi)\n"
	"	jne .Lusage\n"
	"	cmpb $0, 2(%rsi)\n"
	"	jne .Lusage\n"
	"	call known_loop_emulated\n"	/* %rsp is 16-byte aligned here */
	"	mov %eax, %edi\n"
	"	mov $60, %eax\n"
	"	syscall\n"
	".Lusage:\n"
	"	mov $1, %eax\n"			/* write(2, usage, len) */
	"	mov $2, %edi\n"
	"	lea .Lmsg(%rip), %rsi\n"
	"	mov $.Lmsg_end - .Lmsg, %edx\n"
	"	syscall\n"
	"	mov $60, %eax\n"		/* exit(2) */
	"	mov $2, %edi\n"
	"	syscall\n"
	".section .rodata\n"
	".Lmsg:\n"
	"	.ascii \"usage: known_loop N (1 <= N < 10^18) | known_loop -e\\n\"\n"
	".Lmsg_end:\n"
	".text\n"
);
