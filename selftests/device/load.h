/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The random session load shared by stress_test and hotplug_test: worker
 * processes that open a session, PROGRAM a random group on random CPUs,
 * START, READ every CPU, RESET, STOP, RELEASE or just close, over and over.
 *
 * A group is "valid" when the module's own core (kmod/core, linked in)
 * places it on an empty PMU of the model INFO reports, so the only refusal
 * the device may give is EBUSY with a *_BUSY reason: another worker holds
 * the counters or the extra MSR.  Every other answer is recorded as the
 * worker's first error.
 *
 * Everything is driven by one seed (printed by the tests; PMUCTL_SEED in
 * the environment overrides it), worker i using seed + i.
 */
#ifndef PMUCTL_SELFTESTS_DEVICE_LOAD_H
#define PMUCTL_SELFTESTS_DEVICE_LOAD_H

#include <stdbool.h>
#include <sys/types.h>

#include "lib.h"

#define LOAD_SEED	0x706d7563746cULL	/* "pmuctl" */
#define LOAD_MAX_WORKERS 16

/* The PMU the groups are drawn for. */
struct load_env {
	struct pmuctl_info info;
	const struct pmuctl_model *model;
	__u64 cpus;		/* CPUs the groups may name: a one-word bitmap */
	bool offline_ok;	/* READ of an offline CPU (ENODEV) is fine */
	bool pin;		/* each session runs pinned to one of env->cpus */
	bool share;		/* sometimes a forked child reads the session too */
};

/* What one worker did; lives in shared memory. */
struct load_stats {
	unsigned long opens, programs, busy, reads, enodev, kills;
	bool holding;			/* the worker holds a group now */
	bool more;			/* set by the parent: go on after the rounds */
	int bad;			/* unexpected answers */
	char msg[240];			/* the first one */
};

/* The seed of this run: PMUCTL_SEED from the environment, or LOAD_SEED. */
unsigned long long load_seed(void);
/* xorshift64*: never returns the same sequence for two seeds. */
__u64 load_rand(__u64 *state);

/* INFO on @fd, the model from the core's table, all online CPUs. */
int load_env_init(struct load_env *env, int fd);

/*
 * A random group of 1..nr_gp+nr_fixed events that the core places on an
 * empty PMU of @env.  Offcore and other extra values come from a small set,
 * so workers sometimes share an extra MSR and sometimes collide.
 */
__u32 load_group(const struct load_env *env, __u64 *rs, struct pmuctl_event *ev);
/* A random non-empty subset of env->cpus. */
__u64 load_cpus(const struct load_env *env, __u64 *rs);

/*
 * One session's life: open, 1..3 times PROGRAM .. RELEASE, close (or a
 * close while the group is held).  Counts into @st; false after an
 * unexpected answer (st->msg says which).
 */
bool load_session(const struct load_env *env, __u64 *rs, struct load_stats *st);

/* Shared memory for @n load_stats, zeroed; NULL on failure. */
struct load_stats *load_stats_alloc(unsigned int n);
void load_stats_free(struct load_stats *st, unsigned int n);
/* Sum of @n workers' counters into @sum; sum->msg is the first error. */
void load_stats_sum(const struct load_stats *st, unsigned int n,
		    struct load_stats *sum);

/*
 * Fork @n workers, worker i running @rounds sessions from seed @seed + i
 * into st[i] (0: forever), then more while st[i].more is set, then
 * _exit(0).  Their pids go to @pids.
 */
int load_spawn(const struct load_env *env, unsigned int n, unsigned int rounds,
	       unsigned long long seed, struct load_stats *st, pid_t *pids);
/* Reap every worker in @pids; the number that did not exit with 0. */
unsigned int load_wait(pid_t *pids, unsigned int n);

/*
 * Why pmuctl is not back at rest, or NULL: state shows a group, a perf
 * reservation, a counter owner or an extra MSR reference; regs (when the
 * register model is there) show a non-zero EVTSEL, FIXED_CTR_CTRL,
 * GLOBAL_CTRL or extra MSR on some CPU.  Polls the state for up to @ms
 * (a killed process's session is released on its exit path).
 */
const char *load_unclean(const struct load_env *env, unsigned int ms);

#endif /* PMUCTL_SELFTESTS_DEVICE_LOAD_H */
