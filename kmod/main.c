// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctl.ko: own the Intel core PMU on behalf of user sessions.
 *
 * /dev/pmuctl is a misc device; every open file is a session (session.c).
 * A session programs one group of events on a set of CPUs or for its own
 * threads (ioctl.c), reads it with rdpmc while it holds it, and gives
 * everything back on RELEASE or close.  The rules live in the pure core
 * (core/), the hardware side below hw.h; regs.h maps the layers.  This
 * file loads and unloads them in order, and wires the calls the hardware
 * side makes above itself (struct pmuctl_hw_ops).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <asm/cpu_device_id.h>

#include "pmuctl.h"

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

static int pmuctl_open(struct inode *inode, struct file *file)
{
	int paranoid = READ_ONCE(pmuctl_paranoid);
	bool priv = opener_privileged(paranoid);
	struct pmuctl_session *s;

	/* perf's paranoid 3 (Debian's default): no unprivileged access. */
	if (!priv && paranoid >= 3)
		return -EPERM;
	s = pmuctl_session_open(priv, paranoid);
	if (IS_ERR(s))
		return PTR_ERR(s);
	file->private_data = s;
	return 0;
}

static int pmuctl_release(struct inode *inode, struct file *file)
{
	pmuctl_session_close(file->private_data);
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

/* What the hardware side calls above itself (hw.h). */
static const struct pmuctl_hw_ops pmuctl_ops = {
	.pce_eval = pmuctl_grant_eval_local,
	.task_unload = pmuctl_task_unload_local,
	.task_load = pmuctl_task_load_local,
};

static struct dentry *pmuctl_dir;

static int __init pmuctl_init(void)
{
	const struct pmuctl_type *t;
	int ret;

	ret = pmuctl_pmu_setup();
	if (ret)
		return ret;

	/* "pmuctl" whichever build: the tests know it by that name. */
	pmuctl_dir = debugfs_create_dir("pmuctl", NULL);
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
	ret = pmuctl_hw_init(&pmuctl_boot_caps, &pmuctl_ops);
	if (ret)
		goto exit_task;
	ret = misc_register(&pmuctl_dev);
	if (ret)
		goto exit_hw;
	/* Last: the files read what everything above set up. */
	pmuctl_state_debugfs(pmuctl_dir);

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
	pmuctl_defer_flush();
	debugfs_remove_recursive(pmuctl_dir);
	return ret;
}

static void __exit pmuctl_exit(void)
{
	/* First: no reader of the per-CPU state is left once it returns. */
	pmuctl_state_debugfs_remove();
	misc_deregister(&pmuctl_dev);
	pmuctl_hw_exit();
	pmuctl_task_exit();
	pmuctl_grant_exit();
#ifdef PMUCTL_REGMODEL
	pmuctl_regmodel_exit();
#endif
	pmuctl_defer_flush();
	debugfs_remove_recursive(pmuctl_dir);
}

module_init(pmuctl_init);
module_exit(pmuctl_exit);

MODULE_DESCRIPTION("Own the Intel core PMU from user space; read it with rdpmc");
MODULE_LICENSE("GPL");
