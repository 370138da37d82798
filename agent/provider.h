/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ros2_caret provider (libcaret-agent-tp*.so), loaded when this
 * process first needs it rather than at the agent's initialisation
 * (issue 34). At a session start lttng-sessiond sets up every enabled
 * event in every registered process, one process after the other, each
 * event a round trip with that process; the provider added its 34 events
 * to tracetools' 35 in every process, recorded or not. Loaded, it stays.
 *
 * Needed, hence loaded, at the agent's initialisation when a started
 * session has this process (its ring buffers mapped here, or a ros2 probe
 * attached: tpwatch.c), or when lttng-ust is not loaded yet (only the
 * provider would bring it in): the start state then comes from the
 * provider, as before. Otherwise at a live init record once a session
 * attached a ros2 probe here (caret_capture, caret_init_to_ros2: whether
 * ros2_caret wins), and at the first replay pass caretd opens (a late
 * recording). Registered while a session is active, the provider's events
 * are enabled in this process alone (lttng-ust syncs that session's
 * enablers with it), outside the session daemon's start.
 */
#ifndef CARET_AGENT_PROVIDER_H
#define CARET_AGENT_PROVIDER_H

#include <stdbool.h>

#include "agent/state.h"

/* The library to load: the detected distribution's rmw_publish arity
 * (caret_tp.h's two layouts of dds_write). Before any load. */
void caret_provider_choose(int rmw_publish_args);

/* Loads the provider and publishes it as caret_tp; once loaded (or once
 * it failed), returns at once. NULL when it cannot be loaded: the agent
 * then emits nothing (caret_warn says why). Not from lttng-ust's listener
 * thread (tpwatch.c): registering a probe takes lttng-ust's lock that
 * thread holds. */
const struct caret_tp_api *caret_provider_load(void);

/* A session has attached a probe of ros2 or ros2_caret in this process
 * (tpwatch.c, from lttng-ust's listener thread: only a flag). */
void caret_provider_note_attached(void);
bool caret_provider_attached(void);

/* A started LTTng session has its ring buffers mapped in this process
 * (lttng-consumerd's shm-ust-consumer-* shared memory, LTTng 2.13), whatever
 * events it enables: a session that records only ros2_caret events
 * attaches no probe before the provider is there, so the agent's start
 * asks this too. True when it cannot tell: lttng-ust (2.13) not loaded
 * yet, or /proc/self/maps unreadable. */
bool caret_provider_session_mapped(void);

/* The load was tried and failed (the segment's NO_TRACEPOINTS flag). */
bool caret_provider_failed(void);

#endif
