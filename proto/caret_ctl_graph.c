/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/caret_ctl.h"
#include "proto/caret_ctl_graph.h"
#include "proto/caret_ctl_reply.h"

#define PID_MAX_ 0x7fffffff

/* ---- encoding ---- */

/* A string that may be unknown: null on the wire. */
static bool add_nstr(cJSON *o, const char *k, const char *v)
{
	return v ? cJSON_AddStringToObject(o, k, v) != NULL : cJSON_AddNullToObject(o, k) != NULL;
}

/* Publishers and clients have no callback on the wire; subscriptions and services do. */
static bool add_entities(cJSON *o, const char *key, const char *name_key,
			 const struct caret_ctl_graph_entity *v, size_t n, bool callback)
{
	cJSON *a = cJSON_AddArrayToObject(o, key), *x;
	for (size_t i = 0; a && i < n; i++)
		if (!(x = ctl_add_object(a)) || !add_nstr(x, name_key, v[i].name) ||
		    (callback && !add_nstr(x, "callback", v[i].callback)))
			return false;
	return a != NULL;
}

static bool add_node(cJSON *arr, const struct caret_ctl_graph_node *n)
{
	cJSON *o = ctl_add_object(arr), *a, *x;
	if (!o || !add_nstr(o, CARET_CTL_K_NAME, n->name) ||
	    !cJSON_AddNumberToObject(o, CARET_CTL_K_PID, (double)n->pid) ||
	    !add_nstr(o, CARET_CTL_K_PROCNAME, n->procname) ||
	    !add_entities(o, "publishers", "topic", n->pubs, n->n_pubs, false) ||
	    !add_entities(o, "subscriptions", "topic", n->subs, n->n_subs, true) ||
	    !(a = cJSON_AddArrayToObject(o, "timers")))
		return false;
	for (size_t i = 0; i < n->n_timers; i++)
		if (!(x = ctl_add_object(a)) ||
		    !cJSON_AddNumberToObject(x, "period_ns", (double)n->timers[i].period_ns) ||
		    !add_nstr(x, "callback", n->timers[i].callback))
			return false;
	if (!add_entities(o, "services", CARET_CTL_K_NAME, n->services, n->n_services, true) ||
	    !add_entities(o, "clients", CARET_CTL_K_NAME, n->clients, n->n_clients, false) ||
	    !(a = cJSON_AddArrayToObject(o, "callback_groups")))
		return false;
	for (size_t i = 0; i < n->n_groups; i++) {
		const struct caret_ctl_graph_group *gr = &n->groups[i];
		if (!(x = ctl_add_object(a)) || !add_nstr(x, "address", gr->address) ||
		    !add_nstr(x, "type", gr->type) ||
		    !add_nstr(x, "executor", gr->have_executor ? gr->executor : NULL) ||
		    !add_nstr(x, "executor_type", gr->executor_type))
			return false;
	}
	return true;
}

static bool add_ends(cJSON *o, const char *key, const struct caret_ctl_graph_end *v, size_t n)
{
	cJSON *a = cJSON_AddArrayToObject(o, key), *x;
	for (size_t i = 0; a && i < n; i++)
		if (!(x = ctl_add_object(a)) || !add_nstr(x, "node", v[i].node) ||
		    !cJSON_AddNumberToObject(x, CARET_CTL_K_PID, (double)v[i].pid) ||
		    !add_nstr(x, CARET_CTL_K_PROCNAME, v[i].procname))
			return false;
	return a != NULL;
}

int caret_ctl_graph_encode(const struct caret_ctl_graph *g, cJSON *out)
{
	cJSON *arr = cJSON_AddArrayToObject(out, g->topics ? CARET_CTL_CMD_TOPICS
							   : CARET_CTL_CMD_NODES);
	if (!arr)
		return -ENOMEM;
	for (size_t i = 0; !g->topics && i < g->n_nodes; i++)
		if (!add_node(arr, &g->nodes[i]))
			return -ENOMEM;
	for (size_t i = 0; g->topics && i < g->n_topics; i++) {
		const struct caret_ctl_graph_topic *t = &g->topics_v[i];
		cJSON *o = ctl_add_object(arr);
		if (!o || !add_nstr(o, CARET_CTL_K_NAME, t->name) ||
		    !add_ends(o, "publishers", t->pubs, t->n_pubs) ||
		    !add_ends(o, "subscriptions", t->subs, t->n_subs))
			return -ENOMEM;
	}
	return 0;
}

/* ---- decoding ---- */

/* A string or null (*out NULL), never missing. */
static int get_nstr(const cJSON *o, const char *where, const char *key, const char **out,
		    struct ctl_why *w)
{
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, key);
	if (cJSON_IsNull(f)) {
		*out = NULL;
		return 0;
	}
	return ctl_get_str(o, where, key, false, out, w);
}

/* A string into a buffer of its own, at most len - 1 bytes. */
static int get_buf(const cJSON *o, const char *where, const char *key, char *buf, size_t len,
		   struct ctl_why *w)
{
	const char *s;
	if (ctl_get_str(o, where, key, false, &s, w) < 0)
		return -EPROTO;
	if (strlen(s) >= len) {
		ctl_why_set(w, "field \"%s.%s\" is longer than %zu bytes", where, key, len - 1);
		return -EPROTO;
	}
	memcpy(buf, s, strlen(s) + 1);
	return 0;
}

/* The objects of o[key], calloc'd as n elements of elem bytes. */
static int objects(const cJSON *o, const char *where, const char *key, size_t elem,
		   const cJSON **arr, size_t *n, void **out, struct ctl_why *w)
{
	*out = NULL;
	if (ctl_get_objects(o, where, key, CARET_CTL_GRAPH_MAX, arr, n, w) < 0)
		return -EPROTO;
	if (*n && !(*out = calloc(*n, elem))) {
		ctl_why_set(w, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

static int decode_entities(const cJSON *o, const char *where, const char *key,
			   const char *name_key, bool callback,
			   struct caret_ctl_graph_entity **v, size_t *n, struct ctl_why *w)
{
	const cJSON *arr, *e;
	int r = objects(o, where, key, sizeof(**v), &arr, n, (void **)v, w);
	size_t i = 0;
	char ew[96];
	if (r < 0)
		return r;
	cJSON_ArrayForEach(e, arr) {
		snprintf(ew, sizeof(ew), "%s.%s[%zu]", where, key, i);
		if (ctl_get_str(e, ew, name_key, false, &(*v)[i].name, w) < 0 ||
		    (callback && get_nstr(e, ew, "callback", &(*v)[i].callback, w) < 0))
			return -EPROTO;
		i++;
	}
	return r;
}

static int decode_timers(const cJSON *o, const char *where, struct caret_ctl_graph_node *n,
			 struct ctl_why *w)
{
	const cJSON *arr, *e;
	int r = objects(o, where, "timers", sizeof(*n->timers), &arr, &n->n_timers,
			(void **)&n->timers, w);
	size_t i = 0;
	char ew[96];
	if (r < 0)
		return r;
	cJSON_ArrayForEach(e, arr) {
		snprintf(ew, sizeof(ew), "%s.timers[%zu]", where, i);
		if (ctl_get_int(e, ew, "period_ns", -1, INT64_MAX, &n->timers[i].period_ns, w) < 0 ||
		    get_nstr(e, ew, "callback", &n->timers[i].callback, w) < 0)
			return -EPROTO;
		i++;
	}
	return r;
}

static int decode_groups(const cJSON *o, const char *where, struct caret_ctl_graph_node *n,
			 struct ctl_why *w)
{
	const cJSON *arr, *e;
	int r = objects(o, where, "callback_groups", sizeof(*n->groups), &arr, &n->n_groups,
			(void **)&n->groups, w);
	size_t i = 0;
	char ew[96];
	if (r < 0)
		return r;
	cJSON_ArrayForEach(e, arr) {
		struct caret_ctl_graph_group *gr = &n->groups[i];
		snprintf(ew, sizeof(ew), "%s.callback_groups[%zu]", where, i++);
		gr->have_executor = !cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(e, "executor"));
		if (get_buf(e, ew, "address", gr->address, sizeof(gr->address), w) < 0 ||
		    get_nstr(e, ew, "type", &gr->type, w) < 0 ||
		    (gr->have_executor &&
		     get_buf(e, ew, "executor", gr->executor, sizeof(gr->executor), w) < 0) ||
		    get_nstr(e, ew, "executor_type", &gr->executor_type, w) < 0)
			return -EPROTO;
	}
	return r;
}

static int decode_node(const cJSON *e, const char *where, struct caret_ctl_graph_node *n,
		       struct ctl_why *w)
{
	int r;
	if (get_buf(e, where, CARET_CTL_K_NAME, n->name, sizeof(n->name), w) < 0 ||
	    ctl_get_int(e, where, CARET_CTL_K_PID, 0, PID_MAX_, &n->pid, w) < 0 ||
	    ctl_get_str(e, where, CARET_CTL_K_PROCNAME, false, &n->procname, w) < 0)
		return -EPROTO;
	if ((r = decode_entities(e, where, "publishers", "topic", false, &n->pubs, &n->n_pubs,
				 w)) < 0 ||
	    (r = decode_entities(e, where, "subscriptions", "topic", true, &n->subs, &n->n_subs,
				 w)) < 0 ||
	    (r = decode_timers(e, where, n, w)) < 0 ||
	    (r = decode_entities(e, where, "services", CARET_CTL_K_NAME, true, &n->services,
				 &n->n_services, w)) < 0 ||
	    (r = decode_entities(e, where, "clients", CARET_CTL_K_NAME, false, &n->clients,
				 &n->n_clients, w)) < 0)
		return r;
	return decode_groups(e, where, n, w);
}

static int decode_ends(const cJSON *o, const char *where, const char *key,
		       struct caret_ctl_graph_end **v, size_t *n, struct ctl_why *w)
{
	const cJSON *arr, *e;
	int r = objects(o, where, key, sizeof(**v), &arr, n, (void **)v, w);
	size_t i = 0;
	char ew[96];
	if (r < 0)
		return r;
	cJSON_ArrayForEach(e, arr) {
		snprintf(ew, sizeof(ew), "%s.%s[%zu]", where, key, i);
		if (get_buf(e, ew, "node", (*v)[i].node, sizeof((*v)[i].node), w) < 0 ||
		    ctl_get_int(e, ew, CARET_CTL_K_PID, 0, PID_MAX_, &(*v)[i].pid, w) < 0 ||
		    ctl_get_str(e, ew, CARET_CTL_K_PROCNAME, false, &(*v)[i].procname, w) < 0)
			return -EPROTO;
		i++;
	}
	return r;
}

static int decode_all(const cJSON *in, struct caret_ctl_graph *g, struct ctl_why *w)
{
	const cJSON *arr, *e;
	char where[48];
	size_t i = 0;
	int r;
	g->topics = cJSON_GetObjectItemCaseSensitive(in, CARET_CTL_CMD_TOPICS) != NULL;
	if (!g->topics) {
		r = objects(in, NULL, CARET_CTL_CMD_NODES, sizeof(*g->nodes), &arr, &g->n_nodes,
			    (void **)&g->nodes, w);
		if (r < 0)
			return r;
		cJSON_ArrayForEach(e, arr) {
			snprintf(where, sizeof(where), "nodes[%zu]", i);
			if ((r = decode_node(e, where, &g->nodes[i++], w)) < 0)
				return r;
		}
		return r;
	}
	r = objects(in, NULL, CARET_CTL_CMD_TOPICS, sizeof(*g->topics_v), &arr, &g->n_topics,
		    (void **)&g->topics_v, w);
	if (r < 0)
		return r;
	cJSON_ArrayForEach(e, arr) {
		struct caret_ctl_graph_topic *t = &g->topics_v[i];
		snprintf(where, sizeof(where), "topics[%zu]", i++);
		if (ctl_get_str(e, where, CARET_CTL_K_NAME, false, &t->name, w) < 0)
			return -EPROTO;
		if ((r = decode_ends(e, where, "publishers", &t->pubs, &t->n_pubs, w)) < 0 ||
		    (r = decode_ends(e, where, "subscriptions", &t->subs, &t->n_subs, w)) < 0)
			return r;
	}
	return r;
}

static int decode(const cJSON *in, struct caret_ctl_graph *g, struct ctl_why *w)
{
	if (cJSON_IsObject(in))
		return decode_all(in, g, w);
	ctl_why_set(w, "the result is not an object");
	return -EPROTO;
}

int caret_ctl_graph_decode(const cJSON *in, struct caret_ctl_graph *g, char *why, size_t len)
{
	return CTL_DECODE_OWNED(decode, caret_ctl_graph_free, in, g, why, len);
}

void caret_ctl_graph_free(struct caret_ctl_graph *g)
{
	for (size_t i = 0; g->nodes && i < g->n_nodes; i++) {
		struct caret_ctl_graph_node *n = &g->nodes[i];
		free(n->pubs);
		free(n->subs);
		free(n->timers);
		free(n->services);
		free(n->clients);
		free(n->groups);
	}
	for (size_t i = 0; g->topics_v && i < g->n_topics; i++) {
		free(g->topics_v[i].pubs);
		free(g->topics_v[i].subs);
	}
	free(g->nodes);
	free(g->topics_v);
	memset(g, 0, sizeof(*g));
}
