/* SPDX-License-Identifier: Apache-2.0 */
/* The reader's position tokens: hex fields and a checksum, so that a
 * token edited or cut by hand is refused rather than sought. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "shm/reader_token.h"

static uint32_t token_sum(char kind, const struct reader_key *k)
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

int reader_token_format(enum reader_pos pos, const struct reader_key *k, char *buf, size_t len)
{
	if (len < READER_TOKEN_CHARS + 1)
		return -ENOSPC;
	snprintf(buf, len, "%c%016" PRIx64 "%08" PRIx32 "%016" PRIx64 "%08" PRIx32 "%08" PRIx32,
		 (char)pos, (uint64_t)k->ts, (uint32_t)k->pid, k->start, k->idx,
		 token_sum((char)pos, k));
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

int reader_token_parse(const char *tok, enum reader_pos *pos, struct reader_key *k)
{
	uint64_t ts, pid, start, idx, sum;
	if (!tok || strlen(tok) != READER_TOKEN_CHARS || !hex_field(tok + 1, 16, &ts) ||
	    !hex_field(tok + 17, 8, &pid) || !hex_field(tok + 25, 16, &start) ||
	    !hex_field(tok + 41, 8, &idx) || !hex_field(tok + 49, 8, &sum))
		return -EINVAL;
	char kind = tok[0];
	struct reader_key key = { (int64_t)ts, (pid_t)(uint32_t)pid, start, (uint32_t)idx };
	if ((kind != READER_POS_BEGIN && kind != READER_POS_TIME && kind != READER_POS_AFTER) ||
	    token_sum(kind, &key) != (uint32_t)sum)
		return -EINVAL;
	if (kind != READER_POS_AFTER &&
	    (key.pid || key.start || key.idx || (kind == READER_POS_BEGIN && key.ts)))
		return -EINVAL;
	*pos = (enum reader_pos)kind;
	*k = key;
	return 0;
}
