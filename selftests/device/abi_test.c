// SPDX-License-Identifier: GPL-2.0
/*
 * The ABI of /dev/pmuctl (uapi/linux/pmuctl.h), one test per rule: what
 * INFO reports, every refusal of PROGRAM with its errno, err_reason,
 * err_index and err_cpu, the core's rules as PROGRAM surfaces them on the
 * guest's PMU model, the control commands, READ, and unknown commands.
 *
 * After every refused call pmuctl/state and pmuctl/regs are byte-identical
 * to what they were before it: a refusal changes nothing.
 *
 * Without a usable /dev/pmuctl the program is one SKIP (main()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib.h"
#include "kselftest_harness.h"

FIXTURE(abi) {
	int fd;
	struct pmuctl_info info;
	struct snap before;
	long page;
};

FIXTURE_SETUP(abi)
{
	self->page = sysconf(_SC_PAGESIZE);
	self->fd = dev_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, dev_info(self->fd, &self->info));
	ASSERT_TRUE(debugfs_ready()) TH_LOG("no %s", DBG_STATE);
}

FIXTURE_TEARDOWN(abi)
{
	snap_free(&self->before);
	if (self->fd >= 0)
		close(self->fd);
}

#define SNAP() do {							\
	snap_free(&self->before);					\
	ASSERT_EQ(0, snap_take(&self->before));				\
} while (0)

/* A valid one-event PROGRAM request, to break one rule at a time. */
struct req {
	struct pmuctl_program p;
	struct pmuctl_event ev[PMUCTL_MAX_EVENTS + 1];
	__u64 cpus[PMUCTL_MAX_CPU_BITMAP / 8 + 1];
};

static void req_init(struct req *r, __u32 cpu)
{
	__u32 i;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < PMUCTL_MAX_EVENTS + 1; i++)
		r->ev[i] = ev_make(EV_INST | USR, 0, 0);
	r->cpus[cpu / 64] = 1ULL << (cpu % 64);
	r->p.nr_events = 1;
	r->p.events = (uintptr_t)r->ev;
	r->p.cpus = (uintptr_t)r->cpus;
	r->p.cpus_size = 8;
}

/* ---- INFO ------------------------------------------------------------- */

TEST_F(abi, info_rejects_unknown_flags)
{
	struct pmuctl_info in;
	int b;

	SNAP();
	for (b = 0; b < 32; b++) {
		memset(&in, 0, sizeof(in));
		in.flags = 1U << b;
		EXPECT_EQ(-EINVAL, dev_ioctl(self->fd, PMUCTL_IOC_INFO, &in)) {
			TH_LOG("flags bit %d", b);
		}
	}
	EXPECT_UNCHANGED(&self->before, false);
}

TEST_F(abi, info_rejects_nonzero_reserved)
{
	struct pmuctl_info in;
	int i;

	SNAP();
	for (i = 0; i < (int)ARRAY_SIZE(in.reserved); i++) {
		memset(&in, 0, sizeof(in));
		in.reserved[i] = 1ULL << (i * 9);
		EXPECT_EQ(-EINVAL, dev_ioctl(self->fd, PMUCTL_IOC_INFO, &in)) {
			TH_LOG("reserved[%d]", i);
		}
	}
	EXPECT_UNCHANGED(&self->before, false);
}

/* Every "out" field of struct pmuctl_info: ignored on input, overwritten. */
static const struct {
	int line;
	size_t off, size;
} info_outputs[] = {
	{ __LINE__, offsetof(struct pmuctl_info, abi_version), 4 },
	{ __LINE__, offsetof(struct pmuctl_info, pmu_model), 4 },
	{ __LINE__, offsetof(struct pmuctl_info, max_events), 4 },
	{ __LINE__, offsetof(struct pmuctl_info, event_flags), 4 },
	{ __LINE__, offsetof(struct pmuctl_info, rdpmc), 4 },
	{ __LINE__, offsetof(struct pmuctl_info, backend), 4 },
	{ __LINE__, offsetof(struct pmuctl_info, nr_cpus), 4 },
	{ __LINE__, offsetof(struct pmuctl_info, commands), 8 },
	{ __LINE__, offsetof(struct pmuctl_info, holdings_nr), 4 },
	{ __LINE__, offsetof(struct pmuctl_info, session), 4 },
	{ __LINE__, offsetof(struct pmuctl_info, generation), 8 },
	{ __LINE__, offsetof(struct pmuctl_info, session_flags), 4 },
	{ __LINE__, offsetof(struct pmuctl_info, paranoid), 4 },
};

/* The INFO of the fixture, as a fresh call with @in's garbage must give it. */
static void info_expect_same(struct __test_metadata *_metadata,
			     const struct pmuctl_info *want,
			     const struct pmuctl_info *got, int line)
{
	struct pmuctl_info a = *want, b = *got;

	/* holding_size is in/out: without holdings it says the module's size. */
	a.holding_size = b.holding_size = 0;
	EXPECT_EQ(0, memcmp(&a, &b, sizeof(a))) TH_LOG("line %d", line);
	EXPECT_EQ(sizeof(struct pmuctl_holding), got->holding_size);
}

TEST_F(abi, info_ignores_output_fields_so_the_same_struct_is_passed_again)
{
	struct pmuctl_info in;
	unsigned int i;
	size_t b;

	SNAP();
	for (i = 0; i < ARRAY_SIZE(info_outputs); i++) {
		memset(&in, 0, sizeof(in));
		memset((char *)&in + info_outputs[i].off, 0xa5, info_outputs[i].size);
		ASSERT_EQ(0, dev_ioctl(self->fd, PMUCTL_IOC_INFO, &in)) {
			TH_LOG("output field of line %d", info_outputs[i].line);
		}
		info_expect_same(_metadata, &self->info, &in, info_outputs[i].line);
	}
	/* Every byte of caps is output. */
	for (b = 0; b < sizeof(in.caps); b++) {
		memset(&in, 0, sizeof(in));
		((char *)&in.caps)[b] = 0x80;
		ASSERT_EQ(0, dev_ioctl(self->fd, PMUCTL_IOC_INFO, &in)) {
			TH_LOG("caps byte %zu", b);
		}
		info_expect_same(_metadata, &self->info, &in, __LINE__);
	}
	/* The struct an INFO filled in, passed again as it is. */
	ASSERT_EQ(0, dev_ioctl(self->fd, PMUCTL_IOC_INFO, &in));
	ASSERT_EQ(0, dev_ioctl(self->fd, PMUCTL_IOC_INFO, &in));
	info_expect_same(_metadata, &self->info, &in, __LINE__);
	EXPECT_UNCHANGED(&self->before, false);
}

TEST_F(abi, info_rejects_bad_pointer_with_efault)
{
	void *none = mmap(NULL, self->page, PROT_NONE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct pmuctl_info *ro = mmap(NULL, self->page, PROT_READ,
				      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	SNAP();
	ASSERT_NE(MAP_FAILED, none);
	ASSERT_NE(MAP_FAILED, ro);
	EXPECT_EQ(-EFAULT, dev_ioctl(self->fd, PMUCTL_IOC_INFO, NULL));
	EXPECT_EQ(-EFAULT, dev_ioctl(self->fd, PMUCTL_IOC_INFO, none));
	/* Valid input that cannot be written back. */
	EXPECT_EQ(-EFAULT, dev_ioctl(self->fd, PMUCTL_IOC_INFO, ro));
	EXPECT_UNCHANGED(&self->before, false);
}

TEST_F(abi, info_lists_the_commands)
{
	static const unsigned long cmds[] = {
		PMUCTL_IOC_INFO, PMUCTL_IOC_PROGRAM, PMUCTL_IOC_START,
		PMUCTL_IOC_STOP, PMUCTL_IOC_RESET, PMUCTL_IOC_READ,
		PMUCTL_IOC_RELEASE, PMUCTL_IOC_RDPMC, PMUCTL_IOC_THREADS,
	};
	__u64 want = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		want |= 1ULL << _IOC_NR(cmds[i]);
	EXPECT_U64(want, self->info.commands);
}

TEST_F(abi, info_rejects_bad_holdings_buffer)
{
	static const __u32 bad_size[] = {
		0, 8, PMUCTL_HOLDING_SIZE_VER0 - 8, PMUCTL_HOLDING_SIZE_VER0 + 4,
		4096 + 8, 0xfffffff8U,
	};
	struct pmuctl_holding h[2];
	struct pmuctl_info in;
	unsigned int i;

	SNAP();
	memset(&in, 0, sizeof(in));
	in.holdings = (__u64)(uintptr_t)h;
	in.holding_size = sizeof(h[0]);
	in.holdings_size = sizeof(h[0]) + 8;	/* not a whole entry */
	EXPECT_EQ(-EINVAL, dev_ioctl(self->fd, PMUCTL_IOC_INFO, &in));
	memset(&in, 0, sizeof(in));
	in.holding_size = sizeof(h[0]);
	in.holdings_size = sizeof(h);		/* size without a buffer */
	EXPECT_EQ(-EINVAL, dev_ioctl(self->fd, PMUCTL_IOC_INFO, &in));
	memset(&in, 0, sizeof(in));
	in.holdings = 8;			/* unmapped */
	in.holding_size = sizeof(h[0]);
	in.holdings_size = sizeof(h);
	EXPECT_EQ(-EFAULT, dev_ioctl(self->fd, PMUCTL_IOC_INFO, &in));
	/* The entry size: needed with a buffer, at least VER0, 8-aligned, <= 4096. */
	for (i = 0; i < ARRAY_SIZE(bad_size); i++) {
		memset(&in, 0, sizeof(in));
		in.holdings = (__u64)(uintptr_t)h;
		in.holding_size = bad_size[i];
		in.holdings_size = sizeof(h);
		EXPECT_EQ(-EINVAL, dev_ioctl(self->fd, PMUCTL_IOC_INFO, &in)) {
			TH_LOG("holding_size %u", bad_size[i]);
		}
		if (!bad_size[i])
			continue;
		/* Without a buffer too: a given entry size is checked. */
		memset(&in, 0, sizeof(in));
		in.holding_size = bad_size[i];
		EXPECT_EQ(-EINVAL, dev_ioctl(self->fd, PMUCTL_IOC_INFO, &in)) {
			TH_LOG("holding_size %u, no buffer", bad_size[i]);
		}
	}
	EXPECT_UNCHANGED(&self->before, false);
}

TEST_F(abi, info_holding_entries_have_the_callers_size_zero_padded)
{
	const __u32 size = sizeof(struct pmuctl_holding) + 24;
	unsigned int n = cpus_possible(), i;
	struct pmuctl_event ev = ev_make(EV_INST | USR, 0, 0);
	struct pmuctl_program p;
	struct pmuctl_info in;
	unsigned char *buf;

	ASSERT_EQ(0, dev_program(self->fd, &ev, 1, 1, &p));
	buf = malloc((size_t)size * n);
	ASSERT_NE(NULL, buf);
	memset(buf, 0xa5, (size_t)size * n);
	memset(&in, 0, sizeof(in));
	in.holdings = (__u64)(uintptr_t)buf;
	in.holding_size = size;
	in.holdings_size = size * n;
	ASSERT_EQ(0, dev_ioctl(self->fd, PMUCTL_IOC_INFO, &in));
	EXPECT_EQ(n, in.holdings_nr);
	/* out: the module's own entry size. */
	EXPECT_EQ(sizeof(struct pmuctl_holding), in.holding_size);
	for (i = 0; i < n; i++) {
		const struct pmuctl_holding *h = (const void *)(buf + (size_t)i * size);
		unsigned int k;

		EXPECT_EQ(i, h->cpu);
		for (k = sizeof(*h); k < size; k++)
			EXPECT_EQ(0, buf[(size_t)i * size + k]) TH_LOG("cpu %u byte %u", i, k);
	}
	EXPECT_EQ(self->info.session,
		  ((const struct pmuctl_holding *)buf)->owner[PMUCTL_IDX_FIXED]);
	/* No buffer: holding_size 0 is fine and tells the size. */
	memset(&in, 0, sizeof(in));
	ASSERT_EQ(0, dev_ioctl(self->fd, PMUCTL_IOC_INFO, &in));
	EXPECT_EQ(sizeof(struct pmuctl_holding), in.holding_size);
	EXPECT_EQ(0U, in.holdings_nr);
	free(buf);
}

TEST_F(abi, generation_counts_program_and_reset_and_read_carries_it)
{
	struct pmuctl_event ev = ev_make(EV_INST | USR, 0, 0);
	struct pmuctl_program p;
	struct pmuctl_info in;
	struct pmuctl_read r;
	__u64 val[2], g;
	int fd2;

	/* A fresh session: 0; INFO of a session without a group works. */
	EXPECT_U64(0, self->info.generation);
	ASSERT_EQ(0, dev_program(self->fd, &ev, 1, 1, &p));
	ASSERT_EQ(0, dev_info(self->fd, &in));
	EXPECT_U64(1, in.generation);
	memset(&r, 0, sizeof(r));
	r.generation = 0xa5a5;			/* an output: ignored */
	r.nr_values = 2;
	r.values = (uintptr_t)val;
	ASSERT_EQ(0, dev_ioctl(self->fd, PMUCTL_IOC_READ, &r));
	EXPECT_U64(1, r.generation);
	/* START and STOP change nothing under the reader's feet. */
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_START));
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_STOP));
	ASSERT_EQ(0, dev_ioctl(self->fd, PMUCTL_IOC_READ, &r));
	EXPECT_U64(1, r.generation);
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RESET));
	ASSERT_EQ(0, dev_ioctl(self->fd, PMUCTL_IOC_READ, &r));
	EXPECT_U64(2, r.generation);
	/* A refused PROGRAM does not count; RELEASE then PROGRAM does. */
	EXPECT_EQ(-EBUSY, dev_program(self->fd, &ev, 1, 1, &p));
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
	ASSERT_EQ(0, dev_info(self->fd, &in));
	g = in.generation;
	EXPECT_U64(2, g);
	ASSERT_EQ(0, dev_program(self->fd, &ev, 1, 1, &p));
	ASSERT_EQ(0, dev_ioctl(self->fd, PMUCTL_IOC_READ, &r));
	EXPECT_U64(g + 1, r.generation);
	/* Generations are per session. */
	fd2 = dev_open();
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, dev_info(fd2, &in));
	EXPECT_U64(0, in.generation);
	close(fd2);
}

TEST_F(abi, info_reports_who_holds_what_on_each_cpu)
{
	unsigned int n = cpus_possible(), i, k;
	struct pmuctl_program p;
	struct pmuctl_event ev[2];
	struct pmuctl_holding *h;
	struct pmuctl_info in;

	h = calloc(n + 1, sizeof(*h));
	ASSERT_NE(NULL, h);
	/* Two generic counters on CPU 0, one of them with OFFCORE_RSP_0. */
	ev[0] = ev_make(USR | 0x003c, 0, GONLY);
	ev[1] = ev_make(USR | model_rsp0(self->info.pmu_model), 0x10001, 0);
	ASSERT_EQ(0, dev_program(self->fd, ev, 2, 1, &p));

	memset(&in, 0, sizeof(in));
	in.holdings = (__u64)(uintptr_t)h;
	in.holding_size = sizeof(*h);
	in.holdings_size = (n + 1) * sizeof(*h);
	ASSERT_EQ(0, dev_ioctl(self->fd, PMUCTL_IOC_INFO, &in));
	EXPECT_NE(0U, in.session);
	EXPECT_EQ(n, in.holdings_nr);
	for (i = 0; i < in.holdings_nr; i++) {
		EXPECT_EQ(i, h[i].cpu);
		for (k = 0; k < PMUCTL_HOLDING_COUNTERS; k++) {
			bool mine = i == 0 && (k == ev[0].counter || k == ev[1].counter);

			EXPECT_EQ(mine ? in.session : 0U, h[i].owner[k]) {
				TH_LOG("cpu %u counter index %u", i, k);
			}
		}
	}
	EXPECT_U64(0x1a6, h[0].xreg[0].msr);
	EXPECT_U64(0x10001, h[0].xreg[0].value);
	EXPECT_EQ(1U, h[0].xreg[0].refcount);
	EXPECT_EQ(0U, h[0].xreg[0].flags);	/* privileged: nothing hidden */
	EXPECT_NE(0U, h[0].flags & PMUCTL_HOLDING_ONLINE);
	if (n > 1)
		EXPECT_EQ(0U, h[1].xreg[0].refcount);

	/* Room for one CPU: one entry. */
	memset(&in, 0, sizeof(in));
	in.holdings = (__u64)(uintptr_t)h;
	in.holding_size = sizeof(*h);
	in.holdings_size = sizeof(*h);
	ASSERT_EQ(0, dev_ioctl(self->fd, PMUCTL_IOC_INFO, &in));
	EXPECT_EQ(1U, in.holdings_nr);
	free(h);
}

TEST_F(abi, info_reports_abi_version_limits_and_backend)
{
	const struct pmuctl_info *in = &self->info;
	struct ucpu cpu;
	unsigned int i;

	ucpu_read(&cpu);
	EXPECT_U64(PMUCTL_ABI_VERSION, in->abi_version);
	EXPECT_U64(1, in->abi_version);
	EXPECT_U64(PMUCTL_MAX_EVENTS, in->max_events);
	EXPECT_EQ(PMUCTL_EVENT_FLAGS_ALL, in->event_flags);
	EXPECT_EQ(cpus_possible(), in->nr_cpus);
	/* A CPU whose CPUID shows no PMU (QEMU TCG) only loads the model. */
	if ((cpu.leafa_eax & 0xff) < 2) {
		EXPECT_U64(PMUCTL_BACKEND_MODEL, in->backend);
	} else {
		EXPECT_TRUE(in->backend == PMUCTL_BACKEND_MSR ||
			    in->backend == PMUCTL_BACKEND_MODEL);
	}
	for (i = 0; i < ARRAY_SIZE(in->reserved); i++) {
		EXPECT_U64(0, in->reserved[i]);
	}
	EXPECT_EQ(0, in->caps.reserved0[0] | in->caps.reserved0[1]);
	EXPECT_U64(0, in->caps.reserved1);
	EXPECT_U64(0, in->caps.reserved[0]);
}

TEST_F(abi, info_model_matches_the_cpu)
{
	const struct pmuctl_caps *c = &self->info.caps;
	struct ucpu cpu;

	ucpu_read(&cpu);
	EXPECT_EQ(cpu.family, c->family);
	EXPECT_EQ(cpu.model, c->model);
	EXPECT_EQ(cpu.stepping, c->stepping);
	EXPECT_EQ(expected_model(cpu.family, cpu.model), self->info.pmu_model) {
		TH_LOG("family %u model %#x", cpu.family, cpu.model);
	}
	/* The rig's two CPUs by name [FACTS 4]. */
	if (cpu.family == 6 && cpu.model == 0x85) {
		EXPECT_U64(PMUCTL_MODEL_KNM, self->info.pmu_model);
	}
	if (cpu.family == 6 && cpu.model == 0x55) {
		EXPECT_U64(PMUCTL_MODEL_SKL, self->info.pmu_model);
	}
	if (cpu.family == 6 && cpu.model == 0x6a) {
		EXPECT_U64(PMUCTL_MODEL_ICX, self->info.pmu_model);
	}
	if (cpu.family == 6 && cpu.model == 0x8f) {
		EXPECT_U64(PMUCTL_MODEL_SPR, self->info.pmu_model);
	}
}

/* The register model's PMUs (kmod/regmodel.c rm_models). */
static const struct {
	int line;
	const char *name;
	__u8 version, nr_gp, gp_width, nr_fixed, fixed_width;
	__u32 flags;
	__u64 perf_capabilities;
	__u32 fixed_mask;
	__u32 events_unavailable;	/* EBX 0, past the vector of EAX[31:24] */
} rm_caps[] = {
	{ __LINE__, "knm", 3, 2, 40, 3, 40, PMUCTL_CAP_ANY_THREAD, 0, 0x7, 0xffffff80U },
	{ __LINE__, "knm4", 3, 4, 40, 3, 40, PMUCTL_CAP_ANY_THREAD, 0, 0x7, 0xffffff80U },
	{ __LINE__, "skl", 4, 4, 48, 3, 48,
	  PMUCTL_CAP_ANY_THREAD | PMUCTL_CAP_FULL_WIDTH_WRITE, 1ULL << 13, 0x7, 0xffffff80U },
	/* Ice Lake-SP and Sapphire Rapids: EAX 0x08300805 ECX 0xf EDX 0x8604. */
	/* ... with PERF_METRICS (PERF_CAPABILITIES bit 15). */
	{ __LINE__, "icx", 5, 8, 48, 4, 48,
	  PMUCTL_CAP_ANY_DEPRECATED | PMUCTL_CAP_FULL_WIDTH_WRITE | PMUCTL_CAP_PERF_METRICS,
	  1ULL << 13 | 1ULL << 15, 0xf, 0xffffff00U },
	{ __LINE__, "spr", 5, 8, 48, 4, 48,
	  PMUCTL_CAP_ANY_DEPRECATED | PMUCTL_CAP_FULL_WIDTH_WRITE | PMUCTL_CAP_PERF_METRICS,
	  1ULL << 13 | 1ULL << 15, 0xf, 0xffffff00U },
};

/* The preset regmodel_caps=auto picks for a CPU (kmod/regmodel.c rm_auto). */
static const char *rm_auto_name(const struct ucpu *cpu)
{
	if (cpu->family != 6)
		return "skl";
	switch (cpu->model) {
	case 0x57: case 0x85:
		return "knm";
	case 0x6a: case 0x6c:
		return "icx";
	case 0x8f: case 0xcf:
		return "spr";
	}
	return "skl";
}

TEST_F(abi, info_caps_describe_the_pmu)
{
	const struct pmuctl_caps *c = &self->info.caps;
	char *param, name[16] = "";
	struct ucpu cpu;
	unsigned int i;

	ucpu_read(&cpu);
	if (self->info.backend == PMUCTL_BACKEND_MSR) {
		__u32 eax = cpu.leafa_eax, edx = cpu.leafa_edx;

		EXPECT_EQ(eax & 0xff, c->version);
		EXPECT_EQ(((eax >> 8) & 0xff) > 32 ? 32 : (eax >> 8) & 0xff, c->nr_gp);
		EXPECT_EQ((eax >> 16) & 0xff, c->gp_width);
		if (c->version < 5) {
			EXPECT_EQ(edx & 0x1f, c->nr_fixed);
		}
		return;
	}
	param = slurp(PARAM_DIR "/regmodel_caps");
	ASSERT_TRUE(param != NULL) TH_LOG("no %s/regmodel_caps", PARAM_DIR);
	sscanf(param, "%15s", name);
	free(param);
	if (!strcmp(name, "auto"))
		strcpy(name, rm_auto_name(&cpu));
	for (i = 0; i < ARRAY_SIZE(rm_caps); i++) {
		if (strcmp(rm_caps[i].name, name))
			continue;
		TH_LOG("register model %s (line %d)", name, rm_caps[i].line);
		EXPECT_EQ(rm_caps[i].version, c->version);
		EXPECT_EQ(rm_caps[i].nr_gp, c->nr_gp);
		EXPECT_EQ(rm_caps[i].gp_width, c->gp_width);
		EXPECT_EQ(rm_caps[i].nr_fixed, c->nr_fixed);
		EXPECT_EQ(rm_caps[i].fixed_width, c->fixed_width);
		EXPECT_U64(rm_caps[i].fixed_mask, c->fixed_mask);
		EXPECT_EQ(rm_caps[i].flags, c->flags);
		EXPECT_EQ(rm_caps[i].perf_capabilities, c->perf_capabilities);
		/* EBX 0 and a vector of 7 (8): events 7 (8) and up are not there. */
		EXPECT_EQ(rm_caps[i].events_unavailable, c->events_unavailable);
		return;
	}
	ASSERT_TRUE(0) TH_LOG("unknown regmodel_caps %s", name);
}

/*
 * INFO.rdpmc is the module parameter rdpmc (0: NONE, 1: SESSION), not the
 * kernel's sysfs rdpmc file, which governs perf's grants; the parameter
 * takes 0 and 1 only.
 */
TEST_F(abi, info_reports_the_rdpmc_parameter)
{
	const char *param = param_path("rdpmc");
	struct pmuctl_info info;
	char *was = slurp(param);

	ASSERT_NE(NULL, was) TH_LOG("no %s", param);
	EXPECT_EQ(was[0] == '0' ? (__u32)PMUCTL_RDPMC_NONE :
				  (__u32)PMUCTL_RDPMC_SESSION, self->info.rdpmc);
	ASSERT_EQ(0, write_str(param, "0"));
	ASSERT_EQ(0, dev_info(self->fd, &info));
	EXPECT_EQ((__u32)PMUCTL_RDPMC_NONE, info.rdpmc);
	ASSERT_EQ(0, write_str(param, "1"));
	ASSERT_EQ(0, dev_info(self->fd, &info));
	EXPECT_EQ((__u32)PMUCTL_RDPMC_SESSION, info.rdpmc);
	/* perf's "2" (always) has no meaning here: refused, nothing changed. */
	EXPECT_EQ(-EINVAL, write_str(param, "2"));
	EXPECT_EQ(-EINVAL, write_str(param, "-1"));
	ASSERT_EQ(0, dev_info(self->fd, &info));
	EXPECT_EQ((__u32)PMUCTL_RDPMC_SESSION, info.rdpmc);
	write_str(param, was[0] == '0' ? "0" : "1");
	free(was);
}

/* ---- PROGRAM: the request struct ---------------------------------------- */

/* Expect a refusal with a reason, and nothing changed. */
#define EXPECT_REFUSED(r, err, why, idx) do {				\
	EXPECT_EQ(err, dev_ioctl(self->fd, PMUCTL_IOC_PROGRAM, &(r)->p)); \
	EXPECT_U64(why, (r)->p.err_reason);				\
	EXPECT_U64(idx, (r)->p.err_index);				\
	EXPECT_EQ(NO_CPU, (r)->p.err_cpu);				\
	EXPECT_UNCHANGED(&self->before, false);				\
} while (0)

TEST_F(abi, program_rejects_unknown_flags)
{
	static struct req r;
	int b;

	for (b = 0; b < 32; b++) {
		req_init(&r, 0);
		r.p.flags = 1U << b;
		SNAP();
		/*
		 * TASK alone is known, and refuses the CPU bitmap; INHERIT and
		 * ENABLE_ON_EXEC need TASK; REPLACE needs a group; the rest
		 * is unknown.
		 */
		if (r.p.flags == PMUCTL_PROGRAM_TASK)
			EXPECT_REFUSED(&r, -EINVAL, PMUCTL_R_BAD_CPU, 0);
		else if (r.p.flags == PMUCTL_PROGRAM_REPLACE)
			EXPECT_REFUSED(&r, -ENOENT, PMUCTL_R_NOT_PROGRAMMED, 0);
		else
			EXPECT_REFUSED(&r, -EINVAL, PMUCTL_R_BAD_FLAGS, 0);
	}
}

TEST_F(abi, program_rejects_nonzero_reserved)
{
	static struct req r;
	int i;

	for (i = 0; i < 4; i++) {
		req_init(&r, 0);
		r.p.reserved[i] = 1ULL << (63 - i);
		SNAP();
		EXPECT_REFUSED(&r, -EINVAL, PMUCTL_R_RESERVED_FIELD, 0);
	}
}

TEST_F(abi, program_ignores_output_fields)
{
	static struct req r;
	unsigned int k;

	for (k = 0; k < 3; k++) {
		req_init(&r, 0);
		r.p.err_reason = k == 0 ? PMUCTL_R_BAD_CPU : 0;
		r.p.err_index = k == 1 ? 3 : 0;
		r.p.err_cpu = k == 2 ? NO_CPU : 0;
		EXPECT_EQ(0, dev_ioctl(self->fd, PMUCTL_IOC_PROGRAM, &r.p)) {
			TH_LOG("case %u: reason %u", k, r.p.err_reason);
		}
		EXPECT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
	}
	/* Each event's output fields too. */
	req_init(&r, 0);
	r.ev[0].counter = PMUCTL_COUNTER_NONE;
	r.ev[0].config_used = EV_CYCLES | OS;
	r.ev[0].extra_msr = MSR_RSP0;
	ASSERT_EQ(0, dev_ioctl(self->fd, PMUCTL_IOC_PROGRAM, &r.p));
	EXPECT_EQ(FIXED(0), r.ev[0].counter);
	EXPECT_U64(EV_INST | USR, r.ev[0].config_used);
	EXPECT_EQ(0U, r.ev[0].extra_msr);
}

TEST_F(abi, program_retried_with_the_same_struct_succeeds)
{
	static struct req r;
	struct peer peer;
	struct peer_rep rp;
	struct pmuctl_event ev = ev_make(EV_REF | USR, 0, 0);

	/* Another session holds REF_TSC's only counter on CPU 0. */
	ASSERT_EQ(0, peer_spawn(&peer, -1));
	ASSERT_EQ(0, peer_program(&peer, &ev, 1, 1, &rp));
	req_init(&r, 0);
	r.p.nr_events = 2;
	r.ev[1] = ev_make(EV_REF | OS, 0, 0);
	EXPECT_EQ(-EBUSY, dev_ioctl(self->fd, PMUCTL_IOC_PROGRAM, &r.p));
	EXPECT_U64(PMUCTL_R_COUNTERS_BUSY, r.p.err_reason);
	EXPECT_EQ(1U, r.p.err_index);
	/* Freed: the very same struct, err_* still set, now succeeds. */
	peer_end(&peer, 0);
	ASSERT_EQ(0, state_wait_clean(2000));
	ASSERT_EQ(0, dev_ioctl(self->fd, PMUCTL_IOC_PROGRAM, &r.p)) {
		TH_LOG("reason %u index %u", r.p.err_reason, r.p.err_index);
	}
	EXPECT_EQ(FIXED(2), r.ev[1].counter);
	/* Released and programmed again: outputs of the success passed back. */
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
	EXPECT_EQ(0, dev_ioctl(self->fd, PMUCTL_IOC_PROGRAM, &r.p));
	/* A later failure rewrites every err_* field: nothing lingers. */
	r.p.err_index = 7;
	r.p.err_cpu = 5;
	r.p.nr_events = 0;
	EXPECT_EQ(-EINVAL, dev_ioctl(self->fd, PMUCTL_IOC_PROGRAM, &r.p));
	EXPECT_U64(PMUCTL_R_NONE, r.p.err_reason);
	EXPECT_EQ(0U, r.p.err_index);
	EXPECT_EQ(NO_CPU, r.p.err_cpu);
}

TEST_F(abi, program_rejects_zero_events)
{
	static struct req r;

	req_init(&r, 0);
	r.p.nr_events = 0;
	SNAP();
	/* No rule code for it: err_reason stays PMUCTL_R_NONE. */
	EXPECT_EQ(-EINVAL, dev_ioctl(self->fd, PMUCTL_IOC_PROGRAM, &r.p));
	EXPECT_U64(PMUCTL_R_NONE, r.p.err_reason);
	EXPECT_UNCHANGED(&self->before, false);
}

TEST_F(abi, program_rejects_more_than_max_events_with_e2big)
{
	static struct req r;
	__u32 n[] = { PMUCTL_MAX_EVENTS + 1, 0x80000000U, 0xffffffffU };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(n); i++) {
		req_init(&r, 0);
		r.p.nr_events = n[i];
		SNAP();
		EXPECT_REFUSED(&r, -E2BIG, PMUCTL_R_TOO_MANY_EVENTS,
			       PMUCTL_MAX_EVENTS);
	}
}

TEST_F(abi, program_max_events_is_a_valid_size)
{
	static struct req r;

	/* 32 events are not E2BIG: they are refused for counters, not size. */
	req_init(&r, 0);
	r.p.nr_events = PMUCTL_MAX_EVENTS;
	SNAP();
	EXPECT_EQ(-EBUSY, dev_ioctl(self->fd, PMUCTL_IOC_PROGRAM, &r.p));
	EXPECT_U64(PMUCTL_R_COUNTERS_BUSY, r.p.err_reason);
	EXPECT_UNCHANGED(&self->before, false);
}

TEST_F(abi, program_rejects_bad_cpus_size)
{
	static struct req r;
	__u32 size[] = { 0, 4, 7, 12, PMUCTL_MAX_CPU_BITMAP + 8,
			 PMUCTL_MAX_CPU_BITMAP * 2, 0xfffffff8U };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(size); i++) {
		req_init(&r, 0);
		r.p.cpus_size = size[i];
		SNAP();
		EXPECT_EQ(-EINVAL, dev_ioctl(self->fd, PMUCTL_IOC_PROGRAM, &r.p)) {
			TH_LOG("cpus_size %u", size[i]);
		}
		EXPECT_UNCHANGED(&self->before, false);
	}
}

TEST_F(abi, program_accepts_largest_cpu_bitmap)
{
	static struct req r;

	req_init(&r, 0);
	r.p.cpus_size = PMUCTL_MAX_CPU_BITMAP;
	EXPECT_EQ(0, dev_ioctl(self->fd, PMUCTL_IOC_PROGRAM, &r.p));
	EXPECT_EQ(FIXED(0), r.ev[0].counter);
	EXPECT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
}

TEST_F(abi, program_rejects_empty_cpu_bitmap)
{
	static struct req r;

	req_init(&r, 0);
	r.cpus[0] = 0;
	r.p.cpus_size = PMUCTL_MAX_CPU_BITMAP;
	SNAP();
	EXPECT_REFUSED(&r, -EINVAL, PMUCTL_R_BAD_CPU, 0);
}

TEST_F(abi, program_rejects_cpu_beyond_nr_cpus)
{
	static struct req r;
	__u32 bad[] = { self->info.nr_cpus, 63, 64, 8191 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		if (bad[i] < self->info.nr_cpus)
			continue;
		req_init(&r, 0);
		r.cpus[bad[i] / 64] |= 1ULL << (bad[i] % 64);
		r.p.cpus_size = PMUCTL_MAX_CPU_BITMAP;
		SNAP();
		EXPECT_REFUSED(&r, -EINVAL, PMUCTL_R_BAD_CPU, 0);
	}
}

TEST_F(abi, program_rejects_bad_pointers_with_efault)
{
	static struct req r;
	char *none = mmap(NULL, self->page, PROT_NONE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *two = mmap(NULL, 2 * self->page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct pmuctl_event *edge;

	ASSERT_NE(MAP_FAILED, none);
	ASSERT_NE(MAP_FAILED, two);
	/* An events array whose second element lies in an unmapped page. */
	ASSERT_EQ(0, munmap(two + self->page, self->page));
	edge = (struct pmuctl_event *)(two + self->page) - 1;
	*edge = ev_make(EV_INST | USR, 0, 0);

	SNAP();
	EXPECT_EQ(-EFAULT, dev_ioctl(self->fd, PMUCTL_IOC_PROGRAM, NULL));
	EXPECT_EQ(-EFAULT, dev_ioctl(self->fd, PMUCTL_IOC_PROGRAM, none));
	EXPECT_UNCHANGED(&self->before, false);

	req_init(&r, 0);
	r.p.events = 0;
	EXPECT_EQ(-EFAULT, dev_ioctl(self->fd, PMUCTL_IOC_PROGRAM, &r.p));
	req_init(&r, 0);
	r.p.events = (uintptr_t)none;
	EXPECT_EQ(-EFAULT, dev_ioctl(self->fd, PMUCTL_IOC_PROGRAM, &r.p));
	req_init(&r, 0);
	r.p.events = (uintptr_t)edge;
	r.p.nr_events = 2;
	EXPECT_EQ(-EFAULT, dev_ioctl(self->fd, PMUCTL_IOC_PROGRAM, &r.p));
	req_init(&r, 0);
	r.p.cpus = 0;
	EXPECT_EQ(-EFAULT, dev_ioctl(self->fd, PMUCTL_IOC_PROGRAM, &r.p));
	req_init(&r, 0);
	r.p.cpus = (uintptr_t)none;
	EXPECT_EQ(-EFAULT, dev_ioctl(self->fd, PMUCTL_IOC_PROGRAM, &r.p));
	EXPECT_UNCHANGED(&self->before, false);
}

TEST_F(abi, program_undoes_itself_when_events_cannot_be_written_back)
{
	static struct req r;
	struct pmuctl_event *ro = mmap(NULL, self->page, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(MAP_FAILED, ro);
	ro[0] = ev_make(EV_LLC_REF | USR, 0, 0);
	ro[1] = ev_make(EV_INST | USR, 0, 0);
	ASSERT_EQ(0, mprotect(ro, self->page, PROT_READ));
	req_init(&r, 0);
	r.p.events = (uintptr_t)ro;
	r.p.nr_events = 2;
	SNAP();
	EXPECT_EQ(-EFAULT, dev_ioctl(self->fd, PMUCTL_IOC_PROGRAM, &r.p));
	/* Programmed, then released: only the wave count moved. */
	EXPECT_UNCHANGED(&self->before, true);
	/* The session holds nothing: a new PROGRAM works. */
	req_init(&r, 0);
	EXPECT_EQ(0, dev_ioctl(self->fd, PMUCTL_IOC_PROGRAM, &r.p));
}

TEST_F(abi, program_twice_is_ebusy_already_programmed)
{
	static struct req r;

	req_init(&r, 0);
	ASSERT_EQ(0, dev_ioctl(self->fd, PMUCTL_IOC_PROGRAM, &r.p));
	req_init(&r, 0);
	r.ev[0] = ev_make(EV_CYCLES | USR, 0, 0);
	SNAP();
	EXPECT_REFUSED(&r, -EBUSY, PMUCTL_R_ALREADY_PROGRAMMED, 0);
	/* After RELEASE it may program again. */
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
	req_init(&r, 0);
	EXPECT_EQ(0, dev_ioctl(self->fd, PMUCTL_IOC_PROGRAM, &r.p));
}

/* ---- PROGRAM: each event's ABI fields ------------------------------------- */

static const struct {
	int line;
	size_t off, size;
	__u64 val;
	__u32 reason;
} event_abi[] = {
	{ __LINE__, offsetof(struct pmuctl_event, flags), 4, 1U << 1, PMUCTL_R_BAD_FLAGS },
	{ __LINE__, offsetof(struct pmuctl_event, flags), 4, 1U << 31, PMUCTL_R_BAD_FLAGS },
	{ __LINE__, offsetof(struct pmuctl_event, flags), 4, 0xfffffffeU, PMUCTL_R_BAD_FLAGS },
	{ __LINE__, offsetof(struct pmuctl_event, reserved0), 4, 1, PMUCTL_R_RESERVED_FIELD },
	{ __LINE__, offsetof(struct pmuctl_event, reserved0), 4, 1U << 31, PMUCTL_R_RESERVED_FIELD },
	{ __LINE__, offsetof(struct pmuctl_event, reserved[0]), 8, 1, PMUCTL_R_RESERVED_FIELD },
	{ __LINE__, offsetof(struct pmuctl_event, reserved[1]), 8, 1ULL << 63, PMUCTL_R_RESERVED_FIELD },
};

TEST_F(abi, program_rejects_each_event_abi_rule_at_its_index)
{
	static struct req r;
	unsigned int i, at;

	for (i = 0; i < ARRAY_SIZE(event_abi); i++) {
		for (at = 0; at < 3; at++) {
			char *f;

			req_init(&r, 0);
			r.p.nr_events = 3;
			r.ev[0] = ev_make(EV_INST | USR, 0, 0);
			r.ev[1] = ev_make(EV_CYCLES | USR, 0, 0);
			r.ev[2] = ev_make(EV_LLC_REF | USR, 0, 0);
			f = (char *)&r.ev[at] + event_abi[i].off;
			if (event_abi[i].size == 4)
				*(__u32 *)f = event_abi[i].val;
			else
				*(__u64 *)f = event_abi[i].val;
			SNAP();
			EXPECT_EQ(-EINVAL, dev_ioctl(self->fd, PMUCTL_IOC_PROGRAM, &r.p)) {
				TH_LOG("line %d, event %u", event_abi[i].line, at);
			}
			EXPECT_EQ(event_abi[i].reason, r.p.err_reason) {
				TH_LOG("line %d, event %u", event_abi[i].line, at);
			}
			EXPECT_EQ(at, r.p.err_index) {
				TH_LOG("line %d", event_abi[i].line);
			}
			EXPECT_EQ(NO_CPU, r.p.err_cpu);
			EXPECT_UNCHANGED(&self->before, false);
		}
	}
}

/* ---- PROGRAM: the core's rules on the guest's model ------------------------ */

#define M_KNX	((1U << PMUCTL_MODEL_KNL) | (1U << PMUCTL_MODEL_KNM))
#define M_SKL	(1U << PMUCTL_MODEL_SKL)
#define M_ICX	(1U << PMUCTL_MODEL_ICX)
#define M_SPR	(1U << PMUCTL_MODEL_SPR)
#define M_ALL	(M_KNX | M_SKL | M_ICX | M_SPR)
/* Models whose OFFCORE_RESPONSE_0 is event 0xb7 umask 1 (KNM_RSP0). */
#define M_B7	(M_KNX | M_SKL | M_ICX)

#define E(c, x, f) { .config = (c), .extra = (x), .flags = (f) }

static const struct rule_vec {
	int line;
	__u32 models;
	int err;
	__u32 reason, index;
	__u32 n;
	struct pmuctl_event ev[4];
} rules[] = {
	{ __LINE__, M_ALL, -EINVAL, PMUCTL_R_EDGE_NO_CMASK, 0, 1,
	  { E(EV_CYCLES | USR | EDGE, 0, 0) } },
	{ __LINE__, M_ALL, -EINVAL, PMUCTL_R_EDGE_NO_CMASK, 1, 2,
	  { E(EV_INST | USR, 0, 0), E(EV_LLC_MISS | USR | EDGE | INV, 0, 0) } },
	{ __LINE__, M_ALL, 0, 0, 0, 1,
	  { E(EV_LLC_MISS | USR | EDGE | CMASK(1), 0, 0) } },
	{ __LINE__, M_ALL, -EINVAL, PMUCTL_R_KERNEL_BITS, 0, 1,
	  { E(EV_CYCLES | USR | EN, 0, 0) } },
	{ __LINE__, M_ALL, -EINVAL, PMUCTL_R_KERNEL_BITS, 1, 2,
	  { E(EV_INST | USR, 0, 0), E(EV_CYCLES | OS | INT, 0, 0) } },
	{ __LINE__, M_ALL, -EINVAL, PMUCTL_R_PIN_CONTROL, 0, 1,
	  { E(EV_CYCLES | USR | PC, 0, 0) } },
	{ __LINE__, M_ALL, -EINVAL, PMUCTL_R_RESERVED_BITS, 0, 1,
	  { E(EV_CYCLES | USR | BIT(32), 0, 0) } },
	{ __LINE__, M_ALL, -EINVAL, PMUCTL_R_RESERVED_BITS, 2, 3,
	  { E(EV_INST | USR, 0, 0), E(EV_BR | USR, 0, 0),
	    E(EV_CYCLES | USR | BIT(63), 0, 0) } },
	/* no rig model enumerates leaf 23H's UMASK2 and EQ (reload_test's v6x does) */
	{ __LINE__, M_ALL, -EINVAL, PMUCTL_R_UMASK2_UNAVAILABLE, 1, 2,
	  { E(EV_INST | USR, 0, 0), E(EV_BR | USR | BIT(40), 0, 0) } },
	{ __LINE__, M_ALL, -EINVAL, PMUCTL_R_EQ_UNAVAILABLE, 0, 1,
	  { E(EV_BR | USR | BIT(36) | CMASK(1), 0, 0) } },
	{ __LINE__, M_ALL, -EINVAL, PMUCTL_R_NO_PRIV_LEVEL, 0, 1,
	  { E(EV_CYCLES, 0, 0) } },
	{ __LINE__, M_ALL, -EINVAL, PMUCTL_R_NO_PRIV_LEVEL, 1, 2,
	  { E(EV_CYCLES | OS, 0, 0), E(EV_LLC_REF | INV | CMASK(2), 0, 0) } },
	/* The model's CPUID vector has 7 events: TOPDOWN.SLOTS is absent. */
	{ __LINE__, M_ALL, -EINVAL, PMUCTL_R_EVENT_UNAVAILABLE, 0, 1,
	  { E(EV_SLOTS | USR, 0, 0) } },
	{ __LINE__, M_ALL, -EINVAL, PMUCTL_R_NO_ELIGIBLE_COUNTER, 0, 1,
	  { E(EV_REF | USR, 0, GONLY) } },
	{ __LINE__, M_ALL, -EINVAL, PMUCTL_R_NO_ELIGIBLE_COUNTER, 0, 1,
	  { E(EV_REF | USR | INV | CMASK(1), 0, 0) } },
	{ __LINE__, M_ALL, -EINVAL, PMUCTL_R_EXTRA_UNEXPECTED, 0, 1,
	  { E(EV_CYCLES | USR, 1, 0) } },
	{ __LINE__, M_ALL, -EINVAL, PMUCTL_R_EXTRA_UNEXPECTED, 1, 2,
	  { E(EV_INST | USR, 0, 0), E(EV_LLC_REF | USR, REQ0 | ANYRSP, 0) } },
	{ __LINE__, M_B7, -EINVAL, PMUCTL_R_OFFCORE_NO_REQUEST, 0, 1,
	  { E(KNM_RSP0 | USR, ANYRSP, 0) } },
	{ __LINE__, M_B7, -EINVAL, PMUCTL_R_OFFCORE_NO_RESPONSE, 0, 1,
	  { E(KNM_RSP0 | USR, REQ0, 0) } },
	{ __LINE__, M_B7, -EINVAL, PMUCTL_R_OFFCORE_ANY_RESPONSE_MIXED, 0, 1,
	  { E(KNM_RSP0 | USR, REQ0 | ANYRSP | NONDRAM, 0) } },
	{ __LINE__, M_B7, 0, 0, 0, 1,
	  { E(KNM_RSP0 | USR, REQ0 | NONDRAM, 0) } },
	/* KNL/KNM: bits 3 and 4 are out of Linux's masks (model.c policy). */
	{ __LINE__, M_KNX, -EINVAL, PMUCTL_R_EXTRA_MASK, 0, 1,
	  { E(KNM_RSP0 | USR, REQ0 | ANYRSP | BIT(3), 0) } },
	{ __LINE__, M_KNX, -EINVAL, PMUCTL_R_EXTRA_MASK, 0, 1,
	  { E(KNM_RSP1 | USR, REQ0 | ANYRSP | BIT(4), 0) } },
	/* PARTIAL_WRITES exists in RSP_1 only. */
	{ __LINE__, M_KNX, -EINVAL, PMUCTL_R_EXTRA_MASK, 0, 1,
	  { E(KNM_RSP0 | USR, REQ0 | PWR | ANYRSP, 0) } },
	{ __LINE__, M_KNX, 0, 0, 0, 1,
	  { E(KNM_RSP1 | USR, REQ0 | PWR | ANYRSP, 0) } },
	{ __LINE__, M_SKL, -EINVAL, PMUCTL_R_EXTRA_MASK, 0, 1,
	  { E(SKL_RSP0 | USR, REQ0 | ANYRSP | BIT(12), 0) } },
	{ __LINE__, M_SKL, -EINVAL, PMUCTL_R_EXTRA_MASK, 0, 1,
	  { E(SKL_RSP1 | USR, REQ0 | ANYRSP | BIT(38), 0) } },
	{ __LINE__, M_SKL | M_ICX, -EINVAL, PMUCTL_R_EXTRA_MASK, 0, 1,
	  { E(SKL_FE | USR, 0x8, 0) } },
	{ __LINE__, M_SKL | M_ICX | M_SPR, -EINVAL, PMUCTL_R_EXTRA_MASK, 0, 1,
	  { E(SKL_LDLAT | USR, 0x10000, 0) } },
	{ __LINE__, M_SKL | M_ICX | M_SPR, 0, 0, 0, 2,
	  { E(SKL_FE | USR, 0x11, 0), E(SKL_LDLAT | USR, 0x3, 0) } },
	/* AnyThread: KNM only on its fixed counters, REF_TSC's included (model.c policy). */
	{ __LINE__, M_KNX, -EINVAL, PMUCTL_R_ANY_NOT_ALLOWED, 0, 1,
	  { E(EV_LLC_REF | USR | ANY, 0, 0) } },
	{ __LINE__, M_KNX, -EINVAL, PMUCTL_R_ANY_NOT_ALLOWED, 0, 1,
	  { E(EV_INST | USR | ANY, 0, GONLY) } },
	{ __LINE__, M_KNX, 0, 0, 0, 1,
	  { E(EV_REF | USR | ANY, 0, 0) } },
	{ __LINE__, M_KNX, 0, 0, 0, 3,
	  { E(EV_INST | USR | ANY, 0, 0), E(EV_CYCLES | OS | ANY, 0, 0),
	    E(EV_REF | USR | ANY, 0, 0) } },
	{ __LINE__, M_SKL, 0, 0, 0, 2,
	  { E(EV_LLC_REF | USR | ANY, 0, 0), E(EV_REF | USR | ANY, 0, 0) } },
	/* OUTSTANDING: RSP_0 only, request bits only, on any generic counter. */
	{ __LINE__, M_KNX, -EINVAL, PMUCTL_R_OUTSTANDING_ON_RSP1, 0, 1,
	  { E(KNM_RSP1 | USR, REQ0 | OUTST, 0) } },
	{ __LINE__, M_KNX, -EINVAL, PMUCTL_R_OUTSTANDING_WITH_RESPONSE, 0, 1,
	  { E(KNM_RSP0 | USR, REQ0 | OUTST | ANYRSP, 0) } },
	{ __LINE__, M_KNX, -EINVAL, PMUCTL_R_OUTSTANDING_WITH_RESPONSE, 0, 1,
	  { E(KNM_RSP0 | USR, REQ0 | OUTST | NONDRAM, 0) } },
	/* Average latency pairs. */
	{ __LINE__, M_KNX, -EINVAL, PMUCTL_R_LATENCY_REQUEST_MISMATCH, 1, 2,
	  { E(KNM_RSP0 | USR, REQ0 | OUTST, 0), E(KNM_RSP1 | USR, REQ1 | ANYRSP, 0) } },
	{ __LINE__, M_KNX, -EINVAL, PMUCTL_R_LATENCY_REQUEST_MISMATCH, 1, 2,
	  { E(KNM_RSP0 | USR, REQ0 | OUTST, 0),
	    E(KNM_RSP1 | USR, REQ0 | REQ1 | ANYRSP, 0) } },
	{ __LINE__, M_KNX, -EINVAL, PMUCTL_R_LATENCY_NO_ANY_RESPONSE, 1, 2,
	  { E(KNM_RSP0 | USR, REQ0 | OUTST, 0), E(KNM_RSP1 | USR, REQ0 | NONDRAM, 0) } },
	{ __LINE__, M_KNX, 0, 0, 0, 2,
	  { E(KNM_RSP0 | USR, REQ0 | OUTST, 0), E(KNM_RSP1 | USR, REQ0 | ANYRSP, 0) } },
	/* The pair is what the MSRs hold: a value moved to RSP_1 is a partner. */
	{ __LINE__, M_KNX, -EINVAL, PMUCTL_R_LATENCY_REQUEST_MISMATCH, 1, 2,
	  { E(KNM_RSP0 | USR, REQ0 | OUTST, 0), E(KNM_RSP0 | USR, REQ1 | ANYRSP, 0) } },
	{ __LINE__, M_KNX, 0, 0, 0, 2,
	  { E(KNM_RSP0 | USR, REQ0 | OUTST, 0), E(KNM_RSP0 | USR, REQ0 | ANYRSP, 0) } },
	/* OUTSTANDING is no PMC0 constraint: two events share its value. */
	{ __LINE__, M_KNX, 0, 0, 0, 2,
	  { E(KNM_RSP0 | USR, REQ0 | OUTST, 0), E(KNM_RSP0 | OS, REQ0 | OUTST, 0) } },
	/* Busy inside one group. */
	{ __LINE__, M_ALL, -EBUSY, PMUCTL_R_COUNTERS_BUSY, 1, 2,
	  { E(EV_REF | USR, 0, 0), E(EV_REF | OS, 0, 0) } },
	{ __LINE__, M_B7, -EBUSY, PMUCTL_R_OFFCORE_BOTH_BUSY, 2, 3,
	  { E(KNM_RSP0 | USR, REQ0 | ANYRSP, 0), E(KNM_RSP0 | USR, REQ1 | ANYRSP, 0),
	    E(KNM_RSP0 | USR, REQ2 | ANYRSP, 0) } },
	{ __LINE__, M_KNX, -EBUSY, PMUCTL_R_OFFCORE_RSP0_BUSY, 1, 2,
	  { E(KNM_RSP0 | USR, REQ0 | OUTST, 0), E(KNM_RSP0 | USR, REQ1 | OUTST, 0) } },
	{ __LINE__, M_KNX, -EBUSY, PMUCTL_R_OFFCORE_RSP1_BUSY, 1, 2,
	  { E(KNM_RSP1 | USR, REQ0 | PWR | ANYRSP, 0),
	    E(KNM_RSP1 | USR, REQ1 | PWR | ANYRSP, 0) } },
	{ __LINE__, M_SKL | M_ICX | M_SPR, -EBUSY, PMUCTL_R_FRONTEND_BUSY, 1, 2,
	  { E(SKL_FE | USR, 0x11, 0), E(SKL_FE | USR, 0x12, 0) } },
	{ __LINE__, M_SKL | M_ICX | M_SPR, -EBUSY, PMUCTL_R_LDLAT_BUSY, 1, 2,
	  { E(SKL_LDLAT | USR, 0x3, 0), E(SKL_LDLAT | USR, 0x4, 0) } },
	/* Ice Lake server and Sapphire Rapids (kmod/core/model.c). */
	{ __LINE__, M_ICX | M_SPR, -EINVAL, PMUCTL_R_ANY_NOT_ALLOWED, 0, 1,
	  { E(EV_INST | USR | ANY, 0, 0) } },
	{ __LINE__, M_ICX | M_SPR, -EINVAL, PMUCTL_R_ANY_NOT_ALLOWED, 1, 2,
	  { E(EV_INST | USR, 0, 0), E(EV_LLC_REF | USR | ANY, 0, 0) } },
	{ __LINE__, M_ICX | M_SPR, 0, 0, 0, 3,	/* fixed 3, and 0x0200 on fixed 1 */
	  { E(0x0400 | USR, 0, 0), E(0x0200 | USR, 0, 0), E(EV_SLOTS | USR, 0, 0) } },
	/* topdown metrics (the presets have PERF_METRICS): with slots only */
	{ __LINE__, M_ICX | M_SPR, -EINVAL, PMUCTL_R_METRICS_NEED_SLOTS, 0, 1,
	  { E(0x8000 | USR, 0, 0) } },
	{ __LINE__, M_ICX | M_SPR, -EINVAL, PMUCTL_R_METRICS_NEED_SLOTS, 1, 2,
	  { E(0x0400 | OS, 0, 0), E(0x8100 | USR, 0, 0) } },
	{ __LINE__, M_ICX | M_SPR, 0, 0, 0, 3,
	  { E(0x8100 | USR, 0, 0), E(0x0400 | USR, 0, 0), E(0x8300 | USR, 0, 0) } },
	{ __LINE__, M_ICX, -EINVAL, PMUCTL_R_METRICS_UNAVAILABLE, 1, 2,
	  { E(0x0400 | USR, 0, 0), E(0x8400 | USR, 0, 0) } },	/* Ice Lake: 4 */
	{ __LINE__, M_ICX, -EINVAL, PMUCTL_R_EXTRA_MASK, 0, 1,
	  { E(SKL_RSP0 | USR, REQ0 | ANYRSP | BIT(14), 0) } },
	{ __LINE__, M_ICX, -EINVAL, PMUCTL_R_EXTRA_UNEXPECTED, 0, 1,
	  { E(SPR_RSP0 | USR, REQ0 | ANYRSP, 0) } },
	{ __LINE__, M_SPR, -EINVAL, PMUCTL_R_EXTRA_UNEXPECTED, 0, 1,
	  { E(SKL_RSP0 | USR, REQ0 | ANYRSP, 0) } },
	{ __LINE__, M_SPR, 0, 0, 0, 2,
	  { E(SPR_RSP0 | USR, REQ0 | ANYRSP | BIT(14), 0), E(SPR_RSP1 | USR, REQ1 | NONDRAM, 0) } },
	{ __LINE__, M_SPR, -EINVAL, PMUCTL_R_OFFCORE_NO_REQUEST, 0, 1,
	  { E(SPR_RSP0 | USR, ANYRSP, 0) } },
	{ __LINE__, M_SPR, -EINVAL, PMUCTL_R_OFFCORE_ANY_RESPONSE_MIXED, 0, 1,
	  { E(SPR_RSP1 | USR, REQ0 | ANYRSP | NONDRAM, 0) } },
	{ __LINE__, M_SPR, -EBUSY, PMUCTL_R_OFFCORE_BOTH_BUSY, 2, 3,
	  { E(SPR_RSP0 | USR, REQ0 | ANYRSP, 0), E(SPR_RSP0 | USR, REQ1 | ANYRSP, 0),
	    E(SPR_RSP0 | USR, REQ2 | ANYRSP, 0) } },
	/* MSR_PEBS_FRONTEND: 0x40ad shares FRONTEND_RETIRED's one value */
	{ __LINE__, M_SPR, -EBUSY, PMUCTL_R_FRONTEND_BUSY, 1, 2,
	  { E(SKL_FE | USR, 0x11, 0), E(0x40ad | USR, 0x1, 0) } },
	{ __LINE__, M_SPR, 0, 0, 0, 2,
	  { E(SKL_FE | USR, 0x1, 0), E(0x40ad | USR, 0x1, 0) } },
	{ __LINE__, M_SPR, -EINVAL, PMUCTL_R_EXTRA_MASK, 0, 1,
	  { E(0x40ad | USR, 0x8, 0) } },
	/* TOPDOWN.BAD_SPEC_SLOTS and BR_MISPREDICT_SLOTS: counter 0 only */
	{ __LINE__, M_SPR, -EBUSY, PMUCTL_R_COUNTERS_BUSY, 1, 2,
	  { E(0x04a4 | USR, 0, 0), E(0x08a4 | USR, 0, 0) } },
};

TEST_F(abi, program_reports_each_core_rule_with_reason_and_index)
{
	__u32 me = 1U << self->info.pmu_model;
	unsigned int i, ran = 0;

	if (!(me & M_ALL))
		SKIP(return, "the rule vectors cover knl/knm/skl/icx/spr, not model %u",
		     self->info.pmu_model);
	for (i = 0; i < ARRAY_SIZE(rules); i++) {
		const struct rule_vec *v = &rules[i];
		struct pmuctl_event ev[4];
		struct pmuctl_program p;
		int fd, ret;
		__u32 k;

		if (!(v->models & me))
			continue;
		if (v->reason == PMUCTL_R_EVENT_UNAVAILABLE &&
		    !(self->info.caps.events_unavailable & (1U << PMUCTL_ARCH_TOPDOWN_SLOTS)))
			continue;
		ran++;
		memcpy(ev, v->ev, sizeof(ev));
		fd = dev_open();
		ASSERT_LE(0, fd);
		SNAP();
		ret = dev_program(fd, ev, v->n, 1, &p);
		EXPECT_EQ(v->err, ret) {
			TH_LOG("line %d: reason %u index %u", v->line,
			       p.err_reason, p.err_index);
		}
		if (v->err) {
			EXPECT_EQ(v->reason, p.err_reason) TH_LOG("line %d", v->line);
			EXPECT_EQ(v->index, p.err_index) TH_LOG("line %d", v->line);
			EXPECT_EQ(NO_CPU, p.err_cpu) TH_LOG("line %d", v->line);
			EXPECT_UNCHANGED(&self->before, false);
		} else {
			for (k = 0; k < v->n; k++) {
				EXPECT_NE(PMUCTL_COUNTER_NONE, ev[k].counter) {
					TH_LOG("line %d event %u", v->line, k);
				}
			}
			EXPECT_U64(PMUCTL_R_NONE, p.err_reason);
		}
		close(fd);
	}
	TH_LOG("%u rule vectors for model %u", ran, self->info.pmu_model);
	EXPECT_LT(20U, ran);
}

TEST_F(abi, program_refuses_one_more_generic_event_than_counters)
{
	static const __u64 cfg[] = { EV_LLC_REF, EV_LLC_MISS, EV_BR, EV_BR_MISS };
	struct pmuctl_event ev[PMUCTL_MAX_GP + 1];
	struct pmuctl_program p;
	__u32 n = self->info.caps.nr_gp + 1, i;

	ASSERT_LE(n, ARRAY_SIZE(ev));
	for (i = 0; i < n; i++)
		ev[i] = ev_make(cfg[i % 4] | USR | CMASK(i / 4), 0, 0);
	SNAP();
	EXPECT_EQ(-EBUSY, dev_program(self->fd, ev, n, 1, &p));
	EXPECT_U64(PMUCTL_R_COUNTERS_BUSY, p.err_reason);
	EXPECT_EQ(n - 1, p.err_index);
	EXPECT_UNCHANGED(&self->before, false);
	/* One fewer fits. */
	for (i = 0; i < n; i++)
		ev[i] = ev_make(cfg[i % 4] | USR | CMASK(i / 4), 0, 0);
	EXPECT_EQ(0, dev_program(self->fd, ev, n - 1, 1, &p));
}

/* ---- control commands and READ ---------------------------------------------- */

static const struct {
	int line;
	unsigned long cmd;
	const char *name;
} ctls[] = {
	{ __LINE__, PMUCTL_IOC_START, "START" },
	{ __LINE__, PMUCTL_IOC_STOP, "STOP" },
	{ __LINE__, PMUCTL_IOC_RESET, "RESET" },
	{ __LINE__, PMUCTL_IOC_RELEASE, "RELEASE" },
	{ __LINE__, PMUCTL_IOC_RDPMC, "RDPMC" },
};

TEST_F(abi, commands_before_program_are_enoent)
{
	__u64 val[4];
	unsigned int i;

	SNAP();
	for (i = 0; i < ARRAY_SIZE(ctls); i++) {
		EXPECT_EQ(-ENOENT, dev_ctl(self->fd, ctls[i].cmd)) {
			TH_LOG("%s", ctls[i].name);
		}
	}
	EXPECT_EQ(-ENOENT, dev_read(self->fd, 0, val, 4));
	EXPECT_UNCHANGED(&self->before, false);
}

TEST_F(abi, commands_after_release_are_enoent)
{
	struct pmuctl_event ev = ev_make(EV_INST | USR, 0, 0);
	struct pmuctl_program p;
	__u64 val[4];
	unsigned int i;

	ASSERT_EQ(0, dev_program(self->fd, &ev, 1, 1, &p));
	ASSERT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
	SNAP();
	for (i = 0; i < ARRAY_SIZE(ctls); i++) {
		EXPECT_EQ(-ENOENT, dev_ctl(self->fd, ctls[i].cmd)) {
			TH_LOG("%s", ctls[i].name);
		}
	}
	EXPECT_EQ(-ENOENT, dev_read(self->fd, 0, val, 4));
	EXPECT_UNCHANGED(&self->before, false);
}

TEST_F(abi, ctl_rejects_bad_flags_and_reserved)
{
	struct pmuctl_event ev = ev_make(EV_INST | USR, 0, 0);
	struct pmuctl_program p;
	struct pmuctl_ctl c;
	unsigned int i, k;

	/* Held, so that EINVAL cannot be ENOENT, and RELEASE must not release. */
	ASSERT_EQ(0, dev_program(self->fd, &ev, 1, 1, &p));
	for (i = 0; i < ARRAY_SIZE(ctls); i++) {
		for (k = 0; k < 4 + 32; k++) {
			memset(&c, 0, sizeof(c));
			if (k < 32)
				c.flags = 1U << k;
			else if (k == 32)
				c.reserved0 = 1;
			else if (k == 33)
				c.reserved0 = 1U << 31;
			else
				c.reserved[k - 34] = 1ULL << 40;
			SNAP();
			EXPECT_EQ(-EINVAL, dev_ioctl(self->fd, ctls[i].cmd, &c)) {
				TH_LOG("%s case %u", ctls[i].name, k);
			}
			EXPECT_UNCHANGED(&self->before, false);
		}
		EXPECT_EQ(-EFAULT, dev_ioctl(self->fd, ctls[i].cmd, NULL)) {
			TH_LOG("%s", ctls[i].name);
		}
	}
	/* Still held. */
	EXPECT_EQ(0, dev_ctl(self->fd, PMUCTL_IOC_RELEASE));
}

TEST_F(abi, read_rejects_bad_flags_and_reserved)
{
	struct pmuctl_event ev = ev_make(EV_INST | USR, 0, 0);
	struct pmuctl_program p;
	struct pmuctl_read r;
	__u64 val[2];
	unsigned int k;

	ASSERT_EQ(0, dev_program(self->fd, &ev, 1, 1, &p));
	/* PMUCTL_READ_THREAD is for task scope: a CPU-scope READ refuses it. */
	for (k = 0; k < 32 + 1 + ARRAY_SIZE(r.reserved); k++) {
		memset(&r, 0, sizeof(r));
		r.nr_values = 2;
		r.values = (uintptr_t)val;
		if (k < 32)
			r.flags = 1U << k;
		else if (k == 32)
			r.reserved0 = 1;
		else
			r.reserved[k - 33] = 1;
		SNAP();
		EXPECT_EQ(-EINVAL, dev_ioctl(self->fd, PMUCTL_IOC_READ, &r)) TH_LOG("case %u", k);
		EXPECT_UNCHANGED(&self->before, false);
	}
}

TEST_F(abi, read_rejects_cpus_outside_the_session_and_short_buffers)
{
	struct pmuctl_event ev[2] = { ev_make(EV_INST | USR, 0, 0),
				      ev_make(EV_CYCLES | USR, 0, 0) };
	struct pmuctl_program p;
	__u64 val[4];

	ASSERT_EQ(0, dev_program(self->fd, ev, 2, 1, &p));
	SNAP();
	if (self->info.nr_cpus > 1) {
		EXPECT_EQ(-EINVAL, dev_read(self->fd, 1, val, 2));
	}
	EXPECT_EQ(-EINVAL, dev_read(self->fd, self->info.nr_cpus, val, 2));
	EXPECT_EQ(-EINVAL, dev_read(self->fd, 0xffffffffU, val, 2));
	EXPECT_EQ(-EINVAL, dev_read(self->fd, 0, val, 1));
	EXPECT_EQ(-EINVAL, dev_read(self->fd, 0, val, 0));
	EXPECT_EQ(-EFAULT, dev_read(self->fd, 0, NULL, 2));
	EXPECT_EQ(-EFAULT, dev_ioctl(self->fd, PMUCTL_IOC_READ, NULL));
	EXPECT_UNCHANGED(&self->before, false);
}

TEST_F(abi, read_writes_exactly_the_group_values)
{
	struct pmuctl_event ev[2] = { ev_make(EV_INST | USR, 0, 0),
				      ev_make(EV_CYCLES | USR, 0, 0) };
	struct pmuctl_program p;
	__u64 val[4] = { ~0ULL, ~0ULL, 0x5a5a5a5a5a5a5a5aULL, 0x1234 };

	ASSERT_EQ(0, dev_program(self->fd, ev, 2, 1, &p));
	EXPECT_EQ(0, dev_read(self->fd, 0, val, 4));
	EXPECT_EQ(0x5a5a5a5a5a5a5a5aULL, val[2]);
	EXPECT_U64(0x1234, val[3]);
	if (self->info.backend == PMUCTL_BACKEND_MODEL) {
		/* Stopped and zeroed; nothing counts in the model. */
		EXPECT_U64(0, val[0]);
		EXPECT_U64(0, val[1]);
	}
}

/* ---- unknown commands ----------------------------------------------------------- */

TEST_F(abi, unknown_ioctl_is_enotty)
{
	char buf[256] = { 0 };
	unsigned long cmds[] = {
		_IO(PMUCTL_IOC_MAGIC, 0x07),
		_IOWR(PMUCTL_IOC_MAGIC, 0x07, struct pmuctl_ctl),
		_IOW(PMUCTL_IOC_MAGIC, 0x08, struct pmuctl_ctl),
		_IOWR(PMUCTL_IOC_MAGIC, 0xff, struct pmuctl_program),
		_IOWR(PMUCTL_IOC_MAGIC + 1, 0x00, struct pmuctl_info),
		_IOWR('T', 0x01, struct pmuctl_program),
		0,
	};
	unsigned int i;

	SNAP();
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		EXPECT_EQ(-ENOTTY, dev_ioctl(self->fd, cmds[i], buf)) {
			TH_LOG("cmd %#lx", cmds[i]);
		}
	}
	EXPECT_UNCHANGED(&self->before, false);
}

TEST_F(abi, known_number_with_wrong_size_or_direction_is_enotty)
{
	char buf[256] = { 0 };
	unsigned long cmds[] = {
		_IOC(_IOC_READ | _IOC_WRITE, PMUCTL_IOC_MAGIC, 0x00, sizeof(struct pmuctl_info) + 8),
		_IOC(_IOC_READ | _IOC_WRITE, PMUCTL_IOC_MAGIC, 0x00, sizeof(struct pmuctl_info) - 8),
		_IOC(_IOC_READ | _IOC_WRITE, PMUCTL_IOC_MAGIC, 0x01, sizeof(struct pmuctl_program) - 8),
		_IOC(_IOC_WRITE, PMUCTL_IOC_MAGIC, 0x02, sizeof(struct pmuctl_ctl) + 8),
		_IOC(_IOC_WRITE, PMUCTL_IOC_MAGIC, 0x05, sizeof(struct pmuctl_read) - 8),
		_IOC(_IOC_WRITE, PMUCTL_IOC_MAGIC, 0x06, 0),
		_IOR(PMUCTL_IOC_MAGIC, 0x00, struct pmuctl_info),
		_IOWR(PMUCTL_IOC_MAGIC, 0x02, struct pmuctl_ctl),
		_IOR(PMUCTL_IOC_MAGIC, 0x05, struct pmuctl_read),
		/* READ before it returned the generation: write-only. */
		_IOW(PMUCTL_IOC_MAGIC, 0x05, struct pmuctl_read),
		/* INFO before holding_size and generation: 136 bytes. */
		_IOC(_IOC_READ | _IOC_WRITE, PMUCTL_IOC_MAGIC, 0x00, 136),
	};
	unsigned int i;

	SNAP();
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		EXPECT_EQ(-ENOTTY, dev_ioctl(self->fd, cmds[i], buf)) {
			TH_LOG("cmd %#lx", cmds[i]);
		}
	}
	EXPECT_UNCHANGED(&self->before, false);
}

DEVICE_TEST_MAIN
