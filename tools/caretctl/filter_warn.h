/* SPDX-License-Identifier: Apache-2.0 */
/* A recording's SELECT lists against the names of the processes caretd
 * knows (filter_warn.c). */
#ifndef CARETCTL_FILTER_WARN_H
#define CARETCTL_FILTER_WARN_H

#include "caretctl.h"
#include "proto/caret_segment.h"

/* Warns for each SELECT list of `filter` (enum caret_filter_list; NULL:
 * unset) that matches no node or topic of the processes caretd knows. */
void cli_filter_warn_unmatched(const struct cli_opts *g,
			       const char *const filter[CARET_FILTER_LISTS]);

#endif
