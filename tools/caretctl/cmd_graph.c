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

struct graph {
	struct ctl_event *v;
	size_t n, cap;
	cJSON *keep; /* the pages the events point into */
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

static bool add_str(cJSON *o, const char *k, const char *v)
{
	return v ? cJSON_AddStringToObject(o, k, v) != NULL : cJSON_AddNullToObject(o, k) != NULL;
}

static char *hex(char *buf, uint64_t v)
{
	sprintf(buf, "0x%" PRIx64, v);
	return buf;
}

/* The callback group holding entity `handle` (of kind cg_kind), with its
 * executor, added to groups once. */
static bool add_group(const struct graph *g, int64_t pid, const char *cg_kind,
		      uint64_t handle, const char *key, cJSON *groups)
{
	const struct ctl_event *m = find(g, pid, cg_kind, key, handle);
	if (!m)
		return true;
	uint64_t cbg = u64(m, "callback_group_addr");
	char a[24], b[24];
	const cJSON *x;
	cJSON_ArrayForEach(x, groups) {
		if (strcmp(cJSON_GetObjectItemCaseSensitive(x, "address")->valuestring,
			   hex(a, cbg)) == 0)
			return true;
	}
	cJSON *o = cJSON_CreateObject();
	if (!o || !cJSON_AddItemToArray(groups, o))
		return false;
	const struct ctl_event *add = find(g, pid, "add_callback_group", "callback_group_addr", cbg);
	const struct ctl_event *exe = NULL;
	if (add) {
		exe = find(g, pid, "construct_executor", "executor_addr", u64(add, "executor_addr"));
	} else if ((add = find(g, pid, "add_callback_group_static_executor",
			       "callback_group_addr", cbg))) {
		exe = find(g, pid, "construct_static_executor", "entities_collector_addr",
			   u64(add, "entities_collector_addr"));
	} else if ((add = find(g, pid, "callback_group_to_executor_entity_collector",
			       "callback_group_addr", cbg))) {
		/* Jazzy: group -> ExecutorEntitiesCollector -> executor, the two
		 * events caret_analyze joins on Jazzy. */
		const struct ctl_event *link = find(g, pid, "executor_entity_collector_to_executor",
						    "entities_collector_addr",
						    u64(add, "entities_collector_addr"));
		if (link) {
			uint64_t ex = u64(link, "executor_addr");
			exe = find(g, pid, "construct_executor", "executor_addr", ex);
			if (!exe)
				exe = find(g, pid, "construct_static_executor", "executor_addr", ex);
		}
	}
	return add_str(o, "address", hex(a, cbg)) &&
	       add_str(o, "type", add ? str(add, "group_type_name") : NULL) &&
	       add_str(o, "executor", exe ? hex(b, u64(exe, "executor_addr")) : NULL) &&
	       add_str(o, "executor_type", exe ? str(exe, "executor_type_name") : NULL);
}

static cJSON *node_json(const struct graph *g, const struct ctl_event *n)
{
	char name[512];
	int64_t pid = n->pid;
	uint64_t h = u64(n, "node_handle");
	cJSON *o = cJSON_CreateObject(), *pubs, *subs, *timers, *srvs, *clis, *groups;
	node_name(n, name, sizeof(name));
	bool ok = o && add_str(o, "name", name) && cJSON_AddNumberToObject(o, "pid", (double)pid) &&
		  add_str(o, "procname", n->procname) &&
		  (pubs = cJSON_AddArrayToObject(o, "publishers")) &&
		  (subs = cJSON_AddArrayToObject(o, "subscriptions")) &&
		  (timers = cJSON_AddArrayToObject(o, "timers")) &&
		  (srvs = cJSON_AddArrayToObject(o, "services")) &&
		  (clis = cJSON_AddArrayToObject(o, "clients")) &&
		  (groups = cJSON_AddArrayToObject(o, "callback_groups"));
	for (size_t i = 0; ok && i < g->n; i++) {
		const struct ctl_event *e = &g->v[i];
		if (e->pid != pid)
			continue;
		const char *k = e->kind;
		cJSON *x = NULL;
		if (!strcmp(k, "rcl_publisher_init") && u64(e, "node_handle") == h) {
			ok = (x = cJSON_CreateObject()) && cJSON_AddItemToArray(pubs, x) &&
			     add_str(x, "topic", str(e, "topic_name"));
		} else if (!strcmp(k, "rcl_subscription_init") && u64(e, "node_handle") == h) {
			uint64_t s = u64(e, "subscription_handle");
			const struct ctl_event *cpp =
				find(g, pid, "rclcpp_subscription_init", "subscription_handle", s);
			const struct ctl_event *cb =
				cpp ? find(g, pid, "rclcpp_subscription_callback_added", "subscription",
					   u64(cpp, "subscription"))
				    : NULL;
			ok = (x = cJSON_CreateObject()) && cJSON_AddItemToArray(subs, x) &&
			     add_str(x, "topic", str(e, "topic_name")) &&
			     add_str(x, "callback", cb ? symbol(g, pid, u64(cb, "callback")) : NULL) &&
			     add_group(g, pid, "callback_group_add_subscription", s,
				       "subscription_handle", groups);
		} else if (!strcmp(k, "rclcpp_timer_link_node") && u64(e, "node_handle") == h) {
			uint64_t t = u64(e, "timer_handle");
			const struct ctl_event *ti = find(g, pid, "rcl_timer_init", "timer_handle", t);
			const struct ctl_event *cb =
				find(g, pid, "rclcpp_timer_callback_added", "timer_handle", t);
			ok = (x = cJSON_CreateObject()) && cJSON_AddItemToArray(timers, x) &&
			     cJSON_AddNumberToObject(x, "period_ns",
						     ti ? (double)(int64_t)u64(ti, "period") : -1) &&
			     add_str(x, "callback", cb ? symbol(g, pid, u64(cb, "callback")) : NULL) &&
			     add_group(g, pid, "callback_group_add_timer", t, "timer_handle", groups);
		} else if (!strcmp(k, "rcl_service_init") && u64(e, "node_handle") == h) {
			uint64_t s = u64(e, "service_handle");
			const struct ctl_event *cb =
				find(g, pid, "rclcpp_service_callback_added", "service_handle", s);
			ok = (x = cJSON_CreateObject()) && cJSON_AddItemToArray(srvs, x) &&
			     add_str(x, "name", str(e, "service_name")) &&
			     add_str(x, "callback", cb ? symbol(g, pid, u64(cb, "callback")) : NULL) &&
			     add_group(g, pid, "callback_group_add_service", s, "service_handle",
				       groups);
		} else if (!strcmp(k, "rcl_client_init") && u64(e, "node_handle") == h) {
			ok = (x = cJSON_CreateObject()) && cJSON_AddItemToArray(clis, x) &&
			     add_str(x, "name", str(e, "service_name")) &&
			     add_group(g, pid, "callback_group_add_client", u64(e, "client_handle"),
				       "client_handle", groups);
		}
	}
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static const char *jstr(const cJSON *o, const char *k)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(x) ? x->valuestring : "-";
}

static void print_nodes(const cJSON *nodes)
{
	const cJSON *n, *x;
	cJSON_ArrayForEach(n, nodes) {
		printf("%s (pid %.0f, %s)\n", jstr(n, "name"),
		       cJSON_GetObjectItemCaseSensitive(n, "pid")->valuedouble, jstr(n, "procname"));
		cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(n, "publishers"))
			printf("  publisher     %s\n", jstr(x, "topic"));
		cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(n, "subscriptions"))
			printf("  subscription  %s  callback %s\n", jstr(x, "topic"),
			       jstr(x, "callback"));
		cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(n, "timers"))
			printf("  timer         period %.0f ns  callback %s\n",
			       cJSON_GetObjectItemCaseSensitive(x, "period_ns")->valuedouble,
			       jstr(x, "callback"));
		cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(n, "services"))
			printf("  service       %s  callback %s\n", jstr(x, "name"),
			       jstr(x, "callback"));
		cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(n, "clients"))
			printf("  client        %s\n", jstr(x, "name"));
		cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(n, "callback_groups"))
			printf("  callback group %s %s  executor %s %s\n", jstr(x, "address"),
			       jstr(x, "type"), jstr(x, "executor"), jstr(x, "executor_type"));
	}
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(jstr(*(cJSON *const *)a, "name"), jstr(*(cJSON *const *)b, "name"));
}

/* Sorts an array of objects by their "name" in place. */
static void sort_by_name(cJSON *arr)
{
	int n = cJSON_GetArraySize(arr);
	if (n < 2)
		return;
	cJSON **v = malloc((size_t)n * sizeof(*v));
	if (!v)
		return;
	for (int i = n - 1; i >= 0; i--)
		v[i] = cJSON_DetachItemFromArray(arr, i);
	qsort(v, (size_t)n, sizeof(*v), cmp_name);
	for (int i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, v[i]);
	free(v);
}

static cJSON *topic_of(cJSON *topics, const char *name)
{
	cJSON *t;
	cJSON_ArrayForEach(t, topics) {
		if (strcmp(jstr(t, "name"), name) == 0)
			return t;
	}
	t = cJSON_CreateObject();
	if (!t || !cJSON_AddItemToArray(topics, t) || !add_str(t, "name", name) ||
	    !cJSON_AddArrayToObject(t, "publishers") || !cJSON_AddArrayToObject(t, "subscriptions"))
		return NULL;
	return t;
}

static cJSON *topics_json(const struct graph *g)
{
	cJSON *topics = cJSON_CreateArray();
	for (size_t i = 0; topics && i < g->n; i++) {
		const struct ctl_event *e = &g->v[i];
		bool pub = !strcmp(e->kind, "rcl_publisher_init");
		if (!pub && strcmp(e->kind, "rcl_subscription_init"))
			continue;
		const struct ctl_event *n =
			find(g, e->pid, "rcl_node_init", "node_handle", u64(e, "node_handle"));
		char name[512] = "?";
		if (n)
			node_name(n, name, sizeof(name));
		cJSON *t = topic_of(topics, str(e, "topic_name")), *x = cJSON_CreateObject();
		if (!t || !x || !cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(
							      t, pub ? "publishers" : "subscriptions"),
						      x) ||
		    !add_str(x, "node", name) || !cJSON_AddNumberToObject(x, "pid", (double)e->pid) ||
		    !add_str(x, "procname", e->procname)) {
			cJSON_Delete(x);
			cJSON_Delete(topics);
			return NULL;
		}
	}
	if (topics)
		sort_by_name(topics);
	return topics;
}

static void print_topics(const cJSON *topics)
{
	const cJSON *t, *x;
	cJSON_ArrayForEach(t, topics) {
		printf("%s\n", jstr(t, "name"));
		cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(t, "publishers"))
			printf("  publisher     %s (pid %.0f)\n", jstr(x, "node"),
			       cJSON_GetObjectItemCaseSensitive(x, "pid")->valuedouble);
		cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(t, "subscriptions"))
			printf("  subscription  %s (pid %.0f)\n", jstr(x, "node"),
			       cJSON_GetObjectItemCaseSensitive(x, "pid")->valuedouble);
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
	struct cli_fetch f = { 0 };
	f.keep = gr.keep = cJSON_CreateArray();
	if (!gr.keep)
		return cli_fail(CLI_EXIT_FAILED, "out of memory");
	int code = cli_events_fetch(g, &q, &f, collect, &gr);
	cJSON *out = NULL, *arr = NULL;
	if (code == CLI_EXIT_OK && gr.n < f.got)
		code = cli_fail(CLI_EXIT_FAILED, "out of memory");
	if (code == CLI_EXIT_OK) {
		if (strcmp(cmd, "nodes") == 0) {
			arr = cJSON_CreateArray();
			for (size_t i = 0; arr && i < gr.n; i++) {
				if (strcmp(gr.v[i].kind, "rcl_node_init") != 0)
					continue;
				cJSON *n = node_json(&gr, &gr.v[i]);
				if (!n || !cJSON_AddItemToArray(arr, n)) {
					cJSON_Delete(n);
					cJSON_Delete(arr);
					arr = NULL;
				}
			}
			if (arr)
				sort_by_name(arr);
		} else {
			arr = topics_json(&gr);
		}
		/* the envelope of every other result line: v, type, cmd */
		out = arr ? cJSON_CreateObject() : NULL;
		if (!out || !cJSON_AddNumberToObject(out, CARET_CTL_K_V, CARET_CTL_VERSION) ||
		    !cJSON_AddStringToObject(out, CARET_CTL_K_TYPE, CARET_CTL_T_RESULT) ||
		    !cJSON_AddStringToObject(out, CARET_CTL_K_CMD, cmd) ||
		    !cJSON_AddItemToObject(out, cmd, arr)) {
			if (!out)
				cJSON_Delete(arr);
			code = cli_fail(CLI_EXIT_FAILED, "out of memory");
		}
	}
	if (code == CLI_EXIT_OK) {
		if (g->json) {
			char *s = cJSON_PrintUnformatted(out);
			if (s)
				printf("%s\n", s);
			free(s);
		} else if (cJSON_GetArraySize(arr) == 0) {
			printf("no %s in the caches\n", cmd);
		} else if (strcmp(cmd, "nodes") == 0) {
			print_nodes(arr);
		} else {
			print_topics(arr);
		}
		if (f.corrupt)
			cli_warn("%" PRId64 " caches are corrupted: only their records before "
				 "the damage are used", f.corrupt);
	}
	cJSON_Delete(out);
	cJSON_Delete(gr.keep);
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
