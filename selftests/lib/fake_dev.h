/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A made-up pmuctl module for libpmuctl's host tests (selftests/lib/):
 * the test program defines ioctl(2) itself, which the static libpmuctl.a
 * linked into it calls in place of libc's, and this one answers the pmuctl
 * ioctls on /dev/null descriptors as a module would (INFO from a made-up
 * struct pmuctl_info, PROGRAM placing the events as fake.counters says,
 * READ with fake.values, THREADS with fake.entry, RDPMC with
 * fake.rdpmc_errno); every other ioctl goes to the kernel.  Included by
 * one test file per program: the definitions are the program's own.
 */
#ifndef PMUCTL_SELFTESTS_LIB_FAKE_DEV_H
#define PMUCTL_SELFTESTS_LIB_FAKE_DEV_H

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "libpmuctl.h"

#define MAX_FDS		4

/* The made-up module. */
static struct {
	struct pmuctl_info info;
	struct pmuctl_program prog;		/* the last PROGRAM */
	struct pmuctl_read read;		/* the last READ */
	unsigned int nr_program, nr_read;
	int program_errno;			/* PROGRAM fails so */
	uint32_t program_reason;
	uint32_t counters[PMUCTL_MAX_EVENTS];	/* PROGRAM places the events so */
	uint64_t values[PMUCTL_MAX_EVENTS];	/* READ answers */
	uint32_t nr_threads, nr_lost;
	int read_errno[MAX_FDS];		/* READ_THREAD fails so, per fd slot */
	struct pmuctl_threads threads;		/* the last THREADS, as sent */
	unsigned int nr_threads_ioc;
	int threads_errno;			/* THREADS fails so */
	unsigned int nr_entries;		/* THREADS answers these: */
	struct { uint32_t tid, tgid, flags; uint64_t v[3]; } entry[8];
	uint32_t nr_dropped;
	int fds[MAX_FDS];			/* descriptors seen at INFO */
	unsigned int nr_rdpmc;
	int rdpmc_errno;			/* RDPMC fails so */
} fake;

static int fd_slot(int fd)
{
	for (int i = 0; i < MAX_FDS; i++)
		if (fake.fds[i] == fd)
			return i;
	for (int i = 0; i < MAX_FDS; i++)
		if (fake.fds[i] < 0) {
			fake.fds[i] = fd;
			return i;
		}
	return 0;
}

int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);

	switch (req) {
	case PMUCTL_IOC_INFO: {
		struct pmuctl_info *info = arg;

		fd_slot(fd);
		*info = fake.info;
		return 0;
	}
	case PMUCTL_IOC_PROGRAM: {
		struct pmuctl_program *prog = arg;
		struct pmuctl_event *ev = (void *)(uintptr_t)prog->events;

		fake.nr_program++;
		fake.prog = *prog;
		if (fake.program_errno) {
			prog->err_reason = fake.program_reason;
			prog->err_index = 1;
			prog->err_cpu = UINT32_MAX;
			errno = fake.program_errno;
			return -1;
		}
		for (unsigned int i = 0; i < prog->nr_events; i++)
			ev[i].counter = fake.counters[i];
		return 0;
	}
	case PMUCTL_IOC_READ: {
		struct pmuctl_read *r = arg;
		int slot = fd_slot(fd);

		fake.nr_read++;
		fake.read = *r;
		if ((r->flags & PMUCTL_READ_THREAD) && fake.read_errno[slot]) {
			errno = fake.read_errno[slot];
			return -1;
		}
		memcpy((void *)(uintptr_t)r->values, fake.values,
		       r->nr_values * sizeof(uint64_t));
		/* READ_THREAD: each session's own value, to tell them apart. */
		if (r->flags & PMUCTL_READ_THREAD)
			((uint64_t *)(uintptr_t)r->values)[0] += (uint64_t)slot;
		r->nr_threads = fake.nr_threads;
		r->nr_lost = fake.nr_lost;
		r->generation = 7;
		return 0;
	}
	case PMUCTL_IOC_THREADS: {
		/* As the module: as many entries as fit, zeroed past 3 values. */
		struct pmuctl_threads *th = arg;
		size_t esz = sizeof(struct pmuctl_thread) + 8 * th->nr_values;
		uint32_t room = th->nr_values ? (uint32_t)(th->entries_size / esz) : 0;
		char *out = (char *)(uintptr_t)th->entries;

		fake.nr_threads_ioc++;
		fake.threads = *th;
		if (fake.threads_errno) {
			errno = fake.threads_errno;
			return -1;
		}
		th->nr_entries = 0;
		for (unsigned int i = 0; i < fake.nr_entries && i < room; i++) {
			struct pmuctl_thread *t = (void *)(out + i * esz);

			memset(t, 0, esz);
			t->tid = fake.entry[i].tid;
			t->tgid = fake.entry[i].tgid;
			t->flags = fake.entry[i].flags;
			memcpy(t->values, fake.entry[i].v, sizeof(fake.entry[i].v));
			th->nr_entries++;
		}
		th->nr_total = fake.nr_entries;
		th->nr_dropped = fake.nr_dropped;
		th->generation = 7;
		return 0;
	}
	case PMUCTL_IOC_RDPMC:
		fake.nr_rdpmc++;
		if (fake.rdpmc_errno) {
			errno = fake.rdpmc_errno;
			return -1;
		}
		return 0;
	case PMUCTL_IOC_START:
	case PMUCTL_IOC_STOP:
	case PMUCTL_IOC_RESET:
	case PMUCTL_IOC_RELEASE:
		return 0;
	}
	return (int)syscall(SYS_ioctl, fd, req, arg);
}

/* A Skylake-like PMU: 48-bit counters, both grants, the PMU backend. */
static void fake_reset(uint32_t rdpmc, uint32_t backend, uint8_t width,
		       uint32_t task_bits)
{
	memset(&fake, 0, sizeof(fake));
	for (int i = 0; i < MAX_FDS; i++)
		fake.fds[i] = -1;
	fake.info.abi_version = PMUCTL_ABI_VERSION;
	fake.info.pmu_model = PMUCTL_MODEL_SKL;
	fake.info.max_events = PMUCTL_MAX_EVENTS;
	fake.info.rdpmc = rdpmc;
	fake.info.backend = backend;
	fake.info.caps.gp_width = width;
	fake.info.caps.fixed_width = width;
	fake.info.caps.nr_gp = 4;
	fake.info.caps.nr_fixed = 3;
	fake.info.program_flags = PMUCTL_PROGRAM_FLAGS_ALL;
	fake.info.task_bits = task_bits;
	fake.counters[0] = PMUCTL_COUNTER_FIXED | 0;
	fake.counters[1] = 0;
	fake.counters[2] = 1;
}

static __attribute__((unused)) struct pmuctl *
fake_open(struct __test_metadata *_metadata, unsigned int flags)
{
	struct pmuctl *p = NULL;

	ASSERT_EQ(0, pmuctl_open("/dev/null", flags, &p));
	return p;
}

/*
 * Counter numbers no PMU has: rdpmc faults on them (#GP) even where this
 * host lets user space rdpmc, so the emulation is always reached.
 */
static void fake_unreal_counters(void)
{
	fake.counters[0] = PMUCTL_COUNTER_FIXED | 30;
	fake.counters[1] = 29;
	fake.counters[2] = 28;
}

#endif /* PMUCTL_SELFTESTS_LIB_FAKE_DEV_H */
