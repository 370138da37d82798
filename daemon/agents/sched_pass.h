/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The scheduler's state of each agent and its replay passes: what a pass
 * begun, ended or done leaves in that state, and what is read from it
 * (progress, completeness, why an agent is not recording). The tick that
 * decides the moves and grants the turns is scheduler.c's, above it;
 * callers include scheduler.h, which includes this.
 */
#ifndef CARETD_SCHED_PASS_H
#define CARETD_SCHED_PASS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon/agents/registry.h"

/* The scheduler's own state of an agent (registry.h's struct agent_key):
 * its pass and pacing, rebuilt from the segment on restart (zeros: not
 * adopted yet). Session serials are caretd's numbering (struct
 * sched_lttng), in the order the sessions became active. */
struct sched_agent {
	bool seen;                /* the scheduler has adopted this agent */
	bool extra_pass;          /* replaying again while in RECORD */
	uint32_t pass_serial;     /* the pass in progress covers sessions <= this */
	uint32_t covered_serial;  /* a completed pass covered sessions <= this */
	uint64_t acct_replayed;   /* `replayed` already attributed to sessions */
	double credit;            /* fractional grants (frequency pacing) */
	int64_t prepare_since_ns; /* when this daemon saw PREPARE begin */
	int64_t tp_on_ns;         /* when it first saw the pass's tracepoints on */
	int64_t last_bell_ns;     /* last doorbell rung while waiting */
	uint32_t start_frequency; /* records/s asked by the Start that began this pass; 0: none */
	uint32_t tp_warned_epoch; /* pass whose tracepoint timeout was logged */
	/* its scope (sched_scope_agents): the newest active session that
	 * sees it, and whether none does while some session is active */
	bool scoped;              /* some active session sees only one uid's */
	uint32_t seen_newest;     /* then: the newest that sees it */
	bool unseen;
};

/* a's state, allocated at the first call; NULL only when out of memory. */
struct sched_agent *sched_agent(struct agent *a);
/* a's state to read: zeros (not adopted yet) when it has none. */
const struct sched_agent *sched_agent_peek(const struct agent *a);

struct progress {
	int total, recording;
	uint64_t records_done, records_total;
	uint64_t dropped; /* init records the agents could not cache (full) */
};

bool sched_busy(const struct registry *r);
/* Some agent replays, and every one that does has its whole pass granted
 * and its tracepoints on: only the agents' walk is left, no grant. */
bool sched_last_turns(const struct registry *r);
/* RECORD, and no session enabling ros2_caret events lacks its cache. */
bool sched_complete(const struct registry *r, const struct agent *a,
		    const struct caret_seg_status *st);
void sched_progress(const struct registry *r, struct progress *p);
/* The same over uid's processes only when only: a member's recording
 * traces no other user's (struct sched_session's scoped), so their count
 * and their wait are none of its business. */
void sched_progress_of(const struct registry *r, bool only, uid_t uid, struct progress *p);
/* Estimated bytes one replayed record of this agent takes in a trace. */
uint64_t sched_record_bytes(const struct caret_seg_status *st);
/* Records replayed in pass `epoch` (0 if the cursor is from another pass). */
uint32_t sched_done_in(const struct caret_seg_status *st, uint32_t epoch);
/* Why an agent is not in RECORD, for humans. */
void sched_reason(const struct agent *a, char *buf, size_t len);

/* ---- the moves, for scheduler.c's tick ---- */

/* The records of st's cache, as many as a grant's count holds. */
static inline uint32_t sched_total(const struct caret_seg_status *st)
{
	return st->records > UINT32_MAX ? UINT32_MAX : (uint32_t)st->records;
}
/* Whether a pass of a (in state) is under way. */
bool sched_replaying(const struct sched_agent *sa, uint32_t state);
/* a from `from` to `to` unless its state changed meanwhile (then logged
 * and left as it is): whether it moved. */
bool sched_move(struct agent *a, uint32_t from, enum caret_state to);
/* A new pass for sessions <= serial: PREPARE from WAIT or PREPARE, the
 * same state from RECORD; staged: a filter was staged for it, cleared if
 * the move is refused. Whether it began. */
bool sched_pass_begin(struct agent *a, struct sched_agent *sa, uint32_t from, uint32_t serial,
		      int64_t now, bool staged);
/* a's whole cache replayed by its pass: the pass's line in the log. */
void sched_pass_log_done(const struct agent *a, const struct sched_agent *sa, uint32_t done,
			 int64_t now);
/* Back to WAIT from `from` (why: said in the log line); whether it moved. */
bool sched_end(struct agent *a, struct sched_agent *sa, uint32_t from, const char *why);
/* Whether pass `epoch` of a was cut (a caretd killed during it). */
bool sched_pass_cut(const struct agent *a, uint32_t epoch);

#endif
