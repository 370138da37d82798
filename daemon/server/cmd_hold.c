/* SPDX-License-Identifier: Apache-2.0 */
/* `hold` and its release (daemon/server/cmd_hold.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/base/log.h"
#include "daemon/lttng/lttng_start.h"
#include "daemon/recording/recordings_state.h"
#include "daemon/server/cmd_hold.h"

struct hold {
	struct cmd_ctx ctx;
	struct cmd_peer peer;
	char name[CARET_LTTNG_NAME_MAX];
	uint64_t seq;   /* the recording's: a name used again is another one */
	bool live;      /* its request runs: closing it stops the recording */
	bool answered;  /* its first line is out */
	bool released;  /* a release came: the recording runs on unheld */
	bool over;      /* its last line is out: nothing left to stop */
	/* record's "hold" (cmd_hold_record): record, the deferred request
	 * whose result is this hold's first line (NULL once it ended); first,
	 * that result when record answered in line; self, this hold's wait */
	struct wait_req *record, *self;
	wait_line *first;
	struct hold *next;
};

/* Every hold, for a release arriving on another connection. */
static struct hold *holds;
static bool shutting_down;

static struct recording *held_recording(const struct hold *h)
{
	struct recording *r = recordings_find(h->ctx.recs, h->name);
	return r && r->seq == h->seq ? r : NULL;
}

/* Held from now on: a release may end it, its connection's close stops
 * the recording. */
static void hold_live(struct hold *h, const struct recording *rec)
{
	h->seq = rec->seq;
	snprintf(h->name, sizeof(h->name), "%s", rec->name);
	h->next = holds;
	holds = h;
	h->live = true;
	log_info("session %s: held by its requester (pid %d uid %d)", rec->name,
		 (int)h->peer.pid, (int)h->peer.uid);
}

/* A deferred record's lines; its result, when it made the recording, is
 * the hold's first line: the recording held from the moment the request
 * ends (the request itself stops what it made if its requester leaves
 * before). */
static wait_line *record_poll(struct hold *h, int64_t now, bool *done)
{
	bool over;
	wait_line *l = wait_poll(h->record, now, &over);
	if (!over)
		return l;
	const char *name = wait_line_record_session(l);
	struct recording *rec = name ? recordings_find(h->ctx.recs, name) : NULL;
	if (rec && wait_line_record_held(l) == 0) {
		hold_live(h, rec);
		h->answered = true;
		wait_set_slow(h->self);
	} else {
		*done = true; /* failed: nothing to hold */
		h->over = true;
	}
	/* answered: releasing it stops nothing */
	wait_free(h->record);
	h->record = NULL;
	return l;
}

static wait_line *hold_poll(void *arg, int64_t now, bool *done)
{
	struct hold *h = arg;
	*done = false;
	if (h->record)
		return record_poll(h, now, done);
	if (!h->answered) {
		h->answered = true;
		wait_line *first = h->first;
		h->first = NULL;
		if (!h->live) { /* a record's result that could not be held */
			*done = true;
			h->over = true;
		}
		return first ? first : wait_line_hold(h->name, true);
	}
	if (!h->released && held_recording(h))
		return NULL;
	*done = true;
	h->over = true;
	return wait_line_hold(h->name, false);
}

/* A stop for a holder that left, waiting for LTTng's start to end. */
struct unheld {
	struct cmd_ctx ctx;
	struct cmd_peer peer;
	char name[CARET_LTTNG_NAME_MAX];
	uint64_t seq;
	bool all_hosts;
};

/* The recording ends as `caretctl stop` would have ended it, by the
 * holder's rights. */
static void stop_now(struct unheld *u, bool run)
{
	static struct cmd_stop_res res; /* 20 KiB: not on the stack */
	struct recording *rec = recordings_find(u->ctx.recs, u->name);
	if (!rec || rec->seq != u->seq) {
		free(u);
		return; /* stopped meanwhile (its stop waited for the start too) */
	}
	if (!run) {
		log_warn("session %s: caretd exits before LTTng's start ended: the stop of this "
			 "recording whose requester left is not done (it may still record: "
			 "'caretctl stop -s %s')", u->name, u->name);
		free(u);
		return;
	}
	struct caret_ctl_stop_req q = { .session = u->name, .all_hosts = u->all_hosts };
	struct cmd_err e = { "" };
	int r = cmd_stop(&u->ctx, &u->peer, &q, &res, &e);
	if (r < 0)
		log_err("session %s: stopping it for its requester that left failed: %s "
			"(it may still record: 'caretctl stop -s %s')", u->name, e.msg, u->name);
	else
		recording_end_free(&res.end);
	free(u);
}

static void stop_after_start(void *arg, bool run)
{
	struct unheld *u = arg;
	struct recordings *recs = u->ctx.recs;
	stop_now(u, run);
	/* no command's end or release follows to save the table */
	if (run && recs)
		recordings_save_changed(recs);
}

/* Its holder left without a release (saved by the server, which released
 * this request, when the stop runs at once). */
static void stop_unheld(struct hold *h, const struct recording *rec)
{
	struct unheld *u = malloc(sizeof(*u));
	if (!u) {
		log_err("session %s: out of memory: not stopped for its requester that left "
			"('caretctl stop -s %s')", h->name, h->name);
		return;
	}
	*u = (struct unheld){ .ctx = h->ctx, .peer = h->peer, .seq = h->seq,
			      .all_hosts = rec->all_hosts };
	snprintf(u->name, sizeof(u->name), "%s", h->name);
	log_warn("session %s: its requester (pid %d) left without releasing it (caretctl "
		 "killed, interrupted twice or its terminal lost): stopped as 'caretctl stop' "
		 "stops it, the trace kept%s", h->name, (int)h->peer.pid,
		 lttng_start_running(NULL) ? ", once LTTng's start of another session ended" : "");
	if (!lttng_start_running(NULL)) {
		stop_now(u, true);
		return;
	}
	/* cmd_stop calls LTTng, which answers no one until its start ends:
	 * the loop would stall that long */
	if (lttng_start_after(stop_after_start, u) < 0) {
		log_err("session %s: out of memory: not stopped for its requester that left "
			"('caretctl stop -s %s')", h->name, h->name);
		free(u);
	}
}

static void hold_release(void *arg)
{
	struct hold *h = arg;
	for (struct hold **pp = &holds; *pp; pp = &(*pp)->next) {
		if (*pp == h) {
			*pp = h->next;
			break;
		}
	}
	const struct recording *rec = h->live && !h->over && !h->released && !shutting_down
					      ? held_recording(h)
					      : NULL;
	if (rec)
		stop_unheld(h, rec);
	/* a record not answered yet ends as its own release says */
	wait_free(h->record);
	wait_line_free(h->first);
	free(h);
}

static const struct wait_custom hold_ops = { hold_poll, hold_release };

static int release(const struct cmd_peer *peer, const struct recording *rec)
{
	int n = 0;
	for (struct hold *h = holds; h; h = h->next) {
		if (!h->released && h->seq == rec->seq && !strcmp(h->name, rec->name)) {
			h->released = true;
			n++;
		}
	}
	log_info("session %s: released by uid %d (%d hold%s ended): it records on unheld "
		 "until 'caretctl stop'", rec->name, (int)peer->uid, n, n == 1 ? "" : "s");
	return 0;
}

int cmd_hold(const struct cmd_ctx *ctx, const struct cmd_peer *peer,
	     const struct caret_ctl_hold_req *q, struct cmd_hold_res *res, struct wait_req **wait,
	     struct cmd_err *e)
{
	*wait = NULL;
	struct recording *rec = recordings_find(ctx->recs, q->session);
	if (!rec)
		return cmd_fail(e, ENOENT, "no recording %s: only one 'caretctl record' made is "
				"held", q->session);
	if (!cmd_may_act_for(peer, rec->uid)) {
		log_warn("uid %d may not %s session %s", (int)peer->uid,
			 q->release ? "release" : "hold", rec->name);
		return cmd_fail(e, EPERM, "session %s is another user's recording (uid %d)",
				rec->name, (int)rec->uid);
	}
	snprintf(res->session, sizeof(res->session), "%s", rec->name);
	if (q->release)
		return release(peer, rec);
	struct hold *h = calloc(1, sizeof(*h));
	if (!h)
		return cmd_fail(e, ENOMEM, "out of memory");
	h->ctx = *ctx;
	h->peer = *peer;
	*wait = wait_custom_slow(&hold_ops, h);
	if (!*wait) /* hold_release ran: not live, nothing stopped */
		return cmd_fail(e, ENOMEM, "out of memory");
	hold_live(h, rec);
	return 0;
}

struct wait_req *cmd_hold_record(const struct cmd_ctx *ctx, const struct cmd_peer *peer,
				 const char *session, struct wait_req *record, wait_line **first)
{
	struct recording *rec = record ? NULL : recordings_find(ctx->recs, session);
	if (!record && (!rec || !*first))
		return NULL;
	struct hold *h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->ctx = *ctx;
	h->peer = *peer;
	/* a deferred one is polled often until its result */
	h->self = record ? wait_custom(&hold_ops, h) : wait_custom_slow(&hold_ops, h);
	if (!h->self)
		return NULL;
	h->record = record;
	h->first = *first;
	*first = NULL;
	/* answered in line: held now (not, out of memory: its requester
	 * holds it with `hold`, as from a caretd before record's) */
	if (rec && wait_line_record_held(h->first) == 0)
		hold_live(h, rec);
	return h->self;
}

bool cmd_hold_held(const struct recording *rec)
{
	for (const struct hold *h = holds; h; h = h->next)
		if (h->live && !h->released && !h->over && h->seq == rec->seq &&
		    !strcmp(h->name, rec->name))
			return true;
	return false;
}

void cmd_hold_shutdown(void)
{
	shutting_down = true;
}
