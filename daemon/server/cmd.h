/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The control commands' shape (protocol: proto/caret_ctl.h): each takes
 * its typed request (proto/caret_ctl_req.h) and returns 0 with its result
 * struct filled, or a negative errno with one line for the requester in
 * struct cmd_err. None encodes a reply: daemon/server/commands.c, the dispatch,
 * turns results and errors into reply lines. Every LTTng call goes
 * through the view's ops table (cmd_ctx.ops); the recordings are
 * the recordings table's (daemon/recording/recordings.h).
 */
#ifndef CARETD_CMD_H
#define CARETD_CMD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon/bridge/bridge.h"
#include "daemon/server/cmd_events.h"
#include "lib/lttng/session.h"
#include "daemon/lttng/lttng_view.h"
#include "daemon/agents/registry.h"
#include "daemon/recording/features.h"
#include "daemon/recording/recordings.h"
#include "daemon/recording/rotation.h"
#include "daemon/agents/scheduler.h"
#include "daemon/agents/wait.h"
#include "proto/caret_ctl_plan.h"
#include "proto/caret_ctl_req.h"
#include "util/caret_err.h"

/* What the commands may read and change, and nothing more. */
struct cmd_ctx {
	struct registry *reg;
	struct sched_cfg *sched;
	struct sched *scheduler;  /* Start and End are its tick's inputs */
	struct lttng_view *lttng; /* what LTTng has */
	/* the door to LTTng: the view's own (lttng_view_ops()), carried once
	 * so that a command calls LTTng without going through the view */
	const struct caret_lttng_ops *ops;
	struct recordings *recs;  /* the recordings caretd made (over lttng) */
	struct events *events;    /* NULL: `events` is refused */
	struct bridge *bridge;    /* may be NULL (tests): no other hosts */
	struct top *top;          /* NULL: `top` is refused (daemon/server/top.h) */
	/* the daemon's default channel geometry for `record` (NULL: LTTng's) */
	const uint64_t *subbuf_size;
	const uint32_t *subbuf_count;
};

/* Who sent the request (SO_PEERCRED, SO_PEERGROUPS of the connection). */
#define CMD_PEER_MAX_GROUPS 64
struct cmd_peer {
	pid_t pid;
	uid_t uid;
	gid_t gid;
	int n_groups; /* -1: not known */
	gid_t groups[CMD_PEER_MAX_GROUPS];
};

/* Why a command failed, for the requester (the errno is its return). */
struct cmd_err {
	char msg[512];
};

/* The message into e, and -|err| returned: caret_errf() (util/caret_err.h),
 * the one error helper of the tree. Logs nothing. */
#define cmd_fail(e, err, ...) caret_errf((e)->msg, sizeof((e)->msg), (err), __VA_ARGS__)

/* A broadcast to the other hosts, when the request asked for one. It never
 * fails the local action: the reply says what happened. */
struct cmd_broadcast {
	bool asked, ok;
	char why[320]; /* when !ok, or held (ok) */
};
void cmd_broadcast_done(const struct cmd_ctx *ctx, struct cmd_broadcast *b, int r,
			const char *what);

/* Whether the requester may act on what uid owns: root, caretd's own
 * user, and the owner. */
bool cmd_may_act_for(const struct cmd_peer *peer, uid_t owner);

struct cmd_record_res {
	char session[CARET_LTTNG_NAME_MAX];
	char path[4096];
	struct cmd_broadcast bc;
};
/* "record": cmd_record.c. With wait, a session LTTng starts off the loop
 * may answer later: *wait set, res unused (daemon/server/cmd_record_start.h);
 * NULL: made in line. */
int cmd_record(const struct cmd_ctx *ctx, const struct cmd_peer *peer,
	       const struct caret_ctl_record_req *q, struct cmd_record_res *res,
	       struct wait_req **wait, struct cmd_err *e);
/* "record" with "go" (cmd_record_go.c): the requester's armed recording
 * q->go starts recording; res as cmd_record's. */
int cmd_record_go(const struct cmd_ctx *ctx, const struct cmd_peer *peer,
		  const struct caret_ctl_record_req *q, struct cmd_record_res *res,
		  struct cmd_err *e);
/* A recording that records from now on (made at once, or an armed one
 * enabled): res names its session and path, the view and the agents see
 * it, its Start goes where it must (cmd_record.c). url: its relay's, or
 * NULL. */
void cmd_record_started(const struct cmd_ctx *ctx, const struct recording *rec,
			const char *url, struct cmd_record_res *res);

/* What one recording is: the request's options over the daemon's. */
struct record_plan {
	struct caret_lttng_cfg cfg;
	struct creds_id as;
	struct caret_lttng_dir_id dir_id;
	struct caret_filter_lists filter;
	enum pacing pacing;
	bool own_pacing;
	uint32_t freq; /* 0: the daemon's */
	struct rotation_opts rot; /* none: a plain recording */
	bool all_hosts;           /* its Start goes to every host */
	char name[CARET_LTTNG_NAME_MAX];
};
/* The request over the daemon's options and what it knows (the live
 * processes' caches, their distributions), checked, nothing made:
 * cmd_record.c, used by `record` and by its plan (cmd_record_plan.c). p->cfg's
 * strings point into q and p. */
int cmd_record_plan(const struct cmd_ctx *ctx, const struct cmd_peer *peer,
		    const struct caret_ctl_record_req *q, struct record_plan *p, struct cmd_err *e);

/* "record" with "plan" (cmd_record_plan.c): what cmd_record would make, in
 * res->plan, nothing made; its strings point into q and res. */
struct cmd_plan_res {
	struct record_plan rp;
	struct caret_ctl_plan plan;
};
int cmd_record_dry_run(const struct cmd_ctx *ctx, const struct cmd_peer *peer,
	     const struct caret_ctl_record_req *q, struct cmd_plan_res *res, struct cmd_err *e);

#define CMD_MAX_CHANNELS 16
struct cmd_stop_res {
	char session[CARET_LTTNG_NAME_MAX];
	char path[4096];
	int n; /* channels in ch */
	struct caret_lttng_chan_stats ch[CMD_MAX_CHANNELS];
	uint64_t dups;
	struct cmd_broadcast bc;
	/* what its features left for the reply (the caller encodes end.rep
	 * and frees end: recording_end_free) */
	struct recording_end end;
};
/* "stop": cmd_stop.c (each feature quiesced, the session stopped, each
 * feature ended in reverse: the one teardown of a recording) */
int cmd_stop(const struct cmd_ctx *ctx, const struct cmd_peer *peer,
	     const struct caret_ctl_stop_req *q, struct cmd_stop_res *res, struct cmd_err *e);

struct cmd_pause_res {
	char session[CARET_LTTNG_NAME_MAX];
	char path[4096];
	bool paused; /* now */
};
/* "pause" (resume false) and "resume": cmd_pause.c */
int cmd_pause(const struct cmd_ctx *ctx, const struct cmd_peer *peer,
	      const struct caret_ctl_pause_req *q, bool resume, struct cmd_pause_res *res,
	      struct cmd_err *e);

struct cmd_accept_res {
	bool accepted;
	char reason[160]; /* when not accepted */
	struct cmd_broadcast bc;
};
/* "start" (start true) and "end": cmd_stop.c */
int cmd_start_end(const struct cmd_ctx *ctx, const struct caret_ctl_startend_req *q,
		  int64_t now, bool start, struct cmd_accept_res *res, struct cmd_err *e);

/* "snapshot" (cmd_snapshot.c): the pass before the snapshot begins; the
 * request to poll (daemon/recording/snapshot.h) in *wait. */
int cmd_snapshot(const struct cmd_ctx *ctx, const struct cmd_peer *peer,
		 const struct caret_ctl_snapshot_req *q, int64_t now, struct wait_req **wait,
		 struct cmd_err *e);

/* "wait": the request to poll; a member's counts their processes only. */
int cmd_wait(const struct cmd_ctx *ctx, const struct cmd_peer *peer,
	     const struct caret_ctl_wait_req *q, int64_t now, struct wait_req **wait,
	     struct cmd_err *e);

/* CARET's filter lists of a request, checked as the segments' filter
 * blocks and CARET's dialect need them. */
int cmd_filter(const char *const *lists, struct caret_filter_lists *f, struct cmd_err *e);

#endif
