/* SPDX-License-Identifier: Apache-2.0 */
/*
 * C view of the rclcpp stand-in (librclcpp.so, C++; rclcpp.hpp).
 *
 *  1. rclcpp symbols the workload (the "user code" of a ROS 2 node) calls
 *     directly, declared under their mangled names with the Itanium
 *     conventions described in proto/rclcpp_abi.h. Linking the workload
 *     against librclcpp.so therefore checks that the C++ classes produce
 *     exactly these names; standin_abi_refs() also references the
 *     functions only the library calls internally, for the same check.
 *  2. A small extern "C" API for what C cannot do: construct
 *     std::shared_ptr objects, and call virtual functions.
 */
#ifndef STANDIN_RCLCPP_H
#define STANDIN_RCLCPP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/rclcpp_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Jazzy entry points CARET hooks (caret_trace hooked_trace_points.cpp);
 * not yet in proto/. Executor's base-object constructor (C2) is what the
 * derived constructors call. */
#define STANDIN_SYM_EXECUTOR_C2 "_ZN6rclcpp8ExecutorC2ERKNS_15ExecutorOptionsE"
#define STANDIN_SYM_EEC_ADD_TO_COLLECTION \
	"_ZN6rclcpp9executors25ExecutorEntitiesCollector32add_callback_group_to_collectionESt10shared_ptrINS_13CallbackGroupEERSt3setISt8weak_ptrIS3_ESt10owner_lessIS7_ESaIS7_EE"

/* std::shared_ptr<T> (libstdc++): object pointer, control block. Only the
 * library creates, copies and drops them. */
struct standin_sp {
	void *ptr;
	void *ctrl;
};

/* ---- 1. rclcpp ABI ---- */
void standin_ste_ctor(void *self, const void *opts)
	__asm__(CARET_SYM_STE_CTOR);
void standin_mte_ctor(void *self, const void *opts,
	size_t number_of_threads, bool yield_before_execute,
	int64_t next_exec_timeout_ns)
	__asm__(CARET_SYM_MTE_CTOR);
void standin_sste_ctor(void *self, const void *opts)
	__asm__(CARET_SYM_SSTE_CTOR);

/* By-value shared_ptr: pass a copy by address, drop it after the call. */
void standin_cbg_add_timer(void *self, struct standin_sp *timer)
	__asm__(CARET_SYM_CBG_ADD_TIMER);
void standin_cbg_add_subscription(void *self, struct standin_sp *sub)
	__asm__(CARET_SYM_CBG_ADD_SUB);
void standin_cbg_add_service(void *self, struct standin_sp *srv)
	__asm__(CARET_SYM_CBG_ADD_SRV);
void standin_cbg_add_client(void *self, struct standin_sp *cli)
	__asm__(CARET_SYM_CBG_ADD_CLI);
/* const CallbackGroupType &CallbackGroup::type() const */
const int *standin_cbg_type(const void *self) __asm__(CARET_SYM_CBG_TYPE);

/* Every symbol above and the internal ones, so linking fails if the
 * library does not define them all. Returns how many are non-NULL. */
int standin_abi_refs(void);

/* ---- 2. Construction and introspection ---- */
enum standin_entity_kind {
	STANDIN_TIMER,
	STANDIN_SUBSCRIPTION,
	STANDIN_SERVICE,
	STANDIN_CLIENT,
};
enum standin_exec_kind { STANDIN_EXEC_SINGLE, STANDIN_EXEC_MULTI,
	STANDIN_EXEC_STATIC };

/* Objects are never freed: they outlive every handle the tracer saw. */
struct standin_sp standin_node_base_new(const void *rcl_node_handle);
struct standin_sp standin_node_create_callback_group(struct standin_sp *node,
	enum caret_cbg_type type);
/* `rcl_handle` is what get_X_handle() hands out; `user` is opaque. */
struct standin_sp standin_entity_new(enum standin_entity_kind kind,
	const void *rcl_handle, void *user);
struct standin_sp standin_sp_copy(const struct standin_sp *sp);
void standin_sp_release(struct standin_sp *sp);

/* ExecutorOptions in caller storage (default-constructed). */
size_t standin_executor_options_size(void);
void standin_executor_options_init(void *storage);
/* Executors live in caller storage, as after `new`; the ctor fills it. */
size_t standin_executor_size(enum standin_exec_kind kind);
/* executor->add_node(node, true) (virtual). */
void standin_executor_add_node(void *executor, struct standin_sp *node);
/* What spinning does first: Jazzy's collect_entities(). */
void standin_executor_collect(void *executor);
/* MultiThreadedExecutor::get_number_of_threads(), 1 for the others. */
size_t standin_executor_threads(void *executor, enum standin_exec_kind kind);
/* get_all_callback_groups(): total count, at most `cap` filled. */
size_t standin_executor_groups(void *executor, void **groups, size_t cap);
/* The `user` pointers of a group's entities of one kind. */
size_t standin_group_entities(const void *group,
	enum standin_entity_kind kind, void **users, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
