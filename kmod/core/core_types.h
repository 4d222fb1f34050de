/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place where the pure core differs between the kernel and user
 * space: where its fixed-width types, bool, NULL, errno values,
 * static_assert and its one bit helper come from.
 */
#ifndef PMUCTL_CORE_TYPES_H
#define PMUCTL_CORE_TYPES_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/stddef.h>
#include <linux/build_bug.h>

/* The index of the lowest set bit of @v, which is not 0. */
static inline u32 pmuctl_lowbit(u64 v)
{
	return __ffs64(v);
}
#else
#include <stdbool.h>
#include <stddef.h>
#include <errno.h>
#include <assert.h>
#include <linux/types.h>
typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s8 s8;

static inline u32 pmuctl_lowbit(u64 v)
{
	return (u32)__builtin_ctzll(v);
}
#endif

#include <linux/pmuctl.h>

#define PMUCTL_NELEM(a)	(sizeof(a) / sizeof((a)[0]))

#endif /* PMUCTL_CORE_TYPES_H */
