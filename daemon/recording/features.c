/* SPDX-License-Identifier: Apache-2.0 */
/* The features of a recording, listed once (daemon/recording/features.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "daemon/base/log.h"
#include "daemon/recording/features.h"
#include "daemon/recording/rotation.h"
#include "daemon/recording/simclock.h"
#include "daemon/recording/snapshot.h"
#include "daemon/recording/snapshot_trigger.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_rotation.h"
#include "proto/caret_ctl_snapshot.h"

/* The ring first: its mode is what status says of a flight recorder;
 * the helper last: it emits from its start, into a recording whose other
 * features are in place. */
const struct recording_feature_ops *const recording_features[] = {
	&snapshot_feature,
	&rotation_feature,
	&snapshot_trigger_feature,
	&simclock_feature,
};
const int recording_n_features = sizeof(recording_features) / sizeof(recording_features[0]);

int recording_begin(struct recordings *t, struct recording *r, char *err, size_t errlen)
{
	for (int i = 0; i < t->n_features; i++) {
		const struct recording_feature_ops *f = t->features[i];
		int e = f->begin ? f->begin(t, r, err, errlen) : 0;
		if (e >= 0)
			continue;
		/* what began stops before the session does (a rotation's
		 * schedules); its end comes with the recording's drop */
		char ignored[256];
		for (int k = i - 1; k >= 0; k--)
			if (t->features[k]->quiesce)
				t->features[k]->quiesce(t, r, caret_now_ns(), ignored,
							sizeof(ignored));
		return e;
	}
	return 0;
}

void recording_go(struct recordings *t, struct recording *r)
{
	for (int i = 0; i < t->n_features; i++) {
		const struct recording_feature_ops *f = t->features[i];
		char err[512];
		/* it records now: a failed feature must not undo that */
		if (f->go && f->go(t, r, err, sizeof(err)) < 0)
			log_err("record %s: %s; it records without its %s", r->name, err, f->name);
	}
}

int recording_quiesce(struct recordings *t, struct recording *r, int64_t now_ns, char *err,
		      size_t errlen)
{
	for (int i = 0; i < t->n_features; i++) {
		const struct recording_feature_ops *f = t->features[i];
		int e = f->quiesce ? f->quiesce(t, r, now_ns, err, errlen) : 0;
		if (e < 0)
			return e;
	}
	return 0;
}

void recording_end(struct recordings *t, struct recording *r, struct recording_end *out)
{
	for (int i = t->n_features - 1; i >= 0; i--)
		if (t->features[i]->end)
			t->features[i]->end(t, r, out);
}

static int add_ended(struct recordings *t, cJSON *o)
{
	cJSON *ended = cJSON_CreateArray();
	if (!ended || !cJSON_AddItemToObject(o, CARET_CTL_K_ROTATIONS_ENDED, ended)) {
		cJSON_Delete(ended);
		return -ENOMEM;
	}
	unsigned n = t->n_ended < RECORDINGS_ENDED ? t->n_ended : RECORDINGS_ENDED;
	for (unsigned i = 0; i < n; i++) {
		cJSON *x = cJSON_CreateObject();
		if (!x || !cJSON_AddItemToArray(ended, x) ||
		    !cJSON_AddStringToObject(x, CARET_CTL_K_SESSION, t->ended[i].name) ||
		    !cJSON_AddStringToObject(x, CARET_CTL_K_ERROR, t->ended[i].why))
			return -ENOMEM;
	}
	return cJSON_AddArrayToObject(o, CARET_CTL_K_ROTATIONS) ? 0 : -ENOMEM;
}

int recordings_add_status(struct recordings *t, cJSON *o, bool full)
{
	if (full && add_ended(t, o) < 0)
		return -ENOMEM;
	cJSON *all = cJSON_AddArrayToObject(o, CARET_CTL_K_RECORDINGS);
	if (!all)
		return -ENOMEM;
	for (struct recording *r = recordings_next(t, NULL); r; r = recordings_next(t, r)) {
		cJSON *x = cJSON_CreateObject();
		if (!x || !cJSON_AddItemToArray(all, x)) {
			cJSON_Delete(x);
			return -ENOMEM;
		}
		if (!cJSON_AddStringToObject(x, CARET_CTL_K_SESSION, r->name) ||
		    !cJSON_AddStringToObject(x, CARET_CTL_K_PATH, r->path) ||
		    (r->paused && !cJSON_AddBoolToObject(x, CARET_CTL_K_PAUSED, true)))
			return -ENOMEM;
		for (int i = 0; i < t->n_features; i++)
			if (t->features[i]->status && t->features[i]->status(r, x, o) < 0)
				return -ENOMEM;
		if (!cJSON_GetObjectItemCaseSensitive(x, CARET_CTL_K_MODE) &&
		    !cJSON_AddStringToObject(x, CARET_CTL_K_MODE, CARET_CTL_MODE_PLAIN))
			return -ENOMEM;
	}
	return 0;
}
