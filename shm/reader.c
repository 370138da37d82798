/* SPDX-License-Identifier: Apache-2.0 */
/* The merged reader over a set of segments; see reader.h for the model.
 * Here: the global index (the fresh records merged in), the cursor and the
 * reads, the introspection. The sources are reader_sources.c's, the
 * position tokens reader_token.c's. */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "shm/reader_impl.h"

static int64_t default_now(void *ctx)
{
	(void)ctx;
	return caret_now_ns();
}

static int kcmp(const struct key *a, const struct key *b)
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
	struct key a = reader_key_of(ctx, x), b = reader_key_of(ctx, y);
	return kcmp(&a, &b);
}

/* Whether the cursor has already gone past key k. */
static bool passed(const struct caret_reader *r, const struct key *k)
{
	switch (r->cur) {
	case CUR_AFTER:
		return kcmp(k, &r->ck) <= 0;
	case CUR_TIME:
		return false; /* a time seek has delivered nothing yet */
	default:
		return false;
	}
}

/* Sorts the fresh records and merges them into the global index. */
static int publish(struct caret_reader *r)
{
	if (!r->nfresh)
		return 0;
	/* Fresh records are nearly sorted already (each segment roughly is). */
	qsort_r(r->fresh, r->nfresh, sizeof(*r->fresh), gcmp, r);
	for (size_t i = 0; i < r->nfresh; i++) {
		struct key k = reader_key_of(r, &r->fresh[i]);
		if (passed(r, &k))
			r->late++;
	}
	if (caret_grow((void **)&r->g, &r->gcap, r->ng + r->nfresh, sizeof(*r->g)) < 0)
		return -ENOMEM;
	size_t i = r->ng, j = r->nfresh, k = r->ng + r->nfresh;
	while (j > 0) {
		if (i > 0 && gcmp(&r->g[i - 1], &r->fresh[j - 1], r) > 0)
			r->g[--k] = r->g[--i];
		else
			r->g[--k] = r->fresh[--j];
	}
	r->ng += r->nfresh;
	r->nfresh = 0;
	r->pos_valid = false;
	return 0;
}

int caret_reader_refresh(struct caret_reader *r)
{
	/* The horizon is taken before any tail is read: a record committed
	 * after this point read its clock after (now - window) unless its
	 * writer stalled longer than the window. */
	int64_t now = r->now(r->now_ctx);
	int64_t horizon = r->window == 0 || now < INT64_MIN + r->window ? INT64_MAX
									: now - r->window;
	int rc = reader_scan(r);
	for (uint32_t i = 0; i < r->nsrc && rc != -ENOMEM; i++)
		if (r->src[i] && reader_read_tail(r, i, horizon) < 0)
			rc = -ENOMEM;
	if (rc == -ENOMEM) {
		r->nfresh = 0;
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
	r->cur = CUR_BEGIN;
	if (o && o->pids) {
		r->pids = malloc((o->npids ? o->npids : 1) * sizeof(*r->pids));
		if (!r->pids) {
			free(r);
			return -ENOMEM;
		}
		memcpy(r->pids, o->pids, o->npids * sizeof(*r->pids));
		r->npids = o->npids;
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
	for (uint32_t i = 0; i < r->nsrc; i++)
		reader_source_free(r->src[i]);
	free(r->src);
	free(r->g);
	free(r->fresh);
	free(r->pids);
	free(r);
}

/* ---- cursor ---- */

static size_t bound(const struct caret_reader *r)
{
	size_t lo = 0, hi = r->ng;
	if (r->cur == CUR_BEGIN)
		return 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		bool before;
		if (r->cur == CUR_TIME) {
			before = r->g[mid].ts < r->ck.ts;
		} else {
			struct key k = reader_key_of(r, &r->g[mid]);
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
	r->cur = CUR_BEGIN;
	memset(&r->ck, 0, sizeof(r->ck));
	r->pos_valid = false;
}

void caret_reader_seek_time(struct caret_reader *r, int64_t t)
{
	r->cur = CUR_TIME;
	memset(&r->ck, 0, sizeof(r->ck));
	r->ck.ts = t;
	r->pos_valid = false;
}

bool caret_reader_next_ts(const struct caret_reader *r, int64_t *ts)
{
	for (size_t at = r->pos_valid ? r->pos : bound(r); at < r->ng; at++) {
		const struct gent *e = &r->g[at];
		if (!r->filter || r->filter(r->src[e->src]->pid, e->kind, r->filter_ctx)) {
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
	const struct gent *e = &r->g[at];
	r->cur = CUR_AFTER;
	r->ck = reader_key_of(r, e);
	r->pos = at + 1;
	r->pos_valid = true;
	return !r->filter || r->filter(r->src[e->src]->pid, e->kind, r->filter_ctx);
}

static int deliver(struct caret_reader *r, size_t at, caret_reader_cb cb, void *ctx, int *stop)
{
	const struct gent *e = &r->g[at];
	const struct source *s = r->src[e->src];
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

/* ---- introspection ---- */

void caret_reader_stats(const struct caret_reader *r, struct caret_reader_stats *st)
{
	memset(st, 0, sizeof(*st));
	for (uint32_t i = 0; i < r->nsrc; i++) {
		const struct source *s = r->src[i];
		if (!s)
			continue;
		st->segments++;
		st->corrupt_segments += s->corrupt;
		st->held += s->nheld;
	}
	st->records = r->ng;
	st->late = r->late;
	st->vanished = r->vanished;
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
	for (uint32_t i = 0; i < r->nsrc; i++) {
		const struct source *s = r->src[i];
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

