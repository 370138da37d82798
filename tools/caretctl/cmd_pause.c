/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `caretctl pause [-s NAME]` and `caretctl resume [-s NAME]`: ros2 trace's
 * pause and resume of a recording caretd made (daemon/server/cmd_pause.c).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "caretctl.h"
#include "json_out.h"
#include "proto/caret_ctl_dec.h"
#include "proto/caret_ctl_limits.h"
#include "proto/caret_ctl_req.h"
#include "rpc.h"

static void usage(FILE *f, bool resume)
{
	if (resume)
		fprintf(f,
			"Usage: caretctl resume [-s NAME] [--json]\n"
			"Start a paused recording's tracing again (LTTng's start of its session).\n"
			"caretd takes it as a session newly active: every process replays its\n"
			"initialization records into it, those started during the pause too,\n"
			"so the trace is complete again once they are recording (what was\n"
			"replayed before the pause is in it twice: copies, which CARET's\n"
			"analyzer drops and 'caretctl check' notes).\n\n");
	else
		fprintf(f,
			"Usage: caretctl pause [-s NAME] [--json]\n"
			"Stop a recording's tracing without ending it (LTTng's stop of its\n"
			"session, which is kept with its trace): nothing is recorded until\n"
			"'caretctl resume'; 'caretctl stop' ends it paused or not. Not for an\n"
			"armed recording (waiting for Enter), a rotating one or a flight\n"
			"recorder.\n\n");
	fprintf(f,
		"  -s, --session-name NAME  the recording (default: your latest one); only\n"
		"                           your own, unless you are root\n"
		"      --json               caretd's result as a JSON line: {\"session\",\n"
		"                           \"path\", \"paused\"}\n"
		"  -h, --help               this help\n\n"
		"Exit status: 0 done, 1 refused (no such recording, another user's, %s,\n"
		"or not a recording that pauses), 2 usage error, 3 caretd not reachable.\n",
		resume ? "not paused" : "paused already");
}

static int run(struct cli_opts *g, bool resume, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "session-name", required_argument, NULL, 's' },
		CLI_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = resume ? "resume" : "pause", *session = NULL;
	int opt;
	optind = 0;
	while ((opt = getopt_long(argc, argv, "s:h", longopts, NULL)) != -1) {
		if (opt == 's') {
			/* a recording caretd made: its naming rule */
			char why[160];
			if (caret_ctl_check_session_name(optarg, why, sizeof(why)) < 0)
				return cli_usage_error(cmd, "invalid -s/--session-name '%s': %s",
						       optarg, why);
			session = optarg;
		} else if (opt == 'h') {
			usage(cli_help_out(), resume);
			return cli_help_done(cmd);
		} else if (cli_common_opt(g, opt, optarg) < 0) {
			return cli_bad_option(cmd, argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	struct caret_ctl_req q = { .v = CARET_CTL_VERSION,
				   .cmd = resume ? CARET_CTL_RESUME : CARET_CTL_PAUSE,
				   .u.pause = { .session = session } };
	struct cli_reply r;
	int code = cli_call(g, &q, CLI_QUICK_MS, false, &r);
	if (code != CLI_EXIT_OK)
		return code;
	struct ctl_pause_result p;
	struct ctl_why why;
	if (ctl_decode_pause(r.root, &p, &why) < 0) {
		cli_reply_free(&r);
		return cli_fail(CLI_EXIT_PROTOCOL, "%s: malformed reply from caretd: %s", cmd,
				why.msg);
	}
	if (g->json)
		cli_print_json(r.root, cmd);
	else if (p.paused)
		printf("recording %s paused (trace %s); 'caretctl resume -s %s' goes on\n",
		       p.session, p.path, p.session);
	else
		printf("recording %s resumed (trace %s): every process replays its "
		       "initialization records into it\n", p.session, p.path);
	cli_reply_free(&r);
	return CLI_EXIT_OK;
}

int cmd_pause(struct cli_opts *g, int argc, char **argv)
{
	return run(g, false, argc, argv);
}

int cmd_resume(struct cli_opts *g, int argc, char **argv)
{
	return run(g, true, argc, argv);
}
