/* SPDX-License-Identifier: Apache-2.0 */
/* The LTTng start helper's loop (daemon/lttng/lttng_helper.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon/base/log.h"
#include "daemon/lttng/lttng_helper.h"
#include "daemon/lttng/lttng_start_msg.h"

/* What is waiting on the socket once a start ended: caretd's cancel, or
 * its end closed (gone). Read without waiting. */
static void read_cancel(int fd, bool *cancelled, bool *gone)
{
	for (;;) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		if (poll(&pf, 1, 0) <= 0)
			return;
		char c[2];
		ssize_t n = recv(fd, c, sizeof(c), MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			*gone = n == 0 || errno != EAGAIN;
			return;
		}
		if (n == 1 && c[0] == LTTNG_START_CANCEL)
			*cancelled = true;
	}
}

static void stop_made(const char *name)
{
	struct caret_lttng_chan_stats st;
	char err[256] = "";
	if (caret_lttng_ops_real.stop(name, &st, 1, NULL, 0, err, sizeof(err)) < 0)
		log_err("session %s: cannot stop it: %s", name, err);
}

/* One start: the session made, then stopped if nobody wants it; the
 * result sent. 0, or -EPIPE once caretd is gone. */
static int serve(int fd, const void *msg, size_t len, struct lttng_start_req *req,
		 struct lttng_start_result *res)
{
	memset(res, 0, sizeof(*res));
	res->r = lttng_start_msg_unpack(msg, len, req);
	if (res->r < 0)
		snprintf(res->err, sizeof(res->err), "the LTTng start helper could not read "
			 "caretd's request");
	else
		res->r = caret_lttng_ops_real.record(&req->cfg, res->name, sizeof(res->name),
						     res->path, sizeof(res->path), res->err,
						     sizeof(res->err));
	res->dir = req->dir;
	bool cancelled = false, gone = false;
	read_cancel(fd, &cancelled, &gone);
	if (res->r >= 0 && (cancelled || gone)) {
		if (gone)
			log_warn("session %s: caretd is gone before its start ended: stopped",
				 res->name);
		stop_made(res->name);
		res->stopped = true;
	}
	if (gone)
		return -EPIPE;
	while (send(fd, res, sizeof(*res), MSG_NOSIGNAL) < 0) {
		if (errno == EINTR)
			continue;
		int e = -errno;
		if (res->r >= 0 && !res->stopped) {
			log_warn("session %s: its start's result cannot reach caretd (%s): "
				 "stopped", res->name, strerror(-e));
			stop_made(res->name);
		}
		return -EPIPE;
	}
	return 0;
}

/* Whether session name (its output out) is the one the start that ident
 * describes made: LTTng lists a network output by address, so a URL's
 * host name is also tried as each address it resolves to. */
static bool ours(const char *name, const char *ident, const char *out)
{
	char host[256];
	if (lttng_start_drop_ours(name, ident, out, NULL))
		return true;
	if (ident[0] == '/' || lttng_start_url_host(ident, host, sizeof(host)) < 0)
		return false;
	struct addrinfo *ai = NULL, hints = { .ai_socktype = SOCK_STREAM };
	if (getaddrinfo(host, NULL, &hints, &ai) != 0)
		return false;
	bool yes = false;
	for (struct addrinfo *a = ai; a && !yes; a = a->ai_next) {
		char addr[INET6_ADDRSTRLEN];
		const void *p = a->ai_family == AF_INET
					? (const void *)&((struct sockaddr_in *)a->ai_addr)->sin_addr
					: (const void *)&((struct sockaddr_in6 *)a->ai_addr)->sin6_addr;
		yes = inet_ntop(a->ai_family, p, addr, sizeof(addr)) &&
		      lttng_start_drop_ours(name, ident, out, addr);
	}
	freeaddrinfo(ai);
	return yes;
}

/* A session the helper before this one left when it died mid-start
 * (LTTNG_START_DROP), if it is still the one that start made. */
static void drop(int fd, const char *msg, struct lttng_start_result *res)
{
	static char ident[PATH_MAX];
	memset(res, 0, sizeof(*res));
	memcpy(res->name, msg + 1, sizeof(res->name));
	res->name[sizeof(res->name) - 1] = '\0'; /* read as any input */
	memcpy(ident, msg + 1 + CARET_LTTNG_NAME_MAX, sizeof(ident));
	ident[sizeof(ident) - 1] = '\0';
	res->r = caret_lttng_ops_real.exists(res->name, res->err, sizeof(res->err));
	if (res->r == 1 && (caret_lttng_session_path(res->name, res->path, sizeof(res->path)) < 0 ||
			    !ours(res->name, ident, res->path))) {
		res->foreign = true;
		res->r = 0;
	}
	if (res->r == 1) {
		struct caret_lttng_chan_stats st;
		res->r = caret_lttng_ops_real.stop(res->name, &st, 1, NULL, 0, res->err,
						   sizeof(res->err));
		res->stopped = res->r >= 0;
	}
	if (res->r > 0)
		res->r = 0;
	while (send(fd, res, sizeof(*res), MSG_NOSIGNAL) < 0 && errno == EINTR)
		;
}

/* Ends with _exit: nothing of caretd's exit (its atexit handlers, a
 * sanitizer's leak report over lttng-ctl's process-wide state) is the
 * helper's. */
_Noreturn void lttng_helper_main(void)
{
	/* nothing of caretd's but the socket: a copy of its control socket
	 * or of a segment would outlive it here */
	close_range(LTTNG_HELPER_FD + 1, ~0U, 0);
	signal(SIGPIPE, SIG_IGN); /* lttng-ctl's writes to a dying session daemon */
	log_init(LOG_INFO);
	static char msg[LTTNG_START_MSG_MAX];
	static struct lttng_start_req req;
	static struct lttng_start_result res;
	for (;;) {
		ssize_t n = recv(LTTNG_HELPER_FD, msg, sizeof(msg), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(n == 0 ? 0 : 1); /* caretd closed its end */
		if (n == 1)
			continue; /* a cancel that came after its start's result */
		if (n == LTTNG_START_DROP_LEN && msg[0] == LTTNG_START_DROP) {
			drop(LTTNG_HELPER_FD, msg, &res);
			continue;
		}
		if (serve(LTTNG_HELPER_FD, msg, (size_t)n, &req, &res) < 0)
			_exit(0);
	}
}
