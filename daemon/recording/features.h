/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The features of a recording (struct recording_feature_ops,
 * daemon/recording/recording.h), listed once, in the order `record`
 * begins them, and what runs each of them for one recording.
 */
#ifndef CARETD_FEATURES_H
#define CARETD_FEATURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/recording/recordings.h"

extern const struct recording_feature_ops *const recording_features[];
extern const int recording_n_features;

/* Each feature's begin, in order: 0, or the first failure's -errno with
 * why in err, once what began before it is quiesced (in reverse); the
 * caller then stops the session and drops the recording, which ends
 * each (recordings_drop). */
int recording_begin(struct recordings *t, struct recording *r, char *err, size_t errlen);
/* Each feature's go (an armed recording started): a failure is logged,
 * the recording goes on without that feature. */
void recording_go(struct recordings *t, struct recording *r);
/* Each feature's quiesce, in order, before the session stops: 0, or the
 * first -EAGAIN with why in err (the stop is asked again later). */
int recording_quiesce(struct recordings *t, struct recording *r, int64_t now_ns, char *err,
		      size_t errlen);
/* Each feature's end, in reverse, after the session stopped: what the
 * stop replies in out (zeroed by the caller; recording_end_free frees it
 * once the reply is encoded). */
void recording_end(struct recordings *t, struct recording *r, struct recording_end *out);
void recording_end_free(struct recording_end *e);

/* What a status or list result says of the recordings, into out:
 * "recordings" (each recording caretd made, with its mode and each
 * feature's fields), and for status (full) the rotations and the
 * recordings caretd ended itself. Its strings point into t, so the reply
 * is encoded before t changes; caret_ctl_recordings_free frees what it
 * holds. 0 or -ENOMEM (out then holds nothing). */
int recordings_status(struct recordings *t, bool full, struct caret_ctl_recordings *out);

#endif
