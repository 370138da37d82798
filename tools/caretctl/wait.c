/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "proto/caret_ctl.h"
#include "proto/caret_ctl_req.h"
#include "proto/caret_ctl_dec.h"
#include "progress.h"
#include "rpc.h"
#include "sig.h"
#include "wait.h"

#define RECONNECT_MS 200

static int on_progress(const struct ctl_progress *pp, struct cli_reply *line, void *arg,
		       struct ctl_why *why)
{
	(void)why;
	const struct cli_opts *g = arg;
	static struct ctl_progress last;
	struct ctl_progress p = *pp;
	cli_progress_show(&p);
	/* --json: a progress object on stdout for each change. */
	if (g->json && (p.recording != last.recording || p.total != last.total ||
			p.records_done != last.records_done ||
			p.records_total != last.records_total)) {
		cli_print_json(line->root, CARET_CTL_CMD_WAIT);
		fflush(stdout);
	}
	last = p;
	return 0;
}

/* One `wait` on a fresh connection; the transport error or 0. */
static int wait_once(const struct cli_opts *g, int64_t remaining_ms, bool *lost,
		     struct cli_reply *out, struct ctl_why *why)
{
	struct cli_conn c;
	int64_t deadline = cli_now_ms() + remaining_ms + CLI_SLACK_MS;
	int r = cli_conn_open(&c, g->socket, deadline);
	if (r < 0)
		return r;
	if (*lost) {
		cli_progress_break();
		fprintf(stderr, "caretctl: reconnected to caretd\n");
		*lost = false;
	}
	struct caret_ctl_req q = { .v = CARET_CTL_VERSION, .cmd = CARET_CTL_WAIT,
				   .u.wait.timeout_ms = remaining_ms };
	r = cli_exchange(&c, &q, deadline, true, on_progress, (void *)g, out, why);
	cli_conn_close(&c);
	return r;
}

int cli_wait_all(const struct cli_opts *g, int64_t timeout_ms, bool verbose,
		 struct cli_reply *out)
{
	int64_t end = cli_now_ms() + timeout_ms;
	bool lost = false;	/* in an outage: announce it once, and its end */
	struct ctl_why why = { "" };

	cli_progress_begin(g->json ? stderr : stdout, verbose, CLI_PROGRESS_RECORDING);
	for (;;) {
		/*
		 * After a reconnect past the deadline, still ask once (1 ms):
		 * the answer names the processes that are not recording.
		 */
		int64_t remaining = end - cli_now_ms();
		if (remaining < 1)
			remaining = 1;
		int r = wait_once(g, remaining, &lost, out, &why);
		if (r == 0) {
			cli_progress_clear();
			if (out->type == CTL_REPLY_ERROR) {
				int code = cli_report_error_reply("wait", out);
				cli_reply_free(out);
				return code;
			}
			return CLI_EXIT_OK;
		}
		if (r == -EINTR) {
			cli_progress_break();
			return CLI_EXIT_INTERRUPTED;
		}
		if (r == -EACCES || r == -EPERM || r == -ENAMETOOLONG)
			return cli_report_connect(g->socket, r);
		if (r == -ETIMEDOUT)
			return cli_fail(CLI_EXIT_UNREACHABLE,
					"caretd stopped answering: no result of \"wait\" "
					"within %.1f s",
					(double)(remaining + CLI_SLACK_MS) / 1000.0);
		if (!cli_conn_gone(r))
			return cli_report_exchange("wait", r, &why, remaining + CLI_SLACK_MS);

		if (!lost)
			cli_warn("lost the connection to caretd while waiting; reconnecting "
				 "(the recording goes on)");
		lost = true;
		if (cli_now_ms() >= end)
			return cli_fail(CLI_EXIT_UNREACHABLE,
					"could not reconnect to caretd at %s within the "
					"timeout (%s)",
					g->socket, strerror(-r));
		if (cli_sleep_until(cli_now_ms() + RECONNECT_MS) == -EINTR)
			return CLI_EXIT_INTERRUPTED;
	}
}
