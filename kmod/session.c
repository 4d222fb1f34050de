// SPDX-License-Identifier: GPL-2.0
/*
 * Sessions: an open /dev/pmuctl and the one group it may hold.  Who may
 * open and count (paranoid, the per-user limits), which scope a PROGRAM
 * goes to (CPU scope: wave.c; task scope: task.c), the rdpmc grant of the
 * programming thread (grant.c), and the release that gives it all back.
 * ioctl.c copies the commands in and out around these.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/hashtable.h>
#include <linux/idr.h>
#include <linux/slab.h>

#include "pmuctl.h"

static DEFINE_IDA(session_ids);
/* Users with unprivileged sessions, by uid; pmuctl_lock. */
static DEFINE_HASHTABLE(session_users, 6);

/* Count an unprivileged session against its user.  pmuctl_lock held. */
static int user_attach(struct pmuctl_session *s, int paranoid)
{
	kuid_t uid = current_uid();
	u32 max = READ_ONCE(pmuctl_user_max_sessions);
	struct pmuctl_user *u;

	hash_for_each_possible(session_users, u, node, __kuid_val(uid))
		if (uid_eq(u->uid, uid))
			goto found;
	u = kzalloc(sizeof(*u), GFP_KERNEL_ACCOUNT);
	if (!u)
		return -ENOMEM;
	u->uid = uid;
	INIT_LIST_HEAD(&u->sessions);
	hash_add(session_users, &u->node, __kuid_val(uid));
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

/**
 * pmuctl_session_open() - a new session
 * @priv:	opened with CAP_PERFMON or CAP_SYS_ADMIN
 * @paranoid:	the module parameter paranoid, as read once at open
 *
 * Context: process, no locks.
 * Return: the session, or ERR_PTR(-ENOMEM / -EMFILE / -EINTR).
 */
struct pmuctl_session *pmuctl_session_open(bool priv, int paranoid)
{
	struct pmuctl_session *s;
	int id, ret = -ENOMEM;

	s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);
	if (!s)
		return ERR_PTR(-ENOMEM);
	if (!zalloc_cpumask_var(&s->g.cpus, GFP_KERNEL_ACCOUNT))
		goto free_session;
	if (!zalloc_cpumask_var(&s->g.wave_cpus, GFP_KERNEL_ACCOUNT))
		goto free_cpus;
	if (!zalloc_cpumask_var(&s->revoke_cpus, GFP_KERNEL_ACCOUNT))
		goto free_wave_cpus;
	id = ida_alloc_min(&session_ids, 1, GFP_KERNEL);
	if (id < 0)
		goto free_revoke_cpus;
	s->g.id = id;
	s->unpriv = !priv;
	INIT_LIST_HEAD(&s->user_node);
	INIT_LIST_HEAD(&s->grants);
	if (s->unpriv) {
		if (mutex_lock_killable(&pmuctl_lock)) {
			ret = -EINTR;
			goto free_id;
		}
		ret = user_attach(s, paranoid);
		mutex_unlock(&pmuctl_lock);
		if (ret)
			goto free_id;
	}
	return s;

free_id:
	ida_free(&session_ids, s->g.id);
free_revoke_cpus:
	free_cpumask_var(s->revoke_cpus);
free_wave_cpus:
	free_cpumask_var(s->g.wave_cpus);
free_cpus:
	free_cpumask_var(s->g.cpus);
free_session:
	kfree(s);
	return ERR_PTR(ret);
}

/**
 * pmuctl_session_release() - give back everything the session holds
 * @s:		the session
 *
 * Its rdpmc grants are revoked in the release's wave (grant.c).
 * Context: pmuctl_lock held.  Never fails.
 */
void pmuctl_session_release(struct pmuctl_session *s)
{
	bool revoke;

	if (!s->g.nr)
		return;
	if (s->task) {
		pmuctl_task_release(s);
		return;
	}
	revoke = pmuctl_grant_revoke_prepare(s, s->revoke_cpus);
	pmuctl_cs_release(&s->g, revoke ? s->revoke_cpus : NULL);
	pmuctl_grant_revoke_finish(s);
}

/**
 * pmuctl_session_close() - the last close of a session's file
 * @s:		the session; freed
 *
 * Counted in debugfs "stats" as "close", with the waves its release made.
 * Context: process, no locks.  Waits for pmuctl_lock unkillably: the
 * release must happen.
 */
void pmuctl_session_close(struct pmuctl_session *s)
{
	s64 waves = atomic64_read(&s->g.waves);

	mutex_lock(&pmuctl_lock);
	pmuctl_session_release(s);
	user_detach(s);
	mutex_unlock(&pmuctl_lock);
	pmuctl_grant_cleanup();
	pmuctl_task_cleanup();
	pmuctl_stats_close(atomic64_read(&s->g.waves) - waves);
	ida_free(&session_ids, s->g.id);
	free_cpumask_var(s->revoke_cpus);
	free_cpumask_var(s->g.wave_cpus);
	free_cpumask_var(s->g.cpus);
	kfree(s);
}

/**
 * pmuctl_session_policy() - may the session count so, and with which rules?
 * @s:		the session
 * @task:	task scope, or CPU scope
 * @paranoid:	the module parameter, as read once for this request
 * @policy:	out: PMUCTL_POLICY_* for the events
 * @reason:	on failure, PMUCTL_R_*
 *
 * May the session count CPU-wide, and with which event rules?  As perf at
 * the same kernel.perf_event_paranoid level (perf_allow_cpu()): privileged
 * sessions always; unprivileged ones only at paranoid <= 0, and then with
 * the privileged rules, kernel mode and AnyThread included (perf gates
 * AnyThread with perf_allow_cpu() too: at <= 0 the sibling thread can be
 * counted CPU-wide anyway).  Their own threads (task scope) as perf's
 * self-monitoring: user mode only at 2 (perf_allow_kernel()), kernel mode
 * too at 1, AnyThread only at <= 0.
 * Return: 0 or -EACCES (PMUCTL_R_UNPRIV_CPU_SCOPE).
 */
int pmuctl_session_policy(const struct pmuctl_session *s, bool task,
			  int paranoid, u32 *policy, u32 *reason)
{
	*policy = 0;
	if (!s->unpriv || paranoid <= 0)
		return 0;
	if (!task) {
		*reason = PMUCTL_R_UNPRIV_CPU_SCOPE;
		return -EACCES;
	}
	*policy = paranoid >= 2 ? PMUCTL_POLICY_UNPRIV : PMUCTL_POLICY_NO_ANY;
	return 0;
}

/*
 * An unprivileged user holds at most user_max_counters counters on any one
 * CPU, over all its sessions (none at paranoid -1).  pmuctl_lock held.
 */
static int program_user_limit(const struct pmuctl_session *s,
			      const struct cpumask *mask, u32 n, int paranoid,
			      u32 *reason, u32 *cpu)
{
	u32 max = READ_ONCE(pmuctl_user_max_counters), c;
	const struct pmuctl_session *o;

	if (!s->user || !max || paranoid < 0)
		return 0;
	for_each_cpu(c, mask) {
		u32 held = n;

		/* The session's own group counts not: it is being replaced. */
		list_for_each_entry(o, &s->user->sessions, user_node)
			if (o != s && o->g.nr && cpumask_test_cpu(c, o->g.cpus))
				held += o->g.nr;
		if (held > max) {
			*reason = PMUCTL_R_USER_LIMIT;
			*cpu = c;
			return -EDQUOT;
		}
	}
	return 0;
}

/**
 * pmuctl_session_program() - place and program a group for the session
 * @s:		the session
 * @task:	task scope (PMUCTL_PROGRAM_TASK): count the calling thread
 * @cpus:	CPU scope: the CPUs
 * @ev:		the events, copied in
 * @n:		their number
 * @policy:	from pmuctl_session_policy()
 * @tctx:	task scope: from pmuctl_task_alloc(); taken (set to NULL)
 * @grant:	rdpmc for the caller (pmuctl_grant_alloc()), or NULL; taken
 *		(set to NULL) when given
 * @paranoid:	the module parameter, as read once for this request
 * @reason:	on failure, PMUCTL_R_*
 * @index:	on failure, the event
 * @cpu:	on failure, the CPU, or U32_MAX
 *
 * On success s->g.place says where each event went and s->gen moved on.
 * rdpmc goes to the programming thread, never for an unprivileged
 * CPU-scope session: rdpmc reads every counter of the CPU, other
 * sessions' too.
 * Context: pmuctl_lock held.
 * Return: 0 or -errno; on failure nothing changed.
 */
int pmuctl_session_program(struct pmuctl_session *s, bool task,
			   const struct cpumask *cpus,
			   const struct pmuctl_event *ev, u32 n, u32 policy,
			   struct pmuctl_tctx **tctx, struct pmuctl_grant **grant,
			   int paranoid, u32 *reason, u32 *index, u32 *cpu)
{
	int ret;

	*cpu = U32_MAX;
	if (s->g.nr) {
		*reason = PMUCTL_R_ALREADY_PROGRAMMED;
		return -EBUSY;
	}
	s->g.policy = policy;
	if (task) {
		ret = pmuctl_task_program(s, *tctx, ev, n, grant, reason,
					  index, cpu);
		if (!ret)
			*tctx = NULL;
	} else {
		ret = program_user_limit(s, cpus, n, paranoid, reason, cpu);
		if (!ret)
			ret = pmuctl_cs_program(&s->g, cpus, ev, n, reason,
						index, cpu);
		if (!ret && !s->unpriv) {
			pmuctl_grant_add(s, *grant, false);
			*grant = NULL;
		}
	}
	if (!ret)
		s->gen++;
	return ret;
}

/**
 * pmuctl_session_replace() - put another group in the session's place
 * @s:		the session, holding a CPU-scope group
 * @cpus:	the CPUs of the request: the group's
 * @ev:		the events, copied in
 * @n:		their number
 * @policy:	from pmuctl_session_policy()
 * @paranoid:	the module parameter, as read once for this request
 * @old:	scratch room for PMUCTL_MAX_EVENTS places
 * @reason:	on failure, PMUCTL_R_*
 * @index:	on failure, the event
 * @cpu:	on failure, the CPU, or U32_MAX
 *
 * PMUCTL_PROGRAM_REPLACE: RELEASE and PROGRAM in one wave, the group's
 * running state kept (pmuctl_cs_replace()).
 * Context: pmuctl_lock held.
 * Return: 0 or -errno; on failure nothing changed.
 */
int pmuctl_session_replace(struct pmuctl_session *s,
			   const struct cpumask *cpus,
			   const struct pmuctl_event *ev, u32 n, u32 policy,
			   int paranoid, struct pmuctl_place *old, u32 *reason,
			   u32 *index, u32 *cpu)
{
	int ret;

	*cpu = U32_MAX;
	if (!s->g.nr) {
		*reason = PMUCTL_R_NOT_PROGRAMMED;
		return -ENOENT;
	}
	if (s->task || !cpumask_equal(cpus, s->g.cpus)) {
		*reason = PMUCTL_R_REPLACE_SCOPE;
		return -EINVAL;
	}
	ret = program_user_limit(s, cpus, n, paranoid, reason, cpu);
	if (!ret)
		ret = pmuctl_cs_replace(&s->g, policy, ev, n, old, reason,
					index, cpu);
	if (!ret)
		s->gen++;
	return ret;
}

/**
 * pmuctl_session_run() - START, STOP or RESET the session's group
 * @s:		the session
 * @cmd:	PMUCTL_IOC_START, _STOP or _RESET
 *
 * Context: pmuctl_lock held.
 * Return: 0; -ENOENT when it holds no group; -EIO when a register write
 * faulted (then nothing changed, but a RESET may have zeroed some CPUs).
 */
int pmuctl_session_run(struct pmuctl_session *s, unsigned int cmd)
{
	if (!s->g.nr)
		return -ENOENT;
	switch (cmd) {
	case PMUCTL_IOC_START:
		return s->task ? pmuctl_task_run(s, true, false) :
				 pmuctl_cs_start(&s->g);
	case PMUCTL_IOC_STOP:
		return s->task ? pmuctl_task_run(s, false, false) :
				 pmuctl_cs_stop(&s->g);
	default:
		/* Even a faulted RESET may have zeroed some CPUs' counters. */
		s->gen++;
		return s->task ? pmuctl_task_run(s, false, true) :
				 pmuctl_cs_reset(&s->g);
	}
}
