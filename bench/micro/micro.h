/* SPDX-License-Identifier: Apache-2.0 */
/* caret-microbench's modes and what they share (microbench.c says what
 * each measures): the options, the clock (util's caret_now_ns), the
 * hooks' function types. */
#ifndef CARET_BENCH_MICRO_H
#define CARET_BENCH_MICRO_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "util/caret_util.h"

typedef void (*cb_fn)(const void *, bool);
typedef bool (*en_fn)(void);

struct opts {
	uint64_t iters, reps, count;
	uint64_t only; /* p1: 0 both variants, 1 only A, 2 only B (diagnosis) */
	uint64_t chunk; /* p1, p2: calls per variant before switching */
	unsigned drain_ms, wait_ms;
};

static inline void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* The runtime hooks' modes (micro_hooks.c) and the capture's
 * (micro_capture.c): 0, or the exit status of a failed run. */
int mode_p1(const struct opts *o);
int mode_pw(const struct opts *o);
int mode_p2(const struct opts *o);
int mode_p2count(const struct opts *o);
int mode_p3(const struct opts *o);
int mode_p3count(const struct opts *o);

#endif
