/* SPDX-License-Identifier: Apache-2.0 */
/* What every unit test's main() ends with. */
#ifndef CARET_TESTS_UNIT_H
#define CARET_TESTS_UNIT_H

#include <check.h>

/* A test case of s named `name` holding the tests (START_TEST names,
 * NULL-terminated); returned for fixtures and timeouts. */
static inline TCase *unit_case_of(Suite *s, const char *name, const TTest *const *tests)
{
	TCase *tc = tcase_create(name);
	for (; *tests; tests++)
		tcase_add_test(tc, *tests);
	suite_add_tcase(s, tc);
	return tc;
}
#define unit_case(s, name, ...) \
	unit_case_of(s, name, (const TTest *const[]){ __VA_ARGS__, NULL })

/* Runs every test of the suite (each in a child, as Check forks by
 * default) and gives main()'s exit status: 1 when any failed. */
static inline int unit_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

#endif
