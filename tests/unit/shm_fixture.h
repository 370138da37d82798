/* SPDX-License-Identifier: Apache-2.0 */
/* What check_shm.c and its parts (handshake, hostile, counters) share: one segment per test,
 * named under this process's own prefix (check_shm.c defines them). */
#ifndef CARET_TESTS_SHM_FIXTURE_H
#define CARET_TESTS_SHM_FIXTURE_H

#include <check.h>

#include "shm/caret_shm.h"

extern char prefix[32];
extern struct caret_seg seg;
void make_seg(uint64_t cap);
void drop_seg(void);
/* check_shm_handshake.c: the state moves, the replay handshake and the
 * records' claims (proto/caret_segment.h), into t. */
void add_handshake_tests(TCase *t);
/* check_shm_hostile.c: hostile segments and records, into t. */
void add_hostile_tests(TCase *t);
/* check_shm_counters.c: top's counter area, into t. */
void add_counter_tests(TCase *t);

#endif
