// SPDX-License-Identifier: GPL-2.0
/*
 * Hardware-free tests of pmuctl_caps_decode(): raw CPUID values in, the
 * PMU's capabilities out.
 *
 * The "dump" fixture has one variant per CPU; the values come from public
 * CPUID dumps, each cited where it is defined.  Vectors marked SYNTHETIC
 * were not taken from a dump: they are built from the documented field
 * layout (SDM vol. 2A CPUID leaf 0AH, FACTS section 1) to reach one rule.
 *
 * Dump formats: libcpuid's .test files print "basic_cpuid[leaf]=EAX EBX
 * ECX EDX"; the vendor string is EBX, EDX, ECX, as struct pmuctl_cpuid
 * stores it.
 */
#include <stdint.h>
#include <string.h>

#include "core.h"
#include "kselftest_harness.h"

/* CPUID.0 vendor words in EBX, EDX, ECX order, from the dumps below. */
#define VENDOR_INTEL	{ 0x756e6547, 0x49656e69, 0x6c65746e }	/* GenuineIntel */
#define VENDOR_AMD	{ 0x68747541, 0x69746e65, 0x444d4163 }	/* AuthenticAMD */

#define PDCM		(1U << 15)	/* CPUID.1:ECX[15] */
#define ANYT		PMUCTL_CAP_ANY_THREAD
#define ANYD		PMUCTL_CAP_ANY_DEPRECATED

/* Pack a 12-character vendor string the way CPUID.0 returns it: EBX, EDX, ECX. */
static void vendor_words(const char *s, u32 w[3])
{
	int i, j;

	for (i = 0; i < 3; i++) {
		w[i] = 0;
		for (j = 0; j < 4; j++)
			w[i] |= (u32)(unsigned char)s[4 * i + j] << (8 * j);
	}
}

FIXTURE(dump) {
	struct pmuctl_caps caps;
	u32 reason;
	int ret;
};

FIXTURE_VARIANT(dump) {
	const char *cpu;
	struct pmuctl_cpuid id;
	int ret;
	u32 reason;
	struct pmuctl_caps want;	/* on success */
	const char *pmu;		/* pmuctl_model_match() on success */
};

/*
 * Intel Core i7-7800X (Skylake-X, family 6 model 0x55 stepping 4).
 * Source: libcpuid tests/intel/core_6th_gen/skylake-x-i7.test
 * (github.com/anrieff/libcpuid): basic_cpuid[0]=00000016 756e6547 6c65746e
 * 49656e69, [1]=00050654 0a100800 7ffefbbf bfebfbff,
 * [10]=07300404 00000000 00000000 00000603.  Perfmon v4, 4 generic
 * counters (HT on) of 48 bits, 7 architectural events, 3 fixed of 48 bits.
 */
FIXTURE_VARIANT_ADD(dump, skylake_x_i7_7800x) {
	.cpu = "Core i7-7800X",
	.id = { .max_leaf = 0x16, .vendor = VENDOR_INTEL,
		.leaf1_eax = 0x00050654, .leaf1_ecx = 0x7ffefbbf,
		.leafa_eax = 0x07300404, .leafa_ebx = 0, .leafa_ecx = 0,
		.leafa_edx = 0x00000603 },
	.want = { .family = 6, .model = 0x55, .stepping = 4, .version = 4,
		  .nr_gp = 4, .gp_width = 48, .nr_fixed = 3, .fixed_width = 48,
		  .fixed_mask = 0x7, .events_unavailable = 0xffffff80,
		  .flags = ANYT },
	.pmu = "skl",
};

/*
 * Intel Core i7-1065G7 (Ice Lake, family 6 model 0x7e stepping 5).
 * Source: libcpuid tests/intel/core_10th_gen/ice-lake-i7.test:
 * [0]=0000001b ..., [1]=000706e5 00100800 7ffafbbf bfebfbff,
 * [10]=08300805 00000000 0000000f 00008604.  Perfmon v5: 8 generic
 * counters, 8 architectural events (TOPDOWN.SLOTS included), ECX fixed
 * bitmap 0xf, EDX 4 fixed of 48 bits, EDX[15] AnyThread deprecated.
 */
FIXTURE_VARIANT_ADD(dump, ice_lake_i7_1065g7) {
	.cpu = "Core i7-1065G7",
	.id = { .max_leaf = 0x1b, .vendor = VENDOR_INTEL,
		.leaf1_eax = 0x000706e5, .leaf1_ecx = 0x7ffafbbf,
		.leafa_eax = 0x08300805, .leafa_ebx = 0, .leafa_ecx = 0x0000000f,
		.leafa_edx = 0x00008604 },
	.want = { .family = 6, .model = 0x7e, .stepping = 5, .version = 5,
		  .nr_gp = 8, .gp_width = 48, .nr_fixed = 4, .fixed_width = 48,
		  .fixed_mask = 0xf, .events_unavailable = 0xffffff00,
		  .flags = ANYD },
	.pmu = "icl",
};

/*
 * Intel Meteor Lake (family 6 model 0xaa stepping 4).  Source: the CPUID
 * of a Meteor Lake part posted in github.com/pytorch/cpuinfo pull request
 * #247 (fed to Intel SDE there): 00000000 => 00000023 756E6547 6C65746E
 * 49656E69, 00000001 => 000A06A4 11800800 7FFAFBFF BFEBFBFF,
 * 0000000A => 07300805 00000000 00000007 00008603.  Perfmon v5 with an
 * ECX fixed bitmap of 0x7 and EDX[15] set.  That source quotes no leaf 7,
 * so leaf7_edx is 0 here: on silicon CPUID.(7,0):EDX[15] (hybrid) is set
 * and the decode is refused (mtl_ultra7_155h below, from a full dump).
 */
FIXTURE_VARIANT_ADD(dump, meteor_lake) {
	.cpu = "Meteor Lake",
	.id = { .max_leaf = 0x23, .vendor = VENDOR_INTEL,
		.leaf1_eax = 0x000a06a4, .leaf1_ecx = 0x7ffafbff,
		.leafa_eax = 0x07300805, .leafa_ebx = 0, .leafa_ecx = 0x00000007,
		.leafa_edx = 0x00008603 },
	.want = { .family = 6, .model = 0xaa, .stepping = 4, .version = 5,
		  .nr_gp = 8, .gp_width = 48, .nr_fixed = 3, .fixed_width = 48,
		  .fixed_mask = 0x7, .events_unavailable = 0xffffff80,
		  .flags = ANYD },
	.pmu = "arch",
};

/*
 * Intel Pentium Dual-Core E5200 (Wolfdale, family 6 model 0x17).
 * Source: libcpuid tests/intel/core2/wolfdale.test: [0]=0000000a ...,
 * [1]=00010676 01020800 0000e39d bfebfbff,
 * [10]=07280202 00000000 00000000 00000503.  Perfmon v2: 2 generic
 * counters of 40 bits, 3 fixed of 40 bits, no AnyThread.
 */
FIXTURE_VARIANT_ADD(dump, wolfdale_e5200) {
	.cpu = "Pentium E5200",
	.id = { .max_leaf = 0xa, .vendor = VENDOR_INTEL,
		.leaf1_eax = 0x00010676, .leaf1_ecx = 0x0000e39d,
		.leafa_eax = 0x07280202, .leafa_ebx = 0, .leafa_ecx = 0,
		.leafa_edx = 0x00000503 },
	.want = { .family = 6, .model = 0x17, .stepping = 6, .version = 2,
		  .nr_gp = 2, .gp_width = 40, .nr_fixed = 3, .fixed_width = 40,
		  .fixed_mask = 0x7, .events_unavailable = 0xffffff80 },
	.pmu = "arch",
};

/*
 * Intel Core i7-920 (Bloomfield/Nehalem, family 6 model 0x1a stepping 4).
 * Source: libcpuid tests/intel/core_1st_gen/bloomfield.test: [0]=0000000b
 * ..., [1]=000106a4 03100800 0098e3bd bfebfbff,
 * [10]=07300403 00000040 00000000 00000603.  EBX bit 6: branch misses
 * retired reported unavailable.
 */
FIXTURE_VARIANT_ADD(dump, bloomfield_i7_920) {
	.cpu = "Core i7-920",
	.id = { .max_leaf = 0xb, .vendor = VENDOR_INTEL,
		.leaf1_eax = 0x000106a4, .leaf1_ecx = 0x0098e3bd,
		.leafa_eax = 0x07300403, .leafa_ebx = 0x00000040, .leafa_ecx = 0,
		.leafa_edx = 0x00000603 },
	.want = { .family = 6, .model = 0x1a, .stepping = 4, .version = 3,
		  .nr_gp = 4, .gp_width = 48, .nr_fixed = 3, .fixed_width = 48,
		  .fixed_mask = 0x7, .events_unavailable = 0xffffffc0,
		  .flags = ANYT },
	.pmu = "arch",
};

/*
 * Intel Xeon W3550 (Nehalem, family 6 model 0x1a stepping 5).  Source:
 * the sample output in the README of the cpuid.py project on GitHub
 * ("CPUID A B C D" table): 00000000 0000000b 756e6547 6c65746e 49656e69,
 * 00000001 000106a5 00100800 009ce3bd bfebfbff,
 * 0000000a 07300403 00000044 00000000 00000603.  EBX bits 2 and 6.
 */
FIXTURE_VARIANT_ADD(dump, nehalem_xeon_w3550) {
	.cpu = "Xeon W3550",
	.id = { .max_leaf = 0xb, .vendor = VENDOR_INTEL,
		.leaf1_eax = 0x000106a5, .leaf1_ecx = 0x009ce3bd,
		.leafa_eax = 0x07300403, .leafa_ebx = 0x00000044, .leafa_ecx = 0,
		.leafa_edx = 0x00000603 },
	.want = { .family = 6, .model = 0x1a, .stepping = 5, .version = 3,
		  .nr_gp = 4, .gp_width = 48, .nr_fixed = 3, .fixed_width = 48,
		  .fixed_mask = 0x7, .events_unavailable = 0xffffffc4,
		  .flags = ANYT },
	.pmu = "arch",
};

/*
 * Intel Xeon Phi 7210 (Knights Landing).  leaf1_eax follows from the
 * /proc/cpuinfo of a 7210 quoted in a GitHub README (family 6, model 87,
 * stepping 1, "cpuid level : 13").  SYNTHETIC: leaf 0AH and leaf 1 ECX;
 * no public KNL dump of leaf 0AH was found.  Built from what libpfm4 and
 * LIKWID say of KNL (2 generic counters; FACTS 1), with the 40-bit widths
 * of the Silvermont core KNL derives from, perfmon v3, 3 fixed counters.
 */
FIXTURE_VARIANT_ADD(dump, knights_landing_synthetic) {
	.cpu = "Xeon Phi 7210 (leaf 0AH synthetic)",
	.id = { .max_leaf = 0xd, .vendor = VENDOR_INTEL,
		.leaf1_eax = 0x00050671, .leaf1_ecx = PDCM,
		.leafa_eax = 0x07280203, .leafa_ebx = 0, .leafa_ecx = 0,
		.leafa_edx = 0x00000503, .perf_capabilities = 0 },
	.want = { .family = 6, .model = 0x57, .stepping = 1, .version = 3,
		  .nr_gp = 2, .gp_width = 40, .nr_fixed = 3, .fixed_width = 40,
		  .fixed_mask = 0x7, .events_unavailable = 0xffffff80,
		  .flags = ANYT },
	.pmu = "knl",
};

/*
 * Knights Mill (family 6 model 0x85).  SYNTHETIC throughout: signature
 * from the model number, leaf 0AH as for Knights Landing but with the 4
 * generic counters the KNM man page claims, to show CPUID, not a table,
 * decides the count.
 */
FIXTURE_VARIANT_ADD(dump, knights_mill_synthetic) {
	.cpu = "Knights Mill (synthetic)",
	.id = { .max_leaf = 0xd, .vendor = VENDOR_INTEL,
		.leaf1_eax = 0x00080650, .leaf1_ecx = 0,
		.leafa_eax = 0x07280403, .leafa_ebx = 0, .leafa_ecx = 0,
		.leafa_edx = 0x00000503 },
	.want = { .family = 6, .model = 0x85, .stepping = 0, .version = 3,
		  .nr_gp = 4, .gp_width = 40, .nr_fixed = 3, .fixed_width = 40,
		  .fixed_mask = 0x7, .events_unavailable = 0xffffff80,
		  .flags = ANYT },
	.pmu = "knm",
};

/*
 * Intel Core Duo T2400 (Yonah, family 6 model 0xe): perfmon version 1.
 * Source: libcpuid tests/intel/core2/yonah.test: [0]=0000000a ...,
 * [1]=000006e8 01020800 0000c1a9 bfe9fbff,
 * [10]=07280201 00000000 00000000 00000000.
 */
FIXTURE_VARIANT_ADD(dump, yonah_t2400_v1) {
	.cpu = "Core Duo T2400",
	.id = { .max_leaf = 0xa, .vendor = VENDOR_INTEL,
		.leaf1_eax = 0x000006e8, .leaf1_ecx = 0x0000c1a9,
		.leafa_eax = 0x07280201 },
	.ret = -ENODEV, .reason = PMUCTL_R_NO_ARCH_PERFMON,
};

/*
 * Intel Pentium M 1.60GHz (Dothan): CPUID.0:EAX = 2, no leaf 0AH.
 * Source: libcpuid tests/intel/ia-32/netburst/
 * intel-pentium-m-processor-1.60ghz.test: CPUID 00000000: 00000002-
 * 756E6547-6C65746E-49656E69, 00000001: 000006D8-00000816-00000180-
 * AFE9FBFF, 00000002: 02B3B001-000000F0-00000000-2C04307D.  Asking for
 * leaf 0AH there returns the highest basic leaf (SDM vol. 2A CPUID), so
 * the leaf 0AH words are leaf 2's.
 */
FIXTURE_VARIANT_ADD(dump, pentium_m_dothan_max_leaf_2) {
	.cpu = "Pentium M 1.60GHz",
	.id = { .max_leaf = 0x2, .vendor = VENDOR_INTEL,
		.leaf1_eax = 0x000006d8, .leaf1_ecx = 0x00000180,
		.leafa_eax = 0x02b3b001, .leafa_ebx = 0x000000f0, .leafa_ecx = 0,
		.leafa_edx = 0x2c04307d },
	.ret = -ENODEV, .reason = PMUCTL_R_NO_ARCH_PERFMON,
};

/*
 * AMD Ryzen 7 1800X (Summit Ridge).  Source: libcpuid
 * tests/amd/zen/ryzen7-summit-ridge.test: [0]=0000000d 68747541 444d4163
 * 69746e65, [1]=00800f11 00100800 7ed8320b 178bfbff, [10]=0 0 0 0.
 */
FIXTURE_VARIANT_ADD(dump, amd_ryzen7_1800x) {
	.cpu = "Ryzen 7 1800X",
	.id = { .max_leaf = 0xd, .vendor = VENDOR_AMD,
		.leaf1_eax = 0x00800f11, .leaf1_ecx = 0x7ed8320b },
	.ret = -ENODEV, .reason = PMUCTL_R_NOT_INTEL,
};

/*
 * A QEMU TCG guest with -cpu Skylake-Server: CPUID.0AH reads zero (observed
 * on this project's build machines, FACTS 4).  leaf1_eax/max_leaf are
 * SYNTHETIC (QEMU's Skylake-Server signature 0x50654, max leaf 0xd).
 */
FIXTURE_VARIANT_ADD(dump, tcg_guest_leaf_0a_zero) {
	.cpu = "QEMU TCG Skylake-Server",
	.id = { .max_leaf = 0xd, .vendor = VENDOR_INTEL,
		.leaf1_eax = 0x00050654, .leaf1_ecx = 0 },
	.ret = -ENODEV, .reason = PMUCTL_R_NO_ARCH_PERFMON,
};

/* ------------------------------------------------------------------ */
/*
 * Today's Intel cores, from the AIDA64 CPUID dumps InstLatx64 publishes:
 * github.com/InstLatx64/InstLatx64, GenuineIntel/<file>, at the commit
 * named with each (dump format "CPUID 0000000A: EAX-EBX-ECX-EDX", one
 * section per logical CPU; the vendor words print as EBX-ECX-EDX).  Each
 * vector takes leaves 0, 1, 7.0 and 0AH of logical CPU #0 (hybrid parts:
 * of the first CPU of each core type); leaves 1AH and 23H, which struct
 * pmuctl_cpuid does not carry, are quoted in the comment.
 *
 * Expected values are read off the SDM vol. 2A CPUID leaf 0AH fields
 * (FACTS 1): EAX 0x08300805 = version 5, 8 generic counters, 48 bits,
 * 8 architectural events (vector bits 8..31 unavailable: 0xffffff00);
 * ECX 0xf = fixed counters 0-3; EDX 0x8604 = 4 fixed counters of
 * (0x8604 >> 5) & 0xff = 48 bits, EDX[15] AnyThread deprecated.
 *
 * ASSUMPTION: no public dump gives IA32_PERF_CAPABILITIES (AIDA64's MSR
 * section does not list 0x345).  Every part below has PDCM (CPUID.1:ECX
 * bit 15 set in its dump), and Linux's boot line reports "full-width
 * counters" (printed when PERF_CAPABILITIES bit 13 is set, Linux 6.12
 * intel_pmu_init()) on Ice/Tiger Lake and Lunar Lake (e.g. intel/pcm
 * issue #895); so these vectors feed bit 13 alone and expect it back.
 */
#define FWW		PMUCTL_CAP_FULL_WIDTH_WRITE
#define PERF_CAP_FW	(1ULL << 13)	/* ASSUMED, see above */

/* The v5 caps every Sunny/Willow/Cypress/Golden/Raptor/Redwood Cove dump shows. */
#define CAPS_V5_8GP_4FIX(fam, mod, step)					\
	{ .family = fam, .model = mod, .stepping = step, .version = 5,		\
	  .nr_gp = 8, .gp_width = 48, .nr_fixed = 4, .fixed_width = 48,		\
	  .fixed_mask = 0xf, .events_unavailable = 0xffffff00,			\
	  .flags = ANYD | FWW, .perf_capabilities = PERF_CAP_FW }

/* Leaf 0AH 07300605-0-7-8603: v5, 6 GP of 48 bits, 7 events, fixed 0-2. */
#define CAPS_V5_6GP_3FIX(fam, mod, step)					\
	{ .family = fam, .model = mod, .stepping = step, .version = 5,		\
	  .nr_gp = 6, .gp_width = 48, .nr_fixed = 3, .fixed_width = 48,		\
	  .fixed_mask = 0x7, .events_unavailable = 0xffffff80,			\
	  .flags = ANYD | FWW, .perf_capabilities = PERF_CAP_FW }

/*
 * Leaf 0AH 0D300806-00000280-00000007-00008603 (Lunar/Arrow Lake-S):
 * version 6, 8 GP of 48 bits, 13 events with 7 (TOPDOWN.SLOTS) and 9
 * (TOPDOWN.BAD_SPEC) unavailable: ~0 << 13 | 0x280 = 0xffffe280; fixed
 * 0-2 of 48 bits, AnyThread deprecated.
 */
#define CAPS_V6_HYBRID(fam, mod, step)						\
	{ .family = fam, .model = mod, .stepping = step, .version = 6,		\
	  .nr_gp = 8, .gp_width = 48, .nr_fixed = 3, .fixed_width = 48,		\
	  .fixed_mask = 0x7, .events_unavailable = 0xffffe280,			\
	  .flags = ANYD | FWW, .perf_capabilities = PERF_CAP_FW }

/*
 * Core i7-1065G7 (Ice Lake-U, 6/0x7e/5).  GenuineIntel00706E5_IceLakeY_CPUID.txt
 * @ddff8a9210c9: 0 = 0000001B, 1 = 000706E5-00100800-7FFAFBBF-BFEBFBFF,
 * 7.0 EDX = BC000410, 0A = 08300805-00000000-0000000F-00008604, 1A = 0.
 * (IceLakeY_CPUID2/3 are the same.)
 */
FIXTURE_VARIANT_ADD(dump, icl_i7_1065g7_instlat) {
	.cpu = "Core i7-1065G7 (InstLatx64)",
	.id = { .max_leaf = 0x1b, .vendor = VENDOR_INTEL,
		.leaf1_eax = 0x000706e5, .leaf1_ecx = 0x7ffafbbf,
		.leafa_eax = 0x08300805, .leafa_ebx = 0, .leafa_ecx = 0x0000000f,
		.leafa_edx = 0x00008604, .leaf7_edx = 0xbc000410,
		.perf_capabilities = PERF_CAP_FW },
	.want = CAPS_V5_8GP_4FIX(6, 0x7e, 5),
	.pmu = "icl",
};

/*
 * Xeon Platinum 8351N (Ice Lake-SP, 6/0x6a/6).  GenuineIntel00606A6_ICX_CPUID3.txt
 * @15a9acc19997: 0 = 0000001B, 1 = 000606A6-00800800-7FFEFBFF-BFEBFBFF,
 * 7.0 EDX = BC040412, 0A = 08300805-00000000-0000000F-00008604, 1A = 0.
 */
FIXTURE_VARIANT_ADD(dump, icx_xeon_8351n) {
	.cpu = "Xeon Platinum 8351N",
	.id = { .max_leaf = 0x1b, .vendor = VENDOR_INTEL,
		.leaf1_eax = 0x000606a6, .leaf1_ecx = 0x7ffefbff,
		.leafa_eax = 0x08300805, .leafa_ebx = 0, .leafa_ecx = 0x0000000f,
		.leafa_edx = 0x00008604, .leaf7_edx = 0xbc040412,
		.perf_capabilities = PERF_CAP_FW },
	.want = CAPS_V5_8GP_4FIX(6, 0x6a, 6),
	.pmu = "icx",
};

/*
 * Xeon D-1718T (Ice Lake-D, 6/0x6c/1), seen from a guest: CPUID.1:ECX
 * bit 31 (hypervisor) is set.  GenuineIntel00606C1_ICX_01v_CPUID.txt
 * @936e7e1c8013: 0 = 0000001B, 1 = 000606C1-00200800-FFFAF387-BFEBFBFF,
 * 7.0 EDX = BC000410, 0A = 08300805-00000000-0000000F-00008604.
 */
FIXTURE_VARIANT_ADD(dump, icx_d_xeon_d1718t_guest) {
	.cpu = "Xeon D-1718T (guest)",
	.id = { .max_leaf = 0x1b, .vendor = VENDOR_INTEL,
		.leaf1_eax = 0x000606c1, .leaf1_ecx = 0xfffaf387,
		.leafa_eax = 0x08300805, .leafa_ebx = 0, .leafa_ecx = 0x0000000f,
		.leafa_edx = 0x00008604, .leaf7_edx = 0xbc000410,
		.perf_capabilities = PERF_CAP_FW },
	.want = CAPS_V5_8GP_4FIX(6, 0x6c, 1),
	.pmu = "icx",
};

/*
 * Core i5-1135G7 (Tiger Lake-UP3, 6/0x8c/1).  GenuineIntel00806C1_TigerLake_01_CPUID.txt
 * @d993c2d5e7d3: 0 = 0000001B, 1 = 000806C1-00100800-7FFAFBBF-BFEBFBFF,
 * 7.0 EDX = FC100510, 0A = 08300805-00000000-0000000F-00008604, 1A = 0.
 * (TigerLake_CPUID3/5/6/9 are the same.)
 */
FIXTURE_VARIANT_ADD(dump, tgl_i5_1135g7) {
	.cpu = "Core i5-1135G7",
	.id = { .max_leaf = 0x1b, .vendor = VENDOR_INTEL,
		.leaf1_eax = 0x000806c1, .leaf1_ecx = 0x7ffafbbf,
		.leafa_eax = 0x08300805, .leafa_ebx = 0, .leafa_ecx = 0x0000000f,
		.leafa_edx = 0x00008604, .leaf7_edx = 0xfc100510,
		.perf_capabilities = PERF_CAP_FW },
	.want = CAPS_V5_8GP_4FIX(6, 0x8c, 1),
	.pmu = "icl",
};

/*
 * Core i7-11800H (Tiger Lake-H, 6/0x8d/1).  GenuineIntel00806D1_TigerLakeH_CPUID1.txt
 * @de028a6ffb2c: 0 = 0000001B, 1 = 000806D1-00100800-7FFAFBBF-BFEBFBFF,
 * 7.0 EDX = FC100510, 0A = 08300805-00000000-0000000F-00008604.
 */
FIXTURE_VARIANT_ADD(dump, tgl_h_i7_11800h) {
	.cpu = "Core i7-11800H",
	.id = { .max_leaf = 0x1b, .vendor = VENDOR_INTEL,
		.leaf1_eax = 0x000806d1, .leaf1_ecx = 0x7ffafbbf,
		.leafa_eax = 0x08300805, .leafa_ebx = 0, .leafa_ecx = 0x0000000f,
		.leafa_edx = 0x00008604, .leaf7_edx = 0xfc100510,
		.perf_capabilities = PERF_CAP_FW },
	.want = CAPS_V5_8GP_4FIX(6, 0x8d, 1),
	.pmu = "icl",
};

/*
 * Core i9-11900K (Rocket Lake-S, 6/0xa7/1).  GenuineIntel00A0671_RocketLake_01_CPUID.txt
 * @d993c2d5e7d3: 0 = 0000001B, 1 = 000A0671-00100800-7FFAFBFF-BFEBFBFF,
 * 7.0 EDX = BC000410, 0A = 08300805-00000000-0000000F-00008604, 1A = 0.
 */
FIXTURE_VARIANT_ADD(dump, rkl_i9_11900k) {
	.cpu = "Core i9-11900K",
	.id = { .max_leaf = 0x1b, .vendor = VENDOR_INTEL,
		.leaf1_eax = 0x000a0671, .leaf1_ecx = 0x7ffafbff,
		.leafa_eax = 0x08300805, .leafa_ebx = 0, .leafa_ecx = 0x0000000f,
		.leafa_edx = 0x00008604, .leaf7_edx = 0xbc000410,
		.perf_capabilities = PERF_CAP_FW },
	.want = CAPS_V5_8GP_4FIX(6, 0xa7, 1),
	.pmu = "icl",
};

/*
 * Xeon w7-2475X (Sapphire Rapids, 6/0x8f/8).  GenuineIntel00806F8_SapphireRapids_05_CPUID.txt
 * @954a632d8a33: 0 = 00000020, 1 = 000806F8-00800800-7FFEFBFF-BFEBFBFF,
 * 7.0 EDX = FFDD4430, 0A = 08300805-00000000-0000000F-00008604, 1A = 0.
 * (SapphireRapids_06 is the same.)
 */
FIXTURE_VARIANT_ADD(dump, spr_xeon_w7_2475x) {
	.cpu = "Xeon w7-2475X",
	.id = { .max_leaf = 0x20, .vendor = VENDOR_INTEL,
		.leaf1_eax = 0x000806f8, .leaf1_ecx = 0x7ffefbff,
		.leafa_eax = 0x08300805, .leafa_ebx = 0, .leafa_ecx = 0x0000000f,
		.leafa_edx = 0x00008604, .leaf7_edx = 0xffdd4430,
		.perf_capabilities = PERF_CAP_FW },
	.want = CAPS_V5_8GP_4FIX(6, 0x8f, 8),
	.pmu = "spr",
};

/*
 * Xeon Gold 5520+ (Emerald Rapids, 6/0xcf/2).  GenuineIntel00C06F2_EmeraldRapids_01_CPUID.txt
 * @e6586f35926c: 0 = 00000020, 1 = 000C06F2-00800800-7FFEFBFF-BFEBFBFF,
 * 7.0 EDX = FFDD4432, 0A = 08300805-00000000-0000000F-00008604, 1A = 0.
 * (EmeraldRapids_02/03 are the same.)
 */
FIXTURE_VARIANT_ADD(dump, emr_xeon_gold_5520p) {
	.cpu = "Xeon Gold 5520+",
	.id = { .max_leaf = 0x20, .vendor = VENDOR_INTEL,
		.leaf1_eax = 0x000c06f2, .leaf1_ecx = 0x7ffefbff,
		.leafa_eax = 0x08300805, .leafa_ebx = 0, .leafa_ecx = 0x0000000f,
		.leafa_edx = 0x00008604, .leaf7_edx = 0xffdd4432,
		.perf_capabilities = PERF_CAP_FW },
	.want = CAPS_V5_8GP_4FIX(6, 0xcf, 2),
	.pmu = "spr",
};

/*
 * Xeon 658X (Granite Rapids, 6/0xad/1).  GenuineIntel00A06D1_GraniteRapids_03_CPUID.txt
 * @ae88464b1b88: 0 = 00000024, 1 = 000A06D1-00800800-7FFEFBFF-BFEBFBFF,
 * 7.0 EDX = FFDD4430 (bit 15 clear: not hybrid),
 * 0A = 08300805-00000000-0000000F-00008604.  Not hybrid, yet leaf 1AH
 * reads 40000002 (core type 0x40 "Core") and leaf 23H exists: 23.0 EAX
 * 0000000B (sub-leaves 0, 1, 3), 23.1 = 000000FF-0000000F (GP 0-7,
 * fixed 0-3), 23.3 EAX = 00000DFF.
 */
FIXTURE_VARIANT_ADD(dump, gnr_xeon_658x) {
	.cpu = "Xeon 658X",
	.id = { .max_leaf = 0x24, .vendor = VENDOR_INTEL,
		.leaf1_eax = 0x000a06d1, .leaf1_ecx = 0x7ffefbff,
		.leafa_eax = 0x08300805, .leafa_ebx = 0, .leafa_ecx = 0x0000000f,
		.leafa_edx = 0x00008604, .leaf7_edx = 0xffdd4430,
		.perf_capabilities = PERF_CAP_FW },
	.want = CAPS_V5_8GP_4FIX(6, 0xad, 1),
	.pmu = "gnr",
};

/*
 * Core i5-12400 (Alder Lake-S 6P+0E die, 6/0x97/2): the hybrid family
 * without E-cores, CPUID.(7,0):EDX[15] clear, leaf 1AH 0, and leaf 0AH
 * the whole Golden Cove PMU.  GenuineIntel0090672_AlderLake_02_CPUID.txt
 * @05af55923a2c: 0 = 00000020, 1 = 00090672-00200800-7FFAFBBF-BFEBFBFF,
 * 7.0 EDX = FC984510, 0A = 08300805-00000000-0000000F-00008604.
 * Decoded, with the Golden Cove table.
 */
FIXTURE_VARIANT_ADD(dump, adl_s_i5_12400_no_ecores) {
	.cpu = "Core i5-12400",
	.id = { .max_leaf = 0x20, .vendor = VENDOR_INTEL,
		.leaf1_eax = 0x00090672, .leaf1_ecx = 0x7ffafbbf,
		.leafa_eax = 0x08300805, .leafa_ebx = 0, .leafa_ecx = 0x0000000f,
		.leafa_edx = 0x00008604, .leaf7_edx = 0xfc984510,
		.perf_capabilities = PERF_CAP_FW },
	.want = CAPS_V5_8GP_4FIX(6, 0x97, 2),
	.pmu = "adl_glc",
};

/*
 * Xeon 6315P (Raptor Lake-E, 4 P-cores, 6/0xb7/1): not hybrid (7.0 EDX
 * bit 15 clear, 1AH 0).  GenuineIntel00B0671_RaptorLake_14_CPUID.txt
 * @ae88464b1b88: 0 = 00000020, 1 = 000B0671-00200800-7FFAFBFF-BFEBFBFF,
 * 7.0 EDX = FC1C4410, 0A = 08300805-00000000-0000000F-00008604.
 */
FIXTURE_VARIANT_ADD(dump, rpl_e_xeon_6315p) {
	.cpu = "Xeon 6315P",
	.id = { .max_leaf = 0x20, .vendor = VENDOR_INTEL,
		.leaf1_eax = 0x000b0671, .leaf1_ecx = 0x7ffafbff,
		.leafa_eax = 0x08300805, .leafa_ebx = 0, .leafa_ecx = 0x0000000f,
		.leafa_edx = 0x00008604, .leaf7_edx = 0xfc1c4410,
		.perf_capabilities = PERF_CAP_FW },
	.want = CAPS_V5_8GP_4FIX(6, 0xb7, 1),
	.pmu = "adl_glc",
};

/*
 * Core i3-N305 (Alder Lake-N, Gracemont E-cores only, 6/0xbe/0): not
 * hybrid (7.0 EDX bit 15 clear) though leaf 1AH reads 20000001 (Atom).
 * GenuineIntel00B06E0_AlderLakeN_03_CPUID.txt @638cd3877b39:
 * 0 = 00000020, 1 = 000B06E0-00800800-7FFAFBBF-BFEBFBFF, 7.0 EDX =
 * FC184410, 0A = 07300605-00000000-00000007-00008603: version 5, 6
 * generic counters of 48 bits, 7 architectural events (0xffffff80),
 * fixed 0-2 (ECX 7, EDX[4:0] 3) of 48 bits, AnyThread deprecated.
 * (AlderLakeN_02 and TwinLake_01 are the same.)
 */
FIXTURE_VARIANT_ADD(dump, adl_n_i3_n305) {
	.cpu = "Core i3-N305",
	.id = { .max_leaf = 0x20, .vendor = VENDOR_INTEL,
		.leaf1_eax = 0x000b06e0, .leaf1_ecx = 0x7ffafbbf,
		.leafa_eax = 0x07300605, .leafa_ebx = 0, .leafa_ecx = 0x00000007,
		.leafa_edx = 0x00008603, .leaf7_edx = 0xfc184410,
		.perf_capabilities = PERF_CAP_FW },
	.want = CAPS_V5_6GP_3FIX(6, 0xbe, 0),
	.pmu = "adl_grt",
};

/*
 * Hybrid parts: CPUID.(7,0):EDX[15] set on every logical CPU.  The core
 * types' leaves 0, 1 EAX/ECX, 7.0, 7.1 and 0AH are the same in every dump
 * below; they differ in leaf 1 EBX (the APIC id) and leaves 1AH and 23H,
 * so each part has one vector per core type: the first CPU of each type.
 * Leaf 0AH is what the types share; each type's own counters come from
 * leaf 23H sub-leaf 1 where CPUID.(7,1):EAX[8] and 23H.0:EAX[1] say it
 * exists (Meteor Lake on), else from Linux 6.12's Alder Lake rule for the
 * Core type (intel_pmu_init(): generic mask << 2 | 3, fixed << 1 | 1,
 * undone above 8 / 4).
 */
#define HYB		PMUCTL_CAP_HYBRID
#define GPC		PMUCTL_CAP_GP_CLAMPED
#define FXC		PMUCTL_CAP_FIXED_CLAMPED
#define U2EQ		(PMUCTL_CAP_UMASK2 | PMUCTL_CAP_EQ)

/* A hybrid core type: version, generic counters, fixed mask, events vector, type. */
#define CAPS_HYB(mod, step, ver, gp, fmask, nfix, unavail, extra, ctype, native)	\
	{ .family = 6, .model = mod, .stepping = step, .version = ver,		\
	  .nr_gp = gp, .gp_width = 48, .nr_fixed = nfix, .fixed_width = 48,	\
	  .fixed_mask = fmask, .events_unavailable = unavail,			\
	  .flags = ANYD | FWW | HYB | (extra), .perf_capabilities = PERF_CAP_FW,	\
	  .core_type = ctype, .native_model = native }

/*
 * Core i9-12900K (Alder Lake-S 8P+8E, 6/0x97/2).
 * GenuineIntel0090672_AlderLake_01_LC_BC_CPUID.txt @d993c2d5e7d3, CPU #0
 * (P) and #16 (E) alike: 0 = 00000020, 1 = 00090672-xx800800-7FFAFBFF-
 * BFEBFBFF, 7.0 EDX = FC1CC410, 7.1 EAX = 00400810 (bit 8 clear: no leaf
 * 23H), 0A = 07300605-00000000-00000007-00008603 (6 GP, fixed 0-2: the
 * subset both types share), 1A = 40000001 (P, "Core: Golden Cove") /
 * 20000001 (E, "Atom: Gracemont").  P: 8 GP and fixed 0-3 by Linux's
 * rule; E: leaf 0AH as it is.
 */
#define ADL_ID(eax1, l1a)							\
	{ .max_leaf = 0x20, .vendor = VENDOR_INTEL,				\
	  .leaf1_eax = eax1, .leaf1_ecx = 0x7ffafbff,				\
	  .leafa_eax = 0x07300605, .leafa_ebx = 0, .leafa_ecx = 0x00000007,	\
	  .leafa_edx = 0x00008603, .leaf7_edx = 0xfc1cc410,			\
	  .leaf7_1_eax = 0x00400810, .leaf1a_eax = l1a,				\
	  .perf_capabilities = PERF_CAP_FW }

FIXTURE_VARIANT_ADD(dump, adl_i9_12900k_p) {
	.cpu = "Core i9-12900K P-core",
	.id = ADL_ID(0x00090672, 0x40000001),
	.want = CAPS_HYB(0x97, 2, 5, 8, 0xf, 4, 0xffffff80, 0, 0x40, 1),
	.pmu = "adl_glc",
};

FIXTURE_VARIANT_ADD(dump, adl_i9_12900k_e) {
	.cpu = "Core i9-12900K E-core",
	.id = ADL_ID(0x00090672, 0x20000001),
	.want = CAPS_HYB(0x97, 2, 5, 6, 0x7, 3, 0xffffff80, 0, 0x20, 1),
	.pmu = "adl_grt",
};

/*
 * Core i9-13900K (Raptor Lake-S 8P+16E, 6/0xb7/1).
 * GenuineIntel00B0671_RaptorLake_01_CPUID.txt @d993c2d5e7d3, CPU #0 (P),
 * #16 (E): 0 = 00000020, 1 = 000B0671-xx800800-7FFAFBFF-BFEBFBFF, 7.0 EDX
 * = FC1CC410, 7.1 EAX = 00400810, 0A = 07300605-00000000-00000007-
 * 00008603, 1A = 40000001 / 20000001.
 */
FIXTURE_VARIANT_ADD(dump, rpl_i9_13900k_p) {
	.cpu = "Core i9-13900K P-core",
	.id = ADL_ID(0x000b0671, 0x40000001),
	.want = CAPS_HYB(0xb7, 1, 5, 8, 0xf, 4, 0xffffff80, 0, 0x40, 1),
	.pmu = "adl_glc",
};

FIXTURE_VARIANT_ADD(dump, rpl_i9_13900k_e) {
	.cpu = "Core i9-13900K E-core",
	.id = ADL_ID(0x000b0671, 0x20000001),
	.want = CAPS_HYB(0xb7, 1, 5, 6, 0x7, 3, 0xffffff80, 0, 0x20, 1),
	.pmu = "adl_grt",
};

/*
 * Core i5-1350P (Raptor Lake-P, 6/0xba/2) with its E-cores off: all 8
 * logical CPUs report core type 0x40 (1A = 40000001) and leaf 0AH the
 * whole P-core PMU, 0A = 08300805-00000000-0000000F-00008604, yet 7.0 EDX
 * = FC1CC410 keeps the hybrid bit: the case of Linux 6.12's "E-cores are
 * disabled in a BIOS" quirk, where the rule would make 10 GP and 5 fixed
 * and is undone.  GenuineIntel00B06A2_RaptorLakeP_02_CPUID.txt
 * @c63a23ffe831: 0 = 00000020, 1 = 000B06A2-00400800-7FFAFBFF-BFEBFBFF,
 * 7.1 EAX = 00401C10.
 */
FIXTURE_VARIANT_ADD(dump, rpl_p_i5_1350p_ecores_off) {
	.cpu = "Core i5-1350P, E-cores off",
	.id = { .max_leaf = 0x20, .vendor = VENDOR_INTEL,
		.leaf1_eax = 0x000b06a2, .leaf1_ecx = 0x7ffafbff,
		.leafa_eax = 0x08300805, .leafa_ebx = 0, .leafa_ecx = 0x0000000f,
		.leafa_edx = 0x00008604, .leaf7_edx = 0xfc1cc410,
		.leaf7_1_eax = 0x00401c10, .leaf1a_eax = 0x40000001,
		.perf_capabilities = PERF_CAP_FW },
	.want = CAPS_HYB(0xba, 2, 5, 8, 0xf, 4, 0xffffff00, 0, 0x40, 1),
	.pmu = "adl_glc",
};

/*
 * Core Ultra 7 155H (Meteor Lake-H, 6/0xaa/4).
 * GenuineIntel00A06A4_MeteorLake_10_CPUID.txt @23fb8b7d8943, CPU #0 (P),
 * #2 (E): 0 = 00000023, 1 = 000A06A4-xx800800-7FFAFBFF-BFEBFBFF, 7.0 EDX
 * = FC18C410, 7.1 EAX = 40400910 (bit 8: leaf 23H), 0A = 07300805-
 * 00000000-00000007-00008603 (8 GP, fixed 0-2) on both.  P: 1A =
 * 40000002 ("Core: Redwood Cove"), 23.0 = 0000000B-0-0-0, 23.1 =
 * 000000FF-0000000F, 23.3 EAX 00000DFF.  E: 1A = 20000002 ("Atom:
 * Crestmont"), 23.0 = 0000000B-0-00000006-0, 23.1 = 000000FF-00000007,
 * 23.3 EAX 0000007F.
 */
#define MTL_ID(l1a, g, f)							\
	{ .max_leaf = 0x23, .vendor = VENDOR_INTEL,				\
	  .leaf1_eax = 0x000a06a4, .leaf1_ecx = 0x7ffafbff,			\
	  .leafa_eax = 0x07300805, .leafa_ebx = 0, .leafa_ecx = 0x00000007,	\
	  .leafa_edx = 0x00008603, .leaf7_edx = 0xfc18c410,			\
	  .leaf7_1_eax = 0x40400910, .leaf1a_eax = l1a,				\
	  .leaf23_eax = 0xb, .leaf23_1_eax = g, .leaf23_1_ebx = f,		\
	  .perf_capabilities = PERF_CAP_FW }

FIXTURE_VARIANT_ADD(dump, mtl_ultra7_155h_p) {
	.cpu = "Core Ultra 7 155H P-core",
	.id = MTL_ID(0x40000002, 0xff, 0xf),
	.want = CAPS_HYB(0xaa, 4, 5, 8, 0xf, 4, 0xffffff80, 0, 0x40, 2),
	.pmu = "gnr",
};

FIXTURE_VARIANT_ADD(dump, mtl_ultra7_155h_e) {
	.cpu = "Core Ultra 7 155H E-core",
	.id = MTL_ID(0x20000002, 0xff, 0x7),
	.want = CAPS_HYB(0xaa, 4, 5, 8, 0x7, 3, 0xffffff80, 0, 0x20, 2),
	.pmu = "srf",
};

/*
 * Core Ultra 7 265K (Arrow Lake-S, 6/0xc6/2), perfmon version 6.
 * GenuineIntel00C0662_ArrowLake_08_CPUID.txt @23fb8b7d8943, CPU #0 (P),
 * #10 (E): 0 = 00000023, 1 = 000C0662-xx800800-7FFAFBFF-BFEBFBFF, 7.0 EDX
 * = FC18C430, 7.1 EAX = 44C009D7, 0A = 0D300806-00000280-00000007-
 * 00008603 (v6, 8 GP, 13 events, 7 and 9 unavailable, fixed 0-2) on
 * both.  P: 1A = 40000003 ("Core: Lion Cove"), 23.0 = 0000000B-00000003,
 * 23.1 = 000003FF-0000000F: 10 GP, fixed 0-3.  E: 1A = 20000003
 * ("Atom: Skymont"), 23.0 = 0000000F-00000003-00000008, 23.1 =
 * 000000FF-00000077: 8 GP, fixed 0-2 and 4-6.  23.0 EBX 3 on both: UMASK2
 * and EQ.  Perfmon v6: every counter is addressed at 0x1900+, none is
 * clamped.  Models: lnl_lnc (Lion Cove) and lnl_skt (Skymont).
 */
#define V6_ID(eax1, e7, l1a, g, f)						\
	{ .max_leaf = 0x23, .vendor = VENDOR_INTEL,				\
	  .leaf1_eax = eax1, .leaf1_ecx = 0x7ffafbff,				\
	  .leafa_eax = 0x0d300806, .leafa_ebx = 0x00000280,			\
	  .leafa_ecx = 0x00000007, .leafa_edx = 0x00008603, .leaf7_edx = e7,	\
	  .leaf7_1_eax = 0x44c009d7, .leaf1a_eax = l1a,				\
	  .leaf23_eax = (l1a) >> 24 == 0x40 ? 0xb : 0xf, .leaf23_ebx = 0x3,	\
	  .leaf23_1_eax = g, .leaf23_1_ebx = f,					\
	  .perf_capabilities = PERF_CAP_FW }

FIXTURE_VARIANT_ADD(dump, arl_ultra7_265k_p) {
	.cpu = "Core Ultra 7 265K P-core",
	.id = V6_ID(0x000c0662, 0xfc18c430, 0x40000003, 0x3ff, 0xf),
	.want = CAPS_HYB(0xc6, 2, 6, 10, 0xf, 4, 0xffffe280, U2EQ, 0x40, 3),
	.pmu = "lnl_lnc",
};

FIXTURE_VARIANT_ADD(dump, arl_ultra7_265k_e) {
	.cpu = "Core Ultra 7 265K E-core",
	.id = V6_ID(0x000c0662, 0xfc18c430, 0x20000003, 0xff, 0x77),
	.want = CAPS_HYB(0xc6, 2, 6, 8, 0x77, 7, 0xffffe280, U2EQ, 0x20, 3),
	.pmu = "lnl_skt",
};

/*
 * Core Ultra 9 288V (Lunar Lake, 6/0xbd/1), perfmon version 6.
 * GenuineIntel00B06D1_LunarLake_04_CPUID.txt @23fb8b7d8943, CPU #0 (P),
 * #4 (E, "Atom LP"): 0 = 00000023, 1 = 000B06D1-xx800800-7FFAFBFF-
 * BFEBFBFF, 7.0 EDX = FC1CC430, 7.1 EAX = 44C009D7, 0A = 0D300806-
 * 00000280-00000007-00008603; leaves 1AH/23H as Arrow Lake-S above.
 */
FIXTURE_VARIANT_ADD(dump, lnl_ultra9_288v_p) {
	.cpu = "Core Ultra 9 288V P-core",
	.id = V6_ID(0x000b06d1, 0xfc1cc430, 0x40000003, 0x3ff, 0xf),
	.want = CAPS_HYB(0xbd, 1, 6, 10, 0xf, 4, 0xffffe280, U2EQ, 0x40, 3),
	.pmu = "lnl_lnc",
};

FIXTURE_VARIANT_ADD(dump, lnl_ultra9_288v_e) {
	.cpu = "Core Ultra 9 288V E-core",
	.id = V6_ID(0x000b06d1, 0xfc1cc430, 0x20000003, 0xff, 0x77),
	.want = CAPS_HYB(0xbd, 1, 6, 8, 0x77, 7, 0xffffe280, U2EQ, 0x20, 3),
	.pmu = "lnl_skt",
};

FIXTURE_SETUP(dump)
{
	memset(&self->caps, 0xa5, sizeof(self->caps));
	self->reason = 0xdead;
	self->ret = pmuctl_caps_decode(&variant->id, &self->caps, &self->reason);
}

FIXTURE_TEARDOWN(dump)
{
}

static void expect_caps(struct __test_metadata *_metadata, const char *what,
			const struct pmuctl_caps *want,
			const struct pmuctl_caps *got)
{
#define FIELD(f) EXPECT_EQ(want->f, got->f) TH_LOG("%s: " #f, what)
	FIELD(family);
	FIELD(model);
	FIELD(stepping);
	FIELD(version);
	FIELD(nr_gp);
	FIELD(gp_width);
	FIELD(nr_fixed);
	FIELD(fixed_width);
	FIELD(fixed_mask);
	FIELD(events_unavailable);
	FIELD(flags);
	FIELD(core_type);
	FIELD(reserved0[0]);
	FIELD(reserved0[1]);
	FIELD(perf_capabilities);
	FIELD(native_model);
	FIELD(reserved1);
	FIELD(reserved[0]);
#undef FIELD
	EXPECT_EQ(0, memcmp(want, got, sizeof(*want))) TH_LOG("%s: bytes differ", what);
}

TEST_F(dump, decodes_documented_caps)
{
	EXPECT_EQ(variant->ret, self->ret) TH_LOG("%s", variant->cpu);
	EXPECT_EQ(variant->reason, self->reason) TH_LOG("%s", variant->cpu);
	if (!variant->ret)
		expect_caps(_metadata, variant->cpu, &variant->want, &self->caps);
	TH_LOG("%s: ret %d reason %u version %u gp %ux%u fixed %#x x%u", variant->cpu,
	       self->ret, self->reason, self->caps.version, self->caps.nr_gp,
	       self->caps.gp_width, self->caps.fixed_mask, self->caps.fixed_width);
}

/* Whatever *caps held before does not show through, success or not. */
TEST_F(dump, overwrites_stale_caps)
{
	struct pmuctl_caps zero_start, ones_start;
	u32 r1 = 0, r2 = ~0U;
	int x, y;

	memset(&zero_start, 0, sizeof(zero_start));
	memset(&ones_start, 0xff, sizeof(ones_start));
	x = pmuctl_caps_decode(&variant->id, &zero_start, &r1);
	y = pmuctl_caps_decode(&variant->id, &ones_start, &r2);
	EXPECT_EQ(x, y);
	EXPECT_EQ(r1, r2);
	EXPECT_EQ(0, memcmp(&zero_start, &ones_start, sizeof(zero_start)))
		TH_LOG("%s: result depends on the old contents", variant->cpu);
	/* never any reserved byte, never a flag on failure */
	EXPECT_EQ(0U, ones_start.reserved0[0]);
	EXPECT_EQ(0U, ones_start.reserved0[1]);
	EXPECT_EQ(0U, ones_start.reserved1);
	EXPECT_EQ(0ULL, ones_start.reserved[0]);
	if (x) {
		EXPECT_EQ(0U, ones_start.flags);
		EXPECT_EQ(0ULL, ones_start.perf_capabilities);
	}
}

/* The raw values are input only. */
TEST_F(dump, leaves_cpuid_input_unchanged)
{
	struct pmuctl_cpuid id = variant->id;
	struct pmuctl_caps caps;
	u32 reason;

	pmuctl_caps_decode(&id, &caps, &reason);
	EXPECT_EQ(0, memcmp(&id, &variant->id, sizeof(id)));
}

/*
 * The decoded family/model select the model table FACTS 1 names; a
 * refused CPU never decodes to something that looks like a usable PMU.
 */
TEST_F(dump, selects_model_table_or_reports_no_pmu)
{
	const struct pmuctl_model *m;

	if (variant->ret) {
		EXPECT_FALSE(self->caps.version >= 2 && self->caps.nr_gp &&
			     self->caps.gp_width) TH_LOG("%s", variant->cpu);
		EXPECT_EQ(0U, self->caps.flags) TH_LOG("%s", variant->cpu);
		return;
	}
	m = pmuctl_model_for(&self->caps);
	ASSERT_NE(NULL, m);
	EXPECT_STREQ(variant->pmu, m->name) TH_LOG("%s", variant->cpu);
	/* a part without the hybrid bit: by family and model alone */
	if (!(self->caps.flags & PMUCTL_CAP_HYBRID))
		EXPECT_EQ(m, pmuctl_model_match(self->caps.family, self->caps.model));
}

/*
 * CPUID.(7,0):EDX[15] alone makes a CPU a hybrid core type: cleared on a
 * hybrid dump, the decode has no type and no flag, and Linux's Alder Lake
 * rule does not apply (leaf 0AH, or leaf 23H where enumerated, as it
 * reads); set on a part without it, the type comes from leaf 1AH.
 */
TEST_F(dump, hybrid_bit_alone_makes_a_core_type)
{
	struct pmuctl_cpuid id = variant->id;
	struct pmuctl_caps caps;
	u32 reason;

	if (variant->ret)
		return;
	id.leaf7_edx ^= 1U << 15;
	if (pmuctl_caps_decode(&id, &caps, &reason)) {
		/* set on a part whose leaf 1AH is empty: no type to tell */
		EXPECT_TRUE(!!(id.leaf7_edx & (1U << 15))) TH_LOG("%s", variant->cpu);
		EXPECT_EQ(0U, id.leaf1a_eax) TH_LOG("%s", variant->cpu);
		EXPECT_EQ((u32)PMUCTL_R_HYBRID_CPU, reason) TH_LOG("%s", variant->cpu);
		return;
	}
	EXPECT_EQ(!!(id.leaf7_edx & (1U << 15)), !!(caps.flags & PMUCTL_CAP_HYBRID))
		TH_LOG("%s", variant->cpu);
	if (id.leaf7_edx & (1U << 15)) {
		/* empty on Alder/Raptor Lake: Linux's Core type */
		EXPECT_EQ(id.leaf1a_eax ? id.leaf1a_eax >> 24 : 0x40U, caps.core_type)
			TH_LOG("%s", variant->cpu);
		return;
	}
	EXPECT_EQ(0U, caps.core_type) TH_LOG("%s", variant->cpu);
	EXPECT_EQ(0U, caps.native_model) TH_LOG("%s", variant->cpu);
	/* no rule without the bit: an Alder Lake P-core shows leaf 0AH's 6 */
	if (!id.leaf23_1_eax)
		EXPECT_EQ((id.leafa_eax >> 8 & 0xff) > 8 ? 8U : (id.leafa_eax >> 8 & 0xff),
			  caps.nr_gp) TH_LOG("%s", variant->cpu);
}

/* ------------------------------------------------------------------ */
/* One rule at a time, from SYNTHETIC values around a real base.       */

/* Skylake-X leaves (above) as the base every rule test changes. */
static struct pmuctl_cpuid base_id(void)
{
	struct pmuctl_cpuid id = {
		.max_leaf = 0x16, .vendor = VENDOR_INTEL,
		.leaf1_eax = 0x00050654, .leaf1_ecx = 0x7ffefbbf,
		.leafa_eax = 0x07300404, .leafa_ebx = 0, .leafa_ecx = 0,
		.leafa_edx = 0x00000603,
	};
	return id;
}

static u32 leafa_eax(u32 version, u32 gp, u32 width, u32 len)
{
	return version | gp << 8 | width << 16 | len << 24;
}

static int decode(const struct pmuctl_cpuid *id, struct pmuctl_caps *caps,
		  u32 *reason)
{
	memset(caps, 0x5a, sizeof(*caps));
	*reason = 0xdead;
	return pmuctl_caps_decode(id, caps, reason);
}

TEST(vendor_words_match_the_dumps)
{
	static const u32 intel[3] = VENDOR_INTEL, amd[3] = VENDOR_AMD;
	u32 w[3];

	vendor_words("GenuineIntel", w);
	EXPECT_EQ(0, memcmp(w, intel, sizeof(w)));
	vendor_words("AuthenticAMD", w);
	EXPECT_EQ(0, memcmp(w, amd, sizeof(w)));
}

TEST(rejects_every_vendor_but_genuineintel)
{
	static const char *const vendors[] = {
		"AuthenticAMD", "HygonGenuine", "CentaurHauls", "  Shanghai  ",
		"GenuineIotel", "genuineintel", "GenuineIntem", "KVMKVMKVM\0\0\0",
		"ntelineIGenu", "GenuntelineI",
	};
	struct pmuctl_caps caps, zero;
	u32 i, reason;

	memset(&zero, 0, sizeof(zero));
	for (i = 0; i < PMUCTL_NELEM(vendors); i++) {
		struct pmuctl_cpuid id = base_id();

		vendor_words(vendors[i], id.vendor);
		EXPECT_EQ(-ENODEV, decode(&id, &caps, &reason)) TH_LOG("%.12s", vendors[i]);
		EXPECT_EQ((u32)PMUCTL_R_NOT_INTEL, reason) TH_LOG("%.12s", vendors[i]);
		/* nothing is decoded for another vendor */
		EXPECT_EQ(0, memcmp(&caps, &zero, sizeof(caps))) TH_LOG("%.12s", vendors[i]);
	}
	TH_LOG("%zu vendor strings", PMUCTL_NELEM(vendors));
}

/* EBX, EDX, ECX is the order; EBX, ECX, EDX ("GenuntelineI") is not. */
TEST(reads_vendor_in_ebx_edx_ecx_order)
{
	struct pmuctl_cpuid id = base_id();
	struct pmuctl_caps caps;
	u32 reason, tmp;

	EXPECT_EQ(0, decode(&id, &caps, &reason));
	tmp = id.vendor[1];
	id.vendor[1] = id.vendor[2];
	id.vendor[2] = tmp;
	EXPECT_EQ(-ENODEV, decode(&id, &caps, &reason));
	EXPECT_EQ((u32)PMUCTL_R_NOT_INTEL, reason);
}

TEST(rejects_max_leaf_below_0a_even_with_valid_leaf_0a)
{
	static const u32 leaves[] = { 0, 1, 2, 5, 9 };
	struct pmuctl_caps caps;
	u32 i, reason;

	for (i = 0; i < PMUCTL_NELEM(leaves); i++) {
		struct pmuctl_cpuid id = base_id();

		id.max_leaf = leaves[i];
		EXPECT_EQ(-ENODEV, decode(&id, &caps, &reason)) TH_LOG("max leaf %u", leaves[i]);
		EXPECT_EQ((u32)PMUCTL_R_NO_ARCH_PERFMON, reason) TH_LOG("max leaf %u", leaves[i]);
	}
	{
		struct pmuctl_cpuid id = base_id();

		id.max_leaf = 0xa;
		EXPECT_EQ(0, decode(&id, &caps, &reason));
	}
}

TEST(rejects_perfmon_version_0_and_1)
{
	struct pmuctl_cpuid id = base_id();
	struct pmuctl_caps caps;
	u32 reason, v;

	for (v = 0; v < 2; v++) {
		id.leafa_eax = leafa_eax(v, 4, 48, 7);
		EXPECT_EQ(-ENODEV, decode(&id, &caps, &reason)) TH_LOG("version %u", v);
		EXPECT_EQ((u32)PMUCTL_R_NO_ARCH_PERFMON, reason) TH_LOG("version %u", v);
	}
	for (v = 2; v < 256; v++) {
		id.leafa_eax = leafa_eax(v, 4, 48, 7);
		EXPECT_EQ(0, decode(&id, &caps, &reason)) TH_LOG("version %u", v);
		EXPECT_EQ(v, caps.version);
	}
}

TEST(rejects_zero_generic_counters)
{
	struct pmuctl_cpuid id = base_id();
	struct pmuctl_caps caps;
	u32 reason;

	id.leafa_eax = leafa_eax(4, 0, 48, 7);
	EXPECT_EQ(-ENODEV, decode(&id, &caps, &reason));
	EXPECT_EQ((u32)PMUCTL_R_NO_ARCH_PERFMON, reason);
	id.leafa_eax = leafa_eax(5, 0, 48, 8);
	id.leafa_ecx = 0x7;
	EXPECT_EQ(-ENODEV, decode(&id, &caps, &reason));
	EXPECT_EQ((u32)PMUCTL_R_NO_ARCH_PERFMON, reason);
}

TEST(rejects_zero_generic_width)
{
	struct pmuctl_cpuid id = base_id();
	struct pmuctl_caps caps;
	u32 reason;

	id.leafa_eax = leafa_eax(4, 4, 0, 7);
	EXPECT_EQ(-ENODEV, decode(&id, &caps, &reason));
	EXPECT_EQ((u32)PMUCTL_R_NO_ARCH_PERFMON, reason);
}

/*
 * The legacy MSR ranges hold 8 generic counters (IA32_PERFEVTSEL0-7
 * 0x186-0x18d, IA32_PMC0-7 0xc1-0xc8; FACTS 6): a 9th would be
 * IA32_PERF_STATUS 0x198 / PLATFORM_INFO 0xce and later ones PERF_CTL,
 * CLOCK_MODULATION, MISC_ENABLE.  More is clamped to 8 and flagged.
 */
TEST(clamps_generic_counters_to_the_legacy_8)
{
	static const struct { u32 in, out; bool clamped; } v[] = {
		{ 1, 1, false }, { 4, 4, false }, { 7, 7, false }, { 8, 8, false },
		{ 9, 8, true }, { 12, 8, true }, { 16, 8, true }, { 31, 8, true },
		{ 32, 8, true }, { 33, 8, true }, { 64, 8, true }, { 255, 8, true },
	};
	struct pmuctl_cpuid id = base_id();
	struct pmuctl_caps caps;
	u32 i, reason;

	for (i = 0; i < PMUCTL_NELEM(v); i++) {
		id.leafa_eax = leafa_eax(4, v[i].in, 48, 7);
		ASSERT_EQ(0, decode(&id, &caps, &reason)) TH_LOG("%u counters", v[i].in);
		EXPECT_EQ(v[i].out, caps.nr_gp) TH_LOG("%u counters", v[i].in);
		EXPECT_EQ(v[i].clamped, !!(caps.flags & PMUCTL_CAP_GP_CLAMPED))
			TH_LOG("%u counters", v[i].in);
		/* the other flags are unaffected */
		EXPECT_EQ((u32)ANYT, caps.flags & ~PMUCTL_CAP_GP_CLAMPED);
	}
	TH_LOG("%zu counts", PMUCTL_NELEM(v));
}

/* The same on a perfmon v5 part with 12 counters (SYNTHETIC, Ice Lake base). */
TEST(clamps_12_generic_counters_of_a_v5_part)
{
	struct pmuctl_cpuid id = base_id();
	struct pmuctl_caps caps;
	u32 reason;

	id.leafa_eax = leafa_eax(5, 12, 48, 8);
	id.leafa_ecx = 0xf;
	id.leafa_edx = 0x8604;
	ASSERT_EQ(0, decode(&id, &caps, &reason));
	EXPECT_EQ(8, caps.nr_gp);
	EXPECT_EQ((u32)(ANYD | PMUCTL_CAP_GP_CLAMPED), caps.flags);
	EXPECT_EQ(0xfU, caps.fixed_mask);
}

TEST(clamps_widths_to_64_bits)
{
	struct pmuctl_cpuid id = base_id();
	struct pmuctl_caps caps;
	u32 reason;

	id.leafa_eax = leafa_eax(4, 4, 80, 7);
	id.leafa_edx = 3 | 0xff << 5;
	ASSERT_EQ(0, decode(&id, &caps, &reason));
	EXPECT_EQ(64, caps.gp_width);
	EXPECT_EQ(64, caps.fixed_width);
	id.leafa_eax = leafa_eax(4, 4, 64, 7);
	id.leafa_edx = 3 | 64 << 5;
	ASSERT_EQ(0, decode(&id, &caps, &reason));
	EXPECT_EQ(64, caps.gp_width);
	EXPECT_EQ(64, caps.fixed_width);
}

/*
 * EAX[31:24] is the length of the EBX vector: events at or past it are
 * unavailable whatever EBX says; below it, EBX bit set = unavailable.
 */
TEST(applies_ebx_bits_and_vector_length)
{
	static const struct { u32 len, ebx, want; } v[] = {
		{ 0, 0, 0xffffffff },
		{ 1, 0, 0xfffffffe },
		{ 7, 0, 0xffffff80 },		/* Skylake, Nehalem, Core 2 */
		{ 8, 0, 0xffffff00 },		/* Ice Lake */
		{ 7, 0x40, 0xffffffc0 },	/* Bloomfield */
		{ 7, 0x44, 0xffffffc4 },	/* Xeon W3550 */
		{ 7, 0x7f, 0xffffffff },
		{ 7, 0x100, 0xffffff80 },	/* bits past the length add nothing */
		{ 31, 0, 0x80000000 },
		{ 32, 0, 0 },
		{ 32, 0x80000001, 0x80000001 },
		{ 40, 0x5, 0x5 },
		{ 255, 0, 0 },
	};
	struct pmuctl_cpuid id = base_id();
	struct pmuctl_caps caps;
	u32 i, reason;

	for (i = 0; i < PMUCTL_NELEM(v); i++) {
		id.leafa_eax = leafa_eax(4, 4, 48, v[i].len);
		id.leafa_ebx = v[i].ebx;
		ASSERT_EQ(0, decode(&id, &caps, &reason));
		EXPECT_EQ(v[i].want, caps.events_unavailable) {
			TH_LOG("length %u EBX %#x", v[i].len, v[i].ebx);
		}
	}
	TH_LOG("%zu length/EBX pairs", PMUCTL_NELEM(v));
}

/* IA32_PERF_CAPABILITIES exists only when CPUID.1:ECX.PDCM[15] is set. */
TEST(reads_perf_capabilities_only_with_pdcm)
{
	struct pmuctl_cpuid id = base_id();
	struct pmuctl_caps caps;
	u32 reason;

	/* PDCM set (Skylake-X ECX 0x7ffefbbf) and bit 13: full-width writes */
	id.perf_capabilities = 0x33c2;	/* SYNTHETIC value with bit 13 set */
	ASSERT_EQ(0, decode(&id, &caps, &reason));
	EXPECT_EQ(0x33c2ULL, caps.perf_capabilities);
	EXPECT_TRUE(!!(!!(caps.flags & PMUCTL_CAP_FULL_WIDTH_WRITE)));

	id.perf_capabilities = 0x33c2 & ~(1ULL << 13);
	ASSERT_EQ(0, decode(&id, &caps, &reason));
	EXPECT_EQ(0x13c2ULL, caps.perf_capabilities);
	EXPECT_FALSE(!!(!!(caps.flags & PMUCTL_CAP_FULL_WIDTH_WRITE)));

	id.perf_capabilities = 1ULL << 13;
	ASSERT_EQ(0, decode(&id, &caps, &reason));
	EXPECT_TRUE(!!(!!(caps.flags & PMUCTL_CAP_FULL_WIDTH_WRITE)));

	/* without PDCM the value is not looked at */
	id.leaf1_ecx &= ~PDCM;
	id.perf_capabilities = ~0ULL;
	ASSERT_EQ(0, decode(&id, &caps, &reason));
	EXPECT_EQ(0ULL, caps.perf_capabilities);
	EXPECT_FALSE(!!(!!(caps.flags & PMUCTL_CAP_FULL_WIDTH_WRITE)));

	/* another bit of leaf 1 ECX is not PDCM */
	id.leaf1_ecx = ~PDCM;
	ASSERT_EQ(0, decode(&id, &caps, &reason));
	EXPECT_EQ(0ULL, caps.perf_capabilities);
	id.leaf1_ecx = PDCM;
	ASSERT_EQ(0, decode(&id, &caps, &reason));
	EXPECT_EQ(~0ULL, caps.perf_capabilities);
}

/*
 * AnyThread: v2 has none; v3 and later have it, unless CPUID.0AH:EDX[15]
 * deprecates it, which it can from v5 on (Linux 6.12 intel_pmu_init()
 * reads the bit for version >= 5 only).
 */
TEST(sets_any_thread_flags_by_version_and_edx15)
{
	static const struct { u32 version, edx; u32 flags; } v[] = {
		{ 2, 0x0603, 0 },
		{ 2, 0x8603, 0 },
		{ 3, 0x0603, ANYT },
		{ 3, 0x8603, ANYT },	/* EDX[15] means nothing before v5 */
		{ 4, 0x0603, ANYT },
		{ 4, 0x8603, ANYT },
		{ 5, 0x0603, ANYT },	/* v5 without EDX[15]: AnyThread stays */
		{ 5, 0x8603, ANYD },
		{ 6, 0x0603, ANYT },
		{ 6, 0x8603, ANYD },
		{ 255, 0x0603, ANYT },
		{ 255, 0x8603, ANYD },
	};
	struct pmuctl_cpuid id = base_id();
	struct pmuctl_caps caps;
	u32 i, reason;

	for (i = 0; i < PMUCTL_NELEM(v); i++) {
		id.leafa_eax = leafa_eax(v[i].version, 4, 48, 7);
		id.leafa_edx = v[i].edx;
		ASSERT_EQ(0, decode(&id, &caps, &reason));
		EXPECT_EQ(v[i].flags, caps.flags) {
			TH_LOG("version %u EDX %#x", v[i].version, v[i].edx);
		}
	}
	TH_LOG("%zu version/EDX pairs", PMUCTL_NELEM(v));
}

/*
 * Fixed counters: v2..v4 count them in EDX[4:0]; v5 adds the ECX bitmap,
 * counter i present if ECX[i] or i < EDX[4:0]; nr_fixed = highest + 1.
 */
TEST(decodes_fixed_counter_count_and_bitmap)
{
	static const struct {
		u32 version, ecx, edx;
		u32 mask, nr, width, flags;
	} v[] = {
		{ 2, 0, 0x503, 0x7, 3, 40, 0 },
		{ 4, 0, 0x603, 0x7, 3, 48, 0 },
		{ 4, 0xf0, 0x603, 0x7, 3, 48, 0 },	/* no bitmap before v5 */
		{ 4, 0, 0x600, 0, 0, 0, 0 },		/* no fixed counters */
		{ 4, 0, 0x601, 0x1, 1, 48, 0 },
		{ 5, 0x5, 0x600, 0x5, 3, 48, 0 },	/* 0 and 2, not 1 */
		{ 5, 0x8, 0x603, 0xf, 4, 48, 0 },
		{ 5, 0xf, 0x604, 0xf, 4, 48, 0 },	/* Ice Lake */
		{ 5, 0x7, 0x603, 0x7, 3, 48, 0 },	/* Meteor Lake */
		{ 5, 0, 0x603, 0x7, 3, 48, 0 },
		/*
		 * only IA32_FIXED_CTR0-3 (0x309-0x30c) have a legacy address:
		 * the rest are clamped off and flagged (FACTS 6)
		 */
		{ 5, 0x80, 0x600, 0, 0, 0, PMUCTL_CAP_FIXED_CLAMPED },
		{ 5, 0x8000, 0x600, 0, 0, 0, PMUCTL_CAP_FIXED_CLAMPED },
		{ 5, 0x10001, 0x600, 0x1, 1, 48, PMUCTL_CAP_FIXED_CLAMPED },
		{ 5, 0x80000000, 0x600, 0, 0, 0, PMUCTL_CAP_FIXED_CLAMPED },
		{ 5, 0x77, 0x603, 0x7, 3, 48, PMUCTL_CAP_FIXED_CLAMPED },	/* v6-style 0x77 */
		{ 5, 0x10, 0x603, 0x7, 3, 48, PMUCTL_CAP_FIXED_CLAMPED },
		{ 5, 0xf, 0x600, 0xf, 4, 48, 0 },
		{ 4, 0, 0x604, 0xf, 4, 48, 0 },
		{ 4, 0, 0x605, 0xf, 4, 48, PMUCTL_CAP_FIXED_CLAMPED },
		{ 4, 0, 0x61f, 0xf, 4, 48, PMUCTL_CAP_FIXED_CLAMPED },
		{ 4, 0, 0x610, 0xf, 4, 48, PMUCTL_CAP_FIXED_CLAMPED },
		{ 4, 0, 0x611, 0xf, 4, 48, PMUCTL_CAP_FIXED_CLAMPED },
		/* width 0: counters that cannot be read are absent */
		{ 4, 0, 0x003, 0, 0, 0, 0 },
		{ 5, 0x7, 0x000, 0, 0, 0, 0 },
	};
	struct pmuctl_cpuid id = base_id();
	struct pmuctl_caps caps;
	u32 i, reason;

	for (i = 0; i < PMUCTL_NELEM(v); i++) {
		id.leafa_eax = leafa_eax(v[i].version, 4, 48, 7);
		id.leafa_ecx = v[i].ecx;
		id.leafa_edx = v[i].edx;
		ASSERT_EQ(0, decode(&id, &caps, &reason));
		EXPECT_EQ(v[i].mask, caps.fixed_mask) {
			TH_LOG("v%u ECX %#x EDX %#x", v[i].version, v[i].ecx, v[i].edx);
		}
		EXPECT_EQ(v[i].nr, caps.nr_fixed) {
			TH_LOG("v%u ECX %#x EDX %#x", v[i].version, v[i].ecx, v[i].edx);
		}
		EXPECT_EQ(v[i].width, caps.fixed_width) {
			TH_LOG("v%u ECX %#x EDX %#x", v[i].version, v[i].ecx, v[i].edx);
		}
		EXPECT_EQ(v[i].flags, caps.flags & PMUCTL_CAP_FIXED_CLAMPED) {
			TH_LOG("v%u ECX %#x EDX %#x", v[i].version, v[i].ecx, v[i].edx);
		}
	}
	TH_LOG("%zu fixed-counter vectors", PMUCTL_NELEM(v));
}

/* SDM vol. 2A CPUID.01H:EAX: extended model for families 6 and 0xf. */
TEST(decodes_display_family_model_stepping)
{
	static const struct { u32 eax; u8 family, model, stepping; } v[] = {
		{ 0x00050654, 6, 0x55, 4 },	/* Skylake-X */
		{ 0x000806ec, 6, 0x8e, 12 },	/* Kaby/Whiskey Lake */
		{ 0x000a06a4, 6, 0xaa, 4 },	/* Meteor Lake */
		{ 0x000006e8, 6, 0x0e, 8 },	/* Yonah */
		{ 0x00000f29, 0xf, 0x02, 9 },	/* NetBurst */
		{ 0x00020f32, 0xf, 0x23, 2 },	/* family 0xf uses the extended model */
		{ 0x00800f11, 0x17, 0x01, 1 },	/* extended family 8 */
		{ 0x00010552, 5, 0x05, 2 },	/* family 5 ignores the extended model */
		{ 0x00030f01, 0xf, 0x30, 1 },
		{ 0xf00006d8, 6, 0x0d, 8 },	/* reserved top bits ignored */
	};
	struct pmuctl_cpuid id = base_id();
	struct pmuctl_caps caps;
	u32 i, reason;

	for (i = 0; i < PMUCTL_NELEM(v); i++) {
		id.leaf1_eax = v[i].eax;
		ASSERT_EQ(0, decode(&id, &caps, &reason));
		EXPECT_EQ(v[i].family, caps.family) TH_LOG("EAX %#x", v[i].eax);
		EXPECT_EQ(v[i].model, caps.model) TH_LOG("EAX %#x", v[i].eax);
		EXPECT_EQ(v[i].stepping, caps.stepping) TH_LOG("EAX %#x", v[i].eax);
	}
	TH_LOG("%zu signatures", PMUCTL_NELEM(v));
}

/*
 * SDM vol. 2A CPUID.01H:EAX: "IF (Family_ID = 06H or Family_ID = 0FH)
 * THEN DisplayModel = (Extended_Model_ID << 4) + Model_ID" -- Family_ID
 * is the base family field, so a family-0xf part with a non-zero extended
 * family keeps its extended model.  SYNTHETIC signatures (GenuineIntel
 * vendor): family 0x13 model 0x11, family 0x19 model 0x21, family 0x10
 * model 0x42.
 */
TEST(applies_extended_model_when_base_family_is_0xf)
{
	static const struct { u32 eax; u8 family, model, stepping; } v[] = {
		{ 0x00410f11, 0x13, 0x11, 1 },
		{ 0x00a20f12, 0x19, 0x21, 2 },
		{ 0x00140f22, 0x10, 0x42, 2 },
	};
	struct pmuctl_cpuid id = base_id();
	struct pmuctl_caps caps;
	u32 i, reason;

	for (i = 0; i < PMUCTL_NELEM(v); i++) {
		id.leaf1_eax = v[i].eax;
		ASSERT_EQ(0, decode(&id, &caps, &reason));
		EXPECT_EQ(v[i].family, caps.family) TH_LOG("EAX %#x", v[i].eax);
		EXPECT_EQ(v[i].model, caps.model) TH_LOG("EAX %#x", v[i].eax);
		EXPECT_EQ(v[i].stepping, caps.stepping) TH_LOG("EAX %#x", v[i].eax);
	}
	TH_LOG("%zu signatures", PMUCTL_NELEM(v));
}

TEST(resets_reason_on_success)
{
	struct pmuctl_cpuid id = base_id();
	struct pmuctl_caps caps;
	u32 reason = PMUCTL_R_NOT_INTEL;

	EXPECT_EQ(0, pmuctl_caps_decode(&id, &caps, &reason));
	EXPECT_EQ((u32)PMUCTL_R_NONE, reason);
}

/* Vendor first: an AMD CPU with no leaf 0AH is NOT_INTEL, not NO_ARCH_PERFMON. */
TEST(reports_vendor_before_perfmon)
{
	struct pmuctl_cpuid id = base_id();
	struct pmuctl_caps caps;
	u32 reason;

	vendor_words("AuthenticAMD", id.vendor);
	id.max_leaf = 1;
	id.leafa_eax = 0;
	EXPECT_EQ(-ENODEV, decode(&id, &caps, &reason));
	EXPECT_EQ((u32)PMUCTL_R_NOT_INTEL, reason);
}

/*
 * CPUID.(7,0):EDX[15] (hybrid): the core type comes from leaf 1AH; a
 * hybrid CPU that leaves it empty is refused, except on Alder and Raptor
 * Lake, which Linux takes for the Core type then (adl_get_hybrid_cpu_type).
 * SYNTHETIC leaf 7 and 1AH values on the Skylake-X base and on an Alder
 * Lake id.
 */
TEST(hybrid_cpus_need_a_core_type)
{
	struct pmuctl_cpuid id = base_id();
	struct pmuctl_caps caps;
	u32 reason;

	id.leaf7_edx = 1U << 15;
	EXPECT_EQ(-ENODEV, decode(&id, &caps, &reason));
	EXPECT_EQ((u32)PMUCTL_R_HYBRID_CPU, reason);
	id.leaf1a_eax = 0x20000001;
	ASSERT_EQ(0, decode(&id, &caps, &reason));
	EXPECT_EQ(0x20U, caps.core_type);
	EXPECT_EQ(1U, caps.native_model);
	EXPECT_TRUE(!!(caps.flags & PMUCTL_CAP_HYBRID));
	/* a Skylake id: no Alder Lake rule, whatever the type */
	id.leaf1a_eax = 0x40000001;
	ASSERT_EQ(0, decode(&id, &caps, &reason));
	EXPECT_EQ(4U, caps.nr_gp);
	EXPECT_EQ(0x7U, caps.fixed_mask);
	id.leaf7_edx = ~(1U << 15);
	EXPECT_EQ(0, decode(&id, &caps, &reason));
	EXPECT_FALSE(!!(caps.flags & PMUCTL_CAP_HYBRID));
	EXPECT_EQ(0U, caps.core_type);

	/* Alder Lake (6/0x97) with leaf 1AH empty: the Core type, its rule */
	id = base_id();
	id.leaf1_eax = 0x00090672;
	id.leafa_eax = 0x07300605;
	id.leafa_ecx = 0x7;
	id.leafa_edx = 0x8603;
	id.leaf7_edx = 1U << 15;
	ASSERT_EQ(0, decode(&id, &caps, &reason));
	EXPECT_EQ(0x40U, caps.core_type);
	EXPECT_EQ(8U, caps.nr_gp);
	EXPECT_EQ(0xfU, caps.fixed_mask);
	/* the Atom type keeps leaf 0AH */
	id.leaf1a_eax = 0x20000001;
	ASSERT_EQ(0, decode(&id, &caps, &reason));
	EXPECT_EQ(6U, caps.nr_gp);
	EXPECT_EQ(0x7U, caps.fixed_mask);
}

/*
 * Leaf 23H sub-leaf 1 gives the counters only where CPUID.(7,1):EAX[8]
 * enumerates the leaf, 23H.0:EAX[1] the sub-leaf, and CPUID.0 reaches
 * 23H; its generic bitmap is numbered from 0 (a gap ends the counters
 * pmuctl uses, GP_CLAMPED), fixed counters past 3 are FIXED_CLAMPED.
 * SYNTHETIC values on the Meteor Lake E-core leaves.
 */
/*
 * Perfmon v6 addresses every counter at 0x1900+ (core.h): leaf 23H's
 * counters are not clamped to the legacy 8 generic and fixed 0-3 there,
 * while a v5 PMU with the same leaf is (its counters past them have no
 * address).  UMASK2 and EQ come from 23H.0:EBX, only where CPUID.(7,1):
 * EAX[8] enumerates the leaf and CPUID.0 reaches it.  SYNTHETIC values
 * around Arrow Lake-S's Lion Cove leaves (the arl vectors above).
 */
TEST(perfmon_v6_counters_past_the_legacy_ranges_and_umask2_eq)
{
	struct pmuctl_cpuid id = {
		.max_leaf = 0x23, .vendor = VENDOR_INTEL,
		.leaf1_eax = 0x000c0662, .leaf1_ecx = 0x7ffafbff,
		.leafa_eax = 0x0d300806, .leafa_ebx = 0x280, .leafa_ecx = 0x7,
		.leafa_edx = 0x8603, .leaf7_edx = 0xfc18c430, .leaf7_1_eax = 0x44c009d7,
		.leaf1a_eax = 0x40000003, .leaf23_eax = 0xb, .leaf23_ebx = 0x3,
		.leaf23_1_eax = 0x3ff, .leaf23_1_ebx = 0xf,
	};
	struct pmuctl_cpuid o;
	struct pmuctl_caps caps;
	u32 reason;

	ASSERT_EQ(0, decode(&id, &caps, &reason));
	EXPECT_EQ(10U, caps.nr_gp);
	EXPECT_EQ(0U, caps.flags & (GPC | FXC));
	EXPECT_EQ(U2EQ, caps.flags & U2EQ);
	/* all 32 generic counters and fixed 0-15; fixed 16+ are left out */
	o = id;
	o.leaf23_1_eax = ~0U;
	o.leaf23_1_ebx = 0x1ffff;
	ASSERT_EQ(0, decode(&o, &caps, &reason));
	EXPECT_EQ(32U, caps.nr_gp);
	EXPECT_EQ(0U, caps.flags & GPC);
	EXPECT_EQ(0xffffU, caps.fixed_mask);
	EXPECT_EQ(16U, caps.nr_fixed);
	EXPECT_EQ(FXC, caps.flags & FXC);
	/* the same leaves on a v5 PMU: the legacy ranges only */
	o = id;
	o.leafa_eax = (o.leafa_eax & ~0xffU) | 5;
	o.leaf23_1_ebx = 0x77;
	ASSERT_EQ(0, decode(&o, &caps, &reason));
	EXPECT_EQ(8U, caps.nr_gp);
	EXPECT_EQ(GPC, caps.flags & GPC);
	EXPECT_EQ(0x7U, caps.fixed_mask);
	EXPECT_EQ(FXC, caps.flags & FXC);
	/* leaf 0AH alone on v6 (no leaf 23H): its 8 generic counters */
	o = id;
	o.leaf7_1_eax &= ~(1U << 8);
	ASSERT_EQ(0, decode(&o, &caps, &reason));
	EXPECT_EQ(8U, caps.nr_gp);
	EXPECT_EQ(0U, caps.flags & U2EQ);
	/* UMASK2 and EQ each alone; gated like the counters */
	o = id;
	o.leaf23_ebx = 0x1;
	ASSERT_EQ(0, decode(&o, &caps, &reason));
	EXPECT_EQ(PMUCTL_CAP_UMASK2, caps.flags & U2EQ);
	o.leaf23_ebx = 0x2;
	ASSERT_EQ(0, decode(&o, &caps, &reason));
	EXPECT_EQ(PMUCTL_CAP_EQ, caps.flags & U2EQ);
	o = id;
	o.max_leaf = 0x22;
	ASSERT_EQ(0, decode(&o, &caps, &reason));
	EXPECT_EQ(0U, caps.flags & U2EQ);
}

TEST(leaf_23h_counters_only_where_enumerated)
{
	struct pmuctl_cpuid id = {
		.max_leaf = 0x23, .vendor = VENDOR_INTEL,
		.leaf1_eax = 0x000a06a4, .leaf1_ecx = 0x7ffafbff,
		.leafa_eax = 0x07300805, .leafa_ecx = 0x7, .leafa_edx = 0x8603,
		.leaf7_edx = 0xfc18c410, .leaf7_1_eax = 0x40400910,
		.leaf1a_eax = 0x20000002, .leaf23_eax = 0xb,
		.leaf23_1_eax = 0x3f, .leaf23_1_ebx = 0x3,
	};
	struct pmuctl_cpuid o;
	struct pmuctl_caps caps;
	u32 reason;

	ASSERT_EQ(0, decode(&id, &caps, &reason));
	EXPECT_EQ(6U, caps.nr_gp);
	EXPECT_EQ(0x3U, caps.fixed_mask);
	EXPECT_EQ(2U, caps.nr_fixed);
	/* each gate alone: leaf 0AH's 8 GP and fixed 0-2 */
	o = id;
	o.leaf7_1_eax &= ~(1U << 8);
	ASSERT_EQ(0, decode(&o, &caps, &reason));
	EXPECT_EQ(8U, caps.nr_gp);
	EXPECT_EQ(0x7U, caps.fixed_mask);
	o = id;
	o.leaf23_eax &= ~(1U << 1);
	ASSERT_EQ(0, decode(&o, &caps, &reason));
	EXPECT_EQ(8U, caps.nr_gp);
	o = id;
	o.max_leaf = 0x22;
	ASSERT_EQ(0, decode(&o, &caps, &reason));
	EXPECT_EQ(8U, caps.nr_gp);
	/* a gap in the generic bitmap; fixed counters past the legacy four */
	o = id;
	o.leaf23_1_eax = 0xf7;
	o.leaf23_1_ebx = 0x77;
	ASSERT_EQ(0, decode(&o, &caps, &reason));
	EXPECT_EQ(3U, caps.nr_gp);
	EXPECT_TRUE(!!(caps.flags & PMUCTL_CAP_GP_CLAMPED));
	EXPECT_EQ(0x7U, caps.fixed_mask);
	EXPECT_TRUE(!!(caps.flags & PMUCTL_CAP_FIXED_CLAMPED));
	/* no generic counter 0: no usable PMU */
	o.leaf23_1_eax = 0xfe;
	EXPECT_EQ(-ENODEV, decode(&o, &caps, &reason));
	EXPECT_EQ((u32)PMUCTL_R_NO_ARCH_PERFMON, reason);
	/* not hybrid: read all the same (Granite Rapids has the leaf) */
	o = id;
	o.leaf7_edx &= ~(1U << 15);
	ASSERT_EQ(0, decode(&o, &caps, &reason));
	EXPECT_EQ(6U, caps.nr_gp);
	EXPECT_FALSE(!!(caps.flags & PMUCTL_CAP_HYBRID));
}

TEST(flags_tsx_force_abort_unless_rtm_always_aborts)
{
	static const struct {
		u32 edx;
		bool tfa;
	} v[] = {
		{ 0, false },
		{ 1U << 13, true },
		{ 1U << 13 | 1U << 11, false },
		{ 1U << 11, false },
	};
	struct pmuctl_cpuid id = base_id();
	struct pmuctl_caps caps;
	u32 reason, i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		id.leaf7_edx = v[i].edx;
		ASSERT_EQ(0, decode(&id, &caps, &reason));
		EXPECT_EQ(v[i].tfa, !!(caps.flags & PMUCTL_CAP_TSX_FORCE_ABORT))
			TH_LOG("leaf 7 EDX %#x", v[i].edx);
	}
}

/*
 * Model matching for today's Intel cores, every family-6 model number
 * checked: Ice Lake client 0x7d/0x7e, Tiger Lake 0x8c/0x8d and Rocket Lake
 * 0xa7 share the ICL table; Ice Lake-SP/-D 0x6a/0x6c are ICX; Sapphire and
 * Emerald Rapids 0x8f/0xcf are SPR; Granite Rapids X/D 0xad/0xae are GNR
 * (model numbers: Linux 6.12 arch/x86/include/asm/intel-family.h, and the
 * dumps above).  The Knights and Skylake entries stay; the hybrid and
 * Atom parts (below) and every other number get the generic model.  Any
 * other family never gets a table.
 */
TEST(matches_todays_models_exactly)
{
	static const struct { u8 model; u32 id; const char *what; } tab[] = {
		{ 0x7d, PMUCTL_MODEL_ICL, "ICELAKE" },
		{ 0x7e, PMUCTL_MODEL_ICL, "ICELAKE_L" },
		{ 0x8c, PMUCTL_MODEL_ICL, "TIGERLAKE_L" },
		{ 0x8d, PMUCTL_MODEL_ICL, "TIGERLAKE" },
		{ 0xa7, PMUCTL_MODEL_ICL, "ROCKETLAKE" },
		{ 0x6a, PMUCTL_MODEL_ICX, "ICELAKE_X" },
		{ 0x6c, PMUCTL_MODEL_ICX, "ICELAKE_D" },
		{ 0x8f, PMUCTL_MODEL_SPR, "SAPPHIRERAPIDS_X" },
		{ 0xcf, PMUCTL_MODEL_SPR, "EMERALDRAPIDS_X" },
		{ 0xad, PMUCTL_MODEL_GNR, "GRANITERAPIDS_X" },
		{ 0xae, PMUCTL_MODEL_GNR, "GRANITERAPIDS_D" },
		/* unchanged */
		{ 0x57, PMUCTL_MODEL_KNL, "XEON_PHI_KNL" },
		{ 0x85, PMUCTL_MODEL_KNM, "XEON_PHI_KNM" },
		{ 0x4e, PMUCTL_MODEL_SKL, "SKYLAKE_L" },
		{ 0x5e, PMUCTL_MODEL_SKL, "SKYLAKE" },
		{ 0x55, PMUCTL_MODEL_SKL, "SKYLAKE_X" },
		{ 0x8e, PMUCTL_MODEL_SKL, "KABYLAKE_L" },
		{ 0x9e, PMUCTL_MODEL_SKL, "KABYLAKE" },
		{ 0xa5, PMUCTL_MODEL_SKL, "COMETLAKE" },
		{ 0xa6, PMUCTL_MODEL_SKL, "COMETLAKE_L" },
		/* hybrid families: one core type once the hybrid refusal passed */
		{ 0x97, PMUCTL_MODEL_ADL_GLC, "ALDERLAKE" },
		{ 0x9a, PMUCTL_MODEL_ADL_GLC, "ALDERLAKE_L" },
		{ 0xbe, PMUCTL_MODEL_ADL_GRT, "ATOM_GRACEMONT (Alder Lake-N)" },
		{ 0xb7, PMUCTL_MODEL_ADL_GLC, "RAPTORLAKE" },
		{ 0xba, PMUCTL_MODEL_ADL_GLC, "RAPTORLAKE_P" },
		{ 0xbf, PMUCTL_MODEL_ADL_GLC, "RAPTORLAKE_S" },
		/* always hybrid, or not yet tabled: the generic model */
		{ 0xaa, PMUCTL_MODEL_ARCH, "METEORLAKE_L" },
		{ 0xac, PMUCTL_MODEL_ARCH, "METEORLAKE" },
		{ 0xc5, PMUCTL_MODEL_ARCH, "ARROWLAKE_H" },
		{ 0xc6, PMUCTL_MODEL_ARCH, "ARROWLAKE" },
		{ 0xb5, PMUCTL_MODEL_ARCH, "ARROWLAKE_U" },
		{ 0xbd, PMUCTL_MODEL_ARCH, "LUNARLAKE_M" },
		{ 0xcc, PMUCTL_MODEL_ARCH, "PANTHERLAKE_L" },
		{ 0x8a, PMUCTL_MODEL_ARCH, "LAKEFIELD" },
		{ 0xaf, PMUCTL_MODEL_SRF, "ATOM_CRESTMONT_X (Sierra Forest)" },
		{ 0xb6, PMUCTL_MODEL_SRF, "ATOM_CRESTMONT (Grand Ridge)" },
		{ 0xdd, PMUCTL_MODEL_ARCH, "ATOM_DARKMONT_X (Clearwater Forest)" },
		{ 0x86, PMUCTL_MODEL_ARCH, "ATOM_TREMONT_D" },
		{ 0x96, PMUCTL_MODEL_ARCH, "ATOM_TREMONT" },
		{ 0x9c, PMUCTL_MODEL_ARCH, "ATOM_TREMONT_L" },
		/* neighbours of the new numbers */
		{ 0x6b, PMUCTL_MODEL_ARCH, "(none)" },
		{ 0x7f, PMUCTL_MODEL_ARCH, "(none)" },
		{ 0x8b, PMUCTL_MODEL_ARCH, "(none)" },
		{ 0xa8, PMUCTL_MODEL_ARCH, "(none)" },
		{ 0xce, PMUCTL_MODEL_ARCH, "(none)" },
		{ 0xd0, PMUCTL_MODEL_ARCH, "(none)" },
	};
	static const u32 other_family[] = { 5, 0xf, 0x13, 0x12, 0x17 };
	const struct pmuctl_model *m;
	u32 i, model, f, n_new = 0;

	for (i = 0; i < PMUCTL_NELEM(tab); i++) {
		m = pmuctl_model_match(6, tab[i].model);
		ASSERT_NE(NULL, m);
		EXPECT_EQ(tab[i].id, m->id) {
			TH_LOG("6/%#x %s: model %s (%u)", tab[i].model, tab[i].what,
			       m->name, m->id);
		}
		/* the table's own id and name lead back to it */
		EXPECT_EQ(m, pmuctl_model_by_id(m->id)) TH_LOG("%s", m->name);
		EXPECT_EQ(m, pmuctl_model_by_name(m->name)) TH_LOG("%s", m->name);
	}
	/* every other family-6 number: the generic model, and no new id */
	for (model = 0; model < 256; model++) {
		u32 want = PMUCTL_MODEL_ARCH;

		for (i = 0; i < PMUCTL_NELEM(tab); i++)
			if (tab[i].model == model)
				want = tab[i].id;
		m = pmuctl_model_match(6, model);
		ASSERT_NE(NULL, m);
		EXPECT_EQ(want, m->id) TH_LOG("6/%#x: %s", model, m->name);
		if (m->id >= PMUCTL_MODEL_ICL && m->id <= PMUCTL_MODEL_GNR)
			n_new++;
		/* the same numbers in other families are not these parts */
		for (f = 0; f < PMUCTL_NELEM(other_family); f++) {
			m = pmuctl_model_match(other_family[f], model);
			ASSERT_NE(NULL, m);
			EXPECT_EQ((u32)PMUCTL_MODEL_ARCH, m->id) {
				TH_LOG("%#x/%#x: %s", other_family[f], model, m->name);
			}
		}
	}
	EXPECT_EQ(11U, n_new);
	TH_LOG("%zu named models, 256 family-6 numbers, %u on the new tables",
	       PMUCTL_NELEM(tab), n_new);
}

/*
 * Hybrid core types (pmuctl_model_for(), Linux 6.12 intel_pmu_init()):
 * Alder/Raptor Lake Core -> adl_glc, Atom -> adl_grt; Meteor Lake and
 * Arrow Lake-U Core -> gnr (Redwood Cove), Atom -> srf (Crestmont); Lunar
 * Lake and Arrow Lake-S Core -> lnl_lnc (Lion Cove), Atom -> lnl_skt
 * (Skymont); every other hybrid part and type (Arrow Lake-H 0xc5 with its
 * third type, which Linux 6.12 does not know, among them) the generic
 * model; a non-hybrid caps
 * follows pmuctl_model_match().  Every family-6 number, both types.
 */
TEST(matches_hybrid_core_types)
{
	static const struct { u8 model; u32 core, atom; } tab[] = {
		{ 0x97, PMUCTL_MODEL_ADL_GLC, PMUCTL_MODEL_ADL_GRT },
		{ 0x9a, PMUCTL_MODEL_ADL_GLC, PMUCTL_MODEL_ADL_GRT },
		{ 0xb7, PMUCTL_MODEL_ADL_GLC, PMUCTL_MODEL_ADL_GRT },
		{ 0xba, PMUCTL_MODEL_ADL_GLC, PMUCTL_MODEL_ADL_GRT },
		{ 0xbf, PMUCTL_MODEL_ADL_GLC, PMUCTL_MODEL_ADL_GRT },
		{ 0xaa, PMUCTL_MODEL_GNR, PMUCTL_MODEL_SRF },
		{ 0xac, PMUCTL_MODEL_GNR, PMUCTL_MODEL_SRF },
		{ 0xb5, PMUCTL_MODEL_GNR, PMUCTL_MODEL_SRF },
		{ 0xbd, PMUCTL_MODEL_LNL_LNC, PMUCTL_MODEL_LNL_SKT },
		{ 0xc6, PMUCTL_MODEL_LNL_LNC, PMUCTL_MODEL_LNL_SKT },
	};
	struct pmuctl_caps caps = { .family = 6, .flags = PMUCTL_CAP_HYBRID };
	u32 model, i, core, atom;

	for (model = 0; model < 256; model++) {
		core = atom = PMUCTL_MODEL_ARCH;
		for (i = 0; i < PMUCTL_NELEM(tab); i++)
			if (tab[i].model == model) {
				core = tab[i].core;
				atom = tab[i].atom;
			}
		caps.model = model;
		caps.core_type = 0x40;
		EXPECT_EQ(core, pmuctl_model_for(&caps)->id) TH_LOG("6/%#x Core", model);
		caps.core_type = 0x20;
		EXPECT_EQ(atom, pmuctl_model_for(&caps)->id) TH_LOG("6/%#x Atom", model);
		caps.core_type = 0x10;
		EXPECT_EQ((u32)PMUCTL_MODEL_ARCH, pmuctl_model_for(&caps)->id);
	}
	caps.flags = 0;
	caps.model = 0xaa;
	caps.core_type = 0x40;
	EXPECT_EQ((u32)PMUCTL_MODEL_ARCH, pmuctl_model_for(&caps)->id);
	caps.model = 0x97;
	EXPECT_EQ((u32)PMUCTL_MODEL_ADL_GLC, pmuctl_model_for(&caps)->id);
	caps.family = 0x13;
	caps.flags = PMUCTL_CAP_HYBRID;
	EXPECT_EQ((u32)PMUCTL_MODEL_ARCH, pmuctl_model_for(&caps)->id);
}

TEST_HARNESS_MAIN
