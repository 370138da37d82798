/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The relations the filters decide over, learnt from init records (init
 * time only, always, with the names they match against, so that a pass
 * filter given later can be decided), and the verdicts they give under
 * each filter set, with caret_trace's semantics (tracing_controller.cpp's
 * is_allowed_*; the rules are listed in filter.c). Every verdict is
 * stored in the lock-free table (filter_verdicts.c) the runtime hooks read.
 * Every function runs under filter.c's lock: the one writer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/filter_rel.h"
#include "agent/filter_verdicts.h"

struct filter_set filter_sets[FILTER_NSETS];

enum ent_kind {
	E_NODE, E_PUB, E_SUB, E_RCLCPP_SUB, E_TIMER, E_SRV, E_CLI, E_CB,
	E_GROUP, /* a callback group: owner is a member's handle, of kind member */
	E_SM,    /* a lifecycle state machine: node */
	E_IPB,   /* an intra-process buffer: owner is its rclcpp subscription */
	E_BUF,   /* a ring buffer: owner is its intra-process buffer */
	E_COUNT
};

struct ent {
	enum ent_kind kind, member;
	const void *h, *node, *rmw, *owner;
	char *name;             /* node: "/ns/name"; pub/sub: topic; NULL: unknown */
	bool named;             /* node: name known; pub/sub: topic known */
	bool m_sel[FILTER_NSETS], m_ign[FILTER_NSETS]; /* per set: the name matches */
};

/* One array per kind, so a lookup scans only its kind. */
static struct ent *ents[E_COUNT];
static size_t nents[E_COUNT], cap[E_COUNT];

static struct ent *find(enum ent_kind k, const void *h)
{
	/* Newest first: an address reused by a new object wins. */
	for (size_t i = nents[k]; i-- > 0;)
		if (ents[k][i].h == h)
			return &ents[k][i];
	return NULL;
}

static struct ent *add(enum ent_kind k, const void *h)
{
	if (nents[k] == cap[k]) {
		size_t nc = cap[k] ? cap[k] * 2 : 64;
		struct ent *n = realloc(ents[k], nc * sizeof(*n));
		if (!n)
			return NULL;
		ents[k] = n;
		cap[k] = nc;
	}
	struct ent *e = &ents[k][nents[k]++];
	memset(e, 0, sizeof(*e));
	e->kind = k;
	e->h = h;
	return e;
}

/* The match bits of a named entity against one set's lists. */
static void match(struct ent *e, int set)
{
	const struct filter_set *f = &filter_sets[set];
	bool node = e->kind == E_NODE;
	e->m_sel[set] = e->name && filter_list_match(node ? &f->sel_nodes : &f->sel_topics, e->name);
	e->m_ign[set] = e->name && filter_list_match(node ? &f->ign_nodes : &f->ign_topics, e->name);
}

/* tracing_controller.cpp is_allowed_node: a node list of either kind
 * decides, SELECT's first (with only SELECT_TOPICS set, IGNORE_NODES
 * still applies to nodes there). */
static uint32_t node_verdict(const struct ent *n, int set)
{
	const struct filter_set *f = &filter_sets[set];
	if (!n || !n->named)
		return V_UNKNOWN;
	if (f->select_enabled && f->sel_nodes.set)
		return n->m_sel[set] ? V_ALLOW : V_DENY;
	if (f->ignore_enabled && f->ign_nodes.set)
		return n->m_ign[set] ? V_DENY : V_ALLOW;
	return V_ALLOW;
}

/* is_allowed_publisher_handle / is_allowed_subscription_handle */
static uint32_t topic_verdict(const struct ent *e, int set)
{
	const struct filter_set *f = &filter_sets[set];
	const struct ent *n = e ? find(E_NODE, e->node) : NULL;
	if (!e || !e->named || !n || !n->named)
		return V_UNKNOWN;
	if (f->select_enabled)
		return (f->sel_topics.set && e->m_sel[set]) || (f->sel_nodes.set && n->m_sel[set])
			       ? V_ALLOW
			       : V_DENY;
	if (f->ignore_enabled)
		return (f->ign_nodes.set && n->m_ign[set]) || (f->ign_topics.set && e->m_ign[set])
			       ? V_DENY
			       : V_ALLOW;
	return V_ALLOW;
}

/* is_allowed_timer_handle (services and clients alike): by node; with
 * SELECT set and no node list, nothing matches. */
static uint32_t by_node_verdict(const struct ent *e, int set)
{
	const struct filter_set *f = &filter_sets[set];
	const struct ent *n = e ? find(E_NODE, e->node) : NULL;
	if (!n || !n->named)
		return V_UNKNOWN;
	if (f->select_enabled)
		return f->sel_nodes.set && n->m_sel[set] ? V_ALLOW : V_DENY;
	if (f->ignore_enabled)
		return f->ign_nodes.set && n->m_ign[set] ? V_DENY : V_ALLOW;
	return V_ALLOW;
}

/* A timer's own records (rcl_timer_init, rclcpp_timer_callback_added,
 * callback_group_add_timer). caret_trace asks is_allowed_timer_handle of
 * each when rclcpp emits it, and rclcpp emits all three before it links the
 * timer to its node (timer.hpp GenericTimer(): rclcpp_timer_callback_added;
 * node_timers.cpp NodeTimers::add_timer: callback_group->add_timer, then
 * rclcpp_timer_link_node last), so it finds no node and keeps them
 * ("node_name.size() == 0": true), whatever the lists; only the link goes
 * by is_allowed_node. So with a SELECT list of topics alone, CARET's trace
 * from launch has every timer, linked (is_allowed_node keeps a node when no
 * node list is set), as is_allowed_callback says of timer callbacks
 * ("selected_node_names_.size() == 0 && topic_name == \"\"": allow timer
 * callback): timers belong to nodes, not topics. Judged by their node in
 * a replay (the node is known then; caret_trace's own late replay does so,
 * add_timer_handle having erased the cached verdict), they were all lost,
 * their link kept: the late path decides as the launch path does instead.
 * With a node list the node decides: from launch the three are kept
 * unlinked, as in caret_trace, since the node is not known yet. */
static uint32_t timer_verdict(const struct ent *e, int set)
{
	const struct filter_set *f = &filter_sets[set];
	if (f->select_enabled && !f->sel_nodes.set)
		return V_ALLOW;
	return by_node_verdict(e, set);
}

/* is_allowed_callback: only subscription callbacks have a topic. */
static uint32_t callback_verdict(const struct ent *cb, int set)
{
	const struct ent *rs = find(E_RCLCPP_SUB, cb->owner);
	if (!rs)
		return V_ALLOW;
	return topic_verdict(find(E_SUB, rs->owner), set);
}

/* add_callback_group(_static_executor): caret_trace asks is_allowed_node
 * of the node rclcpp hands the hook, which the record does not carry: a
 * group's node is its members' (callback_group_add_* come first, when
 * the node creates its entities). */
static uint32_t group_verdict(const struct ent *g, int set)
{
	return g->node ? node_verdict(find(E_NODE, g->node), set) : V_UNKNOWN;
}

/* A group without a member of known node takes the node of another group
 * the executor was given with the same node interface (rmw: its address,
 * caret_filter_note_group_node). */
static const void *group_node_by_key(const void *key)
{
	for (size_t i = 0; key && i < nents[E_GROUP]; i++)
		if (ents[E_GROUP][i].rmw == key && ents[E_GROUP][i].node)
			return ents[E_GROUP][i].node;
	return NULL;
}

/* is_allowed_ipb / is_allowed_buffer: by the subscription they feed, as
 * its topic and node decide. */
static uint32_t ipb_verdict(const struct ent *ipb, int set)
{
	const struct ent *rs = ipb ? find(E_RCLCPP_SUB, ipb->owner) : NULL;
	return rs ? topic_verdict(find(E_SUB, rs->owner), set) : V_UNKNOWN;
}

static void store_set(struct ent *e, int set)
{
	uint32_t v;
	switch (e->kind) {
	case E_NODE:
		v = node_verdict(e, set);
		break;
	case E_PUB:
	case E_SUB:
		v = topic_verdict(e, set);
		filter_vt_set(e->rmw, set, v);
		break;
	case E_TIMER:
		v = timer_verdict(e, set);
		break;
	case E_SRV:
	case E_CLI:
		v = by_node_verdict(e, set);
		break;
	case E_CB:
		v = callback_verdict(e, set);
		break;
	case E_GROUP:
		v = group_verdict(e, set);
		break;
	case E_SM:
		v = by_node_verdict(e, set);
		break;
	case E_IPB:
		v = ipb_verdict(e, set);
		break;
	case E_BUF:
		v = ipb_verdict(find(E_IPB, e->owner), set);
		break;
	default:
		return;
	}
	filter_vt_set(e->h, set, v);
}

static void store(struct ent *e)
{
	for (int set = 0; set < FILTER_NSETS; set++)
		store_set(e, set);
}

static void store_all(enum ent_kind k)
{
	for (size_t i = 0; i < nents[k]; i++)
		store(&ents[k][i]);
}

/* Entities decided through others are decided again when a relation they
 * lean on is learnt after them (init time, rare, each a scan of one kind):
 * a group whose member is linked to its node later (a timer), the buffers
 * of an intra-process buffer. */
static void owner_learnt(enum ent_kind k, const void *owner, const void *node)
{
	for (size_t i = 0; i < nents[k]; i++) {
		struct ent *e = &ents[k][i];
		if (e->owner != owner || (k == E_GROUP && (e->member != E_TIMER || e->node)))
			continue;
		if (k == E_GROUP)
			e->node = node;
		store(e);
		if (k == E_IPB)
			owner_learnt(E_BUF, e->h, NULL);
	}
}

/* A node named late (after entities that point at it, like Iron's rosout
 * publisher): its entities, then every callback, are decided again. */
static void node_named(const void *node)
{
	static const enum ent_kind by_node[] = { E_PUB, E_SUB, E_TIMER, E_SRV, E_CLI, E_SM,
						 E_GROUP };
	bool subs = false;
	for (size_t k = 0; k < sizeof(by_node) / sizeof(by_node[0]); k++)
		for (size_t i = 0; i < nents[by_node[k]]; i++)
			if (ents[by_node[k]][i].node == node) {
				store(&ents[by_node[k]][i]);
				subs |= by_node[k] == E_SUB;
			}
	if (subs) {
		store_all(E_CB);
		store_all(E_IPB);
		store_all(E_BUF);
	}
}

static struct ent *note_topic(enum ent_kind k, const union caret_arg *a)
{
	struct ent *e = add(k, filter_arg_ptr(a, 0));
	if (!e)
		return NULL;
	e->node = filter_arg_ptr(a, 1);
	e->rmw = filter_arg_ptr(a, 2);
	e->named = a[3].s && *a[3].s;
	e->name = e->named ? strdup(a[3].s) : NULL;
	return e;
}


/* Over 80 lines: one case per init record kind that carries a relation. */
void filter_rel_note(uint32_t kind, const union caret_arg *a)
{
	struct ent *e = NULL;
	switch (kind) {
	case CARET_KIND_rcl_node_init: {
		e = add(E_NODE, filter_arg_ptr(a, 0));
		if (!e)
			break;
		/* caret_trace: namespace, a '/' unless it ends with one, name. */
		char full[1024];
		const char *ns = a[3].s ? a[3].s : "", *nm = a[2].s ? a[2].s : "";
		size_t l = strlen(ns);
		snprintf(full, sizeof(full), "%s%s%s", ns, l && ns[l - 1] == '/' ? "" : "/", nm);
		e->named = true;
		e->name = strdup(full);
		break;
	}
	case CARET_KIND_rcl_publisher_init:
		e = note_topic(E_PUB, a);
		break;
	case CARET_KIND_rcl_subscription_init:
		e = note_topic(E_SUB, a);
		break;
	case CARET_KIND_rclcpp_subscription_init:
		/* (subscription_handle, subscription) */
		if ((e = add(E_RCLCPP_SUB, filter_arg_ptr(a, 1)))) {
			e->owner = filter_arg_ptr(a, 0);
			owner_learnt(E_IPB, e->h, NULL);
		}
		break;
	case CARET_KIND_rclcpp_subscription_callback_added:
	case CARET_KIND_rclcpp_timer_callback_added:
	case CARET_KIND_rclcpp_service_callback_added:
		/* (owner, callback) */
		if ((e = add(E_CB, filter_arg_ptr(a, 1))))
			e->owner = filter_arg_ptr(a, 0);
		break;
	case CARET_KIND_rcl_timer_init:
		add(E_TIMER, filter_arg_ptr(a, 0));
		break;
	case CARET_KIND_rclcpp_timer_link_node:
		if ((e = find(E_TIMER, filter_arg_ptr(a, 0))) || (e = add(E_TIMER, filter_arg_ptr(a, 0)))) {
			e->node = filter_arg_ptr(a, 1);
			owner_learnt(E_GROUP, e->h, e->node);
		}
		break;
	case CARET_KIND_rcl_service_init:
		if ((e = add(E_SRV, filter_arg_ptr(a, 0))))
			e->node = filter_arg_ptr(a, 1);
		break;
	case CARET_KIND_rcl_client_init:
		if ((e = add(E_CLI, filter_arg_ptr(a, 0))))
			e->node = filter_arg_ptr(a, 1);
		break;
	case CARET_KIND_callback_group_add_timer:
	case CARET_KIND_callback_group_add_subscription:
	case CARET_KIND_callback_group_add_service:
	case CARET_KIND_callback_group_add_client:
		/* (group, member): the first member names the group's node */
		e = find(E_GROUP, filter_arg_ptr(a, 0));
		if (e && e->node) {
			e = NULL; /* its node is known */
		} else if (e || (e = add(E_GROUP, filter_arg_ptr(a, 0)))) {
			e->owner = filter_arg_ptr(a, 1);
			e->member = kind == CARET_KIND_callback_group_add_timer	? E_TIMER
				    : kind == CARET_KIND_callback_group_add_subscription ? E_SUB
				    : kind == CARET_KIND_callback_group_add_service	? E_SRV
											: E_CLI;
			const struct ent *m = find(e->member, e->owner);
			e->node = m ? m->node : NULL;
		}
		break;
	case CARET_KIND_rcl_lifecycle_state_machine_init:
		/* (node_handle, state_machine) */
		if ((e = add(E_SM, filter_arg_ptr(a, 1))))
			e->node = filter_arg_ptr(a, 0);
		break;
	case CARET_KIND_rclcpp_ipb_to_subscription:
		/* (ipb, subscription) */
		if ((e = add(E_IPB, filter_arg_ptr(a, 0)))) {
			e->owner = filter_arg_ptr(a, 1);
			owner_learnt(E_BUF, e->h, NULL);
		}
		break;
	case CARET_KIND_rclcpp_buffer_to_ipb:
		/* (buffer, ipb) */
		if ((e = add(E_BUF, filter_arg_ptr(a, 0))))
			e->owner = filter_arg_ptr(a, 1);
		break;
	default:
		break;
	}
	if (e) {
		for (int set = 0; set < FILTER_NSETS; set++)
			match(e, set);
		store(e);
		if (e->kind == E_NODE)
			node_named(e->h);
	}
}


void filter_rel_group_node(const void *group, const void *node_key)
{
	struct ent *g = find(E_GROUP, group);
	if (!g && (g = add(E_GROUP, group)))
		g->member = E_GROUP; /* no member seen: owner never matches */
	if (g && !g->rmw) {
		g->rmw = node_key;
		if (g->node) {
			/* groups of that interface seen before without a node */
			for (size_t i = 0; i < nents[E_GROUP]; i++) {
				struct ent *o = &ents[E_GROUP][i];
				if (o->rmw == node_key && !o->node) {
					o->node = g->node;
					store(o);
				}
			}
		} else if ((g->node = group_node_by_key(node_key))) {
			store(g);
		}
	}
}


void filter_rel_decide(int set)
{
	for (int k = 0; k < E_COUNT; k++)
		for (size_t i = 0; i < nents[k]; i++)
			match(&ents[k][i], set);
	for (int k = 0; k < E_COUNT; k++)
		for (size_t i = 0; i < nents[k]; i++)
			store_set(&ents[k][i], set);
}

void filter_rel_reset(void)
{
	for (int k = 0; k < E_COUNT; k++) {
		for (size_t i = 0; i < nents[k]; i++)
			free(ents[k][i].name);
		free(ents[k]);
		ents[k] = NULL;
		nents[k] = cap[k] = 0;
	}
	filter_vt_clear();
}
