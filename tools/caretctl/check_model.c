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
 *
 * Here: the messages taken in, the processes and threads, the runtime
 * joins and the report finished; the classes are check_class.c's, the
 * init records check_init.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "check_class.h"
#include "check_discards.h"
#include "check_field.h"
#include "check_init.h"
#include "check_links.h"
#include "check_map.h"
#include "check_pass.h"
#include "check_summary.h"
#include "util/caret_util.h"

struct tid_state {
	bool pending; /* a dds_write not yet followed by its binding */
	size_t proc;
};

/* A source stamp a publishing thread bound (dds_bind_addr_to_stamp). */
struct bound_stamp {
	uint64_t stamp;
	size_t proc;
};

/* The report being filled and the indexes it is filled through. */
struct check_model {
	struct check_report r;
	size_t procs_cap;
	struct evclass *cls;
	size_t ncls, cls_cap;
	struct check_map cls_by_ptr, proc_by_vpid, tids_idx, takes;
	struct check_inits inits;
	struct check_links links;
	struct check_discards discards;
	struct check_summary sum;
	struct tid_state *tids;
	size_t ntids, tids_cap;
	struct bound_stamp *binds;
	size_t nbinds, binds_cap;
	int64_t last_vpid;
	size_t last_proc;
	bool have_last, have_first;
};

struct check_model *check_model_new(void)
{
	struct check_model *m = calloc(1, sizeof(*m));
	if (m)
		check_inits_init(&m->inits, &m->r, &m->sum, &m->links);
	return m;
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
	check_map_free(&m->takes);
	check_inits_free(&m->inits);
	check_links_free(&m->links);
	check_discards_free(&m->discards);
	free(m);
}

const struct check_report *check_model_report(const struct check_model *m)
{
	return &m->r;
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
	check_class_classify(c, ec);
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
		return check_init_record(&m->inits, c, p, pi, pl, ns);
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
		m->binds[m->nbinds++] = (struct bound_stamp){ b, pi };
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

