// SPDX-License-Identifier: GPL-2.0
/*
 * The module's parameters and its configuration lock: data every layer
 * reads, at the bottom so that no layer has to reach up for them.
 */
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>

#include "regs.h"

/* Sessions' groups, the per-CPU accounting and shadows, the perf reservation. */
DEFINE_MUTEX(pmuctl_lock);

/*
 * Who may count, as kernel.perf_event_paranoid says for perf (modules cannot
 * read the sysctl): 3 only CAP_PERFMON/CAP_SYS_ADMIN may open; 2 and 1
 * others may open and count their own threads but not CPU-wide; 0 and -1
 * they may count CPU-wide.  uapi/linux/pmuctl.h has the whole policy.
 */
int pmuctl_paranoid = 3;

static int paranoid_set(const char *val, const struct kernel_param *kp)
{
	int v, ret = kstrtoint(val, 0, &v);

	if (ret)
		return ret;
	if (v < -1 || v > 3)
		return -EINVAL;
	WRITE_ONCE(*(int *)kp->arg, v);
	return 0;
}

static const struct kernel_param_ops paranoid_ops = {
	.set = paranoid_set,
	.get = param_get_int,
};
module_param_cb(paranoid, &paranoid_ops, &pmuctl_paranoid, 0644);
__MODULE_PARM_TYPE(paranoid, "int");
MODULE_PARM_DESC(paranoid,
		 "as kernel.perf_event_paranoid for users without CAP_PERFMON: 3 (default) may not open, 2/1 may open and count their own threads but not CPU-wide, 0/-1 may count CPU-wide");

unsigned int pmuctl_user_max_sessions = 16;
module_param_named(user_max_sessions, pmuctl_user_max_sessions, uint, 0644);
MODULE_PARM_DESC(user_max_sessions,
		 "open sessions per user without CAP_PERFMON (0: no limit; none at paranoid -1)");

unsigned int pmuctl_user_max_counters = 4;
module_param_named(user_max_counters, pmuctl_user_max_counters, uint, 0644);
MODULE_PARM_DESC(user_max_counters,
		 "counters one user without CAP_PERFMON may hold on one CPU (0: no limit; none at paranoid -1)");

unsigned int pmuctl_task_max_threads = 4096;
module_param_named(task_max_threads, pmuctl_task_max_threads, uint, 0644);
MODULE_PARM_DESC(task_max_threads,
		 "threads one task-scope session counts at once; more created with INHERIT are not counted (0: no limit)");

/*
 * Who may rdpmc pmuctl's counters: 0, nobody (sessions read with
 * PMUCTL_IOC_READ); 1, the threads a session grants (grant.c).  The
 * kernel's sysfs rdpmc governs perf's grants, this parameter pmuctl's:
 * forbidding user rdpmc takes both at 0.  Read at each grant.
 */
static unsigned int rdpmc = 1;

static int rdpmc_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, 1);
}

static const struct kernel_param_ops rdpmc_ops = {
	.set = rdpmc_set,
	.get = param_get_uint,
};

module_param_cb(rdpmc, &rdpmc_ops, &rdpmc, 0644);
__MODULE_PARM_TYPE(rdpmc, "uint");
MODULE_PARM_DESC(rdpmc,
		 "0: grant no rdpmc (sessions read with PMUCTL_IOC_READ); 1: grant it to a session's threads (default)");

/**
 * pmuctl_rdpmc_policy() - the module parameter rdpmc
 *
 * Return: 0 (no grants) or 1 (grants to a session's threads).
 */
u32 pmuctl_rdpmc_policy(void)
{
	return READ_ONCE(rdpmc);
}

/*
 * Linux's allow_tsx_force_abort (arch/x86/events/intel/core.c), with its
 * default: where the microcode corrupts PMC3 during RTM transactions, use
 * PMC3 and make RTM abort while a session holds it, or (0) withhold PMC3.
 * Read at load (type.c).
 */
bool pmuctl_allow_tsx_force_abort = true;
module_param_named(allow_tsx_force_abort, pmuctl_allow_tsx_force_abort, bool, 0444);
MODULE_PARM_DESC(allow_tsx_force_abort,
		 "Skylake TSX force abort: 1 (default, as Linux) abort RTM transactions while PMC3 is held, 0 never use PMC3");
