// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers of the /dev/pmuctl selftests; see lib.h.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"

/* ---- the device ---------------------------------------------------- */

const char *dev_unusable(void)
{
	static char why[160];
	int fd;

	if (access(DEV_PATH, F_OK))
		return "no /dev/pmuctl";
	fd = open(DEV_PATH, O_RDWR);
	if (fd < 0) {
		snprintf(why, sizeof(why), "cannot open %s: %s (run as root)",
			 DEV_PATH, strerror(errno));
		return why;
	}
	close(fd);
	return NULL;
}

int dev_open(void)
{
	int fd = open(DEV_PATH, O_RDWR);

	return fd < 0 ? -errno : fd;
}

int dev_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

int dev_info(int fd, struct pmuctl_info *info)
{
	memset(info, 0, sizeof(*info));
	return dev_ioctl(fd, PMUCTL_IOC_INFO, info);
}

/* PROGRAM with @flags on the CPUs of the one-word bitmap @cpus. */
static int program_on(int fd, __u32 flags, struct pmuctl_event *ev, __u32 n,
		      __u64 cpus, struct pmuctl_program *p)
{
	static __u64 bitmap;

	bitmap = cpus;
	memset(p, 0, sizeof(*p));
	p->flags = flags;
	p->nr_events = n;
	p->events = (uintptr_t)ev;
	p->cpus = (uintptr_t)&bitmap;
	p->cpus_size = sizeof(bitmap);
	return dev_ioctl(fd, PMUCTL_IOC_PROGRAM, p);
}

int dev_program(int fd, struct pmuctl_event *ev, __u32 n, __u64 cpus,
		struct pmuctl_program *p)
{
	return program_on(fd, 0, ev, n, cpus, p);
}

int dev_replace(int fd, struct pmuctl_event *ev, __u32 n, __u64 cpus,
		struct pmuctl_program *p)
{
	return program_on(fd, PMUCTL_PROGRAM_REPLACE, ev, n, cpus, p);
}

int dev_ctl(int fd, unsigned long cmd)
{
	struct pmuctl_ctl c = { 0 };

	return dev_ioctl(fd, cmd, &c);
}

int dev_read(int fd, __u32 cpu, __u64 *val, __u32 nr)
{
	struct pmuctl_read r = {
		.cpu = cpu, .nr_values = nr, .values = (uintptr_t)val,
	};

	return dev_ioctl(fd, PMUCTL_IOC_READ, &r);
}

struct pmuctl_event ev_make(__u64 config, __u64 extra, __u32 flags)
{
	struct pmuctl_event e = { .config = config, .extra = extra,
				  .flags = flags };

	return e;
}

/* "0-1", "0,2-3": the highest CPU + 1 and the count. */
static int cpulist(const char *path, unsigned int *count)
{
	char *s = slurp(path), *p;
	unsigned int hi = 0, n = 0;

	if (!s)
		return -1;
	for (p = s; *p && *p != '\n';) {
		unsigned long a = strtoul(p, &p, 10), b = a;

		if (*p == '-')
			b = strtoul(p + 1, &p, 10);
		n += b - a + 1;
		if (b + 1 > hi)
			hi = b + 1;
		if (*p == ',')
			p++;
		else
			break;
	}
	free(s);
	if (count)
		*count = n;
	return hi;
}

unsigned int cpus_possible(void)
{
	int n = cpulist("/sys/devices/system/cpu/possible", NULL);

	return n > 0 ? (unsigned int)n : (unsigned int)sysconf(_SC_NPROCESSORS_CONF);
}

unsigned int cpus_online(void)
{
	unsigned int n;

	if (cpulist("/sys/devices/system/cpu/online", &n) > 0)
		return n;
	return sysconf(_SC_NPROCESSORS_ONLN);
}

int pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -errno;
	/* sched_setaffinity() moves a running task before it returns. */
	return sched_getcpu() == cpu ? 0 : -EAGAIN;
}

bool cpu_online(int cpu)
{
	char path[64], *s;
	bool on;

	if (!cpu)
		return true;
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	s = slurp(path);
	on = !s || *s != '0';
	free(s);
	return on;
}

int cpu_set_online(int cpu, bool online)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	return write_str(path, online ? "1" : "0");
}

/* ---- files ----------------------------------------------------------- */

const char *param_path(const char *name)
{
	static char buf[4][128];
	static unsigned int next;
	char *b = buf[next++ % 4];
	const char *mod = access("/sys/module/pmuctl_regmodel", F_OK) ?
			  "pmuctl" : "pmuctl_regmodel";

	snprintf(b, sizeof(buf[0]), "/sys/module/%s/parameters/%s", mod, name);
	return b;
}

long regs_suspends(void)
{
	char *s = slurp(DBG_SUSPENDS);
	long n = s ? strtol(s, NULL, 10) : -1;

	free(s);
	return n;
}

char *slurp(const char *path)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	ssize_t n;
	int fd;

	if (!buf)
		return NULL;
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		free(buf);
		return NULL;
	}
	for (;;) {
		if (cap - len < 2) {
			char *nb = realloc(buf, cap *= 2);

			if (!nb)
				break;
			buf = nb;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += n;
	}
	close(fd);
	buf[len] = 0;
	return buf;
}

int write_str(const char *path, const char *s)
{
	size_t len = strlen(s);
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, s, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	close(fd);
	return err;
}

bool debugfs_ready(void)
{
	if (!access(DBG_STATE, R_OK))
		return true;
	if (access("/sys/kernel", F_OK))
		mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	return !access(DBG_STATE, R_OK);
}

bool have_regs(void)
{
	return debugfs_ready() && !access(DBG_REGS, R_OK | W_OK) &&
	       !access(DBG_FAIL, W_OK);
}

int snap_take(struct snap *s)
{
	s->state = slurp(DBG_STATE);
	s->regs = access(DBG_REGS, R_OK) ? NULL : slurp(DBG_REGS);
	return s->state ? 0 : -errno;
}

void snap_free(struct snap *s)
{
	free(s->state);
	free(s->regs);
	s->state = s->regs = NULL;
}

/* Compare line by line; the state's "waves N" line may be left out. */
static const char *text_diff(const char *file, const char *a, const char *b,
			     bool ignore_waves)
{
	static char msg[512];

	if (!a || !b)
		return a == b ? NULL : "file missing on one side";
	while (*a || *b) {
		const char *ea = strchrnul(a, '\n'), *eb = strchrnul(b, '\n');
		bool skip = ignore_waves && !strncmp(a, "waves ", 6) &&
			    !strncmp(b, "waves ", 6);

		if (!skip && (ea - a != eb - b || memcmp(a, b, ea - a))) {
			snprintf(msg, sizeof(msg), "%s: \"%.*s\" became \"%.*s\"",
				 file, (int)(ea - a), a, (int)(eb - b), b);
			return msg;
		}
		a = *ea ? ea + 1 : ea;
		b = *eb ? eb + 1 : eb;
	}
	return NULL;
}

const char *snap_diff(const struct snap *a, const struct snap *b,
		      bool ignore_waves)
{
	const char *d = text_diff("state", a->state, b->state, ignore_waves);

	return d ? d : text_diff("regs", a->regs, b->regs, false);
}

int state_read(struct pstate *st)
{
	char *s = slurp(DBG_STATE), *line, *save = NULL;

	memset(st, 0, sizeof(*st));
	if (!s)
		return -errno;
	for (line = strtok_r(s, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned int cpu, a, b, rc;
		unsigned long long v;

		if (sscanf(line, "programmed %u", &a) == 1) {
			st->programmed = a;
		} else if (sscanf(line, "waves %llu", &v) == 1) {
			st->waves = v;
		} else if (sscanf(line, "perf_reserved %u", &a) == 1) {
			st->perf_reserved = a;
		} else if (sscanf(line, "cpu %u counter %i owner %u", &cpu, &a, &b) == 3 &&
			   st->nown < ST_MAX) {
			st->own[st->nown].cpu = cpu;
			st->own[st->nown].counter = a;
			st->own[st->nown++].owner = b;
		} else if (sscanf(line, "cpu %u msr %i value %lli refcount %u",
				  &cpu, &a, &v, &rc) == 4 && st->nx < ST_MAX) {
			st->x[st->nx].cpu = cpu;
			st->x[st->nx].msr = a;
			st->x[st->nx].value = v;
			st->x[st->nx++].refcount = rc;
		}
	}
	free(s);
	return 0;
}

__u32 state_owner(const struct pstate *st, __u32 cpu, __u32 counter)
{
	unsigned int i;

	for (i = 0; i < st->nown; i++)
		if (st->own[i].cpu == cpu && st->own[i].counter == counter)
			return st->own[i].owner;
	return 0;
}

__u32 state_xref(const struct pstate *st, __u32 cpu, __u32 msr, __u64 *val)
{
	unsigned int i;

	for (i = 0; i < st->nx; i++) {
		if (st->x[i].cpu == cpu && st->x[i].msr == msr) {
			if (val)
				*val = st->x[i].value;
			return st->x[i].refcount;
		}
	}
	if (val)
		*val = 0;
	return 0;
}

unsigned int state_cpu_claims(const struct pstate *st, __u32 cpu)
{
	unsigned int i, n = 0;

	for (i = 0; i < st->nown; i++)
		n += st->own[i].cpu == cpu;
	for (i = 0; i < st->nx; i++)
		n += st->x[i].cpu == cpu;
	return n;
}

int regs_read(struct pregs *rg)
{
	char *s = slurp(DBG_REGS), *line, *save = NULL;

	rg->n = 0;
	if (!s)
		return -errno;
	for (line = strtok_r(s, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned int cpu, msr;
		char val[40];

		/* %#llx prints 0 as "0": read the value as text. */
		if (sscanf(line, "cpu %u msr %i %39s", &cpu, &msr, val) != 3 ||
		    rg->n >= RG_MAX)
			continue;
		rg->r[rg->n].cpu = cpu;
		rg->r[rg->n].msr = msr;
		rg->r[rg->n++].val = strtoull(val, NULL, 0);
	}
	free(s);
	return rg->n ? 0 : -ENODATA;
}

__u64 regs_get(const struct pregs *rg, __u32 cpu, __u32 msr)
{
	unsigned int i;

	for (i = 0; i < rg->n; i++)
		if (rg->r[i].cpu == cpu && rg->r[i].msr == msr)
			return rg->r[i].val;
	return ~0ULL;
}

int regs_preset(__u32 cpu, __u32 msr, __u64 val)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%u %#x %#llx", cpu, msr,
		 (unsigned long long)val);
	return write_str(DBG_REGS, buf);
}

int regs_add_here(__u32 cpu, __u32 msr, __u64 n)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "add %u %#x %#llx", cpu, msr,
		 (unsigned long long)n);
	return write_str(DBG_REGS, buf);
}

int regs_zero_all(void)
{
	static struct pregs rg;
	unsigned int i;
	int err = regs_read(&rg);

	for (i = 0; !err && i < rg.n; i++)
		if (rg.r[i].val)
			err = regs_preset(rg.r[i].cpu, rg.r[i].msr, 0);
	return err;
}

int fail_next_write(__u32 cpu)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%u", cpu);
	return write_str(DBG_FAIL, buf);
}

/* ---- rdpmc ------------------------------------------------------------ */

static sigjmp_buf probe_env;
static volatile sig_atomic_t probe_sig;

static void probe_handler(int sig)
{
	probe_sig = sig;
	siglongjmp(probe_env, 1);
}

int rdpmc_probe(__u32 ecx)
{
	struct sigaction sa = { .sa_handler = probe_handler }, oill, osegv;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGILL, &sa, &oill);
	sigaction(SIGSEGV, &sa, &osegv);
	probe_sig = 0;
	if (!sigsetjmp(probe_env, 1)) {
		__u32 lo, hi;

		__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(ecx));
		(void)lo;
		(void)hi;
	}
	sigaction(SIGILL, &oill, NULL);
	sigaction(SIGSEGV, &osegv, NULL);
	return probe_sig;
}

/* ---- peers ------------------------------------------------------------ */

int read_full(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

int write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

static void peer_main(int fd, int in, int out, int ping, int pong)
{
	struct peer_req rq;
	struct peer_rep rp;
	char c;
	int i;

	for (;;) {
		if (read_full(in, &rq, sizeof(rq)))
			_exit(0);	/* the test is gone */
		memset(&rp, 0, sizeof(rp));
		switch (rq.op) {
		case PEER_PROGRAM:
			memcpy(rp.ev, rq.ev, sizeof(rp.ev));
			rp.ret = fd < 0 ? fd : dev_program(fd, rp.ev, rq.n,
							   rq.cpus, &rp.prog);
			rp.prog.events = rp.prog.cpus = 0;
			break;
		case PEER_CTL:
			rp.ret = dev_ctl(fd, rq.cmd);
			break;
		case PEER_RDPMC:
			rp.sig = rdpmc_probe(0);
			break;
		case PEER_PIN:
			rp.ret = pin_cpu(rq.cpu);
			break;
		case PEER_PINGPONG:
			/* Reply first, then serve the rounds. */
			if (write_full(out, &rp, sizeof(rp)))
				_exit(1);
			for (i = 0; i < rq.rounds; i++) {
				if (read_full(ping, &c, 1))
					_exit(1);
				rp.ngranted += rdpmc_granted(rdpmc_probe(0));
				if (write_full(pong, &c, 1))
					_exit(1);
			}
			break;
		case PEER_EXIT:
			_exit(0);
		}
		if (write_full(out, &rp, sizeof(rp)))
			_exit(1);
	}
}

int peer_spawn(struct peer *p, int fd)
{
	int req[2], rep[2], pi[2], po[2], i;

	if (pipe(req) || pipe(rep) || pipe(pi) || pipe(po))
		return -errno;
	fflush(stdout);
	fflush(stderr);
	p->pid = fork();
	if (p->pid < 0)
		return -errno;
	if (!p->pid) {
		int keep[] = { req[0], rep[1], pi[0], po[1], fd };

		for (i = 3; i < 1024; i++) {
			bool k = false;
			unsigned int j;

			for (j = 0; j < sizeof(keep) / sizeof(keep[0]); j++)
				k |= keep[j] == i;
			if (!k)
				close(i);
		}
		if (fd < 0)
			fd = dev_open();
		peer_main(fd, req[0], rep[1], pi[0], po[1]);
		_exit(0);
	}
	close(req[0]);
	close(rep[1]);
	close(pi[0]);
	close(po[1]);
	p->to = req[1];
	p->from = rep[0];
	p->ping = pi[1];
	p->pong = po[0];
	return 0;
}

int peer_call(struct peer *p, const struct peer_req *rq, struct peer_rep *rp)
{
	if (write_full(p->to, rq, sizeof(*rq)) ||
	    read_full(p->from, rp, sizeof(*rp)))
		return -EPIPE;
	return 0;
}

int peer_program(struct peer *p, const struct pmuctl_event *ev, __u32 n,
		 __u64 cpus, struct peer_rep *rp)
{
	struct peer_req rq = { .op = PEER_PROGRAM, .n = n, .cpus = cpus };

	if (n > PEER_EVENTS)
		return -E2BIG;
	memcpy(rq.ev, ev, n * sizeof(*ev));
	return peer_call(p, &rq, rp) ? -EPIPE : rp->ret;
}

int peer_reply(struct peer *p, struct peer_rep *rp)
{
	return read_full(p->from, rp, sizeof(*rp)) ? -EPIPE : 0;
}

int peer_pingpong_round(struct peer *p)
{
	char c = 'x';

	if (write_full(p->ping, &c, 1) || read_full(p->pong, &c, 1))
		return -EPIPE;
	return 0;
}

int peer_end(struct peer *p, int sig)
{
	int status = -1;

	if (p->pid <= 0)
		return -1;
	if (sig) {
		kill(p->pid, sig);
	} else {
		struct peer_req rq = { .op = PEER_EXIT };

		write_full(p->to, &rq, sizeof(rq));
	}
	while (waitpid(p->pid, &status, 0) < 0 && errno == EINTR)
		;
	close(p->to);
	close(p->from);
	close(p->ping);
	close(p->pong);
	p->pid = 0;
	return status;
}

void peer_kill_all(struct peer *p, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (p[i].pid > 0)
			peer_end(&p[i], SIGKILL);
}

int state_wait_clean(unsigned int ms)
{
	static struct pstate st;
	unsigned int t;

	for (t = 0;; t += 10) {
		int err = state_read(&st);

		if (err)
			return err;
		if (!st.programmed && !st.nown && !st.nx && !st.perf_reserved)
			return 0;
		if (t >= ms)
			return -EBUSY;
		usleep(10000);
	}
}

/* ---- user-space CPUID ---------------------------------------------------- */

void ucpu_read(struct ucpu *c)
{
	unsigned int a, b, cx, d, max, base;

	memset(c, 0, sizeof(*c));
	__cpuid(0, max, b, cx, d);
	c->intel = b == 0x756e6547 && d == 0x49656e69 && cx == 0x6c65746e;
	__cpuid(1, a, b, cx, d);
	base = (a >> 8) & 0xf;
	c->family = base == 0xf ? base + ((a >> 20) & 0xff) : base;
	c->model = (a >> 4) & 0xf;
	if (base == 0x6 || base == 0xf)
		c->model |= ((a >> 16) & 0xf) << 4;
	c->stepping = a & 0xf;
	if (max >= 0xa) {
		__cpuid(0xa, a, b, cx, d);
		c->leafa_eax = a;
		c->leafa_ebx = b;
		c->leafa_edx = d;
	}
}

__u32 expected_model(__u32 family, __u32 model)
{
	/* Linux arch/x86/include/asm/intel-family.h; FACTS 1. */
	static const struct { __u8 model; __u32 id; } fam6[] = {
		{ 0x57, PMUCTL_MODEL_KNL },	/* XEON_PHI_KNL */
		{ 0x85, PMUCTL_MODEL_KNM },	/* XEON_PHI_KNM */
		{ 0x4e, PMUCTL_MODEL_SKL },	/* SKYLAKE_L */
		{ 0x5e, PMUCTL_MODEL_SKL },	/* SKYLAKE */
		{ 0x55, PMUCTL_MODEL_SKL },	/* SKYLAKE_X */
		{ 0x8e, PMUCTL_MODEL_SKL },	/* KABYLAKE_L */
		{ 0x9e, PMUCTL_MODEL_SKL },	/* KABYLAKE */
		{ 0xa5, PMUCTL_MODEL_SKL },	/* COMETLAKE */
		{ 0xa6, PMUCTL_MODEL_SKL },	/* COMETLAKE_L */
		{ 0x7d, PMUCTL_MODEL_ICL },	/* ICELAKE */
		{ 0x7e, PMUCTL_MODEL_ICL },	/* ICELAKE_L */
		{ 0x8c, PMUCTL_MODEL_ICL },	/* TIGERLAKE_L */
		{ 0x8d, PMUCTL_MODEL_ICL },	/* TIGERLAKE */
		{ 0xa7, PMUCTL_MODEL_ICL },	/* ROCKETLAKE */
		{ 0x6a, PMUCTL_MODEL_ICX },	/* ICELAKE_X */
		{ 0x6c, PMUCTL_MODEL_ICX },	/* ICELAKE_D */
		{ 0x8f, PMUCTL_MODEL_SPR },	/* SAPPHIRERAPIDS_X */
		{ 0xcf, PMUCTL_MODEL_SPR },	/* EMERALDRAPIDS_X */
		{ 0xad, PMUCTL_MODEL_GNR },	/* GRANITERAPIDS_X */
		{ 0xae, PMUCTL_MODEL_GNR },	/* GRANITERAPIDS_D */
		/* one core type: a hybrid part is refused before the model */
		{ 0x97, PMUCTL_MODEL_ADL_GLC },	/* ALDERLAKE */
		{ 0x9a, PMUCTL_MODEL_ADL_GLC },	/* ALDERLAKE_L */
		{ 0xb7, PMUCTL_MODEL_ADL_GLC },	/* RAPTORLAKE */
		{ 0xba, PMUCTL_MODEL_ADL_GLC },	/* RAPTORLAKE_P */
		{ 0xbf, PMUCTL_MODEL_ADL_GLC },	/* RAPTORLAKE_S */
		{ 0xbe, PMUCTL_MODEL_ADL_GRT },	/* ATOM_GRACEMONT */
		{ 0xaf, PMUCTL_MODEL_SRF },	/* ATOM_CRESTMONT_X */
		{ 0xb6, PMUCTL_MODEL_SRF },	/* ATOM_CRESTMONT */
	};
	unsigned int i;

	for (i = 0; family == 6 && i < sizeof(fam6) / sizeof(fam6[0]); i++)
		if (fam6[i].model == model)
			return fam6[i].id;
	return PMUCTL_MODEL_ARCH;
}

/* ---- task scope ---------------------------------------------------------- */

int dev_program_task(int fd, struct pmuctl_event *ev, __u32 n, __u32 flags,
		     struct pmuctl_program *p)
{
	memset(p, 0, sizeof(*p));
	p->flags = PMUCTL_PROGRAM_TASK | flags;
	p->nr_events = n;
	p->events = (uintptr_t)ev;
	return dev_ioctl(fd, PMUCTL_IOC_PROGRAM, p);
}

int dev_read_task(int fd, __u32 flags, __u64 *val, __u32 nr,
		  struct pmuctl_read *r)
{
	memset(r, 0, sizeof(*r));
	r->flags = flags;
	r->nr_values = nr;
	r->values = (uintptr_t)val;
	return dev_ioctl(fd, PMUCTL_IOC_READ, r);
}

int log_read(struct plog *lg)
{
	char *s = slurp(DBG_LOG), *line, *save = NULL;

	memset(lg, 0, sizeof(*lg));
	if (!s)
		return -errno;
	for (line = strtok_r(s, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned int cpu, msr;
		unsigned long w;
		char val[40];
		int err;

		if (sscanf(line, "writes %lu", &w) == 1) {
			lg->writes = w;
			continue;
		}
		/* %#llx prints 0 as "0": read the value as text. */
		if (sscanf(line, "cpu %u msr %i %39s err %d", &cpu, &msr, val,
			   &err) != 4 || lg->n >= LOG_MAX)
			continue;
		lg->w[lg->n].cpu = cpu;
		lg->w[lg->n].msr = msr;
		lg->w[lg->n].val = strtoull(val, NULL, 0);
		lg->w[lg->n++].err = err;
	}
	free(s);
	return 0;
}

int log_last(const struct plog *lg, __u32 cpu, __u32 msr)
{
	int i;

	for (i = (int)lg->n - 1; i >= 0; i--)
		if (lg->w[i].cpu == cpu && lg->w[i].msr == msr)
			return i;
	return -1;
}

unsigned int log_count(const struct plog *lg, __u32 cpu, __u32 msr)
{
	unsigned int i, n = 0;

	for (i = 0; i < lg->n; i++)
		n += lg->w[i].cpu == cpu && lg->w[i].msr == msr;
	return n;
}

const char *hotplug_unfit(int needed)
{
	static char why[96];
	char path[64];
	int c;

	if (cpus_online() < (unsigned int)needed) {
		snprintf(why, sizeof(why), "needs %d online CPUs, has %u (run.sh -s %d)",
			 needed, cpus_online(), needed);
		return why;
	}
	for (c = 1; c < needed; c++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", c);
		if (access(path, W_OK)) {
			snprintf(why, sizeof(why), "cpu%d cannot go offline", c);
			return why;
		}
	}
	if (!have_regs())
		return "needs the register model (PMUCTL_REGMODEL=y)";
	return NULL;
}

int child_run(bool as_nobody, void (*fn)(void *), void *arg)
{
	const gid_t nobody = 65534;
	int status;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		if (as_nobody && (setgroups(0, NULL) || setgid(nobody) ||
				  setuid(nobody)))
			_exit(2);
		fn(arg);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
