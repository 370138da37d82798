/* SPDX-License-Identifier: Apache-2.0 */
/* The callee side of ls_rclcpp_a.c. */
#include "tests/local/ls_rclcpp.h"

enum fake_flavour fake_flavour;
int fake_eec_constructed, fake_eec_added, fake_seec_added;

void fake_eec_c1(void *self, struct sp *notify)
{
	(void)self;
	(void)notify;
	fake_eec_constructed++;
}

void fake_eec_add(void *self, struct sp *group, void *collection)
{
	(void)self;
	(void)group;
	(void)collection;
	fake_eec_added++;
}

bool fake_seec_add(void *self, struct sp *group, struct sp *node, void *map)
{
	(void)self;
	(void)group;
	(void)node;
	(void)map;
	fake_seec_added++;
	return true;
}

/* const CallbackGroupType & CallbackGroup::type() const */
const int *fake_cbg_type(const struct fake_group *g)
{
	return &g->type;
}
