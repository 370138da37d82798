/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The archived chunks of a rotating recording (<trace>/archives/B-E-N,
 * written by lttng-sessiond as the recording's owner) and the disk bound
 * on them: listed, measured and pruned with the owner's rights in a
 * helper process (daemon/creds.h), by file descriptor, never following a
 * link. The trace directory is the owner's: whatever they put there is
 * judged as they would be, never with root's rights.
 */
#ifndef CARETD_CHUNKS_H
#define CARETD_CHUNKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/creds.h"

/* Archived chunks looked at per scan; more are left alone (and counted). */
#define CHUNKS_MAX 256
#define CHUNKS_NAME_MAX 96

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
};

/* The chunk index of an archive name "YYYYmmddTHHMMSS+zzzz-YYYYmmddTHHMMSS+zzzz-N",
 * or -EINVAL for any other name. */
int chunks_parse_name(const char *name, uint64_t *index);

/*
 * Lists trace_dir/archives as `as` (trace_dir must still be the directory
 * dev:ino, (0, 0): any), then removes the oldest chunks while more than
 * keep remain (keep 0: no count bound) or while the kept ones take more
 * than max_size bytes (0: no size bound). 0 or -errno (err says why).
 */
int chunks_prune(const struct creds_id *as, const char *trace_dir, uint64_t dev, uint64_t ino,
		 uint32_t keep, uint64_t max_size, struct chunk_list *out, char *err,
		 size_t errlen);

#endif
