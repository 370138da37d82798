/* SPDX-License-Identifier: Apache-2.0 */
/* `caretctl top`'s rows: filtered by node and topic patterns, sorted,
 * printed as a table (top_view.c). */
#ifndef CARETCTL_TOP_VIEW_H
#define CARETCTL_TOP_VIEW_H

#include <stdbool.h>
#include <stdio.h>

#include "proto/caret_ctl_top.h"

enum top_sort { TOP_SORT_CPU, TOP_SORT_RATE, TOP_SORT_MEAN, TOP_SORT_P99, TOP_SORT_MAX,
		TOP_SORT_NODE, TOP_SORT_SYMBOL, TOP_SORTS };
/* "cpu", "rate", ...; -1 for another word. */
int top_sort_by_name(const char *name);
extern const char *const top_sort_names[TOP_SORTS];

struct caret_re;
struct top_view {
	enum top_sort sort;
	const struct caret_re *node, *topic; /* NULL: every row */
	int max_rows;                        /* per list; 0: all */
};

/* Drops the rows the patterns exclude, sorts the rest (in place). */
void top_view_apply(const struct top_view *v, struct caret_ctl_top *t);
/* The table: the header line, the callbacks, the topics. */
void top_view_print(FILE *f, const struct top_view *v, const struct caret_ctl_top *t);

#endif
