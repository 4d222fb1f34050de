// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers of the emulated-PMU selftests: see pmu.h.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "pmu.h"

/*
 * pmu_loop(n): 2n + 3 instructions (pmu.h).  In assembly, so that the
 * count is the same for every compiler and flag.
 */
__asm__(".pushsection .text\n"
	".globl pmu_loop\n"
	".type pmu_loop, @function\n"
	".p2align 4\n"
	"pmu_loop:\n\t"
	"xor %eax, %eax\n\t"
	"mov %rdi, %rcx\n"
	"1:\n\t"
	"dec %rcx\n\t"
	"jnz 1b\n\t"
	"ret\n"
	".size pmu_loop, .-pmu_loop\n"
	".globl pmu_loop_end\n"
	"pmu_loop_end:\n"
	".popsection");

/* scripts/vm/qemu/pmu-spec.md, "The rig's models". */
static const struct pmu_rig_model rig_models[] = {
	{
		/* KnightsMill: pmu-gp=2 or the 4-counter variant pmu-gp=4. */
		.name = "KnightsMill",
		.model = 0x85,
		.leafa_eax = { 0x07280203, 0x07280403 },
		.leafa_ebx = 0,
		.leafa_edx = 0x503,
		.perf_caps = 0,
		.rsp_mask = { 0x799ffbb6e7ULL, 0x399ffbffe7ULL },
	},
	{
		/* Skylake-Server, as a Core i7-7800X reports it. */
		.name = "Skylake-Server",
		.model = 0x55,
		.leafa_eax = { 0x07300404, 0x07300404 },
		.leafa_ebx = 0,
		.leafa_edx = 0x603,
		.perf_caps = 0x2000,
		.rsp_mask = { 0x3fffff8fffULL, 0x3fffff8fffULL },
		.ldlat_mask = 0xffff,
		.frontend_mask = 0x7fff17,
	},
	{
		/*
		 * Icelake-Server as a Xeon Ice Lake-SP reports it (InstLatx64,
		 * GenuineIntel00606A6_ICX_04_CPUID.txt): v5, 8 x 48, 8
		 * architectural events, fixed counters 0-3 (ECX 0xf) x 48,
		 * AnyThread deprecated (EDX[15]); Linux 6.12's masks.
		 */
		.name = "Icelake-Server",
		.model = 0x6a,
		.leafa_eax = { 0x08300805, 0x08300805 },
		.leafa_ebx = 0,
		.leafa_ecx = 0xf,
		.leafa_edx = 0x8604,
		.perf_caps = 0xa000,
		.rsp_mask = { 0x3fffffbfffULL, 0x3fffffbfffULL },
		.ldlat_mask = 0xffff,
		.frontend_mask = 0x7fff17,
		.slots_per_cycle = 4,
		.nr_metrics = 4,
	},
	{
		/* SapphireRapids (GenuineIntel00806F8_SapphireRapids_05_CPUID.txt). */
		.name = "SapphireRapids",
		.model = 0x8f,
		.leafa_eax = { 0x08300805, 0x08300805 },
		.leafa_ebx = 0,
		.leafa_ecx = 0xf,
		.leafa_edx = 0x8604,
		.perf_caps = 0xa000,
		.rsp_mask = { 0x3fffffffffULL, 0x3fffffffffULL },
		.ldlat_mask = 0xffff,
		.frontend_mask = 0x7fff1f,
		.slots_per_cycle = 4,
		.nr_metrics = 8,
	},
};

/*
 * IA32_PERF_METRICS as the emulation computes it (pmu-spec.md, "Topdown
 * metrics"): fixed counter 3 held @s0 slots with PERF_METRICS @v0, then
 * counted @n instructions, @b of them branches.  Each metric is kept as
 * slots x 1020: the written byte over @s0 gives 4 x s0 x byte, an
 * instruction's slots divide in quarters (a branch: retiring 1, bad
 * speculation 2, frontend bound 1; any other: retiring 2, frontend 1,
 * backend 1; level 2: heavy operations 1 and branch mispredict 2 per
 * branch, fetch latency 1 and memory bound 1 per other instruction), and
 * a byte is the share in 255ths, rounded to the nearest.
 */
uint64_t pmu_metrics_expect(const struct pmu_rig_model *m, uint64_t s0,
			    uint64_t v0, uint64_t n, uint64_t b)
{
	const uint64_t o = n - b, q = m->slots_per_cycle * 255ULL;
	const uint64_t quarters[8] = {
		2 * o + b, 2 * b, o + b, o, b, 2 * b, o, o,
	};
	uint64_t s = s0 + m->slots_per_cycle * n, v = 0;

	if (!s)
		return 0;
	for (unsigned int i = 0; i < m->nr_metrics; i++) {
		uint64_t u = 4 * s0 * ((v0 >> (8 * i)) & 0xff) + quarters[i] * q;
		uint64_t byte = (u + 2 * s) / (4 * s);

		v |= (byte > 0xff ? 0xff : byte) << (8 * i);
	}
	return v;
}

void pmu_caps_read(struct pmu_caps *c)
{
	uint32_t r[4];
	uint32_t max;

	memset(c, 0, sizeof(*c));
	hw_cpuid(0, 0, r);
	max = r[0];
	hw_cpuid(1, 0, r);
	c->family = (r[0] >> 8) & 0xf;
	c->model = (r[0] >> 4) & 0xf;
	if (c->family == 0xf)
		c->family += (r[0] >> 20) & 0xff;
	if (c->family == 6 || c->family == 0xf)
		c->model |= ((r[0] >> 16) & 0xf) << 4;
	c->pdcm = r[2] & (1U << 15);
	if (max >= 0xa) {
		hw_cpuid(0xa, 0, r);
		c->eax = r[0];
		c->ebx = r[1];
		c->ecx = r[2];
		c->edx = r[3];
	}
	c->version = c->eax & 0xff;
	c->nr_gp = (c->eax >> 8) & 0xff;
	c->gp_width = (c->eax >> 16) & 0xff;
	c->nr_fixed = c->edx & 0x1f;
	c->fixed_width = (c->edx >> 5) & 0xff;
	c->fixed_mask = (uint32_t)pmu_width_mask(c->nr_fixed);
	if (c->version >= 5)
		c->fixed_mask |= c->ecx;
	c->any_thread = c->version >= 3 &&
			!(c->version >= 5 && (c->edx & (1U << 15)));
	c->arch_slots = ((c->eax >> 24) & 0xff) > 7 && !(c->ebx & (1U << 7));
	for (size_t i = 0; i < sizeof(rig_models) / sizeof(rig_models[0]); i++)
		if (c->family == 6 && c->model == rig_models[i].model)
			c->rig = &rig_models[i];
}

const char *pmu_emulation_absent(bool need_msr)
{
	static char why[200];
	struct pmu_caps c;
	uint32_t r[4];
	char sig[13];

	/* The decision is the one every test makes (hw/emulated.h). */
	if (!hw_cpu_is_emulated()) {
		hw_cpuid(0x40000000, 0, r);
		memcpy(sig, &r[1], 4);
		memcpy(sig + 4, &r[2], 4);
		memcpy(sig + 8, &r[3], 4);
		sig[12] = 0;
		for (int i = 0; i < 12; i++)
			if (sig[i] < 0x20 || sig[i] > 0x7e)
				sig[i] = '.';
		pmu_caps_read(&c);
		snprintf(why, sizeof(why),
			 "no emulated PMU: CPUID 0x40000000 signature \"%s\", CPUID.0AH:EAX %#x (version %u); the emulation is QEMU TCG (\"TCGTCGTCGTCG\") with -cpu ...,pmu=on (version >= 2)",
			 sig, c.eax, c.version);
		return why;
	}
	if (access(RDPMC_SYSFS, F_OK)) {
		snprintf(why, sizeof(why),
			 "no perf x86 PMU driver (%s missing)", RDPMC_SYSFS);
		return why;
	}
	if (need_msr && access("/dev/cpu/0/msr", F_OK)) {
		snprintf(why, sizeof(why),
			 "no /dev/cpu/0/msr (modprobe msr allow_writes=on)");
		return why;
	}
	return NULL;
}

int pmu_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

bool pmu_watchdog_on(void)
{
	char v[16];

	return !hw_read_line(NMI_WATCHDOG, v, sizeof(v)) && v[0] == '1';
}

int pmu_knob_set(struct pmu_knob *k, const char *path, const char *val)
{
	int ret;

	if (!k->changed) {
		ret = hw_read_line(path, k->old, sizeof(k->old));
		if (ret)
			return ret;
		k->path = path;
	}
	ret = hw_write_str(path, val);
	if (!ret)
		k->changed = true;
	return ret;
}

int pmu_knob_restore(struct pmu_knob *k)
{
	int ret;

	if (!k->changed)
		return 0;
	ret = hw_write_str(k->path, k->old);
	if (!ret)
		k->changed = false;
	return ret;
}

int pmu_msr_open(int cpu)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/dev/cpu/%d/msr", cpu);
	fd = open(path, O_RDWR | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int pmu_msr_read(int fd, uint32_t msr, uint64_t *v)
{
	ssize_t n = pread(fd, v, sizeof(*v), msr);

	if (n < 0)
		return -errno;
	return n == sizeof(*v) ? 0 : -EIO;
}

int pmu_msr_write(int fd, uint32_t msr, uint64_t v)
{
	ssize_t n = pwrite(fd, &v, sizeof(v), msr);

	if (n < 0)
		return -errno;
	return n == sizeof(v) ? 0 : -EIO;
}

int pmu_child_status(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus) ? -1 : 0;
	if (WIFSIGNALED(wstatus))
		return WTERMSIG(wstatus);
	return -1;
}

uint64_t pmu_switches(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return 0;
	return (uint64_t)ru.ru_nvcsw + (uint64_t)ru.ru_nivcsw;
}

void pmu_perf_attr(struct perf_event_attr *a, uint32_t type, uint64_t config)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = type;
	a->config = config;
}

int pmu_perf_open(struct perf_event_attr *a, pid_t pid, int cpu, int group)
{
	int fd = syscall(SYS_perf_event_open, a, pid, cpu, group,
			 PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}
