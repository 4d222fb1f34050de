// SPDX-License-Identifier: GPL-2.0
/*
 * The per-CPU register owner: every PMU register pmuctl writes, it writes
 * here, on the CPU itself with interrupts off (a cross-CPU call, a hotplug
 * or syscore callback, a context-switch hook).
 *
 * Two parts of pmuctl want a CPU's registers, and a third is kept:
 *   cs  CPU-scope claims (wave.c), as their waves last asked;
 *   tk  the task pool (pool.c), as the context-switch hooks last asked;
 *   fg  what a register held when pmuctl first took it on this CPU, kept
 *       until pmuctl gives the register back.
 * A counter's registers (its event select or FIXED_CTR_CTRL nibble, its
 * GLOBAL_CTRL enable, its extra MSR) are owned by cs or by tk or by
 * neither, never both (wave.c and pool.c place groups next to each
 * other's).  One function writes each shared register, composing it as
 *
 *   GLOBAL_CTRL    = (fg.global & ~own) | (cs.global & ~gate) | tk.global
 *   FIXED_CTR_CTRL = (fg.fixed & ~nibbles(own)) | cs.fixed | tk.fixed
 *   EVTSELi, XREGi = cs's if cs owns it, else tk's, else fg's
 *
 * with own = cs.own | tk.own, and gate the counters a wave is rewriting
 * (off while it does, as perf disables a counter before it reprograms it).
 * pmuctl_put_global(), _fixed(), _evtsel() and _xreg() are those
 * functions; wave.c (pmuctl_cs_sync()) and pool.c (the hooks) change their
 * part and call them, and nothing else in the module writes these
 * registers.
 * So what pmuctl found running on counters it does not own keeps running,
 * enable bits included, through every write; a register pmuctl never
 * took is never written; one it gives back gets its found value once.
 * The found values of GLOBAL_CTRL and FIXED_CTR_CTRL are taken with the
 * first register pmuctl takes on the CPU and forgotten with the last.
 *
 * The rdpmc scrub: a thread with CR4.PCE reads every counter index of its
 * CPU.  @dirty are the counters that may hold a count nobody here owns
 * (a released claim's, a switched-out thread's, perf's from before pmuctl
 * kept it off: every counter after pmuctl_epoch_bump(), every counter of a
 * CPU that comes online); pmuctl_hw_scrub_local() zeroes them before a
 * granted thread runs, as Linux's perf_clear_dirty_counters() does for
 * perf's rdpmc [LNX 5.15+, commit 5471eea5d3bf; FACTS 6].
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <asm/msr.h>
#include <asm/perf_event.h>

#include "pcpu.h"

struct pmuctl_pcpu __percpu *pmuctl_pcpu;

/*
 * Rebooting: no more writes.  Written under pmuctl_lock (WRITE_ONCE),
 * read without it by the hooks and the hotplug callbacks (READ_ONCE):
 * the reboot sets it before its own call gives every CPU's registers
 * back, so a hook that read it clear has finished by then (power.c).
 */
bool pmuctl_down;

/* CPUs whose registers are unknown after a write faulted. */
atomic_t pmuctl_nr_poisoned;

/* Cross-CPU call waves (wave.c, pool.c), for debugfs; pmuctl_lock. */
unsigned long pmuctl_nr_waves;

/* The calls above the hardware side (power.c sets them at load). */
const struct pmuctl_hw_ops *pmuctl_hw_ops;

/**
 * pmuctl_wave_pce() - a wave's last step on each CPU: the rdpmc grant
 *
 * A revoke, or a CPU-scope claim that came or went: the thread running
 * here may lose or regain rdpmc (grant.c, through pmuctl_hw_ops).
 * Context: a cross-CPU call.
 */
void pmuctl_wave_pce(void)
{
	if (pmuctl_hw_ops && pmuctl_hw_ops->pce_eval)
		pmuctl_hw_ops->pce_eval();
}

/* Bumped when counters may hold perf's counts: every CPU is scrubbed whole. */
static u32 pmuctl_epoch = 1;

/**
 * pmuctl_epoch_bump() - every counter may hold a count pmuctl did not zero
 *
 * Called when pmuctl takes the counters from perf, which leaves its
 * counts in them when its events go.  Context: pmuctl_lock.
 */
void pmuctl_epoch_bump(void)
{
	WRITE_ONCE(pmuctl_epoch, READ_ONCE(pmuctl_epoch) + 1);
}

/**
 * pmuctl_pcpu_alloc() - every CPU's state, all zero
 *
 * Return: 0 or -ENOMEM.
 */
int pmuctl_pcpu_alloc(void)
{
	pmuctl_pcpu = alloc_percpu(struct pmuctl_pcpu);
	return pmuctl_pcpu ? 0 : -ENOMEM;
}

/** pmuctl_pcpu_free() - give back what pmuctl_pcpu_alloc() took */
void pmuctl_pcpu_free(void)
{
	free_percpu(pmuctl_pcpu);
	pmuctl_pcpu = NULL;
	atomic_set(&pmuctl_nr_poisoned, 0);
}

/**
 * pmuctl_set_poisoned() - mark a CPU's registers unknown, or known again
 * @pc:		the CPU
 * @poisoned:	a write faulted there
 *
 * Context: the CPU itself, or its hotplug callback.
 */
void pmuctl_set_poisoned(struct pmuctl_pcpu *pc, bool poisoned)
{
	if (pc->poisoned == poisoned)
		return;
	pc->poisoned = poisoned;
	if (poisoned)
		atomic_inc(&pmuctl_nr_poisoned);
	else
		atomic_dec(&pmuctl_nr_poisoned);
}

/**
 * pmuctl_this_type() - the PMU of the CPU this runs on
 *
 * Context: preemption off.
 * Return: its type (the untyped one before a hybrid CPU's first online).
 */
const struct pmuctl_type *pmuctl_this_type(void)
{
	return pmuctl_type_of(smp_processor_id());
}

/**
 * pmuctl_cpu_xheld() - the extra MSRs a CPU's claims hold
 * @st:		the CPU's accounting
 *
 * Return: their indexes.
 */
u32 pmuctl_cpu_xheld(const struct pmuctl_cpu_state *st)
{
	u32 x = 0, i;

	for (i = 0; i < PMUCTL_XREG_MAX; i++)
		if (st->x[i].refcount)
			x |= BIT(i);
	return x;
}

/**
 * pmuctl_pcpu_owned() - the counter registers pmuctl owns on a CPU
 * @pc:		the CPU
 *
 * Return: cs's and tk's.
 */
u64 pmuctl_pcpu_owned(const struct pmuctl_pcpu *pc)
{
	return pc->cs.own | pc->tk.own;
}

static u32 xowned(const struct pmuctl_pcpu *pc)
{
	return pc->cs.xown | pc->tk.xown;
}

/**
 * pmuctl_take() - a part takes registers on this CPU
 * @pc:		this CPU
 * @part:	&pc->cs or &pc->tk
 * @regs:	counter indexes whose registers it takes (those already owned
 *		are left out)
 * @xregs:	extra MSRs likewise
 *
 * Keep what they hold now (fg), and with the first register taken on this
 * CPU, GLOBAL_CTRL and FIXED_CTR_CTRL.  A register that cannot be read is
 * taken as 0.  Nothing is written.  Context: this CPU, IRQs off.
 */
void pmuctl_take(struct pmuctl_pcpu *pc, struct pmuctl_part *part, u64 regs,
		 u32 xregs)
{
	const struct pmuctl_type *t = pmuctl_this_type();
	unsigned long bits;
	u32 i;

	regs &= ~pmuctl_pcpu_owned(pc);
	xregs &= ~xowned(pc);
	if (!regs && !xregs)
		return;
	if (!pc->fg_whole) {
		if (pmuctl_rd(MSR_CORE_PERF_GLOBAL_CTRL, &pc->fg.global))
			pc->fg.global = 0;
		if (!t->caps.fixed_mask ||
		    pmuctl_rd(MSR_ARCH_PERFMON_FIXED_CTR_CTRL, &pc->fg.fixed))
			pc->fg.fixed = 0;
		pc->fg_whole = true;
	}
	bits = regs & ~pc->fg.own & PMUCTL_GP_MASK(pmuctl_nr_gp(t));
	for_each_set_bit(i, &bits, PMUCTL_MAX_GP)
		if (pmuctl_rd(pmuctl_evtsel_msr(i), &pc->fg.evtsel[i]))
			pc->fg.evtsel[i] = 0;
	for (i = 0; i < t->model->nr_xregs; i++)
		if ((xregs & ~pc->fg.xown & BIT(i)) &&
		    pmuctl_rd(t->model->xregs[i].msr, &pc->fg.xval[i]))
			pc->fg.xval[i] = 0;
	/* Selects given back one by one; nibbles and enables with the rest. */
	pc->fg.own |= regs & PMUCTL_GP_MASK(pmuctl_nr_gp(t));
	pc->fg.xown |= xregs;
	part->own |= regs;
	part->xown |= xregs;
}

/**
 * pmuctl_put_evtsel() - the only writer of EVTSELi
 * @pc:		this CPU
 * @i:		a generic counter
 *
 * Its owner's value, or its found one once when no part owns it any
 * more; nothing for a select pmuctl never took.
 * Context: this CPU, IRQs off.
 * Return: 0 or the backend's error.
 */
int pmuctl_put_evtsel(struct pmuctl_pcpu *pc, u32 i)
{
	u64 b = BIT_ULL(i), v;
	int err;

	if (pc->cs.own & b) {
		v = pc->cs.evtsel[i];
	} else if (pc->tk.own & b) {
		v = pc->tk.evtsel[i];
	} else if (pc->fg.own & b) {
		err = pmuctl_wr(pmuctl_evtsel_msr(i), pc->fg.evtsel[i]);
		if (!err)
			pc->fg.own &= ~b;	/* given back */
		return err;
	} else {
		return 0;			/* never taken: not pmuctl's */
	}
	return pmuctl_wr(pmuctl_evtsel_msr(i), v);
}

/**
 * pmuctl_put_xreg() - the only writer of an extra MSR, as pmuctl_put_evtsel()
 * @pc:		this CPU
 * @i:		the extra MSR's index in the CPU's model
 *
 * Context: this CPU, IRQs off.
 * Return: 0 or the backend's error.
 */
int pmuctl_put_xreg(struct pmuctl_pcpu *pc, u32 i)
{
	u32 msr = pmuctl_this_type()->model->xregs[i].msr;
	int err;

	if (pc->cs.xown & BIT(i))
		return pmuctl_wr(msr, pc->cs.xval[i]);
	if (pc->tk.xown & BIT(i))
		return pmuctl_wr(msr, pc->tk.xval[i]);
	if (!(pc->fg.xown & BIT(i)))
		return 0;
	err = pmuctl_wr(msr, pc->fg.xval[i]);
	if (!err)
		pc->fg.xown &= ~BIT(i);
	return err;
}

/**
 * pmuctl_put_fixed() - the only writer of FIXED_CTR_CTRL (the rule above)
 * @pc:		this CPU
 *
 * Context: this CPU, IRQs off.
 * Return: 0 or the backend's error.
 */
int pmuctl_put_fixed(struct pmuctl_pcpu *pc)
{
	u64 own = pmuctl_pcpu_owned(pc);

	if (!pc->fg_whole || !pmuctl_this_type()->caps.fixed_mask)
		return 0;
	return pmuctl_wr(MSR_ARCH_PERFMON_FIXED_CTR_CTRL,
			 (pc->fg.fixed & ~pmuctl_fixed_nibbles(own)) |
			 pc->cs.fixed | pc->tk.fixed);
}

/**
 * pmuctl_put_global() - the only writer of GLOBAL_CTRL (the rule above)
 * @pc:		this CPU
 *
 * Context: this CPU, IRQs off.
 * Return: 0 or the backend's error.
 */
int pmuctl_put_global(struct pmuctl_pcpu *pc)
{
	u64 own = pmuctl_pcpu_owned(pc);

	if (!pc->fg_whole)
		return 0;
	return pmuctl_wr(MSR_CORE_PERF_GLOBAL_CTRL,
			 (pc->fg.global & ~own) | (pc->cs.global & ~pc->gate) |
			 pc->tk.global);
}

/**
 * pmuctl_forget_if_idle() - nothing owned, all given back: forget fg
 * @pc:		this CPU
 *
 * The next register taken here takes GLOBAL_CTRL and FIXED_CTR_CTRL as
 * they are then.  Call after a sequence of writes that all succeeded.
 * Context: this CPU, IRQs off.
 */
void pmuctl_forget_if_idle(struct pmuctl_pcpu *pc)
{
	if (!pmuctl_pcpu_owned(pc) && !xowned(pc) && !pc->fg.own &&
	    !pc->fg.xown)
		pc->fg_whole = false;
}

/**
 * pmuctl_counter_mask() - 2^width - 1 of a counter
 * @t:		the CPU's type
 * @idx:	a counter index
 *
 * Return: the mask (all ones for PERF_METRICS).
 */
u64 pmuctl_counter_mask(const struct pmuctl_type *t, u32 idx)
{
	u32 w = idx < PMUCTL_IDX_FIXED ? t->caps.gp_width : t->caps.fixed_width;

	return idx >= PMUCTL_IDX_METRIC || w >= 64 ? ~0ULL : BIT_ULL(w) - 1;
}

/**
 * pmuctl_put_count() - give a counter of this CPU a value
 * @idx:	the counter index (PERF_METRICS for a metric)
 * @val:	the value
 *
 * Fixed counters take their full width; generic ones too at their v6
 * address, else through IA32_A_PMCx where PERF_CAPABILITIES allows it,
 * else through the legacy address, which keeps bits 31:0 sign-extended
 * [SDM]: exact for values below 2^31.  Counters are no shared register:
 * whoever owns one writes its value.  Context: this CPU, IRQs off.
 * Return: 0 or the backend's error.
 */
int pmuctl_put_count(u32 idx, u64 val)
{
	const struct pmuctl_type *t = pmuctl_this_type();

	if (idx < PMUCTL_IDX_FIXED && pmuctl_v6())
		return pmuctl_wr(pmuctl_counter_msr(idx), val);
	if (idx < PMUCTL_IDX_FIXED &&
	    (t->caps.flags & PMUCTL_CAP_FULL_WIDTH_WRITE))
		return pmuctl_wr(MSR_IA32_PMC0 + idx, val);
	if (idx < PMUCTL_IDX_FIXED)
		return pmuctl_wr(pmuctl_counter_msr(idx), (u32)val);
	return pmuctl_wr(pmuctl_counter_msr(idx), val);
}

/**
 * pmuctl_tfa() - MSR_TSX_FORCE_ABORT[0] on this CPU, its only writer
 * @pc:		this CPU
 * @on:		set (a claim holds PMC3) or clear
 *
 * Set before PMC3 is written for a claim, cleared once no claim holds PMC3
 * here (Linux's intel_tfa_commit_scheduling and intel_tfa_pmu_enable_all).
 * The other bits belong to the kernel's TSX code: read, modify, write.
 * The pool never takes PMC3 there (pool.c).  Context: this CPU, IRQs off.
 * Return: 0 or the backend's error.
 */
int pmuctl_tfa(struct pmuctl_pcpu *pc, bool on)
{
	const struct pmuctl_type *t = pmuctl_this_type();
	u64 v;
	int err;

	if (!(t->caps.flags & PMUCTL_CAP_TSX_FORCE_ABORT) ||
	    (t->caps.flags & PMUCTL_CAP_PMC3_WITHHELD) || pc->tfa == on)
		return 0;
	err = pmuctl_rd(MSR_TSX_FORCE_ABORT, &v);
	if (!err)
		err = pmuctl_wr(MSR_TSX_FORCE_ABORT,
				on ? v | MSR_TFA_RTM_FORCE_ABORT :
				     v & ~MSR_TFA_RTM_FORCE_ABORT);
	if (!err)
		pc->tfa = on;
	return err;
}

/**
 * pmuctl_pcpu_running() - counters of @touch that run without pmuctl here
 * @pc:		this CPU
 * @touch:	counter indexes; those pmuctl owns are left out
 *
 * As perf's check_hw_exists() sees them: EN in the event select, OS or USR
 * in the FIXED_CTR_CTRL nibble.  A register that cannot be read counts as
 * running.  Context: this CPU, IRQs off.
 * Return: the running ones.
 */
u64 pmuctl_pcpu_running(struct pmuctl_pcpu *pc, u64 touch)
{
	const struct pmuctl_type *t = pmuctl_this_type();
	unsigned long bits;
	u64 v, running = 0;
	u32 i;

	touch &= ~pmuctl_pcpu_owned(pc);
	bits = touch & PMUCTL_GP_MASK(pmuctl_nr_gp(t));
	for_each_set_bit(i, &bits, PMUCTL_MAX_GP)
		if (pmuctl_rd(pmuctl_evtsel_msr(i), &v) ||
		    (v & ARCH_PERFMON_EVENTSEL_ENABLE))
			running |= BIT_ULL(i);
	if (!(touch & PMUCTL_FIXED_BITS))
		return running;
	if (pmuctl_rd(MSR_ARCH_PERFMON_FIXED_CTR_CTRL, &v))
		return running | (touch & PMUCTL_FIXED_BITS);
	for (i = 0; i < PMUCTL_MAX_FIXED; i++)
		if ((touch & BIT_ULL(PMUCTL_IDX_FIXED + i)) &&
		    (v >> (4 * i)) & (PMUCTL_FIXED_OS | PMUCTL_FIXED_USR))
			running |= BIT_ULL(PMUCTL_IDX_FIXED + i);
	return running;
}

/**
 * pmuctl_read_counters() - the counters of @n places on this CPU
 * @place:	where the events are
 * @n:		how many
 * @val:	out: their values
 *
 * Context: this CPU, IRQs off.
 * Return: 0 or -EIO when a read faulted.
 */
int pmuctl_read_counters(const struct pmuctl_place *place, u32 n, u64 *val)
{
	int err = 0;
	u32 i;

	for (i = 0; i < n; i++)
		err |= pmuctl_rd(pmuctl_counter_msr(place[i].idx), &val[i]);
	return err ? -EIO : 0;
}

/**
 * pmuctl_place_evtsel() - the event select of a generic counter's place
 * @p:		the place
 * @run:	enabled or not
 *
 * Return: the select's value.
 */
u64 pmuctl_place_evtsel(const struct pmuctl_place *p, bool run)
{
	return p->config | (run ? ARCH_PERFMON_EVENTSEL_ENABLE : 0);
}

/**
 * pmuctl_place_fixed() - FIXED_CTR_CTRL nibbles with a fixed counter's set
 * @ctrl:	the nibbles
 * @p:		a place on a fixed counter
 * @run:	its nibble set (OS, USR, AnyThread from the config) or cleared
 *
 * Return: @ctrl with the nibble of @p's counter replaced.
 */
u64 pmuctl_place_fixed(u64 ctrl, const struct pmuctl_place *p, bool run)
{
	u32 shift = 4 * (p->idx - PMUCTL_IDX_FIXED);
	u64 nib = 0;

	if (p->config & PMUCTL_CFG_OS)
		nib |= PMUCTL_FIXED_OS;
	if (p->config & PMUCTL_CFG_USR)
		nib |= PMUCTL_FIXED_USR;
	if (p->config & PMUCTL_CFG_ANY)
		nib |= PMUCTL_FIXED_ANY;
	ctrl &= ~(0xfULL << shift);
	return run ? ctrl | nib << shift : ctrl;
}

/**
 * pmuctl_pcpu_give_back() - give every register pmuctl holds here back
 * @pc:		this CPU
 *
 * The CPU goes offline or suspends, the machine reboots, the module goes:
 * each register pmuctl took gets its found value, and nothing else is
 * written.  The claims stay (the shadows are written again when the CPU
 * comes back); the pool's registers are taken again by the next
 * switch-in.  Context: this CPU, IRQs off, no task-scope thread loaded.
 * Return: 0, or -EIO when a write faulted (the CPU stays poisoned).
 */
int pmuctl_pcpu_give_back(struct pmuctl_pcpu *pc)
{
	const struct pmuctl_type *t = pmuctl_this_type();
	u64 own = pmuctl_pcpu_owned(pc) | pc->fg.own;
	u32 xown = xowned(pc) | pc->fg.xown;
	unsigned long bits;
	int err = 0;
	u32 i;

	memset(&pc->cs, 0, sizeof(pc->cs));
	memset(&pc->tk, 0, sizeof(pc->tk));
	pc->tk_fixed_stale = false;
	pc->gate = 0;
	pc->live = 0;
	bits = own & PMUCTL_GP_MASK(PMUCTL_MAX_GP);
	for_each_set_bit(i, &bits, PMUCTL_MAX_GP)
		err |= pmuctl_put_evtsel(pc, i);
	err |= pmuctl_put_fixed(pc);
	for (i = 0; i < t->model->nr_xregs; i++)
		if (xown & BIT(i))
			err |= pmuctl_put_xreg(pc, i);
	err |= pmuctl_put_global(pc);
	err |= pmuctl_tfa(pc, false);
	if (!err)
		pmuctl_forget_if_idle(pc);
	pmuctl_set_poisoned(pc, err != 0);
	return err ? -EIO : 0;
}

/**
 * pmuctl_pcpu_reset() - forget what this CPU's registers held
 * @pc:		a CPU coming online
 *
 * Whatever its counters hold now is nobody's: scrub them all before a
 * granted thread runs.  Context: its online callback, IRQs off.
 */
void pmuctl_pcpu_reset(struct pmuctl_pcpu *pc)
{
	pc->dirty = ~0ULL;
}

/**
 * pmuctl_hw_scrub_local() - zero what a granted thread must not read here
 *
 * Before a thread runs with CR4.PCE (grant.c): every counter of this CPU
 * that may hold a count nobody here owns reads 0 from then on, except
 * counters others run beside pmuctl (found enabled, not pmuctl's: left
 * running, and visible).  Left as they are: the CPU-scope claims' counters
 * (only a privileged session's thread gets rdpmc on a CPU that has any)
 * and those of the task-scope thread loaded here, current.
 * Context: IRQs off.
 */
void pmuctl_hw_scrub_local(void)
{
	struct pmuctl_pcpu *pc = pmuctl_pcpu_this();
	u32 epoch = READ_ONCE(pmuctl_epoch);
	unsigned long bits;
	u64 cand, foreign, running;
	u32 i;

	if (READ_ONCE(pmuctl_down))
		return;
	if (pc->epoch != epoch) {
		pc->epoch = epoch;
		pc->dirty = ~0ULL;
	}
	cand = pc->dirty & pmuctl_all_counters(pmuctl_this_type()) & ~pc->cs.own &
	       ~pc->live;
	if (!cand)
		return;
	foreign = cand & ~pc->tk.own & ~PMUCTL_METRICS_BIT;
	if (foreign) {
		running = pmuctl_pcpu_running(pc, foreign);
		cand &= ~running;
		pc->dirty &= ~running;
	}
	bits = cand;
	for_each_set_bit(i, &bits, PMUCTL_NR_REGS)
		if (!pmuctl_put_count(i, 0))
			pc->dirty &= ~BIT_ULL(i);
}

/**
 * pmuctl_hw_cpu_scope_local() - do CPU-scope counters run on this CPU?
 *
 * Context: IRQs off.
 * Return: true if a CPU-scope claim's counters are written here.
 */
bool pmuctl_hw_cpu_scope_local(void)
{
	return pmuctl_pcpu_this()->cs.own != 0;
}
