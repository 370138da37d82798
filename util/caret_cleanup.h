/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Scope-bound release, as systemd's _cleanup_ (GCC's and Clang's cleanup
 * attribute): a descriptor, stream, directory or allocation declared with
 * one of these is released on every way out of its scope, so error paths
 * need no hand-written close or free. A value that must outlive the scope
 * is taken out of it (caret_take_fd, caret_take_ptr), leaving nothing to
 * release.
 */
#ifndef CARET_CLEANUP_H
#define CARET_CLEANUP_H

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))

/* close() keeps errno: a cleanup must not change the error being returned */
static inline void caret_closep(int *fd)
{
	if (*fd >= 0) {
		int e = errno;
		close(*fd);
		errno = e;
	}
}

static inline void caret_fclosep(FILE **f)
{
	if (*f) {
		int e = errno;
		fclose(*f);
		errno = e;
	}
}

static inline void caret_closedirp(DIR **d)
{
	if (*d) {
		int e = errno;
		closedir(*d);
		errno = e;
	}
}

static inline void caret_freep(void *p)
{
	free(*(void **)p);
}

#define _cleanup_close_ _cleanup_(caret_closep)
#define _cleanup_fclose_ _cleanup_(caret_fclosep)
#define _cleanup_closedir_ _cleanup_(caret_closedirp)
#define _cleanup_free_ _cleanup_(caret_freep)

/* The descriptor, no longer the scope's to close. */
static inline int caret_take_fd(int *fd)
{
	int r = *fd;
	*fd = -1;
	return r;
}

/* The pointer, no longer the scope's to free. */
#define caret_take_ptr(p)                   \
	({                                  \
		__typeof__(p) t_ = (p);     \
		(p) = NULL;                 \
		t_;                         \
	})

#endif
