/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The out-of-line copies of libpmuctl.h's read path (readpath.c): what
 * scripts/bench.sh counts, and what the benchmark's timed part will call.
 */
#ifndef PMUCTL_BENCH_READPATH_H
#define PMUCTL_BENCH_READPATH_H

#include <stdint.h>

#include "libpmuctl.h"

enum readpath_kind {
	READPATH_ONE,		/* returns the value of event 0 */
	READPATH_AT,		/* returns the value of event i */
	READPATH_MANY,		/* stores events 0..n-1 at v */
	READPATH_DELTAS,	/* stores the deltas of events 0..n-1 */
};

/**
 * struct readpath_fn - one wrapper
 * @name:	its symbol, as scripts/bench.sh finds it.
 * @n:		counters it reads (rdpmc instructions).
 * @serialized:	the _serialized form (lfence before and after).
 * @kind:	which member of @fn is set.
 */
struct readpath_fn {
	const char *name;
	unsigned int n;
	int serialized;
	enum readpath_kind kind;
	union {
		uint64_t (*one)(const struct pmuctl_counters *c);
		uint64_t (*at)(const struct pmuctl_counters *c, unsigned int i);
		void (*many)(const struct pmuctl_counters *c, uint64_t *v);
		void (*deltas)(const struct pmuctl_counters *c,
			       const uint64_t *before, uint64_t *delta);
	} fn;
};

/* Every wrapper, ended by an entry with a NULL name. */
extern const struct readpath_fn readpath_fns[];

#endif /* PMUCTL_BENCH_READPATH_H */
