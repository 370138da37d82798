/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The control commands' dispatch (protocol: proto/caret_ctl.h): one request
 * line in, decoded by proto/caret_ctl_req.h, run by the typed commands of
 * daemon/server/cmd.h, and one reply object out (or a wait request to poll). The
 * only place that encodes a command's reply; it never touches a socket.
 */
#ifndef CARETD_COMMANDS_H
#define CARETD_COMMANDS_H

#include <cjson/cJSON.h>

#include "daemon/server/cmd.h"

struct cmd_out {
	cJSON *reply;          /* the reply to send, or NULL when wait is set */
	struct wait_req *wait; /* a long-running request for the caller to poll */
};

void command_run(const struct cmd_ctx *ctx, const struct cmd_peer *peer, const char *line,
		 int64_t now_ns, struct cmd_out *out);

#endif
