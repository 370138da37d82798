/* SPDX-License-Identifier: Apache-2.0 */
/* The filters' verdict table: a handle -> allowed / denied per filter set,
 * insert-only keys, lock-free reads (see filter_verdicts.c). */
#ifndef CARET_AGENT_FILTER_VERDICTS_H
#define CARET_AGENT_FILTER_VERDICTS_H

#include <stdbool.h>
#include <stdint.h>

/* The two filter sets: the environment's (the process's) and the pass
 * filter (a Start's, one recording's). */
enum { FILTER_ENV = 0, FILTER_PASS = 1, FILTER_NSETS = 2 };
enum { V_UNKNOWN = 0, V_ALLOW = 1, V_DENY = 2 };

struct filter_vslot;

/* The slot of `key`, claimed when absent; *fresh tells whether this call
 * claimed it. NULL when the table is full. */
struct filter_vslot *filter_vt_claim(const void *key, bool *fresh);
/* A NULL key is not stored (only a claim may hold it). */
void filter_vt_set(const void *key, int set, uint32_t v);
uint32_t filter_vt_get(const void *key, int set);
/* Every key and verdict forgotten (filter_configure's reset). */
void filter_vt_clear(void);

#endif
