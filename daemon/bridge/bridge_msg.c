/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "daemon/bridge/bridge_msg.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_limits.h"
#include "proto/caret_ctl_top.h"
#include "util/regex/caret_regex.h"

static bool str_ok(const char *s, size_t max)
{
	return s && strnlen(s, max + 1) <= max;
}

/* The four filter fields of a Start_ or RelayRecord_ (same names), as
 * lists; NULL and a reason when they cannot be applied. A Start whose
 * filters cannot be applied is rejected, never applied unfiltered: the
 * sender asked for less than everything. */
static const char *filter_of(struct caret_filter_lists *f, const char *sn, const char *in,
			     const char *st, const char *it)
{
	if (!str_ok(sn, BRIDGE_MSG_MAX_FILTER) || !str_ok(in, BRIDGE_MSG_MAX_FILTER) ||
	    !str_ok(st, BRIDGE_MSG_MAX_FILTER) || !str_ok(it, BRIDGE_MSG_MAX_FILTER))
		return "a filter field is missing or too long";
	f->list[CARET_FILTER_SELECT_NODES] = sn;
	f->list[CARET_FILTER_IGNORE_NODES] = in;
	f->list[CARET_FILTER_SELECT_TOPICS] = st;
	f->list[CARET_FILTER_IGNORE_TOPICS] = it;
	int r = caret_filter_check(f);
	if (r == -EILSEQ)
		return "a filter field is not UTF-8";
	if (r < 0)
		return "the filter fields together are too long for the agents' segments";
	/* CARET's dialect: a pattern its processes could not apply would be
	 * skipped, and the recording empty with nobody told */
	static __thread char why[300];
	for (int i = 0; i < CARET_FILTER_LISTS; i++) {
		char w[256];
		if (caret_re_check_list(f->list[i], w, sizeof(w)) < 0) {
			snprintf(why, sizeof(why), "a filter field is refused: %s", w);
			return why;
		}
	}
	return NULL;
}

const char *bridge_msg_start(const caret_msgs_msg_dds__Start_ *m, struct caret_filter_lists *f)
{
	const char *bad = filter_of(f, m->select_nodes, m->ignore_nodes, m->select_topics,
				    m->ignore_topics);
	if (bad)
		return bad;
	if (m->recording_frequency == 0 || m->recording_frequency > BRIDGE_MSG_FREQ_MAX)
		return "recording_frequency out of 1..100000000";
	return NULL;
}

const char *bridge_msg_status(const caret_msgs_msg_dds__Status_ *m)
{
	if (!str_ok(m->caret_node_name, BRIDGE_MSG_MAX_NAME) || !*m->caret_node_name)
		return "caret_node_name missing or too long";
	if (m->node_names._length > BRIDGE_MSG_MAX_NODES ||
	    (m->node_names._length && !m->node_names._buffer))
		return "too many node_names";
	for (uint32_t i = 0; i < m->node_names._length; i++)
		if (!str_ok(m->node_names._buffer[i], BRIDGE_MSG_MAX_NAME))
			return "a node name is missing or too long";
	return NULL;
}

const char *bridge_msg_relay(const caretd_msgs_msg_dds__RelayRecord_ *m,
			     struct caret_filter_lists *f)
{
	if (!str_ok(m->session_name, BRIDGE_MSG_MAX_SESSION) ||
	    !str_ok(m->url, BRIDGE_MSG_MAX_URL) || !*m->session_name)
		return "session name or URL missing or too long";
	return filter_of(f, m->select_nodes, m->ignore_nodes, m->select_topics,
			 m->ignore_topics);
}

const char *bridge_msg_snap_request(const caretd_msgs_msg_dds__SnapshotRequest_ *m)
{
	if (!m->id)
		return "no request id";
	if (!str_ok(m->session_name, BRIDGE_MSG_MAX_SESSION) ||
	    caret_ctl_check_lttng_session_name(m->session_name, NULL, 0) < 0)
		return "session name missing, too long or not one LTTng takes";
	if (m->timeout_ms == 0 || m->timeout_ms > CARET_CTL_TIMEOUT_MAX_MS)
		return "timeout_ms out of range";
	return NULL;
}

/* printable: it is shown to the requesting user as is */
static bool printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

const char *bridge_msg_snap_reply(const caretd_msgs_msg_dds__SnapshotReply_ *m)
{
	if (!m->id)
		return "no request id";
	if (!str_ok(m->requester, BRIDGE_MSG_MAX_NAME) ||
	    !str_ok(m->session_name, BRIDGE_MSG_MAX_SESSION) ||
	    !str_ok(m->path, BRIDGE_MSG_MAX_PATH) || !str_ok(m->why, BRIDGE_MSG_MAX_WHY))
		return "a field is missing or too long";
	if (!printable(m->path) || !printable(m->why) || !printable(m->session_name))
		return "a field is not printable";
	if (m->error < 0 || m->error > 4095)
		return "error is not an errno";
	if (!m->error && !*m->path)
		return "no path for a snapshot written";
	return NULL;
}

const char *bridge_msg_top_ask(const caretd_msgs_msg_dds__TopAsk_ *m)
{
	if (m->lease_ms < CARET_CTL_TOP_LEASE_MS_MIN || m->lease_ms > CARET_CTL_TOP_LEASE_MS_MAX)
		return "lease_ms out of range";
	return NULL;
}

/* a rate or share read from a peer: shown and sorted on, so finite */
static bool real_ok(double v)
{
	return isfinite(v) && v >= 0 && v <= 1e12;
}

static const char *top_row(const caretd_msgs_msg_dds__TopRow_ *r)
{
	if (r->pid <= 0)
		return "a row's pid is not a process id";
	const char *s[] = { r->procname, r->node, r->symbol, r->topic };
	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		if (!str_ok(s[i], BRIDGE_MSG_TOP_STR) || !printable(s[i]))
			return "a row's name is missing, too long or not printable";
	if (r->kind >= CARET_CTL_TOP_KINDS)
		return "a row's kind is not a callback kind";
	if (r->calls > CARET_CTL_COUNT_MAX || r->max_ns > CARET_CTL_COUNT_MAX)
		return "a row's count is out of range";
	if (r->mean_ns > r->max_ns || r->p99_ns > r->max_ns)
		return "a row's durations are not ordered";
	if (!real_ok(r->rate_hz) || !real_ok(r->cpu))
		return "a row's rate or cpu is out of range";
	return NULL;
}

const char *bridge_msg_top_summary(const caretd_msgs_msg_dds__TopSummary_ *m)
{
	if (m->interval_ms > CARET_CTL_TOP_LEASE_MS_MAX)
		return "interval_ms out of range";
	if (m->processes > CARET_CTL_COUNT_MAX || m->lost > CARET_CTL_COUNT_MAX ||
	    m->cut > CARET_CTL_COUNT_MAX)
		return "a count is out of range";
	if (m->rows._length > BRIDGE_MSG_TOP_ROWS || (m->rows._length && !m->rows._buffer))
		return "too many rows";
	for (uint32_t i = 0; i < m->rows._length; i++) {
		const char *bad = top_row(&m->rows._buffer[i]);
		if (bad)
			return bad;
	}
	return NULL;
}

void bridge_msg_filter_text(const struct caret_filter_lists *f, char *out, size_t len)
{
	static const char *const names[CARET_FILTER_LISTS] = { "select_nodes", "ignore_nodes",
							       "select_topics", "ignore_topics" };
	if (!len)
		return;
	out[0] = '\0';
	for (int i = 0; i < CARET_FILTER_LISTS; i++)
		if (*f->list[i]) {
			size_t l = strlen(out);
			if (l + 1 >= len)
				break;
			snprintf(out + l, len - l, "%s%s=\"%.200s\"", l ? " " : "", names[i],
				 f->list[i]);
		}
	for (char *p = out; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
}

size_t bridge_msg_userdata_make(const char *host, char *out, size_t len)
{
	int n = snprintf(out, len, BRIDGE_USERDATA_PREFIX "v=%u host=%.*s", BRIDGE_VERSION,
			 BRIDGE_MSG_MAX_NAME, host);
	return n < 0 ? 0 : (size_t)n < len ? (size_t)n : len;
}

/* "host=NAME" at p (n bytes) into out, made printable; false if empty. */
static bool host_of(const char *p, size_t n, char *out, size_t len)
{
	if (n < 5 || memcmp(p, "host=", 5) != 0)
		return false;
	size_t hl = n - 5;
	if (hl >= len)
		hl = len - 1;
	memcpy(out, p + 5, hl);
	out[hl] = '\0';
	/* a NUL inside the user data ends the name; bytes after it are not
	 * looked at */
	for (char *q = out; *q; q++)
		if (*q <= ' ' || *q >= 0x7f)
			*q = '?';
	return *out != '\0';
}

bool bridge_msg_userdata_host(const void *ud, size_t n, char *out, size_t len,
			      uint32_t *version)
{
	size_t pl = strlen(BRIDGE_USERDATA_PREFIX);
	if (!ud || n <= pl || !len || memcmp(ud, BRIDGE_USERDATA_PREFIX, pl) != 0)
		return false;
	const char *p = (const char *)ud + pl;
	n -= pl;
	out[0] = '\0';
	if (n >= 5 && memcmp(p, "host=", 5) == 0) {
		*version = 1;
		return host_of(p, n, out, len);
	}
	if (n < 3 || memcmp(p, "v=", 2) != 0 || p[2] < '1' || p[2] > '9')
		return false;
	uint32_t v = 0;
	size_t i = 2;
	for (; i < n && i < 11 && p[i] >= '0' && p[i] <= '9'; i++)
		v = v * 10 + (uint32_t)(p[i] - '0');
	if (i < n && p[i] != ' ')
		return false; /* more than nine digits, or not a number */
	*version = v;
	/* what follows is that version's: a host named as this one does, or
	 * none this one can read */
	if (i < n && !host_of(p + i + 1, n - i - 1, out, len))
		out[0] = '\0';
	return true;
}

int bridge_msg_url_host(const char *url, char *host, size_t len)
{
	static const char *const schemes[] = { "net://", "net6://", "tcp://", "tcp6://" };
	const char *p = NULL;
	if (len)
		host[0] = '\0';
	if (!url)
		return -EINVAL;
	for (size_t i = 0; !p && i < sizeof(schemes) / sizeof(schemes[0]); i++)
		if (strncmp(url, schemes[i], strlen(schemes[i])) == 0)
			p = url + strlen(schemes[i]);
	if (!p)
		return -EINVAL;
	const char *end;
	if (*p == '[') { /* an IPv6 address */
		p++;
		end = strchr(p, ']');
		if (!end)
			return -EINVAL;
	} else {
		end = p + strcspn(p, ":/");
	}
	size_t n = (size_t)(end - p);
	if (n == 0 || n > BRIDGE_RELAY_HOST_MAX || n >= len)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)p[i] <= ' ' || (unsigned char)p[i] >= 0x7f || p[i] == ',')
			return -EINVAL;
	memcpy(host, p, n);
	host[n] = '\0';
	return 0;
}

bool bridge_msg_relay_allowed(const char *allow, const char *url, char *host_out, size_t len)
{
	char host[BRIDGE_RELAY_HOST_MAX + 1];
	if (len)
		host_out[0] = '\0';
	if (bridge_msg_url_host(url, host, sizeof(host)) < 0)
		return false;
	if (len)
		snprintf(host_out, len, "%s", host);
	size_t hl = strlen(host);
	for (const char *a = allow; a && *a;) {
		size_t n = strcspn(a, ",");
		if (n == hl && strncasecmp(a, host, n) == 0)
			return true;
		a += n;
		if (*a == ',')
			a++;
	}
	return false;
}

int bridge_msg_allow_check(const char *allow)
{
	if (!allow || !*allow)
		return -EINVAL;
	int hosts = 0;
	for (const char *a = allow;;) {
		size_t n = strcspn(a, ",");
		if (n == 0 || n > BRIDGE_RELAY_HOST_MAX || ++hosts > 64)
			return -EINVAL;
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)a[i] <= ' ' || (unsigned char)a[i] >= 0x7f)
				return -EINVAL;
		a += n;
		if (!*a)
			return 0;
		a++; /* ',' */
	}
}
