/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * pmuctl: own the Intel core PMU from user space through /dev/pmuctl,
 * read it with rdpmc.  This header is the whole ABI; the module, the
 * library and the selftests include it, nobody copies it.
 *
 * Rules that hold for every command (Documentation/process/botching-up-ioctls.rst):
 *  - every struct is a multiple of 8 bytes, with explicit padding;
 *  - unknown flags are rejected (EINVAL, PMUCTL_R_BAD_FLAGS);
 *  - reserved fields must be zero (EINVAL, PMUCTL_R_RESERVED_FIELD): they
 *    are the room for new inputs;
 *  - fields marked "out" are ignored on input and overwritten, so the same
 *    struct can be passed again: a PROGRAM refused (COUNTERS_BUSY, say) is
 *    retried as it is, with the err_* and event outputs of the first try
 *    still in it.  (Before ABI v1 was published they had to be zero; that
 *    made every retry fail with PMUCTL_R_OUTPUT_NOT_ZERO, now retired.)
 *    A field never changes from "out" to "in": new inputs use reserved
 *    space, which must be zero;
 *  - user pointers travel as __u64.
 *
 * Who may use the device: the module parameter "paranoid" mirrors
 * kernel.perf_event_paranoid (which a module cannot read) for sessions
 * opened without CAP_PERFMON or CAP_SYS_ADMIN ("unprivileged"):
 *   3 (default): only privileged openers (open is EPERM for the others);
 *   2, 1: unprivileged users may open and count their own threads (task
 *      scope, struct pmuctl_program): at 2 in user mode only, at 1 in
 *      kernel mode too, as perf's self-monitoring; every CPU-scope PROGRAM
 *      is EACCES, PMUCTL_R_UNPRIV_CPU_SCOPE (perf forbids unprivileged
 *      CPU-wide counting at these levels);
 *   0, -1: unprivileged sessions program CPU-wide counting with the same
 *      event rules as privileged ones (kernel mode and AnyThread included,
 *      as perf_allow_cpu() allows them at <= 0); at -1 the per-user limits
 *      below do not apply (perf ignores perf_event_mlock_kb at -1).
 * Unprivileged CPU-scope sessions never get rdpmc (it would read every
 * counter of the CPU, other sessions' included): they read their own
 * counters with PMUCTL_IOC_READ.  Unprivileged task-scope sessions get it
 * where it shows nothing of others (struct pmuctl_program): before any
 * thread runs with rdpmc, every counter of its CPU that may hold a count
 * not its session's reads 0.  INFO does
 * not show them other sessions' ids or extra values (PMUCTL_OWNER_OTHER,
 * PMUCTL_HOLDING_XREG_HIDDEN).  Per user (uid) without privilege: at most
 * "user_max_sessions" (default 16) open sessions (open is EMFILE beyond,
 * as inotify's max_user_instances) and at most "user_max_counters"
 * (default 4) counters held on any one CPU over all its CPU-scope
 * sessions (PROGRAM is EDQUOT, PMUCTL_R_USER_LIMIT, with err_cpu; checked
 * before the events' own rules); 0 turns a limit off.  Privilege and the level are
 * decided at open (may open) and at PROGRAM (may count); a group already
 * programmed keeps counting when the level is raised, as perf events
 * already open do.
 */
#ifndef _UAPI_LINUX_PMUCTL_H
#define _UAPI_LINUX_PMUCTL_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define PMUCTL_ABI_VERSION	1

/* Upper bound on events in one request; more is E2BIG, PMUCTL_R_TOO_MANY_EVENTS. */
#define PMUCTL_MAX_EVENTS	32

/*
 * IA32_PERFEVTSELx image accepted in pmuctl_event.config (SDM vol. 3B,
 * "Architectural Performance Monitoring Version 1").  EN and INT belong to
 * the kernel, PC is never allowed, bits 32..63 are reserved except EQ and
 * UMASK2 where CPUID enumerates them.
 */
#define PMUCTL_CFG_EVENT	0x00000000000000ffULL	/* event select */
#define PMUCTL_CFG_UMASK	0x000000000000ff00ULL	/* unit mask */
#define PMUCTL_CFG_USR		(1ULL << 16)		/* count at CPL > 0 */
#define PMUCTL_CFG_OS		(1ULL << 17)		/* count at CPL 0 */
#define PMUCTL_CFG_EDGE		(1ULL << 18)		/* edge detect, needs CMASK >= 1 */
#define PMUCTL_CFG_PC		(1ULL << 19)		/* pin control: never allowed */
#define PMUCTL_CFG_INT		(1ULL << 20)		/* PMI on overflow: kernel-owned */
#define PMUCTL_CFG_ANY		(1ULL << 21)		/* AnyThread, where the model allows it */
#define PMUCTL_CFG_EN		(1ULL << 22)		/* enable: kernel-owned */
#define PMUCTL_CFG_INV		(1ULL << 23)		/* invert the CMASK comparison */
#define PMUCTL_CFG_CMASK	0x00000000ff000000ULL	/* counter mask (threshold) */
#define PMUCTL_CFG_CMASK_SHIFT	24
/*
 * Perfmon v6 [SDM vol. 3B, "Architectural Performance Monitoring
 * Extended Leaf"; LNX: ARCH_PERFMON_EVENTSEL_EQ, _UMASK2]: where
 * CPUID.(23H,0):EBX enumerates them (PMUCTL_CAP_EQ, PMUCTL_CAP_UMASK2),
 * EQ makes the CMASK comparison "equal" and UMASK2 is a second unit mask;
 * elsewhere an event with either is refused with PMUCTL_R_EQ_UNAVAILABLE
 * or PMUCTL_R_UMASK2_UNAVAILABLE.  Like EDGE, INV and CMASK, they keep an
 * event off the fixed counters (FIXED_CTR_CTRL has no such fields); the
 * counter constraints match event and unit mask without UMASK2, as in
 * Linux.
 */
#define PMUCTL_CFG_EQ		(1ULL << 36)		/* CMASK compares equal */
#define PMUCTL_CFG_UMASK2	0x0000ff0000000000ULL	/* second unit mask */
#define PMUCTL_CFG_UMASK2_SHIFT	40

/*
 * Counter numbers are the ECX operand of rdpmc: i for IA32_PMCi,
 * PMUCTL_COUNTER_FIXED | i for IA32_FIXED_CTRi.
 */
#define PMUCTL_COUNTER_FIXED	(1U << 30)
#define PMUCTL_COUNTER_NONE	0xffffffffU
/*
 * rdpmc ECX bit 29 reads IA32_PERF_METRICS (MSR 0x329) [SDM vol. 3B,
 * "Performance Metrics"; LNX: INTEL_PMC_FIXED_RDPMC_METRICS]: the counter
 * of every topdown metric event (see struct pmuctl_event).
 */
#define PMUCTL_COUNTER_METRICS	(1U << 29)

/* pmuctl_event.flags */
#define PMUCTL_EVENT_GENERIC_ONLY	(1U << 0)	/* never place on a fixed counter */
#define PMUCTL_EVENT_FLAGS_ALL		PMUCTL_EVENT_GENERIC_ONLY

/**
 * struct pmuctl_event - one event to count
 * @config:	in: PERFEVTSELx image without EN and INT (PMUCTL_CFG_*).  The
 *		architectural fixed-counter events are INST_RETIRED.ANY 0x00c0,
 *		CPU_CLK_UNHALTED.THREAD 0x003c and the pseudo encoding 0x0300 for
 *		CPU_CLK_UNHALTED.REF_TSC (fixed counter 2 only, as in Linux).
 *		From Ice Lake on (models icl, icx, spr, gnr, adl_glc), event 0
 *		with umask N+1 names fixed counter N alone, as Intel's lists
 *		write it: 0x0100 INST_RETIRED.ANY (Linux: PREC_DIST), 0x0200,
 *		0x0300, and 0x0400 TOPDOWN.SLOTS on fixed counter 3, read with
 *		rdpmc ECX PMUCTL_COUNTER_FIXED | 3.
 *		Topdown metrics (PMUCTL_CAP_PERF_METRICS): Linux's pseudo
 *		events, event 0 with umask 0x80 + i for metric i of
 *		IA32_PERF_METRICS: 0x8000 retiring, 0x8100 bad speculation,
 *		0x8200 frontend bound, 0x8300 backend bound, and from Golden
 *		Cove on (models spr, gnr, adl_glc) 0x8400 heavy operations,
 *		0x8500 branch mispredict, 0x8600 fetch latency, 0x8700 memory
 *		bound.  As perf, a metric event needs TOPDOWN.SLOTS 0x0400 in
 *		its group (PMUCTL_R_METRICS_NEED_SLOTS), at the same privilege
 *		levels (USR, OS: PERF_METRICS has no filter of its own, it
 *		divides the slots of fixed counter 3), without edge, invert,
 *		cmask or AnyThread.  Its @counter is
 *		PMUCTL_COUNTER_METRICS, and reads (rdpmc, PMUCTL_IOC_READ)
 *		give the raw register, byte i being metric i's share of the
 *		slots in 255ths since the group started or was reset:
 *		metric i counts slots * ((raw >> 8 * i) & 0xff) / 0xff slots,
 *		as perf computes it (libpmuctl: pmuctl_topdown_slots()).
 *		Fixed counter 3 and PERF_METRICS are zeroed together.  In
 *		task scope both are switched with the thread as Linux switches
 *		them (kept at switch-out, written back at switch-in: fixed
 *		counter 3, then PERF_METRICS), so rdpmc reads the thread's
 *		own; a thread's entry of PMUCTL_IOC_THREADS is its raw
 *		register, and the session's READ adds the threads up as
 *		slots: byte i of what it gives is the sum over the threads
 *		of slots x byte i, over the summed slots, rounded to the
 *		nearest (bytes of metrics not in the group read 0).
 * @extra:	in: value of the event's extra MSR (OFFCORE_RSP_x, PEBS_FRONTEND,
 *		PEBS_LD_LAT), 0 for events that have none.
 * @flags:	in: PMUCTL_EVENT_*.
 * @counter:	out: the counter chosen, as an rdpmc ECX value.
 * @config_used: out: the config finally programmed; differs from @config
 *		when the event moved to the other OFFCORE_RSP register.
 * @extra_msr:	out: the MSR that holds @extra, 0 if none.
 * @reserved0:	must be zero.
 * @reserved:	must be zero.
 */
struct pmuctl_event {
	__u64 config;
	__u64 extra;
	__u32 flags;
	__u32 counter;
	__u64 config_used;
	__u32 extra_msr;
	__u32 reserved0;
	__u64 reserved[2];
};

/* Models: what CPUID cannot tell about a PMU (kmod/core/model.c). */
#define PMUCTL_MODEL_NONE	0
#define PMUCTL_MODEL_ARCH	1	/* any other Intel CPU with perfmon v2+ */
#define PMUCTL_MODEL_KNL	2	/* Knights Landing, family 6 model 0x57 */
#define PMUCTL_MODEL_KNM	3	/* Knights Mill, family 6 model 0x85 */
#define PMUCTL_MODEL_SKL	4	/* Skylake and the cores that share its PMU */
#define PMUCTL_MODEL_ICL	5	/* Ice Lake client, Tiger Lake, Rocket Lake */
#define PMUCTL_MODEL_ICX	6	/* Ice Lake server (Xeon, -D) */
#define PMUCTL_MODEL_SPR	7	/* Sapphire Rapids, Emerald Rapids */
#define PMUCTL_MODEL_GNR	8	/* Granite Rapids (X, D) */
#define PMUCTL_MODEL_ADL_GLC	9	/* Golden/Raptor Cove of Alder/Raptor Lake (P-cores only) */
#define PMUCTL_MODEL_ADL_GRT	10	/* Gracemont (Alder Lake-N; the E-core of Alder Lake) */
#define PMUCTL_MODEL_SRF	11	/* Crestmont (Sierra Forest, Grand Ridge) */
#define PMUCTL_MODEL_LNL_LNC	12	/* Lion Cove: Lunar Lake's and Arrow Lake-S's P-core */
#define PMUCTL_MODEL_LNL_SKT	13	/* Skymont: Lunar Lake's and Arrow Lake-S's E-core */

/*
 * pmuctl_caps.flags
 *
 * AnyThread exists from perfmon v3 on; from v5 on CPUID.0AH:EDX[15] may
 * deprecate it (as Linux 6.12 reads it): ANY_THREAD is set for v3 and
 * later unless the version is 5 or later with EDX[15], which sets
 * ANY_DEPRECATED instead.
 *
 * GP_CLAMPED, FIXED_CLAMPED: CPUID reported counters pmuctl does not drive,
 * and @nr_gp, @fixed_mask leave them out.  Before perfmon v6, counters
 * live in the legacy MSR ranges, which hold 8 generic counters
 * (IA32_PERFEVTSEL0-7 0x186-0x18d, IA32_PMC0-7 0xc1-0xc8: a 9th would be
 * IA32_PERF_STATUS, PERF_CTL, CLOCK_MODULATION, MISC_ENABLE) and fixed
 * counters 0-3 (IA32_FIXED_CTR0-3 0x309-0x30c): a PMU of v5 or earlier
 * reporting more is clamped to them.  From v6 on, pmuctl addresses every
 * counter in the v6 range [SDM vol. 3B, "Performance Monitoring Version
 * 6"; LNX: MSR_IA32_PMC_V6_*]: generic counter i at IA32_PMC_GPi_CTR
 * 0x1900 + 4i with its event select at IA32_PMC_GPi_CFG_A 0x1901 + 4i,
 * fixed counter i at IA32_PMC_FXi_CTR 0x1980 + 4i, as Linux 6.11+ does;
 * there nothing is clamped below 32 generic and 16 fixed counters (what
 * the index space holds).  Leaf 23H sub-leaf 1 gives them where leaf 0AH
 * does not (Lion Cove: leaf 0AH 8 generic, 23H 10; Skymont: fixed 0-2
 * and 4-6).
 */
#define PMUCTL_CAP_ANY_THREAD		(1U << 0)	/* AnyThread exists (v3+, not deprecated) */
#define PMUCTL_CAP_ANY_DEPRECATED	(1U << 1)	/* v5+: CPUID.0AH:EDX[15] */
#define PMUCTL_CAP_FULL_WIDTH_WRITE	(1U << 2)	/* PERF_CAPABILITIES[13]: IA32_A_PMCx */
#define PMUCTL_CAP_GP_CLAMPED		(1U << 3)	/* generic counters left out */
#define PMUCTL_CAP_FIXED_CLAMPED	(1U << 4)	/* fixed counters left out */
/*
 * CPUID.(7,0):EDX[13] without RTM_ALWAYS_ABORT (EDX[11]): Skylake-family
 * microcode whose PMC3 is corrupted by RTM transactions unless
 * MSR_TSX_FORCE_ABORT[0] makes every RTM transaction abort.  pmuctl does
 * what Linux does (arch/x86/events/intel/core.c, allow_tsx_force_abort):
 * by default it sets that bit on a CPU while a session holds PMC3 there
 * and clears it when PMC3 is released; loaded with
 * allow_tsx_force_abort=0 it never sets it and withholds PMC3 instead
 * (PMUCTL_CAP_PMC3_WITHHELD).
 */
#define PMUCTL_CAP_TSX_FORCE_ABORT	(1U << 5)
/*
 * A core type of a hybrid CPU (CPUID.(7,0):EDX[15]): the other fields
 * describe this type's PMU (@core_type, @native_model say which type),
 * which may differ from the other types' in counters and in its model
 * table.  Each CPU's own caps and model are in its pmuctl_holding entry;
 * struct pmuctl_info's are those of the first type found.  See "Hybrid
 * CPUs" at struct pmuctl_program.
 */
#define PMUCTL_CAP_HYBRID		(1U << 6)
/*
 * IA32_PERF_CAPABILITIES[15]: the IA32_PERF_METRICS register exists,
 * enabled by GLOBAL_CTRL bit 48; it divides the slots of fixed counter 3
 * into the topdown metrics (struct pmuctl_event), of which the model
 * table says how many there are (Ice Lake's icl and icx 4; spr, gnr and
 * adl_glc 8; none elsewhere).  Meteor Lake reads the bit as 0 (Linux
 * 6.12 intel_pmu_broken_perf_cap()).
 */
#define PMUCTL_CAP_PERF_METRICS		(1U << 8)
#define PMUCTL_CAP_PMC3_WITHHELD	(1U << 7)	/* no event is placed on PMC3 */
/*
 * Perfmon v6 on Linux 6.11+ (see PMUCTL_R_PERF_UNMANAGED): fixed counter 2
 * holds perf's exclusive event that keeps perf off the PMU while pmuctl
 * holds counters, so @fixed_mask leaves it out: no event is placed there,
 * and ref-cycles (fixed counter 2 only) is refused.
 */
#define PMUCTL_CAP_FIXED2_WITHHELD	(1U << 9)
/*
 * CPUID.(23H,0):EBX[0] and [1] (where CPUID.(7,1):EAX[8] says leaf 23H
 * exists): the event selects take UMASK2 (bits 47:40) and EQ (bit 36),
 * PMUCTL_CFG_UMASK2 and PMUCTL_CFG_EQ.
 */
#define PMUCTL_CAP_UMASK2		(1U << 10)
#define PMUCTL_CAP_EQ			(1U << 11)
/*
 * Perfmon v6 on Linux 6.11+, a part that is not hybrid: perf drives only
 * the generic counters of CPUID leaf 0AH, and whenever it enables its
 * PMU (an NMI, a switch of a task that owns perf events) it writes
 * GLOBAL_CTRL whole, without the enables of leaf 23H's further counters.
 * Those would stop counting at perf's first enable, so @nr_gp leaves them
 * out (perf's own count, perf_get_x86_pmu_capability()).
 */
#define PMUCTL_CAP_GP_PERF_LIMITED	(1U << 12)

/* Architectural events, CPUID.0AH:EBX bit numbers (bit set = unavailable). */
#define PMUCTL_ARCH_CORE_CYCLES		0	/* 0x003c */
#define PMUCTL_ARCH_INST_RETIRED	1	/* 0x00c0 */
#define PMUCTL_ARCH_REF_CYCLES		2	/* 0x013c */
#define PMUCTL_ARCH_LLC_REFERENCES	3	/* 0x4f2e */
#define PMUCTL_ARCH_LLC_MISSES		4	/* 0x412e */
#define PMUCTL_ARCH_BRANCHES		5	/* 0x00c4 */
#define PMUCTL_ARCH_BRANCH_MISSES	6	/* 0x00c5 */
#define PMUCTL_ARCH_TOPDOWN_SLOTS	7	/* 0x01a4 */

/**
 * struct pmuctl_caps - the PMU as CPUID describes it
 * @family:	display family (CPUID.1:EAX).
 * @model:	display model.
 * @stepping:	stepping.
 * @version:	architectural perfmon version, CPUID.0AH:EAX[7:0].
 * @nr_gp:	generic counters per logical CPU: before perfmon v6 at most
 *		8 (GP_CLAMPED); from v6 on as leaf 23H (or 0AH) says.
 * @gp_width:	their width in bits.
 * @nr_fixed:	fixed counters (highest present + 1).
 * @fixed_width: their width in bits.
 * @fixed_mask:	bitmap of the fixed counters present: before perfmon v6
 *		within 0-3 (FIXED_CLAMPED), from v6 on within 0-15.
 * @events_unavailable: bit i set: architectural event i is not available,
 *		including every i at or above the length CPUID.0AH:EAX[31:24].
 * @flags:	PMUCTL_CAP_*.
 * @core_type:	hybrid CPUs (PMUCTL_CAP_HYBRID): the core type,
 *		CPUID.1AH:EAX[31:24] (0x20 Atom, 0x40 Core); else 0.
 * @reserved0:	zero.
 * @perf_capabilities: IA32_PERF_CAPABILITIES, 0 when the CPU has none.
 * @native_model: hybrid CPUs: the core's native model id,
 *		CPUID.1AH:EAX[23:0]; else 0.
 * @reserved1:	zero.
 * @reserved:	zero.
 *
 * Hybrid CPUs: leaf 0AH shows only what every core type has.  A type's
 * counters come from CPUID leaf 23H sub-leaf 1 where it is enumerated
 * (CPUID.(7,1):EAX[8] and 23H.0:EAX[1]; Meteor Lake and later), else
 * from Linux 6.12's rule for Alder and Raptor Lake (intel_pmu_init()):
 * the Core type has two more generic counters and fixed counter 3,
 * unless that would make more than 8 and 4 (E-cores disabled).
 */
struct pmuctl_caps {
	__u16 family;
	__u8 model;
	__u8 stepping;
	__u8 version;
	__u8 nr_gp;
	__u8 gp_width;
	__u8 nr_fixed;
	__u8 fixed_width;
	__u8 core_type;
	__u8 reserved0[2];
	__u32 fixed_mask;
	__u32 events_unavailable;
	__u32 flags;
	__u64 perf_capabilities;
	__u32 native_model;
	__u32 reserved1;
	__u64 reserved[1];
};

/* pmuctl_info.rdpmc: how a session reads its counters. */
/* not granted (never to unprivileged sessions): read with PMUCTL_IOC_READ */
#define PMUCTL_RDPMC_NONE	0
#define PMUCTL_RDPMC_SESSION	1	/* granted to a session's threads while it holds counters */
/* unprivileged sessions: granted for task-scope groups only (struct pmuctl_program) */
#define PMUCTL_RDPMC_TASK	2

/* pmuctl_info.backend: where the counts come from. */
#define PMUCTL_BACKEND_MSR	0	/* the CPU's PMU */
#define PMUCTL_BACKEND_MODEL	1	/* the test register model: no real counts */

/* pmuctl_holding.flags */
#define PMUCTL_HOLDING_ONLINE	(1U << 0)
/*
 * pmuctl_holding.owner[] for a counter task-scope sessions hold: they share
 * it in time, on every CPU.
 */
#define PMUCTL_OWNER_TASK	0xfffffffeU
/*
 * pmuctl_holding.owner[] for a counter held by a session the caller may
 * not identify: an unprivileged caller sees its own session id and this
 * "busy" marker for every other holder.
 */
#define PMUCTL_OWNER_OTHER	0xffffffffU
/*
 * pmuctl_holding.xreg[].flags: the value is another session's and is not
 * shown to an unprivileged caller (value 0; msr and refcount are shown).
 */
#define PMUCTL_HOLDING_XREG_HIDDEN	(1U << 0)

#define PMUCTL_HOLDING_COUNTERS	48	/* 32 generic, then 16 fixed */
#define PMUCTL_HOLDING_XREGS	4

/**
 * struct pmuctl_holding - what the sessions hold on one CPU
 * @cpu:	the CPU.
 * @flags:	PMUCTL_HOLDING_*.
 * @owner:	session holding each counter, 0 if free, PMUCTL_OWNER_OTHER
 *		(unprivileged callers) if held by another session: index
 *		i < 32 is IA32_PMCi, 32 + i is IA32_FIXED_CTRi.
 * @xreg:	the model's extra MSRs: @msr (0: the model has fewer), the
 *		@value it holds (0 and PMUCTL_HOLDING_XREG_HIDDEN in @flags
 *		when hidden), how many events share it (@refcount).
 * @pmu_model:	PMUCTL_MODEL_* of this CPU's PMU (its core type's on a
 *		hybrid CPU); PMUCTL_MODEL_NONE when not known: a CPU of a
 *		hybrid part that has not been online since the module loaded.
 * @reserved0:	zero.
 * @caps:	this CPU's PMU (zero when @pmu_model is NONE).
 *		(@pmu_model and @caps: holding_size PMUCTL_HOLDING_SIZE_VER1.)
 *
 * The struct grows at its end: the caller says how large its entries are
 * (pmuctl_info.holding_size), the module fills in what both know and
 * zeroes the rest of each entry.
 */
struct pmuctl_holding {
	__u32 cpu;
	__u32 flags;
	__u32 owner[PMUCTL_HOLDING_COUNTERS];
	struct {
		__u64 value;
		__u32 msr;
		__u32 refcount;
		__u32 flags;
		__u32 reserved;
	} xreg[PMUCTL_HOLDING_XREGS];
	__u32 pmu_model;
	__u32 reserved0;
	struct pmuctl_caps caps;
};

/* The first size of struct pmuctl_holding, the smallest holding_size. */
#define PMUCTL_HOLDING_SIZE_VER0	296
/* With pmu_model and caps (per-CPU PMUs, hybrid CPUs). */
#define PMUCTL_HOLDING_SIZE_VER1	352

/* pmuctl_info.session_flags */
#define PMUCTL_SESSION_UNPRIV	(1U << 0)	/* opened without CAP_PERFMON/CAP_SYS_ADMIN */

/**
 * struct pmuctl_info - PMUCTL_IOC_INFO: what this module and PMU offer
 * @flags:	in: must be zero.
 * @abi_version: out: PMUCTL_ABI_VERSION.
 * @pmu_model:	out: PMUCTL_MODEL_* (hybrid CPUs: of the type @caps describes).
 * @max_events:	out: PMUCTL_MAX_EVENTS.
 * @event_flags: out: the pmuctl_event.flags this module accepts.
 * @rdpmc:	out: PMUCTL_RDPMC_*.
 * @caps:	out: the PMU; on a hybrid CPU (PMUCTL_CAP_HYBRID), the first
 *		core type's (that of the lowest-numbered CPU online at load),
 *		each CPU's own in its holding entry.
 * @backend:	out: PMUCTL_BACKEND_*.
 * @nr_cpus:	out: CPU numbers range over 0..nr_cpus-1 (nr_cpu_ids).
 * @commands:	out: bit n set: the command with ioctl number n is supported.
 * @holdings:	in: user pointer to an array of holding entries, or 0.
 * @holdings_size: in: its size in bytes, a multiple of @holding_size.
 * @holdings_nr: out: entries written, one per possible CPU in order, as
 *		many as fit.
 * @session:	out: the id of the calling session (the owner in holdings).
 * @holding_size: in: the size of one entry as the caller knows struct
 *		pmuctl_holding (sizeof), at least PMUCTL_HOLDING_SIZE_VER0, a
 *		multiple of 8, at most 4096; needed when @holdings is set,
 *		else may be 0.  Entries are @holding_size apart; the module
 *		writes the fields it knows and zeroes the rest of each.
 *		out: the module's sizeof(struct pmuctl_holding).
 * @generation:	out: the calling session's generation: 0 at open, + 1 by
 *		every PROGRAM that succeeds and every RESET (even one that
 *		faulted).  Never decreases.  (A CPU of the group that goes
 *		offline and comes back does not bump it yet.)
 * @session_flags: out: PMUCTL_SESSION_*.
 * @paranoid:	out: the module's "paranoid" level now (see the top).
 * @program_flags: out: the PMUCTL_PROGRAM_* flags this module accepts.
 * @task_bits:	out: how many low bits of a task-scope counter rdpmc shows
 *		exactly (see "Task scope" at struct pmuctl_program): the
 *		counters' width where IA32_PERF_CAPABILITIES allows full-width
 *		writes, else 32.
 * @reserved:	must be zero.
 */
struct pmuctl_info {
	__u32 flags;
	__u32 abi_version;
	__u32 pmu_model;
	__u32 max_events;
	__u32 event_flags;
	__u32 rdpmc;
	struct pmuctl_caps caps;
	__u32 backend;
	__u32 nr_cpus;
	__u64 commands;
	__u64 holdings;
	__u32 holdings_size;
	__u32 holdings_nr;
	__u32 session;
	__u32 holding_size;
	__u64 generation;
	__u32 session_flags;
	__s32 paranoid;
	__u32 program_flags;
	__u32 task_bits;
	__u64 reserved[1];
};

/* Largest CPU bitmap accepted: 8192 CPUs. */
#define PMUCTL_MAX_CPU_BITMAP	1024

/* pmuctl_program.flags */
#define PMUCTL_PROGRAM_TASK		(1U << 0)	/* count the calling thread, not CPUs */
#define PMUCTL_PROGRAM_INHERIT		(1U << 1)	/* with TASK: and what it creates */
#define PMUCTL_PROGRAM_ENABLE_ON_EXEC	(1U << 2)	/* with TASK: START at its next exec */
#define PMUCTL_PROGRAM_REPLACE		(1U << 3)	/* CPU scope: swap the group, one wave */
#define PMUCTL_PROGRAM_FLAGS_ALL	(PMUCTL_PROGRAM_TASK |		\
					 PMUCTL_PROGRAM_INHERIT |	\
					 PMUCTL_PROGRAM_ENABLE_ON_EXEC |	\
					 PMUCTL_PROGRAM_REPLACE)

/**
 * struct pmuctl_program - PMUCTL_IOC_PROGRAM: claim counters for a group
 * @flags:	in: PMUCTL_PROGRAM_*; 0 counts CPUs (CPU scope).
 * @nr_events:	in: 1..PMUCTL_MAX_EVENTS (more: E2BIG).
 * @events:	in/out: user pointer to struct pmuctl_event[@nr_events]; on
 *		success each event's output fields are filled in.
 * @cpus:	in: user pointer to a CPU bitmap (__u64 words, CPU n is bit
 *		n % 64 of word n / 64); 0 with PMUCTL_PROGRAM_TASK.
 * @cpus_size:	in: its size in bytes (0 with PMUCTL_PROGRAM_TASK, else
 *		EINVAL, PMUCTL_R_BAD_CPU): a multiple of 8, at most
 *		PMUCTL_MAX_CPU_BITMAP.  At least one CPU must be set, every CPU
 *		set must be possible.  Any possible CPU, for unprivileged
 *		sessions too: the caller's affinity is not checked (any task
 *		widens it with sched_setaffinity(), so it guards nothing).
 * @err_reason: out: on failure, PMUCTL_R_* naming the rule, or
 *		PMUCTL_R_NONE for a failure no rule names (ENOMEM, EFAULT).
 * @err_index:	out: on failure, the event that broke it, else 0.
 * @err_cpu:	out: on failure, the CPU where it was refused (0xffffffff:
 *		not CPU-specific).  The three err_* fields are written on every
 *		failure that got past copying the struct in.
 * @reserved:	must be zero.
 *
 * The group is placed identically on every CPU of the bitmap, so each
 * event has one counter (and one rdpmc index) wherever the reader runs.
 * All or nothing: on failure no CPU and no other session changes.  A
 * session holds one group; PROGRAM while holding one is EBUSY.  The
 * counters start stopped and zeroed.
 *
 * PMUCTL_PROGRAM_REPLACE (CPU scope; with PMUCTL_PROGRAM_TASK it is
 * EINVAL, PMUCTL_R_BAD_FLAGS) puts a new group in place of the one the
 * session holds, as RELEASE and PROGRAM would, but in one ioctl and one
 * cross-CPU wave, for a tool that rotates the sub-groups of an event list
 * longer than the counters: the new events are placed as if the old
 * group's counters were free (they may take the same ones), the old
 * counters are stopped, zeroed and given back, the new ones written
 * zeroed, and they count at once if the old group was counting (started),
 * else they wait for START.  The bitmap must name exactly the group's
 * CPUs (EINVAL, PMUCTL_R_REPLACE_SCOPE, also for a task-scope group);
 * without a group it is ENOENT (PMUCTL_R_NOT_PROGRAMMED).  All or
 * nothing: a refused replacement (any rule PROGRAM checks, a busy
 * counter, a faulted write) leaves the old group as it was, counting and
 * with its counts (but EFAULT copying the events back, as for PROGRAM,
 * leaves the session without a group).  The rdpmc grants stay; the indexes of the events are
 * the new ones (a reader on another thread must learn them before it
 * reads again), and the session's generation moves on, as for every
 * PROGRAM that succeeds.
 *
 * rdpmc: when pmuctl_info.rdpmc is PMUCTL_RDPMC_SESSION (the module
 * parameter rdpmc is 1, its default; never for an unprivileged CPU-scope
 * group, which is refused PMUCTL_IOC_RDPMC with EPERM; task scope is
 * below), the thread calling PROGRAM may
 * execute rdpmc until the group is released (RELEASE, close of the last
 * fd, exit), and so may each other thread of the same process that asks
 * with PMUCTL_IOC_RDPMC on the session's fd.  The grant belongs to those
 * threads, not to the address space: another thread of the process that
 * did not ask faults on rdpmc (SIGSEGV), a child forked at any time is
 * not granted (fork does not copy it), a granted thread that execs loses
 * it, and another process holding the fd is refused PMUCTL_IOC_RDPMC
 * (EPERM): those read with PMUCTL_IOC_READ.  The revoke reaches a granted
 * thread running on another CPU before RELEASE or close returns.
 *
 * The kernel's /sys/bus/event_source/devices/cpu/rdpmc governs perf's
 * grants, pmuctl's parameter pmuctl's: user rdpmc is forbidden only with
 * both at 0.  The parameter is read when a grant is made: setting it to 0
 * ends no grant already given.  CR4.PCE is set when a granted thread is
 * scheduled in and cleared when it is scheduled out if pmuctl set it (never
 * when the kernel had: sysfs rdpmc=2, perf's own mmap grant); while the
 * thread runs, a change of the kernel's policy (a write to the sysfs file,
 * perf unmapping an event of the same process) may clear it until the
 * thread's next context switch, where the library emulates rdpmc.
 *
 * Task scope (PMUCTL_PROGRAM_TASK): the group counts the calling thread,
 * only while it runs, on whichever CPU it runs, at the privilege levels of
 * each event.  At every context switch the module saves the thread's
 * counts (sched_out) and writes them back (sched_in), so the hardware
 * counter is the thread's count whenever the thread runs: one rdpmc reads
 * it, and deltas across preemption and migration are exact.  The group
 * takes the same counters on every CPU.  Counters of task-scope sessions
 * are shared in time: two sessions (of two threads) may hold the same
 * index, and each thread's extra MSR values (OFFCORE_RSP_x) are written
 * at each of its switch-ins; a CPU-scope session never shares: it cannot
 * take a counter or extra MSR a task-scope session holds, and a task-scope
 * group cannot take a counter a CPU-scope session holds on any CPU
 * (COUNTERS_BUSY, err_cpu 0xffffffff), nor one that something other than
 * pmuctl runs on an online CPU (COUNTER_IN_USE, err_cpu that CPU).
 *  - A thread is the target of at most one task-scope session (its own or
 *    one it inherited): EBUSY, PMUCTL_R_TASK_BUSY.  Foreign threads cannot
 *    be targeted (no ptrace check is exported to modules): a tool counts a
 *    command by letting the child program itself between fork and exec,
 *    on a session file it shares with the parent.
 *  - PMUCTL_PROGRAM_INHERIT: threads and processes the thread creates
 *    after PROGRAM are counted too, from their first instruction (their
 *    kernel-mode return from fork included), and so are the workers the
 *    kernel makes for them (io_uring's, vhost's); their counts are added
 *    to the session's totals when they exit.  At most "task_max_threads"
 *    (module parameter, default 4096) threads of a session are counted at
 *    once; a thread beyond it, or one made when the session had no room
 *    allocated ahead for it (more than a few threads made in one system
 *    call), is not counted and pmuctl_read.nr_lost says so.  A thread that
 *    execs a set-user-ID or otherwise non-dumpable image stops being
 *    counted at that exec (its counts so far stay): pmuctl's own rule,
 *    stricter than perf's, which keeps counting across such an exec.
 *  - PMUCTL_PROGRAM_ENABLE_ON_EXEC: the group starts stopped and starts
 *    counting when the thread next execs (perf's enable_on_exec), so that
 *    a tool counts a command and none of its own instructions.
 *  - The thread's counts are saved at sched_out and the counters disabled;
 *    their values stay in the registers until another thread that runs
 *    with rdpmc is switched in on that CPU: pmuctl then zeroes every
 *    counter that may hold a count that is not that thread's (other
 *    task-scope threads', a released group's, perf's from before pmuctl
 *    kept it off), so rdpmc reads 0 for them.  Counters that something
 *    other than pmuctl and perf runs (found enabled) are neither written
 *    nor hidden.
 *  - Restored values: where IA32_PERF_CAPABILITIES[13] allows full-width
 *    writes, a counter is given back its value at the counter's width;
 *    elsewhere a generic counter can only be written through its legacy
 *    address, which keeps bits 31:0 and sign-extends bit 31, so rdpmc
 *    shows the thread's count modulo 2^32 (pmuctl_info.task_bits says 32):
 *    deltas masked with 2^32 - 1 are exact for spans below 2^32 events.
 *    READ returns 64-bit totals either way.
 *  - rdpmc: granted, as for CPU scope, to the thread that programmed, and
 *    to each thread the session counts that asks with PMUCTL_IOC_RDPMC:
 *    one of that process (INHERIT), or of a process INHERIT counts (a
 *    child, after its exec too: the command "pmuctl stat --regions" runs)
 *    whose mm is dumpable by its user (get_dumpable() SUID_DUMP_USER: not
 *    a set-user-ID image, no credentials changed since); never to a
 *    thread the session does not count (EPERM).  What such a thread
 *    reads is its own counts (the grant zeroes the rest), and its grant
 *    ends at its next exec, as every grant does.  Unprivileged sessions get it
 *    too, but not on a CPU where a CPU-scope session holds counters
 *    (rdpmc cannot hide those; the thread then reads through the
 *    library's emulation, PMUCTL_READ_THREAD).
 *  - Who may: unprivileged sessions at paranoid <= 2 (perf's
 *    self-monitoring levels): at 2 user mode only (EACCES,
 *    PMUCTL_R_UNPRIV_KERNEL_MODE), at 1 kernel mode too; AnyThread needs
 *    paranoid <= 0 (EACCES, PMUCTL_R_UNPRIV_ANY_THREAD: it counts the
 *    sibling thread's work), as perf_allow_cpu() gates it.
 *  - Where the CPU has TSX force abort (PMUCTL_CAP_TSX_FORCE_ABORT), task
 *    scope does not use PMC3.
 *  - START, STOP and RESET act on every counted thread; on a thread running
 *    on another CPU before they return.  RELEASE and close end the
 *    counting of every thread; threads still running keep nothing.
 *
 * Hybrid CPUs (PMUCTL_CAP_HYBRID): each core type has its own PMU (its
 * counters, its model table: pmuctl_holding.caps and .pmu_model of each
 * CPU).  A CPU-scope group is validated and placed with the PMU of its
 * CPUs, which must all be of one core type (else EINVAL,
 * PMUCTL_R_CPU_TYPE, err_cpu the first CPU of another type), so that each
 * event keeps one counter and one rdpmc index on every CPU it names; a
 * group for two types is two sessions.  A CPU of a hybrid part whose type
 * is not known (offline since the module loaded) cannot be named until it
 * has come online once.  Task scope is refused (PMUCTL_R_CPU_TYPE) while
 * the CPUs are of more than one type, or one's type is not known: a
 * thread migrates between types, and an event valid on one may count
 * something else, or not exist, on the other.  A hybrid part whose CPUs
 * are all of one type (E-cores disabled) behaves as a non-hybrid CPU.
 */
struct pmuctl_program {
	__u32 flags;
	__u32 nr_events;
	__u64 events;
	__u64 cpus;
	__u32 cpus_size;
	__u32 err_reason;
	__u32 err_index;
	__u32 err_cpu;
	__u64 reserved[4];
};

/**
 * struct pmuctl_ctl - PMUCTL_IOC_START, _STOP, _RESET, _RELEASE, _RDPMC
 * @flags:	in: must be zero.
 * @reserved0:	must be zero.
 * @reserved:	must be zero.
 *
 * START enables the session's counters on all its CPUs, STOP disables
 * them (values kept), RESET zeroes them (running or not), RELEASE gives
 * everything back (closing the file does the same).
 *
 * PMUCTL_IOC_RDPMC grants rdpmc of the session's counters to the calling
 * thread (see struct pmuctl_program): 0, also when it holds the grant
 * already; ENOENT: the session holds no group; EPERM: the caller is not a
 * thread of the process that programmed the session (task scope: or not a
 * thread the session counts); EOPNOTSUPP: the
 * module grants no rdpmc (pmuctl_info.rdpmc is PMUCTL_RDPMC_NONE).
 */
struct pmuctl_ctl {
	__u32 flags;
	__u32 reserved0;
	__u64 reserved[2];
};

/**
 * struct pmuctl_read - PMUCTL_IOC_READ: the kernel reads the counters
 * @flags:	in: must be zero.
 * @cpu:	in: one of the session's CPUs.
 * @nr_values:	in: room in @values, at least the group's event count.
 * @reserved0:	must be zero.
 * @values:	in: user pointer to __u64[@nr_values]; out: raw counter
 *		values in event order, as wide as the counter.
 * @generation:	out: the session's generation (pmuctl_info.generation)
 *		when the values were read: a reader that sees it change
 *		between two reads knows its counters were reset or
 *		reprogrammed in between, and drops the delta.
 * @nr_threads:	out: task scope: threads counted now.
 * @nr_lost:	out: task scope: threads created (INHERIT) that are not
 *		counted (task_max_threads reached, or no memory).
 * @reserved:	must be zero.
 *
 * The path for readers without rdpmc (every unprivileged session) and for
 * other CPUs' counters; it reads the session's own counters only.  A CPU
 * that is offline: ENODEV.
 *
 * Task scope: @cpu must be 0.  Without flags: the session's totals, 64
 * bits each, of every thread it counts and has counted (the running
 * ones read on their CPUs), from any thread or process holding the file.
 * PMUCTL_READ_THREAD: the calling thread's counters as rdpmc shows them
 * (see task_bits), for the library's rdpmc emulation; ESRCH when the
 * session does not count the caller.
 */
#define PMUCTL_READ_THREAD	(1U << 0)

struct pmuctl_read {
	__u32 flags;
	__u32 cpu;
	__u32 nr_values;
	__u32 reserved0;
	__u64 values;
	__u64 generation;
	__u32 nr_threads;
	__u32 nr_lost;
	__u64 reserved[1];
};

/**
 * struct pmuctl_thread - one thread in PMUCTL_IOC_THREADS's answer
 * @tid:	the thread's id in the caller's pid namespace, 0 where it is
 *		not visible there.
 * @tgid:	its process's id, likewise.
 * @flags:	PMUCTL_THREAD_*.
 * @reserved:	zero.
 * @values:	the thread's counts, 64 bits each, in event order:
 *		pmuctl_threads.nr_values of them follow the header.
 */
struct pmuctl_thread {
	__u32 tid;
	__u32 tgid;
	__u32 flags;
	__u32 reserved;
	__u64 values[];
};

#define PMUCTL_THREAD_EXITED	(1U << 0)	/* no longer counted: exited or detached */

/**
 * struct pmuctl_threads - PMUCTL_IOC_THREADS: a task-scope session per thread
 * @flags:	in: must be zero.
 * @nr_values:	in: values in each entry, at least the group's event count.
 * @entries:	in: user pointer to the entries, each a struct pmuctl_thread
 *		and its @nr_values values (16 + 8 * @nr_values bytes).
 * @entries_size: in: the buffer's size in bytes.
 * @nr_entries:	out: entries written: the threads counted now, in the order
 *		they were first counted, then those no longer counted, in
 *		the order they stopped, as many as fit.
 * @nr_total:	out: entries the session has (a caller whose buffer was too
 *		small asks again with room for this many).
 * @nr_dropped:	out: threads no longer counted whose entry was not kept
 *		(more than task_max_threads of them, or no memory): their
 *		counts are in the totals (PMUCTL_IOC_READ), not here.
 * @generation:	out: the session's generation, as PMUCTL_IOC_READ's.
 * @reserved:	must be zero.
 *
 * The entries add up to the totals PMUCTL_IOC_READ returns, but for
 * @nr_dropped threads and for threads inherited while the entries were
 * read.  RESET forgets the entries of threads no longer counted.  EINVAL
 * for a CPU-scope session; ENOENT without a group.
 */
struct pmuctl_threads {
	__u32 flags;
	__u32 nr_values;
	__u64 entries;
	__u32 entries_size;
	__u32 nr_entries;
	__u32 nr_total;
	__u32 nr_dropped;
	__u64 generation;
	__u64 reserved[2];
};

/*
 * Reason codes: why a request was refused.  Stable: values are never
 * reused or renumbered, new ones are appended.
 */
enum pmuctl_reason {
	PMUCTL_R_NONE = 0,
	/* ABI rules */
	PMUCTL_R_BAD_FLAGS = 1,		/* unknown bit in a flags field */
	PMUCTL_R_RESERVED_FIELD = 2,	/* a reserved field is not zero */
	PMUCTL_R_OUTPUT_NOT_ZERO = 3,	/* retired: outputs are ignored on input */
	PMUCTL_R_TOO_MANY_EVENTS = 4,	/* more than PMUCTL_MAX_EVENTS (E2BIG) */
	/* one event */
	PMUCTL_R_RESERVED_BITS = 5,	/* config bits 32..63 set (other than EQ, UMASK2) */
	PMUCTL_R_KERNEL_BITS = 6,	/* EN or INT set: the kernel owns them */
	PMUCTL_R_PIN_CONTROL = 7,	/* PC set: never allowed */
	PMUCTL_R_NO_PRIV_LEVEL = 8,	/* neither USR nor OS */
	PMUCTL_R_EDGE_NO_CMASK = 9,	/* EDGE needs CMASK >= 1 */
	PMUCTL_R_ANY_NOT_ALLOWED = 10,	/* AnyThread not allowed for this event on this model */
	PMUCTL_R_EVENT_UNAVAILABLE = 11, /* CPUID.0AH:EBX: architectural event absent */
	PMUCTL_R_NO_ELIGIBLE_COUNTER = 12, /* no counter of this PMU can count it as configured */
	PMUCTL_R_EXTRA_UNEXPECTED = 13,	/* extra value for an event without an extra MSR */
	PMUCTL_R_EXTRA_MASK = 14,	/* extra value outside the MSR's valid mask */
	PMUCTL_R_OFFCORE_NO_REQUEST = 15, /* offcore value without a request bit */
	PMUCTL_R_OFFCORE_NO_RESPONSE = 16, /* offcore value without a response bit */
	PMUCTL_R_OFFCORE_ANY_RESPONSE_MIXED = 17, /* ANY_RESPONSE + supplier/snoop */
	PMUCTL_R_OUTSTANDING_ON_RSP1 = 18, /* OUTSTANDING only exists in OFFCORE_RSP_0 */
	PMUCTL_R_OUTSTANDING_WITH_RESPONSE = 19, /* OUTSTANDING takes request bits only */
	/* 20, 21: unprivileged task-scope sessions (paranoid 2, 1), EACCES */
	PMUCTL_R_UNPRIV_KERNEL_MODE = 20, /* OS mode at paranoid 2 */
	PMUCTL_R_UNPRIV_ANY_THREAD = 21, /* AnyThread above paranoid 0 */
	/* a group on one CPU */
	PMUCTL_R_COUNTERS_BUSY = 22,	/* every counter that can count it is taken */
	PMUCTL_R_OFFCORE_RSP0_BUSY = 23, /* MSR_OFFCORE_RSP_0 holds another value */
	PMUCTL_R_OFFCORE_RSP1_BUSY = 24, /* MSR_OFFCORE_RSP_1 holds another value */
	PMUCTL_R_OFFCORE_BOTH_BUSY = 25, /* both OFFCORE_RSP MSRs hold other values */
	PMUCTL_R_FRONTEND_BUSY = 26,	/* MSR_PEBS_FRONTEND holds another value */
	PMUCTL_R_LDLAT_BUSY = 27,	/* MSR_PEBS_LD_LAT_THRESHOLD holds another value */
	PMUCTL_R_LATENCY_REQUEST_MISMATCH = 28, /* latency pair: request bits differ */
	PMUCTL_R_LATENCY_NO_ANY_RESPONSE = 29, /* latency pair: RSP_1 lacks ANY_RESPONSE */
	/* the CPU */
	PMUCTL_R_NOT_INTEL = 30,	/* not a GenuineIntel CPU */
	PMUCTL_R_NO_ARCH_PERFMON = 31,	/* no architectural perfmon v2+ with generic counters */
	/* the device */
	PMUCTL_R_PERF_BUSY = 32,	/* perf (the NMI watchdog?) holds the counters */
	PMUCTL_R_BAD_CPU = 33,		/* a CPU in the bitmap is not possible, or none set */
	PMUCTL_R_CPU_NOT_ALLOWED = 34,	/* retired: the affinity check guarded nothing */
	PMUCTL_R_HW_FAULT = 35,		/* a PMU register write faulted; nothing changed */
	PMUCTL_R_ALREADY_PROGRAMMED = 36, /* the session holds a group: RELEASE first */
	/* unprivileged sessions (module parameters paranoid, user_max_*) */
	PMUCTL_R_UNPRIV_CPU_SCOPE = 37,	/* CPU-wide counting needs CAP_PERFMON or paranoid <= 0 */
	PMUCTL_R_USER_LIMIT = 38,	/* the user holds user_max_counters on err_cpu (EDQUOT) */
	/*
	 * Perfmon v6 on Linux 6.11+: perf addresses its counters at 0x1900+,
	 * which the NMI reservation does not manage.  There pmuctl keeps perf
	 * off the PMU of every online CPU, while any group is held, with an
	 * exclusive pinned perf event of its own on fixed counter 2 (which
	 * no group gets meanwhile); PERF_BUSY when perf's own pinned events
	 * (the NMI watchdog) keep it off, or when any other CPU-wide event of
	 * perf's exists on a CPU's core PMU, enabled or not (one created
	 * before pmuctl's and enabled later would be scheduled ahead of it);
	 * this reason when perf cannot place it (no fixed counter 2) or
	 * refuses it otherwise (the log says why).
	 */
	PMUCTL_R_PERF_UNMANAGED = 39,
	/*
	 * A counter the group would take is already enabled on a target CPU
	 * by someone else (firmware, a hypervisor, another driver), as perf's
	 * check_hw_exists() sees it: EN in its PERFEVTSELx, or OS/USR in its
	 * FIXED_CTR_CTRL nibble.  err_index is the event, err_cpu the CPU.
	 * Task scope: any online CPU (the thread may run on each), for a
	 * counter the group adds to the task-scope pool.
	 */
	PMUCTL_R_COUNTER_IN_USE = 40,
	/*
	 * A hybrid CPU (CPUID.(7,0):EDX[15]) whose core type cannot be told
	 * (CPUID.1AH reads 0 on a part Linux knows no rule for): refused at
	 * load.  (A CPU of a fifth core type coming online later is left
	 * without a type, with a warning: PMUCTL_R_CPU_TYPE.  Before hybrid
	 * CPUs were supported, every hybrid CPU was refused with this.)
	 */
	PMUCTL_R_HYBRID_CPU = 41,
	/*
	 * The generic model (PMUCTL_MODEL_ARCH, a CPU without a model table)
	 * takes the architectural events of CPUID.0AH:EBX and the fixed-counter
	 * encodings only: a model-specific event may have counter constraints
	 * or an extra MSR (OFFCORE_RSP, PEBS_LD_LAT, PEBS_FRONTEND) pmuctl
	 * does not know there.
	 */
	PMUCTL_R_NOT_ARCHITECTURAL = 42, /* not an architectural event (generic model) */
	/* task scope */
	PMUCTL_R_TASK_BUSY = 43,	/* the thread is counted by a task-scope session already */
	/*
	 * The event selects an extra MSR pmuctl does not arbitrate (Crestmont's
	 * MSR_SNOOP_RSP_0/1 through 0x0127/0x0227): counting it would use
	 * whatever that MSR holds.
	 */
	PMUCTL_R_EXTRA_UNSUPPORTED = 44,
	/*
	 * Hybrid CPUs: the CPUs of a CPU-scope group are not all of one core
	 * type (err_cpu: the first of another type than the lowest CPU's),
	 * or a CPU's type is not known yet (err_cpu: it; it has not been
	 * online since the module loaded); a task-scope group, which would
	 * follow its thread across core types, while CPUs of more than one
	 * type (or of a type not known yet) exist.
	 */
	PMUCTL_R_CPU_TYPE = 45,
	/*
	 * A topdown metric event (event 0, umask 0x80 and up) on a PMU
	 * without PERF_METRICS (PMUCTL_CAP_PERF_METRICS), past the metrics
	 * its model has (4 on Ice Lake, 8 from Golden Cove on), or in a
	 * task-scope group.
	 */
	PMUCTL_R_METRICS_UNAVAILABLE = 46,
	/*
	 * A topdown metric event whose group has no TOPDOWN.SLOTS 0x0400
	 * event at the same privilege levels (USR, OS).
	 */
	PMUCTL_R_METRICS_NEED_SLOTS = 47,
	/*
	 * PMUCTL_CFG_UMASK2 or PMUCTL_CFG_EQ set where CPUID.(23H,0):EBX does
	 * not enumerate it (PMUCTL_CAP_UMASK2, PMUCTL_CAP_EQ): the bits are
	 * reserved there, and the event it names does not exist.
	 */
	PMUCTL_R_UMASK2_UNAVAILABLE = 48,
	PMUCTL_R_EQ_UNAVAILABLE = 49,
	/* PMUCTL_PROGRAM_REPLACE on a session that holds no group (ENOENT). */
	PMUCTL_R_NOT_PROGRAMMED = 50,
	/*
	 * PMUCTL_PROGRAM_REPLACE of a task-scope group, or with a CPU bitmap
	 * other than the group's: a replacement keeps the scope and the CPUs.
	 */
	PMUCTL_R_REPLACE_SCOPE = 51,
	PMUCTL_R_NR
};

/* Free in Documentation/userspace-api/ioctl/ioctl-number.rst (Linux 6.1). */
#define PMUCTL_IOC_MAGIC	0xd8

#define PMUCTL_IOC_INFO		_IOWR(PMUCTL_IOC_MAGIC, 0x00, struct pmuctl_info)
#define PMUCTL_IOC_PROGRAM	_IOWR(PMUCTL_IOC_MAGIC, 0x01, struct pmuctl_program)
#define PMUCTL_IOC_START	_IOW(PMUCTL_IOC_MAGIC, 0x02, struct pmuctl_ctl)
#define PMUCTL_IOC_STOP		_IOW(PMUCTL_IOC_MAGIC, 0x03, struct pmuctl_ctl)
#define PMUCTL_IOC_RESET	_IOW(PMUCTL_IOC_MAGIC, 0x04, struct pmuctl_ctl)
#define PMUCTL_IOC_READ		_IOWR(PMUCTL_IOC_MAGIC, 0x05, struct pmuctl_read)
#define PMUCTL_IOC_RELEASE	_IOW(PMUCTL_IOC_MAGIC, 0x06, struct pmuctl_ctl)
#define PMUCTL_IOC_RDPMC	_IOW(PMUCTL_IOC_MAGIC, 0x07, struct pmuctl_ctl)
#define PMUCTL_IOC_THREADS	_IOWR(PMUCTL_IOC_MAGIC, 0x08, struct pmuctl_threads)

#endif /* _UAPI_LINUX_PMUCTL_H */
