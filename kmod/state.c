// SPDX-License-Identifier: GPL-2.0
/*
 * What the sessions hold, for INFO (pmuctl_hw_holding()), and for tests
 * and operators: debugfs pmuctl/state, and pmuctl/stats, what each
 * operation cost (ioctl.c counts); in the test build, debugfs
 * pmuctl/reboot runs the reboot notifier's work.
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/reboot.h>
#include <linux/seq_file.h>
#include <linux/string.h>

#include "pcpu.h"

/**
 * pmuctl_hw_holding() - what the sessions hold on one CPU
 * @cpu:	a possible CPU
 * @h:		filled in
 *
 * Context: pmuctl_lock held.
 */
void pmuctl_hw_holding(u32 cpu, struct pmuctl_holding *h)
{
	const struct pmuctl_cpu_state *st = &pmuctl_pcpu_of(cpu)->acct;
	const struct pmuctl_type *t = pmuctl_type_of(cpu);
	const struct pmuctl_model *m = t->model;
	u32 i;

	*h = (struct pmuctl_holding){ .cpu = cpu };
	if (cpu_online(cpu))
		h->flags |= PMUCTL_HOLDING_ONLINE;
	if (pmuctl_type_known(t)) {
		h->pmu_model = m->id;
		h->caps = t->caps;
	}
	memcpy(h->owner, st->owner, sizeof(h->owner));
	for (i = 0; i < PMUCTL_IDX_MAX; i++)
		if (pmuctl_task_refs[i])
			h->owner[i] = PMUCTL_OWNER_TASK;
	for (i = 0; i < m->nr_xregs; i++) {
		h->xreg[i].msr = m->xregs[i].msr;
		h->xreg[i].value = st->x[i].value;
		h->xreg[i].refcount = st->x[i].refcount;
		/* Task-scope values are per thread: shown as held, hidden. */
		if (pmuctl_task_xrefs[i]) {
			h->xreg[i].refcount = pmuctl_task_xrefs[i];
			h->xreg[i].flags |= PMUCTL_HOLDING_XREG_HIDDEN;
		}
	}
}

static int state_show(struct seq_file *m, void *unused)
{
	u32 cpu, i;

	if (mutex_lock_killable(&pmuctl_lock))
		return -EINTR;
	seq_printf(m, "programmed %u\nwaves %lu\nperf_reserved %u\n",
		   pmuctl_nr_programmed, pmuctl_nr_waves, pmuctl_perf_held);
	for_each_possible_cpu(cpu) {
		const struct pmuctl_pcpu *pc = pmuctl_pcpu_of(cpu);
		const struct pmuctl_cpu_state *st = &pc->acct;
		const struct pmuctl_model *mod = pmuctl_type_of(cpu)->model;

		if (pc->poisoned)
			seq_printf(m, "cpu %u poisoned\n", cpu);
		for (i = 0; i < PMUCTL_IDX_MAX; i++)
			if (st->owner[i])
				seq_printf(m, "cpu %u counter %#x owner %u\n", cpu,
					   pmuctl_idx_to_counter(i), st->owner[i]);
		for (i = 0; i < PMUCTL_XREG_MAX; i++)
			if (st->x[i].refcount)
				seq_printf(m, "cpu %u msr %#x value %#llx refcount %u\n",
					   cpu, mod->xregs[i].msr,
					   st->x[i].value, st->x[i].refcount);
	}
	for (i = 0; i < PMUCTL_IDX_MAX; i++)
		if (pmuctl_task_refs[i])
			seq_printf(m, "task counter %#x sessions %u\n",
				   pmuctl_idx_to_counter(i), pmuctl_task_refs[i]);
	for (i = 0; i < PMUCTL_XREG_MAX; i++)
		if (pmuctl_task_xrefs[i])
			seq_printf(m, "task msr %#x sessions %u\n",
				   pmuctl_pmu.type[0].model->xregs[i].msr,
				   pmuctl_task_xrefs[i]);
	mutex_unlock(&pmuctl_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(state);

/*
 * What each operation costs, for debugfs "stats": calls, and the cross-CPU
 * call waves they made.  Indexed by ioctl number; the last entry is the
 * final close of a session.  Two threads' ioctls on one session at once may
 * see each other's waves: these are counts for people, not for the ABI.
 */
static const char *const pmuctl_stat_names[PMUCTL_STAT_CLOSE + 1] = {
	"info", "program", "start", "stop", "reset", "read", "release", "rdpmc",
	"threads", "close",
};

static struct {
	atomic64_t calls;
	atomic64_t waves;
} pmuctl_stats[PMUCTL_STAT_CLOSE + 1];

/**
 * pmuctl_stat() - count one operation and the waves it made
 * @op:		its ioctl number, or PMUCTL_STAT_CLOSE
 * @waves:	the cross-CPU call waves it made
 *
 * Context: any.
 */
void pmuctl_stat(u32 op, s64 waves)
{
	atomic64_inc(&pmuctl_stats[op].calls);
	atomic64_add(waves, &pmuctl_stats[op].waves);
}

/**
 * pmuctl_stats_close() - count the final close of a session
 * @waves:	the cross-CPU call waves its release made
 *
 * Context: process.
 */
void pmuctl_stats_close(u64 waves)
{
	pmuctl_stat(PMUCTL_STAT_CLOSE, waves);
}

static int stats_show(struct seq_file *m, void *unused)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(pmuctl_stats); i++)
		seq_printf(m, "%s calls %lld waves %lld\n", pmuctl_stat_names[i],
			   (long long)atomic64_read(&pmuctl_stats[i].calls),
			   (long long)atomic64_read(&pmuctl_stats[i].waves));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

#ifdef PMUCTL_REGMODEL
/*
 * The test build's "reboot": do what the reboot notifier does, so that a
 * test sees its effect and the guest lives on; after it, the module must
 * be reloaded.
 */
static ssize_t reboot_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	pmuctl_hw_reboot();
	return len;
}

static const struct file_operations reboot_fops = {
	.owner = THIS_MODULE,
	.write = reboot_write,
};
#endif

static struct dentry *state_file, *stats_file, *reboot_file;

/**
 * pmuctl_state_debugfs() - the accounting and cost files
 * @dir:	pmuctl's debugfs folder
 *
 * Context: after pmuctl_hw_init(): the files read the per-CPU state.
 */
void pmuctl_state_debugfs(struct dentry *dir)
{
	state_file = debugfs_create_file("state", 0400, dir, NULL, &state_fops);
	stats_file = debugfs_create_file("stats", 0400, dir, NULL, &stats_fops);
#ifdef PMUCTL_REGMODEL
	reboot_file = debugfs_create_file("reboot", 0200, dir, NULL, &reboot_fops);
#endif
}

/**
 * pmuctl_state_debugfs_remove() - remove them, before the per-CPU state goes
 *
 * debugfs_remove() waits for the readers in flight.
 */
void pmuctl_state_debugfs_remove(void)
{
	debugfs_remove(reboot_file);
	debugfs_remove(stats_file);
	debugfs_remove(state_file);
	reboot_file = NULL;
	stats_file = NULL;
	state_file = NULL;
}
