/* SPDX-License-Identifier: Apache-2.0 */
/* The features of a recording, listed once (daemon/recording/features.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
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

void recording_end_free(struct recording_end *e)
{
	caret_ctl_recordings_free(&e->rep);
	rotation_report_free(e->rotation);
	e->rotation = NULL;
}

static void status_ended(const struct recordings *t, struct caret_ctl_recordings *out)
{
	unsigned n = t->n_ended < RECORDINGS_ENDED ? t->n_ended : RECORDINGS_ENDED;
	for (unsigned i = 0; i < n; i++)
		out->ended[out->n_ended++] = (struct caret_ctl_rotation_ended){
			.session = t->ended[i].name, .error = t->ended[i].why };
}

int recordings_status(struct recordings *t, bool full, struct caret_ctl_recordings *out)
{
	*out = (struct caret_ctl_recordings){ .have_recordings = true, .have_ended = full,
					      .have_rotations = full };
	size_t n = 0;
	for (struct recording *r = recordings_next(t, NULL); r; r = recordings_next(t, r))
		n++;
	/* a feature's list has room for one entry per recording (rotations) */
	if ((n && !(out->recordings = calloc(n, sizeof(*out->recordings)))) ||
	    (full && n && !(out->rotations = calloc(n, sizeof(*out->rotations)))) ||
	    (full && !(out->ended = calloc(RECORDINGS_ENDED, sizeof(*out->ended)))))
		goto oom;
	if (full)
		status_ended(t, out);
	for (struct recording *r = recordings_next(t, NULL); r; r = recordings_next(t, r)) {
		struct caret_ctl_recording_status *x = &out->recordings[out->n_recordings++];
		x->session = r->name;
		x->path = r->path;
		x->paused = r->paused;
		for (int i = 0; i < t->n_features; i++)
			if (t->features[i]->status && t->features[i]->status(r, x, out) < 0)
				goto oom;
		if (!x->mode)
			x->mode = CARET_CTL_MODE_PLAIN;
	}
	return 0;
oom:
	caret_ctl_recordings_free(out);
	return -ENOMEM;
}
