/* SPDX-License-Identifier: Apache-2.0 */
/* The process's ros_trace_callback_start as the benchmark finds it: the
 * first definition (the agent's when preloaded) and libtracetools.so's own,
 * and the agent's segment attached (see micro_rt.c). */
#ifndef CARET_BENCH_MICRO_RT_H
#define CARET_BENCH_MICRO_RT_H

#include <stdbool.h>
#include <stdint.h>

#include "bench/micro/micro.h"
#include "shm/caret_shm.h"

struct rt {
	cb_fn hook;      /* first definition: the agent when preloaded */
	cb_fn real;      /* libtracetools.so's own */
	en_fn real_enabled;
	bool agent;
	char hook_lib[256], real_lib[256];
	struct caret_seg seg;
	bool seg_ok;
};

/* -1 when libtracetools.so or its function is missing; 0 otherwise (a
 * segment that cannot be attached leaves seg_ok false). */
int rt_setup(struct rt *r);
/* The agent's state word, 0 without a segment. */
uint32_t rt_state(const struct rt *r);
/* The {"info": ...} line on stdout. */
void rt_info(const struct rt *r, uint32_t start_state);
void rt_close(struct rt *r);

#endif
