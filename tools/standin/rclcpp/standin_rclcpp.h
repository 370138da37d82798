/* SPDX-License-Identifier: Apache-2.0 */
/*
 * C view of the rclcpp stand-in (librclcpp.so).
 *
 * Two halves:
 *  1. The rclcpp symbols of proto/rclcpp_abi.h, declared under their mangled
 *     names. The workload calls them exactly as compiled C++ would (through
 *     the PLT, with the Itanium calling conventions described there), so a
 *     preloaded agent can interpose them.
 *  2. A small factory API (standin_*) the workload uses to build the objects
 *     C++ code would have built with make_shared, and to walk what the
 *     executor was given when it spins.
 */
#ifndef STANDIN_RCLCPP_H
#define STANDIN_RCLCPP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rclcpp_abi.h"

/* libstdc++ _Sp_counted_base: what the agent decrements after a getter. */
struct standin_ctrl {
	const void *vptr;
	int use_count;
	int weak_count;
};

/* std::shared_ptr<T>: object pointer, then control block. */
struct standin_sp {
	void *ptr;
	struct standin_ctrl *ctrl;
};

_Static_assert(offsetof(struct standin_ctrl, use_count) ==
	CARET_SP_USE_COUNT_OFFSET, "control block must match libstdc++");
_Static_assert(sizeof(struct standin_sp) == 16, "shared_ptr is two words");

/* rclcpp::ExecutorOptions; only its address crosses the ABI. */
struct standin_executor_options {
	struct standin_sp memory_strategy;
	struct standin_sp context;
	size_t max_initial_callbacks;
};

/* ---- 1. rclcpp ABI (see proto/rclcpp_abi.h for the conventions) ---- */

void standin_ste_ctor(void *self, const struct standin_executor_options *opts)
	__asm__(CARET_SYM_STE_CTOR);
void standin_mte_ctor(void *self, const struct standin_executor_options *opts,
	size_t number_of_threads, bool yield_before_execute,
	int64_t next_exec_timeout_ns)
	__asm__(CARET_SYM_MTE_CTOR);
void standin_sste_ctor(void *self,
	const struct standin_executor_options *opts)
	__asm__(CARET_SYM_SSTE_CTOR);

/* `map` is the WeakCallbackGroupsToNodesMap the caller owns. */
void standin_exec_add_callback_group_to_map(void *self,
	struct standin_sp *group, struct standin_sp *node, void *map,
	bool notify)
	__asm__(CARET_SYM_EXEC_ADD_CBG);
bool standin_seec_add_callback_group(void *self, struct standin_sp *group,
	struct standin_sp *node, void *map)
	__asm__(CARET_SYM_SEEC_ADD_CBG);

void standin_cbg_add_timer(void *self, struct standin_sp *timer)
	__asm__(CARET_SYM_CBG_ADD_TIMER);
void standin_cbg_add_subscription(void *self, struct standin_sp *sub)
	__asm__(CARET_SYM_CBG_ADD_SUB);
void standin_cbg_add_service(void *self, struct standin_sp *srv)
	__asm__(CARET_SYM_CBG_ADD_SRV);
void standin_cbg_add_client(void *self, struct standin_sp *cli)
	__asm__(CARET_SYM_CBG_ADD_CLI);
const int *standin_cbg_type(const void *self) __asm__(CARET_SYM_CBG_TYPE);
/* StaticSingleThreadedExecutor::add_callback_group: hands the group to its
 * collector, as Humble's does (entities_collector_->add_callback_group). */
void standin_sste_add_callback_group(void *self, struct standin_sp *group,
	struct standin_sp *node, bool notify) __asm__(CARET_SYM_SSTE_ADD_CBG);

/* Return the hidden result pointer, as the Itanium ABI requires. */
struct standin_sp *standin_timer_get_handle(struct standin_sp *result,
	void *self) __asm__(CARET_SYM_TIMER_HANDLE);
struct standin_sp *standin_sub_get_handle(struct standin_sp *result,
	void *self) __asm__(CARET_SYM_SUB_HANDLE);
struct standin_sp *standin_srv_get_handle(struct standin_sp *result,
	void *self) __asm__(CARET_SYM_SRV_HANDLE);
struct standin_sp *standin_cli_get_handle(struct standin_sp *result,
	void *self) __asm__(CARET_SYM_CLI_HANDLE);

/* rmw's C entry point; the agent asks it which middleware is loaded. */
const char *rmw_get_implementation_identifier(void);

/* ---- 2. Factories and introspection ---- */

enum standin_entity_kind {
	STANDIN_TIMER,
	STANDIN_SUBSCRIPTION,
	STANDIN_SERVICE,
	STANDIN_CLIENT,
	STANDIN_ENTITY_KINDS
};

/*
 * Each factory returns the creator's reference; objects are never freed
 * (rclcpp objects outlive every handle the tracer recorded). NULL ptr on
 * allocation failure.
 */
struct standin_sp standin_node_base_new(const void *rcl_node_handle);
struct standin_sp standin_callback_group_new(enum caret_cbg_type type);
/* `rcl_handle` is what get_X_handle() hands out; `user` is opaque. */
struct standin_sp standin_entity_new(enum standin_entity_kind kind,
	const void *rcl_handle, void *user);
void *standin_entity_user(const void *entity);

/* By-value shared_ptr arguments are copies the caller makes and drops. */
struct standin_sp standin_sp_copy(const struct standin_sp *sp);
void standin_sp_release(struct standin_sp *sp);

/* Executors live in caller storage, as after `new`; the ctor fills it. */
size_t standin_executor_size(void);
/* The executor's own WeakCallbackGroupsToNodesMap member. */
void *standin_executor_group_map(void *executor);
/* The StaticExecutorEntitiesCollector of a static executor, else NULL. */
void *standin_executor_collector(void *executor);
void *standin_collector_group_map(void *collector);
unsigned standin_executor_threads(const void *executor);

/*
 * What spinning sees: groups added to the executor (through the collector
 * for the static one), and the entities added to a group. Both return the
 * total count and fill at most `cap` entries.
 */
size_t standin_executor_groups(void *executor, void **groups, size_t cap);
size_t standin_group_entities(const void *group,
	enum standin_entity_kind kind, void **entities, size_t cap);

#endif
