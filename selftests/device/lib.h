/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the /dev/pmuctl selftests (selftests/device/): the
 * device's ioctls returning 0 or -errno, the debugfs files of pmuctl.ko
 * and of its register model parsed into plain structs, the rdpmc probe,
 * CPU pinning and "peer" processes that hold sessions of their own.
 *
 * Nothing here uses the kselftest harness: the tests do the checking.
 *
 * debugfs (kmod/state.c, kmod/regmodel.c):
 *   pmuctl/state       "programmed N", "waves N", "perf_reserved 0|1",
 *                      "cpu C counter 0xCTR owner ID",
 *                      "cpu C msr 0xMSR value 0xV refcount R"
 *   pmuctl/regs        "cpu N msr 0xMSR 0xVALUE"; write "CPU MSR VALUE"
 *   pmuctl/fail_write  write a CPU: its next MSR write faults ("CPU N",
 *                      "CPU always", "CPU off", "... after K": regmodel.c)
 *   pmuctl/state also  "cpu C poisoned" (a write faulted there: hw.c)
 *   pmuctl/suspends    times the model lost the boot CPU's registers
 *   pmuctl/reboot      (test build) run the reboot notifier
 */
#ifndef PMUCTL_SELFTESTS_DEVICE_LIB_H
#define PMUCTL_SELFTESTS_DEVICE_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "core.h"	/* the ABI, its sizes pinned by static_assert */

#define DEV_PATH	"/dev/pmuctl"
#define DBG_DIR		"/sys/kernel/debug/pmuctl"
#define DBG_STATE	DBG_DIR "/state"
#define DBG_REGS	DBG_DIR "/regs"
#define DBG_FAIL	DBG_DIR "/fail_write"
/* The register-model test build's parameters: its own module name (Kbuild). */
#define PARAM_DIR	"/sys/module/pmuctl_regmodel/parameters"
/*
 * A parameter both builds have (rdpmc, paranoid, ...), under the name of
 * the build loaded: pmuctl_regmodel in the register-model guests, pmuctl
 * in the emulated-PMU ones.  One of 4 static buffers, reused in turn.
 */
const char *param_path(const char *name);

/* PERFEVTSEL bits, short names for tables (uapi/linux/pmuctl.h). */
#define USR		PMUCTL_CFG_USR
#define OS		PMUCTL_CFG_OS
#define EDGE		PMUCTL_CFG_EDGE
#define PC		PMUCTL_CFG_PC
#define INT		PMUCTL_CFG_INT
#define ANY		PMUCTL_CFG_ANY
#define EN		PMUCTL_CFG_EN
#define INV		PMUCTL_CFG_INV
#define CMASK(n)	((__u64)(n) << PMUCTL_CFG_CMASK_SHIFT)
#define BIT(n)		(1ULL << (n))
#define GONLY		PMUCTL_EVENT_GENERIC_ONLY
#define FIXED(i)	(PMUCTL_COUNTER_FIXED | (i))

/* MSRs [SDM vol. 4; FACTS 1]. */
#define MSR_EVTSEL(i)		(0x186 + (i))
#define MSR_PMC(i)		(0xc1 + (i))
#define MSR_A_PMC(i)		(0x4c1 + (i))
#define MSR_FIXED_CTR(i)	(0x309 + (i))
#define MSR_FIXED_CTRL		0x38d
#define MSR_GLOBAL_CTRL		0x38f
#define MSR_RSP0		0x1a6
#define MSR_RSP1		0x1a7
#define MSR_LDLAT		0x3f6
#define MSR_FRONTEND		0x3f7
#define MSR_PERF_METRICS	0x329

/* Event codes (event | umask << 8) [FACTS 1-2]. */
#define EV_INST		0x00c0	/* INST_RETIRED.ANY: fixed 0 */
#define EV_CYCLES	0x003c	/* CPU_CLK_UNHALTED.THREAD: fixed 1 */
#define EV_REF		0x0300	/* CPU_CLK_UNHALTED.REF_TSC: fixed 2 only */
#define EV_LLC_REF	0x4f2e	/* LONGEST_LAT_CACHE.REFERENCE */
#define EV_LLC_MISS	0x412e	/* LONGEST_LAT_CACHE.MISS */
#define EV_BR		0x00c4	/* BR_INST_RETIRED.ALL_BRANCHES */
#define EV_BR_MISS	0x00c5	/* BR_MISP_RETIRED.ALL_BRANCHES */
#define EV_SLOTS	0x01a4	/* TOPDOWN.SLOTS: architectural event 7 */
#define KNM_RSP0	0x01b7
#define KNM_RSP1	0x02b7
#define SKL_RSP0	0x01b7
#define SKL_RSP1	0x01bb
/* Golden Cove and later: the OCR events [LNX 6.12 intel_glc_extra_regs]. */
#define SPR_RSP0	0x012a
#define SPR_RSP1	0x012b

/* The model's OFFCORE_RESPONSE event selects for RSP_0 and RSP_1 [kmod/core/model.c]. */
static inline __u64 model_rsp0(__u32 pmu_model)
{
	switch (pmu_model) {
	case PMUCTL_MODEL_SPR:
	case PMUCTL_MODEL_GNR:
	case PMUCTL_MODEL_ADL_GLC:
	case PMUCTL_MODEL_LNL_LNC:
		return SPR_RSP0;
	}
	return SKL_RSP0;	/* KNL/KNM and the Atoms: 0x01b7 too */
}

static inline __u64 model_rsp1(__u32 pmu_model)
{
	switch (pmu_model) {
	case PMUCTL_MODEL_KNL:
	case PMUCTL_MODEL_KNM:
	case PMUCTL_MODEL_ADL_GRT:
	case PMUCTL_MODEL_SRF:
	case PMUCTL_MODEL_LNL_SKT:
		return KNM_RSP1;	/* 0x02b7 */
	case PMUCTL_MODEL_SPR:
	case PMUCTL_MODEL_GNR:
	case PMUCTL_MODEL_ADL_GLC:
	case PMUCTL_MODEL_LNL_LNC:
		return SPR_RSP1;
	}
	return SKL_RSP1;
}
#define SKL_FE		0x01c6	/* FRONTEND_RETIRED -> MSR_PEBS_FRONTEND */
#define SKL_LDLAT	0x01cd	/* MEM_TRANS_RETIRED.LOAD_LATENCY */

/* Offcore fields [libpfm4 intel_knl_events.h; FACTS 2]. */
#define REQ0		BIT(0)		/* DMND_DATA_RD */
#define REQ1		BIT(1)		/* DMND_RFO */
#define REQ2		BIT(2)		/* DMND_CODE_RD */
#define PWR		BIT(8)		/* PARTIAL_WRITES: KNM RSP_1 only */
#define ANYRSP		BIT(16)		/* ANY_RESPONSE */
#define NONDRAM		(BIT(37) | BIT(17))
#define OUTST		BIT(38)		/* OUTSTANDING: KNM RSP_0 only */

#define NO_CPU		0xffffffffU	/* pmuctl_program.err_cpu: not CPU-specific */

/* ---- the device ---------------------------------------------------- */

/* Why the device cannot be tested here, or NULL: decided in main(). */
const char *dev_unusable(void);
int dev_open(void);				/* fd or -errno */
int dev_ioctl(int fd, unsigned long cmd, void *arg);	/* 0 or -errno */
int dev_info(int fd, struct pmuctl_info *info);
/* PROGRAM @n events on the CPUs of the one-word bitmap @cpus; *p filled. */
int dev_program(int fd, struct pmuctl_event *ev, __u32 n, __u64 cpus,
		struct pmuctl_program *p);
/* PROGRAM with PMUCTL_PROGRAM_REPLACE: the session's group swapped. */
int dev_replace(int fd, struct pmuctl_event *ev, __u32 n, __u64 cpus,
		struct pmuctl_program *p);
int dev_ctl(int fd, unsigned long cmd);
int dev_read(int fd, __u32 cpu, __u64 *val, __u32 nr);
struct pmuctl_event ev_make(__u64 config, __u64 extra, __u32 flags);

/* CPU numbers: nr_cpu_ids as sysfs says, and how many are online. */
unsigned int cpus_possible(void);
unsigned int cpus_online(void);
/*
 * Why this guest cannot run the CPU hotplug tests (fewer than @needed
 * online CPUs, CPUs 1..@needed-1 that cannot go offline, no register
 * model), or NULL.
 */
const char *hotplug_unfit(int needed);
/*
 * Run @fn(@arg) in a forked child, as nobody (uid and gid 65534, no
 * groups) when @as_nobody.  Return: the child's exit status (0: @fn ran
 * to its end; 2: the ids could not be dropped), -1 if it died of a
 * signal, -errno if fork or wait failed.
 */
int child_run(bool as_nobody, void (*fn)(void *), void *arg);
int pin_cpu(int cpu);				/* 0 or -errno */
int cpu_set_online(int cpu, bool online);	/* 0 or -errno */
/* CPU 0, or one whose sysfs "online" reads other than 0 (or has none). */
bool cpu_online(int cpu);

/* Suspend to RAM under the register model (pm_test "core", regmodel's count). */
#define PM_TEST		"/sys/power/pm_test"
#define PM_STATE	"/sys/power/state"
#define DBG_SUSPENDS	DBG_DIR "/suspends"
/* Times the register model lost the boot CPU's registers to a suspend, or -1. */
long regs_suspends(void);

/* ---- files ----------------------------------------------------------- */

/* The whole file, NUL-terminated, or NULL (errno set); free() it. */
char *slurp(const char *path);
int write_str(const char *path, const char *s);	/* 0 or -errno */
/* Make sure debugfs (and sysfs) are mounted; true if pmuctl's folder is there. */
bool debugfs_ready(void);
bool have_regs(void);

/* state and regs, raw: byte-identical comparisons. */
struct snap {
	char *state;
	char *regs;		/* NULL without the register model */
};
int snap_take(struct snap *s);
void snap_free(struct snap *s);
/* NULL if equal, else a static description of the first difference. */
const char *snap_diff(const struct snap *a, const struct snap *b,
		      bool ignore_waves);

/* pmuctl/state, parsed. */
#define ST_MAX 256
struct pstate {
	unsigned int programmed, perf_reserved;
	unsigned long waves;
	unsigned int nown, nx;
	struct { __u32 cpu, counter, owner; } own[ST_MAX];
	struct { __u32 cpu, msr, refcount; __u64 value; } x[ST_MAX];
};
int state_read(struct pstate *st);		/* 0 or -errno */
/* Owner of a counter (rdpmc ECX value) on a CPU, 0 if free. */
__u32 state_owner(const struct pstate *st, __u32 cpu, __u32 counter);
/* Refcount of an extra MSR on a CPU (0 if free); its value in *val. */
__u32 state_xref(const struct pstate *st, __u32 cpu, __u32 msr, __u64 *val);
/* Lines of cpu @cpu: counters held plus extra MSR slots. */
unsigned int state_cpu_claims(const struct pstate *st, __u32 cpu);

/* pmuctl/regs, parsed. */
#define RG_MAX 512
struct pregs {
	unsigned int n;
	struct { __u32 cpu, msr; __u64 val; } r[RG_MAX];
};
int regs_read(struct pregs *rg);		/* 0 or -errno */
/* Value of @msr on @cpu; ~0ULL if the model has no such register. */
__u64 regs_get(const struct pregs *rg, __u32 cpu, __u32 msr);
int regs_preset(__u32 cpu, __u32 msr, __u64 val);	/* 0 or -errno */
/*
 * @n more events in @msr of @cpu, which must be the caller's: one step the
 * caller cannot be switched out of (-EAGAIN if it runs elsewhere).
 */
int regs_add_here(__u32 cpu, __u32 msr, __u64 n);	/* 0 or -errno */
/* Preset every register the model lists to 0, on every CPU. */
int regs_zero_all(void);
int fail_next_write(__u32 cpu);			/* 0 or -errno */

/* ---- rdpmc ------------------------------------------------------------ */

/*
 * Execute rdpmc(ecx) and say how it ended: 0 (it ran: a PMU with CR4.PCE
 * set), SIGILL (CR4.PCE set under QEMU TCG, which has no rdpmc) or SIGSEGV
 * (#GP: CR4.PCE clear) [FACTS 4].
 */
int rdpmc_probe(__u32 ecx);
static inline bool rdpmc_granted(int sig)
{
	return sig == 0 || sig == SIGILL;
}

/* ---- peers: processes holding sessions of their own ---------------------- */

#define PEER_EVENTS 8

enum peer_op {
	PEER_PROGRAM,	/* ev/n/cpus -> ret, prog, ev */
	PEER_CTL,	/* cmd -> ret */
	PEER_RDPMC,	/* -> sig */
	PEER_PIN,	/* cpu -> ret */
	PEER_PINGPONG,	/* rounds: answer each byte, probing rdpmc -> ngranted */
	PEER_EXIT,	/* _exit(0) without RELEASE or close */
};

struct peer_req {
	__u32 op;
	__u32 n;
	__u64 cpus;
	unsigned long cmd;
	int cpu;
	int rounds;
	struct pmuctl_event ev[PEER_EVENTS];
};

struct peer_rep {
	int ret;
	int sig;
	int ngranted;
	struct pmuctl_program prog;
	struct pmuctl_event ev[PEER_EVENTS];
};

/* All of @len bytes, through EINTR and short transfers: 0, or -1 (EOF, error). */
int read_full(int fd, void *buf, size_t len);
int write_full(int fd, const void *buf, size_t len);

struct peer {
	pid_t pid;
	int to, from;		/* request and reply pipes */
	int ping, pong;		/* ping-pong pipes, parent side */
};

/*
 * Fork a peer.  @fd < 0: it opens a session of its own; else it keeps the
 * inherited @fd (the same session).  Every other inherited descriptor is
 * closed, so the test's own session file is never held by a peer.
 */
int peer_spawn(struct peer *p, int fd);
int peer_call(struct peer *p, const struct peer_req *rq, struct peer_rep *rp);
int peer_program(struct peer *p, const struct pmuctl_event *ev, __u32 n,
		 __u64 cpus, struct peer_rep *rp);
/* The reply a PEER_PINGPONG request sends after its last round. */
int peer_reply(struct peer *p, struct peer_rep *rp);
/* One ping-pong round trip with a peer in PEER_PINGPONG. */
int peer_pingpong_round(struct peer *p);
/* Kill with @sig (0: ask it to exit) and reap; the wait status. */
int peer_end(struct peer *p, int sig);
void peer_kill_all(struct peer *p, unsigned int n);

/* Poll pmuctl/state for up to @ms until no session holds anything: 0 or -EBUSY. */
int state_wait_clean(unsigned int ms);

/* ---- user-space CPUID ------------------------------------------------------- */

struct ucpu {
	__u32 family, model, stepping;
	__u32 leafa_eax, leafa_ebx, leafa_edx;
	bool intel;
};
void ucpu_read(struct ucpu *c);
/* PMUCTL_MODEL_* that CPU's family/model gets [kmod/core/model.c, FACTS 1]. */
__u32 expected_model(__u32 family, __u32 model);

/*
 * main() for a device test program: without a usable /dev/pmuctl, the
 * whole program is one SKIP with the reason (the harness is not run).
 */
#define DEVICE_TEST_MAIN						\
	static void __attribute__((constructor))			\
	__constructor_order_last(void)					\
	{								\
		if (!__constructor_order)				\
			__constructor_order = _CONSTRUCTOR_ORDER_BACKWARD; \
	}								\
	int main(int argc, char **argv)					\
	{								\
		const char *why = dev_unusable();			\
									\
		if (why) {						\
			ksft_print_header();				\
			ksft_exit_skip("%s\n", why);			\
		}							\
		return test_harness_run(argc, argv);			\
	}

/* Harness comparisons of unsigned fields, whatever their width. */
#define EXPECT_U64(want, got)	EXPECT_EQ((__u64)(want), (__u64)(got))
#define ASSERT_U64(want, got)	ASSERT_EQ((__u64)(want), (__u64)(got))

/*
 * In a test body (kselftest harness): state and regs are byte-identical to
 * @before, the snapshot taken just before a call that had to be refused.
 */
#define EXPECT_UNCHANGED(before, ignore_waves) do {			\
	struct snap __after;						\
	const char *__d;						\
									\
	ASSERT_EQ(0, snap_take(&__after));				\
	__d = snap_diff((before), &__after, (ignore_waves));		\
	EXPECT_TRUE(__d == NULL) TH_LOG("changed: %s", __d);		\
	snap_free(&__after);						\
} while (0)

/* ---- task scope (uapi/linux/pmuctl.h, "Task scope") ------------------------ */

/*
 * PROGRAM @n events for the calling thread: PMUCTL_PROGRAM_TASK | @flags,
 * no CPU bitmap; *p filled.
 */
int dev_program_task(int fd, struct pmuctl_event *ev, __u32 n, __u32 flags,
		     struct pmuctl_program *p);
/* READ of a task-scope session (cpu 0) with @flags; the struct in *r. */
int dev_read_task(int fd, __u32 flags, __u64 *val, __u32 nr,
		  struct pmuctl_read *r);

/*
 * pmuctl/log of the register model (kmod/regmodel.c): "writes N", then
 * the last (at most 64) MSR writes, oldest first, as
 * "cpu C msr 0xMSR 0xVALUE err E" (the value as the model kept it).
 */
#define DBG_LOG		DBG_DIR "/log"
#define LOG_MAX		64
struct plog {
	unsigned long writes;	/* writes since the module loaded */
	unsigned int n;
	struct { __u32 cpu, msr; __u64 val; int err; } w[LOG_MAX];
};
int log_read(struct plog *lg);			/* 0 or -errno */
/* Index in lg->w of the last write of @msr on @cpu, or -1. */
int log_last(const struct plog *lg, __u32 cpu, __u32 msr);
/* Writes of @msr on @cpu in the log. */
unsigned int log_count(const struct plog *lg, __u32 cpu, __u32 msr);

#endif /* PMUCTL_SELFTESTS_DEVICE_LIB_H */
