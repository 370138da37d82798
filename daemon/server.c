/* SPDX-License-Identifier: Apache-2.0 */
/* The control socket: accept, peer credentials, line framing, output
 * buffering. Never blocks the main loop on a slow or hostile client. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "daemon/caretd.h"
#include "daemon/log.h"
#include "proto/caret_ctl.h"

#define OUT_MAX (4u << 20) /* a client that reads nothing is dropped */
#define MAX_CLIENTS 64

static int mkdir_parent(const char *path)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int server_listen(struct caretd *d)
{
	int n = sd_listen_fds(1);
	if (n > 1) {
		log_err("expected one socket from systemd, got %d", n);
		return -EINVAL;
	}
	if (n == 1) {
		if (sd_is_socket_unix(SD_LISTEN_FDS_START, SOCK_STREAM, 1, NULL, 0) <= 0) {
			log_err("the socket passed by systemd is not a listening unix stream socket");
			return -EINVAL;
		}
		d->listen_fd = SD_LISTEN_FDS_START;
		d->socket_activated = true;
		fcntl(d->listen_fd, F_SETFD, FD_CLOEXEC);
		fcntl(d->listen_fd, F_SETFL, fcntl(d->listen_fd, F_GETFL) | O_NONBLOCK);
		log_info("using the control socket passed by systemd");
		return 0;
	}
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	if (strlen(d->socket_path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, d->socket_path);
	int r = mkdir_parent(d->socket_path);
	if (r < 0) {
		log_err("cannot create the directory of %s: %s", d->socket_path, strerror(-r));
		return r;
	}
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* A stale socket from a killed caretd: remove it only if nobody
	 * answers on it. */
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		close(fd);
		log_err("another caretd is already listening on %s", d->socket_path);
		return -EADDRINUSE;
	}
	close(fd);
	unlink(d->socket_path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	mode_t old = umask(0117);
	r = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (r < 0 || listen(fd, 16) < 0) {
		r = -errno;
		close(fd);
		log_err("cannot listen on %s: %s", d->socket_path, strerror(-r));
		return r;
	}
	if (d->have_group) {
		if (chown(d->socket_path, (uid_t)-1, d->group) < 0)
			log_warn("cannot give %s to the group: %s", d->socket_path, strerror(errno));
	} else {
		chmod(d->socket_path, 0600);
	}
	d->listen_fd = fd;
	log_info("listening on %s", d->socket_path);
	return 0;
}

static bool in_group(pid_t pid, gid_t primary, gid_t want)
{
	if (primary == want)
		return true;
	char path[64], line[4096];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	bool found = false;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "Groups:", 7))
			continue;
		char *p = line + 7, *end;
		for (;;) {
			unsigned long g = strtoul(p, &end, 10);
			if (end == p)
				break;
			if ((gid_t)g == want)
				found = true;
			p = end;
		}
	}
	fclose(f);
	return found;
}

static void client_free(struct caretd *d, struct client *c)
{
	epoll_ctl(d->epoll_fd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	free(c->in);
	free(c->out);
	free(c);
}

static int n_clients(struct caretd *d)
{
	int n = 0;
	for (struct client *c = d->clients; c; c = c->next)
		n++;
	return n;
}

void server_on_accept(struct caretd *d)
{
	for (;;) {
		int fd = accept4(d->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		struct ucred cr;
		socklen_t len = sizeof(cr);
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0) {
			close(fd);
			continue;
		}
		bool allowed = cr.uid == 0 || cr.uid == geteuid() ||
			       (d->have_group && in_group(cr.pid, cr.gid, d->group));
		if (!allowed || n_clients(d) >= MAX_CLIENTS) {
			char msg[256];
			int n = snprintf(msg, sizeof(msg),
					 "{\"v\":%d,\"type\":\"error\",\"errno\":%d,\"error\":\"%s\"}\n",
					 CARET_CTL_VERSION, allowed ? EBUSY : EACCES,
					 allowed ? "too many clients"
						 : "permission denied: caretd accepts root, its own "
						   "user and members of its group only");
			ssize_t w = write(fd, msg, (size_t)n);
			(void)w;
			log_warn("refused a client: pid %d uid %d%s", (int)cr.pid, (int)cr.uid,
				 allowed ? " (too many clients)" : "");
			close(fd);
			continue;
		}
		struct client *c = calloc(1, sizeof(*c));
		if (!c || !(c->in = malloc(CARET_CTL_MAX_LINE + 1))) {
			free(c);
			close(fd);
			continue;
		}
		c->fd = fd;
		c->uid = cr.uid;
		c->pid = cr.pid;
		struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP, .data.ptr = c };
		if (epoll_ctl(d->epoll_fd, EPOLL_CTL_ADD, fd, &ev) < 0) {
			free(c->in);
			free(c);
			close(fd);
			continue;
		}
		c->next = d->clients;
		d->clients = c;
	}
}

void client_send(struct client *c, const char *line)
{
	size_t n = strlen(line);
	if (c->out_len + n + 1 > OUT_MAX) {
		c->closing = true;
		return;
	}
	if (c->out_len + n + 1 > c->out_cap) {
		size_t cap = c->out_cap ? c->out_cap : 4096;
		while (cap < c->out_len + n + 1)
			cap *= 2;
		char *p = realloc(c->out, cap);
		if (!p) {
			c->closing = true;
			return;
		}
		c->out = p;
		c->out_cap = cap;
	}
	memcpy(c->out + c->out_len, line, n);
	c->out[c->out_len + n] = '\n';
	c->out_len += n + 1;
}

static void flush_out(struct caretd *d, struct client *c)
{
	while (c->out_len) {
		ssize_t w = send(c->fd, c->out, c->out_len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0) {
			if (errno == EAGAIN)
				break;
			c->closing = true;
			c->out_len = 0;
			return;
		}
		memmove(c->out, c->out + w, c->out_len - (size_t)w);
		c->out_len -= (size_t)w;
	}
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP | (c->out_len ? EPOLLOUT : 0),
				  .data.ptr = c };
	epoll_ctl(d->epoll_fd, EPOLL_CTL_MOD, c->fd, &ev);
}

static void read_in(struct caretd *d, struct client *c)
{
	for (;;) {
		ssize_t n = recv(c->fd, c->in + c->in_len, CARET_CTL_MAX_LINE - c->in_len, 0);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
			c->closing = true;
			return;
		}
		if (n < 0)
			return;
		c->in_len += (size_t)n;
		char *nl;
		while ((nl = memchr(c->in, '\n', c->in_len))) {
			*nl = '\0';
			/* one request at a time: a waiting client gets no other */
			if (!c->waiting)
				command_dispatch(d, c, c->in);
			size_t used = (size_t)(nl - c->in) + 1;
			memmove(c->in, nl + 1, c->in_len - used);
			c->in_len -= used;
		}
		if (c->in_len >= CARET_CTL_MAX_LINE) {
			client_send(c, "{\"v\":1,\"type\":\"error\",\"errno\":90,"
				       "\"error\":\"request line too long\"}");
			c->in_len = 0;
			c->closing = true;
			return;
		}
	}
}

static void reap(struct caretd *d)
{
	struct client **pp = &d->clients;
	while (*pp) {
		struct client *c = *pp;
		if (c->closing && (c->out_len == 0 || c->fd < 0)) {
			*pp = c->next;
			client_free(d, c);
		} else {
			pp = &c->next;
		}
	}
}

void server_on_client(struct caretd *d, struct client *c, uint32_t events)
{
	if (events & EPOLLIN)
		read_in(d, c);
	if (events & (EPOLLHUP | EPOLLERR)) {
		c->closing = true;
		c->out_len = 0;
	}
	flush_out(d, c);
	reap(d);
}

void server_tick(struct caretd *d, int64_t now)
{
	for (struct client *c = d->clients; c; c = c->next) {
		if (c->waiting)
			command_wait_tick(d, c, now);
		if (c->out_len)
			flush_out(d, c);
	}
	reap(d);
}

void server_close_all(struct caretd *d)
{
	while (d->clients) {
		struct client *c = d->clients;
		d->clients = c->next;
		client_free(d, c);
	}
	if (d->listen_fd >= 0) {
		close(d->listen_fd);
		if (!d->socket_activated)
			unlink(d->socket_path);
	}
}
