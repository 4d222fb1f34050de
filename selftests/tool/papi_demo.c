// SPDX-License-Identifier: GPL-2.0
/*
 * papi-demo N THREADS: regions-demo (regions_demo.c) written against
 * PAPI's documented high-level API, as a PAPI user writes it: it includes
 * "papi.h", is compiled with pmuctl-papi-hl's flags, and knows nothing of
 * pmuctl.  The main thread and THREADS threads made after it each run
 * region "loop0" around known_loop(0) and "loopN" around known_loop(N) 5
 * times (selftests/pmu/loop_asm.S), so in every thread loopN's sums exceed
 * loop0's by exactly 10N user instructions and 5N branches.  Exit status
 * 0, or 1 naming the call that did not return PAPI_OK.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "papi.h"

void known_loop(unsigned long n);

static unsigned long n;

#define CHECK(call) do {						\
	int __r = (call);						\
									\
	if (__r != PAPI_OK) {						\
		fprintf(stderr, "papi-demo: %s: %d\n", #call, __r);	\
		return (void *)1;					\
	}								\
} while (0)

static void *run(void *arg)
{
	for (int i = 0; i < 5; i++) {
		CHECK(PAPI_hl_region_begin("loop0"));
		known_loop(0);
		CHECK(PAPI_hl_region_end("loop0"));
	}
	for (int i = 0; i < 5; i++) {
		CHECK(PAPI_hl_region_begin("loopN"));
		known_loop(n);
		CHECK(PAPI_hl_region_end("loopN"));
	}
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t th[64];
	void *bad;
	int threads;

	if (argc != 3 || (threads = atoi(argv[2])) < 0 || threads > 64) {
		fprintf(stderr, "usage: papi-demo N THREADS (0..64)\n");
		return 1;
	}
	n = strtoul(argv[1], NULL, 10);
	for (int i = 0; i < threads; i++)
		if (pthread_create(&th[i], NULL, run, NULL))
			return 1;
	bad = run(NULL);
	for (int i = 0; i < threads; i++) {
		void *b;

		pthread_join(th[i], &b);
		bad = bad ? bad : b;
	}
	if (PAPI_hl_stop() != PAPI_OK)
		bad = (void *)1;
	return bad ? 1 : 0;
}
