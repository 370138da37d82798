/* SPDX-License-Identifier: Apache-2.0 */
/* The merged reader's internals, for shm/reader*.c only: its sources (one
 * attached segment each, reader_sources.c), the global index and the
 * cursor (reader.c), the position tokens (reader_token.c). The invariants
 * they all keep: the index sorted up to the published bound, records read
 * from private copies only, every offset checked once when decoded. */
#ifndef CARET_SHM_READER_IMPL_H
#define CARET_SHM_READER_IMPL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

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

static inline struct key reader_key_of(const struct caret_reader *r, const struct gent *e)
{
	const struct source *s = r->src[e->src];
	return (struct key){ e->ts, s->pid, s->start, e->idx };
}

void reader_source_free(struct source *s);
/* The segments of /dev/shm matched against the sources: new ones
 * attached, vanished ones dropped (their entries leave the index).
 * -ENOMEM, or caret_seg_scan's error; a segment that cannot be attached
 * is skipped. */
int reader_scan(struct caret_reader *r);
/* Copies and decodes a segment's new committed records: those older than
 * `horizon` go to the fresh list, the others are held. 0 or -ENOMEM; a
 * corrupted segment is flagged, not an error. */
int reader_read_tail(struct caret_reader *r, uint32_t slot, int64_t horizon);

#endif
