// SPDX-License-Identifier: GPL-2.0
/*
 * The test register model: a per-CPU file of the PMU MSRs that stands in
 * for the hardware where there is none (QEMU's TCG reads every MSR as 0 and
 * drops every write).  It enforces what silicon enforces, so the module's
 * fault paths run: reserved bits and absent registers fault, counters keep
 * their width, full-width counter writes go through IA32_A_PMCx only when
 * PERF_CAPABILITIES allows them.  Its caps come from a module parameter
 * because CPUID.0AH reads zero in the guest (regmodel_caps.c).
 *
 * Built only with PMUCTL_REGMODEL=y (Kbuild), never into the default module.
 * debugfs (pmuctl/): regs (read all, or write "CPU MSR VALUE" to preset a
 * register, "add CPU MSR N" to count N events in one of the writer's own
 * CPU), fail_write (write "CPU": its next MSR write faults; "CPU N":
 * its next N writes; "CPU always": every write until "CPU off"; "... after
 * K": the K writes before go through), log (the last writes), perf_hold
 * (write 1/0: take/give back a real reservation of the last generic
 * counter, as perf or the NMI watchdog would hold it), suspends (how many
 * times the boot CPU's registers were lost to a suspend), hold_lock (write
 * N: hold pmuctl_lock for N ms, for the tests that a waiter on it can be
 * killed).
 *
 * Like silicon, the model loses the boot CPU's PMU registers when the
 * system suspends (its own syscore ops, registered before pmuctl's, so
 * that they run after pmuctl's suspend and before its resume); the other
 * CPUs go offline first and keep theirs, as pmuctl's hotplug callbacks
 * rewrite them anyway.  regmodel_drop_writes=1 makes it a PMU that
 * accepts every write and keeps none, as some hypervisors do.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <asm/msr-index.h>
#include <asm/nmi.h>
#include <asm/perf_event.h>
#include <asm/processor.h>

#include "compat.h"
#include "regmodel.h"

static bool regmodel_drop_writes;
module_param(regmodel_drop_writes, bool, 0444);
MODULE_PARM_DESC(regmodel_drop_writes,
		 "accept every MSR write and keep none, as a hypervisor without a virtual PMU may");

/*
 * Test hooks into the module's init (selftests/device/reload_test.c):
 * pmuctl_regmodel_init() first sleeps regmodel_init_stall_ms, then fails
 * with -ECANCELED if regmodel_init_fail, so that the init unwinds.  It
 * runs before the per-CPU state is allocated (pmuctl_hw_init()): a test
 * reads pmuctl's debugfs files while the module is half set up.
 */
#define RM_INIT_STALL_MAX_MS	10000

static unsigned int regmodel_init_stall_ms;
module_param(regmodel_init_stall_ms, uint, 0444);
MODULE_PARM_DESC(regmodel_init_stall_ms,
		 "test hook: the register model's init sleeps this long first (ms, at most 10000)");

static bool regmodel_init_fail;
module_param(regmodel_init_fail, bool, 0444);
MODULE_PARM_DESC(regmodel_init_fail,
		 "test hook: the register model's init fails with ECANCELED (after the stall), so that the module's init unwinds");

#define TFA_VALID		0x7ULL	/* RTM_FORCE_ABORT, TSX_CPUID_CLEAR, SDV_ENABLE_RTM */
#define LOG_SIZE		64

struct rm_cpu {
	u64 evtsel[PMUCTL_MAX_GP];
	u64 pmc[PMUCTL_MAX_GP];
	u64 fixed[PMUCTL_MAX_FIXED];
	u64 fixed_ctrl, global_ctrl, global_status;
	u64 metrics;		/* MSR_PERF_METRICS, where the caps have it */
	u64 x[PMUCTL_XREG_MAX];
	u64 tfa;		/* MSR_TSX_FORCE_ABORT, where the caps have it */
	u32 fail_skip;		/* writes that go through before ... */
	int fail_left;		/* ... this many fault; -1: every one */
};

static DEFINE_PER_CPU(struct rm_cpu, rm_regs);
static DEFINE_RAW_SPINLOCK(rm_lock);
static unsigned long rm_nr_suspends;

static struct {
	u32 cpu, msr;
	u64 val;
	int err;
} rm_log[LOG_SIZE];
static unsigned long rm_nr_writes;

/* Extra MSRs exist as the model of @cpu's type has them. */
static int rm_xreg(u32 cpu, u32 msr)
{
	const struct pmuctl_model *m = pmuctl_rm_model_of(cpu);
	u32 i;

	for (i = 0; m && i < m->nr_xregs; i++)
		if (m->xregs[i].msr == msr)
			return i;
	return -1;
}

/*
 * The counter registers [SDM vol. 3B, vol. 4]: the legacy ranges, which
 * on a v6 preset hold generic counters 0-7 only (the "wide" preset, v4,
 * models a hypervisor that answers all 32 there), and from v6 on
 * IA32_PMC_GPi_CTR 0x1900 + 4i (full-width writes), IA32_PMC_GPi_CFG_A
 * 0x1901 + 4i and IA32_PMC_FXi_CTR 0x1980 + 4i: the same registers.
 * CFG_B and CFG_C (+2, +3) are not modelled (absent).
 */
#define RM_V6_GP0_CTR	0x1900
#define RM_V6_FX0_CTR	0x1980
#define RM_V6_STEP	4

enum rm_kind { RM_OTHER, RM_EVTSEL, RM_PMC, RM_A_PMC, RM_FIXED };

/* The counter register @msr of @rc: its kind and *@i, or RM_OTHER. */
static enum rm_kind rm_counter(const struct rm_caps *rc, u32 msr, u32 *i)
{
	u32 legacy = pmuctl_rm_legacy_gp(rc);
	u32 fixed = MSR_ARCH_PERFMON_FIXED_CTR0;

	if (rc->version >= 6 && msr >= RM_V6_GP0_CTR &&
	    msr < RM_V6_GP0_CTR + RM_V6_STEP * rc->nr_gp) {
		*i = (msr - RM_V6_GP0_CTR) / RM_V6_STEP;
		switch ((msr - RM_V6_GP0_CTR) % RM_V6_STEP) {
		case 0:
			return RM_A_PMC;
		case 1:
			return RM_EVTSEL;
		}
		return RM_OTHER;
	}
	if (rc->version >= 6 && msr >= RM_V6_FX0_CTR &&
	    msr < RM_V6_FX0_CTR + RM_V6_STEP * PMUCTL_MAX_FIXED &&
	    !((msr - RM_V6_FX0_CTR) % RM_V6_STEP)) {
		*i = (msr - RM_V6_FX0_CTR) / RM_V6_STEP;
		return pmuctl_rm_fixed_present(rc, *i) ? RM_FIXED : RM_OTHER;
	}
	if (msr >= MSR_ARCH_PERFMON_EVENTSEL0 &&
	    msr < MSR_ARCH_PERFMON_EVENTSEL0 + legacy) {
		*i = msr - MSR_ARCH_PERFMON_EVENTSEL0;
		return RM_EVTSEL;
	}
	if (msr >= MSR_ARCH_PERFMON_PERFCTR0 &&
	    msr < MSR_ARCH_PERFMON_PERFCTR0 + legacy) {
		*i = msr - MSR_ARCH_PERFMON_PERFCTR0;
		return RM_PMC;
	}
	if (msr >= MSR_IA32_PMC0 && msr < MSR_IA32_PMC0 + legacy &&
	    (rc->perf_capabilities & PERF_CAP_FW_WRITE)) {
		*i = msr - MSR_IA32_PMC0;
		return RM_A_PMC;
	}
	if (msr >= fixed && msr < fixed + pmuctl_rm_legacy_fixed(rc) &&
	    pmuctl_rm_fixed_present(rc, msr - fixed)) {
		*i = msr - fixed;
		return RM_FIXED;
	}
	return RM_OTHER;
}

/* The register @msr of @cpu's @r, or NULL if its PMU has none (a #GP). */
static u64 *rm_reg(u32 cpu, struct rm_cpu *r, u32 msr)
{
	const struct rm_caps *rc = pmuctl_rm_of(cpu);
	u32 i;
	int x;

	switch (rm_counter(rc, msr, &i)) {
	case RM_EVTSEL:
		return &r->evtsel[i];
	case RM_PMC:
	case RM_A_PMC:
		return &r->pmc[i];
	case RM_FIXED:
		return &r->fixed[i];
	case RM_OTHER:
		break;
	}
	switch (msr) {
	case MSR_ARCH_PERFMON_FIXED_CTR_CTRL:
		return &r->fixed_ctrl;
	case MSR_CORE_PERF_GLOBAL_CTRL:
		return &r->global_ctrl;
	case MSR_CORE_PERF_GLOBAL_STATUS:
		return &r->global_status;
	case MSR_TSX_FORCE_ABORT:
		return rc->leaf7_edx & CPUID7_EDX_TSX_FORCE_ABORT ? &r->tfa : NULL;
	case MSR_PERF_METRICS:
		return rc->perf_capabilities & PERF_CAP_PERF_METRICS ? &r->metrics : NULL;
	}
	x = rm_xreg(cpu, msr);
	return x < 0 ? NULL : &r->x[x];
}

/* What silicon would do with a write of @val to @msr: the value kept, or -EIO. */
static int rm_check(u32 cpu, u32 msr, u64 *val)
{
	const struct rm_caps *rc = pmuctl_rm_of(cpu);
	u64 v = *val, gp_w = pmuctl_rm_width_mask(rc->gp_width);
	u64 nib_valid = 0, high = 0;
	u32 n;
	int x, i;

	switch (rm_counter(rc, msr, &n)) {
	case RM_EVTSEL:
		/* Bits 63:32 reserved, but UMASK2 and EQ where 23H.0:EBX has them. */
		if (rc->leaf23_ebx & BIT(0))
			high |= GENMASK_ULL(47, 40);
		if (rc->leaf23_ebx & BIT(1))
			high |= BIT_ULL(36);
		return (v >> 32 & ~(high >> 32)) ||
		       (rc->any_deprecated && (v & ARCH_PERFMON_EVENTSEL_ANY)) ? -EIO : 0;
	case RM_PMC:
		/* Legacy writes set 32 bits, sign-extended [SDM]. */
		*val = (u64)(s64)(s32)(u32)v & gp_w;
		return 0;
	case RM_A_PMC:
		return v & ~gp_w ? -EIO : 0;
	case RM_FIXED:
		return v & ~pmuctl_rm_width_mask(rc->fixed_width) ? -EIO : 0;
	case RM_OTHER:
		break;
	}
	switch (msr) {
	case MSR_ARCH_PERFMON_FIXED_CTR_CTRL:
		/*
		 * A nibble per present counter; AnyThread (bit 2 of each)
		 * exists on v3 and v4, and on v5+ unless deprecated.
		 */
		for (i = 0; i < PMUCTL_MAX_FIXED; i++) {
			if (!pmuctl_rm_fixed_present(rc, i))
				continue;
			nib_valid |= (pmuctl_rm_any_thread(rc) ? 0xfULL : 0xbULL) << (4 * i);
		}
		return v & ~nib_valid ? -EIO : 0;
	case MSR_CORE_PERF_GLOBAL_CTRL:
		return v & ~(pmuctl_rm_width_mask(rc->nr_gp) | pmuctl_rm_fixed_mask(rc) << 32 |
			     (rc->perf_capabilities & PERF_CAP_PERF_METRICS ?
			      BIT_ULL(48) : 0)) ? -EIO : 0;
	case MSR_CORE_PERF_GLOBAL_STATUS:
		return -EIO;	/* read-only */
	case MSR_TSX_FORCE_ABORT:
		return v & ~TFA_VALID ? -EIO : 0;
	case MSR_PERF_METRICS:
		return 0;	/* eight bytes, any value */
	}
	x = rm_xreg(cpu, msr);
	if (x >= 0)
		return v & ~pmuctl_rm_model_of(cpu)->xregs[x].valid ? -EIO : 0;
	return -EIO;
}

static int rm_write_cpu(u32 cpu, u32 msr, u64 val, bool inject)
{
	struct rm_cpu *r = per_cpu_ptr(&rm_regs, cpu);
	unsigned long flags;
	u64 *reg;
	int err;

	raw_spin_lock_irqsave(&rm_lock, flags);
	reg = rm_reg(cpu, r, msr);
	err = reg ? rm_check(cpu, msr, &val) : -EIO;
	if (inject && r->fail_left && r->fail_skip) {
		r->fail_skip--;
	} else if (inject && r->fail_left) {
		if (r->fail_left > 0)
			r->fail_left--;
		err = -EIO;
	}
	if (!err && !(inject && regmodel_drop_writes))
		*reg = val;
	rm_log[rm_nr_writes % LOG_SIZE].cpu = cpu;
	rm_log[rm_nr_writes % LOG_SIZE].msr = msr;
	rm_log[rm_nr_writes % LOG_SIZE].val = val;
	rm_log[rm_nr_writes % LOG_SIZE].err = err;
	rm_nr_writes++;
	raw_spin_unlock_irqrestore(&rm_lock, flags);
	return err;
}

static int rm_write(u32 msr, u64 val)
{
	return rm_write_cpu(smp_processor_id(), msr, val, true);
}

static int rm_read(u32 msr, u64 *val)
{
	u32 cpu = smp_processor_id();
	struct rm_cpu *r = per_cpu_ptr(&rm_regs, cpu);
	unsigned long flags;
	u64 *reg;

	if (msr == MSR_IA32_PERF_CAPABILITIES) {
		*val = pmuctl_rm_of(cpu)->perf_capabilities;
		return 0;
	}
	raw_spin_lock_irqsave(&rm_lock, flags);
	reg = rm_reg(cpu, r, msr);
	*val = reg ? *reg : 0;
	raw_spin_unlock_irqrestore(&rm_lock, flags);
	return reg ? 0 : -EIO;
}

const struct pmuctl_backend pmuctl_regmodel = {
	.name = "regmodel",
	.kind = PMUCTL_BACKEND_MODEL,
	.read = rm_read,
	.write = rm_write,
	.cpuid = pmuctl_rm_cpuid,
};

static void rm_show_reg(struct seq_file *m, u32 cpu, u32 msr, u64 val)
{
	seq_printf(m, "cpu %u msr %#x %#llx\n", cpu, msr, val);
}

static int rm_regs_show(struct seq_file *m, void *unused)
{
	unsigned long flags;
	u32 cpu, i;

	for_each_possible_cpu(cpu) {
		struct rm_cpu r;

		raw_spin_lock_irqsave(&rm_lock, flags);
		r = *per_cpu_ptr(&rm_regs, cpu);
		raw_spin_unlock_irqrestore(&rm_lock, flags);
		const struct rm_caps *rc = pmuctl_rm_of(cpu);
		const struct pmuctl_model *mod = pmuctl_rm_model_of(cpu);

		/* At the legacy addresses; a v6 preset's counters past 8 at theirs. */
		for (i = 0; i < rc->nr_gp; i++)
			rm_show_reg(m, cpu, i >= pmuctl_rm_legacy_gp(rc) ?
				    RM_V6_GP0_CTR + RM_V6_STEP * i + 1 :
				    MSR_ARCH_PERFMON_EVENTSEL0 + i, r.evtsel[i]);
		for (i = 0; i < rc->nr_gp; i++)
			rm_show_reg(m, cpu, i >= pmuctl_rm_legacy_gp(rc) ?
				    RM_V6_GP0_CTR + RM_V6_STEP * i :
				    MSR_ARCH_PERFMON_PERFCTR0 + i, r.pmc[i]);
		for (i = 0; i < PMUCTL_MAX_FIXED; i++)
			if (pmuctl_rm_fixed_present(rc, i))
				rm_show_reg(m, cpu, i >= pmuctl_rm_legacy_fixed(rc) ?
					    RM_V6_FX0_CTR + RM_V6_STEP * i :
					    MSR_ARCH_PERFMON_FIXED_CTR0 + i, r.fixed[i]);
		rm_show_reg(m, cpu, MSR_ARCH_PERFMON_FIXED_CTR_CTRL, r.fixed_ctrl);
		rm_show_reg(m, cpu, MSR_CORE_PERF_GLOBAL_CTRL, r.global_ctrl);
		for (i = 0; mod && i < mod->nr_xregs; i++)
			rm_show_reg(m, cpu, mod->xregs[i].msr, r.x[i]);
		if (rc->perf_capabilities & PERF_CAP_PERF_METRICS)
			rm_show_reg(m, cpu, MSR_PERF_METRICS, r.metrics);
		if (rc->leaf7_edx & CPUID7_EDX_TSX_FORCE_ABORT)
			rm_show_reg(m, cpu, MSR_TSX_FORCE_ABORT, r.tfa);
	}
	return 0;
}

static int rm_regs_open(struct inode *inode, struct file *file)
{
	return single_open(file, rm_regs_show, NULL);
}

/*
 * "add CPU MSR N": what a counting PMU does while the writer runs, N more
 * events in the register of CPU, which must be the writer's own; -EAGAIN
 * where it runs elsewhere.  The read and the write are one step under
 * rm_lock, with interrupts off, so the writer cannot be switched out in
 * between: a task-scope counter it adds to is still its own, loaded.
 */
static int rm_add_here(u32 cpu, u32 msr, u64 n)
{
	struct rm_cpu *r;
	unsigned long flags;
	u64 *reg, val;
	int err;

	raw_spin_lock_irqsave(&rm_lock, flags);
	if (cpu != smp_processor_id()) {
		raw_spin_unlock_irqrestore(&rm_lock, flags);
		return -EAGAIN;
	}
	r = per_cpu_ptr(&rm_regs, cpu);
	reg = rm_reg(cpu, r, msr);
	val = reg ? *reg + n : 0;
	err = reg ? rm_check(cpu, msr, &val) : -EIO;
	if (!err)
		*reg = val;
	raw_spin_unlock_irqrestore(&rm_lock, flags);
	return err;
}

/*
 * "CPU MSR VALUE": preset a register, with the checks silicon applies;
 * "add CPU MSR N": rm_add_here().
 */
static ssize_t rm_regs_write(struct file *file, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	char buf[64];
	u32 cpu, msr;
	u64 val;
	int err;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	if (sscanf(buf, "add %u %i %lli", &cpu, &msr, &val) == 3 &&
	    cpu < nr_cpu_ids && cpu_possible(cpu))
		err = rm_add_here(cpu, msr, val);
	else if (sscanf(buf, "%u %i %lli", &cpu, &msr, &val) == 3 &&
		 cpu < nr_cpu_ids && cpu_possible(cpu))
		err = rm_write_cpu(cpu, msr, val, false);
	else
		return -EINVAL;
	return err ? err : len;
}

static const struct file_operations rm_regs_fops = {
	.owner = THIS_MODULE,
	.open = rm_regs_open,
	.read = seq_read,
	.write = rm_regs_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/* "CPU [N|always|off] [after K]": see the top of this file. */
static ssize_t rm_fail_write(struct file *file, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	char buf[64], what[16] = "1";
	unsigned long flags;
	u32 cpu, skip = 0;
	int n, left;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	n = sscanf(buf, "%u %15s after %u", &cpu, what, &skip);
	if (n < 1 || cpu >= nr_cpu_ids || !cpu_possible(cpu))
		return -EINVAL;
	if (!strcmp(what, "always"))
		left = -1;
	else if (!strcmp(what, "off"))
		left = 0;
	else if (kstrtoint(what, 0, &left) || left < 0)
		return -EINVAL;
	raw_spin_lock_irqsave(&rm_lock, flags);
	per_cpu_ptr(&rm_regs, cpu)->fail_left = left;
	per_cpu_ptr(&rm_regs, cpu)->fail_skip = skip;
	raw_spin_unlock_irqrestore(&rm_lock, flags);
	return len;
}

static const struct file_operations rm_fail_fops = {
	.owner = THIS_MODULE,
	.write = rm_fail_write,
};

static int rm_log_show(struct seq_file *m, void *unused)
{
	unsigned long flags, n, i;

	raw_spin_lock_irqsave(&rm_lock, flags);
	n = rm_nr_writes;
	seq_printf(m, "writes %lu\n", n);
	for (i = n > LOG_SIZE ? n - LOG_SIZE : 0; i < n; i++)
		seq_printf(m, "cpu %u msr %#x %#llx err %d\n",
			   rm_log[i % LOG_SIZE].cpu, rm_log[i % LOG_SIZE].msr,
			   rm_log[i % LOG_SIZE].val, rm_log[i % LOG_SIZE].err);
	raw_spin_unlock_irqrestore(&rm_lock, flags);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rm_log);

static bool rm_perf_held;
static DEFINE_MUTEX(rm_perf_lock);

/* The counter perf would hold: the last generic one, so pmuctl's loop must reach it. */
static u32 rm_perf_msr(void)
{
	return MSR_ARCH_PERFMON_PERFCTR0 + pmuctl_rm->nr_gp - 1;
}

static ssize_t rm_perf_write(struct file *file, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	bool hold;
	int err;

	err = kstrtobool_from_user(ubuf, len, &hold);
	if (err)
		return err;
	mutex_lock(&rm_perf_lock);
	if (hold && !rm_perf_held)
		err = reserve_perfctr_nmi(rm_perf_msr()) ? 0 : -EBUSY;
	else if (!hold && rm_perf_held)
		release_perfctr_nmi(rm_perf_msr());
	if (!err)
		rm_perf_held = hold;
	mutex_unlock(&rm_perf_lock);
	return err ? err : len;
}

static const struct file_operations rm_perf_fops = {
	.owner = THIS_MODULE,
	.write = rm_perf_write,
};

/* The boot CPU suspends: its PMU registers are lost, as on silicon. */
static int rm_suspend(PMUCTL_SYSCORE_ARGS)
{
	struct rm_cpu *r = this_cpu_ptr(&rm_regs);
	unsigned long flags;

	raw_spin_lock_irqsave(&rm_lock, flags);
	memset(r->evtsel, 0, sizeof(r->evtsel));
	memset(r->pmc, 0, sizeof(r->pmc));
	memset(r->fixed, 0, sizeof(r->fixed));
	memset(r->x, 0, sizeof(r->x));
	r->fixed_ctrl = 0;
	r->global_ctrl = 0;
	r->global_status = 0;
	r->metrics = 0;
	rm_nr_suspends++;
	raw_spin_unlock_irqrestore(&rm_lock, flags);
	return 0;
}

static struct pmuctl_syscore rm_syscore = {
	.ops = {
		.suspend = rm_suspend,
	},
};

static int rm_suspends_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "%lu\n", READ_ONCE(rm_nr_suspends));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rm_suspends);

/* Hold pmuctl_lock for the number of ms written; a fatal signal ends it. */
static ssize_t rm_hold_write(struct file *file, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	unsigned int ms;
	int err;

	err = kstrtouint_from_user(ubuf, len, 0, &ms);
	if (err)
		return err;
	if (ms > 60000)
		return -ERANGE;
	if (mutex_lock_killable(&pmuctl_lock))
		return -EINTR;
	schedule_timeout_killable(msecs_to_jiffies(ms));
	mutex_unlock(&pmuctl_lock);
	return len;
}

static const struct file_operations rm_hold_fops = {
	.owner = THIS_MODULE,
	.write = rm_hold_write,
};

/**
 * pmuctl_regmodel_exit() - give back a reservation perf_hold still holds
 */
void pmuctl_regmodel_exit(void)
{
	pmuctl_syscore_unregister(&rm_syscore);
	if (rm_perf_held)
		release_perfctr_nmi(rm_perf_msr());
	rm_perf_held = false;
}

/**
 * pmuctl_regmodel_init() - the model's debugfs files and syscore ops
 * @dir:	pmuctl's debugfs folder
 *
 * Context: before pmuctl_hw_init(), so that the model's syscore suspend
 * runs after pmuctl's and its resume before pmuctl's.
 * Return: 0, or -ECANCELED (regmodel_init_fail), having changed nothing.
 */
int pmuctl_regmodel_init(struct dentry *dir)
{
	if (regmodel_init_stall_ms)
		msleep(min(regmodel_init_stall_ms, RM_INIT_STALL_MAX_MS));
	if (regmodel_init_fail)
		return -ECANCELED;
	debugfs_create_file("regs", 0600, dir, NULL, &rm_regs_fops);
	debugfs_create_file("fail_write", 0200, dir, NULL, &rm_fail_fops);
	debugfs_create_file("log", 0400, dir, NULL, &rm_log_fops);
	debugfs_create_file("perf_hold", 0200, dir, NULL, &rm_perf_fops);
	debugfs_create_file("suspends", 0400, dir, NULL, &rm_suspends_fops);
	pmuctl_syscore_register(&rm_syscore);
	debugfs_create_file("hold_lock", 0200, dir, NULL, &rm_hold_fops);
	return 0;
}
