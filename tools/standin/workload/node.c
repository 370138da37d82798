/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rclcpp node construction, in the order rclcpp emits its records: each
 * entity's rcl/rmw init, then the rclcpp records and callback registration,
 * then CallbackGroup::add_X on one of the node's groups (rclcpp does that
 * when the entity is created, before any executor exists). Each node has
 * its default mutually exclusive group and a reentrant one; entities of
 * each kind alternate between them, starting with the default group.
 */
#include <stdio.h>

#include "tools/standin/tracetools/tracetools.h"
#include "tools/standin/workload/counts.h"
#include "tools/standin/workload/rcl.h"
#include "tools/standin/workload/util.h"

static struct wl_callback *new_callback(const char *fmt, const char *node,
	unsigned i)
{
	struct wl_callback *cb = wl_xcalloc(1, sizeof(*cb));

	snprintf(cb->symbol, sizeof(cb->symbol), fmt, node, i);
	return cb;
}

static void register_callback(struct wl_callback *cb)
{
	wl_count(WL_C_rclcpp_callback_register);
	ros_trace_rclcpp_callback_register(cb, cb->symbol);
}

/* A by-value shared_ptr argument: the caller copies, calls, drops. */
#define WL_CALL_WITH_SP(fn, self, sp)                                       \
	do {                                                                \
		struct standin_sp arg_ = standin_sp_copy(sp);               \
		fn(self, &arg_);                                            \
		standin_sp_release(&arg_);                                  \
	} while (0)

static uint32_t next_publisher_id;

static void *group_for(const struct wl_node *n, unsigned i)
{
	return (i % 2 ? n->reentrant : n->group).ptr;
}

static int add_publishers(struct wl_context *ctx, struct wl_node *n)
{
	char topic[160];

	for (unsigned i = 0; i < n->opt->pubs; i++) {
		snprintf(topic, sizeof(topic), "/%s/topic_%u",
			n->opt->topic_prefix, i);
		n->pubs[i] = wl_rcl_publisher_init(ctx, n, topic);
		if (!n->pubs[i])
			return -1;
		n->pubs[i]->id = next_publisher_id++;
	}
	return 0;
}

static int add_subscriptions(struct wl_context *ctx, struct wl_node *n)
{
	char topic[160];

	for (unsigned i = 0; i < n->opt->subs; i++) {
		struct wl_subscription *s;

		snprintf(topic, sizeof(topic), "/%s/topic_%u",
			n->opt->topic_prefix, i);
		s = n->subs[i] = wl_rcl_subscription_init(ctx, n, topic);
		if (!s)
			return -1;
		s->base = standin_entity_new(STANDIN_SUBSCRIPTION, s, s);
		s->callback = new_callback("caret_standin::%.64s::on_message_%u("
			"std::shared_ptr<standin_msgs::msg::Sample>)", n->name, i);
		if (!s->base.ptr)
			return -1;
		wl_count(WL_C_rclcpp_subscription_init);
		ros_trace_rclcpp_subscription_init(s, s->base.ptr);
		wl_count(WL_C_rclcpp_subscription_callback_added);
		ros_trace_rclcpp_subscription_callback_added(s->base.ptr,
			s->callback);
		register_callback(s->callback);
		wl_count(WL_C_callback_group_add_subscription);
		WL_CALL_WITH_SP(standin_cbg_add_subscription, group_for(n, i),
			&s->base);
	}
	return 0;
}

static int add_timers(struct wl_node *n)
{
	const struct wl_options *o = n->opt;

	for (unsigned i = 0; i < o->timers; i++) {
		int publishes = i == 0 && o->pubs > 0;
		int64_t period = publishes ? (int64_t)(1e9 / o->rate_hz) :
			(int64_t)o->period_ms * 1000000;
		struct wl_timer *t;

		t = n->timers[i] = wl_rcl_timer_init(n, period > 0 ? period : 1);
		t->publishes = publishes;
		t->calls = i == 0 && o->clients > 0;
		t->base = standin_entity_new(STANDIN_TIMER, t, t);
		t->callback = new_callback("caret_standin::%.64s::on_timer_%u()",
			n->name, i);
		if (!t->base.ptr)
			return -1;
		wl_count(WL_C_rclcpp_timer_callback_added);
		ros_trace_rclcpp_timer_callback_added(t, t->callback);
		register_callback(t->callback);
		wl_count(WL_C_callback_group_add_timer);
		WL_CALL_WITH_SP(standin_cbg_add_timer, group_for(n, i), &t->base);
		wl_count(WL_C_rclcpp_timer_link_node);
		ros_trace_rclcpp_timer_link_node(t, n);
	}
	return 0;
}

static int add_services(struct wl_node *n)
{
	char name[160];

	for (unsigned i = 0; i < n->opt->services; i++) {
		struct wl_service *s;

		snprintf(name, sizeof(name), "/%s/%.64s/service_%u",
			n->opt->topic_prefix, n->name, i);
		s = n->services[i] = wl_rcl_service_init(n, name);
		if (!s)
			return -1;
		s->base = standin_entity_new(STANDIN_SERVICE, s, s);
		s->callback = new_callback("caret_standin::%.64s::on_request_%u()",
			n->name, i);
		if (!s->base.ptr)
			return -1;
		wl_count(WL_C_rclcpp_service_callback_added);
		ros_trace_rclcpp_service_callback_added(s, s->callback);
		register_callback(s->callback);
		wl_count(WL_C_callback_group_add_service);
		WL_CALL_WITH_SP(standin_cbg_add_service, group_for(n, i), &s->base);
	}
	return 0;
}

static int add_clients(struct wl_node *n)
{
	char name[160];

	for (unsigned i = 0; i < n->opt->clients; i++) {
		struct wl_service *c;

		snprintf(name, sizeof(name), "/%s/%.64s/service_%u",
			n->opt->topic_prefix, n->name, i);
		c = n->clients[i] = wl_rcl_client_init(n, name);
		if (!c)
			return -1;
		c->base = standin_entity_new(STANDIN_CLIENT, c, c);
		if (!c->base.ptr)
			return -1;
		wl_count(WL_C_callback_group_add_client);
		WL_CALL_WITH_SP(standin_cbg_add_client, group_for(n, i), &c->base);
	}
	return 0;
}

/* Benchmarks want many init records without many DDS entities. */
static void add_extra_callbacks(struct wl_node *n)
{
	for (unsigned i = 0; i < n->opt->extra_callbacks; i++) {
		n->extra_callbacks[i] = new_callback(
			"caret_standin::%.64s::extra_callback_%u()", n->name, i);
		register_callback(n->extra_callbacks[i]);
	}
}

static struct wl_node *create_node(struct wl_context *ctx,
	const struct wl_options *o, unsigned index)
{
	char name[600];
	struct wl_node *n;

	if (o->nodes == 1)
		snprintf(name, sizeof(name), "%s", o->name);
	else
		snprintf(name, sizeof(name), "%s_%u", o->name, index);
	n = wl_rcl_node_init(ctx, name, o);
	if (!n)
		return NULL;
	n->base = standin_node_base_new(n);
	n->group = standin_node_create_callback_group(&n->base,
		CARET_CBG_MUTUALLY_EXCLUSIVE);
	n->reentrant = standin_node_create_callback_group(&n->base,
		CARET_CBG_REENTRANT);
	if (!n->base.ptr || !n->group.ptr || !n->reentrant.ptr)
		return NULL;
	n->pubs = wl_xcalloc(o->pubs, sizeof(*n->pubs));
	n->subs = wl_xcalloc(o->subs, sizeof(*n->subs));
	n->timers = wl_xcalloc(o->timers, sizeof(*n->timers));
	n->services = wl_xcalloc(o->services, sizeof(*n->services));
	n->clients = wl_xcalloc(o->clients, sizeof(*n->clients));
	n->extra_callbacks = wl_xcalloc(o->extra_callbacks,
		sizeof(*n->extra_callbacks));
	if (add_publishers(ctx, n) < 0 || add_subscriptions(ctx, n) < 0 ||
	    add_timers(n) < 0 || add_services(n) < 0 || add_clients(n) < 0)
		return NULL;
	add_extra_callbacks(n);
	return n;
}

int wl_system_init(struct wl_system *sys, const struct wl_options *opt)
{
	sys->opt = opt;
	sys->context = wl_rcl_init(opt->domain);
	if (!sys->context)
		return -1;
	sys->nodes = wl_xcalloc(opt->nodes, sizeof(*sys->nodes));
	for (unsigned j = 0; j < opt->nodes; j++) {
		sys->nodes[j] = create_node(sys->context, opt, j);
		if (!sys->nodes[j])
			return -1;
	}
	return 0;
}
