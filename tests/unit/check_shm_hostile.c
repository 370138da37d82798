/* SPDX-License-Identifier: Apache-2.0 */
/* Hostile segments and records: every byte from another process is
 * checked (headers, files, truncation under a reader, corrupt and random
 * records). Part of check_shm. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shm/caret_shm.h"
#include "tests/unit/shm_fixture.h"

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

/* ---- the armed marker (shm/armed.c) ----
 * Believed only when root's, whole, and naming a live caretd: a stale or
 * forged one must never make a process wait for a caretd that is gone. */
static void forge_marker(const struct caret_armed_marker *m, size_t len, uid_t owner)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s%s", CARET_SHM_DIR, caret_shm_prefix(),
		 CARET_ARMED_SUFFIX);
	unlink(path);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, m, len), (ssize_t)len);
	ck_assert_int_eq(fchown(fd, owner, (gid_t)-1), 0);
	close(fd);
}

START_TEST(test_armed_marker)
{
	ck_assert(!caret_armed_now());
	ck_assert_int_eq(caret_armed_set(true), 0);
	ck_assert(caret_armed_now());
	ck_assert_int_eq(caret_armed_set(true), 0); /* replaced whole */
	ck_assert(caret_armed_now());
	ck_assert_int_eq(caret_armed_set(false), 0);
	ck_assert(!caret_armed_now());
	ck_assert_int_eq(caret_armed_set(false), 0);
	struct caret_armed_marker good = { .magic = CARET_ARMED_MAGIC, .version = 1,
					   .pid = (int32_t)getpid() };
	ck_assert_int_eq(caret_proc_start_time(getpid(), &good.start_time), 0);
	forge_marker(&good, sizeof(good), 0);
	ck_assert(caret_armed_now());
	forge_marker(&good, sizeof(good), 65534); /* a user's, not root's */
	ck_assert(!caret_armed_now());
	forge_marker(&good, sizeof(good) - 1, 0);
	ck_assert(!caret_armed_now());
	struct caret_armed_marker m = good;
	m.start_time++; /* the pid reused by another process */
	forge_marker(&m, sizeof(m), 0);
	ck_assert(!caret_armed_now());
	m = good;
	m.pid = 0x3ffffffe; /* no such process */
	forge_marker(&m, sizeof(m), 0);
	ck_assert(!caret_armed_now());
	m = good;
	m.magic ^= 1;
	forge_marker(&m, sizeof(m), 0);
	ck_assert(!caret_armed_now());
	m = good;
	m.version = 2;
	forge_marker(&m, sizeof(m), 0);
	ck_assert(!caret_armed_now());
	ck_assert_int_eq(caret_armed_set(false), 0);
	/* a link to a good one is not followed */
	char path[256], target[300];
	snprintf(path, sizeof(path), "%s/%s%s", CARET_SHM_DIR, caret_shm_prefix(),
		 CARET_ARMED_SUFFIX);
	snprintf(target, sizeof(target), "%s.target", path);
	int fd = open(target, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, &good, sizeof(good)), (ssize_t)sizeof(good));
	close(fd);
	ck_assert_int_eq(symlink(target, path), 0);
	ck_assert(!caret_armed_now());
	unlink(path);
	unlink(target);
}
END_TEST

void add_hostile_tests(TCase *t)
{
	tcase_add_test(t, test_armed_marker);
	tcase_add_test(t, test_hostile_headers);
	tcase_add_test(t, test_hostile_files);
	tcase_add_test(t, test_truncated_under_reader);
	tcase_add_test(t, test_hostile_records);
	tcase_add_test(t, test_fuzz_records);
}
