// SPDX-License-Identifier: GPL-2.0
/*
 * Task scope, the sessions' side: counters that follow a thread.  PROGRAM
 * counts the calling thread with a group placed in the task pool (pool.c)
 * and gives it a mon (mon.c); START, STOP, RESET, READ and THREADS act on
 * every counted thread, those running elsewhere brought up to date in one
 * wave; RELEASE ends them all.
 *
 * RELEASE frees what no one can read any more at once (the exited
 * threads' records, the spares, the dead mons' records and pid
 * references), so that a thread counted at RELEASE, however long it lives,
 * pins no more than its mon; each dead mon is unregistered by its own
 * thread later.  task.h has the locks.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>

#include "task.h"

/* Scratch for the CPUs of a wave; pmuctl_lock. */
static struct cpumask task_wave_mask;

/**
 * pmuctl_task_alloc() - room for a task-scope group and its first thread
 * @flags:	PMUCTL_PROGRAM_* of the request
 * @n:		events in the group
 *
 * Context: process, no locks (GFP_KERNEL).
 * Return: the context, or NULL.
 */
struct pmuctl_tctx *pmuctl_task_alloc(u32 flags, u32 n)
{
	struct pmuctl_tctx *t = kzalloc(sizeof(*t), GFP_KERNEL_ACCOUNT);

	if (!t)
		return NULL;
	t->first = pmuctl_mon_alloc(n);
	if (!t->first) {
		kfree(t);
		return NULL;
	}
	refcount_set(&t->ref, 1);
	raw_spin_lock_init(&t->lock);
	INIT_LIST_HEAD(&t->mons);
	INIT_LIST_HEAD(&t->spares);
	INIT_LIST_HEAD(&t->gone);
	atomic_set(&t->nr_lost, 0);
	t->inherit = flags & PMUCTL_PROGRAM_INHERIT;
	t->exec_pending = flags & PMUCTL_PROGRAM_ENABLE_ON_EXEC;
	return t;
}

/**
 * pmuctl_task_free() - give back what pmuctl_task_program() did not take
 * @t:		from pmuctl_task_alloc(), or NULL
 */
void pmuctl_task_free(struct pmuctl_tctx *t)
{
	if (t)
		pmuctl_tctx_put(t);
}

/**
 * pmuctl_task_program() - count the calling thread with a group
 * @s:		the session, holding no group; s->g.policy set
 * @t:		from pmuctl_task_alloc(); taken on success
 * @ev:		the events, copied in
 * @n:		their number
 * @grant:	rdpmc for the caller (pmuctl_grant_alloc()), or NULL; taken
 *		(set to NULL) on success
 * @reason:	on failure, PMUCTL_R_*
 * @index:	on failure, the event
 * @cpu:	on failure, the CPU, or U32_MAX
 *
 * On success s->g holds the placement.  With INHERIT, the caller fills
 * the spares (pmuctl_task_fill()) once it dropped pmuctl_lock.
 * Context: process, the thread to count; pmuctl_lock held.
 * Return: 0 or -errno; on failure nothing changed.
 */
int pmuctl_task_program(struct pmuctl_session *s, struct pmuctl_tctx *t,
			const struct pmuctl_event *ev, u32 n,
			struct pmuctl_grant **grant, u32 *reason, u32 *index,
			u32 *cpu)
{
	struct pmuctl_mon *m = t->first;
	unsigned long flags;
	int ret;

	*cpu = U32_MAX;
	pmuctl_mon_cleanup(false);
	if (pmuctl_mon_current()) {
		*reason = PMUCTL_R_TASK_BUSY;
		return -EBUSY;
	}
	ret = pmuctl_pool_program(&s->g, &t->g, ev, n, reason, index, cpu);
	if (ret)
		return ret;
	s->task = t;

	/* The grant's notifier first: the mon's, added after, runs first. */
	pmuctl_grant_add(s, *grant, s->unpriv);
	*grant = NULL;

	t->first = NULL;
	pmuctl_mon_init(m, t, current);
	raw_spin_lock(&t->lock);
	list_add(&m->node, &t->mons);
	t->nr_threads = 1;
	raw_spin_unlock(&t->lock);
	/* The session's file holds the module: this cannot be the last one. */
	__module_get(THIS_MODULE);
	local_irq_save(flags);
	preempt_notifier_register(&m->pn);
	raw_spin_lock(&m->lock);
	pmuctl_mon_load(m);
	raw_spin_unlock(&m->lock);
	local_irq_restore(flags);
	return 0;
}

/**
 * pmuctl_task_grant() - rdpmc for a thread the session counts
 * @s:		the session, holding a task-scope group
 * @g:		from pmuctl_grant_alloc(), not NULL; taken (set to NULL) when
 *		granted
 *
 * A thread the session counts asks for the rdpmc its creator got at
 * PROGRAM: a thread of the process that programmed, or of a process that
 * INHERIT counts (forked after PROGRAM, or that exec'd since: "pmuctl
 * stat --regions" counts its command so).  What it reads is its own:
 * while it runs, the group's counters hold its counts (its mon loads
 * them) and the grant zeroes the rest (grant.c).  The grant lives in the
 * mm it is given in (exec ends it); an mm that is not dumpable by its
 * user (set-user-ID, or credentials changed since) gets none, as the exec
 * probe counts no such image.  Its mon is registered again after the
 * grant, so that at sched_in it runs first: its counters are loaded
 * before the grant zeroes what is not the thread's.
 *
 * Context: process, the thread to grant; pmuctl_lock held.
 * Return: 0 (granted, or held already); -EPERM when the session does not
 * count the caller, or its mm is not dumpable by its user.
 */
int pmuctl_task_grant(struct pmuctl_session *s, struct pmuctl_grant **g)
{
	struct pmuctl_mon *m = pmuctl_mon_current();
	unsigned long flags;

	if (!m || m->t != s->task || !current->mm ||
	    get_dumpable(current->mm) != SUID_DUMP_USER)
		return -EPERM;
	if (pmuctl_grant_held(s))
		return 0;
	pmuctl_grant_add(s, *g, s->unpriv);
	*g = NULL;
	local_irq_save(flags);
	preempt_notifier_unregister(&m->pn);
	preempt_notifier_register(&m->pn);
	local_irq_restore(flags);
	return 0;
}

/* A wave's part on one CPU: bring the mon loaded here up to date. */
static void mon_resync_fn(void *arg)
{
	struct pmuctl_mon *m = pmuctl_mon_here();

	if (!m || m->t != arg)
		return;
	raw_spin_lock(&m->lock);
	pmuctl_mon_unload(m);
	pmuctl_mon_load(m);
	raw_spin_unlock(&m->lock);
}

/* The release wave's part: the mon loaded here, now dead, leaves. */
static void mon_release_fn(void *arg)
{
	struct pmuctl_mon *m = pmuctl_mon_here();

	if (!m || m->t != arg)
		return;
	raw_spin_lock(&m->lock);
	pmuctl_mon_unload(m);
	raw_spin_unlock(&m->lock);
}

/* The CPUs where a mon of @t is loaded, into task_wave_mask.  t->lock held. */
static void tctx_loaded_cpus(struct pmuctl_tctx *t)
{
	struct pmuctl_mon *m;
	unsigned long flags;

	cpumask_clear(&task_wave_mask);
	list_for_each_entry(m, &t->mons, node) {
		raw_spin_lock_irqsave(&m->lock, flags);
		if (m->cpu >= 0)
			cpumask_set_cpu(m->cpu, &task_wave_mask);
		raw_spin_unlock_irqrestore(&m->lock, flags);
	}
}

/*
 * Bring every loaded mon of @t up to date (its counts taken in, the
 * session's flags applied) in one wave.  A mon loaded after t->lock was
 * dropped below saw the flags already.  pmuctl_lock held.
 */
static void tctx_resync(struct pmuctl_session *s, struct pmuctl_tctx *t)
{
	raw_spin_lock(&t->lock);
	tctx_loaded_cpus(t);
	raw_spin_unlock(&t->lock);
	if (cpumask_empty(&task_wave_mask))
		return;
	atomic64_inc(&s->g.waves);
	on_each_cpu_mask(&task_wave_mask, mon_resync_fn, t, true);
}

/**
 * pmuctl_task_run() - START, STOP or RESET a task-scope group
 * @s:		the session, holding a task-scope group
 * @run:	count (START) or not (STOP); ignored with @zero
 * @zero:	RESET: every thread's counts and the totals to 0
 *
 * Threads running on other CPUs take the change before this returns.
 * Context: pmuctl_lock held.
 * Return: 0.
 */
int pmuctl_task_run(struct pmuctl_session *s, bool run, bool zero)
{
	struct pmuctl_tctx *t = s->task;
	LIST_HEAD(gone);

	raw_spin_lock(&t->lock);
	if (zero) {
		WRITE_ONCE(t->reset_gen, t->reset_gen + 1);
		memset(t->fold, 0, sizeof(t->fold));
		list_splice_init(&t->gone, &gone);
		t->nr_gone = 0;
		t->nr_dropped = 0;
	} else {
		WRITE_ONCE(t->enabled, run);
		t->exec_pending = false;
		s->g.running = run;
	}
	raw_spin_unlock(&t->lock);
	pmuctl_trec_free_list(&gone);
	tctx_resync(s, t);
	return 0;
}

/* One PMUCTL_IOC_THREADS entry.  t->lock held. */
static void threads_entry(u8 *e, struct pid *pid, struct pid *tgid, u32 flags,
			  const u64 *val, u32 nr)
{
	struct pmuctl_thread *th = (struct pmuctl_thread *)e;

	th->tid = pid ? pid_vnr(pid) : 0;
	th->tgid = tgid ? pid_vnr(tgid) : 0;
	th->flags = flags;
	if (val)
		memcpy(th->values, val, nr * sizeof(th->values[0]));
}

/**
 * pmuctl_task_threads() - a task-scope group's counts per thread
 * @s:		the session, holding a task-scope group
 * @buf:	room for @room entries of @esz bytes (zeroed)
 * @room:	how many fit
 * @esz:	entry size: struct pmuctl_thread and at least s->g.nr values
 * @written:	out: entries filled in
 * @total:	out: entries the session has
 * @dropped:	out: threads gone without an entry
 *
 * Context: pmuctl_lock held.
 */
void pmuctl_task_threads(struct pmuctl_session *s, u8 *buf, u32 room, u32 esz,
			 u32 *written, u32 *total, u32 *dropped)
{
	struct pmuctl_tctx *t = s->task;
	struct pmuctl_trec *r;
	struct pmuctl_mon *m;
	unsigned long flags;
	u32 n = 0;

	tctx_resync(s, t);
	raw_spin_lock(&t->lock);
	list_for_each_entry(m, &t->mons, node) {
		if (n < room) {
			raw_spin_lock_irqsave(&m->lock, flags);
			threads_entry(buf + (size_t)n * esz, m->pid, m->tgid, 0,
				      m->reset_seen == READ_ONCE(t->reset_gen) ?
				      m->val : NULL, t->g.nr);
			raw_spin_unlock_irqrestore(&m->lock, flags);
		}
		n++;
	}
	list_for_each_entry(r, &t->gone, node) {
		if (n < room)
			threads_entry(buf + (size_t)n * esz, r->pid, r->tgid,
				      PMUCTL_THREAD_EXITED, r->val, t->g.nr);
		n++;
	}
	*dropped = t->nr_dropped;
	raw_spin_unlock(&t->lock);
	*written = min(n, room);
	*total = n;
}

/**
 * pmuctl_task_read() - a task-scope group's counts
 * @s:		the session, holding a task-scope group
 * @thread:	the calling thread's counters as rdpmc shows them, instead of
 *		the session's totals
 * @val:	out: s->g.nr values
 * @nr_threads:	out: threads counted now
 * @nr_lost:	out: threads created and not counted
 *
 * Context: pmuctl_lock held.
 * Return: 0; -ESRCH when @thread and the session does not count the
 * caller; -EIO when a register read faulted.
 */
int pmuctl_task_read(struct pmuctl_session *s, bool thread, u64 *val,
		     u32 *nr_threads, u32 *nr_lost)
{
	struct pmuctl_tctx *t = s->task;
	struct pmuctl_mon *m;
	unsigned long flags;
	int ret = 0;

	if (thread) {
		m = pmuctl_mon_current();
		if (!m || m->t != t)
			return -ESRCH;
		raw_spin_lock_irqsave(&m->lock, flags);
		ret = m->cpu == smp_processor_id() ?
		      pmuctl_pool_read_local(&t->g, val) : -ESRCH;
		raw_spin_unlock_irqrestore(&m->lock, flags);
	} else {
		tctx_resync(s, t);
		raw_spin_lock(&t->lock);
		memcpy(val, t->fold, t->g.nr * sizeof(*val));
		list_for_each_entry(m, &t->mons, node) {
			raw_spin_lock_irqsave(&m->lock, flags);
			if (m->reset_seen == READ_ONCE(t->reset_gen))
				pmuctl_pool_sum(&t->g, val, m->val);
			raw_spin_unlock_irqrestore(&m->lock, flags);
		}
		raw_spin_unlock(&t->lock);
		pmuctl_pool_sum_done(&t->g, val);
	}
	raw_spin_lock(&t->lock);
	*nr_threads = t->nr_threads;
	raw_spin_unlock(&t->lock);
	*nr_lost = atomic_read(&t->nr_lost);
	return ret;
}

/**
 * pmuctl_task_release() - end a task-scope group
 * @s:		the session, holding a task-scope group
 *
 * Every mon is marked dead and loses its counts; those loaded on a CPU are
 * unloaded in the release wave (pool.c), rdpmc grants are revoked in it,
 * and each mon is unregistered by its own thread later (pmuctl_mon_cleanup()).
 * What no one can read any more is freed here: the exited threads'
 * records, the spares, the dead mons' records and pid references.
 *
 * Context: pmuctl_lock held.
 */
void pmuctl_task_release(struct pmuctl_session *s)
{
	struct pmuctl_tctx *t = s->task;
	struct pmuctl_mon *m, *tmp;
	unsigned long flags;
	LIST_HEAD(dead);
	LIST_HEAD(spares);
	LIST_HEAD(gone);

	raw_spin_lock(&t->lock);
	t->dead = true;
	list_splice_init(&t->gone, &gone);
	t->nr_gone = 0;
	list_splice_init(&t->spares, &spares);
	t->nr_spares = 0;
	cpumask_clear(&task_wave_mask);
	list_for_each_entry_safe(m, tmp, &t->mons, node) {
		raw_spin_lock_irqsave(&m->lock, flags);
		WRITE_ONCE(m->dead, true);
		if (m->cpu >= 0)
			cpumask_set_cpu(m->cpu, &task_wave_mask);
		raw_spin_unlock_irqrestore(&m->lock, flags);
		/* The list's reference goes with it to @dead. */
		list_move(&m->node, &dead);
		m->listed = false;
		t->nr_threads--;
	}
	raw_spin_unlock(&t->lock);

	if (pmuctl_grant_revoke_prepare(s, s->revoke_cpus))
		cpumask_or(&task_wave_mask, &task_wave_mask, s->revoke_cpus);
	pmuctl_pool_release(&s->g, &t->g, &task_wave_mask, mon_release_fn, t);
	pmuctl_grant_revoke_finish(s);

	/* Unlisted: their threads' detach touches neither pids nor record. */
	list_for_each_entry_safe(m, tmp, &dead, node) {
		put_pid(m->pid);
		put_pid(m->tgid);
		m->pid = NULL;
		m->tgid = NULL;
		pmuctl_trec_free(m->rec);
		m->rec = NULL;
		list_del_init(&m->node);
		pmuctl_mon_put(m);
	}
	pmuctl_trec_free_list(&gone);
	list_for_each_entry_safe(m, tmp, &spares, node)
		pmuctl_mon_free(m);
	s->task = NULL;
	pmuctl_tctx_put(t);
}

