/* SPDX-License-Identifier: Apache-2.0 */
#include <stddef.h>

#include "proto/caret_ctl_evlist.h"

/* tier4/ros2caret ros2caret/verb/record.py (CARET 0.7, without --light),
 * verbatim: every provider starting with "ros" (ros2, ros2_caret) and
 * agnocast's (issue 33 L2). */
static const char *const events_full[] = {
	"ros*",
	"agnocast*",
	NULL,
};

/* tier4/ros2caret ros2caret/verb/record.py (`--light`), verbatim; the
 * ros2:rcl_publish rule is appended there when ROS_DISTRO >= 'i'. Plus
 * our replay-pass markers, which caret_analyze never reads and `caretctl
 * check` needs to tell a pass cut short (agent/tp/caret_tp.h). */
#define CARET_LIGHT_EVENTS                                                   \
	"ros2:*callback*", "ros2_caret:*callback*", "ros2:dispatch*",         \
	"ros2_caret:dispatch*", "ros2:rclcpp*", "ros2_caret:rclcpp*",         \
	"ros2_caret:rmw*", "ros2:rmw_take", "*callback_group*",               \
	"ros2_caret:*executor", "ros2_caret:dds_bind*", "ros2:rcl_*init",     \
	"ros2_caret:rcl_*init", "ros2_caret:caret_init", "ros2_caret:sim_time", \
	"ros2_caret:caret_replay*",                                           \
	"ros2:message_construct", "agnocast:agnocast*", "ros2_caret:agnocast*"

static const char *const events_light[] = { CARET_LIGHT_EVENTS, NULL };
static const char *const events_light_iron[] = { CARET_LIGHT_EVENTS, "ros2:rcl_publish", NULL };

const char *const *caret_ctl_evlist(bool light, bool rcl_publish)
{
	if (!light)
		return events_full;
	return rcl_publish ? events_light_iron : events_light;
}

/* lib/lttng/session.c adds these, in this order, with their LTTng types. */
const char *const caret_ctl_contexts[] = { "vpid", "vtid", "procname", NULL };
