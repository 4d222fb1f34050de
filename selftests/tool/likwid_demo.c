// SPDX-License-Identifier: GPL-2.0
/*
 * likwid-demo N THREADS: regions-demo (regions_demo.c) written against
 * LIKWID's documented MarkerAPI, as a LIKWID user writes it: it includes
 * <likwid-marker.h>, is compiled with -DLIKWID_PERFMON and pmuctl-likwid's
 * flags, and knows nothing of pmuctl.  The main thread and THREADS threads
 * it makes after running them itself each run region "loop0" around
 * known_loop(0) and "loopN" around known_loop(N) 5 times
 * (selftests/pmu/loop_asm.S), so in every
 * thread loopN's sums exceed loop0's by exactly 10N user instructions and
 * 5N branches.  The main thread prints what LIKWID_MARKER_GET gives for its loopN.  Exit
 * status 0, or 1 with a message.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <likwid-marker.h>

void known_loop(unsigned long n);

static unsigned long n;

static void *run(void *arg)
{
	LIKWID_MARKER_THREADINIT;
	for (int i = 0; i < 5; i++) {
		LIKWID_MARKER_START("loop0");
		known_loop(0);
		LIKWID_MARKER_STOP("loop0");
	}
	for (int i = 0; i < 5; i++) {
		LIKWID_MARKER_START("loopN");
		known_loop(n);
		LIKWID_MARKER_STOP("loopN");
	}
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t th[64];
	double events[8], time = -1;
	int threads, nevents = 8, count = -1;

	if (argc != 3 || (threads = atoi(argv[2])) < 0 || threads > 64) {
		fprintf(stderr, "usage: likwid-demo N THREADS (0..64)\n");
		return 1;
	}
	n = strtoul(argv[1], NULL, 10);
	LIKWID_MARKER_INIT;
	LIKWID_MARKER_REGISTER("loop0");
	LIKWID_MARKER_REGISTER("loopN");
	run(NULL);
	for (int i = 0; i < threads; i++)
		if (pthread_create(&th[i], NULL, run, NULL))
			return 1;
	for (int i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	LIKWID_MARKER_GET("loopN", &nevents, events, &time, &count);
	printf("likwid-demo: loopN: %d calls, %d events, time %g", count, nevents, time);
	for (int i = 0; i < nevents; i++)
		printf(", %.0f", events[i]);
	printf("\n");
	LIKWID_MARKER_CLOSE;
	return 0;
}
