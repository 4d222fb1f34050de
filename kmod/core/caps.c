// SPDX-License-Identifier: GPL-2.0
/*
 * Decode the PMU's capabilities from raw CPUID values.  CPUID is the
 * authority for counter counts and widths: the KNM man page says 4 generic
 * counters, real KNL/KNM parts report 2, and nothing here may assume either.
 *
 * Source: Intel SDM vol. 3B, "Architectural Performance Monitoring" and
 * CPUID leaf 0AH; Linux 6.12 arch/x86/events/intel/core.c intel_pmu_init()
 * (AnyThread), arch/x86/include/asm/msr-index.h (legacy ranges).
 */
#include "core.h"

/* "GenuineIntel" as CPUID.0 returns it in EBX, EDX, ECX. */
#define INTEL_EBX	0x756e6547	/* "Genu" */
#define INTEL_EDX	0x49656e69	/* "ineI" */
#define INTEL_ECX	0x6c65746e	/* "ntel" */

#define CPUID1_ECX_PDCM		(1U << 15)	/* IA32_PERF_CAPABILITIES exists */
#define CPUIDA_EDX_ANY_DEPR	(1U << 15)	/* v5+: AnyThread deprecated */
#define PERF_CAP_FW_WRITE	(1ULL << 13)	/* full-width writes via IA32_A_PMCx */
#define PERF_CAP_PERF_METRICS	(1ULL << 15)	/* IA32_PERF_METRICS [LNX: perf_metrics] */
/* CPUID.(7,0):EDX [LNX: arch/x86/include/asm/cpufeatures.h, word 18] */
#define CPUID7_EDX_RTM_ALWAYS_ABORT	(1U << 11)
#define CPUID7_EDX_TSX_FORCE_ABORT	(1U << 13)
#define CPUID7_EDX_HYBRID		(1U << 15)

static u32 bits(u32 v, u32 lo, u32 n)
{
	return (v >> lo) & ((1U << n) - 1);
}

#define CPUID7_1_EAX_PERFMON_EXT	(1U << 8)	/* leaf 23H exists */
#define CPUID23_EAX_COUNTERS		(1U << 1)	/* sub-leaf 1 valid */
#define CPUID23_EBX_UMASK2		(1U << 0)	/* EVTSEL bits 47:40 */
#define CPUID23_EBX_EQ			(1U << 1)	/* EVTSEL bit 36 */
#define CORE_TYPE_CORE			0x40		/* CPUID.1AH:EAX[31:24] */

/*
 * Alder Lake and Raptor Lake [LNX: the INTEL_ALDERLAKE ... _RAPTORLAKE_S
 * case of intel_pmu_init(); intel-family.h]: the parts whose P-core
 * counters leaf 0AH hides and no leaf 23H gives.
 */
static bool adl_family(u32 family, u32 model)
{
	return family == 6 && (model == 0x97 || model == 0x9a || model == 0xb7 ||
			       model == 0xba || model == 0xbf);
}

static u32 popcount32(u32 v)
{
	u32 n = 0;

	for (; v; v &= v - 1)
		n++;
	return n;
}

/*
 * The counters of this CPU's core type, as bitmaps, where leaf 0AH does
 * not tell them.  Leaf 23H sub-leaf 1 where it exists [LNX:
 * update_pmu_cap(), which reads it when CPUID.(7,1):EAX[8] is set and
 * 23H.0:EAX[1] says the sub-leaf is valid]: read on every CPU that has
 * it, hybrid or not (on Granite Rapids it agrees with leaf 0AH).  Else,
 * on a hybrid Alder or Raptor Lake, Linux's rule for the Core type: two
 * more generic counters and fixed counter 3 than leaf 0AH's common
 * subset, undone where that gives more than 8 or 4 (leaf 0AH then already
 * showed the whole P-core: its E-cores are disabled).  Every other type
 * keeps leaf 0AH, which is a subset of what it has.
 */
static void hybrid_counters(const struct pmuctl_cpuid *id,
			    const struct pmuctl_caps *caps, u32 *gp, u32 *fixed)
{
	u32 g, f;

	if (id->max_leaf >= 0x23 &&
	    (id->leaf7_1_eax & CPUID7_1_EAX_PERFMON_EXT) &&
	    (id->leaf23_eax & CPUID23_EAX_COUNTERS) && id->leaf23_1_eax) {
		*gp = id->leaf23_1_eax;
		*fixed = id->leaf23_1_ebx;
		return;
	}
	if (!(caps->flags & PMUCTL_CAP_HYBRID) ||
	    caps->core_type != CORE_TYPE_CORE ||
	    !adl_family(caps->family, caps->model))
		return;
	g = *gp << 2 | 0x3;
	f = *fixed << 1 | 0x1;
	if (popcount32(g) > 8 || popcount32(f) > 4)
		return;
	*gp = g;
	*fixed = f;
}

/**
 * pmuctl_caps_decode() - decode the PMU described by CPUID
 * @id:		raw CPUID leaves 0, 1 and 0AH, and IA32_PERF_CAPABILITIES
 * @caps:	filled on success; zeroed first in any case, so that on
 *		failure it holds only what was decoded before the refusal
 *		(family, model, stepping; the version and counters when
 *		those are what is refused)
 * @reason:	PMUCTL_R_NOT_INTEL, PMUCTL_R_NO_ARCH_PERFMON or
 *		PMUCTL_R_HYBRID_CPU on failure
 *
 * On a hybrid CPU the result is the PMU of the core type of the CPU that
 * read @id (PMUCTL_CAP_HYBRID, core_type, native_model): decode each CPU.
 *
 * Return: 0, or -ENODEV when the CPU is not Intel, has no architectural
 * perfmon v2+ with at least one generic counter, or is a hybrid CPU whose
 * core type cannot be told.
 */
int pmuctl_caps_decode(const struct pmuctl_cpuid *id, struct pmuctl_caps *caps,
		       u32 *reason)
{
	u32 eax = id->leafa_eax, edx = id->leafa_edx;
	u32 base, family, model, len, nfix, gp, fixed, i, max_gp, max_fixed;

	*caps = (struct pmuctl_caps){ 0 };
	*reason = PMUCTL_R_NONE;

	if (id->vendor[0] != INTEL_EBX || id->vendor[1] != INTEL_EDX ||
	    id->vendor[2] != INTEL_ECX) {
		*reason = PMUCTL_R_NOT_INTEL;
		return -ENODEV;
	}

	/*
	 * Display family and model, SDM vol. 2A CPUID.01H:EAX: both
	 * extensions are keyed on the base family, not the display one.
	 */
	base = bits(id->leaf1_eax, 8, 4);
	family = base;
	model = bits(id->leaf1_eax, 4, 4);
	if (base == 0xf)
		family += bits(id->leaf1_eax, 20, 8);
	if (base == 0x6 || base == 0xf)
		model |= bits(id->leaf1_eax, 16, 4) << 4;
	caps->family = family;
	caps->model = model;
	caps->stepping = bits(id->leaf1_eax, 0, 4);

	if (id->max_leaf < 0xa) {
		*reason = PMUCTL_R_NO_ARCH_PERFMON;
		return -ENODEV;
	}
	/*
	 * Hybrid parts [LNX: X86_FEATURE_HYBRID_CPU; one PMU per core type]:
	 * leaf 0AH reads the same on every core type and shows only what
	 * the types share (InstLatx64's dumps, selftests/core/caps_test.c);
	 * leaf 1AH names the type this CPU is, and hybrid_counters() below
	 * finds its own counters.  The bit is also set on parts whose
	 * E-cores are fused off; leaf 1AH alone is no hybrid test (Granite
	 * Rapids and Alder Lake-N fill it in too).
	 */
	if (id->leaf7_edx & CPUID7_EDX_HYBRID) {
		caps->flags |= PMUCTL_CAP_HYBRID;
		caps->core_type = bits(id->leaf1a_eax, 24, 8);
		caps->native_model = bits(id->leaf1a_eax, 0, 24);
		/*
		 * [LNX: adl_get_hybrid_cpu_type()] Alder and Raptor Lake
		 * parts that leave leaf 1AH empty are Core types; any other
		 * hybrid CPU that names no type cannot be placed.
		 */
		if (!caps->core_type && adl_family(family, model))
			caps->core_type = CORE_TYPE_CORE;
		if (!caps->core_type) {
			*reason = PMUCTL_R_HYBRID_CPU;
			return -ENODEV;
		}
	}
	caps->version = bits(eax, 0, 8);
	caps->nr_gp = bits(eax, 8, 8);
	caps->gp_width = bits(eax, 16, 8);
	if (caps->version < 2 || !caps->nr_gp || !caps->gp_width) {
		*reason = PMUCTL_R_NO_ARCH_PERFMON;
		return -ENODEV;
	}
	/*
	 * Fixed counters: v2..v4 count them in EDX[4:0]; v5 adds the ECX
	 * bitmap, counter i existing if ECX[i] or i < EDX[4:0].
	 */
	nfix = bits(edx, 0, 5);
	gp = caps->nr_gp >= 32 ? ~0U : (1U << caps->nr_gp) - 1;
	fixed = nfix >= 32 ? ~0U : (1U << nfix) - 1;
	if (caps->version >= 5)
		fixed |= id->leafa_ecx;
	hybrid_counters(id, caps, &gp, &fixed);

	/*
	 * Before v6, counters are addressed in the legacy MSR ranges, which
	 * hold 8 generic counters (a 9th would be IA32_PERF_STATUS, core.h)
	 * and IA32_FIXED_CTR0-3; from v6 on, in the v6 range (0x1900 + 4i,
	 * 0x1980 + 4i), as far as the index space goes.  The others are left
	 * out and flagged.  Generic counters are numbered from 0 without
	 * gaps: a bitmap with one (none is known) keeps the counters below
	 * it.
	 */
	max_gp = caps->version >= 6 ? PMUCTL_MAX_GP : PMUCTL_LEGACY_GP;
	max_fixed = caps->version >= 6 ? PMUCTL_MAX_FIXED : PMUCTL_LEGACY_FIXED;
	caps->nr_gp = 0;
	while (caps->nr_gp < 32 && (gp & (1U << caps->nr_gp)))
		caps->nr_gp++;
	if (caps->nr_gp > max_gp)
		caps->nr_gp = max_gp;
	if (caps->nr_gp < 32 && (gp >> caps->nr_gp))	/* no shift by 32 */
		caps->flags |= PMUCTL_CAP_GP_CLAMPED;
	if (!caps->nr_gp) {
		*reason = PMUCTL_R_NO_ARCH_PERFMON;
		return -ENODEV;
	}
	if (caps->gp_width > 64)
		caps->gp_width = 64;

	/*
	 * Architectural events: EBX bit set = unavailable; bits at or past
	 * the vector length EAX[31:24] are not enumerated, so unavailable.
	 */
	len = bits(eax, 24, 8);
	caps->events_unavailable = id->leafa_ebx;
	if (len < 32)
		caps->events_unavailable |= ~0U << len;

	for (i = 0; i < 32; i++) {
		if (!(fixed & (1U << i)))
			continue;
		if (i >= max_fixed) {
			caps->flags |= PMUCTL_CAP_FIXED_CLAMPED;
			continue;
		}
		caps->fixed_mask |= 1U << i;
		caps->nr_fixed = i + 1;
	}
	if (caps->fixed_mask) {
		caps->fixed_width = bits(edx, 5, 8);
		if (caps->fixed_width > 64)
			caps->fixed_width = 64;
		if (!caps->fixed_width) {
			/* Counters of width 0 cannot be read: treat as absent. */
			caps->fixed_mask = 0;
			caps->nr_fixed = 0;
		}
	}

	/*
	 * AnyThread exists from v3; from v5 on, EDX[15] may deprecate it.
	 * As Linux 6.12 intel_pmu_init(): the bit is looked at from v5 only
	 * (it is reserved before), and without it AnyThread stays.
	 */
	if (caps->version >= 5 && (edx & CPUIDA_EDX_ANY_DEPR))
		caps->flags |= PMUCTL_CAP_ANY_DEPRECATED;
	else if (caps->version >= 3)
		caps->flags |= PMUCTL_CAP_ANY_THREAD;

	/*
	 * PMC3 and RTM [LNX: intel_pmu_init, the Skylake case: PMU_FL_TFA
	 * when TSX_FORCE_ABORT is enumerated without RTM_ALWAYS_ABORT].
	 */
	if ((id->leaf7_edx & CPUID7_EDX_TSX_FORCE_ABORT) &&
	    !(id->leaf7_edx & CPUID7_EDX_RTM_ALWAYS_ABORT))
		caps->flags |= PMUCTL_CAP_TSX_FORCE_ABORT;

	/*
	 * UMASK2 and EQ [LNX: update_pmu_cap(), config_mask]: where leaf
	 * 23H exists, as for its counter sub-leaf.
	 */
	if (id->max_leaf >= 0x23 &&
	    (id->leaf7_1_eax & CPUID7_1_EAX_PERFMON_EXT)) {
		if (id->leaf23_ebx & CPUID23_EBX_UMASK2)
			caps->flags |= PMUCTL_CAP_UMASK2;
		if (id->leaf23_ebx & CPUID23_EBX_EQ)
			caps->flags |= PMUCTL_CAP_EQ;
	}

	if (id->leaf1_ecx & CPUID1_ECX_PDCM) {
		caps->perf_capabilities = id->perf_capabilities;
		if (id->perf_capabilities & PERF_CAP_FW_WRITE)
			caps->flags |= PMUCTL_CAP_FULL_WIDTH_WRITE;
		if (id->perf_capabilities & PERF_CAP_PERF_METRICS)
			caps->flags |= PMUCTL_CAP_PERF_METRICS;
	}
	return 0;
}
