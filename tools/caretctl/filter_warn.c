/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `caretctl record --select-nodes/--select-topics`: a SELECT list that
 * matches no node (no topic) of the processes caretd knows records none of
 * them, silently, as caret_trace does: a pattern with a typo gives a trace
 * of executors and timer callbacks. The names are the caches' (the
 * `events` request, as `caretctl nodes` reads them), matched as the agent
 * matches them (util/regex/caret_regex.h, caret_trace's split()), before the
 * recording starts. Advisory: whatever fails here only leaves the warning
 * out, and caretd serves a record once it is older than its reader's
 * reorder window (shm/reader.h: 50 ms), so a list matching only what a
 * process made in the last 50 ms is warned of wrongly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caretctl.h"
#include "events_fetch.h"
#include "filter_warn.h"
#include "proto/caret_ctl.h"
#include "util/regex/caret_regex.h"

#define MAX_ITEMS 32 /* as the agent's lists (agent/filter.c MAX_RE) */

struct list {
	struct caret_re *re[MAX_ITEMS];
	unsigned n;
	bool all, hit;
};

struct names {
	struct list *nodes, *topics;
	int64_t pids[64];
	size_t npids, nnodes, ntopics;
	bool more_pids;
};

/* caret_trace's split(): an empty item between colons matches
 * everything, a colon at the end adds none; "*" alone matches all. */
static void list_parse(struct list *l, const char *v)
{
	for (const char *p = v;;) {
		const char *e = strchr(p, ':');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char why[160];
		if (len == 0 || (len == 1 && *p == '*'))
			l->all = true;
		else if (l->n < MAX_ITEMS && caret_re_compile(p, len, &l->re[l->n], why,
							      sizeof(why)) == 0)
			l->n++;
		if (!e || !e[1])
			break;
		p = e + 1;
	}
	l->hit = l->all;
}

static void list_free(struct list *l)
{
	for (unsigned i = 0; i < l->n; i++)
		caret_re_free(l->re[i]);
}

static void match(struct list *l, const char *name)
{
	if (!l || l->hit || !name)
		return;
	unsigned long spent = 0;
	for (unsigned i = 0; i < l->n && !l->hit; i++)
		l->hit = caret_re_search(l->re[i], name, strlen(name), &spent) == 1;
}

static void note_pid(struct names *s, int64_t pid)
{
	for (size_t i = 0; i < s->npids; i++)
		if (s->pids[i] == pid)
			return;
	if (s->npids < sizeof(s->pids) / sizeof(s->pids[0]))
		s->pids[s->npids++] = pid;
	else
		s->more_pids = true;
}

static int seen(const struct ctl_event *e, void *arg)
{
	struct names *s = arg;
	note_pid(s, e->pid);
	if (strcmp(e->kind, "rcl_node_init") == 0) {
		/* caret_trace's node name: namespace, '/' unless it ends with one, name */
		const char *ns = ctl_event_str(e, "namespace"), *nm = ctl_event_str(e, "node_name");
		char full[1024];
		size_t l = ns ? strlen(ns) : 0;
		snprintf(full, sizeof(full), "%s%s%s", ns ? ns : "",
			 l && ns[l - 1] == '/' ? "" : "/", nm ? nm : "");
		s->nnodes++;
		match(s->nodes, full);
	} else {
		s->ntopics++;
		match(s->topics, ctl_event_str(e, "topic_name"));
	}
	return 0;
}

void cli_filter_warn_unmatched(const struct cli_opts *g,
			       const char *const filter[CARET_FILTER_LISTS])
{
	const char *sn = filter[CARET_FILTER_SELECT_NODES], *st = filter[CARET_FILTER_SELECT_TOPICS];
	if (!(sn && *sn) && !(st && *st))
		return;
	struct list nodes = { 0 }, topics = { 0 };
	struct names s = { 0 };
	if (sn && *sn) {
		list_parse(&nodes, sn);
		s.nodes = &nodes;
	}
	if (st && *st) {
		list_parse(&topics, st);
		s.topics = &topics;
	}
	static struct caret_ctl_events_req q;
	memset(&q, 0, sizeof(q));
	q.kinds[q.nkinds++] = "rcl_node_init";
	q.kinds[q.nkinds++] = "rcl_publisher_init";
	q.kinds[q.nkinds++] = "rcl_subscription_init";
	struct cli_fetch f = { 0 };
	if (cli_events_fetch(g, &q, &f, seen, &s) == CLI_EXIT_OK && s.npids) {
		char procs[32];
		snprintf(procs, sizeof(procs), "%s%zu", s.more_pids ? "more than " : "", s.npids);
		if (s.nodes && !nodes.hit)
			cli_warn("--select-nodes '%s' matches none of the %zu nodes of the %s "
				 "processes caretd knows: the recording holds none of their nodes, "
				 "nor what is kept only by node (as with CARET_SELECT_NODES)",
				 sn, s.nnodes, procs);
		if (s.topics && !topics.hit)
			cli_warn("--select-topics '%s' matches none of the topics of the %zu "
				 "publishers and subscriptions of the %s processes caretd knows: the "
				 "recording holds none of them but for a selected node's "
				 "(as with CARET_SELECT_TOPICS)",
				 st, s.ntopics, procs);
	}
	list_free(&nodes);
	list_free(&topics);
}
