/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The recordings across a caretd restart (B5): over the table
 * (recordings_table.h), saved by whoever drove a change (once per command:
 * daemon/server/commands.c; the table's own hooks after a poll), read at
 * the first poll.
 */
#ifndef CARETD_RECORDINGS_STATE_H
#define CARETD_RECORDINGS_STATE_H

#include <stdbool.h>

#include "daemon/recording/recordings_table.h"

/* ---- across a restart (recordings_state.c) ---- */

/*
 * The armed marker as the table says (recordings_sync_marker), and every
 * recording written whole to t->state_file (root-only, replaced by
 * rename); a failure is logged. The table is no longer marked changed.
 */
void recordings_save(struct recordings *t);
/* The same when the table changed since its last save (a command's end:
 * one save, however many changes it made). */
void recordings_save_changed(struct recordings *t);
/* Reads t->state_file once, at the first poll that reaches the session
 * daemon, into the table (recordings_take_over): names[0..n) are the
 * sessions it has. Whether a file was read; the save that rewrites it is
 * the caller's (recordings_load). */
bool recordings_read(struct recordings *t, char (*names)[CARET_LTTNG_NAME_MAX], int n);
/* At a clean exit: removes t->state_file when it names no recording;
 * kept when it does (the next caretd takes them over) or was never
 * loaded (a previous caretd's, unread). */
void recordings_drop_state(struct recordings *t);

#endif
