/* SPDX-License-Identifier: Apache-2.0 */
#include <time.h>

#include "util/caret_util.h"

int64_t caret_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
