/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the emulated-PMU selftests (selftests/pmu/): the guest
 * programs that prove, inside a QEMU TCG guest whose patched QEMU emulates
 * a counting Intel PMU (the contract: scripts/vm/qemu/pmu-spec.md, "The emulated PMU"),
 * that the emulation counts what it promises and that pmuctl and perf
 * count it exactly.
 *
 * The emulation is detected the way the contract says software detects
 * it: CPUID 0x40000000 EBX,ECX,EDX = "TCGTCGTCGTCG" (QEMU TCG's hypervisor
 * signature) and CPUID.0AH:EAX[7:0] >= 2.  Anywhere else (silicon, KVM, a
 * stock QEMU, this build host) each program is one SKIP decided in main().
 *
 * Known-count code is written in assembly, so the compiler adds nothing to
 * the counts; each piece says how many instructions it retires.
 */
#ifndef PMUCTL_SELFTESTS_PMU_H
#define PMUCTL_SELFTESTS_PMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

/*
 * The hardware tests' helpers (CPUID, one-line files, the kernel log) and
 * their test of the emulation (hw_cpu_is_emulated()) serve here too.
 */
#include "../hw/hw.h"
#include "../hw/emulated.h"

/* MSRs [SDM vol. 4; FACTS 1; scripts/vm/qemu/pmu-spec.md "Registers"]. */
#define MSR_PMC(i)		(0xc1U + (i))		/* legacy: 31:0 sign-extended */
#define MSR_EVTSEL(i)		(0x186U + (i))
#define MSR_A_PMC(i)		(0x4c1U + (i))		/* full width, PERF_CAPABILITIES[13] */
#define MSR_FIXED_CTR(i)	(0x309U + (i))
#define MSR_PERF_CAPABILITIES	0x345U
#define MSR_FIXED_CTR_CTRL	0x38dU
#define MSR_GLOBAL_STATUS	0x38eU
#define MSR_GLOBAL_CTRL		0x38fU
#define MSR_GLOBAL_OVF_CTRL	0x390U
#define MSR_OFFCORE_RSP0	0x1a6U
#define MSR_OFFCORE_RSP1	0x1a7U
#define MSR_PEBS_LD_LAT		0x3f6U
#define MSR_PEBS_FRONTEND	0x3f7U
#define MSR_PERF_METRICS	0x329U		/* PERF_CAPABILITIES[15] (pmu-spec.md) */
#define RDPMC_METRICS		(1U << 29)	/* rdpmc ECX of PERF_METRICS */

/* IA32_PERFEVTSELx fields [FACTS 1]. */
#define EVTSEL_USR		(1ULL << 16)
#define EVTSEL_OS		(1ULL << 17)
#define EVTSEL_EDGE		(1ULL << 18)
#define EVTSEL_INT		(1ULL << 20)	/* never set here: perf owns PMIs */
#define EVTSEL_ANY		(1ULL << 21)
#define EVTSEL_EN		(1ULL << 22)
#define EVTSEL_INV		(1ULL << 23)
#define EVTSEL_CMASK(n)		((uint64_t)(n) << 24)

/* IA32_FIXED_CTR_CTRL nibble of fixed counter i [FACTS 1]. */
#define FIXED_OS		0x1ULL
#define FIXED_USR		0x2ULL
#define FIXED_ANY		0x4ULL
#define FIXED_PMI		0x8ULL
#define FIXED_NIBBLE(i, v)	((uint64_t)(v) << (4 * (i)))

/* rdpmc ECX: bit 30 selects the fixed counters [FACTS 1]. */
#define RDPMC_FIXED		(1U << 30)

/* Events (event | umask << 8) [SDM vol. 3B Table 20-1; scripts/vm/qemu/pmu-spec.md "Events"]. */
#define EV_INST_RETIRED		0x00c0ULL	/* counted exactly */
#define EV_INST_RETIRED_01	0x01c0ULL	/* counted exactly */
#define EV_CORE_CYCLES		0x003cULL	/* = instructions (synthetic) */
#define EV_REF_CYCLES		0x013cULL	/* = instructions (synthetic) */
#define EV_TOPDOWN_SLOTS	0x01a4ULL	/* = slots per cycle x instructions */
/* EV_BRANCHES 0x00c4 (hw.h): counted exactly */
#define EV_BRANCH_MISSES	0x00c5ULL	/* 0 */
#define EV_LLC_MISSES		0x412eULL	/* 0 */

#define RDPMC_SYSFS	"/sys/bus/event_source/devices/cpu/rdpmc"
#define NMI_WATCHDOG	"/proc/sys/kernel/nmi_watchdog"
/* kernel/watchdog_hld.c (6.1) / watchdog_perf.c (6.12), pr_fmt "NMI watchdog: ". */
#define PERF_WATCHDOG_MSG	"Permanently consumes one hw-PMU counter"

/*
 * The rig's CPU models and what the rig configures for each
 * (scripts/vm/qemu/pmu-spec.md, "The rig's models").
 */
struct pmu_rig_model {
	const char *name;
	uint32_t model;			/* family 6 */
	uint32_t leafa_eax[2];		/* accepted CPUID.0AH:EAX values */
	uint32_t leafa_ebx, leafa_ecx, leafa_edx;
	uint64_t perf_caps;		/* 0: IA32_PERF_CAPABILITIES absent */
	uint64_t rsp_mask[2];		/* OFFCORE_RSP_0/1 valid bits (0: absent) */
	uint64_t ldlat_mask, frontend_mask;	/* 0: absent */
	/* TOPDOWN.SLOTS per synthetic cycle (pmu-slots-per-cycle; 0: no slots) */
	unsigned int slots_per_cycle;
	/* bytes of IA32_PERF_METRICS (pmu-metrics; 0: PERF_CAPABILITIES[15] clear) */
	unsigned int nr_metrics;
};

/* What CPUID says about the PMU (and what the rig model says). */
struct pmu_caps {
	uint32_t family, model;
	uint32_t eax, ebx, ecx, edx;	/* CPUID.0AH */
	unsigned int version, nr_gp, gp_width, nr_fixed, fixed_width;
	/* The fixed counters present: i < EDX[4:0], or (v5+) ECX bit i. */
	uint32_t fixed_mask;
	bool any_thread;		/* AnyThread exists: v3+, not deprecated */
	bool arch_slots;		/* architectural event 7 (0x01a4) enumerated */
	bool pdcm;			/* CPUID.1:ECX[15] */
	const struct pmu_rig_model *rig;	/* NULL: not one of the rig's */
};

void pmu_caps_read(struct pmu_caps *c);
uint64_t pmu_metrics_expect(const struct pmu_rig_model *m, uint64_t s0,
			    uint64_t v0, uint64_t n, uint64_t b);

/*
 * Why the emulated PMU cannot be tested here, or NULL.  @need_msr: also
 * /dev/cpu/0/msr (msr.ko with allow_writes=on).  Decided in main().
 */
const char *pmu_emulation_absent(bool need_msr);

/*
 * main() for an emulated-PMU test program (after kselftest_harness.h):
 * without the emulation (pmu_emulation_absent(@need_msr)) the whole
 * program is one SKIP with the reason; else @before, then the harness.
 */
#define PMU_TEST_MAIN(need_msr, before)					\
	static void __attribute__((constructor))			\
	__constructor_order_last(void)					\
	{								\
		if (!__constructor_order)				\
			__constructor_order = _CONSTRUCTOR_ORDER_BACKWARD; \
	}								\
	int main(int argc, char **argv)					\
	{								\
		const char *why = pmu_emulation_absent(need_msr);	\
									\
		if (why) {						\
			ksft_print_header();				\
			ksft_exit_skip("%s\n", why);			\
		}							\
		before;							\
		return test_harness_run(argc, argv);			\
	}

static inline uint64_t pmu_width_mask(unsigned int width)
{
	return width >= 64 ? ~0ULL : (1ULL << width) - 1;
}

/* ---- the machine --------------------------------------------------------- */

int pmu_pin(int cpu);				/* 0 or -errno */
/* kernel.nmi_watchdog is 1 (perf then holds a counter on every CPU). */
bool pmu_watchdog_on(void);

/*
 * A sysfs/procfs value changed for a test and put back after it: set()
 * remembers the old value the first time, restore() writes it back (no-op
 * if nothing was changed).  0 or -errno.
 */
struct pmu_knob {
	const char *path;
	char old[32];
	bool changed;
};
int pmu_knob_set(struct pmu_knob *k, const char *path, const char *val);
int pmu_knob_restore(struct pmu_knob *k);

/* /dev/cpu/N/msr: pread/pwrite at the MSR's index; EIO means #GP. */
int pmu_msr_open(int cpu);			/* fd or -errno */
int pmu_msr_read(int fd, uint32_t msr, uint64_t *v);	/* 0 or -errno */
int pmu_msr_write(int fd, uint32_t msr, uint64_t v);	/* 0 or -errno */

/* How a child ended: 0 (exit 0), the signal that killed it, or -1. */
int pmu_child_status(int wstatus);

/* @a zeroed, then its size, @type and @config set. */
void pmu_perf_attr(struct perf_event_attr *a, uint32_t type, uint64_t config);
/* perf_event_open(2) with FD_CLOEXEC: the fd, or -errno. */
int pmu_perf_open(struct perf_event_attr *a, pid_t pid, int cpu, int group);

/* ---- known-count code ------------------------------------------------------ */

/*
 * pmu_loop(n), n >= 1: "xor %eax,%eax; mov %rdi,%rcx; 1: dec %rcx; jnz 1b;
 * ret": PMU_LOOP_INSNS(n) = 2n + 3 instructions from its first to its ret,
 * plus the caller's call.  Its code lies in [pmu_loop, pmu_loop_end).
 */
#define PMU_LOOP_INSNS(n)	(2 * (uint64_t)(n) + 3)
void pmu_loop(uint64_t n);
extern const char pmu_loop_end[];

static inline uint64_t pmu_rdpmc(uint32_t ecx)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(ecx));
	return (uint64_t)hi << 32 | lo;
}

/*
 * Context switches of the calling thread so far (RUSAGE_THREAD, voluntary
 * and involuntary).  pmuctl's counters and the MSR-programmed ones count
 * the CPU, not the thread: a window in which this thread was switched out
 * also counts whatever ran there instead (another user task; the
 * guests keep busybox timeout's once-a-second watcher on CPU 0), so such
 * a window says nothing about exactness and is measured again
 * (PMU_WINDOW_TRIES).
 */
uint64_t pmu_switches(void);
#define PMU_WINDOW_TRIES	10

#endif /* PMUCTL_SELFTESTS_PMU_H */
