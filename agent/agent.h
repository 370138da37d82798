/* SPDX-License-Identifier: Apache-2.0 */
/* Internal interface shared by the agent's files (not installed). */
#ifndef CARET_AGENT_H
#define CARET_AGENT_H

#include <stdbool.h>
#include <stdint.h>

#include "agent/tp/caret_tp_api.h"
#include "shm/caret_shm.h"

#define CARET_EXPORT __attribute__((visibility("default")))

/* Points at the state word in the segment once it exists, before that (or
 * when it cannot be created) at a process-local word. Runtime hooks read
 * it with one relaxed load. */
extern uint32_t *caret_state_word;
/* Set once the provider library is loaded; NULL means "emit nothing". */
extern const struct caret_tp_api *caret_tp;
/* rmw_publish takes (message) before Jazzy, (publisher, message, ts) since. */
extern bool caret_rmw_publish_1arg;

static inline bool caret_recording(void)
{
	return __atomic_load_n(caret_state_word, __ATOMIC_RELAXED) ==
	       CARET_STATE_RECORD;
}

/* Creates the segment, loads the provider, starts the replay thread: once
 * per process (again in a forked child). Returns false when the agent is
 * disabled by $CARET_AGENT_DISABLE. */
bool caret_agent_init(void);

/* Stores an init record and emits it synchronously. Returns false when the
 * agent is disabled (the caller then forwards to the real tracetools). */
bool caret_capture(uint32_t kind, const union caret_arg *args);

/* Whether a live init event (and rmw_publish) also goes to the real
 * tracetools (ros2:): as caretd decided from the sessions' event rules,
 * or, before it did, when ros2 init events are enabled here and
 * ros2_caret ones are not. */
bool caret_init_to_ros2(void);

/* The next definition of `sym` after the agent (dlsym RTLD_NEXT), cached by
 * the caller in *slot. */
void *caret_real(void **slot, const char *sym);
/* The same for the first definition in the process (dlsym RTLD_DEFAULT):
 * functions the agent calls but does not interpose. */
void *caret_global(void **slot, const char *sym);

void caret_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* replay.c */
int caret_replay_start(struct caret_seg *seg, const char *distribution);

#endif
