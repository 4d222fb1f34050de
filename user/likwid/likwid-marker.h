/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * likwid-marker.h: LIKWID's MarkerAPI on libpmuctl's regions (pmuctl's own
 * header, written from LIKWID's public documentation; no LIKWID code).
 *
 * An unmodified program that includes <likwid-marker.h> (or <likwid.h>)
 * and is compiled with -DLIKWID_PERFMON and
 * "pkg-config --cflags --libs pmuctl-likwid" links against
 * libpmuctl-likwid instead of LIKWID: its markers count with the session
 * that "pmuctl stat --regions -- PROGRAM" hands over, and the regions are
 * printed by pmuctl.  Without LIKWID_PERFMON every macro is empty, as in
 * LIKWID.  Run without pmuctl (no session in the environment), the
 * markers do nothing: a test and a branch each.
 *
 * What differs from LIKWID: regions are counted per thread from the
 * first START on, with no LIKWID_MARKER_THREADINIT needed (it is
 * accepted); there is one group (LIKWID_MARKER_SWITCH does nothing); the
 * time LIKWID_MARKER_GET gives is 0 (pmuctl does not time regions: count
 * ref-cycles); a region's results stay until the program exits
 * (LIKWID_MARKER_CLOSE stops the markers, the report is written at exit).
 * See pmuctl's doc/regions.md.
 */
#ifndef PMUCTL_LIKWID_MARKER_H
#define PMUCTL_LIKWID_MARKER_H

#ifdef __cplusplus
extern "C" {
#endif

void likwid_markerInit(void);
void likwid_markerThreadInit(void);
void likwid_markerNextGroup(void);
void likwid_markerClose(void);
int likwid_markerRegisterRegion(const char *regionTag);
int likwid_markerStartRegion(const char *regionTag);
int likwid_markerStopRegion(const char *regionTag);
int likwid_markerResetRegion(const char *regionTag);
void likwid_markerGetRegion(const char *regionTag, int *nr_events,
			    double *events, double *time, int *count);

#ifdef __cplusplus
}
#endif

#ifdef LIKWID_PERFMON
#define LIKWID_MARKER_INIT likwid_markerInit()
#define LIKWID_MARKER_THREADINIT likwid_markerThreadInit()
#define LIKWID_MARKER_SWITCH likwid_markerNextGroup()
#define LIKWID_MARKER_REGISTER(regionTag) likwid_markerRegisterRegion(regionTag)
#define LIKWID_MARKER_START(regionTag) likwid_markerStartRegion(regionTag)
#define LIKWID_MARKER_STOP(regionTag) likwid_markerStopRegion(regionTag)
#define LIKWID_MARKER_CLOSE likwid_markerClose()
#define LIKWID_MARKER_RESET(regionTag) likwid_markerResetRegion(regionTag)
#define LIKWID_MARKER_GET(regionTag, nevents, events, time, count) \
	likwid_markerGetRegion(regionTag, nevents, events, time, count)
#else
#define LIKWID_MARKER_INIT
#define LIKWID_MARKER_THREADINIT
#define LIKWID_MARKER_SWITCH
#define LIKWID_MARKER_REGISTER(regionTag)
#define LIKWID_MARKER_START(regionTag)
#define LIKWID_MARKER_STOP(regionTag)
#define LIKWID_MARKER_CLOSE
#define LIKWID_MARKER_RESET(regionTag)
#define LIKWID_MARKER_GET(regionTag, nevents, events, time, count)
#endif

#endif /* PMUCTL_LIKWID_MARKER_H */
