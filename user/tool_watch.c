// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctl watch: per-CPU counts at an interval, system-wide.  One group on
 * every watched CPU (the same counters everywhere, one PROGRAM); at each
 * tick one PMUCTL_IOC_READ per CPU, and the count of the interval is the
 * difference from the previous READ masked to the counter's width.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tool.h"

#define MIN_INTERVAL_MS	10
#define MAX_INTERVAL_MS	3600000

void watch_usage(FILE *f)
{
	fputs("usage: pmuctl watch [-e EVENT,...] [-C CPUS] [-I MS] [-n COUNT]\n"
	      "                    [-x SEP | --json | --format FMT [-o FILE]]\n"
	      "\n"
	      "Count events on CPUs, system-wide (every task that runs there), and\n"
	      "print each CPU's counts at every interval, until COUNT intervals have\n"
	      "passed or SIGINT/SIGTERM.\n"
	      "\n"
	      "  -e, --events LIST   events, as for pmuctl stat (default: its defaults)\n"
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
	      "'<not counted>' (JSON null) while the CPU is offline.\n"
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
	while ((opt = getopt_long(argc, argv, ":e:C:I:n:x:jo:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'e':
			if (tool_events_syntax("watch", optarg))
				return EXIT_USAGE;
			o->events = optarg;
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
 * (ENODEV), -errno on failure.
 */
static int watch_read(struct watch_ctx *w, unsigned int c, uint64_t *v)
{
	int ret = pmuctl_read_values(w->p, (int)w->cpu[c], v, w->e.nr);

	if (ret == -ENODEV)
		return 0;
	return ret < 0 ? ret : 1;
}

static int watch_loop(struct watch_ctx *w)
{
	struct timespec t0, next, now;
	uint64_t v[PMUCTL_MAX_EVENTS], d[PMUCTL_MAX_EVENTS];
	unsigned long long tick;
	int ret;

	ret = pmuctl_reset(w->p);
	if (!ret)
		ret = pmuctl_start(w->p);
	if (ret)
		return tool_fail("watch", "cannot start counting: %s", strerror(-ret));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned int c = 0; c < w->nr_cpus; c++) {
		ret = watch_read(w, c, &w->prev[c * w->e.nr]);
		if (ret < 0)
			return tool_fail("watch", "cannot read the counters of CPU %u: %s",
					 w->cpu[c], strerror(-ret));
		w->valid[c] = ret;
	}

	for (tick = 1; !w->o->count || tick <= w->o->count; tick++) {
		unsigned long long ns = (unsigned long long)w->o->interval_ms * 1000000ULL * tick;
		double t;

		next.tv_sec = t0.tv_sec + (time_t)(ns / 1000000000ULL);
		next.tv_nsec = t0.tv_nsec + (long)(ns % 1000000000ULL);
		if (next.tv_nsec >= 1000000000L) {
			next.tv_sec++;
			next.tv_nsec -= 1000000000L;
		}
		while (!watch_stop &&
		       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
		if (watch_stop)
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		t = (double)(now.tv_sec - t0.tv_sec) +
		    (double)(now.tv_nsec - t0.tv_nsec) / 1e9;
		for (unsigned int c = 0; c < w->nr_cpus; c++) {
			uint64_t *prev = &w->prev[c * w->e.nr];

			ret = watch_read(w, c, v);
			if (ret < 0)
				return tool_fail("watch", "cannot read the counters of CPU %u: %s",
						 w->cpu[c], strerror(-ret));
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
	if (!ret)
		ret = tool_events_get("watch", w.info, o.events, &w.e);
	if (!ret)
		ret = tool_program("watch", w.p, &w.e, set, setsize);
	if (ret)
		goto out;
	w.ctr = pmuctl_get_counters(w.p);
	w.prev = calloc((size_t)w.nr_cpus * w.e.nr, sizeof(*w.prev));
	w.valid = calloc(w.nr_cpus, sizeof(*w.valid));
	w.total = calloc((size_t)w.nr_cpus * w.e.nr, sizeof(*w.total));
	if (!w.prev || !w.valid || !w.total) {
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
		if (w.info->backend == PMUCTL_BACKEND_MODEL)
			printf("# %s\n", TOOL_MODEL_NOTE);
		printf("#%15s  %4s  %18s  %s\n", "time", "cpu", "counts", "event");
	}
	ret = watch_loop(&w);
out:
	pmuctl_close(w.p);
	free(w.prev);
	free(w.valid);
	free(w.total);
	free(w.cpu);
	CPU_FREE(set);
	return ret;
}
