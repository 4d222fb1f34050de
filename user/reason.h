/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Names and explanations of the PMUCTL_R_* reason codes that the module and
 * the core report when they refuse a request.
 */
#ifndef PMUCTL_REASON_H
#define PMUCTL_REASON_H

#include <stdint.h>

/**
 * pmuctl_reason_name() - the name of a reason code
 * @r:	a PMUCTL_R_* value.
 *
 * Return: the enum name without its PMUCTL_R_ prefix, e.g. "EDGE_NO_CMASK",
 * or "UNKNOWN" for a code this library does not know (a newer module).
 * The string is static.
 */
const char *pmuctl_reason_name(uint32_t r);

/**
 * pmuctl_reason_text() - what a reason code means, for a user
 * @r:	a PMUCTL_R_* value.
 *
 * Return: one sentence stating the rule that was broken and what to do
 * about it, without a trailing period.  The string is static, except for a
 * code this library does not know: then it is "unknown reason N" in a
 * buffer of the calling thread, valid until that thread's next such call.
 */
const char *pmuctl_reason_text(uint32_t r);

#endif /* PMUCTL_REASON_H */
