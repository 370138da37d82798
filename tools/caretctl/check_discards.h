/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The discarded-events records babeltrace2 cannot count, judged per
 * stream as caretd judges a chunk's (daemon/lttng/lttng_drain.c, chunk_share).
 * LTTng's events_discarded in a packet's context is the stream's total
 * since the session began, and a rotated chunk opens each stream with a
 * packet that holds no time (begin == end) carrying the earlier chunks'
 * total. babeltrace2 counts the discards between a stream's packets
 * exactly (the difference of their counts) but, for a stream whose first
 * packet already has a non-zero total, reports a record of unknown count
 * before that packet: so every chunk after one with discards looked
 * incomplete. (babeltrace2 keeps events_discarded out of the packet
 * context it hands on: its records are all there is to read.) Such a
 * record before a stream's opening packet that holds no time is the
 * earlier chunks' and is not this trace's; before any other first packet
 * it stays unknown.
 */
#ifndef CARETCTL_CHECK_DISCARDS_H
#define CARETCTL_CHECK_DISCARDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "check_map.h"

struct check_dstream {
	bool begun, ended, have_begin;
	uint64_t begin;   /* the first packet's beginning (clock cycles) */
	uint64_t pending; /* uncounted records before the first packet ended */
};

struct check_discards {
	struct check_map idx; /* stream key -> index in s */
	struct check_dstream *s;
	size_t n, cap;
	uint64_t unknown; /* uncounted records that are this trace's */
	uint64_t opening; /* uncounted records of the earlier chunks, left out */
};

/* In each stream's order (keys: any u64 per stream). Each 0 or -ENOMEM.
 * A record of discarded events babeltrace2 could not count: */
int check_discards_uncounted(struct check_discards *d, uint64_t key);
/* A packet's beginning and end, with their clock value when known: */
int check_discards_begin(struct check_discards *d, uint64_t key, bool have, uint64_t ts);
int check_discards_end(struct check_discards *d, uint64_t key, bool have, uint64_t ts);
/* After the last message: the uncounted records that are this trace's
 * (those of a stream whose first packet never ended included). */
uint64_t check_discards_unknown(const struct check_discards *d);
void check_discards_free(struct check_discards *d);

#endif
