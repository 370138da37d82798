/* SPDX-License-Identifier: Apache-2.0 */
/* top's counter area (proto/caret_segment.h, shm/counters.c): counted by
 * the owner, read by a controller, bounded, hostile headers refused. */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shm/caret_shm.h"
#include "tests/unit/shm_fixture.h"

START_TEST(test_ctr_buckets)
{
	ck_assert_uint_eq(caret_ctr_bucket(0), 0);
	ck_assert_uint_eq(caret_ctr_bucket(1023), 0);
	ck_assert_uint_eq(caret_ctr_bucket(1024), 1);
	ck_assert_uint_eq(caret_ctr_bucket(2047), 1);
	ck_assert_uint_eq(caret_ctr_bucket(2048), 2);
	/* 5 ms: [2^22, 2^23) ns */
	ck_assert_uint_eq(caret_ctr_bucket(5000000), 13);
	ck_assert_uint_eq(caret_ctr_bucket(1ULL << 40), CARET_CTR_BUCKETS - 1);
	ck_assert_uint_eq(caret_ctr_bucket(UINT64_MAX), CARET_CTR_BUCKETS - 1);
}
END_TEST

/* The p99 lies in the bucket that holds the 99th percent call, and never
 * above the maximum seen. */
START_TEST(test_ctr_quantile_in_bucket)
{
	uint32_t h[CARET_CTR_BUCKETS] = { 0 };
	h[13] = 98; /* 98 calls of about 5 ms */
	h[15] = 2;  /* 2 of about 20 ms: the p99 is one of these */
	uint64_t p99 = caret_ctr_quantile(h, 0.99, 20000000);
	ck_assert_uint_ge(p99, 1ULL << 24);
	ck_assert_uint_le(p99, 20000000);
	uint64_t p50 = caret_ctr_quantile(h, 0.5, 20000000);
	ck_assert_uint_ge(p50, 1ULL << 22);
	ck_assert_uint_lt(p50, 1ULL << 23);
	/* all in one bucket: bounded by the max, above the bucket's floor */
	memset(h, 0, sizeof(h));
	h[13] = 100;
	p99 = caret_ctr_quantile(h, 0.99, 5100000);
	ck_assert_uint_ge(p99, 1ULL << 22);
	ck_assert_uint_le(p99, 5100000);
	/* the open last bucket ends at the max */
	memset(h, 0, sizeof(h));
	h[CARET_CTR_BUCKETS - 1] = 10;
	ck_assert_uint_le(caret_ctr_quantile(h, 1.0, 3000000000ULL), 3000000000ULL);
	memset(h, 0, sizeof(h));
	ck_assert_uint_eq(caret_ctr_quantile(h, 0.99, 0), 0);
}
END_TEST

static struct caret_ctr_slot *find(struct caret_ctr_slot *t, int n, uint32_t kind, const void *p)
{
	for (int i = 0; i < n; i++)
		if (t[i].key == CARET_CTR_KEY(kind, (uintptr_t)p))
			return &t[i];
	return NULL;
}

START_TEST(test_ctr_count_and_read)
{
	make_seg(64 << 20);
	ck_assert_uint_eq(seg.id.ctr_slots, CARET_CTR_SLOTS);
	ck_assert_uint_eq(seg.id.ctr_offset, (64 << 20) - CARET_CTR_AREA_SIZE);
	/* the records stop where the counters begin */
	ck_assert_uint_eq(seg.area_cap, seg.id.ctr_offset - CARET_SHM_HEADER_SIZE);
	int cb, pub, sub;
	caret_own_count(&seg, CARET_CTR_CALLBACK, &cb, 5000000, 1);
	caret_own_count(&seg, CARET_CTR_CALLBACK, &cb, 7000000, 1);
	caret_own_count(&seg, CARET_CTR_CALLBACK, &cb, 3000, 2); /* a new generation */
	for (int i = 0; i < 10; i++)
		caret_own_count(&seg, CARET_CTR_PUBLISHER, &pub, 0, 2);
	caret_own_count(&seg, CARET_CTR_SUBSCRIPTION, &sub, 0, 2);
	/* the same pointer of another kind is another slot */
	caret_own_count(&seg, CARET_CTR_SUBSCRIPTION, &cb, 0, 2);

	struct caret_seg c;
	ck_assert_int_eq(caret_seg_attach(&c, seg.name), 0);
	ck_assert_uint_eq(c.id.ctr_slots, CARET_CTR_SLOTS);
	caret_drive_watch(&c, 7);
	ck_assert_uint_eq(__atomic_load_n(caret_own_watched_word(&seg), __ATOMIC_RELAXED), 7);
	struct caret_ctr_slot *t = calloc(CARET_CTR_SLOTS, sizeof(*t));
	uint64_t lost = 99;
	ck_assert_int_eq(caret_seg_read_counters(&c, t, CARET_CTR_SLOTS, &lost), CARET_CTR_SLOTS);
	ck_assert_uint_eq(lost, 0);
	struct caret_ctr_slot *s = find(t, CARET_CTR_SLOTS, CARET_CTR_CALLBACK, &cb);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->count, 3);
	ck_assert_uint_eq(s->total_ns, 12003000);
	ck_assert_uint_eq(CARET_CTR_MAX_GEN(s->max), 2);
	ck_assert_uint_eq(CARET_CTR_MAX_NS(s->max), 3000);
	ck_assert_uint_eq(s->hist[13], 2);
	ck_assert_uint_eq(s->hist[2], 1);
	s = find(t, CARET_CTR_SLOTS, CARET_CTR_PUBLISHER, &pub);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->count, 10);
	ck_assert_uint_eq(s->total_ns, 0);
	ck_assert_uint_eq(find(t, CARET_CTR_SLOTS, CARET_CTR_SUBSCRIPTION, &sub)->count, 1);
	ck_assert_uint_eq(find(t, CARET_CTR_SLOTS, CARET_CTR_SUBSCRIPTION, &cb)->count, 1);
	free(t);
	caret_seg_close(&c);
	drop_seg();
}
END_TEST

/* A subscription's latencies: in [0, CARET_CTR_LAT_ABSURD_NS] they are
 * counted as durations are (total, max, histogram, lat_n); a negative or
 * absurd one in lat_apart alone, never in the sum; a take without a
 * source timestamp in count alone. */
START_TEST(test_ctr_take_latency)
{
	make_seg(64 << 20);
	int sub;
	caret_own_take(&seg, &sub, true, 0, 3);
	caret_own_take(&seg, &sub, true, 5000000, 3);
	caret_own_take(&seg, &sub, true, (int64_t)CARET_CTR_LAT_ABSURD_NS, 3);
	caret_own_take(&seg, &sub, true, (int64_t)CARET_CTR_LAT_ABSURD_NS + 1, 3);
	caret_own_take(&seg, &sub, true, -1, 3);
	caret_own_take(&seg, &sub, true, INT64_MIN, 3);
	caret_own_take(&seg, &sub, false, 123, 3);
	struct caret_ctr_slot *t = calloc(CARET_CTR_SLOTS, sizeof(*t));
	uint64_t lost;
	ck_assert_int_eq(caret_seg_read_counters(&seg, t, CARET_CTR_SLOTS, &lost), CARET_CTR_SLOTS);
	struct caret_ctr_slot *s = find(t, CARET_CTR_SLOTS, CARET_CTR_SUBSCRIPTION, &sub);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->count, 7);
	ck_assert_uint_eq(s->lat_n, 3);
	ck_assert_uint_eq(s->lat_apart, 3);
	ck_assert_uint_eq(s->total_ns, 5000000 + CARET_CTR_LAT_ABSURD_NS);
	ck_assert_uint_eq(CARET_CTR_MAX_NS(s->max), CARET_CTR_LAT_ABSURD_NS);
	ck_assert_uint_eq(CARET_CTR_MAX_GEN(s->max), 3);
	ck_assert_uint_eq(s->hist[0], 1);
	ck_assert_uint_eq(s->hist[13], 1);
	ck_assert_uint_eq(s->hist[CARET_CTR_BUCKETS - 1], 1);
	uint64_t in_hist = 0;
	for (unsigned b = 0; b < CARET_CTR_BUCKETS; b++)
		in_hist += s->hist[b];
	ck_assert_uint_eq(in_hist, s->lat_n);
	free(t);
	drop_seg();
}
END_TEST

/* More entities than slots: the first CARET_CTR_SLOTS keep theirs, the
 * rest are counted as lost, nothing else is touched. */
START_TEST(test_ctr_full_table)
{
	make_seg(64 << 20);
	static char keys[CARET_CTR_SLOTS + 44];
	for (unsigned i = 0; i < sizeof(keys); i++)
		caret_own_count(&seg, CARET_CTR_CALLBACK, &keys[i], 1000, 1);
	for (unsigned i = 0; i < CARET_CTR_SLOTS; i++)
		caret_own_count(&seg, CARET_CTR_CALLBACK, &keys[i], 1000, 1);
	struct caret_ctr_slot *t = calloc(CARET_CTR_SLOTS, sizeof(*t));
	uint64_t lost;
	ck_assert_int_eq(caret_seg_read_counters(&seg, t, CARET_CTR_SLOTS, &lost), CARET_CTR_SLOTS);
	ck_assert_uint_eq(lost, 44);
	uint64_t calls = 0;
	for (unsigned i = 0; i < CARET_CTR_SLOTS; i++) {
		ck_assert_uint_ne(t[i].key, 0);
		ck_assert_uint_eq(t[i].count, 2);
		calls += t[i].count;
	}
	ck_assert_uint_eq(calls, 2 * CARET_CTR_SLOTS);
	free(t);
	drop_seg();
}
END_TEST

static void *hammer(void *arg)
{
	for (int i = 0; i < 100000; i++)
		caret_own_count(&seg, CARET_CTR_CALLBACK, arg, (uint64_t)(i % 7) * 1000, 3);
	return NULL;
}

START_TEST(test_ctr_concurrent)
{
	make_seg(64 << 20);
	static int key;
	pthread_t th[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, hammer, &key);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	struct caret_ctr_slot *t = calloc(CARET_CTR_SLOTS, sizeof(*t));
	uint64_t lost;
	ck_assert_int_eq(caret_seg_read_counters(&seg, t, CARET_CTR_SLOTS, &lost), CARET_CTR_SLOTS);
	struct caret_ctr_slot *s = find(t, CARET_CTR_SLOTS, CARET_CTR_CALLBACK, &key);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->count, 400000);
	uint64_t n = 0;
	for (unsigned b = 0; b < CARET_CTR_BUCKETS; b++)
		n += s->hist[b];
	ck_assert_uint_eq(n, 400000);
	ck_assert_uint_eq(CARET_CTR_MAX_NS(s->max), 6000);
	/* one slot only: no thread claimed a second for the same key */
	int used = 0;
	for (unsigned i = 0; i < CARET_CTR_SLOTS; i++)
		used += t[i].key != 0;
	ck_assert_int_eq(used, 1);
	free(t);
	drop_seg();
}
END_TEST

/* A cache too small for the counters has none: counting is a no-op, and
 * a reader gets no slot. */
START_TEST(test_ctr_small_segment)
{
	make_seg(CARET_SHM_MIN_CAPACITY);
	ck_assert_uint_eq(seg.id.ctr_slots, 0);
	int k;
	caret_own_count(&seg, CARET_CTR_CALLBACK, &k, 1000, 1);
	struct caret_ctr_slot t[1];
	uint64_t lost;
	ck_assert_int_eq(caret_seg_read_counters(&seg, t, 1, &lost), 0);
	drop_seg();
}
END_TEST

/* The counter words of the header are checked like the rest. */
START_TEST(test_ctr_hostile_header)
{
	make_seg(64 << 20);
	struct caret_shm_header h;
	ck_assert_int_eq(pread(seg.fd, &h, sizeof(h), 0), (ssize_t)sizeof(h));
	ck_assert_int_eq(caret_hdr_validate(&h, 64 << 20), 0);
	struct caret_shm_header b = h;
	b.ctr_slots = CARET_CTR_SLOTS + 1;
	ck_assert_int_eq(caret_hdr_validate(&b, 64 << 20), -EBADMSG);
	b = h;
	b.ctr_offset -= 8;
	ck_assert_int_eq(caret_hdr_validate(&b, 64 << 20), -EBADMSG);
	b = h;
	b.ctr_slots = 0;
	ck_assert_int_eq(caret_hdr_validate(&b, 64 << 20), -EBADMSG);
	/* records reaching into the counters */
	b = h;
	b.tail = b.ctr_offset;
	ck_assert_int_eq(caret_hdr_validate(&b, 64 << 20), -EBADMSG);
	/* an older agent's header: no counters, valid */
	b = h;
	b.ctr_slots = 0;
	b.ctr_offset = 0;
	ck_assert_int_eq(caret_hdr_validate(&b, 64 << 20), 0);
	drop_seg();
}
END_TEST

void add_counter_tests(TCase *t)
{
	tcase_add_test(t, test_ctr_buckets);
	tcase_add_test(t, test_ctr_quantile_in_bucket);
	tcase_add_test(t, test_ctr_count_and_read);
	tcase_add_test(t, test_ctr_take_latency);
	tcase_add_test(t, test_ctr_full_table);
	tcase_add_test(t, test_ctr_concurrent);
	tcase_add_test(t, test_ctr_small_segment);
	tcase_add_test(t, test_ctr_hostile_header);
}
