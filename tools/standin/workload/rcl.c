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
	return s;
}

/* rcl's default service QoS (rmw_qos_profile_services_default): reliable,
 * volatile, keep last 10. */
struct wl_service *wl_rcl_service_init(struct wl_node *node,
	const char *name)
{
	struct wl_service *s = endpoint(node, name);
	rmw_qos_profile_t qos = { .depth = WL_QUEUE_DEPTH };

	s->rmw = s->srv = rmw_create_service(node->rmw, NULL, s->name, &qos);
	if (!s->srv)
		return NULL;
	wl_count(WL_C_rcl_service_init);
	ros_trace_rcl_service_init(s, node, s->rmw, s->name);
	return s;
}

struct wl_service *wl_rcl_client_init(struct wl_node *node,
	const char *name)
{
	struct wl_service *c = endpoint(node, name);
	rmw_qos_profile_t qos = { .depth = WL_QUEUE_DEPTH };

	c->rmw = c->cli = rmw_create_client(node->rmw, NULL, c->name, &qos);
	if (!c->cli)
		return NULL;
	wl_count(WL_C_rcl_client_init);
	ros_trace_rcl_client_init(c, node, c->rmw, c->name);
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

/* rcl_send_request / rcl_take_request / rcl_send_response /
 * rcl_take_response: no tracepoints on these (rcl src/rcl/client.c,
 * service.c, humble and 9.2.0). Write results are counted like publishes'. */
void wl_rcl_send_request(struct wl_service *c, const void *req)
{
	int64_t seq = 0;

	wl_count_service_write(WL_SRV_REQUEST,
		rmw_send_request(c->cli, req, &seq));
}

bool wl_rcl_take_request(struct wl_service *s, void *req,
	rmw_request_id_t *id)
{
	rmw_service_info_t info;
	bool taken = false;

	if (rmw_take_request(s->srv, &info, req, &taken) != RMW_RET_OK ||
	    !taken)
		return false;
	*id = info.request_id;
	return true;
}

void wl_rcl_send_response(struct wl_service *s, rmw_request_id_t *id,
	void *resp)
{
	wl_count_service_write(WL_SRV_RESPONSE,
		rmw_send_response(s->srv, id, resp));
}

bool wl_rcl_take_response(struct wl_service *c, void *resp)
{
	rmw_service_info_t info;
	bool taken = false;

	return rmw_take_response(c->cli, &info, resp, &taken) == RMW_RET_OK &&
		taken;
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
