/* SPDX-License-Identifier: Apache-2.0 */
/* Snapshots asked by and of other hosts (daemon/bridge/bridge_snap.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "daemon/bridge/bridge_msg.h"
#include "daemon/bridge/bridge_snap.h"
#include "daemon/base/log.h"
#include "daemon/recording/snapshot.h"
#include "daemon/agents/wait.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_snapshot.h"
#include "proto/caret_ctl_snapshot_res.h"

#define NS_PER_MS 1000000LL
#define NS_PER_S 1000000000LL

static struct bridge_snap_serve *serve_slot(struct bridge *b)
{
	for (int i = 0; i < BRIDGE_SNAP_SERVE; i++)
		if (!b->serve[i].used)
			return &b->serve[i];
	return NULL;
}

static void refuse(struct bridge_snap_serve *s, int err, const char *fmt, const char *name)
{
	s->error = err;
	snprintf(s->why, sizeof(s->why), fmt, name);
	s->reply_due = true;
}

void bridge_snap_request(struct bridge *b, const caretd_msgs_msg_dds__SnapshotRequest_ *m,
			 const char *from, int64_t now)
{
	b->counts.snap_req++;
	const char *bad = bridge_msg_snap_request(m);
	if (bad)
		return bridge_reject(b, "SnapshotRequest", bad);
	/* every request costs a reply, whatever it names: bounded first */
	if (now - b->snap_win_ns >= NS_PER_S) {
		b->snap_win_ns = now;
		b->snap_win_n = 0;
	}
	if (++b->snap_win_n > BRIDGE_SNAP_RATE)
		return bridge_reject(b, "SnapshotRequest", "too many a second");
	for (int i = 0; i < BRIDGE_SNAP_SERVE; i++)
		if (b->serve[i].used && b->serve[i].id == m->id &&
		    !strcmp(b->serve[i].requester, from))
			return; /* the same request again (DDS may deliver it twice) */
	struct bridge_snap_serve *s = serve_slot(b);
	if (!s)
		return bridge_reject(b, "SnapshotRequest", "too many being served");
	memset(s, 0, sizeof(*s));
	s->used = true;
	s->id = m->id;
	snprintf(s->requester, sizeof(s->requester), "%s", from);
	snprintf(s->session, sizeof(s->session), "%s", m->session_name);
	const char *name = m->session_name; /* not s->session: refuse() writes beside it */
	struct recording *rec = b->recs ? recordings_find(b->recs, name) : NULL;
	if (!rec || !rec->ring.on)
		refuse(s, ENOENT, "no flight recorder named %s on this host", name);
	else if (rec->armed)
		refuse(s, EAGAIN, "recording %s is armed: it records nothing before Enter", name);
	else if (!lttng_view_find(b->lttng, name))
		refuse(s, ENOENT, "recording %s is not active", name);
	else if (rec->ring.busy)
		refuse(s, EBUSY, "a snapshot of %s is being taken", name);
	else if (b->snap_last_ns && now - b->snap_last_ns < CARET_CTL_SNAPSHOT_HOLDOFF_MS * NS_PER_MS)
		refuse(s, EBUSY, "this host began a snapshot for another host less than a second "
		       "ago (%s not taken)", name);
	if (s->reply_due) {
		bridge_rlog_info(b, "bridge: snapshot of %s asked by %s: %s", name, from, s->why);
		return;
	}
	/* the recording's own directory: a remote request never names one */
	char dir[4096];
	size_t n = strlen(rec->path);
	while (n > 1 && rec->path[n - 1] == '/')
		n--;
	snprintf(dir, sizeof(dir), "%.*s", (int)n, rec->path);
	s->job = snapshot_begin(b->recs, b->reg, rec, dir, (int64_t)m->timeout_ms, now);
	if (!s->job)
		return refuse(s, ENOMEM, "out of memory for a snapshot of %s", name);
	b->snap_last_ns = now;
	log_info("bridge: snapshot of %s asked by host %s: taking it", name, from);
}

/* The snapshot job's last line (daemon/recording/snapshot.c's result or error). */
static void result_of(struct bridge_snap_serve *s, const wait_line *o)
{
	struct caret_ctl_error e;
	struct caret_ctl_snapshot_result res;
	char why[160];
	if (!o || caret_ctl_error_decode(o, &e, why, sizeof(why)) != -ENOENT) {
		s->error = o && e.error && e.err > 0 ? (int32_t)e.err : EIO;
		snprintf(s->why, sizeof(s->why), "%s", o && e.error ? e.error : "out of memory");
		return;
	}
	if (caret_ctl_snapshot_result_decode(o, &res, why, sizeof(why)) < 0) {
		s->error = EIO;
		snprintf(s->why, sizeof(s->why), "%s", why);
		return;
	}
	s->complete = res.complete;
	snprintf(s->path, sizeof(s->path), "%s", res.path);
	snprintf(s->why, sizeof(s->why), "%s", res.why ? res.why : "");
	caret_ctl_snapshot_result_free(&res);
}

void bridge_snap_poll(struct bridge *b, int64_t now)
{
	for (int i = 0; i < BRIDGE_SNAP_SERVE; i++) {
		struct bridge_snap_serve *s = &b->serve[i];
		if (!s->used || !s->job)
			continue;
		bool done = false;
		wait_line *o = wait_poll(s->job, now, &done);
		if (done) {
			result_of(s, o);
			wait_free(s->job);
			s->job = NULL;
			s->reply_due = true;
		}
		wait_line_free(o);
	}
}

void bridge_snap_reply(struct bridge *b, const caretd_msgs_msg_dds__SnapshotReply_ *m,
		       const char *from)
{
	b->counts.snap_reply++;
	const char *bad = bridge_msg_snap_reply(m);
	if (bad)
		return bridge_reject(b, "SnapshotReply", bad);
	if (strcmp(m->requester, b->host))
		return; /* an answer to another host */
	struct bridge_snap_out *o = NULL;
	for (int i = 0; i < BRIDGE_SNAP_OUT && !o; i++)
		if (b->out[i] && b->out[i]->id == m->id)
			o = b->out[i];
	if (!o)
		return; /* late: its requester gave up */
	struct bridge_snap_res *r = NULL;
	for (int i = 0; i < o->n && !r; i++)
		if (!strcmp(o->res[i].host, from))
			r = &o->res[i];
	if (!r) { /* a host this one had not heard of yet */
		if (o->n == BRIDGE_MAX_HOSTS)
			return bridge_reject(b, "SnapshotReply", "too many hosts");
		r = &o->res[o->n++];
		memset(r, 0, sizeof(*r));
		snprintf(r->host, sizeof(r->host), "%s", from);
		r->version = BRIDGE_VERSION;
	}
	if (r->answered)
		return; /* the first answer stands */
	r->answered = true;
	r->error = m->error;
	r->complete = !m->error && m->complete;
	snprintf(r->path, sizeof(r->path), "%s", m->path);
	snprintf(r->why, sizeof(r->why), "%s", m->why);
}

int bridge_snap_open(struct bridge *b, const char *session, int64_t now,
		     struct bridge_snap_out **out)
{
	int slot = -1;
	for (int i = 0; i < BRIDGE_SNAP_OUT && slot < 0; i++)
		if (!b->out[i])
			slot = i;
	if (slot < 0)
		return -EBUSY;
	struct bridge_snap_out *o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	while (!o->id)
		if (getrandom(&o->id, sizeof(o->id), 0) != sizeof(o->id))
			o->id = (uint64_t)now ^ ((uint64_t)slot << 60); /* unique enough here */
	snprintf(o->session, sizeof(o->session), "%s", session);
	o->sent_ns = now;
	for (int i = 0; i < b->n_hosts && o->n < BRIDGE_MAX_HOSTS; i++) {
		const struct bridge_host *h = &b->hosts[i];
		if (!h->version || !strcmp(h->host, b->host))
			continue; /* a ROS 2 peer (no caretd), or this host */
		struct bridge_snap_res *r = &o->res[o->n++];
		snprintf(r->host, sizeof(r->host), "%s", h->host);
		r->version = h->version;
		if (h->version != BRIDGE_VERSION) {
			r->answered = true;
			r->error = EPROTO;
			snprintf(r->why, sizeof(r->why), "its caretd speaks bridge version %u, this "
				 "one %u: it takes no snapshot of this one's (run the same caretd "
				 "version on every host)", h->version, BRIDGE_VERSION);
		}
	}
	b->out[slot] = o;
	*out = o;
	return 0;
}

bool bridge_snapshot_all_in(const struct bridge_snap_out *o)
{
	for (int i = 0; i < o->n; i++)
		if (!o->res[i].answered)
			return false;
	return true;
}

void bridge_snapshot_done(struct bridge *b, struct bridge_snap_out *o)
{
	for (int i = 0; i < BRIDGE_SNAP_OUT; i++)
		if (b->out[i] == o)
			b->out[i] = NULL;
	free(o);
}

void bridge_snap_stop(struct bridge *b)
{
	for (int i = 0; i < BRIDGE_SNAP_SERVE; i++) {
		if (b->serve[i].job)
			wait_free(b->serve[i].job);
		memset(&b->serve[i], 0, sizeof(b->serve[i]));
	}
}
