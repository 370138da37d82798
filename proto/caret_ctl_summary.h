/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The result of `caretctl node-summary`, `topic-summary` and
 * `trace-point-summary --json` (caretctl(1)): ros2caret's summary tables,
 * as a C struct with one encoder and one decoder. caretctl reads the trace
 * itself (tools/caretctl/check_summary.c) and fills it; the line:
 *
 *  {"v", "type": "result", "cmd": "node-summary" | "topic-summary" |
 *   "trace-point-summary", "trace", "group_by": "node_name" |
 *   "topic_name" | "trace_point", "events", "first_ns", "last_ns",
 *   "rows": [{GROUP_BY: NAME, "number_of_trace_points": n}]}
 *
 * rows most first (as ros2caret sorts them). The encoder writes counts and
 * nanoseconds as exact integers; the decoder reads them through cJSON's
 * doubles, exact up to 2^53. Strings of a decoded result point into the
 * cJSON tree it came from.
 */
#ifndef CARET_PROTO_CTL_SUMMARY_H
#define CARET_PROTO_CTL_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#define CARET_CTL_K_GROUP_BY "group_by"
#define CARET_CTL_K_ROWS "rows"
#define CARET_CTL_K_NUMBER_OF_TRACE_POINTS "number_of_trace_points"
/* Bound on the rows a decoder accepts. */
#define CARET_CTL_SUMMARY_MAX 1000000

struct caret_ctl_summary_row {
	const char *name;
	uint64_t count;
};

struct caret_ctl_summary {
	const char *trace;
	const char *group_by; /* node_name, topic_name or trace_point */
	uint64_t events;
	int64_t first_ns, last_ns;
	size_t n_rows;
	struct caret_ctl_summary_row *rows;
};

/* Adds the result's fields to out (an envelope). 0 or -ENOMEM. */
int caret_ctl_summary_encode(const struct caret_ctl_summary *s, cJSON *out);
/* 0, -EPROTO (why names the field) or -ENOMEM; on failure s holds nothing
 * to free. */
int caret_ctl_summary_decode(const cJSON *in, struct caret_ctl_summary *s, char *why,
			     size_t len);
void caret_ctl_summary_free(struct caret_ctl_summary *s);

#endif
