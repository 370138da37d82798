/* SPDX-License-Identifier: Apache-2.0 */
/* A position in the merged reader's order (shm/reader.h) and its text
 * form: the key of an event, what a cursor stands on, and the token that
 * carries both with a checksum. A pure codec: whether the event a token
 * names still exists is for the reader to ask its sources. */
#ifndef CARET_SHM_READER_TOKEN_H
#define CARET_SHM_READER_TOKEN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The order: (init_timestamp, pid, start_time, record index). */
struct reader_key {
	int64_t ts;
	pid_t pid;
	uint64_t start;
	uint32_t idx;
};

/* Where a cursor stands: at the beginning, at a time (key.ts only), or
 * after the event the key names. The values are the token's first char. */
enum reader_pos { READER_POS_BEGIN = 'B', READER_POS_TIME = 'T', READER_POS_AFTER = 'A' };

/* kind, ts(16), pid(8), start(16), idx(8), sum(8) */
#define READER_TOKEN_CHARS (1 + 16 + 8 + 16 + 8 + 8)

/* Writes the token, NUL-terminated. -ENOSPC if len is too small. */
int reader_token_format(enum reader_pos pos, const struct reader_key *k, char *buf, size_t len);
/* -EINVAL when the token is malformed, its checksum does not match, or
 * its key does not fit its kind; *pos and *k are unchanged then. */
int reader_token_parse(const char *tok, enum reader_pos *pos, struct reader_key *k);

#endif
