/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `caretctl top`'s counting (the counter area of proto/caret_segment.h):
 * entered by the runtime hooks only while caret_watched() (state.h) is
 * non-zero, so an unwatched process pays one relaxed load and a branch.
 */
#ifndef CARET_AGENT_COUNT_H
#define CARET_AGENT_COUNT_H

#include <stdint.h>

#include "shm/caret_shm.h"

/* The segment counted into, and its `watched` word for the hooks; NULL:
 * none (no segment, or a forked child until it makes its own). */
void caret_count_use(struct caret_seg *s);
/* callback_start: the call's start, on this thread, in the watch of
 * `watch` (the `watched` word the hook read). */
void caret_count_callback_start(const void *callback, uint32_t watch);
/* callback_end: the call that started on this thread counted, with its
 * duration. A call that started unwatched, or in another watch (the
 * session of `generation`, the `watched` word), is not counted. */
void caret_count_callback_end(const void *callback, uint32_t generation);
/* A message published (CARET_CTR_PUBLISHER). */
void caret_count_message(enum caret_ctr_kind kind, const void *handle, uint32_t generation);
/* rmw_take with taken true: the message counted, and its latency from
 * source_timestamp (rmw_take's; 0: none) to now on the writer's clock. */
void caret_count_take(const void *subscription, int64_t source_timestamp, uint32_t generation);

/* Whether DDS discovers this host's participants only, from the
 * environment rcl reads at init (values as getenv's, NULL: unset); jazzy:
 * the process's rcl is Jazzy's or later (ROS_AUTOMATIC_DISCOVERY_RANGE). */
struct caret_discovery_env {
	const char *localhost_only, *range, *static_peers, *cyclonedds_uri, *fastrtps_xml,
		*fastdds_xml;
	bool jazzy;
};
bool caret_count_host_only(const struct caret_discovery_env *e);
/* caret_count_host_only of this process's environment, into s's
 * agent_flags (CARET_AGENT_HOST_DISCOVERY). */
void caret_count_scope(struct caret_seg *s, bool jazzy);

#endif
