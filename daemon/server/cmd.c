/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "daemon/server/cmd.h"
#include "daemon/base/log.h"
#include "util/regex/caret_regex.h"

void cmd_broadcast_done(const struct cmd_ctx *ctx, struct cmd_broadcast *b, int r,
			const char *what)
{
	b->asked = true;
	b->ok = r >= 0;
	b->why[0] = '\0';
	if (r == BRIDGE_HELD) {
		snprintf(b->why, sizeof(b->why),
			 "%.16s held while the bridge wakes (%.200s): sent once the other hosts "
			 "joined, %lld s after DDS is up", what, ctx->bridge->state,
			 BRIDGE_SETTLE_NS / 1000000000);
		log_info("%s", b->why);
		return;
	}
	if (r == 0) {
		log_info("%s broadcast to every host", what);
		return;
	}
	snprintf(b->why, sizeof(b->why), "%s not broadcast: bridge %s", what,
		 ctx->bridge ? ctx->bridge->state : "off");
	log_warn("%s", b->why);
}

bool cmd_may_act_for(const struct cmd_peer *peer, uid_t owner)
{
	return peer->uid == 0 || peer->uid == geteuid() || peer->uid == owner;
}

int cmd_filter(const char *const *lists, struct caret_filter_lists *f, struct cmd_err *e)
{
	for (int i = 0; i < CARET_FILTER_LISTS; i++)
		f->list[i] = lists[i];
	int r = caret_filter_check(f);
	if (r == -EILSEQ)
		return cmd_fail(e, EINVAL, "filters must be UTF-8 without NUL");
	if (r < 0)
		return cmd_fail(e, EINVAL, "filters together longer than %u bytes",
				CARET_SHM_FILTER_TEXT_MAX);
	/* CARET's dialect, refused here with its reason rather than
	 * skipped with a warning on each process's stderr (an empty
	 * recording nobody is told about) */
	for (int i = 0; i < CARET_FILTER_LISTS; i++) {
		char w[256];
		r = caret_re_check_list(f->list[i], w, sizeof(w));
		if (r < 0)
			return cmd_fail(e, r, "%s: %s", caret_ctl_filter_keys[i],
					r == -ENOMEM ? "out of memory" : w);
	}
	return 0;
}

int cmd_wait(const struct cmd_ctx *ctx, const struct cmd_peer *peer,
	     const struct caret_ctl_wait_req *q, int64_t now, struct wait_req **wait,
	     struct cmd_err *e)
{
	if (ctx->lttng->n_active == 0)
		return cmd_fail(e, ENOENT, "no LTTng session is active on this host");
	/* as a member's recording is scoped (lttng_sel.c): whether root's
	 * session is active too must not change what their record counts */
	bool only = peer->uid != 0 && geteuid() == 0;
	*wait = wait_begin(ctx->reg, q->timeout_ms, now, only, peer->uid);
	return *wait ? 0 : cmd_fail(e, ENOMEM, "out of memory");
}
