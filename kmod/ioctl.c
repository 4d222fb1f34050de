// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctl commands: copy in, check the ABI rules, call the core and the
 * hardware glue, copy out.  Nothing here touches the hardware.
 */
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/nospec.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "pmuctl.h"

/* The commands this module implements, by ioctl number. */
#define PMUCTL_COMMANDS	(BIT_ULL(_IOC_NR(PMUCTL_IOC_INFO)) |		\
			 BIT_ULL(_IOC_NR(PMUCTL_IOC_PROGRAM)) |		\
			 BIT_ULL(_IOC_NR(PMUCTL_IOC_START)) |		\
			 BIT_ULL(_IOC_NR(PMUCTL_IOC_STOP)) |		\
			 BIT_ULL(_IOC_NR(PMUCTL_IOC_RESET)) |		\
			 BIT_ULL(_IOC_NR(PMUCTL_IOC_READ)) |		\
			 BIT_ULL(_IOC_NR(PMUCTL_IOC_RELEASE)) |		\
			 BIT_ULL(_IOC_NR(PMUCTL_IOC_RDPMC)))

/* Copy out one struct pmuctl_holding per possible CPU, as many as fit. */
static int info_holdings(struct pmuctl_info *info)
{
	struct pmuctl_holding __user *uh = u64_to_user_ptr(info->holdings);
	u32 room = info->holdings_size / sizeof(*uh), cpu, n = 0;
	struct pmuctl_holding *h;
	int ret = 0;

	h = kmalloc(sizeof(*h), GFP_KERNEL);
	if (!h)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		if (n == room)
			break;
		if (mutex_lock_killable(&pmuctl_lock)) {
			ret = -EINTR;
			break;
		}
		pmuctl_hw_holding(cpu, h);
		mutex_unlock(&pmuctl_lock);
		if (copy_to_user(&uh[n], h, sizeof(*h))) {
			ret = -EFAULT;
			break;
		}
		n++;
	}
	kfree(h);
	info->holdings_nr = n;
	return ret;
}

static int pmuctl_info(struct pmuctl_session *s, void __user *uarg)
{
	struct pmuctl_info info;
	int ret;

	if (copy_from_user(&info, uarg, sizeof(info)))
		return -EFAULT;
	if (info.flags || info.reserved0 ||
	    memchr_inv(info.reserved, 0, sizeof(info.reserved)))
		return -EINVAL;
	if (info.abi_version || info.pmu_model || info.max_events ||
	    info.event_flags || info.rdpmc || info.backend || info.nr_cpus ||
	    info.commands || info.holdings_nr || info.session ||
	    memchr_inv(&info.caps, 0, sizeof(info.caps)))
		return -EINVAL;
	if (info.holdings_size % sizeof(struct pmuctl_holding) ||
	    (info.holdings_size && !info.holdings))
		return -EINVAL;

	info.abi_version = PMUCTL_ABI_VERSION;
	info.pmu_model = pmuctl_pmu.model->id;
	info.max_events = PMUCTL_MAX_EVENTS;
	info.event_flags = PMUCTL_EVENT_FLAGS_ALL;
	info.rdpmc = pmuctl_rdpmc_policy() ? PMUCTL_RDPMC_SESSION :
					     PMUCTL_RDPMC_NONE;
	info.caps = pmuctl_pmu.caps;
	info.backend = pmuctl_pmu.be->kind;
	info.nr_cpus = nr_cpu_ids;
	info.commands = PMUCTL_COMMANDS;
	info.session = s->id;
	ret = info_holdings(&info);
	if (ret)
		return ret;
	return copy_to_user(uarg, &info, sizeof(info)) ? -EFAULT : 0;
}

/* The CPU bitmap of a PROGRAM request, as a cpumask. */
static int program_cpus(struct pmuctl_session *s, const struct pmuctl_program *p,
			struct cpumask *mask, u32 *reason)
{
	u32 words = p->cpus_size / 8, w, b;
	u64 *bits;
	int ret = 0;

	bits = memdup_user(u64_to_user_ptr(p->cpus), p->cpus_size);
	if (IS_ERR(bits))
		return PTR_ERR(bits);
	cpumask_clear(mask);
	for (w = 0; w < words; w++) {
		for (b = 0; b < 64; b++) {
			u32 cpu = w * 64 + b;

			if (!(bits[w] & BIT_ULL(b)))
				continue;
			if (cpu >= nr_cpu_ids || !cpu_possible(cpu)) {
				*reason = PMUCTL_R_BAD_CPU;
				ret = -EINVAL;
				goto out;
			}
			cpumask_set_cpu(cpu, mask);
		}
	}
	if (cpumask_empty(mask)) {
		*reason = PMUCTL_R_BAD_CPU;
		ret = -EINVAL;
	} else if (s->unpriv && !cpumask_subset(mask, current->cpus_ptr)) {
		*reason = PMUCTL_R_CPU_NOT_ALLOWED;
		ret = -EPERM;
	}
out:
	kfree(bits);
	return ret;
}

/* The ABI rules of struct pmuctl_program itself. */
static int program_check(const struct pmuctl_program *p, u32 *reason,
			 u32 *index)
{
	if (p->flags)
		*reason = PMUCTL_R_BAD_FLAGS;
	else if (memchr_inv(p->reserved, 0, sizeof(p->reserved)))
		*reason = PMUCTL_R_RESERVED_FIELD;
	else if (p->err_reason || p->err_index || p->err_cpu)
		*reason = PMUCTL_R_OUTPUT_NOT_ZERO;
	if (*reason)
		return -EINVAL;
	if (p->nr_events > PMUCTL_MAX_EVENTS) {
		*reason = PMUCTL_R_TOO_MANY_EVENTS;
		*index = PMUCTL_MAX_EVENTS;
		return -E2BIG;
	}
	if (!p->nr_events || !p->cpus_size || p->cpus_size % 8 ||
	    p->cpus_size > PMUCTL_MAX_CPU_BITMAP)
		return -EINVAL;
	return 0;
}

static int program_run(struct pmuctl_session *s, const struct pmuctl_program *p,
		       u32 *reason, u32 *index, u32 *cpu)
{
	struct pmuctl_grant *grant;
	struct pmuctl_place *place;
	struct pmuctl_event *ev;
	cpumask_var_t mask;
	u32 i, gen = 0, n = p->nr_events;
	int ret;

	if (!zalloc_cpumask_var(&mask, GFP_KERNEL))
		return -ENOMEM;
	place = kcalloc(n, sizeof(*place), GFP_KERNEL);
	if (!place) {
		ret = -ENOMEM;
		goto free_mask;
	}
	ev = memdup_user(u64_to_user_ptr(p->events), n * sizeof(*ev));
	if (IS_ERR(ev)) {
		ret = PTR_ERR(ev);
		goto free_place;
	}
	ret = program_cpus(s, p, mask, reason);
	if (ret)
		goto free_ev;
	/* Allocated here: nothing under the locks below may sleep on memory. */
	ret = pmuctl_grant_alloc(&grant);
	if (ret)
		goto free_ev;

	if (mutex_lock_killable(&pmuctl_lock)) {
		ret = -EINTR;
		goto free_grant;
	}
	if (s->nr) {
		*reason = PMUCTL_R_ALREADY_PROGRAMMED;
		ret = -EBUSY;
	} else {
		ret = pmuctl_hw_program(s, mask, ev, n, place, reason, index,
					cpu);
		if (!ret) {
			gen = ++s->gen;
			/* rdpmc for the programming thread (grant.c). */
			pmuctl_grant_add(s, grant);
			grant = NULL;
		}
	}
	mutex_unlock(&pmuctl_lock);
	if (ret)
		goto free_grant;

	for (i = 0; i < n; i++) {
		ev[i].counter = pmuctl_idx_to_counter(place[i].idx);
		ev[i].config_used = place[i].config;
		ev[i].extra_msr = place[i].xreg < 0 ? 0 :
				  pmuctl_pmu.model->xregs[place[i].xreg].msr;
	}
	if (copy_to_user(u64_to_user_ptr(p->events), ev, n * sizeof(*ev))) {
		/*
		 * Programmed, but the caller cannot learn where: undo, unless
		 * another thread of the session released it and programmed
		 * again meanwhile.
		 */
		if (!mutex_lock_killable(&pmuctl_lock)) {
			if (s->gen == gen)
				pmuctl_hw_release(s);
			mutex_unlock(&pmuctl_lock);
		}
		ret = -EFAULT;
	}
free_grant:
	pmuctl_grant_free(grant);
free_ev:
	kfree(ev);
free_place:
	kfree(place);
free_mask:
	free_cpumask_var(mask);
	return ret;
}

static int pmuctl_program(struct pmuctl_session *s, void __user *uarg)
{
	u32 reason = PMUCTL_R_NONE, index = 0, cpu = U32_MAX;
	struct pmuctl_program p;
	int ret;

	if (copy_from_user(&p, uarg, sizeof(p)))
		return -EFAULT;
	ret = program_check(&p, &reason, &index);
	if (!ret)
		ret = program_run(s, &p, &reason, &index, &cpu);
	/* A refusal that names a rule says which, where and for what event. */
	if (ret && reason != PMUCTL_R_NONE) {
		p.err_reason = reason;
		p.err_index = index;
		p.err_cpu = cpu;
		if (copy_to_user(uarg, &p, sizeof(p)))
			return -EFAULT;
	}
	return ret;
}

static int pmuctl_ctl(struct pmuctl_session *s, unsigned int cmd,
		      void __user *uarg)
{
	struct pmuctl_ctl c;
	int ret = 0;

	if (copy_from_user(&c, uarg, sizeof(c)))
		return -EFAULT;
	if (c.flags || c.reserved0 || memchr_inv(c.reserved, 0, sizeof(c.reserved)))
		return -EINVAL;

	if (mutex_lock_killable(&pmuctl_lock))
		return -EINTR;
	if (!s->nr) {
		ret = -ENOENT;
		goto unlock;
	}
	switch (cmd) {
	case PMUCTL_IOC_START:
		ret = pmuctl_hw_start(s);
		break;
	case PMUCTL_IOC_STOP:
		ret = pmuctl_hw_stop(s);
		break;
	case PMUCTL_IOC_RESET:
		ret = pmuctl_hw_reset(s);
		break;
	default:
		pmuctl_hw_release(s);
		break;
	}
unlock:
	mutex_unlock(&pmuctl_lock);
	return ret;
}

static int pmuctl_read(struct pmuctl_session *s, void __user *uarg)
{
	u64 val[PMUCTL_MAX_EVENTS];
	struct pmuctl_read r;
	u32 cpu, n;
	int ret;

	if (copy_from_user(&r, uarg, sizeof(r)))
		return -EFAULT;
	if (r.flags || r.reserved0 || memchr_inv(r.reserved, 0, sizeof(r.reserved)))
		return -EINVAL;
	if (r.cpu >= nr_cpu_ids)
		return -EINVAL;
	cpu = array_index_nospec(r.cpu, nr_cpu_ids);

	if (mutex_lock_killable(&pmuctl_lock))
		return -EINTR;
	n = s->nr;
	if (!n)
		ret = -ENOENT;
	else if (!cpumask_test_cpu(cpu, s->cpus) || r.nr_values < n)
		ret = -EINVAL;
	else
		ret = pmuctl_hw_read(s, cpu, val);
	mutex_unlock(&pmuctl_lock);
	if (ret)
		return ret;
	if (copy_to_user(u64_to_user_ptr(r.values), val, n * sizeof(val[0])))
		return -EFAULT;
	return 0;
}

/*
 * rdpmc for the calling thread too, a thread of the process that
 * programmed the session: the grant PROGRAM gives its caller.
 */
static int pmuctl_rdpmc(struct pmuctl_session *s, void __user *uarg)
{
	struct pmuctl_grant *grant;
	struct pmuctl_ctl c;
	int ret = 0;

	if (copy_from_user(&c, uarg, sizeof(c)))
		return -EFAULT;
	if (c.flags || c.reserved0 || memchr_inv(c.reserved, 0, sizeof(c.reserved)))
		return -EINVAL;
	ret = pmuctl_grant_alloc(&grant);
	if (ret)
		return ret;
	if (!grant)
		return -EOPNOTSUPP;	/* rdpmc=0: read with PMUCTL_IOC_READ */

	if (mutex_lock_killable(&pmuctl_lock)) {
		ret = -EINTR;
		goto free_grant;
	}
	if (!s->nr) {
		ret = -ENOENT;
	} else if (!s->mm || s->mm != current->mm) {
		ret = -EPERM;	/* another process: it reads with READ */
	} else if (!pmuctl_grant_held(s)) {
		pmuctl_grant_add(s, grant);
		grant = NULL;
	}
	mutex_unlock(&pmuctl_lock);
free_grant:
	pmuctl_grant_free(grant);
	return ret;
}

static long pmuctl_cmd(struct pmuctl_session *s, unsigned int cmd,
		       void __user *uarg)
{
	switch (cmd) {
	case PMUCTL_IOC_INFO:
		return pmuctl_info(s, uarg);
	case PMUCTL_IOC_PROGRAM:
		return pmuctl_program(s, uarg);
	case PMUCTL_IOC_START:
	case PMUCTL_IOC_STOP:
	case PMUCTL_IOC_RESET:
	case PMUCTL_IOC_RELEASE:
		return pmuctl_ctl(s, cmd, uarg);
	case PMUCTL_IOC_READ:
		return pmuctl_read(s, uarg);
	case PMUCTL_IOC_RDPMC:
		return pmuctl_rdpmc(s, uarg);
	default:
		return -ENOTTY;
	}
}

/*
 * What each operation costs, for debugfs "stats": calls, and the cross-CPU
 * call waves they made.  Indexed by ioctl number; the last entry is the
 * final close of a session.  Two threads' ioctls on one session at once may
 * see each other's waves: these are counts for people, not for the ABI.
 */
#define PMUCTL_STAT_CLOSE	8	/* after the ioctl numbers 0x00..0x07 */

static const char *const pmuctl_stat_names[PMUCTL_STAT_CLOSE + 1] = {
	"info", "program", "start", "stop", "reset", "read", "release", "rdpmc",
	"close",
};

static struct {
	atomic64_t calls;
	atomic64_t waves;
} pmuctl_stats[PMUCTL_STAT_CLOSE + 1];

static void pmuctl_stat(u32 op, s64 waves)
{
	atomic64_inc(&pmuctl_stats[op].calls);
	atomic64_add(waves, &pmuctl_stats[op].waves);
}

/**
 * pmuctl_stats_close() - count the final close of a session
 * @waves:	the cross-CPU call waves its release made
 *
 * Context: process.
 */
void pmuctl_stats_close(u64 waves)
{
	pmuctl_stat(PMUCTL_STAT_CLOSE, waves);
}

static int stats_show(struct seq_file *m, void *unused)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(pmuctl_stats); i++)
		seq_printf(m, "%s calls %lld waves %lld\n", pmuctl_stat_names[i],
			   (long long)atomic64_read(&pmuctl_stats[i].calls),
			   (long long)atomic64_read(&pmuctl_stats[i].waves));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

/**
 * pmuctl_stats_debugfs() - the per-operation cost file
 * @dir:	pmuctl's debugfs folder
 */
void pmuctl_stats_debugfs(struct dentry *dir)
{
	debugfs_create_file("stats", 0400, dir, NULL, &stats_fops);
}

/**
 * pmuctl_ioctl() - the commands of /dev/pmuctl
 * @file:	the session's file
 * @cmd:	PMUCTL_IOC_*
 * @arg:	user pointer to the command's struct
 *
 * The calling thread's revoked rdpmc grants are forgotten before and after
 * the command (grant.c: only the thread itself may do that).
 *
 * Context: process; takes pmuctl_lock, killable.
 * Return: 0 or -errno; -ENOTTY for an unknown command; -EINTR when a
 * fatal signal came while waiting for another session's command.
 */
long pmuctl_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct pmuctl_session *s = file->private_data;
	s64 waves = atomic64_read(&s->waves);
	long ret;

	pmuctl_grant_cleanup();
	ret = pmuctl_cmd(s, cmd, (void __user *)arg);
	pmuctl_grant_cleanup();
	if (ret != -ENOTTY && _IOC_NR(cmd) < PMUCTL_STAT_CLOSE)
		pmuctl_stat(_IOC_NR(cmd), atomic64_read(&s->waves) - waves);
	return ret;
}
