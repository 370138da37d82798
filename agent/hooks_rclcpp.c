/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rclcpp executor and callback-group hooks (C++ ABI: proto/rclcpp_abi.h).
 * Each calls the original first, then records what CARET's analyzer needs
 * to tie callbacks to callback groups and executors.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>

#include "agent/agent.h"
#include "agent/filter.h"
#include "agent/resolve.h"
#include "agent/state.h"
#include "proto/rclcpp_abi.h"

/* A std::shared_ptr as laid out by libstdc++. */
struct sp {
	void *ptr;
	void *ctrl;
};

/* Returned by value through a hidden result pointer: declaring a 24-byte
 * struct makes the C compiler use the same convention on x86-64 (rdi) and
 * aarch64 (x8) as C++ does for a non-trivial 16-byte shared_ptr. The
 * callee only writes the first 16 bytes. */
struct sp_ret {
	void *ptr;
	void *ctrl;
	void *unused;
};

/* Drops the reference a by-value shared_ptr return gave us. The object
 * (timer, subscription...) keeps its own reference to the rcl handle, so
 * ours is never the last and the control block never needs disposing. */
static void sp_release(void *ctrl)
{
	if (ctrl)
		__atomic_fetch_sub((int *)((char *)ctrl + CARET_SP_USE_COUNT_OFFSET), 1,
				   __ATOMIC_ACQ_REL);
}

static const void *handle_of(const struct sp *obj, struct caret_fn *slot, const char *getter)
{
	if (!obj || !obj->ptr)
		return NULL;
	void *f = caret_global(slot, getter);
	if (!f)
		return NULL;
	struct sp_ret r = { 0 };
	r = ((struct sp_ret (*)(void *))f)(obj->ptr);
	sp_release(r.ctrl);
	return r.ptr;
}

/* CallbackGroup::type() returns `const CallbackGroupType &`: a pointer to
 * the enum member (ros2/rclcpp humble+jazzy callback_group.hpp), named as
 * caret_trace names it ("unknown" for anything else). */
static const char *group_type_name(void *group)
{
	static struct caret_fn slot;
	const int *(*f)(void *) = (const int *(*)(void *))caret_global(&slot, CARET_SYM_CBG_TYPE);
	if (!f || !group)
		return "unknown";
	const int *t = f(group);
	if (!t)
		return "unknown";
	if (*t == CARET_CBG_MUTUALLY_EXCLUSIVE)
		return "mutually_exclusive";
	return *t == CARET_CBG_REENTRANT ? "reentrant" : "unknown";
}

/* ---- executor <-> collector pairs ----
 * Learnt from calls, never from member offsets (see proto/rclcpp_abi.h).
 * Init-time only, so a mutex is fine; a fixed table: executors are few. */
#define MAX_PAIRS 256
static struct pair {
	const void *executor, *collector;
	bool static_emitted;
} pairs[MAX_PAIRS];
static unsigned npairs;
static pthread_mutex_t pairs_lock = PTHREAD_MUTEX_INITIALIZER;

static struct pair *pair_of(const void *executor, bool create)
{
	for (unsigned i = 0; i < npairs; i++)
		if (pairs[i].executor == executor)
			return &pairs[i];
	if (!create || npairs == MAX_PAIRS)
		return NULL;
	pairs[npairs] = (struct pair){ .executor = executor };
	return &pairs[npairs++];
}

/* The static executor whose method runs on this thread (innermost). */
static __thread const void *tls_sste;
/* Jazzy: the Executor being constructed on this thread and the collector
 * constructed inside it. */
static __thread const void *tls_exec_ctor;
static __thread const void *tls_collector;

/* Links a static executor to its collector the first time it is seen:
 * construct_static_executor as CARET emits it (executor_addr,
 * entities_collector_addr, "static_single_threaded_executor"). */
static void static_pair(const void *executor, const void *collector)
{
	if (!executor || !collector)
		return;
	pthread_mutex_lock(&pairs_lock);
	struct pair *p = pair_of(executor, true);
	bool emit = false;
	if (p && !p->static_emitted && (!p->collector || p->collector == collector)) {
		p->collector = collector;
		p->static_emitted = emit = true;
	}
	pthread_mutex_unlock(&pairs_lock);
	if (emit) {
		caret_capture_construct_static_executor(executor, collector,
							"static_single_threaded_executor");
	}
}

/* ---- executors ---- */
static struct caret_fn real_ste, real_mte, real_sste, real_exec_add, real_seec_add;
static struct caret_fn real_exec_c2, real_eec_c1, real_eec_c2, real_eec_add;
static struct caret_fn real_sste_add_nb, real_sste_add_n, real_sste_add_cbg, real_sste_spin;

CARET_EXPORT void caret_hook_ste(void *self, const void *opts) __asm__(CARET_SYM_STE_CTOR);
CARET_EXPORT void caret_hook_mte(void *self, const void *opts, size_t threads, bool yield,
				 int64_t timeout_ns) __asm__(CARET_SYM_MTE_CTOR);
CARET_EXPORT void caret_hook_sste(void *self, const void *opts) __asm__(CARET_SYM_SSTE_CTOR);
CARET_EXPORT void caret_hook_exec_add(void *self, struct sp *group, struct sp *node, void *map,
				      bool notify) __asm__(CARET_SYM_EXEC_ADD_CBG);
CARET_EXPORT bool caret_hook_seec_add(void *self, struct sp *group, struct sp *node,
				      void *map) __asm__(CARET_SYM_SEEC_ADD_CBG);
CARET_EXPORT void caret_hook_exec_c2(void *self, const void *opts) __asm__(CARET_SYM_EXECUTOR_C2);
CARET_EXPORT void caret_hook_eec_c1(void *self, struct sp *notify) __asm__(CARET_SYM_EEC_CTOR_C1);
CARET_EXPORT void caret_hook_eec_c2(void *self, struct sp *notify) __asm__(CARET_SYM_EEC_CTOR_C2);
CARET_EXPORT void caret_hook_eec_add(void *self, struct sp *group, void *collection)
	__asm__(CARET_SYM_EEC_ADD_CBG);
CARET_EXPORT void caret_hook_sste_add_nb(void *self, struct sp *node, bool notify)
	__asm__(CARET_SYM_SSTE_ADD_NODE_BASE);
CARET_EXPORT void caret_hook_sste_add_n(void *self, struct sp *node, bool notify)
	__asm__(CARET_SYM_SSTE_ADD_NODE);
CARET_EXPORT void caret_hook_sste_add_cbg(void *self, struct sp *group, struct sp *node,
					  bool notify) __asm__(CARET_SYM_SSTE_ADD_CBG);
CARET_EXPORT void caret_hook_sste_spin(void *self) __asm__(CARET_SYM_SSTE_SPIN);

static void record_executor(const void *self, const char *type)
{
	caret_capture_construct_executor(self, type);
}

void caret_hook_ste(void *self, const void *opts)
{
	void (*f)(void *, const void *) = caret_real(&real_ste, CARET_SYM_STE_CTOR);
	if (f)
		f(self, opts);
	record_executor(self, "single_threaded_executor");
}

void caret_hook_mte(void *self, const void *opts, size_t threads, bool yield, int64_t timeout_ns)
{
	void (*f)(void *, const void *, size_t, bool, int64_t) =
		caret_real(&real_mte, CARET_SYM_MTE_CTOR);
	if (f)
		f(self, opts, threads, yield, timeout_ns);
	record_executor(self, "multi_threaded_executor");
}

/* Jazzy: the base Executor constructor already paired the executor with its
 * member collector (caret_trace emits get_collector_() = &collector_). On
 * Humble nothing is known yet: the pair is emitted when first used. */
void caret_hook_sste(void *self, const void *opts)
{
	void (*f)(void *, const void *) = caret_real(&real_sste, CARET_SYM_SSTE_CTOR);
	/* A new executor at a reused address starts over. */
	pthread_mutex_lock(&pairs_lock);
	struct pair *old = pair_of(self, false);
	if (old)
		*old = (struct pair){ .executor = self };
	pthread_mutex_unlock(&pairs_lock);
	if (f)
		f(self, opts);
	pthread_mutex_lock(&pairs_lock);
	struct pair *p = pair_of(self, false);
	const void *c = p ? p->collector : NULL;
	pthread_mutex_unlock(&pairs_lock);
	if (c)
		static_pair(self, c);
}

void caret_hook_exec_c2(void *self, const void *opts)
{
	void (*f)(void *, const void *) = caret_real(&real_exec_c2, CARET_SYM_EXECUTOR_C2);
	const void *outer = tls_exec_ctor, *outer_c = tls_collector;
	tls_exec_ctor = self;
	tls_collector = NULL;
	if (f)
		f(self, opts);
	const void *c = tls_collector;
	tls_exec_ctor = outer;
	tls_collector = outer_c;
	if (!c)
		return;
	pthread_mutex_lock(&pairs_lock);
	struct pair *p = pair_of(self, true);
	if (p) {
		/* A new executor at a reused address starts over. */
		*p = (struct pair){ .executor = self, .collector = c };
	}
	pthread_mutex_unlock(&pairs_lock);
	caret_capture_executor_entity_collector_to_executor(self, c);
}

/* Only the collector built as a member of the executor under construction
 * counts: its address lies inside that object. */
static void eec_ctor(struct caret_fn *slot, const char *sym, void *self, struct sp *notify)
{
	void (*f)(void *, struct sp *) = caret_real(slot, sym);
	if (f)
		f(self, notify);
	const char *x = tls_exec_ctor, *c = self;
	if (x && !tls_collector && c > x && c < x + 65536)
		tls_collector = self;
}

void caret_hook_eec_c1(void *self, struct sp *notify)
{
	eec_ctor(&real_eec_c1, CARET_SYM_EEC_CTOR_C1, self, notify);
}

void caret_hook_eec_c2(void *self, struct sp *notify)
{
	eec_ctor(&real_eec_c2, CARET_SYM_EEC_CTOR_C2, self, notify);
}

/* caret_trace reads the group and its type after the original returns; the
 * shared_ptr passed by value stays alive for the whole call. */
void caret_hook_eec_add(void *self, struct sp *group, void *collection)
{
	void (*f)(void *, struct sp *, void *) = caret_real(&real_eec_add, CARET_SYM_EEC_ADD_CBG);
	void *g = group ? group->ptr : NULL;
	if (f)
		f(self, group, collection);
	caret_capture_callback_group_to_executor_entity_collector(self, g,
		 group_type_name(g));
}

void caret_hook_exec_add(void *self, struct sp *group, struct sp *node, void *map, bool notify)
{
	void (*f)(void *, struct sp *, struct sp *, void *, bool) =
		caret_real(&real_exec_add, CARET_SYM_EXEC_ADD_CBG);
	void *g = group ? group->ptr : NULL;
	if (f)
		f(self, group, node, map, notify);
	caret_filter_note_group_node(g, node ? node->ptr : NULL);
	caret_capture_add_callback_group(self, g, group_type_name(g));
}

bool caret_hook_seec_add(void *self, struct sp *group, struct sp *node, void *map)
{
	bool (*f)(void *, struct sp *, struct sp *, void *) =
		caret_real(&real_seec_add, CARET_SYM_SEEC_ADD_CBG);
	void *g = group ? group->ptr : NULL;
	static_pair(tls_sste, self);
	bool r = f ? f(self, group, node, map) : false;
	caret_filter_note_group_node(g, node ? node->ptr : NULL);
	caret_capture_add_callback_group_static_executor(self, g, group_type_name(g));
	return r;
}

/* Humble StaticSingleThreadedExecutor methods that reach its collector:
 * they only mark the thread, the collector's own hook does the pairing. */
#define SSTE_ENTER() const void *outer_ = tls_sste; tls_sste = self
#define SSTE_LEAVE() tls_sste = outer_

void caret_hook_sste_add_nb(void *self, struct sp *node, bool notify)
{
	void (*f)(void *, struct sp *, bool) = caret_real(&real_sste_add_nb,
							  CARET_SYM_SSTE_ADD_NODE_BASE);
	SSTE_ENTER();
	if (f)
		f(self, node, notify);
	SSTE_LEAVE();
}

void caret_hook_sste_add_n(void *self, struct sp *node, bool notify)
{
	void (*f)(void *, struct sp *, bool) = caret_real(&real_sste_add_n,
							  CARET_SYM_SSTE_ADD_NODE);
	SSTE_ENTER();
	if (f)
		f(self, node, notify);
	SSTE_LEAVE();
}

void caret_hook_sste_add_cbg(void *self, struct sp *group, struct sp *node, bool notify)
{
	void (*f)(void *, struct sp *, struct sp *, bool) =
		caret_real(&real_sste_add_cbg, CARET_SYM_SSTE_ADD_CBG);
	SSTE_ENTER();
	if (f)
		f(self, group, node, notify);
	SSTE_LEAVE();
}

/* spin_some / spin_all take std::chrono::nanoseconds by value: one int64
 * in a register (trivially copyable). */
static struct caret_fn real_sste_spin_some, real_sste_spin_all;
CARET_EXPORT void caret_hook_sste_spin_some(void *self, int64_t max_ns)
	__asm__(CARET_SYM_SSTE_SPIN_SOME);
CARET_EXPORT void caret_hook_sste_spin_all(void *self, int64_t max_ns)
	__asm__(CARET_SYM_SSTE_SPIN_ALL);

void caret_hook_sste_spin_some(void *self, int64_t max_ns)
{
	void (*f)(void *, int64_t) = caret_real(&real_sste_spin_some, CARET_SYM_SSTE_SPIN_SOME);
	SSTE_ENTER();
	if (f)
		f(self, max_ns);
	SSTE_LEAVE();
}

void caret_hook_sste_spin_all(void *self, int64_t max_ns)
{
	void (*f)(void *, int64_t) = caret_real(&real_sste_spin_all, CARET_SYM_SSTE_SPIN_ALL);
	SSTE_ENTER();
	if (f)
		f(self, max_ns);
	SSTE_LEAVE();
}

/* spin() -> entities_collector_->init() adds groups created after add_node. */
void caret_hook_sste_spin(void *self)
{
	void (*f)(void *) = caret_real(&real_sste_spin, CARET_SYM_SSTE_SPIN);
	SSTE_ENTER();
	if (f)
		f(self);
	SSTE_LEAVE();
}

/* ---- callback groups ---- */
#define CBG_HOOK(what, sym, getter)                                     \
	static struct caret_fn real_add_##what, get_##what;                         \
	CARET_EXPORT void caret_hook_add_##what(void *self, struct sp *obj)   \
		__asm__(sym);                                                 \
	void caret_hook_add_##what(void *self, struct sp *obj)                \
	{                                                                     \
		/* Read the handle first: the original may move from obj. */ \
		const void *h = handle_of(obj, &get_##what, getter);          \
		void (*f)(void *, struct sp *) = caret_real(&real_add_##what, sym); \
		if (f)                                                        \
			f(self, obj);                                         \
		caret_capture_callback_group_add_##what(self, h);              \
	}

CBG_HOOK(timer, CARET_SYM_CBG_ADD_TIMER, CARET_SYM_TIMER_HANDLE)
CBG_HOOK(subscription, CARET_SYM_CBG_ADD_SUB, CARET_SYM_SUB_HANDLE)
CBG_HOOK(service, CARET_SYM_CBG_ADD_SRV, CARET_SYM_SRV_HANDLE)
CBG_HOOK(client, CARET_SYM_CBG_ADD_CLI, CARET_SYM_CLI_HANDLE)
