/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <string.h>

#include "daemon/base/log.h"
#include "daemon/agents/startend.h"
#include "shm/caret_shm.h"

static const char *posted(struct sched *s, const struct sched_input *in)
{
	return sched_post(s, in) < 0 ? "too many Start and End messages wait for the scheduler"
				     : NULL;
}

void startend_start(struct sched *s, struct registry *r, const struct sched_lttng *l,
		    uint32_t frequency, const struct caret_filter_lists *filter,
		    struct startend_out *out)
{
	memset(out, 0, sizeof(*out));
	struct sched_input in = { .frequency = frequency };
	if (filter && !caret_filter_empty(filter)) {
		in.filtered = caret_filter_encode(filter, &in.filter) >= 0;
		if (!in.filtered)
			log_warn("the Start's filter does not fit a segment: passes begin unfiltered");
	}
	int agents = 0, moved = 0;
	for (struct agent *a = r->head; a; a = a->next) {
		agents++;
		if (caret_seg_state(&a->seg) != CARET_STATE_WAIT)
			continue; /* seed 000: Start only moves agents in WAIT */
		moved++;
		if (in.filtered && sched_start_replays(a, l))
			out->filtered++;
	}
	out->reason = !l->any ? "no LTTng session is active on this host" : posted(s, &in);
	if (out->reason) {
		out->ignored = agents;
		out->filtered = 0;
		return;
	}
	out->applied = moved;
	out->ignored = agents - moved;
}

void startend_end(struct sched *s, struct registry *r, const struct sched_lttng *l,
		  struct startend_out *out)
{
	memset(out, 0, sizeof(*out));
	int agents = 0, moved = 0;
	for (struct agent *a = r->head; a; a = a->next) {
		agents++;
		uint32_t st = caret_seg_state(&a->seg);
		moved += st == CARET_STATE_PREPARE || st == CARET_STATE_RECORD;
	}
	const struct sched_input in = { .end = true };
	out->reason = l->any ? "an LTTng session is active on this host" : posted(s, &in);
	if (out->reason) {
		out->ignored = agents;
		return;
	}
	out->applied = moved;
	out->ignored = agents - moved;
}
