/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The relay session other hosts may ask for (rt/caretd/relay_record, with
 * --accept-relay): created and stopped through the LTTng view's ops table
 * and told to the view (lttng_view_session_started/_ended), as commands
 * do; bounded in time here and in size by a session daemon trigger.
 *
 * Made as a local `record`'s session is (daemon/lttng/lttng_start.h): by
 * caretd's start helper, off the loop, since with many processes LTTng's
 * start takes seconds to minutes and the loop would answer nothing
 * meanwhile; behind a start already under way; asked again (bounded)
 * when the helper refuses it for having died a moment ago, where a local
 * record's caretctl asks again. Its stop during a start
 * waits for that start's end (lttng_start_after) for the same reason. A
 * fake LTTng (unit tests) or no helper: in line, as before.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/bridge/bridge_msg.h"
#include "daemon/bridge/bridge_relay.h"
#include "daemon/base/log.h"
#include "lib/lttng/lttng_limit.h"
#include "daemon/agents/pacer.h"
#include "daemon/agents/startend.h"
#include "daemon/lttng/lttng_start.h"
#include "util/caret_util.h"

/* Relay sessions begin at most this often: each costs LTTng a session
 * and every process a replay. */
#define RELAY_GAP_NS (2LL * 1000000000)
/* A relay start the start helper refused because it died a moment ago
 * (EAGAIN: lttng_start.c starts it again a second after its last start)
 * is asked again this much later, as caretctl asks a local record's
 * again (tools/caretctl/record_start.c), at most RELAY_RETRIES times
 * (5 s): a peer's recording is not lost to a helper's restart. */
#define RELAY_RETRY_NS (500LL * 1000000)
#define RELAY_RETRIES 10

static const struct bridge_limit_ops limit_real = {
	.size = caret_lttng_limit_size,
	.remove = caret_lttng_limit_remove,
	.remove_all = caret_lttng_limit_remove_all,
};

static const struct bridge_limit_ops *limit_ops(const struct bridge *b)
{
	return b->limit ? b->limit : &limit_real;
}

/* The relay session stopped and destroyed, in line (no start runs). */
static void stop_now(struct bridge *b, const char *name)
{
	struct caret_lttng_chan_stats ch[16];
	char path[1024], err[512];
	int n = lttng_view_ops(b->lttng)->stop(name, ch, 16, path, sizeof(path), err, sizeof(err));
	if (n < 0) {
		bridge_rlog_warn(b, "bridge: stopping relay session %s: %s", name, err);
	} else {
		for (int i = 0; i < n && i < 16; i++)
			bridge_rlog_info(b, "bridge: relay session %s channel %s: %s%llu events discarded",
					 name, ch[i].name, ch[i].discarded_known ? "" : "unknown ",
					 (unsigned long long)ch[i].discarded);
		bridge_rlog_info(b, "bridge: relay session %s stopped and destroyed", name);
	}
	limit_ops(b)->remove(name);
	lttng_view_session_ended(b->lttng, name);
}

/* A stop waiting for LTTng's start of another session to end. */
struct relay_stop {
	struct bridge *b;
	char name[sizeof(((struct bridge *)0)->relay_session)];
};

/* run false: caretd exits, its start helper done with the start (or given
 * up on it). Stopped all the same: a relay session left would stream to
 * the relay for no one until its size bound, and no later caretd knows it. */
static void stop_after_start(void *arg, bool run)
{
	struct relay_stop *s = arg;
	(void)run;
	stop_now(s->b, s->name);
	free(s);
}

void bridge_relay_stop(struct bridge *b, const char *why)
{
	if (why)
		log_warn("bridge: relay session %s: %s; stopping it", b->relay_session, why);
	struct relay_stop *s = lttng_start_running(NULL) ? malloc(sizeof(*s)) : NULL;
	if (s) {
		/* LTTng answers no one until its start ends: the loop would
		 * stall that long */
		*s = (struct relay_stop){ .b = b };
		snprintf(s->name, sizeof(s->name), "%s", b->relay_session);
		if (lttng_start_after(stop_after_start, s) == 0) {
			bridge_rlog_info(b, "bridge: relay session %s is stopped once LTTng's start "
					 "of another session ended", s->name);
			b->relay_session[0] = '\0';
			return;
		}
		free(s);
	}
	stop_now(b, b->relay_session);
	b->relay_session[0] = '\0';
}

static uint32_t relay_max_s(const struct bridge *b)
{
	return b->cfg.relay_max_s ? b->cfg.relay_max_s : BRIDGE_RELAY_MAX_SECONDS;
}

static uint64_t relay_max_bytes(const struct bridge *b)
{
	return b->cfg.relay_max_bytes ? b->cfg.relay_max_bytes : BRIDGE_RELAY_MAX_BYTES;
}

static void relay_retry(struct bridge *b, int64_t now);

/* A relay session ends by itself (B16b): after its time bound, and once
 * its size bound stopped it (the session daemon's trigger). */
void bridge_relay_check(struct bridge *b, int64_t now)
{
	relay_retry(b, now);
	if (!b->relay_session[0])
		return;
	if (now - b->relay_since_ns >= (int64_t)relay_max_s(b) * 1000000000LL) {
		char why[128];
		snprintf(why, sizeof(why), "its time bound of %u s is reached", relay_max_s(b));
		bridge_relay_stop(b, why);
	} else if (b->lttng->ok && b->lttng->polled &&
		   !lttng_view_is_active(b->lttng, b->relay_session)) {
		char why[160];
		snprintf(why, sizeof(why), "no longer tracing (its size bound of %llu bytes is "
			 "reached, or someone stopped it)", (unsigned long long)relay_max_bytes(b));
		bridge_relay_stop(b, why);
	}
}

/* The session made (in line or by the start helper): bounded, told to
 * the view, the recording's Start posted. */
static void relay_made(struct bridge *b, const char *name, const char *out, const char *from,
		       const struct caret_filter_lists *f)
{
	char err[512];
	snprintf(b->relay_session, sizeof(b->relay_session), "%s", name);
	b->relay_since_ns = caret_now_ns();
	/* No session without its size bound: one that cannot be bounded is
	 * destroyed at once. */
	if (limit_ops(b)->size(name, relay_max_bytes(b), err, sizeof(err)) < 0) {
		bridge_relay_stop(b, err);
		return;
	}
	bridge_rlog_info(b, "bridge: relay_record from %s: session %s streaming to %s (for at most %u s "
			 "and %llu bytes)", from, name, out, relay_max_s(b),
			 (unsigned long long)relay_max_bytes(b));
	lttng_view_session_started(b->lttng, name);
	/* The recording's Start, posted here and now rather than by the
	 * Start sample that follows: the scheduler's next tick applies it
	 * before it begins any replay into the new session, which would
	 * otherwise go without the recording's filter. Frequency 0: this
	 * daemon paces with its own settings. */
	struct startend_out o;
	struct sched_lttng l;
	int64_t now = caret_now_ns();
	pacer_sched_lttng(b->lttng, now, &l);
	startend_start(b->sched, b->reg, &l, 0, f, &o);
	char ft[1024];
	bridge_msg_filter_text(f, ft, sizeof(ft));
	if (*ft)
		bridge_rlog_info(b, "bridge: relay session %s: %d processes replay with filter %s", name,
				 o.filtered, ft);
}

/* A relay session being made by the start helper, from its request to its
 * start's end (queued first behind a start under way). */
struct bridge_relay_job {
	struct bridge *b;
	char from[BRIDGE_HOST_MAX];
	char session[BRIDGE_MSG_MAX_SESSION + 1];
	char url[BRIDGE_MSG_MAX_URL + 1];
	struct caret_shm_filter filter; /* the request's lists, which its sample held */
	bool begun;     /* the helper makes it */
	bool cancelled; /* its stop came meanwhile, or caretd exits */
	unsigned tries;   /* refused with EAGAIN so far */
	int64_t retry_ns; /* asked again then; 0: not waiting for that */
};

static void job_started(void *arg, const struct lttng_start_result *res)
{
	struct bridge_relay_job *j = arg;
	struct bridge *b = j->b;
	b->relay_job = NULL;
	int64_t ms = (caret_now_ns() - b->relay_try_ns) / 1000000;
	if (res->r < 0) {
		/* -ECANCELED: caretd exits, the helper or caretd stopped it */
		if (res->r != -ECANCELED)
			bridge_rlog_warn(b, "bridge: relay_record %s from %s: %s", j->session, j->from,
					 res->err);
	} else if (j->cancelled) {
		if (!res->stopped) {
			struct caret_lttng_chan_stats st;
			lttng_view_ops(b->lttng)->stop(res->name, &st, 1, NULL, 0, NULL, 0);
		}
		bridge_rlog_info(b, "bridge: relay session %s: its stop came during its start "
				 "(%lld ms): stopped and destroyed", res->name, (long long)ms);
	} else {
		struct caret_filter_text ft;
		if (caret_filter_decode(&j->filter, &ft) < 0)
			memset(&ft, 0, sizeof(ft)); /* encoded by relay_ask: cannot be */
		bridge_rlog_info(b, "bridge: relay session %s: LTTng started it in %lld ms",
				 res->name, (long long)ms);
		relay_made(b, res->name, res->path, j->from, &ft.f);
	}
	free(j);
}

/* run: no other start runs (now, or once it ended); false: caretd exits. */
static void job_begin(void *arg, bool run)
{
	struct bridge_relay_job *j = arg;
	struct bridge *b = j->b;
	char err[512];
	/* Network output only: check_url in lttng.c refuses anything LTTng
	 * would take for a local path. Made with caretd's own rights. */
	struct caret_lttng_cfg cfg = { .session = j->session, .url = j->url };
	int r = run && !j->cancelled ? lttng_start_begin(b->lttng, &cfg, job_started, j, err,
							 sizeof(err))
				     : -ECANCELED;
	/* no start runs (run): the helper died a moment ago */
	if (r == -EAGAIN && j->tries < RELAY_RETRIES) {
		j->tries++;
		j->retry_ns = caret_now_ns() + RELAY_RETRY_NS;
		bridge_rlog_info(b, "bridge: relay_record %s from %s: %s; asked again in %lld ms",
				 j->session, j->from, err, RELAY_RETRY_NS / 1000000);
		return;
	}
	if (r < 0) {
		if (r != -ECANCELED)
			bridge_rlog_warn(b, "bridge: relay_record %s from %s: %s", j->session, j->from,
					 err);
		b->relay_job = NULL;
		free(j);
		return;
	}
	j->begun = true;
	bridge_rlog_info(b, "bridge: relay_record %s from %s: LTTng is starting its session",
			 j->session, j->from);
}

/* A relay start refused for a while (job_begin), asked again once its
 * time came: queued behind a start under way, if one is. */
static void relay_retry(struct bridge *b, int64_t now)
{
	struct bridge_relay_job *j = b->relay_job;
	if (!j || !j->retry_ns || now < j->retry_ns)
		return;
	j->retry_ns = 0;
	if (lttng_start_after(job_begin, j) < 0) {
		bridge_rlog_warn(b, "bridge: relay_record %s from %s: out of memory", j->session,
				 j->from);
		b->relay_job = NULL;
		free(j);
	}
}

/* The session asked of the start helper: 0, or -errno (logged). */
static int relay_ask(struct bridge *b, const caretd_msgs_msg_dds__RelayRecord_ *m,
		     const struct caret_filter_lists *f, const char *from)
{
	struct bridge_relay_job *j = calloc(1, sizeof(*j));
	if (!j)
		return log_err_errno(-ENOMEM, "bridge: relay_record from %s: out of memory", from);
	j->b = b;
	snprintf(j->from, sizeof(j->from), "%s", from);
	snprintf(j->session, sizeof(j->session), "%s", m->session_name);
	snprintf(j->url, sizeof(j->url), "%s", m->url);
	caret_filter_encode(f, &j->filter); /* checked by bridge_msg_relay: it fits */
	b->relay_job = j;
	if (lttng_start_running(NULL))
		bridge_rlog_info(b, "bridge: relay_record %s from %s: its session is started once "
				 "LTTng's start of another one ended", j->session, from);
	int r = lttng_start_after(job_begin, j);
	if (r < 0) {
		b->relay_job = NULL;
		free(j);
		return log_err_errno(r, "bridge: relay_record from %s: out of memory", from);
	}
	return 0;
}

/* A stop for the session being started: the helper stops it once made. */
static void relay_cancel(struct bridge *b)
{
	struct bridge_relay_job *j = b->relay_job;
	if (!j || j->cancelled)
		return;
	if (j->retry_ns) { /* nothing but the bridge holds it */
		b->relay_job = NULL;
		free(j);
		return;
	}
	j->cancelled = true;
	if (j->begun)
		lttng_start_cancel();
}

void bridge_relay_close(struct bridge *b)
{
	relay_cancel(b);
	if (b->relay_session[0])
		bridge_relay_stop(b, NULL);
}

void bridge_relay_request(struct bridge *b, const caretd_msgs_msg_dds__RelayRecord_ *m,
			  const char *from)
{
	b->counts.relay++;
	struct caret_filter_lists f;
	const char *bad = bridge_msg_relay(m, &f);
	if (bad)
		return bridge_reject(b, "relay_record", bad);
	if (!b->cfg.accept_relay) {
		bridge_rlog_info(b, "bridge: relay_record from %s ignored (caretd runs without "
				 "--accept-relay)", from);
		return;
	}
	if (m->stop) {
		if (b->relay_session[0] && !strcmp(b->relay_session, m->session_name))
			bridge_relay_stop(b, NULL);
		else if (b->relay_job && !strcmp(b->relay_job->session, m->session_name)) {
			bridge_rlog_info(b, "bridge: relay session %s: its stop came during its start: "
					 "%s", m->session_name, b->relay_job->begun ? "stopped once made"
					 : "not made");
			relay_cancel(b);
		}
		return;
	}
	char host[BRIDGE_RELAY_HOST_MAX + 1];
	if (!bridge_msg_relay_allowed(b->cfg.relay_allow, m->url, host, sizeof(host))) {
		b->counts.rejected++;
		bridge_rlog_warn(b, "bridge: relay_record %s from %s refused: relay host \"%s\" is not in "
				 "--relay-allow (%s)", m->session_name, from, host,
				 b->cfg.relay_allow ? b->cfg.relay_allow : "none given: no relay is allowed");
		return;
	}
	if (b->relay_session[0] || b->relay_job) {
		bridge_rlog_warn(b, "bridge: relay_record %s from %s ignored: relay session %s still %s",
				 m->session_name, from,
				 b->relay_job ? b->relay_job->session : b->relay_session,
				 b->relay_job ? "starts" : "runs");
		return;
	}
	if (b->relay_try_ns && caret_now_ns() - b->relay_try_ns < RELAY_GAP_NS) {
		bridge_rlog_warn(b, "bridge: relay_record %s from %s ignored: the previous one came less "
				 "than %lld s ago", m->session_name, from, RELAY_GAP_NS / 1000000000);
		return;
	}
	b->relay_try_ns = caret_now_ns();
	if (lttng_start_async(b->lttng)) {
		(void)relay_ask(b, m, &f, from);
		return;
	}
	/* Network output only: check_url in lttng.c refuses anything LTTng
	 * would take for a local path. */
	struct caret_lttng_cfg cfg = { .session = m->session_name, .url = m->url };
	char name[CARET_LTTNG_NAME_MAX], out[1100], err[512];
	int r = lttng_view_ops(b->lttng)->record(&cfg, name, sizeof(name), out, sizeof(out), err,
						 sizeof(err));
	if (r < 0) {
		bridge_rlog_warn(b, "bridge: relay_record from %s: %s", from, err);
		return;
	}
	relay_made(b, name, out, from, &f);
}

void bridge_relay_init(struct bridge *b)
{
	if (!b->cfg.accept_relay)
		return;
	if (!b->cfg.relay_allow)
		log_warn("bridge: --accept-relay without --relay-allow: every relay request "
			 "will be refused");
	/* triggers a killed caretd left behind would stop sessions of
	 * their names (best effort: the session daemon may not run yet) */
	if (limit_ops(b)->remove_all() > 0)
		log_info("bridge: removed the size bounds of relay sessions of a previous caretd");
}
