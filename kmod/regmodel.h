/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the test register model (regmodel.c, regmodel_caps.c), built
 * only with PMUCTL_REGMODEL=y.
 */
#ifndef PMUCTL_KMOD_REGMODEL_H
#define PMUCTL_KMOD_REGMODEL_H

#include "regs.h"

#define PERF_CAP_FW_WRITE	BIT_ULL(13)
#define PERF_CAP_PERF_METRICS	BIT_ULL(15)	/* IA32_PERF_METRICS, GLOBAL_CTRL bit 48 */
#define CPUID1_ECX_PDCM		BIT(15)
#define CPUID7_EDX_RTM_ALWAYS_ABORT	BIT(11)
#define CPUID7_EDX_TSX_FORCE_ABORT	BIT(13)
#define CPUID7_EDX_HYBRID	BIT(15)
#define CPUIDA_EDX_ANY_DEPR	BIT(15)	/* v5+: AnyThread deprecated */

struct rm_caps {
	const char *name;
	u8 version, nr_gp, gp_width, nr_fixed, fixed_width;
	u64 perf_capabilities;
	u32 leaf7_edx;		/* the bits of CPUID.(7,0):EDX above */
	u32 fixed_bitmap;	/* v5+: CPUID.0AH:ECX */
	bool any_deprecated;	/* v5+: CPUID.0AH:EDX[15] */
	u8 nr_events;		/* CPUID.0AH:EAX[31:24]; 0: 7 */
	/*
	 * Hybrid presets: CPUID.1:EAX presented (0: the guest's own), and
	 * the core types of even and odd CPUs: their registers, their
	 * PERF_CAPABILITIES and leaves 1AH, 7.1 and 23H; leaf 0AH stays
	 * the preset's own, what both types share, as on silicon.
	 */
	u32 leaf1_eax;
	const struct rm_caps *type[2];
	u32 leaf7_1_eax, leaf1a_eax, leaf23_eax, leaf23_1_eax, leaf23_1_ebx;
	/* A non-hybrid preset's leaf 23H: its 0.EBX (UMASK2, EQ). */
	u32 leaf23_ebx;
};

#define CPUID7_1_EAX_PERFMON_EXT	BIT(8)

extern const struct rm_caps *pmuctl_rm;

u64 pmuctl_rm_width_mask(u32 width);
const struct rm_caps *pmuctl_rm_of(u32 cpu);
bool pmuctl_rm_fixed_present(const struct rm_caps *rc, u32 i);
u64 pmuctl_rm_fixed_mask(const struct rm_caps *rc);
bool pmuctl_rm_any_thread(const struct rm_caps *rc);
const struct pmuctl_model *pmuctl_rm_model_of(u32 cpu);
u32 pmuctl_rm_legacy_gp(const struct rm_caps *rc);
u32 pmuctl_rm_legacy_fixed(const struct rm_caps *rc);
int pmuctl_rm_cpuid(struct pmuctl_cpuid *id);

#endif /* PMUCTL_KMOD_REGMODEL_H */
