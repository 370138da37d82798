/* SPDX-License-Identifier: Apache-2.0 */
/* The recordings table (daemon/recording/recordings.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "daemon/base/log.h"
#include "daemon/recording/recordings.h"

static uint32_t arm_timeout(const struct recordings *t)
{
	return t->arm_timeout_s && *t->arm_timeout_s ? *t->arm_timeout_s
						      : RECORDINGS_ARM_TIMEOUT_S;
}

void recordings_load(struct recordings *t, char (*names)[CARET_LTTNG_NAME_MAX], int n)
{
	if (recordings_read(t, names, n))
		recordings_save(t);
}

int recordings_add(struct recordings *t, const struct recording *r)
{
	if (!recordings_put(t, r))
		return -ENOSPC;
	recordings_save(t);
	return 0;
}

void recordings_drop(struct recordings *t, struct recording *r)
{
	if (!r || !r->used)
		return;
	recordings_forget(t, r);
	recordings_save(t);
}

int recordings_hold_armed(struct recordings *t)
{
	int held = 0;
	bool changed = false;
	for (struct recording *r = recordings_next(t, NULL); r; r = recordings_next(t, r)) {
		if (!r->armed || !r->armed_open)
			continue;
		char err[256];
		int rc = lttng_view_ops(t->view)->hold(r->name, err, sizeof(err));
		/* either way `go` enables the channel from now on (enabling an
		 * enabled channel is no error) */
		r->armed_open = false;
		changed = true;
		if (rc < 0) {
			t->hold_failed++;
			log_err("armed recording %s: %s; it may hold events from before its Enter",
				r->name, err);
			continue;
		}
		log_info("armed recording %s held (channel disabled): another session starts",
			 r->name);
		held++;
	}
	if (changed)
		recordings_save(t);
	return held;
}

/* ---- the view's owner hooks ---- */

static bool armer_gone(const struct recording *r)
{
	uint64_t start;
	int e = caret_proc_start_time(r->armer_pid, &start);
	if (e < 0)
		return e == -ENOENT || e == -ESRCH; /* unreadable is not gone */
	return start != r->armer_start;
}

/* An armed recording whose caretctl died before Enter, or that nobody
 * started within the arm timeout, would stay forever: invisible as a
 * session, never recording, holding a session of the session daemon and
 * a place in the table. Its session goes (before the list is read, so
 * this poll already sees it gone). */
static void reap_orphans(void *arg)
{
	struct recordings *t = arg;
	int64_t now = caret_now_ns();
	uint32_t limit = arm_timeout(t);
	for (struct recording *r = recordings_next(t, NULL); r; r = recordings_next(t, r)) {
		bool orphan = r->armed && r->armer_pid > 0 && armer_gone(r);
		bool expired = r->armed && !orphan && r->armed_ns &&
			       now - r->armed_ns >= (int64_t)limit * 1000000000;
		if (!orphan && !expired)
			continue;
		char path[4096] = "", err[256] = "";
		struct caret_lttng_chan_stats st;
		int e = lttng_view_ops(t->view)->stop(r->name, &st, 1, path, sizeof(path), err,
						       sizeof(err));
		if (e < 0 && e != -ENOENT) {
			/* once: the next poll sees the session itself */
			log_warn("armed recording %s: %s, and the session could not be "
				 "destroyed: %s", r->name, orphan ? "its caretctl is gone" :
				 "not started in time", err);
			r->armer_pid = 0;
			r->armed_ns = 0;
			continue;
		}
		if (orphan) {
			log_info("armed recording %s: its caretctl (pid %d) is gone before Enter; "
				 "session destroyed", r->name, (int)r->armer_pid);
		} else {
			log_warn("armed recording %s of uid %d: not started within %u s "
				 "(--arm-timeout); session destroyed", r->name, (int)r->uid, limit);
			unsigned k = t->n_expired++ % RECORDINGS_EXPIRED;
			memcpy(t->expired[k].name, r->name, sizeof(t->expired[k].name));
			t->expired[k].uid = r->uid;
			t->expired[k].after_s = limit;
		}
		recordings_unwind(t, r);
	}
	recordings_save_changed(t); /* once for all that went */
}

/* A paused recording is not active: it goes only with its session. */
static bool still_paused(const struct recordings *t, const struct recording *r)
{
	if (!r->paused)
		return false;
	const struct caret_lttng_ops *ops = lttng_view_ops(t->view);
	char err[256];
	int e = ops->exists ? ops->exists(r->name, err, sizeof(err)) : 1;
	if (e < 0)
		log_debug("paused recording %s: %s", r->name, err);
	return e != 0; /* unknown: kept, the next poll asks again */
}

static void on_sessions(void *arg, char (*names)[CARET_LTTNG_NAME_MAX], int n)
{
	struct recordings *t = arg;
	if (!t->loaded) {
		recordings_load(t, names, n);
		/* what the processes did while caretd was away is not known:
		 * an armed recording taken over waits with its channel disabled */
		recordings_hold_armed(t);
	}
	/* a recording whose session ended some other way is over; a paused
	 * one LTTng started again is no longer paused */
	for (struct recording *r = recordings_next(t, NULL); r; r = recordings_next(t, r)) {
		bool there = false;
		for (int i = 0; i < n && !there; i++)
			there = strcmp(names[i], r->name) == 0;
		if (there && r->paused) {
			log_info("paused recording %s started again outside caretd", r->name);
			r->paused = false;
		}
		if (there || still_paused(t, r))
			continue;
		log_info("recording %s ended outside caretd", r->name);
		recordings_forget(t, r);
	}
	recordings_save_changed(t); /* once for all that went */
}

static bool is_armed(void *arg, const char *session)
{
	const struct recording *r = recordings_find(arg, session);
	return r && r->armed;
}

static void before_active(void *arg)
{
	recordings_hold_armed(arg);
}

static const struct lttng_view_pub *pub_of(void *arg, const char *session)
{
	const struct recording *r = recordings_find(arg, session);
	return r ? &r->pub : NULL;
}

static bool busy(void *arg)
{
	return recordings_any(arg);
}

void recordings_init(struct recordings *t, struct lttng_view *v,
		     const struct recording_feature_ops *const *features, int n_features)
{
	memset(t, 0, sizeof(*t));
	t->view = v;
	t->features = features;
	t->n_features = n_features;
	if (v)
		v->owner = (struct lttng_view_owner){
			.arg = t, .before_read = reap_orphans, .sessions = on_sessions,
			.armed = is_armed, .before_active = before_active, .pub = pub_of,
			.busy = busy };
}
