/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/caret_ctl.h"
#include "proto/caret_ctl_check.h"
#include "proto/caret_ctl_enc.h"
#include "proto/caret_ctl_reply.h"

/* ---- encoding ---- */

static bool add_counts(cJSON *o, const char *key, const struct caret_ctl_counts *c)
{
	cJSON *x = cJSON_AddObjectToObject(o, key);
	for (size_t i = 0; x && i < c->n; i++)
		if (!ctl_add_u64(x, c->v[i].name, c->v[i].n))
			return false;
	return x != NULL;
}

static bool add_proc(cJSON *arr, const struct caret_ctl_check_proc *p)
{
	cJSON *o = ctl_add_object(arr);
	return o && ctl_add_i64(o, "pid", p->pid) &&
	       cJSON_AddStringToObject(o, "procname", p->procname) &&
	       cJSON_AddBoolToObject(o, "caret_init", p->caret_init) &&
	       add_counts(o, "init_records", &p->init) && add_counts(o, "duplicates", &p->dup) &&
	       add_counts(o, "missing", &p->missing) &&
	       ctl_add_u64(o, "init_total", p->init_total) &&
	       ctl_add_u64(o, "duplicates_total", p->dup_total) &&
	       ctl_add_u64(o, "missing_total", p->missing_total) &&
	       ctl_add_u64(o, "both_variants", p->both_variants) &&
	       ctl_add_u64(o, "filtered_registers", p->filtered_registers) &&
	       ctl_add_u64(o, "runtime_events", p->runtime_events) &&
	       ctl_add_u64(o, "replay_passes", p->replay_passes) &&
	       ctl_add_u64(o, "replay_passes_whole", p->replay_passes_whole) &&
	       cJSON_AddBoolToObject(o, "replay_cut", p->replay_cut) &&
	       ctl_add_u64(o, "events", p->events) && ctl_add_u64(o, "publishes", p->publishes) &&
	       ctl_add_u64(o, "unbound_publishes", p->unbound_publishes) &&
	       ctl_add_u64(o, "bindings", p->bindings) &&
	       ctl_add_u64(o, "unmatched_bindings", p->unmatched_bindings);
}

static bool add_lists(const struct caret_ctl_check_result *c, cJSON *out)
{
	cJSON *procs = cJSON_AddArrayToObject(out, "processes"), *x;
	for (size_t i = 0; procs && i < c->n_procs; i++)
		if (!add_proc(procs, &c->procs[i]))
			return false;
	cJSON *nodes = procs ? cJSON_AddArrayToObject(out, "nodes") : NULL;
	for (size_t i = 0; nodes && i < c->n_nodes; i++)
		if (!(x = ctl_add_object(nodes)) ||
		    !cJSON_AddStringToObject(x, "name", c->nodes[i].name) ||
		    !ctl_add_i64(x, "pid", c->nodes[i].pid))
			return false;
	cJSON *topics = nodes ? cJSON_AddArrayToObject(out, "topics") : NULL;
	for (size_t i = 0; topics && i < c->n_topics; i++)
		if (!(x = ctl_add_object(topics)) ||
		    !cJSON_AddStringToObject(x, "name", c->topics[i].name) ||
		    !ctl_add_u64(x, "publishers", c->topics[i].publishers) ||
		    !ctl_add_u64(x, "subscriptions", c->topics[i].subscriptions))
			return false;
	return topics && add_counts(out, "events_per_kind", &c->per_kind);
}

int caret_ctl_check_encode(const struct caret_ctl_check_result *c, cJSON *out)
{
	return cJSON_AddStringToObject(out, "trace", c->trace) &&
			       cJSON_AddBoolToObject(out, "complete", c->complete) &&
			       ctl_add_strings(out, "problems", &c->problems) &&
			       ctl_add_strings(out, "warnings", &c->warnings) &&
			       ctl_add_strings(out, "notes", &c->notes) &&
			       ctl_add_u64(out, "events", c->events) &&
			       ctl_add_i64(out, "first_ns", c->first_ns) &&
			       ctl_add_i64(out, "last_ns", c->last_ns) &&
			       ctl_add_u64(out, "discarded_events", c->discarded_events) &&
			       cJSON_AddBoolToObject(out, "discarded_events_unknown",
						     c->discarded_unknown) &&
			       ctl_add_u64(out, "lost_packets", c->lost_packets) &&
			       cJSON_AddBoolToObject(out, "lost_packets_unknown", c->lost_unknown) &&
			       add_counts(out, "events_without_context", &c->no_context) &&
			       add_lists(c, out)
		       ? 0
		       : -ENOMEM;
}

/* ---- decoding ---- */

static int oom(struct ctl_why *w)
{
	ctl_why_set(w, "out of memory");
	return -ENOMEM;
}

static int get_counts(const cJSON *o, const char *where, const char *key,
		      struct caret_ctl_counts *c, struct ctl_why *w)
{
	const cJSON *obj, *e;
	if (ctl_get_obj(o, where, key, &obj, w) < 0)
		return -EPROTO;
	int n = cJSON_GetArraySize(obj);
	if (n > CARET_CTL_CHECK_MAX) {
		ctl_why_set(w, "field \"%s\" has too many entries", key);
		return -EPROTO;
	}
	if (n && !(c->v = calloc((size_t)n, sizeof(*c->v))))
		return oom(w);
	char inner[64];
	snprintf(inner, sizeof(inner), "%s%s%s", where ? where : "", where ? "." : "", key);
	cJSON_ArrayForEach(e, obj) {
		struct caret_ctl_count *x = &c->v[c->n];
		x->name = e->string;
		if (ctl_get_u64(obj, inner, e->string, &x->n, w) < 0)
			return -EPROTO;
		c->n++;
	}
	return 0;
}

static int decode_proc(const cJSON *e, const char *where, struct caret_ctl_check_proc *p,
		       struct ctl_why *w)
{
	int r;
	if (ctl_get_int(e, where, "pid", INT64_MIN, INT64_MAX, &p->pid, w) < 0 ||
	    ctl_get_str(e, where, "procname", false, &p->procname, w) < 0 ||
	    ctl_get_bool(e, where, "caret_init", &p->caret_init, w) < 0 ||
	    ctl_get_bool(e, where, "replay_cut", &p->replay_cut, w) < 0)
		return -EPROTO;
	if ((r = get_counts(e, where, "init_records", &p->init, w)) < 0 ||
	    (r = get_counts(e, where, "duplicates", &p->dup, w)) < 0 ||
	    (r = get_counts(e, where, "missing", &p->missing, w)) < 0)
		return r;
	struct {
		const char *key;
		uint64_t *out;
	} f[] = {
		{ "init_total", &p->init_total },
		{ "duplicates_total", &p->dup_total },
		{ "missing_total", &p->missing_total },
		{ "both_variants", &p->both_variants },
		{ "filtered_registers", &p->filtered_registers },
		{ "runtime_events", &p->runtime_events },
		{ "replay_passes", &p->replay_passes },
		{ "replay_passes_whole", &p->replay_passes_whole },
		{ "events", &p->events },
		{ "publishes", &p->publishes },
		{ "unbound_publishes", &p->unbound_publishes },
		{ "bindings", &p->bindings },
		{ "unmatched_bindings", &p->unmatched_bindings },
	};
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (ctl_get_u64(e, where, f[i].key, f[i].out, w) < 0)
			return -EPROTO;
	return 0;
}

static int decode_lists(const cJSON *in, struct caret_ctl_check_result *c, struct ctl_why *w)
{
	const cJSON *arr, *e;
	char where[48];
	size_t i = 0;
	if (ctl_get_objects(in, NULL, "processes", CARET_CTL_CHECK_MAX, &arr, &c->n_procs, w) < 0)
		return -EPROTO;
	if (c->n_procs && !(c->procs = calloc(c->n_procs, sizeof(*c->procs))))
		return oom(w);
	cJSON_ArrayForEach(e, arr) {
		snprintf(where, sizeof(where), "processes[%zu]", i);
		int r = decode_proc(e, where, &c->procs[i++], w);
		if (r < 0)
			return r;
	}
	if (ctl_get_objects(in, NULL, "nodes", CARET_CTL_CHECK_MAX, &arr, &c->n_nodes, w) < 0)
		return -EPROTO;
	if (c->n_nodes && !(c->nodes = calloc(c->n_nodes, sizeof(*c->nodes))))
		return oom(w);
	i = 0;
	cJSON_ArrayForEach(e, arr) {
		snprintf(where, sizeof(where), "nodes[%zu]", i);
		if (ctl_get_str(e, where, "name", false, &c->nodes[i].name, w) < 0 ||
		    ctl_get_int(e, where, "pid", INT64_MIN, INT64_MAX, &c->nodes[i].pid, w) < 0)
			return -EPROTO;
		i++;
	}
	if (ctl_get_objects(in, NULL, "topics", CARET_CTL_CHECK_MAX, &arr, &c->n_topics, w) < 0)
		return -EPROTO;
	if (c->n_topics && !(c->topics = calloc(c->n_topics, sizeof(*c->topics))))
		return oom(w);
	i = 0;
	cJSON_ArrayForEach(e, arr) {
		struct caret_ctl_check_topic *t = &c->topics[i];
		snprintf(where, sizeof(where), "topics[%zu]", i++);
		if (ctl_get_str(e, where, "name", false, &t->name, w) < 0 ||
		    ctl_get_u64(e, where, "publishers", &t->publishers, w) < 0 ||
		    ctl_get_u64(e, where, "subscriptions", &t->subscriptions, w) < 0)
			return -EPROTO;
	}
	return get_counts(in, NULL, "events_per_kind", &c->per_kind, w);
}

static int decode(const cJSON *in, struct caret_ctl_check_result *c, struct ctl_why *w)
{
	int r;
	if (!cJSON_IsObject(in)) {
		ctl_why_set(w, "the check result is not an object");
		return -EPROTO;
	}
	if (ctl_get_str(in, NULL, "trace", false, &c->trace, w) < 0 ||
	    ctl_get_bool(in, NULL, "complete", &c->complete, w) < 0 ||
	    ctl_get_u64(in, NULL, "events", &c->events, w) < 0 ||
	    ctl_get_int(in, NULL, "first_ns", INT64_MIN, INT64_MAX, &c->first_ns, w) < 0 ||
	    ctl_get_int(in, NULL, "last_ns", INT64_MIN, INT64_MAX, &c->last_ns, w) < 0 ||
	    ctl_get_u64(in, NULL, "discarded_events", &c->discarded_events, w) < 0 ||
	    ctl_get_bool(in, NULL, "discarded_events_unknown", &c->discarded_unknown, w) < 0 ||
	    ctl_get_u64(in, NULL, "lost_packets", &c->lost_packets, w) < 0 ||
	    ctl_get_bool(in, NULL, "lost_packets_unknown", &c->lost_unknown, w) < 0)
		return -EPROTO;
	if ((r = ctl_get_strings(in, NULL, "problems", CARET_CTL_CHECK_MAX, &c->problems, w)) < 0 ||
	    (r = ctl_get_strings(in, NULL, "warnings", CARET_CTL_CHECK_MAX, &c->warnings, w)) < 0 ||
	    (r = ctl_get_strings(in, NULL, "notes", CARET_CTL_CHECK_MAX, &c->notes, w)) < 0 ||
	    (r = get_counts(in, NULL, "events_without_context", &c->no_context, w)) < 0)
		return r;
	return decode_lists(in, c, w);
}

int caret_ctl_check_decode(const cJSON *in, struct caret_ctl_check_result *c, char *why,
			   size_t len)
{
	return CTL_DECODE_OWNED(decode, caret_ctl_check_free, in, c, why, len);
}

void caret_ctl_check_free(struct caret_ctl_check_result *c)
{
	for (size_t i = 0; c->procs && i < c->n_procs; i++) {
		free(c->procs[i].init.v);
		free(c->procs[i].dup.v);
		free(c->procs[i].missing.v);
	}
	free(c->procs);
	free(c->nodes);
	free(c->topics);
	free(c->problems.v);
	free(c->warnings.v);
	free(c->notes.v);
	free(c->no_context.v);
	free(c->per_kind.v);
	memset(c, 0, sizeof(*c));
}
