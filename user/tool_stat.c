// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctl stat: count events while a command runs.
 *
 * Task mode (the default where the module has task scope): the command's
 * threads and the processes it starts are counted wherever they run.
 * The session is opened before the fork and shared by pmuctl and its
 * child; the child PROGRAMs it with PMUCTL_PROGRAM_TASK | INHERIT |
 * ENABLE_ON_EXEC and sends the outcome back on a pipe (a refusal is
 * printed by pmuctl, naming the rule and the event), then execs: the
 * kernel starts counting at that exec, so nothing of pmuctl's is
 * counted, without ptrace or pinning.  pmuctl waits for the command,
 * STOPs, READs the session's 64-bit totals (its nr_lost is said on
 * stderr) and RELEASEs; each run of -r programs afresh.  --per-thread
 * also asks the module for the counts per thread (PMUCTL_IOC_THREADS)
 * before the RELEASE, and reports them sorted by tid, then the totals;
 * it takes one run (the threads of two runs are not the same threads)
 * and task scope (-C counts a CPU, not threads): usage errors otherwise.
 *
 * CPU mode (-C CPU, or a module without task scope): the group is
 * programmed on one CPU, the command's affinity is set to that CPU alone,
 * and whatever else runs there is counted too.  The report says so in its
 * first line.
 *
 * A run in CPU mode: fork the command, pinned; it execs and the kernel stops it at
 * the end of its exec, before its first instruction (ptrace: the parent
 * PTRACE_SEIZEs it with PTRACE_O_TRACEEXEC); then RESET, READ (the
 * baseline), START, and PTRACE_DETACH: the command runs untraced and is
 * counted from its first instruction, as perf stat counts with
 * enable_on_exec.  READ once a second while it runs, STOP when it has
 * exited, READ.  The count of an event is the sum of the differences of
 * successive READs, each masked to the counter's width, so a counter that
 * wraps while the command runs (2^40 events on KNL/KNM: minutes at full
 * speed) is still counted right; with no wrap it is the last READ minus
 * the baseline.  Nothing else goes into a count: under the test register
 * model, which counts nothing, the counts are whatever the registers were
 * set to.
 *
 * Where the command cannot be held at its exec, counting starts just
 * before it (the "plain" launch), and the counts include the end of
 * pmuctl's launch in the child (about 60 user-mode instructions on the
 * counted CPU, more when execvp() searches $PATH): where ptrace is
 * refused (pmuctl itself traced or given file capabilities,
 * kernel.yama.ptrace_scope, seccomp, an LSM), said once on stderr; for a set-user-ID, set-group-ID or
 * file-capability executable, which an exec under ptrace would deprive
 * of its privileges, said once on stderr too; and for a run whose
 * command got a stop signal (^Z) before its exec.
 * The table says "counted from before the exec" and the JSON summary
 * "launch":"plain" then.  user/tool_launch.c has the details.  The
 * command's exit status and signals are its own either way.
 *
 * Passes (-M, and -e lists longer than the PMU counts at once): the
 * events are split by the core's own scheduler (user/tool_metrics.c) and
 * each pass is a PROGRAM and its -r runs of the command as above; the
 * report has every event's count from its pass and each metric computed
 * from them (stat_passes()).  Nothing is scaled.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core.h"
#include "tool.h"

/* READ this often while the command runs: far below any counter's wrap. */
#define POLL_SECONDS	1
#define MAX_RUNS	100000

/* The table's line when a run was counted from before the command's exec. */
#define STAT_PLAIN_NOTE \
	"counted from before the exec (plain launch): the counts include the end of pmuctl's launch"

void stat_usage(FILE *f)
{
	fputs("usage: pmuctl stat [-e EVENT,... | -M METRIC,...] [--no-passes]\n"
	      "                   [--all-user] [-C CPU | --per-thread | --regions]\n"
	      "                   [-r N]\n"
	      "                   [-x SEP | --json] [-o FILE] [--] COMMAND [ARGS]...\n"
	      "\n"
	      "Count events while COMMAND runs: by default its threads and the\n"
	      "processes it starts, wherever they run (task scope); with -C, one CPU\n"
	      "with COMMAND pinned to it, counting everything that runs there.\n"
	      "\n"
	      "  -e, --events LIST   events, comma-separated (more than the PMU counts\n"
	      "                      at once go in passes, as for -M; nothing is\n"
	      "                      scaled): Intel's names of the\n"
	      "                      model's list (mem_load_retired.l3_miss:u),\n"
	      "                      libpfm4 names of the module's PMU ('pmuctl\n"
	      "                      list' shows both), raw\n"
	      "                      r<config>[:<extra>] in hex, or perf's names\n"
	      "                      (the defaults below, bus-cycles,\n"
	      "                      cache-references, cache-misses) with :u, :k or\n"
	      "                      neither (both levels), as 'pmuctl check' takes\n"
	      "                      them.\n"
	      "                      Default: instructions, cycles, ref-cycles (fixed\n"
	      "                      counters), branches, branch-misses (generic\n"
	      "                      counters left), those this PMU has, at user and\n"
	      "                      kernel level (where an unprivileged session may\n"
	      "                      not count kernel mode, user level only, named\n"
	      "                      NAME:u), and where PERF_METRICS gives them\n"
	      "                      beside these in one pass (Ice Lake and later),\n"
	      "                      the TopdownL1 metrics, as perf stat does; not\n"
	      "                      with per-thread counts\n"
	      "  -M, --metrics LIST  Intel's metrics of the module's model, by name or\n"
	      "                      group, comma-separated ('pmuctl list --metrics':\n"
	      "                      Info_Thread_IPC, TopdownL1, TopdownL2...): their\n"
	      "                      events are counted and each metric computed from\n"
	      "                      them, exactly as Intel's formula says; one that\n"
	      "                      pmuctl cannot compute gets a note.  Events that\n"
	      "                      cannot be counted at once go in passes: COMMAND\n"
	      "                      runs once per pass (the table says how many; a\n"
	      "                      metric whose own events need several says it\n"
	      "                      mixes passes); 'pmuctl check -M' shows them\n"
	      "      --no-passes     refuse -M metrics, or -e events, that need more\n"
	      "                      than one pass, before COMMAND runs\n"
	      "      --all-user      count every event (those of -e, of -M, the\n"
	      "                      defaults) in user mode only, as perf stat's\n"
	      "                      option of that name\n"
	      "  -C, --cpu CPU       count CPU CPU (CPU scope) and pin COMMAND there,\n"
	      "                      in place of counting COMMAND's threads\n"
	      "  -r, --repeat N      run COMMAND N times; print means and the relative\n"
	      "                      standard error of each mean, ( +- P% )\n"
	      "      --per-thread    also report each thread's counts (task scope only:\n"
	      "                      not with -C; one run: not with -r N > 1)\n"
	      "      --regions       also report the regions COMMAND marks with\n"
	      "                      libpmuctl (pmuctl_regions_env(3)): per region and\n"
	      "                      thread, its calls and each event's count (task\n"
	      "                      scope, one run, one pass: not with -C, -r N > 1,\n"
	      "                      --per-thread or -M)\n"
	      "  -x, --field-separator SEP   CSV output, one line per event:\n"
	      "                      value,unit,event,cpu,counter,stddev%,metric-value,\n"
	      "                      metric-unit,backend (cpu empty without -C)\n"
	      "  -j, --json          JSON Lines: one object per event with the keys\n"
	      "                      type (\"event\"), event, value, counter, cpu (null\n"
	      "                      without -C), runs, stddev_pct, metric_value,\n"
	      "                      metric_unit, backend; then one object with type\n"
	      "                      \"summary\", scope (\"task\" or \"cpu\"), cpu, command,\n"
	      "                      runs, elapsed_s, exit_status, signal, lost_threads,\n"
	      "                      launch (\"exact\" or \"plain\"), failed_runs, backend\n"
	      "  -o, --output FILE   write the report to FILE instead of stderr\n"
	      "  -h, --help          show this help\n"
	      "\n"
	      "--per-thread: after COMMAND has exited, pmuctl asks the module for the\n"
	      "counts of each thread it counted (exited ones included), in the same\n"
	      "run.  The table then has, in place of the event lines, the columns TID\n"
	      "and PID (the thread's process) and one column per event, a row per\n"
	      "thread sorted by TID ('(still running)' after one that outlived\n"
	      "COMMAND), and a row 'total' with the session's totals; CSV has two\n"
	      "more fields, tid,pid: one line per thread and event, then the totals'\n"
	      "lines with both empty; the JSON summary has \"threads\", an array of\n"
	      "{\"tid\",\"pid\",\"running\",\"values\"} (values in event order), and\n"
	      "\"dropped_threads\".  Threads that exited beyond the module's\n"
	      "task_max_threads have no entry of their own: a note says how many, and\n"
	      "their counts are only in the total.  A tid not visible in pmuctl's pid\n"
	      "namespace is '-' (CSV: empty, JSON: null).\n"
	      "\n"
	      "--regions: the child hands COMMAND the session (its file, kept open\n"
	      "across the exec) and the group's description in the environment\n"
	      "($PMUCTL_REGIONS, $PMUCTL_REGIONS_EVENTS); COMMAND's libpmuctl\n"
	      "(pmuctl_regions_env()) counts its regions per thread with rdpmc and\n"
	      "writes them back at its exit(3).  After the report: the line\n"
	      "' Regions (...)', then per region ' Region 'NAME'', a header and a row\n"
	      "per thread: thread, calls, each event's sum, IPC (where instructions\n"
	      "and cycles are counted), then '(open N deep)' and '(N reads emulated)'\n"
	      "where they apply, and a line ' misuses: KIND=N ...' when there were\n"
	      "any.  -x SEP: the library's CSV (header region,thread,calls,\n"
	      "emulated_reads,open,EVENT...,IPC, a line per row, '# misuse ...');\n"
	      "--json: its objects {\"type\":\"region\",...} and {\"type\":\"misuse\",...}.\n"
	      "A COMMAND that reports no regions gets a note.\n"
	      "\n"
	      "Without -C (task scope): the child pmuctl forks programs the session it\n"
	      "shares with pmuctl to count itself and everything it creates, then\n"
	      "execs COMMAND; the kernel starts counting at that exec, so none of\n"
	      "pmuctl's instructions are counted, and each thread is counted only\n"
	      "while it runs, on any CPU.  When COMMAND has exited, pmuctl reads the\n"
	      "totals (64 bits).  Unprivileged users may count their commands so\n"
	      "when the module's paranoid level is 2 or less (at 2, user mode only).\n"
	      "A note on stderr says when threads could not be counted (the module's\n"
	      "task_max_threads) or still ran after COMMAND exited.  A set-user-ID,\n"
	      "set-group-ID or file-capability COMMAND is not counted this way (the\n"
	      "module stops counting at such an exec, as perf does): a note says so.\n"
	      "Where the module has no task scope, pmuctl counts a CPU as with -C (the\n"
	      "highest-numbered one this process may run on) and a note says so.\n"
	      "\n"
	      "With -C: COMMAND is counted from its first instruction: pmuctl holds it\n"
	      "at its exec (ptrace) and starts counting there.  Where that cannot be\n"
	      "(ptrace refused; a set-user-ID, set-group-ID or file-capability\n"
	      "COMMAND, whose exec under ptrace would drop its privileges), counting\n"
	      "starts just before the exec, a note on stderr says why, and the counts\n"
	      "include the end of pmuctl's launch (about 60 user-mode instructions,\n"
	      "more when execvp() searches PATH).\n"
	      "\n"
	      "The report goes to stderr, as perf stat's does, so COMMAND keeps stdout.\n"
	      "Table: the line ' Performance counter stats for 'COMMAND':' (with -C:\n"
	      "' Performance counter stats for CPU N, while 'COMMAND' ran pinned\n"
	      "there:'), with ' (N runs)' before the colon when -r > 1; when\n"
	      "the module is its test build, the line ' register model backend: ...';\n"
	      "when a run was counted from before the exec, the line ' counted from\n"
	      "before the exec (plain launch): ...';\n"
	      "one line per event, '%18s  %-28s' VALUE EVENT, then '  # METRIC UNIT'\n"
	      "and '  ( +- P% )' when there are; '%17.9f seconds time elapsed'; and\n"
	      "when COMMAND failed, a line saying how.  Metrics: insn per cycle (on\n"
	      "the instructions line, with cycles), % of all branches (on\n"
	      "branch-misses), and on KNL/KNM the average offcore latency in cycles\n"
	      "(on an OFFCORE_RESPONSE_0 :OUTSTANDING line, with an ANY_RESPONSE event\n"
	      "of the same requests); shown only when the divisor is not zero.\n"
	      "Values are plain integers: the counts READ gave (means with -r).\n"
	      "With -M, after the events, a line per metric: '%18.2f  NAME  UNIT'\n"
	      "(the value from the means of its events' counts; DURATION constants\n"
	      "are its pass's time), or '-  NAME  # unavailable: WHY' / '# not\n"
	      "computed: WHY' (a division by zero, a value the run does not give);\n"
	      "CSV: a line per metric with empty value, unit and counter fields and\n"
	      "the metric-value and metric-unit fields; JSON: an object per metric\n"
	      "{\"type\":\"metric\",\"metric\",\"value\",\"unit\",\"passes\",\"error\"}\n"
	      "and \"passes\" in the summary.\n"
	      "\n"
	      "Exit status: 0 counting succeeded, whatever COMMAND's own exit status\n"
	      "(which the report gives); 1 failure (device, events, COMMAND could not\n"
	      "be started, a READ failed); 2 usage error.\n", f);
}

struct stat_opts {
	const char *events;
	const char *metrics;		/* -M */
	bool no_passes;			/* --no-passes */
	bool all_user;			/* --all-user */
	int cpu;			/* -1: default */
	unsigned int runs;
	const char *sep;		/* -x */
	bool json;
	bool per_thread;		/* --per-thread */
	bool regions;			/* --regions */
	const char *output;
	char **argv;			/* the command */
};

/* Sums over runs: mean and spread of each event and of the time. */
struct stat_acc {
	unsigned int runs;
	long double sum[PMUCTL_MAX_EVENTS];
	long double sumsq[PMUCTL_MAX_EVENTS];
	long double t_sum, t_sumsq;
	unsigned int failed_runs;
	unsigned int plain_runs;	/* runs counted from before the exec */
	unsigned long long lost;	/* task mode: threads not counted, all runs */
	int last_status;		/* of the last run, as waitpid() gave it */
	int fail_status;		/* of the last run that failed */
	bool interrupted;		/* ^C at the command: no more runs */
};

/* What the child sends back after its PROGRAM (task mode). */
struct stat_task_result {
	struct pmuctl_error err;
	struct pmuctl_event ev[PMUCTL_MAX_EVENTS];
	bool user_only;			/* the defaults were made user mode */
};

struct stat_ctx {
	const struct stat_opts *o;
	struct pmuctl *p;
	const struct pmuctl_info *info;
	struct tool_events e;
	const struct pmuctl_counters *ctr;
	int cpu;
	cpu_set_t *cpuset;		/* {cpu} */
	size_t setsize;
	char cmdline[512];
	FILE *out;
	bool plain;			/* launch plainly: set-ID, or ptrace refused */
	bool noted;			/* the note on a plain launch was printed */
	bool task;			/* count the command's threads (task scope) */
	struct stat_task_result res;	/* task mode: the child's PROGRAM */
	/* --per-thread: the module's entries, and them sorted by tid */
	struct pmuctl_thread *th;
	struct pmuctl_thread **sorted;
	uint32_t nr_th;
	uint32_t th_dropped;		/* threads without an entry */
	/* -M: the metrics, and per pass the mean time of its runs */
	struct tool_mset *ms;
	double pass_secs[TOOL_MSET_PASSES];
	unsigned int threads_per_core;
	double tsc_hz;			/* CPUID 15H's, 0: unknown */
	int regions_fd;			/* --regions: the command's report */
};

static int stat_parse(int argc, char **argv, struct stat_opts *o)
{
	static const struct option opts[] = {
		{ "events",          required_argument, NULL, 'e' },
		{ "cpu",             required_argument, NULL, 'C' },
		{ "repeat",          required_argument, NULL, 'r' },
		{ "field-separator", required_argument, NULL, 'x' },
		{ "json",            no_argument,       NULL, 'j' },
		{ "output",          required_argument, NULL, 'o' },
		{ "per-thread",      no_argument,       NULL, 'T' },
		{ "metrics",         required_argument, NULL, 'M' },
		{ "no-passes",       no_argument,       NULL, 'P' },
		{ "all-user",        no_argument,       NULL, 'U' },
		{ "regions",         no_argument,       NULL, 'G' },
		{ "help",            no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long long v;
	int opt;

	memset(o, 0, sizeof(*o));
	o->cpu = -1;
	o->runs = 1;
	opterr = 0;
	optind = 1;
	/* '+': stop at COMMAND, whose own options are not ours. */
	while ((opt = getopt_long(argc, argv, "+:e:C:r:x:jo:M:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'e':
			if (tool_events_syntax("stat", optarg))
				return EXIT_USAGE;
			o->events = optarg;
			break;
		case 'C':
			if (tool_parse_uint(optarg, 0, TOOL_MAX_CPUS - 1, &v))
				return tool_usage_error("stat", "bad CPU '%s': one CPU number (for several CPUs, use pmuctl watch)",
							optarg);
			o->cpu = (int)v;
			break;
		case 'r':
			if (tool_parse_uint(optarg, 1, MAX_RUNS, &v))
				return tool_usage_error("stat", "bad repeat count '%s': a number from 1 to %d",
							optarg, MAX_RUNS);
			o->runs = (unsigned int)v;
			break;
		case 'x':
			if (!*optarg)
				return tool_usage_error("stat", "empty field separator: give e.g. -x ,");
			o->sep = optarg;
			break;
		case 'j':
			o->json = true;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'T':	/* long only: 'T' is not in the short options */
			o->per_thread = true;
			break;
		case 'M':
			if (!*optarg || strstr(optarg, ",,") || *optarg == ',' ||
			    optarg[strlen(optarg) - 1] == ',')
				return tool_usage_error("stat", "bad metric list '%s': NAME|GROUP[,...]",
							optarg);
			o->metrics = optarg;
			break;
		case 'P':	/* long only */
			o->no_passes = true;
			break;
		case 'U':	/* long only */
			o->all_user = true;
			break;
		case 'G':	/* long only */
			o->regions = true;
			break;
		case 'h':
			stat_usage(stdout);
			return -1;
		case ':':
			return tool_usage_error("stat", "option '%s' needs a value",
						argv[optind - 1]);
		default:
			return tool_usage_error("stat", "unknown option '%s'",
						argv[optind - 1]);
		}
	}
	if (o->sep && o->json)
		return tool_usage_error("stat", "-x and --json exclude each other: pick one output format");
	if (o->metrics && o->events)
		return tool_usage_error("stat", "-M and -e exclude each other: a metric brings its own events (see them with 'pmuctl check -M')");

	/* As perf stat refuses --per-thread where it counts CPUs. */
	if (o->per_thread && o->cpu >= 0)
		return tool_usage_error("stat", "--per-thread and -C exclude each other: --per-thread counts the command's threads (task scope), -C CPU counts a CPU; drop one");
	if (o->per_thread && o->runs > 1)
		return tool_usage_error("stat", "--per-thread and -r %u exclude each other: each run has threads of its own, so --per-thread reports one run; drop one",
					o->runs);
	if (o->regions && o->cpu >= 0)
		return tool_usage_error("stat", "--regions and -C exclude each other: the regions are the command's threads' (task scope); drop -C");
	if (o->regions && o->runs > 1)
		return tool_usage_error("stat", "--regions and -r %u exclude each other: --regions reports one run; drop -r",
					o->runs);
	if (o->regions && o->per_thread)
		return tool_usage_error("stat", "--regions and --per-thread exclude each other: the regions are reported per thread already; drop --per-thread");
	if (o->regions && o->metrics)
		return tool_usage_error("stat", "--regions reports each region's events and IPC; -M metrics are not computed per region: give their events with -e");
	if (optind >= argc)
		return tool_usage_error("stat", "no command to run: pmuctl stat [OPTIONS] -- COMMAND [ARGS]");
	o->argv = argv + optind;
	return 0;
}

/* The highest-numbered CPU of @set. */
static int highest_cpu(const cpu_set_t *set, size_t setsize)
{
	for (int c = (int)(setsize * 8) - 1; c >= 0; c--)
		if (CPU_ISSET_S((unsigned int)c, setsize, set))
			return c;
	return -1;
}

static int stat_pick_cpu(struct stat_ctx *s, cpu_set_t *aff)
{
	char list[256];
	int ret;

	ret = tool_affinity(aff, s->setsize);
	if (ret)
		return tool_fail("stat", "cannot read this process's CPU affinity: %s",
				 strerror(-ret));
	if (s->o->cpu < 0) {
		s->cpu = highest_cpu(aff, s->setsize);
		if (s->cpu < 0)
			return tool_fail("stat", "this process may run on no CPU");
		return 0;
	}
	if (!CPU_ISSET_S((unsigned int)s->o->cpu, s->setsize, aff))
		return tool_usage_error("stat", "CPU %d is not one this process may run on (%s): pick one of those",
					s->o->cpu, tool_cpulist_format(aff, s->setsize,
								       list, sizeof(list)));
	s->cpu = s->o->cpu;
	return 0;
}

static void join_argv(char **argv, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (; *argv && used < len; argv++) {
		int n = snprintf(buf + used, len - used, "%s%s", used ? " " : "", *argv);

		if (n < 0)
			break;
		used += (size_t)n;
	}
}

/* Add what each counter counted since @prev, masked to its width. */
static int stat_read(struct stat_ctx *s, uint64_t *prev, uint64_t *count)
{
	uint64_t v[PMUCTL_MAX_EVENTS];
	int ret;

	ret = pmuctl_read_values(s->p, s->cpu, v, s->e.nr);
	if (ret < 0)
		return ret;
	for (unsigned int i = 0; i < s->e.nr; i++)
		count[i] += tool_event_delta(s->ctr, &s->e, i, prev, v);
	memcpy(prev, v, sizeof(*v) * s->e.nr);
	return 0;
}

static double elapsed(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/* What the launch's start() needs: the run's baseline and clock. */
struct stat_begin {
	struct stat_ctx *s;
	const struct tool_launch *l;
	uint64_t *prev;
	struct timespec *t0;
};

static void stat_note_plain(struct stat_ctx *s, const char *why);

/* RESET, READ the baseline, START: the count begins here. */
static int stat_begin(void *arg)
{
	struct stat_begin *b = arg;
	char why[512];
	int ret;

	if (b->l->trace_err) {
		/* Refused once, refused again: the next runs launch plainly. */
		b->s->plain = true;
		snprintf(why, sizeof(why), "cannot hold '%s' at its exec (ptrace: %s: is pmuctl traced or given file capabilities, or do kernel.yama.ptrace_scope, seccomp or a security module forbid it?)",
			 b->s->o->argv[0], strerror(b->l->trace_err));
		stat_note_plain(b->s, why);
	}
	ret = pmuctl_reset(b->s->p);

	if (!ret) {
		ret = pmuctl_read_values(b->s->p, b->s->cpu, b->prev, b->s->e.nr);
		ret = ret < 0 ? ret : 0;
	}
	if (!ret)
		ret = pmuctl_start(b->s->p);
	clock_gettime(CLOCK_MONOTONIC, b->t0);
	return ret;
}

/* Once per pmuctl stat: why the counts include pmuctl's launch. */
static void stat_note_plain(struct stat_ctx *s, const char *why)
{
	if (s->noted)
		return;
	s->noted = true;
	fprintf(stderr, "pmuctl stat: note: %s; so counting starts before its exec, and the counts include the last instructions of pmuctl's launch on CPU %d (about 60 in user mode)\n",
		why, s->cpu);
}

/*
 * One run of the command.  @count gets the counts, *@status its wait
 * status, *@exact whether the count began at its first instruction.
 * SIGINT and SIGQUIT are the command's while it runs (pmuctl ignores
 * them, as system(3) does), so ^C ends the command, not the count.
 */
static int stat_run(struct stat_ctx *s, uint64_t *count, int *status, double *secs,
		    bool *exact)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_quit;
	uint64_t prev[PMUCTL_MAX_EVENTS];
	struct timespec t0 = { 0, 0 }, t1, tick = { POLL_SECONDS, 0 };
	struct tool_launch l;
	struct stat_begin b = { s, &l, prev, &t0 };
	sigset_t chld, old_mask;
	int read_err = 0, ret, run_err;

	memset(count, 0, sizeof(*count) * s->e.nr);
	memset(&l, 0, sizeof(l));
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old_mask);
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	l.argv = s->o->argv;
	l.cpuset = s->cpuset;
	l.setsize = s->setsize;
	l.mask = &old_mask;
	l.sigint = &old_int;
	l.sigquit = &old_quit;
	l.plain = s->plain;
	l.start = stat_begin;
	l.arg = &b;
	ret = tool_launch(&l);
	if (!ret && l.ended) {
		*status = l.status;
	} else if (!ret) {
		for (;;) {
			pid_t w = waitpid(l.pid, status, WNOHANG);

			if (w == l.pid || (w < 0 && errno != EINTR))
				break;
			if (sigtimedwait(&chld, NULL, &tick) < 0 && errno == EAGAIN &&
			    !read_err)
				read_err = stat_read(s, prev, count);
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	sigprocmask(SIG_SETMASK, &old_mask, NULL);

	run_err = tool_launch_end(&l);
	if (l.started)
		pmuctl_stop(s->p);
	if (ret && l.failed && !strcmp(l.failed, "start"))
		return tool_fail("stat", "cannot start counting on CPU %d: %s",
				 s->cpu, strerror(-ret));
	if (ret)
		return tool_fail("stat", "cannot start '%s': %s: %s", s->o->argv[0],
				 l.failed ? l.failed : "launch", strerror(-ret));
	if (run_err && !strcmp(l.failed, "exec"))
		return tool_fail("stat", "cannot run '%s': %s", s->o->argv[0],
				 strerror(-run_err));
	if (run_err)
		return tool_fail("stat", "cannot run '%s' on CPU %d: %s: %s",
				 s->o->argv[0], s->cpu, l.failed, strerror(-run_err));
	/* Gone before its exec (SIGKILL): it ran nothing, so nothing counted. */
	if (l.started && !read_err)
		read_err = stat_read(s, prev, count);
	if (read_err)
		return tool_fail("stat", "cannot read the counters of CPU %d: %s%s",
				 s->cpu, strerror(-read_err), read_err == -ENODEV ?
				 " (the CPU went offline while the command ran)" : "");
	*secs = l.started ? elapsed(&t0, &t1) : 0;
	*exact = l.how == TOOL_LAUNCH_EXACT;
	return 0;
}

/*
 * --regions, in the child after its PROGRAM: the session's file without
 * close-on-exec, and what the command's libpmuctl needs to read the group
 * (pmuctl_regions_env()): $PMUCTL_REGIONS "fd=F out=O fmt=FMT sep=HEX
 * ev=ECX/CONFIG,..." (hex) and $PMUCTL_REGIONS_EVENTS, the names.
 */
static int stat_regions_handover(struct stat_ctx *s)
{
	const struct pmuctl_counters *c = pmuctl_get_counters(s->p);
	const char *sep = s->o->sep ? s->o->sep : ",";
	char env[64 + PMUCTL_MAX_EVENTS * 32], names[PMUCTL_MAX_EVENTS * 96];
	size_t n;
	int fd;

	fd = fcntl(pmuctl_fd(s->p), F_DUPFD, 3);
	if (fd < 0)
		return -errno;
	n = (size_t)snprintf(env, sizeof(env), "fd=%d out=%d fmt=%s sep=", fd,
			     s->regions_fd, s->o->json ? "json" : "csv");
	for (const char *x = sep; *x && n + 3 < sizeof(env) && x - sep < 3; x++)
		n += (size_t)snprintf(env + n, sizeof(env) - n, "%02x",
				      (unsigned char)*x);
	n += (size_t)snprintf(env + n, sizeof(env) - n, " ev=");
	names[0] = '\0';
	for (unsigned int i = 0; i < c->nr && n < sizeof(env); i++) {
		n += (size_t)snprintf(env + n, sizeof(env) - n, "%s%x/%llx",
				      i ? "," : "", c->ecx[i],
				      (unsigned long long)s->e.ev[i].config);
		snprintf(names + strlen(names), sizeof(names) - strlen(names),
			 "%s%s", i ? "," : "", s->e.name[i]);
	}
	if (n >= sizeof(env))
		return -E2BIG;
	if (setenv("PMUCTL_REGIONS", env, 1) ||
	    setenv("PMUCTL_REGIONS_EVENTS", names, 1))
		return -errno;
	return 0;
}

/* Task mode, in the child: PROGRAM the shared session, say how it went. */
static int stat_child_program(void *arg)
{
	struct stat_ctx *s = arg;
	struct stat_task_result *r = &s->res;
	int ret;

	memset(r, 0, sizeof(*r));
	ret = tool_program_quiet(s->p, &s->e, true,
				 PMUCTL_PROGRAM_INHERIT | PMUCTL_PROGRAM_ENABLE_ON_EXEC,
				 NULL, 0, &r->err);
	memcpy(r->ev, s->e.ev, sizeof(r->ev));
	r->user_only = s->e.user_only;
	if (!ret && s->o->regions)
		ret = stat_regions_handover(s);
	return ret;
}

/* By tid; the module's order (its buffer's) among equal tids. */
static int thread_cmp(const void *a, const void *b)
{
	const struct pmuctl_thread *x = *(struct pmuctl_thread *const *)a;
	const struct pmuctl_thread *y = *(struct pmuctl_thread *const *)b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x < y ? -1 : x > y;
}

/*
 * --per-thread: the session's entries (PMUCTL_IOC_THREADS), sorted by tid
 * into s->sorted.  A buffer too small is grown to the count the module
 * gave and asked again; entries it could still not give (over 65536 in
 * one call) join those it dropped: their counts are only in the totals.
 */
/*
 * Task scope's READ gives a topdown metric as the raw PERF_METRICS of the
 * threads' sums (its bytes: shares of the summed slots): the slots it
 * counted, as a CPU-scope delta gives them (tool_event_delta()).
 */
static void task_metric_slots(const struct tool_events *e, uint64_t *v)
{
	uint64_t slots = 0;

	for (unsigned int j = 0; j < e->nr; j++)
		if (e->ev[j].counter == (PMUCTL_COUNTER_FIXED | 3))
			slots = v[j];
	for (unsigned int i = 0; i < e->nr; i++)
		if (e->ev[i].counter == PMUCTL_COUNTER_METRICS)
			v[i] = pmuctl_topdown_slots(slots, v[i],
						    ((e->ev[i].config >> 8) & 0xff) - 0x80);
}

static int stat_read_threads(struct stat_ctx *s)
{
	size_t esz = PMUCTL_THREAD_SIZE(s->e.nr);
	uint32_t total = 48, dropped = 0;
	int n = 0;

	for (int tries = 0; tries < 4; tries++) {
		size_t size = ((size_t)total + 16) * esz;
		void *buf = realloc(s->th, size);

		if (!buf)
			return -ENOMEM;
		s->th = buf;
		n = pmuctl_read_threads(s->p, s->th, size, s->e.nr, &total,
					&dropped);
		if (n < 0)
			return n;
		if ((uint32_t)n >= total)
			break;
	}
	free(s->sorted);
	s->sorted = calloc((size_t)n + 1, sizeof(*s->sorted));
	if (!s->sorted)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		uint64_t v[PMUCTL_MAX_EVENTS];

		s->sorted[i] = pmuctl_thread_at(s->th, s->e.nr, (size_t)i);
		for (unsigned int k = 0; k < s->e.nr; k++)
			v[k] = s->sorted[i]->values[k];
		task_metric_slots(&s->e, v);
		for (unsigned int k = 0; k < s->e.nr; k++)
			s->sorted[i]->values[k] = v[k];
	}
	qsort(s->sorted, (size_t)n, sizeof(*s->sorted), thread_cmp);
	s->nr_th = (uint32_t)n;
	s->th_dropped = dropped + (total > (uint32_t)n ? total - (uint32_t)n : 0);
	return 0;
}

/*
 * One run in task mode: the child programs the session (task scope,
 * inherited by every thread and process the command creates, started
 * by the kernel at its exec) and execs; pmuctl waits for it, STOPs (a
 * thread left running counts no more), READs the session's totals and
 * RELEASEs.  No pinning, no ptrace, no READ while it runs: the totals
 * are 64 bits.  @lost gets the threads the module could not count.
 */
static int stat_run_task(struct stat_ctx *s, uint64_t *count, int *status,
			 double *secs, unsigned int *lost)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_quit;
	uint64_t v[PMUCTL_MAX_EVENTS];
	uint32_t threads = 0, nlost = 0;
	struct timespec t0 = { 0, 0 }, t1;
	struct tool_launch l;
	sigset_t mask;
	int ret, run_err, read_err = 0, th_err = 0;

	memset(count, 0, sizeof(*count) * s->e.nr);
	memset(&l, 0, sizeof(l));
	sigprocmask(SIG_SETMASK, NULL, &mask);
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	l.argv = s->o->argv;
	l.mask = &mask;
	l.sigint = &old_int;
	l.sigquit = &old_quit;
	l.program = stat_child_program;
	l.arg = s;
	l.result = &s->res;
	l.result_size = sizeof(s->res);
	ret = tool_launch_task(&l);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!ret && l.ended)
		*status = l.status;
	else if (!ret)
		while (waitpid(l.pid, status, 0) < 0 && errno == EINTR)
			;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	run_err = tool_launch_end(&l);

	if (l.started) {
		/* The child's PROGRAM: its counters and any renaming. */
		if (s->res.user_only)
			tool_events_user_only(&s->e);
		memcpy(s->e.ev, s->res.ev, sizeof(s->e.ev));
		pmuctl_stop(s->p);
		read_err = pmuctl_read_task(s->p, v, s->e.nr, &threads, &nlost);
		/* Before the RELEASE, which forgets them. */
		if (!read_err && s->o->per_thread)
			th_err = stat_read_threads(s);
	}
	/* Whatever happened in the child, the next run programs afresh. */
	pmuctl_release(s->p);

	if (ret && l.failed && !strcmp(l.failed, "program")) {
		if (s->res.user_only)
			tool_events_user_only(&s->e);
		return tool_program_explain("stat", ret, &s->res.err, &s->e);
	}
	if (ret)
		return tool_fail("stat", "cannot start '%s': %s: %s", s->o->argv[0],
				 l.failed ? l.failed : "launch", strerror(-ret));
	if (run_err)
		return tool_fail("stat", "cannot run '%s': %s", s->o->argv[0],
				 strerror(-run_err));
	if (read_err)
		return tool_fail("stat", "cannot read the counts of '%s': %s",
				 s->cmdline, strerror(-read_err));
	if (th_err == -ENOTTY)
		return tool_fail("stat", "this pmuctl module cannot report counts per thread (no PMUCTL_IOC_THREADS): load a newer pmuctl.ko, or drop --per-thread");
	if (th_err)
		return tool_fail("stat", "cannot read the counts per thread of '%s': %s",
				 s->cmdline, strerror(-th_err));
	if (l.started) {
		task_metric_slots(&s->e, v);
		for (unsigned int i = 0; i < s->e.nr; i++)
			count[i] = v[i];
	}
	if (nlost)
		fprintf(stderr, "pmuctl stat: note: %u threads or processes of '%s' were not counted (the module's task_max_threads reached, or no memory): the counts miss theirs\n",
			nlost, s->cmdline);
	if (threads)
		fprintf(stderr, "pmuctl stat: note: %u threads of '%s' still ran after it exited: counted until then\n",
			threads, s->cmdline);
	if (s->th_dropped)
		fprintf(stderr, "pmuctl stat: note: %u threads of '%s' have no counts of their own (more exited than the module's task_max_threads keeps): their counts are only in the total\n",
			s->th_dropped, s->cmdline);
	*lost = nlost;
	*secs = l.started ? elapsed(&t0, &t1) : 0;
	return 0;
}

/* The index of the first event that counts @code as a plain count, or -1. */
static int find_plain(const struct tool_events *e, uint64_t code, uint64_t priv)
{
	const uint64_t mods = PMUCTL_CFG_EDGE | PMUCTL_CFG_INV | PMUCTL_CFG_ANY |
			      PMUCTL_CFG_CMASK;

	for (unsigned int i = 0; i < e->nr; i++) {
		uint64_t c = e->ev[i].config_used;

		if ((c & (PMUCTL_CFG_EVENT | PMUCTL_CFG_UMASK)) == code &&
		    !(c & mods) && !e->ev[i].extra &&
		    (priv == ~0ULL ||
		     (c & (PMUCTL_CFG_USR | PMUCTL_CFG_OS)) == priv))
			return (int)i;
	}
	return -1;
}

/*
 * Offcore response values (FACTS.md 2): request bits 0..15, ANY_RESPONSE
 * bit 16, OUTSTANDING bit 38 (KNL/KNM OFFCORE_RSP_0 only).
 */
#define OFFCORE_REQUESTS	0xffffULL
#define OFFCORE_ANY_RESPONSE	(1ULL << 16)
#define OFFCORE_OUTSTANDING	(1ULL << 38)

static bool is_offcore(const struct pmuctl_event *ev)
{
	uint64_t sel = ev->config_used & PMUCTL_CFG_EVENT;

	return ev->extra_msr && (sel == 0xb7 || sel == 0xbb);
}

/* A metric shown on the line of event @num: @num / @den * @scale. */
struct metric {
	int den;
	double scale;
	const char *unit;
};

/*
 * The derived metrics: IPC on instructions (with cycles at the same
 * privilege levels), branch-miss ratio on branch-misses, and on KNL/KNM
 * the average offcore latency in core cycles on an OUTSTANDING event:
 * count(RSP_0 OUTSTANDING) / count(ANY_RESPONSE of the same requests).
 */
static void metrics_find(const struct stat_ctx *s, struct metric *m)
{
	const struct tool_events *e = &s->e;
	int i;

	for (unsigned int k = 0; k < e->nr; k++)
		m[k].den = -1;
	i = find_plain(e, 0x00c0, ~0ULL);
	if (i >= 0) {
		uint64_t priv = e->ev[i].config_used & (PMUCTL_CFG_USR | PMUCTL_CFG_OS);
		int c = find_plain(e, 0x003c, priv);

		if (c >= 0)
			m[i] = (struct metric){ c, 1.0, "insn per cycle" };
	}
	i = find_plain(e, 0x00c5, ~0ULL);
	if (i >= 0) {
		uint64_t priv = e->ev[i].config_used & (PMUCTL_CFG_USR | PMUCTL_CFG_OS);
		int b = find_plain(e, 0x00c4, priv);

		if (b >= 0)
			m[i] = (struct metric){ b, 100.0, "% of all branches" };
	}
	if (s->info->pmu_model != PMUCTL_MODEL_KNL && s->info->pmu_model != PMUCTL_MODEL_KNM)
		return;
	for (unsigned int o = 0; o < e->nr; o++) {
		uint64_t req = e->ev[o].extra & OFFCORE_REQUESTS;

		if (!is_offcore(&e->ev[o]) || !(e->ev[o].extra & OFFCORE_OUTSTANDING))
			continue;
		for (unsigned int a = 0; a < e->nr; a++) {
			if (a != o && is_offcore(&e->ev[a]) &&
			    (e->ev[a].extra & OFFCORE_ANY_RESPONSE) &&
			    !(e->ev[a].extra & OFFCORE_OUTSTANDING) &&
			    (e->ev[a].extra & OFFCORE_REQUESTS) == req) {
				m[o] = (struct metric){ (int)a, 1.0,
					"cycles per offcore request (average latency)" };
				break;
			}
		}
	}
}

static long double mean_of(const struct stat_acc *a, unsigned int i)
{
	return a->sum[i] / a->runs;
}

/* Relative standard error of the mean, in percent (perf's "+-"). */
static double spread(long double sum, long double sumsq, unsigned int n)
{
	long double mean, var;

	if (n < 2)
		return 0;
	mean = sum / n;
	var = (sumsq - n * mean * mean) / (n - 1);
	if (var < 0 || mean == 0)
		return 0;
	return (double)(100.0L * sqrtl(var / n) / mean);
}

static void status_text(int status, char *buf, size_t len)
{
	if (WIFEXITED(status))
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "was killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(buf, len, "ended with wait status %#x", status);
}

static bool status_failed(int status)
{
	return !WIFEXITED(status) || WEXITSTATUS(status);
}

/* A tid or pid of --per-thread: @none where not visible to us (0). */
static const char *id_text(uint32_t id, char *buf, size_t len, const char *none)
{
	if (!id)
		return none;
	snprintf(buf, len, "%u", id);
	return buf;
}

/*
 * --per-thread's table: TID, PID, a column per event (as wide as its name,
 * 18 at least), a row per thread by tid, then the totals.
 */
static void print_thread_table(const struct stat_ctx *s, const struct stat_acc *a)
{
	FILE *f = s->out;
	int w[PMUCTL_MAX_EVENTS];
	char tid[16], pid[16];

	fprintf(f, "%10s %10s", "TID", "PID");
	for (unsigned int i = 0; i < s->e.nr; i++) {
		size_t len = strlen(s->e.name[i]);

		w[i] = len > 18 ? (int)len : 18;
		fprintf(f, "  %*s", w[i], s->e.name[i]);
	}
	fprintf(f, "\n");
	for (uint32_t t = 0; t < s->nr_th; t++) {
		const struct pmuctl_thread *th = s->sorted[t];

		fprintf(f, "%10s %10s", id_text(th->tid, tid, sizeof(tid), "-"),
			id_text(th->tgid, pid, sizeof(pid), "-"));
		for (unsigned int i = 0; i < s->e.nr; i++)
			fprintf(f, "  %*llu", w[i], (unsigned long long)th->values[i]);
		fprintf(f, "%s\n", th->flags & PMUCTL_THREAD_EXITED ? "" :
			"  (still running)");
	}
	fprintf(f, "%10s %10s", "total", "");
	for (unsigned int i = 0; i < s->e.nr; i++)
		fprintf(f, "  %*.0Lf", w[i], mean_of(a, i));
	fprintf(f, "\n");
	if (s->th_dropped)
		fprintf(f, " %u more threads have no counts of their own (the module's task_max_threads): they are only in the total\n",
			s->th_dropped);
}

/*
 * -M: metric @k from the means of its events' counts and the time of its
 * pass.  Return: 0 and @v; -errno and @msg (a division by zero, a value
 * the run does not give).
 */
static int metric_value(const struct stat_ctx *s, const struct stat_acc *a,
			unsigned int k, double *v, char *msg, size_t len)
{
	const struct tool_mstate *st = &s->ms->st[k];
	const struct pmuctl_imetric *m = s->ms->m[k];
	struct pmuctl_metric_env env = {
		.duration_s = s->pass_secs[st->first],
		.threads_per_core = s->threads_per_core,
		.tsc_hz = s->tsc_hz,
	};
	double counts[256];

	for (unsigned int j = 0; j < m->nevents; j++)
		counts[j] = (double)mean_of(a, st->evidx[j]);
	return pmuctl_metric_eval(m, counts, NULL, &env, v, msg, len);
}

/* -M, the table: a line per metric after the events. */
static void print_metrics_table(const struct stat_ctx *s, const struct stat_acc *a)
{
	FILE *f = s->out;

	fprintf(f, "\n");
	for (unsigned int k = 0; k < s->ms->nm; k++) {
		const struct tool_mstate *st = &s->ms->st[k];
		const char *name = pmuctl_metric_name(s->ms->m[k]);
		char unit[48], msg[256], val[32];
		double v;

		if (st->why[0]) {
			fprintf(f, "%18s  %-28s  # unavailable: %s\n", "-", name, st->why);
			continue;
		}
		if (metric_value(s, a, k, &v, msg, sizeof(msg))) {
			fprintf(f, "%18s  %-28s  # not computed: %s\n", "-", name, msg);
			continue;
		}
		pmuctl_metric_attr(s->ms->m[k], 2, unit, sizeof(unit));
		snprintf(val, sizeof(val), "%.2f", v);
		if (unit[0] || st->first != st->last)
			fprintf(f, "%18s  %-28s  %s", val, name, unit[0] ? unit : "-");
		else
			fprintf(f, "%18s  %s", val, name);
		if (st->first != st->last)
			fprintf(f, "  # passes %u-%u: mixes passes", st->first + 1,
				st->last + 1);
		fprintf(f, "\n");
	}
	if (s->ms->passes > 1)
		fprintf(f, "\n %u passes: COMMAND ran once per pass (%u run%s each)\n",
			s->ms->passes, a->runs, a->runs == 1 ? "" : "s");
}

/* -M, CSV: the metric's value and unit in the metric fields. */
static void print_metrics_csv(const struct stat_ctx *s, const struct stat_acc *a,
			      const char *cpu)
{
	const char *x = s->o->sep;

	for (unsigned int k = 0; k < s->ms->nm; k++) {
		const char *name = pmuctl_metric_name(s->ms->m[k]);
		char unit[48], msg[256];
		double v;

		pmuctl_metric_attr(s->ms->m[k], 2, unit, sizeof(unit));
		fprintf(s->out, "%s%s%s%s%s%s%s%s", x, x, name, x, cpu, x, x, x);
		if (!s->ms->st[k].why[0] && !metric_value(s, a, k, &v, msg, sizeof(msg)))
			fprintf(s->out, "%.2f%s%s", v, x, unit);
		else
			fprintf(s->out, "%s", x);
		fprintf(s->out, "%s%s\n", x, tool_backend_name(s->info->backend));
	}
}

/* -M, JSON: an object per metric. */
static void print_metrics_json(const struct stat_ctx *s, const struct stat_acc *a)
{
	FILE *f = s->out;

	for (unsigned int k = 0; k < s->ms->nm; k++) {
		const struct tool_mstate *st = &s->ms->st[k];
		char unit[48], msg[256] = "";
		double v = 0;
		int ret = st->why[0] ? -ENOENT : metric_value(s, a, k, &v, msg, sizeof(msg));

		pmuctl_metric_attr(s->ms->m[k], 2, unit, sizeof(unit));
		fprintf(f, "{\"type\":\"metric\",\"metric\":");
		tool_json_str(f, pmuctl_metric_name(s->ms->m[k]));
		if (ret)
			fprintf(f, ",\"value\":null");
		else
			fprintf(f, ",\"value\":%.6g", v);
		fprintf(f, ",\"unit\":");
		tool_json_str(f, unit);
		if (st->why[0]) {
			fprintf(f, ",\"passes\":null,\"error\":");
			tool_json_str(f, st->why);
		} else {
			fprintf(f, ",\"passes\":[%u,%u],\"error\":", st->first + 1,
				st->last + 1);
			if (ret)
				tool_json_str(f, msg);
			else
				fprintf(f, "null");
		}
		fprintf(f, "}\n");
	}
}

static void print_table(const struct stat_ctx *s, const struct stat_acc *a,
			const struct metric *m)
{
	FILE *f = s->out;
	char st[128];

	if (s->task)
		fprintf(f, "\n Performance counter stats for '%s'", s->cmdline);
	else
		fprintf(f, "\n Performance counter stats for CPU %d, while '%s' ran pinned there",
			s->cpu, s->cmdline);
	if (a->runs > 1)
		fprintf(f, " (%u runs)", a->runs);
	fprintf(f, ":\n");
	if (s->info->backend == PMUCTL_BACKEND_MODEL)
		fprintf(f, " %s\n", TOOL_MODEL_NOTE);
	if (a->plain_runs)
		fprintf(f, " %s\n", STAT_PLAIN_NOTE);
	fprintf(f, "\n");
	if (s->o->per_thread)
		print_thread_table(s, a);
	for (unsigned int i = 0; i < s->e.nr && !s->o->per_thread; i++) {
		char val[32];

		char line[512];
		int n;

		snprintf(val, sizeof(val), "%.0Lf", mean_of(a, i));
		n = snprintf(line, sizeof(line), "%18s  %-28s", val, s->e.name[i]);
		if (n > 0 && (size_t)n < sizeof(line) && m[i].den >= 0 &&
		    a->sum[m[i].den] > 0)
			n += snprintf(line + n, sizeof(line) - (size_t)n, "  # %.2f %s",
				      (double)(a->sum[i] / a->sum[m[i].den]) * m[i].scale,
				      m[i].unit);
		if (n > 0 && (size_t)n < sizeof(line) && a->runs > 1)
			snprintf(line + n, sizeof(line) - (size_t)n, "  ( +- %.2f%% )",
				 spread(a->sum[i], a->sumsq[i], a->runs));
		/* No trailing blanks after a name without metric or spread. */
		n = (int)strlen(line);
		while (n > 0 && line[n - 1] == ' ')
			line[--n] = '\0';
		fprintf(f, "%s\n", line);
	}
	if (s->ms)
		print_metrics_table(s, a);
	fprintf(f, "\n%17.9f seconds time elapsed", (double)(a->t_sum / a->runs));
	if (a->runs > 1)
		fprintf(f, "  ( +- %.2f%% )", spread(a->t_sum, a->t_sumsq, a->runs));
	fprintf(f, "\n");
	if (a->failed_runs) {
		status_text(a->fail_status, st, sizeof(st));
		if (a->runs > 1)
			fprintf(f, "\n '%s' %s (%u of %u runs failed)\n", s->cmdline, st,
				a->failed_runs, a->runs);
		else
			fprintf(f, "\n '%s' %s\n", s->cmdline, st);
	}
	fprintf(f, "\n");
}

static void print_csv(const struct stat_ctx *s, const struct stat_acc *a,
		      const struct metric *m)
{
	const char *x = s->o->sep;
	char ctr[16];

	char cpu[16] = "";

	/* Task mode counts no CPU: the field is empty. */
	if (!s->task)
		snprintf(cpu, sizeof(cpu), "%d", s->cpu);
	/* --per-thread: a line per thread and event, tid and pid last. */
	for (uint32_t t = 0; s->o->per_thread && t < s->nr_th; t++) {
		const struct pmuctl_thread *th = s->sorted[t];
		char tid[16], pid[16];

		id_text(th->tid, tid, sizeof(tid), "");
		id_text(th->tgid, pid, sizeof(pid), "");
		for (unsigned int i = 0; i < s->e.nr; i++)
			fprintf(s->out, "%llu%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s\n",
				(unsigned long long)th->values[i], x, x,
				s->e.name[i], x, cpu, x,
				tool_counter_name(s->e.ev[i].counter, ctr, sizeof(ctr)),
				x, x, x, x, tool_backend_name(s->info->backend),
				x, id_text(th->tid, tid, sizeof(tid), ""), x,
				id_text(th->tgid, pid, sizeof(pid), ""));
	}
	for (unsigned int i = 0; i < s->e.nr; i++) {
		fprintf(s->out, "%.0Lf%s%s%s%s%s%s%s%s", mean_of(a, i), x, x,
			s->e.name[i], x, cpu, x,
			tool_counter_name(s->e.ev[i].counter, ctr, sizeof(ctr)), x);
		if (a->runs > 1)
			fprintf(s->out, "%.2f", spread(a->sum[i], a->sumsq[i], a->runs));
		fprintf(s->out, "%s", x);
		if (m[i].den >= 0 && a->sum[m[i].den] > 0)
			fprintf(s->out, "%.2f%s%s",
				(double)(a->sum[i] / a->sum[m[i].den]) * m[i].scale,
				x, m[i].unit);
		else
			fprintf(s->out, "%s", x);
		fprintf(s->out, "%s%s", x, tool_backend_name(s->info->backend));
		/* --per-thread: the totals' tid and pid are empty. */
		fprintf(s->out, "%s%s%s\n", s->o->per_thread ? x : "",
			s->o->per_thread ? x : "", "");
	}
	if (s->ms)
		print_metrics_csv(s, a, cpu);
}

static void print_json(const struct stat_ctx *s, const struct stat_acc *a,
		       const struct metric *m)
{
	const char *backend = tool_backend_name(s->info->backend);
	FILE *f = s->out;
	char ctr[16], cpu[16] = "null";

	if (!s->task)
		snprintf(cpu, sizeof(cpu), "%d", s->cpu);
	for (unsigned int i = 0; i < s->e.nr; i++) {
		fprintf(f, "{\"type\":\"event\",\"event\":");
		tool_json_str(f, s->e.name[i]);
		fprintf(f, ",\"value\":%.0Lf,\"counter\":\"%s\",\"cpu\":%s,\"runs\":%u,",
			mean_of(a, i),
			tool_counter_name(s->e.ev[i].counter, ctr, sizeof(ctr)),
			cpu, a->runs);
		if (a->runs > 1)
			fprintf(f, "\"stddev_pct\":%.2f,",
				spread(a->sum[i], a->sumsq[i], a->runs));
		else
			fprintf(f, "\"stddev_pct\":null,");
		if (m[i].den >= 0 && a->sum[m[i].den] > 0)
			fprintf(f, "\"metric_value\":%.2f,\"metric_unit\":\"%s\",",
				(double)(a->sum[i] / a->sum[m[i].den]) * m[i].scale,
				m[i].unit);
		else
			fprintf(f, "\"metric_value\":null,\"metric_unit\":null,");
		fprintf(f, "\"backend\":\"%s\"}\n", backend);
	}
	if (s->ms)
		print_metrics_json(s, a);
	fprintf(f, "{\"type\":\"summary\",\"scope\":\"%s\",\"cpu\":%s,\"command\":",
		s->task ? "task" : "cpu", cpu);
	tool_json_str(f, s->cmdline);
	fprintf(f, ",\"runs\":%u,\"elapsed_s\":%.9f,", a->runs,
		(double)(a->t_sum / a->runs));
	if (WIFEXITED(a->last_status))
		fprintf(f, "\"exit_status\":%d,\"signal\":null,",
			WEXITSTATUS(a->last_status));
	else
		fprintf(f, "\"exit_status\":null,\"signal\":%d,",
			WIFSIGNALED(a->last_status) ? WTERMSIG(a->last_status) : 0);
	fprintf(f, "\"lost_threads\":%llu,\"launch\":\"%s\",\"failed_runs\":%u,\"backend\":\"%s\"",
		a->lost, a->plain_runs ? "plain" : "exact", a->failed_runs, backend);
	if (s->ms)
		fprintf(f, ",\"passes\":%u", s->ms->passes);
	if (s->o->per_thread) {
		char tid[16], pid[16];

		fprintf(f, ",\"dropped_threads\":%u,\"threads\":[", s->th_dropped);
		for (uint32_t t = 0; t < s->nr_th; t++) {
			const struct pmuctl_thread *th = s->sorted[t];

			fprintf(f, "%s{\"tid\":%s,\"pid\":%s,\"running\":%s,\"values\":[",
				t ? "," : "",
				id_text(th->tid, tid, sizeof(tid), "null"),
				id_text(th->tgid, pid, sizeof(pid), "null"),
				th->flags & PMUCTL_THREAD_EXITED ? "false" : "true");
			for (unsigned int i = 0; i < s->e.nr; i++)
				fprintf(f, "%s%llu", i ? "," : "",
					(unsigned long long)th->values[i]);
			fprintf(f, "]}");
		}
		fprintf(f, "]");
	}
	fprintf(f, "}\n");
}

/*
 * A set-user-ID, set-group-ID or file-capability command would run
 * without its privileges if exec'd under ptrace: launch it plainly.
 */
static void stat_check_privileged(struct stat_ctx *s)
{
	static const char *const what[] = {
		[TOOL_LAUNCH_SETUID] = "set-user-ID",
		[TOOL_LAUNCH_SETGID] = "set-group-ID",
		[TOOL_LAUNCH_FCAPS] = "given file capabilities",
	};
	char path[PATH_MAX], why[PATH_MAX + 160];
	int priv = tool_launch_privileged(s->o->argv[0], path, sizeof(path));

	if (!priv)
		return;
	if (s->task) {
		/* The module stops counting a thread at such an exec, as perf. */
		fprintf(stderr, "pmuctl stat: note: %s is %s: the module does not count a thread from its exec of such a program on (as perf), so its counts are 0; count its CPU instead with -C CPU\n",
			path, what[priv]);
		return;
	}
	s->plain = true;
	snprintf(why, sizeof(why), "%s is %s: pmuctl starts it without ptrace, under which its exec would drop its privileges",
		 path, what[priv]);
	stat_note_plain(s, why);
}

/* Run COMMAND -r times with the events of s->e, adding into @a. */
static int stat_runs(struct stat_ctx *s, struct stat_acc *a)
{
	uint64_t count[PMUCTL_MAX_EVENTS];
	int ret;

	for (unsigned int r = 0; r < s->o->runs; r++) {
		unsigned int lost = 0;
		bool exact = true;
		int status = 0;
		double secs = 0;

		if (s->task)
			ret = stat_run_task(s, count, &status, &secs, &lost);
		else
			ret = stat_run(s, count, &status, &secs, &exact);
		if (ret)
			return ret;
		a->runs++;
		for (unsigned int i = 0; i < s->e.nr; i++) {
			a->sum[i] += count[i];
			a->sumsq[i] += (long double)count[i] * count[i];
		}
		a->t_sum += secs;
		a->t_sumsq += (long double)secs * secs;
		a->last_status = status;
		a->plain_runs += !exact;
		a->lost += lost;
		if (status_failed(status)) {
			a->failed_runs++;
			a->fail_status = status;
		}
		/* ^C at the command ends the repeats too, as in perf stat -r. */
		if (WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) {
			a->interrupted = true;
			break;
		}
	}
	return 0;
}

/*
 * -M: one pass after the other, each with its own PROGRAM (CPU scope
 * here, task scope in each run's child) and its -r runs; then s->e holds
 * every event of the metrics, as its first pass programmed and counted
 * it, and @a their sums (runs: per pass; time: all passes together).
 */
static int stat_passes(struct stat_ctx *s, struct stat_acc *a)
{
	const struct tool_mset *ms = s->ms;
	struct pmuctl_event all[PMUCTL_MAX_EVENTS];
	bool counted[PMUCTL_MAX_EVENTS] = { false };
	struct stat_acc *ap = malloc(sizeof(*ap));
	int ret = 0;

	if (!ap)
		return tool_fail("stat", "%s", strerror(ENOMEM));
	memset(all, 0, sizeof(all));
	for (unsigned int p = 0; p < ms->passes && !a->interrupted; p++) {
		memset(ap, 0, sizeof(*ap));
		memset(&s->e, 0, sizeof(s->e));
		s->e.nr = ms->npass[p];
		for (unsigned int i = 0; i < s->e.nr; i++) {
			s->e.ev[i] = ms->ev[ms->pass[p][i]].ev;
			s->e.name[i] = ms->ev[ms->pass[p][i]].name;
		}
		if (!s->task) {
			if (p)
				pmuctl_release(s->p);
			ret = tool_program("stat", s->p, &s->e, s->cpuset, s->setsize);
			if (ret)
				break;
			s->ctr = pmuctl_get_counters(s->p);
		}
		ret = stat_runs(s, ap);
		if (ret)
			break;
		for (unsigned int i = 0; i < s->e.nr; i++) {
			unsigned int g = ms->pass[p][i];

			if (counted[g])
				continue;
			counted[g] = true;
			all[g] = s->e.ev[i];
			a->sum[g] = ap->sum[i];
			a->sumsq[g] = ap->sumsq[i];
		}
		s->pass_secs[p] = ap->runs ? (double)(ap->t_sum / ap->runs) : 0;
		a->runs = ap->runs;
		a->t_sum += ap->t_sum;
		a->t_sumsq += ap->t_sumsq;
		a->failed_runs += ap->failed_runs;
		a->plain_runs += ap->plain_runs;
		a->lost += ap->lost;
		a->last_status = ap->last_status;
		if (ap->failed_runs)
			a->fail_status = ap->fail_status;
		a->interrupted = ap->interrupted;
	}
	free(ap);
	if (ret)
		return ret;
	memset(&s->e, 0, sizeof(s->e));
	s->e.nr = ms->nev;
	for (unsigned int g = 0; g < ms->nev; g++) {
		s->e.ev[g] = counted[g] ? all[g] : ms->ev[g].ev;
		s->e.name[g] = ms->ev[g].name;
	}
	return 0;
}

/* The next CSV field of @*line (quotes undone) into @buf; false at the end. */
static bool csv_field(const char **line, char *buf, size_t len)
{
	const char *p = *line;
	size_t n = 0;
	bool q = *p == '"';

	if (!*p || *p == '\n')
		return false;
	if (q)
		p++;
	for (; *p && *p != '\n' && (q || *p != ','); p++) {
		if (q && *p == '"') {
			if (p[1] != '"') {
				q = false;
				continue;
			}
			p++;
		}
		if (n + 1 < len)
			buf[n++] = *p;
	}
	buf[n] = '\0';
	*line = *p == ',' ? p + 1 : p;
	return true;
}

/* A "# misuse KIND=N ..." line: the kinds that are not 0, or nothing. */
static void regions_misuse(FILE *f, const char *p)
{
	char kinds[256] = "", k[64];
	unsigned long long v;
	int used;

	while (sscanf(p, " %63[a-z_]=%llu%n", k, &v, &used) == 2) {
		if (v)
			snprintf(kinds + strlen(kinds), sizeof(kinds) - strlen(kinds),
				 " %s=%llu", k, v);
		p += used;
	}
	if (kinds[0])
		fprintf(f, "\n misuses:%s (see libpmuctl.h, \"Regions\")\n", kinds);
}

/*
 * --regions' table, from the command's CSV report: a block per region, a
 * row per thread (its calls, each event's sum, IPC), and what a row
 * cannot say (a region still open, reads the emulation answered).
 */
static void regions_table(const struct stat_ctx *s, const char *text)
{
	char col[PMUCTL_MAX_EVENTS + 1][96], region[256], last[256] = "";
	char field[256], thread[32], calls[32];
	unsigned long long emu, open;
	unsigned int ncol = 0, k;
	FILE *f = s->out;
	const char *line, *p;

	fprintf(f, "\n Regions (libpmuctl, per thread: the code between each enter and its exit):\n");
	for (line = text; *line; line = (p = strchr(line, '\n')) ? p + 1 : "") {
		p = line;
		if (!strncmp(line, "# misuse", 8)) {
			regions_misuse(f, line + 8);
			continue;
		}
		/* region,thread,calls,emulated_reads,open,EVENT...,IPC */
		if (!strncmp(line, "region,", 7)) {
			for (k = 0, ncol = 0; csv_field(&p, field, sizeof(field)); k++)
				if (k >= 5 && ncol <= PMUCTL_MAX_EVENTS)
					snprintf(col[ncol++], sizeof(col[0]), "%s", field);
			last[0] = '\0';
			continue;
		}
		if (!ncol || !csv_field(&p, region, sizeof(region)) ||
		    !csv_field(&p, thread, sizeof(thread)) ||
		    !csv_field(&p, calls, sizeof(calls)))
			continue;
		csv_field(&p, field, sizeof(field));
		emu = strtoull(field, NULL, 10);
		csv_field(&p, field, sizeof(field));
		open = strtoull(field, NULL, 10);
		if (strcmp(region, last)) {
			snprintf(last, sizeof(last), "%s", region);
			fprintf(f, "\n Region '%s'\n %10s %10s", region, "thread", "calls");
			for (k = 0; k < ncol; k++)
				fprintf(f, "  %14s", col[k]);
			fprintf(f, "\n");
		}
		fprintf(f, " %10s %10s", thread, calls);
		for (k = 0; k < ncol; k++) {
			if (!csv_field(&p, field, sizeof(field)))
				field[0] = '\0';
			fprintf(f, "  %*s", (int)(strlen(col[k]) > 14 ? strlen(col[k]) : 14),
				field);
		}
		if (open)
			fprintf(f, "  (open %llu deep)", open);
		if (emu)
			fprintf(f, "  (%llu reads emulated)", emu);
		fprintf(f, "\n");
	}
}

/*
 * --regions: what the command wrote at its exit (pmuctl_regions_env()),
 * as the table, or as it is for -x and --json (written in that format).
 */
static void print_regions(const struct stat_ctx *s)
{
	char *text = NULL;
	size_t len = 0, cap = 0;
	ssize_t n;

	for (;;) {
		if (len + 4096 > cap) {
			char *t = realloc(text, cap = cap * 2 + 8192);

			if (!t)
				break;
			text = t;
		}
		n = pread(s->regions_fd, text + len, cap - len - 1, (off_t)len);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	if (!text || !len) {
		fprintf(stderr, "pmuctl stat: note: '%s' reported no regions: it did not call libpmuctl's pmuctl_regions_env(), or it ended without exit(3)\n",
			s->cmdline);
		free(text);
		return;
	}
	text[len] = '\0';
	if (s->o->json || s->o->sep)
		fputs(text, s->out);
	else
		regions_table(s, text);
	free(text);
}

static int stat_main(struct stat_ctx *s)
{
	struct metric m[PMUCTL_MAX_EVENTS];
	struct stat_acc *a;
	cpu_set_t *away;
	int ret;

	a = calloc(1, sizeof(*a));
	away = tool_cpuset_alloc(&s->setsize);
	if (!a || !away) {
		free(a);
		CPU_FREE(away);
		return tool_fail("stat", "%s", strerror(ENOMEM));
	}
	/*
	 * pmuctl itself waits on another CPU when it may run on one: its
	 * wake-ups and READs then disturb the counted CPU as little as can be.
	 * (Task mode counts the command's threads only: pmuctl stays put.)
	 */
	if (!s->task && tool_affinity(away, s->setsize) == 0) {
		CPU_CLR_S((unsigned int)s->cpu, s->setsize, away);
		if (CPU_COUNT_S(s->setsize, away))
			sched_setaffinity(0, s->setsize, away);
	}
	CPU_FREE(away);

	stat_check_privileged(s);
	ret = s->ms ? stat_passes(s, a) : stat_runs(s, a);
	if (ret) {
		free(a);
		return ret;
	}
	/* From the events as programmed (task mode: by the child). */
	metrics_find(s, m);
	if (s->o->json)
		print_json(s, a, m);
	else if (s->o->sep)
		print_csv(s, a, m);
	else
		print_table(s, a, m);
	free(a);
	if (s->o->regions)
		print_regions(s);
	return fflush(s->out) ? tool_fail("stat", "writing the report: %s",
					  strerror(errno)) : 0;
}

/*
 * -M: the metrics for the module's model, in Intel's list of this host;
 * a note for each that cannot be computed, a failure when none can, or
 * when they need passes that --no-passes or --per-thread refuse.
 */
static int stat_metrics(struct stat_ctx *s)
{
	const struct pmuctl_model *model = pmuctl_model_by_id(s->info->pmu_model);
	const char *list = pmuctl_event_list(s->info->pmu_model);
	const struct tool_mset *ms;
	unsigned int ok = 0;
	int ret;

	if (!model || !list)
		return tool_fail("stat", "no Intel metrics for this PMU (model %s): -M needs one of Intel's lists with metrics",
				 pmuctl_model_name(s->info->pmu_model));
	ret = tool_mset_build("stat", model, &s->info->caps, list,
			      pmuctl_model_name(s->info->pmu_model), s->o->metrics,
			      &s->ms);
	if (ret)
		return ret;
	ms = s->ms;
	for (unsigned int k = 0; k < ms->nm; k++) {
		if (!ms->st[k].why[0]) {
			ok++;
			continue;
		}
		fprintf(stderr, "pmuctl stat: note: metric %s cannot be computed here: %s\n",
			pmuctl_metric_name(ms->m[k]), ms->st[k].why);
	}
	if (!ok)
		return tool_fail("stat", "none of the metrics '%s' can be computed on this PMU (see the notes above)",
				 s->o->metrics);
	if (ms->nev > PMUCTL_MAX_EVENTS)
		return tool_fail("stat", "the metrics '%s' need %u events, more than one report holds (%d): name fewer metrics",
				 s->o->metrics, ms->nev, PMUCTL_MAX_EVENTS);
	if (ms->passes > 1 && s->o->no_passes)
		return tool_fail("stat", "the metrics '%s' need %u passes (COMMAND run once per pass) and --no-passes allows one: name fewer metrics, or drop --no-passes ('pmuctl check -M' shows the passes)",
				 s->o->metrics, ms->passes);
	if (ms->passes > 1 && s->o->per_thread)
		return tool_fail("stat", "the metrics '%s' need %u passes, and --per-thread reports one run's threads: name fewer metrics, or drop --per-thread",
				 s->o->metrics, ms->passes);
	s->threads_per_core = pmuctl_host_threads_per_core();
	s->tsc_hz = pmuctl_host_tsc_hz();
	return 0;
}

/*
 * -e events more than the PMU counts at once (each one that it can count
 * alone): passes, as for -M, unless --no-passes or --per-thread refuse
 * them.  Leaves s->ms NULL when one pass does (or when an event fits no
 * pass alone: the module's PROGRAM then names its rule).
 */
static int stat_event_passes(struct stat_ctx *s)
{
	const struct pmuctl_model *model = pmuctl_model_by_id(s->info->pmu_model);
	struct tool_mset *ms;

	if (!model || s->e.nr < 2)
		return 0;
	if (tool_mset_events(model, &s->info->caps, s->e.ev, s->e.name, s->e.nr, &ms))
		return tool_fail("stat", "%s", strerror(ENOMEM));
	if (ms->passes <= 1) {
		tool_mset_free(ms);
		return 0;
	}
	if (s->o->no_passes || s->o->per_thread || s->o->regions) {
		unsigned int passes = ms->passes;
		const char *opt = s->o->no_passes ? "--no-passes" :
				  s->o->per_thread ? "--per-thread" : "--regions";

		tool_mset_free(ms);
		return tool_fail("stat", "the %u events need %u passes (COMMAND run once per pass: the PMU counts fewer at once) and %s allows one: name fewer events, or drop %s ('pmuctl check --group' shows what fits)",
				 s->e.nr, passes, opt, opt);
	}
	s->ms = ms;
	return 0;
}

/* --all-user: @ev counts user mode, and only user mode. */
static void user_mode_only(struct pmuctl_event *ev)
{
	ev->config = (ev->config & ~PMUCTL_CFG_OS) | PMUCTL_CFG_USR;
}

/*
 * Would the module count kernel mode for this process's session: does it
 * have CAP_PERFMON (38) or CAP_SYS_ADMIN (21), as the module asks at open?
 */
static bool stat_may_count_kernel(void)
{
	unsigned long long eff = 0;
	char line[128];
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	fclose(f);
	return eff & (1ULL << 38 | 1ULL << 21);
}

/*
 * No -e, no -M: where PERF_METRICS gives the level-1 topdown metrics for
 * the cost of its register beside fixed counter 3, TopdownL1 joins the
 * default events, as perf stat adds it: only when everything still fits
 * in one pass and every TopdownL1 metric can be computed; elsewhere the
 * defaults alone.  An unprivileged session counts all of them in user
 * mode (the defaults' NAME:u).
 */
static void stat_default_topdown(struct stat_ctx *s)
{
	const struct pmuctl_model *model = pmuctl_model_by_id(s->info->pmu_model);
	const char *list = pmuctl_event_list(s->info->pmu_model);
	struct tool_mset *ms = NULL;
	unsigned int keep = 0;

	/* Every list of a core with PERF_METRICS has TopdownL1 (TmaL1). */
	if (!(s->info->caps.flags & PMUCTL_CAP_PERF_METRICS) || !model || !list ||
	    !pmuctl_mlist_find(list) ||
	    tool_mset_build("stat", model, &s->info->caps, list,
			    pmuctl_model_name(s->info->pmu_model), "TopdownL1", &ms))
		return;
	if (s->o->all_user || !stat_may_count_kernel()) {
		tool_events_user_only(&s->e);
		for (unsigned int g = 0; g < ms->nev; g++)
			user_mode_only(&ms->ev[g].ev);
	}
	/* The TMA nodes must all be there; an Info_ metric that is not goes. */
	for (unsigned int k = 0; k < ms->nm; k++) {
		if (!ms->st[k].why[0]) {
			ms->m[keep] = ms->m[k];
			ms->st[keep++] = ms->st[k];
		} else if (strncmp(pmuctl_metric_name(ms->m[k]), "Info_", 5)) {
			goto none;
		}
	}
	ms->nm = keep;
	if (tool_mset_add(ms, s->e.ev, s->e.name, s->e.nr) || ms->passes != 1)
		goto none;
	s->ms = ms;
	s->threads_per_core = pmuctl_host_threads_per_core();
	s->tsc_hz = pmuctl_host_tsc_hz();
	return;
none:
	tool_mset_free(ms);
}

int cmd_stat(int argc, char **argv)
{
	struct stat_opts o;
	struct stat_ctx *s;
	cpu_set_t *aff;
	int ret;

	ret = stat_parse(argc, argv, &o);
	if (ret)
		return ret < 0 ? 0 : ret;

	s = calloc(1, sizeof(*s));
	if (!s)
		return tool_fail("stat", "%s", strerror(ENOMEM));
	s->o = &o;
	s->out = stderr;
	join_argv(o.argv, s->cmdline, sizeof(s->cmdline));
	/* SIGCHLD ignored by whoever ran pmuctl would reap the command for us. */
	signal(SIGCHLD, SIG_DFL);

	aff = tool_cpuset_alloc(&s->setsize);
	s->cpuset = tool_cpuset_alloc(&s->setsize);
	if (!aff || !s->cpuset) {
		ret = tool_fail("stat", "%s", strerror(ENOMEM));
		goto out;
	}
	/* -C first: a CPU this process may not use is a usage error. */
	if (o.cpu >= 0) {
		ret = stat_pick_cpu(s, aff);
		if (ret)
			goto out;
	}

	if (o.output) {
		s->out = fopen(o.output, "w");
		if (!s->out) {
			s->out = stderr;
			ret = tool_fail("stat", "cannot write '%s': %s", o.output,
					strerror(errno));
			goto out;
		}
	}
	if (tool_open("stat", &s->p)) {
		ret = EXIT_FAIL;
		goto out;
	}
	s->info = pmuctl_get_info(s->p);
	/*
	 * Without -C the command's threads are counted (task scope), where
	 * the module can; a module without task scope counts a CPU, as
	 * pmuctl stat did before it.
	 */
	s->task = o.cpu < 0 && (s->info->program_flags & PMUCTL_PROGRAM_TASK);
	if (!s->task && (o.per_thread || o.regions)) {
		ret = tool_fail("stat", "this pmuctl module cannot count tasks (no task scope), which %s needs: load a pmuctl.ko with task scope, or drop %s",
				o.regions ? "--regions" : "--per-thread",
				o.regions ? "--regions" : "--per-thread");
		goto close;
	}
	if (o.regions) {
		s->regions_fd = memfd_create("pmuctl-regions", 0);
		if (s->regions_fd < 0) {
			ret = tool_fail("stat", "cannot make the file for the regions' report: %s",
					strerror(errno));
			goto close;
		}
	}
	if (!s->task && o.cpu < 0) {
		ret = stat_pick_cpu(s, aff);
		if (ret)
			goto close;
		fprintf(stderr, "pmuctl stat: note: this pmuctl module cannot count tasks (no task scope): counting CPU %d, with '%s' pinned there\n",
			s->cpu, s->cmdline);
	}
	if (!s->task)
		CPU_SET_S((unsigned int)s->cpu, s->setsize, s->cpuset);
	if (o.metrics) {
		ret = stat_metrics(s);
		for (unsigned int g = 0; !ret && o.all_user && g < s->ms->nev; g++)
			user_mode_only(&s->ms->ev[g].ev);
		if (!ret) {
			s->ctr = pmuctl_get_counters(s->p);
			ret = stat_main(s);
		}
		tool_mset_free(s->ms);
		goto close;
	}
	ret = tool_events_get("stat", s->info, o.events, &s->e);
	if (!ret && o.all_user && s->e.defaults)
		tool_events_user_only(&s->e);	/* named NAME:u */
	for (unsigned int i = 0; !ret && o.all_user && i < s->e.nr; i++)
		user_mode_only(&s->e.ev[i]);
	/* --regions: deltas of PERF_METRICS's bytes mean nothing. */
	if (!ret && s->e.defaults && !o.per_thread && !o.regions)
		stat_default_topdown(s);
	if (!ret && !s->ms)
		ret = stat_event_passes(s);
	if (!ret && s->ms) {
		ret = stat_main(s);
		tool_mset_free(s->ms);
		goto close;
	}
	if (!ret && !s->task)
		ret = tool_program("stat", s->p, &s->e, s->cpuset, s->setsize);
	if (!ret) {
		s->ctr = pmuctl_get_counters(s->p);
		ret = stat_main(s);
	}
close:
	pmuctl_close(s->p);
	if (s->regions_fd > 0)
		close(s->regions_fd);
out:
	if (s->out != stderr && fclose(s->out) && !ret)
		ret = tool_fail("stat", "writing '%s': %s", o.output, strerror(errno));
	CPU_FREE(aff);
	CPU_FREE(s->cpuset);
	free(s->sorted);
	free(s->th);
	free(s);
	return ret;
}
