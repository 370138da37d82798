/* SPDX-License-Identifier: Apache-2.0 */
/* rclcpp::CallbackGroup: typed bag of weak references to entities. */
#include "tools/standin/rclcpp/objects.h"

struct standin_sp standin_callback_group_new(enum caret_cbg_type type)
{
	struct standin_sp sp;
	struct standin_callback_group *g = standin_make_shared(sizeof(*g), &sp);

	if (g)
		g->type = type;
	return sp;
}

/* Returns `const CallbackGroupType &` as rclcpp does: the member's address. */
const int *standin_cbg_type(const void *self)
{
	return (const int *)&((const struct standin_callback_group *)self)->type;
}

static void add_entity(void *self, enum standin_entity_kind kind,
	struct standin_sp *sp)
{
	struct standin_callback_group *g = self;

	if (!sp->ptr || standin_list_push(&g->entities[kind], sp->ptr) < 0)
		return;
	if (sp->ctrl)
		standin_ctrl_add_weak(sp->ctrl);
}

void standin_cbg_add_timer(void *self, struct standin_sp *timer)
{
	add_entity(self, STANDIN_TIMER, timer);
}

void standin_cbg_add_subscription(void *self, struct standin_sp *sub)
{
	add_entity(self, STANDIN_SUBSCRIPTION, sub);
}

void standin_cbg_add_service(void *self, struct standin_sp *srv)
{
	add_entity(self, STANDIN_SERVICE, srv);
}

void standin_cbg_add_client(void *self, struct standin_sp *cli)
{
	add_entity(self, STANDIN_CLIENT, cli);
}

size_t standin_group_entities(const void *group,
	enum standin_entity_kind kind, void **entities, size_t cap)
{
	const struct standin_list *l =
		&((const struct standin_callback_group *)group)->entities[kind];

	for (size_t i = 0; i < l->n && i < cap; i++)
		entities[i] = l->v[i];
	return l->n;
}
