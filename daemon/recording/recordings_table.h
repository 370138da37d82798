/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The recordings table's data and its walk: the slots, the limits, the
 * rings of expired and ended ones, and how to iterate and look up. Below
 * both the table's logic (recordings.c: admission, reaping, the view's
 * hooks) and its persistence (recordings_state.c), which read the same
 * slots and call nothing of each other downwards.
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

/* The used slot after prev (NULL: the first), or NULL. */
struct recording *recordings_next(struct recordings *t, struct recording *prev);
/* The recording of that session, or NULL. */
struct recording *recordings_find(struct recordings *t, const char *session);
/* Whether the table holds any recording. */
bool recordings_any(const struct recordings *t);

#endif
