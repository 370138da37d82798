/* SPDX-License-Identifier: Apache-2.0 */
/* The relations the filters decide over and their verdicts under each
 * filter set (see filter_rel.c). Every function but filter_arg_ptr runs
 * under filter.c's lock. */
#ifndef CARET_AGENT_FILTER_REL_H
#define CARET_AGENT_FILTER_REL_H

#include <stdint.h>

#include "agent/filter_list.h"
#include "agent/filter_verdicts.h"
#include "shm/caret_shm.h"

/* The environment's lists and the pass filter's, parsed by filter.c. */
extern struct filter_set filter_sets[FILTER_NSETS];

/* An init record's argument `i` as the handle it is. */
static inline const void *filter_arg_ptr(const union caret_arg *a, int i)
{
	return (const void *)(uintptr_t)a[i].u;
}

/* An init record was seen: the relations it carries learnt, the verdicts
 * of what they decide stored. */
void filter_rel_note(uint32_t kind, const union caret_arg *a);
/* caret_filter_note_group_node's relation (both non-NULL). */
void filter_rel_group_node(const void *group, const void *node_key);
/* Every relation matched and decided again under `set` (newly parsed). */
void filter_rel_decide(int set);
/* Every relation and verdict forgotten. */
void filter_rel_reset(void);

#endif
