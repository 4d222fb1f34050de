/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * papi.h: PAPI's high-level regions on libpmuctl (pmuctl's own header,
 * written from PAPI's public documentation; no PAPI code).  It declares
 * the high-level calls and PAPI's return codes alone: a program using
 * PAPI's low-level API needs PAPI itself.
 *
 * A program compiled with "pkg-config --cflags --libs pmuctl-papi-hl"
 * links against libpmuctl-papi-hl instead of libpapi.  Under
 * "pmuctl stat --regions -- PROGRAM" its regions count with the session
 * pmuctl hands over and pmuctl prints them.  Else, when the program
 * starts, libpmuctl-papi-hl programs a task-scope session of its own on
 * the events of $PAPI_EVENTS (perf, libpfm4 and Intel names; PAPI's
 * presets PAPI_TOT_INS, PAPI_TOT_CYC, PAPI_BR_INS, PAPI_BR_MSP,
 * PAPI_REF_CYC; default "instructions,cycles"), counting every thread the
 * program creates, and at exit writes pmuctl's JSON Lines report to
 * papi_hl_output/pmuctl_PID.json (in $PAPI_OUTPUT_DIRECTORY, else the
 * working directory), and with $PAPI_REPORT set the CSV table to stdout.
 * Where no session can be had the calls do nothing and return PAPI_OK:
 * the program runs unchanged.  See pmuctl's doc/regions.md.
 */
#ifndef PMUCTL_PAPI_HL_H
#define PMUCTL_PAPI_HL_H

#ifdef __cplusplus
extern "C" {
#endif

#define PAPI_OK		0	/* no error */
#define PAPI_EINVAL	-1	/* invalid argument */
#define PAPI_ENOMEM	-2	/* out of memory */
#define PAPI_ESYS	-3	/* a system call failed */
#define PAPI_ENOEVNT	-7	/* no such event */
#define PAPI_ENOTRUN	-9	/* the region is not running */
#define PAPI_EMISC	-14	/* misuse: see pmuctl's report */
#define PAPI_EPERM	-15	/* this thread is not counted */

int PAPI_hl_region_begin(const char *region);
int PAPI_hl_read(const char *region);
int PAPI_hl_region_end(const char *region);
int PAPI_hl_stop(void);

#ifdef __cplusplus
}
#endif

#endif /* PMUCTL_PAPI_HL_H */
