/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/commands.h"
#include "daemon/creds.h"
#include "daemon/log.h"
#include "daemon/pacer.h"
#include "daemon/version.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_enc.h"
#include "proto/caret_ctl_reply.h"

#define MAX_CHANNELS 16

static cJSON *error(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static cJSON *error(int err, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return caret_ctl_enc_error(err, msg);
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
		.state = state_name(st.state),
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
	} else {
		o = caret_ctl_enc_agents_result(NULL, NULL);
	}
	for (struct agent *a = ctx->reg->head; o && a; a = a->next) {
		if (add_agent(o, ctx->reg, a) < 0) {
			cJSON_Delete(o);
			o = NULL;
		}
	}
	return o;
}

/* An optional integer field in [0, max]: 0 when absent (*v untouched), 1
 * when read, -EINVAL with why filled when it is something else. */
static int opt_int(const cJSON *req, const char *k, int64_t max, int64_t *v,
		   struct ctl_why *why)
{
	if (!cJSON_GetObjectItemCaseSensitive(req, k))
		return 0;
	return ctl_get_int(req, NULL, k, 0, max, v, why) < 0 ? -EINVAL : 1;
}

/* Whether the requester may act on what uid owns: root, caretd's own
 * user, and the owner. */
static bool may_act_for(const struct cmd_peer *peer, uid_t owner)
{
	return peer->uid == 0 || peer->uid == geteuid() || peer->uid == owner;
}

static cJSON *cmd_record(const struct cmd_ctx *ctx, const struct cmd_peer *peer,
			 const cJSON *req)
{
	struct caret_lttng_cfg cfg = { 0 };
	struct ctl_why why;
	int64_t sz = 0, cnt = 0, freq = 0;
	const char *pacing_s;
	enum pacing pacing = ctx->sched->pacing;
	if (ctl_get_str(req, NULL, CARET_CTL_K_SESSION, true, &cfg.session, &why) < 0 ||
	    ctl_get_str(req, NULL, CARET_CTL_K_PATH, true, &cfg.path, &why) < 0 ||
	    ctl_get_str(req, NULL, CARET_CTL_K_PACING, true, &pacing_s, &why) < 0 ||
	    opt_int(req, CARET_CTL_K_SUBBUF_SIZE, 1LL << 32, &sz, &why) < 0 ||
	    opt_int(req, CARET_CTL_K_SUBBUF_COUNT, 1 << 20, &cnt, &why) < 0 ||
	    opt_int(req, CARET_CTL_K_RECORDING_FREQUENCY, 100000000, &freq, &why) < 0)
		return error(EINVAL, "%s", why.msg);
	const cJSON *light = cJSON_GetObjectItemCaseSensitive(req, CARET_CTL_K_LIGHT);
	if (light && !cJSON_IsBool(light))
		return error(EINVAL, "light must be true or false");
	cfg.light = cJSON_IsTrue(light);
	if (cJSON_GetObjectItemCaseSensitive(req, CARET_CTL_K_RECORDING_FREQUENCY) && freq == 0)
		return error(EINVAL, "recording_frequency must be a positive integer");
	if (sz > 0 && (sz & (sz - 1)))
		return error(EINVAL, "subbuf_size %lld is not a power of two", (long long)sz);
	if (pacing_s && pacing_parse(pacing_s, &pacing) < 0)
		return error(EINVAL, "pacing must be \"adaptive\" or \"frequency\"");
	if (!cfg.path || cfg.path[0] != '/')
		return error(EINVAL, "path must be an absolute directory");
	cfg.subbuf_size = sz > 0 ? (uint64_t)sz : ctx->subbuf_size ? *ctx->subbuf_size : 0;
	cfg.subbuf_count = cnt > 0 ? (uint32_t)cnt : ctx->subbuf_count ? *ctx->subbuf_count : 0;
	char name[CARET_LTTNG_NAME_MAX], path[4096], err[512];
	int r = caret_lttng_session_name(cfg.session, name, sizeof(name), err, sizeof(err));
	if (r < 0)
		return error(r, "%s", err);
	cfg.session = name;
	/* The requester's own rights decide where the trace may go, not
	 * caretd's (root): the trace directory is created as them (so it is
	 * theirs, and it tells whose the recording is after a caretd
	 * restart), or refused. */
	if (snprintf(path, sizeof(path), "%s/%s", cfg.path, name) >= (int)sizeof(path))
		return error(ENAMETOOLONG, "path too long");
	r = creds_mkdir_as(path, peer->uid, peer->gid, peer->groups, peer->n_groups, err,
			   sizeof(err));
	if (r < 0) {
		log_warn("record refused for uid %d: %s", (int)peer->uid, err);
		return error(r, "refused output path: %s", err);
	}
	r = caret_lttng_record(&cfg, name, sizeof(name), path, sizeof(path), err, sizeof(err));
	if (r < 0) {
		log_err("record failed: %s", err);
		return error(r, "%s", err);
	}
	struct lttng_view *v = ctx->lttng;
	struct lttng_view_rec rec = {
		.uid = peer->uid,
		.gid = peer->gid,
		/* the options of this recording, not of the daemon */
		.pacing = pacing_s ? (int)pacing : -1,
		.frequency = freq > 0 ? (uint32_t)freq : 0,
	};
	snprintf(rec.name, sizeof(rec.name), "%s", name);
	snprintf(rec.path, sizeof(rec.path), "%s", path);
	if (lttng_view_add_rec(v, &rec) < 0)
		log_warn("session %s: too many recordings to remember its owner and options",
			 name);
	log_info("session %s recording to %s for uid %d (pacing %s)", name, path, (int)peer->uid,
		 pacing_name(pacing));
	/* so that a `wait` right after this sees the session, and counts the
	 * agents whose cache it still lacks as not recording */
	lttng_view_refresh(v);
	struct sched_lttng l;
	pacer_sched_lttng(v, caret_now_ns(), &l);
	ctx->reg->want_serial = l.newest;
	return caret_ctl_enc_record(name, path);
}

static cJSON *cmd_wait(const struct cmd_ctx *ctx, const cJSON *req, int64_t now,
		       struct wait_req **wait)
{
	if (ctx->lttng->n_active == 0)
		return error(ENOENT, "no LTTng session is active on this host");
	int64_t t = CARET_CTL_DEFAULT_TIMEOUT_MS;
	struct ctl_why why;
	if (opt_int(req, CARET_CTL_K_TIMEOUT_MS, 24LL * 3600 * 1000, &t, &why) < 0)
		return error(EINVAL, "%s", why.msg);
	*wait = wait_begin(ctx->reg, t, now);
	return *wait ? NULL : error(ENOMEM, "out of memory");
}

/* The session `stop` means when the request names none: the caller's
 * own latest recording, never a session of another user or of the lttng
 * CLI. */
static cJSON *default_session(struct lttng_view *v, const struct cmd_peer *peer,
			      const char **name)
{
	struct lttng_view_rec *r = lttng_view_latest_rec(v, peer->uid);
	if (r) {
		*name = r->name;
		return NULL;
	}
	if (v->n_active == 0)
		return error(ENOENT, "no LTTng session is active on this host");
	char list[1024] = "";
	for (int i = 0; i < v->n_active; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "",
			 v->active[i]);
	return error(ENOENT, "you have no recording started with 'caretctl record'; active "
		     "sessions: %s (name one with -s)", list);
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

static cJSON *cmd_stop(const struct cmd_ctx *ctx, const struct cmd_peer *peer,
		       const cJSON *req)
{
	struct lttng_view *v = ctx->lttng;
	const char *name;
	struct ctl_why why;
	if (ctl_get_str(req, NULL, CARET_CTL_K_SESSION, true, &name, &why) < 0)
		return error(EINVAL, "%s", why.msg);
	if (!name) {
		cJSON *e = default_session(v, peer, &name);
		if (e)
			return e;
	}
	char sname[CARET_LTTNG_NAME_MAX];
	snprintf(sname, sizeof(sname), "%s", name);
	struct lttng_view_rec *rec = lttng_view_find_rec(v, sname);
	struct lttng_view_rec owner = { .uid = geteuid(), .gid = getegid() };
	struct stat st;
	if (rec) {
		owner = *rec;
	} else if (caret_lttng_session_path(sname, owner.path, sizeof(owner.path)) == 0 &&
		   lstat(owner.path, &st) == 0 && S_ISDIR(st.st_mode)) {
		/* not in the table (caretd restarted, or a session of the
		 * lttng CLI): its trace directory's owner owns it */
		owner.uid = st.st_uid;
		owner.gid = st.st_gid;
	}
	if (!may_act_for(peer, owner.uid)) {
		log_warn("uid %d may not stop session %s", (int)peer->uid, sname);
		return error(EPERM, rec || owner.uid != geteuid()
					    ? "session %s is another user's recording (uid %d)"
					    : "session %s was not started by 'caretctl record': only "
					      "root may stop it through caretd",
			     sname, (int)owner.uid);
	}
	struct lttng_view_session *vs = lttng_view_find(v, sname);
	uint64_t dups = vs ? vs->dups : 0;
	struct caret_lttng_chan_stats ch[MAX_CHANNELS];
	char path[4096] = "", err[512];
	int n = caret_lttng_stop(sname, ch, MAX_CHANNELS, path, sizeof(path), err, sizeof(err));
	if (n < 0)
		return error(n, "%s", err);
	if (n > MAX_CHANNELS)
		n = MAX_CHANNELS;
	struct caret_ctl_channel out[MAX_CHANNELS];
	for (int i = 0; i < n; i++) {
		log_losses(sname, &ch[i]);
		out[i] = (struct caret_ctl_channel){ ch[i].name, ch[i].discarded, ch[i].lost_packets,
						     ch[i].discarded_known, ch[i].lost_known };
	}
	log_info("session %s stopped and destroyed; trace in %s%s", sname, path,
		 dups ? " (with duplicated replayed records)" : "");
	/* a trace recorded for someone is theirs to read and delete */
	if (path[0] && owner.uid != geteuid()) {
		int e = creds_chown_tree(path, owner.uid, owner.gid);
		if (e < 0)
			log_warn("session %s: cannot give %s to uid %d: %s", sname, path,
				 (int)owner.uid, strerror(-e));
	}
	lttng_view_drop_rec(v, sname);
	lttng_view_refresh(v);
	return caret_ctl_enc_stop(sname, path, out, (size_t)n, dups);
}

/* Seed 000's Start/End, applied to this host's agents (the multi-host
 * bridge sends the same messages). */
static cJSON *cmd_start_end(const struct cmd_ctx *ctx, bool start, int64_t now)
{
	struct sched_lttng l;
	pacer_sched_lttng(ctx->lttng, now, &l);
	int n = start ? sched_start(ctx->reg, &l, now) : sched_end(ctx->reg, &l);
	bool ok = n >= 0;
	log_info("%s message %s%s", start ? "Start" : "End", ok ? "accepted" : "ignored",
		 ok && n == 0 ? " (no agent to move)" : "");
	return caret_ctl_enc_accept(ok, ok ? NULL
				    : start ? "ignored: no LTTng session is active on this host"
					    : "ignored: an LTTng session is active on this host");
}

static cJSON *dispatch(const struct cmd_ctx *ctx, const struct cmd_peer *peer,
		       const cJSON *req, int64_t now, struct wait_req **wait)
{
	struct ctl_why why;
	int64_t v;
	const char *cmd;
	if (ctl_get_int(req, NULL, CARET_CTL_K_V, INT64_MIN, INT64_MAX, &v, &why) < 0 ||
	    v != CARET_CTL_VERSION)
		return error(EPROTO, "unsupported protocol version (caretd speaks %d)",
			     CARET_CTL_VERSION);
	if (ctl_get_str(req, NULL, CARET_CTL_K_CMD, false, &cmd, &why) < 0)
		return error(EPROTO, "request has no \"cmd\" string");
	if (!strcmp(cmd, CARET_CTL_CMD_STATUS))
		return cmd_agents(ctx, true);
	if (!strcmp(cmd, CARET_CTL_CMD_LIST))
		return cmd_agents(ctx, false);
	if (!strcmp(cmd, CARET_CTL_CMD_RECORD))
		return cmd_record(ctx, peer, req);
	if (!strcmp(cmd, CARET_CTL_CMD_WAIT))
		return cmd_wait(ctx, req, now, wait);
	if (!strcmp(cmd, CARET_CTL_CMD_STOP))
		return cmd_stop(ctx, peer, req);
	if (!strcmp(cmd, CARET_CTL_CMD_START))
		return cmd_start_end(ctx, true, now);
	if (!strcmp(cmd, CARET_CTL_CMD_END))
		return cmd_start_end(ctx, false, now);
	return error(EINVAL, "unknown command \"%.64s\"", cmd);
}

void command_run(const struct cmd_ctx *ctx, const struct cmd_peer *peer, const char *line,
		 int64_t now, struct cmd_out *out)
{
	out->reply = NULL;
	out->wait = NULL;
	cJSON *req = cJSON_Parse(line);
	if (!req || !cJSON_IsObject(req))
		out->reply = error(EPROTO, "request is not a JSON object");
	else
		out->reply = dispatch(ctx, peer, req, now, &out->wait);
	cJSON_Delete(req);
}
