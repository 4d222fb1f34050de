// SPDX-License-Identifier: GPL-2.0
/*
 * A counted thread: its mon, a preempt notifier of its own.  sched_out
 * reads its counters and adds what they counted to the thread's counts,
 * sched_in writes the counts back (pool.c: pmuctl_pool_in()/_out()), so
 * that while the thread runs, on any CPU, the hardware counter is its
 * count and one rdpmc reads it.  Threads without a mon pay nothing: the
 * notifiers are theirs alone.
 *
 * A mon is only ever unregistered by its own thread (its exit, or its next
 * pmuctl ioctl or close after RELEASE marked it dead); until then it holds
 * a module reference, as rdpmc grants do (grant.c).
 *
 * Nothing is allocated or freed where preemption is off (the hooks, the
 * probes of inherit.c; on PREEMPT_RT the allocator's locks sleep there): a
 * mon is allocated with the record its thread leaves when it stops being
 * counted, a session with INHERIT keeps a few allocated ahead ("spares",
 * pmuctl_task_fill()), and the forking thread allocates the next one on
 * its way back to user space (task work); the last put of a mon or a
 * context hands its free to process context (defer.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/task_work.h>

#include "task.h"

/* The mon loaded on each CPU; only that CPU, IRQs off. */
static DEFINE_PER_CPU(struct pmuctl_mon *, mon_cur);
/* The boot CPU's mon taken in for a suspend (pmuctl_task_unload_local()). */
static DEFINE_PER_CPU(struct pmuctl_mon *, mon_suspended);

static struct preempt_ops mon_ops;

static struct pmuctl_mon *mon_of(struct preempt_notifier *pn)
{
	return pn->ops == &mon_ops ? container_of(pn, struct pmuctl_mon, pn)
				   : NULL;
}

/**
 * pmuctl_trec_free() - free a thread's record and its pid references
 * @r:		the record, or NULL
 *
 * Context: process.
 */
void pmuctl_trec_free(struct pmuctl_trec *r)
{
	if (!r)
		return;
	put_pid(r->pid);
	put_pid(r->tgid);
	kfree(r);
}

/**
 * pmuctl_trec_free_list() - free the records of a list
 * @list:	records taken off their context
 *
 * Context: process.
 */
void pmuctl_trec_free_list(struct list_head *list)
{
	struct pmuctl_trec *r, *tmp;

	list_for_each_entry_safe(r, tmp, list, node)
		pmuctl_trec_free(r);
}

/**
 * pmuctl_mon_free() - free a mon that was never listed
 * @m:		a spare, or PROGRAM's that did not succeed; or NULL
 *
 * Context: process.
 */
void pmuctl_mon_free(struct pmuctl_mon *m)
{
	if (!m)
		return;
	pmuctl_trec_free(m->rec);
	kfree(m);
}

/**
 * pmuctl_mon_alloc() - a mon and the record its thread will leave
 * @n:		events in the group
 *
 * Context: process (GFP_KERNEL).
 * Return: the mon, or NULL.
 */
struct pmuctl_mon *pmuctl_mon_alloc(u32 n)
{
	struct pmuctl_mon *m = kzalloc(sizeof(*m), GFP_KERNEL_ACCOUNT);

	if (!m)
		return NULL;
	m->rec = kzalloc(struct_size(m->rec, val, n), GFP_KERNEL_ACCOUNT);
	if (!m->rec) {
		kfree(m);
		return NULL;
	}
	return m;
}

static void tctx_free(struct pmuctl_deferred *d)
{
	struct pmuctl_tctx *t = container_of(d, struct pmuctl_tctx, free);
	struct pmuctl_mon *m, *tmp;

	pmuctl_trec_free_list(&t->gone);
	list_for_each_entry_safe(m, tmp, &t->spares, node)
		pmuctl_mon_free(m);
	pmuctl_mon_free(t->first);
	kfree(t);
}

/**
 * pmuctl_tctx_put() - drop a reference to a task context
 * @t:		the context
 *
 * The last one hands the free to process context (defer.c).
 * Context: any.
 */
void pmuctl_tctx_put(struct pmuctl_tctx *t)
{
	if (refcount_dec_and_test(&t->ref))
		pmuctl_defer(&t->free, tctx_free);
}

static void mon_release(struct pmuctl_deferred *d)
{
	struct pmuctl_mon *m = container_of(d, struct pmuctl_mon, free);

	put_pid(m->pid);
	put_pid(m->tgid);
	pmuctl_trec_free(m->rec);
	pmuctl_tctx_put(m->t);
	kfree(m);
}

/**
 * pmuctl_mon_put() - drop a reference to a mon
 * @m:		the mon
 *
 * The last put may come from a probe: the free (and its puts of pids and
 * of the context) waits for process context.  Context: any.
 */
void pmuctl_mon_put(struct pmuctl_mon *m)
{
	if (refcount_dec_and_test(&m->ref))
		pmuctl_defer(&m->free, mon_release);
}

/**
 * pmuctl_mon_init() - a mon of @t counts @p
 * @m:		a mon from pmuctl_mon_alloc()
 * @t:		the context (a reference is taken)
 * @p:		the thread; its ids are kept for PMUCTL_IOC_THREADS
 *
 * Its two references: the registration's and the list's.
 * Context: any (nothing sleeps).
 */
void pmuctl_mon_init(struct pmuctl_mon *m, struct pmuctl_tctx *t,
		     struct task_struct *p)
{
	m->pid = get_task_pid(p, PIDTYPE_PID);
	m->tgid = get_task_pid(p, PIDTYPE_TGID);
	m->t = t;
	raw_spin_lock_init(&m->lock);
	refcount_set(&m->ref, 2);
	m->cpu = -1;
	m->listed = true;
	m->reset_seen = t->reset_gen;
	preempt_notifier_init(&m->pn, &mon_ops);
	refcount_inc(&t->ref);
}

/**
 * pmuctl_mon_load() - write the thread's counts into this CPU's counters
 * @m:		current's mon, not loaded
 *
 * Context: IRQs off, m->lock held.
 */
void pmuctl_mon_load(struct pmuctl_mon *m)
{
	struct pmuctl_tctx *t = m->t;
	u64 gen = READ_ONCE(t->reset_gen);

	if (m->dead)
		return;
	if (m->reset_seen != gen) {
		memset(m->val, 0, sizeof(m->val));
		m->reset_seen = gen;
	}
	pmuctl_pool_in(&t->g, m->val, m->loaded, READ_ONCE(t->enabled));
	m->cpu = smp_processor_id();
	this_cpu_write(mon_cur, m);
}

/**
 * pmuctl_mon_unload() - take what the counters counted into the thread's counts
 * @m:		a mon, loaded here or not at all
 *
 * Context: IRQs off, m->lock held.
 */
void pmuctl_mon_unload(struct pmuctl_mon *m)
{
	if (m->cpu < 0)
		return;
	pmuctl_pool_out(&m->t->g, m->val, m->loaded);
	m->cpu = -1;
	this_cpu_write(mon_cur, NULL);
}

static void mon_sched_in(struct preempt_notifier *pn, int cpu)
{
	struct pmuctl_mon *m = container_of(pn, struct pmuctl_mon, pn);
	unsigned long flags;

	/* IRQs are on here: a cross-CPU call must not split the load. */
	raw_spin_lock_irqsave(&m->lock, flags);
	pmuctl_mon_load(m);
	raw_spin_unlock_irqrestore(&m->lock, flags);
}

static void mon_sched_out(struct preempt_notifier *pn,
			  struct task_struct *next)
{
	struct pmuctl_mon *m = container_of(pn, struct pmuctl_mon, pn);
	unsigned long flags;

	raw_spin_lock_irqsave(&m->lock, flags);
	pmuctl_mon_unload(m);
	raw_spin_unlock_irqrestore(&m->lock, flags);
}

static struct preempt_ops mon_ops = {
	.sched_in = mon_sched_in,
	.sched_out = mon_sched_out,
};

/**
 * pmuctl_mon_current() - current's mon that still counts
 *
 * Context: current's own.
 * Return: the mon, or NULL.
 */
struct pmuctl_mon *pmuctl_mon_current(void)
{
	struct preempt_notifier *pn;
	struct pmuctl_mon *m;

	hlist_for_each_entry(pn, &current->preempt_notifiers, link) {
		m = mon_of(pn);
		if (m && !READ_ONCE(m->dead))
			return m;
	}
	return NULL;
}

/**
 * pmuctl_mon_detach() - end the counting of current by @m
 * @m:		one of current's mons
 *
 * Unload and unregister it, fold its counts into the session's totals and
 * leave its record, unless the session is gone.
 * Context: current's own; may be a tracepoint probe (preemption off):
 * nothing is allocated or freed here.
 */
void pmuctl_mon_detach(struct pmuctl_mon *m)
{
	struct pmuctl_tctx *t = m->t;
	u32 max = READ_ONCE(pmuctl_task_max_threads);
	struct pmuctl_trec *r;
	unsigned long flags;
	bool listed;

	local_irq_save(flags);
	raw_spin_lock(&m->lock);
	pmuctl_mon_unload(m);
	WRITE_ONCE(m->dead, true);
	raw_spin_unlock(&m->lock);
	preempt_notifier_unregister(&m->pn);
	local_irq_restore(flags);

	raw_spin_lock(&t->lock);
	listed = m->listed;
	if (listed) {
		if (m->reset_seen != t->reset_gen)
			memset(m->val, 0, sizeof(m->val));
		pmuctl_pool_sum(&t->g, t->fold, m->val);
		list_del(&m->node);
		m->listed = false;
		t->nr_threads--;
		r = m->rec;
		if (r && (!max || t->nr_gone < max)) {
			memcpy(r->val, m->val, t->g.nr * sizeof(r->val[0]));
			r->pid = m->pid;
			r->tgid = m->tgid;
			m->pid = NULL;
			m->tgid = NULL;
			m->rec = NULL;
			list_add_tail(&r->node, &t->gone);
			t->nr_gone++;
		} else {
			t->nr_dropped++;
		}
	}
	raw_spin_unlock(&t->lock);
	if (listed)
		pmuctl_mon_put(m);
	/* A refill still queued drops the module reference (mon_refill()). */
	if (m->refill_queued)
		m->refill_module = true;
	else
		module_put(THIS_MODULE);
	pmuctl_mon_put(m);
}

/**
 * pmuctl_mon_cleanup() - detach current's mons that count nothing more
 * @all:	all of them: the thread exits
 *
 * Context: current's own.
 */
void pmuctl_mon_cleanup(bool all)
{
	struct preempt_notifier *pn;
	struct hlist_node *tmp;
	struct pmuctl_mon *m;

	if (hlist_empty(&current->preempt_notifiers))
		return;
	hlist_for_each_entry_safe(pn, tmp, &current->preempt_notifiers, link) {
		m = mon_of(pn);
		if (m && (all || READ_ONCE(m->dead)))
			pmuctl_mon_detach(m);
	}
}

/**
 * pmuctl_task_cleanup() - unregister the calling thread's released mons
 *
 * Context: process, the calling thread's own; any locks.
 */
void pmuctl_task_cleanup(void)
{
	pmuctl_mon_cleanup(false);
}

/**
 * pmuctl_task_fill() - allocate the spares a session's forks will take
 * @t:		the context, of a live session with INHERIT (else nothing)
 *
 * Context: process, no locks (GFP_KERNEL); a thread the session counts,
 * which keeps @t referenced.
 */
void pmuctl_task_fill(struct pmuctl_tctx *t)
{
	struct pmuctl_mon *m;
	bool need;

	for (;;) {
		raw_spin_lock(&t->lock);
		need = t->inherit && !t->dead && t->nr_spares < PMUCTL_TASK_SPARES;
		raw_spin_unlock(&t->lock);
		if (!need)
			return;
		m = pmuctl_mon_alloc(t->g.nr);
		if (!m)
			return;
		raw_spin_lock(&t->lock);
		need = !t->dead && t->nr_spares < PMUCTL_TASK_SPARES;
		if (need) {
			list_add(&m->node, &t->spares);
			t->nr_spares++;
		}
		raw_spin_unlock(&t->lock);
		if (!need) {
			pmuctl_mon_free(m);
			return;
		}
	}
}

static void mon_refill_done(struct rcu_head *rcu)
{
	struct pmuctl_mon *m = container_of(rcu, struct pmuctl_mon, rcu);

	pmuctl_mon_put(m);
	module_put(THIS_MODULE);
}

/*
 * Task work in a thread whose fork took a spare, on its way back to user
 * space (or in its exit): allocate another.  Where the mon was detached
 * meanwhile (the thread's exit, its ioctl after RELEASE), the module
 * reference its registration held is this work's: nobody can drop it
 * after the work's last instruction, so an RCU callback does, and unload
 * waits for RCU callbacks (rcu_barrier() in pmuctl_task_exit(), inherit.c).
 */
static void mon_refill(struct callback_head *cb)
{
	struct pmuctl_mon *m = container_of(cb, struct pmuctl_mon, refill);

	m->refill_queued = false;
	if (!(current->flags & PF_EXITING))
		pmuctl_task_fill(m->t);
	if (m->refill_module)
		call_rcu(&m->rcu, mon_refill_done);
	else
		pmuctl_mon_put(m);
}

/**
 * pmuctl_mon_refill_queue() - after a fork took a spare, allocate another
 * @m:		current's mon, whose fork took the spare
 *
 * The allocation happens on current's way back to user space (task work,
 * at most one queued per mon).  Context: current's own, preemption off.
 */
void pmuctl_mon_refill_queue(struct pmuctl_mon *m)
{
	if (m->refill_queued)
		return;
	refcount_inc(&m->ref);
	init_task_work(&m->refill, mon_refill);
	if (task_work_add(current, &m->refill, TWA_RESUME)) {
		pmuctl_mon_put(m);	/* exiting: no spare needed */
		return;
	}
	m->refill_queued = true;
}

/**
 * pmuctl_mon_here() - the mon loaded on this CPU
 *
 * Context: a cross-CPU call, IRQs off.
 * Return: the mon, or NULL.
 */
struct pmuctl_mon *pmuctl_mon_here(void)
{
	return this_cpu_read(mon_cur);
}

/**
 * pmuctl_task_unload_local() - the boot CPU suspends under a counted thread
 *
 * Take the counts of the thread loaded here (current, which asked for
 * the suspend) into its totals, as a switch-out would.
 * Context: syscore suspend, IRQs off.
 */
void pmuctl_task_unload_local(void)
{
	struct pmuctl_mon *m = this_cpu_read(mon_cur);

	if (!m)
		return;
	raw_spin_lock(&m->lock);
	pmuctl_mon_unload(m);
	raw_spin_unlock(&m->lock);
	this_cpu_write(mon_suspended, m);
}

/**
 * pmuctl_task_load_local() - the boot CPU resumed: load that thread again
 *
 * Context: syscore resume, IRQs off, in the thread of the suspend.
 */
void pmuctl_task_load_local(void)
{
	struct pmuctl_mon *m = this_cpu_read(mon_suspended);

	if (!m)
		return;
	this_cpu_write(mon_suspended, NULL);
	raw_spin_lock(&m->lock);
	pmuctl_mon_load(m);
	raw_spin_unlock(&m->lock);
}

