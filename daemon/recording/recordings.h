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
#include <string.h>
#include <sys/types.h>

#include "daemon/lttng/lttng_view.h"
#include "daemon/recording/recording.h"

#define RECORDINGS_MAX 32
/*
 * Shares of the table (B17): a user other than root may hold at most this
 * many recordings, of which this many armed (waiting for Enter), and all
 * of them together leave root a reserve, so one user can neither fill the
 * table nor hold the session daemon's sessions.
 */
#define RECORDINGS_USER 8
#define RECORDINGS_USER_ARMED 2
#define RECORDINGS_ROOT_RESERVE 4
/* An armed recording nobody starts goes after this long by default
 * (caretd --arm-timeout). */
#define RECORDINGS_ARM_TIMEOUT_S 600
/* Armed recordings that expired, remembered for a late `go`. */
#define RECORDINGS_EXPIRED 8
/* Recordings caretd ended itself (a disk about to fill), for `status` and
 * the caretctl that waits on them: the newest kept. */
#define RECORDINGS_ENDED 8

struct recordings {
	struct lttng_view *view; /* its ops are the recordings' LTTng too */
	/* fixed slots: a recording does not move while it exists (its
	 * features and the view's entry point into it) */
	struct recording slot[RECORDINGS_MAX];
	uint64_t seq;
	/* the features, in the order `record` begins them (NULL: none; set
	 * by recordings_init: daemon/recording/features.h) */
	const struct recording_feature_ops *const *features;
	int n_features;
	/* seconds an armed recording may wait for `go` (NULL: the default) */
	const uint32_t *arm_timeout_s;
	struct {
		char name[CARET_LTTNG_NAME_MAX];
		uid_t uid;
		uint32_t after_s;
	} expired[RECORDINGS_EXPIRED];
	unsigned n_expired; /* written so far; the ring keeps the last ones */
	struct {
		char name[CARET_LTTNG_NAME_MAX];
		char why[512];
	} ended[RECORDINGS_ENDED];
	unsigned n_ended;
	uint32_t hold_failed; /* armed-open recordings LTTng failed to hold */
	/* the recordings outlive a restart in this file (B5); "" keeps them
	 * in memory only. Loaded at the first poll that reaches the session
	 * daemon. */
	char state_file[4200];
	bool loaded;
	/* keep the armed marker (shm/armed.c) while a recording is armed
	 * open or filtered: caretd's own table only (unit tests leave it
	 * off); marked: it is */
	bool armed_marker, marked;
};

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
/* The newest recording (of uid, or of anyone when uid is (uid_t)-1). */
struct recording *recordings_latest(struct recordings *t, uid_t uid);

/* Inline: recordings_state.c reads the table too, and calls nothing of
 * recordings.c (which calls it to load and save). */
/* The used slot after prev (NULL: the first), or NULL. */
static inline struct recording *recordings_next(struct recordings *t, struct recording *prev)
{
	for (struct recording *r = prev ? prev + 1 : t->slot; r < t->slot + RECORDINGS_MAX; r++)
		if (r->used)
			return r;
	return NULL;
}

static inline struct recording *recordings_find(struct recordings *t, const char *session)
{
	for (struct recording *r = recordings_next(t, NULL); r; r = recordings_next(t, r))
		if (strcmp(r->name, session) == 0)
			return r;
	return NULL;
}

static inline bool recordings_any(const struct recordings *t)
{
	for (int i = 0; i < RECORDINGS_MAX; i++)
		if (t->slot[i].used)
			return true;
	return false;
}

/* What the view's entry of r's session shows (r->pub), from r. */
static inline void recordings_pub_fill(struct recording *r)
{
	r->pub = (struct lttng_view_pub){
		.name = r->name, .path = r->path, .dir_dev = r->dir_dev, .dir_ino = r->dir_ino,
		.uid = r->uid, .pacing = r->pacing, .frequency = r->frequency,
		.subbuf_size = r->subbuf_size, .subbuf_count = r->subbuf_count,
		.filter = &r->filter };
}
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
/* The armed marker as the recordings say (kept by every save): on while a
 * recording is armed open or records with a filter; or set already for one
 * about to be (before its session starts, so that no process starting
 * meanwhile records at once). */
void recordings_sync_marker(struct recordings *t, bool arming);

/* An armed recording stopped before `go`: nothing was recorded, so what it
 * created goes (the trace tree LTTng wrote, and the trace directory if
 * caretd made it), as its owner and without following links. Nothing
 * when the directory is not known. */
void recordings_unmake(const struct recording *r);

/* ---- across a restart (recordings_state.c) ---- */

/*
 * Writes every recording whole to t->state_file (root-only, replaced by
 * rename), after every change of the table or of a recording; a failure
 * is logged.
 */
void recordings_save(struct recordings *t);
/* Reads t->state_file once, at the first poll that reaches the session
 * daemon: names[0..n) are the sessions it has. */
void recordings_load(struct recordings *t, char (*names)[CARET_LTTNG_NAME_MAX], int n);
/* At a clean exit: removes t->state_file when it names no recording;
 * kept when it does (the next caretd takes them over) or was never
 * loaded (a previous caretd's, unread). */
void recordings_drop_state(struct recordings *t);

#endif
