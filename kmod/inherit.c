// SPDX-License-Identifier: GPL-2.0
/*
 * Task scope across forks, execs and exits: tracepoint probes, each run in
 * the thread concerned with preemption off (nothing allocated or freed,
 * raw locks only: mon.c).
 *
 * Inheritance: a task_newtask probe, which runs in the parent at the end
 * of copy_process(), before anyone can wake the child, gives the child a
 * spare mon of the parent's session by linking it into the child's
 * notifier list, which nobody else touches before the child first runs
 * (preempt notifiers are per task, and __sched_fork() starts the list
 * empty); the child's first sched_in loads it, so it is counted from its
 * first instruction, its kernel-mode return from fork included.
 * task_newtask sees every thread copy_process() makes: fork, clone, vfork,
 * and the io_uring and vhost workers create_io_thread() and
 * vhost_task_create() make without sched_process_fork.  That is the one
 * place pmuctl writes another task's notifier list;
 * preempt_notifier_register() only knows current.  A fork that finds no
 * spare left, or the session at task_max_threads, is not counted
 * (pmuctl_read.nr_lost).
 *
 * A sched_process_exit probe, in the exiting thread, folds its counts into
 * the session's totals and unregisters its mon; a sched_process_exec probe
 * starts an ENABLE_ON_EXEC session and ends the counting of a thread that
 * execs a non-dumpable (set-user-ID) image.  That rule is pmuctl's own,
 * stricter than perf's: perf_event_exec() keeps counting there.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "task.h"

struct linux_binprm;

static struct tracepoint *tp_newtask, *tp_exec, *tp_exit;

/*
 * task_newtask, in the parent at the end of copy_process(), before the
 * child can run: with INHERIT, the child gets a spare mon of the parent's
 * session, and the parent allocates another on its way back to user space.
 */
static void task_newtask_probe(void *data, struct task_struct *child,
			       unsigned long clone_flags)
{
	u32 max = READ_ONCE(pmuctl_task_max_threads);
	struct pmuctl_mon *pm, *m = NULL;
	struct pmuctl_tctx *t;

	if (hlist_empty(&current->preempt_notifiers))
		return;
	pm = pmuctl_mon_current();
	if (!pm || !pm->t->inherit)
		return;
	t = pm->t;
	raw_spin_lock(&t->lock);
	if (t->dead) {
		raw_spin_unlock(&t->lock);
		return;
	}
	if (!list_empty(&t->spares) && (!max || t->nr_threads < max)) {
		m = list_first_entry(&t->spares, struct pmuctl_mon, node);
		list_del(&m->node);
		t->nr_spares--;
		pmuctl_mon_init(m, t, child);
		list_add_tail(&m->node, &t->mons);
		t->nr_threads++;
	} else {
		atomic_inc(&t->nr_lost);
	}
	raw_spin_unlock(&t->lock);
	if (m) {
		__module_get(THIS_MODULE);
		/* What preempt_notifier_register() does, for a task not yet running. */
		hlist_add_head(&m->pn.link, &child->preempt_notifiers);
	}
	pmuctl_mon_refill_queue(pm);
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
	m = pmuctl_mon_current();
	if (!m)
		return;
	if (!current->mm || get_dumpable(current->mm) != SUID_DUMP_USER) {
		pmuctl_mon_detach(m);
		return;
	}
	t = m->t;
	raw_spin_lock(&t->lock);
	if (t->exec_pending && !t->dead) {
		t->exec_pending = false;
		WRITE_ONCE(t->enabled, true);
		start = true;
	}
	raw_spin_unlock(&t->lock);
	if (!start)
		return;
	raw_spin_lock_irqsave(&m->lock, flags);
	pmuctl_mon_unload(m);
	pmuctl_mon_load(m);
	raw_spin_unlock_irqrestore(&m->lock, flags);
}

/* sched_process_exit, in the exiting thread: its counts go to the totals. */
static void task_exit_probe(void *data, struct task_struct *p)
{
	if (p == current)
		pmuctl_mon_cleanup(true);
}

static void task_find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "task_newtask"))
		tp_newtask = tp;
	else if (!strcmp(tp->name, "sched_process_exec"))
		tp_exec = tp;
	else if (!strcmp(tp->name, "sched_process_exit"))
		tp_exit = tp;
}

/**
 * pmuctl_task_init() - watch new tasks, execs and exits
 *
 * Context: after pmuctl_grant_init() (preempt notifiers enabled).
 * Return: 0 or -errno.
 */
int pmuctl_task_init(void)
{
	int ret;

	for_each_kernel_tracepoint(task_find_tp, NULL);
	if (!tp_newtask || !tp_exec || !tp_exit) {
		pr_err("no task_newtask/sched_process_exec/sched_process_exit tracepoint\n");
		return -ENOENT;
	}
	ret = tracepoint_probe_register(tp_newtask, task_newtask_probe, NULL);
	if (ret)
		return ret;
	ret = tracepoint_probe_register(tp_exec, task_exec_probe, NULL);
	if (ret)
		goto newtask;
	ret = tracepoint_probe_register(tp_exit, task_exit_probe, NULL);
	if (ret)
		goto exec;
	return 0;
exec:
	tracepoint_probe_unregister(tp_exec, task_exec_probe, NULL);
newtask:
	tracepoint_probe_unregister(tp_newtask, task_newtask_probe, NULL);
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
	tracepoint_probe_unregister(tp_newtask, task_newtask_probe, NULL);
	tracepoint_synchronize_unregister();
	/* The refills' ends (mon_refill_done()) have returned. */
	rcu_barrier();
}
