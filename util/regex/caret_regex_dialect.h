/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Where libstdc++'s ECMAScript and PCRE2 read a pattern differently: the
 * rewrite caret_regex.c compiles instead of the pattern as CARET gives it.
 */
#ifndef CARET_REGEX_DIALECT_H
#define CARET_REGEX_DIALECT_H

#include <stddef.h>

/* The PCRE2 pattern for an ECMAScript one (caret_regex_dialect.c): out
 * gets at most CARET_RE_DIALECT_CAP(n) bytes, NUL-terminated. 0 or
 * -EINVAL with why (reason and offset). */
#define CARET_RE_DIALECT_CAP(n) ((n) * 5 + 1)
int caret_re_dialect(const char *pattern, size_t n, char *out, size_t *outlen, char *why,
		     size_t whylen);

#endif
