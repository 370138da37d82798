/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Distribution detection. Facts (ros2/ros2_tracing tracetools.h and
 * ros2/rclcpp, branches humble / iron / jazzy):
 *   - tracetools exports ros_trace_enabled_<event> since Iron (the
 *     _DECLARE_TRACEPOINT macro declares ros_trace_, ros_trace_enabled_ and
 *     ros_trace_do_); Humble's declares ros_trace_<event> only.
 *   - Iron and Jazzy declare the same events; only rmw_publish changed:
 *     Iron (const void *message), Jazzy (rmw_publisher_handle, message,
 *     int64_t timestamp). Symbols cannot tell them apart in tracetools.
 *   - rclcpp: Executor::add_callback_group_to_map exists up to Iron and is
 *     gone in Jazzy, where ExecutorEntitiesCollector (present since Iron)
 *     collects the groups.
 * $ROS_DISTRO only chooses between families the symbols left open.
 */
#include <stdio.h>
#include <string.h>

#include "agent/distro.h"
#include "proto/rclcpp_abi.h"

const char *caret_family_name(enum caret_family f)
{
	switch (f) {
	case CARET_FAMILY_HUMBLE:
		return "humble";
	case CARET_FAMILY_IRON:
		return "iron";
	case CARET_FAMILY_JAZZY:
		return "jazzy";
	default:
		return "";
	}
}

/* The family a $ROS_DISTRO value names (first letters are alphabetical
 * since Ardent, which is what caret_analyze compares too). */
static enum caret_family hint_family(const char *hint)
{
	if (!hint || hint[0] < 'a' || hint[0] > 'z')
		return CARET_FAMILY_UNKNOWN;
	if (hint[0] >= 'j')
		return CARET_FAMILY_JAZZY;
	if (strcmp(hint, "iron") == 0)
		return CARET_FAMILY_IRON;
	if (hint[0] < 'i')
		return CARET_FAMILY_HUMBLE;
	return CARET_FAMILY_UNKNOWN;
}

/* caret_analyze indexes the first letter of caret_init's distribution
 * (event_counter.py: distribution[0] >= 'i') and fails on "", so a name is
 * always written; the caller warns that it is a default. */
static void name_or_default(struct caret_distro *out)
{
	if (out->name[0] == '\0') {
		snprintf(out->name, sizeof(out->name), "%s", CARET_DISTRO_DEFAULT);
		out->defaulted = true;
	}
}

void caret_distro_detect(bool (*has)(const char *sym), const char *hint,
			 struct caret_distro *out)
{
	bool tt = has("ros_trace_rcl_init");
	bool tt_enabled = has("ros_trace_enabled_rcl_init");
	bool rc_map = has(CARET_SYM_EXEC_ADD_CBG);
	bool rc_eec = has(CARET_SYM_EEC_ADD_CBG);
	enum caret_family h = hint_family(hint);
	enum caret_family f = CARET_FAMILY_UNKNOWN;
	enum caret_distro_source src = CARET_DISTRO_SYMBOLS;

	out->defaulted = false;

	if (tt && !tt_enabled) {
		f = CARET_FAMILY_HUMBLE;
	} else if (rc_eec && !rc_map) {
		f = CARET_FAMILY_JAZZY;
	} else if (rc_map && tt_enabled) {
		f = CARET_FAMILY_IRON;
	} else {
		/* Open: Iron or Jazzy (tracetools without rclcpp, e.g. rclpy),
		 * Humble or Iron (rclcpp without tracetools found), or nothing. */
		bool iron_or_jazzy = tt_enabled;
		bool humble_or_iron = rc_map;
		src = CARET_DISTRO_HINT;
		if (iron_or_jazzy && (h == CARET_FAMILY_IRON || h == CARET_FAMILY_JAZZY))
			f = h;
		else if (humble_or_iron && (h == CARET_FAMILY_HUMBLE || h == CARET_FAMILY_IRON))
			f = h;
		else if (!iron_or_jazzy && !humble_or_iron && !tt && !rc_eec)
			f = h; /* nothing loaded says anything */
		if (f == CARET_FAMILY_UNKNOWN)
			src = CARET_DISTRO_NONE;
		/* rmw_publish has one argument in Humble and Iron alike. */
		if (humble_or_iron && f == CARET_FAMILY_UNKNOWN) {
			out->family = f;
			out->source = src;
			out->rmw_publish_args = 1;
			snprintf(out->name, sizeof(out->name), "%s", hint ? hint : "");
			name_or_default(out);
			return;
		}
	}
	out->family = f;
	out->source = src;
	out->rmw_publish_args = f == CARET_FAMILY_JAZZY ? 3 : (f == CARET_FAMILY_UNKNOWN ? 0 : 1);
	/* Only a hint was seen: the signature stays unknown (never guess
	 * which registers hold the message). */
	if (src == CARET_DISTRO_HINT && !tt && !rc_map && !rc_eec && !tt_enabled)
		out->rmw_publish_args = 0;
	if (hint && *hint && hint_family(hint) == f)
		snprintf(out->name, sizeof(out->name), "%s", hint);
	else if (f != CARET_FAMILY_UNKNOWN)
		snprintf(out->name, sizeof(out->name), "%s", caret_family_name(f));
	else
		snprintf(out->name, sizeof(out->name), "%s", hint ? hint : "");
	name_or_default(out);
}
