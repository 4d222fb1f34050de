// SPDX-License-Identifier: GPL-2.0
/*
 * The hardware side's life: load, CPU hotplug, suspend and resume, reboot,
 * unload.  A CPU going away gives back every register pmuctl took there
 * (pmuctl_pcpu_give_back(): found values, nothing else written); coming
 * back, its claims' shadows are written again and its counters are
 * scrubbed before a granted thread runs there (they hold whatever they
 * held: INIT leaves them [SDM vol. 3A, table "Processor State Following
 * Power-up, Reset, or INIT"]).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/irqflags.h>
#include <linux/notifier.h>
#include <linux/reboot.h>
#include <linux/smp.h>

#include "compat.h"
#include "pcpu.h"

static enum cpuhp_state power_hp_state;

/*
 * A CPU comes back, or the boot CPU resumes: write everything its shadow
 * holds, and zero the counters an operation zeroed while it was away.
 */
static void power_online(u32 cpu)
{
	struct pmuctl_pcpu *pc = pmuctl_pcpu_of(cpu);
	struct pmuctl_sync s = { 0 };
	unsigned long flags;
	int err;

	local_irq_save(flags);
	pmuctl_pcpu_reset(pc);
	s.held = pmuctl_regs(pmuctl_cpu_held(&pc->acct));
	s.touch = s.held;
	s.zero = pc->zero & s.held;
	pc->zero = 0;
	if ((!s.held && !pc->poisoned) || READ_ONCE(pmuctl_down)) {
		local_irq_restore(flags);
		return;
	}
	s.xtouch = BIT(pmuctl_type_of(cpu)->model->nr_xregs) - 1;
	s.xheld = pmuctl_cpu_xheld(&pc->acct);
	err = pmuctl_cs_sync(pc, &s);
	local_irq_restore(flags);
	if (err)
		pr_warn_ratelimited("cpu %u: could not reprogram the PMU\n", cpu);
}

/* A CPU goes away, or the boot CPU suspends: give its registers back; the claims stay. */
static void power_offline(u32 cpu)
{
	struct pmuctl_pcpu *pc = pmuctl_pcpu_of(cpu);
	unsigned long flags;
	int err;

	local_irq_save(flags);
	err = pmuctl_pcpu_give_back(pc);
	local_irq_restore(flags);
	if (err)
		pr_warn_ratelimited("cpu %u: could not restore the PMU\n", cpu);
}

/*
 * The hotplug callbacks (CPUHP_AP_ONLINE_DYN: on the CPU itself, which
 * runs its hotplug thread, so no task-scope thread is loaded there).
 * Perfmon v6 on 6.11+: the sentinel is put on before pmuctl's counters are
 * written, and given back once they are stopped (perf.c).
 */
static int power_cpu_up(unsigned int cpu)
{
	pmuctl_type_online(cpu);
	pmuctl_perf_cpu_up(cpu);
	power_online(cpu);
	return 0;
}

static int power_cpu_down(unsigned int cpu)
{
	power_offline(cpu);
	pmuctl_perf_cpu_down(cpu);
	return 0;
}

/*
 * Suspend to RAM or disk: the boot CPU goes through no hotplug callback
 * and loses its PMU programming [FACTS 6], so syscore ops give its
 * registers back and write the shadow again on resume.  They run on the
 * boot CPU with interrupts off and every other CPU offline, in the thread
 * that asked for the suspend: if task scope counts that thread, its counts
 * are taken in first (task.c, through pmuctl_hw_ops) and loaded again
 * after, so that it counts on as if it had been switched out and in.
 */
static int power_suspend(PMUCTL_SYSCORE_ARGS)
{
	if (pmuctl_hw_ops->task_unload)
		pmuctl_hw_ops->task_unload();
	power_offline(smp_processor_id());
	return 0;
}

static void power_resume(PMUCTL_SYSCORE_ARGS)
{
	power_online(smp_processor_id());
	if (pmuctl_hw_ops->task_load)
		pmuctl_hw_ops->task_load();
}

static struct pmuctl_syscore power_syscore = {
	.ops = {
		.suspend = power_suspend,
		.resume = power_resume,
	},
};

static void power_stop_fn(void *unused)
{
	power_offline(smp_processor_id());
}

/**
 * pmuctl_hw_reboot() - put every CPU's PMU back as found; write no more
 *
 * Reboot and kexec (kernel_restart_prepare() and kernel_shutdown_prepare()
 * call the chain with every CPU online), so that the next kernel inherits
 * no running counter of ours.  After it, the module must be reloaded.
 * Context: process.
 */
void pmuctl_hw_reboot(void)
{
	bool was_down;

	mutex_lock(&pmuctl_lock);
	cpus_read_lock();
	was_down = READ_ONCE(pmuctl_down);
	/*
	 * Down first: a hook that runs now (interrupts off) finishes before
	 * the call below reaches its CPU, and no later one writes.
	 */
	WRITE_ONCE(pmuctl_down, true);
	if (!was_down)
		on_each_cpu(power_stop_fn, NULL, true);
	cpus_read_unlock();
	mutex_unlock(&pmuctl_lock);
}

static int power_reboot(struct notifier_block *nb, unsigned long action,
			void *data)
{
	pmuctl_hw_reboot();
	return NOTIFY_DONE;
}

static struct notifier_block power_reboot_nb = {
	.notifier_call = power_reboot,
};

/**
 * pmuctl_hw_init() - the hardware side at load
 * @caps:	the PMU decoded at load (on a hybrid part, one CPU's type)
 * @ops:	what it calls above it (struct pmuctl_hw_ops)
 *
 * Per-CPU state and types; register for CPU hotplug, suspend and reboot.
 * Context: after pmuctl_pmu.be, .hybrid and .version are set, before the
 * device exists.
 * Return: 0 or -errno (-ENODEV: no CPU's type could be decoded).
 */
int pmuctl_hw_init(const struct pmuctl_caps *caps,
		   const struct pmuctl_hw_ops *ops)
{
	int ret;

	pmuctl_hw_ops = ops;
	if (pmuctl_sentinel_used())
		pr_info("perfmon v%u: perf's counters are not reservable on this kernel: perf is kept off with an exclusive event on fixed counter 2 while pmuctl holds counters\n",
			pmuctl_pmu.version);
	ret = pmuctl_pcpu_alloc();
	if (ret)
		return ret;
	pmuctl_types_init(caps);
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "pmuctl:online",
				power_cpu_up, power_cpu_down);
	if (ret < 0)
		goto free_pcpu;
	power_hp_state = ret;
	if (!pmuctl_pmu.nr_types) {
		ret = -ENODEV;
		goto remove_hp;
	}
	ret = register_reboot_notifier(&power_reboot_nb);
	if (ret)
		goto remove_hp;
	pmuctl_syscore_register(&power_syscore);
	return 0;

remove_hp:
	cpuhp_remove_state(power_hp_state);
free_pcpu:
	pmuctl_pcpu_free();
	return ret;
}

/**
 * pmuctl_hw_exit() - unregister; free the per-CPU state
 *
 * Context: every session is gone.  A CPU still poisoned is tried once
 * more (every online one gives its registers back), and perf gets its
 * counters back whatever the outcome: the module is going away.
 */
void pmuctl_hw_exit(void)
{
	pmuctl_syscore_unregister(&power_syscore);
	unregister_reboot_notifier(&power_reboot_nb);
	if (atomic_read(&pmuctl_nr_poisoned)) {
		cpus_read_lock();
		on_each_cpu(power_stop_fn, NULL, true);
		cpus_read_unlock();
		if (atomic_read(&pmuctl_nr_poisoned))
			pr_warn("a PMU write still faults; unloading all the same\n");
	}
	cpuhp_remove_state(power_hp_state);
	cpus_read_lock();
	pmuctl_perf_let_go();
	cpus_read_unlock();
	WRITE_ONCE(pmuctl_down, false);
	pmuctl_pcpu_free();
}
