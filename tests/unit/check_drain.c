/* SPDX-License-Identifier: Apache-2.0 */
/*
 * daemon/lttng_drain: the consumer's packet index as the feedback pacing
 * reads it, on index files laid out as lttng-tools writes them (CTF index
 * 1.1, big-endian, sizes in bits), plus the hostile cases: a half-written
 * entry, a bad magic, a symbolic link, another channel's streams.
 */
#include <check.h>
#include <endian.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/lttng_drain.h"

static char dir[64];

static void put64(FILE *f, uint64_t v)
{
	v = htobe64(v);
	fwrite(&v, 8, 1, f);
}

static void put32(FILE *f, uint32_t v)
{
	v = htobe32(v);
	fwrite(&v, 4, 1, f);
}

/* npackets packets of 64 KiB ending at ts0 + i * 1000, discarded d at the
 * last; `partial` extra bytes of a half-written entry */
static void index_file(const char *path, uint32_t magic, int npackets, uint64_t ts0,
		       uint64_t d, int partial)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	put32(f, magic);
	put32(f, 1);
	put32(f, 1);
	put32(f, 72);
	for (int i = 0; i < npackets; i++) {
		put64(f, (uint64_t)i * 65536);      /* offset (bytes) */
		put64(f, 65536 * 8);                /* packet_size (bits) */
		put64(f, 60000 * 8);                /* content_size (bits) */
		put64(f, ts0 + (uint64_t)i * 1000 - 500);
		put64(f, ts0 + (uint64_t)i * 1000); /* timestamp_end */
		put64(f, i == npackets - 1 ? d : 0);
		put64(f, 0);
		put64(f, 1);
		put64(f, (uint64_t)i);
	}
	for (int i = 0; i < partial; i++)
		fputc(0x7f, f);
	fclose(f);
}

static void mk(const char *sub)
{
	char p[256];
	snprintf(p, sizeof(p), "%s/%s", dir, sub);
	ck_assert_int_eq(mkdir(p, 0755), 0);
}

START_TEST(reads_last_packets)
{
	snprintf(dir, sizeof(dir), "/tmp/caret-ut-drain-%d", (int)getpid());
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	struct lttng_drain d;
	ck_assert_int_lt(lttng_drain_read(dir, "caret", &d), 0); /* no ust/ yet */
	mk("ust");
	mk("ust/uid");
	mk("ust/uid/0");
	mk("ust/uid/0/64-bit");
	mk("ust/uid/0/64-bit/index");
	ck_assert_int_eq(lttng_drain_read(dir, "caret", &d), 0);
	ck_assert_int_eq(d.streams, 0);
	ck_assert_int_eq(d.horizon_ns, -1);
	char p[256];
	snprintf(p, sizeof(p), "%s/ust/uid/0/64-bit/index/caret_0.idx", dir);
	index_file(p, 0xC1F1DCC1, 3, 5000000, 7, 40); /* a half-written 4th entry */
	snprintf(p, sizeof(p), "%s/ust/uid/0/64-bit/index/caret_1.idx", dir);
	index_file(p, 0xC1F1DCC1, 1, 9000000, 0, 0);
	snprintf(p, sizeof(p), "%s/ust/uid/0/64-bit/index/caret_2.idx", dir);
	index_file(p, 0xC1F1DCC1, 0, 0, 0, 0); /* a stream with no packet yet */
	snprintf(p, sizeof(p), "%s/ust/uid/0/64-bit/index/other_0.idx", dir);
	index_file(p, 0xC1F1DCC1, 9, 99000000, 99, 0); /* another channel */
	snprintf(p, sizeof(p), "%s/ust/uid/0/64-bit/index/caret_3.idx", dir);
	index_file(p, 0xdeadbeef, 5, 98000000, 55, 0); /* not an index */
	char target[256];
	snprintf(target, sizeof(target), "%s/ust/uid/0/64-bit/index/other_0.idx", dir);
	snprintf(p, sizeof(p), "%s/ust/uid/0/64-bit/index/caret_4.idx", dir);
	ck_assert_int_eq(symlink(target, p), 0); /* never followed */
	/* a second uid's buffers count too */
	mk("ust/uid/1000");
	mk("ust/uid/1000/64-bit");
	mk("ust/uid/1000/64-bit/index");
	snprintf(p, sizeof(p), "%s/ust/uid/1000/64-bit/index/caret_0.idx", dir);
	index_file(p, 0xC1F1DCC1, 2, 1000, 1, 0);

	ck_assert_int_eq(lttng_drain_read(dir, "caret", &d), 0);
	ck_assert_int_eq(d.streams, 3);
	ck_assert_int_eq(d.horizon_ns, 9000000);
	ck_assert_uint_eq(d.discarded, 8);
	ck_assert_uint_eq(d.bytes, 3 * 65536 + 65536 + 2 * 65536);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("drain");
	TCase *tc = tcase_create("index");
	tcase_add_test(tc, reads_last_packets);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
