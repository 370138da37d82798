/* SPDX-License-Identifier: Apache-2.0 */
/* What every unit test's main() ends with. */
#ifndef CARET_TESTS_UNIT_H
#define CARET_TESTS_UNIT_H

#include <check.h>

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
