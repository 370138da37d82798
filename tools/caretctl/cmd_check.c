/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `caretctl check TRACE_DIR`: the equivalent of `ros2 caret check_ctf`,
 * without caretd. Reads the trace with babeltrace2 and says whether
 * CARET's analyzer gets everything: per process caret_init and init
 * records, duplicates, runtime events without init data, discarded events
 * and lost packets, and the publish -> take binding chain.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caretctl.h"
#include "json_out.h"
#include "proto/caret_ctl.h"
#include "check.h"
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

struct findings {
	cJSON *problems, *warnings, *notes; /* arrays of strings */
};

/* Lines are built whole, however long: a cut line hides what it names. */
static int add(cJSON *arr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int add(cJSON *arr, const char *fmt, ...)
{
	char *buf;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&buf, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	cJSON *s = cJSON_CreateString(buf);
	free(buf);
	return s && cJSON_AddItemToArray(arr, s) ? 0 : -ENOMEM;
}

static int add_line(cJSON *arr, char *line)
{
	cJSON *s = line ? cJSON_CreateString(line) : NULL;
	free(line);
	return s && cJSON_AddItemToArray(arr, s) ? 0 : -ENOMEM;
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
	return add(f->problems,
		   "%" PRIu64 " of %" PRIu64 " events lack the context field%s %s, which CARET's "
		   "analyzer reads on every event (record with caretctl or ros2 caret record, "
		   "or 'lttng add-context -u -t vpid -t vtid -t procname' before 'lttng start')",
		   most, r->events, strchr(names, ',') ? "s" : "", names);
}

/* complete.h's model on what the trace holds. */
static int judge(const struct check_report *r, struct findings *f)
{
	int rc = 0;
	if (r->events == 0)
		rc |= add(f->problems, "the trace holds no events");
	if (r->discarded_events || r->discarded_unknown)
		rc |= add(f->problems, "%" PRIu64 " events discarded by the tracer%s (%" PRIu64
				       " discarded-events records)",
			  r->discarded_events, r->discarded_unknown ? " plus an unknown number" : "",
			  r->discarded_msgs);
	if (r->lost_packets || r->lost_unknown)
		rc |= add(f->problems, "%" PRIu64 " packets lost%s", r->lost_packets,
			  r->lost_unknown ? " plus an unknown number" : "");
	rc |= judge_contexts(r, f);
	for (size_t i = 0; i < r->nprocs; i++) {
		const struct check_proc *p = &r->procs[i];
		if (p->runtime && !p->caret_init && r->any_caret_init)
			rc |= add(f->problems,
				  "pid %" PRId64 " (%s): %" PRIu64 " runtime events but no "
				  "ros2_caret:caret_init (the analyzer drops them)",
				  p->vpid, p->procname, p->runtime);
		if (p->runtime && !p->init_total)
			rc |= add(f->problems,
				  "pid %" PRId64 " (%s): %" PRIu64 " runtime events but no init "
				  "records (its nodes, publishers, callbacks are unknown)",
				  p->vpid, p->procname, p->runtime);
		if (p->missing_total || check_pass_cut(p))
			rc |= add_line(f->problems, complete_missing_line(p));
		if (p->caret_init && !p->init_total && !p->runtime)
			rc |= add(f->warnings,
				  "pid %" PRId64 " (%s): ros2_caret:caret_init but no init records "
				  "and no runtime events (a process without ROS 2 objects, or a "
				  "replay that did not reach this trace)",
				  p->vpid, p->procname);
		if (p->dup_total)
			rc |= add_line(f->notes, complete_dup_line(p));
		if (p->filtered_registers)
			rc |= add(f->notes,
				  "pid %" PRId64 " (%s): %" PRIu64 " rclcpp_callback_register without "
				  "the *_callback_added record of its callback (a node or topic filter "
				  "keeps the callbacks of timers and services whose records it drops, "
				  "as caret_trace does)",
				  p->vpid, p->procname, p->filtered_registers);
		if (p->both_variants)
			rc |= add(f->problems,
				  "pid %" PRId64 " (%s): %" PRIu64 " init records both as ros2: and "
				  "ros2_caret: (the analyzer sees two objects)",
				  p->vpid, p->procname, p->both_variants);
		/* At a trace's edges a publish or take is naturally cut off: these
		 * are reported, not counted against completeness. */
		if (p->unbound_publishes)
			rc |= add(f->warnings,
				  "pid %" PRId64 " (%s): %" PRIu64 " of %" PRIu64 " dds_write without "
				  "dds_bind_addr_to_stamp on the same thread",
				  p->vpid, p->procname, p->unbound_publishes, p->publishes);
		if (p->unmatched_bindings)
			rc |= add(f->warnings,
				  "pid %" PRId64 " (%s): %" PRIu64 " of %" PRIu64 " source-timestamp "
				  "bindings without a matching rmw_take",
				  p->vpid, p->procname, p->unmatched_bindings, p->bindings);
	}
	/* Processes that replayed their records (caret_init and some init
	 * records) but no node, or nodes but no topic: what a SELECT list that
	 * matched nothing leaves (issue 33 F2), silently in caret_trace too.
	 * The trace holds what the filter asked for: a warning, not a problem
	 * (caret_analyze loads it, with nothing in its architecture). */
	size_t replayed = 0;
	for (size_t i = 0; i < r->nprocs; i++)
		replayed += r->procs[i].caret_init && r->procs[i].init_total;
	if (replayed && !r->nnodes)
		rc |= add(f->warnings,
			  "no node in the trace, though %zu process(es) replayed their init records: "
			  "all their nodes were left out (a --select-nodes or CARET_SELECT_NODES "
			  "that matched none?)",
			  replayed);
	else if (replayed && !r->ntopics)
		rc |= add(f->warnings,
			  "no publisher or subscription in the trace, though it has %zu node(s): "
			  "all were left out (a --select-topics or CARET_SELECT_TOPICS that matched "
			  "none?)",
			  r->nnodes);
	return rc;
}

/* 64-bit counts and nanoseconds as JSON integers, never through a double
 * (cJSON's numbers are doubles: 2^53 and up would be rounded). */
static bool ju64(cJSON *o, const char *k, uint64_t v)
{
	char b[24];
	snprintf(b, sizeof(b), "%" PRIu64, v);
	return cJSON_AddRawToObject(o, k, b) != NULL;
}

static bool ji64(cJSON *o, const char *k, int64_t v)
{
	char b[24];
	snprintf(b, sizeof(b), "%" PRId64, v);
	return cJSON_AddRawToObject(o, k, b) != NULL;
}

static cJSON *proc_json(const struct check_proc *p)
{
	cJSON *o = cJSON_CreateObject(), *init = cJSON_CreateObject(), *dup = cJSON_CreateObject(),
	      *miss = cJSON_CreateObject();
	if (!o || !init || !dup || !miss) {
		cJSON_Delete(o);
		cJSON_Delete(init);
		cJSON_Delete(dup);
		cJSON_Delete(miss);
		return NULL;
	}
	bool ok = ji64(o, "pid", p->vpid) && cJSON_AddStringToObject(o, "procname", p->procname) &&
		  cJSON_AddBoolToObject(o, "caret_init", p->caret_init);
	for (size_t k = 0; check_kind_name(k); k++) {
		if (p->init[k])
			ok = ok && ju64(init, check_kind_name(k), p->init[k]);
		if (p->dup[k])
			ok = ok && ju64(dup, check_kind_name(k), p->dup[k]);
	}
	for (size_t k = 0; check_link_name(k); k++)
		if (p->missing[k])
			ok = ok && ju64(miss, check_link_name(k), p->missing[k]);
	cJSON_AddItemToObject(o, "init_records", init);
	cJSON_AddItemToObject(o, "duplicates", dup);
	cJSON_AddItemToObject(o, "missing", miss);
	ok = ok && ju64(o, "init_total", p->init_total) &&
	     ju64(o, "duplicates_total", p->dup_total) &&
	     ju64(o, "missing_total", p->missing_total) &&
	     ju64(o, "both_variants", p->both_variants) &&
	     ju64(o, "filtered_registers", p->filtered_registers) && ju64(o, "runtime_events", p->runtime) &&
	     ju64(o, "replay_passes", p->passes) && ju64(o, "replay_passes_whole", p->passes_whole) &&
	     cJSON_AddBoolToObject(o, "replay_cut", check_pass_cut(p)) &&
	     ju64(o, "events", p->events) && ju64(o, "publishes", p->publishes) &&
	     ju64(o, "unbound_publishes", p->unbound_publishes) &&
	     ju64(o, "bindings", p->bindings) &&
	     ju64(o, "unmatched_bindings", p->unmatched_bindings);
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static int print_json(const char *dir, const struct check_report *r, struct findings *f,
		      bool complete)
{
	cJSON *o = cJSON_CreateObject(), *procs = cJSON_CreateArray(), *nodes = cJSON_CreateArray(),
	      *topics = cJSON_CreateArray(), *evs = cJSON_CreateObject();
	int rc = -ENOMEM;
	if (!o || !procs || !nodes || !topics || !evs ||
	    !cli_json_envelope(o, CARET_CTL_T_RESULT, "check"))
		goto out;
	cJSON_AddStringToObject(o, "trace", dir);
	cJSON_AddBoolToObject(o, "complete", complete);
	cJSON_AddItemToObject(o, "problems", f->problems);
	cJSON_AddItemToObject(o, "warnings", f->warnings);
	cJSON_AddItemToObject(o, "notes", f->notes);
	f->problems = f->warnings = f->notes = NULL;
	if (!ju64(o, "events", r->events) || !ji64(o, "first_ns", r->first_ns) ||
	    !ji64(o, "last_ns", r->last_ns) || !ju64(o, "discarded_events", r->discarded_events) ||
	    !cJSON_AddBoolToObject(o, "discarded_events_unknown", r->discarded_unknown != 0) ||
	    !ju64(o, "lost_packets", r->lost_packets) ||
	    !cJSON_AddBoolToObject(o, "lost_packets_unknown", r->lost_unknown != 0))
		goto out;
	cJSON *noctx = cJSON_AddObjectToObject(o, "events_without_context");
	for (size_t i = 0; i < CHECK_NCTX; i++)
		if (!noctx || !ju64(noctx, check_ctx_name(i), r->no_context[i]))
			goto out;
	for (size_t i = 0; i < r->nprocs; i++) {
		cJSON *p = proc_json(&r->procs[i]);
		if (!p)
			goto out;
		cJSON_AddItemToArray(procs, p);
	}
	for (size_t i = 0; i < r->nnodes; i++) {
		cJSON *n = cJSON_CreateObject();
		if (!n)
			goto out;
		cJSON_AddItemToArray(nodes, n);
		if (!cJSON_AddStringToObject(n, "name", r->nodes[i].name) ||
		    !ji64(n, "pid", r->nodes[i].vpid))
			goto out;
	}
	for (size_t i = 0; i < r->ntopics; i++) {
		cJSON *t = cJSON_CreateObject();
		if (!t)
			goto out;
		cJSON_AddItemToArray(topics, t);
		if (!cJSON_AddStringToObject(t, "name", r->topics[i].name) ||
		    !ju64(t, "publishers", r->topics[i].publishers) ||
		    !ju64(t, "subscriptions", r->topics[i].subscriptions))
			goto out;
	}
	for (size_t i = 0; i < r->nevcounts; i++)
		if (!ju64(evs, r->evcounts[i].name, r->evcounts[i].count))
			goto out;
	cJSON_AddItemToObject(o, "processes", procs);
	cJSON_AddItemToObject(o, "nodes", nodes);
	cJSON_AddItemToObject(o, "topics", topics);
	cJSON_AddItemToObject(o, "events_per_kind", evs);
	procs = nodes = topics = evs = NULL;
	char *s = cJSON_PrintUnformatted(o);
	if (s) {
		printf("%s\n", s);
		free(s);
		rc = 0;
	}
out:
	cJSON_Delete(o);
	cJSON_Delete(procs);
	cJSON_Delete(nodes);
	cJSON_Delete(topics);
	cJSON_Delete(evs);
	return rc;
}

static void print_list(const char *title, const cJSON *arr)
{
	const cJSON *s;
	if (cJSON_GetArraySize(arr) == 0)
		return;
	printf("%s:\n", title);
	cJSON_ArrayForEach(s, arr) printf("  - %s\n", s->valuestring);
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
	print_list("problems", f->problems);
	print_list("warnings", f->warnings);
	print_list("notes", f->notes);
	if (complete)
		printf("complete\n");
	else
		printf("INCOMPLETE: %d problem(s)\n", cJSON_GetArraySize(f->problems));
}

int cmd_check(struct cli_opts *g, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "timeout", required_argument, NULL, 'T' },
		CLI_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	int64_t timeout_ms = CHECK_DEFAULT_TIMEOUT_MS;
	int opt;
	optind = 0;
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (opt == 'h') {
			usage(cli_help_out(), "check");
			return cli_help_done("check");
		}
		if (opt == 'T') {
			if (cli_parse_timeout(optarg, &timeout_ms) < 0)
				return cli_usage_error("check", "invalid --timeout '%s': a "
						       "duration (" CLI_DURATION_SYNTAX ") > 0 "
						       "expected", optarg);
			continue;
		}
		if (cli_common_opt(g, opt, optarg) < 0)
			return cli_bad_option("check", argv[optind - 1]);
	}
	if (optind >= argc)
		return cli_usage_error("check", "no trace directory given");
	if (optind + 1 < argc)
		return cli_usage_error("check", "unexpected argument '%s'", argv[optind + 1]);
	const char *dir = argv[optind];

	struct check_report rep;
	char err[1024] = "";
	int rc = check_run_isolated(dir, timeout_ms, &rep, err, sizeof(err));
	if (rc < 0) {
		cli_set_errno(rc);
		return cli_fail(CLI_EXIT_FAILED, "check: %s", err);
	}
	const struct check_report *r = &rep;
	struct findings f = { cJSON_CreateArray(), cJSON_CreateArray(), cJSON_CreateArray() };
	if (!f.problems || !f.warnings || !f.notes || judge(r, &f) < 0) {
		rc = -ENOMEM;
	} else {
		bool complete = cJSON_GetArraySize(f.problems) == 0;
		if (g->json)
			rc = print_json(dir, r, &f, complete);
		else
			print_text(dir, r, &f, complete);
		if (rc == 0)
			rc = complete ? CLI_EXIT_OK : CLI_EXIT_INCOMPLETE;
	}
	cJSON_Delete(f.problems);
	cJSON_Delete(f.warnings);
	cJSON_Delete(f.notes);
	check_wire_free(&rep);
	return rc == -ENOMEM ? cli_fail(CLI_EXIT_FAILED, "out of memory") : rc;
}
