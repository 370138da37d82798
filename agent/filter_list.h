/* SPDX-License-Identifier: Apache-2.0 */
/* One of CARET's ':'-separated pattern lists, and a set of the four
 * (SELECT/IGNORE of nodes and topics): see filter_list.c. */
#ifndef CARET_AGENT_FILTER_LIST_H
#define CARET_AGENT_FILTER_LIST_H

#include <stdbool.h>
#include <stdint.h>

#include "shm/caret_shm.h"

#define FILTER_LIST_MAX 32

struct caret_re;

struct filter_list {
	struct caret_re *re[FILTER_LIST_MAX];
	char *item[FILTER_LIST_MAX]; /* the pattern, for the warning */
	uint32_t warned;              /* atomic: the limit warning was given */
	const char *var;
	unsigned n;
	bool all, set;
};

/* One set of CARET's four lists: the environment's, or a pass's. */
struct filter_set {
	struct filter_list sel_nodes, ign_nodes, sel_topics, ign_topics;
	bool select_enabled, ignore_enabled;
};

/* `v` parsed into `l` (emptied first); `var` names the list in warnings
 * and must outlive `l`. NULL or "" leaves it unset. */
void filter_list_parse(struct filter_list *l, const char *v, const char *var);
void filter_list_free(struct filter_list *l);
/* Whether an item matches anywhere in `name` (NULL: no). */
bool filter_list_match(const struct filter_list *l, const char *name);

/* The four lists of `v`, each named by `names` in warnings. */
void filter_set_parse(struct filter_set *f, const char *const v[CARET_FILTER_LISTS],
		      const char *const names[CARET_FILTER_LISTS]);

static inline bool filter_set_on(const struct filter_set *f)
{
	return f->select_enabled || f->ignore_enabled;
}

#endif
