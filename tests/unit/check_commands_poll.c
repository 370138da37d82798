/* SPDX-License-Identifier: Apache-2.0 */
/*
 * How often the LTTng view reads the session list (issue 24): once a second
 * while nothing is active, at the short period otherwise; an agent's hint
 * (its ros2/ros2_caret probes changed) brings the read forward, the first
 * at once, then at most one per 50 ms however many hints come, and never
 * later than it was due.
 */
#include <check.h>
#include <errno.h>
#include <string.h>
#include <systemd/sd-event.h>

#include "daemon/base/loop.h"
#include "daemon/lttng/lttng_view.h"
#include "tests/unit/cmd_fixture.h"

#define US_MS 1000ULL

static sd_event *ev;
static struct loop l;

static int changes;
static void *change_arg_seen;

static void count_change(void *arg)
{
	changes++;
	change_arg_seen = arg;
}

/* The view started with the fixture's fake door and a hook that counts
 * what it is told. */
static void poll_open(void)
{
	ck_assert_int_ge(sd_event_new(&ev), 0);
	memset(&l, 0, sizeof(l));
	ck_assert_int_ge(loop_open(&l, ev), 0);
	const struct lttng_view_ops_in in = { .ops = &fake_lttng_ops, .on_change = count_change,
					      .change_arg = &l };
	ck_assert_int_eq(lttng_view_start(&view, &l, &in), 0);
}

static void poll_close(void)
{
	lttng_view_stop(&view);
	loop_close(&l);
	sd_event_unref(ev);
}

/* Runs the view's poll now (whenever it was due); how long until it is
 * due again (usec). */
static uint64_t poll_now(void)
{
	loop_job_soon(&view.poll, 0);
	uint64_t now = loop_now(&l);
	loop_tick(&l, now);
	uint64_t due = loop_job_due(&view.poll);
	ck_assert_uint_ne(due, LOOP_IDLE);
	return due - now;
}

START_TEST(idle_reads_once_a_second)
{
	poll_open();
	int lists = fake.n_lists;
	uint64_t next = poll_now();
	ck_assert_int_eq(fake.n_lists, lists + 1);
	ck_assert_uint_ge(next, 900 * US_MS);
	ck_assert_uint_le(next, 1000 * US_MS);
	/* a session (started by anyone): the short period while it lasts */
	fake.n_sessions = 1;
	strcpy(fake.sessions[0], "cli");
	next = poll_now();
	ck_assert_int_eq(view.n_active, 1);
	ck_assert_uint_le(next, 50 * US_MS);
	fake.n_sessions = 0;
	next = poll_now();
	ck_assert_int_eq(view.n_active, 0);
	ck_assert_uint_ge(next, 900 * US_MS);
	/* the session daemon gone: it is retried at the short period */
	fake.fail_list = -ECONNREFUSED;
	next = poll_now();
	ck_assert(!view.ok);
	ck_assert_uint_le(next, 50 * US_MS);
	poll_close();
}
END_TEST

/* What lttng_view_start is handed is what the view uses: its door to
 * LTTng for every read, its hook (with its argument) for every change. */
START_TEST(start_hands_the_door_and_the_hook)
{
	view.ops = NULL;
	view.on_change = NULL;
	poll_open();
	ck_assert_ptr_eq(lttng_view_ops(&view), &fake_lttng_ops);
	int lists = fake.n_lists;
	poll_now();
	ck_assert_int_eq(fake.n_lists, lists + 1);
	changes = 0;
	change_arg_seen = NULL;
	fake.n_sessions = 1;
	strcpy(fake.sessions[0], "cli");
	poll_now();
	ck_assert_int_eq(changes, 1);
	ck_assert_ptr_eq(change_arg_seen, &l);
	poll_now(); /* nothing new: nothing told */
	ck_assert_int_eq(changes, 1);
	fake.n_sessions = 0;
	poll_close();
	view.on_change = NULL;
}
END_TEST

START_TEST(first_hint_reads_at_once_then_short_period)
{
	poll_open();
	poll_now();
	/* quiet for a while: the hint makes the read due now */
	view.last_poll_ns -= 2000 * MS;
	uint64_t now = loop_now(&l);
	lttng_view_hint(&view);
	ck_assert(view.hinted);
	ck_assert_uint_le(loop_job_due(&view.poll), now + 5 * US_MS);
	int lists = fake.n_lists;
	uint64_t next = poll_now();
	ck_assert_int_eq(fake.n_lists, lists + 1);
	ck_assert(!view.hinted);
	/* for a while after a hint the session may still be starting in the
	 * session daemon (its answer comes after the command): short period */
	ck_assert_uint_le(next, 50 * US_MS);
	view.fast_until_ns = caret_now_ns() - 1;
	ck_assert_uint_ge(poll_now(), 900 * US_MS);
	poll_close();
}
END_TEST

START_TEST(hint_storm_reads_once_per_gap)
{
	poll_open();
	poll_now(); /* read just now */
	uint64_t now = loop_now(&l);
	int lists = fake.n_lists;
	/* a hostile user touching files under segment names, as fast as it can */
	for (int i = 0; i < 100000; i++)
		lttng_view_hint(&view);
	uint64_t due = loop_job_due(&view.poll);
	/* not before the gap after the last read, not after it either */
	ck_assert_uint_ge(due, now + 40 * US_MS);
	ck_assert_uint_le(due, now + 50 * US_MS);
	/* none of the hints read anything by itself */
	ck_assert_int_eq(fake.n_lists, lists);
	loop_tick(&l, due - 1);
	ck_assert_int_eq(fake.n_lists, lists);
	loop_tick(&l, due);
	ck_assert_int_eq(fake.n_lists, lists + 1);
	poll_close();
}
END_TEST

START_TEST(hint_never_delays_a_due_read)
{
	poll_open();
	poll_now();
	uint64_t now = loop_now(&l);
	/* due sooner than the hint gap (brought forward by a command) */
	ck_assert(loop_job_soon(&view.poll, 0));
	view.hinted = false;
	lttng_view_hint(&view);
	ck_assert(!view.hinted);
	ck_assert_uint_le(loop_job_due(&view.poll), now + 5 * US_MS);
	poll_close();
}
END_TEST

void add_poll_tests(TCase *tc)
{
	tcase_add_test(tc, idle_reads_once_a_second);
	tcase_add_test(tc, start_hands_the_door_and_the_hook);
	tcase_add_test(tc, first_hint_reads_at_once_then_short_period);
	tcase_add_test(tc, hint_storm_reads_once_per_gap);
	tcase_add_test(tc, hint_never_delays_a_due_read);
}
