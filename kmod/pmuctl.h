/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctl.ko's session layers (regs.h has the whole map): the rdpmc grant
 * (grant.c), task scope (task.c), sessions (session.c), the commands
 * (ioctl.c) and the device (main.c).  They reach the hardware only through
 * hw.h.
 */
#ifndef PMUCTL_KMOD_H
#define PMUCTL_KMOD_H

#include <linux/cpumask.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/mm_types.h>
#include <linux/uidgid.h>

#include "hw.h"

/* A user (uid) with unprivileged sessions open; pmuctl_lock. */
struct pmuctl_user {
	struct hlist_node node;		/* in session.c's table, by uid */
	kuid_t uid;
	u32 nr_sessions;
	struct list_head sessions;	/* pmuctl_session.user_node */
};

struct pmuctl_tctx;
struct pmuctl_grant;

/*
 * An open /dev/pmuctl.  @g is its group (g.id the session id, g.nr 0
 * when it holds none); pmuctl_lock for everything but @unpriv, fixed.
 */
struct pmuctl_session {
	struct pmuctl_group g;
	bool unpriv;			/* opened without CAP_PERFMON/CAP_SYS_ADMIN */
	struct pmuctl_user *user;	/* unprivileged sessions' user, or NULL */
	struct list_head user_node;	/* in user->sessions */
	u64 gen;			/* pmuctl_info.generation */
	struct mm_struct *mm;		/* of the process that programmed, or NULL */
	struct list_head grants;	/* struct pmuctl_grant: threads granted rdpmc */
	cpumask_var_t revoke_cpus;	/* scratch: where revoked grants may run */
	struct pmuctl_tctx *task;	/* task scope: the counted threads, or NULL */
};

/* grant.c */
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

/* task.c */
int pmuctl_task_init(void);
void pmuctl_task_exit(void);
struct pmuctl_tctx *pmuctl_task_alloc(u32 flags, u32 n);
void pmuctl_task_free(struct pmuctl_tctx *t);
int pmuctl_task_program(struct pmuctl_session *s, struct pmuctl_tctx *t,
			const struct pmuctl_event *ev, u32 n,
			struct pmuctl_grant **grant, u32 *reason, u32 *index,
			u32 *cpu);
void pmuctl_task_fill(struct pmuctl_tctx *t);
void pmuctl_task_release(struct pmuctl_session *s);
int pmuctl_task_run(struct pmuctl_session *s, bool run, bool zero);
int pmuctl_task_read(struct pmuctl_session *s, bool thread, u64 *val,
		     u32 *nr_threads, u32 *nr_lost);
void pmuctl_task_threads(struct pmuctl_session *s, u8 *buf, u32 room, u32 esz,
			 u32 *written, u32 *total, u32 *dropped);
int pmuctl_task_grant(struct pmuctl_session *s, struct pmuctl_grant **g);
void pmuctl_task_cleanup(void);
void pmuctl_task_unload_local(void);
void pmuctl_task_load_local(void);

/* session.c */
struct pmuctl_session *pmuctl_session_open(bool priv, int paranoid);
void pmuctl_session_close(struct pmuctl_session *s);
int pmuctl_session_policy(const struct pmuctl_session *s, bool task,
			  int paranoid, u32 *policy, u32 *reason);
int pmuctl_session_program(struct pmuctl_session *s, bool task,
			   const struct cpumask *cpus,
			   const struct pmuctl_event *ev, u32 n, u32 policy,
			   struct pmuctl_tctx **tctx, struct pmuctl_grant **grant,
			   int paranoid, u32 *reason, u32 *index, u32 *cpu);
int pmuctl_session_run(struct pmuctl_session *s, unsigned int cmd);
int pmuctl_session_replace(struct pmuctl_session *s,
			   const struct cpumask *cpus,
			   const struct pmuctl_event *ev, u32 n, u32 policy,
			   int paranoid, struct pmuctl_place *old, u32 *reason,
			   u32 *index, u32 *cpu);
void pmuctl_session_release(struct pmuctl_session *s);

/* ioctl.c */
long pmuctl_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

#endif /* PMUCTL_KMOD_H */
