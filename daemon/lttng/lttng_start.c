/* SPDX-License-Identifier: Apache-2.0 */
/* A session's making in caretd's start helper (daemon/lttng/lttng_start.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/base/log.h"
#include "daemon/lttng/lttng_helper.h"
#include "daemon/lttng/lttng_start.h"
#include "daemon/lttng/lttng_start_msg.h"
#include "util/caret_err.h"
#include "util/caret_util.h"

extern char **environ;

#define NS_PER_MS 1000000LL
/* A helper that dies is started again at once, but not more often than
 * this: one that dies at every start must not spin caretd. */
#define RESPAWN_GAP_NS (1000 * NS_PER_MS)
/* How long caretd's exit waits for an idle helper to go. */
#define EXIT_WAIT_MS 500
/* How long it waits for a start under way to end and be stopped: within
 * systemd's stop timeout (90 s by default, caretd.service), beyond a
 * start's usual tens of seconds with many processes (issue 34). */
#define EXIT_START_WAIT_MS 60000

/* The helper, and the one start it runs (lttng_start.h): module-wide. */
static struct {
	sd_event *event;
	pid_t helper;
	int sock;
	sd_event_source *io;
	int64_t spawned_ns;
	unsigned restarts;
	bool opened; /* lttng_start_open succeeded once: starts go to a helper */
	bool running, cancelled;
	/* the helper died mid-start: the next one stops and destroys the
	 * session it left (LTTNG_START_DROP), the start's end deferred till
	 * then; lost_why, what the requester is told */
	bool dropping;
	bool exiting; /* lttng_start_abandon: nothing more runs on the loop */
	char name[CARET_LTTNG_NAME_MAX]; /* the session the start makes */
	/* what tells that session from another of its name made since: its
	 * trace's parent directory or URL (lttng_start_drop_ours) */
	char ident[PATH_MAX];
	char lost_why[512];
	char marker[PATH_MAX]; /* lttng_start_open's; "" for none */
	bool keep_marker; /* this end leaves a session maybe made: kept */
	struct lttng_view *v;
	int64_t since_ns;
	lttng_start_fn done;
	void *arg;
	struct lttng_start_result res;
} S = { .sock = -1 };

/* What waits for the running start's end (lttng_start_after), oldest
 * first. */
struct after {
	lttng_start_after_fn fn;
	void *arg;
	struct after *next;
};
static struct after *afters, **afters_tail = &afters;

int lttng_start_after(lttng_start_after_fn fn, void *arg)
{
	if (!S.running) {
		fn(arg, true);
		return 0;
	}
	struct after *a = malloc(sizeof(*a));
	if (!a)
		return -ENOMEM;
	*a = (struct after){ fn, arg, NULL };
	*afters_tail = a;
	afters_tail = &a->next;
	return 0;
}

/* run: the start ended (one that a callback begins keeps the rest
 * waiting for its own end); or caretd exits. */
static void run_afters(bool run)
{
	while (afters && (!run || !S.running)) {
		struct after *a = afters;
		afters = a->next;
		if (!afters)
			afters_tail = &afters;
		a->fn(a->arg, run);
		free(a);
	}
}

bool lttng_start_async(const struct lttng_view *v)
{
	return S.opened && v->poll.loop && lttng_view_ops(v) == &caret_lttng_ops_real;
}

bool lttng_start_running(int64_t *since_ns)
{
	if (S.running && since_ns)
		*since_ns = S.since_ns;
	return S.running;
}

static void end(const struct lttng_start_result *res)
{
	S.running = false;
	S.cancelled = false;
	S.dropping = false;
	if (S.v) /* NULL: the drop of what a caretd before left (no view yet) */
		S.v->starting = false;
	lttng_start_fn done = S.done;
	S.done = NULL;
	done(S.arg, res);
	/* its end is known: nothing is left for a caretd after this one */
	if (S.marker[0] && !S.keep_marker && unlink(S.marker) < 0 && errno != ENOENT)
		log_warn("cannot remove %s: %s", S.marker, strerror(errno));
	S.keep_marker = false;
	if (!S.exiting)
		run_afters(true);
}

/* Waits for the helper's exit, up to ms (0: not at all); its status, or
 * -1 when it has not exited yet (its zombie is reaped at the next spawn). */
static int reap(pid_t pid, int ms)
{
	for (int i = 0;; i++) {
		int st;
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			return st;
		if ((r < 0 && errno != EINTR) || i >= ms)
			return -1;
		usleep(1000);
	}
}

static void describe(int st, char *buf, size_t len)
{
	if (st < 0)
		snprintf(buf, len, "its exit not seen yet");
	else if (WIFSIGNALED(st))
		snprintf(buf, len, "killed by signal %d", WTERMSIG(st));
	else
		snprintf(buf, len, "exit status %d", WEXITSTATUS(st));
}

static void close_helper(void)
{
	S.io = sd_event_source_disable_unref(S.io);
	if (S.sock >= 0)
		close(S.sock);
	S.sock = -1;
}

static int on_sock(sd_event_source *src, int fd, uint32_t events, void *arg);

/* caretd's binary again, in the helper's mode: posix_spawn, not a bare
 * fork, since caretd may have threads by now (lttng_helper.h). */
static int spawn(char *err, size_t errlen)
{
	if (S.helper > 0) /* a helper that went: its zombie, if still there */
		reap(S.helper, 0);
	S.helper = 0;
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return caret_errf(err, errlen, -errno, "socketpair: %s", strerror(errno));
	int big = 2 * LTTNG_START_MSG_MAX;
	(void)setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	posix_spawn_file_actions_adddup2(&fa, sv[1], LTTNG_HELPER_FD);
	posix_spawn_file_actions_addclosefrom_np(&fa, LTTNG_HELPER_FD + 1);
	/* SIGTERM, SIGINT and SIGHUP stay blocked: a start under way ends
	 * and is cleaned up (lttng_helper.h) */
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	posix_spawnattr_setsigmask(&at, &mask);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK);
	char *argv[] = { "caretd", LTTNG_HELPER_ARG, NULL };
	pid_t pid;
	int r = posix_spawn(&pid, "/proc/self/exe", &fa, &at, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(sv[1]);
	if (r == 0)
		r = -sd_event_add_io(S.event, &S.io, sv[0], EPOLLIN, on_sock, NULL);
	else
		pid = 0;
	if (r != 0) {
		close(sv[0]);
		if (pid > 0) {
			kill(pid, SIGKILL);
			reap(pid, EXIT_WAIT_MS);
		}
		return caret_errf(err, errlen, -r, "cannot start caretd's LTTng start helper: %s",
				  strerror(r));
	}
	S.helper = pid;
	S.sock = sv[0];
	S.spawned_ns = caret_now_ns();
	return 0;
}

/* A session the dead helper may have left half-made: a new helper stops
 * and destroys it, off the loop (LTTng may still be inside the dead one's
 * start); the start's end waits for that. false when it cannot be asked. */
static bool send_drop(void)
{
	static char msg[LTTNG_START_DROP_LEN];
	memset(msg, 0, sizeof(msg));
	msg[0] = LTTNG_START_DROP;
	snprintf(msg + 1, CARET_LTTNG_NAME_MAX, "%s", S.name);
	snprintf(msg + 1 + CARET_LTTNG_NAME_MAX, PATH_MAX, "%s", S.ident);
	/* a new helper's empty buffer holds it: this never waits */
	if (send(S.sock, msg, sizeof(msg), MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)sizeof(msg)) {
		log_err("cannot ask caretd's LTTng start helper (pid %d) to stop session %s: %s",
			(int)S.helper, S.name, strerror(errno));
		return false;
	}
	S.dropping = true;
	return true;
}

static bool drop_left(pid_t pid, const char *how)
{
	snprintf(S.lost_why, sizeof(S.lost_why), "caretd's LTTng start helper (pid %d) died "
		 "during the start of session %.255s (%.63s)", (int)pid, S.name, how);
	char err[256];
	if (spawn(err, sizeof(err)) < 0) {
		log_err("%s", err);
		return false;
	}
	log_info("caretd's LTTng start helper started again: pid %d (%u restarts); it stops "
		 "and destroys session %s if the one that died left it", (int)S.helper,
		 ++S.restarts, S.name);
	return send_drop();
}

/* The drop's answer: the start ends with an error that says what is left. */
static void dropped(const struct lttng_start_result *got)
{
	struct lttng_start_result res = { .r = -EIO };
	if (got->r >= 0 && got->foreign)
		snprintf(res.err, sizeof(res.err), "%.180s: the session of that name now is not "
			 "the one it started (its output %.120s, not under %.100s): left as it is",
			 S.lost_why, got->path[0] ? got->path : "unknown", S.ident[0] ? S.ident : "?");
	else if (got->r >= 0 && got->stopped)
		snprintf(res.err, sizeof(res.err), "%.400s: the session it left half-made was stopped "
			 "and destroyed; record again", S.lost_why);
	else if (got->r >= 0)
		snprintf(res.err, sizeof(res.err), "%.400s: no session of that name is left; record "
			 "again", S.lost_why);
	else
		snprintf(res.err, sizeof(res.err), "%.200s: stopping what it left failed (%.120s): "
			 "see 'lttng list', 'lttng destroy %.100s'", S.lost_why, got->err, S.name);
	log_err("%s", res.err);
	S.keep_marker = got->r < 0; /* not stopped: the next caretd tries again */
	end(&res);
}

/* The helper is gone: the start it ran ends with an error (once what it
 * left is stopped), another helper takes its place (at once, or at the
 * next start when it died young). */
static void lost(void)
{
	pid_t pid = S.helper;
	close_helper();
	char how[64];
	describe(reap(pid, 100), how, sizeof(how));
	bool young = caret_now_ns() - S.spawned_ns < RESPAWN_GAP_NS;
	bool was_dropping = S.dropping;
	log_err("caretd's LTTng start helper (pid %d) died (%s)%s; %s", (int)pid, how,
		S.running ? (was_dropping ? " while stopping a session the one before left"
					  : " during a session start")
			  : "", young ? "started again at the next record" : "starting it again");
	/* once only: a helper dying at every start must not spin caretd */
	if (S.running && !was_dropping && S.name[0] && drop_left(pid, how))
		return;
	if (S.running) {
		struct lttng_start_result res = { .r = -EIO };
		if (!S.lost_why[0] || !was_dropping)
			snprintf(S.lost_why, sizeof(S.lost_why), "caretd's LTTng start helper (pid %d) "
				 "died during the start (%s)", (int)pid, how);
		snprintf(res.err, sizeof(res.err), "%.300s; the session may be left made: see "
			 "'lttng list', 'lttng destroy %.100s'", S.lost_why, S.name[0] ? S.name : "NAME");
		S.keep_marker = true; /* the next caretd tries again */
		end(&res);
	}
	char err[256];
	if (!young && S.sock < 0 && spawn(err, sizeof(err)) == 0)
		log_info("caretd's LTTng start helper started again: pid %d (%u restarts)",
			 (int)S.helper, ++S.restarts);
	else if (!young && S.sock < 0)
		log_err("%s", err);
}

static int on_sock(sd_event_source *src, int fd, uint32_t events, void *arg)
{
	(void)src, (void)events, (void)arg;
	for (;;) {
		ssize_t n = recv(fd, &S.res, sizeof(S.res), MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n <= 0) {
			lost();
			return 0;
		}
		if (!S.running || (size_t)n != sizeof(S.res)) {
			log_err("caretd's LTTng start helper (pid %d) sent what it was not asked "
				"(%zd bytes): ended", (int)S.helper, n);
			kill(S.helper, SIGKILL);
			lost();
			return 0;
		}
		if (S.dropping)
			dropped(&S.res);
		else
			end(&S.res);
	}
}

static void leftover_done(void *arg, const struct lttng_start_result *res)
{
	(void)arg, (void)res; /* dropped() logged what became of it */
}

/* A marker left by a caretd that never learnt its start's end: the
 * session it names is asked stopped and destroyed, off the loop. */
static void drop_leftover(void)
{
	static char buf[CARET_LTTNG_NAME_MAX + PATH_MAX + 2];
	int fd = open(S.marker, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	struct stat st;
	/* as the recordings' state: only caretd's own file names a session
	 * to destroy */
	bool own = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
		   !(st.st_mode & 077);
	ssize_t n = own ? read(fd, buf, sizeof(buf) - 1) : -1;
	close(fd);
	if (!own)
		log_warn("%s: not caretd's own file (owner, mode): ignored", S.marker);
	buf[n > 0 ? n : 0] = '\0';
	/* the name, then the ident (none in a marker of a caretd before) */
	char *name = buf, *ident = buf + strcspn(buf, "\n");
	if (*ident)
		*ident++ = '\0';
	ident[strcspn(ident, "\n")] = '\0';
	if (!own || !name[0] || strlen(name) >= CARET_LTTNG_NAME_MAX || strlen(ident) >= PATH_MAX) {
		unlink(S.marker); /* names nothing caretd may destroy */
		return;
	}
	/* removed once the drop ended (end), kept if it fails */
	snprintf(S.name, sizeof(S.name), "%s", name);
	snprintf(S.ident, sizeof(S.ident), "%s", ident);
	snprintf(S.lost_why, sizeof(S.lost_why), "caretd exited or was killed during LTTng's "
		 "start of session %.255s (%.150s names it)", S.name, S.marker);
	log_warn("%s: caretd's LTTng start helper stops and destroys what it left, if the "
		 "session of that name is still the one it started", S.lost_why);
	S.running = true;
	S.since_ns = caret_now_ns();
	S.done = leftover_done;
	S.v = NULL;
	if (!send_drop()) {
		S.running = false;
		S.done = NULL;
	}
}

int lttng_start_open(sd_event *e, const char *marker)
{
	char err[256];
	S.event = sd_event_ref(e);
	S.exiting = false; /* opened again after an abandon: unit tests in one process */
	snprintf(S.marker, sizeof(S.marker), "%s", marker ? marker : "");
	int r = spawn(err, sizeof(err));
	if (r < 0)
		return log_err_errno(r, "%s: sessions are started on caretd's loop", err);
	S.opened = true;
	log_debug("LTTng start helper: pid %d", (int)S.helper);
	if (S.marker[0])
		drop_leftover();
	return 0;
}

/* The session this start makes, for a caretd after this one should this
 * one be killed before the start's end. */
static void mark(void)
{
	if (!S.marker[0])
		return;
	static char line[CARET_LTTNG_NAME_MAX + PATH_MAX + 2];
	int len = snprintf(line, sizeof(line), "%s\n%s\n", S.name, S.ident);
	int fd = open(S.marker, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	bool ok = fd >= 0 && write(fd, line, (size_t)len) == len;
	int e = errno;
	if (fd >= 0 && close(fd) < 0)
		ok = false;
	if (!ok)
		log_warn("cannot write %s: %s (a session this start leaves, should caretd be "
			 "killed during it, is not stopped by the next caretd)", S.marker,
			 strerror(e));
}

int lttng_start_begin(struct lttng_view *v, const struct caret_lttng_cfg *cfg,
		      lttng_start_fn done, void *arg, char *err, size_t errlen)
{
	if (S.running)
		return caret_errf(err, errlen, -EAGAIN, "LTTng is starting another session: "
				  "record again once it is started");
	if (S.sock < 0) {
		if (caret_now_ns() - S.spawned_ns < RESPAWN_GAP_NS)
			return caret_errf(err, errlen, -EAGAIN, "caretd's LTTng start helper died "
					  "a moment ago: record again");
		int r = spawn(err, errlen);
		if (r < 0)
			return r;
		log_info("caretd's LTTng start helper started again: pid %d (%u restarts)",
			 (int)S.helper, ++S.restarts);
	}
	static char msg[LTTNG_START_MSG_MAX];
	ssize_t n = lttng_start_msg_pack(cfg, msg, sizeof(msg));
	if (n < 0)
		return caret_errf(err, errlen, (int)n, "the session's configuration is too large "
				  "to send to caretd's LTTng start helper");
	/* the helper is idle (one start at a time) and the socket's buffer
	 * holds a whole request: this never waits */
	while (send(S.sock, msg, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		if (errno != EINTR)
			return caret_errf(err, errlen, -errno, "cannot ask caretd's LTTng start "
					  "helper (pid %d): %s", (int)S.helper, strerror(errno));
	S.running = true;
	S.cancelled = false;
	S.dropping = false;
	S.lost_why[0] = '\0';
	snprintf(S.name, sizeof(S.name), "%s", cfg->session ? cfg->session : "");
	snprintf(S.ident, sizeof(S.ident), "%s", cfg->url ? cfg->url : cfg->path ? cfg->path : "");
	mark();
	S.v = v;
	S.since_ns = caret_now_ns();
	S.done = done;
	S.arg = arg;
	v->starting = true;
	return 0;
}

void lttng_start_cancel(void)
{
	if (!S.running || S.cancelled || S.sock < 0)
		return;
	char c = LTTNG_START_CANCEL;
	/* lost (the helper is gone): its end says so at once */
	if (send(S.sock, &c, 1, MSG_DONTWAIT | MSG_NOSIGNAL) == 1)
		S.cancelled = true;
}

/* The running start's (or drop's) result, waited for up to ms: whether
 * it came (in S.res). */
static bool wait_result(int ms)
{
	int64_t until = caret_now_ns() + (int64_t)ms * NS_PER_MS;
	for (;;) {
		int left = (int)((until - caret_now_ns()) / NS_PER_MS);
		struct pollfd pf = { .fd = S.sock, .events = POLLIN };
		if (left <= 0 || S.sock < 0)
			return false;
		int n = poll(&pf, 1, left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		ssize_t got = recv(S.sock, &S.res, sizeof(S.res), MSG_DONTWAIT);
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		return got == (ssize_t)sizeof(S.res);
	}
}

/*
 * caretd exits during a start. The helper must not be left inside it:
 * systemd (KillMode=mixed) SIGKILLs what remains of caretd's group once
 * caretd exited, which would leave the session half-made and recording
 * for no one. So the start is cancelled and its end waited for, bounded
 * below systemd's stop timeout: the helper stops what it made.
 */
static void abandon_running(void)
{
	lttng_start_cancel();
	log_warn("caretd exits during LTTng's start of session %s: waiting up to %d s for its "
		 "start helper (pid %d) to end it and stop the session", S.name[0] ? S.name : "?",
		 EXIT_START_WAIT_MS / 1000, (int)S.helper);
	bool got = wait_result(EXIT_START_WAIT_MS);
	if (got && !S.dropping && S.res.r >= 0 && !S.res.stopped) {
		struct caret_lttng_chan_stats st;
		log_warn("session %s: started as caretd exits: stopped", S.res.name);
		lttng_view_ops(S.v)->stop(S.res.name, &st, 1, NULL, 0, NULL, 0);
	} else if (got && S.dropping) {
		log_info("session %s: what the LTTng start helper that died left is %s", S.name,
			 S.res.r < 0 ? "not stopped" : S.res.stopped ? "stopped" : "none");
	} else if (got) {
		log_info("session %s: its start ended as caretd exits%s", S.name,
			 S.res.stopped ? ": stopped by the start helper" : "");
	} else {
		S.keep_marker = true; /* the next caretd stops what is left */
		log_err("caretd's LTTng start helper (pid %d) is still inside LTTng's start of "
			"session %s after %d s: left to stop it on its own (if killed, see 'lttng "
			"list', 'lttng destroy %s')", (int)S.helper, S.name, EXIT_START_WAIT_MS / 1000,
			S.name);
	}
	struct lttng_start_result res = { .r = -ECANCELED };
	snprintf(res.err, sizeof(res.err), "caretd exits");
	end(&res);
}

void lttng_start_abandon(void)
{
	S.exiting = true;
	if (S.running)
		abandon_running();
	if (S.helper > 0) {
		close_helper(); /* its end reads EOF: it exits */
		if (reap(S.helper, EXIT_WAIT_MS) < 0)
			log_warn("caretd's LTTng start helper (pid %d) has not exited within "
				 "%d ms: left to end on its own", (int)S.helper, EXIT_WAIT_MS);
	}
	run_afters(false);
	S.helper = 0;
	S.opened = false;
	S.event = sd_event_unref(S.event);
}
