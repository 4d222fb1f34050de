/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hardware side of pmuctl.ko, as the session layers above see it:
 * the PMU of each CPU (type.c), CPU-scope groups (wave.c), the task pool
 * (pool.c), the rdpmc scrub (pcpu.c), load, hotplug and suspend (power.c)
 * and what the sessions hold (state.c).  Every PMU register write goes
 * through pcpu.c; the files here never call above this header.
 */
#ifndef PMUCTL_KMOD_HW_H
#define PMUCTL_KMOD_HW_H

#include <linux/atomic.h>
#include <linux/cpumask.h>

#include "regs.h"

/*
 * What the hardware side calls above it, filled in by main.c.  Each runs
 * on the CPU concerned with interrupts off.
 * @pce_eval:	a wave ran here, or a CPU-scope claim came or went: make
 *		CR4.PCE what the thread running here is granted (grant.c)
 * @task_unload: the boot CPU suspends: take the counts of the task-scope
 *		thread loaded here into its totals (task.c)
 * @task_load:	the boot CPU resumed: load that thread's counts again
 */
struct pmuctl_hw_ops {
	void (*pce_eval)(void);
	void (*task_unload)(void);
	void (*task_load)(void);
};

/*
 * A group as placed: the events' counters, extra MSR values and the PMU
 * they were placed with.  A session holds one; for CPU scope (wave.c)
 * also the CPUs it is claimed on.  @id is the claim's owner in the
 * per-CPU accounting (the session id).  pmuctl_lock.
 */
struct pmuctl_group {
	u32 id;
	u32 policy;			/* PMUCTL_POLICY_* of the request */
	u32 nr;				/* events, 0: none */
	bool running;
	struct pmuctl_place place[PMUCTL_MAX_EVENTS];
	const struct pmuctl_type *type;
	cpumask_var_t cpus;		/* CPU scope: claimed on */
	cpumask_var_t wave_cpus;	/* scratch: a wave's CPUs */
	atomic64_t waves;		/* cross-CPU calls made for it */
};

/*
 * A task-scope group as the context-switch hooks need it (pool.c,
 * pcpu.c): fixed from PROGRAM to the last user.
 */
struct pmuctl_tgroup {
	u32 nr;
	u32 xregs;			/* extra MSRs it uses, by index */
	u64 counters;			/* counter registers it uses (pmuctl_reg()) */
	s32 slots;			/* its slots event, with metrics; else -1 */
	struct pmuctl_place place[PMUCTL_MAX_EVENTS];
};

/* type.c */
bool pmuctl_sentinel_used(void);
const struct pmuctl_type *pmuctl_type_of(u32 cpu);
bool pmuctl_type_known(const struct pmuctl_type *t);
const struct pmuctl_type *pmuctl_cpu_type(u32 cpu);
const struct pmuctl_type *pmuctl_first_type(void);
u32 pmuctl_nr_gp(const struct pmuctl_type *t);
u64 pmuctl_all_counters(const struct pmuctl_type *t);
void pmuctl_type_online(u32 cpu);
void pmuctl_types_init(const struct pmuctl_caps *caps);

/* pcpu.c: the rdpmc side */
void pmuctl_hw_scrub_local(void);
bool pmuctl_hw_cpu_scope_local(void);

/* wave.c: CPU scope */
int pmuctl_cs_program(struct pmuctl_group *g, const struct cpumask *cpus,
		      const struct pmuctl_event *ev, u32 n, u32 *reason,
		      u32 *index, u32 *cpu);
int pmuctl_cs_replace(struct pmuctl_group *g, u32 policy,
		      const struct pmuctl_event *ev, u32 n,
		      struct pmuctl_place *old, u32 *reason, u32 *index,
		      u32 *cpu);
int pmuctl_cs_start(struct pmuctl_group *g);
int pmuctl_cs_stop(struct pmuctl_group *g);
int pmuctl_cs_reset(struct pmuctl_group *g);
int pmuctl_cs_read(struct pmuctl_group *g, u32 cpu, u64 *val);
void pmuctl_cs_release(struct pmuctl_group *g, const struct cpumask *also);

/* pool.c: task scope */
int pmuctl_pool_program(struct pmuctl_group *g, struct pmuctl_tgroup *tg,
			const struct pmuctl_event *ev, u32 n, u32 *reason,
			u32 *index, u32 *cpu);
void pmuctl_pool_release(struct pmuctl_group *g, const struct pmuctl_tgroup *tg,
			 const struct cpumask *cpus, void (*fn)(void *),
			 void *arg);
void pmuctl_pool_in(const struct pmuctl_tgroup *tg, const u64 *val,
		    u64 *loaded, bool run);
void pmuctl_pool_out(const struct pmuctl_tgroup *tg, u64 *val,
		     const u64 *loaded);
int pmuctl_pool_read_local(const struct pmuctl_tgroup *tg, u64 *val);
void pmuctl_pool_sum(const struct pmuctl_tgroup *tg, u64 *sum, const u64 *val);
void pmuctl_pool_sum_done(const struct pmuctl_tgroup *tg, u64 *sum);
u32 pmuctl_pool_bits(void);

/* power.c */
int pmuctl_hw_init(const struct pmuctl_caps *caps,
		   const struct pmuctl_hw_ops *ops);
void pmuctl_hw_exit(void);

/* state.c */
#define PMUCTL_STAT_CLOSE	9	/* after the ioctl numbers 0x00..0x08 */
void pmuctl_stat(u32 op, s64 waves);
void pmuctl_stats_close(u64 waves);
void pmuctl_hw_holding(u32 cpu, struct pmuctl_holding *h);
void pmuctl_state_debugfs(struct dentry *dir);
void pmuctl_state_debugfs_remove(void);

#endif /* PMUCTL_KMOD_HW_H */
