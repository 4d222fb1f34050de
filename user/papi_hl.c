// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libpmuctl-papi-hl: PAPI's high-level regions (papi-hl/papi.h) on the
 * regions of libpmuctl, written from PAPI's public documentation.
 *
 * The set comes from "pmuctl stat --regions" (pmuctl_regions_env()), or,
 * where none is handed over, from a task-scope session with inheritance
 * that this library programs when the program starts (a constructor: the
 * threads the program creates are all counted) on $PAPI_EVENTS.  Without
 * either the calls cost a load, a test and a branch.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libpmuctl.h"
#include "papi-hl/papi.h"

#define DEFAULT_EVENTS	"instructions,cycles"

/* The set while the regions count; NULL without one and after stop. */
static struct pmuctl_regions *_Atomic hl;
/* The session and set this library programmed itself, for the report. */
static struct pmuctl_regions *own;

static struct pmuctl_regions *on(void)
{
	return atomic_load_explicit(&hl, memory_order_relaxed);
}

/* PAPI's presets pmuctl can count, by perf's names. */
static const struct {
	const char *preset, *name;
} presets[] = {
	{ "PAPI_TOT_INS", "instructions" },
	{ "PAPI_TOT_CYC", "cycles" },
	{ "PAPI_BR_INS", "branches" },
	{ "PAPI_BR_MSP", "branch-misses" },
	{ "PAPI_REF_CYC", "ref-cycles" },
};

/* One event of $PAPI_EVENTS as pmuctl names it; NULL for another preset. */
static const char *papi_name(const char *e)
{
	if (!strncasecmp(e, "PAPI_", 5)) {
		for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
			if (!strcasecmp(e, presets[i].preset))
				return presets[i].name;
		return NULL;
	}
	/* PAPI's perf_event component spells libpfm4's "perf::" PMU so. */
	if (!strncmp(e, "perf::", 6))
		return e + 6;
	return e;
}

static void report(void)
{
	const char *dir = getenv("PAPI_OUTPUT_DIRECTORY");
	char path[4096];
	FILE *f;

	if (!own)
		return;
	snprintf(path, sizeof(path), "%s/papi_hl_output", dir && *dir ? dir : ".");
	if (mkdir(path, 0755) && errno != EEXIST) {
		fprintf(stderr, "pmuctl-papi-hl: cannot make %s: %s: no report\n",
			path, strerror(errno));
	} else {
		snprintf(path + strlen(path), sizeof(path) - strlen(path),
			 "/pmuctl_%d.json", (int)getpid());
		f = fopen(path, "w");
		if (!f) {
			fprintf(stderr, "pmuctl-papi-hl: cannot write %s: %s: no report\n",
				path, strerror(errno));
		} else {
			pmuctl_regions_write(own, f, PMUCTL_REGIONS_JSON, NULL);
			if (fclose(f))
				fprintf(stderr, "pmuctl-papi-hl: writing %s: %s\n",
					path, strerror(errno));
		}
	}
	if (getenv("PAPI_REPORT")) {
		pmuctl_regions_write(own, stdout, PMUCTL_REGIONS_CSV, NULL);
		fflush(stdout);
	}
}

/*
 * A session of our own on $PAPI_EVENTS.  Quiet where there is no device
 * and the user asked for nothing; one line naming the cause otherwise.
 */
static void program_own(void)
{
	const char *env = getenv("PAPI_EVENTS");
	const char *list = env && *env ? env : DEFAULT_EVENTS;
	struct pmuctl_event ev[PMUCTL_MAX_EVENTS];
	const char *names[PMUCTL_MAX_EVENTS];
	char *buf = strdup(list), *save = NULL, *tok, msg[256];
	struct pmuctl_error err;
	struct pmuctl *p = NULL;
	unsigned int n = 0;
	int ret;

	if (!buf)
		return;
	ret = pmuctl_open(NULL, 0, &p);
	if (ret) {
		if (env)
			fprintf(stderr, "pmuctl-papi-hl: PAPI_EVENTS not counted: %s\n",
				pmuctl_strerror(ret, NULL, msg, sizeof(msg)));
		goto out;
	}
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const char *name = papi_name(tok);

		if (n == PMUCTL_MAX_EVENTS) {
			fprintf(stderr, "pmuctl-papi-hl: PAPI_EVENTS: more than %d events: none counted\n",
				PMUCTL_MAX_EVENTS);
			goto out;
		}
		if (!name) {
			fprintf(stderr, "pmuctl-papi-hl: PAPI_EVENTS: preset '%s' is not one pmuctl counts (PAPI_TOT_INS, PAPI_TOT_CYC, PAPI_BR_INS, PAPI_BR_MSP, PAPI_REF_CYC, or an event name): none counted\n",
				tok);
			goto out;
		}
		memset(&ev[n], 0, sizeof(ev[n]));
		msg[0] = 0;
		ret = pmuctl_event_resolve(pmuctl_get_info(p)->pmu_model, name,
					   &ev[n], msg, sizeof(msg));
		if (ret < 0) {
			fprintf(stderr, "pmuctl-papi-hl: PAPI_EVENTS: event '%s': %s%s%s: none counted (see 'pmuctl list')\n",
				tok, strerror(-ret), msg[0] ? ": " : "", msg);
			goto out;
		}
		names[n++] = tok;
	}
	if (!n) {
		fprintf(stderr, "pmuctl-papi-hl: PAPI_EVENTS names no event: none counted\n");
		goto out;
	}
	memset(&err, 0, sizeof(err));
	ret = pmuctl_program_task(p, PMUCTL_PROGRAM_INHERIT, ev, n, &err);
	if (!ret)
		ret = pmuctl_start(p);
	if (!ret)
		ret = pmuctl_regions_new(p, ev, names, 256, 0, &own);
	if (ret) {
		fprintf(stderr, "pmuctl-papi-hl: PAPI_EVENTS not counted: %s\n",
			pmuctl_strerror(ret, &err, msg, sizeof(msg)));
		goto out;
	}
	/* The set keeps the session; the process keeps both to its end. */
	p = NULL;
	atexit(report);
	atomic_store(&hl, own);
out:
	pmuctl_close(p);
	free(buf);
}

__attribute__((constructor)) static void papi_hl_init(void)
{
	struct pmuctl_regions *r;
	int ret = pmuctl_regions_env(&r);

	if (!ret) {
		atomic_store(&hl, r);
		return;
	}
	if (ret != -ENOENT) {
		fprintf(stderr, "pmuctl-papi-hl: $PMUCTL_REGIONS: %s: regions off\n",
			strerror(-ret));
		return;
	}
	program_own();
}

/* pmuctl's errors as PAPI's codes. */
static int papi_ret(int ret)
{
	switch (ret) {
	case 0:
		return PAPI_OK;
	case -EINVAL:
	case -ENOSPC:
		return PAPI_EINVAL;
	case -ENOMEM:
		return PAPI_ENOMEM;
	case -ENOENT:
		return PAPI_ENOTRUN;
	case -EPERM:
		return PAPI_EPERM;
	default:
		return PAPI_EMISC;
	}
}

int PAPI_hl_region_begin(const char *region)
{
	struct pmuctl_regions *r = on();

	return r ? papi_ret(pmuctl_region_enter_name(r, region)) : PAPI_OK;
}

int PAPI_hl_region_end(const char *region)
{
	struct pmuctl_regions *r = on();

	return r ? papi_ret(pmuctl_region_exit_name(r, region)) : PAPI_OK;
}

/*
 * The counts so far added to the region, which goes on from here: in
 * pmuctl's report a read is one more call of the region.
 */
int PAPI_hl_read(const char *region)
{
	struct pmuctl_regions *r = on();
	int ret;

	if (!r)
		return PAPI_OK;
	ret = pmuctl_region_exit_name(r, region);
	if (!ret)
		ret = pmuctl_region_enter_name(r, region);
	return papi_ret(ret);
}

/* The regions stop; the report is written when the program exits. */
int PAPI_hl_stop(void)
{
	atomic_store(&hl, NULL);
	return PAPI_OK;
}
