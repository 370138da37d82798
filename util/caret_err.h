/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one error convention: a function that fails returns a negative
 * errno and, when its caller gave it a buffer, one line for a human there.
 * caret_errf() does both in one statement:
 *
 *	return caret_errf(err, errlen, -ENOENT, "no session %s", name);
 *
 * The daemon's replies carry that line and the errno (proto/caret_ctl.h),
 * its logs the same line. Header-only: every program links it, whatever
 * library it takes.
 */
#ifndef CARET_UTIL_ERR_H
#define CARET_UTIL_ERR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* Writes the message to buf (when buf and len) and returns rc as a negative
 * errno, whichever sign it was given with. */
static inline int caret_errf(char *buf, size_t len, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static inline int caret_errf(char *buf, size_t len, int rc, const char *fmt, ...)
{
	if (buf && len) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(buf, len, fmt, ap);
		va_end(ap);
	}
	return rc > 0 ? -rc : rc;
}

#endif
