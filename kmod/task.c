// SPDX-License-Identifier: GPL-2.0
/*
 * Task scope: counters that follow a thread.  Each counted thread carries
 * a preempt notifier (a "mon"): sched_out reads its counters and adds what
 * they counted to the thread's counts, sched_in writes the counts back
 * (hw.c: pmuctl_hw_task_in()/_out()), so that while the thread runs, on
 * any CPU, the hardware counter is its count and one rdpmc reads it.
 * Threads without a mon pay nothing: the notifiers are theirs alone.
 *
 * Inheritance: a sched_process_fork probe, which runs in the parent after
 * copy_process() and before wake_up_new_task(), gives the child a mon of
 * the parent's session by linking it into the child's notifier list, which
 * nobody else touches before the child first runs (preempt notifiers are
 * per task, and __sched_fork() starts the list empty); the child's first
 * sched_in loads it.  That is the one place pmuctl writes another task's
 * notifier list; preempt_notifier_register() only knows current.
 * A sched_process_exit probe, in the exiting thread, folds its counts into
 * the session's totals and unregisters its mon; a sched_process_exec probe
 * starts an ENABLE_ON_EXEC session and ends the counting of a thread that
 * execs a non-dumpable (set-user-ID) image, as perf_event_exec() does.
 *
 * A mon is only ever unregistered by its own thread (its exit, or its next
 * pmuctl ioctl or close after RELEASE marked it dead); until then it holds
 * a module reference, as rdpmc grants do (grant.c).
 *
 * Locks: pmuctl_lock (ioctl.c) serializes PROGRAM, START, STOP, RESET,
 * READ and RELEASE; tctx->lock (spinlock, process or probe context, IRQs
 * on) the list of mons, the folded totals and the flags; mon->lock (raw,
 * IRQs off: the sched hooks and cross-CPU calls) a thread's counts and
 * where they are loaded.  Order: tctx->lock, then mon->lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/list.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/preempt.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "pmuctl.h"

struct linux_binprm;

/**
 * struct pmuctl_tctx - what a task-scope session counts
 * @ref:	the session's, and each mon's
 * @lock:	@mons, @fold, @nr_threads, @exec_pending, @dead
 * @mons:	the counted threads
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
 */
struct pmuctl_tctx {
	refcount_t ref;
	spinlock_t lock;	/* see above */
	struct list_head mons;
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
};

/* What is left of a thread no longer counted, for PMUCTL_IOC_THREADS. */
struct pmuctl_trec {
	struct list_head node;
	struct pid *pid;
	struct pid *tgid;
	u64 val[];
};

/**
 * struct pmuctl_mon - one counted thread
 * @pn:		on the thread's preempt notifier list while registered
 * @t:		its session's context (a reference)
 * @node:	in @t->mons while @listed
 * @lock:	the fields below
 * @ref:	1 while registered, 1 while listed
 * @cpu:	the CPU its counts are loaded on, -1 when switched out
 * @dead:	counts nothing more (released, detached)
 * @listed:	on @t->mons
 * @reset_seen:	@t->reset_gen as last applied to @val
 * @val:	the thread's counts (64 bits), as of its last switch-out or
 *		load
 * @loaded:	what each counter held when loaded
 * @pid:	the thread (a reference), for PMUCTL_IOC_THREADS
 * @tgid:	its process (a reference)
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
};

/* The mon loaded on each CPU; only that CPU, IRQs off. */
static DEFINE_PER_CPU(struct pmuctl_mon *, mon_cur);

static struct preempt_ops mon_ops;
static struct tracepoint *tp_fork, *tp_exec, *tp_exit;

/* Scratch for the CPUs of a wave; pmuctl_lock. */
static struct cpumask task_wave_mask;

static struct pmuctl_mon *mon_of(struct preempt_notifier *pn)
{
	return pn->ops == &mon_ops ? container_of(pn, struct pmuctl_mon, pn)
				   : NULL;
}

static void trec_free(struct pmuctl_trec *r)
{
	put_pid(r->pid);
	put_pid(r->tgid);
	kfree(r);
}

/* Free the records of @list (taken off the context). */
static void trec_free_list(struct list_head *list)
{
	struct pmuctl_trec *r, *tmp;

	list_for_each_entry_safe(r, tmp, list, node)
		trec_free(r);
}

static void tctx_put(struct pmuctl_tctx *t)
{
	if (refcount_dec_and_test(&t->ref)) {
		trec_free_list(&t->gone);
		kfree(t->first);
		kfree(t);
	}
}

static void mon_put(struct pmuctl_mon *m)
{
	if (refcount_dec_and_test(&m->ref)) {
		put_pid(m->pid);
		put_pid(m->tgid);
		tctx_put(m->t);
		kfree(m);
	}
}

/* The mon counts @p: its thread and process ids, for PMUCTL_IOC_THREADS. */
static void mon_init(struct pmuctl_mon *m, struct pmuctl_tctx *t,
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

/* Write the thread's counts into this CPU's counters.  IRQs off, m->lock. */
static void mon_load(struct pmuctl_mon *m)
{
	struct pmuctl_tctx *t = m->t;
	u64 gen = READ_ONCE(t->reset_gen);

	if (m->dead)
		return;
	if (m->reset_seen != gen) {
		memset(m->val, 0, sizeof(m->val));
		m->reset_seen = gen;
	}
	pmuctl_hw_task_in(&t->g, m->val, m->loaded, READ_ONCE(t->enabled));
	m->cpu = smp_processor_id();
	this_cpu_write(mon_cur, m);
}

/* Take what the counters counted into the thread's counts.  IRQs off, m->lock. */
static void mon_unload(struct pmuctl_mon *m)
{
	if (m->cpu < 0)
		return;
	pmuctl_hw_task_out(&m->t->g, m->val, m->loaded);
	m->cpu = -1;
	this_cpu_write(mon_cur, NULL);
}

static void mon_sched_in(struct preempt_notifier *pn, int cpu)
{
	struct pmuctl_mon *m = container_of(pn, struct pmuctl_mon, pn);
	unsigned long flags;

	/* IRQs are on here: a cross-CPU call must not split the load. */
	raw_spin_lock_irqsave(&m->lock, flags);
	mon_load(m);
	raw_spin_unlock_irqrestore(&m->lock, flags);
}

static void mon_sched_out(struct preempt_notifier *pn,
			  struct task_struct *next)
{
	struct pmuctl_mon *m = container_of(pn, struct pmuctl_mon, pn);
	unsigned long flags;

	raw_spin_lock_irqsave(&m->lock, flags);
	mon_unload(m);
	raw_spin_unlock_irqrestore(&m->lock, flags);
}

static struct preempt_ops mon_ops = {
	.sched_in = mon_sched_in,
	.sched_out = mon_sched_out,
};

/* current's mon that still counts, if any.  Context: current's own. */
static struct pmuctl_mon *mon_current_live(void)
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

/*
 * End the counting of current by @m: unload and unregister it, fold its
 * counts into the session's totals unless the session is gone.  Context:
 * current's own; may be a tracepoint probe (preemption off).
 */
static void mon_detach(struct pmuctl_mon *m)
{
	struct pmuctl_tctx *t = m->t;
	struct pmuctl_trec *r = NULL;
	u32 i, max = READ_ONCE(pmuctl_task_max_threads);
	unsigned long flags;
	bool listed;

	local_irq_save(flags);
	raw_spin_lock(&m->lock);
	mon_unload(m);
	WRITE_ONCE(m->dead, true);
	raw_spin_unlock(&m->lock);
	preempt_notifier_unregister(&m->pn);
	local_irq_restore(flags);

	/* Preemption may be off (a probe): no sleeping allocation. */
	if (m->listed)
		r = kzalloc(struct_size(r, val, t->g.nr),
			    GFP_NOWAIT | __GFP_ACCOUNT | __GFP_NOWARN);
	spin_lock(&t->lock);
	listed = m->listed;
	if (listed) {
		if (m->reset_seen != t->reset_gen)
			memset(m->val, 0, sizeof(m->val));
		for (i = 0; i < t->g.nr; i++)
			t->fold[i] += m->val[i];
		list_del(&m->node);
		m->listed = false;
		t->nr_threads--;
		if (r && (!max || t->nr_gone < max)) {
			memcpy(r->val, m->val, t->g.nr * sizeof(r->val[0]));
			r->pid = m->pid;
			r->tgid = m->tgid;
			m->pid = NULL;
			m->tgid = NULL;
			list_add_tail(&r->node, &t->gone);
			t->nr_gone++;
			r = NULL;
		} else {
			t->nr_dropped++;
		}
	}
	spin_unlock(&t->lock);
	kfree(r);
	if (listed)
		mon_put(m);
	mon_put(m);
	module_put(THIS_MODULE);
}

/*
 * Detach current's mons that count nothing more, or all of them (@all: the
 * thread exits).  Context: current's own.
 */
static void task_cleanup(bool all)
{
	struct preempt_notifier *pn;
	struct hlist_node *tmp;
	struct pmuctl_mon *m;

	if (hlist_empty(&current->preempt_notifiers))
		return;
	hlist_for_each_entry_safe(pn, tmp, &current->preempt_notifiers, link) {
		m = mon_of(pn);
		if (m && (all || READ_ONCE(m->dead)))
			mon_detach(m);
	}
}

/**
 * pmuctl_task_cleanup() - unregister the calling thread's released mons
 *
 * Context: process, the calling thread's own; any locks.
 */
void pmuctl_task_cleanup(void)
{
	task_cleanup(false);
}

/**
 * pmuctl_task_alloc() - room for a task-scope group and its first thread
 * @flags:	PMUCTL_PROGRAM_* of the request
 *
 * Context: process, no locks (GFP_KERNEL).
 * Return: the context, or NULL.
 */
struct pmuctl_tctx *pmuctl_task_alloc(u32 flags)
{
	struct pmuctl_tctx *t = kzalloc(sizeof(*t), GFP_KERNEL_ACCOUNT);

	if (!t)
		return NULL;
	t->first = kzalloc(sizeof(*t->first), GFP_KERNEL_ACCOUNT);
	if (!t->first) {
		kfree(t);
		return NULL;
	}
	refcount_set(&t->ref, 1);
	spin_lock_init(&t->lock);
	INIT_LIST_HEAD(&t->mons);
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
		tctx_put(t);
}

/**
 * pmuctl_task_program() - count the calling thread with a group
 * @s:		the session, holding no group
 * @t:		from pmuctl_task_alloc(); taken on success
 * @ev:		the events, copied in
 * @n:		their number
 * @place:	on success, where each event went
 * @grant:	rdpmc for the caller (pmuctl_grant_alloc()), or NULL; taken
 *		(set to NULL) on success
 * @reason:	on failure, PMUCTL_R_*
 * @index:	on failure, the event
 *
 * Context: process, the thread to count; pmuctl_lock held.
 * Return: 0 or -errno; on failure nothing changed.
 */
int pmuctl_task_program(struct pmuctl_session *s, struct pmuctl_tctx *t,
			const struct pmuctl_event *ev, u32 n,
			struct pmuctl_place *place, struct pmuctl_grant **grant,
			u32 *reason, u32 *index)
{
	struct pmuctl_mon *m = t->first;
	unsigned long flags;
	int ret;

	task_cleanup(false);
	if (mon_current_live()) {
		*reason = PMUCTL_R_TASK_BUSY;
		return -EBUSY;
	}
	ret = pmuctl_hw_task_program(s, &t->g, ev, n, reason, index);
	if (ret)
		return ret;
	memcpy(place, t->g.place, n * sizeof(*place));
	memcpy(s->place, t->g.place, n * sizeof(*place));
	s->nr = n;
	s->running = false;
	s->task = t;

	/* The grant's notifier first: the mon's, added after, runs first. */
	pmuctl_grant_add(s, *grant, s->unpriv);
	*grant = NULL;

	t->first = NULL;
	mon_init(m, t, current);
	spin_lock(&t->lock);
	list_add(&m->node, &t->mons);
	t->nr_threads = 1;
	spin_unlock(&t->lock);
	/* The session's file holds the module: this cannot be the last one. */
	__module_get(THIS_MODULE);
	local_irq_save(flags);
	preempt_notifier_register(&m->pn);
	raw_spin_lock(&m->lock);
	mon_load(m);
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
 * A thread that INHERIT counts, in the process that programmed, asks for
 * the rdpmc its creator got at PROGRAM.  Its mon is registered again after
 * the grant, so that at sched_in it runs first: its counters are loaded
 * before the grant zeroes what other threads left (grant.c).
 *
 * Context: process, the thread to grant; pmuctl_lock held.
 * Return: 0 (granted, or held already); -EPERM when the session does not
 * count the caller or the caller is in another process.
 */
int pmuctl_task_grant(struct pmuctl_session *s, struct pmuctl_grant **g)
{
	struct pmuctl_mon *m = mon_current_live();
	unsigned long flags;

	if (!m || m->t != s->task || !s->mm || s->mm != current->mm)
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
	struct pmuctl_mon *m = this_cpu_read(mon_cur);

	if (!m || m->t != arg)
		return;
	raw_spin_lock(&m->lock);
	mon_unload(m);
	mon_load(m);
	raw_spin_unlock(&m->lock);
}

/* The release wave's part: the mon loaded here, now dead, leaves. */
static void mon_release_fn(void *arg)
{
	struct pmuctl_mon *m = this_cpu_read(mon_cur);

	if (!m || m->t != arg)
		return;
	raw_spin_lock(&m->lock);
	mon_unload(m);
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
	spin_lock(&t->lock);
	tctx_loaded_cpus(t);
	spin_unlock(&t->lock);
	if (cpumask_empty(&task_wave_mask))
		return;
	atomic64_inc(&s->waves);
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

	spin_lock(&t->lock);
	if (zero) {
		WRITE_ONCE(t->reset_gen, t->reset_gen + 1);
		memset(t->fold, 0, sizeof(t->fold));
		list_splice_init(&t->gone, &gone);
		t->nr_gone = 0;
		t->nr_dropped = 0;
	} else {
		WRITE_ONCE(t->enabled, run);
		t->exec_pending = false;
		s->running = run;
	}
	spin_unlock(&t->lock);
	trec_free_list(&gone);
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
 * @esz:	entry size: struct pmuctl_thread and at least s->nr values
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
	spin_lock(&t->lock);
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
	spin_unlock(&t->lock);
	*written = min(n, room);
	*total = n;
}

/**
 * pmuctl_task_read() - a task-scope group's counts
 * @s:		the session, holding a task-scope group
 * @thread:	the calling thread's counters as rdpmc shows them, instead of
 *		the session's totals
 * @val:	out: s->nr values
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
	u32 i;

	if (thread) {
		m = mon_current_live();
		if (!m || m->t != t)
			return -ESRCH;
		raw_spin_lock_irqsave(&m->lock, flags);
		ret = m->cpu == smp_processor_id() ?
		      pmuctl_hw_task_read_local(&t->g, val) : -ESRCH;
		raw_spin_unlock_irqrestore(&m->lock, flags);
	} else {
		tctx_resync(s, t);
		spin_lock(&t->lock);
		memcpy(val, t->fold, t->g.nr * sizeof(*val));
		list_for_each_entry(m, &t->mons, node) {
			raw_spin_lock_irqsave(&m->lock, flags);
			if (m->reset_seen == READ_ONCE(t->reset_gen))
				for (i = 0; i < t->g.nr; i++)
					val[i] += m->val[i];
			raw_spin_unlock_irqrestore(&m->lock, flags);
		}
		spin_unlock(&t->lock);
	}
	*nr_threads = t->nr_threads;
	*nr_lost = atomic_read(&t->nr_lost);
	return ret;
}

/**
 * pmuctl_task_release() - end a task-scope group
 * @s:		the session, holding a task-scope group
 *
 * Every mon is marked dead and loses its counts; those loaded on a CPU are
 * unloaded in the release wave (hw.c), and each is unregistered by its
 * own thread later (task_cleanup()).
 *
 * Context: pmuctl_lock held.
 */
void pmuctl_task_release(struct pmuctl_session *s)
{
	struct pmuctl_tctx *t = s->task;
	struct pmuctl_mon *m, *tmp;
	unsigned long flags;

	spin_lock(&t->lock);
	t->dead = true;
	cpumask_clear(&task_wave_mask);
	list_for_each_entry_safe(m, tmp, &t->mons, node) {
		raw_spin_lock_irqsave(&m->lock, flags);
		WRITE_ONCE(m->dead, true);
		if (m->cpu >= 0)
			cpumask_set_cpu(m->cpu, &task_wave_mask);
		raw_spin_unlock_irqrestore(&m->lock, flags);
		list_del(&m->node);
		m->listed = false;
		t->nr_threads--;
		/* Still registered: this is not the last reference. */
		mon_put(m);
	}
	spin_unlock(&t->lock);
	pmuctl_hw_task_release(s, &t->g, &task_wave_mask, mon_release_fn, t);
	s->task = NULL;
	s->nr = 0;
	s->running = false;
	tctx_put(t);
}

/*
 * sched_process_fork, in the parent before the child first runs: with
 * INHERIT, the child gets a mon of the parent's session.
 */
static void task_fork_probe(void *data, struct task_struct *parent,
			    struct task_struct *child)
{
	struct pmuctl_mon *pm, *m;
	struct pmuctl_tctx *t;
	u32 max;

	if (parent != current || hlist_empty(&current->preempt_notifiers))
		return;
	pm = mon_current_live();
	if (!pm || !pm->t->inherit)
		return;
	t = pm->t;
	/* Preemption is off in a probe: no sleeping allocation. */
	m = kzalloc(sizeof(*m), GFP_NOWAIT | __GFP_ACCOUNT | __GFP_NOWARN);
	max = READ_ONCE(pmuctl_task_max_threads);
	spin_lock(&t->lock);
	if (t->dead) {
		spin_unlock(&t->lock);
		kfree(m);
		return;
	}
	if (!m || (max && t->nr_threads >= max)) {
		atomic_inc(&t->nr_lost);
		spin_unlock(&t->lock);
		kfree(m);
		return;
	}
	mon_init(m, t, child);
	list_add_tail(&m->node, &t->mons);
	t->nr_threads++;
	spin_unlock(&t->lock);
	__module_get(THIS_MODULE);
	/* What preempt_notifier_register() does, for a task not yet running. */
	hlist_add_head(&m->pn.link, &child->preempt_notifiers);
}

/*
 * sched_process_exec, in the thread after the new image is in place:
 * ENABLE_ON_EXEC starts the session; a non-dumpable image is not counted.
 */
static void task_exec_probe(void *data, struct task_struct *p, pid_t old_pid,
			    struct linux_binprm *bprm)
{
	struct pmuctl_mon *m;
	struct pmuctl_tctx *t;
	unsigned long flags;
	bool start = false;

	if (p != current || hlist_empty(&current->preempt_notifiers))
		return;
	m = mon_current_live();
	if (!m)
		return;
	if (!current->mm || get_dumpable(current->mm) != SUID_DUMP_USER) {
		mon_detach(m);
		return;
	}
	t = m->t;
	spin_lock(&t->lock);
	if (t->exec_pending && !t->dead) {
		t->exec_pending = false;
		WRITE_ONCE(t->enabled, true);
		start = true;
	}
	spin_unlock(&t->lock);
	if (!start)
		return;
	raw_spin_lock_irqsave(&m->lock, flags);
	mon_unload(m);
	mon_load(m);
	raw_spin_unlock_irqrestore(&m->lock, flags);
}

/* sched_process_exit, in the exiting thread: its counts go to the totals. */
static void task_exit_probe(void *data, struct task_struct *p)
{
	if (p == current)
		task_cleanup(true);
}

static void task_find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_process_fork"))
		tp_fork = tp;
	else if (!strcmp(tp->name, "sched_process_exec"))
		tp_exec = tp;
	else if (!strcmp(tp->name, "sched_process_exit"))
		tp_exit = tp;
}

/**
 * pmuctl_task_init() - watch forks, execs and exits
 *
 * Context: after pmuctl_grant_init() (preempt notifiers enabled).
 * Return: 0 or -errno.
 */
int pmuctl_task_init(void)
{
	int ret;

	for_each_kernel_tracepoint(task_find_tp, NULL);
	if (!tp_fork || !tp_exec || !tp_exit) {
		pr_err("no sched_process_fork/exec/exit tracepoint\n");
		return -ENOENT;
	}
	ret = tracepoint_probe_register(tp_fork, task_fork_probe, NULL);
	if (ret)
		return ret;
	ret = tracepoint_probe_register(tp_exec, task_exec_probe, NULL);
	if (ret)
		goto fork;
	ret = tracepoint_probe_register(tp_exit, task_exit_probe, NULL);
	if (ret)
		goto exec;
	return 0;
exec:
	tracepoint_probe_unregister(tp_exec, task_exec_probe, NULL);
fork:
	tracepoint_probe_unregister(tp_fork, task_fork_probe, NULL);
	tracepoint_synchronize_unregister();
	return ret;
}

/**
 * pmuctl_task_exit() - undo pmuctl_task_init()
 *
 * Context: no mon is registered (each holds a module reference).
 */
void pmuctl_task_exit(void)
{
	tracepoint_probe_unregister(tp_exit, task_exit_probe, NULL);
	tracepoint_probe_unregister(tp_exec, task_exec_probe, NULL);
	tracepoint_probe_unregister(tp_fork, task_fork_probe, NULL);
	tracepoint_synchronize_unregister();
}
