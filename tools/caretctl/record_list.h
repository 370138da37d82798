/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `caretctl record -l`: caretd's plan of the recording these options would
 * make, or, caretd not reachable, what caretctl knows alone.
 */
#ifndef CARETCTL_RECORD_LIST_H
#define CARETCTL_RECORD_LIST_H

#include "caretctl.h"
#include "record_opts.h"

/* Prints the plan (one result object with --json); the exit status. */
int cli_record_list(const struct cli_opts *g, const struct rec_opts *o);

#endif
