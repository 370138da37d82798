/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ros2_caret LTTng-UST provider (trace contract, DESIGN.md §3). Field
 * names and order follow CARET's caret_trace so caret_analyze loads the
 * trace unchanged; every init event ends with int64 init_timestamp.
 * The init events are generated from CARET_KINDS in proto/caret_seg_records.h;
 * tests/unit/check_tp_layout.c compares every event of this provider
 * (field names, types, order, as lttng-ust describes them to the session)
 * with CARET's definitions.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER ros2_caret

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "agent/tp/caret_tp.h"

#if !defined(CARET_AGENT_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define CARET_AGENT_TP_H

#include <stdint.h>
#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(ros2_caret, caret_init,
	LTTNG_UST_TP_ARGS(int64_t, clock_offset_arg, const char *, distribution_arg),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(int64_t, clock_offset, clock_offset_arg)
		lttng_ust_field_string(distribution, distribution_arg)))

/* Ours, not CARET's: each replay pass states in the trace how many init
 * records it walks (begin: those committed when it starts) and, when it
 * has walked them all, how many it emitted (end), on the replay thread,
 * so `caretctl check` can tell a pass the recording cut short, per
 * process, from the trace alone. caret_analyze reads only the event names
 * of Ros2Handler.get_trace_points() (lttng.py _to_dicts drops any other),
 * so it never sees them. */
LTTNG_UST_TRACEPOINT_EVENT(ros2_caret, caret_replay_begin,
	LTTNG_UST_TP_ARGS(uint64_t, pass_arg, uint64_t, records_arg),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, pass, pass_arg)
		lttng_ust_field_integer(uint64_t, records, records_arg)))

LTTNG_UST_TRACEPOINT_EVENT(ros2_caret, caret_replay_end,
	LTTNG_UST_TP_ARGS(uint64_t, pass_arg, uint64_t, records_arg),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(uint64_t, pass, pass_arg)
		lttng_ust_field_integer(uint64_t, records, records_arg)))

/* caret_trace tp.h: dds_write has the Jazzy layout (rmw_publish gained
 * the publisher handle and timestamp) when built for Jazzy
 * (ROS_DISTRO_JAZZY), the message only otherwise (Humble, Iron). This
 * file builds both providers: libcaret-agent-tp.so (Jazzy and later,
 * and an unknown distribution) and, with CARET_TP_PRE_JAZZY,
 * libcaret-agent-tp-humble.so (Humble and Iron); the agent loads the one
 * of the distribution it detected (agent.c). Same arguments in both, so
 * the C entry point is one. */
#ifdef CARET_TP_PRE_JAZZY
LTTNG_UST_TRACEPOINT_EVENT(ros2_caret, dds_write,
	LTTNG_UST_TP_ARGS(const void *, rmw_publisher_handle_arg,
			  const void *, message_arg, int64_t, timestamp_arg),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(const void *, message, message_arg)))
#else
LTTNG_UST_TRACEPOINT_EVENT(ros2_caret, dds_write,
	LTTNG_UST_TP_ARGS(const void *, rmw_publisher_handle_arg,
			  const void *, message_arg, int64_t, timestamp_arg),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(const void *, rmw_publisher_handle, rmw_publisher_handle_arg)
		lttng_ust_field_integer_hex(const void *, message, message_arg)
		lttng_ust_field_integer(int64_t, timestamp, timestamp_arg)))
#endif

LTTNG_UST_TRACEPOINT_EVENT(ros2_caret, dds_bind_addr_to_stamp,
	LTTNG_UST_TP_ARGS(const void *, addr_arg, uint64_t, source_stamp_arg),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(const void *, addr, addr_arg)
		lttng_ust_field_integer(uint64_t, source_stamp, source_stamp_arg)))

LTTNG_UST_TRACEPOINT_EVENT(ros2_caret, dds_bind_addr_to_addr,
	LTTNG_UST_TP_ARGS(const void *, addr_from_arg, const void *, addr_to_arg),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(const void *, addr_from, addr_from_arg)
		lttng_ust_field_integer_hex(const void *, addr_to, addr_to_arg)))

/* One event per init-record kind, generated from CARET_KINDS into
 * build/gen (no include guard: lttng-ust reads this header several times). */
#include "caret_tp_events.h"

#endif

#include <lttng/tracepoint-event.h>
