// SPDX-License-Identifier: GPL-2.0
/*
 * A made-up pmuctl module for the real pmuctl binary on any host
 * (LD_PRELOAD; selftests/tool/watch_prom.sh): its ioctl(2) answers the
 * pmuctl ioctls as the module would, on whatever PMUCTL_DEVICE names
 * (/dev/null), and passes every other ioctl to the kernel; the static
 * libpmuctl in the tool calls libc's ioctl(), which this one overrides.
 *
 * INFO: a Skylake PMU with 48-bit counters, FAKE_NR_CPUS CPUs (default 4).
 * PROGRAM: event i on generic counter i.  READ of CPU c, its n-th: each
 * event's value (2^48 - 250 + n * (100 * (c + 1) + i)) mod 2^48, so the
 * counters wrap within a few reads and the count of each interval is
 * exactly 100 * (c + 1) + i; a CPU in FAKE_OFFLINE (a list of numbers)
 * answers ENODEV, as an offline one does.  PROGRAM with
 * PMUCTL_PROGRAM_REPLACE zeroes the counters: the k-th READ after it
 * reads k * (100 * (c + 1) + i); each one is logged "replace N" (N
 * events) in FAKE_LOG.
 *
 * fsync(2) and fdatasync(2) check the atomic replacement of the file
 * FAKE_TARGET: the descriptor flushed is not FAKE_TARGET's file, which
 * is either absent (the first time) or exactly the file flushed before,
 * whole.  Each call appends "fsync ok" or "fsync BAD: why" to FAKE_LOG.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/pmuctl.h>

#define FAKE_MAX_CPUS	64
#define WIDTH		48
#define MASK		((1ULL << WIDTH) - 1)

static unsigned int nr_reads[FAKE_MAX_CPUS];
static unsigned int since_replace[FAKE_MAX_CPUS];
static int replaced;
static char *flushed;		/* the last file fsync'ed, whole */
static size_t flushed_len;

static unsigned int nr_cpus(void)
{
	const char *s = getenv("FAKE_NR_CPUS");
	unsigned int n = s ? (unsigned int)atoi(s) : 4;

	return n && n <= FAKE_MAX_CPUS ? n : 4;
}

static int offline(unsigned int cpu)
{
	const char *s = getenv("FAKE_OFFLINE");
	char *end;

	while (s && *s) {
		if (strtoul(s, &end, 10) == cpu && end != s)
			return 1;
		s = *end ? end + 1 : end;
	}
	return 0;
}

static void say(const char *fmt, ...)
{
	const char *path = getenv("FAKE_LOG");
	char line[512];
	va_list ap;
	int fd, n;

	if (!path)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (write(fd, line, (size_t)n) != n)
		n = -1;
	close(fd);
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

		memset(info, 0, sizeof(*info));
		info->abi_version = PMUCTL_ABI_VERSION;
		info->pmu_model = PMUCTL_MODEL_SKL;
		info->max_events = PMUCTL_MAX_EVENTS;
		info->rdpmc = PMUCTL_RDPMC_NONE;
		info->backend = PMUCTL_BACKEND_MSR;
		info->caps.family = 6;
		info->caps.model = 0x55;
		info->caps.version = 4;
		info->caps.fixed_mask = 0x7;
		info->caps.gp_width = WIDTH;
		info->caps.fixed_width = WIDTH;
		info->caps.nr_gp = 4;
		info->caps.nr_fixed = 3;
		info->nr_cpus = nr_cpus();
		info->program_flags = PMUCTL_PROGRAM_FLAGS_ALL;
		info->task_bits = WIDTH;
		return 0;
	}
	case PMUCTL_IOC_PROGRAM: {
		struct pmuctl_program *prog = arg;
		struct pmuctl_event *ev = (void *)(uintptr_t)prog->events;

		for (unsigned int i = 0; i < prog->nr_events; i++)
			ev[i].counter = i;
		if (prog->flags & PMUCTL_PROGRAM_REPLACE) {
			replaced = 1;
			memset(since_replace, 0, sizeof(since_replace));
			say("replace %u", prog->nr_events);
		}
		return 0;
	}
	case PMUCTL_IOC_READ: {
		struct pmuctl_read *r = arg;
		uint64_t *v = (void *)(uintptr_t)r->values;
		unsigned int c = r->cpu, n;

		if (c >= nr_cpus() || offline(c)) {
			errno = ENODEV;
			return -1;
		}
		n = nr_reads[c]++;
		for (unsigned int i = 0; i < r->nr_values; i++)
			v[i] = ((1ULL << WIDTH) - 250 +
				(uint64_t)n * (100 * (c + 1) + i)) & MASK;
		if (replaced) {
			n = ++since_replace[c];
			for (unsigned int i = 0; i < r->nr_values; i++)
				v[i] = (uint64_t)n * (100 * (c + 1) + i);
		}
		return 0;
	}
	case PMUCTL_IOC_START:
	case PMUCTL_IOC_STOP:
	case PMUCTL_IOC_RESET:
	case PMUCTL_IOC_RELEASE:
		return 0;
	}
	return (int)syscall(SYS_ioctl, fd, req, arg);
}

static char *read_all(int fd, size_t *len)
{
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n;

	*len = 0;
	for (;;) {
		if (*len == cap) {
			char *b = realloc(buf, cap = cap * 2 + 4096);

			if (!b)
				break;
			buf = b;
		}
		n = pread(fd, buf + *len, cap - *len, (off_t)*len);
		if (n <= 0)
			break;
		*len += (size_t)n;
	}
	return buf;
}

static int check_flush(int fd)
{
	const char *target = getenv("FAKE_TARGET");
	struct stat fst, tst;
	char self[64], *now;
	size_t len;
	int tfd, rfd;

	if (!target || fstat(fd, &fst))
		return 0;
	tfd = open(target, O_RDONLY | O_CLOEXEC);
	if (tfd >= 0) {
		char *old;

		fstat(tfd, &tst);
		old = read_all(tfd, &len);
		close(tfd);
		if (tst.st_ino == fst.st_ino && tst.st_dev == fst.st_dev)
			say("fsync BAD: the file flushed is %s itself, not a new file renamed over it", target);
		else if (tst.st_dev != fst.st_dev)
			say("fsync BAD: the file flushed is on another file system than %s", target);
		else if (!flushed)
			say("fsync BAD: %s exists before anything was flushed", target);
		else if (len != flushed_len || memcmp(old, flushed, len))
			say("fsync BAD: %s is not the file flushed before (%zu bytes, want %zu)",
			    target, len, flushed_len);
		else
			say("fsync ok");
		free(old);
	} else if (flushed) {
		say("fsync BAD: %s disappeared after the first flush", target);
	} else {
		say("fsync ok");
	}
	/* the descriptor is the writer's, maybe write-only: read it anew */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	rfd = open(self, O_RDONLY | O_CLOEXEC);
	if (rfd < 0) {
		say("fsync BAD: cannot read back descriptor %d: %s", fd, strerror(errno));
		return 0;
	}
	now = read_all(rfd, &len);
	close(rfd);
	free(flushed);
	flushed = now;
	flushed_len = len;
	return 0;
}

int fsync(int fd)
{
	check_flush(fd);
	return (int)syscall(SYS_fsync, fd);
}

int fdatasync(int fd)
{
	check_flush(fd);
	return (int)syscall(SYS_fdatasync, fd);
}
