// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctl.ko: own the Intel core PMU on behalf of user sessions.
 *
 * /dev/pmuctl is a misc device; every open file is a session.  A session
 * programs one group of events on a set of CPUs (ioctl.c), reads it with
 * rdpmc while it holds it, and gives everything back on RELEASE or close.
 * The rules live in the pure core (core/), the hardware glue in hw.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/idr.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <asm/cpu_device_id.h>

#include "pmuctl.h"

/*
 * Who may count, as kernel.perf_event_paranoid says for perf (modules cannot
 * read the sysctl): 3 only CAP_PERFMON/CAP_SYS_ADMIN may open; 2 and 1
 * others may open but not count CPU-wide, which is all pmuctl does today;
 * 0 and -1 they may.  uapi/linux/pmuctl.h has the whole policy.
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
		 "as kernel.perf_event_paranoid for users without CAP_PERFMON: 3 (default) may not open, 2/1 may open but not count CPU-wide, 0/-1 may count CPU-wide");

static unsigned int user_max_sessions = 16;
module_param(user_max_sessions, uint, 0644);
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

struct pmuctl_pmu pmuctl_pmu;
/* Sessions' groups, the per-CPU accounting and shadows, the perf reservation. */
DEFINE_MUTEX(pmuctl_lock);
static DEFINE_IDA(pmuctl_ids);
static struct dentry *pmuctl_dir;
/* Users with unprivileged sessions, by uid; pmuctl_lock. */
static DEFINE_HASHTABLE(pmuctl_users, 6);

/*
 * Is the opener privileged?  When the policy admits others, the answer is
 * not a denial worth auditing: ask without an audit record.  Otherwise
 * perfmon_capable() audits the refusal, which is then meaningful.
 */
static bool opener_privileged(int paranoid)
{
	if (paranoid >= 3)
		return perfmon_capable();
	return ns_capable_noaudit(&init_user_ns, CAP_PERFMON) ||
	       ns_capable_noaudit(&init_user_ns, CAP_SYS_ADMIN);
}

/* Count an unprivileged session against its user.  pmuctl_lock held. */
static int user_attach(struct pmuctl_session *s, int paranoid)
{
	kuid_t uid = current_uid();
	u32 max = READ_ONCE(user_max_sessions);
	struct pmuctl_user *u;

	hash_for_each_possible(pmuctl_users, u, node, __kuid_val(uid))
		if (uid_eq(u->uid, uid))
			goto found;
	u = kzalloc(sizeof(*u), GFP_KERNEL_ACCOUNT);
	if (!u)
		return -ENOMEM;
	u->uid = uid;
	INIT_LIST_HEAD(&u->sessions);
	hash_add(pmuctl_users, &u->node, __kuid_val(uid));
found:
	/* As inotify's max_user_instances: EMFILE. */
	if (paranoid >= 0 && max && u->nr_sessions >= max)
		return -EMFILE;		/* max >= 1: u has sessions, stays */
	u->nr_sessions++;
	list_add(&s->user_node, &u->sessions);
	s->user = u;
	return 0;
}

/* pmuctl_lock held. */
static void user_detach(struct pmuctl_session *s)
{
	struct pmuctl_user *u = s->user;

	if (!u)
		return;
	list_del(&s->user_node);
	s->user = NULL;
	if (!--u->nr_sessions) {
		hash_del(&u->node);
		kfree(u);
	}
}

static int pmuctl_open(struct inode *inode, struct file *file)
{
	int paranoid = READ_ONCE(pmuctl_paranoid);
	bool priv = opener_privileged(paranoid);
	struct pmuctl_session *s;
	int id, ret = -ENOMEM;

	/* perf's paranoid 3 (Debian's default): no unprivileged access. */
	if (!priv && paranoid >= 3)
		return -EPERM;
	s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);
	if (!s)
		return -ENOMEM;
	if (!zalloc_cpumask_var(&s->cpus, GFP_KERNEL_ACCOUNT))
		goto free_session;
	if (!zalloc_cpumask_var(&s->wave_cpus, GFP_KERNEL_ACCOUNT))
		goto free_cpus;
	id = ida_alloc_min(&pmuctl_ids, 1, GFP_KERNEL);
	if (id < 0)
		goto free_wave_cpus;
	s->id = id;
	s->unpriv = !priv;
	INIT_LIST_HEAD(&s->user_node);
	INIT_LIST_HEAD(&s->grants);
	if (s->unpriv) {
		mutex_lock(&pmuctl_lock);
		ret = user_attach(s, paranoid);
		mutex_unlock(&pmuctl_lock);
		if (ret)
			goto free_id;
	}
	file->private_data = s;
	return 0;

free_id:
	ida_free(&pmuctl_ids, s->id);
free_wave_cpus:
	free_cpumask_var(s->wave_cpus);
free_cpus:
	free_cpumask_var(s->cpus);
free_session:
	kfree(s);
	return ret;
}

static int pmuctl_release(struct inode *inode, struct file *file)
{
	struct pmuctl_session *s = file->private_data;
	s64 waves = atomic64_read(&s->waves);

	mutex_lock(&pmuctl_lock);
	pmuctl_hw_release(s);
	user_detach(s);
	mutex_unlock(&pmuctl_lock);
	pmuctl_grant_cleanup();
	pmuctl_task_cleanup();
	pmuctl_stats_close(atomic64_read(&s->waves) - waves);
	ida_free(&pmuctl_ids, s->id);
	free_cpumask_var(s->wave_cpus);
	free_cpumask_var(s->cpus);
	kfree(s);
	return 0;
}

static const struct file_operations pmuctl_fops = {
	.owner = THIS_MODULE,
	.open = pmuctl_open,
	.release = pmuctl_release,
	.unlocked_ioctl = pmuctl_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

static struct miscdevice pmuctl_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "pmuctl",
	.fops = &pmuctl_fops,
	.mode = 0600,
};

/* Autoload on Intel CPUs with architectural perfmon. */
static const struct x86_cpu_id pmuctl_cpu_ids[] = {
	X86_MATCH_VENDOR_FEATURE(INTEL, X86_FEATURE_ARCH_PERFMON, NULL),
	{}
};
MODULE_DEVICE_TABLE(x86cpu, pmuctl_cpu_ids);

static const char *const refusal[PMUCTL_R_NR] = {
	[PMUCTL_R_NOT_INTEL] = "not an Intel CPU",
	[PMUCTL_R_NO_ARCH_PERFMON] = "no architectural perfmon v2+ (a VM without a virtual PMU?)",
	[PMUCTL_R_HYBRID_CPU] = "hybrid CPU whose core type cannot be told (CPUID leaf 1AH empty)",
};

/* The PMU at load: its decode here decides whether to load. */
static struct pmuctl_caps pmuctl_boot_caps;

static int __init pmuctl_pmu_setup(void)
{
	const struct pmuctl_backend *be = &pmuctl_msr;
	struct pmuctl_cpuid id;
	u32 reason;
	int ret;

#ifdef PMUCTL_REGMODEL
	be = &pmuctl_regmodel;
#endif
	ret = be->cpuid(&id);
	if (ret)
		return ret;
	ret = pmuctl_caps_decode(&id, &pmuctl_boot_caps, &reason);
	if (ret) {
		pr_err("not loading: %s\n", refusal[reason]);
		return ret;
	}
	/* Leaf 0AH's generic counters: every core type has them. */
	if (pmuctl_hw_probe(be, (id.leafa_eax >> 8) & 0xff)) {
		pr_err("not loading: the PMU registers do not answer or do not keep what is written (a VM without a virtual PMU?)\n");
		return -ENODEV;
	}
	pmuctl_pmu.be = be;
	pmuctl_pmu.hybrid = pmuctl_boot_caps.flags & PMUCTL_CAP_HYBRID;
	pmuctl_pmu.version = pmuctl_boot_caps.version;
	return 0;
}

static int __init pmuctl_init(void)
{
	const struct pmuctl_type *t;
	int ret;

	ret = pmuctl_pmu_setup();
	if (ret)
		return ret;

	/* "pmuctl" whichever build: the tests know it by that name. */
	pmuctl_dir = debugfs_create_dir("pmuctl", NULL);
	pmuctl_hw_debugfs(pmuctl_dir);
	pmuctl_stats_debugfs(pmuctl_dir);
#ifdef PMUCTL_REGMODEL
	ret = pmuctl_regmodel_init(pmuctl_dir);
	if (ret)
		goto remove_debugfs;
#endif
	ret = pmuctl_grant_init();
	if (ret)
		goto exit_regmodel;
	ret = pmuctl_task_init();
	if (ret)
		goto exit_grant;
	ret = pmuctl_hw_init(&pmuctl_boot_caps);
	if (ret)
		goto exit_task;
	ret = misc_register(&pmuctl_dev);
	if (ret)
		goto exit_hw;

	t = pmuctl_first_type();
	pr_info("%s PMU v%u: %u generic counters x%u bits, fixed %#x x%u bits, %s backend%s\n",
		t->model->name, t->caps.version, t->caps.nr_gp, t->caps.gp_width,
		t->caps.fixed_mask, t->caps.fixed_width, pmuctl_pmu.be->name,
		pmuctl_pmu.hybrid ? ", hybrid: one PMU per core type" : "");
	return 0;

exit_hw:
	pmuctl_hw_exit();
exit_task:
	pmuctl_task_exit();
exit_grant:
	pmuctl_grant_exit();
exit_regmodel:
#ifdef PMUCTL_REGMODEL
	pmuctl_regmodel_exit();
remove_debugfs:
#endif
	debugfs_remove_recursive(pmuctl_dir);
	return ret;
}

static void __exit pmuctl_exit(void)
{
	misc_deregister(&pmuctl_dev);
	pmuctl_hw_exit();
	pmuctl_task_exit();
	pmuctl_grant_exit();
	debugfs_remove_recursive(pmuctl_dir);
#ifdef PMUCTL_REGMODEL
	pmuctl_regmodel_exit();
#endif
}

module_init(pmuctl_init);
module_exit(pmuctl_exit);

MODULE_DESCRIPTION("Own the Intel core PMU from user space; read it with rdpmc");
MODULE_LICENSE("GPL");
