/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Rotation's lttng-ctl calls (daemon/recording/rotation.h): the notify triggers on
 * a session's rotation conditions (ongoing, completed), their deferred
 * unregistration, the notification channel and the subscriptions on it,
 * the rotation schedules. Notifications go back to the caller through a
 * callback of its own, never by calling up.
 */
#ifndef CARETD_ROTATION_LTTNG_H
#define CARETD_ROTATION_LTTNG_H

#include <stdbool.h>
#include <stddef.h>

#include "daemon/recording/rotation_state.h"

/* Forgets the channel and the deferred unregistrations (at start-up). */
void rotation_lttng_reset(void);

/* Registers both triggers of a session (one a killed caretd left is
 * taken as is): 0 or -errno with why in err. */
int rotation_lttng_register(const char *session, char *err, size_t errlen);
/*
 * caretd does not unregister a session's rotation triggers: lttng-sessiond
 * 2.13.9 dies (a fatal error) when one is unregistered while its session
 * stops, and, measured here, now and then when it is unregistered after
 * the session left the session list (4 of 10 runs of
 * test_other_sessions_replay_into_chunks; 0 of 14 without unregistering).
 * Measured too: once the session is destroyed, `lttng list-triggers` no
 * longer shows them (the same test asserts it), so the session daemon's
 * own teardown and our unregistration raced. They are named after the
 * session: a recording of that name while they exist takes them over
 * (LTTNG_ERR_TRIGGER_EXISTS in rotation_lttng.c's trigger()).
 */

/* The notification channel, and every recording subscribed on it. */
void rotation_lttng_ensure_channel(void);
void rotation_lttng_close_channel(void);
/* Subscribes t (on) to its rotations, or unsubscribes it: 0 or -errno. */
int rotation_lttng_subscribe(struct rotation *t, bool on);
/* Adds the size and periodic schedules o asks for: 0 or -errno. */
int rotation_lttng_schedule(const char *session, const struct rotation_opts *o, char *err, size_t errlen);
/* Removes every rotation schedule of a session (before its stop: no
 * periodic rotation then archives an empty chunk at the destruction):
 * 0 or -errno. */
int rotation_lttng_unschedule(const char *session);

enum rotation_lttng_event {
	ROTL_ONGOING,   /* a rotation of t's session started */
	ROTL_COMPLETED, /* it completed; where: the archived chunk, or NULL */
	ROTL_DROPPED,   /* notifications were dropped: t's may be among them */
};
typedef void rotation_lttng_on_event(enum rotation_lttng_event ev, struct rotation *t, const char *where, void *arg);
/* Reads the pending notifications (never blocks), each to cb. */
void rotation_lttng_read_notifications(rotation_lttng_on_event *cb, void *arg);

/*
 * The calls above that reach lttng-ctl, as rotation makes them: through
 * rotl() (rotation_lttng_ops_real unless a test gave a fake, which keeps
 * the same contract: subscribe and ensure_channel set t->subscribed).
 */
struct rotation_lttng_ops {
	int (*register_triggers)(const char *session, char *err, size_t errlen);
	void (*ensure_channel)(void);
	void (*close_channel)(void);
	int (*subscribe)(struct rotation *t, bool on);
	int (*schedule)(const char *session, const struct rotation_opts *o, char *err,
			size_t errlen);
	int (*unschedule)(const char *session);
	void (*read_notifications)(rotation_lttng_on_event *cb, void *arg);
};
extern const struct rotation_lttng_ops rotation_lttng_ops_real;
const struct rotation_lttng_ops *rotl(void);
/* For tests: ops (NULL: the real ones again), kept across rotation_start. */
void rotation_lttng_set_ops(const struct rotation_lttng_ops *ops);

#endif
