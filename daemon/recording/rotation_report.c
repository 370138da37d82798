/* SPDX-License-Identifier: Apache-2.0 */
/* What rotating recordings say in replies (daemon/recording/rotation_report.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "daemon/base/log.h"
#include "daemon/recording/rotation_report.h"
#include "daemon/recording/rotation_verdict.h"
#include "proto/caret_ctl_rotation.h"

/* Replies carry no count above 10^15 - 1 (caretd(8)): a size the owner's
 * files lie about is reported as that. */
static double count(uint64_t v)
{
	return v > 999999999999999ull ? 999999999999999.0 : (double)v;
}

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
			 (unsigned long long)(n > 999999999999999ull ? 999999999999999ull : n));
		return buf;
	}
	return rotation_has_dups(t, c->index) ? "may hold init records twice" : NULL;
}

static cJSON *status_of(const struct rotation *t)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *chunks = cJSON_CreateArray(), *inc = cJSON_CreateArray();
	if (!o || !chunks || !inc) {
		cJSON_Delete(o);
		cJSON_Delete(chunks);
		cJSON_Delete(inc);
		return NULL;
	}
	cJSON_AddItemToObject(o, "chunks", chunks);
	cJSON_AddItemToObject(o, "incomplete", inc);
	bool ok = cJSON_AddStringToObject(o, "session", t->name) &&
		  cJSON_AddStringToObject(o, "mode", "rotating") &&
		  cJSON_AddNumberToObject(o, CARET_CTL_K_ROTATE_SIZE, (double)t->o.size) &&
		  cJSON_AddNumberToObject(o, CARET_CTL_K_ROTATE_EVERY_MS, (double)t->o.every_ms) &&
		  cJSON_AddNumberToObject(o, CARET_CTL_K_KEEP, t->o.keep) &&
		  cJSON_AddNumberToObject(o, CARET_CTL_K_MAX_SIZE, (double)t->o.max_size) &&
		  cJSON_AddNumberToObject(o, "rotations", count(t->rotations)) &&
		  cJSON_AddNumberToObject(o, "removed", count(t->removed)) &&
		  cJSON_AddNumberToObject(o, "chunks_bytes", t->list ? count(t->list->bytes) : 0.0) &&
		  /* the chunk being written has its replay (a stop waits for it) */
		  cJSON_AddBoolToObject(o, CARET_CTL_K_PASS_COMPLETE, t->cur_complete && !t->closing);
	if (ok && t->error[0])
		ok = cJSON_AddStringToObject(o, "error", t->error);
	for (int i = 0; ok && t->list && i < t->list->n; i++) {
		const struct chunk_info *c = &t->list->c[i];
		char buf[96];
		const char *why = rotation_chunk_why(t, c, buf, sizeof(buf));
		bool done = !why;
		cJSON *x = cJSON_CreateObject();
		ok = x && cJSON_AddItemToArray(chunks, x) &&
		     cJSON_AddStringToObject(x, "name", c->name) &&
		     cJSON_AddNumberToObject(x, "index", count(c->index)) &&
		     cJSON_AddNumberToObject(x, "bytes", count(c->bytes)) &&
		     cJSON_AddBoolToObject(x, "complete", done);
		if (ok && why)
			ok = cJSON_AddStringToObject(x, "why", why) != NULL;
		if (ok && !done)
			ok = cJSON_AddItemToArray(inc, cJSON_CreateString(c->name));
	}
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
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

cJSON *rotation_report_enc(const struct rotation_report *r)
{
	return r ? status_of(&r->t) : NULL;
}

void rotation_report_free(struct rotation_report *r)
{
	if (r)
		free(r->t.list);
	free(r);
}

int rotation_report_add_status(const struct rotation *t, cJSON *result)
{
	cJSON *a = cJSON_GetObjectItemCaseSensitive(result, CARET_CTL_K_ROTATIONS);
	if (!a)
		return 0;
	cJSON *x = status_of(t);
	if (!x || !cJSON_AddItemToArray(a, x)) {
		cJSON_Delete(x);
		return -ENOMEM;
	}
	return 0;
}
