/* SPDX-License-Identifier: Apache-2.0 */
/* Every control request built as caretctl builds it (caret_ctl_enc_req)
 * and decoded as caretd decodes it (caret_ctl_dec_req), hostile forms
 * refused with the key named. The replies: check_ctl_proto.c. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/caret_ctl.h"
#include "proto/caret_ctl_dec.h"
#include "proto/caret_ctl_enc.h"
#include "proto/caret_ctl_reply.h"
#include "proto/caret_ctl_req.h"
#include "proto/caret_ctl_simclock.h"
#include "proto/caret_ctl_rotation.h"
#include "proto/caret_ctl_sel.h"

START_TEST(request_envelope)
{
	cJSON *q = caret_ctl_enc_req_simple(CARET_CTL_WAIT);
	ck_assert_ptr_nonnull(q);
	ck_assert_int_eq(cJSON_GetObjectItemCaseSensitive(q, CARET_CTL_K_V)->valueint,
			 CARET_CTL_VERSION);
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(q, CARET_CTL_K_CMD)->valuestring,
			 "wait");
	cJSON_Delete(q);
}
END_TEST

/* A request through the wire: encoded, printed, parsed, decoded. */
static cJSON *req_wire(const struct caret_ctl_req *in, struct caret_ctl_req *out)
{
	char *line = caret_ctl_enc_line(caret_ctl_enc_req(in));
	ck_assert_ptr_nonnull(line);
	cJSON *o = cJSON_Parse(line);
	free(line);
	struct ctl_why why;
	ck_assert_msg(caret_ctl_dec_req(o, out, &why) == 0, "%s", why.msg);
	ck_assert_int_eq(out->v, CARET_CTL_VERSION);
	ck_assert_int_eq(out->cmd, in->cmd);
	return o;
}

START_TEST(request_roundtrip)
{
	struct caret_ctl_req in = { .v = CARET_CTL_VERSION, .cmd = CARET_CTL_RECORD }, out;
	in.u.record = (struct caret_ctl_record_req){
		.session = "s1", .path = "/tmp/t", .pacing = CARET_CTL_PACING_FREQUENCY,
		.frequency = 200, .subbuf_size = 1 << 20, .subbuf_count = 8, .light = true,
		.append = true, .all_hosts = true,
		.filter = { [CARET_FILTER_SELECT_NODES] = "/a.*", [CARET_FILTER_IGNORE_TOPICS] = "/b" },
	};
	cJSON *o = req_wire(&in, &out);
	const struct caret_ctl_record_req *r = &out.u.record;
	ck_assert_str_eq(r->session, "s1");
	ck_assert_str_eq(r->path, "/tmp/t");
	ck_assert_ptr_null(r->url);
	ck_assert_ptr_null(r->go);
	ck_assert_str_eq(r->pacing, "frequency");
	ck_assert_uint_eq(r->frequency, 200);
	ck_assert_uint_eq(r->subbuf_size, 1 << 20);
	ck_assert_uint_eq(r->subbuf_count, 8);
	ck_assert(r->light && r->append && r->all_hosts && !r->arm);
	ck_assert_str_eq(r->filter[CARET_FILTER_SELECT_NODES], "/a.*");
	ck_assert_ptr_null(r->filter[CARET_FILTER_IGNORE_NODES]);
	ck_assert_str_eq(r->filter[CARET_FILTER_IGNORE_TOPICS], "/b");
	/* the one key table: the wire spells what caret_ctl.h names */
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(o, CARET_CTL_K_SELECT_NODES)->valuestring,
			 "/a.*");
	cJSON_Delete(o);

	/* a rotating recording (issue 23): its four fields through the wire */
	in.u.record = (struct caret_ctl_record_req){
		.path = "/tmp/t", .rotate_size = 1 << 20, .rotate_every_ms = 60000, .keep = 5,
		.max_size = 64ull << 20,
	};
	o = req_wire(&in, &out);
	r = &out.u.record;
	ck_assert_uint_eq(r->rotate_size, 1 << 20);
	ck_assert_uint_eq(r->rotate_every_ms, 60000);
	ck_assert_uint_eq(r->keep, 5);
	ck_assert_uint_eq(r->max_size, 64ull << 20);
	ck_assert_int_eq(cJSON_GetObjectItemCaseSensitive(o, CARET_CTL_K_KEEP)->valueint, 5);
	cJSON_Delete(o);
	/* a plain recording sends none of them */
	in.u.record = (struct caret_ctl_record_req){ .path = "/tmp/t" };
	o = req_wire(&in, &out);
	ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(o, CARET_CTL_K_ROTATE_SIZE));
	ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(o, CARET_CTL_K_KEEP));
	ck_assert_uint_eq(out.u.record.rotate_size + out.u.record.rotate_every_ms +
			  out.u.record.keep + out.u.record.max_size, 0);
	/* nor "hold" (the request older caretctls sent) */
	ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(o, CARET_CTL_K_HOLD));
	ck_assert(!out.u.record.hold);
	cJSON_Delete(o);
	in.u.record = (struct caret_ctl_record_req){ .path = "/tmp/t", .hold = true };
	o = req_wire(&in, &out);
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, CARET_CTL_K_HOLD)));
	ck_assert(out.u.record.hold);
	cJSON_Delete(o);

	in.u.record = (struct caret_ctl_record_req){ .go = "armed-1", .path = "/ignored" };
	o = req_wire(&in, &out);
	ck_assert_str_eq(out.u.record.go, "armed-1");
	ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(o, CARET_CTL_K_PATH));
	cJSON_Delete(o);

	in.u.record = (struct caret_ctl_record_req){ .url = "net://relay", .path = "/x", .arm = false };
	o = req_wire(&in, &out);
	ck_assert_str_eq(out.u.record.url, "net://relay");
	ck_assert_ptr_null(out.u.record.path);
	cJSON_Delete(o);

	in = (struct caret_ctl_req){ .v = CARET_CTL_VERSION, .cmd = CARET_CTL_WAIT,
				     .u.wait.timeout_ms = 1234 };
	cJSON_Delete(req_wire(&in, &out));
	ck_assert_int_eq(out.u.wait.timeout_ms, 1234);

	in = (struct caret_ctl_req){ .v = CARET_CTL_VERSION, .cmd = CARET_CTL_STOP,
				     .u.stop = { "s2", true } };
	o = req_wire(&in, &out);
	ck_assert_str_eq(out.u.stop.session, "s2");
	ck_assert(out.u.stop.all_hosts);
	cJSON_Delete(o);

	in = (struct caret_ctl_req){ .v = CARET_CTL_VERSION, .cmd = CARET_CTL_START,
				     .u.startend = { true, { [CARET_FILTER_SELECT_TOPICS] = "/t" } } };
	o = req_wire(&in, &out);
	ck_assert(out.u.startend.all_hosts);
	ck_assert_str_eq(out.u.startend.filter[CARET_FILTER_SELECT_TOPICS], "/t");
	cJSON_Delete(o);

	in = (struct caret_ctl_req){ .v = CARET_CTL_VERSION, .cmd = CARET_CTL_END };
	cJSON_Delete(req_wire(&in, &out));
	ck_assert(!out.u.startend.all_hosts);

	/* pause and resume: the session, or none (the caller's latest) */
	in = (struct caret_ctl_req){ .v = CARET_CTL_VERSION, .cmd = CARET_CTL_PAUSE,
				     .u.pause = { "pz" } };
	o = req_wire(&in, &out);
	ck_assert_int_eq(out.cmd, CARET_CTL_PAUSE);
	ck_assert_str_eq(out.u.pause.session, "pz");
	cJSON_Delete(o);
	in = (struct caret_ctl_req){ .v = CARET_CTL_VERSION, .cmd = CARET_CTL_RESUME };
	o = req_wire(&in, &out);
	ck_assert_int_eq(out.cmd, CARET_CTL_RESUME);
	ck_assert_ptr_null(out.u.pause.session);
	cJSON_Delete(o);

	static struct caret_ctl_req ev = { .v = CARET_CTL_VERSION, .cmd = CARET_CTL_EVENTS };
	static struct caret_ctl_req evout;
	ev.u.events.count = 7;
	ev.u.events.npids = 1;
	ev.u.events.pids[0] = 42;
	o = req_wire(&ev, &evout);
	ck_assert_int_eq(evout.u.events.count, 7);
	ck_assert_int_eq(evout.u.events.pids[0], 42);
	cJSON_Delete(o);

	for (int c = 0; c < CARET_CTL_N_CMDS; c++) {
		ck_assert_int_eq(caret_ctl_cmd_by_name(caret_ctl_cmd_name(c)), c);
		if (c == CARET_CTL_STATUS || c == CARET_CTL_LIST || c == CARET_CTL_HOSTS) {
			in = (struct caret_ctl_req){ .v = CARET_CTL_VERSION, .cmd = c };
			cJSON_Delete(req_wire(&in, &out));
		}
	}
	ck_assert_int_eq(caret_ctl_cmd_by_name("nope"), -1);
	ck_assert_ptr_null(caret_ctl_cmd_name(CARET_CTL_N_CMDS));
}
END_TEST

/* A request line any client may send: its decoding's errno and message. */
static int dec(const char *line, struct ctl_why *why)
{
	struct caret_ctl_req q;
	cJSON *o = cJSON_Parse(line);
	int r = caret_ctl_dec_req(o, &q, why);
	cJSON_Delete(o);
	return r;
}

#define REFUSED(line, err, text)                                                   \
	do {                                                                       \
		struct ctl_why w_;                                                 \
		ck_assert_int_eq(dec(line, &w_), err);                             \
		ck_assert_msg(strstr(w_.msg, text), "%s: %s", line, w_.msg);        \
	} while (0)

START_TEST(request_hostile)
{
	/* the envelope: versions named both ways */
	REFUSED("[1]", -EPROTO, "not a JSON object");
	REFUSED("{\"cmd\":\"status\"}", -EPROTO, "no protocol version");
	REFUSED("{\"v\":2,\"cmd\":\"status\"}", -EPROTO,
		"request speaks protocol version 2, caretd speaks 1");
	REFUSED("{\"v\":1.5,\"cmd\":\"status\"}", -EPROTO, "unsupported protocol version");
	REFUSED("{\"v\":\"1\",\"cmd\":\"status\"}", -EPROTO, "unsupported protocol version");
	REFUSED("{\"v\":1}", -EPROTO, "no \"cmd\"");
	REFUSED("{\"v\":1,\"cmd\":7}", -EPROTO, "no \"cmd\"");
	REFUSED("{\"v\":1,\"cmd\":\"nope\"}", -EINVAL, "unknown command \"nope\"");
	/* record's fields: types, limits, combinations */
	REFUSED("{\"v\":1,\"cmd\":\"record\",\"path\":\"rel\"}", -EINVAL, "absolute");
	REFUSED("{\"v\":1,\"cmd\":\"record\"}", -EINVAL, "absolute");
	REFUSED("{\"v\":1,\"cmd\":\"record\",\"path\":7}", -EINVAL, "\"path\"");
	REFUSED("{\"v\":1,\"cmd\":\"record\",\"path\":\"/t\",\"light\":1}", -EINVAL,
		"light must be true or false");
	REFUSED("{\"v\":1,\"cmd\":\"record\",\"path\":\"/t\",\"subbuf_size\":3}", -EINVAL,
		"subbuf_size 3");
	REFUSED("{\"v\":1,\"cmd\":\"record\",\"path\":\"/t\",\"subbuf_count\":0}", -EINVAL,
		"subbuf_count 0");
	REFUSED("{\"v\":1,\"cmd\":\"record\",\"path\":\"/t\",\"subbuf_count\":-1}", -EINVAL,
		"out of range");
	REFUSED("{\"v\":1,\"cmd\":\"record\",\"path\":\"/t\",\"recording_frequency\":1e300}",
		-EINVAL, "not an integer");
	REFUSED("{\"v\":1,\"cmd\":\"record\",\"path\":\"/t\",\"recording_frequency\":0}",
		-EINVAL, "recording_frequency 0");
	REFUSED("{\"v\":1,\"cmd\":\"record\",\"path\":\"/t\",\"pacing\":\"fast\"}", -EINVAL,
		"pacing must be");
	REFUSED("{\"v\":1,\"cmd\":\"record\",\"path\":\"/t\",\"session\":\"a/b\"}", -EINVAL,
		"session");
	REFUSED("{\"v\":1,\"cmd\":\"record\",\"path\":\"/t\",\"session\":\"-x\"}", -EINVAL,
		"session");
	REFUSED("{\"v\":1,\"cmd\":\"record\",\"path\":\"/t\",\"select_nodes\":[1]}", -EINVAL,
		"select_nodes");
	REFUSED("{\"v\":1,\"cmd\":\"record\",\"path\":\"/t\",\"arm\":true,"
		"\"all_hosts\":true,\"url\":\"net://h\"}", -EINVAL,
		"arm does not go with all_hosts and url");
	REFUSED("{\"v\":1,\"cmd\":\"record\",\"go\":\"\"}", -EINVAL, "go must be a session name");
	REFUSED("{\"v\":1,\"cmd\":\"record\",\"go\":true}", -EINVAL, "go must be a session name");
	REFUSED("{\"v\":1,\"cmd\":\"record\",\"go\":\"..\"}", -EINVAL, "go must be");
	/* rotation's fields (issue 23): ranges, whole numbers, combinations */
	REFUSED("{\"v\":1,\"cmd\":\"record\",\"path\":\"/t\",\"rotate_size\":1000}", -EINVAL,
		"rotate_size 1000 must be from 65536");
	REFUSED("{\"v\":1,\"cmd\":\"record\",\"path\":\"/t\",\"rotate_size\":1e300}", -EINVAL,
		"rotate_size");
	REFUSED("{\"v\":1,\"cmd\":\"record\",\"path\":\"/t\",\"rotate_every_ms\":999}",
		-EINVAL, "rotate_every_ms 999");
	REFUSED("{\"v\":1,\"cmd\":\"record\",\"path\":\"/t\",\"rotate_every_ms\":1500.5}",
		-EINVAL, "rotate_every_ms");
	REFUSED("{\"v\":1,\"cmd\":\"record\",\"path\":\"/t\",\"rotate_every_ms\":\"60s\"}",
		-EINVAL, "rotate_every_ms");
	REFUSED("{\"v\":1,\"cmd\":\"record\",\"path\":\"/t\",\"rotate_every_ms\":60000,"
		"\"keep\":0}", -EINVAL, "keep 0");
	REFUSED("{\"v\":1,\"cmd\":\"record\",\"path\":\"/t\",\"rotate_every_ms\":60000,"
		"\"keep\":257}", -EINVAL, "keep 257");
	REFUSED("{\"v\":1,\"cmd\":\"record\",\"path\":\"/t\",\"rotate_every_ms\":60000,"
		"\"max_size\":-1}", -EINVAL, "max_size");
	REFUSED("{\"v\":1,\"cmd\":\"record\",\"path\":\"/t\",\"keep\":3}", -EINVAL,
		"give rotate_size or rotate_every_ms");
	REFUSED("{\"v\":1,\"cmd\":\"record\",\"path\":\"/t\",\"max_size\":1048576}", -EINVAL,
		"give rotate_size or rotate_every_ms");
	REFUSED("{\"v\":1,\"cmd\":\"record\",\"url\":\"net://h\",\"rotate_size\":1048576}",
		-EINVAL, "needs a local path, not a url");
	/* the others */
	REFUSED("{\"v\":1,\"cmd\":\"wait\",\"timeout_ms\":-1}", -EINVAL, "timeout_ms");
	REFUSED("{\"v\":1,\"cmd\":\"wait\",\"timeout_ms\":1e12}", -EINVAL, "out of range");
	REFUSED("{\"v\":1,\"cmd\":\"stop\",\"session\":{}}", -EINVAL, "session");
	REFUSED("{\"v\":1,\"cmd\":\"stop\",\"all_hosts\":\"yes\"}", -EINVAL,
		"all_hosts must be true or false");
	REFUSED("{\"v\":1,\"cmd\":\"start\",\"select_topics\":null}", -EINVAL, "select_topics");
	REFUSED("{\"v\":1,\"cmd\":\"end\",\"all_hosts\":0}", -EINVAL, "all_hosts");
	REFUSED("{\"v\":1,\"cmd\":\"events\",\"pids\":[0]}", -EINVAL, "pids");
	/* what end ignores, and what the defaults are */
	struct ctl_why why;
	ck_assert_int_eq(dec("{\"v\":1,\"cmd\":\"end\",\"select_nodes\":5}", &why), 0);
	struct caret_ctl_req q;
	cJSON *o = cJSON_Parse("{\"v\":1,\"cmd\":\"wait\"}");
	ck_assert_int_eq(caret_ctl_dec_req(o, &q, &why), 0);
	ck_assert_int_eq(q.u.wait.timeout_ms, CARET_CTL_DEFAULT_TIMEOUT_MS);
	cJSON_Delete(o);
	ck_assert_int_eq(caret_ctl_dec_req(NULL, &q, &why), -EPROTO);
}
END_TEST

/* ros2 trace's selection (proto/caret_ctl_sel.h): through the wire, its
 * hostile forms refused with the key named, and the UST list a recording
 * enables (CARET's init events added to any -u list). */
/* "hold": the session's name is required and checked; "release" a
 * boolean, false when absent */
START_TEST(request_hold)
{
	struct caret_ctl_req in = { .v = CARET_CTL_VERSION, .cmd = CARET_CTL_HOLD }, out;
	in.u.hold = (struct caret_ctl_hold_req){ .session = "held-1" };
	cJSON *o = req_wire(&in, &out);
	ck_assert_str_eq(out.u.hold.session, "held-1");
	ck_assert(!out.u.hold.release);
	ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(o, CARET_CTL_K_RELEASE));
	cJSON_Delete(o);
	in.u.hold.release = true;
	o = req_wire(&in, &out);
	ck_assert(out.u.hold.release);
	cJSON_Delete(o);
	ck_assert_str_eq(caret_ctl_cmd_name(CARET_CTL_HOLD), "hold");
	ck_assert_int_eq(caret_ctl_cmd_by_name("hold"), CARET_CTL_HOLD);
}
END_TEST

START_TEST(request_hold_hostile)
{
	REFUSED("{\"v\":1,\"cmd\":\"hold\"}", -EINVAL, "session is required");
	REFUSED("{\"v\":1,\"cmd\":\"hold\",\"session\":7}", -EINVAL, "session");
	REFUSED("{\"v\":1,\"cmd\":\"hold\",\"session\":\"a/b\"}", -EINVAL, "session");
	REFUSED("{\"v\":1,\"cmd\":\"hold\",\"session\":\"\"}", -EINVAL, "session");
	REFUSED("{\"v\":1,\"cmd\":\"hold\",\"session\":\"-x\"}", -EINVAL, "session");
	REFUSED("{\"v\":1,\"cmd\":\"hold\",\"session\":\"s\",\"release\":1}", -EINVAL,
		"release must be true or false");
	REFUSED("{\"v\":2,\"cmd\":\"hold\",\"session\":\"s\"}", -EPROTO, "version");
}
END_TEST

START_TEST(request_selection)
{
	struct caret_ctl_req in = { .v = CARET_CTL_VERSION, .cmd = CARET_CTL_RECORD }, out;
	in.u.record = (struct caret_ctl_record_req){ .path = "/tmp/t" };
	struct caret_ctl_sel *s = &in.u.record.sel;
	s->ust_given = true;
	s->n_ust = 2;
	s->ust[0] = "ros2:callback_start";
	s->ust[1] = "ros2_caret:rcl_*init";
	s->n_context = 1;
	s->context[0] = "pthread_id";
	s->n_kernel = 1;
	s->kernel[0] = "sched_switch";
	s->n_syscall = 1;
	s->syscall[0] = "openat";
	s->subbuf_size_kernel = 1 << 20;
	cJSON *o = req_wire(&in, &out);
	const struct caret_ctl_sel *r = &out.u.record.sel;
	ck_assert(r->ust_given);
	ck_assert_int_eq(r->n_ust, 2);
	ck_assert_str_eq(r->ust[1], "ros2_caret:rcl_*init");
	ck_assert_int_eq(r->n_context, 1);
	ck_assert_str_eq(r->kernel[0], "sched_switch");
	ck_assert_str_eq(r->syscall[0], "openat");
	ck_assert_uint_eq(r->subbuf_size_kernel, 1 << 20);
	ck_assert(caret_ctl_sel_kernel(r));
	cJSON_Delete(o);

	/* `-u` with no name: given, empty; no -u: not sent at all */
	in.u.record.sel = (struct caret_ctl_sel){ .ust_given = true };
	o = req_wire(&in, &out);
	ck_assert(out.u.record.sel.ust_given);
	ck_assert_int_eq(out.u.record.sel.n_ust, 0);
	cJSON_Delete(o);
	in.u.record.sel = (struct caret_ctl_sel){ 0 };
	o = req_wire(&in, &out);
	ck_assert(!out.u.record.sel.ust_given);
	ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(o, CARET_CTL_K_UST));
	cJSON_Delete(o);

	/* the list enabled: the user's names, then the init events no name
	 * covers (rcl_*init covered those), never twice */
	const char *ev[200];
	int added = -1;
	struct caret_ctl_sel u = { .ust_given = true, .n_ust = 2,
				   .ust = { "ros2:callback_start", "ros2_caret:rcl_*init" } };
	int n = caret_ctl_sel_ust(&u, false, true, ev, 200, &added);
	ck_assert_int_eq(added, 2);
	ck_assert_int_gt(n, 10);
	bool caret_init = false;
	for (int i = added; i < n; i++) {
		ck_assert_msg(strcmp(ev[i], "ros2_caret:rcl_node_init") != 0, "covered");
		caret_init |= strcmp(ev[i], "ros2_caret:caret_init") == 0;
	}
	ck_assert(caret_init);
	ck_assert_int_eq(caret_ctl_sel_ust(&u, false, true, ev, 3, NULL), -E2BIG);
	struct caret_ctl_sel all = { .ust_given = true, .n_ust = 1, .ust = { "*" } };
	ck_assert_int_eq(caret_ctl_sel_ust(&all, false, true, ev, 200, &added), 1);
	ck_assert_int_eq(caret_ctl_sel_unrecorded(&all, ev, 200), 0);
	ck_assert_int_gt(caret_ctl_sel_unrecorded(&u, ev, 200), 5);
	/* no -u: CARET's list as it was (ros2caret's verb/record.py: ros* and agnocast*) */
	ck_assert_int_eq(caret_ctl_sel_ust(NULL, false, true, ev, 200, NULL), 2);
	ck_assert_str_eq(ev[0], "ros*");
	ck_assert_str_eq(ev[1], "agnocast*");

#define REC "{\"v\":1,\"cmd\":\"record\",\"path\":\"/t\","
	REFUSED(REC "\"ust\":\"ros2:*\"}", -EINVAL, "ust must be an array");
	REFUSED(REC "\"ust\":[7]}", -EINVAL, "ust[0] must be a string");
	REFUSED(REC "\"ust\":[\"a\",\"b c\"]}", -EINVAL, "ust[1] may hold only");
	REFUSED(REC "\"ust\":[\"-x\"]}", -EINVAL, "must not start with '-'");
	REFUSED(REC "\"ust\":[\"\"]}", -EINVAL, "1 to 255 bytes");
	REFUSED(REC "\"ust\":[\"x[ab]\"]}", -EINVAL, "may hold only");
	REFUSED(REC "\"context\":[\"bogus\"]}", -EINVAL, "context[0] not a context");
	REFUSED(REC "\"context\":[\"pid\"]}", -EINVAL, "kernel events only");
	REFUSED(REC "\"kernel\":[\"a;b\"]}", -EINVAL, "kernel[0]");
	REFUSED(REC "\"syscall\":[\"a/b\"]}", -EINVAL, "syscall[0]");
	REFUSED(REC "\"subbuf_size_kernel\":1048576}", -EINVAL, "needs kernel events");
	REFUSED(REC "\"kernel\":[\"k\"],\"subbuf_size_kernel\":3000}", -EINVAL,
		"subbuf_size_kernel 3000");
	REFUSED(REC "\"kernel\":[\"k\"],\"subbuf_size_kernel\":1.5}", -EINVAL,
		"whole number");
	REFUSED(REC "\"light\":true,\"ust\":[]}", -EINVAL, "not both");
	REFUSED("{\"v\":1,\"cmd\":\"record\",\"url\":\"net://h\",\"all_hosts\":true,"
		"\"ust\":[]}", -EINVAL, "event and context selection is for one host");
	REFUSED(REC "\"kernel\":[\"k\"],\"rotate_size\":1048576,\"keep\":2}", -EINVAL,
		"kernel events do not go with");
	REFUSED(REC "\"arm\":true,\"syscall\":[\"openat\"]}", -EINVAL,
		"does not go with kernel events");
	/* more names than a list holds */
	char big[4096];
	int off = snprintf(big, sizeof(big), REC "\"ust\":[");
	for (int i = 0; i <= CARET_CTL_SEL_MAX; i++)
		off += snprintf(big + off, sizeof(big) - (size_t)off, "%s\"e%d\"", i ? "," : "", i);
	snprintf(big + off, sizeof(big) - (size_t)off, "]}");
	REFUSED(big, -EINVAL, "more than 64 names");
#undef REC
}
END_TEST

/* record -c (proto/caret_ctl_simclock.h): domain 0 travels (it is not
 * "absent"), the domain's range, and no domain without record_clock */
START_TEST(request_record_clock)
{
	struct caret_ctl_req in = { .v = CARET_CTL_VERSION, .cmd = CARET_CTL_RECORD }, out;
	in.u.record = (struct caret_ctl_record_req){ .path = "/t", .record_clock = true };
	cJSON *o = req_wire(&in, &out);
	ck_assert(out.u.record.record_clock);
	ck_assert_uint_eq(out.u.record.clock_domain, 0);
	ck_assert_ptr_nonnull(cJSON_GetObjectItemCaseSensitive(o, CARET_CTL_K_CLOCK_DOMAIN));
	cJSON_Delete(o);
	in.u.record.clock_domain = 232;
	o = req_wire(&in, &out);
	ck_assert_uint_eq(out.u.record.clock_domain, 232);
	cJSON_Delete(o);
	in.u.record = (struct caret_ctl_record_req){ .path = "/t" };
	o = req_wire(&in, &out);
	ck_assert(!out.u.record.record_clock);
	ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(o, CARET_CTL_K_RECORD_CLOCK));
	cJSON_Delete(o);
	REFUSED("{\"v\":1,\"cmd\":\"record\",\"path\":\"/t\",\"record_clock\":true,"
		"\"clock_domain\":233}", -EINVAL, "clock_domain");
	REFUSED("{\"v\":1,\"cmd\":\"record\",\"path\":\"/t\",\"record_clock\":true,"
		"\"clock_domain\":-1}", -EINVAL, "clock_domain");
	REFUSED("{\"v\":1,\"cmd\":\"record\",\"path\":\"/t\",\"record_clock\":1}", -EINVAL,
		"record_clock must be true or false");
	REFUSED("{\"v\":1,\"cmd\":\"record\",\"path\":\"/t\",\"clock_domain\":3}", -EINVAL,
		"clock_domain goes only with record_clock");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ctl_req");
	TCase *tc = tcase_create("requests");
	tcase_add_test(tc, request_envelope);
	tcase_add_test(tc, request_roundtrip);
	tcase_add_test(tc, request_hostile);
	tcase_add_test(tc, request_selection);
	tcase_add_test(tc, request_record_clock);
	tcase_add_test(tc, request_hold);
	tcase_add_test(tc, request_hold_hostile);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
