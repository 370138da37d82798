/* SPDX-License-Identifier: Apache-2.0 */
#include "daemon/loop.h"
#include "daemon/pacer.h"
#include "shm/caret_shm.h"

#define TICK_BUSY_USEC (10 * USEC_PER_MS)
#define TICK_IDLE_USEC (50 * USEC_PER_MS)

static int on_tick(sd_event_source *s, uint64_t usec, void *arg)
{
	(void)usec;
	struct pacer *p = arg;
	/* Without the session daemon we cannot tell Start from End: leave
	 * every agent where it is. */
	if (p->lttng->ok)
		sched_tick(p->sched, p->reg, p->lttng->n_active > 0, caret_now_ns());
	return loop_timer_again(s, sched_busy(p->reg) ? TICK_BUSY_USEC : TICK_IDLE_USEC);
}

int pacer_start(struct pacer *p, sd_event *e, struct sched *s, struct registry *r,
		const struct lttng_view *lttng)
{
	p->sched = s;
	p->reg = r;
	p->lttng = lttng;
	return loop_timer_add(e, &p->tick, on_tick, p);
}

void pacer_stop(struct pacer *p)
{
	p->tick = sd_event_source_disable_unref(p->tick);
}
