/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A flight recorder's trigger (`record --snapshot-on EVENT
 * [--snapshot-filter EXPR]`): an LTTng trigger whose condition is that
 * user-space event rule and whose action notifies (not LTTng's own
 * snapshot action: the snapshot would hold no initialization records).
 * caretd reads the notifications on its own channel, at a job of the
 * tick's observe stage, and takes each snapshot as `caretctl snapshot`
 * does (daemon/recording/snapshot.h: the pass, then lttng_snapshot_record) into the
 * recording's trace directory. A firing while a snapshot of that
 * recording is being taken, or within CARET_CTL_SNAPSHOT_HOLDOFF_MS of
 * the last one, is counted and coalesced. The trigger is named
 * "caretd-snapshot:SESSION", registered at record and unregistered at
 * stop (one left by a killed caretd is taken over by the next recording
 * of that name).
 */
#ifndef CARETD_SNAPSHOT_TRIGGER_H
#define CARETD_SNAPSHOT_TRIGGER_H

#include <cjson/cJSON.h>

#include "daemon/base/loop.h"
#include "daemon/lttng/lttng_view.h"
#include "daemon/agents/registry.h"

/* Its collaborators, handed to snapshot_trigger_start. */
struct snapshot_trigger_ops {
	struct lttng_view *lttng;
	struct registry *reg;
};
int snapshot_trigger_start(struct loop *l, const struct snapshot_trigger_ops *ops);
void snapshot_trigger_stop(void);
/* The trigger of the flight recorder session: 0, or -errno with why. */
int snapshot_trigger_begin(const char *session, const char *event, const char *filter,
			   char *err, size_t errlen);
/* The recording stopped: its trigger goes (a snapshot in flight ends). */
void snapshot_trigger_end(const char *session);
/* Each trigger's fields on its entry of a status result's "recordings".
 * 0 or -ENOMEM. */
int snapshot_trigger_add_status(cJSON *o);

#endif
