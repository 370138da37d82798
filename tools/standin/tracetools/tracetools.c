/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The probes and the exported ros_trace_* functions. Probes and tracepoint
 * definitions live in this one shared object, as in upstream tracetools, so
 * loading libtracetools.so registers provider `ros2` by itself.
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "tools/standin/tracetools/tp_call.h"

#include "tools/standin/tracetools/tracetools.h"

/*
 * One row per event: name, parameter list, argument list. Including
 * tracetools.h above makes the compiler check every row against the public
 * prototypes.
 */
#define STANDIN_EVENTS(X)                                                   \
	X(rcl_init, (const void *context_handle), (context_handle))         \
	X(rcl_node_init, (const void *node_handle, const void *rmw_handle,  \
		const char *node_name, const char *node_namespace),         \
		(node_handle, rmw_handle, node_name, node_namespace))       \
	X(rmw_publisher_init, (const void *rmw_publisher_handle,            \
		const uint8_t *gid), (rmw_publisher_handle, gid))           \
	X(rcl_publisher_init, (const void *publisher_handle,                \
		const void *node_handle, const void *rmw_publisher_handle,  \
		const char *topic_name, const size_t queue_depth),          \
		(publisher_handle, node_handle, rmw_publisher_handle,       \
		topic_name, queue_depth))                                   \
	X(rclcpp_publish, (const void *publisher_handle,                    \
		const void *message), (publisher_handle, message))          \
	X(rcl_publish, (const void *publisher_handle, const void *message), \
		(publisher_handle, message))                                \
	X(rmw_subscription_init, (const void *rmw_subscription_handle,      \
		const uint8_t *gid), (rmw_subscription_handle, gid))        \
	X(rcl_subscription_init, (const void *subscription_handle,          \
		const void *node_handle,                                    \
		const void *rmw_subscription_handle,                        \
		const char *topic_name, const size_t queue_depth),          \
		(subscription_handle, node_handle, rmw_subscription_handle, \
		topic_name, queue_depth))                                   \
	X(rclcpp_subscription_init, (const void *subscription_handle,       \
		const void *subscription),                                  \
		(subscription_handle, subscription))                        \
	X(rclcpp_subscription_callback_added, (const void *subscription,    \
		const void *callback), (subscription, callback))            \
	X(rmw_take, (const void *rmw_subscription_handle,                   \
		const void *message, int64_t source_timestamp,              \
		const bool taken),                                          \
		(rmw_subscription_handle, message, source_timestamp, taken)) \
	X(rcl_take, (const void *message), (message))                       \
	X(rclcpp_take, (const void *message), (message))                    \
	X(rcl_service_init, (const void *service_handle,                    \
		const void *node_handle, const void *rmw_service_handle,    \
		const char *service_name),                                  \
		(service_handle, node_handle, rmw_service_handle,           \
		service_name))                                              \
	X(rclcpp_service_callback_added, (const void *service_handle,       \
		const void *callback), (service_handle, callback))          \
	X(rcl_client_init, (const void *client_handle,                      \
		const void *node_handle, const void *rmw_client_handle,     \
		const char *service_name),                                  \
		(client_handle, node_handle, rmw_client_handle,             \
		service_name))                                              \
	X(rcl_timer_init, (const void *timer_handle, int64_t period),       \
		(timer_handle, period))                                     \
	X(rclcpp_timer_callback_added, (const void *timer_handle,           \
		const void *callback), (timer_handle, callback))            \
	X(rclcpp_timer_link_node, (const void *timer_handle,                \
		const void *node_handle), (timer_handle, node_handle))      \
	X(rclcpp_callback_register, (const void *callback,                  \
		const char *function_symbol), (callback, function_symbol))  \
	X(callback_start, (const void *callback,                            \
		const bool is_intra_process), (callback, is_intra_process)) \
	X(callback_end, (const void *callback), (callback))                 \
	X(rcl_lifecycle_state_machine_init, (const void *node_handle,       \
		const void *state_machine), (node_handle, state_machine))   \
	X(rcl_lifecycle_transition, (const void *state_machine,             \
		const char *start_label, const char *goal_label),           \
		(state_machine, start_label, goal_label))                   \
	X(rclcpp_executor_get_next_ready, (void), ())                       \
	X(rclcpp_executor_wait_for_work, (const int64_t timeout), (timeout)) \
	X(rclcpp_executor_execute, (const void *handle), (handle))

/* Events ros2_tracing added after Humble, and Jazzy's rmw_publish. */
#define STANDIN_EVENTS_JAZZY(X)                                             \
	X(rclcpp_intra_publish, (const void *publisher_handle,              \
		const void *message), (publisher_handle, message))          \
	X(rmw_publish, (const void *rmw_publisher_handle,                   \
		const void *message, int64_t timestamp),                    \
		(rmw_publisher_handle, message, timestamp))                 \
	X(rclcpp_ipb_to_subscription, (const void *ipb,                     \
		const void *subscription), (ipb, subscription))             \
	X(rclcpp_buffer_to_ipb, (const void *buffer, const void *ipb),      \
		(buffer, ipb))                                              \
	X(rclcpp_construct_ring_buffer, (const void *buffer,                \
		const uint64_t capacity), (buffer, capacity))               \
	X(rclcpp_ring_buffer_enqueue, (const void *buffer,                  \
		const uint64_t index, const uint64_t size,                  \
		const bool overwritten), (buffer, index, size, overwritten)) \
	X(rclcpp_ring_buffer_dequeue, (const void *buffer,                  \
		const uint64_t index, const uint64_t size),                 \
		(buffer, index, size))                                      \
	X(rclcpp_ring_buffer_clear, (const void *buffer), (buffer))

/* Rows carry argument lists in parentheses; this strips them. An empty
 * list expands to nothing, which suits the argument-less event. */
#define STANDIN_UNPAREN(...) __VA_ARGS__

#define STANDIN_DEFINE(ev, params, args)                                    \
	bool ros_trace_enabled_##ev(void)                                   \
	{                                                                   \
		return lttng_ust_tracepoint_enabled(ros2, ev);              \
	}                                                                   \
	void ros_trace_do_##ev params                                       \
	{                                                                   \
		lttng_ust_do_tracepoint(ros2, ev, STANDIN_UNPAREN args);    \
	}                                                                   \
	void ros_trace_##ev params                                          \
	{                                                                   \
		lttng_ust_tracepoint(ros2, ev, STANDIN_UNPAREN args);       \
	}

#ifdef STANDIN_HUMBLE
/* Humble's tracetools exports ros_trace_X only. */
#define STANDIN_DEFINE_HUMBLE(ev, params, args)                             \
	void ros_trace_##ev params                                          \
	{                                                                   \
		lttng_ust_tracepoint(ros2, ev, STANDIN_UNPAREN args);       \
	}
STANDIN_EVENTS(STANDIN_DEFINE_HUMBLE)
STANDIN_DEFINE_HUMBLE(rmw_publish, (const void *message), (message))
#else
STANDIN_EVENTS(STANDIN_DEFINE)
STANDIN_EVENTS_JAZZY(STANDIN_DEFINE)
#endif

bool ros_trace_compile_status(void)
{
	return true;
}
