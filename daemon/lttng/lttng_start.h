/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A session's making (caret_lttng_record()) off caretd's loop. With many
 * registered processes lttng_start_tracing() blocks for tens of seconds
 * (lttng-sessiond sets every application up, one after the other: 26-36 s
 * with 50 real rclcpp processes, issue 34); run in the loop, it stalled
 * every request, tick and replay. It runs in caretd's LTTng start helper
 * instead (daemon/lttng/lttng_helper.h: a process spawned at start-up,
 * started again if it dies), which answers on a socket the loop watches.
 *
 * One start at a time: lttng-sessiond serialises its clients anyway, and
 * while a start runs the view reads no session (lttng_view.h, starting);
 * what else would call LTTng meanwhile waits for its end
 * (lttng_start_running: daemon/server/cmd_queue.h, the ticks).
 *
 * Nothing is left running with no owner: the helper stops the session it
 * made when its result cannot be delivered (caretd died or abandoned the
 * start: its socket closed) or caretd cancelled the start, a caller that
 * no longer wants the session it gets stops it
 * (daemon/server/cmd_record_start.h), and a session a helper that died
 * mid-start left is stopped and destroyed by the next helper (the start
 * runs on until then, its error saying so).
 */
#ifndef CARETD_LTTNG_START_H
#define CARETD_LTTNG_START_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "daemon/lttng/lttng_view.h"
#include "daemon/lttng/lttng_start_msg.h"
#include "lib/lttng/session.h"

/* Told once, from the loop: the start ended (or was abandoned: r is
 * -ECANCELED, and the helper stops what it made). */
typedef void (*lttng_start_fn)(void *arg, const struct lttng_start_result *res);

/*
 * caretd's start-up, before any thread: the helper spawned, its socket
 * watched on e. 0, or -errno (logged): starts then run in line.
 *
 * marker (NULL: none): a file naming the session a start makes and where
 * its trace goes (its parent directory or URL), written as it begins,
 * removed when caretd learnt its end. Found at start-up, it names a
 * session a caretd killed mid-start (SIGKILL, systemd's stop timeout)
 * left half-made, owned by no recording: the new helper stops and
 * destroys it, the first start waiting for that (EAGAIN); but only if the
 * session of that name still writes there (lttng_start_drop_ours): one
 * made by someone else since is left as it is, and the marker removed.
 */
int lttng_start_open(sd_event *e, const char *marker);

/* Whether v's starts run off the loop: a helper opened, a view started on
 * a loop, with LTTng's real door (a test's fake records its calls in this
 * process, so its starts stay in line). */
bool lttng_start_async(const struct lttng_view *v);

/*
 * Asks the helper to make the session cfg describes (through LTTng's real
 * door); done is called once, from the loop, with the result (cfg is sent
 * whole: nothing of it is read after this returns). 0, -EAGAIN when a
 * start runs already (caretctl asks again) or the helper died a moment
 * ago, or -errno, with err. A helper that died is started again here.
 */
int lttng_start_begin(struct lttng_view *v, const struct caret_lttng_cfg *cfg,
		      lttng_start_fn done, void *arg, char *err, size_t errlen);

/* The session the running start makes is not wanted: the helper stops it
 * itself once made (off the loop), and says so (res->stopped); done is
 * still called at its end. */
void lttng_start_cancel(void);

/*
 * fn(arg, true) run from the loop once no start runs: at once when none
 * does, else right after the running start's end (its done first), in the
 * order asked. For what calls LTTng outside a request (a held recording's
 * stop when its holder left): in the loop during a start it would block
 * every request and tick until that start ends. fn(arg, false) instead at
 * caretd's exit (lttng_start_abandon): arg is only to be freed. 0, or
 * -ENOMEM (fn not called).
 */
typedef void (*lttng_start_after_fn)(void *arg, bool run);
int lttng_start_after(lttng_start_after_fn fn, void *arg);

/* Whether a start runs, and since when (CLOCK_MONOTONIC ns). */
bool lttng_start_running(int64_t *since_ns);

/*
 * caretd exits: a start still running is cancelled and its end waited for
 * (bounded: a minute), so that the helper stops the session it made before
 * systemd kills it (KillMode=mixed SIGKILLs caretd's group once caretd
 * exited); a result already written is read and its session stopped here,
 * and done called with -ECANCELED. An idle helper is told to exit (its
 * socket closed) and waited for, briefly. What waits in lttng_start_after
 * is dropped (fn(arg, false)).
 */
void lttng_start_abandon(void);

#endif
