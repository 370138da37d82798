/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests of the merged cache reader (shm/reader.h), on real segments in
 * /dev/shm: merge order with ties and out-of-order appends, growth during a
 * read and the reorder window, vanished and corrupted segments, tokens
 * (round trip, corruption), and interval reads in pages of every size that
 * neither lose nor repeat an event at a request boundary.
 *
 * Over 600 lines (632): every test reads through the same fixture (a set
 * of real segments, the event collector, its sort and order check); the
 * shm library's own tests are check_shm*.c.
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
#include "tests/unit/unit.h"

static char prefix[32];
static int tmp_counter;

static void setup(void)
{
	snprintf(prefix, sizeof(prefix), "caret-rd-%d", (int)getpid());
	setenv("CARET_SHM_PREFIX", prefix, 1);
}

/* A segment that looks like agent `pid` (start time `start`) made it: made
 * by caret_seg_create under a scratch prefix, then given that identity. */
static struct caret_seg mk(pid_t pid, uint64_t start)
{
	char tmp[32];
	struct caret_seg s;
	snprintf(tmp, sizeof(tmp), "caret-tmp-%d-%d", (int)getpid(), tmp_counter++);
	setenv("CARET_SHM_PREFIX", tmp, 1);
	ck_assert_int_eq(caret_seg_create(&s, 1 << 20, "proc", "jazzy"), 0);
	setenv("CARET_SHM_PREFIX", prefix, 1);
	s.shared_hdr->pid = pid;
	s.shared_hdr->start_time = start;
	snprintf(s.shared_hdr->procname, sizeof(s.shared_hdr->procname), "p%d", (int)pid);
	char from[160], to[160], name[CARET_SHM_NAME_MAX];
	ck_assert_int_eq(caret_seg_name(name, sizeof(name), pid, start), 0);
	snprintf(from, sizeof(from), "/dev/shm/%s", s.name);
	snprintf(to, sizeof(to), "/dev/shm/%s", name);
	ck_assert_int_eq(rename(from, to), 0);
	snprintf(s.name, sizeof(s.name), "%s", name);
	return s;
}

static void put(struct caret_seg *s, int64_t ts, uint64_t handle)
{
	union caret_arg a[] = { CARET_P(handle) };
	ck_assert_int_eq(caret_seg_append(s, CARET_KIND_rcl_init, ts, a), 0);
}

static void drop(struct caret_seg *s)
{
	char name[CARET_SHM_NAME_MAX];
	strcpy(name, s->name);
	caret_seg_close(s);
	caret_seg_unlink(name);
}

struct ev {
	int64_t ts;
	pid_t pid;
	uint64_t start;
	uint32_t idx;
	uint64_t handle;
};

struct evs {
	struct ev *v;
	size_t n, cap;
};

static int collect(const struct caret_reader_event *e, void *ctx)
{
	struct evs *l = ctx;
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		ck_assert_ptr_nonnull(l->v);
	}
	ck_assert_uint_eq(e->rec.kind, CARET_KIND_rcl_init);
	struct ev *v = &l->v[l->n++];
	memset(v, 0, sizeof(*v)); /* compared with memcmp: no stray padding */
	v->ts = e->rec.init_timestamp;
	v->pid = e->pid;
	v->start = e->start_time;
	v->idx = e->index;
	v->handle = e->rec.args[0].u;
	return 0;
}

static int ev_cmp(const struct ev *a, const struct ev *b)
{
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

static void assert_sorted(const struct evs *l)
{
	for (size_t i = 1; i < l->n; i++)
		ck_assert_msg(ev_cmp(&l->v[i - 1], &l->v[i]) < 0, "not in order at %zu", i);
}

static struct caret_reader *open_reader(int64_t window)
{
	struct caret_reader *r;
	struct caret_reader_opts o = { .window_ns = window };
	ck_assert_int_eq(caret_reader_open(&r, &o), 0);
	return r;
}

static struct evs read_all(struct caret_reader *r)
{
	struct evs l = { 0 };
	caret_reader_seek_begin(r);
	ck_assert_int_ge(caret_reader_read_count(r, UINT64_MAX, collect, &l), 0);
	return l;
}

/* Three processes (two sharing a pid with different start times), equal
 * timestamps within and across segments, appends out of order. */
static struct caret_seg set3[3];
static size_t set3_total;

static void make_set3(void)
{
	set3[0] = mk(300, 7);
	set3[1] = mk(100, 5);
	set3[2] = mk(300, 2);
	static const int64_t ts[3][8] = {
		{ 10, 10, 30, 20, 20, 50, 40, 40 },
		{ 20, 10, 10, 10, 60, 55, 50, 50 },
		{ 40, 30, 20, 10, 10, 30, 70, 70 },
	};
	for (int s = 0; s < 3; s++)
		for (int i = 0; i < 8; i++)
			put(&set3[s], ts[s][i], (uint64_t)(s * 100 + i));
	set3_total = 24;
}

static void drop_set3(void)
{
	for (int s = 0; s < 3; s++)
		drop(&set3[s]);
}

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

static Suite *suite(void)
{
	Suite *s = suite_create("reader");
	TCase *t = unit_case(s, "reader", test_merge_order_ties_out_of_order,
			     test_concurrent_appends_merged_in_order, test_growth_window_and_late,
			     test_appear_and_vanish, test_tokens_round_trip, test_corrupted_tokens,
			     test_corrupted_segments, test_truncated_under_reader,
			     test_hostile_header_skipped, test_pages_of_every_size,
			     test_only_chosen_pids, test_filter);
	tcase_add_checked_fixture(t, setup, NULL);
	return s;
}

int main(void)
{
	return unit_run(suite());
}
