// SPDX-License-Identifier: GPL-2.0
/*
 * The test register model's presets: which PMU it presents (the module
 * parameter regmodel_caps), as CPUID leaves over the guest's own
 * (QEMU's TCG reads CPUID.0AH as 0), and each core type's model table as
 * pmuctl decodes it from them.  regmodel.c is the register file.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/smp.h>
#include <linux/string.h>

#include "regmodel.h"

static char *regmodel_caps = "auto";
module_param(regmodel_caps, charp, 0444);
MODULE_PARM_DESC(regmodel_caps,
		 "register model PMU: knm (v3, 2x40-bit generic), knm4 (v3, 4 generic), skl (v4, 4x48-bit), icx (v5, 8x48-bit, 4 fixed, AnyThread deprecated), spr (as icx), skl-tfa (skl with TSX force abort), skl-v6 (skl reporting perfmon v6), v6x (perfmon v6 with leaf 23H: 10 generic counters, UMASK2, EQ), hybrid (skl with the hybrid bit and no core type), adl (hybrid Alder Lake: even CPUs Golden Cove, odd Gracemont), mtl (hybrid Meteor Lake through leaf 23H: even Redwood Cove, odd Crestmont), lnl (hybrid Lunar Lake, perfmon v6: even Lion Cove, odd Skymont), wide (v4, 32 generic, as a hypervisor may report), auto (from the CPU model)");

/*
 * Hybrid core types, from the InstLatx64 dumps selftests/core/caps_test.c
 * cites: Alder Lake-S (6/0x97/2) Golden Cove 8 GP and fixed 0-3 behind a
 * leaf 0AH of 6 GP and fixed 0-2 (Linux's rule finds them), Gracemont 6
 * GP and fixed 0-2; Meteor Lake-H (6/0xaa/4) Redwood Cove 8 GP and fixed
 * 0-3, Crestmont 8 GP and fixed 0-2, both from leaf 23H sub-leaf 1.
 */
static const struct rm_caps rm_adl_p = {
	.name = "adl-p", .version = 5, .nr_gp = 8, .gp_width = 48,
	.nr_fixed = 4, .fixed_width = 48, .perf_capabilities = PERF_CAP_FW_WRITE,
	.fixed_bitmap = 0xf, .any_deprecated = true, .leaf1a_eax = 0x40000001,
};

static const struct rm_caps rm_adl_e = {
	.name = "adl-e", .version = 5, .nr_gp = 6, .gp_width = 48,
	.nr_fixed = 3, .fixed_width = 48, .perf_capabilities = PERF_CAP_FW_WRITE,
	.fixed_bitmap = 0x7, .any_deprecated = true, .leaf1a_eax = 0x20000001,
};

static const struct rm_caps rm_mtl_p = {
	.name = "mtl-p", .version = 5, .nr_gp = 8, .gp_width = 48,
	.nr_fixed = 4, .fixed_width = 48, .perf_capabilities = PERF_CAP_FW_WRITE,
	.fixed_bitmap = 0xf, .any_deprecated = true, .leaf1a_eax = 0x40000002,
	.leaf23_eax = 0xb, .leaf23_1_eax = 0xff, .leaf23_1_ebx = 0xf,
};

static const struct rm_caps rm_mtl_e = {
	.name = "mtl-e", .version = 5, .nr_gp = 8, .gp_width = 48,
	.nr_fixed = 3, .fixed_width = 48, .perf_capabilities = PERF_CAP_FW_WRITE,
	.fixed_bitmap = 0x7, .any_deprecated = true, .leaf1a_eax = 0x20000002,
	.leaf23_eax = 0xb, .leaf23_1_eax = 0xff, .leaf23_1_ebx = 0x7,
};

/*
 * Lunar Lake (6/0xbd/1, selftests/core/caps_test.c's dump): perfmon v6,
 * Lion Cove 10 generic counters and fixed 0-3, Skymont 8 and fixed 0-2 and
 * 4-6, both from leaf 23H, both with UMASK2 and EQ.  Their counters past
 * the legacy 8 generic and fixed 0-3 answer at their v6 addresses only.
 */
static const struct rm_caps rm_lnl_p = {
	.name = "lnl-p", .version = 6, .nr_gp = 10, .gp_width = 48,
	.nr_fixed = 4, .fixed_width = 48, .perf_capabilities = PERF_CAP_FW_WRITE,
	.fixed_bitmap = 0xf, .any_deprecated = true, .leaf1a_eax = 0x40000003,
	.leaf23_eax = 0xb, .leaf23_ebx = 0x3, .leaf23_1_eax = 0x3ff,
	.leaf23_1_ebx = 0xf,
};

static const struct rm_caps rm_lnl_e = {
	.name = "lnl-e", .version = 6, .nr_gp = 8, .gp_width = 48,
	.nr_fixed = 3, .fixed_width = 48, .perf_capabilities = PERF_CAP_FW_WRITE,
	.fixed_bitmap = 0x77, .any_deprecated = true, .leaf1a_eax = 0x20000003,
	.leaf23_eax = 0xf, .leaf23_ebx = 0x3, .leaf23_1_eax = 0xff,
	.leaf23_1_ebx = 0x77,
};

/*
 * The PMUs the rig models (FACTS 1 and 4; KNM's 4 counters: its man page).
 * icx and spr: CPUID.0AH of a Xeon Ice Lake-SP (family 6 model 0x6a,
 * InstLatx64 GenuineIntel00606A6_ICX_04_CPUID.txt) and of a Sapphire Rapids
 * (model 0x8f, GenuineIntel00806F8_SapphireRapids_05_CPUID.txt): both read
 * EAX 0x08300805 EBX 0 ECX 0xf EDX 0x8604 (v5, 8 generic x 48 bits, fixed
 * counters 0-3 x 48 bits, AnyThread deprecated); full-width writes
 * (PERF_CAPABILITIES bit 13) and PERF_METRICS (bit 15) as both parts
 * have them (Linux enables topdown metrics on every Ice Lake and Sapphire
 * Rapids).  PERF_METRICS keeps what is written, as a register; it counts
 * nothing here.  Both present their part's signature (6/0x6a/6, 6/0x8f/8)
 * on a guest of another family and model, so that the model table is the
 * part's on any guest.
 */
static const struct rm_caps rm_models[] = {
	{ "knm", 3, 2, 40, 3, 40, 0 },
	{ "knm4", 3, 4, 40, 3, 40, 0 },
	{ "skl", 4, 4, 48, 3, 48, PERF_CAP_FW_WRITE },
	{ .name = "icx", .version = 5, .nr_gp = 8, .gp_width = 48, .nr_fixed = 4,
	  .fixed_width = 48,
	  .perf_capabilities = PERF_CAP_FW_WRITE | PERF_CAP_PERF_METRICS,
	  .fixed_bitmap = 0xf, .any_deprecated = true, .nr_events = 8,
	  .leaf1_eax = 0x000606a6 },
	{ .name = "spr", .version = 5, .nr_gp = 8, .gp_width = 48, .nr_fixed = 4,
	  .fixed_width = 48,
	  .perf_capabilities = PERF_CAP_FW_WRITE | PERF_CAP_PERF_METRICS,
	  .fixed_bitmap = 0xf, .any_deprecated = true, .nr_events = 8,
	  .leaf1_eax = 0x000806f8 },
	{ "skl-tfa", 4, 4, 48, 3, 48, PERF_CAP_FW_WRITE, CPUID7_EDX_TSX_FORCE_ABORT },
	{ "skl-v6", 6, 4, 48, 3, 48, PERF_CAP_FW_WRITE },
	/*
	 * Perfmon v6 with leaf 23H as Arrow Lake-S's Lion Cove presents it
	 * (selftests/core/caps_test.c): leaf 0AH 8 generic counters, 23H.1
	 * 10 (0x3ff), fixed 0-2; 23H.0 EBX 3 (UMASK2, EQ).  The two past
	 * the legacy 8 exist only at their v6 addresses.  It presents a
	 * Skylake-SP signature (6/0x55/4) on every guest, so that its model
	 * table is the same everywhere: skl's, which constrains no event to
	 * fewer counters than these tests use.
	 */
	{ .name = "v6x", .version = 6, .nr_gp = 10, .gp_width = 48, .nr_fixed = 3,
	  .fixed_width = 48, .perf_capabilities = PERF_CAP_FW_WRITE,
	  .leaf1_eax = 0x00050654,
	  .leaf7_1_eax = CPUID7_1_EAX_PERFMON_EXT, .leaf23_eax = 0x3,
	  .leaf23_ebx = 0x3, .leaf23_1_eax = 0x3ff, .leaf23_1_ebx = 0x7 },
	{ "hybrid", 4, 4, 48, 3, 48, PERF_CAP_FW_WRITE, CPUID7_EDX_HYBRID },
	{ .name = "adl", .version = 5, .nr_gp = 6, .gp_width = 48, .nr_fixed = 3,
	  .fixed_width = 48, .perf_capabilities = PERF_CAP_FW_WRITE,
	  .leaf7_edx = CPUID7_EDX_HYBRID, .fixed_bitmap = 0x7,
	  .any_deprecated = true, .leaf1_eax = 0x00090672,
	  .type = { &rm_adl_p, &rm_adl_e }, .leaf7_1_eax = 0x00400810 },
	{ .name = "mtl", .version = 5, .nr_gp = 8, .gp_width = 48, .nr_fixed = 3,
	  .fixed_width = 48, .perf_capabilities = PERF_CAP_FW_WRITE,
	  .leaf7_edx = CPUID7_EDX_HYBRID, .fixed_bitmap = 0x7,
	  .any_deprecated = true, .leaf1_eax = 0x000a06a4,
	  .type = { &rm_mtl_p, &rm_mtl_e }, .leaf7_1_eax = 0x40400910 },
	{ .name = "lnl", .version = 6, .nr_gp = 8, .gp_width = 48, .nr_fixed = 3,
	  .fixed_width = 48, .perf_capabilities = PERF_CAP_FW_WRITE,
	  .leaf7_edx = CPUID7_EDX_HYBRID, .fixed_bitmap = 0x7,
	  .any_deprecated = true, .nr_events = 8, .leaf1_eax = 0x000b06d1,
	  .type = { &rm_lnl_p, &rm_lnl_e }, .leaf7_1_eax = 0x44c009d7 },
	/* More generic counters than the legacy ranges hold (FACTS 6). */
	{ "wide", 4, 32, 48, 3, 48, PERF_CAP_FW_WRITE },
};

/* The preset: set by the first pmuctl_rm_cpuid(), at load. */
const struct rm_caps *pmuctl_rm;

/**
 * pmuctl_rm_width_mask() - 2^@width - 1
 * @width:	a counter width
 *
 * Return: the mask.
 */
u64 pmuctl_rm_width_mask(u32 width)
{
	return width >= 64 ? ~0ULL : BIT_ULL(width) - 1;
}

/**
 * pmuctl_rm_of() - the PMU of @cpu: its core type's in a hybrid preset
 * @cpu:	a possible CPU
 *
 * Return: its preset.
 */
const struct rm_caps *pmuctl_rm_of(u32 cpu)
{
	return pmuctl_rm->type[0] ? pmuctl_rm->type[cpu & 1] : pmuctl_rm;
}

/**
 * pmuctl_rm_fixed_present() - is fixed counter @i present?
 * @rc:		a preset
 * @i:		a fixed counter
 *
 * Return: i < EDX[4:0], or (v5+) ECX bit i.
 */
bool pmuctl_rm_fixed_present(const struct rm_caps *rc, u32 i)
{
	return i < PMUCTL_MAX_FIXED &&
	       (i < rc->nr_fixed ||
		(rc->version >= 5 && (rc->fixed_bitmap & BIT(i))));
}

/**
 * pmuctl_rm_fixed_mask() - the fixed counters a preset has
 * @rc:		the preset
 *
 * Return: their bitmap.
 */
u64 pmuctl_rm_fixed_mask(const struct rm_caps *rc)
{
	u64 m = 0;
	u32 i;

	for (i = 0; i < PMUCTL_MAX_FIXED; i++)
		if (pmuctl_rm_fixed_present(rc, i))
			m |= BIT_ULL(i);
	return m;
}

/**
 * pmuctl_rm_any_thread() - has the preset AnyThread?
 * @rc:		the preset
 *
 * Return: v3 and later, unless v5+ deprecates it (then reserved, as KVM).
 */
bool pmuctl_rm_any_thread(const struct rm_caps *rc)
{
	return rc->version >= 3 && !(rc->version >= 5 && rc->any_deprecated);
}

/*
 * The model table of each core type the preset presents (index 1: a
 * hybrid preset's odd CPUs), as pmuctl decodes it from the same CPUID:
 * its extra MSRs are the ones that exist.  Set by the first
 * pmuctl_rm_cpuid(), before any register is written.
 */
static const struct pmuctl_model *rm_model[2];

/**
 * pmuctl_rm_model_of() - the model table of @cpu's type
 * @cpu:	a possible CPU
 *
 * Return: the table, or NULL where pmuctl cannot decode the preset.
 */
const struct pmuctl_model *pmuctl_rm_model_of(u32 cpu)
{
	return rm_model[pmuctl_rm->type[0] ? cpu & 1 : 0];
}

/**
 * pmuctl_rm_legacy_gp() - the generic counters a preset's legacy ranges hold
 * @rc:		the preset
 *
 * Return: their number.
 */
u32 pmuctl_rm_legacy_gp(const struct rm_caps *rc)
{
	return rc->version >= 6 ? min_t(u32, rc->nr_gp, PMUCTL_LEGACY_GP) : rc->nr_gp;
}

/**
 * pmuctl_rm_legacy_fixed() - fixed counters below this are in the legacy range
 * @rc:		the preset
 *
 * Return: the number.
 */
u32 pmuctl_rm_legacy_fixed(const struct rm_caps *rc)
{
	return rc->version >= 6 ? PMUCTL_LEGACY_FIXED : PMUCTL_MAX_FIXED;
}

static const struct rm_caps *rm_find(const char *name)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(rm_models); i++)
		if (!strcmp(name, rm_models[i].name))
			return &rm_models[i];
	return NULL;
}

/* auto: the preset of the guest's CPU model (family 6), skl for any other. */
static const struct rm_caps *rm_auto(u32 leaf1_eax)
{
	u32 model = (leaf1_eax >> 4 & 0xf) | (leaf1_eax >> 12 & 0xf0);

	switch (model) {
	case 0x57: case 0x85:	/* Knights Landing, Knights Mill */
		return rm_find("knm");
	case 0x6a: case 0x6c:	/* Ice Lake-SP, Ice Lake-D */
		return rm_find("icx");
	case 0x8f: case 0xcf:	/* Sapphire Rapids, Emerald Rapids */
		return rm_find("spr");
	}
	return rm_find("skl");
}

/*
 * What the preset presents for a CPU of type @rc over the guest's own
 * CPUID @id: the guest's vendor and signature, leaf 0AH from the preset;
 * a hybrid preset its signature, the hybrid bit, and @rc's leaves 1AH,
 * 7.1 and 23H.
 */
static void rm_present(const struct rm_caps *rc, struct pmuctl_cpuid *id)
{
	const struct rm_caps *ps = pmuctl_rm;

	id->max_leaf = max(id->max_leaf, 0xaU);
	/* The preset's part, unless the guest already is one (its stepping). */
	if (ps->leaf1_eax && (id->leaf1_eax & 0xfff0ff0) != (ps->leaf1_eax & 0xfff0ff0))
		id->leaf1_eax = ps->leaf1_eax;
	/* Leaf 0AH holds what the legacy ranges do; leaf 23H the rest. */
	id->leafa_eax = ps->version | pmuctl_rm_legacy_gp(ps) << 8 | ps->gp_width << 16 |
			(ps->nr_events ? ps->nr_events : 7) << 24;
	id->leafa_ebx = 0;
	id->leafa_ecx = ps->version >= 5 ? ps->fixed_bitmap : 0;
	id->leafa_edx = ps->nr_fixed | ps->fixed_width << 5;
	if (ps->version >= 5 && ps->any_deprecated)
		id->leafa_edx |= CPUIDA_EDX_ANY_DEPR;
	id->leaf7_edx &= ~(CPUID7_EDX_RTM_ALWAYS_ABORT |
			   CPUID7_EDX_TSX_FORCE_ABORT | CPUID7_EDX_HYBRID);
	id->leaf7_edx |= ps->leaf7_edx;
	/* The guest's own leaves 1AH and 23H never reach the decode. */
	id->leaf7_1_eax = (id->leaf7_1_eax & ~CPUID7_1_EAX_PERFMON_EXT) |
			  ps->leaf7_1_eax;
	id->leaf1a_eax = rc->leaf1a_eax;
	id->leaf23_eax = rc->leaf23_eax;
	id->leaf23_ebx = rc->leaf23_ebx;
	id->leaf23_1_eax = rc->leaf23_1_eax;
	id->leaf23_1_ebx = rc->leaf23_1_ebx;
	if (rc->leaf1a_eax)
		id->max_leaf = max(id->max_leaf, rc->leaf23_eax ? 0x23U : 0x1aU);
	else if (rc->leaf23_eax)
		id->max_leaf = max(id->max_leaf, 0x23U);
	id->leaf1_ecx &= ~CPUID1_ECX_PDCM;
	id->perf_capabilities = 0;
	if (rc->perf_capabilities) {
		id->leaf1_ecx |= CPUID1_ECX_PDCM;
		id->perf_capabilities = rc->perf_capabilities;
	}
}

/* The model table of each type, decoded as pmuctl will (pure core). */
static void rm_models_init(const struct pmuctl_cpuid *guest)
{
	struct pmuctl_cpuid id;
	struct pmuctl_caps caps;
	u32 i, reason;

	for (i = 0; i < ARRAY_SIZE(rm_model); i++) {
		id = *guest;
		rm_present(pmuctl_rm->type[0] ? pmuctl_rm->type[i] : pmuctl_rm, &id);
		rm_model[i] = pmuctl_caps_decode(&id, &caps, &reason) ? NULL :
			      pmuctl_model_for(&caps);
	}
}

/**
 * pmuctl_rm_cpuid() - the backend's CPUID: the guest's, as the preset presents it
 * @id:		filled in for the CPU this runs on (the caller decodes each
 *		CPU on that CPU; at load, any CPU will do)
 *
 * The first call picks the preset (regmodel_caps).
 * Return: 0, or -EINVAL for an unknown preset.
 */
int pmuctl_rm_cpuid(struct pmuctl_cpuid *id)
{
	int ret;

	ret = pmuctl_msr.cpuid(id);
	if (ret)
		return ret;
	if (!pmuctl_rm) {
		pmuctl_rm = rm_find(regmodel_caps);
		if (!pmuctl_rm && !strcmp(regmodel_caps, "auto"))
			pmuctl_rm = rm_auto(id->leaf1_eax);
		if (!pmuctl_rm) {
			pr_err("regmodel_caps=%s: not one of knm, knm4, skl, icx, spr, skl-tfa, skl-v6, v6x, hybrid, adl, mtl, lnl, wide, auto\n",
			       regmodel_caps);
			return -EINVAL;
		}
		rm_models_init(id);
	}
	rm_present(pmuctl_rm_of(raw_smp_processor_id()), id);
	return 0;
}

