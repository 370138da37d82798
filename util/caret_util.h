/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Small utilities every program of the project links (libcaretutil.a):
 * the agent, caretd, caret-agentctl and caretctl. Nothing here knows a
 * segment or a message, so caretctl gets them without the cache library.
 */
#ifndef CARET_UTIL_H
#define CARET_UTIL_H

#include <dirent.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

/* CLOCK_MONOTONIC in ns: the LTTng UST clock, so init_timestamp values and
 * the daemon's timers are on the same clock as the trace. */
int64_t caret_now_ns(void);

/* "N", "NK", "NM" or "NG" (powers of 1024, either case) into bytes, 1..max:
 * -EINVAL when malformed, -ERANGE when 0, above max, or overflowing. */
int caret_parse_size(const char *s, uint64_t max, uint64_t *out);

/* The strings of caretd's state files (names and paths may hold any byte
 * but NUL): caret_hex writes 2 * strlen(s) + 1 bytes to out; caret_unhex
 * reads lowercase hex into out (cap bytes with the NUL), -EINVAL when
 * empty, odd, too long, not hex, or naming a NUL. */
void caret_hex(char *out, const char *s);
int caret_unhex(const char *h, char *out, size_t cap);

/* Writes path anew, whole or not at all: fill writes the content into a
 * fresh 0600 file beside it (mkstemp: no link followed), renamed over path
 * once flushed. 0 or -errno (the old file stays). */
int caret_write_atomic(const char *path, void (*fill)(FILE *f, void *arg), void *arg);

/* Grows the array *p of *cap elements of size bytes to hold need, doubling
 * from 16: 0, or -ENOMEM (on overflow too; *p and *cap stay). */
int caret_grow(void **p, size_t *cap, size_t need, size_t size);

/* The directory dirfd names, listed from its start through a descriptor of
 * its own (never a dup() sharing dirfd's offset); NULL and errno set. */
DIR *caret_opendir_at(int dirfd);

#endif
