/* SPDX-License-Identifier: Apache-2.0 */
/* caretctl's multi-host pieces: --all-hosts for record, stop, start, end
 * and status (caretd's DDS bridge does the talking; caretd(8)). */
#ifndef CARETCTL_HOSTS_H
#define CARETCTL_HOSTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "caretctl.h"
#include "rpc.h"

/* Prints what the result's "broadcast" says (nothing if absent); a failed
 * broadcast is a warning: the local action happened. */
void cli_report_broadcast(const struct cli_reply *r, const char *what);

/* `caretctl status --all-hosts [--timeout S]`. */
int cli_status_all_hosts(const struct cli_opts *g, int64_t timeout_ms);

/* `caretctl start|end --all-hosts`. */
int cli_startend_all_hosts(const struct cli_opts *g, const char *cmd);

/* After a record --all-hosts --set-url: until every process the other
 * hosts report is in RECORD, at most timeout_ms; prints one line per host.
 * CLI_EXIT_OK, CLI_EXIT_TIMEOUT, or the failure to ask caretd. */
int cli_wait_remote(const struct cli_opts *g, int64_t timeout_ms, FILE *info);

/* Stop with "all_hosts" set: End (and relay stop) to every host. */
int cli_stop_session_all(const struct cli_opts *g, const char *session, bool all_hosts);

/* While caretd is away: true when LTTng says session no longer exists.
 * Only root's client sees every session of root's session daemon (a
 * user's liblttng-ctl may reach a daemon of their own, where it is not):
 * for anyone else, false (unknown). */
bool cli_session_gone_direct(const char *session);

#endif
