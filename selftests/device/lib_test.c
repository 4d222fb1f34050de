// SPDX-License-Identifier: GPL-2.0
/*
 * libpmuctl end to end against pmuctl.ko (user/libpmuctl.h is the contract):
 *
 *  - open reads INFO (the same bytes the ioctl gives) and the holdings;
 *  - events by libpfm4 name for the module's own PMU
 *    (pmuctl_pfm_pmu_name(info->pmu_model)) encode to the SDM's values and
 *    program; pmuctl_get_counters() repeats the PROGRAM reply;
 *  - start, stop, reset and release drive the registers (the test register
 *    model's debugfs "regs" shows them) on every CPU of the group;
 *  - pmuctl_read_values() returns what the register model holds, CPU by CPU;
 *  - the inline read path (pmuctl_read_counter(), pmuctl_read_counters()
 *    with 7 and with 1, the _serialized forms, pmuctl_delta() across a wrap)
 *    returns the same values through the library's rdpmc emulation: the
 *    register model counts nothing, so a real rdpmc could not, and under
 *    QEMU TCG rdpmc faults anyway: SIGILL when the module granted it,
 *    SIGSEGV when not [FACTS 4].  Each read-path test first proves with a
 *    bare rdpmc that the grant is what INFO says, then takes the library's
 *    path, under both values of the module parameter rdpmc (as in
 *    rdpmc_test.c);
 *  - PMUCTL_OPEN_NO_EMULATION leaves the fault to the program;
 *  - pmuctl_rdpmc_thread() grants rdpmc to the calling thread, a thread of
 *    the process that programmed, and to no other process;
 *  - the emulation answers only for rdpmc of a programmed session on one of
 *    its CPUs: every other SIGSEGV or SIGILL reaches the handler installed
 *    before (or kills, as by default), and after release or close the
 *    session's counters fault again.
 *
 * Needs /dev/pmuctl (a SKIP decided in main() without it); the read-path
 * tests need the register-model build (a SKIP at the top of each body).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib.h"
#include "libpmuctl.h"
#include "kselftest_harness.h"

#define RDPMC_PARAM	param_path("rdpmc")
#define MAXCPU		64

/*
 * Events by libpfm4 name and the PERFEVTSEL image each must encode to:
 * architectural events [SDM vol. 3B, "Pre-defined Architectural Performance
 * Events"; FACTS 1], USR (bit 16) for ":u", OS (bit 17) for ":k".  The
 * names exist in libpfm4's knm, knl, skl and ix86arch tables.  Reference
 * cycles are libpfm4's fixed-counter pseudo event 0x0300 on knl/knm/skl and
 * the architectural 0x013c on ix86arch.
 */
struct named {
	const char *name;
	uint64_t config;
};

#define NAMED_REF	"unhalted_reference_cycles:u"

static const struct named group7[] = {
	{ "instruction_retired:u", EV_INST | USR },
	{ "unhalted_core_cycles:u", EV_CYCLES | USR },
	{ NAMED_REF, EV_REF | USR },
	{ "branch_instructions_retired:u", EV_BR | USR },
	{ "mispredicted_branch_retired:u", EV_BR_MISS | USR },
	{ "branch_instructions_retired:k", EV_BR | OS },
	{ "mispredicted_branch_retired:k", EV_BR_MISS | OS },
};

/* 3 fixed + 2 generic: what every model the rig boots has (KNM: 2 generic). */
#define N5	5

/* ---- signals ----------------------------------------------------------- */

/*
 * The "handler the program installed before": installed ahead of the
 * library's, it records the signal and the faulting address and jumps
 * back to attempt().  A fault the emulation wrongly keeps never reaches it;
 * one it wrongly passes on does.
 */
static sigjmp_buf catch_env;
static volatile sig_atomic_t catch_sig, catch_calls;
static void *volatile catch_addr;
static int *volatile null_ptr;

static void catcher(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	catch_sig = sig;
	catch_addr = si->si_addr;
	catch_calls++;
	siglongjmp(catch_env, 1);
}

static int catch_install(void)
{
	struct sigaction sa = { .sa_sigaction = catcher, .sa_flags = SA_SIGINFO };

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, NULL) || sigaction(SIGILL, &sa, NULL))
		return -errno;
	return 0;
}

/* What attempt() executes. */
enum attempt_op {
	READ_ONE,		/* v[0] = pmuctl_read_counter(c, n) */
	READ_ONE_SER,		/* v[0] = pmuctl_read_counter_serialized(c, n) */
	READ_MANY,		/* pmuctl_read_counters(c, v, n), n = 1, 5 or 7 */
	READ_MANY_SER,		/* pmuctl_read_counters_serialized(c, v, n) */
	NULL_STORE,		/* *NULL = 1 */
	UD2,			/* an undefined instruction */
};

/*
 * Execute @op; the signal the catcher got meanwhile (0: none reached it).
 * The counts of pmuctl_read_counters() are literals: the constant @n the
 * header says makes the loop disappear.
 */
static __attribute__((noinline)) int attempt(enum attempt_op op,
					     const struct pmuctl_counters *c,
					     unsigned int n, uint64_t *v)
{
	catch_sig = 0;
	if (sigsetjmp(catch_env, 1))
		return catch_sig;
	switch (op) {
	case READ_ONE:
		v[0] = pmuctl_read_counter(c, n);
		break;
	case READ_ONE_SER:
		v[0] = pmuctl_read_counter_serialized(c, n);
		break;
	case READ_MANY:
		if (n == 7)
			pmuctl_read_counters(c, v, 7);
		else if (n == 5)
			pmuctl_read_counters(c, v, 5);
		else if (n == 1)
			pmuctl_read_counters(c, v, 1);
		else
			return -1;
		break;
	case READ_MANY_SER:
		if (n == 7)
			pmuctl_read_counters_serialized(c, v, 7);
		else if (n == 5)
			pmuctl_read_counters_serialized(c, v, 5);
		else if (n == 1)
			pmuctl_read_counters_serialized(c, v, 1);
		else
			return -1;
		break;
	case NULL_STORE:
		*null_ptr = 1;
		break;
	case UD2:
		__asm__ __volatile__("ud2");
		break;
	}
	return 0;
}

/* Is a handler other than SIG_DFL/SIG_IGN installed for @sig? */
static bool has_handler(int sig)
{
	struct sigaction old;

	if (sigaction(sig, NULL, &old))
		return false;
	if (old.sa_flags & SA_SIGINFO)
		return old.sa_sigaction != NULL;
	return old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN;
}

/* ---- helpers --------------------------------------------------------------- */

static uint64_t width_mask(unsigned int width)
{
	return width >= 64 ? ~0ULL : (1ULL << width) - 1;
}

static bool is_fixed(__u32 ecx)
{
	return ecx & PMUCTL_COUNTER_FIXED;
}

static __u32 counter_msr(__u32 ecx)
{
	if (is_fixed(ecx))
		return MSR_FIXED_CTR(ecx & ~PMUCTL_COUNTER_FIXED);
	return MSR_PMC(ecx);
}

/* Index of a counter in struct pmuctl_holding.owner[]. */
static unsigned int holding_index(__u32 ecx)
{
	return is_fixed(ecx) ? 32 + (ecx & ~PMUCTL_COUNTER_FIXED) : ecx;
}

/*
 * A distinct preset per CPU and event: below 2^31, so the legacy
 * IA32_PMCx write (32 bits, sign-extended [SDM; FACTS 1]) keeps it whole.
 */
static uint64_t preset_value(unsigned int cpu, unsigned int i)
{
	return 0x10000000ULL + cpu * 0x10000ULL + (i + 1) * 0x100ULL + 0x5a;
}

static uint64_t model_config(const struct pmuctl_info *info, const struct named *e)
{
	if (info->pmu_model == PMUCTL_MODEL_ARCH && !strcmp(e->name, NAMED_REF))
		return 0x013c | USR;	/* UNHALTED_REFERENCE_CYCLES */
	return e->config;
}

/*
 * libpfm4's tables for Ice Lake and later (icl, icx, spr) have no
 * architectural aliases for the branch events: the same encodings
 * (0x00c4, 0x00c5) are spelled with their umask there.
 */
static const struct {
	const char *arch, *umask;
} branch_names[] = {
	{ "branch_instructions_retired", "br_inst_retired:all_branches" },
	{ "mispredicted_branch_retired", "br_misp_retired:all_branches" },
};

/* @name as @pmu's libpfm4 table spells it, appended to @buf. */
static void spell(char *buf, const char *pmu, const char *name)
{
	unsigned int i;
	size_t len;

	if (strcmp(pmu, "icl") && strcmp(pmu, "icx") && strcmp(pmu, "spr")) {
		strcat(buf, name);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(branch_names); i++) {
		len = strlen(branch_names[i].arch);
		if (!strncmp(name, branch_names[i].arch, len) &&
		    (name[len] == ':' || !name[len])) {
			strcat(buf, branch_names[i].umask);
			strcat(buf, name + len);
			return;
		}
	}
	strcat(buf, name);
}

/* "a,b,c" of the first @n names of @t, as @pmu spells them. */
static const char *name_list(const char *pmu, const struct named *t, unsigned int n)
{
	static char buf[512];
	unsigned int i;

	buf[0] = 0;
	for (i = 0; i < n; i++) {
		if (i)
			strcat(buf, ",");
		spell(buf, pmu, t[i].name);
	}
	return buf;
}

/*
 * Parse the first @n events of @t with the model's libpfm4 PMU, check each
 * encoding, and program them: on @cpu (the calling thread pinned there) or,
 * for @cpu < 0, on every CPU of the thread's affinity.  0 or -errno.
 */
static int program_named(struct __test_metadata *_metadata, struct pmuctl *p,
			 const struct named *t, unsigned int n, int cpu,
			 struct pmuctl_event *ev)
{
	const struct pmuctl_info *info = pmuctl_get_info(p);
	const char *pmu = pmuctl_pfm_pmu_name(info->pmu_model);
	struct pmuctl_error err = { 0 };
	char msg[256] = "", line[256];
	unsigned int bad = ~0U, i;
	int ret;

	ret = pmuctl_events_parse(pmu, name_list(pmu, t, n), ev, PMUCTL_MAX_EVENTS,
				  &bad, msg, sizeof(msg));
	EXPECT_EQ((int)n, ret) {
		TH_LOG("parse '%s' on %s: %d, event %u: %s", name_list(pmu, t, n),
		       pmu, ret, bad, msg);
	}
	if (ret != (int)n)
		return ret < 0 ? ret : -EINVAL;
	for (i = 0; i < n; i++) {
		EXPECT_U64(model_config(info, &t[i]), ev[i].config) {
			TH_LOG("%s on %s", t[i].name, pmu);
		}
		EXPECT_U64(0, ev[i].extra);
	}
	if (cpu < 0)
		ret = pmuctl_program(p, ev, n, NULL, 0, &err);
	else
		ret = pmuctl_program_cpu(p, cpu, ev, n, &err);
	EXPECT_EQ(cpu < 0 ? 0 : cpu, ret) {
		TH_LOG("program %s on CPU %d: %s", name_list(pmu, t, n), cpu,
		       pmuctl_strerror(ret, &err, line, sizeof(line)));
	}
	return ret < 0 ? ret : 0;
}

/* pmuctl_get_counters() repeats the PROGRAM reply; flags say how it reads. */
static void expect_counters(struct __test_metadata *_metadata,
			    const struct pmuctl *p,
			    const struct pmuctl_event *ev, unsigned int n,
			    bool emulation)
{
	const struct pmuctl_info *info = pmuctl_get_info(p);
	const struct pmuctl_counters *c = pmuctl_get_counters(p);
	bool real = info->backend == PMUCTL_BACKEND_MSR &&
		    info->rdpmc == PMUCTL_RDPMC_SESSION;
	__u32 want_flags = real ? PMUCTL_COUNTERS_RDPMC :
			   emulation ? PMUCTL_COUNTERS_EMULATED : 0;
	unsigned int i;

	ASSERT_NE(NULL, c);
	EXPECT_EQ(n, c->nr);
	EXPECT_EQ(want_flags, c->flags);
	for (i = 0; i < n && i < c->nr; i++) {
		uint64_t mask = width_mask(is_fixed(ev[i].counter) ?
					info->caps.fixed_width :
					info->caps.gp_width);

		EXPECT_EQ(ev[i].counter, c->ecx[i]) {
			TH_LOG("event %u", i);
		}
		EXPECT_U64(mask, c->mask[i]) {
			TH_LOG("event %u", i);
		}
		EXPECT_U64(ev[i].config, ev[i].config_used) {
			TH_LOG("event %u", i);
		}
	}
}

/*
 * Preset the group's counters on @cpu (preset_value() + @bias) through the
 * register model; *@want gets what the model then holds, which must be
 * exactly that.
 */
static void preset_cpu(struct __test_metadata *_metadata,
		       const struct pmuctl_counters *c, unsigned int cpu,
		       uint64_t bias, uint64_t *want)
{
	static struct pregs rg;
	unsigned int i;

	for (i = 0; i < c->nr; i++)
		ASSERT_EQ(0, regs_preset(cpu, counter_msr(c->ecx[i]),
					 preset_value(cpu, i) + bias));
	ASSERT_EQ(0, regs_read(&rg));
	for (i = 0; i < c->nr; i++) {
		want[i] = regs_get(&rg, cpu, counter_msr(c->ecx[i]));
		ASSERT_U64(preset_value(cpu, i) + bias, want[i]) {
			TH_LOG("cpu %u msr %#x", cpu, counter_msr(c->ecx[i]));
		}
	}
}

/*
 * A bare rdpmc of @ecx (not the library's path: rdpmc_probe() installs its
 * own handlers for the one instruction) ends as INFO says: granted, SIGILL
 * under TCG (0 on a PMU); not granted, SIGSEGV.  Proves the grant is real
 * before a test takes the emulated path.
 */
static void expect_bare_rdpmc(struct __test_metadata *_metadata,
			      const struct pmuctl_info *info, __u32 ecx)
{
	int sig = rdpmc_probe(ecx);

	if (info->rdpmc == PMUCTL_RDPMC_SESSION) {
		EXPECT_TRUE(rdpmc_granted(sig)) {
			TH_LOG("INFO says granted; rdpmc %#x raised signal %d, want SIGILL",
			       ecx, sig);
		}
	} else {
		EXPECT_EQ(SIGSEGV, sig) {
			TH_LOG("INFO says not granted; rdpmc %#x ended with signal %d, want SIGSEGV",
			       ecx, sig);
		}
	}
}

/* The counters and extra MSRs of the model, back to a clean state. */
static void model_clean(struct __test_metadata *_metadata)
{
	if (!have_regs())
		return;
	ASSERT_EQ(0, state_wait_clean(1000));
	ASSERT_EQ(0, regs_zero_all());
}

#define NEED_MODEL(info) do {						\
	if ((info)->backend != PMUCTL_BACKEND_MODEL || !have_regs())	\
		SKIP(return, "needs the register-model pmuctl.ko (%s)", DBG_REGS); \
} while (0)

/* ---- the session: open, names, program, control, READ -------------------- */

/* A thread that probes rdpmc, asks for it, and probes again. */
struct rdpmc_thr {
	struct pmuctl *p;
	int before, ret, after;
};

static void *rdpmc_thr_fn(void *arg)
{
	struct rdpmc_thr *t = arg;

	t->before = rdpmc_probe(0);
	t->ret = pmuctl_rdpmc_thread(t->p);
	t->after = rdpmc_probe(0);
	return NULL;
}

FIXTURE(lib) {
	struct pmuctl *p, *q;
	const struct pmuctl_info *info;
};

FIXTURE_SETUP(lib)
{
	if (debugfs_ready())
		model_clean(_metadata);
	ASSERT_EQ(0, pmuctl_open(NULL, 0, &self->p));
	self->info = pmuctl_get_info(self->p);
	ASSERT_NE(NULL, self->info);
}

FIXTURE_TEARDOWN(lib)
{
	pmuctl_close(self->q);
	pmuctl_close(self->p);
}

/*
 * pmuctl_rdpmc_thread(): PROGRAM granted its caller only; another thread
 * of the process faults until it asks, then runs rdpmc; another process
 * asking on the inherited handle gets -EPERM; without a group, -ENOENT.
 */
TEST_F(lib, rdpmc_thread_grants_the_calling_thread_only)
{
	struct pmuctl_event ev = ev_make(EV_INST | USR, 0, 0);
	char *always = slurp("/sys/bus/event_source/devices/cpu/rdpmc");
	bool all = always && always[0] == '2';
	struct rdpmc_thr t = { 0 };
	pthread_t th;
	int status;
	pid_t pid;

	free(always);
	if (self->info->rdpmc != PMUCTL_RDPMC_SESSION || all)
		SKIP(return, "rdpmc not granted per thread here (INFO rdpmc %u)",
		     self->info->rdpmc);
	ASSERT_EQ(0, pmuctl_open(NULL, PMUCTL_OPEN_NO_EMULATION, &self->q));
	EXPECT_EQ(-ENOENT, pmuctl_rdpmc_thread(self->q));
	ASSERT_EQ(0, pmuctl_program_cpu(self->q, 0, &ev, 1, NULL));
	t.p = self->q;
	ASSERT_EQ(0, pthread_create(&th, NULL, rdpmc_thr_fn, &t));
	ASSERT_EQ(0, pthread_join(th, NULL));
	EXPECT_EQ(SIGSEGV, t.before) TH_LOG("another thread before asking");
	EXPECT_EQ(0, t.ret);
	EXPECT_TRUE(rdpmc_granted(t.after)) TH_LOG("after asking: signal %d", t.after);
	EXPECT_TRUE(rdpmc_granted(rdpmc_probe(0))) TH_LOG("the programming thread");
	fflush(stdout);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(pmuctl_rdpmc_thread(self->q) == -EPERM ? 0 : 1);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("a forked child was not refused with -EPERM");
	ASSERT_EQ(0, pmuctl_release(self->q));
	EXPECT_EQ(-ENOENT, pmuctl_rdpmc_thread(self->q));
}

TEST_F(lib, open_reads_info_as_the_ioctl_gives_it)
{
	struct pmuctl_info raw;
	struct ucpu cpu;
	int fd = pmuctl_fd(self->p);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, dev_info(fd, &raw));
	/* Byte for byte, the session id included: it is this session's INFO. */
	EXPECT_EQ(0, memcmp(&raw, self->info, sizeof(raw)));
	EXPECT_EQ((__u32)PMUCTL_ABI_VERSION, self->info->abi_version);
	ucpu_read(&cpu);
	EXPECT_EQ(expected_model(cpu.family, cpu.model), self->info->pmu_model);
	EXPECT_NE(NULL, pmuctl_pfm_pmu_name(self->info->pmu_model));
	EXPECT_EQ(self->info, pmuctl_get_info(self->p));
}

TEST_F(lib, holdings_name_this_session_on_every_cpu_of_the_group)
{
	struct pmuctl_holding h[MAXCPU];
	struct pmuctl_event ev[PMUCTL_MAX_EVENTS];
	unsigned int possible = cpus_possible(), cpu, i, k;
	int n;

	n = pmuctl_get_holdings(self->p, h, MAXCPU);
	ASSERT_EQ((int)(possible < MAXCPU ? possible : MAXCPU), n);
	for (cpu = 0; cpu < (unsigned int)n; cpu++) {
		EXPECT_EQ(cpu, h[cpu].cpu);
		for (k = 0; k < PMUCTL_HOLDING_COUNTERS; k++) {
			EXPECT_EQ(0U, h[cpu].owner[k]);
		}
	}
	ASSERT_EQ(0, program_named(_metadata, self->p, group7, N5, -1, ev));
	n = pmuctl_get_holdings(self->p, h, MAXCPU);
	ASSERT_LT(0, n);
	for (cpu = 0; cpu < (unsigned int)n; cpu++) {
		bool online = h[cpu].flags & PMUCTL_HOLDING_ONLINE;

		for (i = 0; i < N5; i++) {
			EXPECT_EQ(online ? self->info->session : 0,
				  h[cpu].owner[holding_index(ev[i].counter)]) {
				TH_LOG("cpu %u counter %#x", cpu, ev[i].counter);
			}
		}
	}
	/* Room for one entry: one entry. */
	EXPECT_EQ(1, pmuctl_get_holdings(self->p, h, 1));
}

TEST_F(lib, program_by_names_fills_the_counters_from_the_reply)
{
	struct pmuctl_event ev[PMUCTL_MAX_EVENTS];
	const struct pmuctl_counters *c = pmuctl_get_counters(self->p);
	unsigned int i, j;

	ASSERT_NE(NULL, c);
	EXPECT_EQ(0U, c->nr);
	ASSERT_EQ(0, program_named(_metadata, self->p, group7, N5, -1, ev));
	expect_counters(_metadata, self->p, ev, N5, true);
	/* The three architectural fixed events sit on their fixed counters. */
	EXPECT_EQ(FIXED(0), ev[0].counter);
	EXPECT_EQ(FIXED(1), ev[1].counter);
	if (self->info->pmu_model != PMUCTL_MODEL_ARCH) {
		EXPECT_EQ(FIXED(2), ev[2].counter);
	}
	for (i = 0; i < N5; i++) {
		for (j = i + 1; j < N5; j++) {
			EXPECT_NE(ev[i].counter, ev[j].counter);
		}
	}
	/* One group per session: RELEASE first. */
	ASSERT_EQ(1, pmuctl_events_parse(pmuctl_pfm_pmu_name(self->info->pmu_model),
					 group7[0].name, ev, 1, NULL, NULL, 0));
	EXPECT_EQ(-EBUSY, pmuctl_program(self->p, ev, 1, NULL, 0, NULL));
}

TEST_F(lib, a_refused_program_names_the_rule_and_holds_nothing)
{
	const char *pmu = pmuctl_pfm_pmu_name(self->info->pmu_model);
	struct pmuctl_event ev[2];
	struct pmuctl_error err = { 0 };
	char msg[256], line[256];

	/* EDGE (bit 18) without CMASK [SDM; uapi PMUCTL_CFG_EDGE]. */
	ASSERT_EQ(0, pmuctl_event_parse(pmu, "r100c0", &ev[0], msg, sizeof(msg)))
		TH_LOG("%s", msg);
	ASSERT_EQ(0, pmuctl_event_parse(pmu, "r5003c", &ev[1], msg, sizeof(msg)))
		TH_LOG("%s", msg);
	EXPECT_U64(USR | EDGE | EV_CYCLES, ev[1].config);
	EXPECT_EQ(-EINVAL, pmuctl_program(self->p, ev, 2, NULL, 0, &err));
	EXPECT_EQ((__u32)PMUCTL_R_EDGE_NO_CMASK, err.reason);
	EXPECT_EQ(1U, err.index);
	pmuctl_strerror(-EINVAL, &err, line, sizeof(line));
	EXPECT_NE(NULL, strstr(line, "EDGE_NO_CMASK")) TH_LOG("%s", line);
	EXPECT_EQ(0U, pmuctl_get_counters(self->p)->nr);
	if (debugfs_ready()) {
		EXPECT_EQ(0, state_wait_clean(0));
	}
}

TEST_F(lib, counters_held_by_another_session_are_busy)
{
	const char *pmu = pmuctl_pfm_pmu_name(self->info->pmu_model);
	struct pmuctl_event ev[PMUCTL_MAX_EVENTS], one;
	struct pmuctl_error err = { 0 };
	unsigned int i, gp = self->info->caps.nr_gp;
	char msg[256];

	ASSERT_GT(gp, 0U);
	ASSERT_LE(gp, (unsigned int)PMUCTL_MAX_EVENTS);
	/* Every generic counter of CPU 0 taken by the first session. */
	for (i = 0; i < gp; i++) {
		ASSERT_EQ(0, pmuctl_event_parse(pmu, "r100c4", &ev[i], msg, sizeof(msg)));
	}
	ASSERT_EQ(0, pmuctl_program_cpu(self->p, 0, ev, gp, &err));
	ASSERT_EQ(0, pmuctl_open(NULL, 0, &self->q));
	ASSERT_EQ(0, pmuctl_event_parse(pmu, "r100c5", &one, msg, sizeof(msg)));
	EXPECT_EQ(-EBUSY, pmuctl_program_cpu(self->q, 0, &one, 1, &err));
	EXPECT_EQ((__u32)PMUCTL_R_COUNTERS_BUSY, err.reason);
	EXPECT_EQ(0U, err.index);
	EXPECT_EQ(0U, pmuctl_get_counters(self->q)->nr);
	/* The first session lets go: the same request succeeds. */
	ASSERT_EQ(0, pmuctl_release(self->p));
	EXPECT_EQ(0, pmuctl_program_cpu(self->q, 0, &one, 1, &err));
}

/* The registers of @cpu: EN of each generic counter and GLOBAL_CTRL. */
static void expect_running(struct __test_metadata *_metadata,
			   const struct pmuctl_counters *c, unsigned int cpu,
			   bool running)
{
	static struct pregs rg;
	uint64_t global = 0, fixed_ctrl;
	unsigned int i;

	ASSERT_EQ(0, regs_read(&rg));
	fixed_ctrl = regs_get(&rg, cpu, MSR_FIXED_CTRL);
	for (i = 0; i < c->nr; i++) {
		__u32 e = c->ecx[i];

		if (is_fixed(e)) {
			e &= ~PMUCTL_COUNTER_FIXED;
			global |= 1ULL << (32 + e);
			EXPECT_EQ(running, ((fixed_ctrl >> (4 * e)) & 0x3) != 0) {
				TH_LOG("cpu %u FIXED_CTR_CTRL %#llx, fixed %u", cpu,
				       (unsigned long long)fixed_ctrl, e);
			}
		} else {
			global |= 1ULL << e;
			EXPECT_EQ(running, !!(regs_get(&rg, cpu, MSR_EVTSEL(e)) & EN)) {
				TH_LOG("cpu %u EVTSEL%u", cpu, e);
			}
		}
	}
	EXPECT_U64(running ? global : 0, regs_get(&rg, cpu, MSR_GLOBAL_CTRL)) {
		TH_LOG("cpu %u GLOBAL_CTRL", cpu);
	}
}

TEST_F(lib, start_stop_reset_release_drive_every_cpu_of_the_group)
{
	struct pmuctl_event ev[PMUCTL_MAX_EVENTS];
	const struct pmuctl_counters *c = pmuctl_get_counters(self->p);
	unsigned int cpu, ncpu = cpus_online(), i;
	uint64_t want[N5], v[N5];

	NEED_MODEL(self->info);
	EXPECT_EQ(-ENOENT, pmuctl_start(self->p));
	EXPECT_EQ(-ENOENT, pmuctl_stop(self->p));
	EXPECT_EQ(-ENOENT, pmuctl_reset(self->p));
	EXPECT_EQ(0, pmuctl_release(self->p));
	ASSERT_EQ(0, program_named(_metadata, self->p, group7, N5, -1, ev));
	for (cpu = 0; cpu < ncpu; cpu++)
		expect_running(_metadata, c, cpu, false);

	ASSERT_EQ(0, pmuctl_start(self->p));
	for (cpu = 0; cpu < ncpu; cpu++)
		expect_running(_metadata, c, cpu, true);
	/* The register model counts nothing: presets stay while running. */
	for (cpu = 0; cpu < ncpu; cpu++) {
		preset_cpu(_metadata, c, cpu, 0, want);
		ASSERT_EQ(N5, pmuctl_read_values(self->p, cpu, v, N5));
		for (i = 0; i < N5; i++) {
			EXPECT_U64(want[i], v[i]) TH_LOG("cpu %u event %u", cpu, i);
		}
	}

	ASSERT_EQ(0, pmuctl_stop(self->p));
	for (cpu = 0; cpu < ncpu; cpu++) {
		expect_running(_metadata, c, cpu, false);
		/* Stopped: the values are kept. */
		ASSERT_EQ(N5, pmuctl_read_values(self->p, cpu, v, N5));
		for (i = 0; i < N5; i++) {
			EXPECT_U64(preset_value(cpu, i), v[i]);
		}
	}

	ASSERT_EQ(0, pmuctl_reset(self->p));
	for (cpu = 0; cpu < ncpu; cpu++) {
		ASSERT_EQ(N5, pmuctl_read_values(self->p, cpu, v, N5));
		for (i = 0; i < N5; i++) {
			EXPECT_U64(0, v[i]) TH_LOG("cpu %u event %u after RESET", cpu, i);
		}
	}

	ASSERT_EQ(0, pmuctl_start(self->p));
	ASSERT_EQ(0, pmuctl_release(self->p));
	EXPECT_EQ(0U, c->nr);
	EXPECT_EQ(0, state_wait_clean(0));
	for (cpu = 0; cpu < ncpu; cpu++)
		expect_running(_metadata, c, cpu, false);
	EXPECT_EQ(-ENOENT, pmuctl_start(self->p));
	EXPECT_EQ(-ENOENT, pmuctl_read_values(self->p, 0, v, N5));
	EXPECT_EQ(0, pmuctl_release(self->p));
	/* The handle stays open: the same group again. */
	EXPECT_EQ(0, program_named(_metadata, self->p, group7, N5, -1, ev));
}

TEST_F(lib, read_values_returns_what_the_register_model_holds_on_each_cpu)
{
	struct pmuctl_event ev[PMUCTL_MAX_EVENTS];
	const struct pmuctl_counters *c = pmuctl_get_counters(self->p);
	unsigned int cpu, ncpu = cpus_online(), i;
	uint64_t want[MAXCPU][N5], v[N5 + 1];

	NEED_MODEL(self->info);
	ASSERT_LE(ncpu, (unsigned int)MAXCPU);
	ASSERT_EQ(0, program_named(_metadata, self->p, group7, N5, -1, ev));
	for (cpu = 0; cpu < ncpu; cpu++)
		preset_cpu(_metadata, c, cpu, 0, want[cpu]);
	for (cpu = 0; cpu < ncpu; cpu++) {
		memset(v, 0xff, sizeof(v));
		ASSERT_EQ(N5, pmuctl_read_values(self->p, cpu, v, N5 + 1));
		for (i = 0; i < N5; i++) {
			EXPECT_U64(want[cpu][i], v[i]) TH_LOG("cpu %u event %u", cpu, i);
		}
		/* Nothing written past the group. */
		EXPECT_U64(~0ULL, v[N5]);
	}
	/* -1: the CPU the thread runs on. */
	for (cpu = 0; cpu < ncpu; cpu++) {
		ASSERT_EQ(0, pin_cpu(cpu));
		ASSERT_EQ(N5, pmuctl_read_values(self->p, -1, v, N5));
		for (i = 0; i < N5; i++) {
			EXPECT_U64(want[cpu][i], v[i]) TH_LOG("cpu %u (-1) event %u", cpu, i);
		}
	}
	EXPECT_EQ(-EINVAL, pmuctl_read_values(self->p, 0, v, N5 - 1));
	EXPECT_EQ(-EINVAL, pmuctl_read_values(self->p, self->info->nr_cpus, v, N5));
}

/*
 * The emulation passes every fault that is not its rdpmc on: a forked
 * child's NULL dereference still kills it with SIGSEGV, an undefined
 * instruction with SIGILL, as without the library.
 */
TEST_F(lib, other_faults_of_a_forked_child_still_kill_it)
{
	static const struct { int sig; const char *what; } cases[] = {
		{ SIGSEGV, "NULL dereference" },
		{ SIGILL, "ud2" },
	};
	struct pmuctl_event ev[PMUCTL_MAX_EVENTS];
	unsigned int k;

	ASSERT_EQ(0, program_named(_metadata, self->p, group7, 1, 0, ev));
	if (!(pmuctl_get_counters(self->p)->flags & PMUCTL_COUNTERS_EMULATED))
		SKIP(return, "rdpmc is not emulated here (INFO rdpmc %u, backend %u)",
		     self->info->rdpmc, self->info->backend);
	/* Else the test would prove nothing. */
	ASSERT_TRUE(has_handler(SIGSEGV));
	ASSERT_TRUE(has_handler(SIGILL));
	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		int status = 0;
		pid_t pid;

		fflush(stdout);
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			if (cases[k].sig == SIGSEGV)
				*null_ptr = 1;
			else
				__asm__ __volatile__("ud2");
			_exit(0);
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == cases[k].sig) {
			TH_LOG("%s: child status %#x, want killed by signal %d",
			       cases[k].what, status, cases[k].sig);
		}
	}
}

/* ---- the read path, under both rdpmc policies ------------------------------ */

FIXTURE(readpath) {
	struct pmuctl *p, *q;
	const struct pmuctl_info *info;
	bool param_set;
};

/*
 * @policy: the module parameter rdpmc (1: grants to a session's threads,
 * the default; 0: none); @rdpmc: what INFO must say.
 */
FIXTURE_VARIANT(readpath) {
	const char *policy;
	__u32 rdpmc;
};

FIXTURE_VARIANT_ADD(readpath, granted) {
	.policy = "1",
	.rdpmc = PMUCTL_RDPMC_SESSION,
};

FIXTURE_VARIANT_ADD(readpath, rdpmc_never) {
	.policy = "0",
	.rdpmc = PMUCTL_RDPMC_NONE,
};

FIXTURE_SETUP(readpath)
{
	/* The program's own handler comes first; the library's chains to it. */
	ASSERT_EQ(0, catch_install());
	if (debugfs_ready())
		model_clean(_metadata);
	if (!access(RDPMC_PARAM, W_OK)) {
		ASSERT_EQ(0, write_str(RDPMC_PARAM, variant->policy));
		self->param_set = true;
	}
	ASSERT_EQ(0, pmuctl_open(NULL, 0, &self->p));
	self->info = pmuctl_get_info(self->p);
}

FIXTURE_TEARDOWN(readpath)
{
	pmuctl_close(self->q);
	pmuctl_close(self->p);
	if (self->param_set)
		write_str(RDPMC_PARAM, "1");
}

/* At the top of each body: the model, and the policy the variant asked for. */
#define NEED_POLICY() do {						\
	NEED_MODEL(self->info);						\
	if (!self->param_set)						\
		SKIP(return, "no %s", RDPMC_PARAM);			\
	ASSERT_EQ(variant->rdpmc, self->info->rdpmc);			\
} while (0)

/* Every inline read of events 0..n-1 on this CPU returns @want. */
static void expect_inline_reads(struct __test_metadata *_metadata,
				const struct pmuctl_counters *c,
				const uint64_t *want, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		uint64_t v = ~0ULL, vs = ~0ULL;

		EXPECT_EQ(0, attempt(READ_ONE, c, i, &v)) {
			TH_LOG("pmuctl_read_counter(%u), ecx %#x: not emulated", i, c->ecx[i]);
		}
		EXPECT_U64(want[i], v) TH_LOG("pmuctl_read_counter(%u)", i);
		EXPECT_EQ(0, attempt(READ_ONE_SER, c, i, &vs));
		EXPECT_U64(want[i], vs) TH_LOG("pmuctl_read_counter_serialized(%u)", i);
	}
}

TEST_F(readpath, inline_reads_return_what_read_values_returns)
{
	struct pmuctl_event ev[PMUCTL_MAX_EVENTS];
	const struct pmuctl_counters *c = pmuctl_get_counters(self->p);
	uint64_t want[N5], v[N5];
	unsigned int i;

	NEED_POLICY();
	ASSERT_EQ(0, program_named(_metadata, self->p, group7, N5, 0, ev));
	expect_counters(_metadata, self->p, ev, N5, true);
	expect_bare_rdpmc(_metadata, self->info, c->ecx[0]);
	expect_bare_rdpmc(_metadata, self->info, c->ecx[N5 - 1]);
	preset_cpu(_metadata, c, 0, 0, want);
	ASSERT_EQ(N5, pmuctl_read_values(self->p, 0, v, N5));
	for (i = 0; i < N5; i++) {
		EXPECT_U64(want[i], v[i]) TH_LOG("pmuctl_read_values, event %u", i);
	}
	expect_inline_reads(_metadata, c, want, N5);
	/* Started, the same (the model counts nothing). */
	ASSERT_EQ(0, pmuctl_start(self->p));
	expect_inline_reads(_metadata, c, want, N5);
	EXPECT_EQ(0, catch_calls);
}

TEST_F(readpath, read_counters_of_seven_in_one_go)
{
	struct pmuctl_event ev[PMUCTL_MAX_EVENTS];
	const struct pmuctl_counters *c = pmuctl_get_counters(self->p);
	uint64_t want[7], v[7], vs[7];
	unsigned int i;

	NEED_POLICY();
	if (self->info->caps.nr_gp < 4 || self->info->caps.nr_fixed < 3)
		SKIP(return, "7 counters need 3 fixed + 4 generic (this PMU: %u + %u)",
		     self->info->caps.nr_fixed, self->info->caps.nr_gp);
	ASSERT_EQ(0, program_named(_metadata, self->p, group7, 7, 0, ev));
	expect_counters(_metadata, self->p, ev, 7, true);
	expect_bare_rdpmc(_metadata, self->info, c->ecx[6]);
	preset_cpu(_metadata, c, 0, 0, want);
	memset(v, 0xff, sizeof(v));
	memset(vs, 0xff, sizeof(vs));
	EXPECT_EQ(0, attempt(READ_MANY, c, 7, v));
	EXPECT_EQ(0, attempt(READ_MANY_SER, c, 7, vs));
	for (i = 0; i < 7; i++) {
		EXPECT_U64(want[i], v[i]) TH_LOG("pmuctl_read_counters, event %u", i);
		EXPECT_U64(want[i], vs[i]) TH_LOG("_serialized, event %u", i);
	}
}

TEST_F(readpath, read_counters_of_one)
{
	/* One generic counter: the ECX without the fixed bit. */
	static const struct named one[] = {
		{ "branch_instructions_retired:u", EV_BR | USR },
	};
	struct pmuctl_event ev[PMUCTL_MAX_EVENTS];
	const struct pmuctl_counters *c = pmuctl_get_counters(self->p);
	uint64_t want[1], v[2] = { ~0ULL, ~0ULL }, vs[2] = { ~0ULL, ~0ULL };

	NEED_POLICY();
	ASSERT_EQ(0, program_named(_metadata, self->p, one, 1, 0, ev));
	expect_counters(_metadata, self->p, ev, 1, true);
	EXPECT_FALSE(is_fixed(c->ecx[0]));
	expect_bare_rdpmc(_metadata, self->info, c->ecx[0]);
	preset_cpu(_metadata, c, 0, 0, want);
	EXPECT_EQ(0, attempt(READ_MANY, c, 1, v));
	EXPECT_EQ(0, attempt(READ_MANY_SER, c, 1, vs));
	EXPECT_U64(want[0], v[0]);
	EXPECT_U64(want[0], vs[0]);
	/* One value stored, not two. */
	EXPECT_U64(~0ULL, v[1]);
	EXPECT_U64(~0ULL, vs[1]);
	expect_inline_reads(_metadata, c, want, 1);
}

/*
 * A counter preset 5 below its wrap, then to 3: 8 events, for a generic
 * counter (legacy write of 0xfffffffb: 32 bits sign-extended to the
 * counter's width [SDM; FACTS 1]) and a fixed one (written whole).
 */
TEST_F(readpath, delta_across_a_preset_wrap)
{
	struct pmuctl_event ev[PMUCTL_MAX_EVENTS];
	const struct pmuctl_counters *c = pmuctl_get_counters(self->p);
	uint64_t before[N5], after[N5], d[N5];
	unsigned int i, gp = N5 - 1;	/* a generic event of group7 */
	uint64_t fmask, gmask;

	NEED_POLICY();
	ASSERT_EQ(0, program_named(_metadata, self->p, group7, N5, 0, ev));
	ASSERT_TRUE(is_fixed(c->ecx[0]));
	ASSERT_FALSE(is_fixed(c->ecx[gp]));
	fmask = width_mask(self->info->caps.fixed_width);
	gmask = width_mask(self->info->caps.gp_width);
	ASSERT_EQ(0, regs_preset(0, counter_msr(c->ecx[0]), fmask - 4));
	ASSERT_EQ(0, regs_preset(0, counter_msr(c->ecx[gp]), 0xfffffffbULL));
	ASSERT_EQ(0, attempt(READ_MANY, c, N5, before));
	EXPECT_U64(fmask - 4, before[0]);
	EXPECT_U64(gmask - 4, before[gp]) TH_LOG("the legacy write sign-extends");
	ASSERT_EQ(0, regs_preset(0, counter_msr(c->ecx[0]), 3));
	ASSERT_EQ(0, regs_preset(0, counter_msr(c->ecx[gp]), 3));
	ASSERT_EQ(0, attempt(READ_MANY, c, N5, after));
	EXPECT_U64(8, pmuctl_delta(c, 0, before[0], after[0]));
	EXPECT_U64(8, pmuctl_delta(c, gp, before[gp], after[gp]));
	pmuctl_deltas(c, before, after, d, N5);
	for (i = 0; i < N5; i++) {
		EXPECT_U64(i == 0 || i == gp ? 8 : 0, d[i]) TH_LOG("event %u", i);
	}
}

TEST_F(readpath, each_cpu_reads_its_own_counters)
{
	struct pmuctl_event ev[PMUCTL_MAX_EVENTS];
	const struct pmuctl_counters *c = pmuctl_get_counters(self->p);
	unsigned int cpu, ncpu = cpus_online();
	uint64_t want[MAXCPU][N5];

	NEED_POLICY();
	if (ncpu < 2)
		SKIP(return, "needs 2 online CPUs");
	ASSERT_LE(ncpu, (unsigned int)MAXCPU);
	ASSERT_EQ(0, program_named(_metadata, self->p, group7, N5, -1, ev));
	for (cpu = 0; cpu < ncpu; cpu++)
		preset_cpu(_metadata, c, cpu, 0, want[cpu]);
	for (cpu = 0; cpu < ncpu; cpu++) {
		ASSERT_EQ(0, pin_cpu(cpu));
		expect_bare_rdpmc(_metadata, self->info, c->ecx[0]);
		expect_inline_reads(_metadata, c, want[cpu], N5);
	}
	EXPECT_EQ(0, catch_calls);
}

TEST_F(readpath, no_emulation_leaves_the_fault_to_the_program)
{
	struct pmuctl_event ev[PMUCTL_MAX_EVENTS];
	const struct pmuctl_counters *c;
	uint64_t want[N5], v[N5], r = 0;
	int sig;

	NEED_POLICY();
	/* The fixture's session stays unprogrammed: no emulation anywhere. */
	ASSERT_EQ(0, pmuctl_open(NULL, PMUCTL_OPEN_NO_EMULATION, &self->q));
	c = pmuctl_get_counters(self->q);
	ASSERT_EQ(0, program_named(_metadata, self->q, group7, N5, 0, ev));
	expect_counters(_metadata, self->q, ev, N5, false);
	preset_cpu(_metadata, c, 0, 0, want);
	sig = attempt(READ_ONE, c, 0, &r);
	EXPECT_EQ(variant->rdpmc == PMUCTL_RDPMC_SESSION ? SIGILL : SIGSEGV, sig) {
		TH_LOG("the read path ended with signal %d (value %#llx)", sig,
		       (unsigned long long)r);
	}
	EXPECT_EQ(sig, rdpmc_probe(c->ecx[0]));
	/* READ still works. */
	ASSERT_EQ(N5, pmuctl_read_values(self->q, 0, v, N5));
	EXPECT_U64(want[0], v[0]);
}

TEST_F(readpath, other_faults_reach_the_handler_installed_before)
{
	struct pmuctl_event ev[PMUCTL_MAX_EVENTS];
	const struct pmuctl_counters *c = pmuctl_get_counters(self->p);
	uint64_t want[N5];

	NEED_POLICY();
	ASSERT_EQ(0, program_named(_metadata, self->p, group7, N5, 0, ev));
	preset_cpu(_metadata, c, 0, 0, want);
	expect_inline_reads(_metadata, c, want, N5);
	EXPECT_EQ(0, catch_calls) TH_LOG("an emulated rdpmc reached the program's handler");

	catch_addr = (void *)1;
	EXPECT_EQ(SIGSEGV, attempt(NULL_STORE, c, 0, NULL));
	EXPECT_TRUE(catch_addr == NULL);
	EXPECT_EQ(SIGILL, attempt(UD2, c, 0, NULL));
	EXPECT_EQ(2, catch_calls);
	/* And the emulation still answers. */
	expect_inline_reads(_metadata, c, want, N5);
	EXPECT_EQ(2, catch_calls);
}

TEST_F(readpath, rdpmc_on_a_cpu_outside_the_group_is_passed_on)
{
	struct pmuctl_event ev[PMUCTL_MAX_EVENTS];
	const struct pmuctl_counters *c = pmuctl_get_counters(self->p);
	uint64_t want[1], v = 0;
	int sig;

	NEED_POLICY();
	if (cpus_online() < 2)
		SKIP(return, "needs 2 online CPUs");
	ASSERT_EQ(0, program_named(_metadata, self->p, group7, 1, 0, ev));
	preset_cpu(_metadata, c, 0, 0, want);
	ASSERT_EQ(0, pin_cpu(1));
	sig = attempt(READ_ONE, c, 0, &v);
	EXPECT_NE(0, sig) TH_LOG("rdpmc on CPU 1 answered %#llx for a group on CPU 0",
				 (unsigned long long)v);
	EXPECT_EQ(rdpmc_probe(c->ecx[0]), sig);
	ASSERT_EQ(0, pin_cpu(0));
	expect_inline_reads(_metadata, c, want, 1);
}

/* After release (@by_close: close) the session's counter faults again. */
static void withdraw(struct __test_metadata *_metadata,
		     FIXTURE_DATA(readpath) *self, bool by_close)
{
	struct pmuctl_event ev[PMUCTL_MAX_EVENTS];
	const struct pmuctl_counters *c = pmuctl_get_counters(self->p);
	struct pmuctl_counters saved;
	uint64_t want[N5], v = 0;
	int sig;

	ASSERT_EQ(0, program_named(_metadata, self->p, group7, N5, 0, ev));
	preset_cpu(_metadata, c, 0, 0, want);
	expect_inline_reads(_metadata, c, want, N5);
	saved = *c;
	if (by_close) {
		pmuctl_close(self->p);
		self->p = NULL;
	} else {
		ASSERT_EQ(0, pmuctl_release(self->p));
		EXPECT_EQ(0U, c->nr);
	}
	sig = attempt(READ_ONE, &saved, 0, &v);
	EXPECT_NE(0, sig) TH_LOG("the released counter still read %#llx",
				 (unsigned long long)v);
	/* As a bare rdpmc ends now: the grant went with the group. */
	EXPECT_EQ(rdpmc_probe(saved.ecx[0]), sig);
	EXPECT_EQ(SIGSEGV, sig);
	sig = attempt(READ_MANY, &saved, N5, want);
	EXPECT_EQ(SIGSEGV, sig);
}

TEST_F(readpath, release_withdraws_the_emulation)
{
	NEED_POLICY();
	withdraw(_metadata, self, false);
}

TEST_F(readpath, close_withdraws_the_emulation)
{
	NEED_POLICY();
	withdraw(_metadata, self, true);
}

TEST_F(readpath, release_of_one_session_leaves_the_other_emulated)
{
	static const struct named a[] = { { "instruction_retired:u", EV_INST | USR } };
	static const struct named b[] = {
		{ "branch_instructions_retired:u", EV_BR | USR },
	};
	struct pmuctl_event eva[PMUCTL_MAX_EVENTS], evb[PMUCTL_MAX_EVENTS];
	const struct pmuctl_counters *ca = pmuctl_get_counters(self->p), *cb;
	struct pmuctl_counters saved;
	uint64_t wa[1], wb[1];
	int sig;

	NEED_POLICY();
	ASSERT_EQ(0, pmuctl_open(NULL, 0, &self->q));
	cb = pmuctl_get_counters(self->q);
	ASSERT_EQ(0, program_named(_metadata, self->p, a, 1, 0, eva));
	ASSERT_EQ(0, program_named(_metadata, self->q, b, 1, 0, evb));
	ASSERT_NE(ca->ecx[0], cb->ecx[0]);
	preset_cpu(_metadata, ca, 0, 0, wa);
	preset_cpu(_metadata, cb, 0, 0x1000, wb);
	expect_inline_reads(_metadata, ca, wa, 1);
	expect_inline_reads(_metadata, cb, wb, 1);
	saved = *ca;
	ASSERT_EQ(0, pmuctl_release(self->p));
	sig = attempt(READ_ONE, &saved, 0, wa);
	EXPECT_NE(0, sig) TH_LOG("the released session's counter is still emulated");
	/* The other session holds the grant: a bare rdpmc ends the same way. */
	EXPECT_EQ(rdpmc_probe(saved.ecx[0]), sig);
	expect_inline_reads(_metadata, cb, wb, 1);
}

DEVICE_TEST_MAIN
