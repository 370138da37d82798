/* SPDX-License-Identifier: Apache-2.0 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tools/standin/workload/util.h"

/* Init-time allocations: a test fixture has no use for partial graphs. */
void *wl_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p) {
		fputs("caret-standin: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

int64_t wl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A user callback's work: the whole duration, signals or not. */
void wl_sleep_ns(int64_t ns)
{
	int64_t until = wl_now_ns() + ns;
	struct timespec ts = { until / 1000000000, until % 1000000000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0)
		;
}
