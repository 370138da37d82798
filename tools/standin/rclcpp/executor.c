/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The three executors and the two ways a callback group reaches one:
 * Executor::add_callback_group_to_map for the single/multi-threaded
 * executors, StaticExecutorEntitiesCollector::add_callback_group for the
 * static one (Humble layout, see CARET_SSTE_COLLECTOR_OFFSET).
 */
#include <string.h>

#include "tools/standin/rclcpp/objects.h"

static void init_head(void *self, enum standin_exec_kind kind,
	unsigned threads)
{
	struct standin_executor *x = self;

	memset(x, 0, sizeof(*x));
	x->u.h.kind = kind;
	x->u.h.threads = threads;
}

size_t standin_executor_size(void)
{
	return sizeof(struct standin_executor);
}

void standin_ste_ctor(void *self, const struct standin_executor_options *opts)
{
	(void)opts;
	init_head(self, STANDIN_EXEC_SINGLE, 1);
}

void standin_mte_ctor(void *self, const struct standin_executor_options *opts,
	size_t number_of_threads, bool yield_before_execute,
	int64_t next_exec_timeout_ns)
{
	(void)opts;
	(void)yield_before_execute;
	(void)next_exec_timeout_ns;
	/* rclcpp turns 0 into hardware concurrency; two keeps tests small. */
	init_head(self, STANDIN_EXEC_MULTI,
		number_of_threads ? (unsigned)number_of_threads : 2);
}

void standin_sste_ctor(void *self,
	const struct standin_executor_options *opts)
{
	struct standin_executor *x = self;

	(void)opts;
	init_head(self, STANDIN_EXEC_STATIC, 1);
	standin_make_shared(sizeof(struct standin_collector), &x->collector);
}

void standin_exec_add_callback_group_to_map(void *self,
	struct standin_sp *group, struct standin_sp *node, void *map,
	bool notify)
{
	(void)self;
	(void)notify;
	standin_group_map_add(map, group, node);
}

bool standin_seec_add_callback_group(void *self, struct standin_sp *group,
	struct standin_sp *node, void *map)
{
	(void)self;
	standin_group_map_add(map, group, node);
	return true;
}

void standin_sste_add_callback_group(void *self, struct standin_sp *group,
	struct standin_sp *node, bool notify)
{
	void *collector = standin_executor_collector(self);

	(void)notify;
	standin_seec_add_callback_group(collector, group, node,
		standin_collector_group_map(collector));
}

void *standin_executor_group_map(void *executor)
{
	return &((struct standin_executor *)executor)->u.h.map;
}

void *standin_executor_collector(void *executor)
{
	return ((struct standin_executor *)executor)->collector.ptr;
}

void *standin_collector_group_map(void *collector)
{
	return &((struct standin_collector *)collector)->map;
}

unsigned standin_executor_threads(const void *executor)
{
	return ((const struct standin_executor *)executor)->u.h.threads;
}

size_t standin_executor_groups(void *executor, void **groups, size_t cap)
{
	struct standin_executor *x = executor;
	struct standin_group_map *m = &x->u.h.map;

	if (x->u.h.kind == STANDIN_EXEC_STATIC && x->collector.ptr)
		m = standin_collector_group_map(x->collector.ptr);
	for (size_t i = 0; i < m->groups.n && i < cap; i++)
		groups[i] = m->groups.v[i];
	return m->groups.n;
}
