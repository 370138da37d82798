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
#include "check.h"
#include "check_wire.h"
#include "parse.h"

static void usage(FILE *f, const char *cmd)
{
	(void)cmd;
	fprintf(f,
		"Usage: caretctl check [--json] [--timeout SEC] TRACE_DIR\n"
		"Check an LTTng trace (recorded with caretd, CARET or ros2_tracing) for what\n"
		"CARET's analyzer needs: caret_init and init records of every process,\n"
		"duplicate init records, runtime events of processes without init data,\n"
		"discarded events, lost packets, publishes without a DDS source-timestamp\n"
		"binding and bindings without a matching take; then a summary (processes,\n"
		"nodes, topics, events per kind). caretd is not needed.\n\n"
		"      --json         one JSON object on stdout\n"
		"      --timeout SEC  give up reading the trace after SEC seconds\n"
		"                     (default 60; babeltrace2 reads it in a child process)\n"
		"  -h, --help         this help\n\n"
		"Exit status: 0 complete, 1 the trace cannot be read (or not within\n"
		"--timeout), 2 usage error,\n"
		"6 incomplete (each problem is listed).\n");
}

struct findings {
	cJSON *problems, *warnings; /* arrays of strings */
};

static int add(cJSON *arr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int add(cJSON *arr, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	cJSON *s = cJSON_CreateString(buf);
	return s && cJSON_AddItemToArray(arr, s) ? 0 : -ENOMEM;
}

static void dup_kinds(const struct check_proc *p, char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = 0;
	for (size_t k = 0; check_kind_name(k) && off < len; k++)
		if (p->dup[k])
			off += (size_t)snprintf(buf + off, len - off, "%s%s=%" PRIu64, off ? " " : "",
						check_kind_name(k), p->dup[k]);
}

static int judge(const struct check_report *r, struct findings *f)
{
	int rc = 0;
	char kinds[256];
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
	for (size_t i = 0; i < r->nprocs; i++) {
		const struct check_proc *p = &r->procs[i];
		if (p->runtime && !p->caret_init)
			rc |= add(f->problems,
				  "pid %" PRId64 " (%s): %" PRIu64 " runtime events but no "
				  "ros2_caret:caret_init (the analyzer drops them)",
				  p->vpid, p->procname, p->runtime);
		if (p->runtime && !p->init_total)
			rc |= add(f->problems,
				  "pid %" PRId64 " (%s): %" PRIu64 " runtime events but no init "
				  "records (its nodes, publishers, callbacks are unknown)",
				  p->vpid, p->procname, p->runtime);
		if (p->dup_total) {
			dup_kinds(p, kinds, sizeof(kinds));
			rc |= add(f->problems,
				  "pid %" PRId64 " (%s): %" PRIu64 " duplicate init records (%s)",
				  p->vpid, p->procname, p->dup_total, kinds);
		}
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
	return rc;
}

static cJSON *proc_json(const struct check_proc *p)
{
	cJSON *o = cJSON_CreateObject(), *init = cJSON_CreateObject(), *dup = cJSON_CreateObject();
	if (!o || !init || !dup) {
		cJSON_Delete(o);
		cJSON_Delete(init);
		cJSON_Delete(dup);
		return NULL;
	}
	cJSON_AddNumberToObject(o, "pid", (double)p->vpid);
	cJSON_AddStringToObject(o, "procname", p->procname);
	cJSON_AddBoolToObject(o, "caret_init", p->caret_init);
	for (size_t k = 0; check_kind_name(k); k++) {
		if (p->init[k])
			cJSON_AddNumberToObject(init, check_kind_name(k), (double)p->init[k]);
		if (p->dup[k])
			cJSON_AddNumberToObject(dup, check_kind_name(k), (double)p->dup[k]);
	}
	cJSON_AddItemToObject(o, "init_records", init);
	cJSON_AddNumberToObject(o, "init_total", (double)p->init_total);
	cJSON_AddItemToObject(o, "duplicates", dup);
	cJSON_AddNumberToObject(o, "duplicates_total", (double)p->dup_total);
	cJSON_AddNumberToObject(o, "both_variants", (double)p->both_variants);
	cJSON_AddNumberToObject(o, "runtime_events", (double)p->runtime);
	cJSON_AddNumberToObject(o, "events", (double)p->events);
	cJSON_AddNumberToObject(o, "publishes", (double)p->publishes);
	cJSON_AddNumberToObject(o, "unbound_publishes", (double)p->unbound_publishes);
	cJSON_AddNumberToObject(o, "bindings", (double)p->bindings);
	cJSON_AddNumberToObject(o, "unmatched_bindings", (double)p->unmatched_bindings);
	return o;
}

static int print_json(const char *dir, const struct check_report *r, struct findings *f,
		      bool complete)
{
	cJSON *o = cJSON_CreateObject(), *procs = cJSON_CreateArray(), *nodes = cJSON_CreateArray(),
	      *topics = cJSON_CreateArray(), *evs = cJSON_CreateObject();
	int rc = -ENOMEM;
	if (!o || !procs || !nodes || !topics || !evs)
		goto out;
	cJSON_AddStringToObject(o, "trace", dir);
	cJSON_AddBoolToObject(o, "complete", complete);
	cJSON_AddItemToObject(o, "problems", f->problems);
	cJSON_AddItemToObject(o, "warnings", f->warnings);
	f->problems = f->warnings = NULL;
	cJSON_AddNumberToObject(o, "events", (double)r->events);
	cJSON_AddNumberToObject(o, "first_ns", (double)r->first_ns);
	cJSON_AddNumberToObject(o, "last_ns", (double)r->last_ns);
	cJSON_AddNumberToObject(o, "discarded_events", (double)r->discarded_events);
	cJSON_AddBoolToObject(o, "discarded_events_unknown", r->discarded_unknown != 0);
	cJSON_AddNumberToObject(o, "lost_packets", (double)r->lost_packets);
	cJSON_AddBoolToObject(o, "lost_packets_unknown", r->lost_unknown != 0);
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
		cJSON_AddStringToObject(n, "name", r->nodes[i].name);
		cJSON_AddNumberToObject(n, "pid", (double)r->nodes[i].vpid);
		cJSON_AddItemToArray(nodes, n);
	}
	for (size_t i = 0; i < r->ntopics; i++) {
		cJSON *t = cJSON_CreateObject();
		if (!t)
			goto out;
		cJSON_AddStringToObject(t, "name", r->topics[i].name);
		cJSON_AddNumberToObject(t, "publishers", (double)r->topics[i].publishers);
		cJSON_AddNumberToObject(t, "subscriptions", (double)r->topics[i].subscriptions);
		cJSON_AddItemToArray(topics, t);
	}
	for (size_t i = 0; i < r->nevcounts; i++)
		cJSON_AddNumberToObject(evs, r->evcounts[i].name, (double)r->evcounts[i].count);
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
	if (complete)
		printf("complete\n");
	else
		printf("INCOMPLETE: %d problem(s)\n", cJSON_GetArraySize(f->problems));
}

int cmd_check(struct ctl_opts *g, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "timeout", required_argument, NULL, 'T' },
		CTL_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	int64_t timeout_ms = CHECK_DEFAULT_TIMEOUT_MS;
	int opt;
	optind = 0;
	while ((opt = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		if (opt == 'h') {
			usage(stdout, "check");
			return CTL_EXIT_OK;
		}
		if (opt == 'T') {
			if (ctl_parse_seconds(optarg, &timeout_ms) < 0 || timeout_ms <= 0)
				return ctl_usage_error("check", "invalid --timeout '%s': seconds "
						       "> 0 expected", optarg);
			continue;
		}
		if (ctl_common_opt(g, opt, optarg) < 0)
			return ctl_bad_option("check", argv[optind - 1]);
	}
	if (optind >= argc)
		return ctl_usage_error("check", "no trace directory given");
	if (optind + 1 < argc)
		return ctl_usage_error("check", "unexpected argument '%s'", argv[optind + 1]);
	const char *dir = argv[optind];

	struct check_report rep;
	char err[1024] = "";
	int rc = check_run_isolated(dir, timeout_ms, &rep, err, sizeof(err));
	if (rc < 0) {
		ctl_set_errno(rc);
		return ctl_fail(CTL_EXIT_FAILED, "check: %s", err);
	}
	const struct check_report *r = &rep;
	struct findings f = { cJSON_CreateArray(), cJSON_CreateArray() };
	if (!f.problems || !f.warnings || judge(r, &f) < 0) {
		rc = -ENOMEM;
	} else {
		bool complete = cJSON_GetArraySize(f.problems) == 0;
		if (g->json)
			rc = print_json(dir, r, &f, complete);
		else
			print_text(dir, r, &f, complete);
		if (rc == 0)
			rc = complete ? CTL_EXIT_OK : CTL_EXIT_INCOMPLETE;
	}
	cJSON_Delete(f.problems);
	cJSON_Delete(f.warnings);
	check_wire_free(&rep);
	return rc == -ENOMEM ? ctl_fail(CTL_EXIT_FAILED, "out of memory") : rc;
}
