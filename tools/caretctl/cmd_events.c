/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `caretctl events`: what the caches hold, without recording: the init
 * records of every agent on this host, merged in time order by caretd.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caretctl.h"
#include "json_out.h"
#include "events_fetch.h"
#include "proto/caret_ctl.h"
#include "proto/caret_segment.h"

static void usage(FILE *f, const char *cmd)
{
	(void)cmd;
	fprintf(f,
		"Usage: caretctl events [--since T] [--until T] [--count N] [--after TOKEN]\n"
		"                       [--pid P]... [--kind K]... [--json]\n"
		"Print the initialization records cached by the agents of this host,\n"
		"merged in (init_timestamp, pid, start time, record index) order: one\n"
		"line per record, \"TIMESTAMP PID PROCNAME KIND field=value...\". The\n"
		"position after the last record is printed on stderr as \"next: TOKEN\".\n\n"
		"      --since T      records with init_timestamp >= T (CLOCK_MONOTONIC ns)\n"
		"      --until T      records with init_timestamp < T\n"
		"      --count N      stop after N records (plus the ones sharing the last\n"
		"                     one's timestamp); default: all\n"
		"      --after TOKEN  continue after the position TOKEN (a \"next\" of an\n"
		"                     earlier call); replaces --since\n"
		"      --pid P        only process P (repeatable)\n"
		"      --kind K       only records of kind K, e.g. rcl_node_init (repeatable)\n"
		"      --json         caretd's result objects, one JSON line per page\n"
		"      --socket PATH  caretd's control socket\n"
		"  -h, --help         this help\n\n"
		"Exit status: 0 success, 1 caretd failed (e.g. TOKEN names a vanished\n"
		"process), 2 usage error, 3 caretd not reachable, 5 malformed reply.\n");
}

static int parse_i64(const char *s, int64_t min, int64_t *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < min)
		return -EINVAL;
	*out = v;
	return 0;
}

static int print_event(const struct ctl_event *e, void *arg)
{
	(void)arg;
	printf("%" PRId64 " %" PRId64 " %s %s", e->ts, e->pid, e->procname, e->kind);
	const char *name, *s;
	double num;
	for (size_t i = 0; ctl_event_field(e, i, &name, &s, &num); i++) {
		if (s)
			printf(" %s=%s", name, s);
		else
			printf(" %s=%.0f", name, num);
	}
	putchar('\n');
	return cli_out_cut();
}

enum { O_SINCE = 0x2000, O_UNTIL, O_COUNT, O_AFTER, O_PID, O_KIND };


/* The kinds proto/caret_segment.h defines: an unknown one is a usage error here,
 * before caretd is asked (D11). */
static bool known_kind(const char *name)
{
#define CARET_KIND_NAME_(id, kname, ...) #kname,
	static const char *const names[] = { CARET_KINDS(CARET_KIND_NAME_) };
#undef CARET_KIND_NAME_
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(names[i], name) == 0)
			return true;
	return false;
}

int cmd_events(struct cli_opts *g, int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_COMMON_LONGOPTS,
		{ "since", required_argument, NULL, O_SINCE },
		{ "until", required_argument, NULL, O_UNTIL },
		{ "count", required_argument, NULL, O_COUNT },
		{ "after", required_argument, NULL, O_AFTER },
		{ "pid", required_argument, NULL, O_PID },
		{ "kind", required_argument, NULL, O_KIND },
		{ NULL, 0, NULL, 0 },
	};
	static struct caret_ctl_events_req q;
	struct cli_fetch f = { 0 };
	int64_t v;
	int opt;
	memset(&q, 0, sizeof(q));
	optind = 0;
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			usage(cli_help_out(), "events");
			return cli_help_done("events");
		case O_SINCE:
		case O_UNTIL:
			if (parse_i64(optarg, INT64_MIN, &v) < 0)
				return cli_usage_error("events", "%s needs a time in ns, not '%s'",
						       opt == O_SINCE ? "--since" : "--until", optarg);
			if (opt == O_SINCE)
				q.has_since = true, q.since = v;
			else
				q.has_until = true, q.until = v;
			break;
		case O_COUNT:
			if (parse_i64(optarg, 1, &v) < 0)
				return cli_usage_error("events", "--count needs a positive number");
			f.limit = (uint64_t)v;
			break;
		case O_AFTER:
			q.after = optarg;
			break;
		case O_PID:
			if (parse_i64(optarg, 1, &v) < 0 || v > INT32_MAX)
				return cli_usage_error("events", "--pid needs a process id");
			if (q.npids == CARET_CTL_EVENTS_MAX_FILTER)
				return cli_usage_error("events", "too many --pid");
			q.pids[q.npids++] = v;
			break;
		case O_KIND:
			if (!known_kind(optarg))
				return cli_usage_error("events", "unknown kind '%s' (caretctl events "
						       "--help lists them)", optarg);
			if (q.nkinds == CARET_CTL_EVENTS_MAX_FILTER)
				return cli_usage_error("events", "too many --kind");
			q.kinds[q.nkinds++] = optarg;
			break;
		default:
			if (cli_common_opt(g, opt, optarg) < 0)
				return cli_bad_option("events", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error("events", "unexpected argument '%s'", argv[optind]);
	f.raw = g->json;
	int code = cli_events_fetch(g, &q, &f, g->json ? NULL : print_event, NULL);
	if (code != CLI_EXIT_OK)
		return code;
	/* a reader gone: the position after what it never read would mislead */
	fflush(stdout);
	if (cli_out_cut())
		return CLI_EXIT_OK;
	if (f.corrupt)
		cli_warn("%" PRId64 " caches are corrupted: only their records before the "
			 "damage are shown", f.corrupt);
	if (f.late)
		cli_warn("%" PRId64 " records arrived behind caretd's read position (their "
			 "writer stalled): read again from the start to see them", f.late);
	fprintf(stderr, "next: %s\n", f.next);
	return CLI_EXIT_OK;
}
