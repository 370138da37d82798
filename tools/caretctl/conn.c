/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "proto/caret_ctl.h"
#include "caretctl.h"
#include "conn.h"
#include "sig.h"

#define CONN_BUF (CARET_CTL_MAX_LINE + 2)     /* to start with */
#define CONN_BUF_MAX (CARET_CTL_MAX_REPLY + 2) /* a reply, its '\n', a NUL */

int cli_conn_open(struct cli_conn *c, const char *path, int64_t deadline_ms)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	c->fd = -1;
	c->buf = NULL;
	c->cap = c->len = c->off = 0;
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, path, strlen(path) + 1);

	/*
	 * Non-blocking because a unix connect() blocks without limit while
	 * the daemon's listen backlog is full.
	 */
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	for (;;) {
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			break;
		int e = errno;
		if (e == EINTR)
			continue;
		if (e == EAGAIN && cli_now_ms() < deadline_ms) {
			struct pollfd none;
			cli_ppoll(&none, 0, cli_now_ms() + 50);
			continue;
		}
		close(fd);
		return e == EAGAIN ? -ETIMEDOUT : -e;
	}
	c->buf = malloc(CONN_BUF);
	if (!c->buf) {
		close(fd);
		return -ENOMEM;
	}
	c->cap = CONN_BUF;
	c->fd = fd;
	return 0;
}

void cli_conn_close(struct cli_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->buf);
	c->fd = -1;
	c->buf = NULL;
	c->len = c->off = 0;
}

static int wait_fd(int fd, short events, int64_t deadline_ms, bool interruptible)
{
	for (;;) {
		if (interruptible && cli_sig_caught())
			return -EINTR;
		if (cli_now_ms() >= deadline_ms)
			return -ETIMEDOUT;
		struct pollfd p = { .fd = fd, .events = events };
		int r = cli_ppoll(&p, 1, deadline_ms);
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r > 0)
			return 0;
	}
}

int cli_conn_send(struct cli_conn *c, const char *line, size_t len, int64_t deadline_ms)
{
	size_t done = 0;
	while (done < len) {
		ssize_t n = send(c->fd, line + done, len - done, MSG_NOSIGNAL);
		if (n > 0) {
			done += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN)
			return -errno;
		/* The request is short; if the daemon cannot take it, say so. */
		int r = wait_fd(c->fd, POLLOUT, deadline_ms, false);
		if (r < 0)
			return r;
	}
	return 0;
}

int cli_conn_read_line(struct cli_conn *c, int64_t deadline_ms, bool interruptible,
		       char **line, size_t *len)
{
	if (c->off > 0) {
		memmove(c->buf, c->buf + c->off, c->len - c->off);
		c->len -= c->off;
		c->off = 0;
	}
	size_t scanned = 0;
	for (;;) {
		char *nl = memchr(c->buf + scanned, '\n', c->len - scanned);
		if (nl) {
			*nl = '\0';
			*line = c->buf;
			*len = (size_t)(nl - c->buf);
			c->off = *len + 1;
			return 0;
		}
		scanned = c->len;
		if (c->len > CARET_CTL_MAX_REPLY)
			return -EMSGSIZE;
		if (c->cap - 1 - c->len == 0) {
			size_t cap = c->cap * 2 < CONN_BUF_MAX ? c->cap * 2 : CONN_BUF_MAX;
			char *p = realloc(c->buf, cap);
			if (!p)
				return -ENOMEM;
			c->buf = p;
			c->cap = cap;
		}

		int r = wait_fd(c->fd, POLLIN, deadline_ms, interruptible);
		if (r < 0)
			return r;
		ssize_t n = recv(c->fd, c->buf + c->len, c->cap - 1 - c->len, 0);
		if (n == 0)
			return -ECONNRESET;
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		c->len += (size_t)n;
	}
}

bool cli_conn_gone(int err)
{
	return err == -ECONNRESET || err == -EPIPE || err == -ENOENT ||
	       err == -ECONNREFUSED || err == -ENOTCONN;
}
