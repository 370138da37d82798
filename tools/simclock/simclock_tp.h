/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ros2_caret:sim_time, exactly as CARET's caret_trace declares it
 * (include/caret_trace/tp.h: one field, ctf_integer(const uint64_t,
 * stamp, stamp_arg)), which caret_analyze reads as the "stamp" field of
 * 'ros2_caret:sim_time' (infra/lttng/ros2_tracing/processor.py,
 * _handle_sim_time). Only this event: caret-simclock is not a ROS process
 * and declares nothing else of the provider (the agent's provider,
 * agent/tp/caret_tp.h, has no sim_time: the agent never emits it).
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER ros2_caret

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "tools/simclock/simclock_tp.h"

#if !defined(CARET_SIMCLOCK_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define CARET_SIMCLOCK_TP_H

#include <stdint.h>
#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(ros2_caret, sim_time,
	LTTNG_UST_TP_ARGS(uint64_t, stamp_arg),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, stamp, stamp_arg)))

#endif

#include <lttng/tracepoint-event.h>
