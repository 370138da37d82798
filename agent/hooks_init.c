/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Init tracepoints of tracetools (DESIGN.md §7), in all three forms.
 * Each call is cached and emitted as ros2_caret:<name>; the real ros2:
 * variant is emitted only when caret_init_to_ros2() says so (a session
 * records ros2: init events and none records both kinds: the analyzer
 * would see every object twice).
 * Since Iron, call sites test ros_trace_enabled_X() before calling
 * ros_trace_do_X(): it is forced true so nothing escapes the cache.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "agent/agent.h"

#define INIT_HOOK(name, params, args, ...)                                   \
	CARET_EXPORT void ros_trace_##name params;                            \
	CARET_EXPORT void ros_trace_do_##name params;                         \
	CARET_EXPORT bool ros_trace_enabled_##name(void);                     \
	static void *real_##name, *real_do_##name;                           \
	void ros_trace_##name params                                          \
	{                                                                     \
		union caret_arg a_[] = { __VA_ARGS__ };                       \
		if (!caret_capture(CARET_KIND_##name, a_) ||                  \
		    caret_init_to_ros2()) {                                   \
			void (*f_) params = (void (*) params)caret_real(      \
				&real_##name, "ros_trace_" #name);            \
			if (f_)                                               \
				f_ args;                                      \
		}                                                             \
	}                                                                     \
	void ros_trace_do_##name params                                       \
	{                                                                     \
		union caret_arg a_[] = { __VA_ARGS__ };                       \
		if (!caret_capture(CARET_KIND_##name, a_) ||                  \
		    caret_init_to_ros2()) {                                   \
			void (*f_) params = (void (*) params)caret_real(      \
				&real_do_##name, "ros_trace_do_" #name);      \
			if (f_)                                               \
				f_ args;                                      \
		}                                                             \
	}                                                                     \
	bool ros_trace_enabled_##name(void)                                   \
	{                                                                     \
		return true;                                                  \
	}

#define P CARET_P
#define I CARET_I
#define S CARET_S
typedef const void *cvp;
typedef const char *ccp;

/* rcl_init also announces the middleware, as CARET's hook does. */
static void rmw_impl_record(void)
{
	const char *impl = getenv("RMW_IMPLEMENTATION");
	if (!impl || !*impl) {
		static void *slot;
		const char *(*id)(void) = (const char *(*)(void))caret_real(
			&slot, "rmw_get_implementation_identifier");
		impl = id ? id() : "";
	}
	union caret_arg a[] = { S(impl) };
	caret_capture(CARET_KIND_rmw_implementation, a);
}

static void *real_rcl_init, *real_do_rcl_init;
CARET_EXPORT void ros_trace_rcl_init(cvp context_handle);
CARET_EXPORT void ros_trace_do_rcl_init(cvp context_handle);
CARET_EXPORT bool ros_trace_enabled_rcl_init(void);

static void rcl_init_hook(cvp context_handle, void **slot, const char *sym)
{
	union caret_arg a[] = { P(context_handle) };
	bool captured = caret_capture(CARET_KIND_rcl_init, a);
	if (captured)
		rmw_impl_record();
	if (captured && !caret_init_to_ros2())
		return;
	void (*f)(cvp) = (void (*)(cvp))caret_real(slot, sym);
	if (f)
		f(context_handle);
}

void ros_trace_rcl_init(cvp context_handle)
{
	rcl_init_hook(context_handle, &real_rcl_init, "ros_trace_rcl_init");
}

void ros_trace_do_rcl_init(cvp context_handle)
{
	rcl_init_hook(context_handle, &real_do_rcl_init, "ros_trace_do_rcl_init");
}

bool ros_trace_enabled_rcl_init(void)
{
	return true;
}

INIT_HOOK(rcl_node_init, (cvp node_handle, cvp rmw_handle, ccp node_name, ccp node_namespace),
	  (node_handle, rmw_handle, node_name, node_namespace),
	  P(node_handle), P(rmw_handle), S(node_name), S(node_namespace))
INIT_HOOK(rcl_publisher_init,
	  (cvp publisher_handle, cvp node_handle, cvp rmw_publisher_handle, ccp topic_name,
	   const size_t queue_depth),
	  (publisher_handle, node_handle, rmw_publisher_handle, topic_name, queue_depth),
	  P(publisher_handle), P(node_handle), P(rmw_publisher_handle), S(topic_name),
	  I(queue_depth))
INIT_HOOK(rcl_subscription_init,
	  (cvp subscription_handle, cvp node_handle, cvp rmw_subscription_handle,
	   ccp topic_name, const size_t queue_depth),
	  (subscription_handle, node_handle, rmw_subscription_handle, topic_name, queue_depth),
	  P(subscription_handle), P(node_handle), P(rmw_subscription_handle), S(topic_name),
	  I(queue_depth))
INIT_HOOK(rclcpp_subscription_init, (cvp subscription_handle, cvp subscription),
	  (subscription_handle, subscription), P(subscription_handle), P(subscription))
INIT_HOOK(rclcpp_subscription_callback_added, (cvp subscription, cvp callback),
	  (subscription, callback), P(subscription), P(callback))
INIT_HOOK(rcl_service_init,
	  (cvp service_handle, cvp node_handle, cvp rmw_service_handle, ccp service_name),
	  (service_handle, node_handle, rmw_service_handle, service_name),
	  P(service_handle), P(node_handle), P(rmw_service_handle), S(service_name))
INIT_HOOK(rclcpp_service_callback_added, (cvp service_handle, cvp callback),
	  (service_handle, callback), P(service_handle), P(callback))
INIT_HOOK(rcl_client_init,
	  (cvp client_handle, cvp node_handle, cvp rmw_client_handle, ccp service_name),
	  (client_handle, node_handle, rmw_client_handle, service_name),
	  P(client_handle), P(node_handle), P(rmw_client_handle), S(service_name))
INIT_HOOK(rcl_timer_init, (cvp timer_handle, int64_t period), (timer_handle, period),
	  P(timer_handle), I(period))
INIT_HOOK(rclcpp_timer_callback_added, (cvp timer_handle, cvp callback),
	  (timer_handle, callback), P(timer_handle), P(callback))
INIT_HOOK(rclcpp_timer_link_node, (cvp timer_handle, cvp node_handle),
	  (timer_handle, node_handle), P(timer_handle), P(node_handle))
INIT_HOOK(rclcpp_callback_register, (cvp callback, ccp function_symbol),
	  (callback, function_symbol), P(callback), S(function_symbol))
INIT_HOOK(rcl_lifecycle_state_machine_init, (cvp node_handle, cvp state_machine),
	  (node_handle, state_machine), P(node_handle), P(state_machine))
INIT_HOOK(rclcpp_construct_ring_buffer, (cvp buffer, const uint64_t capacity),
	  (buffer, capacity), P(buffer), I(capacity))
INIT_HOOK(rclcpp_buffer_to_ipb, (cvp buffer, cvp ipb), (buffer, ipb), P(buffer), P(ipb))
INIT_HOOK(rclcpp_ipb_to_subscription, (cvp ipb, cvp subscription), (ipb, subscription),
	  P(ipb), P(subscription))
