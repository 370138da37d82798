/* SPDX-License-Identifier: Apache-2.0 */
/* CARET's trace filters (CARET_SELECT_NODES ...): see filter.c. */
#ifndef CARET_AGENT_FILTER_H
#define CARET_AGENT_FILTER_H

#include <stdbool.h>
#include <stdint.h>

#include "shm/caret_shm.h"

struct caret_filter_env {
	const char *select_nodes, *ignore_nodes, *select_topics, *ignore_topics;
	/* Iron and later drop publishes of a publisher whose node or topic is
	 * unknown (caret_trace's "omit /rosout" rule). */
	bool iron_or_later;
};

/* Whether `name` (the process's short name) is in the ':'-separated regex
 * list `ignore_processes`. */
bool caret_filter_process_ignored(const char *ignore_processes, const char *name);

/* Parses the lists; call once before any other function (again only in
 * tests, which also reset every relation). Returns false when no filter is
 * set (then only the Iron+ publisher rule applies). */
bool caret_filter_configure(const struct caret_filter_env *env);

/* The filter of the pass that starts (a Start's lists, NULL for none):
 * it holds while *word (the segment's filter word) reads `epoch`. A pass
 * begun while the process is in RECORD (a new session's extra pass) only
 * filters the records the calling thread replays; one begun from WAIT
 * (PREPARE) also filters live init records and runtime events.
 * Called by the replay thread only; returns whether a filter is on. */
bool caret_filter_pass_set(const struct caret_filter_lists *f, const uint32_t *word,
			   uint32_t epoch);

/* An init record was seen: learn the relations it carries. */
void caret_filter_note(uint32_t kind, const union caret_arg *args);
/* An executor is given callback group `group` with the node interface at
 * `node_key` (an opaque address): a group none of whose members names its
 * node takes the node of the interface's other groups (caret_trace asks
 * is_allowed_node of the node it is given there). */
void caret_filter_note_group_node(const void *group, const void *node_key);
/* Whether an init record is emitted (live, and in replay when called on
 * the replay thread). */
bool caret_filter_record_allowed(uint32_t kind, const union caret_arg *args);

/* Runtime checks: lock-free reads of verdicts computed at init time. */
bool caret_filter_callback_allowed(const void *callback);
bool caret_filter_rmw_subscription_allowed(const void *rmw_subscription_handle);
bool caret_filter_publisher_allowed(const void *publisher_handle);
bool caret_filter_state_machine_allowed(const void *state_machine);
bool caret_filter_buffer_allowed(const void *buffer);

#endif
