/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `caretctl check TRACE_DIR`: the equivalent of `ros2 caret check_ctf`,
 * without caretd. Reads the trace with babeltrace2 and says whether
 * CARET's analyzer gets everything: per process caret_init and init
 * records, duplicates, runtime events without init data, discarded events
 * and lost packets, and the publish -> take binding chain.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caretctl.h"
#include "json_out.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_check.h"
#include "util/caret_util.h"
#include "check.h"
#include "check_cli.h"
#include "check_wire.h"
#include "complete.h"
#include "parse.h"

static void usage(FILE *f, const char *cmd)
{
	(void)cmd;
	fprintf(f,
		"Usage: caretctl check [--json] [--timeout DURATION] TRACE_DIR\n"
		"Check an LTTng trace (recorded with caretd, CARET, ros2_tracing or lttng)\n"
		"for what CARET's analyzer needs: caret_init and init records of every\n"
		"process, init records missing (what the analyzer joins a record to:\n"
		"a node, timer, callback, executor), runtime events of processes without\n"
		"init data, discarded events, lost packets, publishes without a DDS\n"
		"source-timestamp binding and bindings without a matching take; then a\n"
		"summary (processes, nodes, topics, events per kind). Copies of replayed\n"
		"init records are notes: the analyzer drops them, and stop counts them\n"
		"the same way; so are callback registrations a node or topic filter\n"
		"leaves without their timer or service, as caret_trace does. caretd is\n"
		"not needed.\n\n"
		"      --json              one JSON object on stdout (errors too); exact\n"
		"                          integers\n"
		"      --timeout DURATION  give up reading the trace after DURATION (default\n"
		"                          60 s; babeltrace2 reads it in a child process)\n"
		"  -h, --help              this help\n\n"
		"Exit status: 0 complete, 1 the trace cannot be read (no such directory,\n"
		"unreadable, not a CTF trace, or not read within --timeout), 2 usage error,\n"
		"6 incomplete (each problem is listed).\n");
}

/* Lines, each malloc'd. */
struct lines {
	char **v;
	size_t n, cap;
};

struct findings {
	struct lines problems, warnings, notes;
};

/* Takes line over (freed when it cannot be kept). 0 or -ENOMEM. */
static int add_line(struct lines *l, char *line)
{
	if (!line || caret_grow((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v)) < 0) {
		free(line);
		return -ENOMEM;
	}
	l->v[l->n++] = line;
	return 0;
}

/* Lines are built whole, however long: a cut line hides what it names. */
static int add(struct lines *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int add(struct lines *l, const char *fmt, ...)
{
	char *buf;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&buf, fmt, ap);
	va_end(ap);
	return n < 0 ? -ENOMEM : add_line(l, buf);
}

static void lines_free(struct lines *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

/* CARET's analyzer reads vpid, vtid and procname on every event: without
 * them a trace of the lttng CLI alone (no add-context) would pass as one
 * pseudo-process "PID -1 ?" that the analyzer cannot use (issue 33 C1). */
static int judge_contexts(const struct check_report *r, struct findings *f)
{
	char names[64] = "";
	uint64_t most = 0;
	for (size_t i = 0; i < CHECK_NCTX; i++) {
		if (!r->no_context[i])
			continue;
		size_t n = strlen(names);
		snprintf(names + n, sizeof(names) - n, "%s%s", n ? ", " : "", check_ctx_name(i));
		if (r->no_context[i] > most)
			most = r->no_context[i];
	}
	if (!most)
		return 0;
	return add(&f->problems,
		   "%" PRIu64 " of %" PRIu64 " events lack the context field%s %s, which CARET's "
		   "analyzer reads on every event (record with caretctl or ros2 caret record, "
		   "or 'lttng add-context -u -t vpid -t vtid -t procname' before 'lttng start')",
		   most, r->events, strchr(names, ',') ? "s" : "", names);
}

/* What one process of the trace lacks or holds twice. */
static int judge_proc(const struct check_report *r, const struct check_proc *p,
		      struct findings *f)
{
	int rc = 0;
	if (p->runtime && !p->caret_init && r->any_caret_init)
		rc |= add(&f->problems,
			  "pid %" PRId64 " (%s): %" PRIu64 " runtime events but no "
			  "ros2_caret:caret_init (the analyzer drops them)",
			  p->vpid, p->procname, p->runtime);
	if (p->runtime && !p->init_total)
		rc |= add(&f->problems,
			  "pid %" PRId64 " (%s): %" PRIu64 " runtime events but no init "
			  "records (its nodes, publishers, callbacks are unknown)",
			  p->vpid, p->procname, p->runtime);
	if (p->missing_total || check_pass_cut(p))
		rc |= add_line(&f->problems, complete_missing_line(p));
	if (p->caret_init && !p->init_total && !p->runtime)
		rc |= add(&f->warnings,
			  "pid %" PRId64 " (%s): ros2_caret:caret_init but no init records "
			  "and no runtime events (a process without ROS 2 objects, or a "
			  "replay that did not reach this trace)",
			  p->vpid, p->procname);
	if (p->dup_total)
		rc |= add_line(&f->notes, complete_dup_line(p));
	if (p->filtered_registers)
		rc |= add(&f->notes,
			  "pid %" PRId64 " (%s): %" PRIu64 " rclcpp_callback_register without "
			  "the *_callback_added record of its callback (a node or topic filter "
			  "keeps the callbacks of timers and services whose records it drops, "
			  "as caret_trace does)",
			  p->vpid, p->procname, p->filtered_registers);
	if (p->both_variants)
		rc |= add(&f->problems,
			  "pid %" PRId64 " (%s): %" PRIu64 " init records both as ros2: and "
			  "ros2_caret: (the analyzer sees two objects)",
			  p->vpid, p->procname, p->both_variants);
	/* At a trace's edges a publish or take is naturally cut off: these
	 * are reported, not counted against completeness. */
	if (p->unbound_publishes)
		rc |= add(&f->warnings,
			  "pid %" PRId64 " (%s): %" PRIu64 " of %" PRIu64 " dds_write without "
			  "dds_bind_addr_to_stamp on the same thread",
			  p->vpid, p->procname, p->unbound_publishes, p->publishes);
	if (p->unmatched_bindings)
		rc |= add(&f->warnings,
			  "pid %" PRId64 " (%s): %" PRIu64 " of %" PRIu64 " source-timestamp "
			  "bindings without a matching rmw_take",
			  p->vpid, p->procname, p->unmatched_bindings, p->bindings);
	return rc;
}

/* complete.h's model on what the trace holds. */
static int judge(const struct check_report *r, struct findings *f)
{
	int rc = 0;
	if (r->events == 0)
		rc |= add(&f->problems, "the trace holds no events");
	if (r->discarded_events || r->discarded_unknown)
		rc |= add(&f->problems, "%" PRIu64 " events discarded by the tracer%s (%" PRIu64
				       " discarded-events records)",
			  r->discarded_events, r->discarded_unknown ? " plus an unknown number" : "",
			  r->discarded_msgs);
	if (r->lost_packets || r->lost_unknown)
		rc |= add(&f->problems, "%" PRIu64 " packets lost%s", r->lost_packets,
			  r->lost_unknown ? " plus an unknown number" : "");
	rc |= judge_contexts(r, f);
	for (size_t i = 0; i < r->nprocs; i++)
		rc |= judge_proc(r, &r->procs[i], f);
	/* Processes that replayed their records (caret_init and some init
	 * records) but no node, or nodes but no topic: what a SELECT list that
	 * matched nothing leaves (issue 33 F2), silently in caret_trace too.
	 * The trace holds what the filter asked for: a warning, not a problem
	 * (caret_analyze loads it, with nothing in its architecture). */
	size_t replayed = 0;
	for (size_t i = 0; i < r->nprocs; i++)
		replayed += r->procs[i].caret_init && r->procs[i].init_total;
	if (replayed && !r->nnodes)
		rc |= add(&f->warnings,
			  "no node in the trace, though %zu process(es) replayed their init records: "
			  "all their nodes were left out (a --select-nodes or CARET_SELECT_NODES "
			  "that matched none?)",
			  replayed);
	else if (replayed && !r->ntopics)
		rc |= add(&f->warnings,
			  "no publisher or subscription in the trace, though it has %zu node(s): "
			  "all were left out (a --select-topics or CARET_SELECT_TOPICS that matched "
			  "none?)",
			  r->nnodes);
	return rc;
}

/* Named counts of a list (zeros left out when sparse); false on ENOMEM. */
static bool counts_of(struct caret_ctl_counts *c, size_t max, const char *(*name)(size_t),
		      const uint64_t *v, bool sparse)
{
	c->n = 0;
	c->v = max ? calloc(max, sizeof(*c->v)) : NULL;
	if (max && !c->v)
		return false;
	for (size_t k = 0; k < max && name(k); k++)
		if (!sparse || v[k])
			c->v[c->n++] = (struct caret_ctl_count){ name(k), v[k] };
	return true;
}

static size_t names_of(const char *(*name)(size_t))
{
	size_t n = 0;
	while (name(n))
		n++;
	return n;
}

static bool proc_of(const struct check_proc *p, struct caret_ctl_check_proc *o)
{
	*o = (struct caret_ctl_check_proc){
		.pid = p->vpid, .procname = p->procname, .caret_init = p->caret_init,
		.replay_cut = check_pass_cut(p), .init_total = p->init_total,
		.dup_total = p->dup_total, .missing_total = p->missing_total,
		.both_variants = p->both_variants, .filtered_registers = p->filtered_registers,
		.runtime_events = p->runtime, .replay_passes = p->passes,
		.replay_passes_whole = p->passes_whole, .events = p->events,
		.publishes = p->publishes, .unbound_publishes = p->unbound_publishes,
		.bindings = p->bindings, .unmatched_bindings = p->unmatched_bindings,
	};
	size_t kinds = names_of(check_kind_name), links = names_of(check_link_name);
	return counts_of(&o->init, kinds, check_kind_name, p->init, true) &&
	       counts_of(&o->dup, kinds, check_kind_name, p->dup, true) &&
	       counts_of(&o->missing, links, check_link_name, p->missing, true);
}

static void strings_of(struct caret_ctl_strings *s, const struct lines *l)
{
	s->n = l->n;
	s->v = (const char **)l->v;
}

/* The report and the findings as check's result struct; its arrays freed
 * by result_free. */
static bool result_of(const char *dir, const struct check_report *r, const struct findings *f,
		      bool complete, struct caret_ctl_check_result *c)
{
	*c = (struct caret_ctl_check_result){
		.trace = dir, .complete = complete, .events = r->events,
		.discarded_events = r->discarded_events, .lost_packets = r->lost_packets,
		.discarded_unknown = r->discarded_unknown != 0,
		.lost_unknown = r->lost_unknown != 0, .first_ns = r->first_ns,
		.last_ns = r->last_ns,
	};
	strings_of(&c->problems, &f->problems);
	strings_of(&c->warnings, &f->warnings);
	strings_of(&c->notes, &f->notes);
	c->procs = r->nprocs ? calloc(r->nprocs, sizeof(*c->procs)) : NULL;
	c->nodes = r->nnodes ? calloc(r->nnodes, sizeof(*c->nodes)) : NULL;
	c->topics = r->ntopics ? calloc(r->ntopics, sizeof(*c->topics)) : NULL;
	c->per_kind.v = r->nevcounts ? calloc(r->nevcounts, sizeof(*c->per_kind.v)) : NULL;
	if ((r->nprocs && !c->procs) || (r->nnodes && !c->nodes) || (r->ntopics && !c->topics) ||
	    (r->nevcounts && !c->per_kind.v) ||
	    !counts_of(&c->no_context, CHECK_NCTX, check_ctx_name, r->no_context, false))
		return false;
	while (c->n_procs < r->nprocs) {
		bool ok = proc_of(&r->procs[c->n_procs], &c->procs[c->n_procs]);
		c->n_procs++; /* freed by result_free, whole or not */
		if (!ok)
			return false;
	}
	for (; c->n_nodes < r->nnodes; c->n_nodes++)
		c->nodes[c->n_nodes] = (struct caret_ctl_check_node){ r->nodes[c->n_nodes].name,
								      r->nodes[c->n_nodes].vpid };
	for (; c->n_topics < r->ntopics; c->n_topics++)
		c->topics[c->n_topics] = (struct caret_ctl_check_topic){
			r->topics[c->n_topics].name, r->topics[c->n_topics].publishers,
			r->topics[c->n_topics].subscriptions
		};
	for (; c->per_kind.n < r->nevcounts; c->per_kind.n++)
		c->per_kind.v[c->per_kind.n] = (struct caret_ctl_count){
			r->evcounts[c->per_kind.n].name, r->evcounts[c->per_kind.n].count
		};
	return true;
}

/* What result_of allocated (not the strings: the report's and findings',
 * nor the findings' lists, which problems, warnings and notes point to). */
static void result_free(struct caret_ctl_check_result *c)
{
	c->problems.v = c->warnings.v = c->notes.v = NULL;
	caret_ctl_check_free(c);
}

static int print_json(const char *dir, const struct check_report *r, struct findings *f,
		      bool complete)
{
	struct caret_ctl_check_result c;
	int rc = result_of(dir, r, f, complete, &c) ? cli_json_print_check(&c) : -ENOMEM;
	result_free(&c);
	return rc;
}

static void print_list(const char *title, const struct lines *l)
{
	if (l->n == 0)
		return;
	printf("%s:\n", title);
	for (size_t i = 0; i < l->n; i++)
		printf("  - %s\n", l->v[i]);
}

static void print_text(const char *dir, const struct check_report *r, struct findings *f,
		      bool complete)
{
	printf("trace %s: %" PRIu64 " events over %.3f s\n", dir, r->events,
	       r->events ? (double)(r->last_ns - r->first_ns) / 1e9 : 0.0);
	printf("%zu processes, %zu nodes, %zu topics; %" PRIu64 " events discarded, %" PRIu64
	       " packets lost\n\n",
	       r->nprocs, r->nnodes, r->ntopics, r->discarded_events, r->lost_packets);
	printf("%8s  %-16s %-10s %7s %5s %9s %9s %7s %9s %9s\n", "PID", "PROCNAME", "CARET_INIT",
	       "INIT", "DUP", "RUNTIME", "PUBLISHES", "UNBOUND", "BINDINGS", "UNMATCHED");
	for (size_t i = 0; i < r->nprocs; i++) {
		const struct check_proc *p = &r->procs[i];
		printf("%8" PRId64 "  %-16s %-10s %7" PRIu64 " %5" PRIu64 " %9" PRIu64 " %9" PRIu64
		       " %7" PRIu64 " %9" PRIu64 " %9" PRIu64 "\n",
		       p->vpid, p->procname, p->caret_init ? "yes" : "NO", p->init_total,
		       p->dup_total, p->runtime, p->publishes, p->unbound_publishes, p->bindings,
		       p->unmatched_bindings);
	}
	printf("\ninit records per process:\n");
	for (size_t i = 0; i < r->nprocs; i++) {
		const struct check_proc *p = &r->procs[i];
		printf("  %" PRId64 ":", p->vpid);
		for (size_t k = 0; check_kind_name(k); k++)
			if (p->init[k])
				printf(" %s=%" PRIu64, check_kind_name(k), p->init[k]);
		printf("%s\n", p->init_total ? "" : " none");
	}
	if (r->nnodes) {
		printf("\nnodes:\n");
		for (size_t i = 0; i < r->nnodes; i++)
			printf("  %s (pid %" PRId64 ")\n", r->nodes[i].name, r->nodes[i].vpid);
	}
	if (r->ntopics) {
		printf("\ntopics:\n");
		for (size_t i = 0; i < r->ntopics; i++)
			printf("  %s publishers=%" PRIu64 " subscriptions=%" PRIu64 "\n",
			       r->topics[i].name, r->topics[i].publishers, r->topics[i].subscriptions);
	}
	printf("\nevents per kind:\n");
	for (size_t i = 0; i < r->nevcounts; i++)
		printf("  %-48s %" PRIu64 "\n", r->evcounts[i].name, r->evcounts[i].count);
	printf("\n");
	print_list("problems", &f->problems);
	print_list("warnings", &f->warnings);
	print_list("notes", &f->notes);
	if (complete)
		printf("complete\n");
	else
		printf("INCOMPLETE: %zu problem(s)\n", f->problems.n);
}

int cmd_check(struct cli_opts *g, int argc, char **argv)
{
	struct check_report rep;
	const char *dir = NULL;
	int code = check_cli_read(g, "check", "unexpected argument", argc, argv, &rep, &dir);
	if (code == CHECK_CLI_HELP) {
		usage(cli_help_out(), "check");
		return cli_help_done("check");
	}
	if (code != CHECK_CLI_READ)
		return code;
	int rc = 0;
	const struct check_report *r = &rep;
	struct findings f = { 0 };
	if (judge(r, &f) < 0) {
		rc = -ENOMEM;
	} else {
		bool complete = f.problems.n == 0;
		if (g->json)
			rc = print_json(dir, r, &f, complete);
		else
			print_text(dir, r, &f, complete);
		if (rc == 0)
			rc = complete ? CLI_EXIT_OK : CLI_EXIT_INCOMPLETE;
	}
	lines_free(&f.problems);
	lines_free(&f.warnings);
	lines_free(&f.notes);
	check_wire_free(&rep);
	return rc == -ENOMEM ? cli_fail(CLI_EXIT_FAILED, "out of memory") : rc;
}
