/* SPDX-License-Identifier: Apache-2.0 */
/* `caretctl check`'s event classes (check_class.h): caret_analyze's init
 * kinds, and each class's role and fields. */
#include <string.h>

#include "check_class.h"
#include "check_field.h"

/* caret_analyze's init events (infra/lttng/lttng.py,
 * Lttng._prioritized_init_events), without their provider. */
static const char *const init_kinds[] = {
	"rcl_init", "rcl_node_init", "rcl_publisher_init", "rcl_subscription_init",
	"rclcpp_subscription_init", "rclcpp_subscription_callback_added",
	"rcl_service_init", "rclcpp_service_callback_added", "rcl_client_init",
	"rcl_timer_init", "rclcpp_timer_callback_added", "rclcpp_timer_link_node",
	"rclcpp_callback_register", "rcl_lifecycle_state_machine_init",
	"rclcpp_construct_ring_buffer", "rclcpp_buffer_to_ipb",
	"rclcpp_ipb_to_subscription", "rmw_implementation", "construct_executor",
	"construct_static_executor", "add_callback_group",
	"add_callback_group_static_executor", "callback_group_add_timer",
	"callback_group_add_subscription", "callback_group_add_service",
	"callback_group_add_client", "executor_entity_collector_to_executor",
	"callback_group_to_executor_entity_collector",
	"agnocast_init", "agnocast_node_init", "agnocast_publisher_init",
	"agnocast_subscription_init", "agnocast_timer_init", "agnocast_add_callback_group",
	"agnocast_construct_executor",
};
#define NKINDS (sizeof(init_kinds) / sizeof(init_kinds[0]))
_Static_assert(NKINDS <= CHECK_MAX_KINDS, "CHECK_MAX_KINDS too small");

const char *check_kind_name(size_t i)
{
	return i < NKINDS ? init_kinds[i] : NULL;
}

const char *check_ctx_name(size_t i)
{
	static const char *const names[CHECK_NCTX] = { "vpid", "vtid", "procname" };
	return i < CHECK_NCTX ? names[i] : NULL;
}

void check_class_classify(struct evclass *c, const bt_event_class *ec)
{
	const bt_stream_class *sc = bt_event_class_borrow_stream_class_const(ec);
	const bt_field_class *ctx = bt_stream_class_borrow_event_common_context_field_class_const(sc);
	const bt_field_class *pl = bt_event_class_borrow_payload_field_class_const(ec);
	const char *kind = NULL;
	c->kind = -1;
	c->role = R_OTHER;
	if (strncmp(c->name, "ros2_caret:", 11) == 0) {
		c->caret = true;
		kind = c->name + 11;
	} else if (strncmp(c->name, "ros2:", 5) == 0) {
		kind = c->name + 5;
	}
	if (kind) {
		c->role = R_RUNTIME;
		for (size_t i = 0; i < NKINDS; i++)
			if (strcmp(kind, init_kinds[i]) == 0) {
				c->kind = (int)i;
				c->role = R_INIT;
			}
		if (c->caret && strcmp(kind, "caret_init") == 0)
			c->role = R_CARET_INIT;
		else if (c->caret && strcmp(kind, "dds_write") == 0)
			c->role = R_DDS_WRITE;
		else if (c->caret && strcmp(kind, "dds_bind_addr_to_stamp") == 0)
			c->role = R_BIND;
		else if (strcmp(kind, "rmw_take") == 0)
			c->role = R_TAKE;
		/* record -c's sim time, from caret-simclock (or CARET's
		 * clock_recorder), a process with no ROS entity: the analyzer
		 * takes it from any vpid, caret_init or not (processor.py
		 * _handle_sim_time has no _is_valid_data) */
		else if (c->caret && strcmp(kind, "sim_time") == 0)
			c->role = R_OTHER;
		else if (c->caret && strcmp(kind, "caret_replay_begin") == 0)
			c->role = R_PASS_BEGIN;
		else if (c->caret && strcmp(kind, "caret_replay_end") == 0)
			c->role = R_PASS_END;
	}
	c->c_vpid = check_member(ctx, "vpid");
	c->c_vtid = check_member(ctx, "vtid");
	c->c_procname = check_member(ctx, "procname");
	c->f_init_ts = check_member(pl, "init_timestamp");
	c->f_addr = check_member(pl, "addr");
	c->f_stamp = check_member(pl, "source_stamp");
	c->f_src_ts = check_member(pl, "source_timestamp");
	c->f_taken = check_member(pl, "taken");
	c->f_node_name = check_member(pl, "node_name");
	c->f_ns = check_member(pl, "namespace");
	c->f_topic = check_member(pl, "topic_name");
	c->f_pass = check_member(pl, "pass");
	c->f_records = check_member(pl, "records");
	if (c->kind >= 0 && strcmp(init_kinds[c->kind], "rcl_node_init") == 0)
		c->f_handle = check_member(pl, "node_handle");
	else if (c->kind >= 0 && strcmp(init_kinds[c->kind], "rcl_publisher_init") == 0)
		c->f_handle = check_member(pl, "publisher_handle");
	else if (c->kind >= 0 && strcmp(init_kinds[c->kind], "rcl_subscription_init") == 0)
		c->f_handle = check_member(pl, "subscription_handle");
	else
		c->f_handle = -1;
	for (int i = 0; i < CHECK_LINK_OPS; i++) {
		const char *f = c->kind >= 0 ? check_link_field(init_kinds[c->kind], i) : NULL;
		c->link_f[i] = f ? check_member(pl, f) : -1;
	}
	check_summary_class(&c->sum, c->name, pl);
}
