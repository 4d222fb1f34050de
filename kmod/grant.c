// SPDX-License-Identifier: GPL-2.0
/*
 * The rdpmc grant: CR4.PCE for the threads of a session, and for no one
 * else, through preempt notifiers.
 *
 * The kernel recomputes CR4.PCE from the incoming mm at every switch_mm
 * (FACTS 3).  perf's own grant, the count in the mm's context, is not
 * pmuctl's to use: it opts the whole mm into perf's dirty-counter scrub,
 * which writes 0 into counters perf used before (pmuctl's running ones),
 * it is changed under mmap_write_lock by perf, and fork copies it (FACTS 6).
 * Instead each granted thread carries a preempt notifier: sched_in, which
 * runs after switch_mm, sets CR4.PCE when the thread's grant is active and
 * it still runs in the mm it was granted in (exec ends the grant); sched_out
 * clears it again when pmuctl set it, never when the kernel had (sysfs
 * rdpmc=2, a perf mmap grant).  Notifiers are not inherited by fork.
 *
 * A notifier lives on its task's list, which only the task itself may
 * change: a revoke (RELEASE, close, from any thread or process) marks the
 * grant inactive and makes the CPU running the thread drop PCE in the
 * release's cross-CPU wave (pmuctl_grant_revoke_prepare(), wave.c, pool.c); the
 * notifier is unregistered and freed in the thread's own context, at its
 * next pmuctl ioctl or close, and at its exit (a sched_process_exit probe).
 * A registered notifier holds a module reference, so its code stays.
 *
 * Policy: the module parameter rdpmc (param.c), read at grant time.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#ifndef CONFIG_PREEMPT_NOTIFIERS
/* KVM selects it; both Debian kernels have it (FACTS 6). */
#error "pmuctl's rdpmc grant needs CONFIG_PREEMPT_NOTIFIERS"
#endif

#include <linux/list.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <asm/tlbflush.h>

#include "pmuctl.h"

/**
 * struct pmuctl_grant - rdpmc for one thread of a session
 * @pn:		on @task's preempt notifier list while registered
 * @task:	the granted thread (a reference)
 * @mm:		the mm it was granted in (mmgrab: never reused meanwhile)
 * @node:	in the session's list (pmuctl_lock)
 * @gone:	in a list of grants the task just unregistered
 * @ref:	the session's, and the task's while registered
 * @active:	false once revoked (READ_ONCE/WRITE_ONCE)
 * @cpu_check:	not on a CPU where CPU-scope counters run (an unprivileged
 *		task-scope session: rdpmc would show them)
 * @pce_set:	CR4.PCE of the CPU running @task was set by pmuctl; kept
 *		equal in all of @task's grants; only @task's CPU, IRQs off
 * @free:	the last put hands the free to process context (defer.c)
 */
struct pmuctl_grant {
	struct preempt_notifier pn;
	struct task_struct *task;
	struct mm_struct *mm;
	struct list_head node;
	struct list_head gone;
	refcount_t ref;
	bool active;
	bool cpu_check;
	bool pce_set;
	struct pmuctl_deferred free;
};

static struct preempt_ops grant_ops;
static struct tracepoint *grant_exit_tp;

static struct pmuctl_grant *grant_of(struct preempt_notifier *pn)
{
	return pn->ops == &grant_ops ? container_of(pn, struct pmuctl_grant, pn)
				     : NULL;
}

/*
 * Make CR4.PCE on this CPU what current's grants want: set while one is
 * active in current's mm (unless @out: current leaves the CPU), cleared
 * when pmuctl set it and none wants it.  Context: IRQs off.
 */
static void grant_eval(bool out)
{
	struct preempt_notifier *pn;
	struct pmuctl_grant *g;
	bool want = false, ours = false, pce;

	hlist_for_each_entry(pn, &current->preempt_notifiers, link) {
		g = grant_of(pn);
		if (!g)
			continue;
		want |= !out && READ_ONCE(g->active) && g->mm == current->mm &&
			(!g->cpu_check || !pmuctl_hw_cpu_scope_local());
		ours |= g->pce_set;
	}
	/* What is not current's to read here reads 0 from now on (pcpu.c). */
	if (want)
		pmuctl_hw_scrub_local();
	pce = cr4_read_shadow() & X86_CR4_PCE;
	if (want && !pce) {
		cr4_update_irqsoff(X86_CR4_PCE, 0);
		ours = true;
	} else if (!want && ours) {
		if (pce)
			cr4_update_irqsoff(0, X86_CR4_PCE);
		ours = false;
	}
	hlist_for_each_entry(pn, &current->preempt_notifiers, link) {
		g = grant_of(pn);
		if (g)
			g->pce_set = ours;
	}
}

static void grant_sched_in(struct preempt_notifier *pn, int cpu)
{
	unsigned long flags;

	/* IRQs are on here: a revoke's IPI must not split the decision. */
	local_irq_save(flags);
	grant_eval(false);
	local_irq_restore(flags);
}

static void grant_sched_out(struct preempt_notifier *pn,
			    struct task_struct *next)
{
	unsigned long flags;

	local_irq_save(flags);
	grant_eval(true);
	local_irq_restore(flags);
}

static struct preempt_ops grant_ops = {
	.sched_in = grant_sched_in,
	.sched_out = grant_sched_out,
};

static void grant_free(struct pmuctl_deferred *d)
{
	struct pmuctl_grant *g = container_of(d, struct pmuctl_grant, free);

	mmdrop(g->mm);
	put_task_struct(g->task);
	kfree(g);
}

/*
 * The last put may come from the exit probe, where neither the mm nor the
 * task may be dropped on PREEMPT_RT: the free waits for process context.
 */
static void grant_put(struct pmuctl_grant *g)
{
	if (refcount_dec_and_test(&g->ref))
		pmuctl_defer(&g->free, grant_free);
}

/*
 * Unregister current's grants that are revoked or belong to an mm it left
 * (exec), or all of them (@all: current exits).  Context: current's own.
 */
static void grant_cleanup(bool all)
{
	struct preempt_notifier *pn;
	struct hlist_node *tmp;
	struct pmuctl_grant *g, *t;
	unsigned long flags;
	LIST_HEAD(gone);

	/* Most tasks never had a grant: nothing to look at. */
	if (hlist_empty(&current->preempt_notifiers))
		return;
	local_irq_save(flags);
	hlist_for_each_entry(pn, &current->preempt_notifiers, link) {
		g = grant_of(pn);
		if (g && all)
			WRITE_ONCE(g->active, false);
	}
	grant_eval(false);
	hlist_for_each_entry_safe(pn, tmp, &current->preempt_notifiers, link) {
		g = grant_of(pn);
		if (!g || (READ_ONCE(g->active) && g->mm == current->mm))
			continue;
		preempt_notifier_unregister(pn);
		list_add(&g->gone, &gone);
	}
	local_irq_restore(flags);
	list_for_each_entry_safe(g, t, &gone, gone) {
		grant_put(g);
		module_put(THIS_MODULE);
	}
}

/**
 * pmuctl_grant_cleanup() - forget the calling thread's revoked grants
 *
 * Context: process, the calling thread's own grants; any locks.
 */
void pmuctl_grant_cleanup(void)
{
	grant_cleanup(false);
}

/**
 * pmuctl_grant_alloc() - room for a grant to the calling thread
 * @g:		set to the grant, or to NULL where none will be given (the
 *		module parameter rdpmc is 0, or the caller has no mm)
 *
 * Context: process, no locks (GFP_KERNEL).
 * Return: 0 or -ENOMEM.
 */
int pmuctl_grant_alloc(struct pmuctl_grant **g)
{
	*g = NULL;
	if (!pmuctl_rdpmc_policy() || !current->mm)
		return 0;
	*g = kzalloc(sizeof(**g), GFP_KERNEL_ACCOUNT);
	return *g ? 0 : -ENOMEM;
}

/**
 * pmuctl_grant_free() - give back a grant pmuctl_grant_add() did not take
 * @g:		the grant, or NULL
 */
void pmuctl_grant_free(struct pmuctl_grant *g)
{
	kfree(g);
}

/**
 * pmuctl_grant_held() - does the calling thread hold an active grant of @s?
 * @s:		the session
 *
 * Context: pmuctl_lock held.
 * Return: true if so.
 */
bool pmuctl_grant_held(const struct pmuctl_session *s)
{
	struct pmuctl_grant *g;

	list_for_each_entry(g, &s->grants, node)
		if (g->task == current && READ_ONCE(g->active) &&
		    g->mm == current->mm)
			return true;
	return false;
}

/**
 * pmuctl_grant_add() - grant rdpmc to the calling thread for session @s
 * @s:		the session, holding a group
 * @g:		from pmuctl_grant_alloc(); taken (NULL: no grant)
 * @cpu_check:	no CR4.PCE on a CPU where CPU-scope counters run
 *
 * The first call after PROGRAM also records the caller's mm as the
 * session's (s->mm): only threads of that mm may be granted later.
 * Registers the thread's notifier and sets CR4.PCE on this CPU at once:
 * no cross-CPU call.  Context: process, the thread to grant; pmuctl_lock
 * held; nothing here sleeps.
 */
void pmuctl_grant_add(struct pmuctl_session *s, struct pmuctl_grant *g,
		      bool cpu_check)
{
	unsigned long flags;

	if (!s->mm && current->mm) {
		s->mm = current->mm;
		mmgrab(s->mm);
	}
	if (!g)
		return;
	g->task = current;
	get_task_struct(g->task);
	g->mm = current->mm;
	mmgrab(g->mm);
	g->active = true;
	g->cpu_check = cpu_check;
	refcount_set(&g->ref, 2);
	/* The session's file holds the module: this cannot be the last one. */
	__module_get(THIS_MODULE);
	preempt_notifier_init(&g->pn, &grant_ops);
	list_add(&g->node, &s->grants);
	local_irq_save(flags);
	preempt_notifier_register(&g->pn);
	grant_eval(false);
	local_irq_restore(flags);
}

/**
 * pmuctl_grant_revoke_prepare() - end every grant of @s
 * @s:		the session
 * @cpus:	cleared, then set to the CPUs where a granted thread may run
 *
 * After this, no sched_in gives the session's threads CR4.PCE; the caller
 * runs pmuctl_grant_eval_local() on @cpus (its wave) so that a thread
 * running now loses it, then pmuctl_grant_revoke_finish().
 * Context: pmuctl_lock held.
 * Return: true if @s had grants.
 */
bool pmuctl_grant_revoke_prepare(struct pmuctl_session *s,
				 struct cpumask *cpus)
{
	struct pmuctl_grant *g;

	cpumask_clear(cpus);
	if (list_empty(&s->grants))
		return false;
	list_for_each_entry(g, &s->grants, node)
		WRITE_ONCE(g->active, false);
	/*
	 * Pairs with the scheduler's full barrier between set_task_cpu() and
	 * sched_in: either the thread's next sched_in sees the grant inactive,
	 * or task_cpu() below names the CPU it runs on.
	 */
	smp_mb();
	list_for_each_entry(g, &s->grants, node)
		cpumask_set_cpu(task_cpu(g->task), cpus);
	return true;
}

/**
 * pmuctl_grant_eval_local() - this CPU: drop CR4.PCE if current lost its grant
 *
 * Context: a cross-CPU call (IRQs off).
 */
void pmuctl_grant_eval_local(void)
{
	grant_eval(false);
}

/**
 * pmuctl_grant_revoke_finish() - drop the session's side of its grants
 * @s:		the session, after pmuctl_grant_revoke_prepare() and its wave
 *
 * Context: pmuctl_lock held.
 */
void pmuctl_grant_revoke_finish(struct pmuctl_session *s)
{
	struct pmuctl_grant *g, *t;

	list_for_each_entry_safe(g, t, &s->grants, node) {
		list_del(&g->node);
		grant_put(g);
	}
	if (s->mm)
		mmdrop(s->mm);
	s->mm = NULL;
}

/* do_exit(), in the exiting task: its notifiers go with it. */
static void grant_exit_probe(void *data, struct task_struct *p)
{
	if (p == current)
		grant_cleanup(true);
}

static void grant_find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_process_exit"))
		*(struct tracepoint **)priv = tp;
}

/**
 * pmuctl_grant_init() - enable preempt notifiers, watch task exits
 *
 * Return: 0 or -errno.
 */
int pmuctl_grant_init(void)
{
	int ret;

	for_each_kernel_tracepoint(grant_find_tp, &grant_exit_tp);
	if (!grant_exit_tp) {
		pr_err("no sched_process_exit tracepoint\n");
		return -ENOENT;
	}
	preempt_notifier_inc();
	ret = tracepoint_probe_register(grant_exit_tp, grant_exit_probe, NULL);
	if (ret)
		preempt_notifier_dec();
	return ret;
}

/**
 * pmuctl_grant_exit() - undo pmuctl_grant_init()
 *
 * Context: no grant is registered (each holds a module reference).
 */
void pmuctl_grant_exit(void)
{
	tracepoint_probe_unregister(grant_exit_tp, grant_exit_probe, NULL);
	tracepoint_synchronize_unregister();
	preempt_notifier_dec();
}
