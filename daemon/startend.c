/* SPDX-License-Identifier: Apache-2.0 */
#include <string.h>

#include "daemon/log.h"
#include "daemon/startend.h"
#include "shm/caret_shm.h"

void startend_start(struct registry *r, const struct lttng_view *v, uint32_t frequency,
		    int64_t now, struct startend_out *out)
{
	memset(out, 0, sizeof(*out));
	if (v->n_active == 0) {
		out->reason = "no LTTng session is active on this host";
		for (struct agent *a = r->head; a; a = a->next)
			out->ignored++;
		return;
	}
	for (struct agent *a = r->head; a; a = a->next) {
		if (caret_seg_state(&a->seg) != CARET_STATE_WAIT) {
			out->ignored++;
			continue;
		}
		caret_ctl_begin_replay(&a->seg);
		a->prepare_since_ns = now;
		a->credit = 0;
		a->start_frequency = frequency;
		out->applied++;
	}
}

void startend_end(struct registry *r, const struct lttng_view *v, struct startend_out *out)
{
	memset(out, 0, sizeof(*out));
	if (v->n_active > 0) {
		out->reason = "an LTTng session is active on this host";
		for (struct agent *a = r->head; a; a = a->next)
			out->ignored++;
		return;
	}
	for (struct agent *a = r->head; a; a = a->next) {
		uint32_t st = caret_seg_state(&a->seg);
		if (st != CARET_STATE_PREPARE && st != CARET_STATE_RECORD) {
			out->ignored++;
			continue;
		}
		caret_ctl_set_state(&a->seg, CARET_STATE_WAIT);
		a->prepare_since_ns = 0;
		a->start_frequency = 0;
		out->applied++;
	}
}
