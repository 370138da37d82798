/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The commands that call LTTng, queued behind a session start that runs
 * off the loop (daemon/lttng/lttng_start.h). lttng-sessiond answers one
 * client at a time: a `stop`, `pause`, `resume`, `snapshot`, an armed
 * recording's `go` or a relay's `record` sent while it starts a session
 * would block caretd's loop, every other request, tick and replay with
 * it, until that start ends (tens of seconds with many processes). Such a
 * request waits instead, as a long-running request the server polls
 * (daemon/agents/wait.h): a progress line a second saying what it waits
 * for, then it runs as it would have, once the start ended. `status`,
 * `top`, `hosts` and the other requests that do not call LTTng are
 * answered at once meanwhile.
 *
 * Bounded: at most CMD_QUEUE_MAX requests wait at once (more are refused
 * with EAGAIN), each for at most CMD_QUEUE_MAX_WAIT_S (then ETIMEDOUT); a
 * requester that leaves takes its request out.
 */
#ifndef CARETD_CMD_QUEUE_H
#define CARETD_CMD_QUEUE_H

#include "daemon/server/cmd.h"

#define CMD_QUEUE_MAX 32
#define CMD_QUEUE_MAX_WAIT_S 600

/* The request once the start ended: its reply, or NULL and *wait (a
 * long-running one, polled from then on). commands.c's. */
typedef wait_line *(*cmd_queue_run_fn)(const struct cmd_ctx *ctx, const struct cmd_peer *peer,
				       const char *line, int64_t now_ns, struct wait_req **wait);

/* Whether q calls LTTng, so waits while a start runs. */
bool cmd_queue_wanted(const struct caret_ctl_req *q);

/*
 * line (q's text) queued behind the running start: *wait answers it. 0,
 * or -EAGAIN (too many wait), -ENOMEM, with e.
 */
int cmd_queue_defer(const struct cmd_ctx *ctx, const struct cmd_peer *peer, const char *line,
		    cmd_queue_run_fn run, int64_t now_ns, struct wait_req **wait,
		    struct cmd_err *e);

#endif
