/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The agent's process-wide state: set by agent.c's initialisation (and
 * its fork handler), read by every other file of the agent. It lives
 * apart from agent.c so that the files agent.c calls (filter.c,
 * replay.c) read it without calling back up into agent.c
 * (tests/unit/check_layers.py).
 */
#ifndef CARET_AGENT_STATE_H
#define CARET_AGENT_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "agent/tp/caret_tp_api.h"
#include "shm/caret_shm.h"

#define CARET_EXPORT __attribute__((visibility("default")))

/* Points at the state word in the segment once it exists, before that (or
 * when it cannot be created) at a process-local word. Runtime hooks read
 * it with one relaxed load. */
extern const uint32_t *caret_state_word;
/* Points at the segment's `watched` word once it exists, before that (or
 * without one, or in a forked child) at a process-local 0: `caretctl
 * top` watches this process while it is non-zero (agent/count.h). */
extern const uint32_t *caret_watched_word;
/* Set once the provider library is loaded (agent/provider.h: on first
 * need); NULL means "emit nothing". */
extern const struct caret_tp_api *caret_tp;
/* Arguments of ros_trace_rmw_publish: 1 (message) before Jazzy, 3
 * (publisher, message, ts) since, 0 when the distribution is not known. */
extern int caret_rmw_publish_args;
/* The detected family is Jazzy or later (distro.h). */
extern bool caret_jazzy_or_later;

/* Set by the rcl_publish hook: whether this thread's current publish is
 * recorded (CARET's trace_filter_is_rcl_publish_recorded); dds_write and
 * the DDS binds follow it (hooks_runtime.c). */
extern __thread bool caret_tls_publish_kept __attribute__((tls_model("initial-exec")));

static inline bool caret_recording(void)
{
	return __atomic_load_n(caret_state_word, __ATOMIC_RELAXED) ==
	       CARET_STATE_RECORD;
}

/* Non-zero (the window) while caretd watches this process. */
static inline uint32_t caret_watched(void)
{
	return __atomic_load_n(caret_watched_word, __ATOMIC_RELAXED);
}

/* The state word becomes the segment's `word` (owned by the agent). */
void caret_state_use(const uint32_t *word);
/* The state word becomes a process-local word holding `state`: before
 * the segment exists, without one, and in a forked child. */
void caret_state_use_local(uint32_t state);

/* One line on stderr, unless $CARET_AGENT_QUIET=1. */
void caret_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
