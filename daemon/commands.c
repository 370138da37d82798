/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/commands.h"
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

static int add_agent(cJSON *o, struct agent *a)
{
	struct caret_seg_status st;
	caret_seg_read_status(&a->seg, &st);
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
		const struct lttng_view *v = ctx->lttng;
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
			.caretd_session = v->managed[0] ? v->managed : NULL,
			.caretd_session_path = v->managed_path,
		};
		o = caret_ctl_enc_agents_result(&info, &lt);
	} else {
		o = caret_ctl_enc_agents_result(NULL, NULL);
	}
	for (struct agent *a = ctx->reg->head; o && a; a = a->next) {
		if (add_agent(o, a) < 0) {
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

static cJSON *cmd_record(const struct cmd_ctx *ctx, const cJSON *req)
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
	cfg.subbuf_size = sz > 0 ? (uint64_t)sz : 0;
	cfg.subbuf_count = cnt > 0 ? (uint32_t)cnt : 0;
	char name[CARET_LTTNG_NAME_MAX], path[4096], err[512];
	int r = caret_lttng_record(&cfg, name, sizeof(name), path, sizeof(path), err, sizeof(err));
	if (r < 0) {
		log_err("record failed: %s", err);
		return error(r, "%s", err);
	}
	ctx->sched->pacing = pacing;
	if (freq > 0)
		ctx->sched->frequency = (uint32_t)freq;
	struct lttng_view *v = ctx->lttng;
	snprintf(v->managed, sizeof(v->managed), "%s", name);
	snprintf(v->managed_path, sizeof(v->managed_path), "%s", path);
	log_info("session %s recording to %s (pacing %s)", name, path,
		 pacing_name(ctx->sched->pacing));
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

/* The session `stop` means when the request names none, or an error. */
static cJSON *default_session(const struct lttng_view *v, const char **name)
{
	if (v->managed[0] && lttng_view_is_active(v, v->managed)) {
		*name = v->managed;
		return NULL;
	}
	if (v->n_active == 1) {
		*name = v->active[0];
		return NULL;
	}
	if (v->n_active == 0)
		return error(ENOENT, "no LTTng session is active on this host");
	char list[1024] = "";
	for (int i = 0; i < v->n_active; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "",
			 v->active[i]);
	return error(EINVAL, "several sessions are active (%s): name one", list);
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

static cJSON *cmd_stop(const struct cmd_ctx *ctx, const cJSON *req)
{
	struct lttng_view *v = ctx->lttng;
	const char *name;
	struct ctl_why why;
	if (ctl_get_str(req, NULL, CARET_CTL_K_SESSION, true, &name, &why) < 0)
		return error(EINVAL, "%s", why.msg);
	if (!name) {
		cJSON *e = default_session(v, &name);
		if (e)
			return e;
	}
	char sname[CARET_LTTNG_NAME_MAX];
	snprintf(sname, sizeof(sname), "%s", name);
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
	log_info("session %s stopped and destroyed; trace in %s", sname, path);
	if (strcmp(sname, v->managed) == 0)
		v->managed[0] = '\0';
	lttng_view_refresh(v);
	return caret_ctl_enc_stop(sname, path, out, (size_t)n);
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

static cJSON *dispatch(const struct cmd_ctx *ctx, const cJSON *req, int64_t now,
		       struct wait_req **wait)
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
		return cmd_record(ctx, req);
	if (!strcmp(cmd, CARET_CTL_CMD_WAIT))
		return cmd_wait(ctx, req, now, wait);
	if (!strcmp(cmd, CARET_CTL_CMD_STOP))
		return cmd_stop(ctx, req);
	if (!strcmp(cmd, CARET_CTL_CMD_START))
		return cmd_start_end(ctx, true, now);
	if (!strcmp(cmd, CARET_CTL_CMD_END))
		return cmd_start_end(ctx, false, now);
	return error(EINVAL, "unknown command \"%.64s\"", cmd);
}

void command_run(const struct cmd_ctx *ctx, const char *line, int64_t now, struct cmd_out *out)
{
	out->reply = NULL;
	out->wait = NULL;
	cJSON *req = cJSON_Parse(line);
	if (!req || !cJSON_IsObject(req))
		out->reply = error(EPROTO, "request is not a JSON object");
	else
		out->reply = dispatch(ctx, req, now, &out->wait);
	cJSON_Delete(req);
}
