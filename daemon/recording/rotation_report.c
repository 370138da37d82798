/* SPDX-License-Identifier: Apache-2.0 */
/* What rotating recordings say in replies (daemon/recording/rotation_report.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "daemon/base/log.h"
#include "daemon/recording/rotation_report.h"
#include "daemon/recording/rotation_verdict.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_snapshot.h"

/* Why a kept chunk may not be complete, NULL when it is. */
const char *rotation_chunk_why(const struct rotation *t, const struct chunk_info *c, char *buf,
			  size_t len)
{
	uint64_t n;
	if (c->index >= t->verdict_upto)
		return "not known: caretd did not see it end";
	if (rotation_is_incomplete(t, c->index))
		return "lacks init records of some process";
	if (rotation_has_discards(t, c->index, &n)) {
		if (n == UINT64_MAX)
			return "its discarded events could not be counted";
		snprintf(buf, len, "%llu events discarded by the tracer",
			 (unsigned long long)(n > CARET_CTL_COUNT_MAX ? CARET_CTL_COUNT_MAX : n));
		return buf;
	}
	return rotation_has_dups(t, c->index) ? "may hold init records twice" : NULL;
}

/* Each chunk's why text, when it needs a number (rotation_chunk_why). */
#define WHY_LEN 96

/* t as proto's rotation object, its strings in t. The chunks and their
 * why texts are one block (caret_ctl_recordings_free frees the chunks:
 * their texts go with them); incomplete is its own. 0 or -ENOMEM
 * (nothing allocated). */
static int fill(const struct rotation *t, struct caret_ctl_rotation_status *o)
{
	size_t n = t->list ? (size_t)t->list->n : 0;
	*o = (struct caret_ctl_rotation_status){
		.session = t->name,
		.mode = CARET_CTL_MODE_ROTATING,
		.rotate_size = t->o.size,
		.rotate_every_ms = t->o.every_ms,
		.keep = t->o.keep,
		.max_size = t->o.max_size,
		.rotations = t->rotations,
		.removed = t->removed,
		.chunks_bytes = t->list ? t->list->bytes : 0,
		/* the chunk being written has its replay (a stop waits for it) */
		.have_pass_complete = true,
		.pass_complete = t->cur_complete,
		.error = t->error[0] ? t->error : NULL,
	};
	if (!n)
		return 0;
	o->chunks = calloc(1, n * (sizeof(*o->chunks) + WHY_LEN));
	o->incomplete = calloc(n, sizeof(*o->incomplete));
	if (!o->chunks || !o->incomplete) {
		free(o->chunks);
		free(o->incomplete);
		o->chunks = NULL;
		o->incomplete = NULL;
		return -ENOMEM;
	}
	char *why_buf = (char *)(o->chunks + n);
	for (size_t i = 0; i < n; i++) {
		const struct chunk_info *c = &t->list->c[i];
		const char *why = rotation_chunk_why(t, c, why_buf + i * WHY_LEN, WHY_LEN);
		o->chunks[i] = (struct caret_ctl_chunk){ .name = c->name, .index = c->index,
							 .bytes = c->bytes, .complete = !why,
							 .why = why };
		if (why)
			o->incomplete[o->n_incomplete++] = c->name;
	}
	o->n_chunks = n;
	return 0;
}

struct rotation_report {
	struct rotation t; /* its list its own, no baseline */
};

struct rotation_report *rotation_report_take(struct rotation *t)
{
	struct rotation_report *rep = malloc(sizeof(*rep));
	if (rep) {
		rep->t = *t; /* the listing goes with it */
	} else {
		log_err("session %s: out of memory for its rotation report", t->name);
		free(t->list);
	}
	return rep;
}

void rotation_report_end(struct rotation_report *rep, struct recording_end *out)
{
	out->rotation = rep;
	if (!rep)
		return;
	out->rep.rotation = malloc(sizeof(*out->rep.rotation));
	if (!out->rep.rotation || fill(&rep->t, out->rep.rotation) < 0) {
		free(out->rep.rotation);
		out->rep.rotation = NULL;
		out->err = -ENOMEM;
	}
}

void rotation_report_free(struct rotation_report *r)
{
	if (r)
		free(r->t.list);
	free(r);
}

int rotation_report_add_status(const struct rotation *t, struct caret_ctl_recordings *result)
{
	if (!result->have_rotations)
		return 0;
	int e = fill(t, &result->rotations[result->n_rotations]);
	if (e == 0)
		result->n_rotations++;
	return e;
}
