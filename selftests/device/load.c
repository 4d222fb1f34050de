// SPDX-License-Identifier: GPL-2.0
/*
 * The random session load of stress_test and hotplug_test; see load.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "load.h"

unsigned long long load_seed(void)
{
	const char *s = getenv("PMUCTL_SEED");

	return s && *s ? strtoull(s, NULL, 0) : LOAD_SEED;
}

__u64 load_rand(__u64 *state)
{
	__u64 x = *state ? *state : LOAD_SEED;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

static unsigned int pick(__u64 *rs, unsigned int n)
{
	return load_rand(rs) % n;
}

/* "0-1", "0,2-3" as a one-word bitmap (CPUs 0..63). */
static __u64 cpulist_mask(const char *path)
{
	char *s = slurp(path), *p;
	__u64 mask = 0;

	if (!s)
		return 0;
	for (p = s; *p >= '0' && *p <= '9';) {
		unsigned long a = strtoul(p, &p, 10), b = a;

		if (*p == '-')
			b = strtoul(p + 1, &p, 10);
		for (; a <= b && a < 64; a++)
			mask |= 1ULL << a;
		if (*p != ',')
			break;
		p++;
	}
	free(s);
	return mask;
}

int load_env_init(struct load_env *env, int fd)
{
	int ret;

	memset(env, 0, sizeof(*env));
	ret = dev_info(fd, &env->info);
	if (ret)
		return ret;
	env->model = pmuctl_model_by_id(env->info.pmu_model);
	env->cpus = cpulist_mask("/sys/devices/system/cpu/online");
	return env->model && env->cpus ? 0 : -ENODEV;
}

/* Values of each extra MSR kind: few, so that workers share and collide. */
static __u64 extra_value(const struct pmuctl_model *m, unsigned int x, __u64 *rs)
{
	/* request bits with ANY_RESPONSE [PFM: intel_{knl,skl}_events.h] */
	static const __u64 rsp[] = { 0x10001, 0x10002, 0x10003 };
	static const __u64 fe[] = { 0x11, 0x12, 0x13 };	/* FRONTEND_RETIRED.* */
	static const __u64 ldlat[] = { 3, 16, 128 };	/* latency thresholds */
	const struct pmuctl_xreg *xr = &m->xregs[x];

	switch (xr->kind) {
	case PMUCTL_XK_FRONTEND:
		return fe[pick(rs, 3)] & xr->valid;
	case PMUCTL_XK_LDLAT:
		return ldlat[pick(rs, 3)] & xr->valid;
	default:
		return rsp[pick(rs, 3)] & xr->valid;
	}
}

/* One random event; the core decides whether it may join the group. */
static struct pmuctl_event rand_event(const struct load_env *env, __u64 *rs)
{
	/* SDM vol. 3B table "UMask and Event Select Encodings for Pre-Defined
	 * Architectural Performance Events", plus REF_TSC's pseudo encoding. */
	static const __u16 fixed[] = { 0x00c0, 0x003c, 0x0300 };
	static const __u16 arch[] = { 0x013c, 0x4f2e, 0x412e, 0x00c4, 0x00c5 };
	const struct pmuctl_model *m = env->model;
	struct pmuctl_event e = { 0 };
	__u64 r = load_rand(rs);
	unsigned int kind = pick(rs, 10);

	if (kind >= 7 && !m->nr_xregs)
		kind = pick(rs, 7);
	if (kind < 3) {
		e.config = fixed[pick(rs, 3)];
	} else if (kind < 6) {
		e.config = arch[pick(rs, 5)];
	} else if (kind == 6) {
		e.config = load_rand(rs) & 0xffff;
	} else {
		unsigned int x = pick(rs, m->nr_xregs);

		e.config = m->xregs[x].code;
		e.extra = extra_value(m, x, rs);
	}
	e.config |= (r & 1 ? PMUCTL_CFG_USR : 0) | (r & 2 ? PMUCTL_CFG_OS : 0);
	if (!(r & 3))
		e.config |= PMUCTL_CFG_USR;
	if ((r >> 2) % 8 == 0)
		e.config |= PMUCTL_CFG_INV | (__u64)(1 + (r >> 5) % 3) << PMUCTL_CFG_CMASK_SHIFT;
	else if ((r >> 2) % 8 == 1)
		e.config |= PMUCTL_CFG_EDGE | 1ULL << PMUCTL_CFG_CMASK_SHIFT;
	if ((r >> 8) % 8 == 0)
		e.config |= PMUCTL_CFG_ANY;
	if ((r >> 11) % 6 == 0)
		e.flags = PMUCTL_EVENT_GENERIC_ONLY;
	return e;
}

static bool group_fits(const struct load_env *env, const struct pmuctl_event *ev,
		       __u32 n)
{
	struct pmuctl_place place[PMUCTL_MAX_EVENTS];
	struct pmuctl_view v;
	__u32 reason, index;

	pmuctl_view_init(&v);
	return !pmuctl_group_schedule(env->model, &env->info.caps, 0, &v, ev, n,
				      place, &reason, &index);
}

__u32 load_group(const struct load_env *env, __u64 *rs, struct pmuctl_event *ev)
{
	const struct pmuctl_caps *c = &env->info.caps;
	__u32 want = 1 + pick(rs, c->nr_gp + __builtin_popcount(c->fixed_mask));
	__u32 n = 0, tries;

	for (tries = 0; n < want && (tries < 8 * want || !n); tries++) {
		ev[n] = rand_event(env, rs);
		if (group_fits(env, ev, n + 1))
			n++;
	}
	return n;
}

__u64 load_cpus(const struct load_env *env, __u64 *rs)
{
	__u64 m;

	do
		m = load_rand(rs) & env->cpus;
	while (!m);
	return m;
}

static bool busy_reason(__u32 r)
{
	switch (r) {
	case PMUCTL_R_COUNTERS_BUSY:
	case PMUCTL_R_OFFCORE_RSP0_BUSY:
	case PMUCTL_R_OFFCORE_RSP1_BUSY:
	case PMUCTL_R_OFFCORE_BOTH_BUSY:
	case PMUCTL_R_FRONTEND_BUSY:
	case PMUCTL_R_LDLAT_BUSY:
		return true;
	}
	return false;
}

static bool bad(struct load_stats *st, const char *fmt, ...)
{
	va_list ap;

	if (!st->bad++) {
		va_start(ap, fmt);
		vsnprintf(st->msg, sizeof(st->msg), fmt, ap);
		va_end(ap);
	}
	return false;
}

/* READ of every CPU of @cpus; ENODEV only where hotplug may have struck. */
static bool read_all(const struct load_env *env, int fd, __u64 cpus, __u32 n,
		     struct load_stats *st)
{
	__u64 val[PMUCTL_MAX_EVENTS];
	int cpu, ret;

	for (cpu = 0; cpu < 64; cpu++) {
		if (!(cpus & 1ULL << cpu))
			continue;
		ret = dev_read(fd, cpu, val, n);
		st->reads++;
		if (ret == -ENODEV && env->offline_ok) {
			st->enodev++;
			continue;
		}
		if (ret == -ENODEV && !cpu_online(cpu))
			return bad(st, "READ cpu %d: ENODEV, but nobody took it offline", cpu);
		if (ret)
			return bad(st, "READ cpu %d of %#llx: %s", cpu,
				   (unsigned long long)cpus, strerror(-ret));
	}
	return true;
}

/*
 * A second process holding the same session and reading it while the
 * first one goes on: the session may be released, reprogrammed elsewhere
 * or its CPU gone (ENOENT, EINVAL, ENODEV), nothing else.
 */
static void sharer(int fd, __u64 cpus, __u32 n, __u64 seed,
		   struct load_stats *st)
{
	__u64 val[PMUCTL_MAX_EVENTS], rs = seed;
	int i, ret;

	for (i = 0; i < 20; i++) {
		ret = dev_read(fd, __builtin_ctzll(cpus), val, n);
		if (ret && ret != -ENOENT && ret != -EINVAL && ret != -ENODEV) {
			bad(st, "READ from a second process: %s", strerror(-ret));
			_exit(1);
		}
		if (!pick(&rs, 4))
			usleep(pick(&rs, 2000));
	}
	_exit(0);
}

bool load_session(const struct load_env *env, __u64 *rs, struct load_stats *st)
{
	struct pmuctl_event ev[PMUCTL_MAX_EVENTS];
	struct pmuctl_program p;
	unsigned int cycles = 1 + pick(rs, 3), c, i;
	bool ok = true;
	int fd, ret;

	fd = dev_open();
	if (fd < 0)
		return bad(st, "open: %s", strerror(-fd));
	st->opens++;
	for (c = 0; ok && c < cycles; c++) {
		__u64 cpus = load_cpus(env, rs);
		__u32 n = load_group(env, rs, ev);

		if (!pick(rs, 8)) {
			struct pmuctl_info info;

			ret = dev_info(fd, &info);
			if (ret) {
				ok = bad(st, "INFO: %s", strerror(-ret));
				break;
			}
		}
		ret = dev_program(fd, ev, n, cpus, &p);
		if (ret == -EBUSY && busy_reason(p.err_reason)) {
			st->busy++;
			continue;
		}
		if (ret) {
			ok = bad(st, "PROGRAM of %u events (first %#llx) on %#llx: %s, reason %u index %u",
				 n, (unsigned long long)ev[0].config,
				 (unsigned long long)cpus, strerror(-ret),
				 p.err_reason, p.err_index);
			break;
		}
		st->programs++;
		st->holding = true;
		for (i = 0; i < n; i++)
			if (ev[i].counter == PMUCTL_COUNTER_NONE)
				ok = bad(st, "PROGRAM: event %u got no counter", i);
		ret = dev_ctl(fd, PMUCTL_IOC_START);
		if (ret)
			ok = bad(st, "START: %s", strerror(-ret));
		if (env->share && !pick(rs, 8)) {
			pid_t pid;

			fflush(NULL);
			pid = fork();
			if (!pid)
				sharer(fd, cpus, n, load_rand(rs), st);
		}
		if (ok)
			ok = read_all(env, fd, cpus, n, st);
		if (ok && !pick(rs, 3)) {
			ret = dev_ctl(fd, PMUCTL_IOC_RESET);
			if (ret)
				ok = bad(st, "RESET: %s", strerror(-ret));
		}
		ret = dev_ctl(fd, PMUCTL_IOC_STOP);
		if (ok && ret)
			ok = bad(st, "STOP: %s", strerror(-ret));
		/* The last group may go with the close instead of RELEASE. */
		if (c + 1 == cycles && pick(rs, 2))
			break;
		ret = dev_ctl(fd, PMUCTL_IOC_RELEASE);
		if (ok && ret)
			ok = bad(st, "RELEASE: %s", strerror(-ret));
		st->holding = false;
	}
	close(fd);
	st->holding = false;
	return ok;
}

struct load_stats *load_stats_alloc(unsigned int n)
{
	void *p = mmap(NULL, n * sizeof(struct load_stats),
		       PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void load_stats_free(struct load_stats *st, unsigned int n)
{
	munmap(st, n * sizeof(*st));
}

void load_stats_sum(const struct load_stats *st, unsigned int n,
		    struct load_stats *sum)
{
	unsigned int i;

	memset(sum, 0, sizeof(*sum));
	for (i = 0; i < n; i++) {
		sum->opens += st[i].opens;
		sum->programs += st[i].programs;
		sum->busy += st[i].busy;
		sum->reads += st[i].reads;
		sum->enodev += st[i].enodev;
		sum->kills += st[i].kills;
		if (st[i].bad && !sum->bad)
			snprintf(sum->msg, sizeof(sum->msg), "worker %u: %s", i,
				 st[i].msg);
		sum->bad += st[i].bad;
	}
}

static void __attribute__((noreturn))
worker(const struct load_env *env, unsigned int rounds, __u64 seed,
       struct load_stats *st)
{
	unsigned int r;

	if (env->pin) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(__builtin_ctzll(load_cpus(env, &seed)), &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	/* Sharers reap themselves; orphaned ones go to a subreaper. */
	if (env->share)
		signal(SIGCHLD, SIG_IGN);
	for (r = 0; !rounds || r < rounds ||
		    __atomic_load_n(&st->more, __ATOMIC_RELAXED); r++)
		if (!load_session(env, &seed, st))
			_exit(1);
	_exit(0);
}

int load_spawn(const struct load_env *env, unsigned int n, unsigned int rounds,
	       unsigned long long seed, struct load_stats *st, pid_t *pids)
{
	unsigned int i;

	fflush(NULL);
	for (i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			return -errno;
		if (!pids[i])
			worker(env, rounds, seed + i, &st[i]);
	}
	return 0;
}

unsigned int load_wait(pid_t *pids, unsigned int n)
{
	unsigned int i, failed = 0;
	int status;

	for (i = 0; i < n; i++) {
		if (pids[i] <= 0)
			continue;
		while (waitpid(pids[i], &status, 0) < 0 && errno == EINTR)
			;
		failed += !WIFEXITED(status) || WEXITSTATUS(status);
		pids[i] = 0;
	}
	return failed;
}

static bool control_msr(const struct load_env *env, __u32 msr)
{
	const struct pmuctl_model *m = env->model;
	unsigned int i;

	if (msr >= MSR_EVTSEL(0) && msr < MSR_EVTSEL(env->info.caps.nr_gp + 0U))
		return true;
	if (msr == MSR_FIXED_CTRL || msr == MSR_GLOBAL_CTRL)
		return true;
	for (i = 0; i < m->nr_xregs; i++)
		if (msr == m->xregs[i].msr)
			return true;
	return false;
}

const char *load_unclean(const struct load_env *env, unsigned int ms)
{
	static struct pstate st;
	static struct pregs rg;
	static char msg[200];
	unsigned int t, i;
	int err;

	for (t = 0;; t += 10) {
		err = state_read(&st);
		if (err) {
			snprintf(msg, sizeof(msg), "state: %s", strerror(-err));
			return msg;
		}
		if (!st.programmed && !st.perf_reserved && !st.nown && !st.nx)
			break;
		if (t >= ms) {
			if (st.nown)
				snprintf(msg, sizeof(msg), "programmed %u, perf_reserved %u; cpu %u counter %#x owner %u",
					 st.programmed, st.perf_reserved, st.own[0].cpu,
					 st.own[0].counter, st.own[0].owner);
			else if (st.nx)
				snprintf(msg, sizeof(msg), "programmed %u, perf_reserved %u; cpu %u msr %#x refcount %u",
					 st.programmed, st.perf_reserved, st.x[0].cpu,
					 st.x[0].msr, st.x[0].refcount);
			else
				snprintf(msg, sizeof(msg), "programmed %u, perf_reserved %u",
					 st.programmed, st.perf_reserved);
			return msg;
		}
		usleep(10000);
	}
	if (!have_regs())
		return NULL;
	err = regs_read(&rg);
	if (err) {
		snprintf(msg, sizeof(msg), "regs: %s", strerror(-err));
		return msg;
	}
	for (i = 0; i < rg.n; i++) {
		if (rg.r[i].val && control_msr(env, rg.r[i].msr)) {
			snprintf(msg, sizeof(msg), "regs: cpu %u msr %#x is %#llx, not 0",
				 rg.r[i].cpu, rg.r[i].msr,
				 (unsigned long long)rg.r[i].val);
			return msg;
		}
	}
	return NULL;
}
