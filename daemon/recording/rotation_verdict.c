/* SPDX-License-Identifier: Apache-2.0 */
/* The chunks' verdicts (daemon/recording/rotation_verdict.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/base/log.h"
#include "daemon/lttng/lttng_drain.h"
#include "daemon/recording/rotation_verdict.h"
#include "daemon/agents/scheduler.h"

/* Every live agent has the current chunk's pass: finished it (or emitted
 * its init events live in RECORD since before that pass began). */
bool rotation_pass_complete(const struct rotation *t)
{
	for (const struct agent *a = rotation_reg() ? rotation_reg()->head : NULL; a; a = a->next) {
		if (a->dead)
			continue;
		uint32_t st = caret_seg_state(&a->seg);
		if (st == CARET_STATE_UNINITIALIZED)
			continue;
		const struct sched_agent *sa = sched_agent_peek(a);
		if (st != CARET_STATE_RECORD || sa->extra_pass || !sa->seen ||
		    sa->covered_serial < t->serial)
			return false;
	}
	return true;
}

/* An agent replaying (a first pass, or again while it records), and for
 * which session serial: its records land in every chunk being written. */
static bool replaying(const struct agent *a, uint32_t *serial)
{
	uint32_t st = caret_seg_state(&a->seg);
	const struct sched_agent *sa = sched_agent_peek(a);
	if (a->dead || !sa->seen ||
	    !(st == CARET_STATE_PREPARE || (st == CARET_STATE_RECORD && sa->extra_pass)))
		return false;
	*serial = sa->pass_serial;
	return true;
}

static bool any_replaying(void)
{
	uint32_t s;
	for (const struct agent *a = rotation_reg() ? rotation_reg()->head : NULL; a; a = a->next)
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

bool rotation_is_incomplete(const struct rotation *t, uint64_t index)
{
	return in_ring(t->incomplete, t->n_incomplete, index);
}

bool rotation_has_dups(const struct rotation *t, uint64_t index)
{
	return in_ring(t->dups, t->n_dups, index);
}

bool rotation_has_discards(const struct rotation *t, uint64_t index, uint64_t *count)
{
	unsigned n = t->n_disc < MAX_INCOMPLETE ? t->n_disc : MAX_INCOMPLETE;
	for (unsigned i = 0; i < n; i++)
		if (t->disc[i].index == index) {
			if (count)
				*count = t->disc[i].count;
			return true;
		}
	return false;
}

static void mark_discards(struct rotation *t, uint64_t index, uint64_t count, const char *why)
{
	if (!rotation_has_discards(t, index, NULL))
		t->disc[t->n_disc++ % MAX_INCOMPLETE] = (struct rotation_disc){ index, count };
	if (count == UINT64_MAX)
		log_warn("session %s: chunk %" PRIu64 ": its discarded events cannot be counted "
			 "(%s): it may not be complete", t->name, index, why);
	else
		log_warn("session %s: chunk %" PRIu64 ": %" PRIu64 " events were discarded in "
			 "its buffers: it is INCOMPLETE (caretctl check says so too)", t->name,
			 index, count);
}

void rotation_mark_dups(struct rotation *t, uint64_t index, const char *why)
{
	if (!rotation_has_dups(t, index))
		t->dups[t->n_dups++ % MAX_INCOMPLETE] = index;
	log_warn("session %s: chunk %" PRIu64 " may hold init records twice (%s): caretctl "
		 "check calls it incomplete; the analyzer ignores duplicates", t->name, index, why);
}

void rotation_mark_incomplete(struct rotation *t, uint64_t index, const char *why)
{
	if (!rotation_is_incomplete(t, index))
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
void rotation_baseline(struct rotation *t)
{
	int n = 0;
	for (const struct agent *a = rotation_reg() ? rotation_reg()->head : NULL; a; a = a->next)
		n++;
	struct base *b = n ? calloc((size_t)n, sizeof(*b)) : NULL;
	free(t->base);
	t->base = b;
	t->n_base = 0;
	for (const struct agent *a = rotation_reg() ? rotation_reg()->head : NULL; b && a && t->n_base < n;
	     a = a->next)
		b[t->n_base++] = (struct base){ a->pid, a->start_time, pass_epoch(a) };
}

/* Passes begun in some agent since the baseline; the most of any. */
static uint32_t passes_since(const struct rotation *t)
{
	uint32_t most = 0;
	for (const struct agent *a = rotation_reg() ? rotation_reg()->head : NULL; a; a = a->next) {
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
void rotation_close_chunk(struct rotation *t, const char *why_not)
{
	/* its own pass, and one more: another session's, or its own begun
	 * over (a newer session during it) */
	if (passes_since(t) > 1)
		rotation_mark_dups(t, t->cur_index, "more than one replay pass went into it");
	rotation_baseline(t);
	bool ok = t->cur_complete || rotation_pass_complete(t);
	/* whatever pass is running goes on into the next chunk */
	t->spill = !ok || any_replaying();
	if (!ok)
		rotation_mark_incomplete(t, t->cur_index, why_not);
	else
		log_info("session %s: chunk %" PRIu64 " complete", t->name, t->cur_index);
	if (t->verdict_upto < t->cur_index + 1)
		t->verdict_upto = t->cur_index + 1;
}

/* A new chunk is being written: a new serial for the session (a new pass
 * for every agent, see daemon/agents/scheduler.h), ready at once (the agents'
 * tracepoints are enabled already: no settling delay). */
void rotation_new_pass(struct rotation *t)
{
	struct lttng_view_session *e = lttng_view_find(rotation_view(), t->name);
	t->cur_complete = false;
	if (!e) {
		t->serial = UINT32_MAX; /* no pass can cover it: not active */
		return;
	}
	e->serial = ++rotation_view()->last_serial;
	e->since_ns = INT64_MIN / 2;
	t->serial = e->serial;
	if (rotation_view()->on_change)
		rotation_view()->on_change(rotation_view()->change_arg);
}

/* The discarded events of every archived chunk with a verdict that was
 * not counted yet, from its packet index (daemon/lttng/lttng_drain.h): the
 * files are the owner's, read by descriptor below the directory created
 * for the recording, never through a link, within bounds. */
static void count_discards(struct rotation *t)
{
	/* lttng-sessiond writes the trace as its owner when caretd could act
	 * as them (root), else as caretd (lib/lttng/session.h) */
	uid_t owner = geteuid() == 0 ? t->uid : geteuid();
	int top = -1;
	for (int i = 0; t->list && i < t->list->n; i++) {
		const struct chunk_info *c = &t->list->c[i];
		if (c->index < t->disc_upto || c->index >= t->verdict_upto)
			continue;
		if (top < 0)
			top = lttng_drain_open(t->path, t->dev, t->ino, owner);
		if (top < 0) {
			log_warn_errno(top, "session %s: discarded events of its chunks not "
				       "counted", t->name);
			return; /* counted at the next scan */
		}
		struct lttng_drain d;
		int rc = lttng_drain_read_chunk(top, c->name, owner, &d);
		if (rc == -ENOENT)
			continue; /* removed since the listing, or no UST stream in it */
		if (rc < 0)
			mark_discards(t, c->index, UINT64_MAX, strerror(-rc));
		else if (d.chunk_discarded)
			mark_discards(t, c->index, d.chunk_discarded, "");
		else if (d.truncated || d.ignored)
			mark_discards(t, c->index, UINT64_MAX,
				      d.truncated ? "its packet index is beyond what caretd reads"
						  : "some of its index files are not believable");
		if (c->index + 1 > t->disc_upto)
			t->disc_upto = c->index + 1;
	}
	if (top >= 0)
		close(top);
}

static const char *bound_of(const struct rotation *t)
{
	return t->o.keep && t->o.max_size ? "--keep, --max-size" : t->o.keep ? "--keep"
										: "--max-size";
}

void rotation_scan_apply(struct rotation *t, const struct chunk_list *got, int r, const char *err)
{
	if (!t->list)
		t->list = calloc(1, sizeof(*t->list));
	if (!t->list)
		return;
	/* a helper that died (or was killed) said nothing: the last listing
	 * stands */
	if (r != -EIO)
		*t->list = *got;
	for (int i = 0; i < got->removed; i++)
		log_info("session %s: chunk %" PRIu64 " removed (%s)", t->name,
			 got->removed_index[i], bound_of(t));
	t->removed += (uint64_t)got->removed;
	if (got->cut == CHUNKS_CUT_BUDGET)
		log_info("session %s: pruning stopped after %" PRIu64 " entries removed (at most "
			 "%d per rotation): the rest goes at the next one", t->name,
			 got->removed_entries, CHUNKS_REMOVE_MAX);
	else if (got->cut)
		log_warn("session %s: pruning stopped at its deadline after %" PRIu64 " entries "
			 "removed: the rest goes at the next rotation", t->name,
			 got->removed_entries);
	if (r < 0) {
		snprintf(t->error, sizeof(t->error), "%s", err && err[0] ? err : strerror(-r));
		log_warn("session %s: archived chunks: %s", t->name, t->error);
	} else {
		t->error[0] = '\0';
	}
	count_discards(t);
}

/* The listing of its archives, the disk bound applied (daemon/recording/chunks.h,
 * with the recording owner's rights), and their discarded events: caretd
 * waits, for at most ROT_SCAN_WAIT_MS of the helper's work. */
void rotation_scan(struct rotation *t)
{
	struct chunk_list *got = calloc(1, sizeof(*got));
	if (!got)
		return;
	struct creds_id as = { .uid = t->uid, .gid = t->gid, .groups = NULL, .n_groups = -1 };
	char err[256] = "";
	int r = chunks_prune(&as, t->path, t->dev, t->ino, t->o.keep, t->o.max_size,
			     ROT_SCAN_WAIT_MS, got, err, sizeof(err));
	rotation_scan_apply(t, got, r, err);
	free(got);
}
