// SPDX-License-Identifier: GPL-2.0
/*
 * The CPUID leaves a PMU report needs, one line each, for "make hwreport"
 * (scripts/hwreport.sh):
 *
 *   vendor GenuineIntel family 6 model 0x55 stepping 4
 *   leaf 0x00000000.0 eax=... ebx=... ecx=... edx=...
 *   leaf 0x00000001.0 ...             (family, model, stepping; hybrid bit;
 *                                      EBX's initial APIC ID masked, so that
 *                                      CPUs of one kind print the same)
 *   leaf 0x0000000a.0 ...             (architectural perfmon)
 *   leaf 0x0000001a.0 ...             (hybrid core type), when listed
 *   leaf 0x00000023.N ...             (perfmon v6: subleaf 0 and each its
 *                                      EAX bitmap names), when listed
 *
 * Leaves above the maximum basic leaf (leaf 0's EAX) are not read: they
 * would return another leaf's data.  Reads nothing else; needs no
 * privilege.
 */
#include <cpuid.h>
#include <stdio.h>
#include <string.h>

static void leaf(unsigned int l, unsigned int sub)
{
	unsigned int a, b, c, d;

	__cpuid_count(l, sub, a, b, c, d);
	if (l == 1)
		b &= 0x00ffffff;	/* EBX[31:24]: this CPU's APIC ID */
	printf("leaf 0x%08x.%u eax=0x%08x ebx=0x%08x ecx=0x%08x edx=0x%08x\n",
	       l, sub, a, b, c, d);
}

int main(void)
{
	unsigned int max, a, b, c, d, family, model;
	char vendor[13];

	__cpuid(0, max, b, c, d);
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = 0;
	__cpuid(1, a, b, c, d);
	family = (a >> 8) & 0xf;
	model = (a >> 4) & 0xf;
	if (family == 0xf)
		family += (a >> 20) & 0xff;
	if (family == 6 || family >= 0xf)
		model |= ((a >> 16) & 0xf) << 4;
	printf("vendor %s family %u model 0x%x stepping %u max_leaf 0x%x\n",
	       vendor, family, model, a & 0xf, max);
	leaf(0, 0);
	leaf(1, 0);
	if (max >= 0xa)
		leaf(0xa, 0);
	if (max >= 0x1a)
		leaf(0x1a, 0);
	if (max >= 0x23) {
		unsigned int mask;

		__cpuid_count(0x23, 0, mask, b, c, d);
		leaf(0x23, 0);
		for (unsigned int s = 1; s < 32; s++)
			if (mask & (1u << s))
				leaf(0x23, s);
	}
	return 0;
}
