/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pmuctl tool's internals: what the subcommands (user/tool_*.c) share.
 *
 * Exit status of every subcommand: 0 success, 1 failure (the device, the
 * PMU, an event, the command), 2 usage error.  A failure prints one line
 * on stderr, "pmuctl CMD: what went wrong: what to do".
 */
#ifndef PMUCTL_TOOL_H
#define PMUCTL_TOOL_H

#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "libpmuctl.h"
#include "metrics.h"

struct pmuctl_model;

#ifndef ARRAY_SIZE	/* kselftest.h has its own, for the tool's tests */
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

#define EXIT_FAIL	1
#define EXIT_USAGE	2

/* Largest CPU number + 1 the tool handles: the module's bitmap limit. */
#define TOOL_MAX_CPUS	(PMUCTL_MAX_CPU_BITMAP * 8)

/* The subcommands: argv[0] is the subcommand's name. */
int cmd_check(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_watch(int argc, char **argv);
void check_usage(FILE *f);
void info_usage(FILE *f);
void list_usage(FILE *f);
void stat_usage(FILE *f);
void watch_usage(FILE *f);

/*
 * The PMUs --pmu names (check, list), with the CPUID the register model
 * reports for them (FACTS.md 1: CPUID is the authority, and libpfm4 and
 * Linux drive 2 generic counters on KNL/KNM).
 */
struct tool_pmu {
	const char *name;	/* --pmu */
	const char *pfm;	/* libpfm4 PMU that names its events */
	uint32_t model_id;	/* PMUCTL_MODEL_* */
	uint8_t family;
	uint8_t model;
	uint8_t version;
	uint8_t nr_gp;
	uint8_t nr_fixed;
	uint8_t width;		/* generic and fixed */
	uint8_t any_depr;	/* CPUID.0AH:EDX[15], AnyThread deprecated (v5+) */
	uint32_t fixed_bitmap;	/* v5+: CPUID.0AH:ECX, fixed counters past nr_fixed */
	const char *ilist;	/* Intel's event list (events/intel/), NULL: none */
};

extern const struct tool_pmu tool_pmus[];
extern const unsigned int tool_nr_pmus;

/* The entry named @name, or NULL. */
const struct tool_pmu *tool_pmu_find(const char *name);

/*
 * The caps the module would decode on a CPU of @p, as pmuctl check --pmu
 * takes them (no --caps).  Return: 0, or the decoder's error.
 */
int tool_pmu_caps(const struct tool_pmu *p, struct pmuctl_caps *caps);

/* "knm, knl, skl, ...": every --pmu name, for messages. */
const char *tool_pmu_names(void);

/*
 * Metrics (user/tool_metrics.c): what -M SPEC names, resolved for one
 * PMU, with the passes that count it.  Per metric either @why (not
 * computable: why) or its events (@evidx, indexes into @ev) and passes
 * @first..@last (the same pass unless its events cannot be counted
 * together).
 */
#define TOOL_MSET_METRICS	512
#define TOOL_MSET_EVENTS	1024
#define TOOL_MSET_PASSES	64

struct tool_mstate {
	char why[256];
	unsigned int evidx[256];
	unsigned int nev;		/* its events, TOPDOWN.SLOTS added */
	unsigned int idx[PMUCTL_MAX_EVENTS + 1];	/* those, in ev[] */
	unsigned int first, last;
};

struct tool_mset {
	const struct pmuctl_model *model;
	const struct pmuctl_caps *caps;
	const struct pmuctl_ilist *il;
	const struct pmuctl_mlist *ml;
	const struct pmuctl_imetric *m[TOOL_MSET_METRICS];
	struct tool_mstate st[TOOL_MSET_METRICS];
	unsigned int nm;
	struct {
		char name[96];		/* Intel's, with Intel's modifiers */
		struct pmuctl_event ev;
	} ev[TOOL_MSET_EVENTS];
	unsigned int nev;
	unsigned int pass[TOOL_MSET_PASSES][PMUCTL_MAX_EVENTS];
	unsigned int npass[TOOL_MSET_PASSES];
	unsigned int passes;
};

/*
 * The metrics @spec ("NAME|GROUP[,...]", TopdownL1 being Intel's TmaL1)
 * names in Intel's list @list, on the core's @model with @caps; @pmu names
 * the PMU in messages.  Prints a usage error for a name that is no metric
 * or group, or a list without metrics.  Return: 0 and *@out (free it with
 * tool_mset_free()), or EXIT_USAGE / EXIT_FAIL.
 */
int tool_mset_build(const char *cmd, const struct pmuctl_model *model,
		    const struct pmuctl_caps *caps, const char *list,
		    const char *pmu, const char *spec, struct tool_mset **out);
/*
 * @n events (-e), each its own, in passes: each in order into the first
 * pass that can count it with those already there.  *@out->passes is 0
 * when an event fits no pass alone (the module then says which rule).
 * Return: 0, -E2BIG, -ENOMEM.
 */
int tool_mset_events(const struct pmuctl_model *model,
		     const struct pmuctl_caps *caps, const struct pmuctl_event *ev,
		     const char *const *names, unsigned int n,
		     struct tool_mset **out);
/*
 * Add @n events (named @names) to @ms's passes, each into the first that
 * can count it with those already there (an event already in a pass is
 * not added again).  Return: 0, or -E2BIG when one fits no pass.
 */
int tool_mset_add(struct tool_mset *ms, const struct pmuctl_event *ev,
		  const char *const *names, unsigned int n);
void tool_mset_free(struct tool_mset *ms);

/*
 * Print "pmuctl CMD: <message>" and "try 'pmuctl CMD --help'" on stderr.
 * Return: EXIT_USAGE.
 */
int tool_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Print "pmuctl CMD: <message>" on stderr.  Return: EXIT_FAIL. */
int tool_fail(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The device path pmuctl_open(NULL, ...) uses: $PMUCTL_DEVICE or /dev/pmuctl. */
const char *tool_device_path(void);

/*
 * Open a session without the rdpmc emulation (the tool reads with
 * PMUCTL_IOC_READ).  On failure print the one line that says why and what
 * to do (module not loaded, no PMU, permissions, not the device, ABI):
 * pmuctl_strerror()'s, the library's words.
 * Return: 0 or -errno.
 */
int tool_open(const char *cmd, struct pmuctl **out);

/*
 * Same, without printing: for list, which falls back to another PMU.
 * tool_open_explain() prints the line for a failure of it, right after it
 * (the library keeps the last failure of the thread's pmuctl_open()).
 */
int tool_open_quiet(struct pmuctl **out);
void tool_open_explain(const char *cmd, int ret);

/*
 * Strict decimal in [min, max].  Return: 0, -EINVAL (not a number),
 * -ERANGE (out of range).
 */
int tool_parse_uint(const char *s, unsigned long long min,
		    unsigned long long max, unsigned long long *out);

/*
 * Parse a CPU list "0-3,6" into @set (size @setsize bytes, cleared first).
 * Return: 0; -EINVAL (malformed: @err says what), -ERANGE (a CPU at or
 * above TOOL_MAX_CPUS or the set's capacity).
 */
int tool_cpulist_parse(const char *s, cpu_set_t *set, size_t setsize,
		       char *err, size_t errlen);

/* Format @set as "0-3,6" into @buf; "none" when empty.  Return: @buf. */
char *tool_cpulist_format(const cpu_set_t *set, size_t setsize, char *buf,
			  size_t len);

/* A CPU set able to hold TOOL_MAX_CPUS, zeroed; NULL without memory. */
cpu_set_t *tool_cpuset_alloc(size_t *setsize);

/*
 * The CPUs the calling thread may run on (online ones: the kernel masks
 * the affinity with the active CPUs).  Return: 0 or -errno.
 */
int tool_affinity(cpu_set_t *set, size_t setsize);

/* Events to count and how they are named in reports. */
struct tool_events {
	struct pmuctl_event ev[PMUCTL_MAX_EVENTS];
	const char *name[PMUCTL_MAX_EVENTS];	/* as typed, or a default's name */
	char owned[PMUCTL_MAX_EVENTS][40];	/* storage for default names */
	unsigned int nr;
	bool defaults;				/* no -e: the default set */
	bool user_only;				/* the defaults, made user mode */
};

/*
 * Check the -e list's shape before anything opens the device: no empty
 * entry, at most PMUCTL_MAX_EVENTS events.  Prints the usage error.
 * Return: 0 or EXIT_USAGE.
 */
int tool_events_syntax(const char *cmd, const char *list);

/*
 * Parse the -e list against the session's PMU (libpfm4 names of the
 * module's model, or raw r<config>[:<extra>]), or pick the default set
 * when @list is NULL.  Prints the failure.
 * Return: 0, EXIT_FAIL (an event libpfm4 cannot name), EXIT_USAGE (a
 * malformed list).
 */
int tool_events_get(const char *cmd, const struct pmuctl_info *info,
		    const char *list, struct tool_events *e);

/*
 * Program @e on @cpus.  When the default events are refused because an
 * unprivileged session may not count kernel mode, they are retried at
 * user level only and renamed NAME:u.  Prints the failure.
 * Return: 0 or EXIT_FAIL.
 */
int tool_program(const char *cmd, struct pmuctl *p, struct tool_events *e,
		 const cpu_set_t *cpus, size_t setsize);

/*
 * The parts of tool_program(), for a PROGRAM made in another process
 * (pmuctl stat's child).  tool_program_quiet() programs task scope
 * (pmuctl_program_task() with @task_flags) when @task, else @cpus, with
 * the same retry of the defaults in user mode, and prints nothing:
 * 0 or -errno, *@err filled.  tool_program_explain() prints the line for
 * its failure @ret and returns EXIT_FAIL.  tool_events_user_only() is the
 * retry's change of @e (config without OS, names NAME:u), once.
 */
int tool_program_quiet(struct pmuctl *p, struct tool_events *e, bool task,
		       unsigned int task_flags, const cpu_set_t *cpus,
		       size_t setsize, struct pmuctl_error *err);
int tool_program_explain(const char *cmd, int ret, const struct pmuctl_error *err,
			 const struct tool_events *e);
void tool_events_user_only(struct tool_events *e);

/*
 * What event @i counted from the raw values @prev to @v: pmuctl_delta(),
 * or for a topdown metric (counter PMUCTL_COUNTER_METRICS) the slots it
 * counted, pmuctl_topdown_slots() with the group's TOPDOWN.SLOTS at both
 * ends (0 where the metric's share shrank with the rounding of its byte).
 */
uint64_t tool_event_delta(const struct pmuctl_counters *c,
			  const struct tool_events *e, unsigned int i,
			  const uint64_t *prev, const uint64_t *v);

/* "fixed2", "pmc0": the counter the module chose (an rdpmc ECX value). */
const char *tool_counter_name(uint32_t counter, char *buf, size_t len);

/* What a report says about the backend, in text, CSV and JSON. */
const char *tool_backend_name(uint32_t backend);
/* The line every table prints when counts come from the register model. */
#define TOOL_MODEL_NOTE \
	"register model backend: the module's test build counts nothing; the values are what READ returned"

/* Write @s as a JSON string (quotes and escapes) to @f. */
void tool_json_str(FILE *f, const char *s);

/*
 * pmuctl watch's fleet output (user/tool_prom.c): Prometheus text 0.0.4
 * or OpenMetrics 1.0, one counter family per event, the samples
 * PREFIX_total{cpu="N",event="NAME"} VALUE.
 */
enum tool_prom_format {
	TOOL_PROM_NONE,
	TOOL_PROM_TEXT,		/* --format prometheus */
	TOOL_PROM_OPENMETRICS,	/* --format openmetrics: ends with # EOF */
};

struct tool_prom {
	enum tool_prom_format format;
	unsigned int nr_events;
	const char *const *name;	/* [nr_events]: the events as given */
	unsigned int nr_cpus;
	const unsigned int *cpu;	/* [nr_cpus]: their numbers */
	const uint64_t *total;		/* [nr_cpus][nr_events] */
	const bool *counted;		/* [nr_cpus]: false leaves a CPU out */
};

/* Write "pmuctl_" and @event with each byte outside [a-zA-Z0-9_] as '_'. */
void tool_prom_name(FILE *f, const char *event);
/* Write @s as a label value: quoted; backslash, quote, newline escaped. */
void tool_prom_label(FILE *f, const char *s);
/* Write one exposition of @m to @f.  Return: 0 or -EIO. */
int tool_prom_write(FILE *f, const struct tool_prom *m);
/*
 * Replace @path atomically by an exposition of @m: write @path.tmp,
 * fsync it, rename it over @path (removed on failure).
 * Return: 0 or -errno.
 */
int tool_prom_replace(const char *path, const struct tool_prom *m);

/*
 * Starting a command to count (user/tool_launch.c, which explains both
 * launches): exact, held by ptrace at its exec and started counting there;
 * or plain, counting started just before its exec.
 */
enum tool_launch_how {
	TOOL_LAUNCH_PLAIN,
	TOOL_LAUNCH_EXACT,
};

struct tool_launch {
	/* Set by the caller. */
	char *const *argv;		/* the command, for execvp() */
	const cpu_set_t *cpuset;	/* its affinity */
	size_t setsize;
	const sigset_t *mask;		/* its signal mask */
	const struct sigaction *sigint, *sigquit;	/* its SIGINT, SIGQUIT */
	bool plain;			/* do not try the exact launch */
	int (*start)(void *arg);	/* start counting: 0 or -errno */
	void *arg;
	/*
	 * Task mode, when set (tool_launch_task()): called in the child
	 * between fork and exec (no pinning, no ptrace, no @start), it
	 * programs the session the child shares with pmuctl and fills
	 * @result, which the child sends back: 0 or -errno.
	 */
	int (*program)(void *arg);
	void *result;			/* @result_size bytes, in both processes */
	size_t result_size;
	/* Set by tool_launch(). */
	pid_t pid;			/* -1 when there is no child to wait for */
	enum tool_launch_how how;
	bool started;			/* start() ran and returned 0 */
	bool ended;			/* already waited for: @status */
	int status;
	int trace_err;			/* errno of a refused PTRACE_SEIZE, or 0 */
	const char *failed;		/* what failed, for the message */
	int errfd;			/* internal: the child's error pipe */
};

/*
 * Fork and exec @l->argv pinned to @l->cpuset, calling @l->start exactly
 * once on the way: at the command's exec stop (exact), or just before
 * its exec (plain, or a stop signal before the exec).  Return: 0 when the
 * command runs (wait for @l->pid; it is untraced) or ended before its
 * exec (@l->ended; e.g. SIGKILL, or an exec error that tool_launch_end()
 * reports); -errno when a step of ours failed (@l->failed; the child is
 * killed and reaped, @l->started says whether to stop counting).
 */
int tool_launch(struct tool_launch *l);

/*
 * Task mode: fork; the child restores the caller's signals, calls
 * @l->program and sends back its return value and @l->result; on success
 * it execs @l->argv, where the kernel starts counting it
 * (PMUCTL_PROGRAM_ENABLE_ON_EXEC).  Return: 0 when the child programmed
 * and goes on to its exec (@l->started; wait for @l->pid; @l->result is
 * the child's), or ended before telling (@l->ended); -errno for a failure
 * of ours or of @l->program (@l->failed is "program" then, and
 * @l->result says why), the child reaped.  @l->how is
 * TOOL_LAUNCH_EXACT: nothing of pmuctl's is counted.
 */
int tool_launch_task(struct tool_launch *l);

/*
 * Once the command has been waited for: -errno when it never ran
 * (sched_setaffinity or exec failed in the child: @l->failed names which),
 * else 0.  Frees what tool_launch() held.
 */
int tool_launch_end(struct tool_launch *l);

/*
 * Would an exec under ptrace change what @cmd does?  Resolves @cmd as
 * execvp() does into @path.  Return: 0 (no, or not found), or
 * TOOL_LAUNCH_SETUID / _SETGID / _FCAPS for a set-user-ID, set-group-ID
 * (with group execute) or file-capability executable.
 */
enum { TOOL_LAUNCH_SETUID = 1, TOOL_LAUNCH_SETGID, TOOL_LAUNCH_FCAPS };
int tool_launch_privileged(const char *cmd, char *path, size_t len);

#endif /* PMUCTL_TOOL_H */
