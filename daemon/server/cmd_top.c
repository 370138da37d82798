/* SPDX-License-Identifier: Apache-2.0 */
/* "top" (cmd_top.h). */
#include <errno.h>

#include "daemon/server/cmd_top.h"
#include "daemon/server/top.h"
#include "daemon/server/top_hosts.h"

static bool may_see(uid_t owner, const void *arg)
{
	return cmd_may_act_for(arg, owner);
}

int cmd_top(const struct cmd_ctx *ctx, const struct cmd_peer *peer,
	    const struct caret_ctl_top_req *q, int64_t now_ns, struct caret_ctl_top *res,
	    struct cmd_err *e)
{
	if (!ctx->top)
		return cmd_fail(e, ENOSYS, "top is not served here");
	int r = top_collect(ctx->top, may_see, peer, q->lease_ms, now_ns, res, e->msg,
			    sizeof(e->msg));
	if (r < 0 || !q->all_hosts)
		return r;
	if ((r = top_hosts_add(ctx->bridge, q->lease_ms, now_ns, res)) < 0) {
		top_result_free(res);
		return cmd_fail(e, -r, "out of memory");
	}
	return 0;
}
