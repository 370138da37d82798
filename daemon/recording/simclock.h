/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Simulation time for `record -c` (proto/caret_ctl_simclock.h): one
 * caret-simclock process per -c recording (tools/simclock/simclock.c
 * says why a process, and what it emits), run as the recording's owner
 * from its creation (armed or not) to just before its stop. caretd runs it
 * from ../lib/caretd/caret-simclock beside its own executable's bin/.
 * A helper that dies is logged (its exit status) and not restarted: the
 * recording goes on without sim time. A caretd that exits ends them all
 * (and a caretd killed too: their parent-death signal); the next one
 * starts them again for the recordings it takes over. Each helper is its
 * recording's (struct recording's clock).
 */
#ifndef CARETD_SIMCLOCK_H
#define CARETD_SIMCLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon/base/loop.h"
#include "daemon/recording/recordings.h"

/* The job (observe stage) that reaps helpers, and starts again those of
 * -c recordings taken over after a restart. Its collaborators, handed to
 * simclock_start: */
struct simclock_ops {
	struct recordings *recs;
};
int simclock_start(struct loop *l, const struct simclock_ops *ops);
/* Ends every helper (caretd exits). */
void simclock_stop(void);

/*
 * A recording whose clock is wanted (-c, armed or not, for its owner, on
 * its ROS domain): its helper starts at begin and answers whether it
 * reads /clock; -errno with err set (the helper missing, or unable to
 * read /clock: the recording must not go on without it). An armed
 * recording's channel is disabled until its go: its helper's events are
 * not recorded before. Quiesce and end tell it to end (SIGTERM; reaped by
 * the job, SIGKILL after SIMCLOCK_KILL_MS).
 */
extern const struct recording_feature_ops simclock_feature;

/* Whether a helper runs (or is still to reap): its sim_time events reach
 * every session enabling ros2_caret events, a recording armed open
 * included, so none may be armed open meanwhile (cmd_record.c). */
bool simclock_running(void);

#endif
