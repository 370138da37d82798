/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The recordings caretd made (daemon/recording/recording.h), the one table
 * of them: add, find, drop; who may add one (shares per user, root's
 * reserve); armed ones nobody will start (their caretctl died, or the arm
 * timeout passed) reaped; the armed marker; every recording saved whole
 * after every change and restored at start-up (recordings_state.c). It
 * tells the LTTng view (daemon/lttng/lttng_view.h) what it needs through
 * the view's owner hooks, and publishes each recording's scheduling
 * parameters on its session's entry there.
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

/* Whether uid may add a recording (armed or not) now: 0, or -ENOSPC
 * (the table, or what it leaves to users other than root, is full) or
 * -EDQUOT (uid's own share is used up), with why in err. */
int recordings_admit(const struct recordings *t, uid_t uid, bool armed, char *err,
		     size_t errlen);
/* Remembers a recording (one of the same name goes first), published on
 * its session's entry and saved: 0, or -ENOSPC when the table is full. */
int recordings_add(struct recordings *t, const struct recording *r);
/* The same, returning the recording in its slot (NULL: the table is full),
 * for a caller that goes on with it; not saved: that caller saves once,
 * when the recording is whole (recordings_make, after each feature's
 * begin). */
struct recording *recordings_put(struct recordings *t, const struct recording *r);
/* The newest recording (of uid, or of anyone when uid is (uid_t)-1). */
struct recording *recordings_latest(struct recordings *t, uid_t uid);

/* The recordings of a caretd before this one taken over
 * (recordings_read), each with what its session's entry in the view
 * shows, and the table saved: at the first poll that reaches the session
 * daemon, names[0..n) the sessions it has. */
void recordings_load(struct recordings *t, char (*names)[CARET_LTTNG_NAME_MAX], int n);

/* Forgets r: each feature's end (in reverse, with no stop reply), its
 * entry in the view withdrawn, the table saved. */
void recordings_drop(struct recordings *t, struct recording *r);

/* If session is an armed recording that expired (not started in time):
 * its owner and after how many seconds; else false. */
bool recordings_expired(const struct recordings *t, const char *session, uid_t *uid,
			uint32_t *after_s);
/* A recording caretd ended itself, and why (status shows the newest). */
void recordings_ended_add(struct recordings *t, const char *session, const char *why);

/*
 * Closes every recording armed open (disables its channel, as an armed
 * recording is otherwise started): done before any session becomes active
 * here, since caretd then moves processes out of WAIT, and what they emit
 * would reach a recording whose Enter has not come. Returns how many were
 * held; one that LTTng failed to hold is logged (it may hold events from
 * before its Enter) and counted in hold_failed.
 */
int recordings_hold_armed(struct recordings *t);
/* An armed recording stopped before `go`: nothing was recorded, so what it
 * created goes (the trace tree LTTng wrote, and the trace directory if
 * caretd made it), as its owner and without following links. Nothing
 * when the directory is not known. */
void recordings_unmake(const struct recording *r);

#endif
