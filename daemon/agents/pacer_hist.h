/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pacer's history of what the agents emitted (daemon/agents/pacer.h):
 * (time, estimated bytes emitted since the base) at each busy tick where
 * it changed, all CPUs' and each CPU's (struct pacer_cpus), so that a
 * packet's end time in the consumer's index tells which replayed bytes
 * were out of the buffers by then.
 */
#ifndef CARETD_PACER_HIST_H
#define CARETD_PACER_HIST_H

#include <stdint.h>

#include "daemon/agents/pacer_cpus.h"

/* oldest first from head */
struct pacer_hist {
	struct { int64_t t; uint64_t e; } s[PACER_HIST];
	unsigned head, n;
};

void pacer_hist_reset(struct pacer_hist *h);
/* Records emitted (all CPUs) and cpu->now[] (each CPU) at now. */
void pacer_hist_sample(struct pacer_hist *h, const struct pacer_cpus *cpu, uint64_t emitted,
		       int64_t now);
/* Emitted bytes (since the base; on CPU c, or all: -1) by time t, from the
 * samples around it; 0 before the first. */
uint64_t pacer_hist_at(const struct pacer_hist *h, const struct pacer_cpus *cpu, int c, int64_t t);
/* Emitted bytes by time t for certain: the last sample at or before t. */
uint64_t pacer_hist_before(const struct pacer_hist *h, int64_t t);

#endif
