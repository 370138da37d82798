/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pause and resume through the commands (daemon/server/cmd_pause.c), with
 * LTTng faked (cmd_fixture.c: a paused session is listed but not active):
 * the recording is kept while paused, whatever the polls see, and comes
 * back as a session newly active; refusals never reach LTTng. A real
 * session daemon: tests/integration/test_pause.py.
 */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "daemon/lttng/lttng_view.h"
#include "daemon/recording/recordings.h"
#include "proto/caret_ctl_dec.h"
#include "proto/caret_ctl_snapshot.h"
#include "cmd_fixture.h"

static bool paused_in_status(const char *session)
{
	cJSON *r = ask("{\"v\":1,\"cmd\":\"status\"}", CTL_REPLY_RESULT, NULL);
	const cJSON *x;
	bool paused = false, found = false;
	cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(r, CARET_CTL_K_RECORDINGS)) {
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(x, CARET_CTL_K_SESSION);
		if (cJSON_IsString(s) && !strcmp(s->valuestring, session)) {
			found = true;
			paused = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(x, CARET_CTL_K_PAUSED));
		}
	}
	cJSON_Delete(r);
	ck_assert_msg(found, "status lacks recording %s", session);
	return paused;
}

static void assert_pause_reply(cJSON *r, const char *session, bool paused)
{
	struct ctl_pause_result p;
	struct ctl_why why;
	ck_assert_msg(ctl_decode_pause(r, &p, &why) == 0, "%s", why.msg);
	ck_assert_str_eq(p.session, session);
	ck_assert_str_eq(p.path, "/t/s1");
	ck_assert_int_eq(p.paused, paused);
	cJSON_Delete(r);
}

START_TEST(pause_keeps_resume_is_new)
{
	cJSON_Delete(ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"s1\",\"path\":\"/t\"}",
			 CTL_REPLY_RESULT, NULL));
	ck_assert_int_eq(view.n_active, 1);
	uint32_t serial = view.sess[0].serial;
	/* the caller's latest recording by default */
	assert_pause_reply(ask("{\"v\":1,\"cmd\":\"pause\"}", CTL_REPLY_RESULT, NULL), "s1", true);
	ck_assert_ptr_nonnull(fake_call("pause s1"));
	ck_assert_int_eq(view.n_active, 0);
	ck_assert(paused_in_status("s1"));
	/* the polls see it stopped, not gone: kept */
	lttng_view_refresh(&view);
	lttng_view_refresh(&view);
	ck_assert_ptr_nonnull(recordings_find(&recs, "s1"));
	ck_assert_int_eq(view.n_active, 0);
	cJSON *r = ask("{\"v\":1,\"cmd\":\"pause\",\"session\":\"s1\"}", CTL_REPLY_ERROR, NULL);
	ck_assert_int_eq(err_of(r), EALREADY);
	ck_assert_ptr_nonnull(strstr(msg_of(r), "paused already"));
	cJSON_Delete(r);
	assert_pause_reply(ask("{\"v\":1,\"cmd\":\"resume\",\"session\":\"s1\"}",
			       CTL_REPLY_RESULT, NULL), "s1", false);
	ck_assert_ptr_nonnull(fake_call("resume s1"));
	/* active again as a new session: every process replays into it */
	ck_assert_int_eq(view.n_active, 1);
	ck_assert_uint_gt(view.sess[0].serial, serial);
	ck_assert(!paused_in_status("s1"));
	r = ask("{\"v\":1,\"cmd\":\"resume\",\"session\":\"s1\"}", CTL_REPLY_ERROR, NULL);
	ck_assert_int_eq(err_of(r), EALREADY);
	ck_assert_ptr_nonnull(strstr(msg_of(r), "not paused"));
	cJSON_Delete(r);
	/* stop ends it, paused or not */
	assert_pause_reply(ask("{\"v\":1,\"cmd\":\"pause\"}", CTL_REPLY_RESULT, NULL), "s1", true);
	cJSON_Delete(ask("{\"v\":1,\"cmd\":\"stop\"}", CTL_REPLY_RESULT, NULL));
	ck_assert_ptr_null(recordings_find(&recs, "s1"));
}
END_TEST

/* A paused recording whose session is destroyed (lttng destroy) is over
 * at the next poll; one started again through LTTng is no longer paused. */
START_TEST(paused_recording_follows_lttng)
{
	cJSON_Delete(ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"s1\",\"path\":\"/t\"}",
			 CTL_REPLY_RESULT, NULL));
	cJSON_Delete(ask("{\"v\":1,\"cmd\":\"pause\"}", CTL_REPLY_RESULT, NULL));
	fake.stopped[0] = false; /* lttng start s1 */
	lttng_view_refresh(&view);
	ck_assert(!paused_in_status("s1"));
	ck_assert_int_eq(view.n_active, 1);
	cJSON_Delete(ask("{\"v\":1,\"cmd\":\"pause\"}", CTL_REPLY_RESULT, NULL));
	fake.n_sessions = 0; /* lttng destroy s1 */
	lttng_view_refresh(&view);
	ck_assert_ptr_null(recordings_find(&recs, "s1"));
}
END_TEST

START_TEST(pause_refusals_never_reach_lttng)
{
	peer.uid = 4242;
	cJSON_Delete(ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"mine\",\"path\":\"/t\"}",
			 CTL_REPLY_RESULT, NULL));
	peer.uid = 4343;
	static const struct refusal cases[] = {
		{ "{\"v\":1,\"cmd\":\"pause\"}", ENOENT, "no recording" },
		{ "{\"v\":1,\"cmd\":\"pause\",\"session\":\"mine\"}", EPERM, "uid 4242" },
		{ "{\"v\":1,\"cmd\":\"resume\",\"session\":\"mine\"}", EPERM, "uid 4242" },
		{ "{\"v\":1,\"cmd\":\"pause\",\"session\":\"cli\"}", ENOENT, "not a recording" },
		{ "{\"v\":1,\"cmd\":\"pause\",\"session\":\"-x\"}", EINVAL, "session" },
		{ "{\"v\":1,\"cmd\":\"resume\",\"session\":7}", EINVAL, "session" },
	};
	EXPECT_REFUSALS(cases);
	ck_assert_ptr_null(fake_call("pause"));
	ck_assert_ptr_null(fake_call("resume"));
	/* the owner may */
	peer.uid = 4242;
	cJSON_Delete(ask("{\"v\":1,\"cmd\":\"pause\",\"session\":\"mine\"}", CTL_REPLY_RESULT,
			 NULL));
	ck_assert_ptr_nonnull(fake_call("pause mine"));
	peer.uid = 0;
}
END_TEST

void add_pause_tests(TCase *tc)
{
	tcase_add_test(tc, pause_keeps_resume_is_new);
	tcase_add_test(tc, paused_recording_follows_lttng);
	tcase_add_test(tc, pause_refusals_never_reach_lttng);
}
