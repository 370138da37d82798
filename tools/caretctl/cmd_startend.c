/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `caretctl start` and `caretctl end`: the Start/End messages another host
 * would send. Being ignored is a normal outcome (the state machine says
 * when), so it is reported but is not a failure.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "caretctl.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_dec.h"
#include "hosts.h"
#include "rpc.h"

static void usage(FILE *f, const char *cmd)
{
	if (strcmp(cmd, CARET_CTL_CMD_START) == 0)
		fprintf(f, "Usage: caretctl start [--all-hosts] [--json]\n"
			   "Send Start: agents in WAIT go to PREPARE (replay, then RECORD).\n"
			   "Ignored unless an LTTng session is active on this host.\n\n");
	else
		fprintf(f, "Usage: caretctl end [--all-hosts] [--json]\n"
			   "Send End: agents go back to WAIT. Ignored while an LTTng session\n"
			   "is active on this host.\n\n");
	fprintf(f,
		"      --all-hosts    also send it to every host over DDS (CARET's\n"
		"                     /caret/start_record, /caret/end_record)\n"
		"      --json         print caretd's result object verbatim (one JSON line)\n"
		"      --socket PATH  caretd's control socket\n"
		"  -h, --help         this help\n\n"
		"Exit status: 0 accepted or ignored, 1 caretd failed, 2 usage error,\n"
		"3 caretd not reachable, 5 malformed reply.\n");
}

/* The reason without a leading "ignored: " of its own: we say it once. */
static const char *reason_text(const char *r)
{
	if (!r || !*r)
		return "no reason given";
	return strncasecmp(r, "ignored: ", 9) == 0 ? r + 9 : r;
}

static int run(struct cli_opts *g, const char *cmd, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--all-hosts"))
			continue;
		/* drop it and let the common parser take the rest */
		for (int j = i; j + 1 < argc; j++)
			argv[j] = argv[j + 1];
		argc--;
		int code = cli_simple_args(g, cmd, argc, argv, usage);
		return code >= 0 ? code : cli_startend_all_hosts(g, cmd);
	}
	struct cli_reply r;
	struct ctl_accept a;
	struct ctl_why why;
	int code = cli_simple_call(g, cmd, argc, argv, usage, &r);
	if (code >= 0)
		return code;
	code = CLI_EXIT_OK;
	int e = ctl_decode_accept(r.root, &a, &why);
	if (e < 0)
		code = cli_report_exchange(cmd, e, &why, 0);
	else if (g->json)
		cli_print_json(r.root, cmd);
	else if (a.accepted)
		printf("%s: accepted\n", cmd);
	else
		printf("%s: ignored: %s\n", cmd, reason_text(a.reason));
	cli_reply_free(&r);
	return code;
}

int cmd_start(struct cli_opts *g, int argc, char **argv)
{
	return run(g, CARET_CTL_CMD_START, argc, argv);
}

int cmd_end(struct cli_opts *g, int argc, char **argv)
{
	return run(g, CARET_CTL_CMD_END, argc, argv);
}
