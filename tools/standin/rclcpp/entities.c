/* SPDX-License-Identifier: Apache-2.0 */
/*
 * NodeBase and the four executable entity bases. The get_X_handle getters
 * follow the by-value shared_ptr return convention: fill the caller's
 * result slot and hand over one reference.
 */
#include "tools/standin/rclcpp/objects.h"

struct standin_sp standin_node_base_new(const void *rcl_node_handle)
{
	struct standin_sp sp;
	struct standin_node_base *n = standin_make_shared(sizeof(*n), &sp);

	if (n)
		n->rcl_node_handle = rcl_node_handle;
	return sp;
}

struct standin_sp standin_entity_new(enum standin_entity_kind kind,
	const void *rcl_handle, void *user)
{
	struct standin_sp sp;
	struct standin_entity *e = standin_make_shared(sizeof(*e), &sp);

	if (e) {
		e->kind = kind;
		e->rcl_handle = rcl_handle;
		e->user = user;
		standin_ctrl_init(&e->handle_ctrl);
	}
	return sp;
}

void *standin_entity_user(const void *entity)
{
	return ((const struct standin_entity *)entity)->user;
}

static struct standin_sp *get_handle(struct standin_sp *result, void *self)
{
	struct standin_entity *e = self;

	standin_ctrl_add_use(&e->handle_ctrl);
	result->ptr = (void *)e->rcl_handle;
	result->ctrl = &e->handle_ctrl;
	return result;
}

struct standin_sp *standin_timer_get_handle(struct standin_sp *result,
	void *self)
{
	return get_handle(result, self);
}

struct standin_sp *standin_sub_get_handle(struct standin_sp *result,
	void *self)
{
	return get_handle(result, self);
}

struct standin_sp *standin_srv_get_handle(struct standin_sp *result,
	void *self)
{
	return get_handle(result, self);
}

struct standin_sp *standin_cli_get_handle(struct standin_sp *result,
	void *self)
{
	return get_handle(result, self);
}

const char *rmw_get_implementation_identifier(void)
{
	return "rmw_cyclonedds_cpp";
}
