/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * likwid.h: for programs that include <likwid.h> for the MarkerAPI (as
 * LIKWID before 5.0 had them do).  pmuctl-likwid offers the MarkerAPI
 * alone: see likwid-marker.h.
 */
#ifndef PMUCTL_LIKWID_H
#define PMUCTL_LIKWID_H

#include "likwid-marker.h"

#endif /* PMUCTL_LIKWID_H */
