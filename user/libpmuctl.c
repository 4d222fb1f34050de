// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libpmuctl: sessions of /dev/pmuctl, events by name, and the emulation of
 * the inline read path where rdpmc does not run on a PMU.  The contract of
 * every function is in libpmuctl.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <ucontext.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#include "events.h"
#include "libpmuctl.h"
#include "open_error.h"
#include "pfm.h"
#include "regions.h"

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

/* CPU bitmap words the module takes at most (PMUCTL_MAX_CPU_BITMAP bytes). */
#define CPU_WORDS	(PMUCTL_MAX_CPU_BITMAP / 8)

struct pmuctl {
	int fd;
	unsigned int flags;		/* PMUCTL_OPEN_* */
	struct pmuctl_info info;
	struct pmuctl_counters ctr;	/* nr 0: no group */
	uint64_t cpus[CPU_WORDS];	/* the group's CPUs */
	int emu_slot;			/* index in emu_tab, -1 if none */
};

/* ---- sessions ----------------------------------------------------------- */

static int info_get(int fd, struct pmuctl_info *info,
		    struct pmuctl_holding *h, unsigned int nr)
{
	memset(info, 0, sizeof(*info));
	if (h && nr) {
		info->holdings = (uint64_t)(uintptr_t)h;
		info->holdings_size = nr * sizeof(*h);
		info->holding_size = sizeof(*h);
	}
	if (ioctl(fd, PMUCTL_IOC_INFO, info))
		return -errno;
	/* The cached copy never points at the caller's memory. */
	info->holdings = 0;
	info->holdings_size = 0;
	return 0;
}

int pmuctl_open(const char *path, unsigned int flags, struct pmuctl **out)
{
	enum open_source src = OPEN_ARG;
	struct pmuctl *p;
	int ret;

	*out = NULL;
	pmuctl_open_record(0, NULL, src, 0);
	if (!path) {
		path = secure_getenv("PMUCTL_DEVICE");
		src = OPEN_ENV;
	}
	if (!path || !*path) {
		path = PMUCTL_DEVICE_PATH;
		src = OPEN_DEFAULT;
	}
	if (flags & ~PMUCTL_OPEN_FLAGS_ALL) {
		pmuctl_open_record(-EINVAL, path, src, flags);
		return -EINVAL;
	}

	p = calloc(1, sizeof(*p));
	if (!p) {
		pmuctl_open_record(-ENOMEM, path, src, flags);
		return -ENOMEM;
	}
	p->flags = flags;
	p->emu_slot = -1;
	p->fd = open(path, O_RDWR | O_CLOEXEC);
	if (p->fd < 0) {
		ret = -errno;
		goto free_p;
	}
	ret = info_get(p->fd, &p->info, NULL, 0);
	if (ret)
		goto close_fd;
	if (p->info.abi_version != PMUCTL_ABI_VERSION) {
		ret = -EPROTO;
		goto close_fd;
	}
	*out = p;
	return 0;

close_fd:
	close(p->fd);
free_p:
	free(p);
	pmuctl_open_record(ret, path, src, flags);
	return ret;
}

int pmuctl_fd(const struct pmuctl *p)
{
	return p->fd;
}

const struct pmuctl_info *pmuctl_get_info(const struct pmuctl *p)
{
	return &p->info;
}

int pmuctl_get_holdings(struct pmuctl *p, struct pmuctl_holding *h,
			unsigned int nr)
{
	struct pmuctl_info info;
	int ret;

	if (!h || !nr)
		return 0;
	if (nr > UINT32_MAX / sizeof(*h))
		nr = UINT32_MAX / sizeof(*h);
	ret = info_get(p->fd, &info, h, nr);
	if (ret)
		return ret;
	return (int)info.holdings_nr;
}

const struct pmuctl_counters *pmuctl_get_counters(const struct pmuctl *p)
{
	return &p->ctr;
}

static int ctl(struct pmuctl *p, unsigned long cmd)
{
	struct pmuctl_ctl c;

	memset(&c, 0, sizeof(c));
	if (ioctl(p->fd, cmd, &c))
		return -errno;
	return 0;
}

int pmuctl_start(struct pmuctl *p)
{
	return ctl(p, PMUCTL_IOC_START);
}

int pmuctl_stop(struct pmuctl *p)
{
	return ctl(p, PMUCTL_IOC_STOP);
}

int pmuctl_reset(struct pmuctl *p)
{
	return ctl(p, PMUCTL_IOC_RESET);
}

static int this_cpu(void)
{
	unsigned int cpu;

	/* The system call, not the vDSO: this also runs in a signal handler. */
	if (syscall(SYS_getcpu, &cpu, NULL, NULL))
		return -errno;
	return (int)cpu;
}

/* PMUCTL_IOC_READ; @r gets what the module said (NULL: not wanted). */
static int read_values(int fd, uint32_t flags, unsigned int cpu,
		       uint64_t *values, unsigned int nr, struct pmuctl_read *out)
{
	struct pmuctl_read r;

	memset(&r, 0, sizeof(r));
	r.flags = flags;
	r.cpu = cpu;
	r.nr_values = nr;
	r.values = (uint64_t)(uintptr_t)values;
	if (ioctl(fd, PMUCTL_IOC_READ, &r))
		return -errno;
	if (out)
		*out = r;
	return 0;
}

static bool is_task(const struct pmuctl *p)
{
	return p->ctr.flags & PMUCTL_COUNTERS_TASK;
}

int pmuctl_read_values_gen(struct pmuctl *p, int cpu, uint64_t *values,
			   unsigned int nr, uint64_t *generation)
{
	struct pmuctl_read r;
	int ret;

	if (is_task(p)) {
		/* The session's totals: the module takes CPU 0 for them. */
		if (cpu != -1 && cpu != 0)
			return -EINVAL;
		cpu = 0;
	} else if (cpu < 0) {
		cpu = this_cpu();
		if (cpu < 0)
			return cpu;
	}
	ret = read_values(p->fd, 0, (unsigned int)cpu, values, nr, &r);
	if (ret)
		return ret;
	if (generation)
		*generation = r.generation;
	return (int)p->ctr.nr;
}

int pmuctl_read_task(struct pmuctl *p, uint64_t *values, unsigned int nr,
		     uint32_t *nr_threads, uint32_t *nr_lost)
{
	struct pmuctl_read r;
	int ret;

	/* A CPU-scope group of this handle: CPU 0 is not its totals. */
	if (p->ctr.nr && !is_task(p))
		return -EINVAL;
	ret = read_values(p->fd, 0, 0, values, nr, &r);
	if (ret)
		return ret;
	if (nr_threads)
		*nr_threads = r.nr_threads;
	if (nr_lost)
		*nr_lost = r.nr_lost;
	return 0;
}

int pmuctl_read_threads(struct pmuctl *p, struct pmuctl_thread *buf,
			size_t size, unsigned int nr_values,
			uint32_t *nr_total, uint32_t *nr_dropped)
{
	struct pmuctl_threads th;

	/* A CPU-scope group of this handle has no threads to report. */
	if ((p->ctr.nr && !is_task(p)) || !nr_values ||
	    nr_values > PMUCTL_MAX_EVENTS || (p->ctr.nr && nr_values < p->ctr.nr))
		return -EINVAL;
	memset(&th, 0, sizeof(th));
	th.nr_values = nr_values;
	th.entries = (uint64_t)(uintptr_t)buf;
	/* The module's field is 32 bits: it fills what fits in that much. */
	th.entries_size = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
	if (ioctl(p->fd, PMUCTL_IOC_THREADS, &th))
		return -errno;
	if (nr_total)
		*nr_total = th.nr_total;
	if (nr_dropped)
		*nr_dropped = th.nr_dropped;
	return (int)th.nr_entries;
}

int pmuctl_read_values(struct pmuctl *p, int cpu, uint64_t *values,
		       unsigned int nr)
{
	return pmuctl_read_values_gen(p, cpu, values, nr, NULL);
}

int pmuctl_get_generation(struct pmuctl *p, uint64_t *generation)
{
	struct pmuctl_info info;
	int ret = info_get(p->fd, &info, NULL, 0);

	if (!ret)
		*generation = info.generation;
	return ret;
}

/* ---- the rdpmc emulation ------------------------------------------------ */

/*
 * Sessions whose counters the handler answers for.  A slot is published
 * with a release store after the session is complete; the handler counts
 * itself in emu_active before it looks at any slot, so emu_withdraw() can
 * wait for every handler that might still use a session it takes away.
 */
#define EMU_SLOTS	64

static struct pmuctl *_Atomic emu_tab[EMU_SLOTS];
static atomic_int emu_active;
static atomic_flag emu_installing = ATOMIC_FLAG_INIT;
static atomic_bool emu_installed;
static struct sigaction emu_old_segv, emu_old_ill;

static bool cpu_in(const uint64_t *bits, unsigned int cpu)
{
	return cpu < CPU_WORDS * 64 && (bits[cpu / 64] >> (cpu % 64) & 1);
}

/*
 * Is this fault an rdpmc of a programmed counter of ours?  Then read it
 * and resume after the instruction.  A #GP in user mode (rdpmc without
 * CR4.PCE) is SIGSEGV with si_code SI_KERNEL; rdpmc that QEMU TCG does
 * not implement is SIGILL.  Only then is RIP known to point at readable
 * code.
 */
static bool emu_rdpmc(int sig, const siginfo_t *si, ucontext_t *uc)
{
	greg_t *gr = uc->uc_mcontext.gregs;
	const unsigned char *ip = (const unsigned char *)gr[REG_RIP];
	uint64_t vals[PMUCTL_MAX_EVENTS];
	uint32_t ecx;
	int cpu;

	if (sig == SIGSEGV && si->si_code != SI_KERNEL)
		return false;
	if (ip[0] != 0x0f || ip[1] != 0x33)
		return false;
	ecx = (uint32_t)gr[REG_RCX];
	cpu = -1;

	for (unsigned int s = 0; s < EMU_SLOTS; s++) {
		struct pmuctl *p = atomic_load_explicit(&emu_tab[s],
							memory_order_acquire);
		bool task;

		if (!p)
			continue;
		/*
		 * A task-scope session's counters follow its threads, not
		 * CPUs: the module reads the calling thread's own values, as
		 * rdpmc would show them (ESRCH: it does not count this
		 * thread; another session may).
		 */
		task = is_task(p);
		if (!task) {
			if (cpu < 0)
				cpu = this_cpu();
			if (cpu < 0)
				return false;
			if (!cpu_in(p->cpus, (unsigned int)cpu))
				continue;
		}
		for (unsigned int i = 0; i < p->ctr.nr; i++) {
			int ret;

			if (p->ctr.ecx[i] != ecx)
				continue;
			if (task)
				ret = read_values(p->fd, PMUCTL_READ_THREAD, 0,
						  vals, PMUCTL_MAX_EVENTS, NULL);
			else
				ret = read_values(p->fd, 0, (unsigned int)cpu,
						  vals, PMUCTL_MAX_EVENTS, NULL);
			if (ret == -ESRCH && task)
				break;
			if (ret)
				return false;
			gr[REG_RAX] = (greg_t)(vals[i] & 0xffffffffU);
			gr[REG_RDX] = (greg_t)(vals[i] >> 32);
			gr[REG_RIP] += 2;
			return true;
		}
	}
	return false;
}

/* Not ours: to the handler that was there before, as if we were not. */
static void emu_chain(int sig, siginfo_t *si, void *uc)
{
	const struct sigaction *old = sig == SIGSEGV ? &emu_old_segv
						     : &emu_old_ill;

	if (old->sa_flags & SA_SIGINFO) {
		old->sa_sigaction(sig, si, uc);
	} else if (old->sa_handler == SIG_DFL || old->sa_handler == SIG_IGN) {
		/*
		 * Re-executing the faulting instruction with the default
		 * action in place ends the process the way it would have
		 * ended without us (a fault cannot be ignored).
		 */
		struct sigaction dfl;

		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		sigaction(sig, &dfl, NULL);
	} else {
		old->sa_handler(sig);
	}
}

static void emu_handler(int sig, siginfo_t *si, void *uc)
{
	int saved_errno = errno;
	bool done;

	atomic_fetch_add(&emu_active, 1);
	done = emu_rdpmc(sig, si, uc);
	atomic_fetch_sub(&emu_active, 1);
	errno = saved_errno;
	if (!done)
		emu_chain(sig, si, uc);
}

/* Install the handlers once per process; they stay (see libpmuctl.h). */
static int emu_install(void)
{
	struct sigaction sa;
	int ret = 0;

	if (atomic_load(&emu_installed))
		return 0;
	while (atomic_flag_test_and_set(&emu_installing))
		sched_yield();
	if (atomic_load(&emu_installed))
		goto out;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = emu_handler;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, &emu_old_segv)) {
		ret = -errno;
		goto out;
	}
	if (sigaction(SIGILL, &sa, &emu_old_ill)) {
		ret = -errno;
		sigaction(SIGSEGV, &emu_old_segv, NULL);
		goto out;
	}
	atomic_store(&emu_installed, true);
out:
	atomic_flag_clear(&emu_installing);
	return ret;
}

static int emu_publish(struct pmuctl *p)
{
	int ret = emu_install();

	if (ret)
		return ret;
	for (int s = 0; s < EMU_SLOTS; s++) {
		struct pmuctl *none = NULL;

		if (atomic_compare_exchange_strong(&emu_tab[s], &none, p)) {
			p->emu_slot = s;
			return 0;
		}
	}
	return -EMFILE;
}

/* After this, no handler uses @p: it may be reprogrammed or freed. */
static void emu_withdraw(struct pmuctl *p)
{
	if (p->emu_slot < 0)
		return;
	atomic_store(&emu_tab[p->emu_slot], NULL);
	p->emu_slot = -1;
	while (atomic_load(&emu_active))
		sched_yield();
}

/* ---- programming -------------------------------------------------------- */

static void err_set(struct pmuctl_error *err, uint32_t reason, uint32_t index,
		    uint32_t cpu)
{
	if (err) {
		err->reason = reason;
		err->index = index;
		err->cpu = cpu;
		err->reserved = 0;
	}
}

/* The group's CPUs as the module's bitmap: @cpus, or the thread's affinity. */
static int cpus_get(uint64_t *bits, const cpu_set_t *cpus, size_t setsize)
{
	const unsigned char *src = (const unsigned char *)cpus;
	unsigned char *dst = (unsigned char *)bits;
	cpu_set_t *aff = NULL;

	memset(bits, 0, CPU_WORDS * 8);
	if (!cpus) {
		setsize = CPU_ALLOC_SIZE(CPU_WORDS * 64);
		aff = CPU_ALLOC(CPU_WORDS * 64);
		if (!aff)
			return -ENOMEM;
		if (sched_getaffinity(0, setsize, aff)) {
			int ret = -errno;

			CPU_FREE(aff);
			return ret;
		}
		src = (const unsigned char *)aff;
	}
	/* CPUs the module cannot name: refuse, as it would. */
	for (size_t b = CPU_WORDS * 8; b < setsize; b++)
		if (src[b]) {
			CPU_FREE(aff);
			return -EINVAL;
		}
	memcpy(dst, src, setsize < CPU_WORDS * 8 ? setsize : CPU_WORDS * 8);
	CPU_FREE(aff);
	return 0;
}

static int program_done(struct pmuctl *p, const struct pmuctl_event *ev,
			unsigned int nr, bool task);

int pmuctl_program(struct pmuctl *p, struct pmuctl_event *ev, unsigned int nr,
		   const cpu_set_t *cpus, size_t setsize,
		   struct pmuctl_error *err)
{
	struct pmuctl_program prog;
	uint64_t bits[CPU_WORDS];
	unsigned int words = 0;
	int ret;

	err_set(err, PMUCTL_R_NONE, UINT32_MAX, UINT32_MAX);
	ret = cpus_get(bits, cpus, setsize);
	if (ret) {
		if (ret == -EINVAL)
			err_set(err, PMUCTL_R_BAD_CPU, UINT32_MAX, UINT32_MAX);
		return ret;
	}
	for (unsigned int w = 0; w < CPU_WORDS; w++)
		if (bits[w])
			words = w + 1;
	if (!words)
		words = 1;	/* no CPU at all: the module says BAD_CPU */

	memset(&prog, 0, sizeof(prog));
	prog.nr_events = nr;
	prog.events = (uint64_t)(uintptr_t)ev;
	prog.cpus = (uint64_t)(uintptr_t)bits;
	prog.cpus_size = words * 8;
	if (ioctl(p->fd, PMUCTL_IOC_PROGRAM, &prog)) {
		ret = -errno;
		err_set(err, prog.err_reason, prog.err_index, prog.err_cpu);
		return ret;
	}
	memcpy(p->cpus, bits, sizeof(bits));
	return program_done(p, ev, nr, false);
}

/* 2^@bits - 1, all ones from 64 bits on. */
static uint64_t width_mask(unsigned int bits)
{
	return bits >= 64 ? UINT64_MAX : (1ULL << bits) - 1;
}

/*
 * After a successful PROGRAM: describe the group for the read path and
 * publish the emulation.  A task-scope counter's rdpmc value is exact in
 * its low pmuctl_info.task_bits bits only (restored at each switch-in, by
 * a legacy 32-bit write where full-width writes are missing), never more
 * than the counter's width.
 */
/* Describe the group @ev (counters filled in) for the read path. */
static void describe(struct pmuctl *p, const struct pmuctl_event *ev,
		     unsigned int nr, bool task)
{
	memset(&p->ctr, 0, sizeof(p->ctr));
	for (unsigned int i = 0; i < nr; i++) {
		bool fixed = ev[i].counter & PMUCTL_COUNTER_FIXED;
		unsigned int w = fixed ? p->info.caps.fixed_width
				       : p->info.caps.gp_width;

		/* PERF_METRICS is eight bytes, not a counter. */
		if (ev[i].counter == PMUCTL_COUNTER_METRICS)
			w = 64;

		if (task && p->info.task_bits && p->info.task_bits < w)
			w = p->info.task_bits;
		p->ctr.ecx[i] = ev[i].counter;
		p->ctr.mask[i] = width_mask(w);
	}
	p->ctr.nr = nr;
	/*
	 * How to read, from the INFO of open: PROGRAM stays one ioctl.  The
	 * emulation is published even where rdpmc should run (it costs
	 * nothing until rdpmc faults), so a policy changed since open (sysfs
	 * rdpmc=0) degrades to the READ path instead of a SIGSEGV.  Task
	 * scope has rdpmc under either grant (PMUCTL_RDPMC_TASK: the
	 * unprivileged one).
	 */
	if (p->info.backend == PMUCTL_BACKEND_MSR &&
	    (task ? p->info.rdpmc != PMUCTL_RDPMC_NONE
		  : p->info.rdpmc == PMUCTL_RDPMC_SESSION))
		p->ctr.flags = PMUCTL_COUNTERS_RDPMC;
	if (task)
		p->ctr.flags |= PMUCTL_COUNTERS_TASK;
}

/* Publish the emulation for the group described: 0 or -EMFILE. */
static int publish(struct pmuctl *p)
{
	int ret;

	if (p->flags & PMUCTL_OPEN_NO_EMULATION)
		return 0;
	ret = emu_publish(p);
	if (ret)
		return ret;
	if (!(p->ctr.flags & PMUCTL_COUNTERS_RDPMC))
		p->ctr.flags |= PMUCTL_COUNTERS_EMULATED;
	return 0;
}

static int program_done(struct pmuctl *p, const struct pmuctl_event *ev,
			unsigned int nr, bool task)
{
	int ret;

	describe(p, ev, nr, task);
	ret = publish(p);
	if (ret)
		pmuctl_release(p);
	return ret;
}

int pmuctl_program_task(struct pmuctl *p, unsigned int flags,
			struct pmuctl_event *ev, unsigned int nr,
			struct pmuctl_error *err)
{
	struct pmuctl_program prog;
	int ret;

	err_set(err, PMUCTL_R_NONE, UINT32_MAX, UINT32_MAX);
	/* TASK is implied; REPLACE is CPU scope's. */
	if (flags & ~(PMUCTL_PROGRAM_TASK | PMUCTL_PROGRAM_INHERIT |
		      PMUCTL_PROGRAM_ENABLE_ON_EXEC)) {
		err_set(err, PMUCTL_R_BAD_FLAGS, UINT32_MAX, UINT32_MAX);
		return -EINVAL;
	}
	memset(&prog, 0, sizeof(prog));
	prog.flags = flags | PMUCTL_PROGRAM_TASK;
	prog.nr_events = nr;
	prog.events = (uint64_t)(uintptr_t)ev;
	if (ioctl(p->fd, PMUCTL_IOC_PROGRAM, &prog)) {
		ret = -errno;
		err_set(err, prog.err_reason, prog.err_index, prog.err_cpu);
		return ret;
	}
	memset(p->cpus, 0, sizeof(p->cpus));
	return program_done(p, ev, nr, true);
}

int pmuctl_program_cpu(struct pmuctl *p, int cpu, struct pmuctl_event *ev,
		       unsigned int nr, struct pmuctl_error *err)
{
	size_t size = CPU_ALLOC_SIZE(CPU_WORDS * 64);
	cpu_set_t *old, *one;
	int ret;

	err_set(err, PMUCTL_R_NONE, UINT32_MAX, UINT32_MAX);
	if (cpu < 0) {
		cpu = this_cpu();
		if (cpu < 0)
			return cpu;
	}
	if (cpu >= CPU_WORDS * 64) {
		err_set(err, PMUCTL_R_BAD_CPU, UINT32_MAX, (uint32_t)cpu);
		return -EINVAL;
	}
	old = CPU_ALLOC(CPU_WORDS * 64);
	one = CPU_ALLOC(CPU_WORDS * 64);
	if (!old || !one) {
		ret = -ENOMEM;
		goto out;
	}
	if (sched_getaffinity(0, size, old)) {
		ret = -errno;
		goto out;
	}
	CPU_ZERO_S(size, one);
	CPU_SET_S((size_t)cpu, size, one);
	if (sched_setaffinity(0, size, one)) {
		ret = -errno;
		goto out;
	}
	ret = pmuctl_program(p, ev, nr, one, size, err);
	if (ret)
		sched_setaffinity(0, size, old);
	else
		ret = cpu;
out:
	CPU_FREE(old);
	CPU_FREE(one);
	return ret;
}

int pmuctl_replace(struct pmuctl *p, struct pmuctl_event *ev,
		   unsigned int nr, struct pmuctl_error *err)
{
	struct pmuctl_program prog;
	unsigned int words = 0;

	err_set(err, PMUCTL_R_NONE, UINT32_MAX, UINT32_MAX);
	for (unsigned int w = 0; w < CPU_WORDS; w++)
		if (p->cpus[w])
			words = w + 1;
	memset(&prog, 0, sizeof(prog));
	prog.flags = PMUCTL_PROGRAM_REPLACE;
	prog.nr_events = nr;
	prog.events = (uint64_t)(uintptr_t)ev;
	/* No CPU-scope group here: the module says which rule. */
	prog.cpus = (uint64_t)(uintptr_t)p->cpus;
	prog.cpus_size = (words ? words : 1) * 8;
	if (ioctl(p->fd, PMUCTL_IOC_PROGRAM, &prog)) {
		int ret = -errno;

		err_set(err, prog.err_reason, prog.err_index, prog.err_cpu);
		return ret;
	}
	/* No handler may read the old description while it changes. */
	emu_withdraw(p);
	return program_done(p, ev, nr, false);
}

/*
 * pmuctl_attach() - a handle on a session file inherited across exec
 * @fd:		the file (taken: pmuctl_close() closes it)
 * @ecx:	the group's counters, @n of them, as the process that
 *		programmed it (task scope) got them
 * @out:	out: the handle
 *
 * For the regions' hand-over (regions.c, pmuctl_regions_env()); not
 * exported.  Return: 0, -EPROTO (another ABI), -ENOMEM, or INFO's -errno.
 */
int pmuctl_attach(int fd, const uint32_t *ecx, unsigned int n,
		  struct pmuctl **out)
{
	struct pmuctl_event ev[PMUCTL_MAX_EVENTS];
	struct pmuctl *p;
	int ret;

	*out = NULL;
	if (!n || n > PMUCTL_MAX_EVENTS)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->emu_slot = -1;
	p->fd = fd;
	ret = info_get(fd, &p->info, NULL, 0);
	if (!ret && p->info.abi_version != PMUCTL_ABI_VERSION)
		ret = -EPROTO;
	if (ret) {
		free(p);
		return ret;
	}
	memset(ev, 0, sizeof(ev));
	for (unsigned int i = 0; i < n; i++)
		ev[i].counter = ecx[i];
	describe(p, ev, n, true);
	/* Never a RELEASE here: the group is the programming process's. */
	ret = publish(p);
	if (ret) {
		free(p);
		return ret;
	}
	*out = p;
	return 0;
}

int pmuctl_rdpmc_thread(struct pmuctl *p)
{
	return ctl(p, PMUCTL_IOC_RDPMC);
}

int pmuctl_release(struct pmuctl *p)
{
	int ret;

	emu_withdraw(p);
	memset(&p->ctr, 0, sizeof(p->ctr));
	memset(p->cpus, 0, sizeof(p->cpus));
	ret = ctl(p, PMUCTL_IOC_RELEASE);
	return ret == -ENOENT ? 0 : ret;
}

void pmuctl_close(struct pmuctl *p)
{
	if (!p)
		return;
	emu_withdraw(p);
	close(p->fd);
	free(p);
}

/* ---- names -------------------------------------------------------------- */

static const struct {
	const char *name;
	const char *pfm;
} models[] = {
	[PMUCTL_MODEL_NONE] = { "none", NULL },
	[PMUCTL_MODEL_ARCH] = { "arch", "ix86arch" },
	[PMUCTL_MODEL_KNL]  = { "knl",  "knl" },
	[PMUCTL_MODEL_KNM]  = { "knm",  "knm" },
	[PMUCTL_MODEL_SKL]  = { "skl",  "skl" },
	[PMUCTL_MODEL_ICL]  = { "icl",  "icl" },
	[PMUCTL_MODEL_ICX]  = { "icx",  "icx" },
	[PMUCTL_MODEL_SPR]  = { "spr",  "spr" },
	/* libpfm4 4.13 has no Granite Rapids, Alder Lake or Sierra Forest table */
	[PMUCTL_MODEL_GNR]  = { "gnr",  "ix86arch" },
	[PMUCTL_MODEL_ADL_GLC] = { "adl_glc", "ix86arch" },
	[PMUCTL_MODEL_ADL_GRT] = { "adl_grt", "ix86arch" },
	[PMUCTL_MODEL_SRF]  = { "srf",  "ix86arch" },
	/* nor Lunar Lake's */
	[PMUCTL_MODEL_LNL_LNC] = { "lnl_lnc", "ix86arch" },
	[PMUCTL_MODEL_LNL_SKT] = { "lnl_skt", "ix86arch" },
};

#ifndef PMUCTL_RELEASE
#error "PMUCTL_RELEASE: the build passes the Makefile's VERSION (mk/lib.mk)"
#endif

const char *pmuctl_version(unsigned int *lib_minor, unsigned int *abi)
{
	if (lib_minor)
		*lib_minor = LIBPMUCTL_VERSION_MINOR;
	if (abi)
		*abi = PMUCTL_ABI_VERSION;
	return PMUCTL_RELEASE;
}

const char *pmuctl_model_name(uint32_t model)
{
	return model < NELEM(models) ? models[model].name : "none";
}

const char *pmuctl_pfm_pmu_name(uint32_t model)
{
	return model < NELEM(models) ? models[model].pfm : NULL;
}

/* Strict hex: digits only (no 0x, no sign), at most 64 bits. */
static int parse_hex(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (!len)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		int d;

		if (s[i] >= '0' && s[i] <= '9')
			d = s[i] - '0';
		else if (s[i] >= 'a' && s[i] <= 'f')
			d = s[i] - 'a' + 10;
		else if (s[i] >= 'A' && s[i] <= 'F')
			d = s[i] - 'A' + 10;
		else
			return -EINVAL;
		if (v >> 60)
			return -EINVAL;
		v = v << 4 | (uint64_t)d;
	}
	*out = v;
	return 0;
}

/*
 * Is @s meant as a raw event?  "r" and a decimal digit always is (no libpfm4
 * name starts so, and "r0x..." must be reported, not looked up); otherwise
 * only when everything up to ':' is hex, so that resource_stalls is a name.
 */
static bool raw_syntax(const char *s)
{
	if (s[0] != 'r' || !s[1])
		return false;
	if (s[1] >= '0' && s[1] <= '9')
		return true;
	for (size_t n = 1; s[n] && s[n] != ':'; n++)
		if (!strchr("0123456789abcdefABCDEF", s[n]))
			return false;
	return true;
}

int pmuctl_raw_event(const char *str, uint64_t *config, uint64_t *extra)
{
	const char *colon = strchr(str + 1, ':');
	size_t clen = colon ? (size_t)(colon - str - 1) : strlen(str + 1);
	int ret;

	*config = 0;
	*extra = 0;
	if (!raw_syntax(str))
		return 1;
	ret = parse_hex(str + 1, clen, config);
	if (!ret && colon)
		ret = parse_hex(colon + 1, strlen(colon + 1), extra);
	return ret;
}

static void msg_set(char *msg, size_t msglen, const char *fmt, const char *s)
{
	if (msg && msglen)
		snprintf(msg, msglen, fmt, s);
}

/*
 * perf's generic hardware event names (PERF_COUNT_HW_*), encoded as Linux
 * 6.12 encodes them on Intel (arch/x86/events/intel/core.c,
 * intel_perfmon_event_map), with perf's aliases cpu-cycles and
 * branch-instructions.  No model pmuctl drives has another encoding for
 * them, but for ref-cycles: intel_pmu_ref_cycles_ext(), which
 * intel_pmu_init_glc() and intel_pmu_init_grt() call (Sapphire and
 * Granite Rapids, Alder Lake's both cores, Sierra Forest), makes it
 * 0x013c where CPUID enumerates the architectural reference-cycles event.
 * Linux drops the names whose architectural event CPUID.0AH:EBX marks
 * unavailable (intel_arch_events_quirk()); pmuctl's module refuses those
 * encodings then (EVENT_UNAVAILABLE).  The stall names (stalled-cycles-*)
 * Linux maps on Nehalem to Ivy Bridge only, none of pmuctl's models.
 */
static const struct {
	const char *name;
	uint16_t code;		/* umask << 8 | event select */
} generic_events[] = {
	{ "cycles",              0x003c },
	{ "cpu-cycles",          0x003c },
	{ "instructions",        0x00c0 },
	{ "cache-references",    0x4f2e },
	{ "cache-misses",        0x412e },
	{ "branches",            0x00c4 },
	{ "branch-instructions", 0x00c4 },
	{ "branch-misses",       0x00c5 },
	{ "bus-cycles",          0x013c },
	{ "ref-cycles",          0x0300 },	/* fixed counter 2's pseudo encoding */
};

/* Linux 6.12's ref-cycles 0x013c models (generic_events[]). */
static bool ref_cycles_013c(uint32_t model)
{
	switch (model) {
	case PMUCTL_MODEL_SPR:
	case PMUCTL_MODEL_GNR:
	case PMUCTL_MODEL_ADL_GLC:
	case PMUCTL_MODEL_ADL_GRT:
	case PMUCTL_MODEL_SRF:
	case PMUCTL_MODEL_LNL_LNC:
	case PMUCTL_MODEL_LNL_SKT:
		return true;
	default:
		return false;
	}
}

/*
 * "NAME[:u][:k]" with NAME one of generic_events[]: 1 and @ev when it is
 * not one; 0 and @ev set; -ENOENT for another modifier (@msg says so).
 */
static int generic_event(uint32_t model, const char *s, struct pmuctl_event *ev,
			 char *msg, size_t msglen)
{
	const char *colon = strchr(s, ':');
	size_t len = colon ? (size_t)(colon - s) : strlen(s);
	uint64_t priv = 0;
	size_t i;

	for (i = 0; i < NELEM(generic_events); i++)
		if (strlen(generic_events[i].name) == len &&
		    !strncmp(generic_events[i].name, s, len))
			break;
	if (i == NELEM(generic_events))
		return 1;
	for (const char *m = colon; m; m = strchr(m + 1, ':')) {
		if (!strncmp(m, ":u", 2) && (m[2] == ':' || !m[2])) {
			priv |= PMUCTL_CFG_USR;
		} else if (!strncmp(m, ":k", 2) && (m[2] == ':' || !m[2])) {
			priv |= PMUCTL_CFG_OS;
		} else {
			if (msg && msglen)
				snprintf(msg, msglen, "perf's name '%.*s' takes the modifiers u and k only ('%.*s:u', '%.*s:k'): for '%s' use the PMU's own name of the event ('pmuctl list')",
					 (int)len, s, (int)len, s, (int)len, s, s);
			return -ENOENT;
		}
	}
	ev->config = generic_events[i].code;
	if (!strcmp(generic_events[i].name, "ref-cycles") && ref_cycles_013c(model))
		ev->config = 0x013c;
	ev->config |= priv ? priv : PMUCTL_CFG_USR | PMUCTL_CFG_OS;
	return 0;
}

/* The libpfm4 PMU pmuctl_pfm_encode() resolves with; "" for the host's. */
static char pfm_current[32];
static bool pfm_ready;

static int pfm_select(const char *pmu)
{
	const char *want = pmu ? pmu : "";
	int ret;

	if (pfm_ready && !strcmp(pfm_current, want))
		return 0;
	if (strlen(want) >= sizeof(pfm_current))
		return -ENODEV;
	pfm_ready = false;
	ret = pmuctl_pfm_init(pmu);
	if (ret)
		return ret == -ENOENT ? -ENODEV : ret;
	strcpy(pfm_current, want);
	pfm_ready = true;
	return 0;
}

/* The model whose events libpfm4 PMU @pfm names, PMUCTL_MODEL_NONE if none. */
static uint32_t pfm_model(const char *pfm)
{
	if (!pfm)
		return PMUCTL_MODEL_NONE;
	if (!strcmp(pfm, "ix86arch"))
		return PMUCTL_MODEL_ARCH;
	for (uint32_t m = 0; m < NELEM(models); m++)
		if (models[m].pfm && !strcmp(models[m].pfm, pfm) &&
		    !strcmp(models[m].name, pfm))
			return m;
	return PMUCTL_MODEL_NONE;
}

/*
 * A name libpfm4 did not know (-ENOENT): where it is spelled as Intel
 * spells names (EVENT.UMASK) and @l is the model's list, say so with the
 * list's closest names.
 */
static void intel_unknown(const struct pmuctl_ilist *l, const char *str,
			  char *msg, size_t msglen)
{
	size_t len = strcspn(str, ":");
	char near[256];

	if (!l || !msg || !msglen)
		return;
	pmuctl_intel_suggest(l, str, len, near, sizeof(near));
	if (memchr(str, '.', len))
		snprintf(msg, msglen, "unknown event '%.*s': not in Intel's %s list (%s)%s%s",
			 (int)len, str, l->name, l->source,
			 near[0] ? "; did you mean " : "", near);
	else if (near[0] && strlen(msg) + strlen(near) + 40 < msglen)
		snprintf(msg + strlen(msg), msglen - strlen(msg),
			 "; Intel's %s list has %s", l->name, near);
}

/*
 * The one resolver: raw, then perf's generic names, then Intel's names
 * from list @l (NULL: none), then libpfm4's names (with pfm.c's
 * corrections).  @model says what the generic names are, @pmu the libpfm4
 * PMU (NULL: the host's); @host_model: the model comes from the host's
 * libpfm4 PMU, known once it is selected (and with it the list).
 */
static int resolve(uint32_t model, bool host_model, const char *pmu,
		   const struct pmuctl_ilist *l, const char *str,
		   struct pmuctl_event *ev, char *msg, size_t msglen)
{
	uint64_t config = 0, extra = 0;
	int ret;

	memset(ev, 0, sizeof(*ev));
	if (msg && msglen)
		msg[0] = '\0';
	if (!str || !*str) {
		msg_set(msg, msglen, "%s", "empty event");
		return -EINVAL;
	}
	ret = pmuctl_raw_event(str, &config, &extra);
	if (ret <= 0) {
		ev->config = config;
		ev->extra = extra;
		if (ret)
			msg_set(msg, msglen,
				"bad raw event '%s': expected r<config>[:<extra>], hex digits only, at most 64 bits each",
				str);
		return ret;
	}

	if (!host_model && model != PMUCTL_MODEL_NONE) {
		ret = generic_event(model, str, ev, msg, msglen);
		if (ret <= 0)
			return ret;
		ret = pmuctl_intel_resolve(l, str, ev, msg, msglen);
		if (ret <= 0)
			return ret;
	}
	ret = pfm_select(pmu);
	if (ret) {
		if (msg && msglen && ret == -EBUSY)
			snprintf(msg, msglen, "libpfm4 cannot switch to PMU '%s' in this process: it has left ix86arch or the host's PMU once; use one process per PMU",
				 pmu ? pmu : "(this host)");
		else if (msg && msglen)
			snprintf(msg, msglen, "libpfm4 cannot name events of PMU '%s'",
				 pmu ? pmu : "(this host)");
		return ret;
	}
	if (host_model) {
		model = pfm_model(pmuctl_pfm_name());
		ret = generic_event(model, str, ev, msg, msglen);
		if (ret <= 0)
			return ret;
		l = pmuctl_ilist_of(model, true);
		ret = pmuctl_intel_resolve(l, str, ev, msg, msglen);
		if (ret <= 0)
			return ret;
	}
	ret = pmuctl_pfm_encode(str, &config, &extra, msg, msglen);
	if (ret == -ENOENT)
		intel_unknown(l, str, msg, msglen);
	if (ret < 0)
		return ret;
	ev->config = config;
	ev->extra = extra;
	return ret == PMUCTL_PFM_REFUSED ? PMUCTL_PARSE_LITERAL : 0;
}

int pmuctl_event_resolve(uint32_t model, const char *str,
			 struct pmuctl_event *ev, char *msg, size_t msglen)
{
	const char *pmu = pmuctl_pfm_pmu_name(model);

	/* a model this library does not know: the host's PMU names events */
	return resolve(model, !pmu, pmu, pmuctl_ilist_of(model, true), str,
		       ev, msg, msglen);
}

int pmuctl_event_resolve_list(uint32_t model, const char *list,
			      const char *str, struct pmuctl_event *ev,
			      char *msg, size_t msglen)
{
	const char *pmu = pmuctl_pfm_pmu_name(model);
	const struct pmuctl_ilist *l = pmuctl_ilist_find(list), *own;

	if (!list)
		return pmuctl_event_resolve(model, str, ev, msg, msglen);
	memset(ev, 0, sizeof(*ev));
	own = pmuctl_ilist_of(model, false);
	if (!pmu || !l || !own || pmuctl_ilist_model(l) != pmuctl_ilist_model(own)) {
		if (msg && msglen)
			snprintf(msg, msglen, "Intel's list '%s' is not one of model %s's",
				 list, pmuctl_model_name(model));
		return -ENODEV;
	}
	return resolve(model, false, pmu, l, str, ev, msg, msglen);
}

const char *pmuctl_event_list(uint32_t model)
{
	const struct pmuctl_ilist *l = pmuctl_ilist_of(model, true);

	return l ? l->name : NULL;
}

int pmuctl_event_parse(const char *pmu, const char *str,
		       struct pmuctl_event *ev, char *msg, size_t msglen)
{
	uint32_t model = pfm_model(pmu);

	return resolve(model, !pmu, pmu, pmuctl_ilist_of(model, false), str,
		       ev, msg, msglen);
}

int pmuctl_events_parse(const char *pmu, const char *list,
			struct pmuctl_event *ev, unsigned int max,
			unsigned int *bad, char *msg, size_t msglen)
{
	unsigned int n = 0;
	const char *s = list;
	char one[512];

	if (msg && msglen)
		msg[0] = '\0';
	if (bad)
		*bad = 0;
	for (;;) {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);
		int ret;

		if (bad)
			*bad = n;
		if (!len) {
			msg_set(msg, msglen, "%s", "empty event in the list");
			return -EINVAL;
		}
		if (len >= sizeof(one)) {
			msg_set(msg, msglen, "%s", "event string too long");
			return -EINVAL;
		}
		if (n == max) {
			msg_set(msg, msglen, "%s", "too many events");
			return -E2BIG;
		}
		memcpy(one, s, len);
		one[len] = '\0';
		ret = pmuctl_event_parse(pmu, one, &ev[n], msg, msglen);
		if (ret < 0)
			return ret;
		n++;
		if (!comma)
			break;
		s = comma + 1;
	}
	if (msg && msglen)
		msg[0] = '\0';
	return (int)n;
}

char *pmuctl_strerror(int ret, const struct pmuctl_error *err, char *buf,
		      size_t len)
{
	char where[48] = "";
	int n;

	if (!len)
		return buf;
	if (!err || err->reason == PMUCTL_R_NONE) {
		if (!pmuctl_open_explain(ret < 0 ? ret : -ret, buf, len))
			snprintf(buf, len, "%s", strerror(ret < 0 ? -ret : ret));
		return buf;
	}
	if (err->cpu != UINT32_MAX)
		snprintf(where, sizeof(where), " (CPU %u)", err->cpu);
	n = 0;
	if (err->index != UINT32_MAX)
		n = snprintf(buf, len, "event %u: ", err->index);
	if (n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "%s: %s%s",
			 pmuctl_reason_name(err->reason),
			 pmuctl_reason_text(err->reason), where);
	return buf;
}
