/* SPDX-License-Identifier: Apache-2.0 */
/* Two variants timed against each other, interleaved in chunks, and their
 * statistics per rep (see micro_alt.c). */
#ifndef CARET_BENCH_MICRO_ALT_H
#define CARET_BENCH_MICRO_ALT_H

#include <stdint.h>

#include "bench/micro/micro.h"

/* A variant: a timing loop and the function it calls (if any). */
struct variant {
	double (*run)(const struct variant *v, uint64_t n); /* ns per call */
	cb_fn f;
};

struct rep_result {
	double a, b;       /* median ns per call over the rep's chunks */
	double amean, bmean; /* ns per call over the whole rep */
	double amin, bmin; /* fastest chunk */
	double ratio;      /* median of the chunk pairs' a/b */
};

/* n calls of each variant in chunks of `chunk` (0: one); vb NULL: va only. */
struct rep_result alternate(const struct variant *va, const struct variant *vb,
			    uint64_t n, uint64_t chunk, uint64_t rep);
/* The rep's JSON line on stdout. */
void print_rep(uint64_t rep, const struct rep_result *r);

#endif
