/* SPDX-License-Identifier: Apache-2.0 */
#include <stdio.h>
#include <string.h>

#include "daemon/log.h"
#include "daemon/scheduler.h"

/* LTTng adds an event header and the vpid/vtid/procname contexts to what
 * the cache stores; close enough for a byte budget. */
#define EVENT_OVERHEAD 32
#define REBELL_NS (2LL * 1000000000)

static uint32_t clamp32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

uint32_t sched_done_in(const struct caret_seg_status *st, uint32_t epoch)
{
	return CARET_EPOCH_OF(st->cursor) == epoch ? CARET_COUNT_OF(st->cursor) : 0;
}

static uint64_t avg_bytes(const struct caret_seg_status *st)
{
	return (st->records ? st->tail / st->records : 64) + EVENT_OVERHEAD;
}

static void prepare_step(struct sched *s, struct agent *a, const struct caret_seg_status *st,
			 double dt, uint64_t share_bytes, int64_t now)
{
	uint32_t epoch = CARET_EPOCH_OF(st->grant);
	if (epoch == 0) { /* PREPARE set by someone else without a pass */
		caret_ctl_begin_replay(&a->seg);
		return;
	}
	if (st->tp_enabled_epoch != epoch) {
		/* The agent gave up waiting for its tracepoints: ring again
		 * now and then, the session may enable them later. */
		/* Also once when first seen here: a caretd killed between the
		 * replay start and its doorbell left the agent asleep. */
		if (((st->agent_flags & CARET_AGENT_TP_TIMEOUT) && now - a->last_bell_ns > REBELL_NS) ||
		    a->last_bell_ns == 0) {
			caret_ctl_grant(&a->seg, epoch, CARET_COUNT_OF(st->grant));
			a->last_bell_ns = now;
		}
		return;
	}
	uint32_t total = clamp32(st->records);
	uint32_t done = sched_done_in(st, epoch);
	if (done >= total) {
		caret_ctl_set_state(&a->seg, CARET_STATE_RECORD);
		log_info("pid %d (%s) recording: %u records replayed in %.0f ms", (int)a->pid,
			 a->procname, done,
			 a->prepare_since_ns ? (double)(now - a->prepare_since_ns) / 1e6 : 0.0);
		return;
	}
	uint32_t g = CARET_COUNT_OF(st->grant);
	uint64_t add;
	if (a->start_frequency || s->cfg.pacing == PACING_FREQUENCY) {
		/* a Start message's recording_frequency wins for its pass */
		a->credit += (a->start_frequency ? a->start_frequency : s->cfg.frequency) * dt;
		add = (uint64_t)a->credit;
		a->credit -= (double)add;
	} else {
		add = share_bytes / avg_bytes(st);
		if (add == 0)
			add = 1;
	}
	uint64_t ng = (uint64_t)g + add;
	if (ng > total)
		ng = total;
	if (ng > g)
		caret_ctl_grant(&a->seg, epoch, (uint32_t)ng);
}

void sched_tick(struct sched *s, struct registry *r, bool active, int64_t now)
{
	double dt = s->last_tick_ns ? (double)(now - s->last_tick_ns) / 1e9 : 0.01;
	if (dt > 0.5) /* after a stall, do not burst */
		dt = 0.5;
	s->last_tick_ns = now;

	int preparing = 0;
	for (struct agent *a = r->head; a; a = a->next)
		if (caret_seg_state(&a->seg) == CARET_STATE_PREPARE)
			preparing++;
	uint64_t share = preparing ? (uint64_t)((double)s->cfg.bandwidth * dt) / (uint64_t)preparing
				   : 0;

	for (struct agent *a = r->head; a; a = a->next) {
		struct caret_seg_status st;
		caret_seg_read_status(&a->seg, &st);
		switch (st.state) {
		case CARET_STATE_WAIT:
			if (active) {
				caret_ctl_begin_replay(&a->seg);
				a->prepare_since_ns = now;
				a->credit = 0;
				a->start_frequency = 0;
				log_info("pid %d (%s): Start, replaying %llu cached records",
					 (int)a->pid, a->procname, (unsigned long long)st.records);
			}
			break;
		case CARET_STATE_PREPARE:
			if (!active) {
				caret_ctl_set_state(&a->seg, CARET_STATE_WAIT);
				log_info("pid %d (%s): End during replay, back to WAIT", (int)a->pid,
					 a->procname);
				break;
			}
			if (!a->prepare_since_ns)
				a->prepare_since_ns = now; /* adopted after a restart */
			prepare_step(s, a, &st, dt, share, now);
			break;
		case CARET_STATE_RECORD:
			if (!active) {
				caret_ctl_set_state(&a->seg, CARET_STATE_WAIT);
				a->prepare_since_ns = 0;
				log_info("pid %d (%s): End, back to WAIT", (int)a->pid, a->procname);
			}
			break;
		default: /* UNINITIALIZED: the agent is still starting */
			break;
		}
	}
}

bool sched_busy(const struct registry *r)
{
	for (const struct agent *a = r->head; a; a = a->next)
		if (caret_seg_state(&a->seg) == CARET_STATE_PREPARE)
			return true;
	return false;
}

/* Segment counters are whatever their owner wrote: sums saturate (B6). */
static void sat_add(uint64_t *sum, uint64_t v)
{
	if (__builtin_add_overflow(*sum, v, sum))
		*sum = UINT64_MAX;
}

void sched_progress(const struct registry *r, struct progress *p)
{
	memset(p, 0, sizeof(*p));
	for (const struct agent *a = r->head; a; a = a->next) {
		struct caret_seg_status st;
		caret_seg_read_status(&a->seg, &st);
		if (st.state == CARET_STATE_UNINITIALIZED)
			continue;
		p->total++;
		sat_add(&p->dropped, st.dropped);
		if (st.state == CARET_STATE_RECORD) {
			p->recording++;
			sat_add(&p->records_done, st.records);
			sat_add(&p->records_total, st.records);
		} else {
			uint32_t e = CARET_EPOCH_OF(st.grant);
			sat_add(&p->records_done,
				st.state == CARET_STATE_PREPARE ? sched_done_in(&st, e) : 0);
			sat_add(&p->records_total, st.records);
		}
	}
}

void sched_reason(const struct agent *a, char *buf, size_t len)
{
	struct caret_seg_status st;
	caret_seg_read_status(&a->seg, &st);
	uint32_t e = CARET_EPOCH_OF(st.grant);
	if (st.state == CARET_STATE_WAIT)
		snprintf(buf, len, "not started (no active LTTng session seen yet)");
	else if (st.state != CARET_STATE_PREPARE)
		snprintf(buf, len, "state %s", caret_state_name(st.state));
	else if (!(st.agent_flags & CARET_AGENT_REPLAY_THREAD))
		snprintf(buf, len, "the agent has no replay thread (provider not loaded?)");
	else if (st.tp_enabled_epoch != e)
		snprintf(buf, len, "its ros2_caret tracepoints are not enabled (does the session "
			 "enable ros2_caret:*?)");
	else
		snprintf(buf, len, "replaying: %u of %llu records", sched_done_in(&st, e),
			 (unsigned long long)st.records);
}
