/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Intel's core event names (library-internal, shared with the tool; not
 * exported by the .so).  The tables are generated at build time by
 * scripts/events-c.awk from the committed lists events/intel/<list>.events,
 * which scripts/intel-events.py extracts from Intel's perfmon JSON: names,
 * codes, masks, counters, extra-MSR values and deprecation, no
 * descriptions.
 */
#ifndef PMUCTL_EVENTS_H
#define PMUCTL_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/pmuctl.h>

/* pmuctl_ievent.flags */
#define PMUCTL_IEV_INV		(1U << 0)
#define PMUCTL_IEV_EDGE		(1U << 1)
#define PMUCTL_IEV_EQ		(1U << 2)
#define PMUCTL_IEV_ANY		(1U << 3)
#define PMUCTL_IEV_DEPRECATED	(1U << 4)
#define PMUCTL_IEV_PAIR		(1U << 5)	/* a second encoding for OFFCORE_RSP_1 */

/* pmuctl_ievent.msr */
enum {
	PMUCTL_IEV_MSR_NONE,
	PMUCTL_IEV_MSR_RSP0,		/* 0x1a6 MSR_OFFCORE_RSP_0 */
	PMUCTL_IEV_MSR_RSP1,		/* 0x1a7 MSR_OFFCORE_RSP_1 */
	PMUCTL_IEV_MSR_LDLAT,		/* 0x3f6 MSR_PEBS_LD_LAT_THRESHOLD */
	PMUCTL_IEV_MSR_FRONTEND,	/* 0x3f7 MSR_PEBS_FRONTEND */
};

/* One event of an Intel list: 16 bytes. */
struct pmuctl_ievent {
	uint32_t name;		/* offset in pmuctl_inames */
	uint16_t xval;		/* index in pmuctl_ixvals, 0: no extra value */
	uint16_t gp;		/* Intel's "Counter": generic counters, a bit each */
	uint8_t code;		/* EventCode (the first of a pair) */
	uint8_t umask;		/* UMask (the first of a pair) */
	uint8_t umask2;		/* UMaskExt */
	uint8_t cmask;		/* CounterMask */
	uint8_t flags;		/* PMUCTL_IEV_* */
	uint8_t msr;		/* PMUCTL_IEV_MSR_* (the first of a pair) */
	uint8_t fixed;		/* fixed counter N + 1 where Intel names one, else 0 */
};

struct pmuctl_ilist {
	const char *name;	/* "gnr": the file's name, events/intel/gnr.events */
	const char *source;	/* Intel's JSON, its version and date */
	const char *commit;	/* the perfmon commit it was extracted from */
	const struct pmuctl_ievent *ev;
	unsigned int nr;
};

extern const char pmuctl_inames[];
extern const uint64_t pmuctl_ixvals[];
extern const struct pmuctl_ilist pmuctl_ilists[];
extern const unsigned int pmuctl_nr_ilists;

static inline const char *pmuctl_ievent_name(const struct pmuctl_ievent *e)
{
	return pmuctl_inames + e->name;
}

/**
 * pmuctl_ilist_find() - an Intel list by its name
 * @name:	"gnr", "emr", "skx", "arl_skt", ... (case-insensitive).
 *
 * Return: the list, NULL if there is none of that name.
 */
const struct pmuctl_ilist *pmuctl_ilist_find(const char *name);

/**
 * pmuctl_ilist_model() - the PMUCTL_MODEL_* whose rules a list's events obey
 * @l:		a list.
 *
 * Return: e.g. PMUCTL_MODEL_SPR for "emr", PMUCTL_MODEL_KNM never (Knights
 * Mill has no list of its own: Intel maps it to Knights Landing's, and
 * pmuctl_ilist_of() does too).
 */
uint32_t pmuctl_ilist_model(const struct pmuctl_ilist *l);

/**
 * pmuctl_ilist_of() - the list whose names resolve for a model
 * @model:	PMUCTL_MODEL_*.
 * @host:	refine by this host's CPUID family, model and stepping where
 *		they belong to @model (Skylake-SP stepping 0-4 -> skx, 5-15
 *		-> clx, Emerald Rapids -> emr, Grand Ridge -> grr, Arrow
 *		Lake -> arl_lnc, arl_skt), as Intel's mapfile.csv does.
 *
 * Return: the list, NULL for a model without one (arch, none).  Without
 * @host, or on another CPU, the model's own list: knl (for KNM too),
 * skl, icl, icx, spr, gnr, adl_glc, adl_grt, srf, lnl_lnc, lnl_skt.
 */
const struct pmuctl_ilist *pmuctl_ilist_of(uint32_t model, bool host);

/**
 * pmuctl_ievent_find() - an event of a list by name (case-insensitive)
 *
 * Return: the event, NULL if the list has none of that name.
 */
const struct pmuctl_ievent *pmuctl_ievent_find(const struct pmuctl_ilist *l,
						const char *name, size_t len);

/**
 * pmuctl_ievent_encode() - Intel's encoding of an event, as pmuctl takes it
 * @l:		its list.
 * @e:		the event.
 * @ev:		out: config (USR and OS set, as perf counts by default) and
 *		extra (Intel's MSRValue); other fields zero.
 *
 * The fixed-counter events Intel lists as event 0 with umask N + 1 keep
 * that encoding from Ice Lake on (uapi: struct pmuctl_event); on the
 * models before (knl, skl, skx, clx) pmuctl takes the architectural
 * encodings for them: INST_RETIRED.ANY 0x00c0, CPU_CLK_UNHALTED.THREAD
 * 0x003c, CPU_CLK_UNHALTED.REF_TSC the pseudo encoding 0x0300.
 */
void pmuctl_ievent_encode(const struct pmuctl_ilist *l,
			  const struct pmuctl_ievent *e, struct pmuctl_event *ev);

/**
 * pmuctl_intel_resolve() - "NAME[:MODIFIER]..." by Intel's name
 * @l:		the list.
 * @str:	Intel's EVENT.UMASK name, case-insensitive, then modifiers:
 *		u, k (also together: uk), e or edge, i or inv, eq (each
 *		also "=0" or "=1"), c=N or cmask=N (0-255), umask=N (the
 *		unit mask in place of the list's), and where the event
 *		has an extra MSR its value: offcore_rsp=V (OCR,
 *		OFFCORE_RESPONSE), ldlat=N (load latency), frontend=V
 *		(FRONTEND_RETIRED); V and N in decimal or 0x hex.
 * @ev, @msg, @msglen: as pmuctl_event_resolve().
 *
 * Return: 0; 1 when the name is not in @l (@ev zeroed, nothing in @msg);
 * -ENOENT for an unknown modifier or one the event cannot take; -EINVAL
 * for a value that does not fit.
 */
int pmuctl_intel_resolve(const struct pmuctl_ilist *l, const char *str,
			 struct pmuctl_event *ev, char *msg, size_t msglen);

/**
 * pmuctl_intel_suggest() - the names of @l closest to @name
 * @buf:	out: "A, B or C", "" if none is close.
 *
 * Return: @buf.
 */
char *pmuctl_intel_suggest(const struct pmuctl_ilist *l, const char *name,
			   size_t len, char *buf, size_t buflen);

#endif /* PMUCTL_EVENTS_H */
