/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The results of `caretctl nodes` and `caretctl topics` (--json): the ROS
 * 2 graph caretctl joins from the caches' init records (the `events`
 * request), as C structs with one encoder and one decoder. The line:
 *
 *  {"v", "type": "result", "cmd": "nodes", "nodes": [{"name", "pid",
 *   "procname", "publishers": [{"topic"}], "subscriptions": [{"topic",
 *   "callback"}], "timers": [{"period_ns", "callback"}], "services":
 *   [{"name", "callback"}], "clients": [{"name"}], "callback_groups":
 *   [{"address", "type", "executor", "executor_type"}]}]}
 *  {"v", "type": "result", "cmd": "topics", "topics": [{"name",
 *   "publishers": [{"node", "pid", "procname"}], "subscriptions": [...]}]}
 *
 * callback, type, executor and executor_type are null when the caches do
 * not say (NULL here). Strings of a decoded graph point into the cJSON tree
 * it came from, but for the ones caretctl makes (names joined from a
 * namespace, addresses), kept in the struct.
 */
#ifndef CARET_PROTO_CTL_GRAPH_H
#define CARET_PROTO_CTL_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#define CARET_CTL_CMD_NODES "nodes"
#define CARET_CTL_CMD_TOPICS "topics"
/* A node's full name (namespace/name) as caretctl joins it; an address. */
#define CARET_CTL_GRAPH_NAME_MAX 512
#define CARET_CTL_GRAPH_ADDR_MAX 24
/* Bounds on what a decoder accepts per array. */
#define CARET_CTL_GRAPH_MAX 1000000

/* A publisher (callback unused), subscription, service or client (unused). */
struct caret_ctl_graph_entity {
	const char *name; /* topic or service name */
	const char *callback; /* its symbol; NULL: not known */
};

struct caret_ctl_graph_timer {
	int64_t period_ns; /* -1: not known */
	const char *callback;
};

struct caret_ctl_graph_group {
	char address[CARET_CTL_GRAPH_ADDR_MAX];
	const char *type; /* NULL: not known */
	bool have_executor;
	char executor[CARET_CTL_GRAPH_ADDR_MAX];
	const char *executor_type;
};

struct caret_ctl_graph_node {
	char name[CARET_CTL_GRAPH_NAME_MAX];
	int64_t pid;
	const char *procname;
	size_t n_pubs, n_subs, n_timers, n_services, n_clients, n_groups;
	struct caret_ctl_graph_entity *pubs, *subs, *services, *clients;
	struct caret_ctl_graph_timer *timers;
	struct caret_ctl_graph_group *groups;
};

struct caret_ctl_graph_end {
	char node[CARET_CTL_GRAPH_NAME_MAX];
	int64_t pid;
	const char *procname;
};

struct caret_ctl_graph_topic {
	const char *name;
	size_t n_pubs, n_subs;
	struct caret_ctl_graph_end *pubs, *subs;
};

struct caret_ctl_graph {
	bool topics; /* "topics" (else "nodes") */
	size_t n_nodes;
	struct caret_ctl_graph_node *nodes;
	size_t n_topics;
	struct caret_ctl_graph_topic *topics_v;
};

/* Adds "nodes" or "topics" to out (an envelope). 0 or -ENOMEM. */
int caret_ctl_graph_encode(const struct caret_ctl_graph *g, cJSON *out);
/* Reads "nodes" or "topics" of in, whichever it has. 0, -EPROTO (why
 * names the field) or -ENOMEM; on failure g holds nothing to free. */
int caret_ctl_graph_decode(const cJSON *in, struct caret_ctl_graph *g, char *why, size_t len);
/* Frees every array of g (as the decoder, or caretctl's builder, made
 * them with malloc). */
void caret_ctl_graph_free(struct caret_ctl_graph *g);

#endif
