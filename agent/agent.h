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
extern const uint32_t *caret_state_word;
/* Set once the provider library is loaded; NULL means "emit nothing". */
extern const struct caret_tp_api *caret_tp;
/* Arguments of ros_trace_rmw_publish: 1 (message) before Jazzy, 3
 * (publisher, message, ts) since, 0 when the distribution is not known. */
extern int caret_rmw_publish_args;

static inline bool caret_recording(void)
{
	return __atomic_load_n(caret_state_word, __ATOMIC_RELAXED) ==
	       CARET_STATE_RECORD;
}

/* Set by the rcl_publish hook: whether this thread's current publish is
 * recorded (CARET's trace_filter_is_rcl_publish_recorded); dds_write and
 * the DDS binds follow it (hooks_runtime.c). */
extern __thread bool caret_tls_publish_kept __attribute__((tls_model("initial-exec")));
/* The detected family is Jazzy or later (distro.h). */
extern bool caret_jazzy_or_later;

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

/* resolve.c: a real function found once and cached by its caller. */
struct caret_fn {
	void *p;           /* atomic: the definition, NULL until found */
	uint64_t miss_gen; /* atomic: load generation + 1 of the last miss */
};

/* The definition of `sym` the hook stands in front of: the next one after
 * the agent (dlsym RTLD_NEXT) or, when that finds nothing, the first one
 * in any loaded object, local-scope libraries included. */
void *caret_real(struct caret_fn *fn, const char *sym);
/* The same starting from the first definition in the process (RTLD_DEFAULT):
 * functions the agent calls but does not interpose. */
void *caret_global(struct caret_fn *fn, const char *sym);
/* Every loaded object in load order, skipping the agent (uncached). */
void *caret_find_in_loaded(const char *sym);
/* Changes whenever an object is loaded or unloaded. */
uint64_t caret_load_generation(void);

void caret_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The segment's file descriptor, or -1 while there is none (tpwatch.c
 * signals caretd through it). */
int caret_agent_seg_fd(void);

/* replay.c */
int caret_replay_start(struct caret_seg *seg, const char *distribution);

/* caret_capture_<kind>(fields...): one typed capture function per kind of
 * CARET_KINDS, generated into build/gen. */
#include "caret_capture.h"

#endif
