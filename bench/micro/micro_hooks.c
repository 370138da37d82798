/* SPDX-License-Identifier: Apache-2.0 */
/* caret-microbench's runtime hook modes: P1 (WAIT), PW (`caretctl top`'s
 * watched counting), P2 (RECORD against a bare tracepoint) and p2count. */
#include <stdio.h>
#include <unistd.h>

#include "bench/micro/micro.h"
#include "bench/micro/micro_alt.h"
#include "bench/micro/micro_rt.h"
#include "bench/micro/micro_tp.h"
#include "shm/caret_shm.h"
#include "tools/standin/tracetools/tracetools.h"

static int callback_obj; /* the "callback" whose address is traced */


/*
 * One loop per variant, each 64-byte aligned: an indirect call site that
 * sees two targets can be predicted differently from one that always calls
 * the same function, as a PLT call site in an application does.
 */
#define TIME_CALLS(name)                                                      \
	static __attribute__((noipa, aligned(64))) double name(cb_fn f,       \
							      uint64_t n)     \
	{                                                                     \
		const void *cb = &callback_obj;                               \
		int64_t t0 = caret_now_ns();                                       \
		for (uint64_t i = 0; i < n; i++)                              \
			f(cb, false);                                         \
		int64_t t1 = caret_now_ns();                                       \
		return (double)(t1 - t0) / (double)n;                         \
	}
TIME_CALLS(time_calls_a)
TIME_CALLS(time_calls_b)

static __attribute__((noipa, aligned(64))) double time_bare_tp(uint64_t n)
{
	const void *cb = &callback_obj;
	int64_t t0 = caret_now_ns();
	for (uint64_t i = 0; i < n; i++)
		lttng_ust_tracepoint(caret_micro, callback_start, cb, false);
	int64_t t1 = caret_now_ns();
	return (double)(t1 - t0) / (double)n;
}

static double run_a(const struct variant *v, uint64_t n) { return time_calls_a(v->f, n); }
static double run_b(const struct variant *v, uint64_t n) { return time_calls_b(v->f, n); }
static double run_bare(const struct variant *v, uint64_t n)
{
	(void)v;
	return time_bare_tp(n);
}

int mode_p1(const struct opts *o)
{
	struct rt r;
	if (rt_setup(&r) < 0)
		return 1;
	uint32_t st = rt_state(&r);
	rt_info(&r, st);
	struct variant va = { run_a, r.hook }, vb = { run_b, r.real };
	const struct variant *pa = o->only == 2 ? NULL : &va;
	const struct variant *pb = o->only == 1 ? NULL : &vb;
	alternate(pa, pb, o->iters / 10 + 1000, o->chunk, 0); /* warm-up */
	for (uint64_t rep = 0; rep < o->reps; rep++) {
		struct rep_result res = alternate(pa, pb, o->iters, o->chunk, rep);
		print_rep(rep, &res);
	}
	rt_close(&r);
	return 0;
}

/* pw: the pairs, and the segment whose watched word each variant sets. */
static void (*pw_end)(const void *);
static struct caret_seg *pw_seg;

#define TIME_PAIRS(name, generation)                                              \
	static __attribute__((noipa, aligned(64))) double name(cb_fn f,       \
							      uint64_t n)     \
	{                                                                     \
		const void *cb = &callback_obj;                               \
		caret_drive_watch(pw_seg, generation);                            \
		int64_t t0 = caret_now_ns();                                       \
		for (uint64_t i = 0; i < n; i++) {                            \
			f(cb, false);                                         \
			pw_end(cb);                                           \
		}                                                             \
		int64_t t1 = caret_now_ns();                                       \
		return (double)(t1 - t0) / (double)n;                         \
	}
TIME_PAIRS(time_pairs_watched, 1)
TIME_PAIRS(time_pairs_unwatched, 0)
static double run_pw_a(const struct variant *v, uint64_t n) { return time_pairs_watched(v->f, n); }
static double run_pw_b(const struct variant *v, uint64_t n) { return time_pairs_unwatched(v->f, n); }

int mode_pw(const struct opts *o)
{
	struct rt r;
	if (rt_setup(&r) < 0)
		return 1;
	void (*volatile end)(const void *) = ros_trace_callback_end;
	pw_end = end;
	rt_info(&r, rt_state(&r));
	if (!r.agent || !r.seg_ok || !r.seg.id.ctr_slots) {
		fprintf(stderr, "microbench: pw needs the agent preloaded, with counters\n");
		return 1;
	}
	pw_seg = &r.seg;
	struct variant va = { run_pw_a, r.hook }, vb = { run_pw_b, r.hook };
	alternate(&va, &vb, o->iters / 10 + 1000, o->chunk, 0); /* warm-up */
	for (uint64_t rep = 0; rep < o->reps; rep++) {
		struct rep_result res = alternate(&va, &vb, o->iters, o->chunk, rep);
		print_rep(rep, &res);
	}
	caret_drive_watch(&r.seg, 0);
	rt_close(&r);
	return 0;
}

int mode_p2(const struct opts *o)
{
	struct rt r;
	if (rt_setup(&r) < 0)
		return 1;
	uint32_t st0 = rt_state(&r);
	if (!r.agent || !r.seg_ok) {
		rt_info(&r, st0);
		fprintf(stderr, "microbench: p2 needs the agent preloaded, with its segment\n");
		return 1;
	}
	caret_drive_set_state(&r.seg, st0, CARET_STATE_RECORD);
	rt_info(&r, st0);
	printf("{\"ready\": %d}\n", (int)getpid());
	fflush(stdout);
	char line[64];
	if (!fgets(line, sizeof(line), stdin)) {
		fprintf(stderr, "microbench: no go from the driver\n");
		rt_close(&r);
		return 1;
	}
	int64_t deadline = caret_now_ns() + (int64_t)o->wait_ms * 1000000;
	bool en_a, en_b;
	for (;;) {
		en_a = r.real_enabled();
		en_b = lttng_ust_tracepoint_enabled(caret_micro, callback_start);
		if ((en_a && en_b) || caret_now_ns() > deadline)
			break;
		sleep_ms(1);
	}
	if (!en_a || !en_b) {
		printf("{\"error\": \"events not enabled within %u ms: ros2:callback_start %s, "
		       "caret_micro:callback_start %s\"}\n", o->wait_ms,
		       en_a ? "on" : "off", en_b ? "on" : "off");
		rt_close(&r);
		return 1;
	}
	if (rt_state(&r) != CARET_STATE_RECORD) {
		printf("{\"error\": \"agent state %u, not RECORD\"}\n", rt_state(&r));
		rt_close(&r);
		return 1;
	}
	struct variant va = { run_a, r.hook }, vb = { run_bare, NULL };
	uint64_t warm = o->iters / 10 + 100;
	uint64_t calls_a = warm, calls_b = warm;
	alternate(&va, &vb, warm, o->chunk, 0);
	sleep_ms(o->drain_ms);
	for (uint64_t rep = 0; rep < o->reps; rep++) {
		struct rep_result res = alternate(&va, &vb, o->iters, o->chunk, rep);
		/* Let the consumer daemon empty the buffers between reps. */
		sleep_ms(o->drain_ms);
		calls_a += o->iters;
		calls_b += o->iters;
		print_rep(rep, &res);
	}
	printf("{\"calls_a\": %llu, \"calls_b\": %llu, \"state\": %u}\n",
	       (unsigned long long)calls_a, (unsigned long long)calls_b, rt_state(&r));
	fflush(stdout);
	rt_close(&r);
	return 0;
}

/* Not static, no IPA: callgrind toggles collection on this exact name. */
__attribute__((noinline, noipa)) uint64_t record_loop(cb_fn f, uint64_t n);
__attribute__((noinline, noipa)) uint64_t record_loop(cb_fn f, uint64_t n)
{
	const void *cb = &callback_obj;
	for (uint64_t i = 0; i < n; i++)
		f(cb, false);
	return n;
}

int mode_p2count(const struct opts *o)
{
	struct rt r;
	if (rt_setup(&r) < 0)
		return 1;
	if (!r.agent || !r.seg_ok) {
		fprintf(stderr, "microbench: p2count needs the agent preloaded, with its segment\n");
		return 1;
	}
	caret_drive_set_state(&r.seg, rt_state(&r), CARET_STATE_RECORD);
	/* The first call resolves the real function (dlsym): not per record. */
	r.hook(&callback_obj, false);
	uint64_t n = record_loop(o->only == 2 ? r.real : r.hook, o->count);
	uint32_t st = rt_state(&r);
	rt_close(&r);
	printf("{\"calls\": %llu, \"state\": %u}\n", (unsigned long long)n, st);
	return st == CARET_STATE_RECORD ? 0 : 1;
}
