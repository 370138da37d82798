/* SPDX-License-Identifier: Apache-2.0 */
#include <stdio.h>

#include "tests/unit/limit_fixture.h"

char limits[8][128];
int n_limits, fail_size;

static int l_size(const char *session, uint64_t bytes, char *err, size_t errlen)
{
	snprintf(limits[n_limits++ % 8], sizeof(limits[0]), "size %s %llu", session,
		 (unsigned long long)bytes);
	if (fail_size) {
		snprintf(err, errlen, "fake: no triggers");
		return fail_size;
	}
	return 0;
}

static int l_remove(const char *session)
{
	snprintf(limits[n_limits++ % 8], sizeof(limits[0]), "remove %s", session);
	return 0;
}

static int l_remove_all(void)
{
	return 0;
}

const struct bridge_limit_ops fake_limit = { l_size, l_remove, l_remove_all };
