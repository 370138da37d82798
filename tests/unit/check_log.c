/* SPDX-License-Identifier: Apache-2.0 */
/* daemon/base/log.c: what a line holds, read back from stderr. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "daemon/base/log.h"
#include "tests/unit/unit.h"

static char out[4096];

/* Runs the logging in f with stderr on a pipe; what was written. */
static const char *captured(void (*f)(void))
{
	int p[2];
	ck_assert_int_eq(pipe(p), 0);
	int saved = dup(STDERR_FILENO);
	ck_assert_int_ge(saved, 0);
	ck_assert_int_eq(dup2(p[1], STDERR_FILENO), STDERR_FILENO);
	close(p[1]);
	f();
	dup2(saved, STDERR_FILENO);
	close(saved);
	ssize_t n = read(p[0], out, sizeof(out) - 1);
	close(p[0]);
	out[n > 0 ? n : 0] = '\0';
	return out;
}

static int ret;

static void errno_line(void)
{
	log_init(LOG_DEBUG);
	ret = log_err_errno(-ENOENT, "cannot open %s", "x.json");
}

START_TEST(errno_appended_and_returned)
{
	const char *s = captured(errno_line);
	ck_assert_int_eq(ret, -ENOENT);
	ck_assert_ptr_nonnull(strstr(s, "caretd error: cannot open x.json: No such file or directory\n"));
}
END_TEST

static void zero_line(void)
{
	log_init(LOG_DEBUG);
	ret = log_warn_errno(0, "nothing failed");
}

START_TEST(no_suffix_without_an_error)
{
	const char *s = captured(zero_line);
	ck_assert_int_eq(ret, 0);
	ck_assert_ptr_nonnull(strstr(s, "caretd warning: nothing failed\n"));
}
END_TEST

static void filtered_line(void)
{
	log_init(LOG_INFO);
	ret = log_debug_errno(-EIO, "not shown");
}

START_TEST(below_the_level_still_returns)
{
	const char *s = captured(filtered_line);
	ck_assert_int_eq(ret, -EIO);
	ck_assert_str_eq(s, "");
}
END_TEST

static void long_line(void)
{
	char big[2000];
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	log_init(LOG_DEBUG);
	ret = log_err_errno(-EPERM, "%s\nforged", big);
}

/* One line whatever the arguments: the newline is scrubbed, the line cut. */
START_TEST(long_line_stays_one_line)
{
	const char *s = captured(long_line);
	ck_assert_int_eq(ret, -EPERM);
	ck_assert_ptr_eq(strchr(s, '\n'), s + strlen(s) - 1);
	ck_assert_uint_le(strlen(s), 1024);
}
END_TEST

static void scrubbed_line(void)
{
	log_init(LOG_DEBUG);
	ret = log_warn_errno(-EACCES, "name %s", "a\nb");
}

START_TEST(arguments_scrubbed_suffix_kept)
{
	const char *s = captured(scrubbed_line);
	ck_assert_ptr_nonnull(strstr(s, "name a?b: Permission denied\n"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("log");
	unit_case(s, "log", errno_appended_and_returned, no_suffix_without_an_error,
		  below_the_level_still_returns, long_line_stays_one_line,
		  arguments_scrubbed_suffix_kept);
	return unit_run(s);
}
