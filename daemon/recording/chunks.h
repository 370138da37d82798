/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The archived chunks of a rotating recording (<trace>/archives/B-E-N,
 * written by lttng-sessiond as the recording's owner) and the disk bound
 * on them: listed, measured and pruned with the owner's rights in a
 * helper process (lib/lttng/creds.h), by file descriptor, never following a
 * link. The trace directory is the owner's: whatever they put there is
 * judged as they would be, never with root's rights.
 */
#ifndef CARETD_CHUNKS_H
#define CARETD_CHUNKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/lttng/creds.h"

/* Archived chunks looked at per scan; more are left alone (and counted). */
#define CHUNKS_MAX 256
#define CHUNKS_NAME_MAX 96
/* Entries removed per prune, all chunks together (caretd(8): per
 * rotation); what is left goes at the next one. */
#define CHUNKS_REMOVE_MAX 100000
/* Why a prune stopped before its bound held (chunk_list.cut). */
#define CHUNKS_CUT_BUDGET 1   /* CHUNKS_REMOVE_MAX entries removed */
#define CHUNKS_CUT_DEADLINE 2 /* its deadline passed */

struct chunk_info {
	char name[CHUNKS_NAME_MAX]; /* archives/<name> */
	uint64_t index;             /* LTTng's chunk id, the name's last field */
	uint64_t bytes;             /* sum of its regular files */
};

struct chunk_list {
	int n;                          /* kept, oldest first */
	struct chunk_info c[CHUNKS_MAX];
	uint64_t bytes;                 /* of the kept ones */
	int removed;                    /* by this call */
	uint64_t removed_index[CHUNKS_MAX]; /* their indexes */
	int skipped;                    /* entries that are not chunks, or beyond CHUNKS_MAX */
	uint64_t removed_entries;       /* files and directories removed by this call */
	int cut;                        /* 0, or CHUNKS_CUT_*: the rest at the next prune */
};

/* The chunk index of an archive name "YYYYmmddTHHMMSS+zzzz-YYYYmmddTHHMMSS+zzzz-N",
 * or -EINVAL for any other name. */
int chunks_parse_name(const char *name, uint64_t *index);

/*
 * Lists trace_dir/archives as `as` (trace_dir must still be the directory
 * dev:ino, (0, 0): any), then removes the oldest chunks while more than
 * keep remain (keep 0: no count bound) or while the kept ones take more
 * than max_size bytes (0: no size bound), at most CHUNKS_REMOVE_MAX
 * entries in all and, deadline_ms > 0, for at most that long (out->cut
 * says which stopped it; a listing cut by the deadline removes nothing).
 * 0 or -errno (err says why). caretd waits for it: only where a short
 * deadline bounds the wait.
 */
int chunks_prune(const struct creds_id *as, const char *trace_dir, uint64_t dev, uint64_t ino,
		 uint32_t keep, uint64_t max_size, int64_t deadline_ms, struct chunk_list *out,
		 char *err, size_t errlen);

/* The same in a helper caretd does not wait for (below everyone's CPU
 * priority): chunks_prune_finish() once job->fd is readable, or
 * creds_job_cancel() past the deadline. out is the helper's to fill. */
int chunks_prune_start(const struct creds_id *as, const char *trace_dir, uint64_t dev,
		       uint64_t ino, uint32_t keep, uint64_t max_size, int64_t deadline_ms,
		       struct chunk_list *out, struct creds_job *job);
int chunks_prune_finish(struct creds_job *job, struct chunk_list *out, char *err,
			size_t errlen);

#endif
