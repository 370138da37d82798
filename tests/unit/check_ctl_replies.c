/* SPDX-License-Identifier: Apache-2.0 */
/* The typed results (caret_ctl_X_encode / caret_ctl_X_decode): each built
 * as caretd builds it, sent as a line, read back as caretctl reads it;
 * and each decoder fed what a hostile caretd could send. */
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
#include "proto/caret_ctl_hosts.h"
#include "proto/caret_ctl_record_list.h"
#include "proto/caret_ctl_recordings.h"
#include "proto/caret_ctl_reply.h"
#include "proto/caret_ctl_snapshot_res.h"
#include "proto/caret_ctl_summary.h"
#include "tests/unit/unit.h"

/* o as a line, parsed back the way caretctl does (o is consumed). */
static cJSON *wire(cJSON *o)
{
	ck_assert_ptr_nonnull(o);
	char *line = caret_ctl_enc_line(o);
	ck_assert_ptr_nonnull(line);
	cJSON *root = NULL;
	enum ctl_reply_type type;
	struct ctl_why why = { "" };
	int r = ctl_reply_parse(line, strlen(line), &root, &type, &why);
	ck_assert_msg(r == 0, "%s: %s", line, why.msg);
	free(line);
	return root;
}

static cJSON *parse(const char *text)
{
	cJSON *o = cJSON_Parse(text);
	ck_assert_ptr_nonnull(o);
	return o;
}

/* ---- hosts ---- */

static cJSON *hosts_sample(void)
{
	struct caret_ctl_host_proc mine[] = { { "talker", "RECORD", "talker,listener", 42 },
					      { "idle", "WAIT", "", 43 } };
	struct caret_ctl_host_proc theirs[] = { { "cam", "PREPARE", "cam", -7 } };
	struct caret_ctl_host hosts[] = {
		{ .host = "a", .self = true, .version = 3, .n_procs = 2, .procs = mine },
		{ .host = "b", .age_ms = 1500, .version = 3, .n_procs = 1, .procs = theirs },
		{ .host = "c", .age_ms = 99, .version = 2, .ignored = true },
	};
	struct caret_ctl_hosts h = { .host = "a", .bridge = "on", .waking = true,
				     .counts = { 1, 2, 3, 4, 5, 6, 7 }, .n_hosts = 3,
				     .hosts = hosts };
	cJSON *o = caret_ctl_enc_result();
	ck_assert_int_eq(caret_ctl_hosts_encode(&h, o), 0);
	return wire(o);
}

START_TEST(hosts_round_trip)
{
	cJSON *root = hosts_sample();
	struct caret_ctl_hosts h;
	char why[256] = "";
	ck_assert_msg(caret_ctl_hosts_decode(root, &h, why, sizeof(why)) == 0, "%s", why);
	ck_assert_str_eq(h.host, "a");
	ck_assert_str_eq(h.bridge, "on");
	ck_assert(h.waking && h.have_counts);
	ck_assert_uint_eq(h.counts.start, 1);
	ck_assert_uint_eq(h.counts.foreign, 7);
	ck_assert_uint_eq(h.n_hosts, 3);
	ck_assert(h.hosts[0].self && !h.hosts[1].self);
	ck_assert_uint_eq(h.hosts[0].n_procs, 2);
	ck_assert_str_eq(h.hosts[0].procs[0].nodes, "talker,listener");
	ck_assert_str_eq(h.hosts[0].procs[1].nodes, "");
	ck_assert_int_eq(h.hosts[0].procs[1].pid, 43);
	ck_assert_uint_eq(caret_ctl_host_recording(&h.hosts[0]), 1);
	ck_assert_int_eq(h.hosts[1].age_ms, 1500);
	ck_assert_int_eq(h.hosts[1].procs[0].pid, -7);
	ck_assert_str_eq(h.hosts[1].procs[0].state, "PREPARE");
	ck_assert(h.hosts[2].ignored);
	ck_assert_uint_eq(h.hosts[2].version, 2);
	ck_assert_uint_eq(h.hosts[2].n_procs, 0);
	caret_ctl_hosts_free(&h);
	cJSON_Delete(root);
}
END_TEST

/* The keys caretds sent before lazy bridges and bridge versions. */
START_TEST(hosts_old_daemon)
{
	cJSON *root = parse("{\"host\":\"a\",\"bridge\":\"on\",\"hosts\":[{\"host\":\"a\","
			    "\"self\":true,\"age_ms\":0,\"processes\":[]}]}");
	struct caret_ctl_hosts h;
	char why[256] = "";
	ck_assert_msg(caret_ctl_hosts_decode(root, &h, why, sizeof(why)) == 0, "%s", why);
	ck_assert(!h.waking && !h.have_counts && !h.hosts[0].ignored);
	ck_assert_uint_eq(h.hosts[0].version, 0);
	caret_ctl_hosts_free(&h);
	cJSON_Delete(root);
}
END_TEST

static void hosts_refused(const char *text, const char *in_why)
{
	cJSON *root = parse(text);
	struct caret_ctl_hosts h;
	char why[256] = "";
	ck_assert_int_eq(caret_ctl_hosts_decode(root, &h, why, sizeof(why)), -EPROTO);
	ck_assert_msg(strstr(why, in_why), "%s: why \"%s\" lacks \"%s\"", text, why, in_why);
	ck_assert_ptr_null(h.hosts);
	cJSON_Delete(root);
}

START_TEST(hosts_hostile)
{
	hosts_refused("[]", "not an object");
	hosts_refused("{\"host\":1,\"bridge\":\"on\",\"hosts\":[]}", "\"host\" is not a string");
	hosts_refused("{\"host\":\"a\",\"bridge\":\"on\",\"hosts\":{}}", "not an array");
	hosts_refused("{\"host\":\"a\",\"bridge\":\"on\",\"hosts\":[1]}", "other than objects");
	hosts_refused("{\"host\":\"a\",\"bridge\":\"on\",\"bridge_waking\":1,\"hosts\":[]}",
		      "bridge_waking");
	hosts_refused("{\"host\":\"a\",\"bridge\":\"on\",\"counts\":{\"start\":-1},\"hosts\":[]}",
		      "counts.start");
	hosts_refused("{\"host\":\"a\",\"bridge\":\"on\",\"hosts\":[{\"host\":\"b\",\"self\":false,"
		      "\"age_ms\":-5,\"processes\":[]}]}",
		      "hosts[0].age_ms\" is out of range");
	hosts_refused("{\"host\":\"a\",\"bridge\":\"on\",\"hosts\":[{\"host\":\"b\",\"self\":false,"
		      "\"age_ms\":5,\"bridge_version\":5e9,\"processes\":[]}]}",
		      "bridge_version\" is out of range");
	hosts_refused("{\"host\":\"a\",\"bridge\":\"on\",\"hosts\":[{\"host\":\"b\",\"self\":false,"
		      "\"age_ms\":5,\"processes\":[{\"name\":\"x\",\"state\":\"RECORD\","
		      "\"pid\":1.5,\"nodes\":\"\"}]}]}",
		      "hosts[0].processes[0].pid\" is not an integer");
	hosts_refused("{\"host\":\"a\",\"bridge\":\"on\",\"hosts\":[{\"host\":\"b\",\"self\":false,"
		      "\"age_ms\":5,\"processes\":[{\"name\":\"x\",\"state\":\"RECORD\","
		      "\"pid\":1}]}]}",
		      "nodes\" is missing");
}
END_TEST

START_TEST(hosts_too_many)
{
	cJSON *o = parse("{\"host\":\"a\",\"bridge\":\"on\",\"hosts\":[]}");
	cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, "hosts");
	for (int i = 0; i <= CARET_CTL_HOSTS_MAX; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateObject());
	struct caret_ctl_hosts h;
	char why[256] = "";
	ck_assert_int_eq(caret_ctl_hosts_decode(o, &h, why, sizeof(why)), -EPROTO);
	ck_assert_msg(strstr(why, "too many"), "%s", why);
	cJSON_Delete(o);
}
END_TEST

/* ---- snapshot ---- */

START_TEST(snapshot_one_host)
{
	struct caret_ctl_snapshot_result s = { .session = "fr", .path = "/t/snapshot-1",
					       .complete = false, .why = "pid 9 did not finish",
					       .have_counts = true, .snapshots = 3, .pass_ms = 120 };
	cJSON *o = caret_ctl_enc_result();
	ck_assert_int_eq(caret_ctl_snapshot_result_encode(&s, o), 0);
	cJSON *root = wire(o);
	struct caret_ctl_snapshot_result d;
	char why[256] = "";
	ck_assert_msg(caret_ctl_snapshot_result_decode(root, &d, why, sizeof(why)) == 0, "%s", why);
	ck_assert_str_eq(d.session, "fr");
	ck_assert_str_eq(d.path, "/t/snapshot-1");
	ck_assert(!d.complete && d.have_counts && !d.all_hosts);
	ck_assert_str_eq(d.why, "pid 9 did not finish");
	ck_assert_uint_eq(d.snapshots, 3);
	ck_assert_int_eq(d.pass_ms, 120);
	caret_ctl_snapshot_result_free(&d);
	cJSON_Delete(root);
}
END_TEST

START_TEST(snapshot_all_hosts)
{
	struct caret_ctl_snapshot_host hosts[] = {
		{ .host = "a", .self = true, .error = "no flight recorder", .err = ENOENT },
		{ .host = "b", .version = 3, .path = "/b/s", .complete = true },
		{ .host = "c", .version = 3, .path = "/c/s", .why = "pass timed out" },
	};
	struct caret_ctl_snapshot_result s = { .session = "fr", .all_hosts = true,
					       .n_hosts = 3, .hosts = hosts };
	cJSON *o = caret_ctl_enc_result();
	ck_assert_int_eq(caret_ctl_snapshot_result_encode(&s, o), 0);
	cJSON *root = wire(o);
	/* this host's entry has no bridge_version, the others' have one */
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, CARET_CTL_K_HOSTS);
	ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(arr, 0),
							    CARET_CTL_K_BRIDGE_VERSION));
	ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(root, CARET_CTL_K_PATH));
	struct caret_ctl_snapshot_result d;
	char why[256] = "";
	ck_assert_msg(caret_ctl_snapshot_result_decode(root, &d, why, sizeof(why)) == 0, "%s", why);
	ck_assert(d.all_hosts && !d.complete && !d.have_counts);
	ck_assert_ptr_null(d.path);
	ck_assert_uint_eq(d.n_hosts, 3);
	ck_assert_str_eq(d.hosts[0].error, "no flight recorder");
	ck_assert_int_eq(d.hosts[0].err, ENOENT);
	ck_assert_uint_eq(d.hosts[1].version, 3);
	ck_assert(d.hosts[1].complete && !d.hosts[1].why);
	ck_assert_str_eq(d.hosts[2].why, "pass timed out");
	caret_ctl_snapshot_result_free(&d);
	cJSON_Delete(root);
}
END_TEST

static void snapshot_refused(const char *text, const char *in_why)
{
	cJSON *root = parse(text);
	struct caret_ctl_snapshot_result d;
	char why[256] = "";
	ck_assert_int_eq(caret_ctl_snapshot_result_decode(root, &d, why, sizeof(why)), -EPROTO);
	ck_assert_msg(strstr(why, in_why), "%s: why \"%s\" lacks \"%s\"", text, why, in_why);
	ck_assert_ptr_null(d.hosts);
	cJSON_Delete(root);
}

START_TEST(snapshot_hostile)
{
	snapshot_refused("\"x\"", "not an object");
	snapshot_refused("{\"session\":\"s\",\"complete\":true}", "\"path\" is missing");
	snapshot_refused("{\"session\":\"s\",\"path\":\"/p\",\"complete\":1}", "\"complete\"");
	snapshot_refused("{\"session\":\"s\",\"path\":\"/p\",\"complete\":true,\"snapshots\":-1,"
			 "\"pass_ms\":0}", "\"snapshots\" is out of range");
	snapshot_refused("{\"session\":\"s\",\"path\":\"/p\",\"complete\":true,\"snapshots\":1}",
			 "\"pass_ms\" is missing");
	snapshot_refused("{\"session\":\"s\",\"complete\":true,\"hosts\":[]}", "empty");
	snapshot_refused("{\"session\":\"s\",\"complete\":true,\"hosts\":[{\"host\":\"a\","
			 "\"self\":true}]}", "hosts[0].path\" is missing");
	snapshot_refused("{\"session\":\"s\",\"complete\":true,\"hosts\":[{\"host\":\"a\","
			 "\"self\":true,\"error\":\"x\",\"errno\":99999}]}",
			 "hosts[0].errno\" is out of range");
	snapshot_refused("{\"session\":\"s\",\"complete\":true,\"hosts\":[{\"host\":\"a\","
			 "\"self\":false,\"bridge_version\":-1,\"path\":\"/p\",\"complete\":true}]}",
			 "bridge_version\" is out of range");
}
END_TEST

START_TEST(error_decode)
{
	cJSON *root = wire(caret_ctl_enc_error(-EBUSY, "busy"));
	struct caret_ctl_error e;
	char why[128];
	ck_assert_int_eq(caret_ctl_error_decode(root, &e, why, sizeof(why)), 0);
	ck_assert_str_eq(e.error, "busy");
	ck_assert_int_eq(e.err, EBUSY);
	cJSON_Delete(root);
	root = parse("{\"session\":\"s\"}");
	ck_assert_int_eq(caret_ctl_error_decode(root, &e, why, sizeof(why)), -ENOENT);
	cJSON_Delete(root);
	root = parse("{\"error\":3}");
	ck_assert_int_eq(caret_ctl_error_decode(root, &e, why, sizeof(why)), -EPROTO);
	cJSON_Delete(root);
	root = parse("{\"error\":\"x\",\"errno\":-4}");
	ck_assert_int_eq(caret_ctl_error_decode(root, &e, why, sizeof(why)), -EPROTO);
	cJSON_Delete(root);
}
END_TEST


/* ---- recordings (status, list, stop) ---- */

/* The objects as caretd wrote them when daemon/recording/ built them
 * itself (rotation_report.c, snapshot.c, snapshot_trigger.c): the encoder
 * writes the same text (caretd's own replies: check_commands_rotation.c,
 * check_commands_snapshot.c). */
static const char status_line[] =
	"{\"v\":1,\"type\":\"result\",\"rotations_ended\":[{\"session\":\"old\",\"error\":\"disk full\"}],"
	"\"rotations\":[{\"chunks\":[{\"name\":\"c0\",\"index\":0,\"bytes\":4096,\"complete\":true},"
	"{\"name\":\"c1\",\"index\":1,\"bytes\":8192,\"complete\":false,\"why\":\"lacks init records of some process\"}],"
	"\"incomplete\":[\"c1\"],\"session\":\"rot\",\"mode\":\"rotating\",\"rotate_size\":1048576,"
	"\"rotate_every_ms\":0,\"keep\":3,\"max_size\":0,\"rotations\":2,\"removed\":0,"
	"\"chunks_bytes\":12288,\"pass_complete\":false}],"
	"\"recordings\":[{\"session\":\"rot\",\"path\":\"/t/rot\",\"mode\":\"rotating\",\"paused\":true},"
	"{\"session\":\"fr\",\"path\":\"/t/fr\",\"mode\":\"snapshot\",\"ring_size\":1048576,"
	"\"snapshots\":2,\"last_snapshot\":\"/t/fr/snapshot-2\",\"snapshot_on\":\"p:e\","
	"\"snapshot_filter\":\"x > 1\",\"triggered\":5,\"coalesced\":3}]}";

START_TEST(recordings_round_trip)
{
	cJSON *in = parse(status_line);
	struct caret_ctl_recordings r;
	char why[256] = "";
	ck_assert_msg(caret_ctl_recordings_decode(in, &r, why, sizeof(why)) == 0, "%s", why);
	ck_assert(r.have_rotations && r.have_ended && r.have_recordings && !r.have_self);
	ck_assert_ptr_null(r.rotation);
	ck_assert_uint_eq(r.n_ended, 1);
	ck_assert_str_eq(r.ended[0].error, "disk full");
	const struct caret_ctl_rotation_status *t = caret_ctl_recordings_rotation(&r, "rot");
	ck_assert_ptr_nonnull(t);
	ck_assert_ptr_null(caret_ctl_recordings_rotation(&r, "fr"));
	ck_assert_uint_eq(t->n_chunks, 2);
	ck_assert(t->chunks[0].complete && !t->chunks[1].complete);
	ck_assert_str_eq(t->chunks[1].why, "lacks init records of some process");
	ck_assert_uint_eq(t->n_incomplete, 1);
	ck_assert_str_eq(t->incomplete[0], "c1");
	ck_assert(t->have_pass_complete && !t->pass_complete);
	ck_assert_uint_eq(t->rotate_size, 1048576);
	ck_assert_uint_eq(t->keep, 3);
	ck_assert_uint_eq(r.n_recordings, 2);
	ck_assert(!r.recordings[0].have_snapshots && !r.recordings[0].have_trigger);
	ck_assert(r.recordings[0].paused && !r.recordings[1].paused);
	ck_assert(r.recordings[1].have_trigger && r.recordings[1].have_ring_size);
	ck_assert_uint_eq(r.recordings[1].coalesced, 3);
	ck_assert_str_eq(r.recordings[1].snapshot_filter, "x > 1");
	/* encoded again: the same line */
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "v", 1);
	cJSON_AddStringToObject(o, "type", "result");
	ck_assert_int_eq(caret_ctl_recordings_encode(&r, o), 0);
	char *line = cJSON_PrintUnformatted(o);
	ck_assert_str_eq(line, status_line);
	free(line);
	cJSON_Delete(o);
	caret_ctl_recordings_free(&r);
	cJSON_Delete(in);
}
END_TEST

/* A stop result: its "rotation", or a flight recorder's own mode fields. */
START_TEST(recordings_stop)
{
	cJSON *in = parse("{\"session\":\"fr\",\"path\":\"/t/fr\",\"mode\":\"snapshot\","
			  "\"ring_size\":65536,\"snapshots\":0}");
	struct caret_ctl_recordings r;
	char why[256] = "";
	ck_assert_msg(caret_ctl_recordings_decode(in, &r, why, sizeof(why)) == 0, "%s", why);
	ck_assert(r.have_self && r.self.have_snapshots && r.self.snapshots == 0);
	ck_assert_str_eq(r.self.mode, "snapshot");
	ck_assert_ptr_null(r.self.session);
	caret_ctl_recordings_free(&r);
	cJSON_Delete(in);
	in = parse("{\"session\":\"rot\",\"path\":\"/t\",\"rotation\":{\"chunks\":[],"
		   "\"incomplete\":[],\"session\":\"rot\",\"mode\":\"rotating\",\"rotate_size\":0,"
		   "\"rotate_every_ms\":1000,\"keep\":0,\"max_size\":1048576,\"rotations\":0,"
		   "\"removed\":0,\"chunks_bytes\":0}}");
	ck_assert_msg(caret_ctl_recordings_decode(in, &r, why, sizeof(why)) == 0, "%s", why);
	ck_assert_ptr_nonnull(r.rotation);
	ck_assert(!r.have_self && !r.rotation->have_pass_complete);
	ck_assert_uint_eq(r.rotation->rotate_every_ms, 1000);
	caret_ctl_recordings_free(&r);
	cJSON_Delete(in);
}
END_TEST

static void recordings_refused(const char *text, const char *in_why)
{
	cJSON *root = parse(text);
	struct caret_ctl_recordings r;
	char why[256] = "";
	ck_assert_int_eq(caret_ctl_recordings_decode(root, &r, why, sizeof(why)), -EPROTO);
	ck_assert_msg(strstr(why, in_why), "%s: why \"%s\" lacks \"%s\"", text, why, in_why);
	ck_assert_ptr_null(r.rotations);
	ck_assert_ptr_null(r.rotation);
	cJSON_Delete(root);
}

START_TEST(recordings_hostile)
{
	recordings_refused("{\"rotations\":{}}", "\"rotations\" is not an array");
	recordings_refused("{\"rotations\":[3]}", "other than objects");
	recordings_refused("{\"rotations_ended\":[{\"session\":\"s\"}]}",
			   "rotations_ended[0].error\" is missing");
	recordings_refused("{\"recordings\":[{\"session\":\"s\",\"path\":\"/p\",\"mode\":\"snapshot\","
			   "\"snapshots\":-2}]}", "recordings[0].snapshots\" is out of range");
	recordings_refused("{\"recordings\":[{\"session\":\"s\",\"path\":\"/p\",\"mode\":\"snapshot\","
			   "\"ring_size\":1e300}]}", "ring_size\" is not an integer");
	recordings_refused("{\"recordings\":[{\"session\":\"s\",\"path\":\"/p\",\"mode\":\"snapshot\","
			   "\"snapshot_on\":\"p:e\"}]}", "triggered\" is missing");
	recordings_refused("{\"rotation\":[]}", "\"rotation\" is not an object");
	recordings_refused("{\"rotation\":{\"chunks\":[{\"name\":\"c\",\"index\":0,\"bytes\":1,"
			   "\"complete\":\"yes\"}],\"incomplete\":[],\"session\":\"r\",\"mode\":\"rotating\","
			   "\"rotate_size\":0,\"rotate_every_ms\":0,\"keep\":0,\"max_size\":0,"
			   "\"rotations\":0,\"removed\":0,\"chunks_bytes\":0}}",
			   "rotation.chunks[0].complete\" is not true or false");
	recordings_refused("{\"rotation\":{\"chunks\":[],\"incomplete\":[1],\"session\":\"r\","
			   "\"mode\":\"rotating\",\"rotate_size\":0,\"rotate_every_ms\":0,\"keep\":0,"
			   "\"max_size\":0,\"rotations\":0,\"removed\":0,\"chunks_bytes\":0}}",
			   "incomplete\" holds something other than strings");
	recordings_refused("{\"rotation\":{\"chunks\":[],\"incomplete\":[],\"session\":\"r\","
			   "\"mode\":\"rotating\",\"rotate_size\":0,\"rotate_every_ms\":0,\"keep\":0,"
			   "\"max_size\":0,\"rotations\":1e16,\"removed\":0,\"chunks_bytes\":0}}",
			   "rotation.rotations\" is out of range");
}
END_TEST

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
	Suite *s = suite_create("ctl_replies");
	unit_case(s, "summary", summary_round_trip, summary_hostile);
	unit_case(s, "hosts", hosts_round_trip, hosts_old_daemon, hosts_hostile, hosts_too_many);
	unit_case(s, "snapshot", snapshot_one_host, snapshot_all_hosts, snapshot_hostile,
		  error_decode);
	unit_case(s, "recordings", recordings_round_trip, recordings_stop, recordings_hostile);
	unit_case(s, "graph", graph_nodes_round_trip, graph_topics_round_trip, graph_hostile);
	unit_case(s, "check", check_round_trip, check_hostile);
	unit_case(s, "record_list", record_list_round_trip, record_list_hostile);
	unit_case(s, "events", events_page_round_trip);
	return unit_run(s);
}
