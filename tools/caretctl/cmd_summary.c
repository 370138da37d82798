/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `caretctl node-summary|topic-summary|trace-point-summary TRACE_DIR`:
 * ros2caret's `ros2 caret node_summary`, `topic_summary` and
 * `trace_point_summary` (ros2caret/verb/summary.py) without caret_analyze:
 * the trace's range, then the number of trace points per node, per topic
 * or per trace point, most first, as caret_analyze's EventCounter counts
 * them (check_summary.h). The trace is read by `check`'s reader
 * (check_run.c), in a child process with a deadline.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "caretctl.h"
#include "check.h"
#include "check_cli.h"
#include "check_wire.h"
#include "json_out.h"
#include "parse.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_summary.h"

enum by { BY_NODE, BY_TOPIC, BY_TP };

static const struct {
	const char *cmd, *verb, *column, *what;
} by[] = {
	[BY_NODE] = { "node-summary", "node_summary", "node_name",
		      "Per node: the events of its callbacks, publishers and subscriptions\n"
		      "(their init records and runtime events); events joined to no node\n"
		      "(rcl_node_init, timers, executors, dds_write...) are not counted.\n" },
	[BY_TOPIC] = { "topic-summary", "topic_summary", "topic_name",
		       "Per topic: the events of its publishers, subscriptions and their\n"
		       "callbacks; events joined to no topic are not counted.\n" },
	[BY_TP] = { "trace-point-summary", "trace_point_summary", "trace_point",
		    "Per trace point caret_analyze reads, 0 included.\n" },
};

static void usage(FILE *f, enum by b)
{
	fprintf(f,
		"Usage: caretctl %s [--json] [--timeout DURATION] TRACE_DIR\n"
		"       caretctl %s ...\n"
		"What `ros2 caret %s` prints, without caret_analyze: the trace's\n"
		"creation time (its first event's), range and duration, then the\n"
		"number of trace points, most first.\n"
		"%s"
		"Counted as caret_analyze counts them: an init record once whatever\n"
		"its copies, under its ros2: name; a process's runtime events only\n"
		"after its caret_init. Kept apart from caret_analyze 0.7: each\n"
		"*_callback_added record counts once, under its own name (caret_analyze\n"
		"counts the three kinds' sum under each name). ros2caret's\n"
		"--duration_filter, --strip_filter and -c are not offered. caretd is\n"
		"not needed.\n\n"
		"      --json              one JSON object on stdout: {\"rows\": [{\"%s\":\n"
		"                          NAME, \"number_of_trace_points\": N}...]}, exact\n"
		"                          integers\n"
		"      --timeout DURATION  give up reading the trace after DURATION (default\n"
		"                          60 s; babeltrace2 reads it in a child process)\n"
		"  -h, --help              this help\n\n"
		"Exit status: 0 success, 1 the trace cannot be read (no such directory,\n"
		"unreadable, not a CTF trace, or not read within --timeout), 2 usage error.\n",
		by[b].cmd, by[b].verb, by[b].verb, by[b].what, by[b].column);
}

static void rows_of(const struct check_report *r, enum by b, const struct check_evcount **rows,
		    size_t *n)
{
	*rows = b == BY_NODE ? r->node_events : b == BY_TOPIC ? r->topic_events : r->tracepoints;
	*n = b == BY_NODE ? r->nnode_events : b == BY_TOPIC ? r->ntopic_events : r->ntracepoints;
}

static int print_json(const char *dir, const struct check_report *r, enum by b)
{
	const struct check_evcount *rows;
	size_t n;
	rows_of(r, b, &rows, &n);
	struct caret_ctl_summary s = { .trace = dir, .group_by = by[b].column,
				       .events = r->events, .first_ns = r->first_ns,
				       .last_ns = r->last_ns, .n_rows = n };
	if (n && !(s.rows = calloc(n, sizeof(*s.rows))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		s.rows[i] = (struct caret_ctl_summary_row){ rows[i].name, rows[i].count };
	int rc = cli_json_print_summary(&s, by[b].cmd);
	free(s.rows);
	return rc;
}

/* A time in ns since the epoch as fmt in local time, as ros2caret's. */
static void local(int64_t ns, const char *fmt, char *buf, size_t len)
{
	time_t t = (time_t)(ns / 1000000000);
	struct tm tm;
	if (!localtime_r(&t, &tm) || !strftime(buf, len, fmt, &tm))
		snprintf(buf, len, "?");
}

static void print_text(const struct check_report *r, enum by b)
{
	const struct check_evcount *rows;
	size_t n;
	rows_of(r, b, &rows, &n);
	static const char num[] = "number_of_trace_points";
	char from[16], to[16], created[32];
	local(r->first_ns, "%H:%M:%S", from, sizeof(from));
	local(r->last_ns, "%H:%M:%S", to, sizeof(to));
	/* caret_analyze's creation time is its first event's */
	local(r->first_ns, "%Y-%m-%d %H:%M:%S", created, sizeof(created));
	int64_t d = r->events ? (r->last_ns - r->first_ns) / 1000000000 : 0;
	printf("=============================================\n");
	printf("Trace creation datetime | %s\n", r->events ? created : "-");
	printf("Trace range             | %s ~ %s\n", r->events ? from : "-",
	       r->events ? to : "-");
	printf("Trace duration          | %" PRId64 ":%02" PRId64 ":%02" PRId64 "\n", d / 3600,
	       d / 60 % 60, d % 60);
	printf("=============================================\n\n");
	/* tabulate's "presto" table, as ros2caret prints it */
	size_t w1 = strlen(by[b].column), w2 = strlen(num);
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(rows[i].name);
		w1 = l > w1 ? l : w1;
	}
	printf(" %-*s | %*s\n", (int)w1, by[b].column, (int)w2, num);
	for (size_t i = 0; i < w1 + 2; i++)
		putchar('-');
	putchar('+');
	for (size_t i = 0; i < w2 + 2; i++)
		putchar('-');
	putchar('\n');
	for (size_t i = 0; i < n && !cli_out_cut(); i++)
		printf(" %-*s | %*" PRIu64 "\n", (int)w1, rows[i].name, (int)w2, rows[i].count);
}

static int run(struct cli_opts *g, enum by b, int argc, char **argv)
{
	struct check_report rep;
	const char *dir = NULL;
	cli_msg_cmd(by[b].cmd);
	int code = check_cli_read(g, by[b].cmd, "one trace directory, not also", argc, argv,
				  &rep, &dir);
	if (code == CHECK_CLI_HELP) {
		usage(cli_help_out(), b);
		return cli_help_done(by[b].cmd);
	}
	if (code != CHECK_CLI_READ)
		return code;
	int rc = 0;
	if (g->json)
		rc = print_json(dir, &rep, b);
	else
		print_text(&rep, b);
	check_wire_free(&rep);
	return rc < 0 ? cli_fail(CLI_EXIT_FAILED, "out of memory") : CLI_EXIT_OK;
}

int cmd_node_summary(struct cli_opts *g, int argc, char **argv)
{
	return run(g, BY_NODE, argc, argv);
}

int cmd_topic_summary(struct cli_opts *g, int argc, char **argv)
{
	return run(g, BY_TOPIC, argc, argv);
}

int cmd_trace_point_summary(struct cli_opts *g, int argc, char **argv)
{
	return run(g, BY_TP, argc, argv);
}
