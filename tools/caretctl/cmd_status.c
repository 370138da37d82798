/* SPDX-License-Identifier: Apache-2.0 */
/* `caretctl status` and `caretctl list`. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "caretctl.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_dec.h"
#include "hosts.h"
#include "parse.h"
#include "rotation_cli.h"
#include "snapshot_cli.h"
#include "proto/caret_ctl_recordings.h"
#include "rpc.h"

static void usage(FILE *f, const char *cmd)
{
	if (strcmp(cmd, CARET_CTL_CMD_STATUS) == 0)
		fprintf(f, "Usage: caretctl status [--json]\n"
			   "       caretctl status --all-hosts [--timeout DURATION] [--json]\n"
			   "Show the host, caretd (pid, version, pacing), whether LTTng is\n"
			   "reachable and its active sessions, and the agent table.\n"
			   "With --all-hosts: every host's processes and states, from the\n"
			   "Status messages of the DDS bridge; a host seen before that did\n"
			   "not answer within --timeout (default 3) gets a NO ANSWER line and\n"
			   "the exit status is 4.\n\n");
	else
		fprintf(f, "Usage: caretctl list [--json]\n"
			   "Show the agent table: one line per process running the agent.\n\n");
	fprintf(f,
		"      --json         print caretd's result object verbatim (one JSON line)\n"
		"      --socket PATH  caretd's control socket\n"
		"  -h, --help         this help\n\n"
		"Exit status: 0 success, 1 caretd failed, 2 usage error, 3 caretd not\n"
		"reachable, 5 malformed reply.\n");
}

#define MAXW 32

static size_t width(size_t cur, const char *s)
{
	size_t n = strlen(s);
	return n > cur ? (n > MAXW ? MAXW : n) : cur;
}

static void print_agents(const struct ctl_agents *ag)
{
	size_t wp = 3, wn = 8, ws = 5, wr = 7, wy = 8, wd = 7;
	char num[4][48];
	if (ag->n == 0) {
		printf("no agents\n");
		return;
	}
	for (size_t i = 0; i < ag->n; i++) {
		const struct ctl_agent *a = &ag->a[i];
		snprintf(num[0], sizeof(num[0]), "%lld", (long long)a->pid);
		snprintf(num[1], sizeof(num[1]), "%lld", (long long)a->records);
		snprintf(num[2], sizeof(num[2]), "%lld/%lld", (long long)a->replayed,
			 (long long)a->replay_total);
		snprintf(num[3], sizeof(num[3]), "%lld", (long long)a->dropped);
		wp = width(wp, num[0]);
		wn = width(wn, a->procname);
		ws = width(ws, a->state);
		wr = width(wr, num[1]);
		wy = width(wy, num[2]);
		wd = width(wd, num[3]);
	}
	printf("%-*s  %-*s  %-*s  %*s  %*s  %*s  NODES\n", (int)wp, "PID", (int)wn,
	       "PROCNAME", (int)ws, "STATE", (int)wr, "RECORDS", (int)wy, "REPLAYED", (int)wd,
	       "DROPPED");
	for (size_t i = 0; i < ag->n; i++) {
		const struct ctl_agent *a = &ag->a[i];
		snprintf(num[2], sizeof(num[2]), "%lld/%lld", (long long)a->replayed,
			 (long long)a->replay_total);
		printf("%-*lld  %-*s  %-*s  %*lld  %*s  %*lld  ", (int)wp, (long long)a->pid,
		       (int)wn, a->procname, (int)ws, a->state, (int)wr,
		       (long long)a->records, (int)wy, num[2], (int)wd, (long long)a->dropped);
		for (size_t j = 0; j < a->n_nodes; j++)
			printf("%s%s", j ? "," : "", a->nodes[j]);
		printf("%s\n", a->n_nodes ? "" : "-");
	}
	/* why a process does not record completely, under the table */
	for (size_t i = 0; i < ag->n; i++)
		if (ag->a[i].reason)
			printf("pid %lld (%s) %s: %s\n", (long long)ag->a[i].pid,
			       ag->a[i].procname, ag->a[i].state, ag->a[i].reason);
}

/* 67108864 -> "64 MiB": exact binary units, else bytes. */
static const char *bytes_text(char *b, size_t len, int64_t v)
{
	static const char *const unit[] = { "bytes", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;
	while (u < 4 && v >= 1024 && v % 1024 == 0) {
		v /= 1024;
		u++;
	}
	snprintf(b, len, "%lld %s", (long long)v, unit[u]);
	return b;
}

static void print_status(const struct ctl_status *st)
{
	char bw[32];
	printf("host:    %s\n", st->host);
	printf("caretd:  pid %lld, version %s, pacing %s", (long long)st->pid, st->version,
	       st->pacing);
	/* Each pacing has its own knob: the other one means nothing. */
	if (!strcmp(st->pacing, CARET_CTL_PACING_FREQUENCY) && st->have_freq)
		printf(", %lld records/s per process", (long long)st->freq);
	else if (!strcmp(st->pacing, CARET_CTL_PACING_ADAPTIVE) && st->have_bandwidth)
		printf(", from the buffers' room (fallback budget %s/s host-wide)",
		       bytes_text(bw, sizeof(bw), st->bandwidth));
	if (!st->lttng_reachable) {
		/* Its sessions are unknown, not absent. */
		printf("\nlttng:   NOT reachable: %s\n",
		       st->lttng_error && *st->lttng_error ? st->lttng_error : "no reason given");
		printf("agents:  %zu\n\n", st->agents.n);
		print_agents(&st->agents);
		return;
	}
	printf("\nlttng:   reachable");
	for (size_t i = 0; i < st->n_sessions; i++) {
		const char *s = st->sessions[i];
		printf("%s%s", i ? ", " : ", active sessions: ", s);
		if (st->caretd_session && !strcmp(s, st->caretd_session))
			printf(" (caretd's)");
	}
	printf("%s\n", st->n_sessions == 0 ? ", no active session" : "");
	if (st->caretd_session)
		printf("session: %s, started by caretctl record, trace in %s\n",
		       st->caretd_session,
		       st->caretd_session_path ? st->caretd_session_path : "(unknown)");
	printf("agents:  %zu\n\n", st->agents.n);
	print_agents(&st->agents);
}

static int show(const struct cli_opts *g, const char *cmd, const struct cli_reply *r)
{
	struct ctl_why why;
	struct ctl_status st = { 0 };
	int e;
	if (strcmp(cmd, CARET_CTL_CMD_STATUS) == 0)
		e = ctl_decode_status(r->root, &st, &why);
	else
		e = ctl_decode_agents(r->root, &st.agents, &why);
	if (e == -ENOMEM)
		return cli_fail(CLI_EXIT_FAILED, "out of memory");
	if (e < 0)
		return cli_report_exchange(cmd, e, &why, 0);
	struct caret_ctl_recordings rec;
	e = caret_ctl_recordings_decode(r->root, &rec, why.msg, sizeof(why.msg));
	if (e < 0) {
		ctl_status_free(&st);
		return e == -ENOMEM ? cli_fail(CLI_EXIT_FAILED, "out of memory")
				    : cli_report_exchange(cmd, e, &why, 0);
	}
	if (g->json)
		cli_print_json(r->root, cmd);
	else if (strcmp(cmd, CARET_CTL_CMD_STATUS) == 0) {
		print_status(&st);
		cli_rotation_print(&rec);
		cli_snapshot_print(&rec);
	}
	else {
		print_agents(&st.agents);
		cli_snapshot_print(&rec);
	}
	caret_ctl_recordings_free(&rec);
	ctl_status_free(&st);
	return CLI_EXIT_OK;
}

static int run(struct cli_opts *g, const char *cmd, int argc, char **argv)
{
	struct cli_reply r;
	int code = cli_simple_call(g, cmd, argc, argv, usage, &r);
	if (code >= 0)
		return code;
	code = show(g, cmd, &r);
	cli_reply_free(&r);
	return code;
}

int cmd_status(struct cli_opts *g, int argc, char **argv)
{
	/* --all-hosts [--timeout S] and the common options */
	bool all = false;
	int64_t timeout_ms = 3000;
	for (int i = 1; i < argc; i++)
		all |= strcmp(argv[i], "--all-hosts") == 0;
	if (all) {
		for (int i = 1; i < argc; i++) {
			if (!strcmp(argv[i], "--all-hosts"))
				continue;
			if (!strcmp(argv[i], "--timeout") && i + 1 < argc) {
				if (cli_parse_timeout(argv[++i], &timeout_ms) < 0 || timeout_ms <= 0)
					return cli_usage_error("status", "invalid timeout '%s'", argv[i]);
			} else if (!strcmp(argv[i], "--json")) {
				g->json = true;
			} else if (!strcmp(argv[i], "--socket") && i + 1 < argc) {
				g->socket = argv[++i];
			} else {
				return cli_usage_error("status", "unexpected argument '%s'", argv[i]);
			}
		}
		return cli_status_all_hosts(g, timeout_ms);
	}
	return run(g, CARET_CTL_CMD_STATUS, argc, argv);
}

int cmd_list(struct cli_opts *g, int argc, char **argv)
{
	return run(g, CARET_CTL_CMD_LIST, argc, argv);
}
