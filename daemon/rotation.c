/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Rotating recordings (daemon/rotation.h). Over 600 lines, for now: every
 * part (triggers and the notification channel, the chunks' verdicts, the
 * state file, adoption after a restart, the disk guard, status) reads and
 * writes the same table of rotations `R`, and a split needs that table
 * behind an interface of its own first (left for the next round, with
 * putting rotation's lttng-ctl calls behind struct caret_lttng_ops).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <lttng/lttng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "daemon/chunks.h"
#include "daemon/log.h"
#include "util/caret_util.h"
#include "daemon/loop.h"
#include "daemon/lttng.h"
#include "daemon/rotation.h"
#include "daemon/scheduler.h"
#include "proto/caret_ctl_req.h"
#include "proto/caret_ctl_rotation.h"

/* How often the notification channel is read while a recording rotates:
 * a pass for a new chunk begins at most this late. */
#define TICK_USEC (20 * USEC_PER_MS)
#define IDLE_USEC (1000 * USEC_PER_MS)
#define MAX_ROT LTTNG_VIEW_MAX_RECORDINGS
/* chunks named incomplete, per recording (the newest kept) */
#define MAX_INCOMPLETE 64

struct rot {
	bool used;
	bool armed; /* waits for rotation_go() */
	char name[CARET_LTTNG_NAME_MAX];
	char path[4096];
	uint64_t dev, ino;
	uid_t uid;
	gid_t gid;
	struct rotation_opts o;
	bool subscribed;     /* on the current notification channel */
	uint32_t serial;     /* the session's serial the current chunk's pass is for */
	bool cur_complete;   /* every live agent finished that pass (latched) */
	bool closing;        /* a rotation is ongoing: cur_complete is its verdict */
	uint64_t cur_index;  /* LTTng's id of the chunk being written */
	uint64_t verdict_upto; /* chunks below this index have a verdict */
	uint64_t incomplete[MAX_INCOMPLETE]; /* ring of chunk indexes */
	unsigned n_incomplete;
	/* chunks that may hold an init record twice (what `caretctl check`
	 * calls incomplete too; the analyzer ignores duplicates): a pass
	 * still running when its chunk was rotated goes on in the next one,
	 * which then gets its own full pass */
	uint64_t dups[MAX_INCOMPLETE];
	unsigned n_dups;
	bool spill; /* the chunk just closed had a pass in flight */
	/* every agent's pass epoch when the current chunk began (its
	 * rotation started): each pass begun since writes the whole cache
	 * into it, so more than one means records twice */
	struct base { pid_t pid; uint64_t start; uint32_t epoch; } *base;
	int n_base;
	uint64_t rotations, removed;
	struct chunk_list *list; /* the last listing of its archives */
	char error[256];
	int64_t space_ns; /* when the free space was last looked at */
};

/* Recordings caretd ended itself (a disk about to fill), for `status` and
 * the caretctl that waits on them: the newest kept. */
#define MAX_ENDED 8

static struct {
	struct loop_job job; /* observe stage of the tick */
	bool started;
	struct lttng_view *v;
	struct registry *reg;
	struct rot rots[MAX_ROT];
	struct lttng_notification_channel *chan;
	char state_file[4300];
	bool loaded;
	/* sessions whose triggers go once the session is gone: lttng-sessiond
	 * 2.13.9 dies (fatal error) when a session-rotation trigger is
	 * unregistered while its session is being stopped (measured here:
	 * `lttng stop` of a rotating recording, then the unregistration) */
	char unreg[2 * MAX_ROT][CARET_LTTNG_NAME_MAX];
	int n_unreg;
	int64_t unreg_ns;
	struct { char name[CARET_LTTNG_NAME_MAX]; char why[512]; } ended[MAX_ENDED];
	unsigned n_ended;
} R;

static struct rot *find(const char *session)
{
	for (int i = 0; i < MAX_ROT; i++)
		if (R.rots[i].used && strcmp(R.rots[i].name, session) == 0)
			return &R.rots[i];
	return NULL;
}

static bool any_rot(void)
{
	for (int i = 0; i < MAX_ROT; i++)
		if (R.rots[i].used)
			return true;
	return false;
}

/* ---- completeness ---- */

/* Every live agent has the current chunk's pass: finished it (or emitted
 * its init events live in RECORD since before that pass began). */
static bool pass_complete(const struct rot *t)
{
	for (const struct agent *a = R.reg ? R.reg->head : NULL; a; a = a->next) {
		if (a->dead)
			continue;
		uint32_t st = caret_seg_state(&a->seg);
		if (st == CARET_STATE_UNINITIALIZED)
			continue;
		if (st != CARET_STATE_RECORD || a->extra_pass || !a->sched_seen ||
		    a->covered_serial < t->serial)
			return false;
	}
	return true;
}

/* An agent replaying (a first pass, or again while it records), and for
 * which session serial: its records land in every chunk being written. */
static bool replaying(const struct agent *a, uint32_t *serial)
{
	uint32_t st = caret_seg_state(&a->seg);
	if (a->dead || !a->sched_seen ||
	    !(st == CARET_STATE_PREPARE || (st == CARET_STATE_RECORD && a->extra_pass)))
		return false;
	*serial = a->pass_serial;
	return true;
}

static bool any_replaying(void)
{
	uint32_t s;
	for (const struct agent *a = R.reg ? R.reg->head : NULL; a; a = a->next)
		if (replaying(a, &s))
			return true;
	return false;
}

static bool in_ring(const uint64_t *ring, unsigned count, uint64_t index)
{
	unsigned n = count < MAX_INCOMPLETE ? count : MAX_INCOMPLETE;
	for (unsigned i = 0; i < n; i++)
		if (ring[i] == index)
			return true;
	return false;
}

static bool is_incomplete(const struct rot *t, uint64_t index)
{
	return in_ring(t->incomplete, t->n_incomplete, index);
}

static bool has_dups(const struct rot *t, uint64_t index)
{
	return in_ring(t->dups, t->n_dups, index);
}

static void mark_dups(struct rot *t, uint64_t index, const char *why)
{
	if (!has_dups(t, index))
		t->dups[t->n_dups++ % MAX_INCOMPLETE] = index;
	log_warn("session %s: chunk %" PRIu64 " may hold init records twice (%s): caretctl "
		 "check calls it incomplete; the analyzer ignores duplicates", t->name, index, why);
}

static void mark_incomplete(struct rot *t, uint64_t index, const char *why)
{
	if (!is_incomplete(t, index))
		t->incomplete[t->n_incomplete++ % MAX_INCOMPLETE] = index;
	log_warn("session %s: chunk %" PRIu64 " is INCOMPLETE (%s): it does not hold every "
		 "process's initialization records", t->name, index, why);
}

static uint32_t pass_epoch(const struct agent *a)
{
	struct caret_seg_status st;
	caret_seg_read_status(&a->seg, &st);
	return CARET_EPOCH_OF(st.grant);
}

/* The epochs now: the next chunk counts its passes from here. */
static void baseline(struct rot *t)
{
	int n = 0;
	for (const struct agent *a = R.reg ? R.reg->head : NULL; a; a = a->next)
		n++;
	struct base *b = n ? calloc((size_t)n, sizeof(*b)) : NULL;
	free(t->base);
	t->base = b;
	t->n_base = 0;
	for (const struct agent *a = R.reg ? R.reg->head : NULL; b && a && t->n_base < n;
	     a = a->next)
		b[t->n_base++] = (struct base){ a->pid, a->start_time, pass_epoch(a) };
}

/* Passes begun in some agent since the baseline; the most of any. */
static uint32_t passes_since(const struct rot *t)
{
	uint32_t most = 0;
	for (const struct agent *a = R.reg ? R.reg->head : NULL; a; a = a->next) {
		if (a->dead)
			continue;
		for (int i = 0; i < t->n_base; i++)
			if (t->base[i].pid == a->pid && t->base[i].start == a->start_time) {
				uint32_t d = pass_epoch(a) - t->base[i].epoch;
				if (d > most)
					most = d;
				break;
			}
	}
	return most;
}

/* The verdict on the chunk being written, which just closed. */
static void close_chunk(struct rot *t, const char *why_not)
{
	/* its own pass, and one more: another session's, or its own begun
	 * over (a newer session during it) */
	if (passes_since(t) > 1)
		mark_dups(t, t->cur_index, "more than one replay pass went into it");
	baseline(t);
	bool ok = t->cur_complete || pass_complete(t);
	/* whatever pass is running goes on into the next chunk */
	t->spill = !ok || any_replaying();
	if (!ok)
		mark_incomplete(t, t->cur_index, why_not);
	else
		log_info("session %s: chunk %" PRIu64 " complete", t->name, t->cur_index);
	if (t->verdict_upto < t->cur_index + 1)
		t->verdict_upto = t->cur_index + 1;
}

/* A new chunk is being written: a new serial for the session (a new pass
 * for every agent, see daemon/scheduler.h), ready at once (the agents'
 * tracepoints are enabled already: no settling delay). */
static void new_pass(struct rot *t)
{
	struct lttng_view_session *e = lttng_view_find(R.v, t->name);
	t->cur_complete = false;
	if (!e) {
		t->serial = UINT32_MAX; /* no pass can cover it: not active */
		return;
	}
	e->serial = ++R.v->last_serial;
	e->since_ns = INT64_MIN / 2;
	t->serial = e->serial;
	t->closing = false; /* also after a completion we never saw */
	if (R.v->on_change)
		R.v->on_change(R.v->change_arg);
}

/* ---- state across a restart ---- */

static void save(void)
{
	if (!R.state_file[0])
		return;
	char tmp[sizeof(R.state_file) + 8];
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", R.state_file);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		log_warn("cannot save the rotating recordings in %s: %s", R.state_file,
			 strerror(errno));
		return;
	}
	FILE *f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		return;
	}
	static char name[2 * CARET_LTTNG_NAME_MAX + 1], path[2 * 4096 + 1];
	for (int i = 0; i < MAX_ROT; i++) {
		const struct rot *t = &R.rots[i];
		if (!t->used || t->armed)
			continue;
		caret_hex(name, t->name);
		caret_hex(path, t->path);
		fprintf(f, "1 %" PRIu64 " %" PRIu64 " %u %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
			" %" PRIu64 " %" PRIu64 " %u %u %s %s", t->o.every_ms, t->o.size, t->o.keep,
			t->o.max_size, t->verdict_upto, t->rotations, t->removed, t->dev, t->ino,
			(unsigned)t->uid, (unsigned)t->gid, name, path);
		unsigned n = t->n_incomplete < MAX_INCOMPLETE ? t->n_incomplete : MAX_INCOMPLETE;
		for (unsigned k = 0; k < n; k++)
			fprintf(f, " %" PRIu64, t->incomplete[k]);
		n = t->n_dups < MAX_INCOMPLETE ? t->n_dups : MAX_INCOMPLETE;
		for (unsigned k = 0; k < n; k++)
			fprintf(f, " d%" PRIu64, t->dups[k]);
		fputc('\n', f);
	}
	bool ok = fflush(f) == 0 && !ferror(f);
	if (fclose(f) != 0)
		ok = false;
	if (!ok || rename(tmp, R.state_file) < 0) {
		log_warn("cannot save the rotating recordings in %s: %s", R.state_file,
			 strerror(errno));
		unlink(tmp);
	}
}

/* ---- LTTng: triggers, subscription, schedules ---- */

static struct lttng_condition *condition(const char *session, bool completed)
{
	struct lttng_condition *c = completed ? lttng_condition_session_rotation_completed_create()
					      : lttng_condition_session_rotation_ongoing_create();
	if (c && lttng_condition_session_rotation_set_session_name(c, session) !=
			 LTTNG_CONDITION_STATUS_OK) {
		lttng_condition_destroy(c);
		c = NULL;
	}
	return c;
}

static void trigger_name(char *buf, size_t len, const char *session, bool completed)
{
	snprintf(buf, len, "caretd-rotation-%s:%s", completed ? "completed" : "ongoing", session);
}

/* Registers (register) or unregisters one notify trigger: 0 or -errno. */
static int trigger(const char *session, bool completed, bool reg, char *err, size_t errlen)
{
	struct lttng_condition *c = condition(session, completed);
	struct lttng_action *a = lttng_action_notify_create();
	struct lttng_trigger *t = c && a ? lttng_trigger_create(c, a) : NULL;
	int rc = 0;
	if (!t) {
		rc = -ENOMEM;
		snprintf(err, errlen, "lttng: cannot make a rotation trigger");
	} else if (reg) {
		char name[CARET_LTTNG_NAME_MAX + 64];
		trigger_name(name, sizeof(name), session, completed);
		enum lttng_error_code e = lttng_register_trigger_with_name(t, name);
		/* a caretd killed before it unregistered left the same one */
		if (e != LTTNG_OK && e != LTTNG_ERR_TRIGGER_EXISTS) {
			rc = -EIO;
			snprintf(err, errlen, "lttng: registering the rotation trigger of %s: %s",
				 session, lttng_strerror(-(int)e));
		}
	} else {
		char name[CARET_LTTNG_NAME_MAX + 64];
		trigger_name(name, sizeof(name), session, completed);
		/* the registered one, found by its name */
		struct lttng_triggers *all = NULL;
		unsigned n = 0;
		if (lttng_list_triggers(&all) == LTTNG_OK &&
		    lttng_triggers_get_count(all, &n) == LTTNG_TRIGGER_STATUS_OK) {
			for (unsigned i = 0; i < n; i++) {
				const struct lttng_trigger *x = lttng_triggers_get_at_index(all, i);
				const char *xn = NULL;
				if (x && lttng_trigger_get_name(x, &xn) == LTTNG_TRIGGER_STATUS_OK &&
				    xn && strcmp(xn, name) == 0)
					lttng_unregister_trigger(x);
			}
		}
		lttng_triggers_destroy(all);
	}
	lttng_trigger_destroy(t);
	lttng_action_destroy(a);
	lttng_condition_destroy(c);
	return rc;
}

static void defer_unregister(const char *session)
{
	for (int i = 0; i < R.n_unreg; i++)
		if (strcmp(R.unreg[i], session) == 0)
			return;
	if (R.n_unreg < 2 * MAX_ROT)
		snprintf(R.unreg[R.n_unreg++], sizeof(R.unreg[0]), "%s", session);
	else
		log_warn("session %s: its rotation triggers stay registered", session);
}

/* At most once a second: the triggers of sessions that are gone. */
static void unregister_gone(void)
{
	int64_t now = caret_now_ns();
	if (!R.n_unreg || now - R.unreg_ns < 1000000000)
		return;
	R.unreg_ns = now;
	for (int i = 0; i < R.n_unreg;) {
		char path[4096], e2[64];
		if (lttng_view_ops(R.v)->session_path(R.unreg[i], path, sizeof(path)) != -ENOENT) {
			i++;
			continue;
		}
		trigger(R.unreg[i], false, false, e2, sizeof(e2));
		trigger(R.unreg[i], true, false, e2, sizeof(e2));
		memmove(R.unreg[i], R.unreg[--R.n_unreg], sizeof(R.unreg[0]));
	}
}

static void close_channel(void)
{
	if (R.chan)
		lttng_notification_channel_destroy(R.chan);
	R.chan = NULL;
	for (int i = 0; i < MAX_ROT; i++)
		R.rots[i].subscribed = false;
}

static int subscribe(struct rot *t, bool on)
{
	if (!R.chan)
		return on ? -ENOTCONN : 0;
	int rc = 0;
	for (int k = 0; k < 2; k++) {
		struct lttng_condition *c = condition(t->name, k == 1);
		if (!c)
			return -ENOMEM;
		enum lttng_notification_channel_status s =
			on ? lttng_notification_channel_subscribe(R.chan, c)
			   : lttng_notification_channel_unsubscribe(R.chan, c);
		lttng_condition_destroy(c);
		if (s != LTTNG_NOTIFICATION_CHANNEL_STATUS_OK &&
		    s != LTTNG_NOTIFICATION_CHANNEL_STATUS_ALREADY_SUBSCRIBED && on)
			rc = -EIO;
	}
	t->subscribed = on && rc == 0;
	return rc;
}

/* The channel, and every recording subscribed on it. */
static void ensure_channel(void)
{
	if (!R.chan) {
		R.chan = lttng_notification_channel_create(lttng_session_daemon_notification_endpoint);
		if (!R.chan)
			return;
	}
	for (int i = 0; i < MAX_ROT; i++) {
		struct rot *t = &R.rots[i];
		if (t->used && !t->armed && !t->subscribed && subscribe(t, true) < 0)
			log_warn("session %s: cannot subscribe to its rotations", t->name);
	}
}

static int schedule(const char *session, const struct rotation_opts *o, char *err, size_t errlen)
{
	for (int k = 0; k < 2; k++) {
		uint64_t v = k == 0 ? o->size : o->every_ms;
		if (!v)
			continue;
		struct lttng_rotation_schedule *s = k == 0 ? lttng_rotation_schedule_size_threshold_create()
							   : lttng_rotation_schedule_periodic_create();
		if (!s) {
			snprintf(err, errlen, "lttng: out of memory");
			return -ENOMEM;
		}
		enum lttng_rotation_status st =
			k == 0 ? lttng_rotation_schedule_size_threshold_set_threshold(s, v)
			       : lttng_rotation_schedule_periodic_set_period(s, v * 1000);
		if (st == LTTNG_ROTATION_STATUS_OK)
			st = lttng_session_add_rotation_schedule(session, s);
		lttng_rotation_schedule_destroy(s);
		if (st != LTTNG_ROTATION_STATUS_OK) {
			snprintf(err, errlen, "lttng: adding the %s rotation schedule of session %s "
				 "failed (status %d)", k == 0 ? "size" : "periodic", session, (int)st);
			return -EIO;
		}
	}
	return 0;
}

/* ---- chunks and the bound ---- */

static void scan(struct rot *t)
{
	if (!t->list)
		t->list = calloc(1, sizeof(*t->list));
	if (!t->list)
		return;
	struct creds_id as = { .uid = t->uid, .gid = t->gid, .groups = NULL, .n_groups = -1 };
	char err[256] = "";
	int r = chunks_prune(&as, t->path, t->dev, t->ino, t->o.keep, t->o.max_size, t->list, err,
			     sizeof(err));
	for (int i = 0; i < t->list->removed; i++)
		log_info("session %s: chunk %" PRIu64 " removed (%s)", t->name,
			 t->list->removed_index[i], t->o.keep && t->o.max_size ? "--keep, --max-size"
						    : t->o.keep ? "--keep" : "--max-size");
	t->removed += (uint64_t)t->list->removed;
	if (r < 0) {
		snprintf(t->error, sizeof(t->error), "%s", err[0] ? err : strerror(-r));
		log_warn("session %s: archived chunks: %s", t->name, t->error);
	} else {
		t->error[0] = '\0';
	}
}

/* ---- notifications ---- */

static void on_notification(struct lttng_notification *n)
{
	const struct lttng_condition *c = lttng_notification_get_condition(n);
	const struct lttng_evaluation *ev = lttng_notification_get_evaluation(n);
	const char *session = NULL;
	if (!c || !ev ||
	    lttng_condition_session_rotation_get_session_name(c, &session) !=
		    LTTNG_CONDITION_STATUS_OK || !session)
		return;
	struct rot *t = find(session);
	if (!t)
		return;
	enum lttng_condition_type type = lttng_condition_get_type(c);
	if (type == LTTNG_CONDITION_TYPE_SESSION_ROTATION_ONGOING) {
		/* from here on, events go to the next chunk: the verdict on
		 * this one is what its pass reached */
		close_chunk(t, "its replay pass had not finished when it was rotated");
		t->closing = true;
		return;
	}
	if (type != LTTNG_CONDITION_TYPE_SESSION_ROTATION_COMPLETED)
		return;
	if (!t->closing)
		close_chunk(t, "its rotation's start was not seen");
	t->closing = false;
	const struct lttng_trace_archive_location *loc = NULL;
	const char *where = NULL;
	if (lttng_evaluation_session_rotation_completed_get_location(ev, &loc) ==
		    LTTNG_EVALUATION_STATUS_OK && loc &&
	    lttng_trace_archive_location_get_type(loc) == LTTNG_TRACE_ARCHIVE_LOCATION_TYPE_LOCAL)
		lttng_trace_archive_location_local_get_absolute_path(loc, &where);
	t->rotations++;
	t->cur_index++;
	if (t->spill)
		mark_dups(t, t->cur_index, "the previous chunk's replay ran on into it");
	t->spill = false;
	new_pass(t);
	log_info("session %s: chunk %" PRIu64 " archived%s%s; replaying every process's "
		 "initialization records into chunk %" PRIu64, t->name, t->cur_index - 1,
		 where ? " at " : "", where ? where : "", t->cur_index);
	scan(t);
	save();
}

static void read_notifications(void)
{
	for (int guard = 0; R.chan && guard < 256; guard++) {
		bool pending = false;
		enum lttng_notification_channel_status s =
			lttng_notification_channel_has_pending_notification(R.chan, &pending);
		if (s == LTTNG_NOTIFICATION_CHANNEL_STATUS_NOTIFICATIONS_DROPPED) {
			/* whichever rotation it was: a new pass costs duplicates only */
			for (int i = 0; i < MAX_ROT; i++)
				if (R.rots[i].used) {
					log_warn("session %s: rotation notifications dropped",
						 R.rots[i].name);
					new_pass(&R.rots[i]);
				}
			continue;
		}
		if (s != LTTNG_NOTIFICATION_CHANNEL_STATUS_OK) {
			log_warn("rotation notifications: channel lost (status %d); reconnecting",
				 (int)s);
			close_channel();
			return;
		}
		if (!pending)
			return;
		struct lttng_notification *n = NULL;
		s = lttng_notification_channel_get_next_notification(R.chan, &n);
		if (s == LTTNG_NOTIFICATION_CHANNEL_STATUS_OK && n)
			on_notification(n);
		lttng_notification_destroy(n);
		if (s != LTTNG_NOTIFICATION_CHANNEL_STATUS_OK &&
		    s != LTTNG_NOTIFICATION_CHANNEL_STATUS_NOTIFICATIONS_DROPPED) {
			close_channel();
			return;
		}
	}
}

/* ---- adoption after a restart ---- */

static struct rot *slot(void)
{
	for (int i = 0; i < MAX_ROT; i++)
		if (!R.rots[i].used)
			return &R.rots[i];
	return NULL;
}

/* After a restart: what was written while caretd was away. */
static void adopt(struct rot *t)
{
	char err[256];
	if (trigger(t->name, false, true, err, sizeof(err)) < 0 ||
	    trigger(t->name, true, true, err, sizeof(err)) < 0)
		log_warn("session %s: %s", t->name, err);
	scan(t);
	uint64_t top = t->verdict_upto;
	for (int i = 0; t->list && i < t->list->n; i++) {
		uint64_t ix = t->list->c[i].index;
		if (ix >= t->verdict_upto)
			mark_incomplete(t, ix, "archived while caretd was not running");
		if (ix + 1 > top)
			top = ix + 1;
	}
	t->verdict_upto = top;
	t->cur_index = top;
	/* a pass cut by the restart left part of the records in the chunk
	 * being written: the full pass below writes them again */
	for (const struct agent *a = R.reg ? R.reg->head : NULL; a; a = a->next) {
		struct caret_seg_status st;
		caret_seg_read_status(&a->seg, &st);
		uint32_t ep = CARET_EPOCH_OF(st.grant);
		if (!a->dead && st.state == CARET_STATE_RECORD && ep &&
		    sched_done_in(&st, ep) < st.records) {
			mark_dups(t, t->cur_index, "a replay cut by caretd's restart is done again "
				  "in it");
			break;
		}
	}
	/* the chunk being written: a full pass now completes it, whatever
	 * the pass cut by the restart left there */
	baseline(t);
	new_pass(t);
	log_info("rotating recording %s taken over: replaying every process's initialization "
		 "records into chunk %" PRIu64, t->name, t->cur_index);
	save();
}

static void load(void)
{
	R.loaded = true;
	if (!R.v->state_file[0])
		return;
	snprintf(R.state_file, sizeof(R.state_file), "%s.rotation", R.v->state_file);
	int fd = open(R.state_file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return;
	struct stat st;
	static char buf[1 << 20];
	ssize_t len = -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
	    !(st.st_mode & 077) && st.st_size < (off_t)sizeof(buf))
		len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len < 0) {
		log_warn("ignoring %s: not a private file of caretd's", R.state_file);
		return;
	}
	buf[len] = '\0';
	char *save_line = NULL;
	for (char *line = strtok_r(buf, "\n", &save_line); line;
	     line = strtok_r(NULL, "\n", &save_line)) {
		struct rot t = { .used = true };
		char nameh[2 * CARET_LTTNG_NAME_MAX + 2], pathh[2 * 4096 + 2];
		unsigned uid, gid;
		int used = 0;
		if (sscanf(line, "1 %" SCNu64 " %" SCNu64 " %u %" SCNu64 " %" SCNu64 " %" SCNu64
			   " %" SCNu64 " %" SCNu64 " %" SCNu64 " %u %u %513s %8193s%n",
			   &t.o.every_ms, &t.o.size, &t.o.keep, &t.o.max_size, &t.verdict_upto,
			   &t.rotations, &t.removed, &t.dev, &t.ino, &uid, &gid, nameh, pathh,
			   &used) != 13 ||
		    caret_unhex(nameh, t.name, sizeof(t.name)) < 0 ||
		    caret_unhex(pathh, t.path, sizeof(t.path)) < 0)
			continue;
		t.uid = uid;
		t.gid = gid;
		for (char *p = line + used; *p;) {
			while (*p == ' ')
				p++;
			bool d = *p == 'd';
			char *end;
			uint64_t ix = strtoull(p + d, &end, 10);
			if (end == p + d)
				break;
			if (d)
				t.dups[t.n_dups++ % MAX_INCOMPLETE] = ix;
			else
				t.incomplete[t.n_incomplete++ % MAX_INCOMPLETE] = ix;
			p = end;
		}
		/* only a recording caretd still knows as the same one */
		const struct lttng_view_rec *r = lttng_view_find_rec(R.v, t.name);
		struct rot *s = slot();
		if (!r || r->uid != t.uid || strcmp(r->path, t.path) != 0 || find(t.name) || !s) {
			log_info("%s: rotating recording %s not taken over", R.state_file, t.name);
			continue;
		}
		*s = t;
		adopt(s);
	}
	save();
}

/* ---- a disk about to fill ---- */

/* The least free space a rotating recording needs to go on: room for the
 * chunk being written and the one after it (twice the largest chunk seen,
 * or the size schedule), and never under this floor. Below it, caretd ends
 * the recording while the last chunk can still be closed: the rest of the
 * host keeps its disk, and every chunk written stays readable. */
#define SPACE_FLOOR (4ull << 20)

static uint64_t reserve(const struct rot *t)
{
	uint64_t r = SPACE_FLOOR, big = 0;
	for (int i = 0; t->list && i < t->list->n; i++)
		if (t->list->c[i].bytes > big)
			big = t->list->c[i].bytes;
	if (2 * big > r)
		r = 2 * big;
	if (t->o.size && 2 * t->o.size > r)
		r = 2 * t->o.size;
	return r;
}

/* Free space for unprivileged writers on the trace directory's file
 * system (the consumer writes as the owner): 0 and *avail, or -errno. The
 * directory is the one created for the recording (dev:ino), never a link. */
static int space_left(const struct rot *t, uint64_t *avail)
{
	int fd = open(t->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct stat st;
	struct statvfs vfs;
	int rc = 0;
	if (fstat(fd, &st) < 0 || fstatvfs(fd, &vfs) < 0)
		rc = -errno;
	else if ((t->dev || t->ino) &&
		 ((uint64_t)st.st_dev != t->dev || (uint64_t)st.st_ino != t->ino))
		rc = -ESTALE;
	else
		*avail = (uint64_t)vfs.f_bavail * (uint64_t)vfs.f_frsize;
	close(fd);
	return rc;
}

/* Ends a recording caretd must not let fill the disk. */
static void end_for_space(struct rot *t, uint64_t avail, uint64_t need)
{
	char name[CARET_LTTNG_NAME_MAX], why[512], err[256] = "";
	snprintf(name, sizeof(name), "%s", t->name);
	snprintf(why, sizeof(why), "the file system of %.200s has %llu bytes left, less than the "
		 "%llu this rotating recording needs to go on: caretd stopped it (every chunk "
		 "written stays readable; bound it with --keep or --max-size)", t->path,
		 (unsigned long long)avail, (unsigned long long)need);
	log_err("session %s: %s", name, why);
	struct caret_lttng_chan_stats cs[4];
	int r = lttng_view_ops(R.v)->stop(name, cs, 4, NULL, 0, err, sizeof(err));
	if (r < 0) {
		log_err("session %s: cannot stop it: %s", name, err);
		return; /* tried again at the next look */
	}
	unsigned k = R.n_ended++ % MAX_ENDED;
	snprintf(R.ended[k].name, sizeof(R.ended[k].name), "%s", name);
	snprintf(R.ended[k].why, sizeof(R.ended[k].why), "%s", why);
	rotation_report_free(rotation_end(name));
	lttng_view_drop_rec(R.v, name);
	lttng_view_session_ended(R.v, name);
}

static void check_space(struct rot *t, int64_t now)
{
	if (now - t->space_ns < 1000000000)
		return;
	t->space_ns = now;
	uint64_t avail = 0, need = reserve(t);
	int r = space_left(t, &avail);
	if (r < 0) {
		log_debug("session %s: free space not known: %s", t->name, strerror(-r));
		return;
	}
	if (avail < need)
		end_for_space(t, avail, need);
}

/* ---- requests ---- */

void rotation_opts_of(const struct caret_ctl_record_req *q, struct rotation_opts *o)
{
	*o = (struct rotation_opts){ .size = q->rotate_size, .every_ms = q->rotate_every_ms,
				     .keep = (uint32_t)q->keep, .max_size = q->max_size };
}

/* ---- the timer ---- */

/* Whether the scheduler has adopted every agent found at start-up: it
 * takes an agent found in RECORD as covering every session active at its
 * first look, so a pass begun for a taken-over chunk before that look
 * would count as done in agents that never replayed it. */
static bool agents_adopted(void)
{
	for (const struct agent *a = R.reg ? R.reg->head : NULL; a; a = a->next)
		if (!a->dead && !a->sched_seen &&
		    caret_seg_state(&a->seg) != CARET_STATE_UNINITIALIZED)
			return false;
	return true;
}

static uint64_t on_tick(void *arg)
{
	(void)arg;
	if (!R.loaded && R.v->state_loaded && agents_adopted())
		load();
	unregister_gone();
	if (any_rot()) {
		ensure_channel();
		read_notifications();
		for (int i = 0; i < MAX_ROT; i++) {
			struct rot *t = &R.rots[i];
			if (!t->used || t->armed)
				continue;
			if (R.v->ok && !lttng_view_find_rec(R.v, t->name)) {
				log_info("session %s ended outside caretd: its rotation ends",
					 t->name);
				rotation_report_free(rotation_end(t->name));
				continue;
			}
			check_space(t, caret_now_ns());
			if (!t->used)
				continue; /* ended: the disk was about to fill */
			struct lttng_view_session *e = lttng_view_find(R.v, t->name);
			if (t->serial == 0 && e)
				t->serial = e->serial; /* its first pass: the recording's own */
			else if (t->serial == UINT32_MAX && e)
				new_pass(t);
			if (t->serial && !t->cur_complete && !t->closing && pass_complete(t))
				t->cur_complete = true;
		}
	} else {
		close_channel();
	}
	return any_rot() || !R.loaded || R.n_unreg ? TICK_USEC : IDLE_USEC;
}

int rotation_start(struct loop *l, struct lttng_view *v, struct registry *r)
{
	memset(&R, 0, sizeof(R));
	R.v = v;
	R.reg = r;
	/* observe: it reads LTTng's rotation notifications and tells the view
	 * (a new serial per chunk), which the pacer then schedules for */
	R.job = LOOP_JOB("rotation", LOOP_OBSERVE, on_tick, NULL);
	int rc = loop_add(l, &R.job);
	R.started = rc >= 0;
	return rc;
}

void rotation_stop(void)
{
	if (R.started)
		loop_remove(&R.job);
	R.started = false;
	close_channel();
	for (int i = 0; i < MAX_ROT; i++) {
		free(R.rots[i].list);
		free(R.rots[i].base);
		R.rots[i].list = NULL;
		R.rots[i].base = NULL;
	}
}

static int begin(struct rot *t, char *err, size_t errlen);

int rotation_begin(const struct lttng_view_rec *rec, const struct rotation_opts *o, char *err,
		   size_t errlen)
{
	if (!rotation_wanted(o))
		return 0;
	if (!rec) {
		snprintf(err, errlen, "no such recording");
		return -ENOENT;
	}
	if (rec->path[0] != '/') {
		snprintf(err, errlen, "rotation needs a local trace directory");
		return -EINVAL;
	}
	if (!R.loaded && R.v && R.v->state_file[0])
		snprintf(R.state_file, sizeof(R.state_file), "%s.rotation", R.v->state_file);
	struct rot *t = find(rec->name);
	if (t) { /* the same name again: what it held goes */
		free(t->base);
		free(t->list);
	} else {
		t = slot();
	}
	if (!t) {
		snprintf(err, errlen, "too many rotating recordings");
		return -ENOSPC;
	}
	*t = (struct rot){ .used = true, .o = *o, .dev = rec->dir_dev, .ino = rec->dir_ino,
			   .uid = rec->uid, .gid = rec->gid, .armed = rec->armed };
	snprintf(t->name, sizeof(t->name), "%s", rec->name);
	snprintf(t->path, sizeof(t->path), "%s", rec->path);
	if (t->armed)
		return 0; /* nothing recorded before `go`: no chunk to rotate */
	return begin(t, err, errlen);
}

int rotation_go(const struct lttng_view_rec *rec, char *err, size_t errlen)
{
	struct rot *t = find(rec->name);
	if (!t || !t->armed)
		return 0;
	t->armed = false;
	return begin(t, err, errlen);
}

static int begin(struct rot *t, char *err, size_t errlen)
{
	const struct rotation_opts *o = &t->o;
	baseline(t); /* before the first pass begins (the next tick) */
	/* the triggers and the subscription before the schedules: no
	 * rotation goes unseen */
	int rc = trigger(t->name, false, true, err, errlen);
	if (rc == 0)
		rc = trigger(t->name, true, true, err, errlen);
	if (rc == 0) {
		ensure_channel();
		if (!t->subscribed) {
			rc = -EIO;
			snprintf(err, errlen, "lttng: cannot subscribe to the rotations of %s",
				 t->name);
		}
	}
	if (rc == 0)
		rc = schedule(t->name, o, err, errlen);
	if (rc < 0) {
		defer_unregister(t->name);
		subscribe(t, false);
		t->used = false;
		return rc;
	}
	/* the first chunk's pass is the recording's own first replay */
	struct lttng_view_session *e = lttng_view_find(R.v, t->name);
	t->serial = e ? e->serial : 0; /* 0: its serial once the view sees it */
	log_info("session %s rotates:%s%s%s%s, keeping %s", t->name,
		 o->size ? " at every " : "", o->size ? "size threshold" : "",
		 o->every_ms ? " every " : "", o->every_ms ? "period" : "",
		 o->keep || o->max_size ? "a bound" : "every chunk");
	if (R.started)
		loop_job_soon(&R.job, 0);
	save();
	return 0;
}

/* Replies carry no count above 10^15 - 1 (caretd(8)): a size the owner's
 * files lie about is reported as that. */
static double count(uint64_t v)
{
	return v > 999999999999999ull ? 999999999999999.0 : (double)v;
}

/* Why a kept chunk may not be complete, NULL when it is. */
static const char *chunk_why(const struct rot *t, const struct chunk_info *c)
{
	return c->index >= t->verdict_upto ? "not known: caretd did not see it end"
	       : is_incomplete(t, c->index) ? "lacks init records of some process"
	       : has_dups(t, c->index)      ? "may hold init records twice"
					    : NULL;
}

static cJSON *status_of(const struct rot *t)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *chunks = cJSON_CreateArray(), *inc = cJSON_CreateArray();
	if (!o || !chunks || !inc) {
		cJSON_Delete(o);
		cJSON_Delete(chunks);
		cJSON_Delete(inc);
		return NULL;
	}
	cJSON_AddItemToObject(o, "chunks", chunks);
	cJSON_AddItemToObject(o, "incomplete", inc);
	bool ok = cJSON_AddStringToObject(o, "session", t->name) &&
		  cJSON_AddStringToObject(o, "mode", "rotating") &&
		  cJSON_AddNumberToObject(o, CARET_CTL_K_ROTATE_SIZE, (double)t->o.size) &&
		  cJSON_AddNumberToObject(o, CARET_CTL_K_ROTATE_EVERY_MS, (double)t->o.every_ms) &&
		  cJSON_AddNumberToObject(o, CARET_CTL_K_KEEP, t->o.keep) &&
		  cJSON_AddNumberToObject(o, CARET_CTL_K_MAX_SIZE, (double)t->o.max_size) &&
		  cJSON_AddNumberToObject(o, "rotations", count(t->rotations)) &&
		  cJSON_AddNumberToObject(o, "removed", count(t->removed)) &&
		  cJSON_AddNumberToObject(o, "chunks_bytes", t->list ? count(t->list->bytes) : 0.0);
	if (ok && t->error[0])
		ok = cJSON_AddStringToObject(o, "error", t->error);
	for (int i = 0; ok && t->list && i < t->list->n; i++) {
		const struct chunk_info *c = &t->list->c[i];
		const char *why = chunk_why(t, c);
		bool done = !why;
		cJSON *x = cJSON_CreateObject();
		ok = x && cJSON_AddItemToArray(chunks, x) &&
		     cJSON_AddStringToObject(x, "name", c->name) &&
		     cJSON_AddNumberToObject(x, "index", count(c->index)) &&
		     cJSON_AddNumberToObject(x, "bytes", count(c->bytes)) &&
		     cJSON_AddBoolToObject(x, "complete", done);
		if (ok && why)
			ok = cJSON_AddStringToObject(x, "why", why) != NULL;
		if (ok && !done)
			ok = cJSON_AddItemToArray(inc, cJSON_CreateString(c->name));
	}
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

struct rotation_report {
	struct rot t; /* its list its own, no baseline */
};

struct rotation_report *rotation_end(const char *session)
{
	struct rot *t = find(session);
	if (!t)
		return NULL;
	if (t->armed) { /* stopped before `go`: it never rotated */
		free(t->base);
		memset(t, 0, sizeof(*t));
		return NULL;
	}
	/* the session is destroyed: its last chunk is archived (the
	 * destruction rotates it); the notifications before it are read */
	uint64_t seen = t->rotations;
	read_notifications();
	/* unless the destruction's own rotation was seen, the chunk being
	 * written is the last one */
	if (t->rotations == seen)
		close_chunk(t, "its replay pass had not finished when the recording stopped");
	subscribe(t, false);
	defer_unregister(t->name);
	scan(t);
	free(t->base);
	t->base = NULL;
	t->n_base = 0;
	int n = 0;
	for (int i = 0; t->list && i < t->list->n; i++)
		n += chunk_why(t, &t->list->c[i]) != NULL;
	if (n)
		log_warn("session %s: %d of its chunks kept are incomplete", t->name, n);
	struct rotation_report *rep = malloc(sizeof(*rep));
	if (rep) {
		rep->t = *t; /* the listing goes with it */
	} else {
		log_err("session %s: out of memory for its rotation report", t->name);
		free(t->list);
	}
	memset(t, 0, sizeof(*t));
	save();
	return rep;
}

cJSON *rotation_report_enc(const struct rotation_report *r)
{
	return r ? status_of(&r->t) : NULL;
}

void rotation_report_free(struct rotation_report *r)
{
	if (r)
		free(r->t.list);
	free(r);
}

int rotation_add_status(cJSON *o)
{
	cJSON *a = cJSON_CreateArray(), *ended = cJSON_CreateArray();
	if (!ended || !cJSON_AddItemToObject(o, CARET_CTL_K_ROTATIONS_ENDED, ended)) {
		cJSON_Delete(ended);
		cJSON_Delete(a);
		return -ENOMEM;
	}
	unsigned n = R.n_ended < MAX_ENDED ? R.n_ended : MAX_ENDED;
	for (unsigned i = 0; i < n; i++) {
		cJSON *x = cJSON_CreateObject();
		if (!x || !cJSON_AddItemToArray(ended, x) ||
		    !cJSON_AddStringToObject(x, "session", R.ended[i].name) ||
		    !cJSON_AddStringToObject(x, "error", R.ended[i].why)) {
			cJSON_Delete(a);
			return -ENOMEM;
		}
	}
	if (!a || !cJSON_AddItemToObject(o, CARET_CTL_K_ROTATIONS, a)) {
		cJSON_Delete(a);
		return -ENOMEM;
	}
	for (int i = 0; i < MAX_ROT; i++) {
		if (!R.rots[i].used || R.rots[i].armed)
			continue;
		cJSON *x = status_of(&R.rots[i]);
		if (!x || !cJSON_AddItemToArray(a, x)) {
			cJSON_Delete(x);
			return -ENOMEM;
		}
	}
	return 0;
}

bool rotation_is_rotating(const char *session)
{
	return find(session) != NULL;
}
