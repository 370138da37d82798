/* SPDX-License-Identifier: Apache-2.0 */
/*
 * caretd's commands as the server drives them: request line in, reply
 * object out, read back with caretctl's decoders. LTTng is the fake of
 * cmd_fixture.c: every command, record and stop included, runs here, and
 * the tests assert on what LTTng was asked and on what the requester is
 * told (LTTng's failures with their cause). The integration tests run the
 * same against a real session daemon.
 */
#include <check.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/server/commands.h"
#include "lib/lttng/creds.h"
#include "daemon/agents/pacer.h"
#include "daemon/recording/rotation.h"
#include "daemon/agents/wait.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_hosts.h"
#include "proto/caret_ctl_dec.h"
#include "proto/caret_ctl_enc.h"
#include "proto/caret_ctl_events.h"
#include "proto/caret_ctl_reply.h"
#include "proto/caret_ctl_rotation.h"

#include "tests/unit/cmd_fixture.h"

START_TEST(bad_requests)
{
	static const struct {
		const char *line;
		int err;
	} cases[] = {
		{ "not json", EPROTO },
		{ "[1]", EPROTO },
		{ "{\"v\":1}", EPROTO },
		{ "{\"v\":2,\"cmd\":\"status\"}", EPROTO },
		{ "{\"v\":1,\"cmd\":7}", EPROTO },
		{ "{\"v\":1,\"cmd\":\"nope\"}", EINVAL },
		{ "{\"v\":1,\"cmd\":\"record\",\"subbuf_size\":3,\"path\":\"/tmp\"}", EINVAL },
		{ "{\"v\":1,\"cmd\":\"record\",\"subbuf_count\":-1,\"path\":\"/tmp\"}", EINVAL },
		{ "{\"v\":1,\"cmd\":\"record\",\"recording_frequency\":0,\"path\":\"/tmp\"}", EINVAL },
		{ "{\"v\":1,\"cmd\":\"record\",\"pacing\":\"fast\",\"path\":\"/tmp\"}", EINVAL },
		{ "{\"v\":1,\"cmd\":\"record\",\"path\":\"relative\"}", EINVAL },
		{ "{\"v\":1,\"cmd\":\"record\",\"path\":7}", EINVAL },
		{ "{\"v\":1,\"cmd\":\"stop\",\"session\":[]}", EINVAL },
		/* CARET's filter lists: strings, UTF-8, fitting an agent's segment */
		{ "{\"v\":1,\"cmd\":\"record\",\"select_nodes\":1,\"path\":\"/tmp\"}", EINVAL },
		{ "{\"v\":1,\"cmd\":\"record\",\"ignore_topics\":\"\xff\",\"path\":\"/tmp\"}",
		  EINVAL },
		{ "{\"v\":1,\"cmd\":\"start\",\"select_topics\":[]}", EINVAL },
		{ "{\"v\":1,\"cmd\":\"stop\"}", ENOENT }, /* no session active */
		{ "{\"v\":1,\"cmd\":\"wait\"}", ENOENT },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cJSON *r = ask(cases[i].line, CTL_REPLY_ERROR, NULL);
		ck_assert_msg(err_of(r) == cases[i].err, "%s: errno %d", cases[i].line, err_of(r));
		cJSON_Delete(r);
	}
	/* a refused record leaves the pacing alone */
	ck_assert_int_eq(cfg.pacing, PACING_FREQUENCY);
	ck_assert_uint_eq(cfg.frequency, 42);
}
END_TEST

/* Without a name, stop means the caller's own latest recording: never a
 * session of the lttng CLI or of another user. Named, another user's
 * recording or a CLI session is refused to a non-root caller. */
START_TEST(stop_is_the_callers_own)
{
	strcpy(view.active[0], "a");
	strcpy(view.active[1], "b");
	view.n_active = 2;
	struct recording rec = { .name = "b", .path = "/t/b", .uid = 4242, .gid = 4242 };
	ck_assert_int_eq(recordings_add(&recs, &rec), 0);
	peer.uid = 4343;
	cJSON *r = ask("{\"v\":1,\"cmd\":\"stop\"}", CTL_REPLY_ERROR, NULL);
	ck_assert_int_eq(err_of(r), ENOENT);
	ck_assert_ptr_nonnull(strstr(
		cJSON_GetObjectItemCaseSensitive(r, CARET_CTL_K_ERROR)->valuestring, "a, b"));
	cJSON_Delete(r);
	r = ask("{\"v\":1,\"cmd\":\"stop\",\"session\":\"b\"}", CTL_REPLY_ERROR, NULL);
	ck_assert_int_eq(err_of(r), EPERM);
	cJSON_Delete(r);
	r = ask("{\"v\":1,\"cmd\":\"stop\",\"session\":\"a\"}", CTL_REPLY_ERROR, NULL);
	ck_assert_int_eq(err_of(r), EPERM);
	cJSON_Delete(r);
	peer.uid = 0;
}
END_TEST

START_TEST(start_end)
{
	struct ctl_accept a;
	struct ctl_why why;
	cJSON *r = ask("{\"v\":1,\"cmd\":\"start\"}", CTL_REPLY_RESULT, NULL);
	ck_assert_int_eq(ctl_decode_accept(r, &a, &why), 0);
	ck_assert(!a.accepted); /* no session */
	ck_assert_ptr_nonnull(a.reason);
	cJSON_Delete(r);
	r = ask("{\"v\":1,\"cmd\":\"end\"}", CTL_REPLY_RESULT, NULL);
	ck_assert_int_eq(ctl_decode_accept(r, &a, &why), 0);
	ck_assert(a.accepted);
	ck_assert_ptr_null(a.reason);
	cJSON_Delete(r);
}
END_TEST

/* ---- every command through the fake LTTng (tests/unit/cmd_fixture.c) ---- */

START_TEST(record_creates_and_remembers)
{
	peer.uid = 4242;
	peer.gid = 4343;
	cJSON *r = ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"r1\",\"path\":\"/t\","
		       "\"light\":true,\"pacing\":\"frequency\",\"recording_frequency\":7,"
		       "\"subbuf_size\":1048576,\"subbuf_count\":8,\"append\":true}",
		       CTL_REPLY_RESULT, NULL);
	assert_record_reply(r, "r1", "/t/r1");
	ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(r, CARET_CTL_K_BROADCAST));
	cJSON_Delete(r);
	/* what LTTng was asked: the request's options, as the requester */
	ck_assert_int_eq(fake.n_calls, 1);
	ck_assert_str_eq(fake.calls[0], "record r1 path=/t url=- light=1 pre_iron=0 append=1 "
					"armed=0 size=1048576 count=8 as=4242");
	/* remembered as theirs, with its own options, and seen active at once */
	struct recording *rec = recordings_find(&recs, "r1");
	ck_assert_ptr_nonnull(rec);
	ck_assert_int_eq(rec->uid, 4242);
	ck_assert_int_eq(rec->gid, 4343);
	ck_assert_int_eq(rec->pacing, PACING_FREQUENCY);
	ck_assert_uint_eq(rec->frequency, 7);
	ck_assert_uint_eq(rec->subbuf_size, 1048576);
	ck_assert_str_eq(rec->path, "/t/r1");
	ck_assert(!rec->armed);
	ck_assert(lttng_view_is_active(&view, "r1"));
	ck_assert_uint_eq(reg.want_serial, lttng_view_find(&view, "r1")->serial);
	ck_assert_uint_eq(lttng_view_find(&view, "r1")->rules, fake.rules);
	/* told, not found again: the session list was not read */
	ck_assert_int_eq(fake.n_lists, 0);
	/* and the next poll agrees: the same session, not a new one */
	uint32_t serial = lttng_view_find(&view, "r1")->serial;
	lttng_view_refresh(&view);
	ck_assert_int_eq(fake.n_lists, 1);
	ck_assert_int_eq(view.n_active, 1);
	ck_assert_uint_eq(lttng_view_find(&view, "r1")->serial, serial);
	/* the daemon's own pacing is untouched */
	ck_assert_int_eq(cfg.pacing, PACING_FREQUENCY);
	ck_assert_uint_eq(cfg.frequency, 42);
}
END_TEST

/* The trace directory the session's making found or made is the
 * recording's (who removes it, and what restores it, read it there). */
START_TEST(record_remembers_its_directory)
{
	fake.dir = (struct caret_lttng_dir_id){ .dev = 7, .ino = 8, .made = true,
						.parents_made = 2 };
	cJSON *r = ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"d1\",\"path\":\"/t\"}",
		       CTL_REPLY_RESULT, NULL);
	assert_record_reply(r, "d1", "/t/d1");
	cJSON_Delete(r);
	const struct recording *rec = recordings_find(&recs, "d1");
	ck_assert_ptr_nonnull(rec);
	ck_assert_uint_eq(rec->dir_dev, 7);
	ck_assert_uint_eq(rec->dir_ino, 8);
	ck_assert(rec->dir_made);
	ck_assert_int_eq(rec->parents_made, 2);
}
END_TEST

START_TEST(record_defaults)
{
	static const uint64_t size = 65536;
	static const uint32_t count = 2;
	ctx.subbuf_size = &size;
	ctx.subbuf_count = &count;
	/* every process before Iron: light lists leave rcl_publish out */
	strcpy(agent.seg.id.distribution, "humble");
	cJSON *r = ask("{\"v\":1,\"cmd\":\"record\",\"path\":\"/t\"}", CTL_REPLY_RESULT, NULL);
	assert_record_reply(r, "caret-fake", "/t/caret-fake");
	cJSON_Delete(r);
	ctx.subbuf_size = NULL;
	ctx.subbuf_count = NULL;
	/* the daemon's geometry; light off; caretd names it */
	ck_assert_str_eq(fake.calls[0], "record - path=/t url=- light=0 pre_iron=1 append=0 "
					"armed=0 size=65536 count=2 as=0");
	ck_assert_int_eq(recordings_find(&recs, "caret-fake")->pacing, -1);
}
END_TEST

START_TEST(record_lttng_error_propagates)
{
	fake.fail_record = -EPERM;
	cJSON *r = ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"r1\",\"path\":\"/t\"}",
		       CTL_REPLY_ERROR, NULL);
	ck_assert_int_eq(err_of(r), EPERM);
	ck_assert_str_eq(msg_of(r), "lttng: creating the session failed: fake cause");
	cJSON_Delete(r);
	ck_assert_ptr_null(recordings_find(&recs, "r1"));
	ck_assert_int_eq(view.n_active, 0);
	/* the session exists already: LTTng's EEXIST, with its message */
	r = ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"r1\",\"path\":\"/t\"}",
		CTL_REPLY_RESULT, NULL);
	cJSON_Delete(r);
	r = ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"r1\",\"path\":\"/t\"}",
		CTL_REPLY_ERROR, NULL);
	ck_assert_int_eq(err_of(r), EEXIST);
	ck_assert_ptr_nonnull(strstr(msg_of(r), "r1 exists"));
	cJSON_Delete(r);
	/* refused before LTTng is asked: a filter caretd cannot hand over */
	int calls = fake.n_calls;
	r = ask("{\"v\":1,\"cmd\":\"record\",\"path\":\"/t\",\"select_nodes\":\"(\"}",
		CTL_REPLY_ERROR, NULL);
	ck_assert_int_eq(err_of(r), EINVAL);
	ck_assert_ptr_nonnull(strstr(msg_of(r), "select_nodes"));
	cJSON_Delete(r);
	ck_assert_int_eq(fake.n_calls, calls);
}
END_TEST

/* Before LTTng ever answered a poll, the table is not loaded: the view
 * reads the sessions (and loads it) rather than being told. */
START_TEST(record_before_the_first_poll_reads)
{
	view.polled = false;
	recs.loaded = false;
	cJSON *r = ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"p1\",\"path\":\"/t\"}",
		       CTL_REPLY_RESULT, NULL);
	cJSON_Delete(r);
	ck_assert_int_eq(fake.n_lists, 1);
	ck_assert(view.polled);
	ck_assert(lttng_view_is_active(&view, "p1"));
}
END_TEST

START_TEST(record_to_a_relay)
{
	cJSON *r = ask("{\"v\":1,\"cmd\":\"record\",\"url\":\"net://relay\",\"session\":\"n1\","
		       "\"all_hosts\":true}", CTL_REPLY_RESULT, NULL);
	assert_record_reply(r, "n1", "/relay/n1");
	/* no bridge here: the local recording runs, the reply says why no
	 * other host got it */
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(r, CARET_CTL_K_BROADCAST);
	ck_assert(cJSON_IsFalse(b));
	ck_assert_ptr_nonnull(strstr(cJSON_GetObjectItemCaseSensitive(
		r, CARET_CTL_K_BROADCAST_ERROR)->valuestring, "bridge off"));
	cJSON_Delete(r);
	ck_assert_str_eq(fake.calls[0], "name n1 parent=-");
	ck_assert_ptr_nonnull(strstr(fake.calls[1], "record n1 path=- url=net://relay"));
}
END_TEST

START_TEST(record_with_filter_starts_its_own_pass)
{
	cJSON *r = ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"f1\",\"path\":\"/t\","
		       "\"select_nodes\":\"/talker\"}", CTL_REPLY_RESULT, NULL);
	cJSON_Delete(r);
	sched_tick_now(); /* which applies the Start the command posted */
	/* the recording's Start moved the agent, with the filter staged */
	ck_assert_uint_ne(caret_seg_state(&agent.seg), CARET_STATE_WAIT);
	struct caret_filter_text ft;
	ck_assert_int_eq(caret_own_read_filter(&agent.seg, caret_own_grant_epoch(&agent.seg), &ft),
			 1);
	ck_assert_str_eq(ft.f.list[CARET_FILTER_SELECT_NODES], "/talker");
}
END_TEST

/* Every later pass for a filtered recording alone carries its filter (the
 * scheduler asks lttng_view_pass_filter for the sessions a pass covers); a
 * pass that is also for a session without it, or with another one,
 * carries none (its records must reach those whole). */
START_TEST(recording_filter_goes_with_its_passes_only)
{
	const char *sel = "{\"v\":1,\"cmd\":\"record\",\"session\":\"%s\",\"path\":\"/t\""
			  ",\"select_nodes\":\"%s\"}";
	char line[256];
	snprintf(line, sizeof(line), sel, "f1", "/talker");
	cJSON_Delete(ask(line, CTL_REPLY_RESULT, NULL));
	snprintf(line, sizeof(line), sel, "f2", "/talker");
	cJSON_Delete(ask(line, CTL_REPLY_RESULT, NULL));
	snprintf(line, sizeof(line), sel, "f3", "/listener");
	cJSON_Delete(ask(line, CTL_REPLY_RESULT, NULL));
	cJSON_Delete(ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"all\",\"path\":\"/t\"}",
			 CTL_REPLY_RESULT, NULL));
	/* and a session of the lttng CLI: no recording of caretd's */
	int i = view.n_active++;
	strcpy(view.active[i], "cli");
	view.sess[i] = (struct lttng_view_session){ .serial = ++view.last_serial };
	uint32_t s[5];
	const char *names[] = { "f1", "f2", "f3", "all", "cli" };
	for (int k = 0; k < 5; k++) {
		struct lttng_view_session *e = lttng_view_find(&view, names[k]);
		ck_assert_ptr_nonnull(e);
		e->rules |= CARET_LTTNG_RULE_CARET;
		s[k] = e->serial;
	}
	struct caret_filter_text ft;
	ck_assert_int_eq(lttng_view_pass_filter(&view, s[0] - 1, s[0], &ft), 1);
	ck_assert_str_eq(ft.f.list[CARET_FILTER_SELECT_NODES], "/talker");
	ck_assert_str_eq(ft.f.list[CARET_FILTER_IGNORE_NODES], "");
	/* two recordings with the same lists */
	ck_assert_int_eq(lttng_view_pass_filter(&view, s[0] - 1, s[1], &ft), 1);
	/* one with other lists, one without, one not caretd's */
	ck_assert_int_eq(lttng_view_pass_filter(&view, s[1], s[2], &ft), 1);
	ck_assert_str_eq(ft.f.list[CARET_FILTER_SELECT_NODES], "/listener");
	ck_assert_int_eq(lttng_view_pass_filter(&view, s[0] - 1, s[2], &ft), 0);
	ck_assert_int_eq(lttng_view_pass_filter(&view, s[2], s[3], &ft), 0);
	ck_assert_int_eq(lttng_view_pass_filter(&view, s[3], s[4], &ft), 0);
	/* no session in the range */
	ck_assert_int_eq(lttng_view_pass_filter(&view, s[4], s[4] + 3, &ft), 0);
}
END_TEST

/* A record with rotation options (issue 23) through the typed request: the
 * decoder refuses a bad combination before LTTng is asked; an armed one is
 * remembered as rotating until its stop, which ends the rotation (it never
 * rotated: no "rotation" in the reply). A recording that records at once:
 * record_rotation_at_once_then_stop. */
START_TEST(record_rotation_armed_then_stop)
{
	peer.uid = 4242;
	peer.pid = getpid();
	cJSON *r = ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"r1\",\"path\":\"/t\","
		       "\"keep\":3}", CTL_REPLY_ERROR, NULL);
	ck_assert_int_eq(err_of(r), EINVAL);
	ck_assert_ptr_nonnull(strstr(msg_of(r), "rotate_size or rotate_every_ms"));
	cJSON_Delete(r);
	r = ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"r1\",\"path\":\"/t\","
		"\"rotate_size\":10}", CTL_REPLY_ERROR, NULL);
	ck_assert_int_eq(err_of(r), EINVAL);
	cJSON_Delete(r);
	/* below the sub-buffer size (the default 512K here): LTTng would not
	 * rotate before one fills; the least size is named (issue 33 L11) */
	r = ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"r1\",\"path\":\"/t\","
		"\"rotate_size\":65536}", CTL_REPLY_ERROR, NULL);
	ck_assert_int_eq(err_of(r), EINVAL);
	ck_assert_ptr_nonnull(strstr(msg_of(r), "the least size is 524288 (512K)"));
	cJSON_Delete(r);
	r = ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"r1\",\"path\":\"/t\","
		"\"rotate_size\":131071,\"subbuf_size\":131072}", CTL_REPLY_ERROR, NULL);
	ck_assert_ptr_nonnull(strstr(msg_of(r), "the least size is 131072 (128K)"));
	cJSON_Delete(r);
	ck_assert_int_eq(fake.n_calls, 0);
	ck_assert(!rotation_is_rotating(&recs, "r1"));

	r = ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"r1\",\"path\":\"/t\","
		"\"arm\":true,\"rotate_every_ms\":60000,\"keep\":3,\"max_size\":1048576}",
		CTL_REPLY_RESULT, NULL);
	assert_record_reply(r, "r1", "/t/r1");
	cJSON_Delete(r);
	ck_assert_ptr_nonnull(fake_call("record r1"));
	ck_assert(rotation_is_rotating(&recs, "r1"));
	/* status carries the rotation arrays (an armed one rotates nothing yet) */
	r = ask("{\"v\":1,\"cmd\":\"status\"}", CTL_REPLY_RESULT, NULL);
	const cJSON *rots = cJSON_GetObjectItemCaseSensitive(r, CARET_CTL_K_ROTATIONS);
	ck_assert(cJSON_IsArray(rots));
	ck_assert_int_eq(cJSON_GetArraySize(rots), 0);
	ck_assert(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(r, CARET_CTL_K_ROTATIONS_ENDED)));
	cJSON_Delete(r);

	r = ask("{\"v\":1,\"cmd\":\"stop\",\"session\":\"r1\"}", CTL_REPLY_RESULT, NULL);
	ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(r, CARET_CTL_K_ROTATION));
	cJSON_Delete(r);
	ck_assert_ptr_nonnull(fake_call("stop r1"));
	ck_assert(!rotation_is_rotating(&recs, "r1"));
	ck_assert_ptr_null(recordings_find(&recs, "r1"));
	/* a plain recording's stop has no rotation either */
	r = ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"p1\",\"path\":\"/t\"}",
		CTL_REPLY_RESULT, NULL);
	cJSON_Delete(r);
	ck_assert(!rotation_is_rotating(&recs, "p1"));
	r = ask("{\"v\":1,\"cmd\":\"stop\",\"session\":\"p1\"}", CTL_REPLY_RESULT, NULL);
	ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(r, CARET_CTL_K_ROTATION));
	cJSON_Delete(r);
}
END_TEST

START_TEST(stop_reports_and_forgets)
{
	cJSON *r = ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"s1\",\"path\":\"/t\"}",
		       CTL_REPLY_RESULT, NULL);
	cJSON_Delete(r);
	fake.discarded = 12;
	r = ask("{\"v\":1,\"cmd\":\"stop\"}", CTL_REPLY_RESULT, NULL);
	struct ctl_stop_result st;
	struct ctl_why why;
	ck_assert_msg(ctl_decode_stop(r, &st, &why) == 0, "%s", why.msg);
	ck_assert_str_eq(st.session, "s1");
	ck_assert_str_eq(st.path, "/nonexistent/fake/s1");
	ck_assert_uint_eq(st.n, 1);
	ck_assert_str_eq(st.ch[0].name, "caret");
	ck_assert_uint_eq(st.ch[0].discarded, 12);
	ck_assert(st.total_known);
	ck_assert_uint_eq(st.discarded_total, 12);
	ctl_stop_result_free(&st);
	cJSON_Delete(r);
	ck_assert_ptr_nonnull(fake_call("stop s1"));
	ck_assert_ptr_null(recordings_find(&recs, "s1"));
	ck_assert_int_eq(view.n_active, 0);
	ck_assert_int_eq(fake.n_lists, 0);
	/* an unknown count stays unknown */
	r = ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"s2\",\"path\":\"/t\"}",
		CTL_REPLY_RESULT, NULL);
	cJSON_Delete(r);
	fake.discarded_unknown = true;
	r = ask("{\"v\":1,\"cmd\":\"stop\",\"session\":\"s2\"}", CTL_REPLY_RESULT, NULL);
	ck_assert_int_eq(ctl_decode_stop(r, &st, &why), 0);
	ck_assert(!st.total_known);
	ctl_stop_result_free(&st);
	cJSON_Delete(r);
}
END_TEST

START_TEST(stop_lttng_error_propagates)
{
	cJSON *r = ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"s1\",\"path\":\"/t\"}",
		       CTL_REPLY_RESULT, NULL);
	cJSON_Delete(r);
	fake.fail_stop = -ECONNREFUSED;
	r = ask("{\"v\":1,\"cmd\":\"stop\",\"session\":\"s1\"}", CTL_REPLY_ERROR, NULL);
	ck_assert_int_eq(err_of(r), ECONNREFUSED);
	ck_assert_str_eq(msg_of(r), "lttng: stopping the session failed: fake cause");
	cJSON_Delete(r);
	/* not forgotten: a second stop retries */
	ck_assert_ptr_nonnull(recordings_find(&recs, "s1"));
	r = ask("{\"v\":1,\"cmd\":\"stop\",\"session\":\"s1\"}", CTL_REPLY_RESULT, NULL);
	cJSON_Delete(r);
	/* a session LTTng does not have */
	r = ask("{\"v\":1,\"cmd\":\"stop\",\"session\":\"gone\"}", CTL_REPLY_ERROR, NULL);
	ck_assert_int_eq(err_of(r), ENOENT);
	ck_assert_ptr_nonnull(strstr(msg_of(r), "no session gone"));
	cJSON_Delete(r);
}
END_TEST

START_TEST(stop_of_another_user_never_reaches_lttng)
{
	peer.uid = 4242;
	cJSON *r = ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"mine\",\"path\":\"/t\"}",
		       CTL_REPLY_RESULT, NULL);
	cJSON_Delete(r);
	peer.uid = 4343;
	r = ask("{\"v\":1,\"cmd\":\"stop\",\"session\":\"mine\"}", CTL_REPLY_ERROR, NULL);
	ck_assert_int_eq(err_of(r), EPERM);
	ck_assert_ptr_nonnull(strstr(msg_of(r), "uid 4242"));
	cJSON_Delete(r);
	ck_assert_ptr_null(fake_call("stop"));
	/* root may */
	peer.uid = 0;
	r = ask("{\"v\":1,\"cmd\":\"stop\",\"session\":\"mine\"}", CTL_REPLY_RESULT, NULL);
	cJSON_Delete(r);
	ck_assert_ptr_nonnull(fake_call("stop mine"));
}
END_TEST

START_TEST(stop_armed_leaves_nothing)
{
	cJSON *r = ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"a1\",\"path\":\"/t\","
		       "\"arm\":true}", CTL_REPLY_RESULT, NULL);
	cJSON_Delete(r);
	r = ask("{\"v\":1,\"cmd\":\"stop\",\"session\":\"a1\"}", CTL_REPLY_RESULT, NULL);
	cJSON_Delete(r);
	ck_assert_ptr_nonnull(fake_call("stop a1"));
	ck_assert_ptr_null(recordings_find(&recs, "a1"));
	ck_assert_int_eq(fake.n_sessions, 0);
}
END_TEST

START_TEST(lttng_unreachable_in_status)
{
	fake.fail_list = -ECONNREFUSED;
	lttng_view_refresh(&view);
	cJSON *r = ask("{\"v\":1,\"cmd\":\"status\"}", CTL_REPLY_RESULT, NULL);
	struct ctl_status st;
	struct ctl_why why;
	ck_assert_int_eq(ctl_decode_status(r, &st, &why), 0);
	ck_assert(!st.lttng_reachable);
	ck_assert_ptr_nonnull(strstr(st.lttng_error, "fake cause"));
	ctl_status_free(&st);
	cJSON_Delete(r);
	/* and wait refuses with no session */
	r = ask("{\"v\":1,\"cmd\":\"wait\"}", CTL_REPLY_ERROR, NULL);
	ck_assert_int_eq(err_of(r), ENOENT);
	cJSON_Delete(r);
}
END_TEST

START_TEST(hosts_without_bridge)
{
	cJSON *r = ask("{\"v\":1,\"cmd\":\"hosts\"}", CTL_REPLY_RESULT, NULL);
	ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(r, CARET_CTL_K_BRIDGE)->valuestring,
			 "off");
	const cJSON *h = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r, CARET_CTL_K_HOSTS),
					    0);
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(h, CARET_CTL_K_SELF)));
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(
				 h, CARET_CTL_K_PROCESSES)), 1);
	/* the same through proto's decoder, as caretctl reads it */
	struct caret_ctl_hosts hs;
	char why[256] = "";
	ck_assert_msg(caret_ctl_hosts_decode(r, &hs, why, sizeof(why)) == 0, "%s", why);
	ck_assert_str_eq(hs.bridge, "off");
	ck_assert(hs.have_counts && !hs.waking);
	ck_assert_uint_eq(hs.n_hosts, 1);
	ck_assert(hs.hosts[0].self && !hs.hosts[0].ignored);
	ck_assert_uint_eq(hs.hosts[0].n_procs, 1);
	ck_assert_int_eq(hs.hosts[0].procs[0].pid, agent.pid);
	caret_ctl_hosts_free(&hs);
	cJSON_Delete(r);
	/* events are not served without a reader */
	struct events *ev = ctx.events;
	ctx.events = NULL;
	r = ask("{\"v\":1,\"cmd\":\"events\"}", CTL_REPLY_ERROR, NULL);
	ck_assert_int_eq(err_of(r), ENOSYS);
	cJSON_Delete(r);
	ctx.events = ev;
}
END_TEST

/* A caretctl of another release is told which versions differ. */
START_TEST(version_mismatch_named)
{
	cJSON *r = ask("{\"v\":2,\"cmd\":\"record\",\"path\":\"/t\"}", CTL_REPLY_ERROR, NULL);
	ck_assert_int_eq(err_of(r), EPROTO);
	ck_assert_ptr_nonnull(strstr(msg_of(r), "protocol version 2, caretd speaks 1"));
	cJSON_Delete(r);
	ck_assert_int_eq(fake.n_calls, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("commands");
	TCase *tc = tcase_create("commands");
	tcase_add_checked_fixture(tc, setup, teardown);
	add_state_tests(tc);
	add_status_tests(tc);
	add_events_tests(tc);
	tcase_add_test(tc, bad_requests);
	tcase_add_test(tc, record_remembers_its_directory);
	tcase_add_test(tc, stop_is_the_callers_own);
	tcase_add_test(tc, start_end);
	tcase_add_test(tc, record_creates_and_remembers);
	tcase_add_test(tc, record_defaults);
	tcase_add_test(tc, record_lttng_error_propagates);
	tcase_add_test(tc, record_to_a_relay);
	tcase_add_test(tc, record_before_the_first_poll_reads);
	tcase_add_test(tc, record_with_filter_starts_its_own_pass);
	tcase_add_test(tc, recording_filter_goes_with_its_passes_only);
	tcase_add_test(tc, record_rotation_armed_then_stop);
	add_arm_tests(tc);
	add_make_tests(tc);
	add_rotation_pass_tests(tc);
	add_rotation_tests(tc);
	add_snapshot_tests(tc);
	add_poll_tests(tc);
	add_simclock_tests(tc);
	add_pause_tests(tc);
	add_held_tests(tc); /* before: the last hold test ends caretd's holds for good */
	add_hold_tests(tc);
	add_plan_tests(tc);
	add_top_tests(tc);
	tcase_add_test(tc, stop_reports_and_forgets);
	tcase_add_test(tc, stop_lttng_error_propagates);
	tcase_add_test(tc, stop_of_another_user_never_reaches_lttng);
	tcase_add_test(tc, stop_armed_leaves_nothing);
	tcase_add_test(tc, lttng_unreachable_in_status);
	tcase_add_test(tc, hosts_without_bridge);
	tcase_add_test(tc, version_mismatch_named);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
