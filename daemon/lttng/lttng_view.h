/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What caretd knows of LTTng: whether the session daemon answers, which
 * sessions are tracing (their serials, their rules, what their recording
 * publishes for the agents' scheduling). An observer only: the
 * recordings caretd made are daemon/recording/recordings.h's, which tell
 * it what it needs through struct lttng_view_owner. Polled by a job
 * of the tick's observe stage, the first (daemon/base/loop.h); commands tell it
 * right after they start or stop a session.
 */
#ifndef CARETD_LTTNG_VIEW_H
#define CARETD_LTTNG_VIEW_H

#include <stdbool.h>
#include <string.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "daemon/base/loop.h"
#include "lib/lttng/session.h"
#include "shm/caret_shm.h"

#define LTTNG_VIEW_MAX_SESSIONS 32

/* One active session as caretd sees it. */
struct lttng_view_session {
	unsigned rules;   /* enum caret_lttng_rule */
	uint32_t serial;  /* 1, 2, ...: order in which caretd saw sessions
			   * become active (a restarted session gets a new one) */
	int64_t since_ns; /* CLOCK_MONOTONIC when caretd first saw it active */
	int64_t rules_ns; /* when its rules were last read */
	uint64_t dups;    /* replayed records it got again (daemon/agents/dups.h) */
	bool dups_bound;  /* dups counts positions of a filtered pass: at most */
};

/*
 * What a recording of caretd's publishes for its session, read by the
 * agents' scheduling (daemon/agents/ sits below the recordings,
 * daemon/recording/recordings.h, and reads them only through this). The
 * pointers are the recording's own, asked of the table at each use
 * (lttng_view_pub) and never kept: the table may change at any command.
 */
struct lttng_view_pub {
	const char *name;
	const char *path; /* the trace directory ("": a relay's) */
	/* path's directory as created (0, 0: not known): what the pacer
	 * reads is that directory, whatever path leads to now */
	uint64_t dir_dev, dir_ino;
	uid_t uid;          /* the requester's: a member's recording tracks their uid only */
	int pacing;         /* -1: the daemon's default, else enum pacing */
	uint32_t frequency; /* 0: the daemon's default */
	/* its channel's geometry (what the feedback pacing may fill); 0: not known */
	uint64_t subbuf_size;
	uint32_t subbuf_count;
	/* its node/topic filter (every list empty: none), which every replay
	 * pass for it alone carries (lttng_view_pass_filter) */
	const struct caret_shm_filter *filter;
};

/*
 * The recordings table above the view (daemon/recording/recordings.h),
 * as the view sees it: the view calls nothing of that layer but these.
 * Unset (NULL functions): no recordings (a test's bare view).
 */
struct lttng_view_owner {
	void *arg;
	/* before each read of the sessions: armed recordings nobody will
	 * start go (so this read already sees their sessions gone) */
	void (*before_read)(void *arg);
	/* the sessions LTTng has now, names[0..n): the first time, the
	 * recordings of a caretd before this one come back; every time, a
	 * recording whose session is gone goes */
	void (*sessions)(void *arg, char (*names)[CARET_LTTNG_NAME_MAX], int n);
	/* whether session records nothing yet (armed): not active here */
	bool (*armed)(void *arg, const char *session);
	/* a session is about to become active here (processes leave WAIT
	 * for it): recordings armed open are held first */
	void (*before_active)(void *arg);
	/* what session's recording publishes; NULL: none */
	const struct lttng_view_pub *(*pub)(void *arg, const char *session);
	/* recordings exist: the sessions are read at the short period */
	bool (*busy)(void *arg);
};

struct lttng_view {
	bool ok;       /* the session daemon answered the last poll */
	char err[256]; /* why not, when !ok */
	/* active sessions: none while the session daemon is unreachable */
	int n_active;
	char active[LTTNG_VIEW_MAX_SESSIONS][CARET_LTTNG_NAME_MAX];
	struct lttng_view_session sess[LTTNG_VIEW_MAX_SESSIONS];
	uint32_t last_serial;
	bool polled;   /* the session daemon answered once */
	struct lttng_view_owner owner;
	struct loop_job poll;
	/* called after a refresh that changed what is active (or whether
	 * the session daemon answers): the pacer acts at once */
	void (*on_change)(void *arg);
	void *change_arg;
	int64_t last_poll_ns;  /* CLOCK_MONOTONIC of the last refresh */
	int64_t fast_until_ns; /* poll at the short period until then */
	bool hinted;           /* the next poll was brought forward by a hint */
	/* the door to LTTng (NULL: caret_lttng_ops_real; tests give a fake) */
	const struct caret_lttng_ops *ops;
	/* a session start runs off the loop (daemon/lttng/lttng_start.h):
	 * lttng-sessiond answers one client at a time, so a read of the
	 * sessions would stall the loop until that start ends; what was
	 * known stays until then */
	bool starting;
};

/* The view's collaborators, handed to lttng_view_start as every module's
 * are (daemon/main.c). */
struct lttng_view_ops_in {
	/* the door to LTTng (NULL: caret_lttng_ops_real) */
	const struct caret_lttng_ops *ops;
	/* told after a refresh that changed what is active (NULL: nobody) */
	void (*on_change)(void *arg);
	void *change_arg;
};

int lttng_view_start(struct lttng_view *v, struct loop *loop, const struct lttng_view_ops_in *in);
void lttng_view_stop(struct lttng_view *v);
void lttng_view_refresh(struct lttng_view *v);
/* A command started session (it records now) or stopped and destroyed it:
 * the view knows at once, without reading every session again. */
void lttng_view_session_started(struct lttng_view *v, const char *session);

void lttng_view_session_ended(struct lttng_view *v, const char *session);
/* The LTTng calls of this view and of the commands that change it. */
const struct caret_lttng_ops *lttng_view_ops(const struct lttng_view *v);
/* A session may have started or stopped (an agent's tracepoints changed):
 * reads the sessions soon, however many hints come. */
void lttng_view_hint(struct lttng_view *v);
bool lttng_view_is_active(const struct lttng_view *v, const char *session);
/* The entry of an active session, or NULL. */
struct lttng_view_session *lttng_view_find(struct lttng_view *v, const char *session);
/* What the recording of active session i (v->sess[i]) publishes now, read
 * from the recordings table; NULL: a session of the lttng CLI, a peer's
 * relay, or one not taken over. Read anew at each use, not kept. */
const struct lttng_view_pub *lttng_view_pub(const struct lttng_view *v, int i);
/*
 * The filter a replay pass for the active sessions enabling ros2_caret
 * events whose serials are in (after, upto] carries: 1 and *out when each
 * of them is a recording with the same filter (the records of the pass
 * reach older sessions too, which already hold them: they lose copies
 * only), 0 when none applies (a session without a filter, two with
 * different ones, or no such session: the pass replays everything).
 */
int lttng_view_pass_filter(const struct lttng_view *v, uint32_t after, uint32_t upto,
			   struct caret_filter_text *out);
/* Whether an active session enables ros2_caret events. */
bool lttng_view_caret_active(const struct lttng_view *v);

#endif
