/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The runtime-recording state machine (DESIGN.md §4) applied to every
 * agent at every tick, and the replay pacing. Each agent's state, its
 * passes and what is read of them (progress, completeness) are
 * sched_pass.h's, included here: callers include this header alone.
 */
#ifndef CARETD_SCHEDULER_H
#define CARETD_SCHEDULER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon/agents/registry.h"
#include "daemon/agents/sched_pass.h"
#include "proto/caret_ctl.h"

enum pacing {
	/* Feedback: the replays fill what LTTng's buffers can take (the
	 * pacer measures it, struct sched's room), else a host-wide byte
	 * budget shared by every replaying process. */
	PACING_ADAPTIVE,
	/* CARET's recording_frequency: records per second per process. */
	PACING_FREQUENCY,
};

/* The one spelling of a pacing mode, on the command line and the wire. */
static inline const char *pacing_name(enum pacing p)
{
	return p == PACING_ADAPTIVE ? CARET_CTL_PACING_ADAPTIVE : CARET_CTL_PACING_FREQUENCY;
}

/* 0, or -1 for an unknown name (*out untouched). */
static inline int pacing_parse(const char *s, enum pacing *out)
{
	if (__builtin_strcmp(s, CARET_CTL_PACING_ADAPTIVE) == 0)
		*out = PACING_ADAPTIVE;
	else if (__builtin_strcmp(s, CARET_CTL_PACING_FREQUENCY) == 0)
		*out = PACING_FREQUENCY;
	else
		return -1;
	return 0;
}

/* The least an agent is granted at its turn under PACING_ADAPTIVE (about
 * 700 init records): see sched_tick in scheduler.c. */
#define SCHED_MIN_GRANT (64u * 1024)

struct sched_cfg {
	enum pacing pacing;
	uint32_t frequency;      /* records/s/process (PACING_FREQUENCY) */
	uint64_t bandwidth;      /* bytes/s host-wide (PACING_ADAPTIVE) */
};

/*
 * Asked at each pass the scheduler begins: the filter (CARET's lists) the
 * pass for the sessions with serials in (after, upto] carries: 1 and *out,
 * or 0 for none. Without one (NULL), a pass carries only the filter a Start
 * staged (startend.c).
 */
typedef int sched_pass_filter_fn(void *arg, uint32_t after, uint32_t upto,
				 struct caret_filter_text *out);

/*
 * Seed 000's Start and End as inputs of the tick: whoever receives one
 * (the control socket, the bridge) posts it (startend.h), and the next
 * tick applies it before it moves any agent, in the order they came, to
 * the sessions active then: Start moves the agents in WAIT on, its filter
 * and frequency going with the passes it begins; End moves every agent
 * back to WAIT. Either is dropped if the sessions changed meanwhile so
 * that the message would have been ignored.
 */
#define SCHED_INPUTS 8
struct sched_input {
	bool end;
	uint32_t frequency;             /* Start: records/s of its passes; 0: the pacing's */
	bool filtered;
	struct caret_shm_filter filter; /* Start, when filtered: its lists */
};

struct sched {
	struct sched_cfg cfg;
	struct sched_input in[SCHED_INPUTS];
	int n_in;
	/* brings the tick forward when an input is posted (the pacer's) */
	void (*hint)(void *arg);
	void *hint_arg;
	/* called at the end of a tick in which some agent became complete
	 * (the pacer's collaborator: the server's waits), so that the
	 * requester hears of it in this tick's report stage and not at its
	 * own poll's period (bench P6: 10 ms against a 6 ms replay) */
	void (*completed)(void *arg);
	void *completed_arg;
	bool completed_now; /* this tick's */
	/* the filter of the passes it begins (NULL: only a Start's) */
	sched_pass_filter_fn *pass_filter;
	void *pass_filter_arg;
	int64_t last_tick_ns;
	/* Set by the pacer before each tick (PACING_ADAPTIVE): when
	 * room_known, the bytes the replays may add to the channel's buffers
	 * now replace the bandwidth budget. */
	bool room_known;
	uint64_t room;
	/* Estimated bytes granted so far (every pass, both pacings), in
	 * sched_record_bytes() units; the pacer's produced side. */
	uint64_t granted_bytes;
	uint64_t budget_left; /* of this tick's budget */
	/* PACING_ADAPTIVE grants in turns (sched_tick): `slots` replaying
	 * agents per tick, the `turn`-th onwards of the `eligible` counted at
	 * the previous tick; `seen` counts this tick's. */
	uint32_t slots, turn, eligible, seen;
};

/*
 * What the scheduler knows of LTTng at a tick. Sessions are numbered
 * (serial) in the order caretd saw them become active. Every session that
 * enables ros2_caret events must get a full replay of every live agent's
 * cache after it became active (seed 000: meta-information is recorded in
 * each session); a pass that began after session N was ready covers every
 * session <= N.
 */
#define SCHED_MAX_SESSIONS 32
/* One active session, for the sums a process of one uid sees. */
struct sched_session {
	unsigned rules;  /* enum caret_lttng_rule */
	uint32_t serial;
	bool settled;    /* active long enough for a recording agent to replay */
	bool scoped;     /* traces only uid's processes (a member's recording,
			  * lib/lttng/lttng_sel.h: LTTng's uid tracker) */
	uid_t uid;
};

struct sched_lttng {
	bool any;       /* some LTTng session is active (what End looks at) */
	bool caret;     /* an active session enables ros2_caret events */
	uint32_t ready; /* newest such session whose tracepoints the agents
			 * already see enabled: an agent already recording
			 * may begin a pass for it (an agent in WAIT begins
			 * at once and waits for its own tracepoints) */
	uint32_t newest; /* newest such session, ready or not (0: none) */
	/* agents also emit live init events as ros2: (CARET_CTRL_INIT_ROS2):
	 * a session records ros2: init events, none records both kinds */
	bool init_as_ros2;
	/* the active sessions the sums above are of; scoped: some session
	 * traces one uid's processes only, and each agent is ticked with the
	 * sums of the sessions that see it */
	int n;
	struct sched_session sess[SCHED_MAX_SESSIONS];
	bool scoped;
};

/* l's sums (any, caret, ready, newest, init_as_ros2) over the sessions
 * that see a process of uid (every session when !only). */
void sched_lttng_sum(struct sched_lttng *l, bool only, uid_t uid);
/* The agents' completeness under l: the serial every one must have
 * covered (r->want_serial), and each agent's scope, the newest session
 * that sees it, which its own is judged against, and whether none does.
 * As the tick sets them, for a record right after its session became
 * active. */
void sched_scope_agents(struct registry *r, const struct sched_lttng *l);


/* One step: Start agents in WAIT when a session is active (a replay pass
 * if it enables ros2_caret events, straight to RECORD if it does not), End
 * (back to WAIT) when none is, raise grants of replaying agents, and
 * complete their pass when their cache is replayed. An agent in RECORD
 * whose last pass is older than a ready session replays again (new epoch,
 * state unchanged: its runtime events keep flowing); an agent in PREPARE
 * starts over. */
void sched_tick(struct sched *s, struct registry *r, const struct sched_lttng *l,
		int64_t now_ns);
/* What a Start or an End does under the sessions active when it comes
 * (the tick that applies it re-applies the rules to those active then). */
struct sched_posted {
	int agents;   /* the agents known */
	int moved;    /* those it moves: in WAIT for a Start, in PREPARE or RECORD
			 for an End */
	int filtered; /* of a filtered Start's, those a replay pass begins for */
	const char *reason; /* set when it was not posted: nothing moves */
};
/* A Start or an End (in->end) counted under l, and queued for the next
 * tick (the tick brought forward) when the sessions allow it: a Start
 * while one is active, an End while none is; SCHED_INPUTS waiting already
 * refuse it too. */
void sched_post(struct sched *s, const struct registry *r, const struct sched_lttng *l,
		const struct sched_input *in, struct sched_posted *out);

#endif
