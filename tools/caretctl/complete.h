/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One model of a recording's completeness for `caretctl stop` (and the
 * stop that ends `record`) and `caretctl check`, so that they never
 * disagree: what makes a trace incomplete (events discarded, packets lost,
 * init records dropped by full caches or missing from the trace, runtime
 * events without their process's init data), what does not (copies of
 * replayed init records, which the analyzer drops), and the words for
 * each. The counts of copies come from the trace itself, read by the same
 * code as `check` (check_model.c): caretd's own count is an estimate
 * (records replayed while another session recorded, filtered or not).
 */
#ifndef CARETCTL_COMPLETE_H
#define CARETCTL_COMPLETE_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "check.h"

/*
 * The sentence about n copies of replayed init records, after a subject
 * such as "pid 12 (talker): " or nothing: they never make a trace
 * incomplete. Returns a malloc'd string, NULL on ENOMEM.
 */
char *complete_dup_sentence(uint64_t n);

/* How many copies the trace at path holds, read as `check` reads it
 * within timeout_ms: 0 with *n set, or -errno (err says why). */
int complete_trace_dups(const char *path, int64_t timeout_ms, uint64_t *n, char *err,
			size_t errlen);

/*
 * For stop's report, given caretd's estimate `counted`: counts the copies
 * in the trace (the number `check` gives) and prints the sentence (text)
 * or puts the count in root's "duplicates" (JSON, root not NULL). The
 * trace is read when caretd counted copies, or when it is small (64 MiB:
 * caretd misses the copies of a pass another session's start cut short);
 * a large trace caretd counted none in is not read, and says nothing.
 */
void complete_stop_duplicates(FILE *out, cJSON *root, const char *path, uint64_t counted);

#endif
