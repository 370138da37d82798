/* SPDX-License-Identifier: Apache-2.0 */
/* The rclcpp entry points the agent hooks, with rclcpp's mangled names and
 * calling conventions (proto/rclcpp_abi.h), calling each other across
 * translation units as librclcpp.so does (through the PLT). Not a layout
 * model: the collector's position is this fake's own and the agent must
 * find it without knowing it. */
#include <stdbool.h>
#include <stddef.h>

#include "tests/local/ls_rclcpp.h"

/* Jazzy: Executor(const ExecutorOptions &) builds its member collector_. */
void fake_executor_c2(struct fake_executor *self, const void *opts)
{
	(void)opts;
	struct sp notify = { 0, 0 };
	self->tag = 1;
	fake_eec_c1(&self->collector, &notify);
}

/* StaticSingleThreadedExecutor(const ExecutorOptions &): Jazzy calls the
 * base constructor; Humble makes its collector with an inline
 * constructor (nothing hookable). */
void fake_sste_c1(struct fake_executor *self, const void *opts)
{
	if (fake_flavour == FAKE_JAZZY)
		fake_executor_c2(self, opts);
	else
		self->humble_collector = &self->humble_collector_obj;
}

/* Humble: StaticSingleThreadedExecutor::add_callback_group hands the group
 * to its collector. */
void fake_sste_add_cbg(struct fake_executor *self, struct sp *group, struct sp *node,
		       bool notify)
{
	(void)notify;
	fake_seec_add(self->humble_collector, group, node, NULL);
}
