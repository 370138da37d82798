/* SPDX-License-Identifier: Apache-2.0 */
/* The merged reader's sources: the segments of /dev/shm it attaches (one
 * scan for all, shm/naming.c), each one's new tail copied into private
 * memory and decoded there, hostile bytes checked once; records inside the
 * reorder window held back. */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shm/reader_sources.h"

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

static bool wanted(const struct reader_sources *t, pid_t pid)
{
	if (!t->pids)
		return true;
	for (size_t i = 0; i < t->npids; i++)
		if (t->pids[i] == pid)
			return true;
	return false;
}

int reader_sources_init(struct reader_sources *t, const pid_t *pids, size_t npids)
{
	memset(t, 0, sizeof(*t));
	if (!pids)
		return 0;
	t->pids = malloc((npids ? npids : 1) * sizeof(*t->pids));
	if (!t->pids)
		return -ENOMEM;
	memcpy(t->pids, pids, npids * sizeof(*t->pids));
	t->npids = npids;
	return 0;
}

static void source_free(struct reader_source *s)
{
	if (!s)
		return;
	caret_seg_close(&s->seg);
	free(s->buf);
	free(s->recs);
	free(s->held);
	free(s);
}

void reader_sources_free(struct reader_sources *t)
{
	for (uint32_t i = 0; i < t->nsrc; i++)
		source_free(t->src[i]);
	free(t->src);
	free(t->pids);
	memset(t, 0, sizeof(*t));
}

static int source_add(struct reader_sources *t, const char *name, pid_t pid, uint64_t start)
{
	struct reader_source *s = calloc(1, sizeof(*s));
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
	while (slot < t->nsrc && t->src[slot])
		slot++;
	if (slot == t->nsrc) {
		struct reader_source **n = realloc(t->src, (t->nsrc + 1) * sizeof(*n));
		if (!n) {
			source_free(s);
			return -ENOMEM;
		}
		t->src = n;
		t->nsrc++;
	}
	t->src[slot] = s;
	return 0;
}

static void source_drop(struct reader_sources *t, uint32_t slot)
{
	source_free(t->src[slot]);
	t->src[slot] = NULL;
	t->vanished++;
}

struct scan_ctx {
	struct reader_sources *t;
	int rc;
};

static int scan_one(const char *name, pid_t pid, uint64_t start, void *p)
{
	struct scan_ctx *c = p;
	struct reader_sources *t = c->t;
	if (!wanted(t, pid))
		return 0;
	/* the inode tells a name reused by a new file from the one we read */
	char path[sizeof(CARET_SHM_DIR) + CARET_SHM_NAME_MAX];
	struct stat st;
	snprintf(path, sizeof(path), CARET_SHM_DIR "/%s", name);
	if (lstat(path, &st) < 0)
		return 0; /* gone meanwhile */
	bool known = false;
	for (uint32_t i = 0; i < t->nsrc && !known; i++)
		if (t->src[i] && t->src[i]->ino == st.st_ino && strcmp(t->src[i]->name, name) == 0)
			known = t->src[i]->seen = true;
	/* A segment that cannot be attached (hostile header, another
	 * user's, being created) is skipped; the next refresh retries. */
	if (!known && source_add(t, name, pid, start) == -ENOMEM)
		c->rc = -ENOMEM;
	return 0;
}

/* caretd's and caret-agentctl's scan (shm/naming.c), one for all. */
int reader_sources_scan(struct reader_sources *t)
{
	for (uint32_t i = 0; i < t->nsrc; i++)
		if (t->src[i])
			t->src[i]->seen = false;
	struct scan_ctx c = { t, 0 };
	int e = caret_seg_scan(scan_one, &c);
	if (e < 0)
		return e;
	for (uint32_t i = 0; i < t->nsrc; i++)
		if (t->src[i] && !t->src[i]->seen)
			source_drop(t, i);
	return c.rc;
}

static int push_fresh(struct reader_fresh *f, const struct reader_source *s, uint32_t slot,
		      uint32_t idx)
{
	if (caret_grow((void **)&f->e, &f->cap, f->n + 1, sizeof(*f->e)) < 0)
		return -ENOMEM;
	const struct reader_rec *rc = &s->recs[idx];
	f->e[f->n++] = (struct reader_ent){ rc->ts, rc->off, slot, idx, rc->kind };
	return 0;
}

/* Copies and decodes a segment's new committed records. */
int reader_sources_read_tail(struct reader_sources *t, uint32_t slot, int64_t horizon,
			     struct reader_fresh *fresh)
{
	struct reader_source *s = t->src[slot];
	/* Held records whose timestamp left the window go first. */
	uint32_t keep = 0;
	for (uint32_t i = 0; i < s->nheld; i++) {
		if (s->recs[s->held[i]].ts <= horizon) {
			if (push_fresh(fresh, s, slot, s->held[i]) < 0)
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
		s->recs[idx] = (struct reader_rec){ v.init_timestamp, at, v.kind };
		if (v.init_timestamp <= horizon) {
			if (push_fresh(fresh, s, slot, idx) < 0)
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

int reader_sources_check(const struct reader_sources *t, const struct reader_key *k)
{
	const struct reader_source *s = NULL;
	for (uint32_t i = 0; i < t->nsrc && !s; i++)
		if (t->src[i] && t->src[i]->pid == k->pid && t->src[i]->start == k->start)
			s = t->src[i];
	if (!s || k->pid <= 0)
		return -ESRCH;
	if (k->idx >= s->nrec)
		return s->corrupt ? -EBADMSG : -EINVAL;
	if (s->recs[k->idx].ts != k->ts)
		return -EINVAL;
	return s->corrupt ? -EBADMSG : 0;
}
