/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/caret_ctl_enc.h"
#include "proto/caret_ctl_reply.h"
#include "proto/caret_ctl_summary.h"

int caret_ctl_summary_encode(const struct caret_ctl_summary *s, cJSON *out)
{
	cJSON *rows = NULL;
	bool ok = cJSON_AddStringToObject(out, "trace", s->trace) &&
		  cJSON_AddStringToObject(out, CARET_CTL_K_GROUP_BY, s->group_by) &&
		  ctl_add_u64(out, "events", s->events) &&
		  ctl_add_i64(out, "first_ns", s->first_ns) &&
		  ctl_add_i64(out, "last_ns", s->last_ns) &&
		  (rows = cJSON_AddArrayToObject(out, CARET_CTL_K_ROWS)) != NULL;
	for (size_t i = 0; ok && i < s->n_rows; i++) {
		cJSON *row = ctl_add_object(rows);
		ok = row && cJSON_AddStringToObject(row, s->group_by, s->rows[i].name) &&
		     ctl_add_u64(row, CARET_CTL_K_NUMBER_OF_TRACE_POINTS, s->rows[i].count);
	}
	return ok ? 0 : -ENOMEM;
}

static int decode(const cJSON *in, struct caret_ctl_summary *s, struct ctl_why *w)
{
	const cJSON *rows, *e;
	size_t n;
	if (ctl_get_str(in, NULL, "trace", false, &s->trace, w) < 0 ||
	    ctl_get_str(in, NULL, CARET_CTL_K_GROUP_BY, false, &s->group_by, w) < 0 ||
	    ctl_get_u64(in, NULL, "events", &s->events, w) < 0 ||
	    ctl_get_int(in, NULL, "first_ns", INT64_MIN, INT64_MAX, &s->first_ns, w) < 0 ||
	    ctl_get_int(in, NULL, "last_ns", INT64_MIN, INT64_MAX, &s->last_ns, w) < 0 ||
	    ctl_get_objects(in, NULL, CARET_CTL_K_ROWS, CARET_CTL_SUMMARY_MAX, &rows, &n, w) < 0)
		return -EPROTO;
	if (strcmp(s->group_by, "node_name") && strcmp(s->group_by, "topic_name") &&
	    strcmp(s->group_by, "trace_point")) {
		ctl_why_set(w, "field \"%s\" is not node_name, topic_name or trace_point",
			    CARET_CTL_K_GROUP_BY);
		return -EPROTO;
	}
	if (n && !(s->rows = calloc(n, sizeof(*s->rows)))) {
		ctl_why_set(w, "out of memory");
		return -ENOMEM;
	}
	cJSON_ArrayForEach(e, rows) {
		char where[32];
		struct caret_ctl_summary_row *r = &s->rows[s->n_rows];
		snprintf(where, sizeof(where), "rows[%zu]", s->n_rows);
		if (ctl_get_str(e, where, s->group_by, false, &r->name, w) < 0 ||
		    ctl_get_u64(e, where, CARET_CTL_K_NUMBER_OF_TRACE_POINTS, &r->count, w) < 0)
			return -EPROTO;
		s->n_rows++;
	}
	return 0;
}

int caret_ctl_summary_decode(const cJSON *in, struct caret_ctl_summary *s, char *why,
			     size_t len)
{
	return CTL_DECODE_OWNED(decode, caret_ctl_summary_free, in, s, why, len);
}

void caret_ctl_summary_free(struct caret_ctl_summary *s)
{
	free(s->rows);
	memset(s, 0, sizeof(*s));
}
