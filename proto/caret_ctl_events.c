/* SPDX-License-Identifier: Apache-2.0 */
#include <stddef.h>

#include "proto/caret_ctl_events.h"

static const char *const events_full[] = {
	"ros2:*",
	"ros2_caret:*",
	NULL,
};

static const char *const events_light[] = {
	"ros2_caret:*",
	"ros2:callback_start",
	"ros2:callback_end",
	"ros2:rclcpp_publish",
	"ros2:rclcpp_intra_publish",
	"ros2:rmw_take",
	"ros2:dispatch_subscription_callback",
	"ros2:dispatch_intra_process_subscription_callback",
	"ros2:rclcpp_ring_buffer_enqueue",
	"ros2:rclcpp_ring_buffer_dequeue",
	"ros2:message_construct",
	NULL,
};

const char *const *caret_ctl_events(bool light)
{
	return light ? events_light : events_full;
}

/* daemon/lttng.c adds these, in this order, with their LTTng types. */
const char *const caret_ctl_contexts[] = { "vpid", "vtid", "procname", NULL };
