/* SPDX-License-Identifier: Apache-2.0 */
/* caret-microbench's capture modes: P3 (caret_seg_append of one
 * rcl_publisher_init record, fresh and pre-faulted pages, caret_now_ns,
 * both) and p3count. */
#include <stdio.h>
#include <string.h>

#include "bench/micro/micro.h"
#include "shm/caret_shm.h"

static const union caret_arg pub_args[] = {
	CARET_P(0x55d0c0a01230), CARET_P(0x55d0c0a00f10), CARET_P(0x55d0c0a02440),
	CARET_S("/standin/topic_0"), CARET_I(10),
};

/* Not static, no IPA: callgrind toggles collection on this exact name. */
__attribute__((noinline, noipa)) uint64_t capture_loop(struct caret_seg *s, uint64_t n);
__attribute__((noinline, noipa)) uint64_t capture_loop(struct caret_seg *s, uint64_t n)
{
	uint64_t ok = 0;
	for (uint64_t i = 0; i < n; i++)
		ok += caret_seg_append(s, CARET_KIND_rcl_publisher_init,
				       (int64_t)i, pub_args) == 0;
	return ok;
}

static __attribute__((noinline)) uint64_t capture_clock_loop(struct caret_seg *s, uint64_t n)
{
	uint64_t ok = 0;
	for (uint64_t i = 0; i < n; i++)
		ok += caret_seg_append(s, CARET_KIND_rcl_publisher_init,
				       caret_now_ns(), pub_args) == 0;
	return ok;
}

static __attribute__((noinline)) int64_t clock_loop(uint64_t n)
{
	int64_t sum = 0;
	for (uint64_t i = 0; i < n; i++)
		sum += caret_now_ns();
	return sum;
}

static int seg_open(struct caret_seg *s, uint64_t n)
{
	uint32_t sz = caret_rec_encoded_size(CARET_KIND_rcl_publisher_init, pub_args);
	/* the counter area of `caretctl top` takes the end of a segment this
	 * size (proto/caret_segment.h): room for it too */
	uint64_t cap = CARET_SHM_HEADER_SIZE + (uint64_t)sz * n + 4096 + CARET_CTR_AREA_SIZE;
	cap = (cap + 4095) & ~(uint64_t)4095;
	if (cap < CARET_SHM_MIN_CAPACITY)
		cap = CARET_SHM_MIN_CAPACITY;
	int e = caret_seg_create(s, cap, "microbench", "jazzy");
	if (e < 0)
		fprintf(stderr, "microbench: caret_seg_create(%llu bytes): %s\n",
			(unsigned long long)cap, strerror(-e));
	return e;
}

static void seg_done(struct caret_seg *s)
{
	char name[sizeof(s->name)];
	memcpy(name, s->name, sizeof(name));
	caret_seg_close(s);
	caret_seg_unlink(name);
}

enum { P3_FRESH, P3_WARM, P3_CLOCK, P3_BOTH, P3_N };

/* ns per operation of one P3 variant, or a negative value on failure. */
static double p3_variant(int v, uint64_t n, volatile int64_t *sink)
{
	struct caret_seg s;
	int64_t t0, t1;
	uint64_t ok = n;
	if (v == P3_CLOCK) {
		t0 = caret_now_ns();
		*sink += clock_loop(n);
		t1 = caret_now_ns();
		return (double)(t1 - t0) / (double)n;
	}
	if (seg_open(&s, n) < 0)
		return -1;
	if (v == P3_WARM)
		memset(s.area, 0, s.area_cap); /* fault every page in */
	t0 = caret_now_ns();
	if (v == P3_BOTH)
		ok = capture_clock_loop(&s, n);
	else
		ok = capture_loop(&s, n);
	t1 = caret_now_ns();
	struct caret_seg_status st;
	caret_seg_read_status(&s, &st);
	uint64_t recs = st.records;
	seg_done(&s);
	if (ok != n || recs != n) {
		fprintf(stderr, "microbench: %llu of %llu captures stored\n",
			(unsigned long long)ok, (unsigned long long)n);
		return -1;
	}
	return (double)(t1 - t0) / (double)n;
}

int mode_p3(const struct opts *o)
{
	static const char *const names[P3_N] = { "fresh", "warm", "clock", "both" };
	volatile int64_t sink = 0;
	uint32_t sz = caret_rec_encoded_size(CARET_KIND_rcl_publisher_init, pub_args);
	printf("{\"info\": {\"record_bytes\": %u}}\n", sz);
	/* Warm-up: code, clock, allocator paths. */
	for (int v = 0; v < P3_N; v++)
		if (p3_variant(v, o->iters / 10 + 1000, &sink) < 0)
			return 1;
	for (uint64_t rep = 0; rep < o->reps; rep++) {
		double ns[P3_N];
		/* Rotate the order so no variant always runs first. */
		for (int k = 0; k < P3_N; k++) {
			int v = (int)((k + rep) % P3_N);
			ns[v] = p3_variant(v, o->iters, &sink);
			if (ns[v] < 0)
				return 1;
		}
		printf("{\"rep\": %llu", (unsigned long long)rep);
		for (int v = 0; v < P3_N; v++)
			printf(", \"%s\": %.4f", names[v], ns[v]);
		printf("}\n");
		fflush(stdout);
	}
	return 0;
}

int mode_p3count(const struct opts *o)
{
	struct caret_seg s;
	if (seg_open(&s, o->count) < 0)
		return 1;
	uint64_t ok = capture_loop(&s, o->count);
	seg_done(&s);
	printf("{\"captures\": %llu}\n", (unsigned long long)ok);
	return ok == o->count ? 0 : 1;
}
