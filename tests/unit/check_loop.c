/* SPDX-License-Identifier: Apache-2.0 */
/* The one ordered tick (daemon/base/loop.c): observe, schedule, report, in that
 * order whatever order the jobs were added in; a job brought forward runs
 * in the same tick when its stage is still to come; idle jobs keep the
 * daemon asleep; jobs with the same period share a wake-up. */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "daemon/base/loop.h"

static char trace[256];

struct tjob {
	struct loop_job j;
	char tag;
	uint64_t again;
	struct loop_job *kick; /* brought forward when this one runs */
};

static uint64_t run(void *arg)
{
	struct tjob *t = arg;
	size_t n = strlen(trace);
	trace[n] = t->tag;
	trace[n + 1] = '\0';
	if (t->kick)
		loop_job_soon(t->kick, 0);
	return t->again;
}

static void tjob(struct tjob *t, char tag, enum loop_stage st, uint64_t again)
{
	*t = (struct tjob){ .j = LOOP_JOB("t", st, run, t), .tag = tag, .again = again };
}

static sd_event *ev;
static struct loop l;

static void setup(void)
{
	ck_assert_int_ge(sd_event_new(&ev), 0);
	memset(&l, 0, sizeof(l));
	ck_assert_int_ge(loop_open(&l, ev), 0);
	trace[0] = '\0';
}

static void teardown(void)
{
	loop_close(&l);
	sd_event_unref(ev);
}

START_TEST(stages_in_order)
{
	static struct tjob r, o, s, o2;
	tjob(&r, 'R', LOOP_REPORT, 1000);
	tjob(&o, 'O', LOOP_OBSERVE, 1000);
	tjob(&s, 'S', LOOP_SCHEDULE, 1000);
	tjob(&o2, 'o', LOOP_OBSERVE, 1000);
	ck_assert_int_eq(loop_add(&l, &r.j), 0);
	ck_assert_int_eq(loop_add(&l, &o.j), 0);
	ck_assert_int_eq(loop_add(&l, &s.j), 0);
	ck_assert_int_eq(loop_add(&l, &o2.j), 0);
	uint64_t now = loop_now(&l);
	loop_tick(&l, now);
	ck_assert_str_eq(trace, "OoSR");
	/* same period, same tick: one wake-up for all */
	ck_assert_uint_eq(loop_job_due(&o.j), now + 1000);
	ck_assert_uint_eq(loop_job_due(&r.j), now + 1000);
	trace[0] = '\0';
	loop_tick(&l, now + 999);
	ck_assert_str_eq(trace, "");
	loop_tick(&l, now + 1000);
	ck_assert_str_eq(trace, "OoSR");
}
END_TEST

START_TEST(kick_forward_same_tick)
{
	static struct tjob o, s, r;
	tjob(&o, 'O', LOOP_OBSERVE, 50000);
	tjob(&s, 'S', LOOP_SCHEDULE, LOOP_IDLE);
	tjob(&r, 'R', LOOP_REPORT, LOOP_IDLE);
	ck_assert_int_eq(loop_add(&l, &r.j), 0);
	ck_assert_int_eq(loop_add(&l, &s.j), 0);
	ck_assert_int_eq(loop_add(&l, &o.j), 0);
	uint64_t now = loop_now(&l);
	loop_tick(&l, now);
	ck_assert_str_eq(trace, "OSR");
	ck_assert_uint_eq(loop_job_due(&s.j), LOOP_IDLE);
	/* the view changed (observe): the scheduler acts in the same tick */
	o.kick = &s.j;
	trace[0] = '\0';
	loop_tick(&l, now + 50000);
	ck_assert_str_eq(trace, "OS");
	/* a report bringing an observer forward: the next tick, at once */
	o.kick = NULL;
	r.kick = &o.j;
	loop_job_soon(&r.j, 0);
	trace[0] = '\0';
	uint64_t t = loop_now(&l);
	loop_tick(&l, t);
	ck_assert_str_eq(trace, "R");
	ck_assert_uint_le(loop_job_due(&o.j), loop_now(&l));
	uint64_t due = 0;
	ck_assert_int_ge(sd_event_source_get_time(l.timer, &due), 0);
	ck_assert_uint_le(due, loop_now(&l));
}
END_TEST

START_TEST(soon_only_forward_and_idle_sleeps)
{
	static struct tjob a;
	tjob(&a, 'A', LOOP_OBSERVE, LOOP_IDLE);
	ck_assert_int_eq(loop_add(&l, &a.j), 0);
	loop_tick(&l, loop_now(&l));
	ck_assert_uint_eq(loop_job_due(&a.j), LOOP_IDLE);
	int on = -1;
	/* nothing due: no wake-up at all */
	ck_assert_int_ge(sd_event_source_get_enabled(l.timer, &on), 0);
	ck_assert_int_eq(on, SD_EVENT_OFF);
	ck_assert(loop_job_soon(&a.j, 5000));
	ck_assert(!loop_job_soon(&a.j, 9000)); /* never pushed back */
	ck_assert(loop_job_soon(&a.j, 10));
	ck_assert_int_ge(sd_event_source_get_enabled(l.timer, &on), 0);
	ck_assert_int_eq(on, SD_EVENT_ONESHOT);
	loop_remove(&a.j);
	ck_assert(!loop_job_soon(&a.j, 0));
	ck_assert_int_ge(sd_event_source_get_enabled(l.timer, &on), 0);
	ck_assert_int_eq(on, SD_EVENT_OFF);
}
END_TEST

static void named(struct tjob *t, const char *name, char tag, enum loop_stage st)
{
	tjob(t, tag, st, 1000);
	t->j.name = name;
}

/* caretd's job table (daemon/main.c): the tick runs the jobs in its
 * order, whatever order they were added in, and takes no job it does not
 * list, nor one of another stage than it says. */
START_TEST(the_table_orders_and_admits)
{
	static const struct loop_plan plan[] = {
		{ "b", LOOP_OBSERVE, "" },
		{ "a", LOOP_OBSERVE, "" },
		{ "s", LOOP_SCHEDULE, "" },
		{ "r", LOOP_REPORT, "" },
	};
	static const struct loop_plan unsorted[] = { { "s", LOOP_SCHEDULE, "" },
						     { "a", LOOP_OBSERVE, "" } };
	ck_assert_int_eq(loop_set_plan(&l, unsorted, 2), -EINVAL);
	ck_assert_int_eq(loop_set_plan(&l, plan, 4), 0);
	static struct tjob a, b, s, r, x, wrong;
	named(&r, "r", 'R', LOOP_REPORT);
	named(&s, "s", 'S', LOOP_SCHEDULE);
	named(&a, "a", 'A', LOOP_OBSERVE);
	named(&b, "b", 'B', LOOP_OBSERVE);
	named(&x, "x", 'X', LOOP_OBSERVE);
	named(&wrong, "a", 'W', LOOP_REPORT);
	ck_assert_int_eq(loop_add(&l, &r.j), 0);
	ck_assert_int_eq(loop_add(&l, &s.j), 0);
	ck_assert_int_eq(loop_add(&l, &a.j), 0);
	ck_assert_int_eq(loop_add(&l, &b.j), 0);
	ck_assert_int_eq(loop_add(&l, &x.j), -ENOENT);
	ck_assert_int_eq(loop_add(&l, &wrong.j), -EINVAL);
	ck_assert_int_eq(loop_set_plan(&l, plan, 4), -EBUSY);
	loop_tick(&l, loop_now(&l));
	ck_assert_str_eq(trace, "BASR");
}
END_TEST

/* Through sd-event itself: the timer runs the tick. */
START_TEST(runs_from_the_event_loop)
{
	static struct tjob a, b;
	tjob(&a, 'A', LOOP_REPORT, LOOP_IDLE);
	tjob(&b, 'B', LOOP_OBSERVE, LOOP_IDLE);
	ck_assert_int_eq(loop_add(&l, &a.j), 0);
	ck_assert_int_eq(loop_add(&l, &b.j), 0);
	for (int i = 0; i < 10 && strlen(trace) < 2; i++)
		ck_assert_int_ge(sd_event_run(ev, 100000), 0);
	ck_assert_str_eq(trace, "BA");
	ck_assert_uint_eq(l.ticks, 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("loop");
	TCase *tc = tcase_create("tick");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, stages_in_order);
	tcase_add_test(tc, kick_forward_same_tick);
	tcase_add_test(tc, soon_only_forward_and_idle_sleeps);
	tcase_add_test(tc, runs_from_the_event_loop);
	tcase_add_test(tc, the_table_orders_and_admits);
	suite_add_tcase(s, tc);
	SRunner *r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? 1 : 0;
}
