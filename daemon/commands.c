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
#include "daemon/startend.h"
#include "daemon/pacer.h"
#include "daemon/rotation.h" /* issue 23 */
#include "daemon/version.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_enc.h"
#include "proto/caret_ctl_limits.h"
#include "proto/caret_ctl_rotation.h" /* issue 23 */
#include "proto/caret_ctl_reply.h"
#include "proto/caret_regex.h"

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
		if (o && rotation_add_status(o) < 0) { /* issue 23 */
			cJSON_Delete(o);
			return NULL;
		}
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

/* Whether every process known reports a distribution before Iron (the
 * agent writes the detected one; first letters are alphabetical). */
static bool all_pre_iron(const struct registry *reg)
{
	int n = 0;
	for (const struct agent *a = reg ? reg->head : NULL; a; a = a->next) {
		if (a->dead)
			continue;
		char c = a->seg.id.distribution[0];
		if (c < 'a' || c >= 'i')
			return false;
		n++;
	}
	return n > 0;
}

static int opt_bool(const cJSON *req, const char *k, bool *v)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(req, k);
	*v = cJSON_IsTrue(x);
	return !x || cJSON_IsBool(x) ? 0 : -EINVAL;
}

/* Broadcasts never fail the local action: the reply says what happened. */
static void add_broadcast(const struct cmd_ctx *ctx, cJSON *o, int r, const char *what)
{
	char why[320];
	if (r == 0) {
		log_info("%s broadcast to every host", what);
	} else {
		snprintf(why, sizeof(why), "%s not broadcast: bridge %s", what,
			 ctx->bridge ? ctx->bridge->state : "off");
		log_warn("%s", why);
	}
	caret_ctl_add_broadcast(o, r == 0, r == 0 ? NULL : why);
}

static struct bridge *no_bridge(void)
{
	static struct bridge off = { .state = "off" };
	return &off;
}

/* Whether the requester may act on what uid owns: root, caretd's own
 * user, and the owner. */
static bool may_act_for(const struct cmd_peer *peer, uid_t owner)
{
	return peer->uid == 0 || peer->uid == geteuid() || peer->uid == owner;
}

/* The ros2_caret replay follows from session detection: a `wait` right
 * after a record must see the session, and count the agents whose cache
 * it still lacks as not recording. */
static void record_seen(const struct cmd_ctx *ctx, struct sched_lttng *l)
{
	lttng_view_refresh(ctx->lttng);
	pacer_sched_lttng(ctx->lttng, caret_now_ns(), l);
	ctx->reg->want_serial = l->newest;
}

/* {"go": session}: an armed recording starts recording. */
static cJSON *cmd_go(const struct cmd_ctx *ctx, const struct cmd_peer *peer, const char *name)
{
	struct lttng_view_rec *rec = lttng_view_find_rec(ctx->lttng, name);
	uid_t owner;
	uint32_t after;
	if (!rec && lttng_view_expired(ctx->lttng, name, &owner, &after) &&
	    may_act_for(peer, owner))
		return error(ETIMEDOUT, "armed recording %s expired: not started within %u s "
			     "of arming (caretd --arm-timeout), its session is gone; record again",
			     name, after);
	if (!rec || !rec->armed)
		return error(ENOENT, "no armed recording named %s", name);
	if (!may_act_for(peer, rec->uid))
		return error(EPERM, "recording %s is not yours", name);
	char err[512];
	int r = caret_lttng_go(name, err, sizeof(err));
	if (r < 0) {
		log_err("record %s: %s", name, err);
		return error(r, "%s", err);
	}
	rec->armed = false;
	lttng_view_save(ctx->lttng);
	log_info("session %s: armed recording started", name);
	struct sched_lttng l;
	record_seen(ctx, &l);
	if (rotation_go(rec, err, sizeof(err)) < 0) /* issue 23 */
		log_err("record %s: %s; it records without rotating", name, err);
	return caret_ctl_enc_record(rec->name, rec->path);
}

/* CARET's four filter lists of a record or start request (absent: ""). */
static cJSON *req_filter(const cJSON *req, struct caret_filter_lists *f)
{
	static const char *const keys[CARET_FILTER_LISTS] = {
		[CARET_FILTER_SELECT_NODES] = CARET_CTL_K_SELECT_NODES,
		[CARET_FILTER_IGNORE_NODES] = CARET_CTL_K_IGNORE_NODES,
		[CARET_FILTER_SELECT_TOPICS] = CARET_CTL_K_SELECT_TOPICS,
		[CARET_FILTER_IGNORE_TOPICS] = CARET_CTL_K_IGNORE_TOPICS,
	};
	struct ctl_why why;
	for (int i = 0; i < CARET_FILTER_LISTS; i++)
		if (ctl_get_str(req, NULL, keys[i], true, &f->list[i], &why) < 0)
			return error(EINVAL, "%s", why.msg);
	int r = caret_filter_check(f);
	if (r == -EILSEQ)
		return error(EINVAL, "filters must be UTF-8 without NUL");
	if (r < 0)
		return error(EINVAL, "filters together longer than %u bytes",
			     CARET_SHM_FILTER_TEXT_MAX);
	/* CARET's dialect, refused here with its reason rather than
	 * skipped with a warning on each process's stderr (an empty
	 * recording nobody is told about) */
	for (int i = 0; i < CARET_FILTER_LISTS; i++) {
		char w[256];
		r = caret_re_check_list(f->list[i], w, sizeof(w));
		if (r < 0)
			return error(-r, "%s: %s", keys[i], r == -ENOMEM ? "out of memory" : w);
	}
	return NULL;
}

static cJSON *cmd_record(const struct cmd_ctx *ctx, const struct cmd_peer *peer,
			 const cJSON *req)
{
	const cJSON *go = cJSON_GetObjectItemCaseSensitive(req, CARET_CTL_K_GO);
	if (go) {
		if (!cJSON_IsString(go) || !go->valuestring[0] ||
		    caret_ctl_check_session_name(go->valuestring, NULL, 0) < 0)
			return error(EINVAL, CARET_CTL_K_GO " must be a session name");
		return cmd_go(ctx, peer, go->valuestring);
	}
	struct caret_lttng_cfg cfg = { 0 };
	struct ctl_why why;
	int64_t sz = 0, cnt = 0, freq = 0;
	const char *pacing_s;
	enum pacing pacing = ctx->sched->pacing;
	if (ctl_get_str(req, NULL, CARET_CTL_K_SESSION, true, &cfg.session, &why) < 0 ||
	    ctl_get_str(req, NULL, CARET_CTL_K_PATH, true, &cfg.path, &why) < 0 ||
	    ctl_get_str(req, NULL, CARET_CTL_K_URL, true, &cfg.url, &why) < 0 ||
	    ctl_get_str(req, NULL, CARET_CTL_K_PACING, true, &pacing_s, &why) < 0 ||
	    opt_int(req, CARET_CTL_K_SUBBUF_SIZE, INT64_MAX, &sz, &why) < 0 ||
	    opt_int(req, CARET_CTL_K_SUBBUF_COUNT, INT64_MAX, &cnt, &why) < 0 ||
	    opt_int(req, CARET_CTL_K_RECORDING_FREQUENCY, INT64_MAX, &freq, &why) < 0)
		return error(EINVAL, "%s", why.msg);
	const cJSON *light = cJSON_GetObjectItemCaseSensitive(req, CARET_CTL_K_LIGHT);
	if (light && !cJSON_IsBool(light))
		return error(EINVAL, "light must be true or false");
	cfg.light = cJSON_IsTrue(light);
	cfg.light_pre_iron = all_pre_iron(ctx->reg);
	const cJSON *append = cJSON_GetObjectItemCaseSensitive(req, CARET_CTL_K_APPEND);
	if (append && !cJSON_IsBool(append))
		return error(EINVAL, CARET_CTL_K_APPEND " must be true or false");
	cfg.append = cJSON_IsTrue(append);
	const cJSON *arm = cJSON_GetObjectItemCaseSensitive(req, CARET_CTL_K_ARM);
	if (arm && !cJSON_IsBool(arm))
		return error(EINVAL, CARET_CTL_K_ARM " must be true or false");
	cfg.armed = cJSON_IsTrue(arm);
	/* The limits caretctl checked already (proto/caret_ctl_limits.h): any
	 * client may send this. */
	char lim[160];
	if (cfg.session && caret_ctl_check_session_name(cfg.session, lim, sizeof(lim)) < 0)
		return error(EINVAL, CARET_CTL_K_SESSION " %s", lim);
	if (cJSON_GetObjectItemCaseSensitive(req, CARET_CTL_K_RECORDING_FREQUENCY) &&
	    caret_ctl_check_frequency((uint64_t)freq, lim, sizeof(lim)) < 0)
		return error(EINVAL, CARET_CTL_K_RECORDING_FREQUENCY " %lld %s", (long long)freq,
			     lim);
	if (cJSON_GetObjectItemCaseSensitive(req, CARET_CTL_K_SUBBUF_SIZE) &&
	    caret_ctl_check_subbuf_size((uint64_t)sz, lim, sizeof(lim)) < 0)
		return error(EINVAL, CARET_CTL_K_SUBBUF_SIZE " %lld %s", (long long)sz, lim);
	if (cJSON_GetObjectItemCaseSensitive(req, CARET_CTL_K_SUBBUF_COUNT) &&
	    caret_ctl_check_subbuf_count((uint64_t)cnt, lim, sizeof(lim)) < 0)
		return error(EINVAL, CARET_CTL_K_SUBBUF_COUNT " %lld %s", (long long)cnt, lim);
	if (pacing_s && pacing_parse(pacing_s, &pacing) < 0)
		return error(EINVAL, "pacing must be \"adaptive\" or \"frequency\"");
	bool all_hosts;
	if (opt_bool(req, CARET_CTL_K_ALL_HOSTS, &all_hosts) < 0)
		return error(EINVAL, "all_hosts must be true or false");
	struct rotation_opts rot; /* issue 23 */
	if (rotation_opts_parse(req, &rot, lim, sizeof(lim)) < 0)
		return error(EINVAL, "%s", lim);
	if (rotation_wanted(&rot) && cfg.url)
		return error(EINVAL, "a rotating recording needs a local path, not a URL");
	struct caret_filter_lists filter;
	cJSON *ferr = req_filter(req, &filter);
	if (ferr)
		return ferr;
	/* An armed recording's Start comes at `go`: one with filters or for
	 * every host starts at once (caretctl does not arm those). */
	if (cfg.armed && (all_hosts || !caret_filter_empty(&filter)))
		return error(EINVAL, CARET_CTL_K_ARM " does not go with filters or all_hosts");
	if (!cfg.url && (!cfg.path || cfg.path[0] != '/'))
		return error(EINVAL, "path must be an absolute directory");
	cfg.subbuf_size = sz > 0 ? (uint64_t)sz : ctx->subbuf_size ? *ctx->subbuf_size : 0;
	cfg.subbuf_count = cnt > 0 ? (uint32_t)cnt : ctx->subbuf_count ? *ctx->subbuf_count : 0;
	char name[CARET_LTTNG_NAME_MAX], path[4096], err[512];
	int r;
	if (cfg.url) {
		/* a relay's output is the relay's: only the name is ours */
		r = caret_lttng_session_name(cfg.session, NULL, name, sizeof(name), err,
					     sizeof(err));
		if (r < 0)
			return error(r, "%s", err);
		cfg.session = name;
	}
	/* The requester's own rights decide where the trace may go, not
	 * caretd's (root): the trace directory is created as them (so it is
	 * theirs, and it tells whose the recording is after a caretd
	 * restart), and the session is theirs in the session daemon, which
	 * then writes the trace as them (daemon/lttng.h, cfg.as). */
	struct creds_id as = {
		.uid = peer->uid, .gid = peer->gid, .groups = peer->groups,
		.n_groups = peer->n_groups,
	};
	struct caret_lttng_dir_id dir_id = { 0, 0, false };
	cfg.as = &as;
	cfg.dir_out = &dir_id;
	/* Refused before a session exists: a recording caretd could not
	 * remember would run with no owner that `stop` could find. */
	r = lttng_view_admit(ctx->lttng, peer->uid, cfg.armed, err, sizeof(err));
	if (r < 0) {
		log_warn("record refused for uid %d: %s", (int)peer->uid, err);
		return error(-r, "%s", err);
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
		.subbuf_size = cfg.subbuf_size ? cfg.subbuf_size : CARET_CTL_DEFAULT_SUBBUF_SIZE,
		.subbuf_count = cfg.subbuf_count ? cfg.subbuf_count : CARET_CTL_DEFAULT_SUBBUF_COUNT,
		.armed = cfg.armed,
	};
	/* who to watch while it waits for Enter (lttng_view reaps orphans) */
	if (cfg.armed && peer->pid > 0 && caret_proc_start_time(peer->pid, &rec.armer_start) == 0)
		rec.armer_pid = peer->pid;
	snprintf(rec.name, sizeof(rec.name), "%s", name);
	snprintf(rec.path, sizeof(rec.path), "%s", path);
	rec.dir_dev = dir_id.dev;
	rec.dir_ino = dir_id.ino;
	rec.dir_made = dir_id.made;
	if (cfg.armed)
		rec.armed_ns = caret_now_ns();
	if (lttng_view_add_rec(v, &rec) < 0) {
		/* unremembered, no one could stop it by name of owner (and
		 * an armed one would look active with nothing enabled) */
		struct caret_lttng_chan_stats st;
		caret_lttng_stop(name, &st, 1, NULL, 0, NULL, 0);
		return error(ENOSPC, "too many recordings to remember %s: not started", name);
	}
	r = rotation_begin(lttng_view_find_rec(v, name), &rot, err, sizeof(err)); /* issue 23 */
	if (r < 0) {
		struct caret_lttng_chan_stats st;
		caret_lttng_stop(name, &st, 1, NULL, 0, NULL, 0);
		lttng_view_drop_rec(v, name);
		log_err("record failed: %s", err);
		return error(r, "%s", err);
	}
	log_info("session %s %s to %s for uid %d (pacing %s)", name,
		 cfg.armed ? "armed, will record" : "recording", path, (int)peer->uid,
		 pacing_name(pacing));
	struct sched_lttng l;
	record_seen(ctx, &l);
	if (!caret_filter_empty(&filter)) {
		/* The recording's own Start, now, before the scheduler's next
		 * tick begins the replay without the filter. */
		struct startend_out so;
		startend_start(ctx->reg, &l, freq > 0 ? (uint32_t)freq : 0, &filter,
			       caret_now_ns(), &so);
		log_info("session %s: %d processes replay with the recording's filter, %d "
			 "already recording for another session keep theirs",
			 name, so.filtered, so.ignored);
	}
	cJSON *o = caret_ctl_enc_record(name, path);
	if (o && all_hosts) {
		/* the relay request first: a host must have its session before
		 * the Start can find it active */
		int b = cfg.url ? bridge_send_relay(ctx->bridge, name, cfg.url,
						    freq > 0 ? (uint32_t)freq : 0, false, &filter)
				: 0;
		if (b == 0)
			b = bridge_send_start(ctx->bridge,
					      freq > 0 ? (uint32_t)freq : ctx->sched->frequency,
					      &filter);
		add_broadcast(ctx, o, b, "Start");
	}
	return o;
}

static cJSON *cmd_wait(const struct cmd_ctx *ctx, const cJSON *req, int64_t now,
		       struct wait_req **wait)
{
	if (ctx->lttng->n_active == 0)
		return error(ENOENT, "no LTTng session is active on this host");
	int64_t t = CARET_CTL_DEFAULT_TIMEOUT_MS;
	struct ctl_why why;
	if (opt_int(req, CARET_CTL_K_TIMEOUT_MS, CARET_CTL_TIMEOUT_MAX_MS, &t, &why) < 0)
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
	bool all_hosts;
	if (ctl_get_str(req, NULL, CARET_CTL_K_SESSION, true, &name, &why) < 0)
		return error(EINVAL, "%s", why.msg);
	if (opt_bool(req, CARET_CTL_K_ALL_HOSTS, &all_hosts) < 0)
		return error(EINVAL, "all_hosts must be true or false");
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
	cJSON *rot = rotation_end(sname); /* issue 23 */
	if (n > MAX_CHANNELS)
		n = MAX_CHANNELS;
	struct caret_ctl_channel out[MAX_CHANNELS];
	for (int i = 0; i < n; i++) {
		log_losses(sname, &ch[i]);
		out[i] = (struct caret_ctl_channel){ ch[i].name, ch[i].discarded, ch[i].lost_packets,
						     ch[i].discarded_known, ch[i].lost_known };
	}
	if (rec && rec->armed) {
		/* stopped before Enter: nothing recorded, nothing left */
		lttng_view_unmake(rec);
		log_info("armed recording %s stopped before it started: session destroyed, "
			 "its trace directory removed", sname);
	} else {
		log_info("session %s stopped and destroyed; trace in %s%s", sname, path,
			 dups ? " (with duplicated replayed records)" : "");
	}
	/* a trace recorded for someone is theirs to read and delete */
	if (path[0] && owner.uid != geteuid() && !(rec && rec->armed)) {
		int e = creds_chown_tree(path, owner.uid, owner.gid);
		if (e < 0)
			log_warn("session %s: cannot give %s to uid %d: %s", sname, path,
				 (int)owner.uid, strerror(-e));
	}
	lttng_view_drop_rec(v, sname);
	lttng_view_refresh(v);
	/* loss before the session: init records no cache could hold (B11b) */
	cJSON *o = caret_ctl_enc_stop(sname, path, out, (size_t)n, dups);
	if (o && rot) /* issue 23 */
		cJSON_AddItemToObject(o, CARET_CTL_K_ROTATION, rot);
	else
		cJSON_Delete(rot);
	if (o && wait_add_drops(ctx->reg, o, true) < 0) {
		cJSON_Delete(o);
		return NULL;
	}
	if (o && all_hosts) {
		int b = bridge_send_relay(ctx->bridge, sname, "net://-", 0, true, NULL);
		if (b == 0)
			b = bridge_send_end(ctx->bridge);
		add_broadcast(ctx, o, b, "End");
	}
	return o;
}

static cJSON *cmd_start_end(const struct cmd_ctx *ctx, const cJSON *req, int64_t now,
			    bool start)
{
	bool all_hosts;
	if (opt_bool(req, CARET_CTL_K_ALL_HOSTS, &all_hosts) < 0)
		return error(EINVAL, "all_hosts must be true or false");
	struct caret_filter_lists filter = { { 0 } };
	cJSON *ferr = start ? req_filter(req, &filter) : NULL;
	if (ferr)
		return ferr;
	/* Seed 000's Start/End, applied to this host's agents (the
	 * multi-host bridge applies the same to the messages it gets). */
	struct sched_lttng l;
	pacer_sched_lttng(ctx->lttng, now, &l);
	struct startend_out so;
	if (start)
		startend_start(ctx->reg, &l, 0, &filter, now, &so);
	else
		startend_end(ctx->reg, &l, &so);
	bool ok = !so.reason;
	char why[160];
	snprintf(why, sizeof(why), "ignored: %s", so.reason ? so.reason : "");
	log_info("%s message %s%s", start ? "Start" : "End", ok ? "accepted" : "ignored",
		 ok && so.applied == 0 ? " (no agent to move)" : "");
	cJSON *o = caret_ctl_enc_accept(ok, ok ? NULL : why);
	if (o && all_hosts)
		add_broadcast(ctx, o,
			      start ? bridge_send_start(ctx->bridge, ctx->sched->frequency, &filter)
				    : bridge_send_end(ctx->bridge),
			      start ? "Start" : "End");
	return o;
}

static const char *state8(int8_t s)
{
	return s >= 0 ? caret_state_name((uint32_t)s) : "INVALID";
}

static cJSON *cmd_hosts(const struct cmd_ctx *ctx, int64_t now)
{
	const struct bridge *b = ctx->bridge;
	char me[256] = "";
	gethostname(me, sizeof(me) - 1);
	struct caret_ctl_bridge_counts c = { b->counts.start, b->counts.end, b->counts.status,
					     b->counts.relay, b->counts.rejected, b->counts.sent };
	cJSON *o = caret_ctl_enc_hosts(me, b->state, &c);
	cJSON *h = o ? caret_ctl_add_host(o, me, true, 0) : NULL;
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
		h = caret_ctl_add_host(o, bh->host, false, (now - bh->seen_ns) / 1000000);
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
	return error(ENOMEM, "out of memory");
}

/* A process whose cache is complete when a request arrives is one of the
 * agents that request sees: its inotify event may still be queued behind
 * the request, and an identity written through the mapping raises none
 * (the pending retry finds it up to 50 ms later). Without this, a `record`
 * right after launch counted 0/0 processes and was done before any
 * replay. Segments refused before are skipped unless they changed. */
static bool reads_agents(const char *cmd)
{
	return !strcmp(cmd, CARET_CTL_CMD_STATUS) || !strcmp(cmd, CARET_CTL_CMD_LIST) ||
	       !strcmp(cmd, CARET_CTL_CMD_RECORD) || !strcmp(cmd, CARET_CTL_CMD_WAIT) ||
	       !strcmp(cmd, CARET_CTL_CMD_START) || !strcmp(cmd, CARET_CTL_CMD_EVENTS);
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
	if (reads_agents(cmd))
		registry_scan(ctx->reg);
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
		return cmd_start_end(ctx, req, now, true);
	if (!strcmp(cmd, CARET_CTL_CMD_END))
		return cmd_start_end(ctx, req, now, false);
	if (!strcmp(cmd, CARET_CTL_CMD_HOSTS))
		return cmd_hosts(ctx, now);
	if (!strcmp(cmd, CARET_CTL_CMD_EVENTS))
		return ctx->events ? events_request(ctx->events, req)
				   : error(ENOSYS, "events are not served here");
	return error(EINVAL, "unknown command \"%.64s\"", cmd);
}

void command_run(const struct cmd_ctx *ctx_in, const struct cmd_peer *peer, const char *line,
		 int64_t now, struct cmd_out *out)
{
	struct cmd_ctx c = *ctx_in;
	if (!c.bridge)
		c.bridge = no_bridge();
	const struct cmd_ctx *ctx = &c;
	out->reply = NULL;
	out->wait = NULL;
	cJSON *req = cJSON_Parse(line);
	if (!req || !cJSON_IsObject(req))
		out->reply = error(EPROTO, "request is not a JSON object");
	else
		out->reply = dispatch(ctx, peer, req, now, &out->wait);
	cJSON_Delete(req);
}
