/* SPDX-License-Identifier: Apache-2.0 */
/* caretd killed inside a replay pass and restarted, against real
 * segments: inside the replay start, and during an extra pass whose cut
 * the records' claim words tell (sched_pass.c sched_pass_cut). Part of
 * check_daemon. */
#include <check.h>
#include <string.h>

#include "daemon/agents/registry.h"
#include "daemon/agents/scheduler.h"
#include "tests/unit/daemon_fixture.h"

/* caretd killed inside the replay start, after its first write (the new
 * epoch; caret_drive_begin_replay writes PREPARE second): a restarted caretd
 * replays the whole cache again, it never moves the agent to RECORD on
 * the finished pass's cursor. */
START_TEST(restart_inside_replay_start)
{
	struct agent a;
	make_agent(&a, "rs", 10);
	/* a finished pass 3, back in WAIT (the agent's moves through shm's
	 * owner half); then the first write of pass 4, the new epoch */
	caret_own_begin_pass(&a.seg, 3);
	caret_own_tp_enabled(&a.seg, 3);
	caret_own_advance(&a.seg, 3, 10, 10);
	caret_drive_grant(&a.seg, 4, 0);
	ck_assert_uint_eq(status(&a).state, CARET_STATE_WAIT);
	struct registry r = one(&a); /* a restarted caretd: fresh bookkeeping */
	struct sched s = freq_sched(1000);
	int64_t t = 1000 * MS;
	sched_tick(&s, &r, &ON, t);
	ck_assert_uint_eq(status(&a).state, CARET_STATE_PREPARE);
	ck_assert_uint_eq(CARET_EPOCH_OF(status(&a).grant), 5);
	tracepoints_on(&a);
	for (int i = 0; i < 5; i++)
		sched_tick(&s, &r, &ON, t += 100 * MS);
	ck_assert_uint_eq(status(&a).state, CARET_STATE_PREPARE); /* nothing replayed yet */
	replayed(&a, 10);
	sched_tick(&s, &r, &ON, t += 10 * MS);
	ck_assert_uint_eq(status(&a).state, CARET_STATE_RECORD);
	drop_agent(&a);
}
END_TEST

/* Replays n records of pass `epoch` as the agent does: each claimed (the
 * claim words of proto/caret_segment.h), then the cursor advanced. */
static void replay_claimed(struct agent *a, uint32_t epoch, uint32_t n)
{
	uint64_t off = 0;
	struct caret_rec_view v;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t at = off;
		ck_assert_int_eq(caret_own_next_record(&a->seg, &off, &v), 1);
		caret_own_claim_replay(&a->seg, at, epoch);
	}
	struct caret_seg_status st = status(a);
	uint32_t before = sched_done_in(&st, epoch);
	caret_own_advance(&a->seg, epoch, n, n > before ? n - before : 0);
}

/* The agent as a restarted caretd's registry finds it: the same segment,
 * none of the old caretd's bookkeeping. */
static struct agent adopted(const struct agent *a)
{
	struct agent b = { 0 };
	b.seg = a->seg;
	b.pid = a->pid;
	memcpy(b.procname, a->procname, sizeof(b.procname));
	return b;
}

/* caretd killed (-9) during a second session's extra pass and restarted:
 * the agent is found in RECORD, but records the cut pass never reached
 * would be missing from the second session for good. Its claim words say
 * so: a new pass. An agent whose pass had finished gets none. */
START_TEST(adopted_after_a_cut_extra_pass)
{
	for (int complete = 0; complete < 2; complete++) {
		struct agent a;
		make_agent(&a, complete ? "whole" : "cut", 20);
		struct registry r = one(&a);
		struct sched s = freq_sched(100000);
		int64_t t = 1000 * MS;
		sched_tick(&s, &r, &ON, t);
		tracepoints_on(&a);
		sched_tick(&s, &r, &ON, t += 10 * MS);
		uint32_t e1 = CARET_EPOCH_OF(status(&a).grant);
		replay_claimed(&a, e1, 20);
		sched_tick(&s, &r, &ON, t += 10 * MS);
		ck_assert_uint_eq(status(&a).state, CARET_STATE_RECORD);

		const struct sched_lttng two = { .any = true, .caret = true, .ready = 2, .newest = 2 };
		sched_tick(&s, &r, &two, t += 10 * MS);
		uint32_t e2 = CARET_EPOCH_OF(status(&a).grant);
		ck_assert_uint_gt(e2, e1);
		tracepoints_on(&a);
		sched_tick(&s, &r, &two, t += 10 * MS);
		replay_claimed(&a, e2, complete ? 20 : 8); /* then caretd dies */

		struct agent b = adopted(&a);
		struct registry r2 = one(&b);
		struct sched s2 = freq_sched(100000);
		sched_tick(&s2, &r2, &two, t += 10 * MS);
		struct caret_seg_status st = status(&b);
		ck_assert_uint_eq(st.state, CARET_STATE_RECORD); /* runtime events flow on */
		if (complete) {
			ck_assert_uint_eq(CARET_EPOCH_OF(st.grant), e2);
			ck_assert(!sched_agent_peek(&b)->extra_pass);
		} else {
			ck_assert_uint_gt(CARET_EPOCH_OF(st.grant), e2);
			ck_assert(sched_agent_peek(&b)->extra_pass);
		}
		agent_state_free(&b);
		drop_agent(&a);
	}
}
END_TEST

void add_restart_tests(TCase *t)
{
	tcase_add_test(t, restart_inside_replay_start);
	tcase_add_test(t, adopted_after_a_cut_extra_pass);
}
