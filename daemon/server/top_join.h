/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a counter of `top` is (proto/caret_segment.h's counter keys),
 * from the process's init records, as CARET's analyzer joins them:
 * callback -> rclcpp_callback_register (symbol); timer_callback_added ->
 * timer_link_node -> rcl_node_init; subscription_callback_added ->
 * rclcpp_subscription_init -> rcl_subscription_init (topic, node);
 * service_callback_added -> rcl_service_init; a publisher handle ->
 * rcl_publisher_init; an rmw subscription handle -> rcl_subscription_init.
 */
#ifndef CARETD_TOP_JOIN_H
#define CARETD_TOP_JOIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/caret_ctl_top.h"
#include "shm/caret_shm.h"

#define TOP_NODE_MAX 128
#define TOP_SYMBOL_MAX 256
#define TOP_TOPIC_MAX 192

/* Empty strings: not known. */
struct top_names {
	enum caret_ctl_top_kind kind;
	char node[TOP_NODE_MAX], symbol[TOP_SYMBOL_MAX], topic[TOP_TOPIC_MAX];
};

/* names[i] for keys[i] (CARET_CTR_KEY), from one walk of seg's records:
 * 0, or a negative errno (the cache unreadable: names left empty). */
int top_join(const struct caret_seg *seg, const uint64_t *keys, size_t n,
	     struct top_names *names);

#endif
