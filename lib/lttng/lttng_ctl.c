/* SPDX-License-Identifier: Apache-2.0 */
/* What lib/lttng/'s modules share of liblttng-ctl (lib/lttng/lttng_ctl.h). */
#include "lib/lttng/lttng_ctl.h"

#include <errno.h>
#include <string.h>

#include "lib/lttng/creds.h"
#include "proto/caret_ctl_limits.h"
#include "util/caret_err.h"

int caret_lttng_code(int ret)
{
	return ret < 0 ? -ret : ret;
}

static int errno_of(int ret)
{
	switch (caret_lttng_code(ret)) {
	case LTTNG_ERR_NO_SESSIOND:
	case LTTNG_ERR_CONNECT_FAIL:
		return -ECONNREFUSED;
	case LTTNG_ERR_EXIST_SESS:
		return -EEXIST;
	case LTTNG_ERR_SESS_NOT_FOUND:
	case LTTNG_ERR_NO_SESSION:
	case LTTNG_ERR_SESSION_NOT_EXIST:
		return -ENOENT;
	case LTTNG_ERR_INVALID:
	case LTTNG_ERR_SESSION_INVALID_CHAR:
	case LTTNG_ERR_INVALID_CHANNEL_NAME:
	case LTTNG_ERR_INVALID_EVENT_NAME:
		return -EINVAL;
	case LTTNG_ERR_EPERM:
	case LTTNG_ERR_NEED_ROOT_SESSIOND:
		return -EPERM;
	case LTTNG_ERR_NOMEM:
		return -ENOMEM;
	case LTTNG_ERR_NO_UST:
	case LTTNG_ERR_NO_USTCONSUMERD:
	case LTTNG_ERR_NOT_SUPPORTED:
		return -ENOTSUP;
	default:
		return -EIO;
	}
}

static const char *lttng_msg(int ret)
{
	return lttng_strerror(-caret_lttng_code(ret));
}

/* Fills err for a failed lttng-ctl call and returns the mapped -errno. */
int caret_lttng_fail(char *err, size_t errlen, int ret, const char *step,
		      const char *session)
{
	return caret_errf(err, errlen, errno_of(ret), "lttng: %s%s%s failed: %s",
		    step, session ? " of session " : "", session ? session : "",
		    lttng_msg(ret));
}

int caret_lttng_ust_handle(const char *session, struct lttng_handle **h, char *err,
			   size_t errlen)
{
	struct lttng_domain dom = { .type = LTTNG_DOMAIN_UST, .buf_type = LTTNG_BUFFER_PER_UID };
	*h = lttng_create_handle(session, &dom);
	if (!*h)
		return caret_errf(err, errlen, -ENOMEM,
				  "lttng: creating a handle for session %s failed", session);
	return 0;
}

/* creating: our stricter rule for names we give (proto/caret_ctl_limits.h);
 * else LTTng's, for sessions that exist. */
int caret_lttng_check_name_for(const char *name, bool creating, char *err, size_t errlen)
{
	char why[128];
	int r = creating ? caret_ctl_check_session_name(name, why, sizeof(why))
			 : caret_ctl_check_lttng_session_name(name, why, sizeof(why));
	return r < 0 ? caret_errf(err, errlen, -EINVAL, "lttng: session name %s", why) : 0;
}

int caret_lttng_check_name(const char *name, char *err, size_t errlen)
{
	return caret_lttng_check_name_for(name, false, err, errlen);
}

/*
 * lttng_session_daemon_alive() only probes the socket; a failed probe gives
 * a clearer message than the generic error of the next command.
 */
static int need_sessiond(char *err, size_t errlen)
{
	int alive = lttng_session_daemon_alive();
	if (alive == 1)
		return 0;
	if (alive == 0)
		return caret_errf(err, errlen, -ECONNREFUSED,
			    "lttng: no session daemon is running (start one "
			    "with `lttng-sessiond --daemonize`)");
	return caret_lttng_fail(err, errlen, alive, "probing the session daemon",
			  NULL);
}

int caret_lttng_list_sessions(struct lttng_session **out, char *err, size_t errlen)
{
	*out = NULL; /* callers free it on every path */
	/* in a helper acting as a requester (creds_run_as): caretd's own
	 * rights reach the session daemon, and caretd (root) sees every
	 * session, not only the requester's */
	creds_fs_caretd();
	int rc = need_sessiond(err, errlen);
	int n = rc < 0 ? rc : lttng_list_sessions(out);
	creds_fs_requester();
	if (rc < 0)
		return rc;
	if (n < 0) {
		*out = NULL;
		return caret_lttng_fail(err, errlen, n, "listing sessions", NULL);
	}
	return n;
}

const struct lttng_session *caret_lttng_find_session(const struct lttng_session *s,
						int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strncmp(s[i].name, name, sizeof(s[i].name)))
			return &s[i];
	return NULL;
}

