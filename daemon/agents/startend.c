/* SPDX-License-Identifier: Apache-2.0 */
#include <string.h>

#include "daemon/base/log.h"
#include "daemon/agents/startend.h"
#include "shm/caret_shm.h"

void startend_start(struct registry *r, const struct sched_lttng *l, uint32_t frequency,
		    const struct caret_filter_lists *filter, int64_t now_ns,
		    struct startend_out *out)
{
	memset(out, 0, sizeof(*out));
	if (filter && caret_filter_empty(filter))
		filter = NULL;
	int agents = 0, n = 0;
	for (struct agent *a = r->head; a; a = a->next) {
		agents++;
		if (!l->any || caret_seg_state(&a->seg) != CARET_STATE_WAIT)
			continue; /* seed 000: Start only moves agents in WAIT */
		/* staged for the epoch the pass will have: the agent must
		 * see it before it sees the pass */
		if (filter && caret_drive_stage_filter(&a->seg, filter) < 0)
			log_warn("pid %d (%s): the Start's filter does not fit its segment",
				 (int)a->pid, a->procname);
		uint32_t st = sched_start(a, l, frequency, now_ns);
		n++;
		if (!filter)
			continue;
		if (st == CARET_STATE_PREPARE)
			out->filtered++;
		else
			caret_drive_clear_filter(&a->seg); /* no pass began: not for a later one */
	}
	if (!l->any) {
		out->reason = "no LTTng session is active on this host";
		out->ignored = agents;
		return;
	}
	out->applied = n;
	out->ignored = agents - n;
}

void startend_end(struct registry *r, const struct sched_lttng *l, struct startend_out *out)
{
	memset(out, 0, sizeof(*out));
	int agents = 0;
	for (struct agent *a = r->head; a; a = a->next)
		agents++;
	int n = sched_end(r, l);
	if (n < 0) {
		out->reason = "an LTTng session is active on this host";
		out->ignored = agents;
		return;
	}
	out->applied = n;
	out->ignored = agents - n;
}
