/* SPDX-License-Identifier: Apache-2.0 */
/*
 * caretd's scheduler (its state machine) against real
 * segments. The test plays the agent: it owns the segments and sets what
 * the agent would. Also in this binary: check_daemon_pacing.c (the
 * pacing arithmetic), check_daemon_restart.c (a caretd killed inside a
 * pass) and check_daemon_registry.c (config, registry, copy counts);
 * daemon_fixture.h is what they share (daemon_fixture.c).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/agents/dups.h"
#include "daemon/agents/registry.h"
#include "daemon/config.h"
#include "lib/lttng/session.h"
#include "daemon/agents/scheduler.h"
#include "daemon/agents/startend.h"
#include "tests/unit/daemon_fixture.h"
#include "tests/unit/unit.h"

START_TEST(start_and_end)
{
	struct agent a;
	make_agent(&a, "se", 10);
	struct registry r = one(&a);
	struct sched s = freq_sched(100);
	int64_t t = 1000 * MS;

	sched_tick(&s, &r, &OFF, t);
	ck_assert_uint_eq(status(&a).state, CARET_STATE_WAIT); /* no session: stays */
	sched_tick(&s, &r, &ON, t += 10 * MS);
	ck_assert_uint_eq(status(&a).state, CARET_STATE_PREPARE);
	ck_assert_uint_ne(CARET_EPOCH_OF(status(&a).grant), 0);
	ck_assert_uint_eq(granted(&a), 0);
	/* tracepoints not enabled yet: nothing is granted */
	sched_tick(&s, &r, &ON, t += 100 * MS);
	ck_assert_uint_eq(granted(&a), 0);
	/* session gone during the replay */
	sched_tick(&s, &r, &OFF, t += 10 * MS);
	ck_assert_uint_eq(status(&a).state, CARET_STATE_WAIT);
	/* a new pass gets a new epoch */
	uint32_t e1 = CARET_EPOCH_OF(status(&a).grant);
	sched_tick(&s, &r, &ON, t += 10 * MS);
	ck_assert_uint_gt(CARET_EPOCH_OF(status(&a).grant), e1);
	drop_agent(&a);
}
END_TEST

/* Issue 30 H7: a member's recording (a session that sees only their
 * uid's processes) moves and waits for their processes only; another
 * user's stays in WAIT, counted nowhere, until a session sees it. */
START_TEST(scoped_session_sees_one_uid)
{
	struct agent mine, other;
	make_agent(&mine, "mine", 10);
	make_agent(&other, "other", 10);
	mine.seg.id.uid = 1000;
	other.seg.id.uid = 2000;
	mine.next = &other;
	other.next = NULL;
	struct registry r = { .head = &mine, .count = 2 };
	struct sched s = freq_sched(100);
	int64_t t = 1000 * MS;
	struct sched_lttng l = { .n = 1, .scoped = true };
	l.sess[0] = (struct sched_session){ .rules = CARET_LTTNG_RULE_CARET, .serial = 1,
					    .settled = true, .scoped = true, .uid = 1000 };
	sched_lttng_sum(&l, false, 0);
	ck_assert(l.any && l.caret);
	r.want_serial = l.newest;
	sched_tick(&s, &r, &l, t);
	ck_assert_uint_eq(status(&mine).state, CARET_STATE_PREPARE);
	ck_assert_uint_eq(status(&other).state, CARET_STATE_WAIT);
	tracepoints_on(&mine);
	for (int i = 0; i < 50 && status(&mine).state != CARET_STATE_RECORD; i++) {
		sched_tick(&s, &r, &l, t += 100 * MS);
		replayed(&mine, granted(&mine));
	}
	sched_tick(&s, &r, &l, t += 100 * MS);
	ck_assert_uint_eq(status(&mine).state, CARET_STATE_RECORD);
	ck_assert_uint_eq(status(&other).state, CARET_STATE_WAIT);
	struct progress p;
	sched_progress(&r, &p);
	ck_assert_int_eq(p.total, 1); /* the other user's process is not waited for */
	ck_assert_int_eq(p.recording, 1);
	/* root's session (sees everyone) comes: the other one starts too */
	l.sess[l.n++] = (struct sched_session){ .rules = CARET_LTTNG_RULE_CARET, .serial = 2,
						.settled = true };
	sched_lttng_sum(&l, false, 0);
	r.want_serial = l.newest;
	sched_tick(&s, &r, &l, t += 100 * MS);
	ck_assert_uint_eq(status(&other).state, CARET_STATE_PREPARE);
	sched_progress(&r, &p);
	ck_assert_int_eq(p.total, 2);
	drop_agent(&mine);
	drop_agent(&other);
}
END_TEST

/* A Start's filter goes with the pass that Start begins, and only with it
 * (struct caret_shm_filter): staged for its epoch, left for no later pass,
 * cleared at End. */
START_TEST(start_filter_goes_with_its_pass)
{
	struct agent a;
	make_agent(&a, "sf", 10);
	struct registry r = one(&a);
	struct sched s = freq_sched(100);
	struct sched_lttng none = { .any = false };
	struct caret_filter_lists f = { { [CARET_FILTER_SELECT_NODES] = "/b0$",
					  [CARET_FILTER_IGNORE_TOPICS] = "rosout" } };
	struct caret_filter_text ft;
	struct startend_out o;
	int64_t t = 1000 * MS;
	/* ignored (no session): nothing left for the next pass */
	startend_start(&s, &r, &none, 0, &f, &o);
	ck_assert_int_eq(o.filtered, 0);
	sched_tick(&s, &r, &ON, t += 10 * MS);
	uint32_t e1 = CARET_EPOCH_OF(status(&a).grant);
	ck_assert_uint_eq(status(&a).state, CARET_STATE_PREPARE);
	ck_assert_int_eq(caret_own_read_filter(&a.seg, e1, &ft), 0);
	sched_tick(&s, &r, &OFF, t += 10 * MS);
	ck_assert_uint_eq(status(&a).state, CARET_STATE_WAIT);
	/* moved by the Start (at the tick, its input): its pass has the filter */
	startend_start(&s, &r, &ON, 0, &f, &o);
	ck_assert_int_eq(o.filtered, 1);
	sched_tick(&s, &r, &ON, t += 10 * MS);
	uint32_t e2 = CARET_EPOCH_OF(status(&a).grant);
	ck_assert_uint_gt(e2, e1);
	ck_assert_int_eq(caret_own_read_filter(&a.seg, e2, &ft), 1);
	ck_assert_str_eq(ft.f.list[CARET_FILTER_SELECT_NODES], "/b0$");
	ck_assert_str_eq(ft.f.list[CARET_FILTER_IGNORE_NODES], "");
	ck_assert_str_eq(ft.f.list[CARET_FILTER_SELECT_TOPICS], "");
	ck_assert_str_eq(ft.f.list[CARET_FILTER_IGNORE_TOPICS], "rosout");
	/* another pass (a newer session) is not filtered */
	ck_assert_int_eq(caret_own_read_filter(&a.seg, e2 + 1, &ft), 0);
	/* End: the recording is over, the filter with it */
	sched_tick(&s, &r, &OFF, t += 10 * MS);
	ck_assert_uint_eq(status(&a).state, CARET_STATE_WAIT);
	ck_assert_int_eq(caret_own_read_filter(&a.seg, e2, &ft), 0);
	/* empty lists are no filter */
	struct caret_filter_lists empty = { { "", "", NULL, "" } };
	startend_start(&s, &r, &ON, 0, &empty, &o);
	ck_assert_int_eq(o.filtered, 0);
	sched_tick(&s, &r, &ON, t += 10 * MS);
	ck_assert_int_eq(caret_own_read_filter(&a.seg, CARET_EPOCH_OF(status(&a).grant), &ft), 0);
	drop_agent(&a);
}
END_TEST

/* A recording's filter, kept encoded, goes to the scheduler as it is
 * (startend_start_encoded): the input posted holds those bytes, the count
 * says the pass it begins has it, and the pass reads the lists back. */
START_TEST(start_with_a_recordings_encoded_filter)
{
	struct agent a;
	make_agent(&a, "se", 10);
	struct registry r = one(&a);
	struct sched s = freq_sched(100);
	struct sched_lttng none = { .any = false };
	struct caret_filter_lists f = { { [CARET_FILTER_IGNORE_NODES] = "/rec$" } };
	static struct caret_shm_filter enc;
	ck_assert_int_eq(caret_filter_encode(&f, &enc), 0);
	struct startend_out o;
	startend_start_encoded(&s, &r, &none, 0, &enc, &o);
	ck_assert_ptr_nonnull(o.reason);
	ck_assert_int_eq(o.filtered, 0);
	ck_assert_int_eq(o.ignored, 1);
	ck_assert_int_eq(s.n_in, 0);
	startend_start_encoded(&s, &r, &ON, 0, &enc, &o);
	ck_assert_ptr_null(o.reason);
	ck_assert_int_eq(o.applied, 1);
	ck_assert_int_eq(o.filtered, 1);
	ck_assert_int_eq(s.n_in, 1);
	ck_assert(s.in[0].filtered);
	ck_assert_int_eq(memcmp(&s.in[0].filter, &enc, sizeof(enc)), 0);
	sched_tick(&s, &r, &ON, 1000 * MS);
	struct caret_filter_text ft;
	ck_assert_int_eq(caret_own_read_filter(&a.seg, CARET_EPOCH_OF(status(&a).grant), &ft), 1);
	ck_assert_str_eq(ft.f.list[CARET_FILTER_IGNORE_NODES], "/rec$");
	/* none: an unfiltered Start */
	sched_tick(&s, &r, &OFF, 1010 * MS);
	startend_start_encoded(&s, &r, &ON, 0, NULL, &o);
	ck_assert_int_eq(o.filtered, 0);
	ck_assert(!s.in[0].filtered);
	drop_agent(&a);
}
END_TEST

static void count_hint(void *arg)
{
	(*(int *)arg)++;
}

/* Start and End are inputs of the tick (struct sched_input): counted when
 * posted, applied by the next tick (brought forward) before it moves any
 * agent itself, so a pass the tick would begin anyway has the Start's
 * filter and frequency; dropped if the sessions changed meanwhile. */
START_TEST(start_end_are_inputs_of_the_tick)
{
	struct agent a;
	make_agent(&a, "sin", 10);
	struct registry r = one(&a);
	struct sched s = freq_sched(100);
	int hints = 0;
	s.hint = count_hint;
	s.hint_arg = &hints;
	struct caret_filter_lists f = { { [CARET_FILTER_SELECT_NODES] = "/x$" } };
	struct caret_filter_text ft;
	struct startend_out o;
	int64_t t = 1000 * MS;
	startend_start(&s, &r, &ON, 250, &f, &o);
	ck_assert_ptr_null(o.reason);
	ck_assert_int_eq(o.applied, 1);
	ck_assert_int_eq(o.filtered, 1);
	ck_assert_int_eq(hints, 1);
	ck_assert_uint_eq(status(&a).state, CARET_STATE_WAIT); /* not before the tick */
	sched_tick(&s, &r, &ON, t);
	ck_assert_int_eq(s.n_in, 0);
	ck_assert_uint_eq(status(&a).state, CARET_STATE_PREPARE);
	uint32_t e = CARET_EPOCH_OF(status(&a).grant);
	ck_assert_int_eq(caret_own_read_filter(&a.seg, e, &ft), 1);
	ck_assert_str_eq(ft.f.list[CARET_FILTER_SELECT_NODES], "/x$");
	ck_assert_uint_eq(sched_agent_peek(&a)->start_frequency, 250);
	sched_tick(&s, &r, &OFF, t += 10 * MS);
	ck_assert_uint_eq(status(&a).state, CARET_STATE_WAIT);
	/* posted while a session was active, which ended before the tick */
	startend_start(&s, &r, &ON, 0, &f, &o);
	ck_assert_ptr_null(o.reason);
	sched_tick(&s, &r, &OFF, t += 10 * MS);
	ck_assert_int_eq(s.n_in, 0);
	ck_assert_uint_eq(status(&a).state, CARET_STATE_WAIT);
	e = CARET_EPOCH_OF(status(&a).grant);
	ck_assert_int_eq(caret_own_read_filter(&a.seg, e, &ft), 0);
	ck_assert_int_eq(caret_own_read_filter(&a.seg, e + 1, &ft), 0);
	/* the queue is bounded: one more is refused, with a reason */
	for (int i = 0; i < SCHED_INPUTS; i++) {
		startend_end(&s, &r, &OFF, &o);
		ck_assert_ptr_null(o.reason);
	}
	startend_end(&s, &r, &OFF, &o);
	ck_assert_ptr_nonnull(o.reason);
	ck_assert_int_eq(o.applied, 0);
	sched_tick(&s, &r, &OFF, t += 10 * MS);
	ck_assert_int_eq(s.n_in, 0);
	drop_agent(&a);
}
END_TEST

/* Seed 000's rules for a Start or End from another host (startend.c). */
START_TEST(remote_start_end_rules)
{
	struct agent a;
	make_agent(&a, "rse", 1000);
	struct registry r = one(&a);
	struct sched_lttng none = { .any = false }, one_active = { .any = true, .caret = true,
								   .ready = 1, .newest = 1 };
	struct startend_out o;
	int64_t t = 1000 * MS;
	/* Start and End are the tick's inputs (struct sched_input): the tick
	 * right after each applies it */
	struct sched s = { .cfg = { .pacing = PACING_ADAPTIVE, .frequency = 100,
				    .bandwidth = 1 << 30 } };
	/* Start with no active session: ignored, agent stays in WAIT */
	startend_start(&s, &r, &none, 100, NULL, &o);
	sched_tick(&s, &r, &none, t);
	ck_assert_ptr_nonnull(o.reason);
	ck_assert_int_eq(o.ignored, 1);
	ck_assert_uint_eq(status(&a).state, CARET_STATE_WAIT);
	/* with one: WAIT -> PREPARE, a new pass */
	startend_start(&s, &r, &one_active, 200, NULL, &o);
	sched_tick(&s, &r, &one_active, t);
	ck_assert_ptr_null(o.reason);
	ck_assert_int_eq(o.applied, 1);
	ck_assert_uint_eq(status(&a).state, CARET_STATE_PREPARE);
	ck_assert_uint_ne(CARET_EPOCH_OF(status(&a).grant), 0);
	/* a second Start finds it outside WAIT: left alone */
	uint32_t e = CARET_EPOCH_OF(status(&a).grant);
	startend_start(&s, &r, &one_active, 200, NULL, &o);
	sched_tick(&s, &r, &one_active, t);
	ck_assert_int_eq(o.applied, 0);
	ck_assert_int_eq(o.ignored, 1);
	ck_assert_uint_eq(CARET_EPOCH_OF(status(&a).grant), e);
	/* the Start's recording_frequency paces this pass even under adaptive
	 * pacing: 200 records/s for 0.1 s */
	sched_tick(&s, &r, &ON, t);
	tracepoints_on(&a);
	sched_tick(&s, &r, &ON, t += 100 * MS);
	ck_assert_uint_eq(granted(&a), 20);
	/* End while a session is active: ignored */
	startend_end(&s, &r, &one_active, &o);
	sched_tick(&s, &r, &one_active, t);
	ck_assert_ptr_nonnull(o.reason);
	ck_assert_uint_eq(status(&a).state, CARET_STATE_PREPARE);
	/* End with none: back to WAIT */
	startend_end(&s, &r, &none, &o);
	sched_tick(&s, &r, &none, t);
	ck_assert_ptr_null(o.reason);
	ck_assert_int_eq(o.applied, 1);
	ck_assert_uint_eq(status(&a).state, CARET_STATE_WAIT);
	ck_assert_uint_eq(sched_agent_peek(&a)->start_frequency, 0);
	drop_agent(&a);
}
END_TEST


START_TEST(progress_counts)
{
	struct agent a, b;
	make_agent(&a, "pa", 30);
	make_agent(&b, "pb", 50);
	struct registry r = two(&a, &b);
	struct sched s = freq_sched(100);
	sched_tick(&s, &r, &ON, 1000 * MS);
	ck_assert_int_eq(caret_drive_set_state(&a.seg, CARET_STATE_PREPARE, CARET_STATE_RECORD), 0);
	sched_agent(&a)->covered_serial = 1;
	tracepoints_on(&b);
	replayed(&b, 20);
	struct progress p;
	sched_progress(&r, &p);
	ck_assert_int_eq(p.total, 2);
	ck_assert_int_eq(p.recording, 1);
	ck_assert_uint_eq(p.records_done, 30 + 20);
	ck_assert_uint_eq(p.records_total, 80);
	char why[160];
	sched_reason(&b, why, sizeof(why));
	ck_assert_str_eq(why, "replaying: 20 of 50 records");
	/* an agent still starting counts for nothing */
	caret_own_set_state(&b.seg, CARET_STATE_UNINITIALIZED);
	sched_progress(&r, &p);
	ck_assert_int_eq(p.total, 1);
	drop_agent(&a);
	drop_agent(&b);
}
END_TEST

/* Seed 000: meta-information is recorded in each session. A session that
 * becomes active while an agent records gets a pass of its own, and the
 * agent keeps its runtime events (state RECORD) meanwhile. */
START_TEST(second_session_replays_again_in_record)
{
	struct agent a;
	make_agent(&a, "two", 20);
	struct registry r = one(&a);
	struct sched s = freq_sched(100000);
	int64_t t = 1000 * MS;
	sched_tick(&s, &r, &ON, t);
	tracepoints_on(&a);
	sched_tick(&s, &r, &ON, t += 10 * MS);
	replayed(&a, 20);
	sched_tick(&s, &r, &ON, t += 10 * MS);
	ck_assert_uint_eq(status(&a).state, CARET_STATE_RECORD);
	struct caret_seg_status st = status(&a);
	ck_assert(sched_complete(&r, &a, &st));
	uint32_t e1 = CARET_EPOCH_OF(st.grant);

	/* session 2 seen but not ready: no pass yet, yet not complete */
	struct sched_lttng two = { .any = true, .caret = true, .ready = 1, .newest = 2 };
	sched_tick(&s, &r, &two, t += 10 * MS);
	st = status(&a);
	ck_assert_uint_eq(CARET_EPOCH_OF(st.grant), e1);
	ck_assert(!sched_complete(&r, &a, &st));
	two.ready = 2;
	sched_tick(&s, &r, &two, t += 10 * MS);
	st = status(&a);
	ck_assert_uint_eq(st.state, CARET_STATE_RECORD); /* runtime events flow */
	ck_assert_uint_gt(CARET_EPOCH_OF(st.grant), e1);
	ck_assert(sched_busy(&r));
	tracepoints_on(&a);
	sched_tick(&s, &r, &two, t += 10 * MS);
	ck_assert_uint_eq(granted(&a), 20);
	replayed(&a, 20);
	sched_tick(&s, &r, &two, t += 10 * MS);
	st = status(&a);
	ck_assert_uint_eq(st.state, CARET_STATE_RECORD);
	ck_assert(sched_complete(&r, &a, &st));
	ck_assert(!sched_busy(&r));
	drop_agent(&a);
}
END_TEST

/* A session that becomes active during a replay restarts the pass; one
 * that does not enable ros2_caret events records without replay. */
START_TEST(prepare_restarts_and_session_without_caret)
{
	struct agent a;
	make_agent(&a, "rst", 20);
	struct registry r = one(&a);
	struct sched s = freq_sched(100);
	int64_t t = 1000 * MS;
	/* from WAIT no settling: the agent waits for its own tracepoints */
	struct sched_lttng fresh = { .any = true, .caret = true, .newest = 1 };
	sched_tick(&s, &r, &fresh, t);
	ck_assert_uint_eq(status(&a).state, CARET_STATE_PREPARE);
	uint32_t e1 = CARET_EPOCH_OF(status(&a).grant);
	struct sched_lttng two = { .any = true, .caret = true, .ready = 2, .newest = 2 };
	sched_tick(&s, &r, &two, t += 10 * MS);
	ck_assert_uint_eq(status(&a).state, CARET_STATE_PREPARE);
	ck_assert_uint_gt(CARET_EPOCH_OF(status(&a).grant), e1);
	sched_tick(&s, &r, &OFF, t += 10 * MS);
	ck_assert_uint_eq(status(&a).state, CARET_STATE_WAIT);

	struct sched_lttng ros2 = { .any = true };
	sched_tick(&s, &r, &ros2, t += 10 * MS);
	struct caret_seg_status st = status(&a);
	ck_assert_uint_eq(st.state, CARET_STATE_RECORD);
	ck_assert(sched_complete(&r, &a, &st));
	drop_agent(&a);
}
END_TEST


int main(void)
{
	Suite *s = suite_create("daemon");
	TCase *t = unit_case(s, "scheduler", second_session_replays_again_in_record,
			     prepare_restarts_and_session_without_caret, start_and_end,
			     remote_start_end_rules, start_end_are_inputs_of_the_tick,
			     start_filter_goes_with_its_pass, start_with_a_recordings_encoded_filter,
			     progress_counts, scoped_session_sees_one_uid);
	add_pacing_tests(t);
	add_restart_tests(t);
	add_registry_tests(s, t);
	return unit_run(s);
}
