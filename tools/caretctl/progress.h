/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Showing `wait` progress (processes recording, records replayed, rate,
 * elapsed time, ETA): a bar rewritten in place on a terminal, at most a
 * line a second elsewhere (logs stay readable), or a line per change with
 * --verbose.
 */
#ifndef CARETCTL_PROGRESS_H
#define CARETCTL_PROGRESS_H

#include <stdbool.h>
#include <stdio.h>

#include "proto/caret_ctl_dec.h"

/* what: the processes counted done, after "N/M processes": "recording"
 * for record's wait (CLI_PROGRESS_RECORDING), what a snapshot's pass
 * counts for a snapshot (its processes record all along: issue 33 L9). */
#define CLI_PROGRESS_RECORDING "recording"
#define CLI_PROGRESS_SNAPSHOT "replayed into the ring"
void cli_progress_begin(FILE *out, bool verbose, const char *what);
void cli_progress_show(const struct ctl_progress *p);
/* Percent replayed, 0..100, rounded down. */
int cli_progress_pct(const struct ctl_progress *p);
/* Ends an in-place line so the next output starts on a fresh one. */
void cli_progress_break(void);
/* Erases an in-place line: the final result replaces it. */
void cli_progress_clear(void);

#endif
