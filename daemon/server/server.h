/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The control server: the listening socket (ours or systemd's), peer
 * credentials, clients, line framing and output buffering. The only part
 * of caretd that writes to a socket; requests go to commands.h, and the
 * wait requests they start are polled here.
 */
#ifndef CARETD_SERVER_H
#define CARETD_SERVER_H

#include <stdbool.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "daemon/server/commands.h"
#include "daemon/base/loop.h"

struct server_cfg {
	const char *socket_path; /* ignored when systemd passes a socket */
	gid_t group;             /* may talk to us besides root and our uid */
	bool have_group;
	char group_name[64];     /* its name, for the refusal (no lookup then) */
};

struct server;

/* Listens and registers its sources on loop's event loop, its jobs in the
 * tick; logs why it cannot. -errno. */
int server_start(struct server **out, struct loop *loop, const struct server_cfg *cfg,
		 const struct cmd_ctx *ctx);
/* The waits are polled in this tick's report stage (an agent became
 * complete: a wait may end now rather than at the poll's period); arg is
 * the server. */
void server_poll_waits(void *arg);
/* Closes every client and the socket (removed unless systemd's). */
void server_free(struct server *s);

#endif
