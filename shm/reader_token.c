/* SPDX-License-Identifier: Apache-2.0 */
/* The merged reader's positions as text tokens: the cursor's kind and key
 * with a checksum, and a token sought back checked against the segments
 * (the event it names must still be there, exactly). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "shm/reader_impl.h"

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

