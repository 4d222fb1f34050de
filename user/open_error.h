/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libpmuctl internals: why pmuctl_open() failed, in the words the pmuctl
 * tool prints (user/open_error.c).
 */
#ifndef PMUCTL_OPEN_ERROR_H
#define PMUCTL_OPEN_ERROR_H

#include <stddef.h>

/* Where pmuctl_open() took its path from. */
enum open_source {
	OPEN_ARG,	/* the caller's argument */
	OPEN_ENV,	/* $PMUCTL_DEVICE */
	OPEN_DEFAULT,	/* PMUCTL_DEVICE_PATH */
};

/*
 * Remember this thread's pmuctl_open() failure @ret (-errno) on @path,
 * with @flags, the flags it was given; @ret 0 forgets it (the next
 * pmuctl_open() begins so).
 */
void pmuctl_open_record(int ret, const char *path, enum open_source src,
			   unsigned int flags);

/*
 * When @ret is the failure recorded last in this thread: one line saying
 * why and what to do, in @buf.  Return: @buf, or NULL when @ret is not
 * that failure.
 */
char *pmuctl_open_explain(int ret, char *buf, size_t len);

#endif /* PMUCTL_OPEN_ERROR_H */
