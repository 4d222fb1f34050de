// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers of the hardware selftests: see hw.h.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

#include "emulated.h"
#include "hw.h"

#define HUGE_2M		(2UL << 20)

int hw_open(struct pmuctl **p, char *why, size_t len)
{
	const struct pmuctl_info *info;
	int ret;

	*why = 0;
	ret = pmuctl_open(NULL, PMUCTL_OPEN_NO_EMULATION, p);
	switch (ret) {
	case 0:
		break;
	case -ENOENT:
		snprintf(why, len, "pmuctl.ko not loaded (no %s): modprobe pmuctl",
			 PMUCTL_DEVICE_PATH);
		return HW_SKIP;
	case -EACCES:
	case -EPERM:
		snprintf(why, len, "may not open %s (%s): run as root",
			 PMUCTL_DEVICE_PATH, strerror(-ret));
		return HW_SKIP;
	default:
		snprintf(why, len, "pmuctl_open: %s", strerror(-ret));
		return ret;
	}
	info = pmuctl_get_info(*p);
	if (info->backend == PMUCTL_BACKEND_MODEL) {
		snprintf(why, len, "register model: no real counts (PMUCTL_BACKEND_MODEL)");
		goto skip;
	}
	if (info->pmu_model == PMUCTL_MODEL_NONE) {
		snprintf(why, len, "pmuctl.ko drives no PMU model here");
		goto skip;
	}
	return 0;

skip:
	pmuctl_close(*p);
	*p = NULL;
	return HW_SKIP;
}

int hw_program(struct pmuctl *p, int cpu, struct pmuctl_event *ev,
	       unsigned int nr, unsigned int flags, int *cpu_out,
	       char *why, size_t len)
{
	struct pmuctl_error err;
	int ret;

	*why = 0;
	ret = pmuctl_program_cpu(p, cpu, ev, nr, &err);
	if (ret == -EBUSY && err.reason == PMUCTL_R_PERF_BUSY) {
		snprintf(why, len, "perf holds the counters: %s",
			 pmuctl_reason_text(err.reason));
		return HW_SKIP;
	}
	if (ret < 0) {
		pmuctl_strerror(ret, &err, why, len);
		return ret;
	}
	*cpu_out = ret;
	if ((flags & HW_NEED_RDPMC) &&
	    !(pmuctl_get_counters(p)->flags & PMUCTL_COUNTERS_RDPMC)) {
		snprintf(why, len, "rdpmc not granted (is /sys/module/pmuctl/parameters/rdpmc 0?): this test reads with rdpmc");
		pmuctl_release(p);
		return HW_SKIP;
	}
	return 0;
}

struct pmuctl_event hw_event(uint64_t config, uint64_t extra, uint32_t flags)
{
	struct pmuctl_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.config = config;
	ev.extra = extra;
	ev.flags = flags;
	return ev;
}

int hw_event_named(const struct pmuctl *p, const char *name,
		   struct pmuctl_event *ev, char *why, size_t len)
{
	const char *pmu = pmuctl_pfm_pmu_name(pmuctl_get_info(p)->pmu_model);
	int ret;

	ret = pmuctl_event_parse(pmu, name, ev, why, len);
	if (ret == PMUCTL_PARSE_LITERAL)
		return -EINVAL;		/* libpfm4 should know these names */
	if (ret < 0 && !*why)
		snprintf(why, len, "%s", strerror(-ret));
	return ret;
}

bool hw_emulated(void)
{
	static int emulated = -1;

	if (emulated < 0)
		emulated = hw_cpu_is_emulated();
	return emulated;
}

int hw_msr_write(int cpu, uint32_t msr, uint64_t val)
{
	char path[64];
	ssize_t n;
	int fd, ret = 0;

	snprintf(path, sizeof(path), "/dev/cpu/%d/msr", cpu);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* The msr driver: the MSR number is the file offset, 8 bytes a write. */
	n = pwrite(fd, &val, sizeof(val), msr);
	if (n < 0)
		ret = -errno;
	else if (n != sizeof(val))
		ret = -EIO;
	close(fd);
	return ret;
}

uint64_t hw_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

void hw_spin_ns(uint64_t ns)
{
	uint64_t end = hw_now_ns() + ns;

	while (hw_now_ns() < end)
		hw_nop_loop(1000);
}

void *hw_buf_alloc(size_t size)
{
	size_t map = size + HUGE_2M;
	char *raw, *buf;

	raw = mmap(NULL, map, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return NULL;
	buf = (char *)(((uintptr_t)raw + HUGE_2M - 1) & ~(HUGE_2M - 1));
	if (buf > raw)
		munmap(raw, buf - raw);
	munmap(buf + size, raw + map - (buf + size));
	/* Best effort: with 2 MiB pages a chase misses the caches, not the TLB. */
	madvise(buf, size, MADV_HUGEPAGE);
	memset(buf, 1, size);
	return buf;
}

void hw_buf_free(void *buf, size_t size)
{
	if (buf)
		munmap(buf, size);
}

uint64_t hw_stream(const void *buf, size_t size)
{
	const volatile uint64_t *w = buf;
	uint64_t sum = 0;

	for (size_t i = 0; i < size / sizeof(*w); i += HW_LINE / sizeof(*w))
		sum += w[i];
	return sum;
}

/* xorshift64 (Marsaglia): a fixed seed, so every run builds the same cycle. */
static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

void *hw_chase_build(void *buf, size_t size)
{
	size_t n = size / HW_LINE;
	uint32_t *perm = malloc(n * sizeof(*perm));
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	char *base = buf;

	if (!perm || n < 2) {
		free(perm);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		perm[i] = i;
	/* Sattolo: a uniformly random permutation with a single cycle. */
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = xorshift(&seed) % i;
		uint32_t t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
	/* Line i points to line perm[i]: one cycle through every line. */
	for (size_t i = 0; i < n; i++)
		*(void **)(base + i * HW_LINE) = base + (size_t)perm[i] * HW_LINE;
	free(perm);
	return base;
}

void *hw_chase(void *node, uint64_t steps)
{
	void *p = node;

	while (steps--)
		p = *(void *volatile *)p;
	return p;
}

void hw_cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	__cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
}

int hw_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int ret = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, len, f))
		ret = -EIO;
	else
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
	return ret;
}

int hw_read_u64(const char *path, uint64_t *v)
{
	char line[64], *end;
	int ret = hw_read_line(path, line, sizeof(line));

	if (ret)
		return ret;
	errno = 0;
	*v = strtoull(line, &end, 10);
	if (errno || end == line)
		return -EINVAL;
	return 0;
}

int hw_write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int ret = 0;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != strlen(s))
		ret = -EIO;
	close(fd);
	return ret;
}

static bool cpu_online(int cpu)
{
	char path[96];
	uint64_t v;

	if (cpu == 0)
		return true;	/* often has no "online" file */
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	return hw_read_u64(path, &v) == 0 && v == 1;
}

int hw_smt_sibling(int cpu)
{
	char path[128], list[256], *s;

	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", cpu);
	if (hw_read_line(path, list, sizeof(list)))
		return -1;
	/* "0,72,144,216" or "0-1": ranges and singles separated by commas. */
	for (s = strtok(list, ","); s; s = strtok(NULL, ",")) {
		int lo, hi;

		if (sscanf(s, "%d-%d", &lo, &hi) != 2)
			hi = lo = atoi(s);
		for (int c = lo; c <= hi; c++)
			if (c != cpu && cpu_online(c))
				return c;
	}
	return -1;
}

bool hw_kmsg_has(const char *needle)
{
	char rec[2048];
	bool found = false;
	ssize_t n;
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return false;
	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* records overwritten meanwhile */
		if (n <= 0)
			break;
		rec[n] = 0;
		if (strstr(rec, needle))
			found = true;
	}
	close(fd);
	return found;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t hw_median(uint64_t *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[n / 2];
}
