/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Rotating recordings (issue 23): LTTng rotates the session into archived
 * chunks (size and periodic rotation schedules of lttng-ctl), and every
 * chunk gets a full, paced replay of every live process's init records,
 * so that each chunk alone is a complete CARET trace.
 *
 * How: caretd registers a notify trigger on the session's rotation
 * conditions (ongoing, completed) and reads the notification channel on
 * its own timer (lttng_notification_channel_has_pending_notification
 * never blocks; the channel has no pollable descriptor in 2.13). When a
 * rotation starts (the ongoing notification: lttng-sessiond sends it once
 * the consumers switched every stream's packet), every event written from
 * then on goes to the new chunk, while LTTng archives the old one: the
 * session gets a new serial in the LTTng view, as if it had just become
 * active, and the scheduler replays every live agent's cache into it
 * again while the agents stay in RECORD (registry.h extra_pass): runtime
 * events keep flowing, nothing is discarded (the pacer paces the pass as
 * any other). The completion (the archive, about 0.5 s later) only lists
 * and bounds the archives. When the next rotation starts, the closing
 * chunk is complete if every live agent had finished that pass; a chunk that is
 * not (a pass longer than the period, caretd absent) is named, in the log
 * and in `status` / `stop`. So is a chunk that may hold an init record
 * twice (what `caretctl check` also calls incomplete): more than one pass
 * began in some agent while it was written (each agent's pass epoch is
 * compared at every rotation start: another session's replay, LTTng
 * cannot target one session), or a pass was still running when the
 * previous chunk was rotated (it goes on into this one, which then gets
 * its own full pass too).
 *
 * lttng-sessiond 2.13.9 dies when a session-rotation trigger is
 * unregistered while its session stops, and now and then after it is
 * gone: caretd leaves them to the session's own teardown
 * (daemon/recording/rotation_lttng.c).
 *
 * The disk bound (keep, max_size) is applied after every rotation by
 * daemon/recording/chunks.h, with the recording owner's rights.
 *
 * A recording's rotation is its own (struct recording's rot), begun, gone,
 * quiesced and ended through rotation_feature (daemon/recording/features.h);
 * the module's timer is rotation_start()'s, at start-up. The LTTng
 * calls that stop and find sessions go through the view's ops table
 * (lttng_view_ops()); the rotation schedules, triggers and notification
 * channel are lttng-ctl's, in daemon/recording/rotation_lttng.h, called through its
 * own ops table (struct rotation_lttng_ops: check_commands fakes it). The
 * parts of rotation are listed in daemon/recording/rotation.c.
 */
#ifndef CARETD_ROTATION_H
#define CARETD_ROTATION_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/base/loop.h"
#include "daemon/agents/registry.h"
#include "daemon/recording/recordings.h"
#include "daemon/recording/rotation_report.h"
#include "daemon/recording/rotation_state.h"

/* The rotation fields of a decoded record request (the decoder checked
 * their ranges and combinations: proto/caret_ctl_req.c). */
struct caret_ctl_record_req;
void rotation_opts_of(const struct caret_ctl_record_req *q, struct rotation_opts *o);

/* Its collaborators, handed to rotation_start. */
struct rotation_ops {
	struct recordings *recs;
	struct registry *reg;
};
int rotation_start(struct loop *l, const struct rotation_ops *ops);
void rotation_stop(void);

/*
 * A recording whose rot.o asks for rotation rotates (an armed one: once
 * it goes): triggers, subscription, then LTTng's schedules; begin fails
 * (nothing left behind) when it cannot. Its quiesce, just before the
 * stop: no new rotation starts (its schedules go), so the stop's own
 * archiving is the last chunk, never an empty one; then LTTng's
 * notifications are read, so that a rotation begun just before the stop
 * is seen, and -EAGAIN while the chunk being written lacks some live
 * process's replay (for at most ROTATION_STOP_WAIT_MS after the first
 * refusal: then 0, and the chunk is named incomplete). Its end reads the
 * last notifications and leaves the report (struct recording_end).
 */
#define ROTATION_STOP_WAIT_MS 10000
extern const struct recording_feature_ops rotation_feature;

/*
 * When the notification channel is read next for t, in µs from now_ns
 * (CLOCK_MONOTONIC): every ROTATION_TICK_USEC, but every
 * ROTATION_FAST_USEC from ROTATION_EARLY_MS before a periodic rotation is
 * due (its period after the last start's notice) until ROTATION_LATE_MS
 * after: the consumers switch the streams up to a tick before caretd
 * notices, and the pass waits for that notice (bench/NOTES.md, P11).
 */
#define ROTATION_TICK_USEC 20000
#define ROTATION_FAST_USEC 2000
#define ROTATION_EARLY_MS 30
#define ROTATION_LATE_MS 100
uint64_t rotation_read_delay_usec(const struct rotation *t, int64_t now_ns);

/* Whether the recording `session` rotates (or will, armed). */
bool rotation_is_rotating(struct recordings *t, const char *session);

#endif
