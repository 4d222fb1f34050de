/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Markers for the TCG plugin scripts/vm/insn-count.c, which counts the
 * instructions a one-CPU guest executes, user and kernel apart, between
 * them: make bench's measure where the guest's PMU cannot serve (a tool
 * that programs the counters itself would reprogram a group measuring
 * it).  Each marker is one 8-byte NOP; without the plugin it does nothing.
 */
#ifndef PMUCTL_INSN_MARKS_H
#define PMUCTL_INSN_MARKS_H

#define MARK_START	1
#define MARK_STOP	2
#define MARK_TICK	3
#define MARK_CLEAR	4

#define MARK(op, arg)							\
	__asm__ __volatile__("nopl %c0(%%rax,%%rax,1)"			\
			     :: "i" (0x504d0000u | (op) << 12 | (arg))	\
			     : "memory")

/* The plugin's label for the windows that follow: @label TICKs. */
static inline void marks_label(unsigned int label)
{
	MARK(MARK_CLEAR, 0);
	for (unsigned int i = 0; i < label; i++)
		MARK(MARK_TICK, 0);
}

/*
 * @runs windows of @none(@pairs), @runs of @api(@pairs), then @batches
 * of each with @batch: the plugin prints one "stop LABEL ARG USER KERNEL"
 * line per window, ARG 0 and 1 for @none (long, batch), 2 and 3 for @api.
 * Every window runs the same instructions around its call (START, an
 * indirect call, STOP), so that the difference of two is the pairs'.
 */
static inline void marks_measure(void (*none)(long), void (*api)(long), long pairs,
				 int runs, long batch, int batches)
{
	for (int r = 0; r < runs; r++) {
		MARK(MARK_START, 0);
		none(pairs);
		MARK(MARK_STOP, 0);
	}
	for (int r = 0; r < runs; r++) {
		MARK(MARK_START, 0);
		api(pairs);
		MARK(MARK_STOP, 2);
	}
	for (int r = 0; r < batches; r++) {
		MARK(MARK_START, 0);
		none(batch);
		MARK(MARK_STOP, 1);
	}
	for (int r = 0; r < batches; r++) {
		MARK(MARK_START, 0);
		api(batch);
		MARK(MARK_STOP, 3);
	}
}

#endif
