/* SPDX-License-Identifier: Apache-2.0 */
/*
 * daemon/snapshot_mem: flight recorders' rings (size x CPUs x traced users)
 * against the host's available memory: half of it for every recorder, a
 * quarter per user other than root, three eighths for them together (root
 * keeps an eighth), and the refusal names the sizes allowed.
 */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "daemon/recording/snapshot_mem.h"

#define G (1ull << 30)
#define M (1ull << 20)

static char err[1024];

/* 32 GiB available, 4 CPUs, 2 traced users: a ring costs 8x its size. */
static struct snapshot_mem_in host(void)
{
	return (struct snapshot_mem_in){ .host = { .available = 32 * G, .shmem = 0 },
					 .ncpu = 4, .users = 2 };
}

START_TEST(one_user_gets_a_quarter)
{
	struct snapshot_mem_in in = host();
	/* 1 GiB per CPU: 8 GiB, the quarter exactly */
	ck_assert_int_eq(snapshot_mem_check(&in, 1000, 1 * G, 0, err, sizeof(err)), 0);
	/* 2 GiB per CPU: 16 GiB, refused with the sizes that fit */
	ck_assert_int_eq(snapshot_mem_check(&in, 1000, 2 * G, 256 << 10, err, sizeof(err)),
			 -ENOMEM);
	ck_assert_msg(strstr(err, "give --snapshot-size between 256K and 1048576K"), "%s", err);
	ck_assert_msg(strstr(err, "(4 CPUs x 2 traced users)"), "%s", err);
	/* what they hold already counts */
	in.held_user = in.held_users = in.held_all = 6 * G;
	ck_assert_int_eq(snapshot_mem_check(&in, 1000, 1 * G, 0, err, sizeof(err)), -ENOMEM);
	ck_assert_msg(strstr(err, "between 64K and 262144K"), "%s", err);
	/* nothing left that holds a pass */
	in.held_user = in.held_users = in.held_all = 8 * G;
	ck_assert_int_eq(snapshot_mem_check(&in, 1000, 64 << 10, 0, err, sizeof(err)), -ENOMEM);
	ck_assert_msg(strstr(err, "no --snapshot-size fits now"), "%s", err);
}
END_TEST

START_TEST(users_together_leave_root_its_share)
{
	struct snapshot_mem_in in = host();
	/* other users hold 12 GiB (three eighths): a new user gets nothing */
	in.held_users = in.held_all = 12 * G;
	ck_assert_int_eq(snapshot_mem_check(&in, 2000, 64 << 10, 0, err, sizeof(err)), -ENOMEM);
	ck_assert_msg(strstr(err, "users other than root together"), "%s", err);
	/* root still has its eighth, and up to half in all */
	ck_assert_int_eq(snapshot_mem_check(&in, 0, 512 * M, 0, err, sizeof(err)), 0);
	ck_assert_int_eq(snapshot_mem_check(&in, 0, 1 * G, 0, err, sizeof(err)), -ENOMEM);
	ck_assert_msg(strstr(err, "every flight recorder together"), "%s", err);
}
END_TEST

START_TEST(allocated_rings_are_counted_back)
{
	struct snapshot_mem_in in = host();
	/* 8 GiB of rings allocated: out of MemAvailable, in Shmem */
	in.host.available = 24 * G;
	in.host.shmem = 9 * G;
	in.held_all = in.held_users = 8 * G;
	in.held_user = 0;
	ck_assert_int_eq(snapshot_mem_check(&in, 3000, 512 * M, 0, err, sizeof(err)), 0);
	/* unknown available memory: nothing is admitted */
	in.host = (struct snapshot_mem_host){ 0 };
	ck_assert_int_eq(snapshot_mem_check(&in, 0, 64 << 10, 0, err, sizeof(err)), -ENOMEM);
	ck_assert_msg(strstr(err, "MemAvailable"), "%s", err);
	/* the host's own figures can be read here */
	struct snapshot_mem_host h;
	ck_assert_int_eq(snapshot_mem_read_host(&h), 0);
	ck_assert_uint_gt(h.available, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("snapshot_mem");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, one_user_gets_a_quarter);
	tcase_add_test(tc, users_together_leave_root_its_share);
	tcase_add_test(tc, allocated_rings_are_counted_back);
	suite_add_tcase(s, tc);
	SRunner *r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? 1 : 0;
}
