/* SPDX-License-Identifier: Apache-2.0 */
/*
 * caretd: host-wide runtime-recording daemon. One thread, one sd-event
 * loop. Event sources (the registry's inotify watch, the server's
 * sockets, signals) act when they fire; everything on a clock is a job of
 * one ordered tick (daemon/base/loop.h), every one listed in JOBS below
 * with its stage and period, in the tick's order.
 *
 * This file only parses options and wires the modules together.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>
#include <unistd.h>

#include "daemon/bridge/bridge.h"
#include "daemon/bridge/bridge_msg.h"
#include "daemon/server/commands.h"
#include "daemon/config.h"
#include "daemon/server/cmd_events.h"
#include "daemon/base/log.h"
#include "daemon/base/loop.h"
#include "daemon/lttng/lttng_helper.h"
#include "daemon/lttng/lttng_start.h"
#include "daemon/lttng/lttng_view.h"
#include "daemon/server/notify.h"
#include "daemon/agents/pacer.h"
#include "daemon/agents/registry.h"
#include "daemon/agents/registry_loop.h"
#include "daemon/recording/rotation.h"
#include "daemon/recording/snapshot_trigger.h"
#include "daemon/agents/scheduler.h"
#include "daemon/server/server.h"
#include "daemon/server/top.h"
#include "daemon/server/top_hosts.h"
#include "daemon/base/sigbus.h"
#include "daemon/recording/simclock.h"
#include "daemon/recording/features.h"
#include "daemon/recording/recordings.h"
#include "proto/caret_version.h"
#include "proto/caret_ctl.h"
#include "proto/caret_ctl_limits.h"
#include "shm/caret_shm.h"
#include "util/caret_util.h"

/* parse_args() results besides "go on" */
#define EXIT_DONE 0
#define EXIT_USAGE 2
#define GO_ON (-1)

struct options {
	struct server_cfg server;
	struct bridge_cfg bridge;
	struct daemon_cfg cli; /* the command line's settings ... */
	unsigned cli_set;      /* ... those it gave (enum config_key) */
	const char *config;    /* configuration file */
	bool config_given;     /* --config: the file must exist */
	int log_level;
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: caretd [OPTION]...\n"
		"Host-wide daemon for CARET runtime recording: finds the caret agents of this\n"
		"host, detects active LTTng sessions, and replays every process's cached\n"
		"initialization records into them (WAIT -> PREPARE -> RECORD).\n\n"
		"  --foreground              run in the foreground (the default; caretd never forks)\n"
		"  --socket PATH             control socket (default " CARET_CTL_DEFAULT_SOCKET ");\n"
		"                            ignored when systemd passes a socket\n"
		"  --group NAME              members of this group may use the socket too\n"
		"  --config FILE             configuration file (default " CARETD_DEFAULT_CONFIG
		", if it\n"
		"                            exists; see caretd(8)); SIGHUP reads it again\n"
		"  --pacing MODE             adaptive (default) or frequency\n"
		"  --recording-frequency N   records per second per process in frequency mode\n"
		"                            (default %d, CARET's recording_frequency; 1 to %d)\n"
		"  --replay-bandwidth BYTES  host-wide replay budget per second in adaptive mode\n"
		"                            where caretd cannot see the recording's buffers\n"
		"                            (K/M/G suffixes; default 64M, at most 1T)\n"
		"  --no-bridge               no DDS bridge to other hosts\n"
		"  --eager-bridge            load CycloneDDS at start, not when a DDS participant\n"
		"                            appears in the domain or --all-hosts needs it\n"
		"  --accept-relay            let other hosts' caretctl record --all-hosts --set-url\n"
		"                            create a streaming session to the relay they name,\n"
		"                            if it is in --relay-allow\n"
		"  --relay-allow HOST[,HOST] the relay hosts --accept-relay streams to (as the\n"
		"                            URL names them); none given: every request refused\n"
		"  --relay-max-duration S    a relay session stops after S seconds (default %d)\n"
		"  --relay-max-size BYTES    ... or after BYTES streamed (K/M/G; default 1G)\n"
		"  --subbuffer-size BYTES    default sub-buffer size of recordings (power of two)\n"
		"  --subbuffer-count N       default sub-buffer count of recordings (power of two)\n"
		"  --arm-timeout SECONDS     an armed recording (caretctl record waiting for\n"
		"                            Enter) nobody starts is destroyed after it\n"
		"                            (default %d, 1 to %d)\n"
		"  --log-level LEVEL         error, warning, info (default) or debug\n"
		"  --help, --version\n\n"
		"Environment: CARET_SHM_PREFIX selects the agents' segment names (default\n"
		"caret-agent); ROS_DOMAIN_ID the bridge's DDS domain (default 0); CYCLONEDDS_URI\n"
		"its CycloneDDS configuration. Logs go to stderr (the journal under systemd).\n"
		"Signals: SIGTERM and SIGINT stop caretd (agents keep their state); SIGHUP\n"
		"reads the configuration file again.\n"
		"Exit status: 0 after a stop signal, 1 on a start-up error, 2 on a usage error.\n",
		CARET_CTL_DEFAULT_FREQUENCY, CARET_CTL_FREQUENCY_MAX, BRIDGE_RELAY_MAX_SECONDS,
		RECORDINGS_ARM_TIMEOUT_S, CONFIG_ARM_TIMEOUT_MAX);
}

static int usage_error(void)
{
	fprintf(stderr, "Try 'caretd --help'.\n");
	return EXIT_USAGE;
}

/* Over 80 lines: one case per option of caretd(8), each a few lines; split
 * up, the options would be read in several places. */
static int parse_args(int argc, char **argv, struct options *o)
{
	static const struct option opts[] = {
		{ "foreground", 0, 0, 'F' }, { "socket", 1, 0, 's' }, { "group", 1, 0, 'g' },
		{ "pacing", 1, 0, 'p' }, { "recording-frequency", 1, 0, 'f' },
		{ "replay-bandwidth", 1, 0, 'b' }, { "log-level", 1, 0, 'l' },
		{ "no-bridge", 0, 0, 'N' }, { "eager-bridge", 0, 0, 'E' },
		{ "accept-relay", 0, 0, 'A' },
		{ "config", 1, 0, 'c' }, { "subbuffer-size", 1, 0, 'S' },
		{ "subbuffer-count", 1, 0, 'C' }, { "arm-timeout", 1, 0, 'T' },
		{ "relay-allow", 1, 0, 'R' },
		{ "relay-max-duration", 1, 0, 'D' }, { "relay-max-size", 1, 0, 'Z' },
		{ "help", 0, 0, 'h' }, { "version", 0, 0, 'V' }, { 0, 0, 0, 0 } };
	int c;
	while ((c = getopt_long(argc, argv, "hV", opts, NULL)) != -1) {
		switch (c) {
		case 'F':
			break;
		case 's':
			o->server.socket_path = optarg;
			break;
		case 'g': {
			struct group *g = getgrnam(optarg);
			if (!g) {
				fprintf(stderr, "caretd: invalid --group '%s': no such group\n",
					optarg);
				return usage_error();
			}
			o->server.group = g->gr_gid;
			o->server.have_group = true;
			snprintf(o->server.group_name, sizeof(o->server.group_name), "%s",
				 g->gr_name);
			break;
		}
		case 'c':
			o->config = optarg;
			o->config_given = true;
			break;
		case 'p':
		case 'f':
		case 'b':
		case 'S':
		case 'T':
		case 'C': {
			char why[256];
			const char *key = c == 'p' ? "pacing" : c == 'f' ? "recording-frequency"
					: c == 'b' ? "replay-bandwidth" : c == 'S' ? "subbuffer-size"
					: c == 'T' ? "arm-timeout" : "subbuffer-count";
			if (config_set(&o->cli, key, optarg, &o->cli_set, why, sizeof(why)) < 0) {
				fprintf(stderr, "caretd: invalid --%s\n", why);
				return usage_error();
			}
			break;
		}
		case 'l':
			if (!strcmp(optarg, "error"))
				o->log_level = LOG_ERR;
			else if (!strcmp(optarg, "warning"))
				o->log_level = LOG_WARNING;
			else if (!strcmp(optarg, "info"))
				o->log_level = LOG_INFO;
			else if (!strcmp(optarg, "debug"))
				o->log_level = LOG_DEBUG;
			else {
				fprintf(stderr, "caretd: invalid --log-level '%s': must be error, "
						"warning, info or debug\n",
					optarg);
				return usage_error();
			}
			break;
		case 'N':
			o->bridge.enabled = false;
			break;
		case 'E':
			o->bridge.eager = true;
			break;
		case 'A':
			o->bridge.accept_relay = true;
			break;
		case 'R':
			if (bridge_msg_allow_check(optarg) < 0) {
				fprintf(stderr, "caretd: invalid --relay-allow '%.64s': must be 1 to 64 "
						"host names or addresses separated by commas, without "
						"blanks\n", optarg);
				return usage_error();
			}
			o->bridge.relay_allow = optarg;
			break;
		case 'D': {
			char *end;
			errno = 0;
			unsigned long v = strtoul(optarg, &end, 10);
			if (!isdigit((unsigned char)*optarg) || *end || errno || v < 1 ||
			    v > 7 * 24 * 3600) {
				fprintf(stderr, "caretd: invalid --relay-max-duration '%.64s': must be "
						"1 to 604800 seconds\n", optarg);
				return usage_error();
			}
			o->bridge.relay_max_s = (uint32_t)v;
			break;
		}
		case 'Z': {
			uint64_t v;
			if (caret_parse_size(optarg, 1ULL << 40, &v) < 0 || v < 4096) {
				fprintf(stderr, "caretd: invalid --relay-max-size '%.64s': must be 4K "
						"to 1T bytes (K/M/G suffixes allowed)\n", optarg);
				return usage_error();
			}
			o->bridge.relay_max_bytes = v;
			break;
		}
		case 'h':
			usage(stdout);
			return EXIT_DONE;
		case 'V':
			printf("caretd %s\n", CARETD_VERSION);
			return EXIT_DONE;
		default:
			/* getopt has named the option. */
			return usage_error();
		}
	}
	if (optind < argc) {
		fprintf(stderr, "caretd: unexpected argument '%s' (caretd takes only "
				"options)\n",
			argv[optind]);
		return usage_error();
	}
	return GO_ON;
}

/* The defaults in force: built in, then the file, then the command line. */
static struct daemon_cfg defaults;

/* Reads the configuration; on an error the defaults stay as they were. */
static int load_config(const struct options *o, bool starting)
{
	struct daemon_cfg c;
	unsigned set = 0;
	char err[512];
	config_builtin(&c);
	int r = config_load(o->config, &c, &set, err, sizeof(err));
	if (r == -ENOENT && !o->config_given) {
		r = 0; /* the default file is optional */
	} else if (r < 0) {
		log_err("configuration %s: %s", starting ? "not loaded" : "not reloaded, keeping "
			"the previous one", err);
		return r;
	}
	config_overlay(&c, &o->cli, o->cli_set);
	defaults = c;
	log_info("defaults%s: pacing %s, recording frequency %u/s, replay bandwidth %llu B/s, "
		 "sub-buffers %llu x %u (0: LTTng's), arm timeout %u s", starting ? "" : " reloaded",
		 pacing_name(c.sched.pacing), c.sched.frequency,
		 (unsigned long long)c.sched.bandwidth, (unsigned long long)c.subbuf_size,
		 c.subbuf_count, c.arm_timeout_s);
	return 0;
}

static int on_hup(sd_event_source *s, const struct signalfd_siginfo *si, void *arg)
{
	(void)s, (void)si;
	load_config(arg, false);
	return 0;
}

static int on_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *arg)
{
	(void)arg;
	log_info("signal %u: shutting down", si->ssi_signo);
	return sd_event_exit(sd_event_source_get_event(s), 0);
}

static int add_signals(sd_event *e, struct options *o)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };
	sigset_t ss;
	sigemptyset(&ss);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&ss, sigs[i]);
	/* sd-event reads them from a signalfd: they must not be delivered */
	if (sigprocmask(SIG_BLOCK, &ss, NULL) < 0)
		return -errno;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		int r = sigs[i] == SIGHUP ? sd_event_add_signal(e, NULL, SIGHUP, on_hup, o)
					  : sd_event_add_signal(e, NULL, sigs[i], on_signal, NULL);
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * Every job of the tick, in the order it runs them within each stage
 * (daemon/base/loop.h): the modules add theirs at their *_start, and the
 * loop refuses one not listed here. The view before the bridge's take (a
 * relay session's bounds and a remote Start read it), the bridge's take
 * before the pacer (a remote Start is the scheduler's input).
 */
static const struct loop_plan JOBS[] = {
	{ "registry retry", LOOP_OBSERVE, "50 ms while a segment is being set up, else 5 s" },
	{ "registry sweep", LOOP_OBSERVE, "1 s: dead processes' segments" },
	{ "LTTng view", LOOP_OBSERVE, "50 ms, 1 s when quiet; at once on a session's change" },
	{ "bridge take", LOOP_OBSERVE, "100 ms, 1 s when quiet, 10 s asleep" },
	{ "rotation", LOOP_OBSERVE, "20 ms while a rotating recording is busy (2 ms around a "
	  "periodic rotation's due time), else 1 s" },
	{ "snapshot triggers", LOOP_OBSERVE, "50 ms while a trigger is armed" },
	{ "simclock", LOOP_OBSERVE, "500 ms while a record -c helper runs" },
	{ "top leases", LOOP_OBSERVE, "1 s while `top` watches a process, else 10 s" },
	{ "pacer", LOOP_SCHEDULE, "1 ms while an agent replays (250 us once every pass is "
				  "granted whole), 50 ms while a session is active, else 1 s; "
				  "at once on a Start or End" },
	{ "client waits", LOOP_REPORT, "10 ms while a client waits" },
	{ "idle clients", LOOP_REPORT, "1 s" },
	{ "notify", LOOP_REPORT, "50 ms, 1 s when ready and no session is active" },
	{ "bridge publish", LOOP_REPORT, "100 ms while news is due, else its heartbeat; 10 s asleep" },
};

static int view_pass_filter(void *view, uint32_t after, uint32_t upto,
			    struct caret_filter_text *out)
{
	return lttng_view_pass_filter(view, after, upto, out);
}

/* A session started or ended (or LTTng came or went): the pacer moves
 * the agents now, and the bridge says so at once though it idles. */
struct view_watchers {
	struct pacer *pacer;
	struct bridge *bridge;
};

static void on_view_change(void *arg)
{
	struct view_watchers *w = arg;
	pacer_kick(w->pacer);
	bridge_kick(w->bridge);
}

/* sd-event with caretd's signals and the watchdog, and the tick with its
 * job table. */
static int open_loop(struct options *o, sd_event **e, struct loop *loop)
{
	int r = sd_event_default(e);
	if (r >= 0)
		r = add_signals(*e, o);
	if (r >= 0)
		r = sd_event_set_watchdog(*e, true);
	if (r >= 0)
		r = loop_open(loop, *e);
	if (r >= 0)
		r = loop_set_plan(loop, JOBS, (int)(sizeof(JOBS) / sizeof(JOBS[0])));
	return r;
}

/* The modules main wires together. */
struct daemon {
	struct registry reg;
	struct sched sched;
	struct lttng_view lttng;
	struct recordings recs;
	struct registry_loop reg_loop;
	struct pacer pacer;
	struct notify notify;
	struct bridge bridge;
	struct view_watchers vw;
	struct server *server; /* told when an agent became complete */
};

/* Each module's collaborators, handed to its start; the order of the
 * tick is JOBS', whatever the order here. */
static int start_modules(struct daemon *d, struct loop *loop)
{
	d->vw = (struct view_watchers){ .pacer = &d->pacer, .bridge = &d->bridge };
	const struct lttng_view_ops_in view_ops = { .ops = &caret_lttng_ops_real,
						    .on_change = on_view_change,
						    .change_arg = &d->vw };
	const struct registry_loop_ops reg_ops = {
		.reg = &d->reg, .on_hint = (void (*)(void *))lttng_view_hint, .hint_arg = &d->lttng
	};
	const struct pacer_ops pacer_ops = { .sched = &d->sched, .reg = &d->reg,
					     .lttng = &d->lttng, .defaults = &defaults.sched,
					     .pass_filter = view_pass_filter,
					     .pass_filter_arg = &d->lttng,
					     .completed = server_poll_waits,
					     .completed_arg = d->server };
	const struct notify_ops notify_ops = { .reg = &d->reg, .lttng = &d->lttng };
	const struct bridge_ops bridge_ops = { .reg = &d->reg, .sched = &d->sched,
					       .lttng = &d->lttng };
	const struct rotation_ops rot_ops = { .recs = &d->recs, .reg = &d->reg };
	const struct snapshot_trigger_ops trig_ops = { .recs = &d->recs, .reg = &d->reg };
	const struct simclock_ops clock_ops = { .recs = &d->recs };
	int r;
	if ((r = registry_loop_start(&d->reg_loop, loop, &reg_ops)) < 0 ||
	    (r = lttng_view_start(&d->lttng, loop, &view_ops)) < 0 ||
	    (r = pacer_start(&d->pacer, loop, &pacer_ops)) < 0 ||
	    (r = notify_start(&d->notify, loop, &notify_ops)) < 0 ||
	    (r = bridge_start(&d->bridge, loop, &bridge_ops)) < 0 ||
	    (r = rotation_start(loop, &rot_ops)) < 0 ||
	    (r = snapshot_trigger_start(loop, &trig_ops)) < 0 ||
	    (r = simclock_start(loop, &clock_ops)) < 0)
		return r;
	return 0;
}

static void stop_modules(struct daemon *d)
{
	bridge_stop(&d->bridge);
	simclock_stop();
	snapshot_trigger_stop();
	rotation_stop();
	pacer_stop(&d->pacer);
	registry_loop_stop(&d->reg_loop);
	lttng_start_abandon(); /* its helper stops what it makes, then exits */
	lttng_view_stop(&d->lttng);
	recordings_drop_state(&d->recs); /* issue 33 L10: nothing left behind */
}

/* Beside the recordings' state: the session of a start whose end caretd
 * may not have learnt (daemon/lttng/lttng_start.h). NULL when too long. */
static const char *start_marker(const struct options *o)
{
	static char marker[PATH_MAX];
	return snprintf(marker, sizeof(marker), "%s.starting", o->server.socket_path) <
			       (int)sizeof(marker)
		       ? marker
		       : NULL;
}

/* The modules' own settings, before any starts. */
static void daemon_init(struct daemon *d, const struct options *o)
{
	d->bridge.cfg = o->bridge;
	d->sched.cfg = defaults.sched;
	recordings_init(&d->recs, &d->lttng, recording_features, recording_n_features);
	d->recs.arm_timeout_s = &defaults.arm_timeout_s;
	d->bridge.recs = &d->recs;
	/* beside the socket: caretd's own directory (/run/caretd) */
	if (snprintf(d->recs.state_file, sizeof(d->recs.state_file), "%s.recordings",
		     o->server.socket_path) >= (int)sizeof(d->recs.state_file))
		d->recs.state_file[0] = '\0';
	d->recs.armed_marker = true;
}

int main(int argc, char **argv)
{
	static struct options o = {
		.server = { .socket_path = CARET_CTL_DEFAULT_SOCKET },
		.bridge = { .enabled = true, .domain = -1 },
		.config = CARETD_DEFAULT_CONFIG,
		.log_level = LOG_INFO,
	};
	if (argc == 2 && strcmp(argv[1], LTTNG_HELPER_ARG) == 0)
		lttng_helper_main(); /* caretd's own LTTng start helper */
	config_builtin(&o.cli);
	int rc = parse_args(argc, argv, &o);
	if (rc != GO_ON)
		return rc;
	log_init(o.log_level);
	if (load_config(&o, true) < 0)
		return 1;
	/* lttng-ctl writes to the session daemon's socket: if it dies, a
	 * SIGPIPE would kill us. */
	signal(SIGPIPE, SIG_IGN);
	sigbus_install();

	static struct daemon d;
	daemon_init(&d, &o);
	struct server *server = NULL;

	sd_event *e = NULL;
	static struct loop loop;
	int r = open_loop(&o, &e, &loop);
	if (r < 0) {
		log_err_errno(r, "cannot set up the event loop");
		return 1;
	}
	lttng_start_open(e, start_marker(&o)); /* its helper, before CycloneDDS's threads */
	r = registry_open(&d.reg);
	if (r < 0) {
		log_err_errno(r, "cannot watch /dev/shm");
		return 1;
	}
	struct events *events = events_new();
	if (!events) {
		log_err("out of memory");
		return 1;
	}
	/* the daemon's defaults; the pacer applies a recording's own options
	 * over them at each tick */
	struct cmd_ctx ctx = { .reg = &d.reg, .sched = &defaults.sched, .scheduler = &d.sched,
			       .lttng = &d.lttng, .ops = &caret_lttng_ops_real, .recs = &d.recs,
			       .events = events, .bridge = &d.bridge,
			       .subbuf_size = &defaults.subbuf_size,
			       .subbuf_count = &defaults.subbuf_count };
	if ((r = top_start(&ctx.top, &loop, &d.reg)) < 0) {
		log_err_errno(r, "cannot set up top");
		return 1;
	}
	bridge_top_serve(&d.bridge, &TOP_HOSTS_SOURCE(ctx.top));
	if (server_start(&server, &loop, &o.server, &ctx) < 0)
		return 1;
	caret_armed_set(false); /* a previous caretd's, if any: it names a dead pid */
	d.server = server;
	if ((r = start_modules(&d, &loop)) < 0) {
		log_err_errno(r, "cannot set up the event loop");
		return 1;
	}
	log_info("caretd %s started, %d agents found, pacing %s", CARETD_VERSION, d.reg.count,
		 pacing_name(d.sched.cfg.pacing));

	r = sd_event_loop(e);
	if (r < 0)
		log_err_errno(r, "event loop");
	notify_stopping(&d.notify);
	server_free(server);
	stop_modules(&d);
	top_stop(ctx.top);
	loop_close(&loop);
	registry_close(&d.reg);
	events_free(events);
	sd_event_unref(e);
	log_info("stopped; agents keep their state in their segments");
	return r < 0 ? 1 : 0;
}
