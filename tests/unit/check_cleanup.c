/* SPDX-License-Identifier: Apache-2.0 */
/* util/caret_cleanup.h: what is declared with a cleanup is released on
 * leaving its scope, errno untouched; what is taken out of it is not. */
#include <check.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>

#include "util/caret_cleanup.h"

static bool is_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

static int opened(bool keep, int *seen)
{
	_cleanup_close_ int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	*seen = fd;
	if (!keep) {
		errno = ENOENT; /* the error a caller is about to return */
		return -1;
	}
	return caret_take_fd(&fd);
}

START_TEST(fd_closed_or_taken)
{
	int seen;
	ck_assert_int_eq(opened(false, &seen), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert(!is_open(seen));
	int fd = opened(true, &seen);
	ck_assert_int_eq(fd, seen);
	ck_assert(is_open(fd));
	close(fd);
}
END_TEST

static char *dup_or_drop(bool keep)
{
	_cleanup_free_ char *s = strdup("x");
	ck_assert_ptr_nonnull(s);
	return keep ? caret_take_ptr(s) : NULL;
}

START_TEST(ptr_freed_or_taken)
{
	ck_assert_ptr_null(dup_or_drop(false)); /* ASan: a leak here fails SAN=1 */
	char *s = dup_or_drop(true);
	ck_assert_str_eq(s, "x");
	free(s);
}
END_TEST

START_TEST(streams_and_dirs)
{
	int fd;
	{
		_cleanup_fclose_ FILE *f = fopen("/dev/null", "re");
		_cleanup_closedir_ DIR *d = opendir("/");
		ck_assert_ptr_nonnull(f);
		ck_assert_ptr_nonnull(d);
		fd = dirfd(d);
		ck_assert(is_open(fd));
		_cleanup_fclose_ FILE *none = NULL; /* nothing to close */
		(void)none;
	}
	ck_assert(!is_open(fd));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cleanup");
	TCase *tc = tcase_create("scope");
	tcase_add_test(tc, fd_closed_or_taken);
	tcase_add_test(tc, ptr_freed_or_taken);
	tcase_add_test(tc, streams_and_dirs);
	suite_add_tcase(s, tc);
	SRunner *r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? 1 : 0;
}
