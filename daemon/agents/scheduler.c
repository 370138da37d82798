/* SPDX-License-Identifier: Apache-2.0 */
/* The tick: inputs applied, each agent's move decided, grants in turns.
 * What a move leaves in an agent's state is sched_pass.c's, below it. */
#include "daemon/base/log.h"
#include "lib/lttng/session.h"
#include "daemon/agents/scheduler.h"

/* how often an agent that gave up waiting for its tracepoints is rung again */
#define REBELL_NS (2LL * 1000000000)

/* Raises the grant of a replaying agent; true when its pass is complete. */
static bool pass_step(struct sched *s, struct agent *a, struct sched_agent *sa,
		      const struct caret_seg_status *st,
		      double dt, uint64_t share_bytes, int64_t now)
{
	uint32_t epoch = CARET_EPOCH_OF(st->grant);
	if (epoch == 0) { /* PREPARE set by someone else without a pass */
		caret_drive_begin_replay(&a->seg, CARET_STATE_PREPARE);
		return false;
	}
	if (st->tp_enabled_epoch != epoch) {
		/* The agent gave up waiting for its tracepoints: ring again
		 * now and then, the session may enable them later. */
		if ((st->agent_flags & CARET_AGENT_TP_TIMEOUT) && sa->tp_warned_epoch != epoch) {
			char why[160];
			sched_reason(a, why, sizeof(why));
			log_warn("pid %d (%s) waits in PREPARE: %s", (int)a->pid, a->procname, why);
			sa->tp_warned_epoch = epoch;
		}
		/* Also once when first seen here: a caretd killed between the
		 * replay start and its doorbell left the agent asleep. */
		if (((st->agent_flags & CARET_AGENT_TP_TIMEOUT) && now - sa->last_bell_ns > REBELL_NS) ||
		    sa->last_bell_ns == 0) {
			caret_drive_grant(&a->seg, epoch, CARET_COUNT_OF(st->grant));
			sa->last_bell_ns = now;
		}
		return false;
	}
	if (!sa->tp_on_ns)
		sa->tp_on_ns = now;
	uint32_t total = sched_total(st);
	uint32_t done = sched_done_in(st, epoch);
	if (done >= total) {
		sched_pass_log_done(a, sa, done, now);
		return true;
	}
	uint32_t g = CARET_COUNT_OF(st->grant);
	uint64_t add;
	if (sa->start_frequency || s->cfg.pacing == PACING_FREQUENCY) {
		/* a Start message's recording_frequency wins for its pass */
		sa->credit += (sa->start_frequency ? sa->start_frequency : s->cfg.frequency) * dt;
		add = (uint64_t)sa->credit;
		sa->credit -= (double)add;
	} else {
		/* not this agent's turn: see sched_tick */
		uint32_t ord = s->seen++, e = s->eligible > ord ? s->eligible : ord + 1;
		if ((ord + e - s->turn % e) % e >= s->slots)
			return false;
		uint64_t rb = sched_record_bytes(st);
		add = share_bytes / rb;
		if (add == 0)
			add = 1;
		/* Feedback: never more than the buffers' room, even when
		 * the shares round up. */
		if (s->room_known && add > s->budget_left / rb)
			add = s->budget_left / rb;
	}
	uint64_t ng = (uint64_t)g + add;
	if (ng > total)
		ng = total;
	if (ng > g) {
		caret_drive_grant(&a->seg, epoch, (uint32_t)ng);
		uint64_t b = (ng - g) * sched_record_bytes(st);
		s->granted_bytes += b;
		s->budget_left = b < s->budget_left ? s->budget_left - b : 0;
	}
	return false;
}

/* The filter of the recording(s) a pass is for goes with the pass, staged
 * for the epoch it will have: whether the agent was in WAIT (a recording
 * it found after the recording's own Start) or records for an older
 * session (the pass is for the new one). */
static bool stage_pass_filter(const struct sched *s, struct agent *a,
			      const struct sched_agent *sa, uint32_t serial)
{
	struct caret_filter_text ft;
	if (!s->pass_filter ||
	    s->pass_filter(s->pass_filter_arg, sa->covered_serial, serial, &ft) <= 0)
		return false;
	if (caret_drive_stage_filter(&a->seg, &ft.f) >= 0)
		return true;
	log_warn("pid %d (%s): the recording's filter does not fit its segment", (int)a->pid,
		 a->procname);
	return false;
}

/* done, noted for the tick's end (struct sched's completed) */
static bool now_complete(struct sched *s, bool done)
{
	s->completed_now = s->completed_now || done;
	return done;
}

/* A new pass for sessions <= serial, with the filter of the sessions it
 * is for staged first (sched_pass_begin). */
static bool begin_pass(const struct sched *s, struct agent *a, struct sched_agent *sa,
		       uint32_t from, uint32_t serial, int64_t now)
{
	return sched_pass_begin(a, sa, from, serial, now, stage_pass_filter(s, a, sa, serial));
}

/* src's sums into out (its table left empty: a copy per agent and tick
 * would cost more than the sums). */
static void sum_into(const struct sched_lttng *src, bool only, uid_t uid, struct sched_lttng *l)
{
	l->any = l->caret = l->init_as_ros2 = false;
	l->ready = l->newest = 0;
	bool ros2_init = false, both = false;
	for (int i = 0; i < src->n; i++) {
		const struct sched_session *e = &src->sess[i];
		if (only && e->scoped && e->uid != uid)
			continue; /* LTTng gives it none of uid's events */
		l->any = true;
		if (e->rules & CARET_LTTNG_RULE_ROS2_INIT) {
			ros2_init = true;
			both = both || (e->rules & CARET_LTTNG_RULE_CARET);
		}
		if (!(e->rules & CARET_LTTNG_RULE_CARET))
			continue;
		l->caret = true;
		if (e->serial > l->newest)
			l->newest = e->serial;
		if (e->settled && e->serial > l->ready)
			l->ready = e->serial;
	}
	l->init_as_ros2 = ros2_init && !both;
}

void sched_lttng_sum(struct sched_lttng *l, bool only, uid_t uid)
{
	sum_into(l, only, uid, l);
}

/* The sums of the sessions that see a's process: all of them, unless some
 * session sees only one uid's (then mine, over those that see a's uid). */
static const struct sched_lttng *seen_by(const struct agent *a, const struct sched_lttng *all,
					 struct sched_lttng *mine)
{
	if (!all->scoped)
		return all;
	mine->n = 0; /* no table: only the sums are read */
	mine->scoped = true;
	sum_into(all, true, (uid_t)a->seg.id.uid, mine);
	return mine;
}

/* a's state (NULL: out of memory) with its scope under all noted: the
 * sums of the sessions that see it in *seen (seen_by). */
static struct sched_agent *scoped(struct agent *a, const struct sched_lttng *all,
				  struct sched_lttng *mine, const struct sched_lttng **seen)
{
	const struct sched_lttng *l = seen_by(a, all, mine);
	struct sched_agent *sa = sched_agent(a);
	if (sa) {
		sa->scoped = all->scoped;
		sa->seen_newest = l->newest;
		sa->unseen = all->any && !l->any;
	}
	*seen = l;
	return sa;
}

void sched_scope_agents(struct registry *r, const struct sched_lttng *l)
{
	r->want_serial = l->newest;
	for (struct agent *a = r->head; a; a = a->next) {
		struct sched_lttng mine;
		const struct sched_lttng *seen;
		(void)scoped(a, l, &mine, &seen);
	}
}

/* Start: no settling delay from WAIT, the agent waits until its own
 * tracepoints are enabled before it replays. */
static void from_wait(struct sched *s, struct agent *a, struct sched_agent *sa,
		      const struct sched_lttng *l, const struct caret_seg_status *st, int64_t now)
{
	if (l->caret && l->newest) {
		if (begin_pass(s, a, sa, st->state, l->newest, now))
			log_info("pid %d (%s): Start, replaying %llu cached records", (int)a->pid,
				 a->procname, (unsigned long long)st->records);
	} else if (l->any && !l->caret) {
		/* Nothing to replay into: record runtime events, as the
		 * process would without the agent. */
		if (now_complete(s, sched_move(a, st->state, CARET_STATE_RECORD)))
			log_info("pid %d (%s): Start, recording without replay (no active "
				 "session enables ros2_caret events)", (int)a->pid, a->procname);
	}
}

/* Found in RECORD (it started while a session was active, so it emitted
 * its init events live, or caretd restarted): the sessions active now
 * have its cache, unless a caretd killed during an extra pass left that
 * pass cut (then a pass for every session active now: copies in those
 * that had it all, nothing lost). Found in PREPARE (caretd restarted):
 * its pass is for the sessions active now. */
static void adopt(const struct agent *a, struct sched_agent *sa, const struct sched_lttng *l,
		  const struct caret_seg_status *st)
{
	sa->seen = true;
	bool cut = st->state == CARET_STATE_RECORD && sched_pass_cut(a, CARET_EPOCH_OF(st->grant));
	if (cut)
		log_info("pid %d (%s): found recording with its last replay pass cut (caretd "
			 "restarted during it): replaying again", (int)a->pid, a->procname);
	sa->covered_serial = st->state == CARET_STATE_RECORD && !cut ? l->newest : 0;
	sa->pass_serial = l->newest;
	sa->acct_replayed = st->replayed;
}

static void tick_agent(struct sched *s, struct agent *a, const struct sched_lttng *all,
		       double dt, uint64_t share, int64_t now)
{
	/* a process no active session sees stays in WAIT: a member's
	 * recording neither waits for nor replays another user's processes */
	struct sched_lttng mine;
	const struct sched_lttng *l;
	struct sched_agent *sa = scoped(a, all, &mine, &l);
	if (!sa) {
		log_warn_rl("pid %d (%s): out of memory: not scheduled at this tick",
			    (int)a->pid, a->procname);
		return;
	}
	struct caret_seg_status st;
	caret_seg_read_status(&a->seg, &st);
	if (!sa->seen)
		adopt(a, sa, l, &st);
	/* Without an active session the agent decides alone (it sees its own
	 * tracepoints); with one, caretd knows every session's rules. */
	uint32_t flags = l->any ? CARET_CTRL_INIT_DECIDED | (l->init_as_ros2 ? CARET_CTRL_INIT_ROS2 : 0)
				: 0;
	if (st.ctrl_flags != flags)
		caret_drive_set_flags(&a->seg, flags);
	switch (st.state) {
	case CARET_STATE_WAIT:
		from_wait(s, a, sa, l, &st, now);
		break;
	case CARET_STATE_PREPARE:
		if (!l->any) {
			sched_end(a, sa, st.state, " during replay");
			break;
		}
		if (!l->caret) {
			if (now_complete(s, sched_move(a, st.state, CARET_STATE_RECORD)))
				log_info("pid %d (%s): no active session enables ros2_caret events "
					 "any more: recording without replay", (int)a->pid, a->procname);
			break;
		}
		if (!sa->prepare_since_ns)
			sa->prepare_since_ns = now; /* adopted after a restart */
		if (l->ready > sa->pass_serial) {
			log_info("pid %d (%s): another session became active during the replay: "
				 "starting over", (int)a->pid, a->procname);
			begin_pass(s, a, sa, st.state, l->ready, now);
			break;
		}
		if (pass_step(s, a, sa, &st, dt, share, now) &&
		    now_complete(s, sched_move(a, st.state, CARET_STATE_RECORD)))
			sa->covered_serial = sa->pass_serial;
		break;
	case CARET_STATE_RECORD:
		if (!l->any) {
			sched_end(a, sa, st.state, "");
			break;
		}
		if (!sa->extra_pass) {
			if (l->caret && l->ready > sa->covered_serial) {
				begin_pass(s, a, sa, st.state, l->ready, now);
				log_info("pid %d (%s): a new session enables ros2_caret events: "
					 "replaying %llu cached records again, still recording",
					 (int)a->pid, a->procname, (unsigned long long)st.records);
			}
			break;
		}
		if (l->ready > sa->pass_serial) {
			begin_pass(s, a, sa, st.state, l->ready, now);
			break;
		}
		if (now_complete(s, pass_step(s, a, sa, &st, dt, share, now))) {
			sa->extra_pass = false;
			sa->covered_serial = sa->pass_serial;
		}
		break;
	default: /* UNINITIALIZED: the agent is still starting */
		break;
	}
}

/* Whether a Start now begins a replay pass for a (in WAIT) under all:
 * some session that sees it enables ros2_caret events. */
static bool start_replays(const struct agent *a, const struct sched_lttng *all)
{
	struct sched_lttng mine;
	const struct sched_lttng *l = seen_by(a, all, &mine);
	return l->caret && l->newest;
}

void sched_post(struct sched *s, const struct registry *r, const struct sched_lttng *l,
		const struct sched_input *in, struct sched_posted *out)
{
	*out = (struct sched_posted){ 0 };
	if (in->end ? l->any : !l->any)
		out->reason = in->end ? "an LTTng session is active on this host"
				      : "no LTTng session is active on this host";
	else if (s->n_in == SCHED_INPUTS)
		out->reason = "too many Start and End messages wait for the scheduler";
	for (const struct agent *a = r->head; a; a = a->next) {
		out->agents++;
		bool filtered = in->filtered && start_replays(a, l);
		uint32_t st = caret_seg_state(&a->seg);
		if (in->end) {
			out->moved += st == CARET_STATE_PREPARE || st == CARET_STATE_RECORD;
		} else if (st == CARET_STATE_WAIT) { /* seed 000: Start only moves agents in WAIT */
			out->moved++;
			out->filtered += filtered;
		}
	}
	if (out->reason) {
		out->moved = out->filtered = 0;
		return;
	}
	s->in[s->n_in++] = *in;
	if (s->hint)
		s->hint(s->hint_arg);
}

/* A Start: each agent in WAIT goes on (seed 000: it moves no other),
 * with the Start's filter staged for the epoch its pass will have (the
 * agent must see the filter before it sees the pass). */
static void apply_start(struct sched *s, struct registry *r, const struct sched_lttng *l,
			const struct sched_input *in, int64_t now)
{
	struct caret_filter_text ft;
	bool filtered = in->filtered && caret_filter_decode(&in->filter, &ft) == 0;
	for (struct agent *a = r->head; a; a = a->next) {
		if (caret_seg_state(&a->seg) != CARET_STATE_WAIT)
			continue;
		if (filtered && caret_drive_stage_filter(&a->seg, &ft.f) < 0)
			log_warn("pid %d (%s): the Start's filter does not fit its segment",
				 (int)a->pid, a->procname);
		tick_agent(s, a, l, 0, 0, now); /* from WAIT: begins a pass, or RECORD */
		uint32_t st = caret_seg_state(&a->seg);
		struct sched_agent *sa = sched_agent(a);
		if (sa && st != CARET_STATE_WAIT)
			sa->start_frequency = in->frequency; /* this pass only */
		if (filtered && st != CARET_STATE_PREPARE)
			caret_drive_clear_filter(&a->seg); /* no pass began: not for a later one */
	}
}

/* An End: every agent back to WAIT. */
static void apply_end(struct registry *r)
{
	for (struct agent *a = r->head; a; a = a->next) {
		uint32_t st = caret_seg_state(&a->seg);
		struct sched_agent *sa = sched_agent(a);
		if (!sa)
			continue;
		if (st == CARET_STATE_PREPARE || st == CARET_STATE_RECORD)
			sched_end(a, sa, st, " message");
		sa->start_frequency = 0; /* a Start's pacing ends with its recording */
	}
}

/* The inputs posted since the last tick, in their order, to the sessions
 * active now: a message that would be ignored now is dropped. */
static void apply_inputs(struct sched *s, struct registry *r, const struct sched_lttng *l,
			 int64_t now)
{
	for (int i = 0; i < s->n_in; i++) {
		const struct sched_input *in = &s->in[i];
		if (in->end == l->any) {
			log_info("%s dropped: %s", in->end ? "End" : "Start",
				 in->end ? "a session became active" : "no session is active any more");
			continue;
		}
		if (in->end)
			apply_end(r);
		else
			apply_start(s, r, l, in, now);
	}
	s->n_in = 0;
}

void sched_tick(struct sched *s, struct registry *r, const struct sched_lttng *l, int64_t now)
{
	double dt = s->last_tick_ns ? (double)(now - s->last_tick_ns) / 1e9 : 0.01;
	if (dt > 0.5) /* after a stall, do not burst */
		dt = 0.5;
	s->last_tick_ns = now;
	r->want_serial = l->newest;
	s->completed_now = false;
	apply_inputs(s, r, l, now);

	int busy = 0;
	for (struct agent *a = r->head; a; a = a->next)
		if (sched_replaying(sched_agent_peek(a), caret_seg_state(&a->seg)))
			busy++;
	uint64_t budget = s->room_known ? s->room : (uint64_t)((double)s->cfg.bandwidth * dt);
	s->budget_left = budget;
	uint64_t share = busy ? budget / (uint64_t)busy : 0;
	/* Fewer, larger grants in turns rather than a sliver for everyone
	 * (the budget caps the sum either way): every grant wakes a replay
	 * thread, and the next tick waits its turn on the CPUs behind every
	 * thread it woke. 400 agents woken each tick with 4 KiB each made
	 * ticks of ~18 ms on 2 cores and a replay at 24-42 MB/s; in turns of
	 * 32-64 KiB (0.1-0.2 ms of one thread's time) the same replay ran at
	 * 85-110 MB/s (bench/NOTES.md). */
	s->slots = (uint32_t)busy;
	if (busy && share < SCHED_MIN_GRANT) {
		share = budget < SCHED_MIN_GRANT ? budget : SCHED_MIN_GRANT;
		/* and a turn for the remainder (budget_left caps it): with
		 * 64 KiB sub-buffers the room is 1-2 turns, and leaving the
		 * remainder each tick held the replay to 64 KiB a tick, 50
		 * MB/s against a drain of 600 (bench P7 (b)) */
		s->slots = share ? (uint32_t)((budget + share - 1) / share) : 1;
	}
	s->seen = 0;

	for (struct agent *a = r->head; a; a = a->next)
		tick_agent(s, a, l, dt, share, now);
	if (s->seen) {
		s->turn = (s->turn % s->seen + s->slots) % s->seen;
		s->eligible = s->seen;
	}
	if (s->completed_now && s->completed)
		s->completed(s->completed_arg);
}
