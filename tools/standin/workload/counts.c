/* SPDX-License-Identifier: Apache-2.0 */
#include <inttypes.h>
#include <stdint.h>

#include "tools/standin/workload/counts.h"

static unsigned long counts[WL_C_NUM];
static uint64_t published, failed, taken;

#define WL_COUNT_NAME(n) #n,
static const char *const names[WL_C_NUM] = { WL_COUNTS(WL_COUNT_NAME) };

void wl_count(enum wl_count c)
{
	counts[c]++;
}

void wl_print_counts(FILE *f)
{
	fputs("counts", f);
	for (int i = 0; i < WL_C_NUM; i++)
		fprintf(f, " %s=%lu", names[i], counts[i]);
	fputc('\n', f);
	fflush(f);
}

void wl_count_publish_result(int rmw_ret)
{
	__atomic_add_fetch(rmw_ret == 0 ? &published : &failed, 1,
		__ATOMIC_RELAXED);
}

void wl_count_taken(void)
{
	__atomic_add_fetch(&taken, 1, __ATOMIC_RELAXED);
}

void wl_print_traffic(FILE *f)
{
	fprintf(f, "published=%" PRIu64 " taken=%" PRIu64 " failed=%" PRIu64
		"\n", __atomic_load_n(&published, __ATOMIC_RELAXED),
		__atomic_load_n(&taken, __ATOMIC_RELAXED),
		__atomic_load_n(&failed, __ATOMIC_RELAXED));
	fflush(f);
}
