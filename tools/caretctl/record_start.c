/* SPDX-License-Identifier: Apache-2.0 */
/* `record`'s request while LTTng starts the session (record_start.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd_record_watch.h"
#include "proto/caret_ctl_snapshot_res.h"
#include "sig.h"
#include "record_start.h"

#define QUIET_START_MS 1000
/* Not a terminal: a line every this long, logs stay readable. */
#define LINE_EVERY_MS 5000

/* How soon a record refused while another session starts is asked again. */
#define RETRY_MS 500

/* An error reply saying that LTTng starts another session (EAGAIN). */
static bool busy(const struct cli_reply *r)
{
	struct caret_ctl_error e;
	char why[160];
	return caret_ctl_error_decode(r->root, &e, why, sizeof(why)) == 0 && e.err == EAGAIN;
}

struct shown {
	bool tty, any;
	int64_t last_ms;
};

static int on_progress(const struct ctl_progress *p, struct cli_reply *line, void *arg,
		       struct ctl_why *why)
{
	/* --json's stream keeps its progress objects the wait's: this one
	 * is text on standard error, as the wait's text is */
	(void)why, (void)line;
	struct shown *s = arg;
	/* a start that ends within a second needs no word (and the line
	 * that follows stays the first one: "press Enter...") */
	if (p->lttng_start_ms < QUIET_START_MS)
		return 0;
	int64_t now = cli_now_ms();
	if (!s->tty && s->any && now - s->last_ms < LINE_EVERY_MS)
		return 0;
	s->any = true;
	s->last_ms = now;
	fprintf(stderr, "%sLTTng is starting the session for %lld process%s (%lld s)...%s",
		s->tty ? "\r" : "", (long long)p->total, p->total == 1 ? "" : "es",
		(long long)(p->lttng_start_ms / 1000), s->tty ? "" : "\n");
	fflush(stderr);
	return 0;
}

/* A result saying its connection holds the recording ("hold"). */
static bool held(const struct cli_reply *r)
{
	struct ctl_record_result rec;
	struct ctl_why why;
	return r->type == CTL_REPLY_RESULT && ctl_decode_record(r->root, &rec, &why) == 0 &&
	       rec.held;
}

static int once(const struct cli_opts *g, const struct caret_ctl_req *q, struct shown *s,
		struct cli_reply *out, struct cli_conn *keep)
{
	struct cli_conn c;
	struct ctl_why why = { "" };
	memset(out, 0, sizeof(*out));
	int r = cli_conn_open(&c, g->socket, cli_now_ms() + CLI_RECORD_QUIET_MS);
	if (r < 0)
		return cli_report_connect(g->socket, r);
	r = cli_exchange_live(&c, q, CLI_RECORD_QUIET_MS, true, on_progress, s, out, &why);
	/* held by this connection: closing it would stop the recording */
	if (r == 0 && keep && held(out))
		*keep = c;
	else
		cli_conn_close(&c); /* caretd learns from this that we are gone */
	if (s->any && s->tty)
		fputc('\n', stderr);
	s->any = false;
	if (r == -EINTR)
		return cli_fail(cli_record_interrupted_code(), "interrupted while LTTng started "
				"the session: caretd stops it once LTTng's start returns; "
				"nothing was recorded");
	if (r == -ETIMEDOUT)
		return cli_fail(CLI_EXIT_UNREACHABLE, "caretd sent nothing for %.1f s while "
				"making the recording (it may be stuck); see 'caretctl status'",
				(double)CLI_RECORD_QUIET_MS / 1000.0);
	if (r < 0)
		return cli_report_exchange(CARET_CTL_CMD_RECORD, r, &why, CLI_RECORD_QUIET_MS);
	if (out->type == CTL_REPLY_ERROR && busy(out))
		return CLI_EXIT_AGAIN;
	if (out->type == CTL_REPLY_ERROR) {
		int code = cli_report_error_reply(CARET_CTL_CMD_RECORD, out);
		cli_reply_free(out);
		return code;
	}
	return CLI_EXIT_OK;
}

int cli_record_start(const struct cli_opts *g, const struct caret_ctl_req *q,
		     struct cli_reply *out, struct cli_conn *keep)
{
	struct shown s = { .tty = isatty(STDERR_FILENO) };
	bool said = false;
	if (keep)
		keep->fd = -1;
	for (;;) {
		int code = once(g, q, &s, out, keep);
		if (code != CLI_EXIT_AGAIN)
			return code;
		/* one start at a time in caretd: ours follows */
		if (!said)
			fprintf(stderr, "caretctl: LTTng is starting another session; waiting "
				"for it\n");
		said = true;
		cli_reply_free(out);
		if (cli_sleep_until(cli_now_ms() + RETRY_MS) == -EINTR)
			return cli_fail(cli_record_interrupted_code(), "interrupted; nothing was "
					"recorded");
	}
}
