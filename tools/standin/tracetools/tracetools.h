/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Stand-in for ros2_tracing's tracetools (Jazzy): the same exported C
 * functions rcl/rclcpp/rmw call, so a tracing agent preloaded in front of
 * this library sees exactly the symbols it would see in a ROS 2 process.
 *
 * Built once per distribution. Jazzy: for every event X there are three
 * functions, as upstream (Iron added the enabled/do pair):
 *   ros_trace_X(...)        emit if the tracepoint is enabled;
 *   ros_trace_enabled_X()   whether a session enabled it (lets callers skip
 *                           computing expensive arguments);
 *   ros_trace_do_X(...)     emit unconditionally.
 * Humble (STANDIN_HUMBLE, ros2_tracing humble tracetools.h): ros_trace_X
 * only, no ring-buffer / intra-process-buffer events, and rmw_publish takes
 * the message alone. The enabled/do declarations below exist only in the
 * Jazzy library.
 */
#ifndef STANDIN_TRACETOOLS_H
#define STANDIN_TRACETOOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

bool ros_trace_compile_status(void);

void ros_trace_rcl_init(const void *context_handle);
bool ros_trace_enabled_rcl_init(void);
void ros_trace_do_rcl_init(const void *context_handle);

void ros_trace_rcl_node_init(const void *node_handle, const void *rmw_handle,
	const char *node_name, const char *node_namespace);
bool ros_trace_enabled_rcl_node_init(void);
void ros_trace_do_rcl_node_init(const void *node_handle,
	const void *rmw_handle, const char *node_name,
	const char *node_namespace);

void ros_trace_rmw_publisher_init(const void *rmw_publisher_handle,
	const uint8_t *gid);
bool ros_trace_enabled_rmw_publisher_init(void);
void ros_trace_do_rmw_publisher_init(const void *rmw_publisher_handle,
	const uint8_t *gid);

void ros_trace_rcl_publisher_init(const void *publisher_handle,
	const void *node_handle, const void *rmw_publisher_handle,
	const char *topic_name, const size_t queue_depth);
bool ros_trace_enabled_rcl_publisher_init(void);
void ros_trace_do_rcl_publisher_init(const void *publisher_handle,
	const void *node_handle, const void *rmw_publisher_handle,
	const char *topic_name, const size_t queue_depth);

void ros_trace_rclcpp_publish(const void *publisher_handle,
	const void *message);
bool ros_trace_enabled_rclcpp_publish(void);
void ros_trace_do_rclcpp_publish(const void *publisher_handle,
	const void *message);

void ros_trace_rclcpp_intra_publish(const void *publisher_handle,
	const void *message);
bool ros_trace_enabled_rclcpp_intra_publish(void);
void ros_trace_do_rclcpp_intra_publish(const void *publisher_handle,
	const void *message);

void ros_trace_rcl_publish(const void *publisher_handle, const void *message);
bool ros_trace_enabled_rcl_publish(void);
void ros_trace_do_rcl_publish(const void *publisher_handle,
	const void *message);

#ifdef STANDIN_HUMBLE
/* Humble: the message only (ros2_tracing humble tracetools.h). */
void ros_trace_rmw_publish(const void *message);
#else
void ros_trace_rmw_publish(const void *rmw_publisher_handle,
	const void *message, int64_t timestamp);
#endif
bool ros_trace_enabled_rmw_publish(void);
void ros_trace_do_rmw_publish(const void *rmw_publisher_handle,
	const void *message, int64_t timestamp);

void ros_trace_rmw_subscription_init(const void *rmw_subscription_handle,
	const uint8_t *gid);
bool ros_trace_enabled_rmw_subscription_init(void);
void ros_trace_do_rmw_subscription_init(const void *rmw_subscription_handle,
	const uint8_t *gid);

void ros_trace_rcl_subscription_init(const void *subscription_handle,
	const void *node_handle, const void *rmw_subscription_handle,
	const char *topic_name, const size_t queue_depth);
bool ros_trace_enabled_rcl_subscription_init(void);
void ros_trace_do_rcl_subscription_init(const void *subscription_handle,
	const void *node_handle, const void *rmw_subscription_handle,
	const char *topic_name, const size_t queue_depth);

void ros_trace_rclcpp_subscription_init(const void *subscription_handle,
	const void *subscription);
bool ros_trace_enabled_rclcpp_subscription_init(void);
void ros_trace_do_rclcpp_subscription_init(const void *subscription_handle,
	const void *subscription);

void ros_trace_rclcpp_subscription_callback_added(const void *subscription,
	const void *callback);
bool ros_trace_enabled_rclcpp_subscription_callback_added(void);
void ros_trace_do_rclcpp_subscription_callback_added(const void *subscription,
	const void *callback);

void ros_trace_rmw_take(const void *rmw_subscription_handle,
	const void *message, int64_t source_timestamp, const bool taken);
bool ros_trace_enabled_rmw_take(void);
void ros_trace_do_rmw_take(const void *rmw_subscription_handle,
	const void *message, int64_t source_timestamp, const bool taken);

void ros_trace_rcl_take(const void *message);
bool ros_trace_enabled_rcl_take(void);
void ros_trace_do_rcl_take(const void *message);

void ros_trace_rclcpp_take(const void *message);
bool ros_trace_enabled_rclcpp_take(void);
void ros_trace_do_rclcpp_take(const void *message);

void ros_trace_rcl_service_init(const void *service_handle,
	const void *node_handle, const void *rmw_service_handle,
	const char *service_name);
bool ros_trace_enabled_rcl_service_init(void);
void ros_trace_do_rcl_service_init(const void *service_handle,
	const void *node_handle, const void *rmw_service_handle,
	const char *service_name);

void ros_trace_rclcpp_service_callback_added(const void *service_handle,
	const void *callback);
bool ros_trace_enabled_rclcpp_service_callback_added(void);
void ros_trace_do_rclcpp_service_callback_added(const void *service_handle,
	const void *callback);

void ros_trace_rcl_client_init(const void *client_handle,
	const void *node_handle, const void *rmw_client_handle,
	const char *service_name);
bool ros_trace_enabled_rcl_client_init(void);
void ros_trace_do_rcl_client_init(const void *client_handle,
	const void *node_handle, const void *rmw_client_handle,
	const char *service_name);

void ros_trace_rcl_timer_init(const void *timer_handle, int64_t period);
bool ros_trace_enabled_rcl_timer_init(void);
void ros_trace_do_rcl_timer_init(const void *timer_handle, int64_t period);

void ros_trace_rclcpp_timer_callback_added(const void *timer_handle,
	const void *callback);
bool ros_trace_enabled_rclcpp_timer_callback_added(void);
void ros_trace_do_rclcpp_timer_callback_added(const void *timer_handle,
	const void *callback);

void ros_trace_rclcpp_timer_link_node(const void *timer_handle,
	const void *node_handle);
bool ros_trace_enabled_rclcpp_timer_link_node(void);
void ros_trace_do_rclcpp_timer_link_node(const void *timer_handle,
	const void *node_handle);

void ros_trace_rclcpp_callback_register(const void *callback,
	const char *function_symbol);
bool ros_trace_enabled_rclcpp_callback_register(void);
void ros_trace_do_rclcpp_callback_register(const void *callback,
	const char *function_symbol);

void ros_trace_callback_start(const void *callback,
	const bool is_intra_process);
bool ros_trace_enabled_callback_start(void);
void ros_trace_do_callback_start(const void *callback,
	const bool is_intra_process);

void ros_trace_callback_end(const void *callback);
bool ros_trace_enabled_callback_end(void);
void ros_trace_do_callback_end(const void *callback);

void ros_trace_rcl_lifecycle_state_machine_init(const void *node_handle,
	const void *state_machine);
bool ros_trace_enabled_rcl_lifecycle_state_machine_init(void);
void ros_trace_do_rcl_lifecycle_state_machine_init(const void *node_handle,
	const void *state_machine);

void ros_trace_rcl_lifecycle_transition(const void *state_machine,
	const char *start_label, const char *goal_label);
bool ros_trace_enabled_rcl_lifecycle_transition(void);
void ros_trace_do_rcl_lifecycle_transition(const void *state_machine,
	const char *start_label, const char *goal_label);

void ros_trace_rclcpp_executor_get_next_ready(void);
bool ros_trace_enabled_rclcpp_executor_get_next_ready(void);
void ros_trace_do_rclcpp_executor_get_next_ready(void);

void ros_trace_rclcpp_executor_wait_for_work(const int64_t timeout);
bool ros_trace_enabled_rclcpp_executor_wait_for_work(void);
void ros_trace_do_rclcpp_executor_wait_for_work(const int64_t timeout);

void ros_trace_rclcpp_executor_execute(const void *handle);
bool ros_trace_enabled_rclcpp_executor_execute(void);
void ros_trace_do_rclcpp_executor_execute(const void *handle);

void ros_trace_rclcpp_ipb_to_subscription(const void *ipb,
	const void *subscription);
bool ros_trace_enabled_rclcpp_ipb_to_subscription(void);
void ros_trace_do_rclcpp_ipb_to_subscription(const void *ipb,
	const void *subscription);

void ros_trace_rclcpp_buffer_to_ipb(const void *buffer, const void *ipb);
bool ros_trace_enabled_rclcpp_buffer_to_ipb(void);
void ros_trace_do_rclcpp_buffer_to_ipb(const void *buffer, const void *ipb);

void ros_trace_rclcpp_construct_ring_buffer(const void *buffer,
	const uint64_t capacity);
bool ros_trace_enabled_rclcpp_construct_ring_buffer(void);
void ros_trace_do_rclcpp_construct_ring_buffer(const void *buffer,
	const uint64_t capacity);

void ros_trace_rclcpp_ring_buffer_enqueue(const void *buffer,
	const uint64_t index, const uint64_t size, const bool overwritten);
bool ros_trace_enabled_rclcpp_ring_buffer_enqueue(void);
void ros_trace_do_rclcpp_ring_buffer_enqueue(const void *buffer,
	const uint64_t index, const uint64_t size, const bool overwritten);

void ros_trace_rclcpp_ring_buffer_dequeue(const void *buffer,
	const uint64_t index, const uint64_t size);
bool ros_trace_enabled_rclcpp_ring_buffer_dequeue(void);
void ros_trace_do_rclcpp_ring_buffer_dequeue(const void *buffer,
	const uint64_t index, const uint64_t size);

void ros_trace_rclcpp_ring_buffer_clear(const void *buffer);
bool ros_trace_enabled_rclcpp_ring_buffer_clear(void);
void ros_trace_do_rclcpp_ring_buffer_clear(const void *buffer);

#ifdef __cplusplus
}
#endif

#endif
