/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The recordings across a caretd restart (B5), and the armed marker every
 * save keeps: over the table's slots (recordings_table.h), called by the
 * table's logic (recordings.h) after each change and at the first poll.
 */
#ifndef CARETD_RECORDINGS_STATE_H
#define CARETD_RECORDINGS_STATE_H

#include <stdbool.h>

#include "daemon/recording/recordings_table.h"

/* The armed marker as the recordings say (kept by every save): on while a
 * recording is armed open or records with a filter; or set already for one
 * about to be (before its session starts, so that no process starting
 * meanwhile records at once). */
void recordings_sync_marker(struct recordings *t, bool arming);

/* ---- across a restart (recordings_state.c) ---- */

/*
 * Writes every recording whole to t->state_file (root-only, replaced by
 * rename), after every change of the table or of a recording; a failure
 * is logged.
 */
void recordings_save(struct recordings *t);
/* Reads t->state_file once, at the first poll that reaches the session
 * daemon, into the table: names[0..n) are the sessions it has. Whether a
 * file was read; their entries in the view, and the save that rewrites
 * it, are the caller's (recordings_load). */
bool recordings_read(struct recordings *t, char (*names)[CARET_LTTNG_NAME_MAX], int n);
/* At a clean exit: removes t->state_file when it names no recording;
 * kept when it does (the next caretd takes them over) or was never
 * loaded (a previous caretd's, unread). */
void recordings_drop_state(struct recordings *t);

#endif
