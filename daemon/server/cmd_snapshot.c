/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `snapshot`: which recording, whether the requester may, where the
 * snapshot goes (the recording's trace directory, or an output directory
 * made and judged with the requester's rights, as record's path is), then
 * the pass and the snapshot itself (daemon/recording/snapshot.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/server/cmd.h"
#include "lib/lttng/creds.h"
#include "daemon/base/log.h"
#include "daemon/recording/snapshot.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_snapshot.h"
#include "proto/caret_ctl_snapshot_res.h"
#include "util/caret_cleanup.h"

#define NS_PER_MS 1000000LL
/* Other hosts' answers may come this long after the timeout their pass
 * had (their snapshot is written after it, then sent over DDS). */
#define HOSTS_SLACK_MS 5000

/* mkdir -p of an output directory, then whether its user may write in
 * it: run as the requester (creds_run_as), so a path they can redirect
 * leads only where they could write anyway. */
static int output_job(void *arg, void *out, size_t outlen, char *err, size_t errlen)
{
	(void)out;
	(void)outlen;
	const char *path = arg;
	char buf[PATH_MAX];
	size_t len = strlen(path);
	if (len >= sizeof(buf))
		return caret_errf(err, errlen, -ENAMETOOLONG, "output directory path too long");
	memcpy(buf, path, len + 1);
	for (size_t i = 1; i <= len; i++) {
		if ((buf[i] != '/' && buf[i] != '\0') || buf[i - 1] == '/')
			continue;
		char c = buf[i];
		buf[i] = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return caret_errf(err, errlen, -errno, "cannot create %s: %s", buf,
					  strerror(errno));
		buf[i] = c;
	}
	struct stat st;
	if (stat(path, &st) < 0)
		return caret_errf(err, errlen, -errno, "%s: %s", path, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return caret_errf(err, errlen, -ENOTDIR, "%s is not a directory", path);
	/* with their rights, before any pass starts: LTTng's refusal would
	 * come only after a host-wide replay pass */
	int r = creds_access(path, W_OK | X_OK);
	if (r < 0)
		return caret_errf(err, errlen, r, "cannot write in %s: %s", path, strerror(-r));
	return 0;
}

static const char *strip_slashes(const char *in, char *buf, size_t len)
{
	size_t n = strlen(in);
	while (n > 1 && in[n - 1] == '/')
		n--;
	snprintf(buf, len, "%.*s", (int)n, in);
	return buf;
}

/* ---- --all-hosts: this host's snapshot, then every other host's answer ---- */

struct all_job {
	struct bridge *b;
	struct wait_req *local;
	wait_line *local_res; /* its last line, once over */
	struct bridge_snap_out *out;
	bool ask_due; /* the bridge was waking: ask once it settled */
	int64_t timeout_ms, deadline_ns;
	char session[CARET_LTTNG_NAME_MAX];
};

/* This host's entry, from its snapshot job's last line (its result,
 * decoded into *own, or an error). */
static void self_entry(const struct all_job *j, struct caret_ctl_snapshot_result *own,
		       bool *have_own, struct caret_ctl_snapshot_host *x, char *why, size_t len)
{
	struct caret_ctl_error e;
	*x = (struct caret_ctl_snapshot_host){ .host = j->b->host[0] ? j->b->host : "localhost",
					       .self = true };
	*have_own = false;
	int r = j->local_res ? caret_ctl_error_decode(j->local_res, &e, why, len) : -ENOMEM;
	if (r == 0 || r == -EPROTO) {
		x->error = e.error ? e.error : why;
		x->err = e.err ? e.err : EPROTO;
		return;
	}
	if (r == -ENOENT &&
	    (r = caret_ctl_snapshot_result_decode(j->local_res, own, why, len)) == 0) {
		*have_own = true;
		x->path = own->path;
		x->complete = own->complete;
		x->why = own->why;
		return;
	}
	x->error = r == -ENOMEM ? "out of memory" : why;
	x->err = -r;
}

static void other_entry(const struct all_job *j, const struct bridge_snap_res *h,
			struct caret_ctl_snapshot_host *x, char *msg, size_t len)
{
	*x = (struct caret_ctl_snapshot_host){ .host = h->host, .version = h->version };
	if (!h->answered) {
		snprintf(msg, len, "no answer within %lld s",
			 (long long)((j->timeout_ms + HOSTS_SLACK_MS) / 1000));
		x->error = msg;
		x->err = ETIMEDOUT;
	} else if (h->error) {
		x->error = h->why;
		x->err = h->error;
	} else {
		x->path = h->path;
		x->complete = h->complete;
		x->why = h->why[0] ? h->why : NULL;
	}
}

/*
 * The result: {"session", "hosts": [...] (this host first), "complete":
 * every host wrote a complete one}, plus this host's own result fields
 * (path, snapshots, pass_ms) when it wrote one.
 */
static wait_line *all_result(struct all_job *j)
{
	int n = j->out ? j->out->n : 0, answered = 0;
	struct caret_ctl_snapshot_result own = { 0 }, res = { .session = j->session,
							      .all_hosts = true };
	char why[256] = "", msg[BRIDGE_MAX_HOSTS][64];
	bool have_own;
	_cleanup_free_ struct caret_ctl_snapshot_host *hosts = calloc((size_t)n + 1,
								      sizeof(*hosts));
	if (!hosts)
		return wait_line_error(ENOMEM, "out of memory");
	self_entry(j, &own, &have_own, &hosts[0], why, sizeof(why));
	bool all_ok = !hosts[0].error && hosts[0].complete;
	for (int i = 0; i < n && i < BRIDGE_MAX_HOSTS; i++) {
		const struct bridge_snap_res *h = &j->out->res[i];
		other_entry(j, h, &hosts[i + 1], msg[i], sizeof(msg[i]));
		all_ok = all_ok && !hosts[i + 1].error && hosts[i + 1].complete;
		answered += h->answered && !h->error;
	}
	res.hosts = hosts;
	res.n_hosts = (size_t)(n < BRIDGE_MAX_HOSTS ? n : BRIDGE_MAX_HOSTS) + 1;
	res.complete = all_ok;
	if (have_own) {
		res.path = own.path;
		res.why = own.why;
		res.have_counts = own.have_counts;
		res.snapshots = own.snapshots;
		res.pass_ms = own.pass_ms;
	}
	wait_line *o = wait_line_snapshot(&res);
	caret_ctl_snapshot_result_free(&own);
	log_info("session %s: snapshot on every host: %d other host(s) known, %d wrote one%s",
		 j->session, n, answered, all_ok ? ", all complete" : "");
	return o;
}

static wait_line *all_poll(void *arg, int64_t now, bool *done)
{
	struct all_job *j = arg;
	*done = false;
	if (j->local) {
		bool local_done = false;
		wait_line *o = wait_poll(j->local, now, &local_done);
		if (!local_done)
			return o; /* this host's progress lines */
		j->local_res = o;
		wait_free(j->local);
		j->local = NULL;
	}
	if (j->ask_due && now < j->deadline_ns) {
		int r = bridge_snapshot_ask(j->b, j->session, j->timeout_ms, &j->out);
		if (r == -EAGAIN)
			return NULL;
		j->ask_due = false;
		if (r < 0)
			log_warn("session %s: the other hosts not asked for a snapshot: %s",
				 j->session, j->b->state);
		else
			log_info("session %s: a snapshot asked of every host once the bridge "
				 "woke (%d other(s) known)", j->session, j->out->n);
	}
	if (j->out && !bridge_snapshot_all_in(j->out) && now < j->deadline_ns)
		return NULL;
	if (j->ask_due)
		log_warn("session %s: the other hosts not asked for a snapshot: the bridge did "
			 "not settle in time (%s)", j->session, j->b->state);
	*done = true;
	return all_result(j);
}

static void all_release(void *arg)
{
	struct all_job *j = arg;
	if (j->local)
		wait_free(j->local);
	wait_line_free(j->local_res);
	bridge_snapshot_done(j->b, j->out);
	free(j);
}

static const struct wait_custom all_ops = { all_poll, all_release };

static int snapshot_all(const struct cmd_ctx *ctx, const char *session, const char *dir,
			int64_t timeout_ms, int64_t now, struct wait_req **wait, struct cmd_err *e)
{
	struct bridge *b = ctx->bridge;
	if (!b || !b->cfg.enabled)
		return cmd_fail(e, ENOTCONN, "--all-hosts: the DDS bridge is off (--no-bridge)");
	struct all_job *j = calloc(1, sizeof(*j));
	if (!j)
		return cmd_fail(e, ENOMEM, "out of memory");
	j->b = b;
	j->timeout_ms = timeout_ms;
	j->deadline_ns = now + (timeout_ms + HOSTS_SLACK_MS) * NS_PER_MS;
	snprintf(j->session, sizeof(j->session), "%s", session);
	/* the other hosts first: their passes run while this host's does */
	int r = bridge_snapshot_ask(b, session, timeout_ms, &j->out);
	if (r == -EAGAIN) {
		j->ask_due = true; /* all_poll asks once the bridge woke */
		r = 0;
	}
	if (r < 0) {
		free(j);
		if (r == -EBUSY)
			return cmd_fail(e, EBUSY, "--all-hosts: %d snapshots of every host are "
					"being taken already", BRIDGE_SNAP_OUT);
		return cmd_fail(e, -r, "--all-hosts: the DDS bridge is %s", b->state);
	}
	struct recording *rec = recordings_find(ctx->recs, session);
	j->local = rec ? snapshot_begin(ctx->recs, ctx->reg, rec, dir, timeout_ms, now) : NULL;
	if (!j->local) {
		bridge_snapshot_done(b, j->out);
		free(j);
		return cmd_fail(e, ENOMEM, "out of memory");
	}
	if (j->out)
		log_info("session %s: a snapshot asked of every host (%d other(s) known)",
			 session, j->out->n);
	*wait = wait_custom(&all_ops, j); /* releases j when out of memory */
	if (!*wait)
		return cmd_fail(e, ENOMEM, "out of memory");
	return 0;
}

int cmd_snapshot(const struct cmd_ctx *ctx, const struct cmd_peer *peer,
		 const struct caret_ctl_snapshot_req *q, int64_t now, struct wait_req **wait,
		 struct cmd_err *e)
{
	struct lttng_view *v = ctx->lttng;
	const struct caret_lttng_ops *ops = ctx->ops;
	*wait = NULL;
	struct recording *rec = q->session ? recordings_find(ctx->recs, q->session)
					   : recordings_latest(ctx->recs, peer->uid);
	if (!rec && q->session)
		return cmd_fail(e, ENOENT, "no recording named %s (caretctl status lists them)",
				q->session);
	if (!rec)
		return cmd_fail(e, ENOENT, "you have no recording: name one (caretctl status "
				"lists them)");
	if (!cmd_may_act_for(peer, rec->uid))
		return cmd_fail(e, EPERM, "recording %s is another user's (uid %d)", rec->name,
				(int)rec->uid);
	if (rec->armed)
		return cmd_fail(e, EAGAIN, "recording %s is armed: it records nothing before "
				"Enter", rec->name);
	int m = ops->snapshot_mode(rec->name, e->msg, sizeof(e->msg));
	if (m < 0)
		return m;
	if (m == 0)
		return cmd_fail(e, EINVAL, "recording %s is not a flight recorder (record it with "
				"--snapshot)", rec->name);
	rec->ring.on = true; /* LTTng says so (a recording an older caretd saved) */
	if (!lttng_view_find(v, rec->name))
		return cmd_fail(e, ENOENT, "recording %s is not active", rec->name);
	if (rec->ring.busy)
		return cmd_fail(e, EBUSY, "a snapshot of %s is being taken", rec->name);
	char dir[4096];
	if (q->output && strlen(q->output) >= sizeof(dir) - 64)
		return cmd_fail(e, ENAMETOOLONG, "output directory path too long");
	if (q->output) {
		strip_slashes(q->output, dir, sizeof(dir));
		struct creds_id as = { .uid = peer->uid, .gid = peer->gid, .groups = peer->groups,
				       .n_groups = peer->n_groups };
		char why[400] = "";
		int r = creds_run_as(&as, output_job, dir, NULL, 0, why, sizeof(why));
		if (r < 0)
			return cmd_fail(e, -r, "refused output directory: uid %d: %s",
					(int)peer->uid, why[0] ? why : strerror(-r));
	} else {
		strip_slashes(rec->path, dir, sizeof(dir));
	}
	if (q->all_hosts)
		return snapshot_all(ctx, rec->name, dir, q->timeout_ms, now, wait, e);
	*wait = snapshot_begin(ctx->recs, ctx->reg, rec, dir, q->timeout_ms, now);
	if (!*wait)
		return cmd_fail(e, ENOMEM, "out of memory");
	return 0;
}
