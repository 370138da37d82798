/* SPDX-License-Identifier: Apache-2.0 */
#ifndef LS_RCLCPP_H
#define LS_RCLCPP_H
#include <stdbool.h>

#include "proto/rclcpp_abi.h"

struct sp {
	void *ptr, *ctrl;
};

struct fake_group {
	int type; /* rclcpp::CallbackGroupType */
};

struct fake_executor {
	long tag;
	char before[200];
	char collector[64];
	void *humble_collector;
	char humble_collector_obj[64];
};

enum fake_flavour { FAKE_HUMBLE, FAKE_JAZZY };
extern enum fake_flavour fake_flavour;
extern int fake_eec_constructed, fake_eec_added, fake_seec_added;

void fake_executor_c2(struct fake_executor *self, const void *opts) __asm__(CARET_SYM_EXECUTOR_C2);
void fake_sste_c1(struct fake_executor *self, const void *opts) __asm__(CARET_SYM_SSTE_CTOR);
void fake_sste_add_cbg(struct fake_executor *self, struct sp *group, struct sp *node, bool notify)
	__asm__(CARET_SYM_SSTE_ADD_CBG);
void fake_eec_c1(void *self, struct sp *notify) __asm__(CARET_SYM_EEC_CTOR_C1);
void fake_eec_add(void *self, struct sp *group, void *collection) __asm__(CARET_SYM_EEC_ADD_CBG);
bool fake_seec_add(void *self, struct sp *group, struct sp *node, void *map)
	__asm__(CARET_SYM_SEEC_ADD_CBG);
const int *fake_cbg_type(const struct fake_group *g) __asm__(CARET_SYM_CBG_TYPE);
#endif
