/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The recordings table and its changes: the slots, the limits, the rings
 * of expired and ended ones, how to iterate and look up, who may add one,
 * a recording put in or forgotten, the armed marker. A change marks the table changed; it is
 * saved by its persistence above (recordings_state.c) once per command,
 * and the view's hooks (recordings.c) are above both.
 */
#ifndef CARETD_RECORDINGS_TABLE_H
#define CARETD_RECORDINGS_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
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
	 * features point into it) */
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
	/* changed since the last save (recordings_save_changed) */
	bool dirty;
};

/* The used slot after prev (NULL: the first), or NULL. */
struct recording *recordings_next(struct recordings *t, struct recording *prev);
/* The recording of that session, or NULL. */
struct recording *recordings_find(struct recordings *t, const char *session);
/* Whether the table holds any recording. */
bool recordings_any(const struct recordings *t);

/* Whether uid may add a recording (armed or not) now: 0, or -ENOSPC
 * (the table, or what it leaves to users other than root, is full) or
 * -EDQUOT (uid's own share is used up), with why in err. */
int recordings_admit(const struct recordings *t, uid_t uid, bool armed, char *err,
		     size_t errlen);
/* Remembers a recording (one of the same name goes first), what the view
 * reads of its session from then on: the recording in its slot, or NULL
 * when the table is full. Not saved: the table marks itself changed (whoever drives the
 * change saves once: recordings_save_changed). */
struct recording *recordings_put(struct recordings *t, const struct recording *r);
/* The newest recording (of uid, or of anyone when uid is (uid_t)-1). */
struct recording *recordings_latest(struct recordings *t, uid_t uid);

/* A recording read back from before a restart (recordings_read) into a
 * free slot, in its place in the order, with what the view reads of its
 * session: 0, or -ENOSPC. */
int recordings_take_over(struct recordings *t, const struct recording *r);
/* Forgets r: each feature's end (in reverse, with no stop reply), its slot
 * free (the view reads nothing of it from then on). Not saved (as
 * recordings_put). */
void recordings_forget(struct recordings *t, struct recording *r);
/* An armed recording stopped before `go`: nothing was recorded, so what it
 * created goes (the trace tree LTTng wrote, and the trace directory if
 * caretd made it), as its owner and without following links. Nothing
 * when the directory is not known. */
void recordings_unmake(const struct recording *r);
/* Forgets r, whose session was stopped before it ever ran (refused once
 * made, or armed and never started): as recordings_forget, and, after its
 * features' end, its trace directory goes (recordings_unmake) when nothing
 * can be in it: an armed one's, or a flight recorder's that caretd made. */
void recordings_unwind(struct recordings *t, struct recording *r);

/* The armed marker as the recordings say (kept by every save): on while a
 * recording is armed open or records with a filter; or set already for one
 * about to be (before its session starts, so that no process starting
 * meanwhile records at once). */
void recordings_sync_marker(struct recordings *t, bool arming);

/* If session is an armed recording that expired (not started in time):
 * its owner and after how many seconds; else false. */
bool recordings_expired(const struct recordings *t, const char *session, uid_t *uid,
			uint32_t *after_s);
/* A recording caretd ended itself, and why (status shows the newest). */
void recordings_ended_add(struct recordings *t, const char *session, const char *why);

#endif
