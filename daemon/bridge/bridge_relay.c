/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The relay session other hosts may ask for (rt/caretd/relay_record, with
 * --accept-relay): created and stopped through the LTTng view's ops table
 * and told to the view (lttng_view_session_started/_ended), as commands
 * do; bounded in time here and in size by a session daemon trigger.
 */
#include <stdio.h>
#include <string.h>

#include "daemon/bridge/bridge_msg.h"
#include "daemon/bridge/bridge_relay.h"
#include "daemon/base/log.h"
#include "lib/lttng/lttng_limit.h"
#include "daemon/agents/pacer.h"
#include "daemon/agents/startend.h"
#include "util/caret_util.h"

/* Relay sessions begin at most this often: each costs LTTng a session
 * and every process a replay. */
#define RELAY_GAP_NS (2LL * 1000000000)

static const struct bridge_limit_ops limit_real = {
	.size = caret_lttng_limit_size,
	.remove = caret_lttng_limit_remove,
	.remove_all = caret_lttng_limit_remove_all,
};

static const struct bridge_limit_ops *limit_ops(const struct bridge *b)
{
	return b->limit ? b->limit : &limit_real;
}

void bridge_relay_stop(struct bridge *b, const char *why)
{
	struct caret_lttng_chan_stats ch[16];
	char path[1024], err[512];
	if (why)
		log_warn("bridge: relay session %s: %s; stopping it", b->relay_session, why);
	int n = lttng_view_ops(b->lttng)->stop(b->relay_session, ch, 16, path, sizeof(path), err,
						sizeof(err));
	if (n < 0) {
		bridge_rlog_warn(b, "bridge: stopping relay session %s: %s", b->relay_session, err);
	} else {
		for (int i = 0; i < n && i < 16; i++)
			bridge_rlog_info(b, "bridge: relay session %s channel %s: %s%llu events discarded",
					 b->relay_session, ch[i].name, ch[i].discarded_known ? "" : "unknown ",
					 (unsigned long long)ch[i].discarded);
		bridge_rlog_info(b, "bridge: relay session %s stopped and destroyed", b->relay_session);
	}
	limit_ops(b)->remove(b->relay_session);
	lttng_view_session_ended(b->lttng, b->relay_session);
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

/* A relay session ends by itself (B16b): after its time bound, and once
 * its size bound stopped it (the session daemon's trigger). */
void bridge_relay_check(struct bridge *b, int64_t now)
{
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
	if (b->relay_session[0]) {
		bridge_rlog_warn(b, "bridge: relay_record %s from %s ignored: relay session %s still runs",
				 m->session_name, from, b->relay_session);
		return;
	}
	if (b->relay_try_ns && caret_now_ns() - b->relay_try_ns < RELAY_GAP_NS) {
		bridge_rlog_warn(b, "bridge: relay_record %s from %s ignored: the previous one came less "
				 "than %lld s ago", m->session_name, from, RELAY_GAP_NS / 1000000000);
		return;
	}
	b->relay_try_ns = caret_now_ns();
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
	snprintf(b->relay_session, sizeof(b->relay_session), "%s", name);
	b->relay_since_ns = caret_now_ns();
	/* No session without its size bound: one that cannot be bounded is
	 * destroyed at once. */
	if ((r = limit_ops(b)->size(name, relay_max_bytes(b), err, sizeof(err))) < 0) {
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
	startend_start(b->sched, b->reg, &l, 0, &f, &o);
	char ft[1024];
	bridge_msg_filter_text(&f, ft, sizeof(ft));
	if (*ft)
		bridge_rlog_info(b, "bridge: relay session %s: %d processes replay with filter %s", name,
				 o.filtered, ft);
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
