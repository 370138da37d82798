/* SPDX-License-Identifier: Apache-2.0 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/standin/tracetools/tracetools.h"
#include "tools/standin/workload/counts.h"
#include "tools/standin/workload/rcl.h"
#include "tools/standin/workload/util.h"

static size_t pick_domain(int domain)
{
	const char *env = getenv("ROS_DOMAIN_ID");

	if (domain >= 0)
		return (size_t)domain;
	if (env && *env)
		return (size_t)strtoul(env, NULL, 10);
	return 0;
}

struct wl_context *wl_rcl_init(int domain)
{
	struct wl_context *ctx = wl_xcalloc(1, sizeof(*ctx));
	rmw_init_options_t o = { .domain_id = pick_domain(domain) };

	if (rmw_init(&o, &ctx->rmw) != RMW_RET_OK)
		return NULL;
	wl_count(WL_C_rcl_init);
	ros_trace_rcl_init(ctx);
	return ctx;
}

struct wl_node *wl_rcl_node_init(struct wl_context *ctx, const char *name,
	const struct wl_options *opt)
{
	struct wl_node *n = wl_xcalloc(1, sizeof(*n));

	n->opt = opt;
	snprintf(n->name, sizeof(n->name), "%s", name);
	n->rmw = rmw_create_node(&ctx->rmw, n->name, "/");
	if (!n->rmw)
		return NULL;
	wl_count(WL_C_rcl_node_init);
	ros_trace_rcl_node_init(n, n->rmw, n->name, "/");
	return n;
}

struct wl_publisher *wl_rcl_publisher_init(struct wl_context *ctx,
	struct wl_node *node, const char *topic)
{
	struct wl_publisher *p = wl_xcalloc(1, sizeof(*p));
	rmw_qos_profile_t qos = { .depth = WL_QUEUE_DEPTH };

	(void)ctx;
	p->node = node;
	snprintf(p->topic, sizeof(p->topic), "%s", topic);
	p->rmw = rmw_create_publisher(node->rmw, NULL, p->topic, &qos, NULL);
	if (!p->rmw)
		return NULL;
	wl_count(WL_C_rcl_publisher_init);
	ros_trace_rcl_publisher_init(p, node, p->rmw, p->topic,
		WL_QUEUE_DEPTH);
	return p;
}

struct wl_subscription *wl_rcl_subscription_init(struct wl_context *ctx,
	struct wl_node *node, const char *topic)
{
	struct wl_subscription *s = wl_xcalloc(1, sizeof(*s));
	rmw_qos_profile_t qos = { .depth = WL_QUEUE_DEPTH };

	(void)ctx;
	s->node = node;
	snprintf(s->topic, sizeof(s->topic), "%s", topic);
	s->rmw = rmw_create_subscription(node->rmw, NULL, s->topic, &qos,
		NULL);
	if (!s->rmw)
		return NULL;
	wl_count(WL_C_rcl_subscription_init);
	ros_trace_rcl_subscription_init(s, node, s->rmw, s->topic,
		WL_QUEUE_DEPTH);
	return s;
}

struct wl_timer *wl_rcl_timer_init(struct wl_node *node, int64_t period_ns)
{
	struct wl_timer *t = wl_xcalloc(1, sizeof(*t));

	t->node = node;
	t->period_ns = period_ns;
	t->next_ns = wl_now_ns() + period_ns;
	wl_count(WL_C_rcl_timer_init);
	ros_trace_rcl_timer_init(t, period_ns);
	return t;
}

static struct wl_service *endpoint(struct wl_node *node, const char *name)
{
	struct wl_service *s = wl_xcalloc(1, sizeof(*s));

	s->node = node;
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->rmw = wl_xcalloc(1, sizeof(*s->rmw));
	s->rmw->implementation_identifier = rmw_get_implementation_identifier();
	s->rmw->name = s->name;
	return s;
}

struct wl_service *wl_rcl_service_init(struct wl_node *node,
	const char *name)
{
	struct wl_service *s = endpoint(node, name);

	if (s) {
		wl_count(WL_C_rcl_service_init);
		ros_trace_rcl_service_init(s, node, s->rmw, s->name);
	}
	return s;
}

struct wl_service *wl_rcl_client_init(struct wl_node *node,
	const char *name)
{
	struct wl_service *c = endpoint(node, name);

	if (c) {
		wl_count(WL_C_rcl_client_init);
		ros_trace_rcl_client_init(c, node, c->rmw, c->name);
	}
	return c;
}

/* Every rmw return code is counted: a failed DDS write shows as failed=N. */
void wl_rcl_publish(struct wl_publisher *pub, const void *msg)
{
	ros_trace_rcl_publish(pub, msg);
	wl_count_publish_result(rmw_publish(pub->rmw, msg, NULL));
}

void wl_rcl_publish_serialized(struct wl_publisher *pub,
	const rmw_serialized_message_t *msg)
{
	wl_count_publish_result(rmw_publish_serialized_message(pub->rmw, msg,
		NULL));
}

bool wl_rcl_take(struct wl_subscription *sub, void *msg,
	int64_t *source_timestamp)
{
	rmw_message_info_t info = { 0, 0 };
	bool taken = false;

	if (rmw_take_with_info(sub->rmw, msg, &taken, &info, NULL) !=
	    RMW_RET_OK || !taken)
		return false;
	*source_timestamp = info.source_timestamp;
	ros_trace_rcl_take(msg);
	return true;
}
