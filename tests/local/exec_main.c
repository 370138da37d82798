/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The executor hooks against an rclcpp-like library opened RTLD_LOCAL
 * (libls_rclcpp.so), recorded by the test provider (libtp_test.so):
 *   Jazzy: executor_entity_collector_to_executor(executor, collector) from
 *     the base Executor constructor, the collector found as the `this` of
 *     the ExecutorEntitiesCollector constructed inside it (no offset);
 *     construct_static_executor with the same collector;
 *     callback_group_to_executor_entity_collector with the group's type
 *     read through `const CallbackGroupType &`.
 *   Humble: construct_static_executor(executor, collector) emitted once,
 *     before the first add_callback_group_static_executor.
 * Without the agent it checks that every real function is reached.
 * Usage: exec_main LIBDIR. Exit 0 when every check passed.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shm/caret_shm.h"
#include "tests/local/ls_rclcpp.h"

struct tp_rec {
	uint32_t kind;
	uint64_t a[3];
	char s[32];
};

static int failures;
#define CHECK(cond, ...)                                                     \
	do {                                                                 \
		printf((cond) ? "ok   " : "FAIL ");                          \
		failures += !(cond);                                         \
		printf(__VA_ARGS__);                                         \
		printf("\n");                                                \
	} while (0)

static struct tp_rec *log_;
static unsigned *log_n;

static int count(uint32_t kind, uint64_t a0)
{
	int n = 0;
	for (unsigned i = 0; log_n && i < *log_n; i++)
		n += log_[i].kind == kind && log_[i].a[0] == a0;
	return n;
}

static const struct tp_rec *find(uint32_t kind, uint64_t a0)
{
	for (unsigned i = 0; log_n && i < *log_n; i++)
		if (log_[i].kind == kind && log_[i].a[0] == a0)
			return &log_[i];
	return NULL;
}

static unsigned index_of(const struct tp_rec *r)
{
	return (unsigned)(r - log_);
}

#define U(p) ((uint64_t)(uintptr_t)(p))

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	char path[4096];
	snprintf(path, sizeof(path), "%s/libls_rclcpp.so", argv[1]);
	void *h = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return 2;
	}
	const char *tp = getenv("CARET_AGENT_TP_LIB");
	void (*rcl_init)(const void *) = (void (*)(const void *))dlsym(RTLD_DEFAULT,
								       "ros_trace_rcl_init");
	bool agent = tp && rcl_init;
	if (agent) {
		static int ctx;
		rcl_init(&ctx); /* starts the agent, which loads the provider */
		void *t = dlopen(tp, RTLD_LAZY | RTLD_NOLOAD);
		log_ = t ? dlsym(t, "test_tp_log") : NULL;
		log_n = t ? dlsym(t, "test_tp_n") : NULL;
		CHECK(log_ && log_n, "test provider loaded by the agent");
	}
	/* Callers bind to the first definition in the global scope: the
	 * agent's hook when it is preloaded, else nothing (the library is
	 * local), then the library's own. */
#define CALLEE(sym) (dlsym(RTLD_DEFAULT, sym) ? dlsym(RTLD_DEFAULT, sym) : dlsym(h, sym))
	void (*sste)(struct fake_executor *, const void *) = CALLEE(CARET_SYM_SSTE_CTOR);
	void (*eec_add)(void *, struct sp *, void *) = CALLEE(CARET_SYM_EEC_ADD_CBG);
	void (*sste_add)(struct fake_executor *, struct sp *, struct sp *, bool) =
		CALLEE(CARET_SYM_SSTE_ADD_CBG);
	enum fake_flavour *flavour = dlsym(h, "fake_flavour");
	int *eec_constructed = dlsym(h, "fake_eec_constructed");
	int *eec_added = dlsym(h, "fake_eec_added");
	int *seec_added = dlsym(h, "fake_seec_added");

	/* Jazzy */
	*flavour = FAKE_JAZZY;
	struct fake_executor *x = calloc(1, sizeof(*x));
	struct fake_group reentrant = { 1 }, exclusive = { 0 };
	struct sp g1 = { &reentrant, NULL }, node = { NULL, NULL };
	sste(x, NULL);
	eec_add(x->collector, &g1, NULL);
	CHECK(*eec_constructed == 1 && *eec_added == 1 && x->tag == 1,
	      "Jazzy: every real function reached");
	if (agent) {
		const struct tp_rec *r = find(CARET_KIND_executor_entity_collector_to_executor, U(x));
		CHECK(r && r->a[1] == U(x->collector),
		      "executor_entity_collector_to_executor(executor, &collector_)");
		r = find(CARET_KIND_construct_static_executor, U(x));
		CHECK(r && r->a[1] == U(x->collector) &&
			      !strcmp(r->s, "static_single_threaded_executor"),
		      "construct_static_executor carries the same collector");
		r = find(CARET_KIND_callback_group_to_executor_entity_collector, U(x->collector));
		CHECK(r && r->a[1] == U(&reentrant) && !strcmp(r->s, "reentrant"),
		      "callback_group_to_executor_entity_collector(collector, group, reentrant)");
	}

	/* Humble */
	*flavour = FAKE_HUMBLE;
	struct fake_executor *y = calloc(1, sizeof(*y));
	struct sp g2 = { &exclusive, NULL }, g3 = { &reentrant, NULL };
	sste(y, NULL);
	if (agent)
		CHECK(count(CARET_KIND_construct_static_executor, U(y)) == 0,
		      "Humble: nothing known at construction, nothing guessed");
	sste_add(y, &g2, &node, true);
	sste_add(y, &g3, &node, true);
	CHECK(*seec_added == 2, "Humble: every real function reached");
	if (agent) {
		void *c = y->humble_collector;
		const struct tp_rec *ex = find(CARET_KIND_construct_static_executor, U(y));
		const struct tp_rec *add = find(CARET_KIND_add_callback_group_static_executor, U(c));
		CHECK(ex && ex->a[1] == U(c), "construct_static_executor(executor, collector)");
		CHECK(count(CARET_KIND_construct_static_executor, U(y)) == 1, "emitted once");
		CHECK(ex && add && index_of(ex) < index_of(add) && add->a[1] == U(&exclusive) &&
			      !strcmp(add->s, "mutually_exclusive"),
		      "before add_callback_group_static_executor(collector, group, mutually_exclusive)");
		CHECK(count(CARET_KIND_add_callback_group_static_executor, U(c)) == 2,
		      "both groups linked");
	}
	printf("%s\n", failures ? "FAILED" : "PASSED");
	return failures ? 1 : 0;
}
