/* SPDX-License-Identifier: Apache-2.0 */
#include <stdio.h>
#include <string.h>

#include "tools/standin/tracetools/tracetools.h"
#include "tools/standin/workload/counts.h"
#include "tools/standin/workload/rcl.h"
#include "tools/standin/workload/util.h"

struct wl_context *wl_rcl_init(int domain)
{
	struct wl_context *ctx = wl_xcalloc(1, sizeof(*ctx));

	if (wl_rmw_init(&ctx->rmw, domain) < 0)
		return NULL;
	wl_count(WL_C_rcl_init);
	ros_trace_rcl_init(ctx);
	return ctx;
}

struct wl_node *wl_rcl_node_init(struct wl_context *ctx, const char *name,
	const struct wl_options *opt)
{
	struct wl_node *n = wl_xcalloc(1, sizeof(*n));

	(void)ctx;
	n->opt = opt;
	snprintf(n->name, sizeof(n->name), "%s", name);
	n->rmw = wl_rmw_create_handle(n->name);
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

	p->node = node;
	snprintf(p->topic, sizeof(p->topic), "%s", topic);
	p->rmw = wl_rmw_create_publisher(&ctx->rmw, p->topic, WL_QUEUE_DEPTH);
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

	s->node = node;
	snprintf(s->topic, sizeof(s->topic), "%s", topic);
	s->rmw = wl_rmw_create_subscription(&ctx->rmw, s->topic,
		WL_QUEUE_DEPTH);
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
	s->rmw = wl_rmw_create_handle(s->name);
	return s->rmw ? s : NULL;
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

void wl_rcl_publish(struct wl_publisher *pub, const void *msg,
	enum wl_distro distro)
{
	ros_trace_rcl_publish(pub, msg);
	if (wl_rmw_publish(pub->rmw, msg, distro) == 0)
		wl_count_published();
}

bool wl_rcl_take(struct wl_subscription *sub, void *msg)
{
	if (!wl_rmw_take(sub->rmw, msg))
		return false;
	ros_trace_rcl_take(msg);
	return true;
}
