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
#include "proto/caret_version.h"
#include "caretctl.h"
#include "json_out.h"

static const struct {
	const char *name;
	int (*run)(struct cli_opts *g, int argc, char **argv);
} commands[] = {
	{ "record", cmd_record }, { "stop", cmd_stop },   { "status", cmd_status },
	{ "list", cmd_list },	  { "start", cmd_start }, { "end", cmd_end },
	{ "check", cmd_check },	  { "events", cmd_events }, { "nodes", cmd_nodes },
	{ "topics", cmd_topics }, { "snapshot", cmd_snapshot }, { "top", cmd_top },
	{ "pause", cmd_pause }, { "resume", cmd_resume },
	{ "node-summary", cmd_node_summary }, { "topic-summary", cmd_topic_summary },
	{ "trace-point-summary", cmd_trace_point_summary },
	/* ros2caret's spellings of the same verbs */
	{ "node_summary", cmd_node_summary }, { "topic_summary", cmd_topic_summary },
	{ "trace_point_summary", cmd_trace_point_summary },
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
		"  pause    stop a recording's tracing, the recording kept (as ros2 trace's)\n"
		"  resume   trace again; every process replays its initialization records\n"
		"  snapshot write a flight recorder's last moments (record --snapshot) as a\n"
		"           complete trace\n"
		"  status   caretd, LTTng and the agent table\n"
		"  list     the agent table\n"
		"  start    send Start (agents in WAIT go to PREPARE)\n"
		"  end      send End (agents go back to WAIT)\n"
		"  events   the initialization records cached on this host, in time order\n"
		"  nodes    the live ROS 2 graph from the caches: nodes and their entities\n"
		"  topics   the live ROS 2 graph from the caches: topics, publishers and\n"
		"           subscriptions across processes\n"
		"  top      every callback's rate, duration and CPU share, every topic's\n"
		"           rate, live, without a recording\n"
		"  check    check a recorded trace for what CARET's analyzer needs\n"
		"  node-summary, topic-summary, trace-point-summary\n"
		"           a recorded trace's trace points per node, topic or trace point,\n"
		"           as ros2caret's node_summary, topic_summary, trace_point_summary\n"
		"           (those spellings work too)\n\n"
		"Every command takes its options before or after its operands; every\n"
		"duration is seconds or N with ms, s, m or h (1.5s, 10m).\n\n"
		"Options (also accepted after COMMAND):\n"
		"  --socket PATH  caretd's control socket (default: $CARETD_SOCKET, else\n"
		"                 " CARET_CTL_DEFAULT_SOCKET ")\n"
		"  --json         machine-readable output: one JSON object per line on\n"
		"                 stdout, each with {\"v\": 1, \"type\": T, \"cmd\": C}: caretd's\n"
		"                 results, check's report, record -l, help; a failure as\n"
		"                 type \"error\" with \"error\": TEXT, \"errno\": N; messages on\n"
		"                 stderr\n"
		"  -h, --help     this help; 'caretctl help COMMAND' or 'caretctl COMMAND\n"
		"                 --help' for a command\n"
		"  -V, --version  caretctl's version\n\n"
		"Exit status:\n"
		"  0    success\n"
		"  1    the operation failed (caretd or LTTng error, stop failed)\n"
		"  2    usage error\n"
		"  3    caretd not reachable (not running, permission denied, no answer)\n"
		"  4    initialization data incomplete: record: some processes did not\n"
		"       reach RECORD in time (the recording is usable; see the message\n"
		"       for its state); record, stop: full caches dropped init records\n"
		"  5    protocol error: malformed reply from caretd\n"
		"  6    check: the trace is incomplete\n"
		"  128+N  record interrupted by signal N before all processes were\n"
		"       recording (the session was stopped)\n");
}

static int run_command(struct cli_opts *g, size_t i, int argc, char **argv)
{
	/* getopt names the program in its messages: make it the command. */
	static char prog[32];
	snprintf(prog, sizeof(prog), "caretctl %s", commands[i].name);
	argv[0] = prog;
	cli_msg_cmd(commands[i].name);
	int code = commands[i].run(g, argc, argv);
	bool failed = fflush(stdout) != 0 || ferror(stdout);
	if (failed && code == CLI_EXIT_OK && !cli_out_gone())
		return cli_fail(CLI_EXIT_FAILED, "cannot write the output");
	return code;
}

static int find_command(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(name, commands[i].name) == 0)
			return (int)i;
	return -1;
}

/* `caretctl help [COMMAND]`, as `git help` and `systemctl help` do. */
static int help(struct cli_opts *g, int argc, char **argv)
{
	cli_msg_cmd("help");
	/* the common options may come after it too: only its operands count */
	int n = 1;
	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--json") || !strncmp(argv[a], "--socket=", 9))
			continue;
		if (!strcmp(argv[a], "--socket")) {
			a++;
			continue;
		}
		argv[n++] = argv[a];
	}
	argc = n;
	if (argc < 2) {
		usage(cli_help_out());
		return cli_help_done("help");
	}
	if (argc > 2)
		return cli_usage_error(NULL, "help takes one command, not '%s'", argv[2]);
	int i = find_command(argv[1]);
	if (i < 0)
		return cli_usage_error(NULL, "unknown command '%s'", argv[1]);
	char *av[] = { argv[1], "--help", NULL };
	return run_command(g, (size_t)i, 2, av);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_COMMON_LONGOPTS,
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli_opts g = { 0 };
	const char *env = getenv("CARETD_SOCKET");
	int opt;

	/* --json anywhere (before "--") also covers usage errors met before
	 * getopt reaches it. */
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--json"))
			cli_msg_json(true);
	/* A daemon that vanishes mid-write must give EPIPE, not kill us. */
	signal(SIGPIPE, SIG_IGN);
	g.socket = env && *env ? env : CARET_CTL_DEFAULT_SOCKET;

	while ((opt = getopt_long(argc, argv, "+hV", longopts, NULL)) != -1) {
		if (opt == 'h') {
			usage(cli_help_out());
			return cli_help_done("help");
		}
		if (opt == 'V') {
			if (cli_msg_is_json())
				printf("{\"v\":%d,\"type\":\"" CLI_JSON_T_VERSION "\",\"cmd\":"
				       "\"version\",\"version\":\"%s\",\"protocol\":%d}\n",
				       CARET_CTL_VERSION, CARETD_VERSION, CARET_CTL_VERSION);
			else
				printf("caretctl %s (control protocol %d)\n", CARETD_VERSION,
				       CARET_CTL_VERSION);
			return CLI_EXIT_OK;
		}
		if (cli_common_opt(&g, opt, optarg) < 0)
			return cli_bad_option(NULL, argv[optind - 1]);
	}
	if (optind >= argc)
		return cli_usage_error(NULL, "no command given");

	const char *cmd = argv[optind];
	int i = find_command(cmd);
	if (i >= 0)
		return run_command(&g, (size_t)i, argc - optind, argv + optind);
	if (strcmp(cmd, "help") == 0)
		return help(&g, argc - optind, argv + optind);
	return cli_usage_error(NULL, "unknown command '%s'", cmd);
}
