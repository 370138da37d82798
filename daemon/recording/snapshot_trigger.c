/* SPDX-License-Identifier: Apache-2.0 */
/* A flight recorder's trigger (daemon/recording/snapshot_trigger.h). */
#include <errno.h>
#include <inttypes.h>
#include <lttng/lttng.h>
#include <stdio.h>
#include <string.h>

#include "daemon/base/log.h"
#include "daemon/lttng/lttng_start.h"
#include "daemon/recording/snapshot.h"
#include "daemon/recording/snapshot_trigger.h"
#include "util/caret_err.h"
#include "util/caret_util.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_snapshot.h"

#define TICK_USEC (50 * USEC_PER_MS)
#define NS_PER_MS 1000000LL

static struct {
	struct loop_job job;
	bool started;
	struct recordings *t;
	struct registry *r;
	struct lttng_notification_channel *chan;
	bool adopted; /* what a caretd before this one left was looked at */
} S;

#define EACH(rec) \
	for (struct recording *rec = S.t ? recordings_next(S.t, NULL) : NULL; rec; \
	     rec = recordings_next(S.t, rec))

/* The recording whose trigger is on, by its session's name. */
static struct recording *find(const char *session)
{
	struct recording *r = S.t ? recordings_find(S.t, session) : NULL;
	return r && r->trig.on ? r : NULL;
}

static void trigger_name(char *buf, size_t len, const char *session)
{
	snprintf(buf, len, "caretd-snapshot:%s", session);
}

static struct lttng_condition *condition(const struct recording_trigger *t)
{
	struct lttng_event_rule *rule = lttng_event_rule_user_tracepoint_create();
	bool ok = rule && lttng_event_rule_user_tracepoint_set_name_pattern(rule, t->event) ==
				  LTTNG_EVENT_RULE_STATUS_OK;
	if (ok && t->filter[0])
		ok = lttng_event_rule_user_tracepoint_set_filter(rule, t->filter) ==
		     LTTNG_EVENT_RULE_STATUS_OK;
	struct lttng_condition *c = ok ? lttng_condition_event_rule_matches_create(rule) : NULL;
	lttng_event_rule_destroy(rule);
	return c;
}

/* Unregisters caretd's trigger of that name (listed: the session daemon
 * knows it by name and owner). 0, or -ENOENT when there is none. */
static int unregister_named(const char *name)
{
	struct lttng_triggers *all = NULL;
	if (lttng_list_triggers(&all) != LTTNG_OK || !all)
		return -EIO;
	unsigned int n = 0;
	int rc = -ENOENT;
	lttng_triggers_get_count(all, &n);
	for (unsigned int i = 0; i < n && rc == -ENOENT; i++) {
		const struct lttng_trigger *tr = lttng_triggers_get_at_index(all, i);
		const char *x = NULL;
		if (tr && lttng_trigger_get_name(tr, &x) == LTTNG_TRIGGER_STATUS_OK && x &&
		    !strcmp(x, name))
			rc = lttng_unregister_trigger(tr) < 0 ? -EIO : 0;
	}
	lttng_triggers_destroy(all);
	return rc;
}

/* Registers the trigger of r. 0 or -errno. */
static int trigger_register(const struct recording *r, char *err, size_t errlen)
{
	const struct recording_trigger *t = &r->trig;
	struct lttng_condition *c = condition(t);
	struct lttng_action *a = lttng_action_notify_create();
	struct lttng_trigger *tr = c && a ? lttng_trigger_create(c, a) : NULL;
	char name[CARET_LTTNG_NAME_MAX + 32];
	trigger_name(name, sizeof(name), r->name);
	int rc = 0;
	if (!tr) {
		rc = caret_errf(err, errlen, -EINVAL, "lttng: cannot make a trigger on %s%s%s",
				t->event, t->filter[0] ? " with filter " : "", t->filter);
	} else {
		enum lttng_error_code e = lttng_register_trigger_with_name(tr, name);
		/* a caretd killed before left it: ours again, with this
		 * recording's rule */
		if (e == LTTNG_ERR_TRIGGER_EXISTS && unregister_named(name) == 0)
			e = lttng_register_trigger_with_name(tr, name);
		if (e != LTTNG_OK)
			rc = caret_errf(err, errlen, -EINVAL, "lttng: registering the trigger on "
					"%s%s%s: %s", t->event, t->filter[0] ? " with filter " : "",
					t->filter, lttng_strerror(-(int)e));
	}
	lttng_trigger_destroy(tr);
	lttng_action_destroy(a);
	lttng_condition_destroy(c);
	return rc;
}

static void subscribe(struct recording *r, bool on)
{
	struct recording_trigger *t = &r->trig;
	if (!S.chan)
		return;
	struct lttng_condition *c = condition(t);
	if (!c)
		return;
	enum lttng_notification_channel_status s =
		on ? lttng_notification_channel_subscribe(S.chan, c)
		   : lttng_notification_channel_unsubscribe(S.chan, c);
	lttng_condition_destroy(c);
	t->subscribed = on && (s == LTTNG_NOTIFICATION_CHANNEL_STATUS_OK ||
			       s == LTTNG_NOTIFICATION_CHANNEL_STATUS_ALREADY_SUBSCRIBED);
	if (on && !t->subscribed)
		log_warn("session %s: cannot subscribe to its trigger (status %d)", r->name,
			 (int)s);
}

static void close_channel(void)
{
	if (S.chan)
		lttng_notification_channel_destroy(S.chan);
	S.chan = NULL;
	EACH(r)
		r->trig.subscribed = false;
}

static bool any(void)
{
	EACH(r)
		if (r->trig.on)
			return true;
	return false;
}

/* A firing for session: a snapshot, unless one is being taken or the
 * last one began within the hold-off. */
static void fired(const char *session, int64_t now)
{
	struct recording *r = find(session);
	if (!r)
		return;
	struct recording_trigger *t = &r->trig;
	t->fired++;
	if (t->job || r->ring.busy ||
	    (t->last_ns && now - t->last_ns < CARET_CTL_SNAPSHOT_HOLDOFF_MS * NS_PER_MS)) {
		t->coalesced++;
		return;
	}
	if (!r->ring.on || !r->path[0] || !lttng_view_find(S.t->view, session)) {
		t->coalesced++;
		return;
	}
	log_info("session %s: %s fired: taking a snapshot", session, t->event);
	t->last_ns = now;
	t->job = snapshot_begin(S.t, S.r, r, r->path, CARET_CTL_DEFAULT_TIMEOUT_MS, now);
	if (!t->job)
		log_err("session %s: out of memory for a triggered snapshot", session);
}

static void read_notifications(int64_t now)
{
	for (int guard = 0; S.chan && guard < 256; guard++) {
		bool pending = false;
		enum lttng_notification_channel_status s =
			lttng_notification_channel_has_pending_notification(S.chan, &pending);
		if (s == LTTNG_NOTIFICATION_CHANNEL_STATUS_NOTIFICATIONS_DROPPED)
			continue; /* firings, coalesced by LTTng */
		if (s != LTTNG_NOTIFICATION_CHANNEL_STATUS_OK) {
			log_warn("snapshot triggers: channel lost (status %d); reconnecting", (int)s);
			close_channel();
			return;
		}
		if (!pending)
			return;
		struct lttng_notification *n = NULL;
		s = lttng_notification_channel_get_next_notification(S.chan, &n);
		const struct lttng_trigger *tr = n ? lttng_notification_get_trigger(n) : NULL;
		const char *name = NULL;
		if (tr && lttng_trigger_get_name(tr, &name) == LTTNG_TRIGGER_STATUS_OK && name &&
		    !strncmp(name, "caretd-snapshot:", 16))
			fired(name + 16, now);
		lttng_notification_destroy(n);
		if (s != LTTNG_NOTIFICATION_CHANNEL_STATUS_OK &&
		    s != LTTNG_NOTIFICATION_CHANNEL_STATUS_NOTIFICATIONS_DROPPED) {
			close_channel();
			return;
		}
	}
}

/* The snapshots being taken: their result goes to the log. */
static void poll_jobs(int64_t now)
{
	EACH(r) {
		struct recording_trigger *t = &r->trig;
		if (!t->job)
			continue;
		bool done;
		/* the result is logged by daemon/recording/snapshot.c */
		wait_line_free(wait_poll(t->job, now, &done));
		if (done) {
			wait_free(t->job);
			t->job = NULL;
		}
	}
}

static void drop(struct recording *r);

/* The flight recorders and triggers a caretd before this one left (it
 * was killed or restarted): once the recordings are back, a recording
 * saved before its ring was (an older caretd's file) that is a snapshot
 * session becomes a flight recorder again, each caretd trigger of a
 * flight recorder whose own was not saved is read again (its event and
 * filter), and every other caretd trigger is unregistered (its recording
 * is gone). */
static void adopt(void)
{
	S.adopted = true;
	EACH(rec) {
		if (!rec->ring.on && lttng_view_ops(S.t->view)->snapshot_mode(rec->name, NULL, 0) == 1) {
			rec->ring.on = true;
			log_info("session %s: a flight recorder, adopted (%llu snapshots written)",
				 rec->name, (unsigned long long)rec->ring.written);
		}
	}
	struct lttng_triggers *all = NULL;
	if (lttng_list_triggers(&all) != LTTNG_OK || !all)
		return;
	unsigned int n = 0;
	lttng_triggers_get_count(all, &n);
	for (unsigned int i = 0; i < n; i++) {
		const struct lttng_trigger *tr = lttng_triggers_get_at_index(all, i);
		const char *name = NULL, *event = NULL, *filter = NULL;
		if (!tr || lttng_trigger_get_name(tr, &name) != LTTNG_TRIGGER_STATUS_OK || !name ||
		    strncmp(name, "caretd-snapshot:", 16))
			continue;
		const char *session = name + 16;
		struct recording *rec = recordings_find(S.t, session);
		const struct lttng_condition *c = lttng_trigger_get_const_condition(tr);
		const struct lttng_event_rule *rule = NULL;
		if (rec && rec->ring.on && !rec->trig.on && c &&
		    lttng_condition_event_rule_matches_get_rule(c, &rule) ==
			    LTTNG_CONDITION_STATUS_OK && rule &&
		    lttng_event_rule_user_tracepoint_get_name_pattern(rule, &event) ==
			    LTTNG_EVENT_RULE_STATUS_OK && event &&
		    strlen(event) <= CARET_CTL_SNAPSHOT_ON_MAX) {
			if (lttng_event_rule_user_tracepoint_get_filter(rule, &filter) !=
			    LTTNG_EVENT_RULE_STATUS_OK)
				filter = NULL;
			rec->trig = (struct recording_trigger){ .wanted = true, .on = true };
			snprintf(rec->trig.event, sizeof(rec->trig.event), "%s", event);
			snprintf(rec->trig.filter, sizeof(rec->trig.filter), "%s",
				 filter ? filter : "");
			log_info("session %s: its trigger on %s adopted", session, event);
			continue;
		}
		if (!find(session)) {
			log_info("trigger %s of a recording that is gone: unregistered", name);
			lttng_unregister_trigger(tr);
		}
	}
	lttng_triggers_destroy(all);
	recordings_save(S.t);
}

static uint64_t on_tick(void *arg)
{
	(void)arg;
	int64_t now = caret_now_ns();
	/* while LTTng starts a session, its calls would stall caretd's loop
	 * until that start ends (lttng_start.h): only the notifications
	 * already on the channel are read (without waiting) */
	bool starting = lttng_start_running(NULL);
	if (!S.adopted && S.t->view->ok && S.t->loaded && !starting)
		adopt();
	if (!any()) {
		close_channel();
		return S.adopted ? LOOP_IDLE : 200 * USEC_PER_MS;
	}
	if (!S.chan && !starting)
		S.chan = lttng_notification_channel_create(lttng_session_daemon_notification_endpoint);
	EACH(r)
		if (S.chan && r->trig.on && !r->trig.subscribed && !starting)
			subscribe(r, true);
	read_notifications(now);
	poll_jobs(now);
	return TICK_USEC;
}

int snapshot_trigger_start(struct loop *l, const struct snapshot_trigger_ops *ops)
{
	memset(&S, 0, sizeof(S));
	S.t = ops->recs;
	S.r = ops->reg;
	S.job = LOOP_JOB("snapshot triggers", LOOP_OBSERVE, on_tick, NULL);
	int rc = loop_add(l, &S.job);
	S.started = rc >= 0;
	return rc;
}

/* Its trigger goes from the session daemon and from the recording (a
 * snapshot in flight ends). */
static void drop(struct recording *r)
{
	struct recording_trigger *t = &r->trig;
	if (t->job)
		wait_free(t->job);
	t->job = NULL;
	if (t->subscribed)
		subscribe(r, false);
	char name[CARET_LTTNG_NAME_MAX + 32];
	trigger_name(name, sizeof(name), r->name);
	if (unregister_named(name) < 0)
		log_warn("session %s: its trigger %s could not be unregistered", r->name, name);
	t->on = false;
	t->subscribed = false;
}

void snapshot_trigger_stop(void)
{
	EACH(r)
		if (r->trig.on)
			drop(r);
	if (S.started)
		loop_remove(&S.job);
	S.started = false;
	close_channel();
}

static int feat_begin(struct recordings *rs, struct recording *r, char *err, size_t errlen)
{
	(void)rs;
	struct recording_trigger *t = &r->trig;
	if (!t->wanted)
		return 0;
	/* nothing would read its notifications (a test's commands without
	 * caretd's loop): no trigger registered in the session daemon */
	if (!S.started)
		return caret_errf(err, errlen, -ENOTSUP, "snapshot triggers are not read here");
	t->fired = t->coalesced = 0;
	t->last_ns = 0;
	t->job = NULL;
	t->subscribed = false;
	int rc = trigger_register(r, err, errlen);
	if (rc < 0)
		return rc;
	t->on = true;
	log_info("session %s: a snapshot whenever %s%s%s fires", r->name, t->event,
		 t->filter[0] ? " with filter " : "", t->filter);
	loop_job_soon(&S.job, 0);
	return 0;
}

static void feat_end(struct recordings *rs, struct recording *r, struct recording_end *out)
{
	(void)rs;
	struct recording_trigger *t = &r->trig;
	if (!t->on)
		return;
	if (out)
		log_info("session %s: its trigger on %s fired %" PRIu64 " times (%" PRIu64
			 " coalesced)", r->name, t->event, t->fired, t->coalesced);
	else
		log_info("session %s: its trigger goes with it", r->name);
	drop(r);
}

static int feat_status(const struct recording *r, struct caret_ctl_recording_status *x,
		       struct caret_ctl_recordings *result)
{
	(void)result;
	const struct recording_trigger *t = &r->trig;
	if (!t->on)
		return 0;
	x->have_trigger = true;
	x->snapshot_on = t->event;
	x->snapshot_filter = t->filter[0] ? t->filter : NULL;
	x->triggered = t->fired;
	x->coalesced = t->coalesced;
	return 0;
}

/* " trig=EVENT,FILTER,FIRED,COALESCED", EVENT and FILTER in hex (FILTER
 * "-" when none) */
static void feat_save(const struct recording *r, FILE *f)
{
	const struct recording_trigger *t = &r->trig;
	if (!t->on)
		return;
	static char ev[2 * sizeof(t->event) + 1], flt[2 * sizeof(t->filter) + 1];
	caret_hex(ev, t->event);
	caret_hex(flt, t->filter);
	fprintf(f, " trig=%s,%s,%" PRIu64 ",%" PRIu64, ev, flt[0] ? flt : "-", t->fired,
		t->coalesced);
}

/* The trigger itself is the session daemon's, left there by the caretd
 * before this one (a trigger outlives its registrant): the recording's
 * again, its counts going on. */
static int feat_restore(struct recordings *rs, struct recording *r, const char *token)
{
	(void)rs;
	static char ev[2 * CARET_CTL_SNAPSHOT_ON_MAX + 2], flt[2 * CARET_CTL_SNAPSHOT_FILTER_MAX + 2];
	struct recording_trigger t = { .wanted = true, .on = true };
	const char *c1 = strchr(token, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
	if (!c1 || !c2 || (size_t)(c1 - token) >= sizeof(ev) ||
	    (size_t)(c2 - c1 - 1) >= sizeof(flt) ||
	    sscanf(c2 + 1, "%" SCNu64 ",%" SCNu64, &t.fired, &t.coalesced) != 2)
		return -EINVAL;
	memcpy(ev, token, (size_t)(c1 - token));
	ev[c1 - token] = '\0';
	memcpy(flt, c1 + 1, (size_t)(c2 - c1 - 1));
	flt[c2 - c1 - 1] = '\0';
	if (caret_unhex(ev, t.event, sizeof(t.event)) < 0 || !t.event[0] ||
	    (strcmp(flt, "-") != 0 && caret_unhex(flt, t.filter, sizeof(t.filter)) < 0))
		return -EINVAL;
	r->trig = t;
	return 0;
}

const struct recording_feature_ops snapshot_trigger_feature = {
	.name = "trig",
	.begin = feat_begin,
	.end = feat_end,
	.status = feat_status,
	.save = feat_save,
	.restore = feat_restore,
};
