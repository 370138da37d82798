/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/server/commands.h"
#include "daemon/server/cmd_top.h"
#include "daemon/server/top.h"
#include "daemon/base/log.h"
#include "daemon/agents/pacer.h"
#include "daemon/recording/rotation.h"
#include "daemon/recording/snapshot.h"
#include "daemon/recording/snapshot_trigger.h"
#include "proto/caret_version.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_enc.h"
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

static cJSON *cmd_agents(const struct cmd_ctx *ctx, bool full)
{
	cJSON *o;
	if (full) {
		char host[256] = "";
		gethostname(host, sizeof(host) - 1);
		struct lttng_view *v = ctx->lttng;
		const struct lttng_view_rec *latest = lttng_view_latest_rec(v, (uid_t)-1);
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
		/* the rotating recordings, and those caretd ended itself */
		if (o && (rotation_add_status(o) < 0 ||
			  snapshot_add_status(o, v, rotation_is_rotating) < 0 ||
			  snapshot_trigger_add_status(o) < 0)) {
			cJSON_Delete(o);
			return NULL;
		}
	} else {
		o = caret_ctl_enc_agents_result(NULL, NULL);
		/* the recordings and their modes, as status lists them */
		if (o && (snapshot_add_status(o, ctx->lttng, rotation_is_rotating) < 0 ||
			  snapshot_trigger_add_status(o) < 0)) {
			cJSON_Delete(o);
			return NULL;
		}
	}
	for (struct agent *a = ctx->reg->head; o && a; a = a->next) {
		if (add_agent(o, ctx->reg, a) < 0) {
			cJSON_Delete(o);
			o = NULL;
		}
	}
	return o;
}

static const char *state8(int8_t s)
{
	return s >= 0 ? caret_state_name((uint32_t)s) : "INVALID";
}

static cJSON *cmd_hosts(const struct cmd_ctx *ctx, int64_t now)
{
	struct bridge *b = ctx->bridge;
	/* the user asks about the other hosts: a bridge asleep joins them */
	bridge_wake_now(b, "caretctl status --all-hosts");
	char me[256] = "";
	gethostname(me, sizeof(me) - 1);
	struct caret_ctl_bridge_counts c = { b->counts.start, b->counts.end, b->counts.status,
					     b->counts.relay, b->counts.rejected, b->counts.sent,
					     b->counts.foreign };
	cJSON *o = caret_ctl_enc_hosts(me, b->state, bridge_waking(b), &c);
	cJSON *h = o ? caret_ctl_add_host(o, me, true, 0, bridge_version(), false) : NULL;
	if (!h)
		goto oom;
	for (struct agent *a = ctx->reg->head; a; a = a->next) {
		char name[64], nodes[512] = "";
		/* the name alone: the pid has its own field (and column) */
		snprintf(name, sizeof(name), "%s", a->procname);
		int n = agent_node_names(a);
		const char *p = a->nodes;
		for (int i = 0; i < n; i++, p += strlen(p) + 1)
			snprintf(nodes + strlen(nodes), sizeof(nodes) - strlen(nodes), "%s%.128s",
				 i ? "," : "", p);
		uint32_t st = caret_seg_state(&a->seg);
		if (caret_ctl_add_host_proc(h, name, caret_state_name(st), a->pid, nodes) < 0)
			goto oom;
	}
	for (int i = 0; i < b->n_hosts; i++) {
		const struct bridge_host *bh = &b->hosts[i];
		h = caret_ctl_add_host(o, bh->host, false, (now - bh->seen_ns) / 1000000, bh->version,
				       bh->version && bh->version != bridge_version());
		if (!h)
			goto oom;
		for (int j = 0; j < b->n_procs; j++) {
			const struct bridge_proc *p = &b->procs[j];
			if (strcmp(p->host, bh->host))
				continue;
			if (caret_ctl_add_host_proc(h, p->name, state8(p->status), p->pid,
						    p->nodes) < 0)
				goto oom;
		}
	}
	return o;
oom:
	cJSON_Delete(o);
	return caret_ctl_enc_error(ENOMEM, "out of memory");
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
	if (o && res->rotation) {
		cJSON *rot = rotation_report_enc(res->rotation);
		if (!rot || !cJSON_AddItemToObject(o, CARET_CTL_K_ROTATION, rot)) {
			cJSON_Delete(rot);
			cJSON_Delete(o);
			return NULL;
		}
	}
	/* a flight recorder's snapshots (stop writes none) */
	if (o && snapshot_add_stop(o, res->session) < 0) {
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

/* Runs one decoded request and encodes what it returned. */
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
		return cmd_hosts(ctx, now);
	case CARET_CTL_RECORD: {
		if (q->u.record.plan) {
			static struct cmd_plan_res plan; /* 10 KiB: not on the stack */
			if ((r = cmd_plan(ctx, peer, &q->u.record, &plan, &e)) < 0)
				break;
			return caret_ctl_enc_plan(&plan.plan);
		}
		struct cmd_record_res res;
		if ((r = cmd_record(ctx, peer, &q->u.record, &res, &e)) < 0)
			break;
		return add_broadcast(caret_ctl_enc_record(res.session, res.path), &res.bc);
	}
	case CARET_CTL_STOP: {
		static struct cmd_stop_res res; /* 20 KiB: not on the stack */
		if ((r = cmd_stop(ctx, peer, &q->u.stop, &res, &e)) < 0)
			break;
		/* a snapshot session has no output of its own: its snapshots
		 * are in the trace directory */
		struct snapshot_info si;
		snapshot_info(res.session, &si);
		if (si.known && !res.path[0])
			snprintf(res.path, sizeof(res.path), "%s", si.path);
		cJSON *o = enc_stop(ctx, &res);
		rotation_report_free(res.rotation);
		snapshot_trigger_end(res.session);
		snapshot_forget(res.session);
		return o;
	}
	case CARET_CTL_SNAPSHOT:
		if ((r = cmd_snapshot(ctx, peer, &q->u.snapshot, now, wait, &e)) < 0)
			break;
		return NULL;
	case CARET_CTL_WAIT:
		if ((r = cmd_wait(ctx, &q->u.wait, now, wait, &e)) < 0)
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
		cJSON *o;
		if (!ctx->events)
			r = cmd_fail(&e, ENOSYS, "events are not served here");
		else if ((r = events_request(ctx->events, &q->u.events, &o, e.msg,
					     sizeof(e.msg))) == 0)
			return o;
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
	if (r < 0)
		out->reply = caret_ctl_enc_error(r, why.msg);
	else
		out->reply = dispatch(&c, peer, &q, now, &out->wait);
	cJSON_Delete(req);
}
