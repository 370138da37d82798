/* SPDX-License-Identifier: Apache-2.0 */
/* The agent's core (agent.c), for the hooks: initialisation and the
 * init-record capture path (not installed). */
#ifndef CARET_AGENT_H
#define CARET_AGENT_H

#include <stdbool.h>
#include <stdint.h>

#include "agent/state.h"

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

/* The segment's file descriptor, or -1 while there is none (tpwatch.c
 * signals caretd through it). */
int caret_agent_seg_fd(void);

/* caret_capture_<kind>(fields...): one typed capture function per kind of
 * CARET_KINDS, generated into build/gen. */
#include "caret_capture.h"

#endif
