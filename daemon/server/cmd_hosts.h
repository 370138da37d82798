/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `hosts` (caretctl status --all-hosts): this host's processes and every
 * other host the bridge heard from, as proto/caret_ctl_hosts.h's struct;
 * daemon/server/commands.c encodes it.
 */
#ifndef CARETD_CMD_HOSTS_H
#define CARETD_CMD_HOSTS_H

#include "daemon/server/cmd.h"
#include "proto/caret_ctl_hosts.h"

struct cmd_host_names;

/* The result, with the storage its strings point into. */
struct cmd_hosts_res {
	struct caret_ctl_hosts h;
	char me[256];
	struct caret_ctl_host *hosts;
	struct caret_ctl_host_proc *procs;
	struct cmd_host_names *names; /* this host's processes' names and nodes */
};

/* Wakes a bridge asleep (the user asks about the other hosts). 0 with res
 * filled (free with cmd_hosts_free), or -ENOMEM with e said. */
int cmd_hosts(const struct cmd_ctx *ctx, int64_t now, struct cmd_hosts_res *res,
	      struct cmd_err *e);
void cmd_hosts_free(struct cmd_hosts_res *res);

#endif
