// SPDX-License-Identifier: GPL-2.0
/*
 * regions-demo N THREADS: a program instrumented with libpmuctl's regions
 * for "pmuctl stat --regions" (selftests/tool/stat_regions_test.sh).  The
 * main thread and THREADS threads made after it each run 5 times region
 * "loop0" around known_loop(0) and 5 times "loopN" around known_loop(N)
 * (selftests/pmu/loop_asm.S: 4 + 2n user instructions, n + 2 branches),
 * so that in every thread loopN's sums exceed loop0's by exactly 10N
 * instructions and 5N branches.  Without "pmuctl stat --regions"
 * (pmuctl_regions_env() says -ENOENT) it runs the same loops unmeasured
 * and says so on stdout.  Exit status 0, or 1 with a message.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libpmuctl.h"

void known_loop(unsigned long n);

static struct pmuctl_regions *r;
static int h0, hn;
static unsigned long n;

static void *run(void *arg)
{
	(void)arg;
	for (int i = 0; i < 5; i++) {
		if (r && pmuctl_region_enter(r, h0))
			return (void *)1;
		known_loop(0);
		if (r && pmuctl_region_exit(r, h0))
			return (void *)1;
	}
	for (int i = 0; i < 5; i++) {
		if (r && pmuctl_region_enter(r, hn))
			return (void *)1;
		known_loop(n);
		if (r && pmuctl_region_exit(r, hn))
			return (void *)1;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[64];
	int threads, ret;
	void *bad = NULL;

	if (argc != 3 || (threads = atoi(argv[2])) < 0 || threads > 64) {
		fprintf(stderr, "usage: regions-demo N THREADS (0..64)\n");
		return 1;
	}
	n = strtoul(argv[1], NULL, 10);
	ret = pmuctl_regions_env(&r);
	if (ret == -ENOENT) {
		printf("regions-demo: no pmuctl session: running unmeasured\n");
	} else if (ret) {
		fprintf(stderr, "regions-demo: pmuctl_regions_env: %s\n", strerror(-ret));
		return 1;
	} else {
		h0 = pmuctl_region_register(r, "loop0");
		hn = pmuctl_region_register(r, "loopN");
	}
	for (int i = 0; i < threads; i++)
		if (pthread_create(&th[i], NULL, run, NULL))
			return 1;
	bad = run(NULL);
	for (int i = 0; i < threads; i++) {
		void *b;

		pthread_join(th[i], &b);
		bad = bad ? bad : b;
	}
	if (bad) {
		fprintf(stderr, "regions-demo: a region call failed\n");
		return 1;
	}
	return 0;
}
