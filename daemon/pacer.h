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
	struct lttng_view *lttng;
	const struct sched_cfg *defaults; /* the daemon's; a recording's own win */
	sd_event_source *tick;
};

int pacer_start(struct pacer *p, sd_event *e, struct sched *s, struct registry *r,
		struct lttng_view *lttng, const struct sched_cfg *defaults);
/* The pacing in force: the options of the newest active session enabling
 * ros2_caret events if it is a recording that chose some (the passes are
 * for it), else the daemon's defaults. A recording's options are its own:
 * they never change the defaults nor pace a newer session's replay. */
void pacer_effective_cfg(const struct lttng_view *v, const struct sched_cfg *defaults,
			 struct sched_cfg *out);
/* The scheduler's view of LTTng at now_ns (see struct sched_lttng). */
void pacer_sched_lttng(const struct lttng_view *v, int64_t now_ns, struct sched_lttng *out);
void pacer_stop(struct pacer *p);

#endif
