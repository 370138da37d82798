/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `record`: what the request asks (read by proto/caret_ctl_req.c), turned
 * into an LTTng session configuration (record_plan), created through the
 * ops table and remembered as the requester's (record_act), with the
 * recording's own Start when it has filters (record_started, also what an
 * armed one's {"go"} does once enabled: cmd_record_go.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "daemon/server/cmd.h"
#include "daemon/server/cmd_record_start.h"
#include "daemon/lttng/lttng_start.h"
#include "daemon/base/log.h"
#include "daemon/agents/pacer.h"
#include "daemon/recording/recordings_make.h"
#include "daemon/recording/simclock.h"
#include "daemon/recording/snapshot.h"
#include "daemon/agents/startend.h"
#include "proto/caret_ctl_rotation.h"

/* The session just made or started, in the view now (the pacer replays
 * into it at its next tick): a `wait` right after a record must see the
 * session, and count the agents whose cache it still lacks as not
 * recording. */
static void session_seen(const struct cmd_ctx *ctx, const char *session, struct sched_lttng *l)
{
	lttng_view_session_started(ctx->lttng, session);
	pacer_sched_lttng(ctx->lttng, caret_now_ns(), l);
	sched_scope_agents(ctx->reg, l);
}

/*
 * A recording made or entered: the view sees its session, and, for
 * --all-hosts, the bridge is awake (now, not at Enter: an armed
 * recording's Start then finds the other hosts joined: bridge.h,
 * BRIDGE_SETTLE_NS). An armed one waits for its `go`. One that records
 * now (at once, or at its `go`) has, with a filter, its own Start for the
 * agents in WAIT (seed 000's Start; the scheduler gives the filter to
 * every later pass for it alone too: agents found later, and those that
 * record for an older session). With --all-hosts, the same Start to every host (after the
 * relay request of a recording to a relay: a host must have its session
 * before the Start can find it active).
 */
static void record_started(const struct cmd_ctx *ctx, const struct recording *rec,
			   const char *url, struct cmd_record_res *res)
{
	struct sched_lttng l;
	session_seen(ctx, rec->name, &l);
	/* once awake, no more than a look at the bridge's state */
	if (rec->all_hosts && ctx->bridge)
		bridge_wake_now(ctx->bridge, "caretctl record --all-hosts");
	if (rec->armed)
		return; /* its Start at `go` */
	bool filtered = recording_filtered(rec);
	if (filtered) {
		struct startend_out so;
		startend_start_encoded(ctx->scheduler, ctx->reg, &l, rec->frequency, &rec->filter,
				       &so);
		log_info("session %s: %d processes replay with the recording's filter, %d "
			 "already recording for another session keep theirs", rec->name,
			 so.filtered, so.ignored);
	}
	if (!rec->all_hosts)
		return;
	/* the other hosts get the lists (bridge_msg.h) */
	struct caret_filter_text ft;
	const struct caret_filter_lists *f =
		filtered && caret_filter_decode(&rec->filter, &ft) == 0 ? &ft.f : NULL;
	int b = bridge_send_record_start(ctx->bridge, rec->name, url, rec->frequency,
					 rec->frequency ? rec->frequency : ctx->sched->frequency, f);
	cmd_broadcast_done(ctx, &res->bc, b, "Start");
}

/* What a plan reads of the house now: the view, and each live process's
 * segment status once. */
struct plan_now {
	/* each process reports a distribution before Iron (the agent writes
	 * the detected one; first letters are alphabetical) */
	bool pre_iron;
	/* An armed recording may start with its channel enabled
	 * (caret_lttng_cfg.armed_open): no session is active, so every
	 * process with the agent is in WAIT, forwarding nothing, and caretd
	 * moves none out of WAIT before recordings_hold_armed() closed it. A
	 * process still leaving PREPARE or RECORD (a session that just ended)
	 * would emit into it: then it is armed as before. */
	bool arm_open;
	uint64_t pass_bytes; /* a replay pass of their caches (snapshot.h) */
};

static void read_now(const struct cmd_ctx *ctx, struct plan_now *out)
{
	bool pre_iron = true, waiting = true;
	int n = 0;
	out->pass_bytes = 0;
	for (const struct agent *a = ctx->reg ? ctx->reg->head : NULL; a; a = a->next) {
		if (a->dead)
			continue;
		struct caret_seg_status st;
		caret_seg_read_status(&a->seg, &st);
		char c = a->seg.id.distribution[0];
		pre_iron = pre_iron && c >= 'a' && c < 'i';
		waiting = waiting &&
			  (st.state == CARET_STATE_WAIT || st.state == CARET_STATE_UNINITIALIZED);
		out->pass_bytes = snapshot_pass_add(out->pass_bytes, &st);
		n++;
	}
	out->pre_iron = pre_iron && n > 0;
	const struct lttng_view *v = ctx->lttng;
	/* a -c helper emits sim_time into every session that enables it */
	out->arm_open = waiting && v->ok && v->polled && v->n_active == 0 && !simclock_running();
}

int cmd_record_plan(const struct cmd_ctx *ctx, const struct cmd_peer *peer,
		    const struct caret_ctl_record_req *q, struct record_plan *p, struct cmd_err *e)
{
	memset(p, 0, sizeof(*p));
	struct plan_now now;
	read_now(ctx, &now);
	p->pacing = ctx->sched->pacing;
	p->own_pacing = q->pacing != NULL;
	if (q->pacing && pacing_parse(q->pacing, &p->pacing) < 0)
		return cmd_fail(e, EINVAL, "pacing must be \"adaptive\" or \"frequency\"");
	int r = cmd_filter(q->filter, &p->filter, e);
	if (r < 0)
		return r;
	struct caret_lttng_cfg *cfg = &p->cfg;
	cfg->session = q->session;
	cfg->path = q->path;
	cfg->url = q->url;
	cfg->light = q->light;
	cfg->light_pre_iron = now.pre_iron;
	cfg->append = q->append;
	cfg->armed = q->arm;
	p->all_hosts = q->all_hosts;
	cfg->sel = &q->sel; /* ros2 trace's selection (proto/caret_ctl_sel.h) */
	/* -c: its helper emits from the arming on (simclock.h) */
	cfg->armed_open = q->arm && !q->record_clock && now.arm_open;
	p->freq = (uint32_t)q->frequency;
	rotation_opts_of(q, &p->rot);
	cfg->subbuf_size = q->subbuf_size ? q->subbuf_size
			   : ctx->subbuf_size ? *ctx->subbuf_size : 0;
	cfg->subbuf_count = q->subbuf_count ? (uint32_t)q->subbuf_count
			    : ctx->subbuf_count ? *ctx->subbuf_count : 0;
	/* here, not in caretctl: the sub-buffer size may be caretd's own
	 * default (its configuration), which caretctl does not know */
	if ((r = caret_ctl_check_rotate_size_subbuf(p->rot.size, cfg->subbuf_size ? cfg->subbuf_size
						    : CARET_CTL_DEFAULT_SUBBUF_SIZE, e->msg,
						    sizeof(e->msg))) < 0)
		return r;
	/* a ring the host's memory cannot spare is refused too, naming the
	 * sizes it can (daemon/recording/snapshot_mem.h) */
	if (q->snapshot_size &&
	    (r = snapshot_admit(ctx->reg, ctx->recs, peer->uid, now.pass_bytes, q->snapshot_size,
				cfg, e->msg, sizeof(e->msg))) < 0)
		return r;
	if (cfg->url) {
		/* a relay's output is the relay's: only the name is ours */
		r = ctx->ops->session_name(cfg->session, NULL, p->name,
							     sizeof(p->name), e->msg,
							     sizeof(e->msg));
		if (r < 0)
			return r;
		cfg->session = p->name;
	}
	/* The requester's own rights decide where the trace may go, not
	 * caretd's (root): the trace directory is created as them (so it is
	 * theirs, and it tells whose the recording is after a caretd
	 * restart), and the session is theirs in the session daemon, which
	 * then writes the trace as them (lib/lttng/session.h, cfg.as). */
	p->as = (struct creds_id){ .uid = peer->uid, .gid = peer->gid, .groups = peer->groups,
				   .n_groups = peer->n_groups };
	cfg->as = &p->as;
	cfg->dir_out = &p->dir_id;
	return 0;
}

/* The recording as the table remembers it: for whom, with which options
 * (each feature's own included); its session, path and directory are
 * LTTng's answer (recordings_make_finish). */
static void record_remember(const struct cmd_peer *peer, const struct caret_ctl_record_req *q,
			    const struct record_plan *p, struct recording *rec)
{
	memset(rec, 0, sizeof(*rec));
	rec->uid = peer->uid;
	rec->gid = peer->gid;
	/* the options of this recording, not of the daemon */
	rec->pacing = p->own_pacing ? (int)p->pacing : -1;
	rec->frequency = p->freq;
	rec->subbuf_size = p->cfg.subbuf_size ? p->cfg.subbuf_size : CARET_CTL_DEFAULT_SUBBUF_SIZE;
	rec->subbuf_count = p->cfg.subbuf_count ? p->cfg.subbuf_count
						: CARET_CTL_DEFAULT_SUBBUF_COUNT;
	rec->armed = p->cfg.armed;
	rec->armed_open = p->cfg.armed_open;
	/* at once, its Start goes now; armed, at `go` */
	rec->all_hosts = p->all_hosts;
	/* who to watch while it waits for Enter (recordings.c reaps orphans) */
	if (p->cfg.armed && peer->pid > 0 &&
	    caret_proc_start_time(peer->pid, &rec->armer_start) == 0)
		rec->armer_pid = peer->pid;
	/* checked by cmd_filter: it fits a block */
	caret_filter_encode(&p->filter, &rec->filter);
	if (p->cfg.armed)
		rec->armed_ns = caret_now_ns();
	/* each feature's options, begun by recording_begin */
	rec->rot.o = p->rot;
	rec->ring.on = p->cfg.snapshot;
	if (q->snapshot_on) {
		rec->trig.wanted = true;
		snprintf(rec->trig.event, sizeof(rec->trig.event), "%s", q->snapshot_on);
		snprintf(rec->trig.filter, sizeof(rec->trig.filter), "%s",
			 q->snapshot_filter ? q->snapshot_filter : "");
	}
	rec->clock.wanted = q->record_clock;
	rec->clock.domain = q->clock_domain;
}

void cmd_record_started(const struct cmd_ctx *ctx, const struct recording *rec,
			const char *url, struct cmd_record_res *res)
{
	snprintf(res->session, sizeof(res->session), "%s", rec->name);
	snprintf(res->path, sizeof(res->path), "%s", rec->path);
	record_started(ctx, rec, url, res);
}

/* A recording made, in line or at its start's end (cmd_record_start.h). */
static void record_made(const struct cmd_ctx *ctx, const struct record_plan *p,
			const struct recording *rec, struct cmd_record_res *res)
{
	log_info("session %s %s to %s for uid %d (pacing %s)", rec->name,
		 p->cfg.armed_open ? "armed open (channel enabled, the agents' gate closed), will record"
		 : p->cfg.armed ? "armed, will record" : "recording", rec->path, (int)rec->uid,
		 pacing_name(p->pacing));
	cmd_record_started(ctx, rec, p->cfg.url, res);
}

static int record_act(const struct cmd_ctx *ctx, const struct cmd_peer *peer,
		      const struct caret_ctl_record_req *q, struct cmd_record_res *res,
		      struct wait_req **wait, struct cmd_err *e)
{
	struct record_plan p;
	int r = cmd_record_plan(ctx, peer, q, &p, e);
	if (r < 0)
		return r;
	static struct recording made; /* 19 KiB: not on the stack */
	record_remember(peer, q, &p, &made);
	if ((r = recordings_make_admit(ctx->recs, &made, e->msg, sizeof(e->msg))) < 0)
		return r;
	if (wait && lttng_start_async(ctx->lttng)) {
		/* LTTng starts it off the loop: the rest at its end */
		if ((r = record_start_begin(ctx, &p, &made, record_made, wait, e)) == 0)
			return 0;
	} else {
		r = ctx->ops->record(&p.cfg, made.name, sizeof(made.name), made.path,
				     sizeof(made.path), e->msg, sizeof(e->msg));
	}
	/* r: the session made in line, or its start refused */
	struct recording *rec;
	if ((r = recordings_make_finish(ctx->recs, ctx->ops, &p.cfg, &made, r, &rec, e->msg,
					sizeof(e->msg))) < 0)
		return r;
	record_made(ctx, &p, rec, res);
	return 0;
}

int cmd_record(const struct cmd_ctx *ctx, const struct cmd_peer *peer,
	       const struct caret_ctl_record_req *q, struct cmd_record_res *res,
	       struct wait_req **wait, struct cmd_err *e)
{
	memset(res, 0, sizeof(*res));
	return record_act(ctx, peer, q, res, wait, e);
}
