/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The agent's replay loop and its claims (agent/replay.c, shm/owner.c),
 * with this process as its own controller (caret_drive_*, what caretd
 * does) and the test provider (libtp_test.so) recording every emission:
 *   1. a pass replays every cached record exactly once, in order, the
 *      last one included;
 *   2. records an application thread emits live while a pass runs (state
 *      RECORD, the pass's tracepoints enabled) are claimed for it: that
 *      pass skips them (each exactly once: live), the records before
 *      them are replayed once, the last included;
 *   3. the next pass replays all of them once again, the live ones too.
 * Every wait is on the segment's progress word, bounded (a pass that
 * never ends fails, it does not hang).
 * Usage: replay_main (agent preloaded, CARET_AGENT_TP_LIB the provider).
 * Exit 0 when every check passed.
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "shm/caret_shm.h"

struct tp_rec {
	uint32_t kind;
	uint64_t a[3];
	char s[32];
};

static int failures;
#define CHECK(cond, ...)                                                     \
	do {                                                                 \
		bool ok_ = (cond);                                           \
		printf(ok_ ? "ok   " : "FAIL ");                             \
		failures += !ok_;                                            \
		printf(__VA_ARGS__);                                         \
		printf("\n");                                                \
	} while (0)

static struct tp_rec *log_;
static unsigned *log_n;
static uint64_t (*marks_)[3];
static unsigned *marks_n;

/* The pass's marks (agent/replay.c): its begin, then its end, both for
 * epoch e, with the records it was to walk and those it emitted. */
static void expect_marks(const char *what, uint32_t e, uint64_t begin, uint64_t end)
{
	unsigned n = __atomic_load_n(marks_n, __ATOMIC_ACQUIRE);
	bool ok = n >= 2 && marks_[n - 2][0] == 0 && marks_[n - 2][1] == e &&
		  marks_[n - 2][2] == begin && marks_[n - 1][0] == 1 && marks_[n - 1][1] == e &&
		  marks_[n - 1][2] == end;
	CHECK(ok, "%s: marked begin (%u, %llu) and end (%u, %llu)", what, e,
	      (unsigned long long)begin, e, (unsigned long long)end);
}

/* The cache as the controller reads it: (kind, first field) of each
 * record, in order. */
#define MAX_CACHE 256
static struct {
	uint32_t kind;
	uint64_t a0;
} cache[MAX_CACHE];
static unsigned n_cache;

static int walk_cb(const struct caret_rec_view *v, void *ctx)
{
	(void)ctx;
	if (n_cache < MAX_CACHE) {
		const char *sig = caret_kind_sig(v->kind);
		cache[n_cache].kind = v->kind;
		cache[n_cache].a0 = sig && sig[0] && sig[0] != 's' ? v->args[0].u : 0;
	}
	n_cache++;
	return 0;
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Until the agent saw pass `epoch`'s tracepoints enabled (10 s at most). */
static int wait_enabled(struct caret_seg *s, uint32_t epoch)
{
	int64_t deadline = now_ms() + 10000;
	struct caret_seg_status st;
	for (;;) {
		caret_seg_read_status(s, &st);
		if (st.tp_enabled_epoch == epoch)
			return 0;
		if (now_ms() > deadline)
			return -1;
		caret_drive_wait_progress(s, st.progress, 100);
	}
}

/* Grants pass `epoch` every record cached and waits until it walked them
 * all (5 s at most); the records it walked, as the cursor says. */
static uint32_t run_pass(struct caret_seg *s, uint32_t epoch)
{
	int64_t deadline = now_ms() + 5000;
	struct caret_seg_status st;
	for (;;) {
		caret_seg_read_status(s, &st);
		uint32_t total = (uint32_t)st.records;
		if (CARET_COUNT_OF(st.grant) != total || CARET_EPOCH_OF(st.grant) != epoch)
			caret_drive_grant(s, epoch, total);
		if (CARET_EPOCH_OF(st.cursor) == epoch && CARET_COUNT_OF(st.cursor) >= total)
			return CARET_COUNT_OF(st.cursor);
		if (now_ms() > deadline) {
			printf("pass %u: walked %u of %u records in 5 s\n", epoch,
			       CARET_EPOCH_OF(st.cursor) == epoch ? CARET_COUNT_OF(st.cursor) : 0,
			       total);
			return CARET_EPOCH_OF(st.cursor) == epoch ? CARET_COUNT_OF(st.cursor) : 0;
		}
		caret_drive_wait_progress(s, st.progress, 100);
	}
}

/* How many times the emissions log[from, to) hold cache record i. */
static int emitted(unsigned from, unsigned to, unsigned i)
{
	int n = 0;
	for (unsigned k = from; k < to; k++)
		n += log_[k].kind == cache[i].kind && log_[k].a[0] == cache[i].a0;
	return n;
}

/* Records [lo, hi) of the cache each emitted `want` times in log[from,
 * to); the first that is not named. */
static void expect_each(const char *what, unsigned from, unsigned to, unsigned lo, unsigned hi,
			int want)
{
	unsigned bad = hi;
	int got = 0;
	for (unsigned i = lo; i < hi && bad == hi; i++)
		if ((got = emitted(from, to, i)) != want)
			bad = i;
	if (bad == hi)
		CHECK(true, "%s: records %u..%u emitted %d time%s each", what, lo, hi - 1, want,
		      want == 1 ? "" : "s");
	else
		CHECK(false, "%s: record %u of %u (%s%s) emitted %d times, not %d", what, bad, hi,
		      caret_kind_name(cache[bad].kind), bad == hi - 1 ? ", the pass's last" : "",
		      got, want);
}

static struct caret_seg ctl;

/* After a pass: the next would only wait out its bound too. */
static void stop_if_failed(void)
{
	if (failures) {
		printf("FAILED\n");
		exit(1);
	}
}

static void refresh_cache(void)
{
	n_cache = 0;
	CHECK(caret_seg_walk(&ctl, walk_cb, NULL) >= 0 && n_cache <= MAX_CACHE,
	      "the cache read (%u records)", n_cache);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *tp = getenv("CARET_AGENT_TP_LIB");
	void (*rcl_init)(const void *) = (void (*)(const void *))dlsym(RTLD_DEFAULT,
								       "ros_trace_rcl_init");
	void (*node_init)(const void *, const void *, const char *, const char *) =
		(void (*)(const void *, const void *, const char *, const char *))dlsym(
			RTLD_DEFAULT, "ros_trace_rcl_node_init");
	if (!tp || !rcl_init || !node_init) {
		fprintf(stderr, "replay_main: run with the agent preloaded and CARET_AGENT_TP_LIB\n");
		return 2;
	}
	static int ctx;
	rcl_init(&ctx); /* starts the agent, which loads the provider */
	void *t = dlopen(tp, RTLD_LAZY | RTLD_NOLOAD);
	log_ = t ? dlsym(t, "test_tp_log") : NULL;
	log_n = t ? dlsym(t, "test_tp_n") : NULL;
	marks_ = t ? dlsym(t, "test_tp_marks") : NULL;
	marks_n = t ? dlsym(t, "test_tp_marks_n") : NULL;
	CHECK(log_ && log_n && marks_ && marks_n, "test provider loaded by the agent");
	if (!log_ || !log_n || !marks_ || !marks_n)
		return 1;

	static char nodes[64];
	for (int i = 0; i < 24; i++) /* live: the provider is enabled, RECORD */
		node_init(&nodes[i], &nodes[i + 32], "n", "/");

	char name[256];
	uint64_t start;
	CHECK(caret_proc_start_time(getpid(), &start) == 0 &&
		      caret_seg_name(name, sizeof(name), getpid(), start) == 0 &&
		      caret_seg_attach(&ctl, name) == 0,
	      "this process's segment attached");
	CHECK(caret_seg_state(&ctl) == CARET_STATE_RECORD, "the agent is in RECORD");
	refresh_cache();
	const unsigned first = n_cache;
	CHECK(first >= 25, "rcl_init and the 24 nodes cached (%u records)", first);
	expect_each("live before any pass", 0, *log_n, 0, first, 1);

	/* 1. a pass for a new session (caretd's extra pass in RECORD) */
	unsigned l0 = __atomic_load_n(log_n, __ATOMIC_ACQUIRE);
	int64_t e = caret_drive_begin_pass(&ctl);
	CHECK(e > 0 && wait_enabled(&ctl, (uint32_t)e) == 0, "pass 1 began (epoch %lld)",
	      (long long)e);
	uint32_t walked = run_pass(&ctl, (uint32_t)e);
	unsigned l1 = __atomic_load_n(log_n, __ATOMIC_ACQUIRE);
	CHECK(walked == first, "pass 1 walked %u of %u records", walked, first);
	expect_each("pass 1", l0, l1, 0, first, 1);
	CHECK(l1 - l0 == first, "pass 1 emitted %u records, the cache holds %u", l1 - l0, first);
	expect_marks("pass 1", (uint32_t)e, first, first);
	stop_if_failed();

	/* 2. records emitted live while pass 2 runs: claimed for it */
	e = caret_drive_begin_pass(&ctl);
	CHECK(e > 0 && wait_enabled(&ctl, (uint32_t)e) == 0, "pass 2 began (epoch %lld)",
	      (long long)e);
	for (int i = 24; i < 32; i++) /* before its grant: live, claimed for pass 2 */
		node_init(&nodes[i], &nodes[i + 32], "m", "/");
	walked = run_pass(&ctl, (uint32_t)e);
	unsigned l2 = __atomic_load_n(log_n, __ATOMIC_ACQUIRE);
	refresh_cache();
	const unsigned all = n_cache;
	CHECK(all == first + 8, "the 8 live records cached (%u records)", all);
	CHECK(walked == all, "pass 2 walked %u of %u records", walked, all);
	expect_each("pass 2, records before it", l1, l2, 0, first, 1);
	expect_each("pass 2, records live during it (live once, never replayed)", l1, l2, first,
		    all, 1);
	CHECK(l2 - l1 == all, "pass 2 and the live emissions: %u records, the cache holds %u",
	      l2 - l1, all);
	/* the live ones came after its begin, and it skipped them */
	expect_marks("pass 2", (uint32_t)e, first, first);
	stop_if_failed();

	/* 3. the next pass replays them all */
	e = caret_drive_begin_pass(&ctl);
	CHECK(e > 0 && wait_enabled(&ctl, (uint32_t)e) == 0, "pass 3 began (epoch %lld)",
	      (long long)e);
	walked = run_pass(&ctl, (uint32_t)e);
	unsigned l3 = __atomic_load_n(log_n, __ATOMIC_ACQUIRE);
	CHECK(walked == all, "pass 3 walked %u of %u records", walked, all);
	expect_each("pass 3", l2, l3, 0, all, 1);
	CHECK(l3 - l2 == all, "pass 3 emitted %u records, the cache holds %u", l3 - l2, all);
	expect_marks("pass 3", (uint32_t)e, all, all);

	caret_seg_close(&ctl);
	printf("%s\n", failures ? "FAILED" : "PASSED");
	return failures ? 1 : 0;
}
