/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `caretctl check`'s model fed init records (tools/caretctl/check_init.c
 * through check_model_msg): each counted per process and kind, a second
 * replay's copy told from an address used again and from the same record
 * through both providers, nodes and topics listed once per object, and a
 * record whose node's init record is not in the trace named. The events
 * come from a babeltrace2 source of this file's (no CTF trace on disk):
 * the model reads them as it reads babeltrace2's ctf plugin's.
 */
#include <babeltrace2/babeltrace.h>
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tests/unit/unit.h"
#include "tools/caretctl/check.h"

/* An event class: its name and payload, one type letter per field ('u'
 * an unsigned integer, 's' a string), named in order. */
struct cls {
	const char *name, *types, *fields;
};

static const struct cls classes[] = {
	{ "ros2_caret:caret_init", "u", "clock_offset" },
	{ "ros2_caret:rcl_node_init", "uussu", "node_handle,rmw_handle,node_name,namespace,"
					       "init_timestamp" },
	{ "ros2:rcl_node_init", "uuss", "node_handle,rmw_handle,node_name,namespace" },
	{ "ros2_caret:rcl_publisher_init", "uuusuu", "publisher_handle,node_handle,"
						    "rmw_publisher_handle,topic_name,queue_depth,"
						    "init_timestamp" },
	{ "ros2:rclcpp_publish", "uu", "publisher_handle,message" },
};
#define NCLASSES (sizeof(classes) / sizeof(classes[0]))
enum { C_CARET_INIT, C_NODE, C_NODE_ROS2, C_PUB, C_PUBLISH };

/* One event of process vpid at ts: its integers and strings, in the
 * order of its class's fields of each type. */
struct ev {
	int cls;
	int64_t vpid;
	uint64_t ts;
	uint64_t u[5];
	const char *s[2];
};

#define CARET_INIT(pid, t) { C_CARET_INIT, pid, t, { 0 }, { NULL } }
#define NODE(pid, t, its) { C_NODE, pid, t, { 0x10, 0x11, its }, { "talker", "/ns" } }
#define NODE_ROS2(pid, t) { C_NODE_ROS2, pid, t, { 0x10, 0x11 }, { "talker", "/ns" } }
#define PUB(pid, t, its) { C_PUB, pid, t, { 0x20, 0x10, 0x21, 10, its }, { "/chatter" } }
#define PUBLISH(pid, t) { C_PUBLISH, pid, t, { 0x20, 0x99 }, { NULL } }

/* The source's state: what it emits, and how far it got. */
static const struct ev *feed;
static size_t nfeed, fed;
static bool begun, ended;
static bt_stream *stream;
static bt_event_class *evc[NCLASSES];

static bt_field_class *payload_class(bt_trace_class *tc, const struct cls *c)
{
	bt_field_class *st = bt_field_class_structure_create(tc);
	char names[256];
	snprintf(names, sizeof(names), "%s", c->fields);
	char *save = NULL, *f = strtok_r(names, ",", &save);
	for (const char *t = c->types; *t; t++, f = strtok_r(NULL, ",", &save)) {
		bt_field_class *fc = *t == 's' ? bt_field_class_string_create(tc)
					       : bt_field_class_integer_unsigned_create(tc);
		ck_assert(f && fc);
		ck_assert_int_eq(bt_field_class_structure_append_member(st, f, fc), 0);
		bt_field_class_put_ref(fc);
	}
	return st;
}

/* The trace: one stream with a clock and the context the agent's
 * sessions add (vpid, vtid, procname). */
static void make_trace(bt_self_component *self)
{
	bt_trace_class *tc = bt_trace_class_create(self);
	bt_stream_class *sc = bt_stream_class_create(tc);
	bt_clock_class *cc = bt_clock_class_create(self);
	ck_assert(tc && sc && cc);
	ck_assert_int_eq(bt_stream_class_set_default_clock_class(sc, cc), 0);
	bt_field_class *ctx = bt_field_class_structure_create(tc);
	bt_field_class *i1 = bt_field_class_integer_signed_create(tc);
	bt_field_class *i2 = bt_field_class_integer_signed_create(tc);
	bt_field_class *s = bt_field_class_string_create(tc);
	ck_assert_int_eq(bt_field_class_structure_append_member(ctx, "vpid", i1), 0);
	ck_assert_int_eq(bt_field_class_structure_append_member(ctx, "vtid", i2), 0);
	ck_assert_int_eq(bt_field_class_structure_append_member(ctx, "procname", s), 0);
	ck_assert_int_eq(bt_stream_class_set_event_common_context_field_class(sc, ctx), 0);
	bt_field_class_put_ref(i1);
	bt_field_class_put_ref(i2);
	bt_field_class_put_ref(s);
	bt_field_class_put_ref(ctx);
	for (size_t i = 0; i < NCLASSES; i++) {
		evc[i] = bt_event_class_create(sc);
		ck_assert_int_eq(bt_event_class_set_name(evc[i], classes[i].name), 0);
		bt_field_class *pl = payload_class(tc, &classes[i]);
		ck_assert_int_eq(bt_event_class_set_payload_field_class(evc[i], pl), 0);
		bt_field_class_put_ref(pl);
	}
	bt_trace *tr = bt_trace_create(tc);
	stream = bt_stream_create(sc, tr);
	ck_assert(stream);
	bt_trace_put_ref(tr);
	bt_clock_class_put_ref(cc);
	bt_stream_class_put_ref(sc);
	bt_trace_class_put_ref(tc);
}

static const bt_message *event_msg(bt_self_message_iterator *it, const struct ev *e)
{
	bt_message *m = bt_message_event_create_with_default_clock_snapshot(it, evc[e->cls],
									   stream, e->ts);
	ck_assert(m);
	bt_event *ev = bt_message_event_borrow_event(m);
	bt_field *ctx = bt_event_borrow_common_context_field(ev);
	bt_field_integer_signed_set_value(bt_field_structure_borrow_member_field_by_index(ctx, 0),
					  e->vpid);
	bt_field_integer_signed_set_value(bt_field_structure_borrow_member_field_by_index(ctx, 1),
					  e->vpid);
	ck_assert_int_eq(bt_field_string_set_value(
				 bt_field_structure_borrow_member_field_by_index(ctx, 2), "proc"),
			 0);
	bt_field *pl = bt_event_borrow_payload_field(ev);
	size_t nu = 0, ns = 0;
	for (uint64_t i = 0; classes[e->cls].types[i]; i++) {
		bt_field *f = bt_field_structure_borrow_member_field_by_index(pl, i);
		if (classes[e->cls].types[i] == 's')
			ck_assert_int_eq(bt_field_string_set_value(f, e->s[ns++]), 0);
		else
			bt_field_integer_unsigned_set_value(f, e->u[nu++]);
	}
	return m;
}

static bt_message_iterator_class_next_method_status
src_next(bt_self_message_iterator *it, bt_message_array_const msgs, uint64_t cap, uint64_t *count)
{
	*count = 0;
	if (!stream)
		make_trace(bt_self_message_iterator_borrow_component(it));
	while (*count < cap && !ended) {
		if (!begun) {
			msgs[(*count)++] = bt_message_stream_beginning_create(it, stream);
			begun = true;
		} else if (fed < nfeed) {
			msgs[(*count)++] = event_msg(it, &feed[fed++]);
		} else {
			msgs[(*count)++] = bt_message_stream_end_create(it, stream);
			ended = true;
		}
		ck_assert(msgs[*count - 1]);
	}
	return *count ? BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK
		      : BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
}

static bt_component_class_initialize_method_status
src_init(bt_self_component_source *self, bt_self_component_source_configuration *cfg,
	 const bt_value *params, void *data)
{
	(void)cfg, (void)params, (void)data;
	ck_assert_int_eq(bt_self_component_source_add_output_port(self, "out", NULL, NULL), 0);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

static bt_graph_simple_sink_component_consume_func_status consume(bt_message_iterator *it,
								  void *ud)
{
	bt_message_array_const msgs;
	uint64_t n;
	bt_message_iterator_next_status st = bt_message_iterator_next(it, &msgs, &n);
	if (st == BT_MESSAGE_ITERATOR_NEXT_STATUS_END)
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
	ck_assert_int_eq(st, BT_MESSAGE_ITERATOR_NEXT_STATUS_OK);
	for (uint64_t i = 0; i < n; i++) {
		ck_assert_int_eq(check_model_msg(ud, msgs[i]), 0);
		bt_message_put_ref(msgs[i]);
	}
	return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}

/* The model after evs[0..n), finished. */
static struct check_model *run(const struct ev *evs, size_t n)
{
	feed = evs;
	nfeed = n;
	fed = 0;
	begun = ended = false;
	stream = NULL;
	struct check_model *m = check_model_new();
	ck_assert(m);
	bt_message_iterator_class *ic = bt_message_iterator_class_create(src_next);
	bt_component_class_source *cls = bt_component_class_source_create("unit", ic);
	ck_assert(ic && cls);
	bt_component_class_source_set_initialize_method(cls, src_init);
	bt_graph *g = bt_graph_create(0);
	const bt_component_source *src;
	const bt_component_sink *sink;
	ck_assert_int_eq(bt_graph_add_source_component(g, cls, "src", NULL, BT_LOGGING_LEVEL_WARNING,
						       &src), 0);
	ck_assert_int_eq(bt_graph_add_simple_sink_component(g, "sink", NULL, consume, NULL, m,
							    &sink), 0);
	ck_assert_int_eq(bt_graph_connect_ports(g, bt_component_source_borrow_output_port_by_index_const(src, 0),
						bt_component_sink_borrow_input_port_by_index_const(sink, 0),
						NULL), 0);
	ck_assert_int_eq(bt_graph_run(g), BT_GRAPH_RUN_STATUS_OK);
	bt_graph_put_ref(g);
	bt_stream_put_ref(stream);
	for (size_t i = 0; i < NCLASSES; i++)
		bt_event_class_put_ref(evc[i]);
	bt_component_class_source_put_ref(cls);
	bt_message_iterator_class_put_ref(ic);
	ck_assert_int_eq(check_model_finish(m), 0);
	return m;
}

static const struct check_proc *proc(const struct check_model *m, int64_t vpid)
{
	const struct check_report *r = check_model_report(m);
	for (size_t i = 0; i < r->nprocs; i++)
		if (r->procs[i].vpid == vpid)
			return &r->procs[i];
	ck_abort_msg("no process %lld", (long long)vpid);
	return NULL;
}

static size_t kind(const char *name)
{
	for (size_t i = 0; check_kind_name(i); i++)
		if (!strcmp(check_kind_name(i), name))
			return i;
	ck_abort_msg("no kind %s", name);
	return 0;
}

static size_t link(const char *name)
{
	for (size_t i = 0; check_link_name(i); i++)
		if (!strcmp(check_link_name(i), name))
			return i;
	ck_abort_msg("no link %s", name);
	return 0;
}

START_TEST(init_records_counted_objects_listed)
{
	static const struct ev evs[] = { CARET_INIT(100, 1), NODE(100, 2, 5), PUB(100, 3, 6),
					 PUBLISH(100, 4) };
	struct check_model *m = run(evs, 4);
	const struct check_proc *p = proc(m, 100);
	ck_assert_uint_eq(p->init[kind("rcl_node_init")], 1);
	ck_assert_uint_eq(p->init[kind("rcl_publisher_init")], 1);
	ck_assert_uint_eq(p->init_total, 2);
	ck_assert_uint_eq(p->dup_total, 0);
	ck_assert_uint_eq(p->both_variants, 0);
	ck_assert_uint_eq(p->missing_total, 0);
	ck_assert_uint_eq(p->runtime, 1);
	const struct check_report *r = check_model_report(m);
	ck_assert_uint_eq(r->nnodes, 1);
	ck_assert_str_eq(r->nodes[0].name, "/ns/talker");
	ck_assert_int_eq(r->nodes[0].vpid, 100);
	ck_assert_uint_eq(r->ntopics, 1);
	ck_assert_str_eq(r->topics[0].name, "/chatter");
	ck_assert_uint_eq(r->topics[0].publishers, 1);
	ck_assert_uint_eq(r->topics[0].subscriptions, 0);
	check_model_free(m);
}
END_TEST

START_TEST(second_replay_is_copies)
{
	/* the same records with their init_timestamp again, later: a second
	 * replay into the session */
	static const struct ev evs[] = { CARET_INIT(100, 1), NODE(100, 2, 5), PUB(100, 3, 6),
					 NODE(100, 20, 5), PUB(100, 21, 6) };
	struct check_model *m = run(evs, 5);
	const struct check_proc *p = proc(m, 100);
	ck_assert_uint_eq(p->init_total, 4);
	ck_assert_uint_eq(p->dup[kind("rcl_node_init")], 1);
	ck_assert_uint_eq(p->dup[kind("rcl_publisher_init")], 1);
	ck_assert_uint_eq(p->dup_total, 2);
	ck_assert_uint_eq(p->both_variants, 0);
	const struct check_report *r = check_model_report(m);
	ck_assert_uint_eq(r->nnodes, 1); /* once per object */
	ck_assert_uint_eq(r->topics[0].publishers, 1);
	check_model_free(m);
}
END_TEST

START_TEST(other_init_timestamp_is_no_copy)
{
	/* same content, another init_timestamp: an object at an address used
	 * again, not a copy; and the same record through ros2: */
	static const struct ev evs[] = { CARET_INIT(100, 1), NODE(100, 2, 5), NODE(100, 3, 7),
					 NODE_ROS2(100, 4), NODE_ROS2(100, 9) };
	struct check_model *m = run(evs, 5);
	const struct check_proc *p = proc(m, 100);
	ck_assert_uint_eq(p->init[kind("rcl_node_init")], 4);
	ck_assert_uint_eq(p->dup_total, 0);
	ck_assert_uint_eq(p->both_variants, 1);
	ck_assert_uint_eq(check_model_report(m)->nnodes, 1);
	check_model_free(m);
}
END_TEST

START_TEST(publisher_without_its_node_named)
{
	static const struct ev evs[] = { CARET_INIT(100, 1), PUB(100, 3, 6), PUBLISH(100, 4) };
	struct check_model *m = run(evs, 3);
	const struct check_proc *p = proc(m, 100);
	ck_assert_uint_eq(p->init_total, 1);
	ck_assert_uint_eq(p->missing[link("rcl_publisher_init:rcl_node_init")], 1);
	ck_assert_uint_eq(p->missing_total, 1);
	check_model_free(m);
}
END_TEST

START_TEST(processes_counted_apart)
{
	/* one record in two processes: no copy, a node each */
	static const struct ev evs[] = { CARET_INIT(100, 1), CARET_INIT(200, 1), NODE(100, 2, 5),
					 NODE(200, 3, 5) };
	struct check_model *m = run(evs, 4);
	ck_assert_uint_eq(proc(m, 100)->init_total, 1);
	ck_assert_uint_eq(proc(m, 200)->init_total, 1);
	ck_assert_uint_eq(proc(m, 100)->dup_total + proc(m, 200)->dup_total, 0);
	ck_assert_uint_eq(check_model_report(m)->nnodes, 2);
	check_model_free(m);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("model_init");
	unit_case(s, "init", init_records_counted_objects_listed, second_replay_is_copies,
		  other_init_timestamp_is_no_copy, publisher_without_its_node_named,
		  processes_counted_apart);
	return unit_run(s);
}
