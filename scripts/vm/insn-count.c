// SPDX-License-Identifier: GPL-2.0
/*
 * insn-count.so: a QEMU TCG plugin that counts the instructions a
 * one-CPU guest executes, user and kernel apart, between markers the
 * guest program executes; what "make bench" measures with when the
 * guest's PMU cannot be used (a tool that programs the counters itself,
 * such as LIKWID, would reprogram a pmuctl group measuring it).
 *
 * Every instruction adds one, by an inline operation QEMU generates in
 * the translated code, to the user count (address below the canonical
 * hole) or the kernel count (above); SYSCALL, RDMSR, WRMSR and RDPMC
 * each add one to a count of their own as well.  The counts are global,
 * every vCPU's together, and not atomic: run the guest with -smp 1, or
 * with -accel tcg,thread=single (all vCPUs in one host thread), where
 * they are what the whole machine executed.  A marker is an 8-byte NOP
 * the guest cannot otherwise contain, nopl DISP(%rax,%rax,1)
 * (0f 1f 84 00 DISP32) with DISP = 0x504d0000 | OP << 12 | ARG:
 *   OP 1 START   the window starts: the counts are noted
 *   OP 2 STOP    it ends: one line
 *                "stop LABEL ARG USER KERNEL SYSCALL RDMSR WRMSR RDPMC"
 *                with the counts from the START's to the STOP's (their
 *                own instructions included: the same in every window)
 *   OP 3 TICK    the label goes up by one
 *   OP 4 CLEAR   the label goes back to 0
 * so that a program labels its windows with a number it knows only at
 * run time (TICK executed LABEL times).  A marker outside a guest that
 * loads this plugin is a NOP, 8 bytes, one instruction.
 *
 * With prof=LABEL the plugin also profiles the kernel in the windows of
 * that label: every translation block of kernel text executed in them adds
 * its instructions to its own count (a block left early by an interrupt
 * or a fault counts whole: a profile, not the window's count), and at exit
 * one line per block that ran, "prof VADDR INSNS", goes to FILE before
 * the "end" line; scripts/insn-prof.sh sums them per function.  The
 * callback per block makes the guest slower: for a profile, not for the
 * counts.
 *
 * usage: qemu-system-x86_64 -smp 1 -plugin PATH/insn-count.so,out=FILE[,prof=LABEL] ...
 *        qemu-system-x86_64 -smp N -accel tcg,thread=single -plugin ...
 * Lines go to FILE (opened when QEMU starts, written as they come).
 * Built by "make build/vm/insn-count.so" against QEMU's qemu-plugin.h,
 * taken from Debian's QEMU source at build time
 * (scripts/vm/insn-plugin.sh).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define MARK_MAGIC	0x504d0000u
#define OP_START	1
#define OP_STOP		2
#define OP_TICK		3
#define OP_CLEAR	4

/* x86-64: kernel text and data lie above the canonical hole. */
#define KERNEL_START	0xffff800000000000ull

enum { C_USER, C_KERNEL, C_SYSCALL, C_RDMSR, C_WRMSR, C_RDPMC, C_NR };

static uint64_t cnt[C_NR], cnt0[C_NR];
static unsigned int label;
static FILE *out;

/* prof=LABEL: a translated block of kernel text, and what it ran. */
struct prof_tb {
	uint64_t vaddr;
	uint64_t insns;		/* in the profiled windows */
	unsigned int n;		/* its instructions */
	struct prof_tb *next;
};
static long prof_label = -1;
static int prof_active;
static struct prof_tb *prof_tbs;

static void marker(unsigned int vcpu, void *udata)
{
	uint32_t disp = (uint32_t)(uintptr_t)udata;
	unsigned int arg = disp & 0xfff;

	(void)vcpu;
	switch (disp >> 12 & 0xf) {
	case OP_START:
		memcpy(cnt0, cnt, sizeof(cnt0));
		prof_active = prof_label == (long)label;
		break;
	case OP_STOP:
		prof_active = 0;
		fprintf(out, "stop %u %u", label, arg);
		for (int i = 0; i < C_NR; i++)
			fprintf(out, " %" PRIu64, cnt[i] - cnt0[i]);
		fputc('\n', out);
		break;
	case OP_TICK:
		label++;
		break;
	case OP_CLEAR:
		label = 0;
		break;
	}
}

/* The marker's DISP, or 0 when @insn is no marker. */
static uint32_t marker_disp(const struct qemu_plugin_insn *insn)
{
	static const unsigned char op[4] = { 0x0f, 0x1f, 0x84, 0x00 };
	const unsigned char *b = qemu_plugin_insn_data(insn);
	uint32_t disp;

	if (qemu_plugin_insn_size(insn) != 8 || memcmp(b, op, sizeof(op)))
		return 0;
	memcpy(&disp, b + 4, sizeof(disp));	/* little-endian, as x86 */
	return (disp & 0xffff0000u) == MARK_MAGIC ? disp : 0;
}

/* The count of its own an instruction adds to, or -1. */
static int insn_class(const struct qemu_plugin_insn *insn)
{
	const unsigned char *b = qemu_plugin_insn_data(insn);

	if (qemu_plugin_insn_size(insn) != 2 || b[0] != 0x0f)
		return -1;
	switch (b[1]) {
	case 0x05: return C_SYSCALL;
	case 0x32: return C_RDMSR;
	case 0x30: return C_WRMSR;
	case 0x33: return C_RDPMC;
	}
	return -1;
}

static void prof_exec(unsigned int vcpu, void *udata)
{
	struct prof_tb *p = udata;

	(void)vcpu;
	if (prof_active)
		p->insns += p->n;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	uint64_t tb_va = qemu_plugin_tb_vaddr(tb);

	(void)id;
	if (prof_label >= 0 && tb_va >= KERNEL_START) {
		struct prof_tb *p = calloc(1, sizeof(*p));

		if (p) {
			p->vaddr = tb_va;
			p->n = (unsigned int)n;
			p->next = prof_tbs;
			prof_tbs = p;
			qemu_plugin_register_vcpu_tb_exec_cb(tb, prof_exec,
				QEMU_PLUGIN_CB_NO_REGS, p);
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t va = qemu_plugin_insn_vaddr(insn);
		uint32_t disp = marker_disp(insn);
		int c = insn_class(insn);

		qemu_plugin_register_vcpu_insn_exec_inline(insn,
			QEMU_PLUGIN_INLINE_ADD_U64,
			&cnt[va >= KERNEL_START ? C_KERNEL : C_USER], 1);
		if (c >= 0)
			qemu_plugin_register_vcpu_insn_exec_inline(insn,
				QEMU_PLUGIN_INLINE_ADD_U64, &cnt[c], 1);
		if (disp)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, marker,
				QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)disp);
	}
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	(void)id;
	(void)p;
	for (struct prof_tb *t = prof_tbs; t; t = t->next)
		if (t->insns)
			fprintf(out, "prof %" PRIx64 " %" PRIu64 "\n", t->vaddr, t->insns);
	fprintf(out, "end %" PRIu64 " %" PRIu64 "\n", cnt[C_USER], cnt[C_KERNEL]);
	fclose(out);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *path = NULL;

	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			path = argv[i] + 4;
		} else if (!strncmp(argv[i], "prof=", 5)) {
			char *end;

			prof_label = strtol(argv[i] + 5, &end, 10);
			if (end == argv[i] + 5 || *end || prof_label < 0) {
				fprintf(stderr, "insn-count: prof=LABEL wants a label, a number: '%s'\n", argv[i]);
				return -1;
			}
		} else {
			fprintf(stderr, "insn-count: unknown argument '%s' (out=FILE, prof=LABEL)\n", argv[i]);
			return -1;
		}
	}
	if (!path) {
		fprintf(stderr, "insn-count: no out=FILE\n");
		return -1;
	}
	(void)info;
	out = fopen(path, "w");
	if (!out) {
		perror(path);
		return -1;
	}
	setvbuf(out, NULL, _IOLBF, 0);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
