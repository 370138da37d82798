/* SPDX-License-Identifier: Apache-2.0 */
/* The merged reader over a set of segments; see reader.h for the model.
 *
 * Over 600 lines: the sources, the global index and the cursor are one
 * structure over hostile bytes whose invariants (sorted index up to the
 * published bound, private copies only, every offset checked once) all
 * its functions keep, the position tokens included; apart, each part
 * would need those internals in a shared header. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shm/reader.h"


struct rec {
	int64_t ts;
	uint64_t off;
	uint32_t kind;
};

/* One entry of the global index. */
struct gent {
	int64_t ts;
	uint64_t off;
	uint32_t src;
	uint32_t idx;
	uint32_t kind; /* for filters, without decoding */
};

struct source {
	char name[CARET_SHM_NAME_MAX];
	struct caret_seg seg;
	pid_t pid;
	uint64_t start;
	ino_t ino; /* a name re-created by another process is another segment */
	char procname[16];
	uint8_t *buf; /* private copy of the record area, [0, consumed) decoded */
	uint64_t buf_cap, consumed;
	struct rec *recs; /* every decoded record, by index */
	uint32_t nrec, rec_cap;
	uint32_t *held; /* indices inside the reorder window */
	uint32_t nheld, held_cap;
	bool corrupt, seen;
};

enum cur_kind { CUR_BEGIN = 'B', CUR_TIME = 'T', CUR_AFTER = 'A' };

struct key {
	int64_t ts;
	pid_t pid;
	uint64_t start;
	uint32_t idx;
};

struct caret_reader {
	pid_t *pids;
	size_t npids;
	int64_t window;
	int64_t (*now)(void *);
	void *now_ctx;
	struct source **src; /* slots; NULL when free */
	uint32_t nsrc;
	struct gent *g;
	size_t ng, gcap;
	struct gent *fresh;
	size_t nfresh, fresh_cap;
	enum cur_kind cur;
	struct key ck; /* CUR_TIME: ck.ts; CUR_AFTER: the last event passed */
	size_t pos;
	bool pos_valid;
	uint64_t late, vanished;
	caret_reader_filter filter;
	void *filter_ctx;
};

static int64_t default_now(void *ctx)
{
	(void)ctx;
	return caret_now_ns();
}

static int grow32(void **p, uint32_t *cap, size_t need, size_t size)
{
	if (need > UINT32_MAX)
		return -EOVERFLOW;
	size_t c = *cap;
	int r = caret_grow(p, &c, need, size);
	/* the doubling may pass UINT32_MAX: the array holds at least that */
	*cap = c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
	return r;
}

static struct key key_of(const struct caret_reader *r, const struct gent *e)
{
	const struct source *s = r->src[e->src];
	return (struct key){ e->ts, s->pid, s->start, e->idx };
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
	struct key a = key_of(ctx, x), b = key_of(ctx, y);
	return kcmp(&a, &b);
}

/* ---- segments ---- */

static bool wanted(const struct caret_reader *r, pid_t pid)
{
	if (!r->pids)
		return true;
	for (size_t i = 0; i < r->npids; i++)
		if (r->pids[i] == pid)
			return true;
	return false;
}

static void source_free(struct source *s)
{
	if (!s)
		return;
	caret_seg_close(&s->seg);
	free(s->buf);
	free(s->recs);
	free(s->held);
	free(s);
}

static int source_add(struct caret_reader *r, const char *name, pid_t pid, uint64_t start)
{
	struct source *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	int rc = caret_seg_attach(&s->seg, name);
	if (rc < 0) {
		free(s);
		return rc;
	}
	/* Identity from the name, which attach checked against the header;
	 * the header itself stays writable by its owner. */
	memcpy(s->name, s->seg.name, sizeof(s->name)); /* attach checked its length */
	s->pid = pid;
	s->start = start;
	memcpy(s->procname, s->seg.id.procname, sizeof(s->procname));
	s->procname[sizeof(s->procname) - 1] = '\0';
	struct stat st;
	if (fstat(s->seg.fd, &st) < 0) {
		source_free(s);
		return -errno;
	}
	s->ino = st.st_ino;
	s->seen = true;
	uint32_t slot = 0;
	while (slot < r->nsrc && r->src[slot])
		slot++;
	if (slot == r->nsrc) {
		struct source **n = realloc(r->src, (r->nsrc + 1) * sizeof(*n));
		if (!n) {
			source_free(s);
			return -ENOMEM;
		}
		r->src = n;
		r->nsrc++;
	}
	r->src[slot] = s;
	return 0;
}

static void source_drop(struct caret_reader *r, uint32_t slot)
{
	size_t k = 0;
	for (size_t i = 0; i < r->ng; i++)
		if (r->g[i].src != slot)
			r->g[k++] = r->g[i];
	r->ng = k;
	source_free(r->src[slot]);
	r->src[slot] = NULL;
	r->vanished++;
	r->pos_valid = false;
}

struct scan_ctx {
	struct caret_reader *r;
	int rc;
};

static int scan_one(const char *name, pid_t pid, uint64_t start, void *p)
{
	struct scan_ctx *c = p;
	struct caret_reader *r = c->r;
	if (!wanted(r, pid))
		return 0;
	/* the inode tells a name reused by a new file from the one we read */
	char path[sizeof(CARET_SHM_DIR) + CARET_SHM_NAME_MAX];
	struct stat st;
	snprintf(path, sizeof(path), CARET_SHM_DIR "/%s", name);
	if (lstat(path, &st) < 0)
		return 0; /* gone meanwhile */
	bool known = false;
	for (uint32_t i = 0; i < r->nsrc && !known; i++)
		if (r->src[i] && r->src[i]->ino == st.st_ino && strcmp(r->src[i]->name, name) == 0)
			known = r->src[i]->seen = true;
	/* A segment that cannot be attached (hostile header, another
	 * user's, being created) is skipped; the next refresh retries. */
	if (!known && source_add(r, name, pid, start) == -ENOMEM)
		c->rc = -ENOMEM;
	return 0;
}

/* caretd's and caret-agentctl's scan (shm/naming.c), one for all. */
static int scan(struct caret_reader *r)
{
	for (uint32_t i = 0; i < r->nsrc; i++)
		if (r->src[i])
			r->src[i]->seen = false;
	struct scan_ctx c = { r, 0 };
	int e = caret_seg_scan(scan_one, &c);
	if (e < 0)
		return e;
	for (uint32_t i = 0; i < r->nsrc; i++)
		if (r->src[i] && !r->src[i]->seen)
			source_drop(r, i);
	return c.rc;
}

static int push_fresh(struct caret_reader *r, uint32_t slot, uint32_t idx)
{
	if (caret_grow((void **)&r->fresh, &r->fresh_cap, r->nfresh + 1, sizeof(*r->fresh)) < 0)
		return -ENOMEM;
	const struct rec *rc = &r->src[slot]->recs[idx];
	r->fresh[r->nfresh++] = (struct gent){ rc->ts, rc->off, slot, idx, rc->kind };
	return 0;
}

/* Copies and decodes a segment's new committed records. */
static int read_tail(struct caret_reader *r, uint32_t slot, int64_t horizon)
{
	struct source *s = r->src[slot];
	/* Held records whose timestamp left the window go first. */
	uint32_t keep = 0;
	for (uint32_t i = 0; i < s->nheld; i++) {
		if (s->recs[s->held[i]].ts <= horizon) {
			if (push_fresh(r, slot, s->held[i]) < 0)
				return -ENOMEM;
		} else {
			s->held[keep++] = s->held[i];
		}
	}
	s->nheld = keep;
	if (s->corrupt)
		return 0;
	uint64_t tail;
	int hr = caret_seg_hdr_word(&s->seg, offsetof(struct caret_shm_header, tail), &tail);
	if (hr == -EAGAIN)
		return 0;
	if (hr < 0 || tail > s->seg.area_cap || tail % CARET_REC_ALIGN || tail < s->consumed) {
		s->corrupt = true; /* an append-only area never shrinks */
		return 0;
	}
	if (tail == s->consumed)
		return 0;
	if (tail > s->buf_cap) {
		/* First read: the size of what is there plus room to grow, not a
		 * series of doublings (each one copies and faults pages in). */
		uint64_t cap = s->buf_cap ? s->buf_cap : tail + tail / 4 + 4096;
		while (cap < tail)
			cap *= 2;
		uint8_t *b = realloc(s->buf, cap);
		if (!b)
			return -ENOMEM;
		s->buf = b;
		s->buf_cap = cap;
	}
	if (caret_seg_read_area(&s->seg, s->buf + s->consumed, tail - s->consumed,
				s->consumed) < 0) {
		s->corrupt = true; /* truncated under us */
		return 0;
	}
	/* Room for the records this tail can hold at most (a header each):
	 * bounded by bytes we copied, so a lying counter cannot inflate it. */
	uint64_t most = s->nrec + (tail - s->consumed) / sizeof(struct caret_rec_hdr);
	uint64_t hint; /* a sizing hint only: unreadable means none */
	if (caret_seg_hdr_word(&s->seg, offsetof(struct caret_shm_header, records), &hint) < 0)
		hint = 0;
	if (hint > most)
		hint = most;
	if (hint > s->rec_cap && hint <= UINT32_MAX &&
	    grow32((void **)&s->recs, &s->rec_cap, (size_t)hint, sizeof(*s->recs)) < 0)
		return -ENOMEM;
	uint64_t off = s->consumed;
	struct caret_rec_view v;
	int rc;
	for (;;) {
		uint64_t at = off;
		rc = caret_rec_next(s->buf, tail, &off, &v);
		if (rc != 1)
			break;
		if (grow32((void **)&s->recs, &s->rec_cap, (size_t)s->nrec + 1, sizeof(*s->recs)) < 0)
			return -ENOMEM;
		uint32_t idx = s->nrec++;
		s->recs[idx] = (struct rec){ v.init_timestamp, at, v.kind };
		if (v.init_timestamp <= horizon) {
			if (push_fresh(r, slot, idx) < 0)
				return -ENOMEM;
		} else {
			if (grow32((void **)&s->held, &s->held_cap, (size_t)s->nheld + 1,
				   sizeof(*s->held)) < 0)
				return -ENOMEM;
			s->held[s->nheld++] = idx;
		}
		s->consumed = off;
	}
	/* 0: the next record is not committed yet; read again from there. */
	if (rc < 0)
		s->corrupt = true;
	return 0;
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
		struct key k = key_of(r, &r->fresh[i]);
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
	int rc = scan(r);
	for (uint32_t i = 0; i < r->nsrc && rc != -ENOMEM; i++)
		if (r->src[i] && read_tail(r, i, horizon) < 0)
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
		source_free(r->src[i]);
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
			struct key k = key_of(r, &r->g[mid]);
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
	r->ck = key_of(r, e);
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

/* ---- tokens ---- */

static uint32_t token_sum(char kind, const struct key *k)
{
	uint64_t h = 0x6361726574726472ULL ^ (uint64_t)(unsigned char)kind;
	uint64_t parts[4] = { (uint64_t)k->ts, (uint64_t)(uint32_t)k->pid, k->start, k->idx };
	for (int i = 0; i < 4; i++) {
		h ^= parts[i] + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
		h ^= h >> 31;
		h *= 0xbf58476d1ce4e5b9ULL;
	}
	return (uint32_t)(h ^ (h >> 32));
}

/* kind, ts(16), pid(8), start(16), idx(8), sum(8) */
#define TOKEN_CHARS (1 + 16 + 8 + 16 + 8 + 8)

int caret_reader_tell(const struct caret_reader *r, char *buf, size_t len)
{
	if (len < TOKEN_CHARS + 1)
		return -ENOSPC;
	snprintf(buf, len, "%c%016" PRIx64 "%08" PRIx32 "%016" PRIx64 "%08" PRIx32 "%08" PRIx32,
		 (char)r->cur, (uint64_t)r->ck.ts, (uint32_t)r->ck.pid, r->ck.start, r->ck.idx,
		 token_sum((char)r->cur, &r->ck));
	return 0;
}

static bool hex_field(const char *p, int n, uint64_t *out)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++) {
		char c = p[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
		if (d < 0)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	*out = v;
	return true;
}

int caret_reader_seek_position(struct caret_reader *r, const char *tok)
{
	uint64_t ts, pid, start, idx, sum;
	if (!tok || strlen(tok) != TOKEN_CHARS || !hex_field(tok + 1, 16, &ts) ||
	    !hex_field(tok + 17, 8, &pid) || !hex_field(tok + 25, 16, &start) ||
	    !hex_field(tok + 41, 8, &idx) || !hex_field(tok + 49, 8, &sum))
		return -EINVAL;
	char kind = tok[0];
	struct key k = { (int64_t)ts, (pid_t)(uint32_t)pid, start, (uint32_t)idx };
	if ((kind != CUR_BEGIN && kind != CUR_TIME && kind != CUR_AFTER) ||
	    token_sum(kind, &k) != (uint32_t)sum)
		return -EINVAL;
	if (kind != CUR_AFTER && (k.pid || k.start || k.idx || (kind == CUR_BEGIN && k.ts)))
		return -EINVAL;
	if (kind == CUR_AFTER) {
		/* The token names the last event delivered: it must still be
		 * there, exactly. */
		const struct source *s = NULL;
		for (uint32_t i = 0; i < r->nsrc && !s; i++)
			if (r->src[i] && r->src[i]->pid == k.pid && r->src[i]->start == k.start)
				s = r->src[i];
		if (!s || k.pid <= 0)
			return -ESRCH;
		if (k.idx >= s->nrec)
			return s->corrupt ? -EBADMSG : -EINVAL;
		if (s->recs[k.idx].ts != k.ts)
			return -EINVAL;
		if (s->corrupt)
			return -EBADMSG;
	}
	r->cur = (enum cur_kind)kind;
	r->ck = k;
	r->pos_valid = false;
	return 0;
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
