/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `caretctl check`'s init records (check_init.c): each counted once per
 * process and kind, a copy and the same record from both providers told
 * apart, their relations, nodes and topics handed on. Its own indexes are
 * its own; the report, summaries and relations it fills are the model's,
 * lent at check_inits_init (check_model.c is its only user).
 */
#ifndef CARETCTL_CHECK_INIT_H
#define CARETCTL_CHECK_INIT_H

#include <babeltrace2/babeltrace.h>
#include <stddef.h>
#include <stdint.h>

#include "check.h"
#include "check_class.h"
#include "check_links.h"
#include "check_map.h"
#include "check_summary.h"

struct check_inits {
	struct check_report *r; /* lent: nodes and topics are added to it */
	struct check_summary *sum;
	struct check_links *links;
	size_t nodes_cap, topics_cap;
	/* a record by its content and time (copies), by its content alone
	 * (provider variants), an object by its handle (nodes, topics once) */
	struct check_map exact, variants, handles;
};

void check_inits_init(struct check_inits *in, struct check_report *r, struct check_summary *sum,
		      struct check_links *links);
/* Its indexes; what was lent stays its owner's. */
void check_inits_free(struct check_inits *in);
/* An init record of process p (index pi) at event time ts. 0 or -ENOMEM. */
int check_init_record(struct check_inits *in, const struct evclass *c, struct check_proc *p,
		      size_t pi, const bt_field *pl, int64_t ts);

#endif
