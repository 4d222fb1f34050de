// SPDX-License-Identifier: GPL-2.0
/*
 * The hardware side of pmuctl: the only file that touches PMU MSRs (through
 * the backend) and makes cross-CPU calls.
 *
 * Every CPU has a shadow of the PMU registers pmuctl wants.  An operation
 * updates the shadows of its target CPUs under pmuctl_lock and the CPU
 * hotplug read lock, then writes them out in one cross-CPU call wave to
 * the online ones; a CPU coming online is written from its shadow.  While a
 * session's counters are rewritten they are disabled in GLOBAL_CTRL.  The
 * rdpmc revoke (grant.c) rides on the release wave, and a grant needs no
 * wave, so every operation is one wave whatever the number of CPUs
 * (debugfs "stats").
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/smp.h>
#include <asm/msr.h>
#include <asm/nmi.h>
#include <asm/perf_event.h>

#include "pmuctl.h"

#define GP_MASK(n)	(BIT_ULL(n) - 1)
#define FIXED_BITS	(~0ULL << PMUCTL_IDX_FIXED)

/* FIXED_CTR_CTRL, 4 bits per counter [SDM]: OS, USR, AnyThread, PMI. */
#define FIXED_OS	0x1
#define FIXED_USR	0x2
#define FIXED_ANY	0x4

struct pmuctl_shadow {
	u64 evtsel[PMUCTL_MAX_GP];
	u64 fixed_ctrl;
	u64 global_ctrl;
	u64 xval[PMUCTL_XREG_MAX];
};

struct pmuctl_pcpu {
	struct pmuctl_cpu_state acct;	/* pmuctl_lock */
	struct pmuctl_shadow sh;	/* wanted; pmuctl_lock + hotplug lock */
	struct pmuctl_shadow bak;	/* sh before the operation under way */
	bool saved;			/* found holds the state before pmuctl */
	struct pmuctl_shadow found;
};

static DEFINE_PER_CPU(struct pmuctl_pcpu, pmuctl_pcpu);

static enum cpuhp_state pmuctl_hp_state;
static u32 pmuctl_nr_programmed;	/* sessions holding a group */
static unsigned long pmuctl_nr_waves;	/* cross-CPU call waves, for debugfs */

struct pmuctl_wave {
	const struct cpumask *cfg;	/* CPUs whose PMU is written */
	u64 touch;		/* counters whose control is rewritten */
	u64 zero;		/* counters set to 0 */
	u32 xtouch;		/* extra MSRs rewritten */
	bool restore;		/* CPUs left without claims get their found state */
	bool revoke;		/* the session's granted threads lose CR4.PCE */
	atomic_t failed;
	int fail_cpu;
};

static int hw_wr(u32 msr, u64 val)
{
	return pmuctl_pmu.be->write(msr, val);
}

static u32 counter_msr(u32 idx)
{
	if (idx >= PMUCTL_IDX_FIXED)
		return MSR_ARCH_PERFMON_FIXED_CTR0 + idx - PMUCTL_IDX_FIXED;
	return MSR_ARCH_PERFMON_PERFCTR0 + idx;
}

/* Read the registers pmuctl will use, so that the last release restores them. */
static void hw_save_local(struct pmuctl_pcpu *pc)
{
	const struct pmuctl_backend *be = pmuctl_pmu.be;
	struct pmuctl_shadow *f = &pc->found;
	u32 i;

	*f = (struct pmuctl_shadow){ 0 };
	for (i = 0; i < pmuctl_pmu.caps.nr_gp; i++)
		be->read(MSR_ARCH_PERFMON_EVENTSEL0 + i, &f->evtsel[i]);
	if (pmuctl_pmu.caps.fixed_mask)
		be->read(MSR_ARCH_PERFMON_FIXED_CTR_CTRL, &f->fixed_ctrl);
	be->read(MSR_CORE_PERF_GLOBAL_CTRL, &f->global_ctrl);
	for (i = 0; i < pmuctl_pmu.model->nr_xregs; i++)
		be->read(pmuctl_pmu.model->xregs[i].msr, &f->xval[i]);
	pc->saved = true;
}

static int hw_restore_local(struct pmuctl_pcpu *pc)
{
	const struct pmuctl_shadow *f = &pc->found;
	int err = 0;
	u32 i;

	err |= hw_wr(MSR_CORE_PERF_GLOBAL_CTRL, 0);
	for (i = 0; i < pmuctl_pmu.caps.nr_gp; i++)
		err |= hw_wr(MSR_ARCH_PERFMON_EVENTSEL0 + i, f->evtsel[i]);
	if (pmuctl_pmu.caps.fixed_mask)
		err |= hw_wr(MSR_ARCH_PERFMON_FIXED_CTR_CTRL, f->fixed_ctrl);
	for (i = 0; i < pmuctl_pmu.model->nr_xregs; i++)
		err |= hw_wr(pmuctl_pmu.model->xregs[i].msr, f->xval[i]);
	err |= hw_wr(MSR_CORE_PERF_GLOBAL_CTRL, f->global_ctrl);
	pc->saved = false;
	return err;
}

/* Write this CPU's shadow for the counters and extra MSRs of @w. */
static int hw_sync_local(struct pmuctl_pcpu *pc, const struct pmuctl_wave *w)
{
	const struct pmuctl_model *m = pmuctl_pmu.model;
	unsigned long bits;
	int err = 0;
	u32 i;

	if (!pc->saved && pmuctl_cpu_held(&pc->acct))
		hw_save_local(pc);
	err |= hw_wr(MSR_CORE_PERF_GLOBAL_CTRL, pc->sh.global_ctrl & ~w->touch);
	bits = w->touch & GP_MASK(pmuctl_pmu.caps.nr_gp);
	for_each_set_bit(i, &bits, PMUCTL_MAX_GP)
		err |= hw_wr(MSR_ARCH_PERFMON_EVENTSEL0 + i, pc->sh.evtsel[i]);
	if (w->touch & FIXED_BITS)
		err |= hw_wr(MSR_ARCH_PERFMON_FIXED_CTR_CTRL, pc->sh.fixed_ctrl);
	for (i = 0; i < m->nr_xregs; i++)
		if (w->xtouch & BIT(i))
			err |= hw_wr(m->xregs[i].msr, pc->sh.xval[i]);
	for (i = 0; i < PMUCTL_IDX_MAX; i++)
		if (w->zero & BIT_ULL(i))
			err |= hw_wr(counter_msr(i), 0);
	err |= hw_wr(MSR_CORE_PERF_GLOBAL_CTRL, pc->sh.global_ctrl);
	if (w->restore && pc->saved && !pmuctl_cpu_held(&pc->acct))
		err |= hw_restore_local(pc);
	return err;
}

static void hw_wave_fn(void *info)
{
	struct pmuctl_wave *w = info;
	int cpu = smp_processor_id();

	if (cpumask_test_cpu(cpu, w->cfg) &&
	    hw_sync_local(this_cpu_ptr(&pmuctl_pcpu), w)) {
		atomic_inc(&w->failed);
		w->fail_cpu = cpu;
	}
	if (w->revoke)
		pmuctl_grant_eval_local();
}

/*
 * One cross-CPU call wave: the PMU of the online CPUs of @cpus, and with
 * w->revoke CR4.PCE on the CPUs pmuctl_grant_revoke_prepare() put in
 * s->wave_cpus.  Hotplug read lock held.
 */
static int hw_wave(struct pmuctl_session *s, const struct cpumask *cpus,
		   struct pmuctl_wave *w)
{
	const struct cpumask *targets = cpus;

	atomic_set(&w->failed, 0);
	w->fail_cpu = -1;
	w->cfg = cpus;
	if (w->revoke) {
		cpumask_or(s->wave_cpus, s->wave_cpus, cpus);
		targets = s->wave_cpus;
	}
	pmuctl_nr_waves++;
	atomic64_inc(&s->waves);
	on_each_cpu_mask(targets, hw_wave_fn, w, true);
	return atomic_read(&w->failed) ? -EIO : 0;
}

static u64 session_counters(const struct pmuctl_session *s)
{
	u64 mask = 0;
	u32 i;

	for (i = 0; i < s->nr; i++)
		mask |= BIT_ULL(s->place[i].idx);
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
static void shadow_set(struct pmuctl_shadow *sh, const struct pmuctl_place *p,
		       bool run)
{
	if (p->idx < PMUCTL_IDX_FIXED) {
		sh->evtsel[p->idx] = p->config | (run ? ARCH_PERFMON_EVENTSEL_ENABLE : 0);
	} else {
		u32 shift = 4 * (p->idx - PMUCTL_IDX_FIXED);
		u64 nib = 0;

		if (p->config & PMUCTL_CFG_OS)
			nib |= FIXED_OS;
		if (p->config & PMUCTL_CFG_USR)
			nib |= FIXED_USR;
		if (p->config & PMUCTL_CFG_ANY)
			nib |= FIXED_ANY;
		sh->fixed_ctrl &= ~(0xfULL << shift);
		if (run)
			sh->fixed_ctrl |= nib << shift;
	}
	if (run)
		sh->global_ctrl |= BIT_ULL(p->idx);
	else
		sh->global_ctrl &= ~BIT_ULL(p->idx);
}

static void shadow_clear(struct pmuctl_shadow *sh, const struct pmuctl_place *p)
{
	shadow_set(sh, p, false);
	if (p->idx < PMUCTL_IDX_FIXED)
		sh->evtsel[p->idx] = 0;
}

/*
 * Living next to perf (FACTS 3): while any session holds a group, pmuctl
 * holds every generic counter and event select, as perf's
 * reserve_pmc_hardware() would, so perf cannot create hardware events and
 * pmuctl cannot take counters perf (the NMI watchdog) uses.
 */
static int hw_perf_reserve(void)
{
	u32 i, n = pmuctl_pmu.caps.nr_gp;

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

	for (i = 0; i < pmuctl_pmu.caps.nr_gp; i++) {
		release_evntsel_nmi(MSR_ARCH_PERFMON_EVENTSEL0 + i);
		release_perfctr_nmi(MSR_ARCH_PERFMON_PERFCTR0 + i);
	}
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

/* Undo claims and shadows on @cpus after a failed program wave. */
static void hw_unclaim(struct pmuctl_session *s, const struct cpumask *cpus,
		       u32 n, struct pmuctl_wave *w)
{
	u32 cpu;

	for_each_cpu(cpu, cpus) {
		struct pmuctl_pcpu *pc = per_cpu_ptr(&pmuctl_pcpu, cpu);

		WARN_ON_ONCE(pmuctl_cpu_release(&pc->acct, s->id, s->place, n));
		pc->sh = pc->bak;
	}
	w->restore = true;
	if (hw_wave(s, cpus, w))
		pr_warn_ratelimited("could not restore the PMU after a failed write\n");
}

/**
 * pmuctl_hw_program() - claim and program a group on a set of CPUs
 * @s:		the session, holding no group
 * @cpus:	target CPUs (possible ones; offline ones are written on return)
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
	struct pmuctl_wave w = { 0 };
	struct pmuctl_view v;
	u32 c, i, policy = s->unpriv ? PMUCTL_POLICY_UNPRIV : 0;
	int ret;

	*cpu = U32_MAX;
	cpus_read_lock();
	pmuctl_view_init(&v);
	for_each_cpu(c, cpus)
		pmuctl_view_add(&v, &per_cpu_ptr(&pmuctl_pcpu, c)->acct);
	ret = pmuctl_group_schedule(pmuctl_pmu.model, &pmuctl_pmu.caps, policy,
				    &v, ev, n, place, reason, index);
	if (ret)
		goto unlock;

	if (!pmuctl_nr_programmed) {
		ret = hw_perf_reserve();
		if (ret) {
			*reason = PMUCTL_R_PERF_BUSY;
			goto unlock;
		}
	}

	memcpy(s->place, place, n * sizeof(*place));
	for_each_cpu(c, cpus) {
		struct pmuctl_pcpu *pc = per_cpu_ptr(&pmuctl_pcpu, c);

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
	w.xtouch = session_xregs(s);
	ret = hw_wave(s, cpus, &w);
	if (ret) {
		*reason = PMUCTL_R_HW_FAULT;
		*cpu = w.fail_cpu;
		hw_unclaim(s, cpus, n, &w);
		s->nr = 0;
		if (!pmuctl_nr_programmed)
			hw_perf_release();
		goto unlock;
	}
	cpumask_copy(s->cpus, cpus);
	pmuctl_nr_programmed++;
	s->running = false;
unlock:
	cpus_read_unlock();
	return ret;
}

/* Set the session's counters running or stopped on all its CPUs. */
static int hw_run(struct pmuctl_session *s, bool run, bool zero)
{
	struct pmuctl_wave w = { 0 };
	u32 c, i;
	int ret;

	cpus_read_lock();
	for_each_cpu(c, s->cpus) {
		struct pmuctl_pcpu *pc = per_cpu_ptr(&pmuctl_pcpu, c);

		for (i = 0; i < s->nr; i++)
			shadow_set(&pc->sh, &s->place[i], run);
	}
	w.touch = session_counters(s);
	w.zero = zero ? w.touch : 0;
	ret = hw_wave(s, s->cpus, &w);
	cpus_read_unlock();
	if (!ret)
		s->running = run;
	return ret;
}

/**
 * pmuctl_hw_start() - enable the session's counters on all its CPUs
 * @s:		the session, holding a group
 *
 * Context: pmuctl_lock held.
 * Return: 0 or -EIO when a register write faulted.
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
 * Return: 0 or -EIO when a register write faulted.
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
 * Return: 0 or -EIO when a register write faulted.
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
 * Context: pmuctl_lock held.  Never fails: a fault while writing is logged
 * and the accounting is released all the same.
 */
void pmuctl_hw_release(struct pmuctl_session *s)
{
	struct pmuctl_wave w = { .restore = true };
	u32 c, i;

	if (!s->nr)
		return;
	hw_revoke_prepare(s, &w);
	cpus_read_lock();
	for_each_cpu(c, s->cpus) {
		struct pmuctl_pcpu *pc = per_cpu_ptr(&pmuctl_pcpu, c);

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
	if (hw_wave(s, s->cpus, &w))
		pr_warn_ratelimited("a PMU register write faulted during release\n");
	cpus_read_unlock();
	hw_revoke_finish(s);
	s->nr = 0;
	s->running = false;
	cpumask_clear(s->cpus);
	if (!--pmuctl_nr_programmed)
		hw_perf_release();
}

/* A CPU comes back: write everything its shadow holds. */
static int hw_cpu_online(unsigned int cpu)
{
	struct pmuctl_pcpu *pc = per_cpu_ptr(&pmuctl_pcpu, cpu);
	struct pmuctl_wave w = { .touch = pmuctl_cpu_held(&pc->acct) };
	unsigned long flags;
	int err;

	if (!w.touch)
		return 0;
	w.xtouch = BIT(pmuctl_pmu.model->nr_xregs) - 1;
	pc->saved = false;
	local_irq_save(flags);
	err = hw_sync_local(pc, &w);
	local_irq_restore(flags);
	if (err)
		pr_warn_ratelimited("cpu %u: could not reprogram the PMU\n", cpu);
	return 0;
}

/* A CPU goes away: stop pmuctl's counters there; the claims stay. */
static int hw_cpu_offline(unsigned int cpu)
{
	struct pmuctl_pcpu *pc = per_cpu_ptr(&pmuctl_pcpu, cpu);
	unsigned long flags;

	if (!pmuctl_cpu_held(&pc->acct))
		return 0;
	local_irq_save(flags);
	if (hw_restore_local(pc))
		pr_warn_ratelimited("cpu %u: could not restore the PMU\n", cpu);
	local_irq_restore(flags);
	return 0;
}

/**
 * pmuctl_hw_holding() - what the sessions hold on one CPU
 * @cpu:	a possible CPU
 * @h:		filled in
 *
 * Context: pmuctl_lock held.
 */
void pmuctl_hw_holding(u32 cpu, struct pmuctl_holding *h)
{
	const struct pmuctl_cpu_state *st = &per_cpu_ptr(&pmuctl_pcpu, cpu)->acct;
	const struct pmuctl_model *m = pmuctl_pmu.model;
	u32 i;

	*h = (struct pmuctl_holding){ .cpu = cpu };
	if (cpu_online(cpu))
		h->flags |= PMUCTL_HOLDING_ONLINE;
	memcpy(h->owner, st->owner, sizeof(h->owner));
	for (i = 0; i < m->nr_xregs; i++) {
		h->xreg[i].msr = m->xregs[i].msr;
		h->xreg[i].value = st->x[i].value;
		h->xreg[i].refcount = st->x[i].refcount;
	}
}

static int hw_state_show(struct seq_file *m, void *unused)
{
	u32 cpu, i;

	mutex_lock(&pmuctl_lock);
	seq_printf(m, "programmed %u\nwaves %lu\nperf_reserved %u\n",
		   pmuctl_nr_programmed, pmuctl_nr_waves,
		   pmuctl_nr_programmed ? 1 : 0);
	for_each_possible_cpu(cpu) {
		const struct pmuctl_cpu_state *st = &per_cpu_ptr(&pmuctl_pcpu, cpu)->acct;

		for (i = 0; i < PMUCTL_IDX_MAX; i++)
			if (st->owner[i])
				seq_printf(m, "cpu %u counter %#x owner %u\n", cpu,
					   pmuctl_idx_to_counter(i), st->owner[i]);
		for (i = 0; i < PMUCTL_XREG_MAX; i++)
			if (st->x[i].refcount)
				seq_printf(m, "cpu %u msr %#x value %#llx refcount %u\n",
					   cpu, pmuctl_pmu.model->xregs[i].msr,
					   st->x[i].value, st->x[i].refcount);
	}
	mutex_unlock(&pmuctl_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(hw_state);

/**
 * pmuctl_hw_debugfs() - the accounting file, for tests and operators
 * @dir:	pmuctl's debugfs folder
 */
void pmuctl_hw_debugfs(struct dentry *dir)
{
	debugfs_create_file("state", 0400, dir, NULL, &hw_state_fops);
}

/**
 * pmuctl_hw_init() - register for CPU hotplug
 *
 * Return: 0 or -errno.
 */
int pmuctl_hw_init(void)
{
	int ret;

	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "pmuctl:online",
				hw_cpu_online, hw_cpu_offline);
	if (ret < 0)
		return ret;
	pmuctl_hp_state = ret;
	return 0;
}

/**
 * pmuctl_hw_exit() - unregister from CPU hotplug
 *
 * Context: every session is gone.
 */
void pmuctl_hw_exit(void)
{
	cpuhp_remove_state(pmuctl_hp_state);
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
	u32 ebx, edx;

	*id = (struct pmuctl_cpuid){ 0 };
	cpuid(0, &id->max_leaf, &id->vendor[0], &id->vendor[2], &id->vendor[1]);
	cpuid(1, &id->leaf1_eax, &ebx, &id->leaf1_ecx, &edx);
	if (id->max_leaf >= 0xa)
		cpuid(0xa, &id->leafa_eax, &id->leafa_ebx, &id->leafa_ecx,
		      &id->leafa_edx);
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

static void hw_probe_fn(void *info)
{
	u64 v;
	int *err = info;

	/* A hypervisor without a virtual PMU faults here, or drops writes. */
	if (rdmsrl_safe(MSR_CORE_PERF_GLOBAL_CTRL, &v) ||
	    wrmsrl_safe(MSR_CORE_PERF_GLOBAL_CTRL, v))
		*err = -ENODEV;
}

/**
 * pmuctl_hw_probe() - does the PMU answer where CPUID says it exists?
 * @be:		the backend
 *
 * Return: 0, or -ENODEV when GLOBAL_CTRL cannot be read and written back.
 */
int pmuctl_hw_probe(const struct pmuctl_backend *be)
{
	int err = 0;

	if (be != &pmuctl_msr)
		return 0;
	smp_call_function_single(cpumask_first(cpu_online_mask), hw_probe_fn,
				 &err, true);
	return err;
}
