/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The counts of ros2caret's summary verbs (`ros2 caret node_summary`,
 * `topic_summary`, `trace_point_summary`): caret_analyze's EventCounter
 * (infra/lttng/event_counter.py) on the events check_model.c reads. Every
 * trace point caret_analyze knows is counted under caret_analyze's name
 * (an init record under its ros2: name, from either provider, once per
 * record: the analyzer drops copies); a runtime event counts only once its
 * process emitted caret_init, when the trace has any (processor.py,
 * _is_valid_data). An event is given to a node and a topic through its
 * callback, publisher handle, subscription handle or rmw subscription
 * handle, as the analyzer joins them; the others have no node ("-") and
 * are left out of the node and topic counts, as ros2caret's summary.py
 * leaves them out.
 */
#ifndef CARETCTL_CHECK_SUMMARY_H
#define CARETCTL_CHECK_SUMMARY_H

#include <babeltrace2/babeltrace.h>
#include <stdbool.h>
#include <stdint.h>

#include "check.h"
#include "check_map.h"

enum { CHECK_SUM_FIELDS = 4 };

/* What an event class is to the summary (filled once per class). */
struct check_sum_class {
	int tp;	  /* index in caret_analyze's trace point list, -1: not counted */
	int key;  /* the payload field the event is joined by, -1: none */
	int f[CHECK_SUM_FIELDS]; /* the fields its definitions read, -1: absent */
};

struct check_sum_entry {
	int64_t vpid;
	uint64_t key;
	uint64_t valid, early; /* after its process's caret_init, before */
	int tp;
	bool has_key;
};

struct check_sum_obj {
	int64_t vpid;
	uint64_t node_handle;
	uint32_t topic; /* interned string + 1, 0: none */
};

struct check_sum_cb {
	int64_t vpid;
	uint64_t ref, callback;
};

struct check_summary {
	struct check_sum_entry *e;
	size_t ne, e_cap;
	struct check_sum_obj *objs;
	size_t nobjs, objs_cap;
	struct check_sum_cb *cbs;
	size_t ncbs, cbs_cap;
	char **str;
	size_t nstr, str_cap;
	struct check_map entries, strs, nodes, pubs, subs, rmws, rsubs, timers, globals;
};

/* The trace point class name stands for (its payload's field class). */
void check_summary_class(struct check_sum_class *c, const char *name, const bt_field_class *pl);
/* One event of a counted class; an init record only for its first copy.
 * valid: its process emitted caret_init before it. -ENOMEM only. */
int check_summary_event(struct check_summary *s, const struct check_sum_class *c, int64_t vpid,
			bool valid, const bt_field *pl);
/* Fills r's trace point, node and topic counts (sorted by count, most
 * first, then by name); any_caret_init: the trace has a caret_init.
 * -ENOMEM only. */
int check_summary_finish(struct check_summary *s, struct check_report *r, bool any_caret_init);
void check_summary_free(struct check_summary *s);
/* caret_analyze's name of trace point i, NULL past the end. */
const char *check_summary_tp_name(size_t i);

#endif
