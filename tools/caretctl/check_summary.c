/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ros2caret's summaries, as caret_analyze's EventCounter counts them (see
 * check_summary.h). Objects are keyed by process and address: the analyzer
 * keys them by address alone, which is the same as long as two processes
 * do not share one.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check_field.h"
#include "check_summary.h"
#include "util/caret_util.h"

/* How an event is joined to a node and topic (EventCounter's group keys). */
enum key {
	K_NONE,
	K_CB,	/* callback_object */
	K_PUB,	/* publisher_handle */
	K_SUB,	/* subscription_handle */
	K_RMW,	/* rmw_subscription_handle */
};

/* What a record defines, for the joins. */
enum def {
	D_NONE,
	D_NODE,	    /* node_handle, node_name, namespace */
	D_PUB,	    /* publisher_handle, node_handle, topic_name */
	D_SUB,	    /* subscription_handle, node_handle, topic_name, rmw_subscription_handle */
	D_RSUB,	    /* subscription, subscription_handle */
	D_TIMER,    /* timer_handle, node_handle */
	D_CB,	    /* reference, callback */
	D_GLOBAL,   /* a string its only column: one row per value, whichever process */
};

struct tp {
	const char *name;  /* caret_analyze's name */
	bool init;	   /* also read from ros2_caret:, and dropped when copied */
	enum key key;
	const char *key_field;
	enum def def;
	const char *f[CHECK_SUM_FIELDS];
};

/* EventCounter._build_count_df's list, in its order. */
static const struct tp tps[] = {
	{ "ros2:rcl_init", true, K_NONE, NULL, D_NONE, { NULL } },
	{ "ros2:rcl_node_init", true, K_NONE, NULL, D_NODE,
	  { "node_handle", "node_name", "namespace", NULL } },
	{ "ros2:rcl_publisher_init", true, K_PUB, "publisher_handle", D_PUB,
	  { "publisher_handle", "node_handle", "topic_name", NULL } },
	{ "ros2:rcl_subscription_init", true, K_SUB, "subscription_handle", D_SUB,
	  { "subscription_handle", "node_handle", "topic_name", "rmw_subscription_handle" } },
	{ "ros2:rclcpp_subscription_init", true, K_SUB, "subscription_handle", D_RSUB,
	  { "subscription", "subscription_handle", NULL, NULL } },
	{ "ros2:rclcpp_subscription_callback_added", true, K_CB, "callback", D_CB,
	  { "subscription", "callback", NULL, NULL } },
	{ "ros2:rcl_service_init", true, K_NONE, NULL, D_NONE, { NULL } },
	{ "ros2:rclcpp_service_callback_added", true, K_CB, "callback", D_CB,
	  { "service_handle", "callback", NULL, NULL } },
	{ "ros2:rcl_client_init", true, K_NONE, NULL, D_NONE, { NULL } },
	{ "ros2:rcl_timer_init", true, K_NONE, NULL, D_NONE, { NULL } },
	{ "ros2:rclcpp_timer_callback_added", true, K_CB, "callback", D_CB,
	  { "timer_handle", "callback", NULL, NULL } },
	{ "ros2:rclcpp_timer_link_node", true, K_NONE, NULL, D_TIMER,
	  { "timer_handle", "node_handle", NULL, NULL } },
	{ "ros2:rclcpp_callback_register", true, K_CB, "callback", D_NONE, { NULL } },
	{ "ros2:rcl_lifecycle_state_machine_init", true, K_NONE, NULL, D_NONE, { NULL } },
	{ "ros2_caret:add_callback_group", true, K_NONE, NULL, D_NONE, { NULL } },
	{ "ros2_caret:add_callback_group_static_executor", true, K_NONE, NULL, D_NONE, { NULL } },
	{ "ros2_caret:callback_group_to_executor_entity_collector", true, K_NONE, NULL, D_NONE,
	  { NULL } },
	{ "ros2_caret:executor_entity_collector_to_executor", true, K_NONE, NULL, D_NONE, { NULL } },
	{ "ros2_caret:construct_executor", true, K_NONE, NULL, D_NONE, { NULL } },
	{ "ros2_caret:construct_static_executor", true, K_NONE, NULL, D_NONE, { NULL } },
	{ "ros2_caret:callback_group_add_timer", true, K_NONE, NULL, D_NONE, { NULL } },
	{ "ros2_caret:callback_group_add_subscription", true, K_SUB, "subscription_handle", D_NONE,
	  { NULL } },
	{ "ros2_caret:callback_group_add_service", true, K_NONE, NULL, D_NONE, { NULL } },
	{ "ros2_caret:callback_group_add_client", true, K_NONE, NULL, D_NONE, { NULL } },
	{ "ros2_caret:tilde_subscription_init", true, K_NONE, NULL, D_NONE, { NULL } },
	{ "ros2_caret:tilde_publisher_init", true, K_NONE, NULL, D_NONE, { NULL } },
	{ "ros2_caret:tilde_subscribe_added", true, K_NONE, NULL, D_NONE, { NULL } },
	{ "ros2:rcl_lifecycle_transition", false, K_NONE, NULL, D_NONE, { NULL } },
	{ "ros2:rclcpp_buffer_to_ipb", true, K_NONE, NULL, D_NONE, { NULL } },
	{ "ros2:rclcpp_ipb_to_subscription", true, K_NONE, NULL, D_NONE, { NULL } },
	{ "ros2:rclcpp_construct_ring_buffer", true, K_NONE, NULL, D_NONE, { NULL } },
	/* its table's one column is rmw_impl: the analyzer keeps one row per
	 * RMW name, however many processes emitted it */
	{ "ros2_caret:rmw_implementation", true, K_NONE, NULL, D_GLOBAL,
	  { "rmw_impl", NULL, NULL, NULL } },
	{ "ros2_caret:agnocast_init", true, K_NONE, NULL, D_NONE, { NULL } },
	{ "ros2_caret:agnocast_node_init", true, K_NONE, NULL, D_NONE, { NULL } },
	{ "ros2_caret:agnocast_publisher_init", true, K_NONE, NULL, D_NONE, { NULL } },
	{ "ros2_caret:agnocast_subscription_init", true, K_NONE, NULL, D_NONE, { NULL } },
	{ "ros2_caret:agnocast_timer_init", true, K_NONE, NULL, D_NONE, { NULL } },
	{ "ros2_caret:agnocast_add_callback_group", true, K_NONE, NULL, D_NONE, { NULL } },
	{ "ros2_caret:agnocast_construct_executor", true, K_NONE, NULL, D_NONE, { NULL } },
	{ "ros2:callback_start", false, K_CB, "callback", D_NONE, { NULL } },
	{ "ros2:callback_end", false, K_CB, "callback", D_NONE, { NULL } },
	{ "ros2:rclcpp_publish", false, K_PUB, "publisher_handle", D_NONE, { NULL } },
	{ "ros2:rclcpp_intra_publish", false, K_PUB, "publisher_handle", D_NONE, { NULL } },
	{ "ros2:rclcpp_ring_buffer_enqueue", false, K_NONE, NULL, D_NONE, { NULL } },
	{ "ros2:rclcpp_ring_buffer_dequeue", false, K_NONE, NULL, D_NONE, { NULL } },
	{ "ros2:message_construct", false, K_NONE, NULL, D_NONE, { NULL } },
	{ "ros2:dispatch_subscription_callback", false, K_CB, "callback", D_NONE, { NULL } },
	{ "ros2:rmw_take", false, K_RMW, "rmw_subscription_handle", D_NONE, { NULL } },
	{ "ros2:dispatch_intra_process_subscription_callback", false, K_CB, "callback", D_NONE,
	  { NULL } },
	{ "ros2:rcl_publish", false, K_PUB, "publisher_handle", D_NONE, { NULL } },
	{ "ros2_caret:dds_write", false, K_NONE, NULL, D_NONE, { NULL } },
	{ "ros2_caret:dds_bind_addr_to_stamp", false, K_NONE, NULL, D_NONE, { NULL } },
	{ "ros2_caret:dds_bind_addr_to_addr", false, K_NONE, NULL, D_NONE, { NULL } },
	{ "ros2_caret:tilde_publish", false, K_NONE, NULL, D_NONE, { NULL } },
	{ "ros2_caret:tilde_subscribe", false, K_NONE, NULL, D_NONE, { NULL } },
	{ "agnocast:agnocast_callable_start", false, K_NONE, NULL, D_NONE, { NULL } },
	{ "agnocast:agnocast_callable_end", false, K_NONE, NULL, D_NONE, { NULL } },
	{ "agnocast:agnocast_create_callable", false, K_NONE, NULL, D_NONE, { NULL } },
	{ "agnocast:agnocast_create_timer_callable", false, K_NONE, NULL, D_NONE, { NULL } },
	{ "agnocast:agnocast_publish", false, K_NONE, NULL, D_NONE, { NULL } },
	{ "agnocast:agnocast_take", false, K_NONE, NULL, D_NONE, { NULL } },
	/* the analyzer takes sim_time from any process (no _is_valid_data) */
	{ "ros2_caret:sim_time", true, K_NONE, NULL, D_NONE, { NULL } },
	{ "ros2_caret:on_data_available", false, K_NONE, NULL, D_NONE, { NULL } },
	{ "ros2_caret:caret_init", true, K_NONE, NULL, D_NONE, { NULL } },
};
#define NTPS (sizeof(tps) / sizeof(tps[0]))

const char *check_summary_tp_name(size_t i)
{
	return i < NTPS ? tps[i].name : NULL;
}

void check_summary_class(struct check_sum_class *c, const char *name, const bt_field_class *pl)
{
	c->tp = -1;
	c->key = -1;
	for (int i = 0; i < CHECK_SUM_FIELDS; i++)
		c->f[i] = -1;
	for (size_t i = 0; i < NTPS && c->tp < 0; i++) {
		if (strcmp(name, tps[i].name) == 0)
			c->tp = (int)i;
		/* ros2_caret:<init> is read as ros2:<init> (processor.py) */
		else if (tps[i].init && strncmp(tps[i].name, "ros2:", 5) == 0 &&
			 strncmp(name, "ros2_caret:", 11) == 0 &&
			 strcmp(name + 11, tps[i].name + 5) == 0)
			c->tp = (int)i;
	}
	if (c->tp < 0)
		return;
	const struct tp *t = &tps[c->tp];
	if (t->key_field)
		c->key = check_member(pl, t->key_field);
	for (int i = 0; i < CHECK_SUM_FIELDS; i++)
		if (t->f[i])
			c->f[i] = check_member(pl, t->f[i]);
}

static uint64_t hkey(unsigned what, int64_t vpid, uint64_t v)
{
	return check_hcomb(check_hcomb(check_hcomb(0x5e11, what), (uint64_t)vpid), v);
}

static bool get(const struct check_map *m, uint64_t key, uint64_t *v)
{
	if (!check_map_has(m, key))
		return false;
	bool added;
	/* present: a lookup, nothing is added */
	*v = *check_map_slot((struct check_map *)m, key, &added);
	return true;
}

static int put(struct check_map *m, uint64_t key, uint64_t v)
{
	bool added;
	uint64_t *slot = check_map_slot(m, key, &added);
	if (!slot)
		return -ENOMEM;
	*slot = v;
	return 0;
}

/* s interned: its index + 1, 0 on ENOMEM. */
static uint32_t intern(struct check_summary *s, const char *str)
{
	uint64_t h = check_hstr(0x57, str), v;
	if (get(&s->strs, h, &v) && strcmp(s->str[v - 1], str) == 0)
		return (uint32_t)v;
	for (size_t i = 0; i < s->nstr; i++) /* a hash collision: rare */
		if (strcmp(s->str[i], str) == 0)
			return (uint32_t)(i + 1);
	if (s->nstr >= UINT32_MAX - 1 ||
	    caret_grow((void **)&s->str, &s->str_cap, s->nstr + 1, sizeof(*s->str)) < 0)
		return 0;
	if (!(s->str[s->nstr] = strdup(str)))
		return 0;
	s->nstr++;
	if (put(&s->strs, h, s->nstr) < 0)
		return 0;
	return (uint32_t)s->nstr;
}

static int define(struct check_summary *s, const struct check_sum_class *c, int64_t vpid,
		  const bt_field *pl)
{
	uint64_t a = 0, b = 0, d = 0;
	const struct tp *t = &tps[c->tp];
	if (t->def == D_NONE || !check_fint(pl, c->f[0], &a))
		return 0;
	switch (t->def) {
	case D_NODE: {
		const char *nm = check_fstr(pl, c->f[1]), *ns = check_fstr(pl, c->f[2]);
		char *full;
		if (!nm || !ns)
			return 0;
		/* event_counter.py ns_and_node_name */
		size_t l = strlen(ns);
		if (asprintf(&full, "%s%s%s", ns, l && ns[l - 1] == '/' ? "" : "/", nm) < 0)
			return -ENOMEM;
		uint32_t i = intern(s, full);
		free(full);
		return i ? put(&s->nodes, hkey(D_NODE, vpid, a), i) : -ENOMEM;
	}
	case D_PUB:
	case D_SUB: {
		const char *topic = check_fstr(pl, c->f[2]);
		if (!check_fint(pl, c->f[1], &b) || !topic)
			return 0;
		uint32_t ti = intern(s, topic);
		if (!ti || caret_grow((void **)&s->objs, &s->objs_cap, s->nobjs + 1,
				      sizeof(*s->objs)) < 0)
			return -ENOMEM;
		s->objs[s->nobjs++] = (struct check_sum_obj){ vpid, b, ti };
		if (t->def == D_PUB)
			return put(&s->pubs, hkey(D_PUB, vpid, a), s->nobjs);
		if (check_fint(pl, c->f[3], &d) && put(&s->rmws, hkey(D_SUB, vpid, d), s->nobjs) < 0)
			return -ENOMEM;
		return put(&s->subs, hkey(D_SUB, vpid, a), s->nobjs);
	}
	case D_RSUB:
		return check_fint(pl, c->f[1], &b) ? put(&s->rsubs, hkey(D_RSUB, vpid, a), b) : 0;
	case D_TIMER:
		return check_fint(pl, c->f[1], &b) ? put(&s->timers, hkey(D_TIMER, vpid, a), b) : 0;
	case D_CB:
		if (!check_fint(pl, c->f[1], &b))
			return 0;
		if (caret_grow((void **)&s->cbs, &s->cbs_cap, s->ncbs + 1, sizeof(*s->cbs)) < 0)
			return -ENOMEM;
		s->cbs[s->ncbs++] = (struct check_sum_cb){ vpid, a, b };
		return 0;
	default:
		return 0;
	}
}

int check_summary_event(struct check_summary *s, const struct check_sum_class *c, int64_t vpid,
			bool valid, const bt_field *pl)
{
	if (c->tp < 0)
		return 0;
	if (tps[c->tp].def == D_GLOBAL) {
		const char *v = check_fstr(pl, c->f[0]);
		bool first;
		if (v && !check_map_slot(&s->globals, check_hstr((uint64_t)c->tp, v), &first))
			return -ENOMEM;
		if (v && !first)
			return 0;
		vpid = 0; /* counted once, whichever process */
	}
	uint64_t key = 0;
	bool has_key = check_fint(pl, c->key, &key);
	bool added;
	uint64_t *slot = check_map_slot(&s->entries,
					check_hcomb(hkey(0xe, vpid, (uint64_t)c->tp),
						    has_key ? key : 0x6e6f6b6579ULL),
					&added);
	if (!slot)
		return -ENOMEM;
	if (added) {
		if (caret_grow((void **)&s->e, &s->e_cap, s->ne + 1, sizeof(*s->e)) < 0)
			return -ENOMEM;
		s->e[s->ne] = (struct check_sum_entry){ vpid, key, 0, 0, c->tp, has_key };
		*slot = s->ne++;
	}
	/* init records and sim_time count whatever their process did */
	if (valid || tps[c->tp].init)
		s->e[*slot].valid++;
	else
		s->e[*slot].early++;
	return define(s, c, vpid, pl);
}

/* The node and topic of an object: interned index + 1, 0 for "-". */
static void of_obj(const struct check_summary *s, uint64_t objidx, uint32_t *node,
		   uint32_t *topic)
{
	const struct check_sum_obj *o = &s->objs[objidx - 1];
	uint64_t v;
	*topic = o->topic;
	*node = get(&s->nodes, hkey(D_NODE, o->vpid, o->node_handle), &v) ? (uint32_t)v : 0;
}

/* event_counter.py: callbacks of rclcpp subscriptions get their
 * subscription's node and topic, callbacks of timers linked to a node
 * that node; a later record of the same callback wins. */
static int resolve_callbacks(struct check_summary *s, struct check_map *cbs)
{
	for (size_t i = 0; i < s->ncbs; i++) {
		const struct check_sum_cb *cb = &s->cbs[i];
		uint64_t sub, objidx, node;
		uint32_t n = 0, t = 0;
		if (get(&s->rsubs, hkey(D_RSUB, cb->vpid, cb->ref), &sub)) {
			if (get(&s->subs, hkey(D_SUB, cb->vpid, sub), &objidx))
				of_obj(s, objidx, &n, &t);
		} else if (get(&s->timers, hkey(D_TIMER, cb->vpid, cb->ref), &node)) {
			uint64_t v;
			n = get(&s->nodes, hkey(D_NODE, cb->vpid, node), &v) ? (uint32_t)v : 0;
		} else {
			continue;
		}
		if (put(cbs, hkey(D_CB, cb->vpid, cb->callback), (uint64_t)n | (uint64_t)t << 32) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int cmp_count(const void *a, const void *b)
{
	const struct check_evcount *x = a, *y = b;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* The non-zero counts of names[], as a sorted list. */
static int to_list(const uint64_t *counts, char *const *names, size_t n, bool keep_zero,
		   struct check_evcount **out, size_t *nout)
{
	*out = calloc(n ? n : 1, sizeof(**out));
	*nout = 0;
	if (!*out)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (!counts[i] && !keep_zero)
			continue;
		struct check_evcount *e = &(*out)[(*nout)++];
		e->count = counts[i];
		if (!(e->name = strdup(names[i])))
			return -ENOMEM;
	}
	if (*nout > 1)
		qsort(*out, *nout, sizeof(**out), cmp_count);
	return 0;
}

int check_summary_finish(struct check_summary *s, struct check_report *r, bool any_caret_init)
{
	struct check_map cbs = { 0 };
	uint64_t tpc[NTPS] = { 0 };
	uint64_t *nodec = calloc(s->nstr + 1, sizeof(*nodec)),
		 *topicc = calloc(s->nstr + 1, sizeof(*topicc));
	int rc = -ENOMEM;
	if (!nodec || !topicc || resolve_callbacks(s, &cbs) < 0)
		goto out;
	for (size_t i = 0; i < s->ne; i++) {
		const struct check_sum_entry *e = &s->e[i];
		/* processor.py drops runtime events before their process's
		 * caret_init only when the trace has one */
		uint64_t n = e->valid + (any_caret_init ? 0 : e->early);
		uint32_t node = 0, topic = 0;
		uint64_t v;
		tpc[e->tp] += n;
		if (!e->has_key)
			continue;
		switch (tps[e->tp].key) {
		case K_CB:
			if (get(&cbs, hkey(D_CB, e->vpid, e->key), &v)) {
				node = (uint32_t)v;
				topic = (uint32_t)(v >> 32);
			}
			break;
		case K_PUB:
			if (get(&s->pubs, hkey(D_PUB, e->vpid, e->key), &v))
				of_obj(s, v, &node, &topic);
			break;
		case K_SUB:
			if (get(&s->subs, hkey(D_SUB, e->vpid, e->key), &v))
				of_obj(s, v, &node, &topic);
			break;
		case K_RMW:
			if (get(&s->rmws, hkey(D_SUB, e->vpid, e->key), &v))
				of_obj(s, v, &node, &topic);
			break;
		default:
			break;
		}
		if (node)
			nodec[node - 1] += n;
		if (topic)
			topicc[topic - 1] += n;
	}
	char *names[NTPS];
	for (size_t i = 0; i < NTPS; i++)
		names[i] = (char *)tps[i].name;
	/* trace_point_summary lists every trace point, 0 too; the node and
	 * topic summaries only what has events */
	if (to_list(tpc, names, NTPS, true, &r->tracepoints, &r->ntracepoints) < 0 ||
	    to_list(nodec, s->str, s->nstr, false, &r->node_events, &r->nnode_events) < 0 ||
	    to_list(topicc, s->str, s->nstr, false, &r->topic_events, &r->ntopic_events) < 0)
		goto out;
	rc = 0;
out:
	check_map_free(&cbs);
	free(nodec);
	free(topicc);
	return rc;
}

void check_summary_free(struct check_summary *s)
{
	for (size_t i = 0; i < s->nstr; i++)
		free(s->str[i]);
	free(s->str);
	free(s->e);
	free(s->objs);
	free(s->cbs);
	struct check_map *maps[] = { &s->entries, &s->strs,  &s->nodes,  &s->pubs,   &s->subs,
				     &s->rmws,	  &s->rsubs, &s->timers, &s->globals };
	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++)
		check_map_free(maps[i]);
	memset(s, 0, sizeof(*s));
}
