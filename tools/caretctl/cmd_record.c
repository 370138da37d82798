/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `caretctl record`: what `ros2 caret record` does, with caretd doing the
 * work. Start a session, wait (with a limit) until every process has
 * replayed its initialization records and is in RECORD, record until
 * Enter, a signal or --duration, stop, report losses.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/caret_ctl.h"
#include "proto/caret_ctl_dec.h"
#include "caretctl.h"
#include "cmd_record_watch.h"
#include "filter_warn.h"
#include "hosts.h"
#include "record_hold.h"
#include "record_list.h"
#include "record_opts.h"
#include "record_req.h"
#include "record_start.h"
#include "rpc.h"
#include "sig.h"

/* Arms the recording while we wait for Enter (caretd starts the session
 * with its channel disabled: the session start's cost, which grows with
 * the number of registered processes, is paid before Enter, as `ros2
 * caret record` creates its session before asking). The armed session's
 * name, or NULL with *code set. */
static char *arm(const struct cli_opts *g, const struct rec_opts *o, int *code)
{
	struct cli_reply r;
	struct ctl_record_result rec;
	struct ctl_why why;
	struct caret_ctl_req q = cli_record_request(o, true, false);
	*code = cli_record_start(g, &q, &r, NULL);
	if (*code != CLI_EXIT_OK)
		return NULL;
	int e = ctl_decode_record(r.root, &rec, &why);
	char *name = e < 0 ? NULL : strdup(rec.session);
	if (e < 0)
		*code = cli_report_exchange(CARET_CTL_CMD_RECORD, e, &why, 0);
	else if (!name)
		*code = cli_fail(CLI_EXIT_FAILED, "out of memory");
	cli_reply_free(&r);
	return name;
}

/* An armed session that will not record: nothing to report. */
static void disarm(const struct cli_opts *g, const char *session)
{
	struct cli_reply r;
	struct caret_ctl_req q = { .v = CARET_CTL_VERSION, .cmd = CARET_CTL_STOP,
				   .u.stop.session = session };
	if (cli_call(g, &q, CLI_RECORD_MS, false, &r) == CLI_EXIT_OK)
		cli_reply_free(&r);
}

/* Without --immediate: waits for Enter, the recording armed meanwhile when
 * it may be (*armed: its session, to start with `go`). CLI_EXIT_OK, or the
 * exit code of an interruption or a failure (nothing recorded then). */
static int await_enter(struct cli_opts *g, const struct rec_opts *o, FILE *info, char **armed)
{
	/* Asking for Enter is pointless if caretd cannot be reached. */
	int code = cli_ping(g);
	if (code != CLI_EXIT_OK)
		return code;
	/* Armed, its Start (with any filter, to every host with
	 * --all-hosts) comes at Enter (cli_record_arms()). */
	if (cli_record_arms(o) && !(*armed = arm(g, o, &code)))
		return code;
	fprintf(info, "press Enter to start recording\n");
	fflush(info);
	int e = cli_wait_enter(-1);
	if (e < 0 && *armed)
		disarm(g, *armed);
	if (e < 0) {
		free(*armed);
		*armed = NULL;
	}
	if (e == -EINTR) {
		if (isatty(STDIN_FILENO) && isatty(STDERR_FILENO))
			fputc('\n', stderr);	/* after the terminal's "^C" */
		return cli_fail(cli_record_interrupted_code(), "interrupted; nothing was recorded");
	}
	if (e < 0)
		return cli_usage_error("record", "standard input ended before Enter; "
						 "use --immediate to start without it");
	return CLI_EXIT_OK;
}

static int run(struct cli_opts *g, const struct rec_opts *o)
{
	char *armed = NULL;
	FILE *info = g->json ? stderr : stdout;
	struct cli_reply r;
	struct ctl_record_result rec;
	struct ctl_why why;

	cli_sel_warn(&o->sel);
	int e = cli_sig_setup();
	if (e < 0)
		return cli_fail(CLI_EXIT_FAILED, "cannot set up signal handling: %s",
				strerror(-e));
	if (!o->immediate) {
		int code = await_enter(g, o, info, &armed);
		if (code != CLI_EXIT_OK)
			return code;
	}

	/* the local caretd knows the local processes only */
	if (!o->all_hosts)
		cli_filter_warn_unmatched(g, o->filter);
	struct caret_ctl_req q = armed ? cli_record_go_request(armed)
					 : cli_record_request(o, false, false);
	/* Held from before `go`: no moment of it runs unheld (while armed,
	 * caretd watches the armer's pid as well). Made now: held by the
	 * request's own connection from the moment it is made ("hold"). */
	static struct cli_hold hold;
	struct cli_conn held = { .fd = -1 };
	q.u.record.hold = !armed;
	if (armed)
		cli_hold_take(g, &hold, armed);
	/* Interruptible while LTTng starts the session: caretd stops a
	 * session whose requester left before its result. A `go` is one
	 * command per process, answered at once, and not interruptible:
	 * we must learn its end to stop it. */
	int code = armed ? cli_call(g, &q, CLI_RECORD_MS, false, &r)
			 : cli_record_start(g, &q, &r, &held);
	free(armed);
	if (code != CLI_EXIT_OK)
		return code;
	e = ctl_decode_record(r.root, &rec, &why);
	if (e == 0 && held.fd >= 0)
		cli_hold_adopt(&hold, rec.session, &held);
	if (e < 0) {
		code = cli_report_exchange(CARET_CTL_CMD_RECORD, e, &why, 0);
		fprintf(stderr, "caretctl: a session may have been started; see "
				"'caretctl status'\n");
		cli_reply_free(&r);
		return code;
	}
	/* The name and path outlive the reply. */
	char *session = strdup(rec.session), *path = strdup(rec.path);
	if (!session || !path) {
		free(session);
		free(path);
		cli_reply_free(&r);
		return cli_fail(CLI_EXIT_FAILED, "out of memory");
	}
	if (g->json)
		cli_print_json(r.root, CARET_CTL_CMD_RECORD);
	fflush(stdout);
	fprintf(info, "recording to %s (session %s)\n", rec.path, session);
	if (o->snap.size)
		fprintf(info, "flight recorder: nothing is written until 'caretctl snapshot %s'%s\n",
			session, o->snap.on ? " or its trigger fires" : "");
	fflush(info);
	cli_report_broadcast(&r, "Start");
	cli_reply_free(&r);
	/* from here on, this command's end (even SIGKILL) ends the recording
	 * (caretctl(1), SIGNALS); held already unless caretd is older than
	 * record's "hold" */
	if (!hold.session[0])
		cli_hold_take(g, &hold, session);
	code = cli_record_through(g, o, info, session, path, &hold);
	free(session);
	free(path);
	return code;
}

int cmd_record(struct cli_opts *g, int argc, char **argv)
{
	static struct rec_opts o;
	int r = cli_record_parse(g, &o, argc, argv);
	if (r < 0)
		return CLI_EXIT_OK;	/* --help */
	if (r > 0)
		return r;
	if (o.list)
		return cli_record_list(g, &o);
	return run(g, &o);
}
