/* SPDX-License-Identifier: Apache-2.0 */
/* util/dir.c and util/grow.c: a directory listed twice through the same
 * descriptor shows its entries both times (a dup()-based listing shows
 * nothing the second time), and a growth that would overflow is refused
 * with the array left as it was. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/caret_util.h"

static int count_entries(int dirfd)
{
	DIR *d = caret_opendir_at(dirfd);
	ck_assert_ptr_nonnull(d);
	int n = 0;
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

START_TEST(listed_twice_through_one_descriptor)
{
	char tmpl[] = "/tmp/check_util.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	int dfd = open(tmpl, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(dfd, 0);
	ck_assert_int_eq(mkdirat(dfd, "a", 0700), 0);
	ck_assert_int_eq(mkdirat(dfd, "b", 0700), 0);
	ck_assert_int_eq(count_entries(dfd), 2);
	ck_assert_int_eq(count_entries(dfd), 2);
	/* dfd itself is still usable from its start too */
	ck_assert_int_eq(count_entries(dfd), 2);
	ck_assert_int_eq(unlinkat(dfd, "a", AT_REMOVEDIR), 0);
	ck_assert_int_eq(unlinkat(dfd, "b", AT_REMOVEDIR), 0);
	close(dfd);
	ck_assert_int_eq(rmdir(tmpl), 0);
	errno = 0;
	ck_assert_ptr_null(caret_opendir_at(-1));
	ck_assert_int_eq(errno, EBADF);
}
END_TEST

START_TEST(grow_doubles_and_refuses_overflow)
{
	int *a = NULL;
	size_t cap = 0;
	ck_assert_int_eq(caret_grow((void **)&a, &cap, 1, sizeof(*a)), 0);
	ck_assert_uint_eq(cap, 16);
	ck_assert_int_eq(caret_grow((void **)&a, &cap, 17, sizeof(*a)), 0);
	ck_assert_uint_eq(cap, 32);
	a[31] = 7;
	ck_assert_int_eq(caret_grow((void **)&a, &cap, 20, sizeof(*a)), 0);
	ck_assert_uint_eq(cap, 32);
	int *before = a;
	ck_assert_int_eq(caret_grow((void **)&a, &cap, SIZE_MAX / 2 + 2, sizeof(*a)), -ENOMEM);
	ck_assert_int_eq(caret_grow((void **)&a, &cap, SIZE_MAX / 8, 16), -ENOMEM);
	ck_assert_ptr_eq(a, before);
	ck_assert_uint_eq(cap, 32);
	ck_assert_int_eq(a[31], 7);
	ck_assert_int_eq(caret_grow((void **)&a, &cap, 64, 0), -EINVAL);
	free(a);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("util");
	tcase_add_test(tc, listed_twice_through_one_descriptor);
	tcase_add_test(tc, grow_doubles_and_refuses_overflow);
	suite_add_tcase(s, tc);
	SRunner *r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
