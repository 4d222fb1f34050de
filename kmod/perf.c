// SPDX-License-Identifier: GPL-2.0
/*
 * Living next to perf (FACTS 3 and 6): while any session holds a group,
 * perf is kept off the counters, and pmuctl takes none that perf uses.
 *
 * Before perfmon v6, or on a kernel whose perf keeps the legacy addresses
 * (Linux < 6.11), pmuctl holds every generic counter and event select in
 * the NMI reservation, as perf's reserve_pmc_hardware() would: perf then
 * creates no hardware event, and a perf that holds one (the NMI watchdog)
 * makes PROGRAM fail with PERF_BUSY.  Perfmon v6 on 6.11+ puts perf's
 * counters at 0x1900+, which the reservation does not manage: there
 * pmuctl keeps perf off with a sentinel on every online CPU
 * (doc/perfmon-v6-coexistence.md).
 *
 * perf leaves its counts in the counters when its events go: taking the
 * counters from perf bumps the scrub epoch (pcpu.c), so that a thread
 * granted rdpmc reads none of them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/minmax.h>
#include <linux/perf_event.h>
#include <linux/percpu.h>
#include <asm/msr.h>
#include <asm/nmi.h>
#include <asm/perf_event.h>

#include "pcpu.h"

/* Perf kept off; pmuctl_lock and the hotplug lock (read). */
bool pmuctl_perf_held;

/* Sessions holding a group, each keeping perf off; pmuctl_lock. */
u32 pmuctl_nr_programmed;

/* perfmon v6 on 6.11+: perf's exclusive event on each CPU; hotplug lock. */
static DEFINE_PER_CPU(struct perf_event *, sentinel);

/*
 * The generic counters to reserve: the PMU's, on a hybrid part all the
 * legacy 8 (no type has more there; perf reserves by its own count).
 * Never past the legacy 8: the reservation is perf's of Linux < 6.11,
 * which knows only leaf 0AH's counters and those addresses (a v6 PMU's
 * counters past 8 are pmuctl's alone there).
 */
static u32 reserve_nr(void)
{
	return pmuctl_pmu.hybrid ? PMUCTL_LEGACY_GP :
	       min_t(u32, pmuctl_pmu.type[0].caps.nr_gp, PMUCTL_LEGACY_GP);
}

static int reserve(void)
{
	u32 i, n = reserve_nr();

	for (i = 0; i < n; i++) {
		if (!reserve_perfctr_nmi(MSR_ARCH_PERFMON_PERFCTR0 + i))
			goto undo;
		if (!reserve_evntsel_nmi(MSR_ARCH_PERFMON_EVENTSEL0 + i)) {
			release_perfctr_nmi(MSR_ARCH_PERFMON_PERFCTR0 + i);
			goto undo;
		}
	}
	return 0;
undo:
	while (i--) {
		release_evntsel_nmi(MSR_ARCH_PERFMON_EVENTSEL0 + i);
		release_perfctr_nmi(MSR_ARCH_PERFMON_PERFCTR0 + i);
	}
	pr_info_ratelimited("perf holds the PMU counters; the NMI watchdog does by default: sysctl kernel.nmi_watchdog=0\n");
	return -EBUSY;
}

static void unreserve(void)
{
	u32 i;

	for (i = 0; i < reserve_nr(); i++) {
		release_evntsel_nmi(MSR_ARCH_PERFMON_EVENTSEL0 + i);
		release_perfctr_nmi(MSR_ARCH_PERFMON_PERFCTR0 + i);
	}
}

/*
 * The sentinel: a pinned, exclusive CPU event of perf's own.  While it is
 * on a CPU, perf schedules no other hardware event there, CPU, cgroup or
 * task (group_can_go_on(): flexible ones wait, pinned ones go to ERROR).
 * It counts nothing: ref-cycles, which perf puts on fixed counter 2 only,
 * with user and kernel excluded (a FIXED_CTR_CTRL nibble without OS and
 * USR).
 */
static struct perf_event_attr sentinel_attr = {
	.type		= PERF_TYPE_HARDWARE,
	.size		= sizeof(struct perf_event_attr),
	.config		= PERF_COUNT_HW_REF_CPU_CYCLES,
	.pinned		= 1,
	.exclusive	= 1,
	.exclude_user	= 1,
	.exclude_kernel	= 1,
	.exclude_hv	= 1,
};

/*
 * The other events of perf's core PMU in the sentinel's CPU context,
 * counting or not [LNX 6.2+: struct perf_event_pmu_context.nr_events,
 * every event list_add_event() put there, disabled and ERROR ones too].
 * One created before the sentinel and enabled later (perf stat -a
 * --delay, a watchdog toggled back on) would be scheduled ahead of it,
 * pinned groups going in creation order, and share pmuctl's counters:
 * where there is one, the sentinel does not count as keeping perf off.
 * Events created after the sentinel never get on (group_can_go_on()).
 * Before 6.11 (no v6 MSR names) the sentinel is never used.
 */
static unsigned int sentinel_neighbours(const struct perf_event *ev)
{
#ifdef MSR_IA32_PMC_V6_GP0_CTR
	return READ_ONCE(ev->pmu_ctx->nr_events) - 1;
#else
	return 0;
#endif
}

/*
 * Put @cpu's sentinel on: 0 once it is ACTIVE on fixed counter 2 with no
 * other event of perf's on that CPU's core PMU, or where perf has no core
 * PMU (the register model: nothing to keep off); -EBUSY when perf holds
 * the CPU's PMU already (a pinned event: the NMI watchdog by default) or
 * has any other CPU-wide event there, enabled or not; -EOPNOTSUPP when
 * perf put it elsewhere, or -errno.  On failure the event stays for
 * sentinel_off().  Context: the hotplug lock (read, or the CPU's own
 * online callback).
 */
static int sentinel_on(u32 cpu)
{
	struct perf_event *ev;

	if (per_cpu(sentinel, cpu))
		return 0;
	ev = perf_event_create_kernel_counter(&sentinel_attr, cpu, NULL,
					      NULL, NULL);
	if (IS_ERR(ev))
		return PTR_ERR(ev) == -ENOENT ? 0 : PTR_ERR(ev);
	per_cpu(sentinel, cpu) = ev;
	/* perf_install_in_context() ran on @cpu and returned: state is set. */
	if (READ_ONCE(ev->state) != PERF_EVENT_STATE_ACTIVE)
		return -EBUSY;
	if (ev->hw.idx != INTEL_PMC_IDX_FIXED_REF_CYCLES)
		return -EOPNOTSUPP;
	if (sentinel_neighbours(ev))
		return -EBUSY;
	return 0;
}

/* Give @cpu's sentinel back to perf.  Context: as sentinel_on(). */
static void sentinel_off(u32 cpu)
{
	struct perf_event *ev = per_cpu(sentinel, cpu);

	if (!ev)
		return;
	perf_event_release_kernel(ev);
	per_cpu(sentinel, cpu) = NULL;
}

static void sentinels_off(void)
{
	u32 cpu;

	for_each_possible_cpu(cpu)
		sentinel_off(cpu);
}

static int sentinels_on(void)
{
	u32 cpu;
	int ret;

	for_each_online_cpu(cpu) {
		ret = sentinel_on(cpu);
		if (!ret)
			continue;
		sentinels_off();
		if (ret == -EBUSY)
			pr_info_ratelimited("cpu %u: perf has events on the PMU (the NMI watchdog by default: sysctl kernel.nmi_watchdog=0; or a CPU-wide event, enabled or not)\n",
					    cpu);
		else
			pr_warn_ratelimited("cpu %u: perf cannot be kept off the perfmon v6 PMU (%d)\n",
					    cpu, ret);
		return ret;
	}
	return 0;
}

/**
 * pmuctl_perf_get() - keep perf off for one more group
 *
 * Context: pmuctl_lock and the hotplug lock (read).
 * Return: 0; -EBUSY when perf holds the counters; -EOPNOTSUPP (v6) when
 * it cannot be kept off.  On failure nothing changed.
 */
int pmuctl_perf_get(void)
{
	int ret = 0;

	if (!pmuctl_perf_held) {
		ret = pmuctl_sentinel_used() ? sentinels_on() : reserve();
		if (ret && ret != -EBUSY)
			ret = -EOPNOTSUPP;
		if (ret)
			return ret;
		pmuctl_perf_held = true;
		pmuctl_epoch_bump();
	}
	pmuctl_nr_programmed++;
	return 0;
}

/**
 * pmuctl_perf_reason() - PROGRAM's reason for pmuctl_perf_get()'s error
 * @err:	its error
 *
 * Return: PMUCTL_R_PERF_BUSY or PMUCTL_R_PERF_UNMANAGED.
 */
u32 pmuctl_perf_reason(int err)
{
	return err == -EBUSY ? PMUCTL_R_PERF_BUSY : PMUCTL_R_PERF_UNMANAGED;
}

/**
 * pmuctl_perf_let_go() - give perf its counters back, whatever holds them
 *
 * Context: pmuctl_lock (or unload) and the hotplug lock (read).
 */
void pmuctl_perf_let_go(void)
{
	if (!pmuctl_perf_held)
		return;
	if (pmuctl_sentinel_used())
		sentinels_off();
	else
		unreserve();
	pmuctl_perf_held = false;
}

/**
 * pmuctl_perf_settle() - give perf its counters back if nothing needs them
 *
 * Once no session holds a group and no CPU is poisoned: a faulted write
 * may have left a counter of pmuctl's enabled there, and perf must not be
 * given it until it has been rewritten.
 * Context: pmuctl_lock and the hotplug lock (read).
 */
void pmuctl_perf_settle(void)
{
	if (!pmuctl_nr_programmed && !atomic_read(&pmuctl_nr_poisoned))
		pmuctl_perf_let_go();
}

/**
 * pmuctl_perf_put() - one group fewer keeps perf off
 *
 * Context: pmuctl_lock and the hotplug lock (read).
 */
void pmuctl_perf_put(void)
{
	if (!WARN_ON_ONCE(!pmuctl_nr_programmed))
		pmuctl_nr_programmed--;
	pmuctl_perf_settle();
}

/**
 * pmuctl_perf_cpu_up() - a CPU comes online while perf is kept off
 * @cpu:	the CPU
 *
 * perf_event_init_cpu() ran: put its sentinel on before pmuctl's counters
 * are written there.  Context: its online callback.
 */
void pmuctl_perf_cpu_up(u32 cpu)
{
	int err;

	if (!pmuctl_perf_held || !pmuctl_sentinel_used() ||
	    READ_ONCE(pmuctl_down))
		return;
	err = sentinel_on(cpu);
	if (err)
		pr_warn_ratelimited("cpu %u: perf could not be kept off its PMU (%d): pmuctl's counters there may be shared with perf\n",
				    cpu, err);
}

/**
 * pmuctl_perf_cpu_down() - a CPU goes offline
 * @cpu:	the CPU
 *
 * perf drops a dying CPU's events (perf_event_exit_cpu(), after this
 * callback): give its sentinel back once pmuctl's counters are stopped.
 * Context: its offline callback.
 */
void pmuctl_perf_cpu_down(u32 cpu)
{
	sentinel_off(cpu);
}
