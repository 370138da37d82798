/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Rotating recordings (daemon/recording/rotation.h): the timer, the requests, and
 * what a notification does to a chunk. Its parts, each calling only down:
 * the table (rotation_state.h), lttng-ctl (rotation_lttng.h), the chunks'
 * verdicts (rotation_verdict.h), the state file and adoption
 * (rotation_store.h), the disk guard (rotation_space.h), replies
 * (rotation_report.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/base/log.h"
#include "daemon/agents/scheduler.h"
#include "daemon/base/loop.h"
#include "daemon/lttng/lttng_start.h"
#include "lib/lttng/session.h"
#include "daemon/recording/rotation.h"
#include "daemon/recording/rotation_lttng.h"
#include "daemon/recording/rotation_prune.h"
#include "daemon/recording/rotation_space.h"
#include "daemon/recording/rotation_store.h"
#include "daemon/recording/rotation_verdict.h"
#include "proto/caret_ctl_req.h"
#include "proto/caret_ctl_snapshot.h"

/* How often the notification channel is read while no recording rotates
 * (while one does: rotation_read_delay_usec). */
#define IDLE_USEC (1000 * USEC_PER_MS)

static struct {
	struct loop_job job; /* observe stage of the tick */
	bool started;
} R;

/* ---- notifications ---- */

/* The chunk being written is closed (its verdict given): from here on,
 * events go to the next one, which gets a full pass at once; none when
 * ending (the stop's own rotation: the session is gone, no chunk follows,
 * and a pass would only replay into nothing). */
static void next_chunk(struct rotation *t, const char *why_not, bool ending)
{
	rotation_close_chunk(t, why_not);
	t->cur_index++;
	if (ending) {
		t->spill = false;
		t->serial = UINT32_MAX; /* no pass can cover it: not active */
		t->cur_complete = false;
		log_info("session %s: chunk %" PRIu64 " closed by the stop", t->name,
			 t->cur_index - 1);
		return;
	}
	if (t->spill)
		rotation_mark_dups(t, t->cur_index, "the previous chunk's replay ran on into it");
	t->spill = false;
	rotation_new_pass(t);
	if (t->serial == UINT32_MAX) /* its session ended meanwhile: no chunk follows */
		log_info("session %s: chunk %" PRIu64 " closed (the session is no longer "
			 "active)", t->name, t->cur_index - 1);
	else
		log_info("session %s: chunk %" PRIu64 " closed; replaying every process's "
			 "initialization records into chunk %" PRIu64 " while LTTng archives it",
			 t->name, t->cur_index - 1, t->cur_index);
}

/* on_event's arg when the recording ends (feat_end): no new pass */
static int ending_arg;

static void on_event(enum rotation_lttng_event ev, struct rotation *t, const char *where, void *arg)
{
	bool ending = arg == &ending_arg;
	if (ev == ROTL_DROPPED) {
		if (ending)
			return; /* nothing is written any more: no pass to begin */
		/* whichever rotation it was: a new pass costs duplicates only */
		rotation_new_pass(t);
		return;
	}
	if (ev == ROTL_ONGOING) {
		/* lttng-sessiond notifies a rotation's start once every
		 * consumer switched its streams' packets (measured: no event
		 * written after the notice is in the closed chunk, bench/NOTES.md
		 * P11): the pass into the next chunk need not wait for the
		 * archive, 0.5 s later (the session daemon's pending check) */
		next_chunk(t, "its replay pass had not finished when it was rotated", ending);
		t->archiving = true;
		t->started_ns = caret_now_ns();
		return;
	}
	if (!t->archiving) {
		next_chunk(t, "its rotation's start was not seen", ending);
		t->started_ns = caret_now_ns();
	}
	t->archiving = false;
	t->rotations++;
	log_info("session %s: chunk %" PRIu64 " archived%s%s", t->name, t->cur_index - 1,
		 where ? " at " : "", where ? where : "");
	rotation_prune_begin(t); /* off caretd's loop: its owner may have filled it */
	rotation_store_save();
}

/* ---- requests ---- */

void rotation_opts_of(const struct caret_ctl_record_req *q, struct rotation_opts *o)
{
	*o = (struct rotation_opts){ .size = q->rotate_size, .every_ms = q->rotate_every_ms,
				     .keep = (uint32_t)q->keep, .max_size = q->max_size };
}

/* ---- a disk about to fill (daemon/recording/rotation_space.h) ---- */

/* Ends a recording caretd must not let fill the disk. */
static void end_for_space(struct rotation *t, uint64_t avail, uint64_t need)
{
	char name[CARET_LTTNG_NAME_MAX], why[512], err[256] = "";
	snprintf(name, sizeof(name), "%s", t->name);
	snprintf(why, sizeof(why), "the file system of %.200s has %llu bytes left, less than the "
		 "%llu this rotating recording needs to go on: caretd stopped it (every chunk "
		 "written stays readable; bound it with --keep or --max-size)", t->path,
		 (unsigned long long)avail, (unsigned long long)need);
	log_err("session %s: %s", name, why);
	struct caret_lttng_chan_stats cs[4];
	int r = lttng_view_ops(rotation_view())->stop(name, cs, 4, NULL, 0, err, sizeof(err));
	if (r < 0) {
		log_err("session %s: cannot stop it: %s", name, err);
		return; /* tried again at the next look */
	}
	recordings_ended_add(rotation_recs(), name, why);
	/* its features end with it (its rotation's report: nobody asks) */
	recordings_drop(rotation_recs(), recordings_find(rotation_recs(), name));
	lttng_view_session_ended(rotation_view(), name);
}

/* ---- the timer ---- */

/* Whether the scheduler has adopted every agent found at start-up: it
 * takes an agent found in RECORD as covering every session active at its
 * first look, so a pass begun for a taken-over chunk before that look
 * would count as done in agents that never replayed it. */
static bool agents_adopted(void)
{
	for (const struct agent *a = rotation_reg() ? rotation_reg()->head : NULL; a; a = a->next)
		if (!a->dead && !sched_agent_peek(a)->seen &&
		    caret_seg_state(&a->seg) != CARET_STATE_UNINITIALIZED)
			return false;
	return true;
}

/* The pass of the chunk being written: which serial it is for (the
 * recording's own first, a new one after a rotation), and whether every
 * live agent has it (latched). The tick's and a stop's. */
static void follow_pass(struct rotation *t)
{
	struct lttng_view_session *e = lttng_view_find(rotation_view(), t->name);
	if (t->serial == 0 && e)
		t->serial = e->serial; /* its first pass: the recording's own */
	else if (t->serial == UINT32_MAX && e)
		rotation_new_pass(t);
	if (t->serial && !t->cur_complete && rotation_pass_complete(t))
		t->cur_complete = true;
}

uint64_t rotation_read_delay_usec(const struct rotation *t, int64_t now_ns)
{
	if (!t->o.every_ms || !t->started_ns)
		return ROTATION_TICK_USEC; /* no rotation due at a known time */
	int64_t due = t->started_ns + (int64_t)t->o.every_ms * 1000000;
	int64_t from = due - (int64_t)ROTATION_EARLY_MS * 1000000;
	if (now_ns >= from && now_ns <= due + (int64_t)ROTATION_LATE_MS * 1000000)
		return ROTATION_FAST_USEC;
	if (now_ns < from && (from - now_ns) / 1000 < ROTATION_TICK_USEC)
		return (uint64_t)((from - now_ns) / 1000) + 1;
	return ROTATION_TICK_USEC;
}

static uint64_t on_tick(void *arg)
{
	(void)arg;
	uint64_t delay = ROTATION_TICK_USEC;
	bool adopted = agents_adopted();
	for (int i = 0; adopted && i < MAX_ROT; i++)
		if (rotation_at(i)->used && rotation_at(i)->adopting)
			rotation_store_adopt(rotation_at(i));
	/* while LTTng starts a session, its client calls would stall
	 * caretd's loop until that start ends (lttng_start.h): the
	 * notifications already on the channel are read (without waiting:
	 * no chunk's rotation goes unseen), the rest waits for the start */
	bool starting = lttng_start_running(NULL);
	if (rotation_any()) {
		if (!starting)
			rotl()->ensure_channel();
		rotl()->read_notifications(on_event, NULL);
		for (int i = 0; i < MAX_ROT; i++) {
			struct rotation *t = rotation_at(i);
			if (!t->used || t->armed || t->adopting)
				continue;
			uint64_t avail, need;
			if (rotation_space_low(t, caret_now_ns(), &avail, &need) && !starting)
				end_for_space(t, avail, need);
			if (!t->used)
				continue; /* ended: the disk was about to fill */
			follow_pass(t);
			uint64_t d = rotation_read_delay_usec(t, caret_now_ns());
			if (d < delay)
				delay = d;
		}
	} else {
		rotl()->close_channel();
	}
	bool busy = rotation_any() || !rotation_recs()->loaded;
	return busy ? delay : IDLE_USEC;
}

int rotation_start(struct loop *l, const struct rotation_ops *ops)
{
	memset(&R, 0, sizeof(R));
	rotation_state_init(ops->recs, ops->reg);
	rotation_prune_init(l->event);
	rotation_lttng_reset();
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
	rotation_prune_cancel_all();
	rotl()->close_channel();
	rotation_state_free();
}

static int begin(struct rotation *t, char *err, size_t errlen);

static int feat_begin(struct recordings *rs, struct recording *rec, char *err, size_t errlen)
{
	struct rotation_opts o = rec->rot.o;
	(void)rs; /* recordings_make saves the recording once begun */
	if (!rotation_wanted(&o))
		return 0;
	if (rec->path[0] != '/') {
		snprintf(err, errlen, "rotation needs a local trace directory");
		return -EINVAL;
	}
	struct rotation *t = &rec->rot;
	*t = (struct rotation){ .used = true, .o = o, .dev = rec->dir_dev, .ino = rec->dir_ino,
			   .uid = rec->uid, .gid = rec->gid, .armed = rec->armed };
	snprintf(t->name, sizeof(t->name), "%s", rec->name);
	snprintf(t->path, sizeof(t->path), "%s", rec->path);
	if (t->armed)
		return 0; /* nothing recorded before `go`: no chunk to rotate */
	return begin(t, err, errlen);
}

static int feat_go(struct recordings *rs, struct recording *rec, char *err, size_t errlen)
{
	(void)rs;
	struct rotation *t = &rec->rot;
	if (!t->used || !t->armed)
		return 0;
	t->armed = false;
	return begin(t, err, errlen);
}

static int begin(struct rotation *t, char *err, size_t errlen)
{
	const struct rotation_opts *o = &t->o;
	rotation_baseline(t); /* before the first pass begins (the next tick) */
	/* the triggers and the subscription before the schedules: no
	 * rotation goes unseen */
	int rc = rotl()->register_triggers(t->name, err, errlen);
	if (rc == 0) {
		rotl()->ensure_channel();
		if (!t->subscribed) {
			rc = -EIO;
			snprintf(err, errlen, "lttng: cannot subscribe to the rotations of %s",
				 t->name);
		}
	}
	if (rc == 0)
		rc = rotl()->schedule(t->name, o, err, errlen);
	if (rc < 0) {
		rotl()->subscribe(t, false);
		free(t->base);
		memset(t, 0, sizeof(*t));
		rotation_store_save();
		return rc;
	}
	/* the first chunk's pass is the recording's own first replay */
	struct lttng_view_session *e = lttng_view_find(rotation_view(), t->name);
	t->serial = e ? e->serial : 0; /* 0: its serial once the view sees it */
	log_info("session %s rotates:%s%s%s%s, keeping %s", t->name,
		 o->size ? " at every " : "", o->size ? "size threshold" : "",
		 o->every_ms ? " every " : "", o->every_ms ? "period" : "",
		 o->keep || o->max_size ? "a bound" : "every chunk");
	if (R.started)
		loop_job_soon(&R.job, 0);
	rotation_store_save();
	return 0;
}

static int feat_quiesce(struct recordings *rs, struct recording *rec, int64_t now_ns, char *err,
			size_t errlen)
{
	(void)rs;
	struct rotation *t = &rec->rot;
	if (!t->used || t->armed)
		return 0;
	int e = rotl()->unschedule(t->name);
	if (e < 0)
		log_debug_errno(e, "session %s: its rotation schedules stay until the stop",
				t->name);
	else
		log_debug("session %s: rotation schedules removed before the stop", t->name);
	/* a periodic rotation just before the stop (after caretctl saw the
	 * last chunk's replay done): its chunk's replay comes first */
	rotl()->read_notifications(on_event, NULL);
	if (!t->used)
		return 0;
	follow_pass(t);
	if (t->cur_complete) {
		t->stop_wait_ns = 0;
		return 0;
	}
	if (!t->stop_wait_ns)
		t->stop_wait_ns = now_ns;
	if (now_ns - t->stop_wait_ns >= (int64_t)ROTATION_STOP_WAIT_MS * 1000000)
		return 0;
	snprintf(err, errlen, "session %s: the chunk being written lacks part of its replay (a "
		 "rotation just before the stop); stop again", t->name);
	return -EAGAIN;
}

static void feat_end(struct recordings *rs, struct recording *rec, struct recording_end *out)
{
	(void)rs;
	struct rotation *t = &rec->rot;
	if (!t->used)
		return;
	if (t->armed) { /* stopped before `go`: it never rotated */
		if (!out)
			log_info("armed recording %s is gone before Enter: its rotation options go",
				 t->name);
		free(t->base);
		memset(t, 0, sizeof(*t));
		rotation_store_save();
		return;
	}
	if (!out)
		log_info("session %s: its rotation ends with it", t->name);
	/* the session is destroyed: its last chunk is archived (the
	 * destruction rotates it); the notifications before it are read */
	uint64_t seen = t->cur_index;
	rotl()->read_notifications(on_event, &ending_arg);
	/* unless the destruction's own rotation was seen, the chunk being
	 * written is the last one */
	if (t->cur_index == seen)
		rotation_close_chunk(t, "its replay pass had not finished when the recording stopped");
	rotl()->subscribe(t, false);
	/* its triggers go with the session (why: rotation_lttng.h); the
	 * last scan is waited for, briefly (rotation_verdict.h) */
	rotation_prune_cancel(t);
	rotation_scan(t);
	free(t->base);
	t->base = NULL;
	t->n_base = 0;
	int n = 0;
	char buf[96];
	for (int i = 0; t->list && i < t->list->n; i++)
		n += rotation_chunk_why(t, &t->list->c[i], buf, sizeof(buf)) != NULL;
	if (n)
		log_warn("session %s: %d of its chunks kept are incomplete", t->name, n);
	struct rotation_report *rep = rotation_report_take(t);
	memset(t, 0, sizeof(*t));
	rotation_store_save();
	if (out)
		rotation_report_end(rep, out);
	else
		rotation_report_free(rep);
}

/* A rotating recording's part of status: its mode, and its entry in the
 * result's rotations (status, not list). */
static int feat_status(const struct recording *rec, struct caret_ctl_recording_status *entry,
		       struct caret_ctl_recordings *result)
{
	const struct rotation *t = &rec->rot;
	if (!t->used)
		return 0;
	if (!entry->mode)
		entry->mode = CARET_CTL_MODE_ROTATING;
	return t->armed ? 0 : rotation_report_add_status(t, result);
}

const struct recording_feature_ops rotation_feature = {
	.name = "rot",
	.begin = feat_begin,
	.go = feat_go,
	.quiesce = feat_quiesce,
	.end = feat_end,
	.status = feat_status,
	.save = rotation_store_save_token,
	.restore = rotation_store_restore,
};

bool rotation_is_rotating(struct recordings *t, const char *session)
{
	const struct recording *r = recordings_find(t, session);
	return r && r->rot.used;
}
