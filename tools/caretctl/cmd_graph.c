/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `caretctl nodes` and `caretctl topics`: the running ROS 2 graph as the
 * caches describe it (what `ros2 caret node_summary` / `topic_summary`
 * show of a recorded trace), live and without recording. Built on the
 * `events` request: every init record of the host, joined here by the same
 * handles caret_analyze joins (node_handle, timer_handle, subscription,
 * callback, callback_group_addr, executor_addr).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caretctl.h"
#include "json_out.h"
#include "events_fetch.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_graph.h"
#include "util/caret_util.h"

/* The events fetched; they point into the pages kept by run(). */
struct graph {
	struct ctl_event *v;
	size_t n, cap;
};

static int collect(const struct ctl_event *e, void *arg)
{
	struct graph *g = arg;
	if (g->n == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 256;
		struct ctl_event *v = realloc(g->v, cap * sizeof(*v));
		if (!v)
			return 1;
		g->v = v;
		g->cap = cap;
	}
	g->v[g->n++] = *e;
	return 0;
}

static uint64_t u64(const struct ctl_event *e, const char *name)
{
	uint64_t v = 0;
	return ctl_event_u64(e, name, &v) == 0 ? v : 0;
}

static const char *str(const struct ctl_event *e, const char *name)
{
	const char *s = ctl_event_str(e, name);
	return s ? s : "?";
}

/* The first record of `kind` in process pid whose field `key` is val. */
static const struct ctl_event *find(const struct graph *g, int64_t pid, const char *kind,
				    const char *key, uint64_t val)
{
	for (size_t i = 0; i < g->n; i++)
		if (g->v[i].pid == pid && strcmp(g->v[i].kind, kind) == 0 &&
		    u64(&g->v[i], key) == val)
			return &g->v[i];
	return NULL;
}

static const char *symbol(const struct graph *g, int64_t pid, uint64_t callback)
{
	const struct ctl_event *r = callback ? find(g, pid, "rclcpp_callback_register",
						    "callback", callback) : NULL;
	return r ? str(r, "symbol") : NULL;
}

static void node_name(const struct ctl_event *n, char *buf, size_t len)
{
	const char *ns = str(n, "namespace");
	size_t l = strlen(ns);
	snprintf(buf, len, "%s%s%s", ns, l && ns[l - 1] == '/' ? "" : "/", str(n, "node_name"));
}

static char *hex(char *buf, uint64_t v)
{
	sprintf(buf, "0x%" PRIx64, v);
	return buf;
}

/* One zeroed element more at the end of *v (n of them, room for cap):
 * NULL when out of memory. */
static void *push(void *v, size_t *n, size_t *cap, size_t size)
{
	void **p = v;
	if (caret_grow(p, cap, *n + 1, size) < 0)
		return NULL;
	char *x = (char *)*p + *n * size;
	memset(x, 0, size);
	(*n)++;
	return x;
}

/* A node's arrays' room while it is built. */
struct node_room {
	size_t pubs, subs, timers, services, clients, groups;
};

/* The executor a callback group was added to, NULL when not known. */
static const struct ctl_event *executor_of(const struct graph *g, int64_t pid, uint64_t cbg,
					   const struct ctl_event **add)
{
	if ((*add = find(g, pid, "add_callback_group", "callback_group_addr", cbg)))
		return find(g, pid, "construct_executor", "executor_addr",
			    u64(*add, "executor_addr"));
	if ((*add = find(g, pid, "add_callback_group_static_executor", "callback_group_addr",
			 cbg)))
		return find(g, pid, "construct_static_executor", "entities_collector_addr",
			    u64(*add, "entities_collector_addr"));
	if (!(*add = find(g, pid, "callback_group_to_executor_entity_collector",
			  "callback_group_addr", cbg)))
		return NULL;
	/* Jazzy: group -> ExecutorEntitiesCollector -> executor, the two
	 * events caret_analyze joins on Jazzy. */
	const struct ctl_event *link = find(g, pid, "executor_entity_collector_to_executor",
					    "entities_collector_addr",
					    u64(*add, "entities_collector_addr"));
	if (!link)
		return NULL;
	uint64_t ex = u64(link, "executor_addr");
	const struct ctl_event *exe = find(g, pid, "construct_executor", "executor_addr", ex);
	return exe ? exe : find(g, pid, "construct_static_executor", "executor_addr", ex);
}

/* The callback group holding entity `handle` (of kind cg_kind), with its
 * executor, added to the node's groups once. */
static bool add_group(const struct graph *g, int64_t pid, const char *cg_kind,
		      uint64_t handle, const char *key, struct caret_ctl_graph_node *n,
		      struct node_room *room)
{
	const struct ctl_event *m = find(g, pid, cg_kind, key, handle);
	if (!m)
		return true;
	char a[CARET_CTL_GRAPH_ADDR_MAX];
	hex(a, u64(m, "callback_group_addr"));
	for (size_t i = 0; i < n->n_groups; i++)
		if (strcmp(n->groups[i].address, a) == 0)
			return true;
	struct caret_ctl_graph_group *gr = push(&n->groups, &n->n_groups, &room->groups,
						sizeof(*gr));
	if (!gr)
		return false;
	const struct ctl_event *add;
	const struct ctl_event *exe = executor_of(g, pid, u64(m, "callback_group_addr"), &add);
	memcpy(gr->address, a, sizeof(a));
	gr->type = add ? str(add, "group_type_name") : NULL;
	gr->have_executor = exe != NULL;
	if (exe)
		hex(gr->executor, u64(exe, "executor_addr"));
	gr->executor_type = exe ? str(exe, "executor_type_name") : NULL;
	return true;
}

static const char *callback_of(const struct graph *g, int64_t pid, const char *kind,
			       const char *key, uint64_t handle)
{
	const struct ctl_event *cb = find(g, pid, kind, key, handle);
	return cb ? symbol(g, pid, u64(cb, "callback")) : NULL;
}

/* One init record of the node's process: what it adds to the node. */
static bool add_entity(const struct graph *g, const struct ctl_event *e, uint64_t h,
		       struct caret_ctl_graph_node *n, struct node_room *room)
{
	const char *k = e->kind;
	int64_t pid = e->pid;
	struct caret_ctl_graph_entity *x;
	if (u64(e, "node_handle") != h)
		return true;
	if (!strcmp(k, "rcl_publisher_init")) {
		if (!(x = push(&n->pubs, &n->n_pubs, &room->pubs, sizeof(*x))))
			return false;
		x->name = str(e, "topic_name");
		return true;
	}
	if (!strcmp(k, "rcl_subscription_init")) {
		uint64_t s = u64(e, "subscription_handle");
		const struct ctl_event *cpp =
			find(g, pid, "rclcpp_subscription_init", "subscription_handle", s);
		if (!(x = push(&n->subs, &n->n_subs, &room->subs, sizeof(*x))))
			return false;
		x->name = str(e, "topic_name");
		x->callback = cpp ? callback_of(g, pid, "rclcpp_subscription_callback_added",
						"subscription", u64(cpp, "subscription"))
				  : NULL;
		return add_group(g, pid, "callback_group_add_subscription", s,
				 "subscription_handle", n, room);
	}
	if (!strcmp(k, "rclcpp_timer_link_node")) {
		uint64_t t = u64(e, "timer_handle");
		const struct ctl_event *ti = find(g, pid, "rcl_timer_init", "timer_handle", t);
		struct caret_ctl_graph_timer *y = push(&n->timers, &n->n_timers, &room->timers,
						       sizeof(*y));
		if (!y)
			return false;
		y->period_ns = ti ? (int64_t)u64(ti, "period") : -1;
		y->callback = callback_of(g, pid, "rclcpp_timer_callback_added", "timer_handle", t);
		return add_group(g, pid, "callback_group_add_timer", t, "timer_handle", n, room);
	}
	if (!strcmp(k, "rcl_service_init")) {
		uint64_t s = u64(e, "service_handle");
		if (!(x = push(&n->services, &n->n_services, &room->services, sizeof(*x))))
			return false;
		x->name = str(e, "service_name");
		x->callback = callback_of(g, pid, "rclcpp_service_callback_added",
					  "service_handle", s);
		return add_group(g, pid, "callback_group_add_service", s, "service_handle", n,
				 room);
	}
	if (!strcmp(k, "rcl_client_init")) {
		if (!(x = push(&n->clients, &n->n_clients, &room->clients, sizeof(*x))))
			return false;
		x->name = str(e, "service_name");
		return add_group(g, pid, "callback_group_add_client", u64(e, "client_handle"),
				 "client_handle", n, room);
	}
	return true;
}

static bool build_node(const struct graph *g, const struct ctl_event *e,
		       struct caret_ctl_graph_node *n)
{
	struct node_room room = { 0 };
	uint64_t h = u64(e, "node_handle");
	node_name(e, n->name, sizeof(n->name));
	n->pid = e->pid;
	n->procname = e->procname;
	for (size_t i = 0; i < g->n; i++)
		if (g->v[i].pid == e->pid && !add_entity(g, &g->v[i], h, n, &room))
			return false;
	return true;
}

static const char *or_dash(const char *s)
{
	return s ? s : "-";
}

static void print_nodes(const struct caret_ctl_graph *gr)
{
	for (size_t i = 0; i < gr->n_nodes; i++) {
		const struct caret_ctl_graph_node *n = &gr->nodes[i];
		printf("%s (pid %lld, %s)\n", n->name, (long long)n->pid, n->procname);
		for (size_t j = 0; j < n->n_pubs; j++)
			printf("  publisher     %s\n", n->pubs[j].name);
		for (size_t j = 0; j < n->n_subs; j++)
			printf("  subscription  %s  callback %s\n", n->subs[j].name,
			       or_dash(n->subs[j].callback));
		for (size_t j = 0; j < n->n_timers; j++)
			printf("  timer         period %lld ns  callback %s\n",
			       (long long)n->timers[j].period_ns, or_dash(n->timers[j].callback));
		for (size_t j = 0; j < n->n_services; j++)
			printf("  service       %s  callback %s\n", n->services[j].name,
			       or_dash(n->services[j].callback));
		for (size_t j = 0; j < n->n_clients; j++)
			printf("  client        %s\n", n->clients[j].name);
		for (size_t j = 0; j < n->n_groups; j++) {
			const struct caret_ctl_graph_group *x = &n->groups[j];
			printf("  callback group %s %s  executor %s %s\n", x->address, or_dash(x->type),
			       x->have_executor ? x->executor : "-", or_dash(x->executor_type));
		}
	}
}

static int cmp_node(const void *a, const void *b)
{
	return strcmp(((const struct caret_ctl_graph_node *)a)->name,
		      ((const struct caret_ctl_graph_node *)b)->name);
}

static int cmp_topic(const void *a, const void *b)
{
	return strcmp(((const struct caret_ctl_graph_topic *)a)->name,
		      ((const struct caret_ctl_graph_topic *)b)->name);
}

static bool build_nodes(const struct graph *g, struct caret_ctl_graph *out)
{
	size_t cap = 0;
	for (size_t i = 0; i < g->n; i++) {
		if (strcmp(g->v[i].kind, "rcl_node_init") != 0)
			continue;
		struct caret_ctl_graph_node *n = push(&out->nodes, &out->n_nodes, &cap, sizeof(*n));
		if (!n || !build_node(g, &g->v[i], n))
			return false;
	}
	if (out->n_nodes > 1)
		qsort(out->nodes, out->n_nodes, sizeof(*out->nodes), cmp_node);
	return true;
}

/* A topic's room while the topics are built. */
struct topic_room {
	size_t pubs, subs;
};

static bool build_topics(const struct graph *g, struct caret_ctl_graph *out)
{
	size_t cap = 0;
	struct topic_room *room = NULL;
	size_t room_cap = 0;
	bool ok = true;
	out->topics = true;
	for (size_t i = 0; ok && i < g->n; i++) {
		const struct ctl_event *e = &g->v[i];
		bool pub = !strcmp(e->kind, "rcl_publisher_init");
		if (!pub && strcmp(e->kind, "rcl_subscription_init"))
			continue;
		const char *name = str(e, "topic_name");
		size_t t = 0;
		while (t < out->n_topics && strcmp(out->topics_v[t].name, name))
			t++;
		if (t == out->n_topics) {
			struct caret_ctl_graph_topic *x = push(&out->topics_v, &out->n_topics, &cap,
							       sizeof(*x));
			if (!x || caret_grow((void **)&room, &room_cap, out->n_topics,
					     sizeof(*room)) < 0) {
				ok = false;
				break;
			}
			x->name = name;
			room[t] = (struct topic_room){ 0 };
		}
		struct caret_ctl_graph_topic *x = &out->topics_v[t];
		struct caret_ctl_graph_end *end =
			pub ? push(&x->pubs, &x->n_pubs, &room[t].pubs, sizeof(*end))
			    : push(&x->subs, &x->n_subs, &room[t].subs, sizeof(*end));
		if (!(ok = end != NULL))
			break;
		const struct ctl_event *n =
			find(g, e->pid, "rcl_node_init", "node_handle", u64(e, "node_handle"));
		snprintf(end->node, sizeof(end->node), "?");
		if (n)
			node_name(n, end->node, sizeof(end->node));
		end->pid = e->pid;
		end->procname = e->procname;
	}
	free(room);
	if (ok && out->n_topics > 1)
		qsort(out->topics_v, out->n_topics, sizeof(*out->topics_v), cmp_topic);
	return ok;
}

static void print_topics(const struct caret_ctl_graph *gr)
{
	for (size_t i = 0; i < gr->n_topics; i++) {
		const struct caret_ctl_graph_topic *t = &gr->topics_v[i];
		printf("%s\n", t->name);
		for (size_t j = 0; j < t->n_pubs; j++)
			printf("  publisher     %s (pid %lld)\n", t->pubs[j].node,
			       (long long)t->pubs[j].pid);
		for (size_t j = 0; j < t->n_subs; j++)
			printf("  subscription  %s (pid %lld)\n", t->subs[j].node,
			       (long long)t->subs[j].pid);
	}
}

static void usage(FILE *f, const char *cmd)
{
	if (strcmp(cmd, "nodes") == 0)
		fprintf(f, "Usage: caretctl nodes [--pid P]... [--json]\n"
			   "The ROS 2 nodes of the processes running the agent on this host, from\n"
			   "their caches (no recording): per node its publishers, subscriptions\n"
			   "(with callbacks), timers (periods, callbacks), services, clients, and\n"
			   "the callback groups and executors they are in.\n\n");
	else
		fprintf(f, "Usage: caretctl topics [--pid P]... [--json]\n"
			   "The topics of the processes running the agent on this host, from\n"
			   "their caches (no recording): per topic its publishers and\n"
			   "subscriptions across processes.\n\n");
	fprintf(f, "      --pid P        only process P (repeatable)\n"
		   "      --json         one JSON object\n"
		   "      --socket PATH  caretd's control socket\n"
		   "  -h, --help         this help\n\n"
		   "Exit status: 0 success, 1 caretd failed, 2 usage error, 3 caretd not\n"
		   "reachable, 5 malformed reply.\n");
}

static int run(struct cli_opts *g, const char *cmd, int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_COMMON_LONGOPTS,
		{ "pid", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	static struct caret_ctl_events_req q;
	int opt;
	memset(&q, 0, sizeof(q));
	optind = 0;
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (opt == 'h') {
			usage(cli_help_out(), cmd);
			return cli_help_done(cmd);
		}
		if (opt == 'p') {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*end || v <= 0 || v > INT32_MAX || q.npids == CARET_CTL_EVENTS_MAX_FILTER)
				return cli_usage_error(cmd, "--pid needs a process id");
			q.pids[q.npids++] = v;
			continue;
		}
		if (cli_common_opt(g, opt, optarg) < 0)
			return cli_bad_option(cmd, argv[optind - 1]);
	}
	if (optind < argc)
		return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	struct graph gr = { 0 };
	struct cli_keep keep = { 0 };
	struct cli_fetch f = { .keep = &keep };
	struct caret_ctl_graph out = { 0 };
	int code = cli_events_fetch(g, &q, &f, collect, &gr);
	if (code == CLI_EXIT_OK && gr.n < f.got)
		code = cli_fail(CLI_EXIT_FAILED, "out of memory");
	if (code == CLI_EXIT_OK &&
	    !(strcmp(cmd, CARET_CTL_CMD_NODES) ? build_topics(&gr, &out) : build_nodes(&gr, &out)))
		code = cli_fail(CLI_EXIT_FAILED, "out of memory");
	if (code == CLI_EXIT_OK) {
		if (g->json) {
			if (cli_json_print_graph(&out, cmd) < 0)
				code = cli_fail(CLI_EXIT_FAILED, "out of memory");
		} else if ((out.topics ? out.n_topics : out.n_nodes) == 0) {
			printf("no %s in the caches\n", cmd);
		} else if (out.topics) {
			print_topics(&out);
		} else {
			print_nodes(&out);
		}
		if (f.corrupt)
			cli_warn("%" PRId64 " caches are corrupted: only their records before "
				 "the damage are used", f.corrupt);
	}
	caret_ctl_graph_free(&out);
	cli_keep_free(&keep);
	free(gr.v);
	return code;
}

int cmd_nodes(struct cli_opts *g, int argc, char **argv)
{
	return run(g, "nodes", argc, argv);
}

int cmd_topics(struct cli_opts *g, int argc, char **argv)
{
	return run(g, "topics", argc, argv);
}
