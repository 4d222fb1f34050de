// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Regions: named stretches of code whose counts libpmuctl adds up per
 * thread, read with the inline rdpmc path (libpmuctl.h, "Regions").
 *
 * A set (struct pmuctl_regions) belongs to one programmed session.  Each
 * thread that enters a region of the set gets a block of its own on its
 * first entry (the only allocation, lock and system call: its rdpmc grant,
 * pmuctl_rdpmc_thread()), found again through thread-local storage; the
 * block holds, per region, the calls, how deep the region is open in this
 * thread, and per event the value read at the outermost entry and the sum
 * of the deltas.  Blocks stay on the set's list after their thread exits,
 * so that its counts are reported; pmuctl_regions_free() frees them.
 *
 * Enter and exit do no more than: find the block (one thread-local
 * compare), check the handle and the nesting, read the counters, add.
 * Everything a misuse needs is out of line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "libpmuctl.h"
#include "regions.h"

#define DEPTH_MAX	32	/* regions open at once in one thread */
#define TLS_SETS	4	/* sets a thread finds without the slow path */
#define NAME_CACHE	16	/* names a thread finds without the lock */

static inline unsigned int name_hash(const char *name)
{
	uintptr_t a = (uintptr_t)name;

	return (unsigned int)((a ^ a >> 4 ^ a >> 8) % NAME_CACHE);
}

/* A region in one thread: the calls, then start[n] and sum[n]. */
struct rslot {
	uint64_t calls;
	uint32_t open;		/* entries not yet exited */
	uint32_t seen;		/* entered once: the thread has a row */
	uint64_t v[];
};

struct rthread {
	struct rthread *next;
	pid_t tid;
	uint32_t depth;
	int stack[DEPTH_MAX];	/* the open regions, innermost last */
	bool counted;		/* the session counts this thread */
	bool granted;		/* it reads with rdpmc, not the emulation */
	uint64_t emulated;	/* reads the emulation answered */
	struct name_cache {	/* the name forms' last handles */
		const char *name;
		int h;
	} names[NAME_CACHE];
	unsigned char slots[];	/* max x slot_size */
};

struct pmuctl_regions {
	uint64_t id;		/* unique: what thread-local storage keeps */
	struct pmuctl *p;
	struct pmuctl_counters c;
	unsigned int n;		/* events */
	unsigned int max;	/* regions */
	size_t slot_size;
	atomic_uint nr;		/* regions registered */
	char **name;
	char **event;		/* the events' names, for reports */
	int ipc[2];		/* instructions, cycles: events, or -1 */
	bool task;		/* a task-scope group */
	bool emulated;		/* no rdpmc anywhere: every read emulated */
	bool debug;		/* $PMUCTL_REGIONS_DEBUG: abort at a misuse */
	pthread_mutex_t lock;	/* registration, the thread list */
	struct rthread *threads, **tail;
	atomic_uint_least64_t misuse[PMUCTL_REGION_MISUSE_NR];
	struct pmuctl_regions *next_set;	/* every set, for fork */
};

/*
 * Initial-exec: a fixed offset from the thread pointer, no
 * __tls_get_addr() call on the hot path (libpmuctl is linked, not
 * dlopen()ed; glibc keeps room for a few such bytes even then).
 */
static __thread __attribute__((tls_model("initial-exec"))) struct {
	uint64_t id;
	struct rthread *t;
} tls[TLS_SETS];

static atomic_uint_least64_t next_id = 1;
static pthread_mutex_t sets_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pmuctl_regions *sets;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static const char *const misuse_names[PMUCTL_REGION_MISUSE_NR] = {
	[PMUCTL_REGION_MISUSE_BAD_REGION] = "bad_region",
	[PMUCTL_REGION_MISUSE_EXIT_WITHOUT_ENTER] = "exit_without_enter",
	[PMUCTL_REGION_MISUSE_UNBALANCED] = "unbalanced",
	[PMUCTL_REGION_MISUSE_UNCOUNTED_THREAD] = "uncounted_thread",
	[PMUCTL_REGION_MISUSE_TOO_DEEP] = "too_deep",
	[PMUCTL_REGION_MISUSE_NO_MEMORY] = "no_memory",
};

const char *pmuctl_region_misuse_name(unsigned int kind)
{
	return kind < PMUCTL_REGION_MISUSE_NR ? misuse_names[kind] : NULL;
}

static struct rslot *slot(const struct pmuctl_regions *r, struct rthread *t,
			  unsigned int h)
{
	return (struct rslot *)(t->slots + h * r->slot_size);
}

/*
 * A fork's child holds copies of the parent's blocks, with the parent's
 * counts: it starts with none (and its first entry asks for a grant of
 * its own, as fork does not copy it).
 */
static void atfork_child(void)
{
	pthread_mutex_init(&sets_lock, NULL);
	for (struct pmuctl_regions *r = sets; r; r = r->next_set) {
		struct rthread *t = r->threads, *next;

		pthread_mutex_init(&r->lock, NULL);
		for (; t; t = next) {
			next = t->next;
			free(t);
		}
		r->threads = NULL;
		r->tail = &r->threads;
	}
	memset(tls, 0, sizeof(tls));
}

static void atfork_init(void)
{
	pthread_atfork(NULL, NULL, atfork_child);
}

/* The first instructions-retired and core-cycles events, same levels. */
static void find_ipc(struct pmuctl_regions *r, const struct pmuctl_event *ev)
{
	const uint64_t plain = PMUCTL_CFG_EVENT | PMUCTL_CFG_UMASK |
			       PMUCTL_CFG_EDGE | PMUCTL_CFG_INV |
			       PMUCTL_CFG_CMASK | PMUCTL_CFG_EQ |
			       PMUCTL_CFG_UMASK2;

	r->ipc[0] = -1;
	r->ipc[1] = -1;
	if (!ev)
		return;
	for (unsigned int i = 0; i < r->n; i++) {
		uint64_t k = ev[i].config & plain;

		if (k == 0x00c0 && r->ipc[0] < 0)
			r->ipc[0] = (int)i;
	}
	for (unsigned int j = 0; j < r->n && r->ipc[0] >= 0; j++) {
		uint64_t lv = PMUCTL_CFG_USR | PMUCTL_CFG_OS;

		if ((ev[j].config & plain) == 0x003c &&
		    (ev[j].config & lv) == (ev[r->ipc[0]].config & lv)) {
			r->ipc[1] = (int)j;
			return;
		}
	}
	r->ipc[0] = -1;
}

int pmuctl_regions_new(struct pmuctl *p, const struct pmuctl_event *ev,
		       const char *const *names, unsigned int max_regions,
		       unsigned int flags, struct pmuctl_regions **out)
{
	const struct pmuctl_counters *c = pmuctl_get_counters(p);
	struct pmuctl_regions *r;
	const char *dbg = getenv("PMUCTL_REGIONS_DEBUG");

	*out = NULL;
	if (flags || !max_regions || max_regions > PMUCTL_REGIONS_MAX)
		return -EINVAL;
	if (!c->nr)
		return -ENOENT;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->p = p;
	r->c = *c;
	r->n = c->nr;
	r->max = max_regions;
	r->slot_size = sizeof(struct rslot) + 2 * r->n * sizeof(uint64_t);
	r->name = calloc(max_regions, sizeof(*r->name));
	r->event = calloc(r->n, sizeof(*r->event));
	if (!r->name || !r->event)
		goto nomem;
	for (unsigned int i = 0; i < r->n; i++) {
		char buf[32];

		snprintf(buf, sizeof(buf), "event%u", i);
		r->event[i] = strdup(names && names[i] ? names[i] : buf);
		if (!r->event[i])
			goto nomem;
	}
	find_ipc(r, ev);
	r->task = c->flags & PMUCTL_COUNTERS_TASK;
	r->emulated = !(c->flags & PMUCTL_COUNTERS_RDPMC);
	r->debug = dbg && *dbg && strcmp(dbg, "0");
	pthread_mutex_init(&r->lock, NULL);
	r->tail = &r->threads;
	r->id = atomic_fetch_add(&next_id, 1);
	pthread_once(&atfork_once, atfork_init);
	pthread_mutex_lock(&sets_lock);
	r->next_set = sets;
	sets = r;
	pthread_mutex_unlock(&sets_lock);
	*out = r;
	return 0;
nomem:
	pmuctl_regions_free(r);
	return -ENOMEM;
}

void pmuctl_regions_free(struct pmuctl_regions *r)
{
	struct rthread *t, *next;

	if (!r)
		return;
	pthread_mutex_lock(&sets_lock);
	for (struct pmuctl_regions **pp = &sets; *pp; pp = &(*pp)->next_set) {
		if (*pp == r) {
			*pp = r->next_set;
			break;
		}
	}
	pthread_mutex_unlock(&sets_lock);
	for (t = r->threads; t; t = next) {
		next = t->next;
		free(t);
	}
	for (unsigned int i = 0; r->name && i < r->max; i++)
		free(r->name[i]);
	for (unsigned int i = 0; r->event && i < r->n; i++)
		free(r->event[i]);
	free(r->name);
	free(r->event);
	free(r);
}

/* Under r->lock: the handle of @name, or -1. */
static int find_name(const struct pmuctl_regions *r, const char *name)
{
	unsigned int nr = atomic_load(&r->nr);

	for (unsigned int h = 0; h < nr; h++)
		if (!strcmp(r->name[h], name))
			return (int)h;
	return -1;
}

int pmuctl_region_register(struct pmuctl_regions *r, const char *name)
{
	unsigned int nr;
	int h;

	if (!name || !*name)
		return -EINVAL;
	pthread_mutex_lock(&r->lock);
	h = find_name(r, name);
	nr = atomic_load(&r->nr);
	if (h < 0 && nr == r->max) {
		h = -ENOSPC;
	} else if (h < 0) {
		r->name[nr] = strdup(name);
		if (!r->name[nr]) {
			h = -ENOMEM;
		} else {
			h = (int)nr;
			/* The name is there before a reader can see the handle. */
			atomic_store_explicit(&r->nr, nr + 1, memory_order_release);
		}
	}
	pthread_mutex_unlock(&r->lock);
	return h;
}

static const char *region_name(const struct pmuctl_regions *r, int h)
{
	if (h >= 0 && (unsigned int)h < atomic_load(&r->nr))
		return r->name[h];
	return "(not a region)";
}

/* Count a misuse; in debug mode, say it and abort. */
static int misuse(struct pmuctl_regions *r, unsigned int kind, int h, int ret)
{
	atomic_fetch_add(&r->misuse[kind], 1);
	if (r->debug) {
		fprintf(stderr, "libpmuctl: region misuse %s: region '%s' (handle %d), thread %d\n",
			misuse_names[kind], region_name(r, h), h, (int)gettid());
		abort();
	}
	return ret;
}

/*
 * Task scope refuses the grant (EPERM) to a thread it does not count, and
 * to one the session counts in a process not dumpable by its user (a
 * module before the grant followed counted processes refused every other
 * process).  READ of the thread's own counts tells them apart: ESRCH
 * when the session does not count it.  A counted thread then reads
 * through the emulation.
 */
static bool thread_counted(const struct pmuctl_regions *r)
{
	uint64_t v[PMUCTL_MAX_EVENTS];
	struct pmuctl_read rd;

	memset(&rd, 0, sizeof(rd));
	rd.flags = PMUCTL_READ_THREAD;
	rd.nr_values = r->n;
	rd.values = (uint64_t)(uintptr_t)v;
	return !ioctl(pmuctl_fd(r->p), PMUCTL_IOC_READ, &rd);
}

/* Thread @tid's block of @r on the set's list, or NULL. */
static struct rthread *find_thread(struct pmuctl_regions *r, pid_t tid)
{
	struct rthread *t;

	pthread_mutex_lock(&r->lock);
	for (t = r->threads; t && t->tid != tid; t = t->next)
		;
	pthread_mutex_unlock(&r->lock);
	return t;
}

/*
 * The calling thread's block of @r, made on its first entry: the one
 * allocation, lock and system call.  NULL when out of memory.
 */
static struct rthread *thread_slow(struct pmuctl_regions *r)
{
	pid_t tid = gettid();
	struct rthread *t;
	unsigned int k;
	int ret;

	for (k = 1; k < TLS_SETS; k++)
		if (tls[k].id == r->id)
			break;
	if (k == TLS_SETS) {
		t = find_thread(r, tid);
		if (!t) {
			t = calloc(1, sizeof(*t) + r->max * r->slot_size);
			if (!t)
				return NULL;
			t->tid = tid;
			ret = pmuctl_rdpmc_thread(r->p);
			t->counted = !(r->task && ret == -EPERM && !thread_counted(r));
			t->granted = !ret && !r->emulated;
			pthread_mutex_lock(&r->lock);
			*r->tail = t;
			r->tail = &t->next;
			pthread_mutex_unlock(&r->lock);
		}
		k = TLS_SETS - 1;
		tls[k].id = r->id;
		tls[k].t = t;
	}
	/* The set used now goes first. */
	while (k > 0) {
		typeof(tls[0]) x = tls[k - 1];

		tls[k - 1] = tls[k];
		tls[k] = x;
		k--;
	}
	return tls[0].t;
}

static int enter_misuse(struct pmuctl_regions *r, struct rthread *t, int h)
{
	if (!t)
		return misuse(r, PMUCTL_REGION_MISUSE_NO_MEMORY, h, -ENOMEM);
	if (h < 0 || (unsigned int)h >= atomic_load(&r->nr))
		return misuse(r, PMUCTL_REGION_MISUSE_BAD_REGION, h, -EINVAL);
	if (!t->counted)
		return misuse(r, PMUCTL_REGION_MISUSE_UNCOUNTED_THREAD, h, -EPERM);
	return misuse(r, PMUCTL_REGION_MISUSE_TOO_DEEP, h, -ERANGE);
}

/*
 * Events n-1..0 into @v, unrolled for up to 8 events (a jump into the
 * sequence, no loop): per event, load ECX, rdpmc, two stores.
 */
#define RD(i)	__pmuctl_rdpmc_store(c->ecx[i], &v[i])

static inline __attribute__((always_inline)) void
read_start(const struct pmuctl_counters *c, uint64_t *v, unsigned int n)
{
	switch (n) {
	case 8: RD(7); __attribute__((fallthrough));
	case 7: RD(6); __attribute__((fallthrough));
	case 6: RD(5); __attribute__((fallthrough));
	case 5: RD(4); __attribute__((fallthrough));
	case 4: RD(3); __attribute__((fallthrough));
	case 3: RD(2); __attribute__((fallthrough));
	case 2: RD(1); __attribute__((fallthrough));
	case 1: RD(0);
		break;
	default:
		pmuctl_read_counters(c, v, n);
	}
}

static inline __attribute__((always_inline)) int
enter(struct pmuctl_regions *r, struct rthread *t, int h)
{
	struct rslot *s;

	if (__builtin_expect(!t || (unsigned int)h >=
			     atomic_load_explicit(&r->nr, memory_order_acquire) ||
			     !t->counted || t->depth == DEPTH_MAX, 0))
		return enter_misuse(r, t, h);
	t->stack[t->depth++] = h;
	s = slot(r, t, (unsigned int)h);
	if (s->open++)
		return 0;
	s->seen = 1;
	if (__builtin_expect(!t->granted, 0))
		t->emulated++;
	/* Last: the region's counts start here. */
	read_start(&r->c, s->v, r->n);
	return 0;
}

/*
 * Out of line: a thread's first entry, or a set out of its cache.  Once
 * the set is first in the cache it goes through the fast path again, so
 * that every entry ends with the same instructions after its reads (what
 * the region counts of the entry).
 */
static __attribute__((noinline)) int enter_slow(struct pmuctl_regions *r, int h)
{
	if (!thread_slow(r))
		return enter_misuse(r, NULL, h);
	return pmuctl_region_enter(r, h);
}

/*
 * The hot paths are leaves: whatever needs a call (the slow path, a
 * misuse) is a tail call, so that the common case saves no register.
 */
int pmuctl_region_enter(struct pmuctl_regions *r, int h)
{
	if (__builtin_expect(tls[0].id != r->id, 0))
		return enter_slow(r, h);
	return enter(r, tls[0].t, h);
}

/*
 * Event i's delta since the outermost entry, added to its sum as it is
 * read: load ECX, rdpmc, shift, or, subtract, mask, add.
 */
#define ACC(i)	do {							\
	uint64_t x = pmuctl_rdpmc(c->ecx[i]);				\
									\
	sum[i] += (x - start[i]) & c->mask[i];				\
} while (0)

static inline __attribute__((always_inline)) void
read_close(const struct pmuctl_counters *c, const uint64_t *start,
	   uint64_t *sum, unsigned int n)
{
	uint64_t v[PMUCTL_MAX_EVENTS];

	switch (n) {
	case 8: ACC(0); ACC(1); ACC(2); ACC(3); ACC(4); ACC(5); ACC(6); ACC(7);
		break;
	case 7: ACC(0); ACC(1); ACC(2); ACC(3); ACC(4); ACC(5); ACC(6);
		break;
	case 6: ACC(0); ACC(1); ACC(2); ACC(3); ACC(4); ACC(5);
		break;
	case 5: ACC(0); ACC(1); ACC(2); ACC(3); ACC(4);
		break;
	case 4: ACC(0); ACC(1); ACC(2); ACC(3);
		break;
	case 3: ACC(0); ACC(1); ACC(2);
		break;
	case 2: ACC(0); ACC(1);
		break;
	case 1: ACC(0);
		break;
	default:
		/* First every read, then the sums. */
		pmuctl_read_counters(c, v, n);
		for (unsigned int i = 0; i < n; i++)
			sum[i] += (v[i] - start[i]) & c->mask[i];
	}
}

/* Close @s out of line (a misuse's repair): read, then add. */
static void close_slot(const struct pmuctl_regions *r, struct rthread *t,
		       struct rslot *s)
{
	s->calls++;
	if (--s->open)
		return;
	read_close(&r->c, s->v, s->v + r->n, r->n);
	if (!t->granted)
		t->emulated++;
}

static int exit_misuse(struct pmuctl_regions *r, struct rthread *t, int h)
{
	uint32_t d;

	if (!t)
		return misuse(r, PMUCTL_REGION_MISUSE_NO_MEMORY, h, -ENOMEM);
	if (h < 0 || (unsigned int)h >= atomic_load(&r->nr))
		return misuse(r, PMUCTL_REGION_MISUSE_BAD_REGION, h, -EINVAL);
	/* Its entry was refused and counted already. */
	if (!t->counted)
		return -EPERM;
	for (d = t->depth; d > 0 && t->stack[d - 1] != h; d--)
		;
	if (!d)
		return misuse(r, PMUCTL_REGION_MISUSE_EXIT_WITHOUT_ENTER, h, -ENOENT);
	/* Open, but not innermost: closed all the same, the others stay open. */
	memmove(&t->stack[d - 1], &t->stack[d], (t->depth - d) * sizeof(t->stack[0]));
	t->depth--;
	close_slot(r, t, slot(r, t, (unsigned int)h));
	return misuse(r, PMUCTL_REGION_MISUSE_UNBALANCED, h, -EPROTO);
}

static inline __attribute__((always_inline)) int
leave(struct pmuctl_regions *r, struct rthread *t, int h)
{
	struct rslot *s;

	if (__builtin_expect(!t || !t->depth || t->stack[t->depth - 1] != h ||
			     !t->counted, 0))
		return exit_misuse(r, t, h);
	t->depth--;
	s = slot(r, t, (unsigned int)h);
	s->calls++;
	if (--s->open)
		return 0;
	/* The outermost exit: the region's counts end here. */
	read_close(&r->c, s->v, s->v + r->n, r->n);
	if (__builtin_expect(!t->granted, 0))
		t->emulated++;
	return 0;
}

/* As enter_slow(): every exit starts with the same instructions. */
static __attribute__((noinline)) int leave_slow(struct pmuctl_regions *r, int h)
{
	if (!thread_slow(r))
		return exit_misuse(r, NULL, h);
	return pmuctl_region_exit(r, h);
}

int pmuctl_region_exit(struct pmuctl_regions *r, int h)
{
	if (__builtin_expect(tls[0].id != r->id, 0))
		return leave_slow(r, h);
	return leave(r, tls[0].t, h);
}

/*
 * The name forms.  Each thread keeps the handles of the names it used
 * last, by the name's address; a hit is checked against the region's
 * name (a strcmp: a buffer reused for another name finds its own
 * region), a miss looks the name up under the set's lock and registers
 * it on first use.
 */
static int by_name_slow(struct pmuctl_regions *r, struct rthread *t,
			const char *name)
{
	int h = pmuctl_region_register(r, name);

	if (h < 0)
		return misuse(r, PMUCTL_REGION_MISUSE_BAD_REGION, -1, h);
	if (t) {
		struct name_cache *nc = &t->names[name_hash(name)];

		nc->name = name;
		nc->h = h;
	}
	return h;
}

static inline __attribute__((always_inline)) int
by_name(struct pmuctl_regions *r, struct rthread *t, const char *name)
{
	const struct name_cache *nc;

	if (__builtin_expect(!t, 0))
		return by_name_slow(r, t, name);
	nc = &t->names[name_hash(name)];
	if (__builtin_expect(nc->name == name && !strcmp(r->name[nc->h], name), 1))
		return nc->h;
	return by_name_slow(r, t, name);
}

/* The calling thread's block of @r: one thread-local compare when cached. */
static inline __attribute__((always_inline)) struct rthread *
thread_of(struct pmuctl_regions *r)
{
	return __builtin_expect(tls[0].id == r->id, 1) ? tls[0].t : thread_slow(r);
}

int pmuctl_region_enter_name(struct pmuctl_regions *r, const char *name)
{
	struct rthread *t = thread_of(r);
	int h = by_name(r, t, name);

	return h < 0 ? h : enter(r, t, h);
}

int pmuctl_region_exit_name(struct pmuctl_regions *r, const char *name)
{
	struct rthread *t = thread_of(r);
	int h = by_name(r, t, name);

	return h < 0 ? h : leave(r, t, h);
}

int pmuctl_region_get(struct pmuctl_regions *r, int h, uint64_t *calls,
		      uint64_t *counts, unsigned int nr)
{
	struct rthread *t = tls[0].id == r->id ? tls[0].t : NULL;
	struct rslot *s;

	if (h < 0 || (unsigned int)h >= atomic_load(&r->nr) || nr > r->n)
		return -EINVAL;
	for (unsigned int k = 1; k < TLS_SETS && !t; k++)
		if (tls[k].id == r->id)
			t = tls[k].t;
	/* Out of the thread's cache, or it never entered. */
	if (!t)
		t = find_thread(r, gettid());
	if (!t) {
		*calls = 0;
		memset(counts, 0, nr * sizeof(*counts));
		return 0;
	}
	s = slot(r, t, (unsigned int)h);
	*calls = s->calls;
	memcpy(counts, s->v + r->n, nr * sizeof(*counts));
	return 0;
}

unsigned int pmuctl_regions_nr_events(const struct pmuctl_regions *r)
{
	return r->n;
}

int pmuctl_region_reset(struct pmuctl_regions *r, int h)
{
	struct rthread *t = tls[0].id == r->id ? tls[0].t : NULL;
	struct rslot *s;

	if (h < 0 || (unsigned int)h >= atomic_load(&r->nr))
		return -EINVAL;
	for (unsigned int k = 1; k < TLS_SETS && !t; k++)
		if (tls[k].id == r->id)
			t = tls[k].t;
	if (!t)
		t = find_thread(r, gettid());
	if (!t)
		return 0;
	s = slot(r, t, (unsigned int)h);
	/* Open, it keeps its start: it closes normally. */
	s->calls = 0;
	memset(s->v + r->n, 0, r->n * sizeof(uint64_t));
	return 0;
}

int pmuctl_regions_reset(struct pmuctl_regions *r)
{
	pthread_mutex_lock(&r->lock);
	for (struct rthread *t = r->threads; t; t = t->next) {
		for (unsigned int h = 0; h < r->max; h++) {
			struct rslot *s = slot(r, t, h);

			/* An open region keeps its start: it closes normally. */
			s->calls = 0;
			memset(s->v + r->n, 0, r->n * sizeof(uint64_t));
		}
		t->emulated = 0;
	}
	pthread_mutex_unlock(&r->lock);
	for (unsigned int k = 0; k < PMUCTL_REGION_MISUSE_NR; k++)
		atomic_store(&r->misuse[k], 0);
	return 0;
}

int pmuctl_regions_stats(struct pmuctl_regions *r, unsigned int row,
			 struct pmuctl_region_stats *st)
{
	unsigned int nr = atomic_load(&r->nr), i = 0;
	int ret = -ENOENT;

	memset(st, 0, sizeof(*st));
	pthread_mutex_lock(&r->lock);
	for (unsigned int h = 0; h < nr && ret; h++) {
		for (struct rthread *t = r->threads; t; t = t->next) {
			struct rslot *s = slot(r, t, h);

			/* A thread that never entered the region has no row. */
			if (!s->seen)
				continue;
			if (i++ != row)
				continue;
			st->region = r->name[h];
			st->handle = (int)h;
			st->tid = t->tid;
			st->calls = s->calls;
			st->emulated_reads = t->emulated;
			st->nr = r->n;
			st->counts = s->v + r->n;
			st->open = s->open;
			ret = 0;
			break;
		}
	}
	pthread_mutex_unlock(&r->lock);
	return ret;
}

uint64_t pmuctl_regions_misuse(const struct pmuctl_regions *r, unsigned int kind)
{
	if (kind >= PMUCTL_REGION_MISUSE_NR)
		return 0;
	return atomic_load(&r->misuse[kind]);
}

static bool ipc_of(const struct pmuctl_regions *r,
		   const struct pmuctl_region_stats *st, double *ipc)
{
	uint64_t cyc;

	if (r->ipc[0] < 0)
		return false;
	cyc = st->counts[r->ipc[1]];
	*ipc = cyc ? (double)st->counts[r->ipc[0]] / (double)cyc : 0;
	return cyc != 0;
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

/* CSV: a field quoted where it holds the separator, a quote or a newline. */
static void csv_str(FILE *f, const char *s, const char *sep)
{
	if (!strstr(s, sep) && !strpbrk(s, "\"\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void write_json(struct pmuctl_regions *r, FILE *f)
{
	struct pmuctl_region_stats st;
	double ipc;

	for (unsigned int row = 0; !pmuctl_regions_stats(r, row, &st); row++) {
		fputs("{\"type\":\"region\",\"region\":", f);
		json_str(f, st.region);
		fprintf(f, ",\"thread\":%d,\"calls\":%llu,\"emulated_reads\":%llu,\"open\":%u,\"counts\":{",
			(int)st.tid, (unsigned long long)st.calls,
			(unsigned long long)st.emulated_reads, st.open);
		for (unsigned int i = 0; i < st.nr; i++) {
			if (i)
				fputc(',', f);
			json_str(f, r->event[i]);
			fprintf(f, ":%llu", (unsigned long long)st.counts[i]);
		}
		fputs("},\"metrics\":{", f);
		if (ipc_of(r, &st, &ipc))
			fprintf(f, "\"IPC\":%.6g", ipc);
		fputs("}}\n", f);
	}
	fputs("{\"type\":\"misuse\"", f);
	for (unsigned int k = 0; k < PMUCTL_REGION_MISUSE_NR; k++)
		fprintf(f, ",\"%s\":%llu", misuse_names[k],
			(unsigned long long)pmuctl_regions_misuse(r, k));
	fputs("}\n", f);
}

static void write_csv(struct pmuctl_regions *r, FILE *f, const char *x)
{
	struct pmuctl_region_stats st;
	double ipc;

	fprintf(f, "region%sthread%scalls%semulated_reads%sopen", x, x, x, x);
	for (unsigned int i = 0; i < r->n; i++) {
		fputs(x, f);
		csv_str(f, r->event[i], x);
	}
	fprintf(f, "%sIPC\n", x);
	for (unsigned int row = 0; !pmuctl_regions_stats(r, row, &st); row++) {
		csv_str(f, st.region, x);
		fprintf(f, "%s%d%s%llu%s%llu%s%u", x, (int)st.tid, x,
			(unsigned long long)st.calls, x,
			(unsigned long long)st.emulated_reads, x, st.open);
		for (unsigned int i = 0; i < st.nr; i++)
			fprintf(f, "%s%llu", x, (unsigned long long)st.counts[i]);
		fputs(x, f);
		if (ipc_of(r, &st, &ipc))
			fprintf(f, "%.2f", ipc);
		fputc('\n', f);
	}
	fputs("# misuse", f);
	for (unsigned int k = 0; k < PMUCTL_REGION_MISUSE_NR; k++)
		fprintf(f, " %s=%llu", misuse_names[k],
			(unsigned long long)pmuctl_regions_misuse(r, k));
	fputc('\n', f);
}

int pmuctl_regions_write(struct pmuctl_regions *r, FILE *f, unsigned int format,
			 const char *sep)
{
	if (format == PMUCTL_REGIONS_JSON)
		write_json(r, f);
	else if (format == PMUCTL_REGIONS_CSV)
		write_csv(r, f, sep && *sep ? sep : ",");
	else
		return -EINVAL;
	return ferror(f) ? -EIO : 0;
}

/* ---- the hand-over from "pmuctl stat --regions" ------------------------- */

static pthread_mutex_t env_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pmuctl_regions *env_set;
static int env_ret = 1;			/* 1: not tried yet */
static int env_out = -1;
static unsigned int env_format;
static char env_sep[8];

/* At exit: the results, to the descriptor the tool gave. */
static void env_write(void)
{
	FILE *f;

	if (!env_set || env_out < 0)
		return;
	f = fdopen(env_out, "a");
	if (!f)
		return;
	env_out = -1;
	pmuctl_regions_write(env_set, f, env_format, env_sep);
	fclose(f);
}

/* "0x1f" or "1f": a hex number up to @end (or the string's end). */
static int hex(const char **s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(*s, &end, 16);
	if (end == *s || errno)
		return -EINVAL;
	*s = end;
	return 0;
}

/* One "KEY=VALUE" word of $PMUCTL_REGIONS into the hand-over. */
struct handover {
	int fd, out;
	unsigned int max, format, n;
	uint32_t ecx[PMUCTL_MAX_EVENTS];
	struct pmuctl_event ev[PMUCTL_MAX_EVENTS];
	char sep[8];
};

static int env_word(struct handover *h, const char *w)
{
	uint64_t v;

	if (!strncmp(w, "fd=", 3) || !strncmp(w, "out=", 4) ||
	    !strncmp(w, "max=", 4)) {
		char *end;
		long x = strtol(strchr(w, '=') + 1, &end, 10);

		if (end == strchr(w, '=') + 1 || (*end && *end != ' ') || x < 0 ||
		    x > 1 << 20)
			return -EINVAL;
		if (w[0] == 'f')
			h->fd = (int)x;
		else if (w[0] == 'o')
			h->out = (int)x;
		else
			h->max = (unsigned int)x;
		return 0;
	}
	if (!strncmp(w, "fmt=", 4)) {
		if (!strncmp(w + 4, "csv", 3))
			h->format = PMUCTL_REGIONS_CSV;
		else if (!strncmp(w + 4, "json", 4))
			h->format = PMUCTL_REGIONS_JSON;
		else
			return -EINVAL;
		return 0;
	}
	if (!strncmp(w, "sep=", 4)) {
		const char *s = w + 4;

		/* hex bytes, so that a blank or a comma can be given */
		for (size_t i = 0; *s && *s != ' '; i++) {
			char b[3] = { s[0], s[1], 0 };

			if (i + 1 >= sizeof(h->sep) || !s[1] ||
			    strspn(b, "0123456789abcdefABCDEF") != 2)
				return -EINVAL;
			h->sep[i] = (char)strtoul(b, NULL, 16);
			h->sep[i + 1] = 0;
			s += 2;
		}
		return 0;
	}
	if (!strncmp(w, "ev=", 3)) {
		const char *s = w + 3;

		for (h->n = 0; *s && *s != ' '; h->n++) {
			if (h->n == PMUCTL_MAX_EVENTS || hex(&s, &v) || *s++ != '/')
				return -EINVAL;
			h->ecx[h->n] = (uint32_t)v;
			if (hex(&s, &v))
				return -EINVAL;
			h->ev[h->n].config = v;
			h->ev[h->n].counter = h->ecx[h->n];
			if (*s == ',')
				s++;
		}
		return h->n ? 0 : -EINVAL;
	}
	return -EINVAL;
}

/* The events' names: $PMUCTL_REGIONS_EVENTS, a comma-separated list. */
static char **env_names(unsigned int n, char **buf)
{
	const char *list = getenv("PMUCTL_REGIONS_EVENTS");
	char **names = calloc(n, sizeof(*names)), *save = NULL, *tok;
	unsigned int i = 0;

	*buf = list ? strdup(list) : NULL;
	if (!names || !*buf)
		return names;
	for (tok = strtok_r(*buf, ",", &save); tok && i < n;
	     tok = strtok_r(NULL, ",", &save))
		names[i++] = tok;
	return names;
}

static int env_attach(void)
{
	const char *env = getenv("PMUCTL_REGIONS");
	struct handover h = { .fd = -1, .out = -1, .max = 256,
			      .format = PMUCTL_REGIONS_CSV };
	struct pmuctl *p;
	char **names, *buf = NULL;
	int ret;

	if (!env)
		return -ENOENT;
	for (const char *w = env; *w; ) {
		ret = env_word(&h, w);
		if (ret)
			return ret;
		w = strchr(w, ' ');
		if (!w)
			break;
		w++;
	}
	if (h.fd < 0 || !h.n || !h.max || h.max > PMUCTL_REGIONS_MAX)
		return -EINVAL;
	ret = pmuctl_attach(h.fd, h.ecx, h.n, &p);
	if (ret)
		return ret;
	names = env_names(h.n, &buf);
	ret = pmuctl_regions_new(p, h.ev, (const char *const *)names, h.max, 0,
				 &env_set);
	free(names);
	free(buf);
	if (ret) {
		pmuctl_close(p);
		return ret;
	}
	env_out = h.out;
	env_format = h.format;
	snprintf(env_sep, sizeof(env_sep), "%s", h.sep[0] ? h.sep : ",");
	if (env_out >= 0)
		atexit(env_write);
	return 0;
}

int pmuctl_regions_env(struct pmuctl_regions **out)
{
	pthread_mutex_lock(&env_lock);
	if (env_ret == 1)
		env_ret = env_attach();
	*out = env_ret ? NULL : env_set;
	pthread_mutex_unlock(&env_lock);
	return env_ret;
}

