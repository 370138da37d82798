/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Runtime tracepoints of tracetools. Forwarded to the real tracetools only
 * in RECORD. The WAIT/PREPARE path is one relaxed load and a branch: no
 * allocation, no syscall, no lock (DESIGN.md §5).
 */
#include <stdbool.h>
#include <stdint.h>

#include "agent/agent.h"
#include "agent/count.h"
#include "agent/filter.h"
#include "agent/resolve.h"
#include "agent/state.h"

/* `keep` is CARET's filter for the event (filter.c), evaluated only in
 * RECORD. The enabled_ variant cannot see the arguments: it says yes in
 * RECORD and do_ applies the filter. `count` is what `caretctl top`
 * counts of the event (count.h; `counted` 1), run whatever the state
 * while the process is watched (w_: the generation, read once by the
 * hook and handed on). The hook itself only reads the words and returns:
 * everything else is in the slow_ function it jumps to, so the common case needs no stack frame (P1's
 * instructions); with nothing to count (`counted` 0) the compiler drops
 * the watched word's load. */
#define RT_HOOK_FC(name, params, args, keep, counted, count)                 \
	CARET_EXPORT void ros_trace_##name params;                            \
	CARET_EXPORT void ros_trace_do_##name params;                         \
	CARET_EXPORT bool ros_trace_enabled_##name(void);                     \
	static struct caret_fn real_##name, real_do_##name, real_en_##name;   \
	static __attribute__((noinline)) void slow_##name(struct caret_fn *slot_, \
							 const char *sym_,    \
							 uint32_t w_,         \
							 RT_PARAMS_ params)   \
	{                                                                     \
		if (w_)                                                       \
			count;                                                \
		if (!caret_recording() || !(keep))                            \
			return;                                               \
		CARET_FORWARD(slot_, sym_, params, args);                     \
	}                                                                     \
	void ros_trace_##name params                                          \
	{                                                                     \
		uint32_t w_ = (counted) ? caret_watched() : 0;                \
		if (__builtin_expect(w_ == 0 && !caret_recording(), 1))       \
			return;                                               \
		slow_##name(&real_##name, "ros_trace_" #name, w_, RT_ARGS_ args); \
	}                                                                     \
	void ros_trace_do_##name params                                       \
	{                                                                     \
		uint32_t w_ = (counted) ? caret_watched() : 0;                \
		if (__builtin_expect(w_ == 0 && !caret_recording(), 1))       \
			return;                                               \
		slow_##name(&real_do_##name, "ros_trace_do_" #name, w_,       \
			    RT_ARGS_ args);                                   \
	}                                                                     \
	/* watched, do_ must run to count: yes, and do_ forwards only     \
	 * in RECORD */                                                   \
	bool ros_trace_enabled_##name(void)                                   \
	{                                                                     \
		if (__builtin_expect(!caret_recording(), 1))                  \
			return (counted) && caret_watched() != 0;             \
		bool (*f_)(void) = (bool (*)(void))caret_real(                \
			&real_en_##name, "ros_trace_enabled_" #name);         \
		return (f_ && f_()) || ((counted) && caret_watched() != 0);   \
	}

/* A parenthesised list without its parentheses, to splice it after other
 * parameters or arguments. */
#define RT_PARAMS_(...) __VA_ARGS__
#define RT_ARGS_(...) __VA_ARGS__

#define RT_HOOK_F(name, params, args, keep) RT_HOOK_FC(name, params, args, keep, 0, (void)0)
#define RT_HOOK(name, params, args) RT_HOOK_F(name, params, args, true)

/* Events CARET does not use: never emitted, whatever the state. */
#define SILENT_HOOK(name, params)                                            \
	CARET_EXPORT void ros_trace_##name params;                            \
	CARET_EXPORT void ros_trace_do_##name params;                         \
	CARET_EXPORT bool ros_trace_enabled_##name(void);                     \
	void ros_trace_##name params {}                                       \
	void ros_trace_do_##name params {}                                    \
	bool ros_trace_enabled_##name(void) { return false; }

#pragma GCC diagnostic ignored "-Wunused-parameter"

typedef const void *cvp;
typedef const char *ccp;

RT_HOOK_FC(callback_start, (cvp callback, const bool is_intra_process),
	   (callback, is_intra_process), caret_filter_callback_allowed(callback), 1,
	   caret_count_callback_start(callback, w_))
RT_HOOK_FC(callback_end, (cvp callback), (callback), caret_filter_callback_allowed(callback),
	   1, caret_count_callback_end(callback, w_))
RT_HOOK_F(rclcpp_publish, (cvp publisher_handle, cvp message), (publisher_handle, message),
	  caret_filter_publisher_allowed(publisher_handle))
RT_HOOK_F(rclcpp_intra_publish, (cvp publisher_handle, cvp message),
	  (publisher_handle, message), caret_filter_publisher_allowed(publisher_handle))
RT_HOOK_FC(rmw_take, (cvp rmw_subscription_handle, cvp message, int64_t source_timestamp,
		      const bool taken),
	   (rmw_subscription_handle, message, source_timestamp, taken),
	   caret_filter_rmw_subscription_allowed(rmw_subscription_handle), 1,
	   if (taken) caret_count_take(rmw_subscription_handle, source_timestamp, w_))
RT_HOOK_F(rcl_lifecycle_transition, (cvp state_machine, ccp start_label, ccp goal_label),
	  (state_machine, start_label, goal_label),
	  caret_filter_state_machine_allowed(state_machine))
RT_HOOK_F(rclcpp_ring_buffer_enqueue, (cvp buffer, const uint64_t index, const uint64_t size,
				       const bool overwritten),
	  (buffer, index, size, overwritten), caret_filter_buffer_allowed(buffer))
RT_HOOK_F(rclcpp_ring_buffer_dequeue, (cvp buffer, const uint64_t index, const uint64_t size),
	  (buffer, index, size), caret_filter_buffer_allowed(buffer))
RT_HOOK_F(rclcpp_ring_buffer_clear, (cvp buffer), (buffer), caret_filter_buffer_allowed(buffer))
RT_HOOK_F(dispatch_subscription_callback, (cvp message, cvp callback,
					   const uint64_t source_timestamp,
					   const uint64_t message_timestamp),
	  (message, callback, source_timestamp, message_timestamp),
	  caret_filter_callback_allowed(callback))
RT_HOOK_F(dispatch_intra_process_subscription_callback, (cvp message, cvp callback,
							 const uint64_t message_timestamp),
	  (message, callback, message_timestamp), caret_filter_callback_allowed(callback))
RT_HOOK(message_construct, (cvp original_message, cvp constructed_message),
	(original_message, constructed_message))

SILENT_HOOK(rclcpp_executor_execute, (cvp handle))
SILENT_HOOK(rclcpp_executor_wait_for_work, (const int64_t timeout))
SILENT_HOOK(rclcpp_executor_get_next_ready, (void))
SILENT_HOOK(rcl_take, (cvp message))
SILENT_HOOK(rclcpp_take, (cvp message))
SILENT_HOOK(rmw_publisher_init, (cvp rmw_publisher_handle, const uint8_t *gid))
SILENT_HOOK(rmw_subscription_init, (cvp rmw_subscription_handle, const uint8_t *gid))

/*
 * rcl_publish decides for the rest of the publish on this thread, as
 * caret_trace's trace_filter_is_rcl_publish_recorded does: rmw_publish
 * (ros2_caret:dds_write) and the DDS binds follow it. Its enabled_ variant
 * says yes in RECORD so that do_ always runs and sets the flag, even when
 * no session enables ros2:rcl_publish. The flag is caret_tls_publish_kept
 * (state.h). `caretctl top` counts publishes here, not at rclcpp_publish:
 * rclcpp passes that one no publisher handle (publisher.hpp, humble
 * l.455, jazzy l.452: rclcpp_publish(nullptr, &msg)); rcl_publish's is
 * rcl_publisher_init's.
 */
CARET_EXPORT void ros_trace_rcl_publish(cvp publisher_handle, cvp message);
CARET_EXPORT void ros_trace_do_rcl_publish(cvp publisher_handle, cvp message);
CARET_EXPORT bool ros_trace_enabled_rcl_publish(void);
static struct caret_fn real_rcl_publish, real_do_rcl_publish;

static void rcl_publish_hook(struct caret_fn *slot, const char *sym, cvp pub, cvp message)
{
	bool keep = caret_recording() && caret_filter_publisher_allowed(pub);
	caret_tls_publish_kept = keep;
	if (!keep)
		return;
	void (*f)(cvp, cvp) = (void (*)(cvp, cvp))caret_real(slot, sym);
	if (f)
		f(pub, message);
}

static inline void count_publish(cvp publisher_handle)
{
	uint32_t w = caret_watched();
	if (__builtin_expect(w != 0, 0))
		caret_count_message(CARET_CTR_PUBLISHER, publisher_handle, w);
}

void ros_trace_rcl_publish(cvp publisher_handle, cvp message)
{
	count_publish(publisher_handle);
	if (__builtin_expect(!caret_recording(), 1))
		return;
	rcl_publish_hook(&real_rcl_publish, "ros_trace_rcl_publish", publisher_handle, message);
}

void ros_trace_do_rcl_publish(cvp publisher_handle, cvp message)
{
	count_publish(publisher_handle);
	if (__builtin_expect(!caret_recording(), 1))
		return;
	rcl_publish_hook(&real_do_rcl_publish, "ros_trace_do_rcl_publish", publisher_handle,
			 message);
}

bool ros_trace_enabled_rcl_publish(void)
{
	return caret_recording() || caret_watched() != 0;
}

/*
 * rmw_publish becomes ros2_caret:dds_write. Before Jazzy it takes only the
 * message; the extra registers are then garbage and are not read.
 */
CARET_EXPORT void ros_trace_rmw_publish(cvp a0, cvp message, int64_t timestamp);
CARET_EXPORT void ros_trace_do_rmw_publish(cvp a0, cvp message, int64_t timestamp);
CARET_EXPORT bool ros_trace_enabled_rmw_publish(void);

void ros_trace_rmw_publish(cvp a0, cvp message, int64_t timestamp)
{
	if (__builtin_expect(!caret_recording(), 1))
		return;
	/* A session that records ros2: events and no ros2_caret ones gets
	 * what it would without the agent: the real ros2:rmw_publish. */
	if (caret_init_to_ros2()) {
		static struct caret_fn real;
		void (*f)(cvp, cvp, int64_t) =
			(void (*)(cvp, cvp, int64_t))caret_real(&real, "ros_trace_rmw_publish");
		if (f)
			f(a0, message, timestamp);
	}
	if (!caret_tp || !caret_tls_publish_kept)
		return;
	/* Unknown signature: emit no argument rather than a register that
	 * may hold garbage (the analyzer joins dds_write by thread and time). */
	if (caret_rmw_publish_args == 1)
		caret_tp->dds_write(NULL, a0, 0);
	else if (caret_rmw_publish_args == 3)
		caret_tp->dds_write(a0, message, timestamp);
	else
		caret_tp->dds_write(NULL, NULL, 0);
}

void ros_trace_do_rmw_publish(cvp a0, cvp message, int64_t timestamp)
{
	ros_trace_rmw_publish(a0, message, timestamp);
}

bool ros_trace_enabled_rmw_publish(void)
{
	return caret_recording() && (caret_tp || caret_init_to_ros2());
}
