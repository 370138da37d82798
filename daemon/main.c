/* SPDX-License-Identifier: Apache-2.0 */
/*
 * caretd: host-wide runtime-recording daemon. One thread, one sd-event
 * loop; each module registers its own sources (the registry its inotify
 * watch and sweeps, the LTTng view its poll, the pacer the scheduler's
 * ticks, the server its sockets, notify its STATUS line). This file only
 * parses options and wires them together.
 */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>
#include <unistd.h>

#include "daemon/commands.h"
#include "daemon/log.h"
#include "daemon/lttng_view.h"
#include "daemon/notify.h"
#include "daemon/pacer.h"
#include "daemon/registry.h"
#include "daemon/registry_loop.h"
#include "daemon/scheduler.h"
#include "daemon/server.h"
#include "daemon/version.h"
#include "proto/caret_ctl.h"
#include "shm/caret_shm.h"

/* parse_args() results besides "go on" */
#define EXIT_DONE 0
#define EXIT_USAGE 2
#define GO_ON (-1)

struct options {
	struct server_cfg server;
	struct sched_cfg sched;
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
		"  --pacing MODE             adaptive (default) or frequency\n"
		"  --recording-frequency N   records per second per process in frequency mode\n"
		"                            (default %d, CARET's recording_frequency)\n"
		"  --replay-bandwidth BYTES  host-wide replay budget per second in adaptive mode\n"
		"                            (K/M/G suffixes; default 64M)\n"
		"  --log-level LEVEL         error, warning, info (default) or debug\n"
		"  --help, --version\n\n"
		"Environment: CARET_SHM_PREFIX selects the agents' segment names (default\n"
		"caret-agent). Logs go to stderr (the journal under systemd).\n"
		"Exit status: 0 after SIGTERM/SIGINT, 1 on a start-up error, 2 on a usage error.\n",
		CARET_CTL_DEFAULT_FREQUENCY);
}

static int parse_args(int argc, char **argv, struct options *o)
{
	static const struct option opts[] = {
		{ "foreground", 0, 0, 'F' }, { "socket", 1, 0, 's' }, { "group", 1, 0, 'g' },
		{ "pacing", 1, 0, 'p' }, { "recording-frequency", 1, 0, 'f' },
		{ "replay-bandwidth", 1, 0, 'b' }, { "log-level", 1, 0, 'l' },
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
				fprintf(stderr, "caretd: no such group: %s\n", optarg);
				return EXIT_USAGE;
			}
			o->server.group = g->gr_gid;
			o->server.have_group = true;
			break;
		}
		case 'p':
			if (pacing_parse(optarg, &o->sched.pacing) < 0) {
				fprintf(stderr, "caretd: --pacing must be adaptive or frequency\n");
				return EXIT_USAGE;
			}
			break;
		case 'f': {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*end || v <= 0 || v > 100000000) {
				fprintf(stderr, "caretd: bad --recording-frequency: %s\n", optarg);
				return EXIT_USAGE;
			}
			o->sched.frequency = (uint32_t)v;
			break;
		}
		case 'b':
			if (caret_parse_size(optarg, 1ULL << 40, &o->sched.bandwidth) < 0) {
				fprintf(stderr, "caretd: bad --replay-bandwidth: %s\n", optarg);
				return EXIT_USAGE;
			}
			break;
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
				fprintf(stderr, "caretd: bad --log-level: %s\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'h':
			usage(stdout);
			return EXIT_DONE;
		case 'V':
			printf("caretd %s\n", CARETD_VERSION);
			return EXIT_DONE;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	return GO_ON;
}

static int on_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *arg)
{
	(void)arg;
	log_info("signal %u: shutting down", si->ssi_signo);
	return sd_event_exit(sd_event_source_get_event(s), 0);
}

static int add_signals(sd_event *e)
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
		int r = sd_event_add_signal(e, NULL, sigs[i], on_signal, NULL);
		if (r < 0)
			return r;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct options o = {
		.server = { .socket_path = CARET_CTL_DEFAULT_SOCKET },
		.sched = { .pacing = PACING_ADAPTIVE, .frequency = CARET_CTL_DEFAULT_FREQUENCY,
			   .bandwidth = 64ULL << 20 },
		.log_level = LOG_INFO,
	};
	int rc = parse_args(argc, argv, &o);
	if (rc != GO_ON)
		return rc;
	log_init(o.log_level);
	/* lttng-ctl writes to the session daemon's socket: if it dies, a
	 * SIGPIPE would kill us. */
	signal(SIGPIPE, SIG_IGN);

	static struct registry reg;
	static struct sched sched;
	static struct lttng_view lttng;
	static struct registry_loop reg_loop;
	static struct pacer pacer;
	static struct notify notify;
	struct server *server = NULL;
	sched.cfg = o.sched;

	sd_event *e = NULL;
	int r = sd_event_default(&e);
	if (r >= 0)
		r = add_signals(e);
	if (r >= 0)
		r = sd_event_set_watchdog(e, true);
	if (r < 0) {
		log_err("cannot set up the event loop: %s", strerror(-r));
		return 1;
	}
	r = registry_open(&reg);
	if (r < 0) {
		log_err("cannot watch /dev/shm: %s", strerror(-r));
		return 1;
	}
	/* the daemon's defaults; the pacer applies a recording's own options
	 * over them at each tick */
	static struct sched_cfg defaults;
	defaults = o.sched;
	struct cmd_ctx ctx = { .reg = &reg, .sched = &defaults, .lttng = &lttng };
	if (server_start(&server, e, &o.server, &ctx) < 0)
		return 1;
	/* The LTTng view first: the others read it at their first run. */
	if ((r = lttng_view_start(&lttng, e)) < 0 ||
	    (r = registry_loop_start(&reg_loop, &reg, e)) < 0 ||
	    (r = pacer_start(&pacer, e, &sched, &reg, &lttng, &defaults)) < 0 ||
	    (r = notify_start(&notify, e, &reg, &lttng)) < 0) {
		log_err("cannot set up the event loop: %s", strerror(-r));
		return 1;
	}
	log_info("caretd %s started, %d agents found, pacing %s", CARETD_VERSION, reg.count,
		 pacing_name(sched.cfg.pacing));

	r = sd_event_loop(e);
	if (r < 0)
		log_err("event loop: %s", strerror(-r));
	notify_stopping(&notify);
	server_free(server);
	pacer_stop(&pacer);
	registry_loop_stop(&reg_loop);
	lttng_view_stop(&lttng);
	registry_close(&reg);
	sd_event_unref(e);
	log_info("stopped; agents keep their state in their segments");
	return r < 0 ? 1 : 0;
}
