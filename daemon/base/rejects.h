/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Names of /dev/shm files caretd refused, with the identity of the file
 * they named when refused (inode, size, times). Any user can create such a
 * file and keep raising inotify events on it: a refused file is looked at
 * again only once it changed, so rejection costs one stat per event and
 * never an open (whose close would raise yet another event).
 */
#ifndef CARETD_REJECTS_H
#define CARETD_REJECTS_H

#include <stdbool.h>
#include <sys/stat.h>

/* Bounded: beyond this many refused names the oldest is forgotten (then
 * looked at, and refused, once more). */
#define REJECTS_MAX 1024

/* True when `name` was refused and its file has not changed since. */
bool rejects_unchanged(const char *name, const struct stat *st);
void rejects_add(const char *name, const struct stat *st);
void rejects_forget(const char *name);
int rejects_count(void);

#endif
