/* SPDX-License-Identifier: Apache-2.0 */
/* "top" (proto/caret_ctl_top.h): the requester's processes (root: all;
 * the rule of cmd_may_act_for), watched for the request's lease. */
#ifndef CARETD_CMD_TOP_H
#define CARETD_CMD_TOP_H

#include "daemon/server/cmd.h"
#include "proto/caret_ctl_top.h"

/* res's rows: top_result_free (daemon/server/top.h) once encoded. */
int cmd_top(const struct cmd_ctx *ctx, const struct cmd_peer *peer,
	    const struct caret_ctl_top_req *q, int64_t now_ns, struct caret_ctl_top *res,
	    struct cmd_err *e);

#endif
