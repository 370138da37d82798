/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The control commands (protocol: proto/caret_ctl.h). One request line in,
 * one reply object out (or a wait request to poll); they never touch a
 * socket.
 */
#ifndef CARETD_COMMANDS_H
#define CARETD_COMMANDS_H

#include <cjson/cJSON.h>
#include <sys/types.h>

#include "daemon/events.h"
#include "daemon/bridge.h"
#include "daemon/lttng_view.h"
#include "daemon/registry.h"
#include "daemon/scheduler.h"
#include "daemon/wait.h"

/* What the commands may read and change, and nothing more. */
struct cmd_ctx {
	struct registry *reg;
	struct sched_cfg *sched;
	struct lttng_view *lttng;
	struct events *events; /* NULL: `events` is refused */
	struct bridge *bridge; /* may be NULL (tests): no other hosts */
	/* the daemon's default channel geometry for `record` (NULL: LTTng's) */
	const uint64_t *subbuf_size;
	const uint32_t *subbuf_count;
};

/* Who sent the request (SO_PEERCRED, SO_PEERGROUPS of the connection). */
#define CMD_PEER_MAX_GROUPS 64
struct cmd_peer {
	pid_t pid;
	uid_t uid;
	gid_t gid;
	int n_groups; /* -1: not known */
	gid_t groups[CMD_PEER_MAX_GROUPS];
};

struct cmd_out {
	cJSON *reply;          /* the reply to send, or NULL when wait is set */
	struct wait_req *wait; /* a long-running request for the caller to poll */
};

void command_run(const struct cmd_ctx *ctx, const struct cmd_peer *peer, const char *line,
		 int64_t now_ns, struct cmd_out *out);

#endif
