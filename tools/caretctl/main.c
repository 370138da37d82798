/* SPDX-License-Identifier: Apache-2.0 */
/*
 * caretctl: the user's handle on caretd (what `ros2 caret record` is for
 * CARET). Global options, then one command; see caretctl(1).
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/caret_ctl.h"
#include "caretctl.h"

static const struct {
	const char *name;
	int (*run)(struct ctl_opts *g, int argc, char **argv);
} commands[] = {
	{ "record", cmd_record }, { "stop", cmd_stop },   { "status", cmd_status },
	{ "list", cmd_list },	  { "start", cmd_start }, { "end", cmd_end },
	{ "check", cmd_check },	  { "events", cmd_events }, { "nodes", cmd_nodes },
	{ "topics", cmd_topics },
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: caretctl [--socket PATH] [--json] COMMAND [OPTIONS]\n"
		"Control caretd, the CARET runtime-recording daemon.\n\n"
		"Commands:\n"
		"  record   start an LTTng recording; caretd replays the processes'\n"
		"           initialization records; stop on Enter, Ctrl-C or --duration\n"
		"  stop     stop a recording and report discarded events and lost packets\n"
		"  status   caretd, LTTng and the agent table\n"
		"  list     the agent table\n"
		"  start    send Start (agents in WAIT go to PREPARE)\n"
		"  end      send End (agents go back to WAIT)\n"
		"  events   the initialization records cached on this host, in time order\n"
		"  nodes    the live ROS 2 graph from the caches: nodes and their entities\n"
		"  topics   the live ROS 2 graph from the caches: topics, publishers and\n"
		"           subscriptions across processes\n"
		"  check    check a recorded trace for what CARET's analyzer needs\n\n"
		"Options (also accepted after COMMAND):\n"
		"  --socket PATH  caretd's control socket (default: $CARETD_SOCKET, else\n"
		"                 " CARET_CTL_DEFAULT_SOCKET ")\n"
		"  --json         machine-readable output: caretd's result objects as JSON\n"
		"                 lines on stdout, everything else on stderr\n"
		"  -h, --help     this help; 'caretctl COMMAND --help' for a command\n\n"
		"Exit status:\n"
		"  0    success\n"
		"  1    the operation failed (caretd or LTTng error, stop failed)\n"
		"  2    usage error\n"
		"  3    caretd not reachable (not running, permission denied, no answer)\n"
		"  4    record: some processes did not reach RECORD in time (the\n"
		"       recording is usable; see the message for its state)\n"
		"  5    protocol error: malformed reply from caretd\n"
		"  6    check: the trace is incomplete\n"
		"  128+N  record interrupted by signal N before all processes were\n"
		"       recording (the session was stopped)\n");
}

int ctl_common_opt(struct ctl_opts *g, int opt, const char *arg)
{
	switch (opt) {
	case CTL_OPT_SOCKET:
		if (!*arg) {
			fprintf(stderr, "caretctl: --socket needs a path\n");
			return -EINVAL;
		}
		g->socket = arg;
		return 0;
	case CTL_OPT_JSON:
		g->json = true;
		return 0;
	default:
		return -EINVAL;
	}
}

int ctl_simple_args(struct ctl_opts *g, const char *cmd, int argc, char **argv,
		    void (*usage)(FILE *, const char *))
{
	static const struct option longopts[] = {
		CTL_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	int opt;
	optind = 0;
	while ((opt = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		if (opt == 'h') {
			usage(stdout, cmd);
			return CTL_EXIT_OK;
		}
		if (ctl_common_opt(g, opt, optarg) < 0)
			return ctl_bad_option(cmd);
	}
	if (optind < argc)
		return ctl_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	return -1;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		CTL_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct ctl_opts g = { 0 };
	const char *env = getenv("CARETD_SOCKET");
	int opt;

	/* A daemon that vanishes mid-write must give EPIPE, not kill us. */
	signal(SIGPIPE, SIG_IGN);
	g.socket = env && *env ? env : CARET_CTL_DEFAULT_SOCKET;

	while ((opt = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		if (opt == 'h') {
			usage(stdout);
			return CTL_EXIT_OK;
		}
		if (ctl_common_opt(&g, opt, optarg) < 0)
			return ctl_bad_option(NULL);
	}
	if (optind >= argc)
		return ctl_usage_error(NULL, "no command given");

	const char *cmd = argv[optind];
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(cmd, commands[i].name) != 0)
			continue;
		/* getopt names the program in its messages: make it the command. */
		static char prog[32];
		snprintf(prog, sizeof(prog), "caretctl %s", cmd);
		argv[optind] = prog;
		int code = commands[i].run(&g, argc - optind, argv + optind);
		if (fflush(stdout) != 0 && code == CTL_EXIT_OK)
			return ctl_fail(CTL_EXIT_FAILED, "cannot write the output");
		return code;
	}
	if (strcmp(cmd, "help") == 0) {
		usage(stdout);
		return CTL_EXIT_OK;
	}
	return ctl_usage_error(NULL, "unknown command '%s'", cmd);
}
