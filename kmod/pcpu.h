/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the hardware side (type.c to state.c): each CPU's PMU state and
 * the register owner (pcpu.c), living next to perf (perf.c), the parts of
 * power.c that the others use.  Nothing above hw.h includes this.
 */
#ifndef PMUCTL_KMOD_PCPU_H
#define PMUCTL_KMOD_PCPU_H

#include <linux/percpu.h>

#include "hw.h"

/* Wanted values of a CPU's shared registers (CPU scope's shadow). */
struct pmuctl_shadow {
	u64 evtsel[PMUCTL_MAX_GP];
	u64 fixed;			/* FIXED_CTR_CTRL nibbles */
	u64 global;			/* GLOBAL_CTRL enables */
	u64 xval[PMUCTL_XREG_MAX];
};

/*
 * One part's share of a CPU's registers, as last written (pcpu.c's
 * header has the composition rule): the registers it owns here and the
 * values it wants in them.
 */
struct pmuctl_part {
	u64 own;			/* counter registers */
	u32 xown;			/* extra MSRs, by index */
	u64 evtsel[PMUCTL_MAX_GP];
	u64 fixed;
	u64 global;
	u64 xval[PMUCTL_XREG_MAX];
};

struct pmuctl_pcpu {
	/* CPU scope as wanted: pmuctl_lock and the hotplug lock (wave.c). */
	struct pmuctl_cpu_state acct;	/* claims */
	struct pmuctl_shadow sh;	/* registers the claims want */
	struct pmuctl_shadow bak;	/* sh before the operation under way */
	u64 zero;			/* counters to zero when it comes online */
	u64 val[PMUCTL_NR_REGS];	/* counter values a wave zeroed */
	u64 refused;			/* counters the last wave found in use */
	bool poisoned;			/* a write faulted: registers unknown */

	/* The registers as written: only this CPU, IRQs off (pcpu.c). */
	struct pmuctl_part cs;		/* CPU-scope claims */
	struct pmuctl_part tk;		/* the task pool */
	struct pmuctl_part fg;		/* found: what the parts took over */
	bool fg_whole;			/* fg.global and fg.fixed are kept */
	bool tk_fixed_stale;		/* FIXED_CTR_CTRL write of tk faulted */
	bool tfa;			/* pmuctl set MSR_TSX_FORCE_ABORT[0] */
	u64 gate;			/* counters a wave rewrites: off meanwhile */
	u64 live;			/* counters of the thread loaded here */
	u64 dirty;			/* may hold a count nobody here owns */
	u32 epoch;			/* pmuctl_epoch as of the last scrub */
};

/* Allocated at load (pmuctl_pcpu_alloc()), freed at unload. */
extern struct pmuctl_pcpu __percpu *pmuctl_pcpu;

static inline struct pmuctl_pcpu *pmuctl_pcpu_of(u32 cpu)
{
	return per_cpu_ptr(pmuctl_pcpu, cpu);
}

static inline struct pmuctl_pcpu *pmuctl_pcpu_this(void)
{
	return this_cpu_ptr(pmuctl_pcpu);
}

/* What a CPU-scope wave writes on one CPU (pmuctl_cs_sync()). */
struct pmuctl_sync {
	u64 held;			/* counters claimed here (all, not only touched) */
	u64 touch;			/* counters whose control is rewritten */
	u32 xheld;			/* extra MSRs claimed here */
	u32 xtouch;			/* extra MSRs rewritten */
	u64 zero;			/* counters set to 0 */
	u64 save;			/* of zero: their values kept in pc->val */
	u64 put;			/* counters given back their pc->val */
};

/* pcpu.c */
extern bool pmuctl_down;
extern unsigned long pmuctl_nr_waves;
extern const struct pmuctl_hw_ops *pmuctl_hw_ops;
void pmuctl_wave_pce(void);
extern atomic_t pmuctl_nr_poisoned;
void pmuctl_set_poisoned(struct pmuctl_pcpu *pc, bool poisoned);
u64 pmuctl_place_evtsel(const struct pmuctl_place *p, bool run);
u64 pmuctl_place_fixed(u64 ctrl, const struct pmuctl_place *p, bool run);
int pmuctl_pcpu_alloc(void);
void pmuctl_pcpu_free(void);
void pmuctl_epoch_bump(void);
void pmuctl_pcpu_reset(struct pmuctl_pcpu *pc);
u64 pmuctl_pcpu_running(struct pmuctl_pcpu *pc, u64 touch);
u64 pmuctl_pcpu_owned(const struct pmuctl_pcpu *pc);
u32 pmuctl_cpu_xheld(const struct pmuctl_cpu_state *st);
int pmuctl_read_counters(const struct pmuctl_place *place, u32 n, u64 *val);
int pmuctl_pcpu_give_back(struct pmuctl_pcpu *pc);
const struct pmuctl_type *pmuctl_this_type(void);
void pmuctl_take(struct pmuctl_pcpu *pc, struct pmuctl_part *part, u64 regs,
		 u32 xregs);
int pmuctl_put_evtsel(struct pmuctl_pcpu *pc, u32 i);
int pmuctl_put_xreg(struct pmuctl_pcpu *pc, u32 i);
int pmuctl_put_fixed(struct pmuctl_pcpu *pc);
int pmuctl_put_global(struct pmuctl_pcpu *pc);
void pmuctl_forget_if_idle(struct pmuctl_pcpu *pc);
u64 pmuctl_counter_mask(const struct pmuctl_type *t, u32 idx);
int pmuctl_put_count(u32 idx, u64 val);
int pmuctl_tfa(struct pmuctl_pcpu *pc, bool on);

/* perf.c */
extern bool pmuctl_perf_held;
extern u32 pmuctl_nr_programmed;
int pmuctl_perf_get(void);
u32 pmuctl_perf_reason(int err);
void pmuctl_perf_put(void);
void pmuctl_perf_settle(void);
void pmuctl_perf_let_go(void);
void pmuctl_perf_cpu_up(u32 cpu);
void pmuctl_perf_cpu_down(u32 cpu);

/* wave.c */
int pmuctl_cs_sync(struct pmuctl_pcpu *pc, const struct pmuctl_sync *w);

/* pool.c */
extern u32 pmuctl_task_refs[PMUCTL_NR_REGS];
extern u32 pmuctl_task_xrefs[PMUCTL_XREG_MAX];
extern u64 pmuctl_task_pool;
extern u32 pmuctl_task_xpool;

/* power.c */
void pmuctl_hw_reboot(void);

#endif /* PMUCTL_KMOD_PCPU_H */
