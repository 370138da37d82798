/* SPDX-License-Identifier: Apache-2.0 */
/* A flight recorder's trigger (daemon/recording/snapshot_trigger.h). */
#include <errno.h>
#include <inttypes.h>
#include <lttng/lttng.h>
#include <stdio.h>
#include <string.h>

#include "daemon/base/log.h"
#include "daemon/recording/snapshot.h"
#include "daemon/recording/snapshot_trigger.h"
#include "util/caret_err.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_snapshot.h"

#define TICK_USEC (50 * USEC_PER_MS)
#define NS_PER_MS 1000000LL

static struct trig {
	bool used;
	char name[CARET_LTTNG_NAME_MAX];
	char event[CARET_CTL_SNAPSHOT_ON_MAX + 1];
	char filter[CARET_CTL_SNAPSHOT_FILTER_MAX + 1];
	bool subscribed;
	uint64_t fired, coalesced;
	int64_t last_ns;      /* when its last snapshot began */
	struct wait_req *job; /* the snapshot being taken */
} T[LTTNG_VIEW_MAX_RECORDINGS];

static struct {
	struct loop_job job;
	bool started;
	struct lttng_view *v;
	struct registry *r;
	struct lttng_notification_channel *chan;
	bool adopted; /* what a caretd before this one left was looked at */
} S;

static struct trig *find(const char *session)
{
	for (size_t i = 0; i < sizeof(T) / sizeof(T[0]); i++)
		if (T[i].used && !strcmp(T[i].name, session))
			return &T[i];
	return NULL;
}

static void trigger_name(char *buf, size_t len, const char *session)
{
	snprintf(buf, len, "caretd-snapshot:%s", session);
}

static struct lttng_condition *condition(const struct trig *t)
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

/* Registers the trigger of t. 0 or -errno. */
static int trigger_register(const struct trig *t, char *err, size_t errlen)
{
	struct lttng_condition *c = condition(t);
	struct lttng_action *a = lttng_action_notify_create();
	struct lttng_trigger *tr = c && a ? lttng_trigger_create(c, a) : NULL;
	char name[CARET_LTTNG_NAME_MAX + 32];
	trigger_name(name, sizeof(name), t->name);
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

static void subscribe(struct trig *t, bool on)
{
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
		log_warn("session %s: cannot subscribe to its trigger (status %d)", t->name,
			 (int)s);
}

static void close_channel(void)
{
	if (S.chan)
		lttng_notification_channel_destroy(S.chan);
	S.chan = NULL;
	for (size_t i = 0; i < sizeof(T) / sizeof(T[0]); i++)
		T[i].subscribed = false;
}

static bool any(void)
{
	for (size_t i = 0; i < sizeof(T) / sizeof(T[0]); i++)
		if (T[i].used)
			return true;
	return false;
}

/* A firing for session: a snapshot, unless one is being taken or the
 * last one began within the hold-off. */
static void fired(const char *session, int64_t now)
{
	struct trig *t = find(session);
	if (!t)
		return;
	t->fired++;
	if (t->job || snapshot_busy(session) ||
	    (t->last_ns && now - t->last_ns < CARET_CTL_SNAPSHOT_HOLDOFF_MS * NS_PER_MS)) {
		t->coalesced++;
		return;
	}
	struct snapshot_info info;
	snapshot_info(session, &info);
	if (!info.path[0] || !lttng_view_find(S.v, session)) {
		t->coalesced++;
		return;
	}
	log_info("session %s: %s fired: taking a snapshot", session, t->event);
	t->last_ns = now;
	t->job = snapshot_begin(S.v, S.r, session, info.path, CARET_CTL_DEFAULT_TIMEOUT_MS, now);
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
	for (size_t i = 0; i < sizeof(T) / sizeof(T[0]); i++) {
		struct trig *t = &T[i];
		if (!t->job)
			continue;
		bool done;
		cJSON *o = wait_poll(t->job, now, &done);
		cJSON_Delete(o); /* the result is logged by daemon/recording/snapshot.c */
		if (done) {
			wait_free(t->job);
			t->job = NULL;
		}
	}
}

static void drop(struct trig *t);

/* The flight recorders and triggers a caretd before this one left (it
 * was killed or restarted): once the view adopted the recordings, each
 * recording that is a snapshot session goes back into the table (its
 * ring's geometry as the recordings' file kept it), each caretd trigger
 * of such a recording is read again (its event and filter), and every
 * other caretd trigger is unregistered (its recording is gone). */
static void adopt(void)
{
	S.adopted = true;
	for (int i = 0; i < S.v->n_recs; i++) {
		const struct lttng_view_rec *rec = &S.v->recs[i];
		struct snapshot_info info;
		snapshot_info(rec->name, &info);
		if (!info.known && lttng_view_ops(S.v)->snapshot_mode(rec->name, NULL, 0) == 1) {
			snapshot_added(rec->name, rec->path, rec->subbuf_size, rec->subbuf_count);
			snapshot_set_written(rec->name, rec->snapshots);
			log_info("session %s: a flight recorder, adopted (%llu snapshots written)",
				 rec->name, (unsigned long long)rec->snapshots);
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
		struct snapshot_info info;
		snapshot_info(session, &info);
		const struct lttng_condition *c = lttng_trigger_get_const_condition(tr);
		const struct lttng_event_rule *rule = NULL;
		if (info.known && !find(session) && c &&
		    lttng_condition_event_rule_matches_get_rule(c, &rule) ==
			    LTTNG_CONDITION_STATUS_OK && rule &&
		    lttng_event_rule_user_tracepoint_get_name_pattern(rule, &event) ==
			    LTTNG_EVENT_RULE_STATUS_OK && event &&
		    strlen(event) <= CARET_CTL_SNAPSHOT_ON_MAX) {
			if (lttng_event_rule_user_tracepoint_get_filter(rule, &filter) !=
			    LTTNG_EVENT_RULE_STATUS_OK)
				filter = NULL;
			for (size_t k = 0; k < sizeof(T) / sizeof(T[0]); k++) {
				if (T[k].used)
					continue;
				T[k] = (struct trig){ .used = true };
				snprintf(T[k].name, sizeof(T[k].name), "%s", session);
				snprintf(T[k].event, sizeof(T[k].event), "%s", event);
				snprintf(T[k].filter, sizeof(T[k].filter), "%s", filter ? filter : "");
				log_info("session %s: its trigger on %s adopted", session, event);
				break;
			}
			continue;
		}
		if (!find(session)) {
			log_info("trigger %s of a recording that is gone: unregistered", name);
			lttng_unregister_trigger(tr);
		}
	}
	lttng_triggers_destroy(all);
}

static uint64_t on_tick(void *arg)
{
	(void)arg;
	int64_t now = caret_now_ns();
	if (!S.adopted && S.v->ok && S.v->state_loaded)
		adopt();
	if (!any()) {
		close_channel();
		return S.adopted ? LOOP_IDLE : 200 * USEC_PER_MS;
	}
	/* a recording destroyed outside caretd (lttng destroy): its trigger
	 * would fire for nothing, for good */
	for (size_t i = 0; S.v->ok && S.v->state_loaded && i < sizeof(T) / sizeof(T[0]); i++)
		if (T[i].used && !lttng_view_find_rec(S.v, T[i].name)) {
			log_info("session %s ended outside caretd: its trigger goes", T[i].name);
			drop(&T[i]);
		}
	if (!any())
		return LOOP_IDLE;
	if (!S.chan)
		S.chan = lttng_notification_channel_create(lttng_session_daemon_notification_endpoint);
	for (size_t i = 0; S.chan && i < sizeof(T) / sizeof(T[0]); i++)
		if (T[i].used && !T[i].subscribed)
			subscribe(&T[i], true);
	read_notifications(now);
	poll_jobs(now);
	return TICK_USEC;
}

int snapshot_trigger_start(struct loop *l, const struct snapshot_trigger_ops *ops)
{
	memset(&S, 0, sizeof(S));
	memset(T, 0, sizeof(T));
	S.v = ops->lttng;
	S.r = ops->reg;
	S.job = LOOP_JOB("snapshot triggers", LOOP_OBSERVE, on_tick, NULL);
	int rc = loop_add(l, &S.job);
	S.started = rc >= 0;
	return rc;
}

static void drop(struct trig *t)
{
	if (t->job)
		wait_free(t->job);
	if (t->subscribed)
		subscribe(t, false);
	char name[CARET_LTTNG_NAME_MAX + 32];
	trigger_name(name, sizeof(name), t->name);
	if (unregister_named(name) < 0)
		log_warn("session %s: its trigger %s could not be unregistered", t->name, name);
	memset(t, 0, sizeof(*t));
}

void snapshot_trigger_stop(void)
{
	for (size_t i = 0; i < sizeof(T) / sizeof(T[0]); i++)
		if (T[i].used)
			drop(&T[i]);
	if (S.started)
		loop_remove(&S.job);
	S.started = false;
	close_channel();
}

int snapshot_trigger_begin(const char *session, const char *event, const char *filter,
			   char *err, size_t errlen)
{
	/* nothing would read its notifications (a test's commands without
	 * caretd's loop): no trigger registered in the session daemon */
	if (!S.started)
		return caret_errf(err, errlen, -ENOTSUP, "snapshot triggers are not read here");
	struct trig *t = find(session);
	if (t)
		drop(t);
	for (size_t i = 0; !t && i < sizeof(T) / sizeof(T[0]); i++)
		if (!T[i].used)
			t = &T[i];
	if (!t)
		return caret_errf(err, errlen, -ENOSPC, "too many snapshot triggers");
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", session);
	snprintf(t->event, sizeof(t->event), "%s", event);
	snprintf(t->filter, sizeof(t->filter), "%s", filter ? filter : "");
	int rc = trigger_register(t, err, errlen);
	if (rc < 0) {
		memset(t, 0, sizeof(*t));
		return rc;
	}
	t->used = true;
	log_info("session %s: a snapshot whenever %s%s%s fires", session, event,
		 t->filter[0] ? " with filter " : "", t->filter);
	if (S.started)
		loop_job_soon(&S.job, 0);
	return 0;
}

void snapshot_trigger_end(const char *session)
{
	struct trig *t = find(session);
	if (!t)
		return;
	log_info("session %s: its trigger on %s fired %" PRIu64 " times (%" PRIu64 " coalesced)",
		 session, t->event, t->fired, t->coalesced);
	drop(t);
}

int snapshot_trigger_add_status(cJSON *o)
{
	cJSON *all = cJSON_GetObjectItemCaseSensitive(o, CARET_CTL_K_RECORDINGS), *x;
	cJSON_ArrayForEach(x, all) {
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(x, CARET_CTL_K_SESSION);
		const struct trig *t = cJSON_IsString(s) ? find(s->valuestring) : NULL;
		if (!t)
			continue;
		if (!cJSON_AddStringToObject(x, CARET_CTL_K_SNAPSHOT_ON, t->event) ||
		    (t->filter[0] &&
		     !cJSON_AddStringToObject(x, CARET_CTL_K_SNAPSHOT_FILTER, t->filter)) ||
		    !cJSON_AddNumberToObject(x, CARET_CTL_K_TRIGGERED, (double)t->fired) ||
		    !cJSON_AddNumberToObject(x, CARET_CTL_K_COALESCED, (double)t->coalesced))
			return -ENOMEM;
	}
	return 0;
}
