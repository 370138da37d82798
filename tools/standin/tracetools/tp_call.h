/* SPDX-License-Identifier: Apache-2.0 */
/*
 * LTTng-UST provider `ros2` with the event layouts of ros2_tracing
 * (tracetools/include/tracetools/tp_call.h, jazzy; with STANDIN_HUMBLE the
 * humble branch's event set), plus the three CARET-fork events. Field names and order are part
 * of the trace format consumed by the analyzer, so they must match upstream
 * exactly; only tracetools.c includes this file.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER ros2

#undef LTTNG_UST_TRACEPOINT_INCLUDE
/* Resolved through -I. : lttng re-includes us from its own directory. */
#define LTTNG_UST_TRACEPOINT_INCLUDE "tools/standin/tracetools/tp_call.h"

#if !defined(STANDIN_TP_CALL_H) || \
	defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define STANDIN_TP_CALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <lttng/tracepoint.h>

/* Same value upstream uses (rmw/types.h RMW_GID_STORAGE_SIZE). */
#define STANDIN_GID_STORAGE_SIZE 24
#ifdef STANDIN_HUMBLE
#define STANDIN_TRACETOOLS_VERSION "4.1.1"
#else
#define STANDIN_TRACETOOLS_VERSION "8.2.0"
#endif

#define STANDIN_PTR(name) lttng_ust_field_integer_hex(const void *, name, name)

/* One-pointer events are common enough to deserve a shorthand. */
#define STANDIN_TP_PTR1(ev, a)                                              \
	LTTNG_UST_TRACEPOINT_EVENT(ros2, ev,                                \
		LTTNG_UST_TP_ARGS(const void *, a),                         \
		LTTNG_UST_TP_FIELDS(STANDIN_PTR(a)))
#define STANDIN_TP_PTR2(ev, a, b)                                           \
	LTTNG_UST_TRACEPOINT_EVENT(ros2, ev,                                \
		LTTNG_UST_TP_ARGS(const void *, a, const void *, b),        \
		LTTNG_UST_TP_FIELDS(STANDIN_PTR(a) STANDIN_PTR(b)))

LTTNG_UST_TRACEPOINT_EVENT(ros2, rcl_init,
	LTTNG_UST_TP_ARGS(const void *, context_handle),
	LTTNG_UST_TP_FIELDS(
		STANDIN_PTR(context_handle)
		lttng_ust_field_string(version, STANDIN_TRACETOOLS_VERSION)))

LTTNG_UST_TRACEPOINT_EVENT(ros2, rcl_node_init,
	LTTNG_UST_TP_ARGS(const void *, node_handle, const void *, rmw_handle,
		const char *, node_name, const char *, node_namespace),
	LTTNG_UST_TP_FIELDS(
		STANDIN_PTR(node_handle)
		STANDIN_PTR(rmw_handle)
		lttng_ust_field_string(node_name, node_name)
		lttng_ust_field_string(namespace, node_namespace)))

LTTNG_UST_TRACEPOINT_EVENT(ros2, rmw_publisher_init,
	LTTNG_UST_TP_ARGS(const void *, rmw_publisher_handle,
		const uint8_t *, gid),
	LTTNG_UST_TP_FIELDS(
		STANDIN_PTR(rmw_publisher_handle)
		lttng_ust_field_array(uint8_t, gid, gid,
			STANDIN_GID_STORAGE_SIZE)))

LTTNG_UST_TRACEPOINT_EVENT(ros2, rcl_publisher_init,
	LTTNG_UST_TP_ARGS(const void *, publisher_handle,
		const void *, node_handle, const void *, rmw_publisher_handle,
		const char *, topic_name, const size_t, queue_depth),
	LTTNG_UST_TP_FIELDS(
		STANDIN_PTR(publisher_handle)
		STANDIN_PTR(node_handle)
		STANDIN_PTR(rmw_publisher_handle)
		lttng_ust_field_string(topic_name, topic_name)
		lttng_ust_field_integer(const size_t, queue_depth, queue_depth)))

/* One field on both distributions: the function keeps publisher_handle
 * "for API/ABI stability" but the event does not record it. */
LTTNG_UST_TRACEPOINT_EVENT(ros2, rclcpp_publish,
	LTTNG_UST_TP_ARGS(const void *, publisher_handle, const void *, message),
	LTTNG_UST_TP_FIELDS(STANDIN_PTR(message)))
#ifndef STANDIN_HUMBLE
STANDIN_TP_PTR2(rclcpp_intra_publish, publisher_handle, message)
#endif
STANDIN_TP_PTR2(rcl_publish, publisher_handle, message)

#ifdef STANDIN_HUMBLE
STANDIN_TP_PTR1(rmw_publish, message)
#else
LTTNG_UST_TRACEPOINT_EVENT(ros2, rmw_publish,
	LTTNG_UST_TP_ARGS(const void *, rmw_publisher_handle,
		const void *, message, int64_t, timestamp),
	LTTNG_UST_TP_FIELDS(
		STANDIN_PTR(rmw_publisher_handle)
		STANDIN_PTR(message)
		lttng_ust_field_integer(int64_t, timestamp, timestamp)))
#endif

LTTNG_UST_TRACEPOINT_EVENT(ros2, rmw_subscription_init,
	LTTNG_UST_TP_ARGS(const void *, rmw_subscription_handle,
		const uint8_t *, gid),
	LTTNG_UST_TP_FIELDS(
		STANDIN_PTR(rmw_subscription_handle)
		lttng_ust_field_array(uint8_t, gid, gid,
			STANDIN_GID_STORAGE_SIZE)))

LTTNG_UST_TRACEPOINT_EVENT(ros2, rcl_subscription_init,
	LTTNG_UST_TP_ARGS(const void *, subscription_handle,
		const void *, node_handle,
		const void *, rmw_subscription_handle,
		const char *, topic_name, const size_t, queue_depth),
	LTTNG_UST_TP_FIELDS(
		STANDIN_PTR(subscription_handle)
		STANDIN_PTR(node_handle)
		STANDIN_PTR(rmw_subscription_handle)
		lttng_ust_field_string(topic_name, topic_name)
		lttng_ust_field_integer(const size_t, queue_depth, queue_depth)))

STANDIN_TP_PTR2(rclcpp_subscription_init, subscription_handle, subscription)
STANDIN_TP_PTR2(rclcpp_subscription_callback_added, subscription, callback)

LTTNG_UST_TRACEPOINT_EVENT(ros2, rmw_take,
	LTTNG_UST_TP_ARGS(const void *, rmw_subscription_handle,
		const void *, message, int64_t, source_timestamp,
		const bool, taken),
	LTTNG_UST_TP_FIELDS(
		STANDIN_PTR(rmw_subscription_handle)
		STANDIN_PTR(message)
		lttng_ust_field_integer(int64_t, source_timestamp,
			source_timestamp)
		lttng_ust_field_integer(int, taken, (taken ? 1 : 0))))

STANDIN_TP_PTR1(rcl_take, message)
STANDIN_TP_PTR1(rclcpp_take, message)

LTTNG_UST_TRACEPOINT_EVENT(ros2, rcl_service_init,
	LTTNG_UST_TP_ARGS(const void *, service_handle,
		const void *, node_handle, const void *, rmw_service_handle,
		const char *, service_name),
	LTTNG_UST_TP_FIELDS(
		STANDIN_PTR(service_handle)
		STANDIN_PTR(node_handle)
		STANDIN_PTR(rmw_service_handle)
		lttng_ust_field_string(service_name, service_name)))

STANDIN_TP_PTR2(rclcpp_service_callback_added, service_handle, callback)

LTTNG_UST_TRACEPOINT_EVENT(ros2, rcl_client_init,
	LTTNG_UST_TP_ARGS(const void *, client_handle,
		const void *, node_handle, const void *, rmw_client_handle,
		const char *, service_name),
	LTTNG_UST_TP_FIELDS(
		STANDIN_PTR(client_handle)
		STANDIN_PTR(node_handle)
		STANDIN_PTR(rmw_client_handle)
		lttng_ust_field_string(service_name, service_name)))

LTTNG_UST_TRACEPOINT_EVENT(ros2, rcl_timer_init,
	LTTNG_UST_TP_ARGS(const void *, timer_handle, int64_t, period),
	LTTNG_UST_TP_FIELDS(
		STANDIN_PTR(timer_handle)
		lttng_ust_field_integer(int64_t, period, period)))

STANDIN_TP_PTR2(rclcpp_timer_callback_added, timer_handle, callback)
STANDIN_TP_PTR2(rclcpp_timer_link_node, timer_handle, node_handle)

LTTNG_UST_TRACEPOINT_EVENT(ros2, rclcpp_callback_register,
	LTTNG_UST_TP_ARGS(const void *, callback, const char *, function_symbol),
	LTTNG_UST_TP_FIELDS(
		STANDIN_PTR(callback)
		lttng_ust_field_string(symbol, function_symbol)))

LTTNG_UST_TRACEPOINT_EVENT(ros2, callback_start,
	LTTNG_UST_TP_ARGS(const void *, callback, const bool, is_intra_process),
	LTTNG_UST_TP_FIELDS(
		STANDIN_PTR(callback)
		lttng_ust_field_integer(int, is_intra_process,
			(is_intra_process ? 1 : 0))))

STANDIN_TP_PTR1(callback_end, callback)
STANDIN_TP_PTR2(rcl_lifecycle_state_machine_init, node_handle, state_machine)

LTTNG_UST_TRACEPOINT_EVENT(ros2, rcl_lifecycle_transition,
	LTTNG_UST_TP_ARGS(const void *, state_machine,
		const char *, start_label, const char *, goal_label),
	LTTNG_UST_TP_FIELDS(
		STANDIN_PTR(state_machine)
		lttng_ust_field_string(start_label, start_label)
		lttng_ust_field_string(goal_label, goal_label)))

LTTNG_UST_TRACEPOINT_EVENT(ros2, rclcpp_executor_get_next_ready,
	LTTNG_UST_TP_ARGS(),
	LTTNG_UST_TP_FIELDS())

LTTNG_UST_TRACEPOINT_EVENT(ros2, rclcpp_executor_wait_for_work,
	LTTNG_UST_TP_ARGS(const int64_t, timeout),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(int64_t, timeout, timeout)))

STANDIN_TP_PTR1(rclcpp_executor_execute, handle)
#ifndef STANDIN_HUMBLE
STANDIN_TP_PTR2(rclcpp_ipb_to_subscription, ipb, subscription)
STANDIN_TP_PTR2(rclcpp_buffer_to_ipb, buffer, ipb)

LTTNG_UST_TRACEPOINT_EVENT(ros2, rclcpp_construct_ring_buffer,
	LTTNG_UST_TP_ARGS(const void *, buffer, const uint64_t, capacity),
	LTTNG_UST_TP_FIELDS(
		STANDIN_PTR(buffer)
		lttng_ust_field_integer(uint64_t, capacity, capacity)))

LTTNG_UST_TRACEPOINT_EVENT(ros2, rclcpp_ring_buffer_enqueue,
	LTTNG_UST_TP_ARGS(const void *, buffer, const uint64_t, index,
		const uint64_t, size, const bool, overwritten),
	LTTNG_UST_TP_FIELDS(
		STANDIN_PTR(buffer)
		lttng_ust_field_integer(uint64_t, index, index)
		lttng_ust_field_integer(uint64_t, size, size)
		lttng_ust_field_integer(int, overwritten, (overwritten ? 1 : 0))))

LTTNG_UST_TRACEPOINT_EVENT(ros2, rclcpp_ring_buffer_dequeue,
	LTTNG_UST_TP_ARGS(const void *, buffer, const uint64_t, index,
		const uint64_t, size),
	LTTNG_UST_TP_FIELDS(
		STANDIN_PTR(buffer)
		lttng_ust_field_integer(uint64_t, index, index)
		lttng_ust_field_integer(uint64_t, size, size)))

STANDIN_TP_PTR1(rclcpp_ring_buffer_clear, buffer)
#endif

/* No CARET-fork events (message_construct, dispatch_*): upstream
 * ros2_tracing (humble, jazzy) declares none and upstream rclcpp calls none;
 * only CARET's forks of both do. */

#endif /* STANDIN_TP_CALL_H */

#include <lttng/tracepoint-event.h>
