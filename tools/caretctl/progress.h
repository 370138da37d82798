/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Showing `wait` progress: one line rewritten in place on a terminal, at
 * most a line a second elsewhere (logs stay readable), or a line per
 * change with --verbose.
 */
#ifndef CARETCTL_PROGRESS_H
#define CARETCTL_PROGRESS_H

#include <stdbool.h>
#include <stdio.h>

#include "proto/caret_ctl_dec.h"

void ctl_progress_begin(FILE *out, bool verbose);
void ctl_progress_show(const struct ctl_progress *p);
/* Ends an in-place line so the next output starts on a fresh one. */
void ctl_progress_break(void);
/* Erases an in-place line: the final result replaces it. */
void ctl_progress_clear(void);

#endif
