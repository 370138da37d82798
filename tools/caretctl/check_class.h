/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `caretctl check`'s event classes: what each babeltrace2 event class is
 * to the model (an init record of which kind, from which provider; a
 * runtime event the analyzer joins; our replay marks) and where its
 * fields are, found once per class (check_class.c).
 */
#ifndef CARETCTL_CHECK_CLASS_H
#define CARETCTL_CHECK_CLASS_H

#include <babeltrace2/babeltrace.h>
#include <stdbool.h>
#include <stdint.h>

#include "check.h"
#include "check_links.h"
#include "check_summary.h"

enum role {
	R_OTHER,	/* not a ROS 2 event: counted, nothing else */
	R_RUNTIME,
	R_INIT,
	R_CARET_INIT,
	R_DDS_WRITE,
	R_BIND,
	R_TAKE,
	R_PASS_BEGIN,
	R_PASS_END,
};

struct evclass {
	const bt_event_class *key;
	char *name;
	enum role role;
	int kind;	/* init kind index, or -1 */
	bool caret;	/* ros2_caret provider */
	int c_vpid, c_vtid, c_procname;
	int f_init_ts, f_addr, f_stamp, f_src_ts, f_taken;
	int f_handle, f_node_name, f_ns, f_topic, f_pass, f_records;
	int link_f[CHECK_LINK_OPS];
	struct check_sum_class sum;
	uint64_t count;
};

/* c->name set: the rest of *c filled from ec. */
void check_class_classify(struct evclass *c, const bt_event_class *ec);

#endif
