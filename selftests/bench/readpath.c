// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The read path of libpmuctl.h, one out-of-line copy per function and
 * counter count, for scripts/bench.sh to disassemble and count ("make
 * bench", and the budget test in build/tests/bench-readpath_test).
 *
 * Each wrapper is what a caller's inlined read compiles to, and nothing
 * else: the arguments arrive in registers (RDI = the counters, RSI = the
 * values) as they would sit in a caller's registers, and the wrapper's
 * own ret is not counted.  The counter counts are compile-time constants,
 * as the header asks for (pmuctl_read_counters() unrolls).  noinline and
 * noclone keep one symbol per wrapper; the function table below keeps
 * them all linked into the benchmark, which will time them on a PMU.
 *
 * Tests only: READPATH_INJECT_NOPS=N adds N nops to every wrapper, and
 * READPATH_INJECT_CALL, _JMP, _SYSCALL, _LOCK, _RDPMC one instruction of
 * that kind, so that the budget test can show the counter catching each
 * (such objects are disassembled, never run).
 */
#include <stdint.h>

#include "libpmuctl.h"
#include "readpath.h"

#define STR(x)	#x
#define XSTR(x)	STR(x)

#if defined(READPATH_INJECT_NOPS)
#define INJECT(c)	__asm__ __volatile__(".rept " XSTR(READPATH_INJECT_NOPS) "\n\tnop\n\t.endr")
#elif defined(READPATH_INJECT_CALL)
#define INJECT(c)	__asm__ __volatile__("call readpath_injected" ::: "memory")
#elif defined(READPATH_INJECT_JMP)
#define INJECT(c)	__asm__ __volatile__("jmp 1f\n1:")
#elif defined(READPATH_INJECT_SYSCALL)
#define INJECT(c)	__asm__ __volatile__("syscall" ::: "rcx", "r11", "memory")
#elif defined(READPATH_INJECT_LOCK)
#define INJECT(c)	__asm__ __volatile__("lock orl $0, (%%rsp)" ::: "memory")
#elif defined(READPATH_INJECT_RDPMC)
#define INJECT(c)	((void)pmuctl_read_counter(c, 0))
#else
#define INJECT(c)	do { } while (0)
#endif

#define WRAP __attribute__((noinline, noclone, used))

WRAP uint64_t readpath_counter(const struct pmuctl_counters *c)
{
	uint64_t v = pmuctl_read_counter(c, 0);

	INJECT(c);
	return v;
}

WRAP uint64_t readpath_counter_serialized(const struct pmuctl_counters *c)
{
	uint64_t v = pmuctl_read_counter_serialized(c, 0);

	INJECT(c);
	return v;
}

/*
 * An index known only at run time: the header's unsigned int index is
 * zero-extended before it addresses c->ecx[] (informational row).
 */
WRAP uint64_t readpath_counter_at(const struct pmuctl_counters *c,
				  unsigned int i)
{
	uint64_t v = pmuctl_read_counter(c, i);

	INJECT(c);
	return v;
}

/* readpath_counters_N(), readpath_counters_serialized_N(): N = 1..7. */
#define COUNTERS(n)							\
WRAP void readpath_counters_##n(const struct pmuctl_counters *c,	\
				uint64_t *v)				\
{									\
	pmuctl_read_counters(c, v, n);					\
	INJECT(c);							\
}									\
WRAP void readpath_counters_serialized_##n(const struct pmuctl_counters *c, \
					   uint64_t *v)			\
{									\
	pmuctl_read_counters_serialized(c, v, n);			\
	INJECT(c);							\
}

COUNTERS(1)
COUNTERS(2)
COUNTERS(3)
COUNTERS(4)
COUNTERS(5)
COUNTERS(6)
COUNTERS(7)

/*
 * A whole measurement's end: read 7 counters and subtract the start
 * values, wrap-safe.  Not a budgeted read (the deltas come after the last
 * rdpmc, outside what is measured); shown for scale.
 */
WRAP void readpath_counters_7_deltas(const struct pmuctl_counters *c,
				     const uint64_t *before, uint64_t *delta)
{
	uint64_t after[7];

	pmuctl_read_counters(c, after, 7);
	pmuctl_deltas(c, before, after, delta, 7);
	INJECT(c);
}

#define FN(name, n, ser, kind, member) \
	{ #name, n, ser, READPATH_##kind, { .member = name } }

const struct readpath_fn readpath_fns[] = {
	FN(readpath_counter, 1, 0, ONE, one),
	FN(readpath_counter_serialized, 1, 1, ONE, one),
	FN(readpath_counter_at, 1, 0, AT, at),
	FN(readpath_counters_1, 1, 0, MANY, many),
	FN(readpath_counters_2, 2, 0, MANY, many),
	FN(readpath_counters_3, 3, 0, MANY, many),
	FN(readpath_counters_4, 4, 0, MANY, many),
	FN(readpath_counters_5, 5, 0, MANY, many),
	FN(readpath_counters_6, 6, 0, MANY, many),
	FN(readpath_counters_7, 7, 0, MANY, many),
	FN(readpath_counters_serialized_1, 1, 1, MANY, many),
	FN(readpath_counters_serialized_2, 2, 1, MANY, many),
	FN(readpath_counters_serialized_3, 3, 1, MANY, many),
	FN(readpath_counters_serialized_4, 4, 1, MANY, many),
	FN(readpath_counters_serialized_5, 5, 1, MANY, many),
	FN(readpath_counters_serialized_6, 6, 1, MANY, many),
	FN(readpath_counters_serialized_7, 7, 1, MANY, many),
	FN(readpath_counters_7_deltas, 7, 0, DELTAS, deltas),
	{ 0 }
};
