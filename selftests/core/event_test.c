// SPDX-License-Identifier: GPL-2.0
/*
 * Hardware-free tests of one event's validation: pmuctl_event_abi_check(),
 * pmuctl_event_classify() and the model tables it reads.
 *
 * Every rule is a TEST_F run once per model (FIXTURE_VARIANT knl, knm, skl,
 * arch); its vectors live in one table, each tagged with its source line
 * and the models it applies to, and each test reports how many it ran.
 * A failure names the vector's line.
 *
 * Sources: FACTS.md sections 1-2 (SDM vol. 3B ch. 20, Linux 6.1
 * arch/x86/events/intel/core.c, libpfm4 intel_knl_events.h,
 * libpfm_intel_knm(3)); the check order is the one documented on
 * pmuctl_event_classify() in kmod/core/event.c.
 */
#include <stdint.h>
#include <string.h>

#include "core.h"
#include "kselftest_harness.h"

/* PERFEVTSEL bits (uapi/linux/pmuctl.h). */
#define USR	PMUCTL_CFG_USR
#define OS	PMUCTL_CFG_OS
#define EDGE	PMUCTL_CFG_EDGE
#define PC	PMUCTL_CFG_PC
#define INT	PMUCTL_CFG_INT
#define ANY	PMUCTL_CFG_ANY
#define EN	PMUCTL_CFG_EN
#define INV	PMUCTL_CFG_INV
#define CMASK(n) ((u64)(n) << PMUCTL_CFG_CMASK_SHIFT)
#define EQ	PMUCTL_CFG_EQ
#define UMASK2(n) ((u64)(n) << PMUCTL_CFG_UMASK2_SHIFT)
#define CAP_U2	PMUCTL_CAP_UMASK2
#define CAP_EQ	PMUCTL_CAP_EQ
#define BIT(n)	(1ULL << (n))

#define GONLY	PMUCTL_EVENT_GENERIC_ONLY

/* Counter indexes (kmod/core/core.h). */
#define F0	BIT(PMUCTL_IDX_FIXED + 0)
#define F1	BIT(PMUCTL_IDX_FIXED + 1)
#define F2	BIT(PMUCTL_IDX_FIXED + 2)
/* Stands for "every generic counter of the caps in use". */
#define GPALL	BIT(63)

/* Offcore fields, KNL/KNM [libpfm4 intel_knl_events.h; FACTS 2]. */
#define REQ0	BIT(0)		/* DMND_DATA_RD */
#define REQ1	BIT(1)		/* DMND_RFO */
#define REQ2	BIT(2)		/* DMND_CODE_RD */
#define PWR	BIT(8)		/* PARTIAL_WRITES: RSP_1 only on KNL */
#define FSS	BIT(11)		/* FULL_STREAMING_STORES: RSP_1 only */
#define PSS	BIT(14)		/* PARTIAL_STREAMING_STORES: RSP_1 only */
#define ANYREQ	BIT(15)		/* ANY_REQUEST */
#define ANYRSP	BIT(16)		/* ANY_RESPONSE */
#define NONDRAM	(BIT(37) | BIT(17))
#define DDRNEAR	(BIT(31) | BIT(23))
#define MCDNEAR	(BIT(31) | BIT(21))
#define MCDFAR	(BIT(32) | BIT(22))
#define L2NEARM	(BIT(36) | BIT(19))
#define OUTST	BIT(38)		/* OUTSTANDING: RSP_0 only */
#define KNL_REQS 0xb6e7ULL	/* every request bit Linux's RSP_0 mask keeps */
#define ANY_READ 0x32f7ULL	/* Intel's KNL event list; uses bit 4 */

/* Event codes of the extra registers [FACTS 2]. */
#define K_RSP0	0x01b7
#define K_RSP1	0x02b7
#define S_RSP0	0x01b7
#define S_RSP1	0x01bb
#define S_FE	0x01c6
#define S_LDLAT	0x01cd

/* Models a vector applies to. */
#define KNL	(1U << 0)
#define KNM	(1U << 1)
#define SKL	(1U << 2)
#define ARCH	(1U << 3)
#define KNX	(KNL | KNM)
#define ALL	(KNL | KNM | SKL | ARCH)

/*
 * Capabilities as CPUID reports them (caps_test.c checks the decoding).
 * Knights Landing/Mill report 2 generic counters (libpfm4, LIKWID; the
 * KNM man page's "4" is tried through .ngp); every default here has the
 * 7-entry architectural event vector, so event 7 (0x01a4) is unavailable.
 */
static const struct pmuctl_caps caps_knl = {
	.family = 6, .model = 0x57, .version = 3, .nr_gp = 2, .gp_width = 40,
	.nr_fixed = 3, .fixed_width = 40, .fixed_mask = 0x7,
	.events_unavailable = 0xffffff80, .flags = PMUCTL_CAP_ANY_THREAD,
};
static const struct pmuctl_caps caps_knm = {
	.family = 6, .model = 0x85, .version = 3, .nr_gp = 2, .gp_width = 40,
	.nr_fixed = 3, .fixed_width = 40, .fixed_mask = 0x7,
	.events_unavailable = 0xffffff80, .flags = PMUCTL_CAP_ANY_THREAD,
};
static const struct pmuctl_caps caps_skl = {
	.family = 6, .model = 0x55, .version = 4, .nr_gp = 4, .gp_width = 48,
	.nr_fixed = 3, .fixed_width = 48, .fixed_mask = 0x7,
	.events_unavailable = 0xffffff80, .flags = PMUCTL_CAP_ANY_THREAD,
};
static const struct pmuctl_caps caps_arch = {	/* e.g. Haswell 6/0x3c */
	.family = 6, .model = 0x3c, .version = 3, .nr_gp = 4, .gp_width = 48,
	.nr_fixed = 3, .fixed_width = 48, .fixed_mask = 0x7,
	.events_unavailable = 0xffffff80, .flags = PMUCTL_CAP_ANY_THREAD,
};

/* The rules; one TEST_F each. */
enum rule {
	R_PLAIN, R_FIXED, R_GONLY, R_KERNEL, R_PC, R_RSVD, R_PRIV,
	R_EDGE, R_EDGE_OK, R_ANY, R_ANY_VER, R_ANY_FIRST, R_UNAVAIL,
	R_NOELIG, R_XUNEXP, R_XMASK, R_NOREQ, R_NORSP, R_MIXED,
	R_OUT_RSP1, R_OUT_RSP, R_OUT_ANYGP, R_OFC_OK, R_UNPRIV_OS,
	R_UNPRIV_ANY, R_FLAGS, R_ORDER, R_SKL_CONS, R_SKL_XREG, R_NOTARCH,
	R_V6FIELDS,
};

/*
 * One vector.  why == PMUCTL_R_NONE: must succeed with counters cnt
 * (GPALL expands to the caps' generic counters), extra register xr
 * (XR(i), or 0 for none) and outstanding mode out.  Otherwise: -EINVAL
 * with reason why.  The caps are the variant's, changed by ver (version,
 * with the AnyThread flags it implies: v3 and later have it unless depr,
 * CPUID.0AH:EDX[15], deprecates it from v5 on), ngp, fm (FM(x): fixed
 * mask x), unav (ORed into events_unavailable), avail (cleared from it),
 * capf (ORed into the flags: PMUCTL_CAP_UMASK2, PMUCTL_CAP_EQ).
 */
struct vec {
	int line;
	u8 rule;
	u8 models;
	u8 ver;
	u8 ngp;
	u32 fm;
	u32 unav;
	u32 avail;
	u32 capf;
	bool depr;
	u32 policy;
	u64 cfg;
	u64 extra;
	u32 flags;
	u32 why;
	u64 cnt;
	u8 xr;
	bool out;
};

#define V(...)	{ .line = __LINE__, __VA_ARGS__ }
#define FM(x)	((x) | 0x80000000U)
#define XR(i)	((i) + 1)
#define UNPRIV	PMUCTL_POLICY_UNPRIV

static const struct vec vecs[] = {
	/* ---- accepted plain events: every generic counter ---- */
	V(.rule = R_PLAIN, .models = ALL, .cfg = 0x00c4 | USR, .cnt = GPALL),
	V(.rule = R_PLAIN, .models = ALL, .cfg = 0x00c4 | OS, .cnt = GPALL),
	V(.rule = R_PLAIN, .models = ALL, .cfg = 0x00c5 | USR | OS, .cnt = GPALL),
	V(.rule = R_PLAIN, .models = ALL, .cfg = 0x013c | USR, .cnt = GPALL),
	V(.rule = R_PLAIN, .models = ALL, .cfg = 0x412e | USR, .cnt = GPALL),
	V(.rule = R_PLAIN, .models = ALL, .cfg = 0x4f2e | USR, .cnt = GPALL),
	V(.rule = R_PLAIN, .models = ALL, .cfg = 0x00c4 | USR | INV | CMASK(1), .cnt = GPALL),
	V(.rule = R_PLAIN, .models = ALL, .cfg = 0x00c4 | USR | CMASK(255), .cnt = GPALL),
	V(.rule = R_PLAIN, .models = KNX | SKL, .cfg = 0xffff | USR, .cnt = GPALL),
	V(.rule = R_PLAIN, .models = KNX | SKL, .cfg = 0x0001 | USR, .cnt = GPALL),
	V(.rule = R_PLAIN, .models = ALL, .ver = 2, .cfg = 0x00c4 | USR, .cnt = GPALL),
	V(.rule = R_PLAIN, .models = ALL, .ver = 5, .cfg = 0x00c4 | USR, .cnt = GPALL),
	V(.rule = R_PLAIN, .models = ALL, .ngp = 1, .cfg = 0x00c4 | USR, .cnt = 0x1),
	V(.rule = R_PLAIN, .models = ALL, .ngp = 32, .cfg = 0x00c4 | USR, .cnt = 0xffffffffULL),
	V(.rule = R_PLAIN, .models = KNX, .ngp = 4, .cfg = 0x00c4 | USR, .cnt = 0xf),
	V(.rule = R_PLAIN, .models = SKL, .ngp = 8, .cfg = 0x00c4 | USR, .cnt = 0xff),
	/* an event code with no extra MSR and extra 0 is a plain event */
	V(.rule = R_PLAIN, .models = KNX, .cfg = 0x03b7 | USR, .cnt = GPALL),
	V(.rule = R_PLAIN, .models = SKL, .cfg = 0x02b7 | USR, .cnt = GPALL),

	/* ---- fixed-counter events also go on their fixed counter ---- */
	V(.rule = R_FIXED, .models = ALL, .cfg = 0x00c0 | USR, .cnt = GPALL | F0),
	V(.rule = R_FIXED, .models = ALL, .cfg = 0x00c0 | USR | OS, .cnt = GPALL | F0),
	V(.rule = R_FIXED, .models = ALL, .cfg = 0x003c | OS, .cnt = GPALL | F1),
	V(.rule = R_FIXED, .models = ALL, .cfg = 0x0300 | USR, .cnt = F2),
	V(.rule = R_FIXED, .models = ALL, .cfg = 0x0300 | USR | OS, .cnt = F2),
	/* FIXED_CTR_CTRL has no EDGE, INV or CMASK: generic counters only */
	V(.rule = R_FIXED, .models = ALL, .cfg = 0x00c0 | USR | CMASK(1), .cnt = GPALL),
	V(.rule = R_FIXED, .models = ALL, .cfg = 0x00c0 | USR | INV, .cnt = GPALL),
	V(.rule = R_FIXED, .models = ALL, .cfg = 0x003c | USR | INV | CMASK(2), .cnt = GPALL),
	/* an absent fixed counter is not offered (v5 bitmaps need not be contiguous) */
	V(.rule = R_FIXED, .models = ALL, .fm = FM(0x6), .cfg = 0x00c0 | USR, .cnt = GPALL),
	V(.rule = R_FIXED, .models = ALL, .fm = FM(0x5), .cfg = 0x003c | USR, .cnt = GPALL),
	V(.rule = R_FIXED, .models = ALL, .fm = FM(0x5), .cfg = 0x0300 | USR, .cnt = F2),
	V(.rule = R_FIXED, .models = ALL, .fm = FM(0x0), .cfg = 0x00c0 | USR, .cnt = GPALL),
	/* other umasks of 0xc0/0x3c are not the fixed events */
	V(.rule = R_FIXED, .models = KNX, .cfg = 0x01c0 | USR, .cnt = GPALL),
	V(.rule = R_FIXED, .models = ALL, .cfg = 0x013c | USR, .cnt = GPALL),
	V(.rule = R_FIXED, .models = KNX | SKL, .cfg = 0x023c | USR, .cnt = GPALL),

	/* ---- PMUCTL_EVENT_GENERIC_ONLY ---- */
	V(.rule = R_GONLY, .models = ALL, .flags = GONLY, .cfg = 0x00c0 | USR, .cnt = GPALL),
	V(.rule = R_GONLY, .models = ALL, .flags = GONLY, .cfg = 0x003c | USR, .cnt = GPALL),
	V(.rule = R_GONLY, .models = ALL, .flags = GONLY, .cfg = 0x00c4 | USR, .cnt = GPALL),
	V(.rule = R_GONLY, .models = ALL, .flags = GONLY, .cfg = 0x0300 | USR,
	  .why = PMUCTL_R_NO_ELIGIBLE_COUNTER),
	V(.rule = R_GONLY, .models = SKL | ARCH, .flags = GONLY, .cfg = 0x00c0 | USR | ANY, .cnt = GPALL),
	V(.rule = R_GONLY, .models = KNX, .flags = GONLY, .cfg = 0x00c0 | USR | ANY,
	  .why = PMUCTL_R_ANY_NOT_ALLOWED),

	/* ---- EN and INT belong to the kernel ---- */
	V(.rule = R_KERNEL, .models = ALL, .cfg = 0x00c4 | USR | EN, .why = PMUCTL_R_KERNEL_BITS),
	V(.rule = R_KERNEL, .models = ALL, .cfg = 0x00c4 | USR | INT, .why = PMUCTL_R_KERNEL_BITS),
	V(.rule = R_KERNEL, .models = ALL, .cfg = 0x00c4 | USR | EN | INT, .why = PMUCTL_R_KERNEL_BITS),
	V(.rule = R_KERNEL, .models = ALL, .cfg = 0x00c0 | OS | EN, .why = PMUCTL_R_KERNEL_BITS),
	V(.rule = R_KERNEL, .models = ALL, .cfg = 0x0300 | USR | INT, .why = PMUCTL_R_KERNEL_BITS),
	V(.rule = R_KERNEL, .models = KNX, .cfg = K_RSP0 | USR | EN, .extra = REQ0 | ANYRSP,
	  .why = PMUCTL_R_KERNEL_BITS),
	V(.rule = R_KERNEL, .models = SKL, .cfg = S_FE | USR | INT, .extra = 0x11,
	  .why = PMUCTL_R_KERNEL_BITS),

	/* ---- PC is never allowed ---- */
	V(.rule = R_PC, .models = ALL, .cfg = 0x00c4 | USR | PC, .why = PMUCTL_R_PIN_CONTROL),
	V(.rule = R_PC, .models = ALL, .cfg = 0x00c0 | USR | OS | PC, .why = PMUCTL_R_PIN_CONTROL),
	V(.rule = R_PC, .models = ALL, .cfg = 0x00c4 | USR | PC | CMASK(1), .why = PMUCTL_R_PIN_CONTROL),

	/* ---- config bits 32..63 (IN_TX 32, IN_TXCP 33 included) ---- */
	V(.rule = R_RSVD, .models = ALL, .cfg = 0x00c4 | USR | BIT(32), .why = PMUCTL_R_RESERVED_BITS),
	V(.rule = R_RSVD, .models = ALL, .cfg = 0x00c4 | USR | BIT(33), .why = PMUCTL_R_RESERVED_BITS),
	V(.rule = R_RSVD, .models = ALL, .cfg = 0x00c4 | USR | BIT(34), .why = PMUCTL_R_RESERVED_BITS),
	V(.rule = R_RSVD, .models = ALL, .cfg = 0x00c4 | USR | BIT(35), .why = PMUCTL_R_RESERVED_BITS),
	V(.rule = R_RSVD, .models = ALL, .cfg = 0x00c4 | USR | BIT(37), .why = PMUCTL_R_RESERVED_BITS),
	V(.rule = R_RSVD, .models = ALL, .cfg = 0x00c4 | USR | BIT(39), .why = PMUCTL_R_RESERVED_BITS),
	V(.rule = R_RSVD, .models = ALL, .cfg = 0x00c4 | USR | BIT(48), .why = PMUCTL_R_RESERVED_BITS),
	V(.rule = R_RSVD, .models = ALL, .cfg = 0x00c4 | USR | BIT(63), .why = PMUCTL_R_RESERVED_BITS),
	V(.rule = R_RSVD, .models = ALL, .cfg = 0x00c0 | USR | 0xffffffff00000000ULL,
	  .why = PMUCTL_R_RESERVED_BITS),
	/* where leaf 23H enumerates EQ and UMASK2, the others stay reserved */
	V(.rule = R_RSVD, .models = ALL, .capf = CAP_U2 | CAP_EQ,
	  .cfg = 0x00c4 | USR | BIT(32) | EQ | UMASK2(1), .why = PMUCTL_R_RESERVED_BITS),
	V(.rule = R_RSVD, .models = ALL, .capf = CAP_U2 | CAP_EQ,
	  .cfg = 0x00c4 | USR | BIT(48), .why = PMUCTL_R_RESERVED_BITS),
	V(.rule = R_RSVD, .models = ALL, .capf = CAP_U2 | CAP_EQ,
	  .cfg = 0x00c0 | USR | 0xffff00ef00000000ULL, .why = PMUCTL_R_RESERVED_BITS),
	V(.rule = R_RSVD, .models = SKL, .cfg = 0x01c2 | USR | BIT(32) | BIT(33),
	  .why = PMUCTL_R_RESERVED_BITS),

	/* ---- USR or OS must be set ---- */
	V(.rule = R_PRIV, .models = ALL, .cfg = 0x00c4, .why = PMUCTL_R_NO_PRIV_LEVEL),
	V(.rule = R_PRIV, .models = ALL, .cfg = 0x00c0, .why = PMUCTL_R_NO_PRIV_LEVEL),
	V(.rule = R_PRIV, .models = ALL, .cfg = 0x0300 | INV | CMASK(1), .why = PMUCTL_R_NO_PRIV_LEVEL),
	V(.rule = R_PRIV, .models = ALL, .cfg = 0x00c4 | CMASK(255), .why = PMUCTL_R_NO_PRIV_LEVEL),

	/* ---- EDGE needs CMASK >= 1 ---- */
	V(.rule = R_EDGE, .models = ALL, .cfg = 0x00c4 | USR | EDGE, .why = PMUCTL_R_EDGE_NO_CMASK),
	V(.rule = R_EDGE, .models = ALL, .cfg = 0x00c4 | USR | EDGE | INV, .why = PMUCTL_R_EDGE_NO_CMASK),
	V(.rule = R_EDGE, .models = ALL, .cfg = 0x00c0 | OS | EDGE, .why = PMUCTL_R_EDGE_NO_CMASK),
	V(.rule = R_EDGE, .models = ALL, .cfg = 0x0300 | USR | EDGE, .why = PMUCTL_R_EDGE_NO_CMASK),
	V(.rule = R_EDGE_OK, .models = ALL, .cfg = 0x00c4 | USR | EDGE | CMASK(1), .cnt = GPALL),
	V(.rule = R_EDGE_OK, .models = ALL, .cfg = 0x00c4 | USR | EDGE | CMASK(255), .cnt = GPALL),
	V(.rule = R_EDGE_OK, .models = ALL, .cfg = 0x00c4 | USR | EDGE | INV | CMASK(1), .cnt = GPALL),
	/* an edge-detected fixed event leaves its fixed counter */
	V(.rule = R_EDGE_OK, .models = ALL, .cfg = 0x00c0 | USR | EDGE | CMASK(1), .cnt = GPALL),
	V(.rule = R_EDGE_OK, .models = ALL, .cfg = 0x003c | OS | EDGE | CMASK(3), .cnt = GPALL),
	V(.rule = R_EDGE_OK, .models = ALL, .cfg = 0x0300 | USR | EDGE | CMASK(1),
	  .why = PMUCTL_R_NO_ELIGIBLE_COUNTER),

	/*
	 * ---- AnyThread where the model allows it ----
	 * KNL/KNM: the three fixed counters only (model.c policy; REF_TSC on
	 * fixed counter 2 included: libpfm4 encodes unhalted_reference_cycles:t
	 * as 0x710300, Linux sets AnyThread on any fixed counter from v3);
	 * SKL and ARCH with perfmon v3 and later, not deprecated: anywhere.
	 */
	V(.rule = R_ANY, .models = KNX, .cfg = 0x00c0 | USR | ANY, .cnt = F0),
	V(.rule = R_ANY, .models = KNX, .cfg = 0x003c | USR | OS | ANY, .cnt = F1),
	V(.rule = R_ANY, .models = KNX, .ngp = 4, .cfg = 0x003c | USR | ANY, .cnt = F1),
	V(.rule = R_ANY, .models = KNX, .cfg = 0x0300 | USR | ANY, .cnt = F2),
	V(.rule = R_ANY, .models = KNX, .cfg = 0x0300 | USR | OS | ANY, .cnt = F2),
	V(.rule = R_ANY, .models = KNX, .fm = FM(0x3), .cfg = 0x0300 | USR | ANY,
	  .why = PMUCTL_R_NO_ELIGIBLE_COUNTER),
	V(.rule = R_ANY, .models = KNX, .cfg = 0x00c4 | USR | ANY, .why = PMUCTL_R_ANY_NOT_ALLOWED),
	V(.rule = R_ANY, .models = KNX, .cfg = 0x013c | USR | ANY, .why = PMUCTL_R_ANY_NOT_ALLOWED),
	V(.rule = R_ANY, .models = KNX, .cfg = 0x00c0 | USR | ANY | CMASK(1),
	  .why = PMUCTL_R_ANY_NOT_ALLOWED),
	V(.rule = R_ANY, .models = KNX, .fm = FM(0x1), .cfg = 0x003c | USR | ANY,
	  .why = PMUCTL_R_ANY_NOT_ALLOWED),
	V(.rule = R_ANY, .models = KNX, .cfg = K_RSP0 | USR | ANY, .extra = REQ0 | ANYRSP,
	  .why = PMUCTL_R_ANY_NOT_ALLOWED),
	V(.rule = R_ANY, .models = SKL | ARCH, .cfg = 0x00c4 | USR | ANY, .cnt = GPALL),
	V(.rule = R_ANY, .models = SKL | ARCH, .cfg = 0x00c0 | USR | ANY, .cnt = GPALL | F0),
	V(.rule = R_ANY, .models = SKL | ARCH, .cfg = 0x003c | USR | ANY, .cnt = GPALL | F1),
	V(.rule = R_ANY, .models = SKL | ARCH, .cfg = 0x0300 | USR | ANY, .cnt = F2),
	V(.rule = R_ANY, .models = SKL | ARCH, .cfg = 0x00c0 | USR | ANY | CMASK(1), .cnt = GPALL),
	V(.rule = R_ANY, .models = SKL, .cfg = S_RSP0 | USR | ANY, .extra = REQ0 | ANYRSP,
	  .cnt = GPALL, .xr = XR(0)),
	V(.rule = R_ANY, .models = SKL, .ver = 3, .cfg = 0x00c4 | USR | ANY, .cnt = GPALL),
	/* v5 and later: AnyThread stays unless CPUID.0AH:EDX[15] deprecates it */
	V(.rule = R_ANY, .models = SKL | ARCH, .ver = 5, .cfg = 0x00c4 | USR | ANY, .cnt = GPALL),
	V(.rule = R_ANY, .models = SKL | ARCH, .ver = 6, .cfg = 0x0300 | USR | ANY, .cnt = F2),
	V(.rule = R_ANY, .models = KNX, .ver = 5, .cfg = 0x0300 | USR | ANY, .cnt = F2),

	/* ---- no AnyThread on perfmon v2 (none) or v5+ with EDX[15] (deprecated) ---- */
	V(.rule = R_ANY_VER, .models = ALL, .ver = 2, .cfg = 0x00c0 | USR | ANY,
	  .why = PMUCTL_R_ANY_NOT_ALLOWED),
	V(.rule = R_ANY_VER, .models = ALL, .ver = 5, .depr = true, .cfg = 0x00c0 | USR | ANY,
	  .why = PMUCTL_R_ANY_NOT_ALLOWED),
	V(.rule = R_ANY_VER, .models = ALL, .ver = 2, .cfg = 0x003c | USR | ANY,
	  .why = PMUCTL_R_ANY_NOT_ALLOWED),
	V(.rule = R_ANY_VER, .models = ALL, .ver = 5, .depr = true, .cfg = 0x003c | OS | ANY,
	  .why = PMUCTL_R_ANY_NOT_ALLOWED),
	V(.rule = R_ANY_VER, .models = SKL | ARCH, .ver = 2, .cfg = 0x00c4 | USR | ANY,
	  .why = PMUCTL_R_ANY_NOT_ALLOWED),
	V(.rule = R_ANY_VER, .models = SKL | ARCH, .ver = 5, .depr = true, .cfg = 0x00c4 | USR | ANY,
	  .why = PMUCTL_R_ANY_NOT_ALLOWED),
	V(.rule = R_ANY_VER, .models = SKL | ARCH, .ver = 5, .depr = true, .cfg = 0x0300 | USR | ANY,
	  .why = PMUCTL_R_ANY_NOT_ALLOWED),
	V(.rule = R_ANY_VER, .models = ALL, .ver = 2, .cfg = 0x00c0 | USR, .cnt = GPALL | F0),
	V(.rule = R_ANY_VER, .models = ALL, .ver = 5, .depr = true, .cfg = 0x003c | USR, .cnt = GPALL | F1),
	V(.rule = R_ANY_VER, .models = ALL, .ver = 6, .depr = true, .cfg = 0x00c0 | USR | ANY,
	  .why = PMUCTL_R_ANY_NOT_ALLOWED),
	/* EDX[15] means nothing before v5 */
	V(.rule = R_ANY_VER, .models = SKL | ARCH, .ver = 4, .depr = true, .cfg = 0x00c4 | USR | ANY,
	  .cnt = GPALL),

	/*
	 * ---- an event no counter can count is that, with or without ANY ----
	 * The documented order puts EVENT_UNAVAILABLE and NO_ELIGIBLE_COUNTER
	 * before ANY_NOT_ALLOWED, whether or not the model allows AnyThread.
	 */
	V(.rule = R_ANY_FIRST, .models = ALL, .unav = BIT(5), .cfg = 0x00c4 | USR | ANY,
	  .why = PMUCTL_R_EVENT_UNAVAILABLE),
	V(.rule = R_ANY_FIRST, .models = ALL, .cfg = 0x01a4 | USR | ANY,
	  .why = PMUCTL_R_EVENT_UNAVAILABLE),
	V(.rule = R_ANY_FIRST, .models = ALL, .ver = 5, .unav = BIT(6), .cfg = 0x00c5 | USR | ANY,
	  .why = PMUCTL_R_EVENT_UNAVAILABLE),
	V(.rule = R_ANY_FIRST, .models = ALL, .fm = FM(0x3), .cfg = 0x0300 | USR | ANY,
	  .why = PMUCTL_R_NO_ELIGIBLE_COUNTER),
	V(.rule = R_ANY_FIRST, .models = ALL, .cfg = 0x0000 | USR | ANY,
	  .why = PMUCTL_R_NO_ELIGIBLE_COUNTER),
	V(.rule = R_ANY_FIRST, .models = ALL, .flags = GONLY, .cfg = 0x0300 | USR | ANY,
	  .why = PMUCTL_R_NO_ELIGIBLE_COUNTER),
	V(.rule = R_ANY_FIRST, .models = ALL, .ver = 2, .cfg = 0x0300 | USR | ANY | CMASK(1),
	  .why = PMUCTL_R_NO_ELIGIBLE_COUNTER),
	/* countable, but not with AnyThread here */
	V(.rule = R_ANY_FIRST, .models = KNX, .cfg = 0x00c4 | USR | ANY,
	  .why = PMUCTL_R_ANY_NOT_ALLOWED),
	V(.rule = R_ANY_FIRST, .models = ALL, .ver = 5, .depr = true, .cfg = 0x0300 | USR | ANY,
	  .why = PMUCTL_R_ANY_NOT_ALLOWED),

	/* ---- CPUID.0AH:EBX: architectural events marked unavailable ---- */
	V(.rule = R_UNAVAIL, .models = ALL, .unav = BIT(5), .cfg = 0x00c4 | USR,
	  .why = PMUCTL_R_EVENT_UNAVAILABLE),
	V(.rule = R_UNAVAIL, .models = ALL, .unav = BIT(6), .cfg = 0x00c5 | USR,
	  .why = PMUCTL_R_EVENT_UNAVAILABLE),
	V(.rule = R_UNAVAIL, .models = ALL, .unav = BIT(3), .cfg = 0x4f2e | USR,
	  .why = PMUCTL_R_EVENT_UNAVAILABLE),
	V(.rule = R_UNAVAIL, .models = ALL, .unav = BIT(4), .cfg = 0x412e | OS,
	  .why = PMUCTL_R_EVENT_UNAVAILABLE),
	V(.rule = R_UNAVAIL, .models = ALL, .unav = BIT(2), .cfg = 0x013c | USR,
	  .why = PMUCTL_R_EVENT_UNAVAILABLE),
	/* past the vector length EAX[31:24] = 7: TOPDOWN.SLOTS is unknown */
	V(.rule = R_UNAVAIL, .models = ALL, .cfg = 0x01a4 | USR, .why = PMUCTL_R_EVENT_UNAVAILABLE),
	V(.rule = R_UNAVAIL, .models = ALL, .unav = BIT(5), .cfg = 0x00c4 | USR | INV | CMASK(1),
	  .why = PMUCTL_R_EVENT_UNAVAILABLE),
	/* the fixed counter still counts the event; the generic ones do not */
	V(.rule = R_UNAVAIL, .models = ALL, .unav = BIT(0), .cfg = 0x003c | USR, .cnt = F1),
	V(.rule = R_UNAVAIL, .models = ALL, .unav = BIT(1), .cfg = 0x00c0 | USR, .cnt = F0),
	V(.rule = R_UNAVAIL, .models = ALL, .unav = BIT(0), .flags = GONLY, .cfg = 0x003c | USR,
	  .why = PMUCTL_R_EVENT_UNAVAILABLE),
	V(.rule = R_UNAVAIL, .models = ALL, .unav = BIT(1), .fm = FM(0x6), .cfg = 0x00c0 | USR,
	  .why = PMUCTL_R_EVENT_UNAVAILABLE),
	V(.rule = R_UNAVAIL, .models = ALL, .unav = BIT(1), .cfg = 0x00c0 | USR | CMASK(1),
	  .why = PMUCTL_R_EVENT_UNAVAILABLE),
	/* another event's bit, or another umask, is not this event */
	V(.rule = R_UNAVAIL, .models = ALL, .unav = BIT(6), .cfg = 0x00c4 | USR, .cnt = GPALL),
	V(.rule = R_UNAVAIL, .models = KNX | SKL, .unav = BIT(5), .cfg = 0x01c4 | USR, .cnt = GPALL),
	V(.rule = R_UNAVAIL, .models = ALL, .unav = BIT(3), .cfg = 0x412e | USR, .cnt = GPALL),

	/* ---- no counter of this PMU can count it ---- */
	V(.rule = R_NOELIG, .models = ALL, .fm = FM(0x3), .cfg = 0x0300 | USR,
	  .why = PMUCTL_R_NO_ELIGIBLE_COUNTER),
	V(.rule = R_NOELIG, .models = ALL, .flags = GONLY, .cfg = 0x0300 | OS,
	  .why = PMUCTL_R_NO_ELIGIBLE_COUNTER),
	V(.rule = R_NOELIG, .models = ALL, .cfg = 0x0000 | USR, .why = PMUCTL_R_NO_ELIGIBLE_COUNTER),
	V(.rule = R_NOELIG, .models = ALL, .cfg = 0x0100 | USR, .why = PMUCTL_R_NO_ELIGIBLE_COUNTER),
	V(.rule = R_NOELIG, .models = ALL, .cfg = 0xff00 | USR, .why = PMUCTL_R_NO_ELIGIBLE_COUNTER),
	V(.rule = R_NOELIG, .models = ALL, .cfg = 0x0300 | USR | INV, .why = PMUCTL_R_NO_ELIGIBLE_COUNTER),
	V(.rule = R_NOELIG, .models = ALL, .cfg = 0x0300 | USR | CMASK(2),
	  .why = PMUCTL_R_NO_ELIGIBLE_COUNTER),
	V(.rule = R_NOELIG, .models = SKL, .ngp = 1, .cfg = 0x01c0 | USR,
	  .why = PMUCTL_R_NO_ELIGIBLE_COUNTER),

	/* ---- an extra value for an event without an extra MSR ---- */
	V(.rule = R_XUNEXP, .models = ALL, .cfg = 0x00c4 | USR, .extra = 1,
	  .why = PMUCTL_R_EXTRA_UNEXPECTED),
	V(.rule = R_XUNEXP, .models = ALL, .cfg = 0x00c0 | USR, .extra = BIT(63),
	  .why = PMUCTL_R_EXTRA_UNEXPECTED),
	V(.rule = R_XUNEXP, .models = ALL, .cfg = 0x0300 | USR, .extra = 1,
	  .why = PMUCTL_R_EXTRA_UNEXPECTED),
	V(.rule = R_XUNEXP, .models = KNX, .cfg = 0x03b7 | USR, .extra = REQ0 | ANYRSP,
	  .why = PMUCTL_R_EXTRA_UNEXPECTED),
	V(.rule = R_XUNEXP, .models = KNX, .cfg = 0x00b7 | USR, .extra = REQ0 | ANYRSP,
	  .why = PMUCTL_R_EXTRA_UNEXPECTED),
	V(.rule = R_XUNEXP, .models = KNX, .cfg = 0x01bb | USR, .extra = REQ0 | ANYRSP,
	  .why = PMUCTL_R_EXTRA_UNEXPECTED),
	V(.rule = R_XUNEXP, .models = KNX, .cfg = S_FE | USR, .extra = 0x11,
	  .why = PMUCTL_R_EXTRA_UNEXPECTED),
	V(.rule = R_XUNEXP, .models = SKL, .cfg = 0x02b7 | USR, .extra = REQ0 | ANYRSP,
	  .why = PMUCTL_R_EXTRA_UNEXPECTED),
	V(.rule = R_XUNEXP, .models = SKL, .cfg = 0x02bb | USR, .extra = REQ0 | ANYRSP,
	  .why = PMUCTL_R_EXTRA_UNEXPECTED),
	V(.rule = R_XUNEXP, .models = SKL, .cfg = 0x02c6 | USR, .extra = 0x11,
	  .why = PMUCTL_R_EXTRA_UNEXPECTED),
	V(.rule = R_XUNEXP, .models = SKL, .cfg = 0x02cd | USR, .extra = 3,
	  .why = PMUCTL_R_EXTRA_UNEXPECTED),
	V(.rule = R_XUNEXP, .models = ARCH, .cfg = 0x01b7 | USR, .extra = REQ0 | ANYRSP,
	  .why = PMUCTL_R_NOT_ARCHITECTURAL),
	V(.rule = R_XUNEXP, .models = ARCH, .cfg = 0x01bb | USR, .extra = REQ0 | ANYRSP,
	  .why = PMUCTL_R_NOT_ARCHITECTURAL),
	V(.rule = R_XUNEXP, .models = ARCH, .cfg = 0x01c6 | USR, .extra = 0x11,
	  .why = PMUCTL_R_NOT_ARCHITECTURAL),
	V(.rule = R_XUNEXP, .models = ARCH, .cfg = 0x01cd | USR, .extra = 3,
	  .why = PMUCTL_R_NOT_ARCHITECTURAL),

	/*
	 * ---- extra value outside the MSR's valid mask ----
	 * KNL/KNM policy (model.c): Linux's masks, so the disputed bits 3, 4,
	 * 33, 34 and Intel's ANY_READ request 0x32f7 (bit 4) are refused.
	 */
	V(.rule = R_XMASK, .models = KNX, .cfg = K_RSP0 | USR, .extra = REQ0 | ANYRSP | BIT(3),
	  .why = PMUCTL_R_EXTRA_MASK),
	V(.rule = R_XMASK, .models = KNX, .cfg = K_RSP0 | USR, .extra = REQ0 | ANYRSP | BIT(4),
	  .why = PMUCTL_R_EXTRA_MASK),
	V(.rule = R_XMASK, .models = KNX, .cfg = K_RSP0 | USR, .extra = REQ0 | ANYRSP | BIT(33),
	  .why = PMUCTL_R_EXTRA_MASK),
	V(.rule = R_XMASK, .models = KNX, .cfg = K_RSP0 | USR, .extra = REQ0 | ANYRSP | BIT(34),
	  .why = PMUCTL_R_EXTRA_MASK),
	V(.rule = R_XMASK, .models = KNX, .cfg = K_RSP1 | USR, .extra = REQ0 | ANYRSP | BIT(3),
	  .why = PMUCTL_R_EXTRA_MASK),
	V(.rule = R_XMASK, .models = KNX, .cfg = K_RSP1 | USR, .extra = REQ0 | ANYRSP | BIT(4),
	  .why = PMUCTL_R_EXTRA_MASK),
	V(.rule = R_XMASK, .models = KNX, .cfg = K_RSP1 | USR, .extra = REQ0 | DDRNEAR | BIT(33),
	  .why = PMUCTL_R_EXTRA_MASK),
	V(.rule = R_XMASK, .models = KNX, .cfg = K_RSP1 | USR, .extra = REQ0 | DDRNEAR | BIT(34),
	  .why = PMUCTL_R_EXTRA_MASK),
	V(.rule = R_XMASK, .models = KNX, .cfg = K_RSP0 | USR, .extra = ANY_READ | ANYRSP,
	  .why = PMUCTL_R_EXTRA_MASK),
	V(.rule = R_XMASK, .models = KNX, .cfg = K_RSP1 | USR, .extra = ANY_READ | ANYRSP,
	  .why = PMUCTL_R_EXTRA_MASK),
	V(.rule = R_XMASK, .models = KNX, .cfg = K_RSP0 | USR, .extra = ANY_READ | DDRNEAR,
	  .why = PMUCTL_R_EXTRA_MASK),
	/* bits 8, 11, 14 exist in RSP_1 only */
	V(.rule = R_XMASK, .models = KNX, .cfg = K_RSP0 | USR, .extra = PWR | ANYRSP,
	  .why = PMUCTL_R_EXTRA_MASK),
	V(.rule = R_XMASK, .models = KNX, .cfg = K_RSP0 | USR, .extra = FSS | ANYRSP,
	  .why = PMUCTL_R_EXTRA_MASK),
	V(.rule = R_XMASK, .models = KNX, .cfg = K_RSP0 | USR, .extra = PSS | ANYRSP,
	  .why = PMUCTL_R_EXTRA_MASK),
	V(.rule = R_XMASK, .models = KNX, .cfg = K_RSP0 | USR, .extra = REQ0 | ANYRSP | BIT(18),
	  .why = PMUCTL_R_EXTRA_MASK),
	V(.rule = R_XMASK, .models = KNX, .cfg = K_RSP0 | USR, .extra = REQ0 | ANYRSP | BIT(29),
	  .why = PMUCTL_R_EXTRA_MASK),
	V(.rule = R_XMASK, .models = KNX, .cfg = K_RSP1 | USR, .extra = REQ0 | ANYRSP | BIT(30),
	  .why = PMUCTL_R_EXTRA_MASK),
	V(.rule = R_XMASK, .models = KNX, .cfg = K_RSP0 | USR, .extra = REQ0 | ANYRSP | BIT(39),
	  .why = PMUCTL_R_EXTRA_MASK),
	V(.rule = R_XMASK, .models = KNX, .cfg = K_RSP1 | USR, .extra = REQ0 | ANYRSP | BIT(63),
	  .why = PMUCTL_R_EXTRA_MASK),
	/* Skylake: bits 12..14 and 38 and up are outside 0x3fffff8fff */
	V(.rule = R_XMASK, .models = SKL, .cfg = S_RSP0 | USR, .extra = BIT(12) | ANYRSP,
	  .why = PMUCTL_R_EXTRA_MASK),
	V(.rule = R_XMASK, .models = SKL, .cfg = S_RSP0 | USR, .extra = BIT(13) | ANYRSP,
	  .why = PMUCTL_R_EXTRA_MASK),
	V(.rule = R_XMASK, .models = SKL, .cfg = S_RSP1 | USR, .extra = BIT(14) | ANYRSP,
	  .why = PMUCTL_R_EXTRA_MASK),
	V(.rule = R_XMASK, .models = SKL, .cfg = S_RSP1 | USR, .extra = REQ0 | ANYRSP | BIT(38),
	  .why = PMUCTL_R_EXTRA_MASK),
	V(.rule = R_XMASK, .models = SKL, .cfg = S_RSP0 | USR, .extra = REQ0 | ANYRSP | BIT(40),
	  .why = PMUCTL_R_EXTRA_MASK),
	V(.rule = R_XMASK, .models = SKL, .cfg = S_FE | USR, .extra = 0x08,
	  .why = PMUCTL_R_EXTRA_MASK),
	V(.rule = R_XMASK, .models = SKL, .cfg = S_FE | USR, .extra = 0x11 | 0x20,
	  .why = PMUCTL_R_EXTRA_MASK),
	V(.rule = R_XMASK, .models = SKL, .cfg = S_FE | USR, .extra = BIT(23),
	  .why = PMUCTL_R_EXTRA_MASK),
	V(.rule = R_XMASK, .models = SKL, .cfg = S_LDLAT | USR, .extra = BIT(16),
	  .why = PMUCTL_R_EXTRA_MASK),
	V(.rule = R_XMASK, .models = SKL, .cfg = S_LDLAT | USR, .extra = 3 | BIT(63),
	  .why = PMUCTL_R_EXTRA_MASK),
	/* the generic model takes no model-specific event at all */
	V(.rule = R_XMASK, .models = ARCH, .cfg = K_RSP0 | USR, .extra = REQ0 | ANYRSP | BIT(4),
	  .why = PMUCTL_R_NOT_ARCHITECTURAL),
	V(.rule = R_XMASK, .models = ARCH, .cfg = S_LDLAT | USR, .extra = BIT(16),
	  .why = PMUCTL_R_NOT_ARCHITECTURAL),

	/* ---- offcore: at least one request bit ---- */
	V(.rule = R_NOREQ, .models = KNX, .cfg = K_RSP0 | USR, .extra = ANYRSP,
	  .why = PMUCTL_R_OFFCORE_NO_REQUEST),
	V(.rule = R_NOREQ, .models = KNX, .cfg = K_RSP1 | USR, .extra = DDRNEAR,
	  .why = PMUCTL_R_OFFCORE_NO_REQUEST),
	V(.rule = R_NOREQ, .models = KNX, .cfg = K_RSP0 | USR, .extra = 0,
	  .why = PMUCTL_R_OFFCORE_NO_REQUEST),
	V(.rule = R_NOREQ, .models = KNX, .cfg = K_RSP0 | USR, .extra = OUTST,
	  .why = PMUCTL_R_OFFCORE_NO_REQUEST),
	V(.rule = R_NOREQ, .models = SKL, .cfg = S_RSP0 | USR, .extra = ANYRSP,
	  .why = PMUCTL_R_OFFCORE_NO_REQUEST),
	V(.rule = R_NOREQ, .models = SKL, .cfg = S_RSP1 | USR, .extra = BIT(20) | BIT(37),
	  .why = PMUCTL_R_OFFCORE_NO_REQUEST),
	V(.rule = R_NOREQ, .models = SKL, .cfg = S_RSP1 | USR, .extra = 0,
	  .why = PMUCTL_R_OFFCORE_NO_REQUEST),
	V(.rule = R_NOREQ, .models = ARCH, .cfg = K_RSP0 | USR, .extra = ANYRSP,
	  .why = PMUCTL_R_NOT_ARCHITECTURAL),

	/* ---- offcore: normal mode needs a response ---- */
	V(.rule = R_NORSP, .models = KNX, .cfg = K_RSP0 | USR, .extra = REQ0,
	  .why = PMUCTL_R_OFFCORE_NO_RESPONSE),
	V(.rule = R_NORSP, .models = KNX, .cfg = K_RSP1 | USR, .extra = PWR,
	  .why = PMUCTL_R_OFFCORE_NO_RESPONSE),
	V(.rule = R_NORSP, .models = KNX, .cfg = K_RSP0 | USR, .extra = KNL_REQS,
	  .why = PMUCTL_R_OFFCORE_NO_RESPONSE),
	V(.rule = R_NORSP, .models = SKL, .cfg = S_RSP0 | USR, .extra = REQ0,
	  .why = PMUCTL_R_OFFCORE_NO_RESPONSE),
	V(.rule = R_NORSP, .models = SKL, .cfg = S_RSP1 | USR, .extra = 0x8fff,
	  .why = PMUCTL_R_OFFCORE_NO_RESPONSE),
	V(.rule = R_NORSP, .models = ARCH, .cfg = K_RSP0 | USR, .extra = REQ0,
	  .why = PMUCTL_R_NOT_ARCHITECTURAL),

	/* ---- ANY_RESPONSE excludes every supplier/snoop bit ---- */
	V(.rule = R_MIXED, .models = KNX, .cfg = K_RSP0 | USR, .extra = REQ0 | ANYRSP | DDRNEAR,
	  .why = PMUCTL_R_OFFCORE_ANY_RESPONSE_MIXED),
	V(.rule = R_MIXED, .models = KNX, .cfg = K_RSP1 | USR, .extra = REQ1 | ANYRSP | BIT(17),
	  .why = PMUCTL_R_OFFCORE_ANY_RESPONSE_MIXED),
	V(.rule = R_MIXED, .models = KNX, .cfg = K_RSP1 | USR, .extra = REQ1 | ANYRSP | BIT(37),
	  .why = PMUCTL_R_OFFCORE_ANY_RESPONSE_MIXED),
	V(.rule = R_MIXED, .models = SKL, .cfg = S_RSP0 | USR, .extra = REQ0 | ANYRSP | BIT(37),
	  .why = PMUCTL_R_OFFCORE_ANY_RESPONSE_MIXED),
	V(.rule = R_MIXED, .models = SKL, .cfg = S_RSP1 | USR, .extra = REQ0 | ANYRSP | BIT(17),
	  .why = PMUCTL_R_OFFCORE_ANY_RESPONSE_MIXED),
	V(.rule = R_MIXED, .models = ARCH, .cfg = S_RSP1 | USR, .extra = REQ0 | ANYRSP | BIT(17),
	  .why = PMUCTL_R_NOT_ARCHITECTURAL),

	/* ---- OUTSTANDING exists in OFFCORE_RSP_0 only ---- */
	V(.rule = R_OUT_RSP1, .models = KNX, .cfg = K_RSP1 | USR, .extra = REQ0 | OUTST,
	  .why = PMUCTL_R_OUTSTANDING_ON_RSP1),
	V(.rule = R_OUT_RSP1, .models = KNX, .cfg = K_RSP1 | USR, .extra = KNL_REQS | OUTST,
	  .why = PMUCTL_R_OUTSTANDING_ON_RSP1),
	V(.rule = R_OUT_RSP1, .models = KNX, .cfg = K_RSP1 | USR, .extra = REQ0 | ANYRSP | OUTST,
	  .why = PMUCTL_R_OUTSTANDING_ON_RSP1),
	V(.rule = R_OUT_RSP1, .models = SKL, .cfg = S_RSP1 | USR, .extra = REQ0 | OUTST,
	  .why = PMUCTL_R_EXTRA_MASK),
	V(.rule = R_OUT_RSP1, .models = ARCH, .cfg = K_RSP1 | USR, .extra = REQ0 | OUTST,
	  .why = PMUCTL_R_NOT_ARCHITECTURAL),

	/* ---- OUTSTANDING takes request bits only ---- */
	V(.rule = R_OUT_RSP, .models = KNX, .cfg = K_RSP0 | USR, .extra = REQ0 | OUTST | ANYRSP,
	  .why = PMUCTL_R_OUTSTANDING_WITH_RESPONSE),
	V(.rule = R_OUT_RSP, .models = KNX, .cfg = K_RSP0 | USR, .extra = REQ0 | OUTST | DDRNEAR,
	  .why = PMUCTL_R_OUTSTANDING_WITH_RESPONSE),
	V(.rule = R_OUT_RSP, .models = KNX, .cfg = K_RSP0 | USR, .extra = REQ2 | OUTST | BIT(17),
	  .why = PMUCTL_R_OUTSTANDING_WITH_RESPONSE),
	V(.rule = R_OUT_RSP, .models = KNX, .cfg = K_RSP0 | USR,
	  .extra = REQ0 | OUTST | ANYRSP | L2NEARM, .why = PMUCTL_R_OUTSTANDING_WITH_RESPONSE),
	V(.rule = R_OUT_RSP, .models = SKL, .cfg = S_RSP0 | USR, .extra = REQ0 | OUTST | ANYRSP,
	  .why = PMUCTL_R_EXTRA_MASK),
	V(.rule = R_OUT_RSP, .models = ARCH, .cfg = K_RSP0 | USR, .extra = REQ0 | OUTST | ANYRSP,
	  .why = PMUCTL_R_NOT_ARCHITECTURAL),

	/*
	 * ---- OUTSTANDING is a register rule, not a counter constraint ----
	 * Intel's KNL list gives counters "0,1" for every *.OUTSTANDING event
	 * (model.c policy): any generic counter, RSP_0 only.
	 */
	V(.rule = R_OUT_ANYGP, .models = KNX, .cfg = K_RSP0 | USR, .extra = REQ0 | OUTST,
	  .cnt = GPALL, .xr = XR(0), .out = true),
	V(.rule = R_OUT_ANYGP, .models = KNX, .ngp = 4, .cfg = K_RSP0 | USR, .extra = REQ0 | OUTST,
	  .cnt = 0xf, .xr = XR(0), .out = true),
	V(.rule = R_OUT_ANYGP, .models = KNX, .ngp = 1, .cfg = K_RSP0 | USR | OS,
	  .extra = KNL_REQS | OUTST, .cnt = 0x1, .xr = XR(0), .out = true),
	V(.rule = R_OUT_ANYGP, .models = KNX, .cfg = K_RSP0 | USR | INV | CMASK(1),
	  .extra = ANYREQ | OUTST, .cnt = GPALL, .xr = XR(0), .out = true),
	V(.rule = R_OUT_ANYGP, .models = KNX, .cfg = K_RSP0 | USR, .extra = REQ0 | ANYRSP,
	  .cnt = GPALL, .xr = XR(0)),
	V(.rule = R_OUT_ANYGP, .models = SKL, .cfg = S_RSP0 | USR, .extra = REQ0 | ANYRSP,
	  .cnt = GPALL, .xr = XR(0)),
	V(.rule = R_OUT_ANYGP, .models = ARCH, .cfg = K_RSP0 | USR,
	  .why = PMUCTL_R_NOT_ARCHITECTURAL),

	/* ---- valid offcore values ---- */
	V(.rule = R_OFC_OK, .models = KNX, .cfg = K_RSP0 | USR, .extra = REQ0 | ANYRSP,
	  .cnt = GPALL, .xr = XR(0)),
	V(.rule = R_OFC_OK, .models = KNX, .cfg = K_RSP1 | USR, .extra = REQ0 | ANYRSP,
	  .cnt = GPALL, .xr = XR(1)),
	V(.rule = R_OFC_OK, .models = KNX, .cfg = K_RSP0 | OS, .extra = REQ0 | REQ1 | DDRNEAR,
	  .cnt = GPALL, .xr = XR(0)),
	V(.rule = R_OFC_OK, .models = KNX, .cfg = K_RSP0 | USR, .extra = ANYREQ | MCDNEAR | MCDFAR,
	  .cnt = GPALL, .xr = XR(0)),
	V(.rule = R_OFC_OK, .models = KNX, .cfg = K_RSP0 | USR, .extra = REQ2 | NONDRAM | L2NEARM,
	  .cnt = GPALL, .xr = XR(0)),
	V(.rule = R_OFC_OK, .models = KNX, .cfg = K_RSP1 | USR, .extra = PWR | FSS | PSS | ANYRSP,
	  .cnt = GPALL, .xr = XR(1)),
	V(.rule = R_OFC_OK, .models = KNX, .cfg = K_RSP1 | USR, .extra = 0xffe7 | DDRNEAR,
	  .cnt = GPALL, .xr = XR(1)),
	V(.rule = R_OFC_OK, .models = KNX, .cfg = K_RSP0 | USR | INV | CMASK(1),
	  .extra = REQ0 | ANYRSP, .cnt = GPALL, .xr = XR(0)),
	V(.rule = R_OFC_OK, .models = SKL, .cfg = S_RSP0 | USR, .extra = REQ0 | ANYRSP,
	  .cnt = GPALL, .xr = XR(0)),
	V(.rule = R_OFC_OK, .models = SKL, .cfg = S_RSP1 | USR, .extra = REQ0 | ANYRSP,
	  .cnt = GPALL, .xr = XR(1)),
	V(.rule = R_OFC_OK, .models = SKL, .cfg = S_RSP0 | OS, .extra = 0x8fff | BIT(18) | BIT(37),
	  .cnt = GPALL, .xr = XR(0)),
	V(.rule = R_OFC_OK, .models = SKL, .cfg = S_RSP1 | USR, .extra = 0x3fffff8fffULL & ~ANYRSP,
	  .cnt = GPALL, .xr = XR(1)),
	V(.rule = R_OFC_OK, .models = SKL, .ngp = 8, .cfg = S_RSP0 | USR, .extra = REQ1 | ANYRSP,
	  .cnt = 0xf, .xr = XR(0)),
	V(.rule = R_OFC_OK, .models = ARCH, .cfg = K_RSP1 | USR,
	  .why = PMUCTL_R_NOT_ARCHITECTURAL),

	/* ---- unprivileged sessions: user mode only ---- */
	V(.rule = R_UNPRIV_OS, .models = ALL, .policy = UNPRIV, .cfg = 0x00c4 | OS,
	  .why = PMUCTL_R_UNPRIV_KERNEL_MODE),
	V(.rule = R_UNPRIV_OS, .models = ALL, .policy = UNPRIV, .cfg = 0x00c4 | USR | OS,
	  .why = PMUCTL_R_UNPRIV_KERNEL_MODE),
	V(.rule = R_UNPRIV_OS, .models = ALL, .policy = UNPRIV, .cfg = 0x0300 | OS,
	  .why = PMUCTL_R_UNPRIV_KERNEL_MODE),
	V(.rule = R_UNPRIV_OS, .models = ALL, .policy = UNPRIV, .cfg = 0x00c4 | USR, .cnt = GPALL),
	V(.rule = R_UNPRIV_OS, .models = ALL, .policy = UNPRIV, .cfg = 0x00c0 | USR,
	  .cnt = GPALL | F0),
	V(.rule = R_UNPRIV_OS, .models = KNX, .policy = UNPRIV, .cfg = K_RSP0 | OS,
	  .extra = REQ0 | ANYRSP, .why = PMUCTL_R_UNPRIV_KERNEL_MODE),
	V(.rule = R_UNPRIV_OS, .models = KNX, .policy = UNPRIV, .cfg = K_RSP0 | USR,
	  .extra = REQ0 | OUTST, .cnt = GPALL, .xr = XR(0), .out = true),
	V(.rule = R_UNPRIV_OS, .models = SKL, .policy = UNPRIV, .cfg = S_FE | USR, .extra = 0x11,
	  .cnt = 0xf, .xr = XR(2)),

	/* ---- unprivileged sessions: no AnyThread ---- */
	V(.rule = R_UNPRIV_ANY, .models = ALL, .policy = UNPRIV, .cfg = 0x00c0 | USR | ANY,
	  .why = PMUCTL_R_UNPRIV_ANY_THREAD),
	V(.rule = R_UNPRIV_ANY, .models = ALL, .policy = UNPRIV, .cfg = 0x003c | USR | ANY,
	  .why = PMUCTL_R_UNPRIV_ANY_THREAD),
	V(.rule = R_UNPRIV_ANY, .models = ALL, .policy = UNPRIV, .cfg = 0x00c4 | USR | ANY,
	  .why = PMUCTL_R_UNPRIV_ANY_THREAD),
	V(.rule = R_UNPRIV_ANY, .models = ALL, .policy = UNPRIV, .ver = 2, .cfg = 0x00c0 | USR | ANY,
	  .why = PMUCTL_R_UNPRIV_ANY_THREAD),
	V(.rule = R_UNPRIV_ANY, .models = ALL, .policy = UNPRIV, .cfg = 0x003c | USR, .cnt = GPALL | F1),

	/* ---- unknown event flags ---- */
	V(.rule = R_FLAGS, .models = ALL, .flags = BIT(1), .cfg = 0x00c4 | USR,
	  .why = PMUCTL_R_BAD_FLAGS),
	V(.rule = R_FLAGS, .models = ALL, .flags = 0x80000000U, .cfg = 0x00c4 | USR,
	  .why = PMUCTL_R_BAD_FLAGS),
	V(.rule = R_FLAGS, .models = ALL, .flags = GONLY | BIT(2), .cfg = 0x00c4 | USR,
	  .why = PMUCTL_R_BAD_FLAGS),
	V(.rule = R_FLAGS, .models = ALL, .flags = ~0U, .cfg = 0x00c0 | USR,
	  .why = PMUCTL_R_BAD_FLAGS),
	V(.rule = R_FLAGS, .models = ALL, .flags = PMUCTL_EVENT_FLAGS_ALL, .cfg = 0x00c4 | USR,
	  .cnt = GPALL),

	/*
	 * ---- an input breaking several rules gets the first in the
	 * documented order: KERNEL_BITS, PIN_CONTROL, RESERVED_BITS,
	 * NO_PRIV_LEVEL, UNPRIV_KERNEL_MODE, UNPRIV_ANY_THREAD, EDGE_NO_CMASK,
	 * EVENT_UNAVAILABLE, NO_ELIGIBLE_COUNTER, ANY_NOT_ALLOWED, then the
	 * extra value.  BAD_FLAGS is not in the documented list; the code
	 * checks it before everything else.
	 */
	V(.rule = R_ORDER, .models = ALL, .flags = BIT(1), .cfg = 0x00c4 | USR | EN | PC,
	  .why = PMUCTL_R_BAD_FLAGS),
	V(.rule = R_ORDER, .models = ALL, .cfg = 0x00c4 | USR | EN | PC | BIT(32),
	  .why = PMUCTL_R_KERNEL_BITS),
	V(.rule = R_ORDER, .models = ALL, .cfg = 0x00c4 | INT | EDGE, .why = PMUCTL_R_KERNEL_BITS),
	V(.rule = R_ORDER, .models = ALL, .cfg = 0x00c4 | USR | PC | BIT(33),
	  .why = PMUCTL_R_PIN_CONTROL),
	V(.rule = R_ORDER, .models = ALL, .cfg = 0x0000 | PC, .why = PMUCTL_R_PIN_CONTROL),
	V(.rule = R_ORDER, .models = ALL, .cfg = 0x00c4 | BIT(32), .why = PMUCTL_R_RESERVED_BITS),
	V(.rule = R_ORDER, .models = ALL, .policy = UNPRIV, .cfg = 0x00c4 | OS | BIT(48),
	  .why = PMUCTL_R_RESERVED_BITS),
	V(.rule = R_ORDER, .models = ALL, .policy = UNPRIV, .cfg = 0x00c4 | OS | EDGE | EQ | UMASK2(1),
	  .why = PMUCTL_R_UMASK2_UNAVAILABLE),
	V(.rule = R_ORDER, .models = ALL, .capf = CAP_U2, .policy = UNPRIV,
	  .cfg = 0x00c4 | OS | EDGE | EQ | UMASK2(1), .why = PMUCTL_R_EQ_UNAVAILABLE),
	V(.rule = R_ORDER, .models = ALL, .capf = CAP_U2 | CAP_EQ, .policy = UNPRIV,
	  .cfg = 0x00c4 | EDGE | EQ | UMASK2(1), .why = PMUCTL_R_NO_PRIV_LEVEL),
	V(.rule = R_ORDER, .models = ALL, .cfg = 0x00c4 | EDGE, .why = PMUCTL_R_NO_PRIV_LEVEL),
	V(.rule = R_ORDER, .models = ALL, .policy = UNPRIV, .cfg = 0x00c4 | ANY,
	  .why = PMUCTL_R_NO_PRIV_LEVEL),
	V(.rule = R_ORDER, .models = ALL, .policy = UNPRIV, .cfg = 0x00c4 | OS | ANY | EDGE,
	  .why = PMUCTL_R_UNPRIV_KERNEL_MODE),
	V(.rule = R_ORDER, .models = ALL, .policy = UNPRIV, .cfg = 0x00c4 | USR | ANY | EDGE,
	  .why = PMUCTL_R_UNPRIV_ANY_THREAD),
	V(.rule = R_ORDER, .models = ALL, .ver = 2, .cfg = 0x00c4 | USR | ANY | EDGE,
	  .why = PMUCTL_R_EDGE_NO_CMASK),
	V(.rule = R_ORDER, .models = ALL, .cfg = 0x0000 | USR | EDGE, .why = PMUCTL_R_EDGE_NO_CMASK),
	V(.rule = R_ORDER, .models = ALL, .ver = 5, .unav = BIT(5), .cfg = 0x00c4 | USR | ANY,
	  .why = PMUCTL_R_EVENT_UNAVAILABLE),
	V(.rule = R_ORDER, .models = ALL, .ver = 2, .flags = GONLY, .cfg = 0x0300 | USR | ANY,
	  .extra = 1, .why = PMUCTL_R_NO_ELIGIBLE_COUNTER),
	V(.rule = R_ORDER, .models = ALL, .ver = 2, .cfg = 0x00c4 | USR | ANY, .extra = 1,
	  .why = PMUCTL_R_ANY_NOT_ALLOWED),
	V(.rule = R_ORDER, .models = KNX, .cfg = 0x00c4 | USR | ANY, .extra = 1,
	  .why = PMUCTL_R_ANY_NOT_ALLOWED),
	V(.rule = R_ORDER, .models = ALL, .unav = BIT(5), .cfg = 0x00c4 | USR, .extra = 1,
	  .why = PMUCTL_R_EVENT_UNAVAILABLE),
	V(.rule = R_ORDER, .models = ALL, .flags = GONLY, .cfg = 0x0300 | USR, .extra = 1,
	  .why = PMUCTL_R_NO_ELIGIBLE_COUNTER),
	V(.rule = R_ORDER, .models = ALL, .cfg = 0x0000 | USR, .extra = 1,
	  .why = PMUCTL_R_NO_ELIGIBLE_COUNTER),
	V(.rule = R_ORDER, .models = KNX, .cfg = K_RSP1 | USR, .extra = OUTST | BIT(3),
	  .why = PMUCTL_R_OUTSTANDING_ON_RSP1),
	V(.rule = R_ORDER, .models = KNX, .cfg = K_RSP0 | USR, .extra = BIT(3) | ANYRSP,
	  .why = PMUCTL_R_EXTRA_MASK),
	V(.rule = R_ORDER, .models = KNX, .cfg = K_RSP0 | USR, .extra = OUTST | ANYRSP,
	  .why = PMUCTL_R_OFFCORE_NO_REQUEST),
	V(.rule = R_ORDER, .models = KNX, .cfg = K_RSP0 | USR, .extra = REQ0 | OUTST | ANYRSP | DDRNEAR,
	  .why = PMUCTL_R_OUTSTANDING_WITH_RESPONSE),
	V(.rule = R_ORDER, .models = KNX, .cfg = K_RSP0 | USR | ANY, .extra = BIT(3),
	  .why = PMUCTL_R_ANY_NOT_ALLOWED),
	V(.rule = R_ORDER, .models = SKL, .cfg = S_RSP0 | USR, .extra = BIT(12) | DDRNEAR | ANYRSP,
	  .why = PMUCTL_R_EXTRA_MASK),
	V(.rule = R_ORDER, .models = SKL, .cfg = S_RSP1 | USR, .extra = ANYRSP | BIT(20),
	  .why = PMUCTL_R_OFFCORE_NO_REQUEST),
	V(.rule = R_ORDER, .models = SKL, .ngp = 1, .cfg = 0x01c0 | USR, .extra = 1,
	  .why = PMUCTL_R_NO_ELIGIBLE_COUNTER),

	/* ---- Skylake counter constraints [Linux intel_skl_event_constraints] ... ---- */
	V(.rule = R_SKL_CONS, .models = SKL, .cfg = 0x01c0 | USR, .cnt = 0x2),
	V(.rule = R_SKL_CONS, .models = SKL, .ngp = 8, .cfg = 0x01c0 | USR, .cnt = 0x2),
	V(.rule = R_SKL_CONS, .models = SKL, .ngp = 8, .cfg = 0x00c0 | USR, .cnt = 0xff | F0),
	V(.rule = R_SKL_CONS, .models = SKL, .ngp = 8, .cfg = 0x81d0 | USR, .cnt = 0xf),
	V(.rule = R_SKL_CONS, .models = SKL, .ngp = 8, .cfg = 0x01d1 | USR, .cnt = 0xf),
	V(.rule = R_SKL_CONS, .models = SKL, .ngp = 8, .cfg = 0x04d2 | USR, .cnt = 0xf),
	V(.rule = R_SKL_CONS, .models = SKL, .ngp = 8, .cfg = 0x02cd | USR, .cnt = 0xf),
	V(.rule = R_SKL_CONS, .models = SKL, .ngp = 8, .cfg = 0x00c6 | USR, .cnt = 0xf),
	V(.rule = R_SKL_CONS, .models = SKL, .ngp = 8, .cfg = 0x81d0 | USR | CMASK(1), .cnt = 0xf),
	V(.rule = R_SKL_CONS, .models = SKL, .ngp = 2, .cfg = 0x81d0 | USR, .cnt = 0x3),
	V(.rule = R_SKL_CONS, .models = SKL, .ngp = 8, .cfg = 0x00c4 | USR, .cnt = 0xff),
	V(.rule = R_SKL_CONS, .models = SKL, .ngp = 8, .cfg = 0x01c2 | USR, .cnt = 0xff),
	/*
	 * ... and Intel's list's further HT-off restrictions (model.c [INT]):
	 * OFFCORE_RESPONSE 0xb7/0xbb and 0xd3 (every umask), 0x04c4, 0x04c5,
	 * 0x04d4, 0x14a3 (that umask only)
	 */
	V(.rule = R_SKL_CONS, .models = SKL, .ngp = 8, .cfg = S_RSP0 | USR, .extra = REQ0 | ANYRSP,
	  .cnt = 0xf, .xr = XR(0)),
	V(.rule = R_SKL_CONS, .models = SKL, .ngp = 8, .cfg = S_RSP1 | OS, .extra = REQ1 | ANYRSP,
	  .cnt = 0xf, .xr = XR(1)),
	V(.rule = R_SKL_CONS, .models = SKL, .ngp = 8, .cfg = 0x02b7 | USR, .cnt = 0xf),
	V(.rule = R_SKL_CONS, .models = SKL, .ngp = 8, .cfg = 0x04c4 | USR, .cnt = 0xf),
	V(.rule = R_SKL_CONS, .models = SKL, .ngp = 8, .cfg = 0x04c5 | USR, .cnt = 0xf),
	V(.rule = R_SKL_CONS, .models = SKL, .ngp = 8, .cfg = 0x04d4 | USR, .cnt = 0xf),
	V(.rule = R_SKL_CONS, .models = SKL, .ngp = 8, .cfg = 0x14a3 | USR | CMASK(20), .cnt = 0xf),
	V(.rule = R_SKL_CONS, .models = SKL, .ngp = 8, .cfg = 0x01d3 | USR, .cnt = 0xf),
	V(.rule = R_SKL_CONS, .models = SKL, .ngp = 8, .cfg = 0x08d3 | OS, .cnt = 0xf),
	V(.rule = R_SKL_CONS, .models = SKL, .ngp = 2, .cfg = 0x04c4 | USR, .cnt = 0x3),
	/* their other umasks run on every counter */
	V(.rule = R_SKL_CONS, .models = SKL, .ngp = 8, .cfg = 0x20c4 | USR, .cnt = 0xff),
	V(.rule = R_SKL_CONS, .models = SKL, .ngp = 8, .cfg = 0x00c5 | USR, .cnt = 0xff),
	V(.rule = R_SKL_CONS, .models = SKL, .ngp = 8, .cfg = 0x01c5 | USR, .cnt = 0xff),
	V(.rule = R_SKL_CONS, .models = SKL, .ngp = 8, .cfg = 0x01d4 | USR, .cnt = 0xff),
	V(.rule = R_SKL_CONS, .models = SKL, .ngp = 8, .cfg = 0x08a3 | USR | CMASK(8), .cnt = 0xff),
	V(.rule = R_SKL_CONS, .models = SKL, .ngp = 8, .cfg = 0x10a3 | USR | CMASK(16), .cnt = 0xff),
	V(.rule = R_SKL_CONS, .models = SKL, .ngp = 8, .cfg = 0x00b6 | USR, .cnt = 0xff),
	/* the constraints are Skylake's: KNL/KNM leave these free, arch takes none */
	V(.rule = R_SKL_CONS, .models = KNX, .ngp = 8, .cfg = 0x01c0 | USR, .cnt = 0xff),
	V(.rule = R_SKL_CONS, .models = KNX, .ngp = 8, .cfg = 0x81d0 | USR, .cnt = 0xff),
	V(.rule = R_SKL_CONS, .models = KNX, .ngp = 8, .cfg = 0x01cd | USR, .cnt = 0xff),
	V(.rule = R_SKL_CONS, .models = KNX, .ngp = 8, .cfg = 0x01c6 | USR, .cnt = 0xff),
	V(.rule = R_SKL_CONS, .models = KNX, .ngp = 8, .cfg = 0x04c4 | USR, .cnt = 0xff),
	V(.rule = R_SKL_CONS, .models = KNX, .ngp = 8, .cfg = 0x14a3 | USR, .cnt = 0xff),
	V(.rule = R_SKL_CONS, .models = KNX, .ngp = 8, .cfg = 0x01d3 | USR, .cnt = 0xff),
	V(.rule = R_SKL_CONS, .models = KNX, .ngp = 8, .cfg = K_RSP0 | USR, .extra = REQ0 | ANYRSP,
	  .cnt = 0xff, .xr = XR(0)),
	V(.rule = R_SKL_CONS, .models = ARCH, .ngp = 8, .cfg = 0x81d0 | USR,
	  .why = PMUCTL_R_NOT_ARCHITECTURAL),
	V(.rule = R_SKL_CONS, .models = ARCH, .ngp = 8, .cfg = 0x04c4 | USR,
	  .why = PMUCTL_R_NOT_ARCHITECTURAL),

	/* ---- Skylake FRONTEND (0x01c6, mask 0x7fff17) and LDLAT (0x01cd, 0xffff) ---- */
	V(.rule = R_SKL_XREG, .models = SKL, .cfg = S_FE | USR, .extra = 0x11, .cnt = 0xf, .xr = XR(2)),
	V(.rule = R_SKL_XREG, .models = SKL, .cfg = S_FE | USR, .extra = 0x7fff17, .cnt = 0xf,
	  .xr = XR(2)),
	V(.rule = R_SKL_XREG, .models = SKL, .cfg = S_FE | USR, .extra = 0, .cnt = 0xf, .xr = XR(2)),
	V(.rule = R_SKL_XREG, .models = SKL, .ngp = 8, .cfg = S_FE | USR, .extra = 0x400106,
	  .cnt = 0xf, .xr = XR(2)),
	V(.rule = R_SKL_XREG, .models = SKL, .cfg = S_LDLAT | USR, .extra = 3, .cnt = 0xf, .xr = XR(3)),
	V(.rule = R_SKL_XREG, .models = SKL, .cfg = S_LDLAT | USR, .extra = 0xffff, .cnt = 0xf,
	  .xr = XR(3)),
	V(.rule = R_SKL_XREG, .models = SKL, .ngp = 8, .cfg = S_LDLAT | OS, .extra = 0x80,
	  .cnt = 0xf, .xr = XR(3)),
	V(.rule = R_SKL_XREG, .models = SKL, .cfg = S_FE | USR, .extra = 0x800000,
	  .why = PMUCTL_R_EXTRA_MASK),
	V(.rule = R_SKL_XREG, .models = SKL, .cfg = S_LDLAT | USR, .extra = 0x10000,
	  .why = PMUCTL_R_EXTRA_MASK),
	/* neither register exists elsewhere */
	V(.rule = R_SKL_XREG, .models = KNX, .cfg = S_FE | USR, .extra = 0x11,
	  .why = PMUCTL_R_EXTRA_UNEXPECTED),
	V(.rule = R_SKL_XREG, .models = KNX, .cfg = S_LDLAT | USR, .extra = 3,
	  .why = PMUCTL_R_EXTRA_UNEXPECTED),
	V(.rule = R_SKL_XREG, .models = KNX, .cfg = S_FE | USR, .cnt = GPALL),
	V(.rule = R_SKL_XREG, .models = KNX, .cfg = S_LDLAT | USR, .cnt = GPALL),
	V(.rule = R_SKL_XREG, .models = ARCH, .cfg = S_FE | USR, .extra = 0x11,
	  .why = PMUCTL_R_NOT_ARCHITECTURAL),
	V(.rule = R_SKL_XREG, .models = ARCH, .cfg = S_LDLAT | USR, .extra = 3,
	  .why = PMUCTL_R_NOT_ARCHITECTURAL),

	/*
	 * ---- the generic model: architectural events and fixed encodings only ----
	 * Every code of CPUID.0AH:EBX's table and 0x0300 is accepted, with any
	 * modifier; everything else with a non-zero event select is refused,
	 * the model-specific events with an extra MSR on other models first
	 * (OFFCORE, LOAD_LATENCY, FRONTEND: issue 10).  Event select 0 stays
	 * NO_ELIGIBLE_COUNTER (it counts nothing anywhere).
	 */
	V(.rule = R_NOTARCH, .models = ARCH, .cfg = 0x003c | USR, .cnt = GPALL | F1),
	V(.rule = R_NOTARCH, .models = ARCH, .cfg = 0x00c0 | OS, .cnt = GPALL | F0),
	V(.rule = R_NOTARCH, .models = ARCH, .cfg = 0x0300 | USR, .cnt = F2),
	V(.rule = R_NOTARCH, .models = ARCH, .cfg = 0x013c | USR, .cnt = GPALL),
	V(.rule = R_NOTARCH, .models = ARCH, .cfg = 0x4f2e | USR, .cnt = GPALL),
	V(.rule = R_NOTARCH, .models = ARCH, .cfg = 0x412e | USR | INV | CMASK(1), .cnt = GPALL),
	V(.rule = R_NOTARCH, .models = ARCH, .cfg = 0x00c4 | USR | EDGE | CMASK(1), .cnt = GPALL),
	V(.rule = R_NOTARCH, .models = ARCH, .cfg = 0x00c5 | USR | ANY, .cnt = GPALL),
	/* TOPDOWN.SLOTS where CPUID enumerates it (length 8, Ice Lake) */
	V(.rule = R_NOTARCH, .models = ARCH, .cfg = 0x01a4 | USR,
	  .why = PMUCTL_R_EVENT_UNAVAILABLE),
	V(.rule = R_NOTARCH, .models = ARCH, .avail = BIT(7), .cfg = 0x01a4 | USR, .cnt = GPALL),
	/* model-specific events */
	V(.rule = R_NOTARCH, .models = ARCH, .cfg = 0x01b7 | USR, .extra = REQ0 | ANYRSP,
	  .why = PMUCTL_R_NOT_ARCHITECTURAL),	/* OFFCORE_RESPONSE_0 */
	V(.rule = R_NOTARCH, .models = ARCH, .cfg = 0x01b7 | USR,
	  .why = PMUCTL_R_NOT_ARCHITECTURAL),
	V(.rule = R_NOTARCH, .models = ARCH, .cfg = 0x01bb | USR,
	  .why = PMUCTL_R_NOT_ARCHITECTURAL),
	V(.rule = R_NOTARCH, .models = ARCH, .cfg = 0x01cd | USR, .extra = 3,
	  .why = PMUCTL_R_NOT_ARCHITECTURAL),	/* LOAD_LATENCY */
	V(.rule = R_NOTARCH, .models = ARCH, .cfg = 0x01c6 | USR, .extra = 0x11,
	  .why = PMUCTL_R_NOT_ARCHITECTURAL),	/* FRONTEND_RETIRED */
	V(.rule = R_NOTARCH, .models = ARCH, .cfg = 0x01c0 | USR,
	  .why = PMUCTL_R_NOT_ARCHITECTURAL),
	V(.rule = R_NOTARCH, .models = ARCH, .cfg = 0x81d0 | USR,
	  .why = PMUCTL_R_NOT_ARCHITECTURAL),
	V(.rule = R_NOTARCH, .models = ARCH, .cfg = 0x023c | USR,
	  .why = PMUCTL_R_NOT_ARCHITECTURAL),	/* another umask of 0x3c */
	V(.rule = R_NOTARCH, .models = ARCH, .cfg = 0x01c4 | USR,
	  .why = PMUCTL_R_NOT_ARCHITECTURAL),	/* another umask of 0xc4 */
	V(.rule = R_NOTARCH, .models = ARCH, .cfg = 0x002e | USR,
	  .why = PMUCTL_R_NOT_ARCHITECTURAL),
	V(.rule = R_NOTARCH, .models = ARCH, .cfg = 0xffff | USR,
	  .why = PMUCTL_R_NOT_ARCHITECTURAL),
	V(.rule = R_NOTARCH, .models = ARCH, .cfg = 0x0001 | USR | OS,
	  .why = PMUCTL_R_NOT_ARCHITECTURAL),
	V(.rule = R_NOTARCH, .models = ARCH, .flags = GONLY, .cfg = 0x01b7 | USR,
	  .why = PMUCTL_R_NOT_ARCHITECTURAL),
	/* event select 0 is not an event anywhere */
	V(.rule = R_NOTARCH, .models = ARCH, .cfg = 0x0100 | USR,
	  .why = PMUCTL_R_NO_ELIGIBLE_COUNTER),
	/* the documented order: after EDGE_NO_CMASK, before ANY_NOT_ALLOWED */
	V(.rule = R_NOTARCH, .models = ARCH, .cfg = 0x01b7 | USR | EDGE,
	  .why = PMUCTL_R_EDGE_NO_CMASK),
	V(.rule = R_NOTARCH, .models = ARCH, .ver = 2, .cfg = 0x01b7 | USR | ANY,
	  .why = PMUCTL_R_NOT_ARCHITECTURAL),
	V(.rule = R_NOTARCH, .models = ARCH, .cfg = 0x01b7 | USR, .extra = BIT(63),
	  .why = PMUCTL_R_NOT_ARCHITECTURAL),
	/* the models with a table take these */
	V(.rule = R_NOTARCH, .models = KNX | SKL, .cfg = 0x002e | USR, .cnt = GPALL),
	V(.rule = R_NOTARCH, .models = KNX | SKL, .cfg = 0x01c4 | USR, .cnt = GPALL),

	/*
	 * ---- perfmon v6's EQ (bit 36) and UMASK2 (bits 47:40): only where
	 * CPUID.(23H,0):EBX enumerates them; never on a fixed counter; the
	 * constraints and the generic model look at event and umask ----
	 */
	V(.rule = R_V6FIELDS, .models = ALL, .cfg = 0x00c4 | USR | UMASK2(1),
	  .why = PMUCTL_R_UMASK2_UNAVAILABLE),
	V(.rule = R_V6FIELDS, .models = ALL, .capf = CAP_EQ, .cfg = 0x00c4 | USR | UMASK2(0x80),
	  .why = PMUCTL_R_UMASK2_UNAVAILABLE),
	V(.rule = R_V6FIELDS, .models = ALL, .cfg = 0x00c4 | USR | EQ | CMASK(1),
	  .why = PMUCTL_R_EQ_UNAVAILABLE),
	V(.rule = R_V6FIELDS, .models = ALL, .capf = CAP_U2, .cfg = 0x00c4 | USR | EQ | CMASK(1),
	  .why = PMUCTL_R_EQ_UNAVAILABLE),
	V(.rule = R_V6FIELDS, .models = KNX | SKL, .capf = CAP_U2, .cfg = 0x00c4 | USR | UMASK2(0xff),
	  .cnt = GPALL),
	V(.rule = R_V6FIELDS, .models = ALL, .capf = CAP_EQ, .cfg = 0x00c4 | USR | EQ | CMASK(2),
	  .cnt = GPALL),
	V(.rule = R_V6FIELDS, .models = ALL, .capf = CAP_U2 | CAP_EQ,
	  .cfg = 0x00c4 | USR | OS | EQ | CMASK(1), .cnt = GPALL),
	/* the fixed-counter events with either are generic-counter events */
	V(.rule = R_V6FIELDS, .models = ALL, .capf = CAP_EQ, .cfg = 0x00c0 | USR | EQ, .cnt = GPALL),
	V(.rule = R_V6FIELDS, .models = KNX | SKL, .capf = CAP_U2, .cfg = 0x00c0 | USR | UMASK2(1),
	  .cnt = GPALL),
	V(.rule = R_V6FIELDS, .models = KNX | SKL, .capf = CAP_U2, .cfg = 0x003c | USR | UMASK2(2),
	  .cnt = GPALL),
	V(.rule = R_V6FIELDS, .models = ALL, .capf = CAP_U2 | CAP_EQ, .cfg = 0x0300 | USR | EQ,
	  .why = PMUCTL_R_NO_ELIGIBLE_COUNTER),
	V(.rule = R_V6FIELDS, .models = ALL, .capf = CAP_U2, .cfg = 0x0300 | USR | UMASK2(1),
	  .why = PMUCTL_R_NO_ELIGIBLE_COUNTER),
	/* the generic model: an architectural event with a second unit mask is not one */
	V(.rule = R_V6FIELDS, .models = ARCH, .capf = CAP_U2, .cfg = 0x00c0 | USR | UMASK2(1),
	  .why = PMUCTL_R_NOT_ARCHITECTURAL),
	V(.rule = R_V6FIELDS, .models = ARCH, .capf = CAP_U2, .cfg = 0x00c4 | USR | UMASK2(0x10),
	  .why = PMUCTL_R_NOT_ARCHITECTURAL),
	/* Skylake's constraints match event and umask: 0x01c0's stays, as Linux */
	V(.rule = R_V6FIELDS, .models = SKL, .capf = CAP_U2, .cfg = 0x01c0 | USR | UMASK2(1),
	  .cnt = 0x2)
};

static const char *const reason_name[PMUCTL_R_NR] = {
	[PMUCTL_R_NONE] = "NONE",
	[PMUCTL_R_BAD_FLAGS] = "BAD_FLAGS",
	[PMUCTL_R_RESERVED_FIELD] = "RESERVED_FIELD",
	[PMUCTL_R_OUTPUT_NOT_ZERO] = "OUTPUT_NOT_ZERO",
	[PMUCTL_R_TOO_MANY_EVENTS] = "TOO_MANY_EVENTS",
	[PMUCTL_R_RESERVED_BITS] = "RESERVED_BITS",
	[PMUCTL_R_KERNEL_BITS] = "KERNEL_BITS",
	[PMUCTL_R_PIN_CONTROL] = "PIN_CONTROL",
	[PMUCTL_R_NO_PRIV_LEVEL] = "NO_PRIV_LEVEL",
	[PMUCTL_R_EDGE_NO_CMASK] = "EDGE_NO_CMASK",
	[PMUCTL_R_ANY_NOT_ALLOWED] = "ANY_NOT_ALLOWED",
	[PMUCTL_R_EVENT_UNAVAILABLE] = "EVENT_UNAVAILABLE",
	[PMUCTL_R_NO_ELIGIBLE_COUNTER] = "NO_ELIGIBLE_COUNTER",
	[PMUCTL_R_EXTRA_UNEXPECTED] = "EXTRA_UNEXPECTED",
	[PMUCTL_R_EXTRA_MASK] = "EXTRA_MASK",
	[PMUCTL_R_OFFCORE_NO_REQUEST] = "OFFCORE_NO_REQUEST",
	[PMUCTL_R_OFFCORE_NO_RESPONSE] = "OFFCORE_NO_RESPONSE",
	[PMUCTL_R_OFFCORE_ANY_RESPONSE_MIXED] = "OFFCORE_ANY_RESPONSE_MIXED",
	[PMUCTL_R_OUTSTANDING_ON_RSP1] = "OUTSTANDING_ON_RSP1",
	[PMUCTL_R_OUTSTANDING_WITH_RESPONSE] = "OUTSTANDING_WITH_RESPONSE",
	[PMUCTL_R_UNPRIV_KERNEL_MODE] = "UNPRIV_KERNEL_MODE",
	[PMUCTL_R_UNPRIV_ANY_THREAD] = "UNPRIV_ANY_THREAD",
	[PMUCTL_R_NOT_ARCHITECTURAL] = "NOT_ARCHITECTURAL",
	[PMUCTL_R_EXTRA_UNSUPPORTED] = "EXTRA_UNSUPPORTED",
};

static const char *rname(u32 r)
{
	return r < PMUCTL_R_NR && reason_name[r] ? reason_name[r] : "?";
}

FIXTURE(model) {
	const struct pmuctl_model *m;
};

FIXTURE_VARIANT(model) {
	u32 id;
	u8 bit;			/* KNL, KNM, SKL or ARCH */
	const struct pmuctl_caps *caps;
};

FIXTURE_VARIANT_ADD(model, knl) { .id = PMUCTL_MODEL_KNL, .bit = KNL, .caps = &caps_knl };
FIXTURE_VARIANT_ADD(model, knm) { .id = PMUCTL_MODEL_KNM, .bit = KNM, .caps = &caps_knm };
FIXTURE_VARIANT_ADD(model, skl) { .id = PMUCTL_MODEL_SKL, .bit = SKL, .caps = &caps_skl };
FIXTURE_VARIANT_ADD(model, arch) { .id = PMUCTL_MODEL_ARCH, .bit = ARCH, .caps = &caps_arch };

FIXTURE_SETUP(model)
{
	self->m = pmuctl_model_by_id(variant->id);
}

FIXTURE_TEARDOWN(model)
{
}

static struct pmuctl_caps vec_caps(const struct pmuctl_caps *base,
				   const struct vec *v)
{
	struct pmuctl_caps c = *base;

	if (v->ver) {
		c.version = v->ver;
		c.flags &= ~(PMUCTL_CAP_ANY_THREAD | PMUCTL_CAP_ANY_DEPRECATED);
		if (v->ver >= 5 && v->depr)
			c.flags |= PMUCTL_CAP_ANY_DEPRECATED;
		else if (v->ver >= 3)
			c.flags |= PMUCTL_CAP_ANY_THREAD;
	}
	if (v->ngp)
		c.nr_gp = v->ngp;
	if (v->fm) {
		c.fixed_mask = v->fm & 0xffff;
		c.nr_fixed = 0;
		for (u32 i = 0; i < 16; i++)
			if (c.fixed_mask & (1U << i))
				c.nr_fixed = i + 1;
	}
	c.events_unavailable |= v->unav;
	c.events_unavailable &= ~v->avail;
	c.flags |= v->capf;
	return c;
}

static void run_rule(struct __test_metadata *_metadata,
		     const FIXTURE_VARIANT(model) *variant,
		     const struct pmuctl_model *m, enum rule rule)
{
	u32 ran = 0, pos = 0, i;

	ASSERT_NE(NULL, m) TH_LOG("no model with id %u", variant->id);

	for (i = 0; i < PMUCTL_NELEM(vecs); i++) {
		const struct vec *v = &vecs[i];
		struct pmuctl_caps c;
		struct pmuctl_class cls;
		u32 reason = 0xdead;
		int ret;

		if (v->rule != rule || !(v->models & variant->bit))
			continue;
		ran++;
		c = vec_caps(variant->caps, v);
		ret = pmuctl_event_classify(m, &c, v->policy, v->cfg, v->extra,
					    v->flags, &cls, &reason);
		if (v->why != PMUCTL_R_NONE) {
			EXPECT_EQ(-EINVAL, ret) {
				TH_LOG("line %d: cfg %#llx extra %#llx: expected %s, got ret %d",
				       v->line, (unsigned long long)v->cfg,
				       (unsigned long long)v->extra, rname(v->why), ret);
			}
			EXPECT_EQ(v->why, reason) {
				TH_LOG("line %d: cfg %#llx extra %#llx: expected %s, got %s",
				       v->line, (unsigned long long)v->cfg,
				       (unsigned long long)v->extra, rname(v->why),
				       rname(reason));
			}
			continue;
		}
		pos++;
		u64 want = v->cnt & ~GPALL;

		if (v->cnt & GPALL)
			want |= (1ULL << c.nr_gp) - 1;
		EXPECT_EQ(0, ret) {
			TH_LOG("line %d: cfg %#llx extra %#llx: refused with %s",
			       v->line, (unsigned long long)v->cfg,
			       (unsigned long long)v->extra, rname(reason));
		}
		EXPECT_EQ((u32)PMUCTL_R_NONE, reason) {
			TH_LOG("line %d: reason %s on success", v->line, rname(reason));
		}
		if (ret)
			continue;
		EXPECT_EQ(want, cls.counters) {
			TH_LOG("line %d: cfg %#llx: counters %#llx, expected %#llx",
			       v->line, (unsigned long long)v->cfg,
			       (unsigned long long)cls.counters,
			       (unsigned long long)want);
		}
		EXPECT_EQ((int)v->xr - 1, (int)cls.xreg) {
			TH_LOG("line %d: cfg %#llx: xreg %d, expected %d", v->line,
			       (unsigned long long)v->cfg, cls.xreg, (int)v->xr - 1);
		}
		EXPECT_EQ(v->out, cls.outstanding) {
			TH_LOG("line %d: outstanding %d, expected %d", v->line,
			       cls.outstanding, v->out);
		}
	}
	TH_LOG("%s: %u vectors (%u accepted, %u refused)", m->name, ran, pos,
	       ran - pos);
	ASSERT_LT(0U, ran) TH_LOG("no vector for this rule on %s", m->name);
}

#define RULE_TEST(name, rule)						\
	TEST_F(model, name)						\
	{								\
		run_rule(_metadata, variant, self->m, rule);		\
	}

RULE_TEST(accepts_plain_events_on_every_generic_counter, R_PLAIN)
RULE_TEST(places_fixed_events_on_their_fixed_counter_too, R_FIXED)
RULE_TEST(generic_only_flag_keeps_events_off_fixed_counters, R_GONLY)
RULE_TEST(rejects_en_and_int_bits, R_KERNEL)
RULE_TEST(rejects_pin_control, R_PC)
RULE_TEST(rejects_config_bits_32_to_63, R_RSVD)
RULE_TEST(rejects_no_privilege_level, R_PRIV)
RULE_TEST(rejects_edge_without_cmask, R_EDGE)
RULE_TEST(accepts_edge_with_cmask_on_generic_counters, R_EDGE_OK)
RULE_TEST(allows_any_thread_only_where_the_model_does, R_ANY)
RULE_TEST(rejects_any_thread_on_v2_and_where_deprecated, R_ANY_VER)
RULE_TEST(reports_unavailable_or_ineligible_before_any_thread, R_ANY_FIRST)
RULE_TEST(rejects_unavailable_architectural_event, R_UNAVAIL)
RULE_TEST(rejects_event_no_counter_can_count, R_NOELIG)
RULE_TEST(rejects_extra_for_event_without_extra_msr, R_XUNEXP)
RULE_TEST(rejects_extra_outside_valid_mask, R_XMASK)
RULE_TEST(rejects_offcore_without_request, R_NOREQ)
RULE_TEST(rejects_offcore_without_response, R_NORSP)
RULE_TEST(rejects_any_response_mixed_with_suppliers, R_MIXED)
RULE_TEST(rejects_outstanding_on_rsp1, R_OUT_RSP1)
RULE_TEST(rejects_outstanding_with_response, R_OUT_RSP)
RULE_TEST(counts_outstanding_on_any_generic_counter, R_OUT_ANYGP)
RULE_TEST(accepts_valid_offcore_values, R_OFC_OK)
RULE_TEST(rejects_kernel_mode_when_unprivileged, R_UNPRIV_OS)
RULE_TEST(rejects_any_thread_when_unprivileged, R_UNPRIV_ANY)
RULE_TEST(rejects_unknown_event_flags, R_FLAGS)
RULE_TEST(reports_first_broken_rule_in_documented_order, R_ORDER)
RULE_TEST(applies_skl_counter_constraints, R_SKL_CONS)
RULE_TEST(checks_skl_frontend_and_ldlat_values, R_SKL_XREG)
RULE_TEST(generic_model_takes_architectural_events_only, R_NOTARCH)
RULE_TEST(takes_eq_and_umask2_only_where_enumerated, R_V6FIELDS)

/* Every vector belongs to some model and ran somewhere. */
TEST(every_vector_names_a_model_and_a_rule)
{
	u32 i;

	for (i = 0; i < PMUCTL_NELEM(vecs); i++) {
		EXPECT_NE(0U, vecs[i].models & ALL) {
			TH_LOG("line %d: no model", vecs[i].line);
		}
		EXPECT_LE(vecs[i].rule, R_V6FIELDS) {
			TH_LOG("line %d: bad rule", vecs[i].line);
		}
	}
	TH_LOG("%zu vectors in the table", PMUCTL_NELEM(vecs));
}

/* The same input gives the same answer, and the outputs are all written. */
TEST_F(model, classify_is_deterministic_and_resets_outputs)
{
	u32 i, ran = 0;

	ASSERT_NE(NULL, self->m);
	for (i = 0; i < PMUCTL_NELEM(vecs); i++) {
		const struct vec *v = &vecs[i];
		struct pmuctl_caps c = vec_caps(variant->caps, v);
		struct pmuctl_class a, b;
		u32 ra, rb;
		int x, y;

		if (!(v->models & variant->bit))
			continue;
		ran++;
		memset(&a, 0x5a, sizeof(a));
		memset(&b, 0xa5, sizeof(b));
		ra = 0x1234;
		rb = 0x4321;
		x = pmuctl_event_classify(self->m, &c, v->policy, v->cfg, v->extra,
					  v->flags, &a, &ra);
		y = pmuctl_event_classify(self->m, &c, v->policy, v->cfg, v->extra,
					  v->flags, &b, &rb);
		EXPECT_EQ(x, y) TH_LOG("line %d", v->line);
		EXPECT_EQ(ra, rb) TH_LOG("line %d", v->line);
		if (!x) {
			EXPECT_EQ(a.counters, b.counters) TH_LOG("line %d", v->line);
			EXPECT_EQ(a.xreg, b.xreg) TH_LOG("line %d", v->line);
			EXPECT_EQ(a.outstanding, b.outstanding) TH_LOG("line %d", v->line);
		}
	}
	TH_LOG("%s: %u vectors classified twice", self->m->name, ran);
}

/* ------------------------------------------------------------------ */
/* pmuctl_event_abi_check(): the ABI fields of struct pmuctl_event     */

static struct pmuctl_event clean_event(void)
{
	struct pmuctl_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.config = 0x00c0 | USR;
	ev.extra = 0;
	ev.flags = PMUCTL_EVENT_GENERIC_ONLY;
	return ev;
}

static int abi(const struct pmuctl_event *ev, u32 *reason)
{
	*reason = 0xdead;
	return pmuctl_event_abi_check(ev, reason);
}

TEST(abi_accepts_clean_event)
{
	struct pmuctl_event ev = clean_event();
	u32 reason;

	EXPECT_EQ(0, abi(&ev, &reason));
	EXPECT_EQ((u32)PMUCTL_R_NONE, reason);
	/* config and extra are not ABI fields: their rules are classify's */
	ev.config = ~0ULL;
	ev.extra = ~0ULL;
	ev.flags = 0;
	EXPECT_EQ(0, abi(&ev, &reason));
	EXPECT_EQ((u32)PMUCTL_R_NONE, reason);
}

TEST(abi_rejects_unknown_flags)
{
	static const u32 bad[] = { 1U << 1, 1U << 2, 1U << 31, ~0U,
				   ~PMUCTL_EVENT_FLAGS_ALL };
	u32 i, reason;

	for (i = 0; i < PMUCTL_NELEM(bad); i++) {
		struct pmuctl_event ev = clean_event();

		ev.flags = bad[i];
		EXPECT_EQ(-EINVAL, abi(&ev, &reason)) TH_LOG("flags %#x", bad[i]);
		EXPECT_EQ((u32)PMUCTL_R_BAD_FLAGS, reason) TH_LOG("flags %#x", bad[i]);
	}
	TH_LOG("%zu flag values", PMUCTL_NELEM(bad));
}

TEST(abi_rejects_nonzero_reserved0)
{
	struct pmuctl_event ev = clean_event();
	u32 reason;

	ev.reserved0 = 1;
	EXPECT_EQ(-EINVAL, abi(&ev, &reason));
	EXPECT_EQ((u32)PMUCTL_R_RESERVED_FIELD, reason);
	ev.reserved0 = 0x80000000U;
	EXPECT_EQ(-EINVAL, abi(&ev, &reason));
	EXPECT_EQ((u32)PMUCTL_R_RESERVED_FIELD, reason);
}

TEST(abi_rejects_nonzero_reserved_0)
{
	struct pmuctl_event ev = clean_event();
	u32 reason;

	ev.reserved[0] = 1ULL << 63;
	EXPECT_EQ(-EINVAL, abi(&ev, &reason));
	EXPECT_EQ((u32)PMUCTL_R_RESERVED_FIELD, reason);
}

TEST(abi_rejects_nonzero_reserved_1)
{
	struct pmuctl_event ev = clean_event();
	u32 reason;

	ev.reserved[1] = 1;
	EXPECT_EQ(-EINVAL, abi(&ev, &reason));
	EXPECT_EQ((u32)PMUCTL_R_RESERVED_FIELD, reason);
}

TEST(abi_rejects_nonzero_output_counter)
{
	struct pmuctl_event ev = clean_event();
	u32 reason;

	ev.counter = PMUCTL_COUNTER_FIXED;
	EXPECT_EQ(-EINVAL, abi(&ev, &reason));
	EXPECT_EQ((u32)PMUCTL_R_OUTPUT_NOT_ZERO, reason);
	/* PMUCTL_COUNTER_NONE is an output value too, not "unset" */
	ev.counter = PMUCTL_COUNTER_NONE;
	EXPECT_EQ(-EINVAL, abi(&ev, &reason));
	EXPECT_EQ((u32)PMUCTL_R_OUTPUT_NOT_ZERO, reason);
}

TEST(abi_rejects_nonzero_output_config_used)
{
	struct pmuctl_event ev = clean_event();
	u32 reason;

	ev.config_used = ev.config;
	EXPECT_EQ(-EINVAL, abi(&ev, &reason));
	EXPECT_EQ((u32)PMUCTL_R_OUTPUT_NOT_ZERO, reason);
}

TEST(abi_rejects_nonzero_output_extra_msr)
{
	struct pmuctl_event ev = clean_event();
	u32 reason;

	ev.extra_msr = 0x1a6;
	EXPECT_EQ(-EINVAL, abi(&ev, &reason));
	EXPECT_EQ((u32)PMUCTL_R_OUTPUT_NOT_ZERO, reason);
}

/* Flags, then reserved fields, then outputs. */
TEST(abi_reports_flags_then_reserved_then_output)
{
	struct pmuctl_event ev = clean_event();
	u32 reason;

	ev.flags = 1U << 7;
	ev.reserved0 = 1;
	ev.counter = 1;
	EXPECT_EQ(-EINVAL, abi(&ev, &reason));
	EXPECT_EQ((u32)PMUCTL_R_BAD_FLAGS, reason);
	ev.flags = 0;
	EXPECT_EQ(-EINVAL, abi(&ev, &reason));
	EXPECT_EQ((u32)PMUCTL_R_RESERVED_FIELD, reason);
	ev.reserved0 = 0;
	EXPECT_EQ(-EINVAL, abi(&ev, &reason));
	EXPECT_EQ((u32)PMUCTL_R_OUTPUT_NOT_ZERO, reason);
	ev.counter = 0;
	EXPECT_EQ(0, abi(&ev, &reason));
}

/* Every byte of the struct is either an input or checked. */
TEST(abi_checks_every_byte_outside_the_inputs)
{
	u32 off, bit, reason, checked = 0;

	for (off = 0; off < sizeof(struct pmuctl_event); off++) {
		/* config and extra are classify's business */
		if (off < offsetof(struct pmuctl_event, flags))
			continue;
		for (bit = 0; bit < 8; bit++) {
			struct pmuctl_event ev = clean_event();

			((u8 *)&ev)[off] ^= 1U << bit;
			if (ev.flags != clean_event().flags &&
			    !(ev.flags & ~PMUCTL_EVENT_FLAGS_ALL))
				continue;
			EXPECT_EQ(-EINVAL, abi(&ev, &reason)) {
				TH_LOG("byte %u bit %u accepted", off, bit);
			}
			checked++;
		}
	}
	TH_LOG("%u single-bit corruptions refused", checked);
}

/* ------------------------------------------------------------------ */
/* The model tables [FACTS 1-2]                                       */

static bool is_rsp(const struct pmuctl_xreg *x)
{
	return x->kind == PMUCTL_XK_RSP0 || x->kind == PMUCTL_XK_RSP1;
}

TEST(model_names_unique_and_lookups_round_trip)
{
	u32 i, j;

	ASSERT_LT(0U, pmuctl_nr_models);
	for (i = 0; i < pmuctl_nr_models; i++) {
		const struct pmuctl_model *m = pmuctl_models[i];

		ASSERT_NE(NULL, m);
		ASSERT_NE(NULL, m->name);
		EXPECT_NE(0U, m->id) TH_LOG("%s", m->name);
		EXPECT_EQ(m, pmuctl_model_by_name(m->name)) TH_LOG("%s", m->name);
		EXPECT_EQ(m, pmuctl_model_by_id(m->id)) TH_LOG("%s", m->name);
		for (j = 0; j < i; j++) {
			EXPECT_STRNE(pmuctl_models[j]->name, m->name);
			EXPECT_NE(pmuctl_models[j]->id, m->id) TH_LOG("%s", m->name);
		}
	}
	EXPECT_EQ((u32)PMUCTL_MODEL_KNL, pmuctl_model_by_name("knl")->id);
	EXPECT_EQ((u32)PMUCTL_MODEL_KNM, pmuctl_model_by_name("knm")->id);
	EXPECT_EQ((u32)PMUCTL_MODEL_SKL, pmuctl_model_by_name("skl")->id);
	EXPECT_EQ((u32)PMUCTL_MODEL_ICL, pmuctl_model_by_name("icl")->id);
	EXPECT_EQ((u32)PMUCTL_MODEL_ICX, pmuctl_model_by_name("icx")->id);
	EXPECT_EQ((u32)PMUCTL_MODEL_SPR, pmuctl_model_by_name("spr")->id);
	EXPECT_EQ((u32)PMUCTL_MODEL_GNR, pmuctl_model_by_name("gnr")->id);
	EXPECT_EQ((u32)PMUCTL_MODEL_ADL_GLC, pmuctl_model_by_name("adl_glc")->id);
	EXPECT_EQ((u32)PMUCTL_MODEL_ADL_GRT, pmuctl_model_by_name("adl_grt")->id);
	EXPECT_EQ((u32)PMUCTL_MODEL_SRF, pmuctl_model_by_name("srf")->id);
	EXPECT_EQ((u32)PMUCTL_MODEL_LNL_LNC, pmuctl_model_by_name("lnl_lnc")->id);
	EXPECT_EQ((u32)PMUCTL_MODEL_LNL_SKT, pmuctl_model_by_name("lnl_skt")->id);
	EXPECT_EQ((u32)PMUCTL_MODEL_ARCH, pmuctl_model_by_name("arch")->id);
	EXPECT_EQ(NULL, pmuctl_model_by_name(""));
	EXPECT_EQ(NULL, pmuctl_model_by_name("sk"));
	EXPECT_EQ(NULL, pmuctl_model_by_name("skl "));
	EXPECT_EQ(NULL, pmuctl_model_by_name("sklx"));
	EXPECT_EQ(NULL, pmuctl_model_by_name("KNL"));
	EXPECT_EQ(NULL, pmuctl_model_by_id(PMUCTL_MODEL_NONE));
	EXPECT_EQ(NULL, pmuctl_model_by_id(99));
	TH_LOG("%u models", pmuctl_nr_models);
}

TEST(xreg_alt_is_symmetric_and_the_other_offcore_kind)
{
	u32 i, j, n = 0;

	for (i = 0; i < pmuctl_nr_models; i++) {
		const struct pmuctl_model *m = pmuctl_models[i];

		EXPECT_LE(m->nr_xregs, (u32)PMUCTL_XREG_MAX) TH_LOG("%s", m->name);
		for (j = 0; j < m->nr_xregs && j < PMUCTL_XREG_MAX; j++) {
			const struct pmuctl_xreg *x = &m->xregs[j];

			n++;
			if (x->alt < 0) {
				EXPECT_EQ(-1, x->alt) TH_LOG("%s xreg %u", m->name, j);
				EXPECT_FALSE(is_rsp(x) && m->nr_xregs > 1 &&
					     m->ofc_request) {
					TH_LOG("%s xreg %u: offcore without alt", m->name, j);
				}
				continue;
			}
			ASSERT_LT((u32)x->alt, m->nr_xregs) TH_LOG("%s xreg %u", m->name, j);
			EXPECT_NE((s8)j, x->alt) TH_LOG("%s xreg %u is its own alt", m->name, j);
			EXPECT_EQ((s8)j, m->xregs[x->alt].alt) TH_LOG("%s xreg %u", m->name, j);
			EXPECT_TRUE(is_rsp(x)) TH_LOG("%s xreg %u", m->name, j);
			EXPECT_TRUE(is_rsp(&m->xregs[x->alt])) TH_LOG("%s xreg %u", m->name, j);
			EXPECT_NE(x->kind, m->xregs[x->alt].kind) TH_LOG("%s xreg %u", m->name, j);
		}
	}
	TH_LOG("%u xregs checked", n);
}

TEST(rsp_valid_masks_within_offcore_fields)
{
	u32 i, j, n = 0;

	for (i = 0; i < pmuctl_nr_models; i++) {
		const struct pmuctl_model *m = pmuctl_models[i];
		u64 fields = m->ofc_request | m->ofc_response |
			     m->ofc_any_response | m->ofc_outstanding;

		/* the fields are disjoint */
		EXPECT_EQ(0ULL, m->ofc_request & m->ofc_response) TH_LOG("%s", m->name);
		EXPECT_EQ(0ULL, (m->ofc_request | m->ofc_response) & m->ofc_any_response)
			TH_LOG("%s", m->name);
		EXPECT_EQ(0ULL, (m->ofc_request | m->ofc_response | m->ofc_any_response) &
				m->ofc_outstanding) TH_LOG("%s", m->name);
		for (j = 0; j < m->nr_xregs; j++) {
			const struct pmuctl_xreg *x = &m->xregs[j];

			if (!is_rsp(x))
				continue;
			n++;
			EXPECT_EQ(0ULL, x->valid & ~fields) {
				TH_LOG("%s xreg %u: bits %#llx outside the offcore fields",
				       m->name, j, (unsigned long long)(x->valid & ~fields));
			}
			/* a request and a response must be writable */
			EXPECT_NE(0ULL, x->valid & m->ofc_request) TH_LOG("%s", m->name);
			EXPECT_NE(0ULL, x->valid & m->ofc_any_response) TH_LOG("%s", m->name);
		}
		if (!m->nr_xregs) {
			EXPECT_EQ(0ULL, fields) TH_LOG("%s: offcore fields, no xreg", m->name);
		}
	}
	TH_LOG("%u offcore registers checked", n);
}

TEST(outstanding_bit_only_in_rsp0_mask)
{
	u32 i, j, n = 0;

	for (i = 0; i < pmuctl_nr_models; i++) {
		const struct pmuctl_model *m = pmuctl_models[i];

		for (j = 0; j < m->nr_xregs; j++) {
			const struct pmuctl_xreg *x = &m->xregs[j];

			if (!m->ofc_outstanding || !is_rsp(x))
				continue;
			n++;
			if (x->kind == PMUCTL_XK_RSP0) {
				EXPECT_EQ(m->ofc_outstanding, x->valid & m->ofc_outstanding)
					TH_LOG("%s", m->name);
			} else {
				EXPECT_EQ(0ULL, x->valid & m->ofc_outstanding)
					TH_LOG("%s", m->name);
			}
		}
	}
	TH_LOG("%u registers of models with OUTSTANDING", n);
}

TEST(outstanding_is_one_bit)
{
	u32 i;

	for (i = 0; i < pmuctl_nr_models; i++) {
		const struct pmuctl_model *m = pmuctl_models[i];

		/* exactly one bit: OUTSTANDING is a single umask bit */
		if (m->ofc_outstanding) {
			EXPECT_EQ(0ULL, m->ofc_outstanding & (m->ofc_outstanding - 1))
				TH_LOG("%s", m->name);
		}
	}
	TH_LOG("%u models", pmuctl_nr_models);
}

TEST(constraint_codes_fit_their_match_and_allow_a_counter)
{
	u32 i, j, n = 0;

	for (i = 0; i < pmuctl_nr_models; i++) {
		const struct pmuctl_model *m = pmuctl_models[i];

		EXPECT_EQ(m->nr_cons != 0, m->cons != NULL) TH_LOG("%s", m->name);
		for (j = 0; j < m->nr_cons; j++) {
			const struct pmuctl_constraint *c = &m->cons[j];

			n++;
			EXPECT_EQ(0, c->code & ~c->match)
				TH_LOG("%s constraint %#x/%#x", m->name, c->code, c->match);
			EXPECT_TRUE(c->match == 0x00ff || c->match == 0xffff)
				TH_LOG("%s constraint %#x: match %#x", m->name, c->code, c->match);
			EXPECT_NE(0U, c->gp) TH_LOG("%s constraint %#x", m->name, c->code);
		}
	}
	TH_LOG("%u constraints", n);
}

TEST(xregs_have_distinct_codes_and_msrs)
{
	u32 i, j, k, n = 0;

	for (i = 0; i < pmuctl_nr_models; i++) {
		const struct pmuctl_model *m = pmuctl_models[i];

		EXPECT_EQ(m->nr_xregs != 0, m->xregs != NULL) TH_LOG("%s", m->name);
		for (j = 0; j < m->nr_xregs; j++) {
			n++;
			for (k = 0; k < j; k++) {
				EXPECT_NE(m->xregs[k].code, m->xregs[j].code)
					TH_LOG("%s xregs %u/%u", m->name, k, j);
				EXPECT_NE(m->xregs[k].msr, m->xregs[j].msr)
					TH_LOG("%s xregs %u/%u", m->name, k, j);
			}
		}
	}
	TH_LOG("%u xregs", n);
}

TEST(xreg_msrs_are_the_known_extra_msrs)
{
	static const struct { u8 kind; u16 msr; } known[] = {
		{ PMUCTL_XK_RSP0, 0x1a6 },	/* MSR_OFFCORE_RSP_0 */
		{ PMUCTL_XK_RSP1, 0x1a7 },	/* MSR_OFFCORE_RSP_1 */
		{ PMUCTL_XK_LDLAT, 0x3f6 },	/* MSR_PEBS_LD_LAT_THRESHOLD */
		{ PMUCTL_XK_FRONTEND, 0x3f7 },	/* MSR_PEBS_FRONTEND */
	};
	u32 i, j, k, n = 0;

	for (i = 0; i < pmuctl_nr_models; i++) {
		const struct pmuctl_model *m = pmuctl_models[i];

		for (j = 0; j < m->nr_xregs; j++) {
			bool found = false;

			n++;
			for (k = 0; k < PMUCTL_NELEM(known); k++)
				if (known[k].msr == m->xregs[j].msr) {
					found = true;
					EXPECT_EQ(known[k].kind, m->xregs[j].kind)
						TH_LOG("%s msr %#x", m->name, m->xregs[j].msr);
				}
			EXPECT_TRUE(found) TH_LOG("%s msr %#x", m->name, m->xregs[j].msr);
			EXPECT_NE(0ULL, m->xregs[j].valid) TH_LOG("%s", m->name);
		}
	}
	TH_LOG("%u xregs", n);
}

/* The numbers FACTS section 2 gives, one by one. */
TEST(model_tables_hold_the_documented_offcore_facts)
{
	static const struct {
		const char *model;
		u16 code, msr;
		u64 valid;
	} facts[] = {
		{ "knl", 0x01b7, 0x1a6, 0x799ffbb6e7ULL },
		{ "knl", 0x02b7, 0x1a7, 0x399ffbffe7ULL },
		{ "knm", 0x01b7, 0x1a6, 0x799ffbb6e7ULL },
		{ "knm", 0x02b7, 0x1a7, 0x399ffbffe7ULL },
		{ "skl", 0x01b7, 0x1a6, 0x3fffff8fffULL },
		{ "skl", 0x01bb, 0x1a7, 0x3fffff8fffULL },
		{ "skl", 0x01c6, 0x3f7, 0x7fff17ULL },
		{ "skl", 0x01cd, 0x3f6, 0xffffULL },
		/* Linux 6.12 intel_icl_extra_regs */
		{ "icl", 0x01b7, 0x1a6, 0x3fffffbfffULL },
		{ "icl", 0x01bb, 0x1a7, 0x3fffffbfffULL },
		{ "icl", 0x01c6, 0x3f7, 0x7fff17ULL },
		{ "icl", 0x01cd, 0x3f6, 0xffffULL },
		{ "icx", 0x01b7, 0x1a6, 0x3fffffbfffULL },
		{ "icx", 0x01bb, 0x1a7, 0x3fffffbfffULL },
		/* intel_glc_extra_regs */
		{ "spr", 0x012a, 0x1a6, 0x3fffffffffULL },
		{ "spr", 0x012b, 0x1a7, 0x3fffffffffULL },
		{ "spr", 0x01c6, 0x3f7, 0x7fff1fULL },
		{ "spr", 0x01cd, 0x3f6, 0xffffULL },
		/* intel_rwc_extra_regs */
		{ "gnr", 0x012a, 0x1a6, 0x3fffffffffULL },
		{ "gnr", 0x012b, 0x1a7, 0x3fffffffffULL },
		{ "gnr", 0x03c6, 0x3f7, 0x7fff1fULL },
		{ "gnr", 0x01cd, 0x3f6, 0xffffULL },
	};
	u32 i, j;

	for (i = 0; i < PMUCTL_NELEM(facts); i++) {
		const struct pmuctl_model *m = pmuctl_model_by_name(facts[i].model);
		bool found = false;

		ASSERT_NE(NULL, m);
		for (j = 0; j < m->nr_xregs; j++) {
			if (m->xregs[j].code != facts[i].code)
				continue;
			found = true;
			EXPECT_EQ(facts[i].msr, m->xregs[j].msr) TH_LOG("%s %#x", m->name, facts[i].code);
			EXPECT_EQ(facts[i].valid, m->xregs[j].valid)
				TH_LOG("%s %#x", m->name, facts[i].code);
		}
		EXPECT_TRUE(found) TH_LOG("%s has no xreg %#x", m->name, facts[i].code);
	}
	EXPECT_EQ(0U, pmuctl_model_by_name("arch")->nr_xregs);
	EXPECT_EQ(1ULL << 38, pmuctl_model_by_name("knl")->ofc_outstanding);
	EXPECT_EQ(1ULL << 38, pmuctl_model_by_name("knm")->ofc_outstanding);
	EXPECT_EQ(0ULL, pmuctl_model_by_name("skl")->ofc_outstanding);
	EXPECT_EQ(1ULL << 16, pmuctl_model_by_name("knl")->ofc_any_response);
	EXPECT_EQ(1ULL << 16, pmuctl_model_by_name("skl")->ofc_any_response);
	TH_LOG("%zu facts", PMUCTL_NELEM(facts));
}

TEST(model_match_maps_family_and_model)
{
	static const struct { u32 family, model; const char *name; } map[] = {
		{ 6, 0x57, "knl" },
		{ 6, 0x85, "knm" },
		{ 6, 0x4e, "skl" },
		{ 6, 0x5e, "skl" },
		{ 6, 0x55, "skl" },
		{ 6, 0x8e, "skl" },
		{ 6, 0x9e, "skl" },
		{ 6, 0xa5, "skl" },	/* Comet Lake shares the Skylake core PMU */
		{ 6, 0xa6, "skl" },
		{ 6, 0x3c, "arch" },	/* Haswell */
		{ 6, 0x7d, "icl" },	/* Ice Lake client */
		{ 6, 0x7e, "icl" },
		{ 6, 0x8c, "icl" },	/* Tiger Lake shares the Ice Lake core PMU */
		{ 6, 0x8d, "icl" },
		{ 6, 0xa7, "icl" },	/* Rocket Lake */
		{ 6, 0x6a, "icx" },	/* Ice Lake server */
		{ 6, 0x6c, "icx" },
		{ 6, 0x8f, "spr" },	/* Sapphire Rapids */
		{ 6, 0xcf, "spr" },	/* Emerald Rapids */
		{ 6, 0xad, "gnr" },	/* Granite Rapids */
		{ 6, 0xae, "gnr" },
		{ 6, 0x9d, "arch" },	/* Ice Lake NNPI: not in Linux's icl case */
		{ 6, 0x97, "adl_glc" },	/* Alder Lake with P-cores only */
		{ 6, 0xbe, "adl_grt" },	/* Alder Lake-N */
		{ 6, 0xaf, "srf" },	/* Sierra Forest */
		{ 6, 0xb6, "srf" },	/* Grand Ridge */
		{ 6, 0xaa, "arch" },	/* Meteor Lake: always hybrid */
		{ 6, 0x1a, "arch" },	/* Nehalem */
		{ 6, 0x17, "arch" },	/* Penryn */
		{ 6, 0x00, "arch" },
		{ 6, 0xff, "arch" },
		{ 6, 0x157, "arch" },	/* only the model byte that was asked */
		{ 0xf, 0x57, "arch" },	/* NetBurst numbers are not family 6 */
		{ 0xf, 0x85, "arch" },
		{ 0xf, 0x55, "arch" },
		{ 0xf, 0x00, "arch" },
		{ 5, 0x57, "arch" },
		{ 0x13, 0x01, "arch" },
		{ 0, 0, "arch" },
	};
	u32 i;

	for (i = 0; i < PMUCTL_NELEM(map); i++) {
		const struct pmuctl_model *m = pmuctl_model_match(map[i].family, map[i].model);

		ASSERT_NE(NULL, m);
		EXPECT_STREQ(map[i].name, m->name) {
			TH_LOG("family %#x model %#x", map[i].family, map[i].model);
		}
	}
	TH_LOG("%zu family/model pairs", PMUCTL_NELEM(map));
}

/*
 * PMUCTL_POLICY_NO_PMC3 (TSX force abort withheld, Linux's
 * tfa_get_event_constraints): PMC3 leaves every event's counters, with
 * HT off too (8 generic counters), and a group of four generic-only
 * events no longer fits 4 counters.
 */
TEST(no_pmc3_policy_withholds_pmc3_only)
{
	const struct pmuctl_model *m = pmuctl_model_by_name("skl");
	struct pmuctl_caps c8 = caps_skl;
	struct pmuctl_event ev[4];
	struct pmuctl_place place[4];
	struct pmuctl_class cls;
	struct pmuctl_view v;
	u32 reason, index, i;

	ASSERT_NE(NULL, m);
	ASSERT_EQ(0, pmuctl_event_classify(m, &caps_skl, PMUCTL_POLICY_NO_PMC3,
					   0x00c4 | USR, 0, 0, &cls, &reason));
	EXPECT_EQ(0x7ULL, cls.counters);
	ASSERT_EQ(0, pmuctl_event_classify(m, &caps_skl, PMUCTL_POLICY_NO_PMC3,
					   0x00c0 | USR, 0, 0, &cls, &reason));
	EXPECT_EQ(0x7ULL | F0, cls.counters);
	c8.nr_gp = 8;
	ASSERT_EQ(0, pmuctl_event_classify(m, &c8, PMUCTL_POLICY_NO_PMC3,
					   0x00c4 | USR, 0, 0, &cls, &reason));
	EXPECT_EQ(0xf7ULL, cls.counters);

	memset(ev, 0, sizeof(ev));
	for (i = 0; i < 4; i++) {
		ev[i].config = 0x00c4 | USR;
		ev[i].flags = PMUCTL_EVENT_GENERIC_ONLY;
	}
	pmuctl_view_init(&v);
	EXPECT_EQ(0, pmuctl_group_schedule(m, &caps_skl, 0, &v, ev, 4, place,
					   &reason, &index));
	EXPECT_NE(0, pmuctl_group_schedule(m, &caps_skl, PMUCTL_POLICY_NO_PMC3,
					   &v, ev, 4, place, &reason, &index));
	EXPECT_EQ(0, pmuctl_group_schedule(m, &caps_skl, PMUCTL_POLICY_NO_PMC3,
					   &v, ev, 3, place, &reason, &index));
	for (i = 0; i < 3; i++)
		EXPECT_NE(3, place[i].idx);
}

/*
 * Today's cores (Ice Lake, Golden Cove, Redwood Cove): what their tables
 * add to the rules above, one vector per fact, each with the model it is
 * tried on.  Caps as the parts report them (selftests/core/caps_test.c:
 * perfmon v5, 8 generic and fixed counters 0-3, 48 bits, AnyThread
 * deprecated); .v4 reports perfmon v4 with AnyThread instead, as a
 * hypervisor may, and .fm a fixed-counter bitmap.
 */
#define F3	BIT(PMUCTL_IDX_FIXED + 3)

static const struct pmuctl_caps caps_v5 = {
	.family = 6, .version = 5, .nr_gp = 8, .gp_width = 48,
	.nr_fixed = 4, .fixed_width = 48, .fixed_mask = 0xf,
	.events_unavailable = 0xffffff00,
	.flags = PMUCTL_CAP_ANY_DEPRECATED | PMUCTL_CAP_FULL_WIDTH_WRITE,
};

struct nvec {
	int line;
	const char *models;	/* space-separated */
	u64 cfg, extra;
	u32 why;		/* PMUCTL_R_NONE: accepted with cnt and xr */
	u64 cnt;
	u8 xr;			/* XR(i), or 0 */
	bool v4;
	u32 fm;			/* FM(x) */
	bool pm;		/* PERF_CAPABILITIES[15]: PMUCTL_CAP_PERF_METRICS */
	u32 pol;		/* PMUCTL_POLICY_* */
};

#define N(...)	{ .line = __LINE__, __VA_ARGS__ }
#define GLC	"spr gnr"
#define ICX	"icl icx"
#define NEW	"icl icx spr gnr"
#define ATOM	"adl_grt srf"

static const struct nvec nvecs[] = {
	/* ---- constraints: ranges, and the first match decides [Linux 6.12] ---- */
	N(.models = ICX, .cfg = 0x0003 | USR, .cnt = 0xf),		/* 0x03-0x0a */
	N(.models = ICX, .cfg = 0xff0a | USR, .cnt = 0xf),
	N(.models = ICX, .cfg = 0x010b | USR, .cnt = 0xff),		/* past the range */
	N(.models = ICX, .cfg = 0x0102 | USR, .cnt = 0xff),
	N(.models = ICX, .cfg = 0x0124 | USR, .cnt = 0xf),		/* 0x1f-0x28 */
	N(.models = ICX, .cfg = 0x0129 | USR, .cnt = 0xff),
	N(.models = ICX, .cfg = 0x0132 | USR, .cnt = 0xf),
	N(.models = ICX, .cfg = 0x0460 | USR, .cnt = 0xf),
	N(.models = ICX, .cfg = 0x018b | USR, .cnt = 0xf),
	N(.models = ICX, .cfg = 0x018c | USR, .cnt = 0xff),
	N(.models = ICX, .cfg = 0x04a3 | USR, .cnt = 0xff),		/* ahead of 0xa3's rule */
	N(.models = ICX, .cfg = 0x14a3 | USR | CMASK(20), .cnt = 0xff),
	N(.models = ICX, .cfg = 0x08a3 | USR, .cnt = 0xf),
	N(.models = ICX, .cfg = 0x01b0 | USR, .cnt = 0xf),
	N(.models = ICX, .cfg = 0x01b1 | USR, .cnt = 0xff),
	N(.models = ICX, .cfg = 0x01e6 | USR, .cnt = 0xf),
	N(.models = ICX, .cfg = 0x01e7 | USR, .cnt = 0xff),
	N(.models = ICX, .cfg = 0x01ef | USR, .cnt = 0xf),
	N(.models = ICX, .cfg = 0x01f4 | USR, .cnt = 0xf),
	N(.models = ICX, .cfg = 0x01f5 | USR, .cnt = 0xff),
	N(.models = GLC, .cfg = 0x4f2e | USR, .cnt = 0xff),		/* ahead of 0x01-0x8f */
	N(.models = GLC, .cfg = 0x003c | USR | CMASK(1), .cnt = 0xff),
	N(.models = GLC, .cfg = 0x0101 | USR, .cnt = 0xf),
	N(.models = GLC, .cfg = 0x012d | USR, .cnt = 0xf),
	N(.models = GLC, .cfg = 0x018f | USR, .cnt = 0xf),
	N(.models = GLC, .cfg = 0x0190 | USR, .cnt = 0xff),
	N(.models = GLC, .cfg = 0x01a3 | USR, .cnt = 0xf),
	N(.models = GLC, .cfg = 0x04a3 | USR, .cnt = 0xff),
	N(.models = GLC, .cfg = 0x04a4 | USR, .cnt = 0x1),
	N(.models = GLC, .cfg = 0x08a4 | USR, .cnt = 0x1),
	N(.models = GLC, .cfg = 0x02a4 | USR, .cnt = 0xff),
	N(.models = GLC, .cfg = 0x02cd | USR, .cnt = 0x1),
	N(.models = GLC, .cfg = 0x05a3 | USR | CMASK(5), .cnt = 0xf),	/* Intel's lists */
	N(.models = GLC, .cfg = 0x06a3 | USR | CMASK(6), .cnt = 0xf),
	N(.models = GLC, .cfg = 0x0ca3 | USR | CMASK(12), .cnt = 0xf),
	N(.models = GLC, .cfg = 0x10a3 | USR | CMASK(16), .cnt = 0xff),
	N(.models = GLC, .cfg = 0x01ce | USR, .cnt = 0x1),
	N(.models = GLC, .cfg = 0x01d0 | USR, .cnt = 0xf),
	N(.models = GLC, .cfg = 0x01df | USR, .cnt = 0xf),
	N(.models = GLC, .cfg = 0x01e0 | USR, .cnt = 0xff),
	N(.models = GLC, .cfg = 0x01fe | USR, .cnt = 0xff),
	N(.models = GLC, .cfg = 0x01ff | USR, .cnt = 0xff),	/* past every range */
	/* ---- fixed counters: the model's encodings ---- */
	N(.models = NEW, .cfg = 0x00c0 | USR, .cnt = 0xff | F0),
	N(.models = ICX, .cfg = 0x01c0 | USR, .cnt = 0xff | F0),	/* old PREC_DIST */
	N(.models = GLC, .cfg = 0x01c0 | USR, .cnt = 0xff),
	N(.models = NEW, .cfg = 0x0100 | USR, .cnt = F0),		/* pseudo: fixed only */
	N(.models = NEW, .cfg = 0x0200 | USR, .cnt = BIT(PMUCTL_IDX_FIXED + 1)),	/* Intel's */
	N(.models = "skl arch", .cfg = 0x0200 | USR, .why = PMUCTL_R_NO_ELIGIBLE_COUNTER),
	N(.models = "skl", .cfg = 0x0100 | USR, .why = PMUCTL_R_NO_ELIGIBLE_COUNTER),
	N(.models = NEW, .cfg = 0x0400 | USR | OS, .cnt = F3),		/* TOPDOWN.SLOTS */
	N(.models = NEW, .fm = FM(0x7), .cfg = 0x0400 | USR,
	  .why = PMUCTL_R_NO_ELIGIBLE_COUNTER),
	N(.models = "skl arch", .cfg = 0x0400 | USR, .why = PMUCTL_R_NO_ELIGIBLE_COUNTER),
	N(.models = NEW, .cfg = 0x0400 | USR | INV | CMASK(1),
	  .why = PMUCTL_R_NO_ELIGIBLE_COUNTER),
	N(.models = NEW, .cfg = 0x01a4 | USR, .cnt = 0xff),		/* SLOTS_P: generic */
	N(.models = GLC, .cfg = 0x013c | USR, .cnt = 0xff | BIT(PMUCTL_IDX_FIXED + 2)),
	N(.models = ICX, .cfg = 0x013c | USR, .cnt = 0xff),
	N(.models = NEW, .cfg = 0x0300 | USR, .cnt = BIT(PMUCTL_IDX_FIXED + 2)),
	/*
	 * Topdown metrics: bytes of PERF_METRICS where PERF_CAPABILITIES[15]
	 * says it exists, 4 on Ice Lake, 8 from Golden Cove on [LNX 6.12:
	 * INTEL_TD_METRIC_*, num_topdown_events]; the slots rule is the
	 * group's (sched_test).
	 */
	N(.models = NEW, .cfg = 0x8000 | USR, .why = PMUCTL_R_METRICS_UNAVAILABLE),
	N(.models = NEW, .cfg = 0x8300 | USR, .why = PMUCTL_R_METRICS_UNAVAILABLE),
	N(.models = NEW " adl_glc", .pm = true, .cfg = 0x8000 | USR, .cnt = BIT(PMUCTL_IDX_METRIC)),
	N(.models = NEW " adl_glc", .pm = true, .cfg = 0x8300 | USR | OS,
	  .cnt = BIT(PMUCTL_IDX_METRIC + 3)),
	N(.models = ICX, .pm = true, .cfg = 0x8400 | USR, .why = PMUCTL_R_METRICS_UNAVAILABLE),
	N(.models = GLC " adl_glc", .pm = true, .cfg = 0x8400 | USR, .cnt = BIT(PMUCTL_IDX_METRIC + 4)),
	N(.models = GLC " adl_glc", .pm = true, .cfg = 0x8700 | USR, .cnt = BIT(PMUCTL_IDX_METRIC + 7)),
	N(.models = "skl arch adl_grt srf", .pm = true, .cfg = 0x8000 | USR,
	  .why = PMUCTL_R_METRICS_UNAVAILABLE),
	N(.models = NEW, .pm = true, .cfg = 0x8800 | USR, .why = PMUCTL_R_NO_ELIGIBLE_COUNTER),
	N(.models = NEW, .pm = true, .cfg = 0x8000 | USR | INV | CMASK(1),
	  .why = PMUCTL_R_NO_ELIGIBLE_COUNTER),
	N(.models = NEW, .pm = true, .cfg = 0x8000 | USR | ANY, .why = PMUCTL_R_ANY_NOT_ALLOWED),
	N(.models = NEW, .pm = true, .pol = PMUCTL_POLICY_NO_METRICS, .cfg = 0x8000 | USR,
	  .why = PMUCTL_R_METRICS_UNAVAILABLE),
	N(.models = ICX, .pm = true, .cfg = 0x8001 | USR, .cnt = 0xff),	/* event 1: no metric */
	/* ---- AnyThread: none, whatever the version says ---- */
	N(.models = NEW, .cfg = 0x00c0 | USR | ANY, .why = PMUCTL_R_ANY_NOT_ALLOWED),
	N(.models = NEW, .v4 = true, .cfg = 0x00c0 | USR | ANY, .why = PMUCTL_R_ANY_NOT_ALLOWED),
	N(.models = NEW, .v4 = true, .cfg = 0x00c4 | USR | ANY, .why = PMUCTL_R_ANY_NOT_ALLOWED),
	N(.models = "skl", .v4 = true, .cfg = 0x00c4 | USR | ANY, .cnt = 0xff),
	/* ---- OFFCORE_RSP: Ice Lake's 0xb7/0xbb, Golden Cove's OCR 0x2a/0x2b ---- */
	N(.models = ICX, .cfg = 0x01b7 | USR, .extra = 0x10001, .cnt = 0xf, .xr = XR(0)),
	N(.models = ICX, .cfg = 0x01bb | USR, .extra = 0x3fbfc00001ULL, .cnt = 0xf, .xr = XR(1)),
	N(.models = ICX, .cfg = 0x01b7 | USR, .extra = 0x14000 | 0x10000,	/* bit 14 */
	  .why = PMUCTL_R_EXTRA_MASK),
	N(.models = ICX, .cfg = 0x012a | USR, .extra = 0x10001, .why = PMUCTL_R_EXTRA_UNEXPECTED),
	N(.models = GLC, .cfg = 0x012a | USR, .extra = 0x10001, .cnt = 0xf, .xr = XR(0)),
	N(.models = GLC, .cfg = 0x012b | USR, .extra = 0x3fbfc00001ULL, .cnt = 0xf, .xr = XR(1)),
	N(.models = GLC, .cfg = 0x012a | USR, .extra = 0x14000 | 0x10000, .cnt = 0xf, .xr = XR(0)),
	N(.models = GLC, .cfg = 0x012a | USR, .extra = 0x4000000000ULL | 0x10001,
	  .why = PMUCTL_R_EXTRA_MASK),
	N(.models = GLC, .cfg = 0x01b7 | USR, .extra = 0x10001, .why = PMUCTL_R_EXTRA_UNEXPECTED),
	N(.models = GLC, .cfg = 0x012a | USR, .extra = 0x10000, .why = PMUCTL_R_OFFCORE_NO_REQUEST),
	N(.models = GLC, .cfg = 0x012a | USR, .extra = 0x1, .why = PMUCTL_R_OFFCORE_NO_RESPONSE),
	N(.models = GLC, .cfg = 0x012a | USR, .extra = 0x10001 | BIT(18),
	  .why = PMUCTL_R_OFFCORE_ANY_RESPONSE_MIXED),
	N(.models = GLC, .cfg = 0x022a | USR, .cnt = 0xf),		/* not an OCR encoding */
	/* ---- MSR_PEBS_FRONTEND and its other selectors ---- */
	N(.models = ICX, .cfg = 0x01c6 | USR, .extra = 0x11, .cnt = 0xff, .xr = XR(2)),
	N(.models = ICX, .cfg = 0x01c6 | USR, .extra = 0x18, .why = PMUCTL_R_EXTRA_MASK),
	N(.models = "spr", .cfg = 0x01c6 | USR, .extra = 0x18, .cnt = 0xff, .xr = XR(2)),
	N(.models = "spr", .cfg = 0x01c6 | USR, .extra = 0x20, .why = PMUCTL_R_EXTRA_MASK),
	N(.models = GLC, .cfg = 0x40ad | USR, .extra = 0x7, .cnt = 0xff, .xr = XR(2)),
	N(.models = GLC, .cfg = 0x40ad | USR, .extra = 0x8, .why = PMUCTL_R_EXTRA_MASK),
	N(.models = GLC, .cfg = 0x04c2 | USR, .extra = 0x8, .cnt = 0xff, .xr = XR(2)),
	N(.models = GLC, .cfg = 0x04c2 | USR, .extra = 0x1, .why = PMUCTL_R_EXTRA_MASK),
	N(.models = ICX, .cfg = 0x40ad | USR, .extra = 0x1, .why = PMUCTL_R_EXTRA_UNEXPECTED),
	N(.models = "gnr", .cfg = 0x03c6 | USR, .extra = 0x11, .cnt = 0xff, .xr = XR(2)),
	N(.models = "gnr", .cfg = 0x02c6 | USR, .extra = 0x9, .cnt = 0xff, .xr = XR(2)),
	N(.models = "gnr", .cfg = 0x02c6 | USR, .extra = 0x11, .why = PMUCTL_R_EXTRA_MASK),
	N(.models = "gnr", .cfg = 0x01c6 | USR, .extra = 0x11, .why = PMUCTL_R_EXTRA_UNEXPECTED),
	N(.models = "spr", .cfg = 0x03c6 | USR, .extra = 0x11, .why = PMUCTL_R_EXTRA_UNEXPECTED),
	N(.models = ICX, .cfg = 0x01cd | USR, .extra = 3, .cnt = 0xff, .xr = XR(3)),
	N(.models = GLC, .cfg = 0x01cd | USR, .extra = 3, .cnt = 0xfe, .xr = XR(3)),
	N(.models = NEW, .cfg = 0x01cd | USR, .extra = 0x10000, .why = PMUCTL_R_EXTRA_MASK),

	/* ---- Alder Lake's P-core: Sapphire Rapids' tables ---- */
	N(.models = "adl_glc", .cfg = 0x012a | USR, .extra = 0x10001, .cnt = 0xf, .xr = XR(0)),
	N(.models = "adl_glc", .cfg = 0x40ad | USR, .extra = 0x7, .cnt = 0xff, .xr = XR(2)),
	N(.models = "adl_glc", .cfg = 0x04a4 | USR, .cnt = 0x1),
	N(.models = "adl_glc", .cfg = 0x0400 | USR, .cnt = F3),
	N(.models = "adl_glc", .cfg = 0x01b7 | USR, .extra = 0x10001,
	  .why = PMUCTL_R_EXTRA_UNEXPECTED),

	/* ---- Gracemont and Crestmont ---- */
	N(.models = ATOM, .cfg = 0x00c0 | USR, .cnt = 0xff | F0),
	N(.models = ATOM, .cfg = 0x0100 | USR, .cnt = F0),
	N(.models = ATOM, .cfg = 0x0200 | USR, .cnt = BIT(PMUCTL_IDX_FIXED + 1)),
	N(.models = ATOM, .cfg = 0x013c | USR, .cnt = 0xff | BIT(PMUCTL_IDX_FIXED + 2)),
	N(.models = ATOM, .cfg = 0x0400 | USR, .why = PMUCTL_R_NO_ELIGIBLE_COUNTER),
	N(.models = ATOM, .cfg = 0x0124 | USR, .cnt = 0xff),	/* no range rule */
	N(.models = ATOM, .cfg = 0x00c0 | USR | ANY, .why = PMUCTL_R_ANY_NOT_ALLOWED),
	N(.models = ATOM, .cfg = 0x01b7 | USR, .extra = 0x10001, .cnt = 0xff, .xr = XR(0)),
	N(.models = ATOM, .cfg = 0x02b7 | USR, .extra = 0x3f84400001ULL, .cnt = 0xff, .xr = XR(1)),
	N(.models = ATOM, .cfg = 0x01bb | USR, .extra = 0x10001, .why = PMUCTL_R_EXTRA_UNEXPECTED),
	N(.models = ATOM, .cfg = 0x01b7 | USR, .extra = 0x800000010000ULL,	/* Intel's bit 47 */
	  .why = PMUCTL_R_EXTRA_MASK),
	N(.models = "srf", .cfg = 0x01b7 | USR, .extra = (1ULL << 63) | 0x1,
	  .why = PMUCTL_R_EXTRA_MASK),
	N(.models = ATOM, .cfg = 0x01b7 | USR, .extra = 0x10000 | BIT(18),
	  .why = PMUCTL_R_OFFCORE_NO_REQUEST),
	N(.models = ATOM, .cfg = 0x05d0 | USR, .extra = 4, .cnt = 0x3, .xr = XR(2)),	/* Intel: 0,1 */
	N(.models = ATOM, .cfg = 0x05d0 | USR, .extra = 0x10000, .why = PMUCTL_R_EXTRA_MASK),
	N(.models = ATOM, .cfg = 0x06d0 | USR, .cnt = 0xff),
	N(.models = ATOM, .cfg = 0x01cd | USR, .extra = 4, .why = PMUCTL_R_EXTRA_UNEXPECTED),
	N(.models = "srf", .cfg = 0x0127 | USR, .why = PMUCTL_R_EXTRA_UNSUPPORTED),
	N(.models = "srf", .cfg = 0x0227 | USR | OS, .extra = 0x1, .why = PMUCTL_R_EXTRA_UNSUPPORTED),
	N(.models = "srf", .cfg = 0x0327 | USR, .cnt = 0xff),
	N(.models = "adl_grt", .cfg = 0x0127 | USR, .cnt = 0xff),
};

static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; *p; ) {
		if (!strncmp(p, name, n) && (p[n] == ' ' || !p[n]))
			return true;
		p = strchr(p, ' ');
		if (!p)
			break;
		p++;
	}
	return false;
}

TEST(todays_cores_follow_their_tables)
{
	u32 i, j, ran = 0, per[32] = { 0 };

	for (i = 0; i < PMUCTL_NELEM(nvecs); i++) {
		const struct nvec *v = &nvecs[i];

		for (j = 0; j < pmuctl_nr_models; j++) {
			const struct pmuctl_model *m = pmuctl_models[j];
			struct pmuctl_caps c = caps_v5;
			struct pmuctl_class cls;
			u32 reason = 0xdead;
			int ret;

			if (!in_list(v->models, m->name))
				continue;
			ran++;
			per[j]++;
			if (v->v4) {
				c.version = 4;
				c.flags = PMUCTL_CAP_ANY_THREAD | PMUCTL_CAP_FULL_WIDTH_WRITE;
			}
			if (v->fm) {
				c.fixed_mask = v->fm & 0xffff;
				c.nr_fixed = 32 - __builtin_clz(c.fixed_mask | 1);
			}
			if (v->pm)
				c.flags |= PMUCTL_CAP_PERF_METRICS;
			ret = pmuctl_event_classify(m, &c, v->pol, v->cfg, v->extra, 0,
						    &cls, &reason);
			if (v->why != PMUCTL_R_NONE) {
				EXPECT_EQ(-EINVAL, ret) TH_LOG("line %d %s", v->line, m->name);
				EXPECT_EQ(v->why, reason) {
					TH_LOG("line %d %s: cfg %#llx extra %#llx: expected %s, got %s",
					       v->line, m->name, (unsigned long long)v->cfg,
					       (unsigned long long)v->extra, rname(v->why),
					       rname(reason));
				}
				continue;
			}
			EXPECT_EQ(0, ret) {
				TH_LOG("line %d %s: cfg %#llx extra %#llx: refused with %s",
				       v->line, m->name, (unsigned long long)v->cfg,
				       (unsigned long long)v->extra, rname(reason));
			}
			if (ret)
				continue;
			EXPECT_EQ(v->cnt, cls.counters) {
				TH_LOG("line %d %s: cfg %#llx: counters %#llx, expected %#llx",
				       v->line, m->name, (unsigned long long)v->cfg,
				       (unsigned long long)cls.counters,
				       (unsigned long long)v->cnt);
			}
			EXPECT_EQ((int)v->xr - 1, (int)cls.xreg) TH_LOG("line %d %s", v->line, m->name);
		}
	}
	for (j = 0; j < pmuctl_nr_models; j++)
		TH_LOG("%s: %u vectors", pmuctl_models[j]->name, per[j]);
	ASSERT_GE(32U, pmuctl_nr_models);
	TH_LOG("%u vectors in all", ran);
}

/* Every model of today's cores is tried, by name. */
TEST(todays_cores_each_have_vectors)
{
	static const char *const names[] = {
		"icl", "icx", "spr", "gnr", "adl_glc", "adl_grt", "srf",
	};

	for (u32 i = 0; i < PMUCTL_NELEM(names); i++) {
		u32 n = 0;

		ASSERT_NE(NULL, pmuctl_model_by_name(names[i])) TH_LOG("%s", names[i]);
		for (u32 j = 0; j < PMUCTL_NELEM(nvecs); j++)
			n += in_list(nvecs[j].models, names[i]);
		EXPECT_LT(4U, n) TH_LOG("%s: %u vectors", names[i], n);
	}
}

/* Extra selectors share their register's slot and are never offcore. */
TEST(xsels_name_a_non_offcore_register_and_fit_its_mask)
{
	u32 i, j, k, n = 0;

	for (i = 0; i < pmuctl_nr_models; i++) {
		const struct pmuctl_model *m = pmuctl_models[i];

		EXPECT_EQ(m->nr_xsels != 0, m->xsels != NULL) TH_LOG("%s", m->name);
		for (j = 0; j < m->nr_xsels; j++) {
			const struct pmuctl_xsel *x = &m->xsels[j];

			n++;
			ASSERT_LT((u32)x->xreg, m->nr_xregs) TH_LOG("%s", m->name);
			EXPECT_FALSE(is_rsp(&m->xregs[x->xreg])) TH_LOG("%s %#x", m->name, x->code);
			EXPECT_EQ(0ULL, x->valid & ~m->xregs[x->xreg].valid)
				TH_LOG("%s %#x", m->name, x->code);
			EXPECT_NE(0ULL, x->valid) TH_LOG("%s %#x", m->name, x->code);
			for (k = 0; k < m->nr_xregs; k++)
				EXPECT_NE(m->xregs[k].code, x->code) TH_LOG("%s %#x", m->name, x->code);
		}
	}
	TH_LOG("%u extra selectors", n);
}

/* Fixed-counter encodings: known counters, no code twice. */
TEST(fixed_events_are_distinct_and_on_real_fixed_counters)
{
	u32 i, j, k, n = 0;

	for (i = 0; i < pmuctl_nr_models; i++) {
		const struct pmuctl_model *m = pmuctl_models[i];

		EXPECT_EQ(m->nr_fixed != 0, m->fixed != NULL) TH_LOG("%s", m->name);
		for (j = 0; j < m->nr_fixed; j++) {
			n++;
			EXPECT_GT((u32)PMUCTL_MAX_FIXED, m->fixed[j].idx) TH_LOG("%s", m->name);
			for (k = 0; k < j; k++)
				EXPECT_NE(m->fixed[k].code, m->fixed[j].code) TH_LOG("%s", m->name);
		}
	}
	TH_LOG("%u fixed-counter encodings", n);
}

TEST_HARNESS_MAIN
