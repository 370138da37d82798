/* SPDX-License-Identifier: Apache-2.0 */
/* Internal layouts of the stand-in's rclcpp objects. */
#ifndef STANDIN_RCLCPP_OBJECTS_H
#define STANDIN_RCLCPP_OBJECTS_H

#include "tools/standin/rclcpp/standin_rclcpp.h"

/* Growable pointer array; rclcpp uses std::vector / std::map here. */
struct standin_list {
	void **v;
	size_t n, cap;
};

/* Stand-in for WeakCallbackGroupsToNodesMap: parallel group/node lists. */
struct standin_group_map {
	struct standin_list groups;
	struct standin_list nodes;
};

struct standin_node_base {
	const void *rcl_node_handle;
};

struct standin_callback_group {
	enum caret_cbg_type type;
	struct standin_list entities[STANDIN_ENTITY_KINDS];
};

struct standin_entity {
	enum standin_entity_kind kind;
	/* get_X_handle() shares ownership of the rcl handle through here. */
	const void *rcl_handle;
	struct standin_ctrl handle_ctrl;
	void *user;
};

struct standin_collector {
	struct standin_group_map map;
};

enum standin_exec_kind { STANDIN_EXEC_SINGLE, STANDIN_EXEC_MULTI,
	STANDIN_EXEC_STATIC };

struct standin_executor_head {
	enum standin_exec_kind kind;
	unsigned threads;
	struct standin_group_map map;
};

/* This stand-in's own layout (the agent no longer reads it). */
#define CARET_SSTE_COLLECTOR_OFFSET 0x160
/*
 * The agent reads the collector's shared_ptr at a fixed byte offset, as it
 * must with the real StaticSingleThreadedExecutor, so the padding is part of
 * the contract.
 */
struct standin_executor {
	union {
		struct standin_executor_head h;
		unsigned char raw[CARET_SSTE_COLLECTOR_OFFSET];
	} u;
	struct standin_sp collector;
	unsigned char reserved[64];
};

_Static_assert(offsetof(struct standin_executor, collector) ==
	CARET_SSTE_COLLECTOR_OFFSET, "collector offset is ABI");

/* Library-private helpers: not part of what librclcpp.so exports. */
#define STANDIN_HIDDEN __attribute__((visibility("hidden")))

STANDIN_HIDDEN int standin_list_push(struct standin_list *l, void *p);
STANDIN_HIDDEN void standin_group_map_add(struct standin_group_map *m,
	const struct standin_sp *group, const struct standin_sp *node);

/* make_shared: control block and object in one allocation, use_count 1. */
STANDIN_HIDDEN void *standin_make_shared(size_t size, struct standin_sp *out);
STANDIN_HIDDEN void standin_ctrl_init(struct standin_ctrl *c);
STANDIN_HIDDEN void standin_ctrl_add_use(struct standin_ctrl *c);
STANDIN_HIDDEN void standin_ctrl_add_weak(struct standin_ctrl *c);

#endif
