// SPDX-License-Identifier: GPL-2.0
/*
 * Placing a group of events on one CPU next to what other sessions hold
 * there, and the per-CPU accounting that records it.
 *
 * Extra MSRs are arbitrated as Linux does (__intel_shared_reg_get_constraints,
 * intel_alt_er, intel_fixup_er): an event shares a register that holds its
 * exact value, takes a free one, or moves to the other OFFCORE_RSP register
 * when its value fits that register's mask, with its event code rewritten.
 * Unlike Linux's one-pass greedy, every choice is tried before a group is
 * refused; when the greedy succeeds, its placement is the one chosen.
 *
 * Counters are a bipartite matching (augmenting paths), so a group is
 * placed whenever any valid assignment exists.  Both steps are
 * deterministic: the same input always gives the same placement.
 */
#include "core.h"

#define CFG_CODE	(PMUCTL_CFG_EVENT | PMUCTL_CFG_UMASK)

/**
 * pmuctl_cpu_held() - the counters some session holds on a CPU
 * @st:		the CPU's accounting
 *
 * Return: a mask of counter indexes, 0 when nothing is held.
 */
u64 pmuctl_cpu_held(const struct pmuctl_cpu_state *st)
{
	return st->held;
}

/**
 * pmuctl_view_init() - an empty view: every counter and extra MSR free
 * @v:		the view
 */
void pmuctl_view_init(struct pmuctl_view *v)
{
	*v = (struct pmuctl_view){ 0 };
}

/**
 * pmuctl_view_add() - add one CPU's holdings to a view
 * @v:		the view
 * @st:		the CPU's accounting
 *
 * A counter held on any CPU of the view is busy; an extra MSR holding
 * different values on two CPUs of the view can be shared by nobody.
 */
void pmuctl_view_add(struct pmuctl_view *v, const struct pmuctl_cpu_state *st)
{
	u32 i;

	v->busy |= pmuctl_cpu_held(st);
	for (i = 0; i < PMUCTL_XREG_MAX; i++) {
		if (!st->x[i].refcount)
			continue;
		if (v->xstate[i] == PMUCTL_XV_FREE) {
			v->xstate[i] = PMUCTL_XV_HELD;
			v->xvalue[i] = st->x[i].value;
		} else if (v->xvalue[i] != st->x[i].value) {
			v->xstate[i] = PMUCTL_XV_CONFLICT;
		}
	}
}

struct sched {
	const struct pmuctl_model *m;
	const struct pmuctl_view *v;
	const struct pmuctl_event *ev;
	struct pmuctl_class cls[PMUCTL_MAX_EVENTS];
	u32 n;
};

/*
 * Can register @x take @value?  @cnt/@uval: what the group itself has put
 * in each register so far.
 */
static bool xreg_takes(const struct sched *s, int x, u64 value,
		       const u32 *cnt, const u64 *uval)
{
	if (value & ~s->m->xregs[x].valid)
		return false;
	if (cnt[x])
		return uval[x] == value;
	return s->v->xstate[x] == PMUCTL_XV_FREE ||
	       (s->v->xstate[x] == PMUCTL_XV_HELD && s->v->xvalue[x] == value);
}

/* The registers an event of home register @x may use, in order of preference. */
static u32 xreg_choices(const struct pmuctl_model *m, int x, int *c)
{
	c[0] = x;
	c[1] = m->xregs[x].alt;
	return c[1] < 0 ? 1 : 2;
}

/*
 * Events with the same home register and value go together; each such
 * bunch tries its home register, then the alternative.  With at most two
 * values per register pair and two homes, a placeable group has at most
 * six bunches, so the search tries at most 64 combinations.
 */
#define XBUNCH_MAX	(2 * PMUCTL_XREG_MAX)

static bool xreg_search(const struct sched *s, const u32 *first, u32 nb,
			u32 k, u32 *cnt, u64 *uval, int *slot)
{
	const struct pmuctl_event *e;
	int c[2];
	u32 i, nc;

	if (k == nb)
		return true;
	e = &s->ev[first[k]];
	nc = xreg_choices(s->m, s->cls[first[k]].xreg, c);
	for (i = 0; i < nc; i++) {
		if (!xreg_takes(s, c[i], e->extra, cnt, uval))
			continue;
		cnt[c[i]]++;
		uval[c[i]] = e->extra;
		slot[k] = c[i];
		if (xreg_search(s, first, nb, k + 1, cnt, uval, slot))
			return true;
		cnt[c[i]]--;
	}
	return false;
}

static u32 busy_reason(const struct pmuctl_model *m, int home, bool both)
{
	if (both)
		return PMUCTL_R_OFFCORE_BOTH_BUSY;
	switch (m->xregs[home].kind) {
	case PMUCTL_XK_RSP0:
		return PMUCTL_R_OFFCORE_RSP0_BUSY;
	case PMUCTL_XK_RSP1:
		return PMUCTL_R_OFFCORE_RSP1_BUSY;
	case PMUCTL_XK_FRONTEND:
		return PMUCTL_R_FRONTEND_BUSY;
	default:
		return PMUCTL_R_LDLAT_BUSY;
	}
}

/*
 * No placement exists: name the event a one-pass greedy (Linux's) first
 * fails on, and the register(s) it found busy.
 */
static void xreg_blame(const struct sched *s, u32 *reason, u32 *index)
{
	u32 cnt[PMUCTL_XREG_MAX] = { 0 };
	u64 uval[PMUCTL_XREG_MAX] = { 0 };
	u32 i, j, nc;
	int c[2];

	for (i = 0; i < s->n; i++) {
		int x = s->cls[i].xreg;
		bool fits_alt = false, placed = false;

		if (x < 0)
			continue;
		nc = xreg_choices(s->m, x, c);
		for (j = 0; j < nc && !placed; j++) {
			if (j && !(s->ev[i].extra & ~s->m->xregs[c[j]].valid))
				fits_alt = true;
			if (xreg_takes(s, c[j], s->ev[i].extra, cnt, uval)) {
				cnt[c[j]]++;
				uval[c[j]] = s->ev[i].extra;
				placed = true;
			}
		}
		if (!placed) {
			*reason = busy_reason(s->m, x, fits_alt);
			*index = i;
			return;
		}
	}
	/* Not reached: a greedy success implies a search success. */
	*reason = PMUCTL_R_OFFCORE_BOTH_BUSY;
	*index = 0;
}

static int place_xregs(const struct sched *s, struct pmuctl_place *place,
		       u32 *reason, u32 *index)
{
	u32 cnt[PMUCTL_XREG_MAX] = { 0 };
	u64 uval[PMUCTL_XREG_MAX] = { 0 };
	int slot[XBUNCH_MAX];
	u32 first[XBUNCH_MAX];		/* first event of each bunch */
	u32 bunch[PMUCTL_MAX_EVENTS];	/* event -> its bunch */
	u32 i, k, nb = 0;

	for (i = 0; i < s->n; i++) {
		int x = s->cls[i].xreg;

		if (x < 0)
			continue;
		for (k = 0; k < nb; k++)
			if (s->cls[first[k]].xreg == x &&
			    s->ev[first[k]].extra == s->ev[i].extra)
				break;
		if (k == nb) {
			/* More bunches than can ever fit: some event fails. */
			if (nb == XBUNCH_MAX)
				goto busy;
			first[nb++] = i;
		}
		bunch[i] = k;
	}
	if (!xreg_search(s, first, nb, 0, cnt, uval, slot))
		goto busy;

	for (i = 0; i < s->n; i++) {
		if (s->cls[i].xreg < 0)
			continue;
		place[i].xreg = slot[bunch[i]];
		/* Moved to the other OFFCORE_RSP: its event code goes too. */
		if (slot[bunch[i]] != s->cls[i].xreg)
			place[i].config = (s->ev[i].config & ~CFG_CODE) |
					  s->m->xregs[slot[bunch[i]]].code;
	}
	return 0;
busy:
	xreg_blame(s, reason, index);
	return -EBUSY;
}

/*
 * Average latency [PFM: libpfm_intel_knm(3)]: OUTSTANDING on RSP_0 counts
 * outstanding requests per cycle, RSP_1 with the same requests and
 * ANY_RESPONSE counts the requests; libpfm4 encodes events one by one and
 * cannot check that the two match.  Here both are in one group, and the
 * pair is recognised by the registers it programs, not by how it was
 * spelled: next to an OUTSTANDING event, every event whose final register
 * (@place, after arbitration) is RSP_1 is its partner, whether it was given
 * as OFFCORE_RESPONSE_1 or as an OFFCORE_RESPONSE_0 that arbitration moved
 * there.  Both spellings program the same two MSRs, so they get the same
 * verdict.  The verdict does not depend on the placement chosen: OUTSTANDING
 * fits RSP_0 only, so with it in RSP_0 every other value of the group is in
 * RSP_1, whichever way the search went.
 */
static int latency_check(const struct sched *s, const struct pmuctl_place *place,
			 u32 *reason, u32 *index)
{
	const struct pmuctl_model *m = s->m;
	u64 req = 0;
	bool have = false;
	u32 i;

	for (i = 0; i < s->n && !have; i++) {
		if (s->cls[i].outstanding) {
			req = s->ev[i].extra & m->ofc_request;
			have = true;
		}
	}
	for (i = 0; i < s->n && have; i++) {
		u64 x = s->ev[i].extra;

		if (place[i].xreg < 0 ||
		    m->xregs[place[i].xreg].kind != PMUCTL_XK_RSP1)
			continue;
		*index = i;
		if ((x & m->ofc_request) != req) {
			*reason = PMUCTL_R_LATENCY_REQUEST_MISMATCH;
			return -EINVAL;
		}
		if (!(x & m->ofc_any_response)) {
			*reason = PMUCTL_R_LATENCY_NO_ANY_RESPONSE;
			return -EINVAL;
		}
	}
	*index = 0;
	return 0;
}

/*
 * Topdown metrics [LNX 6.12: intel_pmu_hw_config(), a metric event needs
 * the slots event in its group, as leader]: a byte of PERF_METRICS means
 * nothing without fixed counter 3 counting the slots it divides, at the
 * privilege levels it was asked for.  pmuctl takes the group's order as
 * it comes: the slots event may be anywhere in it.
 */
static int metrics_check(const struct sched *s, u32 *reason, u32 *index)
{
	const u64 priv = PMUCTL_CFG_USR | PMUCTL_CFG_OS;
	u32 i, j;

	for (i = 0; i < s->n; i++) {
		bool slots = false;

		if (!(s->cls[i].counters & PMUCTL_METRIC_MASK))
			continue;
		for (j = 0; j < s->n && !slots; j++)
			slots = (s->ev[j].config & CFG_CODE) == PMUCTL_SLOTS_CODE &&
				s->cls[j].counters == 1ULL << (PMUCTL_IDX_FIXED + 3) &&
				(s->ev[j].config & priv) == (s->ev[i].config & priv);
		if (!slots) {
			*reason = PMUCTL_R_METRICS_NEED_SLOTS;
			*index = i;
			return -EINVAL;
		}
	}
	return 0;
}

/* Every counter index; one u64 holds them (core.h). */
#define ALL_IDX		((1ULL << PMUCTL_IDX_ALL) - 1)
static_assert(PMUCTL_IDX_ALL < 64, "counter indexes fit a u64");

/*
 * Maximum bipartite matching of events to counters, one augmenting-path
 * search (breadth first) per event in order.  Event i finds no path only
 * if events 0..i have no complete matching, so it is the one to blame.
 */
static int place_counters(const struct sched *s, struct pmuctl_place *place,
			  u32 *reason, u32 *index)
{
	s8 holder[PMUCTL_IDX_ALL];	/* event matched to counter, -1 none */
	s8 via[PMUCTL_IDX_ALL];		/* BFS: event that reached the counter */
	s8 assigned[PMUCTL_MAX_EVENTS];
	u8 queue[PMUCTL_MAX_EVENTS];
	u32 i, c;

	for (c = 0; c < PMUCTL_IDX_ALL; c++)
		holder[c] = -1;
	for (i = 0; i < s->n; i++) {
		u64 seen = 0;
		u32 head = 0, tail = 0;
		int found = -1, e;

		queue[tail++] = i;
		while (head < tail && found < 0) {
			u64 avail, rot;

			e = queue[head++];
			avail = s->cls[e].counters & ~s->v->busy & ~seen & ALL_IDX;
			/*
			 * Fixed counters first, generic ones kept free: index k
			 * is tried as j = (k - PMUCTL_IDX_FIXED) mod
			 * PMUCTL_IDX_ALL, j upwards, over the set bits only.
			 */
			rot = (avail >> PMUCTL_IDX_FIXED |
			       avail << (PMUCTL_IDX_ALL - PMUCTL_IDX_FIXED)) & ALL_IDX;
			for (; rot; rot &= rot - 1) {
				int k = (pmuctl_lowbit(rot) + PMUCTL_IDX_FIXED) %
					PMUCTL_IDX_ALL;

				seen |= 1ULL << k;
				via[k] = e;
				if (holder[k] < 0) {
					found = k;
					break;
				}
				queue[tail++] = holder[k];
			}
		}
		if (found < 0) {
			*reason = PMUCTL_R_COUNTERS_BUSY;
			*index = i;
			return -EBUSY;
		}
		/* Flip the path: each event on it takes the counter it reached. */
		for (c = found; ; ) {
			int prev;

			e = via[c];
			prev = e == (int)i ? -1 : assigned[e];
			assigned[e] = c;
			holder[c] = e;
			if (prev < 0)
				break;
			c = prev;
		}
	}
	for (i = 0; i < s->n; i++)
		place[i].idx = assigned[i];
	return 0;
}

/**
 * pmuctl_group_schedule() - place a group of events on one or more CPUs
 * @m:		the PMU model
 * @caps:	the PMU's capabilities
 * @policy:	PMUCTL_POLICY_* of the session asking
 * @v:		what the target CPUs already hold
 * @ev:		the events, ABI fields included (outputs must be zero)
 * @n:		how many, 1..PMUCTL_MAX_EVENTS
 * @place:	on success, where each event goes
 * @reason:	PMUCTL_R_* on failure
 * @index:	on failure, the event that broke the rule
 *
 * Context: pure; changes nothing but the outputs.
 * Return: 0; -E2BIG for too many events; -EINVAL for an invalid event or
 * latency pair; -EBUSY when counters or extra MSRs are taken.
 */
int pmuctl_group_schedule(const struct pmuctl_model *m,
			  const struct pmuctl_caps *caps, u32 policy,
			  const struct pmuctl_view *v,
			  const struct pmuctl_event *ev, u32 n,
			  struct pmuctl_place *place, u32 *reason, u32 *index)
{
	struct sched s = { .m = m, .v = v, .ev = ev, .n = n };
	u32 i;
	int ret;

	*reason = PMUCTL_R_NONE;
	*index = 0;
	if (!n)
		return 0;
	if (n > PMUCTL_MAX_EVENTS) {
		*reason = PMUCTL_R_TOO_MANY_EVENTS;
		*index = PMUCTL_MAX_EVENTS;
		return -E2BIG;
	}
	for (i = 0; i < n; i++) {
		*index = i;
		ret = pmuctl_event_abi_check(&ev[i], reason);
		if (ret)
			return ret;
		ret = pmuctl_event_classify(m, caps, policy, ev[i].config,
					    ev[i].extra, ev[i].flags,
					    &s.cls[i], reason);
		if (ret)
			return ret;
		place[i] = (struct pmuctl_place){
			.config = ev[i].config, .extra = ev[i].extra,
			.xreg = -1,
		};
	}
	*index = 0;

	ret = metrics_check(&s, reason, index);
	if (!ret)
		ret = place_xregs(&s, place, reason, index);
	if (!ret)
		ret = latency_check(&s, place, reason, index);
	if (!ret)
		ret = place_counters(&s, place, reason, index);
	return ret;
}

/**
 * pmuctl_cpu_claim() - record a placement in one CPU's accounting
 * @st:		the CPU's accounting
 * @owner:	the session, non-zero
 * @place:	from pmuctl_group_schedule() with a view that includes @st
 * @n:		number of events
 *
 * All or nothing: either every counter and extra reference is recorded or
 * @st is unchanged.
 *
 * Return: 0; -EINVAL for owner 0, a bad index or a counter placed twice;
 * -EBUSY when a counter is held or an extra MSR holds another value.
 */
int pmuctl_cpu_claim(struct pmuctl_cpu_state *st, u32 owner,
		     const struct pmuctl_place *place, u32 n)
{
	u64 want = 0, xval[PMUCTL_XREG_MAX] = { 0 };
	u32 xref[PMUCTL_XREG_MAX] = { 0 };
	u32 i;

	if (!owner)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		const struct pmuctl_place *p = &place[i];

		if (p->idx >= PMUCTL_IDX_ALL || (want & (1ULL << p->idx)) ||
		    p->xreg >= PMUCTL_XREG_MAX)
			return -EINVAL;
		want |= 1ULL << p->idx;
		if (st->owner[p->idx])
			return -EBUSY;
		if (p->xreg < 0)
			continue;
		if (xref[p->xreg] && xval[p->xreg] != p->extra)
			return -EINVAL;
		if (st->x[p->xreg].refcount && st->x[p->xreg].value != p->extra)
			return -EBUSY;
		xref[p->xreg]++;
		xval[p->xreg] = p->extra;
	}
	for (i = 0; i < n; i++) {
		st->owner[place[i].idx] = owner;
		st->xref[place[i].idx] = place[i].xreg + 1;
	}
	st->held |= want;
	for (i = 0; i < PMUCTL_XREG_MAX; i++) {
		if (!xref[i])
			continue;
		st->x[i].value = xval[i];
		st->x[i].refcount += xref[i];
	}
	return 0;
}

/**
 * pmuctl_cpu_release() - undo pmuctl_cpu_claim()
 * @st:		the CPU's accounting
 * @owner:	the session that claimed
 * @place:	what it claimed
 * @n:		number of events
 *
 * All or nothing, and never below zero: a release that does not match
 * what @owner holds (its counters, and the extra MSR reference each
 * counter's event took) changes nothing.
 *
 * Return: 0, or -EINVAL when @owner does not hold what @place names.
 */
int pmuctl_cpu_release(struct pmuctl_cpu_state *st, u32 owner,
		       const struct pmuctl_place *place, u32 n)
{
	u32 xref[PMUCTL_XREG_MAX] = { 0 };
	u64 seen = 0;
	u32 i;

	if (!owner)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		const struct pmuctl_place *p = &place[i];

		if (p->idx >= PMUCTL_IDX_ALL || (seen & (1ULL << p->idx)) ||
		    p->xreg >= PMUCTL_XREG_MAX || st->owner[p->idx] != owner ||
		    st->xref[p->idx] != p->xreg + 1)
			return -EINVAL;
		seen |= 1ULL << p->idx;
		if (p->xreg < 0)
			continue;
		if (st->x[p->xreg].value != p->extra ||
		    ++xref[p->xreg] > st->x[p->xreg].refcount)
			return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		st->owner[place[i].idx] = 0;
		st->xref[place[i].idx] = 0;
	}
	st->held &= ~seen;
	for (i = 0; i < PMUCTL_XREG_MAX; i++) {
		st->x[i].refcount -= xref[i];
		if (!st->x[i].refcount)
			st->x[i].value = 0;
	}
	return 0;
}
