/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <string.h>

#include "daemon/base/log.h"
#include "daemon/agents/startend.h"
#include "shm/caret_shm.h"

/* The scheduler's count as the message's reply says it. */
static void said(const struct sched_posted *p, struct startend_out *out)
{
	*out = (struct startend_out){ .reason = p->reason, .filtered = p->filtered };
	out->applied = p->moved;
	out->ignored = p->agents - p->moved;
}

void startend_start_encoded(struct sched *s, struct registry *r, const struct sched_lttng *l,
			    uint32_t frequency, const struct caret_shm_filter *filter,
			    struct startend_out *out)
{
	struct sched_input in = { .frequency = frequency, .filtered = filter != NULL };
	if (filter)
		in.filter = *filter;
	struct sched_posted p;
	sched_post(s, r, l, &in, &p);
	said(&p, out);
}

void startend_start(struct sched *s, struct registry *r, const struct sched_lttng *l,
		    uint32_t frequency, const struct caret_filter_lists *filter,
		    struct startend_out *out)
{
	static struct caret_shm_filter enc; /* 4 KiB: not on the stack */
	bool filtered = false;
	if (filter && !caret_filter_empty(filter)) {
		filtered = caret_filter_encode(filter, &enc) >= 0;
		if (!filtered)
			log_warn("the Start's filter does not fit a segment: passes begin unfiltered");
	}
	startend_start_encoded(s, r, l, frequency, filtered ? &enc : NULL, out);
}

void startend_end(struct sched *s, struct registry *r, const struct sched_lttng *l,
		  struct startend_out *out)
{
	const struct sched_input in = { .end = true };
	struct sched_posted p;
	sched_post(s, r, l, &in, &p);
	said(&p, out);
}
