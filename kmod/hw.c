// SPDX-License-Identifier: GPL-2.0
/*
 * The hardware side of pmuctl: the only file that touches PMU MSRs (through
 * the backend) and makes cross-CPU calls.
 *
 * Every CPU has a shadow of the PMU registers pmuctl wants.  An operation
 * updates the shadows of its target CPUs under pmuctl_lock and the CPU
 * hotplug read lock, then writes them out in one cross-CPU call wave to
 * the online ones; a CPU coming online, and the boot CPU resuming from
 * suspend, is written from its shadow.  While a session's counters are
 * rewritten they are disabled in GLOBAL_CTRL.  The rdpmc revoke (grant.c)
 * rides on the release wave, and a grant needs no wave, so every operation
 * is one wave whatever the number of CPUs (debugfs "stats").
 *
 * Every operation is all or nothing: the shadows are kept as they were
 * before it ("bak"), and when a write faults on any CPU they are put back
 * and a second wave writes them out again, counter values included.  A CPU
 * where a write faulted is "poisoned": its registers are unknown, so the
 * next wave that reaches it (or its coming online) rewrites it whole, and
 * pmuctl keeps perf's counters reserved until that worked.
 *
 * Task scope (task.c) shares the registers in time: the counters of the
 * task "pool" (those some task-scope session holds, on every CPU) are
 * written by the context-switch hooks of the counted threads, on their
 * own CPU with interrupts off, never by a wave's shadow; each CPU keeps
 * what the hooks last wrote (tk_*) and what its waves last wrote (cs_*),
 * and every write of a shared register (GLOBAL_CTRL, FIXED_CTR_CTRL)
 * composes the two.  CPU-scope claims and the pool never overlap
 * (pmuctl_hw_program() and pmuctl_hw_task_program() see each other).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/notifier.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/reboot.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/smp.h>
#include <asm/msr.h>
#include <asm/nmi.h>
#include <asm/perf_event.h>

#include "compat.h"
#include "pmuctl.h"

/*
 * The legacy generic counter ranges hold 8 registers: IA32_PERFEVTSEL0-7
 * 0x186-0x18d and IA32_PMC0-7 0xc1-0xc8 [SDM vol. 4; FACTS 6].  Past them
 * lie IA32_PERF_CTL, CLOCK_MODULATION, MISC_ENABLE: no count from CPUID
 * may take pmuctl there.  pmuctl_caps_decode() clamps a PMU before v6 to
 * them; a v6 PMU is addressed in its own range below.
 */
#define HW_LEGACY_GP	PMUCTL_LEGACY_GP

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
#define HW_V6_GP0_CTR	0x1900
#define HW_V6_GP0_CFG_A	0x1901
#define HW_V6_FX0_CTR	0x1980
#define HW_V6_STEP	4

#define GP_MASK(n)	(BIT_ULL(n) - 1)
#define FIXED_BITS	GENMASK_ULL(PMUCTL_IDX_MAX - 1, PMUCTL_IDX_FIXED)

/*
 * IA32_PERF_METRICS [SDM vol. 3B, "Performance Metrics"; LNX:
 * GLOBAL_CTRL_EN_PERF_METRICS]: every topdown metric index stands for
 * this one register, at index PMUCTL_IDX_METRIC in hw.c's masks, and its
 * GLOBAL_CTRL enable is that same bit, 48.
 */
#define METRICS_BIT	BIT_ULL(PMUCTL_IDX_METRIC)
#define HW_NR_REGS	(PMUCTL_IDX_METRIC + 1)	/* counter registers, PERF_METRICS last */

/* FIXED_CTR_CTRL, 4 bits per counter [SDM]: OS, USR, AnyThread, PMI. */
#define FIXED_OS	0x1
#define FIXED_USR	0x2
#define FIXED_ANY	0x4

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
 * Linux's allow_tsx_force_abort (arch/x86/events/intel/core.c), with its
 * default: where the microcode corrupts PMC3 during RTM transactions, use
 * PMC3 and make RTM abort while a session holds it, or (0) withhold PMC3.
 * Read at load.
 */
static bool allow_tsx_force_abort = true;
module_param(allow_tsx_force_abort, bool, 0444);
MODULE_PARM_DESC(allow_tsx_force_abort,
		 "Skylake TSX force abort: 1 (default, as Linux) abort RTM transactions while PMC3 is held, 0 never use PMC3");

struct pmuctl_shadow {
	u64 evtsel[PMUCTL_MAX_GP];
	u64 fixed_ctrl;
	u64 global_ctrl;
	u64 xval[PMUCTL_XREG_MAX];
	u64 zero;	/* counters to zero when the CPU comes online */
};

struct pmuctl_pcpu {
	/*
	 * This CPU's PMU: set at load, or (hybrid) when the CPU first comes
	 * online; hw_untyped until then.  Hotplug lock; READ_ONCE elsewhere.
	 */
	const struct pmuctl_type *t;
	struct pmuctl_cpu_state acct;	/* pmuctl_lock */
	struct pmuctl_shadow sh;	/* wanted; pmuctl_lock + hotplug lock */
	struct pmuctl_shadow bak;	/* sh before the operation under way */
	u64 val[HW_NR_REGS];		/* counter values a wave zeroed */
	bool saved;			/* found holds the state before pmuctl */
	bool tfa;			/* pmuctl set MSR_TSX_FORCE_ABORT[0] */
	u64 refused;			/* counters the last wave found in use */
	bool poisoned;			/* a write faulted: registers unknown */
	struct pmuctl_shadow found;
	/* What this CPU's registers hold; only this CPU, IRQs off. */
	u64 cs_global;			/* GLOBAL_CTRL bits of CPU scope */
	u64 cs_fixed;			/* FIXED_CTR_CTRL nibbles of CPU scope */
	u64 cs_held;			/* counters of CPU-scope claims written */
	u64 tk_run;			/* GLOBAL_CTRL bits of the thread loaded */
	u64 tk_fixed;			/* FIXED_CTR_CTRL nibbles of the pool */
	u64 tk_evtsel[PMUCTL_MAX_GP];	/* pool event selects as last written */
	u64 tk_xval[PMUCTL_XREG_MAX];	/* pool extra MSRs as last written */
	u64 dirty;			/* pool counters holding a thread's count */
	u64 tk_found;			/* GLOBAL_CTRL before the first task write */
	bool tk_seen;			/* tk_found holds it */
	/* perfmon v6 on 6.11+: perf's exclusive event here; hotplug lock */
	struct perf_event *sentinel;
};

static struct pmuctl_pcpu __percpu *pmuctl_pcpu;

static enum cpuhp_state pmuctl_hp_state;
static u32 pmuctl_nr_programmed;	/* sessions holding a group */
static bool pmuctl_perf_held;		/* perf kept off; hotplug + pmuctl_lock */
static bool pmuctl_down;		/* rebooting: no more writes */
static atomic_t pmuctl_nr_poisoned;	/* CPUs whose registers are unknown */
static unsigned long pmuctl_nr_waves;	/* cross-CPU call waves, for debugfs */

/*
 * The task pool: how many task-scope sessions hold each counter index and
 * extra MSR.  Changed under pmuctl_lock and the hotplug read lock, read by
 * waves (which run while their caller holds both) and hotplug callbacks.
 */
static u32 pmuctl_task_refs[PMUCTL_IDX_MAX];
static u32 pmuctl_task_xrefs[PMUCTL_XREG_MAX];
static u64 pmuctl_task_pool;
static u32 pmuctl_task_xpool;

struct pmuctl_wave {
	const struct cpumask *cfg;	/* CPUs whose PMU is written */
	u64 touch;		/* counters whose control is rewritten */
	u64 zero;		/* counters set to 0 */
	u64 save;		/* of zero: their values kept in pmuctl_pcpu.val */
	u64 put;		/* counters given back their pmuctl_pcpu.val */
	u32 xtouch;		/* extra MSRs rewritten */
	bool restore;		/* CPUs left without claims get their found state */
	bool revoke;		/* the session's granted threads lose CR4.PCE */
	bool check_free;	/* refuse a CPU where a touched counter runs */
	u64 scrub;		/* pool counters left: clear their registers */
	u32 xscrub;		/* pool extra MSRs left: clear them */
	void (*task_fn)(void *arg);	/* task.c's part of the wave */
	void *task_arg;
	atomic_t failed;
	int fail_cpu;
	atomic_t busy;		/* CPUs refused by check_free */
	int busy_cpu;
};

/*
 * A hybrid CPU's type before the CPU has been online: no counter, no
 * extra MSR, so that every loop over its registers does nothing.
 */
static struct pmuctl_type hw_untyped;

static struct pmuctl_pcpu *hw_pcpu(u32 cpu)
{
	return per_cpu_ptr(pmuctl_pcpu, cpu);
}

static int hw_wr(u32 msr, u64 val)
{
	return pmuctl_pmu.be->write(msr, val);
}

/* Is the PMU addressed in the v6 range (leaf 0AH: one version for all types)? */
static bool hw_v6(void)
{
	return pmuctl_pmu.version >= 6;
}

/*
 * Generic counters pmuctl addresses on a CPU: never past the legacy 8
 * before perfmon v6 (the caps are clamped; this is the last guard).
 */
static u32 hw_nr_gp(const struct pmuctl_pcpu *pc)
{
	return min_t(u32, pc->t->caps.nr_gp, hw_v6() ? PMUCTL_MAX_GP : HW_LEGACY_GP);
}

/* Every counter register a CPU's PMU has and pmuctl may address. */
static u64 hw_all_counters(const struct pmuctl_pcpu *pc)
{
	u64 all = GP_MASK(hw_nr_gp(pc)) |
		  (u64)pc->t->caps.fixed_mask << PMUCTL_IDX_FIXED;

	if ((pc->t->caps.flags & PMUCTL_CAP_PERF_METRICS) &&
	    pc->t->model->nr_metrics)
		all |= METRICS_BIT;
	return all;
}

/* The register of a counter index: a topdown metric's is PERF_METRICS. */
static u64 hw_reg(u32 idx)
{
	return idx >= PMUCTL_IDX_METRIC ? METRICS_BIT : BIT_ULL(idx);
}

/* The registers of a mask of counter indexes. */
static u64 hw_regs(u64 mask)
{
	return (mask & ~PMUCTL_METRIC_MASK) |
	       (mask & PMUCTL_METRIC_MASK ? METRICS_BIT : 0);
}

/* The counter registers the sessions hold on a CPU. */
static u64 hw_held(const struct pmuctl_pcpu *pc)
{
	return hw_regs(pmuctl_cpu_held(&pc->acct));
}

/**
 * pmuctl_cpu_type() - the PMU of a CPU
 * @cpu:	a possible CPU
 *
 * Return: its type, or NULL for a CPU of a hybrid part that has not
 * been online since the module loaded.
 */
const struct pmuctl_type *pmuctl_cpu_type(u32 cpu)
{
	const struct pmuctl_type *t;

	if (!pmuctl_pcpu)	/* before pmuctl_hw_init() */
		return NULL;
	t = READ_ONCE(hw_pcpu(cpu)->t);

	return t == &hw_untyped ? NULL : t;
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

/* The register of a counter index: v6's address on a v6 PMU. */
static u32 counter_msr(u32 idx)
{
	bool v6 = hw_v6();

	if (idx >= PMUCTL_IDX_METRIC)
		return MSR_PERF_METRICS;
	if (idx >= PMUCTL_IDX_FIXED)
		return v6 ? HW_V6_FX0_CTR + HW_V6_STEP * (idx - PMUCTL_IDX_FIXED) :
			    MSR_ARCH_PERFMON_FIXED_CTR0 + idx - PMUCTL_IDX_FIXED;
	return v6 ? HW_V6_GP0_CTR + HW_V6_STEP * idx :
		    MSR_ARCH_PERFMON_PERFCTR0 + idx;
}

/* The event select of generic counter @i. */
static u32 evtsel_msr(u32 i)
{
	return hw_v6() ? HW_V6_GP0_CFG_A + HW_V6_STEP * i :
			 MSR_ARCH_PERFMON_EVENTSEL0 + i;
}

/*
 * Give a counter a value back.  Fixed counters take their full width;
 * generic ones too at their v6 address, else through IA32_A_PMCx where
 * PERF_CAPABILITIES allows it, else through the legacy address, which
 * keeps bits 31:0 sign-extended [SDM]: exact for values below 2^31.
 */
static int hw_put_count(const struct pmuctl_pcpu *pc, u32 idx, u64 val)
{
	if (idx < PMUCTL_IDX_FIXED && hw_v6())
		return hw_wr(counter_msr(idx), val);
	if (idx < PMUCTL_IDX_FIXED &&
	    (pc->t->caps.flags & PMUCTL_CAP_FULL_WIDTH_WRITE))
		return hw_wr(MSR_IA32_PMC0 + idx, val);
	if (idx < PMUCTL_IDX_FIXED)
		return hw_wr(counter_msr(idx), (u32)val);
	/* Fixed counters and PERF_METRICS take every bit. */
	return hw_wr(counter_msr(idx), val);
}

/* FIXED_CTR_CTRL nibbles of the fixed counters in @mask. */
static u64 fixed_nibbles(u64 mask)
{
	u64 n = 0;
	u32 i;

	for (i = 0; i < PMUCTL_MAX_FIXED; i++)
		if (mask & BIT_ULL(PMUCTL_IDX_FIXED + i))
			n |= 0xfULL << (4 * i);
	return n;
}

static void hw_set_poisoned(struct pmuctl_pcpu *pc, bool poisoned)
{
	if (pc->poisoned == poisoned)
		return;
	pc->poisoned = poisoned;
	if (poisoned)
		atomic_inc(&pmuctl_nr_poisoned);
	else
		atomic_dec(&pmuctl_nr_poisoned);
}

/* Read the registers pmuctl will use, so that the last release restores them. */
static void hw_save_local(struct pmuctl_pcpu *pc)
{
	const struct pmuctl_backend *be = pmuctl_pmu.be;
	const struct pmuctl_model *m = pc->t->model;
	struct pmuctl_shadow *f = &pc->found;
	u32 i;

	*f = (struct pmuctl_shadow){ 0 };
	for (i = 0; i < hw_nr_gp(pc); i++)
		be->read(evtsel_msr(i), &f->evtsel[i]);
	if (pc->t->caps.fixed_mask)
		be->read(MSR_ARCH_PERFMON_FIXED_CTR_CTRL, &f->fixed_ctrl);
	be->read(MSR_CORE_PERF_GLOBAL_CTRL, &f->global_ctrl);
	for (i = 0; i < m->nr_xregs; i++)
		be->read(m->xregs[i].msr, &f->xval[i]);
	/* The pool's registers are task.c's: the restore leaves them be. */
	for (i = 0; i < hw_nr_gp(pc); i++)
		if (pmuctl_task_pool & BIT_ULL(i))
			f->evtsel[i] = 0;
	f->fixed_ctrl &= ~fixed_nibbles(pmuctl_task_pool);
	f->global_ctrl &= ~pmuctl_task_pool;
	for (i = 0; i < m->nr_xregs; i++)
		if (pmuctl_task_xpool & BIT(i))
			f->xval[i] = 0;
	pc->saved = true;
}

/*
 * MSR_TSX_FORCE_ABORT[0] on this CPU: set before PMC3 is written for a
 * session, cleared once no session holds PMC3 here (Linux's
 * intel_tfa_commit_scheduling and intel_tfa_pmu_enable_all).  The other
 * bits of the MSR belong to the kernel's TSX code: read, modify, write.
 */
static int hw_tfa_local(struct pmuctl_pcpu *pc, bool on)
{
	const struct pmuctl_backend *be = pmuctl_pmu.be;
	u64 v;
	int err;

	if (!(pc->t->caps.flags & PMUCTL_CAP_TSX_FORCE_ABORT) ||
	    (pc->t->caps.flags & PMUCTL_CAP_PMC3_WITHHELD) || pc->tfa == on)
		return 0;
	err = be->read(MSR_TSX_FORCE_ABORT, &v);
	if (!err)
		err = hw_wr(MSR_TSX_FORCE_ABORT, on ? v | MSR_TFA_RTM_FORCE_ABORT :
						     v & ~MSR_TFA_RTM_FORCE_ABORT);
	if (!err)
		pc->tfa = on;
	return err;
}

/*
 * The counters of @touch that run on this CPU without pmuctl, as perf's
 * check_hw_exists() would see them: EN in PERFEVTSELx, OS or USR in the
 * FIXED_CTR_CTRL nibble.  A register that cannot be read counts as running.
 */
static u64 hw_running_local(const struct pmuctl_pcpu *pc, u64 touch)
{
	const struct pmuctl_backend *be = pmuctl_pmu.be;
	unsigned long bits = touch & GP_MASK(hw_nr_gp(pc));
	u64 v, running = 0;
	u32 i;

	for_each_set_bit(i, &bits, PMUCTL_MAX_GP)
		if (be->read(evtsel_msr(i), &v) ||
		    (v & ARCH_PERFMON_EVENTSEL_ENABLE))
			running |= BIT_ULL(i);
	if (!(touch & FIXED_BITS))
		return running;
	if (be->read(MSR_ARCH_PERFMON_FIXED_CTR_CTRL, &v))
		return running | (touch & FIXED_BITS);
	for (i = 0; i < PMUCTL_MAX_FIXED; i++)
		if ((touch & BIT_ULL(PMUCTL_IDX_FIXED + i)) &&
		    (v >> (4 * i)) & (FIXED_OS | FIXED_USR))
			running |= BIT_ULL(PMUCTL_IDX_FIXED + i);
	return running;
}

/*
 * Put back the state found; kept to try again while a write faults.
 * Without @all (the last CPU-scope claim went) the pool's registers stay as
 * the thread running here wants them; with @all (the CPU goes away, reboot,
 * unload) they are cleared too, and the next switch-in rewrites them.
 */
static int hw_restore_local(struct pmuctl_pcpu *pc, bool all)
{
	const struct pmuctl_shadow *f = &pc->found;
	const struct pmuctl_model *m = pc->t->model;
	u64 pool = all ? 0 : pmuctl_task_pool;
	u32 xpool = all ? 0 : pmuctl_task_xpool;
	int err = 0;
	u32 i;

	if (all) {
		pc->tk_seen = false;
		pc->tk_run = 0;
		pc->tk_fixed = 0;
		memset(pc->tk_evtsel, 0, sizeof(pc->tk_evtsel));
		memset(pc->tk_xval, 0, sizeof(pc->tk_xval));
	}
	err |= hw_wr(MSR_CORE_PERF_GLOBAL_CTRL, pc->tk_run);
	for (i = 0; i < hw_nr_gp(pc); i++)
		if (!(pool & BIT_ULL(i)))
			err |= hw_wr(evtsel_msr(i), f->evtsel[i]);
	pc->cs_fixed = f->fixed_ctrl & ~fixed_nibbles(pool);
	if (pc->t->caps.fixed_mask)
		err |= hw_wr(MSR_ARCH_PERFMON_FIXED_CTR_CTRL,
			     pc->cs_fixed | pc->tk_fixed);
	for (i = 0; i < m->nr_xregs; i++)
		if (!(xpool & BIT(i)))
			err |= hw_wr(m->xregs[i].msr, f->xval[i]);
	pc->cs_global = f->global_ctrl & ~pool;
	err |= hw_wr(MSR_CORE_PERF_GLOBAL_CTRL,
		     (pc->cs_global & ~pmuctl_task_pool) | pc->tk_run);
	err |= hw_tfa_local(pc, false);
	pc->cs_held = 0;
	pc->saved = err != 0;
	return err;
}

/*
 * Write this CPU's shadow for the counters and extra MSRs of @w; all of
 * it where a write faulted before.  Every write is tried even after one
 * faulted, so that as much as possible is as wanted.
 */
static int hw_sync_local(struct pmuctl_pcpu *pc, const struct pmuctl_wave *w)
{
	const struct pmuctl_model *m = pc->t->model;
	u64 held = hw_held(pc);
	u64 all = hw_all_counters(pc), touch = w->touch & all;
	u64 zero = (w->zero | w->put) & all;
	u32 xtouch = w->xtouch;
	bool restore = w->restore;
	unsigned long bits;
	int err = 0;
	u32 i;

	/* The rollback wave after a refusal: this CPU was never written. */
	if (pc->refused) {
		pc->refused = 0;
		return 0;
	}
	/*
	 * A poisoned CPU holds what pmuctl failed to write, not somebody
	 * else's counters: the rewrite below replaces it.
	 */
	if (w->check_free && !pc->poisoned) {
		pc->refused = hw_running_local(pc, touch);
		if (pc->refused)
			return -EBUSY;
	}
	if (pc->poisoned) {
		/* Everything but the pool, which the thread here runs. */
		touch = all & ~pmuctl_task_pool;
		xtouch = (BIT(m->nr_xregs) - 1) & ~pmuctl_task_xpool;
		restore = true;
	}
	if (!pc->saved && held)
		hw_save_local(pc);
	if (held & BIT_ULL(3))
		err |= hw_tfa_local(pc, true);
	err |= hw_wr(MSR_CORE_PERF_GLOBAL_CTRL,
		     (pc->cs_global & ~touch & ~pmuctl_task_pool) | pc->tk_run);
	bits = touch & GP_MASK(hw_nr_gp(pc));
	for_each_set_bit(i, &bits, PMUCTL_MAX_GP)
		err |= hw_wr(evtsel_msr(i), pc->sh.evtsel[i]);
	if (touch & FIXED_BITS) {
		pc->cs_fixed = pc->sh.fixed_ctrl;
		err |= hw_wr(MSR_ARCH_PERFMON_FIXED_CTR_CTRL,
			     pc->cs_fixed | pc->tk_fixed);
	}
	for (i = 0; i < m->nr_xregs; i++)
		if (xtouch & BIT(i))
			err |= hw_wr(m->xregs[i].msr, pc->sh.xval[i]);
	for (i = 0; i < HW_NR_REGS; i++) {
		if (!(zero & BIT_ULL(i)))
			continue;
		if ((w->save & BIT_ULL(i)) &&
		    pmuctl_pmu.be->read(counter_msr(i), &pc->val[i]))
			pc->val[i] = 0;
		if (w->put & BIT_ULL(i))
			err |= hw_put_count(pc, i, pc->val[i]);
		else
			err |= hw_wr(counter_msr(i), 0);
	}
	pc->cs_global = pc->sh.global_ctrl;
	pc->cs_held = held;
	err |= hw_wr(MSR_CORE_PERF_GLOBAL_CTRL,
		     (pc->cs_global & ~pmuctl_task_pool) | pc->tk_run);
	if (!(held & BIT_ULL(3)))
		err |= hw_tfa_local(pc, false);
	if (restore && pc->saved && !held)
		err |= hw_restore_local(pc, false);
	hw_set_poisoned(pc, err != 0);
	return err;
}

/*
 * Counters and extra MSRs that left the task pool: no thread will switch
 * them in again, so clear what the hooks left in them on this CPU.
 */
static int hw_scrub_local(struct pmuctl_pcpu *pc, const struct pmuctl_wave *w)
{
	const struct pmuctl_model *m = pc->t->model;
	u64 scrub = w->scrub & hw_all_counters(pc), fixed;
	int err = 0;
	u32 i;

	for (i = 0; i < PMUCTL_IDX_MAX; i++) {
		if (!(scrub & BIT_ULL(i)))
			continue;
		if (i < PMUCTL_IDX_FIXED && pc->tk_evtsel[i]) {
			err |= hw_wr(evtsel_msr(i), 0);
			pc->tk_evtsel[i] = 0;
		}
		if (pc->dirty & BIT_ULL(i))
			err |= hw_wr(counter_msr(i), 0);
	}
	pc->dirty &= ~scrub;
	fixed = pc->tk_fixed & ~fixed_nibbles(scrub);
	if (fixed != pc->tk_fixed) {
		pc->tk_fixed = fixed;
		err |= hw_wr(MSR_ARCH_PERFMON_FIXED_CTR_CTRL,
			     pc->cs_fixed | pc->tk_fixed);
	}
	for (i = 0; i < m->nr_xregs; i++) {
		if (!(w->xscrub & BIT(i)) || !pc->tk_xval[i])
			continue;
		err |= hw_wr(m->xregs[i].msr, 0);
		pc->tk_xval[i] = 0;
	}
	/* The pool is empty: GLOBAL_CTRL as the task side found it. */
	if (!pmuctl_task_pool && pc->tk_seen) {
		err |= hw_wr(MSR_CORE_PERF_GLOBAL_CTRL,
			     pc->tk_found | pc->cs_global);
		pc->tk_seen = false;
	}
	return err;
}

static void hw_wave_fn(void *info)
{
	struct pmuctl_wave *w = info;
	int cpu = smp_processor_id(), err;

	if (w->task_fn)
		w->task_fn(w->task_arg);
	err = w->cfg && cpumask_test_cpu(cpu, w->cfg) ?
	      hw_sync_local(this_cpu_ptr(pmuctl_pcpu), w) : 0;
	if (!err && (w->scrub || w->xscrub))
		err = hw_scrub_local(this_cpu_ptr(pmuctl_pcpu), w);
	if (err == -EBUSY) {
		atomic_inc(&w->busy);
		w->busy_cpu = cpu;
	} else if (err) {
		atomic_inc(&w->failed);
		w->fail_cpu = cpu;
	}
	/*
	 * A revoke, or a CPU-scope claim that came or went: an unprivileged
	 * task-scope thread running here may lose or regain rdpmc (grant.c).
	 */
	pmuctl_grant_eval_local();
}

/*
 * One cross-CPU call wave: the PMU of the online CPUs of @cpus, and with
 * w->revoke CR4.PCE on the CPUs pmuctl_grant_revoke_prepare() put in
 * s->wave_cpus.  The offline CPUs of @cpus keep the zeroing for when they
 * come back.  Hotplug read lock held.  Return: 0, -EBUSY when
 * w->check_free found a counter running on some CPU (which was left
 * untouched), else -EIO when a write faulted.
 */
static int hw_wave(struct pmuctl_session *s, const struct cpumask *cpus,
		   struct pmuctl_wave *w)
{
	const struct cpumask *targets = cpus;
	u32 c;

	atomic_set(&w->failed, 0);
	w->fail_cpu = -1;
	atomic_set(&w->busy, 0);
	w->busy_cpu = -1;
	w->cfg = cpus;
	if (pmuctl_down)
		return -ESHUTDOWN;
	for_each_cpu(c, cpus) {
		if (!cpu_online(c)) {
			hw_pcpu(c)->sh.zero |= w->zero;
			hw_pcpu(c)->sh.zero &= ~w->put;
		}
	}
	if (w->revoke) {
		cpumask_or(s->wave_cpus, s->wave_cpus, cpus);
		targets = s->wave_cpus;
	}
	pmuctl_nr_waves++;
	atomic64_inc(&s->waves);
	on_each_cpu_mask(targets, hw_wave_fn, w, true);
	if (atomic_read(&w->busy))
		return -EBUSY;
	return atomic_read(&w->failed) ? -EIO : 0;
}

/* The counter registers of the session's group (PERF_METRICS for metrics). */
static u64 session_counters(const struct pmuctl_session *s)
{
	u64 mask = 0;
	u32 i;

	for (i = 0; i < s->nr; i++)
		mask |= hw_reg(s->place[i].idx);
	return mask;
}

static u32 session_xregs(const struct pmuctl_session *s)
{
	u32 mask = 0, i;

	for (i = 0; i < s->nr; i++)
		if (s->place[i].xreg >= 0)
			mask |= BIT(s->place[i].xreg);
	return mask;
}

/* Shadow of one counter: stopped or running as @run says. */
/* The event select of a generic counter's place, enabled or not. */
static u64 place_evtsel(const struct pmuctl_place *p, bool run)
{
	return p->config | (run ? ARCH_PERFMON_EVENTSEL_ENABLE : 0);
}

/* @ctrl with the FIXED_CTR_CTRL nibble of a fixed counter's place set (@run) or cleared. */
static u64 place_fixed_ctrl(u64 ctrl, const struct pmuctl_place *p, bool run)
{
	u32 shift = 4 * (p->idx - PMUCTL_IDX_FIXED);
	u64 nib = 0;

	if (p->config & PMUCTL_CFG_OS)
		nib |= FIXED_OS;
	if (p->config & PMUCTL_CFG_USR)
		nib |= FIXED_USR;
	if (p->config & PMUCTL_CFG_ANY)
		nib |= FIXED_ANY;
	ctrl &= ~(0xfULL << shift);
	return run ? ctrl | nib << shift : ctrl;
}

/*
 * A topdown metric has no control of its own: PERF_METRICS runs with its
 * GLOBAL_CTRL bit 48, which every metric of the group sets and clears
 * together (they are one session's, with its slots event).
 */
static void shadow_set(struct pmuctl_shadow *sh, const struct pmuctl_place *p,
		       bool run)
{
	if (p->idx < PMUCTL_IDX_FIXED)
		sh->evtsel[p->idx] = place_evtsel(p, run);
	else if (p->idx < PMUCTL_IDX_MAX)
		sh->fixed_ctrl = place_fixed_ctrl(sh->fixed_ctrl, p, run);
	if (run)
		sh->global_ctrl |= hw_reg(p->idx);
	else
		sh->global_ctrl &= ~hw_reg(p->idx);
}

static void shadow_clear(struct pmuctl_shadow *sh, const struct pmuctl_place *p)
{
	shadow_set(sh, p, false);
	if (p->idx < PMUCTL_IDX_FIXED)
		sh->evtsel[p->idx] = 0;
}

/*
 * The generic counters to reserve: the PMU's, on a hybrid part all the
 * legacy 8 (no type has more there; perf reserves by its own count).
 * Never past the legacy 8: the reservation is perf's of Linux < 6.11,
 * which knows only leaf 0AH's counters and those addresses (a v6 PMU's
 * counters past 8 are pmuctl's alone there).
 */
static u32 hw_perf_nr(void)
{
	return pmuctl_pmu.hybrid ? HW_LEGACY_GP :
	       min_t(u32, pmuctl_pmu.type[0].caps.nr_gp, HW_LEGACY_GP);
}

/*
 * Living next to perf (FACTS 3): while any session holds a group, pmuctl
 * holds every generic counter and event select, as perf's
 * reserve_pmc_hardware() would, so perf cannot create hardware events and
 * pmuctl cannot take counters perf (the NMI watchdog) uses.
 */
static int hw_perf_reserve(void)
{
	u32 i, n = hw_perf_nr();

	for (i = 0; i < n; i++) {
		if (!reserve_perfctr_nmi(MSR_ARCH_PERFMON_PERFCTR0 + i))
			goto undo_ctr;
		if (!reserve_evntsel_nmi(MSR_ARCH_PERFMON_EVENTSEL0 + i)) {
			release_perfctr_nmi(MSR_ARCH_PERFMON_PERFCTR0 + i);
			goto undo_ctr;
		}
	}
	return 0;
undo_ctr:
	while (i--) {
		release_evntsel_nmi(MSR_ARCH_PERFMON_EVENTSEL0 + i);
		release_perfctr_nmi(MSR_ARCH_PERFMON_PERFCTR0 + i);
	}
	pr_info_ratelimited("perf holds the PMU counters; the NMI watchdog does by default: sysctl kernel.nmi_watchdog=0\n");
	return -EBUSY;
}

static void hw_perf_release(void)
{
	u32 i;

	for (i = 0; i < hw_perf_nr(); i++) {
		release_evntsel_nmi(MSR_ARCH_PERFMON_EVENTSEL0 + i);
		release_perfctr_nmi(MSR_ARCH_PERFMON_PERFCTR0 + i);
	}
}

/*
 * Perfmon v6 on Linux 6.11+ (commit 149fd4712bcd): perf's counters live at
 * 0x1900+, outside the NMI reservation, so hw_perf_reserve() would succeed
 * next to a running perf (FACTS 6).  There pmuctl keeps perf off the PMU
 * of every online CPU with a sentinel instead (doc/perfmon-v6-coexistence.md).
 */
static bool hw_perf_v6(void)
{
	return hw_v6() && PERF_V6_UNRESERVED;
}

/*
 * The sentinel: a pinned, exclusive CPU event of perf's own.  While it is
 * on a CPU, perf schedules no other hardware event there, CPU, cgroup or
 * task (group_can_go_on(): flexible ones wait, pinned ones go to ERROR).
 * It counts nothing: ref-cycles, which perf puts on fixed counter 2 only,
 * with user and kernel excluded (a FIXED_CTR_CTRL nibble without OS and
 * USR).
 */
static struct perf_event_attr hw_sentinel_attr = {
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
static unsigned int hw_sentinel_neighbours(const struct perf_event *ev)
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
 * perf put it elsewhere, or -errno.  On failure the event stays in
 * pc->sentinel for hw_sentinel_off().
 * Context: the hotplug lock (read, or the CPU's own online callback).
 */
static int hw_sentinel_on(u32 cpu)
{
	struct pmuctl_pcpu *pc = hw_pcpu(cpu);
	struct perf_event *ev;

	if (pc->sentinel)
		return 0;
	ev = perf_event_create_kernel_counter(&hw_sentinel_attr, cpu, NULL,
					      NULL, NULL);
	if (IS_ERR(ev))
		return PTR_ERR(ev) == -ENOENT ? 0 : PTR_ERR(ev);
	pc->sentinel = ev;
	/* perf_install_in_context() ran on @cpu and returned: state is set. */
	if (READ_ONCE(ev->state) != PERF_EVENT_STATE_ACTIVE)
		return -EBUSY;
	if (ev->hw.idx != INTEL_PMC_IDX_FIXED_REF_CYCLES)
		return -EOPNOTSUPP;
	if (hw_sentinel_neighbours(ev))
		return -EBUSY;
	return 0;
}

/* Give @cpu's sentinel back to perf.  Context: as hw_sentinel_on(). */
static void hw_sentinel_off(u32 cpu)
{
	struct pmuctl_pcpu *pc = hw_pcpu(cpu);

	if (!pc->sentinel)
		return;
	perf_event_release_kernel(pc->sentinel);
	pc->sentinel = NULL;
}

static void hw_sentinels_off(void)
{
	u32 cpu;

	for_each_possible_cpu(cpu)
		hw_sentinel_off(cpu);
}

static int hw_sentinels_on(void)
{
	u32 cpu;
	int ret;

	for_each_online_cpu(cpu) {
		ret = hw_sentinel_on(cpu);
		if (ret) {
			hw_sentinels_off();
			if (ret == -EBUSY)
				pr_info_ratelimited("cpu %u: perf has events on the PMU (the NMI watchdog by default: sysctl kernel.nmi_watchdog=0; or a CPU-wide event, enabled or not)\n",
						    cpu);
			else
				pr_warn_ratelimited("cpu %u: perf cannot be kept off the perfmon v6 PMU (%d)\n",
						    cpu, ret);
			return ret;
		}
	}
	return 0;
}

/*
 * Keep perf off pmuctl's counters for a group about to be programmed:
 * -EBUSY when perf holds them, -EOPNOTSUPP (v6) when it cannot be kept
 * off.  Context: pmuctl_lock and the hotplug lock (read).
 */
static int hw_perf_get(void)
{
	int ret;

	if (pmuctl_perf_held)
		return 0;
	ret = hw_perf_v6() ? hw_sentinels_on() : hw_perf_reserve();
	if (ret && ret != -EBUSY)
		ret = -EOPNOTSUPP;
	pmuctl_perf_held = !ret;
	return ret;
}

/* PROGRAM's reason for hw_perf_get()'s error. */
static u32 hw_perf_reason(int err)
{
	return err == -EBUSY ? PMUCTL_R_PERF_BUSY : PMUCTL_R_PERF_UNMANAGED;
}

static void hw_perf_let_go(void)
{
	if (hw_perf_v6())
		hw_sentinels_off();
	else
		hw_perf_release();
	pmuctl_perf_held = false;
}

/*
 * Give perf its counters back once no session holds a group and no CPU is
 * poisoned: a faulted write may have left a counter of pmuctl's enabled
 * there, and perf must not be given it until it has been rewritten.
 * Context: pmuctl_lock and the hotplug lock (read).
 */
static void hw_perf_put(void)
{
	if (!pmuctl_perf_held || pmuctl_nr_programmed ||
	    atomic_read(&pmuctl_nr_poisoned))
		return;
	hw_perf_let_go();
}

/*
 * Withdraw the session's rdpmc grants with the next wave of @w (grant.c);
 * hw_revoke_finish() after it.  Context: any thread or process, including
 * the final fput of an exiting task.
 */
static void hw_revoke_prepare(struct pmuctl_session *s, struct pmuctl_wave *w)
{
	w->revoke = pmuctl_grant_revoke_prepare(s, s->wave_cpus);
}

static void hw_revoke_finish(struct pmuctl_session *s)
{
	pmuctl_grant_revoke_finish(s);
}

/*
 * After a wave of @w failed: put the shadows of @cpus back as they were,
 * and the registers with them, counter values included, in a second wave
 * that also rewrites whole the CPUs where a write faulted.
 */
static void hw_rollback(struct pmuctl_session *s, const struct cpumask *cpus,
			struct pmuctl_wave *w)
{
	u32 cpu;

	for_each_cpu(cpu, cpus)
		hw_pcpu(cpu)->sh = hw_pcpu(cpu)->bak;
	w->put = w->save;
	w->zero = 0;
	w->save = 0;
	if (hw_wave(s, cpus, w) && !pmuctl_down)
		pr_warn_ratelimited("cpu %d: could not restore the PMU after a failed write; perf stays locked out of it until it is rewritten\n",
				    w->fail_cpu);
}

/* Undo claims and shadows on @cpus after a failed program wave. */
static void hw_unclaim(struct pmuctl_session *s, const struct cpumask *cpus,
		       u32 n, struct pmuctl_wave *w)
{
	u32 cpu;

	for_each_cpu(cpu, cpus)
		WARN_ON_ONCE(pmuctl_cpu_release(&hw_pcpu(cpu)->acct, s->id,
						s->place, n));
	w->restore = true;
	hw_rollback(s, cpus, w);
}

/**
 * pmuctl_hw_program() - claim and program a group on a set of CPUs
 * @s:		the session, holding no group
 * @cpus:	target CPUs (possible ones; offline ones are written when they
 *		come online)
 * @ev:		the events, already copied in
 * @n:		their number
 * @place:	on success, where each event went
 * @reason:	on failure, PMUCTL_R_*
 * @index:	on failure, the event
 * @cpu:	on failure, the CPU, or U32_MAX
 *
 * Context: pmuctl_lock held.
 * Return: 0 or -errno; on failure nothing changed.
 */
int pmuctl_hw_program(struct pmuctl_session *s, const struct cpumask *cpus,
		      const struct pmuctl_event *ev, u32 n,
		      struct pmuctl_place *place, u32 *reason, u32 *index,
		      u32 *cpu)
{
	struct pmuctl_wave w = { .check_free = true };
	const struct pmuctl_type *t = NULL;
	struct pmuctl_view v;
	u32 c, i, policy = s->policy;
	int ret;

	*cpu = U32_MAX;
	cpus_read_lock();
	/* One PMU for the group: every CPU of one core type, a known one. */
	for_each_cpu(c, cpus) {
		const struct pmuctl_type *ct = hw_pcpu(c)->t;

		if (ct == &hw_untyped || (t && ct != t)) {
			*reason = PMUCTL_R_CPU_TYPE;
			*cpu = c;
			ret = -EINVAL;
			goto unlock;
		}
		t = ct;
	}
	if (t->caps.flags & PMUCTL_CAP_PMC3_WITHHELD)
		policy |= PMUCTL_POLICY_NO_PMC3;
	pmuctl_view_init(&v);
	for_each_cpu(c, cpus)
		pmuctl_view_add(&v, &hw_pcpu(c)->acct);
	/* Task-scope groups may run on every CPU: their pool is taken. */
	v.busy |= pmuctl_task_pool;
	for (i = 0; i < PMUCTL_XREG_MAX; i++)
		if (pmuctl_task_xpool & BIT(i))
			v.xstate[i] = PMUCTL_XV_CONFLICT;
	ret = pmuctl_group_schedule(t->model, &t->caps, policy,
				    &v, ev, n, place, reason, index);
	if (ret)
		goto unlock;

	ret = hw_perf_get();
	if (ret) {
		*reason = hw_perf_reason(ret);
		goto unlock;
	}

	memcpy(s->place, place, n * sizeof(*place));
	for_each_cpu(c, cpus) {
		struct pmuctl_pcpu *pc = hw_pcpu(c);

		pc->bak = pc->sh;
		/* The view held this CPU's state: the claim cannot fail. */
		WARN_ON_ONCE(pmuctl_cpu_claim(&pc->acct, s->id, place, n));
		for (i = 0; i < n; i++) {
			shadow_set(&pc->sh, &place[i], false);
			if (place[i].xreg >= 0)
				pc->sh.xval[place[i].xreg] = place[i].extra;
		}
	}
	s->nr = n;
	w.touch = session_counters(s);
	w.zero = w.touch;
	w.save = w.touch;
	w.xtouch = session_xregs(s);
	ret = hw_wave(s, cpus, &w);
	if (ret) {
		*reason = PMUCTL_R_HW_FAULT;
		*cpu = w.fail_cpu;
		if (ret == -EBUSY) {
			u64 busy = hw_pcpu(w.busy_cpu)->refused;

			*reason = PMUCTL_R_COUNTER_IN_USE;
			*cpu = w.busy_cpu;
			for (i = 0; i < n; i++)
				if (busy & BIT_ULL(place[i].idx))
					break;
			*index = i < n ? i : 0;
		}
		w.check_free = false;
		hw_unclaim(s, cpus, n, &w);
		s->nr = 0;
		hw_perf_put();
		goto unlock;
	}
	cpumask_copy(s->cpus, cpus);
	s->type = t;
	pmuctl_nr_programmed++;
	s->running = false;
unlock:
	cpus_read_unlock();
	return ret;
}

/*
 * Set the session's counters running or stopped on all its CPUs, zeroing
 * them if @zero; on a fault, everything as it was, s->running included.
 */
static int hw_run(struct pmuctl_session *s, bool run, bool zero)
{
	struct pmuctl_wave w = { 0 };
	u32 c, i;
	int ret;

	cpus_read_lock();
	for_each_cpu(c, s->cpus) {
		struct pmuctl_pcpu *pc = hw_pcpu(c);

		pc->bak = pc->sh;
		for (i = 0; i < s->nr; i++)
			shadow_set(&pc->sh, &s->place[i], run);
	}
	w.touch = session_counters(s);
	w.zero = zero ? w.touch : 0;
	w.save = w.zero;
	ret = hw_wave(s, s->cpus, &w);
	if (ret)
		hw_rollback(s, s->cpus, &w);
	else
		s->running = run;
	hw_perf_put();
	cpus_read_unlock();
	return ret;
}

/**
 * pmuctl_hw_start() - enable the session's counters on all its CPUs
 * @s:		the session, holding a group
 *
 * Context: pmuctl_lock held.
 * Return: 0 or -EIO when a register write faulted; then nothing changed.
 */
int pmuctl_hw_start(struct pmuctl_session *s)
{
	return hw_run(s, true, false);
}

/**
 * pmuctl_hw_stop() - disable the session's counters, keeping their values
 * @s:		the session, holding a group
 *
 * Context: pmuctl_lock held.
 * Return: 0 or -EIO when a register write faulted; then nothing changed.
 */
int pmuctl_hw_stop(struct pmuctl_session *s)
{
	return hw_run(s, false, false);
}

/**
 * pmuctl_hw_reset() - zero the session's counters, running or not
 * @s:		the session, holding a group
 *
 * Context: pmuctl_lock held.
 * Return: 0 or -EIO when a register write faulted; then the counters are
 * given back the values read just before they were zeroed.
 */
int pmuctl_hw_reset(struct pmuctl_session *s)
{
	return hw_run(s, s->running, true);
}

struct read_arg {
	const struct pmuctl_session *s;
	u64 *val;
	int err;
};

static void hw_read_fn(void *info)
{
	struct read_arg *a = info;
	u32 i;

	for (i = 0; i < a->s->nr; i++)
		a->err |= pmuctl_pmu.be->read(counter_msr(a->s->place[i].idx),
					      &a->val[i]);
}

/**
 * pmuctl_hw_read() - read the session's counters on one CPU
 * @s:		the session, holding a group
 * @cpu:	one of its CPUs
 * @val:	room for s->nr values
 *
 * Context: pmuctl_lock held.
 * Return: 0; -ENODEV when @cpu is offline; -EIO when a read faulted.
 */
int pmuctl_hw_read(struct pmuctl_session *s, u32 cpu, u64 *val)
{
	struct read_arg a = { .s = s, .val = val };
	int ret;

	cpus_read_lock();
	if (!cpu_online(cpu)) {
		ret = -ENODEV;
	} else {
		atomic64_inc(&s->waves);
		ret = smp_call_function_single(cpu, hw_read_fn, &a, true);
		if (!ret && a.err)
			ret = -EIO;
	}
	cpus_read_unlock();
	return ret;
}

/**
 * pmuctl_hw_release() - give back everything the session holds
 * @s:		the session
 *
 * A write that faults leaves its CPU poisoned: it is tried again at once,
 * and while it still faults, perf's counters stay reserved (a counter of
 * the session may still be enabled there) until a later wave reaching the
 * CPU, or the CPU coming online, rewrites it.
 *
 * Context: pmuctl_lock held.  Never fails: the accounting is released.
 */
void pmuctl_hw_release(struct pmuctl_session *s)
{
	struct pmuctl_wave w = { .restore = true };
	u32 c, i;

	if (!s->nr)
		return;
	if (s->task) {
		pmuctl_task_release(s);
		return;
	}
	hw_revoke_prepare(s, &w);
	cpus_read_lock();
	for_each_cpu(c, s->cpus) {
		struct pmuctl_pcpu *pc = hw_pcpu(c);

		WARN_ON_ONCE(pmuctl_cpu_release(&pc->acct, s->id, s->place, s->nr));
		for (i = 0; i < s->nr; i++) {
			int x = s->place[i].xreg;

			shadow_clear(&pc->sh, &s->place[i]);
			if (x >= 0 && !pc->acct.x[x].refcount)
				pc->sh.xval[x] = 0;
		}
	}
	w.touch = session_counters(s);
	w.zero = w.touch;
	w.xtouch = session_xregs(s);
	if (hw_wave(s, s->cpus, &w)) {
		/* The poisoned CPUs are rewritten whole; the others again. */
		w.revoke = false;
		if (hw_wave(s, s->cpus, &w) && !pmuctl_down)
			pr_warn_ratelimited("cpu %d: a PMU register write faulted during release; perf stays locked out until it is rewritten\n",
					    w.fail_cpu);
	}
	cpus_read_unlock();
	hw_revoke_finish(s);
	s->nr = 0;
	s->running = false;
	cpumask_clear(s->cpus);
	pmuctl_nr_programmed--;
	cpus_read_lock();
	hw_perf_put();
	cpus_read_unlock();
}

/*
 * GLOBAL_CTRL from the task side: the CPU-scope bits and the loaded
 * thread's.  The first such write on a CPU keeps what was there (perf
 * enables every counter in GLOBAL_CTRL and gates them in their selects),
 * for when the pool empties (hw_scrub_local()).  Context: IRQs off.
 */
static void hw_task_global(struct pmuctl_pcpu *pc)
{
	if (!pc->tk_seen &&
	    !pmuctl_pmu.be->read(MSR_CORE_PERF_GLOBAL_CTRL, &pc->tk_found))
		pc->tk_seen = true;
	hw_wr(MSR_CORE_PERF_GLOBAL_CTRL,
	      (pc->cs_global & ~READ_ONCE(pmuctl_task_pool)) | pc->tk_run);
}

/**
 * pmuctl_hw_task_policy() - the policy bits every task-scope group gets
 *
 * Where RTM corrupts PMC3 (TSX force abort), the MSR_TSX_FORCE_ABORT dance
 * follows the CPU-scope claims; the pool never takes PMC3 there.  No
 * topdown metric: PERF_METRICS would have to be saved and written back at
 * every switch, a value it is not documented to take.
 */
u32 pmuctl_hw_task_policy(void)
{
	/* PERF_METRICS is not saved and given back per thread. */
	return PMUCTL_POLICY_NO_METRICS |
	       (pmuctl_pmu.type[0].caps.flags & PMUCTL_CAP_TSX_FORCE_ABORT ?
		PMUCTL_POLICY_NO_PMC3 : 0);
}

/**
 * pmuctl_hw_task_bits() - low bits of a task-scope counter rdpmc shows exactly
 *
 * Return: the narrowest counter width with full-width writes, else 32:
 * the legacy counter address keeps bits 31:0 of what is written.
 */
u32 pmuctl_hw_task_bits(void)
{
	const struct pmuctl_caps *c = &pmuctl_pmu.type[0].caps;
	u32 bits = c->gp_width;

	if (!(c->flags & PMUCTL_CAP_FULL_WIDTH_WRITE))
		return 32;
	if (c->fixed_mask && c->fixed_width < bits)
		bits = c->fixed_width;
	return bits;
}

/* 2^width - 1 of counter index @idx on a CPU. */
static u64 hw_counter_mask(const struct pmuctl_pcpu *pc, u32 idx)
{
	u32 w = idx < PMUCTL_IDX_FIXED ? pc->t->caps.gp_width :
					 pc->t->caps.fixed_width;

	return w >= 64 ? ~0ULL : BIT_ULL(w) - 1;
}

/**
 * pmuctl_hw_task_program() - place a task-scope group in the pool
 * @s:		the session, holding no group
 * @g:		filled in on success
 * @ev:		the events, copied in
 * @n:		their number
 * @reason:	on failure, PMUCTL_R_*
 * @index:	on failure, the event
 *
 * The group must fit next to every CPU-scope claim on every possible CPU
 * (the thread may run anywhere), and shares the pool with the other
 * task-scope groups.  No register is written: the thread's switch-ins do.
 *
 * Context: pmuctl_lock held.
 * Return: 0 or -errno; on failure nothing changed.
 */
int pmuctl_hw_task_program(struct pmuctl_session *s, struct pmuctl_tgroup *g,
			   const struct pmuctl_event *ev, u32 n,
			   u32 *reason, u32 *index)
{
	struct pmuctl_view v;
	u32 c, i;
	int ret;

	cpus_read_lock();
	if (pmuctl_down) {
		ret = -ESHUTDOWN;
		goto unlock;
	}
	/*
	 * A thread runs on any CPU: one PMU on all of them, every one known
	 * (a hybrid part: one type found, every possible CPU online once).
	 */
	for_each_possible_cpu(c) {
		if (hw_pcpu(c)->t != &pmuctl_pmu.type[0]) {
			*reason = PMUCTL_R_CPU_TYPE;
			ret = -EINVAL;
			goto unlock;
		}
	}
	pmuctl_view_init(&v);
	for_each_possible_cpu(c)
		pmuctl_view_add(&v, &hw_pcpu(c)->acct);
	/* Extra MSRs are switched with the threads: never shared with CPU scope. */
	for (i = 0; i < PMUCTL_XREG_MAX; i++)
		if (v.xstate[i] != PMUCTL_XV_FREE)
			v.xstate[i] = PMUCTL_XV_CONFLICT;
	ret = pmuctl_group_schedule(pmuctl_pmu.type[0].model,
				    &pmuctl_pmu.type[0].caps,
				    s->policy | pmuctl_hw_task_policy(), &v,
				    ev, n, g->place, reason, index);
	if (ret)
		goto unlock;
	ret = hw_perf_get();
	if (ret) {
		*reason = hw_perf_reason(ret);
		goto unlock;
	}
	g->nr = n;
	g->counters = 0;
	g->xregs = 0;
	for (i = 0; i < n; i++) {
		g->counters |= BIT_ULL(g->place[i].idx);
		if (g->place[i].xreg >= 0)
			g->xregs |= BIT(g->place[i].xreg);
	}
	for (i = 0; i < PMUCTL_IDX_MAX; i++)
		if (g->counters & BIT_ULL(i))
			pmuctl_task_refs[i]++;
	for (i = 0; i < PMUCTL_XREG_MAX; i++)
		if (g->xregs & BIT(i))
			pmuctl_task_xrefs[i]++;
	pmuctl_task_pool |= g->counters;
	pmuctl_task_xpool |= g->xregs;
	s->type = &pmuctl_pmu.type[0];
	pmuctl_nr_programmed++;
unlock:
	cpus_read_unlock();
	return ret;
}

/**
 * pmuctl_hw_task_release() - take a task-scope group out of the pool
 * @s:		the session
 * @g:		its group
 * @cpus:	the CPUs that must run @fn (a thread of the group is loaded
 *		there); the session's grants' CPUs are added
 * @fn:		task.c's part, run on each CPU of the wave with IRQs off
 * @arg:	its argument
 *
 * One wave: @fn unloads the group's threads, rdpmc grants are revoked,
 * and the registers of counters no task-scope group holds any more are
 * cleared on every online CPU.
 *
 * Context: pmuctl_lock held.
 */
void pmuctl_hw_task_release(struct pmuctl_session *s,
			    const struct pmuctl_tgroup *g, struct cpumask *cpus,
			    void (*fn)(void *), void *arg)
{
	struct pmuctl_wave w = { .task_fn = fn, .task_arg = arg };
	u32 i;

	w.revoke = pmuctl_grant_revoke_prepare(s, s->wave_cpus);
	cpus_read_lock();
	for (i = 0; i < PMUCTL_IDX_MAX; i++)
		if ((g->counters & BIT_ULL(i)) && !--pmuctl_task_refs[i])
			w.scrub |= BIT_ULL(i);
	for (i = 0; i < PMUCTL_XREG_MAX; i++)
		if ((g->xregs & BIT(i)) && !--pmuctl_task_xrefs[i])
			w.xscrub |= BIT(i);
	pmuctl_task_pool &= ~w.scrub;
	pmuctl_task_xpool &= ~w.xscrub;
	cpumask_or(s->wave_cpus, s->wave_cpus, cpus);
	if (!pmuctl_down) {
		pmuctl_nr_waves++;
		atomic64_inc(&s->waves);
		on_each_cpu_mask(w.scrub || w.xscrub ? cpu_online_mask :
				 s->wave_cpus, hw_wave_fn, &w, true);
		if (atomic_read(&w.failed))
			pr_warn_ratelimited("cpu %d: a PMU register write faulted while a task-scope group was released\n",
					    w.fail_cpu);
	}
	cpus_read_unlock();
	pmuctl_grant_revoke_finish(s);
	pmuctl_nr_programmed--;
	cpus_read_lock();
	hw_perf_put();
	cpus_read_unlock();
}

/**
 * pmuctl_hw_task_in() - switch a thread's counters in on this CPU
 * @g:		its group
 * @val:	its counts
 * @loaded:	out: what each counter holds once written
 * @run:	enable them
 *
 * Writes the event selects, fixed-counter nibbles and extra MSRs that
 * differ from what this CPU's pool registers hold, one write per counter,
 * and GLOBAL_CTRL once when @run.  Where a write faults the count is
 * kept: the thread's next switch-out sees no increment.
 *
 * Context: the thread's CPU, IRQs off, no counter of @g loaded.
 */
void pmuctl_hw_task_in(const struct pmuctl_tgroup *g, const u64 *val,
		       u64 *loaded, bool run)
{
	struct pmuctl_pcpu *pc = this_cpu_ptr(pmuctl_pcpu);
	const struct pmuctl_model *m = pc->t->model;
	bool fw = (pc->t->caps.flags & PMUCTL_CAP_FULL_WIDTH_WRITE) || hw_v6();
	u64 fixed = pc->tk_fixed, v;
	u32 i;

	if (READ_ONCE(pmuctl_down))
		return;
	for (i = 0; i < g->nr; i++) {
		const struct pmuctl_place *p = &g->place[i];
		u32 idx = p->idx;

		/*
		 * A stopped group's selects are written without EN (its
		 * fixed-counter nibbles empty): GLOBAL_CTRL may enable every
		 * counter (perf leaves it so), it is no gate of its own.
		 */
		if (idx < PMUCTL_IDX_FIXED) {
			u64 sel = place_evtsel(p, run);

			if (pc->tk_evtsel[idx] != sel &&
			    !hw_wr(evtsel_msr(idx), sel))
				pc->tk_evtsel[idx] = sel;
		} else {
			fixed = place_fixed_ctrl(fixed, p, run);
		}
		if (p->xreg >= 0 && pc->tk_xval[p->xreg] != p->extra &&
		    !hw_wr(m->xregs[p->xreg].msr, p->extra))
			pc->tk_xval[p->xreg] = p->extra;
		/* Legacy writes keep bits 31:0 sign-extended [SDM; FACTS 1]. */
		v = val[i];
		if (idx < PMUCTL_IDX_FIXED && !fw)
			v = (u64)(s64)(s32)(u32)v;
		loaded[i] = v & hw_counter_mask(pc, idx);
		if (hw_put_count(pc, idx, loaded[i]) &&
		    pmuctl_pmu.be->read(counter_msr(idx), &loaded[i]))
			loaded[i] = 0;
	}
	pc->dirty &= ~g->counters;
	if (fixed != pc->tk_fixed &&
	    !hw_wr(MSR_ARCH_PERFMON_FIXED_CTR_CTRL, pc->cs_fixed | fixed))
		pc->tk_fixed = fixed;
	if (run) {
		pc->tk_run = g->counters;
		hw_task_global(pc);
	}
}

/**
 * pmuctl_hw_task_out() - switch a thread's counters out on this CPU
 * @g:		its group
 * @val:	its counts: each gets what its counter counted since
 *		pmuctl_hw_task_in() loaded @loaded
 * @loaded:	from pmuctl_hw_task_in()
 *
 * One GLOBAL_CTRL write (when they ran) and one read per counter; the
 * values stay in the registers, "dirty", until a thread with rdpmc comes
 * (pmuctl_hw_task_scrub_local()) or another thread's counts replace them.
 * A read that faults adds nothing.
 *
 * Context: the thread's CPU, IRQs off, @g loaded by pmuctl_hw_task_in().
 */
void pmuctl_hw_task_out(const struct pmuctl_tgroup *g, u64 *val,
			const u64 *loaded)
{
	struct pmuctl_pcpu *pc = this_cpu_ptr(pmuctl_pcpu);
	u64 now;
	u32 i;

	if (READ_ONCE(pmuctl_down))
		return;
	if (pc->tk_run) {
		pc->tk_run = 0;
		hw_task_global(pc);
	}
	for (i = 0; i < g->nr; i++) {
		u32 idx = g->place[i].idx;

		if (!pmuctl_pmu.be->read(counter_msr(idx), &now))
			val[i] += (now - loaded[i]) & hw_counter_mask(pc, idx);
	}
	pc->dirty |= g->counters;
}

/**
 * pmuctl_hw_task_read_local() - the group's counters on this CPU, as rdpmc
 * @g:		the group, loaded here
 * @val:	out: the values
 *
 * Context: IRQs off.
 * Return: 0 or -EIO when a read faulted.
 */
int pmuctl_hw_task_read_local(const struct pmuctl_tgroup *g, u64 *val)
{
	int err = 0;
	u32 i;

	for (i = 0; i < g->nr; i++)
		err |= pmuctl_pmu.be->read(counter_msr(g->place[i].idx), &val[i]);
	return err ? -EIO : 0;
}

/**
 * pmuctl_hw_task_scrub_local() - zero the switched-out threads' counts here
 *
 * Called before a thread runs with rdpmc (grant.c): the counts of other
 * task-scope threads left in the pool's counters read 0 from then on.
 *
 * Context: IRQs off.
 */
void pmuctl_hw_task_scrub_local(void)
{
	struct pmuctl_pcpu *pc = this_cpu_ptr(pmuctl_pcpu);
	unsigned long bits = pc->dirty;
	u32 i;

	if (!bits || READ_ONCE(pmuctl_down))
		return;
	for_each_set_bit(i, &bits, PMUCTL_IDX_MAX)
		hw_wr(counter_msr(i), 0);
	pc->dirty = 0;
}

/**
 * pmuctl_hw_cpu_scope_local() - do CPU-scope counters run on this CPU?
 *
 * Context: IRQs off.
 * Return: true if a CPU-scope claim's counters are written here.
 */
bool pmuctl_hw_cpu_scope_local(void)
{
	return this_cpu_ptr(pmuctl_pcpu)->cs_held != 0;
}

/* A type's caps as pmuctl uses them: PMC3 withheld where asked. */
static void hw_caps_fixup(struct pmuctl_caps *caps)
{
	if ((caps->flags & PMUCTL_CAP_TSX_FORCE_ABORT) && !allow_tsx_force_abort)
		caps->flags |= PMUCTL_CAP_PMC3_WITHHELD;
	/* The sentinel's counter (hw_sentinel_on()). */
	if (hw_perf_v6() && (caps->fixed_mask & BIT(2))) {
		caps->fixed_mask &= ~BIT(2);
		caps->flags |= PMUCTL_CAP_FIXED2_WITHHELD;
	}
}

/*
 * The type whose caps are @caps, added if new.  Context: at load, or the
 * CPU hotplug lock held for writing (hotplug callbacks run one at a time).
 * An entry is reached through pmuctl_pcpu.t only once it is whole.
 */
static const struct pmuctl_type *hw_type_find(const struct pmuctl_caps *caps)
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

/*
 * A hybrid part's CPU online for the first time since load: decode its
 * core type's PMU on it (leaves 1AH and 23H differ by type).  A CPU whose
 * type cannot be decoded, or a fifth type, stays untyped: no group is
 * placed on it (PMUCTL_R_CPU_TYPE).
 */
static void hw_type_local(struct pmuctl_pcpu *pc, u32 cpu)
{
	const struct pmuctl_type *t = NULL;
	struct pmuctl_cpuid id;
	struct pmuctl_caps caps;
	u32 reason;

	if (!pmuctl_pmu.be->cpuid(&id) &&
	    !pmuctl_caps_decode(&id, &caps, &reason)) {
		hw_caps_fixup(&caps);
		t = hw_type_find(&caps);
	}
	if (!t) {
		pr_warn("cpu %u: its core type's PMU cannot be decoded, or it is a type past the %u kept: no group is placed on it\n",
			cpu, PMUCTL_MAX_TYPES);
		return;
	}
	/* The entry is whole before a lockless reader (INFO) sees it. */
	smp_store_release(&pc->t, t);
}

/*
 * A CPU comes back, or the boot CPU resumes: write everything its shadow
 * holds, and zero the counters an operation zeroed while it was away.
 */
static int hw_cpu_online(unsigned int cpu)
{
	struct pmuctl_pcpu *pc = hw_pcpu(cpu);
	u64 held = hw_held(pc);
	struct pmuctl_wave w = { .touch = held, .zero = pc->sh.zero & held };
	unsigned long flags;
	int err;

	if (pc->t == &hw_untyped)
		hw_type_local(pc, cpu);
	pc->sh.zero = 0;
	if ((!held && !pc->poisoned) || pmuctl_down)
		return 0;
	w.xtouch = BIT(pc->t->model->nr_xregs) - 1;
	if (!pc->poisoned)
		pc->saved = false;
	pc->tfa = false;
	local_irq_save(flags);
	err = hw_sync_local(pc, &w);
	local_irq_restore(flags);
	if (err)
		pr_warn_ratelimited("cpu %u: could not reprogram the PMU\n", cpu);
	return 0;
}

/* A CPU goes away, or the boot CPU suspends: stop pmuctl's counters there; the claims stay. */
static int hw_cpu_offline(unsigned int cpu)
{
	struct pmuctl_pcpu *pc = hw_pcpu(cpu);
	unsigned long flags;
	int err;

	if (!hw_held(pc) && !pc->poisoned && !pmuctl_task_pool)
		return 0;
	local_irq_save(flags);
	err = hw_restore_local(pc, true);
	hw_set_poisoned(pc, err != 0);
	local_irq_restore(flags);
	if (err)
		pr_warn_ratelimited("cpu %u: could not restore the PMU\n", cpu);
	return 0;
}

/*
 * The hotplug callbacks.  Perfmon v6 on 6.11+: perf drops a dying CPU's
 * events (perf_event_exit_cpu(), after this callback), so the sentinel is
 * given back once pmuctl's counters are stopped, and put on again before
 * they are written when the CPU returns (perf_event_init_cpu() ran).
 */
static int hw_cpu_up(unsigned int cpu)
{
	int err;

	if (pmuctl_perf_held && hw_perf_v6() && !pmuctl_down) {
		err = hw_sentinel_on(cpu);
		if (err)
			pr_warn_ratelimited("cpu %u: perf could not be kept off its PMU (%d): pmuctl's counters there may be shared with perf\n",
					    cpu, err);
	}
	return hw_cpu_online(cpu);
}

static int hw_cpu_down(unsigned int cpu)
{
	hw_cpu_offline(cpu);
	hw_sentinel_off(cpu);
	return 0;
}

/*
 * Suspend to RAM or disk: the boot CPU goes through no hotplug callback
 * and loses its PMU programming [FACTS 6], so syscore ops stop pmuctl's
 * counters there and write the shadow back on resume.  Run on the boot
 * CPU with interrupts off and every other CPU offline.
 */
static int hw_syscore_suspend(PMUCTL_SYSCORE_ARGS)
{
	return hw_cpu_offline(smp_processor_id());
}

static void hw_syscore_resume(PMUCTL_SYSCORE_ARGS)
{
	hw_cpu_online(smp_processor_id());
}

static struct pmuctl_syscore hw_syscore = {
	.ops = {
		.suspend = hw_syscore_suspend,
		.resume = hw_syscore_resume,
	},
};

static void hw_stop_fn(void *unused)
{
	hw_cpu_offline(smp_processor_id());
}

/*
 * Reboot and kexec (kernel_restart_prepare() and kernel_shutdown_prepare()
 * call the chain with every CPU online): put every CPU's PMU back as pmuctl
 * found it, so that the next kernel inherits no running counter of ours,
 * and write nothing after that.
 */
static int hw_reboot(struct notifier_block *nb, unsigned long action,
		     void *data)
{
	mutex_lock(&pmuctl_lock);
	cpus_read_lock();
	if (!pmuctl_down)
		on_each_cpu(hw_stop_fn, NULL, true);
	pmuctl_down = true;
	cpus_read_unlock();
	mutex_unlock(&pmuctl_lock);
	return NOTIFY_DONE;
}

static struct notifier_block hw_reboot_nb = {
	.notifier_call = hw_reboot,
};

/**
 * pmuctl_hw_holding() - what the sessions hold on one CPU
 * @cpu:	a possible CPU
 * @h:		filled in
 *
 * Context: pmuctl_lock held.
 */
void pmuctl_hw_holding(u32 cpu, struct pmuctl_holding *h)
{
	const struct pmuctl_cpu_state *st = &hw_pcpu(cpu)->acct;
	const struct pmuctl_type *t = READ_ONCE(hw_pcpu(cpu)->t);
	const struct pmuctl_model *m = t->model;
	u32 i;

	*h = (struct pmuctl_holding){ .cpu = cpu };
	if (cpu_online(cpu))
		h->flags |= PMUCTL_HOLDING_ONLINE;
	if (t != &hw_untyped) {
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

static int hw_state_show(struct seq_file *m, void *unused)
{
	u32 cpu, i;

	mutex_lock(&pmuctl_lock);
	seq_printf(m, "programmed %u\nwaves %lu\nperf_reserved %u\n",
		   pmuctl_nr_programmed, pmuctl_nr_waves, pmuctl_perf_held);
	for_each_possible_cpu(cpu) {
		const struct pmuctl_cpu_state *st = &hw_pcpu(cpu)->acct;
		const struct pmuctl_model *mod = READ_ONCE(hw_pcpu(cpu)->t)->model;

		if (hw_pcpu(cpu)->poisoned)
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
DEFINE_SHOW_ATTRIBUTE(hw_state);

#ifdef PMUCTL_REGMODEL
/*
 * The test build's "reboot": run the reboot notifier as a reboot would,
 * so that a test sees its effect and the guest lives on; after it, the
 * module must be reloaded.
 */
static ssize_t hw_reboot_write(struct file *file, const char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	hw_reboot(&hw_reboot_nb, SYS_RESTART, NULL);
	return len;
}

static const struct file_operations hw_reboot_fops = {
	.owner = THIS_MODULE,
	.write = hw_reboot_write,
};
#endif

/**
 * pmuctl_hw_debugfs() - the accounting file, for tests and operators
 * @dir:	pmuctl's debugfs folder
 */
void pmuctl_hw_debugfs(struct dentry *dir)
{
	debugfs_create_file("state", 0400, dir, NULL, &hw_state_fops);
#ifdef PMUCTL_REGMODEL
	debugfs_create_file("reboot", 0200, dir, NULL, &hw_reboot_fops);
#endif
}

/**
 * pmuctl_hw_init() - per-CPU state and types; register for CPU hotplug,
 * suspend and reboot
 * @caps:	the PMU decoded at load (on a hybrid part, one CPU's type)
 *
 * A non-hybrid part's every CPU gets @caps' type; a hybrid part's CPUs
 * are typed as they come online, the online ones here.
 *
 * Context: after pmuctl_pmu.be, .hybrid and .version are set, before the
 * device exists.
 * Return: 0 or -errno (-ENODEV: no CPU's type could be decoded).
 */
int pmuctl_hw_init(const struct pmuctl_caps *caps)
{
	struct pmuctl_caps c = *caps;
	u32 cpu;
	int ret;

	hw_untyped = (struct pmuctl_type){
		.model = pmuctl_model_by_id(PMUCTL_MODEL_ARCH),
	};
	pmuctl_pmu.nr_types = 0;
	if (hw_perf_v6())
		pr_info("perfmon v%u: perf's counters are not reservable on this kernel: perf is kept off with an exclusive event on fixed counter 2 while pmuctl holds counters\n",
			pmuctl_pmu.version);
	pmuctl_pcpu = alloc_percpu(struct pmuctl_pcpu);
	if (!pmuctl_pcpu)
		return -ENOMEM;
	if (!pmuctl_pmu.hybrid) {
		hw_caps_fixup(&c);
		hw_type_find(&c);
	}
	for_each_possible_cpu(cpu)
		hw_pcpu(cpu)->t = pmuctl_pmu.hybrid ? &hw_untyped :
			&pmuctl_pmu.type[0];
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "pmuctl:online",
				hw_cpu_up, hw_cpu_down);
	if (ret < 0)
		goto free_pcpu;
	pmuctl_hp_state = ret;
	if (!pmuctl_pmu.nr_types) {
		ret = -ENODEV;
		goto remove_hp;
	}
	ret = register_reboot_notifier(&hw_reboot_nb);
	if (ret)
		goto remove_hp;
	pmuctl_syscore_register(&hw_syscore);
	return 0;

remove_hp:
	cpuhp_remove_state(pmuctl_hp_state);
free_pcpu:
	free_percpu(pmuctl_pcpu);
	pmuctl_pcpu = NULL;
	return ret;
}

/**
 * pmuctl_hw_exit() - unregister; free the per-CPU state
 *
 * Context: every session is gone.  A CPU still poisoned is tried once
 * more (every online one is rewritten as pmuctl found it), and perf gets
 * its counters back whatever the outcome: the module is going away.
 */
void pmuctl_hw_exit(void)
{
	pmuctl_syscore_unregister(&hw_syscore);
	unregister_reboot_notifier(&hw_reboot_nb);
	if (atomic_read(&pmuctl_nr_poisoned)) {
		cpus_read_lock();
		on_each_cpu(hw_stop_fn, NULL, true);
		cpus_read_unlock();
		if (atomic_read(&pmuctl_nr_poisoned))
			pr_warn("a PMU write still faults; unloading all the same\n");
	}
	cpuhp_remove_state(pmuctl_hp_state);
	cpus_read_lock();
	if (pmuctl_perf_held)
		hw_perf_let_go();
	cpus_read_unlock();
	atomic_set(&pmuctl_nr_poisoned, 0);
	pmuctl_down = false;
	free_percpu(pmuctl_pcpu);
	pmuctl_pcpu = NULL;
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
static void hw_probe_fn(void *info)
{
	struct probe_arg *a = info;
	const struct pmuctl_backend *be = a->be;
	u64 v, sel, back;
	u32 i;

	if (be->read(MSR_CORE_PERF_GLOBAL_CTRL, &v) ||
	    be->write(MSR_CORE_PERF_GLOBAL_CTRL, v)) {
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
 * @nr_gp:	generic counters every CPU has (leaf 0AH's, at most 8)
 *
 * Return: 0, or -ENODEV when GLOBAL_CTRL cannot be read and written back
 * or a counter does not keep what is written to it.
 */
int pmuctl_hw_probe(const struct pmuctl_backend *be, u32 nr_gp)
{
	struct probe_arg a = { .be = be, .nr_gp = min_t(u32, nr_gp, HW_LEGACY_GP) };

	smp_call_function_single(cpumask_first(cpu_online_mask), hw_probe_fn,
				 &a, true);
	return a.err;
}
