/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Executor construction and Executor::add_node, done through the rclcpp
 * symbols so a preloaded agent sees both (add_node reaches
 * add_callback_group_to_map for ordinary executors and the entities
 * collector for the static one).
 */
#include "tools/standin/workload/counts.h"
#include "tools/standin/workload/executor.h"
#include "tools/standin/workload/util.h"

static void add_group(struct wl_system *sys, struct wl_node *n)
{
	struct standin_sp group = standin_sp_copy(&n->group);
	struct standin_sp node = standin_sp_copy(&n->base);

	if (sys->opt->executor == WL_EXEC_STATIC) {
		wl_count(WL_C_add_callback_group_static_executor);
		standin_sste_add_callback_group(sys->executor, &group, &node, true);
	} else {
		wl_count(WL_C_add_callback_group);
		standin_exec_add_callback_group_to_map(sys->executor, &group,
			&node, standin_executor_group_map(sys->executor), true);
	}
	standin_sp_release(&group);
	standin_sp_release(&node);
}

int wl_executor_setup(struct wl_system *sys)
{
	struct standin_executor_options opts = { .max_initial_callbacks = 0 };

	sys->executor = wl_xcalloc(1, standin_executor_size());
	switch (sys->opt->executor) {
	case WL_EXEC_SINGLE:
		wl_count(WL_C_construct_executor);
		standin_ste_ctor(sys->executor, &opts);
		break;
	case WL_EXEC_MULTI:
		/* rclcpp defaults: 0 threads (= auto), no yield, no timeout. */
		wl_count(WL_C_construct_executor);
		standin_mte_ctor(sys->executor, &opts, 0, false, -1);
		break;
	case WL_EXEC_STATIC:
		wl_count(WL_C_construct_static_executor);
		standin_sste_ctor(sys->executor, &opts);
		if (!standin_executor_collector(sys->executor))
			return -1;
		break;
	}
	for (unsigned j = 0; j < sys->opt->nodes; j++)
		add_group(sys, sys->nodes[j]);
	return 0;
}
