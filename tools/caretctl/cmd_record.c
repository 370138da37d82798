/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `caretctl record`: what `ros2 caret record` does, with caretd doing the
 * work. Start a session, wait (with a limit) until every process has
 * replayed its initialization records and is in RECORD, record until
 * Enter, a signal or --duration, stop, report losses.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/caret_ctl.h"
#include "caretctl.h"
#include "proto/caret_ctl_dec.h"
#include "proto/caret_ctl_evlist.h"
#include "proto/caret_ctl_limits.h"
#include "proto/caret_regex.h"
#include "parse.h"
#include "hosts.h"
#include "rotation_cli.h" /* issue 23 */
#include "rpc.h"
#include "sig.h"
#include "tracedir.h"
#include "wait.h"

struct rec_opts {
	const char *session;
	char path[PATH_MAX];
	const char *pacing;
	uint64_t frequency, subbuf_size, subbuf_count;
	bool light, immediate, verbose, list, append, all_hosts;
	const char *url;	/* --set-url: lttng-relayd output instead of path */
	/* CARET's filters for this recording (CARET_SELECT_NODES ...), in
	 * the order of the control protocol's keys below; NULL: none */
	const char *filter[4];
	int64_t duration_ms;	/* 0: until Enter or a signal */
	int64_t timeout_ms;
	struct ctl_rotation rot; /* issue 23 */
};

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
		"  -o, --output DIR            the same as -p/--path (as ros2 trace -o)\n"
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
		"                              expressions separated by ':'\n"
		"      --ignore-nodes LIST     do not record these nodes (CARET_IGNORE_NODES)\n"
		"      --select-topics LIST    record only these topics (CARET_SELECT_TOPICS)\n"
		"      --ignore-topics LIST    do not record these topics (CARET_IGNORE_TOPICS)\n"
		"                              Filters narrow what the processes that start\n"
		"                              replaying for this recording replay and record,\n"
		"                              with CARET's semantics (a select list wins over\n"
		"                              the ignore lists); with --all-hosts, on every\n"
		"                              host\n"
		"      --light                 light mode: fewer events (as ros2 caret)\n"
		"      --immediate             start without waiting for Enter\n"
		"      --subbuffer-size-ust BYTES  UST sub-buffer size, a power of two from\n"
		"                              the page size (4K) to 1G; K/M/G suffixes\n"
		"                              allowed (default %uK)\n"
		"      --subbuffer-count N     UST sub-buffers per buffer, a power of two\n"
		"                              from %u to %u (default %u)\n"
		"  -a, --append                the trace directory may exist and hold traces\n"
		"                              (as ros2 trace -a): this one goes into a new\n"
		"                              append-N directory inside it\n"
		"  -l, --list                  show what would be enabled (events, contexts,\n"
		"                              channel, directory, pacing) and exit\n"
		"  -v, --verbose               a progress line per change, not one bar\n"
		"      --duration SECONDS      stop SECONDS after all processes are\n"
		"                              recording; implies --immediate\n"
		"      --timeout SECONDS       longest wait for all processes to reach\n"
		"                              RECORD (default %d, at most %lld)\n"
		"      --json                  JSON lines on stdout: progress, then the\n"
		"                              record, wait and stop results (each with\n"
		"                              \"cmd\"), or {\"error\", \"errno\"}\n"
		"      --socket PATH           caretd's control socket\n"
		"  -h, --help                  this help\n\n"
		"Enter or Ctrl-C stops the recording and prints where the trace is and\n"
		"what LTTng discarded.\n\n"
		"Exit status: 0 recorded; 1 caretd or LTTng failed; 2 usage error;\n"
		"3 caretd not reachable; 4 some processes did not reach RECORD within\n"
		"--timeout (without --duration the session is left recording: stop it\n"
		"with 'caretctl stop'; with --duration it records on and is stopped);\n"
		"5 malformed reply; 128+N interrupted by signal N before all processes\n"
		"were recording (the session is stopped; 130 for Ctrl-C).\n",
		CARET_CTL_SESSION_NAME_MAX, CARET_CTL_FREQUENCY_MAX, CARET_CTL_DEFAULT_FREQUENCY,
		CARET_CTL_DEFAULT_SUBBUF_SIZE >> 10, CARET_CTL_SUBBUF_COUNT_MIN,
		CARET_CTL_SUBBUF_COUNT_MAX, CARET_CTL_DEFAULT_SUBBUF_COUNT,
		CARET_CTL_DEFAULT_TIMEOUT_MS / 1000,
		(long long)(CARET_CTL_TIMEOUT_MAX_MS / 1000));
	fprintf(f, "\nRotation (a recording that never needs to stop):\n");
	ctl_rotation_usage(f); /* issue 23 */
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
	OPT_SELECT_NODES, /* the four in caret_ctl.h's order below */
	OPT_IGNORE_NODES,
	OPT_SELECT_TOPICS,
	OPT_IGNORE_TOPICS,
};

static const char *const filter_keys[4] = { CARET_CTL_K_SELECT_NODES, CARET_CTL_K_IGNORE_NODES,
					    CARET_CTL_K_SELECT_TOPICS, CARET_CTL_K_IGNORE_TOPICS };

static const char *const filter_opts[4] = { "--select-nodes", "--ignore-nodes",
					    "--select-topics", "--ignore-topics" };

/* "invalid -f/--recording-frequency 'x': must be ..." and exit 2. */
static int bad_value(const char *opt, const char *val, const char *rule)
{
	return ctl_usage_error("record", "invalid %s '%s': %s", opt, val, rule);
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

static int parse_opts(struct ctl_opts *g, struct rec_opts *o, int argc, char **argv)
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
		{ "select-nodes", required_argument, NULL, OPT_SELECT_NODES },
		{ "ignore-nodes", required_argument, NULL, OPT_IGNORE_NODES },
		{ "select-topics", required_argument, NULL, OPT_SELECT_TOPICS },
		{ "ignore-topics", required_argument, NULL, OPT_IGNORE_TOPICS },
		CTL_ROTATION_LONGOPTS, /* issue 23 */
		CTL_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	const char *path = NULL;
	int opt, e;

	o->timeout_ms = CARET_CTL_DEFAULT_TIMEOUT_MS;
	optind = 0;
	while ((opt = getopt_long(argc, argv, "+s:p:o:f:vlah", longopts, NULL)) != -1) {
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
				return ctl_usage_error("record", "-p/--path and -o/--output name "
						       "two directories: choose one");
			path = optarg;
			break;
		case 'f':
			e = ctl_parse_count(optarg, UINT64_MAX, &o->frequency);
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
			e = ctl_parse_size(optarg, &o->subbuf_size);
			if ((e = parse_checked("--subbuffer-size-ust", optarg, e, o->subbuf_size,
					       caret_ctl_check_subbuf_size,
					       caret_ctl_rule_subbuf_size)) != 0)
				return e;
			break;
		case OPT_SUBBUF_COUNT:
			e = ctl_parse_count(optarg, UINT64_MAX, &o->subbuf_count);
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
			if (ctl_parse_seconds(optarg, &o->duration_ms) < 0)
				return bad_value("--duration", optarg,
						 "must be seconds, more than 0 and at most 2147483");
			o->immediate = true;
			break;
		case OPT_TIMEOUT:
			if (ctl_parse_seconds(optarg, &o->timeout_ms) < 0 ||
			    caret_ctl_check_timeout_ms(o->timeout_ms, NULL, 0) < 0)
				return bad_value("--timeout", optarg, caret_ctl_rule_timeout());
			break;
		case OPT_SET_URL:
			if (!*optarg)
				return ctl_usage_error("record", "empty URL");
			o->url = optarg;
			break;
		case OPT_ALL_HOSTS:
			o->all_hosts = true;
			break;
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
			usage(stdout);
			return -1;
		default:
			e = 0;
			if (ctl_rotation_opt(opt, optarg, &o->rot, &e)) { /* issue 23 */
				if (e)
					return e;
				break;
			}
			if (ctl_common_opt(g, opt, optarg) < 0)
				return ctl_bad_option("record", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return ctl_usage_error("record", "unexpected argument '%s'", argv[optind]);
	if (o->url && path)
		return ctl_usage_error("record", "--set-url and --path name two outputs: choose one");
	if ((e = ctl_rotation_check(&o->rot)) != 0) /* issue 23 */
		return e;
	if (o->url && (o->rot.size || o->rot.every_ms))
		return ctl_usage_error("record", "a rotating recording needs a local --path, "
				       "not --set-url");
	if (!o->pacing)
		o->pacing = o->frequency ? CARET_CTL_PACING_FREQUENCY : CARET_CTL_PACING_ADAPTIVE;
	if (o->frequency && strcmp(o->pacing, CARET_CTL_PACING_ADAPTIVE) == 0)
		return ctl_usage_error("record",
				       "-f/--recording-frequency sets a fixed rate; it "
				       "cannot go with --pacing adaptive");
	/* Sent explicitly so the rate is the documented one, as ros2 caret. */
	if (!o->frequency && strcmp(o->pacing, CARET_CTL_PACING_FREQUENCY) == 0)
		o->frequency = CARET_CTL_DEFAULT_FREQUENCY;
	e = ctl_trace_dir(path, o->path, sizeof(o->path));
	if (e < 0)
		return ctl_usage_error("record", "cannot make the trace path absolute: %s",
				       strerror(-e));
	return 0;
}

static cJSON *record_request(const struct rec_opts *o)
{
	cJSON *r = caret_ctl_enc_request(CARET_CTL_CMD_RECORD);
	bool ok = r;
	if (ok && o->session)
		ok = cJSON_AddStringToObject(r, CARET_CTL_K_SESSION, o->session);
	if (ok && o->url)
		ok = cJSON_AddStringToObject(r, CARET_CTL_K_URL, o->url);
	else if (ok)
		ok = cJSON_AddStringToObject(r, CARET_CTL_K_PATH, o->path);
	if (ok && o->all_hosts)
		ok = cJSON_AddBoolToObject(r, CARET_CTL_K_ALL_HOSTS, true);
	ok = ok && cJSON_AddBoolToObject(r, CARET_CTL_K_LIGHT, o->light) &&
	     cJSON_AddStringToObject(r, CARET_CTL_K_PACING, o->pacing);
	if (ok && o->frequency)
		ok = cJSON_AddNumberToObject(r, CARET_CTL_K_RECORDING_FREQUENCY, (double)o->frequency);
	if (ok && o->append)
		ok = cJSON_AddBoolToObject(r, CARET_CTL_K_APPEND, true);
	if (ok && o->subbuf_size)
		ok = cJSON_AddNumberToObject(r, CARET_CTL_K_SUBBUF_SIZE, (double)o->subbuf_size);
	if (ok && o->subbuf_count)
		ok = cJSON_AddNumberToObject(r, CARET_CTL_K_SUBBUF_COUNT, (double)o->subbuf_count);
	for (int i = 0; ok && i < 4; i++)
		if (o->filter[i] && *o->filter[i])
			ok = cJSON_AddStringToObject(r, filter_keys[i], o->filter[i]);
	ok = ok && ctl_rotation_add(r, &o->rot); /* issue 23 */
	if (!ok) {
		cJSON_Delete(r);
		return NULL;
	}
	return r;
}

/* The stop after an interruption ends the other hosts' part too. */
static bool rec_all_hosts;

static int interrupted_code(void)
{
	return 128 + ctl_sig_caught();
}

/* Stops our session after an interruption; the exit status says so. */
static int stop_interrupted(const struct ctl_opts *g, const char *session)
{
	ctl_warn("interrupted before all processes were recording; stopping session %s",
		 session);
	int code = ctl_stop_session_all(g, session, rec_all_hosts);
	/* drops are reported; the interruption is the news */
	return code == CTL_EXIT_OK || code == CTL_EXIT_TIMEOUT ? interrupted_code() : code;
}

static void still_recording(const char *session)
{
	fprintf(stderr,
		"caretctl: session %s may still be recording; stop it with: "
		"caretctl stop -s %s\n",
		session, session);
}

/* Prints the wait result; returns OK, TIMEOUT, or a protocol error.
 * *ended is set when every process that is not recording has exited (the
 * others record: the recording goes on, and the exit status says TIMEOUT).
 * *dropped when full caches dropped init records (B11b): the recording
 * goes on, and the exit status says TIMEOUT too. */
static int report_wait(const struct ctl_opts *g, FILE *info, const struct ctl_reply *r,
		       int64_t timeout_ms, bool *ended, bool *dropped)
{
	*ended = false;
	*dropped = false;
	struct ctl_wait_result w;
	struct ctl_why why;
	int e = ctl_decode_wait(r->root, &w, &why);
	if (e == -ENOMEM)
		return ctl_fail(CTL_EXIT_FAILED, "out of memory");
	if (e < 0)
		return ctl_report_exchange(CARET_CTL_CMD_WAIT, e, &why, 0);
	if (g->json)
		ctl_print_json(r->root, CARET_CTL_CMD_WAIT);
	fflush(stdout);
	int code = CTL_EXIT_OK;
	if (w.ok) {
		fprintf(info, "%lld/%lld processes recording\n", (long long)w.recording,
			(long long)w.total);
		if (w.total == 0)
			ctl_warn("no process runs the caret agent: this trace will hold no "
				 "replayed ROS 2 initialization events");
	} else {
		size_t live = 0;
		for (size_t i = 0; i < w.n; i++)
			live += strcmp(w.lag[i].state, "EXITED") != 0;
		*ended = live == 0;
		if (*ended) {
			fprintf(info, "%lld/%lld processes recording\n", (long long)w.recording,
				(long long)w.total);
			ctl_fail(0, "%zu process%s ended with incomplete initialization data in "
				    "this trace:", w.n, w.n == 1 ? "" : "es");
		} else {
			ctl_fail(0, "only %lld of %lld processes reached RECORD within %.1f s; "
				    "not recording:",
				 (long long)w.recording, (long long)w.total,
				 (double)timeout_ms / 1000.0);
		}
		for (size_t i = 0; i < w.n; i++)
			fprintf(stderr, "  pid %lld (%s): %s, %s\n", (long long)w.lag[i].pid,
				w.lag[i].procname, w.lag[i].state, w.lag[i].reason);
		code = CTL_EXIT_TIMEOUT;
	}
	*dropped = ctl_report_drops(&w.drops);
	ctl_wait_result_free(&w);
	return code;
}

/* How often the recorder asks whether its session still records. */
#define WATCH_MS 500

enum watch { WATCH_ON, WATCH_GONE, WATCH_LOST };

/* Whether the session still records: WATCH_GONE when someone stopped or
 * destroyed it, WATCH_LOST when LTTng is unreachable. A caretd that does
 * not answer tells nothing: WATCH_ON. */
static enum watch watch_session(const struct ctl_opts *g, const char *session)
{
	cJSON *req = caret_ctl_enc_request(CARET_CTL_CMD_STATUS);
	struct ctl_reply r;
	struct ctl_conn c;
	struct ctl_why why = { "" };
	if (!req)
		return WATCH_ON;
	/* Quietly: a caretd restarting meanwhile is not worth a line every
	 * half second (the next look will tell). */
	int64_t deadline = ctl_now_ms() + 2000;
	int e = ctl_conn_open(&c, g->socket, deadline);
	if (e == 0) {
		e = ctl_exchange(&c, req, deadline, true, NULL, NULL, &r, &why);
		ctl_conn_close(&c);
	}
	cJSON_Delete(req);
	if (e < 0)
		return WATCH_ON;
	if (r.type != CTL_REPLY_RESULT) {
		ctl_reply_free(&r);
		return WATCH_ON;
	}
	struct ctl_status st;
	enum watch w = WATCH_ON;
	if (ctl_decode_status(r.root, &st, &why) == 0) {
		if (!st.lttng_reachable) {
			w = WATCH_LOST;
		} else {
			w = WATCH_GONE;
			const cJSON *e;
			cJSON_ArrayForEach(e, st.sessions)
				if (cJSON_IsString(e) && strcmp(e->valuestring, session) == 0)
					w = WATCH_ON;
		}
		ctl_status_free(&st);
	}
	ctl_reply_free(&r);
	return w;
}

/* Records until Enter, a signal, the duration, or the end of the session
 * (noticed within WATCH_MS; standard input may be closed). */
static enum watch record_on(const struct ctl_opts *g, const struct rec_opts *o, FILE *info,
			    const char *session)
{
	int64_t end = o->duration_ms ? ctl_now_ms() + o->duration_ms : INT64_MAX / 2;
	bool input = !o->duration_ms;
	if (o->duration_ms) {
		fprintf(info, "recording for %.1f s (Ctrl-C stops earlier)\n",
			(double)o->duration_ms / 1000.0);
	} else {
		ctl_discard_typeahead();
		fprintf(info, "press Enter or Ctrl-C to stop recording\n");
	}
	fflush(info);
	for (;;) {
		int64_t now = ctl_now_ms();
		if (now >= end)
			return WATCH_ON;
		int64_t until = now + WATCH_MS < end ? now + WATCH_MS : end;
		int e = input ? ctl_wait_enter(until) : ctl_sleep_until(until);
		if (e == -EINTR) {
			if (isatty(fileno(info)))
				fputc('\n', info); /* after the terminal's "^C" */
			return WATCH_ON;
		}
		if (input && e == 0)
			return WATCH_ON;
		if (input && e == -EPIPE) {
			input = false;
			fprintf(info, "standard input closed: stop with Ctrl-C, SIGTERM (pid %d) "
				      "or 'caretctl stop -s %s'\n",
				(int)getpid(), session);
			fflush(info);
		}
		enum watch w = watch_session(g, session);
		if (w != WATCH_ON)
			return w;
	}
}

static int recorded(const struct ctl_opts *g, const struct rec_opts *o, FILE *info,
		    const char *session, const char *path);

/* Arms the recording while we wait for Enter (caretd starts the session
 * with its channel disabled: the session start's cost, which grows with
 * the number of registered processes, is paid before Enter, as `ros2
 * caret record` creates its session before asking). The armed session's
 * name, or NULL with *code set. */
static char *arm(const struct ctl_opts *g, const struct rec_opts *o, int *code)
{
	struct ctl_reply r;
	struct ctl_record_result rec;
	struct ctl_why why;
	cJSON *req = record_request(o);
	if (!req || !cJSON_AddBoolToObject(req, CARET_CTL_K_ARM, true)) {
		cJSON_Delete(req);
		*code = ctl_fail(CTL_EXIT_FAILED, "out of memory");
		return NULL;
	}
	*code = ctl_call(g, req, CTL_RECORD_MS, false, &r);
	cJSON_Delete(req);
	if (*code != CTL_EXIT_OK)
		return NULL;
	int e = ctl_decode_record(r.root, &rec, &why);
	char *name = e < 0 ? NULL : strdup(rec.session);
	if (e < 0)
		*code = ctl_report_exchange(CARET_CTL_CMD_RECORD, e, &why, 0);
	else if (!name)
		*code = ctl_fail(CTL_EXIT_FAILED, "out of memory");
	ctl_reply_free(&r);
	return name;
}

/* An armed session that will not record: nothing to report. */
static void disarm(const struct ctl_opts *g, const char *session)
{
	struct ctl_reply r;
	cJSON *req = caret_ctl_enc_request(CARET_CTL_CMD_STOP);
	if (req && cJSON_AddStringToObject(req, CARET_CTL_K_SESSION, session) &&
	    ctl_call(g, req, CTL_RECORD_MS, false, &r) == CTL_EXIT_OK)
		ctl_reply_free(&r);
	cJSON_Delete(req);
}

static int run(struct ctl_opts *g, const struct rec_opts *o)
{
	char *armed = NULL;
	FILE *info = g->json ? stderr : stdout;
	struct ctl_reply r;
	struct ctl_record_result rec;
	struct ctl_why why;

	int e = ctl_sig_setup();
	if (e < 0)
		return ctl_fail(CTL_EXIT_FAILED, "cannot set up signal handling: %s",
				strerror(-e));
	if (!o->immediate) {
		/* Asking for Enter is pointless if caretd cannot be reached. */
		int code = ctl_ping(g);
		if (code != CTL_EXIT_OK)
			return code;
		/* Other hosts get their Start with the record request, and a
		 * filtered Start goes with it too: those recordings are not
		 * armed. */
		bool filtered = false;
		for (int i = 0; i < 4; i++)
			filtered = filtered || (o->filter[i] && *o->filter[i]);
		if (!o->all_hosts && !filtered && !(armed = arm(g, o, &code)))
			return code;
		fprintf(info, "press Enter to start recording\n");
		fflush(info);
		e = ctl_wait_enter(-1);
		if (e < 0 && armed)
			disarm(g, armed);
		if (e < 0)
			free(armed);
		if (e == -EINTR) {
			if (isatty(STDIN_FILENO) && isatty(STDERR_FILENO))
				fputc('\n', stderr);	/* after the terminal's "^C" */
			return ctl_fail(interrupted_code(), "interrupted; nothing was recorded");
		}
		if (e < 0)
			return ctl_usage_error("record", "standard input ended before Enter; "
							 "use --immediate to start without it");
	}

	cJSON *req = armed ? caret_ctl_enc_request(CARET_CTL_CMD_RECORD) : record_request(o);
	if (armed && req && !cJSON_AddStringToObject(req, CARET_CTL_K_GO, armed)) {
		cJSON_Delete(req);
		req = NULL;
	}
	free(armed);
	if (!req)
		return ctl_fail(CTL_EXIT_FAILED, "out of memory");
	/* Not interruptible: we must learn the session's name to stop it. */
	int code = ctl_call(g, req, CTL_RECORD_MS, false, &r);
	cJSON_Delete(req);
	if (code != CTL_EXIT_OK)
		return code;
	e = ctl_decode_record(r.root, &rec, &why);
	if (e < 0) {
		code = ctl_report_exchange(CARET_CTL_CMD_RECORD, e, &why, 0);
		fprintf(stderr, "caretctl: a session may have been started; see "
				"'caretctl status'\n");
		ctl_reply_free(&r);
		return code;
	}
	/* The name and path outlive the reply. */
	char *session = strdup(rec.session), *path = strdup(rec.path);
	if (!session || !path) {
		free(session);
		free(path);
		ctl_reply_free(&r);
		return ctl_fail(CTL_EXIT_FAILED, "out of memory");
	}
	if (g->json)
		ctl_print_json(r.root, CARET_CTL_CMD_RECORD);
	fflush(stdout);
	fprintf(info, "recording to %s (session %s)\n", rec.path, session);
	fflush(info);
	ctl_report_broadcast(r.root, "Start");
	ctl_reply_free(&r);
	code = recorded(g, o, info, session, path);
	free(session);
	free(path);
	return code;
}

/* The session is started: see it through to the end. */
static int recorded(const struct ctl_opts *g, const struct rec_opts *o, FILE *info,
		    const char *session, const char *path)
{
	struct ctl_reply r;
	if (ctl_sig_caught())
		return stop_interrupted(g, session);

	int code = ctl_wait_all(g, o->timeout_ms, o->verbose, &r);
	if (code == CTL_EXIT_INTERRUPTED)
		return stop_interrupted(g, session);
	bool ended = false, dropped = false;
	int final;
	if (code == CTL_EXIT_UNREACHABLE && o->duration_ms) {
		/* caretd away (B5): the session records all the same; whether
		 * every process made it is unknown, the duration is not */
		ctl_warn("recording on for --duration without caretd; whether every process "
			 "reached RECORD is unknown");
		final = CTL_EXIT_UNREACHABLE;
	} else if (code != CTL_EXIT_OK) {
		still_recording(session);
		return code;
	} else {
		final = report_wait(g, info, &r, o->timeout_ms, &ended, &dropped);
		ctl_reply_free(&r);
	}
	if (o->all_hosts && o->url && (final == CTL_EXIT_OK || final == CTL_EXIT_TIMEOUT)) {
		/* the other hosts' sessions stream to the same relay */
		int rc = ctl_wait_remote(g, o->timeout_ms, info);
		if (rc == CTL_EXIT_TIMEOUT)
			final = CTL_EXIT_TIMEOUT;
		else if (rc != CTL_EXIT_OK)
			fprintf(stderr, "caretctl: the other hosts' state is unknown\n");
	}
	if (final == CTL_EXIT_PROTOCOL || final == CTL_EXIT_FAILED) {
		still_recording(session);
		return final;
	}
	if (final == CTL_EXIT_TIMEOUT && !o->duration_ms && !ended) {
		fprintf(stderr,
			"caretctl: session %s is still recording (without the processes "
			"above, or with their initialization incomplete); stop it with: "
			"caretctl stop -s %s\n",
			session, session);
		return final;
	}
	if (final == CTL_EXIT_TIMEOUT && !ended)
		fprintf(stderr, "caretctl: recording on for --duration anyway\n");

	enum watch w = record_on(g, o, info, session);
	if (w == WATCH_GONE && ctl_rotation_why_ended(g, session)) /* issue 23 */
		return CTL_EXIT_FAILED;
	if (w == WATCH_GONE) {
		fprintf(info, "session %s was stopped or destroyed by someone else; the trace "
			      "is in %s\n", session, path);
		return final == CTL_EXIT_OK && dropped ? CTL_EXIT_TIMEOUT : final;
	}
	if (w == WATCH_LOST) {
		ctl_fail(0, "lttng-sessiond is gone: session %s ended with it; the trace in %s "
			    "holds what was recorded until then", session, path);
		return CTL_EXIT_FAILED;
	}
	code = ctl_stop_session_all(g, session, o->all_hosts);
	if (code == CTL_EXIT_OK && final == CTL_EXIT_OK && dropped)
		return CTL_EXIT_TIMEOUT;
	return code == CTL_EXIT_OK ? final : code;
}

/* What a record with these options would enable, from the lists caretd
 * uses (proto/caret_ctl_evlist.h); caretd is not asked. */
static int list(const struct rec_opts *o)
{
	printf("UST events enabled (%s list):\n", o->light ? "light" : "full");
	for (const char *const *e = caret_ctl_evlist(o->light, true); *e; e++)
		printf("  %s\n", *e);
	printf("context fields:\n");
	for (const char *const *c = caret_ctl_contexts; *c; c++)
		printf("  %s\n", *c);
	printf("channel %s: per-UID buffers, discard mode, %llu sub-buffers of %llu bytes "
	       "per CPU\n",
	       CARET_CTL_DEFAULT_CHANNEL,
	       (unsigned long long)(o->subbuf_count ? o->subbuf_count
						    : CARET_CTL_DEFAULT_SUBBUF_COUNT),
	       (unsigned long long)(o->subbuf_size ? o->subbuf_size
						   : CARET_CTL_DEFAULT_SUBBUF_SIZE));
	printf("trace directory: %s/%s%s\n", o->path,
	       o->session ? o->session : "caret-YYYYMMDD-HHMMSS",
	       o->append ? " (append-N inside it if it holds a trace)" : "");
	if (o->frequency)
		printf("replay pacing: %s, %llu records/s per process\n", o->pacing,
		       (unsigned long long)o->frequency);
	else
		printf("replay pacing: %s (as fast as the channel's buffers drain)\n", o->pacing);
	return CTL_EXIT_OK;
}

int cmd_record(struct ctl_opts *g, int argc, char **argv)
{
	static struct rec_opts o;
	int r = parse_opts(g, &o, argc, argv);
	if (r < 0)
		return CTL_EXIT_OK;	/* --help */
	if (r > 0)
		return r;
	if (o.list)
		return list(&o);
	rec_all_hosts = o.all_hosts;
	return run(g, &o);
}
