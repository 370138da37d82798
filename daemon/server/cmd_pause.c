/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `pause` and `resume` (ros2 trace's verbs, issue 33 L13): LTTng stops and
 * starts a recording's tracing, its session and trace kept, the recording
 * kept in the recordings table (daemon/recording/recordings.h). Paused,
 * the session is not active: processes go back to WAIT once no other
 * session is, and those that start meanwhile wait in WAIT with their
 * caches. Resumed, the view takes it as a session
 * newly active (a new serial, as a rotation's new chunk gets one), so
 * every process replays its cache into it, those started during the pause
 * too: the trace is whole after a resume (what was replayed before the
 * pause is in it twice: copies, which the analyzer drops and `stop`
 * counts).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "daemon/agents/dups.h"
#include "daemon/base/log.h"
#include "daemon/recording/recordings.h"
#include "daemon/recording/rotation.h"
#include "daemon/server/cmd.h"

/* The recording a pause or resume means: the one named, or the caller's
 * latest; one caretd made, the caller's (or root's to act on). */
static int which(const struct cmd_ctx *ctx, const struct cmd_peer *peer, const char *name,
		 bool resume, struct recording **out, struct cmd_err *e)
{
	const char *verb = resume ? "resume" : "pause";
	struct recording *r = name ? recordings_find(ctx->recs, name)
				   : recordings_latest(ctx->recs, peer->uid);
	if (!r && !name)
		return cmd_fail(e, ENOENT, "you have no recording started with 'caretctl record' "
				"to %s", verb);
	if (!r)
		return cmd_fail(e, ENOENT, "session %s is not a recording of caretd ('caretctl "
				"record'): %s only those ('lttng %s' the others)", name, verb,
				resume ? "start" : "stop");
	if (!cmd_may_act_for(peer, r->uid)) {
		log_warn("uid %d may not %s session %s", (int)peer->uid, verb, r->name);
		return cmd_fail(e, EPERM, "session %s is another user's recording (uid %d)", r->name,
				(int)r->uid);
	}
	if (r->armed)
		return cmd_fail(e, EOPNOTSUPP, "recording %s is armed (waiting for Enter): it "
				"records nothing yet; start it or stop it", r->name);
	if (r->ring.on)
		return cmd_fail(e, EOPNOTSUPP, "recording %s is a flight recorder: its ring keeps "
				"the last moments whatever came before; not paused", r->name);
	if (rotation_is_rotating(ctx->recs, r->name))
		return cmd_fail(e, EOPNOTSUPP, "recording %s rotates: its chunks follow LTTng's "
				"schedule, which a pause would leave without a replay; not paused",
				r->name);
	*out = r;
	return 0;
}

int cmd_pause(const struct cmd_ctx *ctx, const struct cmd_peer *peer,
	      const struct caret_ctl_pause_req *q, bool resume, struct cmd_pause_res *res,
	      struct cmd_err *e)
{
	struct lttng_view *v = ctx->lttng;
	struct recording *r = NULL;
	memset(res, 0, sizeof(*res));
	int rc = which(ctx, peer, q->session, resume, &r, e);
	if (rc < 0)
		return rc;
	snprintf(res->session, sizeof(res->session), "%s", r->name);
	snprintf(res->path, sizeof(res->path), "%s", r->path);
	if (r->paused != resume)
		return cmd_fail(e, EALREADY, "recording %s is %s", r->name,
				resume ? "not paused" : "paused already");
	rc = ctx->ops->pause(res->session, resume, e->msg, sizeof(e->msg));
	if (rc < 0 && rc != -EALREADY)
		return rc;
	/* EALREADY from LTTng: someone stopped (started) the session through
	 * LTTng; the recordings table now says what LTTng does */
	r = recordings_find(ctx->recs, res->session);
	if (!r)
		return cmd_fail(e, ENOENT, "recording %s ended meanwhile", res->session);
	r->paused = !resume;
	res->paused = !resume;
	if (resume) {
		/* active again, as a new session: every process replays into it,
		 * what it held before the pause counted as copies */
		lttng_view_session_started(v, res->session);
		struct lttng_view_session *vs = lttng_view_find(v, res->session);
		if (vs) {
			dups_resume(ctx->reg, r->paused_serial, vs->serial);
			vs->dups += r->paused_dups;
			vs->dups_bound |= r->paused_dups_bound;
		}
		log_info("recording %s resumed after %.1f s: every process replays its "
			 "initialization records into it", res->session,
			 (double)(caret_now_ns() - r->paused_ns) / 1e9);
	} else {
		r->paused_ns = caret_now_ns();
		struct lttng_view_session *vs = lttng_view_find(v, res->session);
		if (vs) {
			dups_pause(v, ctx->reg, vs->serial);
			r->paused_serial = vs->serial;
			r->paused_dups = vs->dups;
			r->paused_dups_bound = vs->dups_bound;
		}
		lttng_view_session_ended(v, res->session);
		log_info("recording %s paused (tracing stopped, session kept)", res->session);
	}
	return 0;
}
