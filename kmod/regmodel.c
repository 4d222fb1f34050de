// SPDX-License-Identifier: GPL-2.0
/*
 * The test register model: a per-CPU file of the PMU MSRs that stands in
 * for the hardware where there is none (QEMU's TCG reads every MSR as 0 and
 * drops every write).  It enforces what silicon enforces, so the module's
 * fault paths run: reserved bits and absent registers fault, counters keep
 * their width, full-width counter writes go through IA32_A_PMCx only when
 * PERF_CAPABILITIES allows them.  Its caps come from a module parameter
 * because CPUID.0AH reads zero in the guest.
 *
 * Built only with PMUCTL_REGMODEL=y (Kbuild), never into the default module.
 * debugfs (pmuctl/): regs (read all, or write "CPU MSR VALUE" to preset a
 * register), fail_write (write "CPU": its next MSR write faults; "CPU N":
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
#include "pmuctl.h"

static char *regmodel_caps = "auto";
module_param(regmodel_caps, charp, 0444);
MODULE_PARM_DESC(regmodel_caps,
		 "register model PMU: knm (v3, 2x40-bit generic), knm4 (v3, 4 generic), skl (v4, 4x48-bit), icx (v5, 8x48-bit, 4 fixed, AnyThread deprecated), spr (as icx), skl-tfa (skl with TSX force abort), skl-v6 (skl reporting perfmon v6), v6x (perfmon v6 with leaf 23H: 10 generic counters, UMASK2, EQ), hybrid (skl with the hybrid bit and no core type), adl (hybrid Alder Lake: even CPUs Golden Cove, odd Gracemont), mtl (hybrid Meteor Lake through leaf 23H: even Redwood Cove, odd Crestmont), lnl (hybrid Lunar Lake, perfmon v6: even Lion Cove, odd Skymont), wide (v4, 32 generic, as a hypervisor may report), auto (from the CPU model)");

static bool regmodel_drop_writes;
module_param(regmodel_drop_writes, bool, 0444);
MODULE_PARM_DESC(regmodel_drop_writes,
		 "accept every MSR write and keep none, as a hypervisor without a virtual PMU may");

#define PERF_CAP_FW_WRITE	BIT_ULL(13)
#define PERF_CAP_PERF_METRICS	BIT_ULL(15)	/* IA32_PERF_METRICS, GLOBAL_CTRL bit 48 */
#define CPUID1_ECX_PDCM		BIT(15)
#define CPUID7_EDX_RTM_ALWAYS_ABORT	BIT(11)
#define CPUID7_EDX_TSX_FORCE_ABORT	BIT(13)
#define CPUID7_EDX_HYBRID	BIT(15)
#define CPUIDA_EDX_ANY_DEPR	BIT(15)	/* v5+: AnyThread deprecated */
#define TFA_VALID		0x7ULL	/* RTM_FORCE_ABORT, TSX_CPUID_CLEAR, SDV_ENABLE_RTM */
#define LOG_SIZE		64

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
static const struct rm_caps *rm;
static unsigned long rm_nr_suspends;

static struct {
	u32 cpu, msr;
	u64 val;
	int err;
} rm_log[LOG_SIZE];
static unsigned long rm_nr_writes;

static u64 width_mask(u32 width)
{
	return width >= 64 ? ~0ULL : BIT_ULL(width) - 1;
}

/* The PMU of @cpu: its core type's in a hybrid preset. */
static const struct rm_caps *rm_of(u32 cpu)
{
	return rm->type[0] ? rm->type[cpu & 1] : rm;
}

/* Is fixed counter @i present: i < EDX[4:0], or (v5+) ECX bit i. */
static bool rm_fixed_present(const struct rm_caps *rc, u32 i)
{
	return i < PMUCTL_MAX_FIXED &&
	       (i < rc->nr_fixed ||
		(rc->version >= 5 && (rc->fixed_bitmap & BIT(i))));
}

static u64 rm_fixed_mask(const struct rm_caps *rc)
{
	u64 m = 0;
	u32 i;

	for (i = 0; i < PMUCTL_MAX_FIXED; i++)
		if (rm_fixed_present(rc, i))
			m |= BIT_ULL(i);
	return m;
}

/* AnyThread: v3 and later, unless v5+ deprecates it (then reserved, as KVM). */
static bool rm_any_thread(const struct rm_caps *rc)
{
	return rc->version >= 3 && !(rc->version >= 5 && rc->any_deprecated);
}

/* Extra MSRs exist as the model of @cpu's type has them. */
static int rm_xreg(u32 cpu, u32 msr)
{
	const struct pmuctl_type *t = pmuctl_cpu_type(cpu);
	u32 i;

	for (i = 0; t && i < t->model->nr_xregs; i++)
		if (t->model->xregs[i].msr == msr)
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

/* The generic counters @rc's legacy ranges hold. */
static u32 rm_legacy_gp(const struct rm_caps *rc)
{
	return rc->version >= 6 ? min_t(u32, rc->nr_gp, PMUCTL_LEGACY_GP) : rc->nr_gp;
}

/* The fixed counters below this number @rc's legacy range may hold. */
static u32 rm_legacy_fixed(const struct rm_caps *rc)
{
	return rc->version >= 6 ? PMUCTL_LEGACY_FIXED : PMUCTL_MAX_FIXED;
}

/* The counter register @msr of @rc: its kind and *@i, or RM_OTHER. */
static enum rm_kind rm_counter(const struct rm_caps *rc, u32 msr, u32 *i)
{
	u32 legacy = rm_legacy_gp(rc);
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
		return rm_fixed_present(rc, *i) ? RM_FIXED : RM_OTHER;
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
	if (msr >= fixed && msr < fixed + rm_legacy_fixed(rc) &&
	    rm_fixed_present(rc, msr - fixed)) {
		*i = msr - fixed;
		return RM_FIXED;
	}
	return RM_OTHER;
}

/* The register @msr of @cpu's @r, or NULL if its PMU has none (a #GP). */
static u64 *rm_reg(u32 cpu, struct rm_cpu *r, u32 msr)
{
	const struct rm_caps *rc = rm_of(cpu);
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
	const struct rm_caps *rc = rm_of(cpu);
	u64 v = *val, gp_w = width_mask(rc->gp_width);
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
		return v & ~width_mask(rc->fixed_width) ? -EIO : 0;
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
			if (!rm_fixed_present(rc, i))
				continue;
			nib_valid |= (rm_any_thread(rc) ? 0xfULL : 0xbULL) << (4 * i);
		}
		return v & ~nib_valid ? -EIO : 0;
	case MSR_CORE_PERF_GLOBAL_CTRL:
		return v & ~(width_mask(rc->nr_gp) | rm_fixed_mask(rc) << 32 |
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
		return v & ~pmuctl_cpu_type(cpu)->model->xregs[x].valid ? -EIO : 0;
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
		*val = rm_of(cpu)->perf_capabilities;
		return 0;
	}
	raw_spin_lock_irqsave(&rm_lock, flags);
	reg = rm_reg(cpu, r, msr);
	*val = reg ? *reg : 0;
	raw_spin_unlock_irqrestore(&rm_lock, flags);
	return reg ? 0 : -EIO;
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
 * The guest's own vendor and signature, with leaf 0AH from the model; a
 * hybrid preset presents its signature, the hybrid bit, and the leaves
 * 1AH, 7.1 and 23H of the core type of the CPU this runs on (the caller
 * decodes each CPU on that CPU; at load, any CPU will do).
 */
static int rm_cpuid(struct pmuctl_cpuid *id)
{
	const struct rm_caps *rc;
	int ret;

	ret = pmuctl_msr.cpuid(id);
	if (ret)
		return ret;
	rm = rm_find(regmodel_caps);
	if (!rm && !strcmp(regmodel_caps, "auto"))
		rm = rm_auto(id->leaf1_eax);
	if (!rm) {
		pr_err("regmodel_caps=%s: not one of knm, knm4, skl, icx, spr, skl-tfa, skl-v6, v6x, hybrid, adl, mtl, lnl, wide, auto\n",
		       regmodel_caps);
		return -EINVAL;
	}
	rc = rm_of(raw_smp_processor_id());
	id->max_leaf = max(id->max_leaf, 0xaU);
	/* The preset's part, unless the guest already is one (its stepping). */
	if (rm->leaf1_eax && (id->leaf1_eax & 0xfff0ff0) != (rm->leaf1_eax & 0xfff0ff0))
		id->leaf1_eax = rm->leaf1_eax;
	/* Leaf 0AH holds what the legacy ranges do; leaf 23H the rest. */
	id->leafa_eax = rm->version | rm_legacy_gp(rm) << 8 | rm->gp_width << 16 |
			(rm->nr_events ? rm->nr_events : 7) << 24;
	id->leafa_ebx = 0;
	id->leafa_ecx = rm->version >= 5 ? rm->fixed_bitmap : 0;
	id->leafa_edx = rm->nr_fixed | rm->fixed_width << 5;
	if (rm->version >= 5 && rm->any_deprecated)
		id->leafa_edx |= CPUIDA_EDX_ANY_DEPR;
	id->leaf7_edx &= ~(CPUID7_EDX_RTM_ALWAYS_ABORT |
			   CPUID7_EDX_TSX_FORCE_ABORT | CPUID7_EDX_HYBRID);
	id->leaf7_edx |= rm->leaf7_edx;
	/* The guest's own leaves 1AH and 23H never reach the decode. */
	id->leaf7_1_eax = (id->leaf7_1_eax & ~CPUID7_1_EAX_PERFMON_EXT) |
			  rm->leaf7_1_eax;
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
	return 0;
}

const struct pmuctl_backend pmuctl_regmodel = {
	.name = "regmodel",
	.kind = PMUCTL_BACKEND_MODEL,
	.read = rm_read,
	.write = rm_write,
	.cpuid = rm_cpuid,
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
		const struct rm_caps *rc = rm_of(cpu);
		const struct pmuctl_type *t = pmuctl_cpu_type(cpu);

		/* At the legacy addresses; a v6 preset's counters past 8 at theirs. */
		for (i = 0; i < rc->nr_gp; i++)
			rm_show_reg(m, cpu, i >= rm_legacy_gp(rc) ?
				    RM_V6_GP0_CTR + RM_V6_STEP * i + 1 :
				    MSR_ARCH_PERFMON_EVENTSEL0 + i, r.evtsel[i]);
		for (i = 0; i < rc->nr_gp; i++)
			rm_show_reg(m, cpu, i >= rm_legacy_gp(rc) ?
				    RM_V6_GP0_CTR + RM_V6_STEP * i :
				    MSR_ARCH_PERFMON_PERFCTR0 + i, r.pmc[i]);
		for (i = 0; i < PMUCTL_MAX_FIXED; i++)
			if (rm_fixed_present(rc, i))
				rm_show_reg(m, cpu, i >= rm_legacy_fixed(rc) ?
					    RM_V6_FX0_CTR + RM_V6_STEP * i :
					    MSR_ARCH_PERFMON_FIXED_CTR0 + i, r.fixed[i]);
		rm_show_reg(m, cpu, MSR_ARCH_PERFMON_FIXED_CTR_CTRL, r.fixed_ctrl);
		rm_show_reg(m, cpu, MSR_CORE_PERF_GLOBAL_CTRL, r.global_ctrl);
		for (i = 0; t && i < t->model->nr_xregs; i++)
			rm_show_reg(m, cpu, t->model->xregs[i].msr, r.x[i]);
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

/* "CPU MSR VALUE": preset a register, with the checks silicon applies. */
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
	if (sscanf(buf, "%u %i %lli", &cpu, &msr, &val) != 3 ||
	    cpu >= nr_cpu_ids || !cpu_possible(cpu))
		return -EINVAL;
	err = rm_write_cpu(cpu, msr, val, false);
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
	return MSR_ARCH_PERFMON_PERFCTR0 + rm->nr_gp - 1;
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
 * Return: 0.
 */
int pmuctl_regmodel_init(struct dentry *dir)
{
	debugfs_create_file("regs", 0600, dir, NULL, &rm_regs_fops);
	debugfs_create_file("fail_write", 0200, dir, NULL, &rm_fail_fops);
	debugfs_create_file("log", 0400, dir, NULL, &rm_log_fops);
	debugfs_create_file("perf_hold", 0200, dir, NULL, &rm_perf_fops);
	debugfs_create_file("suspends", 0400, dir, NULL, &rm_suspends_fops);
	pmuctl_syscore_register(&rm_syscore);
	debugfs_create_file("hold_lock", 0200, dir, NULL, &rm_hold_fops);
	return 0;
}
