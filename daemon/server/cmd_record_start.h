/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `record` while LTTng starts its session off the loop
 * (daemon/lttng/lttng_start.h): the request's reply deferred, as a
 * long-running request the server polls (daemon/agents/wait.h), with a
 * progress line a second saying what caretd waits for; the recording made
 * (recordings_make_finish) once the start ends, and its result sent then.
 *
 * A requester that leaves first (its connection closed: caretctl killed
 * or interrupted) owns nothing that runs on: the session is stopped once
 * LTTng's start returns, and never enters the table; one that leaves
 * between the start's end and its result has the recording stopped too.
 */
#ifndef CARETD_CMD_RECORD_START_H
#define CARETD_CMD_RECORD_START_H

#include "daemon/server/cmd.h"

/* What cmd_record.c does once a recording is made (its log line, its
 * Start, the broadcast into res), in line or at the start's end. */
typedef void (*record_made_fn)(const struct cmd_ctx *ctx, const struct record_plan *p,
			       const struct recording *rec, struct cmd_record_res *res);

/*
 * Starts making the recording made describes (record_remember's, admitted
 * already: recordings_make_admit) from the plan p: its session made off
 * the loop; *wait, polled by the server, answers. 0, or a negative errno
 * with e (nothing made: the caller ends the admission with
 * recordings_make_finish).
 */
int record_start_begin(const struct cmd_ctx *ctx, const struct record_plan *p,
		       const struct recording *made, record_made_fn made_fn,
		       struct wait_req **wait, struct cmd_err *e);

#endif
