/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `hold` (proto/caret_ctl.h): a recording's requester holds it while it
 * runs, over one open connection (caretctl record keeps it for as long as
 * it records). When that connection closes without a release (caretctl
 * killed with SIGKILL, a second signal, its terminal lost), the recording
 * is stopped as `stop` stops it (daemon/server/cmd_stop.c: quiesced,
 * stopped, its features ended, the trace kept): a recording whose
 * requester left is never orphaned. A release (caretctl's exit 4 without
 * --duration) lets it run on unheld.
 *
 * The connection of the `record` that made it may be that hold (its
 * "hold": cmd_hold_record), from the moment it is made.
 *
 * Holds live in the connections and nowhere else: caretd exiting ends
 * none of its recordings (cmd_hold_shutdown), and a caretd restarted has
 * no hold until the caretctl still recording holds again.
 */
#ifndef CARETD_CMD_HOLD_H
#define CARETD_CMD_HOLD_H

#include "daemon/server/cmd.h"

struct cmd_hold_res {
	char session[CARET_LTTNG_NAME_MAX];
};

/*
 * A hold: 0 with *wait set, the request in progress the server polls (its
 * first line answers, its last comes when the recording ends or is
 * released; closed before, it stops the recording). A release: 0 with
 * *wait NULL, every hold of the recording ended. ENOENT without such a
 * recording, EPERM when it is another user's (cmd_may_act_for).
 */
int cmd_hold(const struct cmd_ctx *ctx, const struct cmd_peer *peer,
	     const struct caret_ctl_hold_req *q, struct cmd_hold_res *res, struct wait_req **wait,
	     struct cmd_err *e);

/*
 * record's "hold": the record request's own connection becomes the hold
 * of the recording it made, so that no moment passes between its result
 * and its requester's hold (a caretctl killed then would orphan it).
 * record: the request deferred while LTTng starts the session
 * (cmd_record_start.h), whose result becomes the hold's first line;
 * else *first, the result answered in line, of the recording session.
 * The hold's wait, which owns record and *first (NULL then); NULL, nothing
 * taken, when out of memory or session is gone: the request is answered
 * unheld (no "held" in its result: its requester holds with `hold`).
 */
struct wait_req *cmd_hold_record(const struct cmd_ctx *ctx, const struct cmd_peer *peer,
				 const char *session, struct wait_req *record, wait_line **first);

/* Whether a connection holds rec now (status's "held"): closed, it would
 * stop rec. */
bool cmd_hold_held(const struct recording *rec);

/* caretd exits: the connections closing from now on stop nothing. */
void cmd_hold_shutdown(void);

#endif
