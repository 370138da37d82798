/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The workload's object graph. Every struct here that is traced is the
 * "rcl handle" of its entity: its heap address is what the init records
 * carry and what get_X_handle() returns, so it must stay allocated for the
 * life of the process.
 */
#ifndef STANDIN_WL_SYSTEM_H
#define STANDIN_WL_SYSTEM_H

#include <stdint.h>

#include "tools/standin/rclcpp/standin_rclcpp.h"
#include "tools/standin/workload/options.h"
#include "tools/standin/rmw/rmw.h"

#define WL_QUEUE_DEPTH 10

/* Stand-in for rclcpp's Any*Callback objects: identity is the address. */
struct wl_callback {
	char symbol[160];
};

struct wl_node;

struct wl_publisher {			/* rcl_publisher_t */
	rmw_publisher_t *rmw;
	struct wl_node *node;
	char topic[160];
	uint32_t id;
	uint64_t seq;
	/* --serialized: the rclcpp::SerializedMessage the publisher reuses
	 * (its address is what the trace binds; printed at start). Only the
	 * node's publishing timer uses it, one call at a time. */
	rmw_serialized_message_t serialized;
	uint8_t serialized_buf[64];
};

struct wl_subscription {		/* rcl_subscription_t */
	rmw_subscription_t *rmw;
	struct wl_node *node;
	char topic[160];
	struct standin_sp base;		/* rclcpp::SubscriptionBase */
	struct wl_callback *callback;
};

struct wl_timer {			/* rcl_timer_t */
	struct wl_node *node;
	int64_t period_ns;
	int64_t next_ns;		/* CLOCK_MONOTONIC deadline */
	int publishes;
	int calls;			/* sends a request on each client */
	struct standin_sp base;		/* rclcpp::TimerBase */
	struct wl_callback *callback;
};

struct wl_service {			/* rcl_service_t, rcl_client_t */
	void *rmw;			/* srv or cli: what rcl_*_init records */
	rmw_service_t *srv;
	rmw_client_t *cli;
	struct wl_node *node;
	char name[160];
	struct standin_sp base;
	struct wl_callback *callback;	/* NULL for clients */
};

struct wl_node {			/* rcl_node_t */
	rmw_node_t *rmw;
	const struct wl_options *opt;
	char name[600];		/* room for the filter tests' 512-byte names */
	struct standin_sp base;		/* rclcpp::NodeBaseInterface */
	struct standin_sp group;	/* default (mutually exclusive) group */
	struct standin_sp reentrant;	/* a reentrant group of the node */
	struct wl_publisher **pubs;
	struct wl_subscription **subs;
	struct wl_timer **timers;
	struct wl_service **services;
	struct wl_service **clients;
	struct wl_callback **extra_callbacks;
};

struct wl_context {			/* rcl_context_t */
	rmw_context_t rmw;
};

struct wl_system {
	const struct wl_options *opt;
	struct wl_context *context;
	struct wl_node **nodes;
	void *executor;			/* storage of an rclcpp executor */
};

/* rcl + rclcpp node construction (node.c). */
int wl_system_init(struct wl_system *sys, const struct wl_options *opt);

/* rclcpp callbacks and the publish chain (callbacks.c). */
void wl_execute_timer(struct wl_timer *t);
/* Whether a message was taken (and its callback run). */
bool wl_execute_subscription(struct wl_subscription *s);
/* One request served (callback, response) / one response taken: whether
 * there was one. */
bool wl_execute_service(struct wl_service *s);
bool wl_execute_client(struct wl_service *c);

#endif
