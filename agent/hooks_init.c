/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Init tracepoints of tracetools (DESIGN.md §7), in all three forms.
 * Each call is cached and emitted as ros2_caret:<name>; the real ros2:
 * variant is emitted only when caret_init_to_ros2() says so (a session
 * records ros2: init events and none records both kinds: the analyzer
 * would see every object twice).
 * Since Iron, call sites test ros_trace_enabled_X() before calling
 * ros_trace_do_X(): it is forced true so nothing escapes the cache.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "agent/agent.h"
#include "agent/resolve.h"
#include "agent/state.h"

/* The three entry points of one tracetools init event; instantiated for
 * every kind marked TRACETOOLS in CARET_KINDS (build/gen/caret_init_hooks.h).
 * Both capturing forms go through one function that forwards to the real
 * tracetools (`sym_`) when the agent is disabled. */
#define CARET_UNPAREN(...) __VA_ARGS__
#define CARET_INIT_HOOK(name, params, args)                                 \
	CARET_EXPORT void ros_trace_##name params;                            \
	CARET_EXPORT void ros_trace_do_##name params;                         \
	CARET_EXPORT bool ros_trace_enabled_##name(void);                     \
	static struct caret_fn real_##name, real_do_##name;                                \
	static void hook_##name(struct caret_fn *slot_, const char *sym_,              \
				CARET_UNPAREN params)                         \
	{                                                                     \
		if (caret_capture_##name args && !caret_init_to_ros2())       \
			return;                                               \
		CARET_FORWARD(slot_, sym_, params, args);                     \
	}                                                                     \
	void ros_trace_##name params                                          \
	{                                                                     \
		hook_##name(&real_##name, "ros_trace_" #name, CARET_UNPAREN args); \
	}                                                                     \
	void ros_trace_do_##name params                                       \
	{                                                                     \
		hook_##name(&real_do_##name, "ros_trace_do_" #name,           \
			    CARET_UNPAREN args);                              \
	}                                                                     \
	bool ros_trace_enabled_##name(void)                                   \
	{                                                                     \
		return true;                                                  \
	}

typedef const void *cvp;

/* rcl_init also announces the middleware, as CARET's hook does. */
static void rmw_impl_record(void)
{
	const char *impl = getenv("RMW_IMPLEMENTATION");
	if (!impl || !*impl) {
		static struct caret_fn slot;
		const char *(*id)(void) = (const char *(*)(void))caret_real(
			&slot, "rmw_get_implementation_identifier");
		impl = id ? id() : "";
	}
	caret_capture_rmw_implementation(impl);
}

static struct caret_fn real_rcl_init, real_do_rcl_init;
CARET_EXPORT void ros_trace_rcl_init(cvp context_handle);
CARET_EXPORT void ros_trace_do_rcl_init(cvp context_handle);
CARET_EXPORT bool ros_trace_enabled_rcl_init(void);

static void rcl_init_hook(cvp context_handle, struct caret_fn *slot, const char *sym)
{
	bool captured = caret_capture_rcl_init(context_handle);
	if (captured)
		rmw_impl_record();
	if (captured && !caret_init_to_ros2())
		return;
	void (*f)(cvp) = (void (*)(cvp))caret_real(slot, sym);
	if (f)
		f(context_handle);
}

void ros_trace_rcl_init(cvp context_handle)
{
	rcl_init_hook(context_handle, &real_rcl_init, "ros_trace_rcl_init");
}

void ros_trace_do_rcl_init(cvp context_handle)
{
	rcl_init_hook(context_handle, &real_do_rcl_init, "ros_trace_do_rcl_init");
}

bool ros_trace_enabled_rcl_init(void)
{
	return true;
}

/* Parameters are typed by the record signature: a pointer for 'p', a
 * string for 's', int64_t / uint64_t for 'i' / 'u'. tracetools declares
 * queue_depth as size_t: the same 64-bit unsigned on every ABI the agent
 * supports (checked below). */
_Static_assert(sizeof(size_t) == sizeof(uint64_t), "size_t parameters are 64-bit");
#include "caret_init_hooks.h"
