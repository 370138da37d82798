/* SPDX-License-Identifier: Apache-2.0 */
/*
 * caret-microbench: the timing loops of bench/micro/micro.py (which owns
 * the LTTng sessions, the environment and the statistics). One mode per
 * run; results are JSON objects, one per line, on stdout; the rest goes to
 * stderr.
 *
 *   p1 --iters N --reps R [--chunk C] [--only 1|2]
 *      WAIT-state hook: ros_trace_callback_start(cb, false) through the
 *      first definition in the process (the agent when it is preloaded)
 *      versus the same function of libtracetools.so itself, each called
 *      through a function pointer from a loop of its own. --only runs one
 *      variant (diagnosis).
 *   p2 --iters N --reps R [--chunk C] [--drain-ms D] [--wait-ms W]
 *      RECORD-state hook versus a bare tracepoint caret_micro:callback_start
 *      with the same payload. Prints {"ready": pid} and waits for a line on
 *      stdin (the driver creates and starts its sessions meanwhile), then
 *      waits until both events are enabled in this process.
 *   p2count --count N --only 1|2
 *      exactly N calls inside record_loop(), for callgrind: --only 1 the
 *      agent's hook in RECORD (agent -> tracetools), --only 2 libtracetools'
 *      own function; no session, so the tracepoint is the disabled branch
 *      and the count is the agent's path, not lttng-ust's ring buffer write
 *      (the same for any caller: P2 times it).
 *   pw --iters N --reps R [--chunk C]
 *      `caretctl top`'s cost: a callback_start + callback_end pair through
 *      the agent (WAIT) while its segment is watched (A: counted) versus
 *      the same pair unwatched (B), the watched word set before each chunk.
 *   p3 --iters N --reps R
 *      caret_seg_append of one rcl_publisher_init record into a large
 *      segment (fresh pages and pre-faulted pages), caret_now_ns, and both.
 *   p3count --count N
 *      exactly N captures inside capture_loop(), for callgrind
 *      (--toggle-collect=capture_loop; subtract a run with N = 0).
 *
 * In p1 and p2 every rep runs N calls of variant A and N of variant B,
 * interleaved in chunks of C calls (A B, B A, ...), so a change of the
 * machine's speed hits both; each rep prints the median ns per call over
 * its chunks (a, b), the median of the chunk pairs' ratios (ratio), the
 * means over the rep (amean, bmean) and the fastest chunks (amin, bmin).
 *
 * Over 600 lines (650): one binary whose modes share its clock, its JSON
 * output and its loops' setup; micro.py runs it once per mode.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/micro/micro_tp.h"
#include "shm/caret_shm.h"
#include "tools/standin/tracetools/tracetools.h"

typedef void (*cb_fn)(const void *, bool);
typedef bool (*en_fn)(void);

struct opts {
	uint64_t iters, reps, count;
	uint64_t only; /* p1: 0 both variants, 1 only A, 2 only B (diagnosis) */
	uint64_t chunk; /* p1, p2: calls per variant before switching */
	unsigned drain_ms, wait_ms;
};

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int callback_obj; /* the "callback" whose address is traced */

/* ---- runtime hooks (P1, P2) ---- */

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
		int64_t t0 = mono_ns();                                       \
		for (uint64_t i = 0; i < n; i++)                              \
			f(cb, false);                                         \
		int64_t t1 = mono_ns();                                       \
		return (double)(t1 - t0) / (double)n;                         \
	}
TIME_CALLS(time_calls_a)
TIME_CALLS(time_calls_b)

static __attribute__((noipa, aligned(64))) double time_bare_tp(uint64_t n)
{
	const void *cb = &callback_obj;
	int64_t t0 = mono_ns();
	for (uint64_t i = 0; i < n; i++)
		lttng_ust_tracepoint(caret_micro, callback_start, cb, false);
	int64_t t1 = mono_ns();
	return (double)(t1 - t0) / (double)n;
}

/* A variant: a timing loop and the function it calls (if any). */
struct variant {
	double (*run)(const struct variant *v, uint64_t n); /* ns per call */
	cb_fn f;
};

static double run_a(const struct variant *v, uint64_t n) { return time_calls_a(v->f, n); }
static double run_b(const struct variant *v, uint64_t n) { return time_calls_b(v->f, n); }
static double run_bare(const struct variant *v, uint64_t n)
{
	(void)v;
	return time_bare_tp(n);
}

struct rep_result {
	double a, b;       /* median ns per call over the rep's chunks */
	double amean, bmean; /* ns per call over the whole rep */
	double amin, bmin; /* fastest chunk */
	double ratio;      /* median of the chunk pairs' a/b */
};

#define MAX_CHUNKS 4096
static double chunk_a[MAX_CHUNKS], chunk_b[MAX_CHUNKS], chunk_r[MAX_CHUNKS];

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

static double median(double *v, size_t n)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * n calls of each variant, interleaved in chunks (A B, B A, A B, ...): a
 * change of the machine's speed lasting longer than a chunk (~1 ms) hits
 * both variants alike, and the medians over chunks ignore the chunks a
 * burst of load or a front-end hiccup hit. One variant only when the other
 * is NULL.
 */
static struct rep_result alternate(const struct variant *va, const struct variant *vb,
				   uint64_t n, uint64_t chunk, uint64_t rep)
{
	struct rep_result r = { 0, 0, 0, 0, 1e30, 1e30, 0 };
	double ta = 0, tb = 0;
	uint64_t done = 0;
	size_t k = 0;
	if (chunk == 0 || chunk > n)
		chunk = n;
	if (n / chunk >= MAX_CHUNKS)
		chunk = n / (MAX_CHUNKS - 1) + 1;
	for (; done < n; k++) {
		uint64_t c = n - done < chunk ? n - done : chunk;
		double x = 0, y = 0;
		if ((k + rep) % 2 == 0) {
			if (va)
				x = va->run(va, c);
			if (vb)
				y = vb->run(vb, c);
		} else {
			if (vb)
				y = vb->run(vb, c);
			if (va)
				x = va->run(va, c);
		}
		ta += x * (double)c;
		tb += y * (double)c;
		if (x < r.amin)
			r.amin = x;
		if (y < r.bmin)
			r.bmin = y;
		chunk_a[k] = x;
		chunk_b[k] = y;
		chunk_r[k] = va && vb && y > 0 ? x / y : 0;
		done += c;
	}
	r.amean = ta / (double)n;
	r.bmean = tb / (double)n;
	r.a = median(chunk_a, k);
	r.b = median(chunk_b, k);
	r.ratio = median(chunk_r, k);
	return r;
}

static void print_rep(uint64_t rep, const struct rep_result *r)
{
	printf("{\"rep\": %llu, \"a\": %.4f, \"b\": %.4f, \"ratio\": %.4f, "
	       "\"amean\": %.4f, \"bmean\": %.4f, \"amin\": %.4f, \"bmin\": %.4f}\n",
	       (unsigned long long)rep, r->a, r->b, r->ratio, r->amean, r->bmean,
	       r->amin, r->bmin);
	fflush(stdout);
}

struct rt {
	cb_fn hook;      /* first definition: the agent when preloaded */
	cb_fn real;      /* libtracetools.so's own */
	en_fn real_enabled;
	bool agent;
	char hook_lib[256], real_lib[256];
	struct caret_seg seg;
	bool seg_ok;
};

static void lib_of(void *fn, char *buf, size_t len)
{
	Dl_info info;
	if (dladdr(fn, &info) && info.dli_fname)
		snprintf(buf, len, "%s", info.dli_fname);
	else
		snprintf(buf, len, "?");
}

static int rt_setup(struct rt *r)
{
	memset(r, 0, sizeof(*r));
	void *h = dlopen("libtracetools.so", RTLD_LAZY | RTLD_NOLOAD);
	if (!h) {
		fprintf(stderr, "microbench: libtracetools.so not loaded: %s\n", dlerror());
		return -1;
	}
	r->real = (cb_fn)dlsym(h, "ros_trace_callback_start");
	r->real_enabled = (en_fn)dlsym(h, "ros_trace_enabled_callback_start");
	/* volatile: the compiler must not assume it is the PLT target. */
	cb_fn volatile hook = ros_trace_callback_start;
	r->hook = hook;
	if (!r->real || !r->real_enabled || !r->hook) {
		fprintf(stderr, "microbench: ros_trace_callback_start not found\n");
		return -1;
	}
	lib_of((void *)r->hook, r->hook_lib, sizeof(r->hook_lib));
	lib_of((void *)r->real, r->real_lib, sizeof(r->real_lib));
	r->agent = r->hook != r->real && strstr(r->hook_lib, "libcaret-agent");
	if (!r->agent)
		return 0;
	/* The agent initialises at its first tracetools call: segment,
	 * provider, replay thread, start state. */
	static int context;
	ros_trace_rcl_init(&context);
	uint64_t start;
	char name[CARET_SHM_NAME_MAX];
	int e = caret_proc_start_time(getpid(), &start);
	if (e == 0)
		e = caret_seg_name(name, sizeof(name), getpid(), start);
	if (e == 0)
		e = caret_seg_attach(&r->seg, name);
	if (e < 0) {
		fprintf(stderr, "microbench: cannot attach the agent's segment: %s\n",
			strerror(-e));
		return 0;
	}
	r->seg_ok = true;
	return 0;
}

static uint32_t rt_state(const struct rt *r)
{
	return r->seg_ok ? caret_seg_state(&r->seg) : 0;
}

static void rt_info(const struct rt *r, uint32_t start_state)
{
	printf("{\"info\": {\"agent\": %s, \"hook_lib\": \"%s\", \"real_lib\": \"%s\", "
	       "\"segment\": %s, \"start_state\": %u, \"state\": %u, "
	       "\"real_enabled\": %s}}\n",
	       r->agent ? "true" : "false", r->hook_lib, r->real_lib,
	       r->seg_ok ? "true" : "false", start_state, rt_state(r),
	       r->real_enabled() ? "true" : "false");
	fflush(stdout);
}

static void rt_close(struct rt *r)
{
	if (r->seg_ok)
		caret_seg_close(&r->seg);
	r->seg_ok = false;
}

static int mode_p1(const struct opts *o)
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
		int64_t t0 = mono_ns();                                       \
		for (uint64_t i = 0; i < n; i++) {                            \
			f(cb, false);                                         \
			pw_end(cb);                                           \
		}                                                             \
		int64_t t1 = mono_ns();                                       \
		return (double)(t1 - t0) / (double)n;                         \
	}
TIME_PAIRS(time_pairs_watched, 1)
TIME_PAIRS(time_pairs_unwatched, 0)
static double run_pw_a(const struct variant *v, uint64_t n) { return time_pairs_watched(v->f, n); }
static double run_pw_b(const struct variant *v, uint64_t n) { return time_pairs_unwatched(v->f, n); }

static int mode_pw(const struct opts *o)
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

static int mode_p2(const struct opts *o)
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
	int64_t deadline = mono_ns() + (int64_t)o->wait_ms * 1000000;
	bool en_a, en_b;
	for (;;) {
		en_a = r.real_enabled();
		en_b = lttng_ust_tracepoint_enabled(caret_micro, callback_start);
		if ((en_a && en_b) || mono_ns() > deadline)
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

static int mode_p2count(const struct opts *o)
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

/* ---- capture (P3) ---- */

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
		t0 = mono_ns();
		*sink += clock_loop(n);
		t1 = mono_ns();
		return (double)(t1 - t0) / (double)n;
	}
	if (seg_open(&s, n) < 0)
		return -1;
	if (v == P3_WARM)
		memset(s.area, 0, s.area_cap); /* fault every page in */
	t0 = mono_ns();
	if (v == P3_BOTH)
		ok = capture_clock_loop(&s, n);
	else
		ok = capture_loop(&s, n);
	t1 = mono_ns();
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

static int mode_p3(const struct opts *o)
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

static int mode_p3count(const struct opts *o)
{
	struct caret_seg s;
	if (seg_open(&s, o->count) < 0)
		return 1;
	uint64_t ok = capture_loop(&s, o->count);
	seg_done(&s);
	printf("{\"captures\": %llu}\n", (unsigned long long)ok);
	return ok == o->count ? 0 : 1;
}

/* ---- main ---- */

static void usage(void)
{
	fprintf(stderr,
		"usage: caret-microbench p1|p2|pw|p3 [--iters N] [--reps R] [--chunk C] "
		"[--drain-ms D] [--wait-ms W]\n"
		"       caret-microbench p1 --only 1|2 ...   (only variant A or B)\n"
		"       caret-microbench p2count --count N --only 1|2\n"
		"       caret-microbench p3count --count N\n"
		"The timing loops of bench/micro/micro.py; run that instead.\n");
}

static bool num_arg(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-')
		return false;
	*out = v;
	return true;
}

int main(int argc, char **argv)
{
	struct opts o = { .iters = 2000000, .reps = 7, .count = 0,
			  .drain_ms = 100, .wait_ms = 10000 };
	if (argc < 2) {
		usage();
		return 2;
	}
	const char *mode = argv[1];
	for (int i = 2; i < argc; i++) {
		uint64_t v;
		if (i + 1 >= argc || !num_arg(argv[i + 1], &v)) {
			usage();
			return 2;
		}
		if (strcmp(argv[i], "--iters") == 0 && v > 0)
			o.iters = v;
		else if (strcmp(argv[i], "--reps") == 0 && v > 0)
			o.reps = v;
		else if (strcmp(argv[i], "--count") == 0)
			o.count = v;
		else if (strcmp(argv[i], "--only") == 0 && v <= 2)
			o.only = v;
		else if (strcmp(argv[i], "--chunk") == 0)
			o.chunk = v;
		else if (strcmp(argv[i], "--drain-ms") == 0 && v < 100000)
			o.drain_ms = (unsigned)v;
		else if (strcmp(argv[i], "--wait-ms") == 0 && v < 1000000)
			o.wait_ms = (unsigned)v;
		else {
			usage();
			return 2;
		}
		i++;
	}
	if (strcmp(mode, "p1") == 0)
		return mode_p1(&o);
	if (strcmp(mode, "p2") == 0)
		return mode_p2(&o);
	if (strcmp(mode, "pw") == 0)
		return mode_pw(&o);
	if (strcmp(mode, "p2count") == 0)
		return mode_p2count(&o);
	if (strcmp(mode, "p3") == 0)
		return mode_p3(&o);
	if (strcmp(mode, "p3count") == 0)
		return mode_p3count(&o);
	usage();
	return 2;
}
