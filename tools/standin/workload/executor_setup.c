/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Executor construction and Executor::add_node, as a node's main() does:
 * the constructor through its mangled symbol, add_node through the
 * executor's vtable. Inside librclcpp, add_node reaches
 *   humble: Executor::add_callback_group_to_map (single, multi) or
 *           StaticExecutorEntitiesCollector::add_callback_group (static);
 *   jazzy:  nothing yet: the node is queued, and its groups go through
 *           ExecutorEntitiesCollector::add_callback_group_to_collection
 *           when the executor first collects its entities, which spinning
 *           does first and setup does here (so --duration 0 has them too).
 */
#include "tools/standin/workload/counts.h"
#include "tools/standin/workload/executor.h"
#include "tools/standin/workload/util.h"

static const enum standin_exec_kind exec_kind[] = {
	[WL_EXEC_SINGLE] = STANDIN_EXEC_SINGLE,
	[WL_EXEC_MULTI] = STANDIN_EXEC_MULTI,
	[WL_EXEC_STATIC] = STANDIN_EXEC_STATIC,
};

/* What a tracing agent is expected to record per node. */
static void count_groups(const struct wl_system *sys)
{
#ifdef STANDIN_HUMBLE
	enum wl_count c = sys->opt->executor == WL_EXEC_STATIC ?
		WL_C_add_callback_group_static_executor : WL_C_add_callback_group;
#else
	enum wl_count c = WL_C_callback_group_to_executor_entity_collector;
#endif
	for (unsigned j = 0; j < sys->opt->nodes; j++) {
		wl_count(c);	/* default group */
		wl_count(c);	/* reentrant group */
	}
}

int wl_executor_setup(struct wl_system *sys)
{
	void *opts = wl_xcalloc(1, standin_executor_options_size());
	enum standin_exec_kind kind = exec_kind[sys->opt->executor];

	standin_executor_options_init(opts);
	sys->executor = wl_xcalloc(1, standin_executor_size(kind));
#ifndef STANDIN_HUMBLE
	/* Every jazzy executor runs the base constructor. */
	wl_count(WL_C_executor_entity_collector_to_executor);
#endif
	switch (sys->opt->executor) {
	case WL_EXEC_SINGLE:
		wl_count(WL_C_construct_executor);
		standin_ste_ctor(sys->executor, opts);
		break;
	case WL_EXEC_MULTI:
		/* rclcpp defaults: 0 threads (= auto), no yield, no timeout. */
		wl_count(WL_C_construct_executor);
		standin_mte_ctor(sys->executor, opts, 0, false, -1);
		break;
	case WL_EXEC_STATIC:
		wl_count(WL_C_construct_static_executor);
		standin_sste_ctor(sys->executor, opts);
		break;
	}
	for (unsigned j = 0; j < sys->opt->nodes; j++)
		standin_executor_add_node(sys->executor, &sys->nodes[j]->base);
	count_groups(sys);
	standin_executor_collect(sys->executor);
	return standin_abi_refs() > 0 ? 0 : -1;
}

/* For tests: which groups exist, with their types, and which executor
 * should hold them. */
void wl_print_groups(const struct wl_system *sys, FILE *f)
{
	fprintf(f, "executor %p groups", sys->executor);
	for (unsigned j = 0; j < sys->opt->nodes; j++)
		fprintf(f, " %p:mutually_exclusive %p:reentrant",
			sys->nodes[j]->group.ptr, sys->nodes[j]->reentrant.ptr);
	fputc('\n', f);
	fflush(f);
}
