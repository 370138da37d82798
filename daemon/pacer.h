/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Runs the scheduler on its own timer: every 10 ms while an agent replays
 * (the grant granularity of the pacing), every 50 ms otherwise (how soon a
 * new session or a new agent gets its Start).
 */
#ifndef CARETD_PACER_H
#define CARETD_PACER_H

#include <systemd/sd-event.h>

#include "daemon/lttng_view.h"
#include "daemon/registry.h"
#include "daemon/scheduler.h"

struct pacer {
	struct sched *sched;
	struct registry *reg;
	const struct lttng_view *lttng;
	sd_event_source *tick;
};

int pacer_start(struct pacer *p, sd_event *e, struct sched *s, struct registry *r,
		const struct lttng_view *lttng);
void pacer_stop(struct pacer *p);

#endif
