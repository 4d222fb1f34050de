// SPDX-License-Identifier: GPL-2.0
/*
 * The register map and the CPU's backend, as arch/x86/events/msr.c and
 * core.c's address helpers are for perf: which MSR a counter index lives
 * at (legacy or perfmon v6), the backend that reaches the CPU's registers
 * with the *_safe accessors, and the load probe, perf's check_hw_exists()
 * for pmuctl.  Nothing here keeps state but the PMU found at load.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/cpumask.h>
#include <linux/minmax.h>
#include <linux/smp.h>
#include <asm/msr.h>
#include <asm/nmi.h>
#include <asm/perf_event.h>

#include "regs.h"

struct pmuctl_pmu pmuctl_pmu;

/*
 * Perfmon v6 [SDM vol. 3B, "Performance Monitoring Version 6"; LNX 6.12
 * msr-index.h MSR_IA32_PMC_V6_*, intel_pmu_v6_addr_offset()]: generic
 * counter i at IA32_PMC_GPi_CTR 0x1900 + 4i (full-width writes) with its
 * event select at IA32_PMC_GPi_CFG_A 0x1901 + 4i, fixed counter i at
 * IA32_PMC_FXi_CTR 0x1980 + 4i.  For generic counters 0-7 and fixed 0-3
 * they are the legacy registers under another address; the others exist
 * only here.  As Linux 6.11+, pmuctl addresses every counter of a v6 PMU
 * there (Linux 6.1's perf keeps the legacy addresses: the same registers).
 */
#define V6_GP0_CTR	0x1900
#define V6_GP0_CFG_A	0x1901
#define V6_FX0_CTR	0x1980
#define V6_STEP		4

/**
 * pmuctl_v6() - is the PMU addressed in the v6 range?
 *
 * Leaf 0AH gives one version for every core type.
 * Return: true on perfmon v6 and later.
 */
bool pmuctl_v6(void)
{
	return pmuctl_pmu.version >= 6;
}

/**
 * pmuctl_counter_msr() - the register of a counter index
 * @idx:	a counter index; a topdown metric's is PERF_METRICS
 *
 * Return: the MSR, at v6's address on a v6 PMU.  Before v6 the caps
 * keep generic indexes below the legacy 8 (PMUCTL_LEGACY_GP), where the
 * legacy range ends: no index reaches past it.
 */
u32 pmuctl_counter_msr(u32 idx)
{
	bool v6 = pmuctl_v6();

	if (idx >= PMUCTL_IDX_METRIC)
		return MSR_PERF_METRICS;
	if (idx >= PMUCTL_IDX_FIXED)
		return v6 ? V6_FX0_CTR + V6_STEP * (idx - PMUCTL_IDX_FIXED) :
			    MSR_ARCH_PERFMON_FIXED_CTR0 + idx - PMUCTL_IDX_FIXED;
	return v6 ? V6_GP0_CTR + V6_STEP * idx : MSR_ARCH_PERFMON_PERFCTR0 + idx;
}

/**
 * pmuctl_evtsel_msr() - the event select of generic counter @i
 * @i:		a generic counter
 *
 * Return: the MSR (IA32_PMC_GPi_CFG_A on a v6 PMU).
 */
u32 pmuctl_evtsel_msr(u32 i)
{
	return pmuctl_v6() ? V6_GP0_CFG_A + V6_STEP * i :
			     MSR_ARCH_PERFMON_EVENTSEL0 + i;
}

/**
 * pmuctl_fixed_nibbles() - FIXED_CTR_CTRL nibbles of the fixed counters in @mask
 * @mask:	counter indexes
 *
 * Return: 0xf in the nibble of each fixed counter of @mask.
 */
u64 pmuctl_fixed_nibbles(u64 mask)
{
	unsigned long f = (mask >> PMUCTL_IDX_FIXED) &
			  (BIT(PMUCTL_MAX_FIXED) - 1);
	u64 n = 0;

	/* Only the set bits: every wave and START asks, with a few set. */
	for (; f; f &= f - 1)
		n |= 0xfULL << (4 * __ffs(f));
	return n;
}

/**
 * pmuctl_reg() - the register of a counter index, as a mask
 * @idx:	a counter index
 *
 * Return: BIT_ULL(@idx), or PMUCTL_METRICS_BIT for a topdown metric.
 */
u64 pmuctl_reg(u32 idx)
{
	return idx >= PMUCTL_IDX_METRIC ? PMUCTL_METRICS_BIT : BIT_ULL(idx);
}

/**
 * pmuctl_regs() - the registers of a mask of counter indexes
 * @mask:	counter indexes, metrics included
 *
 * Return: the counter registers, PERF_METRICS for any metric.
 */
u64 pmuctl_regs(u64 mask)
{
	return (mask & ~PMUCTL_METRIC_MASK) |
	       (mask & PMUCTL_METRIC_MASK ? PMUCTL_METRICS_BIT : 0);
}

static int msr_read(u32 msr, u64 *val)
{
	return rdmsrl_safe(msr, val);
}

static int msr_write(u32 msr, u64 val)
{
	return wrmsrl_safe(msr, val);
}

static int msr_cpuid(struct pmuctl_cpuid *id)
{
	u32 eax, ebx, ecx, edx;

	*id = (struct pmuctl_cpuid){ 0 };
	cpuid(0, &id->max_leaf, &id->vendor[0], &id->vendor[2], &id->vendor[1]);
	cpuid(1, &id->leaf1_eax, &ebx, &id->leaf1_ecx, &edx);
	if (id->max_leaf >= 7) {
		cpuid_count(7, 0, &eax, &ebx, &ecx, &id->leaf7_edx);
		if (eax >= 1)
			cpuid_count(7, 1, &id->leaf7_1_eax, &ebx, &ecx, &edx);
	}
	if (id->max_leaf >= 0xa)
		cpuid(0xa, &id->leafa_eax, &id->leafa_ebx, &id->leafa_ecx,
		      &id->leafa_edx);
	if (id->max_leaf >= 0x1a)
		cpuid_count(0x1a, 0, &id->leaf1a_eax, &ebx, &ecx, &edx);
	if (id->max_leaf >= 0x23) {
		cpuid_count(0x23, 0, &id->leaf23_eax, &id->leaf23_ebx, &ecx, &edx);
		if (id->leaf23_eax & BIT(1))
			cpuid_count(0x23, 1, &id->leaf23_1_eax,
				    &id->leaf23_1_ebx, &ecx, &edx);
	}
	if (id->leaf1_ecx & BIT(15) &&
	    rdmsrl_safe(MSR_IA32_PERF_CAPABILITIES, &id->perf_capabilities))
		id->perf_capabilities = 0;
	return 0;
}

/* The CPU's own PMU. */
const struct pmuctl_backend pmuctl_msr = {
	.name = "msr",
	.kind = PMUCTL_BACKEND_MSR,
	.read = msr_read,
	.write = msr_write,
	.cpuid = msr_cpuid,
};

struct probe_arg {
	const struct pmuctl_backend *be;
	u32 nr_gp;
	int err;
};

/*
 * Flip the low 16 bits of a stopped counter and read them back, as perf's
 * check_hw_exists() does: a hypervisor without a virtual PMU faults, or
 * reads 0 and drops writes.  The counter must be one nobody uses: one
 * whose perf reservation pmuctl can take (perf holds them all once it has
 * any hardware event, and then perf's own check passed at boot) and whose
 * event select is not enabled.
 */
static void probe_fn(void *info)
{
	struct probe_arg *a = info;
	const struct pmuctl_backend *be = a->be;
	u64 v, sel, back;
	u32 i;

	/* Read only: GLOBAL_CTRL has one writer, the owner (pcpu.c). */
	if (be->read(MSR_CORE_PERF_GLOBAL_CTRL, &v)) {
		a->err = -ENODEV;
		return;
	}
	for (i = 0; i < a->nr_gp; i++) {
		u32 ctr = MSR_ARCH_PERFMON_PERFCTR0 + i;

		if (!reserve_perfctr_nmi(ctr))
			continue;
		if (be->read(MSR_ARCH_PERFMON_EVENTSEL0 + i, &sel) ||
		    be->read(ctr, &v)) {
			a->err = -ENODEV;
		} else if (!(sel & ARCH_PERFMON_EVENTSEL_ENABLE)) {
			/* Legacy writes keep bits 31:0, sign-extended [SDM]. */
			if (be->write(ctr, (u32)(v ^ 0xffff)) ||
			    be->read(ctr, &back) || ((back ^ v) & 0xffff) != 0xffff)
				a->err = -ENODEV;
			be->write(ctr, (u32)v);
			release_perfctr_nmi(ctr);
			return;
		}
		release_perfctr_nmi(ctr);
		if (a->err)
			return;
	}
}

/**
 * pmuctl_hw_probe() - does the PMU answer where CPUID says it exists?
 * @be:		the backend
 * @nr_gp:	generic counters every CPU has (leaf 0AH's)
 *
 * Only the legacy 8 are tried: the NMI reservation knows no others.
 * Return: 0, or -ENODEV when GLOBAL_CTRL cannot be read or a counter does
 * not keep what is written to it.
 */
int pmuctl_hw_probe(const struct pmuctl_backend *be, u32 nr_gp)
{
	struct probe_arg a = {
		.be = be, .nr_gp = min_t(u32, nr_gp, PMUCTL_LEGACY_GP),
	};

	smp_call_function_single(cpumask_first(cpu_online_mask), probe_fn,
				 &a, true);
	return a.err;
}
