// SPDX-License-Identifier: GPL-2.0
/*
 * Frees that cannot happen where they are asked for.  A tracepoint probe
 * runs with preemption off, where on PREEMPT_RT no memory may be freed
 * (the slab allocator's locks sleep there) and a task or mm reference may
 * not be dropped; the context-switch hooks likewise.  Such a caller hands
 * the object over here: a lock-free list and one work item, as the
 * kernel's own delayed_fput() does, and the object is freed by the work
 * in process context.  Nothing here allocates.
 */
#include <linux/llist.h>
#include <linux/workqueue.h>

#include "regs.h"

static LLIST_HEAD(defer_list);

static void defer_run(struct work_struct *unused)
{
	struct llist_node *n = llist_reverse_order(llist_del_all(&defer_list));
	struct pmuctl_deferred *d, *t;

	llist_for_each_entry_safe(d, t, n, node)
		d->fn(d);
}

static DECLARE_WORK(defer_work, defer_run);

/**
 * pmuctl_defer() - run @fn(@d) soon, in process context
 * @d:		embedded in the object @fn frees
 * @fn:		the free
 *
 * Context: any, preemption and interrupts off included.
 */
void pmuctl_defer(struct pmuctl_deferred *d, void (*fn)(struct pmuctl_deferred *d))
{
	d->fn = fn;
	if (llist_add(&d->node, &defer_list))
		schedule_work(&defer_work);
}

/**
 * pmuctl_defer_flush() - run everything handed over so far
 *
 * Context: process; at unload, once nothing can hand over more.
 */
void pmuctl_defer_flush(void)
{
	flush_work(&defer_work);
}
