/* SPDX-License-Identifier: Apache-2.0 */
/* The scheduler's pacing against real segments: a fixed frequency, the
 * grant capped by the cache, and adaptive pacing's shares of a byte budget
 * or of the pacer's room. Part of check_daemon. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>

#include "daemon/agents/registry.h"
#include "daemon/agents/scheduler.h"
#include "tests/unit/daemon_fixture.h"

START_TEST(frequency_pacing)
{
	struct agent a;
	make_agent(&a, "fq", 1000);
	struct registry r = one(&a);
	struct sched s = freq_sched(100);
	int64_t t = 1000 * MS;
	sched_tick(&s, &r, &ON, t);
	tracepoints_on(&a);
	/* 100 records/s for 0.1 s */
	sched_tick(&s, &r, &ON, t += 100 * MS);
	ck_assert_uint_eq(granted(&a), 10);
	sched_tick(&s, &r, &ON, t += 50 * MS);
	ck_assert_uint_eq(granted(&a), 15);
	/* fractions carry over: 15/s for 0.1 s is 1.5, so 1 then 2 */
	s.cfg.frequency = 15;
	sched_tick(&s, &r, &ON, t += 100 * MS);
	ck_assert_uint_eq(granted(&a), 16);
	sched_tick(&s, &r, &ON, t += 100 * MS);
	ck_assert_uint_eq(granted(&a), 18);
	/* after a stall the step is capped at 0.5 s: no burst */
	s.cfg.frequency = 100;
	sched_tick(&s, &r, &ON, t += 10000 * MS);
	ck_assert_uint_eq(granted(&a), 68);
	drop_agent(&a);
}
END_TEST

START_TEST(grant_capped_then_record)
{
	struct agent a;
	make_agent(&a, "cap", 20);
	struct registry r = one(&a);
	struct sched s = freq_sched(100000);
	int64_t t = 1000 * MS;
	sched_tick(&s, &r, &ON, t);
	tracepoints_on(&a);
	sched_tick(&s, &r, &ON, t += 100 * MS);
	ck_assert_uint_eq(granted(&a), 20); /* never beyond the cache */
	ck_assert(sched_busy(&r));
	replayed(&a, 19);
	sched_tick(&s, &r, &ON, t += 10 * MS);
	ck_assert_uint_eq(status(&a).state, CARET_STATE_PREPARE);
	replayed(&a, 20);
	sched_tick(&s, &r, &ON, t += 10 * MS);
	ck_assert_uint_eq(status(&a).state, CARET_STATE_RECORD);
	ck_assert(!sched_busy(&r));
	/* End */
	sched_tick(&s, &r, &OFF, t += 10 * MS);
	ck_assert_uint_eq(status(&a).state, CARET_STATE_WAIT);
	drop_agent(&a);
}
END_TEST

START_TEST(adaptive_pacing_shares_bandwidth)
{
	struct agent a, b;
	make_agent(&a, "ada", 1000);
	make_agent(&b, "adb", 1000);
	struct registry r = two(&a, &b);
	uint64_t rec = status(&a).tail / 1000; /* bytes per cached record */
	uint64_t per_event = rec + 32;         /* plus LTTng's header and contexts */
	struct sched s = { .cfg = { .pacing = PACING_ADAPTIVE, .bandwidth = per_event * 400 } };
	int64_t t = 1000 * MS;
	sched_tick(&s, &r, &ON, t);
	tracepoints_on(&a);
	tracepoints_on(&b);
	/* 0.5 s of a 400-event/s budget: below SCHED_MIN_GRANT, so one
	 * replay takes it all at this tick, the other at the next */
	ck_assert_uint_lt(per_event * 200, SCHED_MIN_GRANT);
	sched_tick(&s, &r, &ON, t += 500 * MS);
	ck_assert_uint_eq(granted(&a) + granted(&b), 200);
	ck_assert(granted(&a) == 0 || granted(&b) == 0);
	sched_tick(&s, &r, &ON, t += 500 * MS);
	ck_assert_uint_eq(granted(&a), 200);
	ck_assert_uint_eq(granted(&b), 200);
	/* one replay done: the other gets the whole budget */
	ck_assert_int_eq(caret_drive_set_state(&a.seg, CARET_STATE_PREPARE, CARET_STATE_RECORD), 0);
	sched_agent(&a)->covered_serial = 1;
	sched_tick(&s, &r, &ON, t += 500 * MS);
	ck_assert_uint_eq(granted(&b), 400);
	/* a budget below one event still moves: one record per tick */
	s.cfg.bandwidth = 1;
	sched_tick(&s, &r, &ON, t += 10 * MS);
	ck_assert_uint_eq(granted(&b), 401);
	drop_agent(&a);
	drop_agent(&b);
}
END_TEST

/* Many replays and room for a few turns: each tick wakes at most
 * room / SCHED_MIN_GRANT agents, never grants beyond the room, and every
 * replay gets its turn within a few ticks. */
START_TEST(adaptive_pacing_grants_in_turns)
{
	enum { N = 40, SLOTS = 8 };
	static struct agent ag[N];
	struct registry r = make_agents(ag, N, "turn", 2000);
	struct sched s = { .cfg = { .pacing = PACING_ADAPTIVE, .bandwidth = UINT64_MAX / 4 } };
	int64_t t = 1000 * MS;
	sched_tick(&s, &r, &ON, t);
	for (int i = 0; i < N; i++)
		tracepoints_on(&ag[i]);
	uint32_t before[N];
	int turns[N] = { 0 };
	s.room_known = true;
	for (int tick = 0; tick < N / SLOTS; tick++) {
		for (int i = 0; i < N; i++)
			before[i] = granted(&ag[i]);
		uint64_t g0 = s.granted_bytes;
		s.room = (uint64_t)SLOTS * SCHED_MIN_GRANT;
		sched_tick(&s, &r, &ON, t += 1 * MS);
		int woken = 0;
		for (int i = 0; i < N; i++)
			if (granted(&ag[i]) != before[i]) {
				woken++;
				turns[i]++;
			}
		ck_assert_int_eq(woken, SLOTS);
		ck_assert_uint_le(s.granted_bytes - g0, s.room);
		ck_assert_uint_gt(s.granted_bytes - g0, s.room - (uint64_t)SLOTS * 200);
	}
	for (int i = 0; i < N; i++)
		ck_assert_msg(turns[i] == 1, "agent %d had %d turns in %d ticks", i, turns[i],
			      N / SLOTS);
	drop_agents(ag, N);
}
END_TEST

/* Room for a turn and most of another (64 KiB sub-buffers: a window of
 * 192 KiB, about 120 KiB of it free at a tick): the remainder is a second,
 * smaller turn, not left for the next tick (bench P7 (b)). */
START_TEST(adaptive_pacing_grants_the_remainder)
{
	enum { N = 6 };
	static struct agent ag[N];
	struct registry r = make_agents(ag, N, "rem", 5000);
	struct sched s = { .cfg = { .pacing = PACING_ADAPTIVE, .bandwidth = UINT64_MAX / 4 } };
	int64_t t = 1000 * MS;
	sched_tick(&s, &r, &ON, t);
	for (int i = 0; i < N; i++)
		tracepoints_on(&ag[i]);
	s.room_known = true;
	s.room = SCHED_MIN_GRANT + SCHED_MIN_GRANT * 4 / 5;
	uint64_t g0 = s.granted_bytes;
	sched_tick(&s, &r, &ON, t += 1 * MS);
	int woken = 0;
	for (int i = 0; i < N; i++)
		woken += granted(&ag[i]) != 0;
	ck_assert_int_eq(woken, 2);
	ck_assert_uint_le(s.granted_bytes - g0, s.room);
	ck_assert_msg(s.granted_bytes - g0 > s.room - 200,
		      "granted %llu of a room of %llu: the remainder waited for the next tick",
		      (unsigned long long)(s.granted_bytes - g0), (unsigned long long)s.room);
	drop_agents(ag, N);
}
END_TEST

/* Feedback pacing: the pacer's room replaces the byte budget, and the
 * grants never exceed it, even when a share would round up to a record. */
START_TEST(adaptive_pacing_room_caps_grants)
{
	struct agent a, b;
	make_agent(&a, "ra", 1000);
	make_agent(&b, "rb", 1000);
	struct registry r = two(&a, &b);
	struct caret_seg_status st = status(&a);
	uint64_t per_event = sched_record_bytes(&st);
	struct sched s = { .cfg = { .pacing = PACING_ADAPTIVE, .bandwidth = UINT64_MAX / 4 } };
	int64_t t = 1000 * MS;
	sched_tick(&s, &r, &ON, t);
	tracepoints_on(&a);
	tracepoints_on(&b);
	s.room_known = true;
	s.room = per_event * 100;
	sched_tick(&s, &r, &ON, t += 10 * MS);
	/* less than SCHED_MIN_GRANT: one replay's turn */
	ck_assert_uint_eq(granted(&a) + granted(&b), 100);
	ck_assert_uint_eq(s.granted_bytes, per_event * 100);
	/* a full buffer: nothing more, not even one record each */
	s.room = 0;
	sched_tick(&s, &r, &ON, t += 10 * MS);
	ck_assert_uint_eq(granted(&a) + granted(&b), 100);
	/* room for one record: the first replay gets it, the second waits */
	s.room = per_event + per_event / 2;
	sched_tick(&s, &r, &ON, t += 10 * MS);
	ck_assert_uint_eq(granted(&a) + granted(&b), 101);
	ck_assert_uint_eq(s.granted_bytes, per_event * 101);
	drop_agent(&a);
	drop_agent(&b);
}
END_TEST

void add_pacing_tests(TCase *t)
{
	tcase_add_test(t, frequency_pacing);
	tcase_add_test(t, grant_capped_then_record);
	tcase_add_test(t, adaptive_pacing_shares_bandwidth);
	tcase_add_test(t, adaptive_pacing_grants_in_turns);
	tcase_add_test(t, adaptive_pacing_room_caps_grants);
	tcase_add_test(t, adaptive_pacing_grants_the_remainder);
}
