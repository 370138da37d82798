/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/base/log.h"
#include "daemon/base/loop.h"
#include "daemon/lttng/lttng_view.h"
#include "proto/caret_ctl_limits.h"
#include "shm/caret_shm.h"

/*
 * Reading the session list is a round trip to lttng-sessiond, which it
 * wakes too: at 20 Hz, most of an idle caretd's CPU (issue 24). With no
 * session active and none of ours, it is read once a second; a session
 * that enables ros2 or ros2_caret events is noticed sooner, from the
 * agents: lttng-ust attaches the events' probes in every process with
 * the agent while the session starts, and each agent then touches its
 * segment (agent/tpwatch.c), which the registry's inotify watch reports
 * (lttng_view_hint). While sessions are active, or recordings exist, or
 * the session daemon does not answer, or for a while after a hint, the
 * list is read at the short period, as before.
 */
#define POLL_USEC (50 * USEC_PER_MS)
#define POLL_IDLE_USEC (1000 * USEC_PER_MS)
/* Hints come in bursts (dozens of processes at a session start): they
 * cause at most one read per this time, whoever sends them, which is
 * the short period: a stream of hints costs what the poll did before.
 * The first hint after a quiet while is read at once. */
#define HINT_GAP_NS (50LL * 1000000)
#define HINT_FAST_NS (500LL * 1000000)

static bool lttng_view_find_in(char (*names)[CARET_LTTNG_NAME_MAX], int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (strcmp(names[i], s) == 0)
			return true;
	return false;
}

/* Rules may change while a session runs (enable-event after start): read
 * them again this often, not at every poll. */
#define RULES_EVERY_NS (1000LL * 1000000)

static void rules_text(unsigned r, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s", r & CARET_LTTNG_RULE_CARET ? " ros2_caret" : "",
		 r & CARET_LTTNG_RULE_ROS2_INIT ? " ros2-init" : "",
		 r & CARET_LTTNG_RULE_ROS2_RUNTIME ? " ros2-runtime" : "",
		 r ? "" : " no ros2/ros2_caret event");
}

static void update_rules(const struct lttng_view *v, const char *name,
			 struct lttng_view_session *e, int64_t now, bool fresh)
{
	if (!fresh && now - e->rules_ns < RULES_EVERY_NS)
		return;
	unsigned r;
	char err[256];
	e->rules_ns = now;
	if (lttng_view_ops(v)->session_rules(name, &r, err, sizeof(err)) < 0) {
		log_debug("session %s: %s", name, err);
		return; /* keep what we knew (a fresh entry: none) */
	}
	if (fresh || r != e->rules) {
		char t[96];
		rules_text(r, t, sizeof(t));
		log_info("LTTng session %s active, records:%s%s", name, t,
			 r & CARET_LTTNG_RULE_CARET ? "" : " (no replay into it: it does not "
			 "enable ros2_caret events)");
	}
	e->rules = r;
}

static void refresh(struct lttng_view *v);

static bool same_view(const struct lttng_view *v, bool ok, int n,
		      char (*names)[CARET_LTTNG_NAME_MAX], const struct lttng_view_session *sess)
{
	if (v->ok != ok || v->n_active != n)
		return false;
	for (int i = 0; i < n; i++)
		if (strcmp(v->active[i], names[i]) != 0 || v->sess[i].rules != sess[i].rules ||
		    v->sess[i].serial != sess[i].serial)
			return false;
	return true;
}

void lttng_view_refresh(struct lttng_view *v)
{
	if (v->starting)
		return; /* lttng_view.h: the poll comes back after the start */
	static char names[LTTNG_VIEW_MAX_SESSIONS][CARET_LTTNG_NAME_MAX];
	static struct lttng_view_session sess[LTTNG_VIEW_MAX_SESSIONS];
	bool ok = v->ok;
	int n = v->n_active;
	memcpy(names, v->active, sizeof(names[0]) * (size_t)n);
	memcpy(sess, v->sess, sizeof(sess[0]) * (size_t)n);
	v->last_poll_ns = caret_now_ns();
	refresh(v);
	if (!same_view(v, ok, n, names, sess) && v->on_change)
		v->on_change(v->change_arg);
}

static bool armed(const struct lttng_view *v, const char *session)
{
	return v->owner.armed && v->owner.armed(v->owner.arg, session);
}

static void before_active(struct lttng_view *v)
{
	if (v->owner.before_active)
		v->owner.before_active(v->owner.arg);
}

static void refresh(struct lttng_view *v)
{
	if (v->owner.before_read)
		v->owner.before_read(v->owner.arg);
	char err[256];
	char names[LTTNG_VIEW_MAX_SESSIONS][CARET_LTTNG_NAME_MAX];
	int n = lttng_view_ops(v)->active_sessions(names, LTTNG_VIEW_MAX_SESSIONS, err,
						   sizeof(err));
	bool was_ok = v->ok;
	int before = v->n_active;
	if (n < 0) {
		/* once per outage, not at every poll */
		if (was_ok || !v->err[0])
			log_warn("lttng-sessiond not reachable: %s; retrying", err);
		snprintf(v->err, sizeof(v->err), "%s", err);
		v->ok = false;
		/* what we knew is stale: no session records while the session
		 * daemon is gone (its sessions died with it) */
		v->n_active = 0;
		return;
	}
	if (!was_ok)
		log_info("lttng-sessiond reachable");
	v->ok = true;
	v->err[0] = '\0';
	int64_t now = caret_now_ns();
	/* Sessions of caretd's first look were active before it started: the
	 * processes see their tracepoints already. */
	bool first = !v->polled;
	v->polled = true;
	if (v->owner.sessions)
		v->owner.sessions(v->owner.arg, names, n);
	/* An armed recording is started with its channel disabled: it
	 * records nothing until `go`, so it is not active for anyone here. */
	int k = 0;
	for (int i = 0; i < n; i++) {
		if (armed(v, names[i]))
			continue;
		if (k != i)
			memcpy(names[k], names[i], sizeof(names[0]));
		k++;
	}
	n = k;
	for (int i = 0; i < n; i++)
		if (!lttng_view_find(v, names[i])) {
			before_active(v); /* before anyone leaves WAIT for it */
			break;
		}
	/* static: 32 entries, and refresh is not reentered */
	static struct lttng_view_session sess[LTTNG_VIEW_MAX_SESSIONS];
	for (int i = 0; i < n; i++) {
		struct lttng_view_session *old = lttng_view_find(v, names[i]);
		bool fresh = !old;
		if (old) {
			sess[i] = *old;
		} else {
			sess[i] = (struct lttng_view_session){
				.serial = ++v->last_serial,
				.since_ns = first ? INT64_MIN / 2 : now };
		}
		update_rules(v, names[i], &sess[i], now, fresh);
	}
	for (int i = 0; i < v->n_active; i++)
		if (!lttng_view_find_in(names, n, v->active[i]))
			log_info("LTTng session %s no longer active", v->active[i]);
	memcpy(v->active, names, sizeof(names[0]) * (size_t)n);
	memcpy(v->sess, sess, sizeof(sess[0]) * (size_t)n);
	v->n_active = n;
	if (n != before)
		log_info("%d active LTTng session%s", n, n == 1 ? "" : "s");
}

/*
 * What a command that started or stopped a session knows, told to the view
 * at once instead of making it read every session again: the poll would
 * find the same, later (the pacer and a `wait` right after need it now).
 * Until the first poll answered (the table is not loaded yet), a read.
 */
void lttng_view_session_started(struct lttng_view *v, const char *session)
{
	if (!v->polled || !v->ok) {
		lttng_view_refresh(v);
		return;
	}
	if (lttng_view_find(v, session) || armed(v, session))
		return; /* known, or recording nothing yet */
	before_active(v);
	if (v->n_active >= LTTNG_VIEW_MAX_SESSIONS) {
		lttng_view_refresh(v);
		return;
	}
	int i = v->n_active++;
	snprintf(v->active[i], sizeof(v->active[i]), "%s", session);
	int64_t now = caret_now_ns();
	v->sess[i] = (struct lttng_view_session){ .serial = ++v->last_serial, .since_ns = now };
	update_rules(v, v->active[i], &v->sess[i], now, true);
	log_info("%d active LTTng session%s", v->n_active, v->n_active == 1 ? "" : "s");
	if (v->on_change)
		v->on_change(v->change_arg);
}

void lttng_view_session_ended(struct lttng_view *v, const char *session)
{
	for (int i = 0; i < v->n_active; i++) {
		if (strcmp(v->active[i], session) != 0)
			continue;
		log_info("LTTng session %s no longer active", session);
		int last = --v->n_active;
		memmove(&v->active[i], &v->active[i + 1], sizeof(v->active[0]) * (size_t)(last - i));
		memmove(&v->sess[i], &v->sess[i + 1], sizeof(v->sess[0]) * (size_t)(last - i));
		log_info("%d active LTTng session%s", last, last == 1 ? "" : "s");
		if (v->on_change)
			v->on_change(v->change_arg);
		return;
	}
}

const struct caret_lttng_ops *lttng_view_ops(const struct lttng_view *v)
{
	return v->ops ? v->ops : &caret_lttng_ops_real;
}

bool lttng_view_is_active(const struct lttng_view *v, const char *session)
{
	for (int i = 0; i < v->n_active; i++)
		if (strcmp(v->active[i], session) == 0)
			return true;
	return false;
}

struct lttng_view_session *lttng_view_find(struct lttng_view *v, const char *session)
{
	for (int i = 0; i < v->n_active; i++)
		if (strcmp(v->active[i], session) == 0)
			return &v->sess[i];
	return NULL;
}

const struct lttng_view_pub *lttng_view_pub(const struct lttng_view *v, int i)
{
	return v->owner.pub ? v->owner.pub(v->owner.arg, v->active[i]) : NULL;
}

static bool same_filter(const struct caret_shm_filter *a, const struct caret_shm_filter *b)
{
	size_t n = 0;
	for (int i = 0; i < CARET_FILTER_LISTS; i++)
		n += a->len[i];
	return memcmp(a->len, b->len, sizeof(a->len)) == 0 &&
	       n <= sizeof(a->text) && memcmp(a->text, b->text, n) == 0;
}

int lttng_view_pass_filter(const struct lttng_view *v, uint32_t after, uint32_t upto,
			   struct caret_filter_text *out)
{
	const struct caret_shm_filter *first = NULL;
	for (int i = 0; i < v->n_active; i++) {
		const struct lttng_view_session *e = &v->sess[i];
		if (!(e->rules & CARET_LTTNG_RULE_CARET) || e->serial <= after || e->serial > upto)
			continue;
		const struct lttng_view_pub *r = lttng_view_pub(v, i);
		if (!r || !r->filter)
			return 0; /* a session of the lttng CLI or a peer's relay */
		if (first && !same_filter(first, r->filter))
			return 0;
		first = r->filter;
	}
	if (!first || caret_filter_decode(first, out) < 0)
		return 0;
	return caret_filter_empty(&out->f) ? 0 : 1;
}

bool lttng_view_caret_active(const struct lttng_view *v)
{
	for (int i = 0; i < v->n_active; i++)
		if (v->sess[i].rules & CARET_LTTNG_RULE_CARET)
			return true;
	return false;
}

static uint64_t next_poll_usec(const struct lttng_view *v)
{
	bool recs = v->owner.busy && v->owner.busy(v->owner.arg);
	bool quiet = v->ok && v->n_active == 0 && !recs &&
		     caret_now_ns() >= v->fast_until_ns;
	return quiet ? POLL_IDLE_USEC : POLL_USEC;
}

static uint64_t on_poll(void *arg)
{
	struct lttng_view *v = arg;
	if (v->hinted)
		log_debug("reading the LTTng sessions: an agent's ros2/ros2_caret probes changed");
	v->hinted = false;
	lttng_view_refresh(v);
	return next_poll_usec(v);
}

void lttng_view_hint(struct lttng_view *v)
{
	int64_t now = caret_now_ns();
	v->fast_until_ns = now + HINT_FAST_NS;
	int64_t wait = v->last_poll_ns + HINT_GAP_NS - now;
	/* only ever brought forward: a stream of hints cannot hold it off */
	if (loop_job_soon(&v->poll, wait > 0 ? (uint64_t)wait / 1000 : 0))
		v->hinted = true;
}

int lttng_view_start(struct lttng_view *v, struct loop *loop, const struct lttng_view_ops_in *in)
{
	v->ops = in->ops;
	v->on_change = in->on_change;
	v->change_arg = in->change_arg;
	v->poll = LOOP_JOB("LTTng view", LOOP_OBSERVE, on_poll, v);
	return loop_add(loop, &v->poll);
}

void lttng_view_stop(struct lttng_view *v)
{
	loop_remove(&v->poll);
}
