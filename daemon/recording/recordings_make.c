/* SPDX-License-Identifier: Apache-2.0 */
/* `record`'s making and an armed recording's `go`
 * (daemon/recording/recordings_make.h). */
#include <errno.h>
#include <stdio.h>

#include "daemon/base/log.h"
#include "daemon/recording/recordings_make.h"
#include "util/caret_err.h"

/* the trace directory as the session's making found or made it */
static void made_dir(const struct caret_lttng_cfg *cfg, struct recording *d)
{
	if (cfg->dir_out) {
		d->dir_dev = cfg->dir_out->dev;
		d->dir_ino = cfg->dir_out->ino;
		d->dir_made = cfg->dir_out->made;
		d->parents_made = cfg->dir_out->parents_made;
	}
}

int recordings_make_admit(struct recordings *t, const struct recording *d, char *err,
			  size_t errlen)
{
	/* Refused before a session exists: a recording caretd could not
	 * remember would run with no owner that `stop` could find. */
	int r = recordings_admit(t, d->uid, d->armed, err, errlen);
	if (r < 0) {
		log_warn("record refused for uid %d: %s", (int)d->uid, err);
		return r;
	}
	if (d->armed_open || recording_filtered(d))
		recordings_sync_marker(t, true);
	return 0;
}

void recordings_make_undo(struct recordings *t, const struct caret_lttng_ops *ops,
			  const struct caret_lttng_cfg *cfg, struct recording *d, bool stopped)
{
	struct caret_lttng_chan_stats st;
	if (!stopped)
		ops->stop(d->name, &st, 1, NULL, 0, NULL, 0);
	made_dir(cfg, d);
	/* what recordings_unwind() removes, for the same reasons */
	if (d->armed || (d->ring.on && d->dir_made))
		recordings_unmake(d);
	recordings_sync_marker(t, false);
}

int recordings_make_finish(struct recordings *t, const struct caret_lttng_ops *ops,
			   const struct caret_lttng_cfg *cfg, struct recording *d, int r,
			   struct recording **out, char *err, size_t errlen)
{
	*out = NULL;
	if (r < 0) {
		recordings_sync_marker(t, false);
		log_err("record failed: %s", err);
		return r;
	}
	made_dir(cfg, d);
	struct recording *rec = recordings_put(t, d);
	if (!rec) {
		/* unremembered, no one could stop it by name of owner (and
		 * an armed one would look active with nothing enabled) */
		struct caret_lttng_chan_stats st;
		ops->stop(d->name, &st, 1, NULL, 0, NULL, 0);
		recordings_sync_marker(t, false);
		return caret_errf(err, errlen, -ENOSPC, "too many recordings to remember %s: "
				  "not started", d->name);
	}
	/* A feature asked for that cannot be had refuses the recording: a
	 * rotating one that cannot rotate (its user asked for a bound on the
	 * disk it fills), a trigger refused (its user would wait for
	 * snapshots that never come), -c without /clock (its user asked for
	 * sim time). */
	if ((r = recording_begin(t, rec, err, errlen)) < 0) {
		/* refused once its session exists: the session goes, then the
		 * recording with what it made */
		struct caret_lttng_chan_stats st;
		ops->stop(rec->name, &st, 1, NULL, 0, NULL, 0);
		recordings_unwind(t, rec);
		log_err("record failed: %s", err);
		return r;
	}
	/* saved once, whole, at the command's end (recordings_save_changed):
	 * with what each feature's begin set (an armed rotating one's options
	 * outlive a restart before Enter) */
	*out = rec;
	return 0;
}

void recordings_make_unmake(struct recordings *t, const struct caret_lttng_ops *ops,
			    struct recording *rec)
{
	struct caret_lttng_chan_stats st;
	ops->stop(rec->name, &st, 1, NULL, 0, NULL, 0);
	recordings_unwind(t, rec);
}

int recordings_go(struct recordings *t, const struct caret_lttng_ops *ops,
		  struct recording *rec, char *err, size_t errlen)
{
	int r = rec->armed_open ? 0 : ops->go(rec->name, err, errlen);
	if (r < 0) {
		log_err("record %s: %s", rec->name, err);
		return r;
	}
	rec->armed = false;
	rec->armed_open = false;
	recording_go(t, rec);
	t->dirty = true; /* saved at the command's end */
	log_info("session %s: armed recording started", rec->name);
	return 0;
}
