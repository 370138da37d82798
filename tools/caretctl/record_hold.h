/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `record` holds its recording while it runs (caretd's `hold`,
 * daemon/server/cmd_hold.h): one connection kept open, which caretd takes
 * as the requester's presence. caretctl gone without a release (SIGKILL,
 * a second signal, its terminal lost), caretd stops the recording as
 * `caretctl stop` would. Released only where caretctl(1) says the
 * recording is left running (exit 4 without --duration).
 */
#ifndef CARETCTL_RECORD_HOLD_H
#define CARETCTL_RECORD_HOLD_H

#include <stdbool.h>

#include "caretctl.h"
#include "conn.h"
#include "proto/caret_ctl_limits.h"

struct cli_hold {
	struct cli_conn c;
	bool open;  /* c holds the recording */
	bool ended; /* caretd said the hold is over (the recording ended or
		     * was released): not held again */
	char session[CARET_CTL_SESSION_NAME_MAX + 1];
};

/* Holds session (a warning when it cannot: the recording then runs on if
 * this command is killed). 0 or a negative errno. */
int cli_hold_take(const struct cli_opts *g, struct cli_hold *h, const char *session);
/* Holds session over c, a `record` request's connection whose result said
 * it holds the recording (its "hold"): taken over by h. */
void cli_hold_adopt(struct cli_hold *h, const char *session, struct cli_conn *c);
/* Reads what caretd said on the hold, without waiting: its end, or the
 * connection lost (caretd restarted), then holds again when caretd is
 * there (a restarted caretd has no hold). */
void cli_hold_check(const struct cli_opts *g, struct cli_hold *h);
/* The recording runs on after this command: every hold of it ends. 0 or a
 * negative errno (warned). */
int cli_hold_release(const struct cli_opts *g, struct cli_hold *h);
/* Whether caretd stops the recording when this command exits. */
bool cli_hold_held(const struct cli_hold *h);

#endif
