/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `caretctl record`'s help and options (record_opts.h).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "proto/caret_ctl.h"
#include "proto/caret_ctl_limits.h"
#include "util/regex/caret_regex.h"
#include "json_out.h"
#include "parse.h"
#include "record_opts.h"
#include "tracedir.h"

/* Over 80 lines: the help text, one statement. */
static void usage(FILE *f)
{
	fprintf(f,
		"Usage: caretctl record [OPTIONS]\n"
		"Record a CARET trace of the ROS 2 processes already running: caretd\n"
		"starts an LTTng session, every process replays its initialization\n"
		"records into it and then records at runtime (RECORD state).\n\n"
		"  -s, --session-name NAME     LTTng session name, 1 to %d bytes, no '/',\n"
		"                              not starting with '-' (default:\n"
		"                              caret-YYYYMMDD-HHMMSS, then -2, -3... if taken)\n"
		"  -p, --path DIR              where the trace directory goes (default:\n"
		"                              $ROS_TRACE_DIR, else $ROS_HOME/tracing, else\n"
		"                              ~/.ros/tracing), made absolute here\n"
		"  -o, --output DIR            the same as -p/--path (ours: ros2 trace of\n"
		"                              Humble and Jazzy has -p only)\n"
		"  -f, --recording-frequency N replay N records/s per process (1 to %d);\n"
		"                              implies --pacing frequency\n"
		"      --pacing MODE           frequency (fixed -f rate, default %d) or\n"
		"                              adaptive (as fast as the recording's LTTng\n"
		"                              buffers drain, nothing discarded; the\n"
		"                              default without -f)\n"
		"      --set-url URL           stream to an lttng-relayd instead of a local\n"
		"                              path (as lttng create --set-url): net://HOST\n"
		"      --all-hosts             also send CARET's Start (and End at stop) to\n"
		"                              every host over DDS; with --set-url, every\n"
		"                              caretd started with --accept-relay streams\n"
		"                              its own session to the same relay\n"
		"      --select-nodes LIST     record only these nodes (and their\n"
		"                              topics), LIST as CARET_SELECT_NODES: regular\n"
		"                              expressions (ECMAScript, as CARET's std::regex,\n"
		"                              lookahead included) separated by ':'; one too\n"
		"                              costly for the agents is refused\n"
		"      --ignore-nodes LIST     do not record these nodes (CARET_IGNORE_NODES)\n"
		"      --select-topics LIST    record only these topics (CARET_SELECT_TOPICS)\n"
		"      --ignore-topics LIST    do not record these topics (CARET_IGNORE_TOPICS)\n"
		"                              Filters narrow what every process replays for\n"
		"                              this recording, and what those it starts\n"
		"                              record, with CARET's semantics (a select list\n"
		"                              wins over the ignore lists); with --all-hosts,\n"
		"                              on every host\n"
		"      --light                 light mode: fewer events (as ros2 caret)\n"
		"      --immediate             start without waiting for Enter\n"
		"      --subbuffer-size-ust BYTES  UST sub-buffer size, a power of two from\n"
		"                              the page size (4K) to 1G; K/M/G suffixes\n"
		"                              allowed (default %uK)\n"
		"      --subbuffer-count N     UST sub-buffers per buffer, a power of two\n"
		"                              from %u to %u (default %u)\n"
		"  -a, --append                the trace directory may exist and hold traces\n"
		"                              (as Jazzy's ros2 trace -a): this one goes into\n"
		"                              a new\n"
		"                              append-N directory inside it\n"
		"  -l, --list                  show caretd's plan of this recording and exit,\n"
		"                              nothing made: each channel (mode, sub-buffers),\n"
		"                              its events and contexts, rotation, flight\n"
		"                              recorder, filters, directory, pacing, as the\n"
		"                              session will be; without caretd, what caretctl\n"
		"                              knows alone, and says so; with --json as one\n"
		"                              result object\n"
		"  -v, --verbose               a progress line per change, not one bar\n"
		"      --duration DURATION     stop DURATION after all processes are\n"
		"                              recording; implies --immediate\n"
		"      --timeout DURATION      longest wait for all processes to reach\n"
		"                              RECORD (default %d, at most %lld)\n"
		"      --init-retry-num N      accepted and ignored, with a note (ros2 caret\n"
		"                              record's retries of LTTng's set-up: caretd\n"
		"                              starts the session itself and retries nothing)\n"
		"      --json                  JSON lines on stdout: progress, then the\n"
		"                              record, wait and stop results (each with\n"
		"                              \"cmd\"), or {\"error\", \"errno\"}\n"
		"      --socket PATH           caretd's control socket\n"
		"  -h, --help                  this help\n\n"
		"Enter or Ctrl-C stops the recording and prints where the trace is and\n"
		"what LTTng discarded.\n\n"
		"Every option of ros2 caret record is here; where an option comes from\n"
		"(ros2 caret record, ros2 trace, or ours) is said with it and in\n"
		"caretctl(1), DIFFERENCES FROM ros2 caret record AND ros2 trace.\n\n"
		"Exit status: 0 recorded; 1 caretd or LTTng failed; 2 usage error;\n"
		"3 caretd not reachable; 4 some processes did not reach RECORD within\n"
		"--timeout (without --duration the session is left recording: stop it\n"
		"with 'caretctl stop'; with --duration it records on and is stopped);\n"
		"5 malformed reply; 128+N interrupted by signal N before all processes\n"
		"were recording (the session is stopped; 130 for Ctrl-C).\n\n"
		"While LTTng starts the session (tens of seconds with many processes),\n"
		"caretd says so and record waits as long as caretd answers; a record\n"
		"interrupted or killed meanwhile leaves nothing running: caretd stops\n"
		"the session once LTTng's start returns. Once started, record holds\n"
		"its recording: killed (SIGKILL, a second Ctrl-C, a lost terminal),\n"
		"caretd stops it as 'caretctl stop' does; released only at exit 4\n"
		"without --duration.\n",
		CARET_CTL_SESSION_NAME_MAX, CARET_CTL_FREQUENCY_MAX, CARET_CTL_DEFAULT_FREQUENCY,
		CARET_CTL_DEFAULT_SUBBUF_SIZE >> 10, CARET_CTL_SUBBUF_COUNT_MIN,
		CARET_CTL_SUBBUF_COUNT_MAX, CARET_CTL_DEFAULT_SUBBUF_COUNT,
		CARET_CTL_DEFAULT_TIMEOUT_MS / 1000,
		(long long)(CARET_CTL_TIMEOUT_MAX_MS / 1000));
	fprintf(f, "\nEvent selection (as ros2 trace, but where it says ours):\n");
	cli_sel_usage(f);
	fprintf(f, "\nRotation (a recording that never needs to stop):\n");
	cli_rotation_usage(f);
	fprintf(f, "\nFlight recorder (keep the last moments, write them on request):\n");
	cli_snapshot_usage(f);
	fprintf(f, "\nSimulation time:\n");
	cli_simclock_usage(f);
}

enum {
	OPT_PACING = 0x2000,
	OPT_LIGHT,
	OPT_IMMEDIATE,
	OPT_SUBBUF_SIZE,
	OPT_SUBBUF_COUNT,
	OPT_DURATION,
	OPT_TIMEOUT,
	OPT_SET_URL,
	OPT_ALL_HOSTS,
	OPT_SELECT_NODES, /* the four in enum caret_filter_list's order */
	OPT_IGNORE_NODES,
	OPT_SELECT_TOPICS,
	OPT_IGNORE_TOPICS,
	OPT_INIT_RETRY_NUM,
};

static const char *const filter_opts[4] = { "--select-nodes", "--ignore-nodes",
					    "--select-topics", "--ignore-topics" };

/* "invalid -f/--recording-frequency 'x': must be ..." and exit 2. */
static int bad_value(const char *opt, const char *val, const char *rule)
{
	return cli_usage_error("record", "invalid %s '%s': %s", opt, val, rule);
}

static int parse_checked(const char *opt, const char *val, int parsed, uint64_t v,
			 int (*check)(uint64_t, char *, size_t), const char *(*rule)(void))
{
	char why[160];
	if (parsed < 0)
		return bad_value(opt, val, rule());
	if (check(v, why, sizeof(why)) < 0)
		return bad_value(opt, val, why);
	return 0;
}

/* Over 80 lines: one case per option of `record` (caretctl(1)), each a
 * few lines; split up, the options would be read in several places. */
int cli_record_parse(struct cli_opts *g, struct rec_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "session-name", required_argument, NULL, 's' },
		{ "path", required_argument, NULL, 'p' },
		{ "output", required_argument, NULL, 'o' },
		{ "recording-frequency", required_argument, NULL, 'f' },
		{ "pacing", required_argument, NULL, OPT_PACING },
		{ "light", no_argument, NULL, OPT_LIGHT },
		{ "immediate", no_argument, NULL, OPT_IMMEDIATE },
		{ "subbuffer-size-ust", required_argument, NULL, OPT_SUBBUF_SIZE },
		{ "subbuffer-count", required_argument, NULL, OPT_SUBBUF_COUNT },
		{ "verbose", no_argument, NULL, 'v' },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "list", no_argument, NULL, 'l' },
		{ "append", no_argument, NULL, 'a' },
		{ "append-trace", no_argument, NULL, 'a' },
		{ "set-url", required_argument, NULL, OPT_SET_URL },
		{ "all-hosts", no_argument, NULL, OPT_ALL_HOSTS },
		{ "init-retry-num", required_argument, NULL, OPT_INIT_RETRY_NUM },
		{ "select-nodes", required_argument, NULL, OPT_SELECT_NODES },
		{ "ignore-nodes", required_argument, NULL, OPT_IGNORE_NODES },
		{ "select-topics", required_argument, NULL, OPT_SELECT_TOPICS },
		{ "ignore-topics", required_argument, NULL, OPT_IGNORE_TOPICS },
		CLI_ROTATION_LONGOPTS,
		CLI_SNAPSHOT_LONGOPTS,
		CLI_SEL_LONGOPTS,
		CLI_SIMCLOCK_LONGOPTS,
		CLI_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	const char *path = NULL;
	int opt, e;

	o->timeout_ms = CARET_CTL_DEFAULT_TIMEOUT_MS;
	optind = 0;
	while ((opt = getopt_long(argc, argv, "s:p:o:f:vlahc" CLI_SEL_SHORTOPTS, longopts, NULL)) != -1) {
		switch (opt) {
		case 's': {
			char why[160];
			if (caret_ctl_check_session_name(optarg, why, sizeof(why)) < 0)
				return bad_value("-s/--session-name", optarg, why);
			o->session = optarg;
			break;
		}
		case 'p':
		case 'o':
			if (!*optarg)
				return bad_value(opt == 'p' ? "-p/--path" : "-o/--output", optarg,
						 "must not be empty");
			if (path && strcmp(path, optarg) != 0)
				return cli_usage_error("record", "-p/--path and -o/--output name "
						       "two directories: choose one");
			path = optarg;
			break;
		case 'f':
			e = cli_parse_count(optarg, UINT64_MAX, &o->frequency);
			if ((e = parse_checked("-f/--recording-frequency", optarg, e, o->frequency,
					       caret_ctl_check_frequency,
					       caret_ctl_rule_frequency)) != 0)
				return e;
			break;
		case OPT_PACING:
			if (strcmp(optarg, CARET_CTL_PACING_FREQUENCY) && strcmp(optarg, CARET_CTL_PACING_ADAPTIVE))
				return bad_value("--pacing", optarg,
						 "must be frequency or adaptive");
			o->pacing = optarg;
			break;
		case OPT_LIGHT:
			o->light = true;
			break;
		case OPT_IMMEDIATE:
			o->immediate = true;
			break;
		case OPT_SUBBUF_SIZE:
			e = cli_parse_size(optarg, &o->subbuf_size);
			if ((e = parse_checked("--subbuffer-size-ust", optarg, e, o->subbuf_size,
					       caret_ctl_check_subbuf_size,
					       caret_ctl_rule_subbuf_size)) != 0)
				return e;
			break;
		case OPT_SUBBUF_COUNT:
			e = cli_parse_count(optarg, UINT64_MAX, &o->subbuf_count);
			if ((e = parse_checked("--subbuffer-count", optarg, e, o->subbuf_count,
					       caret_ctl_check_subbuf_count,
					       caret_ctl_rule_subbuf_count)) != 0)
				return e;
			break;
		case 'l':
			o->list = true;
			break;
		case 'a':
			o->append = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case OPT_DURATION:
			if (cli_parse_timeout(optarg, &o->duration_ms) < 0)
				return bad_value("--duration", optarg,
						 "must be a duration (" CLI_DURATION_SYNTAX "), "
						 "more than 0 and at most 2147483 s");
			o->immediate = true;
			break;
		case OPT_TIMEOUT:
			if (cli_parse_timeout(optarg, &o->timeout_ms) < 0 ||
			    caret_ctl_check_timeout_ms(o->timeout_ms, NULL, 0) < 0)
				return bad_value("--timeout", optarg, caret_ctl_rule_timeout());
			break;
		case OPT_SET_URL:
			if (!*optarg)
				return cli_usage_error("record", "empty URL");
			o->url = optarg;
			break;
		case OPT_ALL_HOSTS:
			o->all_hosts = true;
			break;
		case OPT_INIT_RETRY_NUM: {
			/* ros2 caret record's retries of its LTTng set-up: a script
			 * written for it must run here too (issue 33 L5) */
			uint64_t n;
			if (strcmp(optarg, "0") != 0 && cli_parse_count(optarg, INT32_MAX, &n) < 0)
				return bad_value("--init-retry-num", optarg, "must be a number");
			fprintf(stderr, "caretctl: note: --init-retry-num ignored: caretd starts "
				"the session itself and retries nothing\n");
			break;
		}
		case OPT_SELECT_NODES:
		case OPT_IGNORE_NODES:
		case OPT_SELECT_TOPICS:
		case OPT_IGNORE_TOPICS: {
			/* caretd checks encoding and size (one rule, its own);
			 * the dialect is checked here too, as a usage error */
			char why[256];
			if (caret_re_check_list(optarg, why, sizeof(why)) < 0)
				return bad_value(filter_opts[opt - OPT_SELECT_NODES], optarg, why);
			o->filter[opt - OPT_SELECT_NODES] = optarg;
			break;
		}
		case 'h':
			usage(cli_help_out());
			/* -1: done, the exit status is 0 */
			return cli_help_done("record") == CLI_EXIT_OK ? -1 : CLI_EXIT_FAILED;
		default:
			e = 0;
			if (cli_rotation_opt(opt, optarg, &o->rot, &e) ||
			    cli_snapshot_opt(opt, optarg, &o->snap, &e) ||
			    cli_sel_opt(opt, optarg, argc, argv, &o->sel, &e) ||
			    cli_simclock_opt(opt, &o->clock, &e)) {
				if (e)
					return e;
				break;
			}
			if (cli_common_opt(g, opt, optarg) < 0)
				return cli_bad_option("record", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error("record", "unexpected argument '%s'", argv[optind]);
	if (o->url && path)
		return cli_usage_error("record", "--set-url and --path name two outputs: choose one");
	if ((e = cli_rotation_check(&o->rot)) != 0)
		return e;
	if (o->url && (o->rot.size || o->rot.every_ms))
		return cli_usage_error("record", "a rotating recording needs a local --path, "
				       "not --set-url");
	if ((e = cli_snapshot_check(&o->snap)) != 0)
		return e;
	if ((e = cli_sel_check(&o->sel, o->light)) != 0)
		return e;
	if (caret_ctl_sel_kernel(&o->sel) && (o->snap.size || o->rot.size || o->rot.every_ms))
		return cli_usage_error("record", "-k/--kernel and --syscall do not go with "
				       "--snapshot or --rotate-*: those are sized and judged for "
				       "the UST channel alone");
	if (o->url && o->all_hosts && caret_ctl_sel_any(&o->sel))
		return cli_usage_error("record", "--set-url with --all-hosts: the other hosts' "
				       "sessions record CARET's lists; -u, --context, -k and "
				       "--syscall are for one host's recording");
	if (o->snap.size && (o->url || o->rot.size || o->rot.every_ms || o->subbuf_size ||
				 o->subbuf_count))
		return cli_usage_error("record", "--snapshot keeps its ring in memory: not with "
				       "--set-url, --rotate-*, --subbuffer-size-ust or "
				       "--subbuffer-count");
	if (!o->pacing)
		o->pacing = o->frequency ? CARET_CTL_PACING_FREQUENCY : CARET_CTL_PACING_ADAPTIVE;
	if (o->frequency && strcmp(o->pacing, CARET_CTL_PACING_ADAPTIVE) == 0)
		return cli_usage_error("record",
				       "-f/--recording-frequency sets a fixed rate; it "
				       "cannot go with --pacing adaptive");
	/* Sent explicitly so the rate is the documented one, as ros2 caret. */
	if (!o->frequency && strcmp(o->pacing, CARET_CTL_PACING_FREQUENCY) == 0)
		o->frequency = CARET_CTL_DEFAULT_FREQUENCY;
	e = cli_trace_dir(path, o->path, sizeof(o->path));
	if (e < 0)
		return cli_usage_error("record", "cannot make the trace path absolute: %s",
				       strerror(-e));
	return 0;
}
