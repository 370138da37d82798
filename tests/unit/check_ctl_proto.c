/* SPDX-License-Identifier: Apache-2.0 */
/* Every control reply built as caretd builds it (caret_ctl_enc) and read
 * back as caretctl reads it (caret_ctl_reply + caret_ctl_dec). The
 * requests: check_ctl_req.c. */
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
#include "proto/caret_utf8.h"

/* Encodes o to a line and parses it back the way caretctl does. */
static cJSON *wire(cJSON *o, enum ctl_reply_type want)
{
	ck_assert_ptr_nonnull(o);
	char *line = caret_ctl_enc_line(o);
	ck_assert_ptr_nonnull(line);
	ck_assert_ptr_null(strchr(line, '\n'));
	cJSON *root = NULL;
	enum ctl_reply_type type;
	struct ctl_why why = { "" };
	int r = ctl_reply_parse(line, strlen(line), &root, &type, &why);
	ck_assert_msg(r == 0, "%s: %s", line, why.msg);
	ck_assert_int_eq(type, want);
	free(line);
	return root;
}

START_TEST(error_reply)
{
	cJSON *r = wire(caret_ctl_enc_error(-ENOENT, "no session"), CTL_REPLY_ERROR);
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(r, CARET_CTL_K_ERROR);
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(r, CARET_CTL_K_ERRNO);
	ck_assert_str_eq(e->valuestring, "no session");
	ck_assert_int_eq(n->valueint, ENOENT); /* sent positive */
	cJSON_Delete(r);
}
END_TEST

START_TEST(progress_reply)
{
	struct caret_ctl_progress p = { 2, 5, 300, 1200 };
	cJSON *r = wire(caret_ctl_enc_progress(&p), CTL_REPLY_PROGRESS);
	struct ctl_progress d;
	struct ctl_why why;
	ck_assert_int_eq(ctl_decode_progress(r, &d, &why), 0);
	ck_assert_int_eq(d.recording, 2);
	ck_assert_int_eq(d.total, 5);
	ck_assert_int_eq(d.records_done, 300);
	ck_assert_int_eq(d.records_total, 1200);
	ck_assert_int_eq((int)d.percent, 25);
	cJSON_Delete(r);
	/* nothing to replay is done, not 0 % */
	struct caret_ctl_progress none = { 0, 0, 0, 0 };
	r = wire(caret_ctl_enc_progress(&none), CTL_REPLY_PROGRESS);
	ck_assert_int_eq(ctl_decode_progress(r, &d, &why), 0);
	ck_assert_int_eq((int)d.percent, 100);
	cJSON_Delete(r);
}
END_TEST

/* record's progress while LTTng starts its session: how long, for how
 * many processes; the wait's progress says nothing of it (-1) */
START_TEST(progress_lttng_start)
{
	cJSON *r = wire(caret_ctl_enc_progress_lttng_start(50, 12345), CTL_REPLY_PROGRESS);
	struct ctl_progress d;
	struct ctl_why why;
	ck_assert_int_eq(ctl_decode_progress(r, &d, &why), 0);
	ck_assert_int_eq(d.lttng_start_ms, 12345);
	ck_assert_int_eq(d.total, 50);
	ck_assert_int_eq(d.recording, 0);
	ck_assert_int_eq((int)d.percent, 0);
	cJSON_Delete(r);
	struct caret_ctl_progress p = { 2, 5, 300, 1200 };
	r = wire(caret_ctl_enc_progress(&p), CTL_REPLY_PROGRESS);
	ck_assert_int_eq(ctl_decode_progress(r, &d, &why), 0);
	ck_assert_int_eq(d.lttng_start_ms, -1);
	cJSON_Delete(r);
	/* hostile: a negative time is refused */
	r = wire(caret_ctl_enc_progress(&p), CTL_REPLY_PROGRESS);
	cJSON_AddNumberToObject(r, CARET_CTL_K_LTTNG_START_MS, -5);
	ck_assert_int_eq(ctl_decode_progress(r, &d, &why), -EPROTO);
	cJSON_Delete(r);
}
END_TEST

static const struct caret_ctl_agent agent = {
	.pid = 4242, .procname = "talker", .state = "PREPARE", .segment = "caret-agent-4242-1",
	.records = 1000, .replayed = 1500, .replay_done = 500, .replay_total = 1000,
	.dropped = 3, .nodes = "/talker\0/ns/listener\0", .n_nodes = 2,
};

static void check_agent(const struct ctl_agent *a)
{
	ck_assert_int_eq(a->pid, 4242);
	ck_assert_str_eq(a->procname, "talker");
	ck_assert_str_eq(a->state, "PREPARE");
	ck_assert_int_eq(a->records, 1000);
	ck_assert_int_eq(a->replayed, 1500);
	ck_assert_int_eq(a->replay_total, 1000);
	ck_assert_int_eq(a->dropped, 3);
	ck_assert_int_eq(a->n_nodes, 2);
	ck_assert_str_eq(a->nodes[0], "/talker");
	ck_assert_str_eq(a->nodes[1], "/ns/listener");
}

START_TEST(list_reply)
{
	cJSON *o = caret_ctl_enc_agents_result(NULL, NULL);
	ck_assert_int_eq(caret_ctl_add_agent(o, &agent), 0);
	cJSON *r = wire(o, CTL_REPLY_RESULT);
	struct ctl_agents ag;
	struct ctl_why why;
	ck_assert_int_eq(ctl_decode_agents(r, &ag, &why), 0);
	ck_assert_uint_eq(ag.n, 1);
	check_agent(&ag.a[0]);
	ctl_agents_free(&ag);
	/* list carries no daemon information */
	ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(r, CARET_CTL_K_CARETD));
	cJSON_Delete(r);
}
END_TEST

/* B6: counters from a lying segment (2^63, 2^64 - 1) are clamped to what
 * a JSON number holds exactly, and caretctl reads the reply. */
START_TEST(huge_counts_clamped)
{
	struct caret_ctl_agent liar = agent;
	liar.records = 1ULL << 63;
	liar.replayed = UINT64_MAX;
	liar.replay_done = UINT64_MAX;
	liar.replay_total = 1ULL << 63;
	liar.dropped = UINT64_MAX;
	cJSON *o = caret_ctl_enc_agents_result(NULL, NULL);
	ck_assert_int_eq(caret_ctl_add_agent(o, &liar), 0);
	cJSON *r = wire(o, CTL_REPLY_RESULT);
	struct ctl_agents ag;
	struct ctl_why why = { "" };
	ck_assert_msg(ctl_decode_agents(r, &ag, &why) == 0, "%s", why.msg);
	ck_assert_int_eq(ag.a[0].records, (int64_t)CARET_CTL_COUNT_MAX);
	ck_assert_int_eq(ag.a[0].replayed, (int64_t)CARET_CTL_COUNT_MAX);
	ck_assert_int_eq(ag.a[0].dropped, (int64_t)CARET_CTL_COUNT_MAX);
	ctl_agents_free(&ag);
	cJSON_Delete(r);
	struct caret_ctl_progress p = { 1, 1, UINT64_MAX, UINT64_MAX };
	r = wire(caret_ctl_enc_progress(&p), CTL_REPLY_PROGRESS);
	struct ctl_progress d;
	ck_assert_msg(ctl_decode_progress(r, &d, &why) == 0, "%s", why.msg);
	ck_assert_int_eq(d.records_total, (int64_t)CARET_CTL_COUNT_MAX);
	cJSON_Delete(r);
}
END_TEST

/* B13: invalid UTF-8 and control characters never leave caretd. */
START_TEST(utf8_scrubbed)
{
	char s[] = "ok \xc3\xa9 \xff\xfe \xc0\xaf \xed\xa0\x80 x\n<0>y \xf0\x9f\x98\x80 \xe2\x82";
	ck_assert_uint_eq(caret_utf8_scrub(s, strlen(s), true), 10);
	ck_assert_str_eq(s, "ok \xc3\xa9 ?? ?? ??? x?<0>y \xf0\x9f\x98\x80 ??");
	struct caret_ctl_agent bad = agent;
	bad.procname = "\xff\x1b[31mevil";
	bad.nodes = "/n\xc0\0";
	bad.n_nodes = 1;
	cJSON *o = caret_ctl_enc_agents_result(NULL, NULL);
	ck_assert_int_eq(caret_ctl_add_agent(o, &bad), 0);
	char *line = caret_ctl_enc_line(o);
	char copy[4096];
	snprintf(copy, sizeof(copy), "%s", line);
	ck_assert_uint_eq(caret_utf8_scrub(copy, strlen(copy), false), 0);
	ck_assert_ptr_nonnull(strstr(line, "\"?\\u001b[31mevil\""));
	free(line);
}
END_TEST

START_TEST(status_reply)
{
	const char *active[] = { "caret-1", "other" };
	struct caret_ctl_daemon_info info = { "host1", 77, "9.9.9", CARET_CTL_PACING_FREQUENCY,
					      250, 1 << 20 };
	struct caret_ctl_lttng_info lt = { true, NULL, active, 2, "caret-1", "/tmp/t/caret-1" };
	cJSON *o = caret_ctl_enc_agents_result(&info, &lt);
	ck_assert_int_eq(caret_ctl_add_agent(o, &agent), 0);
	ck_assert_int_eq(caret_ctl_add_agent(o, &agent), 0);
	cJSON *r = wire(o, CTL_REPLY_RESULT);
	struct ctl_status st;
	struct ctl_why why;
	ck_assert_msg(ctl_decode_status(r, &st, &why) == 0, "%s", why.msg);
	ck_assert_str_eq(st.host, "host1");
	ck_assert_int_eq(st.pid, 77);
	ck_assert_str_eq(st.version, "9.9.9");
	ck_assert_str_eq(st.pacing, "frequency");
	ck_assert(st.have_freq);
	ck_assert_int_eq(st.freq, 250);
	ck_assert(st.lttng_reachable);
	ck_assert_int_eq(st.n_sessions, 2);
	ck_assert_str_eq(st.sessions[1], "other");
	ck_assert_uint_eq(st.agents.n, 2);
	check_agent(&st.agents.a[1]);
	ctl_status_free(&st);
	cJSON_Delete(r);
}
END_TEST

START_TEST(status_reply_unreachable)
{
	struct caret_ctl_daemon_info info = { "h", 1, "v", CARET_CTL_PACING_ADAPTIVE, 100, 64 };
	struct caret_ctl_lttng_info lt = { false, "connection refused", NULL, 0, NULL, NULL };
	cJSON *r = wire(caret_ctl_enc_agents_result(&info, &lt), CTL_REPLY_RESULT);
	struct ctl_status st;
	struct ctl_why why;
	ck_assert_msg(ctl_decode_status(r, &st, &why) == 0, "%s", why.msg);
	ck_assert(!st.lttng_reachable);
	ck_assert_uint_eq(st.agents.n, 0);
	const cJSON *l = cJSON_GetObjectItemCaseSensitive(r, CARET_CTL_K_LTTNG);
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(l, CARET_CTL_K_ERROR)->valuestring,
			 "connection refused");
	ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(l, CARET_CTL_K_CARETD_SESSION));
	ctl_status_free(&st);
	cJSON_Delete(r);
}
END_TEST

START_TEST(record_reply)
{
	cJSON *r = wire(caret_ctl_enc_record("s1", "/data/s1"), CTL_REPLY_RESULT);
	struct ctl_record_result rec;
	struct ctl_why why;
	ck_assert_int_eq(ctl_decode_record(r, &rec, &why), 0);
	ck_assert_str_eq(rec.session, "s1");
	ck_assert_str_eq(rec.path, "/data/s1");
	ck_assert(!rec.held); /* a caretd before record's "hold", or not asked */
	cJSON_Delete(r);
	cJSON *o = caret_ctl_enc_record("s1", "/data/s1");
	ck_assert_int_eq(caret_ctl_enc_record_held(o), 0);
	r = wire(o, CTL_REPLY_RESULT);
	ck_assert_int_eq(ctl_decode_record(r, &rec, &why), 0);
	ck_assert(rec.held);
	cJSON_ReplaceItemInObject(r, CARET_CTL_K_HELD, cJSON_CreateString("yes"));
	ck_assert_int_eq(ctl_decode_record(r, &rec, &why), -EPROTO);
	cJSON_Delete(r);
}
END_TEST

/* hold: "held" is required, a boolean; "session" a string */
START_TEST(hold_reply)
{
	cJSON *r = wire(caret_ctl_enc_hold("s1", true), CTL_REPLY_RESULT);
	struct ctl_hold_result h;
	struct ctl_why why;
	ck_assert_int_eq(ctl_decode_hold(r, &h, &why), 0);
	ck_assert_str_eq(h.session, "s1");
	ck_assert(h.held);
	cJSON_ReplaceItemInObject(r, CARET_CTL_K_HELD, cJSON_CreateString("yes"));
	ck_assert_int_eq(ctl_decode_hold(r, &h, &why), -EPROTO);
	cJSON_DeleteItemFromObject(r, CARET_CTL_K_HELD);
	ck_assert_int_eq(ctl_decode_hold(r, &h, &why), -EPROTO);
	cJSON_Delete(r);
	r = wire(caret_ctl_enc_hold("s1", false), CTL_REPLY_RESULT);
	ck_assert_int_eq(ctl_decode_hold(r, &h, &why), 0);
	ck_assert(!h.held);
	cJSON_ReplaceItemInObject(r, CARET_CTL_K_SESSION, cJSON_CreateNumber(3));
	ck_assert_int_eq(ctl_decode_hold(r, &h, &why), -EPROTO);
	cJSON_Delete(r);
}
END_TEST

/* pause and resume: "paused" is required, a boolean */
START_TEST(pause_reply)
{
	cJSON *r = wire(caret_ctl_enc_pause("s1", "/data/s1", true), CTL_REPLY_RESULT);
	struct ctl_pause_result p;
	struct ctl_why why;
	ck_assert_int_eq(ctl_decode_pause(r, &p, &why), 0);
	ck_assert_str_eq(p.session, "s1");
	ck_assert_str_eq(p.path, "/data/s1");
	ck_assert(p.paused);
	cJSON_ReplaceItemInObject(r, CARET_CTL_K_PAUSED, cJSON_CreateNumber(1));
	ck_assert_int_eq(ctl_decode_pause(r, &p, &why), -EPROTO);
	cJSON_DeleteItemFromObject(r, CARET_CTL_K_PAUSED);
	ck_assert_int_eq(ctl_decode_pause(r, &p, &why), -EPROTO);
	cJSON_Delete(r);
}
END_TEST

START_TEST(wait_reply)
{
	cJSON *o = caret_ctl_enc_wait(false, 1, 3);
	ck_assert_int_eq(caret_ctl_add_not_recording(o, 10, "a", "PREPARE", "replaying"), 0);
	ck_assert_int_eq(caret_ctl_add_not_recording(o, 11, "b", "WAIT", "not started"), 0);
	ck_assert_int_eq(caret_ctl_add_exited(o, 12, "c", "PREPARE"), 0);
	cJSON *r = wire(o, CTL_REPLY_RESULT);
	struct ctl_wait_result w;
	struct ctl_why why;
	ck_assert_msg(ctl_decode_wait(r, &w, &why) == 0, "%s", why.msg);
	ck_assert(!w.ok);
	ck_assert_int_eq(w.recording, 1);
	ck_assert_int_eq(w.total, 3);
	ck_assert_uint_eq(w.n, 2);
	ck_assert_int_eq(w.lag[1].pid, 11);
	ck_assert_str_eq(w.lag[1].procname, "b");
	ck_assert_str_eq(w.lag[1].state, "WAIT");
	ck_assert_str_eq(w.lag[1].reason, "not started");
	const cJSON *ex = cJSON_GetObjectItemCaseSensitive(r, CARET_CTL_K_EXITED);
	ck_assert_int_eq(cJSON_GetArraySize(ex), 1);
	ck_assert_int_eq(
		cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(ex, 0), CARET_CTL_K_PID)->valueint,
		12);
	ctl_wait_result_free(&w);
	cJSON_Delete(r);
}
END_TEST

START_TEST(stop_reply)
{
	struct caret_ctl_channel ch[2] = {
		{ "caret", 57, 0, true, true },
		{ "other", 1, 2, true, false },
	};
	cJSON *r = wire(caret_ctl_enc_stop("s", "/p/s", ch, 2, 0), CTL_REPLY_RESULT);
	struct ctl_stop_result s;
	struct ctl_why why;
	ck_assert_msg(ctl_decode_stop(r, &s, &why) == 0, "%s", why.msg);
	ck_assert_str_eq(s.session, "s");
	ck_assert_str_eq(s.path, "/p/s");
	ck_assert_uint_eq(s.n, 2);
	ck_assert_str_eq(s.ch[0].name, "caret");
	ck_assert_uint_eq(s.ch[0].discarded, 57);
	ck_assert(s.ch[0].discarded_known && s.ch[0].lost_known);
	ck_assert_uint_eq(s.ch[0].lost, 0);
	ck_assert(!s.ch[1].lost_known);
	ck_assert(s.total_known);
	ck_assert_uint_eq(s.discarded_total, 58);
	ctl_stop_result_free(&s);
	cJSON_Delete(r);

	/* one unknown count makes the total unknown, not a smaller number */
	ch[1].discarded_known = false;
	r = wire(caret_ctl_enc_stop("s", "/p/s", ch, 2, 0), CTL_REPLY_RESULT);
	ck_assert_int_eq(ctl_decode_stop(r, &s, &why), 0);
	ck_assert(!s.total_known);
	ck_assert(!s.ch[1].discarded_known);
	ctl_stop_result_free(&s);
	cJSON_Delete(r);
}
END_TEST

START_TEST(accept_reply)
{
	struct ctl_accept a;
	struct ctl_why why;
	cJSON *r = wire(caret_ctl_enc_accept(true, NULL), CTL_REPLY_RESULT);
	ck_assert_int_eq(ctl_decode_accept(r, &a, &why), 0);
	ck_assert(a.accepted);
	ck_assert_ptr_null(a.reason);
	cJSON_Delete(r);
	r = wire(caret_ctl_enc_accept(false, "ignored: x"), CTL_REPLY_RESULT);
	ck_assert_int_eq(ctl_decode_accept(r, &a, &why), 0);
	ck_assert(!a.accepted);
	ck_assert_str_eq(a.reason, "ignored: x");
	cJSON_Delete(r);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ctl_proto");
	TCase *tc = tcase_create("roundtrip");
	tcase_add_test(tc, error_reply);
	tcase_add_test(tc, progress_reply);
	tcase_add_test(tc, progress_lttng_start);
	tcase_add_test(tc, list_reply);
	tcase_add_test(tc, status_reply);
	tcase_add_test(tc, huge_counts_clamped);
	tcase_add_test(tc, utf8_scrubbed);
	tcase_add_test(tc, status_reply_unreachable);
	tcase_add_test(tc, record_reply);
	tcase_add_test(tc, pause_reply);
	tcase_add_test(tc, hold_reply);
	tcase_add_test(tc, wait_reply);
	tcase_add_test(tc, stop_reply);
	tcase_add_test(tc, accept_reply);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
