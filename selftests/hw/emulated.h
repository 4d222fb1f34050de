/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Is the PMU under us the emulated one: QEMU under TCG with pmuctl's patch
 * (scripts/vm/qemu/, contract in scripts/vm/qemu/pmu-spec.md) and -cpu MODEL,pmu=on?
 * Its contract says how software tells: CPUID 0x40000000 EBX, ECX, EDX
 * spell "TCGTCGTCGTCG" (TCG's hypervisor signature, on by default) and
 * CPUID.0AH:EAX[7:0], the perfmon version, is at least 2 (without pmu=on
 * leaf 0AH is all zero).  On silicon, leaf 0x40000000 lies above the
 * basic leaves and returns the highest basic leaf's data (Intel) or zeros
 * (AMD): never that signature.  Under KVM it spells "KVMKVMKVM".
 *
 * The one place every test program decides it: selftests/hw/, selftests/
 * pmu/ and selftests/bench/ (perf-count --emulated, for the shell tests).
 */
#ifndef PMUCTL_SELFTESTS_HW_EMULATED_H
#define PMUCTL_SELFTESTS_HW_EMULATED_H

#include <cpuid.h>
#include <stdbool.h>

#define HW_TCG_LEAF		0x40000000U
#define HW_PERFMON_LEAF		0x0aU
/* Architectural perfmon version 2: GLOBAL_CTRL, fixed counters. */
#define HW_EMULATED_MIN_VERSION	2U

static inline bool hw_cpu_is_emulated(void)
{
	static const char sig[12] = "TCGTCGTCGTCG";
	unsigned int a, b, c, d;
	unsigned int r[3];

	__cpuid(HW_TCG_LEAF, a, r[0], r[1], r[2]);
	for (int i = 0; i < 12; i++)
		if (((const char *)r)[i] != sig[i])
			return false;
	__cpuid(0, a, b, c, d);
	if (a < HW_PERFMON_LEAF)
		return false;
	__cpuid_count(HW_PERFMON_LEAF, 0, a, b, c, d);
	return (a & 0xff) >= HW_EMULATED_MIN_VERSION;
}

#endif /* PMUCTL_SELFTESTS_HW_EMULATED_H */
