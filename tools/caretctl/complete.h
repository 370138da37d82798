/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One model of a recording's completeness for `caretctl stop` (and the
 * stop that ends `record`) and `caretctl check`, so that they never
 * disagree: what makes a trace incomplete (events discarded, packets lost,
 * init records dropped by full caches or missing from the trace, runtime
 * events without their process's init data), what does not (copies of
 * replayed init records, which the analyzer drops), and the words for
 * each. What stop says of the trace comes from the trace itself, read by
 * the same code as `check` (check_model.c): caretd's own count of copies
 * comes from the positions the agents replayed (daemon/agents/dups.h), an upper
 * bound when a replay carried a filter.
 */
#ifndef CARETCTL_COMPLETE_H
#define CARETCTL_COMPLETE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "check.h"

/*
 * The sentence about n copies of replayed init records: they never make a
 * trace incomplete. malloc'd, NULL on ENOMEM.
 */
char *complete_dup_sentence(uint64_t n);

/* "pid N (name): <copies sentence> (kind=n ...)", whole; NULL on ENOMEM. */
char *complete_dup_line(const struct check_proc *p);

/* "pid N (name): init records missing ...: <n> <found> without <lacks>;
 * ...", every link named, whole; NULL on ENOMEM. A problem. */
char *complete_missing_line(const struct check_proc *p);

/*
 * For stop's report, given caretd's estimate `counted` of the copies:
 * reads the trace as `check` does when caretd counted copies or when it is
 * small (64 MiB), for at most 30 s. Text (json NULL): prints the copies
 * sentence on out, and each process's missing init records through warn
 * (cli_warn), in check's words. JSON (json set): json->read, the trace's
 * count of copies (stop's "duplicates" for --json) and each process's
 * missing init records ("missing_init"), for the caller to add to the
 * result; free with complete_json_free.
 * A large trace caretd counted no copies in is not read.
 */
struct complete_json {
	bool read; /* the trace was read: the rest is what it holds */
	uint64_t duplicates;
	char **missing; /* n_missing lines, malloc'd */
	size_t n_missing;
};
void complete_json_free(struct complete_json *j);
void complete_stop_report(FILE *out, struct complete_json *json, const char *path, uint64_t counted,
			  void (*warn)(const char *fmt, ...));

#endif
