/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ros2_caret LTTng-UST provider (trace contract, DESIGN.md §3). Field
 * names and order follow CARET's caret_trace so caret_analyze loads the
 * trace unchanged; every init event ends with int64 init_timestamp.
 * Keep in sync with CARET_KINDS in proto/caret_shm.h (tests/check_tp_layout
 * compares them against the trace metadata).
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

/* Jazzy layout (rmw_publish gained the publisher handle and timestamp). */
LTTNG_UST_TRACEPOINT_EVENT(ros2_caret, dds_write,
	LTTNG_UST_TP_ARGS(const void *, rmw_publisher_handle_arg,
			  const void *, message_arg, int64_t, timestamp_arg),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(const void *, rmw_publisher_handle, rmw_publisher_handle_arg)
		lttng_ust_field_integer_hex(const void *, message, message_arg)
		lttng_ust_field_integer(int64_t, timestamp, timestamp_arg)))

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

LTTNG_UST_TRACEPOINT_EVENT(ros2_caret, rcl_init,
	LTTNG_UST_TP_ARGS(const void *, context_handle_arg, int64_t, init_timestamp_arg),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(const void *, context_handle, context_handle_arg)
		lttng_ust_field_integer(int64_t, init_timestamp, init_timestamp_arg)))

LTTNG_UST_TRACEPOINT_EVENT(ros2_caret, rcl_node_init,
	LTTNG_UST_TP_ARGS(const void *, node_handle_arg, const void *, rmw_handle_arg, const char *, node_name_arg, const char *, namespace_arg, int64_t, init_timestamp_arg),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(const void *, node_handle, node_handle_arg)
		lttng_ust_field_integer_hex(const void *, rmw_handle, rmw_handle_arg)
		lttng_ust_field_string(node_name, node_name_arg)
		lttng_ust_field_string(namespace, namespace_arg)
		lttng_ust_field_integer(int64_t, init_timestamp, init_timestamp_arg)))

LTTNG_UST_TRACEPOINT_EVENT(ros2_caret, rcl_publisher_init,
	LTTNG_UST_TP_ARGS(const void *, publisher_handle_arg, const void *, node_handle_arg, const void *, rmw_publisher_handle_arg, const char *, topic_name_arg, uint64_t, queue_depth_arg, int64_t, init_timestamp_arg),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(const void *, publisher_handle, publisher_handle_arg)
		lttng_ust_field_integer_hex(const void *, node_handle, node_handle_arg)
		lttng_ust_field_integer_hex(const void *, rmw_publisher_handle, rmw_publisher_handle_arg)
		lttng_ust_field_string(topic_name, topic_name_arg)
		lttng_ust_field_integer(uint64_t, queue_depth, queue_depth_arg)
		lttng_ust_field_integer(int64_t, init_timestamp, init_timestamp_arg)))

LTTNG_UST_TRACEPOINT_EVENT(ros2_caret, rcl_subscription_init,
	LTTNG_UST_TP_ARGS(const void *, subscription_handle_arg, const void *, node_handle_arg, const void *, rmw_subscription_handle_arg, const char *, topic_name_arg, uint64_t, queue_depth_arg, int64_t, init_timestamp_arg),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(const void *, subscription_handle, subscription_handle_arg)
		lttng_ust_field_integer_hex(const void *, node_handle, node_handle_arg)
		lttng_ust_field_integer_hex(const void *, rmw_subscription_handle, rmw_subscription_handle_arg)
		lttng_ust_field_string(topic_name, topic_name_arg)
		lttng_ust_field_integer(uint64_t, queue_depth, queue_depth_arg)
		lttng_ust_field_integer(int64_t, init_timestamp, init_timestamp_arg)))

LTTNG_UST_TRACEPOINT_EVENT(ros2_caret, rclcpp_subscription_init,
	LTTNG_UST_TP_ARGS(const void *, subscription_handle_arg, const void *, subscription_arg, int64_t, init_timestamp_arg),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(const void *, subscription_handle, subscription_handle_arg)
		lttng_ust_field_integer_hex(const void *, subscription, subscription_arg)
		lttng_ust_field_integer(int64_t, init_timestamp, init_timestamp_arg)))

LTTNG_UST_TRACEPOINT_EVENT(ros2_caret, rclcpp_subscription_callback_added,
	LTTNG_UST_TP_ARGS(const void *, subscription_arg, const void *, callback_arg, int64_t, init_timestamp_arg),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(const void *, subscription, subscription_arg)
		lttng_ust_field_integer_hex(const void *, callback, callback_arg)
		lttng_ust_field_integer(int64_t, init_timestamp, init_timestamp_arg)))

LTTNG_UST_TRACEPOINT_EVENT(ros2_caret, rcl_service_init,
	LTTNG_UST_TP_ARGS(const void *, service_handle_arg, const void *, node_handle_arg, const void *, rmw_service_handle_arg, const char *, service_name_arg, int64_t, init_timestamp_arg),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(const void *, service_handle, service_handle_arg)
		lttng_ust_field_integer_hex(const void *, node_handle, node_handle_arg)
		lttng_ust_field_integer_hex(const void *, rmw_service_handle, rmw_service_handle_arg)
		lttng_ust_field_string(service_name, service_name_arg)
		lttng_ust_field_integer(int64_t, init_timestamp, init_timestamp_arg)))

LTTNG_UST_TRACEPOINT_EVENT(ros2_caret, rclcpp_service_callback_added,
	LTTNG_UST_TP_ARGS(const void *, service_handle_arg, const void *, callback_arg, int64_t, init_timestamp_arg),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(const void *, service_handle, service_handle_arg)
		lttng_ust_field_integer_hex(const void *, callback, callback_arg)
		lttng_ust_field_integer(int64_t, init_timestamp, init_timestamp_arg)))

LTTNG_UST_TRACEPOINT_EVENT(ros2_caret, rcl_client_init,
	LTTNG_UST_TP_ARGS(const void *, client_handle_arg, const void *, node_handle_arg, const void *, rmw_client_handle_arg, const char *, service_name_arg, int64_t, init_timestamp_arg),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(const void *, client_handle, client_handle_arg)
		lttng_ust_field_integer_hex(const void *, node_handle, node_handle_arg)
		lttng_ust_field_integer_hex(const void *, rmw_client_handle, rmw_client_handle_arg)
		lttng_ust_field_string(service_name, service_name_arg)
		lttng_ust_field_integer(int64_t, init_timestamp, init_timestamp_arg)))

LTTNG_UST_TRACEPOINT_EVENT(ros2_caret, rcl_timer_init,
	LTTNG_UST_TP_ARGS(const void *, timer_handle_arg, int64_t, period_arg, int64_t, init_timestamp_arg),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(const void *, timer_handle, timer_handle_arg)
		lttng_ust_field_integer(int64_t, period, period_arg)
		lttng_ust_field_integer(int64_t, init_timestamp, init_timestamp_arg)))

LTTNG_UST_TRACEPOINT_EVENT(ros2_caret, rclcpp_timer_callback_added,
	LTTNG_UST_TP_ARGS(const void *, timer_handle_arg, const void *, callback_arg, int64_t, init_timestamp_arg),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(const void *, timer_handle, timer_handle_arg)
		lttng_ust_field_integer_hex(const void *, callback, callback_arg)
		lttng_ust_field_integer(int64_t, init_timestamp, init_timestamp_arg)))

LTTNG_UST_TRACEPOINT_EVENT(ros2_caret, rclcpp_timer_link_node,
	LTTNG_UST_TP_ARGS(const void *, timer_handle_arg, const void *, node_handle_arg, int64_t, init_timestamp_arg),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(const void *, timer_handle, timer_handle_arg)
		lttng_ust_field_integer_hex(const void *, node_handle, node_handle_arg)
		lttng_ust_field_integer(int64_t, init_timestamp, init_timestamp_arg)))

LTTNG_UST_TRACEPOINT_EVENT(ros2_caret, rclcpp_callback_register,
	LTTNG_UST_TP_ARGS(const void *, callback_arg, const char *, symbol_arg, int64_t, init_timestamp_arg),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(const void *, callback, callback_arg)
		lttng_ust_field_string(symbol, symbol_arg)
		lttng_ust_field_integer(int64_t, init_timestamp, init_timestamp_arg)))

LTTNG_UST_TRACEPOINT_EVENT(ros2_caret, rcl_lifecycle_state_machine_init,
	LTTNG_UST_TP_ARGS(const void *, node_handle_arg, const void *, state_machine_arg, int64_t, init_timestamp_arg),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(const void *, node_handle, node_handle_arg)
		lttng_ust_field_integer_hex(const void *, state_machine, state_machine_arg)
		lttng_ust_field_integer(int64_t, init_timestamp, init_timestamp_arg)))

LTTNG_UST_TRACEPOINT_EVENT(ros2_caret, rclcpp_construct_ring_buffer,
	LTTNG_UST_TP_ARGS(const void *, buffer_arg, uint64_t, capacity_arg, int64_t, init_timestamp_arg),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(const void *, buffer, buffer_arg)
		lttng_ust_field_integer(uint64_t, capacity, capacity_arg)
		lttng_ust_field_integer(int64_t, init_timestamp, init_timestamp_arg)))

LTTNG_UST_TRACEPOINT_EVENT(ros2_caret, rclcpp_buffer_to_ipb,
	LTTNG_UST_TP_ARGS(const void *, buffer_arg, const void *, ipb_arg, int64_t, init_timestamp_arg),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(const void *, buffer, buffer_arg)
		lttng_ust_field_integer_hex(const void *, ipb, ipb_arg)
		lttng_ust_field_integer(int64_t, init_timestamp, init_timestamp_arg)))

LTTNG_UST_TRACEPOINT_EVENT(ros2_caret, rclcpp_ipb_to_subscription,
	LTTNG_UST_TP_ARGS(const void *, ipb_arg, const void *, subscription_arg, int64_t, init_timestamp_arg),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(const void *, ipb, ipb_arg)
		lttng_ust_field_integer_hex(const void *, subscription, subscription_arg)
		lttng_ust_field_integer(int64_t, init_timestamp, init_timestamp_arg)))

LTTNG_UST_TRACEPOINT_EVENT(ros2_caret, rmw_implementation,
	LTTNG_UST_TP_ARGS(const char *, rmw_impl_arg, int64_t, init_timestamp_arg),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_string(rmw_impl, rmw_impl_arg)
		lttng_ust_field_integer(int64_t, init_timestamp, init_timestamp_arg)))

LTTNG_UST_TRACEPOINT_EVENT(ros2_caret, construct_executor,
	LTTNG_UST_TP_ARGS(const void *, executor_addr_arg, const char *, executor_type_name_arg, int64_t, init_timestamp_arg),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(const void *, executor_addr, executor_addr_arg)
		lttng_ust_field_string(executor_type_name, executor_type_name_arg)
		lttng_ust_field_integer(int64_t, init_timestamp, init_timestamp_arg)))

LTTNG_UST_TRACEPOINT_EVENT(ros2_caret, construct_static_executor,
	LTTNG_UST_TP_ARGS(const void *, executor_addr_arg, const void *, entities_collector_addr_arg, const char *, executor_type_name_arg, int64_t, init_timestamp_arg),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(const void *, executor_addr, executor_addr_arg)
		lttng_ust_field_integer_hex(const void *, entities_collector_addr, entities_collector_addr_arg)
		lttng_ust_field_string(executor_type_name, executor_type_name_arg)
		lttng_ust_field_integer(int64_t, init_timestamp, init_timestamp_arg)))

LTTNG_UST_TRACEPOINT_EVENT(ros2_caret, add_callback_group,
	LTTNG_UST_TP_ARGS(const void *, executor_addr_arg, const void *, callback_group_addr_arg, const char *, group_type_name_arg, int64_t, init_timestamp_arg),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(const void *, executor_addr, executor_addr_arg)
		lttng_ust_field_integer_hex(const void *, callback_group_addr, callback_group_addr_arg)
		lttng_ust_field_string(group_type_name, group_type_name_arg)
		lttng_ust_field_integer(int64_t, init_timestamp, init_timestamp_arg)))

LTTNG_UST_TRACEPOINT_EVENT(ros2_caret, add_callback_group_static_executor,
	LTTNG_UST_TP_ARGS(const void *, entities_collector_addr_arg, const void *, callback_group_addr_arg, const char *, group_type_name_arg, int64_t, init_timestamp_arg),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(const void *, entities_collector_addr, entities_collector_addr_arg)
		lttng_ust_field_integer_hex(const void *, callback_group_addr, callback_group_addr_arg)
		lttng_ust_field_string(group_type_name, group_type_name_arg)
		lttng_ust_field_integer(int64_t, init_timestamp, init_timestamp_arg)))

LTTNG_UST_TRACEPOINT_EVENT(ros2_caret, callback_group_add_timer,
	LTTNG_UST_TP_ARGS(const void *, callback_group_addr_arg, const void *, timer_handle_arg, int64_t, init_timestamp_arg),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(const void *, callback_group_addr, callback_group_addr_arg)
		lttng_ust_field_integer_hex(const void *, timer_handle, timer_handle_arg)
		lttng_ust_field_integer(int64_t, init_timestamp, init_timestamp_arg)))

LTTNG_UST_TRACEPOINT_EVENT(ros2_caret, callback_group_add_subscription,
	LTTNG_UST_TP_ARGS(const void *, callback_group_addr_arg, const void *, subscription_handle_arg, int64_t, init_timestamp_arg),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(const void *, callback_group_addr, callback_group_addr_arg)
		lttng_ust_field_integer_hex(const void *, subscription_handle, subscription_handle_arg)
		lttng_ust_field_integer(int64_t, init_timestamp, init_timestamp_arg)))

LTTNG_UST_TRACEPOINT_EVENT(ros2_caret, callback_group_add_service,
	LTTNG_UST_TP_ARGS(const void *, callback_group_addr_arg, const void *, service_handle_arg, int64_t, init_timestamp_arg),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(const void *, callback_group_addr, callback_group_addr_arg)
		lttng_ust_field_integer_hex(const void *, service_handle, service_handle_arg)
		lttng_ust_field_integer(int64_t, init_timestamp, init_timestamp_arg)))

LTTNG_UST_TRACEPOINT_EVENT(ros2_caret, callback_group_add_client,
	LTTNG_UST_TP_ARGS(const void *, callback_group_addr_arg, const void *, client_handle_arg, int64_t, init_timestamp_arg),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(const void *, callback_group_addr, callback_group_addr_arg)
		lttng_ust_field_integer_hex(const void *, client_handle, client_handle_arg)
		lttng_ust_field_integer(int64_t, init_timestamp, init_timestamp_arg)))

/* Jazzy executors (tier4/caret_trace include/caret_trace/tp.h: same names,
 * same order). */
LTTNG_UST_TRACEPOINT_EVENT(ros2_caret, executor_entity_collector_to_executor,
	LTTNG_UST_TP_ARGS(const void *, executor_addr_arg, const void *, entities_collector_addr_arg, int64_t, init_timestamp_arg),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(const void *, executor_addr, executor_addr_arg)
		lttng_ust_field_integer_hex(const void *, entities_collector_addr, entities_collector_addr_arg)
		lttng_ust_field_integer(int64_t, init_timestamp, init_timestamp_arg)))

LTTNG_UST_TRACEPOINT_EVENT(ros2_caret, callback_group_to_executor_entity_collector,
	LTTNG_UST_TP_ARGS(const void *, entities_collector_addr_arg, const void *, callback_group_addr_arg, const char *, group_type_name_arg, int64_t, init_timestamp_arg),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(const void *, entities_collector_addr, entities_collector_addr_arg)
		lttng_ust_field_integer_hex(const void *, callback_group_addr, callback_group_addr_arg)
		lttng_ust_field_string(group_type_name, group_type_name_arg)
		lttng_ust_field_integer(int64_t, init_timestamp, init_timestamp_arg)))

#endif

#include <lttng/tracepoint-event.h>
