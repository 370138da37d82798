/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `record` with "plan" (caretctl record -l): what the recording would be,
 * decided by the same cmd_record_plan() and caret_lttng_layout() that
 * `record` creates it from, and nothing created: no session, no
 * directory, no rotation, no trigger.
 */
#include <string.h>

#include "daemon/server/cmd.h"

int cmd_record_dry_run(const struct cmd_ctx *ctx, const struct cmd_peer *peer,
	     const struct caret_ctl_record_req *q, struct cmd_plan_res *res, struct cmd_err *e)
{
	memset(res, 0, sizeof(*res));
	struct record_plan *rp = &res->rp;
	int r = cmd_record_plan(ctx, peer, q, rp, e);
	if (r < 0)
		return r;
	struct caret_ctl_plan *p = &res->plan;
	if ((r = caret_lttng_layout(&rp->cfg, p, e->msg, sizeof(e->msg))) < 0)
		return r;
	p->pacing = pacing_name(rp->pacing);
	p->frequency = rp->freq ? rp->freq : ctx->sched->frequency;
	p->rotate_size = rp->rot.size;
	p->rotate_every_ms = rp->rot.every_ms;
	p->keep = rp->rot.keep;
	p->max_size = rp->rot.max_size;
	p->snapshot_size = q->snapshot_size;
	p->snapshot_on = q->snapshot_on;
	p->snapshot_filter = q->snapshot_filter;
	/* as cmd_filter accepted them: the recording's replay filter */
	for (int i = 0; i < CARET_FILTER_LISTS; i++)
		p->filter[i] = q->filter[i] && *q->filter[i] ? q->filter[i] : NULL;
	return 0;
}
