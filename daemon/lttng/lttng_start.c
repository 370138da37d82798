/* SPDX-License-Identifier: Apache-2.0 */
/* A session's making in a child process (daemon/lttng/lttng_start.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/base/log.h"
#include "daemon/lttng/lttng_start.h"
#include "util/caret_err.h"
#include "util/caret_util.h"

/* One start at a time (lttng_start.h): its state, module-wide. */
static struct {
	bool running;
	struct lttng_view *v;
	pid_t pid;
	int fd;
	int cancel_fd; /* closed: the child stops what it made */
	sd_event_source *io;
	int64_t since_ns;
	lttng_start_fn done;
	void *arg;
	size_t got;
	struct lttng_start_result res;
} S = { .fd = -1, .cancel_fd = -1 };

bool lttng_start_async(const struct lttng_view *v)
{
	return v->poll.loop && lttng_view_ops(v) == &caret_lttng_ops_real;
}

bool lttng_start_running(int64_t *since_ns)
{
	if (S.running && since_ns)
		*since_ns = S.since_ns;
	return S.running;
}

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -errno;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Whether caretd cancelled the start (or is gone): its end of the cancel
 * pipe closed. */
static bool cancelled(int fd)
{
	struct pollfd pf = { .fd = fd, .events = POLLIN };
	return poll(&pf, 1, 0) > 0;
}

/* The child: caretd's descriptors closed but its pipes (a copy of the
 * control socket would keep it open should caretd die), the session made,
 * the result written; when caretd cancelled it, or nobody reads the
 * result, the session stopped, so that none runs for no one. */
static _Noreturn void child(const struct caret_lttng_ops *ops, const struct caret_lttng_cfg *c,
			    int wfd, int cfd)
{
	signal(SIGPIPE, SIG_IGN); /* a write with no reader fails instead */
	/* above every descriptor it may overwrite, then in place */
	int w = fcntl(wfd, F_DUPFD, 5), k = fcntl(cfd, F_DUPFD, 5);
	if (w < 0 || k < 0 || dup2(w, 3) < 0 || dup2(k, 4) < 0)
		_exit(1);
	close_range(5, ~0U, 0);
	static struct lttng_start_result res;
	struct caret_lttng_cfg cfg = *c;
	cfg.dir_out = &res.dir;
	res.r = ops->record(&cfg, res.name, sizeof(res.name), res.path, sizeof(res.path), res.err,
			    sizeof(res.err));
	if (res.r >= 0 && cancelled(4)) {
		struct caret_lttng_chan_stats st;
		ops->stop(res.name, &st, 1, NULL, 0, NULL, 0);
		res.stopped = true;
	}
	if (write_all(3, &res, sizeof(res)) < 0 && res.r >= 0 && !res.stopped) {
		struct caret_lttng_chan_stats st;
		log_warn("session %s: caretd is gone before its start ended: stopped",
			 res.name);
		ops->stop(res.name, &st, 1, NULL, 0, NULL, 0);
	}
	_exit(0);
}

static void end(const struct lttng_start_result *res)
{
	sd_event_source_disable_unref(S.io);
	S.io = NULL;
	if (S.fd >= 0)
		close(S.fd);
	S.fd = -1;
	lttng_start_cancel(); /* nothing left to cancel: the pipe closed */
	if (S.pid > 0)
		while (waitpid(S.pid, NULL, 0) < 0 && errno == EINTR)
			;
	S.pid = 0;
	S.running = false;
	S.v->starting = false;
	lttng_start_fn done = S.done;
	S.done = NULL;
	done(S.arg, res);
}

/* Reads what is there: 1 once the result is whole, 0 for more, or -errno
 * (the child ended without one). */
static int read_some(void)
{
	for (;;) {
		ssize_t n = read(S.fd, (char *)&S.res + S.got, sizeof(S.res) - S.got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? 0 : -errno;
		if (n == 0)
			return -EPIPE;
		S.got += (size_t)n;
		if (S.got == sizeof(S.res))
			return 1;
	}
}

static int on_pipe(sd_event_source *src, int fd, uint32_t events, void *arg)
{
	(void)src, (void)fd, (void)events, (void)arg;
	int r = read_some();
	if (r == 0)
		return 0;
	if (r < 0) {
		S.res = (struct lttng_start_result){ .r = -EIO };
		caret_errf(S.res.err, sizeof(S.res.err), -EIO, "the process starting the LTTng "
			   "session ended without a result: %s", strerror(-r));
	}
	end(&S.res);
	return 0;
}

int lttng_start_begin(struct lttng_view *v, const struct caret_lttng_cfg *cfg,
		      lttng_start_fn done, void *arg, char *err, size_t errlen)
{
	if (S.running)
		return caret_errf(err, errlen, -EAGAIN, "LTTng is starting another session: "
				  "record again once it is started");
	int p[2], c[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return caret_errf(err, errlen, -errno, "pipe: %s", strerror(errno));
	if (pipe2(c, O_CLOEXEC) < 0) {
		int x = -errno;
		close(p[0]);
		close(p[1]);
		return caret_errf(err, errlen, x, "pipe: %s", strerror(-x));
	}
	sd_event *e = v->poll.loop->event;
	int r = sd_event_add_io(e, &S.io, p[0], EPOLLIN, on_pipe, NULL);
	pid_t pid = r < 0 ? -1 : fork();
	if (pid == 0)
		child(lttng_view_ops(v), cfg, p[1], c[0]);
	int x = r < 0 ? r : -errno;
	close(p[1]);
	close(c[0]);
	if (pid < 0) {
		S.io = sd_event_source_disable_unref(S.io);
		close(p[0]);
		close(c[1]);
		return caret_errf(err, errlen, x, "cannot start the session's maker: %s",
				  strerror(-x));
	}
	(void)fcntl(p[0], F_SETFL, O_NONBLOCK);
	S.running = true;
	S.v = v;
	S.pid = pid;
	S.fd = p[0];
	S.cancel_fd = c[1];
	S.since_ns = caret_now_ns();
	S.done = done;
	S.arg = arg;
	S.got = 0;
	v->starting = true;
	return 0;
}

void lttng_start_cancel(void)
{
	if (S.cancel_fd >= 0)
		close(S.cancel_fd);
	S.cancel_fd = -1;
}

void lttng_start_abandon(void)
{
	if (!S.running)
		return;
	/* written already: nobody else will stop it */
	if (read_some() == 1 && S.res.r >= 0 && !S.res.stopped) {
		struct caret_lttng_chan_stats st;
		log_warn("session %s: started as caretd exits: stopped", S.res.name);
		lttng_view_ops(S.v)->stop(S.res.name, &st, 1, NULL, 0, NULL, 0);
	} else {
		log_warn("caretd exits during an LTTng session start: the process starting it "
			 "(pid %d) stops it once started", (int)S.pid);
	}
	/* not waited for: it may be inside LTTng's start for long */
	S.pid = 0;
	struct lttng_start_result res = { .r = -ECANCELED };
	snprintf(res.err, sizeof(res.err), "caretd exits");
	end(&res);
}
