// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctl commands: copy in, check the ABI rules, call the sessions
 * (session.c, task.c, grant.c), copy out.  Nothing here touches the
 * hardware.
 */
#include <linux/cpumask.h>
#include <linux/fs.h>
#include <linux/nospec.h>
#include <linux/sched.h>
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
			 BIT_ULL(_IOC_NR(PMUCTL_IOC_RDPMC)) |		\
			 BIT_ULL(_IOC_NR(PMUCTL_IOC_THREADS)))

/* Largest holding entry a caller may ask for (pmuctl_info.holding_size). */
#define PMUCTL_HOLDING_SIZE_MAX	4096

/*
 * What an unprivileged session may see of a CPU's holdings: its own session
 * id, a "busy" marker for every other holder, and the extra MSR values its
 * own group uses there.  pmuctl_lock held.
 */
static void holding_filter(const struct pmuctl_session *s,
			   struct pmuctl_holding *h)
{
	u32 i, mine = 0;

	for (i = 0; i < PMUCTL_HOLDING_COUNTERS; i++)
		if (h->owner[i] && h->owner[i] != s->g.id &&
		    h->owner[i] != PMUCTL_OWNER_TASK)
			h->owner[i] = PMUCTL_OWNER_OTHER;
	if (s->g.nr && cpumask_test_cpu(h->cpu, s->g.cpus))
		for (i = 0; i < s->g.nr; i++)
			if (s->g.place[i].xreg >= 0)
				mine |= BIT(s->g.place[i].xreg);
	for (i = 0; i < PMUCTL_HOLDING_XREGS; i++) {
		if (!h->xreg[i].refcount || (mine & BIT(i)))
			continue;
		h->xreg[i].value = 0;
		h->xreg[i].flags |= PMUCTL_HOLDING_XREG_HIDDEN;
	}
}

/*
 * Copy out one holding entry per possible CPU, as many as fit, each
 * info->holding_size bytes: what both sides know, the rest zeroed.
 */
static int info_holdings(struct pmuctl_session *s, struct pmuctl_info *info)
{
	u8 __user *uh = u64_to_user_ptr(info->holdings);
	u32 size = info->holding_size, room, cpu, n = 0;
	struct pmuctl_holding *h;
	int ret = 0;

	room = size ? info->holdings_size / size : 0;
	h = kzalloc(max_t(size_t, size, sizeof(*h)), GFP_KERNEL_ACCOUNT);
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
		if (s->unpriv)
			holding_filter(s, h);
		mutex_unlock(&pmuctl_lock);
		if (copy_to_user(uh + (size_t)n * size, h, size)) {
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
	u32 hs;
	int ret;

	if (copy_from_user(&info, uarg, sizeof(info)))
		return -EFAULT;
	if (info.flags || memchr_inv(info.reserved, 0, sizeof(info.reserved)))
		return -EINVAL;
	/* The output fields are ignored on input: a retry passes them back. */
	hs = info.holding_size;
	if ((hs || info.holdings_size) &&
	    (hs < PMUCTL_HOLDING_SIZE_VER0 || hs % 8 ||
	     hs > PMUCTL_HOLDING_SIZE_MAX))
		return -EINVAL;
	if (info.holdings_size && (!info.holdings || info.holdings_size % hs))
		return -EINVAL;

	info.abi_version = PMUCTL_ABI_VERSION;
	info.pmu_model = pmuctl_first_type()->model->id;
	info.max_events = PMUCTL_MAX_EVENTS;
	info.event_flags = PMUCTL_EVENT_FLAGS_ALL;
	/* Unprivileged sessions get rdpmc for task scope only (session.c). */
	info.rdpmc = !pmuctl_rdpmc_policy() ? PMUCTL_RDPMC_NONE :
		     s->unpriv ? PMUCTL_RDPMC_TASK : PMUCTL_RDPMC_SESSION;
	info.caps = pmuctl_first_type()->caps;
	info.backend = pmuctl_pmu.be->kind;
	info.nr_cpus = nr_cpu_ids;
	info.commands = PMUCTL_COMMANDS;
	info.session = s->g.id;
	info.session_flags = s->unpriv ? PMUCTL_SESSION_UNPRIV : 0;
	info.paranoid = READ_ONCE(pmuctl_paranoid);
	info.program_flags = PMUCTL_PROGRAM_FLAGS_ALL;
	info.task_bits = pmuctl_pool_bits();
	if (mutex_lock_killable(&pmuctl_lock))
		return -EINTR;
	info.generation = s->gen;
	mutex_unlock(&pmuctl_lock);
	info.holdings_nr = 0;
	if (info.holdings_size) {
		ret = info_holdings(s, &info);
		if (ret)
			return ret;
	}
	info.holding_size = sizeof(struct pmuctl_holding);
	return copy_to_user(uarg, &info, sizeof(info)) ? -EFAULT : 0;
}

/* A user buffer copied in, charged to the caller's memory cgroup. */
static void *dup_user(u64 uptr, size_t len)
{
	void *p = kmalloc(len, GFP_KERNEL_ACCOUNT);

	if (!p)
		return ERR_PTR(-ENOMEM);
	if (copy_from_user(p, u64_to_user_ptr(uptr), len)) {
		kfree(p);
		return ERR_PTR(-EFAULT);
	}
	return p;
}

/* The CPU bitmap of a PROGRAM request, as a cpumask. */
static int program_cpus(const struct pmuctl_program *p, struct cpumask *mask,
			u32 *reason)
{
	u32 words = p->cpus_size / 8, w, b;
	u64 *bits;
	int ret = 0;

	bits = dup_user(p->cpus, p->cpus_size);
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
	/*
	 * No check against the caller's affinity for unprivileged sessions:
	 * sched_setaffinity() widens it at will (PMUCTL_R_CPU_NOT_ALLOWED is
	 * retired); pmuctl_session_policy() decides whether CPU-wide counting is
	 * allowed at all.
	 */
	if (cpumask_empty(mask)) {
		*reason = PMUCTL_R_BAD_CPU;
		ret = -EINVAL;
	}
out:
	kfree(bits);
	return ret;
}

/* The ABI rules of struct pmuctl_program itself. */
static int program_check(const struct pmuctl_program *p, u32 *reason,
			 u32 *index)
{
	const u32 task_only = PMUCTL_PROGRAM_INHERIT |
			      PMUCTL_PROGRAM_ENABLE_ON_EXEC;
	bool task = p->flags & PMUCTL_PROGRAM_TASK;

	if ((p->flags & ~PMUCTL_PROGRAM_FLAGS_ALL) ||
	    (!task && (p->flags & task_only)) ||
	    (task && (p->flags & PMUCTL_PROGRAM_REPLACE)))
		*reason = PMUCTL_R_BAD_FLAGS;
	else if (memchr_inv(p->reserved, 0, sizeof(p->reserved)))
		*reason = PMUCTL_R_RESERVED_FIELD;
	if (*reason)
		return -EINVAL;
	if (p->nr_events > PMUCTL_MAX_EVENTS) {
		*reason = PMUCTL_R_TOO_MANY_EVENTS;
		*index = PMUCTL_MAX_EVENTS;
		return -E2BIG;
	}
	if (!p->nr_events)
		return -EINVAL;
	if (task && (p->cpus || p->cpus_size)) {
		*reason = PMUCTL_R_BAD_CPU;	/* the thread's CPUs, whichever */
		return -EINVAL;
	}
	if (!task && (!p->cpus_size || p->cpus_size % 8 ||
		      p->cpus_size > PMUCTL_MAX_CPU_BITMAP))
		return -EINVAL;
	return 0;
}

/* Rules of the core that say EACCES rather than EINVAL. */
static int program_errno(int ret, u32 reason)
{
	if (ret == -EINVAL && (reason == PMUCTL_R_UNPRIV_KERNEL_MODE ||
			       reason == PMUCTL_R_UNPRIV_ANY_THREAD))
		return -EACCES;
	return ret;
}

static int program_run(struct pmuctl_session *s, const struct pmuctl_program *p,
		       u32 *reason, u32 *index, u32 *cpu)
{
	int paranoid = READ_ONCE(pmuctl_paranoid);
	bool task = p->flags & PMUCTL_PROGRAM_TASK;
	bool replace = p->flags & PMUCTL_PROGRAM_REPLACE;
	const struct pmuctl_model *model = NULL;
	struct pmuctl_tctx *tctx = NULL, *counted = NULL;
	struct pmuctl_place *place = NULL;
	struct pmuctl_grant *grant;
	struct pmuctl_event *ev;
	cpumask_var_t mask;
	u32 i, policy, n = p->nr_events;
	u64 gen = 0;
	int ret;

	ret = pmuctl_session_policy(s, task, paranoid, &policy, reason);
	if (ret)
		return ret;
	if (!zalloc_cpumask_var(&mask, GFP_KERNEL_ACCOUNT))
		return -ENOMEM;
	/* A replacement keeps the old places there meanwhile. */
	place = kcalloc(replace ? PMUCTL_MAX_EVENTS : n, sizeof(*place),
			GFP_KERNEL_ACCOUNT);
	if (!place) {
		ret = -ENOMEM;
		goto free_mask;
	}
	ev = dup_user(p->events, n * sizeof(*ev));
	if (IS_ERR(ev)) {
		ret = PTR_ERR(ev);
		goto free_place;
	}
	/* The events' outputs are ignored on input: a retry passes them back. */
	for (i = 0; i < n; i++) {
		ev[i].counter = 0;
		ev[i].config_used = 0;
		ev[i].extra_msr = 0;
	}
	ret = task ? 0 : program_cpus(p, mask, reason);
	if (ret)
		goto free_ev;
	/* Allocated here: nothing under the locks below may sleep on memory. */
	ret = pmuctl_grant_alloc(&grant);
	if (ret)
		goto free_ev;
	if (task) {
		tctx = pmuctl_task_alloc(p->flags, n);
		if (!tctx) {
			ret = -ENOMEM;
			goto free_grant;
		}
	}

	if (mutex_lock_killable(&pmuctl_lock)) {
		ret = -EINTR;
		goto free_grant;
	}
	if (replace)
		ret = pmuctl_session_replace(s, mask, ev, n, policy, paranoid,
					     place, reason, index, cpu);
	else
		ret = pmuctl_session_program(s, task, mask, ev, n, policy,
					     &tctx, &grant, paranoid, reason,
					     index, cpu);
	ret = program_errno(ret, *reason);
	if (!ret) {
		gen = s->gen;
		model = s->g.type->model;
		memcpy(place, s->g.place, n * sizeof(*place));
		/* Kept alive by the caller's mon, which only the caller ends. */
		counted = s->task;
	}
	mutex_unlock(&pmuctl_lock);
	if (ret)
		goto free_grant;
	/* Spares for inherited threads: allocated outside the lock. */
	if (counted)
		pmuctl_task_fill(counted);

	for (i = 0; i < n; i++) {
		ev[i].counter = pmuctl_idx_to_counter(place[i].idx);
		ev[i].config_used = place[i].config;
		ev[i].extra_msr = place[i].xreg < 0 ? 0 :
				  model->xregs[place[i].xreg].msr;
	}
	if (copy_to_user(u64_to_user_ptr(p->events), ev, n * sizeof(*ev))) {
		/*
		 * Programmed, but the caller cannot learn where: undo, unless
		 * another thread of the session released it and programmed
		 * again meanwhile.
		 */
		if (!mutex_lock_killable(&pmuctl_lock)) {
			if (s->gen == gen)
				pmuctl_session_release(s);
			mutex_unlock(&pmuctl_lock);
		}
		ret = -EFAULT;
	}
free_grant:
	pmuctl_task_free(tctx);
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
	/*
	 * Every failure says which rule, where and for what event, or
	 * PMUCTL_R_NONE: the outputs of an earlier try never linger.
	 */
	if (ret) {
		p.err_reason = reason;
		p.err_index = index;
		p.err_cpu = cpu;
		if (copy_to_user(uarg, &p, sizeof(p)))
			return -EFAULT;
	}
	return ret;
}

/* Copy in a struct pmuctl_ctl: no flags, reserved fields zero. */
static int ctl_get(struct pmuctl_ctl *c, void __user *uarg)
{
	if (copy_from_user(c, uarg, sizeof(*c)))
		return -EFAULT;
	if (c->flags || c->reserved0 || memchr_inv(c->reserved, 0, sizeof(c->reserved)))
		return -EINVAL;
	return 0;
}

static int pmuctl_ctl(struct pmuctl_session *s, unsigned int cmd,
		      void __user *uarg)
{
	struct pmuctl_ctl c;
	int ret;

	ret = ctl_get(&c, uarg);
	if (ret)
		return ret;

	if (mutex_lock_killable(&pmuctl_lock))
		return -EINTR;
	if (cmd != PMUCTL_IOC_RELEASE)
		ret = pmuctl_session_run(s, cmd);
	else if (!s->g.nr)
		ret = -ENOENT;
	else
		pmuctl_session_release(s);
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
	if ((r.flags & ~PMUCTL_READ_THREAD) || r.reserved0 ||
	    memchr_inv(r.reserved, 0, sizeof(r.reserved)))
		return -EINVAL;
	if (r.cpu >= nr_cpu_ids)
		return -EINVAL;
	cpu = array_index_nospec(r.cpu, nr_cpu_ids);
	/* Outputs are ignored on input. */
	r.nr_threads = 0;
	r.nr_lost = 0;

	if (mutex_lock_killable(&pmuctl_lock))
		return -EINTR;
	n = s->g.nr;
	if (!n)
		ret = -ENOENT;
	else if (r.nr_values < n)
		ret = -EINVAL;
	else if (s->task)
		ret = cpu ? -EINVAL :
		      pmuctl_task_read(s, r.flags & PMUCTL_READ_THREAD, val,
				       &r.nr_threads, &r.nr_lost);
	else if (!cpumask_test_cpu(cpu, s->g.cpus) || r.flags)
		ret = -EINVAL;
	else
		ret = pmuctl_cs_read(&s->g, cpu, val);
	/* The values and the generation they belong to, under one lock. */
	r.generation = s->gen;
	mutex_unlock(&pmuctl_lock);
	if (ret)
		return ret;
	if (copy_to_user(u64_to_user_ptr(r.values), val, n * sizeof(val[0])) ||
	    copy_to_user(uarg, &r, sizeof(r)))
		return -EFAULT;
	return 0;
}

/* Entries PMUCTL_IOC_THREADS fills at most in one call. */
#define PMUCTL_THREADS_MAX	65536

static int pmuctl_threads(struct pmuctl_session *s, void __user *uarg)
{
	struct pmuctl_threads th;
	u32 esz, room, total = 0, dropped = 0, n = 0;
	u8 *buf = NULL;
	int ret = 0;

	if (copy_from_user(&th, uarg, sizeof(th)))
		return -EFAULT;
	if (th.flags || memchr_inv(th.reserved, 0, sizeof(th.reserved)) ||
	    !th.nr_values || th.nr_values > PMUCTL_MAX_EVENTS ||
	    (th.entries_size && !th.entries))
		return -EINVAL;
	esz = struct_size_t(struct pmuctl_thread, values, th.nr_values);
	room = min_t(u32, th.entries_size / esz, PMUCTL_THREADS_MAX);
	if (room) {
		buf = kvcalloc(room, esz, GFP_KERNEL_ACCOUNT);
		if (!buf)
			return -ENOMEM;
	}
	if (mutex_lock_killable(&pmuctl_lock)) {
		ret = -EINTR;
		goto out;
	}
	if (!s->g.nr)
		ret = -ENOENT;
	else if (!s->task || th.nr_values < s->g.nr)
		ret = -EINVAL;
	else
		pmuctl_task_threads(s, buf, room, esz, &n, &total, &dropped);
	th.generation = s->gen;
	mutex_unlock(&pmuctl_lock);
	if (ret)
		goto out;
	th.nr_entries = n;
	th.nr_total = total;
	th.nr_dropped = dropped;
	if ((n && copy_to_user(u64_to_user_ptr(th.entries), buf,
			       (size_t)n * esz)) ||
	    copy_to_user(uarg, &th, sizeof(th)))
		ret = -EFAULT;
out:
	kvfree(buf);
	return ret;
}

/*
 * rdpmc for the calling thread too, a thread of the process that
 * programmed the session: the grant PROGRAM gives its caller.
 */
static int pmuctl_rdpmc(struct pmuctl_session *s, void __user *uarg)
{
	struct pmuctl_grant *grant;
	struct pmuctl_ctl c;
	int ret;

	ret = ctl_get(&c, uarg);
	if (ret)
		return ret;
	ret = pmuctl_grant_alloc(&grant);
	if (ret)
		return ret;
	if (!grant)
		return -EOPNOTSUPP;	/* rdpmc=0: read with PMUCTL_IOC_READ */

	if (mutex_lock_killable(&pmuctl_lock)) {
		ret = -EINTR;
		goto free_grant;
	}
	if (!s->g.nr) {
		ret = -ENOENT;
	} else if (s->task) {
		/* Task scope: the threads it counts, of the same process. */
		ret = pmuctl_task_grant(s, &grant);
	} else if (s->unpriv || !s->mm || s->mm != current->mm) {
		ret = -EPERM;	/* another process: it reads with READ */
	} else if (!pmuctl_grant_held(s)) {
		pmuctl_grant_add(s, grant, false);
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
	case PMUCTL_IOC_THREADS:
		return pmuctl_threads(s, uarg);
	default:
		return -ENOTTY;
	}
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
	s64 waves = atomic64_read(&s->g.waves);
	long ret;

	pmuctl_grant_cleanup();
	pmuctl_task_cleanup();
	ret = pmuctl_cmd(s, cmd, (void __user *)arg);
	pmuctl_grant_cleanup();
	pmuctl_task_cleanup();
	if (ret != -ENOTTY && _IOC_NR(cmd) < PMUCTL_STAT_CLOSE)
		pmuctl_stat(_IOC_NR(cmd), atomic64_read(&s->g.waves) - waves);
	return ret;
}
