/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The rcl layer: each function creates one rcl handle over its rmw handle
 * and emits the rcl_*_init record, as rcl does once the rmw call returned.
 */
#ifndef STANDIN_WL_RCL_H
#define STANDIN_WL_RCL_H

#include "tools/standin/workload/system.h"

struct wl_context *wl_rcl_init(int domain);
struct wl_node *wl_rcl_node_init(struct wl_context *ctx, const char *name,
	const struct wl_options *opt);
struct wl_publisher *wl_rcl_publisher_init(struct wl_context *ctx,
	struct wl_node *node, const char *topic);
struct wl_subscription *wl_rcl_subscription_init(struct wl_context *ctx,
	struct wl_node *node, const char *topic);
struct wl_timer *wl_rcl_timer_init(struct wl_node *node, int64_t period_ns);
struct wl_service *wl_rcl_service_init(struct wl_node *node,
	const char *name);
struct wl_service *wl_rcl_client_init(struct wl_node *node,
	const char *name);

/* rcl_publish / rcl_take: the middle of the message path. */
void wl_rcl_publish(struct wl_publisher *pub, const void *msg);
/* rcl_publish_serialized_message: no rcl_publish tracepoint (rcl humble
 * and 9.2.0 (jazzy) src/rcl/publisher.c). */
void wl_rcl_publish_serialized(struct wl_publisher *pub,
	const rmw_serialized_message_t *msg);
void wl_rcl_send_request(struct wl_service *c, const void *req);
bool wl_rcl_take_request(struct wl_service *s, void *req,
	rmw_request_id_t *id);
void wl_rcl_send_response(struct wl_service *s, rmw_request_id_t *id,
	void *resp);
bool wl_rcl_take_response(struct wl_service *c, void *resp);
bool wl_rcl_take(struct wl_subscription *sub, void *msg,
	int64_t *source_timestamp);

#endif
