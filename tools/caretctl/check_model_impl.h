/* SPDX-License-Identifier: Apache-2.0 */
/* `caretctl check`'s model, for check_model.c and check_init.c only: the
 * report being filled and the indexes it is filled through. */
#ifndef CARETCTL_CHECK_MODEL_IMPL_H
#define CARETCTL_CHECK_MODEL_IMPL_H

#include <babeltrace2/babeltrace.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "check.h"
#include "check_class.h"
#include "check_discards.h"
#include "check_links.h"
#include "check_map.h"
#include "check_summary.h"

struct tid_state {
	bool pending; /* a dds_write not yet followed by its binding */
	size_t proc;
};

struct binding {
	uint64_t stamp;
	size_t proc;
};

struct check_model {
	struct check_report r;
	size_t procs_cap, nodes_cap, topics_cap;
	struct evclass *cls;
	size_t ncls, cls_cap;
	struct check_map cls_by_ptr, proc_by_vpid, tids_idx, exact, variants, takes, handles;
	struct check_links links;
	struct check_discards discards;
	struct check_summary sum;
	struct tid_state *tids;
	size_t ntids, tids_cap;
	struct binding *binds;
	size_t nbinds, binds_cap;
	int64_t last_vpid;
	size_t last_proc;
	bool have_last, have_first;
};

/* An init record of process p (index pi) at event time ts: counted, its
 * copies and variants told apart, its relations, node and topic learnt.
 * 0 or -ENOMEM. */
int check_init_record(struct check_model *m, const struct evclass *c, struct check_proc *p,
		      size_t pi, const bt_field *pl, int64_t ts);

#endif
