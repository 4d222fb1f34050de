// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libpmuctl-likwid: LIKWID's MarkerAPI (likwid/likwid-marker.h) on the
 * regions of libpmuctl, written from LIKWID's public documentation.
 *
 * LIKWID_MARKER_INIT takes the set "pmuctl stat --regions" hands over
 * (pmuctl_regions_env()); without one the markers stay off and each costs
 * a load, a test and a branch.  A marker names its region by string: the
 * name form of the regions (a per-thread cache by the string's address,
 * checked with a strcmp).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "libpmuctl.h"
#include "likwid/likwid-marker.h"


/* The set while the markers are on; NULL before INIT and after CLOSE. */
static struct pmuctl_regions *_Atomic markers;

static struct pmuctl_regions *on(void)
{
	return atomic_load_explicit(&markers, memory_order_relaxed);
}

void likwid_markerInit(void)
{
	struct pmuctl_regions *r;
	int ret;

	if (on())
		return;
	ret = pmuctl_regions_env(&r);
	if (ret == -ENOENT)
		return;		/* run without pmuctl: markers off */
	if (ret) {
		fprintf(stderr, "pmuctl-likwid: $PMUCTL_REGIONS: %s: markers off (run the program as 'pmuctl stat --regions -e EVENTS -- PROGRAM')\n",
			strerror(-ret));
		return;
	}
	atomic_store(&markers, r);
}

/* Each thread gets its block and grant at its first START. */
void likwid_markerThreadInit(void)
{
}

/* One group: nothing to switch to. */
void likwid_markerNextGroup(void)
{
}

/* The markers stop; the results are written when the program exits. */
void likwid_markerClose(void)
{
	atomic_store(&markers, NULL);
}

int likwid_markerRegisterRegion(const char *regionTag)
{
	struct pmuctl_regions *r = on();
	int h;

	if (!r)
		return 0;
	h = pmuctl_region_register(r, regionTag);
	return h < 0 ? h : 0;
}

int likwid_markerStartRegion(const char *regionTag)
{
	struct pmuctl_regions *r = on();

	return r ? pmuctl_region_enter_name(r, regionTag) : 0;
}

int likwid_markerStopRegion(const char *regionTag)
{
	struct pmuctl_regions *r = on();

	return r ? pmuctl_region_exit_name(r, regionTag) : 0;
}

int likwid_markerResetRegion(const char *regionTag)
{
	struct pmuctl_regions *r = on();
	int h;

	if (!r)
		return 0;
	h = pmuctl_region_register(r, regionTag);
	return h < 0 ? h : pmuctl_region_reset(r, h);
}

/*
 * The calling thread's results: *@nr_events in, the room in @events; out,
 * the events given.  LIKWID's time is the region's TSC time: pmuctl does
 * not time regions, it gives 0.
 */
void likwid_markerGetRegion(const char *regionTag, int *nr_events,
				   double *events, double *time, int *count)
{
	struct pmuctl_regions *r = on();
	uint64_t v[PMUCTL_MAX_EVENTS], calls = 0;
	unsigned int n = 0;
	int h = -1;

	if (r && regionTag)
		h = pmuctl_region_register(r, regionTag);
	if (h >= 0 && nr_events && *nr_events > 0) {
		n = pmuctl_regions_nr_events(r);
		if (n > (unsigned int)*nr_events)
			n = (unsigned int)*nr_events;
	}
	if (h < 0 || pmuctl_region_get(r, h, &calls, v, n))
		n = 0;
	for (unsigned int i = 0; i < n && events; i++)
		events[i] = (double)v[i];
	if (nr_events)
		*nr_events = events ? (int)n : 0;
	if (time)
		*time = 0;
	if (count)
		*count = calls > (uint64_t)__INT_MAX__ ? __INT_MAX__ : (int)calls;
}
