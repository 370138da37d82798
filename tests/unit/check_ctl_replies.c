/* SPDX-License-Identifier: Apache-2.0 */
/* The typed results of the commands on hosts and recordings (hosts,
 * snapshot, status/stop's recordings: caret_ctl_X_encode /
 * caret_ctl_X_decode): each built as caretd builds it, sent as a line,
 * read back as caretctl reads it; and each decoder fed what a hostile
 * caretd could send. The trace and graph listings: check_ctl_listings.c. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/caret_ctl.h"
#include "proto/caret_ctl_enc.h"
#include "proto/caret_ctl_hosts.h"
#include "proto/caret_ctl_recordings.h"
#include "proto/caret_ctl_reply.h"
#include "proto/caret_ctl_snapshot_res.h"
#include "tests/unit/ctl_wire.h"
#include "tests/unit/unit.h"

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

int main(void)
{
	Suite *s = suite_create("ctl_replies");
	unit_case(s, "hosts", hosts_round_trip, hosts_old_daemon, hosts_hostile, hosts_too_many);
	unit_case(s, "snapshot", snapshot_one_host, snapshot_all_hosts, snapshot_hostile,
		  error_decode);
	unit_case(s, "recordings", recordings_round_trip, recordings_stop, recordings_hostile);
	return unit_run(s);
}
