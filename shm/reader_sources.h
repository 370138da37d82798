/* SPDX-License-Identifier: Apache-2.0 */
/* The merged reader's sources (shm/reader.h): a table of the segments it
 * has attached, one slot each, with each one's records copied into
 * private memory and decoded there once. A refresh scans /dev/shm into
 * the table and reads each source's new tail; the records that left the
 * reorder window come out as fresh index entries for the reader to merge. */
#ifndef CARET_SHM_READER_SOURCES_H
#define CARET_SHM_READER_SOURCES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "shm/caret_shm.h"
#include "shm/reader_token.h"

struct reader_rec {
	int64_t ts;
	uint64_t off;
	uint32_t kind;
};

struct reader_source {
	char name[CARET_SHM_NAME_MAX];
	struct caret_seg seg;
	pid_t pid;
	uint64_t start;
	ino_t ino; /* a name re-created by another process is another segment */
	char procname[16];
	uint8_t *buf; /* private copy of the record area, [0, consumed) decoded */
	uint64_t buf_cap, consumed;
	struct reader_rec *recs; /* every decoded record, by index */
	uint32_t nrec, rec_cap;
	uint32_t *held; /* indices inside the reorder window */
	uint32_t nheld, held_cap;
	bool corrupt, seen;
};

/* One entry of the reader's index: record idx of the source in slot src. */
struct reader_ent {
	int64_t ts;
	uint64_t off;
	uint32_t src;
	uint32_t idx;
	uint32_t kind; /* for filters, without decoding */
};

/* Entries whose records left the reorder window since the reader last
 * merged them in; the reader empties it. */
struct reader_fresh {
	struct reader_ent *e;
	size_t n, cap;
};

struct reader_sources {
	pid_t *pids; /* only these processes; NULL: all */
	size_t npids;
	struct reader_source **src; /* slots; NULL when free */
	uint32_t nsrc;
	uint64_t vanished; /* sources dropped since init */
};

/* pids NULL: every process. -ENOMEM. */
int reader_sources_init(struct reader_sources *t, const pid_t *pids, size_t npids);
void reader_sources_free(struct reader_sources *t);
/* The segments of /dev/shm matched against the table: new ones attached,
 * vanished ones dropped (their slots become NULL and `vanished` grows:
 * the reader's entries naming them are stale). -ENOMEM, or caret_seg_scan's
 * error; a segment that cannot be attached is skipped. */
int reader_sources_scan(struct reader_sources *t);
/* Copies and decodes a source's new committed records: those not newer
 * than `horizon` go to `fresh`, the others are held. 0 or -ENOMEM; a
 * corrupted segment is flagged, not an error. */
int reader_sources_read_tail(struct reader_sources *t, uint32_t slot, int64_t horizon,
			     struct reader_fresh *fresh);
/* Whether the event k names is still there, exactly: 0, -ESRCH (no such
 * process in the table), -EINVAL (no such event), -EBADMSG (its segment
 * is corrupted). */
int reader_sources_check(const struct reader_sources *t, const struct reader_key *k);

static inline struct reader_key reader_sources_key(const struct reader_sources *t,
						   const struct reader_ent *e)
{
	const struct reader_source *s = t->src[e->src];
	return (struct reader_key){ e->ts, s->pid, s->start, e->idx };
}

#endif
