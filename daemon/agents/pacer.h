/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Runs the scheduler, as the schedule stage of the tick (daemon/base/loop.h):
 * every ms while an agent replays (the grant granularity of the pacing),
 * every 250 us (or 4 times the tick's own CPU time) while its grants spend
 * the window's room and the consumer drains, every 250 us once every
 * replaying agent's pass is granted whole (only the passes' ends are left
 * to see),
 * every 50 ms while a session is active, every second otherwise; at once
 * when the LTTng view changes (pacer_kick).
 *
 * Feedback pacing (the default, "adaptive"): while the newest session
 * enabling ros2_caret events is a recording caretd made to a local
 * directory, the replays may keep at most a window of bytes in its
 * channel's buffers that the consumer daemon has not drained yet: one
 * sub-buffer less than a CPU's ring holds, so that even if every replayed
 * event lands on one CPU, a writer never finds its ring full (discard
 * mode would drop the event). What the consumer drained is read from the
 * packet index it writes after every packet (daemon/lttng/lttng_drain.h): the
 * end time of the newest packet tells which replayed records are out of
 * the buffers (those the agents had emitted by then, sampled every tick);
 * granted but not yet drained is in flight. The replay thus runs at the
 * consumer's drain rate, whatever slows it (CPU load, a slow disk, small
 * sub-buffers). Each CPU's ring is kept within its own window (issue 34):
 * the agents count the records they replay per CPU (proto/caret_segment.h),
 * each CPU's packets tell how far its ring is drained, and the room is
 * what the tightest CPU still takes (daemon/agents/pacer_cpus.h): its bytes
 * in flight, and what was granted but not written yet to the agents whose
 * replay thread writes on it (up to a turn's grant each; beyond, and for
 * agents not seen writing yet, on every CPU, as are records of a CPU the
 * agent did not say and the tick's new grant), not the sum over CPUs:
 * with the replay threads spread over n CPUs, up to n windows are in
 * flight, none over its ring. Records the pass filter kept out count
 * nowhere. A discarded event seen in the index halves the window.
 * In a rotating recording the index read is that of the chunk being
 * written. While the index cannot be read, nothing more counts as drained:
 * at most the window stays in flight, plus the stall rule's trickle.
 * Other sessions (their buffers are not ours to see, or a network
 * output) keep the host-wide byte budget as a cap.
 */
#ifndef CARETD_PACER_H
#define CARETD_PACER_H

#include "daemon/base/loop.h"
#include "daemon/lttng/lttng_view.h"
#include "daemon/agents/pacer_fb.h"
#include "daemon/agents/registry.h"
#include "daemon/agents/scheduler.h"

/* Its collaborators, handed to pacer_start: the scheduler it runs, and
 * the filter each pass the scheduler begins carries (struct sched's
 * pass_filter). */
struct pacer_ops {
	struct sched *sched;
	struct registry *reg;
	struct lttng_view *lttng;
	const struct sched_cfg *defaults; /* the daemon's; a recording's own win */
	sched_pass_filter_fn *pass_filter;
	void *pass_filter_arg;
	/* told at the end of a tick in which an agent became complete
	 * (struct sched's completed; NULL: no one) */
	void (*completed)(void *arg);
	void *completed_arg;
};

struct pacer {
	struct sched *sched;
	struct registry *reg;
	struct lttng_view *lttng;
	const struct sched_cfg *defaults; /* the daemon's; a recording's own win */
	struct loop_job tick;
	struct pacer_fb fb;
};

int pacer_start(struct pacer *p, struct loop *loop, const struct pacer_ops *ops);
/* The pacing in force: the options of the newest active session enabling
 * ros2_caret events if it is a recording that chose some (the passes are
 * for it), else the daemon's defaults. A recording's options are its own:
 * they never change the defaults nor pace a newer session's replay. */
void pacer_effective_cfg(const struct lttng_view *v, const struct sched_cfg *defaults,
			 struct sched_cfg *out);
/* The scheduler's view of LTTng at now_ns (see struct sched_lttng). */
void pacer_sched_lttng(const struct lttng_view *v, int64_t now_ns, struct sched_lttng *out);
void pacer_stop(struct pacer *p);
/* Runs in this tick if the schedule stage is still to come, else in the
 * next one, at once (the LTTng view changed); arg is the pacer. */
void pacer_kick(void *arg);

#endif
