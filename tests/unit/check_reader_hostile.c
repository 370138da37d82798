/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The merged cache reader (shm/reader.h) on what it must not trust, on real
 * segments in /dev/shm: its tokens (a round trip, then corrupted), and
 * corrupted, truncated and hostile segments. The fixture: reader_fixture.c.
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

/* Every position as a token, sought back by another reader: the rest of
 * the order is the same. */
START_TEST(test_tokens_round_trip)
{
	make_set3();
	struct caret_reader *r = open_reader(0), *r2 = open_reader(0);
	struct evs all = read_all(r);
	caret_reader_seek_begin(r);
	for (size_t i = 0; i <= all.n; i++) {
		char tok[CARET_READER_TOKEN_LEN];
		ck_assert_int_eq(caret_reader_tell(r, tok, sizeof(tok)), 0);
		ck_assert_int_eq(caret_reader_seek_position(r2, tok), 0);
		struct evs rest = { 0 };
		ck_assert_int_eq(caret_reader_read_count(r2, UINT64_MAX, collect, &rest),
				 (int64_t)(all.n - i));
		if (rest.n)
			ck_assert_mem_eq(rest.v, all.v + i, rest.n * sizeof(*rest.v));
		free(rest.v);
		/* read n+1 to learn where to continue: one event here */
		caret_reader_read_count(r, 1, NULL, NULL);
	}
	/* seek_time tokens too */
	caret_reader_seek_time(r, 30);
	char tok[CARET_READER_TOKEN_LEN];
	ck_assert_int_eq(caret_reader_tell(r, tok, sizeof(tok)), 0);
	ck_assert_int_eq(caret_reader_seek_position(r2, tok), 0);
	struct evs a = { 0 };
	caret_reader_read_count(r2, UINT64_MAX, collect, &a);
	ck_assert_int_ge(a.v[0].ts, 30);
	size_t ge = 0;
	for (size_t i = 0; i < all.n; i++)
		ge += all.v[i].ts >= 30;
	ck_assert_uint_eq(a.n, ge);
	caret_reader_close(r);
	caret_reader_close(r2);
	free(all.v);
	free(a.v);
	drop_set3();
}
END_TEST

START_TEST(test_corrupted_tokens)
{
	make_set3();
	struct caret_reader *r = open_reader(0);
	caret_reader_read_count(r, 5, NULL, NULL);
	char tok[CARET_READER_TOKEN_LEN], bad[CARET_READER_TOKEN_LEN + 8];
	ck_assert_int_eq(caret_reader_tell(r, tok, sizeof(tok)), 0);
	ck_assert_int_eq(caret_reader_tell(r, bad, 10), -ENOSPC);
	size_t n = strlen(tok);
	/* Every single-character change is refused (checksum or syntax). */
	for (size_t i = 0; i < n; i++) {
		static const char alt[] = "0123456789abcdefABT-x";
		for (size_t j = 0; alt[j]; j++) {
			if (alt[j] == tok[i])
				continue;
			strcpy(bad, tok);
			bad[i] = alt[j];
			ck_assert_int_eq(caret_reader_seek_position(r, bad), -EINVAL);
		}
	}
	ck_assert_int_eq(caret_reader_seek_position(r, ""), -EINVAL);
	ck_assert_int_eq(caret_reader_seek_position(r, NULL), -EINVAL);
	strcpy(bad, tok);
	strcat(bad, "0");
	ck_assert_int_eq(caret_reader_seek_position(r, bad), -EINVAL);
	bad[n - 1] = '\0';
	ck_assert_int_eq(caret_reader_seek_position(r, bad), -EINVAL);
	/* The cursor is where it was after all those failures. */
	struct evs l = { 0 };
	caret_reader_read_count(r, UINT64_MAX, collect, &l);
	ck_assert_uint_eq(l.n, set3_total - 5);
	free(l.v);
	/* A well-formed token whose event is no longer what it names (the
	 * segment was replaced by one with other records): refused. */
	caret_reader_seek_begin(r);
	caret_reader_read_count(r, 1, NULL, NULL);
	ck_assert_int_eq(caret_reader_tell(r, tok, sizeof(tok)), 0);
	drop_set3();
	struct caret_seg x = mk(100, 5);
	put(&x, 999, 1);
	put(&x, 999, 1);
	ck_assert_int_eq(caret_reader_refresh(r), 0);
	ck_assert_int_eq(caret_reader_seek_position(r, tok), -EINVAL);
	caret_reader_close(r);
	drop(&x);
}
END_TEST

/* Corrupted segments: bytes garbled after a valid prefix, and a header
 * whose tail runs past the area. Never a crash; the prefix stays readable;
 * a token naming the segment is refused with -EBADMSG. */
START_TEST(test_corrupted_segments)
{
	struct caret_seg a = mk(10, 1), b = mk(11, 1);
	for (int i = 0; i < 4; i++)
		put(&a, 10 * (i + 1), (uint64_t)i);
	put(&b, 5, 100);
	struct caret_reader *r = open_reader(0);
	caret_reader_read_count(r, 2, NULL, NULL);
	char tok[CARET_READER_TOKEN_LEN];
	ck_assert_int_eq(caret_reader_tell(r, tok, sizeof(tok)), 0); /* after a's 10 */
	/* garble: a record whose size field lies */
	uint64_t tail = a.shared_hdr->tail;
	put(&a, 50, 5);
	uint32_t bogus = 12;
	memcpy(a.area + tail + 4, &bogus, 4);
	put(&a, 60, 6);
	ck_assert_int_eq(caret_reader_refresh(r), 0);
	struct caret_reader_stats st;
	caret_reader_stats(r, &st);
	ck_assert_uint_eq(st.corrupt_segments, 1);
	ck_assert_uint_eq(st.records, 5);
	ck_assert_int_eq(caret_reader_seek_position(r, tok), -EBADMSG);
	struct caret_reader_seg_info info[4];
	ck_assert_uint_eq(caret_reader_segments(r, info, 4), 2);
	ck_assert_int_eq(info[0].pid, 10);
	ck_assert(info[0].corrupt);
	ck_assert(!info[1].corrupt);
	/* tail beyond the area on b */
	b.shared_hdr->tail = b.area_cap + 8;
	ck_assert_int_eq(caret_reader_refresh(r), 0);
	caret_reader_stats(r, &st);
	ck_assert_uint_eq(st.corrupt_segments, 2);
	struct evs l = read_all(r);
	ck_assert_uint_eq(l.n, 5);
	assert_sorted(&l);
	caret_reader_close(r);
	free(l.v);
	drop(&a);
	drop(&b);
}
END_TEST

/* The owner may truncate its segment under the reader at any time (B2):
 * the reader must neither die of SIGBUS nor lose what it had read. */
START_TEST(test_truncated_under_reader)
{
	struct caret_seg a = mk(20, 1);
	put(&a, 10, 1);
	put(&a, 20, 2);
	struct caret_reader *r = open_reader(0);
	struct evs l = read_all(r);
	ck_assert_uint_eq(l.n, 2);
	free(l.v);
	put(&a, 30, 3);
	char path[160];
	snprintf(path, sizeof(path), "/dev/shm/%s", a.name);
	ck_assert_int_eq(truncate(path, 0), 0);
	ck_assert_int_eq(caret_reader_refresh(r), 0);
	struct caret_reader_stats st;
	caret_reader_stats(r, &st);
	ck_assert_uint_eq(st.corrupt_segments, 1);
	l = read_all(r);
	ck_assert_uint_eq(l.n, 2);
	free(l.v);
	caret_reader_close(r);
	drop(&a);
}
END_TEST

/* A segment with a hostile header is never attached; garbage files with
 * our prefix are skipped. */
START_TEST(test_hostile_header_skipped)
{
	struct caret_seg a = mk(10, 1);
	put(&a, 1, 1);
	a.shared_hdr->magic = 0;
	struct caret_seg b = mk(11, 1);
	put(&b, 2, 2);
	char path[200];
	snprintf(path, sizeof(path), "/dev/shm/%s.12.1", prefix);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("garbage", f);
	fclose(f);
	struct caret_reader *r = open_reader(0);
	struct evs l = read_all(r);
	ck_assert_uint_eq(l.n, 1);
	ck_assert_int_eq(l.v[0].pid, 11);
	caret_reader_close(r);
	free(l.v);
	unlink(path);
	drop(&a);
	drop(&b);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("reader_hostile");
	TCase *t = unit_case(s, "reader_hostile", test_tokens_round_trip, test_corrupted_tokens,
			     test_corrupted_segments, test_truncated_under_reader,
			     test_hostile_header_skipped);
	tcase_add_checked_fixture(t, setup, NULL);
	return unit_run(s);
}
