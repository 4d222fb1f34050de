// SPDX-License-Identifier: GPL-2.0
/*
 * The PMU of each CPU: its core type's caps and model table, as pmuctl
 * uses them after the quirks (withheld counters).  A non-hybrid part has
 * one type for every CPU, decoded at load; a hybrid part's CPUs are typed
 * as they first come online (leaves 1AH and 23H differ by type), at most
 * PMUCTL_MAX_TYPES of them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/minmax.h>
#include <linux/percpu.h>
#include <linux/printk.h>
#include <linux/string.h>
#include <asm/msr-index.h>
#include <asm/perf_event.h>

#include "hw.h"

/*
 * Perfmon v6 addressing in perf (Linux 6.11+, commit 149fd4712bcd) came
 * with these MSR names: where the kernel has them, perf puts a v6 PMU's
 * counters at 0x1900+, which the NMI reservation does not manage.
 */
#ifdef MSR_IA32_PMC_V6_GP0_CTR
#define PERF_V6_UNRESERVED	true
#else
#define PERF_V6_UNRESERVED	false
#endif

/*
 * A hybrid CPU's type before the CPU has been online: no counter, no
 * extra MSR, so that every loop over its registers does nothing.
 */
static struct pmuctl_type type_untyped;

/* Each CPU's type: set at load or (hybrid) its first online; hotplug lock. */
static DEFINE_PER_CPU(const struct pmuctl_type *, cpu_type);

/**
 * pmuctl_sentinel_used() - does pmuctl keep perf off with the v6 sentinel?
 *
 * Perfmon v6 on Linux 6.11+: perf's counters live at 0x1900+, outside the
 * NMI reservation, so pmuctl keeps perf off with an exclusive event on
 * fixed counter 2 instead (perf.c, doc/perfmon-v6-coexistence.md).
 * Return: true there.
 */
bool pmuctl_sentinel_used(void)
{
	return pmuctl_v6() && PERF_V6_UNRESERVED;
}

/*
 * Generic counters perf's own enables keep enabled where the sentinel is
 * used: perf writes GLOBAL_CTRL whole (intel_ctrl: the counters it drives)
 * at each of its enables [LNX 6.12 __intel_pmu_enable_all()].  A part that
 * is not hybrid gets leaf 0AH's count from perf (leaf 23H is read for
 * hybrid PMUs only, whose per-type intel_ctrl then covers what pmuctl
 * decodes from the same leaf).  0: no limit.
 */
static u32 type_perf_gp(void)
{
	struct x86_pmu_capability cap = { 0 };

	if (!pmuctl_sentinel_used() || pmuctl_pmu.hybrid)
		return 0;
	perf_get_x86_pmu_capability(&cap);
	return cap.num_counters_gp > 0 ? cap.num_counters_gp : 0;
}

/* A type's caps as pmuctl uses them: the counters it withholds taken out. */
static void type_fixup(struct pmuctl_caps *caps)
{
	u32 perf_gp = type_perf_gp();

	if ((caps->flags & PMUCTL_CAP_TSX_FORCE_ABORT) &&
	    !pmuctl_allow_tsx_force_abort)
		caps->flags |= PMUCTL_CAP_PMC3_WITHHELD;
	/* The sentinel's counter (perf.c). */
	if (pmuctl_sentinel_used() && (caps->fixed_mask & BIT(2))) {
		caps->fixed_mask &= ~BIT(2);
		caps->flags |= PMUCTL_CAP_FIXED2_WITHHELD;
	}
	if (perf_gp && caps->nr_gp > perf_gp) {
		caps->nr_gp = perf_gp;
		caps->flags |= PMUCTL_CAP_GP_PERF_LIMITED;
	}
}

/*
 * The type whose caps are @caps, added if new.  Context: at load, or the
 * CPU hotplug lock held for writing (hotplug callbacks run one at a time).
 * An entry is reached through cpu_type only once it is whole.
 */
static const struct pmuctl_type *type_find(const struct pmuctl_caps *caps)
{
	u32 i, n = pmuctl_pmu.nr_types;

	for (i = 0; i < n; i++)
		if (!memcmp(&pmuctl_pmu.type[i].caps, caps, sizeof(*caps)))
			return &pmuctl_pmu.type[i];
	if (n == PMUCTL_MAX_TYPES)
		return NULL;
	pmuctl_pmu.type[n].caps = *caps;
	pmuctl_pmu.type[n].model = pmuctl_model_for(caps);
	pmuctl_pmu.nr_types = n + 1;
	if (pmuctl_pmu.hybrid)
		pr_info("core type %#x (native model %#x): %s PMU v%u, %u generic counters, fixed %#x\n",
			caps->core_type, caps->native_model,
			pmuctl_pmu.type[n].model->name, caps->version,
			caps->nr_gp, caps->fixed_mask);
	return &pmuctl_pmu.type[n];
}

/**
 * pmuctl_type_of() - a CPU's type, the untyped one included
 * @cpu:	a possible CPU
 *
 * Return: its type; a hybrid CPU never online since load has one with no
 * counter and the generic model.
 */
const struct pmuctl_type *pmuctl_type_of(u32 cpu)
{
	return READ_ONCE(per_cpu(cpu_type, cpu));
}

/**
 * pmuctl_type_known() - has @t been decoded (not the untyped one)?
 * @t:		a CPU's type
 *
 * Return: true for a decoded type.
 */
bool pmuctl_type_known(const struct pmuctl_type *t)
{
	return t != &type_untyped;
}

/**
 * pmuctl_cpu_type() - the PMU of a CPU
 * @cpu:	a possible CPU
 *
 * Return: its type, or NULL for a CPU of a hybrid part that has not
 * been online since the module loaded, or before load finished.
 */
const struct pmuctl_type *pmuctl_cpu_type(u32 cpu)
{
	const struct pmuctl_type *t = pmuctl_type_of(cpu);

	return t && pmuctl_type_known(t) ? t : NULL;
}

/**
 * pmuctl_first_type() - the PMU INFO describes: the first type found
 *
 * Return: the type of the lowest-numbered CPU online at load.
 */
const struct pmuctl_type *pmuctl_first_type(void)
{
	return &pmuctl_pmu.type[0];
}

/**
 * pmuctl_nr_gp() - generic counters pmuctl addresses on a type
 * @t:		the type
 *
 * Never past the legacy 8 before perfmon v6 (the caps are clamped; this
 * is the last guard).
 * Return: the number.
 */
u32 pmuctl_nr_gp(const struct pmuctl_type *t)
{
	return min_t(u32, t->caps.nr_gp,
		     pmuctl_v6() ? PMUCTL_MAX_GP : PMUCTL_LEGACY_GP);
}

/**
 * pmuctl_all_counters() - every counter register of a type pmuctl may address
 * @t:		the type
 *
 * Return: generic and fixed counter indexes, PMUCTL_METRICS_BIT where the
 * type has topdown metrics.
 */
u64 pmuctl_all_counters(const struct pmuctl_type *t)
{
	u64 all = PMUCTL_GP_MASK(pmuctl_nr_gp(t)) |
		  (u64)t->caps.fixed_mask << PMUCTL_IDX_FIXED;

	if ((t->caps.flags & PMUCTL_CAP_PERF_METRICS) && t->model->nr_metrics)
		all |= PMUCTL_METRICS_BIT;
	return all;
}

/**
 * pmuctl_type_online() - type a hybrid CPU the first time it is online
 * @cpu:	this CPU
 *
 * Decode its core type's PMU on it.  A CPU whose type cannot be decoded,
 * or a type past PMUCTL_MAX_TYPES, stays untyped: no group is placed on
 * it (PMUCTL_R_CPU_TYPE).
 * Context: its online callback (the CPU hotplug lock).
 */
void pmuctl_type_online(u32 cpu)
{
	const struct pmuctl_type *t = NULL;
	struct pmuctl_cpuid id;
	struct pmuctl_caps caps;
	u32 reason;

	if (pmuctl_type_known(pmuctl_type_of(cpu)))
		return;
	if (!pmuctl_pmu.be->cpuid(&id) &&
	    !pmuctl_caps_decode(&id, &caps, &reason)) {
		type_fixup(&caps);
		t = type_find(&caps);
	}
	if (!t) {
		pr_warn("cpu %u: its core type's PMU cannot be decoded, or it is a type past the %u kept: no group is placed on it\n",
			cpu, PMUCTL_MAX_TYPES);
		return;
	}
	/* The entry is whole before a lockless reader (INFO) sees it. */
	smp_store_release(&per_cpu(cpu_type, cpu), t);
}

/**
 * pmuctl_types_init() - the types known at load
 * @caps:	the PMU decoded at load (on a hybrid part, one CPU's type)
 *
 * A non-hybrid part's every CPU gets @caps' type; a hybrid part's CPUs
 * start untyped and are typed as they come online (pmuctl_type_online()).
 * Context: at load, before the hotplug callbacks are set up.
 */
void pmuctl_types_init(const struct pmuctl_caps *caps)
{
	const struct pmuctl_type *t = &type_untyped;
	struct pmuctl_caps c = *caps;
	u32 cpu;

	type_untyped = (struct pmuctl_type){
		.model = pmuctl_model_by_id(PMUCTL_MODEL_ARCH),
	};
	pmuctl_pmu.nr_types = 0;
	if (!pmuctl_pmu.hybrid) {
		type_fixup(&c);
		t = type_find(&c);
	}
	for_each_possible_cpu(cpu)
		per_cpu(cpu_type, cpu) = t;
}
