/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `record` with "plan" (caretctl record -l) through the commands, LTTng
 * faked (cmd_fixture.c): the plan is what the same request then makes
 * (caretd's default geometry, a flight recorder's ring, the light list
 * before Iron, the filters), and asking for it makes nothing: no LTTng
 * call, no recording remembered. Against a real session daemon:
 * tests/integration/test_record_plan.py.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "daemon/lttng/lttng_view.h"
#include "daemon/recording/recordings.h"
#include "proto/caret_ctl_limits.h"
#include "proto/caret_ctl_plan.h"
#include "cmd_fixture.h"

#define REQ "\"session\":\"p1\",\"path\":\"/t\",\"light\":true,\"select_nodes\":\"/a\""

START_TEST(plan_makes_nothing_and_is_what_record_makes)
{
	static const uint32_t count = 8;
	ctx.subbuf_count = &count;
	strcpy(agent.seg.id.distribution, "humble");
	int calls = fake.n_calls;
	cJSON *r = ask("{\"v\":1,\"cmd\":\"record\",\"plan\":true," REQ "}", CTL_REPLY_RESULT, NULL);
	static struct caret_ctl_plan p;
	struct ctl_why why;
	ck_assert_msg(caret_ctl_dec_plan(r, &p, &why) == 0, "%s", why.msg);
	ck_assert_int_eq(fake.n_calls, calls);
	ck_assert_ptr_null(recordings_find(&recs, "p1"));
	ck_assert_str_eq(p.session, "p1");
	ck_assert_str_eq(p.filter[CARET_FILTER_SELECT_NODES], "/a");
	ck_assert_int_eq(p.n_channels, 1);
	ck_assert(!p.ch[0].overwrite && !p.snapshot_mode);
	ck_assert_uint_eq(p.ch[0].subbuf_count, 8); /* caretd's default */
	for (int i = 0; i < p.ch[0].n_events; i++) /* every process before Iron */
		ck_assert_str_ne(p.ch[0].events[i].name, "ros2:rcl_publish");
	/* the configuration record hands LTTng says 0 for LTTng's default,
	 * which the plan spells out */
	char want[128];
	snprintf(want, sizeof(want), "size=%llu count=%llu",
		 p.ch[0].subbuf_size == CARET_CTL_DEFAULT_SUBBUF_SIZE
			 ? 0ull : (unsigned long long)p.ch[0].subbuf_size,
		 (unsigned long long)p.ch[0].subbuf_count);
	cJSON_Delete(r);
	r = ask("{\"v\":1,\"cmd\":\"record\"," REQ "}", CTL_REPLY_RESULT, NULL);
	cJSON_Delete(r);
	ctx.subbuf_count = NULL;
	const char *made = fake_call("record p1");
	ck_assert_ptr_nonnull(made);
	ck_assert_msg(strstr(made, "light=1 pre_iron=1") && strstr(made, want), "%s", made);
}
END_TEST

START_TEST(plan_of_a_flight_recorder)
{
	cJSON *r = ask("{\"v\":1,\"cmd\":\"record\",\"plan\":true,\"path\":\"/t\","
		       "\"snapshot_size\":1073741824}", CTL_REPLY_RESULT, NULL);
	static struct caret_ctl_plan p;
	struct ctl_why why;
	ck_assert_msg(caret_ctl_dec_plan(r, &p, &why) == 0, "%s", why.msg);
	ck_assert_int_eq(fake.n_calls, 0);
	/* not "discard mode, 4 sub-buffers of 524288 bytes" (issue 32) */
	ck_assert(p.snapshot_mode && p.ch[0].overwrite);
	ck_assert_uint_eq(p.snapshot_size, 1ull << 30);
	ck_assert_uint_eq(p.ch[0].subbuf_size * p.ch[0].subbuf_count, 1ull << 30);
	ck_assert_ptr_null(p.session);
	cJSON_Delete(r);
}
END_TEST

void add_plan_tests(TCase *tc)
{
	tcase_add_test(tc, plan_makes_nothing_and_is_what_record_makes);
	tcase_add_test(tc, plan_of_a_flight_recorder);
}
