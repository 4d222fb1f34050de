// SPDX-License-Identifier: GPL-2.0
/*
 * PMU register writes that fault.  The register model's fail_write makes
 * the next MSR write on one CPU fault, as a #GP would on silicon:
 *
 *  - PROGRAM on that CPU is EIO with err_reason HW_FAULT and err_cpu that
 *    CPU, and changes nothing: pmuctl/state (but its wave count) and
 *    pmuctl/regs are as before, on every CPU of the request, including
 *    the ones whose writes went through, and including values another
 *    agent had left in the registers; a second PROGRAM then succeeds;
 *  - RELEASE never fails: a fault is logged and everything is released;
 *    while a write still faults on a CPU (a counter of the session may be
 *    enabled there), that CPU is "poisoned" in pmuctl/state and perf's
 *    counters stay reserved, until a later wave rewrites the CPU;
 *  - START, STOP and RESET report EIO and change nothing: the registers,
 *    counter values included, are as before on every CPU, whether the
 *    fault hits the first write, a later one, or every one (fail_write
 *    "CPU always"), on the first CPU of the set or the second; the
 *    session stays usable and keeps running or stopped as it was.
 *
 * Needs the register-model build of pmuctl.ko; SKIPs without it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib.h"
#include "kselftest_harness.h"

FIXTURE(fault) {
	int fd;
	struct pmuctl_info info;
	__u64 all;
	unsigned int ncpu;	/* CPUs tried: at most 2 */
};

FIXTURE_SETUP(fault)
{
	unsigned int i;

	self->fd = dev_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, dev_info(self->fd, &self->info));
	self->ncpu = self->info.nr_cpus < 2 ? self->info.nr_cpus : 2;
	for (i = 0; i < self->info.nr_cpus && i < 64; i++)
		self->all |= 1ULL << i;
	if (have_regs()) {
		ASSERT_EQ(0, state_wait_clean(1000));
		ASSERT_EQ(0, regs_zero_all());
	}
}

/* fail_write "CPU WHAT": "always", "off", "N after K" (regmodel.c). */
static int fail_mode(__u32 cpu, const char *what)
{
	char buf[48];

	snprintf(buf, sizeof(buf), "%u %s", cpu, what);
	return write_str(DBG_FAIL, buf);
}

/* No fault left armed; every CPU written once, so none stays poisoned. */
static void heal(FIXTURE_DATA(fault) *self)
{
	struct pmuctl_event ev = ev_make(EV_INST | USR, 0, 0);
	struct pmuctl_program p;
	unsigned int cpu;
	int fd;

	for (cpu = 0; cpu < self->info.nr_cpus && cpu < 64; cpu++)
		fail_mode(cpu, "off");
	fd = dev_open();
	if (fd < 0)
		return;
	if (!dev_program(fd, &ev, 1, self->all, &p))
		dev_ctl(fd, PMUCTL_IOC_RELEASE);
	close(fd);
}

FIXTURE_TEARDOWN(fault)
{
	if (self->fd >= 0)
		close(self->fd);
	if (have_regs()) {
		heal(self);
		state_wait_clean(1000);
		regs_zero_all();
	}
}

#define NEED_REGS() do {						\
	if (self->info.backend != PMUCTL_BACKEND_MODEL || !have_regs())	\
		SKIP(return, "needs the register-model pmuctl.ko (%s)", DBG_FAIL); \
} while (0)

/* A group with a generic, a fixed and (where the model has one) an offcore event. */
static __u32 group(const struct pmuctl_info *info, struct pmuctl_event *ev)
{
	ev[0] = ev_make(EV_LLC_MISS | USR | OS, 0, 0);
	ev[1] = ev_make(EV_INST | USR, 0, 0);
	if (info->pmu_model == PMUCTL_MODEL_ARCH)
		return 2;
	ev[2] = ev_make(model_rsp0(info->pmu_model) | USR, REQ0 | ANYRSP, 0);
	return 3;
}

/* Values another agent left in the registers pmuctl is about to use. */
static void preset_foreign(struct __test_metadata *_metadata,
			   const struct pmuctl_info *info, __u32 cpu)
{
	ASSERT_EQ(0, regs_preset(cpu, MSR_EVTSEL(0), EV_BR | USR | OS));
	ASSERT_EQ(0, regs_preset(cpu, MSR_FIXED_CTRL, 0x3ULL << 8));
	ASSERT_EQ(0, regs_preset(cpu, MSR_GLOBAL_CTRL, 1ULL << 34));
	if (info->pmu_model != PMUCTL_MODEL_ARCH) {
		ASSERT_EQ(0, regs_preset(cpu, MSR_RSP0, REQ1 | ANYRSP));
		ASSERT_EQ(0, regs_preset(cpu, MSR_RSP1, REQ2 | ANYRSP));
	}
}

/* PROGRAM on @cpus with @bad's next write faulting: refused, nothing changed. */
static void program_faults(struct __test_metadata *_metadata,
			   FIXTURE_DATA(fault) *self, __u64 cpus, __u32 bad)
{
	struct pmuctl_event ev[4];
	struct pmuctl_program p;
	struct snap before = { 0 };
	struct pstate st;
	__u32 n = group(&self->info, ev);

	ASSERT_EQ(0, snap_take(&before));
	ASSERT_EQ(0, fail_next_write(bad));
	EXPECT_EQ(-EIO, dev_program(self->fd, ev, n, cpus, &p)) {
		TH_LOG("cpus %#llx, CPU %u faults", (unsigned long long)cpus, bad);
	}
	EXPECT_U64(PMUCTL_R_HW_FAULT, p.err_reason);
	EXPECT_U64(bad, p.err_cpu);
	/* The outputs of the events stay zero. */
	EXPECT_U64(0, ev[0].counter | ev[1].counter);
	EXPECT_UNCHANGED(&before, true);
	ASSERT_EQ(0, state_read(&st));
	EXPECT_EQ(0U, st.programmed);
	EXPECT_EQ(0U, st.nown);
	EXPECT_EQ(0U, st.nx);
	EXPECT_EQ(0U, st.perf_reserved);
	snap_free(&before);

	/* The session holds nothing: PROGRAM again, and it works. */
	n = group(&self->info, ev);
	EXPECT_EQ(0, dev_program(self->fd, ev, n, cpus, &p));
	ASSERT_EQ(0, state_read(&st));
	EXPECT_EQ(1U, st.programmed);
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
}

TEST_F(fault, program_fault_is_eio_hw_fault_on_that_cpu_and_changes_nothing)
{
	__u32 cpu;

	NEED_REGS();
	for (cpu = 0; cpu < self->ncpu; cpu++)
		program_faults(_metadata, self, 1ULL << cpu, cpu);
}

TEST_F(fault, program_fault_on_one_of_two_cpus_is_all_or_nothing)
{
	__u32 cpu;

	NEED_REGS();
	if (self->ncpu < 2)
		SKIP(return, "needs 2 CPUs");
	for (cpu = 0; cpu < 2; cpu++)
		program_faults(_metadata, self, 3, cpu);
}

TEST_F(fault, program_fault_restores_what_another_agent_left)
{
	struct snap before = { 0 }, after = { 0 };
	struct pmuctl_event ev[4];
	struct pmuctl_program p;
	__u32 cpu, n;
	const char *d;

	NEED_REGS();
	for (cpu = 0; cpu < self->ncpu; cpu++)
		preset_foreign(_metadata, &self->info, cpu);
	for (cpu = 0; cpu < self->ncpu; cpu++)
		program_faults(_metadata, self, self->ncpu > 1 ? 3 : 1, cpu);
	/* A successful PROGRAM and RELEASE give the same registers back. */
	ASSERT_EQ(0, snap_take(&before));
	n = group(&self->info, ev);
	ASSERT_EQ(0, dev_program(self->fd, ev, n, self->ncpu > 1 ? 3 : 1, &p));
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_START));
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
	ASSERT_EQ(0, snap_take(&after));
	d = snap_diff(&before, &after, true);
	EXPECT_TRUE(d == NULL) TH_LOG("changed: %s", d);
	snap_free(&before);
	snap_free(&after);
}

/*
 * The refused group leaves nothing in pmuctl's own picture of the CPU
 * either: when the CPU comes back online, pmuctl writes what it holds
 * there, and the refused offcore value is not part of it.
 */
TEST_F(fault, program_fault_leaves_nothing_for_a_cpu_coming_online)
{
	static struct pregs rg;
	struct pmuctl_event ev[4], one = ev_make(EV_INST | USR, 0, 0);
	struct pmuctl_program p;
	__u32 n, x, nx = 0, xmsr[2] = { MSR_RSP0, MSR_RSP1 };
	int err, fd2;

	NEED_REGS();
	if (self->ncpu < 2 || access("/sys/devices/system/cpu/cpu1/online", W_OK))
		SKIP(return, "needs a CPU 1 that can go offline");
	if (self->info.pmu_model != PMUCTL_MODEL_ARCH)
		nx = 2;
	ASSERT_EQ(0, pin_cpu(0));
	n = group(&self->info, ev);
	ASSERT_EQ(0, fail_next_write(1));
	ASSERT_EQ(-EIO, dev_program(self->fd, ev, n, 2, &p));
	/* Another session holds a fixed counter on CPU 1. */
	fd2 = dev_open();
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, dev_program(fd2, &one, 1, 2, &p));
	err = cpu_set_online(1, false);
	if (err) {
		close(fd2);
		SKIP(return, "cannot offline CPU 1: %s", strerror(-err));
	}
	ASSERT_EQ(0, cpu_set_online(1, true));
	ASSERT_EQ(0, regs_read(&rg));
	for (x = 0; x < nx; x++) {
		EXPECT_U64(0, regs_get(&rg, 1, xmsr[x])) TH_LOG("MSR %#x", xmsr[x]);
	}
	EXPECT_U64(0, regs_get(&rg, 1, MSR_EVTSEL(0)));
	EXPECT_U64(0, regs_get(&rg, 1, MSR_GLOBAL_CTRL));
	close(fd2);
}

TEST_F(fault, release_with_a_fault_still_releases_everything)
{
	static struct pregs rg;
	struct pmuctl_event ev[4];
	struct pmuctl_program p;
	struct pstate st;
	unsigned int i;
	__u32 cpu, n;

	NEED_REGS();
	for (cpu = 0; cpu < self->ncpu; cpu++) {
		n = group(&self->info, ev);
		ASSERT_EQ(0, dev_program(self->fd, ev, n, self->all, &p));
		ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_START));
		ASSERT_EQ(0, fail_next_write(cpu));
		EXPECT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
		ASSERT_EQ(0, state_read(&st));
		EXPECT_EQ(0U, st.programmed);
		EXPECT_EQ(0U, st.nown);
		EXPECT_EQ(0U, st.nx);
		EXPECT_EQ(0U, st.perf_reserved);
		EXPECT_EQ(-ENOENT, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
		ASSERT_EQ(0, regs_read(&rg));
		for (i = 0; i < rg.n; i++) {
			EXPECT_U64(0, rg.r[i].val) {
				TH_LOG("fault on CPU %u: cpu %u msr %#x", cpu,
				       rg.r[i].cpu, rg.r[i].msr);
			}
		}
	}
}

TEST_F(fault, start_with_a_fault_is_eio_and_the_session_stays_usable)
{
	static struct pregs rg;
	struct pmuctl_event ev[4];
	struct pmuctl_program p;
	__u32 cpu, n, k;

	NEED_REGS();
	n = group(&self->info, ev);
	ASSERT_EQ(0, dev_program(self->fd, ev, n, self->all, &p));
	for (cpu = 0; cpu < self->ncpu; cpu++) {
		ASSERT_EQ(0, fail_next_write(cpu));
		EXPECT_EQ(-EIO, dev_ctl(self->fd, PMUCTL_IOC_START)) TH_LOG("CPU %u", cpu);
		ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_STOP));
	}
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_START));
	ASSERT_EQ(0, regs_read(&rg));
	for (cpu = 0; cpu < self->ncpu; cpu++) {
		for (k = 0; k < n; k++) {
			if (ev[k].counter & PMUCTL_COUNTER_FIXED)
				continue;
			EXPECT_U64(ev[k].config_used | EN,
				   regs_get(&rg, cpu, MSR_EVTSEL(ev[k].counter))) {
				TH_LOG("cpu %u event %u", cpu, k);
			}
		}
	}
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
	EXPECT_EQ(0, state_wait_clean(0));
}

/* The state text without its "cpu N poisoned" lines. */
static void drop_poisoned(char *st)
{
	char *l = st, *e;

	while (l && *l) {
		e = strchrnul(l, '\n');
		if (strstr(l, " poisoned") && strstr(l, " poisoned") < e) {
			memmove(l, *e ? e + 1 : e, strlen(e) + (*e ? 0 : 1));
			continue;
		}
		l = *e ? e + 1 : e;
	}
}

/* NULL if state (but "poisoned" lines) and regs are as in @before. */
static const char *changed(const struct snap *before)
{
	static char msg[600];
	struct snap a = { 0 }, b = { 0 };
	const char *d;

	if (snap_take(&a))
		return "cannot read pmuctl/state";
	b.state = strdup(before->state);
	b.regs = before->regs ? strdup(before->regs) : NULL;
	drop_poisoned(a.state);
	drop_poisoned(b.state);
	d = snap_diff(&b, &a, true);
	if (d)
		snprintf(msg, sizeof(msg), "%s", d);
	snap_free(&a);
	snap_free(&b);
	return d ? msg : NULL;
}

/* Counts in every counter of the group, so that a zeroing shows. */
static void preset_counts(struct __test_metadata *_metadata,
			  FIXTURE_DATA(fault) *self, const struct pmuctl_event *ev,
			  __u32 n)
{
	__u32 cpu, k, c;

	for (cpu = 0; cpu < self->ncpu; cpu++) {
		for (k = 0; k < n; k++) {
			c = ev[k].counter & ~PMUCTL_COUNTER_FIXED;
			ASSERT_EQ(0, regs_preset(cpu, ev[k].counter & PMUCTL_COUNTER_FIXED ?
						 MSR_FIXED_CTR(c) : MSR_PMC(c),
						 0x1000 * (cpu + 1) + k + 1));
		}
	}
}

/* 0 if every CPU of the fixture's set runs (or not) the group as @run says. */
static int run_differs(struct __test_metadata *_metadata,
		       FIXTURE_DATA(fault) *self, const struct pmuctl_event *ev,
		       __u32 n, bool run)
{
	static struct pregs rg;
	__u64 want;
	__u32 cpu, k, c;
	int bad = 0;

	if (regs_read(&rg))
		return -1;
	for (cpu = 0; cpu < self->info.nr_cpus && cpu < 64; cpu++) {
		for (k = 0; k < n; k++) {
			c = ev[k].counter & ~PMUCTL_COUNTER_FIXED;
			want = run ? 1ULL << (c + (ev[k].counter & PMUCTL_COUNTER_FIXED ? 32 : 0)) : 0;
			if ((regs_get(&rg, cpu, MSR_GLOBAL_CTRL) &
			     (1ULL << (c + (ev[k].counter & PMUCTL_COUNTER_FIXED ? 32 : 0)))) != want) {
				TH_LOG("cpu %u event %u: GLOBAL_CTRL %#llx", cpu, k,
				       (unsigned long long)regs_get(&rg, cpu, MSR_GLOBAL_CTRL));
				bad++;
			}
			if (ev[k].counter & PMUCTL_COUNTER_FIXED)
				continue;
			if (regs_get(&rg, cpu, MSR_EVTSEL(c)) != (ev[k].config_used | (run ? EN : 0))) {
				TH_LOG("cpu %u event %u: EVTSEL %#llx", cpu, k,
				       (unsigned long long)regs_get(&rg, cpu, MSR_EVTSEL(c)));
				bad++;
			}
		}
	}
	return bad;
}

static const char *const faults[] = {
	"1",		/* the first write */
	"1 after 3",	/* a later one */
	"always",	/* every one, the rollback's too */
};

/* @cmd with each kind of fault on each CPU: EIO, and nothing changed. */
static void ctl_faults(struct __test_metadata *_metadata,
		       FIXTURE_DATA(fault) *self, unsigned long cmd,
		       const char *name)
{
	struct pmuctl_event ev[4];
	struct pmuctl_program p;
	struct snap before = { 0 };
	const char *d;
	__u32 cpu, n, f;
	bool run;

	for (run = false; ; run = true) {
		for (cpu = 0; cpu < self->ncpu; cpu++) {
			for (f = 0; f < sizeof(faults) / sizeof(faults[0]); f++) {
				n = group(&self->info, ev);
				ASSERT_EQ(0, dev_program(self->fd, ev, n, self->all, &p));
				if (run)
					ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_START));
				preset_counts(_metadata, self, ev, n);
				ASSERT_EQ(0, snap_take(&before));
				ASSERT_EQ(0, fail_mode(cpu, faults[f]));
				EXPECT_EQ(-EIO, dev_ctl(self->fd, cmd)) {
					TH_LOG("%s %s, fault \"%s\" on CPU %u",
					       run ? "running" : "stopped", name,
					       faults[f], cpu);
				}
				d = changed(&before);
				EXPECT_TRUE(d == NULL) {
					TH_LOG("%s %s, fault \"%s\" on CPU %u: %s",
					       run ? "running" : "stopped", name,
					       faults[f], cpu, d);
				}
				snap_free(&before);
				ASSERT_EQ(0, fail_mode(cpu, "off"));
				/*
				 * The session keeps its state: RESET keeps it
				 * running or stopped, as it was before.
				 */
				ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RESET));
				EXPECT_EQ(0, run_differs(_metadata, self, ev, n, run)) {
					TH_LOG("%s, then %s with fault \"%s\" on CPU %u, then RESET",
					       run ? "running" : "stopped", name,
					       faults[f], cpu);
				}
				ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
				ASSERT_EQ(0, state_wait_clean(0));
			}
		}
		if (run)
			break;
	}
}

TEST_F(fault, start_fault_changes_nothing_on_any_cpu)
{
	NEED_REGS();
	ctl_faults(_metadata, self, PMUCTL_IOC_START, "START");
}

TEST_F(fault, stop_fault_changes_nothing_on_any_cpu)
{
	NEED_REGS();
	ctl_faults(_metadata, self, PMUCTL_IOC_STOP, "STOP");
}

TEST_F(fault, reset_fault_changes_nothing_and_keeps_the_counts)
{
	NEED_REGS();
	ctl_faults(_metadata, self, PMUCTL_IOC_RESET, "RESET");
}

TEST_F(fault, release_fault_that_persists_keeps_perf_out_until_rewritten)
{
	static struct pregs rg;
	struct pmuctl_event ev[4], one = ev_make(EV_INST | USR, 0, 0);
	struct pmuctl_program p;
	struct pstate st;
	__u32 bad, other, n;
	int fd2;

	NEED_REGS();
	if (self->ncpu < 2)
		SKIP(return, "needs 2 CPUs");
	for (bad = 0; bad < 2; bad++) {
		other = !bad;
		n = group(&self->info, ev);
		ASSERT_EQ(0, dev_program(self->fd, ev, n, 3, &p));
		ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_START));
		ASSERT_EQ(0, fail_mode(bad, "always"));
		EXPECT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
		ASSERT_EQ(0, state_read(&st));
		EXPECT_EQ(0U, st.programmed);
		EXPECT_EQ(0U, st.nown);
		EXPECT_EQ(0U, st.nx);
		/* The session's counters still run there: perf stays out. */
		EXPECT_EQ(1U, st.perf_reserved) TH_LOG("fault on CPU %u", bad);
		ASSERT_EQ(0, regs_read(&rg));
		EXPECT_U64(0, regs_get(&rg, other, MSR_GLOBAL_CTRL));
		EXPECT_NE((__u64)0, regs_get(&rg, bad, MSR_GLOBAL_CTRL));

		/* A session on the other CPU alone does not rewrite it. */
		ASSERT_EQ(0, fail_mode(bad, "off"));
		fd2 = dev_open();
		ASSERT_LE(0, fd2);
		one = ev_make(EV_INST | USR, 0, 0);
		ASSERT_EQ(0, dev_program(fd2, &one, 1, 1ULL << other, &p));
		ASSERT_EQ(0, dev_ctl(fd2, PMUCTL_IOC_RELEASE));
		ASSERT_EQ(0, state_read(&st));
		EXPECT_EQ(1U, st.perf_reserved);

		/* One that reaches it does: then perf gets its counters back. */
		one = ev_make(EV_INST | USR, 0, 0);
		ASSERT_EQ(0, dev_program(fd2, &one, 1, 1ULL << bad, &p));
		ASSERT_EQ(0, dev_ctl(fd2, PMUCTL_IOC_RELEASE));
		close(fd2);
		EXPECT_EQ(0, state_wait_clean(0)) TH_LOG("fault on CPU %u", bad);
		ASSERT_EQ(0, regs_read(&rg));
		EXPECT_U64(0, regs_get(&rg, bad, MSR_GLOBAL_CTRL));
		EXPECT_U64(0, regs_get(&rg, bad, MSR_EVTSEL(ev[0].counter)));
	}
}

DEVICE_TEST_MAIN
