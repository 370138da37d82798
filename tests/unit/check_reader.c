/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests of the merged cache reader (shm/reader.h), on real segments in
 * /dev/shm: merge order with ties and out-of-order appends, growth during a
 * read and the reorder window, segments that appear and vanish, interval
 * reads in pages of every size that neither lose nor repeat an event at a
 * request boundary, and the reader's choice of processes and kinds. Tokens
 * and what a reader must not trust: check_reader_hostile.c; the fixture:
 * reader_fixture.c; the shm library's own tests are check_shm*.c.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shm/caret_shm.h"
#include "shm/reader.h"
#include "tests/unit/reader_fixture.h"
#include "tests/unit/unit.h"

START_TEST(test_merge_order_ties_out_of_order)
{
	make_set3();
	struct caret_reader *r = open_reader(0);
	struct evs l = read_all(r);
	ck_assert_uint_eq(l.n, set3_total);
	assert_sorted(&l);
	/* The tie-break is (pid, start time, index): first three are ts 10 of
	 * pid 100 (indices 1, 2, 3), then pid 300 start 2 (3, 4), then start 7. */
	ck_assert_int_eq(l.v[0].pid, 100);
	ck_assert_uint_eq(l.v[0].idx, 1);
	ck_assert_uint_eq(l.v[2].idx, 3);
	ck_assert_int_eq(l.v[3].pid, 300);
	ck_assert_uint_eq(l.v[3].start, 2);
	ck_assert_uint_eq(l.v[3].idx, 3);
	ck_assert_uint_eq(l.v[5].start, 7);
	ck_assert_uint_eq(l.v[5].idx, 0);
	/* Every record once: the handle is unique per record. */
	for (size_t i = 0; i < l.n; i++)
		for (size_t j = i + 1; j < l.n; j++)
			ck_assert_uint_ne(l.v[i].handle, l.v[j].handle);
	/* Deterministic: a second reader agrees exactly. */
	struct caret_reader *r2 = open_reader(0);
	struct evs l2 = read_all(r2);
	ck_assert_uint_eq(l2.n, l.n);
	ck_assert_mem_eq(l2.v, l.v, l.n * sizeof(*l.v));
	caret_reader_close(r);
	caret_reader_close(r2);
	free(l.v);
	free(l2.v);
	drop_set3();
}
END_TEST

struct thr {
	struct caret_seg *s;
	int n;
};

static void *appender(void *arg)
{
	struct thr *t = arg;
	for (int i = 0; i < t->n; i++)
		put(t->s, caret_now_ns(), (uint64_t)i);
	return NULL;
}

/* Real concurrent appends by threads of one process: the segment is only
 * roughly in timestamp order, the merge is exactly ordered. */
START_TEST(test_concurrent_appends_merged_in_order)
{
	struct caret_seg a = mk(10, 1), b = mk(11, 1);
	pthread_t th[4];
	struct thr t[4] = { { &a, 3000 }, { &a, 3000 }, { &b, 3000 }, { &b, 3000 } };
	for (int i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, appender, &t[i]);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	struct caret_reader *r = open_reader(0);
	struct evs l = read_all(r);
	ck_assert_uint_eq(l.n, 12000);
	assert_sorted(&l);
	caret_reader_close(r);
	free(l.v);
	drop(&a);
	drop(&b);
}
END_TEST

static int64_t fake_now;
static int64_t get_fake_now(void *ctx)
{
	(void)ctx;
	return fake_now;
}

/* Growth between reads, the reorder window, and late records. */
START_TEST(test_growth_window_and_late)
{
	struct caret_seg a = mk(10, 1);
	put(&a, 100, 1);
	put(&a, 200, 2);
	put(&a, 300, 3);
	fake_now = 1250;
	struct caret_reader *r;
	struct caret_reader_opts o = { .window_ns = 1000, .now = get_fake_now };
	ck_assert_int_eq(caret_reader_open(&r, &o), 0);
	struct caret_reader_stats st;
	caret_reader_stats(r, &st);
	/* horizon 250: 300 is held back */
	ck_assert_uint_eq(st.records, 2);
	ck_assert_uint_eq(st.held, 1);
	struct evs l = { 0 };
	ck_assert_int_eq(caret_reader_read_count(r, 10, collect, &l), 2);
	ck_assert(!caret_reader_more(r));
	/* A record appended out of order (ts 250 <= horizon of the next
	 * refresh, after 300 in the segment) is still delivered in order. */
	put(&a, 250, 4);
	put(&a, 400, 5);
	fake_now = 1350;
	ck_assert_int_eq(caret_reader_refresh(r), 0);
	ck_assert_int_eq(caret_reader_read_count(r, 10, collect, &l), 2);
	ck_assert_int_eq(l.v[2].ts, 250);
	ck_assert_int_eq(l.v[3].ts, 300);
	/* A writer that stalled beyond the window: its record lands behind
	 * the cursor, is counted as late and not delivered out of order. */
	put(&a, 150, 6);
	fake_now = 5000;
	ck_assert_int_eq(caret_reader_refresh(r), 0);
	ck_assert_int_eq(caret_reader_read_count(r, 10, collect, &l), 1);
	ck_assert_int_eq(l.v[4].ts, 400);
	caret_reader_stats(r, &st);
	ck_assert_uint_eq(st.late, 1);
	ck_assert_uint_eq(st.records, 6);
	ck_assert_uint_eq(st.held, 0);
	assert_sorted(&l);
	/* From the beginning everything is there, in order. */
	struct evs all = read_all(r);
	ck_assert_uint_eq(all.n, 6);
	assert_sorted(&all);
	caret_reader_close(r);
	free(l.v);
	free(all.v);
	drop(&a);
}
END_TEST

/* A segment appears and another vanishes between reads. */
START_TEST(test_appear_and_vanish)
{
	struct caret_seg a = mk(10, 1);
	put(&a, 10, 1);
	put(&a, 20, 2);
	struct caret_reader *r = open_reader(0);
	struct evs l = { 0 };
	ck_assert_int_eq(caret_reader_read_count(r, 1, collect, &l), 1);
	char tok[CARET_READER_TOKEN_LEN];
	ck_assert_int_eq(caret_reader_tell(r, tok, sizeof(tok)), 0);
	struct caret_seg b = mk(11, 1);
	put(&b, 15, 3);
	ck_assert_int_eq(caret_reader_refresh(r), 0);
	ck_assert_int_eq(caret_reader_read_count(r, 10, collect, &l), 2);
	ck_assert_int_eq(l.v[1].pid, 11);
	ck_assert_int_eq(l.v[2].ts, 20);
	drop(&a);
	ck_assert_int_eq(caret_reader_refresh(r), 0);
	struct caret_reader_stats st;
	caret_reader_stats(r, &st);
	ck_assert_uint_eq(st.segments, 1);
	ck_assert_uint_eq(st.vanished, 1);
	ck_assert_uint_eq(st.records, 1);
	/* A token naming an event of the vanished process: a clear error,
	 * and the cursor stays where it was. */
	ck_assert_int_eq(caret_reader_seek_position(r, tok), -ESRCH);
	struct evs all = read_all(r);
	ck_assert_uint_eq(all.n, 1);
	ck_assert_int_eq(all.v[0].pid, 11);
	caret_reader_close(r);
	free(l.v);
	free(all.v);
	drop(&b);
}
END_TEST

/* Interval reads in pages of every size 1..k: concatenated, they equal one
 * read (nothing lost or repeated at a request boundary), each page holds
 * at least `max` events unless it is the last, and a page ends at a change
 * of timestamp. Pages are continued through tokens in a fresh reader each
 * time, as a client of caretd would. */
START_TEST(test_pages_of_every_size)
{
	make_set3();
	struct caret_reader *r = open_reader(0);
	struct evs one = { 0 };
	caret_reader_seek_time(r, 15);
	caret_reader_read_time(r, 65, 0, collect, &one);
	ck_assert_int_ge(one.v[0].ts, 15);
	ck_assert_int_lt(one.v[one.n - 1].ts, 65);
	for (uint64_t k = 1; k <= one.n + 1; k++) {
		struct evs pages = { 0 };
		char tok[CARET_READER_TOKEN_LEN];
		caret_reader_seek_time(r, 15);
		ck_assert_int_eq(caret_reader_tell(r, tok, sizeof(tok)), 0);
		for (int guard = 0; guard < 100; guard++) {
			struct caret_reader *p = open_reader(0);
			ck_assert_int_eq(caret_reader_seek_position(p, tok), 0);
			size_t before = pages.n;
			int64_t got = caret_reader_read_time(p, 65, k, collect, &pages);
			ck_assert_int_eq(got, (int64_t)(pages.n - before));
			if (got == 0) {
				caret_reader_close(p);
				break;
			}
			if ((uint64_t)got > k) /* only events of the last timestamp */
				for (size_t i = before + k; i < pages.n; i++)
					ck_assert_int_eq(pages.v[i].ts, pages.v[before + k - 1].ts);
			ck_assert_int_eq(caret_reader_tell(p, tok, sizeof(tok)), 0);
			caret_reader_close(p);
		}
		ck_assert_uint_eq(pages.n, one.n);
		ck_assert_mem_eq(pages.v, one.v, one.n * sizeof(*one.v));
		/* read_count pages of size k through tokens too */
		struct evs counted = { 0 };
		caret_reader_seek_time(r, 15);
		for (;;) {
			size_t before = counted.n;
			caret_reader_read_count(r, k, collect, &counted);
			if (counted.n == before)
				break;
		}
		ck_assert_uint_ge(counted.n, one.n);
		ck_assert_mem_eq(counted.v, one.v, one.n * sizeof(*one.v));
		free(counted.v);
		free(pages.v);
	}
	caret_reader_close(r);
	free(one.v);
	drop_set3();
}
END_TEST

START_TEST(test_only_chosen_pids)
{
	make_set3();
	struct caret_reader *r;
	pid_t only = 300;
	struct caret_reader_opts o = { .pids = &only, .npids = 1, .window_ns = 0 };
	ck_assert_int_eq(caret_reader_open(&r, &o), 0);
	struct evs l = read_all(r);
	ck_assert_uint_eq(l.n, 16);
	for (size_t i = 0; i < l.n; i++)
		ck_assert_int_eq(l.v[i].pid, 300);
	caret_reader_close(r);
	free(l.v);
	drop_set3();
}
END_TEST

static bool only_pid100(pid_t pid, uint32_t kind, void *ctx)
{
	(void)ctx;
	return pid == 100 && kind == CARET_KIND_rcl_init;
}

/* A filter passes events over without counting them: pages of size k
 * still hold k accepted events (plus ties) and concatenate to one read. */
START_TEST(test_filter)
{
	make_set3();
	struct caret_reader *r = open_reader(0);
	caret_reader_set_filter(r, only_pid100, NULL);
	struct evs all = read_all(r);
	ck_assert_uint_eq(all.n, 8);
	for (size_t i = 0; i < all.n; i++)
		ck_assert_int_eq(all.v[i].pid, 100);
	struct evs pages = { 0 };
	caret_reader_seek_begin(r);
	int64_t got;
	while ((got = caret_reader_read_time(r, INT64_MAX, 2, collect, &pages)) > 0)
		ck_assert_int_ge(got, 2 - (int64_t)(pages.n == all.n));
	ck_assert_uint_eq(pages.n, all.n);
	ck_assert_mem_eq(pages.v, all.v, all.n * sizeof(*all.v));
	ck_assert(!caret_reader_more(r));
	caret_reader_close(r);
	free(all.v);
	free(pages.v);
	drop_set3();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("reader");
	TCase *t = unit_case(s, "reader", test_merge_order_ties_out_of_order,
			     test_concurrent_appends_merged_in_order, test_growth_window_and_late,
			     test_appear_and_vanish, test_pages_of_every_size,
			     test_only_chosen_pids, test_filter);
	tcase_add_checked_fixture(t, setup, NULL);
	return unit_run(s);
}
