/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `stop` (which session, whose it is, then the one teardown of a
 * recording: each feature quiesced, LTTng's stop through the ops table,
 * each feature ended in reverse; the trace is its owner's already) and
 * the Start/End messages `start` and `end`.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "daemon/server/cmd.h"
#include "lib/lttng/creds.h"
#include "daemon/base/log.h"
#include "daemon/agents/pacer.h"
#include "daemon/agents/startend.h"

/* The session `stop` means when the request names none: the caller's
 * own latest recording, never a session of another user or of the lttng
 * CLI. */
static int default_session(struct recordings *t, const struct cmd_peer *peer,
			   const char **name, struct cmd_err *e)
{
	const struct lttng_view *v = t->view;
	struct recording *r = recordings_latest(t, peer->uid);
	if (r) {
		*name = r->name;
		return 0;
	}
	if (v->n_active == 0)
		return cmd_fail(e, ENOENT, "no LTTng session is active on this host");
	char list[1024] = "";
	for (int i = 0; i < v->n_active; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "",
			 v->active[i]);
	return cmd_fail(e, ENOENT, "you have no recording started with 'caretctl record'; "
			"active sessions: %s (name one with -s)", list);
}

static void log_losses(const char *session, const struct caret_lttng_chan_stats *c)
{
	if (!c->discarded_known)
		log_warn("session %s channel %s: discarded events unknown", session, c->name);
	else if (c->discarded)
		log_warn("session %s channel %s: %llu events discarded", session, c->name,
			 (unsigned long long)c->discarded);
	if (c->lost_known && c->lost_packets)
		log_warn("session %s channel %s: %llu packets lost", session, c->name,
			 (unsigned long long)c->lost_packets);
}

/* Whose the session is: its recording's requester, else (a session of
 * the lttng CLI, or one not taken over after a restart) the requester's
 * if the session daemon says it is theirs, else caretd's. Never its trace
 * directory's owner: whoever may write a parent of it can put a directory
 * of theirs in its place (issue 30, the rule). */
static void stop_owner(const struct cmd_ctx *ctx, const struct cmd_peer *peer, const char *name,
		       const struct recording *rec, uid_t *owner)
{
	*owner = geteuid();
	if (rec) {
		*owner = rec->uid;
		return;
	}
	struct creds_id as = { .uid = peer->uid, .gid = peer->gid, .groups = peer->groups,
			       .n_groups = peer->n_groups };
	/* only root can ask as them (an unprivileged caretd would ask as
	 * itself, and every session of its session daemon would pass) */
	if (geteuid() == 0 && peer->uid != 0 &&
	    ctx->ops->session_theirs(name, &as) == 1)
		*owner = peer->uid;
}

/* The log line of a stop: what it left (nothing for an armed recording
 * or a flight recorder without a snapshot), and copies in the trace. */
static void log_stopped(const char *sname, const struct cmd_stop_res *res, bool armed,
			bool unwritten, bool dups_bound)
{
	if (armed)
		log_info("armed recording %s stopped before it started: session destroyed, "
			 "its trace directory removed", sname);
	else if (unwritten)
		log_info("flight recorder %s stopped without a snapshot: session destroyed, "
			 "its empty trace directory removed", sname);
	else if (res->dups)
		/* what `caretctl check` counts as copies in the trace */
		log_info("session %s stopped and destroyed; trace in %s; %s%llu replayed "
			 "initialization records in it twice (a replay for another session, or "
			 "one started over; the analyzer ignores copies)%s",
			 sname, res->path, dups_bound ? "at most " : "",
			 (unsigned long long)res->dups,
			 dups_bound ? ": a filtered replay emits fewer than it passes" : "");
	else
		log_info("session %s stopped and destroyed; trace in %s", sname, res->path);
}

int cmd_stop(const struct cmd_ctx *ctx, const struct cmd_peer *peer,
	     const struct caret_ctl_stop_req *q, struct cmd_stop_res *res, struct cmd_err *e)
{
	struct lttng_view *v = ctx->lttng;
	const char *name = q->session;
	memset(res, 0, sizeof(*res));
	if (!name) {
		int r = default_session(ctx->recs, peer, &name, e);
		if (r < 0)
			return r;
	}
	char *sname = res->session;
	snprintf(sname, sizeof(res->session), "%s", name);
	struct recording *rec = recordings_find(ctx->recs, sname);
	uid_t owner;
	stop_owner(ctx, peer, sname, rec, &owner);
	if (!cmd_may_act_for(peer, owner)) {
		log_warn("uid %d may not stop session %s", (int)peer->uid, sname);
		return cmd_fail(e, EPERM, rec || owner != geteuid()
					  ? "session %s is another user's recording (uid %d)"
					  : "session %s was not started by 'caretctl record': only "
					    "root may stop it through caretd",
				sname, (int)owner);
	}
	struct lttng_view_session *vs = lttng_view_find(v, sname);
	res->dups = vs ? vs->dups : 0;
	bool dups_bound = vs && vs->dups_bound;
	if (rec) {
		int r = recording_quiesce(ctx->recs, rec, caret_now_ns(), e->msg, sizeof(e->msg));
		if (r < 0)
			return r;
	}
	int n = ctx->ops->stop(sname, res->ch, CMD_MAX_CHANNELS, res->path,
					sizeof(res->path), e->msg, sizeof(e->msg));
	if (n < 0)
		return n;
	/* after the stop: the destruction's own rotation archives the last
	 * chunk, which a rotation's end reads */
	if (rec)
		recording_end(ctx->recs, rec, &res->end);
	res->n = n > CMD_MAX_CHANNELS ? CMD_MAX_CHANNELS : n;
	for (int i = 0; i < res->n; i++)
		log_losses(sname, &res->ch[i]);
	/* a flight recorder writes snapshots only: none taken, its directory
	 * made for it stays empty (issue 33 L10); and it has no output of its
	 * own: its snapshots are in the trace directory */
	bool unwritten = rec && rec->dir_made && res->end.ring && res->end.rep.self.snapshots == 0;
	if (rec && res->end.ring && !res->path[0])
		snprintf(res->path, sizeof(res->path), "%s", rec->path);
	bool armed = rec && rec->armed;
	/* stopped before Enter: nothing recorded, nothing left */
	if (armed || unwritten)
		recordings_unmake(rec);
	log_stopped(sname, res, armed, unwritten, dups_bound);
	/* No chown: the session daemon wrote the trace as its owner (the
	 * session was created with them as its client), and root giving away
	 * what lies below a path its owner controls would hand them whatever
	 * they moved or linked in there (issue 30 H1). */
	recordings_drop(ctx->recs, rec);
	lttng_view_session_ended(v, sname);
	if (q->all_hosts) {
		int b = bridge_send_relay(ctx->bridge, sname, "net://-", 0, true, NULL);
		if (b >= 0) /* sent, or held (BRIDGE_HELD): the next one follows it */
			b = bridge_send_end(ctx->bridge);
		cmd_broadcast_done(ctx, &res->bc, b, "End");
	}
	return 0;
}

int cmd_start_end(const struct cmd_ctx *ctx, const struct caret_ctl_startend_req *q,
		  int64_t now, bool start, struct cmd_accept_res *res, struct cmd_err *e)
{
	struct caret_filter_lists filter = { { 0 } };
	memset(res, 0, sizeof(*res));
	if (start) {
		int r = cmd_filter(q->filter, &filter, e);
		if (r < 0)
			return r;
	}
	/* Seed 000's Start/End, applied to this host's agents (the
	 * multi-host bridge applies the same to the messages it gets). */
	struct sched_lttng l;
	pacer_sched_lttng(ctx->lttng, now, &l);
	struct startend_out so;
	if (start)
		startend_start(ctx->scheduler, ctx->reg, &l, 0, &filter, &so);
	else
		startend_end(ctx->scheduler, ctx->reg, &l, &so);
	res->accepted = !so.reason;
	if (so.reason)
		snprintf(res->reason, sizeof(res->reason), "ignored: %s", so.reason);
	log_info("%s message %s%s", start ? "Start" : "End",
		 res->accepted ? "accepted" : "ignored",
		 res->accepted && so.applied == 0 ? " (no agent to move)" : "");
	if (q->all_hosts)
		cmd_broadcast_done(ctx, &res->bc,
				   start ? bridge_send_start(ctx->bridge, ctx->sched->frequency,
							     &filter)
					 : bridge_send_end(ctx->bridge),
				   start ? "Start" : "End");
	return 0;
}
