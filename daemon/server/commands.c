/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/server/commands.h"
#include "daemon/server/cmd_hold.h"
#include "daemon/server/cmd_hosts.h"
#include "daemon/server/cmd_queue.h"
#include "daemon/server/cmd_top.h"
#include "daemon/server/top.h"
#include "daemon/base/log.h"
#include "daemon/lttng/lttng_start.h"
#include "daemon/agents/pacer.h"
#include "daemon/recording/features.h"
#include "proto/caret_version.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_enc.h"
#include "proto/caret_ctl_hosts.h"
#include "proto/caret_ctl_recordings.h"
#include "proto/caret_ctl_req.h"
#include "proto/caret_ctl_rotation.h"

/* The reply to a command that failed. */
static cJSON *error_reply(int err, const struct cmd_err *e)
{
	return caret_ctl_enc_error(err, e->msg);
}

static int add_agent(cJSON *o, const struct registry *r, struct agent *a)
{
	struct caret_seg_status st;
	caret_seg_read_status(&a->seg, &st);
	/* seed 000: no agent waits without a reason shown */
	char why[160];
	bool idle = st.state == CARET_STATE_WAIT || st.state == CARET_STATE_UNINITIALIZED;
	if (!idle && !sched_complete(r, a, &st))
		sched_reason(a, why, sizeof(why));
	struct caret_ctl_agent x = {
		.pid = a->pid,
		.procname = a->procname,
		.state = caret_state_name(st.state),
		.segment = a->seg.name,
		.records = st.records,
		/* this pass only: `records` is what a complete one replays */
		.replayed = sched_done_in(&st, CARET_EPOCH_OF(st.grant)),
		.replay_done = sched_done_in(&st, CARET_EPOCH_OF(st.grant)),
		.replay_total = st.records,
		.dropped = st.dropped,
		.reason = !idle && !sched_complete(r, a, &st) ? why : NULL,
	};
	x.n_nodes = agent_node_names(a);
	x.nodes = a->nodes;
	return caret_ctl_add_agent(o, &x);
}

/* The recordings and their modes; for status, the rotating ones and those
 * caretd ended itself too. Their strings point into the recordings, which
 * do not change before the result is encoded here. 0 or -ENOMEM. */
static int add_recordings(const struct cmd_ctx *ctx, cJSON *o, bool full)
{
	struct caret_ctl_recordings recs;
	int e = recordings_status(ctx->recs, full, &recs);
	for (size_t i = 0; e == 0 && i < recs.n_recordings; i++) {
		struct caret_ctl_recording_status *x = &recs.recordings[i];
		const struct recording *r = recordings_find(ctx->recs, x->session);
		x->held = r && cmd_hold_held(r);
	}
	if (e == 0) {
		e = caret_ctl_recordings_encode(&recs, o);
		caret_ctl_recordings_free(&recs);
	}
	return e;
}

static cJSON *cmd_agents(const struct cmd_ctx *ctx, bool full)
{
	cJSON *o;
	if (full) {
		char host[256] = "";
		gethostname(host, sizeof(host) - 1);
		struct lttng_view *v = ctx->lttng;
		const struct recording *latest = recordings_latest(ctx->recs, (uid_t)-1);
		const char *active[LTTNG_VIEW_MAX_SESSIONS];
		for (int i = 0; i < v->n_active; i++)
			active[i] = v->active[i];
		struct caret_ctl_daemon_info info = {
			.host = host,
			.pid = getpid(),
			.version = CARETD_VERSION,
			.pacing = pacing_name(ctx->sched->pacing),
			.recording_frequency = ctx->sched->frequency,
			.replay_bandwidth = ctx->sched->bandwidth,
		};
		struct caret_ctl_lttng_info lt = {
			.reachable = v->ok,
			.error = v->ok ? NULL : v->err,
			.active = active,
			.n_active = v->n_active,
			.caretd_session = latest ? latest->name : NULL,
			.caretd_session_path = latest ? latest->path : "",
		};
		o = caret_ctl_enc_agents_result(&info, &lt);
	} else {
		o = caret_ctl_enc_agents_result(NULL, NULL);
	}
	if (o && add_recordings(ctx, o, full) < 0) {
		cJSON_Delete(o);
		return NULL;
	}
	for (struct agent *a = ctx->reg->head; o && a; a = a->next) {
		if (add_agent(o, ctx->reg, a) < 0) {
			cJSON_Delete(o);
			o = NULL;
		}
	}
	return o;
}

static cJSON *cmd_hosts_reply(const struct cmd_ctx *ctx, int64_t now)
{
	struct cmd_hosts_res res;
	struct cmd_err e;
	int r = cmd_hosts(ctx, now, &res, &e);
	if (r < 0)
		return error_reply(r, &e);
	cJSON *o = caret_ctl_enc_result();
	if (!o || caret_ctl_hosts_encode(&res.h, o) < 0) {
		cJSON_Delete(o);
		o = caret_ctl_enc_error(ENOMEM, "out of memory");
	}
	cmd_hosts_free(&res);
	return o;
}

static cJSON *add_broadcast(cJSON *o, const struct cmd_broadcast *b)
{
	if (o && b->asked && caret_ctl_add_broadcast(o, b->ok, b->why[0] ? b->why : NULL) < 0) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static cJSON *enc_stop(const struct cmd_ctx *ctx, const struct cmd_stop_res *res)
{
	struct caret_ctl_channel out[CMD_MAX_CHANNELS];
	for (int i = 0; i < res->n; i++) {
		const struct caret_lttng_chan_stats *c = &res->ch[i];
		out[i] = (struct caret_ctl_channel){ c->name, c->discarded, c->lost_packets,
						     c->discarded_known, c->lost_known };
	}
	cJSON *o = caret_ctl_enc_stop(res->session, res->path, out, (size_t)res->n, res->dups);
	/* a rotating recording's chunks, a flight recorder's snapshots (stop
	 * writes none) */
	if (o && (res->end.err < 0 || caret_ctl_recordings_encode(&res->end.rep, o) < 0)) {
		cJSON_Delete(o);
		return NULL;
	}
	/* loss before the session: init records no cache could hold (B11b) */
	if (o && wait_add_drops(ctx->reg, o, true) < 0) {
		cJSON_Delete(o);
		return NULL;
	}
	return add_broadcast(o, &res->bc);
}

/* A process whose cache is complete when a request arrives is one of the
 * agents that request sees: its inotify event may still be queued behind
 * the request, and an identity written through the mapping raises none
 * (the pending retry finds it up to 50 ms later). Without this, a `record`
 * right after launch counted 0/0 processes and was done before any
 * replay. Segments refused before are skipped unless they changed. */
static bool reads_agents(enum caret_ctl_cmd cmd)
{
	return cmd == CARET_CTL_STATUS || cmd == CARET_CTL_LIST || cmd == CARET_CTL_RECORD ||
	       cmd == CARET_CTL_WAIT || cmd == CARET_CTL_START || cmd == CARET_CTL_EVENTS ||
	       cmd == CARET_CTL_SNAPSHOT || cmd == CARET_CTL_TOP;
}

/* Runs one decoded request and encodes what it returned. Over 80 lines:
 * one case per command, each a few lines; split up, the dispatch would be
 * read in several places. */
static cJSON *dispatch(const struct cmd_ctx *ctx, const struct cmd_peer *peer,
		       const struct caret_ctl_req *q, int64_t now, struct wait_req **wait)
{
	struct cmd_err e = { "" };
	int r = 0;
	if (reads_agents(q->cmd))
		registry_scan(ctx->reg);
	switch (q->cmd) {
	case CARET_CTL_STATUS:
	case CARET_CTL_LIST:
		return cmd_agents(ctx, q->cmd == CARET_CTL_STATUS);
	case CARET_CTL_HOSTS:
		return cmd_hosts_reply(ctx, now);
	case CARET_CTL_RECORD: {
		if (q->u.record.plan) {
			static struct cmd_plan_res plan; /* 10 KiB: not on the stack */
			if ((r = cmd_record_dry_run(ctx, peer, &q->u.record, &plan, &e)) < 0)
				break;
			return caret_ctl_enc_plan(&plan.plan);
		}
		struct cmd_record_res res;
		r = q->u.record.go ? cmd_record_go(ctx, peer, &q->u.record, &res, &e)
				   : cmd_record(ctx, peer, &q->u.record, &res, wait, &e);
		if (r < 0)
			break;
		cJSON *o = *wait ? NULL : add_broadcast(caret_ctl_enc_record(res.session, res.path),
							&res.bc);
		/* its connection holds it from its result on */
		struct wait_req *h = q->u.record.hold
					     ? cmd_hold_record(ctx, peer, res.session, *wait, &o)
					     : NULL;
		if (h)
			*wait = h;
		return h ? NULL : o;
	}
	case CARET_CTL_STOP: {
		static struct cmd_stop_res res; /* 20 KiB: not on the stack */
		if ((r = cmd_stop(ctx, peer, &q->u.stop, &res, &e)) < 0)
			break;
		cJSON *o = enc_stop(ctx, &res);
		recording_end_free(&res.end);
		return o;
	}
	case CARET_CTL_PAUSE:
	case CARET_CTL_RESUME: {
		static struct cmd_pause_res res; /* 4 KiB of path: not on the stack */
		if ((r = cmd_pause(ctx, peer, &q->u.pause, q->cmd == CARET_CTL_RESUME, &res,
				   &e)) < 0)
			break;
		return caret_ctl_enc_pause(res.session, res.path, res.paused);
	}
	case CARET_CTL_HOLD: {
		struct cmd_hold_res res;
		if ((r = cmd_hold(ctx, peer, &q->u.hold, &res, wait, &e)) < 0)
			break;
		return *wait ? NULL : caret_ctl_enc_hold(res.session, false);
	}
	case CARET_CTL_SNAPSHOT:
		if ((r = cmd_snapshot(ctx, peer, &q->u.snapshot, now, wait, &e)) < 0)
			break;
		return NULL;
	case CARET_CTL_WAIT:
		if ((r = cmd_wait(ctx, peer, &q->u.wait, now, wait, &e)) < 0)
			break;
		return NULL;
	case CARET_CTL_START:
	case CARET_CTL_END: {
		struct cmd_accept_res res;
		if ((r = cmd_start_end(ctx, &q->u.startend, now, q->cmd == CARET_CTL_START, &res,
				       &e)) < 0)
			break;
		return add_broadcast(caret_ctl_enc_accept(res.accepted,
							  res.accepted ? NULL : res.reason),
				     &res.bc);
	}
	case CARET_CTL_EVENTS: {
		struct caret_ctl_events_page *page;
		if (!ctx->events)
			r = cmd_fail(&e, ENOSYS, "events are not served here");
		else if ((r = events_request(ctx->events, &q->u.events, &page, e.msg,
					     sizeof(e.msg))) == 0)
			return caret_ctl_events_page_take(page);
		break;
	}
	case CARET_CTL_TOP: {
		struct caret_ctl_top res;
		if ((r = cmd_top(ctx, peer, &q->u.top, now, &res, &e)) < 0)
			break;
		cJSON *o = caret_ctl_enc_top(&res);
		top_result_free(&res);
		return o ? o : error_reply(-ENOMEM, &(struct cmd_err){ "out of memory" });
	}
	default:
		r = cmd_fail(&e, EINVAL, "unknown command");
	}
	return error_reply(r, &e);
}

/* A request queued behind LTTng's start, run once it ended
 * (daemon/server/cmd_queue.h). */
static wait_line *run_queued(const struct cmd_ctx *ctx, const struct cmd_peer *peer,
			     const char *line, int64_t now, struct wait_req **wait)
{
	struct cmd_out out;
	command_run(ctx, peer, line, now, &out);
	*wait = out.wait;
	return out.reply;
}

static struct bridge *no_bridge(void)
{
	static struct bridge off = { .state = "off" };
	return &off;
}

void command_run(const struct cmd_ctx *ctx_in, const struct cmd_peer *peer, const char *line,
		 int64_t now, struct cmd_out *out)
{
	struct cmd_ctx c = *ctx_in;
	if (!c.bridge)
		c.bridge = no_bridge();
	out->reply = NULL;
	out->wait = NULL;
	/* the events request holds 4 KiB of filters: not on the stack */
	static struct caret_ctl_req q;
	struct ctl_why why;
	cJSON *req = cJSON_Parse(line);
	int r = caret_ctl_dec_req(req, &q, &why);
	struct cmd_err e;
	if (r < 0)
		out->reply = caret_ctl_enc_error(r, why.msg);
	else if (!cmd_queue_wanted(&q) || !lttng_start_running(NULL))
		out->reply = dispatch(&c, peer, &q, now, &out->wait);
	else if ((r = cmd_queue_defer(ctx_in, peer, line, run_queued, now, &out->wait, &e)) < 0)
		out->reply = error_reply(r, &e);
	/* one save per command, whatever it changed in the recordings table
	 * (a kill -9 right after the reply finds it as the command left it) */
	if (c.recs)
		recordings_save_changed(c.recs);
	cJSON_Delete(req);
}
