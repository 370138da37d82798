/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The relay session another host asks for (daemon/bridge/bridge_relay.c), against
 * check_commands' fake session daemon: created and stopped through the
 * view's ops table, and told to the view as commands do (the session list
 * is not read again); its size bound through the bridge's limit ops.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "daemon/bridge/bridge_relay.h"
#include "tests/unit/cmd_fixture.h"
#include "tests/unit/limit_fixture.h"

static struct bridge b;

static void relay_setup(void)
{
	setup();
	memset(&b, 0, sizeof(b));
	b.cfg = (struct bridge_cfg){ .enabled = true, .accept_relay = true,
				     .relay_allow = "relay.lan", .relay_max_s = 5,
				     .relay_max_bytes = 1 << 20 };
	b.reg = &reg;
	b.sched = &scheduler;
	b.lttng = &view;
	b.limit = &fake_limit;
	n_limits = fail_size = 0;
}

static caretd_msgs_msg_dds__RelayRecord_ request(bool stop)
{
	return (caretd_msgs_msg_dds__RelayRecord_){ .session_name = "rs",
						    .url = "net://relay.lan",
						    .recording_frequency = 100, .stop = stop,
						    .ignore_nodes = "", .ignore_topics = "",
						    .select_nodes = "", .select_topics = "" };
}

START_TEST(relay_through_ops_and_view)
{
	caretd_msgs_msg_dds__RelayRecord_ m = request(false);
	bridge_relay_request(&b, &m, "hostA");
	ck_assert_ptr_nonnull(fake_call("record rs path=- url=net://relay.lan"));
	ck_assert_str_eq(b.relay_session, "rs");
	ck_assert_str_eq(limits[0], "size rs 1048576");
	/* the view was told: active at once, the session list not read */
	ck_assert(lttng_view_is_active(&view, "rs"));
	ck_assert_int_eq(fake.n_lists, 0);
	/* before its time bound nothing happens */
	bridge_relay_check(&b, b.relay_since_ns + 4 * 1000 * MS);
	ck_assert_ptr_null(fake_call("stop"));
	/* after it: stopped through the ops, the view told, the bound gone */
	bridge_relay_check(&b, b.relay_since_ns + 5 * 1000 * MS);
	ck_assert_ptr_nonnull(fake_call("stop rs"));
	ck_assert(!lttng_view_is_active(&view, "rs"));
	ck_assert_int_eq(fake.n_lists, 0);
	ck_assert_str_eq(limits[1], "remove rs");
	ck_assert_str_eq(b.relay_session, "");
}
END_TEST

START_TEST(relay_stop_request)
{
	caretd_msgs_msg_dds__RelayRecord_ m = request(false);
	bridge_relay_request(&b, &m, "hostA");
	ck_assert(lttng_view_is_active(&view, "rs"));
	m = request(true);
	bridge_relay_request(&b, &m, "hostA");
	ck_assert_ptr_nonnull(fake_call("stop rs"));
	ck_assert(!lttng_view_is_active(&view, "rs"));
	ck_assert_int_eq(fake.n_lists, 0);
}
END_TEST

/* No session without its size bound: destroyed at once, never active. */
START_TEST(relay_unbounded_destroyed)
{
	fail_size = -EOPNOTSUPP;
	caretd_msgs_msg_dds__RelayRecord_ m = request(false);
	bridge_relay_request(&b, &m, "hostA");
	ck_assert_ptr_nonnull(fake_call("record rs"));
	ck_assert_ptr_nonnull(fake_call("stop rs"));
	ck_assert(!lttng_view_is_active(&view, "rs"));
	ck_assert_str_eq(b.relay_session, "");
	ck_assert_int_eq(fake.n_sessions, 0);
}
END_TEST

/* Not in --relay-allow: LTTng is not even asked. */
START_TEST(relay_host_refused)
{
	caretd_msgs_msg_dds__RelayRecord_ m = request(false);
	m.url = "net://elsewhere";
	bridge_relay_request(&b, &m, "hostA");
	ck_assert_int_eq(fake.n_calls, 0);
	ck_assert_uint_eq(b.counts.rejected, 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("bridge_relay");
	TCase *tc = tcase_create("relay");
	tcase_add_checked_fixture(tc, relay_setup, teardown);
	tcase_add_test(tc, relay_through_ops_and_view);
	tcase_add_test(tc, relay_stop_request);
	tcase_add_test(tc, relay_unbounded_destroyed);
	tcase_add_test(tc, relay_host_refused);
	suite_add_tcase(s, tc);
	SRunner *r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? 1 : 0;
}
