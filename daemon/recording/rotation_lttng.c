/* SPDX-License-Identifier: Apache-2.0 */
/* Rotation's lttng-ctl calls (daemon/recording/rotation_lttng.h). */
#include <errno.h>
#include <lttng/lttng.h>
#include <stdio.h>
#include <string.h>

#include "daemon/base/log.h"
#include "lib/lttng/session.h"
#include "daemon/recording/rotation_lttng.h"

static struct {
	struct lttng_notification_channel *chan;
} L;

static int trigger(const char *session, bool completed, char *err, size_t errlen);

void rotation_lttng_reset(void)
{
	memset(&L, 0, sizeof(L));
}

/* Both notify triggers of a session (ongoing, completed): 0 or -errno. */
int rotation_lttng_register(const char *session, char *err, size_t errlen)
{
	int rc = trigger(session, false, err, errlen);
	if (rc == 0)
		rc = trigger(session, true, err, errlen);
	return rc;
}

static struct lttng_condition *condition(const char *session, bool completed)
{
	struct lttng_condition *c = completed ? lttng_condition_session_rotation_completed_create()
					      : lttng_condition_session_rotation_ongoing_create();
	if (c && lttng_condition_session_rotation_set_session_name(c, session) !=
			 LTTNG_CONDITION_STATUS_OK) {
		lttng_condition_destroy(c);
		c = NULL;
	}
	return c;
}

static void trigger_name(char *buf, size_t len, const char *session, bool completed)
{
	snprintf(buf, len, "caretd-rotation-%s:%s", completed ? "completed" : "ongoing", session);
}

/* Registers (register) or unregisters one notify trigger: 0 or -errno. */
static int trigger(const char *session, bool completed, char *err, size_t errlen)
{
	struct lttng_condition *c = condition(session, completed);
	struct lttng_action *a = lttng_action_notify_create();
	struct lttng_trigger *t = c && a ? lttng_trigger_create(c, a) : NULL;
	int rc = 0;
	if (!t) {
		rc = -ENOMEM;
		snprintf(err, errlen, "lttng: cannot make a rotation trigger");
	} else {
		char name[CARET_LTTNG_NAME_MAX + 64];
		trigger_name(name, sizeof(name), session, completed);
		enum lttng_error_code e = lttng_register_trigger_with_name(t, name);
		/* a recording of the same name before (triggers stay), or a
		 * caretd killed before, left the same one: take it over */
		if (e != LTTNG_OK && e != LTTNG_ERR_TRIGGER_EXISTS) {
			rc = -EIO;
			snprintf(err, errlen, "lttng: registering the rotation trigger of %s: %s",
				 session, lttng_strerror(-(int)e));
		}
	}
	lttng_trigger_destroy(t);
	lttng_action_destroy(a);
	lttng_condition_destroy(c);
	return rc;
}

void rotation_lttng_close_channel(void)
{
	if (L.chan)
		lttng_notification_channel_destroy(L.chan);
	L.chan = NULL;
	for (int i = 0; i < MAX_ROT; i++)
		rotation_at(i)->subscribed = false;
}

int rotation_lttng_subscribe(struct rotation *t, bool on)
{
	if (!L.chan)
		return on ? -ENOTCONN : 0;
	int rc = 0;
	for (int k = 0; k < 2; k++) {
		struct lttng_condition *c = condition(t->name, k == 1);
		if (!c)
			return -ENOMEM;
		enum lttng_notification_channel_status s =
			on ? lttng_notification_channel_subscribe(L.chan, c)
			   : lttng_notification_channel_unsubscribe(L.chan, c);
		lttng_condition_destroy(c);
		if (s != LTTNG_NOTIFICATION_CHANNEL_STATUS_OK &&
		    s != LTTNG_NOTIFICATION_CHANNEL_STATUS_ALREADY_SUBSCRIBED && on)
			rc = -EIO;
	}
	t->subscribed = on && rc == 0;
	return rc;
}

/* The channel, and every recording subscribed on it. */
void rotation_lttng_ensure_channel(void)
{
	if (!L.chan) {
		L.chan = lttng_notification_channel_create(lttng_session_daemon_notification_endpoint);
		if (!L.chan)
			return;
	}
	for (int i = 0; i < MAX_ROT; i++) {
		struct rotation *t = rotation_at(i);
		if (t->used && !t->armed && !t->adopting && !t->subscribed &&
		    rotation_lttng_subscribe(t, true) < 0)
			log_warn("session %s: cannot subscribe to its rotations", t->name);
	}
}

int rotation_lttng_schedule(const char *session, const struct rotation_opts *o, char *err, size_t errlen)
{
	for (int k = 0; k < 2; k++) {
		uint64_t v = k == 0 ? o->size : o->every_ms;
		if (!v)
			continue;
		struct lttng_rotation_schedule *s = k == 0 ? lttng_rotation_schedule_size_threshold_create()
							   : lttng_rotation_schedule_periodic_create();
		if (!s) {
			snprintf(err, errlen, "lttng: out of memory");
			return -ENOMEM;
		}
		enum lttng_rotation_status st =
			k == 0 ? lttng_rotation_schedule_size_threshold_set_threshold(s, v)
			       : lttng_rotation_schedule_periodic_set_period(s, v * 1000);
		if (st == LTTNG_ROTATION_STATUS_OK)
			st = lttng_session_add_rotation_schedule(session, s);
		lttng_rotation_schedule_destroy(s);
		if (st != LTTNG_ROTATION_STATUS_OK) {
			snprintf(err, errlen, "lttng: adding the %s rotation schedule of session %s "
				 "failed (status %d)", k == 0 ? "size" : "periodic", session, (int)st);
			return -EIO;
		}
	}
	return 0;
}


int rotation_lttng_unschedule(const char *session)
{
	struct lttng_rotation_schedules *all = NULL;
	int ret = lttng_session_list_rotation_schedules(session, &all);
	if (ret < 0 || !all)
		return ret < 0 ? -EIO : 0;
	unsigned int n = 0;
	int rc = 0;
	if (lttng_rotation_schedules_get_count(all, &n) != LTTNG_ROTATION_STATUS_OK)
		n = 0;
	for (unsigned int i = 0; i < n; i++) {
		const struct lttng_rotation_schedule *s = lttng_rotation_schedules_get_at_index(all, i);
		if (s && lttng_session_remove_rotation_schedule(session, s) != LTTNG_ROTATION_STATUS_OK)
			rc = -EIO;
	}
	lttng_rotation_schedules_destroy(all);
	return rc;
}

/* ---- notifications ---- */

static void on_notification(struct lttng_notification *n, rotation_lttng_on_event *cb, void *arg)
{
	const struct lttng_condition *c = lttng_notification_get_condition(n);
	const struct lttng_evaluation *ev = lttng_notification_get_evaluation(n);
	const char *session = NULL;
	if (!c || !ev ||
	    lttng_condition_session_rotation_get_session_name(c, &session) !=
		    LTTNG_CONDITION_STATUS_OK || !session)
		return;
	struct rotation *t = rotation_find(session);
	if (!t)
		return;
	enum lttng_condition_type type = lttng_condition_get_type(c);
	if (type == LTTNG_CONDITION_TYPE_SESSION_ROTATION_ONGOING) {
		cb(ROTL_ONGOING, t, NULL, arg);
		return;
	}
	if (type != LTTNG_CONDITION_TYPE_SESSION_ROTATION_COMPLETED)
		return;
	const struct lttng_trace_archive_location *loc = NULL;
	const char *where = NULL;
	if (lttng_evaluation_session_rotation_completed_get_location(ev, &loc) ==
		    LTTNG_EVALUATION_STATUS_OK && loc &&
	    lttng_trace_archive_location_get_type(loc) == LTTNG_TRACE_ARCHIVE_LOCATION_TYPE_LOCAL)
		lttng_trace_archive_location_local_get_absolute_path(loc, &where);
	cb(ROTL_COMPLETED, t, where, arg);
}

void rotation_lttng_read_notifications(rotation_lttng_on_event *cb, void *arg)
{
	for (int guard = 0; L.chan && guard < 256; guard++) {
		bool pending = false;
		enum lttng_notification_channel_status s =
			lttng_notification_channel_has_pending_notification(L.chan, &pending);
		if (s == LTTNG_NOTIFICATION_CHANNEL_STATUS_NOTIFICATIONS_DROPPED) {
			/* whichever rotation it was: a new pass costs duplicates only */
			for (int i = 0; i < MAX_ROT; i++)
				if (rotation_at(i)->used) {
					log_warn("session %s: rotation notifications dropped",
						 rotation_at(i)->name);
					cb(ROTL_DROPPED, rotation_at(i), NULL, arg);
				}
			continue;
		}
		if (s != LTTNG_NOTIFICATION_CHANNEL_STATUS_OK) {
			log_warn("rotation notifications: channel lost (status %d); reconnecting",
				 (int)s);
			rotation_lttng_close_channel();
			return;
		}
		if (!pending)
			return;
		struct lttng_notification *n = NULL;
		s = lttng_notification_channel_get_next_notification(L.chan, &n);
		if (s == LTTNG_NOTIFICATION_CHANNEL_STATUS_OK && n)
			on_notification(n, cb, arg);
		lttng_notification_destroy(n);
		if (s != LTTNG_NOTIFICATION_CHANNEL_STATUS_OK &&
		    s != LTTNG_NOTIFICATION_CHANNEL_STATUS_NOTIFICATIONS_DROPPED) {
			rotation_lttng_close_channel();
			return;
		}
	}
}

const struct rotation_lttng_ops rotation_lttng_ops_real = {
	.register_triggers = rotation_lttng_register,
	.ensure_channel = rotation_lttng_ensure_channel,
	.close_channel = rotation_lttng_close_channel,
	.subscribe = rotation_lttng_subscribe,
	.schedule = rotation_lttng_schedule,
	.unschedule = rotation_lttng_unschedule,
	.read_notifications = rotation_lttng_read_notifications,
};

static const struct rotation_lttng_ops *ops = &rotation_lttng_ops_real;

const struct rotation_lttng_ops *rotl(void)
{
	return ops;
}

void rotation_lttng_set_ops(const struct rotation_lttng_ops *o)
{
	ops = o ? o : &rotation_lttng_ops_real;
}
