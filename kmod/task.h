/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside task scope (mon.c, task.c, inherit.c): the session's context, a
 * counted thread's mon, and what a thread leaves when it stops being
 * counted.  Locks: pmuctl_lock serializes PROGRAM, START, STOP, RESET,
 * READ and RELEASE; tctx->lock (raw: taken in the probes, preemption off)
 * the list of mons, the spares, the folded totals and the flags;
 * mon->lock (raw, IRQs off: the sched hooks and cross-CPU calls) a
 * thread's counts and where they are loaded.  Order: tctx->lock, then
 * mon->lock.
 */
#ifndef PMUCTL_KMOD_TASK_H
#define PMUCTL_KMOD_TASK_H

#include <linux/list.h>
#include <linux/pid.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "pmuctl.h"

#define PMUCTL_TASK_SPARES	4

/* What is left of a thread no longer counted, for PMUCTL_IOC_THREADS. */
struct pmuctl_trec {
	struct list_head node;
	struct pid *pid;
	struct pid *tgid;
	u64 val[];
};

/**
 * struct pmuctl_tctx - what a task-scope session counts
 * @ref:	the session's, and each mon's
 * @lock:	@mons, @spares, @fold, @nr_threads, @exec_pending, @dead, @gone
 * @mons:	the counted threads
 * @spares:	mons allocated ahead for inherited threads
 * @nr_spares:	on @spares
 * @g:		the group, fixed at PROGRAM
 * @fold:	counts of threads no longer counted (exited, detached)
 * @nr_threads:	mons on @mons
 * @nr_lost:	threads created that are not counted
 * @inherit:	PMUCTL_PROGRAM_INHERIT
 * @enabled:	counting (START .. STOP); READ_ONCE in the hooks
 * @exec_pending: ENABLE_ON_EXEC still waits for the exec
 * @dead:	released: nothing counts any more
 * @reset_gen:	RESETs so far; a mon that has not seen the last one counts
 *		from 0
 * @first:	the PROGRAM caller's mon, until PROGRAM succeeds
 * @gone:	struct pmuctl_trec of threads no longer counted
 * @nr_gone:	entries on @gone
 * @nr_dropped:	threads no longer counted without an entry on @gone
 * @free:	the last put's free, in process context
 */
struct pmuctl_tctx {
	refcount_t ref;
	raw_spinlock_t lock;	/* see above */
	struct list_head mons;
	struct list_head spares;
	u32 nr_spares;
	struct pmuctl_tgroup g;
	u64 fold[PMUCTL_MAX_EVENTS];
	u32 nr_threads;
	atomic_t nr_lost;
	bool inherit;
	bool enabled;
	bool exec_pending;
	bool dead;
	u64 reset_gen;
	struct pmuctl_mon *first;
	struct list_head gone;
	u32 nr_gone;
	u32 nr_dropped;
	struct pmuctl_deferred free;
};

/**
 * struct pmuctl_mon - one counted thread
 * @pn:		on the thread's preempt notifier list while registered
 * @t:		its session's context (a reference)
 * @node:	in @t->mons while @listed, in @t->spares while spare
 * @lock:	@cpu, @dead, @reset_seen, @val, @loaded
 * @ref:	1 while registered, 1 while listed, 1 while @refill is queued
 * @cpu:	the CPU its counts are loaded on, -1 when switched out
 * @dead:	counts nothing more (released, detached)
 * @listed:	on @t->mons
 * @reset_seen:	@t->reset_gen as last applied to @val
 * @val:	the thread's counts (64 bits), as of its last switch-out or
 *		load
 * @loaded:	what each counter held when loaded
 * @pid:	the thread (a reference), for PMUCTL_IOC_THREADS
 * @tgid:	its process (a reference)
 * @rec:	the record it leaves when it stops being counted, allocated
 *		with it; NULL once used or freed
 * @refill_queued: @refill is queued (only the thread: probes, callback)
 * @refill_module: detached while @refill was queued: the module reference
 *		of the registration is @refill's to drop (mon_refill())
 * @refill:	task work: allocate the spares the thread's forks took
 * @rcu:	@refill's module reference, dropped after a grace period
 * @free:	the last put's free, in process context
 */
struct pmuctl_mon {
	struct preempt_notifier pn;
	struct pmuctl_tctx *t;
	struct list_head node;
	raw_spinlock_t lock;
	refcount_t ref;
	int cpu;
	bool dead;
	bool listed;
	u64 reset_seen;
	u64 val[PMUCTL_MAX_EVENTS];
	u64 loaded[PMUCTL_MAX_EVENTS];
	struct pid *pid;
	struct pid *tgid;
	struct pmuctl_trec *rec;
	bool refill_queued;
	bool refill_module;
	struct callback_head refill;
	struct rcu_head rcu;
	struct pmuctl_deferred free;
};

/* The mon loaded on each CPU; only that CPU, IRQs off. */

/* mon.c */
void pmuctl_trec_free(struct pmuctl_trec *r);
void pmuctl_trec_free_list(struct list_head *list);
struct pmuctl_mon *pmuctl_mon_alloc(u32 n);
void pmuctl_mon_free(struct pmuctl_mon *m);
void pmuctl_tctx_put(struct pmuctl_tctx *t);
void pmuctl_mon_put(struct pmuctl_mon *m);
void pmuctl_mon_init(struct pmuctl_mon *m, struct pmuctl_tctx *t,
		     struct task_struct *p);
void pmuctl_mon_load(struct pmuctl_mon *m);
void pmuctl_mon_unload(struct pmuctl_mon *m);
struct pmuctl_mon *pmuctl_mon_current(void);
struct pmuctl_mon *pmuctl_mon_here(void);
void pmuctl_mon_detach(struct pmuctl_mon *m);
void pmuctl_mon_cleanup(bool all);
void pmuctl_mon_refill_queue(struct pmuctl_mon *m);

#endif /* PMUCTL_KMOD_TASK_H */
