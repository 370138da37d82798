/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `caretctl snapshot [RECORDING] [-o DIR]`: caretd makes every process
 * replay its initialization records into the flight recorder's ring, then
 * writes the ring as a trace (caretctl(1), SNAPSHOTS); and `record`'s
 * --snapshot options.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "caretctl.h"
#include "json_out.h"
#include "conn.h"
#include "parse.h"
#include "progress.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_dec.h"
#include "proto/caret_ctl_limits.h"
#include "proto/caret_ctl_recordings.h"
#include "proto/caret_ctl_req.h"
#include "proto/caret_ctl_snapshot.h"
#include "proto/caret_ctl_snapshot_res.h"
#include "rpc.h"
#include "snapshot_cli.h"

int cli_snapshot_opt(int opt, const char *arg, struct cli_snapshot_opts *o, int *code)
{
	char why[160];
	switch (opt) {
	case CLI_OPT_SNAPSHOT:
		if (!o->size)
			o->size = CARET_CTL_SNAPSHOT_SIZE_DEFAULT;
		return 1;
	case CLI_OPT_SNAPSHOT_SIZE:
		cli_size_opt("--snapshot-size", arg, caret_ctl_check_snapshot_size, &o->size, code);
		return 1;
	case CLI_OPT_SNAPSHOT_ON:
		if (caret_ctl_check_snapshot_on(arg, why, sizeof(why)) < 0) {
			*code = cli_usage_error("record", "invalid --snapshot-on '%s': %s", arg, why);
			return 1;
		}
		o->on = arg;
		if (!o->size)
			o->size = CARET_CTL_SNAPSHOT_SIZE_DEFAULT;
		return 1;
	case CLI_OPT_SNAPSHOT_FILTER:
		if (caret_ctl_check_snapshot_filter(arg, why, sizeof(why)) < 0)
			*code = cli_usage_error("record", "invalid --snapshot-filter '%s': %s", arg,
						why);
		else
			o->filter = arg;
		return 1;
	default:
		return 0;
	}
}

int cli_snapshot_check(const struct cli_snapshot_opts *o)
{
	if (o->filter && !o->on)
		return cli_usage_error("record", "--snapshot-filter narrows --snapshot-on: give "
				       "the event too");
	return 0;
}

void cli_snapshot_usage(FILE *f)
{
	fprintf(f,
		"      --snapshot              a flight recorder: the events stay in an\n"
		"                              in-memory ring (overwrite mode), nothing is\n"
		"                              written until 'caretctl snapshot'\n"
		"      --snapshot-size SIZE    the ring's bytes per CPU (K/M/G, %lluK to %lluG,\n"
		"                              rounded down to a power of two; default\n"
		"                              %lluM); implies --snapshot. Refused when\n"
		"                              smaller than a replay of every process's\n"
		"                              initialization records needs\n"
		"      --snapshot-on EVENT     also take a snapshot (as 'caretctl snapshot'\n"
		"                              does) whenever the user-space event EVENT\n"
		"                              (provider:event, no wildcard) is emitted: an\n"
		"                              LTTng trigger; at most one a second, one at a\n"
		"                              time; implies --snapshot\n"
		"      --snapshot-filter EXPR  only when EXPR (LTTng's filter syntax) holds\n",
		CARET_CTL_SNAPSHOT_SIZE_MIN >> 10, CARET_CTL_SNAPSHOT_SIZE_MAX >> 30,
		CARET_CTL_SNAPSHOT_SIZE_DEFAULT >> 20);
}

static void print_snapshots(const struct caret_ctl_recording_status *r)
{
	if (r->ring_size > 0)
		printf(", ring %llu bytes per CPU", (unsigned long long)r->ring_size);
	printf(", %llu snapshot%s written", (unsigned long long)r->snapshots,
	       r->snapshots == 1 ? "" : "s");
	if (r->last_snapshot)
		printf(", the last in %.1024s", r->last_snapshot);
	if (r->snapshot_on)
		printf("; on %.256s%s%.1024s: fired %llu times, %llu coalesced", r->snapshot_on,
		       r->snapshot_filter ? " if " : "", r->snapshot_filter ? r->snapshot_filter : "",
		       (unsigned long long)r->triggered, (unsigned long long)r->coalesced);
}

bool cli_snapshot_is(const struct caret_ctl_recordings *rec)
{
	return rec->have_self && !strcmp(rec->self.mode, CARET_CTL_MODE_SNAPSHOT);
}

bool cli_snapshot_unwritten(const struct caret_ctl_recordings *rec)
{
	return cli_snapshot_is(rec) && rec->self.have_snapshots && rec->self.snapshots == 0;
}

void cli_snapshot_print(const struct caret_ctl_recordings *rec)
{
	if (cli_snapshot_is(rec)) { /* a stop result */
		printf("flight recorder");
		print_snapshots(&rec->self);
		printf("; stopping it wrote nothing more\n");
	}
	if (rec->n_recordings > 0)
		printf("recordings:\n");
	for (size_t i = 0; i < rec->n_recordings; i++) {
		const struct caret_ctl_recording_status *r = &rec->recordings[i];
		printf("  %.256s: %s%s%s, %.1024s", r->session, r->mode,
		       r->paused ? ", paused (caretctl resume)" : "",
		       r->held ? ", held (its caretctl record running: stopped if it is killed)"
			       : "",
		       r->path);
		if (!strcmp(r->mode, CARET_CTL_MODE_SNAPSHOT))
			print_snapshots(r);
		printf("\n");
	}
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: caretctl snapshot [OPTIONS] [RECORDING]\n"
		"Write the last moments of a flight recorder ('caretctl record --snapshot')\n"
		"as a complete CARET trace: caretd makes every process replay its\n"
		"initialization records into the recording's ring, waits until each one\n"
		"did, then LTTng writes the ring. RECORDING: default your latest recording.\n\n"
		"  -o, --output DIR     where the snapshot goes (default: the recording's\n"
		"                       trace directory); created with your rights\n"
		"      --timeout DURATION longest wait for the replay (default %d); the\n"
		"                       snapshot is written then anyway, named incomplete\n"
		"      --all-hosts      also every other host's flight recorder of the same\n"
		"                       name, over the DDS bridge: each caretd takes its own\n"
		"                       snapshot at once, into its recording's directory\n"
		"                       (-o is this host's only); one line per host\n"
		"      --json           the result as a JSON line\n"
		"      --socket PATH    caretd's control socket\n"
		"  -h, --help           this help\n\n"
		"Prints the snapshot's directory (LTTng names it snapshot-N-DATE-TIME-K);\n"
		"'caretctl check DIR' reads it.\n\n"
		"Exit status: 0 written, complete (--all-hosts: on every host); 1 caretd\n"
		"or LTTng failed (no such recording, not a flight recorder...; --all-hosts:\n"
		"on some host, or it did not answer); 2 usage error; 3 caretd not\n"
		"reachable; 4 written, but it may lack some process's initialization\n"
		"records (the message says why); 5 malformed reply.\n",
		CARET_CTL_DEFAULT_TIMEOUT_MS / 1000);
}

/* --all-hosts: one line per host; the exit status of the worst. */
static int print_hosts(const struct caret_ctl_snapshot_result *res, struct cli_reply *r, bool json)
{
	int code = CLI_EXIT_OK;
	for (size_t i = 0; i < res->n_hosts; i++) {
		const struct caret_ctl_snapshot_host *h = &res->hosts[i];
		if (h->error)
			code = CLI_EXIT_FAILED;
		else if (!h->complete && code == CLI_EXIT_OK)
			code = CLI_EXIT_TIMEOUT;
		if (json)
			continue;
		if (h->error)
			printf("host %.64s: FAILED: %.1024s\n", h->host, h->error);
		else if (h->complete)
			printf("host %.64s: %.1024s\n", h->host, h->path);
		else
			printf("host %.64s: %.1024s (may lack initialization records: %.900s)\n",
			       h->host, h->path, h->why ? h->why : "no reason given");
	}
	if (json)
		cli_print_json(r->root, CARET_CTL_CMD_SNAPSHOT);
	if (code == CLI_EXIT_FAILED)
		fprintf(stderr, "caretctl: snapshot: some host wrote no snapshot\n");
	else if (code == CLI_EXIT_TIMEOUT)
		fprintf(stderr, "caretctl: snapshot: some snapshot may lack initialization "
			"records\n");
	return code;
}

/* The result, through proto/'s decoder: one host's or every host's. */
static int show_result(const struct cli_opts *g, struct cli_reply *r, bool all_hosts)
{
	struct caret_ctl_snapshot_result res;
	char why[256];
	if (caret_ctl_snapshot_result_decode(r->root, &res, why, sizeof(why)) < 0)
		return cli_fail(CLI_EXIT_PROTOCOL, "malformed reply to snapshot: %s", why);
	if (all_hosts != res.all_hosts) {
		caret_ctl_snapshot_result_free(&res);
		return cli_fail(CLI_EXIT_PROTOCOL, "malformed reply to snapshot: %s",
				all_hosts ? "no hosts" : "hosts not asked for");
	}
	if (all_hosts) {
		int code = print_hosts(&res, r, g->json);
		caret_ctl_snapshot_result_free(&res);
		return code;
	}
	int code = res.complete ? CLI_EXIT_OK : CLI_EXIT_TIMEOUT;
	if (g->json)
		cli_print_json(r->root, CARET_CTL_CMD_SNAPSHOT);
	else
		printf("snapshot: %s\n", res.path);
	if (code != CLI_EXIT_OK)
		cli_fail(code, "snapshot %s may lack initialization records: %.900s", res.path,
			 res.why ? res.why : "(no reason given)");
	caret_ctl_snapshot_result_free(&res);
	return code;
}

static int on_progress(const struct ctl_progress *p, struct cli_reply *line, void *arg,
		       struct ctl_why *why)
{
	(void)line;
	(void)arg;
	(void)why;
	/* queued behind LTTng's start of another session (caretd(8)): said
	 * once, the replay's bar comes after it */
	static bool said;
	if (p->lttng_start_ms >= 0) {
		if (!said)
			fprintf(stderr, "caretctl: LTTng is starting another session; the snapshot "
				"waits for it\n");
		said = true;
		return 0;
	}
	cli_progress_show(p);
	return 0;
}

/* Sends the request, shows progress, then the result. */
static int ask(const struct cli_opts *g, const struct caret_ctl_req *q)
{
	struct cli_conn c;
	struct cli_reply r;
	struct ctl_why why = { "" };
	int64_t deadline = cli_now_ms() + q->u.snapshot.timeout_ms + CLI_STOP_MS + CLI_SLACK_MS;
	int e = cli_conn_open(&c, g->socket, deadline);
	if (e < 0)
		return cli_report_connect(g->socket, e);
	cli_progress_begin(g->json ? stderr : stdout, false, CLI_PROGRESS_SNAPSHOT);
	e = cli_exchange(&c, q, deadline, false, on_progress, NULL, &r, &why);
	cli_progress_clear();
	cli_conn_close(&c);
	if (e < 0)
		return cli_report_exchange(CARET_CTL_CMD_SNAPSHOT, e, &why, 0);
	if (r.type == CTL_REPLY_ERROR) {
		int code = cli_report_error_reply(CARET_CTL_CMD_SNAPSHOT, &r);
		cli_reply_free(&r);
		return code;
	}
	int code = show_result(g, &r, q->u.snapshot.all_hosts);
	cli_reply_free(&r);
	return code;
}

int cmd_snapshot(struct cli_opts *g, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "timeout", required_argument, NULL, 't' },
		{ "all-hosts", no_argument, NULL, 'A' },
		CLI_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct caret_ctl_req q = { .v = CARET_CTL_VERSION, .cmd = CARET_CTL_SNAPSHOT };
	struct caret_ctl_snapshot_req *s = &q.u.snapshot;
	char out[PATH_MAX];
	s->timeout_ms = CARET_CTL_DEFAULT_TIMEOUT_MS;
	int opt;
	optind = 0;
	while ((opt = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			if (!*optarg)
				return cli_usage_error("snapshot", "-o/--output must not be empty");
			if (!realpath(optarg, out)) {
				/* made by caretd as you: absolute here */
				if (optarg[0] == '/') {
					snprintf(out, sizeof(out), "%s", optarg);
				} else {
					char cwd[PATH_MAX];
					if (!getcwd(cwd, sizeof(cwd)) ||
					    snprintf(out, sizeof(out), "%s/%s", cwd, optarg) >=
						    (int)sizeof(out))
						return cli_usage_error("snapshot", "cannot make -o/"
								       "--output absolute");
				}
			}
			s->output = out;
			break;
		case 't':
			if (cli_parse_timeout(optarg, &s->timeout_ms) < 0 ||
			    caret_ctl_check_timeout_ms(s->timeout_ms, NULL, 0) < 0)
				return cli_usage_error("snapshot", "invalid --timeout '%s': %s",
						       optarg, caret_ctl_rule_timeout());
			break;
		case 'A':
			s->all_hosts = true;
			break;
		case 'h':
			usage(cli_help_out());
			return cli_help_done("snapshot");
		default:
			if (cli_common_opt(g, opt, optarg) < 0)
				return cli_bad_option("snapshot", argv[optind - 1]);
		}
	}
	if (optind < argc) {
		char why[160];
		if (caret_ctl_check_lttng_session_name(argv[optind], why, sizeof(why)) < 0)
			return cli_usage_error("snapshot", "invalid recording name '%s': %s",
					       argv[optind], why);
		s->session = argv[optind++];
	}
	if (optind < argc)
		return cli_usage_error("snapshot", "unexpected argument '%s'", argv[optind]);
	return ask(g, &q);
}
