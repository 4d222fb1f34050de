/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctl.ko internals shared by main.c (device, sessions), ioctl.c
 * (commands), hw.c (the only file that touches MSRs and IPIs), grant.c (the
 * rdpmc grant: CR4.PCE through preempt notifiers) and regmodel.c (the test
 * register model).
 */
#ifndef PMUCTL_KMOD_H
#define PMUCTL_KMOD_H

#include <linux/cpumask.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/mm_types.h>
#include <linux/uidgid.h>

#include "core.h"

/* Where MSR accesses go: the CPU, or the test register model. */
struct pmuctl_backend {
	const char *name;
	u32 kind;				/* PMUCTL_BACKEND_* */
	int (*read)(u32 msr, u64 *val);		/* on this CPU, IRQs off */
	int (*write)(u32 msr, u64 val);		/* on this CPU, IRQs off */
	int (*cpuid)(struct pmuctl_cpuid *id);	/* caps source */
};

/*
 * One core type's PMU.  Every CPU of a non-hybrid part has the same one;
 * a hybrid part (CPUID.(7,0):EDX[15]) has one per core type, decoded on
 * a CPU of that type (hw.c).  Never changed once published.
 */
struct pmuctl_type {
	const struct pmuctl_model *model;
	struct pmuctl_caps caps;
};

#define PMUCTL_MAX_TYPES	4

/*
 * The PMU this module drives.  @be, @hybrid, @version and, on a
 * non-hybrid part, type[0] are fixed at load; a hybrid part's types are
 * found as its CPUs come online (the first ones at load) and appended
 * under the CPU hotplug lock; each CPU reaches its own through
 * pmuctl_cpu_type().
 */
struct pmuctl_pmu {
	const struct pmuctl_backend *be;
	bool hybrid;
	u32 version;			/* CPUID.0AH:EAX[7:0], every type's */
	u32 nr_types;
	struct pmuctl_type type[PMUCTL_MAX_TYPES];
};

extern struct pmuctl_pmu pmuctl_pmu;
extern struct mutex pmuctl_lock;	/* serializes all configuration */

/* Module parameters (main.c), read with READ_ONCE. */
extern int pmuctl_paranoid;		/* mirrors kernel.perf_event_paranoid */
extern unsigned int pmuctl_user_max_counters;	/* per unprivileged user and CPU */
extern unsigned int pmuctl_task_max_threads;	/* counted at once per task session */

/* A user (uid) with unprivileged sessions open; pmuctl_lock. */
struct pmuctl_user {
	struct hlist_node node;		/* in main.c's table, by uid */
	kuid_t uid;
	u32 nr_sessions;
	struct list_head sessions;	/* pmuctl_session.user_node */
};

/*
 * A task-scope group as the context-switch code needs it (task.c, hw.c):
 * fixed from PROGRAM to the last user.
 */
struct pmuctl_tgroup {
	u32 nr;
	u32 xregs;			/* extra MSRs it uses, by index */
	u64 counters;			/* counter indexes it uses */
	struct pmuctl_place place[PMUCTL_MAX_EVENTS];
};

struct pmuctl_tctx;
struct pmuctl_grant;

struct pmuctl_session {
	u32 id;
	bool unpriv;			/* opened without CAP_PERFMON/CAP_SYS_ADMIN */
	u32 policy;			/* PMUCTL_POLICY_* of the group (PROGRAM) */
	struct pmuctl_user *user;	/* unprivileged sessions' user, or NULL */
	struct list_head user_node;	/* in user->sessions; pmuctl_lock */
	u32 nr;				/* events in the group, 0: none */
	u64 gen;			/* pmuctl_info.generation; pmuctl_lock */
	bool running;
	struct pmuctl_place place[PMUCTL_MAX_EVENTS];
	cpumask_var_t cpus;		/* CPUs the group is claimed on */
	struct mm_struct *mm;		/* of the process that programmed, or NULL */
	struct list_head grants;	/* struct pmuctl_grant: threads granted rdpmc */
	cpumask_var_t wave_cpus;	/* scratch: a wave's CPUs and the mm's */
	atomic64_t waves;		/* cross-CPU calls made for the session */
	struct pmuctl_tctx *task;	/* task scope: the counted threads, or NULL */
	const struct pmuctl_type *type;	/* the PMU its group was placed with */
};

/* ioctl.c */
long pmuctl_ioctl(struct file *file, unsigned int cmd, unsigned long arg);
void pmuctl_stats_close(u64 waves);
void pmuctl_stats_debugfs(struct dentry *dir);

/* hw.c */
extern const struct pmuctl_backend pmuctl_msr;
int pmuctl_hw_probe(const struct pmuctl_backend *be, u32 nr_gp);
int pmuctl_hw_init(const struct pmuctl_caps *caps);
const struct pmuctl_type *pmuctl_cpu_type(u32 cpu);
const struct pmuctl_type *pmuctl_first_type(void);
void pmuctl_hw_exit(void);
int pmuctl_hw_program(struct pmuctl_session *s, const struct cpumask *cpus,
		      const struct pmuctl_event *ev, u32 n,
		      struct pmuctl_place *place, u32 *reason, u32 *index,
		      u32 *cpu);
int pmuctl_hw_start(struct pmuctl_session *s);
int pmuctl_hw_stop(struct pmuctl_session *s);
int pmuctl_hw_reset(struct pmuctl_session *s);
int pmuctl_hw_read(struct pmuctl_session *s, u32 cpu, u64 *val);
void pmuctl_hw_release(struct pmuctl_session *s);
void pmuctl_hw_holding(u32 cpu, struct pmuctl_holding *h);
void pmuctl_hw_debugfs(struct dentry *dir);
int pmuctl_hw_task_program(struct pmuctl_session *s, struct pmuctl_tgroup *g,
			   const struct pmuctl_event *ev, u32 n,
			   u32 *reason, u32 *index);
void pmuctl_hw_task_release(struct pmuctl_session *s,
			    const struct pmuctl_tgroup *g, struct cpumask *cpus,
			    void (*fn)(void *), void *arg);
void pmuctl_hw_task_in(const struct pmuctl_tgroup *g, const u64 *val,
		       u64 *loaded, bool run);
void pmuctl_hw_task_out(const struct pmuctl_tgroup *g, u64 *val,
			const u64 *loaded);
int pmuctl_hw_task_read_local(const struct pmuctl_tgroup *g, u64 *val);
void pmuctl_hw_task_scrub_local(void);
bool pmuctl_hw_cpu_scope_local(void);
u32 pmuctl_hw_task_bits(void);
u32 pmuctl_hw_task_policy(void);

/* task.c */
int pmuctl_task_init(void);
void pmuctl_task_exit(void);
struct pmuctl_tctx *pmuctl_task_alloc(u32 flags);
void pmuctl_task_free(struct pmuctl_tctx *t);
int pmuctl_task_program(struct pmuctl_session *s, struct pmuctl_tctx *t,
			const struct pmuctl_event *ev, u32 n,
			struct pmuctl_place *place, struct pmuctl_grant **grant,
			u32 *reason, u32 *index);
void pmuctl_task_release(struct pmuctl_session *s);
int pmuctl_task_run(struct pmuctl_session *s, bool run, bool zero);
int pmuctl_task_read(struct pmuctl_session *s, bool thread, u64 *val,
		     u32 *nr_threads, u32 *nr_lost);
void pmuctl_task_threads(struct pmuctl_session *s, u8 *buf, u32 room, u32 esz,
			 u32 *written, u32 *total, u32 *dropped);
int pmuctl_task_grant(struct pmuctl_session *s, struct pmuctl_grant **g);
void pmuctl_task_cleanup(void);

/* main.c: the module parameter rdpmc, 0 or 1 */
u32 pmuctl_rdpmc_policy(void);

/* grant.c */
struct pmuctl_grant;
int pmuctl_grant_init(void);
void pmuctl_grant_exit(void);
int pmuctl_grant_alloc(struct pmuctl_grant **g);
void pmuctl_grant_free(struct pmuctl_grant *g);
void pmuctl_grant_add(struct pmuctl_session *s, struct pmuctl_grant *g,
		      bool cpu_check);
bool pmuctl_grant_held(const struct pmuctl_session *s);
bool pmuctl_grant_revoke_prepare(struct pmuctl_session *s, struct cpumask *cpus);
void pmuctl_grant_eval_local(void);
void pmuctl_grant_revoke_finish(struct pmuctl_session *s);
void pmuctl_grant_cleanup(void);

/* regmodel.c, in test builds only */
#ifdef PMUCTL_REGMODEL
extern const struct pmuctl_backend pmuctl_regmodel;
int pmuctl_regmodel_init(struct dentry *dir);
void pmuctl_regmodel_exit(void);
#endif

#endif /* PMUCTL_KMOD_H */
