// SPDX-License-Identifier: GPL-2.0
/*
 * CPU scope: groups claimed on a set of CPUs.
 *
 * Every CPU has a shadow of the registers its claims want (pmuctl_pcpu.sh)
 * and their accounting (.acct, kmod/core/sched.c).  An operation updates
 * the shadows of its target CPUs under pmuctl_lock and the CPU hotplug
 * read lock, then writes them in one cross-CPU call wave to the online
 * ones (pmuctl_cs_sync() on each, the register owner); a CPU coming online
 * is written from its shadow (power.c).  The rdpmc revoke of a release
 * rides on its wave (the caller names the CPUs), and a grant needs no
 * wave, so every operation is one wave whatever the number of CPUs
 * (debugfs "stats").
 *
 * Every operation is all or nothing: the shadows are kept as they were
 * before it (bak), and when a write faults on any CPU they are put back
 * and a second wave writes them out again, counter values included.  A
 * CPU where a write faulted is poisoned: its registers are unknown, so the
 * next wave that reaches it (or its coming online) rewrites it whole, and
 * perf stays kept off until that worked (perf.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/smp.h>

#include "pcpu.h"

struct wave {
	const struct cpumask *cfg;	/* CPUs whose PMU is written */
	struct pmuctl_sync s;		/* touch, xtouch, zero, save, put */
	bool check_free;		/* refuse a CPU where a touched counter runs */
	atomic_t failed;
	int fail_cpu;
	atomic_t busy;			/* CPUs refused by check_free */
	int busy_cpu;
};

/**
 * pmuctl_cs_sync() - write a CPU-scope wave's part of this CPU
 * @pc:		this CPU
 * @w:		what changed
 *
 * The claims' registers from the shadow (pc->sh), with the touched
 * counters gated in GLOBAL_CTRL meanwhile; registers no claim holds any
 * more are given back.  Where a write faulted before (poisoned), every
 * register but the pool's is rewritten.  Every write is tried even after
 * one faulted, so that as much as possible is as wanted.
 * Context: this CPU, IRQs off.
 * Return: 0, or -EIO when a write faulted (the CPU is then poisoned).
 */
int pmuctl_cs_sync(struct pmuctl_pcpu *pc, const struct pmuctl_sync *w)
{
	const struct pmuctl_type *t = pmuctl_this_type();
	u64 all = pmuctl_all_counters(t);
	u32 xall = BIT(t->model->nr_xregs) - 1;
	u64 held = w->held & all, touch = w->touch & all;
	u64 vals = (w->zero | w->put) & all, gone;
	u32 xheld = w->xheld & xall, xtouch = w->xtouch & xall;
	unsigned long bits;
	int err = 0;
	u32 i;

	if (pc->poisoned) {
		touch = all & ~pc->tk.own;
		xtouch = xall & ~pc->tk.xown;
	}
	gone = touch & pc->cs.own & ~held;
	pmuctl_take(pc, &pc->cs, held, xheld);
	pc->gate = touch;
	err |= pmuctl_put_global(pc);
	if (held & BIT_ULL(3))
		err |= pmuctl_tfa(pc, true);
	pc->cs.own = held;
	pc->cs.xown = xheld;
	bits = touch & PMUCTL_GP_MASK(pmuctl_nr_gp(t));
	for_each_set_bit(i, &bits, PMUCTL_MAX_GP) {
		pc->cs.evtsel[i] = held & BIT_ULL(i) ? pc->sh.evtsel[i] : 0;
		err |= pmuctl_put_evtsel(pc, i);
	}
	if (touch & PMUCTL_FIXED_BITS) {
		pc->cs.fixed = pc->sh.fixed & pmuctl_fixed_nibbles(held);
		err |= pmuctl_put_fixed(pc);
	}
	for (i = 0; i < t->model->nr_xregs; i++) {
		if (!(xtouch & BIT(i)))
			continue;
		pc->cs.xval[i] = xheld & BIT(i) ? pc->sh.xval[i] : 0;
		err |= pmuctl_put_xreg(pc, i);
	}
	pc->dirty |= gone;
	bits = vals;
	for_each_set_bit(i, &bits, PMUCTL_NR_REGS) {
		int e;

		if ((w->save & BIT_ULL(i)) &&
		    pmuctl_rd(pmuctl_counter_msr(i), &pc->val[i]))
			pc->val[i] = 0;
		e = pmuctl_put_count(i, w->put & BIT_ULL(i) ? pc->val[i] : 0);
		if (!e && !(w->put & BIT_ULL(i)))
			pc->dirty &= ~BIT_ULL(i);
		err |= e;
	}
	pc->cs.global = pc->sh.global & held;
	pc->gate = 0;
	err |= pmuctl_put_global(pc);
	if (!(held & BIT_ULL(3)))
		err |= pmuctl_tfa(pc, false);
	if (!err)
		pmuctl_forget_if_idle(pc);
	pmuctl_set_poisoned(pc, err != 0);
	return err ? -EIO : 0;
}

static int wave_sync(struct pmuctl_pcpu *pc, struct wave *w)
{
	struct pmuctl_sync s = w->s;

	/* The rollback wave after a refusal: this CPU was never written. */
	if (pc->refused) {
		pc->refused = 0;
		return 0;
	}
	/*
	 * A poisoned CPU holds what pmuctl failed to write, not somebody
	 * else's counters: the rewrite replaces it.
	 */
	if (w->check_free && !pc->poisoned) {
		pc->refused = pmuctl_pcpu_running(pc, s.touch);
		if (pc->refused)
			return -EBUSY;
	}
	s.held = pmuctl_regs(pmuctl_cpu_held(&pc->acct));
	s.xheld = pmuctl_cpu_xheld(&pc->acct);
	return pmuctl_cs_sync(pc, &s);
}

static void wave_fn(void *info)
{
	struct wave *w = info;
	int cpu = smp_processor_id(), err = 0;

	if (w->cfg && cpumask_test_cpu(cpu, w->cfg))
		err = wave_sync(pmuctl_pcpu_this(), w);
	if (err == -EBUSY) {
		atomic_inc(&w->busy);
		w->busy_cpu = cpu;
	} else if (err) {
		atomic_inc(&w->failed);
		w->fail_cpu = cpu;
	}
	pmuctl_wave_pce();
}

/*
 * One cross-CPU call wave: the PMU of the online CPUs of @cpus, and the
 * rdpmc grant of those and of @also (the CPUs where a thread whose grant
 * the caller revoked may run).  The offline CPUs of @cpus keep the zeroing
 * for when they come back.  Hotplug read lock held.  Return: 0, -EBUSY
 * when w->check_free found a counter running on some CPU (which was left
 * untouched), else -EIO when a write faulted.
 */
static int wave(struct pmuctl_group *g, const struct cpumask *cpus,
		const struct cpumask *also, struct wave *w)
{
	const struct cpumask *targets = cpus;
	u32 c;

	atomic_set(&w->failed, 0);
	w->fail_cpu = -1;
	atomic_set(&w->busy, 0);
	w->busy_cpu = -1;
	w->cfg = cpus;
	if (READ_ONCE(pmuctl_down))
		return -ESHUTDOWN;
	for_each_cpu(c, cpus) {
		if (!cpu_online(c)) {
			pmuctl_pcpu_of(c)->zero |= w->s.zero;
			pmuctl_pcpu_of(c)->zero &= ~w->s.put;
		}
	}
	if (also) {
		cpumask_or(g->wave_cpus, cpus, also);
		targets = g->wave_cpus;
	}
	pmuctl_nr_waves++;
	atomic64_inc(&g->waves);
	on_each_cpu_mask(targets, wave_fn, w, true);
	if (atomic_read(&w->busy))
		return -EBUSY;
	return atomic_read(&w->failed) ? -EIO : 0;
}

/* The counter registers of the group (PERF_METRICS for metrics). */
static u64 group_counters(const struct pmuctl_group *g)
{
	u64 mask = 0;
	u32 i;

	for (i = 0; i < g->nr; i++)
		mask |= pmuctl_reg(g->place[i].idx);
	return mask;
}

static u32 group_xregs(const struct pmuctl_group *g)
{
	u32 mask = 0, i;

	for (i = 0; i < g->nr; i++)
		if (g->place[i].xreg >= 0)
			mask |= BIT(g->place[i].xreg);
	return mask;
}

/*
 * The shadow of one counter, stopped or running as @run says.  A topdown
 * metric has no control of its own: PERF_METRICS runs with its GLOBAL_CTRL
 * bit 48, which every metric of the group sets and clears together (they
 * are one session's, with its slots event).
 */
static void shadow_set(struct pmuctl_shadow *sh, const struct pmuctl_place *p,
		       bool run)
{
	if (p->idx < PMUCTL_IDX_FIXED)
		sh->evtsel[p->idx] = pmuctl_place_evtsel(p, run);
	else if (p->idx < PMUCTL_IDX_MAX)
		sh->fixed = pmuctl_place_fixed(sh->fixed, p, run);
	if (run)
		sh->global |= pmuctl_reg(p->idx);
	else
		sh->global &= ~pmuctl_reg(p->idx);
}

static void shadow_clear(struct pmuctl_shadow *sh, const struct pmuctl_place *p)
{
	shadow_set(sh, p, false);
	if (p->idx < PMUCTL_IDX_FIXED)
		sh->evtsel[p->idx] = 0;
}

/*
 * After a wave of @w failed: put the shadows of @cpus back as they were,
 * and the registers with them, counter values included, in a second wave
 * that also rewrites whole the CPUs where a write faulted.
 */
static void rollback(struct pmuctl_group *g, const struct cpumask *cpus,
		     struct wave *w)
{
	u32 cpu;

	for_each_cpu(cpu, cpus)
		pmuctl_pcpu_of(cpu)->sh = pmuctl_pcpu_of(cpu)->bak;
	w->s.put = w->s.save;
	w->s.zero = 0;
	w->s.save = 0;
	w->check_free = false;
	if (wave(g, cpus, NULL, w) && !READ_ONCE(pmuctl_down))
		pr_warn_ratelimited("cpu %d: could not restore the PMU after a failed write; perf stays locked out of it until it is rewritten\n",
				    w->fail_cpu);
}

/* The reason and event of a program wave's refusal. */
static void refusal(struct pmuctl_group *g, const struct wave *w, int ret,
		    u32 *reason, u32 *index, u32 *cpu)
{
	u64 busy;
	u32 i;

	*reason = PMUCTL_R_HW_FAULT;
	*cpu = w->fail_cpu;
	if (ret != -EBUSY)
		return;
	busy = pmuctl_pcpu_of(w->busy_cpu)->refused;
	*reason = PMUCTL_R_COUNTER_IN_USE;
	*cpu = w->busy_cpu;
	for (i = 0; i < g->nr; i++)
		if (busy & pmuctl_reg(g->place[i].idx))
			break;
	*index = i < g->nr ? i : 0;
}

/*
 * Place @n events on CPUs @cpus of type @t around what their accounting
 * holds (a group being replaced has given its places back) and the task
 * pool, which task-scope groups may use on every CPU.
 */
static int place(const struct pmuctl_type *t, const struct cpumask *cpus,
		 u32 policy, const struct pmuctl_event *ev, u32 n,
		 struct pmuctl_place *out, u32 *reason, u32 *index)
{
	struct pmuctl_view v;
	u32 c, i;

	if (t->caps.flags & PMUCTL_CAP_PMC3_WITHHELD)
		policy |= PMUCTL_POLICY_NO_PMC3;
	pmuctl_view_init(&v);
	for_each_cpu(c, cpus)
		pmuctl_view_add(&v, &pmuctl_pcpu_of(c)->acct);
	/* Task-scope groups may run on every CPU: their pool is taken. */
	v.busy |= pmuctl_task_pool;
	for (i = 0; i < PMUCTL_XREG_MAX; i++)
		if (pmuctl_task_xpool & BIT(i))
			v.xstate[i] = PMUCTL_XV_CONFLICT;
	return pmuctl_group_schedule(t->model, &t->caps, policy, &v, ev, n,
				     out, reason, index);
}

/* Claim @g's places on @pc and set their shadows, running if @run. */
static void claim(struct pmuctl_pcpu *pc, const struct pmuctl_group *g,
		  bool run)
{
	u32 i;

	/* The view held this CPU's state: the claim cannot fail. */
	WARN_ON_ONCE(pmuctl_cpu_claim(&pc->acct, g->id, g->place, g->nr));
	for (i = 0; i < g->nr; i++) {
		shadow_set(&pc->sh, &g->place[i], run);
		if (g->place[i].xreg >= 0)
			pc->sh.xval[g->place[i].xreg] = g->place[i].extra;
	}
}

/* Give back @g's places on @pc and clear their shadows. */
static void unclaim(struct pmuctl_pcpu *pc, const struct pmuctl_group *g)
{
	u32 i;

	WARN_ON_ONCE(pmuctl_cpu_release(&pc->acct, g->id, g->place, g->nr));
	for (i = 0; i < g->nr; i++) {
		int x = g->place[i].xreg;

		shadow_clear(&pc->sh, &g->place[i]);
		if (x >= 0 && !pc->acct.x[x].refcount)
			pc->sh.xval[x] = 0;
	}
}

/**
 * pmuctl_cs_program() - claim and program a group on a set of CPUs
 * @g:		the group, holding nothing; id and policy set
 * @cpus:	target CPUs (possible ones; offline ones are written when they
 *		come online)
 * @ev:		the events, already copied in
 * @n:		their number
 * @reason:	on failure, PMUCTL_R_*
 * @index:	on failure, the event
 * @cpu:	on failure, the CPU, or U32_MAX
 *
 * On success g->place says where each event went.
 * Context: pmuctl_lock held.
 * Return: 0 or -errno; on failure nothing changed.
 */
int pmuctl_cs_program(struct pmuctl_group *g, const struct cpumask *cpus,
		      const struct pmuctl_event *ev, u32 n, u32 *reason,
		      u32 *index, u32 *cpu)
{
	struct wave w = { .check_free = true };
	const struct pmuctl_type *t = NULL;
	int ret;
	u32 c;

	*cpu = U32_MAX;
	cpus_read_lock();
	/* One PMU for the group: every CPU of one core type, a known one. */
	for_each_cpu(c, cpus) {
		const struct pmuctl_type *ct = pmuctl_type_of(c);

		if (!pmuctl_type_known(ct) || (t && ct != t)) {
			*reason = PMUCTL_R_CPU_TYPE;
			*cpu = c;
			ret = -EINVAL;
			goto unlock;
		}
		t = ct;
	}
	ret = place(t, cpus, g->policy, ev, n, g->place, reason, index);
	if (ret)
		goto unlock;
	ret = pmuctl_perf_get();
	if (ret) {
		*reason = pmuctl_perf_reason(ret);
		goto unlock;
	}

	g->nr = n;
	for_each_cpu(c, cpus) {
		struct pmuctl_pcpu *pc = pmuctl_pcpu_of(c);

		pc->bak = pc->sh;
		claim(pc, g, false);
	}
	w.s.touch = group_counters(g);
	w.s.zero = w.s.touch;
	w.s.save = w.s.touch;
	w.s.xtouch = group_xregs(g);
	ret = wave(g, cpus, NULL, &w);
	if (ret) {
		refusal(g, &w, ret, reason, index, cpu);
		for_each_cpu(c, cpus)
			unclaim(pmuctl_pcpu_of(c), g);
		rollback(g, cpus, &w);
		g->nr = 0;
		pmuctl_perf_put();
		goto unlock;
	}
	cpumask_copy(g->cpus, cpus);
	g->type = t;
	g->running = false;
unlock:
	cpus_read_unlock();
	return ret;
}

/**
 * pmuctl_cs_replace() - put another group in a group's place, in one wave
 * @g:		the group, claimed
 * @policy:	PMUCTL_POLICY_* of the request
 * @ev:		the new events, already copied in
 * @n:		their number
 * @old:	scratch room for PMUCTL_MAX_EVENTS places: the old ones
 * @reason:	on failure, PMUCTL_R_*
 * @index:	on failure, the event
 * @cpu:	on failure, the CPU, or U32_MAX
 *
 * The new events are placed as if the group's counters were free (they
 * may take the same ones), on the same CPUs.  One wave then stops and
 * zeroes the old counters, gives back those the new group does not use,
 * and writes the new ones zeroed, running if the group was: a tool that
 * rotates sub-groups reprograms with one ioctl and one wave.
 * Context: pmuctl_lock held.
 * Return: 0 or -errno; on failure the old group is as it was, counting
 * and with its counts.
 */
int pmuctl_cs_replace(struct pmuctl_group *g, u32 policy,
		      const struct pmuctl_event *ev, u32 n,
		      struct pmuctl_place *old, u32 *reason, u32 *index,
		      u32 *cpu)
{
	struct wave w = { .check_free = true };
	u64 old_counters = group_counters(g);
	u32 old_xregs = group_xregs(g);
	u32 c, old_nr = g->nr;
	int ret;

	*cpu = U32_MAX;
	memcpy(old, g->place, sizeof(g->place));
	cpus_read_lock();
	for_each_cpu(c, g->cpus) {
		struct pmuctl_pcpu *pc = pmuctl_pcpu_of(c);

		pc->bak = pc->sh;
		unclaim(pc, g);
	}
	ret = place(g->type, g->cpus, policy, ev, n, g->place, reason,
		    index);
	if (ret) {
		memcpy(g->place, old, sizeof(g->place));
		for_each_cpu(c, g->cpus) {
			struct pmuctl_pcpu *pc = pmuctl_pcpu_of(c);

			claim(pc, g, g->running);
			pc->sh = pc->bak;
		}
		goto unlock;
	}
	g->nr = n;
	for_each_cpu(c, g->cpus)
		claim(pmuctl_pcpu_of(c), g, g->running);
	w.s.touch = old_counters | group_counters(g);
	w.s.zero = w.s.touch;
	w.s.save = w.s.touch;
	w.s.xtouch = old_xregs | group_xregs(g);
	ret = wave(g, g->cpus, NULL, &w);
	if (ret) {
		refusal(g, &w, ret, reason, index, cpu);
		for_each_cpu(c, g->cpus)
			unclaim(pmuctl_pcpu_of(c), g);
		g->nr = old_nr;
		memcpy(g->place, old, sizeof(g->place));
		for_each_cpu(c, g->cpus)
			claim(pmuctl_pcpu_of(c), g, g->running);
		rollback(g, g->cpus, &w);
		goto unlock;
	}
	g->policy = policy;
unlock:
	cpus_read_unlock();
	return ret;
}

/*
 * Set the group's counters running or stopped on all its CPUs, zeroing
 * them if @zero; on a fault, everything as it was, g->running included.
 */
static int run(struct pmuctl_group *g, bool on, bool zero)
{
	struct wave w = { 0 };
	u32 c, i;
	int ret;

	cpus_read_lock();
	for_each_cpu(c, g->cpus) {
		struct pmuctl_pcpu *pc = pmuctl_pcpu_of(c);

		pc->bak = pc->sh;
		for (i = 0; i < g->nr; i++)
			shadow_set(&pc->sh, &g->place[i], on);
	}
	w.s.touch = group_counters(g);
	w.s.zero = zero ? w.s.touch : 0;
	w.s.save = w.s.zero;
	ret = wave(g, g->cpus, NULL, &w);
	if (ret)
		rollback(g, g->cpus, &w);
	else
		g->running = on;
	pmuctl_perf_settle();
	cpus_read_unlock();
	return ret;
}

/**
 * pmuctl_cs_start() - enable the group's counters on all its CPUs
 * @g:		the group, claimed
 *
 * Context: pmuctl_lock held.
 * Return: 0 or -EIO when a register write faulted; then nothing changed.
 */
int pmuctl_cs_start(struct pmuctl_group *g)
{
	return run(g, true, false);
}

/**
 * pmuctl_cs_stop() - disable the group's counters, keeping their values
 * @g:		the group, claimed
 *
 * Context: pmuctl_lock held.
 * Return: 0 or -EIO when a register write faulted; then nothing changed.
 */
int pmuctl_cs_stop(struct pmuctl_group *g)
{
	return run(g, false, false);
}

/**
 * pmuctl_cs_reset() - zero the group's counters, running or not
 * @g:		the group, claimed
 *
 * Context: pmuctl_lock held.
 * Return: 0 or -EIO when a register write faulted; then the counters are
 * given back the values read just before they were zeroed.
 */
int pmuctl_cs_reset(struct pmuctl_group *g)
{
	return run(g, g->running, true);
}

struct read_arg {
	const struct pmuctl_group *g;
	u64 *val;
	int err;
};

static void read_fn(void *info)
{
	struct read_arg *a = info;

	a->err = pmuctl_read_counters(a->g->place, a->g->nr, a->val);
}

/**
 * pmuctl_cs_read() - read the group's counters on one CPU
 * @g:		the group, claimed
 * @cpu:	one of its CPUs
 * @val:	room for g->nr values
 *
 * Context: pmuctl_lock held.
 * Return: 0; -ENODEV when @cpu is offline; -EIO when a read faulted.
 */
int pmuctl_cs_read(struct pmuctl_group *g, u32 cpu, u64 *val)
{
	struct read_arg a = { .g = g, .val = val };
	int ret;

	cpus_read_lock();
	if (!cpu_online(cpu)) {
		ret = -ENODEV;
	} else {
		atomic64_inc(&g->waves);
		ret = smp_call_function_single(cpu, read_fn, &a, true);
		if (!ret)
			ret = a.err;
	}
	cpus_read_unlock();
	return ret;
}

/**
 * pmuctl_cs_release() - give back everything the group holds
 * @g:		the group, claimed
 * @also:	more CPUs for the release wave: those where a thread whose
 *		rdpmc grant the caller revoked may run (grant.c), or NULL
 *
 * The counters are zeroed and their registers given back; a CPU offline
 * now has its counters scrubbed before any granted thread runs there
 * (pcpu.c).  A write that faults leaves its CPU poisoned: it is tried
 * again at once, and while it still faults perf stays kept off (a counter
 * of the group may still be enabled there) until a later wave reaching
 * the CPU, or the CPU coming online, rewrites it.
 *
 * Context: pmuctl_lock held.  Never fails: the accounting is released.
 */
void pmuctl_cs_release(struct pmuctl_group *g, const struct cpumask *also)
{
	struct wave w = { 0 };
	u32 c;

	cpus_read_lock();
	for_each_cpu(c, g->cpus)
		unclaim(pmuctl_pcpu_of(c), g);
	w.s.touch = group_counters(g);
	w.s.zero = w.s.touch;
	w.s.xtouch = group_xregs(g);
	/* The poisoned CPUs are rewritten whole; the others again. */
	if (wave(g, g->cpus, also, &w) && wave(g, g->cpus, NULL, &w) &&
	    !READ_ONCE(pmuctl_down))
		pr_warn_ratelimited("cpu %d: a PMU register write faulted during release; perf stays locked out until it is rewritten\n",
				    w.fail_cpu);
	g->nr = 0;
	g->running = false;
	cpumask_clear(g->cpus);
	pmuctl_perf_put();
	cpus_read_unlock();
}
