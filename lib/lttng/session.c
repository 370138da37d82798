/* SPDX-License-Identifier: Apache-2.0 */
/* Session control through liblttng-ctl; see lttng.h for the contract. */
#include "lib/lttng/session.h"

#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include <lttng/lttng.h>

#include "lib/lttng/creds.h"
#include "lib/lttng/lttng_ctl.h"

#include "proto/caret_ctl.h"
#include "proto/caret_ctl_evlist.h"
#include "proto/caret_ctl_limits.h"
#include "util/caret_err.h"

/* Above this, LTTng's counter is garbage (DESIGN.md section 6). */
#define BOGUS_COUNT (UINT64_C(1) << 63)

const char *const *caret_lttng_events(bool light, bool rcl_publish)
{
	return caret_ctl_evlist(light, rcl_publish);
}

int caret_lttng_ping(char *err, size_t errlen)
{
	struct lttng_session *s;
	int n = caret_lttng_list_sessions(&s, err, errlen);
	free(s);
	return n < 0 ? n : 0;
}

int caret_lttng_active_sessions(char (*names)[CARET_LTTNG_NAME_MAX], int max,
				char *err, size_t errlen)
{
	if (max < 0 || (max > 0 && !names))
		return caret_errf(err, errlen, -EINVAL, "lttng: bad output array");
	struct lttng_session *s;
	int n = caret_lttng_list_sessions(&s, err, errlen);
	if (n < 0)
		return n;
	int k = 0;
	for (int i = 0; i < n && k < max; i++) {
		if (!s[i].enabled)
			continue;
		snprintf(names[k++], CARET_LTTNG_NAME_MAX, "%.*s",
			 (int)sizeof(s[i].name), s[i].name);
	}
	free(s);
	return k;
}

/* A snapshot session has no output path of its own: its trace directory
 * is its default snapshot output's (a local one: a path, or file://). */
static int snapshot_output_path(const char *session, char *path_out, size_t path_len)
{
	struct lttng_snapshot_output_list *list = NULL;
	if (lttng_snapshot_list_output(session, &list) < 0 || !list)
		return -ENOENT;
	struct lttng_snapshot_output *o = lttng_snapshot_output_list_get_next(list);
	const char *url = o ? lttng_snapshot_output_get_ctrl_url(o) : NULL;
	int rc = -ENOENT;
	if (url && !strncmp(url, "file://", 7))
		url += 7;
	if (url && url[0] == '/')
		rc = snprintf(path_out, path_len, "%s", url) < (int)path_len ? 0 : -ENAMETOOLONG;
	lttng_snapshot_output_list_destroy(list);
	return rc;
}

int caret_lttng_session_path(const char *session, char *path_out,
			     size_t path_len)
{
	if (caret_lttng_check_name(session, NULL, 0) < 0 || !path_out || !path_len)
		return -EINVAL;
	struct lttng_session *s;
	int n = caret_lttng_list_sessions(&s, NULL, 0);
	if (n < 0)
		return n;
	const struct lttng_session *me = caret_lttng_find_session(s, n, session);
	int rc = -ENOENT;
	if (me && !me->path[0] && me->snapshot_mode)
		rc = snapshot_output_path(session, path_out, path_len);
	else if (me) {
		size_t len = strnlen(me->path, sizeof(me->path));
		rc = len < path_len ? 0 : -ENAMETOOLONG;
		if (!rc) {
			memcpy(path_out, me->path, len);
			path_out[len] = '\0';
		}
	}
	free(s);
	return rc;
}

/* In a helper acting as the requester: the session daemon lists to a
 * client only the sessions it may control (its own; root: all). */
static int theirs_job(void *arg, void *out, size_t outlen, char *err, size_t errlen)
{
	(void)out;
	(void)outlen;
	int rc = creds_client_begin();
	if (rc < 0)
		return caret_errf(err, errlen, rc, "lttng: caretd cannot act as the requester: %s",
				  strerror(-rc));
	struct lttng_session *s;
	int n = caret_lttng_list_sessions(&s, err, errlen);
	creds_client_end();
	if (n < 0)
		return n;
	rc = caret_lttng_find_session(s, n, arg) != NULL;
	free(s);
	return rc;
}

int caret_lttng_session_theirs(const char *session, const struct creds_id *as)
{
	if (caret_lttng_check_name(session, NULL, 0) < 0 || !as)
		return -EINVAL;
	return creds_run_as(as, theirs_job, (void *)session, NULL, 0, NULL, 0);
}


/* Does the enabled rule ev record the event `probe`? LTTng's globs only
 * know '*' (and '\\' to escape it), a subset of fnmatch's. */
static bool rule_matches(struct lttng_event *ev, const char *probe)
{
	if (!ev->enabled || ev->type != LTTNG_EVENT_TRACEPOINT ||
	    fnmatch(ev->name, probe, 0) != 0)
		return false;
	int nx = lttng_event_get_exclusion_name_count(ev);
	for (int i = 0; i < nx; i++) {
		const char *x;
		if (lttng_event_get_exclusion_name(ev, (size_t)i, &x) == 0 &&
		    fnmatch(x, probe, 0) == 0)
			return false;
	}
	return true;
}

int caret_lttng_session_rules(const char *session, unsigned *rules, char *err, size_t errlen)
{
	*rules = 0;
	int rc = caret_lttng_check_name(session, err, errlen);
	if (rc < 0)
		return rc;
	struct lttng_domain dom = { .type = LTTNG_DOMAIN_UST };
	struct lttng_handle *h = lttng_create_handle(session, &dom);
	if (!h)
		return caret_errf(err, errlen, -ENOMEM, "lttng: no handle for session %s", session);
	struct lttng_channel *ch = NULL;
	int nch = lttng_list_channels(h, &ch);
	if (nch < 0) {
		rc = caret_lttng_fail(err, errlen, nch, "listing channels", session);
		/* a session without a UST domain (kernel only) records no UST
		 * event: only a lost daemon or session is an error here */
		if (rc != -ECONNREFUSED && rc != -ENOENT)
			rc = 0;
		nch = 0;
	}
	for (int i = 0; i < nch && rc >= 0; i++) {
		if (!ch[i].enabled)
			continue;
		struct lttng_event *ev = NULL;
		int nev = lttng_list_events(h, ch[i].name, &ev);
		if (nev < 0) {
			rc = caret_lttng_fail(err, errlen, nev, "listing events", session);
			break;
		}
		for (int j = 0; j < nev; j++) {
			if (rule_matches(&ev[j], "ros2_caret:caret_init"))
				*rules |= CARET_LTTNG_RULE_CARET;
			if (rule_matches(&ev[j], "ros2:rcl_node_init"))
				*rules |= CARET_LTTNG_RULE_ROS2_INIT;
			if (rule_matches(&ev[j], "ros2:callback_start"))
				*rules |= CARET_LTTNG_RULE_ROS2_RUNTIME;
		}
		free(ev);
	}
	free(ch);
	lttng_destroy_handle(h);
	return rc < 0 ? rc : 0;
}

static void fill_stats(struct caret_lttng_chan_stats *o,
		       struct lttng_channel *ch)
{
	memset(o, 0, sizeof(*o));
	snprintf(o->name, sizeof(o->name), "%.*s", (int)sizeof(ch->name),
		 ch->name);
	uint64_t v;
	if (lttng_channel_get_discarded_event_count(ch, &v) == 0 &&
	    v < BOGUS_COUNT) {
		o->discarded = v;
		o->discarded_known = true;
	}
	if (lttng_channel_get_lost_packet_count(ch, &v) == 0 &&
	    v < BOGUS_COUNT) {
		o->lost_packets = v;
		o->lost_known = true;
	}
}

/* Whether the session daemon no longer lists session. lttng-ctl 2.13's
 * destroy answers LTTNG_ERR_UNK ("Unknown error") when its wait for the
 * destruction fails ("recvmsg: Connection reset by peer"), the session
 * gone or not: seen three times in four runs with 1,000 applications
 * registered (bench P6b, caret-sessstart). */
static bool session_gone(const char *session)
{
	struct lttng_session *s;
	char err[256];
	int n = caret_lttng_list_sessions(&s, err, sizeof(err));
	bool gone = n >= 0 && !caret_lttng_find_session(s, n, session);
	free(s);
	return gone;
}

int caret_lttng_stop(const char *session, struct caret_lttng_chan_stats *out,
		     int max, char *path_out, size_t path_len, char *err,
		     size_t errlen)
{
	if (path_out && path_len)
		path_out[0] = '\0';
	int rc = caret_lttng_check_name(session, err, errlen);
	if (rc < 0)
		return rc;
	if (max < 0 || (max > 0 && !out))
		return caret_errf(err, errlen, -EINVAL, "lttng: bad output array");

	struct lttng_session *s;
	int n = caret_lttng_list_sessions(&s, err, errlen);
	if (n < 0)
		return n;
	const struct lttng_session *me = caret_lttng_find_session(s, n, session);
	if (me && path_out && path_len &&
	    strnlen(me->path, sizeof(me->path)) < path_len)
		snprintf(path_out, path_len, "%s", me->path);
	free(s);
	if (!me)
		return caret_errf(err, errlen, -ENOENT, "lttng: no session named %s",
			    session);

	/* Someone may have stopped it already; the counts are still there. */
	int ret = lttng_stop_tracing(session);
	if (ret < 0 && caret_lttng_code(ret) != LTTNG_ERR_TRACE_ALREADY_STOPPED)
		return caret_lttng_fail(err, errlen, ret, "stopping", session);

	struct lttng_handle *h;
	if ((rc = caret_lttng_ust_handle(session, &h, err, errlen)) < 0)
		return rc;
	struct lttng_channel *chans = NULL;
	int nch = lttng_list_channels(h, &chans);
	lttng_destroy_handle(h);
	if (nch < 0) {
		/* A session without a UST domain has no UST channels. */
		if (caret_lttng_code(nch) != LTTNG_ERR_UST_CHAN_NOT_FOUND &&
		    caret_lttng_code(nch) != LTTNG_ERR_NO_CHANNEL &&
		    caret_lttng_code(nch) != LTTNG_ERR_UNKNOWN_DOMAIN)
			return caret_lttng_fail(err, errlen, nch,
					  "listing the channels", session);
		nch = 0;
		chans = NULL;
	}
	for (int i = 0; i < nch && i < max; i++)
		fill_stats(&out[i], &chans[i]);
	/* The channel array owns the extended attributes the getters read:
	 * a single free() releases both. */
	free(chans);
	/* The kernel channel of a recording with kernel events (record -k,
	 * --syscall): its losses are reported too. Any error here means the
	 * session has no kernel domain (or the session daemon no kernel
	 * tracer): nothing to add. */
	struct lttng_domain kdom = { .type = LTTNG_DOMAIN_KERNEL,
				     .buf_type = LTTNG_BUFFER_GLOBAL };
	struct lttng_handle *kh = lttng_create_handle(session, &kdom);
	struct lttng_channel *kch = NULL;
	int nk = kh ? lttng_list_channels(kh, &kch) : 0;
	if (kh)
		lttng_destroy_handle(kh);
	for (int i = 0; i < nk; i++, nch++)
		if (nch < max)
			fill_stats(&out[nch], &kch[i]);
	free(kch);

	/* a failed destroy is tried once more, on a new connection (the first
	 * one's wait may have been cut: session_gone) */
	for (int tried = 1; (ret = lttng_destroy_session(session)) < 0; tried++) {
		if (caret_lttng_code(ret) == LTTNG_ERR_SESS_NOT_FOUND || session_gone(session))
			break;
		if (tried == 2)
			return caret_lttng_fail(err, errlen, ret, "destroying", session);
	}
	return nch;
}

/* The recording's channel enabled (go) or disabled (hold). */
static int set_channel(const char *session, bool enable, char *err, size_t errlen)
{
	int rc = caret_lttng_check_name(session, err, errlen);
	if (rc < 0)
		return rc;
	struct lttng_handle *h;
	if ((rc = caret_lttng_ust_handle(session, &h, err, errlen)) < 0)
		return rc;
	int ret;
	if (enable) {
		struct lttng_domain dom = { .type = LTTNG_DOMAIN_UST,
					    .buf_type = LTTNG_BUFFER_PER_UID };
		struct lttng_channel *ch = lttng_channel_create(&dom);
		if (!ch) {
			lttng_destroy_handle(h);
			return caret_errf(err, errlen, -ENOMEM,
					  "lttng: creating the channel descriptor failed");
		}
		/* an existing channel of that name is enabled, its attributes kept */
		snprintf(ch->name, sizeof(ch->name), "%s", CARET_CTL_DEFAULT_CHANNEL);
		ret = lttng_enable_channel(h, ch);
		lttng_channel_destroy(ch);
	} else {
		/* the session daemon answers once every application has it
		 * disabled (and LTTNG_OK when it already was) */
		ret = lttng_disable_channel(h, CARET_CTL_DEFAULT_CHANNEL);
	}
	lttng_destroy_handle(h);
	if (ret < 0)
		return caret_lttng_fail(err, errlen, ret,
					enable ? "enabling channel " CARET_CTL_DEFAULT_CHANNEL
					       : "disabling channel " CARET_CTL_DEFAULT_CHANNEL,
					session);
	return 0;
}

int caret_lttng_session_exists(const char *session, char *err, size_t errlen)
{
	struct lttng_session *s;
	int n = caret_lttng_list_sessions(&s, err, errlen);
	if (n < 0)
		return n;
	bool found = caret_lttng_find_session(s, n, session) != NULL;
	free(s);
	return found;
}

int caret_lttng_pause(const char *session, bool resume, char *err, size_t errlen)
{
	int rc = caret_lttng_check_name(session, err, errlen);
	if (rc < 0)
		return rc;
	if ((rc = caret_lttng_session_exists(session, err, errlen)) <= 0)
		return rc < 0 ? rc : caret_errf(err, errlen, -ENOENT, "lttng: no session named %s",
						session);
	int ret = resume ? lttng_start_tracing(session) : lttng_stop_tracing_no_wait(session);
	if (ret < 0 && caret_lttng_code(ret) == (resume ? LTTNG_ERR_TRACE_ALREADY_STARTED
							 : LTTNG_ERR_TRACE_ALREADY_STOPPED))
		return caret_errf(err, errlen, -EALREADY, "lttng: session %s is %s already",
				  session, resume ? "tracing" : "stopped");
	if (ret < 0)
		return caret_lttng_fail(err, errlen, ret, resume ? "starting" : "stopping",
					session);
	return 0;
}

int caret_lttng_go(const char *session, char *err, size_t errlen)
{
	return set_channel(session, true, err, errlen);
}

int caret_lttng_hold(const char *session, char *err, size_t errlen)
{
	return set_channel(session, false, err, errlen);
}
