/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `record`'s making, in one place below the command: admission, the armed
 * marker, the table, each feature's begin, and one unwind of whatever was
 * done when a step fails. The command (daemon/server/cmd_record.c) plans
 * before, has LTTng make the session between _admit and _finish, and
 * announces after.
 */
#ifndef CARETD_RECORDINGS_MAKE_H
#define CARETD_RECORDINGS_MAKE_H

#include <stddef.h>

#include "daemon/recording/features.h"
#include "lib/lttng/session.h"

/*
 * Makes the recording d describes (its requester, options and features'
 * options; not its name or path), in three steps around its session's
 * making (in line, or off the loop: daemon/lttng/lttng_start.h):
 *
 * _admit: admitted for d->uid, the armed marker set first when it will be
 * armed open or filtered (no process starting meanwhile records at once):
 * 0, or a negative errno with why in err.
 *
 * _finish, once the session's making returned r (d's name and path filled
 * when r >= 0, err when not): d remembered under the name and path LTTng
 * gave, and each feature begun: 0 and *out, the recording in the table
 * (marked changed: the command's end saves it once); or a negative errno
 * with why in err, and nothing left: the session stopped, what an armed
 * recording or a flight recorder's made directory holds removed, the
 * marker as the table says.
 *
 * _undo instead of _finish: the session made is not wanted (its requester
 * left): it is stopped (unless stopped is set: it was already), what an
 * armed one or a flight recorder's made directory holds removed, the
 * marker as the table says.
 */
int recordings_make_admit(struct recordings *t, const struct recording *d, char *err,
			  size_t errlen);
int recordings_make_finish(struct recordings *t, const struct caret_lttng_ops *ops,
			   const struct caret_lttng_cfg *cfg, struct recording *d, int r,
			   struct recording **out, char *err, size_t errlen);
void recordings_make_undo(struct recordings *t, const struct caret_lttng_ops *ops,
			  const struct caret_lttng_cfg *cfg, struct recording *d, bool stopped);
/* A recording _finish made whose requester left before its result: undone
 * as a feature's refusal undoes it (the session stopped, rec dropped). */
void recordings_make_unmake(struct recordings *t, const struct caret_lttng_ops *ops,
			    struct recording *rec);

/*
 * An armed recording rec starts recording (its `go`): the session through
 * ops (an armed-open one's channel is enabled already: Enter is the
 * agents' gate alone), then each feature's go; the table marked changed
 * (saved once at the command's end). 0, or
 * a negative errno with why in err, and it stays armed.
 */
int recordings_go(struct recordings *t, const struct caret_lttng_ops *ops,
		  struct recording *rec, char *err, size_t errlen);

#endif
