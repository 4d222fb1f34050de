/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the differential tests (pfm_diff.c, intel_diff.c) share: their
 * totals outlive the harness's fork per test in a shared page, and their
 * lines reach stdout before the test child leaves by _exit().
 */
#ifndef PMUCTL_SELFTESTS_DIFF_H
#define PMUCTL_SELFTESTS_DIFF_H

#include <stddef.h>
#include <stdio.h>
#include <sys/mman.h>

#include "kselftest.h"

/* ksft_print_msg() goes to stdout, which the test child leaves by _exit(). */
#define say(fmt, ...) do {				\
	ksft_print_msg(fmt, ##__VA_ARGS__);		\
	fflush(stdout);					\
} while (0)

/* @size bytes shared with the harness's test children, or NULL. */
static inline void *shared_page(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

#endif /* PMUCTL_SELFTESTS_DIFF_H */
