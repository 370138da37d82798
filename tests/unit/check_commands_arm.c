/* SPDX-License-Identifier: Apache-2.0 */
/*
 * An armed recording through the commands, with LTTng faked
 * (tests/unit/cmd_fixture.c): armed with its channel disabled while
 * another session records, armed open otherwise (issue 24, P6: Enter sends
 * LTTng nothing), and held (channel disabled) before any process may leave
 * WAIT for a session that starts meanwhile. The real session:
 * tests/integration/test_armed_open.py.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "daemon/lttng/lttng_view.h"
#include "proto/caret_ctl.h"

#include "tests/unit/cmd_fixture.h"

START_TEST(record_arm_then_go)
{
	/* another session records: the processes may leave WAIT any time, so
	 * the channel stays disabled until Enter */
	snprintf(fake.sessions[fake.n_sessions++], CARET_LTTNG_NAME_MAX, "%s", "other");
	lttng_view_refresh(&view);
	ck_assert_int_eq(view.n_active, 1);
	peer.uid = 4242;
	peer.pid = getpid();
	cJSON *r = ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"a1\",\"path\":\"/t\","
		       "\"arm\":true}", CTL_REPLY_RESULT, NULL);
	cJSON_Delete(r);
	ck_assert_ptr_nonnull(strstr(fake.calls[0], "armed=1"));
	ck_assert_ptr_null(strstr(fake.calls[0], "open=1"));
	ck_assert(!recordings_find(&recs, "a1")->armed_open);
	struct recording *rec = recordings_find(&recs, "a1");
	ck_assert(rec->armed);
	ck_assert_int_eq(rec->armer_pid, getpid());
	/* armed records nothing: not active for the pacer */
	ck_assert(!lttng_view_is_active(&view, "a1"));
	/* another user's go is refused, LTTng not asked */
	peer.uid = 4343;
	r = ask("{\"v\":1,\"cmd\":\"record\",\"go\":\"a1\"}", CTL_REPLY_ERROR, NULL);
	ck_assert_int_eq(err_of(r), EPERM);
	cJSON_Delete(r);
	ck_assert_ptr_null(fake_call("go"));
	/* LTTng's failure comes back with its cause; still armed */
	peer.uid = 4242;
	fake.fail_go = -EIO;
	r = ask("{\"v\":1,\"cmd\":\"record\",\"go\":\"a1\"}", CTL_REPLY_ERROR, NULL);
	ck_assert_int_eq(err_of(r), EIO);
	ck_assert_ptr_nonnull(strstr(msg_of(r), "fake cause"));
	cJSON_Delete(r);
	ck_assert(recordings_find(&recs, "a1")->armed);
	r = ask("{\"v\":1,\"cmd\":\"record\",\"go\":\"a1\"}", CTL_REPLY_RESULT, NULL);
	assert_record_reply(r, "a1", "/t/a1");
	cJSON_Delete(r);
	ck_assert(!recordings_find(&recs, "a1")->armed);
	ck_assert(lttng_view_is_active(&view, "a1"));
	r = ask("{\"v\":1,\"cmd\":\"record\",\"go\":\"nope\"}", CTL_REPLY_ERROR, NULL);
	ck_assert_int_eq(err_of(r), ENOENT);
	cJSON_Delete(r);
}
END_TEST

/* Issue 24 (P6): with no session active and every process in WAIT, an
 * armed recording starts with its channel enabled and Enter sends LTTng
 * nothing; a process not in WAIT, or a session that starts meanwhile (held
 * before the view tells anyone, so before any process may leave WAIT),
 * puts it back on the channel-disabled path. */
static int changes;
static const char *hold_seen_at_change;
static void count_change(void *arg)
{
	(void)arg;
	changes++;
	hold_seen_at_change = fake_call("hold b1");
}

START_TEST(record_arm_open_enter_sends_lttng_nothing)
{
	peer.uid = 4242;
	peer.pid = getpid();
	cJSON *r = ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"a1\",\"path\":\"/t\","
		       "\"arm\":true}", CTL_REPLY_RESULT, NULL);
	cJSON_Delete(r);
	ck_assert_ptr_nonnull(strstr(fake.calls[0], "armed=1"));
	ck_assert_ptr_nonnull(strstr(fake.calls[0], "open=1"));
	ck_assert(recordings_find(&recs, "a1")->armed_open);
	ck_assert(!lttng_view_is_active(&view, "a1"));
	r = ask("{\"v\":1,\"cmd\":\"record\",\"go\":\"a1\"}", CTL_REPLY_RESULT, NULL);
	assert_record_reply(r, "a1", "/t/a1");
	cJSON_Delete(r);
	ck_assert_ptr_null(fake_call("go"));
	ck_assert_ptr_null(fake_call("hold"));
	ck_assert(!recordings_find(&recs, "a1")->armed);
	ck_assert(lttng_view_is_active(&view, "a1"));
}
END_TEST

START_TEST(record_arm_open_held_when_a_session_starts)
{
	peer.uid = 4242;
	peer.pid = getpid();
	cJSON *r = ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"b1\",\"path\":\"/t\","
		       "\"arm\":true}", CTL_REPLY_RESULT, NULL);
	cJSON_Delete(r);
	ck_assert(recordings_find(&recs, "b1")->armed_open);
	/* a poll that sees nothing new holds nothing */
	lttng_view_refresh(&view);
	ck_assert_ptr_null(fake_call("hold"));
	/* someone's plain lttng session starts: held before the change is told */
	view.on_change = count_change;
	changes = 0;
	hold_seen_at_change = NULL;
	snprintf(fake.sessions[fake.n_sessions++], CARET_LTTNG_NAME_MAX, "%s", "foreign");
	lttng_view_refresh(&view);
	ck_assert_int_eq(changes, 1);
	ck_assert_ptr_nonnull(hold_seen_at_change);
	ck_assert(recordings_find(&recs, "b1")->armed);
	ck_assert(!recordings_find(&recs, "b1")->armed_open);
	/* and its Enter enables the channel, as any armed recording's */
	r = ask("{\"v\":1,\"cmd\":\"record\",\"go\":\"b1\"}", CTL_REPLY_RESULT, NULL);
	cJSON_Delete(r);
	ck_assert_ptr_nonnull(fake_call("go b1"));
	view.on_change = NULL;
}
END_TEST

START_TEST(record_arm_open_only_when_every_process_waits)
{
	caret_own_set_state(&agent.seg, CARET_STATE_RECORD); /* a session just ended */
	peer.uid = 4242;
	peer.pid = getpid();
	cJSON *r = ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"c1\",\"path\":\"/t\","
		       "\"arm\":true}", CTL_REPLY_RESULT, NULL);
	cJSON_Delete(r);
	ck_assert_ptr_null(strstr(fake.calls[0], "open=1"));
	/* two armed open: the first one's Enter holds the other */
	caret_own_set_state(&agent.seg, CARET_STATE_WAIT);
	r = ask("{\"v\":1,\"cmd\":\"stop\",\"session\":\"c1\"}", CTL_REPLY_RESULT, NULL);
	cJSON_Delete(r);
	r = ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"d1\",\"path\":\"/t\","
		"\"arm\":true}", CTL_REPLY_RESULT, NULL);
	cJSON_Delete(r);
	r = ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"d2\",\"path\":\"/t\","
		"\"arm\":true}", CTL_REPLY_RESULT, NULL);
	cJSON_Delete(r);
	ck_assert(recordings_find(&recs, "d1")->armed_open);
	ck_assert(recordings_find(&recs, "d2")->armed_open);
	r = ask("{\"v\":1,\"cmd\":\"record\",\"go\":\"d1\"}", CTL_REPLY_RESULT, NULL);
	cJSON_Delete(r);
	ck_assert_ptr_nonnull(fake_call("hold d2"));
	ck_assert_ptr_null(fake_call("hold d1"));
	ck_assert(!recordings_find(&recs, "d2")->armed_open);
	ck_assert(recordings_find(&recs, "d2")->armed);
}
END_TEST

/* Armed with --all-hosts: the Start goes to every host at Enter, not at
 * arming (here the bridge is off: the go reply says it was not sent). */
START_TEST(record_arm_all_hosts_starts_them_at_go)
{
	peer.uid = 4242;
	peer.pid = getpid();
	cJSON *r = ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"h1\",\"path\":\"/t\","
		       "\"arm\":true,\"all_hosts\":true}", CTL_REPLY_RESULT, NULL);
	ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(r, CARET_CTL_K_BROADCAST));
	cJSON_Delete(r);
	ck_assert(recordings_find(&recs, "h1")->all_hosts);
	r = ask("{\"v\":1,\"cmd\":\"record\",\"go\":\"h1\"}", CTL_REPLY_RESULT, NULL);
	ck_assert(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(r, CARET_CTL_K_BROADCAST)));
	const cJSON *why = cJSON_GetObjectItemCaseSensitive(r, CARET_CTL_K_BROADCAST_ERROR);
	ck_assert_ptr_nonnull(strstr(why->valuestring, "Start not broadcast: bridge off"));
	cJSON_Delete(r);
	/* a relay recording for every host is not armed */
	r = ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"h2\",\"url\":\"net://x\","
		"\"arm\":true,\"all_hosts\":true}", CTL_REPLY_ERROR, NULL);
	ck_assert_int_eq(err_of(r), EINVAL);
	cJSON_Delete(r);
}
END_TEST

void add_arm_tests(TCase *tc)
{
	tcase_add_test(tc, record_arm_all_hosts_starts_them_at_go);
	tcase_add_test(tc, record_arm_then_go);
	tcase_add_test(tc, record_arm_open_enter_sends_lttng_nothing);
	tcase_add_test(tc, record_arm_open_held_when_a_session_starts);
	tcase_add_test(tc, record_arm_open_only_when_every_process_waits);
}
