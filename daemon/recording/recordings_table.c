/* SPDX-License-Identifier: Apache-2.0 */
/* The recordings table and its changes (daemon/recording/recordings_table.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "daemon/base/log.h"
#include "daemon/recording/recordings_table.h"
#include "lib/lttng/creds.h"
#include "shm/caret_shm.h"

struct recording *recordings_next(struct recordings *t, struct recording *prev)
{
	for (struct recording *r = prev ? prev + 1 : t->slot; r < t->slot + RECORDINGS_MAX; r++)
		if (r->used)
			return r;
	return NULL;
}

struct recording *recordings_find(struct recordings *t, const char *session)
{
	for (struct recording *r = recordings_next(t, NULL); r; r = recordings_next(t, r))
		if (strcmp(r->name, session) == 0)
			return r;
	return NULL;
}

bool recordings_any(const struct recordings *t)
{
	for (int i = 0; i < RECORDINGS_MAX; i++)
		if (t->slot[i].used)
			return true;
	return false;
}

struct recording *recordings_latest(struct recordings *t, uid_t uid)
{
	struct recording *best = NULL;
	for (struct recording *r = recordings_next(t, NULL); r; r = recordings_next(t, r))
		if ((uid == (uid_t)-1 || r->uid == uid) && (!best || r->seq > best->seq))
			best = r;
	return best;
}

static int count(const struct recordings *t)
{
	int n = 0;
	for (int i = 0; i < RECORDINGS_MAX; i++)
		n += t->slot[i].used;
	return n;
}

int recordings_admit(const struct recordings *t, uid_t uid, bool armed, char *err,
		     size_t errlen)
{
	int mine = 0, mine_armed = 0, users = 0, n = count(t);
	for (int i = 0; i < RECORDINGS_MAX; i++) {
		const struct recording *r = &t->slot[i];
		if (!r->used)
			continue;
		if (r->uid != 0)
			users++;
		if (r->uid == uid) {
			mine++;
			mine_armed += r->armed;
		}
	}
	if (n >= RECORDINGS_MAX) {
		snprintf(err, errlen, "caretd holds %d recordings, its limit: stop one first", n);
		return -ENOSPC;
	}
	if (uid == 0)
		return 0;
	if (armed && mine_armed >= RECORDINGS_USER_ARMED) {
		snprintf(err, errlen, "uid %d has %d armed recordings waiting for Enter, the most "
			 "a user may have: start or stop one first", (int)uid, mine_armed);
		return -EDQUOT;
	}
	if (mine >= RECORDINGS_USER) {
		snprintf(err, errlen, "uid %d has %d recordings, the most a user may have: "
			 "stop one first", (int)uid, mine);
		return -EDQUOT;
	}
	if (users >= RECORDINGS_MAX - RECORDINGS_ROOT_RESERVE) {
		snprintf(err, errlen, "users hold %d recordings, all caretd leaves them (the "
			 "rest is root's): try again later", users);
		return -ENOSPC;
	}
	return 0;
}

/* What the view reads of r's session (r->pub: recordings.c's pub hook), from r. */
static void pub_fill(struct recording *r)
{
	r->pub = (struct lttng_view_pub){
		.name = r->name, .path = r->path, .dir_dev = r->dir_dev, .dir_ino = r->dir_ino,
		.uid = r->uid, .pacing = r->pacing, .frequency = r->frequency,
		.subbuf_size = r->subbuf_size, .subbuf_count = r->subbuf_count,
		.filter = &r->filter };
}

/* What the features held goes. */
static void end_features(struct recordings *t, struct recording *r)
{
	for (int i = t->n_features - 1; i >= 0; i--)
		if (t->features[i]->end)
			t->features[i]->end(t, r, NULL);
}

/* r into a free slot, in its place in the order (one taken over after a
 * restart keeps its own), with what the view reads of its session; NULL
 * when the table is full. */
static struct recording *place(struct recordings *t, const struct recording *r)
{
	struct recording *s = NULL;
	for (int i = 0; i < RECORDINGS_MAX && !s; i++)
		if (!t->slot[i].used)
			s = &t->slot[i];
	if (!s)
		return NULL;
	*s = *r;
	s->used = true;
	s->seq = r->seq ? r->seq : ++t->seq;
	if (s->seq > t->seq)
		t->seq = s->seq;
	pub_fill(s);
	return s;
}

struct recording *recordings_put(struct recordings *t, const struct recording *r)
{
	struct recording *old = recordings_find(t, r->name);
	if (old) {
		end_features(t, old);
		memset(old, 0, sizeof(*old));
	}
	struct recording *s = place(t, r);
	if (!s)
		return NULL;
	t->dirty = true;
	return s;
}

int recordings_take_over(struct recordings *t, const struct recording *r)
{
	return place(t, r) ? 0 : -ENOSPC;
}

void recordings_forget(struct recordings *t, struct recording *r)
{
	end_features(t, r);
	memset(r, 0, sizeof(*r));
	t->dirty = true;
}

void recordings_unmake(const struct recording *r)
{
	if (!r->path[0] || (!r->dir_dev && !r->dir_ino))
		return;
	struct creds_id id = { .uid = r->uid, .gid = r->gid, .groups = NULL, .n_groups = -1 };
	char err[256] = "";
	int e = creds_remove_tree(&id, r->path, r->dir_dev, r->dir_ino, r->dir_made, err,
				  sizeof(err));
	if (e < 0)
		log_warn("armed recording %s: cannot remove its empty trace directory %s: %s",
			 r->name, r->path, err[0] ? err : strerror(-e));
	else if (r->dir_made && r->parents_made &&
		 (e = creds_remove_parents(&id, r->path, r->parents_made)) < 0)
		log_warn_errno(e, "armed recording %s: cannot remove the empty directories "
			       "made above %s", r->name, r->path);
}

void recordings_unwind(struct recordings *t, struct recording *r)
{
	end_features(t, r);
	/* nothing can be in it: an armed one recorded nothing, a flight
	 * recorder writes snapshots only (not left empty: issue 33 L10) */
	if (r->armed || (r->ring.on && r->dir_made))
		recordings_unmake(r);
	memset(r, 0, sizeof(*r));
	t->dirty = true;
}

/* Processes that start while a recording is armed open, or records with a
 * node/topic filter, see their tracepoints enabled and would record at once
 * (everything, before Enter); the marker tells them to wait (agent/agent.c)
 * for caretd's pass, which brings the filter. */
void recordings_sync_marker(struct recordings *t, bool arming)
{
	bool any = arming;
	for (struct recording *r = recordings_next(t, NULL); r && !any; r = recordings_next(t, r))
		any = r->armed ? r->armed_open : recording_filtered(r);
	if (!t->armed_marker || any == t->marked)
		return;
	int e = caret_armed_set(any);
	if (e < 0) {
		log_warn_errno(e, "cannot %s the armed marker", any ? "write" : "remove");
		return;
	}
	t->marked = any;
}

bool recordings_expired(const struct recordings *t, const char *session, uid_t *uid,
			uint32_t *after_s)
{
	unsigned n = t->n_expired < RECORDINGS_EXPIRED ? t->n_expired : RECORDINGS_EXPIRED;
	for (unsigned i = 0; i < n; i++)
		if (strcmp(t->expired[i].name, session) == 0) {
			*uid = t->expired[i].uid;
			*after_s = t->expired[i].after_s;
			return true;
		}
	return false;
}

void recordings_ended_add(struct recordings *t, const char *session, const char *why)
{
	unsigned k = t->n_ended++ % RECORDINGS_ENDED;
	snprintf(t->ended[k].name, sizeof(t->ended[k].name), "%s", session);
	snprintf(t->ended[k].why, sizeof(t->ended[k].why), "%s", why);
}
