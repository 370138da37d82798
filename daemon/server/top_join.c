/* SPDX-License-Identifier: Apache-2.0 */
/* `top`'s join of counters with init records (top_join.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/server/top_join.h"

/* The records the join reads, their pointers and one string (copied: a
 * walk's strings live in its chunk). */
struct jrec {
	uint32_t kind;
	uint64_t a, b, c;
	char *s;
};

struct jset {
	struct jrec *v;
	size_t n, cap;
	bool nomem;
};

/* The record's pointers and string, by kind (CARET_KINDS' signatures). */
static void fields_of(const struct caret_rec_view *r, struct jrec *j)
{
	const union caret_arg *x = r->args;
	const char *s = NULL;
	switch (r->kind) {
	case CARET_KIND_rcl_node_init: /* node, rmw, name, namespace */
		j->a = x[0].u;
		s = NULL; /* built by the caller */
		break;
	case CARET_KIND_rcl_publisher_init:    /* pub, node, rmw, topic, depth */
	case CARET_KIND_rcl_subscription_init: /* sub, node, rmw, topic, depth */
		j->a = x[0].u, j->b = x[1].u, j->c = x[2].u, s = x[3].s;
		break;
	case CARET_KIND_rcl_service_init: /* service, node, rmw, name */
		j->a = x[0].u, j->b = x[1].u, s = x[3].s;
		break;
	case CARET_KIND_rclcpp_callback_register: /* callback, symbol */
		j->a = x[0].u, s = x[1].s;
		break;
	default: /* two pointers */
		j->a = x[0].u, j->b = x[1].u;
	}
	j->s = s ? strdup(s) : NULL;
}

static char *node_name(const struct caret_rec_view *r)
{
	const char *name = r->args[2].s, *ns = r->args[3].s;
	char *out = NULL;
	bool root = !ns[0] || !strcmp(ns, "/");
	if (asprintf(&out, "%s/%s", root ? "" : ns, name) < 0)
		return NULL;
	return out;
}

static int collect(const struct caret_rec_view *r, void *ctx)
{
	struct jset *js = ctx;
	switch (r->kind) {
	case CARET_KIND_rcl_node_init:
	case CARET_KIND_rcl_publisher_init:
	case CARET_KIND_rcl_subscription_init:
	case CARET_KIND_rclcpp_subscription_init:
	case CARET_KIND_rclcpp_subscription_callback_added:
	case CARET_KIND_rcl_service_init:
	case CARET_KIND_rclcpp_service_callback_added:
	case CARET_KIND_rclcpp_timer_callback_added:
	case CARET_KIND_rclcpp_timer_link_node:
	case CARET_KIND_rclcpp_callback_register:
		break;
	default:
		return 0;
	}
	if (js->n == js->cap) {
		size_t cap = js->cap ? 2 * js->cap : 64;
		struct jrec *v = realloc(js->v, cap * sizeof(*v));
		if (!v) {
			js->nomem = true;
			return 1;
		}
		js->v = v;
		js->cap = cap;
	}
	struct jrec *j = &js->v[js->n++];
	*j = (struct jrec){ .kind = r->kind };
	fields_of(r, j);
	if (r->kind == CARET_KIND_rcl_node_init)
		j->s = node_name(r);
	return 0;
}

/* The first record of kind whose field a (or b: by_b) is v. */
static const struct jrec *find(const struct jset *js, uint32_t kind, uint64_t v, bool by_b)
{
	for (size_t i = 0; i < js->n; i++)
		if (js->v[i].kind == kind && (by_b ? js->v[i].b : js->v[i].a) == v)
			return &js->v[i];
	return NULL;
}

static const struct jrec *find_c(const struct jset *js, uint32_t kind, uint64_t v)
{
	for (size_t i = 0; i < js->n; i++)
		if (js->v[i].kind == kind && js->v[i].c == v)
			return &js->v[i];
	return NULL;
}

static void put(char *dst, size_t len, const char *s)
{
	snprintf(dst, len, "%s", s ? s : "");
}

static void put_node(const struct jset *js, uint64_t node, struct top_names *o)
{
	const struct jrec *n = find(js, CARET_KIND_rcl_node_init, node, false);
	if (n)
		put(o->node, sizeof(o->node), n->s);
}

/* A callback: its symbol, and its entity's kind, node and topic. */
static void join_callback(const struct jset *js, uint64_t cb, struct top_names *o)
{
	const struct jrec *r = find(js, CARET_KIND_rclcpp_callback_register, cb, false);
	if (r)
		put(o->symbol, sizeof(o->symbol), r->s);
	if ((r = find(js, CARET_KIND_rclcpp_timer_callback_added, cb, true))) {
		o->kind = CARET_CTL_TOP_TIMER;
		const struct jrec *l = find(js, CARET_KIND_rclcpp_timer_link_node, r->a, false);
		if (l)
			put_node(js, l->b, o);
	} else if ((r = find(js, CARET_KIND_rclcpp_subscription_callback_added, cb, true))) {
		o->kind = CARET_CTL_TOP_SUBSCRIPTION;
		const struct jrec *s = find(js, CARET_KIND_rclcpp_subscription_init, r->a, true);
		const struct jrec *rcl =
			s ? find(js, CARET_KIND_rcl_subscription_init, s->a, false) : NULL;
		if (rcl) {
			put(o->topic, sizeof(o->topic), rcl->s);
			put_node(js, rcl->b, o);
		}
	} else if ((r = find(js, CARET_KIND_rclcpp_service_callback_added, cb, true))) {
		o->kind = CARET_CTL_TOP_SERVICE;
		const struct jrec *s = find(js, CARET_KIND_rcl_service_init, r->a, false);
		if (s) {
			put(o->topic, sizeof(o->topic), s->s);
			put_node(js, s->b, o);
		}
	}
}

static void join_one(const struct jset *js, uint64_t key, struct top_names *o)
{
	memset(o, 0, sizeof(*o));
	uint64_t p = CARET_CTR_KEY_PTR(key);
	const struct jrec *r = NULL;
	switch (CARET_CTR_KEY_KIND(key)) {
	case CARET_CTR_CALLBACK:
		join_callback(js, p, o);
		return;
	case CARET_CTR_PUBLISHER:
		r = find(js, CARET_KIND_rcl_publisher_init, p, false);
		break;
	case CARET_CTR_SUBSCRIPTION:
		r = find_c(js, CARET_KIND_rcl_subscription_init, p);
		break;
	default:
		return;
	}
	if (r) {
		put(o->topic, sizeof(o->topic), r->s);
		put_node(js, r->b, o);
	}
}

int top_join(const struct caret_seg *seg, const uint64_t *keys, size_t n,
	     struct top_names *names)
{
	struct jset js = { 0 };
	int64_t w = caret_seg_walk(seg, collect, &js);
	int r = w < 0 ? (int)w : js.nomem ? -ENOMEM : 0;
	for (size_t i = 0; i < n; i++) {
		if (r < 0)
			memset(&names[i], 0, sizeof(names[i]));
		else
			join_one(&js, keys[i], &names[i]);
	}
	for (size_t i = 0; i < js.n; i++)
		free(js.v[i].s);
	free(js.v);
	return r;
}
