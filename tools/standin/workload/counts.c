/* SPDX-License-Identifier: Apache-2.0 */
#include <inttypes.h>
#include <stdint.h>

#include "tools/standin/workload/counts.h"

static unsigned long counts[WL_C_NUM];
static uint64_t published, failed, taken;
static uint64_t requests, responses, srv_failed, served, answered;

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

/* Tests wait for these lines instead of sleeping: how long DDS takes to
 * match a publisher and deliver its first sample depends on the load. */
static void first(const char *what)
{
	printf("first %s\n", what);
	fflush(stdout);
}

void wl_count_taken(void)
{
	if (__atomic_add_fetch(&taken, 1, __ATOMIC_RELAXED) == 1)
		first("taken");
}

void wl_count_service_write(enum wl_srv_write w, int rmw_ret)
{
	__atomic_add_fetch(rmw_ret != 0 ? &srv_failed :
		w == WL_SRV_REQUEST ? &requests : &responses, 1,
		__ATOMIC_RELAXED);
}

void wl_count_served(void)
{
	__atomic_add_fetch(&served, 1, __ATOMIC_RELAXED);
}

void wl_count_answered(void)
{
	if (__atomic_add_fetch(&answered, 1, __ATOMIC_RELAXED) == 1)
		first("answered");
}

#define LOAD(v) __atomic_load_n(&(v), __ATOMIC_RELAXED)

void wl_print_traffic(FILE *f)
{
	fprintf(f, "requests=%" PRIu64 " served=%" PRIu64 " responses=%"
		PRIu64 " answered=%" PRIu64 " failed=%" PRIu64 "\n",
		LOAD(requests), LOAD(served), LOAD(responses), LOAD(answered),
		LOAD(srv_failed));
	fprintf(f, "published=%" PRIu64 " taken=%" PRIu64 " failed=%" PRIu64
		"\n", __atomic_load_n(&published, __ATOMIC_RELAXED),
		__atomic_load_n(&taken, __ATOMIC_RELAXED),
		__atomic_load_n(&failed, __ATOMIC_RELAXED));
	fflush(f);
}
