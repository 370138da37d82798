/* SPDX-License-Identifier: Apache-2.0 */
#include <string.h>

#include "daemon/loop.h"
#include "daemon/pacer.h"
#include "shm/caret_shm.h"

#define TICK_BUSY_USEC (10 * USEC_PER_MS)
#define TICK_IDLE_USEC (50 * USEC_PER_MS)

/*
 * How long after caretd first sees a session active before a process that
 * already has its ros2_caret tracepoints enabled (for an older session)
 * replays for it. Such a process cannot tell from its tracepoint state
 * when the new session's events are enabled in it (LTTng enables UST
 * events asynchronously, DESIGN.md section 4): caretd gives the session
 * daemon this long to push the new session to every registered app. A
 * process in WAIT needs no delay: it waits for its own tracepoints.
 */
#define SETTLE_NS (250LL * 1000000)

void pacer_sched_lttng(const struct lttng_view *v, int64_t now, struct sched_lttng *l)
{
	*l = (struct sched_lttng){ .any = v->n_active > 0 };
	bool ros2_init = false, both = false;
	for (int i = 0; i < v->n_active; i++) {
		const struct lttng_view_session *e = &v->sess[i];
		if (e->rules & CARET_LTTNG_RULE_ROS2_INIT) {
			ros2_init = true;
			both = both || (e->rules & CARET_LTTNG_RULE_CARET);
		}
		if (!(e->rules & CARET_LTTNG_RULE_CARET))
			continue;
		l->caret = true;
		if (e->serial > l->newest)
			l->newest = e->serial;
		if (now - e->since_ns >= SETTLE_NS && e->serial > l->ready)
			l->ready = e->serial;
	}
	l->init_as_ros2 = ros2_init && !both;
}

/* Records an agent replays land in every session enabling ros2_caret
 * events; those its previous pass already covered get them twice. Counted
 * per session for the summary at stop (the analyzer tolerates them). */
static void count_duplicates(struct registry *r, struct lttng_view *v)
{
	for (struct agent *a = r->head; a; a = a->next) {
		struct caret_seg_status st;
		caret_seg_read_status(&a->seg, &st);
		uint64_t now_rep = st.replayed;
		if (!a->sched_seen || now_rep <= a->acct_replayed) {
			a->acct_replayed = now_rep;
			continue;
		}
		uint64_t d = now_rep - a->acct_replayed;
		a->acct_replayed = now_rep;
		for (int i = 0; i < v->n_active; i++)
			if ((v->sess[i].rules & CARET_LTTNG_RULE_CARET) &&
			    v->sess[i].serial <= a->covered_serial)
				v->sess[i].dups += d;
	}
}

void pacer_effective_cfg(const struct lttng_view *v, const struct sched_cfg *defaults,
			 struct sched_cfg *out)
{
	*out = *defaults;
	/* Replay passes are for the newest session enabling ros2_caret
	 * events: its options, if it is a recording that chose some. */
	int newest = -1;
	for (int i = 0; i < v->n_active; i++)
		if ((v->sess[i].rules & CARET_LTTNG_RULE_CARET) &&
		    (newest < 0 || v->sess[i].serial > v->sess[newest].serial))
			newest = i;
	const struct lttng_view_rec *best = NULL;
	for (int i = 0; newest >= 0 && i < v->n_recs; i++)
		if (strcmp(v->recs[i].name, v->active[newest]) == 0)
			best = &v->recs[i];
	if (!best)
		return;
	if (best->pacing >= 0)
		out->pacing = (enum pacing)best->pacing;
	if (best->frequency)
		out->frequency = best->frequency;
}

static int on_tick(sd_event_source *s, uint64_t usec, void *arg)
{
	(void)usec;
	struct pacer *p = arg;
	int64_t now = caret_now_ns();
	struct sched_lttng l;
	/* An unreachable session daemon has no active session (its sessions
	 * died with it): agents End and return to WAIT. */
	pacer_sched_lttng(p->lttng, now, &l);
	count_duplicates(p->reg, p->lttng);
	pacer_effective_cfg(p->lttng, p->defaults, &p->sched->cfg);
	sched_tick(p->sched, p->reg, &l, now);
	return loop_timer_again(s, sched_busy(p->reg) ? TICK_BUSY_USEC : TICK_IDLE_USEC);
}

int pacer_start(struct pacer *p, sd_event *e, struct sched *s, struct registry *r,
		struct lttng_view *lttng, const struct sched_cfg *defaults)
{
	p->defaults = defaults;
	p->sched = s;
	p->reg = r;
	p->lttng = lttng;
	return loop_timer_add(e, &p->tick, on_tick, p);
}

void pacer_stop(struct pacer *p)
{
	p->tick = sd_event_source_disable_unref(p->tick);
}
