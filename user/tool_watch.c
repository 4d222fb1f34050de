// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctl watch: per-CPU counts at an interval, system-wide.  One group on
 * every watched CPU (the same counters everywhere, one PROGRAM); at each
 * tick one PMUCTL_IOC_READ per CPU, and the count of the interval is the
 * difference from the previous READ masked to the counter's width.
 *
 * More events than the PMU counts at once (or -M metrics that need more):
 * the passes of tool_mset take turns, each for an equal slice of every
 * interval; at the end of a slice the CPUs are read and the next pass
 * replaces the group (pmuctl_replace(): one ioctl, one wave), so each
 * event counts a known share of each interval and is printed with it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core.h"
#include "tool.h"

#define MIN_INTERVAL_MS	10
#define MAX_INTERVAL_MS	3600000

void watch_usage(FILE *f)
{
	fputs("usage: pmuctl watch [-e EVENT,...] [-M METRIC,...] [--scale] [-C CPUS]\n"
	      "                    [-I MS] [-n COUNT]\n"
	      "                    [-x SEP | --json | --format FMT [-o FILE]]\n"
	      "\n"
	      "Count events on CPUs, system-wide (every task that runs there), and\n"
	      "print each CPU's counts at every interval, until COUNT intervals have\n"
	      "passed or SIGINT/SIGTERM.\n"
	      "\n"
	      "  -e, --events LIST   events, as for pmuctl stat (default: its defaults)\n"
	      "  -M, --metrics LIST  metrics or metric groups (TopdownL1, IPC, ...;\n"
	      "                      pmuctl list --metrics), printed per CPU after the\n"
	      "                      events at every interval\n"
	      "      --scale         with more events than counters: print each\n"
	      "                      count scaled to the whole interval, marked '~'\n"
	      "  -C, --cpus CPUS     CPU list such as 0-3,6 (default: every CPU this\n"
	      "                      process may run on)\n"
	      "  -I, --interval MS   interval in milliseconds, 10 to 3600000 (default\n"
	      "                      1000)\n"
	      "  -n, --count COUNT   stop after COUNT intervals (default: never)\n"
	      "  -x, --field-separator SEP   CSV, one line per CPU and event:\n"
	      "                      time,cpu,value,unit,event,counter,backend\n"
	      "  -j, --json          JSON Lines, one object per CPU and event: time, cpu,\n"
	      "                      event, value, counter, backend\n"
	      "      --format FMT    the counts since counting started, as Prometheus\n"
	      "                      counters: FMT 'prometheus' (text format 0.0.4,\n"
	      "                      what node_exporter's textfile collector reads) or\n"
	      "                      'openmetrics' (OpenMetrics 1.0, ends with # EOF)\n"
	      "  -o, --output FILE   with --format: replace FILE at every interval,\n"
	      "                      atomically (FILE.tmp written, fsync'ed, renamed)\n"
	      "  -h, --help          show this help\n"
	      "\n"
	      "Output goes to stdout, flushed at every interval.  Table: the line\n"
	      "'# pmuctl watch: CPUs LIST, every MS ms, system-wide', when the module is\n"
	      "its test build '# " TOOL_MODEL_NOTE "',\n"
	      "a column header line, then per interval, CPU and event\n"
	      "'%16.9f  %4u  %18s  %s' TIME CPU VALUE EVENT.  TIME is seconds since\n"
	      "counting started; VALUE the events counted in that interval, or\n"
	      "'<not counted>' (JSON null) while the CPU is offline.  A metric's row\n"
	      "has its value (2 decimals) and its name and unit.\n"
	      "\n"
	      "More events than the PMU counts at once: they are split into passes,\n"
	      "which take turns in equal slices of every interval (at least 10 ms\n"
	      "each; one reprogram per slice, 1 ioctl and 1 wave).  Each count is\n"
	      "then exact for its slice only, and its row ends with the share of the\n"
	      "interval it was counted, perf's '(NN.NN%)'; with --scale the table's\n"
	      "VALUE is the count divided by that share, '~N', an estimate.  CSV adds\n"
	      "two fields, share (percent) and scaled (empty without --scale); JSON\n"
	      "the keys pass, share and, with --scale, scaled.  A metric is computed\n"
	      "from its events' counts in their slice (a metric's events share a\n"
	      "pass where they fit together).  --format needs one pass and no -M.\n"
	      "\n"
	      "--format: at every interval one exposition, one counter family per\n"
	      "event, pmuctl_NAME (NAME with every byte outside [a-zA-Z0-9_] as _),\n"
	      "samples 'pmuctl_NAME_total{cpu=\"N\",event=\"EVENT\"} VALUE': VALUE\n"
	      "is the events counted on CPU N since counting started (the sum of\n"
	      "the intervals' counts; pmuctl does not multiplex, so nothing is\n"
	      "scaled), exact while each interval is shorter than the counter's\n"
	      "wrap time; a CPU offline is left out, its offline intervals never\n"
	      "counted.  A new pmuctl watch starts from 0 (a counter reset).  For\n"
	      "node_exporter: --format prometheus -o DIR/pmuctl.prom, DIR its\n"
	      "--collector.textfile.directory.\n"
	      "\n"
	      "Exit status: 0 success, 1 failure, 2 usage error.\n", f);
}

struct watch_opts {
	const char *events;
	const char *metrics;
	bool scale;
	const char *cpus;
	unsigned int interval_ms;
	unsigned long long count;	/* 0: until a signal */
	const char *sep;
	bool json;
	enum tool_prom_format format;
	const char *output;
};

static volatile sig_atomic_t watch_stop;

static void on_signal(int sig)
{
	(void)sig;
	watch_stop = 1;
}

static int watch_parse(int argc, char **argv, struct watch_opts *o)
{
	static const struct option opts[] = {
		{ "events",          required_argument, NULL, 'e' },
		{ "metrics",         required_argument, NULL, 'M' },
		{ "scale",           no_argument,       NULL, 'S' },
		{ "cpus",            required_argument, NULL, 'C' },
		{ "interval",        required_argument, NULL, 'I' },
		{ "count",           required_argument, NULL, 'n' },
		{ "field-separator", required_argument, NULL, 'x' },
		{ "json",            no_argument,       NULL, 'j' },
		{ "format",          required_argument, NULL, 'F' },
		{ "output",          required_argument, NULL, 'o' },
		{ "help",            no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long long v;
	int opt;

	memset(o, 0, sizeof(*o));
	o->interval_ms = 1000;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":e:M:C:I:n:x:jo:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'e':
			if (tool_events_syntax("watch", optarg))
				return EXIT_USAGE;
			o->events = optarg;
			break;
		case 'M':
			if (!*optarg)
				return tool_usage_error("watch", "empty metric list: give e.g. -M IPC ('pmuctl list --metrics' lists them)");
			o->metrics = optarg;
			break;
		case 'S':
			o->scale = true;
			break;
		case 'C':
			o->cpus = optarg;
			break;
		case 'I':
			if (tool_parse_uint(optarg, MIN_INTERVAL_MS, MAX_INTERVAL_MS, &v))
				return tool_usage_error("watch", "bad interval '%s': milliseconds from %d to %d",
							optarg, MIN_INTERVAL_MS, MAX_INTERVAL_MS);
			o->interval_ms = (unsigned int)v;
			break;
		case 'n':
			if (tool_parse_uint(optarg, 1, ~0ULL, &v))
				return tool_usage_error("watch", "bad count '%s': a number of intervals, at least 1",
							optarg);
			o->count = v;
			break;
		case 'x':
			if (!*optarg)
				return tool_usage_error("watch", "empty field separator: give e.g. -x ,");
			o->sep = optarg;
			break;
		case 'j':
			o->json = true;
			break;
		case 'F':
			if (!strcmp(optarg, "prometheus"))
				o->format = TOOL_PROM_TEXT;
			else if (!strcmp(optarg, "openmetrics"))
				o->format = TOOL_PROM_OPENMETRICS;
			else
				return tool_usage_error("watch", "unknown format '%s': prometheus or openmetrics",
							optarg);
			break;
		case 'o':
			if (!*optarg)
				return tool_usage_error("watch", "empty output file name");
			o->output = optarg;
			break;
		case 'h':
			watch_usage(stdout);
			return -1;
		case ':':
			return tool_usage_error("watch", "option '%s' needs a value",
						argv[optind - 1]);
		default:
			return tool_usage_error("watch", "unknown option '%s'",
						argv[optind - 1]);
		}
	}
	if (!!o->sep + o->json + !!o->format > 1)
		return tool_usage_error("watch", "-x, --json and --format exclude each other: pick one output format");
	if (o->format && o->metrics)
		return tool_usage_error("watch", "--format exposes counters, and -M metrics are not: drop -M, or use -x or --json");
	if (o->output && !o->format)
		return tool_usage_error("watch", "-o writes the --format outputs only: add --format prometheus or openmetrics");
	if (optind < argc)
		return tool_usage_error("watch", "unexpected argument '%s'", argv[optind]);
	return 0;
}

struct watch_ctx {
	const struct watch_opts *o;
	struct pmuctl *p;
	const struct pmuctl_info *info;
	const struct pmuctl_counters *ctr;
	struct tool_events e;
	unsigned int *cpu;		/* the watched CPUs, ascending */
	unsigned int nr_cpus;
	uint64_t *prev;			/* [nr_cpus][e.nr]: the last READ */
	bool *valid;			/* prev holds a READ of an online CPU */
	uint64_t *total;		/* [nr_cpus][e.nr]: since START (--format) */
	/* Passes, -M: NULL for one group of -e events and no metric. */
	struct tool_mset *ms;
	unsigned int pass;		/* the pass programmed now */
	/* Per CPU, pass and place in the pass (slot()): this interval's. */
	uint64_t *cnt;
	bool *got;			/* cnt holds a count */
	uint32_t *ecx;			/* the counter */
	uint64_t *run_ns;		/* [ms->passes]: the pass's time */
	unsigned int *pass_of;		/* [ms->nev]: the pass an event is shown from */
	unsigned int threads_per_core;
	double tsc_hz;
};

/* --format: the totals of every CPU online now, to stdout or -o's file. */
static int prom_output(const struct watch_ctx *w)
{
	const struct tool_prom m = {
		.format = w->o->format,
		.nr_events = w->e.nr,
		.name = w->e.name,
		.nr_cpus = w->nr_cpus,
		.cpu = w->cpu,
		.total = w->total,
		.counted = w->valid,
	};
	int ret;

	if (!w->o->output) {
		if (tool_prom_write(stdout, &m))
			return tool_fail("watch", "writing the output: %s", strerror(EIO));
		return 0;
	}
	ret = tool_prom_replace(w->o->output, &m);
	if (ret)
		return tool_fail("watch", "cannot replace %s: %s", w->o->output,
				 strerror(-ret));
	return 0;
}

static void print_row(const struct watch_ctx *w, double t, unsigned int c,
		      unsigned int i, const uint64_t *delta)
{
	const char *backend = tool_backend_name(w->info->backend);
	const char *x = w->o->sep;
	char ctr[16], val[32];

	tool_counter_name(w->e.ev[i].counter, ctr, sizeof(ctr));
	if (delta)
		snprintf(val, sizeof(val), "%llu", (unsigned long long)*delta);
	if (w->o->json) {
		printf("{\"time\":%.9f,\"cpu\":%u,\"event\":", t, w->cpu[c]);
		tool_json_str(stdout, w->e.name[i]);
		printf(",\"value\":%s,\"counter\":\"%s\",\"backend\":\"%s\"}\n",
		       delta ? val : "null", ctr, backend);
	} else if (x) {
		/* time,cpu,value,unit,event,counter,backend: no unit, as perf. */
		printf("%.9f%s%u%s%s%s%s%s%s%s%s%s\n", t, x, w->cpu[c], x,
		       delta ? val : "<not counted>", x, x, w->e.name[i], x, ctr,
		       x, backend);
	} else {
		printf("%16.9f  %4u  %18s  %s\n", t, w->cpu[c],
		       delta ? val : "<not counted>", w->e.name[i]);
	}
}

/*
 * READ CPU @c.  Return: 1 with @v filled, 0 when the CPU is offline
 * (ENODEV), -1 on failure (said).
 */
static int watch_read(struct watch_ctx *w, unsigned int c, uint64_t *v)
{
	int ret = pmuctl_read_values(w->p, (int)w->cpu[c], v, w->e.nr);

	if (ret == -ENODEV)
		return 0;
	if (ret < 0) {
		tool_fail("watch", "cannot read the counters of CPU %u: %s",
			  w->cpu[c], strerror(-ret));
		return -1;
	}
	return 1;
}

/* Sleep until @t0 + @ns; false when a signal asked to stop. */
static bool sleep_until(const struct timespec *t0, unsigned long long ns)
{
	struct timespec next;

	next.tv_sec = t0->tv_sec + (time_t)(ns / 1000000000ULL);
	next.tv_nsec = t0->tv_nsec + (long)(ns % 1000000000ULL);
	if (next.tv_nsec >= 1000000000L) {
		next.tv_sec++;
		next.tv_nsec -= 1000000000L;
	}
	while (!watch_stop &&
	       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
		;
	return !watch_stop;
}

static uint64_t ns_since(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (uint64_t)(b.tv_sec - a->tv_sec) * 1000000000ULL +
	       (uint64_t)(b.tv_nsec - a->tv_nsec);
}

/*
 * Zero and start the counters, note the time in @t0 and read every CPU
 * into prev (PMUCTL_MAX_EVENTS a CPU).  Return: 0, or EXIT_FAIL (said).
 */
static int watch_begin(struct watch_ctx *w, struct timespec *t0)
{
	int ret = pmuctl_reset(w->p);

	if (!ret)
		ret = pmuctl_start(w->p);
	if (ret)
		return tool_fail("watch", "cannot start counting: %s", strerror(-ret));
	clock_gettime(CLOCK_MONOTONIC, t0);
	for (unsigned int c = 0; c < w->nr_cpus; c++) {
		ret = watch_read(w, c, &w->prev[c * PMUCTL_MAX_EVENTS]);
		if (ret < 0)
			return EXIT_FAIL;
		w->valid[c] = ret;
	}
	return 0;
}

static int watch_loop(struct watch_ctx *w)
{
	uint64_t v[PMUCTL_MAX_EVENTS], d[PMUCTL_MAX_EVENTS];
	struct timespec t0;
	unsigned long long tick;
	int ret;

	if (watch_begin(w, &t0))
		return EXIT_FAIL;
	for (tick = 1; !w->o->count || tick <= w->o->count; tick++) {
		double t;

		if (!sleep_until(&t0, (unsigned long long)w->o->interval_ms *
				      1000000ULL * tick))
			break;
		t = (double)ns_since(&t0) / 1e9;
		for (unsigned int c = 0; c < w->nr_cpus; c++) {
			uint64_t *prev = &w->prev[c * PMUCTL_MAX_EVENTS];

			ret = watch_read(w, c, v);
			if (ret < 0)
				return EXIT_FAIL;
			for (unsigned int i = 0; i < w->e.nr; i++) {
				/*
				 * An interval that began or ended offline has
				 * no count: the CPU's counters were not counting
				 * the whole time.
				 */
				bool counted = ret && w->valid[c];

				d[i] = tool_event_delta(w->ctr, &w->e, i, prev, v);
				if (w->o->format && counted)
					w->total[c * w->e.nr + i] += d[i];
				else if (!w->o->format)
					print_row(w, t, c, i, counted ? &d[i] : NULL);
			}
			if (ret)
				memcpy(prev, v, sizeof(*v) * w->e.nr);
			w->valid[c] = ret;
		}
		if (w->o->format && prom_output(w))
			return EXIT_FAIL;
		if (fflush(stdout))
			return tool_fail("watch", "writing the output: %s", strerror(errno));
	}
	pmuctl_stop(w->p);
	return 0;
}

/* Pass @p's events into w->e, as the group to program. */
static void pass_events(struct watch_ctx *w, unsigned int p)
{
	const struct tool_mset *ms = w->ms;

	memset(&w->e, 0, sizeof(w->e));
	w->e.nr = ms->npass[p];
	for (unsigned int i = 0; i < w->e.nr; i++) {
		w->e.ev[i] = ms->ev[ms->pass[p][i]].ev;
		w->e.name[i] = ms->ev[ms->pass[p][i]].name;
	}
	w->pass = p;
}

/* The next pass in the group's place: one ioctl, one wave. */
static int next_pass(struct watch_ctx *w)
{
	struct pmuctl_error err;
	int ret;

	pass_events(w, (w->pass + 1) % w->ms->passes);
	ret = pmuctl_replace(w->p, w->e.ev, w->e.nr, &err);
	if (ret)
		return tool_program_explain("watch", ret, &err, &w->e);
	w->ctr = pmuctl_get_counters(w->p);
	return 0;
}

/* Where CPU @c's count of event @g in pass @p is; -1: not in that pass. */
static long slot(const struct watch_ctx *w, unsigned int c, unsigned int p,
		 unsigned int g)
{
	for (unsigned int i = 0; i < w->ms->npass[p]; i++)
		if (w->ms->pass[p][i] == g)
			return ((long)c * w->ms->passes + p) * PMUCTL_MAX_EVENTS + i;
	return -1;
}

static double share_of(const struct watch_ctx *w, unsigned int p, uint64_t ns)
{
	return ns ? (double)w->run_ns[p] / (double)ns : 0;
}

/*
 * An event's row of a passes or -M watch: @g in ms->ev, from its pass
 * (the first of those that count it), over an interval of @ns.
 */
static void print_mrow(const struct watch_ctx *w, double t, unsigned int c,
		       unsigned int g, uint64_t ns)
{
	unsigned int p = w->pass_of[g];
	long k = slot(w, c, p, g);
	const uint64_t *count = w->got[k] ? &w->cnt[k] : NULL;
	const char *x = w->o->sep, *name = w->ms->ev[g].name;
	const char *backend = tool_backend_name(w->info->backend);
	bool rot = w->ms->passes > 1;
	double share = share_of(w, p, ns);
	char val[32], est[32] = "", ctr[16];

	tool_counter_name(w->ecx[k], ctr, sizeof(ctr));
	if (count)
		snprintf(val, sizeof(val), "%llu", (unsigned long long)*count);
	if (count && rot && w->o->scale && share > 0)
		snprintf(est, sizeof(est), "%.0f", (double)*count / share);
	if (w->o->json) {
		printf("{\"time\":%.9f,\"cpu\":%u,\"event\":", t, w->cpu[c]);
		tool_json_str(stdout, name);
		printf(",\"value\":%s,\"counter\":\"%s\",\"backend\":\"%s\"",
		       count ? val : "null", ctr, backend);
		if (rot)
			printf(",\"pass\":%u,\"share\":%.2f", p + 1,
			       100 * share);
		if (rot && w->o->scale)
			printf(",\"scaled\":%s", est[0] ? est : "null");
		printf("}\n");
	} else if (x) {
		/* time,cpu,value,unit,event,counter,backend[,share,scaled] */
		printf("%.9f%s%u%s%s%s%s%s%s%s%s%s", t, x, w->cpu[c], x,
		       count ? val : "<not counted>", x, x, name, x, ctr, x,
		       backend);
		if (rot)
			printf("%s%.2f%s%s", x, 100 * share, x, est);
		printf("\n");
	} else {
		char shown[40];

		snprintf(shown, sizeof(shown), "%s%s", est[0] ? "~" : "",
			 est[0] ? est : count ? val : "<not counted>");
		printf("%16.9f  %4u  %18s  %s", t, w->cpu[c], shown, name);
		if (rot)
			printf("  (%.2f%%)", 100 * share);
		printf("\n");
	}
}

/* Metric @k on CPU @c from this interval's counts. */
static int mvalue(const struct watch_ctx *w, unsigned int c, unsigned int k,
		  double *v, char *msg, size_t len)
{
	const struct tool_mstate *st = &w->ms->st[k];
	const struct pmuctl_imetric *m = w->ms->m[k];
	struct pmuctl_metric_env env = {
		.threads_per_core = w->threads_per_core,
		.tsc_hz = w->tsc_hz,
	};
	double counts[256];

	if (st->why[0]) {
		snprintf(msg, len, "%s", st->why);
		return -ENOENT;
	}
	/* duration_time: the time of the metric's (first) pass. */
	env.duration_s = (double)w->run_ns[st->first] / 1e9;
	for (unsigned int j = 0; j < m->nevents; j++) {
		unsigned int g = st->evidx[j];
		long k = slot(w, c, st->first, g);

		/* From the metric's pass; one that mixes passes: its own. */
		if (k < 0)
			k = slot(w, c, w->pass_of[g], g);
		if (!w->got[k]) {
			snprintf(msg, len, "%s was not counted", w->ms->ev[g].name);
			return -ENODATA;
		}
		counts[j] = (double)w->cnt[k];
	}
	return pmuctl_metric_eval(m, counts, NULL, &env, v, msg, len);
}

static void print_metric(const struct watch_ctx *w, double t, unsigned int c,
			 unsigned int k)
{
	const char *name = pmuctl_metric_name(w->ms->m[k]), *x = w->o->sep;
	char unit[48], msg[256], val[32];
	bool ok;
	double v;

	ok = !mvalue(w, c, k, &v, msg, sizeof(msg));
	pmuctl_metric_attr(w->ms->m[k], 2, unit, sizeof(unit));
	snprintf(val, sizeof(val), "%.2f", ok ? v : 0);
	if (w->o->json) {
		printf("{\"time\":%.9f,\"cpu\":%u,\"metric\":", t, w->cpu[c]);
		tool_json_str(stdout, name);
		printf(",\"value\":%s,\"unit\":", ok ? val : "null");
		tool_json_str(stdout, unit);
		printf(",\"error\":");
		if (ok)
			printf("null");
		else
			tool_json_str(stdout, msg);
		printf("}\n");
	} else if (x) {
		/* The event rows' fields: the metric's name as the event's. */
		printf("%.9f%s%u%s%s%s%s%s%s%s%s%s", t, x, w->cpu[c], x,
		       ok ? val : "<not computed>", x, unit, x, name, x, x,
		       tool_backend_name(w->info->backend));
		if (w->ms->passes > 1)
			printf("%s%s", x, x);
		printf("\n");
	} else if (ok) {
		printf("%16.9f  %4u  %18s  %s%s%s\n", t, w->cpu[c], val, name,
		       unit[0] ? "  " : "", unit);
	} else {
		printf("%16.9f  %4u  %18s  %s  # not computed: %s\n", t, w->cpu[c],
		       "-", name, msg);
	}
}

/* Read every CPU into the interval's counts of the pass that ran. */
static int read_pass(struct watch_ctx *w, uint64_t slice_ns)
{
	uint64_t v[PMUCTL_MAX_EVENTS];
	long k;
	int ret;

	for (unsigned int c = 0; c < w->nr_cpus; c++) {
		uint64_t *prev = &w->prev[c * PMUCTL_MAX_EVENTS];

		ret = watch_read(w, c, v);
		if (ret < 0)
			return EXIT_FAIL;
		for (unsigned int i = 0; i < w->e.nr; i++) {
			k = ((long)c * w->ms->passes + w->pass) * PMUCTL_MAX_EVENTS + i;
			w->ecx[k] = w->ctr->ecx[i];
			/* A slice that began or ended offline has no count. */
			if (!ret || !w->valid[c])
				continue;
			w->cnt[k] = tool_event_delta(w->ctr, &w->e, i, prev, v);
			w->got[k] = true;
		}
		memcpy(prev, v, sizeof(*v) * w->e.nr);
		w->valid[c] = ret;
	}
	w->run_ns[w->pass] = slice_ns;
	return 0;
}

/*
 * Passes or -M: every interval in one slice per pass; after each slice
 * the CPUs are read and, with more than one pass, the next one replaces
 * the group, its counters zeroed (so prev is 0 for the next slice).
 */
static int watch_mloop(struct watch_ctx *w)
{
	const unsigned int nev = w->ms->nev, np = w->ms->passes;
	const unsigned long long slice = (unsigned long long)w->o->interval_ms *
					 1000000ULL / np;
	struct timespec t0, mark, start;
	unsigned long long tick;
	int ret;

	if (watch_begin(w, &t0))
		return EXIT_FAIL;
	start = t0;
	mark = t0;
	for (tick = 1; !w->o->count || tick <= w->o->count; tick++) {
		uint64_t ns;
		double t;

		memset(w->got, 0, sizeof(*w->got) * w->nr_cpus * np * PMUCTL_MAX_EVENTS);
		memset(w->run_ns, 0, sizeof(*w->run_ns) * np);
		for (unsigned int p = 0; p < np; p++) {
			if (!sleep_until(&t0, ((tick - 1) * np + p + 1) * slice))
				goto out;
			ret = read_pass(w, ns_since(&start));
			if (ret)
				return ret;
			if (np < 2)
				continue;
			ret = next_pass(w);
			if (ret)
				return ret;
			clock_gettime(CLOCK_MONOTONIC, &start);
			memset(w->prev, 0, sizeof(*w->prev) * w->nr_cpus * PMUCTL_MAX_EVENTS);
		}
		ns = ns_since(&mark);
		clock_gettime(CLOCK_MONOTONIC, &mark);
		t = (double)(mark.tv_sec - t0.tv_sec) +
		    (double)(mark.tv_nsec - t0.tv_nsec) / 1e9;
		for (unsigned int c = 0; c < w->nr_cpus; c++) {
			for (unsigned int g = 0; g < nev; g++)
				print_mrow(w, t, c, g, ns);
			for (unsigned int k = 0; k < w->ms->nm; k++)
				print_metric(w, t, c, k);
		}
		if (fflush(stdout))
			return tool_fail("watch", "writing the output: %s", strerror(errno));
	}
out:
	pmuctl_stop(w->p);
	return 0;
}

/*
 * -M, or -e events that need passes: w->ms, and w->e its first pass.
 * Return: 0 (w->ms NULL: one group of -e events, as ever), EXIT_*.
 */
static int watch_passes(struct watch_ctx *w)
{
	const struct pmuctl_model *model = pmuctl_model_by_id(w->info->pmu_model);
	const char *list = pmuctl_event_list(w->info->pmu_model);
	const struct watch_opts *o = w->o;
	unsigned int ok = 0, min_ms;
	int ret;

	if (o->metrics) {
		if (!model || !list)
			return tool_fail("watch", "no Intel metrics for this PMU (model %s): -M needs one of Intel's lists with metrics",
					 pmuctl_model_name(w->info->pmu_model));
		ret = tool_mset_build("watch", model, &w->info->caps, list,
				      pmuctl_model_name(w->info->pmu_model),
				      o->metrics, &w->ms);
		if (ret)
			return ret;
		for (unsigned int k = 0; k < w->ms->nm; k++) {
			if (!w->ms->st[k].why[0]) {
				ok++;
				continue;
			}
			fprintf(stderr, "pmuctl watch: note: metric %s cannot be computed here: %s\n",
				pmuctl_metric_name(w->ms->m[k]), w->ms->st[k].why);
		}
		if (!ok)
			return tool_fail("watch", "none of the metrics '%s' can be computed on this PMU (see the notes above)",
					 o->metrics);
		if (o->events && tool_mset_add(w->ms, w->e.ev, w->e.name, w->e.nr))
			return tool_fail("watch", "the metrics '%s' and the events need more than %d events: name fewer",
					 o->metrics, TOOL_MSET_EVENTS);
		w->threads_per_core = pmuctl_host_threads_per_core();
		w->tsc_hz = pmuctl_host_tsc_hz();
	} else if (model && w->e.nr > 1) {
		if (tool_mset_events(model, &w->info->caps, w->e.ev, w->e.name,
				     w->e.nr, &w->ms))
			return tool_fail("watch", "%s", strerror(ENOMEM));
		if (w->ms->passes <= 1) {
			tool_mset_free(w->ms);
			w->ms = NULL;
			return 0;
		}
	} else {
		return 0;
	}
	if (!w->ms->passes)
		return tool_fail("watch", "an event of '%s' fits no counter of this PMU alone: 'pmuctl check' says why",
				 o->events ? o->events : o->metrics);
	if (w->ms->nev > PMUCTL_MAX_EVENTS)
		return tool_fail("watch", "%u events, more than one report holds (%d): name fewer",
				 w->ms->nev, PMUCTL_MAX_EVENTS);
	min_ms = MIN_INTERVAL_MS * w->ms->passes;
	if (w->ms->passes > 1 && w->o->interval_ms < min_ms)
		return tool_usage_error("watch", "the events need %u passes, and -I %u gives each less than %d ms: use -I %u or more",
					w->ms->passes, w->o->interval_ms, MIN_INTERVAL_MS, min_ms);
	if (w->ms->passes > 1 && w->o->format)
		return tool_usage_error("watch", "the events need %u passes, and --format's counters must be exact: name events that fit in one pass, or use -x or --json",
					w->ms->passes);
	w->pass_of = calloc(w->ms->nev, sizeof(*w->pass_of));
	if (!w->pass_of)
		return tool_fail("watch", "%s", strerror(ENOMEM));
	/* An event in two passes (a metric's) is shown from its first. */
	for (unsigned int p = w->ms->passes; p-- > 0;)
		for (unsigned int i = 0; i < w->ms->npass[p]; i++)
			w->pass_of[w->ms->pass[p][i]] = p;
	pass_events(w, 0);
	return 0;
}

/* The CPUs to watch: @set holds -C's, else this process's affinity. */
static int watch_cpus(struct watch_ctx *w, cpu_set_t *set, size_t setsize)
{
	char list[64];
	int ret;

	if (!w->o->cpus) {
		ret = tool_affinity(set, setsize);
		if (ret)
			return tool_fail("watch", "cannot read this process's CPU affinity: %s",
					 strerror(-ret));
	}
	w->nr_cpus = (unsigned int)CPU_COUNT_S(setsize, set);
	w->cpu = calloc(w->nr_cpus, sizeof(*w->cpu));
	if (!w->cpu)
		return tool_fail("watch", "%s", strerror(ENOMEM));
	w->nr_cpus = 0;
	for (unsigned int c = 0; c < setsize * 8; c++)
		if (CPU_ISSET_S(c, setsize, set))
			w->cpu[w->nr_cpus++] = c;
	if (w->nr_cpus && w->cpu[w->nr_cpus - 1] >= w->info->nr_cpus) {
		snprintf(list, sizeof(list), "0-%u", w->info->nr_cpus - 1);
		return tool_usage_error("watch", "CPU %u does not exist: this system's CPU numbers are %s",
					w->cpu[w->nr_cpus - 1], list);
	}
	return 0;
}

int cmd_watch(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct watch_opts o;
	struct watch_ctx w = { .o = &o };
	char list[512];
	size_t setsize;
	cpu_set_t *set;
	int ret;

	ret = watch_parse(argc, argv, &o);
	if (ret)
		return ret < 0 ? 0 : ret;
	set = tool_cpuset_alloc(&setsize);
	if (!set)
		return tool_fail("watch", "%s", strerror(ENOMEM));
	/* A bad -C is a usage error even without a device. */
	if (o.cpus) {
		ret = tool_cpulist_parse(o.cpus, set, setsize, list, sizeof(list));
		if (ret) {
			CPU_FREE(set);
			return tool_usage_error("watch", "%s", list);
		}
	}
	if (tool_open("watch", &w.p)) {
		CPU_FREE(set);
		return EXIT_FAIL;
	}
	w.info = pmuctl_get_info(w.p);
	ret = watch_cpus(&w, set, setsize);
	if (!ret && (o.events || !o.metrics))
		ret = tool_events_get("watch", w.info, o.events, &w.e);
	if (!ret)
		ret = watch_passes(&w);
	if (!ret)
		ret = tool_program("watch", w.p, &w.e, set, setsize);
	if (ret)
		goto out;
	w.ctr = pmuctl_get_counters(w.p);
	w.prev = calloc((size_t)w.nr_cpus * PMUCTL_MAX_EVENTS, sizeof(*w.prev));
	w.valid = calloc(w.nr_cpus, sizeof(*w.valid));
	w.total = calloc((size_t)w.nr_cpus * PMUCTL_MAX_EVENTS, sizeof(*w.total));
	if (w.ms) {
		size_t slots = (size_t)w.nr_cpus * w.ms->passes * PMUCTL_MAX_EVENTS;

		w.cnt = calloc(slots, sizeof(*w.cnt));
		w.got = calloc(slots, sizeof(*w.got));
		w.ecx = calloc(slots, sizeof(*w.ecx));
		w.run_ns = calloc(w.ms->passes, sizeof(*w.run_ns));
	}
	if (!w.prev || !w.valid || !w.total ||
	    (w.ms && (!w.cnt || !w.got || !w.ecx || !w.run_ns))) {
		ret = tool_fail("watch", "%s", strerror(ENOMEM));
		goto out;
	}

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (!o.json && !o.sep && !o.format) {
		printf("# pmuctl watch: CPUs %s, every %u ms, system-wide\n",
		       tool_cpulist_format(set, setsize, list, sizeof(list)),
		       o.interval_ms);
		if (w.ms && w.ms->passes > 1)
			printf("# %u events in %u passes, each counted %u ms of every interval: counts are of that share, shown as (NN.NN%%)%s\n",
			       w.ms->nev, w.ms->passes, o.interval_ms / w.ms->passes,
			       o.scale ? "; ~N: scaled to the interval, an estimate" : "");
		if (w.info->backend == PMUCTL_BACKEND_MODEL)
			printf("# %s\n", TOOL_MODEL_NOTE);
		printf("#%15s  %4s  %18s  %s\n", "time", "cpu", "counts", "event");
	}
	ret = w.ms ? watch_mloop(&w) : watch_loop(&w);
out:
	pmuctl_close(w.p);
	tool_mset_free(w.ms);
	free(w.cnt);
	free(w.got);
	free(w.run_ns);
	free(w.ecx);
	free(w.pass_of);
	free(w.prev);
	free(w.valid);
	free(w.total);
	free(w.cpu);
	CPU_FREE(set);
	return ret;
}
