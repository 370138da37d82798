/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The rmw_cyclonedds slice of the stand-in: DDS entities behind the rmw
 * handles, and the rmw_* tracepoints at the places rmw_cyclonedds emits
 * them.
 */
#ifndef STANDIN_WL_RMW_H
#define STANDIN_WL_RMW_H

#include <stdbool.h>
#include <stdint.h>

#include <dds/dds.h>

#include "tools/standin/workload/options.h"

#define WL_GID_SIZE 24

struct wl_rmw_context {
	const char *implementation_identifier;
	dds_entity_t participant;
};

/* rmw_node_t, rmw_service_t, rmw_client_t: identity only. */
struct wl_rmw_handle {
	const char *implementation_identifier;
	const char *name;
};

struct wl_rmw_publisher {
	const char *implementation_identifier;
	dds_entity_t writer;
	uint8_t gid[WL_GID_SIZE];
};

struct wl_rmw_subscription {
	const char *implementation_identifier;
	dds_entity_t reader;
	dds_entity_t readcond;	/* what the executor's waitset waits on */
	uint8_t gid[WL_GID_SIZE];
};

int wl_rmw_init(struct wl_rmw_context *ctx, int domain);
void wl_rmw_shutdown(struct wl_rmw_context *ctx);

struct wl_rmw_handle *wl_rmw_create_handle(const char *name);
struct wl_rmw_publisher *wl_rmw_create_publisher(struct wl_rmw_context *ctx,
	const char *topic, unsigned depth);
struct wl_rmw_subscription *wl_rmw_create_subscription(
	struct wl_rmw_context *ctx, const char *topic, unsigned depth);

int wl_rmw_publish(struct wl_rmw_publisher *pub, const void *msg,
	enum wl_distro distro);
/* Takes at most one valid sample into `msg`; returns whether it did. */
bool wl_rmw_take(struct wl_rmw_subscription *sub, void *msg);

#endif
