/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of the record encoding and the shm cache (Check). */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <ucontext.h>
#include <unistd.h>

#include "shm/caret_shm.h"
#include "tests/unit/shm_fixture.h"
#include "tests/unit/unit.h"

char prefix[32];

static void setup(void)
{
	snprintf(prefix, sizeof(prefix), "caret-ut-%d", (int)getpid());
	setenv("CARET_SHM_PREFIX", prefix, 1);
}

struct caret_seg seg;

void make_seg(uint64_t cap)
{
	ck_assert_int_eq(caret_seg_create(&seg, cap, "unit", "jazzy"), 0);
}

void drop_seg(void)
{
	char name[CARET_SHM_NAME_MAX];
	strcpy(name, seg.name);
	caret_seg_close(&seg);
	caret_seg_unlink(name);
}

/* ---- encoding ---- */
START_TEST(test_roundtrip_every_kind)
{
	uint8_t buf[CARET_REC_MAX];
	for (uint32_t k = 1; k < CARET_KIND_COUNT; k++) {
		const char *sig = caret_kind_sig(k);
		ck_assert_ptr_nonnull(sig);
		union caret_arg a[CARET_MAX_FIELDS];
		const char *strs[] = { "/topic", "", "node-x", "ns" };
		for (unsigned i = 0; sig[i]; i++) {
			if (sig[i] == 's')
				a[i].s = strs[i % 4];
			else
				a[i].u = 0x1000u * k + i;
		}
		uint32_t sz = caret_rec_encoded_size(k, a);
		ck_assert_uint_gt(sz, 0);
		ck_assert_uint_eq(sz % 8, 0);
		memset(buf, 0, sizeof(buf));
		caret_rec_encode(buf, sz, k, -42 - (int64_t)k, a);
		uint64_t off = 0;
		struct caret_rec_view v;
		ck_assert_int_eq(caret_rec_next(buf, sizeof(buf), &off, &v), 1);
		ck_assert_uint_eq(off, sz);
		ck_assert_uint_eq(v.kind, k);
		ck_assert_int_eq(v.init_timestamp, -42 - (int64_t)k);
		ck_assert_uint_eq(v.nfields, strlen(sig));
		for (unsigned i = 0; sig[i]; i++) {
			if (sig[i] == 's')
				ck_assert_str_eq(v.args[i].s, strs[i % 4]);
			else
				ck_assert_uint_eq(v.args[i].u, 0x1000u * k + i);
		}
		/* next slot is zero: end of records */
		ck_assert_int_eq(caret_rec_next(buf, sizeof(buf), &off, &v), 0);
	}
}
END_TEST

START_TEST(test_null_and_long_strings)
{
	static char longs[CARET_STR_MAX + 100];
	memset(longs, 'x', sizeof(longs) - 1);
	union caret_arg a[] = { { .u = 1 }, { .s = NULL } };
	uint8_t *buf = calloc(1, CARET_REC_MAX);
	uint32_t sz = caret_rec_encoded_size(CARET_KIND_rclcpp_callback_register, a);
	caret_rec_encode(buf, sz, CARET_KIND_rclcpp_callback_register, 1, a);
	uint64_t off = 0;
	struct caret_rec_view v;
	ck_assert_int_eq(caret_rec_next(buf, CARET_REC_MAX, &off, &v), 1);
	ck_assert_str_eq(v.args[1].s, "");
	a[1].s = longs;
	memset(buf, 0, CARET_REC_MAX);
	sz = caret_rec_encoded_size(CARET_KIND_rclcpp_callback_register, a);
	caret_rec_encode(buf, sz, CARET_KIND_rclcpp_callback_register, 1, a);
	off = 0;
	ck_assert_int_eq(caret_rec_next(buf, CARET_REC_MAX, &off, &v), 1);
	ck_assert_uint_eq(strlen(v.args[1].s), CARET_STR_MAX);
	ck_assert_uint_eq(caret_rec_encoded_size(999, a), 0);
	free(buf);
}
END_TEST

/* caret_seg_append encodes from a compile-time layout table (the agent's
 * fast path); it must write exactly what the generic encoder writes, for
 * every kind, with empty, NULL, short and over-long strings. */
START_TEST(test_append_matches_encode)
{
	static char longs[CARET_STR_MAX + 100];
	memset(longs, 'y', sizeof(longs) - 1);
	const char *strs[] = { "/topic", "", NULL, longs, "n" };
	uint8_t *buf = calloc(1, CARET_REC_MAX);
	make_seg(CARET_SHM_HEADER_SIZE + 64u * CARET_REC_MAX);
	uint64_t off = 0;
	for (unsigned variant = 0; variant < 5; variant++) {
		for (uint32_t k = 1; k < CARET_KIND_COUNT; k++) {
			const char *sig = caret_kind_sig(k);
			union caret_arg a[CARET_MAX_FIELDS];
			for (unsigned i = 0; sig[i]; i++) {
				if (sig[i] == 's')
					a[i].s = strs[(i + variant) % 5];
				else
					a[i].u = 0x0102030405060708ull * (k + i + variant);
			}
			uint32_t sz = caret_rec_encoded_size(k, a);
			memset(buf, 0, CARET_REC_MAX);
			caret_rec_encode(buf, sz, k, 7 * (int64_t)k, a);
			ck_assert_int_eq(caret_seg_append(&seg, k, 7 * (int64_t)k, a), 0);
			ck_assert_mem_eq(seg.area + off, buf, sz);
			off += sz;
		}
	}
	ck_assert_int_eq(caret_seg_append(&seg, 0, 1, NULL), -EINVAL);
	ck_assert_int_eq(caret_seg_append(&seg, CARET_KIND_COUNT, 1, NULL), -EINVAL);
	ck_assert_int_eq(caret_seg_append(&seg, 999, 1, NULL), -EINVAL);
	struct caret_seg_status st;
	caret_seg_read_status(&seg, &st);
	ck_assert_uint_eq(st.records, 5u * (CARET_KIND_COUNT - 1));
	drop_seg();
	free(buf);
}
END_TEST

START_TEST(test_kind_names)
{
	ck_assert_str_eq(caret_kind_name(CARET_KIND_rcl_node_init), "rcl_node_init");
	ck_assert_int_eq(caret_kind_by_name("callback_group_add_client"),
			 CARET_KIND_callback_group_add_client);
	ck_assert_int_eq(caret_kind_by_name("nope"), -ENOENT);
	ck_assert_ptr_null(caret_kind_name(0));
	ck_assert_ptr_null(caret_kind_name(CARET_KIND_COUNT));
}
END_TEST

/* ---- naming ---- */
START_TEST(test_names)
{
	char n[CARET_SHM_NAME_MAX];
	ck_assert_int_eq(caret_seg_name(n, sizeof(n), 1234, 987654), 0);
	pid_t p;
	uint64_t st;
	ck_assert_int_eq(caret_seg_parse_name(n, &p, &st), 0);
	ck_assert_int_eq(p, 1234);
	ck_assert_uint_eq(st, 987654);
	const char *bad[] = { "x.1.2", "", ".1.2", "caret-agent.1.2" };
	for (size_t i = 0; i < 4; i++)
		ck_assert_int_eq(caret_seg_parse_name(bad[i], &p, &st), -EINVAL);
	char b[128];
	snprintf(b, sizeof(b), "%s.0.5", prefix);
	ck_assert_int_eq(caret_seg_parse_name(b, &p, &st), -EINVAL);
	snprintf(b, sizeof(b), "%s.12x.5", prefix);
	ck_assert_int_eq(caret_seg_parse_name(b, &p, &st), -EINVAL);
	snprintf(b, sizeof(b), "%s.12.5z", prefix);
	ck_assert_int_eq(caret_seg_parse_name(b, &p, &st), -EINVAL);
	/* the fallback of a squatted name: a 16-hex-digit suffix, nothing else */
	snprintf(b, sizeof(b), "%s.12.5.0123456789abcdef", prefix);
	ck_assert_int_eq(caret_seg_parse_name(b, &p, &st), 0);
	ck_assert_int_eq(p, 12);
	ck_assert_uint_eq(st, 5);
	const char *bad_sfx[] = { ".0123456789abcde", ".0123456789abcdefa", ".0123456789ABCDEF",
				  ".", ".x123456789abcdef" };
	for (size_t i = 0; i < 5; i++) {
		snprintf(b, sizeof(b), "%s.12.5%s", prefix, bad_sfx[i]);
		ck_assert_int_eq(caret_seg_parse_name(b, &p, &st), -EINVAL);
	}
	setenv("CARET_SHM_PREFIX", "../evil", 1);
	ck_assert_str_eq(caret_shm_prefix(), CARET_SHM_DEFAULT_PREFIX);
	uint64_t mine;
	ck_assert_int_eq(caret_proc_start_time(getpid(), &mine), 0);
	ck_assert_uint_gt(mine, 0);
	ck_assert_int_lt(caret_proc_start_time(0x3ffffff0, &mine), 0);
}
END_TEST

/* ---- create / attach ---- */
START_TEST(test_create_attach)
{
	make_seg(1 << 20);
	char path[256];
	snprintf(path, sizeof(path), "/dev/shm/%s", seg.name);
	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0600);
	ck_assert_int_eq((int)st.st_size, 1 << 20);
	/* sparse: an empty cache costs (almost) nothing */
	ck_assert_int_le(st.st_blocks * 512, 16 * 4096);

	union caret_arg a[] = { CARET_P(0x10), CARET_P(0x20), CARET_S("talker"), CARET_S("/") };
	ck_assert_int_eq(caret_seg_append(&seg, CARET_KIND_rcl_node_init, 77, a), 0);
	struct caret_seg b;
	ck_assert_int_eq(caret_seg_attach(&b, seg.name), 0);
	ck_assert_int_eq(b.id.pid, getpid());
	ck_assert_str_eq(b.id.procname, "unit");
	ck_assert_str_eq(b.id.distribution, "jazzy");
	/* the identity is a private copy: the owner rewriting its header
	 * after validation changes nothing the attacher reads */
	memcpy(seg.shared_hdr->procname, "evil\0", 5);
	seg.shared_hdr->uid = 4242;
	ck_assert_str_eq(b.id.procname, "unit");
	ck_assert_uint_eq(b.id.uid, getuid());
	memcpy(seg.shared_hdr->procname, "unit\0", 5);
	seg.shared_hdr->uid = getuid();
	uint8_t *snap;
	int64_t n = caret_seg_snapshot(&b, &snap);
	ck_assert_int_gt(n, 0);
	uint64_t off = 0;
	struct caret_rec_view v;
	ck_assert_int_eq(caret_rec_next(snap, (uint64_t)n, &off, &v), 1);
	ck_assert_str_eq(v.args[2].s, "talker");
	ck_assert_int_eq(caret_rec_next(snap, (uint64_t)n, &off, &v), 0);
	free(snap);
	/* state written by the controller is what the owner sees */
	caret_own_set_state(&seg, CARET_STATE_WAIT);
	ck_assert_int_eq(caret_drive_set_state(&b, CARET_STATE_WAIT, CARET_STATE_RECORD), 0);
	ck_assert_uint_eq(__atomic_load_n(caret_own_state_word(&seg), __ATOMIC_ACQUIRE),
			  CARET_STATE_RECORD);
	ck_assert_uint_eq(caret_seg_state(&b), CARET_STATE_RECORD);
	ck_assert_int_eq(caret_drive_set_state(&b, CARET_STATE_RECORD, 9), -EINVAL);
	ck_assert_int_eq(caret_drive_set_state(&b, 9, CARET_STATE_WAIT), -EINVAL);
	caret_seg_close(&b);
	/* the name held by our own user is this process's previous image (an
	 * exec keeps pid and start time): created again, it is a new file */
	struct caret_seg again;
	ck_assert_int_eq(caret_seg_create(&again, 1 << 20, "unit", "jazzy"), 0);
	ck_assert_str_eq(again.name, seg.name);
	struct stat st2;
	ck_assert_int_eq(stat(path, &st2), 0);
	ck_assert_uint_ne(st2.st_ino, st.st_ino);
	caret_seg_close(&again);
	drop_seg();
	ck_assert_int_eq(caret_seg_attach(&b, "no-such-segment"), -ENOENT);
	ck_assert_int_eq(caret_seg_attach(&b, "../etc/passwd"), -EINVAL);
}
END_TEST

START_TEST(test_bad_capacity)
{
	struct caret_seg s;
	ck_assert_int_eq(caret_seg_create(&s, 100, "x", "y"), -EINVAL);
	ck_assert_int_eq(caret_seg_create(&s, CARET_SHM_MAX_CAPACITY + 8, "x", "y"), -EINVAL);
}
END_TEST

/* ---- concurrency ---- */
#define THREADS 4
#define PER_THREAD 20000

static void *appender(void *arg)
{
	uintptr_t id = (uintptr_t)arg;
	for (uint64_t i = 0; i < PER_THREAD; i++) {
		union caret_arg a[] = { CARET_P(id), CARET_I(i) };
		if (i % 3 == 0) {
			char sym[32];
			snprintf(sym, sizeof(sym), "cb_%lu_%lu", (unsigned long)id,
				 (unsigned long)i);
			union caret_arg b[] = { CARET_P(id << 32 | i), CARET_S(sym) };
			ck_assert_int_eq(caret_seg_append(&seg, CARET_KIND_rclcpp_callback_register,
							  (int64_t)i, b), 0);
		} else {
			ck_assert_int_eq(caret_seg_append(&seg, CARET_KIND_rcl_timer_init,
							  (int64_t)i, a), 0);
		}
	}
	return NULL;
}

START_TEST(test_concurrent_appends)
{
	make_seg(64 << 20);
	pthread_t t[THREADS];
	for (uintptr_t i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, appender, (void *)i);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	ck_assert_uint_eq(seg.shared_hdr->records, THREADS * PER_THREAD);
	ck_assert_uint_eq(seg.shared_hdr->dropped, 0);
	uint64_t next[THREADS] = { 0 };
	uint64_t off = 0, count = 0;
	struct caret_rec_view v;
	int r;
	while ((r = caret_rec_next(seg.area, seg.area_cap, &off, &v)) == 1) {
		uint64_t id, i;
		if (v.kind == CARET_KIND_rcl_timer_init) {
			id = v.args[0].u;
			i = v.args[1].u;
		} else {
			ck_assert_uint_eq(v.kind, CARET_KIND_rclcpp_callback_register);
			id = v.args[0].u >> 32;
			i = v.args[0].u & 0xffffffff;
			char want[32];
			snprintf(want, sizeof(want), "cb_%lu_%lu", (unsigned long)id,
				 (unsigned long)i);
			ck_assert_str_eq(v.args[1].s, want);
		}
		ck_assert_uint_lt(id, THREADS);
		/* each thread's records appear in its own order */
		ck_assert_uint_eq(i, next[id]);
		ck_assert_int_eq(v.init_timestamp, (int64_t)i);
		next[id]++;
		count++;
	}
	ck_assert_int_eq(r, 0);
	ck_assert_uint_eq(count, THREADS * PER_THREAD);
	ck_assert_uint_eq(off, seg.shared_hdr->tail);
	drop_seg();
}
END_TEST

START_TEST(test_full_cache_counts_drops)
{
	make_seg(CARET_SHM_MIN_CAPACITY);
	union caret_arg a[] = { CARET_P(1), CARET_I(2) };
	uint32_t sz = caret_rec_encoded_size(CARET_KIND_rcl_timer_init, a);
	uint64_t fit = (CARET_SHM_MIN_CAPACITY - CARET_SHM_HEADER_SIZE) / sz;
	for (uint64_t i = 0; i < fit; i++)
		ck_assert_int_eq(caret_seg_append(&seg, CARET_KIND_rcl_timer_init, 1, a), 0);
	for (int i = 0; i < 10; i++)
		ck_assert_int_eq(caret_seg_append(&seg, CARET_KIND_rcl_timer_init, 1, a), -ENOSPC);
	ck_assert_uint_eq(seg.shared_hdr->records, fit);
	ck_assert_uint_eq(seg.shared_hdr->dropped, 10);
	ck_assert_uint_eq(seg.shared_hdr->dropped_bytes, 10 * sz);
	ck_assert_uint_le(seg.shared_hdr->tail, seg.area_cap);
	uint64_t off = 0, n = 0;
	struct caret_rec_view v;
	while (caret_rec_next(seg.area, seg.area_cap, &off, &v) == 1)
		n++;
	ck_assert_uint_eq(n, fit);
	ck_assert_int_eq(caret_seg_append(&seg, 0, 1, a), -EINVAL);
	drop_seg();
}
END_TEST

/* One table for state names, and names that read back to their values. */
START_TEST(test_state_names)
{
	ck_assert_str_eq(caret_state_name(CARET_STATE_UNINITIALIZED), "UNINITIALIZED");
	ck_assert_str_eq(caret_state_name(CARET_STATE_WAIT), "WAIT");
	ck_assert_str_eq(caret_state_name(CARET_STATE_PREPARE), "PREPARE");
	ck_assert_str_eq(caret_state_name(CARET_STATE_RECORD), "RECORD");
	ck_assert_str_eq(caret_state_name(CARET_STATE_MAX + 1), "INVALID");
	ck_assert_int_eq(caret_state_by_name("prepare"), CARET_STATE_PREPARE);
	ck_assert_int_eq(caret_state_by_name("Record"), CARET_STATE_RECORD);
	ck_assert_int_eq(caret_state_by_name("INVALID"), -ENOENT);
}
END_TEST

struct scan_seen {
	char want[CARET_SHM_NAME_MAX];
	int found, others;
};

static int scan_cb(const char *name, pid_t pid, uint64_t start, void *p)
{
	struct scan_seen *s = p;
	if (strcmp(name, s->want) == 0) {
		ck_assert_int_eq(pid, getpid());
		uint64_t mine;
		ck_assert_int_eq(caret_proc_start_time(getpid(), &mine), 0);
		ck_assert_uint_eq(start, mine);
		s->found++;
	} else {
		s->others++;
	}
	return 0;
}

static int scan_stop(const char *name, pid_t pid, uint64_t start, void *p)
{
	(void)name, (void)pid, (void)start, (void)p;
	return 7;
}

/* The scan sees our segment, only names of our prefix, and stops when
 * told. */
START_TEST(test_scan)
{
	make_seg(1 << 20);
	/* a file that is not ours, next to it */
	char other[64];
	snprintf(other, sizeof(other), "/%s-not.1.2", prefix);
	int fd = shm_open(other, O_CREAT | O_RDWR, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	struct scan_seen s = { .found = 0 };
	strcpy(s.want, seg.name);
	ck_assert_int_eq(caret_seg_scan(scan_cb, &s), 0);
	ck_assert_int_eq(s.found, 1);
	ck_assert_int_eq(s.others, 0);
	ck_assert_int_eq(caret_seg_scan(scan_stop, NULL), 7);
	shm_unlink(other);
	drop_seg();
}
END_TEST

static int count_cb(const struct caret_rec_view *v, void *ctx)
{
	uint64_t *acc = ctx;
	acc[0]++;
	acc[1] += v->args[0].u;
	acc[2] += strlen(v->args[1].s);
	return 0;
}

/* The bounded-memory walk sees exactly what a walk over the mapping sees,
 * across many chunk boundaries with records of varying sizes. */
START_TEST(test_chunked_walk)
{
	make_seg(32 << 20);
	char sym[3000];
	uint64_t want[3] = { 0 };
	for (uint64_t i = 0; i < 6000; i++) {
		size_t l = (i * 7919) % sizeof(sym);
		memset(sym, 'a' + (int)(i % 26), l);
		sym[l] = '\0';
		union caret_arg a[] = { CARET_P(i), CARET_S(sym) };
		ck_assert_int_eq(caret_seg_append(&seg, CARET_KIND_rclcpp_callback_register, 1, a), 0);
		want[0]++;
		want[1] += i;
		want[2] += l;
	}
	ck_assert_uint_gt(seg.shared_hdr->tail, 4 * CARET_REC_MAX);
	uint64_t got[3] = { 0 };
	ck_assert_int_eq(caret_seg_walk(&seg, count_cb, got), (int64_t)want[0]);
	ck_assert_uint_eq(got[0], want[0]);
	ck_assert_uint_eq(got[1], want[1]);
	ck_assert_uint_eq(got[2], want[2]);
	/* corruption in the middle is reported, not skipped */
	struct caret_rec_hdr *h = (void *)(seg.area + 3 * CARET_REC_MAX + 8);
	uint64_t off = 0;
	struct caret_rec_view v;
	while (off < 3 * CARET_REC_MAX)
		ck_assert_int_eq(caret_rec_next(seg.area, seg.area_cap, &off, &v), 1);
	h = (void *)(seg.area + off);
	h->size = 12;
	memset(got, 0, sizeof(got));
	ck_assert_int_eq(caret_seg_walk(&seg, count_cb, got), -EBADMSG);
	drop_seg();
}
END_TEST

/* The pass filter block (struct caret_shm_filter): what the controller
 * stages, the agent reads back; hostile or torn blocks never pass. */
static struct caret_shm_filter *fblock(void)
{
	return (struct caret_shm_filter *)((uint8_t *)seg.shared_hdr + CARET_SHM_FILTER_OFFSET);
}

START_TEST(test_pass_filter_block)
{
	make_seg(1 << 20);
	struct caret_filter_text ft;
	/* a new segment has none */
	ck_assert_int_eq(caret_own_read_filter(&seg, 1, &ft), 0);
	struct caret_filter_lists f = { { "/a$:^/b", NULL, "topic_\\d", "/rosout" } };
	ck_assert_int_eq(caret_filter_check(&f), 0);
	ck_assert(!caret_filter_empty(&f));
	int64_t e = caret_drive_stage_filter(&seg, &f);
	ck_assert_int_eq(e, 1); /* the epoch the next pass will have */
	caret_own_set_state(&seg, CARET_STATE_WAIT);
	ck_assert_int_eq(caret_drive_begin_replay(&seg, CARET_STATE_WAIT), e);
	ck_assert_int_eq(caret_own_read_filter(&seg, (uint32_t)e, &ft), 1);
	ck_assert_str_eq(ft.f.list[0], "/a$:^/b");
	ck_assert_str_eq(ft.f.list[1], "");
	ck_assert_str_eq(ft.f.list[2], "topic_\\d");
	ck_assert_str_eq(ft.f.list[3], "/rosout");
	ck_assert_int_eq(caret_own_read_filter(&seg, (uint32_t)e + 1, &ft), 0);
	ck_assert_int_eq(caret_own_read_filter(&seg, 0, &ft), 0);
	ck_assert_uint_eq(*caret_own_filter_word(&seg), (uint32_t)e);
	/* hostile lengths: beyond the text, or summing beyond it */
	struct caret_shm_filter *b = fblock();
	b->len[0] = CARET_SHM_FILTER_TEXT_MAX + 1;
	ck_assert_int_eq(caret_own_read_filter(&seg, (uint32_t)e, &ft), -EBADMSG);
	b->len[0] = 2000;
	b->len[1] = 2000;
	ck_assert_int_eq(caret_own_read_filter(&seg, (uint32_t)e, &ft), -EBADMSG);
	b->len[0] = b->len[1] = b->len[2] = b->len[3] = CARET_SHM_FILTER_TEXT_MAX / 4;
	memset(b->text, 'a', sizeof(b->text));
	ck_assert_int_eq(caret_own_read_filter(&seg, (uint32_t)e, &ft), 1);
	ck_assert_uint_eq(strlen(ft.f.list[3]), CARET_SHM_FILTER_TEXT_MAX / 4);
	/* a NUL or invalid UTF-8 inside a list */
	b->text[3] = '\0';
	ck_assert_int_eq(caret_own_read_filter(&seg, (uint32_t)e, &ft), -EBADMSG);
	b->text[3] = (char)0xff;
	ck_assert_int_eq(caret_own_read_filter(&seg, (uint32_t)e, &ft), -EBADMSG);
	/* End clears it */
	ck_assert_int_eq(caret_drive_set_state(&seg, CARET_STATE_PREPARE, CARET_STATE_WAIT), 0);
	ck_assert_int_eq(caret_own_read_filter(&seg, (uint32_t)e, &ft), 0);
	/* what caretd refuses to stage */
	static const char *const bad_utf8[] = { "\xc0\xaf", "\xed\xa0\x80", "\xe2\x82",
						"\xf4\x90\x80\x80", "\x80" };
	for (size_t i = 0; i < sizeof(bad_utf8) / sizeof(bad_utf8[0]); i++) {
		struct caret_filter_lists g = { { NULL, NULL, bad_utf8[i], NULL } };
		ck_assert_int_eq(caret_filter_check(&g), -EILSEQ);
		ck_assert_int_eq(caret_drive_stage_filter(&seg, &g), -EILSEQ);
	}
	struct caret_filter_lists ok8 = { { "/n\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", NULL, NULL,
					    NULL } };
	ck_assert_int_eq(caret_filter_check(&ok8), 0);
	static char big[CARET_SHM_FILTER_TEXT_MAX / 2 + 2]; /* one byte too many for two */
	memset(big, 'x', sizeof(big) - 1);
	struct caret_filter_lists two = { { big, big, NULL, NULL } };
	ck_assert_int_eq(caret_filter_check(&two), -E2BIG);
	struct caret_filter_lists one = { { big, NULL, NULL, NULL } };
	ck_assert_int_eq(caret_filter_check(&one), 0);
	struct caret_filter_lists none = { { "", NULL, "", NULL } };
	ck_assert(caret_filter_empty(&none));
	drop_seg();
}
END_TEST

START_TEST(test_parse_size)
{
	uint64_t v;
	ck_assert_int_eq(caret_parse_size("4096", 1ULL << 40, &v), 0);
	ck_assert_uint_eq(v, 4096);
	ck_assert_int_eq(caret_parse_size("64M", 1ULL << 40, &v), 0);
	ck_assert_uint_eq(v, 64ULL << 20);
	ck_assert_int_eq(caret_parse_size("2g", 1ULL << 40, &v), 0);
	ck_assert_uint_eq(v, 2ULL << 30);
	/* would wrap around when shifted: refused, not accepted as small */
	ck_assert_int_eq(caret_parse_size("17179869184G", UINT64_MAX, &v), -ERANGE);
	ck_assert_int_eq(caret_parse_size("99999999999999999999999", UINT64_MAX, &v), -ERANGE);
	ck_assert_int_eq(caret_parse_size("2K", 1024, &v), -ERANGE);
	ck_assert_int_eq(caret_parse_size("0", 10, &v), -ERANGE);
	const char *bad[] = { "", "K", "-5", " 5", "5MB", "5x", "1.5M" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_int_eq(caret_parse_size(bad[i], UINT64_MAX, &v), -EINVAL);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("shm");
	TCase *t = unit_case(s, "core", test_roundtrip_every_kind, test_append_matches_encode,
			     test_null_and_long_strings,
			     test_kind_names, test_names, test_create_attach, test_bad_capacity,
			     test_concurrent_appends, test_full_cache_counts_drops,
			     test_state_names, test_scan,
			     test_chunked_walk, test_parse_size, test_pass_filter_block);
	add_handshake_tests(t);
	add_hostile_tests(t);
	add_counter_tests(t);
	tcase_add_checked_fixture(t, setup, NULL);
	tcase_set_timeout(t, 120);
	return s;
}

int main(void)
{
	return unit_run(suite());
}
