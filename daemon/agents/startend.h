/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Seed 000's Start and End messages reaching this host: one path for the
 * control socket's start/end and for the DDS bridge. It never creates,
 * stops or names a session and never touches a file: it posts the message
 * to the scheduler, whose next tick applies it (struct sched_input), and
 * says at once what it will do under the sessions active now, for the
 * bridge and the control socket to report (the tick, run right after,
 * re-applies the rules to the sessions active then).
 */
#ifndef CARETD_STARTEND_H
#define CARETD_STARTEND_H

#include <stdint.h>

#include "daemon/agents/registry.h"
#include "daemon/agents/scheduler.h"

struct startend_out {
	int applied; /* agents the message moves */
	int ignored; /* agents the rules left alone */
	const char *reason; /* set when the whole message was ignored */
	int filtered; /* agents whose pass has the Start's filter */
};

/*
 * Start: ignored unless an LTTng session is active here; then each agent
 * in WAIT goes on at the next tick (a replay pass, or RECORD without
 * replay when no session enables ros2_caret events), others are left
 * alone; applied and ignored count them now, filtered the agents in WAIT
 * a pass will begin for (the scheduler counts them: sched_post).
 * frequency > 0 paces those agents' replay at that many records per
 * second (CARET's recording_frequency); 0 keeps the daemon's pacing.
 * filter (NULL or all lists empty: none) is the Start's select/ignore
 * lists, already checked with caret_filter_check: the agents it begins a
 * replay pass for apply them to that pass and to their runtime events
 * until End (struct caret_shm_filter). Agents it does not move keep what
 * they record; an agent it moves to RECORD without a replay (no session
 * enables ros2_caret events) is not filtered (the filter goes with a
 * pass).
 */
void startend_start(struct sched *s, struct registry *r, const struct sched_lttng *l,
		    uint32_t frequency, const struct caret_filter_lists *filter,
		    struct startend_out *out);
/* The same with the filter as a recording keeps it, encoded already
 * (NULL: none); handed to the scheduler as it is. */
void startend_start_encoded(struct sched *s, struct registry *r, const struct sched_lttng *l,
			    uint32_t frequency, const struct caret_shm_filter *filter,
			    struct startend_out *out);
/* End: ignored while an LTTng session is active here; else every agent in
 * PREPARE or RECORD goes back to WAIT at the next tick. */
void startend_end(struct sched *s, struct registry *r, const struct sched_lttng *l,
		  struct startend_out *out);

#endif
