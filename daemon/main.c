/* SPDX-License-Identifier: Apache-2.0 */
/*
 * caretd: host-wide runtime-recording daemon. One thread, one epoll loop:
 * control socket, inotify on /dev/shm, a tick timer, signals.
 */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "daemon/caretd.h"
#include "daemon/log.h"
#include "proto/caret_ctl.h"

#define MS 1000000LL
#define TICK_BUSY_MS 10
#define TICK_IDLE_MS 50
#define POLL_LTTNG_MS 50
#define SWEEP_MS 1000

enum { TAG_LISTEN = 1, TAG_INOTIFY, TAG_TIMER, TAG_SIGNAL };
static int tags[5];

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

static void notify_status(struct caretd *d)
{
	static char last[640];
	char s[640];
	struct progress p;
	sched_progress(&d->reg, &p);
	if (!d->lttng_ok)
		snprintf(s, sizeof(s), "STATUS=waiting for lttng-sessiond (%.200s); %d agents",
			 d->lttng_err, p.total);
	else if (d->n_active == 0)
		snprintf(s, sizeof(s), "STATUS=idle: %d agents, no active LTTng session", p.total);
	else if (p.recording < p.total)
		snprintf(s, sizeof(s), "STATUS=replaying: %d/%d processes recording", p.recording,
			 p.total);
	else
		snprintf(s, sizeof(s), "STATUS=recording: %d processes, session %.200s", p.total,
			 d->active[0]);
	if (strcmp(s, last)) {
		sd_notify(0, s);
		memcpy(last, s, sizeof(last));
	}
}

void caretd_poll_lttng(struct caretd *d)
{
	char err[256];
	int n = caret_lttng_active_sessions(d->active, CARETD_MAX_SESSIONS, err, sizeof(err));
	bool was_ok = d->lttng_ok;
	int before = d->n_active;
	if (n < 0) {
		if (was_ok || !d->lttng_err[0])
			log_warn("lttng-sessiond not reachable: %s; retrying", err);
		snprintf(d->lttng_err, sizeof(d->lttng_err), "%s", err);
		d->lttng_ok = false;
		return;
	}
	if (!was_ok)
		log_info("lttng-sessiond reachable");
	d->lttng_ok = true;
	d->lttng_err[0] = '\0';
	d->n_active = n;
	if (n != before)
		log_info("%d active LTTng session%s%s%s", n, n == 1 ? "" : "s", n ? ", first: " : "",
			 n ? d->active[0] : "");
}

static int add_fd(struct caretd *d, int fd, int *tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = tag };
	return epoll_ctl(d->epoll_fd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

static void set_tick(struct caretd *d, int ms)
{
	static int cur;
	if (ms == cur)
		return;
	struct itimerspec it = { { 0, ms * MS }, { 0, ms * MS } };
	timerfd_settime(d->timer_fd, 0, &it, NULL);
	cur = ms;
}

static void tick(struct caretd *d, int64_t now, bool *ready)
{
	if (now - d->last_poll_ns >= POLL_LTTNG_MS * MS) {
		caretd_poll_lttng(d);
		d->last_poll_ns = now;
	}
	registry_retry_pending(&d->reg);
	if (now - d->last_sweep_ns >= SWEEP_MS * MS) {
		registry_sweep(&d->reg);
		d->last_sweep_ns = now;
	}
	/* Without the session daemon we cannot tell Start from End: leave
	 * every agent where it is. */
	if (d->lttng_ok)
		sched_tick(&d->sched, &d->reg, d->n_active > 0, now);
	server_tick(d, now);
	notify_status(d);
	if (!*ready && d->lttng_ok) {
		sd_notify(0, "READY=1");
		*ready = true;
		log_info("ready");
	}
	if (d->watchdog_usec && now - d->last_watchdog_ns >= d->watchdog_usec * 1000 / 2) {
		sd_notify(0, "WATCHDOG=1");
		d->last_watchdog_ns = now;
	}
	bool waiting = false;
	for (struct client *c = d->clients; c; c = c->next)
		waiting |= c->waiting;
	set_tick(d, (waiting || sched_busy(&d->reg)) ? TICK_BUSY_MS : TICK_IDLE_MS);
}

int main(int argc, char **argv)
{
	static struct caretd d;
	d.listen_fd = d.timer_fd = d.signal_fd = d.epoll_fd = -1;
	d.socket_path = CARET_CTL_DEFAULT_SOCKET;
	d.sched.cfg.pacing = PACING_ADAPTIVE;
	d.sched.cfg.frequency = CARET_CTL_DEFAULT_FREQUENCY;
	d.sched.cfg.bandwidth = 64ULL << 20;
	int level = LOG_INFO;
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
			d.socket_path = optarg;
			break;
		case 'g': {
			struct group *g = getgrnam(optarg);
			if (!g) {
				fprintf(stderr, "caretd: no such group: %s\n", optarg);
				return 2;
			}
			d.group = g->gr_gid;
			d.have_group = true;
			break;
		}
		case 'p':
			if (!strcmp(optarg, "adaptive"))
				d.sched.cfg.pacing = PACING_ADAPTIVE;
			else if (!strcmp(optarg, "frequency"))
				d.sched.cfg.pacing = PACING_FREQUENCY;
			else {
				fprintf(stderr, "caretd: --pacing must be adaptive or frequency\n");
				return 2;
			}
			break;
		case 'f': {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*end || v <= 0 || v > 100000000) {
				fprintf(stderr, "caretd: bad --recording-frequency: %s\n", optarg);
				return 2;
			}
			d.sched.cfg.frequency = (uint32_t)v;
			break;
		}
		case 'b':
			if (caret_parse_size(optarg, 1ULL << 40, &d.sched.cfg.bandwidth) < 0) {
				fprintf(stderr, "caretd: bad --replay-bandwidth: %s\n", optarg);
				return 2;
			}
			break;
		case 'l':
			if (!strcmp(optarg, "error"))
				level = LOG_ERR;
			else if (!strcmp(optarg, "warning"))
				level = LOG_WARNING;
			else if (!strcmp(optarg, "info"))
				level = LOG_INFO;
			else if (!strcmp(optarg, "debug"))
				level = LOG_DEBUG;
			else {
				fprintf(stderr, "caretd: bad --log-level: %s\n", optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("caretd %s\n", CARETD_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	log_init(level);
	/* lttng-ctl writes to the session daemon's socket: if it dies, a
	 * SIGPIPE would kill us. */
	signal(SIGPIPE, SIG_IGN);
	uint64_t wd = 0;
	if (sd_watchdog_enabled(0, &wd) > 0)
		d.watchdog_usec = (int64_t)wd;

	sigset_t ss;
	sigemptyset(&ss);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	sigaddset(&ss, SIGHUP);
	sigprocmask(SIG_BLOCK, &ss, NULL);
	d.signal_fd = signalfd(-1, &ss, SFD_NONBLOCK | SFD_CLOEXEC);
	d.epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	d.timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (d.signal_fd < 0 || d.epoll_fd < 0 || d.timer_fd < 0) {
		log_err("cannot set up the event loop: %s", strerror(errno));
		return 1;
	}
	int r = registry_open(&d.reg);
	if (r < 0) {
		log_err("cannot watch /dev/shm: %s", strerror(-r));
		return 1;
	}
	if ((r = server_listen(&d)) < 0)
		return 1;
	if (add_fd(&d, d.listen_fd, &tags[TAG_LISTEN]) < 0 ||
	    add_fd(&d, d.reg.inotify_fd, &tags[TAG_INOTIFY]) < 0 ||
	    add_fd(&d, d.timer_fd, &tags[TAG_TIMER]) < 0 ||
	    add_fd(&d, d.signal_fd, &tags[TAG_SIGNAL]) < 0) {
		log_err("epoll: %s", strerror(errno));
		return 1;
	}
	log_info("caretd %s started, %d agents found, pacing %s", CARETD_VERSION, d.reg.count,
		 d.sched.cfg.pacing == PACING_ADAPTIVE ? "adaptive" : "frequency");
	set_tick(&d, TICK_BUSY_MS);
	bool ready = false;
	tick(&d, caret_now_ns(), &ready);

	while (!d.quit) {
		struct epoll_event evs[32];
		int n = epoll_wait(d.epoll_fd, evs, 32, 1000);
		if (n < 0 && errno != EINTR) {
			log_err("epoll_wait: %s", strerror(errno));
			break;
		}
		bool ticked = false;
		for (int i = 0; i < n; i++) {
			void *p = evs[i].data.ptr;
			if (p == &tags[TAG_LISTEN]) {
				server_on_accept(&d);
			} else if (p == &tags[TAG_INOTIFY]) {
				registry_on_inotify(&d.reg);
			} else if (p == &tags[TAG_TIMER]) {
				uint64_t x;
				ssize_t rr = read(d.timer_fd, &x, sizeof(x));
				(void)rr;
				ticked = true;
			} else if (p == &tags[TAG_SIGNAL]) {
				struct signalfd_siginfo si;
				while (read(d.signal_fd, &si, sizeof(si)) == sizeof(si)) {
					log_info("signal %u: shutting down", si.ssi_signo);
					d.quit = true;
				}
			} else {
				server_on_client(&d, p, evs[i].events);
				break; /* the client list may have changed */
			}
		}
		if (ticked)
			tick(&d, caret_now_ns(), &ready);
	}
	sd_notify(0, "STOPPING=1");
	server_close_all(&d);
	registry_close(&d.reg);
	log_info("stopped; agents keep their state in their segments");
	return 0;
}
