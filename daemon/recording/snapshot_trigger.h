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
 * stop (one left by a killed caretd is its recording's again after the
 * restart, or taken over by the next recording of that name). Its state
 * is its recording's (struct recording's trig); snapshot_trigger_feature
 * is its part of a recording's features.
 */
#ifndef CARETD_SNAPSHOT_TRIGGER_H
#define CARETD_SNAPSHOT_TRIGGER_H

#include "daemon/base/loop.h"
#include "daemon/agents/registry.h"
#include "daemon/recording/recordings.h"

/* Its collaborators, handed to snapshot_trigger_start. */
struct snapshot_trigger_ops {
	struct recordings *recs;
	struct registry *reg;
};
int snapshot_trigger_start(struct loop *l, const struct snapshot_trigger_ops *ops);
void snapshot_trigger_stop(void);
/* A recording whose trig is wanted gets its trigger at begin (-errno
 * with why: not started); it goes at its end. */
extern const struct recording_feature_ops snapshot_trigger_feature;

#endif
