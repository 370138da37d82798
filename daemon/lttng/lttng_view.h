/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What caretd knows of LTTng: whether the session daemon answers, which
 * sessions are tracing, and the session `record` created. Polled by a job
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
#include "lib/lttng/lttng.h"
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

#define LTTNG_VIEW_MAX_RECORDINGS 32
/*
 * Shares of the recordings table (B17): a user other than root may hold
 * at most this many recordings, of which this many armed (waiting for
 * Enter), and all of them together leave root a reserve, so one user can
 * neither fill the table nor hold the session daemon's sessions.
 */
#define LTTNG_VIEW_USER_RECORDINGS 8
#define LTTNG_VIEW_USER_ARMED 2
#define LTTNG_VIEW_ROOT_RESERVE 4
/* An armed recording nobody starts goes after this long by default
 * (caretd --arm-timeout). */
#define LTTNG_VIEW_ARM_TIMEOUT_S 600
/* Armed recordings that expired, remembered for a late `go`. */
#define LTTNG_VIEW_EXPIRED 8

/* A session `record` created: for whom, and its own options. */
struct lttng_view_rec {
	char name[CARET_LTTNG_NAME_MAX];
	char path[4096];
	/* path's directory as created (0, 0: not known): what the pacer
	 * reads is that directory, whatever path leads to now */
	uint64_t dir_dev, dir_ino;
	/* directories above path caretd created for it too (its parent
	 * first; not kept across a restart): an armed recording stopped
	 * before Enter removes them while empty (issue 22 D8) */
	int parents_made;
	bool dir_made; /* caretd created it for this recording (not kept
			* across a restart) */
	uid_t uid; /* the requester's (SO_PEERCRED): the trace is theirs */
	gid_t gid;
	uint64_t seq;       /* creation order */
	int pacing;         /* -1: the daemon's default, else enum pacing */
	uint32_t frequency; /* 0: the daemon's default */
	/* its channel's geometry (what the feedback pacing may fill);
	 * 0: not known (a recording adopted after a restart) */
	uint64_t subbuf_size;
	uint32_t subbuf_count;
	bool armed; /* started with its channel disabled, until `go` */
	/* armed with its channel enabled (caret_lttng_cfg.armed_open): `go`
	 * sends LTTng nothing; held (disabled) before any process may leave
	 * WAIT for another session (lttng_view_hold_armed) */
	bool armed_open;
	/* armed with --all-hosts: its Start goes to every host at `go` */
	bool all_hosts;
	/* the caretctl that armed it (0: none known): if it dies before `go`
	 * (SIGKILL while waiting for Enter), no one will ever start or stop it */
	pid_t armer_pid;
	uint64_t armer_start; /* its start time: the pid is not reused */
	int64_t armed_ns;     /* CLOCK_MONOTONIC when it was armed */
	/* its node/topic filter (CARET's four lists, encoded as in a segment;
	 * epoch unused; every list empty: none), which every replay pass for
	 * it alone carries (lttng_view_pass_filter); kept across a restart
	 * (lttng_view_state.c) */
	struct caret_shm_filter filter;
	/* a flight recorder's snapshots written (daemon/recording/snapshot.c): kept
	 * across a restart, so its count and snapshot-N names go on */
	uint64_t snapshots;
	/* `pause` stopped its tracing (daemon/server/cmd_pause.c): not active,
	 * kept while its session exists; `resume` makes it active again,
	 * as a new session (a new serial). Not kept across a restart. */
	bool paused;
	int64_t paused_ns; /* CLOCK_MONOTONIC of the pause */
	/* its session's serial and copies when paused (dups_resume) */
	uint32_t paused_serial;
	uint64_t paused_dups;
	bool paused_dups_bound;
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
	uint32_t hold_failed; /* armed-open recordings LTTng failed to hold */
	/* the sessions `record` created that are still active */
	struct lttng_view_rec recs[LTTNG_VIEW_MAX_RECORDINGS];
	int n_recs;
	uint64_t rec_seq;
	/* seconds an armed recording may wait for `go` (NULL: the default) */
	const uint32_t *arm_timeout_s;
	struct {
		char name[CARET_LTTNG_NAME_MAX];
		uid_t uid;
		uint32_t after_s;
	} expired[LTTNG_VIEW_EXPIRED];
	unsigned n_expired; /* written so far; the ring keeps the last ones */
	/* recs outlive a restart in this file (B5); "" keeps them in memory
	 * only. Loaded at the first poll that reaches the session daemon. */
	char state_file[4200];
	bool state_loaded;
	/* keep the armed marker (shm/armed.c) while a recording is armed open:
	 * caretd's own view only (unit tests leave it off); marked: it is */
	bool armed_marker, marked;
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
};

int lttng_view_start(struct lttng_view *v, struct loop *loop);
void lttng_view_stop(struct lttng_view *v);
void lttng_view_refresh(struct lttng_view *v);
/* A command started session (it records now) or stopped and destroyed it:
 * the view knows at once, without reading every session again. */
void lttng_view_session_started(struct lttng_view *v, const char *session);

/*
 * Closes every recording armed open (disables its channel, as an armed
 * recording is otherwise started): done before any session becomes active
 * here, since caretd then moves processes out of WAIT, and what they emit
 * would reach a recording whose Enter has not come. Returns how many were
 * held; one that LTTng failed to hold is logged (it may hold events from
 * before its Enter) and counted in hold_failed.
 */
int lttng_view_hold_armed(struct lttng_view *v);

/* The armed marker as the recordings say (kept by every save): on while a
 * recording is armed open or records with a filter; or set already for one
 * about to be (before its session starts, so that no process starting
 * meanwhile records at once). */
void lttng_view_sync_marker(struct lttng_view *v, bool arming);
void lttng_view_session_ended(struct lttng_view *v, const char *session);
/* The LTTng calls of this view and of the commands that change it. */
const struct caret_lttng_ops *lttng_view_ops(const struct lttng_view *v);
/* A session may have started or stopped (an agent's tracepoints changed):
 * reads the sessions soon, however many hints come. */
void lttng_view_hint(struct lttng_view *v);
bool lttng_view_is_active(const struct lttng_view *v, const char *session);
/* The entry of an active session, or NULL. */
struct lttng_view_session *lttng_view_find(struct lttng_view *v, const char *session);
/* Whether uid may add a recording (armed or not) now: 0, or -ENOSPC
 * (the table, or what it leaves to users other than root, is full) or
 * -EDQUOT (uid's own share is used up), with why in err. */
int lttng_view_admit(const struct lttng_view *v, uid_t uid, bool armed, char *err, size_t errlen);
/* If session is an armed recording that expired (not started in time):
 * its owner and after how many seconds; else false. */
bool lttng_view_expired(const struct lttng_view *v, const char *session, uid_t *uid,
			uint32_t *after_s);
/*
 * Writes the recordings to v->state_file (root-only, replaced by rename),
 * after every change of the table or of a recording's armed flag; a failure
 * is logged.
 */
void lttng_view_save(struct lttng_view *v);
/* Reads v->state_file once (lttng_view_state.c), at the first poll that
 * reaches the session daemon: names[0..n) are the sessions it has. */
void lttng_view_load_state(struct lttng_view *v, char (*names)[CARET_LTTNG_NAME_MAX], int n);
/* At a clean exit: removes v->state_file (and rotation_store.c's beside
 * it) when it names no recording; kept when it does (the next caretd
 * adopts them) or was never loaded (a previous caretd's, unread). */
void lttng_view_drop_state(struct lttng_view *v);
/* Remembers a recording (-ENOSPC when the table is full). */
int lttng_view_add_rec(struct lttng_view *v, const struct lttng_view_rec *r);
/* Inline: lttng_view_state reads the table too, and calls nothing of
 * lttng_view (which calls it to load and save). */
static inline struct lttng_view_rec *lttng_view_find_rec(struct lttng_view *v,
							 const char *session)
{
	for (int i = 0; i < v->n_recs; i++)
		if (strcmp(v->recs[i].name, session) == 0)
			return &v->recs[i];
	return NULL;
}

/* An armed recording stopped before `go`: nothing was recorded, so what it
 * created goes (the trace tree LTTng wrote, and the trace directory if
 * caretd made it), as its owner and without following links. Nothing
 * when the directory is not known (a recording adopted after a restart). */
void lttng_view_unmake(const struct lttng_view_rec *r);
void lttng_view_drop_rec(struct lttng_view *v, const char *session);
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
/* The newest recording (of uid, or of anyone when uid is (uid_t)-1). */
struct lttng_view_rec *lttng_view_latest_rec(struct lttng_view *v, uid_t uid);
/* Whether an active session enables ros2_caret events. */
bool lttng_view_caret_active(const struct lttng_view *v);

#endif
