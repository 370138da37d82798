/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `record`'s request (a recording made now, or armed): caretd answers once
 * LTTng has started the session, which with many processes takes tens of
 * seconds (issue 34). Meanwhile caretd says what it waits for, and this
 * shows it on standard error; caretctl waits as long as caretd speaks.
 */
#ifndef CARETCTL_RECORD_START_H
#define CARETCTL_RECORD_START_H

#include "conn.h"
#include "rpc.h"

/* How long caretd may stay silent: it sends a line a second while LTTng
 * starts; an older caretd answers within its former 30 s. */
#define CLI_RECORD_QUIET_MS (CLI_RECORD_MS + CLI_SLACK_MS)

/*
 * Sends q (a `record`), shows caretd's progress while LTTng starts the
 * session, and returns an exit status: CLI_EXIT_OK with the result in
 * *out, or the failure reported. A stopping signal during the wait ends
 * it: the connection closed, caretd stops the session it was making for
 * us (daemon/server/cmd_record_start.h); 128 + the signal then.
 * keep (NULL: none): a result saying its connection holds the recording
 * (the request's "hold") leaves that connection open in *keep, for
 * record_hold.h to go on holding with; keep->fd is -1 otherwise (a caretd
 * before "hold" answers without "held").
 */
int cli_record_start(const struct cli_opts *g, const struct caret_ctl_req *q,
		     struct cli_reply *out, struct cli_conn *keep);

#endif
