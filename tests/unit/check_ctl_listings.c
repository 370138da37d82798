/* SPDX-License-Identifier: Apache-2.0 */
/* The typed results of the listings (nodes/topics' graph, check --json,
 * record -l --json, events' pages, the summaries): each built as caretd or
 * caretctl builds it, sent as a line, read back; and each decoder fed what
 * a hostile caretd could send. Hosts and recordings: check_ctl_replies.c. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/caret_ctl.h"
#include "proto/caret_ctl_enc.h"
#include "proto/caret_ctl_events.h"
#include "proto/caret_ctl_check.h"
#include "proto/caret_ctl_graph.h"
#include "proto/caret_ctl_record_list.h"
#include "proto/caret_ctl_reply.h"
#include "proto/caret_ctl_summary.h"
#include "tests/unit/ctl_wire.h"
#include "tests/unit/unit.h"

/* ---- graph (caretctl nodes / topics) ---- */

START_TEST(graph_nodes_round_trip)
{
	struct caret_ctl_graph_entity pubs[] = { { "/chatter", NULL } };
	struct caret_ctl_graph_entity subs[] = { { "/in", "cb_in" }, { "/in2", NULL } };
	struct caret_ctl_graph_timer timers[] = { { 100000000, "cb_t" }, { -1, NULL } };
	struct caret_ctl_graph_entity srvs[] = { { "/srv", "cb_s" } };
	struct caret_ctl_graph_entity clis[] = { { "/cli", NULL } };
	struct caret_ctl_graph_group groups[] = {
		{ .address = "0x10", .type = "MutuallyExclusive", .have_executor = true,
		  .executor = "0x20", .executor_type = "single_threaded_executor" },
		{ .address = "0x30" },
	};
	struct caret_ctl_graph_node node = { .name = "/ns/talker", .pid = 42,
					     .procname = "talker", .n_pubs = 1, .pubs = pubs,
					     .n_subs = 2, .subs = subs, .n_timers = 2,
					     .timers = timers, .n_services = 1, .services = srvs,
					     .n_clients = 1, .clients = clis, .n_groups = 2,
					     .groups = groups };
	struct caret_ctl_graph g = { .n_nodes = 1, .nodes = &node };
	cJSON *o = caret_ctl_enc_result();
	ck_assert_int_eq(caret_ctl_graph_encode(&g, o), 0);
	char *line = cJSON_PrintUnformatted(o);
	/* the key order and the nulls caretctl printed before the struct */
	ck_assert_ptr_nonnull(strstr(line, "\"nodes\":[{\"name\":\"/ns/talker\",\"pid\":42,"
					   "\"procname\":\"talker\",\"publishers\":[{\"topic\":\"/chatter\"}],"
					   "\"subscriptions\":[{\"topic\":\"/in\",\"callback\":\"cb_in\"},"
					   "{\"topic\":\"/in2\",\"callback\":null}],\"timers\":"));
	ck_assert_ptr_nonnull(strstr(line, "{\"address\":\"0x30\",\"type\":null,\"executor\":null,"
					   "\"executor_type\":null}"));
	free(line);
	cJSON *root = wire(o);
	struct caret_ctl_graph d;
	char why[256] = "";
	ck_assert_msg(caret_ctl_graph_decode(root, &d, why, sizeof(why)) == 0, "%s", why);
	ck_assert(!d.topics);
	ck_assert_uint_eq(d.n_nodes, 1);
	const struct caret_ctl_graph_node *n = &d.nodes[0];
	ck_assert_str_eq(n->name, "/ns/talker");
	ck_assert_int_eq(n->pid, 42);
	ck_assert_uint_eq(n->n_subs, 2);
	ck_assert_str_eq(n->subs[0].callback, "cb_in");
	ck_assert_ptr_null(n->subs[1].callback);
	ck_assert_int_eq(n->timers[0].period_ns, 100000000);
	ck_assert_int_eq(n->timers[1].period_ns, -1);
	ck_assert_str_eq(n->services[0].callback, "cb_s");
	ck_assert_str_eq(n->clients[0].name, "/cli");
	ck_assert(n->groups[0].have_executor && !n->groups[1].have_executor);
	ck_assert_str_eq(n->groups[0].executor, "0x20");
	ck_assert_ptr_null(n->groups[1].type);
	caret_ctl_graph_free(&d);
	cJSON_Delete(root);
}
END_TEST

START_TEST(graph_topics_round_trip)
{
	struct caret_ctl_graph_end pubs[] = { { "/a", 1, "pa" } };
	struct caret_ctl_graph_end subs[] = { { "/b", 2, "pb" }, { "?", 3, "pc" } };
	struct caret_ctl_graph_topic t = { "/chatter", 1, 2, pubs, subs };
	struct caret_ctl_graph g = { .topics = true, .n_topics = 1, .topics_v = &t };
	cJSON *o = caret_ctl_enc_result();
	ck_assert_int_eq(caret_ctl_graph_encode(&g, o), 0);
	cJSON *root = wire(o);
	struct caret_ctl_graph d;
	char why[256] = "";
	ck_assert_msg(caret_ctl_graph_decode(root, &d, why, sizeof(why)) == 0, "%s", why);
	ck_assert(d.topics);
	ck_assert_uint_eq(d.n_topics, 1);
	ck_assert_str_eq(d.topics_v[0].name, "/chatter");
	ck_assert_uint_eq(d.topics_v[0].n_subs, 2);
	ck_assert_str_eq(d.topics_v[0].subs[1].node, "?");
	ck_assert_int_eq(d.topics_v[0].subs[1].pid, 3);
	caret_ctl_graph_free(&d);
	cJSON_Delete(root);
}
END_TEST

static void graph_refused(const char *text, const char *in_why)
{
	cJSON *root = parse(text);
	struct caret_ctl_graph d;
	char why[256] = "";
	ck_assert_int_eq(caret_ctl_graph_decode(root, &d, why, sizeof(why)), -EPROTO);
	ck_assert_msg(strstr(why, in_why), "%s: why \"%s\" lacks \"%s\"", text, why, in_why);
	ck_assert_ptr_null(d.nodes);
	ck_assert_ptr_null(d.topics_v);
	cJSON_Delete(root);
}

#define NODE_REST "\"procname\":\"p\",\"publishers\":[],\"subscriptions\":[],\"timers\":[]," \
		  "\"services\":[],\"clients\":[],\"callback_groups\":[]"

START_TEST(graph_hostile)
{
	graph_refused("{}", "\"nodes\" is missing");
	graph_refused("{\"nodes\":[{\"name\":\"n\",\"pid\":-1," NODE_REST "}]}",
		      "nodes[0].pid\" is out of range");
	graph_refused("{\"nodes\":[{\"name\":7,\"pid\":1," NODE_REST "}]}",
		      "nodes[0].name\" is not a string");
	graph_refused("{\"nodes\":[{\"name\":\"n\",\"pid\":1,\"procname\":\"p\",\"publishers\":[],"
		      "\"subscriptions\":[{\"topic\":\"t\",\"callback\":3}],\"timers\":[],"
		      "\"services\":[],\"clients\":[],\"callback_groups\":[]}]}",
		      "subscriptions[0].callback\" is not a string");
	graph_refused("{\"nodes\":[{\"name\":\"n\",\"pid\":1,\"procname\":\"p\",\"publishers\":[],"
		      "\"subscriptions\":[],\"timers\":[{\"period_ns\":-2,\"callback\":null}],"
		      "\"services\":[],\"clients\":[],\"callback_groups\":[]}]}",
		      "timers[0].period_ns\" is out of range");
	graph_refused("{\"nodes\":[{\"name\":\"n\",\"pid\":1,\"procname\":\"p\",\"publishers\":[],"
		      "\"subscriptions\":[],\"timers\":[],\"services\":[],\"clients\":[],"
		      "\"callback_groups\":[{\"address\":\"0x1234567890123456789012345\","
		      "\"type\":null,\"executor\":null,\"executor_type\":null}]}]}",
		      "address\" is longer than");
	graph_refused("{\"topics\":[{\"name\":\"t\",\"publishers\":[{\"node\":\"n\",\"pid\":1.5,"
		      "\"procname\":\"p\"}],\"subscriptions\":[]}]}",
		      "topics[0].publishers[0].pid\" is not an integer");
	graph_refused("{\"topics\":[{\"name\":\"t\",\"publishers\":{}}]}", "not an array");
}
END_TEST

/* ---- check (caretctl check --json) ---- */

START_TEST(check_round_trip)
{
	const char *problems[] = { "pid 7 (a): init records missing" };
	struct caret_ctl_count init[] = { { "rcl_node_init", 2 }, { "rcl_publisher_init", 3 } };
	struct caret_ctl_count missing[] = { { "publisher_node", 1 } };
	struct caret_ctl_count ctx[] = { { "vpid", 0 }, { "vtid", 0 }, { "procname", 4 } };
	struct caret_ctl_count kinds[] = { { "ros2:rcl_init", 1 } };
	struct caret_ctl_check_proc proc = {
		.pid = 7, .procname = "a", .caret_init = true, .replay_cut = true,
		.init = { 2, init }, .missing = { 1, missing }, .init_total = 5,
		.missing_total = 1, .replay_passes = 2, .events = 9007199254740993ull,
	};
	struct caret_ctl_check_node node = { "/n", 7 };
	struct caret_ctl_check_topic topic = { "/t", 1, 2 };
	struct caret_ctl_check_result c = {
		.trace = "/t/x", .complete = false, .problems = { 1, problems }, .events = 10,
		.first_ns = -5, .last_ns = 1700000000000000000ll, .lost_unknown = true,
		.no_context = { 3, ctx }, .per_kind = { 1, kinds }, .n_procs = 1, .procs = &proc,
		.n_nodes = 1, .nodes = &node, .n_topics = 1, .topics = &topic,
	};
	cJSON *o = caret_ctl_enc_result();
	ck_assert_int_eq(caret_ctl_check_encode(&c, o), 0);
	char *line = cJSON_PrintUnformatted(o);
	/* exact integers past 2^53, as caretctl always wrote them */
	ck_assert_ptr_nonnull(strstr(line, "\"events\":9007199254740993"));
	ck_assert_ptr_nonnull(strstr(line, "\"trace\":\"/t/x\",\"complete\":false,\"problems\":"));
	free(line);
	cJSON *root = wire(o);
	struct caret_ctl_check_result d;
	char why[256] = "";
	ck_assert_msg(caret_ctl_check_decode(root, &d, why, sizeof(why)) == 0, "%s", why);
	ck_assert_str_eq(d.trace, "/t/x");
	ck_assert(!d.complete && d.lost_unknown && !d.discarded_unknown);
	ck_assert_uint_eq(d.problems.n, 1);
	ck_assert_str_eq(d.problems.v[0], problems[0]);
	ck_assert_uint_eq(d.warnings.n, 0);
	ck_assert_int_eq(d.first_ns, -5);
	ck_assert_int_eq(d.last_ns, 1700000000000000000ll);
	ck_assert_uint_eq(d.no_context.n, 3);
	ck_assert_uint_eq(d.no_context.v[2].n, 4);
	ck_assert_uint_eq(d.n_procs, 1);
	ck_assert(d.procs[0].caret_init && d.procs[0].replay_cut);
	ck_assert_uint_eq(d.procs[0].init.n, 2);
	ck_assert_str_eq(d.procs[0].init.v[1].name, "rcl_publisher_init");
	ck_assert_uint_eq(d.procs[0].init.v[1].n, 3);
	ck_assert_uint_eq(d.procs[0].dup.n, 0);
	ck_assert_uint_eq(d.procs[0].missing.v[0].n, 1);
	ck_assert_str_eq(d.nodes[0].name, "/n");
	ck_assert_uint_eq(d.topics[0].subscriptions, 2);
	ck_assert_str_eq(d.per_kind.v[0].name, "ros2:rcl_init");
	caret_ctl_check_free(&d);
	cJSON_Delete(root);
}
END_TEST

static void check_refused(const char *patch_key, const char *patch_value, const char *in_why)
{
	struct caret_ctl_check_result c = { .trace = "/t" };
	cJSON *e = cJSON_CreateObject();
	ck_assert_int_eq(caret_ctl_check_encode(&c, e), 0);
	/* as read from the line: the encoder's raw integers become numbers */
	char *line = cJSON_PrintUnformatted(e);
	cJSON *o = parse(line);
	free(line);
	cJSON_Delete(e);
	cJSON *v = cJSON_Parse(patch_value);
	ck_assert_ptr_nonnull(v);
	cJSON_ReplaceItemInObjectCaseSensitive(o, patch_key, v);
	struct caret_ctl_check_result d;
	char why[256] = "";
	ck_assert_int_eq(caret_ctl_check_decode(o, &d, why, sizeof(why)), -EPROTO);
	ck_assert_msg(strstr(why, in_why), "%s=%s: why \"%s\" lacks \"%s\"", patch_key,
		      patch_value, why, in_why);
	ck_assert_ptr_null(d.procs);
	cJSON_Delete(o);
}

START_TEST(check_hostile)
{
	check_refused("complete", "1", "\"complete\" is not true or false");
	check_refused("events", "-1", "\"events\" is out of range");
	check_refused("problems", "[1]", "problems[0]\" is not a string");
	check_refused("events_without_context", "{\"vpid\":\"x\"}", "vpid\" is not an integer");
	check_refused("processes", "[{\"pid\":1}]", "processes[0].procname\" is missing");
	check_refused("processes", "[{\"pid\":1,\"procname\":\"p\",\"caret_init\":true,"
		      "\"replay_cut\":false,\"init_records\":{\"k\":-3}}]",
		      "init_records.k\" is out of range");
	check_refused("nodes", "[{\"name\":\"n\",\"pid\":0.5}]", "nodes[0].pid\" is not an integer");
	check_refused("topics", "[{\"name\":\"t\",\"publishers\":1}]",
		      "topics[0].subscriptions\" is missing");
	check_refused("events_per_kind", "[]", "\"events_per_kind\" is not an object");
}
END_TEST

/* ---- record -l --json ---- */

START_TEST(record_list_round_trip)
{
	const char *evs[] = { "ros2:*", "ros2_caret:*" }, *ctx[] = { "vpid", "vtid" };
	const char *kev[] = { "sched_switch" };
	struct caret_ctl_record_list l = {
		.channel = { .name = "caret", .subbuf_count = 4, .subbuf_size = 524288 }, .ust_list = "-u",
		.ust_events = { 2, evs }, .ust_events_added = { 1, evs + 1 }, .context = { 2, ctx },
		.have_kernel = true, .kernel = { .name = "kchan", .subbuf_count = 2, .subbuf_size = 131072 }, .kernel_events = { 1, kev },
		.trace_directory = "/t/x", .append = true, .pacing = "frequency", .frequency = 200,
		.have_sim_time = true, .sim_time_domain = 7,
	};
	cJSON *o = caret_ctl_enc_result();
	ck_assert_int_eq(caret_ctl_record_list_encode(&l, o), 0);
	char *line = cJSON_PrintUnformatted(o);
	ck_assert_ptr_nonnull(strstr(line, "\"list\":{\"channel\":{\"name\":\"caret\",\"subbuf_count\":4,"
					   "\"subbuf_size\":524288},\"ust_list\":\"-u\","));
	free(line);
	cJSON *root = wire(o);
	struct caret_ctl_record_list d;
	char why[256] = "";
	ck_assert_msg(caret_ctl_record_list_decode(root, &d, why, sizeof(why)) == 0, "%s", why);
	ck_assert_str_eq(d.channel.name, "caret");
	ck_assert_uint_eq(d.channel.subbuf_size, 524288);
	ck_assert_uint_eq(d.ust_events.n, 2);
	ck_assert_str_eq(d.ust_events_added.v[0], "ros2_caret:*");
	ck_assert_uint_eq(d.not_recorded.n, 0);
	ck_assert(d.have_kernel && d.append && d.have_sim_time);
	ck_assert_str_eq(d.kernel_events.v[0], "sched_switch");
	ck_assert_uint_eq(d.syscalls.n, 0);
	ck_assert_uint_eq(d.sim_time_domain, 7);
	ck_assert_uint_eq(d.frequency, 200);
	caret_ctl_record_list_free(&d);
	cJSON_Delete(root);
}
END_TEST

static void record_list_refused(const char *key, const char *value, const char *in_why)
{
	struct caret_ctl_record_list l = { .channel = { .name = "caret", .subbuf_count = 4, .subbuf_size = 4096 }, .ust_list = "full",
					   .trace_directory = "/t", .pacing = "adaptive" };
	cJSON *o = cJSON_CreateObject();
	ck_assert_int_eq(caret_ctl_record_list_encode(&l, o), 0);
	cJSON *v = parse(value), *list = cJSON_GetObjectItemCaseSensitive(o, "list");
	if (!cJSON_ReplaceItemInObjectCaseSensitive(list, key, v))
		cJSON_AddItemToObject(list, key, v);
	struct caret_ctl_record_list d;
	char why[256] = "";
	ck_assert_int_eq(caret_ctl_record_list_decode(o, &d, why, sizeof(why)), -EPROTO);
	ck_assert_msg(strstr(why, in_why), "%s=%s: why \"%s\" lacks \"%s\"", key, value, why,
		      in_why);
	ck_assert_ptr_null(d.ust_events.v);
	cJSON_Delete(o);
}

START_TEST(record_list_hostile)
{
	record_list_refused("channel", "{\"name\":\"c\",\"subbuf_count\":0,\"subbuf_size\":1}",
			    "list.channel.subbuf_count\" is out of range");
	record_list_refused("ust_events", "[\"a\",2]", "list.ust_events[1]\" is not a string");
	record_list_refused("sim_time_domain", "-1", "sim_time_domain\" is out of range");
	record_list_refused("append", "\"yes\"", "list.append\" is not true or false");
	record_list_refused("kernel_channel", "{\"name\":\"k\",\"subbuf_count\":2,"
			    "\"subbuf_size\":4096,\"events\":[]}", "syscalls\" is missing");
}
END_TEST

/* ---- events pages ---- */

static int count_event(const struct ctl_event *e, void *arg)
{
	size_t *n = arg;
	const char *name, *s;
	double num;
	ck_assert(ctl_event_field(e, 0, &name, &s, &num));
	ck_assert_str_eq(name, "node_handle");
	ck_assert_str_eq(s, "0x1f");
	ck_assert(ctl_event_field(e, 1, &name, &s, &num));
	ck_assert_str_eq(name, "period");
	ck_assert_ptr_null(s);
	ck_assert(num == 100.0);
	ck_assert(!ctl_event_field(e, 2, &name, &s, &num));
	return ++*n == 2; /* stop at the second */
}

START_TEST(events_page_round_trip)
{
	struct caret_ctl_events_page *p = caret_ctl_events_page_new();
	ck_assert_ptr_nonnull(p);
	struct caret_ctl_field f[] = { { "node_handle", 'p', 0x1f, NULL }, { "period", 'i', 100, NULL } };
	struct caret_ctl_event e = { 5, 42, "talker", 0, "rcl_timer_init", f, 2 };
	for (int i = 0; i < 3; i++)
		ck_assert_int_gt(caret_ctl_events_page_add(p, &e), 0);
	struct caret_ctl_events_trailer t = { "tok", true, 3, 1, 2 };
	ck_assert_int_eq(caret_ctl_events_page_end(p, &t), 0);
	cJSON *root = wire(caret_ctl_events_page_take(p));
	struct ctl_events_page pg;
	struct ctl_why why = { "" };
	ck_assert_msg(ctl_decode_events(root, &pg, &why) == 0, "%s", why.msg);
	ck_assert_str_eq(pg.next, "tok");
	ck_assert(pg.more);
	ck_assert_int_eq(pg.corrupt, 1);
	size_t seen = 0, n = 0;
	ck_assert_int_eq(ctl_events_each(&pg, count_event, &seen, &n, &why), 1);
	ck_assert_uint_eq(seen, 2);
	ck_assert_uint_eq(n, 3); /* the page's, whether fn stopped or not */
	cJSON_Delete(root);
	/* a field neither number nor string: the page is refused */
	root = parse("{\"events\":[{\"ts\":1,\"pid\":2,\"index\":0,\"procname\":\"p\",\"kind\":\"k\","
		     "\"fields\":{\"x\":[1]}}],\"next\":\"\",\"more\":false,\"segments\":0,"
		     "\"corrupt_segments\":0,\"late\":0}");
	ck_assert_int_eq(ctl_decode_events(root, &pg, &why), 0);
	ck_assert_int_eq(ctl_events_each(&pg, NULL, NULL, &n, &why), -EPROTO);
	ck_assert_ptr_nonnull(strstr(why.msg, "events[0].fields.x"));
	cJSON_Delete(root);
}
END_TEST

/* ---- node-summary, topic-summary, trace-point-summary ---- */

START_TEST(summary_round_trip)
{
	struct caret_ctl_summary_row rows[] = { { "/talker", 1ull << 53 }, { "/listener", 0 } };
	struct caret_ctl_summary in = { .trace = "/t/x", .group_by = "node_name", .events = 9,
					.first_ns = -1, .last_ns = 1ll << 52, .n_rows = 2,
					.rows = rows };
	cJSON *o = caret_ctl_enc_result();
	ck_assert_int_eq(caret_ctl_summary_encode(&in, o), 0);
	char *line = cJSON_PrintUnformatted(o);
	ck_assert_str_eq(line, "{\"v\":1,\"type\":\"result\",\"trace\":\"/t/x\","
			       "\"group_by\":\"node_name\",\"events\":9,\"first_ns\":-1,"
			       "\"last_ns\":4503599627370496,\"rows\":[{\"node_name\":"
			       "\"/talker\",\"number_of_trace_points\":9007199254740992},"
			       "{\"node_name\":\"/listener\",\"number_of_trace_points\":0}]}");
	free(line);
	struct caret_ctl_summary out;
	char why[256] = "";
	cJSON *back = wire(o);
	ck_assert_msg(caret_ctl_summary_decode(back, &out, why, sizeof(why)) == 0, "%s", why);
	ck_assert_str_eq(out.group_by, "node_name");
	ck_assert_uint_eq(out.n_rows, 2);
	ck_assert_str_eq(out.rows[1].name, "/listener");
	ck_assert_uint_eq(out.rows[1].count, 0);
	caret_ctl_summary_free(&out);
	cJSON_Delete(back);
}
END_TEST

START_TEST(summary_hostile)
{
	static const struct {
		const char *line, *says;
	} cases[] = {
		{ "{\"trace\":\"t\",\"group_by\":\"pid\",\"events\":0,\"first_ns\":0,"
		  "\"last_ns\":0,\"rows\":[]}", "group_by" },
		{ "{\"trace\":\"t\",\"group_by\":\"node_name\",\"events\":-1,"
		  "\"first_ns\":0,\"last_ns\":0,\"rows\":[]}", "events" },
		{ "{\"trace\":\"t\",\"group_by\":\"node_name\",\"events\":0,\"first_ns\":0,"
		  "\"last_ns\":0,\"rows\":[{\"topic_name\":\"/a\",\"number_of_trace_points\":1}]}",
		  "node_name" },
		{ "{\"trace\":\"t\",\"group_by\":\"trace_point\",\"events\":0,\"first_ns\":0,"
		  "\"last_ns\":0,\"rows\":[{\"trace_point\":\"x\",\"number_of_trace_points\":1.5}]}",
		  "number_of_trace_points" },
		{ "{\"trace\":\"t\",\"group_by\":\"trace_point\",\"events\":0,\"first_ns\":0,"
		  "\"last_ns\":0}", "rows" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cJSON *in = parse(cases[i].line);
		struct caret_ctl_summary out;
		char why[256] = "";
		ck_assert_int_eq(caret_ctl_summary_decode(in, &out, why, sizeof(why)), -EPROTO);
		ck_assert_msg(strstr(why, cases[i].says), "%s: %s", cases[i].line, why);
		cJSON_Delete(in);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ctl_listings");
	unit_case(s, "summary", summary_round_trip, summary_hostile);
	unit_case(s, "graph", graph_nodes_round_trip, graph_topics_round_trip, graph_hostile);
	unit_case(s, "check", check_round_trip, check_hostile);
	unit_case(s, "record_list", record_list_round_trip, record_list_hostile);
	unit_case(s, "events", events_page_round_trip);
	return unit_run(s);
}
