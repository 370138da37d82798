/* SPDX-License-Identifier: Apache-2.0 */
/* libcaret-agent-tp.so: the ros2_caret probes and their C entry points. */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "agent/tp/caret_tp.h"

#include "agent/tp/caret_tp_api.h"

static int tp_enabled(void)
{
	return lttng_ust_tracepoint_enabled(ros2_caret, caret_init) ||
	       lttng_ust_tracepoint_enabled(ros2_caret, rcl_node_init);
}

static void tp_emit_record(uint32_t kind, int64_t ts, const union caret_arg *v)
{
	switch (kind) {
	case CARET_KIND_rcl_init:
		lttng_ust_tracepoint(ros2_caret, rcl_init, (const void *)(uintptr_t)v[0].u, ts);
		break;
	case CARET_KIND_rcl_node_init:
		lttng_ust_tracepoint(ros2_caret, rcl_node_init, (const void *)(uintptr_t)v[0].u, (const void *)(uintptr_t)v[1].u, v[2].s, v[3].s, ts);
		break;
	case CARET_KIND_rcl_publisher_init:
		lttng_ust_tracepoint(ros2_caret, rcl_publisher_init, (const void *)(uintptr_t)v[0].u, (const void *)(uintptr_t)v[1].u, (const void *)(uintptr_t)v[2].u, v[3].s, v[4].u, ts);
		break;
	case CARET_KIND_rcl_subscription_init:
		lttng_ust_tracepoint(ros2_caret, rcl_subscription_init, (const void *)(uintptr_t)v[0].u, (const void *)(uintptr_t)v[1].u, (const void *)(uintptr_t)v[2].u, v[3].s, v[4].u, ts);
		break;
	case CARET_KIND_rclcpp_subscription_init:
		lttng_ust_tracepoint(ros2_caret, rclcpp_subscription_init, (const void *)(uintptr_t)v[0].u, (const void *)(uintptr_t)v[1].u, ts);
		break;
	case CARET_KIND_rclcpp_subscription_callback_added:
		lttng_ust_tracepoint(ros2_caret, rclcpp_subscription_callback_added, (const void *)(uintptr_t)v[0].u, (const void *)(uintptr_t)v[1].u, ts);
		break;
	case CARET_KIND_rcl_service_init:
		lttng_ust_tracepoint(ros2_caret, rcl_service_init, (const void *)(uintptr_t)v[0].u, (const void *)(uintptr_t)v[1].u, (const void *)(uintptr_t)v[2].u, v[3].s, ts);
		break;
	case CARET_KIND_rclcpp_service_callback_added:
		lttng_ust_tracepoint(ros2_caret, rclcpp_service_callback_added, (const void *)(uintptr_t)v[0].u, (const void *)(uintptr_t)v[1].u, ts);
		break;
	case CARET_KIND_rcl_client_init:
		lttng_ust_tracepoint(ros2_caret, rcl_client_init, (const void *)(uintptr_t)v[0].u, (const void *)(uintptr_t)v[1].u, (const void *)(uintptr_t)v[2].u, v[3].s, ts);
		break;
	case CARET_KIND_rcl_timer_init:
		lttng_ust_tracepoint(ros2_caret, rcl_timer_init, (const void *)(uintptr_t)v[0].u, (int64_t)v[1].u, ts);
		break;
	case CARET_KIND_rclcpp_timer_callback_added:
		lttng_ust_tracepoint(ros2_caret, rclcpp_timer_callback_added, (const void *)(uintptr_t)v[0].u, (const void *)(uintptr_t)v[1].u, ts);
		break;
	case CARET_KIND_rclcpp_timer_link_node:
		lttng_ust_tracepoint(ros2_caret, rclcpp_timer_link_node, (const void *)(uintptr_t)v[0].u, (const void *)(uintptr_t)v[1].u, ts);
		break;
	case CARET_KIND_rclcpp_callback_register:
		lttng_ust_tracepoint(ros2_caret, rclcpp_callback_register, (const void *)(uintptr_t)v[0].u, v[1].s, ts);
		break;
	case CARET_KIND_rcl_lifecycle_state_machine_init:
		lttng_ust_tracepoint(ros2_caret, rcl_lifecycle_state_machine_init, (const void *)(uintptr_t)v[0].u, (const void *)(uintptr_t)v[1].u, ts);
		break;
	case CARET_KIND_rclcpp_construct_ring_buffer:
		lttng_ust_tracepoint(ros2_caret, rclcpp_construct_ring_buffer, (const void *)(uintptr_t)v[0].u, v[1].u, ts);
		break;
	case CARET_KIND_rclcpp_buffer_to_ipb:
		lttng_ust_tracepoint(ros2_caret, rclcpp_buffer_to_ipb, (const void *)(uintptr_t)v[0].u, (const void *)(uintptr_t)v[1].u, ts);
		break;
	case CARET_KIND_rclcpp_ipb_to_subscription:
		lttng_ust_tracepoint(ros2_caret, rclcpp_ipb_to_subscription, (const void *)(uintptr_t)v[0].u, (const void *)(uintptr_t)v[1].u, ts);
		break;
	case CARET_KIND_rmw_implementation:
		lttng_ust_tracepoint(ros2_caret, rmw_implementation, v[0].s, ts);
		break;
	case CARET_KIND_construct_executor:
		lttng_ust_tracepoint(ros2_caret, construct_executor, (const void *)(uintptr_t)v[0].u, v[1].s, ts);
		break;
	case CARET_KIND_construct_static_executor:
		lttng_ust_tracepoint(ros2_caret, construct_static_executor, (const void *)(uintptr_t)v[0].u, (const void *)(uintptr_t)v[1].u, v[2].s, ts);
		break;
	case CARET_KIND_add_callback_group:
		lttng_ust_tracepoint(ros2_caret, add_callback_group, (const void *)(uintptr_t)v[0].u, (const void *)(uintptr_t)v[1].u, v[2].s, ts);
		break;
	case CARET_KIND_add_callback_group_static_executor:
		lttng_ust_tracepoint(ros2_caret, add_callback_group_static_executor, (const void *)(uintptr_t)v[0].u, (const void *)(uintptr_t)v[1].u, v[2].s, ts);
		break;
	case CARET_KIND_callback_group_add_timer:
		lttng_ust_tracepoint(ros2_caret, callback_group_add_timer, (const void *)(uintptr_t)v[0].u, (const void *)(uintptr_t)v[1].u, ts);
		break;
	case CARET_KIND_callback_group_add_subscription:
		lttng_ust_tracepoint(ros2_caret, callback_group_add_subscription, (const void *)(uintptr_t)v[0].u, (const void *)(uintptr_t)v[1].u, ts);
		break;
	case CARET_KIND_callback_group_add_service:
		lttng_ust_tracepoint(ros2_caret, callback_group_add_service, (const void *)(uintptr_t)v[0].u, (const void *)(uintptr_t)v[1].u, ts);
		break;
	case CARET_KIND_callback_group_add_client:
		lttng_ust_tracepoint(ros2_caret, callback_group_add_client, (const void *)(uintptr_t)v[0].u, (const void *)(uintptr_t)v[1].u, ts);
		break;
	case CARET_KIND_executor_entity_collector_to_executor:
		lttng_ust_tracepoint(ros2_caret, executor_entity_collector_to_executor, (const void *)(uintptr_t)v[0].u, (const void *)(uintptr_t)v[1].u, ts);
		break;
	case CARET_KIND_callback_group_to_executor_entity_collector:
		lttng_ust_tracepoint(ros2_caret, callback_group_to_executor_entity_collector, (const void *)(uintptr_t)v[0].u, (const void *)(uintptr_t)v[1].u, v[2].s, ts);
		break;
	default:
		break;
	}
}

static void tp_caret_init(int64_t clock_offset, const char *distribution)
{
	lttng_ust_tracepoint(ros2_caret, caret_init, clock_offset, distribution);
}

static void tp_dds_write(const void *pub, const void *msg, int64_t ts)
{
	lttng_ust_tracepoint(ros2_caret, dds_write, pub, msg, ts);
}

static void tp_bind(const void *addr, uint64_t stamp)
{
	lttng_ust_tracepoint(ros2_caret, dds_bind_addr_to_stamp, addr, stamp);
}

__attribute__((visibility("default")))
const struct caret_tp_api caret_tp_api_v1 = {
	.version = CARET_TP_API_VERSION,
	.enabled = tp_enabled,
	.emit_record = tp_emit_record,
	.caret_init = tp_caret_init,
	.dds_write = tp_dds_write,
	.dds_bind_addr_to_stamp = tp_bind,
};
