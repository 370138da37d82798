/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rclcpp executor and callback-group hooks (C++ ABI: proto/rclcpp_abi.h).
 * Each calls the original first, then records what CARET's analyzer needs
 * to tie callbacks to callback groups and executors.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/agent.h"
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

static const char *group_type_name(void *group)
{
	static struct caret_fn slot;
	void *f = caret_global(&slot, CARET_SYM_CBG_TYPE);
	if (!f || !group)
		return "unknown";
	int t = ((int (*)(void *))f)(group);
	return t == CARET_CBG_REENTRANT ? "reentrant" : "mutually_exclusive";
}

static void record2(uint32_t kind, const void *a, const void *b)
{
	union caret_arg v[] = { CARET_P(a), CARET_P(b) };
	caret_capture(kind, v);
}

static void record3s(uint32_t kind, const void *a, const void *b, const char *s)
{
	union caret_arg v[] = { CARET_P(a), CARET_P(b), CARET_S(s) };
	caret_capture(kind, v);
}

/* ---- executors ---- */
static struct caret_fn real_ste, real_mte, real_sste, real_exec_add, real_seec_add;

CARET_EXPORT void caret_hook_ste(void *self, const void *opts) __asm__(CARET_SYM_STE_CTOR);
CARET_EXPORT void caret_hook_mte(void *self, const void *opts, size_t threads, bool yield,
				 int64_t timeout_ns) __asm__(CARET_SYM_MTE_CTOR);
CARET_EXPORT void caret_hook_sste(void *self, const void *opts) __asm__(CARET_SYM_SSTE_CTOR);
CARET_EXPORT void caret_hook_exec_add(void *self, struct sp *group, struct sp *node, void *map,
				      bool notify) __asm__(CARET_SYM_EXEC_ADD_CBG);
CARET_EXPORT bool caret_hook_seec_add(void *self, struct sp *group, struct sp *node,
				      void *map) __asm__(CARET_SYM_SEEC_ADD_CBG);

static void record_executor(const void *self, const char *type)
{
	union caret_arg v[] = { CARET_P(self), CARET_S(type) };
	caret_capture(CARET_KIND_construct_executor, v);
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

void caret_hook_sste(void *self, const void *opts)
{
	void (*f)(void *, const void *) = caret_real(&real_sste, CARET_SYM_SSTE_CTOR);
	if (f)
		f(self, opts);
	const struct sp *collector =
		(const struct sp *)((const char *)self + CARET_SSTE_COLLECTOR_OFFSET);
	union caret_arg v[] = { CARET_P(self), CARET_P(collector->ptr),
				CARET_S("single_threaded_static_executor") };
	caret_capture(CARET_KIND_construct_static_executor, v);
}

void caret_hook_exec_add(void *self, struct sp *group, struct sp *node, void *map, bool notify)
{
	void (*f)(void *, struct sp *, struct sp *, void *, bool) =
		caret_real(&real_exec_add, CARET_SYM_EXEC_ADD_CBG);
	void *g = group ? group->ptr : NULL;
	if (f)
		f(self, group, node, map, notify);
	record3s(CARET_KIND_add_callback_group, self, g, group_type_name(g));
}

bool caret_hook_seec_add(void *self, struct sp *group, struct sp *node, void *map)
{
	bool (*f)(void *, struct sp *, struct sp *, void *) =
		caret_real(&real_seec_add, CARET_SYM_SEEC_ADD_CBG);
	void *g = group ? group->ptr : NULL;
	bool r = f ? f(self, group, node, map) : false;
	record3s(CARET_KIND_add_callback_group_static_executor, self, g, group_type_name(g));
	return r;
}

/* ---- callback groups ---- */
#define CBG_HOOK(what, sym, getter, kind)                                     \
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
		record2(kind, self, h);                                       \
	}

CBG_HOOK(timer, CARET_SYM_CBG_ADD_TIMER, CARET_SYM_TIMER_HANDLE,
	 CARET_KIND_callback_group_add_timer)
CBG_HOOK(subscription, CARET_SYM_CBG_ADD_SUB, CARET_SYM_SUB_HANDLE,
	 CARET_KIND_callback_group_add_subscription)
CBG_HOOK(service, CARET_SYM_CBG_ADD_SRV, CARET_SYM_SRV_HANDLE,
	 CARET_KIND_callback_group_add_service)
CBG_HOOK(client, CARET_SYM_CBG_ADD_CLI, CARET_SYM_CLI_HANDLE,
	 CARET_KIND_callback_group_add_client)
