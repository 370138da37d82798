/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What `caretctl check` learns from a trace, one babeltrace2 message at a
 * time. The rules are caret_analyze's (tier4/caret_analyze,
 * infra/lttng/ros2_tracing/processor.py): runtime events of a vpid that
 * never emitted ros2_caret:caret_init are dropped when the trace has any
 * caret_init; init events are read from either provider (ros2: or
 * ros2_caret:, the latter with init_timestamp); a publish is joined to its
 * take through dds_write -> dds_bind_addr_to_stamp(addr, source_stamp) on
 * the publishing thread and rmw_take(source_timestamp) on the taker. The
 * analyzer joins publish and binding by thread and time, not by address
 * (records_source.py: merge_sequential on tid), which also covers CARET's
 * FastDDS path where dds_bind_addr_to_addr moves the address in between;
 * so does this check. A replay pass is judged by our marks around it
 * (ros2_caret:caret_replay_begin/end, which the analyzer never reads):
 * the records its thread emitted between them against the counts they
 * state.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "check_discards.h"
#include "check_links.h"
#include "check_field.h"
#include "check_map.h"
#include "check_pass.h"
#include "check_summary.h"
#include "util/caret_util.h"

/* caret_analyze's init events (infra/lttng/lttng.py,
 * Lttng._prioritized_init_events), without their provider. */
static const char *const init_kinds[] = {
	"rcl_init", "rcl_node_init", "rcl_publisher_init", "rcl_subscription_init",
	"rclcpp_subscription_init", "rclcpp_subscription_callback_added",
	"rcl_service_init", "rclcpp_service_callback_added", "rcl_client_init",
	"rcl_timer_init", "rclcpp_timer_callback_added", "rclcpp_timer_link_node",
	"rclcpp_callback_register", "rcl_lifecycle_state_machine_init",
	"rclcpp_construct_ring_buffer", "rclcpp_buffer_to_ipb",
	"rclcpp_ipb_to_subscription", "rmw_implementation", "construct_executor",
	"construct_static_executor", "add_callback_group",
	"add_callback_group_static_executor", "callback_group_add_timer",
	"callback_group_add_subscription", "callback_group_add_service",
	"callback_group_add_client", "executor_entity_collector_to_executor",
	"callback_group_to_executor_entity_collector",
	"agnocast_init", "agnocast_node_init", "agnocast_publisher_init",
	"agnocast_subscription_init", "agnocast_timer_init", "agnocast_add_callback_group",
	"agnocast_construct_executor",
};
#define NKINDS (sizeof(init_kinds) / sizeof(init_kinds[0]))
_Static_assert(NKINDS <= CHECK_MAX_KINDS, "CHECK_MAX_KINDS too small");

const char *check_kind_name(size_t i)
{
	return i < NKINDS ? init_kinds[i] : NULL;
}

const char *check_ctx_name(size_t i)
{
	static const char *const names[CHECK_NCTX] = { "vpid", "vtid", "procname" };
	return i < CHECK_NCTX ? names[i] : NULL;
}

enum role {
	R_OTHER,	/* not a ROS 2 event: counted, nothing else */
	R_RUNTIME,
	R_INIT,
	R_CARET_INIT,
	R_DDS_WRITE,
	R_BIND,
	R_TAKE,
	R_PASS_BEGIN,
	R_PASS_END,
};

struct evclass {
	const bt_event_class *key;
	char *name;
	enum role role;
	int kind;	/* init kind index, or -1 */
	bool caret;	/* ros2_caret provider */
	int c_vpid, c_vtid, c_procname;
	int f_init_ts, f_addr, f_stamp, f_src_ts, f_taken;
	int f_handle, f_node_name, f_ns, f_topic, f_pass, f_records;
	int link_f[CHECK_LINK_OPS];
	struct check_sum_class sum;
	uint64_t count;
};

struct tid_state {
	bool pending; /* a dds_write not yet followed by its binding */
	size_t proc;
};

struct binding {
	uint64_t stamp;
	size_t proc;
};

struct check_model {
	struct check_report r;
	size_t procs_cap, nodes_cap, topics_cap;
	struct evclass *cls;
	size_t ncls, cls_cap;
	struct check_map cls_by_ptr, proc_by_vpid, tids_idx, exact, variants, takes, handles;
	struct check_links links;
	struct check_discards discards;
	struct check_summary sum;
	struct tid_state *tids;
	size_t ntids, tids_cap;
	struct binding *binds;
	size_t nbinds, binds_cap;
	int64_t last_vpid;
	size_t last_proc;
	bool have_last, have_first;
};

struct check_model *check_model_new(void)
{
	return calloc(1, sizeof(struct check_model));
}

void check_model_free(struct check_model *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->ncls; i++)
		free(m->cls[i].name);
	for (size_t i = 0; i < m->r.nnodes; i++)
		free(m->r.nodes[i].name);
	for (size_t i = 0; i < m->r.ntopics; i++)
		free(m->r.topics[i].name);
	for (size_t i = 0; i < m->r.nevcounts; i++)
		free(m->r.evcounts[i].name);
	struct check_evcount *lists[] = { m->r.tracepoints, m->r.node_events, m->r.topic_events };
	size_t nlists[] = { m->r.ntracepoints, m->r.nnode_events, m->r.ntopic_events };
	for (size_t l = 0; l < 3; l++) {
		for (size_t i = 0; lists[l] && i < nlists[l]; i++)
			free(lists[l][i].name);
		free(lists[l]);
	}
	check_summary_free(&m->sum);
	free(m->cls);
	free(m->r.procs);
	free(m->r.nodes);
	free(m->r.topics);
	free(m->r.evcounts);
	free(m->tids);
	free(m->binds);
	check_map_free(&m->cls_by_ptr);
	check_map_free(&m->proc_by_vpid);
	check_map_free(&m->tids_idx);
	check_map_free(&m->exact);
	check_map_free(&m->variants);
	check_map_free(&m->takes);
	check_map_free(&m->handles);
	check_links_free(&m->links);
	check_discards_free(&m->discards);
	free(m);
}

const struct check_report *check_model_report(const struct check_model *m)
{
	return &m->r;
}

static void classify(struct evclass *c, const bt_event_class *ec)
{
	const bt_stream_class *sc = bt_event_class_borrow_stream_class_const(ec);
	const bt_field_class *ctx = bt_stream_class_borrow_event_common_context_field_class_const(sc);
	const bt_field_class *pl = bt_event_class_borrow_payload_field_class_const(ec);
	const char *kind = NULL;
	c->kind = -1;
	c->role = R_OTHER;
	if (strncmp(c->name, "ros2_caret:", 11) == 0) {
		c->caret = true;
		kind = c->name + 11;
	} else if (strncmp(c->name, "ros2:", 5) == 0) {
		kind = c->name + 5;
	}
	if (kind) {
		c->role = R_RUNTIME;
		for (size_t i = 0; i < NKINDS; i++)
			if (strcmp(kind, init_kinds[i]) == 0) {
				c->kind = (int)i;
				c->role = R_INIT;
			}
		if (c->caret && strcmp(kind, "caret_init") == 0)
			c->role = R_CARET_INIT;
		else if (c->caret && strcmp(kind, "dds_write") == 0)
			c->role = R_DDS_WRITE;
		else if (c->caret && strcmp(kind, "dds_bind_addr_to_stamp") == 0)
			c->role = R_BIND;
		else if (strcmp(kind, "rmw_take") == 0)
			c->role = R_TAKE;
		/* record -c's sim time, from caret-simclock (or CARET's
		 * clock_recorder), a process with no ROS entity: the analyzer
		 * takes it from any vpid, caret_init or not (processor.py
		 * _handle_sim_time has no _is_valid_data) */
		else if (c->caret && strcmp(kind, "sim_time") == 0)
			c->role = R_OTHER;
		else if (c->caret && strcmp(kind, "caret_replay_begin") == 0)
			c->role = R_PASS_BEGIN;
		else if (c->caret && strcmp(kind, "caret_replay_end") == 0)
			c->role = R_PASS_END;
	}
	c->c_vpid = check_member(ctx, "vpid");
	c->c_vtid = check_member(ctx, "vtid");
	c->c_procname = check_member(ctx, "procname");
	c->f_init_ts = check_member(pl, "init_timestamp");
	c->f_addr = check_member(pl, "addr");
	c->f_stamp = check_member(pl, "source_stamp");
	c->f_src_ts = check_member(pl, "source_timestamp");
	c->f_taken = check_member(pl, "taken");
	c->f_node_name = check_member(pl, "node_name");
	c->f_ns = check_member(pl, "namespace");
	c->f_topic = check_member(pl, "topic_name");
	c->f_pass = check_member(pl, "pass");
	c->f_records = check_member(pl, "records");
	if (c->kind >= 0 && strcmp(init_kinds[c->kind], "rcl_node_init") == 0)
		c->f_handle = check_member(pl, "node_handle");
	else if (c->kind >= 0 && strcmp(init_kinds[c->kind], "rcl_publisher_init") == 0)
		c->f_handle = check_member(pl, "publisher_handle");
	else if (c->kind >= 0 && strcmp(init_kinds[c->kind], "rcl_subscription_init") == 0)
		c->f_handle = check_member(pl, "subscription_handle");
	else
		c->f_handle = -1;
	for (int i = 0; i < CHECK_LINK_OPS; i++) {
		const char *f = c->kind >= 0 ? check_link_field(init_kinds[c->kind], i) : NULL;
		c->link_f[i] = f ? check_member(pl, f) : -1;
	}
	check_summary_class(&c->sum, c->name, pl);
}

static struct evclass *class_of(struct check_model *m, const bt_event_class *ec)
{
	bool added;
	uint64_t *slot = check_map_slot(&m->cls_by_ptr, (uint64_t)(uintptr_t)ec, &added);
	if (!slot)
		return NULL;
	if (!added)
		return &m->cls[*slot];
	if (caret_grow((void **)&m->cls, &m->cls_cap, m->ncls + 1, sizeof(*m->cls)) < 0)
		return NULL;
	struct evclass *c = &m->cls[m->ncls];
	memset(c, 0, sizeof(*c));
	c->key = ec;
	const char *name = bt_event_class_get_name(ec);
	c->name = strdup(name ? name : "(unnamed)");
	if (!c->name)
		return NULL;
	classify(c, ec);
	*slot = m->ncls++;
	return c;
}

static struct check_proc *proc_of(struct check_model *m, int64_t vpid, const bt_field *ctx,
				  const struct evclass *c, size_t *idx)
{
	if (m->have_last && m->last_vpid == vpid) {
		*idx = m->last_proc;
		return &m->r.procs[m->last_proc];
	}
	bool added;
	uint64_t *slot = check_map_slot(&m->proc_by_vpid, (uint64_t)vpid, &added);
	if (!slot)
		return NULL;
	if (added) {
		if (caret_grow((void **)&m->r.procs, &m->procs_cap, m->r.nprocs + 1,
			 sizeof(*m->r.procs)) < 0)
			return NULL;
		struct check_proc *p = &m->r.procs[m->r.nprocs];
		memset(p, 0, sizeof(*p));
		p->vpid = vpid;
		const char *pn = check_fstr(ctx, c->c_procname);
		snprintf(p->procname, sizeof(p->procname), "%s", pn ? pn : "?");
		*slot = m->r.nprocs++;
	}
	m->have_last = true;
	m->last_vpid = vpid;
	m->last_proc = *slot;
	*idx = *slot;
	return &m->r.procs[*slot];
}

static int add_node(struct check_model *m, int64_t vpid, const char *ns, const char *name)
{
	if (caret_grow((void **)&m->r.nodes, &m->nodes_cap, m->r.nnodes + 1, sizeof(*m->r.nodes)) < 0)
		return -ENOMEM;
	size_t l = strlen(ns);
	char *full;
	if (asprintf(&full, "%s%s%s", ns, l && ns[l - 1] == '/' ? "" : "/", name) < 0)
		return -ENOMEM;
	m->r.nodes[m->r.nnodes++] = (struct check_node){ vpid, full };
	return 0;
}

static int add_topic(struct check_model *m, const char *name, bool pub)
{
	struct check_topic *t = NULL;
	for (size_t i = 0; i < m->r.ntopics && !t; i++)
		if (strcmp(m->r.topics[i].name, name) == 0)
			t = &m->r.topics[i];
	if (!t) {
		if (caret_grow((void **)&m->r.topics, &m->topics_cap, m->r.ntopics + 1,
			 sizeof(*m->r.topics)) < 0)
			return -ENOMEM;
		t = &m->r.topics[m->r.ntopics];
		*t = (struct check_topic){ strdup(name), 0, 0 };
		if (!t->name)
			return -ENOMEM;
		m->r.ntopics++;
	}
	if (pub)
		t->publishers++;
	else
		t->subscriptions++;
	return 0;
}

static int on_init(struct check_model *m, const struct evclass *c, struct check_proc *p,
		   size_t pi, const bt_field *pl, int64_t ts)
{
	uint64_t h = check_hcomb(check_hcomb(0, (uint64_t)p->vpid), (uint64_t)c->kind);
	uint64_t n = pl ? bt_field_class_structure_get_member_count(bt_field_borrow_class_const(pl))
			: 0;
	/* A replayed record keeps its init_timestamp; a ros2: record has only
	 * its event time: two of them at different times are two objects
	 * (an address used again), not a copy. */
	uint64_t its = (uint64_t)ts;
	for (uint64_t i = 0; i < n; i++) {
		const bt_field *f = bt_field_structure_borrow_member_field_by_index_const(pl, i);
		if ((int)i == c->f_init_ts)
			check_fint(pl, c->f_init_ts, &its);
		else
			h = check_hfield(h, f, 0);
	}
	p->init[c->kind]++;
	p->init_total++;
	/* The same record twice from one provider: a second replay into the
	 * session (another session's start, or a replay pass started again). */
	bool added;
	uint64_t *e = check_map_slot(&m->exact, check_hcomb(check_hcomb(h, c->caret), its), &added);
	if (!e)
		return -ENOMEM;
	if (!added) {
		p->dup[c->kind]++;
		p->dup_total++;
		return 0;
	}
	/* The same record as ros2: and ros2_caret: (design section 3). */
	uint64_t *v = check_map_slot(&m->variants, h, &added);
	if (!v)
		return -ENOMEM;
	uint64_t bit = c->caret ? 2 : 1, before = *v;
	if ((*v | bit) == 3 && !(*v & bit))
		p->both_variants++;
	*v |= bit;
	if (before)
		return 0;
	/* ros2caret's summaries count each record once (the analyzer drops
	 * copies, whichever provider) */
	if (check_summary_event(&m->sum, &c->sum, p->vpid, true, pl) < 0)
		return -ENOMEM;
	uint64_t lv[CHECK_LINK_OPS] = { 0 };
	bool have[CHECK_LINK_OPS];
	for (int i = 0; i < CHECK_LINK_OPS; i++)
		have[i] = check_fint(pl, c->link_f[i], &lv[i]);
	if (check_links_record(&m->links, init_kinds[c->kind], lv, have, pi, p->vpid) < 0)
		return -ENOMEM;
	if (c->f_handle < 0)
		return 0;
	/* Nodes and topics once per object, whichever variant came first. */
	uint64_t handle;
	if (!check_fint(pl, c->f_handle, &handle))
		return 0;
	uint64_t *hs = check_map_slot(&m->handles,
				check_hcomb(check_hcomb(check_hcomb(1, (uint64_t)p->vpid), (uint64_t)c->kind), handle),
				&added);
	if (!hs)
		return -ENOMEM;
	if (!added)
		return 0;
	if (c->f_node_name >= 0) {
		const char *nm = check_fstr(pl, c->f_node_name), *ns = check_fstr(pl, c->f_ns);
		return add_node(m, p->vpid, ns ? ns : "/", nm ? nm : "?");
	}
	const char *topic = check_fstr(pl, c->f_topic);
	return topic ? add_topic(m, topic, strcmp(init_kinds[c->kind], "rcl_publisher_init") == 0)
		     : 0;
}

static struct tid_state *tid_of(struct check_model *m, int64_t vpid, uint64_t vtid, size_t proc)
{
	bool added;
	uint64_t *slot = check_map_slot(&m->tids_idx, ((uint64_t)vpid << 32) ^ vtid, &added);
	if (!slot)
		return NULL;
	if (added) {
		if (caret_grow((void **)&m->tids, &m->tids_cap, m->ntids + 1, sizeof(*m->tids)) < 0)
			return NULL;
		m->tids[m->ntids] = (struct tid_state){ false, proc };
		*slot = m->ntids++;
	}
	return &m->tids[*slot];
}

static void on_pass_mark(const struct evclass *c, struct check_proc *p, uint64_t vtid,
			 const bt_field *pl)
{
	uint64_t pass = 0, records = 0;
	if (!check_fint(pl, c->f_pass, &pass) || !check_fint(pl, c->f_records, &records))
		return;
	if (c->role == R_PASS_END)
		check_pass_end(p, vtid, pass, records);
	else
		check_pass_begin(p, vtid, pass, records);
}

/* The event's time (ns from origin; 0 when unknown), kept as the trace's
 * first and last. */
static int64_t note_time(struct check_model *m, const bt_message *msg)
{
	int64_t ns = 0;
	const bt_clock_snapshot *cs = bt_message_event_borrow_default_clock_snapshot_const(msg);
	if (bt_clock_snapshot_get_ns_from_origin(cs, &ns) == BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK) {
		if (!m->have_first)
			m->r.first_ns = ns;
		m->have_first = true;
		m->r.last_ns = ns;
	}
	return ns;
}

/* The context fields the event lacks (check_report.no_context). */
static void count_contexts(struct check_model *m, const struct evclass *c)
{
	m->r.no_context[CHECK_CTX_VPID] += c->c_vpid < 0;
	m->r.no_context[CHECK_CTX_VTID] += c->c_vtid < 0;
	m->r.no_context[CHECK_CTX_PROCNAME] += c->c_procname < 0;
}

static int on_event(struct check_model *m, const bt_message *msg)
{
	const bt_event *ev = bt_message_event_borrow_event_const(msg);
	struct evclass *c = class_of(m, bt_event_borrow_class_const(ev));
	if (!c)
		return -ENOMEM;
	c->count++;
	m->r.events++;
	int64_t ns = note_time(m, msg);
	if (c->role == R_OTHER)
		/* sim_time: the analyzer reads it from any process */
		return check_summary_event(&m->sum, &c->sum, -1, true,
					   bt_event_borrow_payload_field_const(ev));
	const bt_field *ctx = bt_event_borrow_common_context_field_const(ev);
	count_contexts(m, c);
	uint64_t vpid, vtid = 0;
	if (!check_fint(ctx, c->c_vpid, &vpid))
		vpid = (uint64_t)-1; /* no vpid context: one pseudo-process */
	check_fint(ctx, c->c_vtid, &vtid);
	size_t pi;
	struct check_proc *p = proc_of(m, (int64_t)vpid, ctx, c, &pi);
	if (!p)
		return -ENOMEM;
	p->events++;
	const bt_field *pl = bt_event_borrow_payload_field_const(ev);
	/* runtime events count in the summaries after their process's caret_init */
	if (c->role != R_INIT &&
	    check_summary_event(&m->sum, &c->sum, p->vpid, p->caret_init || c->role == R_CARET_INIT,
				pl) < 0)
		return -ENOMEM;
	uint64_t a, b;
	struct tid_state *t;
	switch (c->role) {
	case R_INIT:
		/* Replayed: a ros2_caret record on its pass's thread. */
		if (c->caret)
			check_pass_record(p, vtid);
		return on_init(m, c, p, pi, pl, ns);
	case R_PASS_BEGIN:
	case R_PASS_END:
		on_pass_mark(c, p, vtid, pl);
		return 0;
	case R_CARET_INIT:
		p->caret_init = true;
		m->r.any_caret_init = true;
		return 0;
	case R_DDS_WRITE:
		p->runtime++;
		if (!(t = tid_of(m, (int64_t)vpid, vtid, pi)))
			return -ENOMEM;
		if (t->pending)
			p->unbound_publishes++;
		p->publishes++;
		t->pending = true;
		return 0;
	case R_BIND:
		p->runtime++;
		if (!(t = tid_of(m, (int64_t)vpid, vtid, pi)))
			return -ENOMEM;
		if (!check_fint(pl, c->f_addr, &a) || !check_fint(pl, c->f_stamp, &b))
			return 0;
		t->pending = false;
		if (caret_grow((void **)&m->binds, &m->binds_cap, m->nbinds + 1, sizeof(*m->binds)) < 0)
			return -ENOMEM;
		m->binds[m->nbinds++] = (struct binding){ b, pi };
		p->bindings++;
		return 0;
	case R_TAKE:
		p->runtime++;
		if (check_fint(pl, c->f_src_ts, &b) && (!check_fint(pl, c->f_taken, &a) || a)) {
			bool added;
			if (!check_map_slot(&m->takes, b, &added))
				return -ENOMEM;
		}
		return 0;
	default:
		p->runtime++;
		return 0;
	}
}

static uint64_t skey(const bt_stream *st)
{
	return (uint64_t)(uintptr_t)st;
}

/* A packet's beginning or end, for check_discards.h. */
static int on_packet(struct check_model *m, const bt_message *msg, bool begin)
{
	const bt_packet *pk = begin ? bt_message_packet_beginning_borrow_packet_const(msg)
				    : bt_message_packet_end_borrow_packet_const(msg);
	const bt_stream *st = bt_packet_borrow_stream_const(pk);
	const bt_stream_class *sc = bt_stream_borrow_class_const(st);
	const bt_clock_snapshot *cs = NULL;
	if (begin && bt_stream_class_packets_have_beginning_default_clock_snapshot(sc))
		cs = bt_message_packet_beginning_borrow_default_clock_snapshot_const(msg);
	else if (!begin && bt_stream_class_packets_have_end_default_clock_snapshot(sc))
		cs = bt_message_packet_end_borrow_default_clock_snapshot_const(msg);
	uint64_t ts = cs ? bt_clock_snapshot_get_value(cs) : 0;
	return begin ? check_discards_begin(&m->discards, skey(st), cs != NULL, ts)
		     : check_discards_end(&m->discards, skey(st), cs != NULL, ts);
}

int check_model_msg(struct check_model *m, const bt_message *msg)
{
	uint64_t n;
	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_EVENT:
		return on_event(m, msg);
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		return on_packet(m, msg, true);
	case BT_MESSAGE_TYPE_PACKET_END:
		return on_packet(m, msg, false);
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		if (bt_message_discarded_events_get_count(msg, &n) == BT_PROPERTY_AVAILABILITY_AVAILABLE) {
			m->r.discarded_msgs++;
			m->r.discarded_events += n;
			return 0;
		}
		/* judged per stream: it may be the earlier chunks' total */
		return check_discards_uncounted(
			&m->discards, skey(bt_message_discarded_events_borrow_stream_const(msg)));
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		if (bt_message_discarded_packets_get_count(msg, &n) == BT_PROPERTY_AVAILABILITY_AVAILABLE)
			m->r.lost_packets += n;
		else
			m->r.lost_unknown++;
		return 0;
	default:
		return 0;
	}
}

static int cmp_proc(const void *a, const void *b)
{
	const struct check_proc *x = a, *y = b;
	return (x->vpid > y->vpid) - (x->vpid < y->vpid);
}

static int cmp_node(const void *a, const void *b)
{
	const struct check_node *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->vpid > y->vpid) - (x->vpid < y->vpid);
}

static int cmp_topic(const void *a, const void *b)
{
	return strcmp(((const struct check_topic *)a)->name, ((const struct check_topic *)b)->name);
}

static int cmp_ev(const void *a, const void *b)
{
	return strcmp(((const struct check_evcount *)a)->name,
		      ((const struct check_evcount *)b)->name);
}

int check_model_finish(struct check_model *m)
{
	uint64_t unknown = check_discards_unknown(&m->discards);
	m->r.discarded_unknown += unknown;
	m->r.discarded_msgs += unknown;
	/* A publish still waiting for its binding when the trace ended. */
	for (size_t i = 0; i < m->ntids; i++)
		if (m->tids[i].pending)
			m->r.procs[m->tids[i].proc].unbound_publishes++;
	for (size_t i = 0; i < m->nbinds; i++)
		if (!check_map_has(&m->takes, m->binds[i].stamp))
			m->r.procs[m->binds[i].proc].unmatched_bindings++;
	/* Events per name (two traces, e.g. per-UID 32/64-bit, share names). */
	m->r.evcounts = calloc(m->ncls ? m->ncls : 1, sizeof(*m->r.evcounts));
	for (size_t i = 0; m->r.evcounts && i < m->ncls; i++) {
		size_t j = 0;
		while (j < m->r.nevcounts && strcmp(m->r.evcounts[j].name, m->cls[i].name) != 0)
			j++;
		if (j == m->r.nevcounts) {
			m->r.evcounts[j].name = strdup(m->cls[i].name);
			if (!m->r.evcounts[j].name)
				break;
			m->r.nevcounts++;
		}
		m->r.evcounts[j].count += m->cls[i].count;
	}
	/* A pass still in flight when the trace ended: cut short. */
	for (size_t i = 0; i < m->r.nprocs; i++)
		check_pass_finish(&m->r.procs[i]);
	check_links_finish(&m->links, m->r.procs, m->r.nprocs);
	int rc = check_summary_finish(&m->sum, &m->r, m->r.any_caret_init);
	/* Sorting last: proc indices held above are no longer needed. */
	if (m->r.nprocs)
		qsort(m->r.procs, m->r.nprocs, sizeof(*m->r.procs), cmp_proc);
	if (m->r.nnodes)
		qsort(m->r.nodes, m->r.nnodes, sizeof(*m->r.nodes), cmp_node);
	if (m->r.ntopics)
		qsort(m->r.topics, m->r.ntopics, sizeof(*m->r.topics), cmp_topic);
	if (m->r.nevcounts)
		qsort(m->r.evcounts, m->r.nevcounts, sizeof(*m->r.evcounts), cmp_ev);
	return rc;
}
