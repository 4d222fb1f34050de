/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libpmuctl: program the Intel core PMU through /dev/pmuctl (pmuctl.ko),
 * by libpfm4 event name or raw config, and read the counters with a bare
 * rdpmc.  See libpmuctl(3).
 *
 * Conventions:
 *  - every function that can fail returns 0 (or a count) on success and a
 *    negative errno value on failure; none relies on errno;
 *  - a refusal by the module's rules also fills a struct pmuctl_error naming
 *    the rule (PMUCTL_R_*), the event and the CPU;
 *  - a handle (struct pmuctl) is one session of the module; use it from one
 *    thread at a time.  The name functions use libpfm4, which keeps global
 *    state: call them from one thread at a time.
 *
 * The read path (pmuctl_read_counter(), pmuctl_read_counters() and their
 * _serialized forms) is static inline below: rdpmc with the counter numbers
 * of the PROGRAM reply, no call, no branch, no syscall.  Where the module
 * does not grant rdpmc on a real PMU (sysfs rdpmc=0, an unprivileged policy,
 * or the test register model), the library emulates the same instructions:
 * see PMUCTL_OPEN_NO_EMULATION.
 */
#ifndef LIBPMUCTL_H
#define LIBPMUCTL_H

#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/pmuctl.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LIBPMUCTL_VERSION_MAJOR	1
#define LIBPMUCTL_VERSION_MINOR	6

/* The device, unless the environment's PMUCTL_DEVICE names another. */
#define PMUCTL_DEVICE_PATH	"/dev/pmuctl"

/* One session of the module; opaque. */
struct pmuctl;

/**
 * struct pmuctl_error - why the module (or the library) refused a request
 * @reason:	PMUCTL_R_* naming the rule, PMUCTL_R_NONE when the failure is
 *		not a rule (then only the return value tells).
 * @index:	the event that broke the rule, or UINT32_MAX.
 * @cpu:	the CPU where it was refused, or UINT32_MAX.
 * @reserved:	zero.
 */
struct pmuctl_error {
	uint32_t reason;
	uint32_t index;
	uint32_t cpu;
	uint32_t reserved;
};

/*
 * struct pmuctl_counters - what the inline read path needs, filled in by a
 * successful pmuctl_program*() and cleared by pmuctl_release().  Read-only
 * for callers; the layout is part of the library's ABI.
 * @ecx:	per event, the rdpmc counter number (PMUCTL_COUNTER_FIXED | i
 *		for fixed counter i), in the order the events were given.
 * @mask:	per event, 2^width - 1 of its counter: deltas wrap there
 *		(all ones for a topdown metric: see pmuctl_topdown_slots()).  For
 *		task scope, 2^task_bits - 1 when pmuctl_info.task_bits is
 *		below the counter's width (32 where the CPU lacks full-width
 *		writes: rdpmc then shows the thread's count modulo 2^32).
 * @nr:		events programmed.
 * @flags:	PMUCTL_COUNTERS_*.
 * @reserved:	zero.
 */
struct pmuctl_counters {
	uint32_t ecx[PMUCTL_MAX_EVENTS];
	uint64_t mask[PMUCTL_MAX_EVENTS];
	uint32_t nr;
	uint32_t flags;
	uint64_t reserved[3];
};

/* rdpmc executes on the PMU: the module granted it and the backend is real. */
#define PMUCTL_COUNTERS_RDPMC		(1U << 0)
/* rdpmc is emulated through PMUCTL_IOC_READ (see pmuctl_open()). */
#define PMUCTL_COUNTERS_EMULATED	(1U << 1)
/* A task-scope group (pmuctl_program_task()): it counts threads, not CPUs. */
#define PMUCTL_COUNTERS_TASK		(1U << 2)

/* pmuctl_open() flags */
/*
 * Never install the rdpmc emulation: when rdpmc is not usable, the read
 * path faults (SIGSEGV, or SIGILL under QEMU TCG) as a bare rdpmc would,
 * and only pmuctl_read_values() reads the counters.
 */
#define PMUCTL_OPEN_NO_EMULATION	(1U << 0)
#define PMUCTL_OPEN_FLAGS_ALL		PMUCTL_OPEN_NO_EMULATION

/* pmuctl_event_parse() and pmuctl_events_parse(): libpfm4 refused the
 * string; the event is pmuctl's literal composition of its names and the
 * module's rules will judge it (the message says what libpfm4 said). */
#define PMUCTL_PARSE_LITERAL	1

/**
 * pmuctl_open() - open a session of the module
 * @path:	the device, or NULL for $PMUCTL_DEVICE or else /dev/pmuctl.
 * @flags:	PMUCTL_OPEN_*.
 * @out:	out: the handle, on success.
 *
 * Opens the device (O_CLOEXEC) and asks for its INFO, which
 * pmuctl_get_info() returns from then on.
 *
 * rdpmc: the first successful program installs, once per process, SIGSEGV
 * and SIGILL handlers that recognize an rdpmc (0f 33) of the read path
 * on a CPU of a programmed session of this process, read that counter with
 * PMUCTL_IOC_READ and resume after the instruction; any other fault goes
 * to the handler that was installed before (or the default action).  The
 * inline read path is then the same code, only slower (a fault and an
 * ioctl per counter) where the module does not grant rdpmc or its counts
 * come from the test register model (pmuctl_get_info()->rdpmc,
 * ->backend; pmuctl_get_counters()->flags says which way a group is
 * read).  Where rdpmc runs, the handlers cost nothing.
 * PMUCTL_OPEN_NO_EMULATION opts out.
 *
 * Return: 0; -EINVAL for unknown @flags; -ENOENT when the device does not
 * exist (the module is not loaded); -EACCES, -EPERM when the caller may not
 * open it (device permissions; the module admits users without
 * CAP_PERFMON only with paranoid <= 2); -EMFILE when this user (without
 * CAP_PERFMON) has user_max_sessions sessions open; -EPROTO for a module of another
 * ABI version; -ENOMEM; another -errno from open(2) or the INFO ioctl.
 * pmuctl_strerror(ret, NULL, ...) then says why and what to do, as the
 * pmuctl tool does.
 */
int pmuctl_open(const char *path, unsigned int flags, struct pmuctl **out);

/**
 * pmuctl_close() - end the session
 * @p:	a handle, or NULL.
 *
 * Releases the group (the module frees the counters), withdraws the
 * emulation of its counters and frees @p.
 */
void pmuctl_close(struct pmuctl *p);

/**
 * pmuctl_fd() - the session's file descriptor
 * @p:	the handle.
 *
 * Return: the descriptor, for poll-free ioctls of one's own; owned by @p.
 */
int pmuctl_fd(const struct pmuctl *p);

/**
 * pmuctl_get_info() - what the module and the PMU offer
 * @p:	the handle.
 *
 * Return: the INFO read at open (holdings not included); owned by @p.
 */
const struct pmuctl_info *pmuctl_get_info(const struct pmuctl *p);

/**
 * pmuctl_get_holdings() - who holds which counters, now
 * @p:	the handle.
 * @h:	out: one entry per possible CPU, in CPU order, as many as fit.
 * @nr:	room in @h.
 *
 * Return: the number of entries written (at most @nr); -errno.
 */
int pmuctl_get_holdings(struct pmuctl *p, struct pmuctl_holding *h,
			unsigned int nr);

/**
 * pmuctl_program() - claim counters for a group of events on CPUs
 * @p:		the handle; must not hold a group (pmuctl_release() first).
 * @ev:		in/out: the events (config, extra, flags; the output fields
 *		are ignored, so a refused array is retried as it is).  On
 *		success the module fills in each event's counter,
 *		config_used (which differs from config when the event moved
 *		to the other OFFCORE_RSP register) and extra_msr.
 * @nr:		1..PMUCTL_MAX_EVENTS.
 * @cpus:	the CPUs, or NULL for every CPU the calling thread may run on
 *		(sched_getaffinity(2)).
 * @setsize:	size of @cpus in bytes, as for sched_setaffinity(2).
 * @err:	out: why it was refused, or NULL.
 *
 * The group is placed identically on every CPU, stopped and zeroed; all or
 * nothing.  Then pmuctl_get_counters() describes it for the read path.
 * One ioctl: how to read (rdpmc or its emulation) follows the INFO of
 * pmuctl_open(); the emulation is published in both cases (unless
 * PMUCTL_OPEN_NO_EMULATION), so a read where rdpmc is not granted (the
 * module parameter rdpmc=0 since open; another thread that did not call
 * pmuctl_rdpmc_thread()) falls back to READ instead of faulting.  rdpmc
 * is granted to the calling thread only: see pmuctl_rdpmc_thread().
 *
 * Return: 0; -EINVAL (@err names the rule, e.g. PMUCTL_R_EDGE_NO_CMASK);
 * -EBUSY (counters or an extra MSR held by another session or by perf:
 * PMUCTL_R_COUNTERS_BUSY, PMUCTL_R_PERF_BUSY, ...); -E2BIG; -EACCES (an
 * unprivileged session while the module's paranoid level is 1 or more:
 * PMUCTL_R_UNPRIV_CPU_SCOPE); -EDQUOT (this user, unprivileged, would hold
 * more than user_max_counters counters on a CPU: PMUCTL_R_USER_LIMIT);
 * -EIO (a register write faulted; nothing changed);
 * -EMFILE (more than 64 sessions of this process use the emulation: the
 * group was released); -ENOMEM.
 */
int pmuctl_program(struct pmuctl *p, struct pmuctl_event *ev, unsigned int nr,
		   const cpu_set_t *cpus, size_t setsize,
		   struct pmuctl_error *err);

/**
 * pmuctl_program_task() - claim counters that count the calling thread
 * @p:		the handle; must not hold a group (pmuctl_release() first).
 * @flags:	PMUCTL_PROGRAM_INHERIT: the threads and processes the thread
 *		creates from now on are counted too, and their counts are
 *		added to the session's totals when they exit;
 *		PMUCTL_PROGRAM_ENABLE_ON_EXEC: counting starts at the thread's
 *		next execve(2) (a tool counting a command programs in the
 *		child, between fork and exec, on a session the parent shares,
 *		and the parent reads the totals with pmuctl_read_task()).
 *		The library adds PMUCTL_PROGRAM_TASK (which may be given too).
 * @ev, @nr, @err: as for pmuctl_program().
 *
 * Task scope (struct pmuctl_program in linux/pmuctl.h): the group counts
 * the calling thread only while it runs, on whichever CPU, at the
 * privilege levels of each event; it gets the same counter on every CPU,
 * so pmuctl_read_counter() is one rdpmc wherever the thread runs, and its
 * deltas are exact across preemption and migration.  Without
 * PMUCTL_PROGRAM_ENABLE_ON_EXEC the group is stopped and zeroed:
 * pmuctl_start() starts it.  pmuctl_get_counters() then has
 * PMUCTL_COUNTERS_TASK; PMUCTL_COUNTERS_RDPMC where the module grants
 * rdpmc (pmuctl_get_info()->rdpmc is not PMUCTL_RDPMC_NONE; unprivileged
 * sessions get PMUCTL_RDPMC_TASK) and the backend is the PMU; each mask is
 * 2^task_bits - 1 (pmuctl_delta() is exact for spans below 2^32 events
 * where task_bits is 32).  Where rdpmc faults (not granted, or a CPU-scope
 * session holds counters on the CPU the thread runs on), the emulation
 * reads the calling thread's own values as rdpmc shows them
 * (PMUCTL_READ_THREAD).  With PMUCTL_PROGRAM_INHERIT, a thread the
 * target creates in its process is counted and reads its own counts with
 * rdpmc once it calls pmuctl_rdpmc_thread() (before that, through the
 * emulation).
 *
 * Return: 0; -EINVAL for other @flags (@err: PMUCTL_R_BAD_FLAGS, no
 * ioctl made) or a rule (@err names it); -EBUSY (PMUCTL_R_TASK_BUSY: the
 * thread is counted by a task-scope session already; counters or an
 * extra MSR held by a CPU-scope session or perf: PMUCTL_R_COUNTERS_BUSY,
 * err_cpu UINT32_MAX, ...); -EACCES (unprivileged at paranoid 2 asking
 * for kernel mode: PMUCTL_R_UNPRIV_KERNEL_MODE; AnyThread above 0:
 * PMUCTL_R_UNPRIV_ANY_THREAD); otherwise as pmuctl_program().
 */
int pmuctl_program_task(struct pmuctl *p, unsigned int flags,
			struct pmuctl_event *ev, unsigned int nr,
			struct pmuctl_error *err);

/**
 * pmuctl_program_cpu() - pin the calling thread to a CPU and program it
 * @p:		the handle.
 * @cpu:	the CPU, or -1 for the one the thread runs on now.
 * @ev, @nr, @err: as for pmuctl_program().
 *
 * Sets the calling thread's affinity to @cpu alone (restoring the old one
 * if programming fails), then programs the group on @cpu: the usual set-up
 * of a microbenchmark that reads its own counters with rdpmc.
 *
 * Return: the CPU (>= 0); -errno as pmuctl_program(), or from
 * sched_setaffinity(2) (-EINVAL for a CPU the thread may not use).
 */
int pmuctl_program_cpu(struct pmuctl *p, int cpu, struct pmuctl_event *ev,
		       unsigned int nr, struct pmuctl_error *err);

/**
 * pmuctl_replace() - put another group in place of the one held, at once
 * @p:		the handle, holding a CPU-scope group (pmuctl_program*()).
 * @ev:		in/out: the new events, as for pmuctl_program().
 * @nr:		1..PMUCTL_MAX_EVENTS.
 * @err:	out: why it was refused, or NULL.
 *
 * One ioctl and one cross-CPU wave (PMUCTL_PROGRAM_REPLACE): on the
 * group's CPUs the old counters stop and are given back, the new events
 * are placed as if they were free (so a full group is replaced by another
 * full one) and start zeroed, counting at once if the old group was
 * started.  What a tool that rotates the sub-groups of a long event list
 * calls at each interval.  pmuctl_get_counters() then describes the new
 * group; another thread that reads with rdpmc must not read across the
 * call (its counter numbers change), as for pmuctl_release().
 *
 * Return: 0; -ENOENT (no group: PMUCTL_R_NOT_PROGRAMMED); -EINVAL (a rule
 * of an event, as pmuctl_program(); a task-scope group:
 * PMUCTL_R_REPLACE_SCOPE); -EBUSY, -E2BIG, -EDQUOT, -EIO as
 * pmuctl_program().  On failure the old group is as it was, counting and
 * with its counts.
 */
int pmuctl_replace(struct pmuctl *p, struct pmuctl_event *ev,
		   unsigned int nr, struct pmuctl_error *err);

/**
 * pmuctl_start() - count
 * pmuctl_stop() - stop counting, values kept
 * pmuctl_reset() - zero the counters, counting or not
 * pmuctl_release() - give the counters back (the handle stays open)
 * @p:	the handle.
 *
 * On every CPU of the group, in one ioctl each.
 *
 * Return: 0; -ENOENT when the session holds no group (release: 0); -errno.
 */
int pmuctl_start(struct pmuctl *p);
int pmuctl_stop(struct pmuctl *p);
int pmuctl_reset(struct pmuctl *p);
int pmuctl_release(struct pmuctl *p);

/**
 * pmuctl_rdpmc_thread() - let the calling thread rdpmc the group too
 * @p:	the handle, holding a group programmed by this process.
 *
 * PROGRAM grants rdpmc to the thread that programmed; each other thread of
 * the process that reads with rdpmc asks once with this call (one ioctl,
 * PMUCTL_IOC_RDPMC).  The grant ends with the group (pmuctl_release(),
 * pmuctl_close()) or when the thread execs; forked children never have it.
 * A thread without it still reads through the emulation (unless
 * PMUCTL_OPEN_NO_EMULATION), at the cost of an ioctl per read.
 *
 * Task scope: the thread must be one the group counts (PMUCTL_PROGRAM_
 * INHERIT, created in this process after the program); it then reads its
 * own counts.
 *
 * Return: 0, also when the thread holds the grant already; -ENOENT without
 * a group; -EPERM when another process programmed the group (it reads
 * with pmuctl_read_values() or the emulation), or a task-scope group does
 * not count the calling thread; -EOPNOTSUPP when the
 * module grants no rdpmc (pmuctl_get_info()->rdpmc is PMUCTL_RDPMC_NONE);
 * -errno.
 */
int pmuctl_rdpmc_thread(struct pmuctl *p);

/**
 * pmuctl_read_values() - read the counters through the module
 * @p:		the handle.
 * @cpu:	a CPU of the group; -1 for the one the thread runs on now.
 * @values:	out: raw counter values, in event order.
 * @nr:		room in @values, at least the group's event count.
 *
 * The PMUCTL_IOC_READ path: any CPU of the group, from any CPU; needs no
 * rdpmc.  Raw values are as wide as the counter: use pmuctl_delta().
 *
 * A task-scope group this handle programmed (pmuctl_program_task()) has
 * no CPUs: @cpu must be -1 or 0, and the values are the session's 64-bit
 * totals over every thread it counts and has counted (no mask needed), as
 * pmuctl_read_task() returns them.
 *
 * Return: the number of values (the group's event count); -ENOENT without
 * a group; -EINVAL for a CPU outside it (task scope: other than -1 and 0)
 * or too small @nr; -ENODEV when the CPU is offline; -errno.
 */
int pmuctl_read_values(struct pmuctl *p, int cpu, uint64_t *values,
		       unsigned int nr);

/**
 * pmuctl_read_task() - the totals of a task-scope session
 * @p:		a handle of the session: the one that programmed it, or any
 *		that shares its file (a parent that forked the child which
 *		called pmuctl_program_task() on the inherited descriptor).
 * @values:	out: the session's totals, 64 bits each, in event order:
 *		every thread it counts (read on their CPUs) and every thread
 *		it counted that has exited.
 * @nr:		room in @values, at least the group's event count.
 * @nr_threads:	out: threads counted now (0 once they all exited), or NULL.
 * @nr_lost:	out: threads created under PMUCTL_PROGRAM_INHERIT that are
 *		not counted (the module's task_max_threads reached, or no
 *		memory): the totals miss their counts.  May be NULL.
 *
 * One PMUCTL_IOC_READ, from any thread or process holding the file.
 *
 * Return: 0 (the group's event count is what the programmer knows: this
 * handle may not have programmed it); -ENOENT without a group; -EINVAL
 * for too small @nr, or when this handle programmed a CPU-scope group
 * (pmuctl_read_values() reads those); -errno.
 */
int pmuctl_read_task(struct pmuctl *p, uint64_t *values, unsigned int nr,
		     uint32_t *nr_threads, uint32_t *nr_lost);

/* Bytes of one entry of pmuctl_read_threads()'s buffer: a struct
 * pmuctl_thread and its @nr_values 64-bit values. */
#define PMUCTL_THREAD_SIZE(nr_values) \
	(sizeof(struct pmuctl_thread) + (size_t)(nr_values) * sizeof(uint64_t))

/**
 * pmuctl_read_threads() - a task-scope session's counts per thread
 * @p:		a handle of the session, as for pmuctl_read_task().
 * @buf:	out: the entries, PMUCTL_THREAD_SIZE(@nr_values) bytes each
 *		(pmuctl_thread_at() steps through them): the threads counted
 *		now, in the order they were first counted, then those no
 *		longer counted (flags PMUCTL_THREAD_EXITED: exited, or
 *		detached by a set-user-ID exec), in the order they stopped.
 *		NULL with @size 0 asks for @nr_total alone.
 * @size:	@buf's size in bytes (the module looks at UINT32_MAX of it
 *		at most, and fills 65536 entries at most per call).
 * @nr_values:	values per entry, at least the group's event count and at
 *		most PMUCTL_MAX_EVENTS; the values past the group's events
 *		are 0.
 * @nr_total:	out: the entries the session has, or NULL: more than were
 *		written when @buf was too small (ask again with room for
 *		this many; threads may come and go in between).
 * @nr_dropped:	out: threads no longer counted whose entry the module did
 *		not keep (more than its task_max_threads of them, or no
 *		memory): their counts are in pmuctl_read_task()'s totals
 *		only.  May be NULL.
 *
 * One PMUCTL_IOC_THREADS, from any thread or process holding the file.
 * The entries add up to the totals, but for @nr_dropped threads and for
 * threads created while they were read.  pmuctl_reset() forgets the
 * entries of the threads no longer counted.  tid and tgid are those of
 * the caller's pid namespace, 0 where the thread is not visible there.
 *
 * Return: the entries written (>= 0); -ENOENT without a group; -EINVAL
 * for @nr_values out of range or below the group's event count, for
 * @buf NULL with @size not 0, or for a CPU-scope session (this handle's
 * own: no ioctl made); -ENOTTY from a module without PMUCTL_IOC_THREADS;
 * -errno.
 */
int pmuctl_read_threads(struct pmuctl *p, struct pmuctl_thread *buf,
			size_t size, unsigned int nr_values,
			uint32_t *nr_total, uint32_t *nr_dropped);

/**
 * pmuctl_thread_at() - entry @i of pmuctl_read_threads()'s buffer
 * @buf:	the buffer.
 * @nr_values:	the @nr_values it was read with.
 * @i:		the entry, below the count pmuctl_read_threads() returned.
 */
static inline struct pmuctl_thread *
pmuctl_thread_at(struct pmuctl_thread *buf, unsigned int nr_values, size_t i)
{
	return (struct pmuctl_thread *)((char *)buf +
					i * PMUCTL_THREAD_SIZE(nr_values));
}

/**
 * pmuctl_read_values_gen() - read the counters and their generation
 * @p, @cpu, @values, @nr: as for pmuctl_read_values().
 * @generation:	out: the session's generation when the values were read
 *		(struct pmuctl_read.generation), or NULL.
 *
 * The generation grows by every PROGRAM and RESET of the session: two
 * reads whose generations differ do not make a delta.
 *
 * Return: as pmuctl_read_values().
 */
int pmuctl_read_values_gen(struct pmuctl *p, int cpu, uint64_t *values,
			   unsigned int nr, uint64_t *generation);

/**
 * pmuctl_get_generation() - the session's generation, now
 * @p:		the handle.
 * @generation:	out: pmuctl_info.generation from a fresh INFO (the copy
 *		pmuctl_get_info() returns is the one read at open).
 *
 * Lets an rdpmc reader check, before and after a measurement, that its
 * counters were not reset or reprogrammed in between.
 *
 * Return: 0; -errno from the INFO ioctl.
 */
int pmuctl_get_generation(struct pmuctl *p, uint64_t *generation);

/**
 * pmuctl_get_counters() - the read path's description of the group
 * @p:	the handle.
 *
 * Return: the counters (nr 0 without a group); owned by @p, valid until
 * pmuctl_close(), updated by program and release.
 */
const struct pmuctl_counters *pmuctl_get_counters(const struct pmuctl *p);

/**
 * pmuctl_version() - the release and the interfaces of this libpmuctl
 * @lib_minor:	NULL, or where to store the minor version of the library's
 *		interface, the LIBPMUCTL_VERSION_MINOR it was built with (the
 *		major is the soname's, LIBPMUCTL_VERSION_MAJOR): a program
 *		built against a newer header may check it at run time.
 * @abi:	NULL, or where to store the module ABI the library speaks,
 *		PMUCTL_ABI_VERSION: pmuctl_open() refuses a module of another
 *		(-EPROTO); pmuctl_get_info()->abi_version is the open module's.
 *
 * Needs no device and no session.
 *
 * Return: the pmuctl release the library comes from, "MAJOR.MINOR.PATCH",
 * the upstream version of its Debian packages; never NULL.
 */
const char *pmuctl_version(unsigned int *lib_minor, unsigned int *abi);

/**
 * pmuctl_model_name() - short name of a PMUCTL_MODEL_*
 * @model:	pmuctl_info.pmu_model.
 *
 * Return: the name ``pmuctl --pmu`` takes, from the library's one model
 * table ("knl", "skl", "icx", "adl_glc", ...; every PMUCTL_MODEL_* has
 * one, listed in pmuctl_model_name(3)), or "none" for PMUCTL_MODEL_NONE
 * and for a value this library does not know.
 */
const char *pmuctl_model_name(uint32_t model);

/**
 * pmuctl_pfm_pmu_name() - the libpfm4 PMU that names a model's events
 * @model:	pmuctl_info.pmu_model.
 *
 * Return: "knl", "knm", "skl", "ix86arch"; NULL for PMUCTL_MODEL_NONE.
 */
const char *pmuctl_pfm_pmu_name(uint32_t model);

/**
 * pmuctl_event_resolve() - one event by name or raw config, for a model
 * @model:	pmuctl_info.pmu_model (PMUCTL_MODEL_*): its libpfm4 PMU
 *		(pmuctl_pfm_pmu_name()) names the events, on any host; for
 *		PMUCTL_MODEL_NONE or a model this library does not know, the
 *		host's PMU does, as for pmuctl_event_parse(NULL, ...).
 * @str:	one of, tried in this order:
 *		- "r<config>[:<extra>]" in hex, without EN and INT (e.g.
 *		  "r300c0", "r301b7:10001");
 *		- perf's generic name, with ":u" and/or ":k": cycles
 *		  (cpu-cycles) 0x003c, instructions 0x00c0, ref-cycles
 *		  0x0300 (0x013c on spr, gnr, adl_glc, adl_grt, srf),
 *		  branches (branch-instructions) 0x00c4, branch-misses
 *		  0x00c5, bus-cycles 0x013c, cache-references 0x4f2e,
 *		  cache-misses 0x412e, as Linux 6.12 encodes them on these
 *		  models; every model has all of them (the module refuses
 *		  one whose architectural event CPUID marks unavailable);
 *		- Intel's name of an event of the model's list
 *		  (pmuctl_event_list(): events/intel/LIST.events, facts from
 *		  Intel's perfmon JSON), "EVENT.UMASK" as perf and Intel's
 *		  documents spell it, case-insensitive, e.g.
 *		  "mem_load_retired.l3_miss", "ocr.demand_data_rd.l3_miss"
 *		  (the list's OFFCORE_RSP value comes with it), then
 *		  modifiers: u, k (uk), e or edge, i or inv (=0 or =1 too),
 *		  c=N or cmask=N, and, to replace the list's value of the
 *		  event's extra MSR, offcore_rsp=V, ldlat=N or frontend=V;
 *		  Intel's fixed-counter events, event 0 with umask N + 1, are
 *		  0x00c0, 0x003c and 0x0300 on knl, knm and skl;
 *		- a libpfm4 event string such as "inst_retired:any_p:u" or
 *		  "offcore_response_0:dmnd_data_rd:any_response" (the names
 *		  perf --pfm-events and PAPI take).  A name both Intel's list
 *		  and libpfm4 know is Intel's: libpfm4 reads '.' as ':', so
 *		  "inst_retired.any_p" is Intel's INST_RETIRED.ANY_P, and
 *		  "inst_retired:any_p" libpfm4's.  An unknown name spelled as
 *		  Intel spells them gets the list's closest names in @msg.
 * @ev:		out: the event, all other fields zero.
 * @msg:	out: why, when the return value is not 0 ("" else); may be
 *		NULL.
 * @msglen:	size of @msg.
 *
 * This is the resolver of every pmuctl command (stat, watch, check): the
 * same string gives the same encoding everywhere.  The EN and INT bits
 * libpfm4 forces on are removed; a string with neither u nor k counts at
 * both levels, as perf does.  The rules are the module's: this only
 * translates.  libpfm4 4.13's encodings pmuctl corrects: on Skylake,
 * ANY_REQUEST is 0x18007 (bit 16, ANY_RESPONSE, included); next to a
 * supplier that bit is cleared unless the string asks for any_response
 * (0x8007, as Intel's lists and libpfm4's own equivalence say).  On
 * icl, icx and spr, TOPDOWN's *_SLOTS umasks of event 0xa4 get event
 * select 0xa4; on spr, OFFCORE_RESPONSE_1 gets event 0x2b.  On Skylake,
 * a snoop umask without a supplier, to which libpfm4 adds its default
 * ANY_RESPONSE, is refused with -EINVAL: @msg says that libpfm4 added it
 * and what to write instead.
 *
 * Return: 0; PMUCTL_PARSE_LITERAL when libpfm4 refused the string and @ev is
 * its literal composition (@msg says what libpfm4 said); -ENOENT for an
 * unknown event, umask or modifier (a modifier other than u and k on a
 * generic name included); -EINVAL for a malformed string, a value that
 * does not fit, or a string libpfm4 composes into a value no CPU of
 * @model counts; -ENODEV when libpfm4 cannot name the events of the PMU; -EBUSY when libpfm4 4.13 cannot switch to @model's PMU in this
 * process (it can leave ix86arch or the host's PMU only once; asking for
 * the PMU in use still works); -EOVERFLOW for an encoding pmuctl cannot
 * represent; -ENOMEM.
 */
int pmuctl_event_resolve(uint32_t model, const char *str,
			 struct pmuctl_event *ev, char *msg, size_t msglen);

/**
 * pmuctl_event_list() - Intel's event list whose names resolve for a model
 * @model:	pmuctl_info.pmu_model.
 *
 * Return: the list's name, refined by this host's CPUID as Intel's
 * mapfile.csv does where the host is a CPU of @model (Skylake-SP stepping
 * 0-4 "skx", 5 and later "clx", Emerald Rapids "emr", Grand Ridge "grr",
 * Arrow Lake "arl_lnc", "arl_skt"), else the model's own: "knl" (for knm
 * too: Intel gives Knights Mill Knights Landing's list), "skl", "icl",
 * "icx", "spr", "gnr", "adl_glc", "adl_grt", "srf", "lnl_lnc", "lnl_skt";
 * NULL for arch and none.
 */
const char *pmuctl_event_list(uint32_t model);

/**
 * pmuctl_event_resolve_list() - pmuctl_event_resolve() with a given list
 * @model:	as for pmuctl_event_resolve().
 * @list:	the Intel list that names events (one of pmuctl_event_list()'s
 *		names: "skx", "clx", "emr", "grr", "arl_skt"...), which must
 *		be one of @model's; NULL: pmuctl_event_list(@model).
 * @str, @ev, @msg, @msglen: as for pmuctl_event_resolve().
 *
 * Return: as pmuctl_event_resolve(); -ENODEV for a list that is not
 * @model's.
 */
int pmuctl_event_resolve_list(uint32_t model, const char *list,
			      const char *str, struct pmuctl_event *ev,
			      char *msg, size_t msglen);

/**
 * struct pmuctl_metrics - metrics resolved for a model (opaque)
 *
 * pmuctl_metrics_resolve() makes one, pmuctl_metrics_free() frees it.
 */
struct pmuctl_metrics;

/**
 * pmuctl_metrics_resolve() - metrics by name or group, for a model
 * @model:	pmuctl_info.pmu_model.
 * @list:	the event list whose metrics to take (pmuctl_event_list()'s
 *		names), one of @model's; NULL: pmuctl_event_list(@model).
 * @spec:	"NAME|GROUP[,...]": Intel's metric names (Info_Thread_IPC,
 *		Frontend_Bound; case-insensitive), Intel's groups and perf's
 *		TopdownL1 and TopdownL2, or the short names IPC, CPI,
 *		CoreIPC, L1MPKI, L2MPKI, L3MPKI (doc/metrics.md).
 * @out:	out: the metrics, in the order @spec names them (a group's
 *		in its list's order), each once.
 * @msg:	out: why, when the return value is not 0.
 *
 * The metrics are Intel's (events/intel/LIST.metrics, facts from Intel's
 * perfmon metrics files) or, for Knights Landing/Mill and the Gracemont
 * and Skymont cores, pmuctl's own IPC and CPI (events/pmuctl/).  A metric
 * pmuctl cannot compute is kept, with its reason
 * (pmuctl_metrics_unavailable()).  Their events are the union of the
 * computable metrics' events, each once, with TOPDOWN.SLOTS where a metric
 * reads PERF_METRICS.  Whether the PMU counts them at once is the
 * module's to say (pmuctl_program() refuses a group that does not fit;
 * "pmuctl check -M" shows the passes a set takes).
 *
 * Return: 0; -ENOENT for a name that is no metric or group of the list
 * (@msg names it); -ENODEV for a model without an event list (arch, none)
 * or a list not @model's; -ENOMEM.
 */
int pmuctl_metrics_resolve(uint32_t model, const char *list, const char *spec,
			   struct pmuctl_metrics **out, char *msg, size_t msglen);

/**
 * pmuctl_metrics_count() - how many metrics @m holds
 * pmuctl_metrics_name() - metric @i's name (Intel's)
 * pmuctl_metrics_unit() - metric @i's unit ("percent", "GHz"; "" for none)
 * pmuctl_metrics_unavailable() - why pmuctl cannot compute metric @i
 *		("needs uncore events (UNC_CHA_TOR_INSERTS.IA_MISS)"), NULL
 *		when it can
 */
unsigned int pmuctl_metrics_count(const struct pmuctl_metrics *m);
const char *pmuctl_metrics_name(const struct pmuctl_metrics *m, unsigned int i);
const char *pmuctl_metrics_unit(const struct pmuctl_metrics *m, unsigned int i);
const char *pmuctl_metrics_unavailable(const struct pmuctl_metrics *m,
				       unsigned int i);

/**
 * pmuctl_metrics_events() - the events the computable metrics read
 * @m:		the metrics.
 * @ev:		out: the events (config and extra set, as
 *		pmuctl_event_resolve() gives them), NULL to count them.
 * @names:	out: each event's name (Intel's, with Intel's modifiers:
 *		"DTLB_LOAD_MISSES.STLB_HIT:c1"), valid while @m is; may be NULL.
 * @max:	room in @ev and @names.
 *
 * Return: the number of events (more than @max: only @max were written).
 */
unsigned int pmuctl_metrics_events(const struct pmuctl_metrics *m,
				   struct pmuctl_event *ev, const char **names,
				   unsigned int max);

/**
 * pmuctl_metrics_eval() - compute one metric from counts
 * @m:		the metrics.
 * @i:		the metric.
 * @counts:	the count of each event of pmuctl_metrics_events(), in its
 *		order, over the same interval; a PERF_METRICS event's count
 *		is in slots (pmuctl_topdown_slots()).
 * @duration_s:	the interval in seconds (DURATIONTIMEINSECONDS), 0 if
 *		unknown.
 * @value:	out: the metric, as Intel's formula gives it (a percent is
 *		0 to 100).
 * @msg:	out: why, when the return value is not 0.
 *
 * HYPERTHREADING_ON and THREADS_PER_CORE come from sysfs (CPU 0's
 * siblings), SYSTEM_TSC_FREQ from CPUID leaf 15H where it gives the
 * crystal's frequency (elsewhere, as in most VMs, a formula that reads it
 * fails with -ENODATA: not guessed).
 *
 * Return: 0; -ENOENT for a metric pmuctl cannot compute
 * (pmuctl_metrics_unavailable()); -EDOM for a division by zero the
 * formula reaches (@msg quotes the divisor); -ENODATA for a value the
 * interval does not give; -EINVAL for @i out of range; -ENOMEM.
 */
int pmuctl_metrics_eval(const struct pmuctl_metrics *m, unsigned int i,
			const uint64_t *counts, double duration_s, double *value,
			char *msg, size_t msglen);

void pmuctl_metrics_free(struct pmuctl_metrics *m);

/**
 * pmuctl_event_parse() - one event by name or raw config, by libpfm4 PMU
 * @pmu:	the libpfm4 PMU that resolves names (pmuctl_pfm_pmu_name() of
 *		the session's model), or NULL for the host's.
 * @str, @ev, @msg, @msglen: as for pmuctl_event_resolve().
 *
 * pmuctl_event_resolve() for the model whose libpfm4 PMU @pmu is ("knm",
 * "knl", "skl", "icl", "icx", "spr"; "ix86arch": arch; NULL: the host's
 * PMU, once libpfm4 has selected it).  perf's generic names resolve only
 * for those; ix86arch stands for every model without a libpfm4 table, so
 * there ref-cycles is 0x0300: pmuctl_event_resolve() knows the model.
 *
 * Return: as pmuctl_event_resolve(); -ENODEV when libpfm4 has no such PMU.
 */
int pmuctl_event_parse(const char *pmu, const char *str,
		       struct pmuctl_event *ev, char *msg, size_t msglen);

/**
 * pmuctl_events_parse() - a comma-separated list of events
 * @pmu, @msg, @msglen: as for pmuctl_event_parse().
 * @list:	"EVENT[,EVENT...]".
 * @ev:		out: the events.
 * @max:	room in @ev.
 * @bad:	out: on failure, the index of the event that failed (may be
 *		NULL).
 *
 * Return: the number of events (>= 1); -E2BIG for more than @max; a
 * failure of pmuctl_event_parse() for event *@bad (PMUCTL_PARSE_LITERAL is
 * not a failure here: such events are kept); -EINVAL for an empty entry.
 */
int pmuctl_events_parse(const char *pmu, const char *list,
			struct pmuctl_event *ev, unsigned int max,
			unsigned int *bad, char *msg, size_t msglen);

/**
 * pmuctl_reason_name() - the name of a reason code
 * @r:	a PMUCTL_R_* value.
 *
 * Return: the name without its PMUCTL_R_ prefix, e.g. "EDGE_NO_CMASK",
 * or "UNKNOWN" for a code this library does not know; static.
 */
const char *pmuctl_reason_name(uint32_t r);

/**
 * pmuctl_reason_text() - what a reason code means, for a user
 * @r:	a PMUCTL_R_* value.
 *
 * Return: one sentence naming the rule and what to do, without a trailing
 * period; static, except "unknown reason N" for a code this library does
 * not know (a thread-local buffer, valid until the thread's next call).
 */
const char *pmuctl_reason_text(uint32_t r);

/**
 * pmuctl_strerror() - one line for a failed call
 * @ret:	the negative return value.
 * @err:	the struct pmuctl_error it filled in, or NULL.
 * @buf:	out: the line, NUL-terminated, truncated to fit.
 * @len:	size of @buf.
 *
 * "event 2: EDGE_NO_CMASK: <reason text> (CPU 1)" when @err names a rule.
 * Else, when @ret is what this thread's last pmuctl_open() failed with
 * (and until its next pmuctl_open()), the line the pmuctl tool prints for
 * it: "/dev/pmuctl does not exist: the pmuctl module is not loaded; load
 * it with 'sudo modprobe pmuctl' ...", or that there is no PMU the module
 * drives (not Intel; no arch_perfmon flag in /proc/cpuinfo: in a VM, no
 * virtual PMU), the device's permissions (group 'pmu', mode 0660), the
 * module's paranoid level, another ABI version, not the device.  Else
 * strerror(-@ret).  $PMUCTL_CPUINFO names a file read instead of
 * /proc/cpuinfo (for tests).
 *
 * Return: @buf.
 */
char *pmuctl_strerror(int ret, const struct pmuctl_error *err, char *buf,
		      size_t len);

/*
 * Regions: named stretches of code counted per thread.
 *
 * A set of regions belongs to a session holding a group (task scope, with
 * PMUCTL_PROGRAM_INHERIT for the threads the program creates; or CPU
 * scope, for threads pinned to its CPUs).  pmuctl_region_register() names
 * a region once and gives its handle; pmuctl_region_enter() and
 * pmuctl_region_exit() take the handle and read the group's counters with
 * the inline read path: no system call, lock or allocation, but on a
 * thread's first entry into the set (it then allocates its block and asks
 * for its own rdpmc grant, pmuctl_rdpmc_thread(); until a thread has one,
 * or where the module grants none, its reads go through the library's
 * emulation and are counted as emulated reads).  Per region and thread:
 * the calls (exits) and, per event, the sum of the counts from each
 * outermost entry to its exit.  Regions nest; a region entered again
 * before it exits (recursion) counts from its outermost entry.  The
 * results outlive the threads, until pmuctl_regions_free().
 *
 * A misuse is never silent: it is refused or repaired as each call says,
 * and counted by kind (pmuctl_regions_misuse(), the reports' "misuse"
 * line).  With the environment variable PMUCTL_REGIONS_DEBUG set (not
 * "0") when the set is made, the first misuse prints the region's name
 * and aborts.  A fork's child starts the set with no counts (the parent's
 * stay the parent's); a region open across fork exits without entry in
 * the child.
 */
struct pmuctl_regions;

/* Regions a set may hold at most (pmuctl_regions_new()'s max_regions). */
#define PMUCTL_REGIONS_MAX		4096

/* Misuses, by kind (pmuctl_regions_misuse()). */
enum pmuctl_region_misuse {
	PMUCTL_REGION_MISUSE_BAD_REGION,	/* not a registered handle */
	PMUCTL_REGION_MISUSE_EXIT_WITHOUT_ENTER, /* exit of a region not open */
	PMUCTL_REGION_MISUSE_UNBALANCED,	/* exit of one not innermost */
	PMUCTL_REGION_MISUSE_UNCOUNTED_THREAD,	/* entry on a thread not counted */
	PMUCTL_REGION_MISUSE_TOO_DEEP,		/* more than 32 open at once */
	PMUCTL_REGION_MISUSE_NO_MEMORY,		/* no memory for a thread's block */
	PMUCTL_REGION_MISUSE_NR
};

/* pmuctl_regions_write() formats */
#define PMUCTL_REGIONS_JSON		0
#define PMUCTL_REGIONS_CSV		1

/**
 * pmuctl_regions_new() - a set of regions on the session's group
 * @p:		the handle, holding a group.
 * @ev:		the events as programmed (config), or NULL: with them the
 *		reports give IPC where the group counts instructions
 *		retired (0x00c0) and core cycles (0x003c) at the same levels.
 * @names:	the events' names for the reports, or NULL ("event0", ...).
 * @max_regions: 1..PMUCTL_REGIONS_MAX: each thread's block has room for
 *		that many (about 16 + 16 x events bytes each).
 * @flags:	0.
 * @out:	out: the set.
 *
 * The set reads the group pmuctl_get_counters() describes now; release or
 * reprogram it only after the set is freed.
 *
 * Return: 0; -EINVAL (@flags, @max_regions); -ENOENT (no group); -ENOMEM.
 */
int pmuctl_regions_new(struct pmuctl *p, const struct pmuctl_event *ev,
		       const char *const *names, unsigned int max_regions,
		       unsigned int flags, struct pmuctl_regions **out);

/**
 * pmuctl_regions_env() - the set "pmuctl stat --regions" hands over
 * @out:	out: the set, or NULL.
 *
 * Under "pmuctl stat --regions -- CMD", CMD inherits the session that
 * counts it (task scope, its threads from its exec on) and the
 * description of the group in its environment ($PMUCTL_REGIONS,
 * $PMUCTL_REGIONS_EVENTS).  Each of CMD's threads asks for its rdpmc
 * grant at its first entry and reads with rdpmc from then on (where the
 * module grants none, through the emulation, which the report counts).
 * The first call makes a set on that session
 * and arranges that the results go back to pmuctl at exit (atexit(3):
 * a program that ends by _exit(2) or a signal reports nothing); later
 * calls give the same set, which stays the library's (not for
 * pmuctl_regions_free()).  Without the variable (the program run without
 * pmuctl) it is -ENOENT and *@out is NULL: the program runs unchanged.
 * Thread-safe.
 *
 * Return: 0; -ENOENT (no hand-over); -EINVAL (a malformed variable);
 * -EPROTO, -ENOMEM, or the -errno of the session's INFO.
 */
int pmuctl_regions_env(struct pmuctl_regions **out);

/**
 * pmuctl_regions_free() - free the set and every thread's results
 * @r:	the set, or NULL.  No thread may use it any more.
 */
void pmuctl_regions_free(struct pmuctl_regions *r);

/**
 * pmuctl_region_register() - the handle of a region, by name
 * @r:		the set.
 * @name:	its name (copied), not empty.
 *
 * The same name gives the same handle; thread-safe (a lock: not for hot
 * code).
 *
 * Return: the handle (0, 1, ... in order of registration); -EINVAL (no
 * name); -ENOSPC (max_regions are registered); -ENOMEM.
 */
int pmuctl_region_register(struct pmuctl_regions *r, const char *name);

/**
 * pmuctl_region_enter() - the calling thread enters a region
 * pmuctl_region_exit() - and leaves it
 * @r:	the set.
 * @h:	the region's handle.
 *
 * Enter reads the counters last, exit first, so that the region's counts
 * hold as little of the calls as can be.  Exit adds the counts since the
 * region's outermost entry in this thread (each event's delta masked to
 * its counter's width: right across one wrap) and counts a call.
 *
 * Return: 0.  A misuse, counted (and fatal in debug mode):
 * -EINVAL @h is not a registered handle; nothing done.
 * -EPERM  (enter) a task-scope session does not count this thread (it
 *         was made before PROGRAM, or without PMUCTL_PROGRAM_INHERIT):
 *         the region is not counted here, and its exit returns -EPERM
 *         again without counting a second misuse.
 * -ERANGE (enter) 32 regions are open in this thread already; not
 *         entered.
 * -ENOENT (exit) the region is not open in this thread; nothing done.
 * -EPROTO (exit) the region is open but not the innermost: it is closed
 *         (its counts added), the regions inside it stay open.
 * -ENOMEM the thread's block could not be allocated (first entry).
 */
int pmuctl_region_enter(struct pmuctl_regions *r, int h);
int pmuctl_region_exit(struct pmuctl_regions *r, int h);

/**
 * pmuctl_region_enter_name() - pmuctl_region_enter() by name
 * pmuctl_region_exit_name() - pmuctl_region_exit() by name
 * @r:		the set.
 * @name:	the region, registered on its first use.
 *
 * Each call looks the name up under the set's lock (a string compare per
 * region registered): for code where a handle cannot be kept.
 *
 * Return: as the handle calls, or pmuctl_region_register()'s error
 * (counted as PMUCTL_REGION_MISUSE_BAD_REGION).
 */
int pmuctl_region_enter_name(struct pmuctl_regions *r, const char *name);
int pmuctl_region_exit_name(struct pmuctl_regions *r, const char *name);

/**
 * pmuctl_region_get() - the calling thread's results of a region
 * @r:		the set.
 * @h:		the region.
 * @calls:	out: its calls in this thread.
 * @counts:	out: the sums of the first @nr events.
 * @nr:		at most the group's events.
 *
 * Return: 0 (zeros for a thread that never entered the set); -EINVAL.
 */
int pmuctl_region_get(struct pmuctl_regions *r, int h, uint64_t *calls,
		      uint64_t *counts, unsigned int nr);

/**
 * pmuctl_regions_nr_events() - the events each region counts
 * @r:	the set.
 *
 * Return: the events of the group the set reads (1..PMUCTL_MAX_EVENTS),
 * in the order of its reports.
 */
unsigned int pmuctl_regions_nr_events(const struct pmuctl_regions *r);

/**
 * pmuctl_region_reset() - zero the calling thread's calls and counts of
 * a region
 * @r:	the set.
 * @h:	the region.  Open, it stays open and counts from its entry.
 *
 * Return: 0 (also for a thread that never entered the set); -EINVAL.
 */
int pmuctl_region_reset(struct pmuctl_regions *r, int h);

/**
 * struct pmuctl_region_stats - one region in one thread
 * @region:	its name.
 * @handle:	its handle.
 * @tid:	the thread (its kernel thread id).
 * @open:	entries not yet exited (a region still running).
 * @calls:	exits.
 * @emulated_reads: the thread's reads answered by the emulation, over
 *		all its regions.
 * @nr:		events.
 * @counts:	the sums, @nr of them; valid until the next call on @r's
 *		results or pmuctl_regions_free().
 */
struct pmuctl_region_stats {
	const char *region;
	int handle;
	pid_t tid;
	unsigned int open;
	uint64_t calls;
	uint64_t emulated_reads;
	unsigned int nr;
	const uint64_t *counts;
};

/**
 * pmuctl_regions_stats() - the results, a row per region and thread
 * @r:		the set.
 * @row:	0, 1, ...: by region (in order of registration), then by
 *		thread (in order of first entry); a thread that never
 *		entered a region has no row for it.
 * @st:		out: the row.
 *
 * Meant for when the threads have stopped entering regions: a row read
 * while its thread runs may be halfway through an update.
 *
 * Return: 0; -ENOENT past the last row.
 */
int pmuctl_regions_stats(struct pmuctl_regions *r, unsigned int row,
			 struct pmuctl_region_stats *st);

/**
 * pmuctl_regions_misuse() - how many misuses of a kind
 * pmuctl_region_misuse_name() - its name in the reports, or NULL
 * @r:		the set.
 * @kind:	enum pmuctl_region_misuse.
 */
uint64_t pmuctl_regions_misuse(const struct pmuctl_regions *r, unsigned int kind);
const char *pmuctl_region_misuse_name(unsigned int kind);

/**
 * pmuctl_regions_reset() - zero every thread's calls and counts, and the
 * misuse counts
 * @r:	the set.  Open regions stay open and count from their entry.
 *
 * Return: 0.
 */
int pmuctl_regions_reset(struct pmuctl_regions *r);

/**
 * pmuctl_regions_write() - the results as a report
 * @r:		the set.
 * @f:		where to.
 * @format:	PMUCTL_REGIONS_JSON: JSON Lines, an object per row
 *		{"type":"region","region","thread","calls","emulated_reads",
 *		"open","counts":{EVENT:N,...},"metrics":{"IPC":X}} (IPC where
 *		the set has its events and the cycles are not 0), then
 *		{"type":"misuse",KIND:N,...}.  PMUCTL_REGIONS_CSV: a header
 *		line "region,thread,calls,emulated_reads,open,EVENT...,IPC",
 *		a line per row (IPC with 2 decimals, or empty), then
 *		"# misuse KIND=N ...".
 * @sep:	CSV's separator (NULL: ","); fields holding it are quoted.
 *
 * Return: 0; -EINVAL (@format); -EIO (@f's error flag is set).
 */
int pmuctl_regions_write(struct pmuctl_regions *r, FILE *f, unsigned int format,
			 const char *sep);

/*
 * The read path.  Every function below is static inline and compiles to
 * rdpmc instructions with their counter numbers loaded from @c; make bench
 * prints what each one costs.  Read on a CPU of the group (the calling
 * thread pinned there, see pmuctl_program_cpu()): rdpmc reads the counters
 * of the CPU it executes on.  @i and @n must be below @c->nr.
 */

/* rdpmc of counter @ecx: EDX:EAX, as wide as the counter. */
static inline __attribute__((always_inline)) uint64_t pmuctl_rdpmc(uint32_t ecx)
{
	uint64_t lo, hi;

	/* rdpmc writes EAX and EDX, which zero-extends them to RAX, RDX. */
	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(ecx));
	return hi << 32 | lo;
}

/**
 * pmuctl_read_counter() - raw value of event @i: one rdpmc
 * @c:	pmuctl_get_counters().
 * @i:	the event's index in the group.
 */
static inline __attribute__((always_inline)) uint64_t
pmuctl_read_counter(const struct pmuctl_counters *c, unsigned int i)
{
	return pmuctl_rdpmc(c->ecx[i]);
}

/*
 * One rdpmc storing EAX and EDX straight into the two halves of *@v
 * (x86 is little-endian): no shift, no or.  The halves are written through
 * a may_alias type, so the compiler sees the 64-bit value change.
 */
typedef uint32_t __attribute__((may_alias)) __pmuctl_u32_alias;

#define __pmuctl_rdpmc_store(ecx, v)					\
	__asm__ __volatile__("rdpmc\n\t"				\
			     "movl %%eax, %0\n\t"			\
			     "movl %%edx, %1"				\
			     : "=m"(((__pmuctl_u32_alias *)(v))[0]),	\
			       "=m"(((__pmuctl_u32_alias *)(v))[1])	\
			     : "c"(ecx) : "eax", "edx")

/**
 * pmuctl_read_counters() - raw values of events 0..@n-1: @n rdpmc
 * @c:	pmuctl_get_counters().
 * @v:	out: @n values.
 * @n:	how many; a compile-time constant makes the loop disappear (it is
 *	unrolled), leaving @n times "load ECX, rdpmc, store, store".
 */
static inline __attribute__((always_inline)) void
pmuctl_read_counters(const struct pmuctl_counters *c, uint64_t *v,
		     unsigned int n)
{
#pragma GCC unroll 32
	for (unsigned int i = 0; i < n; i++)
		__pmuctl_rdpmc_store(c->ecx[i], &v[i]);
}

/**
 * pmuctl_read_counters_serialized() - pmuctl_read_counters() between
 * two lfence: no earlier instruction is still executing when the first
 * counter is read, no later one starts before the last is read.
 */
static inline __attribute__((always_inline)) void
pmuctl_read_counters_serialized(const struct pmuctl_counters *c, uint64_t *v,
				unsigned int n)
{
	__asm__ __volatile__("lfence" ::: "memory");
#pragma GCC unroll 32
	for (unsigned int i = 0; i < n; i++)
		__pmuctl_rdpmc_store(c->ecx[i], &v[i]);
	__asm__ __volatile__("lfence" ::: "memory");
}

/**
 * pmuctl_read_counter_serialized() - pmuctl_read_counter() between two
 * lfence.
 */
static inline __attribute__((always_inline)) uint64_t
pmuctl_read_counter_serialized(const struct pmuctl_counters *c, unsigned int i)
{
	uint64_t v;

	__asm__ __volatile__("lfence" ::: "memory");
	v = pmuctl_rdpmc(c->ecx[i]);
	__asm__ __volatile__("lfence" ::: "memory");
	return v;
}

/**
 * pmuctl_delta() - events counted by event @i from @before to @after
 * @c:		pmuctl_get_counters().
 * @i:		the event.
 * @before:	an earlier raw value.
 * @after:	a later raw value.
 *
 * Right across one wrap of the counter (2^width events), whatever its
 * width (40 bits on KNL/KNM, 48 on Skylake).
 */
static inline uint64_t pmuctl_delta(const struct pmuctl_counters *c,
				    unsigned int i, uint64_t before,
				    uint64_t after)
{
	return (after - before) & c->mask[i];
}

/**
 * pmuctl_topdown_slots() - the slots a topdown metric event counted
 * @slots:	TOPDOWN.SLOTS (0x0400, fixed counter 3) of the same group.
 * @metrics:	the metric event's raw value: PERF_METRICS, as rdpmc
 *		(PMUCTL_COUNTER_METRICS) or pmuctl_read_values() read it.
 * @metric:	the metric, the event's umask - 0x80 (0 retiring, 1 bad
 *		speculation, 2 frontend bound, 3 backend bound, 4..7 heavy
 *		operations, branch mispredict, fetch latency, memory bound).
 *
 * Byte @metric of PERF_METRICS is that metric's share of the slots, in
 * 255ths, since the group started or was reset (fixed counter 3 and
 * PERF_METRICS are zeroed together): @slots * byte / 255, as perf computes
 * it [Linux: icl_get_metrics_event_value()].  Read both with one
 * pmuctl_read_counters(); the difference of two such values is the
 * metric over the interval.
 */
static inline uint64_t pmuctl_topdown_slots(uint64_t slots, uint64_t metrics,
					    unsigned int metric)
{
	uint64_t share = metric < 8 ? (metrics >> (8 * metric)) & 0xff : 0;

	/* Slots are 48 bits wide: the product fits in 56. */
	return (slots & ((1ULL << 48) - 1)) * share / 0xff;
}

/**
 * pmuctl_deltas() - pmuctl_delta() of events 0..@n-1
 * @c, @before, @after: as above, arrays of @n.
 * @out:	out: @n deltas.
 */
static inline void pmuctl_deltas(const struct pmuctl_counters *c,
				 const uint64_t *before, const uint64_t *after,
				 uint64_t *out, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		out[i] = (after[i] - before[i]) & c->mask[i];
}

#ifdef __cplusplus
}
#endif

#endif /* LIBPMUCTL_H */
