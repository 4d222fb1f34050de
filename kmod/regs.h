/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The bottom of pmuctl.ko: what every other file may use and what uses
 * nothing above it.  The module's parameters and configuration lock
 * (param.c), the PMU the module drives and its register map, the backends
 * that reach the registers (msr.c: the CPU; regmodel.c: the test register
 * model) and the load probe.
 *
 * The layers of kmod/, each calling only those below it (scripts/kmod-layers.sh
 * checks it from the objects' symbols):
 *
 *   main.c                 the device, module init and exit
 *   ioctl.c                the commands: copy in, check the ABI, copy out
 *   session.c              sessions: open, program, run, read, release
 *   task.c  inherit.c      task scope: sessions' side; forks, execs, exits
 *   mon.c                  the counted threads (mons) and their hooks
 *   grant.c  state.c       the rdpmc grant; INFO holdings and debugfs state
 *   power.c                load, CPU hotplug, suspend, reboot, unload
 *   wave.c                 CPU-scope claims: shadows, waves, rollback
 *   pool.c                 the task pool: placement, the hooks' entry
 *   perf.c                 living next to perf: reservation, v6 sentinel
 *   pcpu.c                 the per-CPU register owner, the rdpmc scrub
 *   type.c                 the PMU of each core type, quirks
 *   regmodel.c             the test backend's registers (test builds only)
 *   regmodel_caps.c        the test backend's presets and CPUID
 *   msr.c                  register map, the CPU's backend, the load probe
 *   defer.c                frees handed over to process context
 *   param.c                module parameters, pmuctl_lock
 *   core/                  pure rules and model tables (also user space)
 *
 * regs.h is included by all of them; the other headers by their layer and
 * those above it: regmodel.h (the test backend's), hw.h (the hardware
 * side's interface, type.c up), pcpu.h (inside the hardware side),
 * pmuctl.h (the sessions, grant.c up), task.h (task scope, mon.c up).
 * Where a lower layer must reach an upper one (a CPU's rdpmc grant after
 * a wave, the thread loaded across suspend), it calls through struct
 * pmuctl_hw_ops, which main.c fills in from above.
 */
#ifndef PMUCTL_KMOD_REGS_H
#define PMUCTL_KMOD_REGS_H

#include <linux/bits.h>
#include <linux/llist.h>
#include <linux/mutex.h>
#include <linux/types.h>

#include "core.h"

struct dentry;

/* --- param.c ---------------------------------------------------------------- */

extern struct mutex pmuctl_lock;	/* serializes all configuration */

/* Module parameters, read with READ_ONCE. */
extern int pmuctl_paranoid;		/* mirrors kernel.perf_event_paranoid */
extern unsigned int pmuctl_user_max_sessions;	/* open per unprivileged user */
extern unsigned int pmuctl_user_max_counters;	/* per unprivileged user and CPU */
extern unsigned int pmuctl_task_max_threads;	/* counted at once per task session */
extern bool pmuctl_allow_tsx_force_abort;	/* read at load */
u32 pmuctl_rdpmc_policy(void);

/* --- defer.c ------------------------------------------------------------------ */

/* An object whose free waits for process context (defer.c). */
struct pmuctl_deferred {
	struct llist_node node;
	void (*fn)(struct pmuctl_deferred *d);
};

void pmuctl_defer(struct pmuctl_deferred *d, void (*fn)(struct pmuctl_deferred *d));
void pmuctl_defer_flush(void);

/* --- msr.c: the PMU and its registers ----------------------------------------- */

/* Where MSR accesses go: the CPU, or the test register model. */
struct pmuctl_backend {
	const char *name;
	u32 kind;				/* PMUCTL_BACKEND_* */
	int (*read)(u32 msr, u64 *val);		/* on this CPU, IRQs off */
	int (*write)(u32 msr, u64 val);		/* on this CPU, IRQs off */
	int (*cpuid)(struct pmuctl_cpuid *id);	/* caps source */
};

/*
 * One core type's PMU.  Every CPU of a non-hybrid part has the same one;
 * a hybrid part (CPUID.(7,0):EDX[15]) has one per core type, decoded on
 * a CPU of that type (type.c).  Never changed once published.
 */
struct pmuctl_type {
	const struct pmuctl_model *model;
	struct pmuctl_caps caps;
};

#define PMUCTL_MAX_TYPES	4

/*
 * The PMU this module drives.  @be, @hybrid, @version and, on a
 * non-hybrid part, type[0] are fixed at load; a hybrid part's types are
 * found as its CPUs come online (the first ones at load) and appended
 * under the CPU hotplug lock; each CPU reaches its own through
 * pmuctl_cpu_type().
 */
struct pmuctl_pmu {
	const struct pmuctl_backend *be;
	bool hybrid;
	u32 version;			/* CPUID.0AH:EAX[7:0], every type's */
	u32 nr_types;
	struct pmuctl_type type[PMUCTL_MAX_TYPES];
};

extern struct pmuctl_pmu pmuctl_pmu;

/*
 * The counter registers of the index space (core.h): generic counters
 * 0..31, fixed 32..47, and IA32_PERF_METRICS, which every topdown metric
 * index stands for, at bit PMUCTL_IDX_METRIC of the masks below; its
 * GLOBAL_CTRL enable is that same bit, 48 [SDM vol. 3B, "Performance
 * Metrics"; LNX: GLOBAL_CTRL_EN_PERF_METRICS].
 */
#define PMUCTL_GP_MASK(n)	(BIT_ULL(n) - 1)
#define PMUCTL_FIXED_BITS	GENMASK_ULL(PMUCTL_IDX_MAX - 1, PMUCTL_IDX_FIXED)
#define PMUCTL_METRICS_BIT	BIT_ULL(PMUCTL_IDX_METRIC)
#define PMUCTL_NR_REGS		(PMUCTL_IDX_METRIC + 1)

/* FIXED_CTR_CTRL, 4 bits per counter [SDM]: OS, USR, AnyThread, PMI. */
#define PMUCTL_FIXED_OS		0x1
#define PMUCTL_FIXED_USR	0x2
#define PMUCTL_FIXED_ANY	0x4

bool pmuctl_v6(void);
u32 pmuctl_counter_msr(u32 idx);
u32 pmuctl_evtsel_msr(u32 i);
u64 pmuctl_fixed_nibbles(u64 mask);
u64 pmuctl_reg(u32 idx);
u64 pmuctl_regs(u64 mask);

static inline int pmuctl_rd(u32 msr, u64 *val)
{
	return pmuctl_pmu.be->read(msr, val);
}

static inline int pmuctl_wr(u32 msr, u64 val)
{
	return pmuctl_pmu.be->write(msr, val);
}

extern const struct pmuctl_backend pmuctl_msr;
int pmuctl_hw_probe(const struct pmuctl_backend *be, u32 nr_gp);

/* --- regmodel.c, in test builds only ------------------------------------------- */

#ifdef PMUCTL_REGMODEL
extern const struct pmuctl_backend pmuctl_regmodel;
int pmuctl_regmodel_init(struct dentry *dir);
void pmuctl_regmodel_exit(void);
#endif

#endif /* PMUCTL_KMOD_REGS_H */
