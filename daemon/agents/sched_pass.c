/* SPDX-License-Identifier: Apache-2.0 */
#include <stdio.h>
#include <string.h>

#include "daemon/base/log.h"
#include "daemon/agents/sched_pass.h"

/* LTTng adds an event header (extended: ros2_caret has more than 31
 * events) and the vpid/vtid/procname contexts to what the cache stores.
 * The feedback pacing only compares estimates with estimates over its
 * window, so this needs to be close, not exact. */
#define EVENT_OVERHEAD 32

/* A pass in RECORD is news for `wait` when its process dies (the
 * registry keeps those that die in PREPARE). */
static void agent_exited(struct registry *r, const struct agent *a, uint32_t state,
			 const void *mine)
{
	const struct sched_agent *sa = mine;
	if (state == CARET_STATE_RECORD && sa && sa->extra_pass)
		registry_note_exit(r, a, state);
}

static struct agent_key sched_key = { .size = sizeof(struct sched_agent),
				      .exited = agent_exited };

struct sched_agent *sched_agent(struct agent *a)
{
	return agent_state(a, &sched_key);
}

const struct sched_agent *sched_agent_peek(const struct agent *a)
{
	static const struct sched_agent none; /* not adopted yet */
	const struct sched_agent *sa = agent_state_peek(a, &sched_key);
	return sa ? sa : &none;
}

uint32_t sched_done_in(const struct caret_seg_status *st, uint32_t epoch)
{
	return CARET_EPOCH_OF(st->cursor) == epoch ? CARET_COUNT_OF(st->cursor) : 0;
}

uint64_t sched_record_bytes(const struct caret_seg_status *st)
{
	return (st->records ? st->tail / st->records : 64) + EVENT_OVERHEAD;
}

void sched_pass_log_done(const struct agent *a, const struct sched_agent *sa, uint32_t done,
			 int64_t now)
{
	/* the part LTTng's enabling took, which no pacing shortens
	 * (bench/run.py's P6 splits the replay with it) */
	double since = sa->prepare_since_ns ? (double)(now - sa->prepare_since_ns) / 1e6 : 0.0;
	/* to 0.01 ms: at N = 25 the whole replay is a few ms */
	log_info("pid %d (%s) %s: %u records replayed in %.2f ms, tracepoints on after "
		 "%.2f ms", (int)a->pid, a->procname,
		 sa->extra_pass ? "replayed again" : "recording", done, since,
		 sa->prepare_since_ns ? (double)(sa->tp_on_ns - sa->prepare_since_ns) / 1e6
				      : 0.0);
}

/* Every move of an agent's state names the state this tick read it in
 * (compare-and-swap): one its owner, or caret-agentctl, changed meanwhile
 * is left as it is, and the next tick decides from the new one. */
static bool refused(const struct agent *a, int64_t r, uint32_t from, enum caret_state to)
{
	if (r >= 0)
		return false;
	log_warn_rl("pid %d (%s): state %s changed before the move to %s: left as it is",
		    (int)a->pid, a->procname, caret_state_name(from), caret_state_name(to));
	return true;
}

bool sched_move(struct agent *a, uint32_t from, enum caret_state to)
{
	return !refused(a, caret_drive_set_state(&a->seg, from, to), from, to);
}

bool sched_pass_begin(struct agent *a, struct sched_agent *sa, uint32_t from, uint32_t serial,
		      int64_t now, bool staged)
{
	bool record = from == CARET_STATE_RECORD;
	if (record) {
		caret_drive_begin_pass(&a->seg);
	} else if (refused(a, caret_drive_begin_replay(&a->seg, from), from, CARET_STATE_PREPARE)) {
		if (staged) /* not for whichever pass comes next */
			caret_drive_clear_filter(&a->seg);
		return false;
	}
	sa->extra_pass = record;
	sa->pass_serial = serial;
	sa->prepare_since_ns = now;
	sa->tp_on_ns = 0;
	sa->credit = 0;
	return true;
}

bool sched_replaying(const struct sched_agent *sa, uint32_t state)
{
	return state == CARET_STATE_PREPARE || (state == CARET_STATE_RECORD && sa->extra_pass);
}

bool sched_end(struct agent *a, struct sched_agent *sa, uint32_t from, const char *why)
{
	if (!sched_move(a, from, CARET_STATE_WAIT))
		return false;
	sa->prepare_since_ns = 0;
	sa->extra_pass = false;
	log_info("pid %d (%s): End%s, back to WAIT", (int)a->pid, a->procname, why);
	return true;
}

struct claim_scan {
	uint64_t want;
	bool found;
};

static int unclaimed_by(const struct caret_rec_view *v, void *ctx)
{
	struct claim_scan *c = ctx;
	c->found = v->claim < c->want;
	return c->found;
}

/* Whether some committed record was neither replayed by pass `epoch` nor
 * emitted live since it began: its claim word is below epoch + 1 (the
 * claims of proto/caret_segment.h). The agent's own words: a lie only
 * costs it a pass of its own. A record being claimed right now, or one
 * its filters kept from live emission, reads as cut too: one more pass,
 * copies, nothing lost. */
bool sched_pass_cut(const struct agent *a, uint32_t epoch)
{
	if (!epoch)
		return false; /* never replayed: no pass to cut */
	struct claim_scan c = { (uint64_t)epoch + 1, false };
	return caret_seg_walk(&a->seg, unclaimed_by, &c) >= 0 && c.found;
}

bool sched_busy(const struct registry *r)
{
	for (const struct agent *a = r->head; a; a = a->next)
		if (sched_replaying(sched_agent_peek(a), caret_seg_state(&a->seg)))
			return true;
	return false;
}

bool sched_last_turns(const struct registry *r)
{
	bool any = false;
	for (const struct agent *a = r->head; a; a = a->next) {
		struct caret_seg_status st;
		caret_seg_read_status(&a->seg, &st);
		if (!sched_replaying(sched_agent_peek(a), st.state))
			continue;
		uint32_t e = CARET_EPOCH_OF(st.grant);
		if (!e || st.tp_enabled_epoch != e || CARET_COUNT_OF(st.grant) < sched_total(&st))
			return false;
		any = true;
	}
	return any;
}

/* Segment counters are whatever their owner wrote: sums saturate (B6). */
static void sat_add(uint64_t *sum, uint64_t v)
{
	if (__builtin_add_overflow(*sum, v, sum))
		*sum = UINT64_MAX;
}

bool sched_complete(const struct registry *r, const struct agent *a,
		    const struct caret_seg_status *st)
{
	/* the newest session that sees it: a member's recording is none of
	 * another user's process's business */
	const struct sched_agent *sa = sched_agent_peek(a);
	uint32_t want = sa->scoped && sa->seen_newest < r->want_serial ? sa->seen_newest
								   : r->want_serial;
	return st->state == CARET_STATE_RECORD && !sa->extra_pass && sa->covered_serial >= want;
}

void sched_progress(const struct registry *r, struct progress *p)
{
	sched_progress_of(r, false, 0, p);
}

void sched_progress_of(const struct registry *r, bool only, uid_t uid, struct progress *p)
{
	memset(p, 0, sizeof(*p));
	for (const struct agent *a = r->head; a; a = a->next) {
		struct caret_seg_status st;
		caret_seg_read_status(&a->seg, &st);
		const struct sched_agent *sa = sched_agent_peek(a);
		if (st.state == CARET_STATE_UNINITIALIZED || sa->unseen ||
		    (only && a->seg.id.uid != (uint32_t)uid))
			continue;
		p->total++;
		sat_add(&p->dropped, st.dropped);
		sat_add(&p->records_total, st.records);
		if (sched_complete(r, a, &st)) {
			p->recording++;
			sat_add(&p->records_done, st.records);
		} else if (sched_replaying(sa, st.state)) {
			sat_add(&p->records_done, sched_done_in(&st, CARET_EPOCH_OF(st.grant)));
		}
	}
}

void sched_reason(const struct agent *a, char *buf, size_t len)
{
	struct caret_seg_status st;
	caret_seg_read_status(&a->seg, &st);
	uint32_t e = CARET_EPOCH_OF(st.grant);
	const struct sched_agent *sa = sched_agent_peek(a);
	if (st.state == CARET_STATE_WAIT)
		snprintf(buf, len, "not started (no active LTTng session seen yet)");
	else if (st.state == CARET_STATE_RECORD && !sa->extra_pass)
		snprintf(buf, len, "recording; its cache is not replayed yet into the newest "
			 "session");
	else if (!sched_replaying(sa, st.state))
		snprintf(buf, len, "state %s", caret_state_name(st.state));
	else if (!(st.agent_flags & CARET_AGENT_REPLAY_THREAD))
		snprintf(buf, len, "the agent has no replay thread (provider not loaded?)");
	else if (st.tp_enabled_epoch != e)
		snprintf(buf, len, "its ros2_caret tracepoints are not enabled (does the session "
			 "enable ros2_caret:*?)");
	else
		snprintf(buf, len, "%s: %u of %llu records",
			 sa->extra_pass ? "replaying again for a newer session" : "replaying",
			 sched_done_in(&st, e), (unsigned long long)st.records);
}
