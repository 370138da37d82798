/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The features of a recording (struct recording_feature_ops,
 * daemon/recording/recording.h), listed once, in the order `record`
 * begins them, and what runs each of them for one recording.
 */
#ifndef CARETD_FEATURES_H
#define CARETD_FEATURES_H

#include <cjson/cJSON.h>
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
 * stop replies in out. */
void recording_end(struct recordings *t, struct recording *r, struct recording_end *out);

/* "recordings" of a status or list result (each recording caretd made,
 * with its mode and each feature's fields), and for status (full) the
 * rotations and the recordings caretd ended itself. 0 or -ENOMEM. */
int recordings_add_status(struct recordings *t, cJSON *o, bool full);

#endif
