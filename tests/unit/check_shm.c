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
#include "tests/unit/unit.h"

static char prefix[32];

static void setup(void)
{
	snprintf(prefix, sizeof(prefix), "caret-ut-%d", (int)getpid());
	setenv("CARET_SHM_PREFIX", prefix, 1);
}

static struct caret_seg seg;

static void make_seg(uint64_t cap)
{
	ck_assert_int_eq(caret_seg_create(&seg, cap, "unit", "jazzy"), 0);
}

static void drop_seg(void)
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

/* ---- hostile segments ---- */
static void corrupt_header_and_expect(size_t field_off, const void *val, size_t len, int want)
{
	make_seg(1 << 20);
	uint8_t saved[64];
	memcpy(saved, (uint8_t *)seg.shared_hdr + field_off, len);
	memcpy((uint8_t *)seg.shared_hdr + field_off, val, len);
	struct caret_seg b;
	int r = caret_seg_attach(&b, seg.name);
	ck_assert_msg(r == want, "offset %zu: got %d want %d", field_off, r, want);
	if (r == 0)
		caret_seg_close(&b);
	memcpy((uint8_t *)seg.shared_hdr + field_off, saved, len);
	drop_seg();
}

#define HOFF(f) __builtin_offsetof(struct caret_shm_header, f)

START_TEST(test_hostile_headers)
{
	uint64_t u64;
	uint32_t u32;
	int32_t i32;
	u64 = 0x1234;
	corrupt_header_and_expect(HOFF(magic), &u64, 8, -EBADMSG);
	u32 = CARET_SHM_LAYOUT_VERSION + 1;
	corrupt_header_and_expect(HOFF(layout_version), &u32, 4, -EPROTO);
	u32 = 1; /* records without a claim word */
	corrupt_header_and_expect(HOFF(layout_version), &u32, 4, -EPROTO);
	u32 = 8;
	corrupt_header_and_expect(HOFF(header_size), &u32, 4, -EBADMSG);
	u64 = 2 << 20;
	corrupt_header_and_expect(HOFF(capacity), &u64, 8, -EBADMSG);
	u64 = (1 << 20) + 3;
	corrupt_header_and_expect(HOFF(capacity), &u64, 8, -EBADMSG);
	i32 = -5;
	corrupt_header_and_expect(HOFF(pid), &i32, 4, -EBADMSG);
	i32 = getpid() + 1;
	corrupt_header_and_expect(HOFF(pid), &i32, 4, -EBADMSG); /* name mismatch */
	u32 = 4242;
	corrupt_header_and_expect(HOFF(uid), &u32, 4, -EPERM);
	u64 = 1;
	corrupt_header_and_expect(HOFF(start_time), &u64, 8, -EBADMSG);
	char junk[16];
	memset(junk, 'A', sizeof(junk));
	corrupt_header_and_expect(HOFF(procname), junk, 16, -EBADMSG);
	corrupt_header_and_expect(HOFF(distribution), junk, 16, -EBADMSG);
	u32 = 7;
	corrupt_header_and_expect(HOFF(state), &u32, 4, -EBADMSG);
	u64 = 1 << 20;
	corrupt_header_and_expect(HOFF(tail), &u64, 8, -EBADMSG);
	u64 = 12;
	corrupt_header_and_expect(HOFF(tail), &u64, 8, -EBADMSG);
}
END_TEST

START_TEST(test_hostile_files)
{
	char name[64], path[128];
	struct caret_seg b;
	/* truncated: shorter than a header */
	snprintf(name, sizeof(name), "%s.%d.1", prefix, 99);
	snprintf(path, sizeof(path), "/dev/shm/%s", name);
	int fd = open(path, O_CREAT | O_RDWR | O_EXCL, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "CARETSHM", 8), 8);
	ck_assert_int_eq(caret_seg_attach(&b, name), -EBADMSG);
	/* garbage of a plausible size */
	ck_assert_int_eq(ftruncate(fd, 1 << 20), 0);
	uint8_t junk[4096];
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (uint8_t)(i * 131 + 7);
	ck_assert_int_eq(pwrite(fd, junk, sizeof(junk), 0), (ssize_t)sizeof(junk));
	ck_assert_int_eq(caret_seg_attach(&b, name), -EBADMSG);
	close(fd);
	unlink(path);
	/* a symlink is never followed */
	ck_assert_int_eq(symlink("/etc/passwd", path), 0);
	ck_assert_int_eq(caret_seg_attach(&b, name), -ELOOP);
	unlink(path);
	/* a directory is not a segment */
	ck_assert_int_eq(mkdir(path, 0700), 0);
	ck_assert_int_lt(caret_seg_attach(&b, name), 0);
	rmdir(path);
}
END_TEST

START_TEST(test_truncated_under_reader)
{
	make_seg(1 << 20);
	union caret_arg a[] = { CARET_P(1), CARET_I(2) };
	for (int i = 0; i < 100; i++)
		caret_seg_append(&seg, CARET_KIND_rcl_timer_init, 1, a);
	struct caret_seg b;
	ck_assert_int_eq(caret_seg_attach(&b, seg.name), 0);
	/* the owner shrinks the file after attach: a pread-based snapshot
	 * reports it instead of dying of SIGBUS */
	ck_assert_int_eq(ftruncate(seg.fd, CARET_SHM_HEADER_SIZE + 64), 0);
	uint8_t *snap;
	ck_assert_int_lt(caret_seg_snapshot(&b, &snap), 0);
	caret_seg_close(&b);
	seg.base = NULL; /* mapping is past EOF now; unmap below */
	munmap(seg.shared_hdr, seg.map_len);
	drop_seg();
}
END_TEST

static int next_err(const uint8_t *buf, uint64_t len)
{
	uint64_t off = 0;
	struct caret_rec_view v;
	int r;
	while ((r = caret_rec_next(buf, len, &off, &v)) == 1)
		;
	return r;
}

START_TEST(test_hostile_records)
{
	uint8_t buf[256];
	union caret_arg a[] = { CARET_P(1), CARET_S("abc") };
	const uint32_t k = CARET_KIND_rclcpp_callback_register;
	uint32_t sz = caret_rec_encoded_size(k, a); /* 24 + 8 + 4 + 3 + 1 = 40 */
	ck_assert_uint_eq(sz, 40);
#define FRESH() do { memset(buf, 0, sizeof(buf)); caret_rec_encode(buf, sz, k, 5, a); } while (0)
	FRESH();
	ck_assert_int_eq(next_err(buf, sizeof(buf)), 0);
	struct caret_rec_hdr *h = (void *)buf;
	FRESH(); h->size = 0;
	ck_assert_int_eq(next_err(buf, sizeof(buf)), -EBADMSG);
	FRESH(); h->size = 41;
	ck_assert_int_eq(next_err(buf, sizeof(buf)), -EBADMSG);
	FRESH(); h->size = 48; /* longer than the fields need */
	ck_assert_int_eq(next_err(buf, sizeof(buf)), -EBADMSG);
	FRESH(); h->size = 32; /* shorter than the fields need */
	ck_assert_int_eq(next_err(buf, sizeof(buf)), -EBADMSG);
	FRESH(); h->size = 1u << 30;
	ck_assert_int_eq(next_err(buf, sizeof(buf)), -EBADMSG);
	FRESH();
	ck_assert_int_eq(next_err(buf, 32), -EBADMSG); /* crosses the end */
	/* The claim is the agent's, changed after commit: any value decodes. */
	FRESH(); h->claim = UINT64_MAX;
	ck_assert_int_eq(next_err(buf, sizeof(buf)), 0);
	FRESH(); h->kind = 999;
	ck_assert_int_eq(next_err(buf, sizeof(buf)), -EBADMSG);
	uint32_t l;
	FRESH(); l = 100; memcpy(buf + 32, &l, 4); /* string beyond the record */
	ck_assert_int_eq(next_err(buf, sizeof(buf)), -EBADMSG);
	FRESH(); l = 0xffffffffu; memcpy(buf + 32, &l, 4);
	ck_assert_int_eq(next_err(buf, sizeof(buf)), -EBADMSG);
	FRESH(); buf[39] = 'z'; /* missing NUL */
	ck_assert_int_eq(next_err(buf, sizeof(buf)), -EBADMSG);
	FRESH(); buf[37] = '\0'; /* NUL inside the declared length */
	ck_assert_int_eq(next_err(buf, sizeof(buf)), -EBADMSG);
	uint64_t off = 3;
	struct caret_rec_view v;
	FRESH();
	ck_assert_int_eq(caret_rec_next(buf, sizeof(buf), &off, &v), -EBADMSG);
}
END_TEST

/* Random mutations of a valid area: the decoder must never read outside
 * it (ASan build) and must stop with 0 or -EBADMSG. */
START_TEST(test_fuzz_records)
{
	enum { LEN = 2048 };
	uint8_t *clean = calloc(1, LEN), *buf = malloc(LEN);
	uint64_t off = 0;
	union caret_arg a[] = { CARET_P(1), CARET_P(2), CARET_S("node"), CARET_S("/ns") };
	while (off + 64 < LEN) {
		uint32_t sz = caret_rec_encoded_size(CARET_KIND_rcl_node_init, a);
		caret_rec_encode(clean + off, sz, CARET_KIND_rcl_node_init, 1, a);
		off += sz;
	}
	srand(1234);
	for (int iter = 0; iter < 20000; iter++) {
		memcpy(buf, clean, LEN);
		int flips = 1 + rand() % 8;
		for (int f = 0; f < flips; f++)
			buf[rand() % LEN] = (uint8_t)rand();
		uint64_t len = 16 + (uint64_t)(rand() % (LEN - 16));
		/* copy to an exact-size block so ASan sees any overread */
		uint8_t *exact = malloc(len);
		memcpy(exact, buf, len);
		int r = next_err(exact, len);
		ck_assert(r == 0 || r == -EBADMSG);
		free(exact);
	}
	free(clean);
	free(buf);
}
END_TEST

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
			     test_hostile_headers, test_hostile_files, test_truncated_under_reader,
			     test_hostile_records, test_fuzz_records, test_state_moves_checked,
			     test_replay_handshake_words, test_replay_handshake_both_sides,
			     test_state_names, test_scan, test_replay_start_is_one_step,
			     test_chunked_walk, test_parse_size, test_pass_filter_block,
			     test_claims_by_state, test_claims_race);
#if defined(__x86_64__)
	tcase_add_test(t, test_replay_start_every_store);
#endif
	tcase_add_checked_fixture(t, setup, NULL);
	tcase_set_timeout(t, 120);
	return s;
}

int main(void)
{
	return unit_run(suite());
}
