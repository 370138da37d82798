/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The recordings caretd made (daemon/recording/recording.h), the one table
 * of them (recordings_table.h: add, find, forget, who may add one, the
 * armed marker), saved whole and restored at start-up
 * (recordings_state.h), and here the table in caretd's loop: it tells the
 * LTTng view (daemon/lttng/lttng_view.h) what it needs through the view's
 * owner hooks, reaps the armed ones nobody will start (their caretctl
 * died, or the arm timeout passed) and the recordings whose session ended
 * outside caretd, and holds the ones armed open; each saved once after.
 */
#ifndef CARETD_RECORDINGS_H
#define CARETD_RECORDINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon/recording/recordings_state.h"

/* An empty table over view v, with the features of features.h, hooked
 * into the view. */
void recordings_init(struct recordings *t, struct lttng_view *v,
		     const struct recording_feature_ops *const *features, int n_features);

/* recordings_put, then the table saved: 0, or -ENOSPC when the table is
 * full. */
int recordings_add(struct recordings *t, const struct recording *r);
/* The recordings of a caretd before this one taken over
 * (recordings_read), and the table saved: at the first poll that reaches
 * the session daemon, names[0..n) the sessions it has. */
void recordings_load(struct recordings *t, char (*names)[CARET_LTTNG_NAME_MAX], int n);

/* recordings_forget, then the table saved (r NULL or unused: nothing). */
void recordings_drop(struct recordings *t, struct recording *r);

/*
 * Closes every recording armed open (disables its channel, as an armed
 * recording is otherwise started): done before any session becomes active
 * here, since caretd then moves processes out of WAIT, and what they emit
 * would reach a recording whose Enter has not come. Returns how many were
 * held; one that LTTng failed to hold is logged (it may hold events from
 * before its Enter) and counted in hold_failed.
 */
int recordings_hold_armed(struct recordings *t);

#endif
