/* SPDX-License-Identifier: Apache-2.0 */
/* The shm library's half of the handshake between a controller and an
 * agent (proto/caret_segment.h): checked state moves, the replay words,
 * the records' claims (exactly once, under a race), and a replay start
 * that a caretd killed at any store leaves whole. Part of check_shm. */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "shm/caret_shm.h"
#include "tests/unit/shm_fixture.h"

/* A controller moves `state` only from the state it read: a move decided
 * on a state the agent (or another controller) changed meanwhile is
 * refused and changes nothing. */
START_TEST(test_state_moves_checked)
{
	make_seg(1 << 20);
	/* the agent has not written its identity yet: nothing moves it */
	ck_assert_int_eq(caret_drive_set_state(&seg, CARET_STATE_WAIT, CARET_STATE_RECORD), -ESTALE);
	ck_assert_int_eq(caret_drive_begin_replay(&seg, CARET_STATE_WAIT), -ESTALE);
	ck_assert_uint_eq(caret_seg_state(&seg), CARET_STATE_UNINITIALIZED);
	ck_assert_uint_eq(seg.shared_hdr->grant, 0); /* no epoch used up */

	/* read WAIT; the agent then starts recording by itself (a session
	 * already records it): the Start decided on WAIT is refused */
	caret_own_set_state(&seg, CARET_STATE_WAIT);
	caret_own_set_state(&seg, CARET_STATE_RECORD);
	ck_assert_int_eq(caret_drive_begin_replay(&seg, CARET_STATE_WAIT), -ESTALE);
	ck_assert_int_eq(caret_drive_set_state(&seg, CARET_STATE_WAIT, CARET_STATE_RECORD), -ESTALE);
	ck_assert_uint_eq(caret_seg_state(&seg), CARET_STATE_RECORD);
	ck_assert_uint_eq(seg.shared_hdr->grant, 0);
	/* only WAIT or PREPARE start a replay (RECORD replays with begin_pass) */
	ck_assert_int_eq(caret_drive_begin_replay(&seg, CARET_STATE_RECORD), -EINVAL);

	/* a pass with a filter; an End decided on RECORD comes while the
	 * state is PREPARE: refused, and the pass keeps its filter */
	ck_assert_int_eq(caret_drive_set_state(&seg, CARET_STATE_RECORD, CARET_STATE_WAIT), 0);
	struct caret_filter_lists f = { { "/a", NULL, NULL, NULL } };
	int64_t e = caret_drive_stage_filter(&seg, &f);
	ck_assert_int_eq(caret_drive_begin_replay(&seg, CARET_STATE_WAIT), e);
	struct caret_filter_text ft;
	ck_assert_int_eq(caret_drive_set_state(&seg, CARET_STATE_RECORD, CARET_STATE_WAIT), -ESTALE);
	ck_assert_uint_eq(caret_seg_state(&seg), CARET_STATE_PREPARE);
	ck_assert_int_eq(caret_own_read_filter(&seg, (uint32_t)e, &ft), 1);
	ck_assert_uint_eq(*caret_own_filter_word(&seg), (uint32_t)e);
	/* the move from the state it is in goes through */
	ck_assert_int_eq(caret_drive_set_state(&seg, CARET_STATE_PREPARE, CARET_STATE_RECORD), 0);
	ck_assert_uint_eq(caret_seg_state(&seg), CARET_STATE_RECORD);
	drop_seg();
}
END_TEST

START_TEST(test_replay_handshake_words)
{
	make_seg(1 << 20);
	caret_own_set_state(&seg, CARET_STATE_WAIT);
	int64_t e1 = caret_drive_begin_replay(&seg, CARET_STATE_WAIT);
	ck_assert_int_eq(e1, 1);
	ck_assert_uint_eq(seg.shared_hdr->state, CARET_STATE_PREPARE);
	ck_assert_uint_eq(seg.shared_hdr->grant, CARET_EPOCH_COUNT(1, 0));
	uint32_t bell = seg.shared_hdr->doorbell;
	caret_drive_grant(&seg, 1, 500);
	ck_assert_uint_eq(CARET_COUNT_OF(seg.shared_hdr->grant), 500);
	ck_assert_uint_eq(CARET_EPOCH_OF(seg.shared_hdr->grant), 1);
	ck_assert_uint_eq(seg.shared_hdr->doorbell, bell + 1);
	ck_assert_int_eq(caret_drive_begin_replay(&seg, CARET_STATE_PREPARE), 2);
	ck_assert_uint_eq(CARET_COUNT_OF(seg.shared_hdr->grant), 0);
	/* a wait on an unchanged word times out instead of hanging */
	int64_t t0 = caret_now_ns();
	ck_assert_int_eq(caret_drive_wait_progress(&seg, seg.shared_hdr->progress, 20), -ETIMEDOUT);
	ck_assert_int_ge(caret_now_ns() - t0, 15000000);
	drop_seg();
}
END_TEST

/* Both halves of the handshake (proto/caret_segment.h's diagram), the agent's
 * through shm/owner.c as the replay thread does it. */
START_TEST(test_replay_handshake_both_sides)
{
	make_seg(1 << 20);
	for (int i = 0; i < 5; i++) {
		union caret_arg a[] = { CARET_P(0x100 + i) };
		ck_assert_int_eq(caret_seg_append(&seg, CARET_KIND_rcl_init, i, a), 0);
	}
	struct caret_own_view v;
	caret_own_read(&seg, &v);
	ck_assert_uint_eq(v.epoch, 0);
	uint32_t bell = v.doorbell;
	/* 1. ctl opens a pass */
	caret_own_set_state(&seg, CARET_STATE_WAIT);
	uint32_t e = (uint32_t)caret_drive_begin_replay(&seg, CARET_STATE_WAIT);
	caret_own_read(&seg, &v);
	ck_assert_uint_ne(v.doorbell, bell);
	ck_assert_uint_eq(v.epoch, e);
	ck_assert_uint_eq(v.count, 0);
	ck_assert_uint_eq(caret_own_grant_epoch(&seg), e);
	struct caret_seg_status st;
	caret_seg_read_status(&seg, &st);
	uint32_t progress = st.progress;
	/* 2. agent starts it, 3. sees its tracepoints */
	caret_own_begin_pass(&seg, e);
	caret_own_tp_timeout(&seg);
	caret_seg_read_status(&seg, &st);
	ck_assert_uint_eq(st.cursor, CARET_EPOCH_COUNT(e, 0));
	ck_assert(st.agent_flags & CARET_AGENT_TP_TIMEOUT);
	ck_assert_uint_eq(st.progress, progress + 2);
	caret_own_tp_enabled(&seg, e);
	caret_seg_read_status(&seg, &st);
	ck_assert_uint_eq(st.tp_enabled_epoch, e);
	ck_assert(!(st.agent_flags & CARET_AGENT_TP_TIMEOUT));
	/* a controller sleeping on progress wakes at once: it changed */
	ck_assert_int_eq(caret_drive_wait_progress(&seg, progress, 1000), 0);
	/* 4. ctl grants 3, 5. agent replays them */
	caret_drive_grant(&seg, e, 3);
	caret_own_read(&seg, &v);
	ck_assert_uint_eq(v.count, 3);
	uint64_t off = 0;
	struct caret_rec_view rec;
	uint32_t done = 0;
	while (done < v.count && caret_own_next_record(&seg, &off, &rec) == 1) {
		ck_assert_uint_eq(rec.args[0].u, 0x100 + done);
		done++;
	}
	caret_own_advance(&seg, e, done, done);
	caret_seg_read_status(&seg, &st);
	ck_assert_uint_eq(st.cursor, CARET_EPOCH_COUNT(e, 3));
	ck_assert_uint_eq(st.replayed, 3);
	caret_own_set_flags(&seg, CARET_AGENT_REPLAY_THREAD, 0);
	caret_seg_read_status(&seg, &st);
	ck_assert_uint_eq(st.agent_flags, CARET_AGENT_REPLAY_THREAD);
	drop_seg();
}
END_TEST

/* The exactly-once claims (proto/caret_segment.h), state by state: who
 * emits a record, its own thread (live) or a pass. */
START_TEST(test_claims_by_state)
{
	make_seg(1 << 20);
	union caret_arg a[] = { CARET_P(1) };
	uint64_t at[8];
	caret_own_set_state(&seg, CARET_STATE_WAIT);
	ck_assert_int_eq(caret_seg_append_at(&seg, CARET_KIND_rcl_init, 1, a, &at[0]), 0);
	ck_assert_uint_eq(at[0], 0);
	ck_assert(!caret_own_claim_live(&seg, at[0])); /* WAIT: the pass's */
	uint32_t e = (uint32_t)caret_drive_begin_replay(&seg, CARET_STATE_WAIT);
	ck_assert_int_eq(caret_seg_append_at(&seg, CARET_KIND_rcl_init, 2, a, &at[1]), 0);
	ck_assert_uint_gt(at[1], at[0]);
	ck_assert(!caret_own_claim_live(&seg, at[1])); /* PREPARE, tracepoints not seen */
	caret_own_begin_pass(&seg, e);
	caret_own_tp_enabled(&seg, e);
	ck_assert_int_eq(caret_seg_append_at(&seg, CARET_KIND_rcl_init, 3, a, &at[2]), 0);
	ck_assert(caret_own_claim_live(&seg, at[2])); /* PREPARE, seen: live */
	ck_assert(!caret_own_claim_live(&seg, at[2])); /* once */
	/* the pass: the first two are its, the live one is skipped */
	ck_assert(caret_own_claim_replay(&seg, at[0], e));
	ck_assert(caret_own_claim_replay(&seg, at[1], e));
	ck_assert(!caret_own_claim_replay(&seg, at[2], e));
	ck_assert(!caret_own_claim_replay(&seg, at[0], e)); /* once per pass */
	/* a live emitter that comes after the replay does not emit it again */
	ck_assert(!caret_own_claim_live(&seg, at[0]));
	ck_assert_int_eq(caret_drive_set_state(&seg, CARET_STATE_PREPARE, CARET_STATE_RECORD), 0);
	ck_assert_int_eq(caret_seg_append_at(&seg, CARET_KIND_rcl_init, 4, a, &at[3]), 0);
	ck_assert(caret_own_claim_live(&seg, at[3])); /* RECORD */
	/* a pass for a newer session while recording replays every record,
	 * the live ones of before it too, but not one live since it began */
	uint32_t e2 = (uint32_t)caret_drive_begin_pass(&seg);
	ck_assert_uint_eq(e2, e + 1);
	ck_assert_int_eq(caret_seg_append_at(&seg, CARET_KIND_rcl_init, 5, a, &at[4]), 0);
	ck_assert(caret_own_claim_live(&seg, at[4]));
	for (int i = 0; i < 4; i++)
		ck_assert(caret_own_claim_replay(&seg, at[i], e2));
	ck_assert(!caret_own_claim_replay(&seg, at[4], e2));
	/* a pass that is behind a live claim of a newer one skips it too */
	ck_assert(!caret_own_claim_replay(&seg, at[4], e));
	/* the claim is the agent's: an attached reader ignores it */
	struct caret_rec_hdr *h = (void *)(seg.area + at[1]);
	h->claim = UINT64_MAX;
	uint64_t off = 0, n = 0;
	struct caret_rec_view v;
	while (caret_rec_next(seg.area, seg.area_cap, &off, &v) == 1)
		n++;
	ck_assert_uint_eq(n, 5);
	drop_seg();
}
END_TEST

/*
 * The claims under races: application threads make records all the time
 * while a controller and a replay thread run a pass from WAIT (the
 * session's tracepoints on), PREPARE -> RECORD, and a second pass while
 * recording. Counted per record: live emissions for the first session
 * only (claimed for epoch <= 1), live ones for both (claimed for the
 * second pass's epoch, opened when the second session was on), and the
 * replays of each pass. The second session gets each record once; the
 * first once from its own pass and the live emissions, each record made
 * before the second pass opened.
 */
enum { RACE_THREADS = 3, RACE_MAX = 60000 };
static struct {
	uint8_t live1[RACE_THREADS * RACE_MAX], live2[RACE_THREADS * RACE_MAX];
	uint8_t pass1[RACE_THREADS * RACE_MAX], pass2[RACE_THREADS * RACE_MAX];
	uint8_t before[RACE_THREADS * RACE_MAX];
	uint32_t made[RACE_THREADS];
	int posted2, stop_emit, stop_agent;
} race;

static void *race_emitter(void *arg)
{
	uintptr_t t = (uintptr_t)arg;
	uint32_t i;
	for (i = 0; i < RACE_MAX && !__atomic_load_n(&race.stop_emit, __ATOMIC_ACQUIRE); i++) {
		uint32_t id = (uint32_t)t * RACE_MAX + i;
		union caret_arg a[] = { CARET_P(id), CARET_I(i) };
		uint64_t at;
		ck_assert_int_eq(caret_seg_append_at(&seg, CARET_KIND_rcl_timer_init, 1, a, &at), 0);
		if (caret_own_claim_live(&seg, at)) {
			uint64_t c = ((struct caret_rec_hdr *)(seg.area + at))->claim;
			__atomic_fetch_add(c <= 2 ? &race.live1[id] : &race.live2[id], 1,
					   __ATOMIC_RELAXED);
		}
		race.before[id] = !__atomic_load_n(&race.posted2, __ATOMIC_SEQ_CST);
		if (i % 8 == 0)
			usleep(200);
	}
	race.made[t] = i;
	return NULL;
}

/* replay.c's loop, without the provider (tracepoints "enabled" after a
 * while) and polling instead of sleeping on the doorbell */
static void *race_agent(void *arg)
{
	(void)arg;
	uint32_t epoch = 0, done = 0;
	uint64_t off = 0;
	while (!__atomic_load_n(&race.stop_agent, __ATOMIC_ACQUIRE)) {
		struct caret_own_view v;
		caret_own_read(&seg, &v);
		if (v.epoch != 0 && v.epoch != epoch) {
			epoch = v.epoch;
			done = 0;
			off = 0;
			caret_own_begin_pass(&seg, epoch);
		}
		if (epoch != 0 && v.tp_enabled_epoch != epoch) {
			usleep(3000);
			caret_own_tp_enabled(&seg, epoch);
			continue;
		}
		uint32_t walked = 0, n = 0;
		uint64_t at = off;
		struct caret_rec_view rec;
		while (epoch && done < v.count && caret_own_next_record(&seg, &off, &rec) == 1) {
			if (caret_own_claim_replay(&seg, at, epoch)) {
				uint8_t *c = epoch == 1 ? race.pass1 : race.pass2;
				__atomic_fetch_add(&c[rec.args[0].u], 1, __ATOMIC_RELAXED);
				n++;
			}
			at = off;
			done++;
			walked++;
		}
		if (walked)
			caret_own_advance(&seg, epoch, done, n);
		usleep(50);
	}
	return NULL;
}

/* caretd's scheduler for one agent: grants up to `records`, complete
 * when the cursor reaches it. */
static void race_pass(uint32_t e, bool to_record)
{
	for (;;) {
		struct caret_seg_status st;
		caret_seg_read_status(&seg, &st);
		if (st.tp_enabled_epoch == e) {
			uint32_t done = CARET_EPOCH_OF(st.cursor) == e ? CARET_COUNT_OF(st.cursor) : 0;
			if (done >= st.records) {
				if (to_record)
					ck_assert_int_eq(caret_drive_set_state(&seg, CARET_STATE_PREPARE,
									       CARET_STATE_RECORD), 0);
				return;
			}
			if (CARET_COUNT_OF(st.grant) != st.records)
				caret_drive_grant(&seg, e, (uint32_t)st.records);
		}
		usleep(100);
	}
}

START_TEST(test_claims_race)
{
	make_seg(64 << 20);
	memset(&race, 0, sizeof(race));
	caret_own_set_state(&seg, CARET_STATE_WAIT);
	pthread_t em[RACE_THREADS], ag;
	pthread_create(&ag, NULL, race_agent, NULL);
	for (uintptr_t i = 0; i < RACE_THREADS; i++)
		pthread_create(&em[i], NULL, race_emitter, (void *)i);
	while (__atomic_load_n(&seg.shared_hdr->records, __ATOMIC_ACQUIRE) < 500)
		usleep(100);
	int64_t e1 = caret_drive_begin_replay(&seg, CARET_STATE_WAIT);
	ck_assert_int_eq(e1, 1);
	race_pass(1, true);
	usleep(5000);
	__atomic_store_n(&race.posted2, 1, __ATOMIC_SEQ_CST);
	ck_assert_int_eq(caret_drive_begin_pass(&seg), 2);
	race_pass(2, false);
	usleep(5000);
	__atomic_store_n(&race.stop_emit, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < RACE_THREADS; i++)
		pthread_join(em[i], NULL);
	__atomic_store_n(&race.stop_agent, 1, __ATOMIC_RELEASE);
	pthread_join(ag, NULL);
	uint32_t total = 0, lives = 0, replays = 0, before = 0;
	for (uint32_t t = 0; t < RACE_THREADS; t++) {
		for (uint32_t i = 0; i < race.made[t]; i++) {
			uint32_t id = t * RACE_MAX + i;
			ck_assert_msg(race.live2[id] + race.pass2[id] == 1,
				      "record %u: %u live, %u replayed in the second session", id,
				      race.live2[id], race.pass2[id]);
			ck_assert_msg(race.live1[id] + race.pass1[id] <= 1,
				      "record %u: %u live, %u replayed in the first session", id,
				      race.live1[id], race.pass1[id]);
			if (race.before[id]) {
				ck_assert_msg(race.live1[id] + race.pass1[id] == 1,
					      "record %u made before the second pass: %u live, %u "
					      "replayed", id, race.live1[id], race.pass1[id]);
				before++;
			}
			lives += race.live1[id] + race.live2[id];
			replays += race.pass1[id];
			total++;
		}
	}
	/* every case was there: records of WAIT and PREPARE replayed, live
	 * ones, and records made during the second pass */
	ck_assert_uint_gt(replays, 500);
	ck_assert_uint_gt(lives, 100);
	ck_assert_uint_gt(total - before, 100);
	drop_seg();
}
END_TEST

/* The replay start is one step for the agent (and for a caretd restarted
 * between its writes): whoever sees PREPARE sees the new pass's epoch, never
 * the finished pass before it (whose cursor says "all done"). */
static struct {
	uint32_t expect;
	int stop;
	long seen_prepare, stale;
} obs;

static void *observer(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&obs.stop, __ATOMIC_ACQUIRE)) {
		uint32_t k = __atomic_load_n(&obs.expect, __ATOMIC_ACQUIRE);
		uint32_t st = __atomic_load_n(&seg.shared_hdr->state, __ATOMIC_ACQUIRE);
		uint64_t g = __atomic_load_n(&seg.shared_hdr->grant, __ATOMIC_ACQUIRE);
		if (st == CARET_STATE_PREPARE) {
			obs.seen_prepare++;
			if (CARET_EPOCH_OF(g) < k)
				obs.stale++;
		}
	}
	return NULL;
}

START_TEST(test_replay_start_is_one_step)
{
	make_seg(1 << 20);
	pthread_t t;
	memset(&obs, 0, sizeof(obs));
	ck_assert_int_eq(pthread_create(&t, NULL, observer, NULL), 0);
	for (uint32_t i = 1; i <= 300000; i++) {
		/* the previous pass finished: all granted, all done */
		caret_drive_grant(&seg, i - 1, 100);
		__atomic_store_n(&seg.shared_hdr->state, CARET_STATE_WAIT, __ATOMIC_RELEASE);
		__atomic_store_n(&obs.expect, i, __ATOMIC_RELEASE);
		ck_assert_int_eq(caret_drive_begin_replay(&seg, CARET_STATE_WAIT), i);
	}
	__atomic_store_n(&obs.stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	ck_assert_int_gt(obs.seen_prepare, 0);
	ck_assert_msg(obs.stale == 0, "%ld of %ld PREPARE with the old epoch", obs.stale,
		      obs.seen_prepare);
	drop_seg();
}
END_TEST


#if defined(__x86_64__)
/* Deterministic: the header page is made read-only, every store of the
 * replay start faults, the handler lets that one store through with the
 * trap flag set, and the trap after it looks at the header, as a caretd
 * killed right there would leave it, then write-protects the page again. */
static struct {
	uint8_t *page;
	uint32_t old_epoch;
	int stores, stale;
} wp;

static void wp_segv(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	uint8_t *a = si->si_addr;
	if (a < wp.page || a >= wp.page + CARET_SHM_HEADER_SIZE) {
		signal(sig, SIG_DFL);
		return;
	}
	mprotect(wp.page, CARET_SHM_HEADER_SIZE, PROT_READ | PROT_WRITE);
	uc->uc_mcontext.gregs[REG_EFL] |= 0x100; /* TF: trap after the store */
}

static void wp_trap(int sig, siginfo_t *si, void *ucv)
{
	(void)sig, (void)si;
	ucontext_t *uc = ucv;
	uc->uc_mcontext.gregs[REG_EFL] &= ~0x100;
	const struct caret_shm_header *h = (const void *)wp.page;
	wp.stores++;
	if (h->state == CARET_STATE_PREPARE && CARET_EPOCH_OF(h->grant) == wp.old_epoch)
		wp.stale++;
	mprotect(wp.page, CARET_SHM_HEADER_SIZE, PROT_READ);
}

START_TEST(test_replay_start_every_store)
{
	make_seg(1 << 20);
	/* a finished pass 3: all granted, all replayed, back in WAIT */
	caret_drive_grant(&seg, 3, 10);
	__atomic_store_n(&seg.shared_hdr->cursor, CARET_EPOCH_COUNT(3, 10), __ATOMIC_RELEASE);
	caret_own_set_state(&seg, CARET_STATE_WAIT);
	struct sigaction sa = { .sa_flags = SA_SIGINFO }, old_segv, old_trap;
	sigemptyset(&sa.sa_mask);
	sa.sa_sigaction = wp_segv;
	sigaction(SIGSEGV, &sa, &old_segv);
	sa.sa_sigaction = wp_trap;
	sigaction(SIGTRAP, &sa, &old_trap);
	memset(&wp, 0, sizeof(wp));
	wp.page = (uint8_t *)seg.shared_hdr;
	wp.old_epoch = 3;
	ck_assert_int_eq(mprotect(wp.page, CARET_SHM_HEADER_SIZE, PROT_READ), 0);
	int64_t e = caret_drive_begin_replay(&seg, CARET_STATE_WAIT);
	mprotect(wp.page, CARET_SHM_HEADER_SIZE, PROT_READ | PROT_WRITE);
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGTRAP, &old_trap, NULL);
	ck_assert_int_eq(e, 4);
	ck_assert_int_ge(wp.stores, 2); /* grant and state, each looked after */
	ck_assert_msg(wp.stale == 0, "after %d of %d stores: PREPARE with the finished epoch",
		      wp.stale, wp.stores);
	ck_assert_uint_eq(seg.shared_hdr->state, CARET_STATE_PREPARE);
	drop_seg();
}
END_TEST
#endif

/* The per-CPU replayed counts (issue 34): what the agent counts on a CPU
 * the slots cover is read back by a controller in that CPU's slot; a CPU
 * beyond them (or none) is in no slot, only in `replayed`; an older
 * agent's segment (slots zero) reads zero. */
START_TEST(test_replayed_per_cpu)
{
	make_seg(1 << 20);
	uint64_t c[CARET_SHM_CPUS];
	caret_seg_read_cpus(&seg, c, CARET_SHM_CPUS);
	for (unsigned i = 0; i < CARET_SHM_CPUS; i++)
		ck_assert_uint_eq(c[i], 0);
	caret_own_count_cpu(&seg, 1, 5);
	caret_own_count_cpu(&seg, 1, 2);
	caret_own_count_cpu(&seg, 0, 3);
	caret_own_count_cpu(&seg, CARET_SHM_CPUS - 1, 4);
	caret_own_count_cpu(&seg, CARET_SHM_CPUS, 100); /* beyond the slots */
	caret_own_count_cpu(&seg, -1, 100);             /* sched_getcpu() failed */
	caret_own_advance(&seg, 1, 214, 214);
	caret_seg_read_cpus(&seg, c, CARET_SHM_CPUS);
	ck_assert_uint_eq(c[0], 3);
	ck_assert_uint_eq(c[1], 7);
	ck_assert_uint_eq(c[2], 0);
	ck_assert_uint_eq(c[CARET_SHM_CPUS - 1], 4);
	struct caret_seg_status st;
	caret_seg_read_status(&seg, &st);
	ck_assert_uint_eq(st.replayed, 214);
	/* only the slots asked for are written */
	uint64_t two[3] = { 9, 9, 9 };
	caret_seg_read_cpus(&seg, two, 2);
	ck_assert_uint_eq(two[1], 7);
	ck_assert_uint_eq(two[2], 9);
	/* the slots lie between the header and the pass filter */
	const uint8_t *page = (const uint8_t *)seg.shared_hdr;
	uint64_t raw;
	memcpy(&raw, page + CARET_SHM_CPU_OFFSET + 8, 8);
	ck_assert_uint_eq(raw, 7);
	drop_seg();
}
END_TEST

void add_handshake_tests(TCase *t)
{
	tcase_add_test(t, test_replayed_per_cpu);
	tcase_add_test(t, test_state_moves_checked);
	tcase_add_test(t, test_replay_handshake_words);
	tcase_add_test(t, test_replay_handshake_both_sides);
	tcase_add_test(t, test_replay_start_is_one_step);
	tcase_add_test(t, test_claims_by_state);
	tcase_add_test(t, test_claims_race);
#if defined(__x86_64__)
	tcase_add_test(t, test_replay_start_every_store);
#endif
}
