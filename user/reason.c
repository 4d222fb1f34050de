// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * One table entry per enum pmuctl_reason value, indexed by the value
 * itself: a hole reads as NULL and is reported as unknown, and a code
 * appended to the uapi enum without an entry here fails the build.
 */
#include <stdio.h>

#include <linux/pmuctl.h>

#include "reason.h"

struct reason_desc {
	const char *name;
	const char *text;
};

#define R(code, txt)	[PMUCTL_R_##code] = { #code, txt }

static const struct reason_desc reasons[] = {
	R(NONE, "no error"),

	/* ABI rules */
	R(BAD_FLAGS,
	  "a flags field has a bit this module does not know: clear it, or ask the module's info which flags it supports"),
	R(RESERVED_FIELD,
	  "a reserved field is not zero: zero the whole structure before filling it in"),
	R(OUTPUT_NOT_ZERO,
	  "retired: output fields are ignored on input (a module of this ABI never returns it)"),
	R(TOO_MANY_EVENTS,
	  "the request has more events than the module takes at once (PMUCTL_MAX_EVENTS): split it into smaller groups"),

	/* one event */
	R(RESERVED_BITS,
	  "config bits 32-63 are reserved (but for eq, bit 36, and umask2, bits 40-47, where CPUID leaf 23H enumerates them): keep to the PERFEVTSEL bits 0-31 (event, umask, u, k, e, t, i, c)"),
	R(KERNEL_BITS,
	  "the enable (bit 22) and interrupt (bit 20) bits belong to the kernel: clear them in config"),
	R(PIN_CONTROL,
	  "pin control (bit 19) is never allowed: clear it in config"),
	R(NO_PRIV_LEVEL,
	  "the event counts at no privilege level: set u (user, bit 16), k (kernel, bit 17) or both"),
	R(EDGE_NO_CMASK,
	  "edge detect (e) counts transitions of the cmask comparison: give a counter mask c >= 1"),
	R(ANY_NOT_ALLOWED,
	  "AnyThread (t, bit 21) is not allowed for this event on this PMU: drop it"),
	R(EVENT_UNAVAILABLE,
	  "CPUID leaf 0xA marks this architectural event unavailable on this CPU: choose another event"),
	R(NO_ELIGIBLE_COUNTER,
	  "no counter of this PMU can count the event as configured: check the event's counter constraints and modifiers"),
	R(EXTRA_UNEXPECTED,
	  "this event has no extra MSR, so its extra value must be 0: drop the extra value"),
	R(EXTRA_MASK,
	  "the extra value sets bits its MSR does not implement on this PMU: keep to the register's valid bits"),
	R(OFFCORE_NO_REQUEST,
	  "an offcore response value needs at least one request type: add one, e.g. dmnd_data_rd"),
	R(OFFCORE_NO_RESPONSE,
	  "an offcore response value needs a response: add any_response or a supplier and snoop"),
	R(OFFCORE_ANY_RESPONSE_MIXED,
	  "any_response already covers every supplier and snoop: use either any_response or specific responses, not both"),
	R(OUTSTANDING_ON_RSP1,
	  "outstanding exists only in OFFCORE_RSP_0: use it with offcore_response_0"),
	R(OUTSTANDING_WITH_RESPONSE,
	  "outstanding counts pending requests and takes request bits only: drop every response bit (any_response, suppliers, snoops)"),
	R(UNPRIV_KERNEL_MODE,
	  "an unprivileged session may count user mode only: drop k (kernel, bit 17) or use a privileged session"),
	R(UNPRIV_ANY_THREAD,
	  "an unprivileged session may not count the other hardware threads: drop t (AnyThread, bit 21) or use a privileged session"),

	/* a group on one CPU */
	R(COUNTERS_BUSY,
	  "every counter that can count this event is already taken: count fewer events at once, or free counters"),
	R(OFFCORE_RSP0_BUSY,
	  "MSR_OFFCORE_RSP_0 holds another value and this one cannot move to MSR_OFFCORE_RSP_1: use the same value or fewer offcore events"),
	R(OFFCORE_RSP1_BUSY,
	  "MSR_OFFCORE_RSP_1 holds another value and this one cannot move to MSR_OFFCORE_RSP_0: use the same value or fewer offcore events"),
	R(OFFCORE_BOTH_BUSY,
	  "both OFFCORE_RSP MSRs hold other values: at most two different offcore response values can count at once"),
	R(FRONTEND_BUSY,
	  "MSR_PEBS_FRONTEND holds another value: frontend events counting at once must use the same qualifier"),
	R(LDLAT_BUSY,
	  "MSR_PEBS_LD_LAT_THRESHOLD holds another threshold: load-latency events counting at once must use the same threshold"),
	R(LATENCY_REQUEST_MISMATCH,
	  "in an average-latency pair offcore_response_1 must have exactly the request bits of offcore_response_0:outstanding: make the two request sets equal"),
	R(LATENCY_NO_ANY_RESPONSE,
	  "in an average-latency pair offcore_response_1 counts the requests and must use any_response: set any_response and no other response bit"),

	/* the CPU */
	R(NOT_INTEL,
	  "this is not a GenuineIntel CPU: pmuctl drives only the Intel core PMU"),
	R(NO_ARCH_PERFMON,
	  "the CPU reports no architectural perfmon v2+ with generic counters (CPUID leaf 0xA): in a VM, expose the PMU to the guest"),

	/* the device */
	R(PERF_BUSY,
	  "perf holds the PMU counters (the NMI watchdog does by default), or on a perfmon v6 PMU under Linux 6.11+ has any CPU-wide event there, enabled or not: run 'sysctl kernel.nmi_watchdog=0' and stop other perf users"),
	R(BAD_CPU,
	  "the CPU set is empty or names a CPU this machine cannot have: give existing CPU numbers"),
	R(CPU_NOT_ALLOWED,
	  "retired: the module no longer checks CPUs against the caller's affinity (a module of this ABI never returns it)"),
	R(HW_FAULT,
	  "writing a PMU register faulted, so nothing was programmed: the PMU may be virtualized or taken by firmware"),
	R(ALREADY_PROGRAMMED,
	  "this session already holds a group: release it first, or open another session"),

	/* unprivileged sessions */
	R(UNPRIV_CPU_SCOPE,
	  "CPU-wide counting needs CAP_PERFMON or the module parameter paranoid <= 0 (as kernel.perf_event_paranoid for perf): count your own threads instead (task scope, e.g. pmuctl stat without -C), run as root, or ask the administrator for paranoid=0"),
	R(USER_LIMIT,
	  "this user would hold more counters on that CPU than the module parameter user_max_counters allows users without CAP_PERFMON: count fewer events, release other sessions' groups, or ask the administrator to raise it"),

	/* the device, continued */
	R(PERF_UNMANAGED,
	  "this is a perfmon v6 PMU on Linux 6.11 or later, where perf's counters live at MSR 0x1900+ and cannot be reserved, and perf could not be kept off with pmuctl's exclusive event on fixed counter 2 (see the kernel log): nothing was programmed"),
	R(COUNTER_IN_USE,
	  "a counter this group needs is already enabled on that CPU by someone else (firmware, a hypervisor, another driver): nothing was programmed; see err_cpu"),
	R(HYBRID_CPU,
	  "this is a hybrid CPU whose core type cannot be told (CPUID leaf 1AH is empty on a part pmuctl knows no rule for): the module does not load"),

	/* the generic model */
	R(NOT_ARCHITECTURAL,
	  "pmuctl has no event table for this CPU model and takes only the architectural events (cycles, instructions, reference cycles, LLC references and misses, branches, branch misses, topdown slots) and the fixed-counter encodings: use one of those"),

	/* task scope */
	R(TASK_BUSY,
	  "this thread is counted by a task-scope session already (its own, or one it inherited): release that group first, or count from another thread"),

	/* one event, continued */
	R(EXTRA_UNSUPPORTED,
	  "this event selects an extra MSR pmuctl does not program (Crestmont's MSR_SNOOP_RSP_0/1), so it would count with whatever that MSR holds: pmuctl refuses it"),

	/* hybrid CPUs */
	R(METRICS_UNAVAILABLE,
	  "this is a topdown metric event (event 0, umask 0x80 and up), and this PMU has no PERF_METRICS register (IA32_PERF_CAPABILITIES[15]) or not that metric (Ice Lake has 4, Golden Cove and later 8): use the TOPDOWN events on generic counters instead"),
	R(METRICS_NEED_SLOTS,
	  "a topdown metric event divides the slots of fixed counter 3: put TOPDOWN.SLOTS (0x0400, perf's 'slots') in the same group, with the same user/kernel levels"),
	R(UMASK2_UNAVAILABLE,
	  "umask2 (config bits 40-47) exists only where CPUID leaf 23H enumerates it (perfmon v6: Lion Cove, Skymont and later; pmuctl info shows 'umask2'): this PMU has no such event"),
	R(EQ_UNAVAILABLE,
	  "eq (config bit 36, cmask compares equal) exists only where CPUID leaf 23H enumerates it (perfmon v6: Lion Cove, Skymont and later; pmuctl info shows 'eq'): count cmask N and cmask N+1 on two counters and subtract"),
	R(CPU_TYPE,
	  "on this hybrid CPU the group's CPUs are not all of one core type (or one has not been online since the module loaded, so its type is not known): program one group per core type (pmuctl info lists which CPUs are which); task scope is refused while CPUs of more than one type exist, as a thread would move between PMUs"),

	/* replacing a group */
	R(NOT_PROGRAMMED,
	  "a replacement (PMUCTL_PROGRAM_REPLACE, pmuctl_replace()) needs a group to replace: program one first"),
	R(REPLACE_SCOPE,
	  "a replacement keeps the group's scope and CPUs: it replaces a CPU-scope group on exactly its CPUs; release and program instead"),
};

#undef R

_Static_assert(sizeof(reasons) / sizeof(reasons[0]) == PMUCTL_R_NR,
	       "every enum pmuctl_reason value needs an entry in reasons[]");

static const struct reason_desc *reason_find(uint32_t r)
{
	if (r >= PMUCTL_R_NR || !reasons[r].name)
		return NULL;
	return &reasons[r];
}

const char *pmuctl_reason_name(uint32_t r)
{
	const struct reason_desc *d = reason_find(r);

	return d ? d->name : "UNKNOWN";
}

const char *pmuctl_reason_text(uint32_t r)
{
	static _Thread_local char buf[32];
	const struct reason_desc *d = reason_find(r);

	if (d)
		return d->text;
	snprintf(buf, sizeof(buf), "unknown reason %u", (unsigned int)r);
	return buf;
}
