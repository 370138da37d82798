/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The runtime-recording state machine (DESIGN.md §4) applied to every
 * agent at every tick, and the replay pacing.
 */
#ifndef CARETD_SCHEDULER_H
#define CARETD_SCHEDULER_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/registry.h"
#include "proto/caret_ctl.h"

enum pacing {
	/* Host-wide byte budget shared by every replaying process. */
	PACING_ADAPTIVE,
	/* CARET's recording_frequency: records per second per process. */
	PACING_FREQUENCY,
};

/* The one spelling of a pacing mode, on the command line and the wire. */
static inline const char *pacing_name(enum pacing p)
{
	return p == PACING_ADAPTIVE ? CARET_CTL_PACING_ADAPTIVE : CARET_CTL_PACING_FREQUENCY;
}

/* 0, or -1 for an unknown name (*out untouched). */
static inline int pacing_parse(const char *s, enum pacing *out)
{
	if (__builtin_strcmp(s, CARET_CTL_PACING_ADAPTIVE) == 0)
		*out = PACING_ADAPTIVE;
	else if (__builtin_strcmp(s, CARET_CTL_PACING_FREQUENCY) == 0)
		*out = PACING_FREQUENCY;
	else
		return -1;
	return 0;
}

struct sched_cfg {
	enum pacing pacing;
	uint32_t frequency;      /* records/s/process (PACING_FREQUENCY) */
	uint64_t bandwidth;      /* bytes/s host-wide (PACING_ADAPTIVE) */
};

struct sched {
	struct sched_cfg cfg;
	int64_t last_tick_ns;
};

struct progress {
	int total, recording;
	uint64_t records_done, records_total;
	uint64_t dropped; /* init records the agents could not cache (full) */
};

/* One step: Start agents in WAIT when a session is active, End (back to
 * WAIT) when none is, raise grants of agents in PREPARE, and move them to
 * RECORD when their cache is replayed. */
void sched_tick(struct sched *s, struct registry *r, bool session_active, int64_t now_ns);
bool sched_busy(const struct registry *r);
void sched_progress(const struct registry *r, struct progress *p);
/* Records replayed in pass `epoch` (0 if the cursor is from another pass). */
uint32_t sched_done_in(const struct caret_seg_status *st, uint32_t epoch);
/* Why an agent is not in RECORD, for humans. */
void sched_reason(const struct agent *a, char *buf, size_t len);

#endif
