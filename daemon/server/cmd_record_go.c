/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `record`'s {"go": session} (caretctl's Enter): an armed recording starts
 * recording. A request of its own in all but its name on the wire (its
 * decoder takes nothing else with it), dispatched apart as `record`'s
 * "plan" is (cmd_record_plan.c); once enabled, the recording starts as
 * one made at once does (cmd_record_started).
 */
#include <errno.h>
#include <string.h>

#include "daemon/server/cmd.h"
#include "daemon/recording/recordings_make.h"

/* The armed recording of that name the requester may start. */
static int armed_of(const struct cmd_ctx *ctx, const struct cmd_peer *peer, const char *name,
		    struct recording **out, struct cmd_err *e)
{
	struct recording *rec = recordings_find(ctx->recs, name);
	uid_t owner;
	uint32_t after;
	if (!rec && recordings_expired(ctx->recs, name, &owner, &after) &&
	    cmd_may_act_for(peer, owner))
		return cmd_fail(e, ETIMEDOUT, "armed recording %s expired: not started within "
				"%u s of arming (caretd --arm-timeout), its session is gone; "
				"record again", name, after);
	if (!rec || !rec->armed)
		return cmd_fail(e, ENOENT, "no armed recording named %s", name);
	if (!cmd_may_act_for(peer, rec->uid))
		return cmd_fail(e, EPERM, "recording %s is not yours", name);
	*out = rec;
	return 0;
}

int cmd_record_go(const struct cmd_ctx *ctx, const struct cmd_peer *peer,
		  const struct caret_ctl_record_req *q, struct cmd_record_res *res,
		  struct cmd_err *e)
{
	memset(res, 0, sizeof(*res));
	struct recording *rec = NULL;
	int r = armed_of(ctx, peer, q->go, &rec, e);
	if (r < 0 || (r = recordings_go(ctx->recs, ctx->ops, rec, e->msg, sizeof(e->msg))) < 0)
		return r;
	cmd_record_started(ctx, rec, NULL, res);
	return 0;
}
