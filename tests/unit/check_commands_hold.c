/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `hold` through the commands (daemon/server/cmd_hold.c), with LTTng faked
 * (cmd_fixture.c): a hold's connection closing without a release stops its
 * recording through `stop`'s path; a release, the recording's own end or
 * caretd's exit stop nothing; only the owner (or root) holds or releases.
 * A real session daemon and caretctl: tests/integration/test_record_hold.py.
 */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "daemon/server/cmd_hold.h"
#include "proto/caret_ctl_dec.h"
#include "cmd_fixture.h"

static void record(const char *name)
{
	char line[160];
	snprintf(line, sizeof(line), "{\"v\":1,\"cmd\":\"record\",\"session\":\"%s\",\"path\":\"/t\"}",
		 name);
	cJSON_Delete(ask(line, CTL_REPLY_RESULT, NULL));
}

/* A hold of name, its first line read: held. */
static struct wait_req *hold(const char *name)
{
	char line[160];
	snprintf(line, sizeof(line), "{\"v\":1,\"cmd\":\"hold\",\"session\":\"%s\"}", name);
	cJSON *o;
	struct wait_req *w = ask_slow(line, &o);
	struct ctl_hold_result h;
	struct ctl_why why;
	ck_assert_msg(ctl_decode_hold(o, &h, &why) == 0, "%s", why.msg);
	ck_assert_str_eq(h.session, name);
	ck_assert(h.held);
	cJSON_Delete(o);
	expect_quiet(w);
	return w;
}

/* The hold's last line: no longer held, the request over. */
static void expect_over(struct wait_req *w)
{
	bool done;
	cJSON *o = wait_poll(w, 2, &done);
	ck_assert(done);
	struct ctl_hold_result h;
	struct ctl_why why;
	ck_assert_msg(ctl_decode_hold(o, &h, &why) == 0, "%s", why.msg);
	ck_assert(!h.held);
	cJSON_Delete(o);
}

START_TEST(closed_unreleased_stops_the_recording)
{
	record("s1");
	record("s2");
	struct wait_req *w = hold("s1");
	ck_assert_ptr_null(fake_call("stop"));
	wait_free(w); /* its connection closed: caretctl killed */
	ck_assert_ptr_nonnull(fake_call("stop s1"));
	ck_assert_int_eq(fake_stops(), 1);
	ck_assert_ptr_null(recordings_find(&recs, "s1"));
	ck_assert_ptr_nonnull(recordings_find(&recs, "s2"));
}
END_TEST

START_TEST(released_runs_on)
{
	record("s1");
	struct wait_req *w1 = hold("s1"), *w2 = hold("s1");
	/* on another connection, as caretctl releases */
	cJSON *r = ask("{\"v\":1,\"cmd\":\"hold\",\"session\":\"s1\",\"release\":true}",
		       CTL_REPLY_RESULT, NULL);
	struct ctl_hold_result h;
	struct ctl_why why;
	ck_assert_msg(ctl_decode_hold(r, &h, &why) == 0, "%s", why.msg);
	ck_assert(!h.held);
	cJSON_Delete(r);
	expect_over(w1);
	wait_free(w1);
	wait_free(w2); /* closed before its last line: released all the same */
	ck_assert_int_eq(fake_stops(), 0);
	ck_assert_ptr_nonnull(recordings_find(&recs, "s1"));
}
END_TEST

/* Stopped by caretctl itself: the hold ends, and a recording of the same
 * name made afterwards is not the one held. */
START_TEST(ends_with_its_recording)
{
	record("s1");
	struct wait_req *w = hold("s1"), *late = hold("s1");
	cJSON_Delete(ask("{\"v\":1,\"cmd\":\"stop\",\"session\":\"s1\"}", CTL_REPLY_RESULT, NULL));
	expect_over(w);
	wait_free(w);
	fake.n_sessions = 0;
	record("s1");
	wait_free(late); /* never polled since: its recording is gone */
	ck_assert_int_eq(fake_stops(), 1);
	ck_assert_ptr_nonnull(recordings_find(&recs, "s1"));
}
END_TEST

START_TEST(owner_only)
{
	peer.uid = 4242;
	record("mine");
	peer.uid = 4343;
	static const struct refusal cases[] = {
		{ "{\"v\":1,\"cmd\":\"hold\",\"session\":\"mine\"}", EPERM, "uid 4242" },
		{ "{\"v\":1,\"cmd\":\"hold\",\"session\":\"mine\",\"release\":true}", EPERM,
		  "uid 4242" },
		{ "{\"v\":1,\"cmd\":\"hold\",\"session\":\"other\"}", ENOENT, "no recording" },
		{ "{\"v\":1,\"cmd\":\"hold\"}", EINVAL, "session is required" },
	};
	EXPECT_REFUSALS(cases);
	/* the owner's hold, which the other user could not release */
	peer.uid = 4242;
	struct wait_req *w = hold("mine");
	peer.uid = 0;
	wait_free(w);
	ck_assert_ptr_nonnull(fake_call("stop mine"));
}
END_TEST

/* caretd exiting closes every connection: it stops nothing (the holders
 * hold again once a caretd is back). Last: the exit is for good. */
START_TEST(caretd_exit_stops_nothing)
{
	record("s1");
	struct wait_req *w = hold("s1");
	cmd_hold_shutdown();
	wait_free(w);
	ck_assert_int_eq(fake_stops(), 0);
	ck_assert_ptr_nonnull(recordings_find(&recs, "s1"));
}
END_TEST

void add_hold_tests(TCase *tc)
{
	tcase_add_test(tc, closed_unreleased_stops_the_recording);
	tcase_add_test(tc, released_runs_on);
	tcase_add_test(tc, ends_with_its_recording);
	tcase_add_test(tc, owner_only);
	tcase_add_test(tc, caretd_exit_stops_nothing);
}
