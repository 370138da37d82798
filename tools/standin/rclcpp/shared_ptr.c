/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Control blocks shaped like libstdc++'s _Sp_counted_base. Objects are
 * never destroyed, so the virtual slots are harmless no-ops: an agent that
 * drops the last reference through the real libstdc++ code path must not
 * crash the workload.
 */
#include <stdlib.h>

#include "tools/standin/rclcpp/objects.h"

struct standin_ctrl_vtable {
	void (*dtor)(struct standin_ctrl *);
	void (*deleting_dtor)(struct standin_ctrl *);
	void (*dispose)(struct standin_ctrl *);
	void (*destroy)(struct standin_ctrl *);
	void *(*get_deleter)(struct standin_ctrl *, const void *type_info);
};

static void ctrl_noop(struct standin_ctrl *c)
{
	(void)c;
}

static void *ctrl_no_deleter(struct standin_ctrl *c, const void *type_info)
{
	(void)c;
	(void)type_info;
	return NULL;
}

static const struct standin_ctrl_vtable ctrl_vtable = {
	ctrl_noop, ctrl_noop, ctrl_noop, ctrl_noop, ctrl_no_deleter,
};

void standin_ctrl_init(struct standin_ctrl *c)
{
	c->vptr = &ctrl_vtable;
	c->use_count = 1;
	/* libstdc++ keeps one weak count on behalf of all strong owners. */
	c->weak_count = 1;
}

void standin_ctrl_add_use(struct standin_ctrl *c)
{
	__atomic_add_fetch(&c->use_count, 1, __ATOMIC_ACQ_REL);
}

void standin_ctrl_add_weak(struct standin_ctrl *c)
{
	__atomic_add_fetch(&c->weak_count, 1, __ATOMIC_ACQ_REL);
}

struct inplace {
	struct standin_ctrl ctrl;
	_Alignas(16) unsigned char obj[];
};

void *standin_make_shared(size_t size, struct standin_sp *out)
{
	struct inplace *p = calloc(1, sizeof(*p) + size);

	out->ptr = NULL;
	out->ctrl = NULL;
	if (!p)
		return NULL;
	standin_ctrl_init(&p->ctrl);
	out->ptr = p->obj;
	out->ctrl = &p->ctrl;
	return p->obj;
}

struct standin_sp standin_sp_copy(const struct standin_sp *sp)
{
	if (sp->ctrl)
		standin_ctrl_add_use(sp->ctrl);
	return *sp;
}

void standin_sp_release(struct standin_sp *sp)
{
	if (sp->ctrl)
		__atomic_sub_fetch(&sp->ctrl->use_count, 1, __ATOMIC_ACQ_REL);
	sp->ptr = NULL;
	sp->ctrl = NULL;
}
