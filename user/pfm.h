/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pmuctl's bridge to libpfm4 for event NAMES: a libpfm4 event string in,
 * the PERFEVTSEL image and extra-MSR value pmuctl takes (struct
 * pmuctl_event config/extra) out.  The rules are the pmuctl core's; this
 * file only translates names, and says when libpfm4 disagreed.
 *
 * libpfm4 keeps global state: these functions are not thread-safe.
 */
#ifndef PMUCTL_PFM_H
#define PMUCTL_PFM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* pmuctl_pfm_encode(): libpfm4 refused, config/extra are pmuctl's literal composition. */
#define PMUCTL_PFM_REFUSED	1

/**
 * pmuctl_pfm_init() - select the libpfm4 PMU that resolves event names
 * @pmu:	a libpfm4 PMU name ("knm", "knl", "skl", "ix86arch", ...), or
 *		NULL for the core PMU libpfm4 detects on this host (honouring
 *		a LIBPFM_FORCE_PMU the caller's environment sets).
 *
 * (Re)initializes libpfm4 with LIBPFM_FORCE_PMU set to @pmu for the call
 * only (the environment is restored), so any Intel core PMU can be
 * selected on any host.  Safe to call again with another PMU.  libpfm4
 * 4.13 keeps a PMU it was once forced to active after pfm_terminate(), so
 * pmuctl_pfm_encode() qualifies every name with the selected PMU ("pmu::")
 * and never lets libpfm4 pick one.
 *
 * libpfm4 4.13 frees the event tables of ix86arch and of the PMUs it
 * detects on its own at pfm_terminate() but keeps them active, so a
 * process may leave those once, not twice (pfm.c pfm_reinit()); and the
 * host's PMU (NULL) is detected only before any PMU was forced.  Asking
 * again for the PMU in use always succeeds.
 *
 * Return: 0; -ENOENT if libpfm4 has no PMU of that name; -ENODEV if it
 * is not usable after forcing it (or, for NULL, the host has no core PMU
 * libpfm4 knows); -EBUSY when libpfm4 cannot switch again in this process
 * (the PMU in use stays selected); -EINVAL for a malformed name; -ENOMEM.
 */
int pmuctl_pfm_init(const char *pmu);

/**
 * pmuctl_pfm_name() - the libpfm4 name of the selected PMU
 *
 * Return: e.g. "skl" or "ix86arch"; NULL while none is selected.
 */
const char *pmuctl_pfm_name(void);

/**
 * pmuctl_pfm_encode() - encode one libpfm4 event string for pmuctl
 * @event:	"[pmu::]event[:umask...][:modifier[=value]...]", e.g.
 *		"offcore_response_0:dmnd_data_rd:ddr_near:u"; ':' and '.'
 *		separate attributes, names are case-insensitive, as in libpfm4.
 *		A "pmu::" prefix must name the selected PMU.
 * @config:	out: PERFEVTSEL image without the EN and INT bits libpfm4
 *		forces on (PMUCTL_CFG_*; bits 32, 33 are IN_TX, IN_TXCP).
 * @extra:	out: value for the event's extra MSR (OFFCORE_RSP_x,
 *		PEBS_FRONTEND, PEBS_LD_LAT), 0 if libpfm4 gives none.
 * @msg:	out: why, when the return value is not 0, else "" (may be NULL).
 * @msglen:	size of @msg.
 *
 * Privilege: libpfm4 is asked with PFM_PLM0 | PFM_PLM3 as the default, as
 * its own check_events example does: a string with neither u nor k counts
 * at both levels (USR and OS); with u or k, exactly the ones given.
 *
 * Default umasks are libpfm4's: "uops_retired" is UOPS_RETIRED:ALL; an
 * offcore event without a request gets ANY_REQUEST and without a response
 * ANY_RESPONSE (on Skylake, a supplier without a snoop also gets SNP_ANY);
 * MEM_TRANS_RETIRED:LOAD_LATENCY gets ldlat=3.
 *
 * Three libpfm4 4.13 encodings are corrected, whether libpfm4 accepts the
 * string or it is composed (pfm.c's header): on icl, icx and spr the
 * TOPDOWN umasks BACKEND_BOUND_SLOTS, BAD_SPEC_SLOTS, BR_MISPREDICT_SLOTS
 * and MEMORY_BOUND_SLOTS get event select 0xa4; spr's OFFCORE_RESPONSE_1
 * gets 0x2b (OFFCORE_RSP_1's OCR event); on skl, ANY_REQUEST (libpfm4's
 * 0x18007) next to a supplier is 0x8007, unless the string names
 * any_response.  On skl, a snoop umask without a supplier, to which
 * libpfm4 adds its default ANY_RESPONSE, is refused (-EINVAL, @msg says
 * that libpfm4 added it and what to write instead).
 *
 * When libpfm4 refuses a string whose names all exist, it is composed
 * instead, without any of libpfm4's rules:
 *  - the umasks as libpfm4 encodes "event:umask..." alone (its default
 *    umasks included), with the event's own ldlat/fe_thres if libpfm4
 *    takes them there, else without them; if libpfm4 refuses even that,
 *    literally: the event code, then each umask's code OR-ed in (umask,
 *    edge, inv and cmask bits into @config; for OFFCORE_RESPONSE_* and
 *    FRONTEND_RETIRED, whose umask codes are MSR values, into @extra);
 *  - a umask name the event lacks but another event of the PMU with the
 *    same event select has counts (OUTSTANDING on OFFCORE_RESPONSE_1);
 *  - then the modifiers, literally: u, k (privilege as above), e, i,
 *    c=N (replaces CMASK), t (AnyThread), intx, intxcp (bits 32, 33),
 *    ldlat=N (@extra = N), fe_thres=N (@extra bits 8..19); "name=0"
 *    clears a boolean; a modifier the PMU has but the event lacks is
 *    applied all the same.
 * The pmuctl core then says which of its rules, if any, is broken.
 *
 * Return: 0 when libpfm4 accepted the string; PMUCTL_PFM_REFUSED when
 * libpfm4 refused it and @config/@extra hold the literal composition,
 * @msg libpfm4's error text; -ENOENT for an unknown event, umask or
 * modifier name, or a modifier pmuctl cannot compose (@msg says which);
 * -EINVAL for a malformed string, a modifier value that does not fit
 * its field, another PMU's prefix, or skl's snoop without a supplier;
 * -ENODEV if no PMU is selected; -ENOMEM; -EOVERFLOW for an encoding
 * pmuctl cannot represent (more than one extra value).
 */
int pmuctl_pfm_encode(const char *event, uint64_t *config, uint64_t *extra,
		      char *msg, size_t msglen);

/**
 * pmuctl_pfm_has_attr() - does an event string name an attribute
 * (library-internal, shared with the tool; not exported by the .so)
 * @str:	"[pmu::]event[:attr...]".
 * @attr:	an attribute name, e.g. "any_response"; case-insensitive.
 *
 * Return: true if one of the ':'- or '.'-separated attributes after the
 * event name is @attr.
 */
bool pmuctl_pfm_has_attr(const char *str, const char *attr);

/**
 * pmuctl_raw_event() - parse "r<config>[:<extra>]" (library-internal,
 * shared with the tool's offline check; not exported by the .so)
 * @str:	the event string.
 * @config:	out: the config (0 unless the return value is 0).
 * @extra:	out: the extra value, 0 if none.
 *
 * Raw syntax is "r" and a decimal digit, or "r" and hex digits up to ':'
 * (so resource_stalls stays a name).
 *
 * Return: 0; 1 when @str is not raw syntax (a name); -EINVAL for raw
 * syntax with a bad number (not hex, empty, more than 64 bits).
 */
int pmuctl_raw_event(const char *str, uint64_t *config, uint64_t *extra);

#endif /* PMUCTL_PFM_H */
