/* SPDX-License-Identifier: Apache-2.0 */
/*
 * record -c through the commands (daemon/recording/simclock.h), with LTTng faked
 * (cmd_fixture.c): where no helper can run (this harness runs no simclock
 * job, as a caretd whose helper cannot read /clock), a -c recording is
 * refused with the reason and undone: its session stopped, not
 * remembered, armed or not. Real helpers: tests/integration/
 * test_record_clock.py.
 */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "daemon/lttng/lttng_view.h"
#include "cmd_fixture.h"

START_TEST(record_clock_refused_and_undone)
{
	const char *reqs[] = {
		"{\"v\":1,\"cmd\":\"record\",\"session\":\"c1\",\"path\":\"/t\","
		"\"record_clock\":true,\"clock_domain\":7}",
		"{\"v\":1,\"cmd\":\"record\",\"session\":\"c1\",\"path\":\"/t\","
		"\"record_clock\":true,\"clock_domain\":0,\"arm\":true}",
	};
	for (size_t i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
		int calls = fake.n_calls;
		cJSON *r = ask(reqs[i], CTL_REPLY_ERROR, NULL);
		ck_assert_int_eq(err_of(r), ENOTSUP);
		ck_assert_ptr_nonnull(strstr(msg_of(r), "record -c"));
		cJSON_Delete(r);
		/* created, then stopped: nothing of it is left */
		ck_assert_int_gt(fake.n_calls, calls);
		ck_assert_ptr_nonnull(fake_call("stop c1"));
		ck_assert_ptr_null(recordings_find(&recs, "c1"));
	}
	/* without -c the same recording starts */
	cJSON *r = ask("{\"v\":1,\"cmd\":\"record\",\"session\":\"c1\",\"path\":\"/t\"}",
		       CTL_REPLY_RESULT, NULL);
	cJSON_Delete(r);
	ck_assert_ptr_nonnull(recordings_find(&recs, "c1"));
}
END_TEST

void add_simclock_tests(TCase *tc)
{
	tcase_add_test(tc, record_clock_refused_and_undone);
}
