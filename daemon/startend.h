/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Seed 000's rules for a Start or End message reaching this host, applied
 * to each local agent. One path for the control socket's start/end and
 * for the DDS bridge. It never creates, stops or names a session and
 * never touches a file: it only moves agents between states.
 *
 * Kept apart so the session work (issue 8) can replace its insides
 * without touching its callers.
 */
#ifndef CARETD_STARTEND_H
#define CARETD_STARTEND_H

#include <stdint.h>

#include "daemon/lttng_view.h"
#include "daemon/registry.h"

struct startend_out {
	int applied; /* agents that changed state */
	int ignored; /* agents the rules left alone */
	const char *reason; /* set when the whole message was ignored */
};

/*
 * Start: ignored unless an LTTng session is active here; then each agent
 * in WAIT goes to PREPARE (a new replay pass), others are left alone.
 * frequency > 0 paces those agents' replay at that many records per
 * second (CARET's recording_frequency); 0 keeps the daemon's pacing.
 */
void startend_start(struct registry *r, const struct lttng_view *v, uint32_t frequency,
		    int64_t now_ns, struct startend_out *out);
/* End: ignored while an LTTng session is active here; else every agent in
 * PREPARE or RECORD goes back to WAIT. */
void startend_end(struct registry *r, const struct lttng_view *v, struct startend_out *out);

#endif
