/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The interface between the agent core and its tracepoint provider.
 *
 * The provider lives in its own library (libcaret-agent-tp.so) that the
 * agent dlopens on the first tracetools call: linking lttng-ust into the
 * preloaded agent would start lttng-ust's listener threads in every process
 * of the system, /bin/true included.
 */
#ifndef CARET_AGENT_TP_API_H
#define CARET_AGENT_TP_API_H

#include <stdint.h>

#include "shm/caret_shm.h"

/* 2: replay_mark */
#define CARET_TP_API_VERSION 2u
#define CARET_TP_API_SYMBOL "caret_tp_api_v1"

struct caret_tp_api {
	uint32_t version;
	/* Non-zero when a session records ros2_caret events in this process. */
	int (*enabled)(void);
	void (*emit_record)(uint32_t kind, int64_t init_timestamp,
			    const union caret_arg *args);
	void (*caret_init)(int64_t clock_offset, const char *distribution);
	void (*dds_write)(const void *rmw_publisher_handle, const void *message,
			  int64_t timestamp);
	void (*dds_bind_addr_to_stamp)(const void *addr, uint64_t source_stamp);
	/* ros2_caret:caret_replay_begin (end 0) or caret_replay_end of pass
	 * `pass`, stating its record count (agent/tp/caret_tp.h). */
	void (*replay_mark)(int end, uint64_t pass, uint64_t records);
};

#endif
