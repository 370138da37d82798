/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `snapshot`: which recording, whether the requester may, where the
 * snapshot goes (the recording's trace directory, or an output directory
 * made and judged with the requester's rights, as record's path is), then
 * the pass and the snapshot itself (daemon/snapshot.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/cmd.h"
#include "daemon/log.h"
#include "daemon/snapshot.h"

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
	if (access(path, W_OK | X_OK) < 0)
		return caret_errf(err, errlen, -errno, "cannot write in %s: %s", path,
				  strerror(errno));
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

int cmd_snapshot(const struct cmd_ctx *ctx, const struct cmd_peer *peer,
		 const struct caret_ctl_snapshot_req *q, int64_t now, struct wait_req **wait,
		 struct cmd_err *e)
{
	struct lttng_view *v = ctx->lttng;
	const struct caret_lttng_ops *ops = lttng_view_ops(v);
	*wait = NULL;
	struct lttng_view_rec *rec = q->session ? lttng_view_find_rec(v, q->session)
						: lttng_view_latest_rec(v, peer->uid);
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
	if (!lttng_view_find(v, rec->name))
		return cmd_fail(e, ENOENT, "recording %s is not active", rec->name);
	if (snapshot_busy(rec->name))
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
	*wait = snapshot_begin(v, ctx->reg, rec->name, dir, q->timeout_ms, now);
	if (!*wait)
		return cmd_fail(e, ENOMEM, "out of memory");
	return 0;
}
