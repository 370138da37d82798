/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The verdicts on a rotating recording's chunks (daemon/recording/rotation.h): each
 * is complete when every live agent finished the chunk's replay pass,
 * incomplete when not, or may hold init records twice when more than one
 * pass went into it. Reads the agents (daemon/agents/registry.h) and gives the
 * view a new serial per chunk; the listing of the archives and the disk
 * bound (daemon/recording/chunks.h).
 */
#ifndef CARETD_ROTATION_VERDICT_H
#define CARETD_ROTATION_VERDICT_H

#include "daemon/recording/rotation_state.h"

bool rotation_pass_complete(const struct rotation *t);
bool rotation_is_incomplete(const struct rotation *t, uint64_t index);
bool rotation_has_dups(const struct rotation *t, uint64_t index);
/* Whether the tracer discarded events in the archived chunk index
 * (*count: how many, UINT64_MAX when they could not be counted). */
bool rotation_has_discards(const struct rotation *t, uint64_t index, uint64_t *count);
/* Names the chunk index (logged, and kept for status). */
void rotation_mark_dups(struct rotation *t, uint64_t index, const char *why);
void rotation_mark_incomplete(struct rotation *t, uint64_t index, const char *why);
/* The agents' pass epochs now: the next chunk counts its passes from here. */
void rotation_baseline(struct rotation *t);
/* The verdict on the chunk being written, which just closed. */
void rotation_close_chunk(struct rotation *t, const char *why_not);
/* A new chunk is being written: a new serial for the session. */
void rotation_new_pass(struct rotation *t);
/* Lists its archives and applies the bound (keep, max_size), then counts
 * the discarded events of each archived chunk not counted yet: a chunk
 * with some is not complete, whatever its pass reached. caretd waits for
 * it (a stop, an adoption): at most ROT_SCAN_WAIT_MS of the helper's
 * work, what is left goes at the next scan. After a rotation the scan
 * runs off caretd's loop instead (daemon/recording/rotation_prune.h). */
#define ROT_SCAN_WAIT_MS 100
void rotation_scan(struct rotation *t);
/* What a scan found (got: the helper's listing, r and err its result):
 * kept as t's listing, logged, and its chunks' discarded events counted. */
void rotation_scan_apply(struct rotation *t, const struct chunk_list *got, int r, const char *err);

#endif
