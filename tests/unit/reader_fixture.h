/* SPDX-License-Identifier: Apache-2.0 */
/* What the merged reader's tests share (reader_fixture.c): real segments
 * in /dev/shm under this process's own prefix, given the identity of an
 * agent; the events a reader hands over, collected; a set of three. */
#ifndef CARET_TESTS_READER_FIXTURE_H
#define CARET_TESTS_READER_FIXTURE_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "shm/caret_shm.h"
#include "shm/reader.h"

/* Each test's own prefix of segment names (setup, a checked fixture). */
extern char prefix[32];
void setup(void);
/* A segment that looks like agent `pid` (start time `start`) made it. */
struct caret_seg mk(pid_t pid, uint64_t start);
/* One record at ts, its argument handle. */
void put(struct caret_seg *s, int64_t ts, uint64_t handle);
void drop(struct caret_seg *s);

struct ev {
	int64_t ts;
	pid_t pid;
	uint64_t start;
	uint32_t idx;
	uint64_t handle;
};

struct evs {
	struct ev *v;
	size_t n, cap;
};

/* The reader's callback: e appended to ctx, a struct evs. */
int collect(const struct caret_reader_event *e, void *ctx);
/* The reader's order: timestamp, pid, start time, index. */
int ev_cmp(const struct ev *a, const struct ev *b);
void assert_sorted(const struct evs *l);
struct caret_reader *open_reader(int64_t window);
/* Everything from the beginning. */
struct evs read_all(struct caret_reader *r);

/* Three processes (two sharing a pid with different start times), equal
 * timestamps within and across segments, appends out of order. */
extern struct caret_seg set3[3];
extern size_t set3_total;
void make_set3(void);
void drop_set3(void);

#endif
