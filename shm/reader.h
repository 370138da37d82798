/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reading the host's caches like a traceset (seed 004): every agent's
 * segment is one append-only "file" of init records, roughly ordered by
 * init_timestamp; the reader merges them into one total, deterministic
 * order and reads it by time interval or by count from saved positions.
 *
 * Order: (init_timestamp, pid, start_time, record index in its segment).
 *
 * Out-of-order appends: threads of one process reserve space in the order
 * they reach the cache, not in timestamp order, so a segment is only
 * roughly sorted. Each refresh decodes a segment's new tail into a private
 * copy, sorts those records by (timestamp, index) and merges them into one
 * global sorted index. A record can still arrive after the reader has gone
 * past its timestamp (its thread read the clock, then was preempted before
 * committing). The reorder window bounds that: a record is published to
 * the index only once its timestamp is older than (now - window), now
 * being read before the tail is; until then it is held back. A record that
 * still arrives behind a cursor (its writer took longer than the window
 * between reading the clock and committing) is counted as late, not
 * delivered to that cursor, and never breaks the order.
 *
 * Positions are cursors in that order ("after event E", "at time T",
 * "beginning"), saved as opaque text tokens that carry a checksum and are
 * validated against the segments when sought back: a token naming an
 * event of a vanished process, an event that does not exist, or a
 * corrupted segment is refused with a clear error. Positions stay valid as
 * caches grow (records are never moved or removed).
 *
 * Segments are the ones named "<caret_shm_prefix()>.<pid>.<start>" in
 * /dev/shm (where shm_open puts them), optionally only given pids.
 *
 * Hostile input: segments are attached with caret_seg_attach (validated
 * header, no symlinks), records are copied into private memory with pread
 * before they are decoded, and every record is decoded by caret_rec_next
 * (sizes, offsets, strings checked). A corrupted segment keeps the records
 * read before the corruption and is flagged.
 */
#ifndef CARET_SHM_READER_H
#define CARET_SHM_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "shm/caret_shm.h"

struct caret_reader;

struct caret_reader_opts {
	const pid_t *pids;   /* only these processes; NULL: all */
	size_t npids;
	/* Reorder window in ns; < 0: CARET_READER_DEFAULT_WINDOW_NS; 0
	 * publishes everything at once (static caches, tests). */
	int64_t window_ns;
	/* Clock used for the window; NULL: caret_now_ns. Tests set it. */
	int64_t (*now)(void *ctx);
	void *now_ctx;
};

#define CARET_READER_DEFAULT_WINDOW_NS 50000000LL /* 50 ms */

struct caret_reader_event {
	pid_t pid;
	uint64_t start_time;
	const char *procname;
	uint32_t index; /* record index in its segment (append order) */
	struct caret_rec_view rec; /* strings point into the reader's copy:
				    * valid until the next refresh */
};

/* Returns non-zero to stop the read after this event. */
typedef int (*caret_reader_cb)(const struct caret_reader_event *e, void *ctx);

/* Opens and refreshes once. */
int caret_reader_open(struct caret_reader **out, const struct caret_reader_opts *o);
void caret_reader_close(struct caret_reader *r);

/* Picks up new segments, new records, vanished segments. The cursor keeps
 * its place in the order. */
int caret_reader_refresh(struct caret_reader *r);

/* Events the filter rejects are passed over by reads (the cursor moves
 * past them) without being delivered or counted. NULL: every event. */
typedef bool (*caret_reader_filter)(pid_t pid, uint32_t kind, void *ctx);
void caret_reader_set_filter(struct caret_reader *r, caret_reader_filter f, void *ctx);

/* Cursor moves. */
void caret_reader_seek_begin(struct caret_reader *r);
void caret_reader_seek_time(struct caret_reader *r, int64_t t);
/* 0, or -EINVAL (malformed or checksum mismatch, or naming an event that
 * does not exist), -ESRCH (its process vanished or is not in the set),
 * -EBADMSG (its segment is corrupted). The cursor is unchanged on error. */
int caret_reader_seek_position(struct caret_reader *r, const char *token);

/*
 * Reads events with init_timestamp < end from the cursor, at most max
 * (0: no limit) plus every further event sharing the timestamp of the last
 * one, so that a next request starting at the cursor neither repeats nor
 * loses an event. Returns the number delivered.
 */
int64_t caret_reader_read_time(struct caret_reader *r, int64_t end, uint64_t max,
			       caret_reader_cb cb, void *ctx);
/* Reads at most n events from the cursor. Returns the number delivered. */
int64_t caret_reader_read_count(struct caret_reader *r, uint64_t n, caret_reader_cb cb,
				void *ctx);

/* The cursor as a token (NUL-terminated). -ENOSPC if len is too small.
 * After read_count(n) it names the position after the n-th event, which
 * is where seed 004's "read n+1 events" would put the (n+1)-th. */
#define CARET_READER_TOKEN_LEN 64
int caret_reader_tell(const struct caret_reader *r, char *buf, size_t len);
/* Whether an event the filter accepts lies after the cursor; its
 * timestamp in *ts (may be NULL). */
bool caret_reader_next_ts(const struct caret_reader *r, int64_t *ts);
bool caret_reader_more(const struct caret_reader *r);

struct caret_reader_stats {
	size_t segments;          /* attached now */
	size_t corrupt_segments;  /* of those, flagged corrupt */
	uint64_t records;         /* published in the index */
	uint64_t held;            /* decoded, inside the reorder window */
	uint64_t late;            /* published behind the cursor */
	uint64_t vanished;        /* segments dropped since open */
};
void caret_reader_stats(const struct caret_reader *r, struct caret_reader_stats *st);

/* Walks the attached segments (pid order): identity and state, for views
 * that list processes. */
struct caret_reader_seg_info {
	pid_t pid;
	uint64_t start_time;
	const char *procname;
	uint32_t records;
	bool corrupt;
};
size_t caret_reader_segments(const struct caret_reader *r, struct caret_reader_seg_info *out,
			     size_t max);

#endif
