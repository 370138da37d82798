/* SPDX-License-Identifier: Apache-2.0 */
/* The containers rclcpp keeps its object graph in, reduced to arrays. */
#include <stdlib.h>

#include "tools/standin/rclcpp/objects.h"

int standin_list_push(struct standin_list *l, void *p)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 8;
		void **v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = p;
	return 0;
}

/*
 * The real map holds weak_ptrs, hence the weak counts; adding a group
 * twice is a no-op rather than the exception rclcpp throws, since a C
 * caller could not catch it.
 */
void standin_group_map_add(struct standin_group_map *m,
	const struct standin_sp *group, const struct standin_sp *node)
{
	for (size_t i = 0; i < m->groups.n; i++)
		if (m->groups.v[i] == group->ptr)
			return;
	if (standin_list_push(&m->groups, group->ptr) < 0)
		return;
	if (standin_list_push(&m->nodes, node->ptr) < 0) {
		m->groups.n--;
		return;
	}
	if (group->ctrl)
		standin_ctrl_add_weak(group->ctrl);
	if (node->ctrl)
		standin_ctrl_add_weak(node->ctrl);
}
