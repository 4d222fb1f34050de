// SPDX-License-Identifier: GPL-2.0
/*
 * The task pool: the counters and extra MSRs task-scope groups hold.
 *
 * Task scope (task.c) shares the registers in time: a task-scope group
 * takes the same counters on every CPU, next to every CPU-scope claim of
 * every possible CPU (a thread may run anywhere), and two task-scope
 * groups may take the same index.  No wave writes the pool's registers:
 * the counted threads' context-switch hooks do, on their own CPU with
 * interrupts off (pmuctl_pool_in() and _out(), through the register owner
 * pcpu.c).  CPU-scope claims and the pool never overlap (wave.c and
 * pmuctl_pool_program() see each other).
 *
 * How many task-scope groups hold each counter index and extra MSR:
 * changed under pmuctl_lock and the hotplug read lock, read only under
 * pmuctl_lock (placement, INFO, debugfs): the hooks never read them, each
 * CPU knows what it took (pcpu.c's tk part), so no access is lockless.
 *
 * Topdown metrics are switched with their thread as Linux switches them
 * (arch/x86/events/intel/core.c): at switch-out the thread keeps the slots
 * of fixed counter 3 and the raw IA32_PERF_METRICS, without clearing them
 * (intel_update_topdown_event(): "Save metric and slots for context
 * switch"); at switch-in fixed counter 3 is written first, then
 * PERF_METRICS (icl_set_topdown_event_period(): saved_slots, then
 * saved_metric); a thread that starts, or a RESET, writes both 0, in that
 * order ("The fixed counter 3 has to be written before the
 * PERF_METRICS").  The register's bytes are shares of the slots the counter
 * holds, so a thread's pair is only ever written back together.  Threads
 * add up as slots: a sum holds, for each metric, slots x its byte
 * (pmuctl_pool_sum()), and READ gives the register those sums make
 * (pmuctl_pool_sum_done()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/math64.h>
#include <linux/smp.h>

#include "pcpu.h"

u32 pmuctl_task_refs[PMUCTL_NR_REGS];
u32 pmuctl_task_xrefs[PMUCTL_XREG_MAX];
u64 pmuctl_task_pool;
u32 pmuctl_task_xpool;

/*
 * The policy bits every task-scope group gets.  Where RTM corrupts PMC3
 * (TSX force abort), the MSR_TSX_FORCE_ABORT dance follows the CPU-scope
 * claims; the pool never takes PMC3 there.
 */
static u32 pool_policy(void)
{
	return pmuctl_pmu.type[0].caps.flags & PMUCTL_CAP_TSX_FORCE_ABORT ?
	       PMUCTL_POLICY_NO_PMC3 : 0;
}

static bool is_metric(const struct pmuctl_place *p)
{
	return p->idx >= PMUCTL_IDX_METRIC;
}

/* Metric @p's byte of the raw PERF_METRICS @raw. */
static u64 metric_byte(const struct pmuctl_place *p, u64 raw)
{
	return (raw >> (8 * (p->idx - PMUCTL_IDX_METRIC))) & 0xff;
}

/*
 * PERF_METRICS after fixed counter 3 (written by the caller before):
 * every metric of the group holds the same raw register.
 */
static void tk_metrics_in(const struct pmuctl_tgroup *tg, const u64 *val,
			  u64 *loaded)
{
	u64 raw = 0;
	u32 i;

	for (i = 0; i < tg->nr; i++)
		if (is_metric(&tg->place[i]))
			raw = val[i];
	if (pmuctl_put_count(PMUCTL_IDX_METRIC, raw) &&
	    pmuctl_rd(MSR_PERF_METRICS, &raw))
		raw = 0;
	for (i = 0; i < tg->nr; i++)
		if (is_metric(&tg->place[i]))
			loaded[i] = raw;
}

/**
 * pmuctl_pool_bits() - low bits of a task-scope counter rdpmc shows exactly
 *
 * Return: the narrowest counter width with full-width writes, else 32:
 * the legacy counter address keeps bits 31:0 of what is written.
 */
u32 pmuctl_pool_bits(void)
{
	const struct pmuctl_caps *c = &pmuctl_pmu.type[0].caps;
	u32 bits = c->gp_width;

	if (!(c->flags & PMUCTL_CAP_FULL_WIDTH_WRITE))
		return 32;
	if (c->fixed_mask && c->fixed_width < bits)
		bits = c->fixed_width;
	return bits;
}

/*
 * tk_evtsel() - the pool's value of event select @idx, written when it
 * changed.  A write that faults leaves an impossible value in tk's copy,
 * so that the next switch writes it again.  Context: this CPU, IRQs off.
 */
static void tk_evtsel(struct pmuctl_pcpu *pc, u32 idx, u64 v)
{
	if (pc->tk.evtsel[idx] == v)
		return;
	pc->tk.evtsel[idx] = v;
	if (pmuctl_put_evtsel(pc, idx))
		pc->tk.evtsel[idx] = ~0ULL;
}

/**
 * tk_in() - switch a thread's counters in on this CPU
 * @tg:		its group
 * @val:	its counts
 * @loaded:	out: what each counter holds once written
 * @run:	enable them
 *
 * Writes the event selects, fixed-counter nibbles and extra MSRs that
 * differ from what this CPU's pool registers hold, one write per counter,
 * and GLOBAL_CTRL once when @run.  A stopped group's selects are written
 * without EN (its nibbles empty): GLOBAL_CTRL may enable every counter
 * (perf leaves it so), it is no gate of its own.  Where a write faults the
 * count is kept: the thread's next switch-out sees no increment.
 * Context: the thread's CPU, IRQs off, no counter of @tg loaded.
 */
static void tk_in(const struct pmuctl_tgroup *tg, const u64 *val, u64 *loaded,
		  bool run)
{
	struct pmuctl_pcpu *pc = pmuctl_pcpu_this();
	const struct pmuctl_type *t = pmuctl_this_type();
	bool fw = (t->caps.flags & PMUCTL_CAP_FULL_WIDTH_WRITE) || pmuctl_v6();
	u64 fixed, v;
	u32 i;

	pmuctl_take(pc, &pc->tk, tg->counters, tg->xregs);
	fixed = pc->tk.fixed;
	for (i = 0; i < tg->nr; i++) {
		const struct pmuctl_place *p = &tg->place[i];
		u32 idx = p->idx;

		if (is_metric(p))
			continue;
		if (idx < PMUCTL_IDX_FIXED)
			tk_evtsel(pc, idx, pmuctl_place_evtsel(p, run));
		else
			fixed = pmuctl_place_fixed(fixed, p, run);
		if (p->xreg >= 0 && pc->tk.xval[p->xreg] != p->extra) {
			pc->tk.xval[p->xreg] = p->extra;
			if (pmuctl_put_xreg(pc, p->xreg))
				pc->tk.xval[p->xreg] = ~0ULL;
		}
		/* Legacy writes keep bits 31:0 sign-extended [SDM; FACTS 1]. */
		v = val[i];
		if (idx < PMUCTL_IDX_FIXED && !fw)
			v = (u64)(s64)(s32)(u32)v;
		loaded[i] = v & pmuctl_counter_mask(t, idx);
		if (pmuctl_put_count(idx, loaded[i]) &&
		    pmuctl_rd(pmuctl_counter_msr(idx), &loaded[i]))
			loaded[i] = 0;
	}
	if (tg->slots >= 0)
		tk_metrics_in(tg, val, loaded);
	pc->dirty &= ~tg->counters;
	pc->live = tg->counters;
	if (fixed != pc->tk.fixed || pc->tk_fixed_stale) {
		pc->tk.fixed = fixed;
		pc->tk_fixed_stale = pmuctl_put_fixed(pc) != 0;
	}
	if (run) {
		pc->tk.global = tg->counters;
		pmuctl_put_global(pc);
	}
}

/**
 * tk_out() - switch a thread's counters out on this CPU
 * @tg:		its group
 * @val:	its counts: each gets what its counter counted since
 *		tk_in() loaded @loaded
 * @loaded:	from tk_in()
 *
 * One GLOBAL_CTRL write (when they ran) and one read per counter (one of
 * PERF_METRICS, which the metrics keep raw); the
 * values stay in the registers, dirty, until a thread with rdpmc comes
 * (pmuctl_hw_scrub_local()) or another thread's counts replace them.  A
 * read that faults adds nothing.
 * Context: the thread's CPU, IRQs off, @tg loaded by tk_in().
 */
static void tk_out(const struct pmuctl_tgroup *tg, u64 *val, const u64 *loaded)
{
	struct pmuctl_pcpu *pc = pmuctl_pcpu_this();
	const struct pmuctl_type *t = pmuctl_this_type();
	u64 now, fixed;
	u32 i;

	if (pc->tk.global) {
		pc->tk.global = 0;
		pmuctl_put_global(pc);
	}
	/*
	 * Where perf keeps a sentinel event (perf.c), it writes GLOBAL_CTRL
	 * whole, every counter enabled, at each of its enables (the NMI
	 * handler, a switch of a task that owns perf events): only the
	 * selects and nibbles stop a counter there [doc/perfmon-v6-
	 * coexistence.md, step 3].  The next switch-in writes them again.
	 */
	if (pmuctl_sentinel_used()) {
		fixed = pc->tk.fixed;
		for (i = 0; i < tg->nr; i++) {
			const struct pmuctl_place *p = &tg->place[i];

			if (is_metric(p))
				continue;
			if (p->idx >= PMUCTL_IDX_FIXED)
				fixed = pmuctl_place_fixed(fixed, p, false);
			else
				tk_evtsel(pc, p->idx, pmuctl_place_evtsel(p, false));
		}
		if (fixed != pc->tk.fixed) {
			pc->tk.fixed = fixed;
			pc->tk_fixed_stale = pmuctl_put_fixed(pc) != 0;
		}
	}
	for (i = 0; i < tg->nr; i++) {
		u32 idx = tg->place[i].idx;

		if (!is_metric(&tg->place[i]) &&
		    !pmuctl_rd(pmuctl_counter_msr(idx), &now))
			val[i] += (now - loaded[i]) & pmuctl_counter_mask(t, idx);
	}
	if (tg->slots >= 0 && !pmuctl_rd(MSR_PERF_METRICS, &now))
		for (i = 0; i < tg->nr; i++)
			if (is_metric(&tg->place[i]))
				val[i] = now;
	pc->live = 0;
	/*
	 * There a process holding perf's own rdpmc grant (an mmap'ed event
	 * that the sentinel keeps off the PMU) reads every counter, and
	 * perf's dirty-counter scrub knows none of pmuctl's: zero them now.
	 */
	if (pmuctl_sentinel_used()) {
		for (i = 0; i < tg->nr; i++)
			if (!is_metric(&tg->place[i]) &&
			    pmuctl_put_count(tg->place[i].idx, 0))
				pc->dirty |= BIT_ULL(tg->place[i].idx);
		if (tg->slots >= 0 && pmuctl_put_count(PMUCTL_IDX_METRIC, 0))
			pc->dirty |= PMUCTL_METRICS_BIT;
		return;
	}
	pc->dirty |= tg->counters;
}

/**
 * tk_drop() - counters and extra MSRs leave the task pool
 * @pc:		this CPU
 * @counters:	counter indexes no task-scope group holds any more
 * @xregs:	extra MSRs likewise
 *
 * No thread will switch them in again: zero the counts the hooks left in
 * them and give the registers back.  Context: this CPU, IRQs off, no
 * thread of theirs loaded.
 * Return: 0, or -EIO when a write faulted (the CPU is then poisoned).
 */
static int tk_drop(struct pmuctl_pcpu *pc, u64 counters, u32 xregs)
{
	unsigned long bits;
	int err = 0;
	u32 i;

	counters &= pc->tk.own;
	xregs &= pc->tk.xown;
	if (!counters && !xregs)
		return 0;
	bits = counters & pc->dirty;
	for_each_set_bit(i, &bits, PMUCTL_NR_REGS)
		if (!pmuctl_put_count(i, 0))
			pc->dirty &= ~BIT_ULL(i);
	pc->tk.own &= ~counters;
	pc->tk.xown &= ~xregs;
	pc->tk.fixed &= ~pmuctl_fixed_nibbles(counters);
	pc->tk.global &= ~counters;
	pc->live &= ~counters;
	bits = counters & PMUCTL_GP_MASK(PMUCTL_MAX_GP);
	for_each_set_bit(i, &bits, PMUCTL_MAX_GP) {
		pc->tk.evtsel[i] = 0;
		err |= pmuctl_put_evtsel(pc, i);
	}
	if (counters & PMUCTL_FIXED_BITS)
		err |= pmuctl_put_fixed(pc);
	for (i = 0; i < PMUCTL_XREG_MAX; i++) {
		if (!(xregs & BIT(i)))
			continue;
		pc->tk.xval[i] = 0;
		err |= pmuctl_put_xreg(pc, i);
	}
	err |= pmuctl_put_global(pc);
	if (!err)
		pmuctl_forget_if_idle(pc);
	else
		pmuctl_set_poisoned(pc, true);
	return err ? -EIO : 0;
}

struct check_arg {
	u64 touch;		/* counters the group adds to the pool */
	atomic_t busy;
	int busy_cpu;
	u64 running;		/* the first refusing CPU's running counters */
};

/*
 * A counter others run here may not enter the pool (COUNTER_IN_USE).
 * What it finds stays in @info: pc->refused is the CPU-scope wave's, which
 * reads it as "refused by the wave before, nothing written here".
 */
static void check_fn(void *info)
{
	struct check_arg *a = info;
	u64 running = pmuctl_pcpu_running(pmuctl_pcpu_this(), a->touch);

	if (running && atomic_inc_return(&a->busy) == 1) {
		a->busy_cpu = smp_processor_id();
		a->running = running;
	}
}

/*
 * Is any counter the group adds to the pool running, without pmuctl, on
 * an online CPU?  One wave over them; the first refusing CPU and event
 * into @cpu and @index.  Offline CPUs are looked at by nobody: a counter
 * others start there is found by no one, as for a CPU-scope claim whose
 * CPU is offline.  Hotplug read lock held.
 */
static int check_free(struct pmuctl_group *g, const struct pmuctl_tgroup *tg,
		      u32 *index, u32 *cpu)
{
	struct check_arg a = { .touch = tg->counters & ~pmuctl_task_pool };
	u64 busy;
	u32 i;

	if (!a.touch)
		return 0;
	atomic_set(&a.busy, 0);
	pmuctl_nr_waves++;
	atomic64_inc(&g->waves);
	on_each_cpu_mask(cpu_online_mask, check_fn, &a, true);
	if (!atomic_read(&a.busy))
		return 0;
	busy = a.running;
	for (i = 0; i < tg->nr; i++)
		if (busy & pmuctl_reg(tg->place[i].idx))
			break;
	*index = i < tg->nr ? i : 0;
	*cpu = a.busy_cpu;
	return -EBUSY;
}

/**
 * pmuctl_pool_program() - place a task-scope group in the pool
 * @g:		the group as the session holds it, holding nothing; policy set
 * @tg:		filled in on success: what the hooks need
 * @ev:		the events, copied in
 * @n:		their number
 * @reason:	on failure, PMUCTL_R_*
 * @index:	on failure, the event
 * @cpu:	on failure, the CPU, or U32_MAX
 *
 * The group must fit next to every CPU-scope claim on every possible CPU,
 * and shares the pool with the other task-scope groups.  A counter it
 * adds to the pool must not be running on any online CPU (COUNTER_IN_USE,
 * as for CPU scope).  No register is written: the thread's switch-ins do.
 *
 * Context: pmuctl_lock held.
 * Return: 0 or -errno; on failure nothing changed.
 */
int pmuctl_pool_program(struct pmuctl_group *g, struct pmuctl_tgroup *tg,
			const struct pmuctl_event *ev, u32 n, u32 *reason,
			u32 *index, u32 *cpu)
{
	const struct pmuctl_type *t = &pmuctl_pmu.type[0];
	struct pmuctl_view v;
	u32 c, i;
	int ret;

	*cpu = U32_MAX;
	cpus_read_lock();
	if (READ_ONCE(pmuctl_down)) {
		ret = -ESHUTDOWN;
		goto unlock;
	}
	/*
	 * A thread runs on any CPU: one PMU on all of them, every one known
	 * (a hybrid part: one type found, every possible CPU online once).
	 */
	for_each_possible_cpu(c) {
		if (pmuctl_type_of(c) != t) {
			*reason = PMUCTL_R_CPU_TYPE;
			ret = -EINVAL;
			goto unlock;
		}
	}
	pmuctl_view_init(&v);
	for_each_possible_cpu(c)
		pmuctl_view_add(&v, &pmuctl_pcpu_of(c)->acct);
	/* Extra MSRs are switched with the threads: never shared with CPU scope. */
	for (i = 0; i < PMUCTL_XREG_MAX; i++)
		if (v.xstate[i] != PMUCTL_XV_FREE)
			v.xstate[i] = PMUCTL_XV_CONFLICT;
	ret = pmuctl_group_schedule(t->model, &t->caps, g->policy | pool_policy(),
				    &v, ev, n, tg->place, reason, index);
	if (ret)
		goto unlock;
	tg->nr = n;
	tg->counters = 0;
	tg->xregs = 0;
	tg->slots = -1;
	for (i = 0; i < n; i++) {
		tg->counters |= pmuctl_reg(tg->place[i].idx);
		if (tg->place[i].xreg >= 0)
			tg->xregs |= BIT(tg->place[i].xreg);
	}
	/* A metric's group holds TOPDOWN.SLOTS on fixed counter 3 (sched.c). */
	if (tg->counters & PMUCTL_METRICS_BIT)
		for (i = 0; i < n; i++)
			if (tg->place[i].idx == PMUCTL_IDX_FIXED + 3)
				tg->slots = i;
	/* As for CPU scope: perf first (PERF_BUSY), then others' counters. */
	ret = pmuctl_perf_get();
	if (ret) {
		*reason = pmuctl_perf_reason(ret);
		goto unlock;
	}
	ret = check_free(g, tg, index, cpu);
	if (ret) {
		*reason = PMUCTL_R_COUNTER_IN_USE;
		pmuctl_perf_put();
		goto unlock;
	}
	for (i = 0; i < PMUCTL_NR_REGS; i++)
		if (tg->counters & BIT_ULL(i))
			pmuctl_task_refs[i]++;
	for (i = 0; i < PMUCTL_XREG_MAX; i++)
		if (tg->xregs & BIT(i))
			pmuctl_task_xrefs[i]++;
	pmuctl_task_pool |= tg->counters;
	pmuctl_task_xpool |= tg->xregs;
	memcpy(g->place, tg->place, n * sizeof(*g->place));
	g->nr = n;
	g->type = t;
	g->running = false;
unlock:
	cpus_read_unlock();
	return ret;
}

struct release_arg {
	u64 scrub;		/* counters that left the pool */
	u32 xscrub;		/* extra MSRs that left it */
	void (*fn)(void *arg);	/* task.c's part of the wave */
	void *arg;
	atomic_t failed;
	int fail_cpu;
};

static void release_fn(void *info)
{
	struct release_arg *a = info;

	if (a->fn)
		a->fn(a->arg);
	if ((a->scrub || a->xscrub) &&
	    tk_drop(pmuctl_pcpu_this(), a->scrub, a->xscrub)) {
		atomic_inc(&a->failed);
		a->fail_cpu = smp_processor_id();
	}
	pmuctl_wave_pce();
}

/**
 * pmuctl_pool_release() - take a task-scope group out of the pool
 * @g:		the group as the session holds it
 * @tg:		what the hooks had
 * @cpus:	the CPUs that must run @fn (a thread of the group is loaded
 *		there, or one whose rdpmc grant the caller revoked may run)
 * @fn:		task.c's part, run on each CPU of the wave with IRQs off
 * @arg:	its argument
 *
 * One wave: @fn unloads the group's threads, the rdpmc grants are
 * evaluated again, and the registers of counters no task-scope group
 * holds any more are zeroed and given back on every online CPU.
 *
 * Context: pmuctl_lock held.
 */
void pmuctl_pool_release(struct pmuctl_group *g, const struct pmuctl_tgroup *tg,
			 const struct cpumask *cpus, void (*fn)(void *),
			 void *arg)
{
	struct release_arg a = { .fn = fn, .arg = arg };
	u32 i;

	cpus_read_lock();
	for (i = 0; i < PMUCTL_NR_REGS; i++)
		if ((tg->counters & BIT_ULL(i)) && !--pmuctl_task_refs[i])
			a.scrub |= BIT_ULL(i);
	for (i = 0; i < PMUCTL_XREG_MAX; i++)
		if ((tg->xregs & BIT(i)) && !--pmuctl_task_xrefs[i])
			a.xscrub |= BIT(i);
	pmuctl_task_pool &= ~a.scrub;
	pmuctl_task_xpool &= ~a.xscrub;
	atomic_set(&a.failed, 0);
	if (!READ_ONCE(pmuctl_down)) {
		pmuctl_nr_waves++;
		atomic64_inc(&g->waves);
		on_each_cpu_mask(a.scrub || a.xscrub ? cpu_online_mask : cpus,
				 release_fn, &a, true);
		if (atomic_read(&a.failed))
			pr_warn_ratelimited("cpu %d: a PMU register write faulted while a task-scope group was released\n",
					    a.fail_cpu);
	}
	g->nr = 0;
	g->running = false;
	pmuctl_perf_put();
	cpus_read_unlock();
}

/**
 * pmuctl_pool_in() - switch a thread's counters in on this CPU
 * @tg:		its group
 * @val:	its counts
 * @loaded:	out: what each counter holds once written
 * @run:	enable them
 *
 * Context: the thread's CPU, IRQs off, no counter of @tg loaded.
 */
void pmuctl_pool_in(const struct pmuctl_tgroup *tg, const u64 *val,
		    u64 *loaded, bool run)
{
	if (!READ_ONCE(pmuctl_down))
		tk_in(tg, val, loaded, run);
}

/**
 * pmuctl_pool_out() - switch a thread's counters out on this CPU
 * @tg:		its group
 * @val:	its counts, to which what the counters counted is added
 * @loaded:	from pmuctl_pool_in()
 *
 * Context: the thread's CPU, IRQs off, @tg loaded by pmuctl_pool_in().
 */
void pmuctl_pool_out(const struct pmuctl_tgroup *tg, u64 *val,
		     const u64 *loaded)
{
	if (!READ_ONCE(pmuctl_down))
		tk_out(tg, val, loaded);
}

/**
 * pmuctl_pool_read_local() - the group's counters on this CPU, as rdpmc
 * @tg:		the group, loaded here
 * @val:	out: the values
 *
 * Context: IRQs off.
 * Return: 0 or -EIO when a read faulted.
 */
int pmuctl_pool_read_local(const struct pmuctl_tgroup *tg, u64 *val)
{
	return pmuctl_read_counters(tg->place, tg->nr, val);
}

/**
 * pmuctl_pool_sum() - add a thread's counts to a sum of threads
 * @tg:		the group
 * @sum:	the sum: counts, and for each topdown metric slots x its
 *		byte, in 255ths of a slot
 * @val:	the thread's counts (metrics: its raw PERF_METRICS)
 *
 * Context: any.
 */
void pmuctl_pool_sum(const struct pmuctl_tgroup *tg, u64 *sum, const u64 *val)
{
	u32 i;

	for (i = 0; i < tg->nr; i++) {
		if (!is_metric(&tg->place[i]))
			sum[i] += val[i];
		else if (tg->slots >= 0)
			sum[i] += val[tg->slots] * metric_byte(&tg->place[i], val[i]);
	}
}

/**
 * pmuctl_pool_sum_done() - a sum of threads as READ gives it
 * @tg:		the group
 * @sum:	from pmuctl_pool_sum(); each metric becomes the raw register
 *		of the sums: byte i the metric's 255ths of the summed slots,
 *		rounded to the nearest
 *
 * Context: any.
 */
void pmuctl_pool_sum_done(const struct pmuctl_tgroup *tg, u64 *sum)
{
	u64 raw = 0, slots, b;
	u32 i;

	if (tg->slots < 0)
		return;
	slots = sum[tg->slots];
	for (i = 0; i < tg->nr; i++) {
		const struct pmuctl_place *p = &tg->place[i];

		if (!is_metric(p) || !slots)
			continue;
		b = min_t(u64, DIV64_U64_ROUND_CLOSEST(sum[i], slots), 0xff);
		raw |= b << (8 * (p->idx - PMUCTL_IDX_METRIC));
	}
	for (i = 0; i < tg->nr; i++)
		if (is_metric(&tg->place[i]))
			sum[i] = raw;
}
