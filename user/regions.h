/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the regions (regions.c) take from the rest of libpmuctl; internal,
 * not installed.
 */
#ifndef PMUCTL_USER_REGIONS_H
#define PMUCTL_USER_REGIONS_H

#include <stdint.h>

struct pmuctl;

/*
 * A handle on a task-scope session file inherited across exec, whose
 * group the process programmed before its exec, described by its @n
 * counters @ecx.  Return: 0, or -errno.
 */
int pmuctl_attach(int fd, const uint32_t *ecx, unsigned int n,
		  struct pmuctl **out);

#endif /* PMUCTL_USER_REGIONS_H */
