/* SPDX-License-Identifier: Apache-2.0 */
/* The merged reader over a set of segments; see reader.h for the model.
 * Here: the global index (the fresh records merged in), the cursor and the
 * reads, the introspection. The segments it reads are a table of its own
 * (reader_sources.h), the cursor's text form a codec (reader_token.h). */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "shm/reader.h"
#include "shm/reader_sources.h"
#include "shm/reader_token.h"

/* The invariants: the index sorted up to the published bound, records
 * read from the sources' private copies only. */
struct caret_reader {
	struct reader_sources t;
	int64_t window;
	int64_t (*now)(void *);
	void *now_ctx;
	struct reader_ent *g; /* the index */
	size_t ng, gcap;
	struct reader_fresh fresh;
	enum reader_pos cur;
	struct reader_key ck; /* READER_POS_TIME: ck.ts; READER_POS_AFTER: the last event passed */
	size_t pos;
	bool pos_valid;
	uint64_t late;
	caret_reader_filter filter;
	void *filter_ctx;
};

static inline struct reader_key reader_key_of(const struct caret_reader *r,
					      const struct reader_ent *e)
{
	return reader_sources_key(&r->t, e);
}

static int64_t default_now(void *ctx)
{
	(void)ctx;
	return caret_now_ns();
}

static int kcmp(const struct reader_key *a, const struct reader_key *b)
{
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

static int gcmp(const void *x, const void *y, void *ctx)
{
	struct reader_key a = reader_key_of(ctx, x), b = reader_key_of(ctx, y);
	return kcmp(&a, &b);
}

/* Whether the cursor has already gone past key k. */
static bool passed(const struct caret_reader *r, const struct reader_key *k)
{
	switch (r->cur) {
	case READER_POS_AFTER:
		return kcmp(k, &r->ck) <= 0;
	case READER_POS_TIME:
		return false; /* a time seek has delivered nothing yet */
	default:
		return false;
	}
}

/* Sorts the fresh records and merges them into the global index. */
static int publish(struct caret_reader *r)
{
	if (!r->fresh.n)
		return 0;
	/* Fresh records are nearly sorted already (each segment roughly is). */
	qsort_r(r->fresh.e, r->fresh.n, sizeof(*r->fresh.e), gcmp, r);
	for (size_t i = 0; i < r->fresh.n; i++) {
		struct reader_key k = reader_key_of(r, &r->fresh.e[i]);
		if (passed(r, &k))
			r->late++;
	}
	if (caret_grow((void **)&r->g, &r->gcap, r->ng + r->fresh.n, sizeof(*r->g)) < 0)
		return -ENOMEM;
	size_t i = r->ng, j = r->fresh.n, k = r->ng + r->fresh.n;
	while (j > 0) {
		if (i > 0 && gcmp(&r->g[i - 1], &r->fresh.e[j - 1], r) > 0)
			r->g[--k] = r->g[--i];
		else
			r->g[--k] = r->fresh.e[--j];
	}
	r->ng += r->fresh.n;
	r->fresh.n = 0;
	r->pos_valid = false;
	return 0;
}

/* The index entries of the sources the scan dropped go with them. */
static void drop_vanished(struct caret_reader *r)
{
	size_t k = 0;
	for (size_t i = 0; i < r->ng; i++)
		if (r->t.src[r->g[i].src])
			r->g[k++] = r->g[i];
	r->ng = k;
	r->pos_valid = false;
}

int caret_reader_refresh(struct caret_reader *r)
{
	/* The horizon is taken before any tail is read: a record committed
	 * after this point read its clock after (now - window) unless its
	 * writer stalled longer than the window. */
	int64_t now = r->now(r->now_ctx);
	int64_t horizon = r->window == 0 || now < INT64_MIN + r->window ? INT64_MAX
									: now - r->window;
	uint64_t vanished = r->t.vanished;
	int rc = reader_sources_scan(&r->t);
	if (r->t.vanished != vanished)
		drop_vanished(r);
	for (uint32_t i = 0; i < r->t.nsrc && rc != -ENOMEM; i++)
		if (r->t.src[i] && reader_sources_read_tail(&r->t, i, horizon, &r->fresh) < 0)
			rc = -ENOMEM;
	if (rc == -ENOMEM) {
		r->fresh.n = 0;
		return rc;
	}
	int p = publish(r);
	return p < 0 ? p : rc;
}

int caret_reader_open(struct caret_reader **out, const struct caret_reader_opts *o)
{
	*out = NULL;
	struct caret_reader *r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->window = o && o->window_ns >= 0 ? o->window_ns : CARET_READER_DEFAULT_WINDOW_NS;
	r->now = o && o->now ? o->now : default_now;
	r->now_ctx = o ? o->now_ctx : NULL;
	r->cur = READER_POS_BEGIN;
	if (reader_sources_init(&r->t, o ? o->pids : NULL, o ? o->npids : 0) < 0) {
		free(r);
		return -ENOMEM;
	}
	int rc = caret_reader_refresh(r);
	if (rc < 0) {
		caret_reader_close(r);
		return rc;
	}
	*out = r;
	return 0;
}

void caret_reader_close(struct caret_reader *r)
{
	if (!r)
		return;
	reader_sources_free(&r->t);
	free(r->g);
	free(r->fresh.e);
	free(r);
}

/* ---- cursor ---- */

static size_t bound(const struct caret_reader *r)
{
	size_t lo = 0, hi = r->ng;
	if (r->cur == READER_POS_BEGIN)
		return 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		bool before;
		if (r->cur == READER_POS_TIME) {
			before = r->g[mid].ts < r->ck.ts;
		} else {
			struct reader_key k = reader_key_of(r, &r->g[mid]);
			before = kcmp(&k, &r->ck) <= 0;
		}
		if (before)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static size_t cursor_pos(struct caret_reader *r)
{
	if (!r->pos_valid) {
		r->pos = bound(r);
		r->pos_valid = true;
	}
	return r->pos;
}

void caret_reader_seek_begin(struct caret_reader *r)
{
	r->cur = READER_POS_BEGIN;
	memset(&r->ck, 0, sizeof(r->ck));
	r->pos_valid = false;
}

void caret_reader_seek_time(struct caret_reader *r, int64_t t)
{
	r->cur = READER_POS_TIME;
	memset(&r->ck, 0, sizeof(r->ck));
	r->ck.ts = t;
	r->pos_valid = false;
}

bool caret_reader_next_ts(const struct caret_reader *r, int64_t *ts)
{
	for (size_t at = r->pos_valid ? r->pos : bound(r); at < r->ng; at++) {
		const struct reader_ent *e = &r->g[at];
		if (!r->filter || r->filter(r->t.src[e->src]->pid, e->kind, r->filter_ctx)) {
			if (ts)
				*ts = e->ts;
			return true;
		}
	}
	return false;
}

bool caret_reader_more(const struct caret_reader *r)
{
	return caret_reader_next_ts(r, NULL);
}

void caret_reader_set_filter(struct caret_reader *r, caret_reader_filter f, void *ctx)
{
	r->filter = f;
	r->filter_ctx = ctx;
}

/* Moves the cursor past event `at`; false when the filter rejects it. */
static bool step(struct caret_reader *r, size_t at)
{
	const struct reader_ent *e = &r->g[at];
	r->cur = READER_POS_AFTER;
	r->ck = reader_key_of(r, e);
	r->pos = at + 1;
	r->pos_valid = true;
	return !r->filter || r->filter(r->t.src[e->src]->pid, e->kind, r->filter_ctx);
}

static int deliver(struct caret_reader *r, size_t at, caret_reader_cb cb, void *ctx, int *stop)
{
	const struct reader_ent *e = &r->g[at];
	const struct reader_source *s = r->t.src[e->src];
	struct caret_reader_event ev = { .pid = s->pid, .start_time = s->start,
					 .procname = s->procname, .index = e->idx };
	uint64_t off = e->off;
	/* Decoded once already: this cannot fail on our private copy. */
	if (caret_rec_next(s->buf, s->consumed, &off, &ev.rec) != 1)
		return -EBADMSG;
	*stop = cb ? cb(&ev, ctx) : 0;
	return 0;
}

int64_t caret_reader_read_time(struct caret_reader *r, int64_t end, uint64_t max,
			       caret_reader_cb cb, void *ctx)
{
	size_t at = cursor_pos(r);
	int64_t n = 0, last = 0;
	int stop = 0;
	while (at < r->ng && !stop) {
		int64_t ts = r->g[at].ts;
		if (ts >= end)
			break;
		/* Past the count, only the events sharing the last timestamp:
		 * a next request from the cursor starts at a new timestamp. */
		if (max && (uint64_t)n >= max && ts != last)
			break;
		if (step(r, at)) {
			if (deliver(r, at, cb, ctx, &stop) < 0)
				return -EBADMSG;
			last = ts;
			n++;
		}
		at++;
	}
	return n;
}

int64_t caret_reader_read_count(struct caret_reader *r, uint64_t count, caret_reader_cb cb,
				void *ctx)
{
	size_t at = cursor_pos(r);
	int64_t n = 0;
	int stop = 0;
	while (at < r->ng && (uint64_t)n < count && !stop) {
		if (step(r, at)) {
			if (deliver(r, at, cb, ctx, &stop) < 0)
				return -EBADMSG;
			n++;
		}
		at++;
	}
	return n;
}

int caret_reader_tell(const struct caret_reader *r, char *buf, size_t len)
{
	return reader_token_format(r->cur, &r->ck, buf, len);
}

int caret_reader_seek_position(struct caret_reader *r, const char *tok)
{
	enum reader_pos pos;
	struct reader_key k;
	int rc = reader_token_parse(tok, &pos, &k);
	if (rc < 0)
		return rc;
	/* The token names the last event delivered: it must still be there. */
	if (pos == READER_POS_AFTER && (rc = reader_sources_check(&r->t, &k)) < 0)
		return rc;
	r->cur = pos;
	r->ck = k;
	r->pos_valid = false;
	return 0;
}

/* ---- introspection ---- */

void caret_reader_stats(const struct caret_reader *r, struct caret_reader_stats *st)
{
	memset(st, 0, sizeof(*st));
	for (uint32_t i = 0; i < r->t.nsrc; i++) {
		const struct reader_source *s = r->t.src[i];
		if (!s)
			continue;
		st->segments++;
		st->corrupt_segments += s->corrupt;
		st->held += s->nheld;
	}
	st->records = r->ng;
	st->late = r->late;
	st->vanished = r->t.vanished;
}

static int info_cmp(const void *a, const void *b)
{
	const struct caret_reader_seg_info *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->start_time > y->start_time) - (x->start_time < y->start_time);
}

size_t caret_reader_segments(const struct caret_reader *r, struct caret_reader_seg_info *out,
			     size_t max)
{
	size_t n = 0;
	for (uint32_t i = 0; i < r->t.nsrc; i++) {
		const struct reader_source *s = r->t.src[i];
		if (!s)
			continue;
		if (n < max)
			out[n] = (struct caret_reader_seg_info){ s->pid, s->start, s->procname,
								 s->nrec, s->corrupt };
		n++;
	}
	if (out && n)
		qsort(out, n < max ? n : max, sizeof(*out), info_cmp);
	return n;
}

